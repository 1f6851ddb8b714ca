// SPDX-License-Identifier: LGPL-2.1
// test: budget=6
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
	atrig(10, 5, 1, 1, 4, 3);
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
	access_ev(RA_EV_FAULT, 10, 5, 9, 9);	/* a file fault maps page 9 only */
	access_ev(RA_EV_MAP_PAGES, 10, 5, 12, 13);	/* fault-around maps folio 12..15: no access seen */
	access_ev(RA_EV_MAP_PAGES, 10, 5, 40, 50);	/* nothing cached there */
	access_ev(RA_EV_GET_PAGES, 11, 5, 13, 13);	/* a read of a mapped page is an access */
	CHECK_STR(result("SELECT pattern, mmap, demand_start, demand_pages, ra_pages_added, used,"
			 " mapped, pending FROM windows"),
		  "around|1|20|1|31|2|3|26");
}

/*
 * mmap under MADV_SEQUENTIAL: the fault's sync trigger asks for ra_pages
 * (the kernel's size), but the program demanded the faulting page only.
 */
static void test_fault_sync_demand(void)
{
	begin("seqfault");
	access_ev(RA_EV_FAULT, 10, 5, 0, 0);
	trig(1, 10, 5, 0, 32, 32);
	order(10, 5, 0, 32, 16);
	add(10, 5, 0, 32, 0);
	access_ev(RA_EV_FAULT, 10, 5, 64, 64);	/* a fault elsewhere, then its trigger */
	trig(1, 10, 5, 64, 32, 32);
	order(10, 5, 64, 32, 16);
	add(10, 5, 64, 32, 0);
	access_ev(RA_EV_MAP_PAGES, 10, 5, 64, 79);
	CHECK_STR(result("SELECT pattern, demand_start, demand_pages, ra_pages_added, mapped"
			 " FROM windows ORDER BY window_id"),
		  "initial|0|1|31|0;sync|64|1|31|15");
}

/*
 * A read() whose first batch ended at a folio still under I/O shows only its
 * tail: the kernel triggered async readahead at that folio for the pages up
 * to the read's end, waited for the folio (a completion), and emitted
 * mm_filemap_get_pages for the tail only.
 */
static void tail(int pid, uint64_t ino, uint64_t first, uint64_t last, int wait)
{
	atrig(pid, ino, first, last + 1 - first, 32, 32);
	if (wait)
		blk(RA_EV_RQ_COMPLETE, 0, 0, 8, "RA");
	access_ev(RA_EV_GET_PAGES, pid, ino, first, last);
}

/*
 * Task @pid reads file 6 (16 pages: in reads of 1, 7 and 2 pages when
 * @many_sizes, else of 2), then file 5 of 7 pages: 0..0, 1..2, and a read of
 * 3..5 that shows only its tail 4..5.
 */
static void small_file(int pid, bool many_sizes)
{
	begin(many_sizes ? "smallfile" : "smallfile1");
	trig(1, pid, 6, 0, 1, 32);
	order(pid, 6, 0, 16, 0);
	add(pid, 6, 0, 16, 0);
	if (many_sizes) {
		access_ev(RA_EV_GET_PAGES, pid, 6, 0, 0);
		access_ev(RA_EV_GET_PAGES, pid, 6, 1, 7);
		access_ev(RA_EV_GET_PAGES, pid, 6, 8, 9);
		access_ev(RA_EV_GET_PAGES, pid, 6, 10, 15);
	} else {
		for (uint64_t i = 0; i < 16; i += 2)
			access_ev(RA_EV_GET_PAGES, pid, 6, i, i + 1);
	}
	trig(1, pid, 5, 0, 1, 32);
	order(pid, 5, 0, 4, 3);
	add(pid, 5, 0, 4, 0);
	access_ev(RA_EV_GET_PAGES, pid, 5, 0, 0);
	atrig(pid, 5, 1, 2, 4, 3);
	order(pid, 5, 4, 8, 8);
	add(pid, 5, 4, 2, 1);
	access_ev(RA_EV_GET_PAGES, pid, 5, 1, 2);
	atrig(pid, 5, 4, 2, 8, 8);
	order(pid, 5, 12, 4, 4);
	blk(RA_EV_RQ_COMPLETE, 0, 0, 8, "RA");
	access_ev(RA_EV_GET_PAGES, pid, 5, 4, 5);
	access_ev(RA_EV_GET_PAGES, pid, 5, 5, 6);
}

