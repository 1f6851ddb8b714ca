/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Pushing runs from ratrace databases (SQLite files) to a shared one on a
 * PostgreSQL server, where ra-report and ra-compare read them by its URL.
 * docs/fleet.md describes the server's side.
 */
#ifndef RA_PUSH_H
#define RA_PUSH_H

#include <stdbool.h>
#include <stdint.h>

#include "ra_db.h"

struct ra_push_opts {
	bool events;			/* the raw events too (ra_chunks, page_chunks, blk_chunks) */
	const char *source_host;	/* the pushing machine's name to record; NULL: its own */
	const int64_t *runs;		/* only these runs of each database; NULL: every run */
	int nruns;
	const char *const *grants;	/* roles that may read the schema */
	int ngrants;
	ra_notice_fn notice;		/* a line per run: pushed, there already, or failed */
	void *arg;
};

struct ra_push_result {
	int pushed;		/* runs stored */
	int present;		/* runs the server had: left as they are */
	int failed;		/* runs that could not be stored (said through the notice) */
	int64_t rows;		/* rows stored, events' chunks included */
	int64_t chunks;		/* of them, chunks of events */
};

/**
 * ra_push - store the runs of the ratrace databases @files on the server of
 * @url, each run in one transaction, once: a run the server has (by its
 * host, start, origin and trace times) is left as it is
 * @url: postgresql://... (libpq reads the PG* environment, ~/.pgpass and
 *       sslmode as it does for any URL)
 * @files: @nfiles SQLite databases of this ratrace's schema version
 *
 * Makes the ratrace schema on the server, or upgrades it, first. A run that
 * fails is rolled back and said through @o->notice, and the others go on.
 * Returns 0 when every run is on the server, 1 when some failed, -1 when
 * nothing could be done (the server, the schema, a database that cannot be
 * read), with ra_last_error(). Messages never show a password of @url.
 */
int ra_push(const char *url, const char *const *files, int nfiles, const struct ra_push_opts *o,
	    struct ra_push_result *res);

#endif /* RA_PUSH_H */
