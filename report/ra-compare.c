// SPDX-License-Identifier: GPL-2.0
/*
 * ra-compare: compare run sets (runs of one label: iterations of one setting)
 * metric by metric, with %change read as "positive is better", significance,
 * and an exit status a CI job can act on.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ra_db.h"
#include "ra_sql.h"
#include "report.h"
#include "ra_stats.h"
#include "ra_version.h"

#define EXIT_REGRESSION 1
#define EXIT_ERROR 2
#define EXIT_INCONCLUSIVE 3
#define MAX_SIDES 16
#define MAX_RUNS 4096

/*
 * polarity: +1 higher is better, -1 lower is better, 0 informational.
 * timing: a time, bandwidth or latency, which a guest under qemu's software
 * emulation (execution vm-tcg) does not measure as the machine would: such a
 * side's timings are shown, never judged. The behavioural figures (windows,
 * sizes, fates, requests, counts) are the kernel's, and judged everywhere.
 */
struct metric {
	const char *name;
	int polarity;
	bool rate;
	const char *unit;
	bool timing;
};

static const struct metric metrics[] = {
	{ "read_bw_bytes", 1, true, "B/s", true },
	{ "read_iops", 1, true, "", true },
	{ "read_clat_p50_ns", -1, false, "ns", true },
	{ "read_clat_p95_ns", -1, false, "ns", true },
	{ "read_clat_p99_ns", -1, false, "ns", true },
	{ "read_clat_max_ns", -1, false, "ns", true },
	{ "device_read_bw_bytes", 1, true, "B/s", true },
	{ "wall_s", -1, false, "s", true },
	{ "hit_ratio", 1, false, "", false },
	{ "hit_ratio_max", 1, false, "", false },
	{ "thrashed_pages", -1, false, "", false },
	{ "windows", 0, false, "", false },
	{ "ra_requests", 0, false, "", false },
	{ "ra_avg_bytes", 0, false, "B", false },
	/* per request: larger readahead makes larger, slower requests by design, so
	 * these explain a change; the benchmark's latencies judge it */
	{ "q2c_avg_ns", 0, false, "ns", true },
	{ "d2c_avg_ns", 0, false, "ns", true },
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

struct side {
	char *db_path;
	char *db_shown;		/* as messages name it: a server's URL without its password */
	char *label;		/* NULL: every run of the database */
	char *name;		/* the label, or the argument: whole, never cut */
	double *values[NMETRICS];
	int n[NMETRICS];
	int runs;
	int incomplete;		/* runs that lost events or were interrupted */
	int interrupted;	/* of them, interrupted */
	int64_t lost;		/* their lost events */
	int emulated;		/* runs in a guest under software emulation (vm-tcg) */
	struct ra_summary sum[NMETRICS];
	char models[4][160];	/* the device models of the side's runs, as a line each */
	int nmodels;
	int64_t *ids;		/* the runs it judges */
	int nids;
	char *set_runs;		/* LABEL names a run set of the experiment: its runs, a JSON array */
	char *sel_runs;		/* the runs the selection leaves, a JSON array; NULL: every run */
};

struct verdict {
	double change;		/* %, positive is better; an informational metric's: as it moved */
	double p;		/* Mann-Whitney p, NAN when LKP's rule was used */
	bool significant, regression, inconclusive;
	bool emulated;		/* a timing of an emulated side: shown, not judged */
};

struct opts {
	double noise;			/* % */
	double threshold[NMETRICS];	/* per-metric noise floor, -1: the default */
	double alpha;
	const struct format *format;
	int inconclusive_exit;
	enum { INCOMPLETE_REFUSE, INCOMPLETE_SKIP, INCOMPLETE_JUDGE } incomplete;
	const char *db;
	const char *html;		/* --html FILE */
	struct ra_experiment *page;	/* the sides' figures for its charts */
	struct ra_select sel;		/* the runs every side is taken from */
};

static const char usage_text[] =
	"usage: ra-compare [options] BASE NEW [NEW...]\n"
	"\n"
	"Compare run sets metric by metric. A side is DB (every run of it), DB:LABEL\n"
	"(the runs with that label, or the run set ra-report's experiment names so:\n"
	"'read_ahead_kb=128 numjobs=4'), or LABEL (in --db DB, or in the first side's DB).\n"
	"DB is a file or a PostgreSQL database, postgresql://host/db (docs/fleet.md).\n"
	"Every side is taken from the runs the selection (--host ... --until) leaves.\n"
	"\n"
	"  -d, --db DB              database of sides given as a bare label\n"
	"      --noise PCT          changes smaller than PCT percent are never regressions (5)\n"
	"  -t, --threshold M=PCT    noise floor of metric M (repeatable)\n"
	"      --alpha A            significance level of the Mann-Whitney test (0.05)\n"
	"  -f, --format FMT         text (default), json, csv, markdown or junit\n"
	"      --inconclusive ACT   with too few runs: exit 3 (default), pass (0), fail (1)\n"
	"      --incomplete ACT     runs that lost events or were interrupted (incomplete):\n"
	"                           refuse to compare (default, exit 2), skip them, or judge\n"
	"                           them with the others\n"
	"      --html FILE          also write the comparison page to FILE: the metric table\n"
	"                           (significant and regressed cells marked) and the sides'\n"
	"                           charts overlaid\n"
	RA_SELECT_USAGE
	"  -h, --help               this text\n"
	"      --version            print the version\n"
	"\n"
	"%change reads 'positive is better': higher bandwidth, lower latency. A change\n"
	"is significant by a two-sided Mann-Whitney U test when both sides have at least\n"
	"4 runs, else by LKP's rule (each median outside the other's range). A\n"
	"regression is significant, worse, and larger than the noise floor. The\n"
	"informational figures (windows, request count, size and times) show their\n"
	"change as it moved, marked ~ when significant: neither better nor worse.\n"
	"\n"
	"Exit status: 0 no regression; 1 regression; 2 usage or data error, or runs\n"
	"that lost events (see --incomplete); 3 inconclusive (a side with fewer than 2\n"
	"runs), see --inconclusive.\n";

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ra-compare: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return -1;
}

