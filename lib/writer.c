// SPDX-License-Identifier: LGPL-2.1
/*
 * Bulk event writer: prepared multi-row INSERTs per event table (BATCH rows a
 * statement: SQLite's per-statement cost dominates single-row inserts), bound
 * with native types. All three tables share one seq space so that seq orders
 * the events of a run in time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"
#include "ra_evcols.h"

#define TASK_SLOTS_MIN 256
#define BATCH 128

typedef void (*bind_fn)(sqlite3_stmt *st, int base, const struct ra_event *ev);

/* One event table: its statements and the rows waiting for a full batch. */
struct table_w {
	int ncols;
	bind_fn bind;
	sqlite3_stmt *one;	/* INSERT of 1 row */
	sqlite3_stmt *many;	/* INSERT of BATCH rows */
	int n;
	int64_t seq[BATCH];
	struct ra_event ev[BATCH];
};

struct task_slot {
	int pid;		/* 0: empty */
	char comm[16];		/* "": not known */
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
};

static int64_t next_seq(struct ra_db *db)
{
	static const char sql[] = "SELECT MAX(m) FROM (SELECT MAX(seq) AS m FROM ra_events"
				  " UNION ALL SELECT MAX(seq) FROM page_events"
				  " UNION ALL SELECT MAX(seq) FROM blk_events)";
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

static void bind_opt(sqlite3_stmt *st, int col, int present, int64_t v)
{
	if (present)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

/*
 * The parameter of column @col (ra_evcols.h) in the row at @b: parameters count
 * from 1, columns from 0.
 */
#define P(b, col) ((b) + 1 + (col))

/* The common columns after seq and run_id: one index in the three tables. */
static void bind_common(sqlite3_stmt *st, int b, const struct ra_event *ev)
{
	sqlite3_bind_int64(st, P(b, RA_RA_TS), (int64_t)ev->ts_ns);
	sqlite3_bind_int(st, P(b, RA_RA_CPU), ev->cpu);
	sqlite3_bind_int(st, P(b, RA_RA_PID), ev->pid);
	sqlite3_bind_int(st, P(b, RA_RA_EVENT), ev->type);
}

static void bind_ra(sqlite3_stmt *st, int b, const struct ra_event *ev)
{
	const struct ra_ra_fields *f = &ev->ra;
	int trig = ev->type == RA_EV_SYNC_RA || ev->type == RA_EV_ASYNC_RA;
	int sys = ra_event_is_call(ev->type);
	int unb = ev->type == RA_EV_RA_UNBOUNDED || sys;

	bind_common(st, b, ev);
	sqlite3_bind_int64(st, P(b, RA_RA_DEV), f->dev);
	sqlite3_bind_int64(st, P(b, RA_RA_INO), (int64_t)f->ino);
	sqlite3_bind_int64(st, P(b, RA_RA_INDEX), (int64_t)f->index);
	bind_opt(st, P(b, RA_RA_REQ_COUNT), trig || sys, (int64_t)f->req_count);
	bind_opt(st, P(b, RA_RA_ORDER), !unb, f->order);
	sqlite3_bind_int64(st, P(b, RA_RA_SIZE), f->size);
	sqlite3_bind_int64(st, P(b, RA_RA_ASYNC), f->async_size);
	bind_opt(st, P(b, RA_RA_RA_PAGES), !unb, f->ra_pages);
	bind_opt(st, P(b, RA_RA_MMAP_MISS), trig, f->mmap_miss);
	bind_opt(st, P(b, RA_RA_PREV_POS), trig, f->prev_pos);
}

static void bind_page(sqlite3_stmt *st, int b, const struct ra_event *ev)
{
	const struct ra_page_fields *f = &ev->page;

	bind_common(st, b, ev);
	sqlite3_bind_int64(st, P(b, RA_PAGE_DEV), f->dev);
	sqlite3_bind_int64(st, P(b, RA_PAGE_INO), (int64_t)f->ino);
	sqlite3_bind_int64(st, P(b, RA_PAGE_INDEX), (int64_t)f->index);
	bind_opt(st, P(b, RA_PAGE_LAST_INDEX), ev->has_mask & RA_HAS_LAST_INDEX, (int64_t)f->last_index);
	bind_opt(st, P(b, RA_PAGE_ORDER), ev->has_mask & RA_HAS_ORDER, f->order);
	bind_opt(st, P(b, RA_PAGE_PFN), ev->has_mask & RA_HAS_PFN, (int64_t)f->pfn);
}

static void bind_blk(sqlite3_stmt *st, int b, const struct ra_event *ev)
{
	const struct ra_blk_fields *f = &ev->blk;
	/* plug and unplug: the queue when the source names it (blktrace), not ftrace */
	bool plug = ev->type == RA_EV_PLUG || ev->type == RA_EV_UNPLUG;
	int has_dev = !plug || f->dev != 0;
	int remap = ev->type == RA_EV_BIO_REMAP || ev->type == RA_EV_RQ_REMAP;

	bind_common(st, b, ev);
	bind_opt(st, P(b, RA_BLK_DEV), has_dev, f->dev);
	bind_opt(st, P(b, RA_BLK_SECTOR), !plug, (int64_t)f->sector);
	bind_opt(st, P(b, RA_BLK_NR_SECTOR), !plug, f->nr_sector);
	bind_opt(st, P(b, RA_BLK_BYTES), ev->has_mask & RA_HAS_BYTES, f->bytes);
	if (f->rwbs[0])
		sqlite3_bind_text(st, P(b, RA_BLK_RWBS), f->rwbs, (int)strnlen(f->rwbs, sizeof(f->rwbs)),
				  SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, P(b, RA_BLK_RWBS));
	bind_opt(st, P(b, RA_BLK_ERROR), ev->has_mask & RA_HAS_ERROR, f->error);
	bind_opt(st, P(b, RA_BLK_NR_RQ), ev->has_mask & RA_HAS_NR_RQ, f->nr_rq);
	bind_opt(st, P(b, RA_BLK_EXPLICIT_UNPLUG), ev->type == RA_EV_UNPLUG && f->explicit_unplug >= 0,
		 f->explicit_unplug);
	bind_opt(st, P(b, RA_BLK_NEW_SECTOR), ev->type == RA_EV_SPLIT, (int64_t)f->new_sector);
	bind_opt(st, P(b, RA_BLK_OLD_DEV), remap, f->old_dev);
	bind_opt(st, P(b, RA_BLK_OLD_SECTOR), remap, (int64_t)f->old_sector);
}

/* "INSERT INTO t VALUES (?,?),(?,?)" for @rows rows of @ncols columns */
static sqlite3_stmt *prepare_insert(struct ra_db *db, const char *table, int ncols, int rows)
{
	size_t len = 64 + (size_t)rows * ((size_t)ncols * 2 + 3);
	char *sql = malloc(len), *p;
	sqlite3_stmt *st;

	if (!sql) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	p = sql + sprintf(sql, "INSERT INTO %s VALUES", table);
	for (int r = 0; r < rows; r++) {
		*p++ = r ? ',' : ' ';
		*p++ = '(';
		for (int c = 0; c < ncols; c++)
			p += sprintf(p, c ? ",?" : "?");
		*p++ = ')';
	}
	*p = '\0';
	st = ra_db_prepare(db, sql);
	free(sql);
	return st;
}

static int table_init(struct ra_db *db, struct table_w *t, const char *name, int ncols, bind_fn b)
{
	t->ncols = ncols;
	t->bind = b;
	t->one = prepare_insert(db, name, ncols, 1);
	t->many = t->one ? prepare_insert(db, name, ncols, BATCH) : NULL;
	return t->many ? 0 : -1;
}

static int table_step(struct ra_writer *w, sqlite3_stmt *st, struct table_w *t, int first,
		      int rows)
{
	for (int r = 0; r < rows; r++) {
		int base = r * t->ncols;

		sqlite3_bind_int64(st, P(base, RA_RA_SEQ), t->seq[first + r]);
		sqlite3_bind_int64(st, P(base, RA_RA_RUN), w->run_id);
		t->bind(st, base, &t->ev[first + r]);
	}
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return ra_db_fail(w->db, "cannot write events to");
	}
	sqlite3_reset(st);
	return 0;
}

/* Write the waiting rows: one statement for a full batch, row by row otherwise. */
static int table_flush(struct ra_writer *w, struct table_w *t)
{
	int ret = 0;

	if (t->n == BATCH)
		ret = table_step(w, t->many, t, 0, BATCH);
	else
		for (int i = 0; i < t->n && ret == 0; i++)
			ret = table_step(w, t->one, t, i, 1);
	t->n = 0;
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
	if (w->seq < 0 ||
	    table_init(db, &w->tbl[RA_CLASS_RA], "ra_events", RA_RA_NCOLS, bind_ra) < 0 ||
	    table_init(db, &w->tbl[RA_CLASS_PAGE], "page_events", RA_PAGE_NCOLS, bind_page) < 0 ||
	    table_init(db, &w->tbl[RA_CLASS_BLK], "blk_events", RA_BLK_NCOLS, bind_blk) < 0) {
		ra_writer_free(w);
		return NULL;
	}
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

int ra_writer_add(struct ra_writer *w, const struct ra_event *ev)
{
	int cls = ra_event_class(ev->type);
	struct table_w *t;

	if (cls == RA_CLASS_NONE)
		return 0;
	t = &w->tbl[cls];
	t->seq[t->n] = w->seq++;
	t->ev[t->n++] = *ev;
	if (t->n == BATCH && table_flush(w, t) < 0)
		return -1;
	w->counts[ev->type]++;
	w->total++;
	if (task_note(w, ev->pid, ev->comm) < 0) {
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
	for (int c = RA_CLASS_RA; c <= RA_CLASS_BLK; c++)
		if (table_flush(w, &w->tbl[c]) < 0)
			return -1;
	if (store_seq_range(w) < 0)
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
	for (int c = 0; c < 4; c++) {
		sqlite3_finalize(w->tbl[c].one);
		sqlite3_finalize(w->tbl[c].many);
	}
	free(w->tasks);
	free(w);
}
