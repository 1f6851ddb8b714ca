// SPDX-License-Identifier: LGPL-2.1
/*
 * The reports' SQL in PostgreSQL's dialect (lib/pgdialect.c): each rule on
 * an example, the SQL it leaves alone, and the URL of a server with its
 * password hidden.
 */
#include <stdlib.h>

#include "pg_local.h"
#include "pgschema.h"
#include "schema.h"
#include "test.h"

static const struct {
	const char *sqlite, *pg;
	int nparams;
} cases[] = {
	/* parameters, numbered or not */
	{ "SELECT a FROM t WHERE run_id = ?1 AND b < ?3", "SELECT a FROM t WHERE run_id = $1 AND b < $3", 3 },
	{ "INSERT INTO t VALUES (?, ?, ?)", "INSERT INTO t VALUES ($1, $2, $3)", 3 },
	/* a decimal literal is the double SQLite reads; an integer stays */
	{ "SELECT x / 1e9, y * 512.0, 1024, 0.1", "SELECT x / '1000000000'::float8, y * '512'::float8, 1024, '0.10000000000000001'::float8", 0 },
	{ "SELECT 0x1F", "SELECT 31", 0 },
	{ "SELECT a == b", "SELECT a = b", 0 },
	/* IS between values, not NULL */
	{ "SELECT r.execution IS 'vm-tcg', c.observed IS NOT c.expected",
	  "SELECT r.execution IS NOT DISTINCT FROM 'vm-tcg', c.observed IS DISTINCT FROM c.expected", 0 },
	{ "SELECT a IS NULL, b IS NOT NULL, c IS TRUE, d IS NOT DISTINCT FROM e",
	  "SELECT a IS NULL, b IS NOT NULL, c IS TRUE, d IS NOT DISTINCT FROM e", 0 },
	/* casts with SQLite's conversions */
	{ "SELECT CAST(x / 1024 AS INTEGER), CAST(a AS REAL) / b, CAST(f(CAST(c AS TEXT)) AS INT)",
	  "SELECT ratrace.cast_integer(x / 1024 ), ratrace.cast_real(a ) / b, ratrace.cast_integer(f(ratrace.cast_text(c )) )", 0 },
	{ "SELECT CAST(a AS BLOB)", "SELECT CAST(a AS BLOB)", 0 },
	/* AVG in doubles, as SQLite adds */
	{ "SELECT AVG(a), ROUND(AVG(b - c), 1), AVG(DISTINCT d)",
	  "SELECT AVG(ratrace.cast_real(a)), ROUND(AVG(ratrace.cast_real(b - c)), 1), AVG(DISTINCT d)", 0 },
	/* LIKE: ASCII case blind, no escape character */
	{ "SELECT 1 WHERE a LIKE '%R%' AND b NOT LIKE ?1 AND c LIKE 'x\\_%'",
	  "SELECT 1 WHERE a ILIKE '%R%' AND b NOT ILIKE $1 ESCAPE '' AND c ILIKE 'x\\_%' ESCAPE ''", 1 },
	/* NULLs first ascending, last descending */
	{ "SELECT a FROM t ORDER BY a, b DESC, f(c, d) ASC LIMIT 3",
	  "SELECT a FROM t ORDER BY a NULLS FIRST, b DESC NULLS LAST, f(c, d) ASC NULLS FIRST LIMIT 3", 0 },
	{ "SELECT ROW_NUMBER() OVER (PARTITION BY s ORDER BY w) FROM t ORDER BY pattern = 'all', n DESC",
	  "SELECT ROW_NUMBER() OVER (PARTITION BY s ORDER BY w NULLS FIRST) FROM t ORDER BY pattern = 'all' NULLS FIRST, n DESC NULLS LAST", 0 },
	{ "SELECT * FROM (SELECT a FROM t ORDER BY a) ORDER BY 1",
	  "SELECT * FROM (SELECT a FROM t ORDER BY a NULLS FIRST) AS ra_q1 ORDER BY 1 NULLS FIRST", 0 },
	/* a subquery in FROM gets an alias; one with an alias, or elsewhere, not */
	{ "SELECT * FROM (SELECT 1) WHERE x IN (SELECT 2) AND y = (SELECT 3)",
	  "SELECT * FROM (SELECT 1) AS ra_q1 WHERE x IN (SELECT 2) AND y = (SELECT 3)", 0 },
	{ "SELECT a, (SELECT 1) FROM t, (SELECT 2) r JOIN (SELECT 3) ON 1 LEFT JOIN (SELECT 4) AS q USING (a)",
	  "SELECT a, (SELECT 1) FROM t, (SELECT 2) r JOIN (SELECT 3) AS ra_q1 ON 1 LEFT JOIN (SELECT 4) AS q USING (a)", 0 },
	/* strings, quoted names and comments are left as they are */
	{ "SELECT 'it''s IS 1.5 ? LIKE', \"a IS b\" -- ORDER BY x\n FROM t",
	  "SELECT 'it''s IS 1.5 ? LIKE', \"a IS b\" -- ORDER BY x\n FROM t", 0 },
};

static void test_rules(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = -1;
		char *pg = ra_pg_dialect(cases[i].sqlite, &n);

		CHECK_STR(pg, cases[i].pg);
		CHECK_INT(n, cases[i].nparams);
		free(pg);
	}
}

static void test_redact(void)
{
	static const char *const urls[][2] = {
		{ "postgresql://ci:s3cret@db.example/ratrace?sslmode=require",
		  "postgresql://ci:***@db.example/ratrace?sslmode=require" },
		{ "postgres://ci@db/ratrace", "postgres://ci@db/ratrace" },
		{ "postgresql:///ratrace?host=/tmp&password=x%20y&user=ci",
		  "postgresql:///ratrace?host=/tmp&password=***&user=ci" },
		{ "postgresql://:p@h", "postgresql://:***@h" },
		{ "postgresql://u:p@h1:5432,h2:5433/x?password=q", "postgresql://u:***@h1:5432,h2:5433/x?password=***" },
	};

	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		char *r = ra_pg_redact(urls[i][0]);

		CHECK_STR(r, urls[i][1]);
		free(r);
	}
	CHECK(ra_pg_is_url("postgresql://h/db"));
	CHECK(ra_pg_is_url("postgres://"));
	CHECK(!ra_pg_is_url("postgresql.db"));
	CHECK(!ra_pg_is_url("run.db"));
}

/*
 * The server's views (lib/pgviews.c) follow SQLite's: a change of those
 * fails here until the server's are brought along and their hash updated.
 */
static void test_views_follow(void)
{
	uint32_t now = ra_pg_views_hash(ra_schema_views_sql);

	if (now != ra_pg_views_follow())
		fprintf(stderr, "the views of lib/schema.c changed: bring lib/pgviews.c along, then set"
			" its RA_PG_VIEWS_FOLLOW to 0x%08xu\n", now);
	CHECK(now == ra_pg_views_follow());
}

int main(void)
{
	static const struct test_case cases_[] = {
		{ "rules", test_rules },
		{ "redact", test_redact },
		{ "views_follow", test_views_follow },
		{ NULL, NULL },
	};

	return test_run("pgdialect", cases_);
}
