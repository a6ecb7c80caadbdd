/*
 * tests/unit/gen-wrappers-def.c: the wrappers.def parser of
 * tools/gen/wrappers-def.c.  A small valid def is parsed and checked field
 * by field, the _c expansion is checked type by type against MPICH's
 * spelling, and each class of mistake must be refused with the line to
 * blame and a message naming the problem.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gen/wrappers-def.h"
#include "writer/fn-info.h"

/* Lines 1-32; the line numbers matter to the tests below. */
static const char small_def[] =
	"# a comment\n"						/* 1 */
	"\n"							/* 2 */
	"fn MPI_Bcast coll blocking bcast large rooted twin=MPI_Ibcast\n"
	"\tbuf\tvoid *buffer\n"					/* 4 */
	"\tcount\tPOLYCOUNT count   # trailing comment\n"	/* 5 */
	"\ttype\tMPI_Datatype datatype\n"			/* 6 */
	"\troot\tint root\n"					/* 7 */
	"\tcomm\tMPI_Comm comm\n"				/* 8 */
	"end\n"							/* 9 */
	"\n"							/* 10 */
	"fn MPI_Ibcast coll nonblocking bcast large rooted\n"	/* 11 */
	"\tbuf\tvoid *buffer\n"
	"\tcount\tPOLYCOUNT count\n"
	"\ttype\tMPI_Datatype datatype\n"
	"\troot\tint root\n"
	"\tcomm\tMPI_Comm comm\n"
	"\trequest\tMPI_Request *request\n"
	"end\n"							/* 18 */
	"fn MPI_Waitall complete local none f08 snap\n"		/* 19 */
	"  nreq      int count\n"
	"  requests  MPI_Request array_of_requests[]\n"
	"  statuses  MPI_Status array_of_statuses[]\n"
	"end\n"							/* 23 */
	"fn MPI_Barrier coll blocking barrier f08 twin=MPI_Ibarrier\n"
	"\tcomm MPI_Comm comm\n"
	"end\n"							/* 26 */
	"fn MPI_Ibarrier coll nonblocking barrier f08\n"	/* 27 */
	"\tcomm MPI_Comm comm\n"
	"\trequest MPI_Request *request\n"
	"end\n"							/* 30 */
	"fn MPI_Finalize finalize local none f08\n"		/* 31 */
	"end\n";						/* 32 */

static void parse_ok(struct st_def *def, const char *text)
{
	struct st_def_error err;
	int rc = st_def_parse(def, text, &err);

	cr_assert_eq(rc, 0, "parse failed: line %d: %s", err.line, err.msg);
}

Test(tools_wrappers_def, parses_a_valid_def)
{
	struct st_def def;
	const struct st_def_fn *fn;

	parse_ok(&def, small_def);
	cr_assert_eq(def.nfns, 6);

	fn = &def.fns[0];
	cr_expect_str_eq(fn->name, "MPI_Bcast");
	cr_expect_str_eq(fn->name_c, "MPI_Bcast_c");
	cr_expect_eq(fn->line, 3);
	cr_expect_eq(fn->kind, ST_KIND_COLL);
	cr_expect_eq(fn->family, ST_FAM_BLOCKING);
	cr_expect_eq(fn->bytes, ST_BYTES_BCAST);
	cr_expect_eq(fn->flags, ST_DEF_LARGE | ST_DEF_ROOTED);
	cr_expect_str_eq(fn->twin, "MPI_Ibcast");
	cr_expect_eq(fn->twin_f08, 0);
	cr_assert_eq(fn->nparams, 5);
	cr_expect_str_eq(fn->params[0].name, "buffer");
	cr_expect_eq(fn->params[0].role, ST_ROLE_BUF);
	cr_expect_str_eq(fn->params[0].decl[0], "void *buffer");
	cr_expect_str_eq(fn->params[1].name, "count");
	cr_expect_eq(fn->params[1].role, ST_ROLE_COUNT);
	cr_expect_eq(fn->params[1].poly, ST_POLY_COUNT);
	cr_expect_eq(fn->params[3].role, ST_ROLE_ROOT);
	cr_expect_eq(fn->params[4].role, ST_ROLE_COMM);
	cr_expect_eq(st_def_find_role(fn, ST_ROLE_ROOT), 3);
	cr_expect_eq(st_def_find_role(fn, ST_ROLE_STATUS), -1);

	fn = &def.fns[1];
	cr_expect_str_eq(fn->name, "MPI_Ibcast");
	cr_expect_eq(fn->family, ST_FAM_NONBLOCKING);
	cr_expect_null(fn->twin);

	fn = &def.fns[2];
	cr_expect_str_eq(fn->name, "MPI_Waitall");
	cr_expect_null(fn->name_c);
	cr_expect_eq(fn->flags, ST_DEF_F08 | ST_DEF_SNAP);
	cr_expect_eq(fn->params[0].role, ST_ROLE_NREQ);
	cr_expect_eq(fn->params[1].role, ST_ROLE_REQUESTS);
	cr_expect_str_eq(fn->params[1].decl[0],
			 "MPI_Request array_of_requests[]");
	cr_expect_eq(fn->params[2].role, ST_ROLE_STATUSES);

	/* a twin that is an f08 entry is reached through ST_REAL() */
	fn = &def.fns[3];
	cr_expect_str_eq(fn->twin, "MPI_Ibarrier");
	cr_expect_eq(fn->twin_f08, 1);

	fn = &def.fns[5];
	cr_expect_eq(fn->kind, ST_KIND_FINALIZE);
	cr_expect_eq(fn->nparams, 0);
	cr_expect_eq(fn->line, 31);

	cr_expect_eq(st_def_find(&def, "MPI_Waitall"), &def.fns[2]);
	cr_expect_null(st_def_find(&def, "MPI_Bcast_c"));
	cr_expect_null(st_def_find(&def, "MPI_Send"));

	st_def_release(&def);
	cr_expect_eq(def.nfns, 0);
	cr_expect_null(def.fns);
}

