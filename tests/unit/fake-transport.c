/*
 * tests/unit/fake-transport.c: simulated ranks for the sync/ tests.  A
 * conservative discrete-event simulation: each rank (a thread) keeps its
 * own true time and only messages tie the ranks together, a receive
 * completing at max(own time, arrival).  So nobody busy-polls: a rank
 * that waits for a message sleeps on a condition variable, and busy
 * clock loops cost only arithmetic.  One mutex guards all queues; a rank
 * counts as blocked while it waits, and when every live rank is blocked
 * the run is declared deadlocked and their calls fail with -EDEADLK.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"
#include "sync/transport.h"
#include "tests/unit/fake-transport.h"

#define T_START_NS 1e12

struct msg {
	struct msg *next;
	double arrival;		/* true time */
	double consumed_at;	/* true time the receiver took it */
	int sync;		/* the sender waits for it to be consumed */
	int consumed;
	size_t len;
	unsigned char data[];
};

struct fake_rank {
	struct fake_net *net;
	struct st_transport tp;
	int rank;
	double t;		/* true time, ns */
	uint64_t rng;
	int waiting;		/* counted in net->blocked */
	pthread_cond_t cv;
	fake_rank_fn fn;
	void *arg;
	int rc;
};

struct fake_net {
	struct fake_net_params p;
	int n;
	double *offset, *drift;
	struct fake_rank *r;
	struct msg **head, **tail;	/* by src * n + dst */
	double *last_arrival;
	pthread_mutex_t mu;
	int alive, blocked, deadlock;
	int inited;		/* mutex and condition variables made */
	long nmsg;
};

void fake_net_params_init(struct fake_net_params *p)
{
	memset(p, 0, sizeof(*p));
	p->nranks = 8;
	p->seed = 1;
	p->max_offset_ns = 1e9;
	p->max_drift_ppm = 100;
	p->latency_ns = 500;
	p->jitter_ns = 100;
	p->outlier_prob = 0.01;
	p->outlier_ns = 20000;
	p->read_ns = 40;
	p->read_noise_ns = 2;
	p->op_ns = 100;
}

/* splitmix64: one seeded stream per rank. */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double uniform(uint64_t *s)
{
	return ((double)(next_u64(s) >> 11) + 1.0) / 9007199254740992.0;
}

static double clock_at(const struct fake_net *net, int r, double t)
{
	return t * (1.0 + net->drift[r] * 1e-6) + net->offset[r];
}

static uint64_t f_now(void *ctx)
{
	struct fake_rank *me = ctx;
	const struct fake_net_params *p = &me->net->p;
	double v;

	me->t += p->read_ns * (0.5 + uniform(&me->rng));
	v = clock_at(me->net, me->rank, me->t) +
	    p->read_noise_ns * (2.0 * uniform(&me->rng) - 1.0);
	return (uint64_t)llround(v);
}

/* Called with the mutex held: has everybody alive stopped? */
static void check_deadlock(struct fake_net *net)
{
	int i;

	if (net->alive > 0 && net->blocked == net->alive && !net->deadlock) {
		net->deadlock = 1;
		for (i = 0; i < net->n; i++)
			pthread_cond_broadcast(&net->r[i].cv);
	}
}

/* Called with the mutex held: block until woken or deadlocked. */
static void block(struct fake_rank *me)
{
	struct fake_net *net = me->net;

	me->waiting = -1;	/* for a receiver to take our message */
	net->blocked++;
	check_deadlock(net);
	while (me->waiting && !net->deadlock)
		pthread_cond_wait(&me->cv, &net->mu);
}

/* Called with the mutex held: wake 'r' if it is blocked. */
static void wake(struct fake_net *net, struct fake_rank *r)
{
	if (r->waiting) {
		r->waiting = 0;
		net->blocked--;
		pthread_cond_signal(&r->cv);
	}
}

static int f_send(void *ctx, int peer, const void *buf, size_t len)
{
	struct fake_rank *me = ctx;
	struct fake_net *net = me->net;
	const struct fake_net_params *p = &net->p;
	struct msg *m;
	double arrival;
	int q, rc = 0;

	if (peer < 0 || peer >= net->n || peer == me->rank)
		return -EINVAL;
	if (!(m = calloc(1, sizeof(*m) + len)))
		return -ENOMEM;
	memcpy(m->data, buf, len);
	m->len = len;
	me->t += p->op_ns;
	arrival = me->t + p->latency_ns -
		  p->jitter_ns * log(uniform(&me->rng));
	if (uniform(&me->rng) <= p->outlier_prob)
		arrival += p->outlier_ns * uniform(&me->rng);
	m->sync = p->sync_send;

	q = me->rank * net->n + peer;
	pthread_mutex_lock(&net->mu);
	/* A channel keeps its order: no message overtakes another. */
	if (arrival < net->last_arrival[q])
		arrival = net->last_arrival[q];
	net->last_arrival[q] = arrival;
	m->arrival = arrival;
	if (net->tail[q])
		net->tail[q]->next = m;
	else
		net->head[q] = m;
	net->tail[q] = m;
	net->nmsg++;
	if (net->r[peer].waiting == me->rank + 1)
		wake(net, &net->r[peer]);
	if (m->sync) {
		while (!m->consumed && !net->deadlock)
			block(me);
		if (m->consumed) {
			if (m->consumed_at > me->t)
				me->t = m->consumed_at;
			free(m);
		} else {
			m->sync = 0;	/* the queue owns it now */
			rc = -EDEADLK;
		}
	}
	pthread_mutex_unlock(&net->mu);
	return rc;
}