static void test_partial_batches(void)
{
	begin("partial");
	trig(1, 10, 5, 0, 3, 32);
	order(10, 5, 0, 64, 32);
	add(10, 5, 0, 64, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 2);	/* demand 0..2; reads of 3 pages */
	access_ev(RA_EV_GET_PAGES, 10, 5, 2, 4);	/* 3, 4 */
	tail(10, 5, 6, 7, 1);				/* 5 copied without an event */
	access_ev(RA_EV_GET_PAGES, 10, 5, 10, 12);	/* no tail: 8, 9 were not read */
	access_ev(RA_EV_GET_PAGES, 10, 5, 14, 16);	/* a reader that skips: 13 */
	tail(10, 5, 19, 20, 1);				/* a read of 3 ending at 20: 18 */
	tail(10, 5, 30, 31, 0);				/* 2 pages: a tail even without a wait: 29 */
	tail(10, 5, 40, 41, 1);				/* 32..38: further than a read reaches */
	access_ev(RA_EV_GET_PAGES, 10, 5, 50, 52);	/* as wide as a read: not a tail */
	atrig(10, 5, 56, 3, 32, 32);			/* a read that starts at a mark */
	blk(RA_EV_RQ_COMPLETE, 0, 0, 8, "RA");
	access_ev(RA_EV_GET_PAGES, 10, 5, 56, 58);	/* filled no further back: 53..55 unread */
	CHECK_STR(result("SELECT ra_pages_added, used, used_inferred FROM windows"), "61|26|4");
	CHECK_STR(result("SELECT SUM(pending) FROM windows"), "35");
	/*
	 * A reader of many sizes (tar) that never left pages out: a tail is
	 * filled back to where its previous read ended; once it left pages out,
	 * no further than its narrowest read reaches. A tail no narrower than
	 * the narrowest read needs the wait.
	 */
	begin("partial3");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 64, 32);
	add(10, 5, 0, 64, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 0);	/* 1 page, then 7, then 2 */
	access_ev(RA_EV_GET_PAGES, 10, 5, 1, 7);
	access_ev(RA_EV_GET_PAGES, 10, 5, 8, 9);
	tail(10, 5, 14, 15, 1);				/* 10..13 copied (as wide as a read: the wait) */
	access_ev(RA_EV_GET_PAGES, 10, 5, 18, 19);	/* 16, 17 left out */
	tail(10, 5, 24, 25, 0);				/* no wait: a read of its own, 20..23 unread */
	tail(10, 5, 30, 31, 1);				/* a tail, but its narrowest read is 1 page */
	CHECK_STR(result("SELECT used, used_inferred FROM windows"), "21|4");
	/* a second descriptor of the same task: each reader's tails on its own */
	begin("partial2");
	trig(1, 10, 5, 0, 3, 32);
	order(10, 5, 0, 32, 16);
	add(10, 5, 0, 32, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 2);
	access_ev(RA_EV_GET_PAGES, 10, 5, 16, 18);
	tail(10, 5, 4, 5, 1);				/* 3 copied without an event */
	tail(10, 5, 20, 21, 1);				/* 19 too */
	CHECK_STR(result("SELECT used, used_inferred FROM windows"), "9|2");
	/*
	 * A window without a mark (it reaches the end of the file, as a small
	 * file's does): a tail leaves no async trigger and need not start at the
	 * window's start (its bios complete apart). Reads of 3 pages; a narrow
	 * tail after a completion (the read waited): 6, 7 copied, no further back
	 * than a read of 3 reaches. A wide range without the wait is a read of its
	 * own: 9 unread. A window whose mark lies outside the gap (async 4 of
	 * 16: the mark at 12) gives no trigger either: 6 copied. One whose mark
	 * lies in the gap (async 10: at 6) would have left one: 6 unread.
	 */
	begin("unmarked");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 16, 0);
	add(10, 5, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 2);
	access_ev(RA_EV_GET_PAGES, 10, 5, 3, 5);
	blk(RA_EV_RQ_COMPLETE, 0, 0, 8, "RA");
	access_ev(RA_EV_GET_PAGES, 10, 5, 8, 8);	/* 6, 7 copied without an event */
	access_ev(RA_EV_GET_PAGES, 10, 5, 10, 12);	/* 9 left out */
	trig(1, 10, 6, 0, 1, 32);
	order(10, 6, 0, 16, 4);
	add(10, 6, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 6, 0, 2);
	access_ev(RA_EV_GET_PAGES, 10, 6, 3, 5);
	blk(RA_EV_RQ_COMPLETE, 0, 0, 8, "RA");
	access_ev(RA_EV_GET_PAGES, 10, 6, 7, 7);	/* the mark at 12 not crossed: 6 copied */
	trig(1, 10, 7, 0, 1, 32);
	order(10, 7, 0, 16, 10);
	add(10, 7, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 7, 0, 2);
	access_ev(RA_EV_GET_PAGES, 10, 7, 3, 5);
	blk(RA_EV_RQ_COMPLETE, 0, 0, 8, "RA");
	access_ev(RA_EV_GET_PAGES, 10, 7, 7, 7);	/* the mark at 6, no trigger: 6 unread */
	CHECK_STR(result("SELECT ino, used, used_inferred FROM windows ORDER BY ino"),
		  "5|11|2;6|7|1;7|6|0");
	/*
	 * tar on a small file of 12 pages, its window of two order-2 folios
	 * (4..7, 8..11) whose I/O completed before the reads came: the read of
	 * 6..8 shows only 8..8, the batch before folio 8 ending on its boundary.
	 * The reads that crossed marks (1..3, 4..5) still bound the widest read:
	 * 6, 7 are copied. A reader of order-0 pages that left 13 out, then read
	 * 14 on its own, is no tail: every page starts a folio.
	 */
	begin("foliotail");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 3);
	add(10, 5, 0, 4, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 0);
	atrig(10, 5, 1, 3, 4, 3);
	order(10, 5, 4, 8, 8);
	add(10, 5, 4, 2, 2);
	access_ev(RA_EV_GET_PAGES, 10, 5, 1, 3);
	access_ev(RA_EV_GET_PAGES, 10, 5, 2, 3);
	blk(RA_EV_RQ_COMPLETE, 0, 0, 8, "RA");
	atrig(10, 5, 4, 2, 8, 8);
	access_ev(RA_EV_GET_PAGES, 10, 5, 4, 5);
	access_ev(RA_EV_GET_PAGES, 10, 5, 8, 8);	/* 6, 7 copied without an event */
	access_ev(RA_EV_GET_PAGES, 10, 5, 8, 10);
	access_ev(RA_EV_GET_PAGES, 10, 5, 11, 11);
	trig(1, 10, 6, 0, 1, 32);
	order(10, 6, 0, 16, 0);
	add(10, 6, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 6, 0, 2);
	access_ev(RA_EV_GET_PAGES, 10, 6, 3, 5);
	access_ev(RA_EV_GET_PAGES, 10, 6, 6, 12);
	access_ev(RA_EV_GET_PAGES, 10, 6, 14, 14);	/* 13 left out */
	CHECK_STR(result("SELECT ino, SUM(used), SUM(used_inferred) FROM windows GROUP BY ino"
			 " ORDER BY ino"), "5|11|2;6|13|0");
	/*
	 * A small file of 7 pages read in reads that happen to be of one width,
	 * 1 page then 2: the read of 3..5 waited for the folio at 4, under I/O,
	 * and showed only 4..5 after the trigger at its mark. Two whole reads of a
	 * file do not show that its reader reads one size: a task (tar) whose
	 * reads of another file had many sizes copied 3 too. A task whose reads
	 * were all of 2 pages read 4..5 alone and left 3: 3 stays unread. (7,
	 * past the end, is pending: the file's size is not known here.)
	 */
	small_file(10, true);
	CHECK_STR(result("SELECT start_page, used, used_inferred, pending FROM windows"
			 " WHERE ino = 5 ORDER BY window_id"), "0|3|1|0;4|3|0|1;12|0|0|0");
	small_file(10, false);
	CHECK_STR(result("SELECT start_page, used, used_inferred, pending FROM windows"
			 " WHERE ino = 5 ORDER BY window_id"), "0|2|0|1;4|3|0|1;12|0|0|0");
	/*
	 * A reader of 2 pages (dd bs=6144 reads 1.5 pages) on btrfs, which marks
	 * folios read in a worker after the block completion: the read of 7..8
	 * met 8 not yet marked and showed 8..8 with no completion between. Five
	 * reads showed the width: 8..8 is a tail, not a read of 1 page, and the
	 * tail 12..12 of the read of 11..12 (a trigger at 12, a completion)
	 * still has 11 copied.
	 */
	begin("btrfstail");
	trig(1, 10, 5, 0, 2, 32);
	order(10, 5, 0, 16, 4);
	add(10, 5, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 1);
	access_ev(RA_EV_GET_PAGES, 10, 5, 1, 2);
	access_ev(RA_EV_GET_PAGES, 10, 5, 3, 4);
	access_ev(RA_EV_GET_PAGES, 10, 5, 4, 5);
	access_ev(RA_EV_GET_PAGES, 10, 5, 6, 7);
	access_ev(RA_EV_GET_PAGES, 10, 5, 8, 8);
	access_ev(RA_EV_GET_PAGES, 10, 5, 9, 10);
	atrig(10, 5, 12, 1, 16, 4);
	order(10, 5, 16, 8, 8);
	blk(RA_EV_RQ_COMPLETE, 0, 0, 8, "RA");
	access_ev(RA_EV_GET_PAGES, 10, 5, 12, 12);
	CHECK_STR(result("SELECT start_page, used, used_inferred, pending FROM windows"
			 " ORDER BY window_id"), "0|11|1|3;16|0|0|0");
}

