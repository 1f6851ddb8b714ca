// SPDX-License-Identifier: LGPL-2.1
/*
 * Bulk event writer: the events of each table gathered into chunks of
 * RA_CHUNK_EVENTS, each stored packed as one row (chunk.c). All three tables
 * share one seq space so that seq orders the events of a run in time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"
#include "chunk.h"
#include "ra_bigmem.h"

#define TASK_SLOTS_MIN 256

/* One event table: the chunk being filled and its INSERT. */
struct table_w {
	sqlite3_stmt *ins;
	struct ra_chunk ch;
};

/* The files of a run's events: a set of (dev, ino), open addressing. */
struct file_set {
	struct file_slot {
		uint32_t dev;
		bool used;
		uint64_t ino;
	} *k;
	size_t n, cap;	/* cap a power of two */
};

struct task_slot {
	int pid;       /* 0: empty */
	char comm[16]; /* "": not known */
};

struct ra_writer {
	struct ra_db *db;
	int64_t run_id;
	int64_t seq;
	int64_t seq_first;
	struct table_w tbl[4];	/* indexed by enum ra_event_class */
	uint64_t counts[RA_EV_MAX];
	uint64_t total;
	struct task_slot *tasks;
	size_t ntasks;
	size_t task_cap;	/* power of two */
	ra_namer_fn namer;
	void *namer_arg;
	ra_tap_fn tap;
	void *tap_arg;
	unsigned int unstored;	/* 1 << class of the tables given to the tap only */
	/*
	 * the store thread: the caller fills a batch of events while the thread
	 * packs and stores the batch before, in the order given (the connection
	 * is serialized: the caller's own statements may go between the batches)
	 */
	struct ra_tapq *pipe;
	struct file_set files;	/* of the readahead events, the pages added, the accesses */
	bool noted;		/* the file noted last: */
	uint32_t noted_dev;
	uint64_t noted_ino;
};

static int64_t next_seq(struct ra_db *db)
{
	/* runs too: a run's events given to a tap only have seqs of their own */
	static const char sql[] = "SELECT MAX(m) FROM (SELECT MAX(seq_last) AS m FROM ra_chunks"
				  " UNION ALL SELECT MAX(seq_last) FROM page_chunks"
				  " UNION ALL SELECT MAX(seq_last) FROM blk_chunks"
				  " UNION ALL SELECT MAX(seq_last) FROM runs)";
	sqlite3_stmt *st = ra_db_prepare(db, sql);
	int64_t seq = -1;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		seq = sqlite3_column_int64(st, 0) + 1;
	else
		ra_db_fail(db, "cannot read");
	sqlite3_finalize(st);
	return seq;
}

static int table_init(struct ra_db *db, struct table_w *t, int cls)
{
	char *sql;

	ra_chunk_begin(&t->ch, ra_chunk_table(cls), ra_chunk_page_size(db));
	sql = ra_chunk_insert_sql(t->ch.t);
	t->ins = sql ? ra_db_prepare(db, sql) : NULL;
	free(sql);
	return t->ins ? 0 : -1;
}

/* Store the rows waiting in the table's chunk. */
static int table_flush(struct ra_writer *w, struct table_w *t)
{
	return ra_chunk_store(t->ins, &t->ch) < 0 ? ra_db_fail(w->db, "cannot write events to") : 0;
}

static size_t file_hash(uint32_t dev, uint64_t ino, size_t cap)
{
	return ra_big_slot(ino ^ (uint64_t)dev << 40, cap);
}

static int file_add(struct file_set *fs, uint32_t dev, uint64_t ino)
{
	size_t h;

	if ((fs->n + 1) * 2 > fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 256;
		struct file_slot *k = ra_big_alloc(cap * sizeof(*k));

		if (!k)
			return -1;
		for (size_t i = 0; i < fs->cap; i++) {
			if (!fs->k[i].used)
				continue;
			for (h = file_hash(fs->k[i].dev, fs->k[i].ino, cap); k[h].used;
			     h = (h + 1) & (cap - 1))
				;
			k[h] = fs->k[i];
		}
		ra_big_free(fs->k);
		fs->k = k;
		fs->cap = cap;
	}
	for (h = file_hash(dev, ino, fs->cap); fs->k[h].used; h = (h + 1) & (fs->cap - 1))
		if (fs->k[h].dev == dev && fs->k[h].ino == ino)
			return 0;
	fs->k[h] = (struct file_slot){ .dev = dev, .used = true, .ino = ino };
	fs->n++;
	return 0;
}

/* the files of the readahead events and of the pages added to the cache */
/*
 * The files of the readahead events, of the pages added and of the
 * accesses (a file read from the page cache alone is one the replay
 * follows: its size and file system are asked); the last one noted is
 * not looked up again.
 */
