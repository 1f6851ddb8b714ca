// SPDX-License-Identifier: LGPL-2.1
/*
 * The statement layer (ra_sql.h) on a real database file: every format
 * character bound and read back, NULLs both ways, the one-row query, a
 * prepared INSERT run many times, and the messages of a bad statement and of
 * a constraint that refuses a row; rows written in batches (ra_batch), in
 * the order put, whole and partial batches, texts copied as they are put.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ra_db.h"
#include "ra_sql.h"
#include "test.h"

static char dir[64];

static struct ra_db *open_db(void)
{
	char path[128];
	struct ra_db *db;

	snprintf(path, sizeof(path), "%s/sql.db", dir);
	db = ra_db_open(path, RA_DB_CREATE);
	CHECK(db != NULL);
	if (db)
		CHECK_INT(ra_sql_exec(db, "CREATE TABLE IF NOT EXISTS t (a INTEGER, b REAL, c TEXT,"
					  " d INTEGER CHECK (d IS NULL OR d > 0))", ""), 0);
	return db;
}

static void test_round_trip(void)
{
	struct ra_db *db = open_db();
	struct ra_stmt *ins, *sel;
	int64_t a = -1, n = 0;
	double b = 0;
	const char *c = "x";
	char *copy = NULL;
	int x = -1;

	if (!db)
		return;
	ins = ra_sql_prepare(db, "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)");
	CHECK(ins != NULL);
	CHECK_INT(ra_sql_put(ins, "idtz", (int64_t)1 << 40, 2.5, "one", (int64_t)7), 0);
	CHECK_INT(ra_sql_put(ins, "zdtn", (int64_t)0, NAN, (const char *)NULL), 0);
	CHECK_INT(ra_sql_put(ins, "xdtz", 3, -0.5, "three", (int64_t)0), 0);
	CHECK_INT(ra_sql_put(ins, "jjnj", (int64_t)0, (int64_t)-1, (int64_t)9), 0);
	CHECK_INT(ra_sql_put(ins, "onno", 0, (int64_t)5, 1, (int64_t)11), 0);
	CHECK_INT(ra_sql_put(ins, "nnsn", "fourteen", (size_t)4), 0);
	CHECK_INT(ra_sql_one(db, "SELECT COUNT(*) FROM t WHERE c = 'four'", "", "i", &n), 1);
	CHECK_INT(n, 1);
	CHECK_INT(ra_sql_one(db, "SELECT COUNT(*) FROM t WHERE a IS NULL AND d = 11", "", "i", &n), 1);
	CHECK_INT(n, 1);
	n = 0;
	ra_sql_finalize(ins);

	/* a NULL reads 0, NaN and NULL */
	CHECK_INT(ra_sql_one(db, "SELECT a, b, c, d FROM t WHERE rowid = ?", "i", "idTx", (int64_t)2,
			     &a, &b, &copy, &x), 1);
	CHECK_INT(a, 0);
	CHECK(isnan(b));
	CHECK(copy == NULL);
	CHECK_INT(x, 0);
	a = 42;
	CHECK_INT(ra_sql_one(db, "SELECT b FROM t WHERE rowid = 2", "", "fi", &b, &a), 1);
	CHECK_INT(a, 42);	/* past the row's columns: untouched */
	CHECK(b == 0);	/* 'f': NULL reads 0 */
	CHECK_INT(ra_sql_one(db, "SELECT a, b, c FROM t WHERE rowid = 1", "", "idT", &a, &b, &copy), 1);
	CHECK_INT(a, (int64_t)1 << 40);
	CHECK(b == 2.5);
	CHECK_STR(copy, "one");
	free(copy);
	/* a text that would end with the statement is refused */
	CHECK_INT(ra_sql_one(db, "SELECT c FROM t", "", "t", &c), -1);
	/* no row: the pointers untouched */
	a = 42;
	CHECK_INT(ra_sql_one(db, "SELECT a FROM t WHERE a = 99", "", "i", &a), 0);
	CHECK_INT(a, 42);

	/* a statement stepped row by row, columns skipped, NULL tested */
	sel = ra_sql_prepare(db, "SELECT c, a, d FROM t WHERE a >= ? ORDER BY rowid");
	CHECK(sel != NULL);
	CHECK_INT(ra_sql_params(sel), 1);
	CHECK_INT(ra_sql_bind(sel, "i", (int64_t)0), 0);
	while (ra_sql_step(sel) == 1) {
		ra_sql_row(sel, "ni", &a);
		n += a;
		CHECK_INT(ra_sql_null(sel, 2), a != (int64_t)1 << 40 && a != 0);
	}
	CHECK_INT(n, ((int64_t)1 << 40) + 3);	/* 'j': 0 bound, -1 NULL */
	ra_sql_reset(sel);
	CHECK_INT(ra_sql_step(sel), 1);	/* again, with its bindings kept */
	ra_sql_row(sel, "t", &c);
	CHECK_STR(c, "one");
	ra_sql_finalize(sel);

	/* a blob with a zero byte in it, read back whole; NULL reads NULL and 0 */
	{
		static const unsigned char bytes[5] = { 1, 0, 2, 255, 3 };
		const void *blob = bytes;
		size_t len = 99;

		CHECK_INT(ra_sql_exec(db, "CREATE TABLE b (v BLOB)", ""), 0);
		sel = ra_sql_prepare(db, "INSERT INTO b VALUES (?)");
		CHECK_INT(ra_sql_put(sel, "b", bytes, sizeof(bytes)), 0);
		CHECK_INT(ra_sql_put(sel, "n"), 0);
		ra_sql_finalize(sel);
		sel = ra_sql_prepare(db, "SELECT v, typeof(v) FROM b ORDER BY rowid");
		CHECK_INT(ra_sql_step(sel), 1);
		ra_sql_row(sel, "bt", &blob, &len, &c);
		CHECK_INT(len, sizeof(bytes));
		CHECK(blob != bytes && memcmp(blob, bytes, sizeof(bytes)) == 0);
		CHECK_STR(c, "blob");
		CHECK_INT(ra_sql_step(sel), 1);
		ra_sql_row(sel, "b", &blob, &len);
		CHECK(blob == NULL);
		CHECK_INT(len, 0);
		ra_sql_finalize(sel);
	}
	ra_db_close(db);
}

