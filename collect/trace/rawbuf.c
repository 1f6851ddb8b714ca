// SPDX-License-Identifier: LGPL-2.1
/*
 * Replay per-CPU files of raw ring-buffer sub-buffers (as trace_pipe_raw
 * hands them out) merged by timestamp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "decode.h"
#include "trace.h"

struct cpu_reader {
	struct ra_rawcpu *rc;
	struct kbuffer *kbuf;
	char *page;
	int page_size;
	off_t off;
	void *data;		/* current event, NULL when exhausted */
	unsigned long long ts;
};

/* Read the next sub-buffer into the kbuffer; 1 loaded, 0 end of file, -1 error. */
static int load_page(struct cpu_reader *r)
{
	ssize_t n, got = 0;

	while (got < r->page_size) {
		n = pread(r->rc->fd, r->page + got, (size_t)(r->page_size - got), r->off + got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ra_set_error(RA_ERR_IO, "cannot read the cpu%d buffer file: %s",
				     r->rc->cpu, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		got += n;
	}
	if (got < 16)	/* not even a sub-buffer header */
		return 0;
	memset(r->page + got, 0, (size_t)(r->page_size - got));
	r->off += got;
	r->rc->done += (uint64_t)got;
	if (kbuffer_load_subbuffer(r->kbuf, r->page) < 0) {
		ra_set_error(RA_ERR_DATA, "corrupt sub-buffer in the cpu%d buffer file",
			     r->rc->cpu);
		return -1;
	}
	return 1;
}

static int account_missed(struct cpu_reader *r)
{
	int missed = kbuffer_missed_events(r->kbuf);

	if (missed > 0)
		r->rc->missed += (uint64_t)missed;
	else if (missed < 0)
		r->rc->missed_unknown++;
	return 0;
}

/* Advance to the next event of this CPU, crossing sub-buffers. */
static int next_event(struct cpu_reader *r, int first)
{
	int ret;

	r->data = first ? NULL : kbuffer_next_event(r->kbuf, &r->ts);
	while (!r->data) {
		ret = load_page(r);
		if (ret <= 0)
			return ret;
		account_missed(r);
		r->data = kbuffer_read_event(r->kbuf, &r->ts);
	}
	return 1;
}

static int emit(struct cpu_reader *r, struct tep_handle *tep, struct ra_decoder *dec,
		ra_event_cb cb, void *arg)
{
	struct tep_record rec;
	struct ra_event ev;

	memset(&rec, 0, sizeof(rec));
	rec.ts = r->ts;
	rec.cpu = r->rc->cpu;
	rec.data = r->data;
	rec.size = kbuffer_event_size(r->kbuf);
	r->rc->events++;
	(void)tep;
	if (ra_decode(dec, &rec, &ev) == 1 && cb(&ev, arg) < 0)
		return -1;
	return 0;
}

int ra_rawbuf_replay(struct tep_handle *tep, struct ra_decoder *dec, struct ra_rawcpu *cpus,
		     int ncpus, ra_event_cb cb, void *arg)
{
	struct cpu_reader *rd = calloc((size_t)ncpus, sizeof(*rd));
	int page_size = tep_get_sub_buffer_size(tep);
	struct stat sb;
	int ret = -1;

	if (page_size <= 0)
		page_size = getpagesize();
	if (!rd)
		goto nomem;
	for (int i = 0; i < ncpus; i++) {
		/* a replay counts from nothing: the files can be replayed again */
		cpus[i].missed = cpus[i].events = 0;
		cpus[i].missed_unknown = 0;
		cpus[i].done = 0;
		cpus[i].size = fstat(cpus[i].fd, &sb) == 0 ? (uint64_t)sb.st_size : 0;
		rd[i].rc = &cpus[i];
		rd[i].page_size = page_size;
		rd[i].page = malloc((size_t)page_size);
		rd[i].kbuf = tep_kbuffer(tep);
		if (!rd[i].page || !rd[i].kbuf)
			goto nomem;
		if (next_event(&rd[i], 1) < 0)
			goto out;
	}
	for (;;) {
		struct cpu_reader *min = NULL;

		for (int i = 0; i < ncpus; i++)
			if (rd[i].data && (!min || rd[i].ts < min->ts))
				min = &rd[i];
		if (!min)
			break;
		if (emit(min, tep, dec, cb, arg) < 0 || next_event(min, 0) < 0)
			goto out;
	}
	ret = 0;
	goto out;
nomem:
	ra_set_error(RA_ERR_IO, "out of memory");
out:
	for (int i = 0; rd && i < ncpus; i++) {
		free(rd[i].page);
		kbuffer_free(rd[i].kbuf);
	}
	free(rd);
	return ret;
}
