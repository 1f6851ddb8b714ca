/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What the libFuzzer harnesses share: an input as a file in memory, named
 * by a path the readers open like any other, and a private directory for
 * harnesses that need files of their own.
 */
#ifndef RA_FUZZ_H
#define RA_FUZZ_H

#include <dirent.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * A memfd holding @size bytes of @data; its path "/proc/self/fd/N" in @path.
 * Returns the descriptor (the caller closes it), or -1: a harness that
 * cannot make its file stops the run.
 */
static inline int fuzz_memfile(const void *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	while (done < size) {
		ssize_t n = write(fd, (const char *)data + done, size - done);

		if (n <= 0) {
			perror("write");
			abort();
		}
		done += (size_t)n;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static char fuzz_dir[PATH_MAX];

/* Removes the files a harness left in its directory, then the directory. */
static inline void fuzz_tmpdir_remove(void)
{
	char path[PATH_MAX + 64];
	struct dirent *de;
	DIR *d = opendir(fuzz_dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(fuzz_dir);
}

/* A directory of this process under $TMPDIR (or /tmp), removed at exit
 * (libFuzzer's forked and parallel jobs are processes of their own: each
 * removes its own; the runner's private TMPDIR catches a job that crashed). */
static inline const char *fuzz_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (fuzz_dir[0])
		return fuzz_dir;
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/ratrace-fuzz.XXXXXX", base && base[0] ? base : "/tmp");
	if (!mkdtemp(fuzz_dir)) {
		perror("mkdtemp");
		abort();
	}
	atexit(fuzz_tmpdir_remove);
	return fuzz_dir;
}

#endif
