// SPDX-License-Identifier: LGPL-2.1
/*
 * Records of fixed size read back in the order of a comparison, in bounded
 * memory: while they fit in the buffer (grown as they come, up to its size)
 * they are sorted there; past it, each full buffer is sorted and appended to
 * an unnamed temporary file as a run, and the runs are merged as the records
 * are read back (a heap of the runs' next records). The memory is the
 * buffer's whatever the number of records: the merge reads each run through
 * its share of it, at least MIN_RUN_BUF bytes; where that would take more,
 * the first runs are merged into one longer run first (and their place in
 * the file given back), as often as it takes.
 *
 * The file is one of tmpfile.c's: nothing is left behind when the process
 * ends, however it ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze_local.h"

#define MIN_RUN_BUF 4096	/* bytes of a run's read buffer at least */

struct run {
	off_t start;		/* of its first record in the file */
	off_t off;		/* of its next record not yet in buf */
	size_t left;		/* records not yet in buf */
	char *buf;		/* buf[at..n) of its records read, room of them */
	size_t at, n, room;
};

struct ra_xsort {
	size_t size;		/* of a record */
	int (*cmp)(const void *, const void *);
	size_t mem;		/* bytes of the buffer at most */
	char *buf;		/* buf[0..n) records put, room for have, cap at most */
	size_t n, have, cap, at;	/* at: the next to read when not spilled */
	struct ra_tmpfile tmp;
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

	if (!x) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	x->size = size;
	x->cmp = cmp;
	x->cap = mem / size > 2 ? mem / size : 2;
	x->mem = x->cap * size;
	ra_tmpfile_init(&x->tmp);
	return x;
}

/* @len bytes between @buf and the file at @off, whole: 0, or -1. */
static int file_io(struct ra_xsort *x, bool out, char *buf, size_t len, off_t off)
{
	if (ra_tmpfile_io(&x->tmp, out, buf, len, off) < 0) {
		x->failed = true;
		return -1;
	}
	return 0;
}

/* @n records of @buf appended to the file. */
static int write_at_end(struct ra_xsort *x, char *buf, size_t n)
{
	if (file_io(x, true, buf, n * x->size, x->end) < 0)
		return -1;
	x->end += (off_t)(n * x->size);
	return 0;
}

/* Room for one more run. */
static int run_room(struct ra_xsort *x)
{
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
	return 0;
}

