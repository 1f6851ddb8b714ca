// SPDX-License-Identifier: GPL-2.0
/*
 * ra-whatif: predict what other read_ahead_kb values, kernel series or
 * readahead policies would have done with a recorded run's workload, from
 * that one run: its accesses replayed, its device's model timing the I/O.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ra_analyze.h"
#include "ra_sql.h"
#include "ra_version.h"
#include "replay.h"

#define EXIT_ERROR 2
#define MAX_LIST 32
#define DEFAULT_KB "16,32,64,128,256,512,1024,2048"

static const char usage_text[] =
	"usage: ra-whatif [options] DB\n"
	"\n"
	"Replay the accesses of a recorded run of DB through the readahead of a\n"
	"kernel series at other read_ahead_kb values or policies: the windows, the\n"
	"readahead I/O, the pages read ahead and their fates, and, with the model of\n"
	"the run's device, the time the reader would wait and its throughput,\n"
	"without running the workload again. Each prediction is a what-if run\n"
	"(origin 'whatif'), kept in DB with --store for ra-report and ra-compare.\n"
	"\n"
	"  -r, --run ID            the run to replay (default: the last recorded run)\n"
	"  -k, --read-ahead-kb LIST  read_ahead_kb values, comma-separated\n"
	"                          (default " DEFAULT_KB ")\n"
	"  -K, --kernel LIST       kernel series: 6.1, 6.12, 6.16, 6.17, 6.18, 7.2\n"
	"                          (default: the run's own)\n"
	"  -p, --policy LIST       kernel (default); fixed:KB, a window of KB with no\n"
	"                          ramp; scaling[:KB], the window scaled to the device\n"
	"                          (4 x access time x bandwidth of its model, shrunk by\n"
	"                          the pages evicted unused); both hypothetical\n"
	"      --max-sectors-kb KB the device's largest request (its io_pages: WILLNEED\n"
	"                          reads that much at once; default: the run's device's)\n"
	"      --store             keep the what-if runs in DB\n"
	"      --against IDS       the recorded runs to put beside the predictions (those\n"
	"                          at their read_ahead_kb and series; default: the runs\n"
	"                          of the same workload and parameters)\n"
	"  -j, --json              JSON instead of the table\n"
	"  -q, --quiet             print errors only\n"
	"  -h, --help              this text\n"
	"      --version           print the version\n"
	"\n"
	"Exit status: 0 predicted; 2 usage error, an unknown run or series, a\n"
	"database that cannot be read or written.\n"
	"\n"
	"Example:\n"
	"  ra-whatif -k 128,512,2048 -K 6.1,6.18 run.db\n";

struct opts {
	const char *db;
	int64_t run;
	int kb[MAX_LIST], nkb;
	int series[MAX_LIST], nseries;
	struct { int policy, kb; } pol[MAX_LIST];
	int npol;
	int64_t against[MAX_LIST];
	int nagainst;
	int max_sectors_kb;
	bool store, json, quiet;
};

static int error_status(const char *msg)
{
	fprintf(stderr, "ra-whatif: %s\n", msg);
	return EXIT_ERROR;
}

static int parse_kbs(struct opts *o, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;

	o->nkb = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(t, &end, 10);

		if (*end || v < 4 || v > (1L << 20) || o->nkb == MAX_LIST) {
			ra_set_error(RA_ERR_USAGE, "bad read_ahead_kb '%s' (4 to 1048576)", t);
			free(copy);
			return -1;
		}
		o->kb[o->nkb++] = (int)v;
	}
	free(copy);
	return o->nkb ? 0 : -1;
}

static int parse_series(struct opts *o, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;

	o->nseries = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		int s = ra_kseries_of(t);

		if (s < 0 || o->nseries == MAX_LIST) {
			ra_set_error(RA_ERR_USAGE, "unknown kernel series '%s' (6.1 and later)", t);
			free(copy);
			return -1;
		}
		o->series[o->nseries++] = s;
	}
	free(copy);
	return 0;
}

static int parse_policies(struct opts *o, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;

	o->npol = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		char *kb = strchr(t, ':');
		int p = !strncmp(t, "kernel", 6) ? RA_POLICY_KERNEL :
			!strncmp(t, "fixed", 5) ? RA_POLICY_FIXED :
			!strncmp(t, "scaling", 7) ? RA_POLICY_SCALING : -1;

		if (p < 0 || o->npol == MAX_LIST || (p == RA_POLICY_FIXED && !kb) ||
		    (kb && atoi(kb + 1) < 4)) {
			ra_set_error(RA_ERR_USAGE, "bad policy '%s' (kernel, fixed:KB, scaling:KB)", t);
			free(copy);
			return -1;
		}
		o->pol[o->npol].policy = p;
		o->pol[o->npol++].kb = kb ? atoi(kb + 1) : 0;
	}
	free(copy);
	return 0;
}

static int parse_against(struct opts *o, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;

	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		long long v = strtoll(t, &end, 10);

		if (*end || v <= 0 || o->nagainst == MAX_LIST) {
			ra_set_error(RA_ERR_USAGE, "bad run id '%s' of --against", t);
			free(copy);
			return -1;
		}
		o->against[o->nagainst++] = v;
	}
	free(copy);
	return 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "read-ahead-kb", required_argument, NULL, 'k' },
		{ "kernel", required_argument, NULL, 'K' },
		{ "policy", required_argument, NULL, 'p' },
		{ "store", no_argument, NULL, 257 },
		{ "against", required_argument, NULL, 258 },
		{ "max-sectors-kb", required_argument, NULL, 259 },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 256 },
		{ NULL, 0, NULL, 0 }
	};
	int c, rc = 0;

	if (parse_kbs(o, DEFAULT_KB) < 0)
		return -1;
	o->pol[0].policy = RA_POLICY_KERNEL;
	o->npol = 1;
	while (rc == 0 && (c = getopt_long(argc, argv, "r:k:K:p:jqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o->run = strtoll(optarg, NULL, 10);
			if (o->run <= 0) {
				ra_set_error(RA_ERR_USAGE, "bad run id '%s'", optarg);
				rc = -1;
			}
			break;
		case 'k': rc = parse_kbs(o, optarg); break;
		case 'K': rc = parse_series(o, optarg); break;
		case 'p': rc = parse_policies(o, optarg); break;
		case 257: o->store = true; break;
		case 258: rc = parse_against(o, optarg); break;
		case 259:
			o->max_sectors_kb = atoi(optarg);
			if (o->max_sectors_kb < 4) {
				ra_set_error(RA_ERR_USAGE, "bad max_sectors_kb '%s'", optarg);
				rc = -1;
			}
			break;
		case 'j': o->json = true; break;
		case 'q': o->quiet = true; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 256: printf("ra-whatif %s\n", RA_VERSION); exit(0);
		default: return ra_set_error(RA_ERR_USAGE, "see ra-whatif --help"), -1;
		}
	}
	if (rc == 0 && optind != argc - 1)
		return ra_set_error(RA_ERR_USAGE, "name one database (see ra-whatif --help)"), -1;
	o->db = argv[optind];
	return rc;
}

/* ---- the predictions ---- */

