/*
 * tools/analysis/merge.c: the k-way merge of ranks' record streams by global time.
 * A binary min-heap holds one entry per rank whose file is not done: its
 * next record (decoded into the entry, so the reader's buffers hold only
 * the current chunk) and that record's global entry time as the key.
 * Taking the least key, handing its record out and reading that rank's
 * next record costs O(log k) for k ranks.  A rank's own records leave in
 * file order, so the merge never reorders what one file says.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "tools/analysis/fn-names.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/timeline.h"
#include "writer/event.h"
#include "writer/reader.h"

struct source {
	int rank;
	struct st_reader *r;
	const struct st_gclock *clk;
	struct st_event ev;	/* the next record */
	double key;		/* its global entry time */
	double g0;		/* the same, NaN when it has none */
};

struct st_merge {
	struct source **heap;	/* min-heap by (key, rank) */
	size_t n, alloc;
	struct source *out;	/* handed out last, still the top of the
				   heap; read on at the next call */
	int failed;
	int raised;		/* the open-file limit was raised */
	int skip_g1;		/* st_merge_skip_g1() */
};

int st_merge_new(struct st_merge **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static int timed(unsigned kind)
{
	return kind != ST_REC_SITE && kind != ST_REC_OBJECT;
}

static double global_of(const struct source *s, uint64_t t_ns)
{
	return st_gclock_global(s->clk, t_ns);
}

static int before(const struct source *a, const struct source *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return a->rank < b->rank;
}

static void sift_up(struct st_merge *m, size_t i)
{
	struct source *s = m->heap[i];

	while (i > 0 && before(s, m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = s;
}

static void sift_down(struct st_merge *m, size_t i)
{
	struct source *s = m->heap[i];
	size_t c;

	while ((c = 2 * i + 1) < m->n) {
		if (c + 1 < m->n && before(m->heap[c + 1], m->heap[c]))
			c++;
		if (!before(m->heap[c], s))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = s;
}

static void source_free(struct source *s)
{
	if (!s)
		return;
	st_reader_close(s->r);
	free(s);
}

/*
 * Read the next record of 's' and set its key.  Returns 1, or 0 when the
 * file is done (at its end or damaged).  A record without times keeps
 * the key of the record before it, so it follows that one at once.
 */
static int advance(struct st_merge *m, struct source *s)
{
	int rc = st_reader_next(s->r, &s->ev);
	double g;

	if (rc <= 0) {
		if (rc < 0)
			m->failed++;
		return 0;
	}
	if (timed(s->ev.kind)) {
		g = global_of(s, s->ev.t0);
		s->g0 = g;
		s->key = isnan(g) ? (double)s->ev.t0 : g;
	}
	return 1;
}

static int raise_file_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == rl.rlim_max)
		return -1;
	rl.rlim_cur = rl.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

int st_merge_add(struct st_merge *m, int rank, const char *path,
		 const struct st_gclock *clk, char *err, size_t errlen)
{
	struct source *s;
	int rc;

	if (err && errlen)
		*err = '\0';
	if (m->out)
		return -EINVAL;
	if (m->n == m->alloc) {
		size_t alloc = m->alloc ? 2 * m->alloc : 16;
		struct source **h = realloc(m->heap, alloc * sizeof(*h));

		if (!h)
			return -ENOMEM;
		m->heap = h;
		m->alloc = alloc;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->rank = rank;
	s->clk = clk;
	s->key = -INFINITY;
	rc = st_fn_reader_open(&s->r, path, err, errlen);
	if (rc == -EMFILE && !m->raised) {
		m->raised = 1;
		if (!raise_file_limit())
			rc = st_fn_reader_open(&s->r, path, err, errlen);
	}
	if (rc) {
		free(s);
		return rc;
	}
	if (!advance(m, s)) {
		source_free(s);
		return 0;
	}
	m->heap[m->n++] = s;
	sift_up(m, m->n - 1);
	return 0;
}

int st_merge_next(struct st_merge *m, struct st_merged *out)
{
	struct source *s;

	/*
	 * The rank handed out last is still at the top of the heap: with
	 * its next record it sinks to its place, or, done, gives the top
	 * to the last entry.  (Keys and ranks order the entries totally, so
	 * the layout of the heap never changes which comes first.)
	 */
	if (m->out) {
		s = m->out;
		m->out = NULL;
		if (!advance(m, s)) {
			source_free(s);
			m->heap[0] = m->heap[--m->n];
		}
		if (m->n)
			sift_down(m, 0);
	}
	if (!m->n)
		return 0;
	s = m->heap[0];
	m->out = s;
	out->rank = s->rank;
	out->ev = &s->ev;
	if (timed(s->ev.kind)) {
		out->g0 = s->g0;
		out->g1 = m->skip_g1 ? NAN : global_of(s, s->ev.t1);
	} else {
		out->g0 = out->g1 = NAN;
	}
	return 1;
}

void st_merge_skip_g1(struct st_merge *m)
{
	m->skip_g1 = 1;
}

int st_merge_failed(const struct st_merge *m)
{
	return m->failed;
}

void st_merge_free(struct st_merge *m)
{
	size_t i;

	if (!m)
		return;
	/* 'out', when set, is the top of the heap. */
	for (i = 0; i < m->n; i++)
		source_free(m->heap[i]);
	free(m->heap);
	free(m);
}
