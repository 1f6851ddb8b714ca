// SPDX-License-Identifier: LGPL-2.1
/*
 * The ratrace schema on a PostgreSQL server, made and upgraded by a push.
 * Its tables are those of this ratrace's SQLite schema, read from a new
 * database made for the purpose (so that a table or column a later version
 * adds is covered without a word here): INTEGER is bigint, REAL double
 * precision, TEXT text, BLOB bytea, with the same columns in the same order,
 * NOT NULL, primary keys and references to runs. On top of them:
 * - runs' run_id is the server's own (an identity column);
 * - the event chunks are partitioned by run (a partition per run pushed
 *   with its events);
 * - pushes says where each run came from, and what makes it one run
 *   (pushes.identity, unique: lib/push.c); schema_info holds the versions;
 * - the functions that give SQL SQLite's meaning (pgfuncs.c) and the views
 *   (pgviews.c).
 * A newer ratrace adds its tables and columns and makes the functions and
 * views again (a column renamed needs a step of its own here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunk.h"
#include "db_local.h"
#include "pg_local.h"
#include "pgschema.h"

static char col_type(const char *decl)
{
	if (strcasestr(decl, "INT"))
		return 'i';
	if (strcasestr(decl, "CHAR") || strcasestr(decl, "CLOB") || strcasestr(decl, "TEXT"))
		return 't';
	if (strcasestr(decl, "REAL") || strcasestr(decl, "FLOA") || strcasestr(decl, "DOUB"))
		return 'r';
	return 'b';
}

static const char *pg_type(char t)
{
	return t == 'i' ? "bigint" : t == 'r' ? "double precision" : t == 't' ? "text" : "bytea";
}

static bool is_chunks(const char *name)
{
	for (int cls = RA_CLASS_RA; cls <= RA_CLASS_BLK; cls++)
		if (strcmp(ra_chunk_table(cls)->chunks, name) == 0)
			return true;
	return false;
}

/* The columns of @t in the new database @db. */
static int load_cols(sqlite3 *db, struct ra_pg_table *t)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT name, type, \"notnull\", dflt_value, pk"
			       " FROM pragma_table_info(?1) ORDER BY cid", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && t->ncols < RA_PG_MAX_COLS) {
		struct ra_pg_col *c = &t->cols[t->ncols++];
		const char *dflt = (const char *)sqlite3_column_text(st, 3);

		snprintf(c->name, sizeof(c->name), "%s", (const char *)sqlite3_column_text(st, 0));
		c->type = col_type((const char *)sqlite3_column_text(st, 1));
		c->notnull = sqlite3_column_int(st, 2) != 0;
		c->pk = sqlite3_column_int(st, 4);
		snprintf(c->dflt, sizeof(c->dflt), "%s", dflt ? dflt : "");
		t->run |= strcmp(c->name, "run_id") == 0;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int load_tables(sqlite3 *db, struct ra_pg_schema *s)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'"
			       " AND name NOT LIKE 'sqlite_%' ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ra_pg_table *t = realloc(s->t, (size_t)(s->n + 1) * sizeof(*t));

		if (!t) {
			rc = SQLITE_NOMEM;
			break;
		}
		s->t = t;
		t = &s->t[s->n++];
		memset(t, 0, sizeof(*t));
		snprintf(t->name, sizeof(t->name), "%s", (const char *)sqlite3_column_text(st, 0));
		t->events = is_chunks(t->name);
		if (load_cols(db, t) < 0) {
			rc = SQLITE_ERROR;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The value of column @k of the current row as text for the server; NULL for NULL. */
static char *value_text(sqlite3_stmt *st, int k, char type)
{
	const unsigned char *b;
	char *v;
	int n;

	if (sqlite3_column_type(st, k) == SQLITE_NULL)
		return NULL;
	if (type != 'b')
		return strdup((const char *)sqlite3_column_text(st, k));
	b = sqlite3_column_blob(st, k);
	n = sqlite3_column_bytes(st, k);
	v = malloc((size_t)n * 2 + 3);
	if (v) {
		strcpy(v, "\\x");
		for (int i = 0; i < n; i++)
			sprintf(v + 2 + 2 * i, "%02x", b[i]);
	}
	return v;
}

/* One table's rows as INSERTs that leave a row the server has. */
static int table_rows(sqlite3 *db, const struct ra_pg_table *t, struct ra_pg_schema *s)
{
	size_t len = 0;
	char *sel = NULL, *ins = NULL;
	FILE *f = open_memstream(&ins, &len);
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_NOMEM;

	if (!f)
		return -1;
	fprintf(f, "INSERT INTO " RA_PG_SCHEMA ".\"%s\" VALUES (", t->name);
	for (int i = 0; i < t->ncols; i++)
		fprintf(f, "%s$%d", i ? ", " : "", i + 1);
	fputs(") ON CONFLICT DO NOTHING", f);
	if (fclose(f) != 0 || asprintf(&sel, "SELECT * FROM \"%s\"", t->name) < 0)
		goto out;
	if (sqlite3_prepare_v2(db, sel, -1, &st, NULL) != SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ra_pg_row *r = realloc(s->rows, (size_t)(s->nrows + 1) * sizeof(*r));

		if (!r || !(r[s->nrows].sql = strdup(ins))) {
			s->rows = r ? r : s->rows;
			rc = SQLITE_NOMEM;
			break;
		}
		s->rows = r;
		r = &r[s->nrows++];
		r->n = t->ncols;
		for (int i = 0; i < t->ncols; i++)
			r->values[i] = value_text(st, i, t->cols[i].type);
	}
out:
	sqlite3_finalize(st);
	free(sel);
	free(ins);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int fixed_rows_load(sqlite3 *db, struct ra_pg_schema *s)
{
	for (int i = 0; i < s->n; i++)
		if (!s->t[i].run && table_rows(db, &s->t[i], s) < 0)
			return -1;
	return 0;
}

int ra_pg_schema_load(struct ra_pg_schema *s)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct ra_db *db;
	int fd, ret = -1;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/ratrace-schema-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		ra_set_error(RA_ERR_ENV, "cannot make a temporary file in '%s'",
			     dir && *dir ? dir : "/tmp");
		return -1;
	}
	close(fd);
	db = ra_db_open(path, RA_DB_CREATE);
	if (db) {
		s->fresh = path;
		ret = load_tables(ra_db_sqlite(db), s);
		if (ret == 0)
			ret = fixed_rows_load(ra_db_sqlite(db), s);
		if (ret < 0)
			ra_set_error(RA_ERR_IO, "cannot read the schema of this ratrace: %s",
				     sqlite3_errmsg(ra_db_sqlite(db)));
		ra_db_close(db);
	}
	ra_db_remove_files(path);
	s->fresh = NULL;
	if (ret < 0)
		ra_pg_schema_release(s);
	return ret;
}

void ra_pg_schema_release(struct ra_pg_schema *s)
{
	for (int i = 0; i < s->nrows; i++) {
		free(s->rows[i].sql);
		for (int k = 0; k < s->rows[i].n; k++)
			free(s->rows[i].values[k]);
	}
	free(s->rows);
	free(s->t);
	memset(s, 0, sizeof(*s));
}

const struct ra_pg_table *ra_pg_schema_table(const struct ra_pg_schema *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->t[i].name, name) == 0)
			return &s->t[i];
	return NULL;
}

