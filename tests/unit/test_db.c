// SPDX-License-Identifier: LGPL-2.1
/*
 * The database: creation, version checks, refusal of foreign files, the bulk
 * writer and the stable views.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ra_evcols.h"
#include "db_local.h"
#include "schema.h"
#include "test.h"

static char dir[64];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* The file's views are read here as a user's tool reads them (ratrace's own reads never do). */
static void views_on(struct ra_db *db)
{
	sqlite3_db_config(ra_db_sqlite(db), SQLITE_DBCONFIG_ENABLE_VIEW, 1, NULL);
}

static long long query_int(struct ra_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long v = -999;

	views_on(db);
	if (sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else
		fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(ra_db_sqlite(db)));
	sqlite3_finalize(st);
	return v;
}

/* The first column of @sql's first row as text, in a buffer of its own; "" on error. */
static const char *query_text(struct ra_db *db, const char *sql)
{
	static char buf[1024];
	sqlite3_stmt *st = NULL;

	views_on(db);
	buf[0] = '\0';
	if (sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

/*
 * Each column of an event view: its name, a member of a size the packing
 * knows, and its base, bits and place in the table of chunks.
 */
static void check_members(struct ra_db *db, const char *table, const char *chunks,
			  const struct ra_evcol *cols, int from, int ncols)
{
	char sql[256];

	for (int i = from; i < ncols; i++) {
		bool text = cols[i].size > sizeof(int64_t);

		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE"
			 " name IN ('%s_base', '%s_bits', '%s_at')", chunks, cols[i].name,
			 cols[i].name, cols[i].name);
		CHECK_INT(query_int(db, sql), 3);
		CHECK(text || cols[i].size == 1 || cols[i].size == 2 || cols[i].size == 4 ||
		      cols[i].size == 8);
		snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('%s') WHERE cid = %d",
			 table, i);
		CHECK_STR(query_text(db, sql), cols[i].name);
	}
}

static void test_create(void)
{
	struct ra_db *db = ra_db_open(tmp_path("new.db"), RA_DB_CREATE);

	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_INT(query_int(db, "PRAGMA user_version"), RA_SCHEMA_VERSION);
	CHECK_INT(query_int(db, "PRAGMA application_id"), RA_APPLICATION_ID);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM event_types"), 30);
	CHECK_INT(query_int(db, "SELECT event_id FROM event_types WHERE name = 'block_rq_complete'"),
		  RA_EV_RQ_COMPLETE);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM v_runs"), 0);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM v_event_counts"), 0);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM v_devices"), 0);
	/* the event tables have the columns of ra_evcols.h, in its order */
	CHECK_STR(query_text(db, "SELECT group_concat(name, ', ') FROM pragma_table_info('ra_events')"),
		  RA_EVCOLS_NAMES(RA_EVCOLS_RA));
	CHECK_STR(query_text(db, "SELECT group_concat(name, ', ') FROM pragma_table_info('page_events')"),
		  RA_EVCOLS_NAMES(RA_EVCOLS_PAGE));
	CHECK_STR(query_text(db, "SELECT group_concat(name, ', ') FROM pragma_table_info('blk_events')"),
		  RA_EVCOLS_NAMES(RA_EVCOLS_BLK));
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM pragma_table_info('ra_events')"), RA_RA_NCOLS);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM pragma_table_info('page_events')"),
		  RA_PAGE_NCOLS);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM pragma_table_info('blk_events')"), RA_BLK_NCOLS);
	/* each column's member: a text column a char array, the others numbers */
	check_members(db, "ra_events", "ra_chunks", ra_evcols_ra, RA_RA_DEV, RA_RA_NCOLS);
	check_members(db, "page_events", "page_chunks", ra_evcols_page, RA_PAGE_DEV, RA_PAGE_NCOLS);
	check_members(db, "blk_events", "blk_chunks", ra_evcols_blk, RA_BLK_DEV, RA_BLK_NCOLS);
	CHECK_INT(ra_db_close(db), 0);

	/* Reopening an existing database leaves it as it is. */
	db = ra_db_open(tmp_path("new.db"), 0);
	CHECK(db != NULL);
	CHECK_INT(ra_db_close(db), 0);
	db = ra_db_open(tmp_path("new.db"), RA_DB_READONLY);
	CHECK(db != NULL);
	CHECK_INT(ra_db_close(db), 0);
}

