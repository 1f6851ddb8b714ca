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
#include <traceevent/kbuffer.h>

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
#define TD_MAX_CHUNK (256u << 20)	/* a decompressed chunk: the check's bound */
#define TD_MAX_REGIONS 4096		/* CPUs x buffers the reader merges itself */

struct ra_tracedat {
	char *path;
	struct ra_td_layout lay;	/* where the records are (the check's walk) */
	struct tracecmd_input *top;
	struct tracecmd_input *h[MAX_HANDLES];	/* h[0] == top */
	char *hname[MAX_HANDLES];		/* their instance names ("" for the top) */
	struct ra_decoder *dec[MAX_HANDLES];
	int nh;
	int ncpus;
	uint64_t *missed;	/* per CPU */
	uint64_t *missed_unknown;
	uint64_t first_ts, last_ts, records;
	ra_event_cb cb;
	void *arg;
	int cb_failed;
	void (*position)(void *arg, uint64_t done, uint64_t total);	/* or NULL */
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

		const char *name = tracecmd_buffer_instance_name(td->top, i);

		if (!h)
			continue;
		td->hname[td->nh] = strdup(name ? name : "");
		td->h[td->nh++] = h;
	}
	td->hname[0] = strdup("");
	for (int i = 0; i < td->nh; i++) {
		td->dec[i] = ra_decoder_alloc(tracecmd_get_tep(td->h[i]), ra_dyn_lookup);
		if (!td->dec[i] || !td->hname[i])
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
	ret = ra_tracedat_layout(path, &td->lay);
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
		free(td->hname[i]);
	}
	tracecmd_close(td->top);
	ra_td_layout_free(&td->lay);
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

/* One record of buffer @hi (its CPU @cpu_index there): counted, decoded, passed on. */
static int on_record_of(struct ra_tracedat *td, int hi, int cpu_index, struct tep_record *rec)
{
	struct ra_event ev;

	if (!td->records++)
		td->first_ts = rec->ts;
	td->last_ts = rec->ts;
	/* the lost events of the top buffer's CPUs (as libtracecmd numbers them) */
	if (cpu_index >= 0 && cpu_index < td->ncpus) {
		if (rec->missed_events > 0)
			td->missed[cpu_index] += (uint64_t)rec->missed_events;
		else if (rec->missed_events < 0)
			td->missed_unknown[cpu_index]++;
	}
	if (ra_decode(td->dec[hi], rec, &ev) != 1)
		return 0;
	if (td->cb(&ev, td->arg) < 0) {
		td->cb_failed = 1;
		return -1;	/* stops the iteration */
	}
	return 0;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct ra_tracedat *td = data;

	return on_record_of(td, handle_index(td, h), cpu, rec);
}

/*
 * The records of one CPU of one buffer, a sub-buffer at a time: read from the
 * file, or from the chunk of compressed data that holds it, decompressed
 * alone. What it holds is bounded by a chunk, whatever the trace's size.
 */
struct td_stream {
	const struct ra_td_region *reg;
	int hi;			/* its buffer: td->h[hi] */
	int cpu_index;		/* its CPU for the lost events: the top buffer's, else -1 */
	struct kbuffer *kb;
	unsigned char *buf;	/* a sub-buffer, or a decompressed chunk of them */
	uint64_t buf_cap, buf_len, buf_next;
	uint64_t pos;		/* in the file: the next sub-buffer, or the next chunk */
	uint64_t chunks;	/* compressed: the chunks still to read */
	unsigned char *zbuf;
	uint64_t zcap;
	void *data;		/* the current record, NULL when the data ended */
	unsigned long long ts;
};

static int read_at(struct ra_tracedat *td, int fd, void *dst, uint64_t n, uint64_t off)
{
	uint64_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)dst + got, (size_t)(n - got), (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ra_set_error(RA_ERR_DATA, "'%s': cannot read the event data at offset %llu%s%s",
				     td->path, (unsigned long long)(off + got), r < 0 ? ": " : "",
				     r < 0 ? strerror(errno) : " (the file is shorter)");
			return -1;
		}
		got += (uint64_t)r;
	}
	return 0;
}