static bool is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* "DB:LABEL": the first colon after which LABEL starts and before which a file is. */
static const char *db_colon(const char *arg)
{
	/* a server's URL: the label after its path (postgresql://host/db:LABEL) */
	if (ra_db_is_url(arg)) {
		const char *path = strchr(strstr(arg, "://") + 3, '/');

		return path ? strchr(path, ':') : NULL;
	}
	for (const char *c = strchr(arg, ':'); c; c = strchr(c + 1, ':')) {
		char *db = c == arg ? NULL : strndup(arg, (size_t)(c - arg));
		bool file = db && is_file(db);

		free(db);
		if (file)
			return c;
	}
	return NULL;
}

/* "DB", "DB:LABEL" or "LABEL" (a label may hold colons) */
static int parse_side(struct side *s, const char *arg, const char *default_db)
{
	const char *colon = db_colon(arg), *first = strchr(arg, ':');
	char *e;

	if (is_file(arg) || (ra_db_is_url(arg) && !colon)) {
		s->db_path = strdup(arg);
	} else if (colon) {
		s->db_path = strndup(arg, (size_t)(colon - arg));
		if (!(s->label = strdup(colon + 1)))
			return fail("out of memory");
	} else if (default_db) {
		s->db_path = strdup(default_db);
		if (!(s->label = strdup(arg)))
			return fail("out of memory");
	} else {	/* with a colon, the database before the first is missing */
		char *db = first && first != arg ? strndup(arg, (size_t)(first - arg)) : NULL;

		e = ra_text_escape(db ? db : arg);
		if (db)
			fail("cannot open '%s': %s", e ? e : "", strerror(ENOENT));
		else
			fail("'%s' is neither a database nor DB:LABEL (use --db DB)", e ? e : "");
		free(db);
		free(e);
		return -1;
	}
	s->db_shown = s->db_path && ra_db_is_url(s->db_path) ? ra_db_redact(s->db_path) :
		      s->db_path ? strdup(s->db_path) : NULL;
	s->name = s->label ? strdup(s->label) : strdup(s->db_shown ? s->db_shown : arg);
	if (!s->db_path || !s->db_shown || !s->name)
		return fail("out of memory");
	return 0;
}

static int add_value(struct side *s, int m, double v)
{
	double *p = realloc(s->values[m], (size_t)(s->n[m] + 1) * sizeof(*p));

	if (!p)
		return -1;
	s->values[m] = p;
	p[s->n[m]++] = v;
	return 0;
}

static int add_id(struct side *s, int64_t id)
{
	int64_t *p = realloc(s->ids, (size_t)(s->nids + 1) * sizeof(*p));

	if (!p)
		return -1;
	s->ids = p;
	p[s->nids++] = id;
	return 0;
}

static int metric_index(const char *name)
{
	for (size_t i = 0; i < NMETRICS; i++)
		if (strcmp(metrics[i].name, name) == 0)
			return (int)i;
	return -1;
}

/*
 * The device models behind a side's figures: the chosen window model of its
 * runs (one per pool and device) and the advice at 80%, as lines of text.
 */
static int load_models(struct side *s, struct ra_db *db)
{
	static const char sql[] =
		"SELECT DISTINCT " RA_SQL_DEV("m.dev") ", m.form, m.access_ns,"
		" m.bandwidth_bps, m.rms_rel_err, m.runs, a.recommended_kb, m.sizes"
		" FROM device_models m JOIN runs r USING (run_id)"
		" LEFT JOIN device_advice a ON a.run_id = m.run_id AND a.dev = m.dev"
		" WHERE (?1 IS NULL OR r.label = ?1 OR r.run_id IN (SELECT value FROM json_each(?2)))"
		" AND (?3 IS NULL OR r.run_id IN (SELECT value FROM json_each(?3)))"
		" AND m.timing = 'window' AND m.chosen != 0"
		" AND m.status = 'ok' ORDER BY 1, 2, 3, 4, 5, 6, 7, 8 LIMIT 4";
	struct ra_stmt *st = ra_sql_prepare(db, sql);
	int rc = -1;

	if (st && ra_sql_bind(st, "ttt", s->label, s->set_runs, s->sel_runs) == 0)
		rc = 1;
	while (rc == 1 && s->nmodels < 4 && (rc = ra_sql_step(st)) == 1) {
		const char *dev, *form;
		double access, bw, rms;
		int runs, kb, sizes;
		char advice[48];

		ra_sql_row(st, "ttfffxxx", &dev, &form, &access, &bw, &rms, &runs, &kb, &sizes);
		/* no recommendation: the model gave no single number (ra-report says why) */
		if (ra_sql_null(st, 6))
			snprintf(advice, sizeof(advice), "no single number");
		else
			snprintf(advice, sizeof(advice), "%d KiB", kb);
		snprintf(s->models[s->nmodels++], sizeof(s->models[0]),
			 "%s %s form, access %.3f ms, bandwidth %.1f MiB/s, %.1f%% rms over %d sizes"
			 " of %d runs; advice %s", dev, form, access / 1e6, bw / 1048576, rms * 100,
			 sizes, runs, advice);
	}
	ra_sql_finalize(st);
	return rc < 0 ? -1 : 0;
}