static void expect_refusal(const char *path, int flags, const char *needle)
{
	struct ra_db *db = ra_db_open(path, flags);

	CHECK(db == NULL);
	ra_db_close(db);
	if (!strstr(ra_last_error(), needle)) {
		test_failures++;
		fprintf(stderr, "error \"%s\" lacks \"%s\"\n", ra_last_error(), needle);
	}
}

static void test_refusals(void)
{
	char cmd[256], newer[64];
	FILE *f;

	/* a version after this one */
	snprintf(cmd, sizeof(cmd),
		 "sqlite3 %s 'PRAGMA application_id = %d; PRAGMA user_version = %d;"
		 " CREATE TABLE runs (x)'", tmp_path("newer.db"), RA_APPLICATION_ID,
		 RA_SCHEMA_VERSION + 1);
	CHECK_INT(system(cmd), 0);
	snprintf(newer, sizeof(newer), "schema version %d, newer than", RA_SCHEMA_VERSION + 1);
	expect_refusal(tmp_path("newer.db"), RA_DB_CREATE, newer);
	expect_refusal(tmp_path("newer.db"), RA_DB_READONLY, newer);

	snprintf(cmd, sizeof(cmd), "sqlite3 %s 'CREATE TABLE t (x)'", tmp_path("other.db"));
	CHECK_INT(system(cmd), 0);
	expect_refusal(tmp_path("other.db"), RA_DB_CREATE, "is not a ratrace database");

	f = fopen(tmp_path("text.db"), "w");
	CHECK(f != NULL);
	if (f) {
		fputs("plain text, not a database at all, and long enough to have a header\n", f);
		fclose(f);
	}
	expect_refusal(tmp_path("text.db"), RA_DB_CREATE, "is not a ratrace database");
	expect_refusal(tmp_path("missing.db"), 0, "cannot open");
	expect_refusal(tmp_path("missing.db"), RA_DB_READONLY, "cannot open");
	CHECK(access(tmp_path("missing.db"), F_OK) != 0);
	expect_refusal(dir, RA_DB_CREATE, "is a directory");
	expect_refusal("/nonexistent-dir/x.db", RA_DB_CREATE, "cannot create");
	CHECK_INT(ra_last_error_kind(), RA_ERR_USAGE);
}

static struct ra_event ev_at(int type, uint64_t ts, int pid, const char *comm)
{
	struct ra_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.ts_ns = ts;
	ev.pid = pid;
	snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	return ev;
}

