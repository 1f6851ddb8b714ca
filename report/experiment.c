// SPDX-License-Identifier: LGPL-2.1
/*
 * The experiment: the runs of a database grouped into run sets by what they
 * varied (v_run_params, the repeat left out), one row per set, and the
 * matrix of two dimensions, as the read_ahead_kb tables of the kernel's
 * readahead discussions were laid out. Parameters that vary in lockstep (a
 * --sweep-env variable that sets fio's numjobs, and numjobs) are one
 * dimension, named by the one that says most. The label is a parameter of
 * last resort: runs that differ in nothing known (imported ones) differ by it.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "ra_sql.h"
#include "report.h"

static void params_free(struct param *p, int n)
{
	for (int i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].scope);
		free(p[i].value);
	}
	free(p);
}

void ra_experiment_free(struct ra_experiment *x)
{
	if (!x)
		return;
	for (int i = 0; i < x->nsets; i++) {
		params_free(x->sets[i].params, x->sets[i].nparams);
		free(x->sets[i].runs);
		free(x->sets[i].key);
		free(x->sets[i].label);
	}
	for (int d = 0; d < x->ndims; d++) {
		free(x->dims[d]);
		free(x->dim_name[d]);
		free(x->dim_scope[d]);
	}
	free(x->sets);
	free(x);
}

/* A run's parameters, sorted, and their key ("name\x1fscope\x1fvalue\x1e..."). */
static int run_params(struct ra_db *db, int64_t run, struct param **out, int *n, char **key)
{
	struct ra_stmt *st;
	size_t klen = 0;
	FILE *k = open_memstream(key, &klen);
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (!k)
		return -1;
	/* the label too, last: runs that differ in nothing else (imported) differ by it */
	st = ra_sql_prepare(db, "SELECT name, scope, value FROM (SELECT DISTINCT name, scope,"
			    " value FROM v_run_params WHERE run_id = ?1 AND name != 'repeat'"
			    " UNION ALL SELECT 'label', '', label FROM runs WHERE run_id = ?1"
			    " AND label IS NOT NULL) ORDER BY name, scope, value");
	if (!st || ra_sql_bind(st, "i", run) < 0) {
		ra_sql_finalize(st);
		fclose(k);
		return -1;
	}
	while (*n < MAX_PARAMS && (rc = ra_sql_step(st)) == 1) {
		struct param *p = realloc(*out, (size_t)(*n + 1) * sizeof(*p));
		const char *f[3];

		if (!p) {
			rc = -1;
			break;
		}
		*out = p;
		ra_sql_row(st, "ttt", &f[0], &f[1], &f[2]);
		p[*n] = (struct param){ strdup(f[0] ? f[0] : ""), strdup(f[1] ? f[1] : ""),
					strdup(f[2] ? f[2] : "") };
		if (!p[*n].name || !p[*n].scope || !p[*n].value) {
			rc = -1;
			break;
		}
		(*n)++;
	}
	ra_sql_finalize(st);
	/*
	 * A device's setting is the run's when it is the run's only one of its
	 * name: read_ahead_kb 128 of loop0 and of a guest's vda are one value.
	 */
	for (int i = 0; i < *n; i++) {
		struct param *p = *out;
		bool alone = strcmp(p[i].name, "env") != 0 && p[i].scope[0];

		for (int j = 0; j < *n && alone; j++)
			alone = j == i || strcmp(p[j].name, p[i].name) != 0;
		if (alone && strcmp(p[i].scope, "fio") != 0)
			p[i].scope[0] = '\0';
		fprintf(k, "%s\x1f%s\x1f%s\x1e", p[i].name, p[i].scope, p[i].value);
	}
	if (fclose(k) != 0)
		return -1;
	return rc < 0 ? -1 : 0;
}

static const char *param_value(const struct xset *s, const char *name, const char *scope)
{
	for (int i = 0; i < s->nparams; i++)
		if (strcmp(s->params[i].name, name) == 0 && strcmp(s->params[i].scope, scope) == 0)
			return s->params[i].value;
	return NULL;
}

/* How much a parameter says, for naming a dimension: lower is first. */
static int rank(const char *name, const char *scope)
{
	static const char *const order[] = { "read_ahead_kb", "kernel", "numjobs", "bs",
					     "iodepth", "rw", "ioengine", "throttle_iops",
					     "throttle_bps" };

	(void)scope;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (strcmp(name, order[i]) == 0)
			return (int)i;
	return strcmp(name, "label") == 0 ? 200 : strcmp(name, "env") == 0 ? 100 : 50;
}

/*
 * Does dimension @b follow from the dimensions before it (0 .. @b - 1): any
 * two sets equal in all of those equal in @b too? Then it tells nothing more
 * (a variable that sets numjobs, a label naming the settings).
 */