/* ---- the DDL ---- */

/* A default that is a plain literal (a number, a quoted text), else none. */
static bool plain_default(const char *d)
{
	return *d && strspn(d, "0123456789.-") == strlen(d) ? true :
	       *d == '\'' && d[strlen(d) - 1] == '\'';
}

static void col_ddl(FILE *f, const struct ra_pg_table *t, const struct ra_pg_col *c, bool add)
{
	if (strcmp(t->name, "runs") == 0 && strcmp(c->name, "run_id") == 0) {
		fputs("\"run_id\" bigint GENERATED BY DEFAULT AS IDENTITY", f);
		return;
	}
	fprintf(f, "\"%s\" %s", c->name, pg_type(c->type));
	if (plain_default(c->dflt))
		fprintf(f, " DEFAULT %s", c->dflt);
	/* an added column is NOT NULL only with a default for the rows of before */
	if (c->notnull && (!add || plain_default(c->dflt)))
		fputs(" NOT NULL", f);
}

static void pk_ddl(FILE *f, const struct ra_pg_table *t)
{
	bool any = false;

	if (t->events) {	/* partitioned by run: the key holds it */
		fputs(",\n  PRIMARY KEY (\"run_id\", \"seq_first\")", f);
		return;
	}
	for (int k = 1; k <= t->ncols; k++)
		for (int i = 0; i < t->ncols; i++)
			if (t->cols[i].pk == k) {
				fprintf(f, "%s\"%s\"", any ? ", " : ",\n  PRIMARY KEY (", t->cols[i].name);
				any = true;
			}
	if (any)
		fputs(")", f);
}