/* The buffer sorted, as a run at the end of the file. */
static int spill(struct ra_xsort *x)
{
	off_t start = x->end;

	if (ra_tmpfile_open(&x->tmp) < 0) {
		x->failed = true;
		return -1;
	}
	if (run_room(x) < 0)
		return -1;
	qsort(x->buf, x->n, x->size, x->cmp);
	if (write_at_end(x, x->buf, x->n) < 0)
		return -1;
	x->runs[x->nruns++] = (struct run){ .start = start, .off = start, .left = x->n };
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
	if (x->n == x->cap && spill(x) < 0)
		return -1;
	if (x->n == x->have) {	/* the buffer grows to its size as records come */
		size_t have = x->have ? x->have * 2 : 64;
		char *p;

		have = have < x->cap ? have : x->cap;
		if (!(p = realloc(x->buf, have * x->size))) {
			x->failed = true;
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		x->buf = p;
		x->have = have;
	}
	memcpy(x->buf + x->n * x->size, rec, x->size);
	x->n++;
	return 0;
}

bool ra_xsort_spilled(const struct ra_xsort *x)
{
	return x->nruns > 0;
}

/* Run @r's next records into its buffer: 0, or -1. */
static int refill(struct ra_xsort *x, struct run *r)
{
	size_t want = r->left < r->room ? r->left : r->room, len = want * x->size;

	if (file_io(x, false, r->buf, len, r->off) < 0)
		return -1;
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

/* Records a run reads at a time when @k runs share the buffer's memory. */
static size_t room_of(const struct ra_xsort *x, size_t k)
{
	size_t room = x->mem / k / x->size;

	return room * x->size < MIN_RUN_BUF ? (MIN_RUN_BUF + x->size - 1) / x->size : room;
}

/* The heap of runs [0, @k), each read through @room records of @mem. */
static int heap_begin(struct ra_xsort *x, int k, size_t room, char *mem)
{
	x->nheap = 0;
	for (int i = 0; i < k; i++) {
		struct run *r = &x->runs[i];

		r->buf = mem + (size_t)i * room * x->size;
		r->room = room;
		if (refill(x, r) < 0)
			return -1;
		x->heap[x->nheap++] = i;
	}
	for (int i = x->nheap / 2 - 1; i >= 0; i--)
		sift_down(x, i);
	return 0;
}

/* The smallest next record of the heap's runs into @rec: 1, 0 none left, -1 error. */
static int heap_pop(struct ra_xsort *x, void *rec)
{
	struct run *r;

	if (!x->nheap)
		return 0;
	r = &x->runs[x->heap[0]];
	memcpy(rec, r->buf + r->at * x->size, x->size);
	if (++r->at == r->n) {
		if (r->left) {
			if (refill(x, r) < 0)
				return -1;
		} else {
			x->heap[0] = x->heap[--x->nheap];
		}
	}
	sift_down(x, 0);
	return 1;
}

/* The first @k runs merged into one at the end of the file, their place given back. */
static int merge_front(struct ra_xsort *x, int k)
{
	size_t room = room_of(x, (size_t)k + 1), n = 0;
	char *mem = malloc(room * x->size * ((size_t)k + 1)), *out;
	struct run merged = { .start = x->end, .off = x->end };
	int rc = -1;

	if (!mem) {
		x->failed = true;
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	out = mem + room * x->size * (size_t)k;
	if (heap_begin(x, k, room, mem) < 0)
		goto out;
	while ((rc = heap_pop(x, out + n * x->size)) == 1) {
		merged.left++;
		if (++n == room) {
			if (write_at_end(x, out, n) < 0)
				goto out;
			n = 0;
		}
	}
	if (rc < 0 || (n && write_at_end(x, out, n) < 0)) {
		rc = -1;
		goto out;
	}
	/* the merged runs lie one after the other from the first's start */
	fallocate(x->tmp.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, x->runs[0].start,
		  x->runs[k - 1].off - x->runs[0].start);
	memmove(x->runs, x->runs + k, (size_t)(x->nruns - k) * sizeof(*x->runs));
	x->nruns -= k;
	x->runs[x->nruns++] = merged;
	rc = 0;
out:
	free(mem);
	return rc;
}

int ra_xsort_end(struct ra_xsort *x)
{
	size_t fanin = x->mem / MIN_RUN_BUF > 2 ? x->mem / MIN_RUN_BUF : 2;
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
	/* the buffer's memory for the runs' read buffers */
	free(x->buf);
	x->buf = NULL;
	if (!(x->heap = malloc((size_t)x->nruns * sizeof(*x->heap)))) {
		x->failed = true;
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	while ((size_t)x->nruns > fanin)
		if (merge_front(x, (int)fanin) < 0)
			return -1;
	mem = malloc(room_of(x, (size_t)x->nruns) * x->size * (size_t)x->nruns);
	if (!mem) {
		x->failed = true;
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	x->buf = mem;
	return heap_begin(x, x->nruns, room_of(x, (size_t)x->nruns), mem);
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

	if (!p)
		return x->failed ? -1 : 0;
	if (!x->nruns) {
		memcpy(rec, p, x->size);
		x->at++;
		return 1;
	}
	return heap_pop(x, rec);
}

bool ra_xsort_failed(const struct ra_xsort *x)
{
	return x->failed;
}

void ra_xsort_free(struct ra_xsort *x)
{
	if (!x)
		return;
	ra_tmpfile_close(&x->tmp);
	free(x->buf);
	free(x->runs);
	free(x->heap);
	free(x);
}
