/*
 * tools/analysis/compare-json.c: one side of a comparison read from a
 * cost table's JSON ('synctrace table --json': each group's
 * run_medians_ns), and a comparison written as JSON (see
 * tools/analysis/compare.h).  Tables written before the launches were
 * kept have no run_medians_ns: they are refused with a message, since
 * a comparison without launches would be the one issue 19 warns of.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/version.h"
#include "tools/analysis/compare.h"
#include "tools/analysis/json-out.h"

#define OP_LEN 96		/* as st_table_op.name */
#define MAX_TABLE_BYTES (256u << 20)

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static double jnum(const json_t *v, double def)
{
	return json_is_number(v) ? json_number_value(v) : def;
}

static const char *jstr(const json_t *v)
{
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static char *dup_or_null(const char *s, int *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	*fail |= !d;
	return d;
}

/* Count the groups and launch medians of 'ops'; -EBADMSG if malformed. */
static int count(const json_t *ops, const char *name, size_t *ng, size_t *nv,
		 char *err, size_t errlen)
{
	size_t i, k;

	*ng = *nv = 0;
	for (i = 0; i < json_array_size(ops); i++) {
		const json_t *op = json_array_get(ops, i);
		const json_t *gs = json_object_get(op, "groups");
		const char *on = jstr(json_object_get(op, "op"));

		if (!on || !json_is_array(gs))
			return bad(err, errlen, "'%s': operation %s without a "
				   "name or groups", name, on ? on : "?");
		for (k = 0; k < json_array_size(gs); k++) {
			const json_t *g = json_array_get(gs, k);
			const json_t *rm = json_object_get(g, "run_medians_ns");

			if (!json_is_array(rm))
				return bad(err, errlen, "'%s': groups without "
					   "run_medians_ns (a table written "
					   "before synctrace kept its launches: "
					   "make it again)", name);
			if (!json_is_number(json_object_get(g, "p")) ||
			    !json_is_number(json_object_get(g, "d_bytes")))
				return bad(err, errlen, "'%s': a group of %s "
					   "without p or d_bytes", name, on);
			(*ng)++;
			*nv += json_array_size(rm);
		}
	}
	return 0;
}

int st_cmp_table_parse(struct st_cmp_table *out, const char *text,
		       size_t len, const char *name, char *err, size_t errlen)
{
	const json_t *meta, *ops, *runs;
	json_error_t je;
	json_t *j;
	size_t ng, nv, i, k, n = 0, v = 0;
	int rc, fail = 0;

	memset(out, 0, sizeof(*out));
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!j && json_error_code(&je) == json_error_out_of_memory)
		return -ENOMEM;
	if (!j) {
		if (err && errlen)
			snprintf(err, errlen, "'%s': not JSON: line %d column "
				 "%d: %s", name, je.line, je.column, je.text);
		return -EBADMSG;
	}
	rc = -EBADMSG;
	if (strcmp(jstr(json_object_get(j, "format")) ?
		   jstr(json_object_get(j, "format")) : "",
		   "synctrace-table")) {
		bad(err, errlen, "'%s': not a synctrace cost table (no "
		    "\"format\": \"synctrace-table\")", name);
		goto out;
	}
	if (jnum(json_object_get(j, "version"), -1) != 1) {
		bad(err, errlen, "'%s': cost table version is not 1",
		    name);
		goto out;
	}
	ops = json_object_get(j, "operations");
	if (!json_is_array(ops)) {
		bad(err, errlen, "'%s': no \"operations\" array", name);
		goto out;
	}
	if ((rc = count(ops, name, &ng, &nv, err, errlen)))
		goto out;
	rc = -ENOMEM;
	out->groups = calloc(ng + 1, sizeof(*out->groups));
	out->ops = malloc((ng + 1) * OP_LEN);
	out->run_ns = malloc((nv + 1) * sizeof(*out->run_ns));
	out->name = dup_or_null(name, &fail);
	meta = json_object_get(j, "metadata");
	out->mpi_library = dup_or_null(jstr(json_object_get(meta,
							    "mpi_library")),
				       &fail);
	out->date = dup_or_null(jstr(json_object_get(meta, "date")), &fail);
	runs = json_object_get(meta, "runs");
	out->nruns = json_is_array(runs) ? json_array_size(runs) : 0;
	if (fail || !out->groups || !out->ops || !out->run_ns)
		goto out;
	rc = -EBADMSG;
	for (i = 0; i < json_array_size(ops); i++) {
		const json_t *op = json_array_get(ops, i);
		const json_t *gs = json_object_get(op, "groups");

		for (k = 0; k < json_array_size(gs); k++) {
			const json_t *g = json_array_get(gs, k);
			const json_t *rm = json_object_get(g, "run_medians_ns");
			struct st_cmp_group *c = &out->groups[n];
			char *on = out->ops + n * OP_LEN;
			size_t r;

			snprintf(on, OP_LEN, "%s",
				 jstr(json_object_get(op, "op")));
			c->op = on;
			c->p = (long)jnum(json_object_get(g, "p"), 0);
			c->d = jnum(json_object_get(g, "d_bytes"), NAN);
			c->run_ns = out->run_ns + v;
			c->nruns = json_array_size(rm);
			for (r = 0; r < c->nruns; r++) {
				double x = jnum(json_array_get(rm, r), NAN);

				if (!isfinite(x)) {
					bad(err, errlen, "'%s': a run median "
					    "of %s is not a number", name, on);
					goto out;
				}
				out->run_ns[v++] = x;
			}
			n++;
		}
	}
	out->ngroups = n;
	rc = 0;
out:
	json_decref(j);
	if (rc)
		st_cmp_table_release(out);
	return rc;
}

