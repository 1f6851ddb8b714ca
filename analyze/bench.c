// SPDX-License-Identifier: LGPL-2.1
/*
 * Results of the benchmark a run recorded: fio's JSON output
 * (--output-format=json, also json,normal where the normal text surrounds
 * it), found in the workload output stored with the run and read with
 * SQLite's JSON functions. fio names the clones of a job (numjobs=N) alike:
 * each job's row is keyed by its name and its index.
 *
 * fio's JSON has no entry for a reporting group unless group_reporting is
 * set, and the jobs of a group need not run at the same time, so the sum of
 * their bandwidths is not the group's. fio prints a group's bandwidth ("Run
 * status group N") as the bytes of its jobs over the longest job's run time:
 * each group gets a row '(group N)' computed that way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "ra_analyze.h"
#include "ra_sql.h"

/* fio JSON path of each metric, relative to a job */
static const char *const fio_metrics[][2] = {
	{ "read_bw_bytes", "$.read.bw_bytes" },
	{ "read_iops", "$.read.iops" },
	{ "read_clat_p50_ns", "$.read.clat_ns.percentile.\"50.000000\"" },
	{ "read_clat_p95_ns", "$.read.clat_ns.percentile.\"95.000000\"" },
	{ "read_clat_p99_ns", "$.read.clat_ns.percentile.\"99.000000\"" },
	{ "read_clat_max_ns", "$.read.clat_ns.max" },
};

static const char job_sql[] =
	"INSERT OR REPLACE INTO bench_results (run_id, job, metric, value)"
	" SELECT ?1, COALESCE(json_extract(j.value, '$.jobname'), 'job') || '#' || j.key, ?3,"
	"  json_extract(j.value, ?4)"
	" FROM json_each(?2, '$.jobs') j WHERE json_extract(j.value, ?4) IS NOT NULL";

/* io_bytes and total_ios of a group's jobs over its longest job's runtime (ms) */
static const char group_sql[] =
	"WITH g AS (SELECT COALESCE(json_extract(j.value, '$.groupid'), 0) AS id,"
	"  SUM(json_extract(j.value, '$.read.io_bytes')) AS io,"
	"  SUM(json_extract(j.value, '$.read.total_ios')) AS ios,"
	"  MAX(json_extract(j.value, '$.read.runtime')) AS ms"
	"  FROM json_each(?2, '$.jobs') j GROUP BY 1)"
	" INSERT OR REPLACE INTO bench_results (run_id, job, metric, value)"
	" SELECT ?1, '(group ' || id || ')', 'read_bw_bytes', io * 1000.0 / ms FROM g"
	"  WHERE ms > 0 AND io IS NOT NULL"
	" UNION ALL SELECT ?1, '(group ' || id || ')', 'read_iops', ios * 1000.0 / ms FROM g"
	"  WHERE ms > 0 AND ios IS NOT NULL";

/*
 * fio's parameters of the run (run_params, scope 'fio'): numjobs, the clones
 * of its first job; bs, rw, iodepth, ioengine as that job's options or the
 * global options give them.
 */
static const char params_sql[] =
	"WITH f AS (SELECT value AS v FROM json_each(?2, '$.jobs') ORDER BY key LIMIT 1),"
	" o(name) AS (VALUES ('bs'), ('rw'), ('iodepth'), ('ioengine'))"
	" INSERT OR REPLACE INTO run_params (run_id, name, scope, value)"
	" SELECT ?1, 'numjobs', 'fio', (SELECT COUNT(*) FROM json_each(?2, '$.jobs') x"
	"   WHERE json_extract(x.value, '$.jobname') IS json_extract(f.v, '$.jobname')) FROM f"
	" UNION ALL SELECT ?1, o.name, 'fio', COALESCE(json_extract(f.v, '$.\"job options\".' ||"
	"   o.name), json_extract(?2, '$.\"global options\".' || o.name)) FROM f, o"
	"  WHERE COALESCE(json_extract(f.v, '$.\"job options\".' || o.name),"
	"   json_extract(?2, '$.\"global options\".' || o.name)) IS NOT NULL";

/*
 * The end of the JSON object that starts at @s[0] ('{'): one past its
 * closing brace, braces in strings left out; 0 when it does not close.
 */
static size_t object_end(const char *s, size_t len)
{
	size_t depth = 0;
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '{') {
			depth++;
		} else if (c == '}' && --depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

/* Whether @doc is valid JSON with a "jobs" array: fio's results. */
static int is_fio_doc(struct ra_stmt *check, const char *doc, size_t len)
{
	int ok = 0;

	if (ra_sql_bind(check, "s", doc, len) == 0 && ra_sql_step(check) == 1)
		ra_sql_row(check, "x", &ok);
	ra_sql_reset(check);
	return ok == 1;
}

/*
 * fio's JSON document in @out: the first object that starts a line and is
 * valid JSON with a "jobs" array. Text before (the normal output's header,
 * warnings on stderr) and after it (the normal results) is left out.
 */
static const char *find_fio_doc(struct ra_db *db, const char *out, size_t *len)
{
	struct ra_stmt *check = ra_sql_prepare(db, "SELECT json_valid(?1)"
					       " AND json_type(?1, '$.jobs') = 'array'");
	const char *found = NULL;
	size_t n = strlen(out);

	if (!check)
		return NULL;
	for (const char *p = out; p && !found; p = strchr(p, '\n')) {
		size_t end;

		p += *p == '\n';
		if (*p != '{')
			continue;
		end = object_end(p, n - (size_t)(p - out));
		if (end && is_fio_doc(check, p, end)) {
			found = p;
			*len = end;
		}
	}
	ra_sql_finalize(check);
	return found;
}

static int store_fio(struct ra_db *db, int64_t run_id, const char *doc, size_t len)
{
	struct ra_stmt *st = ra_sql_prepare(db, job_sql);
	int ret = st ? 0 : -1;

	for (size_t i = 0; ret == 0 && i < sizeof(fio_metrics) / sizeof(fio_metrics[0]); i++)
		ret = ra_sql_put(st, "istt", run_id, doc, len, fio_metrics[i][0], fio_metrics[i][1]);
	ra_sql_finalize(st);
	for (int k = 0; ret == 0 && k < 2; k++)
		ret = ra_sql_exec(db, k ? params_sql : group_sql, "is", run_id, doc, len);
	return ret;
}

/* The run's stored workload output, or NULL (none); the caller frees it. */
static int load_output(struct ra_db *db, int64_t run_id, char **out)
{
	*out = NULL;
	return ra_sql_one(db, "SELECT workload_output FROM runs WHERE run_id = ?", "i", "T",
			  run_id, out) < 0 ? -1 : 0;
}

int ra_bench_parse_fio(struct ra_db *db, int64_t run_id)
{
	const char *doc;
	char *out = NULL;
	size_t len = 0;
	int ret = -1;

	if (load_output(db, run_id, &out) < 0)
		goto out;
	doc = out ? find_fio_doc(db, out, &len) : NULL;
	if (!doc || store_fio(db, run_id, doc, len) == 0)
		ret = 0;
out:
	if (ret < 0)
		ra_set_error(RA_ERR_IO, "cannot store the fio results in '%s': %s", ra_db_path(db),
			     ra_sql_why(db));
	free(out);
	return ret;
}