/*
 * A label no run has may name a run set as the experiment shows it
 * ("read_ahead_kb=128 numjobs=4"): the side is then that set's runs.
 */
static int set_side(struct side *s, struct ra_db *db, const int64_t *ids, int nids)
{
	int64_t *runs, labelled = -1;
	int n;

	if (ra_sql_one(db, "SELECT COUNT(*) FROM runs WHERE label = ?1 AND (?2 IS NULL"
		       " OR run_id IN (SELECT value FROM json_each(?2)))", "tt", "i", s->label,
		       s->sel_runs, &labelled) != 1)
		labelled = -1;
	if (labelled < 0)
		return fail("cannot read the runs of '%s': %s", s->db_shown, ra_sql_why(db));
	if (labelled > 0)
		return 0;
	n = ra_experiment_set_runs(db, ids, nids, s->label, &runs);
	if (n < 0)
		return fail("%s", ra_last_error());
	if (n && !(s->set_runs = ra_ids_json(runs, n))) {
		free(runs);
		return fail("out of memory");
	}
	free(runs);
	return 0;
}

/* The metrics and models of a side, in one read transaction. */
static int read_side(struct side *s, struct ra_db *db, const struct opts *o)
{
	static const char sql[] =
		"SELECT m.run_id, m.metric, m.value, v.lost_events, r.interrupted,"
		" r.execution IS 'vm-tcg' FROM v_run_metrics m"
		" JOIN runs r USING (run_id) JOIN v_runs v USING (run_id)"
		" WHERE (?1 IS NULL OR r.label = ?1 OR r.run_id IN (SELECT value FROM json_each(?2)))"
		" AND (?3 IS NULL OR r.run_id IN (SELECT value FROM json_each(?3)))"
		" AND m.value IS NOT NULL ORDER BY m.run_id";
	struct ra_stmt *st;
	int64_t last = -1, *ids = NULL;
	int rc = -1, nids;

	if (ra_db_exec(db, "BEGIN") < 0)
		return fail("%s", ra_last_error());
	nids = ra_select_runs(db, &o->sel, NULL, &ids);
	if (nids < 0)
		return fail("%s", ra_last_error());
	if (o->sel.n && !(s->sel_runs = ra_ids_json(ids, nids))) {
		free(ids);
		return fail("out of memory");
	}
	rc = s->label ? set_side(s, db, ids, nids) : 0;
	free(ids);
	if (rc < 0)
		return -1;
	rc = -1;
	st = ra_sql_prepare(db, sql);
	if (st && ra_sql_bind(st, "ttt", s->label, s->set_runs, s->sel_runs) == 0) {
		while ((rc = ra_sql_step(st)) == 1) {
			const char *metric;
			int64_t run, lost;
			double value;
			int interrupted, emulated, m;
			bool cut, partial;

			ra_sql_row(st, "itfixx", &run, &metric, &value, &lost, &interrupted,
				   &emulated);
			m = metric_index(metric);
			cut = interrupted != 0;
			partial = lost > 0 || cut;
			if (run != last) {
				last = run;
				s->incomplete += partial;
				s->interrupted += cut;
				s->emulated += emulated != 0;
				s->lost += lost;
				s->runs += !partial || o->incomplete != INCOMPLETE_SKIP;
				if ((!partial || o->incomplete != INCOMPLETE_SKIP) &&
				    add_id(s, last) < 0) {
					rc = -1;
					break;
				}
			}
			if (partial && o->incomplete == INCOMPLETE_SKIP)
				continue;
			if (m >= 0 && add_value(s, m, value) < 0) {
				rc = -1;
				break;
			}
		}
	}
	ra_sql_finalize(st);
	if (rc == 0)
		rc = load_models(s, db);
	if (rc != 0)
		return fail("cannot read the runs of '%s': %s", s->db_shown, ra_sql_why(db));
	return ra_db_exec(db, "COMMIT") < 0 ? fail("%s", ra_last_error()) : 0;
}

/*
 * Runs that lost events (their counts are lower bounds, their times may be
 * wrong too) or were interrupted (the workload was stopped before its end).
 */
