/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The kernel's readahead, replayed. The accesses of a recorded run (its
 * read()s as mm_filemap_get_pages shows them, page faults and fault-around,
 * the WILLNEED calls), in their recorded order, go through a model of
 * mm/readahead.c and of the read paths of mm/filemap.c of one kernel series,
 * at a readahead size and with folio orders of choice. What comes out is
 * what that kernel would have emitted: the readahead:* triggers and windows,
 * the page-cache adds, and the accesses themselves as filemap:* events, so
 * that the readahead pass rebuilds the replayed windows exactly as it
 * rebuilds recorded ones.
 *
 * The model holds, per file, the pages the replay has in the page cache (as
 * folios, with their PG_readahead marks), and per open file (dev, ino, task's
 * process) a struct file_ra_state; a process that reads one file through
 * several descriptors has one per descriptor, told apart by the prev_pos
 * the run's triggers carry (up to four). Its memory grows with the files and
 * the cached pages of the replay, never with the events.
 */
#ifndef RA_REPLAY_H
#define RA_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "pagemap.h"
#include "ra_event.h"

/* The kernel series whose readahead differs (docs/kernels.md). */
enum ra_kseries {
	RA_KS_6_1,	/* ondemand_readahead */
	RA_KS_6_12,	/* page_cache_sync_ra/async_ra apart */
	RA_KS_6_16,	/* ext4 large folios */
	RA_KS_6_17,	/* the folio order in file_ra_state, async windows cut to it */
	RA_KS_6_18,	/* readahead:* tracepoints */
	RA_KS_7_2,	/* no mark on a window that reaches the end of the file */
	RA_KS_N
};

/**
 * ra_kseries_of - the series of kernel release @release ("6.12.94+deb12-cloud-amd64",
 * "7.3", "6.1.0-50-cloud-amd64"): the newest series not newer than it; -1
 * for a release older than 6.1 or not a release
 */
int ra_kseries_of(const char *release);
/** ra_kseries_name - "6.1", "6.12", ... of a series; NULL for an unknown one */
const char *ra_kseries_name(int series);

/*
 * The hypothetical policies run the 6.18 paths whatever the series, with
 * other window sizes: FIXED makes every window a trigger opens fixed_pages
 * long with its mark on its first page (async_size = size: the next window
 * is read when the reader enters this one), no ramp and no trim; SCALING is
 * the kernel's ramp up to scaling_pages, the device's window, in place of
 * ra_pages (twice that after POSIX_FADV_SEQUENTIAL, as the kernel doubles).
 * Both leave small random reads, read-around (of ra_pages = the policy's
 * window) and WILLNEED calls as the kernel does them.
 */
enum ra_policy {
	RA_POLICY_KERNEL,	/* the series' own algorithm */
	RA_POLICY_FIXED,	/* hypothetical: every window fixed_pages, no ramp */
	RA_POLICY_SCALING,	/* hypothetical: the window scaled to the device (scaling_pages) */
};

/* What the replay knows of one file of the run. */
struct ra_replay_file {
	int64_t size_bytes;	/* the file's size, -1 not known (then the highest page seen) */
	const char *fstype;	/* "ext4", "xfs", "btrfs", ...: which folio orders it takes
				 * (copied: it need not outlive the call) */
	uint32_t ra_pages;	/* the readahead size in force for it (its bdi's), pages */
	uint32_t io_pages;	/* its bdi's io_pages (max_sectors_kb / 4; btrfs's own bdi: 32) */
};

struct ra_replay_params {
	int series;			/* enum ra_kseries */
	enum ra_policy policy;
	uint32_t ra_pages;		/* > 0: every file's readahead size, else the file's own */
	uint32_t fixed_pages;		/* RA_POLICY_FIXED */
	uint32_t scaling_pages;		/* RA_POLICY_SCALING: the device's window */
	/* the file (dev, ino): 0 and *@f filled, or -1 when the run does not know it */
	int (*file)(uint32_t dev, uint64_t ino, struct ra_replay_file *f, void *arg);
	/* the process (thread group) of task @pid: the open file's key; 0 not known */
	int (*tgid)(int pid, void *arg);
	void *arg;
	/*
	 * The events the replayed kernel emits, in order, with the time of the
	 * access that caused them; ev->pid the task's. < 0 stops the replay.
	 * Fields as the 6.18 tracepoints give them, in every series: a
	 * trigger's order is ra->order (0 before 6.17, which has none); a
	 * window's is the ra->order it asks from 6.17, before that the order
	 * its folios are asked at. 6.1 has no mm_filemap_get_pages: one per
	 * read() stands for it, as the project's probes record it there.
	 */
	int (*emit)(const struct ra_event *ev, void *arg);
	/*
	 * The caller models memory pressure (ra_replay_evict): the run's own
	 * deletions from the page cache are not replayed (at another setting
	 * reclaim takes other pages, at other times).
	 */
	bool model_reclaim;
	/* tasks kept in memory, the others in a temporary file; 0: the default */
	int tasks_held;
};