static bool follows(const struct ra_experiment *x, int b)
{
	for (int i = 0; i < x->nsets; i++)
		for (int j = 0; j < i; j++) {
			bool same = true;

			for (int a = 0; a < b && same; a++)
				same = strcmp(x->sets[i].values[a], x->sets[j].values[a]) == 0;
			if (same && strcmp(x->sets[i].values[b], x->sets[j].values[b]) != 0)
				return false;
		}
	return b > 0;
}

static int add_dim(struct ra_experiment *x, const char *name, const char *scope)
{
	int d = x->ndims;

	if (d == MAX_DIMS)
		return 0;
	for (int i = 0; i < d; i++)
		if (strcmp(x->dim_name[i], name) == 0 && strcmp(x->dim_scope[i], scope) == 0)
			return 0;
	x->dim_name[d] = strdup(name);
	x->dim_scope[d] = strdup(scope);
	if (!x->dim_name[d] || !x->dim_scope[d])
		return -1;
	x->ndims++;
	for (int i = 0; i < x->nsets; i++) {
		const char *v = param_value(&x->sets[i], name, scope);

		x->sets[i].values[d] = v ? v : "-";
	}
	return 0;
}

static void drop_dim(struct ra_experiment *x, int d)
{
	free(x->dim_name[d]);
	free(x->dim_scope[d]);
	for (int i = d; i + 1 < x->ndims; i++) {
		x->dim_name[i] = x->dim_name[i + 1];
		x->dim_scope[i] = x->dim_scope[i + 1];
		for (int s = 0; s < x->nsets; s++)
			x->sets[s].values[i] = x->sets[s].values[i + 1];
	}
	x->ndims--;
}

/* The parameters whose values differ between sets, lockstep ones merged, by rank. */
static int find_dims(struct ra_experiment *x)
{
	for (int i = 0; i < x->nsets; i++)
		for (int p = 0; p < x->sets[i].nparams; p++) {
			const struct param *q = &x->sets[i].params[p];
			bool varies = false;

			for (int j = 0; j < x->nsets && !varies; j++) {
				const char *v = param_value(&x->sets[j], q->name, q->scope);

				varies = !v || strcmp(v, q->value) != 0;
			}
			if (varies && add_dim(x, q->name, q->scope) < 0)
				return -1;
		}
	/* by rank (insertion sort keeps the values with their dimension) */
	for (int i = 1; i < x->ndims; i++)
		for (int j = i; j > 0 && rank(x->dim_name[j], x->dim_scope[j]) <
					      rank(x->dim_name[j - 1], x->dim_scope[j - 1]);
		     j--) {
			char *t = x->dim_name[j];

			x->dim_name[j] = x->dim_name[j - 1];
			x->dim_name[j - 1] = t;
			t = x->dim_scope[j];
			x->dim_scope[j] = x->dim_scope[j - 1];
			x->dim_scope[j - 1] = t;
			for (int s = 0; s < x->nsets; s++) {
				const char *v = x->sets[s].values[j];

				x->sets[s].values[j] = x->sets[s].values[j - 1];
				x->sets[s].values[j - 1] = v;
			}
		}
	for (int j = x->ndims - 1; j > 0; j--)
		if (follows(x, j))
			drop_dim(x, j);
	/* display names: the variable of env, a scope where one name has several */
	for (int d = 0; d < x->ndims; d++) {
		bool twice = false;
		int n;

		for (int e = 0; e < x->ndims; e++)
			twice |= e != d && strcmp(x->dim_name[e], x->dim_name[d]) == 0;
		if (strcmp(x->dim_name[d], "env") == 0)
			n = asprintf(&x->dims[d], "%s", x->dim_scope[d]);
		else if (twice)
			n = asprintf(&x->dims[d], "%s[%s]", x->dim_name[d], x->dim_scope[d]);
		else
			n = asprintf(&x->dims[d], "%s", x->dim_name[d]);
		if (n < 0) {
			x->dims[d] = NULL;
			return -1;
		}
	}
	return 0;
}

/* The mean of a metric over the set's runs that have it (NAN for none). */
static double set_mean(struct ra_stmt *st, const struct xset *s, const char *metric, bool max)
{
	double sum = 0, best = NAN;
	int n = 0;

	for (int i = 0; i < s->nruns; i++) {
		double v;

		if (ra_sql_bind(st, "it", s->runs[i], metric) == 0 && ra_sql_step(st) == 1 &&
		    !ra_sql_null(st, 0)) {
			ra_sql_row(st, "f", &v);
			sum += v;
			best = isnan(best) || v > best ? v : best;
			n++;
		}
		ra_sql_reset(st);
	}
	return !n ? NAN : max ? best : sum / n;
}

static int prepare_figures(struct ra_db *db, struct ra_stmt **m, struct ra_stmt **stl)
{
	*m = ra_sql_prepare(db, "SELECT value FROM v_run_metrics WHERE run_id = ?1 AND metric = ?2");
	*stl = ra_sql_prepare(db, "SELECT COUNT(*) FROM stalls WHERE run_id = ?1 AND ?2 IS NOT NULL");
	return *m && *stl ? 0 : -1;
}

