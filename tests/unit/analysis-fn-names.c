/*
 * tests/unit/analysis-fn-names.c: the function-id table built from
 * ST_FN_LIST names every id the generator made, in id order, with its
 * kind and family; unknown ids and marks get a readable stand-in; the
 * fn_table hash check only flags a different table.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "gen/ops.h"
#include "tools/analysis/fn-names.h"
#include "writer/event.h"
#include "writer/fn-info.h"

Test(tools_fn_names, every_id_has_its_entry)
{
	const struct st_fn_desc *d;
	char buf[32];
	unsigned fn;

	cr_expect_eq(st_fn_count(), ST_FN_COUNT);
	for (fn = 1; fn < ST_FN_COUNT; fn++) {
		d = st_fn_desc(fn);
		cr_assert(d, "id %u has no entry", fn);
		cr_expect(!strncmp(d->name, "MPI_", 4), "%s", d->name);
		cr_expect_eq(st_fn_lookup(d->name), fn, "%s", d->name);
		cr_expect_eq(st_fn_name(fn, buf, sizeof(buf)), d->name);
	}
	d = st_fn_desc(ST_FN_MPI_ALLREDUCE);
	cr_expect_str_eq(d->name, "MPI_Allreduce");
	cr_expect_eq(d->kind, ST_KIND_COLL);
	cr_expect_eq(d->family, ST_FAM_BLOCKING);
	cr_expect_eq(d->bytes, ST_BYTES_ALLREDUCE);
	cr_expect_eq(st_fn_desc(ST_FN_MPI_ISEND)->family, ST_FAM_NONBLOCKING);
	cr_expect_eq(st_fn_desc(ST_FN_MPI_INIT)->kind, ST_KIND_INIT);
	cr_expect_eq(st_fn_lookup("MPI_Allreduce"), ST_FN_MPI_ALLREDUCE);
	cr_expect_eq(st_fn_lookup("mpi_allreduce"), 0);
}

Test(tools_fn_names, unknown_ids_and_marks)
{
	char buf[32];

	cr_expect_null(st_fn_desc(0));
	cr_expect_null(st_fn_desc(ST_FN_COUNT));
	cr_expect_str_eq(st_fn_name(ST_FN_COUNT + 5, buf, sizeof(buf)),
			 buf);
	cr_expect(!strncmp(buf, "fn#", 3));
	cr_expect_str_eq(st_fn_name(0, buf, sizeof(buf)), "fn#0");
	cr_expect_str_eq(st_mark_name(ST_MARK_FLUSH, buf, sizeof(buf)),
			 "flush");
	cr_expect_str_eq(st_mark_name(ST_MARK_FINALIZE, buf, sizeof(buf)),
			 "finalize");
	cr_expect_str_eq(st_mark_name(ST_MARK_INIT, buf, sizeof(buf)),
			 "init");
	cr_expect_str_eq(st_mark_name(ST_MARK_COMM_REGISTER, buf,
				      sizeof(buf)), "comm_register");
	cr_expect_str_eq(st_mark_name(99, buf, sizeof(buf)), "mark#99");
}

Test(tools_fn_names, table_hash_check)
{
	cr_expect_str_eq(st_fn_table_hash(), ST_FN_TABLE_HASH);
	cr_expect_not(st_fn_table_differs(ST_FN_TABLE_HASH));
	cr_expect_not(st_fn_table_differs(NULL), "no key: assume it matches");
	cr_expect(st_fn_table_differs("0000000000000000"));
}

Test(tools_fn_names, group_collectives_of_windows_and_files)
{
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_ALLREDUCE), ST_GC_COLL);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_IALLREDUCE), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_COMM_DUP), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_WIN_CREATE), ST_GC_WIN);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_WIN_ALLOCATE_C), ST_GC_WIN);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_WIN_FENCE), ST_GC_WIN);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_WIN_FREE), ST_GC_WIN);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_WIN_POST), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_WIN_LOCK), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_PUT), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_OPEN), ST_GC_FILE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_CLOSE), ST_GC_FILE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_DELETE), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_WRITE_ALL), ST_GC_FILE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_SET_VIEW), ST_GC_FILE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_READ_ORDERED),
		     ST_GC_FILE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_WRITE_ALL_BEGIN),
		     ST_GC_FILE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_WRITE_ALL_END),
		     ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_IWRITE_ALL), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_WRITE_AT), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_MPI_FILE_SEEK), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(0), ST_GC_NONE);
	cr_expect_eq(st_fn_group_coll(ST_FN_COUNT), ST_GC_NONE);
}
