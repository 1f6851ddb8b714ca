// SPDX-License-Identifier: LGPL-2.1
/*
 * A run's events read back from the chunks of the three event tables,
 * merged by seq (the tables share one sequence), as struct ra_event: the
 * analysis passes see the same events the collectors wrote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"
#include "chunk.h"
#include "ra_progress.h"
#include "ra_evstream.h"

/* A table's chunks of the run, one unpacked at a time. */
struct cursor {
	sqlite3_stmt *st;
	int cls;
	bool has_row;
	int64_t seq;	/* of the current row */
	int at;		/* the current row in ch */
	struct ra_chunk ch;
};

/* The block completions only, for passes that need to know when I/O ended. */
#define CLASS_BLK_DONE (RA_CLASS_BLK + 1)

struct ra_evstream {
	struct ra_db *db;
	int64_t first, last;	/* the run's seq range */
	uint64_t events;
	struct cursor *c[4];
	int n;
};

/* the run's chunks, in order: its seq range and its id */
static const char chunk_where[] = "WHERE seq_first BETWEEN ?1 AND ?2 AND run_id = ?3"
				  " ORDER BY seq_first";

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

/* only the completions of bios and requests, for CLASS_BLK_DONE */
static bool wanted(const struct cursor *c, const struct ra_chunk_row *r)
{
	return c->cls != CLASS_BLK_DONE || r->v[RA_BLK_EVENT] == RA_EV_BIO_COMPLETE ||
	       r->v[RA_BLK_EVENT] == RA_EV_RQ_COMPLETE;
}

/* The cursor's next row, from the next chunk when this one is done. */
static int advance(struct ra_evstream *s, struct cursor *c)
{
	for (;;) {
		int rc;

		while (++c->at < c->ch.n)
			if (wanted(c, &c->ch.rows[c->at])) {
				c->seq = c->ch.rows[c->at].v[RA_RA_SEQ];
				c->has_row = true;
				return 0;
			}
		rc = sqlite3_step(c->st);
		c->has_row = false;
		if (rc == SQLITE_DONE)
			return 0;
		if (rc != SQLITE_ROW) {
			ra_set_error(RA_ERR_IO, "cannot read '%s': %s", ra_db_path(s->db),
				     sqlite3_errmsg(ra_db_sqlite(s->db)));
			return -1;
		}
		if (ra_chunk_load(c->st, &c->ch, ra_db_path(s->db)) < 0)
			return -1;
		c->at = -1;
	}
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
		struct cursor *c;
		char *sql;
		int rc;

		if (!(mask & (1u << cls)))
			continue;
		c = s->c[s->n] = calloc(1, sizeof(*c));
		if (!c) {
			ra_set_error(RA_ERR_IO, "out of memory");
			goto fail;
		}
		s->n++;
		c->cls = cls;
		c->ch.t = ra_chunk_table(cls == CLASS_BLK_DONE ? RA_CLASS_BLK : cls);
		sql = ra_chunk_select_sql(c->ch.t, chunk_where);
		if (!sql)
			goto fail;
		rc = sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &c->st, NULL);
		free(sql);
		if (rc != SQLITE_OK) {
			ra_set_error(RA_ERR_IO, "cannot read '%s': %s", ra_db_path(db),
				     sqlite3_errmsg(ra_db_sqlite(db)));
			goto fail;
		}
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

int ra_evstream_next(struct ra_evstream *s, struct ra_event *ev, int64_t *seq)
{
	struct cursor *min = NULL;

	for (int i = 0; i < s->n; i++)
		if (s->c[i]->has_row && (!min || s->c[i]->seq < min->seq))
			min = s->c[i];
	if (!min)
		return 0;
	ra_chunk_row_event(min->ch.t, &min->ch.rows[min->at], ev);
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
	for (int i = 0; i < s->n; i++) {
		sqlite3_finalize(s->c[i]->st);
		free(s->c[i]);
	}
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
