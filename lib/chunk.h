/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Packed event storage: the events of a table are kept as chunks of up to
 * RA_CHUNK_EVENTS rows of one run, each column's values packed in a blob by
 * frame of reference (the smallest value of the chunk, then each value's
 * distance from it in as many bits as the largest distance needs). A
 * nullable column's distance is one more, and 0 is NULL. The views named
 * after the tables (page_events...) unpack them in plain SQL; the library
 * unpacks them here. docs/schema.md describes the format.
 */
#ifndef RA_CHUNK_H
#define RA_CHUNK_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "ra_event.h"
#include "ra_evcols.h"

#define RA_CHUNK_EVENTS 1024 /* rows of one chunk, at most */
#define RA_CHUNK_BITS	56   /* width of a column's packed values, at most */
#define RA_CHUNK_COLS	20   /* columns of an event table, seq and run_id included */
#define RA_RWBS_CHARS	7    /* the kernel's RWBS_LEN less its NUL */

/* One event table: its view (the columns ra_evcols.h lists) and its chunks. */
struct ra_chunk_table {
	int cls;		  /* enum ra_event_class */
	const char *view;	  /* "page_events" */
	const char *chunks;	  /* "page_chunks" */
	int ncols;		  /* RA_PAGE_NCOLS */
	const char *const *names; /* of the columns, "seq" first */
	const char *const *decls;
	const unsigned char *since;	/* the schema version of each column */
	const struct ra_evcol *cols;	/* where the columns after the common ones are */
	unsigned char flags[RA_CHUNK_COLS];	/* COL_NULL, COL_TEXT: from decls */
	bool ready;
};

#define COL_NULL 1	/* the column may be NULL */
#define COL_TEXT 2	/* a text, packed as a number */

/* ra_chunk_table - the table of class @cls (RA_CLASS_RA...), or NULL */
const struct ra_chunk_table *ra_chunk_table(int cls);

/* One row of an event table: the value of each column, and whether it is not NULL. */
struct ra_chunk_row {
	int64_t v[RA_CHUNK_COLS];
	bool set[RA_CHUNK_COLS];
};

#define RA_CHUNK_DATA (RA_CHUNK_EVENTS * RA_CHUNK_COLS * RA_CHUNK_BITS / 8 + 16)

/*
 * A run's rows of one table, in seq order: the chunk being filled or read.
 * A chunk being filled is stored when one more row would make its record
 * longer than limit: a chunk row then fits in a page of the file.
 */
struct ra_chunk {
	const struct ra_chunk_table *t;
	int64_t run_id;
	int n;
	int limit;		   /* bytes of a record, at most */
	int64_t lo[RA_CHUNK_COLS]; /* of the rows so far, where set */
	int64_t hi[RA_CHUNK_COLS];
	bool any[RA_CHUNK_COLS];
	int bits[RA_CHUNK_COLS];	/* of each column's values */
	int64_t rowbits;		/* their sum */
	int64_t meta;			/* the record's bytes but the packed values, at most */
	struct ra_chunk_row rows[RA_CHUNK_EVENTS];
	unsigned char data[RA_CHUNK_DATA];
};

/* Begin filling @ch for table @t, its rows to fit pages of @page_size bytes. */
void ra_chunk_begin(struct ra_chunk *ch, const struct ra_chunk_table *t, int page_size);
/* Add @row for run @run_id, storing the chunk with @ins first when it is full. */
int ra_chunk_add(sqlite3_stmt *ins, struct ra_chunk *ch, int64_t run_id,
		 const struct ra_chunk_row *row);

/* The row that stores @ev as event @seq (the run's id is the chunk's). */
void ra_chunk_event_row(const struct ra_chunk_table *t, const struct ra_event *ev, int64_t seq,
			struct ra_chunk_row *r);
/* The event a row holds, as the collectors made it. */
void ra_chunk_row_event(const struct ra_chunk_table *t, const struct ra_chunk_row *r,
			struct ra_event *ev);

/* "CREATE TABLE page_chunks (...)" and "CREATE VIEW page_events AS ...", malloc'd */
char *ra_chunk_create_sql(const struct ra_chunk_table *t);
char *ra_chunk_view_sql(const struct ra_chunk_table *t);
/* ra_chunk_view_pgsql - the same view for a PostgreSQL server, in @schema (malloc'd) */
char *ra_chunk_view_pgsql(const struct ra_chunk_table *t, const char *schema);

/* "INSERT INTO page_chunks (...) VALUES (...)", malloc'd, for ra_chunk_store() */
char *ra_chunk_insert_sql(const struct ra_chunk_table *t);
/*
 * Store the chunk's rows with @ins (more than one chunk row when a column is
 * too wide); -1 when SQLite fails, with the connection's error.
 */
int ra_chunk_store(sqlite3_stmt *ins, struct ra_chunk *ch);

/*
 * "SELECT ... FROM page_chunks" with the columns ra_chunk_load() reads,
 * followed by @where, malloc'd.
 */
char *ra_chunk_select_sql(const struct ra_chunk_table *t, const char *where);
/*
 * The chunk in the current row of a ra_chunk_select_sql() statement into @ch;
 * 0, or -1 with an error naming @path when the row is not a chunk.
 */
int ra_chunk_load(sqlite3_stmt *st, struct ra_chunk *ch, const char *path);

struct ra_db;
/* The page size of the file (4096 when it cannot be read). */
int ra_chunk_page_size(struct ra_db *db);
/*
 * Version 10's step after its SQL (lib/schema.c): make the chunk tables, pack the rows of the event
 * tables of before into them and drop those. 0 or -1.
 */
int ra_chunk_upgrade(struct ra_db *db);
/* Make the three event views (@make), or drop them where they are views. */
int ra_chunk_views(struct ra_db *db, bool make);

#endif /* RA_CHUNK_H */
