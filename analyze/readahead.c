// SPDX-License-Identifier: LGPL-2.1
/*
 * The readahead pass: windows, their patterns, streams and the fate of every
 * read-ahead page, rebuilt from the readahead:* and filemap:* events of a run
 * in one pass in time order. docs/metrics.md states the definitions; the
 * comments here point at the rule each piece implements.
 *
 * Memory: the pages of the page cache that readahead added and that are still
 * cached, the ones evicted unused (to see them thrash), one record per task,
 * file and stream, and one small record per window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"
#include "ra_bigmem.h"
#include "ra_sql.h"

enum trig { TRIG_NONE, TRIG_SYNC, TRIG_ASYNC };
/* a readahead page not yet accessed, accessed, or mapped into a process with
 * no access seen; a page of a window that is not a readahead page (demand) */
enum pstate { PG_RA_UNUSED = 1, PG_RA_USED, PG_RA_MAPPED, PG_OTHER };
enum access { ACC_NONE, ACC_READ, ACC_FAULT, ACC_MAP };

/* Streams of one task on one file followed at once (open descriptors). */
#define HEADS 8
/* Recent read() ranges of one task on one file (one per descriptor, roughly). */
#define RANGES 8
/* Async triggers a task's read() may have left before its tail shows. */
#define MARKS 8
/* A reader that left pages out within this many reads is a skipping one. */
#define SKIP_MEMORY 32

struct trigger {
	enum trig kind;
	int file;
	int64_t seq;
	uint64_t index;
	uint64_t req_count;
	uint32_t ra_pages;
	bool mmap;		/* the task's latest access of the file was a fault */
	bool fault;		/* ...and it faulted on the trigger's page */
	uint32_t ra_size, ra_async;	/* the readahead state the kernel had */
	bool sequential;		/* the kernel's own test: index - prev_pos's page <= 1 */
};

/* The task's latest async trigger, as a read() that shows only its tail left it. */
struct async_mark {
	int file;
	uint64_t index, req_count;
	int64_t seq;
	uint64_t done;			/* block completions seen before it */
};

struct task {
	int pid;
	struct trigger pending;		/* trigger waiting for its window */
	struct async_mark mark[MARKS];	/* the latest async triggers, a ring */
	int nmark;
	int win;			/* window collecting this task's page adds, or -1 */
	bool last_was_order;		/* the task's latest readahead event was ra_order */
	bool on_device;			/* it has page events of the recorded devices */
	bool read_since_win;		/* a read() of the task since its window opened */
	enum access acc;		/* the task's latest access */
	int acc_file;
	uint64_t acc_index;
	uint64_t span_min, span_max;	/* pages of its whole reads of every file (the
					 * narrowest from reads after a file's first) */
};

struct file {
	uint32_t dev;
	uint64_t ino;
	uint64_t eof;			/* pages: one past the highest page seen */
	int64_t size_pages;		/* from the file's size when known, else -1;
					 * SIZE_LATER: asked when first needed */
	bool size_asked;		/* a live pass asked it (checked at the end) */
	int64_t peek_pages;		/* live: the size asked for a window's row only,
					 * -1 not known, PEEK_NONE not asked */
	bool peeked;			/* a window's row was written with it */
	uint64_t tracked_end;		/* one past the highest page of a window added */
	bool mapped;			/* a process mapped it (a fault or fault-around) */
};

/* Bytes of a stream's sizes kept in its record */
#define SIZES_INLINE 40

struct stream {
	int file;
	int pid;
	uint32_t n, max, ramp, collapses, last_size, run;
	int64_t first_ts, last_ts;
	uint64_t prev_start;		/* start of the window before the latest */
	uint64_t last_start;		/* the latest window: [last_start, last_end) */
	uint64_t last_end;		/* where a window that continues the stream starts */
	uint32_t ra_size, ra_async;	/* the readahead state its latest ra_order window left */
	bool random_only;		/* every window read nothing ahead */
	bool forced;			/* windows of WILLNEED calls (force_page_cache_ra) */
	uint32_t ra_pages;
	/* the sizes of its windows, "4 8 16 32x514": in the record, or when longer
	 * in a block of the pass's (heap), from the index heap + 1 */
	uint32_t len;
	int heap;
	char text[SIZES_INLINE];
};

/*
 * What a window's row gave the model's inputs (struct ra_feed_window, of
 * one window: its counts of pages fit 32 bits), so that a row written again
 * gives them the difference.
 */
struct fed_row {
	bool has;
	int32_t stream;
	int32_t ra_pages;
	uint32_t size, added, ra_added, thrashed, covered;
	int64_t unused;
};

struct window {
	int64_t seq, ts, end_ts, trigger_seq;
	int pid, file, stream;
	enum trig trigger;
	const char *pattern;
	bool mmap, fallback;
	uint64_t start, trigger_index, req_count, demand_start;
	uint32_t size, async, order, ra_pages, demand_pages;
	bool has_order, has_ra_pages, has_req;
	uint64_t added, ra_added, used, evicted, thrashed, mapped, inferred;
	struct fed_row fed;		/* what its row last written gave the model */
};

/*
 * What one task does on one file: its streams and its recent read() ranges
 * (one per descriptor, roughly). A record of the pass's set of them (slots.c),
 * by id, found by its key.
 */
struct taskfile {
	uint64_t key;			/* pid << 32 | (file + 1): a task's files in a row near in the map */
	int heads[HEADS];		/* stream indices, most recent first */
	int nheads;
	int nranges;
	uint64_t first[RANGES], last[RANGES];
	int64_t seq[RANGES];		/* the latest event of each range */
	uint64_t done[RANGES];		/* block completions seen before it */
	uint64_t age[RANGES];		/* for replacing the least recent range */
	uint64_t span_min, span_max;	/* pages of the task's whole read() ranges */
	uint64_t nreads;		/* whole reads noted */
	uint64_t skipped_at;		/* clock of the latest read that left pages out */
	uint64_t clock;			/* reads so far */
};

struct page {
	int32_t win;
	uint8_t state;
	uint8_t order;
} __attribute__((packed));	/* the page store's values are not aligned */

/* A page evicted unused, remembered until it is accessed again: one per
 * eviction, chained per page (a page can be read ahead and evicted unused
 * several times before the reader comes). */
struct ghost {
	int32_t win;
	int32_t next;		/* index of the older ghost of the page, or -1 */
};

/* A page's ghosts: the newest one's index + 1 (the page store's values are
 * not aligned). */
struct ghost_head {
	int32_t newest;
} __attribute__((packed));

/* A file size known: one row of the run's files, sorted by (dev, ino). */
struct known_size {
	uint32_t dev;
	uint64_t ino;
	int64_t pages;
	size_t ord;			/* the row's place among the run's files */
};

/*
 * The windows the pass holds in memory by default (ra_analyze_opts'
 * window_slots), about 3 MiB: the others wait in a temporary file (slots.c), so
 * that the pass's memory does not grow with the windows of a run (a random
 * reader opens one per read).
 */
#define WIN_SLOTS 16384
/* The same for the records of a task on a file (about 1.7 MiB). */
#define TF_SLOTS 4096
/* The same for the streams (about 0.7 MiB). */
#define STREAM_SLOTS 4096
/* The same for the files (about 0.4 MiB). */
#define FILE_SLOTS 4096
/* The same for the tasks (about 1.9 MiB). */
#define TASK_SLOTS 4096

struct ra_live;

struct ra_state {
	struct ra_live *live;		/* fed as the events are stored: inputs asked */
	struct ra_model_feed *feed;	/* the rows given to the model's inputs, or NULL */
	struct ra_tapq *handon;		/* the events read, handed on (ra_analyze_opts' feed) */
	struct known_size *sizes;	/* the files' sizes, read before the events */
	size_t nsizes;
	struct ra_stmt *calls;		/* into temp.ra_calls, as the events pass */
	struct ra_batch *put;		/* into windows */
	int64_t run_id;
	struct ra_map files_by_key;	/* (dev, ino) -> struct file_key */
	struct ra_slots *files;		/* the files by index */
	int nfiles;
	struct ra_map task_ids;		/* pid + 1 -> task id */
	struct ra_slots *tasks;		/* the tasks by id, made in the order first seen */
	/* the tasks asked last and their ids (-1 none), by pid & 3: the events
	 * of a few tasks come in turns */
	int near_pid[4], near_task[4];
	uint64_t near_tf_key[4];	/* the same of the task-file records (key 0: none) */
	int near_tf[4];
	int last_file;			/* the file asked last (-1 none), and its key */
	uint32_t last_dev;
	uint64_t last_ino;
	struct ra_map tf_ids;		/* (file, pid), and (file, process) of streams -> taskfile id */
	struct ra_slots *tfs;		/* the taskfiles by id, made in the order first seen */
	struct ra_map tgids;		/* pid -> process, from the run's tasks (live:
					 * pid -> the answer asked, + 1 for none) */
	struct ra_slots *streams;	/* the streams by id */
	int nstreams;
	struct sizes_heap {
		char *text;
		size_t cap;
	} *heaps;			/* the sizes too long for a stream's record */
	int nheaps, cap_heaps;
	struct ra_db *db;
	struct ra_slots *wins;		/* the windows by id */
	int max_slots;
	bool failed;			/* win_at() failed: the event fails */
	union {				/* what win_at(), stream_at(), file_at()... */
		struct window w;	/* give when they fail */
		struct stream s;
		struct file f;
	} none;
	int nwins;			/* windows opened */
	struct ra_pages cache;		/* (file, index) -> struct page: pages of windows */
	struct ra_pages ghosts;		/* (file, index) -> newest ghost index + 1 */
	struct ghost *ghost;		/* the ghosts, with a free list through next */
	int nghost, cap_ghost, free_ghost;
	int page_shift;
	unsigned int pmd_order;		/* folios this large are mapped whole, by one PMD */
	uint64_t done;			/* block completions so far */
	bool has_done;			/* the run recorded block completions */
	int *dev_pids;			/* the tasks with page events, for advice_calls() */
	int ndev_pids, cap_dev_pids;
};

#define SIZE_LATER (-2)
#define PEEK_NONE (-3)

static int64_t live_size(struct ra_state *st, int file);
static int live_tgid(struct ra_state *st, int pid);
static const struct ra_live_inputs *live_inputs(const struct ra_live *lv);

#define KEY(file, index) ((((uint64_t)(file) + 1) << 40) | ((index) & ((1ULL << 40) - 1)))
/*
 * What a kernel's events can describe; an event beyond it is damaged and left
 * out, so that the work per event stays bounded. Folios: the page cache's
 * largest order is the PMD's (9 with 4 KiB pages, 13 with 64 KiB ones).
 * read() moves at most MAX_RW_COUNT (2 GiB - 1 page) bytes; fault-around
 * maps at most one page table (8192 entries with 64 KiB pages).
 */
#define MAX_FOLIO_ORDER 13
#define MAX_READ_BYTES (1ULL << 31)
#define MAX_MAP_PAGES 8192
#define MAX_FILE_BYTES (1LL << 62)

