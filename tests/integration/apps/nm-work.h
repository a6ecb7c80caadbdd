/*
 * tests/integration/apps/nm-work.h: the compute of the network-model
 * validation apps (nm-*.c): 'reps' sweeps of a smoothing update over
 * 'n' doubles, real work whose time does not depend on the network.
 */
#ifndef ST_APPS_NM_WORK_H
#define ST_APPS_NM_WORK_H

#include <stddef.h>

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

#endif