static int f_recv(void *ctx, int peer, void *buf, size_t len)
{
	struct fake_rank *me = ctx;
	struct fake_net *net = me->net;
	struct msg *m;
	int q, rc = 0;

	if (peer < 0 || peer >= net->n || peer == me->rank)
		return -EINVAL;
	q = peer * net->n + me->rank;
	pthread_mutex_lock(&net->mu);
	while (!net->head[q]) {
		if (net->deadlock) {
			pthread_mutex_unlock(&net->mu);
			return -EDEADLK;
		}
		/* waiting = peer + 1 says whom we wait for. */
		me->waiting = peer + 1;
		net->blocked++;
		check_deadlock(net);
		while (me->waiting && !net->deadlock)
			pthread_cond_wait(&me->cv, &net->mu);
	}
	m = net->head[q];
	net->head[q] = m->next;
	if (!m->next)
		net->tail[q] = NULL;
	if (m->arrival > me->t)
		me->t = m->arrival;
	me->t += net->p.op_ns;
	if (m->len != len)
		rc = -EMSGSIZE;
	else
		memcpy(buf, m->data, len);
	if (m->sync) {
		m->consumed = 1;
		m->consumed_at = me->t;
		wake(net, &net->r[peer]);
	} else {
		free(m);
	}
	pthread_mutex_unlock(&net->mu);
	return rc;
}

struct fake_net *fake_net_new(const struct fake_net_params *p)
{
	struct fake_net *net;
	uint64_t s;
	int i, j, n = p->nranks;

	if (n < 1 || n > 4096)
		return NULL;
	if (!(net = calloc(1, sizeof(*net))))
		return NULL;
	net->p = *p;
	net->n = n;
	net->offset = calloc((size_t)n, sizeof(double));
	net->drift = calloc((size_t)n, sizeof(double));
	net->r = calloc((size_t)n, sizeof(*net->r));
	net->head = calloc((size_t)n * n, sizeof(*net->head));
	net->tail = calloc((size_t)n * n, sizeof(*net->tail));
	net->last_arrival = calloc((size_t)n * n, sizeof(double));
	if (!net->offset || !net->drift || !net->r || !net->head ||
	    !net->tail || !net->last_arrival) {
		fake_net_free(net);
		return NULL;
	}
	pthread_mutex_init(&net->mu, NULL);
	net->inited = 1;
	s = p->seed * 0x2545f4914f6cdd1dull;
	for (i = 0; i < n; i++) {
		double o = p->max_offset_ns * (2.0 * uniform(&s) - 1.0);
		double d = p->max_drift_ppm * (2.0 * uniform(&s) - 1.0);

		net->offset[i] = p->offset_ns ? p->offset_ns[i] : o;
		net->drift[i] = p->drift_ppm ? p->drift_ppm[i] : d;
	}
	if (p->node)
		for (i = 0; i < n; i++)
			for (j = 0; j < i; j++)
				if (p->node[j] == p->node[i]) {
					net->offset[i] = net->offset[j];
					net->drift[i] = net->drift[j];
					break;
				}
	for (i = 0; i < n; i++) {
		struct fake_rank *r = &net->r[i];

		r->net = net;
		r->rank = i;
		r->t = T_START_NS;
		r->rng = p->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
		pthread_cond_init(&r->cv, NULL);
		r->tp.ctx = r;
		r->tp.rank = i;
		r->tp.size = n;
		r->tp.now_ns = f_now;
		r->tp.send = f_send;
		r->tp.recv = f_recv;
	}
	return net;
}

void fake_net_free(struct fake_net *net)
{
	int i;

	if (!net)
		return;
	if (net->inited) {
		for (i = 0; i < net->n * net->n; i++)
			while (net->head[i]) {
				struct msg *m = net->head[i];

				net->head[i] = m->next;
				free(m);
			}
		for (i = 0; i < net->n; i++)
			pthread_cond_destroy(&net->r[i].cv);
		pthread_mutex_destroy(&net->mu);
	}
	free(net->offset);
	free(net->drift);
	free(net->r);
	free(net->head);
	free(net->tail);
	free(net->last_arrival);
	free(net);
}

