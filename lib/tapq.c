// SPDX-License-Identifier: LGPL-2.1
/*
 * A tap on a thread of its own: batches of events filled by the caller and
 * given to the tap by the thread, two batches in turn (ra_db.h).
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ra_db.h"

#define TAPQ_BATCH 4096

struct tapq_batch {
	int n;
	int64_t seq[TAPQ_BATCH];
	struct ra_event ev[TAPQ_BATCH];
};

struct ra_tapq {
	ra_tap_fn tap;
	void *arg;
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct tapq_batch b[2];
	int filling;		/* the batch the caller fills */
	bool queued;		/* the other one waits for the thread, or is being given */
	bool stop;
};

static void *tapq_main(void *arg)
{
	struct ra_tapq *q = arg;

	ra_self_thread_begin();
	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct tapq_batch *b;

		while (!q->queued && !q->stop)
			pthread_cond_wait(&q->cond, &q->lock);
		if (!q->queued)
			break;
		b = &q->b[!q->filling];
		pthread_mutex_unlock(&q->lock);
		for (int i = 0; i < b->n; i++)
			q->tap(&b->ev[i], b->seq[i], q->arg);
		pthread_mutex_lock(&q->lock);
		b->n = 0;
		q->queued = false;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	ra_self_thread_end();
	return NULL;
}

/* The thread has given the tap the batch before; the one filled is handed over. */
static void hand(struct ra_tapq *q)
{
	pthread_mutex_lock(&q->lock);
	while (q->queued)
		pthread_cond_wait(&q->cond, &q->lock);
	q->filling = !q->filling;
	q->queued = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

struct ra_tapq *ra_tapq_start(ra_tap_fn tap, void *arg)
{
	const char *env = getenv("RATRACE_PIPELINE");
	struct ra_tapq *q = calloc(1, sizeof(*q));
	sigset_t all, old;

	if (!q) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	q->tap = tap;
	q->arg = arg;
	if ((env && strcmp(env, "0") == 0) || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return q;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	/* the caller's signals stay the caller's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	q->threaded = pthread_create(&q->thread, NULL, tapq_main, q) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!q->threaded) {
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->cond);
	}
	return q;
}

void ra_tapq_put(struct ra_tapq *q, const struct ra_event *ev, int64_t seq)
{
	struct tapq_batch *b;

	if (!q->threaded) {
		q->tap(ev, seq, q->arg);
		return;
	}
	b = &q->b[q->filling];
	b->ev[b->n] = *ev;
	b->seq[b->n++] = seq;
	if (b->n == TAPQ_BATCH)
		hand(q);
}

void ra_tapq_end(struct ra_tapq *q)
{
	if (!q)
		return;
	if (q->threaded) {
		if (q->b[q->filling].n)
			hand(q);
		pthread_mutex_lock(&q->lock);
		while (q->queued)
			pthread_cond_wait(&q->cond, &q->lock);
		q->stop = true;
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->cond);
	}
	free(q);
}