/* One task, two descriptors, two sequential streams: each window continues
 * its own stream; a window trimmed to a folio boundary is not a collapse. */
static void test_two_streams(void)
{
	begin("streams");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 3);
	trig(1, 10, 5, 1000, 1, 32);
	order(10, 5, 1000, 4, 3);
	atrig(10, 5, 1, 1, 4, 3);		/* each descriptor's own state */
	order(10, 5, 4, 8, 8);
	atrig(10, 5, 1001, 1, 4, 3);
	order(10, 5, 1004, 8, 8);
	atrig(10, 5, 4, 1, 8, 8);
	order(10, 5, 12, 4, 4);			/* trimmed: ends on a boundary of 16 */
	atrig(10, 5, 1004, 1, 8, 8);
	order(10, 5, 1012, 16, 16);
	trig(1, 10, 5, 500, 1, 32);		/* a seek on the first descriptor */
	order(10, 5, 500, 4, 3);
	CHECK_STR(result("SELECT stream_id, pattern FROM windows ORDER BY window_id"),
		  "1|initial;2|sync;1|subsequent;2|subsequent;1|subsequent;2|subsequent;3|sync");
	CHECK_STR(result("SELECT stream_id, windows, collapses, sizes FROM streams ORDER BY stream_id"),
		  "1|3|0|4 8 4;2|3|0|4 8 16;3|1|0|4");
	/* a smaller window that does not continue its stream is a collapse */
	begin("collapse");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 16, 8);
	trig(1, 10, 5, 8, 1, 32);		/* a miss inside it: the state was lost */
	order(10, 5, 8, 4, 3);
	CHECK_STR(result("SELECT windows, collapses, sizes FROM streams"), "2|1|16 4");
	/*
	 * One descriptor reading two places in turn: the async trigger carries the
	 * other place's state, so the kernel rebuilt it from the page cache
	 * (context), though the window starts where its stream ended; its size
	 * fell back, a collapse.
	 */
	begin("onefd");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 32, 32);
	trig(1, 10, 5, 5000, 1, 32);
	order(10, 5, 5000, 16, 16);
	atrig(10, 5, 0, 1, 16, 16);		/* page 0's mark, the state of 5000 */
	order(10, 5, 32, 4, 4);
	CHECK_STR(result("SELECT group_concat(stream_id || ':' || pattern, ' ') FROM windows"),
		  "1:initial 2:sync 1:context");
	CHECK_STR(result("SELECT windows, collapses, sizes FROM streams WHERE stream_id = 1"),
		  "2|1|32 4");
}

