/*
 * tools/analysis/io.c: MPI-IO per file (io.h).  Files and their rows by
 * function live in arrays found through maps, growing with the files
 * and functions the run used.  MPI_File_open is numbered on its
 * communicator, so the file it opened is remembered by (communicator,
 * sequence number) for st_io_instance().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/grow.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/io.h"
#include "tools/analysis/u64map.h"
#include "writer/event.h"
#include "writer/fn-info.h"

struct file_priv {
	uint64_t open_comm, open_seq;	/* its MPI_File_open instance */
};

struct fn_row {
	size_t file;
	struct st_io_call c;
};

struct st_io {
	/* Per function id: of kind file or I/O, which on_call() counts. */
	uint8_t rel[ST_FN_COUNT];
	struct st_io_file *f;
	struct file_priv *fp;
	size_t nf, af, afp;
	struct st_u64map file_of;	/* id -> index */
	struct st_u64map open_of;	/* mix(comm, seq) -> index */
	struct fn_row *fr;
	size_t nfr, afr;
	struct st_u64map fr_of;		/* file << 16 | fn -> index */
	struct st_u64map req_fr;	/* this rank's nonblocking reads */
	uint64_t open_comm, open_seq;	/* this rank's last MPI_File_open */
	int open_pending;
	struct st_io_file *out;		/* st_io_files() */
	struct st_io_call *out_fn;
};

static uint64_t mix(uint64_t comm, uint64_t seq)
{
	return comm ^ (seq * 0x9e3779b97f4a7c15ULL);
}

struct st_io *st_io_new(void)
{
	struct st_io *a = calloc(1, sizeof(struct st_io));

	if (!a)
		return NULL;
	st_fn_kinds(a->rel, ST_KIND_FILE, ST_KIND_IO);
	return a;
}

void st_io_free(struct st_io *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nf; i++)
		free(a->f[i].path);
	free(a->f);
	free(a->fp);
	free(a->fr);
	free(a->out);
	free(a->out_fn);
	st_u64map_release(&a->file_of);
	st_u64map_release(&a->open_of);
	st_u64map_release(&a->fr_of);
	st_u64map_release(&a->req_fr);
	free(a);
}

static struct st_io_file *file_get(struct st_io *a, uint64_t id, int create,
				   size_t *idx)
{
	uint64_t *v = st_u64map_find(&a->file_of, id);

	if (v) {
		*idx = (size_t)*v;
		return &a->f[*v];
	}
	if (!create)
		return NULL;
	if (ST_GROW(a->f, a->nf, a->af) || ST_GROW(a->fp, a->nf, a->afp) ||
	    !st_u64map_put(&a->file_of, id, a->nf, NULL))
		return NULL;
	memset(&a->f[a->nf], 0, sizeof(a->f[0]));
	memset(&a->fp[a->nf], 0, sizeof(a->fp[0]));
	a->f[a->nf].id = id;
	a->f[a->nf].amode = -1;
	*idx = a->nf;
	return &a->f[a->nf++];
}

/* Count a call in the row of ('idx', 'fn'); its index in '*row' if wanted. */
static int add_fn(struct st_io *a, size_t idx, uint16_t fn, uint64_t rb,
		  uint64_t wb, uint64_t dt, uint64_t *row)
{
	uint64_t key = (uint64_t)idx << 16 | fn, *v;
	struct st_io_call *c;
	int added;

	v = st_u64map_put(&a->fr_of, key, a->nfr, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		if (ST_GROW(a->fr, a->nfr, a->afr))
			return -ENOMEM;
		memset(&a->fr[a->nfr], 0, sizeof(a->fr[0]));
		a->fr[a->nfr].file = idx;
		a->fr[a->nfr].c.fn = fn;
		a->nfr++;
	}
	c = &a->fr[*v].c;
	c->calls++;
	c->rbytes += rb;
	c->wbytes += wb;
	c->time_ns += dt;
	if (row)
		*row = *v;
	return 0;
}