/* The run to replay: the one named, else the last recorded (not a what-if). */
static int pick_run(struct ra_db *db, struct opts *o)
{
	int64_t id = 0;
	int rc = o->run ? ra_sql_one(db, "SELECT run_id FROM runs WHERE run_id = ?1"
				     " AND origin IS NOT 'whatif'", "i", "i", o->run, &id) :
			  ra_sql_one(db, "SELECT MAX(run_id) FROM runs WHERE origin IS NOT 'whatif'",
				     "", "i", &id);

	if (rc < 0)
		return -1;
	if (rc == 0 || id <= 0) {
		ra_set_error(RA_ERR_USAGE, o->run ? "'%s' has no recorded run %lld" :
			     "'%s' holds no recorded run", ra_db_path(db), (long long)o->run);
		return -1;
	}
	o->run = id;
	return 0;
}

/* One prediction, kept in @ids. */
static int predict(struct ra_db *db, const struct opts *o, const struct ra_whatif *wi,
		   int64_t *ids, int *n)
{
	struct ra_analyze_opts ao = { 0 };
	int64_t id;

	if (ra_whatif_make(db, o->run, wi, &ao, &id) < 0)
		return -1;
	ids[(*n)++] = id;
	return 0;
}

/*
 * The device-scaled window of the run's device: the size at which a request
 * reaches 80% of the bandwidth under the model (4 x access time x
 * bandwidth), shrunk by the share of read-ahead pages the run saw evicted
 * unused; 0 without a model.
 */
