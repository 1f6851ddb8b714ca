// SPDX-License-Identifier: LGPL-2.1
// test: budget=20
/*
 * The block pass on hand-built event sequences: merges, missing events,
 * requeues, requests carrying bios of two windows, stalls, plugs per device,
 * bios split into pieces.
 */
#include "analyze_local.h"
#include "events.h"

#define REQS "SELECT sector, nr_sector, bios, q_ts_ns IS NOT NULL, g_ts_ns IS NOT NULL," \
	     " i_ts_ns IS NOT NULL, d_ts_ns IS NOT NULL, windows FROM requests ORDER BY req_id"

static void test_merges(void)
{
	begin("merges");
	blk(RA_EV_BIO_QUEUE, 10, 100, 8, "RA");
	blk(RA_EV_GETRQ, 10, 100, 8, "RA");
	blk(RA_EV_BIO_QUEUE, 10, 108, 8, "RA");
	blk(RA_EV_BIO_BACKMERGE, 10, 108, 8, "RA");
	blk(RA_EV_BIO_QUEUE, 10, 92, 8, "RA");
	blk(RA_EV_BIO_FRONTMERGE, 10, 92, 8, "RA");
	blk(RA_EV_RQ_INSERT, 10, 92, 24, "RA");
	blk(RA_EV_RQ_ISSUE, 10, 92, 24, "RA");
	blk(RA_EV_RQ_COMPLETE, 10, 92, 24, "RA");
	CHECK_STR(result(REQS), "92|24|3|1|1|1|1|0");
}

static void test_missing_events(void)
{
	begin("missing");
	blk(RA_EV_RQ_COMPLETE, 0, 500, 8, "R");		/* began before the trace */
	blk(RA_EV_BIO_QUEUE, 10, 100, 8, "R");	/* blk-mq without insert */
	blk(RA_EV_GETRQ, 10, 100, 8, "R");
	blk(RA_EV_RQ_ISSUE, 10, 100, 8, "R");
	blk(RA_EV_RQ_COMPLETE, 10, 100, 8, "R");
	blk(RA_EV_RQ_ISSUE, 0, 300, 8, "R");		/* issued without a get-request */
	blk(RA_EV_RQ_COMPLETE, 0, 300, 8, "R");
	CHECK_STR(result(REQS), "100|8|1|1|1|0|1|0;300|8|0|0|0|0|1|0");
}

static void test_counts(void)
{
	begin("counts");
	blk(RA_EV_RQ_COMPLETE, 0, 500, 8, "R");
	blk(RA_EV_BIO_QUEUE, 10, 100, 16, "R");
	blk(RA_EV_SPLIT, 10, 100, 0, "R");
	blk(RA_EV_GETRQ, 10, 100, 16, "R");
	blk(RA_EV_RQ_ISSUE, 10, 100, 16, "R");
	blk(RA_EV_RQ_REQUEUE, 10, 100, 16, "R");
	blk(RA_EV_RQ_ISSUE, 10, 100, 16, "R");
	blk(RA_EV_RQ_COMPLETE, 10, 100, 16, "R");
	CHECK_STR(result("SELECT reads_completed, sectors_read, bios_queued, issues, requeues,"
			 " splits, unmatched_completions FROM device_io"),
		  "2|24|1|2|1|1|1");
	/*
	 * A partial completion (loop after a short read of its backing file):
	 * 8 of 24 sectors complete, the rest is requeued and issued again. The
	 * disk's stat counts one read of 24 sectors, and so does the trace's
	 * total; the request is stored whole.
	 */
	begin("partial");
	blk(RA_EV_BIO_QUEUE, 10, 200, 24, "RA");
	blk(RA_EV_GETRQ, 10, 200, 24, "RA");
	blk(RA_EV_RQ_ISSUE, 10, 200, 24, "RA");
	blk(RA_EV_RQ_COMPLETE, 10, 200, 8, "RA");
	blk(RA_EV_RQ_REQUEUE, 10, 208, 16, "RA");
	blk(RA_EV_RQ_ISSUE, 10, 208, 16, "RA");
	blk(RA_EV_RQ_COMPLETE, 10, 208, 16, "RA");
	CHECK_STR(result("SELECT reads_completed, sectors_read, requeues, unmatched_completions,"
			 " ra_requests, ra_bytes FROM device_io"), "1|24|1|0|1|12288");
	CHECK_STR(result("SELECT sector, nr_sector, bios FROM requests"), "200|24|1");
}

static void test_windows_and_stalls(void)
{
	begin("windows");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 3);
	blk(RA_EV_BIO_QUEUE, 10, 1000, 32, "RA");	/* window 1 */
	blk(RA_EV_GETRQ, 10, 1000, 32, "RA");
	trig(0, 10, 5, 1, 1, 32);
	order(10, 5, 4, 8, 8);
	blk(RA_EV_BIO_QUEUE, 10, 1032, 64, "RA");	/* window 2, merged: the "AB" case */
	blk(RA_EV_BIO_BACKMERGE, 10, 1032, 64, "RA");
	now += 5000000;				/* held in a plug for 5 ms */
	blk(RA_EV_RQ_ISSUE, 10, 1000, 96, "RA");
	blk(RA_EV_RQ_COMPLETE, 10, 1000, 96, "RA");
	CHECK_STR(result("SELECT r.windows, r.window_id, (SELECT COUNT(*) FROM stalls),"
			 " (SELECT group_concat(window_id || ':' || bios || ':' || bytes || ':' ||"
			 " shared_bios) FROM window_io) FROM requests r"),
		  "2|1|2|1:1:16384:1,2:1:32768:1");
}

