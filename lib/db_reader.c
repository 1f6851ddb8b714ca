// SPDX-License-Identifier: LGPL-2.1
/*
 * How a reader opens a database: read-only, creating nothing beside it (no
 * -wal, no -shm), on read-only media too, and missing nothing a writer
 * committed. docs/report.md ("Reading a database") says it for users.
 *
 * Writers leave a file in rollback-journal mode when they close (db.c), and
 * such a file SQLite reads with its ordinary locks. A file in WAL mode is a
 * writer at work, one that died, or one that could not switch back because
 * others had the file open. SQLite's read-only open of such a file needs a
 * -shm file, and creates it and the -wal where it can; so for WAL:
 * - with its -wal and -shm there (a writer at work, or one that died), or
 *   with another connection open: SQLite's own read-only open, which reads
 *   the committed frames of the -wal through the -shm;
 * - with no -wal: every committed page is in the file: immutable=1;
 * - with a -wal and no -shm: the -wal is read into private memory (the
 *   unix-none VFS in exclusive locking mode uses no -shm).
 * The last two take none of SQLite's locks, so the reader holds PENDING
 * itself when it can open the file for writing (no connection can begin
 * while it reads), and compares the files when it closes in any case: a
 * writer that came meanwhile (through another mount, as another user) makes
 * the read fail instead of silently wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_local.h"

/* SQLite's lock bytes (the lock-byte page): PENDING, RESERVED, SHARED x 510. */
#define LOCK_PENDING 0x40000000
#define LOCK_BYTES 512

enum way { WAY_LOCKED, WAY_IMMUTABLE, WAY_PRIVATE_WAL };

/* Hold PENDING: a connection begins by taking it for a moment, so none can. */
static bool hold_pending(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = LOCK_PENDING,
			    .l_len = 1 };

	return fcntl(fd, F_OFD_SETLK, &fl) == 0;
}

/* A lock of any other connection: another process, or SQLite in this one. */
static bool others_connected(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = LOCK_PENDING,
			    .l_len = LOCK_BYTES };

	return fcntl(fd, F_OFD_GETLK, &fl) != 0 || fl.l_type != F_UNLCK;
}

/* An SQLite file in WAL mode: the format's header, write and read versions 2. */
static bool in_wal_mode(int fd)
{
	unsigned char h[20];

	return pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	       memcmp(h, "SQLite format 3", 16) == 0 && h[18] == 2 && h[19] == 2;
}

/* The file @path@suffix: whether it exists, and its stat in @sb. */
static bool sidecar(const char *path, const char *suffix, struct stat *sb)
{
	char buf[4096];

	memset(sb, 0, sizeof(*sb));
	snprintf(buf, sizeof(buf), "%s%s", path, suffix);
	return stat(buf, sb) == 0;
}

/*
 * The way to read the file now; @again when another reader of this kind
 * holds PENDING (readers without locks take turns) or a connection is
 * beginning.
 */
static enum way try_way(struct ra_db *db, bool *again)
{
	int fd = open(db->path, O_RDWR | O_CLOEXEC);
	bool writable = fd >= 0, has_wal, has_shm;
	struct stat wal, shm;

	if (fd < 0 && (fd = open(db->path, O_RDONLY | O_CLOEXEC)) < 0)
		return WAY_LOCKED;	/* SQLite's open says why */
	if (!in_wal_mode(fd) || (writable && !hold_pending(fd))) {
		*again = in_wal_mode(fd);
		close(fd);
		return WAY_LOCKED;
	}
	has_wal = sidecar(db->path, "-wal", &wal);
	has_shm = sidecar(db->path, "-shm", &shm);
	if (others_connected(fd) || (has_wal && has_shm) || fstat(fd, &db->seen) < 0) {
		close(fd);
		return WAY_LOCKED;
	}
	db->guard_fd = fd;
	db->seen_wal = wal;
	return has_wal ? WAY_PRIVATE_WAL : WAY_IMMUTABLE;
}

/* Taking turns for as long as SQLite waits for a lock (the busy timeout). */
static enum way pick_way(struct ra_db *db)
{
	enum way way = WAY_LOCKED;
	bool again = true;

	for (int i = 0; again && i < 1000; i++) {
		if (i)
			usleep(10000);
		again = false;
		way = try_way(db, &again);
	}
	return way;
}

/* "file:PATH?immutable=1", PATH percent-encoded but for its plain characters. */
static char *immutable_uri(const char *path)
{
	char *uri = malloc(3 * strlen(path) + 32), *p;

	if (!uri)
		return NULL;
	p = uri + sprintf(uri, "file:%s", path[0] == '/' ? "//" : "");
	for (const unsigned char *s = (const unsigned char *)path; *s; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("/._-~", *s))
			*p++ = (char)*s;
		else
			p += sprintf(p, "%%%02X", *s);
	strcpy(p, "?immutable=1");
	return uri;
}

int ra_db_open_reader(struct ra_db *db)
{
	const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
	enum way way = pick_way(db);
	char *uri = NULL;
	int rc;

	if (way == WAY_IMMUTABLE) {
		uri = immutable_uri(db->path);
		rc = uri ? sqlite3_open_v2(uri, &db->db, flags | SQLITE_OPEN_URI, NULL) :
			   SQLITE_NOMEM;
	} else if (way == WAY_PRIVATE_WAL) {
		rc = sqlite3_open_v2(db->path, &db->db, flags, "unix-none");
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db->db, "PRAGMA locking_mode = EXCLUSIVE", NULL, NULL,
					  NULL);
	} else {
		rc = sqlite3_open_v2(db->path, &db->db, flags, NULL);
	}
	free(uri);
	/* a reader never writes: not even the checkpoint SQLite tries at close */
	if (rc == SQLITE_OK)
		rc = sqlite3_db_config(db->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	if (rc != SQLITE_OK) {
		ra_set_error(RA_ERR_USAGE, "cannot open '%s': %s", db->path,
			     db->db ? sqlite3_errmsg(db->db) : "out of memory");
		return -1;
	}
	return 0;
}

/*
 * Whether a writer touched the file: its inode, size or modification time.
 * (Not its change time: SQLite running as root fchown()s a -wal it opens.)
 */
static bool changed(const struct stat *a, const struct stat *b)
{
	return a->st_dev != b->st_dev || a->st_ino != b->st_ino || a->st_size != b->st_size ||
	       a->st_mtim.tv_sec != b->st_mtim.tv_sec || a->st_mtim.tv_nsec != b->st_mtim.tv_nsec;
}

int ra_db_close_reader(struct ra_db *db)
{
	struct stat now, wal;
	bool has_wal;
	int ret = 0;

	if (db->guard_fd < 0)
		return 0;
	has_wal = sidecar(db->path, "-wal", &wal);
	if (fstat(db->guard_fd, &now) < 0 || changed(&now, &db->seen) ||
	    (db->seen_wal.st_ino && (!has_wal || changed(&wal, &db->seen_wal)))) {
		ra_set_error(RA_ERR_IO, "'%s' was changed by a writer while it was read: read it"
			     " again", db->path);
		ret = -1;
	}
	close(db->guard_fd);
	db->guard_fd = -1;
	return ret;
}
