// SPDX-License-Identifier: LGPL-2.1
/*
 * What-if runs: a recorded run's accesses replayed (replay.h) at another
 * read_ahead_kb, kernel series or policy, stored as a run of its own
 * (origin 'whatif') that the readahead and block passes analyse like any
 * other: its windows, patterns, page fates and I/O are what that kernel
 * would have done with the recorded workload.
 *
 * Time. Each access keeps the think time the recording shows before it: the
 * time since the task's previous access, or since the recorded completion of
 * the I/O that read its pages (the last request of the recorded window that
 * holds them, window_io), whichever is later: the reader waited until then. The replay's I/O goes to the
 * device's model (the source run's device_models: access time and
 * bandwidth), one request after the other, split at the device's largest
 * request (max_sectors_kb); an access waits for the pages it reads. The
 * predicted run's length and the bytes its accesses read give the
 * throughput the reader would see. Without a device model the run keeps the
 * recorded times and has no throughput.
 *
 * Memory: per task a few numbers, the pages in flight, the requests not yet
 * completed; the events are streamed, and the what-if run stores only its
 * readahead and block events (its accesses are the source's, replayed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"
#include "ra_sql.h"
#include "replay.h"

#define SWEEP_AT 1000000	/* pages in flight past which the completed are dropped */
#define PAGE_SECTORS 8

#define RECENT 16		/* a task's recorded windows looked at for an access */

/* A recorded window: its pages, and when the last of its I/O completed. */
struct rwin {
	int file;
	uint64_t start, end;
	int64_t done;		/* 0: no I/O */
};

/* A task: its recorded and predicted clocks, and its latest recorded windows. */
struct wtask {
	int64_t rec_last;	/* its latest recorded access */
	double pred_last;	/* its latest predicted access, ended */
	bool seen;
	struct rwin recent[RECENT];	/* a ring, the newest at next - 1 */
	int next;
};

/* A request being gathered from the replay's page adds, or in flight. */
struct wreq {
	int pid, file;
	uint32_t dev;
	uint64_t index, pages, folios;
	double queued, issued, done;
};

/*
 * blk-throttle's state for the group of the workload (block/blk-throttle.c,
 * 6.x): a slice of 100 ms that grants its bytes and I/Os from its start,
 * extended while bios wait, trimmed after two slices are used; time in
 * jiffies of a HZ=250 kernel (Debian's and this project's test kernels).
 */
#define THR_HZ 250
#define THR_SLICE (THR_HZ / 10)
#define THR_JIFFY_NS (1e9 / THR_HZ)

struct throttle {
	double iops, bps;		/* 0: not limited */
	int64_t slice_start, slice_end;	/* jiffies */
	double bytes_disp, io_disp;
	double last_ns;			/* the last bio's dispatch: the queue is FIFO */
	double dev_ns_per_byte;		/* the device behind it, from the run's requests */
};

/* A block event made for the what-if run, waiting for its time. */
struct pending {
	double ts;
	int64_t order;
	struct ra_event ev;
};

struct whatif {
	struct ra_db *db;
	int64_t src, run;
	struct ra_replay *rp;
	struct ra_writer *w;
	struct ra_live *live;
	struct ra_map tasks, tgids, ready;
	/* the recorded windows in seq order, with their I/O's last completion */
	struct ra_stmt *wins;
	int64_t win_seq;		/* the next one's seq, INT64_MAX past the last */
	struct { int pid; struct rwin w; } win_next;
	struct ra_fileset files;
	int64_t *file_size;		/* bytes, per file of the fileset; -1 not known */
	bool *file_ra;			/* the source read it ahead (a window of it) */
	/* per task and file (an open file, as near as the events tell): its last
	 * read()'s event, first page and the read's last */
	struct ra_map reads;		/* (file + 1) << 32 | pid -> struct rd */
	uint32_t src_ra_pages;		/* the source's read_ahead_kb / 4 */
	size_t cap_size;
	char fstype[16];
	uint32_t ra_pages, io_pages, max_req_pages, blkdev;
	/* the device model */
	bool timed;
	bool throttle;		/* the model is the throttle's limits */
	bool throttled;		/* the source's device was throttled (ra-record --throttle) */
	struct throttle thr;	/* its emulation, when throttled */
	double lead;		/* the device's head start (ra_whatif.device_lead_ns) */
	bool form_max;
	double access_ns, bps;
	double dev_free, busy_ns;
	/* the access being replayed */
	int cur_pid;
	double cur_start;
	struct wreq req;		/* pages == 0: none */
	struct pending *heap;
	size_t nheap, capheap;
	int64_t order;
	double first_ts, last_ts, out_ts;
	/*
	 * Memory pressure: when the source run's reclaim evicted pages read ahead
	 * before they were read, the page cache it had is estimated as what its
	 * traced files held (its own adds less its deletions) when it deleted
	 * their pages, on average (the most, without deletions), and the
	 * replay's cache is held to that by a clock over its folios (the
	 * kernel's inactive and active lists in one ring): its evictions are an
	 * estimate.
	 */
	bool pressure;
	int64_t rec_resident, capacity, resident;
	int64_t del_sum, ndel;		/* what they held at each deletion: its mean the capacity */
	struct ra_map folios;		/* (file, head page) -> slot in clock */
	struct cfolio {
		uint64_t key;		/* 0: free */
		uint8_t order;
		uint8_t refs;		/* 0 none, 1 referenced, 2 active */
	} *clock;
	size_t nclock, capclock, hand, empty;
	int64_t evicted;
	struct ra_read_bytes bytes_read;
	int64_t requests;
	double req_bytes;
	bool failed;
};

/* ---- files and tasks ---- */

static int file_index(struct whatif *x, uint32_t dev, uint64_t ino)
{
	bool fresh;
	int i = ra_fileset_index(&x->files, dev, ino, &fresh);

	if (i < 0)
		return -1;
	if ((size_t)i >= x->cap_size) {
		size_t cap = x->cap_size ? x->cap_size * 2 : 64;
		int64_t *p = realloc(x->file_size, cap * sizeof(*p));
		bool *q = p ? realloc(x->file_ra, cap * sizeof(*q)) : NULL;

		if (p)
			x->file_size = p;
		if (!q)
			return -1;
		x->file_ra = q;
		x->cap_size = cap;
	}
	if (fresh) {
		x->file_size[i] = -1;
		x->file_ra[i] = false;
	}
	return i;
}

static struct wtask *task_of(struct whatif *x, int pid)
{
	bool fresh;

	return ra_map_put(&x->tasks, (uint64_t)(uint32_t)pid + 1, &fresh);
}

static int tgid_of(int pid, void *arg)
{
	struct whatif *x = arg;
	const int *t = ra_map_get(&x->tgids, (uint64_t)(uint32_t)pid + 1);

	return t ? *t : 0;
}

