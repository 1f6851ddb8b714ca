// SPDX-License-Identifier: LGPL-2.1
/*
 * Statements by format strings (ra_sql.h): the one place where the passes'
 * and renderers' SQL meets SQLite, or a PostgreSQL server (lib/pg.c) for a
 * database opened by its URL, and where their errors become messages.
 */
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"
#include "pg_local.h"
#include "ra_sql.h"

struct ra_stmt {
	sqlite3_stmt *st;
	struct ra_pg_stmt *pg;	/* or this, on a server */
	struct ra_db *db;
};

/* The error of @db's last call, for a statement that reads (@write false) or writes. */
static int failed(struct ra_db *db, bool write)
{
	int rc = sqlite3_errcode(db->db);

	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
		ra_set_error(RA_ERR_DATA, "'%s' is not a ratrace database, or is damaged (%s)",
			     db->path, sqlite3_errmsg(db->db));
	else
		ra_set_error(RA_ERR_IO, "cannot %s '%s': %s", write ? "write" : "read", db->path,
			     sqlite3_errmsg(db->db));
	return -1;
}

struct ra_stmt *ra_sql_prepare(struct ra_db *db, const char *sql)
{
	struct ra_stmt *st = calloc(1, sizeof(*st));

	if (!st) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	st->db = db;
	if (db->pg) {
		if (!(st->pg = ra_pg_prepare(db->pg, sql))) {
			free(st);
			return NULL;
		}
		return st;
	}
	if (sqlite3_prepare_v2(db->db, sql, -1, &st->st, NULL) != SQLITE_OK) {
		failed(db, strncmp(sql, "SELECT", 6) && strncmp(sql, "WITH", 4));
		sqlite3_finalize(st->st);
		free(st);
		return NULL;
	}
	return st;
}

void ra_sql_finalize(struct ra_stmt *st)
{
	if (!st)
		return;
	sqlite3_finalize(st->st);
	ra_pg_finalize(st->pg);
	free(st);
}

