/*
 * tools/analysis/json-out.h: JSON documents for the analysis library's
 * outputs ('synctrace table --json', 'synctrace predict --json'),
 * built with jansson (Debian's libjansson) and written so a person can
 * read them: a container that holds containers is spread over lines,
 * one member or item a line, indented two spaces a level; any other
 * value takes one line ({"p": 2, "median_ns": 1464.0}), which keeps
 * one group or one rank a line.  Members keep the order they were set
 * in.  Reading is jansson's own (json_loadb()).
 */
#ifndef ST_TOOLS_ANALYSIS_JSON_OUT_H
#define ST_TOOLS_ANALYSIS_JSON_OUT_H

#include <jansson.h>
#include <stdio.h>

/*
 * A number: an integer when 'v' is a whole number below 2^53, else a
 * real; null when 'v' is not finite (JSON has no NaN).
 */
json_t *st_jnum(double v);

/*
 * A string, or null when 's' is NULL.  A byte that is not part of valid
 * UTF-8 (a path or host name in another encoding) becomes '?'.
 */
json_t *st_jstr(const char *s);

/*
 * Set member 'key' of object 'o' to 'v', or append 'v' to array 'a',
 * taking the reference to 'v' either way.  Returns 0, or -ENOMEM, also
 * when 'v' is NULL (the constructor that made it failed), so callers
 * can OR the results of a run of calls and test once.
 */
int st_jset(json_t *o, const char *key, json_t *v);
int st_jadd(json_t *a, json_t *v);

/*
 * For writers that stream a document too large to build (export's
 * trace events): the JSON escape of 's' (NULL: ""), without the quotes.
 * A byte that is not part of valid UTF-8 becomes '?', as in st_jstr().
 */
void st_json_put_str(FILE *f, const char *s);

/*
 * Write 'v' to 'f' as described above, ending with a newline; numbers
 * that are not integers keep 10 significant digits.  Returns 0, -ENOMEM
 * or -EIO.
 */
int st_json_write(FILE *f, const json_t *v);

#endif