/* Does every run of @s have fio's read_bw_bytes? */
static bool has_bench(struct ra_stmt *m, const struct xset *s)
{
	bool bench = true;

	for (int r = 0; r < s->nruns && bench; r++) {
		bench = ra_sql_bind(m, "it", s->runs[r], "read_bw_bytes") == 0 && ra_sql_step(m) == 1;
		ra_sql_reset(m);
	}
	return bench;
}

static void figures_of(struct ra_stmt *m, struct ra_stmt *stl, const char *metric, struct xset *s)
{
	double inv = 0;

	s->tput_n = 0;
	s->tput_min = s->tput_max = NAN;
	for (int r = 0; r < s->nruns; r++) {
		double v = 0;

		if (ra_sql_bind(m, "it", s->runs[r], metric) == 0 && ra_sql_step(m) == 1)
			ra_sql_row(m, "f", &v);
		if (v > 0) {
			inv += 1 / v;
			s->tput_min = s->tput_n && s->tput_min < v ? s->tput_min : v;
			s->tput_max = s->tput_n && s->tput_max > v ? s->tput_max : v;
			s->tput_n++;
		}
		ra_sql_reset(m);
	}
	s->tput_hmean = s->tput_n ? s->tput_n / inv : NAN;
	s->max_lat_ns = set_mean(m, s, "read_clat_max_ns", true);
	s->hit = set_mean(m, s, "hit_ratio", false);
	s->thrashed = set_mean(m, s, "thrashed_pages", false);
	s->windows = set_mean(m, s, "windows", false);
	s->ra_bytes = set_mean(m, s, "ra_avg_bytes", false);
	s->stalls = set_mean(stl, s, "stalls", false);
}

static int set_figures(struct ra_db *db, struct ra_experiment *x)
{
	struct ra_stmt *m = NULL, *stl = NULL;
	bool bench = true;
	int ret = -1;

	if (prepare_figures(db, &m, &stl) < 0)
		goto out;
	/* the benchmark's own throughput where every run has it, else the device's */
	for (int i = 0; i < x->nsets && bench; i++)
		bench = has_bench(m, &x->sets[i]);
	x->tput_metric = bench ? "read_bw_bytes" : "device_read_bw_bytes";
	for (int i = 0; i < x->nsets; i++)
		figures_of(m, stl, x->tput_metric, &x->sets[i]);
	ret = 0;
out:
	ra_sql_finalize(m);
	ra_sql_finalize(stl);
	return ret;
}

/*
 * What the experiment page draws per set: the D2C histogram summed over its
 * runs, and the window sizes of the busiest stream of its first run.
 */
static int prepare_charts(struct ra_db *db, struct ra_stmt **h, struct ra_stmt **w)
{
	*h = ra_sql_prepare(db, "SELECT lo_ns, n FROM latency_hist WHERE run_id = ?1"
			    " AND interval = 'D2C'");
	*w = ra_sql_prepare(db, "SELECT size_pages FROM windows WHERE run_id = ?1"
			    " AND stream_id = (SELECT stream_id FROM windows WHERE run_id = ?1"
			    " GROUP BY stream_id ORDER BY COUNT(*) DESC, stream_id LIMIT 1)"
			    " ORDER BY window_id LIMIT ?2");
	return *h && *w ? 0 : -1;
}

static void charts_of(struct ra_stmt *h, struct ra_stmt *w, struct xset *s)
{
	for (int r = 0; r < s->nruns; r++) {
		if (ra_sql_bind(h, "i", s->runs[r]) == 0)
			while (ra_sql_step(h) == 1) {
				double lo, n;
				int b;

				ra_sql_row(h, "ff", &lo, &n);
				b = lo >= 1 ? (int)log2(lo) : 0;
				s->lat[b < X_BUCKETS ? b : X_BUCKETS - 1] += n;
			}
		ra_sql_reset(h);
	}
	if (!s->nruns)
		return;
	if (ra_sql_bind(w, "ix", s->runs[0], X_BUCKETS) == 0)
		while (s->nramp < X_BUCKETS && ra_sql_step(w) == 1)
			ra_sql_row(w, "f", &s->ramp[s->nramp++]);
	ra_sql_reset(w);
}

static int set_charts(struct ra_db *db, struct ra_experiment *x)
{
	struct ra_stmt *h = NULL, *w = NULL;
	int ret = -1;

	if (prepare_charts(db, &h, &w) == 0) {
		for (int i = 0; i < x->nsets; i++)
			charts_of(h, w, &x->sets[i]);
		ret = 0;
	}
	ra_sql_finalize(h);
	ra_sql_finalize(w);
	return ret;
}