static int64_t size_of(uint32_t dev, uint64_t ino, void *arg)
{
	struct whatif *x = arg;
	bool fresh;
	int i = ra_fileset_index(&x->files, dev, ino, &fresh);

	return i >= 0 && !fresh ? x->file_size[i] : -1;
}

static int replay_file(uint32_t dev, uint64_t ino, struct ra_replay_file *out, void *arg)
{
	struct whatif *x = arg;
	int i = file_index(x, dev, ino);

	if (i < 0)
		return -1;
	/* the source's setting: a file whose windows the program doubled (fadvise
	 * SEQUENTIAL) the replay tells by its recorded ones, and doubles the new */
	*out = (struct ra_replay_file){ .size_bytes = x->file_size[i], .fstype = x->fstype,
					.ra_pages = x->src_ra_pages, .io_pages = x->io_pages };
	return 0;
}

/* ---- the block events of the what-if run, in time order ---- */

static bool before(const struct pending *a, const struct pending *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->order < b->order);
}

static int heap_push(struct whatif *x, double ts, const struct ra_event *ev)
{
	size_t i;

	if (x->nheap == x->capheap) {
		size_t cap = x->capheap ? x->capheap * 2 : 64;
		struct pending *p = realloc(x->heap, cap * sizeof(*p));

		if (!p)
			return -1;
		x->heap = p;
		x->capheap = cap;
	}
	i = x->nheap++;
	x->heap[i] = (struct pending){ .ts = ts, .order = x->order++, .ev = *ev };
	while (i && before(&x->heap[i], &x->heap[(i - 1) / 2])) {
		struct pending t = x->heap[i];

		x->heap[i] = x->heap[(i - 1) / 2];
		x->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static struct pending heap_pop(struct whatif *x)
{
	struct pending top = x->heap[0];
	size_t i = 0;

	x->heap[0] = x->heap[--x->nheap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct pending t;

		if (l < x->nheap && before(&x->heap[l], &x->heap[m]))
			m = l;
		if (r < x->nheap && before(&x->heap[r], &x->heap[m]))
			m = r;
		if (m == i)
			break;
		t = x->heap[i];
		x->heap[i] = x->heap[m];
		x->heap[m] = t;
		i = m;
	}
	return top;
}

/* @ev at time @ts into the what-if run, the times kept in order. */
static int put(struct whatif *x, struct ra_event *ev, double ts)
{
	if (ts < x->out_ts)
		ts = x->out_ts;
	x->out_ts = ts;
	ev->ts_ns = (uint64_t)llround(ts);
	return ra_writer_add(x->w, ev);
}

/* The block events due by @ts first. */
static int flush_until(struct whatif *x, double ts)
{
	while (x->nheap && x->heap[0].ts <= ts) {
		struct pending p = heap_pop(x);

		if (put(x, &p.ev, p.ts) < 0)
			return -1;
	}
	return 0;
}

/* ---- the device ---- */

static double service_ns(const struct whatif *x, double bytes)
{
	double xfer = bytes / x->bps * 1e9;

	return x->form_max ? fmax(x->access_ns, xfer) : x->access_ns + xfer;
}

static int block_event(struct whatif *x, int type, double ts, const struct wreq *q)
{
	struct ra_event ev = { .type = (uint16_t)type, .pid = type == RA_EV_BIO_QUEUE ? q->pid : 0,
			       .cpu = 0 };

	ev.blk.dev = q->dev;
	ev.blk.sector = ((uint64_t)(q->file + 1) << 40) + q->index * PAGE_SECTORS;
	ev.blk.nr_sector = (uint32_t)(q->pages * PAGE_SECTORS);
	ev.blk.bytes = (uint32_t)(q->pages * 4096);
	ev.blk.explicit_unplug = -1;
	ev.has_mask = RA_HAS_BYTES | RA_HAS_ERROR;
	snprintf(ev.blk.rwbs, sizeof(ev.blk.rwbs), "RA");
	return heap_push(x, ts, &ev);
}

/* The pages of @q ready when it completes: an access of them waits. */
static int mark_ready(struct whatif *x, const struct wreq *q)
{
	for (uint64_t i = 0; i < q->pages; i++) {
		bool fresh;
		double *r = ra_map_put(&x->ready, ((uint64_t)(q->file + 1) << 40) + q->index + i + 1,
				       &fresh);

		if (!r)
			return -1;
		*r = q->done;
	}
	return 0;
}

/* ---- blk-throttle ---- */

static int64_t roundup_j(int64_t v, int64_t to)
{
	return (v + to - 1) / to * to;
}

static void thr_extend(struct throttle *t, int64_t end)
{
	if (t->slice_end < end)
		t->slice_end = roundup_j(end, THR_SLICE);
}

/* A new slice when the last one is over and nothing waits; else it goes on. */
static void thr_update_slice(struct throttle *t, int64_t j, bool empty)
{
	if ((j < t->slice_start || j > t->slice_end) && empty) {
		t->bytes_disp = t->io_disp = 0;
		t->slice_start = j;
		t->slice_end = j + THR_SLICE;
	} else {
		thr_extend(t, j + THR_SLICE);
	}
}

/* Jiffies a bio of @bytes waits for the bytes of the slice so far (rounded up). */
static int64_t thr_bps_wait(const struct throttle *t, int64_t j, double bytes)
{
	int64_t elapsed = j - t->slice_start, rnd, wait;
	double allowed;

	rnd = roundup_j(elapsed ? elapsed : THR_SLICE, THR_SLICE);
	allowed = floor(t->bps * (double)rnd / THR_HZ);
	if (t->bytes_disp + bytes <= allowed)
		return 0;
	wait = (int64_t)floor((t->bytes_disp + bytes - allowed) * THR_HZ / t->bps);
	return (wait ? wait : 1) + rnd - elapsed;
}

static int64_t thr_iops_wait(const struct throttle *t, int64_t j)
{
	int64_t elapsed = j - t->slice_start, rnd = roundup_j(elapsed + 1, THR_SLICE), wait;

	if (t->io_disp + 1 <= floor(t->iops * (double)rnd / THR_HZ))
		return 0;
	wait = rnd - elapsed;
	return wait > (int64_t)(THR_HZ / t->iops) + 1 ? wait : (int64_t)(THR_HZ / t->iops) + 1;
}

/* After a dispatch: the slice's used part, all but the last slice, is forgotten. */
static void thr_trim(struct throttle *t, int64_t j)
{
	int64_t elapsed;

	if (j < t->slice_start || j > t->slice_end)
		return;
	t->slice_end = roundup_j(j + THR_SLICE, THR_SLICE);
	elapsed = (j - t->slice_start) / THR_SLICE * THR_SLICE;
	if (elapsed < 2 * THR_SLICE)
		return;
	elapsed -= THR_SLICE;
	t->bytes_disp = t->bps > 0 ? fmax(0, t->bytes_disp - floor(t->bps * (double)elapsed / THR_HZ)) : 0;
	t->io_disp = t->iops > 0 ? fmax(0, t->io_disp - floor(t->iops * (double)elapsed / THR_HZ)) : 0;
	t->slice_start += elapsed;
}

/*
 * When a bio of @bytes that comes at @ns leaves the throttle, its @pieces
 * (the requests the block layer splits it into) at @out: its bytes are
 * charged once, each piece is an I/O. A bio that must wait does until the
 * group's timer fires, on a jiffy.
 */
static void thr_dispatch(struct throttle *t, double ns, double bytes, int pieces, double *out)
{
	bool empty = ns >= t->last_ns;	/* nothing of the group waits before it */
	double at = fmax(ns, t->last_ns);
	int64_t j = (int64_t)floor(at / THR_JIFFY_NS), wait;

	if (t->bps > 0) {
		for (;;) {
			thr_update_slice(t, j, empty);
			wait = thr_bps_wait(t, j, bytes);
			thr_extend(t, j + wait);
			if (!wait)
				break;
			j += wait;
			at = (double)j * THR_JIFFY_NS;
			empty = false;
		}
		t->bytes_disp += bytes;
	}
	for (int k = 0; k < pieces; k++) {
		if (t->iops > 0) {
			for (;;) {
				thr_update_slice(t, j, empty);
				wait = thr_iops_wait(t, j);
				thr_extend(t, j + wait);
				if (!wait)
					break;
				j += wait;
				at = (double)j * THR_JIFFY_NS;
				empty = false;
			}
		}
		t->io_disp += 1;
		thr_trim(t, j);
		out[k] = at;
	}
	t->last_ns = at;
}

/* ---- the requests ---- */

/* One request of the bio: to the device, and its events. */
static int issue_piece(struct whatif *x, struct wreq *q)
{
	double bytes = (double)q->pages * 4096.0, service, start, queued;

	if (x->throttle) {
		/* the throttle let it go at q->issued; the device behind is fast */
		service = bytes * x->thr.dev_ns_per_byte;
		start = fmax(x->dev_free, q->issued);
	} else {
		/*
		 * The device as a token bucket: its own time runs @lead ahead of
		 * the clock at most, and catches up with it while idle; a request
		 * ends when both have passed its service.
		 */
		service = x->timed ? service_ns(x, bytes) : 0;
		start = fmax(x->dev_free, q->queued - x->lead);
		q->issued = fmax(q->queued, start);
	}
	x->dev_free = start + service;
	q->done = fmax(q->issued, x->dev_free);
	/* a throttled device is busy for as long as its limits hold a request */
	x->busy_ns += x->throttle ? service_ns(x, bytes) : service;
	x->requests++;
	x->req_bytes += bytes;
	/* a throttle holds a bio before it is queued: no wait in the queue */
	queued = x->throttled ? q->issued : q->queued;
	if (block_event(x, RA_EV_BIO_QUEUE, queued, q) < 0 ||
	    block_event(x, RA_EV_GETRQ, queued, q) < 0 ||
	    block_event(x, RA_EV_RQ_INSERT, queued, q) < 0 ||
	    block_event(x, RA_EV_RQ_ISSUE, q->issued, q) < 0 ||
	    block_event(x, RA_EV_RQ_COMPLETE, q->done, q) < 0 || mark_ready(x, q) < 0)
		return -1;
	return 0;
}

/*
 * The bio gathered so far goes: through the throttle when the run had one,
 * as requests of at most max_sectors_kb (the block layer splits a bio there,
 * and merges the next into a request up to it).
 */
#define MAX_PIECES 64

static int issue(struct whatif *x)
{
	struct wreq *q = &x->req;
	double out[MAX_PIECES];
	uint64_t per = x->max_req_pages, done = 0;
	int pieces = (int)((q->pages + per - 1) / per);

	if (!q->pages)
		return 0;
	if (x->throttle)
		thr_dispatch(&x->thr, q->queued, (double)q->pages * 4096.0, pieces, out);
	for (int k = 0; k < pieces; k++) {
		struct wreq piece = *q;

		piece.index = q->index + done;
		piece.pages = q->pages - done < per ? q->pages - done : per;
		piece.issued = x->throttle ? out[k] : 0;
		done += piece.pages;
		if (issue_piece(x, &piece) < 0)
			return -1;
	}
	q->pages = 0;
	return 0;
}

/*
 * A folio the replay added: the bio grows, or goes and a new one starts. A
 * bio holds 256 folios (BIO_MAX_VECS); issue() splits it into requests.
 */
static int add_pages(struct whatif *x, const struct ra_event *ev)
{
	struct wreq *q = &x->req;
	int file = file_index(x, ev->page.dev, ev->page.ino);
	uint64_t n = 1ULL << (ev->page.order < 13 ? ev->page.order : 0);

	if (file < 0)
		return -1;
	if (q->pages && (q->file != file || q->pid != x->cur_pid ||
			 q->index + q->pages != ev->page.index || q->folios >= 256 ||
			 (q->pages + n + x->max_req_pages - 1) / x->max_req_pages > MAX_PIECES) &&
	    issue(x) < 0)
		return -1;
	if (!q->pages)
		*q = (struct wreq){ .pid = x->cur_pid, .file = file, .dev = x->blkdev,
				    .index = ev->page.index, .queued = x->cur_start };
	q->pages += n;
	q->folios++;
	return 0;
}

/* When the pages [@first, @last] of @file are all read: now, or when their I/O ends. */
static double ready_at(struct whatif *x, int file, uint64_t first, uint64_t last, double now)
{
	double t = now;

	for (uint64_t i = first; i <= last && i - first < 4096; i++) {
		const double *r = ra_map_get(&x->ready, ((uint64_t)(file + 1) << 40) + i + 1);

		if (r && *r > t)
			t = *r;
	}
	return t;
}

/* Forget pages whose I/O ended before every task's clock: they wait for nothing. */
static void sweep_ready(struct whatif *x)
{
	struct ra_map kept;
	double floor = x->out_ts;

	if (x->ready.n < SWEEP_AT || ra_map_init(&kept, sizeof(double)) < 0)
		return;
	for (size_t i = 0; i < x->ready.cap; i++) {
		double *r = (double *)x->ready.vals + i;
		bool fresh;
		double *k;

		if (x->ready.keys[i] && *r > floor && (k = ra_map_put(&kept, x->ready.keys[i], &fresh)))
			*k = *r;
	}
	ra_map_release(&x->ready);
	x->ready = kept;
}

/* ---- the replay's events, timed ---- */

static bool is_access(int type)
{
	return type == RA_EV_GET_PAGES || type == RA_EV_FAULT || type == RA_EV_MAP_PAGES;
}

/* An access of the replay: it ends when its pages are read. */
static double access_end(struct whatif *x, const struct ra_event *ev)
{
	int file = file_index(x, ev->page.dev, ev->page.ino);
	uint64_t last = ev->has_mask & RA_HAS_LAST_INDEX ? ev->page.last_index : ev->page.index;

	if (file < 0 || last < ev->page.index)
		return x->cur_start;
	if (ev->type == RA_EV_GET_PAGES &&
	    ra_read_bytes_add(&x->bytes_read, ev->pid, ev->page.dev, ev->page.ino, ev->page.index,
			      last, x->file_size[file]) < 0)
		x->failed = true;
	return ready_at(x, file, ev->page.index, last, x->cur_start);
}

/* ---- the page cache's capacity (memory pressure), as the source showed it ---- */

static uint64_t folio_key(int file, uint64_t index)
{
	return ((uint64_t)(file + 1) << 40) + index + 1;
}

/*
 * The clock is a ring in the order folios came: the oldest at the head,
 * reclaim's end, as on the kernel's inactive list. A folio marked accessed
 * once (referenced) is reclaimed there as one never read: folio_check_references
 * lets reclaim take an unmapped file folio that only has PG_referenced. A
 * folio marked twice (activated) or mapped and touched goes round once
 * more at the tail, unreferenced. Slots of folios gone are left empty (key
 * 0) and skipped; the ring is packed when half empty.
 */
static int ring_put(struct whatif *x, uint64_t key, uint8_t order)
{
	bool fresh;
	size_t *slot;

	if (x->nclock == x->capclock) {
		size_t cap = x->capclock ? x->capclock * 2 : 1024;
		struct cfolio *p = realloc(x->clock, cap * sizeof(*p));

		if (!p)
			return -1;
		x->clock = p;
		x->capclock = cap;
	}
	slot = ra_map_put(&x->folios, key, &fresh);
	if (!slot)
		return -1;
	*slot = x->nclock;
	x->clock[x->nclock++] = (struct cfolio){ .key = key, .order = order };
	return 0;
}

/* The ring without its empty slots, the map told their new places. */
static void ring_pack(struct whatif *x)
{
	size_t k = 0;

	for (size_t i = x->hand; i < x->nclock; i++) {
		if (!x->clock[i].key)
			continue;
		x->clock[k] = x->clock[i];
		*(size_t *)ra_map_get(&x->folios, x->clock[k].key) = k;
		k++;
	}
	x->nclock = k;
	x->hand = 0;
	x->empty = 0;
}

/* A folio marked accessed: referenced the first time, active the second */
static void clock_mark(struct cfolio *c)
{
	if (c->refs < 2)
		c->refs++;
}

/* A folio the replay added joins the ring; one there already is marked. */
static int clock_add(struct whatif *x, int file, uint64_t index, unsigned int order)
{
	size_t *slot = ra_map_get(&x->folios, folio_key(file, index));

	if (slot) {
		clock_mark(&x->clock[*slot]);
		return 0;
	}
	x->resident += 1LL << order;
	return ring_put(x, folio_key(file, index), (uint8_t)order);
}

/* A folio the replay deleted leaves the ring. */
static void clock_del(struct whatif *x, int file, uint64_t index)
{
	uint64_t key = folio_key(file, index);
	size_t *slot = ra_map_get(&x->folios, key);

	if (!slot)
		return;
	x->resident -= 1LL << x->clock[*slot].order;
	x->clock[*slot].key = 0;
	x->empty++;
	ra_map_del(&x->folios, key);
	if (x->empty * 2 > x->nclock - x->hand && x->empty > 1024)
		ring_pack(x);
}

/* The ring's folio that holds page @i of @file (its head at each order it may have) */
static struct cfolio *folio_at(struct whatif *x, int file, uint64_t i)
{
	for (unsigned int o = 0; o <= 9; o++) {
		size_t *slot = ra_map_get(&x->folios, folio_key(file, i & ~((1ULL << o) - 1)));

		if (slot && x->clock[*slot].order >= o)
			return &x->clock[*slot];
	}
	return NULL;
}

/* A read's first page and last: none UINT64_MAX. */
struct rd {
	uint64_t first, last;
};

/*
 * Pages accessed: each folio marked once, as filemap_read does, except a
 * read's first folio when the open file's read before ended in it (the
 * kernel keeps where in file->f_ra; here per task and file: a read that
 * goes on in the same folio marks it only the first time). A read() of
 * more than a batch of folios gets them batch after batch, each event from
 * where it is to the read's end: the first marked them all, the next ones
 * mark none. A fault's or a mapping's folio has its page table's accessed
 * bit: reclaim keeps it for one more round.
 */
static int clock_touch(struct whatif *x, int file, int pid, uint64_t first, uint64_t last,
		       bool mapped)
{
	bool fresh;
	struct rd *rd = ra_map_put(&x->reads, ((uint64_t)file + 1) << 32 | (uint32_t)pid, &fresh);
	uint64_t end;

	if (!rd) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (fresh)
		*rd = (struct rd){ UINT64_MAX, UINT64_MAX };
	end = rd->last;

	if (!mapped && last == rd->last && first > rd->first && first <= last) {
		rd->first = first;	/* the same read going on */
		return 0;
	}
	for (uint64_t i = first; i <= last && i - first < 4096; i++) {
		struct cfolio *c = folio_at(x, file, i);
		uint64_t head;

		if (!c)
			continue;
		head = (c->key - 1) & ((1ULL << 40) - 1);
		if (mapped)
			c->refs = 2;
		else if (i != first || end < head || end >= head + (1ULL << c->order))
			clock_mark(c);
		i = head + (1ULL << c->order) - 1;
	}
	if (!mapped)
		*rd = (struct rd){ first, last };
	return 0;
}

/* Reclaim from the ring's head until the replay's cache fits the estimated capacity. */
static int clock_reclaim(struct whatif *x)
{
	while (x->pressure && x->resident > x->capacity && x->hand < x->nclock) {
		struct cfolio c = x->clock[x->hand];
		uint64_t index = (c.key - 1) & ((1ULL << 40) - 1);
		int file = (int)((c.key - 1) >> 40) - 1;

		if (!c.key) {		/* gone already */
			x->hand++;
			x->empty--;
			continue;
		}
		ra_map_del(&x->folios, c.key);
		x->clock[x->hand++].key = 0;
		if (c.refs >= 2) {	/* active: round once more */
			if (ring_put(x, c.key, c.order) < 0)
				return -1;
			continue;
		}
		x->resident -= 1LL << c.order;
		x->evicted += 1LL << c.order;
		if (ra_replay_evict(x->rp, x->files.ids[file].dev, x->files.ids[file].ino, index,
				    (uint64_t)llround(x->cur_start)) < 0)
			return -1;
	}
	return 0;
}

/* The replay's adds, deletions and reads of the files it reads ahead, for the clock. */
static int clock_event(struct whatif *x, const struct ra_event *ev)
{
	int file;

	if (!x->pressure || ra_event_class(ev->type) != RA_CLASS_PAGE)
		return 0;
	file = file_index(x, ev->page.dev, ev->page.ino);
	if (file < 0)
		return -1;
	if (!x->file_ra[file])
		return 0;	/* a file the source read nothing ahead of */
	if (ev->type == RA_EV_PAGE_ADD)
		return clock_add(x, file, ev->page.index, ev->page.order < 10 ? ev->page.order : 0);
	if (ev->type == RA_EV_PAGE_DELETE)
		clock_del(x, file, ev->page.index);
	else if (is_access(ev->type))
		return clock_touch(x, file, ev->pid, ev->page.index,
				   ev->has_mask & RA_HAS_LAST_INDEX ? ev->page.last_index :
				   ev->page.index, ev->type != RA_EV_GET_PAGES);
	return 0;
}

static int on_emitted(const struct ra_event *in, void *arg)
{
	struct whatif *x = arg;
	struct ra_event ev = *in;
	double ts = x->cur_start;

	if (ev.type == RA_EV_PAGE_ADD && ev.pid == x->cur_pid && add_pages(x, &ev) < 0)
		goto fail;
	if (clock_event(x, &ev) < 0)
		goto fail;
	if (is_access(ev.type)) {
		if (issue(x) < 0)
			goto fail;
		ts = access_end(x, &ev);
		if (ev.pid == x->cur_pid)
			x->cur_start = ts;
	}
	if (flush_until(x, ts) < 0 || put(x, &ev, ts) < 0)
		goto fail;
	return 0;
fail:
	x->failed = true;
	return -1;
}

/* ---- the recorded run's events: the think times ---- */

/* The next recorded window into its task's ring once the events reach its seq. */
static int recorded_windows(struct whatif *x, int64_t seq)
{
	while (x->win_seq <= seq) {
		struct wtask *t = task_of(x, x->win_next.pid);
		int64_t wseq, pid, dev, ino, start, size, done;
		int rc;

		if (!t)
			return -1;
		t->recent[t->next] = x->win_next.w;
		t->next = (t->next + 1) % RECENT;
		rc = ra_sql_step(x->wins);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			x->win_seq = INT64_MAX;
			break;
		}
		ra_sql_row(x->wins, "iiiiiii", &wseq, &pid, &dev, &ino, &start, &size, &done);
		x->win_seq = wseq;
		x->win_next.pid = (int)pid;
		x->win_next.w = (struct rwin){ .file = file_index(x, (uint32_t)dev, (uint64_t)ino),
					       .start = (uint64_t)start,
					       .end = (uint64_t)(start + size), .done = done };
	}
	return 0;
}

/* When the recorded I/O of page @index of @file completed, as the task's windows say; 0 not known. */
static int64_t recorded_ready(const struct wtask *t, int file, uint64_t index)
{
	for (int k = 1; k <= RECENT; k++) {
		const struct rwin *w = &t->recent[(t->next - k + RECENT) % RECENT];

		if (w->file == file && index >= w->start && index < w->end)
			return w->done;
	}
	return 0;
}

/*
 * The predicted start of recorded access @ev: the task's think time after its
 * last, which ends at its previous access, or later when the pages it reads
 * came from the device after that (it waited for them).
 */
static double predicted_start(struct whatif *x, const struct ra_event *ev)
{
	struct wtask *t = task_of(x, ev->pid);
	int64_t ts = (int64_t)ev->ts_ns, from, ready;
	int file = file_index(x, ev->page.dev, ev->page.ino);
	uint64_t last = ev->has_mask & RA_HAS_LAST_INDEX ? ev->page.last_index : ev->page.index;

	if (!t || file < 0)
		return (double)ts;
	if (!t->seen) {
		t->seen = true;
		t->rec_last = ts;
		t->pred_last = (double)ts;
	}
	ready = recorded_ready(t, file, last);
	from = ready > t->rec_last && ready <= ts ? ready : t->rec_last;
	t->rec_last = ts;
	return t->pred_last + (double)(ts - from);
}

static int on_source(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct whatif *x = arg;
	struct wtask *t;

	if (recorded_windows(x, seq) < 0)
		return -1;
	x->cur_pid = ev->pid;
	x->cur_start = is_access(ev->type) && x->timed ? predicted_start(x, ev) : (double)ev->ts_ns;
	/* the reads' span as replay_checks takes it: from the first readahead or read */
	if (x->first_ts < 0 && (ra_wincmp_takes(ev) || ev->type == RA_EV_GET_PAGES))
		x->first_ts = x->cur_start;
	if (ra_replay_event(x->rp, ev) < 0 || x->failed || issue(x) < 0 || clock_reclaim(x) < 0)
		return -1;
	t = task_of(x, ev->pid);
	if (t && is_access(ev->type) && x->timed && x->cur_start > t->pred_last)
		t->pred_last = x->cur_start;
	if (is_access(ev->type) && x->cur_start > x->last_ts)
		x->last_ts = x->cur_start;
	sweep_ready(x);
	return 0;
}

/* ---- the what-if run: made, filled, analysed ---- */

/*
 * The rows of the source run a what-if run keeps, with the what-if's run id
 * (?1; the source ?2): what its analyses need of its files, tasks and
 * devices, and the read_ahead_kb replayed (?3) in force for its file systems.
 */
static const char *const copied[] = {
	"INSERT INTO tracepoints (run_id, system, name, available, enabled)"
	" SELECT ?1, system, name, available, enabled FROM tracepoints WHERE run_id = ?2",
	"INSERT INTO devices (run_id, dev, major, minor, name, role, disk, start_sector,"
	" nr_sectors, transport, vendor, model, firmware) SELECT ?1, dev, major, minor, name,"
	" role, disk, start_sector, nr_sectors, transport, vendor, model, firmware"
	" FROM devices WHERE run_id = ?2",
	"INSERT INTO filesystems (run_id, fs_dev, dev, fstype, mount_point, bdi, read_ahead_kb,"
	" dev_name) SELECT ?1, fs_dev, dev, fstype, mount_point, bdi, ?3, dev_name"
	" FROM filesystems WHERE run_id = ?2",
	"INSERT INTO tasks (run_id, pid, comm, tgid) SELECT ?1, pid, comm, tgid FROM tasks"
	" WHERE run_id = ?2",
	"INSERT INTO files (run_id, dev, ino, path, size_bytes) SELECT ?1, dev, ino, path,"
	" size_bytes FROM files WHERE run_id = ?2",
	"INSERT INTO run_args (run_id, pos, arg) SELECT ?1, pos, arg FROM run_args"
	" WHERE run_id = ?2",
	"INSERT INTO settings (run_id, dev, name, old_value, new_value, restored, path)"
	" SELECT ?1, dev, name, old_value, new_value, restored, path FROM settings"
	" WHERE run_id = ?2 AND name != 'read_ahead_kb'",
	NULL
};

static int copy_rows(struct whatif *x)
{
	for (int i = 0; copied[i]; i++)
		if (ra_sql_exec(x->db, copied[i], strstr(copied[i], "?3") ? "iii" : "ii", x->run,
				x->src, (int64_t)x->ra_pages * 4) < 0)
			return -1;
	return 0;
}

/* The source's files, tasks, file system and device; the read_ahead_kb replayed. */
static int load_source(struct whatif *x, const struct ra_whatif *wi)
{
	struct ra_stmt *st = ra_sql_prepare(x->db, "SELECT dev, ino, size_bytes FROM files"
					    " WHERE run_id = ?1");
	int64_t ra_kb = 0, max_kb = 0, blk = 0;
	char *fstype = NULL;
	int rc = -1;

	if (st && ra_sql_bind(st, "i", x->src) == 0) {
		while ((rc = ra_sql_step(st)) == 1) {
			int64_t dev, ino, size;
			int i;

			ra_sql_row(st, "iii", &dev, &ino, &size);
			i = file_index(x, (uint32_t)dev, (uint64_t)ino);
			if (i < 0) {
				rc = -1;
				break;
			}
			x->file_size[i] = ra_sql_null(st, 2) ? -1 : size;
		}
	}
	ra_sql_finalize(st);
	if (rc != 0 ||
	    ra_sql_one(x->db, "SELECT fstype, read_ahead_kb, dev FROM filesystems WHERE run_id = ?1"
			      " AND dev != 0 ORDER BY fs_dev LIMIT 1", "i", "Tii", x->src, &fstype,
		       &ra_kb, &blk) < 0 ||
	    ra_sql_one(x->db, "SELECT MAX(max_sectors_kb) FROM device_snapshots WHERE run_id = ?1"
			      " AND phase = 'before'", "i", "i", x->src, &max_kb) < 0)
		return -1;
	snprintf(x->fstype, sizeof(x->fstype), "%s", fstype ? fstype : "");
	free(fstype);
	x->src_ra_pages = (uint32_t)((ra_kb > 0 ? ra_kb : 128) / 4);
	x->ra_pages = (uint32_t)((wi->read_ahead_kb > 0 ? wi->read_ahead_kb : ra_kb > 0 ? ra_kb : 128) / 4);
	if (wi->max_sectors_kb > 0)
		max_kb = wi->max_sectors_kb;
	x->io_pages = max_kb > 0 ? (uint32_t)(max_kb / 4) : 0;
	x->max_req_pages = x->io_pages ? x->io_pages : 256;
	x->blkdev = (uint32_t)blk;
	return 0;
}

static int load_tgids(struct whatif *x)
{
	struct ra_stmt *st = ra_sql_prepare(x->db, "SELECT pid, tgid FROM tasks WHERE run_id = ?1"
					    " AND tgid IS NOT NULL");
	int rc = -1;

	if (st && ra_sql_bind(st, "i", x->src) == 0) {
		while ((rc = ra_sql_step(st)) == 1) {
			int pid = 0, tgid = 0;
			bool fresh;
			int *t;

			ra_sql_row(st, "xx", &pid, &tgid);
			t = ra_map_put(&x->tgids, (uint64_t)(uint32_t)pid + 1, &fresh);
			if (!t) {
				rc = -1;
				break;
			}
			*t = tgid;
		}
	}
	ra_sql_finalize(st);
	return rc == 0 ? 0 : -1;
}

/*
 * A run on a device it throttled (ra-record --throttle): its bios waited in
 * the throttle, before they were queued, and the throttle is the device the
 * workload saw. It is emulated (struct throttle), with the device behind it
 * as fast as the run's requests were from issue to completion.
 */
static int throttle_model(struct whatif *x)
{
	double iops = NAN, bps = NAN, ns = 0, bytes = 0;

	if (ra_sql_one(x->db, "SELECT (SELECT CAST(new_value AS REAL) FROM settings WHERE run_id = ?1"
			      " AND name = 'blkio.throttle.read_iops_device'),"
			      " (SELECT CAST(new_value AS REAL) FROM settings WHERE run_id = ?1"
			      " AND name = 'blkio.throttle.read_bps_device')", "i", "dd", x->src,
		       &iops, &bps) < 0 ||
	    ra_sql_one(x->db, "SELECT TOTAL(c_ts_ns - d_ts_ns), TOTAL(nr_sector) * 512.0"
			      " FROM requests WHERE run_id = ?1 AND d_ts_ns > 0"
			      " AND c_ts_ns >= d_ts_ns", "i", "dd", x->src, &ns, &bytes) < 0)
		return -1;
	if (!(iops > 0) && !(bps > 0))
		return 0;
	x->throttled = true;
	x->throttle = true;
	x->thr = (struct throttle){ .iops = iops > 0 ? iops : 0, .bps = bps > 0 ? bps : 0,
				    .dev_ns_per_byte = bytes > 0 ? ns / bytes : 0,
				    .slice_start = -1000000, .slice_end = -1000000 };
	/* the figures stored with the prediction: the throttle's limits */
	x->access_ns = iops > 0 ? 1e9 / iops : 0;
	x->bps = bps > 0 ? bps : INFINITY;
	x->form_max = true;
	x->timed = true;
	return 0;
}

/* The model of the source's device the source's analysis chose, if it has one. */
static int load_model(struct whatif *x)
{
	char *form = NULL;
	int n = ra_sql_one(x->db, "SELECT form, access_ns, bandwidth_bps FROM device_models"
				  " WHERE run_id = ?1 AND chosen AND status = 'ok' AND bandwidth_bps > 0"
				  " ORDER BY timing = 'window' DESC LIMIT 1", "i", "Tdd", x->src,
			   &form, &x->access_ns, &x->bps);

	if (n < 0)
		return -1;
	x->timed = n == 1 && isfinite(x->access_ns) && isfinite(x->bps) && x->bps > 0;
	x->form_max = form && strcmp(form, "max") == 0;
	if (!isfinite(x->access_ns) || x->access_ns < 0)
		x->access_ns = 0;
	free(form);
	return throttle_model(x);
}

static const char *policy_name(int policy)
{
	return policy == RA_POLICY_FIXED ? "fixed" : policy == RA_POLICY_SCALING ? "scaling" :
									"kernel";
}

/*
 * The what-if run's row, its params and the rows it keeps of its source: its
 * kernel the source's when it replays the source's series, else the series.
 */
static int make_run(struct whatif *x, const struct ra_whatif *wi, int series)
{
	char label[128], kb[16], *kernel = NULL;
	struct ra_run_info info = { .origin = "whatif", .label = label,
				    .kernel = ra_kseries_name(series), .page_size = 4096,
				    .trace_clock = "whatif" };

	if (ra_sql_one(x->db, "SELECT kernel FROM runs WHERE run_id = ?1", "i", "T", x->src,
		       &kernel) < 0)
		return -1;
	if (kernel && ra_kseries_of(kernel) == series)
		info.kernel = kernel;
	snprintf(label, sizeof(label), "whatif:run=%lld", (long long)x->src);
	x->run = ra_db_run_create(x->db, &info);
	free(kernel);
	if (x->run < 0 || copy_rows(x) < 0)
		return -1;
	snprintf(kb, sizeof(kb), "%u", x->ra_pages * 4);
	/* predicted beside measured: the what-if runs are a run set of their own */
	if (ra_sql_exec(x->db, "INSERT INTO run_params VALUES (?1, 'whatif', '', 'predicted'),"
			       " (?1, 'read_ahead_kb', '', ?2)", "it", x->run, kb) < 0)
		return -1;
	if (wi->policy == RA_POLICY_KERNEL)
		return 0;
	snprintf(kb, sizeof(kb), "%s:%d", policy_name(wi->policy), wi->window_kb);
	return ra_sql_exec(x->db, "INSERT INTO run_params VALUES (?1, 'policy', '', ?2)", "it",
			   x->run, kb);
}

/* The what-if run's end: its length, its processes, its summary row. */
static int finish_run(struct whatif *x, const struct ra_whatif *wi, int series)
{
	struct ra_run_end end = { .exit_status = -1 };
	double len = x->last_ts - x->first_ts;
	char doubts[128];

	end.wall_ns = x->first_ts >= 0 && len > 0 ? (int64_t)llround(len) : -1;
	end.trace_start_ns = x->first_ts >= 0 ? (int64_t)llround(x->first_ts) : -1;
	end.trace_end_ns = x->first_ts >= 0 ? (int64_t)llround(x->last_ts) : -1;
	ra_replay_doubt_names(ra_replay_doubts(x->rp, 0, 0), doubts, sizeof(doubts));
	if (ra_db_run_finish(x->db, x->run, &end) < 0 ||
	    ra_sql_exec(x->db, "UPDATE tasks SET tgid = (SELECT s.tgid FROM tasks s"
			       " WHERE s.run_id = ?2 AND s.pid = tasks.pid) WHERE run_id = ?1",
			"ii", x->run, x->src) < 0)
		return -1;
	return ra_sql_exec(x->db,
		"INSERT INTO whatif (run_id, source_run_id, series, policy, read_ahead_kb, window_kb,"
		" timed, model_form, access_ns, bandwidth_bps, duration_ns, bytes_read, read_bps,"
		" device_busy_ns, requests, request_bytes, doubts, device_lead_ns) VALUES (?1, ?2,"
		" ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
		"iittiixtddjidjidtj", x->run, x->src, ra_kseries_name(series), policy_name(wi->policy),
		(int64_t)x->ra_pages * 4, (int64_t)(wi->policy == RA_POLICY_KERNEL ? 0 : wi->window_kb),
		(int)x->timed,
		x->throttle ? "throttle" : x->timed ? (x->form_max ? "max" : "sum") : NULL,
		x->timed ? x->access_ns : (double)NAN,
		x->timed && isfinite(x->bps) ? x->bps : (double)NAN,
		end.wall_ns, (int64_t)x->bytes_read.bytes,
		x->timed && len > 0 ? (double)x->bytes_read.bytes / len * 1e9 : (double)NAN,
		x->timed ? (int64_t)llround(x->busy_ns) : (int64_t)-1, x->requests,
		x->requests ? x->req_bytes / (double)x->requests : (double)NAN,
		doubts[0] ? doubts : NULL, x->timed ? (int64_t)llround(x->lead) : (int64_t)-1);
}

static void whatif_release(struct whatif *x)
{
	ra_replay_free(x->rp);
	ra_writer_free(x->w);
	ra_live_free(x->live);
	ra_map_release(&x->tasks);
	ra_map_release(&x->folios);
	free(x->clock);
	ra_map_release(&x->tgids);
	ra_sql_finalize(x->wins);
	ra_map_release(&x->ready);
	ra_read_bytes_release(&x->bytes_read);
	ra_fileset_release(&x->files);
	free(x->file_size);
	free(x->file_ra);
	ra_map_release(&x->reads);
	free(x->heap);
}

static int whatif_init(struct whatif *x)
{
	if (ra_map_init(&x->tasks, sizeof(struct wtask)) < 0 ||
	    ra_map_init(&x->folios, sizeof(size_t)) < 0 ||
	    ra_map_init(&x->reads, sizeof(struct rd)) < 0 ||
	    ra_map_init(&x->tgids, sizeof(int)) < 0 ||
	    ra_map_init(&x->ready, sizeof(double)) < 0 || ra_fileset_init(&x->files) < 0 ||
	    ra_read_bytes_init(&x->bytes_read) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	x->first_ts = -1;
	return 0;
}

/* The replay and the writer of the what-if run, its readahead pass fed as it is stored. */
static int start(struct whatif *x, const struct ra_whatif *wi, int series)
{
	struct ra_replay_params p = {
		.series = series, .policy = (enum ra_policy)wi->policy, .ra_pages = x->ra_pages,
		.fixed_pages = (uint32_t)(wi->window_kb / 4),
		.scaling_pages = (uint32_t)(wi->window_kb / 4),
		.file = replay_file, .tgid = tgid_of, .emit = on_emitted, .arg = x,
		.model_reclaim = x->pressure,
	};
	struct ra_live_inputs in = { .page_size = 4096, .completions = true, .tgid = tgid_of,
				     .size = size_of, .arg = x };

	x->rp = ra_replay_alloc(&p);
	x->w = ra_writer_alloc(x->db, x->run);
	if (!x->rp || !x->w)
		return -1;
	ra_writer_set_unstored(x->w, 1u << RA_CLASS_PAGE);
	x->live = ra_live_begin(x->db, x->run, &in);
	if (!x->live)
		return -1;
	ra_writer_set_tap(x->w, ra_live_event, x->live);
	return 0;
}

/*
 * The replay's first pass, and what the source's cache held: its adds less
 * its deletions of the traced files, the most and at each deletion (the
 * pressure's capacity: reclaim deletes at the limit that the rest of the
 * memory leaves the files, which changes as the run's own memory does).
 */
static int on_scan(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct whatif *x = arg;
	int64_t n = 1LL << (ev->page.order < 10 ? ev->page.order : 0);
	int file;

	if (ev->type == RA_EV_RA_ORDER || ev->type == RA_EV_RA_UNBOUNDED) {
		if ((file = file_index(x, ev->ra.dev, ev->ra.ino)) < 0)
			return -1;
		x->file_ra[file] = true;
	} else if (ev->type == RA_EV_PAGE_ADD || ev->type == RA_EV_PAGE_DELETE) {
		if ((file = file_index(x, ev->page.dev, ev->page.ino)) < 0)
			return -1;
		if (!x->file_ra[file])
			return ra_replay_scan_event(ev, seq, x->rp);
		if (ev->type == RA_EV_PAGE_DELETE) {
			x->del_sum += x->rec_resident;
			x->ndel++;
		}
		x->rec_resident += ev->type == RA_EV_PAGE_ADD ? n : -n;
		if (x->rec_resident < 0)
			x->rec_resident = 0;
		if (x->rec_resident > x->capacity)
			x->capacity = x->rec_resident;
	}
	return ra_replay_scan_event(ev, seq, x->rp);
}

/* Whether the source's reclaim took pages read ahead before they were read. */
static int find_pressure(struct whatif *x)
{
	int64_t evicted = 0;

	if (ra_sql_one(x->db, "SELECT COALESCE(SUM(evicted_unused), 0) FROM windows"
			      " WHERE run_id = ?1", "i", "i", x->src, &evicted) < 0)
		return -1;
	x->pressure = evicted > 0;
	return 0;
}

/* The source's windows in seq order, read as its events pass. */
static int open_windows(struct whatif *x)
{
	x->wins = ra_sql_prepare(x->db, "SELECT w.seq, w.pid, w.dev, w.ino, w.start_page,"
				 " w.size_pages, COALESCE(i.last_c_ts_ns, 0) FROM windows w"
				 " LEFT JOIN window_io i USING (run_id, window_id)"
				 " WHERE w.run_id = ?1 ORDER BY w.seq");
	x->win_seq = INT64_MIN;
	x->win_next.w.file = -1;
	if (!x->wins || ra_sql_bind(x->wins, "i", x->src) < 0)
		return -1;
	return recorded_windows(x, INT64_MIN);
}

/* The run's own series when @wi does not say, from its kernel. */
static int series_of(struct whatif *x, const struct ra_whatif *wi)
{
	char *kernel = NULL;
	int s;

	if (wi->series >= 0)
		return wi->series;
	if (ra_sql_one(x->db, "SELECT kernel FROM runs WHERE run_id = ?1", "i", "T", x->src,
		       &kernel) < 0)
		return -1;
	s = kernel ? ra_kseries_of(kernel) : -1;
	if (s < 0)
		ra_set_error(RA_ERR_DATA, "run %lld: its kernel ('%s') is not one whose readahead"
			     " ratrace models (6.1 and later): name a series", (long long)x->src,
			     kernel ? kernel : "unknown");
	free(kernel);
	return s;
}

int ra_whatif_make(struct ra_db *db, int64_t src, const struct ra_whatif *wi,
		   const struct ra_analyze_opts *o, int64_t *run_id)
{
	struct whatif x = { .db = db, .src = src,
			    .lead = wi->device_lead_ns > 0 ? (double)wi->device_lead_ns : 0 };
	struct ra_analyze_opts ao = o ? *o : (struct ra_analyze_opts){ 0 };
	int series, ret = -1;

	if (whatif_init(&x) < 0 || (series = series_of(&x, wi)) < 0 ||
	    load_source(&x, wi) < 0 || load_tgids(&x) < 0 || load_model(&x) < 0 ||
	    open_windows(&x) < 0 || find_pressure(&x) < 0 || make_run(&x, wi, series) < 0 ||
	    start(&x, wi, series) < 0)
		goto out;
	if (ra_evstream_each(db, src, RA_STREAM_RA | RA_STREAM_PAGE, on_scan, &x) < 0 ||
	    (x.ndel && (x.capacity = x.del_sum / x.ndel) < 0) ||
	    ra_evstream_each(db, src, RA_STREAM_RA | RA_STREAM_PAGE, on_source,
			     &x) < 0 || x.failed || ra_replay_end(x.rp) < 0 || issue(&x) < 0 ||
	    flush_until(&x, INFINITY) < 0 || ra_writer_finish(x.w) < 0 ||
	    finish_run(&x, wi, series) < 0)
		goto out;
	ra_writer_set_tap(x.w, NULL, NULL);
	ao.live = x.live;
	if (ra_analyze_in_load(db, x.run, &ao) < 0)
		goto out;
	*run_id = x.run;
	ret = 0;
out:
	whatif_release(&x);
	return ret;
}

/* The length of the replay of @src at its own settings with head start @lead. */
static int own_length(struct ra_db *db, int64_t src, double lead, int64_t *pred_ns,
		      int64_t *timed)
{
	struct ra_whatif own = { .series = -1, .device_lead_ns = (int64_t)llround(lead) };
	int64_t run = 0;

	/* timed: 1 for a model with a head start, 2 for an emulated throttle */
	if (ra_whatif_make(db, src, &own, NULL, &run) < 0 ||
	    ra_sql_one(db, "SELECT duration_ns, timed + (model_form IS 'throttle') FROM whatif"
			   " WHERE run_id = ?1", "i", "ii", run, pred_ns, timed) < 0 ||
	    ra_sql_exec(db, "DELETE FROM runs WHERE run_id = ?1", "i", run) < 0)
		return -1;
	return 0;
}

/*
 * The device's head start that makes the replay at the run's own settings
 * last as long as the run's reads did (replay_checks): what the model misses
 * of the device the run saw, as time. A blkio throttle is one slice (100 ms)
 * of bytes and I/Os ahead of its limits from the first bio on (a new slice
 * grants a whole slice's allowance at once), so a throttled run is that much
 * shorter than its limits say, at any setting.
 *
 * The head start refills while the device idles, so a reader that thinks
 * between its reads gains it more than once: the replay's length falls by
 * more than the head start. Its length never grows with the head start, so
 * the head start is found by bisection from the first guess (the time the
 * replay is too long), a few replays at most, to within 1% of the run.
 * *@lead_ns 0 where the run cannot tell (no timed model, no reads, a replay
 * already as short), at most half the replay's length.
 */
int ra_whatif_calibrate(struct ra_db *db, int64_t src, int64_t *lead_ns)
{
	int64_t read_ns = 0, pred0 = 0, pred = 0, timed = 0, best;
	double lo = 0, hi, lead;

	*lead_ns = 0;
	if (ra_sql_one(db, "SELECT read_ns FROM replay_checks WHERE run_id = ?1", "i", "i", src,
		       &read_ns) < 0 || own_length(db, src, 0, &pred0, &timed) < 0)
		return -1;
	if (timed != 1 || read_ns <= 0 || pred0 <= read_ns)
		return 0;
	hi = (double)pred0 / 2;
	lead = fmin((double)(pred0 - read_ns), hi);
	best = pred0 - read_ns;
	for (int step = 0; step < 6; step++) {
		if (own_length(db, src, lead, &pred, &timed) < 0)
			return -1;
		if (llabs(pred - read_ns) < best) {
			best = llabs(pred - read_ns);
			*lead_ns = (int64_t)llround(lead);
		}
		if (best * 100 <= read_ns)
			break;
		if (pred > read_ns)
			lo = lead;
		else
			hi = lead;
		lead = (lo + hi) / 2;
	}
	return 0;
}
