// SPDX-License-Identifier: LGPL-2.1
/*
 * Temporary files (ra_tmpfile.h): made in $TMPDIR (else /tmp) with
 * O_TMPFILE, so that nothing is left behind when the process ends, however
 * it ends; where the file system cannot, named and unlinked at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ra_db.h"
#include "ra_tmpfile.h"

static const char *chosen_dir;

void ra_tmpfile_set_dir(const char *dir)
{
	chosen_dir = dir && *dir ? dir : NULL;
	/* SQLite's own (a sort of an index built, a big transaction's
	 * statement journal): read when a connection makes one, so set before
	 * any is open */
	sqlite3_free(sqlite3_temp_directory);
	sqlite3_temp_directory = chosen_dir ? sqlite3_mprintf("%s", chosen_dir) : NULL;
}

const char *ra_tmpfile_dir(void)
{
	const char *dir = getenv("TMPDIR");

	if (chosen_dir)
		return chosen_dir;
	return dir && *dir ? dir : "/tmp";
}

void ra_tmpfile_init(struct ra_tmpfile *t)
{
	t->fd = -1;
	snprintf(t->dir, sizeof(t->dir), "%s", ra_tmpfile_dir());
}

static int fail(const struct ra_tmpfile *t, const char *what, int err)
{
	ra_set_error(RA_ERR_IO, "cannot %s a temporary file in '%s': %s", what, t->dir,
		     strerror(err));
	return -1;
}

int ra_tmpfile_open(struct ra_tmpfile *t)
{
	char path[sizeof(t->dir) + 32];

	if (t->fd >= 0)
		return 0;
	t->fd = open(t->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (t->fd < 0) {
		snprintf(path, sizeof(path), "%s/ratrace-tmp.XXXXXX", t->dir);
		t->fd = mkostemp(path, O_CLOEXEC);
		if (t->fd < 0)
			return fail(t, "make", errno);
		unlink(path);
	}
	t->self = ra_self_file_begin(t->fd);	/* not a file a recording traces */
	return 0;
}

int ra_tmpfile_io(const struct ra_tmpfile *t, bool out, void *buf, size_t len, off_t off)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = out ? pwrite(t->fd, (char *)buf + done, len - done, off + (off_t)done) :
				  pread(t->fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(t, out ? "write" : "read", n < 0 ? errno : out ? ENOSPC : EIO);
		done += (size_t)n;
	}
	return 0;
}

void ra_tmpfile_close(struct ra_tmpfile *t)
{
	if (t->fd >= 0) {
		close(t->fd);
		ra_self_file_end(t->self);
	}
	t->fd = -1;
}
