// SPDX-License-Identifier: LGPL-2.1
/*
 * Small helpers shared by the commands.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ra_db.h"

void ra_malloc_tune(void)
{
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_TOP_PAD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
}

int64_t ra_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The process's own threads and when each ran (CLOCK_MONOTONIC), for a
 * recorder to leave their events out. A slot is taken again only from a
 * thread that ended long before: its events were stored by then.
 */
#define SELF_SLOTS 32

static struct self_slot {
	_Atomic int tid;
	_Atomic int64_t begin, end;	/* end 0: still running */
} self[SELF_SLOTS];
static _Atomic int nself;
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int self_at = -1;

void ra_self_thread_begin(void)
{
	int tid = (int)syscall(SYS_gettid), at;

	pthread_mutex_lock(&self_lock);
	at = atomic_load(&nself);
	if (at == SELF_SLOTS) {
		at = -1;
		for (int i = 0; i < SELF_SLOTS; i++)
			if (atomic_load(&self[i].end) &&
			    (at < 0 || atomic_load(&self[i].end) < atomic_load(&self[at].end)))
				at = i;
	}
	if (at >= 0) {
		atomic_store(&self[at].tid, 0);
		atomic_store(&self[at].begin, ra_clock_ns(CLOCK_MONOTONIC));
		atomic_store(&self[at].end, 0);
		atomic_store(&self[at].tid, tid);
		if (at == atomic_load(&nself))
			atomic_store(&nself, at + 1);
	}
	self_at = at;
	pthread_mutex_unlock(&self_lock);
}

void ra_self_thread_end(void)
{
	if (self_at >= 0)
		atomic_store(&self[self_at].end, ra_clock_ns(CLOCK_MONOTONIC));
	self_at = -1;
}

bool ra_self_task(int pid, int64_t ts_ns)
{
	int n = atomic_load(&nself);

	for (int i = 0; i < n; i++) {
		int64_t end;

		if (atomic_load(&self[i].tid) != pid)
			continue;
		end = atomic_load(&self[i].end);
		if (ts_ns >= atomic_load(&self[i].begin) && (!end || ts_ns <= end))
			return true;
	}
	return false;
}
