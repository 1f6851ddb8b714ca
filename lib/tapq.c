// SPDX-License-Identifier: LGPL-2.1
/*
 * A tap on a thread of its own: batches of events filled by the caller and
 * given to the tap by the thread, two batches in turn (ra_db.h). The
 * writer's store thread is one; a recorder's replay another. A recorder
 * behind its workload's events runs them all ahead of it (ra_tapq_nice).
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ra_db.h"

#define TAPQ_BATCH 8192

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
	bool failed;		/* the tap failed: the events after it are not given */
	int err_kind;		/* its error, given to the caller */
	char err[512];
	pid_t tid;		/* the thread's, once it runs (under pace_lock) */
	struct ra_tapq *next;	/* in the list of running threads */
};

/* The threads running, and the nice value they take (ra_tapq_nice). */
static pthread_mutex_t pace_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ra_tapq *pace_list;
static int pace_nice;
static bool pace_set;		/* else each thread keeps the nice it was made with */

int ra_tapq_nice(int nice)
{
	int ret = 0;

	pthread_mutex_lock(&pace_lock);
	pace_nice = nice;
	pace_set = true;
	for (struct ra_tapq *q = pace_list; q; q = q->next)
		if (q->tid && setpriority(PRIO_PROCESS, (id_t)q->tid, nice) < 0)
			ret = -1;
	pthread_mutex_unlock(&pace_lock);
	return ret;
}

static void pace_join(struct ra_tapq *q)
{
	pthread_mutex_lock(&pace_lock);
	q->tid = (pid_t)syscall(SYS_gettid);
	if (pace_set)
		setpriority(PRIO_PROCESS, (id_t)q->tid, pace_nice);
	q->next = pace_list;
	pace_list = q;
	pthread_mutex_unlock(&pace_lock);
}

static void pace_leave(struct ra_tapq *q)
{
	pthread_mutex_lock(&pace_lock);
	for (struct ra_tapq **p = &pace_list; *p; p = &(*p)->next)
		if (*p == q) {
			*p = q->next;
			break;
		}
	pthread_mutex_unlock(&pace_lock);
}

static void *tapq_main(void *arg)
{
	struct ra_tapq *q = arg;

	ra_self_thread_begin();
	pthread_setname_np(pthread_self(), "ra-tap");
	pace_join(q);
	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct tapq_batch *b;
		bool ok = !q->failed;

		while (!q->queued && !q->stop)
			pthread_cond_wait(&q->cond, &q->lock);
		if (!q->queued)
			break;
		b = &q->b[!q->filling];
		pthread_mutex_unlock(&q->lock);
		for (int i = 0; i < b->n && ok; i++)
			ok = q->tap(&b->ev[i], b->seq[i], q->arg) >= 0;
		pthread_mutex_lock(&q->lock);
		if (!ok && !q->failed) {
			q->failed = true;
			q->err_kind = ra_last_error_kind();
			snprintf(q->err, sizeof(q->err), "%s", ra_last_error());
		}
		b->n = 0;
		q->queued = false;
		pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
	pace_leave(q);
	ra_self_thread_end();
	return NULL;
}

int ra_tapq_wait(struct ra_tapq *q)
{
	int ret;

	if (!q->threaded)
		return 0;
	pthread_mutex_lock(&q->lock);
	while (q->queued)
		pthread_cond_wait(&q->cond, &q->lock);
	ret = q->failed ? -1 : 0;
	pthread_mutex_unlock(&q->lock);
	if (ret < 0)
		ra_set_error(q->err_kind, "%s", q->err);
	return ret;
}

/* The thread has given the tap the batch before; the one filled is handed over. */
static int hand(struct ra_tapq *q)
{
	if (ra_tapq_wait(q) < 0)
		return -1;
	pthread_mutex_lock(&q->lock);
	q->filling = !q->filling;
	q->queued = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return 0;
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
	/* the caller's signals stay the caller's: the thread blocks them all */
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

int ra_tapq_put(struct ra_tapq *q, const struct ra_event *ev, int64_t seq)
{
	struct tapq_batch *b;

	if (!q->threaded)
		return q->tap(ev, seq, q->arg) < 0 ? -1 : 0;
	b = &q->b[q->filling];
	b->ev[b->n] = *ev;
	b->seq[b->n++] = seq;
	return b->n == TAPQ_BATCH ? hand(q) : 0;
}

int ra_tapq_end(struct ra_tapq *q)
{
	int ret = 0;

	if (!q)
		return 0;
	if (q->threaded) {
		if (q->b[q->filling].n)
			ret = hand(q);
		if (ra_tapq_wait(q) < 0)
			ret = -1;
		pthread_mutex_lock(&q->lock);
		q->stop = true;
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->cond);
	}
	free(q);
	return ret;
}