static char *table_ddl(const struct ra_pg_table *t)
{
	size_t len = 0;
	char *sql = NULL;
	FILE *f = open_memstream(&sql, &len);
	bool pk = false;

	if (!f)
		return NULL;
	fprintf(f, "CREATE TABLE " RA_PG_SCHEMA ".\"%s\" (", t->name);
	for (int i = 0; i < t->ncols; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		col_ddl(f, t, &t->cols[i], false);
		pk |= t->cols[i].pk == 1 && strcmp(t->cols[i].name, "run_id") == 0;
	}
	pk_ddl(f, t);
	if (t->run && strcmp(t->name, "runs") != 0)
		fputs(",\n  FOREIGN KEY (\"run_id\") REFERENCES " RA_PG_SCHEMA ".runs (run_id)"
		      " ON DELETE CASCADE", f);
	fputs(t->events ? "\n) PARTITION BY LIST (run_id);\n" : "\n);\n", f);
	/* packed already: kept out of line as it is, not compressed again */
	for (int i = 0; t->events && i < t->ncols; i++)
		if (t->cols[i].type == 'b')
			fprintf(f, "ALTER TABLE " RA_PG_SCHEMA ".\"%s\" ALTER COLUMN \"%s\""
				" SET STORAGE EXTERNAL;\n", t->name, t->cols[i].name);
	/* a run's rows are read by run_id: an index where the key does not start with it */
	if (t->run && !pk && !t->events && strcmp(t->name, "runs") != 0)
		fprintf(f, "CREATE INDEX ON " RA_PG_SCHEMA ".\"%s\" (run_id);\n", t->name);
	if (strcmp(t->name, "runs") == 0)
		fputs("CREATE INDEX ON " RA_PG_SCHEMA ".runs (hostname);\n"
		      "CREATE INDEX ON " RA_PG_SCHEMA ".runs (kernel);\n"
		      "CREATE INDEX ON " RA_PG_SCHEMA ".runs (start_unix_ns);\n"
		      "CREATE INDEX ON " RA_PG_SCHEMA ".runs (label);\n", f);
	if (fclose(f) != 0) {
		free(sql);
		return NULL;
	}
	return sql;
}

/* What only the server has: where each run came from, and the versions. */
static const char own_tables_sql[] =
	"CREATE TABLE " RA_PG_SCHEMA ".pushes (\n"
	"  run_id bigint PRIMARY KEY REFERENCES " RA_PG_SCHEMA ".runs (run_id) ON DELETE CASCADE,\n"
	"  source_host text,\n"
	"  source_file text,\n"
	"  source_run_id bigint NOT NULL,\n"
	"  pushed_at timestamptz NOT NULL DEFAULT now(),\n"
	"  tool_version text,\n"
	"  events boolean NOT NULL,\n"
	"  identity text NOT NULL UNIQUE\n"
	");\n"
	"CREATE TABLE " RA_PG_SCHEMA ".schema_info (key text PRIMARY KEY, value text NOT NULL);\n";

static int run_sql(PGconn *conn, const char *shown, char *sql)
{
	int ret;

	if (!sql) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	ret = ra_pg_run(conn, shown, sql);
	free(sql);
	return ret;
}

static int make_tables(PGconn *conn, const char *shown, const struct ra_pg_schema *s)
{
	if (ra_pg_run(conn, shown, "CREATE SCHEMA IF NOT EXISTS " RA_PG_SCHEMA) < 0)
		return -1;
	/* runs first: the others refer to it */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < s->n; i++)
			if ((strcmp(s->t[i].name, "runs") == 0) == (pass == 0) &&
			    run_sql(conn, shown, table_ddl(&s->t[i])) < 0)
				return -1;
	return ra_pg_run(conn, shown, own_tables_sql);
}

/* The tables and columns this ratrace has and the server not yet. */
static int add_missing(PGconn *conn, const char *shown, const struct ra_pg_schema *s)
{
	for (int i = 0; i < s->n; i++) {
		const struct ra_pg_table *t = &s->t[i];
		const char *params[2] = { t->name, NULL };
		PGresult *res = PQexecParams(conn, "SELECT column_name FROM information_schema.columns"
					     " WHERE table_schema = '" RA_PG_SCHEMA "'"
					     " AND table_name = $1", 1, NULL, params, NULL, NULL, 0);
		int n = PQntuples(res);

		if (PQresultStatus(res) != PGRES_TUPLES_OK) {
			ra_set_error(RA_ERR_IO, "'%s': %s", shown, ra_pg_why(conn, res));
			PQclear(res);
			return -1;
		}
		for (int c = 0; n > 0 && c < t->ncols; c++) {
			bool have = false;
			size_t len = 0;
			char *sql = NULL;
			FILE *f;

			for (int r = 0; r < n && !have; r++)
				have = strcmp(PQgetvalue(res, r, 0), t->cols[c].name) == 0;
			if (have || !(f = open_memstream(&sql, &len)))
				continue;
			fprintf(f, "ALTER TABLE " RA_PG_SCHEMA ".\"%s\" ADD COLUMN ", t->name);
			col_ddl(f, t, &t->cols[c], true);
			if (fclose(f) != 0 || run_sql(conn, shown, sql) < 0) {
				PQclear(res);
				return -1;
			}
		}
		PQclear(res);
		if (n == 0 && run_sql(conn, shown, table_ddl(t)) < 0)
			return -1;
	}
	return 0;
}

