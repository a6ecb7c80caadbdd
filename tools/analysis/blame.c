/*
 * tools/analysis/blame.c: the verdict on imbalance (see blame.h).  The
 * call site with most waiting is the one to explain; the rank whose late
 * arrivals caused most of that waiting is named, with how often it came
 * last there.  Only instances longer than the clock error count
 * (tools/analysis/imbalance.h flags the others), so a verdict never
 * rests on an order of arrival that the clocks cannot tell.
 */
#include <inttypes.h>
#include <stdio.h>

#include "tools/analysis/blame.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/format.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/runscan.h"

void st_blame_find(const struct st_scan *s, struct st_blame *b)
{
	st_blame_find_imb(s->imb, b);
}

void st_blame_find_imb(const struct st_imb *imb, struct st_blame *b)
{
	const struct st_imb_row *rows, *best = NULL;
	size_t i, n;
	int r;

	b->found = 0;
	b->row = NULL;
	rows = st_imb_by_site(imb, &n);
	for (i = 0; i < n; i++)
		if (rows[i].s.n && rows[i].s.wait_ns > 0 &&
		    (!best || rows[i].s.wait_ns > best->s.wait_ns))
			best = &rows[i];
	if (!best)
		return;
	b->row = best;
	b->rank = -1;
	for (r = 0; r < best->nblame; r++)
		if (best->blame[r].last &&
		    (b->rank < 0 ||
		     best->blame[r].caused_ns > best->blame[b->rank].caused_ns))
			b->rank = r;
	if (b->rank < 0)
		return;
	b->found = 1;
	b->last = best->blame[b->rank].last;
	b->last_pct = 100.0 * (double)b->last / (double)best->s.n;
	b->caused_ns = best->blame[b->rank].caused_ns;
	b->caused_pct = 100.0 * b->caused_ns / best->s.wait_ns;
}

char *st_blame_verdict(const struct st_scan *s, const struct st_blame *b,
		       char *buf, size_t len)
{
	return st_blame_verdict_syms(s->syms, b, buf, len);
}

/* The verdict with the row's call site given as 'site' ("jacobi.c:101"). */
static char *verdict_at(const struct st_blame *b, const char *site,
			char *buf, size_t len)
{
	char nm[32], x[32], y[32];

	if (!b->found) {
		snprintf(buf, len, "no rank to blame: no collective call site "
			 "with waiting longer than the clock error");
		return buf;
	}
	snprintf(buf, len, "rank %d arrives last in %.0f %% of %s at %s "
		 "(n=%" PRIu64 " instances) and causes %.0f %% of its waiting "
		 "(%s of %s)", b->rank, b->last_pct,
		 st_fn_name(b->row->fn, nm, sizeof(nm)),
		 site, b->row->s.n, b->caused_pct,
		 st_fmt_ns(b->caused_ns, x, sizeof(x)),
		 st_fmt_ns(b->row->s.wait_ns, y, sizeof(y)));
	return buf;
}

char *st_blame_verdict_syms(struct st_symtab *syms, const struct st_blame *b,
			    char *buf, size_t len)
{
	char site[256];

	return verdict_at(b, b->found ? st_sym_site_label(syms, b->row->sym,
			  site, sizeof(site)) : "", buf, len);
}

int st_blame_oversubscribed(const struct st_scan *s, char *buf, size_t len)
{
	const char *host = NULL;
	long cores = 0;
	int n = st_scan_oversubscribed(s, &host, &cores);

	if (!n) {
		if (len)
			*buf = '\0';
		return 0;
	}
	snprintf(buf, len, "%d ranks ran on host '%s', which has %ld core%s: "
		 "the waiting may be the machine's, not the application's",
		 n, host, cores, cores == 1 ? "" : "s");
	return 1;
}