/*
 * The device time of windows: the first served from its opening, the second
 * (opened while the first was in flight) from the first's completion, the
 * third (opened on an idle device) from its opening again.
 */
static void test_window_service(void)
{
	uint64_t o1, c1, c2, o3, c3;
	char want[128];

	begin("service");
	trig(1, 10, 5, 0, 1, 32);
	o1 = now;
	order(10, 5, 0, 4, 3);
	blk(RA_EV_BIO_QUEUE, 10, 1000, 32, "RA");
	blk(RA_EV_GETRQ, 10, 1000, 32, "RA");
	blk(RA_EV_RQ_ISSUE, 10, 1000, 32, "RA");
	now += 1000000;
	trig(0, 10, 5, 1, 1, 32);
	order(10, 5, 4, 8, 8);
	blk(RA_EV_BIO_QUEUE, 10, 1032, 64, "RA");
	blk(RA_EV_GETRQ, 10, 1032, 64, "RA");
	blk(RA_EV_RQ_ISSUE, 10, 1032, 64, "RA");
	now += 2000000;
	c1 = now;
	blk(RA_EV_RQ_COMPLETE, 10, 1000, 32, "RA");
	now += 3000000;
	c2 = now;
	blk(RA_EV_RQ_COMPLETE, 10, 1032, 64, "RA");
	now += 10000000;
	trig(0, 10, 5, 4, 1, 32);
	o3 = now;
	order(10, 5, 12, 8, 8);
	blk(RA_EV_BIO_QUEUE, 10, 1096, 64, "RA");
	blk(RA_EV_GETRQ, 10, 1096, 64, "RA");
	blk(RA_EV_RQ_ISSUE, 10, 1096, 64, "RA");
	now += 4000000;
	c3 = now;
	blk(RA_EV_RQ_COMPLETE, 10, 1096, 64, "RA");
	snprintf(want, sizeof(want), "1:%llu,2:%llu,3:%llu", (unsigned long long)(c1 - o1),
		 (unsigned long long)(c2 - c1), (unsigned long long)(c3 - o3));
	CHECK_STR(result("SELECT group_concat(window_id || ':' || service_ns) FROM"
			 " (SELECT * FROM window_io ORDER BY window_id)"), want);
}

/*
 * The elevator merges two requests, each with a window's bio (block_rq_merge
 * of the second): both windows complete with the first, whose row carries
 * both bios; the second is no more.
 */
static void test_rq_merge(void)
{
	begin("rq merge");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 0);
	blk(RA_EV_BIO_QUEUE, 10, 1000, 32, "RA");
	blk(RA_EV_GETRQ, 10, 1000, 32, "RA");
	blk(RA_EV_RQ_INSERT, 10, 1000, 32, "RA");
	trig(1, 11, 6, 0, 1, 32);
	order(11, 6, 0, 4, 0);
	blk(RA_EV_BIO_QUEUE, 11, 1032, 32, "RA");
	blk(RA_EV_GETRQ, 11, 1032, 32, "RA");
	blk(RA_EV_RQ_INSERT, 11, 1032, 32, "RA");
	blk(RA_EV_RQ_MERGE, 11, 1032, 32, "RA");
	blk(RA_EV_RQ_ISSUE, 10, 1000, 64, "RA");
	now += 1000000;
	blk(RA_EV_RQ_COMPLETE, 10, 1000, 64, "RA");
	CHECK_STR(result("SELECT window_id, bios, requests, bytes, shared_bios FROM window_io"
			 " ORDER BY window_id"), "1|1|1|16384|1;2|1|1|16384|1");
	CHECK_STR(result(REQS), "1000|64|2|1|1|1|1|2");
	CHECK_STR(result("SELECT back_merges, getrq, issues, reads_completed FROM device_io"),
		  "1|2|1|1");
}

/* Two windows completed by one request share its time by their bytes (1:2). */
static void test_shared_service(void)
{
	begin("shared");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 3);
	blk(RA_EV_BIO_QUEUE, 10, 1000, 32, "RA");
	blk(RA_EV_GETRQ, 10, 1000, 32, "RA");
	trig(0, 10, 5, 1, 1, 32);
	order(10, 5, 4, 8, 8);
	blk(RA_EV_BIO_QUEUE, 10, 1032, 64, "RA");
	blk(RA_EV_BIO_BACKMERGE, 10, 1032, 64, "RA");
	blk(RA_EV_RQ_ISSUE, 10, 1000, 96, "RA");
	now += 3000000;
	blk(RA_EV_RQ_COMPLETE, 10, 1000, 96, "RA");
	CHECK_STR(result("SELECT ROUND(b.service_ns * 1.0 / a.service_ns, 2),"
			 " ABS(a.service_ns + b.service_ns - (a.last_c_ts_ns - w.ts_ns)) <= 1"
			 " FROM window_io a, window_io b, windows w"
			 " WHERE a.window_id = 1 AND b.window_id = 2 AND w.window_id = 1"),
		  "2.0|1");
}

