/*
 * pmpi/request.c: requests of nonblocking and persistent operations, so a
 * Wait or Test that completes one can be tied to the call that started it.
 * Keyed by handle with open addressing; 'lock' is taken only when the
 * application asked for MPI_THREAD_MULTIPLE.  A full table leaves new
 * requests untracked (their calls are still recorded, their completion
 * is not attributed).
 *
 * MPICH gives every operation that completed at once the same builtin
 * handle (0x6c000001 for a send, for instance), Open MPI the one
 * ompi_request_empty (pmpi/abi.h, st_req_shared()), so those handles are
 * not unique.  Those requests are indistinguishable to MPI, so they live
 * in a FIFO instead: a Wait or Test takes the oldest one with its
 * handle, and several in one array take them in order.
 */
#include <pthread.h>
#include <string.h>

#include "pmpi/abi.h"
#include "pmpi/internal.h"

#define CAP 32768	/* power of two; at most CAP/2 requests in flight */

static struct st_req_slot table[CAP];

#define RING 16384	/* power of two: builtin-handle requests in flight */
static struct st_req_slot ring[RING];
static uint64_t head, tail;	/* ring[head % RING] is the oldest */

static int builtin(MPI_Request h)
{
	return st_req_shared(h);
}

/* The first live ring entry with handle 'h' from position 'from' on. */
static uint64_t ring_next(MPI_Request h, uint64_t from)
{
	uint64_t i;

	for (i = from < head ? head : from; i < tail; i++)
		if (ring[i & (RING - 1)].state == 2 &&
		    ring[i & (RING - 1)].h == h)
			return i;
	return tail;
}

/*
 * Entry 's' of the ring taken: the oldest live entry is the head.  An
 * empty ring starts again at its first entry, so a loop whose requests
 * complete at once reuses the same few entries, which stay in cache,
 * rather than writing its way through all of the ring's.  No entry is
 * live then, so no snapshot's position can name one.
 */
void st_req_ring_drop(struct st_req_slot *s)
{
	uint64_t i = head;

	s->state = 1;
	while (i < tail && ring[i & (RING - 1)].state != 2)
		i++;
	head = i;
	if (i == tail)
		head = tail = 0;
}

unsigned st_req_live, st_req_dead;
static uint64_t next_id = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void acquire(void)
{
	if (st_mt)
		pthread_mutex_lock(&lock);
}

static void release(void)
{
	if (st_mt)
		pthread_mutex_unlock(&lock);
}

static unsigned hash(MPI_Request h)
{
	return (unsigned)((ST_HANDLE_KEY(h) * 0x9e3779b97f4a7c15ull) >> (64 - 15));
}

static struct st_req_slot *find(MPI_Request h)
{
	unsigned i = hash(h), n;

	for (n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		if (table[i].state == 2 && table[i].h == h)
			return &table[i];
		if (table[i].state == 0)
			return NULL;
	}
	return NULL;
}

/* 'r', a new request of handle 'h', takes slot 's': its id. */
static inline __attribute__((always_inline)) uint64_t
take_slot(struct st_req_slot *s, MPI_Request h, struct st_req *r)
{
	uint64_t id = next_id++;

	r->id = id;
	r->inst = 0;
	s->state = 2;
	s->h = h;
	s->r = *r;
	return id;
}

/* 'r', a new request of builtin handle 'h', joins the ring (with room). */
static inline __attribute__((always_inline)) uint64_t
ring_push(MPI_Request h, struct st_req *r)
{
	return take_slot(&ring[tail++ & (RING - 1)], h, r);
}

static __attribute__((noinline)) uint64_t add_slow(MPI_Request h,
						   struct st_req *r)
{
	struct st_req_slot *s, *free_slot = NULL;
	unsigned i, n;
	uint64_t id = 0;