int st_cmp_table_load(struct st_cmp_table *out, const char *path, char *err,
		      size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *nb;
	size_t len = 0, alloc = 0, got;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!f) {
		if (err && errlen)
			snprintf(err, errlen, "cannot open '%s': %s", path,
				 strerror(errno));
		return -errno;
	}
	for (;;) {
		if (len + 65536 > alloc) {
			alloc = alloc ? 2 * alloc : 1 << 20;
			if (alloc > MAX_TABLE_BYTES + 65536 ||
			    !(nb = realloc(buf, alloc))) {
				free(buf);
				fclose(f);
				if (alloc > MAX_TABLE_BYTES + 65536)
					return bad(err, errlen, "'%s': larger "
						   "than 256 MiB", path);
				return -ENOMEM;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, alloc - len, f);
		len += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		if (err && errlen)
			snprintf(err, errlen, "cannot read '%s': %s", path,
				 strerror(EIO));
		return -EIO;
	}
	fclose(f);
	rc = st_cmp_table_parse(out, buf, len, path, err, errlen);
	free(buf);
	return rc;
}

static json_t *jint(long long v)
{
	return json_integer((json_int_t)v);
}

static json_t *side(const struct st_cmp_table *t)
{
	json_t *x = json_object();
	int rc = 0;

	if (!x)
		return NULL;
	rc |= st_jset(x, "name", st_jstr(t->name));
	rc |= st_jset(x, "mpi_library", st_jstr(t->mpi_library));
	rc |= st_jset(x, "date", st_jstr(t->date));
	rc |= st_jset(x, "runs", jint((long long)t->nruns));
	rc |= st_jset(x, "groups", jint((long long)t->ngroups));
	if (rc) {
		json_decref(x);
		return NULL;
	}
	return x;
}

static json_t *key(const struct st_cmp_group *g)
{
	json_t *x = json_object();
	int rc = 0;

	if (!x)
		return NULL;
	rc |= st_jset(x, "op", st_jstr(g->op));
	rc |= st_jset(x, "p", jint(g->p));
	rc |= st_jset(x, "d_bytes", st_jnum(g->d));
	if (rc) {
		json_decref(x);
		return NULL;
	}
	return x;
}

