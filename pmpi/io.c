/*
 * pmpi/io.c: MPI-IO.  MPI_File_open is a collective over its
 * communicator, recorded there, and the open file is registered with an
 * id agreed over it (pmpi/obj.c) and a comm record that holds its path,
 * so the path is written once; every call on the file carries the id.
 * Collective file calls (read_all, set_view, close...) are numbered on
 * the file and match across ranks as collectives do.  A read records
 * the bytes its status says were read (a nonblocking one at its done
 * record, a split collective at its _end), a write count * size.
 */
#include <string.h>

#include "gen/ops.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"

void st_file_close_pre(struct st_call *c, const MPI_File *fh)
{
	c->oldfile = fh ? *fh : MPI_FILE_NULL;
}

/* ST_AMODE_* of an access mode. */
static int32_t map_amode(int amode)
{
	static const struct {
		int mpi;
		int32_t st;
	} bits[] = {
		{ MPI_MODE_RDONLY, ST_AMODE_RDONLY },
		{ MPI_MODE_WRONLY, ST_AMODE_WRONLY },
		{ MPI_MODE_RDWR, ST_AMODE_RDWR },
		{ MPI_MODE_CREATE, ST_AMODE_CREATE },
		{ MPI_MODE_EXCL, ST_AMODE_EXCL },
		{ MPI_MODE_DELETE_ON_CLOSE, ST_AMODE_DELETE_ON_CLOSE },
		{ MPI_MODE_UNIQUE_OPEN, ST_AMODE_UNIQUE_OPEN },
		{ MPI_MODE_SEQUENTIAL, ST_AMODE_SEQUENTIAL },
		{ MPI_MODE_APPEND, ST_AMODE_APPEND },
	};
	int32_t v = 0;
	size_t i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (amode & bits[i].mpi)
			v |= bits[i].st;
	return v;
}

static int32_t map_whence(int whence)
{
	if (whence == MPI_SEEK_SET)
		return ST_SEEK_SET;
	if (whence == MPI_SEEK_CUR)
		return ST_SEEK_CUR;
	if (whence == MPI_SEEK_END)
		return ST_SEEK_END;
	return 0;
}

/* The length of 'path', which the application passes as a C string. */
static uint32_t path_len(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 4096 ? 4096 : (uint32_t)n;
}

void st_leave_file(struct st_call *c, const struct st_fn_info *fi,
		   struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	struct st_comm_entry *e;
	struct st_event f;
	struct st_obj *o;
	uint64_t seq = 0;

	(void)fi;
	/* MPI_File_close: a collective on the file. */
	if (a->filep) {
		o = st_obj_find((uintptr_t)c->oldfile);
		if (o)
			seq = st_obj_count(o);
		if (ev) {
			if (o) {
				ev->comm = o->id;
				ev->comm_size = (uint32_t)o->size;
				ev->seq = seq;
			}
			st_emit(ev);
		}
		if (rc == MPI_SUCCESS)
			st_obj_forget((uintptr_t)c->oldfile);
		return;
	}
	if (!a->newfile) {	/* MPI_File_delete: local, by path */
		if (ev) {
			ev->text = a->path;
			ev->text_len = path_len(a->path);
			st_emit(ev);
		}
		return;
	}
	/* MPI_File_open: a collective on its communicator. */
	e = rc == MPI_SUCCESS ? st_comm_get(a->comm, 1) : st_comm_find(a->comm);
	if (e)
		seq = st_comm_count(e);
	if (ev) {
		if (e) {
			ev->comm = e->id;
			ev->comm_size = (uint32_t)e->size;
			ev->seq = seq;
		}
		ev->arg = map_amode(a->amode);
		st_emit(ev);
	}
	if (e)
		st_world_seq(e, seq);
	if (rc != MPI_SUCCESS || *a->newfile == MPI_FILE_NULL)
		return;
	st_event_clear(&f);
	o = st_obj_register((uintptr_t)*a->newfile, a->comm, &f);
	if (!o || !ev)
		return;
	f.fn = ev->fn;
	f.t0 = ev->t0;
	f.t1 = ev->t1;
	f.arg = ev->arg;
	f.text = a->path;
	f.text_len = path_len(a->path);
	st_emit(&f);
}

void st_leave_io(struct st_call *c, const struct st_fn_info *fi,
		 struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	int read = fi->bytes == ST_BYTES_READ;
	int later = fi->family == ST_FAM_NONBLOCKING ||
		    fi->family == ST_FAM_SPLIT;
	MPI_Datatype t;
	struct st_obj *o;
	uint64_t seq = 0;

	o = st_obj_find((uintptr_t)a->file);
	if (o && (fi->flags & ST_FNF_COLLECTIVE))
		seq = st_obj_count(o);
	if (!ev)
		return;
	if (o) {
		ev->comm = o->id;
		ev->comm_size = (uint32_t)o->size;
		ev->seq = seq;
	}
	ev->offset = a->offset;
	if (a->whence)
		ev->arg = map_whence(a->whence);
	t = a->type ? a->type : a->stype ? a->stype : a->rtype;
	if (t)
		ev->tsize = (uint32_t)st_type_size(t);
	if (rc == MPI_SUCCESS && fi->bytes != ST_BYTES_NONE) {
		st_count_bytes(c, fi, ev, !later && a->status ?
			       st_status_bytes(a->status) : -1);
		if (read && later)
			ev->rbytes = 0;	/* known at completion */
	}
	if (rc == MPI_SUCCESS && a->request &&
	    fi->family == ST_FAM_NONBLOCKING)
		st_req_track(c, fi, ev, read);
	st_emit(ev);
}
