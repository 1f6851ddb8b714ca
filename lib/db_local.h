/* SPDX-License-Identifier: LGPL-2.1 */
/* Private layout of the database handle. */
#ifndef RA_DB_LOCAL_H
#define RA_DB_LOCAL_H

#include <stdbool.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "ra_db.h"

struct ra_progress;
struct ra_pg;

struct ra_db {
	sqlite3 *db;
	struct ra_pg *pg;		/* or a server's (lib/pg.c): read-only, db NULL */
	struct ra_progress *progress;	/* where long reads of events say how far they are */
	const char *progress_what;
	char *path;
	int readonly;
	int created;		/* the file did not exist before ra_db_open() */
	int fast_load;		/* loading without a journal into a new file */
	int discard;		/* remove the file on close (a failed first load) */
	int guard_fd;		/* a read without SQLite's locks: the file, holding PENDING */
	struct stat seen;	/* ... and what it and its -wal were when the read began */
	struct stat seen_wal;
	long deadline;		/* a reader's reading ends by then (CLOCK_MONOTONIC s) */
	char *building;		/* a new database's temporary file, renamed to path on close */
};

/** ra_db_sqlite - the underlying connection, owned by @db (the library's and its tests') */
sqlite3 *ra_db_sqlite(struct ra_db *db);

/* Set the library error from the connection's last error. */
int ra_db_fail(struct ra_db *db, const char *what);

/*
 * A reader's connection (db_reader.c), made so that it creates nothing beside
 * the file and misses nothing committed; 0 or -1. ra_db_close_reader(), after
 * the connection closed, fails when a writer changed the file meanwhile.
 */
int ra_db_open_reader(struct ra_db *db);
int ra_db_close_reader(struct ra_db *db);

/* Prepare a statement or set the error; NULL on failure. */
sqlite3_stmt *ra_db_prepare(struct ra_db *db, const char *sql);

/*
 * After the connection of a database being built is closed (@ok: cleanly):
 * rename it into place when a load was committed, else remove it. 0 or -1.
 */
int ra_db_place(struct ra_db *db, int ok);

#endif