/* A random reader is one stream, however many windows it opens. */
static void test_random_stream(void)
{
	begin("random");
	for (int i = 1; i <= 5; i++) {
		trig(1, 10, 5, (uint64_t)i * 100, 1, 32);
		unbounded(10, 5, (uint64_t)i * 100, 1);
	}
	CHECK_STR(result("SELECT COUNT(*), MIN(pattern), MAX(pattern) FROM windows"),
		  "5|random|random");
	CHECK_STR(result("SELECT windows, collapses, sizes FROM streams"), "5|0|1x5");
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
	/* 8..15 were evicted unused and the window read them in again: thrashed,
	 * the device read them twice, whether or not 14 and 15 are read now */
	access_ev(RA_EV_GET_PAGES, 10, 5, 8, 13);
	CHECK_STR(result(FATES), "initial|16|15|3|8|8|4;sync|8|4|2|0|0|2");
}

/* A read's end counts the pages its last batch copied, not those of a later
 * read's window over the same pages: after the file is dropped, a read of page
 * 0 opens a window of 4 whose pages 1..3 nobody read. */
static void test_later_read_not_this(void)
{
	begin("laterread");
	trig(1, 10, 5, 0, 16, 32);
	order(10, 5, 0, 16, 0);
	add(10, 5, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 15);	/* the whole file, one read */
	del(5, 0, 16);
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 0);
	add(10, 5, 0, 4, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 0);	/* the next read: page 0 */
	CHECK_STR(result("SELECT group_concat(used || '/' || pending, ' ') FROM windows"), "0/0 0/3");
}

/* A task that read a file, then truncates and rewrites it: its own writes are
 * not its window's pages. */
static void test_own_rewrite(void)
{
	begin("ownrewrite");
	trig(1, 10, 5, 0, 4, 32);
	order(10, 5, 0, 16, 8);
	add(10, 5, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 3);
	del(5, 0, 16);				/* O_TRUNC by the reader itself */
	add(10, 5, 0, 16, 0);			/* its writes */
	CHECK_STR(result("SELECT ra_pages_added, evicted_unused, thrashed FROM windows"), "12|12|0");
}

/* Pages evicted unused come back by a write (a truncation, then a rewrite):
 * nothing was read twice, nothing thrashed. */
static void test_rewrite_not_thrashed(void)
{
	begin("rewrite");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 16, 8);
	add(10, 5, 0, 16, 0);
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 3);
	del(5, 0, 16);				/* O_TRUNC: every cached page goes */
	add(11, 5, 0, 16, 0);			/* the writer's pages */
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 15);	/* the reader reads them: cached */
	CHECK_STR(result("SELECT SUM(evicted_unused), SUM(thrashed) FROM windows"), "12|0");
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

/*
 * The threads of a process share its descriptors, and their readahead state:
 * a thread that hits the mark of another's window continues its stream.
 */
