// SPDX-License-Identifier: LGPL-2.1
/*
 * Results of the benchmark a run recorded: fio's JSON output
 * (--output-format=json), parsed with SQLite's JSON functions from the
 * workload output stored with the run. fio names the clones of a job
 * (numjobs=N) alike: each job's row is keyed by its name and its index.
 */
#include <stdio.h>
#include <string.h>

#include "collect.h"

/* fio JSON path of each metric, relative to a job */
static const char *const fio_metrics[][2] = {
	{ "read_bw_bytes", "$.read.bw_bytes" },
	{ "read_iops", "$.read.iops" },
	{ "read_clat_p50_ns", "$.read.clat_ns.percentile.\"50.000000\"" },
	{ "read_clat_p95_ns", "$.read.clat_ns.percentile.\"95.000000\"" },
	{ "read_clat_p99_ns", "$.read.clat_ns.percentile.\"99.000000\"" },
	{ "read_clat_max_ns", "$.read.clat_ns.max" },
};

int ra_bench_parse_fio(struct ra_db *db, int64_t run_id)
{
	static const char sql[] =
		"WITH d AS (SELECT substr(workload_output, instr(workload_output, '{')) AS doc"
		"  FROM runs WHERE run_id = ?1 AND instr(workload_output, '{') > 0"
		"  AND json_valid(substr(workload_output, instr(workload_output, '{'))))"
		" INSERT OR REPLACE INTO bench_results"
		" SELECT ?1, COALESCE(json_extract(j.value, '$.jobname'), 'job') || '#' || j.key, ?2,"
		"  json_extract(j.value, ?3)"
		"  FROM d, json_each(d.doc, '$.jobs') j"
		" WHERE json_extract(j.value, ?3) IS NOT NULL";
	sqlite3_stmt *st = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	for (size_t i = 0; i < sizeof(fio_metrics) / sizeof(fio_metrics[0]) && ret == 0; i++) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, fio_metrics[i][0], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, fio_metrics[i][1], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = -1;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (ret == 0)
		return 0;
fail:
	ra_set_error(RA_ERR_IO, "cannot store the fio results in '%s': %s", ra_db_path(db),
		     sqlite3_errmsg(ra_db_sqlite(db)));
	return -1;
}
