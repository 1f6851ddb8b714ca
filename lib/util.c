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

/*
 * The process's own files and when each was open (CLOCK_MONOTONIC), for a
 * recorder to leave out the pages of them leaving the page cache: the one
 * page event not in a task's context (a recorder's punched holes and closed
 * temporary files, its database's truncated journal). Their inodes are
 * given to other files once they are gone: a slot holds its time. A slot
 * is taken again from a file closed long before.
 */
#define SELF_FILES 64

static struct self_file {
	_Atomic uint32_t dev;		/* the kernel's dev_t (major << 20 | minor) */
	_Atomic uint64_t ino;
	_Atomic int64_t begin, end;	/* end 0: still open */
} self_files[SELF_FILES];
static _Atomic int nself_files;

int ra_self_file_begin(int fd)
{
	struct stat st;
	int at;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	pthread_mutex_lock(&self_lock);
	at = atomic_load(&nself_files);
	if (at == SELF_FILES) {
		at = -1;
		for (int i = 0; i < SELF_FILES; i++)
			if (atomic_load(&self_files[i].end) &&
			    (at < 0 || atomic_load(&self_files[i].end) <
					       atomic_load(&self_files[at].end)))
				at = i;
	}
	if (at >= 0) {
		atomic_store(&self_files[at].ino, 0);
		atomic_store(&self_files[at].begin, ra_clock_ns(CLOCK_MONOTONIC));
		atomic_store(&self_files[at].end, 0);
		atomic_store(&self_files[at].dev, (uint32_t)(major(st.st_dev) << 20 | minor(st.st_dev)));
		atomic_store(&self_files[at].ino, (uint64_t)st.st_ino);
		if (at == atomic_load(&nself_files))
			atomic_store(&nself_files, at + 1);
	}
	pthread_mutex_unlock(&self_lock);
	return at;
}

void ra_self_file_end(int slot)
{
	if (slot >= 0 && slot < SELF_FILES)
		atomic_store(&self_files[slot].end, ra_clock_ns(CLOCK_MONOTONIC));
}

bool ra_self_file(uint32_t dev, uint64_t ino, int64_t ts_ns)
{
	int n = atomic_load(&nself_files);

	for (int i = 0; i < n; i++) {
		int64_t end;

		if (atomic_load(&self_files[i].ino) != ino || atomic_load(&self_files[i].dev) != dev)
			continue;
		end = atomic_load(&self_files[i].end);
		if (ts_ns >= atomic_load(&self_files[i].begin) && (!end || ts_ns <= end))
			return true;
	}
	return false;
}
