/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Statements of a ratrace database, for the passes and the renderers: prepare,
 * bind, step and read by a format string, with the error message made in one
 * place. The engine (SQLite) stays behind this interface.
 *
 * A format has one character per parameter (bound from 1) or column (read
 * from 0):
 *   i  int64_t     bound; read into int64_t * (NULL reads 0)
 *   z  int64_t     bound, 0 as NULL (a time or id that is not known)
 *   j  int64_t     bound, a negative value as NULL (a duration not measured)
 *   o  int, int64_t  two arguments: the value bound when the first is true,
 *                  else NULL (a field the event may not have)
 *   x  int         bound; read into int * (NULL reads 0)
 *   d  double      bound, NaN as NULL; read into double * (NULL reads NaN)
 *   f  double      bound; read into double * (NULL reads 0)
 *   t  const char* bound (copied), NULL as NULL; read into const char **
 *                  (NULL reads NULL; valid until the next step)
 *   s  const char*, size_t  bound only: a text of that many bytes (copied)
 *   T  char *      read only: a copy of the text to free() (NULL reads NULL),
 *                  the form ra_sql_one() reads text in
 *   b  const void*, size_t  bound: a blob of that many bytes (copied); read
 *                  into const void ** and size_t * (NULL reads NULL and 0;
 *                  valid until the next step)
 *   n  NULL        bound, no argument; a column skipped when read
 */
#ifndef RA_SQL_H
#define RA_SQL_H

#include <stdbool.h>
#include <stdint.h>

#include "ra_db.h"

struct ra_stmt;

/** ra_sql_prepare - a statement of @db; NULL with ra_last_error() */
struct ra_stmt *ra_sql_prepare(struct ra_db *db, const char *sql);
/** ra_sql_finalize - free the statement; safe on NULL */
void ra_sql_finalize(struct ra_stmt *st);

/** ra_sql_bind - bind the parameters from 1 by @fmt; 0 or -1 (a bad format) */
int ra_sql_bind(struct ra_stmt *st, const char *fmt, ...);
/** ra_sql_bind_at - bind by @fmt the parameters from @first on; 0 or -1 */
int ra_sql_bind_at(struct ra_stmt *st, int first, const char *fmt, ...);
/** ra_sql_params - how many parameters the statement has */
int ra_sql_params(struct ra_stmt *st);
/** ra_sql_step - 1 a row, 0 done, -1 with ra_last_error() */
int ra_sql_step(struct ra_stmt *st);
/**
 * ra_sql_row - read the columns from 0 of the current row by @fmt; a format
 * character past the row's columns leaves its pointer untouched
 */
void ra_sql_row(struct ra_stmt *st, const char *fmt, ...);
/** ra_sql_null - whether column @col of the current row is NULL */
bool ra_sql_null(struct ra_stmt *st, int col);

/* A column of the current row by its type, for a reader of any statement */
enum ra_sql_type { RA_SQL_NULL, RA_SQL_INT, RA_SQL_REAL, RA_SQL_TEXT };
/** ra_sql_columns - how many columns the statement's rows have */
int ra_sql_columns(struct ra_stmt *st);
/** ra_sql_name - the name of column @col (valid while the statement is) */
const char *ra_sql_name(struct ra_stmt *st, int col);
/** ra_sql_type - the type of column @col of the current row */
enum ra_sql_type ra_sql_type(struct ra_stmt *st, int col);
/** ra_sql_int, ra_sql_real, ra_sql_text - column @col as that type ("" for NULL text) */
int64_t ra_sql_int(struct ra_stmt *st, int col);
double ra_sql_real(struct ra_stmt *st, int col);
const char *ra_sql_text(struct ra_stmt *st, int col);

/** ra_sql_reset - ready the statement to run again, its bindings kept */
void ra_sql_reset(struct ra_stmt *st);

/**
 * ra_sql_put - bind by @fmt, run to the end and reset: one write of a
 * prepared INSERT; 0 or -1 with ra_last_error()
 */
int ra_sql_put(struct ra_stmt *st, const char *fmt, ...);

/*
 * Rows of one INSERT, written many at a time: each row is bound as it is
 * put into a statement of RA_BATCH_ROWS rows of VALUES, stepped when they
 * are all bound or when flushed (it inserts the first of them, as many as
 * were put), so that SQLite's cost of a statement is shared by its rows. On
 * a server, a row at a time. A row put is in its table once flushed: a
 * statement that reads or changes the table must come after
 * ra_batch_flush(). Rows of one batch go in in the order they were put.
 */
#define RA_BATCH_ROWS 16

struct ra_batch;

/**
 * ra_batch_new - rows of @insert ("INSERT [OR REPLACE] INTO t (c1, c2...)",
 * no VALUES) of @ncols values each; NULL with ra_last_error()
 */
struct ra_batch *ra_batch_new(struct ra_db *db, const char *insert, int ncols);
/** ra_batch_put - one row, its @ncols values by @fmt; 0 or -1 with ra_last_error() */
int ra_batch_put(struct ra_batch *b, const char *fmt, ...);
/** ra_batch_flush - the rows put written; 0 or -1 with ra_last_error() */
int ra_batch_flush(struct ra_batch *b);
/** ra_batch_free - free it, the rows not flushed dropped; safe on NULL */
void ra_batch_free(struct ra_batch *b);

/**
 * ra_sql_why - the engine's words for the last statement of @db that failed
 * ("out of memory" when it has none), for a message that names more than
 * the file
 */
const char *ra_sql_why(struct ra_db *db);

/** ra_sql_exec - prepare @sql, bind by @fmt, run it to the end; 0 or -1 */
int ra_sql_exec(struct ra_db *db, const char *sql, const char *fmt, ...);

/**
 * ra_sql_one - the first row of @sql with its parameters bound by @binds,
 * read by @cols into the pointers that follow the bound values: 1 a row,
 * 0 none (the pointers untouched), -1 with ra_last_error()
 */
int ra_sql_one(struct ra_db *db, const char *sql, const char *binds, const char *cols, ...);

#endif /* RA_SQL_H */