static json_t *row(const struct st_cmp_table *a, const struct st_cmp_table *b,
		   const struct st_cmp_row *w)
{
	const struct st_cmp_group *ga = &a->groups[w->ia];
	json_t *x = key(ga);
	int rc = 0;

	if (!x)
		return NULL;
	rc |= st_jset(x, "a_runs", jint((long long)ga->nruns));
	rc |= st_jset(x, "b_runs", jint((long long)b->groups[w->ib].nruns));
	rc |= st_jset(x, "a_ns", st_jnum(w->a_ns));
	rc |= st_jset(x, "b_ns", st_jnum(w->b_ns));
	rc |= st_jset(x, "diff", st_jnum(w->diff));
	rc |= st_jset(x, "diff_lo", st_jnum(w->lo));
	rc |= st_jset(x, "diff_hi", st_jnum(w->hi));
	rc |= st_jset(x, "p_value", st_jnum(w->p));
	rc |= st_jset(x, "q_value", st_jnum(w->q));
	rc |= st_jset(x, "verdict", st_jstr(st_cmp_verdict_name(w->verdict)));
	rc |= st_jset(x, "direction", w->verdict != ST_CMP_DIFFERS ?
		      json_null() : st_jstr(w->diff > 0 ? "slower" :
					    "faster"));
	if (rc) {
		json_decref(x);
		return NULL;
	}
	return x;
}

int st_cmp_write_json(FILE *f, const struct st_cmp_table *a,
		      const struct st_cmp_table *b,
		      const struct st_cmp_result *r)
{
	json_t *doc = json_object(), *x, *arr;
	size_t i;
	int rc = 0;

	if (!doc)
		return -ENOMEM;
	rc |= st_jset(doc, "format", st_jstr("synctrace-compare"));
	rc |= st_jset(doc, "version", jint(1));
	rc |= st_jset(doc, "synctrace_version", st_jstr(ST_VERSION));
	rc |= st_jset(doc, "a", side(a));
	rc |= st_jset(doc, "b", side(b));
	rc |= st_jset(doc, "level", st_jnum(r->level));
	rc |= st_jset(doc, "alpha", st_jnum(1 - r->level));
	rc |= st_jset(doc, "resolve", st_jnum(r->resolve));
	rc |= st_jset(doc, "method", st_jstr("per group (op, p, d_bytes), "
		"the per-launch medians of A against B's: Wilcoxon "
		"rank-sum test on their logarithms (p_value, exact without "
		"ties up to 50 launches a side); diff = B/A - 1 from the "
		"Hodges-Lehmann shift, diff_lo and diff_hi its Moses "
		"interval at 'level'; q_value: p adjusted over the groups "
		"compared (Benjamini-Hochberg); verdict differs when q_value "
		"<= alpha (direction: B slower or faster), same when not and "
		"the interval lies within +-resolve, unresolved otherwise, "
		"too few launches with fewer than 2 a side; a_ns and b_ns "
		"are the medians of each side's launch medians"));
	rc |= st_jset(doc, "summary", x = json_object());
	if (x) {
		rc |= st_jset(x, "groups", jint((long long)r->nrows));
		rc |= st_jset(x, "differs", jint((long long)r->n_differs));
		rc |= st_jset(x, "slower", jint((long long)r->n_slower));
		rc |= st_jset(x, "faster", jint((long long)r->n_faster));
		rc |= st_jset(x, "median_diff", isnan(r->median_diff) ?
			      json_null() : json_real(r->median_diff));
		rc |= st_jset(x, "one_way", json_boolean(r->one_way));
		rc |= st_jset(x, "same", jint((long long)r->n_same));
		rc |= st_jset(x, "unresolved",
			      jint((long long)r->n_unresolved));
		rc |= st_jset(x, "too_few_launches",
			      jint((long long)r->n_too_few));
		rc |= st_jset(x, "median_abs_diff",
			      st_jnum(r->median_abs_diff));
		rc |= st_jset(x, "groups_with_diff", jint((long long)
							   r->n_diff));
		rc |= st_jset(x, "only_in_a", jint((long long)r->n_only_a));
		rc |= st_jset(x, "only_in_b", jint((long long)r->n_only_b));
	}
	rc |= st_jset(doc, "groups", arr = json_array());
	for (i = 0; arr && i < r->nrows; i++)
		rc |= st_jadd(arr, row(a, b, &r->rows[i]));
	rc |= st_jset(doc, "only_in_a", arr = json_array());
	for (i = 0; arr && i < r->n_only_a; i++)
		rc |= st_jadd(arr, key(&a->groups[r->only_a[i]]));
	rc |= st_jset(doc, "only_in_b", arr = json_array());
	for (i = 0; arr && i < r->n_only_b; i++)
		rc |= st_jadd(arr, key(&b->groups[r->only_b[i]]));
	rc = rc ? -ENOMEM : st_json_write(f, doc);
	json_decref(doc);
	return rc;
}
