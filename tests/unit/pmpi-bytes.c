/*
 * tests/unit/pmpi-bytes.c: the byte accounting of pmpi/bytes.c, class by
 * class, on intra- and inter-communicators, at the root and elsewhere,
 * with MPI_IN_PLACE, 32- and 64-bit count arrays and per-entry datatype
 * sizes.  Datatype handles are fake: the size callback fails the test
 * when asked for a handle marked garbage, and count arrays that are not
 * significant point into an inaccessible page, so reading one crashes
 * the test.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "pmpi/bytes.h"
#include "writer/event.h"
#include "writer/fn-info.h"

struct ftype {
	uint64_t size;
	int garbage;		/* insignificant here: must not be asked */
};

static const struct ftype t_char = { 1, 0 };
static const struct ftype t_int = { 4, 0 };
static const struct ftype t_dbl = { 8, 0 };
static const struct ftype t_bad = { 0, 1 };
static const struct ftype t_w[] = { { 4, 0 }, { 8, 0 }, { 1, 0 }, { 2, 0 } };
static const struct ftype t_w_bad[] = { { 0, 1 }, { 0, 1 }, { 0, 1 },
					{ 0, 1 } };

static const int c32[] = { 1, 2, 3, 4 };
static const int64_t c64[] = { 1, 2, 3, 4 };
static const int c32b[] = { 5, 0, 7, 1 };

static int nasked;

static uint64_t fake_size(void *ctx, const void *types, size_t i)
{
	const struct ftype *t = types;

	cr_assert_eq(ctx, &nasked, "type_size got the wrong context");
	nasked++;
	if (t[i].garbage)
		cr_assert_fail("type_size asked for insignificant handle %zu",
			       i);
	return t[i].size;
}

