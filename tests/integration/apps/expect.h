/*
 * tests/integration/apps/expect.h: what an app says its own trace must
 * hold.  Each expectation is a line
 *
 *	EXPECT N CONDITION
 *
 * where CONDITION is an awk expression over the columns of `synctrace
 * dump --csv` (rank, kind, fn, peer, sbytes...) and N the number of
 * records that must match it; the app computes the numbers in it (bytes
 * from its counts and sizeof, statuses from MPI_Get_count), and
 * check_expects in tests/integration/lib.sh checks them.  The lines go
 * to the file $ST_EXPECT.RANK (on a shared stdout the ranks' lines could
 * interleave), or to stdout when ST_EXPECT is not set.
 */
#ifndef ST_APPS_EXPECT_H
#define ST_APPS_EXPECT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *xout;
static int xrank;

/* Open this rank's expectations (after MPI_Init, or the session's). */
__attribute__((unused))
static void expect_open(int rank)
{
	const char *prefix = getenv("ST_EXPECT");
	char path[4096];

	xrank = rank;
	xout = stdout;
	if (!prefix)
		return;
	snprintf(path, sizeof(path), "%s.%d", prefix, rank);
	if (!(xout = fopen(path, "w"))) {
		perror(path);
		exit(2);
	}
}

__attribute__((unused))
static void expect_close(void)
{
	if (xout && xout != stdout)
		fclose(xout);
	xout = NULL;
}

static void expect_va(int n, const char *kind, const char *fn,
		      const char *fmt, va_list ap)
{
	fprintf(xout, "EXPECT %d kind == \"%s\" && rank == %d && "
		"fn == \"%s\" && ", n, kind, xrank, fn);
	vfprintf(xout, fmt, ap);
	fputc('\n', xout);
}

/* 'n' call records of 'fn' by this rank that also satisfy 'fmt'. */
__attribute__((unused, format(printf, 3, 4)))
static void expect(int n, const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	expect_va(n, "call", fn, fmt, ap);
	va_end(ap);
}

/* The same for records of another 'kind' ("start", "done", "comm"). */
__attribute__((unused, format(printf, 4, 5)))
static void expect_kind(int n, const char *kind, const char *fn,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	expect_va(n, kind, fn, fmt, ap);
	va_end(ap);
}

#endif