struct ra_replay;

/**
 * ra_replay_alloc - a replay with @p (copied); NULL with ra_last_error() set
 * when out of memory or @p lacks emit, a series or the policy's size
 */
struct ra_replay *ra_replay_alloc(const struct ra_replay_params *p);
/**
 * ra_replay_scan - the first pass, optional: every event of the run, in seq
 * order, before the first ra_replay_event(). It finds what only the whole
 * run shows: the pages cached before the run began (accessed, never added),
 * the end of a file of unknown size (the highest page seen), and the files
 * the run has no access events of (then their triggers stand for the reads).
 * Without it the first two are learnt as the events come, which is exact
 * only where the replay reads no further ahead than the run. 0 or -1.
 */
int ra_replay_scan(struct ra_replay *r, const struct ra_event *ev);
/**
 * ra_replay_event - one event of the recorded run, in seq order: the accesses
 * are replayed, the rest tells the replay what it cannot see otherwise
 * (deletions from the page cache, pages added by writes). 0, or -1 with
 * ra_last_error() set (or what emit returned).
 */
int ra_replay_event(struct ra_replay *r, const struct ra_event *ev);
/**
 * ra_replay_evict - reclaim, as the caller estimates it: the replay's page
 * cache gives back the folio that holds page @index of file (@dev, @ino),
 * if it has it (its deletion emitted, a pid of 0, at @ts), and the file's
 * doubts say reclaim. 0, or -1 with ra_last_error() set
 */
int ra_replay_evict(struct ra_replay *r, uint32_t dev, uint64_t ino, uint64_t index,
		    uint64_t ts);
/** ra_replay_end - the end of the run: what is still pending is emitted; 0 or -1 */
int ra_replay_end(struct ra_replay *r);
void ra_replay_free(struct ra_replay *r);

/* Why a replay cannot be exact for a file (flags, per file and in all). */
enum ra_replay_doubt {
	RA_DOUBT_SHARED = 1,	/* two processes read the file at once: one page cache */
	RA_DOUBT_RECLAIM = 2,	/* pages were evicted while still to be read */
	RA_DOUBT_INFLIGHT = 4,	/* a read found pages still under I/O (batches cut short) */
	RA_DOUBT_NOACCESS = 8,	/* the run lacks the access events (before 6.12) */
	RA_DOUBT_UNKNOWN = 16,	/* the file's size or settings are not known */
};

/** ra_replay_doubts - the doubts seen for file (dev, ino), or for all with ino 0 and dev 0 */
unsigned int ra_replay_doubts(const struct ra_replay *r, uint32_t dev, uint64_t ino);

/*
 * The bytes a run's reads returned, from its access events: a read(2) of
 * more than a batch of folios looks its pages up more than once, each time
 * for the rest of its range (a later first page, the same last), and those
 * pages count once; none past the file's end.
 */
struct ra_read_bytes {
	struct ra_map last;		/* pid -> its last lookup */
	struct {			/* the latest pids' values, by pid & 3 */
		int pid;		/* 0: none */
		void *at;
	} near[4];
	uint64_t bytes;
};

int ra_read_bytes_init(struct ra_read_bytes *rb);
void ra_read_bytes_release(struct ra_read_bytes *rb);
/* A lookup of the pages [@index, @last] of a file of @size bytes (-1: not known). */
int ra_read_bytes_add(struct ra_read_bytes *rb, int pid, uint32_t dev, uint64_t ino,
		      uint64_t index, uint64_t last, int64_t size);

#endif /* RA_REPLAY_H */
