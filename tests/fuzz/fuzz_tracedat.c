// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness: a trace.dat on arbitrary bytes as ra-import reads it:
 * the structural check, libtracecmd's open of every buffer, the metadata,
 * the replay of every record through the decoder, the skipped events and
 * the lost events stored into a database (rolled back after each input).
 *
 * A crash whose stack lies in libtracecmd or libtraceevent is a library bug
 * that ra-import's supervisor contains (docs/robustness.md lists them); one
 * in ratrace's code is a bug to fix.
 */
#include <string.h>

#include <trace-cmd/trace-cmd.h>

#include "import.h"
#include "fuzz.h"

static struct ra_db *db;
static char db_path[PATH_MAX];

static void remove_db(void)
{
	ra_db_close(db);
	ra_db_remove_files(db_path);
	rmdir(fuzz_tmpdir());
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	snprintf(db_path, sizeof(db_path), "%s/lost.db", fuzz_tmpdir());
	db = ra_db_open(db_path, RA_DB_CREATE);
	if (!db) {
		fprintf(stderr, "%s\n", ra_last_error());
		abort();
	}
	atexit(remove_db);
	return 0;
}

struct seen {
	struct ra_tracedat *td;
	uint64_t events;
	uint64_t last_ts;
};

static int on_event(const struct ra_event *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->type <= RA_EV_NONE || ev->type >= RA_EV_MAX)
		abort();
	s->events++;
	s->last_ts = ev->ts_ns;
	/* what the writer asks of a task first seen */
	ra_tracedat_comm(s->td, ev->pid);
	return 0;
}

static void on_skipped(const char *system, const char *name, uint64_t n, void *arg)
{
	if (!system || !name || !n)
		abort();
}

static void metadata(struct ra_tracedat *td)
{
	char kernel[128], host[128], machine[128], clock[32];
	uint64_t first, last;

	ra_tracedat_uname(td, kernel, host, machine, sizeof(kernel));
	ra_tracedat_clock(td, clock, sizeof(clock));
	ra_tracedat_page_size(td);
	if (ra_tracedat_ncpus(td) <= 0)
		abort();
	for (int t = 0; t < RA_EV_MAX; t++)
		ra_tracedat_has(td, t);
	ra_tracedat_span(td, &first, &last);
}

static void store_lost(struct ra_tracedat *td)
{
	struct ra_run_info info = { .origin = "trace.dat" };
	int64_t run_id;

	if (ra_db_exec(db, "BEGIN") < 0)
		abort();
	run_id = ra_db_run_create(db, &info);
	if (run_id < 0 || ra_tracedat_store_lost(td, db, run_id) < 0)
		abort();
	if (ra_db_exec(db, "ROLLBACK") < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));
	struct seen s = { 0 };

	s.td = ra_tracedat_open(path);
	if (!s.td) {
		if (!strstr(ra_last_error(), path) || strchr(ra_last_error(), '\n'))
			abort();
		goto out;
	}
	metadata(s.td);
	if (ra_tracedat_replay(s.td, on_event, &s) == 0) {
		ra_tracedat_skipped(s.td, on_skipped, NULL);
		store_lost(s.td);
	} else if (!strstr(ra_last_error(), path)) {
		abort();
	}
	ra_tracedat_close(s.td);
out:
	close(fd);
	return 0;
}
