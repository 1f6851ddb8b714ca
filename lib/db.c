// SPDX-License-Identifier: LGPL-2.1
/*
 * Opening, creating and checking ratrace databases.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chunk.h"
#include "db_local.h"
#include "pg_local.h"
#include "schema.h"

int ra_db_fail(struct ra_db *db, const char *what)
{
	ra_set_error(RA_ERR_IO, "%s '%s': %s", what, db->path, sqlite3_errmsg(db->db));
	return -1;
}

sqlite3_stmt *ra_db_prepare(struct ra_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		ra_db_fail(db, "cannot prepare a statement for");
		return NULL;
	}
	return st;
}

int ra_db_exec(struct ra_db *db, const char *sql)
{
	char *msg = NULL;

	if (db->pg)
		return ra_pg_exec(db->pg, sql);
	if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		ra_set_error(RA_ERR_IO, "database '%s': %s", db->path, msg ? msg : "error");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3 *ra_db_sqlite(struct ra_db *db)
{
	return db->db;
}

void ra_db_set_progress(struct ra_db *db, struct ra_progress *p, const char *what)
{
	db->progress = p;
	db->progress_what = what;
}

const char *ra_db_path(struct ra_db *db)
{
	return db->path;
}

const char *ra_db_file(struct ra_db *db)
{
	return db->building ? db->building : db->path;
}

/* The error of a statement that could not read the file, with its cause. */
static int read_failed(struct ra_db *db)
{
	int rc = sqlite3_errcode(db->db), err = sqlite3_system_errno(db->db);

	if (rc == SQLITE_NOTADB)
		ra_set_error(RA_ERR_DATA, "'%s' is not a ratrace database (%s)", db->path,
			     sqlite3_errmsg(db->db));
	else if (err)
		ra_set_error(RA_ERR_IO, "cannot read '%s': %s (%s)", db->path,
			     sqlite3_errmsg(db->db), strerror(err));
	else
		ra_set_error(RA_ERR_IO, "cannot read '%s': %s", db->path, sqlite3_errmsg(db->db));
	return -1;
}