static void two_readers(const char *name, bool threads, const char *want)
{
	begin(name);
	if (threads)
		thread_of(11, 10);
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 3);
	atrig(11, 5, 1, 1, 4, 3);
	order(11, 5, 4, 8, 8);
	CHECK_STR(result("SELECT stream_id, pattern FROM windows ORDER BY window_id"), want);
}

static void test_threads(void)
{
	two_readers("threads", true, "1|initial;1|subsequent");
	two_readers("processes", false, "1|initial;2|context");	/* a stream each */
}

/* Values no kernel emits are left out, and the pass's work stays bounded. */
static void test_damaged_values(void)
{
	begin("damaged");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 8, 4);
	add(10, 5, 0, 8, 0);
	add(10, 5, 1ULL << 36, 1, 40);		/* a folio of order 40 */
	access_ev(RA_EV_GET_PAGES, 10, 5, 0, 1ULL << 40);	/* a read of 4 PiB */
	access_ev(RA_EV_MAP_PAGES, 10, 5, 0, UINT64_MAX);
	access_ev(RA_EV_GET_PAGES, 10, 5, 1, 2);
	CHECK_INT(sqlite3_exec(ra_db_sqlite(db), "UPDATE runs SET page_size = 1 << 62", NULL, NULL,
			       NULL), SQLITE_OK);
	CHECK_STR(result("SELECT pages_added, used, mapped, pending FROM windows"), "8|2|0|5");
}

static void test_unavailable(void)
{
	struct ra_run_info info = { .origin = "record" };
	char path[128];

	snprintf(path, sizeof(path), "%s/old-kernel.db", dir);
	unlink(path);
	ra_writer_free(w);	/* the run before, queried */
	ra_db_close(db);
	db = ra_db_open(path, RA_DB_CREATE);
	ra_db_load_begin(db);
	run_id = ra_db_run_create(db, &info);
	ra_db_add_tracepoint(db, run_id, "readahead", "page_cache_ra_order", 0, 0);
	w = ra_writer_alloc(db, run_id);
	CHECK_STR(result("SELECT state, message FROM analyses WHERE pass = 'readahead'"),
		  "unavailable|readahead:page_cache_ra_order is not available on this kernel"
		  " (Linux 6.18+)");
}

/*
 * A random reader of three files, 300 windows of two pages (the demanded one
 * and one read ahead): the read-ahead page of every third window is read
 * later, both pages of every fifth are evicted, and every tenth window's
 * pages are read again by a window of their own. Pages read ahead: 330;
 * used 100; evicted unused: every fifth, less those read before (40); of
 * those, read again (thrashed): every tenth (20); pending: 330 - 100 - 40.
 */
/*
 * 330 windows of three files, read by a thread of process 9; @with_sizes:
 * the run has the sizes of two (and the reader is a process).
 */
static void many_windows(bool with_sizes)
{
	begin("many");
	if (!with_sizes)
		thread_of(10, 9);	/* a thread: told no process, followed runs are read again */
	if (with_sizes) {
		file_sized(5, 40000 * 4096LL);
		file_sized(6, 30000 * 4096LL - 100);
	}
	for (uint64_t i = 0; i < 300; i++) {
		trig(1, 10, 5 + i % 3, 100 * i + 50, 1, 32);
		order(10, 5 + i % 3, 100 * i + 50, 2, 0);
		add(10, 5 + i % 3, 100 * i + 50, 2, 0);
		access_ev(RA_EV_GET_PAGES, 10, 5 + i % 3, 100 * i + 50, 100 * i + 50);
	}
	for (uint64_t i = 0; i < 300; i += 3)
		access_ev(RA_EV_GET_PAGES, 10, 5 + i % 3, 100 * i + 51, 100 * i + 51);
	for (uint64_t i = 0; i < 300; i += 5)
		del(5 + i % 3, 100 * i + 50, 2);
	for (uint64_t i = 0; i < 300; i += 10) {
		trig(1, 10, 5 + i % 3, 100 * i + 50, 1, 32);
		order(10, 5 + i % 3, 100 * i + 50, 2, 0);
		add(10, 5 + i % 3, 100 * i + 50, 2, 0);
	}
	CHECK_STR(result("SELECT COUNT(*), SUM(pages_added), SUM(ra_pages_added), SUM(used),"
			 " SUM(evicted_unused), SUM(thrashed), SUM(pending),"
			 " COUNT(DISTINCT window_id), MIN(window_id), MAX(window_id) FROM windows"),
		  "330|660|330|100|40|20|190|330|1|330");
	CHECK_STR(result("SELECT window_id, start_page, used, evicted_unused, thrashed FROM windows"
			 " WHERE window_id IN (1, 2, 4, 11, 301, 330) ORDER BY window_id"),
		  "1|50|1|0|0;2|150|0|0|0;4|350|1|0|0;11|1050|0|1|1;301|50|0|0|0;330|29050|0|0|0");
	/* a file's size where the run has it, else one past its highest page seen */
	CHECK_STR(result("SELECT ino, MIN(eof_page), MAX(eof_page) FROM windows GROUP BY ino"),
		  with_sizes ? "5|40000|40000;6|30000|30000;7|29952|29952" :
			  "5|29752|29752;6|29852|29852;7|29952|29952");
}