/* A count array no one may read: any access faults. */
static const void *poison(void)
{
	static void *page;

	if (!page) {
		page = mmap(NULL, 4096, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		cr_assert_neq(page, MAP_FAILED, "cannot map a guard page");
	}
	return page;
}

static struct st_xfer xf(int cls)
{
	struct st_xfer x = { 0 };

	x.cls = cls;
	x.status_bytes = -1;
	x.ctx = &nasked;
	x.type_size = fake_size;
	return x;
}

static struct st_xfer_comm intra(int size, int rank)
{
	struct st_xfer_comm c = { size, rank, 0, 0, 0 };

	return c;
}

static struct st_xfer_comm inter(int size, int rank, int remote)
{
	struct st_xfer_comm c = { size, rank, remote, 0, 0 };

	return c;
}

static struct st_xfer_comm nbr(int size, int rank, int in, int out)
{
	struct st_xfer_comm c = { size, rank, 0, in, out };

	return c;
}

#define CHECK(x, c, want_s, want_r)                                         \
	do {                                                                \
		uint64_t s_ = 12345, r_ = 12345;                            \
		int rc_ = st_bytes(&(x), &(c), &s_, &r_);                   \
		cr_expect_eq(rc_, 0, "st_bytes returned %d", rc_);          \
		cr_expect_eq(s_, (uint64_t)(want_s),                        \
			     "sbytes %llu, want %llu (line %d)",            \
			     (unsigned long long)s_,                        \
			     (unsigned long long)(want_s), __LINE__);       \
		cr_expect_eq(r_, (uint64_t)(want_r),                        \
			     "rbytes %llu, want %llu (line %d)",            \
			     (unsigned long long)r_,                        \
			     (unsigned long long)(want_r), __LINE__);       \
	} while (0)

Test(pmpi_bytes, barrier_moves_nothing)
{
	struct st_xfer x = xf(ST_BYTES_BARRIER);
	struct st_xfer_comm c = intra(4, 1), ic = inter(2, 0, 3);

	x.stype = x.rtype = &t_bad;
	CHECK(x, c, 0, 0);
	CHECK(x, ic, 0, 0);
	cr_expect_eq(nasked, 0);
}

Test(pmpi_bytes, bcast_intra_root_sends_others_receive)
{
	struct st_xfer x = xf(ST_BYTES_BCAST);
	struct st_xfer_comm root = intra(4, 2), other = intra(4, 0);

	x.root = 2;
	x.scount = 10;
	x.stype = &t_dbl;
	CHECK(x, root, 80, 0);
	CHECK(x, other, 0, 80);
}

Test(pmpi_bytes, bcast_inter_root_receivers_and_idle_ranks)
{
	struct st_xfer x = xf(ST_BYTES_BCAST);
	struct st_xfer_comm c = inter(2, 0, 3);

	x.scount = 3;
	x.stype = &t_int;
	x.root = ST_RANK_ROOT;
	CHECK(x, c, 12, 0);
	x.root = 1;		/* a rank of the remote group: a receiver */
	CHECK(x, c, 0, 12);
	x.root = ST_RANK_PROC_NULL;
	x.stype = &t_bad;
	CHECK(x, c, 0, 0);
}

Test(pmpi_bytes, one_count_and_type_may_come_on_the_receive_side)
{
	struct st_xfer x = xf(ST_BYTES_BCAST);
	struct st_xfer_comm c = intra(3, 1);

	x.root = 0;
	x.scount = 99;		/* ignored: stype is NULL */
	x.rcount = 5;
	x.rtype = &t_dbl;
	CHECK(x, c, 0, 40);
}

Test(pmpi_bytes, reduce_intra_root_and_others)
{
	struct st_xfer x = xf(ST_BYTES_REDUCE);
	struct st_xfer_comm root = intra(4, 0), other = intra(4, 3);

	x.root = 0;
	x.scount = 6;
	x.stype = &t_int;
	CHECK(x, root, 24, 24);
	CHECK(x, other, 24, 0);
	x.send_in_place = 1;	/* at the root: the input is in recvbuf */
	CHECK(x, root, 24, 24);
}

Test(pmpi_bytes, reduce_inter)
{
	struct st_xfer x = xf(ST_BYTES_REDUCE);
	struct st_xfer_comm c = inter(3, 1, 2);

	x.scount = 2;
	x.stype = &t_dbl;
	x.root = ST_RANK_ROOT;
	CHECK(x, c, 0, 16);
	x.root = 0;
	CHECK(x, c, 16, 0);
	x.root = ST_RANK_PROC_NULL;
	x.stype = &t_bad;
	CHECK(x, c, 0, 0);
}

Test(pmpi_bytes, allreduce_and_scan)
{
	struct st_xfer x = xf(ST_BYTES_ALLREDUCE);
	struct st_xfer_comm c = intra(4, 1), ic = inter(2, 1, 5);

	x.scount = 7;
	x.stype = &t_int;
	CHECK(x, c, 28, 28);
	CHECK(x, ic, 28, 28);
	x.send_in_place = 1;
	CHECK(x, c, 28, 28);
	x = xf(ST_BYTES_SCAN);
	x.scount = 3;
	x.stype = &t_dbl;
	CHECK(x, c, 24, 24);
	x.send_in_place = 1;
	CHECK(x, c, 24, 24);
}

Test(pmpi_bytes, reduce_scatter_intra_32_and_64)
{
	struct st_xfer x = xf(ST_BYTES_REDUCE_SCATTER);
	struct st_xfer_comm c = intra(4, 2);

	x.rcounts = c32;
	x.stype = &t_dbl;
	CHECK(x, c, 10 * 8, 3 * 8);
	x.send_in_place = 1;
	CHECK(x, c, 10 * 8, 3 * 8);
	x.send_in_place = 0;
	x.rcounts = c64;
	x.counts_64 = 1;
	CHECK(x, c, 10 * 8, 3 * 8);
	x.stype = NULL;		/* the datatype may come as rtype */
	x.rtype = &t_int;
	CHECK(x, c, 10 * 4, 3 * 4);
}

Test(pmpi_bytes, reduce_scatter_inter_counts_the_local_group)
{
	struct st_xfer x = xf(ST_BYTES_REDUCE_SCATTER);
	struct st_xfer_comm c = inter(3, 1, 4);

	x.rcounts = c32;	/* 3 entries read: local group size */
	x.stype = &t_int;
	CHECK(x, c, 6 * 4, 2 * 4);
}

Test(pmpi_bytes, reduce_scatter_block_intra_and_inter)
{
	struct st_xfer x = xf(ST_BYTES_REDUCE_SCATTER_BLOCK);
	struct st_xfer_comm c = intra(4, 3), ic = inter(2, 0, 6);

	x.rcount = 5;
	x.stype = &t_int;
	CHECK(x, c, 4 * 5 * 4, 5 * 4);
	x.send_in_place = 1;
	CHECK(x, c, 4 * 5 * 4, 5 * 4);
	x.send_in_place = 0;
	CHECK(x, ic, 2 * 5 * 4, 5 * 4);
}

Test(pmpi_bytes, gather_intra)
{
	struct st_xfer x = xf(ST_BYTES_GATHER);
	struct st_xfer_comm root = intra(3, 1), other = intra(3, 0);

	x.root = 1;
	x.scount = 2;
	x.stype = &t_int;
	x.rcount = 2;
	x.rtype = &t_int;
	CHECK(x, root, 8, 3 * 8);
	x.rtype = &t_bad;	/* receive side not significant off root */
	x.rcount = -7;
	CHECK(x, other, 8, 0);
	x.rtype = &t_int;
	x.rcount = 2;
	x.send_in_place = 1;	/* the root's block is in recvbuf */
	x.stype = &t_bad;
	CHECK(x, root, 8, 3 * 8);
}

Test(pmpi_bytes, gather_inter)
{
	struct st_xfer x = xf(ST_BYTES_GATHER);
	struct st_xfer_comm c = inter(2, 0, 3);

	x.root = ST_RANK_ROOT;
	x.stype = &t_bad;
	x.rcount = 4;
	x.rtype = &t_char;
	CHECK(x, c, 0, 3 * 4);
	x.root = 0;
	x.stype = &t_dbl;
	x.scount = 4;
	x.rtype = &t_bad;
	CHECK(x, c, 32, 0);
	x.root = ST_RANK_PROC_NULL;
	x.stype = &t_bad;
	CHECK(x, c, 0, 0);
}

Test(pmpi_bytes, gatherv_intra_32_and_64)
{
	struct st_xfer x = xf(ST_BYTES_GATHERV);
	struct st_xfer_comm root = intra(4, 2), other = intra(4, 1);

	x.root = 2;
	x.scount = 3;
	x.stype = &t_int;
	x.rcounts = c32;
	x.rtype = &t_int;
	CHECK(x, root, 12, 10 * 4);
	x.counts_64 = 1;
	x.rcounts = c64;
	CHECK(x, root, 12, 10 * 4);
	x.send_in_place = 1;	/* own block: rcounts[root] */
	x.stype = &t_bad;
	CHECK(x, root, 3 * 4, 10 * 4);
	x.send_in_place = 0;
	x.stype = &t_int;
	x.rcounts = poison();
	x.rtype = &t_bad;
	CHECK(x, other, 12, 0);
}

Test(pmpi_bytes, gatherv_inter_sums_remote_group)
{
	struct st_xfer x = xf(ST_BYTES_GATHERV);
	struct st_xfer_comm c = inter(1, 0, 3);

	x.root = ST_RANK_ROOT;
	x.stype = &t_bad;
	x.rcounts = c32;
	x.rtype = &t_dbl;
	CHECK(x, c, 0, 6 * 8);
	x.root = 0;
	x.scount = 2;
	x.stype = &t_dbl;
	x.rcounts = poison();
	x.rtype = &t_bad;
	CHECK(x, c, 16, 0);
	x.root = ST_RANK_PROC_NULL;
	x.stype = &t_bad;
	CHECK(x, c, 0, 0);
}

Test(pmpi_bytes, scatter_intra)
{
	struct st_xfer x = xf(ST_BYTES_SCATTER);
	struct st_xfer_comm root = intra(4, 0), other = intra(4, 3);

	x.root = 0;
	x.scount = 2;
	x.stype = &t_dbl;
	x.rcount = 2;
	x.rtype = &t_dbl;
	CHECK(x, root, 4 * 16, 16);
	x.recv_in_place = 1;	/* own block stays in sendbuf */
	x.rtype = &t_bad;
	CHECK(x, root, 4 * 16, 16);
	x.recv_in_place = 0;
	x.rtype = &t_dbl;
	x.stype = &t_bad;
	x.scount = -1;
	CHECK(x, other, 0, 16);
}

Test(pmpi_bytes, scatter_inter)
{
	struct st_xfer x = xf(ST_BYTES_SCATTER);
	struct st_xfer_comm c = inter(3, 2, 2);

	x.root = ST_RANK_ROOT;
	x.scount = 5;
	x.stype = &t_char;
	x.rtype = &t_bad;
	CHECK(x, c, 2 * 5, 0);
	x.root = 1;
	x.stype = &t_bad;
	x.rcount = 5;
	x.rtype = &t_char;
	CHECK(x, c, 0, 5);
	x.root = ST_RANK_PROC_NULL;
	x.rtype = &t_bad;
	CHECK(x, c, 0, 0);
}

Test(pmpi_bytes, scatterv_intra_32_and_64)
{
	struct st_xfer x = xf(ST_BYTES_SCATTERV);
	struct st_xfer_comm root = intra(4, 1), other = intra(4, 0);

	x.root = 1;
	x.scounts = c32;
	x.stype = &t_int;
	x.rcount = 2;
	x.rtype = &t_int;
	CHECK(x, root, 10 * 4, 8);
	x.counts_64 = 1;
	x.scounts = c64;
	CHECK(x, root, 10 * 4, 8);
	x.recv_in_place = 1;	/* own block: scounts[root] */
	x.rtype = &t_bad;
	CHECK(x, root, 10 * 4, 2 * 4);
	x.recv_in_place = 0;
	x.rtype = &t_int;
	x.scounts = poison();
	x.stype = &t_bad;
	CHECK(x, other, 0, 8);
}

Test(pmpi_bytes, scatterv_inter_sums_remote_group)
{
	struct st_xfer x = xf(ST_BYTES_SCATTERV);
	struct st_xfer_comm c = inter(4, 0, 2);

	x.root = ST_RANK_ROOT;
	x.scounts = c32b;
	x.stype = &t_dbl;
	x.rtype = &t_bad;
	CHECK(x, c, 5 * 8, 0);
	x.root = 1;
	x.scounts = poison();
	x.stype = &t_bad;
	x.rcount = 1;
	x.rtype = &t_dbl;
	CHECK(x, c, 0, 8);
}

Test(pmpi_bytes, allgather_intra_in_place_and_inter)
{
	struct st_xfer x = xf(ST_BYTES_ALLGATHER);
	struct st_xfer_comm c = intra(3, 2), ic = inter(3, 0, 2);

	x.scount = 4;
	x.stype = &t_int;
	x.rcount = 4;
	x.rtype = &t_int;
	CHECK(x, c, 16, 3 * 16);
	CHECK(x, ic, 16, 2 * 16);
	x.send_in_place = 1;
	x.stype = &t_bad;
	CHECK(x, c, 16, 3 * 16);
}

Test(pmpi_bytes, allgatherv_intra_in_place_and_inter)
{
	struct st_xfer x = xf(ST_BYTES_ALLGATHERV);
	struct st_xfer_comm c = intra(4, 3), ic = inter(1, 0, 2);

	x.scount = 4;
	x.stype = &t_char;
	x.rcounts = c32;
	x.rtype = &t_char;
	CHECK(x, c, 4, 10);
	CHECK(x, ic, 4, 3);
	x.counts_64 = 1;
	x.rcounts = c64;
	CHECK(x, c, 4, 10);
	x.send_in_place = 1;	/* own block: rcounts[rank] */
	x.stype = &t_bad;
	CHECK(x, c, 4, 10);
	c.rank = 1;
	CHECK(x, c, 2, 10);
}

Test(pmpi_bytes, alltoall_intra_in_place_and_inter)
{
	struct st_xfer x = xf(ST_BYTES_ALLTOALL);
	struct st_xfer_comm c = intra(4, 0), ic = inter(4, 0, 3);

	x.scount = 2;
	x.stype = &t_dbl;
	x.rcount = 1;
	x.rtype = &t_int;
	CHECK(x, c, 4 * 16, 4 * 4);
	CHECK(x, ic, 3 * 16, 3 * 4);
	x.send_in_place = 1;
	x.stype = &t_bad;
	CHECK(x, c, 4 * 4, 4 * 4);
}

Test(pmpi_bytes, alltoallv_intra_in_place_and_inter)
{
	struct st_xfer x = xf(ST_BYTES_ALLTOALLV);
	struct st_xfer_comm c = intra(4, 1), ic = inter(2, 1, 3);

	x.scounts = c32b;
	x.stype = &t_int;
	x.rcounts = c32;
	x.rtype = &t_dbl;
	CHECK(x, c, 13 * 4, 10 * 8);
	CHECK(x, ic, 12 * 4, 6 * 8);
	x.send_in_place = 1;
	x.scounts = poison();
	x.stype = &t_bad;
	CHECK(x, c, 10 * 8, 10 * 8);
	x.send_in_place = 0;
	x.counts_64 = 1;
	x.scounts = c64;
	x.stype = &t_int;
	x.rcounts = c64;
	CHECK(x, c, 10 * 4, 10 * 8);
}

Test(pmpi_bytes, alltoallw_per_entry_sizes)
{
	struct st_xfer x = xf(ST_BYTES_ALLTOALLW);
	struct st_xfer_comm c = intra(4, 2), ic = inter(2, 0, 3);
	uint64_t want = 1 * 4 + 2 * 8 + 3 * 1 + 4 * 2;	/* c32 . t_w */
	uint64_t want_b = 5 * 4 + 0 * 8 + 7 * 1 + 1 * 2; /* c32b . t_w */

	x.scounts = c32b;
	x.stypes = t_w;
	x.rcounts = c32;
	x.rtypes = t_w;
	CHECK(x, c, want_b, want);
	CHECK(x, ic, 5 * 4 + 7 * 1, 1 * 4 + 2 * 8 + 3 * 1);
	x.counts_64 = 1;
	x.scounts = c64;
	x.rcounts = c64;
	CHECK(x, c, want, want);
	x.send_in_place = 1;
	x.scounts = poison();
	x.stypes = t_w_bad;
	CHECK(x, c, want, want);
}

Test(pmpi_bytes, neighbour_allgather_and_alltoall)
{
	struct st_xfer x = xf(ST_BYTES_NBR_ALLGATHER);
	struct st_xfer_comm c = nbr(8, 3, 2, 3);

	x.scount = 4;
	x.stype = &t_int;
	x.rcount = 2;
	x.rtype = &t_dbl;
	CHECK(x, c, 3 * 16, 2 * 16);
	x.cls = ST_BYTES_NBR_ALLTOALL;
	CHECK(x, c, 3 * 16, 2 * 16);
	c.indegree = 0;
	c.outdegree = 0;
	x.stype = x.rtype = &t_bad;
	CHECK(x, c, 0, 0);
}

Test(pmpi_bytes, neighbour_allgatherv_sums_indegree_entries)
{
	struct st_xfer x = xf(ST_BYTES_NBR_ALLGATHERV);
	struct st_xfer_comm c = nbr(8, 0, 3, 1);

	x.scount = 2;
	x.stype = &t_char;
	x.rcounts = c32;
	x.rtype = &t_int;
	CHECK(x, c, 2, 6 * 4);
	x.counts_64 = 1;
	x.rcounts = c64;
	CHECK(x, c, 2, 6 * 4);
}

Test(pmpi_bytes, neighbour_alltoallv_and_w_use_the_degrees)
{
	struct st_xfer x = xf(ST_BYTES_NBR_ALLTOALLV);
	struct st_xfer_comm c = nbr(8, 5, 2, 4);

	x.scounts = c32b;
	x.stype = &t_dbl;
	x.rcounts = c32;
	x.rtype = &t_int;
	CHECK(x, c, 13 * 8, 3 * 4);
	x.cls = ST_BYTES_NBR_ALLTOALLW;
	x.stypes = t_w;
	x.rtypes = t_w;
	x.stype = x.rtype = &t_bad;
	CHECK(x, c, 5 * 4 + 7 * 1 + 1 * 2, 1 * 4 + 2 * 8);
	x.counts_64 = 1;
	x.scounts = c64;
	x.rcounts = c64;
	c.indegree = 4;
	c.outdegree = 1;
	CHECK(x, c, 4, 1 * 4 + 2 * 8 + 3 * 1 + 4 * 2);
}

Test(pmpi_bytes, point_to_point)
{
	struct st_xfer x = xf(ST_BYTES_SEND);
	struct st_xfer_comm c = intra(2, 0);

	x.scount = 3;
	x.stype = &t_dbl;
	CHECK(x, c, 24, 0);

	x = xf(ST_BYTES_RECV);
	x.rcount = 100;
	x.rtype = &t_int;
	x.status_bytes = 12;
	CHECK(x, c, 0, 12);
	x.status_bytes = -1;	/* unknown: the buffer is the bound */
	CHECK(x, c, 0, 400);

	x = xf(ST_BYTES_SENDRECV);
	x.scount = 2;
	x.stype = &t_int;
	x.rcount = 10;
	x.rtype = &t_char;
	x.status_bytes = 3;
	CHECK(x, c, 8, 3);
	x.status_bytes = -1;
	CHECK(x, c, 8, 10);

	x = xf(ST_BYTES_SENDRECV_REPLACE);
	x.scount = 4;
	x.stype = &t_dbl;
	x.status_bytes = 16;
	CHECK(x, c, 32, 16);
	x.status_bytes = -1;
	CHECK(x, c, 32, 32);
}

Test(pmpi_bytes, one_sided_counts_the_origin_side)
{
	struct st_xfer x = xf(ST_BYTES_PUT);
	struct st_xfer_comm c = intra(4, 1);

	x.scount = 10;
	x.stype = &t_dbl;
	CHECK(x, c, 80, 0);
	x.cls = ST_BYTES_ACC;
	CHECK(x, c, 80, 0);

	x = xf(ST_BYTES_GET);
	x.rcount = 5;
	x.rtype = &t_int;
	CHECK(x, c, 0, 20);

	x = xf(ST_BYTES_GET_ACC);
	x.scount = 2;
	x.stype = &t_dbl;
	x.rcount = 3;
	x.rtype = &t_int;
	CHECK(x, c, 16, 12);

	/* One element of the one datatype, whichever side carries it. */
	x = xf(ST_BYTES_FETCH_OP);
	x.stype = &t_dbl;
	CHECK(x, c, 8, 8);
	x = xf(ST_BYTES_CAS);
	x.rtype = &t_int;
	CHECK(x, c, 8, 4);
}

Test(pmpi_bytes, file_reads_take_the_status_writes_the_count)
{
	struct st_xfer x = xf(ST_BYTES_READ);
	struct st_xfer_comm c = intra(2, 0);

	x.rcount = 16;
	x.rtype = &t_int;
	x.status_bytes = 20;	/* a short read at the end of the file */
	CHECK(x, c, 0, 20);
	x.status_bytes = -1;	/* nonblocking: the buffer is the bound */
	CHECK(x, c, 0, 64);

	x = xf(ST_BYTES_WRITE);
	x.scount = 16;
	x.stype = &t_int;
	x.status_bytes = 7;	/* a write moves its count, whatever */
	CHECK(x, c, 64, 0);
	x.scount = 0;		/* a split collective's _end: no count */
	x.stype = NULL;
	CHECK(x, c, 0, 0);
}

Test(pmpi_bytes, partitioned_inits_count_the_whole_buffer)
{
	struct st_xfer x = xf(ST_BYTES_PSEND);
	struct st_xfer_comm c = intra(2, 0);

	x.partitions = 4;
	x.scount = 10;
	x.stype = &t_int;
	CHECK(x, c, 160, 0);
	x = xf(ST_BYTES_PRECV);
	x.partitions = 3;
	x.rcount = 2;
	x.rtype = &t_dbl;
	CHECK(x, c, 0, 48);
	x.partitions = -1;
	CHECK(x, c, 0, 0);
	/* From the request, not the arguments: nothing here. */
	x = xf(ST_BYTES_PREADY);
	x.scount = 10;
	x.stype = &t_int;
	CHECK(x, c, 0, 0);
}

Test(pmpi_bytes, negative_counts_count_as_zero)
{
	static const int neg32[] = { -1, 3, -100, 2 };
	static const int64_t neg64[] = { INT64_MIN, 3, -1, 2 };
	struct st_xfer x = xf(ST_BYTES_ALLTOALLV);
	struct st_xfer_comm c = intra(4, 0);

	x.scounts = neg32;
	x.stype = &t_int;
	x.rcounts = neg32;
	x.rtype = &t_int;
	CHECK(x, c, 20, 20);
	x.counts_64 = 1;
	x.scounts = x.rcounts = neg64;
	CHECK(x, c, 20, 20);

	x = xf(ST_BYTES_ALLREDUCE);
	x.scount = -5;
	x.stype = &t_dbl;
	CHECK(x, c, 0, 0);
	x = xf(ST_BYTES_REDUCE_SCATTER);
	x.rcounts = neg32;
	x.stype = &t_int;
	CHECK(x, c, 20, 0);
}

Test(pmpi_bytes, arithmetic_saturates)
{
	static const struct ftype huge = { UINT64_MAX / 2, 0 };
	static const int64_t big[] = { INT64_MAX, INT64_MAX, INT64_MAX, 1 };
	struct st_xfer x = xf(ST_BYTES_ALLTOALL);
	struct st_xfer_comm c = intra(4, 0);

	x.scount = INT64_MAX;
	x.stype = &huge;
	x.rcount = 1;
	x.rtype = &huge;
	CHECK(x, c, UINT64_MAX, UINT64_MAX);

	x = xf(ST_BYTES_ALLGATHERV);
	x.scount = 1;
	x.stype = &t_char;
	x.counts_64 = 1;
	x.rcounts = big;
	x.rtype = &t_char;
	CHECK(x, c, 1, UINT64_MAX);

	x = xf(ST_BYTES_ALLTOALLW);
	x.counts_64 = 1;
	x.scounts = x.rcounts = big;
	x.stypes = x.rtypes = t_w;
	CHECK(x, c, UINT64_MAX, UINT64_MAX);
}

Test(pmpi_bytes, unknown_class_is_einval)
{
	struct st_xfer x = xf(ST_BYTES_CLASS_MAX);
	struct st_xfer_comm c = intra(2, 0);
	uint64_t s = 7, r = 7;

	cr_expect_eq(st_bytes(&x, &c, &s, &r), -EINVAL);
	cr_expect_eq(s, 0);
	cr_expect_eq(r, 0);
	x.cls = -1;
	s = r = 7;
	cr_expect_eq(st_bytes(&x, &c, &s, &r), -EINVAL);
	cr_expect_eq(s + r, 0);
}

Test(pmpi_bytes, asks_only_for_the_sizes_it_needs)
{
	struct st_xfer x = xf(ST_BYTES_GATHER);
	struct st_xfer_comm other = intra(4, 1);
	uint64_t s, r;

	x.root = 0;
	x.scount = 1;
	x.stype = &t_int;
	x.rtype = &t_bad;
	nasked = 0;
	cr_assert_eq(st_bytes(&x, &other, &s, &r), 0);
	cr_expect_eq(nasked, 1, "asked %d times", nasked);
}
