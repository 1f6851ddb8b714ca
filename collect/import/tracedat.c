// SPDX-License-Identifier: LGPL-2.1
/*
 * trace-cmd trace.dat files through libtracecmd, decoded by the same decoder
 * as live recordings. Every buffer (the top one and the instances) is read,
 * merged by time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "decode.h"
#include "trace.h"
#include "import.h"

/*
 * Exported by libtracecmd but declared only in its private header: the
 * metadata options of the file.
 */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
const char *tracecmd_get_version(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);

#define MAX_HANDLES 64

struct ra_tracedat {
	char *path;
	struct tracecmd_input *top;
	struct tracecmd_input *h[MAX_HANDLES];	/* h[0] == top */
	struct ra_decoder *dec[MAX_HANDLES];
	int nh;
	int ncpus;
	uint64_t *missed;	/* per CPU */
	uint64_t *missed_unknown;
	uint64_t first_ts, last_ts, records;
	ra_event_cb cb;
	void *arg;
	int cb_failed;
};

int ra_tracedat_probe(const void *buf, size_t len)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	return len >= sizeof(magic) && memcmp(buf, magic, sizeof(magic)) == 0;
}

static int handle_index(struct ra_tracedat *td, struct tracecmd_input *h)
{
	for (int i = 0; i < td->nh; i++)
		if (td->h[i] == h)
			return i;
	return 0;
}

static int open_buffers(struct ra_tracedat *td)
{
	int n = tracecmd_buffer_instances(td->top);

	td->h[td->nh++] = td->top;
	for (int i = 0; i < n && td->nh < MAX_HANDLES; i++) {
		struct tracecmd_input *h = tracecmd_buffer_instance_handle(td->top, i);

		if (!h)
			continue;
		td->h[td->nh++] = h;
	}
	for (int i = 0; i < td->nh; i++) {
		td->dec[i] = ra_decoder_alloc(tracecmd_get_tep(td->h[i]), ra_dyn_lookup);
		if (!td->dec[i])
			return -1;
	}
	return 0;
}

struct ra_tracedat *ra_tracedat_open(const char *path)
{
	struct ra_tracedat *td = calloc(1, sizeof(*td));
	int ret;

	if (!td || !(td->path = strdup(path))) {
		free(td);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* libtracecmd does not say where a file is broken, and takes some cut files */
	ret = ra_tracedat_check(path);
	if (ret < 0)
		goto fail;
	if (ret > 0) {
		/* libtracecmd dereferences NULL when asked for its events */
		ra_set_error(RA_ERR_DATA, "'%s' holds a latency trace (text), not event records",
			     path);
		goto fail;
	}
	td->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!td->top) {
		ra_set_error(RA_ERR_DATA, "'%s': not a readable trace.dat file (truncated or corrupt)",
			     path);
		goto fail;
	}
	if (open_buffers(td) < 0)
		goto fail;
	td->ncpus = tracecmd_cpus(td->top);
	if (td->ncpus <= 0)
		td->ncpus = 1;
	td->missed = calloc((size_t)td->ncpus, sizeof(*td->missed));
	td->missed_unknown = calloc((size_t)td->ncpus, sizeof(*td->missed_unknown));
	if (!td->missed || !td->missed_unknown) {
		ra_set_error(RA_ERR_IO, "out of memory");
		goto fail;
	}
	return td;
fail:
	ra_tracedat_close(td);
	return NULL;
}

void ra_tracedat_close(struct ra_tracedat *td)
{
	if (!td)
		return;
	for (int i = 0; i < td->nh; i++) {
		ra_decoder_free(td->dec[i]);
		if (td->h[i] != td->top)
			tracecmd_close(td->h[i]);
	}
	tracecmd_close(td->top);
	free(td->missed);
	free(td->missed_unknown);
	free(td->path);
	free(td);
}

bool ra_tracedat_has(struct ra_tracedat *td, int type)
{
	for (int i = 0; i < td->nh; i++)
		if (ra_decoder_has(td->dec[i], type))
			return true;
	return false;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct ra_tracedat *td = data;
	struct ra_event ev;

	if (!td->records++)
		td->first_ts = rec->ts;
	td->last_ts = rec->ts;
	if (cpu >= 0 && cpu < td->ncpus) {
		if (rec->missed_events > 0)
			td->missed[cpu] += (uint64_t)rec->missed_events;
		else if (rec->missed_events < 0)
			td->missed_unknown[cpu]++;
	}
	if (ra_decode(td->dec[handle_index(td, h)], rec, &ev) != 1)
		return 0;
	if (td->cb(&ev, td->arg) < 0) {
		td->cb_failed = 1;
		return -1;	/* stops the iteration */
	}
	return 0;
}

int ra_tracedat_replay(struct ra_tracedat *td, ra_event_cb cb, void *arg)
{
	int ret;

	td->cb = cb;
	td->arg = arg;
	if (td->nh == 1)
		ret = tracecmd_iterate_events(td->top, NULL, 0, on_record, td);
	else
		ret = tracecmd_iterate_events_multi(td->h, td->nh, on_record, td);
	if (td->cb_failed)
		return -1;
	if (ret < 0) {
		ra_set_error(RA_ERR_DATA, "'%s': cannot read the event data (truncated or corrupt)",
			     td->path);
		return -1;
	}
	return 0;
}