/* ---- the functions and views ---- */

static const char drop_sql_layer[] =
	"DO $$ DECLARE r record; BEGIN\n"
	"  FOR r IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace\n"
	"           WHERE n.nspname = '" RA_PG_SCHEMA "' AND c.relkind = 'v' LOOP\n"
	"    EXECUTE format('DROP VIEW IF EXISTS " RA_PG_SCHEMA ".%I CASCADE', r.relname);\n"
	"  END LOOP;\n"
	"  FOR r IN SELECT o.oid::regoperator AS op FROM pg_operator o JOIN pg_namespace n\n"
	"           ON n.oid = o.oprnamespace WHERE n.nspname = '" RA_PG_SCHEMA "' LOOP\n"
	"    EXECUTE format('DROP OPERATOR %s CASCADE', r.op);\n"
	"  END LOOP;\n"
	"  FOR r IN SELECT p.oid::regprocedure AS fn, p.prokind FROM pg_proc p JOIN pg_namespace n\n"
	"           ON n.oid = p.pronamespace WHERE n.nspname = '" RA_PG_SCHEMA "'\n"
	"           ORDER BY p.prokind = 'a' DESC LOOP\n"
	"    EXECUTE format('DROP ROUTINE IF EXISTS %s CASCADE', r.fn);\n"
	"  END LOOP;\n"
	"END $$";

static int make_sql_layer(PGconn *conn, const char *shown)
{
	const char *const *funcs = ra_pg_funcs(), *const *views = ra_pg_views();

	if (ra_pg_run(conn, shown, drop_sql_layer) < 0)
		return -1;
	for (int i = 0; funcs[i]; i++)
		if (ra_pg_run(conn, shown, funcs[i]) < 0)
			return -1;
	for (int i = 0; views[i]; i++)
		if (run_sql(conn, shown, ra_pg_dialect(views[i], NULL)) < 0)
			return -1;
	/* the events' views, over the chunks pushed with --events */
	for (int cls = RA_CLASS_RA; cls <= RA_CLASS_BLK; cls++)
		if (run_sql(conn, shown, ra_chunk_view_pgsql(ra_chunk_table(cls), RA_PG_SCHEMA)) < 0)
			return -1;
	return 0;
}

/* ---- the rows every database has (event_types) ---- */

static int fixed_rows(PGconn *conn, const char *shown, const struct ra_pg_schema *s)
{
	for (int i = 0; i < s->nrows; i++) {
		PGresult *res = PQexecParams(conn, s->rows[i].sql, s->rows[i].n, NULL,
					     (const char *const *)s->rows[i].values, NULL, NULL, 0);

		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			ra_set_error(RA_ERR_IO, "'%s': %s", shown, ra_pg_why(conn, res));
			PQclear(res);
			return -1;
		}
		PQclear(res);
	}
	return 0;
}

/* ---- making and upgrading ---- */

/*
 * Sorting and text as this ratrace's SQLite does: bytes (collation C), any
 * byte kept as it is (SQL_ASCII: a file name need not be UTF-8).
 */
static int check_database(PGconn *conn, const char *shown)
{
	PGresult *res = PQexec(conn, "SELECT pg_encoding_to_char(encoding), datcollate, datctype"
			       " FROM pg_database WHERE datname = current_database()");
	int ret = -1;

	if (PQserverVersion(conn) < 150000) {
		ra_set_error(RA_ERR_ENV, "'%s' is PostgreSQL %d.%d: ratrace needs 15 or later", shown,
			     PQserverVersion(conn) / 10000, PQserverVersion(conn) / 100 % 100);
	} else if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		ra_set_error(RA_ERR_IO, "'%s': %s", shown, ra_pg_why(conn, res));
	} else if (strcmp(PQgetvalue(res, 0, 0), "SQL_ASCII") != 0 ||
		   (strcmp(PQgetvalue(res, 0, 1), "C") != 0 &&
		    strcmp(PQgetvalue(res, 0, 1), "POSIX") != 0)) {
		ra_set_error(RA_ERR_ENV, "'%s' has encoding %s and collation %s: ratrace keeps names"
			     " as bytes and sorts them as SQLite does, in a database made with"
			     " ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
			     " (docs/fleet.md)", shown, PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 1));
	} else {
		ret = 0;
	}
	PQclear(res);
	return ret;
}