static int set_label(struct ra_experiment *x, struct xset *s)
{
	size_t len = 0;
	FILE *f = open_memstream(&s->label, &len);

	if (!f)
		return -1;
	for (int d = 0; d < x->ndims; d++)
		fprintf(f, "%s%s=%s", d ? " " : "", x->dims[d], s->values[d]);
	if (!x->ndims)
		fputs("(all runs)", f);
	return fclose(f);
}

struct ra_experiment *ra_experiment_load(struct ra_db *db, const int64_t *ids, int n)
{
	struct ra_experiment *x = calloc(1, sizeof(*x));

	if (!x || !(x->sets = calloc((size_t)(n ? n : 1), sizeof(*x->sets))))
		goto fail;
	for (int i = 0; i < n; i++) {
		struct param *p;
		char *key;
		int np, s;

		if (run_params(db, ids[i], &p, &np, &key) < 0) {
			params_free(p, np);
			free(key);
			goto fail;
		}
		for (s = 0; s < x->nsets && strcmp(x->sets[s].key, key) != 0; s++)
			;
		if (s == x->nsets) {
			x->sets[s] = (struct xset){ .params = p, .nparams = np, .key = key };
			x->nsets++;
		} else {
			params_free(p, np);
			free(key);
		}
		int64_t *r = realloc(x->sets[s].runs, (size_t)(x->sets[s].nruns + 1) * sizeof(*r));

		if (!r)
			goto fail;
		x->sets[s].runs = r;
		r[x->sets[s].nruns++] = ids[i];
	}
	if (find_dims(x) < 0 || set_figures(db, x) < 0 || set_charts(db, x) < 0)
		goto fail;
	for (int s = 0; s < x->nsets; s++)
		if (set_label(x, &x->sets[s]) != 0)
			goto fail;
	return x;
fail:
	ra_set_error(RA_ERR_IO, "cannot read the run sets of '%s': %s", ra_db_path(db),
		     ra_sql_why(db));
	ra_experiment_free(x);
	return NULL;
}

int ra_experiment_set_runs(struct ra_db *db, const char *label, int64_t **runs)
{
	struct ra_stmt *st = ra_sql_prepare(db, "SELECT run_id FROM runs ORDER BY run_id");
	int64_t *ids = NULL;
	int n = 0, rc = st ? 1 : -1, found = 0;
	struct ra_experiment *x;

	*runs = NULL;
	while (rc == 1 && (rc = ra_sql_step(st)) == 1) {
		int64_t *p = realloc(ids, (size_t)(n + 1) * sizeof(*p));

		if (!p) {
			rc = -1;
			break;
		}
		ids = p;
		ra_sql_row(st, "i", &ids[n++]);
	}
	ra_sql_finalize(st);
	if (rc != 0)
		goto fail;
	x = ra_experiment_load(db, ids, n);
	free(ids);
	if (!x)
		return -1;
	for (int s = 0; s < x->nsets && !found; s++)
		if (strcmp(x->sets[s].label, label) == 0) {
			found = x->sets[s].nruns;
			*runs = malloc((size_t)found * sizeof(**runs));
			if (!*runs)
				found = -1;
			else
				memcpy(*runs, x->sets[s].runs, (size_t)found * sizeof(**runs));
		}
	ra_experiment_free(x);
	if (found < 0)
		ra_set_error(RA_ERR_IO, "out of memory");
	return found;
fail:
	free(ids);
	ra_set_error(RA_ERR_IO, "cannot read the runs of '%s': %s", ra_db_path(db), ra_sql_why(db));
	return -1;
}

struct ra_experiment *ra_experiment_sides(void)
{
	struct ra_experiment *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->ndims = 1;
	x->dims[0] = strdup("side");
	x->dim_name[0] = strdup("side");
	x->dim_scope[0] = strdup("");
	if (!x->dims[0] || !x->dim_name[0] || !x->dim_scope[0]) {
		ra_experiment_free(x);
		return NULL;
	}
	return x;
}

int ra_experiment_add_side(struct ra_experiment *x, struct ra_db *db, const int64_t *ids, int n,
			   const char *name)
{
	struct ra_stmt *m = NULL, *stl = NULL, *h = NULL, *w = NULL;
	struct xset *sets = realloc(x->sets, (size_t)(x->nsets + 1) * sizeof(*sets)), *s;
	int ret = -1;

	if (!sets)
		return -1;
	x->sets = sets;
	s = &sets[x->nsets];
	memset(s, 0, sizeof(*s));
	s->label = strdup(name);
	s->runs = malloc((size_t)(n ? n : 1) * sizeof(*s->runs));
	if (!s->label || !s->runs) {
		free(s->label);
		free(s->runs);
		return -1;
	}
	memcpy(s->runs, ids, (size_t)n * sizeof(*ids));
	s->nruns = n;
	s->values[0] = s->label;
	x->nsets++;
	if (prepare_figures(db, &m, &stl) == 0 && prepare_charts(db, &h, &w) == 0) {
		/* the first side decides the throughput metric of all */
		if (!x->tput_metric)
			x->tput_metric = has_bench(m, s) ? "read_bw_bytes" : "device_read_bw_bytes";
		figures_of(m, stl, x->tput_metric, s);
		charts_of(h, w, s);
		ret = 0;
	}
	if (ret < 0)
		ra_set_error(RA_ERR_IO, "cannot read the runs of '%s': %s", ra_db_path(db),
			     ra_sql_why(db));
	ra_sql_finalize(m);
	ra_sql_finalize(stl);
	ra_sql_finalize(h);
	ra_sql_finalize(w);
	return ret;
}

