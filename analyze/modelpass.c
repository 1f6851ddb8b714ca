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
 * run's model holding how many runs it pooled. The measured throughput the
 * advice weighs is of the run's own workload only (modelsets.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"
#include "ra_evstream.h"
#include "ra_model.h"
#include "ra_sql.h"

#define MAX_CLASSES 48
#define MAX_MODEL_DEVS 32
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
	" AND (p.run_id = r.run_id OR (p.kernel = r.kernel AND p.hostname = r.hostname"
	"      AND p.origin IS NOT 'whatif'))"
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
	struct ra_stmt *q = NULL;
	int64_t cur = -1;
	int rc = -1;

	if (!run) {
		ra_set_error(RA_ERR_IO, "out of memory");
		goto out;
	}
	if (!(q = ra_sql_prepare(db, sql)) || ra_sql_bind(q, "i", run_id) < 0)
		goto out;
	while ((rc = ra_sql_step(q)) == 1) {
		int64_t dev, r, ns, lat;
		double bytes;

		ra_sql_row(q, "iifii", &dev, &r, &bytes, &ns, &lat);
		if (ra_sql_null(q, 4))
			lat = -1;
		if (r != cur && cur >= 0 && merge_run(s, run, cur) < 0) {
			rc = -1;
			break;
		}
		cur = r;
		if (bytes > 0 && ns > 0 && add_sample(run, (uint32_t)dev, r, bytes, ns, lat) < 0) {
			rc = -1;
			break;
		}
	}
	if (rc == 0 && cur >= 0 && merge_run(s, run, cur) < 0)
		rc = -1;
out:
	ra_sql_finalize(q);
	if (run)
		msrc_release(run);
	free(run);
	return rc == 0 ? 0 : -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

struct model_ctx {
	struct ra_db *db;
	int64_t run_id;
	struct ra_stmt *ins_point, *ins_model, *ins_advice;
};

static int store_model(struct model_ctx *m, const struct mdev *d, const char *timing,
		       const struct ra_model_fit *f, int64_t samples, int sizes, bool chosen)
{
	double n = NAN;	/* bound as NULL */

	return ra_sql_put(m->ins_model, "iittttxixddddxdddd",
			  m->run_id, (int64_t)d->dev, timing, ra_model_form_name(f->form),
			  f->ok ? "ok" : "unidentifiable", f->why[0] ? f->why : NULL, d->nruns,
			  samples, sizes, f->ok ? f->access_ns : n, f->ok ? f->bw_bps : n,
			  f->ok ? f->rms_rel : n, f->ok ? f->max_rel : n, (int)chosen,
			  sizes > 0 ? f->min_bytes : n, sizes > 0 ? f->max_bytes : n,
			  sizes > 0 ? f->min_ns : n, sizes > 0 ? f->max_ns : n);
}

/*
 * The two forms fitted to one device's classes; the chosen one is the one
 * with the smaller error (the sum form on a tie within 1%). Fills @best.
 */
static int fit_device(struct model_ctx *m, struct mdev *d, const char *timing,
		      struct ra_model_fit *best, struct ra_model_fit *other)
{
	struct ra_model_point pts[MAX_CLASSES];
	struct ra_model_fit f[2];
	int n = 0, sizes = 0, pick;
	int64_t samples = 0;

	for (int c = 0; c < MAX_CLASSES; c++) {
		struct sclass *s = &d->cls[c];
		bool used = s->n >= RA_MODEL_MIN_SAMPLES;

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
		if (ra_sql_put(m->ins_point, "iitiiffidx", m->run_id, (int64_t)d->dev, timing,
			       (int64_t)(1LL << c), (int64_t)s->n, s->bytes / (double)s->n,
			       s->sum_ns / (double)s->n, (int64_t)s->ns[(s->n - 1) / 2],
			       s->n_lat ? s->sum_lat / (double)s->n_lat : NAN, (int)used) < 0)
			return -1;
	}
	ra_model_fit(pts, n, RA_FORM_SUM, &f[0]);
	ra_model_fit(pts, n, RA_FORM_MAX, &f[1]);
	if (f[0].ok && f[1].ok)
		pick = f[1].rms_rel < f[0].rms_rel - 0.01;
	else
		pick = f[1].ok && !f[0].ok;
	for (int i = 0; i < 2; i++)
		if (store_model(m, d, timing, &f[i], samples, sizes, i == pick) < 0)
			return -1;
	*best = f[pick];
	*other = f[!pick];
	return 0;
}

