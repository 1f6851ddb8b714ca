// SPDX-License-Identifier: LGPL-2.1
/*
 * Small helpers shared by the commands.
 */
#include <malloc.h>
#include <time.h>

#include "ra_db.h"

void ra_malloc_tune(void)
{
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_TOP_PAD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
}

int64_t ra_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
