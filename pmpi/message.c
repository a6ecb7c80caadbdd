/*
 * pmpi/message.c: the messages of matched probes.  MPI_Mrecv and
 * MPI_Imrecv take no communicator, source or tag: the MPI_Mprobe or
 * MPI_Improbe that matched the message knew them, so they are kept here
 * under the message handle (unique while the message is pending) until
 * its receive takes them.  Few messages are pending at once: a small
 * table, searched in full; when it is full a receive is recorded
 * without its communicator.
 */
#include <pthread.h>

#include "pmpi/hooks.h"
#include "pmpi/internal.h"

#define NMSG 256

static struct {
	MPI_Message h;		/* MPI_MESSAGE_NULL: free */
	MPI_Comm comm;
	int peer, tag;
} msgs[NMSG];
static int nmsg;		/* entries in use, at most NMSG */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void st_message_pre(struct st_call *c, const MPI_Message *message)
{
	c->oldmsg = message ? *message : MPI_MESSAGE_NULL;
}

void st_message_note(const struct st_call *c, const MPI_Status *st)
{
	MPI_Message h = c->a.message ? *c->a.message : MPI_MESSAGE_NULL;
	int i;

	if (h == MPI_MESSAGE_NULL || h == MPI_MESSAGE_NO_PROC || !st ||
	    st == MPI_STATUS_IGNORE)
		return;
	if (st_mt)
		pthread_mutex_lock(&lock);
	for (i = 0; i < NMSG && nmsg < NMSG; i++)
		if (!msgs[i].h || msgs[i].h == MPI_MESSAGE_NULL ||
		    msgs[i].h == h) {
			if (msgs[i].h != h)
				nmsg++;
			msgs[i].h = h;
			msgs[i].comm = c->a.comm;
			msgs[i].peer = st->MPI_SOURCE;
			msgs[i].tag = st->MPI_TAG;
			break;
		}
	if (st_mt)
		pthread_mutex_unlock(&lock);
}

void st_message_recv(struct st_call *c)
{
	MPI_Message h = c->oldmsg;
	int i;

	c->a.comm = MPI_COMM_NULL;
	c->a.peer = MPI_ANY_SOURCE;
	c->a.tag = MPI_ANY_TAG;
	if (h == MPI_MESSAGE_NO_PROC) {
		c->a.peer = MPI_PROC_NULL;
		return;
	}
	if (h == MPI_MESSAGE_NULL)
		return;
	if (st_mt)
		pthread_mutex_lock(&lock);
	for (i = 0; i < NMSG && nmsg; i++)
		if (msgs[i].h == h) {
			c->a.comm = msgs[i].comm;
			c->a.peer = msgs[i].peer;
			c->a.tag = msgs[i].tag;
			msgs[i].h = MPI_MESSAGE_NULL;
			nmsg--;
			break;
		}
	if (st_mt)
		pthread_mutex_unlock(&lock);
}
