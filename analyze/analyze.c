// SPDX-License-Identifier: LGPL-2.1
/*
 * The analysis driver: the table of passes, run for one run at a time,
 * replacing that run's derived rows.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze_local.h"
#include "ra_bigmem.h"
#include "ra_progress.h"
#include "ra_sql.h"
#include "ra_version.h"

static const struct ra_pass *const passes[] = {
	&ra_pass_readahead,
	&ra_pass_block,
	&ra_pass_model,
	&ra_pass_replay,
	NULL
};

void ra_pass_say(const struct ra_analyze_opts *o, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!o || o->verbose <= 0 || !o->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->notice(line, o->notice_arg);
}

int ra_analyze_exec(struct ra_db *db, const char *sql, int64_t run_id)
{
	struct ra_stmt *st = ra_sql_prepare(db, sql);
	int rc = -1;

	if (st && ra_sql_bind(st, ra_sql_params(st) ? "i" : "", run_id) == 0)
		rc = ra_sql_step(st);
	ra_sql_finalize(st);
	if (rc < 0) {
		ra_set_error(RA_ERR_IO, "cannot update '%s': %s", ra_db_path(db), ra_sql_why(db));
		return -1;
	}
	return 0;
}

/*
 * @sql with ?1 @run_id and ?2 @text (NULL: none), stepped once: its first
 * column into *@num and/or @buf (0 and "" without a row). 0, or -1 when it
 * fails, or when @need_row and it has no row.
 */
static int query_one(struct ra_db *db, const char *sql, int64_t run_id, const char *text,
		     bool need_row, int64_t *num, char *buf, size_t len)
{
	struct ra_stmt *st = ra_sql_prepare(db, sql);
	const char *t = NULL;
	int64_t v = 0;
	int rc = -1;

	if (st && ra_sql_bind(st, text ? "it" : "i", run_id, text) == 0 &&
	    (rc = ra_sql_step(st)) == 1) {
		if (num)
			ra_sql_row(st, "i", &v);
		else
			ra_sql_row(st, "t", &t);
	}
	if (num)
		*num = v;
	if (buf)
		snprintf(buf, len, "%s", t ? t : "");
	ra_sql_finalize(st);
	if (rc != 1 && (need_row || rc != 0)) {
		ra_set_error(RA_ERR_IO, "cannot read '%s': %s", ra_db_path(db), ra_sql_why(db));
		return -1;
	}
	return 0;
}

/* The number the one row of @sql gives. */
static int query_int(struct ra_db *db, const char *sql, int64_t run_id, const char *text,
		     int64_t *out)
{
	return query_one(db, sql, run_id, text, true, out, NULL, 0);
}

/* The text of the first row of @sql into @buf, "" when there is none. */
static int query_text(struct ra_db *db, const char *sql, int64_t run_id, const char *text,
		      char *buf, size_t len)
{
	return query_one(db, sql, run_id, text, false, NULL, buf, len);
}

/*
 * Why a pass cannot run: its events were not in the kernel (neither a
 * tracepoint nor a dynamic event), not recorded, or came from dynamic events
 * that failed their self-check. Returns 1 with @why filled, 0 when it can
 * run, -1 on error.
 */