static int check_incomplete(const struct side *s, const struct opts *o)
{
	char *name = ra_text_escape(s->name), why[96];
	int ret = 0;

	if (!s->incomplete || !name) {
		free(name);
		return name ? 0 : fail("out of memory");
	}
	snprintf(why, sizeof(why), "%d run(s) lost %lld events or were interrupted (%d)",
		 s->incomplete, (long long)s->lost, s->interrupted);
	if (o->incomplete == INCOMPLETE_REFUSE)
		ret = fail("'%s': %s: their numbers are incomplete (--incomplete=skip leaves them"
			   " out, --incomplete=judge keeps them)", name, why);
	else
		fprintf(stderr, "ra-compare: '%s': %s: %s\n", name, why,
			o->incomplete == INCOMPLETE_SKIP ? "left out" : "judged, though incomplete");
	free(name);
	return ret;
}

static int load_side(struct side *s, const struct opts *o)
{
	struct ra_db *db = ra_db_open(s->db_path, RA_DB_READONLY);
	char *label;
	int ret;

	if (!db)
		return fail("%s", ra_last_error());
	ret = read_side(s, db, o);
	/* the charts of the page: read while the database is open, in its own transaction */
	if (ret == 0 && o->page && s->nids &&
	    (ra_db_exec(db, "BEGIN") < 0 ||
	     ra_experiment_add_side(o->page, db, s->ids, s->nids, s->name) < 0 ||
	     ra_db_exec(db, "COMMIT") < 0))
		ret = fail("%s", ra_last_error());
	if (ra_db_close(db) < 0 && ret == 0)
		ret = fail("%s", ra_last_error());
	if (ret < 0 || check_incomplete(s, o) < 0)
		return -1;
	if (!s->runs) {
		label = s->label ? ra_text_escape(s->label) : NULL;
		fail("no runs%s%s in '%s'", label ? " labelled " : "", label ? label : "",
		     s->db_shown);
		free(label);
		return -1;
	}
	if (s->emulated) {
		label = ra_text_escape(s->name);
		fprintf(stderr, "ra-compare: '%s': %d of %d run(s) ran under software emulation"
			" (vm-tcg): their times, bandwidths and latencies are shown, not judged\n",
			label ? label : "", s->emulated, s->runs);
		free(label);
	}
	for (size_t m = 0; m < NMETRICS; m++)
		ra_stats_summary(s->values[m], s->n[m], metrics[m].rate, &s->sum[m]);
	return 0;
}

static struct verdict judge(const struct side *base, const struct side *s, int m,
			    const struct opts *o)
{
	const struct ra_summary *a = &base->sum[m], *b = &s->sum[m];
	double floor_pct = o->threshold[m] >= 0 ? o->threshold[m] : o->noise;
	struct verdict v = { .p = NAN };

	if (!a->n || !b->n)
		return v;
	if (a->mean != 0)
		v.change = (b->mean - a->mean) / fabs(a->mean) * 100 * (metrics[m].polarity ?: 1);
	if (metrics[m].timing && (base->emulated || s->emulated)) {
		v.emulated = true;
		return v;
	}
	if (a->n < 2 || b->n < 2) {
		v.inconclusive = true;
		return v;
	}
	if (a->n >= 4 && b->n >= 4) {
		v.p = ra_mann_whitney_p(base->values[m], a->n, s->values[m], b->n);
		v.significant = v.p < o->alpha;
	} else {
		v.significant = ra_lkp_significant(a, b);
	}
	v.regression = metrics[m].polarity && v.significant && v.change < -floor_pct;
	return v;
}

/* ---- output ---- */

static void fmt_num(char *buf, size_t len, double v, const char *unit)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (strcmp(unit, "ns") == 0)
		snprintf(buf, len, v >= 1e6 ? "%.2fms" : "%.1fus", v >= 1e6 ? v / 1e6 : v / 1e3);
	else if (fabs(v) >= 1e9)
		snprintf(buf, len, "%.2fG%s", v / 1e9, unit);
	else if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.2fM%s", v / 1e6, unit);
	else if (fabs(v) >= 1e4)
		snprintf(buf, len, "%.1fk%s", v / 1e3, unit);
	else
		snprintf(buf, len, "%.4g%s", v, unit);
}

/* A line of the model list: "  WHO: MODEL", escaped, wrapped within the page */
static void model_line(const char *who, const char *model)
{
	char *line = NULL, *e;

	if (asprintf(&line, "%s: %s", who, model) < 0)
		return;
	e = ra_text_escape(line);
	fputs("  ", stdout);
	ra_text_wrap(stdout, e ? e : "", 2, 4);
	free(e);
	free(line);
}

/* The sides' device models; once when every side has the same (one pool) */
static void print_models(const struct side *sides, int n)
{
	bool any = false, same = true;

	for (int i = 0; i < n; i++) {
		any |= sides[i].nmodels > 0;
		same &= sides[i].nmodels == sides[0].nmodels;
		for (int k = 0; same && k < sides[i].nmodels; k++)
			same = strcmp(sides[i].models[k], sides[0].models[k]) == 0;
	}
	if (!any)
		return;
	printf("\ndevice models (ra-report shows them whole):\n");
	for (int i = 0; i < (same ? 1 : n); i++)
		for (int k = 0; k < sides[i].nmodels; k++)
			model_line(same ? "every side" : sides[i].name, sides[i].models[k]);
}