/* block_split of the queued bio at @sector: the rest from @new_sector is another piece */
static void split(int pid, uint64_t sector, uint64_t new_sector)
{
	struct ra_event ev = { .blk = { .dev = DEV, .sector = sector, .new_sector = new_sector,
					.explicit_unplug = -1 } };

	snprintf(ev.blk.rwbs, sizeof(ev.blk.rwbs), "RA");
	put(&ev, RA_EV_SPLIT, pid);
}

static void plug_ev(int type, int pid, int32_t nr_rq)
{
	struct ra_event ev = { .has_mask = type == RA_EV_UNPLUG ? RA_HAS_NR_RQ : 0,
			       .blk = { .nr_rq = nr_rq, .explicit_unplug = -1 } };

	put(&ev, type, pid);
}

/*
 * A 2 MiB readahead bio on a queue of 1280 KiB requests, as the kernel
 * traces it: Q, X (the first piece keeps 2560 sectors, the rest starts after
 * them), G, P (the plug starts with the first piece), G of the rest, U (the
 * plug is full: a request of 128 KiB or more is flushed before the next is
 * added), P, D, D, U; the second piece completes first. The bio is one bio
 * queued and plugged, with one Q2G, Q2D_RA and Q2C each; its Q2C and its
 * stall end at its last piece's completion and issue, which is what btt gives
 * for the pieces' completions together.
 */
static void test_split(void)
{
	uint64_t q, d2, c1;
	char want[256];

	begin("split");
	trig(1, 10, 5, 0, 1, 512);
	order(10, 5, 0, 512, 0);
	q = now;
	blk(RA_EV_BIO_QUEUE, 10, 1000, 4096, "RA");
	split(10, 1000, 3560);
	blk(RA_EV_GETRQ, 10, 1000, 2560, "RA");
	plug_ev(RA_EV_PLUG, 10, 0);
	blk(RA_EV_GETRQ, 10, 3560, 1536, "RA");
	plug_ev(RA_EV_UNPLUG, 10, 1);
	plug_ev(RA_EV_PLUG, 10, 0);
	blk(RA_EV_RQ_ISSUE, 10, 1000, 2560, "RA");
	now += 2000000;
	d2 = now;
	blk(RA_EV_RQ_ISSUE, 10, 3560, 1536, "RA");
	plug_ev(RA_EV_UNPLUG, 10, 1);
	now += 3000000;
	blk(RA_EV_RQ_COMPLETE, 0, 3560, 1536, "RA");
	now += 4000000;
	c1 = now;
	blk(RA_EV_RQ_COMPLETE, 0, 1000, 2560, "RA");
	CHECK_STR(result("SELECT bios_queued, splits, getrq, issues, reads_completed,"
			 " sectors_read FROM device_io"), "1|1|2|2|2|4096");
	CHECK_STR(result("SELECT plugs, unplugs, plugged_bios FROM plugs"), "2|2|1");
	snprintf(want, sizeof(want), "Q2C:1:%llu,Q2D_RA:1:%llu,Q2G:1", (unsigned long long)(c1 - q),
		 (unsigned long long)(d2 - q));
	CHECK_STR(result("SELECT group_concat(interval || ':' || n || CASE WHEN interval"
			 " IN ('Q2C', 'Q2D_RA') THEN ':' || max_ns ELSE '' END) FROM (SELECT *"
			 " FROM device_latency WHERE interval LIKE 'Q2%' ORDER BY interval)"),
		  want);
	CHECK_STR(result("SELECT bios, requests, bytes FROM window_io"), "1|2|2097152");
	CHECK_STR(result("SELECT group_concat(sector || '+' || nr_sector || ':' || bios) FROM"
			 " (SELECT * FROM requests ORDER BY sector)"), "1000+2560:1,3560+1536:1");
}

/* A bio split twice, pieces completing in order: its Q2C ends at the third. */
static void test_split_twice(void)
{
	uint64_t q, c3;
	char want[64];

	begin("split2");
	q = now;
	blk(RA_EV_BIO_QUEUE, 10, 0, 3000, "R");
	split(10, 0, 1000);
	blk(RA_EV_GETRQ, 10, 0, 1000, "R");
	split(10, 1000, 2000);
	blk(RA_EV_GETRQ, 10, 1000, 1000, "R");
	blk(RA_EV_GETRQ, 10, 2000, 1000, "R");
	for (uint64_t s = 0; s < 3000; s += 1000)
		blk(RA_EV_RQ_ISSUE, 10, s, 1000, "R");
	for (uint64_t s = 0; s < 3000; s += 1000) {
		now += 1000000;
		c3 = now;
		blk(RA_EV_RQ_COMPLETE, 0, s, 1000, "R");
	}
	snprintf(want, sizeof(want), "1|%llu|3|1", (unsigned long long)(c3 - q));
	CHECK_STR(result("SELECT q.n, q.max_ns, (SELECT n FROM device_latency WHERE interval ="
			 " 'D2C'), (SELECT n FROM device_latency WHERE interval = 'Q2G')"
			 " FROM device_latency q WHERE q.interval = 'Q2C'"), want);
	CHECK_STR(result("SELECT bios_queued, splits, getrq FROM device_io"), "1|2|3");
}

