/*
 * tests/integration/apps/io.c: MPI-IO with every access form, on the file
 * named by argv[1] (put it on a tmpfs).  Each rank writes a block of B
 * ints with each individual-pointer and explicit-offset form into
 * region k (offset (k * size + rank) * B ints) and reads it back the
 * same way; then the shared-pointer forms append after those regions;
 * a read past the end of the file comes back short.  Every value read
 * at a known place is checked.  For each call the app says what its
 * trace record must say (apps/expect.h), which t-io.sh checks: bytes
 * from counts and sizeof, a read's bytes from MPI_Get_count, and the
 * sequence number of each collective on the file, which the app counts.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "expect.h"

#define B 16			/* ints per block */
#define NREG 10			/* regions of the individual forms */

static int errors, rank, size, fseq;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "io: line %d: check failed: %s\n",   \
				__LINE__, #cond);                            \
			errors++;                                            \
		}                                                            \
	} while (0)

/* A collective call on the file: the next sequence number. */
static int coll(void)
{
	return ++fseq;
}

static MPI_Offset region(int k)
{
	return ((MPI_Offset)k * size + rank) * B;
}

static void fill(int *buf, int k)
{
	int i;

	for (i = 0; i < B; i++)
		buf[i] = 1000000 * k + 1000 * rank + i;
}

static void check_block(const int *buf, int k, int line)
{
	int i, bad = 0;

	for (i = 0; i < B; i++)
		bad += buf[i] != 1000000 * k + 1000 * rank + i;
	if (bad) {
		fprintf(stderr, "io: line %d: region %d read back wrong\n",
			line, k);
		errors++;
	}
}

/* Bytes the status says were read or written. */
static long got(const MPI_Status *st)
{
	int n = -1;

	MPI_Get_count(st, MPI_BYTE, &n);
	return n;
}

