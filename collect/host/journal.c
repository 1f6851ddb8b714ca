// SPDX-License-Identifier: LGPL-2.1
/*
 * The restore journal: one file per thing a recorder changes on the machine
 * (a read_ahead_kb file, the throttle's cgroup) in /run/ratrace, named after
 * it (the bdi for a read_ahead_kb: a disk's queue/read_ahead_kb and its
 * /sys/class/bdi/MAJ:MIN/read_ahead_kb are one setting), holding the line
 * that puts it back.
 *
 * A recorder holds an fcntl write lock on each of its entries from before it
 * changes the thing until it has put it back. The lock serializes recorders
 * (a second one finds the holder's pid with F_GETLK), and the kernel drops
 * it when its holder dies, even by SIGKILL: an entry that is not locked and
 * not empty was left by a recorder that could not restore, and whoever locks
 * it next puts the old value back first. /run is emptied at boot, when the
 * settings are back to their defaults anyway.
 *
 * Entry lines:
 *   read_ahead_kb NAME MAJ:MIN PATH OLD_VALUE PID
 *   cgroup PATH PID
 * MAJ:MIN is the disk of a queue/ path (checked before restoring: the disk
 * must still be the one named), or the s_dev of a file system whose bdi of
 * its own the path is (the bdi must still exist).
 *
 * Recorders of ratrace 0.1 kept one journal per recorder, ra-record.PID.restore,
 * with the lines "read_ahead_kb MAJ:MIN NAME OLD_VALUE" and "cgroup PATH", and
 * no lock: such a journal is put back when its recorder's pid is gone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"

#define JOURNAL_DIR "/run/ratrace"
#define MAX_HELD 64

/* Entries this process holds: reopening one and closing it would drop its lock. */
static char held[MAX_HELD][128];