int ra_experiment_sets(const struct ra_experiment *x)
{
	return x->nsets;
}

/* ---- output: the tables every form renders ---- */

/* The figures of a set: column name, header, scale and decimals of what people read */
static const struct figure {
	const char *col, *head;
	double scale;
	int digits;
	size_t off;
} figures[] = {
	{ "throughput_hmean_bps", "MB/s", 1e6, 1, offsetof(struct xset, tput_hmean) },
	{ "throughput_min_bps", "min", 1e6, 1, offsetof(struct xset, tput_min) },
	{ "throughput_max_bps", "max", 1e6, 1, offsetof(struct xset, tput_max) },
	{ "max_latency_ns", "lat ms", 1e6, 2, offsetof(struct xset, max_lat_ns) },
	{ "hit_ratio", "hit", 1, 3, offsetof(struct xset, hit) },
	{ "thrashed_pages", "thrash", 1, 0, offsetof(struct xset, thrashed) },
	{ "windows", "windows", 1, 0, offsetof(struct xset, windows) },
	{ "ra_avg_bytes", "ra KiB", 1024, 0, offsetof(struct xset, ra_bytes) },
	{ "stalls", "stalls", 1, 1, offsetof(struct xset, stalls) },
};
#define NFIGURES (int)(sizeof(figures) / sizeof(figures[0]))

/* The sets table's columns: the label, the dimensions, n, the figures, the runs */
#define COL_LABEL 0
#define COL_DIM(d) (1 + (d))
#define COL_N(x) (1 + (x)->ndims)
#define COL_FIG(x, k) (2 + (x)->ndims + (k))
#define COL_RUNS(x) (2 + (x)->ndims + NFIGURES)

static int set_row(struct ra_table *t, const struct ra_experiment *x, const struct xset *s)
{
	int r = ra_table_add_row(t), ok;
	char *runs = NULL;
	size_t len = 0;
	FILE *f;

	if (r < 0 || !(f = open_memstream(&runs, &len)))
		return -1;
	for (int i = 0; i < s->nruns; i++)
		fprintf(f, "%s%lld", i ? " " : "", (long long)s->runs[i]);
	ok = fclose(f) == 0 && ra_table_put_text(t, r, COL_LABEL, s->label) == 0 &&
	     ra_table_put_int(t, r, COL_N(x), s->nruns) == 0 &&
	     ra_table_put_text(t, r, COL_RUNS(x), runs) == 0;
	free(runs);
	for (int d = 0; d < x->ndims && ok; d++)
		ok = ra_table_put_text(t, r, COL_DIM(d), s->values[d]) == 0;
	for (int k = 0; k < NFIGURES && ok; k++) {
		double v = *(const double *)((const char *)s + figures[k].off);

		ra_table_put_real(t, r, COL_FIG(x, k), v);
		if (isfinite(v))
			ok = ra_table_show(t, r, COL_FIG(x, k), "%.*f", figures[k].digits,
					   v / figures[k].scale) == 0;
	}
	return ok ? 0 : -1;
}

struct ra_table *ra_experiment_sets_table(const struct ra_experiment *x)
{
	struct ra_table *t = ra_table_new("sets", NULL, COL_RUNS(x) + 1);
	bool ok = t && ra_table_set_title(t, "Experiment: %d run sets, throughput %s (harmonic"
					  " mean over the set's runs, MB/s)", x->nsets,
					  x->tput_metric) == 0;

	ok = ok && ra_table_set_col(t, COL_LABEL, "label", "run set", 0) == 0 &&
	     ra_table_set_col(t, COL_N(x), "n", "n", 0) == 0 &&
	     ra_table_set_col(t, COL_RUNS(x), "runs", "runs", RA_COL_RUNS) == 0;
	for (int d = 0; d < x->ndims && ok; d++)
		ok = ra_table_set_col(t, COL_DIM(d), x->dims[d], x->dims[d], 0) == 0;
	for (int k = 0; k < NFIGURES && ok; k++)
		ok = ra_table_set_col(t, COL_FIG(x, k), figures[k].col, figures[k].head, 0) == 0;
	for (int s = 0; s < x->nsets && ok; s++)
		ok = set_row(t, x, &x->sets[s]) == 0;
	if (!ok) {
		ra_table_free(t);
		return NULL;
	}
	return t;
}

