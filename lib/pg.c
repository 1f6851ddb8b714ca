// SPDX-License-Identifier: LGPL-2.1
/*
 * A ratrace database on a PostgreSQL server, read through the statements of
 * ra_sql.h: the one place of the reading side where libpq is called. The
 * connection comes from the URL, the PG* environment and ~/.pgpass as libpq
 * reads them; messages name the URL without its password.
 *
 * A statement is prepared on the server the first time it runs, with the
 * types of the values bound (so that "?1 IS NULL" knows its type), and runs
 * again with new values without being parsed again. Its rows come one at a
 * time (libpq's single-row mode): nothing is read whole. A connection runs
 * one statement at a time, so a statement whose rows are still coming when
 * another one runs (a report reading a device's model while it walks the
 * devices) is read to its end first, its rows kept for its next steps.
 * Values are read as SQLite would give them: a truth value as 1 or 0, a real
 * as text the way SQLite writes it ("%!.15g").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "pg_local.h"

/* The type oids of PostgreSQL's catalog this file reads (pg_type.dat). */
enum {
	OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23,
	OID_TEXT = 25, OID_OID = 26, OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700,
};

#define MAX_PARAMS 64

struct ra_pg {
	PGconn *conn;
	char *shown;			/* the URL in messages */
	char *why;			/* the server's words for the last failure */
	struct ra_pg_stmt *streaming;	/* the statement whose rows are coming */
	int nstmts;			/* names of prepared statements */
};

enum state { ST_IDLE, ST_RUNNING, ST_KEPT, ST_DONE };

struct ra_pg_stmt {
	struct ra_pg *pg;
	char *sql;			/* in PostgreSQL's dialect */
	char name[24];
	int nparams;
	bool prepared;
	Oid types[MAX_PARAMS];		/* of the values the statement was prepared with */
	Oid bound[MAX_PARAMS];		/* of the values bound now */
	char *values[MAX_PARAMS];
	int lengths[MAX_PARAMS];
	int formats[MAX_PARAMS];
	PGresult *desc;			/* the columns, before the first row */
	PGresult *row;			/* the current row */
	PGresult **kept;		/* rows read ahead (ST_KEPT) */
	int nkept, next_kept;
	enum state state;
	char *error;			/* why it could not be prepared: said again at its step */
	int ncols;
	char **scratch;			/* per column: text or blob made for the current row */
};

bool ra_pg_is_url(const char *s)
{
	return strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0;
}

bool ra_db_is_url(const char *name)
{
	return ra_pg_is_url(name);
}

/* The password of "user:password@" in the authority of the URL at @p, if any. */
static void redact_userinfo(FILE *f, const char *auth, size_t len)
{
	const char *at = NULL, *colon;

	for (size_t i = 0; i < len; i++)
		if (auth[i] == '@')
			at = auth + i;
	colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (!colon) {
		fwrite(auth, 1, len, f);
		return;
	}
	fwrite(auth, 1, (size_t)(colon - auth) + 1, f);
	fputs("***", f);
	fwrite(at, 1, len - (size_t)(at - auth), f);
}

