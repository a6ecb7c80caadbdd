/*
 * pmpi/comm.c: communicator ids that are equal on every member rank, so a
 * collective instance (id, sequence number) matches across rank files.
 *
 * The id of a communicator is (world rank of its leader + 1) << 32 | (a
 * value the leader drew from its own counter), never 0.  The leader is local rank 0 (for
 * an inter-communicator, the lower world rank of the two groups' rank 0);
 * it tells the others with one allreduce over the new communicator right
 * after the constructor returns, when every member is there anyway.  Ids
 * are unique because a leader never draws the same value twice.
 * MPI_COMM_WORLD is 1 << 32, MPI_COMM_SELF is (world rank + 1) << 32 | 1;
 * ids made without agreement (a point-to-point call on a communicator
 * synctrace did not see created) have bit 63 set and are rank-local.
 *
 * MPI_Comm_idup's communicator cannot carry an agreement before its
 * request completes, and waiting there for the other members could
 * deadlock a program that completes it later (after a message that
 * one of them sends first).  Its id is instead a hash of the parent's
 * id and the idup's sequence number on the parent, which every member
 * computes alike; bit 62 marks it (st_comm_register_dup()).
 *
 * Windows and open files take their ids from the same counter, agreed
 * over the communicator they were made on (st_comm_agree_id()), as do
 * the inter-communicators of spawn, accept, connect and join (flagged
 * outside in wrappers.def): their remote group may be processes that
 * synctrace does not trace, which would never join an allreduce over
 * the new communicator, so each side agrees within its own group.
 *
 * The table maps handles to entries with open addressing; lookups take no
 * lock (the handle is published last, with release order), inserts and
 * removals take 'lock'.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gen/ops.h"
#include "pmpi/hooks.h"
#include "pmpi/abi.h"
#include "pmpi/internal.h"

#define CAP 8192	/* power of two */
#define FREE 0		/* MPI_COMM_NULL is never stored, see key() */
#define TOMB 1

static struct st_comm_entry table[CAP];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint_fast32_t next_value = 2;
static atomic_uint_fast32_t next_local = 1;
atomic_uint st_comm_gen;

/* Handles are stored +2 so that 0 and 1 can mark free and dead slots. */
static uint64_t key(MPI_Comm c)
{
	return ST_HANDLE_KEY(c) + 2u;
}

static unsigned slot(MPI_Comm c)
{
	return (unsigned)((ST_HANDLE_KEY(c) * 0x9e3779b97f4a7c15ull) >>
			  (64 - 13));
}

static struct st_comm_entry *lookup(MPI_Comm c)
{
	unsigned i = slot(c), n;
	uint64_t k = key(c);

	for (n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		uint64_t h = atomic_load_explicit(&table[i].handle,
					     memory_order_acquire);

		if (h == k)
			return &table[i];
		if (h == FREE)
			return NULL;
	}
	return NULL;
}

/* Insert or overwrite the entry of 'c' with 'e' (handle ignored). */
static struct st_comm_entry *insert(MPI_Comm c, const struct st_comm_entry *e)
{
	struct st_comm_entry *t = NULL;
	unsigned i = slot(c), n;
	uint64_t k = key(c);