static void say(ra_notice_fn fn, void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(ra_notice_fn fn, void *arg, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(msg, arg);
}

static bool is_held(const char *file)
{
	for (int i = 0; i < MAX_HELD; i++)
		if (strcmp(held[i], file) == 0)
			return true;
	return false;
}

static void set_held(const char *file, bool on)
{
	for (int i = 0; i < MAX_HELD; i++) {
		if (on && !held[i][0]) {
			snprintf(held[i], sizeof(held[i]), "%s", file);
			return;
		}
		if (!on && strcmp(held[i], file) == 0) {
			held[i][0] = '\0';
			return;
		}
	}
}

static void entry_file(char *buf, size_t len, const char *key)
{
	size_t off = (size_t)snprintf(buf, len, JOURNAL_DIR "/");

	for (; *key && off + 1 < len; key++)
		buf[off++] = (*key == '/' || *key == ' ' || *key == '\n') ? '_' : *key;
	buf[off] = '\0';
}

/* The read_ahead_kb of an entry line back; 0 done (or nothing to do), -1 failed. */
static int restore_ra(const char *line, long pid, ra_notice_fn fn, void *arg)
{
	char name[64], path[512], value[32];
	unsigned int ma, mi;
	struct ra_blockdev bd;
	int fd, ok;

	if (sscanf(line, "read_ahead_kb %63s %u:%u %511s %31s", name, &ma, &mi, path, value) != 5)
		return 0;	/* not ours to read: skip */
	if ((ma && (ra_blockdev_resolve(name, &bd) < 0 || bd.dev != RA_MKDEV(ma, mi))) ||
	    access(path, F_OK) < 0) {
		say(fn, arg, "'%s' (%u:%u) of recorder %ld's journal is gone; its read_ahead_kb"
		    " is not restored", name, ma, mi, pid);
		return 0;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	if (fd >= 0)
		close(fd);
	if (!ok) {
		say(fn, arg, "cannot restore read_ahead_kb of '%s' to %s: %s", name, value,
		    strerror(errno));
		return -1;
	}
	say(fn, arg, "restored read_ahead_kb of '%s' to %s, left by recorder %ld", name, value,
	    pid);
	return 0;
}

/* Put back what the entry text @text of a dead recorder lists; 0 done, -1 not possible. */
static int restore_text(const char *text, ra_notice_fn fn, void *arg)
{
	char cg[256];
	long pid = 0;
	const char *end = strrchr(text, ' ');

	if (end)
		pid = strtol(end + 1, NULL, 10);
	if (sscanf(text, "cgroup %255s", cg) == 1) {
		if (rmdir(cg) < 0 && errno != ENOENT) {
			say(fn, arg, "cannot remove '%s', left by recorder %ld: %s", cg, pid,
			    strerror(errno));
			return -1;
		}
		say(fn, arg, "removed cgroup '%s', left by recorder %ld", cg, pid);
		return 0;
	}
	return restore_ra(text, pid, fn, arg);
}

static ssize_t read_entry(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/*
 * Open and lock @file. Returns the fd, -2 when another process holds it
 * (*@holder its pid), or -1 (errno).
 */
static int open_locked(const char *file, pid_t *holder)
{
	for (int tries = 0; tries < 16; tries++) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		struct stat a, b;
		int fd;

		if (mkdir(JOURNAL_DIR, 0700) < 0 && errno != EEXIST)
			return -1;
		fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;	/* the directory went meanwhile */
			return -1;
		}
		if (fcntl(fd, F_SETLK, &fl) < 0) {
			int err = errno;

			fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
			if ((err == EACCES || err == EAGAIN) && fcntl(fd, F_GETLK, &fl) == 0 &&
			    fl.l_type != F_UNLCK) {
				*holder = fl.l_pid;
				close(fd);
				return -2;
			}
			close(fd);
			if (err != EACCES && err != EAGAIN) {
				errno = err;
				return -1;
			}
			continue;	/* released meanwhile */
		}
		/* removed by its last holder between our open and our lock: take the new one */
		if (fstat(fd, &a) == 0 && stat(file, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			return fd;
		close(fd);
	}
	errno = EAGAIN;
	return -1;
}

int ra_journal_lock(struct ra_journal_entry *e, const char *key, pid_t *holder,
		    ra_notice_fn fn, void *arg)
{
	char text[1024];
	int fd;

	e->fd = -1;
	entry_file(e->file, sizeof(e->file), key);
	fd = open_locked(e->file, holder);
	if (fd == -2)
		return 1;
	if (fd < 0) {
		ra_set_error(RA_ERR_ENV, "cannot lock '%s': %s", e->file, strerror(errno));
		return -1;
	}
	if (read_entry(fd, text, sizeof(text)) > 0) {
		/* left by a recorder that died before it could put the value back */
		if (restore_text(text, fn, arg) < 0) {
			ra_set_error(RA_ERR_ENV, "cannot put back what '%s' lists: %s", e->file,
				     text);
			close(fd);
			return -1;
		}
		if (ftruncate(fd, 0) < 0) {
			ra_set_error(RA_ERR_ENV, "cannot clear '%s': %s", e->file, strerror(errno));
			close(fd);
			return -1;
		}
	}
	e->fd = fd;
	set_held(e->file, true);
	return 0;
}

int ra_journal_note(struct ra_journal_entry *e, const char *line)
{
	size_t len = line ? strlen(line) : 0;

	if (e->fd < 0) {
		errno = EBADF;
		return -1;
	}
	if (ftruncate(e->fd, 0) < 0)
		return -1;
	if (len && (pwrite(e->fd, line, len, 0) != (ssize_t)len || fsync(e->fd) < 0))
		return -1;
	return 0;
}

void ra_journal_unlock(struct ra_journal_entry *e)
{
	char text[16];

	if (e->fd < 0)
		return;
	/* removed while locked, so that no one locks a file that is gone; kept when it
	 * still lists something to put back */
	if (read_entry(e->fd, text, sizeof(text)) <= 0)
		unlink(e->file);
	set_held(e->file, false);
	close(e->fd);
	e->fd = -1;
	rmdir(JOURNAL_DIR);	/* when no other entry is left */
}

/* Entries of this format only: another version's journals are its own to recover. */
static bool ours(const char *name)
{
	return strncmp(name, RA_JOURNAL_RA, strlen(RA_JOURNAL_RA)) == 0 ||
	       strncmp(name, RA_JOURNAL_CGROUP, strlen(RA_JOURNAL_CGROUP)) == 0;
}

/* One entry of the directory: put back when no live recorder holds it. */
static int recover_one(const char *name, ra_notice_fn fn, void *arg)
{
	char file[512], text[1024];
	pid_t holder = 0;
	int fd, done = 0;

	snprintf(file, sizeof(file), JOURNAL_DIR "/%s", name);
	if (is_held(file))
		return 0;
	fd = open_locked(file, &holder);
	if (fd < 0)
		return 0;	/* its recorder is alive: it restores itself */
	if (read_entry(fd, text, sizeof(text)) <= 0 || restore_text(text, fn, arg) == 0) {
		unlink(file);
		done = 1;
	}
	close(fd);
	return done;
}

/* A line of a 0.1 journal as a line of this format, then put back. */
static int restore_legacy_line(const char *line, long pid, ra_notice_fn fn, void *arg)
{
	char name[64], value[32], text[768];
	struct ra_blockdev bd;
	unsigned int ma, mi;

	if (strncmp(line, "cgroup ", 7) == 0) {
		snprintf(text, sizeof(text), "%s %ld", line, pid);
		return restore_text(text, fn, arg);
	}
	if (sscanf(line, "read_ahead_kb %u:%u %63s %31s", &ma, &mi, name, value) != 4)
		return 0;
	if (ra_blockdev_resolve(name, &bd) < 0)
		snprintf(bd.parent_name, sizeof(bd.parent_name), "%s", name);	/* said gone below */
	snprintf(text, sizeof(text), "read_ahead_kb %s %u:%u /sys/class/block/%s/queue/read_ahead_kb"
		 " %s %ld", name, ma, mi, bd.parent_name, value, pid);
	return restore_ra(text, pid, fn, arg);
}

/* A 0.1 journal, ra-record.PID.restore: put back when its recorder is gone. */
static int recover_legacy(const char *name, ra_notice_fn fn, void *arg)
{
	char file[512], line[512];
	long pid;
	int ok = 0;
	FILE *f;

	if (sscanf(name, "ra-record.%ld.restore", &pid) != 1 || pid <= 0 ||
	    !(kill((pid_t)pid, 0) < 0 && errno == ESRCH))
		return 0;	/* not one, or its recorder is alive */
	snprintf(file, sizeof(file), JOURNAL_DIR "/%s", name);
	f = fopen(file, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ok |= restore_legacy_line(line, pid, fn, arg);
	}
	fclose(f);
	if (ok == 0)
		unlink(file);
	return ok == 0;
}

int ra_journal_recover(ra_notice_fn fn, void *arg)
{
	DIR *d = opendir(JOURNAL_DIR);
	struct dirent *de;
	int recovered = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_type == DT_REG && ours(de->d_name))
			recovered += recover_one(de->d_name, fn, arg);
		else if (de->d_type == DT_REG)
			recovered += recover_legacy(de->d_name, fn, arg);
	closedir(d);
	rmdir(JOURNAL_DIR);
	return recovered;
}