/* The int and _c spelling of each parameter of the single entry 'text'. */
static void check_forms(const char *text, const char *const (*want)[2],
			size_t n)
{
	struct st_def def;
	size_t i;

	parse_ok(&def, text);
	cr_assert_eq(def.fns[0].nparams, n);
	for (i = 0; i < n; i++) {
		cr_expect_str_eq(def.fns[0].params[i].decl[0], want[i][0],
				 "int form of parameter %zu", i);
		cr_expect_str_eq(def.fns[0].params[i].decl[1], want[i][1],
				 "_c form of parameter %zu", i);
	}
	st_def_release(&def);
}

Test(tools_wrappers_def, c_form_of_alltoallv_counts_and_displacements)
{
	static const char text[] =
		"fn MPI_Alltoallv coll persistent alltoallv large\n"
		"\tsbuf const void *sendbuf\n"
		"\tscounts const POLYCOUNT sendcounts[]\n"
		"\t- const POLYDISP sdispls[]\n"
		"\tstype MPI_Datatype sendtype\n"
		"\trbuf void *recvbuf\n"
		"\trcounts const POLYCOUNT recvcounts [ ]\n"
		"\t- const   POLYDISP rdispls[]\n"
		"\trtype MPI_Datatype recvtype\n"
		"\tcomm MPI_Comm comm\n"
		"\t- MPI_Info info\n"
		"\trequest MPI_Request*request\n"
		"end\n";
	static const char *const want[][2] = {
		{ "const void *sendbuf", "const void *sendbuf" },
		{ "const int sendcounts[]", "const MPI_Count sendcounts[]" },
		{ "const int sdispls[]", "const MPI_Aint sdispls[]" },
		{ "MPI_Datatype sendtype", "MPI_Datatype sendtype" },
		{ "void *recvbuf", "void *recvbuf" },
		{ "const int recvcounts[]", "const MPI_Count recvcounts[]" },
		{ "const int rdispls[]", "const MPI_Aint rdispls[]" },
		{ "MPI_Datatype recvtype", "MPI_Datatype recvtype" },
		{ "MPI_Comm comm", "MPI_Comm comm" },
		{ "MPI_Info info", "MPI_Info info" },
		{ "MPI_Request *request", "MPI_Request *request" },
	};

	check_forms(text, want, sizeof(want) / sizeof(want[0]));
}

