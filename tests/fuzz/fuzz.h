/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * What the libFuzzer harnesses share: an input as a file in memory, named
 * by a path the readers open like any other, and a private directory for
 * harnesses that need files of their own.
 */
#ifndef RA_FUZZ_H
#define RA_FUZZ_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A directory of this process under $TMPDIR (or /tmp), removed at exit by the caller. */
static inline const char *fuzz_tmpdir(void)
{
	static char dir[PATH_MAX];
	const char *base = getenv("TMPDIR");

	if (dir[0])
		return dir;
	snprintf(dir, sizeof(dir), "%s/ratrace-fuzz.XXXXXX", base && base[0] ? base : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	return dir;
}

#endif