	acquire();
	if (builtin(h) && !r->persistent) {
		if (tail - head < RING)
			id = ring_push(h, r);
		release();
		return id;
	}
	/* Once empty, forget many dead slots so probes stay short. */
	if (!st_req_live && st_req_dead > CAP / 4) {
		memset(table, 0, sizeof(table));
		st_req_dead = 0;
	}
	/*
	 * One probe: the first slot not live is where the request goes,
	 * unless a stale entry of the handle (reused by MPI) is found
	 * before the probe ends, which is dropped and taken instead.
	 */
	for (i = hash(h), n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		s = &table[i];
		if (s->state == 2) {
			if (s->h != h)
				continue;
			st_req_drop(s);
			free_slot = s;
			break;
		}
		if (!free_slot)
			free_slot = s;
		if (s->state == 0)
			break;
	}
	if (free_slot && st_req_live >= CAP / 2)
		free_slot = NULL;
	if (free_slot) {
		if (free_slot->state == 1)
			st_req_dead--;
		id = take_slot(free_slot, h, r);
		st_req_live++;
	}
	release();
	return id;
}

/*
 * The common case without MPI_THREAD_MULTIPLE, in a leaf function: a
 * builtin handle's request joins the ring; any other goes to its
 * handle's first slot when that is free, or dead with a free one after
 * it (no stale entry of the handle can be further on), which is how a
 * loop that reuses its handles finds it.  Else add_slow(), which
 * probes.
 */
uint64_t st_req_add(MPI_Request h, struct st_req *r)
{
	struct st_req_slot *s;
	unsigned i;

	if (h == MPI_REQUEST_NULL)
		return 0;
	if (__builtin_expect(st_mt, 0))
		return add_slow(h, r);
	if (builtin(h)) {
		if (r->persistent || tail - head >= RING)
			return add_slow(h, r);
		return ring_push(h, r);
	}
	if (st_req_live >= CAP / 2 || (!st_req_live && st_req_dead > CAP / 4))
		return add_slow(h, r);
	i = hash(h);
	s = &table[i];
	if (s->state == 1) {
		if (table[(i + 1) & (CAP - 1)].state != 0)
			return add_slow(h, r);
		st_req_dead--;
	} else if (s->state != 0) {
		return add_slow(h, r);
	}
	st_req_live++;
	return take_slot(s, h, r);
}

/* One request of st_req_snapshot(), not of the ring. */
static inline __attribute__((always_inline)) int
snap_one(MPI_Request h, uint64_t *snap)
{
	struct st_req_slot *s = find(h);

	if (!s) {
		snap[0] = snap[1] = 0;
		return 0;
	}
	snap[0] = (uint64_t)(uintptr_t)s;
	snap[1] = s->r.id;
	return s->r.recv;
}

/*
 * The request of the ring at 'at' (from ring_next(); tail: none) in
 * 'snap', as snap_one() for the table.
 */
static inline __attribute__((always_inline)) int
snap_ring(uint64_t at, uint64_t *snap)
{
	struct st_req_slot *s = &ring[at & (RING - 1)];

	if (at == tail) {
		snap[0] = snap[1] = 0;
		return 0;
	}
	snap[0] = (uint64_t)(uintptr_t)s | ST_REQ_AT_RING;
	snap[1] = s->r.id;
	return s->r.recv;
}

static __attribute__((noinline)) int snapshot(const MPI_Request *reqs,
					       int n, uint64_t *snap)
{
	/* Where the last match of each builtin handle was, in this array. */
	MPI_Request seen_h[8];
	uint64_t seen_at[8];
	int nseen = 0, recv = 0, i, j;

	for (i = 0; i < n; i++) {
		MPI_Request h = reqs[i];
		uint64_t from = head, at;

		if (h == MPI_REQUEST_NULL) {
			snap[2 * i] = snap[2 * i + 1] = 0;
			continue;
		}
		if (!builtin(h)) {
			recv |= snap_one(h, &snap[2 * i]);
			continue;
		}
		for (j = 0; j < nseen && seen_h[j] != h; j++)
			;
		if (j < nseen)
			from = seen_at[j] + 1;
		at = ring_next(h, from);
		recv |= snap_ring(at, &snap[2 * i]);
		if (at == tail)
			continue;
		if (j < nseen) {
			seen_at[j] = at;
		} else if (nseen < 8) {
			seen_h[nseen] = h;
			seen_at[nseen++] = at;
		}
	}
	return recv;
}