/*
 * The output: two tables every format renders. "comparison", a row per
 * metric and side with the side's statistics and verdict (CSV, JSON, JUnit),
 * and "metrics", a row per metric and a column per side: the base's mean and
 * cv, the others' mean, %change and mark (text, Markdown, HTML).
 */
enum { K_METRIC, K_SIDE, K_N, K_MEAN, K_MEDIAN, K_STDDEV, K_CV, K_MIN, K_MAX, K_CHANGE, K_P,
       K_SIG, K_REG, K_INC, K_EMU, K_NCOLS };

static const char *const long_cols[K_NCOLS] = {
	"metric", "side", "n", "mean", "median", "stddev", "cv", "min", "max", "change_pct",
	"p_value", "significant", "regression", "inconclusive", "emulated",
};

struct tables {
	struct ra_table *comparison;	/* K_* columns, n rows per metric, the base first */
	int *metric;			/* the metric of each of its rows */
	struct ra_table *grid;
};

static void tables_free(struct tables *t)
{
	ra_table_free(t->comparison);
	ra_table_free(t->grid);
	free(t->metric);
	memset(t, 0, sizeof(*t));
}

/* An informational metric's significant change is a change, not an improvement */
static enum ra_mark mark_of(const struct verdict *v, int m)
{
	return v->emulated ? RA_MARK_EMULATED : v->regression ? RA_MARK_REGRESSION :
	       v->inconclusive ? RA_MARK_INCONCLUSIVE :
	       v->significant ? (metrics[m].polarity ? RA_MARK_SIGNIFICANT : RA_MARK_CHANGED) :
	       RA_MARK_NONE;
}

static const char *const mark_letter[] = {
	[RA_MARK_NONE] = "", [RA_MARK_SIGNIFICANT] = " *", [RA_MARK_REGRESSION] = " R",
	[RA_MARK_INCONCLUSIVE] = " ?", [RA_MARK_EMULATED] = " E", [RA_MARK_CHANGED] = " ~",
};

/* The row of side @i for metric @m in the comparison table, and its cell in grid row @g */
static int add_side(struct tables *t, const struct side *sides, int i, int m, int g,
		    const struct opts *o)
{
	const struct ra_summary *s = &sides[i].sum[m];
	struct verdict v = i ? judge(&sides[0], &sides[i], m, o) : (struct verdict){ .p = NAN };
	double mean = s->n ? s->mean : NAN;
	struct ra_table *c = t->comparison;
	int r = ra_table_add_row(c);
	bool ok;
	char num[32];

	if (r < 0)
		return -1;
	t->metric[r] = m;
	ok = ra_table_put_text(c, r, K_METRIC, metrics[m].name) == 0 &&
	     ra_table_put_text(c, r, K_SIDE, sides[i].name) == 0;
	ra_table_put_int(c, r, K_N, s->n);
	ra_table_put_real(c, r, K_MEAN, mean);
	ra_table_put_real(c, r, K_MEDIAN, s->n ? s->median : NAN);
	ra_table_put_real(c, r, K_STDDEV, s->n ? s->stddev : NAN);
	ra_table_put_real(c, r, K_CV, s->n ? s->cv : NAN);
	ra_table_put_real(c, r, K_MIN, s->n ? s->min : NAN);
	ra_table_put_real(c, r, K_MAX, s->n ? s->max : NAN);
	ra_table_put_real(c, r, K_CHANGE, i ? v.change : NAN);
	ra_table_put_real(c, r, K_P, v.p);
	ra_table_put_bool(c, r, K_SIG, v.significant);
	ra_table_put_bool(c, r, K_REG, v.regression);
	ra_table_put_bool(c, r, K_INC, v.inconclusive);
	ra_table_put_bool(c, r, K_EMU, v.emulated || (metrics[m].timing && sides[i].emulated));

	fmt_num(num, sizeof(num), mean, metrics[m].unit);
	ra_table_put_real(t->grid, g, 1 + i, mean);
	ra_table_mark(t->grid, g, 1 + i, mark_of(&v, m));
	if (i == 0)
		ok = ok && ra_table_show(t->grid, g, 1, "%s (cv %.1f%%)", num, s->cv * 100) == 0;
	else
		ok = ok && ra_table_show(t->grid, g, 1 + i, "%s %+.1f%%%s", num, v.change,
					 mark_letter[mark_of(&v, m)]) == 0;
	return ok ? 0 : -1;
}