/*
 * One block event of a plug script: "PID:OP[:DEV[:N[:KIND]]]". OP is Q (bio
 * queued), G (get request), M (back merge), I (insert), D (issue), P (plug),
 * U (unplug); DEV x is 7:0, y 7:1, - none (ftrace's plug events); N the
 * sector, for U the request count; KIND for U: e explicit, t timer, - unknown.
 */
static void plug_step(const char *tok)
{
	static const struct { char op; int type; } ops[] = {
		{ 'Q', RA_EV_BIO_QUEUE }, { 'G', RA_EV_GETRQ }, { 'M', RA_EV_BIO_BACKMERGE },
		{ 'I', RA_EV_RQ_INSERT }, { 'D', RA_EV_RQ_ISSUE }, { 'P', RA_EV_PLUG },
		{ 'U', RA_EV_UNPLUG },
	};
	struct ra_event ev = { .blk = { .explicit_unplug = -1 } };
	char op = 0, dev = '-', kind = '-';
	int pid = 0, n = 0, type = 0;

	CHECK(sscanf(tok, "%d:%c:%c:%d:%c", &pid, &op, &dev, &n, &kind) >= 2);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == op)
			type = ops[i].type;
	CHECK(type != 0);
	ev.blk.dev = dev == 'x' ? RA_MKDEV(7, 0) : dev == 'y' ? RA_MKDEV(7, 1) : 0;
	if (type == RA_EV_UNPLUG) {
		ev.blk.nr_rq = n;
		ev.has_mask = RA_HAS_NR_RQ;
		ev.blk.explicit_unplug = kind == 'e' ? 1 : kind == 't' ? 0 : -1;
	} else if (type != RA_EV_PLUG) {
		ev.blk.sector = (uint64_t)n;
		ev.blk.nr_sector = 8;
		snprintf(ev.blk.rwbs, sizeof(ev.blk.rwbs), "RA");
	}
	put(&ev, type, pid);
}

/*
 * Plugs per device, each case worked out by hand. A plug holds the request
 * its task got just before it (the kernel fires block_plug when it adds the
 * first request) and the bios the task queues until its unplug; each unplug
 * of the flush goes to the device the task dispatches to next.
 * Rows: dev|plugs|unplugs|unplugs_explicit|unplugs_timer|unplug_requests|plugged_bios.
 */
static const struct {
	const char *name;
	const char *events;
	const char *want;
} plug_cases[] = {
	{ "one request", "10:Q:x:100 10:G:x:100 10:P 10:U:-:1 10:D:x:100",
	  "7:0|1|1|NULL|NULL|1|1" },
	{ "another task's plug without traced bios is not counted",
	  "10:Q:x:100 10:G:x:100 10:P 20:P 20:U:-:1 10:U:-:1 10:D:x:100",
	  "7:0|1|1|NULL|NULL|1|1" },
	{ "bios merged inside the plug",
	  "10:Q:x:100 10:G:x:100 10:P 10:Q:x:108 10:M:x:108 10:Q:x:116 10:M:x:116 10:U:-:1"
	  " 10:D:x:100", "7:0|1|1|NULL|NULL|1|3" },
	{ "a full plug flushed for the next request (Q G U P)",
	  "10:Q:x:100 10:G:x:100 10:P 10:Q:x:500 10:G:x:500 10:U:-:1 10:D:x:100 10:P 10:U:-:1"
	  " 10:D:x:500", "7:0|2|2|NULL|NULL|2|2" },
	{ "two devices: each unplug goes to the device it dispatches to",
	  "10:Q:x:100 10:G:x:100 10:P 10:Q:y:200 10:G:y:200 10:Q:x:300 10:G:x:300 10:U:-:1"
	  " 10:D:y:200 10:U:-:2 10:I:x:100 10:I:x:300",
	  "7:0|1|1|NULL|NULL|2|2;7:1|1|1|NULL|NULL|1|1" },
	{ "two devices, no dispatch seen: one unplug each, in order",
	  "10:Q:x:100 10:G:x:100 10:P 10:Q:y:200 10:G:y:200 10:U:-:3 10:U:-:4",
	  "7:0|1|1|NULL|NULL|3|1;7:1|1|1|NULL|NULL|4|1" },
	{ "the task's next bio ends the flush",
	  "10:Q:x:100 10:G:x:100 10:P 10:Q:y:200 10:G:y:200 10:U:-:2 10:Q:y:900 10:G:y:900"
	  " 10:D:y:900", "7:0|1|1|NULL|NULL|2|1;7:1|1|0|NULL|NULL|0|1" },
	{ "blktrace names the queue, explicit and timer unplugs (the timer's by kblockd)",
	  "10:Q:x:100 10:G:x:100 10:P:x 10:U:x:1:e 10:D:x:100 10:Q:x:200 10:G:x:200 10:P:x"
	  " 30:U:x:1:t 30:D:x:200", "7:0|2|2|1|1|2|2" },
	{ "an unplug of a plug begun before the trace", "10:U:-:3 10:Q:x:100 10:G:x:100 10:D:x:100",
	  "" },
	{ "a request issued without a plug seeds none",
	  "10:Q:x:100 10:G:x:100 10:D:x:100 10:P 10:U:-:1", "" },
	{ "a plug after a request of an untraced device",
	  "10:Q:x:100 10:G:x:100 10:P 10:U:-:1 10:D:x:100 10:P 10:U:-:1",
	  "7:0|1|1|NULL|NULL|1|1" },
	{ "a request sent by its plug's flush starts no later plug",
	  "10:Q:x:100 10:G:x:100 10:P 10:Q:x:500 10:G:x:500 10:U:-:2 10:P 10:U:-:1",
	  "7:0|1|1|NULL|NULL|2|2" },
	{ "the same with a flush of two queues",
	  "10:Q:x:100 10:G:x:100 10:P 10:Q:y:200 10:G:y:200 10:U:-:1 10:I:x:100 10:U:-:1"
	  " 10:I:y:200 10:P 10:U:-:1", "7:0|1|1|NULL|NULL|1|1;7:1|1|1|NULL|NULL|1|1" },
	{ "the trace ends inside a plug", "10:Q:x:100 10:G:x:100 10:P 10:Q:x:108 10:M:x:108",
	  "7:0|1|0|0|0|0|2" },
	{ "two tasks plugging at once",
	  "10:Q:x:100 10:G:x:100 11:Q:y:200 11:G:y:200 10:P 11:P 10:Q:x:108 10:M:x:108"
	  " 11:U:-:1 10:U:-:1 11:D:y:200 10:D:x:100",
	  "7:0|1|1|NULL|NULL|1|2;7:1|1|1|NULL|NULL|1|1" },
};

