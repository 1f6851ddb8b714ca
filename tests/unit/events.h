/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Hand-built event sequences for the analysis tests: a run in a fresh
 * database, events added through the real writer, the passes run, and the
 * rows of a query returned as one string ("a|b;c|d").
 */
#ifndef RA_TEST_EVENTS_H
#define RA_TEST_EVENTS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze_local.h"
#include "db_local.h"
#include "ra_analyze.h"
#include "test.h"

#define DEV RA_MKDEV(7, 0)

static char dir[64];
static struct ra_db *db;
static struct ra_writer *w;
static int64_t run_id;
static uint64_t now;

/*
 * How the readahead pass reads a run: 0 after its events are stored; 1
 * following them as they are stored (ra_live), told what the run will say;
 * 2 following them, told a size and processes the run does not say, so that
 * it must read the stored events again.
 */
static int live_mode;
static struct ra_live *live;
static struct ra_block_live *bklive;	/* the block pass fed beside it */
static int block_followed, block_again;
/* block passes that timed windows as they completed (and rows they wrote as
 * the windows left memory), and that timed them at the end */
static int block_timed, block_rows_early, block_at_end;
static int live_runs, live_followed, live_again_size, live_again_tgid, live_again_other;
/* model passes that stored the run's inputs as fed, and that read them from its rows */
static int model_fed, model_scanned;
/* The windows the readahead pass holds in memory (0: its default), and the
 * runs where it kept some in its temporary table. */
static int window_slots, windows_kept, latencies_held;
static int windows_early;	/* rows the pass wrote as the windows left memory */
static int tgids[16][2];	/* the processes of threads, thread_of() */
static int ntgids;

/* The files of the run with a size (file_sized()), as its files rows say. */
static struct {
	uint64_t ino;
	int64_t bytes;
} sized[8];
static int nsized;

static int64_t live_size(uint32_t dev, uint64_t ino, void *arg)
{
	(void)arg;
	if (live_mode == 2)
		return 4096;
	for (int i = 0; i < nsized; i++)
		if (dev == DEV && sized[i].ino == ino)
			return sized[i].bytes;
	return -1;	/* a file the run has no size of */
}

static int live_tgid(int pid, void *arg)
{
	(void)arg;
	for (int i = 0; i < ntgids && live_mode == 1; i++)
		if (tgids[i][0] == pid)
			return tgids[i][1];
	return 0;
}

/* What the pass said: followed, or read again and why. */
static void live_said(const char *line, void *arg)
{
	(void)arg;
	const char *early = strstr(line, "kept in a temporary file, ");

	if (strstr(line, "kept in a temporary file"))
		windows_kept++;
	if (early)
		windows_early += atoi(early + strlen("kept in a temporary file, "));
	if (strncmp(line, "model: the run's inputs ", 24) == 0) {
		model_fed += strstr(line, "as its rows were written") != NULL;
		model_scanned += strstr(line, "from its rows") != NULL;
		return;
	}
	if (strncmp(line, "block: ", 7) == 0) {
		block_followed += strstr(line, "followed as the events were stored") != NULL;
		block_again += strstr(line, "again") != NULL;
		block_at_end += strstr(line, "computed at the end") != NULL;
		if ((early = strstr(line, " as they completed, "))) {
			block_timed++;
			block_rows_early += atoi(early + strlen(" as they completed, "));
		}
		return;
	}
	if (strstr(line, "followed as the events were stored"))
		live_followed++;
	else if (strstr(line, "again") && strstr(line, "size of file"))
		live_again_size++;
	else if (strstr(line, "again") && strstr(line, "process of task"))
		live_again_tgid++;
	else if (strstr(line, "again"))
		live_again_other++;
}

/* Task @pid is a thread of process @tgid (stored with the run's tasks). */
static __attribute__((unused)) void thread_of(int pid, int tgid)
{
	tgids[ntgids][0] = pid;
	tgids[ntgids++][1] = tgid;
	CHECK_INT(ra_writer_note_task(w, pid, "thread"), 0);	/* a task of the run */
}

/* The tap: the readahead pass, then the block pass. */
static int live_tap(const struct ra_event *ev, int64_t seq, void *arg)
{
	(void)arg;
	ra_live_event(ev, seq, live);
	if (bklive)
		ra_block_live_event(ev, seq, bklive);
	return 0;
}

static void close_last(void)
{
	ra_writer_free(w);
	ra_block_live_free(bklive);
	ra_live_free(live);
	ra_db_close(db);
}

