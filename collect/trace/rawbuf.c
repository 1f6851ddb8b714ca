// SPDX-License-Identifier: LGPL-2.1
/*
 * Replay per-CPU files of raw ring-buffer sub-buffers (as trace_pipe_raw
 * hands them out) merged by timestamp.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
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
	off_t released;		/* the file's bytes before this given back (holes) */
	void *data;		/* current event, NULL when exhausted */
	unsigned long long ts;
};

/* A live stream's file, in segments (struct ra_rawcpu): each a MiB */
#define RA_RAW_SEG ((uint64_t)1 << 20)
#define NO_SEG UINT64_MAX

static int grow64(uint64_t **a, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 64;
	uint64_t *p;

	while (n < need)
		n *= 2;
	if (n == *cap)
		return 0;
	p = realloc(*a, n * sizeof(*p));
	if (!p) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	*a = p;
	*cap = n;
	return 0;
}

/* A segment for the stream: one read before (warm first), else one more at the file's end. */
static uint64_t seg_take(struct ra_rawcpu *rc)
{
	uint64_t off;

	if (rc->nwarm)
		return rc->warm[--rc->nwarm];
	if (rc->ncold)
		return rc->cold[--rc->ncold];
	off = rc->file_end;
	rc->file_end += RA_RAW_SEG;
	return off;
}

/* A segment the merge has read: kept warm, or its bytes given back */
static void seg_give(struct ra_rawcpu *rc, uint64_t off, bool *no_holes)
{
	if (off == NO_SEG)
		return;
	if (rc->nwarm < (int)(sizeof(rc->warm) / sizeof(rc->warm[0]))) {
		rc->warm[rc->nwarm++] = off;
		return;
	}
	if (!*no_holes && fallocate(rc->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
				    (off_t)RA_RAW_SEG) != 0)
		*no_holes = true;	/* kept, as before */
	if (rc->ncold < rc->capcold || grow64(&rc->cold, &rc->capcold, rc->ncold + 1) == 0)
		rc->cold[rc->ncold++] = off;	/* else never used again: a hole */
}

/*
 * Where stream byte @at is in the file: its segment's offset, the segment
 * made when @make; NO_SEG when not in the file (or out of memory). Not
 * live, the file is the stream.
 */
static uint64_t file_at(struct ra_rawcpu *rc, uint64_t at, bool make)
{
	uint64_t k = at / RA_RAW_SEG, *seg;

	if (!rc->seg)
		return at;
	if (k < rc->seg_first || (!make && k - rc->seg_first >= rc->nseg))
		return NO_SEG;
	while (k - rc->seg_first >= rc->nseg) {
		if (rc->nseg == rc->capseg && grow64(&rc->seg, &rc->capseg, rc->nseg + 1) < 0)
			return NO_SEG;
		rc->seg[rc->nseg] = NO_SEG;	/* bytes that never go to the file */
		rc->nseg++;
	}
	seg = &rc->seg[k - rc->seg_first];
	if (*seg == NO_SEG && make)
		*seg = seg_take(rc);
	return *seg == NO_SEG ? NO_SEG : *seg + at % RA_RAW_SEG;
}

