/*
 * pmpi/request.c: requests of nonblocking and persistent operations, so a
 * Wait or Test that completes one can be tied to the call that started it.
 * Keyed by handle with open addressing; 'lock' is taken only when the
 * application asked for MPI_THREAD_MULTIPLE.  The table holds CAP/2
 * requests in flight; more spill over into a table that grows (the
 * spill, below), up to SPILL_MAX, past which new requests are left
 * untracked with one warning (their calls are still recorded, their
 * completion is not attributed).
 *
 * MPICH gives every operation that completed at once the same builtin
 * handle (0x6c000001 for a send, for instance), Open MPI the one
 * ompi_request_empty (pmpi/abi.h, st_req_shared()), so those handles are
 * not unique.  Those requests are indistinguishable to MPI, so they live
 * in a FIFO instead: a Wait or Test takes the oldest one with its
 * handle, and several in one array take them in order.  Past RING in
 * flight such requests are left untracked, with one warning.
 *
 * A new request whose handle a live entry still holds means that MPI
 * freed that handle and gave it out again.  Without
 * MPI_THREAD_MULTIPLE the old request's completion went unseen, so its
 * entry is dropped.  With it, the old request may have just completed
 * in another thread, whose completion call will take its entry by
 * snapshot (address and id) as soon as MPI returns.  So there the entry
 * is only superseded (state 3): lookups by handle no longer see it, its
 * snapshot still takes it, and it counts as live until then.  That is
 * needed only while some completion call is between its snapshot and
 * its takes ('waiting', counted under the lock): with none, the entry
 * cannot be awaited, and it is dropped, as is a superseded one whose
 * handle comes again then.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/abi.h"
#include "pmpi/internal.h"

_Static_assert(sizeof(struct st_req) == 120, "struct st_req has padding");

#define CAP 32768	/* power of two; at most CAP/2 requests in flight */

/* Each entry on cache lines of its own (pmpi/hot.h, struct st_req). */
static struct st_req_slot table[CAP] __attribute__((aligned(64)));

#define RING 16384	/* power of two: builtin-handle requests in flight */
static struct st_req_slot ring[RING] __attribute__((aligned(64)));
static uint64_t head, tail;	/* ring[head % RING] is the oldest */

static int builtin(MPI_Request h)
{
	return st_req_shared(h);
}

/*
 * Under MPI_THREAD_MULTIPLE, threads' requests of one builtin handle
 * would be taken in the ring's order whichever thread waits: two threads
 * waiting at once on their own such requests could both name the oldest
 * one, so that the second's completion found it gone and was lost, and
 * its own entry stayed in flight for ever.  So there each ring entry
 * carries the tag of the thread that made it, and a thread takes its
 * own first (another's only when it has none: a request handed over).
 */
static atomic_uint ntags;

/* This thread's tag, under MPI_THREAD_MULTIPLE; 0 otherwise. */
static uint16_t my_tag(void)
{
	if (!st_mt)
		return 0;
	if (!st_tls.reqtag)
		st_tls.reqtag = (int)(atomic_fetch_add(&ntags, 1) % 65535) + 1;
	return (uint16_t)st_tls.reqtag;
}

/*
 * The first live ring entry with handle 'h' from position 'from' on (the
 * last, with 'newest'): of thread tag 'owner' when there is one (0: any
 * thread's); tail when none.
 */
static inline __attribute__((always_inline)) uint64_t
ring_find(MPI_Request h, uint64_t from, uint16_t owner, int newest)
{
	uint64_t lo = from < head ? head : from, n, any = tail;

	for (n = lo; n < tail; n++) {
		uint64_t i = newest ? tail - 1 - (n - lo) : n;
		struct st_req_slot *s = &ring[i & (RING - 1)];

		if (s->state != 2 || s->h != h)
			continue;
		if (s->owner == owner || !owner)
			return i;
		if (any == tail)
			any = i;
	}
	return any;
}

