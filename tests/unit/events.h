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

#include "db_local.h"
#include "ra_analyze.h"
#include "test.h"

#define DEV RA_MKDEV(7, 0)

static char dir[64];
static struct ra_db *db;
static struct ra_writer *w;
static int64_t run_id;
static uint64_t now;

static void close_last(void)
{
	ra_writer_free(w);
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
	ra_db_close(db);
	snprintf(path, sizeof(path), "%s/%s.db", dir, name);
	db = ra_db_open(path, RA_DB_CREATE);
	CHECK(db != NULL);
	ra_db_load_begin(db);
	run_id = ra_db_run_create(db, &info);
	for (int t = 1; t < RA_EV_MAX; t++)
		if (ra_event_name(t))
			ra_db_add_tracepoint(db, run_id, ra_event_system(t), ra_event_name(t), 1, 1);
	w = ra_writer_alloc(db, run_id);
	now = 1000;
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

/* Analyse the run (first call) and return the rows of @sql joined by ';', columns by '|'. */
static __attribute__((unused)) const char *result(const char *sql)
{
	static char out[4096];
	sqlite3_stmt *st = NULL;
	size_t len = 0;

	if (!db)
		return "";
	if (w) {	/* the first query of a run analyses it */
		CHECK_INT(ra_writer_finish(w), 0);
		ra_writer_free(w);
		w = NULL;
		CHECK_INT(ra_analyze_in_load(db, run_id, NULL), 0);
		CHECK_INT(ra_db_load_commit(db), 0);
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
