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
#include "ra_evcols.h"
#include "ra_progress.h"
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
	int64_t first, last;	/* the run's seq range */
	uint64_t events;
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
			   " WHERE seq BETWEEN ?1 AND ?2 AND run_id = ?3 AND event_id IN (?4, ?5)"
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
	s->first = first;
	s->last = last;
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
		if (cls == CLASS_BLK_DONE) {	/* a bio's or a request's completion */
			sqlite3_bind_int(c->st, 4, RA_EV_BIO_COMPLETE);
			sqlite3_bind_int(c->st, 5, RA_EV_RQ_COMPLETE);
		}
		if (advance(s, c) < 0)
			goto fail;
	}
	return s;
fail:
	ra_evstream_close(s);
	return NULL;
}

/* the columns of one table after the common ones, into their members */
static void fill(sqlite3_stmt *st, struct ra_event *ev, const struct ra_evcol *cols, int from,
		 int ncols)
{
	for (int i = from; i < ncols; i++) {
		const struct ra_evcol *c = &cols[i];

		if (c->size > sizeof(int64_t)) {	/* a text into its char array */
			const unsigned char *t = sqlite3_column_text(st, i);

			snprintf((char *)ev + c->off, c->size, "%s", t ? (const char *)t : "");
		} else if (sqlite3_column_type(st, i) == SQLITE_NULL) {
			ra_evcol_set(ev, c, c->null);
		} else {
			ev->has_mask |= c->has;
			ra_evcol_set(ev, c, sqlite3_column_int64(st, i));
		}
	}
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
		fill(min->st, ev, ra_evcols_ra, RA_RA_DEV, RA_RA_NCOLS);
	else if (min->cls == RA_CLASS_PAGE)
		fill(min->st, ev, ra_evcols_page, RA_PAGE_DEV, RA_PAGE_NCOLS);
	else
		fill(min->st, ev, ra_evcols_blk, RA_BLK_DEV, RA_BLK_NCOLS);
	if (seq)
		*seq = min->seq;
	/* how far through the run's events (its seq range) */
	if ((++s->events & 0xffff) == 0 && s->db->progress)
		ra_progress_update(s->db->progress, s->db->progress_what, s->events,
				   (uint64_t)(min->seq - s->first + 1), (uint64_t)(s->last - s->first + 1));
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