static int scaling_kb(struct ra_db *db, int64_t run)
{
	double access = NAN, bps = NAN, evicted = 0, added = 0, kb;

	if (ra_sql_one(db, "SELECT access_ns, bandwidth_bps FROM device_models WHERE run_id = ?1"
			   " AND chosen AND status = 'ok' ORDER BY timing = 'window' DESC LIMIT 1",
		       "i", "dd", run, &access, &bps) < 0 ||
	    ra_sql_one(db, "SELECT SUM(evicted_unused), SUM(ra_pages_added) FROM windows"
			   " WHERE run_id = ?1", "i", "ff", run, &evicted, &added) < 0)
		return -1;
	if (!isfinite(access) || !isfinite(bps) || access <= 0 || bps <= 0)
		return 0;
	kb = 4.0 * access / 1e9 * bps / 1024.0;
	if (added > 0)
		kb *= 1.0 - evicted / added;
	return kb < 16 ? 16 : kb > 32768 ? 32768 : (int)(kb / 4) * 4;
}

static int predict_all(struct ra_db *db, const struct opts *o, int64_t *ids, int *n)
{
	int nser = o->nseries ? o->nseries : 1;
	int64_t lead;

	if (ra_whatif_calibrate(db, o->run, &lead) < 0)
		return -1;

	for (int s = 0; s < nser; s++) {
		for (int p = 0; p < o->npol; p++) {
			struct ra_whatif wi = { .series = o->nseries ? o->series[s] : -1,
						.policy = o->pol[p].policy,
						.window_kb = o->pol[p].kb, .device_lead_ns = lead,
						.max_sectors_kb = o->max_sectors_kb };

			if (wi.policy == RA_POLICY_SCALING && !wi.window_kb &&
			    (wi.window_kb = scaling_kb(db, o->run)) <= 0) {
				if (!wi.window_kb)
					ra_set_error(RA_ERR_DATA, "run %lld has no device model to"
						     " scale a window by: give scaling:KB",
						     (long long)o->run);
				return -1;
			}
			if (wi.policy != RA_POLICY_KERNEL) {
				if (predict(db, o, &wi, ids, n) < 0)
					return -1;
				continue;
			}
			for (int k = 0; k < o->nkb; k++) {
				wi.read_ahead_kb = o->kb[k];
				if (predict(db, o, &wi, ids, n) < 0)
					return -1;
			}
		}
	}
	return 0;
}

/* ---- the table ---- */

/*
 * A prediction's figures, and those of the recorded runs of the same workload
 * at the same series and read_ahead_kb: their reader's throughput, and how
 * many of their windows the prediction matched one for one (per file, in
 * order).
 */