Test(tools_wrappers_def, c_form_keeps_fixed_aint_and_scalar_counts)
{
	/* MPI_Ineighbor_alltoallw: displacements are MPI_Aint in both */
	static const char text[] =
		"fn MPI_Ineighbor_alltoallw coll nonblocking nbr_alltoallw "
		"large\n"
		"\tsbuf const void *sendbuf\n"
		"\tscounts const POLYCOUNT sendcounts[]\n"
		"\t- const MPI_Aint sdispls[]\n"
		"\tstypes const MPI_Datatype sendtypes[]\n"
		"\trcount POLYCOUNT recvcount\n"
		"\tcomm MPI_Comm comm\n"
		"\trequest MPI_Request *request\n"
		"end\n";
	static const char *const want[][2] = {
		{ "const void *sendbuf", "const void *sendbuf" },
		{ "const int sendcounts[]", "const MPI_Count sendcounts[]" },
		{ "const MPI_Aint sdispls[]", "const MPI_Aint sdispls[]" },
		{ "const MPI_Datatype sendtypes[]",
		  "const MPI_Datatype sendtypes[]" },
		{ "int recvcount", "MPI_Count recvcount" },
		{ "MPI_Comm comm", "MPI_Comm comm" },
		{ "MPI_Request *request", "MPI_Request *request" },
	};

	check_forms(text, want, sizeof(want) / sizeof(want[0]));
}

Test(tools_wrappers_def, pointer_spelling_is_canonical)
{
	static const char text[] =
		"fn MPI_Init init local none\n"
		"\t- int*argc\n"
		"\t- char * * *argv\n"
		"end\n";
	static const char *const want[][2] = {
		{ "int *argc", "int *argc" },
		{ "char ***argv", "char ***argv" },
	};

	check_forms(text, want, sizeof(want) / sizeof(want[0]));
}

Test(tools_wrappers_def, accepts_crlf_and_no_final_newline)
{
	struct st_def def;

	parse_ok(&def, "fn MPI_Finalize finalize local none\r\nend");
	cr_expect_eq(def.nfns, 1);
	cr_expect_str_eq(def.fns[0].name, "MPI_Finalize");
	st_def_release(&def);
}

Test(tools_wrappers_def, enum_names_cover_the_vocabulary)
{
	int i;

	cr_expect_str_eq(st_def_kind_enum(ST_KIND_COMPLETE),
			 "ST_KIND_COMPLETE");
	cr_expect_str_eq(st_def_family_enum(ST_FAM_PERSISTENT),
			 "ST_FAM_PERSISTENT");
	cr_expect_str_eq(st_def_bytes_enum(ST_BYTES_NBR_ALLTOALLW),
			 "ST_BYTES_NBR_ALLTOALLW");
	for (i = 0; i < ST_BYTES_CLASS_MAX; i++)
		cr_expect_not_null(st_def_bytes_enum(i), "bytes class %d", i);
	cr_expect_null(st_def_bytes_enum(ST_BYTES_CLASS_MAX));
	cr_expect_null(st_def_kind_enum(0));
	cr_expect_str_eq(st_def_role_name(ST_ROLE_NONE), "-");
	cr_expect_str_eq(st_def_role_name(ST_ROLE_PEER2), "peer2");
	cr_expect_str_eq(st_def_role_name(ST_ROLE_PROVIDED), "provided");
	cr_expect_null(st_def_role_name(ST_ROLE_MAX));
}

/* Parsing 'text' fails at 'line' with a message containing 'msg'. */
static void expect_error(const char *text, int line, const char *msg)
{
	struct st_def def;
	struct st_def_error err;
	int rc = st_def_parse(&def, text, &err);

	cr_assert_eq(rc, -EINVAL, "accepted, expected line %d: %s", line,
		     msg);
	cr_expect_eq(err.line, line, "line %d, expected %d (%s)", err.line,
		     line, err.msg);
	cr_expect(strstr(err.msg, msg), "message '%s' lacks '%s'", err.msg,
		  msg);
	cr_expect_eq(def.nfns, 0, "a failed parse left entries");
	cr_expect_null(def.fns);
}

/* A valid blocking send entry, ending at line 8. */
#define SEND_ENTRY                                                          \
	"# send\n"                                                          \
	"fn MPI_Send p2p blocking send large\n"                             \
	"\tsbuf const void *buf\n"                                          \
	"\tscount POLYCOUNT count\n"                                        \
	"\tstype MPI_Datatype datatype\n"                                   \
	"\tpeer int dest\n"                                                 \
	"\ttag int tag\n"                                                   \
	"end\n"