static int on_comm(struct st_io *a, const struct st_event *ev, int in)
{
	uint64_t dt = ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0;
	struct st_io_file *f;
	size_t idx;

	if (!ev->comm)
		return 0;
	if (!(f = file_get(a, ev->comm, 1, &idx)))
		return -ENOMEM;
	if (!f->path && ev->text_len) {
		if (!(f->path = strndup(ev->text, ev->text_len)))
			return -ENOMEM;
	}
	if (!f->nranks) {
		f->comm = ev->parent;
		f->size = ev->comm_size;
		f->amode = ev->arg;
	}
	f->nranks++;
	if (a->open_pending) {
		a->fp[idx].open_comm = a->open_comm;
		a->fp[idx].open_seq = a->open_seq;
		if (!st_u64map_put(&a->open_of, mix(a->open_comm, a->open_seq),
				   idx, NULL))
			return -ENOMEM;
		a->open_pending = 0;
	}
	if (!in)
		return 0;
	/* The open's own time: the record spans its call. */
	f->calls++;
	f->time_ns += dt;
	f->coll_calls++;
	f->coll_ns += dt;
	return add_fn(a, idx, ev->fn, 0, 0, dt, NULL);
}

/* The files opened at 'path' ('len' bytes) count one more delete. */
static void on_delete(struct st_io *a, const char *path, size_t len)
{
	size_t i;

	for (i = 0; i < a->nf; i++)
		if (a->f[i].path && strlen(a->f[i].path) == len &&
		    !memcmp(a->f[i].path, path, len))
			a->f[i].deletes++;
}

static int on_call(struct st_io *a, const struct st_event *ev, int in)
{
	const struct st_fn_desc *d = st_fn_desc(ev->fn);
	uint64_t dt = ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0;
	struct st_io_file *f;
	uint64_t row;
	size_t idx;

	if (!d || (d->kind != ST_KIND_FILE && d->kind != ST_KIND_IO))
		return 0;
	if (ev->fn == ST_FN_MPI_FILE_OPEN) {
		/* Numbered on its communicator; its file comes next. */
		a->open_comm = ev->comm;
		a->open_seq = ev->seq;
		a->open_pending = ev->seq != 0;
		return 0;
	}
	if (ev->fn == ST_FN_MPI_FILE_DELETE) {
		if (in && ev->text_len)
			on_delete(a, ev->text, ev->text_len);
		return 0;
	}
	if (!ev->comm || !in)
		return 0;
	if (!(f = file_get(a, ev->comm, 1, &idx)))
		return -ENOMEM;
	f->calls++;
	f->time_ns += dt;
	f->rbytes += ev->rbytes;
	f->wbytes += ev->sbytes;
	/* A split read counts at its _end, a split write at its _begin. */
	if (d->bytes == ST_BYTES_READ && d->family != ST_FAM_SPLIT)
		f->reads++;
	if (d->bytes == ST_BYTES_WRITE && d->family != ST_FAM_LOCAL)
		f->writes++;
	if (ev->seq || (d->flags & ST_FNF_COLLECTIVE)) {
		f->coll_calls++;
		f->coll_ns += dt;
	}
	if (add_fn(a, idx, ev->fn, ev->rbytes, ev->sbytes, dt, &row))
		return -ENOMEM;
	/* Its bytes come at completion, to its row too (ST_REC_DONE). */
	if (ev->req && d->bytes == ST_BYTES_READ &&
	    d->family == ST_FAM_NONBLOCKING &&
	    !st_u64map_put(&a->req_fr, ev->req, row, NULL))
		return -ENOMEM;
	return 0;
}

