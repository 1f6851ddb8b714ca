// SPDX-License-Identifier: LGPL-2.1
/*
 * Records of fixed size read back in the order of a comparison, in bounded
 * memory: while they fit in the buffer they are sorted there; past it, each
 * full buffer is sorted and appended to an unnamed temporary file as a run,
 * and the runs are merged as the records are read back (a heap of the runs'
 * next records). The memory is the buffer's whatever the number of records:
 * the merge reads each run through its share of it.
 *
 * The file is made with O_TMPFILE in $TMPDIR (else /tmp), so nothing is
 * left behind when the process ends, however it ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze_local.h"

#define MIN_RUN_BUF 4096	/* bytes of a run's read buffer at least */

struct run {
	off_t off;		/* of its next record not yet in buf */
	size_t left;		/* records not yet in buf */
	char *buf;		/* buf[at..n) of its records read */
	size_t at, n;
};

struct ra_xsort {
	size_t size;		/* of a record */
	int (*cmp)(const void *, const void *);
	size_t mem;		/* bytes of the buffer */
	char *buf;		/* buf[0..n) records put, cap of them */
	size_t n, cap, at;	/* at: the next to read when not spilled */
	int fd;
	char dir[256];
	off_t end;		/* the file's length */
	struct run *runs;
	int nruns, caprun;
	int *heap;		/* runs with records left, the smallest next first */
	int nheap;
	bool reading, failed;
};

struct ra_xsort *ra_xsort_new(size_t size, int (*cmp)(const void *, const void *), size_t mem)
{
	struct ra_xsort *x = calloc(1, sizeof(*x));
	const char *dir = getenv("TMPDIR");

	if (!x) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	x->size = size;
	x->cmp = cmp;
	x->cap = mem / size > 2 ? mem / size : 2;
	x->mem = x->cap * size;
	x->fd = -1;
	snprintf(x->dir, sizeof(x->dir), "%s", dir && *dir ? dir : "/tmp");
	return x;
}

static int fail_io(struct ra_xsort *x, const char *what, int err)
{
	x->failed = true;
	ra_set_error(RA_ERR_IO, "cannot %s a temporary file in '%s': %s", what, x->dir,
		     strerror(err));
	return -1;
}