static void test_plugs(void)
{
	for (size_t i = 0; i < sizeof(plug_cases) / sizeof(plug_cases[0]); i++) {
		char buf[512], name[32], *save = NULL;
		const char *got;

		snprintf(name, sizeof(name), "plugs%zu", i);
		begin(name);
		snprintf(buf, sizeof(buf), "%s", plug_cases[i].events);
		for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			plug_step(tok);
		got = result("SELECT " RA_SQL_DEV("dev") ", plugs, unplugs,"
			     " unplugs_explicit, unplugs_timer, unplug_requests, plugged_bios"
			     " FROM plugs ORDER BY dev");
		if (strcmp(got, plug_cases[i].want) != 0)
			fprintf(stderr, "plugs: %s\n", plug_cases[i].name);
		CHECK_STR(got, plug_cases[i].want);
	}
}

/*
 * One request that merged many bios of one window: each bio counted once,
 * the window one request; and a completion 2^62 ns after its dispatch lands
 * in the histogram's last bucket, which ends at INT64_MAX.
 */
static void test_many_merges(void)
{
	enum { N = 20000 };

	begin("many merges");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, N, 0);
	blk(RA_EV_BIO_QUEUE, 10, 1000, 8, "RA");
	blk(RA_EV_GETRQ, 10, 1000, 8, "RA");
	for (int i = 1; i < N; i++) {
		blk(RA_EV_BIO_QUEUE, 10, 1000 + 8 * (uint64_t)i, 8, "RA");
		blk(RA_EV_BIO_BACKMERGE, 10, 1000 + 8 * (uint64_t)i, 8, "RA");
	}
	blk(RA_EV_RQ_ISSUE, 10, 1000, 8 * N, "RA");
	now += (uint64_t)1 << 62;
	blk(RA_EV_RQ_COMPLETE, 10, 1000, 8 * N, "RA");
	CHECK_STR(result("SELECT r.bios, r.windows, io.bios, io.requests, io.bytes FROM requests r"
			 " JOIN window_io io USING (run_id, window_id)"),
		  "20000|1|20000|1|81920000");
	CHECK_STR(result("SELECT lo_ns, hi_ns, n FROM latency_hist WHERE interval = 'D2C'"),
		  "4611686018427387904|9223372036854775807|1");
}

/*
 * Reads on 70 devices: the first 64 analysed, the other 6 left out with
 * their events counted in the pass's note; the run's analysis succeeds.
 */
static void test_many_devices(void)
{
	char want[256];

	begin("many devices");
	for (int d = 0; d < 70; d++) {
		struct ra_event ev = { .blk = { .dev = RA_MKDEV(8, (uint32_t)d), .sector = 100,
						.nr_sector = 8, .explicit_unplug = -1 } };

		snprintf(ev.blk.rwbs, sizeof(ev.blk.rwbs), "R");
		put(&ev, RA_EV_BIO_QUEUE, 10);
		put(&ev, RA_EV_GETRQ, 10);
		put(&ev, RA_EV_RQ_COMPLETE, 10);
	}
	CHECK_STR(result("SELECT COUNT(*), SUM(reads_completed) FROM device_io"), "64|64");
	snprintf(want, sizeof(want), "ok|18 events of 6 block devices past the first 64 were left"
		 " out (record fewer with -d)");
	CHECK_STR(result("SELECT state, message FROM analyses WHERE pass = 'block'"), want);
}

/*
 * A reader of 40 windows, each opened on an idle device and read by one
 * request: each window's service is its time from opening to completion,
 * its idle time the gap since the window before completed, and every tenth
 * window waited 1 ms before its bio was queued (held).
 */
