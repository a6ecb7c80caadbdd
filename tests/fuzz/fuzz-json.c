/*
 * tests/fuzz/fuzz-json.c: the cost table predict reads: jansson's reader
 * (json_loadb(), in st_pmodel_parse()), then the table model on what
 * parses.
 */
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"
#include "tools/analysis/predict-model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct st_pmodel *m;
	char err[256];

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