/* Numbers sort as numbers, the rest as text. */
static int cmp_values(const char *a, const char *b)
{
	char *ea, *eb;
	double x = strtod(a, &ea), y = strtod(b, &eb);

	if (ea != a && !*ea && eb != b && !*eb)
		return x < y ? -1 : x > y;
	return strcmp(a, b);
}

/* The distinct values of dimension @d in order; returns their count. */
#define MATRIX_MAX 256

/* The matrix of an experiment of two dimensions: the values of each, in order. */
struct matrix {
	const char *rows[MATRIX_MAX], *cols[MATRIX_MAX];
	int nr, nc;
};

/* The distinct values of dimension @d in order; their count, or -1 past MATRIX_MAX. */
static int dim_values(const struct ra_experiment *x, int d, const char **out)
{
	int n = 0;

	for (int s = 0; s < x->nsets; s++) {
		const char *v = x->sets[s].values[d];
		int i;

		for (i = 0; i < n && strcmp(out[i], v) != 0; i++)
			;
		if (i < n)
			continue;
		if (n == MATRIX_MAX)
			return -1;
		for (i = n++; i > 0 && cmp_values(out[i - 1], v) > 0; i--)
			out[i] = out[i - 1];
		out[i] = v;
	}
	return n;
}

/* Whether @x has a matrix (two dimensions, MATRIX_MAX values each at most): into @m. */
static bool matrix_of(const struct ra_experiment *x, struct matrix *m)
{
	if (x->ndims != 2)
		return false;
	m->nr = dim_values(x, 0, m->rows);
	m->nc = dim_values(x, 1, m->cols);
	return m->nr > 0 && m->nc > 0;
}

static const struct xset *set_at(const struct ra_experiment *x, const char *a, const char *b)
{
	for (int s = 0; s < x->nsets; s++)
		if (strcmp(x->sets[s].values[0], a) == 0 && strcmp(x->sets[s].values[1], b) == 0)
			return &x->sets[s];
	return NULL;
}

struct ra_table *ra_experiment_matrix_table(const struct ra_experiment *x)
{
	struct matrix mx;
	struct ra_table *t;
	bool ok;

	if (!matrix_of(x, &mx) || !(t = ra_table_new("matrix", NULL, mx.nc + 1)))
		return NULL;
	ok = ra_table_set_title(t, "Throughput, MB/s (harmonic mean of n runs): rows %s, columns"
				" %s", x->dims[0], x->dims[1]) == 0 &&
	     ra_table_set_col(t, 0, x->dims[0], x->dims[0], 0) == 0;
	for (int k = 0; k < mx.nc && ok; k++)
		ok = ra_table_set_col(t, k + 1, mx.cols[k], mx.cols[k], 0) == 0;
	for (int r = 0; r < mx.nr && ok; r++) {
		int row = ra_table_add_row(t);

		ok = row >= 0 && ra_table_put_text(t, row, 0, mx.rows[r]) == 0;
		for (int k = 0; k < mx.nc && ok; k++) {
			const struct xset *s = set_at(x, mx.rows[r], mx.cols[k]);

			if (!s || !s->tput_n || !isfinite(s->tput_hmean))
				continue;
			ra_table_put_real(t, row, k + 1, s->tput_hmean);
			ok = ra_table_show(t, row, k + 1, "%.1f (%d)", s->tput_hmean / 1e6,
					   s->tput_n) == 0;
		}
	}
	if (!ok) {
		ra_table_free(t);
		return NULL;
	}
	return t;
}

#define WIDTH 100

/* The columns a column of @t takes in text: its widest escaped cell or header */
static int text_width(const struct ra_table *t, int c)
{
	char *e = ra_text_escape(ra_table_head(t, c));
	int w = e ? ra_text_width(e) : 0;

	free(e);
	for (int r = 0; r < t->nrows; r++) {
		char *s = ra_table_shown(t, r, c);

		e = s ? ra_text_escape(s) : NULL;
		if (e && ra_text_width(e) > w)
			w = ra_text_width(e);
		free(e);
		free(s);
	}
	return w;
}

/*
 * Which columns of the sets table the forms for people show: a column per
 * dimension (text: when they fit in the page, else the set's label, wrapped),
 * the runs only where they link to the runs' pages.
 */
enum form { FORM_TEXT, FORM_MARKDOWN, FORM_HTML };

static void sets_view(struct ra_table *t, const struct ra_experiment *x, enum form form)
{
	bool by_dim = x->ndims > 0 && form != FORM_MARKDOWN;

	if (by_dim && form == FORM_TEXT) {
		int used = 0;

		for (int c = COL_DIM(0); c < COL_RUNS(x); c++)
			used += text_width(t, c) + (c > COL_DIM(0) ? 2 : 0);
		by_dim = used <= WIDTH;
	}
	t->flags[COL_LABEL] = by_dim ? RA_COL_HIDDEN : 0;
	for (int d = 0; d < x->ndims; d++)
		t->flags[COL_DIM(d)] = by_dim ? 0 : RA_COL_HIDDEN;
	t->flags[COL_RUNS(x)] = RA_COL_RUNS | (form == FORM_HTML ? 0 : RA_COL_HIDDEN);
}

