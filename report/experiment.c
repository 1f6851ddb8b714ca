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

/*
 * What the experiment reads of each of its runs, for all of them at once
 * (a query per kind, aggregated on the server when there is one): the
 * parameters, and the figures of v_run_metrics and the stalls.
 */
enum { F_READ_BW, F_DEVICE_BW, F_CLAT_MAX, F_HIT, F_THRASHED, F_WINDOWS, F_RA_AVG, F_STALLS,
       NFIG };
static const char *const fig_metric[NFIG] = { "read_bw_bytes", "device_read_bw_bytes",
					      "read_clat_max_ns", "hit_ratio", "thrashed_pages",
					      "windows", "ra_avg_bytes", "stalls" };

struct run_data {
	int64_t id;
	struct param *params;
	int nparams;
	double fig[NFIG];
	bool row[NFIG];		/* the run has a row of the figure */
	bool known[NFIG];	/* ... and its value is not NULL */
};

struct runs_data {
	struct run_data *r;	/* by run id */
	int n;
};

static int by_id(const void *a, const void *b)
{
	const struct run_data *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct run_data *run_of(const struct runs_data *d, int64_t id)
{
	struct run_data key = { .id = id };

	return d->n ? bsearch(&key, d->r, (size_t)d->n, sizeof(*d->r), by_id) : NULL;
}

static void runs_data_free(struct runs_data *d)
{
	for (int i = 0; i < d->n; i++)
		params_free(d->r[i].params, d->r[i].nparams);
	free(d->r);
	d->r = NULL;
	d->n = 0;
}

static int runs_data_init(struct runs_data *d, const int64_t *ids, int n)
{
	d->n = 0;
	d->r = calloc((size_t)(n ? n : 1), sizeof(*d->r));
	if (!d->r)
		return -1;
	for (int i = 0; i < n; i++)
		d->r[d->n++].id = ids[i];
	qsort(d->r, (size_t)d->n, sizeof(*d->r), by_id);
	return 0;
}

/* A statement of @sql with ?1 the runs of @d as a JSON array. */
static struct ra_stmt *over_runs(struct ra_db *db, const struct runs_data *d, const char *sql)
{
	int64_t *ids = malloc((size_t)(d->n ? d->n : 1) * sizeof(*ids));
	struct ra_stmt *st = NULL;
	char *json;

	if (!ids)
		return NULL;
	for (int i = 0; i < d->n; i++)
		ids[i] = d->r[i].id;
	json = ra_ids_json(ids, d->n);
	free(ids);
	if (json && (st = ra_sql_prepare(db, sql)) && ra_sql_bind(st, "t", json) < 0) {
		ra_sql_finalize(st);
		st = NULL;
	}
	free(json);
	return st;
}

/* Each run's parameters, sorted (the label too, last: imported runs differ by it). */
static int load_params(struct ra_db *db, struct runs_data *d)
{
	struct ra_stmt *st = over_runs(db, d, "SELECT run_id, name, scope, value FROM (SELECT"
				       " DISTINCT run_id, name, scope, value FROM v_run_params"
				       " WHERE name != 'repeat' AND run_id IN (SELECT value FROM"
				       " json_each(?1)) UNION ALL SELECT run_id, 'label', '', label"
				       " FROM runs WHERE label IS NOT NULL AND run_id IN (SELECT value"
				       " FROM json_each(?1))) ORDER BY run_id, name, scope, value");
	int rc = st ? 1 : -1;

	while (rc == 1 && (rc = ra_sql_step(st)) == 1) {
		const char *f[3];
		struct run_data *r;
		struct param *p;
		int64_t id;

		ra_sql_row(st, "ittt", &id, &f[0], &f[1], &f[2]);
		r = run_of(d, id);
		if (!r || r->nparams == MAX_PARAMS)
			continue;
		p = realloc(r->params, (size_t)(r->nparams + 1) * sizeof(*p));
		if (!p) {
			rc = -1;
			break;
		}
		r->params = p;
		p[r->nparams] = (struct param){ strdup(f[0] ? f[0] : ""), strdup(f[1] ? f[1] : ""),
						strdup(f[2] ? f[2] : "") };
		if (!p[r->nparams].name || !p[r->nparams].scope || !p[r->nparams].value) {
			r->nparams++;
			rc = -1;
			break;
		}
		r->nparams++;
	}
	ra_sql_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* The figures of each run: a metric's first row, as the experiment reads one. */
static int load_figures(struct ra_db *db, struct runs_data *d)
{
	struct ra_stmt *st = over_runs(db, d, "SELECT run_id, metric, value FROM v_run_metrics"
				       " WHERE run_id IN (SELECT value FROM json_each(?1)) AND metric"
				       " IN ('read_bw_bytes', 'device_read_bw_bytes', 'read_clat_max_ns',"
				       " 'hit_ratio', 'thrashed_pages', 'windows', 'ra_avg_bytes')");
	int rc = st ? 1 : -1;

	while (rc == 1 && (rc = ra_sql_step(st)) == 1) {
		const char *metric;
		struct run_data *r;
		int64_t id;
		int f = 0;

		ra_sql_row(st, "it", &id, &metric);
		while (f < NFIG && strcmp(fig_metric[f], metric ? metric : "") != 0)
			f++;
		if (!(r = run_of(d, id)) || f == NFIG || r->row[f])
			continue;
		r->row[f] = true;
		r->known[f] = !ra_sql_null(st, 2);
		ra_sql_row(st, "nnf", &r->fig[f]);
	}
	ra_sql_finalize(st);
	if (rc < 0)
		return -1;
	/* every run has a count of stalls, 0 or more */
	for (int i = 0; i < d->n; i++)
		d->r[i].row[F_STALLS] = d->r[i].known[F_STALLS] = true;
	st = over_runs(db, d, "SELECT run_id, COUNT(*) FROM stalls WHERE run_id IN (SELECT value"
		       " FROM json_each(?1)) GROUP BY run_id");
	rc = st ? 1 : -1;
	while (rc == 1 && (rc = ra_sql_step(st)) == 1) {
		struct run_data *r = run_of(d, ra_sql_int(st, 0));

		if (r)
			r->fig[F_STALLS] = ra_sql_real(st, 1);
	}
	ra_sql_finalize(st);
	return rc < 0 ? -1 : 0;
}

/*
 * A run's parameters and their key ("name\x1fscope\x1fvalue\x1e..."). A
 * device's setting is the run's when it is the run's only one of its name:
 * read_ahead_kb 128 of loop0 and of a guest's vda are one value.
 */
static int run_key(struct run_data *r, char **key)
{
	size_t klen = 0;
	FILE *k = open_memstream(key, &klen);

	if (!k)
		return -1;
	for (int i = 0; i < r->nparams; i++) {
		struct param *p = r->params;
		bool alone = strcmp(p[i].name, "env") != 0 && p[i].scope[0];

		for (int j = 0; j < r->nparams && alone; j++)
			alone = j == i || strcmp(p[j].name, p[i].name) != 0;
		if (alone && strcmp(p[i].scope, "fio") != 0)
			p[i].scope[0] = '\0';
		fprintf(k, "%s\x1f%s\x1f%s\x1e", p[i].name, p[i].scope, p[i].value);
	}
	return fclose(k) != 0 ? -1 : 0;
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

static int fig_index(const char *metric)
{
	for (int f = 0; f < NFIG; f++)
		if (strcmp(fig_metric[f], metric) == 0)
			return f;
	return F_STALLS;
}

/* The mean of a figure over the set's runs that have it (NAN for none). */
static double set_mean(const struct runs_data *d, const struct xset *s, int f, bool max)
{
	double sum = 0, best = NAN;
	int n = 0;

	for (int i = 0; i < s->nruns; i++) {
		const struct run_data *r = run_of(d, s->runs[i]);
		double v;

		if (r && r->row[f] && r->known[f]) {
			v = r->fig[f];
			sum += v;
			best = isnan(best) || v > best ? v : best;
			n++;
		}
	}
	return !n ? NAN : max ? best : sum / n;
}

/* Does every run of @s have fio's read_bw_bytes? */
static bool has_bench(const struct runs_data *d, const struct xset *s)
{
	bool bench = true;

	for (int i = 0; i < s->nruns && bench; i++) {
		const struct run_data *r = run_of(d, s->runs[i]);

		bench = r && r->row[F_READ_BW];
	}
	return bench;
}

static void figures_of(const struct runs_data *d, const char *metric, struct xset *s)
{
	int f = fig_index(metric);
	double inv = 0;

	s->tput_n = 0;
	s->tput_min = s->tput_max = NAN;
	for (int i = 0; i < s->nruns; i++) {
		const struct run_data *r = run_of(d, s->runs[i]);
		double v = r && r->row[f] && r->known[f] ? r->fig[f] : 0;

		if (v > 0) {
			inv += 1 / v;
			s->tput_min = s->tput_n && s->tput_min < v ? s->tput_min : v;
			s->tput_max = s->tput_n && s->tput_max > v ? s->tput_max : v;
			s->tput_n++;
		}
	}
	s->tput_hmean = s->tput_n ? s->tput_n / inv : NAN;
	s->max_lat_ns = set_mean(d, s, F_CLAT_MAX, true);
	s->hit = set_mean(d, s, F_HIT, false);
	s->thrashed = set_mean(d, s, F_THRASHED, false);
	s->windows = set_mean(d, s, F_WINDOWS, false);
	s->ra_bytes = set_mean(d, s, F_RA_AVG, false);
	s->stalls = set_mean(d, s, F_STALLS, false);
}

static void set_figures(const struct runs_data *d, struct ra_experiment *x)
{
	bool bench = true;

	/* the benchmark's own throughput where every run has it, else the device's */
	for (int i = 0; i < x->nsets && bench; i++)
		bench = has_bench(d, &x->sets[i]);
	x->tput_metric = bench ? "read_bw_bytes" : "device_read_bw_bytes";
	for (int i = 0; i < x->nsets; i++)
		figures_of(d, x->tput_metric, &x->sets[i]);
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

/* Run @r into the set of its key, a new one when none has it (the set takes its parameters). */
static int add_run(struct ra_experiment *x, struct run_data *r, char *key)
{
	int64_t *runs;
	int s;

	for (s = 0; s < x->nsets && strcmp(x->sets[s].key, key) != 0; s++)
		;
	if (s == x->nsets) {
		x->sets[s] = (struct xset){ .params = r->params, .nparams = r->nparams, .key = key };
		r->params = NULL;
		r->nparams = 0;
		x->nsets++;
	} else {
		free(key);
	}
	runs = realloc(x->sets[s].runs, (size_t)(x->sets[s].nruns + 1) * sizeof(*runs));
	if (!runs)
		return -1;
	x->sets[s].runs = runs;
	runs[x->sets[s].nruns++] = r->id;
	return 0;
}

struct ra_experiment *ra_experiment_load(struct ra_db *db, const int64_t *ids, int n)
{
	struct ra_experiment *x = calloc(1, sizeof(*x));
	struct runs_data d = { 0 };

	if (!x || !(x->sets = calloc((size_t)(n ? n : 1), sizeof(*x->sets))) ||
	    runs_data_init(&d, ids, n) < 0 || load_params(db, &d) < 0 || load_figures(db, &d) < 0)
		goto fail;
	/* the runs in the order given, each into its set */
	for (int i = 0; i < n; i++) {
		struct run_data *r = run_of(&d, ids[i]);
		char *key = NULL;

		if (!r || run_key(r, &key) < 0 || add_run(x, r, key) < 0) {
			free(key);
			goto fail;
		}
	}
	if (find_dims(x) < 0)
		goto fail;
	set_figures(&d, x);
	if (set_charts(db, x) < 0)
		goto fail;
	for (int s = 0; s < x->nsets; s++)
		if (set_label(x, &x->sets[s]) != 0)
			goto fail;
	runs_data_free(&d);
	return x;
fail:
	ra_set_error(RA_ERR_IO, "cannot read the run sets of '%s': %s", ra_db_path(db),
		     ra_sql_why(db));
	runs_data_free(&d);
	ra_experiment_free(x);
	return NULL;
}

int ra_experiment_set_runs(struct ra_db *db, const int64_t *ids, int n, const char *label,
			   int64_t **runs)
{
	struct ra_experiment *x = ra_experiment_load(db, ids, n);
	int found = 0;

	*runs = NULL;
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
	struct ra_stmt *h = NULL, *w = NULL;
	struct xset *sets = realloc(x->sets, (size_t)(x->nsets + 1) * sizeof(*sets)), *s;
	struct runs_data d = { 0 };
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
	if (runs_data_init(&d, ids, n) == 0 && load_figures(db, &d) == 0 &&
	    prepare_charts(db, &h, &w) == 0) {
		/* the first side decides the throughput metric of all */
		if (!x->tput_metric)
			x->tput_metric = has_bench(&d, s) ? "read_bw_bytes" : "device_read_bw_bytes";
		figures_of(&d, x->tput_metric, s);
		charts_of(h, w, s);
		ret = 0;
	}
	if (ret < 0)
		ra_set_error(RA_ERR_IO, "cannot read the runs of '%s': %s", ra_db_path(db),
			     ra_sql_why(db));
	runs_data_free(&d);
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
