// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness: the structural check of trace.dat files
 * (ra_tracedat_check) on arbitrary bytes. It must answer 0, or -1 with one
 * line naming the file and, for damage, the offset; and read nothing outside
 * what it was given.
 */
#include <string.h>

#include "import.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));

	if (ra_tracedat_check(path) < 0) {
		const char *msg = ra_last_error();

		if (!strstr(msg, path) || strchr(msg, '\n'))
			abort();
		if (ra_last_error_kind() == RA_ERR_DATA && !strstr(msg, ": offset "))
			abort();
	}
	close(fd);
	return 0;
}