static void *thread_main(void *arg)
{
	struct fake_rank *me = arg;
	struct fake_net *net = me->net;

	me->rc = me->fn(&me->tp, me->arg);
	pthread_mutex_lock(&net->mu);
	net->alive--;
	check_deadlock(net);
	pthread_mutex_unlock(&net->mu);
	return NULL;
}

int fake_net_run(struct fake_net *net, fake_rank_fn fn, void *arg, int *rcs)
{
	pthread_t *th;
	int i, rc = 0, started = 0;

	if (!(th = calloc((size_t)net->n, sizeof(*th))))
		return -ENOMEM;
	net->alive = net->n;
	net->blocked = 0;
	for (i = 0; i < net->n; i++) {
		net->r[i].fn = fn;
		net->r[i].arg = arg;
		net->r[i].rc = 0;
		net->r[i].waiting = 0;
	}
	for (i = 0; i < net->n; i++) {
		if (pthread_create(&th[i], NULL, thread_main, &net->r[i])) {
			/* Ranks not started count as finished with an error. */
			pthread_mutex_lock(&net->mu);
			for (; i < net->n; i++) {
				net->r[i].rc = -EAGAIN;
				net->alive--;
			}
			check_deadlock(net);
			pthread_mutex_unlock(&net->mu);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	for (i = 0; i < net->n; i++) {
		if (rcs)
			rcs[i] = net->r[i].rc;
		if (!rc)
			rc = net->r[i].rc;
	}
	return rc;
}

void fake_net_idle(const struct st_transport *tp, double ns)
{
	struct fake_rank *me = tp->ctx;

	me->t += ns;
}

double fake_net_now_true(const struct st_transport *tp)
{
	const struct fake_rank *me = tp->ctx;

	return me->t;
}

double fake_net_true(const struct fake_net *net, int rank)
{
	return net->r[rank].t;
}

double fake_net_true_max(const struct fake_net *net)
{
	double t = net->r[0].t;
	int i;

	for (i = 1; i < net->n; i++)
		t = fmax(t, net->r[i].t);
	return t;
}

double fake_net_clock(const struct fake_net *net, int rank, double true_ns)
{
	return clock_at(net, rank, true_ns);
}

long fake_net_messages(const struct fake_net *net)
{
	pthread_mutex_t *mu = (pthread_mutex_t *)&net->mu;
	long n;

	pthread_mutex_lock(mu);
	n = net->nmsg;
	pthread_mutex_unlock(mu);
	return n;
}

struct sync_job {
	const struct st_sync_params *params;
	int refreshes;
	double idle_ns;
	struct st_sync **s;
};

static int sync_rank(const struct st_transport *tp, void *arg)
{
	struct sync_job *job = arg;
	struct st_sync **s = &job->s[tp->rank];
	int k, rc;

	if ((rc = st_sync_init(s, tp, job->params)))
		return rc;
	for (k = 0; k < job->refreshes; k++) {
		fake_net_idle(tp, job->idle_ns);
		if ((rc = st_sync_refresh(*s, tp)))
			return rc;
	}
	return 0;
}

int fake_sync_run(struct fake_net *net, const struct st_sync_params *params,
		  int refreshes, double idle_ns, struct st_sync **s, int *rcs)
{
	struct sync_job job = { params, refreshes, idle_ns, s };

	return fake_net_run(net, sync_rank, &job, rcs);
}

double fake_sync_error(const struct fake_net *net, struct st_sync *const *s,
		       int rank, double true_ns)
{
	struct st_sync_estimate e;
	double t, t0;

	st_sync_result(s[rank], &e);
	t = clock_at(net, rank, true_ns) - (double)st_sync_origin(s[rank]);
	t0 = clock_at(net, 0, true_ns) - (double)st_sync_origin(s[0]);
	return st_clock_model_apply(e.model, t) - t0;
}

double fake_sync_max_error(const struct fake_net *net,
			   struct st_sync *const *s, double true_ns)
{
	double m = 0;
	int r;

	for (r = 0; r < net->n; r++)
		m = fmax(m, fabs(fake_sync_error(net, s, r, true_ns)));
	return m;
}

double fake_net_true_slope(const struct fake_net *net, int rank)
{
	return 1.0 - (1.0 + net->drift[0] * 1e-6) /
		     (1.0 + net->drift[rank] * 1e-6);
}

void fake_sync_free(struct st_sync **s, int n)
{
	int r;

	for (r = 0; r < n; r++) {
		st_sync_free(s[r]);
		s[r] = NULL;
	}
}