static uint32_t td_u32(const struct ra_tracedat *td, const unsigned char *b)
{
	return td->lay.big ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3] :
			     (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

/* The next chunk of compressed data into the stream's buffer; 1, 0 none left, -1. */
static int next_chunk(struct ra_tracedat *td, int fd, struct td_stream *s)
{
	unsigned char h[8];
	uint64_t zsize, rsize;
	const char *why;
	int64_t n;

	if (!s->chunks)
		return 0;
	if (s->reg->end - s->pos < 8)
		goto changed;
	if (read_at(td, fd, h, 8, s->pos) < 0)
		return -1;
	zsize = td_u32(td, h);
	rsize = td_u32(td, h + 4);
	/* as the check found them, unless the file changed since */
	if (zsize > s->reg->end - s->pos - 8 || zsize > TD_MAX_CHUNK || rsize > TD_MAX_CHUNK ||
	    rsize % s->reg->page_size) {
changed:
		ra_set_error(RA_ERR_DATA, "'%s': the chunk of event data at offset %llu is not"
			     " the one checked (did the file change?)", td->path,
			     (unsigned long long)s->pos);
		return -1;
	}
	if (zsize > s->zcap) {
		unsigned char *z = realloc(s->zbuf, (size_t)zsize);

		if (!z)
			goto nomem;
		s->zbuf = z;
		s->zcap = zsize;
	}
	if (rsize > s->buf_cap || !s->buf) {
		unsigned char *b = realloc(s->buf, rsize ? (size_t)rsize : 1);

		if (!b)
			goto nomem;
		s->buf = b;
		s->buf_cap = rsize;
	}
	if (read_at(td, fd, s->zbuf, zsize, s->pos + 8) < 0)
		return -1;
	/* the check's own words: most chunks are checked here, not there */
	n = ra_td_inflate(td->lay.algo, s->zbuf, zsize, s->buf, rsize, &why);
	if (n != (int64_t)rsize) {
		char what[320];

		ra_td_region_what(s->reg, what, sizeof(what));
		if (n < 0)
			ra_set_error(RA_ERR_DATA, "'%s': offset %llu: %s does not decompress: %s",
				     td->path, (unsigned long long)s->pos + 8, what, why);
		else
			ra_set_error(RA_ERR_DATA, "'%s': offset %llu: %s: chunk decompresses to %lld"
				     " bytes, not the %llu it declares", td->path,
				     (unsigned long long)s->pos, what, (long long)n,
				     (unsigned long long)rsize);
		return -1;
	}
	s->pos += 8 + zsize;
	s->chunks--;
	s->buf_len = rsize;
	s->buf_next = 0;
	return 1;
nomem:
	ra_set_error(RA_ERR_IO, "out of memory");
	return -1;
}

/* The next sub-buffer into the kbuffer; 1 loaded, 0 the data ended, -1 error. */
static int next_page(struct ra_tracedat *td, int fd, struct td_stream *s)
{
	uint32_t ps = s->reg->page_size;
	int ret;

	if (s->reg->compressed) {
		while (s->buf_next + ps > s->buf_len)
			if ((ret = next_chunk(td, fd, s)) <= 0)
				return ret;
	} else {
		if (s->pos + ps > s->reg->end)
			return 0;
		if (read_at(td, fd, s->buf, ps, s->pos) < 0)
			return -1;
		s->pos += ps;
		s->buf_len = ps;
		s->buf_next = 0;
	}
	/* checked again as the check did: kbuffer trusts what a sub-buffer says */
	if (ra_td_page_check(&td->lay, td->path, s->buf + s->buf_next, ps,
			     s->reg->compressed ? s->pos : s->pos - ps) < 0)
		return -1;
	if (kbuffer_load_subbuffer(s->kb, s->buf + s->buf_next) < 0) {
		ra_set_error(RA_ERR_DATA, "'%s': a corrupt sub-buffer of cpu %u", td->path,
			     s->reg->cpu);
		return -1;
	}
	s->buf_next += ps;
	return 1;
}

/* The stream's next record (@first: its first); 1, 0 none, -1 error. */
static int next_record(struct ra_tracedat *td, int fd, struct td_stream *s, bool first)
{
	int ret;

	s->data = first ? NULL : kbuffer_next_event(s->kb, &s->ts);
	while (!s->data) {
		if ((ret = next_page(td, fd, s)) <= 0)
			return ret;
		s->data = kbuffer_read_event(s->kb, &s->ts);
	}
	return 1;
}

static int stream_open(struct ra_tracedat *td, int fd, struct td_stream *s)
{
	struct tep_handle *tep = tracecmd_get_tep(td->h[s->hi]);
	unsigned char h[4];

	s->kb = tep_kbuffer(tep);
	s->pos = s->reg->off;
	if (!s->kb) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (s->reg->compressed) {
		if (read_at(td, fd, h, 4, s->pos) < 0)
			return -1;
		s->chunks = td_u32(td, h);
		s->pos += 4;
	} else if (!(s->buf = malloc(s->reg->page_size))) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	return next_record(td, fd, s, true);
}

/* The region of buffer @hi with the lowest CPU above @prev's (of the same buffer), or -1. */
static int next_region(const struct ra_tracedat *td, int hi, const struct td_stream *prev)
{
	int64_t above = prev && prev->hi == hi ? (int64_t)prev->reg->cpu : -1;
	int best = -1;

	for (int r = 0; r < td->lay.n; r++) {
		const struct ra_td_region *g = &td->lay.r[r];

		if (strcmp(g->buffer, td->hname[hi]) != 0 || (int64_t)g->cpu <= above)
			continue;
		if (best < 0 || g->cpu < td->lay.r[best].cpu)
			best = r;
	}
	return best;
}

/*
 * Every record of every buffer in time order, as libtracecmd's iteration
 * gives them (the earliest first; of equal times, the first buffer's, then
 * the lower CPU's), read a sub-buffer at a time. Returns 0, 1 when none of
 * the buffers the check found is one libtracecmd opened, or -1.
 */
static int replay_pages(struct ra_tracedat *td)
{
	struct td_stream *st = calloc((size_t)td->lay.n + 1, sizeof(*st));
	int fd = open(td->path, O_RDONLY | O_CLOEXEC), n = 0, ret = -1;

	if (!st || fd < 0) {
		ra_set_error(fd < 0 ? RA_ERR_USAGE : RA_ERR_IO, "'%s': cannot open: %s", td->path,
			     fd < 0 ? strerror(errno) : "out of memory");
		goto out;
	}
	/*
	 * Each buffer's CPUs in the order of their ids, as libtracecmd numbers
	 * them; two regions of one buffer name and CPU (two instances of one
	 * name), and more CPU data than machines have, are left to libtracecmd.
	 */
	if (td->lay.n > TD_MAX_REGIONS) {
		ret = 1;
		goto out;
	}
	for (int a = 0; a < td->lay.n; a++)
		for (int b = a + 1; b < td->lay.n; b++)
			if (td->lay.r[a].cpu == td->lay.r[b].cpu &&
			    strcmp(td->lay.r[a].buffer, td->lay.r[b].buffer) == 0) {
				ret = 1;
				goto out;
			}
	for (int a = 0; a < td->nh; a++)
		for (int b = a + 1; b < td->nh; b++)
			if (strcmp(td->hname[a], td->hname[b]) == 0) {
				ret = 1;
				goto out;
			}
	for (int i = 0; i < td->nh; i++)
		for (int r; n < td->lay.n && (r = next_region(td, i, n ? &st[n - 1] : NULL)) >= 0;) {
			struct td_stream *s = &st[n];

			s->reg = &td->lay.r[r];
			s->hi = i;
			s->cpu_index = i == 0 ? (int)s->reg->cpu : -1;
			if (stream_open(td, fd, s) < 0)
				goto out;
			n++;
		}
	if (n == 0) {	/* no buffer the check found is one libtracecmd opened */
		ret = 1;
		goto out;
	}
	for (;;) {
		struct td_stream *min = NULL;
		struct tep_record rec;

		for (int i = 0; i < n; i++)
			if (st[i].data && (!min || st[i].ts < min->ts))
				min = &st[i];
		if (!min)
			break;
		memset(&rec, 0, sizeof(rec));
		rec.ts = min->ts;
		rec.cpu = (int)min->reg->cpu;
		rec.data = min->data;
		rec.size = kbuffer_event_size(min->kb);
		rec.missed_events = kbuffer_missed_events(min->kb);
		if (on_record_of(td, min->hi, min->cpu_index, &rec) < 0 ||
		    next_record(td, fd, min, false) < 0)
			goto out;
		if ((td->records & 0xffff) == 0 && td->position) {
			uint64_t done = 0, total = 0;

			for (int i = 0; i < n; i++) {
				done += st[i].pos - st[i].reg->off;
				total += st[i].reg->end - st[i].reg->off;
			}
			td->position(td->arg, done, total);
		}
	}
	ret = 0;
out:
	for (int i = 0; st && i <= n && i < td->lay.n; i++) {
		if (st[i].kb)
			kbuffer_free(st[i].kb);
		free(st[i].buf);
		free(st[i].zbuf);
	}
	free(st);
	if (fd >= 0)
		close(fd);
	return ret;
}

int ra_tracedat_replay(struct ra_tracedat *td, ra_event_cb cb, void *arg)
{
	int ret;

	td->cb = cb;
	td->arg = arg;
	td->records = 0;
	/* timestamps that libtracecmd moves are left to it */
	if (!td->lay.moved_ts && td->lay.n > 0 && td->lay.lsize &&
	    (ret = replay_pages(td)) <= 0)
		return ret;
	/* which reads every chunk: the check's, of those it left to the reader, first */
	if (ra_td_check_rest(td->path, &td->lay) < 0)
		return -1;
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
	td->position = sink->position;
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