Test(tools_wrappers_def, rejects_unknown_words)
{
	expect_error("fn MPI_Send p2p blocking send\n"
		     "\tsbuff const void *buf\nend\n", 2,
		     "unknown role 'sbuff'");
	expect_error("\nfn MPI_Send ptp blocking send\nend\n", 2,
		     "unknown kind 'ptp'");
	expect_error("fn MPI_Send P2P blocking send\nend\n", 1,
		     "unknown kind 'P2P'");
	expect_error("fn MPI_Send p2p blocked send\nend\n", 1,
		     "unknown family 'blocked'");
	expect_error("fn MPI_Send p2p blocking sent\nend\n", 1,
		     "unknown bytes class 'sent'");
	expect_error("fn MPI_Send p2p blocking send big\nend\n", 1,
		     "unknown flag 'big'");
	expect_error(SEND_ENTRY "oops\n", 9, "expected 'fn', found 'oops'");
}

Test(tools_wrappers_def, rejects_duplicate_functions)
{
	expect_error(SEND_ENTRY "\n" SEND_ENTRY, 11,
		     "duplicate function 'MPI_Send'");
	/* the _c form of an entry clashes with an entry of that name */
	expect_error(SEND_ENTRY "fn MPI_Send_c p2p blocking send\nend\n", 9,
		     "duplicate function 'MPI_Send_c'");
}