/* Both tables, over the metrics the base has */
static int build_tables(struct tables *t, const struct side *sides, int n, const struct opts *o)
{
	bool ok;

	memset(t, 0, sizeof(*t));
	t->comparison = ra_table_new("comparison", NULL, K_NCOLS);
	t->grid = ra_table_new("metrics", NULL, n + 1);
	t->metric = calloc(NMETRICS * (size_t)n, sizeof(*t->metric));
	if (t->grid)	/* too wide for one block of text: each side beside the base */
		t->grid->lead = 2;
	ok = t->comparison && t->grid && t->metric &&
	     ra_table_set_col(t->grid, 0, "metric", "metric", 0) == 0;
	for (int k = 0; k < K_NCOLS && ok; k++)
		ok = ra_table_set_col(t->comparison, k, long_cols[k], NULL, 0) == 0;
	for (int i = 0; i < n && ok; i++) {
		char col[16], *head;

		snprintf(col, sizeof(col), "side_%d", i);
		ok = asprintf(&head, "%s (n=%d)%s", sides[i].name, sides[i].runs,
			      i ? "" : " base") >= 0;
		if (ok) {
			ok = ra_table_set_col(t->grid, 1 + i, col, head, 0) == 0;
			free(head);
		}
	}
	for (size_t m = 0; m < NMETRICS && ok; m++) {
		int g;

		if (!sides[0].sum[m].n)
			continue;
		g = ra_table_add_row(t->grid);
		ok = g >= 0 && ra_table_put_text(t->grid, g, 0, metrics[m].name) == 0;
		for (int i = 0; i < n && ok; i++)
			ok = add_side(t, sides, i, (int)m, g, o) == 0;
	}
	if (!ok) {
		tables_free(t);
		return fail("out of memory");
	}
	return 0;
}

/* The text table: each side's column as wide as its header, never cut. */
static void print_text(const struct tables *t, const struct side *sides, int n,
		       const struct opts *o)
{
	ra_table_text(stdout, t->grid);
	print_models(sides, n);
	printf("\n%%change: positive is better. * significant, R regression (beyond the %.0f%%"
	       " noise floor),\n? too few runs, ~ a significant change of a figure that is neither"
	       " better nor worse\n(the requests' count, size and times: they explain, the"
	       " benchmark judges)\n", o->noise);
	for (int i = 0; i < n; i++)
		if (sides[i].emulated) {
			printf("E: emulated timing, not judged: a side ran under qemu's software"
			       " emulation (vm-tcg)\n");
			break;
		}
}

/* GitHub Markdown: every cell through the Markdown escape, so none breaks the table. */
static void print_markdown(const struct tables *t, const struct side *sides, int n,
			   const struct opts *o)
{
	bool emulated = false;

	for (int i = 0; i < n; i++)
		emulated |= sides[i].emulated > 0;
	ra_table_markdown(stdout, t->grid);
	printf("\n%%change: positive is better. \\* significant, R regression (beyond the %.0f%%"
	       " noise floor), ? too few runs, \\~ a significant change of a figure that is"
	       " neither better nor worse%s\n", o->noise,
	       emulated ? ", E emulated timing (not judged)" : "");
}

static void print_csv(const struct tables *t, const struct side *sides, int n,
		      const struct opts *o)
{
	ra_table_csv(stdout, t->comparison);
}

static void json_strings(const char *const *s, int n)
{
	printf("[");
	for (int i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		ra_json_string(stdout, s[i]);
	}
	printf("]");
}

static void print_json(const struct tables *t, const struct side *sides, int n,
		       const struct opts *o)
{
	const struct ra_table *c = t->comparison;

	printf("{\n  \"ratrace_compare_version\": 1,\n  \"noise_pct\": %g,\n  \"sides\": [", o->noise);
	for (int i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		ra_json_string(stdout, sides[i].name);
	}
	printf("],\n  \"device_models\": [");
	for (int i = 0; i < n; i++) {
		const char *lines[4];

		for (int k = 0; k < sides[i].nmodels; k++)
			lines[k] = sides[i].models[k];
		printf("%s", i ? ", " : "");
		json_strings(lines, sides[i].nmodels);
	}
	printf("],\n  \"metrics\": [");
	for (int r = 0; r < c->nrows; r += n) {
		int m = t->metric[r];

		printf("%s\n    {\"metric\": ", r ? "," : "");
		ra_json_string(stdout, metrics[m].name);
		printf(", \"polarity\": %d, \"sides\": [", metrics[m].polarity);
		for (int i = 0; i < n; i++) {
			printf("%s\n      ", i ? "," : "");
			ra_table_json_row(stdout, c, r + i, "      ");
		}
		printf("\n    ]}");
	}
	printf("\n  ]\n}\n");
}

static bool cell_true(const struct ra_table *t, int r, int c)
{
	return ra_table_cell(t, r, c)->i != 0;
}

static long long cell_n(const struct ra_table *t, int r)
{
	return (long long)ra_table_cell(t, r, K_N)->i;
}

/*
 * JUnit XML, as CI systems read test results: a suite per side against the
 * base, a test case per metric (its row of the comparison table). A
 * regression is a failure; a side with too few runs is skipped (a failure
 * with --inconclusive fail); informational metrics pass and say their change.
 * The counts are those the exit status judges.
 */