/*
 * What every set has alike (the kernel, fio's bs and rw, the throttle): the
 * context a table of sets needs to be read elsewhere. Each goes to @put as
 * its name (the variable of env, NAME[SCOPE] for a scoped one) and value.
 */
static void common_params(const struct ra_experiment *x,
			  void (*put)(void *ctx, const char *name, const char *value), void *ctx)
{
	for (int p = 0; x->nsets && p < x->sets[0].nparams; p++) {
		const struct param *q = &x->sets[0].params[p];
		bool same = strcmp(q->name, "repeat") != 0;
		char *name;
		int n;

		for (int j = 1; j < x->nsets && same; j++) {
			const char *v = param_value(&x->sets[j], q->name, q->scope);

			same = v && strcmp(v, q->value) == 0;
		}
		if (!same)
			continue;
		if (strcmp(q->name, "env") == 0)
			n = asprintf(&name, "%s", q->scope);
		else if (*q->scope && strcmp(q->scope, "fio") != 0)
			n = asprintf(&name, "%s[%s]", q->name, q->scope);
		else
			n = asprintf(&name, "%s", q->name);
		if (n >= 0) {
			put(ctx, name, q->value);
			free(name);
		}
	}
}

struct joined {
	FILE *f;
	const char *sep;
	bool json;
};

static void put_common(void *ctx, const char *name, const char *value)
{
	struct joined *j = ctx;

	fputs(j->sep, j->f);
	if (j->json) {
		ra_json_string(j->f, name);
		fputs(": ", j->f);
		ra_json_string(j->f, value);
	} else {
		fprintf(j->f, "%s=%s", name, value);
	}
	j->sep = ", ";
}