static int pragma_int(struct ra_db *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		read_failed(db);
		sqlite3_finalize(st);
		return -1;
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* The event_types rows of every event this ratrace knows (kept ones stay). */
static int insert_event_types(struct ra_db *db)
{
	sqlite3_stmt *st = ra_db_prepare(db, "INSERT OR IGNORE INTO event_types VALUES (?, ?, ?, ?)");
	int ret = -1;

	if (!st)
		return -1;
	for (int i = 1; i < RA_EV_MAX; i++) {
		static const char *const tables[] = { "", "ra_events", "page_events",
						      "blk_events" };

		if (!ra_event_name(i))
			continue;
		sqlite3_bind_int(st, 1, i);
		sqlite3_bind_text(st, 2, ra_event_system(i), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, ra_event_name(i), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, tables[ra_event_class(i)], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			ra_db_fail(db, "cannot create the schema in");
			goto out;
		}
		sqlite3_reset(st);
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

/*
 * ratrace's views in the file, for the users who open it with other tools.
 * Making a view that reads another one needs views on for the while.
 */
static int make_file_views(struct ra_db *db)
{
	int ret;

	sqlite3_db_config(db->db, SQLITE_DBCONFIG_ENABLE_VIEW, 1, NULL);
	ret = ra_chunk_views(db, true) < 0 ? -1 : ra_db_exec(db, ra_schema_views_sql);
	sqlite3_db_config(db->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	return ret;
}

/*
 * The steps from version @from to this one and the views, in the open
 * transaction: a new database comes from version 1 the way an old one does.
 * The file's views go first, never read: a step that renames a table would
 * otherwise parse them.
 */
static int apply_steps(struct ra_db *db, int64_t from)
{
	char pragma[64];

	if (ra_db_exec(db, ra_schema_drop_views_sql) < 0 || ra_chunk_views(db, false) < 0)
		return -1;
	for (int64_t v = from + 1; v <= RA_SCHEMA_VERSION; v++)
		if (ra_db_exec(db, ra_schema_steps[v - 2]) < 0 ||
		    (v == 10 && ra_chunk_upgrade(db) < 0))
			return -1;
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d;", RA_SCHEMA_VERSION);
	if (make_file_views(db) < 0 || insert_event_types(db) < 0)
		return -1;
	return ra_db_exec(db, pragma);
}

/*
 * The schema's version once the write lock is held: a writer that opened the
 * file at the same time may have made or upgraded it meanwhile (0: no schema).
 */
static int locked_version(struct ra_db *db, int64_t *version)
{
	int64_t ntables;

	if (pragma_int(db, "SELECT COUNT(*) FROM sqlite_master", &ntables) < 0 ||
	    pragma_int(db, "PRAGMA user_version", version) < 0)
		return -1;
	if (!ntables)
		*version = 0;
	return 0;
}

/* Whether the last statement failed on another connection's lock. */
static bool busy(struct ra_db *db)
{
	int rc = sqlite3_errcode(db->db);

	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

/* Roll the open transaction back: -2 when it failed on a lock (try again), else -1. */
static int rollback(struct ra_db *db)
{
	bool again = busy(db);

	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return again ? -2 : -1;
}

/*
 * Run a schema transaction (create, upgrade, the switch to WAL) until it
 * gets through: two
 * writers of a database in rollback-journal mode (as an older ratrace or a
 * reader left it) can each hold the lock the other waits for, and SQLite
 * then fails one of them at once, whatever the busy timeout. The one that
 * failed backs off and tries again, for 30 s at most.
 */
static int schema_txn(struct ra_db *db, int (*fn)(struct ra_db *, int64_t), int64_t arg)
{
	int ret = -2;

	for (int attempt = 1; ret == -2 && attempt <= 40; attempt++) {
		ret = fn(db, arg);
		if (ret == -2)
			usleep((useconds_t)(50000 + (getpid() % 7) * 10000) * (attempt < 10 ? attempt : 10));
	}
	return ret < 0 ? -1 : 0;
}

/* A writer works in WAL mode; switching needs the lock another writer may hold. */
static int to_wal(struct ra_db *db, int64_t unused)
{
	(void)unused;
	if (ra_db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;") < 0)
		return busy(db) ? -2 : -1;
	return 0;
}

static int create_schema(struct ra_db *db, int64_t unused)
{
	char pragma[64];
	int64_t version;

	(void)unused;
	if (ra_db_exec(db, "BEGIN IMMEDIATE") < 0)
		return busy(db) ? -2 : -1;
	snprintf(pragma, sizeof(pragma), "PRAGMA application_id = %d;", RA_APPLICATION_ID);
	if (locked_version(db, &version) < 0 ||
	    (version == 0 && (ra_db_exec(db, pragma) < 0 || ra_db_exec(db, ra_schema_sql) < 0 ||
			      apply_steps(db, 1) < 0)) ||
	    (version > 0 && version < RA_SCHEMA_VERSION && apply_steps(db, version) < 0) ||
	    ra_db_exec(db, "COMMIT") < 0)
		return rollback(db);
	return 0;
}

/*
 * An older version gets what the versions after it added, in one
 * transaction. A read-only open cannot, and says how to.
 */
static int upgrade(struct ra_db *db, int64_t version)
{
	if (db->readonly) {
		ra_set_error(RA_ERR_DATA, "'%s' has schema version %lld; 'ra-analyze %s' upgrades it",
			     db->path, (long long)version, db->path);
		return -1;
	}
	if (ra_db_exec(db, "BEGIN IMMEDIATE") < 0)
		return busy(db) ? -2 : -1;
	if (locked_version(db, &version) < 0 ||
	    (version < RA_SCHEMA_VERSION && apply_steps(db, version) < 0) ||
	    ra_db_exec(db, "COMMIT") < 0)
		return rollback(db);
	return 0;
}

/* Check what kind of database this is; create the schema in an empty one. */
static int check_schema(struct ra_db *db, int flags)
{
	int64_t app_id, version, ntables;

	if (pragma_int(db, "PRAGMA application_id", &app_id) < 0 ||
	    pragma_int(db, "PRAGMA user_version", &version) < 0 ||
	    pragma_int(db, "SELECT COUNT(*) FROM sqlite_master", &ntables) < 0)
		return -1;
	if (ntables == 0 && app_id == 0) {
		if (db->readonly || !(flags & RA_DB_CREATE)) {
			ra_set_error(RA_ERR_DATA, "'%s' is an empty database, not a ratrace one",
				     db->path);
			return -1;
		}
		return schema_txn(db, create_schema, 0);
	}
	if (app_id != RA_APPLICATION_ID) {
		ra_set_error(RA_ERR_DATA, "'%s' is not a ratrace database", db->path);
		return -1;
	}
	if (version > RA_SCHEMA_VERSION) {
		ra_set_error(RA_ERR_DATA,
			     "'%s' has schema version %lld, newer than this ratrace reads (%d)",
			     db->path, (long long)version, RA_SCHEMA_VERSION);
		return -1;
	}
	if (version >= 1 && version < RA_SCHEMA_VERSION)
		return schema_txn(db, upgrade, version);
	if (version < 1) {
		ra_set_error(RA_ERR_DATA, "'%s' has an unknown old schema version %lld", db->path,
			     (long long)version);
		return -1;
	}
	return 0;
}

/* Test that a new file can be created, for an error that names the cause. */
static int probe_create(const char *path, int *created)
{
	int fd;

	*created = 0;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			return 0;
		ra_set_error(RA_ERR_USAGE, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	*created = 1;
	return 0;
}

/*
 * The writer's connection: read-write, and with RA_DB_CREATE the file made.
 * Serialized: the event writer's store thread shares it (writer.c).
 */
static int open_writer(struct ra_db *db, int flags)
{
	int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX;

	if (flags & RA_DB_CREATE)
		oflags |= SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(db->path, &db->db, oflags, NULL) != SQLITE_OK) {
		ra_set_error(RA_ERR_USAGE, "cannot open '%s': %s", db->path,
			     db->db ? sqlite3_errmsg(db->db) : "out of memory");
		return -1;
	}
	return 0;
}

/*
 * A database may come from anyone (a CI artifact, a bug report): the SQL its
 * author put in it never runs. SQLite's defensive mode; no trusted schema (a
 * function in the file's schema must be harmless); the file's triggers and
 * views are off, and ratrace's own views are made in the connection's TEMP
 * schema, where they shadow the file's (with_views()); limits on what one
 * value or statement may take; and for a reader, on the time its reading may
 * take (RA_DB_READ_SECONDS, or RATRACE_READ_SECONDS in the environment).
 */
static const int hardening[][2] = {
	{ SQLITE_DBCONFIG_DEFENSIVE, 1 },
	{ SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0 },
	{ SQLITE_DBCONFIG_ENABLE_TRIGGER, 0 },
	{ SQLITE_DBCONFIG_ENABLE_VIEW, 0 },
	{ SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0 },
};

static const int limits[][2] = {
	{ SQLITE_LIMIT_LENGTH, 256 << 20 },	/* a workload's output is kept up to 16 MiB */
	{ SQLITE_LIMIT_SQL_LENGTH, 1 << 20 },
	{ SQLITE_LIMIT_ATTACHED, 0 },
	{ SQLITE_LIMIT_TRIGGER_DEPTH, 1 },
};

static int past_deadline(void *arg)
{
	struct ra_db *db = arg;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > db->deadline;
}

static int harden(struct ra_db *db)
{
	const char *env = getenv("RATRACE_READ_SECONDS");
	struct timespec now;

	for (size_t i = 0; i < sizeof(hardening) / sizeof(hardening[0]); i++)
		if (sqlite3_db_config(db->db, hardening[i][0], hardening[i][1], NULL) != SQLITE_OK)
			return ra_db_fail(db, "cannot configure the connection to");
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		sqlite3_limit(db->db, limits[i][0], limits[i][1]);
	if (db->readonly) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		db->deadline = now.tv_sec + (env && atol(env) > 0 ? atol(env) : RA_DB_READ_SECONDS);
		sqlite3_progress_handler(db->db, 100000, past_deadline, db);
	}
	return 0;
}

/* ratrace's views, in the TEMP schema: the only views ratrace's queries see. */
static int with_views(struct ra_db *db)
{
	static const char create[] = "CREATE VIEW ";
	const char *p = ra_schema_views_sql, *hit;
	size_t len = strlen(p) + 64 * 16;
	char *sql = malloc(len), *out = sql;
	int ret;

	if (!sql) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	while ((hit = strstr(p, create))) {
		out += sprintf(out, "%.*sCREATE TEMP VIEW ", (int)(hit - p), p);
		p = hit + strlen(create);
	}
	strcpy(out, p);
	ret = ra_db_exec(db, sql);
	free(sql);
	return ret;
}

/*
 * SQLite counts the memory it allocates, under a global mutex at every
 * allocation, unless told not to before its first connection; ratrace never
 * asks for the counts (a window's row costs 10% less without).
 */
static void sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static struct ra_db *db_alloc(const char *path, int flags, int created)
{
	static pthread_once_t setup = PTHREAD_ONCE_INIT;
	struct ra_db *db;

	pthread_once(&setup, sqlite_setup);
	db = calloc(1, sizeof(*db));

	if (!db || !(db->path = strdup(path))) {
		free(db);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	db->readonly = !!(flags & RA_DB_READONLY);
	db->created = created;
	db->guard_fd = -1;
	return db;
}

static void db_free(struct ra_db *db)
{
	if (!db)
		return;
	sqlite3_close(db->db);
	ra_pg_close(db->pg);
	if (db->guard_fd >= 0)
		close(db->guard_fd);
	free(db->path);
	free(db);
}

/*
 * A database on a PostgreSQL server, named by its URL: read only (ra-push
 * writes it), named in messages without its password.
 */
static struct ra_db *open_server(const char *url, int flags)
{
	char *shown = ra_pg_redact(url);
	struct ra_db *db = NULL;

	if (!shown) {
		ra_set_error(RA_ERR_IO, "out of memory");
	} else if (!(flags & RA_DB_READONLY)) {
		ra_set_error(RA_ERR_USAGE, "'%s' is a PostgreSQL database: only ra-push writes it",
			     shown);
	} else if ((db = db_alloc(shown, flags, 0)) && !(db->pg = ra_pg_open(url, shown))) {
		db_free(db);
		db = NULL;
	}
	free(shown);
	return db;
}

struct ra_db *ra_db_open(const char *path, int flags)
{
	struct ra_db *db = NULL;
	int created = 0;
	struct stat sb;

	if (ra_pg_is_url(path))
		return open_server(path, flags);
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		ra_set_error(RA_ERR_USAGE, "'%s' is a directory", path);
		return NULL;
	}
	if ((flags & RA_DB_CREATE) && !(flags & RA_DB_READONLY)) {
		if (probe_create(path, &created) < 0)
			return NULL;
	} else if (access(path, R_OK) < 0) {
		ra_set_error(RA_ERR_USAGE, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	db = db_alloc(path, flags, created);
	if (!db || (db->readonly ? ra_db_open_reader(db) : open_writer(db, flags)) < 0 ||
	    harden(db) < 0)
		goto fail;
	sqlite3_busy_timeout(db->db, 10000);
	if (check_schema(db, flags) < 0 || with_views(db) < 0)
		goto fail;
	if (!db->readonly && schema_txn(db, to_wal, 0) < 0)
		goto fail;
	if (ra_db_exec(db, "PRAGMA foreign_keys = ON") < 0)
		goto fail;
	return db;
fail:
	db_free(db);
	if (created)
		unlink(path);
	return NULL;
}

void ra_db_remove_files(const char *path)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char buf[4096];

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", path, suffix[i]);
		unlink(buf);
	}
}

/*
 * A writer leaves the file in rollback-journal mode when it is the last
 * connection, so that a reader needs no -wal or -shm file (read-only media, a
 * directory it cannot write). It waits a second for readers to finish; with
 * others still open the file stays in WAL mode, for the next writer to switch.
 */
static void leave_wal(struct ra_db *db)
{
	sqlite3_busy_timeout(db->db, 1000);
	sqlite3_exec(db->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
}

int ra_db_close(struct ra_db *db)
{
	int ret = 0;

	if (!db)
		return 0;
	if (db->pg) {
		db_free(db);
		return 0;
	}
	if (!db->readonly && !db->discard)
		leave_wal(db);
	if (sqlite3_close(db->db) != SQLITE_OK) {
		ra_db_fail(db, "cannot close");
		ret = -1;
	}
	db->db = NULL;
	if (db->readonly && ra_db_close_reader(db) < 0)
		ret = -1;
	if (db->building && ra_db_place(db, ret == 0) < 0)
		ret = -1;
	else if (!db->building && db->discard)
		ra_db_remove_files(db->path);
	free(db->building);
	db_free(db);
	return ret;
}

/* The connection's journal mode is OFF. */
static bool journal_off(struct ra_db *db)
{
	sqlite3_stmt *st = NULL;
	bool off = false;

	if (sqlite3_prepare_v2(db->db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		off = sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "off") == 0;
	sqlite3_finalize(st);
	return off;
}

/*
 * A load into a file this process created has nothing to protect: it runs
 * without a journal (the events are written once, not also to a WAL that a
 * checkpoint copies at the end), and a failure removes the file. The
 * connection's defensive flag refuses journal_mode=OFF from SQL: it is
 * lifted for that pragma only. A load into an existing database is an
 * ordinary WAL transaction.
 */
int ra_db_load_begin(struct ra_db *db)
{
	if (db->created && !db->fast_load) {
		int rc;

		sqlite3_db_config(db->db, SQLITE_DBCONFIG_DEFENSIVE, 0, NULL);
		rc = ra_db_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF");
		sqlite3_db_config(db->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
		if (rc < 0)
			return -1;
		db->fast_load = journal_off(db);
	}
	return ra_db_exec(db, "BEGIN IMMEDIATE");
}

bool ra_db_private(const struct ra_db *db)
{
	return db->building != NULL;
}

int ra_db_load_commit(struct ra_db *db)
{
	if (ra_db_exec(db, "COMMIT") < 0) {
		ra_db_load_abort(db);
		return -1;
	}
	db->created = 0;	/* it holds committed runs now: never removed */
	if (db->fast_load) {
		db->fast_load = 0;
		return ra_db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
	}
	return 0;
}

void ra_db_load_abort(struct ra_db *db)
{
	if (db->created)
		db->discard = 1;	/* nothing of ours was in it before */
	if (!db->fast_load)
		sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
}