/* The same on a server: each value with its type, a NULL with the type it would have. */
static int bind_pg_va(struct ra_stmt *st, int first, const char *fmt, va_list *ap)
{
	for (int i = first; *fmt; fmt++, i++) {
		struct ra_pg_stmt *p = st->pg;
		int64_t v;
		double d;
		const char *s;
		size_t len;
		int rc, o;

		switch (*fmt) {
		case 'i':
			rc = ra_pg_bind(p, i, 'i', va_arg(*ap, int64_t), 0, NULL, 0);
			break;
		case 'z':
			v = va_arg(*ap, int64_t);
			rc = ra_pg_bind(p, i, v ? 'i' : 'I', v, 0, NULL, 0);
			break;
		case 'j':
			v = va_arg(*ap, int64_t);
			rc = ra_pg_bind(p, i, v >= 0 ? 'i' : 'I', v, 0, NULL, 0);
			break;
		case 'o':
			o = va_arg(*ap, int);
			v = va_arg(*ap, int64_t);
			rc = ra_pg_bind(p, i, o ? 'i' : 'I', v, 0, NULL, 0);
			break;
		case 'x':
			rc = ra_pg_bind(p, i, 'i', va_arg(*ap, int), 0, NULL, 0);
			break;
		case 'd':
			d = va_arg(*ap, double);
			rc = ra_pg_bind(p, i, isnan(d) ? 'D' : 'd', 0, d, NULL, 0);
			break;
		case 'f':
			rc = ra_pg_bind(p, i, 'd', 0, va_arg(*ap, double), NULL, 0);
			break;
		case 't':
			s = va_arg(*ap, const char *);
			rc = ra_pg_bind(p, i, s ? 't' : 'T', 0, 0, s, s ? strlen(s) : 0);
			break;
		case 's':
		case 'b':
			s = va_arg(*ap, const void *);
			len = va_arg(*ap, size_t);
			rc = ra_pg_bind(p, i, *fmt == 's' ? 't' : 'b', 0, 0, s, len);
			break;
		case 'n':
			rc = ra_pg_bind(p, i, 'n', 0, 0, NULL, 0);
			break;
		default:
			ra_set_error(RA_ERR_USAGE, "bad bind format '%c'", *fmt);
			return -1;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int bind_va(struct ra_stmt *st, int first, const char *fmt, va_list *ap)
{
	if (st->pg)
		return bind_pg_va(st, first, fmt, ap);
	for (int i = first; *fmt; fmt++, i++) {
		int64_t v;
		double d;
		const char *s;
		int rc, o;

		switch (*fmt) {
		case 'i':
			rc = sqlite3_bind_int64(st->st, i, va_arg(*ap, int64_t));
			break;
		case 'z':
			v = va_arg(*ap, int64_t);
			rc = v ? sqlite3_bind_int64(st->st, i, v) : sqlite3_bind_null(st->st, i);
			break;
		case 'j':
			v = va_arg(*ap, int64_t);
			rc = v >= 0 ? sqlite3_bind_int64(st->st, i, v) : sqlite3_bind_null(st->st, i);
			break;
		case 'o':
			o = va_arg(*ap, int);
			v = va_arg(*ap, int64_t);
			rc = o ? sqlite3_bind_int64(st->st, i, v) : sqlite3_bind_null(st->st, i);
			break;
		case 'x':
			rc = sqlite3_bind_int(st->st, i, va_arg(*ap, int));
			break;
		case 'd':
			d = va_arg(*ap, double);
			rc = isnan(d) ? sqlite3_bind_null(st->st, i) : sqlite3_bind_double(st->st, i, d);
			break;
		case 'f':
			rc = sqlite3_bind_double(st->st, i, va_arg(*ap, double));
			break;
		case 't':
			s = va_arg(*ap, const char *);
			rc = s ? sqlite3_bind_text(st->st, i, s, -1, SQLITE_TRANSIENT) :
				 sqlite3_bind_null(st->st, i);
			break;
		case 's':
			s = va_arg(*ap, const char *);
			v = (int64_t)va_arg(*ap, size_t);
			rc = v > INT32_MAX ? SQLITE_TOOBIG :
			     sqlite3_bind_text(st->st, i, s, (int)v, SQLITE_TRANSIENT);
			break;
		case 'b':
			s = va_arg(*ap, const void *);
			v = (int64_t)va_arg(*ap, size_t);
			rc = v > INT32_MAX ? SQLITE_TOOBIG :
			     sqlite3_bind_blob(st->st, i, s, (int)v, SQLITE_TRANSIENT);
			break;
		case 'n':
			rc = sqlite3_bind_null(st->st, i);
			break;
		default:
			ra_set_error(RA_ERR_USAGE, "bad bind format '%c'", *fmt);
			return -1;
		}
		if (rc != SQLITE_OK)
			return failed(st->db, true);
	}
	return 0;
}

int ra_sql_bind(struct ra_stmt *st, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = bind_va(st, 1, fmt, &ap);
	va_end(ap);
	return ret;
}

int ra_sql_bind_at(struct ra_stmt *st, int first, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = bind_va(st, first, fmt, &ap);
	va_end(ap);
	return ret;
}

int ra_sql_params(struct ra_stmt *st)
{
	return st->pg ? ra_pg_params(st->pg) : sqlite3_bind_parameter_count(st->st);
}

int ra_sql_step(struct ra_stmt *st)
{
	int rc;

	if (st->pg)
		return ra_pg_step(st->pg);
	rc = sqlite3_step(st->st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return failed(st->db, !sqlite3_stmt_readonly(st->st));
}

static void row_va(struct ra_stmt *st, const char *fmt, va_list *ap)
{
	int ncols = ra_sql_columns(st);

	for (int c = 0; *fmt; fmt++, c++) {
		bool null = c >= ncols || ra_sql_null(st, c);
		size_t len;

		if (c >= ncols) {	/* past the row: the pointer untouched */
			if (*fmt != 'n')
				(void)va_arg(*ap, void *);
			if (*fmt == 'b')
				(void)va_arg(*ap, size_t *);
			continue;
		}
		switch (*fmt) {
		case 'i':
			*va_arg(*ap, int64_t *) = ra_sql_int(st, c);
			break;
		case 'x':
			*va_arg(*ap, int *) = (int)ra_sql_int(st, c);
			break;
		case 'd':
			*va_arg(*ap, double *) = null ? NAN : ra_sql_real(st, c);
			break;
		case 'f':
			*va_arg(*ap, double *) = ra_sql_real(st, c);
			break;
		case 't':
			*va_arg(*ap, const char **) = null ? NULL : ra_sql_text(st, c);
			break;
		case 'T':
			*va_arg(*ap, char **) = null ? NULL : strdup(ra_sql_text(st, c));
			break;
		case 'b':
			if (null) {
				*va_arg(*ap, const void **) = NULL;
				*va_arg(*ap, size_t *) = 0;
			} else if (st->pg) {
				*va_arg(*ap, const void **) = ra_pg_blob(st->pg, c, &len);
				*va_arg(*ap, size_t *) = len;
			} else {
				*va_arg(*ap, const void **) = sqlite3_column_blob(st->st, c);
				*va_arg(*ap, size_t *) = (size_t)sqlite3_column_bytes(st->st, c);
			}
			break;
		default:	/* 'n': skipped */
			break;
		}
	}
}

void ra_sql_row(struct ra_stmt *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	row_va(st, fmt, &ap);
	va_end(ap);
}

bool ra_sql_null(struct ra_stmt *st, int col)
{
	if (st->pg)
		return ra_pg_type(st->pg, col) == 0;
	return sqlite3_column_type(st->st, col) == SQLITE_NULL;
}

int ra_sql_columns(struct ra_stmt *st)
{
	return st->pg ? ra_pg_columns(st->pg) : sqlite3_column_count(st->st);
}

const char *ra_sql_name(struct ra_stmt *st, int col)
{
	const char *name;

	if (st->pg)
		return ra_pg_name(st->pg, col);
	name = sqlite3_column_name(st->st, col);
	return name ? name : "";
}

enum ra_sql_type ra_sql_type(struct ra_stmt *st, int col)
{
	static const enum ra_sql_type pg_types[] = { RA_SQL_NULL, RA_SQL_INT, RA_SQL_REAL,
						     RA_SQL_TEXT };

	if (st->pg)
		return pg_types[ra_pg_type(st->pg, col)];
	switch (sqlite3_column_type(st->st, col)) {
	case SQLITE_NULL:
		return RA_SQL_NULL;
	case SQLITE_INTEGER:
		return RA_SQL_INT;
	case SQLITE_FLOAT:
		return RA_SQL_REAL;
	default:	/* a blob reads as its text */
		return RA_SQL_TEXT;
	}
}

int64_t ra_sql_int(struct ra_stmt *st, int col)
{
	return st->pg ? ra_pg_int(st->pg, col) : sqlite3_column_int64(st->st, col);
}

double ra_sql_real(struct ra_stmt *st, int col)
{
	return st->pg ? ra_pg_real(st->pg, col) : sqlite3_column_double(st->st, col);
}

const char *ra_sql_text(struct ra_stmt *st, int col)
{
	const unsigned char *t;

	if (st->pg)
		return ra_pg_text(st->pg, col);
	t = sqlite3_column_text(st->st, col);
	return t ? (const char *)t : "";
}

void ra_sql_reset(struct ra_stmt *st)
{
	if (st->pg)
		ra_pg_reset(st->pg);
	else
		sqlite3_reset(st->st);
}

/* Step to the end: 0 or -1. */
static int run(struct ra_stmt *st)
{
	int ret;

	while ((ret = ra_sql_step(st)) == 1)
		;
	return ret < 0 ? -1 : 0;
}

/* Bind by @fmt and step to the end: 0 or -1. */
static int run_va(struct ra_stmt *st, const char *fmt, va_list *ap)
{
	return bind_va(st, 1, fmt, ap) < 0 ? -1 : run(st);
}

int ra_sql_put(struct ra_stmt *st, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = run_va(st, fmt, &ap);
	va_end(ap);
	ra_sql_reset(st);
	return ret;
}

struct ra_batch {
	struct ra_stmt *st;
	int ncols;
	int rows;		/* of the statement: RA_BATCH_ROWS, or 1 on a server */
	int n;			/* rows bound, not yet written */
};

struct ra_batch *ra_batch_new(struct ra_db *db, const char *insert, int ncols)
{
	struct ra_batch *b = calloc(1, sizeof(*b));
	int rows = db->pg ? 1 : RA_BATCH_ROWS;
	size_t len = strlen(insert) + 64 + (size_t)rows * (3 + 2 * (size_t)ncols);
	char *sql = malloc(len), *p;

	if (!b || !sql || ncols < 1) {
		free(b);
		free(sql);
		ra_set_error(ncols < 1 ? RA_ERR_USAGE : RA_ERR_IO,
			     ncols < 1 ? "a batch of rows without values" : "out of memory");
		return NULL;
	}
	/* SELECT ... LIMIT ?: the statement inserts the first rows only */
	p = sql + sprintf(sql, "%s %s", insert, rows > 1 ? "SELECT * FROM (VALUES " : "VALUES ");
	for (int r = 0; r < rows; r++) {
		if (r)
			*p++ = ',';
		*p++ = '(';
		for (int c = 0; c < ncols; c++) {
			if (c)
				*p++ = ',';
			*p++ = '?';
		}
		*p++ = ')';
	}
	strcpy(p, rows > 1 ? ") LIMIT ?" : "");
	b->st = ra_sql_prepare(db, sql);
	free(sql);
	if (!b->st) {
		free(b);
		return NULL;
	}
	b->ncols = ncols;
	b->rows = rows;
	return b;
}

int ra_batch_flush(struct ra_batch *b)
{
	int ret = 0;

	if (!b->n)
		return 0;
	if (b->rows > 1 && ra_sql_bind_at(b->st, b->rows * b->ncols + 1, "x", b->n) < 0)
		ret = -1;
	else
		ret = run(b->st);
	ra_sql_reset(b->st);
	b->n = 0;
	return ret;
}

int ra_batch_put(struct ra_batch *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if ((int)strlen(fmt) != b->ncols) {
		ra_set_error(RA_ERR_USAGE, "a row of %d values in a batch of %d", (int)strlen(fmt),
			     b->ncols);
		return -1;
	}
	va_start(ap, fmt);
	ret = bind_va(b->st, 1 + b->n * b->ncols, fmt, &ap);
	va_end(ap);
	if (ret < 0)
		return -1;
	if (++b->n == b->rows)
		return ra_batch_flush(b);
	return 0;
}

void ra_batch_free(struct ra_batch *b)
{
	if (!b)
		return;
	ra_sql_finalize(b->st);
	free(b);
}

const char *ra_sql_why(struct ra_db *db)
{
	int code;

	if (db->pg)
		return ra_pg_last_error(db->pg);
	code = sqlite3_errcode(db->db);

	return code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE ?
		       "out of memory" : sqlite3_errmsg(db->db);
}

int ra_sql_exec(struct ra_db *db, const char *sql, const char *fmt, ...)
{
	struct ra_stmt *st = ra_sql_prepare(db, sql);
	va_list ap;
	int ret;

	if (!st)
		return -1;
	va_start(ap, fmt);
	ret = run_va(st, fmt, &ap);
	va_end(ap);
	ra_sql_finalize(st);
	return ret;
}

int ra_sql_one(struct ra_db *db, const char *sql, const char *binds, const char *cols, ...)
{
	struct ra_stmt *st;
	va_list ap;
	int ret;

	if (strchr(cols, 't')) {	/* its text would end with the statement */
		ra_set_error(RA_ERR_USAGE, "ra_sql_one reads text as 'T', not 't'");
		return -1;
	}
	st = ra_sql_prepare(db, sql);
	if (!st)
		return -1;
	va_start(ap, cols);
	ret = bind_va(st, 1, binds, &ap);
	if (ret == 0 && (ret = ra_sql_step(st)) == 1)
		row_va(st, cols, &ap);
	va_end(ap);
	ra_sql_finalize(st);
	return ret;
}