/* The advice of run @m->run_id for @dev, from its pool as stored (model_sets, device_models). */
static int advise(struct model_ctx *m, uint32_t dev)
{
	struct ra_model_pool p;
	struct ra_advice a;
	char next[64] = "";
	int rc;

	if (ra_model_pool_load(m->db, m->run_id, dev, &p) < 0)
		return -1;
	ra_model_advise(&p, RA_ADVICE_FRACTION, &a);
	for (int i = 0; a.next_kb[i]; i++)
		snprintf(next + strlen(next), sizeof(next) - strlen(next), "%s%d", i ? "," : "",
			 a.next_kb[i]);
	rc = ra_sql_put(m->ins_advice, "iiftdzzjzttzdt", m->run_id, (int64_t)dev,
			RA_ADVICE_FRACTION, p.fit.ok ? ra_model_form_name(p.fit.form) : NULL,
			a.target_bytes > 0 ? a.target_bytes : NAN, (int64_t)a.model_kb,
			(int64_t)a.thrash_kb, (int64_t)a.current_kb, (int64_t)a.recommended_kb,
			a.reasoning, ra_advice_status_name(a.status), (int64_t)a.measured_kb,
			a.window_ratio > 0 ? a.window_ratio : NAN, next[0] ? next : NULL);
	ra_model_pool_release(&p);
	return rc;
}

/* runs that count: not failed, killed or interrupted */
#define RUN_OK                                                                              \
	" (SELECT run_id FROM runs WHERE COALESCE(exit_status, 0) = 0"                     \
	" AND exit_signal IS NULL AND NOT interrupted)"
/*
 * the device time of the windows at their stream's largest size, on their
 * file's device; the device's idle time counts too where the device set the
 * pace (held at least as long as idle, or RA_MODEL_HELD_SHARE of the I/O
 * time: a throttle credits the idle time). Where some runs of the pool were
 * device-paced, only
 * those give samples: a reader-paced run of a rate limiter shows what its
 * credit let through, not the limit.
 */
#define WINDOW_SQL                                                                          \
	"WITH pace AS (SELECT w.run_id, w.dev, SUM(COALESCE(i.held_ns, 0))"                 \
	"  >= MIN(SUM(COALESCE(i.idle_ns, 0)), " RA_STR(RA_MODEL_HELD_SHARE)                \
	"  * (MAX(i.last_c_ts_ns) - MIN(w.ts_ns))) AS device"                               \
	"  FROM window_io i JOIN windows w USING (run_id, window_id)"                       \
	"  WHERE w.run_id IN (%s) AND w.run_id IN" RUN_OK " GROUP BY 1, 2)"                 \
	" SELECT w.dev, w.run_id, i.bytes, i.service_ns + CASE WHEN p.device"              \
	" THEN COALESCE(i.idle_ns, 0) ELSE 0 END, i.last_c_ts_ns - w.ts_ns FROM window_io i" \
	" JOIN windows w USING (run_id, window_id)"                                         \
	" JOIN streams s ON s.run_id = w.run_id AND s.stream_id = w.stream_id"              \
	" JOIN pace p ON p.run_id = w.run_id AND p.dev = w.dev"                             \
	" WHERE i.service_ns IS NOT NULL AND w.size_pages >= s.max_size_pages"              \
	" AND (p.device OR NOT EXISTS (SELECT 1 FROM pace o WHERE o.dev = p.dev"            \
	" AND o.device))"                                                                   \
	" AND w.dev IN (SELECT dev FROM windows WHERE run_id = ?1) ORDER BY w.run_id"
/* the read requests' D2C */
#define D2C_SQL                                                                             \
	"SELECT dev, run_id, nr_sector * 512.0, c_ts_ns - d_ts_ns, NULL FROM requests"      \
	" WHERE d_ts_ns IS NOT NULL AND rwbs LIKE '%%R%%' AND run_id IN (%s)"               \
	" AND run_id IN" RUN_OK                                                             \
	" AND dev IN (SELECT dev FROM requests WHERE run_id = ?1) ORDER BY run_id"

