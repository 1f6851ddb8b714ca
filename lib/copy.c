// SPDX-License-Identifier: LGPL-2.1
/*
 * Copying recorded runs from one ratrace database into another (the runs a
 * guest recorded into the user's database). The recording's own tables are
 * copied row by row through prepared statements, with new run ids and event
 * seqs; the derived tables are not: the caller analyses the new runs again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"

/*
 * The tables a recording writes, after runs. A table added to the schema
 * that a recording fills belongs here; the analysis passes' tables do not.
 */
static const char *const recorded_tables[] = {
	"run_args", "tracepoints", "devices", "device_snapshots", "vmstat", "settings",
	"setting_changes", "lost_events", "tasks", "files", "filesystems", "skipped_events",
	"bench_results", "run_params", "event_sources", "self_checks", "event_counts", "ra_chunks",
	"page_chunks", "blk_chunks", NULL
};

#define MAX_COLS 64

/* A table's columns, as this version's schema in @db has them. */
struct cols {
	char name[MAX_COLS][64];
	int n;
};

static int table_cols(struct ra_db *db, const char *table, struct cols *c)
{
	sqlite3_stmt *st = ra_db_prepare(db, "SELECT name FROM pragma_table_info(?1) ORDER BY cid");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	c->n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && c->n < MAX_COLS)
		snprintf(c->name[c->n++], sizeof(c->name[0]), "%s",
			 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || !c->n) {
		ra_set_error(RA_ERR_DATA, "cannot read the columns of '%s' in '%s'", table, db->path);
		return -1;
	}
	return 0;
}

/* "SELECT a, b FROM t WHERE run_id = ?1" and "INSERT INTO t (a, b) VALUES (?, ?)". */
static int make_sql(const char *table, const struct cols *c, char *sel, char *ins, size_t len)
{
	size_t s = 0, i = 0;

	s += (size_t)snprintf(sel + s, len - s, "SELECT ");
	i += (size_t)snprintf(ins + i, len - i, "INSERT INTO \"%s\" (", table);
	for (int k = 0; k < c->n && s < len && i < len; k++) {
		s += (size_t)snprintf(sel + s, len - s, "%s\"%s\"", k ? ", " : "", c->name[k]);
		i += (size_t)snprintf(ins + i, len - i, "%s\"%s\"", k ? ", " : "", c->name[k]);
	}
	if (s < len)
		s += (size_t)snprintf(sel + s, len - s, " FROM \"%s\" WHERE run_id = ?1", table);
	if (i < len)
		i += (size_t)snprintf(ins + i, len - i, ") VALUES (");
	for (int k = 0; k < c->n && i < len; k++)
		i += (size_t)snprintf(ins + i, len - i, "%s?", k ? ", " : "");
	if (i < len)
		i += (size_t)snprintf(ins + i, len - i, ")");
	if (s >= len || i >= len) {
		ra_set_error(RA_ERR_DATA, "table '%s' has too many columns to copy", table);
		return -1;
	}
	return 0;
}

/* What one run's rows become in the destination. */
struct remap {
	int64_t old_id, new_id;
	int64_t seq_offset;
	const struct ra_copy_tags *tags;
};

/* Bind column @k (@name) of a source row to the insert, renumbered or tagged. */
static void bind_col(sqlite3_stmt *ins, sqlite3_stmt *sel, int k, const char *name,
		     const struct remap *m)
{
	const struct ra_copy_tags *t = m->tags;
	const char *tag = NULL;

	if (strcmp(name, "run_id") == 0) {
		sqlite3_bind_int64(ins, k + 1, m->new_id);
		return;
	}
	if ((strcmp(name, "seq") == 0 || strcmp(name, "seq_first") == 0 ||
	     strcmp(name, "seq_last") == 0) && sqlite3_column_type(sel, k) == SQLITE_INTEGER) {
		sqlite3_bind_int64(ins, k + 1, sqlite3_column_int64(sel, k) + m->seq_offset);
		return;
	}
	if (t && strcmp(name, "execution") == 0)
		tag = t->execution;
	else if (t && strcmp(name, "boot_kernel") == 0)
		tag = t->boot_kernel;
	if (tag) {
		sqlite3_bind_text(ins, k + 1, tag, -1, SQLITE_STATIC);
		return;
	}
	sqlite3_bind_value(ins, k + 1, sqlite3_column_value(sel, k));
}

