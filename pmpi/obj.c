/*
 * pmpi/obj.c: windows and open files, which a group of ranks shares as
 * it does a communicator.  Each gets an id equal on every member (drawn
 * as a communicator's is, st_comm_agree_id()), a comm record that
 * describes it, and a sequence number counted by its collective calls
 * (fence, Win_free, File_read_all...), so that a collective instance
 * (id, seq) matches across rank files like a collective on a
 * communicator.
 *
 * The table maps handles (an int for a window, a pointer for a file in
 * MPICH) to entries with open addressing, as pmpi/comm.c does: lookups
 * take no lock (the key is published last, with release order), inserts
 * and removals take 'lock'.
 */
#include <pthread.h>
#include <string.h>

#include "gen/ops.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"

#define CAP 1024		/* power of two */
#define FREE 0			/* keys are handle + 2 (see key()) */
#define TOMB 1

static struct st_obj table[CAP];
atomic_uint st_obj_gen;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Handles are stored + 2 so that 0 and 1 can mark free and dead slots. */
static uintptr_t key(uintptr_t h)
{
	return h + 2;
}

static unsigned slot(uintptr_t h)
{
	uint64_t x = (uint64_t)h * 0x9e3779b97f4a7c15u;

	return (unsigned)(x >> 54);	/* 10 bits: CAP */
}

struct st_obj *st_obj_find(uintptr_t h)
{
	unsigned i = slot(h), n;
	uintptr_t k = key(h);

	for (n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		uintptr_t v = atomic_load_explicit(&table[i].key,
						   memory_order_acquire);

		if (v == k)
			return &table[i];
		if (v == FREE)
			return NULL;
	}
	return NULL;
}

void st_obj_forget(uintptr_t h)
{
	struct st_obj *o;

	pthread_mutex_lock(&lock);
	o = st_obj_find(h);
	if (o)
		atomic_store_explicit(&o->key, TOMB, memory_order_release);
	atomic_fetch_add_explicit(&st_obj_gen, 1, memory_order_relaxed);
	pthread_mutex_unlock(&lock);
}

/* Insert or overwrite the entry of 'h'. */
static struct st_obj *insert(uintptr_t h, uint64_t id, int size, int rank)
{
	struct st_obj *t = NULL;
	unsigned i = slot(h), n;
	uintptr_t k = key(h);

	pthread_mutex_lock(&lock);
	for (n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		uintptr_t v = atomic_load_explicit(&table[i].key,
						   memory_order_relaxed);

		if (v == k) {
			t = &table[i];
			break;
		}
		if (!t && v == TOMB)
			t = &table[i];
		if (v == FREE) {
			if (!t)
				t = &table[i];
			break;
		}
	}
	if (t) {
		atomic_store_explicit(&t->key, TOMB, memory_order_relaxed);
		t->id = id;
		t->size = size;
		t->rank = rank;
		atomic_store_explicit(&t->seq, 0, memory_order_relaxed);
		atomic_store_explicit(&t->key, k, memory_order_release);
	}
	atomic_fetch_add_explicit(&st_obj_gen, 1, memory_order_relaxed);
	pthread_mutex_unlock(&lock);
	return t;
}

uint64_t st_obj_count(struct st_obj *o)
{
	uint64_t v;

	if (st_mt)
		return atomic_fetch_add_explicit(&o->seq, 1,
						 memory_order_relaxed) + 1;
	v = atomic_load_explicit(&o->seq, memory_order_relaxed) + 1;
	atomic_store_explicit(&o->seq, v, memory_order_relaxed);
	return v;
}

struct st_obj *st_obj_register(uintptr_t h, MPI_Comm comm,
			       struct st_event *ev)
{
	struct st_comm_entry *p = st_comm_find(comm);
	struct st_obj *o;
	int size = 0, rank = 0;

	PMPI_Comm_size(comm, &size);
	PMPI_Comm_rank(comm, &rank);
	o = insert(h, st_comm_agree_id(comm), size, rank);
	if (!o) {
		st_disable("BUG: window and file table full (%d entries)",
			   CAP);
		return NULL;
	}
	ev->kind = ST_REC_COMM;
	ev->comm = o->id;
	ev->comm_size = (uint32_t)size;
	ev->rank = rank;
	ev->parent = p ? p->id : 0;
	return o;
}