static __attribute__((noinline)) int snapshot_mt(const MPI_Request *reqs,
						  int n, uint64_t *snap)
{
	int recv;

	acquire();
	recv = snapshot(reqs, n, snap);
	release();
	return recv;
}

/*
 * One request of st_req_snapshot(), in the table or the ring, a ring
 * entry searched from position 'from' on (0: the head); its ring
 * position in '*at' (tail: none).
 */
static inline __attribute__((always_inline)) int
snap_any(MPI_Request h, uint64_t from, uint64_t *snap, uint64_t *at)
{
	if (builtin(h)) {
		*at = ring_next(h, from);
		return snap_ring(*at, snap);
	}
	*at = tail;
	if (h == MPI_REQUEST_NULL) {
		snap[0] = snap[1] = 0;
		return 0;
	}
	return snap_one(h, snap);
}

/*
 * Out of line but for one or two requests without
 * MPI_THREAD_MULTIPLE: the lookups alone, a second builtin handle
 * equal to the first searched after the first's entry, as snapshot()
 * does.
 */
int st_req_snapshot(const MPI_Request *reqs, int n, uint64_t *snap)
{
	uint64_t at0, at1;
	int recv;

	if (st_mt)
		return snapshot_mt(reqs, n, snap);
	/* One request, as a Wait's. */
	if (n == 1)
		return snap_any(reqs[0], 0, snap, &at0);
	if (n == 2) {
		recv = snap_any(reqs[0], 0, snap, &at0);
		return recv | snap_any(reqs[1],
				       reqs[1] == reqs[0] && at0 != tail
					       ? at0 + 1 : 0,
				       snap + 2, &at1);
	}
	return snapshot(reqs, n, snap);
}

int st_req_find(MPI_Request h, struct st_req *out)
{
	struct st_req_slot *s;
	int found = 0;

	acquire();
	if ((s = find(h))) {
		*out = s->r;
		found = 1;
	}
	release();
	return found;
}

int st_req_start(MPI_Request h, struct st_req *out)
{
	struct st_req_slot *s;
	int found = 0;

	acquire();
	if ((s = find(h)) && s->r.persistent) {
		s->r.inst++;
		*out = s->r;
		found = 1;
	}
	release();
	return found;
}

int st_req_take(MPI_Request h, uint64_t id, struct st_req *out,
		int drop_persistent)
{
	struct st_req_slot *s;
	int found = 0;

	acquire();
	if (builtin(h)) {
		uint64_t i;

		for (i = ring_next(h, head); i < tail; i = ring_next(h, i + 1))
			if (ring[i & (RING - 1)].r.id == id) {
				*out = ring[i & (RING - 1)].r;
				found = 1;
				st_req_ring_drop(&ring[i & (RING - 1)]);
				break;
			}
	} else if ((s = find(h)) && s->r.id == id) {
		*out = s->r;
		found = 1;
		if (!s->r.persistent || drop_persistent)
			st_req_drop(s);
	}
	release();
	return found;
}

int st_req_took(uint64_t at, uint64_t id, struct st_req *out,
		int drop_persistent)
{
	struct st_req *r;

	if (!at)
		return 0;
	acquire();
	r = st_req_took_at(at, id, drop_persistent);
	if (r)
		*out = *r;
	release();
	return r != NULL;
}

struct st_req *st_req_start_ref(MPI_Request h)
{
	struct st_req_slot *s = find(h);

	if (!s || !s->r.persistent)
		return NULL;
	s->r.inst++;
	return &s->r;
}

void st_req_note(uint64_t at, const struct st_req *r)
{
	struct st_req_slot *s = st_req_at_slot(at);

	acquire();
	if (s && s->state == 2 && s->r.id == r->id) {
		s->r.done_token = r->done_token;
		s->r.st_src = r->st_src;
		s->r.st_tag = r->st_tag;
		s->r.st_bytes = r->st_bytes;
	}
	release();
}