char *ra_pg_redact(const char *url)
{
	const char *auth = strstr(url, "://"), *q;
	size_t alen, len = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	auth = auth ? auth + 3 : url;
	alen = strcspn(auth, "/?");
	fwrite(url, 1, (size_t)(auth - url), f);
	redact_userinfo(f, auth, alen);
	for (q = auth + alen; *q;) {
		size_t n = strcspn(q + 1, "?&") + 1;

		fwrite(q, 1, 1, f);
		if ((*q == '?' || *q == '&') && strncasecmp(q + 1, "password=", 9) == 0)
			fputs("password=***", f);
		else
			fwrite(q + 1, 1, n - 1, f);
		q += n;
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

char *ra_db_redact(const char *url)
{
	return ra_pg_redact(url);
}

const char *ra_pg_why(PGconn *conn, const PGresult *res)
{
	static __thread char buf[512];
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	if (!msg || !*msg)
		msg = res && *PQresultErrorMessage(res) ? PQresultErrorMessage(res) :
		      conn ? PQerrorMessage(conn) : "out of memory";
	snprintf(buf, sizeof(buf), "%s", msg);
	/* libpq's messages end with a newline and may say "ERROR:  " first */
	buf[strcspn(buf, "\n")] = '\0';
	return strncmp(buf, "ERROR:  ", 8) == 0 ? buf + 8 : buf;
}

int ra_pg_run(PGconn *conn, const char *shown, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	int ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;

	if (!ok)
		ra_set_error(RA_ERR_IO, "'%s': %s", shown, ra_pg_why(conn, res));
	PQclear(res);
	return ok ? 0 : -1;
}

/*
 * What every ratrace connection sets: its schema before the catalog (its
 * functions with SQLite's meaning come first), reals written exactly, no
 * compiling of queries, tables read in their order, and no conversion of
 * text (a ratrace database holds bytes, not checked, whatever PGCLIENTENCODING).
 */
static const char setup_sql[] =
	"SET search_path = " RA_PG_SCHEMA ", pg_catalog; SET extra_float_digits = 1;"
	" SET jit = off; SET synchronize_seqscans = off; SET bytea_output = 'hex';"
	" SET client_min_messages = warning; SET client_encoding = 'SQL_ASCII';";

PGconn *ra_pg_connect(const char *url, const char *shown, bool readonly)
{
	const char *keys[] = { "dbname", "fallback_application_name", NULL };
	const char *values[] = { url, "ratrace", NULL };
	const char *env = getenv("RATRACE_READ_SECONDS");
	PGconn *conn = PQconnectdbParams(keys, values, 1);
	char sql[160];

	if (!conn || PQstatus(conn) != CONNECTION_OK) {
		ra_set_error(RA_ERR_USAGE, "cannot connect to '%s': %s", shown,
			     ra_pg_why(conn, NULL));
		PQfinish(conn);
		return NULL;
	}
	snprintf(sql, sizeof(sql), "SET default_transaction_read_only = on;"
		 " SET statement_timeout = %ld;",
		 (env && atol(env) > 0 ? atol(env) : RA_DB_READ_SECONDS) * 1000L);
	if (ra_pg_run(conn, shown, setup_sql) < 0 ||
	    (readonly && ra_pg_run(conn, shown, sql) < 0)) {
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

static int fail(struct ra_pg *pg, const PGresult *res)
{
	free(pg->why);
	pg->why = strdup(ra_pg_why(pg->conn, res));
	ra_set_error(RA_ERR_IO, "cannot read '%s': %s", pg->shown, pg->why ? pg->why : "?");
	return -1;
}

const char *ra_pg_last_error(struct ra_pg *pg)
{
	return pg->why ? pg->why : "out of memory";
}

/* The schema this ratrace reads: made by a push of this version. */
static int check_schema(struct ra_pg *pg)
{
	static const char sql[] =
		"SELECT (SELECT value FROM " RA_PG_SCHEMA ".schema_info WHERE key = 'tables'),"
		" (SELECT value FROM " RA_PG_SCHEMA ".schema_info WHERE key = 'revision')";
	PGresult *res = PQexec(pg->conn, "SELECT to_regclass('" RA_PG_SCHEMA ".schema_info')"
				       " IS NOT NULL");
	long tables, revision;
	int ret = -1;

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		fail(pg, res);
	} else if (strcmp(PQgetvalue(res, 0, 0), "t") != 0) {
		ra_set_error(RA_ERR_DATA, "'%s' has no ratrace schema: 'ra-push DB %s' makes it",
			     pg->shown, pg->shown);
	} else {
		PQclear(res);
		res = PQexec(pg->conn, sql);
		if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
			fail(pg, res);
			PQclear(res);
			return -1;
		}
		tables = atol(PQgetvalue(res, 0, 0));
		revision = atol(PQgetvalue(res, 0, 1));
		if (tables > RA_SCHEMA_VERSION || revision > RA_PG_REVISION)
			ra_set_error(RA_ERR_DATA, "'%s' has schema version %ld.%ld, newer than this"
				     " ratrace reads (%d.%d)", pg->shown, tables, revision,
				     RA_SCHEMA_VERSION, RA_PG_REVISION);
		else if (tables < RA_SCHEMA_VERSION || revision < RA_PG_REVISION)
			ra_set_error(RA_ERR_DATA, "'%s' has schema version %ld.%ld; a push of this"
				     " ratrace upgrades it", pg->shown, tables, revision);
		else
			ret = 0;
	}
	PQclear(res);
	return ret;
}

void ra_pg_close(struct ra_pg *pg)
{
	if (!pg)
		return;
	PQfinish(pg->conn);
	free(pg->shown);
	free(pg->why);
	free(pg);
}

struct ra_pg *ra_pg_open(const char *url, const char *shown)
{
	struct ra_pg *pg = calloc(1, sizeof(*pg));

	if (!pg || !(pg->shown = strdup(shown))) {
		free(pg);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	pg->conn = ra_pg_connect(url, shown, true);
	if (!pg->conn || check_schema(pg) < 0) {
		ra_pg_close(pg);
		return NULL;
	}
	return pg;
}

/* ---- statements ---- */

static void clear_rows(struct ra_pg_stmt *st)
{
	PQclear(st->row);
	st->row = NULL;
	for (int i = st->next_kept; i < st->nkept; i++)
		PQclear(st->kept[i]);
	free(st->kept);
	st->kept = NULL;
	st->nkept = st->next_kept = 0;
	for (int c = 0; st->scratch && c < st->ncols; c++) {
		free(st->scratch[c]);
		st->scratch[c] = NULL;
	}
}

/*
 * Read the rest of @st's results: kept (@keep) for its next steps, or
 * dropped. Returns -1 when the statement failed.
 */
static int read_rest(struct ra_pg_stmt *st, bool keep)
{
	PGresult *res;
	int ret = 0;

	while ((res = PQgetResult(st->pg->conn))) {
		ExecStatusType s = PQresultStatus(res);
		PGresult **k;

		if (s == PGRES_SINGLE_TUPLE && keep &&
		    (k = realloc(st->kept, (size_t)(st->nkept + 1) * sizeof(*k)))) {
			st->kept = k;
			k[st->nkept++] = res;
			continue;
		}
		if (s != PGRES_SINGLE_TUPLE && s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK &&
		    ret == 0)
			ret = fail(st->pg, res);
		else if (s == PGRES_SINGLE_TUPLE && keep && ret == 0)
			ret = fail(st->pg, NULL);	/* out of memory */
		PQclear(res);
	}
	if (st->pg->streaming == st)
		st->pg->streaming = NULL;
	return ret;
}

/* Make room on the connection: the statement still streaming is read to its end. */
static int quiesce(struct ra_pg *pg)
{
	struct ra_pg_stmt *other = pg->streaming;

	if (!other)
		return 0;
	other->state = ST_KEPT;
	return read_rest(other, true);
}

int ra_pg_exec(struct ra_pg *pg, const char *sql)
{
	char *text = NULL;
	PGresult *res;
	int ok;

	if (quiesce(pg) < 0)
		return -1;
	/* a report reads one state of the database, as SQLite's read transaction */
	if (strcasecmp(sql, "BEGIN") == 0)
		sql = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
	else if (!(text = ra_pg_dialect(sql, NULL)))
		return -1;
	res = PQexec(pg->conn, text ? text : sql);
	free(text);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
	if (!ok)
		fail(pg, res);
	PQclear(res);
	return ok ? 0 : -1;
}

struct ra_pg_stmt *ra_pg_prepare(struct ra_pg *pg, const char *sql)
{
	struct ra_pg_stmt *st = calloc(1, sizeof(*st));

	if (!st) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	st->pg = pg;
	st->sql = ra_pg_dialect(sql, &st->nparams);
	if (!st->sql || st->nparams > MAX_PARAMS) {
		if (st->sql)
			ra_set_error(RA_ERR_USAGE, "a statement with over %d parameters", MAX_PARAMS);
		free(st->sql);
		free(st);
		return NULL;
	}
	snprintf(st->name, sizeof(st->name), "ra_%d", ++pg->nstmts);
	for (int i = 0; i < st->nparams; i++)
		st->formats[i] = 0;
	return st;
}

void ra_pg_finalize(struct ra_pg_stmt *st)
{
	char sql[48];

	if (!st)
		return;
	if (st->state == ST_RUNNING)
		read_rest(st, false);
	clear_rows(st);
	if (st->prepared && quiesce(st->pg) == 0 &&
	    PQtransactionStatus(st->pg->conn) != PQTRANS_INERROR) {
		snprintf(sql, sizeof(sql), "DEALLOCATE %s", st->name);
		PQclear(PQexec(st->pg->conn, sql));
	}
	PQclear(st->desc);
	for (int i = 0; i < st->nparams; i++)
		free(st->values[i]);
	free(st->error);
	free(st->scratch);
	free(st->sql);
	free(st);
}

int ra_pg_params(struct ra_pg_stmt *st)
{
	return st->nparams;
}

int ra_pg_bind(struct ra_pg_stmt *st, int i, char type, int64_t iv, double dv, const void *p,
	       size_t len)
{
	char *v = NULL;
	int n = 0;

	if (i < 1 || i > st->nparams) {	/* as SQLite's SQLITE_RANGE */
		ra_set_error(RA_ERR_USAGE, "parameter %d of a statement of %d bound", i,
			     st->nparams);
		return -1;
	}
	i--;
	switch (type) {
	case 'i':
		n = asprintf(&v, "%lld", (long long)iv);
		st->bound[i] = OID_INT8;
		break;
	case 'd':
		n = asprintf(&v, "%.17g", dv);
		st->bound[i] = OID_FLOAT8;
		break;
	case 't':
	case 'b':
		v = malloc(len + 1);
		if (v) {
			memcpy(v, p, len);
			v[len] = '\0';
		}
		n = v ? (int)len : -1;
		st->bound[i] = type == 't' ? OID_TEXT : OID_BYTEA;
		break;
	default:	/* a NULL: of an integer 'I', a real 'D', a text 'T', or 'n' */
		st->bound[i] = type == 'I' ? OID_INT8 : type == 'D' ? OID_FLOAT8 :
			       type == 'T' ? OID_TEXT : 0;
		break;
	}
	if (n < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	free(st->values[i]);
	st->values[i] = v;
	st->lengths[i] = n;
	st->formats[i] = type == 'b';
	return 0;
}

/* Prepared on the server with the types bound now; again when they changed. */
static int ensure_prepared(struct ra_pg_stmt *st)
{
	PGresult *res;
	char sql[48];

	if (st->prepared && memcmp(st->types, st->bound, sizeof(st->types)) == 0)
		return 0;
	if (st->prepared) {
		snprintf(sql, sizeof(sql), "DEALLOCATE %s", st->name);
		PQclear(PQexec(st->pg->conn, sql));
		PQclear(st->desc);
		st->desc = NULL;
		st->prepared = false;
	}
	memcpy(st->types, st->bound, sizeof(st->types));
	if (st->error) {	/* the server refused it once: the first reason stays */
		ra_set_error(RA_ERR_IO, "%s", st->error);
		return -1;
	}
	res = PQprepare(st->pg->conn, st->name, st->sql, st->nparams, st->types);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		fail(st->pg, res);
		st->error = strdup(ra_last_error());
		PQclear(res);
		return -1;
	}
	PQclear(res);
	st->prepared = true;
	return 0;
}

static int describe(struct ra_pg_stmt *st)
{
	if (st->desc || st->row)
		return 0;
	if (quiesce(st->pg) < 0 || ensure_prepared(st) < 0)
		return -1;
	st->desc = PQdescribePrepared(st->pg->conn, st->name);
	if (PQresultStatus(st->desc) != PGRES_COMMAND_OK) {
		fail(st->pg, st->desc);
		PQclear(st->desc);
		st->desc = NULL;
		return -1;
	}
	return 0;
}

static int start(struct ra_pg_stmt *st)
{
	if (quiesce(st->pg) < 0 || ensure_prepared(st) < 0)
		return -1;
	if (!PQsendQueryPrepared(st->pg->conn, st->name, st->nparams,
				 (const char *const *)st->values, st->lengths, st->formats, 0) ||
	    !PQsetSingleRowMode(st->pg->conn)) {
		fail(st->pg, NULL);
		read_rest(st, false);
		return -1;
	}
	st->pg->streaming = st;
	st->state = ST_RUNNING;
	return 0;
}

/* The row's result becomes the current one: its columns, the scratch for their text. */
static int take_row(struct ra_pg_stmt *st, PGresult *res)
{
	int n = PQnfields(res);

	for (int c = 0; st->scratch && c < st->ncols; c++) {
		free(st->scratch[c]);
		st->scratch[c] = NULL;
	}
	if (n > st->ncols || !st->scratch) {
		char **s = realloc(st->scratch, (size_t)(n ? n : 1) * sizeof(*s));

		if (!s) {
			PQclear(res);
			return fail(st->pg, NULL);
		}
		st->scratch = s;
		memset(s, 0, (size_t)(n ? n : 1) * sizeof(*s));
	}
	st->ncols = n;
	PQclear(st->row);
	st->row = res;
	return 1;
}

int ra_pg_step(struct ra_pg_stmt *st)
{
	PGresult *res;

	if (st->state == ST_IDLE && start(st) < 0)
		return -1;
	if (st->state == ST_KEPT) {
		if (st->next_kept < st->nkept)
			return take_row(st, st->kept[st->next_kept++]);
		st->state = ST_DONE;
	}
	if (st->state == ST_DONE)
		return 0;
	res = PQgetResult(st->pg->conn);
	if (res && PQresultStatus(res) == PGRES_SINGLE_TUPLE)
		return take_row(st, res);
	st->state = ST_DONE;
	if (!res || PQresultStatus(res) == PGRES_TUPLES_OK || PQresultStatus(res) == PGRES_COMMAND_OK) {
		PQclear(res);
		return read_rest(st, false) < 0 ? -1 : 0;
	}
	fail(st->pg, res);
	PQclear(res);
	read_rest(st, false);
	return -1;
}

void ra_pg_reset(struct ra_pg_stmt *st)
{
	if (st->state == ST_RUNNING)
		read_rest(st, false);
	clear_rows(st);
	st->state = ST_IDLE;
}

/* The result that has the columns: the current row's, else the description. */
static const PGresult *shape(struct ra_pg_stmt *st)
{
	if (!st->row)
		describe(st);
	return st->row ? st->row : st->desc;
}

int ra_pg_columns(struct ra_pg_stmt *st)
{
	const PGresult *r = shape(st);

	return r ? PQnfields(r) : 0;
}

const char *ra_pg_name(struct ra_pg_stmt *st, int col)
{
	const PGresult *r = shape(st);
	const char *name = r && col < PQnfields(r) ? PQfname(r, col) : NULL;

	return name ? name : "";
}

static bool null_at(struct ra_pg_stmt *st, int col)
{
	return !st->row || col < 0 || col >= PQnfields(st->row) || PQgetisnull(st->row, 0, col);
}

/* A numeric's value is an integer or a real by how it is written. */
static bool numeric_real(const char *v)
{
	return strpbrk(v, ".eEIN") != NULL;
}

int ra_pg_type(struct ra_pg_stmt *st, int col)
{
	if (null_at(st, col))
		return 0;
	switch (PQftype(st->row, col)) {
	case OID_BOOL:
	case OID_INT2:
	case OID_INT4:
	case OID_INT8:
	case OID_OID:
		return 1;
	case OID_FLOAT4:
	case OID_FLOAT8:
		return 2;
	case OID_NUMERIC:
		return numeric_real(PQgetvalue(st->row, 0, col)) ? 2 : 1;
	default:
		return 3;
	}
}

/* SQLite's real to integer: toward zero, held within the 64-bit range. */
static int64_t real_to_int(double d)
{
	if (isnan(d))
		return 0;
	if (d <= -9223372036854775808.0)
		return INT64_MIN;
	if (d >= 9223372036854775807.0)
		return INT64_MAX;
	return (int64_t)d;
}

int64_t ra_pg_int(struct ra_pg_stmt *st, int col)
{
	const char *v;

	if (null_at(st, col))
		return 0;
	v = PQgetvalue(st->row, 0, col);
	switch (ra_pg_type(st, col)) {
	case 1:
		return PQftype(st->row, col) == OID_BOOL ? *v == 't' : strtoll(v, NULL, 10);
	case 2:
		return real_to_int(strtod(v, NULL));
	default:
		return strtoll(v, NULL, 10);	/* as SQLite: the leading integer */
	}
}

double ra_pg_real(struct ra_pg_stmt *st, int col)
{
	const char *v;

	if (null_at(st, col))
		return 0;
	v = PQgetvalue(st->row, 0, col);
	if (PQftype(st->row, col) == OID_BOOL)
		return *v == 't';
	return strtod(v, NULL);
}

const char *ra_pg_text(struct ra_pg_stmt *st, int col)
{
	size_t len;

	if (null_at(st, col))
		return "";
	switch (PQftype(st->row, col)) {
	case OID_BOOL:
		return *PQgetvalue(st->row, 0, col) == 't' ? "1" : "0";
	case OID_FLOAT4:
	case OID_FLOAT8:
		if (!st->scratch[col] && (st->scratch[col] = malloc(32)))
			sqlite3_snprintf(32, st->scratch[col], "%!.15g", ra_pg_real(st, col));
		return st->scratch[col] ? st->scratch[col] : "";
	case OID_BYTEA:
		return ra_pg_blob(st, col, &len);
	default:
		return PQgetvalue(st->row, 0, col);
	}
}

const void *ra_pg_blob(struct ra_pg_stmt *st, int col, size_t *len)
{
	*len = 0;
	if (null_at(st, col))
		return NULL;
	if (PQftype(st->row, col) != OID_BYTEA) {
		*len = (size_t)PQgetlength(st->row, 0, col);
		return PQgetvalue(st->row, 0, col);
	}
	if (!st->scratch[col]) {
		unsigned char *b = PQunescapeBytea((const unsigned char *)PQgetvalue(st->row, 0, col),
						   len);
		char *copy = b ? malloc(*len + 1) : NULL;

		if (copy) {
			memcpy(copy, b, *len);
			copy[*len] = '\0';
		}
		PQfreemem(b);
		st->scratch[col] = copy;
		if (!copy)
			*len = 0;
		return copy;
	}
	/* made before: its length is where the row's hex says */
	*len = ((size_t)PQgetlength(st->row, 0, col) - 2) / 2;
	return st->scratch[col];
}