static inline __attribute__((always_inline)) uint64_t
ring_next(MPI_Request h, uint64_t from, uint16_t owner)
{
	return ring_find(h, from, owner, 0);
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
/* MPI_THREAD_MULTIPLE: completion calls snapshotted, not yet left. */
static unsigned waiting;

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

/*
 * The spill: requests in flight beyond the table's CAP/2, in entries
 * allocated SPILL_CHUNK at a time and never freed or moved (a
 * snapshot's 'at' may name one while another thread adds), found
 * through an index of entry pointers with open addressing, which
 * doubles as it fills.  A dead entry stays at its index position, to be
 * taken again there; a rebuild of the index keeps the live ones and
 * puts the dead on the free list.
 */
#define SPILL_CHUNK 1024
#define SPILL_MAX (1u << 22)
static struct st_req_slot **spill_ix;	/* NULL: empty position */
static unsigned spill_cap;		/* power of two, or 0 */
static unsigned spill_live, spill_dead;	/* entries in the index */
static unsigned spill_total;		/* entries allocated */
static struct st_req_slot **spill_free;	/* dead, in no index position */
static unsigned spill_nfree;
static struct st_req_slot *spill_chunk;	/* entries not yet handed out */
static unsigned spill_chunk_left;
static int spill_warned, ring_warned;

static unsigned spill_hash(MPI_Request h, unsigned cap)
{
	return (unsigned)((ST_HANDLE_KEY(h) * 0x9e3779b97f4a7c15ull) >> 32) &
	       (cap - 1);
}

/* The live spilled entry of handle 'h', or NULL; spill_live not 0. */
static __attribute__((noinline)) struct st_req_slot *
spill_find(MPI_Request h)
{
	unsigned i, n;

	for (i = spill_hash(h, spill_cap), n = 0; n < spill_cap;
	     n++, i = (i + 1) & (spill_cap - 1)) {
		struct st_req_slot *s = spill_ix[i];

		if (!s)
			return NULL;
		if (s->state == 2 && s->h == h)
			return s;
	}
	return NULL;
}

void st_req_spill_drop(struct st_req_slot *s)
{
	s->state = 1;
	spill_live--;
	spill_dead++;
}

/*
 * Entry 's', live or superseded, holds the handle of a new request:
 * superseded (1) while a completion call may yet take it, else (0) to
 * be dropped by the caller.
 */
static int supersede(struct st_req_slot *s)
{
	if (!st_mt || !waiting)
		return 0;
	s->state = 3;
	return 1;
}

/* A new entry, not in the index; NULL at SPILL_MAX or out of memory. */
static struct st_req_slot *spill_entry(void)
{
	if (spill_nfree)
		return spill_free[--spill_nfree];
	if (!spill_chunk_left) {
		struct st_req_slot **f;

		if (spill_total >= SPILL_MAX)
			return NULL;
		/* Room on the free list for every entry there will be. */
		f = realloc(spill_free, (spill_total + SPILL_CHUNK) *
					sizeof(*f));
		if (!f)
			return NULL;
		spill_free = f;
		if (!(spill_chunk = calloc(SPILL_CHUNK, sizeof(*spill_chunk))))
			return NULL;
		spill_chunk_left = SPILL_CHUNK;
		spill_total += SPILL_CHUNK;
	}
	spill_chunk_left--;
	return spill_chunk++;
}

/*
 * An index of 'cap' positions holding the live entries; the dead go
 * to the free list.  -1 when out of memory (the old index stays).
 */
static int spill_rebuild(unsigned cap)
{
	struct st_req_slot **ix = calloc(cap, sizeof(*ix));
	unsigned i, j;

	if (!ix)
		return -1;
	for (i = 0; i < spill_cap; i++) {
		struct st_req_slot *s = spill_ix[i];

		if (!s)
			continue;
		if (s->state < 2) {
			spill_free[spill_nfree++] = s;
			continue;
		}
		for (j = spill_hash(s->h, cap); ix[j]; j = (j + 1) & (cap - 1))
			;
		ix[j] = s;
	}
	free(spill_ix);
	spill_ix = ix;
	spill_cap = cap;
	spill_dead = 0;
	return 0;
}

/* The live entry of handle 'h' in the table, or NULL. */
static inline __attribute__((always_inline)) struct st_req_slot *
find_table(MPI_Request h)
{
	unsigned i = hash(h), n;

	for (n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		if (table[i].state == 2 && table[i].h == h)
			return &table[i];
		if (table[i].state == 0)
			break;
	}
	return NULL;
}

/* The live entry of handle 'h', in the table or the spill, or NULL. */
static inline __attribute__((always_inline)) struct st_req_slot *
find(MPI_Request h)
{
	struct st_req_slot *s = find_table(h);

	return s || __builtin_expect(!spill_live, 1) ? s : spill_find(h);
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
ring_push(MPI_Request h, struct st_req *r, uint16_t owner)
{
	struct st_req_slot *s = &ring[tail++ & (RING - 1)];

	s->owner = owner;
	return take_slot(s, h, r);
}

/*
 * 'r', a new request of handle 'h', into the spill (the table is
 * full): its id, 0 when it cannot be tracked.  A stale entry of the
 * handle (MPI reused it) is dropped on the way, as add_slow() does.
 */
static uint64_t spill_add(MPI_Request h, struct st_req *r)
{
	struct st_req_slot *s, *at = NULL;
	unsigned i, n, pos = 0;

	if ((spill_live + spill_dead + 1) * 2 > spill_cap &&
	    spill_rebuild(spill_live * 4 > spill_cap ? 2 * spill_cap
			  : spill_cap ? spill_cap : 64))
		goto untracked;
	for (i = spill_hash(h, spill_cap), n = 0; n < spill_cap;
	     n++, i = (i + 1) & (spill_cap - 1)) {
		s = spill_ix[i];
		if (s && s->state >= 2 && s->h == h && supersede(s))
			continue;
		if (!s || (s->state >= 2 && s->h == h)) {
			if (s)
				st_req_spill_drop(s);
			if (!at) {
				at = s;
				pos = i;
			}
			break;
		}
		if (s->state < 2 && !at) {
			at = s;
			pos = i;
		}
	}
	if (!at) {
		if (!(at = spill_entry()))
			goto untracked;
		spill_ix[pos] = at;
	} else {
		spill_dead--;
	}
	spill_live++;
	return take_slot(at, h, r);
untracked:
	if (!spill_warned) {
		spill_warned = 1;
		st_log_print("out of room for requests in flight (%u "
			     "entries): those after are traced without "
			     "their completion", CAP / 2 + SPILL_MAX);
	}
	return 0;
}

/*
 * st_req_add() goes to add_slow() for every request (MPI_THREAD_MULTIPLE,
 * or no tracking); requests are tracked (the completion calls are).
 */
static int req_slow, req_track = 1;

void st_req_init(int mt, int track)
{
	req_slow = mt || !track;
	req_track = track;
}

static __attribute__((noinline)) uint64_t add_slow(MPI_Request h,
						   struct st_req *r)
{
	struct st_req_slot *s, *free_slot = NULL;
	unsigned i, n;
	uint64_t id = 0;

	/*
	 * Completion calls not traced: no call could take the request, so
	 * the table and ring would only fill (and the ring warn).
	 */
	if (!req_track)
		return 0;
	acquire();
	if (builtin(h) && !r->persistent) {
		if (tail - head < RING) {
			id = ring_push(h, r, my_tag());
		} else if (!ring_warned) {
			ring_warned = 1;
			st_log_print("more than %u requests that completed at "
				     "once in flight: those after are traced "
				     "without their completion", RING);
		}
		release();
		return id;
	}
	/* A stale spilled entry of the handle (MPI reused it): dropped. */
	if (spill_live && (s = spill_find(h)) && !supersede(s))
		st_req_spill_drop(s);
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
		if (s->state >= 2) {
			if (s->h != h || supersede(s))
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
	} else {
		id = spill_add(h, r);
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
	if (__builtin_expect(req_slow, 0))
		return add_slow(h, r);
	if (builtin(h)) {
		if (r->persistent || tail - head >= RING)
			return add_slow(h, r);
		return ring_push(h, r, 0);
	}
	if (st_req_live >= CAP / 2 || (!st_req_live && st_req_dead > CAP / 4) ||
	    spill_live)
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
	struct st_req_slot *s = find_table(h);

	if (__builtin_expect(!s, 0)) {
		if (spill_live && (s = spill_find(h))) {
			snap[0] = (uint64_t)(uintptr_t)s | ST_REQ_AT_SPILL;
			snap[1] = s->r.id;
			return s->r.recv;
		}
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
	uint16_t tag = my_tag();
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
		at = ring_next(h, from, tag);
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
	if (!st_tls.reqwait) {
		st_tls.reqwait = 1;
		waiting++;
	}
	release();
	return recv;
}

int st_req_snapshot_free(const MPI_Request *req, uint64_t *snap)
{
	int recv;

	if (!builtin(*req))
		return st_req_snapshot(req, 1, snap);
	acquire();
	recv = snap_ring(ring_find(*req, head, my_tag(), 1), snap);
	if (st_mt && !st_tls.reqwait) {
		st_tls.reqwait = 1;
		waiting++;
	}
	release();
	return recv;
}

void st_req_wait_end(void)
{
	acquire();
	waiting--;
	release();
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
		*at = ring_next(h, from, 0);
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
		s->r.active = 1;
		*out = s->r;
		found = 1;
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
	s->r.active = 1;
	return &s->r;
}

void st_req_note(uint64_t at, const struct st_req *r)
{
	struct st_req_slot *s = st_req_at_slot(at);

	acquire();
	if (s && s->state >= 2 && s->r.id == r->id) {
		s->r.done_token = r->done_token;
		s->r.st_src = r->st_src;
		s->r.st_tag = r->st_tag;
		s->r.st_bytes = r->st_bytes;
	}
	release();
}
