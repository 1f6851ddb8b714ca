// SPDX-License-Identifier: LGPL-2.1
/*
 * The readahead pass on small hand-built event sequences whose right answer
 * is known: each rule of docs/metrics.md at least once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ra_analyze.h"
#include "test.h"

#define DEV RA_MKDEV(7, 0)

static char dir[64];
static struct ra_db *db;
static struct ra_writer *w;
static int64_t run_id;
static uint64_t now;

static void begin(const char *name)
{
	struct ra_run_info info = { .source = "record", .page_size = 4096 };
	char path[128];

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

static void trig(int sync, int pid, uint64_t ino, uint64_t index, uint64_t req, uint32_t ra_pages)
{
	struct ra_event ev = { .ra = { .dev = DEV, .ino = ino, .index = index, .req_count = req,
				       .ra_pages = ra_pages } };

	put(&ev, sync ? RA_EV_SYNC_RA : RA_EV_ASYNC_RA, pid);
}

static void order(int pid, uint64_t ino, uint64_t start, uint32_t size, uint32_t async)
{
	struct ra_event ev = { .ra = { .dev = DEV, .ino = ino, .index = start, .size = size,
				       .async_size = async, .ra_pages = 32 } };

	put(&ev, RA_EV_RA_ORDER, pid);
}

static void unbounded(int pid, uint64_t ino, uint64_t start, uint32_t n)
{
	struct ra_event ev = { .ra = { .dev = DEV, .ino = ino, .index = start, .size = n } };

	put(&ev, RA_EV_RA_UNBOUNDED, pid);
}

/* @n folios of order @ord from @index */
static void add(int pid, uint64_t ino, uint64_t index, int n, uint32_t ord)
{
	for (int i = 0; i < n; i++) {
		struct ra_event ev = { .has_mask = RA_HAS_ORDER,
				       .page = { .dev = DEV, .ino = ino,
						 .index = index + ((uint64_t)i << ord), .order = ord } };

		put(&ev, RA_EV_PAGE_ADD, pid);
	}
}

static void del(uint64_t ino, uint64_t index, int n)
{
	for (int i = 0; i < n; i++) {
		struct ra_event ev = { .has_mask = RA_HAS_ORDER,
				       .page = { .dev = DEV, .ino = ino, .index = index + i } };

		put(&ev, RA_EV_PAGE_DELETE, 0);
	}
}

static void access_ev(int type, int pid, uint64_t ino, uint64_t first, uint64_t last)
{
	struct ra_event ev = { .has_mask = type == RA_EV_FAULT ? 0 : RA_HAS_LAST_INDEX,
			       .page = { .dev = DEV, .ino = ino, .index = first,
					 .last_index = last } };

	put(&ev, type, pid);
}

/* Analyse and return the rows of @sql joined by ';', columns by '|'. */
static const char *result(const char *sql)
{
	static char out[4096];
	sqlite3_stmt *st = NULL;
	size_t len = 0;

	CHECK_INT(ra_writer_finish(w), 0);
	ra_writer_free(w);
	w = NULL;
	CHECK_INT(ra_analyze_in_load(db, run_id, NULL), 0);
	CHECK_INT(ra_db_load_commit(db), 0);
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
	ra_db_close(db);
	db = NULL;
	return out;
}

#define FATES "SELECT pattern, pages_added, ra_pages_added, used, evicted_unused, thrashed," \
	      " pending FROM windows ORDER BY window_id"

static void test_initial_subsequent(void)
{
	begin("seq");
	trig(1, 10, 5, 0, 1, 32);		/* read of page 0 misses */
	order(10, 5, 0, 4, 3);
	add(10, 5, 0, 4, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 1, 1);	/* hits the PG_readahead mark */
	trig(0, 10, 5, 1, 1, 32);
	order(10, 5, 4, 8, 8);
	add(10, 5, 4, 8, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 2, 11);
	/* page 0 was demanded: 3 readahead pages in the first window */
	CHECK_STR(result(FATES), "initial|4|3|3|0|0|0;subsequent|8|8|8|0|0|0");
}

static void test_demand_and_patterns(void)
{
	begin("patterns");
	trig(1, 10, 5, 100, 1, 32);		/* random: window no larger than the request */
	order(10, 5, 100, 1, 0);
	add(10, 5, 100, 1, 0);
	trig(1, 10, 5, 200, 64, 32);		/* oversize: request beyond ra_pages */
	order(10, 5, 200, 64, 0);
	add(10, 5, 200, 64, 0);
	trig(1, 10, 5, 400, 4, 32);		/* sync: a sequential miss after a seek */
	order(10, 5, 400, 16, 8);
	add(10, 5, 400, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 400, 415);
	trig(0, 10, 5, 408, 1, 32);		/* async, but not where the last one ended */
	order(10, 5, 500, 16, 16);
	CHECK_STR(result(FATES), "random|1|0|0|0|0|0;oversize|64|0|0|0|0|0;"
				 "sync|16|12|12|0|0|0;context|0|0|0|0|0|0");
}