static void print_junit(const struct tables *t, const struct side *sides, int n,
			const struct opts *o)
{
	const struct ra_table *c = t->comparison;
	int tests[MAX_SIDES] = { 0 }, fails[MAX_SIDES] = { 0 }, skips[MAX_SIDES] = { 0 };
	int all_tests = 0, all_fails = 0;
	bool inconclusive_fails = o->inconclusive_exit == EXIT_REGRESSION;
	char a[32], b[32];

	for (int r = 0; r < c->nrows; r++) {
		int i = r % n;
		bool reg = cell_true(c, r, K_REG), inc = cell_true(c, r, K_INC);

		if (!i)
			continue;
		tests[i]++;
		fails[i] += reg || (inc && inconclusive_fails);
		skips[i] += !reg && inc && !inconclusive_fails;
	}
	for (int i = 1; i < n; i++) {
		all_tests += tests[i];
		all_fails += fails[i];
	}
	printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	printf("<testsuites name=\"ra-compare\" tests=\"%d\" failures=\"%d\" errors=\"0\">\n",
	       all_tests, all_fails);
	for (int i = 1; i < n; i++) {
		printf("  <testsuite name=\"");
		ra_xml_text(stdout, sides[i].name);
		printf(" vs ");
		ra_xml_text(stdout, sides[0].name);
		printf("\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n", tests[i],
		       fails[i], skips[i]);
		for (int base = 0; base < c->nrows; base += n) {
			int r = base + i, m = t->metric[r];
			double change = ra_table_real(c, r, K_CHANGE), p = ra_table_real(c, r, K_P);

			fmt_num(a, sizeof(a), ra_table_real(c, base, K_MEAN), metrics[m].unit);
			fmt_num(b, sizeof(b), ra_table_real(c, r, K_MEAN), metrics[m].unit);
			printf("    <testcase classname=\"ra-compare.");
			ra_xml_text(stdout, sides[i].name);
			printf("\" name=\"%s\"", metrics[m].name);
			if (cell_true(c, r, K_REG)) {
				printf(">\n      <failure type=\"regression\" message=\"%s: %+.1f%%,"
				       " beyond the %.0f%% noise floor\">", metrics[m].name, change,
				       o->threshold[m] >= 0 ? o->threshold[m] : o->noise);
				printf("base mean %s (n=%lld), new mean %s (n=%lld)", a, cell_n(c, base),
				       b, cell_n(c, r));
				if (!isnan(p))
					printf(", Mann-Whitney p=%.4g", p);
				printf("</failure>\n    </testcase>\n");
			} else if (cell_true(c, r, K_INC)) {
				printf(">\n      <%s %smessage=\"too few runs to judge: base n=%lld, new"
				       " n=%lld\"/>\n    </testcase>\n",
				       inconclusive_fails ? "failure" : "skipped",
				       inconclusive_fails ? "type=\"inconclusive\" " : "",
				       cell_n(c, base), cell_n(c, r));
			} else {
				printf(">\n      <system-out>%s: base mean %s, new mean %s, %+.1f%%%s%s"
				       "</system-out>\n    </testcase>\n", metrics[m].name, a, b,
				       change, !metrics[m].polarity ? " (informational)" : "",
				       cell_true(c, r, K_SIG) ? " (significant)" : "");
			}
		}
		printf("  </testsuite>\n");
	}
	printf("</testsuites>\n");
}

/* The output formats: a name and a printer each. */
static const struct format {
	const char *name;
	void (*print)(const struct tables *t, const struct side *sides, int n,
		      const struct opts *o);
} formats[] = {
	{ "text", print_text },
	{ "json", print_json },
	{ "csv", print_csv },
	{ "markdown", print_markdown },
	{ "junit", print_junit },
};

static const struct format *find_format(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

/*
 * The comparison page: the metric table with the significant and regressed
 * cells marked, the device models, and the sides' charts overlaid (through
 * FILE.tmp, renamed when whole).
 */
static void html_page(FILE *f, const struct tables *t, const struct side *sides, int n,
		      const struct opts *o)
{
	ra_html_head(f, "ratrace comparison");
	fprintf(f, "<p class=\"note\">%%change: positive is better. <span class=\"sig\">significant"
		"</span>, <span class=\"reg\">regression</span> (beyond the %.0f%% noise floor),"
		" <span class=\"inc\">too few runs</span>, <span class=\"emu\">emulated timing,"
		" not judged</span>, <span class=\"chg\">a significant change of a figure that is"
		" neither better nor worse</span>.</p>\n", o->noise);
	ra_table_html(f, t->grid, NULL);
	fputs("<h2>Device models</h2>\n<ul>", f);
	for (int i = 0; i < n; i++)
		if (!sides[i].nmodels) {
			fputs("<li>", f);
			ra_html_text(f, sides[i].name);
			fputs(": no device model fitted</li>", f);
		}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < sides[i].nmodels; k++) {
			fputs("<li>", f);
			ra_html_text(f, sides[i].name);
			fputs(": ", f);
			ra_html_text(f, sides[i].models[k]);
			fputs("</li>", f);
		}
	fputs("</ul>\n", f);
	ra_experiment_html_charts(f, o->page);
	fputs("</body></html>\n", f);
}