static const char row_sql[] =
	"WITH p AS (SELECT * FROM whatif WHERE run_id = ?1),"
	" m AS (SELECT run_id FROM temp.ra_whatif_measured),"
	/* a file is known by its name (the same workload on another machine, or in
	 * a guest: other devices, other inodes), else by its device and inode */
	" fw AS (SELECT w.*, COALESCE(replace(f.path, rtrim(f.path, replace(f.path, '/', '')), ''),"
	"        w.dev || ':' || w.ino) AS file FROM windows w LEFT JOIN files f"
	"        ON f.run_id = w.run_id AND f.dev = w.dev AND f.ino = w.ino"
	"        WHERE w.run_id = ?1 OR w.run_id IN (SELECT run_id FROM m)),"
	" pw AS (SELECT file, trigger, start_page, size_pages, async_size_pages,"
	"        ROW_NUMBER() OVER (PARTITION BY file ORDER BY window_id) AS k"
	"        FROM fw WHERE run_id = ?1),"
	" mw AS (SELECT run_id, file, trigger, start_page, size_pages, async_size_pages,"
	"        ROW_NUMBER() OVER (PARTITION BY run_id, file ORDER BY window_id) AS k"
	"        FROM fw WHERE run_id IN (SELECT run_id FROM m))"
	" SELECT p.series, p.policy, p.read_ahead_kb, p.window_kb,"
	"  (SELECT COUNT(*) FROM windows WHERE run_id = ?1),"
	"  (SELECT AVG(size_pages) * 4 FROM windows WHERE run_id = ?1),"
	"  (SELECT MAX(size_pages) * 4 FROM windows WHERE run_id = ?1),"
	"  (SELECT group_concat(pattern || ' ' || n, ', ') FROM (SELECT pattern, COUNT(*) AS n"
	"    FROM windows WHERE run_id = ?1 GROUP BY pattern ORDER BY n DESC)),"
	"  (SELECT SUM(ra_pages_added) FROM windows WHERE run_id = ?1),"
	"  (SELECT SUM(used) FROM windows WHERE run_id = ?1),"
	"  (SELECT SUM(pending + evicted_unused) FROM windows WHERE run_id = ?1),"
	"  p.requests, p.request_bytes, p.device_busy_ns, p.duration_ns, p.read_bps,"
	"  (SELECT COUNT(*) FROM m),"
	"  (SELECT AVG(c.bytes_read * 1e9 / c.read_ns) FROM replay_checks c"
	"    WHERE c.run_id IN (SELECT run_id FROM m) AND c.read_ns > 0),"
	"  (SELECT COUNT(*) FROM mw),"
	"  (SELECT COUNT(*) FROM mw JOIN pw USING (file, k) WHERE mw.trigger = pw.trigger"
	"    AND mw.start_page = pw.start_page AND mw.size_pages = pw.size_pages"
	"    AND mw.async_size_pages = pw.async_size_pages),"
	"  p.doubts, p.timed"
	" FROM p";

struct row {
	const char *series, *policy, *patterns, *doubts;
	int64_t kb, window_kb, windows, ra_pages, used, unused, requests, busy, duration;
	double mean_kb, max_kb, req_bytes, bps, measured_bps;
	int64_t measured, mwindows, mexact;
	int timed;
};

static void print_header(void)
{
	printf("%-6s %-12s %7s %8s %8s %10s %6s %10s %9s %9s %9s %9s  %s\n", "series", "policy",
	       "ra_kb", "windows", "avg_kb", "ra_MiB", "used%", "requests", "req_KiB", "device_s",
	       "MB/s", "meas.MB/s", "patterns");
}

