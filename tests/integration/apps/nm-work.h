/*
 * tests/integration/apps/nm-work.h: the compute of the network-model
 * validation apps (nm-*.c): 'reps' sweeps of a smoothing update over
 * 'n' doubles, real work whose time does not depend on the network.
 */
#ifndef ST_APPS_NM_WORK_H
#define ST_APPS_NM_WORK_H

#include <stddef.h>
#include <string.h>

__attribute__((unused))
static double nm_work(double *a, size_t n, int reps)
{
	double s = 0;
	size_t i;
	int r;

	for (r = 0; r < reps; r++)
		for (i = 1; i + 1 < n; i++)
			a[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1] +
			       1e-9;
	for (i = 0; i < n; i++)
		s += a[i];
	return s;
}

/*
 * Write the 'n' bytes of a message before it is sent, as an application
 * computes the data it sends: a calloc'd buffer that is never written
 * maps the kernel's one zero page, which shared memory copies from 40
 * to 60 % faster than from real data (docs/validation.md, "Concurrent
 * messages in shared memory"), and no real application sends that.
 */
__attribute__((unused))
static void nm_fill(char *buf, size_t n, int step)
{
	memset(buf, 1 + (step & 0x7f), n);
}

#endif
