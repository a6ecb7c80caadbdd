/*
 * tools/analysis/json-out.c: building and writing JSON documents with
 * jansson (json-out.h).  jansson writes either one value a line
 * (JSON_INDENT) or everything on one line; the tables read best in
 * between, so the containers that hold containers are laid out here and
 * everything below them is jansson's one-line form.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/json-out.h"

/* jansson's one-line form: ", " and ": " between items, %.10g reals. */
#define LINE_FLAGS (JSON_ENCODE_ANY | JSON_REAL_PRECISION(10))

json_t *st_jnum(double v)
{
	if (!isfinite(v))
		return json_null();
	/* A whole number prints as one (4096, not 4096.0), exactly. */
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* Length of the valid UTF-8 sequence at 's', or 0 (RFC 3629). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* No overlong forms, surrogates or code points past U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

json_t *st_jstr(const char *s)
{
	json_t *v;
	char *c;
	size_t i, n;

	if (!s)
		return json_null();
	v = json_string(s);
	if (v)
		return v;
	/* Not UTF-8 (or out of memory): mark the stray bytes. */
	c = strdup(s);
	if (!c)
		return NULL;
	for (i = 0; c[i]; i += n) {
		n = utf8_len((const unsigned char *)c + i);
		if (!n) {
			c[i] = '?';
			n = 1;
		}
	}
	v = json_string(c);
	free(c);
	return v;
}

void st_json_put_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n;

	for (; *p; p += n) {
		n = utf8_len(p);
		if (!n) {
			fputc('?', f);
			n = 1;
		} else if (n > 1) {
			fwrite(p, 1, n, f);
		} else if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p, f);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else if (*p == '\t') {
			fputs("\\t", f);
		} else if (*p == '\r') {
			fputs("\\r", f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else {
			fputc(*p, f);
		}
	}
}

int st_jset(json_t *o, const char *key, json_t *v)
{
	return v && !json_object_set_new(o, key, v) ? 0 : -ENOMEM;
}

int st_jadd(json_t *a, json_t *v)
{
	return v && !json_array_append_new(a, v) ? 0 : -ENOMEM;
}

/* Does container 'v' hold a container? */
static int nested(const json_t *v)
{
	const char *key;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, x)
			if (json_is_object(x) || json_is_array(x))
				return 1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (json_is_object(x) || json_is_array(x))
				return 1;
	}
	return 0;
}

static int write_value(FILE *f, const json_t *v, int depth)
{
	const char *key;
	json_t *x, *k;
	size_t i, n;
	int rc, open = json_is_object(v) ? '{' : '[';

	if (!nested(v))
		return json_dumpf(v, f, LINE_FLAGS) ? -EIO : 0;
	n = json_is_object(v) ? json_object_size(v) : json_array_size(v);
	fputc(open, f);
	i = 0;
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, x) {
			fprintf(f, "\n%*s", 2 * (depth + 1), "");
			k = json_string(key);
			if (!k)
				return -ENOMEM;
			rc = json_dumpf(k, f, LINE_FLAGS);
			json_decref(k);
			if (rc)
				return -EIO;
			fputs(": ", f);
			if ((rc = write_value(f, x, depth + 1)))
				return rc;
			fputs(++i < n ? "," : "", f);
		}
	} else {
		json_array_foreach(v, i, x) {
			fprintf(f, "\n%*s", 2 * (depth + 1), "");
			if ((rc = write_value(f, x, depth + 1)))
				return rc;
			fputs(i + 1 < n ? "," : "", f);
		}
	}
	fprintf(f, "\n%*s%c", 2 * depth, "", open == '{' ? '}' : ']');
	return 0;
}

int st_json_write(FILE *f, const json_t *v)
{
	int rc = write_value(f, v, 0);

	fputc('\n', f);
	if (!rc && ferror(f))
		rc = -EIO;
	return rc;
}