static void print_row(const struct row *r)
{
	char pol[32], meas[32], bps[32];

	snprintf(pol, sizeof(pol), "%s%s", r->policy, !strcmp(r->policy, "kernel") ? "" :
		 " (hyp.)");
	snprintf(bps, sizeof(bps), "-");
	snprintf(meas, sizeof(meas), "-");
	if (r->timed)
		snprintf(bps, sizeof(bps), "%.1f", r->bps / 1e6);
	if (r->measured && isfinite(r->measured_bps))
		snprintf(meas, sizeof(meas), "%.1f", r->measured_bps / 1e6);
	printf("%-6s %-12s %7lld %8lld %8.1f %10.1f %5.1f%% %10lld %9.1f %9.3f %9s %9s  %s\n",
	       r->series, pol, (long long)r->kb, (long long)r->windows, r->mean_kb,
	       (double)r->ra_pages * 4096 / 1048576.0,
	       r->ra_pages ? 100.0 * (double)r->used / (double)r->ra_pages : 0.0,
	       (long long)r->requests, r->req_bytes / 1024.0, r->timed ? (double)r->busy / 1e9 : 0,
	       bps, meas, r->patterns ? r->patterns : "");
	if (r->mwindows)
		printf("%19s measured at this setting: %lld of its %lld windows predicted exactly"
		       " (%.1f%%)\n", "", (long long)r->mexact, (long long)r->mwindows,
		       100.0 * (double)r->mexact / (double)r->mwindows);
}

static void json_str(const char *k, const char *v, bool comma)
{
	printf("\"%s\": ", k);
	if (!v) {
		printf("null");
	} else {
		putchar('"');
		for (const char *p = v; *p; p++) {
			if (*p == '"' || *p == '\\')
				printf("\\%c", *p);
			else if ((unsigned char)*p < 0x20)
				printf("\\u%04x", (unsigned char)*p);
			else
				putchar(*p);
		}
		putchar('"');
	}
	if (comma)
		printf(", ");
}

static void json_num(const char *k, double v, bool comma)
{
	if (isfinite(v))
		printf("\"%s\": %.17g%s", k, v, comma ? ", " : "");
	else
		printf("\"%s\": null%s", k, comma ? ", " : "");
}

static void print_json(const struct row *r, int64_t id, bool first)
{
	printf("%s{", first ? "" : ",\n  ");
	json_num("run_id", (double)id, true);
	json_str("series", r->series, true);
	json_str("policy", r->policy, true);
	json_num("read_ahead_kb", (double)r->kb, true);
	json_num("window_kb", (double)r->window_kb, true);
	json_num("windows", (double)r->windows, true);
	json_num("mean_window_kb", r->mean_kb, true);
	json_num("readahead_pages", (double)r->ra_pages, true);
	json_num("used_pages", (double)r->used, true);
	json_num("unused_pages", (double)r->unused, true);
	json_num("requests", (double)r->requests, true);
	json_num("request_bytes", r->req_bytes, true);
	json_num("device_busy_ns", r->timed ? (double)r->busy : NAN, true);
	json_num("duration_ns", r->timed ? (double)r->duration : NAN, true);
	json_num("read_bps", r->timed ? r->bps : NAN, true);
	json_num("measured_runs", (double)r->measured, true);
	json_num("measured_read_bps", r->measured_bps, true);
	json_num("measured_windows", (double)r->mwindows, true);
	json_num("measured_windows_exact", (double)r->mexact, true);
	json_str("patterns", r->patterns, true);
	json_str("doubts", r->doubts, false);
	printf("}");
}

/* What the sizes predicted for the kernel's own policy say, as the device model's advice does. */
struct advice {
	int kb, best_kb, n;
	double bps, best_bps;
	double fraction;
	struct { int kb; double bps; } pt[MAX_LIST * MAX_LIST];
};

static void advice_add(struct advice *a, const struct row *r)
{
	if (strcmp(r->policy, "kernel") || !r->timed || !isfinite(r->bps) ||
	    a->n == MAX_LIST * MAX_LIST)
		return;
	a->pt[a->n].kb = (int)r->kb;
	a->pt[a->n++].bps = r->bps;
	if (r->bps > a->best_bps) {
		a->best_bps = r->bps;
		a->best_kb = (int)r->kb;
	}
}

/* The smallest read_ahead_kb predicted to reach the fraction of the best. */
static void advice_pick(struct advice *a)
{
	for (int i = 0; i < a->n; i++)
		if (a->pt[i].bps >= a->fraction * a->best_bps && (!a->kb || a->pt[i].kb < a->kb)) {
			a->kb = a->pt[i].kb;
			a->bps = a->pt[i].bps;
		}
}