static void test_windows_in_turn(void)
{
	uint64_t service = 0, idle = 0, held = 0, last_c = 0;
	char want[128];

	begin("in turn");
	for (uint64_t i = 0; i < 40; i++) {
		uint64_t o, q, c;

		now += 500000 + 1000 * i;
		trig(1, 10, 5, 100 * i + 50, 1, 32);
		o = now;
		order(10, 5, 100 * i + 50, 4, 0);
		if (i % 10 == 0)
			now += 1000000;
		q = now;
		blk(RA_EV_BIO_QUEUE, 10, 10000 + 64 * i, 32, "RA");
		blk(RA_EV_GETRQ, 10, 10000 + 64 * i, 32, "RA");
		blk(RA_EV_RQ_ISSUE, 10, 10000 + 64 * i, 32, "RA");
		now += 2000000 + 7000 * i;
		c = now;
		blk(RA_EV_RQ_COMPLETE, 10, 10000 + 64 * i, 32, "RA");
		service += c - o;
		idle += i ? o - last_c : 0;
		held += q - o;
		last_c = c;
	}
	snprintf(want, sizeof(want), "40|%llu|%llu|%llu|40", (unsigned long long)service,
		 (unsigned long long)idle, (unsigned long long)held);
	CHECK_STR(result("SELECT COUNT(*), SUM(service_ns), SUM(idle_ns), SUM(held_ns),"
			 " SUM(bios) FROM window_io"), want);
	CHECK_STR(result("SELECT window_id, bytes FROM window_io WHERE window_id IN (1, 40)"
			 " ORDER BY window_id"), "1|16384;40|16384");
	/* D2C of window i: 2 ms + 7 us * i, and the 1 ns each event takes; nearest
	 * ranks 20, 38 and 40 of 40 */
	CHECK_STR(result("SELECT n, min_ns, avg_ns, p50_ns, p95_ns, p99_ns, max_ns FROM"
			 " device_latency WHERE interval = 'D2C'"),
		  "40|2000001|2136501.0|2133001|2259001|2273001|2273001");
	CHECK_STR(result("SELECT lo_ns, hi_ns, n FROM latency_hist WHERE interval = 'D2C'"
			 " ORDER BY lo_ns"), "1048576|2097152|14;2097152|4194304|26");
}

/*
 * A task that reads one window and stops (its window stays its open one)
 * while another reads @n windows behind it in 10 us each (SETTLE_NS does
 * not pass), each bio from window @dm on queued twice (on dm-0, then
 * remapped to the disk) and completed once: the windows pressing behind
 * make them final, and the device time is still given as the windows
 * complete, the same as the end gives.
 */
static void pressed_run(uint64_t n, uint64_t dm)
{
	uint64_t service = 0, idle = 0, held = 0, last_c = 0;
	int timed = block_timed;
	char want[128];

	begin("pressed");
	for (uint64_t i = 0; i <= n; i++) {
		uint64_t o, q, c, sector = 10000 + 64 * i;

		now += 2000;
		trig(1, i ? 10 : 20, i ? 5 : 6, 100 * i, 1, 32);
		o = now;
		order(i ? 10 : 20, i ? 5 : 6, 100 * i, 4, 0);
		q = now;
		if (i >= dm) {
			struct ra_event ev = { .blk = { .dev = 253u << 20, .sector = sector,
							.nr_sector = 32, .explicit_unplug = -1 } };

			snprintf(ev.blk.rwbs, sizeof(ev.blk.rwbs), "RA");
			put(&ev, RA_EV_BIO_QUEUE, 10);
		}
		blk(RA_EV_BIO_QUEUE, i ? 10 : 20, sector, 32, "RA");
		blk(RA_EV_GETRQ, i ? 10 : 20, sector, 32, "RA");
		blk(RA_EV_RQ_ISSUE, i ? 10 : 20, sector, 32, "RA");
		now += 8000;
		c = now;
		blk(RA_EV_RQ_COMPLETE, i ? 10 : 20, sector, 32, "RA");
		service += c - o;
		idle += i ? o - last_c : 0;
		held += q - o;
		last_c = c;
	}
	snprintf(want, sizeof(want), "%llu|%llu|%llu|%llu|%llu", (unsigned long long)n + 1,
		 (unsigned long long)service, (unsigned long long)idle, (unsigned long long)held,
		 (unsigned long long)n + 1);
	CHECK_STR(result("SELECT COUNT(*), SUM(service_ns), SUM(idle_ns), SUM(held_ns),"
			 " SUM(bios) FROM window_io"), want);
	CHECK_INT(block_timed - timed, 1);
}

/* After the load and followed live; then every bio queued twice, 36,000 windows. */
static void test_pressed(void)
{
	pressed_run(9000, 100);
	live_mode = 1;
	pressed_run(9000, 100);
	live_mode = 0;
	pressed_run(36000, 1);
}

/* A read bio of task @pid at @sector: queued, given a request, issued, completed @ns later. */
static void read_bio(int pid, uint64_t sector, uint64_t ns)
{
	blk(RA_EV_BIO_QUEUE, pid, sector, 32, "RA");
	blk(RA_EV_GETRQ, pid, sector, 32, "RA");
	blk(RA_EV_RQ_ISSUE, pid, sector, 32, "RA");
	now += ns;
	blk(RA_EV_RQ_COMPLETE, pid, sector, 32, "RA");
}

/*
 * Run @name followed live with five windows' records in memory: task 20's
 * window of @size pages (@added of them added), its bio of four; 300 ms
 * later, forty windows of task 10 timed as they complete, their rows
 * written as they leave memory, task 20's window final by then.
 */