static int note_file(struct ra_writer *w, const struct ra_event *ev)
{
	int cls = ra_event_class(ev->type);
	uint32_t dev;
	uint64_t ino;

	if (cls == RA_CLASS_RA) {
		dev = ev->ra.dev;
		ino = ev->ra.ino;
	} else if (cls == RA_CLASS_PAGE && ev->type != RA_EV_PAGE_DELETE) {
		dev = ev->page.dev;
		ino = ev->page.ino;
	} else {
		return 0;
	}
	if (w->noted && dev == w->noted_dev && ino == w->noted_ino)
		return 0;
	w->noted = true;
	w->noted_dev = dev;
	w->noted_ino = ino;
	return file_add(&w->files, dev, ino);
}

static int cmp_file(const void *a, const void *b)
{
	const struct ra_file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int ra_writer_files(struct ra_writer *w, struct ra_file_id **out, size_t *n)
{
	size_t k = 0;

	*n = 0;
	*out = NULL;
	if (!w->files.n)
		return 0;
	*out = ra_big_alloc(w->files.n * sizeof(**out));
	if (!*out) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < w->files.cap; i++) {
		ra_big_tick();
		if (w->files.k[i].used)
			(*out)[k++] = (struct ra_file_id){ w->files.k[i].dev, w->files.k[i].ino };
	}
	ra_sort(*out, k, sizeof(**out), cmp_file);
	*n = k;
	return 0;
}

/* Store one event into its table's chunk (the caller's or the store thread's). */
static int store_event(struct ra_writer *w, const struct ra_event *ev, int64_t seq)
{
	int cls = ra_event_class(ev->type);
	struct table_w *t = &w->tbl[cls];
	struct ra_chunk_row row;

	ra_chunk_event_row(t->ch.t, ev, seq, &row);
	if (!(w->unstored & (1u << cls)) && ra_chunk_add(t->ins, &t->ch, w->run_id, &row) < 0)
		return ra_db_fail(w->db, "cannot write events to");
	if (w->tap) {
		struct ra_event back;

		/* the row unpacked is what ra_evstream gives */
		ra_chunk_row_event(t->ch.t, &row, &back);
		w->tap(&back, seq, w->tap_arg);
	}
	return 0;
}

/* The store thread's tap: each event stored. */
static int store_tap(const struct ra_event *ev, int64_t seq, void *arg)
{
	return store_event(arg, ev, seq);
}

/* Store what the thread holds and end it: 0, or -1 with its error. */
static int pipe_end(struct ra_writer *w)
{
	int ret = ra_tapq_end(w->pipe);

	w->pipe = NULL;
	return ret;
}

struct ra_writer *ra_writer_alloc(struct ra_db *db, int64_t run_id)
{
	struct ra_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	w->db = db;
	w->run_id = run_id;
	w->seq = w->seq_first = next_seq(db);
	if (w->seq < 0 || table_init(db, &w->tbl[RA_CLASS_RA], RA_CLASS_RA) < 0 ||
	    table_init(db, &w->tbl[RA_CLASS_PAGE], RA_CLASS_PAGE) < 0 ||
	    table_init(db, &w->tbl[RA_CLASS_BLK], RA_CLASS_BLK) < 0) {
		ra_writer_free(w);
		return NULL;
	}
	/* without memory for it, the events are stored in the caller's thread */
	w->pipe = ra_tapq_start(store_tap, w);
	return w;
}

static int task_grow(struct ra_writer *w)
{
	size_t cap = w->task_cap ? w->task_cap * 2 : TASK_SLOTS_MIN;
	struct task_slot *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < w->task_cap; i++) {
		size_t h;

		if (!w->tasks[i].pid)
			continue;
		for (h = (size_t)w->tasks[i].pid & (cap - 1); t[h].pid; h = (h + 1) & (cap - 1))
			;
		t[h] = w->tasks[i];
	}
	free(w->tasks);
	w->tasks = t;
	w->task_cap = cap;
	return 0;
}

static struct task_slot *task_slot(struct ra_writer *w, int pid)
{
	size_t h;

	if ((w->ntasks + 1) * 2 > w->task_cap && task_grow(w) < 0)
		return NULL;
	for (h = (size_t)pid & (w->task_cap - 1); w->tasks[h].pid; h = (h + 1) & (w->task_cap - 1))
		if (w->tasks[h].pid == pid)
			return &w->tasks[h];
	w->ntasks++;
	w->tasks[h].pid = pid;
	return &w->tasks[h];
}

