/* SPDX-License-Identifier: LGPL-2.1 */
/* Private layout of the database handle. */
#ifndef RA_DB_LOCAL_H
#define RA_DB_LOCAL_H

#include "ra_db.h"

struct ra_db {
	sqlite3 *db;
	char *path;
	int readonly;
	int created;		/* the file did not exist before ra_db_open() */
	int fast_load;		/* loading without a journal into a new file */
	int discard;		/* remove the file on close (a failed first load) */
};

/* Set the library error from the connection's last error. */
int ra_db_fail(struct ra_db *db, const char *what);

/* Prepare a statement or set the error; NULL on failure. */
sqlite3_stmt *ra_db_prepare(struct ra_db *db, const char *sql);

#endif
