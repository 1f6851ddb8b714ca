// SPDX-License-Identifier: LGPL-2.1
/*
 * A run's events read back from the three event tables, merged by seq (the
 * tables share one sequence), as struct ra_event: the analysis passes see the
 * same events the collectors wrote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"
#include "evcols.h"
#include "ra_evstream.h"

struct cursor {
	sqlite3_stmt *st;
	int cls;
	bool has_row;
	int64_t seq;
};

/* The block completions only, for passes that need to know when I/O ended. */
#define CLASS_BLK_DONE (RA_CLASS_BLK + 1)

struct ra_evstream {
	struct ra_db *db;
	struct cursor c[4];
	int n;
};

static const char *const queries[] = {
	[RA_CLASS_RA] = "SELECT " RA_EVCOLS_NAMES(RA_EVCOLS_RA) " FROM ra_events"
			" WHERE seq BETWEEN ?1 AND ?2 AND run_id = ?3 ORDER BY seq",
	[RA_CLASS_PAGE] = "SELECT " RA_EVCOLS_NAMES(RA_EVCOLS_PAGE) " FROM page_events"
			  " WHERE seq BETWEEN ?1 AND ?2 AND run_id = ?3 ORDER BY seq",
	[RA_CLASS_BLK] = "SELECT " RA_EVCOLS_NAMES(RA_EVCOLS_BLK) " FROM blk_events"
			 " WHERE seq BETWEEN ?1 AND ?2 AND run_id = ?3 ORDER BY seq",
	[CLASS_BLK_DONE] = "SELECT " RA_EVCOLS_NAMES(RA_EVCOLS_BLK) " FROM blk_events"
			   " WHERE seq BETWEEN ?1 AND ?2 AND run_id = ?3 AND event_id IN (23, 30)"
			   " ORDER BY seq",
};

static int seq_range(struct ra_db *db, int64_t run_id, int64_t *first, int64_t *last)
{
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(ra_db_sqlite(db), "SELECT seq_first, seq_last FROM runs"
			       " WHERE run_id = ?", -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ra_set_error(RA_ERR_USAGE, "no run %lld in '%s'", (long long)run_id,
			     ra_db_path(db));
		goto out;
	}
	/* a run without events has no range: an empty one */
	*first = sqlite3_column_type(st, 0) == SQLITE_NULL ? 1 : sqlite3_column_int64(st, 0);
	*last = sqlite3_column_type(st, 1) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 1);
	ret = 0;
out:
	if (ret < 0 && ra_last_error_kind() != RA_ERR_USAGE)
		ra_set_error(RA_ERR_IO, "cannot read '%s': %s", ra_db_path(db),
			     sqlite3_errmsg(ra_db_sqlite(db)));
	sqlite3_finalize(st);
	return ret;
}

static int advance(struct ra_evstream *s, struct cursor *c)
{
	int rc = sqlite3_step(c->st);

	c->has_row = rc == SQLITE_ROW;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ra_set_error(RA_ERR_IO, "cannot read '%s': %s", ra_db_path(s->db),
			     sqlite3_errmsg(ra_db_sqlite(s->db)));
		return -1;
	}
	if (c->has_row)
		c->seq = sqlite3_column_int64(c->st, 0);
	return 0;
}

struct ra_evstream *ra_evstream_open(struct ra_db *db, int64_t run_id, unsigned int mask)
{
	struct ra_evstream *s = calloc(1, sizeof(*s));
	int64_t first, last;

	if (!s) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	s->db = db;
	if (seq_range(db, run_id, &first, &last) < 0)
		goto fail;
	if ((mask & RA_STREAM_BLK) && (mask & RA_STREAM_BLK_DONE))
		mask &= ~RA_STREAM_BLK_DONE;	/* the completions are among them */
	for (int cls = RA_CLASS_RA; cls <= CLASS_BLK_DONE; cls++) {
		struct cursor *c = &s->c[s->n];

		if (!(mask & (1u << cls)))
			continue;
		if (sqlite3_prepare_v2(ra_db_sqlite(db), queries[cls], -1, &c->st, NULL) !=
		    SQLITE_OK) {
			ra_set_error(RA_ERR_IO, "cannot read '%s': %s", ra_db_path(db),
				     sqlite3_errmsg(ra_db_sqlite(db)));
			goto fail;
		}
		c->cls = cls;
		s->n++;
		sqlite3_bind_int64(c->st, 1, first);
		sqlite3_bind_int64(c->st, 2, last);
		sqlite3_bind_int64(c->st, 3, run_id);
		if (advance(s, c) < 0)
			goto fail;
	}
	return s;
fail:
	ra_evstream_close(s);
	return NULL;
}

static int64_t col_opt(sqlite3_stmt *st, int col, uint16_t *mask, uint16_t flag)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	*mask |= flag;
	return sqlite3_column_int64(st, col);
}