static void test_errors(void)
{
	struct ra_db *db = open_db();
	struct ra_stmt *ins;
	char want[256];

	if (!db)
		return;
	CHECK(ra_sql_prepare(db, "SELECT x FROM nowhere") == NULL);
	snprintf(want, sizeof(want), "cannot read '%s/sql.db': no such table: nowhere", dir);
	CHECK_STR(ra_last_error(), want);
	CHECK_INT(ra_last_error_kind(), RA_ERR_IO);
	ins = ra_sql_prepare(db, "INSERT INTO t (d) VALUES (?)");
	CHECK_INT(ra_sql_put(ins, "i", (int64_t)-1), -1);
	snprintf(want, sizeof(want), "cannot write '%s/sql.db': CHECK constraint failed:", dir);
	CHECK(strncmp(ra_last_error(), want, strlen(want)) == 0);
	CHECK_INT(ra_sql_put(ins, "i", (int64_t)5), 0);	/* the statement goes on after a refusal */
	CHECK_INT(ra_sql_bind(ins, "q", 1), -1);
	CHECK_STR(ra_last_error(), "bad bind format 'q'");
	ra_sql_finalize(ins);
	ra_sql_finalize(NULL);
	CHECK_INT(ra_sql_exec(db, "DELETE FROM t WHERE d = ?", "i", (int64_t)5), 0);
	CHECK_INT(ra_sql_exec(db, "DELETE FROM nowhere", ""), -1);
	CHECK_STR(ra_sql_why(db), "no such table: nowhere");
	ra_db_close(db);
}

/* A statement read column by column: names, types and values of any query */
static void test_columns(void)
{
	struct ra_db *db = open_db();
	struct ra_stmt *st;

	if (!db)
		return;
	st = ra_sql_prepare(db, "SELECT 7 AS n, 2.5 AS x, 'hi' AS s, NULL AS z, x'41' AS b");
	CHECK(st != NULL);
	if (st) {
		CHECK_INT(ra_sql_columns(st), 5);
		CHECK_INT(ra_sql_step(st), 1);
		CHECK_STR(ra_sql_name(st, 0), "n");
		CHECK_STR(ra_sql_name(st, 4), "b");
		CHECK_INT(ra_sql_type(st, 0), RA_SQL_INT);
		CHECK_INT(ra_sql_int(st, 0), 7);
		CHECK_INT(ra_sql_type(st, 1), RA_SQL_REAL);
		CHECK(ra_sql_real(st, 1) == 2.5);
		CHECK_INT(ra_sql_type(st, 2), RA_SQL_TEXT);
		CHECK_STR(ra_sql_text(st, 2), "hi");
		CHECK_INT(ra_sql_type(st, 3), RA_SQL_NULL);
		CHECK_STR(ra_sql_text(st, 3), "");
		CHECK_INT(ra_sql_type(st, 4), RA_SQL_TEXT);	/* a blob, as its text */
		CHECK_STR(ra_sql_text(st, 4), "A");
		CHECK_INT(ra_sql_step(st), 0);
	}
	ra_sql_finalize(st);
	ra_db_close(db);
}

