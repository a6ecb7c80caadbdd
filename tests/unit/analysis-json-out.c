/*
 * tests/unit/analysis-json-out.c: the JSON helpers over jansson.  NaN
 * and infinities are null, whole numbers print as integers; bytes that
 * are not UTF-8 become '?' instead of losing the string; a failed
 * constructor (NULL) is an error of st_jset()/st_jadd(); the layout
 * spreads over lines only the containers that hold containers, and what
 * it writes parses back to the same document; the streaming escape
 * (export's) does what jansson would.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/json-out.h"

/* What st_json_write() makes of 'v', NUL-terminated; free() it. */
static char *written(const json_t *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	cr_assert_eq(st_json_write(f, v), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

Test(analysis_json_out, numbers)
{
	json_t *a = json_array();
	char *s;

	cr_assert(a);
	cr_expect_eq(st_jadd(a, st_jnum(NAN)), 0);
	cr_expect_eq(st_jadd(a, st_jnum(INFINITY)), 0);
	cr_expect_eq(st_jadd(a, st_jnum(4096)), 0);
	cr_expect_eq(st_jadd(a, st_jnum(-0.0)), 0);
	cr_expect_eq(st_jadd(a, st_jnum(0.385)), 0);
	cr_expect_eq(st_jadd(a, st_jnum(1.0 / 3)), 0);
	cr_expect_eq(st_jadd(a, st_jnum(1e20)), 0);
	s = written(a);
	cr_expect_str_eq(s, "[null, null, 4096, 0, 0.385, 0.3333333333, "
			 "1e20]\n");
	free(s);
	json_decref(a);
}

Test(analysis_json_out, strings_stay_strings)
{
	json_t *o = json_object();
	char *s;

	cr_assert(o);
	cr_expect_eq(st_jset(o, "tab", st_jstr("MPICH\t4.0")), 0);
	cr_expect_eq(st_jset(o, "utf8", st_jstr("caf\xc3\xa9")), 0);
	cr_expect_eq(st_jset(o, "latin1", st_jstr("caf\xe9 \xff!")), 0);
	cr_expect_eq(st_jset(o, "none", st_jstr(NULL)), 0);
	s = written(o);
	cr_expect_str_eq(s, "{\"tab\": \"MPICH\\t4.0\", \"utf8\": "
			 "\"caf\xc3\xa9\", \"latin1\": \"caf? ?!\", "
			 "\"none\": null}\n");
	free(s);
	cr_expect_eq(st_jset(o, "failed", NULL), -ENOMEM);
	json_decref(o);
	o = json_array();
	cr_assert(o);
	cr_expect_eq(st_jadd(o, NULL), -ENOMEM);
	json_decref(o);
}

Test(analysis_json_out, containers_of_containers_spread)
{
	static const char doc[] =
		"{\"format\": \"x\", \"meta\": {\"a\": 1, \"b\": [1, 2]}, "
		"\"rows\": [{\"p\": 2, \"d\": [8, 16]}, {\"p\": 4}], "
		"\"empty\": [], \"flat\": {\"k\": true}}";
	static const char want[] =
		"{\n"
		"  \"format\": \"x\",\n"
		"  \"meta\": {\n"
		"    \"a\": 1,\n"
		"    \"b\": [1, 2]\n"
		"  },\n"
		"  \"rows\": [\n"
		"    {\n"
		"      \"p\": 2,\n"
		"      \"d\": [8, 16]\n"
		"    },\n"
		"    {\"p\": 4}\n"
		"  ],\n"
		"  \"empty\": [],\n"
		"  \"flat\": {\"k\": true}\n"
		"}\n";
	json_error_t je;
	json_t *v = json_loads(doc, 0, &je), *back;
	char *s;

	cr_assert(v, "%s", je.text);
	s = written(v);
	cr_expect_str_eq(s, want);
	back = json_loads(s, 0, &je);
	cr_assert(back, "%s", je.text);
	cr_expect(json_equal(v, back), "the layout changes nothing");
	json_decref(back);
	json_decref(v);
	free(s);
}

Test(analysis_json_out, streamed_strings_are_escaped)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	st_json_put_str(f, "a\"b\\c\nd\te\x01 caf\xc3\xa9 \xe9!");
	st_json_put_str(f, NULL);
	cr_assert_eq(fclose(f), 0);
	cr_expect_str_eq(buf, "a\\\"b\\\\c\\nd\\te\\u0001 caf\xc3\xa9 ?!");
	free(buf);
}