Test(tools_wrappers_def, rejects_collective_without_comm)
{
	expect_error("fn MPI_Ibarrier coll nonblocking barrier\n"
		     "\t- MPI_Comm comm\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 1, "collective 'MPI_Ibarrier' has no comm role");
}

Test(tools_wrappers_def, rejects_c_form_without_counts)
{
	expect_error("\n\nfn MPI_Barrier_init coll persistent barrier large\n"
		     "\tcomm MPI_Comm comm\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 3,
		     "_c form requested for 'MPI_Barrier_init', which has no "
		     "POLYCOUNT or POLYDISP parameter");
	expect_error("fn MPI_Ssend p2p blocking send\n"
		     "\tsbuf const void *buf\n"
		     "\tscount POLYCOUNT count\n"
		     "end\n", 3,
		     "POLYCOUNT parameter 'count' in 'MPI_Ssend', which has "
		     "no _c form");
}

Test(tools_wrappers_def, rejects_blocking_collective_without_twin)
{
	expect_error("fn MPI_Barrier coll blocking barrier\n"
		     "\tcomm MPI_Comm comm\n"
		     "end\n", 1,
		     "blocking collective 'MPI_Barrier' has no twin");
	expect_error("fn MPI_Ibarrier coll nonblocking barrier "
		     "twin=MPI_Ibarrier\n"
		     "\tcomm MPI_Comm comm\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 1, "twin given for 'MPI_Ibarrier'");
}

Test(tools_wrappers_def, rejects_twin_that_does_not_match)
{
	/* the twin lacks the count of MPI_Bcast */
	expect_error("fn MPI_Bcast coll blocking bcast rooted "
		     "twin=MPI_Ibcast\n"
		     "\tbuf void *buffer\n"
		     "\tcount int count\n"
		     "\troot int root\n"
		     "\tcomm MPI_Comm comm\n"
		     "end\n"
		     "fn MPI_Ibcast coll nonblocking bcast rooted\n"
		     "\tbuf void *buffer\n"
		     "\troot int root\n"
		     "\tcomm MPI_Comm comm\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 1,
		     "twin 'MPI_Ibcast' does not take the parameters of "
		     "'MPI_Bcast' plus a request");
	/* a large entry needs a twin with a _c form */
	expect_error("fn MPI_Bcast coll blocking bcast large rooted "
		     "twin=MPI_Ibcast\n"
		     "\tbuf void *buffer\n"
		     "\tcount POLYCOUNT count\n"
		     "\troot int root\n"
		     "\tcomm MPI_Comm comm\n"
		     "end\n"
		     "fn MPI_Ibcast coll nonblocking bcast rooted\n"
		     "\tbuf void *buffer\n"
		     "\tcount int count\n"
		     "\troot int root\n"
		     "\tcomm MPI_Comm comm\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 1, "twin 'MPI_Ibcast' of 'MPI_Bcast' has no _c");
}

Test(tools_wrappers_def, rejects_role_on_wrong_type)
{
	/* MPI_Comm and int are the same type to the compiler in MPICH */
	expect_error("fn MPI_Probe p2p blocking none\n"
		     "\tpeer int source\n"
		     "\ttag int tag\n"
		     "\tcomm int comm\n"
		     "end\n", 4,
		     "role 'comm' needs type 'MPI_Comm', not 'int'");
	expect_error("fn MPI_Send p2p blocking send\n"
		     "\tsbuf void *buf\n"
		     "end\n", 2,
		     "role 'sbuf' needs type 'const void *', not 'void *'");
	expect_error("fn MPI_Waitall complete local none\n"
		     "\tnreq int count\n"
		     "\trequests MPI_Request *array_of_requests\n"
		     "end\n", 3, "role 'requests' needs type 'MPI_Request []'");
}

Test(tools_wrappers_def, rejects_duplicates_within_an_entry)
{
	expect_error("fn MPI_Sendrecv p2p blocking sendrecv\n"
		     "\tpeer int dest\n"
		     "\tpeer int source\n"
		     "end\n", 3, "duplicate role 'peer'");
	expect_error("fn MPI_Sendrecv p2p blocking sendrecv\n"
		     "\tpeer int dest\n"
		     "\t- int dest\n"
		     "end\n", 3, "duplicate parameter 'dest'");
	expect_error("fn MPI_Send p2p blocking send large large\n"
		     "end\n", 1, "duplicate flag 'large'");
}

Test(tools_wrappers_def, rejects_bad_declarations)
{
	expect_error("fn MPI_Send p2p blocking send\n"
		     "\t- int count[\n"
		     "end\n", 2, "bad parameter declaration 'int count['");
	expect_error("fn MPI_Send p2p blocking send\n"
		     "\t- int 2count\n"
		     "end\n", 2, "bad parameter declaration");
	expect_error("fn MPI_Send p2p blocking send\n"
		     "\tcomm MPI_Comm\n"
		     "end\n", 2, "missing parameter name in 'MPI_Comm'");
	expect_error("fn MPI_Send p2p blocking send\n"
		     "\tcomm\n"
		     "end\n", 2, "role 'comm' without a declaration");
	expect_error("fn MPI_Send p2p blocking send\n"
		     "\t- const POLYCOUNT POLYDISP x\n"
		     "end\n", 2, "two POLY types");
}

Test(tools_wrappers_def, rejects_bad_structure)
{
	expect_error("fn MPI_Send p2p blocking\nend\n", 1,
		     "expected 'fn NAME KIND FAMILY BYTES [FLAG...]'");
	expect_error("fn Send p2p blocking send\nend\n", 1,
		     "bad function name 'Send'");
	expect_error("fn MPI_Send p2p blocking send\n"
		     "fn MPI_Recv p2p blocking recv\n"
		     "end\n", 2, "'fn' inside entry 'MPI_Send'");
	expect_error(SEND_ENTRY "end\n", 9, "'end' outside an entry");
	expect_error(SEND_ENTRY "\nfn MPI_Recv p2p blocking recv\n", 10,
		     "entry 'MPI_Recv' has no 'end'");
	expect_error("fn MPI_Finalize finalize local none\nend now\n", 2,
		     "unexpected 'now' after 'end'");
	expect_error("# nothing here\n\n", 0, "no entries");
	expect_error("fn MPI_Send p2p blocking send twin=Isend\nend\n", 1,
		     "bad twin name 'Isend'");
}

Test(tools_wrappers_def, rejects_inconsistent_flags)
{
	expect_error("fn MPI_Barrier_init coll persistent barrier rooted\n"
		     "\tcomm MPI_Comm comm\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 1, "flag rooted on 'MPI_Barrier_init'");
	expect_error("fn MPI_Ibcast coll nonblocking bcast\n"
		     "\troot int root\n"
		     "\tcomm MPI_Comm comm\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 1, "'MPI_Ibcast' has a root role but no flag "
		     "rooted");
	expect_error("fn MPI_Start p2p local none snap\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 1, "flag snap on 'MPI_Start', which is not a "
		     "completion call");
	expect_error("fn MPI_Start complete local none snap\n"
		     "\t- MPI_Request *request\n"
		     "end\n", 1, "no request or requests role");
	expect_error("fn MPI_Request_free complete local none newest\n"
		     "\trequest MPI_Request *request\n"
		     "end\n", 1, "flag newest on 'MPI_Request_free', which "
		     "has no flag snap");
	expect_error("fn MPI_Waitall complete local none snap newest\n"
		     "\tnreq int count\n"
		     "\trequests MPI_Request array_of_requests[]\n"
		     "end\n", 1, "flag newest on 'MPI_Waitall'");
	expect_error("fn MPI_Waitall complete local none snap\n"
		     "\t- int count\n"
		     "\trequests MPI_Request array_of_requests[]\n"
		     "end\n", 1, "no nreq role");
	expect_error("fn MPI_Irecv p2p nonblocking recv\n"
		     "\trbuf void *buf\n"
		     "end\n", 1, "nonblocking 'MPI_Irecv' has no request role");
	expect_error("fn MPI_Send_init p2p persistent send\n"
		     "end\n", 1, "persistent 'MPI_Send_init' has no request");
	expect_error("fn MPI_Comm_dup comm blocking none\n"
		     "\tcomm MPI_Comm comm\n"
		     "\t- MPI_Comm *newcomm\n"
		     "end\n", 1, "communicator call 'MPI_Comm_dup' has no "
		     "newcomm or commp role");
	expect_error("fn MPI_Wait complete local none\n"
		     "\tcommp MPI_Comm *comm\n"
		     "end\n", 1, "role commp in 'MPI_Wait'");
}

/* Two 'mpi' blocks around the small def: what one MPI has otherwise. */
Test(tools_wrappers_def, reads_mpi_blocks)
{
	static const char text[] =
		"mpi mpich\n"
		"\tfortran libmpichfort libmpifort\n"
		"end\n"
		"mpi openmpi\n"
		"\tmarker ompi_mpi_comm_world\n"
		"\tfortran libmpi_mpifh\n"
		"\tpmpi all\n"
		"\tlarge none\n"
		"\theader mpi-ext.h\n"
		"\tlacks MPI_Ibarrier\n"
		"\tas MPI_Waitall MPIX_Waitall\n"
		"end\n";
	char *both = malloc(sizeof(text) + sizeof(small_def));
	const struct st_def_mpi *m;
	const struct st_def_fn *bcast, *ibarrier, *waitall;
	struct st_def def;

	cr_assert_not_null(both);
	memcpy(both, small_def, sizeof(small_def) - 1);
	memcpy(both + sizeof(small_def) - 1, text, sizeof(text));
	parse_ok(&def, both);
	cr_assert_eq(def.nmpis, 2);
	cr_expect_str_eq(def.mpis[0].name, "mpich");
	cr_expect_null(def.mpis[0].marker);
	cr_expect_eq(def.mpis[0].fortran.n, 2);
	cr_expect_eq(def.mpis[0].pmpi_all, 0);
	m = st_def_find_mpi(&def, "openmpi");
	cr_assert_not_null(m);
	cr_expect_null(st_def_find_mpi(&def, "lam"));
	cr_expect_str_eq(m->marker, "ompi_mpi_comm_world");
	cr_expect_eq(m->pmpi_all, 1);
	cr_expect_eq(m->no_large, 1);
	cr_expect_str_eq(m->headers.v[0], "mpi-ext.h");
	bcast = st_def_find(&def, "MPI_Bcast");
	ibarrier = st_def_find(&def, "MPI_Ibarrier");
	waitall = st_def_find(&def, "MPI_Waitall");
	cr_assert(bcast && ibarrier && waitall);
	cr_expect(st_def_mpi_has(m, bcast));
	cr_expect(!st_def_mpi_has(m, ibarrier));
	cr_expect(st_def_mpi_has(&def.mpis[0], ibarrier));
	cr_expect(st_def_mpi_has(NULL, ibarrier));
	cr_expect_str_eq(st_def_mpi_name(m, waitall), "MPIX_Waitall");
	cr_expect_str_eq(st_def_mpi_name(m, bcast), "MPI_Bcast");
	cr_expect_str_eq(st_def_mpi_name(&def.mpis[0], waitall),
			 "MPI_Waitall");
	st_def_release(&def);
	cr_expect_eq(def.nmpis, 0);
	free(both);
}

Test(tools_wrappers_def, rejects_bad_mpi_blocks)
{
	expect_error(SEND_ENTRY "mpi a\n\tlacks MPI_Recv\nend\n", 9,
		     "mpi a lacks 'MPI_Recv', which is no entry");
	expect_error(SEND_ENTRY "mpi a\n\tas MPI_Recv MPIX_Recv\nend\n", 9,
		     "renames 'MPI_Recv', which is no entry");
	expect_error(SEND_ENTRY "mpi a\n\tlacks MPI_Send\n"
		     "\tas MPI_Send MPIX_Send\nend\n", 9,
		     "both lacks and renames 'MPI_Send'");
	expect_error(SEND_ENTRY "mpi a\nend\nmpi a\nend\n", 11,
		     "duplicate mpi 'a'");
	expect_error(SEND_ENTRY "mpi a\n\tpmpi some\nend\n", 10,
		     "expected 'pmpi all'");
	expect_error(SEND_ENTRY "mpi a\n\tlarge no\nend\n", 10,
		     "expected 'large none'");
	expect_error(SEND_ENTRY "mpi a\n\tcolour blue\nend\n", 10,
		     "unknown mpi key 'colour'");
	expect_error(SEND_ENTRY "mpi a\n\tfortran libx\n", 9,
		     "mpi 'a' has no 'end'");
	expect_error(SEND_ENTRY "mpi\nend\n", 9, "expected 'mpi NAME'");
}

Test(tools_wrappers_def, untraced_lines_list_names_with_a_reason)
{
	struct st_def def;

	parse_ok(&def, SEND_ENTRY
		 "untraced query MPI_Comm_rank MPI_Comm_size  # local\n"
		 "untraced time MPI_Wtime\n");
	cr_assert_eq(def.nuntraced, 3);
	cr_expect_str_eq(def.untraced[0].name, "MPI_Comm_rank");
	cr_expect_str_eq(def.untraced[1].name, "MPI_Comm_size");
	cr_expect_str_eq(def.untraced[1].reason, "query");
	cr_expect_eq(def.untraced[1].line, 9);
	cr_expect_str_eq(def.untraced[2].reason, "time");
	cr_expect_eq(def.nfns, 1);
	st_def_release(&def);
	cr_expect_eq(def.nuntraced, 0);
	cr_expect_null(def.untraced);
	cr_expect(st_def_reason_ok("datatype"));
	cr_expect_not(st_def_reason_ok("boring"));
}

Test(tools_wrappers_def, rejects_bad_untraced_lines)
{
	expect_error("untraced query\n", 1, "expected 'untraced REASON "
		     "NAME...'");
	expect_error("untraced boring MPI_Comm_rank\n", 1,
		     "unknown reason 'boring'");
	expect_error("untraced query MPI_Comm_rank Comm_size\n", 1,
		     "bad function name 'Comm_size'");
	expect_error("untraced query MPI_Comm_rank\n"
		     "untraced time MPI_Comm_rank\n", 2,
		     "'MPI_Comm_rank' is already untraced (line 1)");
	/* Neither form of a wrapped function may be untraced. */
	expect_error(SEND_ENTRY "untraced query MPI_Send_c\n", 9,
		     "'MPI_Send_c' is both wrapped (line 2) and untraced");
	expect_error("untraced query MPI_Send\n" SEND_ENTRY, 1,
		     "'MPI_Send' is both wrapped (line 3) and untraced");
	/* Inside an entry it is a parameter with an unknown role. */
	expect_error("fn MPI_Barrier coll blocking barrier twin=MPI_Ibarrier\n"
		     "untraced query MPI_Comm_rank\nend\n", 2,
		     "unknown role 'untraced'");
}

Test(tools_wrappers_def, variadic_function_ends_in_dots)
{
	struct st_def def;
	const struct st_def_fn *fn;

	parse_ok(&def, "fn MPI_Pcontrol phase local none f08\n"
		 "\tlevel const int level\n"
		 "\t- ...\n"
		 "end\n");
	fn = &def.fns[0];
	cr_assert_eq(fn->nparams, 2);
	cr_expect_eq(fn->params[0].role, ST_ROLE_LEVEL);
	cr_expect_str_eq(fn->params[0].decl[0], "const int level");
	cr_expect(fn->params[1].varargs);
	cr_expect_not(fn->params[0].varargs);
	cr_expect_str_eq(fn->params[1].decl[0], "...");
	st_def_release(&def);
	expect_error("fn MPI_Pcontrol phase local none\n"
		     "\tlevel const int level\n"
		     "\tlevel ...\n"
		     "end\n", 3, "'...' in 'MPI_Pcontrol' has a role");
	expect_error("fn MPI_Pcontrol phase local none\n"
		     "\t- ...\n"
		     "\tlevel const int level\n"
		     "end\n", 3, "parameter after '...' in 'MPI_Pcontrol'");
}

/* A window entry's lines, its header given. */
#define PUT_BODY                                                            \
	"\tsbuf const void *origin_addr\n"                                  \
	"\tscount int origin_count\n"                                       \
	"\tstype MPI_Datatype origin_datatype\n"                            \
	"\tpeer int target_rank\n"                                          \
	"\toffset MPI_Aint target_disp\n"                                   \
	"\twin MPI_Win win\n"                                               \
	"end\n"

Test(tools_wrappers_def, one_sided_and_io_flags)
{
	struct st_def def;

	parse_ok(&def, "fn MPI_Put rma epoch put target offset\n" PUT_BODY
		 "fn MPI_File_close file blocking none collective\n"
		 "\tfilep MPI_File *fh\n"
		 "end\n");
	cr_expect_eq(def.fns[0].kind, ST_KIND_RMA);
	cr_expect_eq(def.fns[0].family, ST_FAM_EPOCH);
	cr_expect_eq(def.fns[0].bytes, ST_BYTES_PUT);
	cr_expect_eq(def.fns[0].flags, ST_DEF_TARGET | ST_DEF_OFFSET);
	cr_expect_eq(def.fns[0].params[4].role, ST_ROLE_OFFSET);
	cr_expect_eq(def.fns[1].flags, ST_DEF_COLLECTIVE);
	st_def_release(&def);
	expect_error("fn MPI_Put rma epoch put offset\n" PUT_BODY, 1,
		     "one-sided 'MPI_Put' has a peer role but no flag target");
	expect_error("fn MPI_Put rma epoch put target\n" PUT_BODY, 1,
		     "'MPI_Put' has an offset role but no flag offset");
	expect_error("fn MPI_Win_sync rma blocking none target\n"
		     "\twin MPI_Win win\nend\n", 1,
		     "flag target on 'MPI_Win_sync'");
	expect_error("fn MPI_Win_sync rma blocking none\nend\n", 1,
		     "one-sided call 'MPI_Win_sync' has no win role");
	expect_error("fn MPI_Send p2p epoch send\nend\n", 1,
		     "family epoch for 'MPI_Send'");
	expect_error("fn MPI_File_sync io blocking none\nend\n", 1,
		     "file call 'MPI_File_sync' has no file role");
	expect_error("fn MPI_Send p2p split send\nend\n", 1,
		     "family split for 'MPI_Send'");
	expect_error("fn MPI_Barrier_init coll persistent barrier "
		     "collective\n"
		     "\tcomm MPI_Comm comm\n"
		     "\trequest MPI_Request *request\nend\n", 1,
		     "flag collective on 'MPI_Barrier_init'");
	expect_error("fn MPI_Win_free win blocking none\n"
		     "\twin MPI_Win win\nend\n", 1,
		     "window call 'MPI_Win_free' has no newwin or winp role");
	expect_error("fn MPI_Win_create_dynamic win blocking none\n"
		     "\tnewwin MPI_Win *win\nend\n", 1,
		     "window constructor 'MPI_Win_create_dynamic' has no comm");
	expect_error("fn MPI_Wait complete local none\n"
		     "\twinp MPI_Win *win\nend\n", 1,
		     "role winp in 'MPI_Wait', which is not of kind win");
}

Test(tools_wrappers_def, session_outside_and_nostatus_flags)
{
	expect_error("fn MPI_Barrier coll blocking barrier session "
		     "twin=MPI_Ibarrier\n"
		     "\tcomm MPI_Comm comm\nend\n", 1,
		     "flag session on 'MPI_Barrier'");
	expect_error("fn MPI_Session_init init local none\n"
		     "\tsession MPI_Session *session\nend\n", 1,
		     "role session in 'MPI_Session_init', which has no flag "
		     "session");
	expect_error("fn MPI_Comm_free comm local none outside\n"
		     "\tcommp MPI_Comm *comm\nend\n", 1,
		     "flag outside on 'MPI_Comm_free'");
	expect_error("fn MPI_Send p2p blocking send nostatus\nend\n", 1,
		     "flag nostatus on 'MPI_Send'");
	expect_error("fn MPI_Comm_free comm local none subgroup\n"
		     "\tcommp MPI_Comm *comm\nend\n", 1,
		     "flag subgroup on 'MPI_Comm_free'");
	expect_error("fn MPI_Pready part local pready\n"
		     "\tpartition int partition\nend\n", 1,
		     "partition call 'MPI_Pready' has no req role");
}
