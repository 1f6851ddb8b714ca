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
#include "ra_model.h"
#include "ra_sql.h"

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

struct model_ctx {
	struct ra_db *db;
	int64_t run_id;
	struct ra_stmt *ins_point, *ins_model, *ins_advice;
};

static int store_model(struct model_ctx *m, uint32_t dev, int nruns, const char *timing,
		       const struct ra_model_fit *f, int64_t samples, int sizes, bool chosen)
{
	double n = NAN;	/* bound as NULL */

	return ra_sql_put(m->ins_model, "iittttxixddddxdddd",
			  m->run_id, (int64_t)dev, timing, ra_model_form_name(f->form),
			  f->ok ? "ok" : "unidentifiable", f->why[0] ? f->why : NULL, nruns,
			  samples, sizes, f->ok ? f->access_ns : n, f->ok ? f->bw_bps : n,
			  f->ok ? f->rms_rel : n, f->ok ? f->max_rel : n, (int)chosen,
			  sizes > 0 ? f->min_bytes : n, sizes > 0 ? f->max_bytes : n,
			  sizes > 0 ? f->min_ns : n, sizes > 0 ? f->max_ns : n);
}

/*
 * The two forms fitted to the classes @cls of the pool's samples of @dev
 * (@nruns runs gave them); the chosen one is the one with the smaller error
 * (the sum form on a tie within 1%). Fills @best.
 */
static int fit_device(struct model_ctx *m, uint32_t dev, int nruns,
		      const struct ra_pool_class *cls, const char *timing,
		      struct ra_model_fit *best)
{
	struct ra_model_point pts[RA_MODEL_CLASSES];
	struct ra_model_fit f[2];
	int n = 0, sizes = 0, pick;
	int64_t samples = 0;

