/*
 * tests/fuzz/fuzz-json.c: the cost table predict reads: jansson's reader
 * (json_loadb(), in st_pmodel_parse()), then the table model on what
 * parses; and the same text as 'table --compare' reads it
 * (st_cmp_table_parse()), compared with itself and written out.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"
#include "tools/analysis/compare.h"
#include "tools/analysis/predict-model.h"

static void compare_side(const uint8_t *data, size_t size)
{
	struct st_cmp_table t;
	struct st_cmp_result r;
	char err[256];
	FILE *f;

	if (st_cmp_table_parse(&t, (const char *)data, size, "fuzz.json", err,
			       sizeof(err)))
		return;
	if (!st_compare(t.groups, t.ngroups, t.groups, t.ngroups, 0.95, 0.05,
			&r)) {
		f = fopen("/dev/null", "w");
		if (f) {
			(void)st_cmp_write_text(f, &t, &t, &r);
			(void)st_cmp_write_json(f, &t, &t, &r);
			fclose(f);
		}
		st_cmp_result_release(&r);
	}
	st_cmp_table_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_pmodel *m;
	char err[256];

	compare_side(data, size);
	if (st_pmodel_parse(&m, (const char *)data, size, "fuzz.json", err,
			    sizeof(err)))
		return 0;
	(void)st_pmodel_mpi_library(m);
	(void)st_pmodel_hosts(m);
	(void)st_pmodel_date(m);
	(void)st_pmodel_p_min(m);
	(void)st_pmodel_p_max(m);
	(void)st_pmodel_nrows(m);
	st_pmodel_free(m);
	return 0;
}
