// SPDX-License-Identifier: LGPL-2.1
/*
 * The readahead pass on small hand-built event sequences whose right answer
 * is known: each rule of docs/metrics.md at least once.
 */
#include "events.h"

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
	return test_run_in_tmpdir("test_readahead", cases, dir);
}
