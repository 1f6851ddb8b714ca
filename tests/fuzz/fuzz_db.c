// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness: opening a database file of arbitrary bytes read-only
 * (ra_db_open with RA_DB_READONLY), as ra-report and ra-compare open theirs.
 * It must give a handle or one line naming the file; nothing is left beside
 * the file.
 */
#include <fcntl.h>
#include <string.h>

#include "fuzz.h"
#include "ra_db.h"

static char path[PATH_MAX];

static void remove_dir(void)
{
	ra_db_remove_files(path);
	rmdir(fuzz_tmpdir());
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(path, sizeof(path), "%s/input.db", fuzz_tmpdir());
	atexit(remove_dir);
	return 0;
}

static void write_file(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t done = 0;

	if (fd < 0)
		abort();
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ra_db *db;

	write_file(data, size);
	db = ra_db_open(path, RA_DB_READONLY);
	if (!db) {
		if (!strstr(ra_last_error(), path) || strchr(ra_last_error(), '\n'))
			abort();
	} else if (ra_db_close(db) < 0) {
		abort();
	}
	ra_db_remove_files(path);
	return 0;
}