/* Every table's columns, in order, with their types and constraints: one string. */
static char *table_shapes(const char *path)
{
	static const char sql[] =
		"SELECT group_concat(m.name || '.' || p.name || ' ' || p.type || ' ' || p.\"notnull\""
		"  || ' ' || COALESCE(p.dflt_value, '-') || ' ' || p.pk, ';')"
		" FROM sqlite_schema m, pragma_table_info(m.name) p"
		" WHERE m.type IN ('table', 'view') ORDER BY m.name, p.cid";
	sqlite3 *q = NULL;
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (sqlite3_open_v2(path, &q, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(q, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(q);
	return out;
}

/*
 * A version 1 database, made from version 1's own SQL: read-only opens refuse
 * it with the way out; a writable open upgrades it to the tables, columns,
 * column order, views and event types of a new database.
 */
static void test_upgrade_v1(void)
{
	char pragma[128], *fresh, *old;
	struct ra_db *db = ra_db_open(tmp_path("fresh.db"), RA_DB_CREATE);
	sqlite3 *q = NULL;

	CHECK(db != NULL);
	CHECK_INT(ra_db_close(db), 0);
	snprintf(pragma, sizeof(pragma), "PRAGMA application_id = %d; PRAGMA user_version = 1;",
		 RA_APPLICATION_ID);
	CHECK_INT(sqlite3_open(tmp_path("v1.db"), &q), SQLITE_OK);
	CHECK_INT(sqlite3_exec(q, ra_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_exec(q, pragma, NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_exec(q, "INSERT INTO runs (run_id, source) VALUES (1, 'record');"
			       " INSERT INTO plugs VALUES (1, 5, 4, 3, 1, 9)", NULL, NULL, NULL),
		  SQLITE_OK);
	CHECK_INT(sqlite3_close(q), SQLITE_OK);

	expect_refusal(tmp_path("v1.db"), RA_DB_READONLY, "has schema version 1; 'ra-analyze");
	db = ra_db_open(tmp_path("v1.db"), 0);
	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_INT(query_int(db, "PRAGMA user_version"), RA_SCHEMA_VERSION);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM event_types"), 30);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM v_model_table"), 0);
	/* schema 2's plugs counted every task of the machine: kept, as device 0 */
	CHECK_INT(query_int(db, "SELECT dev = 0 AND plugs = 5 AND unplugs = 4 AND unplugs_explicit = 3"
			    " AND unplugs_timer = 1 AND unplug_requests = 9 AND plugged_bios = 0"
			    " FROM plugs"), 1);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM pragma_integrity_check WHERE"
			    " integrity_check = 'ok'"), 1);
	CHECK_INT(ra_db_close(db), 0);
	db = ra_db_open(tmp_path("v1.db"), RA_DB_READONLY);
	CHECK(db != NULL);
	CHECK_INT(ra_db_close(db), 0);

	fresh = table_shapes(tmp_path("fresh.db"));
	old = table_shapes(tmp_path("v1.db"));
	CHECK(fresh && old && strlen(fresh) > 1000);
	CHECK_STR(old, fresh);
	free(fresh);
	free(old);
}

static void test_writer(void)
{
	struct ra_db *db = ra_db_open(tmp_path("w.db"), RA_DB_CREATE);
	char *argv[] = { "dd", "if=x", NULL };
	struct ra_run_info info = { .label = "L", .origin = "record", .argv = argv,
				    .start_unix_ns = 1000000000LL * 1790000000LL };
	struct ra_run_end end = { .wall_ns = 5, .exit_status = 0, .trace_start_ns = -1,
				  .trace_end_ns = -1 };
	struct ra_writer *w;
	struct ra_event ev;
	int64_t run;

	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_INT(ra_db_load_begin(db), 0);
	run = ra_db_run_create(db, &info);
	CHECK_INT(run, 1);
	w = ra_writer_alloc(db, run);
	CHECK(w != NULL);
	ev = ev_at(RA_EV_SYNC_RA, 10, 100, "");
	ev.ra.ino = 12;
	ev.ra.dev = RA_MKDEV(7, 0);
	ev.ra.ra_pages = 32;
	CHECK_INT(ra_writer_add(w, &ev), 0);
	ev = ev_at(RA_EV_PAGE_ADD, 11, 100, "");
	ev.page.order = 2;
	ev.has_mask = RA_HAS_ORDER;
	CHECK_INT(ra_writer_add(w, &ev), 0);
	ev = ev_at(RA_EV_BIO_QUEUE, 12, 100, "dd");
	snprintf(ev.blk.rwbs, sizeof(ev.blk.rwbs), "RA");
	CHECK_INT(ra_writer_add(w, &ev), 0);
	ev = ev_at(RA_EV_UNPLUG, 13, 100, "dd");
	ev.blk.explicit_unplug = -1;
	CHECK_INT(ra_writer_add(w, &ev), 0);
	CHECK_INT(ra_writer_note_task(w, 100, "ignored"), 0);
	CHECK_INT(ra_writer_note_task(w, 200, "kworker"), 0);
	CHECK_INT(ra_writer_finish(w), 0);
	CHECK_INT(ra_writer_total(w), 4);
	CHECK_INT(ra_writer_count(w, RA_EV_BIO_QUEUE), 1);
	ra_writer_free(w);
	CHECK_INT(ra_db_add_lost(db, run, 0, 3, 1, 2, 10), 0);	/* ring 4 > marks 2 */
	CHECK_INT(ra_db_add_lost(db, run, 1, 0, 0, 7, -1), 0);	/* marks only */
	CHECK_INT(ra_db_run_finish(db, run, &end), 0);
	CHECK_INT(ra_db_load_commit(db), 0);
	CHECK_INT(query_int(db, "SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
	CHECK_INT(query_int(db, "SELECT seq_first FROM runs WHERE run_id = 1"), 1);
	CHECK_INT(query_int(db, "SELECT seq_last FROM runs WHERE run_id = 1"), 4);

	CHECK_INT(query_int(db, "SELECT lost_events FROM v_runs"), 11);
	CHECK_INT(query_int(db, "SELECT n FROM v_event_counts WHERE event = 'block_bio_queue'"), 1);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM v_event_counts"), 4);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM run_args WHERE run_id = 1"), 2);
	CHECK_INT(query_int(db, "SELECT started_at = '2026-09-21T14:13:20Z' FROM runs"), 1);
	CHECK_INT(query_int(db, "SELECT complete FROM runs"), 1);
	CHECK_INT(query_int(db, "SELECT comm = 'dd' FROM tasks WHERE pid = 100"), 1);
	CHECK_INT(query_int(db, "SELECT comm = 'kworker' FROM tasks WHERE pid = 200"), 1);
	/* seq orders events across the three tables */
	CHECK_INT(query_int(db, "SELECT seq FROM ra_events"), 1);
	CHECK_INT(query_int(db, "SELECT seq FROM page_events"), 2);
	CHECK_INT(query_int(db, "SELECT MAX(seq) FROM blk_events"), 4);
	CHECK_INT(query_int(db, "SELECT req_count_pages IS NOT NULL FROM ra_events"), 1);
	CHECK_INT(query_int(db, "SELECT dev IS NULL AND explicit_unplug IS NULL FROM blk_events"
			    " WHERE event_id = 35"), 1);
	CHECK_INT(query_int(db, "SELECT rwbs = 'RA' FROM blk_events WHERE event_id = 20"), 1);

	/* A second run continues the sequence. */
	CHECK_INT(ra_db_load_begin(db), 0);
	run = ra_db_run_create(db, &info);
	w = ra_writer_alloc(db, run);
	ev = ev_at(RA_EV_FAULT, 1, 1, "");
	CHECK_INT(ra_writer_add(w, &ev), 0);
	CHECK_INT(ra_writer_finish(w), 0);
	ra_writer_free(w);
	CHECK_INT(ra_db_load_commit(db), 0);
	CHECK_INT(query_int(db, "SELECT seq FROM page_events WHERE run_id = 2"), 5);
	CHECK_INT(ra_db_close(db), 0);
}

/* A load is all or nothing: into an existing database, and into a new file. */
static void test_abort(void)
{
	struct ra_run_info info = { .origin = "record" };
	struct ra_db *db = ra_db_open(tmp_path("a.db"), RA_DB_CREATE);

	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_INT(ra_db_load_begin(db), 0);
	CHECK(ra_db_run_create(db, &info) > 0);
	ra_db_load_abort(db);
	CHECK_INT(ra_db_close(db), 0);
	CHECK(access(tmp_path("a.db"), F_OK) != 0);
	CHECK(access(tmp_path("a.db-wal"), F_OK) != 0);

	db = ra_db_open(tmp_path("a.db"), RA_DB_CREATE);
	CHECK_INT(ra_db_load_begin(db), 0);
	CHECK(ra_db_run_create(db, &info) > 0);
	CHECK_INT(ra_db_load_commit(db), 0);
	CHECK_INT(ra_db_close(db), 0);
	db = ra_db_open(tmp_path("a.db"), RA_DB_CREATE);
	CHECK_INT(ra_db_load_begin(db), 0);
	CHECK(ra_db_run_create(db, &info) > 0);
	ra_db_load_abort(db);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM runs"), 1);
	CHECK_INT(ra_db_close(db), 0);
	CHECK(access(tmp_path("a.db"), F_OK) == 0);
}

/* The journal mode in the file's header: 1 rollback journal, 2 WAL, -1 unreadable. */
static int journal_version(const char *path)
{
	unsigned char h[20];
	FILE *f = fopen(path, "rb");
	int v = -1;

	if (f && fread(h, 1, sizeof(h), f) == sizeof(h) && h[18] == h[19])
		v = h[18];
	if (f)
		fclose(f);
	return v;
}

static char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;

	*len = -1;
	if (f && fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 &&
	    (buf = malloc((size_t)*len + 1)) && fseek(f, 0, SEEK_SET) == 0 &&
	    fread(buf, 1, (size_t)*len, f) != (size_t)*len)
		*len = -1;
	if (f)
		fclose(f);
	return buf;
}