static void test_fallback_and_forced(void)
{
	begin("fallback");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 16, 8);
	unbounded(10, 5, 0, 16);		/* ra_order fell back: the same window */
	add(10, 5, 0, 16, 0);
	unbounded(11, 6, 0, 64);		/* fadvise WILLNEED: forced */
	add(11, 6, 0, 64, 0);
	access_ev(RA_EV_GET_PAGES, 11, 6, 0, 31);
	CHECK_STR(result("SELECT pattern, fallback, demand_pages, ra_pages_added, used, pending"
			 " FROM windows ORDER BY window_id"),
		  "initial|1|1|15|0|15;forced|0|0|64|32|32");
}

static void test_around_and_folios(void)
{
	begin("around");
	access_ev(RA_EV_FAULT, 10, 5, 20, 20);	/* major fault on page 20 */
	order(10, 5, 4, 32, 8);			/* read-around, no trigger */
	add(10, 5, 4, 8, 2);			/* eight folios of 4 pages */
	access_ev(RA_EV_FAULT, 10, 5, 9, 9);	/* maps the whole folio 8..11 */
	access_ev(RA_EV_MAP_PAGES, 10, 5, 12, 13);	/* touches folio 12..15 */
	access_ev(RA_EV_MAP_PAGES, 10, 5, 40, 50);	/* nothing cached there */
	CHECK_STR(result("SELECT pattern, mmap, demand_start, demand_pages, ra_pages_added, used,"
			 " pending FROM windows"),
		  "around|1|20|1|31|8|23");
}

static void test_evicted_and_thrashed(void)
{
	begin("thrash");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 16, 8);
	add(10, 5, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 3);
	del(5, 8, 8);				/* reclaimed before use */
	del(5, 0, 2);				/* used pages: not counted */
	trig(1, 10, 5, 8, 4, 32);		/* the reader comes back: a sync miss */
	order(10, 5, 8, 8, 4);
	add(10, 5, 8, 8, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 8, 13);	/* 8..13 were evicted: thrashed */
	CHECK_STR(result(FATES), "initial|16|15|3|8|6|4;sync|8|4|2|0|0|2");
}

static void test_attribution(void)
{
	begin("attribution");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 8, 4);
	add(11, 5, 0, 8, 0);			/* another task's adds are not the window's */
	add(10, 6, 0, 8, 0);			/* nor adds of another file */
	add(10, 5, 8, 4, 0);			/* nor pages outside it */
	trig(1, 12, 7, 0, 1, 32);		/* a trigger of another file... */
	order(12, 8, 0, 8, 4);			/* ...does not make this one triggered */
	CHECK_STR(result("SELECT pattern, pages_added FROM windows ORDER BY window_id"),
		  "initial|0;around|0");
}

static void test_unavailable(void)
{
	struct ra_run_info info = { .source = "record" };
	char path[128];

	snprintf(path, sizeof(path), "%s/old-kernel.db", dir);
	db = ra_db_open(path, RA_DB_CREATE);
	ra_db_load_begin(db);
	run_id = ra_db_run_create(db, &info);
	ra_db_add_tracepoint(db, run_id, "readahead", "page_cache_ra_order", 0, 0);
	w = ra_writer_alloc(db, run_id);
	CHECK_STR(result("SELECT state, message FROM analyses WHERE pass = 'readahead'"),
		  "unavailable|readahead:page_cache_ra_order is not available on this kernel"
		  " (Linux 6.18+)");
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "initial and subsequent, demand page", test_initial_subsequent },
		{ "random, oversize, sync, context", test_demand_and_patterns },
		{ "fallback window and forced", test_fallback_and_forced },
		{ "read-around and large folios", test_around_and_folios },
		{ "evicted unused, thrashed, pending", test_evicted_and_thrashed },
		{ "attribution of page adds", test_attribution },
		{ "kernel without readahead events", test_unavailable },
		{ NULL, NULL },
	};
	char cmd[96];
	int ret;

	snprintf(dir, sizeof(dir), "/tmp/ratrace-unit.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	ret = test_run("test_readahead", cases);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		ret = 1;
	return ret;
}