static int write_at(struct ra_rawcpu *rc, const void *buf, size_t len, uint64_t at)
{
	const char *p = buf;

	while (len) {
		size_t piece = rc->seg && len > RA_RAW_SEG - at % RA_RAW_SEG ?
			       (size_t)(RA_RAW_SEG - at % RA_RAW_SEG) : len;
		uint64_t where;
		ssize_t n;

		if (rc->seg && at / RA_RAW_SEG < rc->seg_first) {
			n = (ssize_t)piece;	/* read and given back: never read again */
			goto next;
		}
		where = file_at(rc, at, true);
		if (where == NO_SEG) {
			ra_set_error(RA_ERR_IO, "cannot save the cpu%d ring buffer: out of memory",
				     rc->cpu);
			return -1;
		}
		n = pwrite(rc->fd, p, piece, (off_t)where);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ra_set_error(RA_ERR_IO, "cannot save the cpu%d ring buffer: %s", rc->cpu,
				     n < 0 ? strerror(errno) : "short write");
			return -1;
		}
next:
		p += n;
		at += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int ra_rawcpu_keep(struct ra_rawcpu *rc, size_t cap)
{
	uint64_t have = (rc->end + RA_RAW_SEG - 1) / RA_RAW_SEG;

	rc->tail = malloc(cap);
	if (!rc->tail || grow64(&rc->seg, &rc->capseg, have + 1) < 0) {
		free(rc->tail);
		rc->tail = NULL;
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	rc->tail_cap = cap;
	rc->tail_len = 0;
	rc->tail_at = rc->read_at = rc->end;
	/* what the file holds already stays where it is */
	for (rc->nseg = 0; rc->nseg < have; rc->nseg++)
		rc->seg[rc->nseg] = rc->nseg * RA_RAW_SEG;
	rc->seg_first = 0;
	rc->file_end = have * RA_RAW_SEG;
	rc->nwarm = 0;
	rc->ncold = 0;
	return 0;
}

void ra_rawcpu_free(struct ra_rawcpu *rc)
{
	free(rc->tail);
	rc->tail = NULL;
	free(rc->seg);
	rc->seg = NULL;
	free(rc->cold);
	rc->cold = NULL;
	rc->nseg = rc->capseg = rc->ncold = rc->capcold = 0;
}

/*
 * The bytes in memory the merge has read are dropped when they are half of
 * it or more (moving the rest down costs no more than they took to come);
 * the rest goes to the file if @all.
 */
static int make_room(struct ra_rawcpu *rc, bool all)
{
	if (rc->read_at > rc->tail_at &&
	    (all || rc->read_at - rc->tail_at >= rc->tail_cap / 2)) {
		size_t k = rc->read_at - rc->tail_at < rc->tail_len ?
			   (size_t)(rc->read_at - rc->tail_at) : rc->tail_len;

		memmove(rc->tail, rc->tail + k, rc->tail_len - k);
		rc->tail_len -= k;
		rc->tail_at += k;
	}
	if (!all || !rc->tail_len)
		return 0;
	if (write_at(rc, rc->tail, rc->tail_len, rc->tail_at) < 0)
		return -1;
	rc->tail_at += rc->tail_len;
	rc->tail_len = 0;
	return 0;
}

static void lock(const struct ra_rawcpu *rc)
{
	if (rc->lock)
		pthread_mutex_lock(rc->lock);
}

static void unlock(const struct ra_rawcpu *rc)
{
	if (rc->lock)
		pthread_mutex_unlock(rc->lock);
}

static int append(struct ra_rawcpu *rc, const void *buf, size_t len)
{
	if (rc->tail && rc->tail_len + len > rc->tail_cap &&
	    make_room(rc, false) == 0 && rc->tail_len + len > rc->tail_cap &&
	    make_room(rc, true) < 0)
		return -1;
	if (!rc->tail || len > rc->tail_cap) {
		if (write_at(rc, buf, len, rc->end) < 0)
			return -1;
		if (rc->tail)
			rc->tail_at = rc->end + len;
	} else {
		memcpy(rc->tail + rc->tail_len, buf, len);
		rc->tail_len += len;
	}
	rc->end += len;
	return 0;
}

int ra_rawcpu_append(struct ra_rawcpu *rc, const void *buf, size_t len)
{
	int ret;

	lock(rc);
	ret = append(rc, buf, len);
	unlock(rc);
	return ret;
}

int ra_rawcpu_release(struct ra_rawcpu *rc)
{
	int ret;

	lock(rc);
	ret = rc->tail ? make_room(rc, true) : 0;
	free(rc->tail);
	rc->tail = NULL;
	rc->tail_cap = rc->tail_len = 0;
	unlock(rc);
	rc->lock = NULL;
	return ret;
}

static uint64_t stream_end(const struct ra_rawcpu *rc)
{
	uint64_t end;

	lock(rc);
	end = rc->end;
	unlock(rc);
	return end;
}

/*
 * Bytes [@off, @off + @len) of the stream, from memory or the file; the
 * bytes read. The bytes before @off are read: the memory may drop them.
 */
static ssize_t read_at(struct ra_rawcpu *rc, char *buf, size_t len, uint64_t off)
{
	ssize_t n;

	lock(rc);
	rc->read_at = off;
	if (rc->tail_len && off >= rc->tail_at) {
		uint64_t in = rc->tail_at + rc->tail_len > off ? rc->tail_at + rc->tail_len - off : 0;

		if (len > in)
			len = (size_t)in;
		memcpy(buf, rc->tail + (off - rc->tail_at), len);
		unlock(rc);
		return (ssize_t)len;
	}
	if (rc->tail_len && off + len > rc->tail_at)	/* the file's part only, this time */
		len = (size_t)(rc->tail_at - off);
	if (rc->seg) {
		/*
		 * A live stream's file: what went to it, one segment at a time
		 * (a segment used again holds older bytes past them)
		 */
		uint64_t where = off < rc->tail_at ? file_at(rc, off, false) : NO_SEG;

		if (where == NO_SEG) {
			unlock(rc);
			return 0;
		}
		if (off + len > rc->tail_at)
			len = (size_t)(rc->tail_at - off);
		if (len > RA_RAW_SEG - off % RA_RAW_SEG)
			len = (size_t)(RA_RAW_SEG - off % RA_RAW_SEG);
		off = where;
	}
	/* in the file: appends go after it, or write it first under the lock */
	n = pread(rc->fd, buf, len, (off_t)off);
	unlock(rc);
	return n;
}

/*
 * Read the next sub-buffer into the kbuffer; 1 loaded, 0 end of file, -1
 * error. @whole: only a whole one (the file is still being written: a short
 * read is the end for now, read again later).
 */
static int load_page(struct cpu_reader *r, bool whole)
{
	ssize_t n, got = 0;

	while (got < r->page_size) {
		n = read_at(r->rc, r->page + got, (size_t)(r->page_size - got),
			    (uint64_t)(r->off + got));
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
	if (got < 16 || (whole && got < r->page_size))	/* not even a sub-buffer header */
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
static int next_event(struct cpu_reader *r, int first, bool whole)
{
	int ret;

	r->data = first ? NULL : kbuffer_next_event(r->kbuf, &r->ts);
	while (!r->data) {
		ret = load_page(r, whole);
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

struct ra_rawmerge {
	struct tep_handle *tep;
	struct ra_decoder *dec;
	struct ra_rawcpu *cpus;
	int ncpus;
	struct cpu_reader *rd;
	bool no_holes;		/* the file system cannot punch them */
};

struct ra_rawmerge *ra_rawmerge_new(struct tep_handle *tep, struct ra_decoder *dec,
				    struct ra_rawcpu *cpus, int ncpus)
{
	struct ra_rawmerge *m = calloc(1, sizeof(*m));
	int page_size = tep_get_sub_buffer_size(tep);

	if (page_size <= 0)
		page_size = getpagesize();
	if (!m || !(m->rd = calloc((size_t)ncpus, sizeof(*m->rd))))
		goto nomem;
	m->tep = tep;
	m->dec = dec;
	m->cpus = cpus;
	m->ncpus = ncpus;
	for (int i = 0; i < ncpus; i++) {
		/* a replay counts from nothing: the files can be replayed again */
		cpus[i].missed = cpus[i].events = 0;
		cpus[i].missed_unknown = 0;
		cpus[i].done = cpus[i].size = 0;
		m->rd[i].rc = &cpus[i];
		m->rd[i].page_size = page_size;
		m->rd[i].page = malloc((size_t)page_size);
		m->rd[i].kbuf = tep_kbuffer(tep);
		if (!m->rd[i].page || !m->rd[i].kbuf)
			goto nomem;
	}
	return m;
nomem:
	ra_set_error(RA_ERR_IO, "out of memory");
	ra_rawmerge_free(m);
	return NULL;
}

int ra_rawmerge_step(struct ra_rawmerge *m, uint64_t below, uint64_t max_events, bool final,
		     ra_event_cb cb, void *arg)
{
	for (int i = 0; i < m->ncpus; i++) {
		struct cpu_reader *r = &m->rd[i];

		r->rc->size = stream_end(r->rc);
		/* a CPU whose data had ended: what was written since */
		if (!r->data && next_event(r, 1, !final) < 0)
			return -1;
	}
	for (uint64_t n = 0;; n++) {
		struct cpu_reader *min = NULL;

		for (int i = 0; i < m->ncpus; i++)
			if (m->rd[i].data && (!min || m->rd[i].ts < min->ts))
				min = &m->rd[i];
		if (!min || min->ts >= below)
			return 0;
		if (n == max_events)
			return 1;
		if (emit(min, m->tep, m->dec, cb, arg) < 0 || next_event(min, 0, !final) < 0)
			return -1;
	}
}

#define RELEASE_STEP (1 << 20)

/* A live stream's segments the merge has read, given back: -1 the stream is not one */
static int release_segs(struct ra_rawmerge *m, struct cpu_reader *r)
{
	struct ra_rawcpu *rc = r->rc;
	uint64_t upto = (uint64_t)r->off / RA_RAW_SEG;
	size_t k = 0;

	lock(rc);
	if (!rc->seg) {
		unlock(rc);
		return -1;
	}
	while (k < rc->nseg && rc->seg_first + k < upto)
		seg_give(rc, rc->seg[k++], &m->no_holes);
	memmove(rc->seg, rc->seg + k, (rc->nseg - k) * sizeof(*rc->seg));
	rc->nseg -= k;
	rc->seg_first += k;
	if (!rc->nseg && rc->seg_first < upto)
		rc->seg_first = upto;
	unlock(rc);
	return 0;
}

void ra_rawmerge_release(struct ra_rawmerge *m)
{
	for (int i = 0; i < m->ncpus; i++) {
		struct cpu_reader *r = &m->rd[i];
		off_t upto = r->off & ~(off_t)(RELEASE_STEP - 1);

		if (release_segs(m, r) == 0 || m->no_holes)
			continue;
		if (upto <= r->released)
			continue;
		if (fallocate(r->rc->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, r->released,
			      upto - r->released) == 0)
			r->released = upto;
		else
			m->no_holes = true;	/* kept until the end, as before */
	}
}

void ra_rawmerge_free(struct ra_rawmerge *m)
{
	if (!m)
		return;
	for (int i = 0; m->rd && i < m->ncpus; i++) {
		free(m->rd[i].page);
		if (m->rd[i].kbuf)
			kbuffer_free(m->rd[i].kbuf);
	}
	free(m->rd);
	free(m);
}

int ra_rawbuf_replay(struct tep_handle *tep, struct ra_decoder *dec, struct ra_rawcpu *cpus,
		     int ncpus, ra_event_cb cb, void *arg)
{
	struct ra_rawmerge *m = ra_rawmerge_new(tep, dec, cpus, ncpus);
	int ret = m ? ra_rawmerge_step(m, UINT64_MAX, UINT64_MAX, true, cb, arg) : -1;

	ra_rawmerge_free(m);
	return ret < 0 ? -1 : 0;
}