static int write_html(const struct tables *t, const struct side *sides, int n,
		      const struct opts *o)
{
	size_t len = strlen(o->html) + 8;
	char *tmp = malloc(len);
	FILE *f;
	int ret = 0;

	if (!tmp)
		return fail("out of memory");
	snprintf(tmp, len, "%s.tmp", o->html);
	f = fopen(tmp, "we");
	if (!f) {
		ret = fail("cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return ret;
	}
	html_page(f, t, sides, n, o);
	if (ferror(f) | (fclose(f) != 0))
		ret = fail("cannot write '%s': %s", tmp, strerror(errno));
	else if (rename(tmp, o->html) < 0)
		ret = fail("cannot rename '%s': %s", tmp, strerror(errno));
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

static int verdict_exit(struct side *sides, int n, const struct opts *o)
{
	bool inconclusive = false;

	for (int i = 1; i < n; i++)
		for (size_t m = 0; m < NMETRICS; m++) {
			struct verdict v = judge(&sides[0], &sides[i], (int)m, o);

			if (v.regression)
				return EXIT_REGRESSION;
			inconclusive |= v.inconclusive;
		}
	return inconclusive ? o->inconclusive_exit : 0;
}

static int parse_threshold(struct opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *end;
	int m;

	if (!eq)
		return fail("bad --threshold '%s' (want METRIC=PCT)", arg);
	for (m = 0; m < (int)NMETRICS; m++)
		if (strlen(metrics[m].name) == (size_t)(eq - arg) &&
		    strncmp(metrics[m].name, arg, (size_t)(eq - arg)) == 0)
			break;
	if (m == (int)NMETRICS)
		return fail("unknown metric in '%s'", arg);
	o->threshold[m] = strtod(eq + 1, &end);
	if (*end || o->threshold[m] < 0)
		return fail("bad percentage in '%s'", arg);
	return 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "noise", required_argument, NULL, 'N' },
		{ "threshold", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },
		{ "inconclusive", required_argument, NULL, 'i' },
		{ "incomplete", required_argument, NULL, 'I' },
		{ "html", required_argument, NULL, 'H' },
		RA_SELECT_LONGOPTS('S'),
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c, idx;

	while ((c = getopt_long(argc, argv, "d:t:f:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'S':
			if (ra_select_option(&o->sel, longopts[idx].name, optarg) < 0)
				return fail("bad --%s '%s'", longopts[idx].name, optarg);
			break;
		case 'd':
			o->db = optarg;
			break;
		case 'N':
			o->noise = strtod(optarg, &end);
			if (*end || o->noise < 0)
				return fail("bad --noise '%s'", optarg);
			break;
		case 't':
			if (parse_threshold(o, optarg) < 0)
				return -1;
			break;
		case 'a':
			o->alpha = strtod(optarg, &end);
			if (*end || o->alpha <= 0 || o->alpha >= 1)
				return fail("bad --alpha '%s'", optarg);
			break;
		case 'f':
			o->format = find_format(optarg);
			if (!o->format)
				return fail("unknown format '%s'", optarg);
			break;
		case 'i':
			if (strcmp(optarg, "pass") == 0)
				o->inconclusive_exit = 0;
			else if (strcmp(optarg, "fail") == 0)
				o->inconclusive_exit = EXIT_REGRESSION;
			else
				return fail("bad --inconclusive '%s' (pass or fail)", optarg);
			break;
		case 'H':
			o->html = optarg;
			break;
		case 'I':
			if (strcmp(optarg, "refuse") == 0)
				o->incomplete = INCOMPLETE_REFUSE;
			else if (strcmp(optarg, "skip") == 0)
				o->incomplete = INCOMPLETE_SKIP;
			else if (strcmp(optarg, "judge") == 0)
				o->incomplete = INCOMPLETE_JUDGE;
			else
				return fail("bad --incomplete '%s' (refuse, skip or judge)", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("ra-compare (ratrace) %s\n", RA_VERSION);
			exit(0);
		default:
			fputs(usage_text, stderr);
			return -1;
		}
	}
	if (argc - optind < 2)
		return fail("give at least two sides: BASE NEW");
	if (argc - optind > MAX_SIDES)
		return fail("too many sides");
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .noise = 5, .alpha = 0.05, .format = &formats[0],
			  .inconclusive_exit = EXIT_INCONCLUSIVE };
	struct side sides[MAX_SIDES] = { 0 };
	struct tables t = { 0 };
	int n, ret = EXIT_ERROR;

	for (size_t m = 0; m < NMETRICS; m++)
		o.threshold[m] = -1;
	if (parse(&o, argc, argv) < 0)
		return EXIT_ERROR;
	n = argc - optind;
	if (o.html && !(o.page = ra_experiment_sides())) {
		fail("out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (parse_side(&sides[i], argv[optind + i], o.db ? o.db : sides[0].db_path) < 0 ||
		    load_side(&sides[i], &o) < 0)
			goto out;
	if (build_tables(&t, sides, n, &o) < 0)
		goto out;
	if (o.html && write_html(&t, sides, n, &o) < 0)
		goto out;
	o.format->print(&t, sides, n, &o);
	ret = verdict_exit(sides, n, &o);
out:
	tables_free(&t);
	ra_experiment_free(o.page);
	for (int i = 0; i < n; i++) {
		free(sides[i].db_path);
		free(sides[i].db_shown);
		free(sides[i].label);
		free(sides[i].name);
		free(sides[i].ids);
		free(sides[i].set_runs);
		free(sides[i].sel_runs);
		for (size_t m = 0; m < NMETRICS; m++)
			free(sides[i].values[m]);
	}
	return ret;
}
