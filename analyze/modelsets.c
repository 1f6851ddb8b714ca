// SPDX-License-Identifier: LGPL-2.1
/*
 * The runs of a model's pool, one by one (model_runs), and the run sets they
 * form, one per read_ahead_kb (model_sets): what each run read, how fast,
 * who set the pace, whether it thrashed, and whether it counts at all (a run
 * that failed, was killed or interrupted does not). The advice and the
 * report read a pool back with ra_model_pool_load().
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "ra_model.h"
#include "ra_sql.h"

/*
 * One statement with ?1 = @a, ?2 = @b (and ?3 = @c when it has one): the first
 * row's @n values, NAN where NULL or without a row.
 */
static int row_values(struct ra_db *db, const char *sql, int64_t a, int64_t b, double c,
		      double *out, int n)
{
	static const char *const by_params[] = { "", "i", "ii", "iif" };
	struct ra_stmt *q = ra_sql_prepare(db, sql);
	int rc = -1, np = q ? ra_sql_params(q) : 0;

	for (int i = 0; i < n; i++)
		out[i] = NAN;
	if (q && ra_sql_bind(q, by_params[np < 3 ? np : 3], a, b, c) == 0 &&
	    (rc = ra_sql_step(q)) == 1)
		for (int i = 0; i < n && i < 30; i++) {
			char fmt[32];	/* the columns before i skipped, then i */

			memset(fmt, 'n', (size_t)i);
			fmt[i] = 'd';
			fmt[i + 1] = '\0';
			ra_sql_row(q, fmt, &out[i]);
		}
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

static double or0(double v)
{
	return isnan(v) ? 0 : v;
}

/* -1, with the error of @db's last statement (or memory) for the pool of @run_id */
static int pool_error(struct ra_db *db, int64_t run_id)
{
	ra_set_error(RA_ERR_IO, "cannot read the model pool of run %lld in '%s': %s",
		     (long long)run_id, ra_db_path(db), ra_sql_why(db));
	return -1;
}

/*
 * the block device whose snapshots and setting stand for the file system's
 * device ?2 (a run without snapshots, an import, has none: its requests are
 * not searched)
 */
#define SNAP_DEV                                                                            \
	"COALESCE((SELECT dev FROM device_snapshots WHERE run_id = ?1 AND dev = ?2"         \
	" AND phase = 'before'), CASE WHEN EXISTS (SELECT 1 FROM device_snapshots"          \
	" WHERE run_id = ?1) THEN (SELECT q.dev FROM requests q JOIN windows w"             \
	" ON w.run_id = q.run_id AND w.window_id = q.window_id JOIN device_snapshots s"     \
	" ON s.run_id = q.run_id AND s.dev = q.dev AND s.phase = 'before'"                  \
	" WHERE q.run_id = ?1 AND w.dev = ?2 LIMIT 1) END)"

static const char sql_run[] =
	"SELECT exit_status, exit_signal, interrupted, wall_ns, COALESCE(page_size, 4096),"
	" (SELECT a.value - b.value FROM vmstat a JOIN vmstat b ON b.run_id = a.run_id"
	"  AND b.name = a.name AND b.phase = 'before' WHERE a.run_id = ?1"
	"  AND a.name = 'oom_kill' AND a.phase = 'after'),"
	/* the setting the file system read ahead with: its bdi's (btrfs has its own),
	 * else its block device's; a member queue's own value is not it */
	" COALESCE((SELECT MAX(read_ahead_kb) FROM filesystems WHERE run_id = ?1 AND fs_dev = ?2),"
	"  (SELECT read_ahead_kb FROM device_snapshots WHERE run_id = ?1 AND phase = 'before'"
	"  AND dev = " SNAP_DEV ")),"
	" (SELECT (e.sectors_read - b.sectors_read) * 512.0 FROM device_snapshots b"
	"  JOIN device_snapshots e ON e.run_id = b.run_id AND e.dev = b.dev AND e.phase = 'after'"
	"  WHERE b.run_id = ?1 AND b.phase = 'before' AND b.dev = " SNAP_DEV "),"
	" (SELECT value FROM v_run_metrics WHERE run_id = ?1 AND metric = 'read_bw_bytes')"
	" FROM runs WHERE run_id = ?1";

/* how many devices the run's windows with I/O read from */
static const char sql_io_devs[] =
	"SELECT COUNT(DISTINCT w.dev) FROM windows w JOIN window_io i USING (run_id, window_id)"
	" WHERE w.run_id = ?1";

/* windows with device time: count, service, idle, held, first opened, last completed */
static const char sql_io[] =
	"SELECT COUNT(*), SUM(i.service_ns), SUM(COALESCE(i.idle_ns, 0)),"
	" SUM(COALESCE(i.held_ns, 0)), MIN(w.ts_ns), MAX(i.last_c_ts_ns)"
	" FROM window_io i JOIN windows w USING (run_id, window_id)"
	" WHERE w.run_id = ?1 AND w.dev = ?2 AND i.service_ns IS NOT NULL";

/* the steady window: the size most windows at their stream's largest size had */
static const char sql_steady[] =
	"SELECT w.size_pages FROM windows w JOIN streams t ON t.run_id = w.run_id"
	" AND t.stream_id = w.stream_id WHERE w.run_id = ?1 AND w.dev = ?2"
	" AND w.size_pages >= t.max_size_pages AND w.pages_added > 0"
	" GROUP BY w.size_pages ORDER BY COUNT(*) DESC, w.size_pages DESC LIMIT 1";

/*
 * fates of the windows of the steady size class (?3 pages and up to twice
 * it), pages they covered inside the file and added, the kernel's window
 */
static const char sql_fates[] =
	"SELECT SUM(CASE WHEN size_pages * 2 > ?3 THEN ra_pages_added END),"
	" SUM(CASE WHEN size_pages * 2 > ?3 THEN thrashed END),"
	" SUM(MAX(MIN(start_page + size_pages, COALESCE(eof_page, start_page + size_pages))"
	"  - start_page, 0)), SUM(pages_added),"
	" MAX(CASE WHEN pattern NOT IN ('around', 'forced') THEN ra_pages END), COUNT(*),"
	" SUM(pending + evicted_unused)"
	" FROM windows WHERE run_id = ?1 AND dev = ?2";

static void member_state(struct ra_member *m, const double *r)
{
	const char *oom = r[5] > 0 ? ": the OOM killer ended a process during the run" : "";

	m->state = "used";
	if (!isnan(r[1])) {
		m->state = "killed";
		snprintf(m->reason, sizeof(m->reason), "killed by signal %.0f%s", r[1], oom);
	} else if (!isnan(r[0]) && r[0] != 0) {
		m->state = "failed";
		snprintf(m->reason, sizeof(m->reason), "exit status %.0f%s", r[0], oom);
	} else if (r[2] > 0) {
		m->state = "interrupted";
		snprintf(m->reason, sizeof(m->reason), "interrupted: the trace ends early");
	}
}

int ra_member_sums(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_member_sums *w)
{
	if (row_values(db, sql_io, run_id, dev, 0, w->io, 6) < 0 ||
	    row_values(db, sql_steady, run_id, dev, 0, &w->steady, 1) < 0 ||
	    row_values(db, sql_fates, run_id, dev, or0(w->steady), w->fates, 7) < 0 ||
	    row_values(db, sql_io_devs, run_id, 0, 0, &w->io_devs, 1) < 0)
		return -1;
	return 0;
}

int ra_member_load(struct ra_db *db, uint32_t dev, struct ra_member *m)
{
	struct ra_member_sums w;

	return ra_member_sums(db, m->run_id, dev, &w) < 0 ? -1 : ra_member_finish(db, dev, &w, m);
}

int ra_member_finish(struct ra_db *db, uint32_t dev, const struct ra_member_sums *w,
		     struct ra_member *m)
{
	const double *io = w->io, *st = &w->steady, *fa = w->fates;
	double r[9];
	int page;

	if (row_values(db, sql_run, m->run_id, dev, 0, r, 9) < 0)
		return -1;
	page = isnan(r[4]) ? 4096 : (int)r[4];
	member_state(m, r);
	m->setting_kb = isnan(r[6]) ? (int)(or0(fa[4]) * page / 1024) : (int)r[6];
	m->ra_kb = (int)(or0(fa[4]) * page / 1024);
	m->window_bytes = or0(st[0]) * page;
	m->windows = (int)or0(io[0]);
	m->all_windows = (int)or0(fa[5]);
	m->io_ns = or0(io[5]) - or0(io[4]);
	m->idle_share = m->io_ns > 0 ? or0(io[2]) / m->io_ns : 0;
	m->held_share = m->io_ns > 0 ? or0(io[3]) / m->io_ns : 0;
	m->device_paced = or0(io[3]) >= or0(io[2]) || m->held_share >= RA_MODEL_HELD_SHARE;
	m->thrash_share = or0(fa[0]) > 0 ? or0(fa[1]) / fa[0] : 0;
	m->thrashed_pages = (int64_t)or0(fa[1]);
	m->cached_share = or0(fa[2]) > 0 ? 1 - or0(fa[3]) / fa[2] : 0;
	if (m->cached_share < 0)
		m->cached_share = 0;
	m->unused_share = or0(fa[3]) > 0 ? or0(fa[6]) / fa[3] : 0;
	m->app_measured = w->io_devs == 1 && r[8] > 0;
	if (m->app_measured)
		m->measured_bps = r[8];
	else if (r[7] > 0 && r[3] > 0)
		m->measured_bps = r[7] / (r[3] / 1e9);
	if (!strcmp(m->state, "used") && !m->windows && !m->all_windows && r[7] > 0) {
		m->state = "no_readahead";
		snprintf(m->reason, sizeof(m->reason),
			 "no window, though the device read %.1f MiB: reads around readahead"
			 " (MADV_RANDOM, POSIX_FADV_RANDOM, O_DIRECT)",
			 r[7] / (1024 * 1024));
	} else if (!strcmp(m->state, "used") && !m->windows) {
		m->state = "no_io";
		snprintf(m->reason, sizeof(m->reason), m->all_windows ?
			 "its windows found their pages in the page cache" :
			 "no readahead window: every read hit the page cache");
	}
	return 0;
}

/*
 * The run sets of a pool are those of the run's workload: the runs of the
 * pool that no parameter both runs know tells apart from it (numjobs 1 and 4,
 * SCEN=seq and SCEN=random are two workloads; read_ahead_kb, the repeat and
 * the event source are not the workload). Their throughput is what the
 * advice weighs; the device model pools every run of the pool, since its
 * samples are the device's.
 */
static const char other_workload_sql[] =
	"SELECT 1 FROM v_run_params a JOIN v_run_params b ON b.name = a.name AND b.scope IS a.scope"
	" WHERE a.run_id = ?1 AND b.run_id = p.run_id"
	" AND a.name NOT IN ('read_ahead_kb', 'repeat', 'events') AND b.value IS NOT a.value";

int ra_model_facts_load(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_member *m)
{
	static const char *const states[] = { "used", "failed", "killed", "interrupted",
					      "no_io", "no_readahead" };
	struct ra_stmt *q = ra_sql_prepare(db, "SELECT state, reason, read_ahead_kb, ra_kb,"
					   " window_bytes, windows, all_windows, io_ns, idle_share,"
					   " held_share, device_paced, thrash_share, thrashed_pages,"
					   " cached_share, unused_share, app_measured, measured_bps"
					   " FROM model_facts WHERE run_id = ?1 AND dev = ?2"
					   " AND state IS NOT NULL");
	int rc = -1;

	if (q && ra_sql_bind(q, "ii", run_id, (int64_t)dev) == 0 && (rc = ra_sql_step(q)) == 1) {
		const char *st, *why;
		int paced, app;

		memset(m, 0, sizeof(*m));
		m->run_id = run_id;
		ra_sql_row(q, "ttxxfxxfffxfiffxf", &st, &why, &m->setting_kb, &m->ra_kb,
			   &m->window_bytes, &m->windows, &m->all_windows, &m->io_ns,
			   &m->idle_share, &m->held_share, &paced, &m->thrash_share,
			   &m->thrashed_pages, &m->cached_share, &m->unused_share, &app,
			   &m->measured_bps);
		m->device_paced = paced;
		m->app_measured = app;
		m->state = NULL;
		for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
			if (st && !strcmp(st, states[i]))
				m->state = states[i];
		if (!m->state) {
			ra_set_error(RA_ERR_DATA, "run %lld in '%s' has a model_facts row of"
				     " unknown state '%s'", (long long)run_id, ra_db_path(db),
				     st ? st : "");
			rc = -1;
		}
		snprintf(m->reason, sizeof(m->reason), "%s", why ? why : "");
	}
	ra_sql_finalize(q);
	return rc;
}

int ra_pool_members(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_member **out,
		    int *n)
{
	char sql[2048];
	struct ra_stmt *q;
	struct ra_member *m = NULL;
	int rc = -1, cap = 0;

	*out = NULL;
	*n = 0;
	snprintf(sql, sizeof(sql), "SELECT run_id FROM (%s) p WHERE NOT EXISTS (%s) ORDER BY run_id",
		 ra_model_pool_sql, other_workload_sql);
	q = ra_sql_prepare(db, sql);
	if (!q || ra_sql_bind(q, "i", run_id) < 0) {
		ra_sql_finalize(q);
		return pool_error(db, run_id);
	}
	while ((rc = ra_sql_step(q)) == 1) {
		if (*n == cap) {
			struct ra_member *p = realloc(m, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*p));

			if (!p)
				break;
			m = p;
		}
		int64_t id;
		int have;

		ra_sql_row(q, "i", &id);
		/* a member's facts as its own analysis stored them; read again without */
		if ((have = ra_model_facts_load(db, id, dev, &m[*n])) < 0)
			break;
		if (!have) {
			memset(&m[*n], 0, sizeof(m[0]));
			m[*n].run_id = id;
			if (ra_member_load(db, dev, &m[*n]) < 0)
				break;
		}
		(*n)++;
	}
	if (rc != 0)
		pool_error(db, run_id);
	ra_sql_finalize(q);
	*out = m;
	return rc == 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v (@n values, reordered). */
static double median(double *v, int n)
{
	if (n < 1)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The lower median of @v: a value one of them has (a window size), not between two. */
static double median_low(double *v, int n)
{
	if (n < 1)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[(n - 1) / 2];
}

/* The medians over the used runs @m[i] of setting @kb of the field at @off. */
static double median_of(const struct ra_member *m, int n, int kb, size_t off, double *tmp,
			double (*mid)(double *, int))
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (!strcmp(m[i].state, "used") && m[i].setting_kb == kb)
			tmp[k++] = *(const double *)((const char *)&m[i] + off);
	return mid(tmp, k);
}

#define MEDIAN(field) \
	median_of(m, n, s->setting_kb, offsetof(struct ra_member, field), tmp, median)
#define MEDIAN_LOW(field) \
	median_of(m, n, s->setting_kb, offsetof(struct ra_member, field), tmp, median_low)

/* One run set: setting @kb of the used runs @m. */
static void form_set(const struct ra_member *m, int n, int kb, struct ra_model_set *s,
		     double *tmp)
{
	int paced = 0;

	memset(s, 0, sizeof(*s));
	s->setting_kb = kb;
	for (int i = 0; i < n; i++) {
		if (strcmp(m[i].state, "used") || m[i].setting_kb != kb)
			continue;
		s->runs++;
		s->thrashed_pages += m[i].thrashed_pages;
		paced += m[i].device_paced ? -1 : 1;
		if (m[i].ra_kb > s->ra_kb)
			s->ra_kb = m[i].ra_kb;
	}
	s->window_bytes = MEDIAN_LOW(window_bytes);	/* a size the runs had */
	s->measured_bps = MEDIAN(measured_bps);
	s->predicted_bps = MEDIAN(predicted_bps);
	s->thrash_share = MEDIAN(thrash_share);
	s->idle_share = MEDIAN(idle_share);
	s->held_share = MEDIAN(held_share);
	s->cached_share = MEDIAN(cached_share);
	s->unused_share = MEDIAN(unused_share);
	s->io_s = MEDIAN(io_ns) / 1e9;
	s->reader_paced = paced > 0;
	ra_model_check(s);
}

/* The run sets of the used runs of @m, by setting, in *@out (freed by the caller). */
static int form_sets(const struct ra_member *m, int n, struct ra_model_set **out, int *nsets)
{
	double *tmp = calloc((size_t)n + 1, sizeof(*tmp));
	struct ra_model_set *s = calloc((size_t)n + 1, sizeof(*s));
	int k = 0;

	*out = s;
	*nsets = 0;
	if (!tmp || !s) {
		free(tmp);
		return -1;
	}
	for (int kb = -1;;) {	/* ascending distinct settings */
		int next = -1;

		for (int i = 0; i < n; i++)
			if (!strcmp(m[i].state, "used") && m[i].setting_kb > kb &&
			    (next < 0 || m[i].setting_kb < next))
				next = m[i].setting_kb;
		if (next < 0)
			break;
		form_set(m, n, next, &s[k++], tmp);
		kb = next;
	}
	*nsets = k;
	free(tmp);
	return 0;
}

/* A known value, else NaN: bound as NULL by 'd'. */
static double known(double v, bool is)
{
	return is ? v : NAN;
}

static int store_member(struct ra_stmt *q, int64_t run_id, uint32_t dev,
			const struct ra_member *m)
{
	bool io = m->windows > 0;

	return ra_sql_put(q, "iiixxdxtttdddiddddd", run_id,
			  (int64_t)dev, m->run_id, m->setting_kb, m->ra_kb,
			  known(m->window_bytes, m->window_bytes > 0), m->windows, m->state,
			  m->reason[0] ? m->reason : NULL,
			  io ? (m->device_paced ? "device" : "reader") : NULL,
			  known(m->idle_share, io), known(m->held_share, io),
			  known(m->thrash_share, io), m->thrashed_pages,
			  known(m->cached_share, m->all_windows > 0), known(m->io_ns, io),
			  known(m->measured_bps, m->measured_bps > 0),
			  known(m->predicted_bps, m->predicted_bps > 0),
			  known(m->unused_share, m->all_windows > 0));
}

static int store_set(struct ra_stmt *q, int64_t run_id, uint32_t dev, const struct ra_model_set *s)
{
	return ra_sql_put(q, "iixxxdddottfffifff", run_id, (int64_t)dev, s->setting_kb, s->runs,
			  s->ra_kb, known(s->window_bytes, s->window_bytes > 0),
			  known(s->measured_bps, s->measured_bps > 0),
			  known(s->predicted_bps, s->predicted_bps > 0), s->explained >= 0,
			  (int64_t)s->explained, s->why[0] ? s->why : NULL,
			  s->reader_paced ? "reader" : "device", s->idle_share, s->held_share,
			  s->thrash_share, s->thrashed_pages, s->cached_share, s->io_s * 1e9,
			  s->unused_share);
}

int ra_pool_store(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_member *m, int n,
		  const struct ra_model_fit *fit)
{
	struct ra_stmt *qr = NULL, *qs = NULL;
	struct ra_model_set *sets = NULL;
	int nsets = 0, ret = -1;

	/* against the benchmark's own bytes, the device's bytes it never used do not count */
	for (int i = 0; i < n; i++)
		m[i].predicted_bps = fit->ok && m[i].window_bytes > 0 ?
					     ra_model_throughput(fit, m[i].window_bytes) *
						     (m[i].app_measured ? 1 - m[i].unused_share : 1) :
					     0;
	if (form_sets(m, n, &sets, &nsets) < 0 ||
	    !(qr = ra_sql_prepare(db, "INSERT INTO model_runs (run_id, dev, member, read_ahead_kb,"
				  " ra_kb, window_bytes, windows, state, reason, pace, idle_share,"
				  " held_share, thrash_share, thrashed_pages, cached_share, io_ns,"
				  " measured_bps, predicted_bps, unused_share) VALUES (?, ?, ?, ?,"
				  " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) ||
	    !(qs = ra_sql_prepare(db, "INSERT INTO model_sets (run_id, dev, read_ahead_kb, runs,"
				  " ra_kb, window_bytes, measured_bps, predicted_bps, explained,"
				  " reason, pace, idle_share, held_share, thrash_share,"
				  " thrashed_pages, cached_share, io_ns, unused_share) VALUES (?, ?,"
				  " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")))
		goto out;
	for (int i = 0; i < n; i++)
		if (store_member(qr, run_id, dev, &m[i]) < 0)
			goto out;
	for (int i = 0; i < nsets; i++)
		if (store_set(qs, run_id, dev, &sets[i]) < 0)
			goto out;
	ret = 0;
out:
	if (ret < 0)
		pool_error(db, run_id);
	ra_sql_finalize(qr);
	ra_sql_finalize(qs);
	free(sets);
	return ret;
}

/* The run sets of @run_id's pool on @dev, from model_sets. */
static int load_sets(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_model_pool *p)
{
	struct ra_stmt *q = ra_sql_prepare(db, "SELECT read_ahead_kb, runs, ra_kb,"
					   " COALESCE(window_bytes, 0), COALESCE(measured_bps, 0),"
					   " COALESCE(predicted_bps, 0), pace, idle_share, held_share,"
					   " thrash_share, thrashed_pages, cached_share, io_ns,"
					   " COALESCE(unused_share, 0) FROM model_sets"
					   " WHERE run_id = ?1 AND dev = ?2 ORDER BY read_ahead_kb");
	int rc = -1, cap = 0;

	if (q && ra_sql_bind(q, "ii", run_id, (int64_t)dev) == 0)
		rc = 1;
	while (rc == 1 && (rc = ra_sql_step(q)) == 1) {
		struct ra_model_set *s;
		const char *pace;
		double io_ns;

		if (p->nsets == cap) {
			s = realloc(p->sets, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*s));
			if (!s) {
				rc = -1;
				break;
			}
			p->sets = s;
		}
		s = &p->sets[p->nsets++];
		memset(s, 0, sizeof(*s));
		ra_sql_row(q, "xxxffftfffiff", &s->setting_kb, &s->runs, &s->ra_kb, &s->window_bytes,
			   &s->measured_bps, &s->predicted_bps, &pace, &s->idle_share,
			   &s->held_share, &s->thrash_share, &s->thrashed_pages, &s->cached_share,
			   &io_ns);
		ra_sql_row(q, "nnnnnnnnnnnnnf", &s->unused_share);
		s->reader_paced = pace && !strcmp(pace, "reader");
		s->io_s = io_ns / 1e9;
		ra_model_check(s);	/* explained, cause and why, as stored */
	}
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

/* The chosen (@chosen 1) or other window fit of @run_id on @dev; !ok when none is stored. */
static int load_fit(struct ra_db *db, int64_t run_id, uint32_t dev, int chosen,
		    struct ra_model_fit *f)
{
	struct ra_stmt *q = ra_sql_prepare(db, "SELECT " RA_MODEL_FIT_COLS("") " FROM"
					   " device_models WHERE run_id = ?1 AND dev = ?2"
					   " AND timing = 'window' AND chosen = ?3");
	int rc = -1;

	memset(f, 0, sizeof(*f));
	if (q && ra_sql_bind(q, "iix", run_id, (int64_t)dev, chosen) == 0 &&
	    (rc = ra_sql_step(q)) == 1)
		ra_model_fit_row(q, 0, f);
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

int ra_model_pool_load(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_model_pool *p)
{
	double v[4];

	memset(p, 0, sizeof(*p));
	p->current_kb = -1;
	if (load_fit(db, run_id, dev, 1, &p->fit) < 0 || load_fit(db, run_id, dev, 0, &p->other) < 0 ||
	    load_sets(db, run_id, dev, p) < 0 ||
	    row_values(db, "SELECT SUM(state IN ('failed', 'killed', 'interrupted')),"
		       " MAX(CASE WHEN member = ?1 THEN read_ahead_kb END), SUM(state = 'no_io'),"
		       " SUM(state = 'no_readahead') FROM model_runs WHERE run_id = ?1 AND dev = ?2",
		       run_id, dev, 0, v, 4) < 0) {
		ra_set_error(RA_ERR_IO, "cannot read the model of run %lld in '%s': %s",
			     (long long)run_id, ra_db_path(db), ra_sql_why(db));
		ra_model_pool_release(p);
		return -1;
	}
	p->left_out = (int)or0(v[0]);
	p->current_kb = isnan(v[1]) ? -1 : (int)v[1];
	p->no_io = (int)or0(v[2]);
	p->no_readahead = (int)or0(v[3]);
	return 0;
}

void ra_model_pool_release(struct ra_model_pool *p)
{
	free(p->sets);
	p->sets = NULL;
	p->nsets = 0;
}

int ra_sweep_parse(const char *spec, struct ra_sweep_limits *l)
{
	int lo = 16, hi = 4096, n = 0;

	*l = (struct ra_sweep_limits){ .lo_kb = lo, .hi_kb = hi, .max_runs = 12,
				       .max_repeats = 3, .margin = 0.05 };
	if (strcmp(spec, "auto") == 0)
		return 0;
	if (sscanf(spec, "auto:%d-%d%n", &lo, &hi, &n) != 2 || spec[n] || lo < 4 || hi < lo * 4 ||
	    hi > (1 << 20)) {
		ra_set_error(RA_ERR_USAGE, "bad automatic sweep '%s' (want auto or auto:LO-HI,"
			     " LO >= 4, HI >= 4 x LO)", spec);
		return -1;
	}
	l->lo_kb = lo;
	l->hi_kb = hi;
	return 0;
}

/* The device of run @run_id's windows with the most of them that has an advice. */
static int main_device(struct ra_db *db, int64_t run_id, uint32_t *dev)
{
	double v[1];

	if (row_values(db, "SELECT w.dev FROM windows w WHERE w.run_id = ?1 AND w.dev IN"
		       " (SELECT dev FROM device_advice WHERE run_id = ?1) GROUP BY w.dev"
		       " ORDER BY COUNT(*) DESC LIMIT 1", run_id, 0, 0, v, 1) < 0)
		return -1;
	*dev = isnan(v[0]) ? 0 : (uint32_t)v[0];
	return isnan(v[0]) ? 0 : 1;
}

int ra_sweep_step(struct ra_db *db, int64_t run_id, double fraction,
		  const struct ra_sweep_limits *l, struct ra_sweep_state *s)
{
	struct ra_model_pool p = { .current_kb = -1 };
	int found = 0;

	memset(s, 0, sizeof(*s));
	if (run_id > 0 && (found = main_device(db, run_id, &s->dev)) < 0) {
		ra_set_error(RA_ERR_IO, "cannot read '%s': %s", ra_db_path(db), ra_sql_why(db));
		return -1;
	}
	if (run_id > 0 && !found) {
		snprintf(s->why, sizeof(s->why), "the run read nothing from the device: nothing to"
			 " sweep");
		return 0;
	}
	if (found && ra_model_pool_load(db, run_id, s->dev, &p) < 0)
		return -1;
	ra_model_advise(&p, fraction, &s->advice);
	for (int i = 0; i < p.nsets; i++)
		s->runs += p.sets[i].runs;
	s->runs += p.left_out;
	ra_sweep_next(&p, &s->advice, l, &s->next_kb, s->why, sizeof(s->why));
	ra_model_pool_release(&p);
	return 0;
}
