/*
 * tools/analysis/predict-json.h: a small JSON reader (RFC 8259) for the cost
 * tables 'synctrace table --json' writes: the whole text becomes a tree
 * of values that the caller walks.  Strict: one value, nothing after it
 * but white space, depth at most 64, strings valid UTF-8 after \u
 * escapes are decoded; a mistake gives -EBADMSG and where it is.
 */
#ifndef ST_TOOLS_ANALYSIS_PREDICT_JSON_H
#define ST_TOOLS_ANALYSIS_PREDICT_JSON_H

#include <stddef.h>

enum st_json_type {
	ST_JSON_NULL = 0,
	ST_JSON_BOOL,
	ST_JSON_NUM,
	ST_JSON_STR,
	ST_JSON_ARR,
	ST_JSON_OBJ
};

/* One value; an object's members keep their order. */
struct st_json {
	int type;		/* enum st_json_type */
	int boolean;
	double num;
	char *str;		/* NUL-terminated; may hold "\0" inside */
	size_t len;		/* of 'str' */
	size_t n;		/* items of an array or object */
	struct st_json *items;	/* [n] */
	char **keys;		/* [n] for an object */
};

/*
 * Parse the 'len' bytes at 'text'.  Returns 0 and a tree in '*out'
 * (free it with st_json_free()), -EBADMSG with "line 3 column 7:
 * expected ':'" in 'err', or -ENOMEM.
 */
int st_json_parse(const char *text, size_t len, struct st_json **out,
		  char *err, size_t errlen);

void st_json_free(struct st_json *v);

/* Member 'key' of object 'v', or NULL (also when 'v' is no object). */
const struct st_json *st_json_get(const struct st_json *v, const char *key);

/* The number, string... of 'v' if it has that type, else 'def'. */
double st_json_num(const struct st_json *v, double def);
const char *st_json_str(const struct st_json *v, const char *def);

#endif