	pthread_mutex_lock(&lock);
	for (n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		uint64_t h = atomic_load_explicit(&table[i].handle,
					     memory_order_relaxed);

		if (h == k) {
			t = &table[i];
			break;
		}
		if (!t && h == TOMB)
			t = &table[i];
		if (h == FREE) {
			if (!t)
				t = &table[i];
			break;
		}
	}
	if (t) {
		atomic_fetch_add(&st_comm_gen, 1);
		atomic_store_explicit(&t->handle, TOMB, memory_order_relaxed);
		t->id = e->id;
		t->size = e->size;
		t->rank = e->rank;
		t->remote_size = e->remote_size;
		t->indeg = t->outdeg = -1;
		atomic_store_explicit(&t->seq, 0, memory_order_relaxed);
		atomic_store_explicit(&t->handle, k, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
	return t;
}

struct st_comm_entry *st_comm_find(MPI_Comm c)
{
	return lookup(c);
}

void st_comm_forget(MPI_Comm c)
{
	struct st_comm_entry *e;

	pthread_mutex_lock(&lock);
	e = lookup(c);
	if (e) {
		atomic_fetch_add(&st_comm_gen, 1);
		atomic_store_explicit(&e->handle, TOMB, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
}

/* Local facts of 'c': size, rank, remote size. */
static void describe(MPI_Comm c, struct st_comm_entry *e)
{
	int inter = 0;

	PMPI_Comm_size(c, &e->size);
	PMPI_Comm_rank(c, &e->rank);
	PMPI_Comm_test_inter(c, &inter);
	e->remote_size = 0;
	if (inter)
		PMPI_Comm_remote_size(c, &e->remote_size);
}

/*
 * Agree on the id of 'c' (collective over 'c').  Returns 0 or the MPI
 * error of the allreduce, in which case the id is rank-local.
 */
static int agree(MPI_Comm c, struct st_comm_entry *e)
{
	long mine[2] = { -1, -1 }, got[2], back[2];
	int rc;

	if (e->rank == 0) {
		mine[0] = st_rank;
		mine[1] = (long)atomic_fetch_add(&next_value, 1);
	}
	/* On an intra-communicator MAX yields the leader's pair. */
	rc = PMPI_Allreduce(mine, got, 2, MPI_LONG, MPI_MAX, c);
	if (rc != MPI_SUCCESS)
		return rc;
	if (e->remote_size) {
		/*
		 * On an inter-communicator each side gets the other's leader;
		 * a second round hands each side its own leader back.
		 */
		rc = PMPI_Allreduce(got, back, 2, MPI_LONG, MPI_MAX, c);
		if (rc != MPI_SUCCESS)
			return rc;
		if (back[0] < got[0]) {
			got[0] = back[0];
			got[1] = back[1];
		}
	}
	e->id = (uint64_t)(got[0] + 1) << 32 | (uint32_t)got[1];
	return MPI_SUCCESS;
}

static uint64_t local_id(void)
{
	return 1ull << 63 | (uint64_t)(st_rank + 1) << 32 |
	       (uint32_t)atomic_fetch_add(&next_local, 1);
}

static void emit_comm(const struct st_comm_entry *e, uint64_t parent, int fn,
		      uint64_t t0, uint64_t t1)
{
	struct st_event ev;

	st_event_clear(&ev);
	ev.kind = ST_REC_COMM;
	ev.fn = (uint16_t)fn;
	ev.t0 = st_clock_ns(t0);
	ev.t1 = st_clock_ns(t1);
	ev.comm = e->id;
	ev.comm_size = (uint32_t)e->size;
	ev.rank = e->rank;
	ev.remote_size = (uint32_t)e->remote_size;
	ev.parent = parent;
	st_emit(&ev);
}

uint64_t st_comm_agree_id(MPI_Comm over)
{
	struct st_comm_entry e;
	int inter = 0;

	/* A group of one, the caller: its own next value. */
	if (over == MPI_COMM_NULL)
		return (uint64_t)(st_rank + 1) << 32 |
		       (uint32_t)atomic_fetch_add(&next_value, 1);
	if (PMPI_Comm_test_inter(over, &inter) != MPI_SUCCESS || inter)
		return local_id();
	memset(&e, 0, sizeof(e));
	describe(over, &e);
	if (agree(over, &e) != MPI_SUCCESS)
		return local_id();
	return e.id;
}

/*
 * Non-zero when every process of the remote group of inter-communicator
 * 'c' is a process of this job (in st_comm's group), so that each will
 * join an agreement over 'c'.
 */
static int remote_in_job(MPI_Comm c)
{
	MPI_Group remote = MPI_GROUP_NULL, job = MPI_GROUP_NULL;
	int n = 0, i, ok = 0, *in = NULL, *out = NULL;

	if (st_comm == MPI_COMM_NULL ||
	    PMPI_Comm_remote_group(c, &remote) != MPI_SUCCESS ||
	    PMPI_Comm_group(st_comm, &job) != MPI_SUCCESS ||
	    PMPI_Group_size(remote, &n) != MPI_SUCCESS || n <= 0)
		goto out;
	in = malloc(2 * (size_t)n * sizeof(*in));
	if (!in)
		goto out;
	out = in + n;
	for (i = 0; i < n; i++)
		in[i] = i;
	if (PMPI_Group_translate_ranks(remote, n, in, job, out) != MPI_SUCCESS)
		goto out;
	for (ok = 1, i = 0; i < n; i++)
		if (out[i] == MPI_UNDEFINED)
			ok = 0;
out:
	free(in);
	if (remote != MPI_GROUP_NULL)
		PMPI_Group_free(&remote);
	if (job != MPI_GROUP_NULL)
		PMPI_Group_free(&job);
	return ok;
}

void st_comm_register(MPI_Comm c, MPI_Comm parent, int fn, uint64_t t0,
		      uint64_t t1)
{
	struct st_comm_entry e, *p, *t;
	uint64_t pid = 0;

	if (c == MPI_COMM_NULL)
		return;
	memset(&e, 0, sizeof(e));
	describe(c, &e);
	if (fn > 0 && fn < ST_FN_COUNT &&
	    (st_fn_info[fn].flags & ST_FNF_OUTSIDE))
		e.id = st_comm_agree_id(parent);
	else if (agree(c, &e) != MPI_SUCCESS)
		e.id = local_id();
	if (parent != MPI_COMM_NULL && (p = lookup(parent)))
		pid = p->id;
	t = insert(c, &e);
	if (!t) {
		st_disable("BUG: communicator table full (%d entries)", CAP);
		return;
	}
	emit_comm(t, pid, fn, t0, t1);
}

/*
 * The id of the communicator that the call numbered 'seq' on the
 * communicator of id 'parent_id' made, the same on every member and
 * computed without a message.  Bit 62 marks such ids (leaders' world
 * ranks stay below 2^30, so agreed ids never have it); a rank-local
 * parent (bit 63) gives a rank-local id.  Two of n such ids coincide
 * with a probability of about n^2 / 2^63.
 */
static uint64_t derived_id(uint64_t parent_id, uint64_t seq)
{
	uint64_t x = parent_id * 0x9e3779b97f4a7c15ull + seq;

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (parent_id & 1ull << 63) | 1ull << 62 |
	       (x & ((1ull << 62) - 1));
}

void st_comm_register_dup(MPI_Comm c, const struct st_comm_entry *parent,
			  uint64_t seq, int fn, uint64_t t0, uint64_t t1)
{
	struct st_comm_entry e, *t;

	if (c == MPI_COMM_NULL)
		return;
	memset(&e, 0, sizeof(e));
	e.id = derived_id(parent->id, seq);
	/* A duplicate keeps its parent's groups and this rank's rank. */
	e.size = parent->size;
	e.rank = parent->rank;
	e.remote_size = parent->remote_size;
	t = insert(c, &e);
	if (!t) {
		st_disable("BUG: communicator table full (%d entries)", CAP);
		return;
	}
	emit_comm(t, parent->id, fn, t0, t1);
}

struct st_comm_entry *st_comm_get(MPI_Comm c, int collective)
{
	struct st_comm_entry *e = lookup(c), n, *t;
	uint64_t now;

	if (e)
		return e;
	if (c == MPI_COMM_NULL)
		return NULL;
	memset(&n, 0, sizeof(n));
	describe(c, &n);
	/*
	 * An inter-communicator synctrace did not see made (a spawned
	 * process's parent, say) may lead to processes that are not traced.
	 */
	if (!collective || (n.remote_size && !remote_in_job(c)) ||
	    agree(c, &n) != MPI_SUCCESS)
		n.id = local_id();
	t = insert(c, &n);
	if (t) {
		now = st_now();
		emit_comm(t, 0, ST_FN_NONE, now, now);
	}
	return t;
}

void st_comm_init(void)
{
	struct st_comm_entry e, *t;
	uint64_t now = st_now();

	/* Under Sessions alone neither exists. */
	if (st_world != MPI_COMM_WORLD)
		return;
	memset(&e, 0, sizeof(e));
	describe(MPI_COMM_WORLD, &e);
	e.id = 1ull << 32;
	if ((t = insert(MPI_COMM_WORLD, &e)))
		emit_comm(t, 0, ST_FN_NONE, now, now);
	describe(MPI_COMM_SELF, &e);
	e.id = (uint64_t)(st_rank + 1) << 32 | 1;
	if ((t = insert(MPI_COMM_SELF, &e)))
		emit_comm(t, 0, ST_FN_NONE, now, now);
}

void st_comm_degrees(struct st_comm_entry *e, MPI_Comm c)
{
	int topo = MPI_UNDEFINED, in = 0, out = 0, w, nd, d, src, dst;

	if (e->indeg >= 0)
		return;
	PMPI_Topo_test(c, &topo);
	if (topo == MPI_CART) {
		PMPI_Cartdim_get(c, &nd);
		for (d = 0; d < nd; d++) {
			PMPI_Cart_shift(c, d, 1, &src, &dst);
			in += (src != MPI_PROC_NULL) + (dst != MPI_PROC_NULL);
		}
		out = in;
	} else if (topo == MPI_GRAPH) {
		PMPI_Graph_neighbors_count(c, e->rank, &in);
		out = in;
	} else if (topo == MPI_DIST_GRAPH) {
		PMPI_Dist_graph_neighbors_count(c, &in, &out, &w);
	}
	e->outdeg = out;
	e->indeg = in;
}
