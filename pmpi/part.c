/*
 * pmpi/part.c: partitioned point-to-point.  Psend_init and Precv_init
 * are persistent point-to-point calls (pmpi/call.c) whose request
 * remembers its partitions; Pready, Pready_range and Pready_list record
 * the bytes of the partitions they make ready, a Parrived that finds
 * its partition the bytes of that one, each with the request's
 * communicator, peer, tag and id, so the tools can tie partitions to
 * the instance started last.  A Parrived that finds nothing is polling,
 * not a record.
 */
#include "gen/ops.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"

void st_leave_part(struct st_call *c, const struct st_fn_info *fi,
		   struct st_event *ev, int rc)
{
	const struct st_args *a = &c->a;
	uint64_t pbytes = 0, n = 1;
	struct st_req r;

	if (a->flag && !*a->flag && rc == MPI_SUCCESS) {
		st_site_get(c->ra);
		return;
	}
	if (st_req_find(a->req, &r)) {
		ev->comm = r.comm;
		ev->comm_size = r.comm_size;
		ev->peer = r.peer;
		ev->tag = r.tag;
		ev->req = r.id;
		ev->inst = r.inst;
		if (r.parts)
			pbytes = (r.sbytes + r.rbytes) / r.parts;
	}
	if (a->partlist) {		/* Pready_list */
		n = a->partitions > 0 ? (uint64_t)a->partitions : 0;
		ev->arg = n ? a->partlist[0] : 0;
	} else {
		ev->arg = a->partition;
		if (fi->bytes == ST_BYTES_PREADY &&
		    a->partition2 >= a->partition)
			n = (uint64_t)(a->partition2 - a->partition) + 1;
	}
	ev->tsize = (uint32_t)pbytes;
	if (rc == MPI_SUCCESS) {
		if (fi->bytes == ST_BYTES_PREADY)
			ev->sbytes = n * pbytes;
		else
			ev->rbytes = pbytes;
	}
	st_emit(ev);
}
