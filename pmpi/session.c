/*
 * pmpi/session.c: MPI Sessions.  A program that initialises MPI only
 * through Sessions has no MPI_COMM_WORLD, so the first MPI_Session_init
 * makes synctrace a session of its own and a communicator over its
 * "mpi://WORLD" process set, which stands in for MPI_COMM_WORLD
 * (st_world) while pmpi/runtime.c starts tracing as at MPI_Init; the
 * MPI_Session_finalize of the application's last open session ends it
 * as MPI_Finalize does, and frees both, unless the application called
 * MPI_Init meanwhile: then the later of its MPI_Finalize and that last
 * session's finalize ends it (synctrace's own session keeps st_world
 * usable till then).  Tracing started by MPI_Init is ended by
 * MPI_Finalize whatever sessions do; any init or finalize call that
 * neither starts nor ends tracing is only recorded.
 *
 * Making the communicator is collective over the processes of
 * mpi://WORLD: every process of the job must call MPI_Session_init
 * (as every process must call MPI_Init), or the first call waits.
 */
#include <string.h>

#include "gen/ops.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"

MPI_Comm st_world = MPI_COMM_WORLD;

static int started;		/* 0 no, 1 by MPI_Init, 2 by a session */
static int nsessions;		/* the application's open sessions */
static int level;		/* the thread level of the first session */
static int world;		/* MPI_Init ran after 'started' = 2, and
				   MPI_Finalize has not yet */
static MPI_Session own = MPI_SESSION_NULL;

static int is_init(int fn)
{
	return st_fn_info[fn].kind == ST_KIND_INIT;
}

static int is_session(int fn)
{
	return (st_fn_info[fn].flags & ST_FNF_SESSION) != 0;
}

int st_session_pre(struct st_call *c, int fn, void *ra)
{
	c->plain = 0;
	if (!started)
		return 0;
	if (!is_init(fn) && started == 1 && !is_session(fn))
		return 0;	/* MPI_Finalize after MPI_Init */
	if (!is_init(fn) && started == 2 && is_session(fn) && nsessions == 1 &&
	    !world)
		return 0;	/* the last session's finalize */
	if (!is_init(fn) && started == 2 && !is_session(fn) && world &&
	    !nsessions)
		return 0;	/* MPI_Finalize after the last session's */
	c->plain = st_enter(c, fn, ra) ? 1 : 2;
	return 1;
}

#if ST_HAVE_SESSIONS
/* The thread level the application asked its first session for. */
static int session_level(MPI_Session s)
{
	MPI_Info info = MPI_INFO_NULL;
	char buf[64] = "";
	int len = (int)sizeof(buf) - 1, flag = 0;

	if (PMPI_Session_get_info(s, &info) != MPI_SUCCESS)
		return MPI_THREAD_SINGLE;
	PMPI_Info_get_string(info, "thread_level", &len, buf, &flag);
	PMPI_Info_free(&info);
	if (!flag)
		return MPI_THREAD_SINGLE;
	if (!strcmp(buf, "MPI_THREAD_MULTIPLE"))
		return MPI_THREAD_MULTIPLE;
	if (!strcmp(buf, "MPI_THREAD_SERIALIZED"))
		return MPI_THREAD_SERIALIZED;
	if (!strcmp(buf, "MPI_THREAD_FUNNELED"))
		return MPI_THREAD_FUNNELED;
	return MPI_THREAD_SINGLE;
}

/* synctrace's own session and its stand-in for MPI_COMM_WORLD; 0 or -1. */
static int make_world(void)
{
	MPI_Group g = MPI_GROUP_NULL;
	int rc;

	if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &own) !=
	    MPI_SUCCESS) {
		own = MPI_SESSION_NULL;
		return -1;
	}
	rc = PMPI_Group_from_session_pset(own, "mpi://WORLD", &g);
	if (rc == MPI_SUCCESS)
		rc = PMPI_Comm_create_from_group(g, "org.synctrace.world",
						 MPI_INFO_NULL,
						 MPI_ERRORS_RETURN, &st_world);
	if (g != MPI_GROUP_NULL)
		PMPI_Group_free(&g);
	if (rc != MPI_SUCCESS) {
		st_world = MPI_COMM_WORLD;
		PMPI_Session_finalize(&own);
		own = MPI_SESSION_NULL;
		return -1;
	}
	return 0;
}
#else
/*
 * An MPI without Sessions (Open MPI 4, pmpi/abi.h): no session call is
 * wrapped, so none reaches these.
 */
static int session_level(MPI_Session s)
{
	(void)s;
	return MPI_THREAD_SINGLE;
}

static int make_world(void)
{
	return -1;
}
#endif

int st_session_post(struct st_call *c, int rc)
{
	struct st_event ev;
	int fn = c->fn;

	if (c->plain) {
		if (rc == MPI_SUCCESS && is_session(fn))
			nsessions += is_init(fn) ? 1 : -1;
		else if (rc == MPI_SUCCESS && started == 2)
			world = is_init(fn);
		if (c->plain == 2)
			return 1;
		st_event_clear(&ev);
		ev.kind = ST_REC_CALL;
		ev.fn = (uint16_t)fn;
		ev.rc = rc;
		ev.t0 = st_clock_ns(c->t0);
		ev.t1 = st_clock_ns(c->t1);
		ev.site = st_site_get(c->ra);
		st_emit(&ev);
		st_tls.guard = 0;
		return 1;
	}
	if (!is_init(fn)) {
		if (rc == MPI_SUCCESS && is_session(fn))
			nsessions--;
		/* In case st_finalize_pre() returned early. */
		st_session_end();
		return 0;
	}
	if (rc != MPI_SUCCESS)
		return 0;
	if (!is_session(fn)) {
		started = 1;
		return 0;
	}
	started = 2;
	nsessions = 1;
	level = c->a.session ? session_level(*c->a.session) : MPI_THREAD_SINGLE;
	c->a.provided = &level;
	if (make_world()) {
		st_disable("cannot make a communicator over the Sessions "
			   "process set mpi://WORLD");
		st_tls.guard = 0;
		return 1;
	}
	return 0;
}

void st_session_end(void)
{
	if (started != 2 || own == MPI_SESSION_NULL)
		return;
	if (st_world != MPI_COMM_WORLD)
		PMPI_Comm_free(&st_world);
	st_world = MPI_COMM_WORLD;
#if ST_HAVE_SESSIONS
	PMPI_Session_finalize(&own);
#endif
	own = MPI_SESSION_NULL;
}
