/*
 * tools/analysis/fn-names.c: the function-id table, built at compile time from
 * the ST_FN_LIST X-macro of gen/ops.h, so the tools name exactly the
 * functions the interposer was generated with.  A trace records the
 * table's hash in its "fn_table" header key; the tools warn when it
 * differs from ST_FN_TABLE_HASH, since ids may then mean other functions.
 */
#include <stdio.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fn-names.h"
#include "writer/event.h"
#include "writer/fn-info.h"
#include "writer/reader.h"

static const struct st_fn_desc fn_table[ST_FN_COUNT] = {
#define FN_ENTRY(id, name, kind, family, bytes, flags) \
	[id] = { name, kind, family, bytes, flags },
	ST_FN_LIST(FN_ENTRY)
#undef FN_ENTRY
};

unsigned st_fn_count(void)
{
	return ST_FN_COUNT;
}

const struct st_fn_desc *st_fn_desc(unsigned fn)
{
	if (fn == ST_FN_NONE || fn >= ST_FN_COUNT || !fn_table[fn].name)
		return NULL;
	return &fn_table[fn];
}

void st_fn_kinds(unsigned char *rel, int k1, int k2)
{
	const struct st_fn_desc *d;
	unsigned fn;

	for (fn = 0; fn < ST_FN_COUNT; fn++)
		rel[fn] = (d = st_fn_desc(fn)) &&
			  (d->kind == k1 || d->kind == k2);
}

const char *st_fn_name(unsigned fn, char *buf, size_t len)
{
	const struct st_fn_desc *d = st_fn_desc(fn);

	if (d)
		return d->name;
	snprintf(buf, len, "fn#%u", fn);
	return buf;
}

int st_fn_group_coll(unsigned fn)
{
	const struct st_fn_desc *d = st_fn_desc(fn);
	int blocking;

	if (!d)
		return ST_GC_NONE;
	blocking = d->family == ST_FAM_BLOCKING;
	switch (d->kind) {
	case ST_KIND_COLL:
		return blocking ? ST_GC_COLL : ST_GC_NONE;
	case ST_KIND_WIN:
		return blocking ? ST_GC_WIN : ST_GC_NONE;
	case ST_KIND_RMA:
		return blocking && (d->flags & ST_FNF_COLLECTIVE) ? ST_GC_WIN :
		       ST_GC_NONE;
	case ST_KIND_FILE:
		/* MPI_File_delete is a single rank's. */
		return blocking && fn != ST_FN_MPI_FILE_DELETE ? ST_GC_FILE :
		       ST_GC_NONE;
	case ST_KIND_IO:
		return (blocking || d->family == ST_FAM_SPLIT) &&
		       (d->flags & ST_FNF_COLLECTIVE) ? ST_GC_FILE :
		       ST_GC_NONE;
	}
	return ST_GC_NONE;
}

unsigned st_fn_lookup(const char *name)
{
	unsigned fn;

	for (fn = 1; fn < ST_FN_COUNT; fn++)
		if (fn_table[fn].name && !strcmp(fn_table[fn].name, name))
			return fn;
	return 0;
}

const char *st_mark_name(unsigned mark, char *buf, size_t len)
{
	switch (mark) {
	case ST_MARK_FLUSH:
		return "flush";
	case ST_MARK_FINALIZE:
		return "finalize";
	case ST_MARK_COMM_REGISTER:
		return "comm_register";
	case ST_MARK_INIT:
		return "init";
	}
	snprintf(buf, len, "mark#%u", mark);
	return buf;
}

const char *st_fn_table_hash(void)
{
	return ST_FN_TABLE_HASH;
}

int st_fn_table_differs(const char *trace_hash)
{
	return trace_hash && strcmp(trace_hash, ST_FN_TABLE_HASH);
}

int st_fn_reader_open(struct st_reader **out, const char *path, char *err,
		      size_t errlen)
{
	int rc = st_reader_open(out, path, err, errlen);

	if (!rc)
		st_reader_set_fn_count(*out, ST_FN_COUNT);
	return rc;
}