static void set_comm(struct task_slot *t, const char *comm)
{
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/*
 * The latest name each task had in the events (a task may exec); a task seen
 * without one is named once by the namer.
 */
static int task_note(struct ra_writer *w, int pid, const char *comm)
{
	struct task_slot *t;

	if (pid <= 0)
		return 0;
	t = task_slot(w, pid);
	if (!t)
		return -1;
	if (comm[0])
		set_comm(t, comm);
	return 0;
}

void ra_writer_set_namer(struct ra_writer *w, ra_namer_fn namer, void *arg)
{
	w->namer = namer;
	w->namer_arg = arg;
}

void ra_writer_set_unstored(struct ra_writer *w, unsigned int classes)
{
	w->unstored = classes;
}

void ra_writer_set_tap(struct ra_writer *w, ra_tap_fn tap, void *arg)
{
	/* the thread reads the tap only for the batches handed after this */
	if (w->pipe)
		ra_tapq_wait(w->pipe);
	w->tap = tap;
	w->tap_arg = arg;
}

int ra_writer_add(struct ra_writer *w, const struct ra_event *ev)
{
	int cls = ra_event_class(ev->type);

	if (cls == RA_CLASS_NONE)
		return 0;
	if (w->pipe ? ra_tapq_put(w->pipe, ev, w->seq++) < 0 : store_event(w, ev, w->seq++) < 0)
		return -1;
	if (!(w->unstored & (1u << cls)))
		w->counts[ev->type]++;
	w->total++;
	if (task_note(w, ev->pid, ev->comm) < 0 || note_file(w, ev) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	return 0;
}

/**
 * ra_writer_note_task - record a task name learned outside the events
 * (process-name records, /proc); the events' own names win when they differ.
 */
int ra_writer_note_task(struct ra_writer *w, int pid, const char *comm)
{
	struct task_slot *t;

	if (pid <= 0 || !comm || !comm[0])
		return 0;
	t = task_slot(w, pid);
	if (!t)
		return -1;
	if (!t->comm[0])
		set_comm(t, comm);
	return 0;
}

/* How many events of each type the run has. */
static int store_counts(struct ra_writer *w)
{
	sqlite3_stmt *st = ra_db_prepare(w->db, "INSERT INTO event_counts VALUES (?1, ?2, ?3)"
						" ON CONFLICT DO UPDATE SET n = n + excluded.n");

	if (!st)
		return -1;
	for (int i = 1; i < RA_EV_MAX; i++) {
		if (!w->counts[i])
			continue;
		sqlite3_bind_int64(st, 1, w->run_id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_int64(st, 3, (int64_t)w->counts[i]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return ra_db_fail(w->db, "cannot write to");
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return 0;
}

/* The run's events are the seq range [seq_first, seq_last]: a rowid range. */
static int store_seq_range(struct ra_writer *w)
{
	sqlite3_stmt *st = ra_db_prepare(w->db, "UPDATE runs SET seq_first = ?, seq_last = ?"
						" WHERE run_id = ?");
	int rc;

	if (!st)
		return -1;
	if (w->total) {
		sqlite3_bind_int64(st, 1, w->seq_first);
		sqlite3_bind_int64(st, 2, w->seq - 1);
	}
	sqlite3_bind_int64(st, 3, w->run_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ra_db_fail(w->db, "cannot write to");
}

int ra_writer_finish(struct ra_writer *w)
{
	if (pipe_end(w) < 0)
		return -1;
	for (int c = RA_CLASS_RA; c <= RA_CLASS_BLK; c++)
		if (table_flush(w, &w->tbl[c]) < 0)
			return -1;
	if (store_seq_range(w) < 0 || store_counts(w) < 0)
		return -1;
	/* a task no event named: the namer's name, asked once at the end */
	for (size_t i = 0; i < w->task_cap; i++) {
		const char *comm;

		if (w->tasks[i].pid && !w->tasks[i].comm[0] && w->namer &&
		    (comm = w->namer(w->tasks[i].pid, w->namer_arg)))
			set_comm(&w->tasks[i], comm);
	}
	for (size_t i = 0; i < w->task_cap; i++)
		if (w->tasks[i].pid && w->tasks[i].comm[0] &&
		    ra_db_add_task(w->db, w->run_id, w->tasks[i].pid, w->tasks[i].comm) < 0)
			return -1;
	return 0;
}

uint64_t ra_writer_count(struct ra_writer *w, int type)
{
	return type > 0 && type < RA_EV_MAX ? w->counts[type] : 0;
}

uint64_t ra_writer_total(struct ra_writer *w)
{
	return w->total;
}

void ra_writer_free(struct ra_writer *w)
{
	if (!w)
		return;
	pipe_end(w);
	ra_big_free(w->files.k);
	for (int c = 0; c < 4; c++)
		sqlite3_finalize(w->tbl[c].ins);
	free(w->tasks);
	free(w);
}
