/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The tables of this ratrace's SQLite schema as the server has them
 * (lib/pgschema.c), for making the schema there and for pushing runs.
 */
#ifndef RA_PGSCHEMA_H
#define RA_PGSCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#define RA_PG_MAX_COLS 64

struct ra_pg_col {
	char name[64];
	char type;		/* 'i' bigint, 'r' double precision, 't' text, 'b' bytea */
	bool notnull;
	int pk;			/* its place in the primary key from 1, 0 none */
	char dflt[64];		/* its default as SQLite has it, or "" */
};

struct ra_pg_table {
	char name[64];
	struct ra_pg_col cols[RA_PG_MAX_COLS];
	int ncols;
	bool run;		/* has run_id: rows of a run */
	bool events;		/* the event chunks: partitioned by run */
};

/* A row of a table every database has (event_types), as an INSERT on the server. */
struct ra_pg_row {
	char *sql;
	int n;
	char *values[RA_PG_MAX_COLS];
};

struct ra_pg_schema {
	struct ra_pg_table *t;
	int n;
	struct ra_pg_row *rows;
	int nrows;
	const char *fresh;	/* the new database it was read from, while it is */
};

/* ra_pg_schema_load - the tables of a new database of this ratrace; 0 or -1 */
int ra_pg_schema_load(struct ra_pg_schema *s);
void ra_pg_schema_release(struct ra_pg_schema *s);
const struct ra_pg_table *ra_pg_schema_table(const struct ra_pg_schema *s, const char *name);

/*
 * ra_pg_schema_ensure - make the ratrace schema on the server of @conn, or
 * bring it to this version, in one transaction; a database that is not
 * SQL_ASCII with collation C, a server before 15, or a newer schema are
 * refused. 0 or -1 with ra_last_error() naming @shown.
 */
int ra_pg_schema_ensure(PGconn *conn, const char *shown, const struct ra_pg_schema *s);

/* ra_pg_schema_grant - let @role read the schema, its tables now and later; 0 or -1 */
int ra_pg_schema_grant(PGconn *conn, const char *shown, const char *role);

/* The functions of SQLite's meaning and the views, NULL-terminated (pgfuncs.c, pgviews.c). */
const char *const *ra_pg_funcs(void);
const char *const *ra_pg_views(void);
/*
 * ra_pg_views_hash - a hash of SQL text; ra_pg_views_follow - that of the
 * SQLite views (ra_schema_views_sql) the server's follow
 */
uint32_t ra_pg_views_hash(const char *sql);
uint32_t ra_pg_views_follow(void);

#endif
