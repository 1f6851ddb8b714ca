// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness: the blktrace reader (ra_blktrace_replay) on arbitrary
 * bytes. The input is one file, or several per-CPU files separated by
 * SEPARATOR (merged by time as ra-import merges them). A failure must be one
 * line naming a file and the offset; every event passed on must be one the
 * reader could make.
 */
#include <string.h>

#include "import.h"
#include "fuzz.h"

#define SEPARATOR	"\n--next-cpu-file--\n"
#define MAX_FILES	4

struct seen {
	uint64_t events;
};

static int on_event(const struct ra_event *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->type <= RA_EV_NONE || ev->type >= RA_EV_MAX || ra_event_class(ev->type) != RA_CLASS_BLK)
		abort();	/* the reader maps only to block events */
	if (strnlen(ev->blk.rwbs, sizeof(ev->blk.rwbs)) == sizeof(ev->blk.rwbs))
		abort();
	s->events++;
	return 0;
}

static void on_task(int pid, const char *comm, void *arg)
{
	if (strlen(comm) > 15)
		abort();
}

static void on_skipped(const char *system, const char *name, uint64_t n, void *arg)
{
	if (!n || strcmp(system, "blktrace") != 0 || !name[0])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char sep[] = SEPARATOR;
	char names[MAX_FILES][64];
	const char *paths[MAX_FILES];
	int fds[MAX_FILES], n = 0;
	struct seen s = { 0 };
	struct ra_blktrace_cbs cbs = { .event = on_event, .task = on_task, .skipped = on_skipped,
				       .arg = &s };
	struct ra_blktrace_stats st;
	const uint8_t *p = data, *end = data + size;

	while (n < MAX_FILES) {
		const uint8_t *q = n < MAX_FILES - 1 ? memmem(p, (size_t)(end - p), sep,
							      sizeof(sep) - 1) : NULL;
		size_t len = q ? (size_t)(q - p) : (size_t)(end - p);

		fds[n] = fuzz_memfile(p, len, names[n], sizeof(names[n]));
		paths[n] = names[n];
		n++;
		if (!q)
			break;
		p = q + sizeof(sep) - 1;
	}
	if (ra_blktrace_replay(paths, n, &cbs, &st) < 0) {
		const char *msg = ra_last_error();

		if (strchr(msg, '\n') || !strstr(msg, "/proc/self/fd/"))
			abort();
		if (ra_last_error_kind() == RA_ERR_DATA && !strstr(msg, ": offset "))
			abort();
	} else if (st.events != s.events || st.events > st.records) {
		abort();
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return 0;
}
