// SPDX-License-Identifier: LGPL-2.1
/*
 * Small helpers shared by the commands.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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
 * The process's own threads and files, and when each was alive
 * (CLOCK_MONOTONIC), for a recorder to leave their events out: a thread's
 * id, a file's inode and device (its inode is given to another file once
 * it is gone). A slot is taken again only from one that ended long before:
 * its events were stored by then.
 */
struct self_slot {
	_Atomic uint64_t key;		/* 0 while the slot is set */
	_Atomic uint32_t key2;
	_Atomic int64_t begin, end;	/* end 0: still alive */
};

struct self_table {
	struct self_slot *slot;
	int cap;
	_Atomic int n;
};

#define SELF_THREADS 32
#define SELF_FILES 64

static struct self_slot thread_slots[SELF_THREADS], file_slots[SELF_FILES];
static struct self_table self_threads = { thread_slots, SELF_THREADS, 0 };
static struct self_table self_files = { file_slots, SELF_FILES, 0 };
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int self_at = -1;

/* A slot of @t for (@key, @key2) alive from now on: its index, -1 none free. */
static int self_begin(struct self_table *t, uint64_t key, uint32_t key2)
{
	int at;

	pthread_mutex_lock(&self_lock);
	at = atomic_load(&t->n);
	if (at == t->cap) {
		at = -1;
		for (int i = 0; i < t->cap; i++)
			if (atomic_load(&t->slot[i].end) &&
			    (at < 0 || atomic_load(&t->slot[i].end) < atomic_load(&t->slot[at].end)))
				at = i;
	}
	if (at >= 0) {
		struct self_slot *s = &t->slot[at];

		atomic_store(&s->key, 0);
		atomic_store(&s->key2, key2);
		atomic_store(&s->begin, ra_clock_ns(CLOCK_MONOTONIC));
		atomic_store(&s->end, 0);
		atomic_store(&s->key, key);
		if (at == atomic_load(&t->n))
			atomic_store(&t->n, at + 1);
	}
	pthread_mutex_unlock(&self_lock);
	return at;
}

static void self_end(struct self_table *t, int at)
{
	if (at >= 0 && at < t->cap)
		atomic_store(&t->slot[at].end, ra_clock_ns(CLOCK_MONOTONIC));
}

/* Whether (@key, @key2) at @ts_ns was alive in @t. */
static bool self_alive(struct self_table *t, uint64_t key, uint32_t key2, int64_t ts_ns)
{
	int n = atomic_load(&t->n);

	for (int i = 0; i < n; i++) {
		const struct self_slot *s = &t->slot[i];
		int64_t end;

		if (atomic_load(&s->key) != key || atomic_load(&s->key2) != key2)
			continue;
		end = atomic_load(&s->end);
		if (ts_ns >= atomic_load(&s->begin) && (!end || ts_ns <= end))
			return true;
	}
	return false;
}

void ra_self_thread_begin(void)
{
	self_at = self_begin(&self_threads, (uint64_t)syscall(SYS_gettid), 0);
}

void ra_self_thread_end(void)
{
	self_end(&self_threads, self_at);
	self_at = -1;
}

bool ra_self_task(int pid, int64_t ts_ns)
{
	return pid > 0 && self_alive(&self_threads, (uint64_t)pid, 0, ts_ns);
}

int ra_self_file_begin(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	return self_begin(&self_files, (uint64_t)st.st_ino,
			  RA_MKDEV(major(st.st_dev), minor(st.st_dev)));
}

void ra_self_file_end(int slot)
{
	self_end(&self_files, slot);
}

bool ra_self_file(uint32_t dev, uint64_t ino, int64_t ts_ns)
{
	return ino && self_alive(&self_files, ino, dev, ts_ns);
}