static void fill_ra(sqlite3_stmt *st, struct ra_event *ev)
{
	struct ra_ra_fields *f = &ev->ra;

	f->dev = (uint32_t)sqlite3_column_int64(st, RA_RA_DEV);
	f->ino = (uint64_t)sqlite3_column_int64(st, RA_RA_INO);
	f->index = (uint64_t)sqlite3_column_int64(st, RA_RA_INDEX);
	f->req_count = (uint64_t)col_opt(st, RA_RA_REQ_COUNT, &ev->has_mask, 0);
	f->order = (uint32_t)col_opt(st, RA_RA_ORDER, &ev->has_mask, RA_HAS_ORDER);
	f->size = (uint32_t)sqlite3_column_int64(st, RA_RA_SIZE);
	f->async_size = (uint32_t)sqlite3_column_int64(st, RA_RA_ASYNC);
	f->ra_pages = (uint32_t)sqlite3_column_int64(st, RA_RA_RA_PAGES);
	f->mmap_miss = (uint32_t)col_opt(st, RA_RA_MMAP_MISS, &ev->has_mask, RA_HAS_PREV_POS);
	f->prev_pos = col_opt(st, RA_RA_PREV_POS, &ev->has_mask, 0);
}

static void fill_page(sqlite3_stmt *st, struct ra_event *ev)
{
	struct ra_page_fields *f = &ev->page;

	f->dev = (uint32_t)sqlite3_column_int64(st, RA_PAGE_DEV);
	f->ino = (uint64_t)sqlite3_column_int64(st, RA_PAGE_INO);
	f->index = (uint64_t)sqlite3_column_int64(st, RA_PAGE_INDEX);
	f->last_index = (uint64_t)col_opt(st, RA_PAGE_LAST_INDEX, &ev->has_mask, RA_HAS_LAST_INDEX);
	f->order = (uint32_t)col_opt(st, RA_PAGE_ORDER, &ev->has_mask, RA_HAS_ORDER);
	f->pfn = (uint64_t)col_opt(st, RA_PAGE_PFN, &ev->has_mask, RA_HAS_PFN);
}

static void fill_blk(sqlite3_stmt *st, struct ra_event *ev)
{
	struct ra_blk_fields *f = &ev->blk;
	const unsigned char *rwbs = sqlite3_column_text(st, RA_BLK_RWBS);

	f->dev = (uint32_t)sqlite3_column_int64(st, RA_BLK_DEV);
	f->sector = (uint64_t)sqlite3_column_int64(st, RA_BLK_SECTOR);
	f->nr_sector = (uint32_t)sqlite3_column_int64(st, RA_BLK_NR_SECTOR);
	f->bytes = (uint32_t)col_opt(st, RA_BLK_BYTES, &ev->has_mask, RA_HAS_BYTES);
	if (rwbs)
		snprintf(f->rwbs, sizeof(f->rwbs), "%s", (const char *)rwbs);
	f->error = (int32_t)col_opt(st, RA_BLK_ERROR, &ev->has_mask, RA_HAS_ERROR);
	f->nr_rq = (int32_t)col_opt(st, RA_BLK_NR_RQ, &ev->has_mask, RA_HAS_NR_RQ);
	f->explicit_unplug = sqlite3_column_type(st, RA_BLK_EXPLICIT_UNPLUG) == SQLITE_NULL ?
				     -1 : sqlite3_column_int(st, RA_BLK_EXPLICIT_UNPLUG);
	f->new_sector = (uint64_t)sqlite3_column_int64(st, RA_BLK_NEW_SECTOR);
	f->old_dev = (uint32_t)sqlite3_column_int64(st, RA_BLK_OLD_DEV);
	f->old_sector = (uint64_t)sqlite3_column_int64(st, RA_BLK_OLD_SECTOR);
}

int ra_evstream_next(struct ra_evstream *s, struct ra_event *ev, int64_t *seq)
{
	struct cursor *min = NULL;

	for (int i = 0; i < s->n; i++)
		if (s->c[i].has_row && (!min || s->c[i].seq < min->seq))
			min = &s->c[i];
	if (!min)
		return 0;
	memset(ev, 0, sizeof(*ev));
	/* the common columns have one index in the three tables */
	ev->ts_ns = (uint64_t)sqlite3_column_int64(min->st, RA_RA_TS);
	ev->cpu = sqlite3_column_int(min->st, RA_RA_CPU);
	ev->pid = sqlite3_column_int(min->st, RA_RA_PID);
	ev->type = (uint16_t)sqlite3_column_int(min->st, RA_RA_EVENT);
	if (min->cls == RA_CLASS_RA)
		fill_ra(min->st, ev);
	else if (min->cls == RA_CLASS_PAGE)
		fill_page(min->st, ev);
	else
		fill_blk(min->st, ev);
	if (seq)
		*seq = min->seq;
	return advance(s, min) < 0 ? -1 : 1;
}

void ra_evstream_close(struct ra_evstream *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		sqlite3_finalize(s->c[i].st);
	free(s);
}

int ra_evstream_each(struct ra_db *db, int64_t run_id, unsigned int mask, ra_seq_event_cb cb,
		     void *arg)
{
	struct ra_evstream *s = ra_evstream_open(db, run_id, mask);
	struct ra_event ev;
	int64_t seq;
	int rc = 0, ret = 0;

	if (!s)
		return -1;
	ra_set_error(RA_OK, "%s", "");
	while (ret == 0 && (rc = ra_evstream_next(s, &ev, &seq)) == 1)
		ret = cb(&ev, seq, arg);
	if (ret < 0 && ra_last_error_kind() == RA_OK)
		ra_set_error(RA_ERR_IO, "out of memory");
	ra_evstream_close(s);
	return ret < 0 || rc < 0 ? -1 : 0;
}
