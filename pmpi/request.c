/*
 * pmpi/request.c: requests of nonblocking and persistent operations, so a
 * Wait or Test that completes one can be tied to the call that started it.
 * Keyed by handle with open addressing; 'lock' is taken only when the
 * application asked for MPI_THREAD_MULTIPLE.  A full table leaves new
 * requests untracked (their calls are still recorded, their completion
 * is not attributed).
 */
#include <pthread.h>
#include <string.h>

#include "pmpi/internal.h"

#define CAP 32768	/* power of two; at most CAP/2 requests in flight */

struct slot {
	int state;	/* 0 free, 1 dead, 2 live */
	MPI_Request h;
	struct st_req r;
};

static struct slot table[CAP];
static unsigned live, dead;
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
	return ((unsigned)h * 2654435761u) >> (32 - 15);
}

static struct slot *find(MPI_Request h)
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

static void drop(struct slot *s)
{
	s->state = 1;
	live--;
	dead++;
	/* Once empty, forget many dead slots so probes stay short. */
	if (!live && dead > CAP / 4) {
		memset(table, 0, sizeof(table));
		dead = 0;
	}
}

uint64_t st_req_add(MPI_Request h, struct st_req *r)
{
	struct slot *s, *free_slot = NULL;
	unsigned i, n;
	uint64_t id = 0;

	if (h == MPI_REQUEST_NULL)
		return 0;
	acquire();
	if ((s = find(h)))	/* a stale entry: the handle was reused */
		drop(s);
	if (live < CAP / 2) {
		for (i = hash(h), n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1))
			if (table[i].state != 2) {
				free_slot = &table[i];
				break;
			}
	}
	if (free_slot) {
		if (free_slot->state == 1)
			dead--;
		id = next_id++;
		r->id = id;
		r->inst = 0;
		free_slot->state = 2;
		free_slot->h = h;
		free_slot->r = *r;
		live++;
	}
	release();
	return id;
}

int st_req_find(MPI_Request h, struct st_req *out)
{
	struct slot *s;
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
	struct slot *s;
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
	struct slot *s;
	int found = 0;

	acquire();
	if ((s = find(h)) && s->r.id == id) {
		*out = s->r;
		found = 1;
		if (!s->r.persistent || drop_persistent)
			drop(s);
	}
	release();
	return found;
}
