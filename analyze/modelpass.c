// SPDX-License-Identifier: LGPL-2.1
/*
 * The model pass: per device, the service model fitted to the windows' device
 * time (window_io.service_ns, from the block pass) and to the requests' D2C,
 * and the read_ahead_kb advice at the default fraction.
 *
 * One run at one read_ahead_kb mostly reads windows of one size, which fixes
 * one point of the curve and no line. The samples therefore come from the
 * run's pool: the runs of the database recorded on the same host, kernel and
 * device with the same settings other than read_ahead_kb (a --sweep), each
 * run's model holding how many runs it pooled.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"
#include "ra_model.h"

#define MAX_CLASSES 48
#define MAX_MODEL_DEVS 32
#define ADVICE_FRACTION 0.8
/* a size class thrashes when this share of its readahead pages (and 16 at least) thrashed */
#define THRASH_SHARE 0.05
#define THRASH_MIN_PAGES 16
/* a run's size class is a point of the fit when it holds this share of the run's samples */
#define RUN_CLASS_SHARE 0.10

struct sclass {
	int64_t *ns;
	size_t n, cap;
	double bytes, sum_ns;
	double sum_lat;		/* windows: opened to last completed, queueing included */
	size_t n_lat;
};

struct mdev {
	uint32_t dev;
	struct sclass cls[MAX_CLASSES];
	struct ra_map runs;	/* run ids that gave samples */
	int nruns;
};

struct msrc {
	struct mdev devs[MAX_MODEL_DEVS];
	int ndevs;
};

/* The pool of run ?1: the run ids of its runs (itself included). */
const char ra_model_pool_sql[] =
	"SELECT p.run_id FROM runs p, runs r WHERE r.run_id = ?1"
	" AND (p.run_id = r.run_id OR (p.kernel = r.kernel AND p.hostname = r.hostname))"
	" AND (SELECT group_concat(x, ';') FROM (SELECT dev || ':' || name || '=' ||"
	"      COALESCE(new_value, '') AS x FROM settings WHERE run_id = p.run_id"
	"      AND name != 'read_ahead_kb' ORDER BY dev, name))"
	"  IS (SELECT group_concat(x, ';') FROM (SELECT dev || ':' || name || '=' ||"
	"      COALESCE(new_value, '') AS x FROM settings WHERE run_id = r.run_id"
	"      AND name != 'read_ahead_kb' ORDER BY dev, name))";

static int size_class(double bytes)
{
	int c = (int)lround(log2(bytes > 1 ? bytes : 1));

	return c < 0 ? 0 : c >= MAX_CLASSES ? MAX_CLASSES - 1 : c;
}

static struct mdev *mdev_of(struct msrc *s, uint32_t dev)
{
	for (int i = 0; i < s->ndevs; i++)
		if (s->devs[i].dev == dev)
			return &s->devs[i];
	if (s->ndevs == MAX_MODEL_DEVS)
		return NULL;
	memset(&s->devs[s->ndevs], 0, sizeof(s->devs[0]));
	s->devs[s->ndevs].dev = dev;
	if (ra_map_init(&s->devs[s->ndevs].runs, sizeof(char)) < 0)
		return NULL;
	return &s->devs[s->ndevs++];
}

/* @n samples of device time @ns (bytes @bytes in all) into class @c. */
static int class_add(struct sclass *c, const int64_t *ns, size_t n, double bytes)
{
	if (c->n + n > c->cap) {
		size_t cap = c->cap ? c->cap : 64;
		int64_t *p;

		while (cap < c->n + n)
			cap *= 2;
		p = realloc(c->ns, cap * sizeof(*p));
		if (!p)
			return -1;
		c->ns = p;
		c->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		c->ns[c->n++] = ns[i];
		c->sum_ns += (double)ns[i];
	}
	c->bytes += bytes;
	return 0;
}

/* @run gave samples of @d */
static int mark_run(struct mdev *d, int64_t run)
{
	bool fresh;

	if (!ra_map_put(&d->runs, (uint64_t)run + 1, &fresh))
		return -1;
	d->nruns += fresh;
	return 0;
}