static bool has_sidecars(const char *name)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s-wal", tmp_path(name));
	if (access(buf, F_OK) == 0)
		return true;
	snprintf(buf, sizeof(buf), "%s-shm", tmp_path(name));
	return access(buf, F_OK) == 0;
}

/*
 * A writer leaves the file in rollback-journal mode; a reader of a file that
 * another program left in WAL mode reads it as it is and makes no file
 * beside it.
 */
static void test_reader(void)
{
	struct ra_db *db = ra_db_open(tmp_path("r.db"), RA_DB_CREATE);
	struct ra_run_info info = { .origin = "record" };
	char cmd[256], *before, *after;
	long n_before, n_after;

	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_INT(ra_db_load_begin(db), 0);
	CHECK(ra_db_run_create(db, &info) > 0);
	CHECK_INT(ra_db_load_commit(db), 0);
	CHECK_INT(journal_version(tmp_path("r.db")), 2);	/* WAL while it writes */
	CHECK_INT(ra_db_close(db), 0);
	CHECK_INT(journal_version(tmp_path("r.db")), 1);
	CHECK(!has_sidecars("r.db"));

	snprintf(cmd, sizeof(cmd), "sqlite3 %s 'PRAGMA journal_mode = WAL' > /dev/null",
		 tmp_path("r.db"));
	CHECK_INT(system(cmd), 0);
	CHECK_INT(journal_version(tmp_path("r.db")), 2);
	before = slurp(tmp_path("r.db"), &n_before);
	db = ra_db_open(tmp_path("r.db"), RA_DB_READONLY);
	CHECK(db != NULL);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM runs"), 1);
	CHECK_INT(ra_db_close(db), 0);
	CHECK(!has_sidecars("r.db"));
	after = slurp(tmp_path("r.db"), &n_after);
	CHECK(before && after && n_before > 0 && n_before == n_after &&
	      memcmp(before, after, (size_t)n_after) == 0);
	free(before);
	free(after);
}