static int64_t count(struct ra_db *db, const char *sql)
{
	int64_t n = -1;

	CHECK_INT(ra_sql_one(db, sql, "", "i", &n), 1);
	return n;
}

static void test_batch(void)
{
	struct ra_db *db = open_db();
	struct ra_batch *b;
	char text[16], *v = NULL, want[256];

	if (!db)
		return;
	CHECK_INT(ra_sql_exec(db, "CREATE TABLE bt (k INTEGER PRIMARY KEY, v TEXT,"
				  " n INTEGER CHECK (n IS NULL OR n >= 0))", ""), 0);
	b = ra_batch_new(db, "INSERT OR REPLACE INTO bt (k, v, n)", 3);
	CHECK(b != NULL);
	if (!b)
		return;
	/* whole batches are written as they fill, the rest when flushed */
	for (int k = 0; k < 2 * RA_BATCH_ROWS + 8; k++) {
		snprintf(text, sizeof(text), "r%d", k);	/* the same buffer: copied */
		CHECK_INT(ra_batch_put(b, "itz", (int64_t)k, text, (int64_t)(k * 3)), 0);
		if (k == RA_BATCH_ROWS - 2)
			CHECK_INT(count(db, "SELECT COUNT(*) FROM bt"), 0);
		if (k == RA_BATCH_ROWS - 1)
			CHECK_INT(count(db, "SELECT COUNT(*) FROM bt"), RA_BATCH_ROWS);
	}
	CHECK_INT(count(db, "SELECT COUNT(*) FROM bt"), 2 * RA_BATCH_ROWS);
	CHECK_INT(ra_batch_flush(b), 0);
	CHECK_INT(ra_batch_flush(b), 0);	/* nothing left: nothing written */
	CHECK_INT(count(db, "SELECT COUNT(*) FROM bt"), 2 * RA_BATCH_ROWS + 8);
	CHECK_INT(count(db, "SELECT SUM(n) FROM bt"), 3 * (2 * RA_BATCH_ROWS + 8) *
						      (2 * RA_BATCH_ROWS + 7) / 2);
	CHECK_INT(count(db, "SELECT COUNT(*) FROM bt WHERE v = 'r' || k"), 2 * RA_BATCH_ROWS + 8);
	CHECK_INT(count(db, "SELECT COUNT(*) FROM bt WHERE k = 0 AND n IS NULL"), 1);
	/* a row put twice in one batch: the later one stays */
	CHECK_INT(ra_batch_put(b, "itz", (int64_t)5, "first", (int64_t)1), 0);
	CHECK_INT(ra_batch_put(b, "itz", (int64_t)5, "second", (int64_t)2), 0);
	CHECK_INT(ra_batch_flush(b), 0);
	CHECK_INT(ra_sql_one(db, "SELECT v FROM bt WHERE k = 5", "", "T", &v), 1);
	CHECK_STR(v, "second");
	free(v);
	/* a row of another width is refused; one the table refuses fails its batch */
	CHECK_INT(ra_batch_put(b, "it", (int64_t)1, "x"), -1);
	CHECK_STR(ra_last_error(), "a row of 2 values in a batch of 3");
	CHECK_INT(ra_batch_put(b, "itz", (int64_t)100, "ok", (int64_t)1), 0);
	CHECK_INT(ra_batch_put(b, "itz", (int64_t)101, "no", (int64_t)-1), 0);
	CHECK_INT(ra_batch_flush(b), -1);
	snprintf(want, sizeof(want), "cannot write '%s/sql.db': CHECK constraint failed:", dir);
	CHECK(strncmp(ra_last_error(), want, strlen(want)) == 0);
	CHECK_INT(count(db, "SELECT COUNT(*) FROM bt WHERE k >= 100"), 0);
	/* the batch goes on after a refusal; rows not flushed are dropped when it is freed */
	CHECK_INT(ra_batch_put(b, "itz", (int64_t)102, "yes", (int64_t)1), 0);
	CHECK_INT(ra_batch_flush(b), 0);
	CHECK_INT(ra_batch_put(b, "itz", (int64_t)103, "dropped", (int64_t)1), 0);
	ra_batch_free(b);
	ra_batch_free(NULL);
	CHECK_INT(count(db, "SELECT COUNT(*) FROM bt WHERE k >= 100"), 1);
	CHECK(ra_batch_new(db, "INSERT INTO nowhere (a)", 1) == NULL);
	ra_db_close(db);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "bind, step and read by format", test_round_trip },
		{ "the messages of bad statements", test_errors },
		{ "columns by type", test_columns },
		{ "rows written in batches", test_batch },
		{ NULL, NULL },
	};
	return test_run_in_tmpdir("test_sql", cases, dir);
}