/* The common parameters as "NAME=VALUE, ...", to free(); "" when there are none */
static char *constants(const struct ra_experiment *x)
{
	char *buf = NULL;
	size_t len = 0;
	struct joined j = { .f = open_memstream(&buf, &len), .sep = "" };

	if (!j.f)
		return NULL;
	common_params(x, put_common, &j);
	if (fclose(j.f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void context(FILE *out, const struct ra_experiment *x, enum form form)
{
	char *c = constants(x), *e;

	if (!c || !*c) {
		free(c);
		return;
	}
	if (form == FORM_TEXT && (e = ra_text_escape(c))) {
		fputs("\nCommon to every set: ", out);
		ra_text_wrap(out, e, 21, 2);
		free(e);
	} else if (form == FORM_MARKDOWN) {
		fputs("\nCommon to every set: ", out);
		ra_md_cell(out, c);
		fputc('\n', out);
	} else if (form == FORM_HTML) {
		fputs("<p class=\"note\">Common to every set: ", out);
		ra_xml_text(out, c);
		fputs("</p>\n", out);
	}
	free(c);
}

/* The report's tables of the device model and its advice */
static const char *const model_keys[] = { "model", "predictions", "advice", NULL };

static void model_section(FILE *out, const struct ra_report *model, enum form form)
{
	if (form == FORM_TEXT) {
		fprintf(out, "Device model and advice (run %lld, all runs of its pool)\n",
			(long long)model->run_id);
		ra_report_text_tables(out, model, model_keys);
		fputc('\n', out);
		return;
	}
	fprintf(out, "\n### Device model and advice (run %lld, all runs of its pool)\n",
		(long long)model->run_id);
	ra_report_markdown_tables(out, model, model_keys);
}

/* The forms of the experiment: its tables through the renderers; -1 out of memory */
static int render(FILE *out, const struct ra_experiment *x, enum form form, const char *stem,
		  const struct ra_report *model)
{
	struct ra_table *sets = ra_experiment_sets_table(x), *mx = ra_experiment_matrix_table(x);
	int ret = sets ? 0 : -1;

	if (sets) {
		sets_view(sets, x, form);
		if (form == FORM_TEXT)
			ra_table_text(out, sets);
		else if (form == FORM_MARKDOWN)
			ra_table_markdown(out, sets);
		else
			ra_table_html(out, sets, stem);
		context(out, x, form);
	}
	if (mx && form == FORM_TEXT)
		ra_table_text(out, mx);
	else if (mx && form == FORM_MARKDOWN)
		ra_table_markdown(out, mx);
	else if (mx)
		ra_table_html(out, mx, NULL);
	else if (x->ndims > 2 && form == FORM_TEXT)
		fprintf(out, "\n(no matrix: %d dimensions vary, the matrix shows two)\n", x->ndims);
	if (form == FORM_TEXT)
		fputc('\n', out);
	if (model && form != FORM_HTML)
		model_section(out, model, form);
	ra_table_free(sets);
	ra_table_free(mx);
	return ret;
}

int ra_experiment_text(FILE *out, const struct ra_experiment *x, const struct ra_report *model)
{
	return render(out, x, FORM_TEXT, NULL, model);
}

int ra_experiment_markdown(FILE *out, const struct ra_experiment *x,
			   const struct ra_report *model)
{
	return render(out, x, FORM_MARKDOWN, NULL, model);
}

int ra_experiment_html(FILE *out, const struct ra_experiment *x, const struct ra_report *model,
		       const char *stem)
{
	ra_html_head(out, "ratrace experiment");
	fputs("<h2>Run sets</h2>\n", out);
	if (render(out, x, FORM_HTML, stem, NULL) < 0)
		return -1;
	ra_experiment_html_charts(out, x);
	if (model)
		ra_html_model(out, model);
	fputs("</body></html>\n", out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* The JSON: the sets with their dimensions' values and runs, the matrix as arrays */
int ra_experiment_json(FILE *out, const struct ra_experiment *x, const struct ra_report *model)
{
	struct ra_table *t = ra_experiment_sets_table(x), *mx = ra_experiment_matrix_table(x);

	if (!t) {
		ra_table_free(mx);
		return -1;
	}
	fprintf(out, "{\"experiment\": {\"throughput_metric\": \"%s\", \"dimensions\": [",
		x->tput_metric);
	for (int d = 0; d < x->ndims; d++) {
		fputs(d ? ", " : "", out);
		ra_json_string(out, x->dims[d]);
	}
	fputs("],\n  \"common\": {", out);
	common_params(x, put_common, &(struct joined){ .f = out, .sep = "", .json = true });
	fputs("},\n  \"sets\": [", out);
	for (int r = 0; r < t->nrows; r++) {
		const struct xset *e = &x->sets[r];

		fputs(r ? ",\n    {\"label\": " : "\n    {\"label\": ", out);
		ra_table_json_value(out, ra_table_cell(t, r, COL_LABEL));
		fputs(", \"values\": {", out);
		for (int d = 0; d < x->ndims; d++) {
			fputs(d ? ", " : "", out);
			ra_json_string(out, t->cols[COL_DIM(d)]);
			fputs(": ", out);
			ra_table_json_value(out, ra_table_cell(t, r, COL_DIM(d)));
		}
		fputs("}, \"runs\": [", out);
		for (int k = 0; k < e->nruns; k++)
			fprintf(out, "%s%lld", k ? ", " : "", (long long)e->runs[k]);
		fputs("]", out);
		for (int c = COL_N(x); c < COL_RUNS(x); c++) {
			fputs(", ", out);
			ra_json_string(out, t->cols[c]);
			fputs(": ", out);
			ra_table_json_value(out, ra_table_cell(t, r, c));
		}
		fputs("}", out);
	}
	fputs("\n  ]", out);
	if (mx) {
		fputs(",\n  \"matrix\": {\"rows\": ", out);
		ra_json_string(out, x->dims[0]);
		fputs(", \"columns\": ", out);
		ra_json_string(out, x->dims[1]);
		fputs(", \"row_values\": [", out);
		for (int r = 0; r < mx->nrows; r++) {
			fputs(r ? ", " : "", out);
			ra_table_json_value(out, ra_table_cell(mx, r, 0));
		}
		fputs("], \"column_values\": [", out);
		for (int c = 1; c < mx->ncols; c++) {
			fputs(c > 1 ? ", " : "", out);
			ra_json_string(out, mx->cols[c]);
		}
		fputs("], \"throughput_hmean_bps\": [", out);
		for (int r = 0; r < mx->nrows; r++) {
			fputs(r ? ", [" : "[", out);
			for (int c = 1; c < mx->ncols; c++) {
				fputs(c > 1 ? ", " : "", out);
				ra_table_json_value(out, ra_table_cell(mx, r, c));
			}
			fputs("]", out);
		}
		fputs("]}", out);
	}
	if (model) {
		fprintf(out, ",\n  \"device_model\": {\"run\": %lld", (long long)model->run_id);
		for (const char *const *k = model_keys; *k; k++) {
			const struct ra_table *m = ra_report_table(model, *k);

			if (!m)
				continue;
			fputs(",\n    ", out);
			ra_json_string(out, *k);
			fputs(": ", out);
			ra_table_json(out, m, "    ");
		}
		/* as a run's report: the tables whose analysis could not run, and why */
		fputs(",\n    \"unavailable\": {", out);
		for (const char *const *k = model_keys, *sep = ""; *k; k++) {
			const struct ra_table *m = ra_report_table(model, *k);

			if (!m || !m->unavailable)
				continue;
			fputs(sep, out);
			ra_json_string(out, *k);
			fputs(": ", out);
			ra_json_string(out, m->unavailable);
			sep = ", ";
		}
		fputs("}}", out);
	}
	fputs("}}\n", out);
	ra_table_free(t);
	ra_table_free(mx);
	return 0;
}