static void test_many_windows(void)
{
	many_windows(false);
}

/*
 * Followed with five windows in memory: a window at its stream's largest
 * size (8 pages) leaves memory before it adds pages, its row written with
 * none, and adds them after, its row written again. It is a steady window:
 * two of 8 pages against two of 4 of another stream, the larger on a tie.
 * The model's inputs fed from the rows count it from its second row.
 */
static void test_steady_rewritten(void)
{
	int fed = model_fed;

	window_slots = 5;
	live_mode = 1;
	begin("steadyagain");
	file_sized(5, 1000 * 4096LL);
	file_sized(6, 1000 * 4096LL);
	file_sized(7, 100000 * 4096LL);
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 8, 8);
	add(10, 5, 0, 8, 0);
	trig(0, 10, 5, 0, 1, 32);
	order(10, 5, 8, 8, 8);
	for (uint64_t j = 0; j < 8; j++) {	/* windows of no pages push it out */
		trig(1, 30, 7, 1000 * j, 1, 32);
		order(30, 7, 1000 * j, 1, 0);
	}
	add(10, 5, 8, 8, 0);
	trig(1, 20, 6, 0, 1, 32);
	order(20, 6, 0, 4, 4);
	add(20, 6, 0, 4, 0);
	trig(0, 20, 6, 0, 1, 32);
	order(20, 6, 4, 4, 4);
	add(20, 6, 4, 4, 0);
	CHECK_STR(result("SELECT group_concat(size_pages || ':' || pages_added, ',') FROM"
			 " (SELECT * FROM windows WHERE ino IN (5, 6) ORDER BY window_id)"),
		  "8:8,8:8,4:4,4:4");
	CHECK_STR(result("SELECT window_bytes FROM model_facts"), "32768.0");
	CHECK(windows_early > 0);
	CHECK_INT(model_fed - fed, 1);
	live_mode = 0;
	window_slots = 0;
}

/*
 * Followed, told a file size the run does not have, with five windows in
 * memory: the rows written as the windows left memory have the size told
 * (one page), mended at the end. The model's inputs fed from them would
 * count the pages the windows covered inside the file with it: the model
 * pass reads them from the mended rows instead. Each window adds half its
 * pages, so that the cached share tells.
 */
static void test_mended_inputs(void)
{
	int followed = live_followed, scanned = model_scanned;

	window_slots = 5;
	live_mode = 2;
	begin("mended");
	file_sized(5, 40000 * 4096LL);
	for (uint64_t i = 0; i < 30; i++) {
		trig(1, 10, 5, 100 * i + 50, 1, 32);
		order(10, 5, 100 * i + 50, 4, 0);
		add(10, 5, 100 * i + 50, 2, 0);
	}
	CHECK_STR(result("SELECT COUNT(*), MIN(eof_page), SUM(pages_added) FROM windows"),
		  "30|40000|60");
	CHECK_STR(result("SELECT cached_share FROM model_facts"), "0.5");
	CHECK_INT(live_followed - followed, 1);
	CHECK_INT(model_scanned - scanned, 1);
	live_mode = 0;
	window_slots = 0;
}

static const struct test_case *all_cases;
static void test_followed(void);
static void test_followed_wrong(void);
static void test_windows_kept(void);
static void test_records_kept(void);

/* Every case again, the pass following the events as they are stored. */
static void run_followed(int mode)
{
	live_mode = mode;
	live_runs = live_followed = live_again_size = live_again_tgid = live_again_other = 0;
	for (const struct test_case *c = all_cases; c->fn; c++)
		if (c->fn != test_followed && c->fn != test_followed_wrong &&
		    c->fn != test_windows_kept && c->fn != test_steady_rewritten &&
		    c->fn != test_mended_inputs && c->fn != test_records_kept)
			c->fn();
	live_mode = 0;
}

/* Told what the run will say: every run's rows come from the events followed. */
static void test_followed(void)
{
	model_fed = model_scanned = 0;
	run_followed(1);
	CHECK(live_runs > 10);
	CHECK_INT(live_followed, live_runs);
	CHECK_INT(live_again_size + live_again_tgid + live_again_other, 0);
	/* the model's inputs as the rows were written: the same (same_model_inputs()) */
	printf("test_readahead: the model's inputs fed in %d runs, read from the rows in %d\n",
	       model_fed, model_scanned);
	CHECK(model_fed > 10);
	CHECK_INT(model_fed, live_followed);
}

/*
 * Told a size and a process the run does not say: those runs' events are
 * read again (and the rows, checked by each case, are the same).
 */
static void test_followed_wrong(void)
{
	run_followed(2);
	CHECK(live_again_size > 0);
	CHECK(live_again_tgid > 0);
	CHECK_INT(live_again_other, 0);
	CHECK_INT(live_followed + live_again_size + live_again_tgid, live_runs);
}

