/*
 * tools/analysis/predict-json.c: recursive descent over the text, one function per
 * kind of value, building the tree as it goes.  Numbers go through
 * strtod() after their syntax is checked here (strtod alone would take
 * "0x10", "inf" or "1."), so what is accepted is exactly JSON.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/predict-json.h"

#define MAX_DEPTH 64

struct parser {
	const char *s, *p, *end;
	char *err;
	size_t errlen;
	int rc;
};

static int bad(struct parser *ps, const char *what)
{
	size_t line = 1, col = 1;
	const char *q;

	if (ps->rc)
		return ps->rc;
	for (q = ps->s; q < ps->p; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	if (ps->err && ps->errlen)
		snprintf(ps->err, ps->errlen, "line %zu column %zu: %s", line,
			 col, what);
	ps->rc = -EBADMSG;
	return ps->rc;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int lit(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return bad(ps, "unknown literal");
	ps->p += n;
	return 0;
}

static int hex4(struct parser *ps, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (ps->end - ps->p < 4)
		return bad(ps, "short \\u escape");
	for (i = 0; i < 4; i++) {
		char c = *ps->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return bad(ps, "bad \\u escape");
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* A string at ps->p (the opening quote): into a new buffer. */
static int string(struct parser *ps, char **out, size_t *outlen)
{
	const char *q = ++ps->p;
	size_t n = 0;
	char *buf, *o;
	unsigned c, lo;

	/* Escapes only shrink, so the raw length bounds the result. */
	while (q < ps->end && *q != '"') {
		if (*q == '\\')
			q++;
		q++;
	}
	if (q >= ps->end)
		return bad(ps, "unterminated string");
	buf = malloc((size_t)(q - ps->p) + 1);
	if (!buf)
		return ps->rc = -ENOMEM;
	o = buf;
	while (*ps->p != '"') {
		unsigned char ch = (unsigned char)*ps->p;

		if (ch < 0x20) {
			free(buf);
			return bad(ps, "control character in string");
		}
		if (ch != '\\') {
			*o++ = (char)ch;
			ps->p++;
			continue;
		}
		ps->p++;
		switch (*ps->p++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (hex4(ps, &c)) {
				free(buf);
				return ps->rc;
			}
			if (c >= 0xd800 && c < 0xdc00) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' ||
				    ps->p[1] != 'u') {
					free(buf);
					return bad(ps, "lone surrogate");
				}
				ps->p += 2;
				if (hex4(ps, &lo)) {
					free(buf);
					return ps->rc;
				}
				if (lo < 0xdc00 || lo > 0xdfff) {
					free(buf);
					return bad(ps, "bad surrogate pair");
				}
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
			} else if (c >= 0xdc00 && c < 0xe000) {
				free(buf);
				return bad(ps, "lone surrogate");
			}
			o += put_utf8(o, c);
			break;
		default:
			ps->p--;
			free(buf);
			return bad(ps, "bad escape");
		}
	}
	ps->p++;
	n = (size_t)(o - buf);
	*o = '\0';
	*out = buf;
	*outlen = n;
	return 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int number(struct parser *ps, double *out)
{
	const char *q = ps->p;
	char tmp[64], *end;
	size_t n;

	if (q < ps->end && *q == '-')
		q++;
	if (q >= ps->end || !is_digit(*q))
		return bad(ps, "bad number");
	if (*q == '0')
		q++;
	else
		while (q < ps->end && is_digit(*q))
			q++;
	if (q < ps->end && *q == '.') {
		q++;
		if (q >= ps->end || !is_digit(*q))
			return bad(ps, "bad number");
		while (q < ps->end && is_digit(*q))
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= ps->end || !is_digit(*q))
			return bad(ps, "bad number");
		while (q < ps->end && is_digit(*q))
			q++;
	}
	n = (size_t)(q - ps->p);
	if (n >= sizeof(tmp))
		return bad(ps, "number too long");
	memcpy(tmp, ps->p, n);
	tmp[n] = '\0';
	*out = strtod(tmp, &end);
	ps->p = q;
	return 0;
}

static int value(struct parser *ps, struct st_json *v, int depth);

static int push(struct parser *ps, struct st_json *v, size_t *alloc,
		int with_keys)
{
	size_t a = *alloc ? 2 * *alloc : 8;
	void *p;

	if (v->n < *alloc)
		return 0;
	p = realloc(v->items, a * sizeof(*v->items));
	if (!p)
		return ps->rc = -ENOMEM;
	v->items = p;
	if (with_keys) {
		p = realloc(v->keys, a * sizeof(*v->keys));
		if (!p)
			return ps->rc = -ENOMEM;
		v->keys = p;
	}
	*alloc = a;
	return 0;
}

static int container(struct parser *ps, struct st_json *v, int depth,
		     int obj)
{
	char close = obj ? '}' : ']';
	size_t alloc = 0, klen;

	v->type = obj ? ST_JSON_OBJ : ST_JSON_ARR;
	if (depth >= MAX_DEPTH)
		return bad(ps, "nested too deep");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		if (push(ps, v, &alloc, obj))
			return ps->rc;
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		if (obj) {
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != '"')
				return bad(ps, "expected a key");
			if (string(ps, &v->keys[v->n], &klen))
				return ps->rc;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(v->keys[v->n]);
				return bad(ps, "expected ':'");
			}
			ps->p++;
		}
		v->n++;
		if (value(ps, &v->items[v->n - 1], depth + 1))
			return ps->rc;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return 0;
		}
		return bad(ps, obj ? "expected ',' or '}'" :
			   "expected ',' or ']'");
	}
}

static int value(struct parser *ps, struct st_json *v, int depth)
{
	skip_ws(ps);
	if (ps->p >= ps->end)
		return bad(ps, "unexpected end");
	switch (*ps->p) {
	case '{':
		return container(ps, v, depth, 1);
	case '[':
		return container(ps, v, depth, 0);
	case '"':
		v->type = ST_JSON_STR;
		return string(ps, &v->str, &v->len);
	case 't':
		v->type = ST_JSON_BOOL;
		v->boolean = 1;
		return lit(ps, "true");
	case 'f':
		v->type = ST_JSON_BOOL;
		return lit(ps, "false");
	case 'n':
		v->type = ST_JSON_NULL;
		return lit(ps, "null");
	default:
		v->type = ST_JSON_NUM;
		return number(ps, &v->num);
	}
}

static void release(struct st_json *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		release(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

int st_json_parse(const char *text, size_t len, struct st_json **out,
		  char *err, size_t errlen)
{
	struct parser ps = { text, text, text + len, err, errlen, 0 };
	struct st_json *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (!v)
		return -ENOMEM;
	if (!value(&ps, v, 0)) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			bad(&ps, "text after the value");
	}
	if (ps.rc) {
		if (ps.rc == -ENOMEM && err && errlen)
			snprintf(err, errlen, "out of memory");
		st_json_free(v);
		return ps.rc;
	}
	*out = v;
	return 0;
}

void st_json_free(struct st_json *v)
{
	if (!v)
		return;
	release(v);
	free(v);
}

const struct st_json *st_json_get(const struct st_json *v, const char *key)
{
	size_t i;

	if (!v || v->type != ST_JSON_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

double st_json_num(const struct st_json *v, double def)
{
	return v && v->type == ST_JSON_NUM ? v->num : def;
}

const char *st_json_str(const struct st_json *v, const char *def)
{
	return v && v->type == ST_JSON_STR ? v->str : def;
}