static int add_sample(struct msrc *s, uint32_t dev, int64_t run, double bytes, int64_t ns,
		      int64_t lat)
{
	struct mdev *d = mdev_of(s, dev);
	struct sclass *c;

	if (!d)
		return 0;	/* more devices than a model is kept for */
	c = &d->cls[size_class(bytes)];
	if (mark_run(d, run) < 0 || class_add(c, &ns, 1, bytes) < 0)
		return -1;
	if (lat >= 0) {
		c->sum_lat += (double)lat;
		c->n_lat++;
	}
	return 0;
}

static void msrc_release(struct msrc *s)
{
	for (int i = 0; i < s->ndevs; i++) {
		for (int c = 0; c < MAX_CLASSES; c++)
			free(s->devs[i].cls[c].ns);
		ra_map_release(&s->devs[i].runs);
	}
	s->ndevs = 0;
}

/*
 * Moves the classes of the run staged in @run into @s: a class counts when it
 * holds RUN_CLASS_SHARE of the run's samples of its device. A ramp-up leaves
 * one window per size, often served by an idle device or a throttle's burst
 * allowance; such a handful must not stand for a size.
 */
static int merge_run(struct msrc *s, struct msrc *run, int64_t run_id)
{
	for (int i = 0; i < run->ndevs; i++) {
		struct mdev *d = &run->devs[i], *to = NULL;
		size_t total = 0;

		for (int c = 0; c < MAX_CLASSES; c++)
			total += d->cls[c].n;
		for (int c = 0; c < MAX_CLASSES; c++) {
			struct sclass *k = &d->cls[c];

			if (!k->n || (double)k->n < RUN_CLASS_SHARE * (double)total)
				continue;
			if (!to && !(to = mdev_of(s, d->dev)))
				break;	/* more devices than a model is kept for */
			if (mark_run(to, run_id) < 0 || class_add(&to->cls[c], k->ns, k->n, k->bytes) < 0)
				return -1;
			to->cls[c].sum_lat += k->sum_lat;
			to->cls[c].n_lat += k->n_lat;
		}
	}
	msrc_release(run);
	return 0;
}

