/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The PostgreSQL side of the database layer (lib/ only): a ratrace schema on
 * a server, read through the same statements as a SQLite file (ra_sql.h),
 * and filled by ra_push(). docs/fleet.md describes it for users.
 */
#ifndef RA_PG_LOCAL_H
#define RA_PG_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "ra_db.h"

/*
 * The schema on the server is "ratrace"; its revision counts the changes of
 * what this file's side makes there (functions, views, the push's own
 * tables). The tables follow the SQLite schema (RA_SCHEMA_VERSION).
 */
#define RA_PG_SCHEMA "ratrace"
#define RA_PG_REVISION 2	/* 2: the events' views */

struct ra_pg;
struct ra_pg_stmt;

/*
 * ra_pg_dialect - the SQL of this ratrace, written for SQLite, in
 * PostgreSQL's dialect: ?N and ? become $N, `a IS b` IS NOT DISTINCT FROM,
 * CAST to INTEGER, REAL and TEXT SQLite's conversions (ratrace.cast_*), a
 * decimal literal the double SQLite reads from it, AVG of a value made a
 * double (SQLite adds in doubles), LIKE ILIKE (SQLite's is
 * case-blind for ASCII) with no escape character, ORDER BY items NULLS
 * FIRST (ascending) or LAST (descending) as SQLite sorts them, and a
 * subquery in FROM an alias. *nparams gets the highest parameter number.
 * Returns the new SQL (malloc'd) or NULL with ra_last_error().
 */
char *ra_pg_dialect(const char *sql, int *nparams);

/*
 * ra_pg_redact - @url with its password replaced by "***" (in the user
 * information of a URL and in a password= parameter), malloc'd; NULL out of
 * memory
 */
char *ra_pg_redact(const char *url);

/** ra_pg_is_url - whether @s names a PostgreSQL database (postgres[ql]://) */
bool ra_pg_is_url(const char *s);

/*
 * ra_pg_connect - a connection to @url (libpq: the URL, the PG* environment,
 * ~/.pgpass, sslmode), set up for ratrace: its schema first in the search
 * path, SQLite's float output, no JIT; @readonly: every transaction read
 * only, statements bounded by the reader's time limit. @shown is the URL as
 * messages name it. NULL with ra_last_error().
 */
PGconn *ra_pg_connect(const char *url, const char *shown, bool readonly);

/* The error of a failed result or connection, one line, for a message. */
const char *ra_pg_why(PGconn *conn, const PGresult *res);

/* Run fixed SQL with no result rows on @conn; 0 or -1 with ra_last_error() naming @shown. */
int ra_pg_run(PGconn *conn, const char *shown, const char *sql);

/*
 * The reading side: struct ra_db of a server opened read-only (ra_db_open
 * of a URL), and the statements of ra_sql.h on it. A statement streams its
 * rows (single-row mode); one that is still being read when another runs
 * keeps the rest of its rows in memory first.
 */
struct ra_pg *ra_pg_open(const char *url, const char *shown);
void ra_pg_close(struct ra_pg *pg);
int ra_pg_exec(struct ra_pg *pg, const char *sql);
const char *ra_pg_last_error(struct ra_pg *pg);

struct ra_pg_stmt *ra_pg_prepare(struct ra_pg *pg, const char *sql);
void ra_pg_finalize(struct ra_pg_stmt *st);
int ra_pg_params(struct ra_pg_stmt *st);
/* bind parameter @i (from 1): @type 'i' int64, 'd' double, 't' text, 'b' blob, 'n' NULL */
int ra_pg_bind(struct ra_pg_stmt *st, int i, char type, int64_t iv, double dv, const void *p,
	       size_t len);
int ra_pg_step(struct ra_pg_stmt *st);
void ra_pg_reset(struct ra_pg_stmt *st);
int ra_pg_columns(struct ra_pg_stmt *st);
const char *ra_pg_name(struct ra_pg_stmt *st, int col);
/* the type of column @col of the current row: 0 NULL, 1 integer, 2 real, 3 text */
int ra_pg_type(struct ra_pg_stmt *st, int col);
int64_t ra_pg_int(struct ra_pg_stmt *st, int col);
double ra_pg_real(struct ra_pg_stmt *st, int col);
/* text as SQLite gives it (a real as "%!.15g"); "" for NULL; valid until the next step */
const char *ra_pg_text(struct ra_pg_stmt *st, int col);
const void *ra_pg_blob(struct ra_pg_stmt *st, int col, size_t *len);

#endif