static int grow_array(void **arr, int *cap, int need, size_t elem)
{
	void *p;
	int ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 256;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -1;
	memset((char *)p + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
	*arr = p;
	*cap = ncap;
	return 0;
}

/*
 * Record @rec of set @s (@what @id), or when it is NULL a zeroed scratch
 * record standing in: the event fails (st->failed).
 */
static void *or_none(struct ra_state *st, const void *rec, const struct ra_slots *s,
		     const char *what, int id)
{
	if (rec)
		return (void *)rec;
	if (!ra_slots_failed(s))
		ra_set_error(RA_ERR_IO, "no %s %d", what, id + 1);
	st->failed = true;
	memset(&st->none, 0, sizeof(st->none));
	return &st->none;
}

/* Window @id; on failure the event fails, a scratch window standing in. */
static struct window *win_at(struct ra_state *st, int id)
{
	return or_none(st, ra_slots_get(st->wins, id), st->wins, "window", id);
}

/* The same, to read only. */
static const struct window *win_peek(struct ra_state *st, int id)
{
	return or_none(st, ra_slots_peek(st->wins, id), st->wins, "window", id);
}

static int cmp_known(const void *a, const void *b)
{
	const struct known_size *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_known_ord(const void *a, const void *b)
{
	const struct known_size *x = a, *y = b;
	int c = cmp_known(a, b);

	return c ? c : x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* The pages of file (dev, ino) of the run's sizes, -1 when not known. */
static int64_t known_pages(const struct ra_state *st, uint32_t dev, uint64_t ino)
{
	struct known_size key = { .dev = dev, .ino = ino };
	const struct known_size *k = st->nsizes ? bsearch(&key, st->sizes, st->nsizes,
							  sizeof(key), cmp_known) : NULL;

	return k ? k->pages : -1;
}

/* File @file; on failure the event fails, a scratch file standing in. */
static struct file *file_at(struct ra_state *st, int file)
{
	return or_none(st, ra_slots_get(st->files, file), st->files, "file", file);
}

/* The same, to read only. */
static const struct file *file_peek(struct ra_state *st, int file)
{
	return or_none(st, ra_slots_peek(st->files, file), st->files, "file", file);
}

/* The file's size in pages, -1 when not known. */
static int64_t size_of(struct ra_state *st, int file)
{
	int64_t pages = file_peek(st, file)->size_pages;

	return pages == SIZE_LATER ? live_size(st, file) : pages;
}

/*
 * A file's entry in files_by_key. With the high half of the inode number,
 * its first key gives the pair back (the key's high half is dev ^ hi ^
 * (hi >> 20), its low half the inode number's ^ (hi << 12) ^ 1). An entry
 * probed on to another key is checked against its file.
 */
struct file_key {
	int index;
	uint32_t ino_hi;
	bool probed;
};

static int file_key_of(struct ra_state *st, uint32_t dev, uint64_t ino)
{
	uint64_t key = ((uint64_t)dev << 32) ^ ino ^ (ino >> 32 << 12) ^ 1, first = key;
	bool fresh;
	struct file_key *slot;
	struct file *f;

	/* a (dev, ino) pair never collides with another: check, else probe on */
	for (;; key += 0x9e3779b97f4a7c15ULL) {
		slot = ra_map_put(&st->files_by_key, key, &fresh);
		if (!slot)
			return -1;
		if (fresh)
			break;
		if (!slot->probed) {	/* the file whose first key this is */
			if (key == first && slot->ino_hi == (uint32_t)(ino >> 32))
				return slot->index;
		} else {
			const struct file *had = ra_slots_peek(st->files, slot->index);

			if (!had)
				return -1;
			if (had->dev == dev && had->ino == ino)
				return slot->index;
		}
	}
	if (!(f = ra_slots_make(st->files, st->nfiles)))
		return -1;
	*f = (struct file){ .dev = dev, .ino = ino,
			    .size_pages = st->live ? SIZE_LATER : known_pages(st, dev, ino),
			    .peek_pages = PEEK_NONE };
	*slot = (struct file_key){ .index = st->nfiles++, .ino_hi = (uint32_t)(ino >> 32),
				   .probed = key != first };
	return slot->index;
}

/* The number of file (dev, ino), made when new; -1 on error (most events are the last one's file's) */
static int file_of(struct ra_state *st, uint32_t dev, uint64_t ino)
{
	if (st->last_file >= 0 && st->last_dev == dev && st->last_ino == ino)
		return st->last_file;
	st->last_file = file_key_of(st, dev, ino);
	st->last_dev = dev;
	st->last_ino = ino;
	return st->last_file;
}

/* The record of task @pid, made when new; NULL on error. */
static struct task *task_of(struct ra_state *st, int pid)
{
	bool fresh;
	int id, at = pid & 3;
	struct task *t;

	/* most events are those of the last few tasks' */
	if (st->near_task[at] >= 0 && pid == st->near_pid[at])
		return ra_slots_get(st->tasks, st->near_task[at]);
	t = ra_slots_keyed(st->tasks, &st->task_ids, (uint64_t)(uint32_t)pid + 1, &fresh, &id);
	if (t && fresh) {
		t->win = -1;
		t->pid = pid;
	}
	if (t) {
		st->near_pid[at] = pid;
		st->near_task[at] = id;
	}
	return t;
}

static void see_page(struct ra_state *st, int file, uint64_t last)
{
	if (last + 1 > file_peek(st, file)->eof)
		file_at(st, file)->eof = last + 1;
}

/* ---- streams: windows of one task on one file that continue one another ---- */

/*
 * Who owns a task's streams: its process, when the run knows it (the threads
 * of a process share its descriptors, and a descriptor's readahead state),
 * else the task.
 */
static int owner_of(struct ra_state *st, int pid)
{
	int *tgid = ra_map_get(&st->tgids, (uint64_t)(uint32_t)pid + 1);

	if (st->live)
		return tgid ? *tgid : live_tgid(st, pid);
	return tgid ? *tgid : pid;
}

/* The record of @pid on @file, made when new; NULL on error (the event fails). */
static struct taskfile *taskfile_of(struct ra_state *st, int file, int pid)
{
	uint64_t key = ((uint64_t)(uint32_t)pid << 32) | (uint32_t)(file + 1);
	bool fresh;
	int id, at = (pid ^ file) & 3;
	struct taskfile *tf;

	if (st->near_tf_key[at] == key)
		tf = ra_slots_get(st->tfs, st->near_tf[at]);
	else if ((tf = ra_slots_keyed(st->tfs, &st->tf_ids, key, &fresh, &id))) {
		if (fresh)
			tf->key = key;
		st->near_tf_key[at] = key;
		st->near_tf[at] = id;
	}
	if (!tf)
		st->failed = true;
	return tf;
}

/* Stream @id; on failure the event fails, a scratch stream standing in. */
static struct stream *stream_at(struct ra_state *st, int id)
{
	return or_none(st, ra_slots_get(st->streams, id), st->streams, "stream", id);
}

/* The same, to read only. */
static const struct stream *stream_peek(struct ra_state *st, int id)
{
	return or_none(st, ra_slots_peek(st->streams, id), st->streams, "stream", id);
}

static int stream_new(struct ra_state *st, struct taskfile *tf, int file, int pid, bool forced)
{
	struct stream *s = ra_slots_make(st->streams, st->nstreams);

	if (!s)
		return -1;
	s->heap = -1;
	s->file = file;
	s->pid = pid;
	s->random_only = true;
	s->forced = forced;
	if (tf->nheads < HEADS)
		tf->nheads++;
	memmove(tf->heads + 1, tf->heads, (size_t)(tf->nheads - 1) * sizeof(tf->heads[0]));
	tf->heads[0] = st->nstreams;
	return st->nstreams++;
}

/* Make head @k the most recent one; returns its stream. */
static int stream_touch(struct taskfile *tf, int k)
{
	int id = tf->heads[k];

	memmove(tf->heads + 1, tf->heads, (size_t)k * sizeof(tf->heads[0]));
	tf->heads[0] = id;
	return id;
}

/*
 * The stream a window continues (the kernel keeps readahead state per open
 * file, so one task can follow several streams of one file): the one whose
 * latest window ends where this one starts; else the one whose last two
 * windows hold the trigger (the reader is in that stream: a miss after its
 * pages were lost, an async hit of its mark). A window that reads nothing
 * ahead and continues nothing joins the task's latest stream when that one
 * read nothing ahead either (a random reader is one stream); any other window
 * starts a stream. *exact tells whether the window starts where the stream's
 * latest window ended. The windows of WILLNEED calls (@forced) are streams of
 * their own: force_page_cache_ra() reads with no readahead state, so a read
 * after a prefetch does not continue it, nor a prefetch a read.
 */
static int stream_for(struct ra_state *st, const struct window *w, const struct trigger *tr,
		      bool random, bool forced, bool *exact)
{
	struct taskfile *tf = taskfile_of(st, w->file, owner_of(st, w->pid));
	uint64_t at = tr ? tr->index : w->start;

	*exact = false;
	if (!tf)
		return -1;
	for (int k = 0; k < tf->nheads; k++) {
		const struct stream *s = stream_peek(st, tf->heads[k]);

		if (s->forced == forced && s->last_end == w->start) {
			*exact = true;
			return stream_touch(tf, k);
		}
	}
	for (int k = 0; k < tf->nheads; k++) {
		const struct stream *s = stream_peek(st, tf->heads[k]);

		if (s->forced == forced && at >= s->prev_start && at < s->last_end)
			return stream_touch(tf, k);
	}
	if (random && tf->nheads) {
		const struct stream *s = stream_peek(st, tf->heads[0]);

		if (s->random_only && !s->forced)
			return tf->heads[0];
	}
	return stream_new(st, tf, w->file, w->pid, forced);
}

/* The sizes of stream @s as text. */
static const char *sizes_of(const struct ra_state *st, const struct stream *s)
{
	return s->heap >= 0 ? st->heaps[s->heap].text : s->text;
}

static int sizes_append(struct ra_state *st, struct stream *s, const char *text)
{
	size_t n = strlen(text);
	struct sizes_heap *h;

	if (s->heap < 0 && s->len + n + 1 <= SIZES_INLINE) {
		memcpy(s->text + s->len, text, n + 1);
		s->len += (uint32_t)n;
		return 0;
	}
	if (s->heap < 0) {	/* moved out of the record */
		if (grow_array((void **)&st->heaps, &st->cap_heaps, st->nheaps + 1,
			       sizeof(*st->heaps)))
			return -1;
		st->heaps[st->nheaps] = (struct sizes_heap){ 0 };
		s->heap = st->nheaps++;
	}
	h = &st->heaps[s->heap];
	if (s->len + n + 1 > h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 2 * SIZES_INLINE;
		char *p;

		while (cap < s->len + n + 1)
			cap *= 2;
		if (!(p = realloc(h->text, cap)))
			return -1;
		if (!h->text)
			memcpy(p, s->text, s->len + 1);
		h->text = p;
		h->cap = cap;
	}
	memcpy(h->text + s->len, text, n + 1);
	s->len += (uint32_t)n;
	return 0;
}

/* Close the current run of equal sizes: "32" or "32x514". */
static int sizes_flush(struct ra_state *st, struct stream *s)
{
	char buf[32];

	if (!s->run)
		return 0;
	if (s->run == 1)
		snprintf(buf, sizeof(buf), "%s%u", s->len ? " " : "", s->last_size);
	else
		snprintf(buf, sizeof(buf), "%s%ux%u", s->len ? " " : "", s->last_size, s->run);
	s->run = 0;
	return sizes_append(st, s, buf);
}

/* A window smaller than the one before is a collapse unless it is the
 * stream's subsequent window: large-folio kernels trim a window's end to a
 * folio boundary without losing the stream. */
static int stream_add(struct ra_state *st, struct stream *s, const struct window *w, bool random)
{
	if (s->n && w->size < s->last_size && strcmp(w->pattern, "subsequent") != 0)
		s->collapses++;
	s->prev_start = s->n ? s->last_start : w->start;
	s->last_start = w->start;
	s->last_end = w->start + w->size;
	if (w->has_order) {	/* page_cache_ra_order() reads ra->size and async_size */
		s->ra_size = w->size;
		s->ra_async = w->async;
	}
	s->random_only &= random;
	if (!s->n)
		s->first_ts = w->ts;
	s->last_ts = w->ts;
	s->n++;
	if (w->size > s->max) {
		s->max = w->size;
		s->ramp = s->n;
	}
	if (w->has_ra_pages && w->ra_pages > s->ra_pages)
		s->ra_pages = w->ra_pages;
	if (s->run && w->size != s->last_size && sizes_flush(st, s) < 0)
		return -1;
	s->last_size = w->size;
	s->run++;
	return 0;
}

/* ---- windows ---- */

/*
 * Pages the triggering access demanded: for a read, the pages it asked for;
 * for a fault, the faulting page (under VM_SEQ_READ the kernel calls
 * page_cache_sync_ra() with ra_pages as req_count, which is the kernel's size,
 * not the program's demand).
 */
static uint64_t demanded(const struct trigger *tr)
{
	return tr->fault ? 1 : tr->req_count;
}

/* DESIGN pattern rules for a window after a sync trigger, checked in order. */
static const char *sync_pattern(const struct window *w, const struct trigger *tr)
{
	if (w->start == 0)
		return "initial";
	if (demanded(tr) > tr->ra_pages)
		return "oversize";
	/* nothing read ahead: a random miss, unless the kernel saw the read as
	 * sequential and its window was all ra_pages allow (read_ahead_kb 4) */
	if (w->size <= demanded(tr) && !(tr->sequential && w->size >= tr->ra_pages))
		return "random";
	return "sync";
}

/*
 * After an async trigger the window is subsequent when it continues its
 * stream with the stream's own readahead state: it starts where the stream's
 * latest window ended, and the trigger carried that window's size and async
 * size (the state of the descriptor that read it). Otherwise the kernel
 * rebuilt the state from the page cache (context readahead: interleaved
 * reads through one descriptor, several readers of one file). Without a
 * trigger, the kind of readahead event says.
 */
static const char *pattern_of(const struct window *w, const struct trigger *tr,
			      const struct stream *s, bool unbounded, bool exact)
{
	if (tr && tr->kind == TRIG_SYNC)
		return sync_pattern(w, tr);
	if (tr)
		return exact && tr->ra_size == s->ra_size && tr->ra_async == s->ra_async ?
			       "subsequent" : "context";
	return unbounded ? "forced" : "around";
}

static void close_window(struct ra_state *st, struct task *t, int64_t ts)
{
	if (t->win >= 0 && !win_peek(st, t->win)->end_ts)
		win_at(st, t->win)->end_ts = ts;
	t->win = -1;
}

/* Demand pages are not readahead pages: what a sync trigger's access asked
 * for (demanded()), the faulting page of a read-around. */
static void set_demand(struct window *w, const struct trigger *tr, const struct task *t)
{
	if (tr && tr->kind == TRIG_SYNC) {
		w->demand_start = tr->index;
		w->demand_pages = (uint32_t)(demanded(tr) < UINT32_MAX ? demanded(tr) : UINT32_MAX);
	} else if (!tr && !w->has_order) {
		return;		/* forced: all of it was asked for ahead of use */
	} else if (!tr && t->acc == ACC_FAULT && t->acc_file == w->file) {
		w->demand_start = t->acc_index;
		w->demand_pages = 1;
	}
}

/* What the window event and the trigger say: size, order, ra_pages, trigger. */
static void window_fields(struct window *w, const struct ra_event *ev, const struct trigger *tr)
{
	bool unbounded = ev->type == RA_EV_RA_UNBOUNDED;

	if (!unbounded) {
		w->has_order = true;
		w->order = ev->ra.order;
		w->has_ra_pages = true;
		w->ra_pages = ev->ra.ra_pages;
	} else if (tr) {
		w->has_ra_pages = true;
		w->ra_pages = tr->ra_pages;
	}
	if (tr) {
		w->trigger = tr->kind;
		w->trigger_seq = tr->seq;
		w->trigger_index = tr->index;
		w->req_count = tr->req_count;
		w->has_req = true;
		w->mmap = tr->mmap;
	} else {
		w->mmap = !unbounded;
	}
}

static int open_window(struct ra_state *st, const struct ra_event *ev, int64_t seq, int file)
{
	struct task *t = task_of(st, ev->pid);
	bool unbounded = ev->type == RA_EV_RA_UNBOUNDED, exact, random;
	struct trigger *tr;
	struct window *w;
	struct stream *s;
	int id;

	if (!t)
		return -1;
	tr = t->pending.kind != TRIG_NONE && t->pending.file == file ? &t->pending : NULL;
	close_window(st, t, (int64_t)ev->ts_ns);
	id = st->nwins;
	if (!(w = ra_slots_make(st->wins, id)))
		return -1;
	st->nwins++;
	*w = (struct window){ .seq = seq, .ts = (int64_t)ev->ts_ns, .pid = ev->pid, .file = file,
			      .start = ev->ra.index, .size = ev->ra.size,
			      .async = ev->ra.async_size };
	window_fields(w, ev, tr);
	set_demand(w, tr, t);
	random = tr && tr->kind == TRIG_SYNC && !strcmp(sync_pattern(w, tr), "random");
	w->stream = stream_for(st, w, tr, random, unbounded && !tr, &exact);
	if (w->stream < 0)
		return -1;
	s = stream_at(st, w->stream);
	w->pattern = pattern_of(w, tr, s, unbounded, exact);
	see_page(st, file, w->start);
	if (stream_add(st, s, w, random) < 0)
		return -1;
	t->pending.kind = TRIG_NONE;
	t->win = id;
	t->read_since_win = false;
	t->last_was_order = !unbounded;
	return 0;
}

/* A ra_unbounded right after the task's ra_order, starting inside it, is
 * that window's fallback path (page_cache_ra_order -> do_page_cache_ra). */
static bool is_fallback(struct ra_state *st, struct task *t, const struct ra_event *ev, int file)
{
	const struct window *w;

	if (!t->last_was_order || t->win < 0 || t->pending.kind != TRIG_NONE)
		return false;
	w = win_peek(st, t->win);
	return w->file == file && ev->ra.index >= w->start && ev->ra.index < w->start + w->size;
}

static int on_readahead(struct ra_state *st, const struct ra_event *ev, int64_t seq)
{
	int file;
	struct task *t;

	if (ra_event_is_call(ev->type)) {
		/* advice_calls() pairs them with their windows; the window the call
		 * forces is its own, not the fallback of the task's latest one */
		t = task_of(st, ev->pid);
		if (!t)
			return -1;
		t->last_was_order = false;
		t->pending.kind = TRIG_NONE;	/* the call's window is forced, no trigger's */
		return 0;
	}
	file = file_of(st, ev->ra.dev, ev->ra.ino);
	t = task_of(st, ev->pid);
	if (file < 0 || !t)
		return -1;
	switch (ev->type) {
	case RA_EV_SYNC_RA:
	case RA_EV_ASYNC_RA:
		close_window(st, t, (int64_t)ev->ts_ns);
		t->pending = (struct trigger){
			.kind = ev->type == RA_EV_SYNC_RA ? TRIG_SYNC : TRIG_ASYNC,
			.file = file, .seq = seq, .index = ev->ra.index,
			.req_count = ev->ra.req_count, .ra_pages = ev->ra.ra_pages,
			.mmap = t->acc == ACC_FAULT && t->acc_file == file,
		};
		t->pending.fault = t->pending.mmap && t->acc_index == ev->ra.index;
		t->pending.ra_size = ev->ra.size;
		t->pending.ra_async = ev->ra.async_size;
		/* page_cache_sync_ra() reads a miss next to the previous read as sequential */
		t->pending.sequential = (ev->has_mask & RA_HAS_PREV_POS) && ev->ra.prev_pos >= 0 &&
					ev->ra.index - ((uint64_t)ev->ra.prev_pos >> st->page_shift) <= 1;
		if (ev->type == RA_EV_ASYNC_RA)
			t->mark[t->nmark++ % MARKS] = (struct async_mark){
				.file = file, .index = ev->ra.index, .req_count = ev->ra.req_count,
				.seq = seq, .done = st->done };
		t->last_was_order = false;
		see_page(st, file, ev->ra.index);
		return 0;
	case RA_EV_RA_UNBOUNDED:
		if (is_fallback(st, t, ev, file)) {
			win_at(st, t->win)->fallback = true;
			t->last_was_order = false;
			return 0;
		}
		return open_window(st, ev, seq, file);
	default:
		return open_window(st, ev, seq, file);
	}
}

/* ---- page cache ---- */

static bool in_demand(const struct window *w, uint64_t index)
{
	return w->demand_pages && index >= w->demand_start &&
	       index < w->demand_start + w->demand_pages;
}

/* Pages added by the window's task, for its file, inside it, before the task's
 * next trigger or window are the window's; readahead pages are those of them
 * that were not demanded. */
/*
 * Page @key of a readahead page evicted unused is in the page cache again.
 * Read in by a window (a read missed it), it thrashed: the device read it
 * twice. Added any other way (a write after a truncation, an O_DIRECT or
 * splice fill), nothing was read again and the eviction is forgiven.
 */
static void ghost_settle(struct ra_state *st, uint64_t key, bool read_in)
{
	struct ghost_head *ghost = ra_pages_get(&st->ghosts, key);

	if (!ghost)
		return;
	for (int g = ghost->newest - 1, next; g >= 0; g = next) {
		next = st->ghost[g].next;
		if (read_in)
			win_at(st, st->ghost[g].win)->thrashed++;
		st->ghost[g].next = st->free_ghost;
		st->free_ghost = g;
	}
	ra_pages_del(&st->ghosts, key);
}

/* A folio added by task @t (the event's). */
static int on_add(struct ra_state *st, struct task *t, const struct ra_event *ev, int file)
{
	uint64_t first = ev->page.index, n = 1ULL << ev->page.order, start = 0, size = 0;
	struct window *w;
	bool inside = false, mine = false;

	if (!t)
		return -1;
	see_page(st, file, first + n - 1);
	if (first + n > file_peek(st, file)->tracked_end)
		file_at(st, file)->tracked_end = first + n;
	/* a window's pages are added before its task's next read() returns: an add
	 * after it is the task's own write (a rewrite after a truncation), not a read */
	if (t->win >= 0 && !t->read_since_win) {
		const struct window *tw = win_peek(st, t->win);

		if (tw->file == file) {
			mine = true;
			start = tw->start;
			size = tw->size;
		}
	}
	/* (the ghosts' windows may take the slot of the window: its bounds are copied) */
	for (uint64_t i = first; i < first + n; i++) {
		bool win_page = mine && i >= start && i < start + size;

		inside |= win_page;
		ghost_settle(st, KEY(file, i), win_page);
	}
	if (!inside)
		return 0;
	w = win_at(st, t->win);
	for (uint64_t i = first; i < first + n; i++) {
		bool win_page = i >= w->start && i < w->start + w->size;
		bool ra = win_page && !in_demand(w, i);
		struct page *p;
		bool fresh;

		p = ra_pages_put(&st->cache, KEY(file, i), &fresh);
		if (!p)
			return -1;
		p->win = t->win;
		p->order = (uint8_t)ev->page.order;
		p->state = ra ? PG_RA_UNUSED : PG_OTHER;
		w->added += win_page;
		w->ra_added += ra;
	}
	return 0;
}

static int ghost_alloc(struct ra_state *st)
{
	int g = st->free_ghost;

	if (g >= 0) {
		st->free_ghost = st->ghost[g].next;
		return g;
	}
	if (grow_array((void **)&st->ghost, &st->cap_ghost, st->nghost + 1, sizeof(*st->ghost)))
		return -1;
	return st->nghost++;
}

/*
 * A folio of PMD size in a mapped file may have been mapped with no event:
 * fault-around maps it by one PMD in filemap_map_pmd(), which returns before
 * mm_filemap_map_pages. Its pages not seen accessed are mapped (access
 * unknown), not unused.
 */
static bool pmd_unseen(struct ra_state *st, int file, const struct page *p)
{
	return p->order >= st->pmd_order && file_peek(st, file)->mapped;
}

static int on_delete(struct ra_state *st, const struct ra_event *ev, int file)
{
	uint64_t first = ev->page.index, n = 1ULL << ev->page.order;

	if (first >= file_peek(st, file)->tracked_end)
		return 0;	/* no page of a window there */

	for (uint64_t i = first; i < first + n; i++) {
		uint64_t key = KEY(file, i);
		struct page *p = ra_pages_get(&st->cache, key);
		struct ghost_head *ghost;
		bool fresh;

		if (!p)
			continue;
		if (p->state == PG_RA_UNUSED && pmd_unseen(st, file, p)) {
			p->state = PG_RA_MAPPED;
			win_at(st, p->win)->mapped++;
		}
		if (p->state == PG_RA_UNUSED) {
			/* evicted before any access: remembered to see it thrash */
			int g = ghost_alloc(st);

			win_at(st, p->win)->evicted++;
			ghost = ra_pages_put(&st->ghosts, key, &fresh);
			if (!ghost || g < 0)
				return -1;
			st->ghost[g].win = p->win;
			st->ghost[g].next = fresh ? -1 : ghost->newest - 1;
			ghost->newest = g + 1;
		}
		ra_pages_del(&st->cache, key);
	}
	return 0;
}

/* An access of one page: a readahead page is used (an evicted one thrashes
 * when a read brings it back: ghost_settle). Returns true when it made a
 * readahead page used. */
static bool touch(struct ra_state *st, int file, uint64_t index)
{
	struct page *p = ra_pages_get(&st->cache, KEY(file, index));

	if (!p || (p->state != PG_RA_UNUSED && p->state != PG_RA_MAPPED))
		return false;
	if (p->state == PG_RA_MAPPED)
		win_at(st, p->win)->mapped--;
	p->state = PG_RA_USED;
	win_at(st, p->win)->used++;
	return true;
}

/* touch() of a page a read copied with no event naming it: counted as inferred. */
static bool touch_inferred(struct ra_state *st, int file, uint64_t index)
{
	const struct page *p = ra_pages_get(&st->cache, KEY(file, index));
	int32_t win = p ? p->win : -1;

	if (!touch(st, file, index))
		return false;
	win_at(st, win)->inferred++;
	return true;
}

/*
 * Mapped into a process with no access seen: fault-around maps the cached
 * folios of its range (whole large folios since Linux 6.18, so every page of
 * each folio the range touches), and a page then touched through the mapping
 * raises no event. Returns the first page after the folio of @index.
 */
static uint64_t map_folio(struct ra_state *st, int file, uint64_t index)
{
	struct page *p = ra_pages_get(&st->cache, KEY(file, index));
	uint64_t n, first;

	if (!p)
		return index + 1;
	n = 1ULL << p->order;
	first = index & ~(n - 1);
	for (uint64_t i = first; i < first + n; i++) {
		p = ra_pages_get(&st->cache, KEY(file, i));
		if (p && p->state == PG_RA_UNUSED) {
			p->state = PG_RA_MAPPED;
			win_at(st, p->win)->mapped++;
		}
	}
	return first + n;
}

/* Whether one of the latest windows of the task's streams on the file starts at @index. */
static bool starts_window(struct ra_state *st, const struct taskfile *tf, uint64_t index)
{
	for (int k = 0; tf && k < tf->nheads; k++) {
		const struct stream *s = stream_peek(st, tf->heads[k]);

		if (s->n && (s->last_start == index || s->prev_start == index))
			return true;
	}
	return false;
}

/* A reader that recently left pages out between its reads (strides). */
static bool skipping(const struct taskfile *tf)
{
	return tf->skipped_at && tf->clock - tf->skipped_at <= SKIP_MEMORY;
}

/*
 * A read() that shows only its tail. filemap_get_pages() emits
 * mm_filemap_get_pages only on its fully successful path: when the last folio
 * of a batch is still being read, it returns the folios before it to
 * filemap_read() without the event, and a later call of the same read()
 * waits for that folio and emits [it, end of read]. That folio carries the
 * PG_readahead mark of a window whose I/O is in flight, so the call first
 * triggered async readahead at it for the pages up to the read's end: the
 * kernel's trace of such a read is an async trigger of the task at a page
 * after the range's previous read and at most at @first, with req_count =
 * @last + 1 - its index, after the task's previous event of the range (a read
 * spanning several marks leaves several). A window without a mark (one that
 * reaches the end of the file, or reads nothing ahead) leaves no trigger: a
 * tail may then start where one of the task's latest windows starts, the
 * boundary of the I/O it waited for.
 */
static const struct async_mark *mark_of(const struct task *t, const struct taskfile *tf, int k,
					int file, uint64_t first, uint64_t last)
{
	for (int i = 0; i < MARKS && i < t->nmark; i++) {
		const struct async_mark *m = &t->mark[i];

		if (m->file == file && m->seq > tf->seq[k] && m->index > tf->last[k] &&
		    m->index <= first && m->req_count == last + 1 - m->index)
			return m;
	}
	return NULL;
}

/* Whole reads of a file that show by themselves that its reader reads one size. */
#define SIZE_READS 4

/*
 * A reader of one size: its reads span n or n + 1 pages. A file read in a few
 * reads cannot show it alone (tar reads a small file in two or three reads of
 * what is left of its record, which may happen to be of one width): until
 * it has SIZE_READS of them, the task's reads of every file must show it too.
 */
static bool one_size(const struct task *t, const struct taskfile *tf)
{
	if (!tf->span_min || tf->span_max - tf->span_min > 1)
		return false;
	return tf->nreads >= SIZE_READS || !t->span_min || t->span_max - t->span_min <= 1;
}

/*
 * A whole read that starts at such a page shows the same. For a reader of
 * one size (its reads span n or n + 1 pages: dd, fio, a read(C) loop, the
 * readers whose strides can hide under a page) it is told from a tail by its
 * width (a tail lost at least its first page, so it is narrower than n) or,
 * for a tail as wide as n, by the wait: a block completion after the
 * trigger. (Some file systems, btrfs among them, mark a folio read in a
 * worker after the block completion, so the completion does not always fall
 * between: the narrow tails do not need it.) A reader of many sizes (tar)
 * that never left pages out has no whole read to mistake for a tail.
 */
/*
 * A read that meets no mark leaves no async trigger: inside a window without
 * one (no async part, or its mark past the end of the file), or past the
 * window's mark, the tail of a read need not start at the window's start,
 * as the bios of one window complete apart, and a file system that marks
 * folios read in a worker (btrfs) lets a read meet a folio still locked
 * mid-window. The pages from the range's end to @first, all in one window
 * of the task's whose mark is not among them, with a block completion after
 * the range's latest event (the read waited for @first), are a tail's.
 */
static bool unmarked_tail(struct ra_state *st, const struct task *t, const struct taskfile *tf,
			  int k, int file, uint64_t first)
{
	const struct page *p = ra_pages_get(&st->cache, KEY(file, first));
	const struct window *w;
	uint64_t mark;

	if (!p || p->win < 0 || !st->has_done || st->done <= tf->done[k])
		return false;
	w = win_peek(st, p->win);
	mark = w->start + w->size - w->async;
	if (w->file != file || w->pid != t->pid ||
	    (w->async && mark > tf->last[k] && mark <= first &&
	     !(size_of(st, file) >= 0 && mark >= (uint64_t)size_of(st, file))))
		return false;
	for (uint64_t i = tf->last[k] + 1; i < first; i++) {
		const struct page *q = ra_pages_get(&st->cache, KEY(file, i));

		if (!q || q->win != p->win)
			return false;
	}
	return true;
}

/*
 * The batch before a dropped folio ends on a folio boundary: a tail that
 * starts at a folio of a window, right after a large folio of a window that
 * holds the page after the range's previous read (the batch's last folio
 * before the one it could not return), left exactly that folio's rest out of
 * its events. A large folio's I/O can complete apart from the next one's
 * lock, so no block completion need fall between the two events. Large
 * folios only: with pages of order 0 every page starts a folio, and a reader
 * that skipped one page would look the same.
 */
static bool folio_tail(struct ra_state *st, const struct taskfile *tf, int k, int file,
		       uint64_t first)
{
	const struct page *p = ra_pages_get(&st->cache, KEY(file, first));
	const struct page *q = first ? ra_pages_get(&st->cache, KEY(file, first - 1)) : NULL;
	uint64_t n;

	if (!p || !q || p->win < 0 || q->win < 0 || !q->order || q->order >= 64 ||
	    (p->order < 64 && first & ((1ULL << p->order) - 1)))
		return false;
	n = 1ULL << q->order;
	return first % n == 0 && tf->last[k] + 1 >= first - n && tf->last[k] + 1 < first;
}

static bool is_tail(struct ra_state *st, const struct task *t, const struct taskfile *tf,
		    int k, int file, uint64_t first, uint64_t last)
{
	const struct async_mark *m = mark_of(t, tf, k, file, first, last);
	bool narrow = tf->span_min && last - first + 1 < tf->span_min;

	if (narrow || (!one_size(t, tf) && !skipping(tf)))
		return m || starts_window(st, taskfile_of(st, file, owner_of(st, t->pid)), first) ||
		       unmarked_tail(st, t, tf, k, file, first) ||
		       (!skipping(tf) && folio_tail(st, tf, k, file, first));
	return m && st->has_done && st->done > m->done;
}

/*
 * The pages before a tail that its read() copied. For a reader of one size,
 * or one that left pages out, from the latest page its narrowest read ending
 * at @last could start at: a read of one size spans its narrowest width when
 * it starts on a page boundary and one page more when it starts in the page
 * where the read before ended, so this is exactly where the pages it copied
 * begin, and no page it left out is counted. For a reader of many sizes that
 * never leaves pages out, from where the range's previous read ended.
 * Only when every one of those pages is a cached page of a window, as pages
 * of a batch are. Returns the pages made used.
 */
static uint64_t fill_tail(struct ra_state *st, const struct task *t, const struct taskfile *tf,
			  int k, int file, uint64_t first, uint64_t last)
{
	uint64_t from = tf->last[k] + 1, n = 0;

	if (one_size(t, tf) || skipping(tf)) {
		if (tf->span_min > last + 1)
			return 0;
		from = from > last + 1 - tf->span_min ? from : last + 1 - tf->span_min;
	} else if (last - tf->last[k] > (tf->span_max > t->span_max ? tf->span_max : t->span_max)) {
		return 0;	/* wider than any read the task made */
	}
	for (uint64_t i = from; i < first; i++)
		if (!ra_pages_get(&st->cache, KEY(file, i)))
			return 0;
	for (uint64_t i = from; i < first; i++)
		n += touch_inferred(st, file, i);
	return n;
}

/*
 * The width of a read. The first read of a file is often of its own size (tar
 * reads a file's first chunk into what is left of its record): the narrowest
 * width is taken from the reads after it, when there are some.
 */
static void note_span(struct task *t, struct taskfile *tf, uint64_t first, uint64_t last)
{
	uint64_t span = last - first + 1;

	if (tf->nreads++ == 1 || !tf->span_min || span < tf->span_min)
		tf->span_min = span;
	if (span > tf->span_max)
		tf->span_max = span;
	if (tf->nreads > 1 && (!t->span_min || span < t->span_min))
		t->span_min = span;
	if (span > t->span_max)
		t->span_max = span;
}

/*
 * Pages a read() copied, though no event named them: mm_filemap_get_pages
 * names [the batch's first page, the read's last], so the batches of one read
 * share their last page, and a batch that waited on a folio under I/O
 * returns without the event. The pages from one batch's first to the next
 * one's were copied, and when the read ends (the range's next read, or the
 * trace's end) so were all of its last batch's range: the cached pages of
 * [@from, @to) are used.
 */
static void copied(struct ra_state *st, int file, uint64_t from, uint64_t to)
{
	uint64_t end = file_peek(st, file)->tracked_end;

	for (uint64_t i = from; i < to && i < end; i++)
		touch_inferred(st, file, i);
}

/*
 * The read of range @k of task @pid ended: the rest of its last batch's range
 * was copied. Pages cached at the range's latest event are the read's; pages
 * of a window opened after it only when the window's trigger was the read's
 * own (the task's, with req_count to the read's end): a later read's
 * windows, or another task's, are not.
 */
static void read_end(struct ra_state *st, const struct taskfile *tf, int k, int file, int pid)
{
	uint64_t end = file_peek(st, file)->tracked_end;

	for (uint64_t i = tf->first[k]; i <= tf->last[k] && i < end; i++) {
		const struct page *p = ra_pages_get(&st->cache, KEY(file, i));
		const struct window *w;

		if (!p || p->win < 0)
			continue;
		w = win_peek(st, p->win);
		if (w->seq > tf->seq[k] &&
		    (w->pid != pid || !w->has_req || w->trigger_index + w->req_count - 1 != tf->last[k]))
			continue;
		touch_inferred(st, file, i);
	}
}

static int end_reads(int64_t id, void *rec, void *arg)
{
	const struct taskfile *tf = rec;
	int file = (int)(uint32_t)tf->key - 1;

	(void)id;
	for (int k = 0; k < tf->nranges; k++)
		read_end(arg, tf, k, file, (int)(tf->key >> 32));
	return 0;
}

/* The reads still open when the trace ends. */
static void reads_end(struct ra_state *st)
{
	if (ra_slots_each(st->tfs, end_reads, st) < 0)
		st->failed = true;
}

/* The range a new read() goes to: a free one, else the least recent. */
static int range_slot(struct taskfile *tf)
{
	int k = 0;

	if (tf->nranges < RANGES) {
		tf->age[tf->nranges] = 0;
		return tf->nranges++;
	}
	for (int j = 1; j < RANGES; j++)
		k = tf->age[j] < tf->age[k] ? j : k;
	return k;
}

/*
 * One mm_filemap_get_pages range of a task on a file, against its recent
 * ranges (one per descriptor, roughly): a range that adjoins or overlaps one
 * continues it (a sequential read, or a later batch of the same read); a tail
 * fills the pages its read copied without an event; any other range is a new
 * read, and one that starts a little past a range's end shows a reader that
 * leaves pages out (strides), whose tails are filled more cautiously.
 */
static void read_range(struct ra_state *st, struct task *t, struct taskfile *tf, int file,
		       uint64_t first, uint64_t last, int64_t seq)
{
	int k, best = -1;

	tf->clock++;
	for (k = 0; k < tf->nranges; k++)
		if (first <= tf->last[k] + 1 && last + 1 >= tf->first[k])
			break;
	/*
	 * The first batch of the next read, unless it is a tail that adjoins:
	 * one after an async trigger at it, or one narrower than the narrowest
	 * read that waited for I/O (a block completion since the range's latest
	 * event), or, once the file's reads have shown their width (SIZE_READS
	 * of them), narrower than that: btrfs marks a folio read in a worker
	 * after the block completion, so a read that waited for it need not show
	 * a completion, and one such tail taken for a read would make every
	 * later tail look like a whole read. Such a tail is no wider than its
	 * read, so it still bounds the widest read from below.
	 */
	if (k < tf->nranges && last != tf->last[k]) {
		bool waited = st->has_done && st->done > tf->done[k];

		if (!mark_of(t, tf, k, file, first, last) &&
		    !((waited || tf->nreads >= SIZE_READS) && tf->nreads > 1 &&
		      last - first + 1 < tf->span_min))
			note_span(t, tf, first, last);
		else if (last - first + 1 > tf->span_max)
			tf->span_max = last - first + 1;
	}
	for (int j = 0; k == tf->nranges && j < tf->nranges; j++)
		if (tf->last[j] + 1 < first && (best < 0 || tf->last[j] > tf->last[best]))
			best = j;
	if (k < tf->nranges && last == tf->last[k] && first > tf->first[k])
		copied(st, file, tf->first[k], first);	/* a later batch of the read */
	else if (k < tf->nranges && last != tf->last[k])
		read_end(st, tf, k, file, t->pid);	/* the next read of the range */
	if (best >= 0 && is_tail(st, t, tf, best, file, first, last)) {
		read_end(st, tf, best, file, t->pid);
		fill_tail(st, t, tf, best, file, first, last);
		k = best;
	} else if (k == tf->nranges) {
		if (best >= 0 && first - tf->last[best] - 1 <= tf->span_max)
			tf->skipped_at = tf->clock;
		note_span(t, tf, first, last);
		k = range_slot(tf);
		if (tf->age[k])	/* a range reused: its read ended */
			read_end(st, tf, k, file, t->pid);
	}
	tf->first[k] = first;
	tf->last[k] = last;
	tf->seq[k] = seq;
	tf->done[k] = st->done;
	tf->age[k] = tf->clock;
}

/* finish_fault() maps a folio of PMD size whole (do_set_pmd()), others one page. */
static void map_pmd_folio(struct ra_state *st, int file, uint64_t index)
{
	struct page *p = ra_pages_get(&st->cache, KEY(file, index));

	if (p && p->order >= st->pmd_order)
		map_folio(st, file, index);
}

/* An access by task @t (the event's). */
static int on_access(struct ra_state *st, struct task *t, const struct ra_event *ev, int64_t seq,
		     int file)
{
	uint64_t first = ev->page.index, last = first, end = file_peek(st, file)->tracked_end;
	struct taskfile *tf;

	if (!t)
		return -1;
	if (ev->has_mask & RA_HAS_LAST_INDEX && ev->page.last_index >= first)
		last = ev->page.last_index;
	if ((ev->type == RA_EV_GET_PAGES && last - first >= MAX_READ_BYTES >> st->page_shift) ||
	    (ev->type == RA_EV_MAP_PAGES && last - first >= MAX_MAP_PAGES))
		return 0;	/* damaged: no read() or fault-around is that large */
	see_page(st, file, last);
	t->acc_file = file;
	t->acc_index = first;
	switch (ev->type) {
	case RA_EV_GET_PAGES:	/* exactly the pages of its range */
		t->acc = ACC_READ;
		t->read_since_win = true;
		tf = taskfile_of(st, file, ev->pid);
		if (!tf)
			return -1;
		read_range(st, t, tf, file, first, last, seq);
		break;
	case RA_EV_FAULT:	/* fires before the page is read: a miss is a demand */
		t->acc = ACC_FAULT;
		file_at(st, file)->mapped = true;
		break;
	default:
		t->acc = ACC_MAP;
		file_at(st, file)->mapped = true;
		break;
	}
	/* no page at or past the end of the windows' pages is a readahead page */
	if (first >= end)
		return 0;
	last = last < end ? last : end - 1;
	switch (ev->type) {
	case RA_EV_GET_PAGES:
		for (uint64_t i = first; i <= last; i++)
			touch(st, file, i);
		break;
	case RA_EV_FAULT:	/* a file fault maps the faulting page, a PMD folio whole */
		touch(st, file, first);
		map_pmd_folio(st, file, first);
		break;
	default:		/* map_pages maps the cached folios of its range */
		for (uint64_t i = first; i <= last;)
			i = map_folio(st, file, i);
		break;
	}
	return 0;
}

static int on_page(struct ra_state *st, const struct ra_event *ev, int64_t seq)
{
	struct task *t = task_of(st, ev->pid);
	int file;

	if (!t)
		return -1;
	if (!t->on_device) {
		if (grow_array((void **)&st->dev_pids, &st->cap_dev_pids, st->ndev_pids + 1,
			       sizeof(*st->dev_pids)))
			return -1;
		st->dev_pids[st->ndev_pids++] = ev->pid;
		t->on_device = true;
	}

	if ((ev->type == RA_EV_PAGE_ADD || ev->type == RA_EV_PAGE_DELETE) &&
	    ev->page.order > MAX_FOLIO_ORDER)
		return 0;	/* damaged: no kernel has folios this large */
	file = file_of(st, ev->page.dev, ev->page.ino);
	if (file < 0)
		return -1;
	switch (ev->type) {
	case RA_EV_PAGE_ADD:
		return on_add(st, t, ev, file);
	case RA_EV_PAGE_DELETE:
		return on_delete(st, ev, file);
	default:
		return on_access(st, t, ev, seq, file);
	}
}

/* ---- output ---- */

static int64_t eof_of(struct ra_state *st, int file)
{
	const struct file *f = file_peek(st, file);

	return f->size_pages >= 0 ? f->size_pages : (int64_t)f->eof;
}

/* What the model's inputs take of a window's row. */
static void feed_window(struct ra_state *st, struct window *w, int64_t eof, int64_t pending)
{
	int64_t end = (int64_t)(w->start + w->size), covered = (eof < end ? eof : end) -
							      (int64_t)w->start;
	struct ra_feed_window now = {
		.dev = file_peek(st, w->file)->dev, .size = w->size, .stream = w->stream + 1,
		.added = (int64_t)w->added, .ra_added = (int64_t)w->ra_added,
		.thrashed = (int64_t)w->thrashed, .covered = covered > 0 ? covered : 0,
		.ra_pages = w->has_ra_pages && w->pattern && strcmp(w->pattern, "around") &&
			    strcmp(w->pattern, "forced") ? (int64_t)w->ra_pages : -1,
		.unused = pending + (int64_t)w->evicted,
	};

	struct ra_feed_window was = {
		.dev = now.dev, .size = w->fed.size, .stream = w->fed.stream,
		.added = w->fed.added, .ra_added = w->fed.ra_added, .thrashed = w->fed.thrashed,
		.covered = w->fed.covered, .ra_pages = w->fed.ra_pages, .unused = w->fed.unused,
	};

	if (now.ra_pages > INT32_MAX || (uint64_t)now.added > UINT32_MAX ||
	    (uint64_t)now.ra_added > UINT32_MAX || (uint64_t)now.thrashed > UINT32_MAX)
		ra_model_feed_spoil(st->feed, "a window's pages do not fit its record");
	ra_model_feed_window(st->feed, &now, w->fed.has ? &was : NULL);
	w->fed = (struct fed_row){ .has = true, .stream = (int32_t)now.stream,
				   .ra_pages = (int32_t)now.ra_pages, .size = (uint32_t)now.size,
				   .added = (uint32_t)now.added,
				   .ra_added = (uint32_t)now.ra_added,
				   .thrashed = (uint32_t)now.thrashed,
				   .covered = (uint32_t)now.covered, .unused = now.unused };
}

/* A window's row as final (@eof: the file's size in pages, or its end seen). */
static int put_window(struct ra_state *st, struct ra_batch *q, int64_t run_id, int id,
		      struct window *w, int64_t eof)
{
	const struct file *f = file_peek(st, w->file);
	static const char *const trig[] = { "none", "sync", "async" };
	int64_t pending = (int64_t)(w->ra_added - w->used - w->evicted - w->mapped);
	bool trigger = w->trigger != TRIG_NONE;
	int rc;

	rc = ra_batch_put(q, "ixiixiixtoootxiiiooxoiiiiiiiioii", run_id, id + 1, w->seq, w->ts,
			  w->pid, (int64_t)f->dev, (int64_t)f->ino, w->stream + 1,
			  trig[w->trigger], trigger, w->trigger_seq, trigger,
			  (int64_t)w->trigger_index, (int)w->has_req, (int64_t)w->req_count,
			  w->pattern, (int)w->mmap, (int64_t)w->start, (int64_t)w->size,
			  (int64_t)w->async, (int)w->has_order, (int64_t)w->order,
			  (int)w->has_ra_pages, (int64_t)w->ra_pages, (int)w->fallback,
			  w->demand_pages > 0, (int64_t)w->demand_start, (int64_t)w->demand_pages,
			  eof, (int64_t)w->added, (int64_t)w->ra_added,
			  (int64_t)w->used, (int64_t)w->evicted, (int64_t)w->thrashed, pending,
			  w->end_ts != 0, w->end_ts, (int64_t)w->mapped, (int64_t)w->inferred);
	if (rc == 0 && st->feed)
		feed_window(st, w, eof, pending);
	return rc;
}

/* At the end of the trace: the pages of PMD folios of mapped files not seen accessed. */
static int settle_pmd(struct ra_state *st)
{
	struct ra_pages_iter it = { 0 };
	struct page *p;
	uint64_t key;

	while ((p = ra_pages_next(&st->cache, &it, &key))) {
		int file = (int)(key >> 40) - 1;

		if (p->state == PG_RA_UNUSED && pmd_unseen(st, file, p)) {
			p->state = PG_RA_MAPPED;
			win_at(st, p->win)->mapped++;
		}
	}
	return 0;
}

struct put_ctx {
	struct ra_state *st;
	struct ra_batch *q;
	int64_t run_id;
	int n;			/* rows written */
};

static int put_one(int64_t id, void *w, void *arg)
{
	struct put_ctx *c = arg;

	c->n++;
	return put_window(c->st, c->q, c->run_id, (int)id, w,
			  eof_of(c->st, ((const struct window *)w)->file));
}

/* The windows' rows, written in batches: in the table once the pass flushes them. */
static struct ra_batch *put_stmt(struct ra_state *st)
{
	if (!st->put)
		st->put = ra_batch_new(st->db, "INSERT OR REPLACE INTO windows (run_id, window_id,"
			       " seq, ts_ns, pid, dev, ino, stream_id, trigger, trigger_seq,"
			       " trigger_index, req_count_pages, pattern, mmap, start_page, size_pages,"
			       " async_size_pages, folio_order, ra_pages, fallback, demand_start,"
			       " demand_pages, eof_page, pages_added, ra_pages_added, used,"
			       " evicted_unused, thrashed, pending, end_ts_ns, mapped, used_inferred)",
			       32);
	return st->put;
}

/*
 * The file's size in pages for a window's row written before the end, -1
 * when it is known only then: the run's, read before the events, or asked
 * when needed (checked at the end); live, else, the recorder's answer now,
 * asked for the rows only (the rows are mended at the end if the run names
 * the file with another size).
 */
static int64_t early_eof(struct ra_state *st, int file)
{
	struct file *f = file_at(st, file);
	const struct ra_live_inputs *in = st->live ? live_inputs(st->live) : NULL;

	if (f->size_pages >= 0)
		return f->size_pages;
	if (f->size_pages != SIZE_LATER || !in || !in->size)
		return -1;
	if (f->peek_pages == PEEK_NONE) {
		int64_t bytes = in->size(f->dev, f->ino, in->arg);

		f->peek_pages = bytes < 0 || bytes > MAX_FILE_BYTES ? -1 :
				(bytes + (1 << st->page_shift) - 1) >> st->page_shift;
	}
	f->peeked |= f->peek_pages >= 0;
	return f->peek_pages;
}

/*
 * A window written out of memory: its row too, as final, when its file's
 * size is known (its fates may still change: then it is written again).
 */
static int keep_window(int64_t id, void *rec, void *arg)
{
	struct ra_state *st = arg;
	struct window *w = rec;
	int64_t eof = early_eof(st, w->file);

	if (eof < 0)
		return 0;
	if (!put_stmt(st) || put_window(st, st->put, st->run_id, (int)id, w, eof) < 0)
		return -1;
	return 1;
}

/*
 * The rows of the windows not written yet, their number in *@late; the size
 * of a file peeked where it changed.
 */
static int write_windows(struct ra_state *st, struct ra_db *db, int64_t run_id, int *late)
{
	struct put_ctx ctx = { st, put_stmt(st), run_id, 0 };
	struct ra_stmt *mend;
	int ret = ctx.q ? ra_slots_each(st->wins, put_one, &ctx) : -1;

	if (ret == 0)
		ret = ra_batch_flush(ctx.q);	/* every row in the table, before any mend */

	for (int i = 0; ret == 0 && i < st->nfiles; i++) {
		const struct file *f = file_peek(st, i);
		struct file was = *f;

		if (!was.peeked || was.peek_pages == eof_of(st, i))
			continue;
		ra_model_feed_spoil(st->feed, "a file's size changed after its windows' rows");
		mend = ra_sql_prepare(db, "UPDATE windows SET eof_page = ?3 WHERE run_id = ?1"
				      " AND dev = ?2 AND ino = ?4");
		ret = mend ? ra_sql_put(mend, "iiii", run_id, (int64_t)was.dev, eof_of(st, i),
					(int64_t)was.ino) : -1;
		ra_sql_finalize(mend);
	}
	if (ret == 0 && st->failed)
		ret = -1;
	*late = ctx.n;
	return ret;
}

struct streams_ctx {
	struct ra_state *st;
	struct ra_batch *q;
	int64_t run_id;
};

static int put_stream(int64_t id, void *rec, void *arg)
{
	struct streams_ctx *c = arg;
	struct stream *s = rec;
	const struct file *f = file_peek(c->st, s->file);
	const char *sizes;

	if (sizes_flush(c->st, s) < 0)
		return -1;
	sizes = sizes_of(c->st, s);
	return ra_batch_put(c->q, "ixiixiiiiiiiot", c->run_id, id + 1, (int64_t)f->dev,
			    (int64_t)f->ino, s->pid, (int64_t)s->n, (int64_t)s->first_ts,
			    (int64_t)s->last_ts, s->n ? (int64_t)atoi(sizes) : (int64_t)0,
			    (int64_t)s->max, (int64_t)s->ramp, (int64_t)s->collapses,
			    s->ra_pages > 0, (int64_t)s->ra_pages, sizes);
}

static int write_streams(struct ra_state *st, struct ra_db *db, int64_t run_id)
{
	struct streams_ctx c = {
		.st = st, .run_id = run_id,
		.q = ra_batch_new(db, "INSERT INTO streams (run_id, stream_id, dev, ino, pid,"
				  " windows, first_ts_ns, last_ts_ns, initial_size_pages,"
				  " max_size_pages, ramp_windows, collapses, ra_pages, sizes)", 14),
	};
	int ret = c.q ? ra_slots_each(st->streams, put_stream, &c) : -1;

	if (ret == 0)
		ret = ra_batch_flush(c.q);
	ra_batch_free(c.q);
	return ret;
}

/*
 * File sizes ra-record found: the end of file for cache_hit and eof_hit.
 * A (dev, ino) given twice (a damaged file) takes its last valid size.
 */
static int load_sizes(struct ra_state *st, struct ra_db *db, int64_t run_id)
{
	struct ra_stmt *q = ra_sql_prepare(db, "SELECT dev, ino, size_bytes FROM files"
					   " WHERE run_id = ? AND size_bytes IS NOT NULL"
					   " ORDER BY rowid");
	size_t cap = 0, n = 0;
	int rc = -1;

	if (q && ra_sql_bind(q, "i", run_id) == 0)
		rc = 1;
	while (rc == 1 && (rc = ra_sql_step(q)) == 1) {
		int64_t dev, ino, size;

		ra_sql_row(q, "iii", &dev, &ino, &size);
		if (size < 0 || size > MAX_FILE_BYTES)
			continue;	/* damaged: no file system holds such a file */
		if (n == cap) {
			struct known_size *k = ra_big_realloc(st->sizes,
							      (cap ? cap * 2 : 64) * sizeof(*k));

			if (!k) {
				ra_set_error(RA_ERR_IO, "out of memory");
				rc = -1;
				break;
			}
			st->sizes = k;
			cap = cap ? cap * 2 : 64;
		}
		st->sizes[n] = (struct known_size){
			.dev = (uint32_t)dev, .ino = (uint64_t)ino, .ord = n,
			.pages = (size + (1 << st->page_shift) - 1) >> st->page_shift };
		n++;
	}
	ra_sql_finalize(q);
	if (rc < 0)
		return -1;
	if (n)
		ra_sort(st->sizes, n, sizeof(*st->sizes), cmp_known_ord);
	st->nsizes = 0;
	for (size_t i = 0; i < n; i++) {
		if (st->nsizes && cmp_known(&st->sizes[st->nsizes - 1], &st->sizes[i]) == 0)
			st->nsizes--;	/* a later row of the same file */
		st->sizes[st->nsizes++] = st->sizes[i];
	}
	return 0;
}

/* a page size no kernel has (a damaged database) counts as 4 KiB */
static int shift_of(int64_t page_size)
{
	for (int s = 9; s <= 20; s++)
		if (page_size == 1LL << s)
			return s;
	return 12;
}

static int page_shift(struct ra_db *db, int64_t run_id)
{
	int64_t ps = 0;

	ra_sql_one(db, "SELECT page_size FROM runs WHERE run_id = ?", "i", "i", run_id, &ps);
	return shift_of(ps);
}

/* The process of each task, where the run knows it. */
static int load_tgids(struct ra_state *st, struct ra_db *db, int64_t run_id)
{
	struct ra_stmt *q = ra_sql_prepare(db, "SELECT pid, tgid FROM tasks WHERE run_id = ?"
					   " AND tgid IS NOT NULL");
	int rc = -1;

	if (q && ra_sql_bind(q, "i", run_id) == 0)
		rc = 1;
	while (rc == 1 && (rc = ra_sql_step(q)) == 1) {
		int pid, tgid, *slot;
		bool fresh;

		ra_sql_row(q, "xx", &pid, &tgid);
		slot = ra_map_put(&st->tgids, (uint64_t)(uint32_t)pid + 1, &fresh);
		if (!slot) {
			ra_set_error(RA_ERR_IO, "out of memory");
			rc = -1;
			break;
		}
		*slot = tgid;
	}
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

/* Did the run record block completions (a read() that waited shows one)? */
static bool records_completions(struct ra_db *db, int64_t run_id)
{
	return ra_sql_one(db, "SELECT 1 FROM tracepoints WHERE run_id = ? AND system = 'block'"
			  " AND name IN ('block_rq_complete', 'block_bio_complete') AND enabled",
			  "i", "", run_id) == 1;
}

static void state_release(struct ra_state *st)
{
	for (int i = 0; i < st->nheaps; i++)
		free(st->heaps[i].text);
	free(st->heaps);
	ra_slots_free(st->streams);
	st->streams = NULL;
	ra_slots_free(st->files);
	st->files = NULL;
	ra_slots_free(st->wins);
	st->wins = NULL;
	free(st->ghost);
	free(st->dev_pids);
	ra_map_release(&st->files_by_key);
	ra_map_release(&st->task_ids);
	ra_slots_free(st->tasks);
	st->tasks = NULL;
	ra_map_release(&st->tf_ids);
	ra_slots_free(st->tfs);
	st->tfs = NULL;
	ra_map_release(&st->tgids);
	ra_sql_finalize(st->calls);
	st->calls = NULL;
	ra_batch_free(st->put);
	st->put = NULL;
	ra_pages_release(&st->cache);
	ra_pages_release(&st->ghosts);
	ra_big_free(st->sizes);
}

static int state_init(struct ra_state *st, int window_slots)
{
	memset(st, 0, sizeof(*st));
	st->free_ghost = -1;
	for (int i = 0; i < 4; i++)
		st->near_task[i] = -1;
	st->last_file = -1;
	st->max_slots = window_slots > 0 ? window_slots : WIN_SLOTS;
	if (ra_map_init(&st->files_by_key, sizeof(struct file_key)) < 0 ||
	    ra_map_init(&st->task_ids, sizeof(int)) < 0 ||
	    ra_map_init(&st->tf_ids, sizeof(int)) < 0 ||
	    ra_map_init(&st->tgids, sizeof(int)) < 0 ||
	    ra_pages_init(&st->cache, sizeof(struct page)) < 0 ||
	    ra_pages_init(&st->ghosts, sizeof(struct ghost_head)) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		state_release(st);
		return -1;
	}
	st->tfs = ra_slots_new("the readahead pass's reads of tasks", sizeof(struct taskfile),
			       window_slots > 0 ? window_slots : TF_SLOTS);
	st->streams = ra_slots_new("the readahead pass's streams", sizeof(struct stream),
				   window_slots > 0 ? window_slots : STREAM_SLOTS);
	st->files = ra_slots_new("the readahead pass's files", sizeof(struct file),
				 window_slots > 0 ? window_slots : FILE_SLOTS);
	st->tasks = ra_slots_new("the readahead pass's tasks", sizeof(struct task),
				 window_slots > 0 ? window_slots : TASK_SLOTS);
	if (!st->tfs || !st->streams || !st->files || !st->tasks) {
		state_release(st);
		return -1;
	}
	return 0;
}

static int call_event(struct ra_state *st, const struct ra_event *ev, int64_t seq);

static int on_event(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct ra_state *st = arg;
	int ret;

	if (st->handon)
		ra_tapq_put(st->handon, ev, seq);	/* its errors come back at the end */

	switch (ra_event_class(ev->type)) {
	case RA_CLASS_RA:
		ret = call_event(st, ev, seq) < 0 ? -1 : on_readahead(st, ev, seq);
		break;
	case RA_CLASS_PAGE:
		ret = on_page(st, ev, seq);
		break;
	default:
		st->done++;	/* a block completion */
		return 0;
	}
	return st->failed ? -1 : ret;	/* a window not read back (win_at) */
}

/*
 * Each WILLNEED system call and the forced windows its task opened before its
 * next trigger, window of another kind or system call: what was asked against
 * what the kernel read (force_page_cache_ra caps a call at max(io_pages,
 * ra_pages) pages). madvise names an address range, not a file: its file and
 * offset are those of the windows (madvise_willneed reads through
 * vfs_fadvise), its address in pages when none followed.
 */
/* the calls, and the windows that end a call's reach, into temp.ra_calls */
static int call_event(struct ra_state *st, const struct ra_event *ev, int64_t seq)
{
	if (!ra_event_is_call(ev->type) && ev->type != RA_EV_SYNC_RA && ev->type != RA_EV_ASYNC_RA &&
	    ev->type != RA_EV_RA_ORDER)
		return 0;
	return ra_sql_put(st->calls, "iiiixii", seq, st->run_id, (int64_t)ev->ts_ns,
			  (int64_t)ev->pid, (int)ev->type, (int64_t)ev->ra.index,
			  (int64_t)ev->ra.req_count);
}

/* temp.ra_calls, filled by the pass's one read of the events */
static int calls_begin(struct ra_state *st, struct ra_db *db, int64_t run_id)
{
	st->run_id = run_id;
	if (ra_analyze_exec(db, "DROP TABLE IF EXISTS temp.ra_calls", run_id) < 0 ||
	    ra_analyze_exec(db, "CREATE TEMP TABLE ra_calls (seq INTEGER PRIMARY KEY,"
				" run_id INTEGER, ts_ns INTEGER, pid INTEGER, event_id INTEGER,"
				" page_index INTEGER, req_count_pages INTEGER)", run_id) < 0)
		return -1;
	st->calls = ra_sql_prepare(db, "INSERT INTO temp.ra_calls VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
	return st->calls ? 0 : -1;
}

static int advice_calls(const struct ra_state *st, struct ra_db *db, int64_t run_id)
{
	struct ra_stmt *q;
	int rc = 0, ret;


	if (ra_analyze_exec(db, "DROP TABLE IF EXISTS temp.ra_device_pids", run_id) < 0 ||
	    ra_analyze_exec(db, "CREATE TEMP TABLE ra_device_pids (pid INTEGER PRIMARY KEY)",
			    run_id) < 0)
		return -1;
	q = ra_sql_prepare(db, "INSERT OR IGNORE INTO temp.ra_device_pids VALUES (?1)");
	if (!q)
		return -1;
	for (int i = 0; i < st->ndev_pids && rc == 0; i++)
		rc = ra_sql_put(q, "x", st->dev_pids[i]);
	ra_sql_finalize(q);
	if (rc < 0)
		return -1;
	/* ?2 to ?4 are the calls, ?5 to ?7 the windows that end a call's reach */
	ret = ra_sql_exec(db,
		/* the file, offset and end of the call's first window (SQLite gives the bare
		 * columns of the row of the one MIN()) */
		"WITH c AS (SELECT e.run_id, e.seq, e.ts_ns, e.pid, e.event_id, e.page_index,"
		"  e.req_count_pages AS req, MIN(w.seq) AS first_seq, w.dev AS dev, w.ino AS ino,"
		"  w.start_page AS first_page, w.eof_page AS eof,"
		"  COUNT(w.window_id) AS windows, COALESCE(SUM(w.size_pages), 0) AS read_pages,"
		"  COALESCE(SUM(w.pages_added), 0) AS pages_added"
		" FROM runs r JOIN temp.ra_calls e ON e.seq BETWEEN r.seq_first AND r.seq_last"
		"  AND e.run_id = r.run_id AND e.event_id IN (?2, ?3, ?4)"
		" LEFT JOIN windows w ON w.run_id = e.run_id AND w.pid = e.pid"
		"  AND w.pattern = 'forced' AND w.seq > e.seq"
		"  AND w.seq < COALESCE((SELECT n.seq FROM temp.ra_calls n WHERE n.seq > e.seq"
		"   AND n.seq <= r.seq_last AND n.run_id = e.run_id AND n.pid = e.pid"
		"   AND n.event_id IN (?2, ?3, ?4, ?5, ?6, ?7) ORDER BY n.seq LIMIT 1), r.seq_last + 1)"
		" WHERE r.run_id = ?1 GROUP BY e.seq),"
		" o AS (SELECT *, CASE WHEN event_id = ?4 THEN COALESCE(first_page, page_index)"
		"  ELSE page_index END AS off FROM c)"
		" INSERT INTO advice_calls (run_id, seq, ts_ns, pid, call, dev, ino, offset_pages,"
		"  asked_pages, windows, read_pages, pages_added)"
		" SELECT run_id, seq, ts_ns, pid,"
		"  CASE event_id WHEN ?2 THEN 'fadvise64' WHEN ?3 THEN 'readahead' ELSE 'madvise' END,"
		"  dev, ino, off,"
		"  CASE WHEN req > 0 THEN MIN(req, COALESCE(eof - off, req))"
		"   WHEN event_id = ?4 THEN 0 ELSE eof - off END,"
		"  windows, read_pages, pages_added FROM o"
		/* the system call events are not the devices': a call whose task read
		 * nothing of them is another device's */
		" WHERE windows > 0 OR pid IN (SELECT pid FROM temp.ra_device_pids)", "ixxxxxx",
		run_id, RA_EV_FADVISE, RA_EV_SYS_READAHEAD, RA_EV_MADVISE, RA_EV_SYNC_RA,
		RA_EV_ASYNC_RA, RA_EV_RA_ORDER);
	if (ra_analyze_exec(db, "DROP TABLE temp.ra_device_pids", run_id) < 0 ||
	    ra_analyze_exec(db, "DROP TABLE temp.ra_calls", run_id) < 0)
		return -1;
	return ret;
}

/* ---- fed as the events are stored ---- */

/*
 * While ra-record stores a run, the pass follows the events the writer gives
 * it (ra_writer_set_tap): what it knows only at the end, the files' sizes and
 * the tasks' processes, it asks the recorder when an event first needs one,
 * and at the end each answer is checked against the run's stored one. Where
 * all hold, the pass's state is the one a read of the stored events would
 * have reached; where one does not, the events are read again.
 */
struct ra_live {
	struct ra_state st;
	struct ra_live_inputs in;
	int64_t run_id;
	bool failed;		/* an event it could not follow: read them again */
	bool followed;		/* its state gave the run's rows (run_readahead) */
	char why[256];
};

static const struct ra_live_inputs *live_inputs(const struct ra_live *lv)
{
	return &lv->in;
}

static int64_t live_size(struct ra_state *st, int file)
{
	struct ra_live *lv = st->live;
	struct file *f = file_at(st, file);
	int64_t bytes = lv->in.size ? lv->in.size(f->dev, f->ino, lv->in.arg) : -1;

	f->size_pages = bytes < 0 || bytes > MAX_FILE_BYTES ? -1 :
			(bytes + (1 << st->page_shift) - 1) >> st->page_shift;
	f->size_asked = true;
	return f->size_pages;
}

static int live_tgid(struct ra_state *st, int pid)
{
	struct ra_live *lv = st->live;
	int tgid = lv->in.tgid ? lv->in.tgid(pid, lv->in.arg) : 0;
	bool fresh;
	int *slot = ra_map_put(&st->tgids, (uint64_t)(uint32_t)pid + 1, &fresh);

	if (tgid <= 0)
		tgid = pid;
	if (slot)
		*slot = tgid;
	else if (!lv->failed) {
		lv->failed = true;
		snprintf(lv->why, sizeof(lv->why), "out of memory");
	}
	return tgid;
}

struct ra_live *ra_live_begin(struct ra_db *db, int64_t run_id, const struct ra_live_inputs *in)
{
	struct ra_live *lv = calloc(1, sizeof(*lv));
	const char *model;

	if (!lv) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	if (state_init(&lv->st, in->window_slots) < 0) {
		free(lv);
		return NULL;
	}
	lv->st.live = lv;
	lv->in = *in;
	lv->run_id = run_id;
	lv->st.page_shift = shift_of(in->page_size);
	lv->st.pmd_order = (unsigned int)lv->st.page_shift - 3;
	lv->st.has_done = in->completions;
	lv->st.db = db;
	lv->st.run_id = run_id;
	lv->st.wins = ra_slots_new("the readahead pass's windows", sizeof(struct window), lv->st.max_slots);
	if (!lv->st.wins) {
		ra_live_free(lv);
		return NULL;
	}
	ra_slots_keep(lv->st.wins, keep_window, &lv->st);
	/* the model's inputs, else (RATRACE_MODEL_INPUTS=scan, or no memory for
	 * them) the model pass reads them from the rows */
	model = getenv("RATRACE_MODEL_INPUTS");
	if (!model || strcmp(model, "scan"))
		lv->st.feed = ra_model_feed_new();
	if (calls_begin(&lv->st, db, run_id) < 0) {
		ra_live_free(lv);
		return NULL;
	}
	return lv;
}

int ra_live_event(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct ra_live *lv = arg;
	int cls = ra_event_class(ev->type);

	if (lv->failed || cls == RA_CLASS_NONE ||
	    (cls == RA_CLASS_BLK && ev->type != RA_EV_BIO_COMPLETE && ev->type != RA_EV_RQ_COMPLETE))
		return 0;	/* the events of RA_STREAM_RA | PAGE | BLK_DONE */
	if (on_event(ev, seq, &lv->st) < 0) {
		lv->failed = true;
		snprintf(lv->why, sizeof(lv->why), "%s", ra_last_error());
	}
	return 0;
}

int ra_live_windows(const struct ra_live *lv)
{
	return lv->failed ? -1 : lv->st.nwins;
}

int ra_live_window(struct ra_live *lv, int id, struct ra_live_window *out)
{
	const struct window *w = lv->failed ? NULL : ra_slots_peek(lv->st.wins, id);
	const struct file *f = w ? ra_slots_peek(lv->st.files, w->file) : NULL;

	if (!f)
		return -1;
	*out = (struct ra_live_window){ .seq = w->seq, .ts = w->ts,
					.sync = w->trigger == TRIG_SYNC,
					.dev = f->dev, .stream = w->stream + 1,
					.size = w->size, .pages_added = (int64_t)w->added };
	return 0;
}

bool ra_live_followed(const struct ra_live *lv)
{
	return lv->followed;
}

struct ra_model_feed *ra_live_feed(struct ra_live *lv)
{
	return lv ? lv->st.feed : NULL;
}

void ra_live_free(struct ra_live *lv)
{
	if (!lv)
		return;
	ra_model_feed_free(lv->st.feed);
	state_release(&lv->st);
	free(lv);
}

/*
 * Did what the pass assumed while the events were stored hold? 1 with the
 * files' sizes made the run's, 0 with @why, -1 on error.
 */
static int live_check(struct ra_live *lv, struct ra_db *db, int64_t run_id, char *why,
		      size_t len)
{
	struct ra_state *st = &lv->st;
	struct ra_state fin;
	int ret = 1;

	if (lv->failed) {
		snprintf(why, len, "%s", lv->why);
		return 0;
	}
	/* without a completion, whether the run records them changes nothing */
	if (lv->run_id != run_id || page_shift(db, run_id) != st->page_shift ||
	    (st->done && records_completions(db, run_id) != st->has_done)) {
		snprintf(why, len, "the run is not the one followed");
		return 0;
	}
	if (load_sizes(st, db, run_id) < 0)
		return -1;
	for (int i = 0; i < st->nfiles; i++) {
		struct file *f = file_at(st, i);
		int64_t pages = known_pages(st, f->dev, f->ino);

		if (f->size_asked && pages != f->size_pages) {
			snprintf(why, len, "the size of file %u:%llu was not known when it was needed",
				 f->dev, (unsigned long long)f->ino);
			return 0;
		}
		f->size_pages = pages;
	}
	/* the processes asked against the run's */
	if (state_init(&fin, 0) < 0)
		return -1;
	fin.page_shift = st->page_shift;
	if (load_tgids(&fin, db, run_id) < 0) {
		state_release(&fin);
		return -1;
	}
	for (size_t i = 0; i < st->tgids.cap && ret == 1; i++) {
		uint64_t key = st->tgids.keys[i];
		const int *asked = (const int *)((char *)st->tgids.vals + i * st->tgids.val_size);
		const int *stored;
		int pid = (int)(uint32_t)(key - 1);

		if (!key)
			continue;
		stored = ra_map_get(&fin.tgids, key);
		if ((stored ? *stored : pid) != *asked) {
			snprintf(why, len, "the process of task %d was not known when it was needed"
				 " (%d, then %d)", pid, *asked, stored ? *stored : pid);
			ret = 0;
		}
	}
	state_release(&fin);
	return ret;
}

/* The pass's rows from the state the events left. */
static int readahead_end(struct ra_state *st, struct ra_db *db, int64_t run_id,
			 const struct ra_analyze_opts *o)
{
	bool spilled;
	int late;

	reads_end(st);
	if (settle_pmd(st) < 0 || st->failed)
		return -1;
	spilled = ra_slots_spilled(st->wins);
	if (write_windows(st, db, run_id, &late) < 0 ||
	    write_streams(st, db, run_id) < 0 || advice_calls(st, db, run_id) < 0)
		return -1;
	if (spilled)
		ra_pass_say(o, "readahead: %d windows, %d streams, %d files; windows beyond those"
			    " in memory kept in a temporary file, %d rows written as they left",
			    st->nwins, st->nstreams, st->nfiles, st->nwins - late);
	else
		ra_pass_say(o, "readahead: %d windows, %d streams, %d files", st->nwins,
			    st->nstreams, st->nfiles);
	return 0;
}

static int run_readahead(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o,
			 char *note)
{
	struct ra_state st;
	int ret = -1;

	if (o && o->live) {
		char why[300];
		int ok = live_check(o->live, db, run_id, why, sizeof(why));

		if (ok < 0)
			return -1;
		if (ok) {
			ra_pass_say(o, "readahead: followed as the events were stored");
			o->live->followed = true;
			return readahead_end(&o->live->st, db, run_id, o);
		}
		ra_pass_say(o, "readahead: reading the stored events again: %s", why);
		ra_sql_finalize(o->live->st.calls);	/* its tables are made again */
		o->live->st.calls = NULL;
		ra_batch_free(o->live->st.put);	/* its rows not written are dropped */
		o->live->st.put = NULL;
		ra_slots_detach(o->live->st.wins);
		/* the rows written while it followed */
		if (ra_pass_clear(db, &ra_pass_readahead, run_id) < 0)
			return -1;
	}
	if (state_init(&st, o ? o->window_slots : 0) < 0)
		goto out;
	st.page_shift = page_shift(db, run_id);
	st.pmd_order = (unsigned int)st.page_shift - 3;	/* a page table holds a page / 8 entries */
	st.has_done = records_completions(db, run_id);
	st.db = db;
	st.run_id = run_id;
	st.handon = o && o->feed ? o->feed->q : NULL;
	st.wins = ra_slots_new("the readahead pass's windows", sizeof(struct window), st.max_slots);
	if (st.wins)
		ra_slots_keep(st.wins, keep_window, &st);
	if (!st.wins || load_sizes(&st, db, run_id) < 0 || load_tgids(&st, db, run_id) < 0 ||
	    calls_begin(&st, db, run_id) < 0 ||
	    ra_evstream_each(db, run_id, RA_STREAM_RA | RA_STREAM_PAGE | RA_STREAM_BLK_DONE, on_event,
			     &st) < 0)
		goto out;
	if (o && o->feed)
		o->feed->fed = true;
	if (readahead_end(&st, db, run_id, o) < 0)
		goto out;
	ret = 0;
out:
	state_release(&st);
	return ret;
}

static const char *const readahead_needs[] = { "readahead:page_cache_ra_order", NULL };
static const char *const readahead_tables[] = { "windows", "streams", "advice_calls", NULL };

/* Whether @o's readahead pass followed run @run_id: its windows' rows are written already. */
static bool readahead_live_rows(const struct ra_analyze_opts *o, int64_t run_id)
{
	return o && o->live && o->live->run_id == run_id;
}

const struct ra_pass ra_pass_readahead = {
	.name = "readahead",
	.needs = readahead_needs,
	.run = run_readahead,
	.tables = readahead_tables,
	.live_rows = readahead_live_rows,
};