static int missing_events(struct ra_db *db, int64_t run_id, const struct ra_pass *p, char *why,
			  size_t len)
{
	int64_t live;
	bool dynamic_ra = false;

	if (query_int(db, "SELECT COUNT(*) FROM runs WHERE run_id = ?1 AND origin = 'record'",
		      run_id, NULL, &live) < 0)
		return -1;
	for (const char *const *n = p->needs; *n; n++) {
		static const char sql[] =
			"SELECT COALESCE(MAX(v), -1) FROM (SELECT available * 2 + enabled AS v"
			" FROM tracepoints WHERE run_id = ?1 AND system || ':' || name = ?2"
			" UNION ALL SELECT 3 FROM event_sources WHERE run_id = ?1"
			" AND system || ':' || name = ?2 AND probe = 'kprobe')";
		char msg[300];
		int64_t v;

		if (query_int(db, sql, run_id, *n, &v) < 0 ||
		    query_text(db, "SELECT message FROM event_sources WHERE run_id = ?1"
			       " AND system || ':' || name = ?2 AND probe = 'none'", run_id, *n,
			       msg, sizeof(msg)) < 0)
			return -1;
		dynamic_ra |= strncmp(*n, "readahead:", 10) == 0;
		if (v == 3)
			continue;
		if (!live)
			snprintf(why, len, "%s is not in this trace", *n);
		else if (v == 2)
			snprintf(why, len, "%s was not recorded", *n);
		else
			snprintf(why, len, "%s is not available on this kernel%s%s%s", *n,
				 strncmp(*n, "readahead:", 10) == 0 ? " (Linux 6.18+)" : "",
				 !msg[0] ? "" : strcmp(msg, RA_NOT_ASKED) == 0 ? ", and " :
				 ", and no dynamic event could be made: ", msg);
		return 1;
	}
	if (dynamic_ra) {
		char msg[400];

		if (query_text(db, "SELECT message FROM self_checks WHERE run_id = ?1"
			       " AND name = 'readahead_windows' AND state = 'fail'", run_id, NULL,
			       msg, sizeof(msg)) < 0)
			return -1;
		if (msg[0]) {
			snprintf(why, len, "the run is inconsistent: its dynamic readahead events"
				 " failed the self-check (%s)", msg);
			return 1;
		}
	}
	return 0;
}

static int record(struct ra_db *db, int64_t run_id, const struct ra_pass *p, const char *state,
		  const char *message)
{
	if (ra_sql_exec(db, "INSERT OR REPLACE INTO analyses (run_id, pass, state, message,"
			" params, tool_version) VALUES (?, ?, ?, ?, NULL, ?)", "itttt", run_id,
			p->name, state, message, RA_VERSION) < 0) {
		ra_set_error(RA_ERR_IO, "cannot update '%s': %s", ra_db_path(db), ra_sql_why(db));
		return -1;
	}
	return 0;
}

static int clear_tables(struct ra_db *db, const char *const *tables, int64_t run_id)
{
	char sql[128];

	for (const char *const *t = tables; t && *t; t++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run_id = ?1", *t);
		if (ra_analyze_exec(db, sql, run_id) < 0)
			return -1;
	}
	return 0;
}

int ra_pass_clear(struct ra_db *db, const struct ra_pass *p, int64_t run_id)
{
	return clear_tables(db, p->tables, run_id) < 0 ||
	       clear_tables(db, p->inputs, run_id) < 0 ? -1 : 0;
}

