// SPDX-License-Identifier: LGPL-2.1
/*
 * A device model pooled from its members' stored inputs (model_facts and
 * model_samples, analyze/modelinputs.c): each size class's count, sums and
 * median equal those of the members' samples gathered by brute force here,
 * with the rules of the pool (runs that count, device-paced runs only where
 * some were, a class a member holds less than a tenth of left out), across
 * many parts of samples; a refit from the stored inputs gives the same rows,
 * and a member without stored inputs gets them from its own rows.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "db_local.h"
#include "ra_db.h"
#include "test.h"

static char dir[64];

#define DEV 40			/* the file system's */
#define DISK 7340032		/* its requests' */
#define NRUNS 4
#define NCLS 48

struct run {
	int windows, requests;
	bool paced, killed;
	int big_share;		/* percent of its windows of 512 KiB */
};

/* 1 and 2 device-paced, 3 reader-paced (left out), 4 killed (left out) */
static const struct run runs[NRUNS] = {
	{ 7000, 5000, true, false, 30 },
	{ 2500, 1500, true, false, 5 },
	{ 500, 300, false, false, 30 },
	{ 700, 900, true, true, 30 },
};

/* brute force: every sample of the pool by class */
struct bucket {
	int64_t *ns;
	int64_t n, n_lat;
	double bytes, sum_ns, sum_lat;
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	return test_xorshift(&rng);
}

static int cls_of(int64_t bytes)
{
	int c = 0;

	while ((1LL << (c + 1)) <= bytes)
		c++;
	/* lround(log2()) of a power of two is its exponent */
	return c;
}

