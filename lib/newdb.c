// SPDX-License-Identifier: LGPL-2.1
/*
 * A new database appears whole or not at all. It is built at a temporary
 * name beside its own (".NAME.ratrace-new-PID" in the same directory), where
 * nobody else looks, so that its first load can run without a journal; when
 * the handle is closed after a committed load, the file is synced, renamed to
 * its name (never over a file that appeared there meanwhile: then beside it,
 * under a name of this process) and the directory synced. Any other end removes the temporary, and a process
 * killed outright leaves only a temporary, which the next one that builds the
 * same database removes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db_local.h"

#define TEMP_TAG ".ratrace-new-"

/* The directory part of @path ("." when none) into @dir; the name in *@base. */
static int split_path(const char *path, char *dir, size_t len, const char **base)
{
	const char *slash = strrchr(path, '/');
	int n;

	*base = slash ? slash + 1 : path;
	if (!slash)
		n = snprintf(dir, len, ".");
	else
		n = snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return n < 0 || (size_t)n >= len || !**base ? -1 : 0;
}

static int temp_name(const char *path, pid_t pid, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	int dirlen = base ? (int)(base - path + 1) : 0;
	int n;

	base = base ? base + 1 : path;
	n = snprintf(buf, len, "%.*s.%s" TEMP_TAG "%d", dirlen, path, base, (int)pid);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The pid of a file of a temporary of @base ("." BASE TEMP_TAG PID, and -wal...), or 0. */
static pid_t temp_owner(const char *entry, const char *base)
{
	size_t blen = strlen(base), tlen = strlen(TEMP_TAG);
	const char *p = entry + 1 + blen + tlen;
	char *end;
	long pid;

	if (entry[0] != '.' || strncmp(entry + 1, base, blen) != 0 ||
	    strncmp(entry + 1 + blen, TEMP_TAG, tlen) != 0 || *p < '1' || *p > '9')
		return 0;
	pid = strtol(p, &end, 10);
	if (pid <= 0 || pid > INT_MAX)
		return 0;
	if (*end && strcmp(end, "-wal") != 0 && strcmp(end, "-shm") != 0 &&
	    strcmp(end, "-journal") != 0)
		return 0;
	return (pid_t)pid;
}

/* Whether process @pid has ended (a zombie has: it only waits to be reaped). */
static bool process_gone(pid_t pid)
{
	char stat_path[64], buf[512];
	const char *paren;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(stat_path, sizeof(stat_path), "/proc/%d/stat", (int)pid);
	fd = open(stat_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

void ra_db_remove_stale(const char *path)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	const char *base;
	struct dirent *de;
	DIR *d;

	if (split_path(path, dir, sizeof(dir), &base) < 0 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		pid_t pid = temp_owner(de->d_name, base);

		if (!pid || !process_gone(pid))
			continue;	/* not a temporary, or its process still runs */
		if (temp_name(path, pid, tmp, sizeof(tmp)) == 0)
			ra_db_remove_files(tmp);
	}
	closedir(d);
}

/* @msg with its first '@from' replaced by '@to', as the error. */
static void error_names(const char *from, const char *to)
{
	char msg[1024], quoted[PATH_MAX + 2];
	const char *at;
	int kind = ra_last_error_kind();

	snprintf(msg, sizeof(msg), "%s", ra_last_error());
	snprintf(quoted, sizeof(quoted), "'%s'", from);
	at = strstr(msg, quoted);
	if (at)
		ra_set_error(kind, "%.*s'%s'%s", (int)(at - msg), msg, to, at + strlen(quoted));
}

struct ra_db *ra_db_open_for_load(const char *path)
{
	char tmp[PATH_MAX];
	struct ra_db *db;
	struct stat sb;

	ra_db_remove_stale(path);
	if (stat(path, &sb) == 0 || errno != ENOENT)
		return ra_db_open(path, RA_DB_CREATE);
	if (temp_name(path, getpid(), tmp, sizeof(tmp)) < 0) {
		ra_set_error(RA_ERR_USAGE, "cannot create '%s': %s", path, strerror(ENAMETOOLONG));
		return NULL;
	}
	ra_db_remove_files(tmp);	/* of an earlier process that had this pid */
	db = ra_db_open(tmp, RA_DB_CREATE);
	if (!db) {
		error_names(tmp, path);
		return NULL;
	}
	db->building = db->path;
	db->path = strdup(path);
	if (!db->path) {
		db->path = db->building;
		db->building = NULL;
		db->discard = 1;
		ra_db_close(db);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	return db;
}

static int sync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = fsync(fd);
	close(fd);
	return ret;
}

/* Rename @from to @to unless @to exists (link and unlink where renameat2 cannot). */
static int rename_new(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (link(from, to) < 0)
		return -1;
	unlink(from);
	return 0;
}

/*
 * Another writer made a file at the name while this one built its own: the
 * runs go to "STEM.PID.EXT" ("NAME.PID" without an extension) beside it,
 * never lost and never over the other's.
 */
static int place_aside(struct ra_db *db)
{
	char aside[PATH_MAX];
	const char *slash = strrchr(db->path, '/'), *dot = strrchr(db->path, '.');
	int n;

	if (dot && (!slash || dot > slash + 1))
		n = snprintf(aside, sizeof(aside), "%.*s.%d%s", (int)(dot - db->path), db->path,
			     (int)getpid(), dot);
	else
		n = snprintf(aside, sizeof(aside), "%s.%d", db->path, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(aside) || rename_new(db->building, aside) < 0) {
		ra_set_error(RA_ERR_IO, "cannot create '%s': a file appeared there while it was"
			     " written, and its runs could not be put beside it: %s", db->path,
			     strerror(errno));
		ra_db_remove_files(db->building);
		return -1;
	}
	ra_set_error(RA_ERR_IO, "cannot create '%s': a file appeared there while it was written"
		     " (another writer); its runs are in '%s'", db->path, aside);
	return -1;
}

int ra_db_place(struct ra_db *db, int ok)
{
	char dir[PATH_MAX];
	const char *base;

	if (!ok || db->discard || db->created) {
		ra_db_remove_files(db->building);	/* nothing committed: it never appears */
		return ok ? 0 : -1;
	}
	if (sync_path(db->building, 0) < 0) {
		ra_set_error(RA_ERR_IO, "cannot create '%s': %s", db->path, strerror(errno));
		ra_db_remove_files(db->building);
		return -1;
	}
	if (rename_new(db->building, db->path) < 0) {
		if (errno == EEXIST)
			return place_aside(db);
		ra_set_error(RA_ERR_IO, "cannot create '%s': %s", db->path, strerror(errno));
		ra_db_remove_files(db->building);
		return -1;
	}
	if (split_path(db->path, dir, sizeof(dir), &base) == 0 && sync_path(dir, O_DIRECTORY) < 0) {
		ra_set_error(RA_ERR_IO, "cannot sync the directory of '%s': %s", db->path,
			     strerror(errno));
		return -1;
	}
	return 0;
}