static int set_versions(PGconn *conn, const char *shown)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "INSERT INTO " RA_PG_SCHEMA ".schema_info VALUES"
		 " ('tables', '%d'), ('revision', '%d') ON CONFLICT (key) DO UPDATE"
		 " SET value = EXCLUDED.value", RA_SCHEMA_VERSION, RA_PG_REVISION);
	return ra_pg_run(conn, shown, sql);
}

/* The versions on the server: 0 and 0 when it has no ratrace schema. */
static int versions(PGconn *conn, const char *shown, long *tables, long *revision)
{
	PGresult *res = PQexec(conn, "SELECT to_regclass('" RA_PG_SCHEMA ".schema_info') IS NULL");
	bool none = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
		    strcmp(PQgetvalue(res, 0, 0), "t") == 0;

	*tables = *revision = 0;
	if (PQresultStatus(res) == PGRES_TUPLES_OK && !none) {
		PQclear(res);
		res = PQexec(conn, "SELECT (SELECT value FROM " RA_PG_SCHEMA ".schema_info"
			     " WHERE key = 'tables'), (SELECT value FROM " RA_PG_SCHEMA
			     ".schema_info WHERE key = 'revision')");
	}
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		ra_set_error(RA_ERR_IO, "'%s': %s", shown, ra_pg_why(conn, res));
		PQclear(res);
		return -1;
	}
	if (!none) {
		*tables = atol(PQgetvalue(res, 0, 0));
		*revision = atol(PQgetvalue(res, 0, 1));
	}
	PQclear(res);
	return 0;
}

static int ensure_locked(PGconn *conn, const char *shown, const struct ra_pg_schema *s)
{
	long tables, revision;

	if (check_database(conn, shown) < 0 || versions(conn, shown, &tables, &revision) < 0)
		return -1;
	if (tables > RA_SCHEMA_VERSION || revision > RA_PG_REVISION) {
		ra_set_error(RA_ERR_DATA, "'%s' has schema version %ld.%ld, newer than this ratrace"
			     " writes (%d.%d)", shown, tables, revision, RA_SCHEMA_VERSION,
			     RA_PG_REVISION);
		return -1;
	}
	if (tables == RA_SCHEMA_VERSION && revision == RA_PG_REVISION)
		return 0;
	if (tables == 0 ? make_tables(conn, shown, s) < 0 : add_missing(conn, shown, s) < 0)
		return -1;
	if (make_sql_layer(conn, shown) < 0 || fixed_rows(conn, shown, s) < 0)
		return -1;
	return set_versions(conn, shown);
}

int ra_pg_schema_ensure(PGconn *conn, const char *shown, const struct ra_pg_schema *s)
{
	/* one pusher makes or upgrades it; the others wait and find it done */
	if (ra_pg_run(conn, shown, "BEGIN; SELECT pg_advisory_xact_lock(1380013138)") < 0)
		return -1;
	if (ensure_locked(conn, shown, s) < 0) {
		PQclear(PQexec(conn, "ROLLBACK"));
		return -1;
	}
	return ra_pg_run(conn, shown, "COMMIT");
}

int ra_pg_schema_grant(PGconn *conn, const char *shown, const char *role)
{
	char *id = PQescapeIdentifier(conn, role, strlen(role)), *sql = NULL;
	int ret;

	if (!id) {
		ra_set_error(RA_ERR_USAGE, "bad role name '%s'", role);
		return -1;
	}
	if (asprintf(&sql, "GRANT USAGE ON SCHEMA " RA_PG_SCHEMA " TO %s;"
		     " GRANT SELECT ON ALL TABLES IN SCHEMA " RA_PG_SCHEMA " TO %s;"
		     " ALTER DEFAULT PRIVILEGES IN SCHEMA " RA_PG_SCHEMA
		     " GRANT SELECT ON TABLES TO %s", id, id, id) < 0)
		sql = NULL;
	PQfreemem(id);
	ret = run_sql(conn, shown, sql);
	return ret;
}