static void begin(const char *name)
{
	static bool registered;

	struct ra_run_info info = { .origin = "record", .page_size = 4096 };
	char path[128];

	if (!registered)
		registered = atexit(close_last) == 0;
	ra_writer_free(w);	/* the run before, queried or not */
	w = NULL;
	ra_block_live_free(bklive);
	bklive = NULL;
	ra_live_free(live);
	live = NULL;
	ntgids = 0;
	nsized = 0;
	ra_db_close(db);
	snprintf(path, sizeof(path), "%s/%s.db", dir, name);
	unlink(path);	/* made again when the cases run again */
	db = ra_db_open(path, RA_DB_CREATE);
	CHECK(db != NULL);
	ra_db_load_begin(db);
	run_id = ra_db_run_create(db, &info);
	for (int t = 1; t < RA_EV_MAX; t++)
		if (ra_event_name(t))
			ra_db_add_tracepoint(db, run_id, ra_event_system(t), ra_event_name(t), 1, 1);
	w = ra_writer_alloc(db, run_id);
	now = 1000;
	if (live_mode) {
		struct ra_live_inputs in = { .page_size = 4096, .completions = true,
					     .tgid = live_tgid, .size = live_size,
					     .window_slots = window_slots,
					     .latencies_held = latencies_held };

		live = ra_live_begin(db, run_id, &in);
		CHECK(live != NULL);
		bklive = ra_block_live_begin(db, run_id, live, &in);
		CHECK(bklive != NULL);
		ra_writer_set_tap(w, live_tap, NULL);
		live_runs++;
	}
}

/* File @ino of DEV has @bytes, as the run's files row says (and a recorder answers). */
static __attribute__((unused)) void file_sized(uint64_t ino, int64_t bytes)
{
	CHECK_INT(ra_db_add_file(db, run_id, DEV, ino, "/sized", bytes), 0);
	if (nsized < 8) {
		sized[nsized].ino = ino;
		sized[nsized++].bytes = bytes;
	}
}

static void put(struct ra_event *ev, int type, int pid)
{
	ev->type = (uint16_t)type;
	ev->pid = pid;
	ev->ts_ns = now++;
	CHECK_INT(ra_writer_add(w, ev), 0);
}

static __attribute__((unused)) void trig(int sync, int pid, uint64_t ino, uint64_t index, uint64_t req, uint32_t ra_pages)
{
	struct ra_event ev = { .ra = { .dev = DEV, .ino = ino, .index = index, .req_count = req,
				       .ra_pages = ra_pages } };

	put(&ev, sync ? RA_EV_SYNC_RA : RA_EV_ASYNC_RA, pid);
}

/* an async trigger that carries the readahead state (size, async) of the window before */
static __attribute__((unused)) void atrig(int pid, uint64_t ino, uint64_t index, uint64_t req,
					  uint32_t size, uint32_t async)
{
	struct ra_event ev = { .ra = { .dev = DEV, .ino = ino, .index = index, .req_count = req,
				       .ra_pages = 32, .size = size, .async_size = async } };

	put(&ev, RA_EV_ASYNC_RA, pid);
}

static __attribute__((unused)) void order(int pid, uint64_t ino, uint64_t start, uint32_t size, uint32_t async)
{
	struct ra_event ev = { .ra = { .dev = DEV, .ino = ino, .index = start, .size = size,
				       .async_size = async, .ra_pages = 32 } };

	put(&ev, RA_EV_RA_ORDER, pid);
}

static __attribute__((unused)) void unbounded(int pid, uint64_t ino, uint64_t start, uint32_t n)
{
	struct ra_event ev = { .ra = { .dev = DEV, .ino = ino, .index = start, .size = n } };

	put(&ev, RA_EV_RA_UNBOUNDED, pid);
}

/* @n folios of order @ord from @index */
static __attribute__((unused)) void add(int pid, uint64_t ino, uint64_t index, int n, uint32_t ord)
{
	for (int i = 0; i < n; i++) {
		struct ra_event ev = { .has_mask = RA_HAS_ORDER,
				       .page = { .dev = DEV, .ino = ino,
						 .index = index + ((uint64_t)i << ord), .order = ord } };

		put(&ev, RA_EV_PAGE_ADD, pid);
	}
}

static __attribute__((unused)) void del(uint64_t ino, uint64_t index, int n)
{
	for (int i = 0; i < n; i++) {
		struct ra_event ev = { .has_mask = RA_HAS_ORDER,
				       .page = { .dev = DEV, .ino = ino, .index = index + i } };

		put(&ev, RA_EV_PAGE_DELETE, 0);
	}
}

static __attribute__((unused)) void access_ev(int type, int pid, uint64_t ino, uint64_t first, uint64_t last)
{
	struct ra_event ev = { .has_mask = type == RA_EV_FAULT ? 0 : RA_HAS_LAST_INDEX,
			       .page = { .dev = DEV, .ino = ino, .index = first,
					 .last_index = last } };

	put(&ev, type, pid);
}

