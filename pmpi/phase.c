/*
 * pmpi/phase.c: MPI_Pcontrol, the phase marker of profiling tools (as
 * mpiP users use it): a record of its own with the level in 'arg'.
 */
#include "pmpi/hooks.h"
#include "pmpi/internal.h"

void st_leave_phase(struct st_call *c, const struct st_fn_info *fi,
		    struct st_event *ev, int rc)
{
	(void)fi;
	(void)rc;
	ev->arg = c->a.level;
	st_emit(ev);
}