/* Rows (dev, run_id, bytes, ns, latency ns or NULL) ordered by run_id. */
static int collect(struct ra_db *db, int64_t run_id, const char *sql, struct msrc *s)
{
	struct msrc *run = calloc(1, sizeof(*run));
	sqlite3_stmt *q = NULL;
	int64_t cur = -1;
	int rc = SQLITE_NOMEM;

	if (!run || sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &q, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(q, 1, run_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t r = sqlite3_column_int64(q, 1), ns = sqlite3_column_int64(q, 3);
		double bytes = sqlite3_column_double(q, 2);

		if (r != cur && cur >= 0 && merge_run(s, run, cur) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		cur = r;
		if (bytes > 0 && ns > 0 &&
		    add_sample(run, (uint32_t)sqlite3_column_int64(q, 0), r, bytes, ns,
			       sqlite3_column_type(q, 4) == SQLITE_NULL ? -1 :
			       sqlite3_column_int64(q, 4)) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	if (rc == SQLITE_DONE && cur >= 0 && merge_run(s, run, cur) < 0)
		rc = SQLITE_NOMEM;
out:
	sqlite3_finalize(q);
	if (run)
		msrc_release(run);
	free(run);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

struct model_ctx {
	struct ra_db *db;
	int64_t run_id;
	sqlite3_stmt *ins_point, *ins_model, *ins_advice;
};

static int store_model(struct model_ctx *m, const struct mdev *d, const char *source,
		       const struct ra_model_fit *f, int64_t samples, int sizes, bool chosen)
{
	sqlite3_stmt *q = m->ins_model;
	int rc;

	sqlite3_bind_int64(q, 1, m->run_id);
	sqlite3_bind_int64(q, 2, d->dev);
	sqlite3_bind_text(q, 3, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, ra_model_form_name(f->form), -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, f->ok ? "ok" : "unidentifiable", -1, SQLITE_STATIC);
	f->ok ? sqlite3_bind_null(q, 6) : sqlite3_bind_text(q, 6, f->why, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(q, 7, d->nruns);
	sqlite3_bind_int64(q, 8, samples);
	sqlite3_bind_int(q, 9, sizes);
	if (f->ok) {
		sqlite3_bind_double(q, 10, f->access_ns);
		sqlite3_bind_double(q, 11, f->bw_bps);
		sqlite3_bind_double(q, 12, f->rms_rel);
		sqlite3_bind_double(q, 13, f->max_rel);
	} else {
		for (int i = 10; i <= 13; i++)
			sqlite3_bind_null(q, i);
	}
	sqlite3_bind_int(q, 14, chosen);
	rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * The two forms fitted to one device's classes; the chosen one is the one
 * with the smaller error (the sum form on a tie within 1%). Fills @best.
 */
static int fit_device(struct model_ctx *m, struct mdev *d, const char *source,
		      struct ra_model_fit *best, struct ra_model_fit *other)
{
	struct ra_model_point pts[MAX_CLASSES];
	struct ra_model_fit f[2];
	int n = 0, sizes = 0, pick;
	int64_t samples = 0;

	for (int c = 0; c < MAX_CLASSES; c++) {
		struct sclass *s = &d->cls[c];
		bool used = s->n >= RA_MODEL_MIN_SAMPLES;
		sqlite3_stmt *q = m->ins_point;
		int rc;

		if (!s->n)
			continue;
		qsort(s->ns, s->n, sizeof(*s->ns), cmp_i64);
		if (used) {
			pts[n].bytes = s->bytes / (double)s->n;
			pts[n].ns = s->sum_ns / (double)s->n;
			pts[n].n = (double)s->n;
			n++;
			samples += (int64_t)s->n;
			sizes++;
		}
		sqlite3_bind_int64(q, 1, m->run_id);
		sqlite3_bind_int64(q, 2, d->dev);
		sqlite3_bind_text(q, 3, source, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 4, 1LL << c);
		sqlite3_bind_int64(q, 5, (int64_t)s->n);
		sqlite3_bind_double(q, 6, s->bytes / (double)s->n);
		sqlite3_bind_double(q, 7, s->sum_ns / (double)s->n);
		sqlite3_bind_int64(q, 8, s->ns[(s->n - 1) / 2]);
		if (s->n_lat)
			sqlite3_bind_double(q, 9, s->sum_lat / (double)s->n_lat);
		else
			sqlite3_bind_null(q, 9);
		sqlite3_bind_int(q, 10, used);
		rc = sqlite3_step(q);
		sqlite3_reset(q);
		if (rc != SQLITE_DONE)
			return -1;
	}
	ra_model_fit(pts, n, RA_FORM_SUM, &f[0]);
	ra_model_fit(pts, n, RA_FORM_MAX, &f[1]);
	if (f[0].ok && f[1].ok)
		pick = f[1].rms_rel < f[0].rms_rel - 0.01;
	else
		pick = f[1].ok && !f[0].ok;
	for (int i = 0; i < 2; i++)
		if (store_model(m, d, source, &f[i], samples, sizes, i == pick) < 0)
			return -1;
	*best = f[pick];
	*other = f[!pick];
	return 0;
}

/* One statement with ?1 = @a, ?2 = @b; @out (may be NULL): its first value, -1 if none. */
static int query_int(struct ra_db *db, const char *sql, int64_t a, int64_t b, int64_t *out)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (out)
		*out = -1;
	if (sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(q, 1, a);
	sqlite3_bind_int64(q, 2, b);
	rc = sqlite3_step(q);
	if (out && rc == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*out = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/*
 * The smallest window size class of the pool whose readahead pages thrashed
 * (THRASH_SHARE of them, THRASH_MIN_PAGES at least), in KiB; 0 when none did.
 */
static int thrash_kb(struct ra_db *db, int64_t run_id, uint32_t dev, int *out)
{
	char sql[2048];
	sqlite3_stmt *q = NULL;
	int64_t added[MAX_CLASSES] = { 0 }, thrashed[MAX_CLASSES] = { 0 };
	int rc;

	*out = 0;
	snprintf(sql, sizeof(sql),
		 "SELECT w.size_pages * COALESCE(r.page_size, 4096), SUM(w.ra_pages_added),"
		 " SUM(w.thrashed) FROM windows w JOIN runs r USING (run_id)"
		 " WHERE w.dev = ?2 AND w.ra_pages_added > 0 AND w.run_id IN (%s)"
		 " GROUP BY 1", ra_model_pool_sql);
	if (sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, dev);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		double bytes = sqlite3_column_double(q, 0);
		/* down to a power of two: "windows of c and more" stays true */
		int c = bytes >= 1 ? (int)floor(log2(bytes)) : 0;

		if (c >= MAX_CLASSES)
			c = MAX_CLASSES - 1;

		added[c] += sqlite3_column_int64(q, 1);
		thrashed[c] += sqlite3_column_int64(q, 2);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return -1;
	for (int c = 10; c < MAX_CLASSES; c++)
		if (thrashed[c] >= THRASH_MIN_PAGES && thrashed[c] >= THRASH_SHARE * added[c]) {
			*out = (int)(1LL << (c - 10));
			break;
		}
	return 0;
}

/* The advice of the run in @m for @dev, from the pool's fits and thrashing limit. */
static int advise(struct model_ctx *m, uint32_t dev, const struct ra_model_fit *f,
		  const struct ra_model_fit *other, int tk)
{
	sqlite3_stmt *q = m->ins_advice;
	struct ra_advice a;
	int64_t cur;
	int rc;

	/* the setting of the file system's device, or of the disk that served its windows */
	if (query_int(m->db, "SELECT COALESCE((SELECT read_ahead_kb FROM device_snapshots"
		      " WHERE run_id = ?1 AND dev = ?2 AND phase = 'before'),"
		      " (SELECT s.read_ahead_kb FROM requests q JOIN windows w"
		      " ON w.run_id = q.run_id AND w.window_id = q.window_id"
		      " JOIN device_snapshots s ON s.run_id = q.run_id AND s.dev = q.dev"
		      " AND s.phase = 'before' WHERE q.run_id = ?1 AND w.dev = ?2 LIMIT 1))",
		      m->run_id, dev, &cur) < 0)
		return -1;
	if (cur < 0 && query_int(m->db, "SELECT MAX(w.ra_pages) * COALESCE(r.page_size, 4096)"
				 " / 1024 FROM windows w JOIN runs r USING (run_id)"
				 " WHERE w.run_id = ?1 AND w.dev = ?2", m->run_id, dev, &cur) < 0)
		return -1;
	ra_model_advise(f, other, ADVICE_FRACTION, tk, (int)cur, &a);
	sqlite3_bind_int64(q, 1, m->run_id);
	sqlite3_bind_int64(q, 2, dev);
	sqlite3_bind_double(q, 3, ADVICE_FRACTION);
	if (f->ok) {
		sqlite3_bind_text(q, 4, ra_model_form_name(f->form), -1, SQLITE_STATIC);
		sqlite3_bind_double(q, 5, a.target_bytes);
		sqlite3_bind_int(q, 6, a.model_kb);
	} else {
		sqlite3_bind_null(q, 4);
		sqlite3_bind_null(q, 5);
		sqlite3_bind_null(q, 6);
	}
	tk ? sqlite3_bind_int(q, 7, tk) : sqlite3_bind_null(q, 7);
	cur >= 0 ? sqlite3_bind_int64(q, 8, cur) : sqlite3_bind_null(q, 8);
	a.recommended_kb ? sqlite3_bind_int(q, 9, a.recommended_kb) : sqlite3_bind_null(q, 9);
	sqlite3_bind_text(q, 10, a.reasoning, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* the device time of the windows at their stream's largest size, on their file's device */
#define WINDOW_SQL                                                                          \
	"SELECT w.dev, w.run_id, i.bytes, i.service_ns, i.last_c_ts_ns - w.ts_ns"            \
	" FROM window_io i"                                                                 \
	" JOIN windows w USING (run_id, window_id)"                                         \
	" JOIN streams s ON s.run_id = w.run_id AND s.stream_id = w.stream_id"              \
	" WHERE i.service_ns IS NOT NULL AND w.size_pages >= s.max_size_pages"              \
	" AND w.run_id IN (%s)"                                                             \
	" AND w.dev IN (SELECT dev FROM windows WHERE run_id = ?1) ORDER BY w.run_id"
/* the read requests' D2C */
#define D2C_SQL                                                                             \
	"SELECT dev, run_id, nr_sector * 512.0, c_ts_ns - d_ts_ns, NULL FROM requests"      \
	" WHERE d_ts_ns IS NOT NULL AND rwbs LIKE '%%R%%' AND run_id IN (%s)"               \
	" AND dev IN (SELECT dev FROM requests WHERE run_id = ?1) ORDER BY run_id"

static int run_model(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o)
{
	static const char *const src_name[2] = { "window", "d2c" };
	struct model_ctx m = { .db = db, .run_id = run_id };
	sqlite3 *sq = ra_db_sqlite(db);
	struct msrc *s = calloc(1, sizeof(*s));
	char sql[2048];
	int ret = -1;

	if (!s) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (sqlite3_prepare_v2(sq, "INSERT INTO model_points VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &m.ins_point, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sq, "INSERT INTO device_models VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
			       " ?, ?, ?, ?, ?)", -1, &m.ins_model, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sq, "INSERT INTO device_advice VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
			       " ?)", -1, &m.ins_advice, NULL) != SQLITE_OK)
		goto out;
	for (int k = 0; k < 2; k++) {
		if (k == 0)
			snprintf(sql, sizeof(sql), WINDOW_SQL, ra_model_pool_sql);
		else
			snprintf(sql, sizeof(sql), D2C_SQL, ra_model_pool_sql);
		if (collect(db, run_id, sql, s) < 0)
			goto out;
		for (int i = 0; i < s->ndevs; i++) {
			struct ra_model_fit best, other;
			int tk = 0;

			if (fit_device(&m, &s->devs[i], src_name[k], &best, &other) < 0 ||
			    (k == 0 && (thrash_kb(db, run_id, s->devs[i].dev, &tk) < 0 ||
					advise(&m, s->devs[i].dev, &best, &other, tk) < 0)))
				goto out;
		}
		if (o && o->verbose > 0)
			fprintf(stderr, "model: %s: %d devices\n", src_name[k], s->ndevs);
		msrc_release(s);
	}
	ret = 0;
out:
	if (ret < 0 && ra_last_error_kind() != RA_ERR_IO)
		ra_set_error(RA_ERR_IO, "model of run %lld in '%s': %s", (long long)run_id,
			     ra_db_path(db), sqlite3_errmsg(sq));
	msrc_release(s);
	free(s);
	sqlite3_finalize(m.ins_point);
	sqlite3_finalize(m.ins_model);
	sqlite3_finalize(m.ins_advice);
	return ret;
}

void ra_model_fit_row(sqlite3_stmt *q, int c, struct ra_model_fit *f)
{
	const unsigned char *form = sqlite3_column_text(q, c), *status = sqlite3_column_text(q, c + 1);

	memset(f, 0, sizeof(*f));
	f->form = form && strcmp((const char *)form, "max") == 0 ? RA_FORM_MAX : RA_FORM_SUM;
	f->ok = status && strcmp((const char *)status, "ok") == 0;
	f->access_ns = sqlite3_column_double(q, c + 2);
	f->bw_bps = sqlite3_column_double(q, c + 3);
	f->rms_rel = sqlite3_column_double(q, c + 4);
	if (sqlite3_column_type(q, c + 5) == SQLITE_TEXT)
		snprintf(f->why, sizeof(f->why), "%s", (const char *)sqlite3_column_text(q, c + 5));
}

/* rows of the devices run ?2 read itself: what its own fit would have */
#define OWN                                                                             \
	" AND ((source = 'window' AND dev IN (SELECT dev FROM windows WHERE run_id = ?2))"  \
	" OR (source = 'd2c' AND dev IN (SELECT dev FROM requests WHERE run_id = ?2)))"

int ra_model_share(struct ra_db *db, int64_t from, int64_t to)
{
	static const char *const copy[] = {
		"DELETE FROM model_points WHERE run_id = ?2 AND (dev, source) IN"
		" (SELECT dev, source FROM model_points WHERE run_id = ?1)" OWN,
		"INSERT INTO model_points SELECT ?2, dev, source, size_class, n, bytes, service_ns,"
		" p50_ns, latency_ns, used FROM model_points WHERE run_id = ?1" OWN,
		"DELETE FROM device_models WHERE run_id = ?2 AND (dev, source) IN"
		" (SELECT dev, source FROM device_models WHERE run_id = ?1)" OWN,
		"INSERT INTO device_models SELECT ?2, dev, source, form, status, reason, runs, samples,"
		" sizes, access_ns, bandwidth_bps, rms_rel_err, max_rel_err, chosen"
		" FROM device_models WHERE run_id = ?1" OWN,
		"DELETE FROM device_advice WHERE run_id = ?2 AND dev IN"
		" (SELECT dev FROM device_advice WHERE run_id = ?1)"
		" AND dev IN (SELECT dev FROM windows WHERE run_id = ?2)",
	};
	struct model_ctx m = { .db = db, .run_id = to };
	sqlite3_stmt *q = NULL;
	int rc = SQLITE_ERROR;

	for (size_t i = 0; i < sizeof(copy) / sizeof(copy[0]); i++)
		if (query_int(db, copy[i], from, to, NULL) < 0)
			goto out;
	if (sqlite3_prepare_v2(ra_db_sqlite(db), "INSERT INTO device_advice VALUES (?, ?, ?, ?, ?,"
			       " ?, ?, ?, ?, ?)", -1, &m.ins_advice, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ra_db_sqlite(db),
			       "SELECT a.dev, COALESCE(a.thrash_kb, 0), c.form, c.status, c.access_ns,"
			       " c.bandwidth_bps, c.rms_rel_err, c.reason, o.form, o.status,"
			       " o.access_ns, o.bandwidth_bps, o.rms_rel_err, o.reason, c.sizes"
			       " FROM device_advice a"
			       " LEFT JOIN device_models c ON c.run_id = a.run_id AND c.dev = a.dev"
			       " AND c.source = 'window' AND c.chosen"
			       " LEFT JOIN device_models o ON o.run_id = a.run_id AND o.dev = a.dev"
			       " AND o.source = 'window' AND NOT o.chosen WHERE a.run_id = ?1"
			       " AND a.dev IN (SELECT dev FROM windows WHERE run_id = ?2)",
			       -1, &q, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(q, 1, from);
	sqlite3_bind_int64(q, 2, to);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct ra_model_fit f, other;

		ra_model_fit_row(q, 2, &f);
		ra_model_fit_row(q, 8, &other);
		f.points = other.points = sqlite3_column_int(q, 14);
		if (advise(&m, (uint32_t)sqlite3_column_int64(q, 0), &f, &other,
			   sqlite3_column_int(q, 1)) < 0) {
			rc = SQLITE_ERROR;
			break;
		}
	}
out:
	sqlite3_finalize(q);
	sqlite3_finalize(m.ins_advice);
	if (rc != SQLITE_DONE) {
		ra_set_error(RA_ERR_IO, "cannot share the model of run %lld in '%s': %s",
			     (long long)from, ra_db_path(db), sqlite3_errmsg(ra_db_sqlite(db)));
		return -1;
	}
	return 0;
}

static const char *const model_needs[] = { "block:block_rq_complete", NULL };
static const char *const model_tables[] = { "model_points", "device_models", "device_advice",
					    NULL };

const struct ra_pass ra_pass_model = {
	.name = "model",
	.needs = model_needs,
	.run = run_model,
	.tables = model_tables,
};