	for (int c = 0; c < RA_MODEL_CLASSES; c++) {
		const struct ra_pool_class *s = &cls[c];
		bool used = s->n >= RA_MODEL_MIN_SAMPLES;

		if (!s->n)
			continue;
		if (used) {
			pts[n].bytes = s->bytes / (double)s->n;
			pts[n].ns = s->sum_ns / (double)s->n;
			pts[n].n = (double)s->n;
			n++;
			samples += s->n;
			sizes++;
		}
		if (ra_sql_put(m->ins_point, "iitiiffidx", m->run_id, (int64_t)dev, timing,
			       (int64_t)(1LL << c), s->n, s->bytes / (double)s->n,
			       s->sum_ns / (double)s->n, s->p50,
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
		if (store_model(m, dev, nruns, timing, &f[i], samples, sizes, i == pick) < 0)
			return -1;
	*best = f[pick];
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

/* A device of the run's inputs; @pooled: its samples are pooled by the timing. */
struct input_dev {
	uint32_t dev;
	bool pooled;
};

/* The devices of run @m->run_id's stored inputs, @sql's rows, in *@d (freed by the caller). */
static int input_devices(struct model_ctx *m, const char *sql, struct input_dev **d, size_t *n)
{
	struct ra_stmt *q = ra_sql_prepare(m->db, sql);
	size_t cap = 0;
	int rc = -1;

	*d = NULL;
	*n = 0;
	if (q && ra_sql_bind(q, "i", m->run_id) == 0)
		while ((rc = ra_sql_step(q)) == 1) {
			if (ra_grow((void **)d, &cap, *n + 1, sizeof(**d)) < 0) {
				rc = -1;
				break;
			}
			(*d)[*n].dev = (uint32_t)ra_sql_int(q, 0);
			(*d)[(*n)++].pooled = ra_sql_int(q, 1) != 0;
		}
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

/*
 * The model of each device of the run's inputs by @timing: of the devices its
 * windows read from, with the pool's runs, run sets and advice ("window");
 * of the devices of its requests ("d2c"). *@fitted: the devices with samples.
 */
static int model_devices(struct model_ctx *m, const char *timing, int *fitted)
{
	static const struct ra_model_fit none = { .why = "no window with device time" };
	bool window = !strcmp(timing, "window");
	struct ra_pool_class cls[RA_MODEL_CLASSES];
	struct input_dev *devs;
	size_t ndevs;
	/* the window model of a device the run's windows read from: none without */
	int ret = input_devices(m, window ? "SELECT dev, COALESCE(all_windows, 0) > 0 FROM"
				" model_facts WHERE run_id = ?1 AND state IS NOT NULL ORDER BY dev" :
				"SELECT dev, 1 FROM model_facts WHERE run_id = ?1 AND requests > 0"
				" ORDER BY dev", &devs, &ndevs);

	*fitted = 0;
	for (size_t k = 0; ret == 0 && k < ndevs; k++) {
		struct ra_model_fit best = none;
		uint32_t dev = devs[k].dev;
		int nruns = 0, any = 0;

		if (devs[k].pooled &&
		    ra_model_pool_classes(m->db, m->run_id, dev, timing, cls, &nruns) < 0) {
			ret = -1;
			break;
		}
		for (int c = 0; devs[k].pooled && c < RA_MODEL_CLASSES; c++)
			any |= cls[c].n > 0;
		*fitted += any;
		if ((any && fit_device(m, dev, nruns, cls, timing, &best) < 0) ||
		    (window && pool_device(m, dev, &best) < 0))
			ret = -1;
	}
	free(devs);
	return ret;
}

/*
 * The run's own inputs as the passes that followed its load fed them, when
 * they did (the same as from its rows: docs/hacking.md): 1, 0 not, -1.
 */
static int fed_inputs(struct model_ctx *m, const struct ra_analyze_opts *o)
{
	char why[200];
	int rc = 0;

	if (!o || !o->live)
		return 0;	/* not a load the passes followed */
	if (!ra_live_followed(o->live))
		snprintf(why, sizeof(why), "the readahead pass read the events again");
	else if (!ra_block_live_followed(o, m->run_id))
		snprintf(why, sizeof(why), "the block pass did not follow the run");
	else
		rc = ra_model_inputs_store_fed(m->db, m->run_id, ra_live_feed(o->live), why,
					       sizeof(why));
	if (rc > 0)
		ra_pass_say(o, "model: the run's inputs as its rows were written");
	else if (rc == 0)
		ra_pass_say(o, "model: the run's inputs from its rows: %s", why);
	return rc;
}

/*
 * The inputs of the runs of the pool that have none stored (analysed before
 * they were kept): their own rows, the same whichever run's pass writes them.
 */
static int pool_inputs(struct model_ctx *m, const struct ra_analyze_opts *o)
{
	char sql[2048];
	struct ra_stmt *q;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	int rc = -1;

	snprintf(sql, sizeof(sql), "SELECT run_id FROM (%s) p WHERE NOT EXISTS (SELECT 1 FROM"
		 " model_facts f WHERE f.run_id = p.run_id) ORDER BY run_id", ra_model_pool_sql);
	if ((q = ra_sql_prepare(m->db, sql)) && ra_sql_bind(q, "i", m->run_id) == 0)
		while ((rc = ra_sql_step(q)) == 1) {
			if (ra_grow((void **)&ids, &cap, n + 1, sizeof(*ids)) < 0) {
				rc = -1;
				break;
			}
			ids[n++] = ra_sql_int(q, 0);
		}
	ra_sql_finalize(q);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		int fed = ids[i] == m->run_id ? fed_inputs(m, o) : 0;

		rc = fed < 0 ? -1 : fed ? 0 : ra_model_inputs_store(m->db, ids[i]);
	}
	free(ids);
	return rc;
}

static int run_model(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o,
		     char *note)
{
	struct model_ctx m = { .db = db, .run_id = run_id };
	int ret = -1, fitted;

	(void)note;
	if (prepare_inserts(&m) < 0 || pool_inputs(&m, o) < 0)
		goto out;
	for (int k = 0; k < 2; k++) {
		const char *timing = k ? "d2c" : "window";

		if (model_devices(&m, timing, &fitted) < 0)
			goto out;
		ra_pass_say(o, "model: %s: %d devices", timing, fitted);
	}
	ret = 0;
out:
	if (ret < 0 && ra_last_error_kind() != RA_ERR_IO && ra_last_error_kind() != RA_ERR_DATA)
		ra_set_error(RA_ERR_IO, "model of run %lld in '%s': %s", (long long)run_id,
			     ra_db_path(db), ra_sql_why(db));
	ra_sql_finalize(m.ins_point);
	ra_sql_finalize(m.ins_model);
	ra_sql_finalize(m.ins_advice);
	return ret;
}

static const char *const model_needs[] = { "block:block_rq_complete", NULL };
static const char *const model_tables[] = { "model_points", "device_models", "device_advice",
					    "model_runs", "model_sets", NULL };
static const char *const model_inputs[] = { "model_facts", "model_samples", NULL };

const struct ra_pass ra_pass_model = {
	.name = "model",
	.needs = model_needs,
	.run = run_model,
	.tables = model_tables,
	.inputs = model_inputs,
};