int main(int argc, char **argv)
{
	const long blk = B * (long)sizeof(int);
	int buf[B], s;
	MPI_File fh;
	MPI_Status st;
	MPI_Request q;
	MPI_Offset total;
	const char *path;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	expect_open(rank);
	if (argc != 2) {
		fprintf(stderr, "usage: io FILE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	path = argv[1];
	total = ((MPI_Offset)NREG + 4) * size * B;

	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
		      MPI_INFO_NULL, &fh);
	expect(1, "MPI_File_open", "arg == 12 && seq != \"\"");
	expect_kind(1, "comm", "MPI_File_open", "text == \"%s\" && arg == 12",
		    path);
	MPI_File_set_size(fh, total * (MPI_Offset)sizeof(int));
	expect(1, "MPI_File_set_size", "seq == %d && offset == %lld", coll(),
	       (long long)total * (long long)sizeof(int));
	/* Smaller than the size: the file keeps its end. */
	MPI_File_preallocate(fh, 1024);
	expect(1, "MPI_File_preallocate", "seq == %d && offset == 1024",
	       coll());
	MPI_File_set_atomicity(fh, 0);
	expect(1, "MPI_File_set_atomicity", "seq == %d", coll());
	MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
	expect(1, "MPI_File_set_view", "seq == %d && tsize == %zu", coll(),
	       sizeof(int));

	/* Writes, individual pointers and explicit offsets. */
	fill(buf, 0);
	MPI_File_write_at(fh, region(0), buf, B, MPI_INT, &st);
	expect(1, "MPI_File_write_at", "offset == %lld && sbytes == %ld && "
	       "seq == \"\"", (long long)region(0), blk);
	fill(buf, 1);
	MPI_File_write_at_all(fh, region(1), buf, B, MPI_INT, &st);
	expect(1, "MPI_File_write_at_all", "offset == %lld && "
	       "sbytes == %ld && seq == %d", (long long)region(1), blk,
	       coll());
	fill(buf, 2);
	MPI_File_iwrite_at(fh, region(2), buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	expect(1, "MPI_File_iwrite_at", "offset == %lld && sbytes == %ld && "
	       "req > 0", (long long)region(2), blk);
	fill(buf, 3);
	MPI_File_iwrite_at_all(fh, region(3), buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	expect(1, "MPI_File_iwrite_at_all", "offset == %lld && "
	       "sbytes == %ld && seq == %d && req > 0", (long long)region(3),
	       blk, coll());
	fill(buf, 4);
	MPI_File_seek(fh, region(4), MPI_SEEK_SET);
	MPI_File_write(fh, buf, B, MPI_INT, &st);
	expect(1, "MPI_File_write", "sbytes == %ld", blk);
	fill(buf, 5);
	MPI_File_seek(fh, region(5), MPI_SEEK_SET);
	MPI_File_write_all(fh, buf, B, MPI_INT, &st);
	expect(1, "MPI_File_write_all", "sbytes == %ld && seq == %d", blk,
	       coll());
	fill(buf, 6);
	MPI_File_seek(fh, region(6), MPI_SEEK_SET);
	MPI_File_iwrite(fh, buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	expect(1, "MPI_File_iwrite", "sbytes == %ld && req > 0", blk);
	fill(buf, 7);
	MPI_File_seek(fh, region(7), MPI_SEEK_SET);
	MPI_File_iwrite_all(fh, buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	expect(1, "MPI_File_iwrite_all", "sbytes == %ld && seq == %d && "
	       "req > 0", blk, coll());
	fill(buf, 8);
	MPI_File_write_at_all_begin(fh, region(8), buf, B, MPI_INT);
	MPI_File_write_at_all_end(fh, buf, &st);
	expect(1, "MPI_File_write_at_all_begin", "offset == %lld && "
	       "sbytes == %ld && seq == %d", (long long)region(8), blk,
	       coll());
	expect(1, "MPI_File_write_at_all_end", "sbytes == 0");
	fill(buf, 9);
	MPI_File_seek(fh, region(9), MPI_SEEK_SET);
	MPI_File_write_all_begin(fh, buf, B, MPI_INT);
	MPI_File_write_all_end(fh, buf, &st);
	expect(1, "MPI_File_write_all_begin", "sbytes == %ld && seq == %d",
	       blk, coll());
	expect(1, "MPI_File_write_all_end", "sbytes == 0");

	/* Writes, the shared pointer, after the regions. */
	MPI_File_seek_shared(fh, (MPI_Offset)NREG * size * B, MPI_SEEK_SET);
	expect(1, "MPI_File_seek_shared", "seq == %d && arg == 1 && "
	       "offset == %lld", coll(), (long long)NREG * size * B);
	fill(buf, 10);
	MPI_File_write_shared(fh, buf, B, MPI_INT, &st);
	expect(1, "MPI_File_write_shared", "sbytes == %ld", blk);
	MPI_File_iwrite_shared(fh, buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	expect(1, "MPI_File_iwrite_shared", "sbytes == %ld && req > 0", blk);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_write_ordered(fh, buf, B, MPI_INT, &st);
	expect(1, "MPI_File_write_ordered", "sbytes == %ld && seq == %d", blk,
	       coll());
	MPI_File_write_ordered_begin(fh, buf, B, MPI_INT);
	MPI_File_write_ordered_end(fh, buf, &st);
	expect(1, "MPI_File_write_ordered_begin", "sbytes == %ld && "
	       "seq == %d", blk, coll());
	expect(1, "MPI_File_write_ordered_end", "sbytes == 0");
	MPI_File_sync(fh);
	expect(1, "MPI_File_sync", "seq == %d", coll());
	MPI_Barrier(MPI_COMM_WORLD);

	/* Reads, the same forms. */
	MPI_File_read_at(fh, region(0), buf, B, MPI_INT, &st);
	check_block(buf, 0, __LINE__);
	expect(1, "MPI_File_read_at", "offset == %lld && rbytes == %ld && "
	       "sbytes == 0", (long long)region(0), got(&st));
	MPI_File_read_at_all(fh, region(1), buf, B, MPI_INT, &st);
	check_block(buf, 1, __LINE__);
	expect(1, "MPI_File_read_at_all", "offset == %lld && rbytes == %ld && "
	       "seq == %d", (long long)region(1), got(&st), coll());
	MPI_File_iread_at(fh, region(2), buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	check_block(buf, 2, __LINE__);
	expect(1, "MPI_File_iread_at", "offset == %lld && rbytes == 0 && "
	       "req > 0", (long long)region(2));
	MPI_File_iread_at_all(fh, region(3), buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	check_block(buf, 3, __LINE__);
	expect(1, "MPI_File_iread_at_all", "offset == %lld && rbytes == 0 && "
	       "seq == %d && req > 0", (long long)region(3), coll());
	MPI_File_seek(fh, region(4), MPI_SEEK_SET);
	MPI_File_read(fh, buf, B, MPI_INT, &st);
	check_block(buf, 4, __LINE__);
	expect(1, "MPI_File_read", "rbytes == %ld", got(&st));
	MPI_File_seek(fh, region(5), MPI_SEEK_SET);
	MPI_File_read_all(fh, buf, B, MPI_INT, &st);
	check_block(buf, 5, __LINE__);
	expect(1, "MPI_File_read_all", "rbytes == %ld && seq == %d", got(&st),
	       coll());
	MPI_File_seek(fh, region(6), MPI_SEEK_SET);
	MPI_File_iread(fh, buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	check_block(buf, 6, __LINE__);
	expect(1, "MPI_File_iread", "rbytes == 0 && req > 0");
	MPI_File_seek(fh, region(7), MPI_SEEK_SET);
	MPI_File_iread_all(fh, buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	check_block(buf, 7, __LINE__);
	expect(1, "MPI_File_iread_all", "rbytes == 0 && seq == %d && req > 0",
	       coll());
	MPI_File_read_at_all_begin(fh, region(8), buf, B, MPI_INT);
	MPI_File_read_at_all_end(fh, buf, &st);
	check_block(buf, 8, __LINE__);
	expect(1, "MPI_File_read_at_all_begin", "offset == %lld && "
	       "rbytes == 0 && seq == %d", (long long)region(8), coll());
	expect(1, "MPI_File_read_at_all_end", "rbytes == %ld", got(&st));
	MPI_File_seek(fh, region(9), MPI_SEEK_SET);
	MPI_File_read_all_begin(fh, buf, B, MPI_INT);
	MPI_File_read_all_end(fh, buf, &st);
	check_block(buf, 9, __LINE__);
	expect(1, "MPI_File_read_all_begin", "rbytes == 0 && seq == %d",
	       coll());
	expect(1, "MPI_File_read_all_end", "rbytes == %ld", got(&st));

	/* Reads, the shared pointer. */
	MPI_File_seek_shared(fh, (MPI_Offset)NREG * size * B, MPI_SEEK_SET);
	expect(2, "MPI_File_seek_shared", "arg == 1");
	coll();
	MPI_File_read_ordered(fh, buf, B, MPI_INT, &st);
	expect(1, "MPI_File_read_ordered", "rbytes == %ld && seq == %d",
	       got(&st), coll());
	MPI_File_read_shared(fh, buf, B, MPI_INT, &st);
	expect(1, "MPI_File_read_shared", "rbytes == %ld", got(&st));
	MPI_File_iread_shared(fh, buf, B, MPI_INT, &q);
	MPI_Wait(&q, &st);
	expect(1, "MPI_File_iread_shared", "rbytes == 0 && req > 0");
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_read_ordered_begin(fh, buf, B, MPI_INT);
	MPI_File_read_ordered_end(fh, buf, &st);
	expect(1, "MPI_File_read_ordered_begin", "rbytes == 0 && seq == %d",
	       coll());
	expect(1, "MPI_File_read_ordered_end", "rbytes == %ld", got(&st));

	/* A read that runs past the end of the file comes back short. */
	MPI_File_read_at(fh, total - 5, buf, B, MPI_INT, &st);
	CHECK(got(&st) == 5 * (long)sizeof(int));
	expect(1, "MPI_File_read_at", "offset == %lld && rbytes == %ld",
	       (long long)(total - 5), got(&st));

	expect(10, "MPI_File_seek", "arg == 1");
	/* The done records of the nonblocking writes, then the reads. */
	expect_kind(5, "done", "MPI_Wait", "sbytes == %ld && rbytes == 0",
		    blk);
	expect_kind(5, "done", "MPI_Wait", "sbytes == 0 && rbytes == %ld",
		    blk);

	MPI_File_close(&fh);
	expect(1, "MPI_File_close", "seq == %d", coll());
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_File_delete(path, MPI_INFO_NULL);
		expect(1, "MPI_File_delete", "text == \"%s\"", path);
	}
	s = 0;
	MPI_Allreduce(&errors, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("io: %s\n", s ? "ERRORS" : "all ranks ok");
	expect_close();
	MPI_Finalize();
	return s != 0;
}