/* The file: unnamed where the file system can (O_TMPFILE), else named and unlinked at once. */
static int open_file(struct ra_xsort *x)
{
	char path[300];

	x->fd = open(x->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (x->fd >= 0)
		return 0;
	snprintf(path, sizeof(path), "%s/ratrace-sort.XXXXXX", x->dir);
	x->fd = mkostemp(path, O_CLOEXEC);
	if (x->fd < 0)
		return fail_io(x, "make", errno);
	unlink(path);
	return 0;
}

/* The buffer sorted, as a run at the end of the file. */
static int spill(struct ra_xsort *x)
{
	size_t len = x->n * x->size, done = 0;

	if (x->fd < 0 && open_file(x) < 0)
		return -1;
	if (x->nruns == x->caprun) {
		int cap = x->caprun ? x->caprun * 2 : 16;
		struct run *p = realloc(x->runs, (size_t)cap * sizeof(*p));

		if (!p) {
			x->failed = true;
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		x->runs = p;
		x->caprun = cap;
	}
	qsort(x->buf, x->n, x->size, x->cmp);
	while (done < len) {
		ssize_t w = pwrite(x->fd, x->buf + done, len - done, x->end + (off_t)done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fail_io(x, "write", w < 0 ? errno : ENOSPC);
		done += (size_t)w;
	}
	x->runs[x->nruns++] = (struct run){ .off = x->end, .left = x->n };
	x->end += (off_t)len;
	x->n = 0;
	return 0;
}

int ra_xsort_put(struct ra_xsort *x, const void *rec)
{
	if (x->failed || x->reading) {
		if (!x->failed)
			ra_set_error(RA_ERR_IO, "a record put after the reading began");
		return -1;
	}
	if (!x->buf && !(x->buf = malloc(x->mem))) {
		x->failed = true;
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (x->n == x->cap && spill(x) < 0)
		return -1;
	memcpy(x->buf + x->n * x->size, rec, x->size);
	x->n++;
	return 0;
}

bool ra_xsort_spilled(const struct ra_xsort *x)
{
	return x->nruns > 0;
}

/* Run @r's next records into its buffer: 0, or -1. */
static int refill(struct ra_xsort *x, struct run *r, size_t room)
{
	size_t want = r->left < room ? r->left : room, len = want * x->size, done = 0;

	while (done < len) {
		ssize_t got = pread(x->fd, r->buf + done, len - done, r->off + (off_t)done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return fail_io(x, "read", got < 0 ? errno : EIO);
		done += (size_t)got;
	}
	r->off += (off_t)len;
	r->left -= want;
	r->at = 0;
	r->n = want;
	return 0;
}

static const void *head_of(const struct ra_xsort *x, int i)
{
	const struct run *r = &x->runs[i];

	return r->buf + r->at * x->size;
}

static void sift_down(struct ra_xsort *x, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i, t;

		if (l < x->nheap && x->cmp(head_of(x, x->heap[l]), head_of(x, x->heap[m])) < 0)
			m = l;
		if (l + 1 < x->nheap &&
		    x->cmp(head_of(x, x->heap[l + 1]), head_of(x, x->heap[m])) < 0)
			m = l + 1;
		if (m == i)
			return;
		t = x->heap[i];
		x->heap[i] = x->heap[m];
		x->heap[m] = t;
		i = m;
	}
}

int ra_xsort_end(struct ra_xsort *x)
{
	size_t room;
	char *mem;

	if (x->failed)
		return -1;
	if (x->reading)
		return 0;
	x->reading = true;
	if (!x->nruns) {
		if (x->n)
			qsort(x->buf, x->n, x->size, x->cmp);
		return 0;
	}
	if (x->n && spill(x) < 0)
		return -1;
	/* the buffer's memory shared by the runs' read buffers */
	free(x->buf);
	x->buf = NULL;
	room = x->mem / (size_t)x->nruns / x->size;
	if (room * x->size < MIN_RUN_BUF)
		room = (MIN_RUN_BUF + x->size - 1) / x->size;
	mem = malloc(room * x->size * (size_t)x->nruns);
	x->heap = malloc((size_t)x->nruns * sizeof(*x->heap));
	if (!mem || !x->heap) {
		free(mem);
		x->failed = true;
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	x->buf = mem;
	for (int i = 0; i < x->nruns; i++) {
		x->runs[i].buf = mem + (size_t)i * room * x->size;
		if (refill(x, &x->runs[i], room) < 0)
			return -1;
		x->heap[x->nheap++] = i;
	}
	x->cap = room;		/* now the records of a run's buffer */
	for (int i = x->nheap / 2 - 1; i >= 0; i--)
		sift_down(x, i);
	return 0;
}

const void *ra_xsort_peek(struct ra_xsort *x)
{
	if (x->failed || (!x->reading && ra_xsort_end(x) < 0))
		return NULL;
	if (!x->nruns)
		return x->at < x->n ? x->buf + x->at * x->size : NULL;
	return x->nheap ? head_of(x, x->heap[0]) : NULL;
}

int ra_xsort_next(struct ra_xsort *x, void *rec)
{
	const void *p = ra_xsort_peek(x);
	struct run *r;

	if (!p)
		return x->failed ? -1 : 0;
	memcpy(rec, p, x->size);
	if (!x->nruns) {
		x->at++;
		return 1;
	}
	r = &x->runs[x->heap[0]];
	if (++r->at == r->n) {
		if (r->left) {
			if (refill(x, r, x->cap) < 0)
				return -1;
		} else {
			x->heap[0] = x->heap[--x->nheap];
		}
	}
	sift_down(x, 0);
	return 1;
}

bool ra_xsort_failed(const struct ra_xsort *x)
{
	return x->failed;
}

void ra_xsort_free(struct ra_xsort *x)
{
	if (!x)
		return;
	if (x->fd >= 0)
		close(x->fd);
	free(x->buf);
	free(x->runs);
	free(x->heap);
	free(x);
}