int st_io_add(struct st_io *a, int rank, const struct st_event *ev, int in)
{
	struct st_io_file *f;
	uint64_t *row;
	size_t idx;

	(void)rank;
	switch (ev->kind) {
	case ST_REC_COMM:
		if (ev->fn == ST_FN_MPI_FILE_OPEN)
			return on_comm(a, ev, in);
		return 0;
	case ST_REC_CALL:
		if (ev->fn < ST_FN_COUNT && !a->rel[ev->fn])
			return 0;
		return on_call(a, ev, in);
	case ST_REC_DONE:
		/*
		 * A nonblocking read learns its bytes at completion: the
		 * file's, and its function's row when its call was counted.
		 */
		if (in && ev->comm && ev->rbytes &&
		    (f = file_get(a, ev->comm, 0, &idx)))
			f->rbytes += ev->rbytes;
		if (ev->req && (row = st_u64map_find(&a->req_fr, ev->req))) {
			if (in && ev->comm)
				a->fr[*row].c.rbytes += ev->rbytes;
			st_u64map_del(&a->req_fr, ev->req);
		}
		return 0;
	}
	return 0;
}

void st_io_end_rank(struct st_io *a)
{
	a->open_pending = 0;
	st_u64map_clear(&a->req_fr);	/* request ids are per rank */
}

void st_io_instance(struct st_io *a, const struct st_imb_done *d)
{
	struct st_io_file *f;
	uint64_t *v;
	size_t idx;
	uint32_t i;

	if ((f = file_get(a, d->comm, 0, &idx))) {
		if (st_fn_group_coll(d->fn) != ST_GC_FILE)
			return;
	} else if ((v = st_u64map_find(&a->open_of, mix(d->comm, d->seq))) &&
		   a->fp[*v].open_comm == d->comm &&
		   a->fp[*v].open_seq == d->seq &&
		   d->fn == ST_FN_MPI_FILE_OPEN) {
		f = &a->f[*v];
	} else {
		return;
	}
	if (d->flagged) {
		f->inst_flagged++;
		return;
	}
	f->inst++;
	for (i = 0; i < d->n; i++) {
		double a0 = d->t[i][0], e = d->t[i][1];
		double until = e < d->last_arr ? e : d->last_arr;

		if (until > a0)
			f->wait_ns += until - a0;
		if (e > d->last_arr)
			f->after_ns += e - d->last_arr;
	}
}

/* The path of a file whose COMM record no rank had. */
static char no_path[1];

static int cmp_fr(const void *x, const void *y)
{
	const struct fn_row *a = x, *b = y;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return (int)a->c.fn - (int)b->c.fn;
}

static int cmp_file(const void *x, const void *y)
{
	const struct st_io_file *a = x, *b = y;

	return (a->id > b->id) - (a->id < b->id);
}

const struct st_io_file *st_io_files(struct st_io *a, size_t *n)
{
	size_t i, j;

	free(a->out);
	free(a->out_fn);
	a->out = NULL;
	a->out_fn = NULL;
	*n = 0;
	if (!a->nf)
		return NULL;
	if (a->nfr)
		qsort(a->fr, a->nfr, sizeof(*a->fr), cmp_fr);
	/* The map of rows now points at other rows: no more adding. */
	st_u64map_clear(&a->fr_of);
	a->out = malloc(a->nf * sizeof(*a->out));
	a->out_fn = malloc((a->nfr + 1) * sizeof(*a->out_fn));
	if (!a->out || !a->out_fn)
		return NULL;
	memcpy(a->out, a->f, a->nf * sizeof(*a->out));
	for (i = 0; i < a->nf; i++) {
		a->out[i].fn = NULL;
		a->out[i].nfn = 0;
		if (!a->out[i].path)
			a->out[i].path = no_path;
	}
	for (i = 0; i < a->nfr; i = j) {
		for (j = i; j < a->nfr && a->fr[j].file == a->fr[i].file; j++)
			a->out_fn[j] = a->fr[j].c;
		a->out[a->fr[i].file].fn = &a->out_fn[i];
		a->out[a->fr[i].file].nfn = j - i;
	}
	qsort(a->out, a->nf, sizeof(*a->out), cmp_file);
	*n = a->nf;
	return a->out;
}