/* How many rows @sql gives in @d, and a hash of their text. */
static uint64_t rows_hash(struct ra_db *d, const char *sql, int *rows)
{
	uint64_t h = 1469598103934665603ULL;
	sqlite3_stmt *st = NULL;

	*rows = 0;
	CHECK_INT(sqlite3_prepare_v2(ra_db_sqlite(d), sql, -1, &st, NULL), SQLITE_OK);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		(*rows)++;
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const unsigned char *t = sqlite3_column_text(st, c);

			for (const unsigned char *p = t ? t : (const unsigned char *)"NULL"; *p; p++)
				h = (h ^ *p) * 1099511628211ULL;
			h = (h ^ '|') * 1099511628211ULL;
		}
	}
	sqlite3_finalize(st);
	return h;
}

/*
 * The model's inputs a followed run stored, against those the model pass
 * reads from the rows the run's passes wrote (in a copy): the same.
 */
static void same_model_inputs(void)
{
	static const char *const sql[] = {
		"SELECT * FROM model_facts ORDER BY run_id, dev",
		"SELECT run_id, dev, timing, size_class, part, n, bytes, sum_ns, n_latency,"
		" sum_latency_ns, lo_ns, hi_ns, hex(ns) FROM model_samples"
		" ORDER BY run_id, dev, timing, size_class, part",
	};
	struct ra_db *copy;
	sqlite3 *to = NULL;
	sqlite3_backup *bk;
	char path[128];

	snprintf(path, sizeof(path), "%s/model-copy.db", dir);
	unlink(path);
	CHECK_INT(sqlite3_open(path, &to), SQLITE_OK);
	if (to && (bk = sqlite3_backup_init(to, "main", ra_db_sqlite(db), "main"))) {
		CHECK_INT(sqlite3_backup_step(bk, -1), SQLITE_DONE);
		sqlite3_backup_finish(bk);
	}
	sqlite3_close(to);
	copy = ra_db_open(path, 0);
	if (!copy)
		fprintf(stderr, "%s: %s\n", path, ra_last_error());
	CHECK(copy != NULL);
	if (!copy)
		return;
	CHECK_INT(sqlite3_exec(ra_db_sqlite(copy), "DELETE FROM model_facts;"
			       " DELETE FROM model_samples", NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(ra_db_load_begin(copy), 0);
	CHECK_INT(ra_model_inputs_store(copy, run_id), 0);
	CHECK_INT(ra_db_load_commit(copy), 0);
	for (size_t i = 0; i < sizeof(sql) / sizeof(*sql); i++) {
		int fed, read;
		uint64_t a = rows_hash(db, sql[i], &fed), b = rows_hash(copy, sql[i], &read);

		CHECK_INT(fed, read);
		CHECK(a == b);
	}
	ra_db_close(copy);
	unlink(path);
}

/* Analyse the run (first call) and return the rows of @sql joined by ';', columns by '|'. */
static __attribute__((unused)) const char *result(const char *sql)
{
	static char out[4096];
	sqlite3_stmt *st = NULL;
	size_t len = 0;

	if (!db)
		return "";
	if (w) {	/* the first query of a run analyses it */
		struct ra_analyze_opts o = { .verbose = 1, .notice = live_said, .live = live,
					     .block_live = bklive,
					     .window_slots = window_slots,
					     .latencies_held = latencies_held };

		CHECK_INT(ra_writer_finish(w), 0);
		ra_writer_free(w);
		w = NULL;
		for (int i = 0; i < ntgids; i++)
			CHECK_INT(ra_db_set_task_tgid(db, run_id, tgids[i][0], tgids[i][1]), 0);
		CHECK_INT(ra_analyze_in_load(db, run_id, &o), 0);
		ra_block_live_free(bklive);
		bklive = NULL;
		CHECK_INT(ra_db_load_commit(db), 0);
		if (live)
			same_model_inputs();
		ra_live_free(live);
		live = NULL;
	}
	out[0] = '\0';
	if (sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(ra_db_sqlite(db)));
		return "";
	}
	while (sqlite3_step(st) == SQLITE_ROW && len < sizeof(out) - 256) {
		if (len)
			out[len++] = ';';
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const unsigned char *t = sqlite3_column_text(st, c);

			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", c ? "|" : "",
						t ? (const char *)t : "NULL");
		}
	}
	sqlite3_finalize(st);
	return out;
}

static __attribute__((unused)) void blk(int type, int pid, uint64_t sector, uint32_t nr, const char *rwbs)
{
	struct ra_event ev = { .blk = { .dev = DEV, .sector = sector, .nr_sector = nr,
					.explicit_unplug = -1 } };

	snprintf(ev.blk.rwbs, sizeof(ev.blk.rwbs), "%s", rwbs);
	put(&ev, type, pid);
}

#endif