static void behind_forty(const char *name, uint32_t size, int added)
{
	window_slots = 5;
	live_mode = 1;
	begin(name);
	trig(1, 20, 6, 0, 1, 32);
	order(20, 6, 0, size, 0);
	add(20, 6, 0, added, 0);
	read_bio(20, 5000, 0);
	now += 300000000;
	for (uint64_t i = 0; i < 40; i++) {
		trig(1, 10, 5, 100 * i, 1, 32);
		order(10, 5, 100 * i, 4, 0);
		read_bio(10, 10000 + 64 * i, 8000);
	}
}

/*
 * Then a bio of task 20's window: every window's time is computed at the
 * end and its row written again; the model's inputs fed from the first
 * rows are dropped (result() compares them with those read from the rows).
 */
static void test_late_bio(void)
{
	int at_end = block_at_end, fed = model_fed;

	behind_forty("latebio", 4, 0);
	read_bio(20, 6000, 0);
	CHECK_STR(result("SELECT COUNT(*), SUM(bios), SUM(service_ns IS NOT NULL) FROM window_io"),
		  "41|42|41");
	CHECK_STR(result("SELECT bios || ':' || bytes FROM window_io WHERE window_id = 1"),
		  "2:32768");
	CHECK_INT(block_at_end - at_end, 1);
	CHECK_INT(model_fed - fed, 1);
	live_mode = 0;
	window_slots = 0;
}

/*
 * Task 20's window owed pages no bio carried: a worker's bio on another
 * disk, after the window was final and its row written, has the pass read
 * the window's record back (is it owed?), and it is not. The row stays the
 * one written, given to the model's inputs once.
 */
static void test_final_read_back(void)
{
	struct ra_event ev = { .blk = { .dev = 8u << 20, .sector = 7000, .nr_sector = 32,
					.explicit_unplug = -1 } };
	int at_end = block_at_end, timed = block_timed, fed = model_fed;

	behind_forty("readback", 8, 8);
	snprintf(ev.blk.rwbs, sizeof(ev.blk.rwbs), "RA");
	put(&ev, RA_EV_BIO_QUEUE, 99);
	CHECK_STR(result("SELECT COUNT(*), SUM(bios), SUM(service_ns IS NOT NULL) FROM window_io"),
		  "41|41|41");
	CHECK_STR(result("SELECT bios || ':' || bytes FROM window_io WHERE window_id = 1"),
		  "1:16384");
	CHECK_INT(block_at_end - at_end, 0);
	CHECK_INT(block_timed - timed, 1);
	CHECK_INT(model_fed - fed, 1);
	live_mode = 0;
	window_slots = 0;
}

/*
 * Readahead bios a worker queues (blk-throttle's): each goes to the oldest
 * open window still owed pages. Window 1 added 4 pages, window 2 eight; the
 * worker's bios carry 4, then 4 and 4.
 */
static void test_owed(void)
{
	begin("owed");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 3);
	add(10, 5, 0, 4, 0);
	trig(0, 10, 5, 3, 1, 32);
	order(10, 5, 4, 8, 8);
	add(10, 5, 4, 8, 0);
	blk(RA_EV_BIO_QUEUE, 99, 1000, 32, "RA");
	blk(RA_EV_BIO_QUEUE, 99, 1032, 32, "RA");
	blk(RA_EV_BIO_QUEUE, 99, 1064, 32, "RA");
	for (int i = 0; i < 3; i++) {
		blk(RA_EV_GETRQ, 99, 1000 + 32 * (uint64_t)i, 32, "RA");
		blk(RA_EV_RQ_ISSUE, 99, 1000 + 32 * (uint64_t)i, 32, "RA");
		blk(RA_EV_RQ_COMPLETE, 99, 1000 + 32 * (uint64_t)i, 32, "RA");
	}
	CHECK_STR(result("SELECT group_concat(window_id || ':' || bios || ':' || bytes, ',')"
			 " FROM (SELECT * FROM window_io ORDER BY window_id)"),
		  "1:1:16384,2:2:32768");
}

/*
 * The same with a window that adds pages after the worker queued a bio of
 * it: the bio is its, owed the pages it adds in the end. Followed live, the
 * pass saw fewer pages when the bio came: it reads the events again.
 */
static void test_owed_later(void)
{
	begin("owedlater");
	trig(1, 10, 5, 0, 1, 32);
	order(10, 5, 0, 4, 3);
	add(10, 5, 0, 2, 0);
	blk(RA_EV_BIO_QUEUE, 99, 1000, 16, "RA");
	blk(RA_EV_GETRQ, 99, 1000, 16, "RA");
	add(10, 5, 2, 2, 0);
	blk(RA_EV_BIO_QUEUE, 99, 1016, 16, "RA");
	blk(RA_EV_BIO_BACKMERGE, 99, 1016, 16, "RA");
	blk(RA_EV_RQ_ISSUE, 99, 1000, 32, "RA");
	blk(RA_EV_RQ_COMPLETE, 99, 1000, 32, "RA");
	CHECK_STR(result("SELECT window_id || ':' || bios || ':' || bytes FROM window_io"),
		  "1:2:16384");
}

