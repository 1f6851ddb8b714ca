// SPDX-License-Identifier: LGPL-2.1
/*
 * fio's results from a workload's output: the JSON document found among other
 * text, each job's rows, and a row per reporting group computed as fio
 * prints it (the jobs' bytes and I/Os over the longest job's run time), the
 * answers worked out by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include <sqlite3.h>

#include "ra_analyze.h"
#include "db_local.h"
#include "test.h"

static char dir[64];

/* Two jobs of group 0 (1000 and 3000 bytes in 10 and 20 ms), one of group 1. */
#define JOBS \
	"{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n" \
	"    { \"jobname\" : \"seq\", \"groupid\" : 0, \"read\" : { \"io_bytes\" : 1000," \
	" \"bw_bytes\" : 100000, \"iops\" : 1000.0, \"runtime\" : 10, \"total_ios\" : 10 } },\n" \
	"    { \"jobname\" : \"seq\", \"groupid\" : 0, \"read\" : { \"io_bytes\" : 3000," \
	" \"bw_bytes\" : 150000, \"iops\" : 1500.0, \"runtime\" : 20, \"total_ios\" : 30 } },\n" \
	"    { \"jobname\" : \"rnd{x}\", \"groupid\" : 1, \"read\" : { \"io_bytes\" : 500," \
	" \"bw_bytes\" : 10000, \"iops\" : 20.0, \"runtime\" : 50, \"total_ios\" : 1 } }\n" \
	"  ]\n}\n"

#define ROWS_ALL "(group 0)|read_bw_bytes|200000.0;(group 0)|read_iops|2000.0;" \
		 "(group 1)|read_bw_bytes|10000.0;(group 1)|read_iops|20.0;" \
		 "rnd{x}#2|read_bw_bytes|10000.0;rnd{x}#2|read_iops|20.0;" \
		 "seq#0|read_bw_bytes|100000.0;seq#0|read_iops|1000.0;" \
		 "seq#1|read_bw_bytes|150000.0;seq#1|read_iops|1500.0"

static const struct {
	const char *name;
	const char *output;
	const char *want;
} cases[] = {
	{ "--output-format=json", JOBS, ROWS_ALL },
	{ "json,normal: the normal text before and after",
	  "seq: (g=0): rw=read, bs=(R) 64.0KiB-64.0KiB, ioengine=psync, iodepth=1\n"
	  "fio-3.33\nStarting 2 processes\n" JOBS
	  "\nseq: (groupid=0, jobs=1): err= 0: pid=1\n  read: IOPS=1000, BW=97.7KiB/s\n"
	  "Run status group 0 (all jobs):\n   READ: bw=195KiB/s (200kB/s)\n", ROWS_ALL },
	{ "a line starting with { that is not the document",
	  "fio: {warning} something\n{ not json\n" JOBS "}\n", ROWS_ALL },
	{ "JSON of something else first", "{ \"other\" : [1, 2] }\n" JOBS, ROWS_ALL },
	{ "no JSON", "seq: (g=0): rw=read\nRun status group 0 (all jobs):\n", "" },
	{ "a document cut short", "{\n  \"jobs\" : [ { \"jobname\" : \"seq\"", "" },
	{ "a job without reads: no group row",
	  "{ \"jobs\" : [ { \"jobname\" : \"w\", \"groupid\" : 0, \"write\" : {} } ] }\n", "" },
};

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ra_run_info info = { .origin = "record" };
		char path[128], out[2048] = "";
		sqlite3_stmt *st = NULL;
		struct ra_db *db;
		int64_t run;

		snprintf(path, sizeof(path), "%s/bench%zu.db", dir, i);
		db = ra_db_open(path, RA_DB_CREATE);
		CHECK(db != NULL);
		if (!db)
			continue;
		run = ra_db_run_create(db, &info);
		CHECK_INT(ra_db_run_set_text(db, run, "workload_output", cases[i].output), 0);
		CHECK_INT(ra_bench_parse_fio(db, run), 0);
		CHECK(sqlite3_prepare_v2(ra_db_sqlite(db), "SELECT job, metric, value FROM"
					 " bench_results WHERE metric IN ('read_bw_bytes', 'read_iops')"
					 " ORDER BY job, metric", -1, &st, NULL) == SQLITE_OK);
		while (st && sqlite3_step(st) == SQLITE_ROW) {
			size_t len = strlen(out);

			snprintf(out + len, sizeof(out) - len, "%s%s|%s|%s", len ? ";" : "",
				 sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
				 sqlite3_column_text(st, 2));
		}
		sqlite3_finalize(st);
		if (strcmp(out, cases[i].want) != 0)
			fprintf(stderr, "bench: %s\n", cases[i].name);
		CHECK_STR(out, cases[i].want);
		CHECK_INT(ra_db_close(db), 0);
	}
}

int main(void)
{
	static const struct test_case tcases[] = {
		{ "fio's JSON among other text, jobs and groups", test_cases },
		{ NULL, NULL },
	};
	return test_run_in_tmpdir("test_bench", tcases, dir);
}
