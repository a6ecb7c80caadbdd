/*
 * tests/unit/analysis-io.c: MPI-IO per file from hand-made records of
 * two ranks: the path and mode come from the file's COMM record; bytes
 * read and written count once whatever the form (a nonblocking read at
 * its DONE record, a split read at its _end, a split write at its
 * _begin); collective calls are told apart; MPI_File_delete finds the
 * file by its path; instances of its collectives (MPI_File_open's on
 * the communicator) reach it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/io.h"
#include "writer/event.h"

#define WORLD 0x100000000ULL
#define FILE_ID 0x100000003ULL

static const char path[] = "/tmp/x.dat";
static uint64_t t;

static struct st_event call(unsigned fn, uint64_t dur)
{
	struct st_event e;

	st_event_clear(&e);
	e.kind = ST_REC_CALL;
	e.fn = (uint16_t)fn;
	e.comm = FILE_ID;
	e.comm_size = 2;
	e.t0 = t;
	e.t1 = t + dur;
	t += dur + 10;
	return e;
}

static void add(struct st_io *a, struct st_event e, int in)
{
	cr_assert_eq(st_io_add(a, 0, &e, in), 0);
}

static void one_rank(struct st_io *a, int rank, int in)
{
	struct st_event e;
	uint64_t seq = 0;

	e = call(ST_FN_MPI_FILE_OPEN, 1000);
	e.comm = WORLD;
	e.seq = 3;
	add(a, e, in);
	e.kind = ST_REC_COMM;
	e.comm = FILE_ID;
	e.parent = WORLD;
	e.rank = rank;
	e.seq = 0;
	e.arg = ST_AMODE_RDWR | ST_AMODE_CREATE;
	e.text = path;
	e.text_len = (uint32_t)strlen(path);
	add(a, e, in);
	e = call(ST_FN_MPI_FILE_WRITE_AT, 10);
	e.sbytes = 64;
	add(a, e, in);
	e = call(ST_FN_MPI_FILE_WRITE_ALL, 100);
	e.sbytes = 64;
	e.seq = ++seq;
	add(a, e, in);
	/* A nonblocking read: 0 at its call, 64 at its completion. */
	e = call(ST_FN_MPI_FILE_IREAD_AT, 5);
	e.req = 1;
	add(a, e, in);
	e = call(ST_FN_MPI_WAIT, 7);
	e.kind = ST_REC_DONE;
	e.req = 1;
	e.rbytes = 64;
	add(a, e, in);
	e.kind = ST_REC_CALL;
	e.rbytes = 0;
	e.comm = 0;
	add(a, e, in);
	/* Split collectives. */
	e = call(ST_FN_MPI_FILE_READ_ALL_BEGIN, 20);
	e.seq = ++seq;
	add(a, e, in);
	e = call(ST_FN_MPI_FILE_READ_ALL_END, 2);
	e.rbytes = 32;
	add(a, e, in);
	e = call(ST_FN_MPI_FILE_WRITE_ALL_BEGIN, 20);
	e.sbytes = 16;
	e.seq = ++seq;
	add(a, e, in);
	add(a, call(ST_FN_MPI_FILE_WRITE_ALL_END, 2), in);
	e = call(ST_FN_MPI_FILE_CLOSE, 50);
	e.seq = ++seq;
	add(a, e, in);
	if (rank == 0) {
		e = call(ST_FN_MPI_FILE_DELETE, 30);
		e.comm = 0;
		e.text = path;
		e.text_len = (uint32_t)strlen(path);
		add(a, e, in);
	}
	st_io_end_rank(a);
}

Test(analysis_io, bytes_calls_and_collectives_per_file)
{
	struct st_io *a = st_io_new();
	const struct st_io_file *f;
	size_t n, k;

	cr_assert(a);
	one_rank(a, 0, 1);
	one_rank(a, 1, 1);
	f = st_io_files(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(f->path, path);
	cr_expect_eq(f->id, FILE_ID);
	cr_expect_eq(f->comm, WORLD);
	cr_expect_eq(f->amode, ST_AMODE_RDWR | ST_AMODE_CREATE);
	cr_expect_eq(f->nranks, 2);
	cr_expect_eq(f->wbytes, 2 * (64 + 64 + 16));
	cr_expect_eq(f->rbytes, 2 * (64 + 32));
	cr_expect_eq(f->writes, 2 * 3);	/* _end writes are not writes */
	cr_expect_eq(f->reads, 2 * 2);	/* _begin reads are not reads */
	/* Open, 3 writes, iread, 2 + 2 split halves, close (not the Wait). */
	cr_expect_eq(f->calls, 2 * 9);
	cr_expect_eq(f->time_ns, 2 * (1000 + 10 + 100 + 5 + 20 + 2 + 20 + 2 +
				      50));
	/* Open, write_all, the two _begin, close. */
	cr_expect_eq(f->coll_calls, 2 * 5);
	cr_expect_eq(f->coll_ns, 2 * (1000 + 100 + 20 + 20 + 50));
	cr_expect_eq(f->deletes, 1);
	for (k = 0; k < f->nfn; k++)
		if (f->fn[k].fn == ST_FN_MPI_FILE_READ_ALL_END)
			break;
	cr_assert_lt(k, f->nfn);
	cr_expect_eq(f->fn[k].calls, 2);
	cr_expect_eq(f->fn[k].rbytes, 64);
	/* The nonblocking read's row has its bytes, from its DONE. */
	for (k = 0; k < f->nfn; k++)
		if (f->fn[k].fn == ST_FN_MPI_FILE_IREAD_AT)
			break;
	cr_assert_lt(k, f->nfn);
	cr_expect_eq(f->fn[k].calls, 2);
	cr_expect_eq(f->fn[k].rbytes, 2 * 64);
	st_io_free(a);
}

Test(analysis_io, outside_the_phase_nothing_counts)
{
	struct st_io *a = st_io_new();
	const struct st_io_file *f;
	size_t n;

	cr_assert(a);
	one_rank(a, 0, 0);
	one_rank(a, 1, 0);
	f = st_io_files(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(f->path, path);
	cr_expect_eq(f->calls + f->rbytes + f->wbytes + f->deletes, 0);
	st_io_free(a);
}

Test(analysis_io, instances_reach_their_file)
{
	struct st_io *a = st_io_new();
	const struct st_io_file *f;
	int rk[2] = { 0, 1 };
	static const double tt[2][2] = { { 0, 100 }, { 60, 110 } };
	struct st_imb_done d = {
		.comm = FILE_ID, .seq = 1, .fn = ST_FN_MPI_FILE_WRITE_ALL,
		.n = 2, .rank = rk, .t = tt, .last_arr = 60,
	};
	size_t n;

	cr_assert(a);
	one_rank(a, 0, 1);
	one_rank(a, 1, 1);
	st_io_instance(a, &d);
	d.comm = WORLD;
	d.seq = 3;
	d.fn = ST_FN_MPI_FILE_OPEN;
	st_io_instance(a, &d);
	d.fn = ST_FN_MPI_BARRIER;	/* not the open's instance */
	st_io_instance(a, &d);
	f = st_io_files(a, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(f->inst, 2);
	cr_expect_float_eq(f->wait_ns, 120, 1e-9);
	cr_expect_float_eq(f->after_ns, 180, 1e-9);
	st_io_free(a);
}