/* Copy the rows of @table of run m->old_id in @src into @dst. */
static int copy_table(struct ra_db *dst, struct ra_db *src, const char *table,
		      const struct remap *m)
{
	sqlite3_stmt *sel = NULL, *ins = NULL;
	char sel_sql[4096], ins_sql[4096];
	struct cols c;
	int rc, ret = -1;

	if (table_cols(dst, table, &c) < 0 ||
	    make_sql(table, &c, sel_sql, ins_sql, sizeof(sel_sql)) < 0)
		return -1;
	sel = ra_db_prepare(src, sel_sql);
	ins = sel ? ra_db_prepare(dst, ins_sql) : NULL;
	if (!ins)
		goto out;
	sqlite3_bind_int64(sel, 1, m->old_id);
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		for (int k = 0; k < c.n; k++)
			bind_col(ins, sel, k, c.name[k], m);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			ra_db_fail(dst, "cannot copy a run into");
			goto out;
		}
		sqlite3_reset(ins);
	}
	if (rc != SQLITE_DONE) {
		ra_db_fail(src, "cannot read the runs of");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return ret;
}

static int query_int(struct ra_db *db, const char *sql, int64_t arg, int64_t *out)
{
	sqlite3_stmt *st = ra_db_prepare(db, sql);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, arg);
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return ra_db_fail(db, "cannot read");
	return 0;
}

/* The destination's next run id and event seq. */
static int next_ids(struct ra_db *dst, int64_t *run_id, int64_t *seq)
{
	if (query_int(dst, "SELECT COALESCE(MAX(run_id), 0) + 1 + 0 * ?1 FROM runs", 0, run_id) < 0)
		return -1;
	return query_int(dst,
			 "SELECT COALESCE(MAX(m), 0) + 1 + 0 * ?1 FROM (SELECT MAX(seq_last) AS m FROM"
			 " ra_chunks UNION ALL SELECT MAX(seq_last) FROM page_chunks UNION ALL"
			 " SELECT MAX(seq_last) FROM blk_chunks)", 0, seq);
}

/* Copy run @old_id of @src as the next run of @dst; its new id in *new_id. */
static int copy_run(struct ra_db *dst, struct ra_db *src, int64_t old_id,
		    const struct ra_copy_tags *tags, int64_t *new_id)
{
	struct remap m = { .old_id = old_id, .tags = tags };
	int64_t seq_next, seq_first, has_events;

	if (next_ids(dst, &m.new_id, &seq_next) < 0 ||
	    query_int(src, "SELECT seq_first IS NOT NULL FROM runs WHERE run_id = ?1", old_id,
		      &has_events) < 0 ||
	    query_int(src, "SELECT COALESCE(seq_first, 0) FROM runs WHERE run_id = ?1", old_id,
		      &seq_first) < 0)
		return -1;
	m.seq_offset = has_events ? seq_next - seq_first : 0;
	if (copy_table(dst, src, "runs", &m) < 0)
		return -1;
	for (const char *const *t = recorded_tables; *t; t++)
		if (copy_table(dst, src, *t, &m) < 0)
			return -1;
	if (tags && tags->label) {
		sqlite3_stmt *st = ra_db_prepare(dst, "UPDATE runs SET label = ?1 WHERE run_id = ?2");

		if (!st)
			return -1;
		sqlite3_bind_text(st, 1, tags->label, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, m.new_id);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return ra_db_fail(dst, "cannot write to");
		}
		sqlite3_finalize(st);
	}
	*new_id = m.new_id;
	return 0;
}

/* The complete recorded runs of @src, in order. */
static int source_runs(struct ra_db *src, int64_t **ids, size_t *n)
{
	sqlite3_stmt *st = ra_db_prepare(src, "SELECT run_id FROM runs WHERE complete = 1 AND"
					      " origin = 'record' ORDER BY run_id");
	size_t cap = 0;
	int rc;

	if (!st)
		return -1;
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			int64_t *p = realloc(*ids, (cap = cap ? cap * 2 : 8) * sizeof(*p));

			if (!p) {
				sqlite3_finalize(st);
				ra_set_error(RA_ERR_IO, "out of memory");
				return -1;
			}
			*ids = p;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ra_db_fail(src, "cannot read the runs of");
	return 0;
}

int ra_db_copy_runs(struct ra_db *dst, const char *src_path, const struct ra_copy_tags *tags,
		    int64_t **new_ids, size_t *n)
{
	struct ra_db *src = ra_db_open(src_path, RA_DB_READONLY);
	int64_t *ids = NULL;
	size_t nids = 0;
	int ret = -1;

	*new_ids = NULL;
	*n = 0;
	if (!src)
		return -1;
	if (source_runs(src, &ids, &nids) < 0)
		goto out;
	for (size_t i = 0; i < nids; i++)
		if (copy_run(dst, src, ids[i], tags, &ids[i]) < 0)
			goto out;
	ret = 0;
out:
	if (ra_db_close(src) < 0 && ret == 0)
		ret = -1;
	if (ret < 0) {
		free(ids);
		return -1;
	}
	*new_ids = ids;
	*n = nids;
	return 0;
}