/* The names in dir that start with @prefix. */
static int count_entries(const char *prefix)
{
	char cmd[256];
	FILE *f;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s'", dir, prefix);
	f = popen(cmd, "r");
	if (f && fscanf(f, "%d", &n) != 1)
		n = -1;
	if (f)
		pclose(f);
	return n;
}

/*
 * A new database opened for loading is built beside its name: nothing is at
 * the name until the handle is closed after a committed load; an aborted or
 * uncommitted one leaves nothing; a file that appeared at the name meanwhile
 * is not replaced; temporaries of processes that ended are removed.
 */
static void test_build_beside(void)
{
	struct ra_run_info info = { .origin = "record" };
	struct ra_db *db = ra_db_open_for_load(tmp_path("n.db"));
	char stale[128], aside[64];
	pid_t gone;
	FILE *f;

	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_STR(ra_db_path(db), tmp_path("n.db"));
	CHECK_INT(ra_db_load_begin(db), 0);
	CHECK(ra_db_run_create(db, &info) > 0);
	CHECK_INT(ra_db_load_commit(db), 0);
	CHECK(access(tmp_path("n.db"), F_OK) != 0);
	CHECK(count_entries(".n.db.ratrace-new-") > 0);
	CHECK_INT(ra_db_close(db), 0);
	CHECK(access(tmp_path("n.db"), F_OK) == 0);
	CHECK_INT(count_entries(".n.db.ratrace-new-"), 0);

	/* aborted, and never loaded: no file, no temporary */
	db = ra_db_open_for_load(tmp_path("m.db"));
	CHECK_INT(ra_db_load_begin(db), 0);
	ra_db_load_abort(db);
	CHECK_INT(ra_db_close(db), 0);
	CHECK_INT(ra_db_close(ra_db_open_for_load(tmp_path("m.db"))), 0);
	CHECK(access(tmp_path("m.db"), F_OK) != 0);
	CHECK_INT(count_entries(".m.db"), 0);

	/* another process's file at the name stays; ours goes beside it, whole */
	db = ra_db_open_for_load(tmp_path("o.db"));
	CHECK_INT(ra_db_load_begin(db), 0);
	CHECK(ra_db_run_create(db, &info) > 0);
	CHECK_INT(ra_db_load_commit(db), 0);
	f = fopen(tmp_path("o.db"), "w");
	CHECK(f && fputs("theirs", f) >= 0);
	if (f)
		fclose(f);
	CHECK_INT(ra_db_close(db), -1);
	snprintf(aside, sizeof(aside), "o.%d.db", (int)getpid());
	CHECK(strstr(ra_last_error(), "cannot create") && strstr(ra_last_error(), "another writer") &&
	      strstr(ra_last_error(), aside));
	CHECK_INT(count_entries(".o.db"), 0);
	f = fopen(tmp_path("o.db"), "r");
	CHECK(f && fgetc(f) == 't');
	if (f)
		fclose(f);
	db = ra_db_open(tmp_path(aside), RA_DB_READONLY);
	CHECK(db != NULL);
	if (db) {
		CHECK_INT(query_int(db, "SELECT COUNT(*) FROM runs"), 1);
		ra_db_close(db);
	}
	unlink(tmp_path(aside));

	/* the temporary of a process that ended goes; of a running one stays */
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	snprintf(stale, sizeof(stale), "%s/.p.db.ratrace-new-%d", dir, (int)gone);
	fclose(fopen(stale, "w"));
	snprintf(stale, sizeof(stale), "%s/.p.db.ratrace-new-%d-wal", dir, (int)gone);
	fclose(fopen(stale, "w"));
	snprintf(stale, sizeof(stale), "%s/.p.db.ratrace-new-%d", dir, (int)getppid());
	fclose(fopen(stale, "w"));
	ra_db_remove_stale(tmp_path("p.db"));
	CHECK_INT(count_entries(".p.db.ratrace-new-"), 1);
	unlink(stale);
}