static void sql(struct ra_db *db, const char *s)
{
	char *err = NULL;

	if (sqlite3_exec(ra_db_sqlite(db), s, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", s, err);
		sqlite3_free(err);
		CHECK(0);
	}
}

static void add(struct bucket *b, int64_t ns, int64_t bytes, int64_t lat)
{
	b->ns = realloc(b->ns, (size_t)(b->n + 1) * sizeof(*b->ns));
	b->ns[b->n++] = ns;
	b->bytes += (double)bytes;
	b->sum_ns += (double)ns;
	if (lat >= 0) {
		b->sum_lat += (double)lat;
		b->n_lat++;
	}
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The rows of the runs, and the expected classes: @win the window samples,
 * @d2c the requests', each filtered by the pool's rules.
 */
static void make_runs(struct ra_db *db, struct bucket *win, struct bucket *d2c)
{
	sqlite3 *s = ra_db_sqlite(db);
	sqlite3_stmt *w, *io, *rq;
	char buf[512];

	sqlite3_prepare_v2(s, "INSERT INTO windows (run_id, window_id, seq, ts_ns, pid, dev, ino,"
			   " stream_id, trigger, pattern, mmap, start_page, size_pages,"
			   " async_size_pages, fallback, demand_pages, pages_added, ra_pages_added,"
			   " used, evicted_unused, thrashed, pending) VALUES (?1, ?2, ?2, ?3, 1,"
			   " ?4, 12, 1, 'async', 'sequential', 0, ?2 * 32, ?5, 0, 0, 0, ?5, ?5,"
			   " ?5, 0, 0, 0)", -1, &w, NULL);
	sqlite3_prepare_v2(s, "INSERT INTO window_io (run_id, window_id, bios, requests, bytes,"
			   " shared_bios, service_ns, idle_ns, held_ns, last_c_ts_ns) VALUES (?1,"
			   " ?2, 1, 1, ?3, 0, ?4, ?5, ?6, ?7)", -1, &io, NULL);
	sqlite3_prepare_v2(s, "INSERT INTO requests (run_id, dev, req_id, sector, nr_sector,"
			   " bios, d_ts_ns, c_ts_ns, error, windows, rwbs) VALUES (?1, ?2, ?3,"
			   " ?3 * 8, ?4, 1, ?5, ?6, 0, 1, ?7)", -1, &rq, NULL);
	CHECK(w && io && rq);
	for (int r = 0; r < NRUNS; r++) {
		struct bucket own[NCLS] = { 0 };
		int64_t total = 0, ts = 1000000;

		snprintf(buf, sizeof(buf), "INSERT INTO runs (run_id, origin, kernel, hostname,"
			 " exit_status, exit_signal, interrupted, wall_ns) VALUES (%d, 'record',"
			 " '6.18', 'h', 0, %s, 0, 1000000000);"
			 " INSERT INTO streams (run_id, stream_id, dev, ino, pid, windows,"
			 " first_ts_ns, last_ts_ns, initial_size_pages, max_size_pages,"
			 " ramp_windows, collapses, sizes) VALUES (%d, 1, %d, 12, 1, %d, 0, 1, 8,"
			 " 32, 1, 0, '32')", r + 1, runs[r].killed ? "9" : "NULL", r + 1, DEV,
			 runs[r].windows);
		sql(db, buf);
		for (int i = 0; i < runs[r].windows; i++) {
			/* every 10th window below its stream's largest size: not a sample */
			int size = i % 10 == 9 ? 8 : 32;
			int64_t bytes = (int64_t)(next_rand() % 100) < runs[r].big_share ? 524288 :
					i % 3 ? 131072 : 16384;
			int64_t service = 1 + (int64_t)(next_rand() % 5000000);
			int64_t idle = (int64_t)(next_rand() % 1000000);
			int64_t held = runs[r].paced ? idle + 1 : 0;
			int64_t last_c = ts + service + 5000;

			ts += 100000;
			sqlite3_bind_int(w, 1, r + 1);
			sqlite3_bind_int(w, 2, i + 1);
			sqlite3_bind_int64(w, 3, ts - 100000);
			sqlite3_bind_int(w, 4, DEV);
			sqlite3_bind_int(w, 5, size);
			CHECK(sqlite3_step(w) == SQLITE_DONE);
			sqlite3_reset(w);
			sqlite3_bind_int(io, 1, r + 1);
			sqlite3_bind_int(io, 2, i + 1);
			sqlite3_bind_int64(io, 3, bytes);
			sqlite3_bind_int64(io, 4, service);
			sqlite3_bind_int64(io, 5, idle);
			sqlite3_bind_int64(io, 6, held);
			sqlite3_bind_int64(io, 7, last_c);
			CHECK(sqlite3_step(io) == SQLITE_DONE);
			sqlite3_reset(io);
			if (size < 32)
				continue;
			/* a device-paced run's sample holds its idle time too */
			add(&own[cls_of(bytes)], service + (runs[r].paced ? idle : 0), bytes,
			    last_c - (ts - 100000));
			total++;
		}
		/* the pool: runs that count, device-paced (some are), a tenth of the run's */
		for (int c = 0; c < NCLS; c++) {
			bool counts = !runs[r].killed && runs[r].paced && own[c].n * 10 >= total;

			for (int64_t k = 0; counts && k < own[c].n; k++)
				add(&win[c], own[c].ns[k], 0, -1);
			if (counts) {
				win[c].bytes += own[c].bytes;
				win[c].sum_lat += own[c].sum_lat;
				win[c].n_lat += own[c].n_lat;
			}
			free(own[c].ns);
		}
		memset(own, 0, sizeof(own));
		total = 0;
		for (int i = 0; i < runs[r].requests; i++) {
			int64_t sectors = i % 4 ? 256 : 32, d2 = 100 + (int64_t)(next_rand() % 3000000);
			bool read = i % 7 != 3;

			sqlite3_bind_int(rq, 1, r + 1);
			sqlite3_bind_int(rq, 2, DISK);
			sqlite3_bind_int(rq, 3, i + 1);
			sqlite3_bind_int64(rq, 4, sectors);
			sqlite3_bind_int64(rq, 5, 1000000 + i * 1000LL);
			sqlite3_bind_int64(rq, 6, 1000000 + i * 1000LL + d2);
			sqlite3_bind_text(rq, 7, read ? "RA" : "W", -1, SQLITE_STATIC);
			CHECK(sqlite3_step(rq) == SQLITE_DONE);
			sqlite3_reset(rq);
			if (!read)
				continue;
			add(&own[cls_of(sectors * 512)], d2, sectors * 512, -1);
			total++;
		}
		for (int c = 0; c < NCLS; c++) {
			bool counts = !runs[r].killed && own[c].n * 10 >= total;

			for (int64_t k = 0; counts && k < own[c].n; k++)
				add(&d2c[c], own[c].ns[k], 0, -1);
			if (counts)
				d2c[c].bytes += own[c].bytes;
			free(own[c].ns);
		}
	}
	sqlite3_finalize(w);
	sqlite3_finalize(io);
	sqlite3_finalize(rq);
}

/* model_points of run @run on @dev by @timing against @want. */
static void check_points(struct ra_db *db, int run, int dev, const char *timing,
			 struct bucket *want)
{
	char q[256];
	sqlite3_stmt *st;
	int rows = 0, classes = 0;

	snprintf(q, sizeof(q), "SELECT size_class, n, bytes, service_ns, p50_ns, latency_ns FROM"
		 " model_points WHERE run_id = %d AND dev = %d AND timing = '%s'", run, dev, timing);
	CHECK(sqlite3_prepare_v2(ra_db_sqlite(db), q, -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int c = cls_of(sqlite3_column_int64(st, 0));
		struct bucket *b = &want[c];

		rows++;
		CHECK_INT(sqlite3_column_int64(st, 1), b->n);
		if (!b->n)
			continue;
		qsort(b->ns, (size_t)b->n, sizeof(*b->ns), cmp64);
		CHECK(sqlite3_column_double(st, 2) == b->bytes / (double)b->n);
		CHECK(sqlite3_column_double(st, 3) == b->sum_ns / (double)b->n);
		CHECK_INT(sqlite3_column_int64(st, 4), b->ns[(b->n - 1) / 2]);
		if (b->n_lat)
			CHECK(sqlite3_column_double(st, 5) == b->sum_lat / (double)b->n_lat);
		else
			CHECK(sqlite3_column_type(st, 5) == SQLITE_NULL);
	}
	sqlite3_finalize(st);
	for (int c = 0; c < NCLS; c++)
		classes += want[c].n > 0;
	CHECK_INT(rows, classes);
	CHECK(classes >= 2);
}

static char *table_text(struct ra_db *db, const char *q)
{
	sqlite3_stmt *st;
	size_t len = 0, cap = 1 << 16;
	char *out = calloc(1, cap);

	CHECK(sqlite3_prepare_v2(ra_db_sqlite(db), q, -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *t = (const char *)sqlite3_column_text(st, i);
			size_t n = strlen(t ? t : "NULL") + 2;

			if (len + n >= cap)
				out = realloc(out, cap *= 2);
			len += (size_t)snprintf(out + len, cap - len, "%s%c", t ? t : "NULL",
						i + 1 < sqlite3_column_count(st) ? '|' : '\n');
		}
	sqlite3_finalize(st);
	return out;
}

/* The first column of @q's first row as a number. */
static long long int_of(struct ra_db *db, const char *q)
{
	char *t = table_text(db, q);
	long long v = atoll(t);

	free(t);
	return v;
}

static void check_text(struct ra_db *db, const char *q, const char *want)
{
	char *t = table_text(db, q);

	CHECK_STR(t, want);
	free(t);
}

static char *model_text(struct ra_db *db)
{
	char *a = table_text(db, "SELECT * FROM model_points WHERE run_id = 2 ORDER BY 1, 2, 3, 4");
	char *b = table_text(db, "SELECT * FROM device_models WHERE run_id = 2 ORDER BY 1, 2, 3, 4");
	char *c = table_text(db, "SELECT * FROM model_runs WHERE run_id = 2 ORDER BY 1, 2, 3");
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *all = malloc(n);

	snprintf(all, n, "%s%s%s", a, b, c);
	free(a);
	free(b);
	free(c);
	return all;
}

static int pass(struct ra_db *db, int run, bool again)
{
	char note[RA_PASS_NOTE] = "";

	if (!again && ra_pass_clear(db, &ra_pass_model, run) < 0)
		return -1;
	if (again)
		sql(db, "DELETE FROM model_points; DELETE FROM device_models;"
		    " DELETE FROM device_advice; DELETE FROM model_runs; DELETE FROM model_sets;");
	return ra_pass_model.run(db, run, NULL, note);
}

/* Each stored facts row of @db equals the facts ra_member_load() reads from the run's rows. */
static void check_facts(struct ra_db *db)
{
	sqlite3_stmt *st;
	int rows = 0;

	CHECK(sqlite3_prepare_v2(ra_db_sqlite(db), "SELECT run_id, dev FROM model_facts"
				 " WHERE state IS NOT NULL", -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct ra_member a, b = { .run_id = sqlite3_column_int64(st, 0) };
		uint32_t dev = (uint32_t)sqlite3_column_int64(st, 1);

		rows++;
		CHECK_INT(ra_model_facts_load(db, b.run_id, dev, &a), 1);
		CHECK_INT(ra_member_load(db, dev, &b), 0);
		CHECK_STR(a.state, b.state);
		CHECK_STR(a.reason, b.reason);
		CHECK_INT(a.setting_kb, b.setting_kb);
		CHECK_INT(a.ra_kb, b.ra_kb);
		CHECK_INT(a.windows, b.windows);
		CHECK_INT(a.all_windows, b.all_windows);
		CHECK_INT(a.thrashed_pages, b.thrashed_pages);
		CHECK_INT(a.device_paced, b.device_paced);
		CHECK_INT(a.app_measured, b.app_measured);
		CHECK(a.window_bytes == b.window_bytes && a.io_ns == b.io_ns);
		CHECK(a.idle_share == b.idle_share && a.held_share == b.held_share);
		CHECK(a.thrash_share == b.thrash_share && a.cached_share == b.cached_share);
		CHECK(a.unused_share == b.unused_share && a.measured_bps == b.measured_bps);
	}
	sqlite3_finalize(st);
	CHECK(rows > 0);
}

static void test_pool(void)
{
	struct bucket win[NCLS] = { 0 }, d2c[NCLS] = { 0 };
	char path[128], *first, *again;
	struct ra_db *db;

	snprintf(path, sizeof(path), "%s/pool.db", dir);
	db = ra_db_open(path, RA_DB_CREATE);
	CHECK(db != NULL);
	if (!db)
		return;
	sql(db, "BEGIN");
	make_runs(db, win, d2c);
	/* run 2's pass stores the inputs of every member, its own and theirs */
	CHECK_INT(pass(db, 2, false), 0);
	check_points(db, 2, DEV, "window", win);
	check_points(db, 2, DISK, "d2c", d2c);
	CHECK_INT(int_of(db, "SELECT COUNT(DISTINCT run_id) FROM model_facts"), NRUNS);
	/* classes of more samples than a part holds */
	CHECK(int_of(db, "SELECT COUNT(*) FROM model_samples WHERE run_id = 1"
		     " AND timing = 'window' AND size_class = 17") >= 2);
	CHECK(int_of(db, "SELECT COUNT(*) FROM model_samples WHERE run_id = 1"
		     " AND timing = 'd2c' AND size_class = 17") >= 2);
	check_text(db, "SELECT runs FROM device_models WHERE run_id = 2 AND timing = 'window'"
		   " AND chosen", "2\n");
	check_text(db, "SELECT runs FROM device_models WHERE run_id = 2 AND timing = 'd2c'"
		   " AND chosen", "3\n");
	check_facts(db);
	first = model_text(db);
	/* again from the inputs as stored */
	CHECK_INT(pass(db, 2, true), 0);
	again = model_text(db);
	CHECK_STR(again, first);
	free(again);
	/* member 1's inputs gone: made again from its rows, the same */
	sql(db, "DELETE FROM model_facts WHERE run_id = 1; DELETE FROM model_samples WHERE run_id = 1");
	CHECK_INT(pass(db, 2, true), 0);
	again = model_text(db);
	CHECK_STR(again, first);
	CHECK_INT(int_of(db, "SELECT COUNT(*) FROM model_facts WHERE run_id = 1"), 2);
	free(again);
	free(first);
	sql(db, "COMMIT");
	CHECK_INT(ra_db_close(db), 0);
	for (int c = 0; c < NCLS; c++) {
		free(win[c].ns);
		free(d2c[c].ns);
	}
}

/*
 * A real sweep (the fixture: four runs of dd at 64 and 512 KiB): the facts
 * each run's pass stores from one scan of its windows are those the SQL of
 * a member's facts gives, and the models are those of a pass that reads every
 * member's rows again (the inputs deleted first).
 */
static void test_sweep_fixture(void)
{
	const char *fx = getenv("RA_FIXTURES");
	char cmd[512], path[128], *first, *again;
	struct ra_db *db;

	snprintf(path, sizeof(path), "%s/sweep.db", dir);
	snprintf(cmd, sizeof(cmd), "xz -dc '%s/sweep.db.xz' > '%s'", fx ? fx : "tests/fixtures",
		 path);
	CHECK_INT(system(cmd), 0);
	db = ra_db_open(path, RA_DB_CREATE);
	CHECK(db != NULL);
	if (!db)
		return;
	sql(db, "BEGIN");
	for (int run = 1; run <= 4; run++)
		CHECK_INT(pass(db, run, false), 0);
	check_facts(db);
	CHECK_INT(int_of(db, "SELECT COUNT(DISTINCT run_id) FROM model_facts"), 4);
	first = model_text(db);
	sql(db, "DELETE FROM model_facts; DELETE FROM model_samples");
	CHECK_INT(pass(db, 2, true), 0);
	again = model_text(db);
	CHECK_STR(again, first);
	free(again);
	free(first);
	/* a run without windows has no window model, though its pool's runs have samples */
	sql(db, "DELETE FROM window_io WHERE run_id = 1; DELETE FROM windows WHERE run_id = 1");
	CHECK_INT(pass(db, 1, false), 0);
	CHECK(int_of(db, "SELECT COUNT(*) FROM model_facts WHERE run_id = 1 AND state IN"
		     " ('no_io', 'no_readahead')") > 0);
	CHECK_INT(int_of(db, "SELECT COUNT(*) FROM device_models WHERE run_id = 1"
			 " AND timing = 'window'"), 0);
	CHECK_INT(int_of(db, "SELECT COUNT(*) FROM model_points WHERE run_id = 1"
			 " AND timing = 'window'"), 0);
	CHECK_INT(int_of(db, "SELECT COUNT(*) FROM device_advice WHERE run_id = 1"), 1);
	sql(db, "COMMIT");
	CHECK_INT(ra_db_close(db), 0);
}

/*
 * A tie for the steady window (two streams, ten windows each at their
 * largest size, 32 and 64 pages) goes to the larger, as in the SQL; the
 * windows of half the steady size and up count in the fates.
 */
static void test_steady_tie(void)
{
	char path[128];
	struct ra_db *db;

	snprintf(path, sizeof(path), "%s/tie.db", dir);
	db = ra_db_open(path, RA_DB_CREATE);
	CHECK(db != NULL);
	if (!db)
		return;
	sql(db, "BEGIN;"
	    " INSERT INTO runs (run_id, origin, kernel, hostname, wall_ns) VALUES (1, 'record',"
	    " '6.18', 'h', 1000000000);"
	    " INSERT INTO streams (run_id, stream_id, dev, ino, pid, windows, first_ts_ns,"
	    " last_ts_ns, initial_size_pages, max_size_pages, ramp_windows, collapses, sizes)"
	    " VALUES (1, 1, 40, 1, 1, 12, 0, 1, 8, 32, 1, 0, ''),"
	    " (1, 2, 40, 2, 1, 12, 0, 1, 8, 64, 1, 0, '');"
	    " WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 24)"
	    " INSERT INTO windows (run_id, window_id, seq, ts_ns, pid, dev, ino, stream_id,"
	    " trigger, pattern, mmap, start_page, size_pages, async_size_pages, fallback,"
	    " demand_pages, pages_added, ra_pages_added, used, evicted_unused, thrashed, pending,"
	    " ra_pages, eof_page) SELECT 1, i, i, i * 1000, 1, 40, 1 + (i > 12), 1 + (i > 12),"
	    " 'async', CASE WHEN i % 5 = 0 THEN 'around' ELSE 'sequential' END, 0, i * 64,"
	    " CASE WHEN i % 12 = 1 THEN 16 WHEN i > 12 THEN 64 ELSE 32 END, 0, 0, 0, 30, 28, 20,"
	    " 5, i % 3, 3, i * 2, CASE WHEN i = 7 THEN 7 * 64 + 10 END FROM k;"
	    " INSERT INTO window_io (run_id, window_id, bios, requests, bytes, shared_bios,"
	    " service_ns, idle_ns, held_ns, last_c_ts_ns) SELECT 1, window_id, 1, 1,"
	    " size_pages * 4096, 0, 100000 + window_id, 500, 10, ts_ns + 200000 FROM windows;");
	CHECK_INT(pass(db, 1, false), 0);
	check_facts(db);
	check_text(db, "SELECT window_bytes FROM model_facts", "262144.0\n");
	sql(db, "COMMIT");
	CHECK_INT(ra_db_close(db), 0);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "a pool's classes from its members' stored samples", test_pool },
		{ "the stored facts of a real sweep", test_sweep_fixture },
		{ "a tie for the steady window", test_steady_tie },
		{ NULL, NULL },
	};

	return test_run_in_tmpdir("test_modelpool", cases, dir);
}