/*
 * Spans added in any order between intervals that come in increasing time
 * (ra_span_set), against the unit cells of each interval some span added
 * so far covers; the spans that end before an interval dropped first.
 */
static void test_span_set(void)
{
	struct ra_span sp[64];

	srand(11);
	for (int round = 0; round < 300; round++) {
		struct ra_span_set s = { 0 };
		int n = 0;

		for (int64_t lo = 0; lo < 2000;) {
			int64_t hi = lo + rand() % 120, want = 0;

			for (int k = rand() % 4; k > 0 && n < 64; k--) {
				int64_t a = lo + rand() % 300;

				sp[n] = (struct ra_span){ a, a + rand() % 160 - 20 };
				CHECK_INT(ra_span_set_add(&s, sp[n].lo, sp[n].hi), 0);
				n++;
			}
			for (int64_t t = lo; t < hi; t++)
				for (int i = 0; i < n; i++)
					if (sp[i].lo <= t && t + 1 <= sp[i].hi) {
						want++;
						break;
					}
			ra_span_set_drop(&s, lo);
			CHECK_INT(ra_span_set_cover(&s, lo, hi), want);
			for (int i = 1; i < s.n; i++)	/* disjoint, in order */
				CHECK(s.u[i - 1].hi < s.u[i].lo);
			lo = hi + rand() % 3;
		}
		ra_span_set_free(&s);
	}
}

static const struct test_case *all_cases;
static void test_records_kept(void);
static void test_followed(void);
static void test_at_end(void);

static void every_case(void)
{
	for (const struct test_case *c = all_cases; c->fn; c++)
		if (c->fn != test_records_kept && c->fn != test_followed && c->fn != test_at_end &&
		    c->fn != test_span_set && c->fn != test_pressed && c->fn != test_late_bio &&
		    c->fn != test_final_read_back)
			c->fn();
}

/* Every case again with five windows' records and three latencies in
 * memory, the others kept by the pass (slots.c, xsort.c): the same rows,
 * after the load and followed as the events are stored. */
static void test_records_kept(void)
{
	window_slots = 5;
	latencies_held = 3;
	block_rows_early = 0;
	every_case();
	live_mode = 1;
	block_followed = block_again = 0;
	every_case();
	CHECK(block_followed > 10);
	live_mode = 0;
	window_slots = latencies_held = 0;
	printf("test_blockio: %d windows' rows written as they left five slots\n", block_rows_early);
	CHECK(block_rows_early >= 40);
}

/*
 * Every case again, after the load and followed, the windows' device time
 * computed at the end from every record instead of as they completed: the
 * same rows (each case checks them).
 */
static void test_at_end(void)
{
	setenv("RATRACE_DEVICE_TIME", "end", 1);
	block_at_end = block_timed = 0;
	every_case();
	live_mode = 1;
	every_case();
	live_mode = 0;
	unsetenv("RATRACE_DEVICE_TIME");
	CHECK(block_at_end > 20);
	CHECK_INT(block_timed, 0);
}

/*
 * Every case again, the pass following the events as they are stored
 * beside the readahead pass: the same rows (each case checks them), from
 * the events followed.
 */
static void test_followed(void)
{
	live_mode = 1;
	block_followed = block_again = block_timed = model_fed = model_scanned = 0;
	every_case();
	live_mode = 0;
	printf("test_blockio: followed %d runs, read %d again; %d timed their windows as they"
	       " completed\n", block_followed, block_again, block_timed);
	/* the model's inputs as the rows were written: the same (same_model_inputs()) */
	printf("test_blockio: the model's inputs fed in %d runs, read from the rows in %d\n",
	       model_fed, model_scanned);
	CHECK(model_fed > 10);
	CHECK_INT(model_scanned, block_again);
	CHECK(block_followed > 10);
	CHECK(block_timed > 10);
	CHECK_INT(block_again, 1);	/* test_owed_later */
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "back and front merges", test_merges },
		{ "missing insert, issue, get-request", test_missing_events },
		{ "counts: splits, requeues, unmatched", test_counts },
		{ "windows' bios and plug stalls", test_windows_and_stalls },
		{ "windows' device time", test_window_service },
		{ "device time shared by a merged request", test_shared_service },
		{ "two requests merged by the elevator", test_rq_merge },
		{ "plugs per device", test_plugs },
		{ "a split bio: one bio, Q2C to its last piece", test_split },
		{ "a bio split twice", test_split_twice },
		{ "a request of 20000 merged bios; a latency of 2^62 ns", test_many_merges },
		{ "events of more devices than the pass follows", test_many_devices },
		{ "40 windows in turn", test_windows_in_turn },
		{ "a worker's bios owed to the oldest windows", test_owed },
		{ "windows pressing behind an idle one and a bio queued twice", test_pressed },
		{ "a window that adds pages after its owed bio", test_owed_later },
		{ "a bio of a window after it was final, followed live", test_late_bio },
		{ "a final window's record read back, its row kept", test_final_read_back },
		{ "five windows' records in memory: the same rows", test_records_kept },
		{ "the device time computed at the end: the same rows", test_at_end },
		{ "spans added in any order: what they cover", test_span_set },
		{ "followed as the events are stored: the same rows", test_followed },
		{ NULL, NULL },
	};
	all_cases = cases;
	return test_run_in_tmpdir("test_blockio", cases, dir);
}
