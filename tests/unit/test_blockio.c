// SPDX-License-Identifier: LGPL-2.1
/*
 * The block pass on hand-built event sequences: merges, missing events,
 * requeues, requests carrying bios of two windows, stalls.
 */
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

int main(void)
{
	static const struct test_case cases[] = {
		{ "back and front merges", test_merges },
		{ "missing insert, issue, get-request", test_missing_events },
		{ "counts: splits, requeues, unmatched", test_counts },
		{ "windows' bios and plug stalls", test_windows_and_stalls },
		{ "windows' device time", test_window_service },
		{ "device time shared by a merged request", test_shared_service },
		{ NULL, NULL },
	};
	return test_run_in_tmpdir("test_blockio", cases, dir);
}