/* Pass @p over run @run_id; @again: over the same rows as its last time (its inputs kept). */
static int run_pass(struct ra_db *db, int64_t run_id, const struct ra_pass *p,
		    const struct ra_analyze_opts *o, bool again)
{
	char why[256], note[RA_PASS_NOTE] = "";
	int missing, ret;
	bool live;
	int64_t t0;

	missing = missing_events(db, run_id, p, why, sizeof(why));
	if (missing < 0)
		return -1;
	/* rows written as the events were stored stay for the pass to keep or redo */
	live = !missing && p->live_rows && p->live_rows(o, run_id);
	if (!live && (again ? clear_tables(db, p->tables, run_id) : ra_pass_clear(db, p, run_id)) < 0)
		return -1;
	if (missing)
		return record(db, run_id, p, "unavailable", why);
	ra_db_set_progress(db, o ? o->progress : NULL, p->name);
	t0 = ra_clock_ns(CLOCK_MONOTONIC);
	ret = p->run(db, run_id, o, note);
	ra_db_set_progress(db, NULL, NULL);
	ra_progress_done(o ? o->progress : NULL);
	if (ret < 0)
		return -1;
	ra_pass_say(o, "%s: %.3f s", p->name, (double)(ra_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	return record(db, run_id, p, "ok", note[0] ? note : NULL);
}

/* A what-if run: its model is its source's, and it is a replay already. */
static int analyze_whatif(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o)
{
	for (int i = 0; passes[i]; i++) {
		if (passes[i] == &ra_pass_model || passes[i] == &ra_pass_replay) {
			if (record(db, run_id, passes[i], "unavailable",
				   "a what-if run: predicted with its source's device model") < 0)
				return -1;
			continue;
		}
		if (run_pass(db, run_id, passes[i], o, false) < 0)
			return -1;
	}
	return 0;
}

/*
 * The passes in order. A run whose replay needs a first pass over its events
 * (an imported trace) and that nothing followed as it was stored has it fed
 * by the readahead pass's reading, on a thread of its own: the replay then
 * reads the events once more instead of twice.
 */
static int analyze_passes(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o)
{
	const struct ra_pass *fed = &ra_pass_replay;
	struct ra_analyze_opts mine = o ? *o : (struct ra_analyze_opts){ 0 };
	struct ra_replay_live *scan = mine.replay_live || mine.live ? NULL :
				      fed->fed_begin(db, run_id);
	struct ra_feed feed = { .q = scan ? ra_tapq_start(fed->fed_event, scan) : NULL };
	int ret = 0;

	mine.feed = feed.q ? &feed : NULL;
	for (int i = 0; passes[i] && ret == 0; i++) {
		if (passes[i] == fed && feed.q) {
			/* its first reading has every event the readahead pass read */
			ra_tapq_end(feed.q);
			feed.q = NULL;
			mine.feed = NULL;
			mine.replay_live = feed.fed ? scan : NULL;
		}
		ret = run_pass(db, run_id, passes[i], &mine, false);
	}
	ra_tapq_end(feed.q);
	if (scan)
		fed->fed_free(scan);
	return ret;
}

int ra_analyze_in_load(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o)
{
	int64_t exists, whatif;

	if (query_int(db, "SELECT COUNT(*) FROM runs WHERE run_id = ?1", run_id, NULL, &exists) < 0)
		return -1;
	if (!exists) {
		ra_set_error(RA_ERR_USAGE, "no run %lld in '%s'", (long long)run_id,
			     ra_db_path(db));
		return -1;
	}
	if (query_int(db, "SELECT COUNT(*) FROM runs WHERE run_id = ?1 AND origin = 'whatif'",
		      run_id, NULL, &whatif) < 0)
		return -1;
	return whatif ? analyze_whatif(db, run_id, o) : analyze_passes(db, run_id, o);
}

/*
 * A run's device model pools the runs recorded like it, as they are when it
 * is analysed: analysing one run changes no other run's results (it only
 * stores the model inputs of a member analysed before they were kept). A
 * recording or an import of several runs fits the earlier ones again once
 * the last is in, from the inputs their own passes stored.
 */
int ra_analyze_model_in_load(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o)
{
	return run_pass(db, run_id, &ra_pass_model, o, true);
}

int ra_analyze_models(struct ra_db *db, const int64_t *ids, size_t n,
		      const struct ra_analyze_opts *o)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (ra_db_load_begin(db) < 0)
			return -1;
		if (ra_analyze_model_in_load(db, ids[i], o) < 0) {
			ra_db_load_abort(db);
			return -1;
		}
		if (ra_db_load_commit(db) < 0)
			return -1;
	}
	return 0;
}

int ra_analyze_run(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o)
{
	int64_t whatif;

	/* a what-if's accesses are its source's: ra-whatif makes it again */
	if (query_int(db, "SELECT COUNT(*) FROM runs WHERE run_id = ?1 AND origin = 'whatif'",
		      run_id, NULL, &whatif) < 0)
		return -1;
	if (whatif) {
		ra_pass_say(o, "run %lld: a what-if run, left as ra-whatif made it",
			    (long long)run_id);
		return 0;
	}
	if (ra_db_load_begin(db) < 0)
		return -1;
	if (ra_analyze_in_load(db, run_id, o) < 0) {
		ra_db_load_abort(db);
		return -1;
	}
	return ra_db_load_commit(db);
}

/* Room for @need elements of *@p: its capacity doubled, in big memory or malloc's */
static int grow_array(void **p, size_t *cap, size_t need, size_t size, bool big)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = big ? ra_big_realloc(*p, n * size) : realloc(*p, n * size);
	if (!q) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (!big)	/* ra_big_realloc() zeroes what it adds */
		memset((char *)q + *cap * size, 0, (n - *cap) * size);
	*p = q;
	*cap = n;
	return 0;
}

int ra_grow(void **p, size_t *cap, size_t need, size_t size)
{
	return grow_array(p, cap, need, size, false);
}

int ra_grow_big(void **p, size_t *cap, size_t need, size_t size)
{
	return grow_array(p, cap, need, size, true);
}