/*
 * The recorded runs a prediction is put beside: the same workload and
 * parameters as its source but read_ahead_kb (and the repeat), recorded at
 * its read_ahead_kb under a kernel of its series; into temp.ra_whatif_measured.
 */
static const char measured_sql[] =
	"SELECT r.run_id, r.kernel FROM runs r, runs s, whatif p WHERE p.run_id = ?1"
	" AND s.run_id = p.source_run_id AND p.policy = 'kernel' AND r.origin IS NOT 'whatif'"
	" AND r.workload IS s.workload"
	" AND EXISTS (SELECT 1 FROM v_run_params v WHERE v.run_id = r.run_id"
	"   AND v.name = 'read_ahead_kb' AND v.value = CAST(p.read_ahead_kb AS TEXT))"
	" AND NOT EXISTS (SELECT name, scope, value FROM run_params WHERE run_id = r.run_id"
	"   AND name NOT IN ('read_ahead_kb', 'repeat')"
	"   EXCEPT SELECT name, scope, value FROM run_params WHERE run_id = s.run_id)"
	" AND NOT EXISTS (SELECT name, scope, value FROM run_params WHERE run_id = s.run_id"
	"   AND name NOT IN ('read_ahead_kb', 'repeat')"
	"   EXCEPT SELECT name, scope, value FROM run_params WHERE run_id = r.run_id)";

/* With --against: those of the runs named at the prediction's read_ahead_kb and series. */
static const char against_sql[] =
	"SELECT r.run_id, r.kernel FROM runs r, whatif p WHERE p.run_id = ?1 AND r.run_id = ?2"
	" AND p.policy = 'kernel' AND EXISTS (SELECT 1 FROM v_run_params v"
	"   WHERE v.run_id = r.run_id AND v.name = 'read_ahead_kb'"
	"   AND v.value = CAST(p.read_ahead_kb AS TEXT))";

/* The rows of @sel whose kernel is of @series, into @ins; 0 or -1 */
static int take_measured(struct ra_stmt *sel, struct ra_stmt *ins, const char *series)
{
	int rc;

	while ((rc = ra_sql_step(sel)) == 1) {
		int64_t run;
		const char *kernel;

		ra_sql_row(sel, "it", &run, &kernel);
		if (series && kernel && ra_kseries_of(kernel) == ra_kseries_of(series) &&
		    ra_sql_put(ins, "i", run) < 0)
			return -1;
	}
	return rc;
}

static int measured_runs(struct ra_db *db, int64_t id, struct ra_stmt *sel, struct ra_stmt *ins,
			 const struct opts *o)
{
	char *series = NULL;
	int rc = 0;

	if (ra_sql_exec(db, "DELETE FROM temp.ra_whatif_measured", "") < 0 ||
	    ra_sql_one(db, "SELECT series FROM whatif WHERE run_id = ?1", "i", "T", id,
		       &series) < 0) {
		free(series);
		return -1;
	}
	for (int k = 0; k < (o->nagainst ? o->nagainst : 1) && rc >= 0; k++) {
		if (ra_sql_bind(sel, o->nagainst ? "ii" : "i", id,
				o->nagainst ? o->against[k] : (int64_t)0) < 0)
			rc = -1;
		else
			rc = take_measured(sel, ins, series);
		ra_sql_reset(sel);
	}
	free(series);
	return rc < 0 ? -1 : 0;
}

