// SPDX-License-Identifier: LGPL-2.1
/*
 * Bulk event writer: one prepared INSERT per event table, bound with native
 * types. All three tables share one seq space so that seq orders the events
 * of a run in time.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"

#define TASK_SLOTS_MIN 256

struct task_slot {
	int pid;		/* 0: empty */
	char comm[16];		/* "": not known */
};

struct ra_writer {
	struct ra_db *db;
	int64_t run_id;
	int64_t seq;
	sqlite3_stmt *ins_ra;
	sqlite3_stmt *ins_page;
	sqlite3_stmt *ins_blk;
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

struct ra_writer *ra_writer_alloc(struct ra_db *db, int64_t run_id)
{
	struct ra_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	w->db = db;
	w->run_id = run_id;
	w->seq = next_seq(db);
	if (w->seq < 0)
		goto fail;
	w->ins_ra = ra_db_prepare(db, "INSERT INTO ra_events VALUES"
				      " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	w->ins_page = ra_db_prepare(db, "INSERT INTO page_events VALUES"
					" (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	w->ins_blk = ra_db_prepare(db, "INSERT INTO blk_events VALUES"
				       " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!w->ins_ra || !w->ins_page || !w->ins_blk)
		goto fail;
	return w;
fail:
	ra_writer_free(w);
	return NULL;
}

static void bind_opt(sqlite3_stmt *st, int col, int present, int64_t v)
{
	if (present)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

static sqlite3_stmt *bind_ra(struct ra_writer *w, const struct ra_event *ev)
{
	const struct ra_ra_fields *f = &ev->ra;
	sqlite3_stmt *st = w->ins_ra;
	int trig = ev->type == RA_EV_SYNC_RA || ev->type == RA_EV_ASYNC_RA;
	int unb = ev->type == RA_EV_RA_UNBOUNDED;

	sqlite3_bind_int64(st, 7, f->dev);
	sqlite3_bind_int64(st, 8, (int64_t)f->ino);
	sqlite3_bind_int64(st, 9, (int64_t)f->index);
	bind_opt(st, 10, trig, (int64_t)f->req_count);
	bind_opt(st, 11, !unb, f->order);
	sqlite3_bind_int64(st, 12, f->size);
	sqlite3_bind_int64(st, 13, f->async_size);
	bind_opt(st, 14, !unb, f->ra_pages);
	bind_opt(st, 15, trig, f->mmap_miss);
	bind_opt(st, 16, trig, f->prev_pos);
	return st;
}

static sqlite3_stmt *bind_page(struct ra_writer *w, const struct ra_event *ev)
{
	const struct ra_page_fields *f = &ev->page;
	sqlite3_stmt *st = w->ins_page;

	sqlite3_bind_int64(st, 7, f->dev);
	sqlite3_bind_int64(st, 8, (int64_t)f->ino);
	sqlite3_bind_int64(st, 9, (int64_t)f->index);
	bind_opt(st, 10, ev->has_mask & RA_HAS_LAST_INDEX, (int64_t)f->last_index);
	bind_opt(st, 11, ev->has_mask & RA_HAS_ORDER, f->order);
	bind_opt(st, 12, ev->has_mask & RA_HAS_PFN, (int64_t)f->pfn);
	return st;
}

static sqlite3_stmt *bind_blk(struct ra_writer *w, const struct ra_event *ev)
{
	const struct ra_blk_fields *f = &ev->blk;
	sqlite3_stmt *st = w->ins_blk;
	int has_dev = ev->type != RA_EV_PLUG && ev->type != RA_EV_UNPLUG;
	int remap = ev->type == RA_EV_BIO_REMAP || ev->type == RA_EV_RQ_REMAP;

	bind_opt(st, 7, has_dev, f->dev);
	bind_opt(st, 8, has_dev, (int64_t)f->sector);
	bind_opt(st, 9, has_dev, f->nr_sector);
	bind_opt(st, 10, ev->has_mask & RA_HAS_BYTES, f->bytes);
	if (f->rwbs[0])
		sqlite3_bind_text(st, 11, f->rwbs, (int)strnlen(f->rwbs, sizeof(f->rwbs)),
				  SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 11);
	bind_opt(st, 12, ev->has_mask & RA_HAS_ERROR, f->error);
	bind_opt(st, 13, ev->has_mask & RA_HAS_NR_RQ, f->nr_rq);
	bind_opt(st, 14, ev->type == RA_EV_UNPLUG && f->explicit_unplug >= 0, f->explicit_unplug);
	bind_opt(st, 15, ev->type == RA_EV_SPLIT, (int64_t)f->new_sector);
	bind_opt(st, 16, remap, f->old_dev);
	bind_opt(st, 17, remap, (int64_t)f->old_sector);
	return st;
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

static struct task_slot *task_slot(struct ra_writer *w, int pid, bool *fresh)
{
	size_t h;

	*fresh = false;
	if ((w->ntasks + 1) * 2 > w->task_cap && task_grow(w) < 0)
		return NULL;
	for (h = (size_t)pid & (w->task_cap - 1); w->tasks[h].pid; h = (h + 1) & (w->task_cap - 1))
		if (w->tasks[h].pid == pid)
			return &w->tasks[h];
	w->ntasks++;
	w->tasks[h].pid = pid;
	*fresh = true;
	return &w->tasks[h];
}

static void set_comm(struct task_slot *t, const char *comm)
{
	strncpy(t->comm, comm, sizeof(t->comm) - 1);
	t->comm[sizeof(t->comm) - 1] = '\0';
}

/*
 * The latest name each task had in the events (a task may exec); a task seen
 * without one is named once by the namer.
 */
static int task_note(struct ra_writer *w, int pid, const char *comm)
{
	struct task_slot *t;
	bool fresh;

	if (pid <= 0)
		return 0;
	t = task_slot(w, pid, &fresh);
	if (!t)
		return -1;
	if (comm[0])
		set_comm(t, comm);
	else if (fresh && w->namer && (comm = w->namer(pid, w->namer_arg)))
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
	sqlite3_stmt *st;

	switch (ra_event_class(ev->type)) {
	case RA_CLASS_RA:
		st = bind_ra(w, ev);
		break;
	case RA_CLASS_PAGE:
		st = bind_page(w, ev);
		break;
	case RA_CLASS_BLK:
		st = bind_blk(w, ev);
		break;
	default:
		return 0;
	}
	sqlite3_bind_int64(st, 1, w->seq);
	sqlite3_bind_int64(st, 2, w->run_id);
	sqlite3_bind_int64(st, 3, (int64_t)ev->ts_ns);
	sqlite3_bind_int(st, 4, ev->cpu);
	sqlite3_bind_int(st, 5, ev->pid);
	sqlite3_bind_int(st, 6, ev->type);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return ra_db_fail(w->db, "cannot write events to");
	}
	sqlite3_reset(st);
	w->seq++;
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
	bool fresh;

	if (pid <= 0 || !comm || !comm[0])
		return 0;
	t = task_slot(w, pid, &fresh);
	if (!t)
		return -1;
	if (!t->comm[0])
		set_comm(t, comm);
	return 0;
}

int ra_writer_flush_tasks(struct ra_writer *w)
{
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
	sqlite3_finalize(w->ins_ra);
	sqlite3_finalize(w->ins_page);
	sqlite3_finalize(w->ins_blk);
	free(w->tasks);
	free(w);
}