static int prepare_inserts(struct model_ctx *m)
{
	m->ins_point = ra_sql_prepare(m->db, "INSERT INTO model_points (run_id, dev, timing,"
				      " size_class, n, bytes, service_ns, p50_ns, latency_ns, used)"
				      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	m->ins_model = ra_sql_prepare(m->db, "INSERT INTO device_models (run_id, dev, timing, form,"
				      " status, reason, runs, samples, sizes, access_ns,"
				      " bandwidth_bps, rms_rel_err, max_rel_err, chosen, min_bytes,"
				      " max_bytes, min_ns, max_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
				      " ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	m->ins_advice = ra_sql_prepare(m->db, "INSERT INTO device_advice (run_id, dev, fraction,"
				       " form, target_bytes, model_kb, thrash_kb, current_kb,"
				       " recommended_kb, reasoning, status, measured_kb, window_ratio,"
				       " next_kb) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	return m->ins_point && m->ins_model && m->ins_advice ? 0 : -1;
}

/* The pool's runs on @dev with the predictions of @best, their run sets, the advice. */
static int pool_device(struct model_ctx *m, uint32_t dev, const struct ra_model_fit *best)
{
	struct ra_member *mem = NULL;
	int n = 0, ret = -1;

	if (ra_pool_members(m->db, m->run_id, dev, &mem, &n) == 0 &&
	    ra_pool_store(m->db, m->run_id, dev, mem, n, best) == 0 && advise(m, dev) == 0)
		ret = 0;
	free(mem);
	return ret;
}

/* A set of devices, in order. */
struct devset {
	uint32_t *dev;
	int n, cap;
};

static int devset_add(struct devset *d, uint32_t dev)
{
	int i = 0;

	while (i < d->n && d->dev[i] < dev)
		i++;
	if (i < d->n && d->dev[i] == dev)
		return 0;
	if (d->n == d->cap) {
		uint32_t *p = realloc(d->dev, (size_t)(d->cap = d->cap ? d->cap * 2 : 8) * sizeof(*p));

		if (!p) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		d->dev = p;
	}
	memmove(d->dev + i + 1, d->dev + i, (size_t)(d->n - i) * sizeof(d->dev[0]));
	d->dev[i] = dev;
	d->n++;
	return 0;
}

static int page_dev(const struct ra_event *ev, int64_t seq, void *arg)
{
	(void)seq;
	return devset_add(arg, ev->page.dev);
}

/*
 * The devices the run's windows read from; with no window (every read hit
 * the page cache), the devices of its page events.
 */
static int run_devices(struct model_ctx *m, struct devset *d)
{
	struct ra_stmt *q = ra_sql_prepare(m->db, "SELECT DISTINCT dev FROM windows WHERE run_id = ?1");
	int rc = -1;

	if (q && ra_sql_bind(q, "i", m->run_id) == 0)
		while ((rc = ra_sql_step(q)) == 1)
			if (devset_add(d, (uint32_t)ra_sql_int(q, 0)) < 0) {
				rc = -1;
				break;
			}
	ra_sql_finalize(q);
	if (rc == 0 && d->n == 0)
		rc = ra_evstream_each(m->db, m->run_id, RA_STREAM_PAGE, page_dev, d);
	return rc < 0 ? -1 : 0;
}

/* The window model and advice of every device the run's windows read from. */
static int window_devices(struct model_ctx *m, struct msrc *s)
{
	static const struct ra_model_fit none = { .why = "no window with device time" };
	struct devset devs = { 0 };
	int ret = run_devices(m, &devs);

	for (int k = 0; ret == 0 && k < devs.n; k++) {
		struct ra_model_fit best = none, other;
		struct mdev *d = NULL;
		uint32_t dev = devs.dev[k];

		for (int i = 0; i < s->ndevs && !d; i++)
			d = s->devs[i].dev == dev ? &s->devs[i] : NULL;
		if ((d && fit_device(m, d, "window", &best, &other) < 0) ||
		    pool_device(m, dev, &best) < 0)
			ret = -1;
	}
	free(devs.dev);
	return ret;
}

static int d2c_devices(struct model_ctx *m, struct msrc *s)
{
	for (int i = 0; i < s->ndevs; i++) {
		struct ra_model_fit best, other;

		if (fit_device(m, &s->devs[i], "d2c", &best, &other) < 0)
			return -1;
	}
	return 0;
}

static int run_model(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o,
		     char *note)
{
	static const char *const src_name[2] = { "window", "d2c" };
	struct model_ctx m = { .db = db, .run_id = run_id };
	struct msrc *s = calloc(1, sizeof(*s));
	char sql[4096];
	int ret = -1;

	if (!s) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (prepare_inserts(&m) < 0)
		goto out;
	for (int k = 0; k < 2; k++) {
		if (k == 0)
			snprintf(sql, sizeof(sql), WINDOW_SQL, ra_model_pool_sql);
		else
			snprintf(sql, sizeof(sql), D2C_SQL, ra_model_pool_sql);
		if (collect(db, run_id, sql, s) < 0 ||
		    (k == 0 ? window_devices(&m, s) : d2c_devices(&m, s)) < 0)
			goto out;
		ra_pass_say(o, "model: %s: %d devices", src_name[k], s->ndevs);
		msrc_release(s);
	}
	ret = 0;
out:
	if (ret < 0 && ra_last_error_kind() != RA_ERR_IO)
		ra_set_error(RA_ERR_IO, "model of run %lld in '%s': %s", (long long)run_id,
			     ra_db_path(db), ra_sql_why(db));
	msrc_release(s);
	free(s);
	ra_sql_finalize(m.ins_point);
	ra_sql_finalize(m.ins_model);
	ra_sql_finalize(m.ins_advice);
	return ret;
}

static const char *const model_needs[] = { "block:block_rq_complete", NULL };
static const char *const model_tables[] = { "model_points", "device_models", "device_advice",
					    "model_runs", "model_sets", NULL };

const struct ra_pass ra_pass_model = {
	.name = "model",
	.needs = model_needs,
	.run = run_model,
	.tables = model_tables,
};