/*
 * Copying the recorded runs of w.db (test_writer: run 1 complete, run 2 not)
 * into a database that holds a run: new ids and seqs, the tags, the
 * recording's tables; a source that is no ratrace database copies nothing.
 */
static void test_copy(void)
{
	struct ra_db *db = ra_db_open(tmp_path("copy.db"), RA_DB_CREATE);
	struct ra_run_info info = { .label = "here", .origin = "record", .execution = "host" };
	struct ra_run_end end = { .exit_status = 0, .trace_start_ns = -1, .trace_end_ns = -1 };
	struct ra_copy_tags tags = { .label = "kernel=6.1", .execution = "vm-tcg",
				     .boot_kernel = "linux-image-6.1.0-1-cloud-amd64 (6.1.1-1)" };
	int64_t *ids = NULL, run;
	struct ra_writer *w;
	struct ra_event ev;
	size_t n = 0;
	FILE *f;

	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_INT(ra_db_load_begin(db), 0);
	run = ra_db_run_create(db, &info);
	w = ra_writer_alloc(db, run);
	for (int i = 0; i < 3; i++) {
		ev = ev_at(RA_EV_PAGE_ADD, (uint64_t)i, 1, "");
		CHECK_INT(ra_writer_add(w, &ev), 0);
	}
	CHECK_INT(ra_writer_finish(w), 0);
	ra_writer_free(w);
	CHECK_INT(ra_db_run_finish(db, run, &end), 0);
	CHECK_INT(ra_db_load_commit(db), 0);

	CHECK_INT(ra_db_load_begin(db), 0);
	CHECK_INT(ra_db_copy_runs(db, tmp_path("w.db"), &tags, &ids, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(n ? ids[0] : -1, 2);
	free(ids);
	CHECK_INT(ra_db_load_commit(db), 0);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM runs"), 2);
	CHECK_INT(query_int(db, "SELECT seq_first || seq_last FROM runs WHERE run_id = 2"), 47);
	CHECK_INT(query_int(db, "SELECT MIN(seq) FROM ra_events WHERE run_id = 2"), 4);
	CHECK_INT(query_int(db, "SELECT MAX(seq) FROM blk_events WHERE run_id = 2"), 7);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM page_events WHERE run_id = 2"), 1);
	CHECK_INT(query_int(db, "SELECT label = 'kernel=6.1' AND execution = 'vm-tcg' AND"
			    " boot_kernel LIKE 'linux-image-6.1.0-1-%' AND complete FROM runs"
			    " WHERE run_id = 2"), 1);
	CHECK_INT(query_int(db, "SELECT execution = 'host' AND label = 'here' FROM runs"
			    " WHERE run_id = 1"), 1);
	CHECK_INT(query_int(db, "SELECT lost_events FROM v_runs WHERE run_id = 2"), 11);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM run_args WHERE run_id = 2"), 2);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM tasks WHERE run_id = 2"), 2);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM pragma_integrity_check WHERE"
			    " integrity_check != 'ok'"), 0);

	/* Not a ratrace database: an error, and the load aborted leaves nothing. */
	f = fopen(tmp_path("junk.db"), "w");
	CHECK(f != NULL);
	if (f) {
		fputs("no database", f);
		fclose(f);
	}
	CHECK_INT(ra_db_load_begin(db), 0);
	CHECK_INT(ra_db_copy_runs(db, tmp_path("junk.db"), &tags, &ids, &n), -1);
	CHECK(ids == NULL);
	ra_db_load_abort(db);
	CHECK_INT(query_int(db, "SELECT COUNT(*) FROM runs"), 2);
	CHECK_INT(ra_db_close(db), 0);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "create and reopen", test_create },
		{ "refuse newer and foreign files", test_refusals },
		{ "upgrade version 1", test_upgrade_v1 },
		{ "writer and views", test_writer },
		{ "aborted loads", test_abort },
		{ "readers make nothing beside the file", test_reader },
		{ "a new database is built beside its name", test_build_beside },
		{ "copy the recorded runs of another database", test_copy },
		{ NULL, NULL },
	};
	return test_run_in_tmpdir("test_db", cases, dir);
}
