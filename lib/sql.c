// SPDX-License-Identifier: LGPL-2.1
/*
 * Statements by format strings (ra_sql.h): the one place where the passes'
 * and renderers' SQL meets SQLite, and where its errors become messages.
 */
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"
#include "ra_sql.h"

struct ra_stmt {
	sqlite3_stmt *st;
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
	free(st);
}

static int bind_va(struct ra_stmt *st, const char *fmt, va_list *ap)
{
	for (int i = 1; *fmt; fmt++, i++) {
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
	ret = bind_va(st, fmt, &ap);
	va_end(ap);
	return ret;
}

int ra_sql_params(struct ra_stmt *st)
{
	return sqlite3_bind_parameter_count(st->st);
}

int ra_sql_step(struct ra_stmt *st)
{
	int rc = sqlite3_step(st->st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return failed(st->db, !sqlite3_stmt_readonly(st->st));
}

static void row_va(struct ra_stmt *st, const char *fmt, va_list *ap)
{
	int ncols = sqlite3_column_count(st->st);

	for (int c = 0; *fmt; fmt++, c++) {
		bool null = c >= ncols || sqlite3_column_type(st->st, c) == SQLITE_NULL;

		if (c >= ncols) {	/* past the row: the pointer untouched */
			if (*fmt != 'n')
				(void)va_arg(*ap, void *);
			if (*fmt == 'b')
				(void)va_arg(*ap, size_t *);
			continue;
		}
		switch (*fmt) {
		case 'i':
			*va_arg(*ap, int64_t *) = sqlite3_column_int64(st->st, c);
			break;
		case 'x':
			*va_arg(*ap, int *) = sqlite3_column_int(st->st, c);
			break;
		case 'd':
			*va_arg(*ap, double *) = null ? NAN : sqlite3_column_double(st->st, c);
			break;
		case 'f':
			*va_arg(*ap, double *) = sqlite3_column_double(st->st, c);
			break;
		case 't':
			*va_arg(*ap, const char **) =
				null ? NULL : (const char *)sqlite3_column_text(st->st, c);
			break;
		case 'T':
			*va_arg(*ap, char **) =
				null ? NULL : strdup((const char *)sqlite3_column_text(st->st, c));
			break;
		case 'b':
			*va_arg(*ap, const void **) = null ? NULL : sqlite3_column_blob(st->st, c);
			*va_arg(*ap, size_t *) = null ? 0 : (size_t)sqlite3_column_bytes(st->st, c);
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
	return sqlite3_column_type(st->st, col) == SQLITE_NULL;
}

int ra_sql_columns(struct ra_stmt *st)
{
	return sqlite3_column_count(st->st);
}

const char *ra_sql_name(struct ra_stmt *st, int col)
{
	const char *name = sqlite3_column_name(st->st, col);

	return name ? name : "";
}

enum ra_sql_type ra_sql_type(struct ra_stmt *st, int col)
{
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
	return sqlite3_column_int64(st->st, col);
}

double ra_sql_real(struct ra_stmt *st, int col)
{
	return sqlite3_column_double(st->st, col);
}

const char *ra_sql_text(struct ra_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st->st, col);

	return t ? (const char *)t : "";
}

void ra_sql_reset(struct ra_stmt *st)
{
	sqlite3_reset(st->st);
}

/* Bind by @fmt and step to the end: 0 or -1. */
static int run_va(struct ra_stmt *st, const char *fmt, va_list *ap)
{
	int ret = bind_va(st, fmt, ap);

	while (ret == 0 && (ret = ra_sql_step(st)) == 1)
		ret = 0;
	return ret < 0 ? -1 : 0;
}

int ra_sql_put(struct ra_stmt *st, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = run_va(st, fmt, &ap);
	va_end(ap);
	sqlite3_reset(st->st);
	return ret;
}

const char *ra_sql_why(struct ra_db *db)
{
	int code = sqlite3_errcode(db->db);

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
	ret = bind_va(st, binds, &ap);
	if (ret == 0 && (ret = ra_sql_step(st)) == 1)
		row_va(st, cols, &ap);
	va_end(ap);
	ra_sql_finalize(st);
	return ret;
}