/*
 * The random reader again with five windows in memory, the others kept in
 * the pass's temporary file and read back when an event needs them: the
 * same rows, after the load and followed as stored.
 */
static void test_windows_kept(void)
{
	window_slots = 5;
	windows_kept = 0;
	test_many_windows();
	CHECK_INT(windows_kept, 1);
	live_mode = 1;
	test_many_windows();
	live_mode = 0;
	CHECK_INT(windows_kept, 2);
	/*
	 * Files of known sizes: the windows' rows are written as they leave
	 * memory (again where they change after), from the run's sizes after the
	 * load and from the recorder's answers when followed; told a size the
	 * run does not have, the rows written with it are mended at the end.
	 */
	for (int mode = 0; mode <= 2; mode++) {
		live_mode = mode;
		windows_early = 0;
		many_windows(true);
		/* two files of three have sizes; told one of each, all three */
		CHECK(windows_early >= (mode == 2 ? 300 : 200));
	}
	/*
	 * Followed with five windows in memory, then read again (told a process
	 * the run does not have): the reading keeps its windows in a table of
	 * its own, while the events are read.
	 */
	live_mode = 2;
	live_again_tgid = 0;
	test_many_windows();
	CHECK(live_again_tgid > 0);
	live_mode = 0;
	CHECK_INT(windows_kept, 6);
	window_slots = 0;
	test_many_windows();
	CHECK_INT(windows_kept, 6);	/* 330 windows fit the default */
}

static void order_dev(uint32_t dev, uint64_t ino, uint32_t size)
{
	struct ra_event ev = { .ra = { .dev = dev, .ino = ino, .size = size, .ra_pages = 32 } };

	put(&ev, RA_EV_RA_ORDER, 10);
}

/*
 * Files whose keys meet: A (0, 2^32 + 0x1000) and B (1, 0) have the same
 * first key, so B goes on to the next; C's first key is that next one, and
 * the high half of its inode number is B's. Each file keeps its own windows,
 * asked again in another order.
 */
static void test_file_keys(void)
{
	static const struct {
		uint32_t dev;
		uint64_t ino;
	} f[] = { { 0, (1ULL << 32) | 0x1000 }, { 1, 0 }, { 0x9e3779ba, 0x7f4a7c17 } };

	begin("filekeys");
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3; i++) {
			int k = round ? 2 - i : i;

			order_dev(f[k].dev, f[k].ino, (uint32_t)(k + 1));
		}
	CHECK_STR(result("SELECT ino, COUNT(*), MIN(size_pages), MAX(size_pages) FROM windows"
			 " GROUP BY dev, ino ORDER BY ino"),
		  "0|2|2|2;2135587863|2|3|3;4294971392|2|1|1");
	CHECK_STR(result("SELECT COUNT(*) FROM streams"), "3");
}

/*
 * A thread's read that may be a tail asks for its process's record of the
 * file, made then: the set of records grows under the thread's own, which
 * must stay where it is (the sanitizer's build would see it freed). 63
 * records first, so that the process's is the 65th.
 */
static void test_record_stays(void)
{
	begin("stays");
	thread_of(101, 100);
	for (uint64_t i = 0; i < 63; i++)
		access_ev(RA_EV_GET_PAGES, 1, 1000 + i, 0, 0);
	access_ev(RA_EV_GET_PAGES, 101, 5, 0, 3);
	access_ev(RA_EV_GET_PAGES, 101, 5, 10, 11);	/* narrower: a tail? */
	CHECK_STR(result("SELECT COUNT(*) FROM windows"), "0");	/* reads of cached pages */
}

/*
 * Round @r of a stream read at @at from round @r0: its initial window of 16
 * pages (8 ahead) first, the async one at its mark two rounds later.
 */
static void stream_round(int pid, uint64_t ino, uint64_t at, uint64_t r, uint64_t r0)
{
	if (r == r0) {
		trig(1, pid, ino, at, 4, 32);
		order(pid, ino, at, 16, 8);
		add(pid, ino, at, 16, 0);
	} else if (r == r0 + 2) {
		atrig(pid, ino, at, 4, 16, 8);
		order(pid, ino, at + 8, 16, 16);
		add(pid, ino, at + 8, 16, 0);
	}
}

/*
 * Three tasks each read 40 files at once, a read of 4 pages of each file in
 * turn, through an initial window of 16 pages (8 ahead) and an async one at
 * its mark, and from the second round on the same at page 500 (a second
 * descriptor, a second stream); task 22 is a thread of process 21, so that
 * the two share their streams. Every page is read; the first read's 4 pages
 * of each stream are its demand, not read ahead. Task 23 reads ahead in a
 * file of its own alone, windows of 4 and 8 pages in turn: one stream,
 * whose sizes are longer than its record holds; 40 more tasks read 12 pages
 * of a file each, in three reads, the last after an async trigger whose
 * window opens after the other tasks' events. A hash of every row of the pass's tables.
 */
