/*
 * pmpi/clock.c: the rank's clock.  The hot path reads the invariant TSC
 * (about 10 ns here, against 30 ns for CLOCK_MONOTONIC_RAW).  Ticks become
 * nanoseconds of CLOCK_MONOTONIC_RAW through one fixed linear map whose
 * rate is measured against that clock across MPI_Init (no sleeping, no
 * NTP-slewed clock; the kernel's raw clock is itself the TSC times a fixed
 * factor, so the map is exact up to the pair-reading jitter over the
 * span, which the header records).  Without an invariant TSC, or with
 * SYNCTRACE_CLOCK=raw, st_now() reads CLOCK_MONOTONIC_RAW directly.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pmpi/internal.h"
#include "sync/skew.h"

int st_clock_tsc;

static uint64_t base_tick, base_ns, base_width;
static uint64_t mult = 1ull << 32;	/* ns per tick, 32.32 fixed point */
static double rate_err_ppm;		/* bound on the rate's error */
static uint64_t span_ns;
static int rate_fixed;
static struct st_skew skew;		/* SYNCTRACE_CLOCK_SKEW, test hook */
static uint64_t skew_base;
static int skewed;

struct st_clock_map st_clock_map = { ST_CLOCK_NOT_PLAIN, 0, 1ull << 32 };

/* Show the map to st_clock_ns(). */
static void publish(void)
{
	st_clock_map = (struct st_clock_map){
		.base_tick = st_clock_tsc && !skewed ? base_tick
						     : ST_CLOCK_NOT_PLAIN,
		.base_ns = base_ns, .mult = mult,
	};
}

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Does /proc/cpuinfo promise a constant-rate TSC that runs in all states? */
static int tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	int ok = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			ok = strstr(line, " constant_tsc") &&
			     strstr(line, " nonstop_tsc");
			break;
		}
	fclose(f);
	return ok;
#else
	return 0;
#endif
}

/*
 * One (tick, ns) pair: the raw clock read between two TSC reads, keeping
 * the tightest of a few tries.  '*width' gets the bracket in ticks.
 */
static void read_pair(uint64_t *tick, uint64_t *ns, uint64_t *width)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 16; i++) {
		uint64_t a = __builtin_ia32_rdtsc();
		uint64_t n = raw_ns();
		uint64_t b = __builtin_ia32_rdtsc();

		if (b - a < best) {
			best = b - a;
			*tick = a + (b - a) / 2;
			*ns = n;
		}
	}
	*width = best;
}

void st_clock_begin(void)
{
	st_clock_tsc = !st_set.clock_raw && tsc_invariant();
	if (st_clock_tsc)
		read_pair(&base_tick, &base_ns, &base_width);
	publish();
}

void st_clock_end(void)
{
	uint64_t t1, n1, w1, dt;

	if (!st_clock_tsc || rate_fixed)
		return;
	read_pair(&t1, &n1, &w1);
	/* A short MPI_Init gives a poor rate: widen the span to 20 ms. */
	while (n1 - base_ns < 20000000)
		read_pair(&t1, &n1, &w1);
	dt = t1 - base_tick;
	span_ns = n1 - base_ns;
	mult = (uint64_t)(((unsigned __int128)span_ns << 32) / dt);
	/*
	 * Each pair's tick is uncertain by half its bracket, each raw read
	 * by its own cost (about 30 ns): relative error over the span.
	 */
	rate_err_ppm = 1e6 * ((double)(base_width + w1) / 2.0 / (double)dt +
			      60.0 / (double)span_ns);
	rate_fixed = 1;
	publish();
}

uint64_t st_clock_ns_slow(uint64_t ticks)
{
	uint64_t ns;
	int64_t d;

	if (!st_clock_tsc) {
		ns = ticks;
	} else {
		d = (int64_t)(ticks - base_tick);
		if (d >= 0)
			ns = base_ns + (uint64_t)(((unsigned __int128)d * mult) >>
						  32);
		else
			ns = base_ns - (uint64_t)(((unsigned __int128)-d *
						   mult) >> 32);
	}
	if (__builtin_expect(skewed, 0))
		ns = st_skew_apply(&skew, skew_base, ns);
	return ns;
}

void st_clock_set_skew(const struct st_skew *k, uint64_t base)
{
	skew = *k;
	skew_base = base;
	skewed = k->offset_ns != 0 || k->drift_ppm != 0;
	publish();
}

void st_clock_export(uint64_t v[3])
{
	v[0] = base_tick;
	v[1] = base_ns;
	v[2] = mult;
}

void st_clock_import(const uint64_t v[3])
{
	if (!st_clock_tsc)
		return;
	base_tick = v[0];
	base_ns = v[1];
	mult = v[2];
	publish();
}

void st_clock_describe(char *src, size_t srclen, double *res_ns,
		       double *cost_ns)
{
	uint64_t c[64];
	uint64_t a, b;
	int i, j;

	for (i = 0; i < 64; i++) {
		a = raw_ns();
		for (j = 0; j < 100; j++) {
			if (st_clock_tsc)
				(void)__builtin_ia32_rdtsc();
			else
				(void)raw_ns();
		}
		b = raw_ns();
		c[i] = b - a;
	}
	/* Median of 64 batches of 100 reads. */
	for (i = 1; i < 64; i++)
		for (j = i; j > 0 && c[j - 1] > c[j]; j--) {
			a = c[j];
			c[j] = c[j - 1];
			c[j - 1] = a;
		}
	*cost_ns = (double)c[32] / 100.0;
	if (st_clock_tsc) {
		*res_ns = (double)mult / 4294967296.0;
		snprintf(src, srclen,
			 "tsc (%.6f GHz against CLOCK_MONOTONIC_RAW over %.1f ms,"
			 " +-%.3f ppm)",
			 4294967296.0 / (double)mult, (double)span_ns / 1e6,
			 rate_err_ppm);
	} else {
		struct timespec r;

		clock_getres(CLOCK_MONOTONIC_RAW, &r);
		*res_ns = (double)r.tv_sec * 1e9 + (double)r.tv_nsec;
		snprintf(src, srclen, "CLOCK_MONOTONIC_RAW");
	}
}