/* The advice under the table, or the end of the JSON with it. */
static void print_advice(const struct opts *o, struct advice *adv)
{
	if (adv->n >= 2)
		advice_pick(adv);
	if (o->json) {
		printf("], \"advice\": ");
		if (adv->kb)
			printf("{\"read_ahead_kb\": %d, \"read_bps\": %.17g, \"best_read_ahead_kb\":"
			       " %d, \"best_read_bps\": %.17g, \"fraction\": %.2f}}\n", adv->kb,
			       adv->bps, adv->best_kb, adv->best_bps, adv->fraction);
		else
			printf("null}\n");
	} else if (adv->kb) {
		printf("\nadvice: read_ahead_kb=%d, the smallest predicted to reach %.0f%% of the best"
		       " (%.1f MB/s at %d; %.1f MB/s at %d)\n", adv->kb, adv->fraction * 100,
		       adv->best_bps / 1e6, adv->best_kb, adv->bps / 1e6, adv->kb);
	}
}

static int show(struct ra_db *db, const struct opts *o, const int64_t *ids, int n)
{
	struct ra_stmt *st = NULL, *sel = NULL, *ins = NULL;
	static struct advice adv = { .fraction = 0.8 };
	int rc = 0;

	if (ra_sql_exec(db, "CREATE TEMP TABLE IF NOT EXISTS ra_whatif_measured"
			" (run_id INTEGER PRIMARY KEY)", "") < 0 ||
	    !(st = ra_sql_prepare(db, row_sql)) ||
	    !(sel = ra_sql_prepare(db, o->nagainst ? against_sql : measured_sql)) ||
	    !(ins = ra_sql_prepare(db, "INSERT INTO temp.ra_whatif_measured VALUES (?1)"))) {
		ra_sql_finalize(st);
		ra_sql_finalize(sel);
		return -1;
	}
	if (o->json)
		printf("{\"run_id\": %lld, \"predictions\": [", (long long)o->run);
	else
		print_header();
	for (int i = 0; i < n && rc == 0; i++) {
		struct row r = { 0 };

		if (measured_runs(db, ids[i], sel, ins, o) < 0 || ra_sql_bind(st, "i", ids[i]) < 0 ||
		    (rc = ra_sql_step(st)) != 1) {
			rc = -1;
			break;
		}
		ra_sql_row(st, "ttiiiddtiiiidiididiitx", &r.series, &r.policy, &r.kb, &r.window_kb,
			   &r.windows, &r.mean_kb, &r.max_kb, &r.patterns, &r.ra_pages, &r.used,
			   &r.unused, &r.requests, &r.req_bytes, &r.busy, &r.duration, &r.bps,
			   &r.measured, &r.measured_bps, &r.mwindows, &r.mexact, &r.doubts,
			   &r.timed);
		if (o->json)
			print_json(&r, ids[i], i == 0);
		else
			print_row(&r);
		advice_add(&adv, &r);
		ra_sql_reset(st);
		rc = 0;
	}
	if (rc == 0)
		print_advice(o, &adv);
	ra_sql_finalize(st);
	ra_sql_finalize(sel);
	ra_sql_finalize(ins);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	int64_t ids[MAX_LIST * MAX_LIST * 3];
	struct ra_db *db = NULL;
	int n = 0, ret = EXIT_ERROR;

	if (parse(&o, argc, argv) < 0)
		return error_status(ra_last_error());
	db = ra_db_open(o.db, 0);
	if (!db || pick_run(db, &o) < 0 || ra_db_load_begin(db) < 0)
		goto out;
	if (predict_all(db, &o, ids, &n) < 0 || show(db, &o, ids, n) < 0) {
		ra_db_load_abort(db);
		goto out;
	}
	if (o.store ? ra_db_load_commit(db) < 0 : (ra_db_load_abort(db), 0))
		goto out;
	if (!o.quiet && !o.json)
		fprintf(stderr, "ra-whatif: run %lld replayed %d times%s\n", (long long)o.run, n,
			o.store ? "; the what-if runs are kept" : "");
	ret = 0;
out:
	if (ret)
		error_status(ra_last_error());
	if (db && ra_db_close(db) < 0 && !ret)
		ret = error_status(ra_last_error());
	return ret;
}