uint64_t ra_tracedat_skipped(struct ra_tracedat *td, ra_skipped_cb cb, void *arg)
{
	uint64_t total = 0;

	for (int i = 0; i < td->nh; i++)
		total += ra_decoder_skipped(td->dec[i], cb, arg);
	return total;
}

/* "Linux vm 6.18.44-fc-v782 x86_64" */
void ra_tracedat_uname(struct ra_tracedat *td, char *kernel, char *host, char *machine,
		       size_t len)
{
	const char *u = tracecmd_get_uname(td->top);
	char a[64] = "", b[128] = "", c[128] = "", d[64] = "";

	kernel[0] = host[0] = machine[0] = '\0';
	if (!u || sscanf(u, "%63s %127s %127s %63s", a, b, c, d) < 3)
		return;
	snprintf(host, len, "%s", b);
	snprintf(kernel, len, "%s", c);
	snprintf(machine, len, "%s", d);
}

/* "[local] global counter" -> "local" */
void ra_tracedat_clock(struct ra_tracedat *td, char *out, size_t len)
{
	const char *c = tracecmd_get_trace_clock(td->top);
	const char *a = c ? strchr(c, '[') : NULL, *b = a ? strchr(a, ']') : NULL;

	if (a && b)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(out, len, "%s", c ? c : "");
}

int ra_tracedat_page_size(struct ra_tracedat *td)
{
	/* the ring-buffer page of the recording system: its page size */
	return tracecmd_page_size(td->top);
}

int ra_tracedat_ncpus(struct ra_tracedat *td)
{
	return td->ncpus;
}

void ra_tracedat_span(struct ra_tracedat *td, uint64_t *first, uint64_t *last)
{
	*first = td->first_ts;
	*last = td->last_ts;
}

static int64_t cpustat_field(const char *block, const char *end, const char *key)
{
	const char *p = strstr(block, key);

	if (!p || (end && p > end))
		return -1;
	return strtoll(p + strlen(key), NULL, 10);
}

/* Lost events per CPU from the CPUSTAT option and the records' missed marks. */
int ra_tracedat_store_lost(struct ra_tracedat *td, struct ra_db *db, int64_t run_id)
{
	const char *stats = tracecmd_get_cpustats(td->top);

	for (int cpu = 0; cpu < td->ncpus; cpu++) {
		int64_t overrun = -1, dropped = -1, read_ev = -1;
		char key[32];
		const char *blk, *next;

		snprintf(key, sizeof(key), "CPU: %d\n", cpu);
		blk = stats ? strstr(stats, key) : NULL;
		if (blk) {
			next = strstr(blk + 1, "CPU: ");
			overrun = cpustat_field(blk, next, "\noverrun: ");
			dropped = cpustat_field(blk, next, "\ndropped events: ");
			read_ev = cpustat_field(blk, next, "\nread events: ");
		}
		if (ra_db_add_lost(db, run_id, cpu, overrun, dropped, (int64_t)td->missed[cpu],
				   read_ev) < 0)
			return -1;
	}
	return 0;
}

const char *ra_tracedat_comm(struct ra_tracedat *td, int pid)
{
	struct tep_handle *tep = tracecmd_get_tep(td->top);
	const char *comm;

	if (!tep_is_pid_registered(tep, pid))
		return NULL;
	comm = tep_data_comm_from_pid(tep, pid);
	return comm && comm[0] != '<' ? comm : NULL;
}

static bool td_has(void *ctx, int type)
{
	return ra_tracedat_has(ctx, type);
}

static const char *td_name(int pid, void *arg)
{
	return ra_tracedat_comm(arg, pid);
}

int ra_tracedat_import(const char *const *paths, int npaths, const struct ra_import_sink *sink)
{
	char kernel[128], host[128], machine[128], clock[32];
	struct ra_run_info info = { .origin = "trace.dat" };
	struct ra_tracedat *td;
	int64_t run_id;
	int ret = -1;

	if (npaths != 1) {
		ra_set_error(RA_ERR_USAGE, "a trace.dat is one file");
		return -1;
	}
	td = ra_tracedat_open(paths[0]);
	if (!td)
		return -1;
	ra_tracedat_uname(td, kernel, host, machine, sizeof(kernel));
	ra_tracedat_clock(td, clock, sizeof(clock));
	info.kernel = kernel[0] ? kernel : NULL;
	info.hostname = host[0] ? host : NULL;
	info.machine = machine[0] ? machine : NULL;
	info.trace_clock = clock[0] ? clock : NULL;
	info.page_size = ra_tracedat_page_size(td);
	info.cpus = ra_tracedat_ncpus(td);
	run_id = sink->begin(sink->arg, &info);
	if (run_id < 0)
		goto out;
	sink->namer(sink->arg, td_name, td);
	if (ra_tracedat_replay(td, sink->event, sink->arg) < 0)
		goto out;
	if (sink->stored(sink->arg) == 0) {
		ra_set_error(RA_ERR_DATA,
			     "'%s' holds none of the events ratrace uses (readahead:*, filemap:*,"
			     " block:*)", paths[0]);
		goto out;
	}
	ra_tracedat_skipped(td, sink->skipped, sink->arg);
	if (ra_tracedat_store_lost(td, sink->db, run_id) < 0)
		goto out;
	ret = sink->end(sink->arg, run_id, td_has, td);
out:
	ra_tracedat_close(td);
	return ret;
}