static uint64_t files_at_once(int *rows)
{
	static const char *const sql[] = {
		"SELECT * FROM windows ORDER BY window_id",
		"SELECT * FROM streams ORDER BY stream_id",
	};
	uint64_t h = 0, next = 0;
	int n;

	begin("atonce");
	thread_of(22, 21);
	for (uint64_t r = 0; r < 8; r++)
		for (uint64_t f = 0; f < 40; f++)
			for (int pid = 20; pid < 23; pid++) {
				uint64_t ino = 100 + f, at = 4 * r + 1000 * (uint64_t)(pid - 20);

				stream_round(pid, ino, at, r, 0);
				access_ev(RA_EV_GET_PAGES, pid, ino, at, at + 3);
				at += 500 - 4;	/* the second descriptor, a read behind */
				stream_round(pid, ino, at, r, 1);
				if (r > 0)
					access_ev(RA_EV_GET_PAGES, pid, ino, at, at + 3);
				if (pid == 20 && r < 3) {	/* 40 tasks of one file each */
					int one = 40 + (int)f;

					if (r == 0) {
						trig(1, one, 400 + f, 0, 4, 32);
						order(one, 400 + f, 0, 16, 8);
						add(one, 400 + f, 0, 16, 0);
					} else if (r == 2) {	/* the trigger of round 1's end */
						order(one, 400 + f, 16, 16, 16);
						add(one, 400 + f, 16, 16, 0);
					}
					access_ev(RA_EV_GET_PAGES, one, 400 + f, 4 * r, 4 * r + 3);
					if (r == 1)
						atrig(one, 400 + f, 8, 4, 16, 8);
				}
				if (pid == 22) {	/* a stream of many sizes */
					order(23, 99, next, 4 << (f % 2), 0);
					add(23, 99, next, 4 << (f % 2), 0);
					next += 4 << (f % 2);
				}
			}
	CHECK_STR(result("SELECT COUNT(*), SUM(pages_added), SUM(used) FROM windows"),
		  "880|10880|6560");
	CHECK_STR(result("SELECT COUNT(*) FROM windows WHERE ino >= 400 AND trigger = 'async'"
			 " AND pattern = 'subsequent'"), "40");
	CHECK_STR(result("SELECT windows, length(sizes) > 400, substr(sizes, 1, 9) FROM streams"
			 " WHERE ino = 99"), "320|1|4 8 4 8 4");
	*rows = 0;
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		h = h * 31 + rows_hash(db, sql[i], &n);
		*rows += n;
	}
	return h;
}

/*
 * The same with five records of each kind in memory: the records of the
 * tasks on the files leave memory and come back, and the rows are the same.
 */
static void test_records_kept(void)
{
	int rows, rows_kept;
	uint64_t h = files_at_once(&rows), kept;

	window_slots = 5;
	kept = files_at_once(&rows_kept);
	live_mode = 1;
	CHECK(files_at_once(&rows_kept) == h);
	live_mode = 0;
	window_slots = 0;
	CHECK_INT(rows_kept, rows);
	CHECK(kept == h);
	CHECK(rows > 240);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "initial and subsequent, demand page", test_initial_subsequent },
		{ "random, oversize, sync, context", test_demand_and_patterns },
		{ "fallback window and forced", test_fallback_and_forced },
		{ "read-around, faults and fault-around", test_around_and_folios },
		{ "fault-triggered sync window demands one page", test_fault_sync_demand },
		{ "read() batches without an event", test_partial_batches },
		{ "two streams of one task, trimmed windows", test_two_streams },
		{ "a random reader is one stream", test_random_stream },
		{ "evicted unused, thrashed, pending", test_evicted_and_thrashed },
		{ "a rewrite after a truncation is not thrashing", test_rewrite_not_thrashed },
		{ "a later read's window is not the earlier read's", test_later_read_not_this },
		{ "the reader's own rewrite", test_own_rewrite },
		{ "attribution of page adds", test_attribution },
		{ "threads share a stream, processes do not", test_threads },
		{ "damaged values", test_damaged_values },
		{ "kernel without readahead events", test_unavailable },
		{ "a random reader's 330 windows", test_many_windows },
		{ "followed while stored: the same rows", test_followed },
		{ "followed, told wrong: read again, the same rows", test_followed_wrong },
		{ "windows beyond those in memory: the same rows", test_windows_kept },
		{ "a steady window's row written again: the model's inputs",
		  test_steady_rewritten },
		{ "rows mended at the end: the model's inputs from them", test_mended_inputs },
		{ "tasks on files beyond those in memory: the same rows", test_records_kept },
		{ "files whose keys meet", test_file_keys },
		{ "a record stays where it is while its set grows", test_record_stays },
		{ NULL, NULL },
	};
	all_cases = cases;
	return test_run_in_tmpdir("test_readahead", cases, dir);
}
