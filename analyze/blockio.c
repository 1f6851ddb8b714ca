// SPDX-License-Identifier: LGPL-2.1
/*
 * The block pass: every request followed through the block layer (Q, M/F, G,
 * I, D, C, requeue), btt's intervals per device, merges, plugs per device,
 * readahead I/O, the I/O each readahead window caused, plug stalls, and the
 * check of the trace's completions against the /sys/block stat deltas.
 *
 * Requests are found by device and sector: a bio queued at sector s becomes
 * a request at G (get request), grows by back merges (a bio starting at the
 * request's end) and front merges (a bio ending at its start), and is issued
 * and completed at its start sector. blk-mq often has no insert event; a
 * completion of a request never seen issued (the trace began mid-flight)
 * counts as completed without latencies.
 *
 * A bio larger than the queue's limits is split (X): one bio queued, and its
 * pieces become requests of their own, the first at the bio's sector, the
 * rest at the sector the split names. The bio counts once (bios queued, Q2G,
 * plugged bios, a window's bios); its Q2C and Q2D_RA end when its last piece
 * completes or is issued.
 *
 * Block events carry the whole disk. A partition traced without its disk
 * (ra-record -d PART) has its own rows: the events of its disk in its sector
 * range are its own, as its /sys/class/block/PART/stat counts them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"
#include "ra_sql.h"

#define MAX_DEVS 64
#define DEFAULT_STALL_NS 1000000
#define WIO_SLOTS 16384		/* windows' I/O records in memory (slots.c): 2 MiB */
#define ORDER_MEM 32768		/* windows with I/O in the order's sorters' memory: 1.5 MiB */
#define SAMPLES_MAX 131072	/* latencies held before the sorter writes runs: 2 MiB */
#define SETTLE_NS 200000000	/* a task's window with no I/O in flight is final after (trace time) */
#define LAG_MAX 8192		/* windows after the oldest not final that press it to be */
#define WAITING_MAX 65536	/* final windows waiting for their device's time, as much */

enum { IV_Q2G, IV_G2I, IV_I2D, IV_D2C, IV_Q2C, IV_Q2D_RA, IV_MAX };
static const char *const iv_names[IV_MAX] = { "Q2G", "G2I", "I2D", "D2C", "Q2C", "Q2D_RA" };

/* A latency in the pass's sorter: by device (its index), interval, value. */
struct sample_rec {
	int64_t v;
	int32_t dev, iv;
};

struct bio {
	int64_t q_ts;
	int32_t window;		/* window id, 0 none */
	int32_t pid;
	uint32_t nr_sector;	/* of this bio, or of this piece of a split bio */
	int32_t split;		/* index + 1 in st->splits of a split bio, 0 none */
	bool ra;
	bool piece;		/* a piece after the first of a split bio */
	bool plugged;		/* counted in a plug (unsplit bios) */
};

/* A split bio: what its pieces have left to issue and complete. */
struct split {
	int64_t q_ts;
	int64_t last_c;
	uint64_t issue_left, done_left;
	uint32_t nr_sector;	/* of the whole bio */
	bool plugged;
};

/* A traced partition whose disk is not traced: its disk's events in [start, end). */
struct part {
	uint32_t disk, dev;
	uint64_t start, end;
};

struct request {
	bool live;
	uint64_t start, nr;
	uint64_t done;		/* sectors of partial completions before start */
	int64_t g_ts, i_ts, d_ts;
	char rwbs[10];
	struct bio *bios;
	int nbios, cap;
};

struct device {
	uint32_t dev;
	uint64_t latencies[IV_MAX];	/* of each interval, in st->samples */
	uint64_t queued, merges_back, merges_front, getrq, inserts, issues, requeues;
	uint64_t reads, sectors_read, writes, sectors_written, orphans, errors;
	uint64_t ra_requests, ra_bytes, splits, remaps;
	uint64_t plugs, unplugs, unplug_explicit, unplug_timer, unplug_rqs, plugged_bios;
	struct ra_map pending;	/* sector -> struct bio: queued, not yet in a request */
	struct ra_map by_start;	/* sector -> request index + 1 */
	struct ra_map by_end;	/* end sector -> request index + 1 */
	/* its windows' device time as they complete (device_service(), online) */
	struct done_rec *done;	/* final windows by last completion, a heap */
	int ndone;
	size_t capdone;
	int64_t timed_c;	/* the latest completion timed, 0 none */
	struct ra_span_set fly, held;
};

/* A final window waiting for its device's time: by last completion, id. */
struct done_rec {
	int64_t last_c, open, bytes;
	int32_t id;
};

struct window_io {
	uint64_t bios, requests, bytes, ab;
	int64_t first_q, first_c, last_c, open_ts;
	int64_t outstanding;	/* bytes of the pages it added that no bio carried yet;
				 * followed live: minus those carried (outstanding_of) */
	int64_t seen_added;	/* followed live: its pages added when last asked, -1 never */
	uint32_t fsdev;		/* device of the window's file */
	uint32_t blkdev;	/* block device of its last completed request */
	uint64_t acct_seq;	/* the last completion that counted it (account_windows) */
	uint64_t queued;	/* bytes of its bios queued (in flight: queued - bytes) */
	int64_t service, idle, held;	/* its device time, when timed */
	int32_t holders;	/* tasks it is the open window of */
	bool sync;
	bool varied;		/* followed live: its pages added changed after it was asked */
	bool timed;
	bool fed;		/* its row was given to the model's inputs */
	int32_t stream;		/* followed live: its window's stream_id, */
	uint32_t size;		/* size in pages */
	int64_t ts;		/* and opening, for the model's inputs */
};

struct blk_state {
	struct device devs[MAX_DEVS];
	int ndevs;
	struct part parts[MAX_DEVS];
	int nparts;
	struct split *splits;
	int nsplits, cap_splits;
	struct request *reqs;
	int nreqs, cap_reqs;
	int *free_reqs;
	int nfree;
	struct ra_stmt *wins;		/* the run's windows in order, read as their events pass */
	bool wins_done;			/* all read */
	int64_t next_win_seq;		/* the seq of the next window, -1 when read first */
	struct ra_map task_window;	/* pid -> current window id */
	struct ra_map fs_blk;		/* FS_BLK(s_dev, block device) of the run's file systems */
	struct ra_slots *wio;		/* struct window_io by window id - 1 */
	int nwindows;			/* windows read so far */
	int owed;			/* oldest window that may still be owed bios */
	uint64_t acct_seq;		/* completions counted by account_windows() */
	struct ra_map skipped_devs;	/* those devices */
	int64_t skipped_events;		/* and their events, left out */
	struct ra_map plug_tasks;	/* pid -> struct plug_task */
	bool unplug_kind_unknown;	/* an unplug did not say explicit or timer (ftrace) */
	int64_t stall_ns;
	struct ra_batch *ins_req;	/* requests' rows, in batches */
	struct ra_stmt *ins_stall;
	struct ra_xsort *samples;	/* every latency (sample_rec) */
	int slots;			/* windows held in memory (window_slots) */
	int64_t run_id;
	int64_t req_seq;
	struct ra_db *db;
	/* followed live: the windows from the readahead pass fed beside it */
	struct ra_live *ra;
	struct ra_model_feed *feed;	/* the model inputs fed beside it, or NULL */
	int64_t page_size;
	struct ra_map fs_asked;		/* FS_BLK pairs asked: the answer given */
	bool (*fs_holds)(uint32_t fs_dev, uint32_t blkdev, void *arg);	/* the answers */
	void *fs_arg;
	int asked_lo, asked_hi;		/* windows whose pages added were asked */
	bool live_failed;
	char live_why[200];
	/*
	 * The device time of windows as they complete: the windows before
	 * final_id are final (their I/O done, their task moved on), and timed
	 * when no window not final can come before them. Where that cannot
	 * be (a window's I/O went on after it was final, too many wait), the
	 * time is computed at the end from every record.
	 */
	int final_id;
	int64_t now;			/* the latest event's time */
	int64_t waiting;		/* final windows not timed yet */
	int64_t timed_windows, rows_kept;
	struct done_rec *group;		/* the windows of one completion */
	size_t capgroup;
	struct ra_batch *put_row;	/* a window's row written as it leaves memory */
	bool at_end;
	char at_end_why[160];
};

/* The I/O record of window @id (from 1), NULL when none (or on error: ra_slots_failed) */
static struct window_io *wio_at(struct blk_state *st, int id)
{
	return id > 0 && id <= st->nwindows ? ra_slots_get(st->wio, id - 1) : NULL;
}

static const struct window_io *wio_peek(struct blk_state *st, int id)
{
	return id > 0 && id <= st->nwindows ? ra_slots_peek(st->wio, id - 1) : NULL;
}

static void time_at_end(struct blk_state *st, const char *why);

enum { PLUG_NONE, PLUG_OPEN, PLUG_FLUSHING };

/*
 * A task's plug as its events show it. ftrace's block_plug and block_unplug
 * carry no device: a plug belongs to the devices of the bios its task put in
 * it. The kernel fires block_plug when it adds the first request to the
 * task's empty plug list, after that request's bio was queued (Q G P), so the
 * task's last request not yet plugged (the seed) is the plug's first; bios
 * the task queues while the plug is open are in it too. The flush that ends
 * the plug fires one block_unplug per queue.
 */
struct plug_task {
	uint64_t devs;		/* bits of st->devs indexes: devices with bios in the plug */
	uint64_t unplugged;	/* of those, the ones an unplug of the flush was given */
	uint64_t seed_sector;
	int state;		/* PLUG_* */
	int seed;		/* st->devs index + 1 of the seed request, 0 none */
	int32_t seed_split;	/* its bio's split record, 0 none */
	bool seed_counted;	/* its bio needs no count: counted already, or never queued */
	bool seed_in_plug;	/* it was got while a plug was open */
	int32_t reqs;		/* requests of traced devices the plug got */
	int32_t flushed;	/* requests its unplugs sent so far */
	bool pending;		/* an unplug waiting for the device it dispatches to */
	int32_t pending_nr;
	int32_t pending_explicit;
};

static int cmp_sample(const void *a, const void *b)
{
	const struct sample_rec *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->iv != y->iv)
		return x->iv < y->iv ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

static int sample(struct blk_state *st, struct device *d, int iv, int64_t v)
{
	struct sample_rec r = { v, (int32_t)(d - st->devs), iv };

	if (v < 0)
		return 0;	/* clock skew between CPUs: not a latency */
	d->latencies[iv]++;
	return ra_xsort_put(st->samples, &r);
}

/* The device of @dev; NULL when MAX_DEVS others came first, or out of memory. */
static struct device *device_of(struct blk_state *st, uint32_t dev)
{
	struct device *d;

	for (int i = 0; i < st->ndevs; i++)
		if (st->devs[i].dev == dev)
			return &st->devs[i];
	if (st->ndevs == MAX_DEVS)
		return NULL;
	d = &st->devs[st->ndevs];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	if (ra_map_init(&d->pending, sizeof(struct bio)) < 0 ||
	    ra_map_init(&d->by_start, sizeof(int)) < 0 || ra_map_init(&d->by_end, sizeof(int)) < 0) {
		ra_map_release(&d->pending);
		ra_map_release(&d->by_start);
		ra_map_release(&d->by_end);
		return NULL;
	}
	st->ndevs++;
	return d;
}

/*
 * An event of a device past the first MAX_DEVS (plug masks are 64 bits):
 * left out and counted, the rest analysed; the pass says so in its note.
 * A NULL from device_of() with room for more devices was out of memory.
 */
static int over_limit(struct blk_state *st, const struct ra_event *ev)
{
	bool fresh;

	if (st->ndevs < MAX_DEVS)
		return -1;
	st->skipped_events++;
	if (!ra_map_put(&st->skipped_devs, (uint64_t)ev->blk.dev + 1, &fresh))
		return -1;
	return 0;
}

#define SKEY(sector) ((sector) + 1)

/* ---- requests ---- */

static int req_alloc(struct blk_state *st)
{
	int i;

	if (st->nfree) {
		i = st->free_reqs[--st->nfree];
	} else {
		if (st->nreqs == st->cap_reqs) {
			int cap = st->cap_reqs ? st->cap_reqs * 2 : 256;
			struct request *p = realloc(st->reqs, (size_t)cap * sizeof(*p));
			int *f = realloc(st->free_reqs, (size_t)cap * sizeof(*f));

			if (!p || !f) {
				free(p == st->reqs ? NULL : p);
				return -1;
			}
			st->reqs = p;
			st->free_reqs = f;
			st->cap_reqs = cap;
		}
		i = st->nreqs++;
		memset(&st->reqs[i], 0, sizeof(st->reqs[i]));
	}
	st->reqs[i].live = true;
	st->reqs[i].nbios = 0;
	st->reqs[i].done = 0;
	st->reqs[i].g_ts = st->reqs[i].i_ts = st->reqs[i].d_ts = 0;
	return i;
}

static void req_free(struct blk_state *st, struct device *d, int i)
{
	struct request *r = &st->reqs[i];

	ra_map_del(&d->by_start, SKEY(r->start));
	ra_map_del(&d->by_end, SKEY(r->start + r->nr));
	r->live = false;
	st->free_reqs[st->nfree++] = i;
}

static int req_add_bio(struct request *r, const struct bio *b)
{
	if (r->nbios == r->cap) {
		int cap = r->cap ? r->cap * 2 : 4;
		struct bio *p = realloc(r->bios, (size_t)cap * sizeof(*p));

		if (!p)
			return -1;
		r->bios = p;
		r->cap = cap;
	}
	r->bios[r->nbios++] = *b;
	return 0;
}

static int req_index(struct ra_map *m, uint64_t sector)
{
	int *p = ra_map_get(m, SKEY(sector));

	return p ? *p - 1 : -1;
}

static int req_index_put(struct ra_map *m, uint64_t sector, int i)
{
	bool fresh;
	int *p = ra_map_put(m, SKEY(sector), &fresh);

	if (!p)
		return -1;
	*p = i + 1;
	return 0;
}

/* The queued bio at @sector, taken out of the pending ones (q_ts 0 if unseen). */
static struct bio take_bio(struct device *d, uint64_t sector, uint32_t nr)
{
	struct bio *p = ra_map_get(&d->pending, SKEY(sector)), b = { .nr_sector = nr };

	if (p) {
		b = *p;
		ra_map_del(&d->pending, SKEY(sector));
	}
	return b;
}

/* ---- split bios ---- */

static struct split *split_of(struct blk_state *st, const struct bio *b)
{
	return b->split > 0 && b->split <= st->nsplits ? &st->splits[b->split - 1] : NULL;
}

static int32_t split_new(struct blk_state *st, const struct bio *b)
{
	if (st->nsplits == st->cap_splits) {
		int cap = st->cap_splits ? st->cap_splits * 2 : 64;
		struct split *p = realloc(st->splits, (size_t)cap * sizeof(*p));

		if (!p)
			return -1;
		st->splits = p;
		st->cap_splits = cap;
	}
	st->splits[st->nsplits] = (struct split){
		.q_ts = b->q_ts, .issue_left = b->nr_sector, .done_left = b->nr_sector,
		.nr_sector = b->nr_sector, .plugged = b->plugged,
	};
	return ++st->nsplits;
}

/*
 * block_split: the queued bio at the event's sector keeps [sector, new_sector);
 * the rest, from new_sector, waits for a request of its own as a piece of the
 * same bio (and may be split again).
 */
static int on_split(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	uint64_t s = ev->blk.sector, ns = ev->blk.new_sector;
	struct bio *b = ra_map_get(&d->pending, SKEY(s)), rest, *p;
	bool fresh;

	d->splits++;
	if (!b || ns <= s || ns >= s + b->nr_sector)
		return 0;	/* queued before the trace, or a split the trace cannot place */
	if (!b->split && (b->split = split_new(st, b)) < 0)
		return -1;
	rest = *b;
	rest.nr_sector = (uint32_t)(s + b->nr_sector - ns);
	rest.piece = true;
	b->nr_sector = (uint32_t)(ns - s);
	p = ra_map_put(&d->pending, SKEY(ns), &fresh);
	if (!p)
		return -1;
	*p = rest;
	return 0;
}

/* A piece of @b issued: whether the whole bio now is (an unsplit bio: always). */
static bool bio_issued(struct blk_state *st, const struct bio *b)
{
	struct split *sp = split_of(st, b);

	if (!sp)
		return true;
	if (!sp->issue_left)
		return false;	/* a piece issued again after a requeue */
	sp->issue_left -= sp->issue_left < b->nr_sector ? sp->issue_left : b->nr_sector;
	return !sp->issue_left;
}

/* A piece of @b completed at @c_ts: when the whole bio completed if it now has, else 0. */
static int64_t bio_done(struct blk_state *st, const struct bio *b, int64_t c_ts)
{
	struct split *sp = split_of(st, b);

	if (!sp)
		return c_ts;
	if (c_ts > sp->last_c)
		sp->last_c = c_ts;
	if (!sp->done_left)
		return 0;
	sp->done_left -= sp->done_left < b->nr_sector ? sp->done_left : b->nr_sector;
	return sp->done_left ? 0 : sp->last_c;
}

/* Whether @b was counted in a plug already, with its first piece if it was split. */
static bool bio_plugged(struct blk_state *st, const struct bio *b)
{
	struct split *sp = split_of(st, b);

	return sp ? sp->plugged : b->plugged;
}

/* A request of the event's sector range, found by its start and its end. */
static int new_request(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	int i = req_alloc(st);
	struct request *r;

	if (i < 0)
		return -1;
	r = &st->reqs[i];
	r->start = ev->blk.sector;
	r->nr = ev->blk.nr_sector;
	snprintf(r->rwbs, sizeof(r->rwbs), "%s", ev->blk.rwbs);
	if (req_index_put(&d->by_start, r->start, i) < 0 ||
	    req_index_put(&d->by_end, r->start + r->nr, i) < 0)
		return -1;
	return i;
}

static int on_getrq(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	struct bio b = take_bio(d, ev->blk.sector, ev->blk.nr_sector);
	int i = new_request(st, d, ev);
	struct request *r;

	if (i < 0)
		return -1;
	r = &st->reqs[i];
	r->g_ts = (int64_t)ev->ts_ns;
	d->getrq++;
	if (b.q_ts && !b.piece && sample(st, d, IV_Q2G, r->g_ts - b.q_ts) < 0)
		return -1;
	return req_add_bio(r, &b);
}

static int on_merge(struct blk_state *st, struct device *d, const struct ra_event *ev, bool back)
{
	uint64_t s = ev->blk.sector, n = ev->blk.nr_sector;
	int i = req_index(back ? &d->by_end : &d->by_start, back ? s : s + n);
	struct bio b = take_bio(d, s, (uint32_t)n);
	struct request *r;

	if (back)
		d->merges_back++;
	else
		d->merges_front++;
	if (i < 0)
		return 0;	/* merged into a request begun before the trace */
	r = &st->reqs[i];
	if (back) {
		ra_map_del(&d->by_end, SKEY(r->start + r->nr));
		r->nr += n;
		if (req_index_put(&d->by_end, r->start + r->nr, i) < 0)
			return -1;
	} else {
		ra_map_del(&d->by_start, SKEY(r->start));
		r->start = s;
		r->nr += n;
		if (req_index_put(&d->by_start, r->start, i) < 0)
			return -1;
	}
	return req_add_bio(r, &b);
}

/*
 * block_rq_merge: a request not issued yet (the event's range) joins the one
 * that ends where it starts (the elevator's attempt_merge()): its bios go on
 * at that one's tail, and it is no more. Either begun before the trace, the
 * merge is counted as a bio's.
 */
static int on_rq_merge(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	int in = req_index(&d->by_start, ev->blk.sector), ir = req_index(&d->by_end, ev->blk.sector);
	struct request *r, *next;
	uint64_t n;

	if (in < 0 || ir < 0 || in == ir)
		return on_merge(st, d, ev, true);
	d->merges_back++;
	r = &st->reqs[ir];
	next = &st->reqs[in];
	for (int k = 0; k < next->nbios; k++)
		if (req_add_bio(r, &next->bios[k]) < 0)
			return -1;
	n = next->nr;
	req_free(st, d, in);
	ra_map_del(&d->by_end, SKEY(r->start + r->nr));
	r->nr += n;
	return req_index_put(&d->by_end, r->start + r->nr, ir) < 0 ? -1 : 0;
}

static int store_stall(struct blk_state *st, struct device *d, const struct request *r,
		       const struct bio *b, uint32_t nr_sector, int64_t stall)
{
	return ra_sql_put(st->ins_stall, "iiixiiiz", st->run_id, (int64_t)d->dev, b->q_ts, b->pid,
			  (int64_t)r->start, (int64_t)nr_sector, stall, (int64_t)b->window);
}

static int on_issue(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	int i = req_index(&d->by_start, ev->blk.sector);
	struct request *r;

	d->issues++;
	/* issued without a get-request: begun before the trace, a flush, a passthrough */
	if (i < 0 && (i = new_request(st, d, ev)) < 0)
		return -1;
	r = &st->reqs[i];
	r->d_ts = (int64_t)ev->ts_ns;
	if (r->i_ts && sample(st, d, IV_I2D, r->d_ts - r->i_ts) < 0)
		return -1;
	/* stalls: readahead bio queued to its (last piece's) request issued */
	for (int k = 0; k < r->nbios; k++) {
		const struct bio *b = &r->bios[k];
		const struct split *sp = split_of(st, b);
		int64_t stall = r->d_ts - b->q_ts;

		if (!bio_issued(st, b) || !b->ra || !b->q_ts)
			continue;
		if (sample(st, d, IV_Q2D_RA, stall) < 0)
			return -1;
		if (stall >= st->stall_ns &&
		    store_stall(st, d, r, b, sp ? sp->nr_sector : b->nr_sector, stall) < 0)
			return -1;
	}
	return 0;
}

static int store_request(struct blk_state *st, struct device *d, const struct request *r,
			 int64_t c_ts, int error, int window, int windows)
{
	int64_t first_q = 0;

	for (int k = 0; k < r->nbios; k++)
		if (r->bios[k].q_ts && (!first_q || r->bios[k].q_ts < first_q))
			first_q = r->bios[k].q_ts;
	if (st->feed)
		ra_model_feed_request(st->feed, d->dev, (int64_t)r->nr, c_ts - r->d_ts,
				      r->d_ts && strpbrk(r->rwbs, "Rr"));
	return ra_batch_put(st->ins_req, "iiiiitxzzzzixzx", st->run_id, (int64_t)d->dev, ++st->req_seq,
			  (int64_t)r->start, (int64_t)r->nr, r->rwbs, r->nbios, first_q, r->g_ts,
			  r->i_ts, r->d_ts, c_ts, error, (int64_t)window, windows);
}

/* The windows whose bios a completed request carried. */
static void account_windows(struct blk_state *st, const struct device *d,
			    const struct request *r, int64_t c_ts, int *first, int *count)
{
	*first = 0;
	*count = 0;
	st->acct_seq++;
	for (int k = 0; k < r->nbios; k++) {
		int w = r->bios[k].window;
		struct window_io *wio = wio_at(st, w);
		bool seen;

		if (!wio)
			continue;
		if (w < st->final_id)
			time_at_end(st, "a window's request completed after it was final");
		/* one pass over the bios, however many a request merged */
		seen = wio->acct_seq == st->acct_seq;
		wio->acct_seq = st->acct_seq;
		wio->bios += !r->bios[k].piece;
		wio->bytes += (uint64_t)r->bios[k].nr_sector << 9;
		if (seen)
			continue;
		if (!*first)
			*first = w;
		(*count)++;
		wio->requests++;
		if (!wio->last_c || c_ts > wio->last_c) {
			wio->last_c = c_ts;
			wio->blkdev = d->dev;
		}
		if (!wio->first_c || c_ts < wio->first_c)
			wio->first_c = c_ts;
	}
	if (*count > 1)
		for (int k = 0; k < r->nbios; k++) {
			struct window_io *wio = wio_at(st, r->bios[k].window);

			if (wio)
				wio->ab++;
		}
}

static int on_complete(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	int i = req_index(&d->by_start, ev->blk.sector), first, count;
	int64_t c_ts = (int64_t)ev->ts_ns;
	bool read = strchr(ev->blk.rwbs, 'R') != NULL;
	struct request *r;

	/*
	 * A partial completion: a driver that finished part of a request
	 * (loop after a short read) completes those sectors and issues the
	 * rest again, and the disk's stat counts the request once, at its end.
	 * The request goes on from where the part ended.
	 */
	bool part = i >= 0 && !ev->blk.error && ev->blk.nr_sector &&
		    ev->blk.nr_sector < st->reqs[i].nr;

	if (read) {
		d->reads += !part;
		d->sectors_read += ev->blk.nr_sector;
	} else if (strchr(ev->blk.rwbs, 'W')) {
		d->writes += !part;
		d->sectors_written += ev->blk.nr_sector;
	}
	d->errors += ev->blk.error != 0;
	if (i < 0) {
		d->orphans++;
		return 0;
	}
	r = &st->reqs[i];
	if (part || r->done) {
		ra_map_del(&d->by_start, SKEY(r->start));
		if (part) {
			r->start += ev->blk.nr_sector;
			r->nr -= ev->blk.nr_sector;
			r->done += ev->blk.nr_sector;
		} else {	/* the request whole again, for what is stored of it */
			r->start -= r->done;
			r->nr += r->done;
			r->done = 0;
		}
		if (req_index_put(&d->by_start, r->start, i) < 0)
			return -1;
		if (part)
			return 0;
	}
	if (strchr(r->rwbs, 'A')) {
		d->ra_requests++;
		d->ra_bytes += r->nr << 9;
	}
	if (r->d_ts && sample(st, d, IV_D2C, c_ts - r->d_ts) < 0)
		return -1;
	for (int k = 0; k < r->nbios; k++) {
		int64_t end = bio_done(st, &r->bios[k], c_ts);

		if (r->bios[k].q_ts && end && sample(st, d, IV_Q2C, end - r->bios[k].q_ts) < 0)
			return -1;
	}
	account_windows(st, d, r, c_ts, &first, &count);
	if (store_request(st, d, r, c_ts, ev->blk.error, first, count) < 0)
		return -1;
	req_free(st, d, i);
	return 0;
}

/*
 * A readahead bio queued by a task without an open window: blk-throttle (and
 * other deferred submitters) queue a throttled reader's bios later from a
 * kernel worker. It belongs to the oldest window of its device, already open,
 * that added pages no bio has carried yet. A read bio without the readahead
 * flag (O_DIRECT, a read of one folio) is no window's.
 */
#define FS_BLK(fsdev, blkdev) ((uint64_t)(fsdev) << 32 | (uint32_t)(blkdev))

/* Followed live, something the pass cannot know yet: the stored events are read again. */
static void live_fail(struct blk_state *st, const char *why)
{
	if (!st->live_failed)
		snprintf(st->live_why, sizeof(st->live_why), "%s", why);
	st->live_failed = true;
	ra_model_feed_spoil(st->feed, "the block pass read the events again");
}

/*
 * Does a bio of @blkdev carry pages of the file system @fsdev? Followed
 * live, the run's file systems are not stored yet: the recorder answers,
 * and the answers are checked against the rows at the end.
 */
static bool fs_on(struct blk_state *st, uint32_t fsdev, uint32_t blkdev)
{
	bool fresh;
	char *said;

	if (fsdev == blkdev)
		return true;
	if (!st->ra)
		return ra_map_get(&st->fs_blk, FS_BLK(fsdev, blkdev)) != NULL;
	if (!(said = ra_map_put(&st->fs_asked, FS_BLK(fsdev, blkdev), &fresh))) {
		live_fail(st, "out of memory");
		return false;
	}
	if (fresh)	/* 1 no, 2 yes */
		*said = st->fs_holds && st->fs_holds(fsdev, blkdev, st->fs_arg) ? 2 : 1;
	return *said == 2;
}

/*
 * The bytes window @id added that no bio carried yet. Followed live, the
 * readahead pass's count of its pages so far: what it was is kept, and the
 * end checks that it was the run's.
 */
static int64_t outstanding_of(struct blk_state *st, int id)
{
	struct ra_live_window lw;
	struct window_io *w;

	if (!st->ra) {
		const struct window_io *r = wio_peek(st, id);

		return r ? r->outstanding : 0;
	}
	if (!(w = wio_at(st, id)))
		return 0;
	if (ra_live_window(st->ra, id - 1, &lw) < 0) {
		live_fail(st, "the readahead pass could not follow the events");
		return 0;
	}
	if (w->seen_added >= 0 && w->seen_added != lw.pages_added)
		w->varied = true;
	w->seen_added = lw.pages_added;
	if (!st->asked_lo || id < st->asked_lo)
		st->asked_lo = id;
	if (id > st->asked_hi)
		st->asked_hi = id;
	return lw.pages_added * st->page_size + w->outstanding;
}

static int owed_window(struct blk_state *st, const struct ra_event *ev)
{
	const struct window_io *w;

	while (st->owed < st->nwindows && outstanding_of(st, st->owed + 1) <= 0 &&
	       !ra_slots_failed(st->wio))
		st->owed++;
	for (int i = st->owed; i < st->nwindows && i < st->owed + 64; i++) {
		if (!(w = wio_peek(st, i + 1)) || !w->open_ts || w->open_ts > (int64_t)ev->ts_ns)
			break;
		if (outstanding_of(st, i + 1) > 0 && fs_on(st, w->fsdev, ev->blk.dev))
			return i + 1;
	}
	return 0;
}

static int on_queue(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	int32_t *w = ra_map_get(&st->task_window, (uint64_t)(uint32_t)ev->pid + 1);
	bool fresh;
	struct bio *b = ra_map_put(&d->pending, SKEY(ev->blk.sector), &fresh);

	if (!b)
		return -1;
	d->queued++;
	*b = (struct bio){ .q_ts = (int64_t)ev->ts_ns, .pid = ev->pid,
			   .nr_sector = ev->blk.nr_sector,
			   .ra = strchr(ev->blk.rwbs, 'A') != NULL };
	/* metadata a file system reads meanwhile (btrfs checksums, ext4 extents) is no window's */
	if (!strchr(ev->blk.rwbs, 'R') || strchr(ev->blk.rwbs, 'M'))
		return 0;
	/* bios a task queues while its window is open belong to that window */
	if (w && *w > 0)
		b->window = *w;
	else if (b->ra)
		b->window = owed_window(st, ev);
	if (b->window) {
		struct window_io *wio = wio_at(st, b->window);

		if (!wio)
			return -1;
		if (b->window < st->final_id)
			time_at_end(st, "a window's bio came after it was final");
		if (!wio->first_q)
			wio->first_q = b->q_ts;
		wio->outstanding -= (int64_t)ev->blk.nr_sector << 9;
		wio->queued += (uint64_t)ev->blk.nr_sector << 9;
	}
	return 0;
}

/* ---- plugs ---- */

static struct plug_task *plug_task_of(struct blk_state *st, int pid)
{
	bool fresh;

	return ra_map_put(&st->plug_tasks, (uint64_t)(uint32_t)pid + 1, &fresh);
}

static int dev_index(const struct blk_state *st, const struct device *d)
{
	return (int)(d - st->devs);
}

/* The plug ended: it counts once for each device with bios in it. */
static void plug_end(struct blk_state *st, struct plug_task *t)
{
	for (int i = 0; i < st->ndevs; i++)
		if (t->devs & (1ULL << i))
			st->devs[i].plugs++;
}

static void unplug_to(struct blk_state *st, struct plug_task *t, int i, int32_t nr,
		      int32_t explicit_unplug)
{
	struct device *d = &st->devs[i];

	d->unplugs++;
	d->unplug_rqs += (uint64_t)(nr > 0 ? nr : 0);
	d->unplug_explicit += explicit_unplug == 1;
	d->unplug_timer += explicit_unplug == 0;
	t->unplugged |= 1ULL << i;
}

/*
 * The device of a waiting unplug: @i, the device of the first request the
 * task inserted or issued after it, when the plug had bios of it; else (the
 * task dispatched nothing before its next bio or plug) the plug's first
 * device not yet unplugged, or its first device when none is left.
 */
static void unplug_resolve(struct blk_state *st, struct plug_task *t, int i)
{
	uint64_t left = t->devs & ~t->unplugged;

	if (!t->pending)
		return;
	t->pending = false;
	if (i < 0 || !(t->devs & (1ULL << i)))
		i = __builtin_ctzll(left ? left : t->devs);
	unplug_to(st, t, i, t->pending_nr, t->pending_explicit);
}

static void flush_end(struct blk_state *st, struct plug_task *t)
{
	unplug_resolve(st, t, -1);
	t->state = PLUG_NONE;
}

/* block_plug: a new plug, holding the task's seed request (and the queue blktrace names). */
static int on_plug(struct blk_state *st, const struct ra_event *ev)
{
	struct device *d = ev->blk.dev ? device_of(st, ev->blk.dev) : NULL;
	struct plug_task *t = plug_task_of(st, ev->pid);

	if (!t)
		return -1;
	if (ev->blk.dev && !d)
		return over_limit(st, ev);
	if (t->state == PLUG_OPEN)
		plug_end(st, t);	/* its unplug was not seen */
	else if (t->state == PLUG_FLUSHING)
		flush_end(st, t);
	t->state = PLUG_OPEN;
	t->devs = t->unplugged = 0;
	t->reqs = t->seed != 0;
	t->flushed = 0;
	if (t->seed) {
		t->devs |= 1ULL << (t->seed - 1);
		if (!t->seed_counted)
			st->devs[t->seed - 1].plugged_bios++;
		if (t->seed_split > 0 && t->seed_split <= st->nsplits)
			st->splits[t->seed_split - 1].plugged = true;
		t->seed = 0;
	}
	if (d)
		t->devs |= 1ULL << dev_index(st, d);
	return 0;
}

/*
 * block_unplug: the first one ends the plug; each unplugs one queue. Its
 * device: the one blktrace names, the plug's only one, or (several) the one
 * its task dispatches to next (unplug_resolve). An unplug of a plug begun
 * before the trace, or of a plug with no bios of a traced device, counts for
 * no device.
 */
static int on_unplug(struct blk_state *st, const struct ra_event *ev)
{
	struct device *d = ev->blk.dev ? device_of(st, ev->blk.dev) : NULL;
	struct plug_task *t = plug_task_of(st, ev->pid);
	int32_t nr = ev->blk.nr_rq, ex = ev->blk.explicit_unplug;

	if (!t)
		return -1;
	if (ev->blk.dev && !d)
		return over_limit(st, ev);
	st->unplug_kind_unknown |= ex < 0;
	if (t->state == PLUG_OPEN) {
		plug_end(st, t);
		t->state = PLUG_FLUSHING;
	}
	/* a request got in the plug and sent by its flush starts no later plug; one
	 * the flush left (a full plug is flushed before the next request) does */
	if (t->state == PLUG_FLUSHING) {
		t->flushed += nr > 0 ? nr : 0;
		if (t->seed && t->seed_in_plug && t->flushed >= t->reqs)
			t->seed = 0;
	}
	if (d) {
		unplug_to(st, t, dev_index(st, d), nr, ex);
		return 0;
	}
	if (t->state != PLUG_FLUSHING || !t->devs)
		return 0;
	unplug_resolve(st, t, -1);	/* the unplug before dispatched to no request seen */
	if (!(t->devs & (t->devs - 1))) {
		unplug_to(st, t, __builtin_ctzll(t->devs), nr, ex);
		return 0;
	}
	t->pending = true;
	t->pending_nr = nr;
	t->pending_explicit = ex;
	return 0;
}

/* A bio the task queued (made pending by on_queue()): in its open plug; it ends a flush. */
static int plug_queue(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	struct plug_task *t = plug_task_of(st, ev->pid);
	struct bio *b;

	if (!t)
		return -1;
	if (t->state == PLUG_FLUSHING)
		flush_end(st, t);
	t->seed = 0;
	if (t->state == PLUG_OPEN) {
		t->devs |= 1ULL << dev_index(st, d);
		d->plugged_bios++;
		b = ra_map_get(&d->pending, SKEY(ev->blk.sector));
		if (b)
			b->plugged = true;
	}
	return 0;
}

/*
 * A request of the task, before it takes its bio: the seed of the plug its
 * block_plug may start. Its bio counts in that plug unless it was counted
 * already (queued inside a plug, or an earlier piece of it was) or was never
 * seen queued: plugged bios are bios queued.
 */
static void plug_getrq(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	struct plug_task *t = ra_map_get(&st->plug_tasks, (uint64_t)(uint32_t)ev->pid + 1);
	struct bio *b = ra_map_get(&d->pending, SKEY(ev->blk.sector));

	if (!t)
		return;
	t->seed = dev_index(st, d) + 1;
	t->seed_sector = ev->blk.sector;
	t->seed_counted = !b || !b->q_ts || bio_plugged(st, b);
	t->seed_split = b ? b->split : 0;
	t->seed_in_plug = t->state == PLUG_OPEN;
	t->reqs += t->seed_in_plug;
}

/* A request the task inserts or issues: the device of its waiting unplug; the
 * seed issued without a plug is no seed. */
static void plug_dispatch(struct blk_state *st, struct device *d, const struct ra_event *ev)
{
	struct plug_task *t = ra_map_get(&st->plug_tasks, (uint64_t)(uint32_t)ev->pid + 1);

	if (!t)
		return;
	unplug_resolve(st, t, dev_index(st, d));
	if (t->seed == dev_index(st, d) + 1 && t->seed_sector == ev->blk.sector)
		t->seed = 0;
}

/* The end of the trace ends every plug and flush still open. */
static void plugs_finish(struct blk_state *st)
{
	struct ra_map *m = &st->plug_tasks;

	for (size_t i = 0; i < m->cap; i++) {
		struct plug_task *t = (struct plug_task *)((char *)m->vals + i * m->val_size);

		if (!m->keys[i])
			continue;
		if (t->state == PLUG_OPEN)
			plug_end(st, t);
		else if (t->state == PLUG_FLUSHING)
			flush_end(st, t);
		t->state = PLUG_NONE;
	}
}

/* The traced partition whose sectors hold the event's, if its disk is not traced: its dev. */
static uint32_t event_dev(const struct blk_state *st, const struct ra_event *ev)
{
	for (int i = 0; i < st->nparts; i++) {
		const struct part *p = &st->parts[i];

		if (p->disk == ev->blk.dev && ev->blk.sector >= p->start && ev->blk.sector < p->end)
			return p->dev;
	}
	return ev->blk.dev;
}

static int on_block(struct blk_state *st, const struct ra_event *ev)
{
	struct ra_event part;
	struct device *d;
	int i;

	if (ev->type == RA_EV_PLUG)
		return on_plug(st, ev);
	if (ev->type == RA_EV_UNPLUG)
		return on_unplug(st, ev);
	if (st->nparts && event_dev(st, ev) != ev->blk.dev) {
		part = *ev;
		part.blk.dev = event_dev(st, ev);
		ev = &part;
	}
	d = device_of(st, ev->blk.dev);
	if (!d)
		return over_limit(st, ev);
	switch (ev->type) {
	case RA_EV_BIO_QUEUE:
		return on_queue(st, d, ev) < 0 ? -1 : plug_queue(st, d, ev);
	case RA_EV_GETRQ:
		plug_getrq(st, d, ev);
		return on_getrq(st, d, ev);
	case RA_EV_BIO_BACKMERGE:
		return on_merge(st, d, ev, true);
	case RA_EV_RQ_MERGE:
		return on_rq_merge(st, d, ev);
	case RA_EV_BIO_FRONTMERGE:
		return on_merge(st, d, ev, false);
	case RA_EV_RQ_INSERT:
		plug_dispatch(st, d, ev);
		d->inserts++;
		i = req_index(&d->by_start, ev->blk.sector);
		if (i >= 0) {
			st->reqs[i].i_ts = (int64_t)ev->ts_ns;
			if (st->reqs[i].g_ts)
				return sample(st, d, IV_G2I, st->reqs[i].i_ts - st->reqs[i].g_ts);
		}
		return 0;
	case RA_EV_RQ_ISSUE:
		plug_dispatch(st, d, ev);
		return on_issue(st, d, ev);
	case RA_EV_RQ_COMPLETE:
		return on_complete(st, d, ev);
	case RA_EV_RQ_REQUEUE:
		d->requeues++;
		return 0;
	case RA_EV_SPLIT:
		return on_split(st, d, ev);
	case RA_EV_BIO_REMAP:
	case RA_EV_RQ_REMAP:
		d->remaps++;
		return 0;
	default:
		return 0;
	}
}

/* A task's open window moved from @was to @now (0: none): the windows not final count it. */
static int holders_moved(struct blk_state *st, int was, int now)
{
	struct window_io *w;

	if (was >= st->final_id && (w = wio_at(st, was)))
		w->holders--;
	if (now >= st->final_id && (w = wio_at(st, now)))
		w->holders++;
	return ra_slots_failed(st->wio) ? -1 : 0;
}

/* Readahead events open and close the window a task's bios belong to. */
/* window_of_seq() followed live: the readahead pass, fed the event first, has opened it. */
static int live_window_of_seq(struct blk_state *st, int64_t seq)
{
	int n = ra_live_windows(st->ra);

	while (st->nwindows < n) {
		struct ra_live_window lw;
		struct window_io *w;
		int id = st->nwindows + 1;

		if (ra_live_window(st->ra, id - 1, &lw) < 0)
			break;
		if (lw.seq > seq)
			return 0;
		if (!(w = ra_slots_make(st->wio, id - 1)))
			return -1;
		st->nwindows = id;
		*w = (struct window_io){ .sync = lw.sync, .fsdev = lw.dev, .seen_added = -1,
					 .stream = (int32_t)lw.stream, .size = (uint32_t)lw.size,
					 .ts = lw.ts };
		if (lw.seq == seq)
			return id;
	}
	if (n < 0 || st->nwindows < n)
		live_fail(st, "the readahead pass could not follow the events");
	return 0;
}

/*
 * The run's windows, read in order as the events pass: the window of the
 * event at @seq (its id), 0 when it opened none, -1 on error. Windows whose
 * events the pass did not see (up to @seq, or all with INT64_MAX) are made too.
 */
static int window_of_seq(struct blk_state *st, int64_t seq)
{
	if (st->ra)
		return live_window_of_seq(st, seq);
	while (!st->wins_done) {
		int64_t wseq = st->next_win_seq, fsdev, bytes;
		struct window_io *w;
		int id, sync, rc;

		if (wseq < 0) {		/* the next row is not read yet */
			if ((rc = ra_sql_step(st->wins)) < 0)
				return -1;
			if (!rc) {
				st->wins_done = true;
				break;
			}
			ra_sql_row(st->wins, "i", &st->next_win_seq);
			continue;
		}
		if (wseq > seq)
			break;
		ra_sql_row(st->wins, "ixxii", &wseq, &id, &sync, &fsdev, &bytes);
		if (id != st->nwindows + 1) {
			ra_set_error(RA_ERR_IO, "window %d of run %lld is out of order", id,
				     (long long)st->run_id);
			return -1;
		}
		if (!(w = ra_slots_make(st->wio, id - 1)))
			return -1;
		st->nwindows = id;
		st->next_win_seq = -1;
		*w = (struct window_io){ .sync = sync, .fsdev = (uint32_t)fsdev, .outstanding = bytes };
		if (wseq == seq)
			return id;
	}
	return 0;
}

static int on_readahead(struct blk_state *st, const struct ra_event *ev, int64_t seq)
{
	if (ra_event_is_call(ev->type))
		return 0;

	int win = window_of_seq(st, seq);
	bool fresh;
	int32_t *cur = ra_map_put(&st->task_window, (uint64_t)(uint32_t)ev->pid + 1, &fresh);
	int32_t was;

	if (!cur || win < 0)
		return -1;
	was = fresh ? 0 : *cur;
	if (win) {
		struct window_io *w = wio_at(st, win);

		if (!w)
			return -1;
		*cur = win;
		w->open_ts = (int64_t)ev->ts_ns;
	} else if (ev->type != RA_EV_RA_UNBOUNDED) {
		*cur = 0;	/* a trigger ends the window's bios */
	}
	return was == *cur ? 0 : holders_moved(st, was, *cur);
}

/* ---- loading and storing ---- */

/*
 * The partitions the recording traced without their disk (ra-record stores
 * where each lies on its disk): the events of that disk are theirs by sector.
 */
static int load_parts(struct ra_db *db, int64_t run_id, struct part *parts, int *n)
{
	static const char sql[] =
		"SELECT p.dev, p.disk, p.start_sector, p.nr_sectors FROM devices p"
		" WHERE p.run_id = ?1 AND p.role IN ('filter', 'member') AND p.disk != p.dev"
		" AND p.start_sector >= 0 AND p.nr_sectors > 0 AND NOT EXISTS (SELECT 1"
		" FROM devices d WHERE d.run_id = ?1 AND d.dev = p.disk"
		" AND d.role IN ('filter', 'member', 'traced'))";
	struct ra_stmt *q = ra_sql_prepare(db, sql);
	int rc = -1;

	*n = 0;
	if (!q || ra_sql_bind(q, "i", run_id) < 0)
		goto out;
	while ((rc = ra_sql_step(q)) == 1 && *n < MAX_DEVS) {
		struct part *p = &parts[(*n)++];
		int64_t dev, disk, start, nr;

		ra_sql_row(q, "iiii", &dev, &disk, &start, &nr);
		p->dev = (uint32_t)dev;
		p->disk = (uint32_t)disk;
		p->start = (uint64_t)start;
		p->end = p->start + (uint64_t)nr;
	}
out:
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

/*
 * The block devices under each file system, and their disks: a window's
 * events carry the file system's s_dev (btrfs: an anonymous 0:N), its bios
 * the device's or the disk's.
 */
static int load_fs_devices(struct blk_state *st)
{
	static const char sql[] =
		"SELECT fs_dev, dev FROM filesystems WHERE run_id = ?1 AND dev != 0"
		" UNION SELECT f.fs_dev, d.disk FROM filesystems f JOIN devices d"
		" ON d.run_id = f.run_id AND d.dev = f.dev WHERE f.run_id = ?1 AND f.dev != 0"
		" AND d.disk IS NOT NULL";
	struct ra_stmt *q = ra_sql_prepare(st->db, sql);
	int rc = -1;

	if (!q || ra_sql_bind(q, "i", st->run_id) < 0)
		goto out;
	while ((rc = ra_sql_step(q)) == 1) {
		int64_t fs_dev, dev;
		bool fresh;

		ra_sql_row(q, "ii", &fs_dev, &dev);
		if (!ra_map_put(&st->fs_blk, FS_BLK(fs_dev, dev), &fresh)) {
			ra_set_error(RA_ERR_IO, "out of memory");
			rc = -1;
			break;
		}
	}
out:
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

/* The run's windows, read in order as their events pass (not followed live). */
static int windows_begin(struct blk_state *st)
{
	st->wins = ra_sql_prepare(st->db, "SELECT w.seq, w.window_id, w.trigger = 'sync', w.dev,"
				  " w.pages_added * COALESCE(r.page_size, 4096)"
				  " FROM windows w JOIN runs r USING (run_id)"
				  " WHERE w.run_id = ? ORDER BY w.window_id");
	st->next_win_seq = -1;
	return st->wins && ra_sql_bind(st->wins, "i", st->run_id) == 0 ? 0 : -1;
}

/* The next latency, in increasing order, of device @dev's interval @iv: 1, 0 none left, -1. */
static int next_latency(struct blk_state *st, int32_t dev, int iv, int64_t *v)
{
	const struct sample_rec *r = ra_xsort_peek(st->samples);
	struct sample_rec got;

	if (!r)
		return ra_xsort_failed(st->samples) ? -1 : 0;
	if (r->dev != dev || r->iv != iv)
		return 0;
	if (ra_xsort_next(st->samples, &got) < 0)
		return -1;
	*v = got.v;
	return 1;
}

/*
 * The row of one interval's latencies (nearest-rank percentiles) and its
 * log2 histogram: bucket b holds [2^b, 2^(b+1)) ns, bucket 0 also 0, and the
 * last, [2^62, 2^63), ends at INT64_MAX.
 */
static int store_latency(struct blk_state *st, const struct device *d, int iv,
			 struct ra_stmt *q, struct ra_stmt *h)
{
	uint64_t n = d->latencies[iv], rank[3], count[63] = { 0 };
	int64_t at[3] = { 0 }, min = 0, max = 0, v;
	static const int ps[3] = { 50, 95, 99 };
	long double sum = 0;
	int rc;

	if (!n)
		return 0;
	for (int k = 0; k < 3; k++) {
		rank[k] = (n * (uint64_t)ps[k] + 99) / 100;
		rank[k] = rank[k] ? rank[k] - 1 : 0;
	}
	/* the sorter gives them device by device, interval by interval */
	for (uint64_t i = 0; (rc = next_latency(st, (int32_t)(d - st->devs), iv, &v)) == 1; i++) {
		int b = 0;

		while (b < 62 && (v >> (b + 1)) > 0)
			b++;
		count[b]++;
		sum += v;
		if (!i)
			min = v;
		max = v;
		for (int k = 0; k < 3; k++)
			if (rank[k] == i)
				at[k] = v;
	}
	if (rc < 0)
		return -1;
	if (ra_sql_put(q, "iitiidiiii", st->run_id, (int64_t)d->dev, iv_names[iv], (int64_t)n, min,
		       (double)(sum / n), at[0], at[1], at[2], max) < 0)
		return -1;
	for (int b = 0; b < 63; b++)
		if (count[b] && ra_sql_put(h, "iitiii", st->run_id, (int64_t)d->dev, iv_names[iv],
					   (int64_t)(b ? 1LL << b : 0),
					   b < 62 ? (int64_t)1 << (b + 1) : INT64_MAX,
					   (int64_t)count[b]) < 0)
			return -1;
	return 0;
}

static int store_device(struct blk_state *st, const struct device *d, struct ra_stmt *q)
{
	return ra_sql_put(q, "iiiiiiiiiiiiiiiiiii", st->run_id, (int64_t)d->dev,
			  (int64_t)d->reads, (int64_t)d->sectors_read, (int64_t)d->writes,
			  (int64_t)d->sectors_written, (int64_t)d->queued, (int64_t)d->getrq,
			  (int64_t)d->inserts, (int64_t)d->issues, (int64_t)d->merges_back,
			  (int64_t)d->merges_front, (int64_t)d->requeues, (int64_t)d->splits,
			  (int64_t)d->remaps, (int64_t)d->orphans, (int64_t)d->errors,
			  (int64_t)d->ra_requests, (int64_t)d->ra_bytes);
}

/*
 * The union of a device's time spans, read in order of their starts from a
 * query of (lo, hi) rows, and how much of (lo, hi] it covers, for intervals
 * that come in increasing time (as ra_span_cover): only the merged spans that
 * reach into the latest interval are held.
 */
struct span_feed {
	struct ra_xsort *x;		/* the spans of device dev, from a sorter */
	uint32_t dev;
	struct ra_span next;		/* the span read ahead */
	bool has_next;
	struct ra_span *u;		/* merged spans, u[head..n) still reach the time */
	int head, n, cap;
};

/* A span of a device in a sorter: by device, start, end. */
struct dev_span {
	int64_t lo, hi;
	uint32_t dev;
	uint32_t pad;
};

static int cmp_dev_span(const void *a, const void *b)
{
	const struct dev_span *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

static int feed_pull(struct span_feed *f)
{
	const struct dev_span *p;
	struct dev_span sp;

	/* the spans of the devices before (those their windows did not reach) are passed */
	while ((p = ra_xsort_peek(f->x)) && p->dev < f->dev)
		if (ra_xsort_next(f->x, &sp) < 0)
			return -1;
	f->has_next = p && p->dev == f->dev;
	if (f->has_next) {
		if (ra_xsort_next(f->x, &sp) < 0)
			return -1;
		f->next = (struct ra_span){ sp.lo, sp.hi };
	}
	return ra_xsort_failed(f->x) ? -1 : 0;
}

static int feed_begin(struct span_feed *f, struct ra_xsort *x, uint32_t blkdev)
{
	memset(f, 0, sizeof(*f));
	f->x = x;
	f->dev = blkdev;
	return feed_pull(f);
}

static void feed_end(struct span_feed *f)
{
	free(f->u);
}

static int feed_push(struct span_feed *f, struct ra_span sp)
{
	if (f->head == f->n)
		f->head = f->n = 0;
	if (f->n == f->cap && f->head) {	/* the spans behind are done: move down */
		memmove(f->u, f->u + f->head, (size_t)(f->n - f->head) * sizeof(*f->u));
		f->n -= f->head;
		f->head = 0;
	}
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 16;
		struct ra_span *p = realloc(f->u, (size_t)cap * sizeof(*p));

		if (!p) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		f->u = p;
		f->cap = cap;
	}
	f->u[f->n++] = sp;
	return 0;
}

/* how much of (@lo, @hi] the spans cover; -1 on error */
static int64_t feed_cover(struct span_feed *f, int64_t lo, int64_t hi)
{
	int64_t sum = 0;

	while (f->head < f->n && f->u[f->head].hi <= lo)
		f->head++;
	/* every span starting before @hi, merged as ra_span_union() merges */
	while (f->has_next && f->next.lo < hi) {
		struct ra_span sp = f->next;

		if (sp.hi > sp.lo) {
			if (f->n > f->head && sp.lo <= f->u[f->n - 1].hi) {
				if (sp.hi > f->u[f->n - 1].hi)
					f->u[f->n - 1].hi = sp.hi;
			} else if (feed_push(f, sp) < 0) {
				return -1;
			}
		}
		if (feed_pull(f) < 0)
			return -1;
	}
	for (int i = f->head; i < f->n && f->u[i].lo < hi; i++) {
		int64_t a = f->u[i].lo > lo ? f->u[i].lo : lo, b = f->u[i].hi < hi ? f->u[i].hi : hi;

		if (b > a)
			sum += b - a;
	}
	return sum;
}

/* ---- the device time as windows complete ---- */

/*
 * The windows' device time is computed at the end, from every record, for
 * the reason @why: the rows written as windows left memory are deleted then.
 */
static void time_at_end(struct blk_state *st, const char *why)
{
	if (st->at_end)
		return;
	st->at_end = true;
	snprintf(st->at_end_why, sizeof(st->at_end_why), "%s", why);
	ra_slots_keep(st->wio, NULL, NULL);
}

static bool done_before(const struct done_rec *a, const struct done_rec *b)
{
	return a->last_c != b->last_c ? a->last_c < b->last_c : a->id < b->id;
}

static int done_push(struct device *d, struct done_rec r)
{
	int i;

	if (ra_grow((void **)&d->done, &d->capdone, (size_t)d->ndone + 1, sizeof(*d->done)) < 0)
		return -1;
	for (i = d->ndone++; i > 0 && done_before(&r, &d->done[(i - 1) / 2]); i = (i - 1) / 2)
		d->done[i] = d->done[(i - 1) / 2];
	d->done[i] = r;
	return 0;
}

static struct done_rec done_pop(struct device *d)
{
	struct done_rec top = d->done[0], last = d->done[--d->ndone];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= d->ndone)
			break;
		if (c + 1 < d->ndone && done_before(&d->done[c + 1], &d->done[c]))
			c++;
		if (!done_before(&d->done[c], &last))
			break;
		d->done[i] = d->done[c];
		i = c;
	}
	if (d->ndone)
		d->done[i] = last;
	return top;
}

/*
 * Window @id is final, its last request completed on a device: it waits
 * there, with the spans it was in flight and held, for the windows that
 * complete with it. One that would come before what was timed already
 * (its opens are not in order) leaves the time to the end.
 */
static int window_done(struct blk_state *st, int id, const struct window_io *w)
{
	struct device *d = device_of(st, w->blkdev);
	int64_t open = w->open_ts ? w->open_ts : w->first_q;

	if (!d) {
		time_at_end(st, "a window's device is not followed");
		return 0;
	}
	if (w->last_c <= d->timed_c || (open && open < d->timed_c)) {
		time_at_end(st, "a window completed before others already timed");
		return 0;
	}
	if (st->waiting >= WAITING_MAX) {
		time_at_end(st, "too many windows waited for their device's time");
		return 0;
	}
	if (done_push(d, (struct done_rec){ w->last_c, open, (int64_t)w->bytes, id }) < 0 ||
	    (open && ra_span_set_add(&d->fly, open, w->last_c) < 0) ||
	    (open && w->first_q > open && ra_span_set_add(&d->held, open, w->first_q) < 0)) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	st->waiting++;
	return 0;
}

/*
 * The windows of device @d that completed before @t, timed as
 * device_service() times them: no window that completes at @t or later, or
 * opens then, changes their time.
 */
static int time_device(struct blk_state *st, struct device *d, int64_t t)
{
	while (d->ndone && d->done[0].last_c < t) {
		int64_t c = d->done[0].last_c, prev = d->timed_c, lo = prev, busy, idle, hold;
		uint64_t bytes = 0;
		int ng = 0;

		while (d->ndone && d->done[0].last_c == c) {
			if (ra_grow((void **)&st->group, &st->capgroup, (size_t)ng + 1,
				    sizeof(*st->group)) < 0)
				return -1;
			st->group[ng++] = done_pop(d);
		}
		for (int j = 0; j < ng; j++) {
			if (!prev && st->group[j].open && (!lo || st->group[j].open < lo))
				lo = st->group[j].open;
			bytes += (uint64_t)st->group[j].bytes;
		}
		busy = lo && c >= lo ? ra_span_set_cover(&d->fly, lo, c) : -1;
		idle = busy >= 0 ? c - lo - busy : -1;
		hold = busy >= 0 ? ra_span_set_cover(&d->held, lo, c) : -1;
		for (int j = 0; j < ng; j++) {
			const struct done_rec *g = &st->group[j];
			double share = bytes ? (double)g->bytes / (double)bytes : 1.0 / ng;
			struct window_io *w = wio_at(st, g->id);

			if (!w)
				return -1;
			w->service = busy < 0 ? -1 : (int64_t)((double)busy * share);
			w->idle = idle < 0 ? -1 : (int64_t)((double)idle * share);
			w->held = hold < 0 ? -1 : (int64_t)((double)hold * share);
			w->timed = true;
		}
		st->waiting -= ng;
		st->timed_windows += ng;
		d->timed_c = c;
		ra_span_set_drop(&d->fly, c);
		ra_span_set_drop(&d->held, c);
	}
	return 0;
}

/* Whether a file system @fsdev is on a device the pass follows. */
static bool on_traced(struct blk_state *st, uint32_t fsdev)
{
	for (int i = 0; i < st->ndevs; i++)
		if (fs_on(st, fsdev, st->devs[i].dev))
			return true;
	return false;
}

/*
 * Whether window @id may still be owed a bio (owed_window): pages it added
 * that no bio carried, of a file system on a followed device. Followed
 * live, the readahead pass says how many it added (without the answer
 * kept for the check of owed_window's).
 */
static bool may_be_owed(struct blk_state *st, int id, const struct window_io *w)
{
	struct ra_live_window lw;
	int64_t left = w->outstanding;

	if (st->ra) {
		if (ra_live_window(st->ra, id - 1, &lw) < 0)
			return true;
		left += lw.pages_added * st->page_size;
	}
	return left > 0 && on_traced(st, w->fsdev);
}

/*
 * The windows final since the last call, then the times of the completions
 * before any window not final opened (@all: the events are over, every
 * window is final). A window is final when its I/O is done (none in
 * flight), its task's next window is open (or it saw nothing for
 * SETTLE_NS), and no bio may be owed to it (or it opened SETTLE_NS ago).
 * With more than LAG_MAX windows behind it, the oldest is final without
 * the last two, or with I/O in flight that saw nothing for SETTLE_NS (a
 * bio queued on a device-mapper device and again on its member completes
 * once). A window's bio or completion after it was final leaves the time
 * to the end (time_at_end).
 */
static int settle(struct blk_state *st, bool all)
{
	const struct window_io *w;
	int64_t t;

	while (!st->at_end && st->final_id <= st->nwindows) {
		bool pressed = st->nwindows - st->final_id > LAG_MAX;
		int64_t last;

		if (!(w = wio_peek(st, st->final_id)))
			return -1;
		last = w->open_ts > w->first_q ? w->open_ts : w->first_q;
		if (w->last_c > last)
			last = w->last_c;
		if (!all && w->bytes < w->queued && !(pressed && st->now - last > SETTLE_NS))
			break;
		if (!all && !pressed &&
		    ((w->holders > 0 && st->now - last <= SETTLE_NS) ||
		     (st->now - w->open_ts <= SETTLE_NS && may_be_owed(st, st->final_id, w))))
			break;
		if (w->bios && w->last_c && window_done(st, st->final_id, w) < 0)
			return -1;
		st->final_id++;
	}
	if (st->at_end)
		return 0;
	if (st->nwindows - st->final_id > 4 * LAG_MAX) {
		time_at_end(st, "a window's I/O stayed in flight too long");
		return 0;
	}
	t = all ? INT64_MAX : st->now;
	if (!all && st->final_id <= st->nwindows) {
		if (!(w = wio_peek(st, st->final_id)))
			return -1;
		if (w->open_ts && w->open_ts < t)
			t = w->open_ts;
		if (w->first_q && w->first_q < t)
			t = w->first_q;
	}
	for (int i = 0; i < st->ndevs; i++)
		if (st->devs[i].ndone && time_device(st, &st->devs[i], t) < 0)
			return -1;
	return 0;
}

/* A window with I/O: its row, given to the model's inputs unless it was */
static int put_wio_row(struct blk_state *st, struct ra_batch *q, int id, struct window_io *w,
		       int64_t service, int64_t idle, int64_t held)
{
	int rc = ra_batch_put(q, "ixiiizzjijjj", st->run_id, id, (int64_t)w->bios,
			    (int64_t)w->requests, (int64_t)w->bytes, w->first_q, w->last_c,
			    w->sync && w->first_c && w->open_ts ? w->first_c - w->open_ts : -1,
			    (int64_t)w->ab, service, idle, held);

	if (rc == 0 && st->feed && !w->fed) {
		struct ra_feed_io io = { .dev = w->fsdev, .ts = w->ts, .stream = w->stream,
					 .size = w->size, .bytes = (int64_t)w->bytes,
					 .service = service, .idle = idle, .held = held,
					 .last_c = w->last_c };

		ra_model_feed_io(st->feed, &io);
		w->fed = true;
	}
	return rc;
}

/* A final window's row with the time it was given (none: -1), written again if it was */
static int put_timed(struct blk_state *st, int id, struct window_io *w)
{
	if (!st->put_row &&
	    !(st->put_row = ra_batch_new(st->db, "INSERT OR REPLACE INTO window_io (run_id,"
					 " window_id, bios, requests, bytes, first_q_ts_ns,"
					 " last_c_ts_ns, sync_wait_ns, shared_bios, service_ns,"
					 " idle_ns, held_ns)", 12)))
		return -1;
	return put_wio_row(st, st->put_row, id, w, w->timed ? w->service : -1,
			   w->timed ? w->idle : -1, w->timed ? w->held : -1);
}

/* A window's record written out of memory: its row too, when it is final and timed. */
static int keep_wio(int64_t id, void *rec, void *arg)
{
	struct blk_state *st = arg;
	struct window_io *w = rec;

	if (id + 1 >= st->final_id || (w->bios && w->last_c && !w->timed))
		return 0;
	if (w->bios && put_timed(st, (int)id + 1, w) < 0)
		return -1;
	st->rows_kept += w->bios != 0;
	return 1;
}

static int timed_row(int64_t id, void *rec, void *arg)
{
	struct window_io *w = rec;

	return w->bios ? put_timed(arg, (int)id + 1, w) : 0;
}

/* A window completed by one completion of a device. */
struct done_win {
	int id;
	int64_t open, bytes;
};

/*
 * The windows with I/O in the order the devices completed them, through
 * sorters (xsort.c; in memory up to ORDER_MEM windows, or window_slots):
 * the windows by completion, the spans they were in flight and held, and
 * their device time by id.
 */
struct order_rec {
	int64_t last_c, open, first_q, bytes;
	int32_t id;
	uint32_t blkdev;
};

struct svc_rec {
	int64_t id, service, idle, held;
};

struct order_set {
	struct ra_xsort *byc, *fly, *held, *times;
};

/* The next window of block device @dev by completion into @d and @c; 1 one, 0 none left, -1 */
static int done_next(struct order_set *os, uint32_t dev, struct done_win *d, int64_t *c)
{
	const struct order_rec *p = ra_xsort_peek(os->byc);
	struct order_rec r;

	if (!p)
		return ra_xsort_failed(os->byc) ? -1 : 0;
	if (p->blkdev != dev)
		return 0;
	if (ra_xsort_next(os->byc, &r) < 0)
		return -1;
	*d = (struct done_win){ .id = r.id, .open = r.open, .bytes = r.bytes };
	*c = r.last_c;
	return 1;
}

/*
 * The windows of block device @blkdev by last completion. Each completion
 * interval, from the previous window's completion to this one's, splits into
 * the time some window was in flight (the service: queueing behind an
 * earlier window left out), the time none was (idle: the device waited for
 * its readers), and, inside the service, the time a window was held above
 * the block layer before its first bio was queued (a throttle). Windows
 * completed together (an "AB" merge) share by their bytes.
 */
static int device_service(struct blk_state *st, struct order_set *os, uint32_t blkdev)
{
	struct span_feed fly = { 0 }, held = { 0 };
	struct done_win *g = NULL, d = { 0 };
	int ng = 0, cap = 0, rc = 0, ret = -1;
	int64_t prev = 0, c = 0, dc = 0;
	bool more;

	if (feed_begin(&fly, os->fly, blkdev) < 0 || feed_begin(&held, os->held, blkdev) < 0)
		goto out;
	rc = done_next(os, blkdev, &d, &dc);
	for (more = rc == 1; rc >= 0 && (more || ng);) {
		int64_t lo, busy, idle, hold;
		uint64_t bytes = 0;

		if (more && (!ng || dc == c)) {	/* a window of the group */
			if (ng == cap) {
				struct done_win *p = realloc(g, (size_t)(cap = cap ? cap * 2 : 16) *
							      sizeof(*p));

				if (!p)
					goto out;
				g = p;
			}
			g[ng++] = d;
			c = dc;
			more = (rc = done_next(os, blkdev, &d, &dc)) == 1;
			continue;
		}
		/* the group of completion c is whole */
		lo = prev;
		for (int j = 0; j < ng; j++) {
			if (!prev && g[j].open && (!lo || g[j].open < lo))
				lo = g[j].open;
			bytes += (uint64_t)g[j].bytes;
		}
		busy = lo && c >= lo ? feed_cover(&fly, lo, c) : -1;
		idle = busy >= 0 ? c - lo - busy : -1;
		hold = busy >= 0 ? feed_cover(&held, lo, c) : -1;
		if ((lo && c >= lo && busy < 0) || (busy >= 0 && hold < 0))
			goto out;
		for (int j = 0; j < ng; j++) {
			double share = bytes ? (double)g[j].bytes / (double)bytes : 1.0 / ng;
			struct svc_rec t = { g[j].id, busy < 0 ? -1 : (int64_t)((double)busy * share),
					     idle < 0 ? -1 : (int64_t)((double)idle * share),
					     hold < 0 ? -1 : (int64_t)((double)hold * share) };

			if (ra_xsort_put(os->times, &t) < 0)
				goto out;
		}
		prev = c;
		ng = 0;
	}
	ret = rc < 0 ? -1 : 0;
out:
	feed_end(&fly);
	feed_end(&held);
	free(g);
	return ret;
}

static int cmp_order(const void *a, const void *b)
{
	const struct order_rec *x = a, *y = b;

	if (x->blkdev != y->blkdev)
		return x->blkdev < y->blkdev ? -1 : 1;
	if (x->last_c != y->last_c)
		return x->last_c < y->last_c ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_svc(const void *a, const void *b)
{
	const struct svc_rec *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The sorters of @max windows with I/O in memory: half of it for the
 * windows, a sixth for each of the spans and the device times.
 */
static int order_begin(struct order_set *os, int max)
{
	size_t mem = (size_t)max * sizeof(struct order_rec);

	if (!(os->byc = ra_xsort_new(sizeof(struct order_rec), cmp_order, mem / 2)) ||
	    !(os->fly = ra_xsort_new(sizeof(struct dev_span), cmp_dev_span, mem / 6)) ||
	    !(os->held = ra_xsort_new(sizeof(struct dev_span), cmp_dev_span, mem / 6)) ||
	    !(os->times = ra_xsort_new(sizeof(struct svc_rec), cmp_svc, mem / 6)))
		return -1;
	return 0;
}

static void order_release(struct order_set *os)
{
	ra_xsort_free(os->byc);
	ra_xsort_free(os->fly);
	ra_xsort_free(os->held);
	ra_xsort_free(os->times);
}

/* A window with I/O into the sorters: by completion, and its spans. */
static int order_row(int64_t id, void *rec, void *arg)
{
	const struct window_io *w = rec;
	struct order_set *os = arg;
	struct order_rec r;
	struct dev_span f, h;

	if (!w->bios || !w->last_c)
		return 0;
	r = (struct order_rec){ .id = (int32_t)(id + 1), .blkdev = w->blkdev, .last_c = w->last_c,
				.open = w->open_ts ? w->open_ts : w->first_q,
				.first_q = w->first_q, .bytes = (int64_t)w->bytes };
	f = (struct dev_span){ r.open, r.last_c, r.blkdev, 0 };
	h = (struct dev_span){ r.open, r.first_q, r.blkdev, 0 };
	if (ra_xsort_put(os->byc, &r) < 0 || (r.open && ra_xsort_put(os->fly, &f) < 0) ||
	    (r.open && r.first_q > r.open && ra_xsort_put(os->held, &h) < 0))
		return -1;
	return 0;
}

/*
 * The device time of every window with I/O: device_service() per block
 * device, over its windows in the order the device completed them.
 */
static int window_service(struct blk_state *st, struct order_set *os)
{
	const struct order_rec *p;

	if (ra_slots_each(st->wio, order_row, os) < 0 || ra_xsort_end(os->byc) < 0 ||
	    ra_xsort_end(os->fly) < 0 || ra_xsort_end(os->held) < 0)
		return -1;
	/* each device's windows come in turn: the first left names the next device */
	while ((p = ra_xsort_peek(os->byc)))
		if (device_service(st, os, p->blkdev) < 0)
			return -1;
	return ra_xsort_failed(os->byc) || ra_xsort_end(os->times) < 0 ? -1 : 0;
}

/* The windows' rows, in id order, with their device time read alongside. */
struct row_ctx {
	struct blk_state *st;
	struct ra_batch *q;		/* the rows' insert */
	struct ra_xsort *times;		/* the device times by id */
	struct svc_rec next;		/* the device time read ahead */
	int rc;				/* of its reading: 1 one, 0 none left, -1 error */
};

static int window_row(int64_t id, void *rec, void *arg)
{
	struct window_io *w = rec;
	struct row_ctx *c = arg;
	int64_t service = -1, idle = -1, held = -1;

	while (c->rc == 1 && c->next.id <= id + 1) {
		if (c->next.id == id + 1) {
			service = c->next.service;
			idle = c->next.idle;
			held = c->next.held;
		}
		c->rc = ra_xsort_next(c->times, &c->next);
	}
	if (c->rc < 0)
		return -1;
	w->fed = false;		/* the rows written before are not the run's */
	return w->bios ? put_wio_row(c->st, c->q, (int)id + 1, w, service, idle, held) : 0;
}

/*
 * The windows' rows: those not written as they left memory, with the time
 * they were given as they completed; or all, their time computed here.
 */
static int store_windows_io(struct blk_state *st, struct ra_batch *q, int slots)
{
	struct order_set os = { 0 };
	struct row_ctx c = { .st = st, .q = q };
	int ret = -1;

	if (!st->at_end && settle(st, true) < 0)
		return -1;
	if (!st->at_end)
		return ra_slots_each(st->wio, timed_row, st) < 0 ||
		       (st->put_row && ra_batch_flush(st->put_row) < 0) ? -1 : 0;
	/* the rows written before, those of the batch too, deleted */
	if (st->rows_kept && ((st->put_row && ra_batch_flush(st->put_row) < 0) ||
			      ra_sql_exec(st->db, "DELETE FROM window_io WHERE run_id = ?", "i",
					  st->run_id) < 0))
		return -1;
	ra_model_feed_io_again(st->feed);
	if (order_begin(&os, slots > 0 ? slots : ORDER_MEM) < 0 || window_service(st, &os) < 0)
		goto out;
	c.times = os.times;
	c.rc = ra_xsort_next(c.times, &c.next);
	ret = c.rc < 0 ? -1 : ra_slots_each(st->wio, window_row, &c);
	if (ret == 0)
		ret = ra_batch_flush(q);
out:
	order_release(&os);
	return ret;
}

/* A row per device with plugs: explicit and timer unplugs NULL when the source does not say. */
static int store_plugs(struct blk_state *st, struct ra_stmt *q)
{
	bool known = !st->unplug_kind_unknown;

	for (int i = 0; i < st->ndevs; i++) {
		const struct device *d = &st->devs[i];

		if (!d->plugs && !d->unplugs && !d->plugged_bios)
			continue;
		if (ra_sql_put(q, "iiiijjii", st->run_id, (int64_t)d->dev, (int64_t)d->plugs,
			       (int64_t)d->unplugs, known ? (int64_t)d->unplug_explicit : -1,
			       known ? (int64_t)d->unplug_timer : -1, (int64_t)d->unplug_rqs,
			       (int64_t)d->plugged_bios) < 0)
			return -1;
	}
	return 0;
}

static int store_all(struct blk_state *st)
{
	struct ra_stmt *dq = NULL, *lq = NULL, *hq = NULL, *pq = NULL;
	struct ra_batch *wq = NULL;
	int ret = -1;

	if (ra_xsort_end(st->samples) < 0 || ra_batch_flush(st->ins_req) < 0)
		goto out;

	dq = ra_sql_prepare(st->db, "INSERT INTO device_io (run_id, dev, reads_completed,"
			    " sectors_read, writes_completed, sectors_written, bios_queued, getrq,"
			    " inserts, issues, back_merges, front_merges, requeues, splits, remaps,"
			    " unmatched_completions, errors, ra_requests, ra_bytes)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	lq = ra_sql_prepare(st->db, "INSERT INTO device_latency (run_id, dev, interval, n, min_ns,"
			    " avg_ns, p50_ns, p95_ns, p99_ns, max_ns)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	hq = ra_sql_prepare(st->db, "INSERT INTO latency_hist (run_id, dev, interval, lo_ns, hi_ns,"
			    " n) VALUES (?, ?, ?, ?, ?, ?)");
	wq = ra_batch_new(st->db, "INSERT INTO window_io (run_id, window_id, bios, requests, bytes,"
			  " first_q_ts_ns, last_c_ts_ns, sync_wait_ns, shared_bios, service_ns,"
			  " idle_ns, held_ns)", 12);
	pq = ra_sql_prepare(st->db, "INSERT INTO plugs (run_id, dev, plugs, unplugs,"
			    " unplugs_explicit, unplugs_timer, unplug_requests, plugged_bios)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
	if (!dq || !lq || !hq || !wq || !pq)
		goto out;
	for (int i = 0; i < st->ndevs; i++) {
		if (store_device(st, &st->devs[i], dq) < 0)
			goto out;
		for (int iv = 0; iv < IV_MAX; iv++)
			if (store_latency(st, &st->devs[i], iv, lq, hq) < 0)
				goto out;
	}
	ra_xsort_free(st->samples);	/* read: its memory for the windows' order */
	st->samples = NULL;
	if (store_windows_io(st, wq, st->slots) < 0 || store_plugs(st, pq) < 0)
		goto out;
	ret = 0;
out:
	ra_sql_finalize(dq);
	ra_sql_finalize(lq);
	ra_sql_finalize(hq);
	ra_batch_free(wq);
	ra_sql_finalize(pq);
	return ret;
}

static void state_free(struct blk_state *st)
{
	if (!st)
		return;
	for (int i = 0; i < st->ndevs; i++) {
		ra_map_release(&st->devs[i].pending);
		ra_map_release(&st->devs[i].by_start);
		ra_map_release(&st->devs[i].by_end);
	}
	for (int i = 0; i < st->nreqs; i++)
		free(st->reqs[i].bios);
	free(st->reqs);
	free(st->free_reqs);
	/* no statement left running: the records' table is dropped */
	ra_sql_finalize(st->wins);
	ra_batch_free(st->ins_req);
	ra_sql_finalize(st->ins_stall);
	ra_batch_free(st->put_row);
	ra_slots_free(st->wio);
	for (int i = 0; i < st->ndevs; i++) {
		free(st->devs[i].done);
		ra_span_set_free(&st->devs[i].fly);
		ra_span_set_free(&st->devs[i].held);
	}
	free(st->group);
	free(st->splits);
	ra_map_release(&st->task_window);
	ra_map_release(&st->plug_tasks);
	ra_map_release(&st->fs_blk);
	ra_map_release(&st->fs_asked);
	ra_map_release(&st->skipped_devs);
	ra_xsort_free(st->samples);
	free(st);
}

/*
 * The state of a pass over run @run_id, with @slots windows' records in
 * memory (0: WIO_SLOTS) and @max_samples latencies in their sorter's
 * memory (0: SAMPLES_MAX).
 */
static struct blk_state *state_new(struct ra_db *db, int64_t run_id, int slots,
				   int64_t stall_ns, int max_samples)
{
	struct blk_state *st = calloc(1, sizeof(*st));

	if (!st) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	st->db = db;
	st->run_id = run_id;
	st->slots = slots;
	st->stall_ns = stall_ns > 0 ? stall_ns : DEFAULT_STALL_NS;
	st->samples = ra_xsort_new(sizeof(struct sample_rec), cmp_sample,
				   (size_t)(max_samples > 0 ? max_samples : SAMPLES_MAX) *
				   sizeof(struct sample_rec));
	if (ra_map_init(&st->task_window, sizeof(int32_t)) < 0 ||
	    ra_map_init(&st->plug_tasks, sizeof(struct plug_task)) < 0 ||
	    ra_map_init(&st->fs_blk, 1) < 0 || ra_map_init(&st->fs_asked, 1) < 0 ||
	    ra_map_init(&st->skipped_devs, 1) < 0)
		goto fail;
	st->ins_req = ra_batch_new(db, "INSERT INTO requests (run_id, dev, req_id, sector,"
				   " nr_sector, rwbs, bios, q_ts_ns, g_ts_ns, i_ts_ns, d_ts_ns,"
				   " c_ts_ns, error, window_id, windows)", 15);
	st->ins_stall = ra_sql_prepare(db, "INSERT INTO stalls (run_id, dev, q_ts_ns, pid, sector,"
				       " nr_sector, stall_ns, window_id)"
				       " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
	st->wio = ra_slots_new("the block pass's windows", sizeof(struct window_io),
			       slots > 0 ? slots : WIO_SLOTS);
	if (!st->ins_req || !st->ins_stall || !st->wio || !st->samples)
		goto fail;
	st->final_id = 1;
	if (getenv("RATRACE_DEVICE_TIME") && !strcmp(getenv("RATRACE_DEVICE_TIME"), "end"))
		time_at_end(st, "asked for (RATRACE_DEVICE_TIME=end)");
	else
		ra_slots_keep(st->wio, keep_wio, st);
	return st;
fail:
	state_free(st);
	return NULL;
}

static int on_event(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct blk_state *st = arg;
	bool ra = ra_event_class(ev->type) == RA_CLASS_RA;
	int ret;

	st->now = (int64_t)ev->ts_ns;
	ret = ra ? on_readahead(st, ev, seq) : on_block(st, ev);
	if (ret == 0 && !st->at_end && (ra || ev->type == RA_EV_RQ_COMPLETE))
		ret = settle(st, false);
	return ra_slots_failed(st->wio) ? -1 : ret;	/* a record not read back */
}

/* The rows the events left: the open plugs ended, then the device's and windows' rows. */
static int state_end(struct blk_state *st, const struct ra_analyze_opts *o, char *note)
{
	plugs_finish(st);
	if (store_all(st) < 0)
		return -1;
	if (st->at_end)
		ra_pass_say(o, "block: the windows' device time computed at the end: %s",
			    st->at_end_why);
	else
		ra_pass_say(o, "block: the device time of %lld windows as they completed, %lld rows"
			    " written as they left", (long long)st->timed_windows,
			    (long long)st->rows_kept);
	if (st->skipped_events)
		snprintf(note, RA_PASS_NOTE, "%lld events of %zu block devices past the first %d"
			 " were left out (record fewer with -d)", (long long)st->skipped_events,
			 st->skipped_devs.n, MAX_DEVS);
	ra_pass_say(o, "block: %d devices, %lld requests", st->ndevs, (long long)st->req_seq);
	return 0;
}

/* ---- fed as the events are stored ---- */

/*
 * While ra-record stores a run, the pass follows its events beside the
 * readahead pass (fed each event first), taking the windows from it: the
 * requests and stalls are written as they end, the rest at the end. What it
 * could not know then is checked at the end: the readahead pass's rows came
 * from the same state; the pages a window added, where a bio of no open
 * window asked them, were all it added; the partitions traced without
 * their disk, and the recorder's answers of which devices a file system is
 * on, are the run's rows. Where one does not hold, its rows are
 * deleted and the stored events read again.
 */
struct ra_block_live {
	struct blk_state *st;
	bool followed;		/* its state gave the run's rows (run_block) */
};

struct ra_block_live *ra_block_live_begin(struct ra_db *db, int64_t run_id, struct ra_live *ra,
					  const struct ra_live_inputs *in)
{
	struct ra_block_live *lv = calloc(1, sizeof(*lv));

	if (!lv || !(lv->st = state_new(db, run_id, in->window_slots, 0, in->latencies_held))) {
		if (!lv)
			ra_set_error(RA_ERR_IO, "out of memory");
		free(lv);
		return NULL;
	}
	lv->st->ra = ra;
	lv->st->feed = ra_live_feed(ra);
	for (int i = 0; i < in->nparts && i < MAX_DEVS; i++)
		lv->st->parts[lv->st->nparts++] = (struct part){
			.disk = in->parts[i].disk, .dev = in->parts[i].dev,
			.start = in->parts[i].start,
			.end = in->parts[i].start + in->parts[i].nr_sectors };
	lv->st->fs_holds = in->fs_holds;
	lv->st->fs_arg = in->arg;
	lv->st->page_size = in->page_size > 0 ? in->page_size : 4096;
	return lv;
}

int ra_block_live_event(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct ra_block_live *lv = arg;
	int cls = ra_event_class(ev->type);

	if (lv->st->live_failed || (cls != RA_CLASS_RA && cls != RA_CLASS_BLK))
		return 0;
	if (on_event(ev, seq, lv->st) < 0)
		live_fail(lv->st, ra_last_error());
	return 0;
}

void ra_block_live_free(struct ra_block_live *lv)
{
	if (!lv)
		return;
	state_free(lv->st);
	free(lv);
}

bool ra_block_live_rows(const struct ra_analyze_opts *o, int64_t run_id)
{
	return o && o->block_live && o->block_live->st->run_id == run_id;
}

bool ra_block_live_followed(const struct ra_analyze_opts *o, int64_t run_id)
{
	return ra_block_live_rows(o, run_id) && o->block_live->followed;
}

/* Whether @p is one of the partitions the pass followed. */
static bool same_part(const struct blk_state *st, const struct part *p)
{
	for (int i = 0; i < st->nparts; i++)
		if (!memcmp(&st->parts[i], p, sizeof(*p)))
			return true;
	return false;
}

/* Whether what the pass could not know held: 1, or 0 with @why, or -1. */
static int live_check(struct blk_state *st, const struct ra_analyze_opts *o, char *why,
		      size_t len)
{
	struct part parts[MAX_DEVS];
	struct ra_live_window lw;
	int nparts = 0;

	if (o->stall_ns > 0 && o->stall_ns != st->stall_ns)
		live_fail(st, "the stall threshold is not the one followed");
	if (!st->live_failed && !ra_live_followed(st->ra))
		live_fail(st, "the readahead pass read the stored events again");
	if (!st->live_failed && window_of_seq(st, INT64_MAX) < 0)
		live_fail(st, ra_last_error());
	for (int id = st->asked_lo; !st->live_failed && id && id <= st->asked_hi; id++) {
		const struct window_io *w = wio_peek(st, id);

		if (!w || ra_live_window(st->ra, id - 1, &lw) < 0)
			live_fail(st, "a window's record was not kept");
		else if (w->seen_added >= 0 && (w->varied || w->seen_added != lw.pages_added))
			live_fail(st, "a window added pages after a bio of no window asked for them");
	}
	if (!st->live_failed && (load_parts(st->db, st->run_id, parts, &nparts) < 0 ||
				 load_fs_devices(st) < 0))
		return -1;
	for (int i = 0; !st->live_failed && i < nparts; i++)
		if (!same_part(st, &parts[i]))
			live_fail(st, "the partitions traced without their disk were not the run's");
	if (!st->live_failed && nparts != st->nparts)
		live_fail(st, "the partitions traced without their disk were not the run's");
	for (size_t i = 0; !st->live_failed && i < st->fs_asked.cap; i++) {
		const char *said = (const char *)st->fs_asked.vals + i * st->fs_asked.val_size;

		if (st->fs_asked.keys[i] &&
		    (*said == 2) != (ra_map_get(&st->fs_blk, st->fs_asked.keys[i]) != NULL))
			live_fail(st, "a file system's devices were not the run's");
	}
	if (st->live_failed)
		snprintf(why, len, "%s", st->live_why);
	return !st->live_failed;
}

static int run_block(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o,
		     char *note)
{
	struct blk_state *st = NULL;
	int ret = -1;

	if (ra_block_live_rows(o, run_id)) {
		char why[300];
		int ok = live_check(o->block_live->st, o, why, sizeof(why));

		if (ok < 0)
			goto out;
		if (ok) {
			ra_pass_say(o, "block: followed as the events were stored");
			o->block_live->followed = true;
			ret = state_end(o->block_live->st, o, note);
			goto out;
		}
		ra_pass_say(o, "block: reading the stored events again: %s", why);
		if (ra_pass_clear(db, &ra_pass_block, run_id) < 0)
			goto out;
	}
	st = state_new(db, run_id, o ? o->window_slots : 0, o ? o->stall_ns : 0,
		       o ? o->latencies_held : 0);
	if (!st || load_parts(db, run_id, st->parts, &st->nparts) < 0 || load_fs_devices(st) < 0 ||
	    windows_begin(st) < 0 ||
	    ra_evstream_each(db, run_id, RA_STREAM_RA | RA_STREAM_BLK, on_event, st) < 0 ||
	    window_of_seq(st, INT64_MAX) < 0 || ra_slots_failed(st->wio) ||
	    state_end(st, o, note) < 0)
		goto out;
	ret = 0;
out:
	if (ret < 0 && ra_last_error_kind() != RA_ERR_IO) {
		char why[256];

		snprintf(why, sizeof(why), "%s", ra_last_error());
		ra_set_error(RA_ERR_IO, "block analysis of run %lld in '%s': %s", (long long)run_id,
			     ra_db_path(db), why);
	}
	state_free(st);
	return ret;
}

static const char *const block_needs[] = { "block:block_rq_complete", NULL };
static const char *const block_tables[] = { "requests", "stalls", "device_io", "device_latency",
					    "latency_hist", "window_io", "plugs", NULL };

const struct ra_pass ra_pass_block = {
	.name = "block",
	.needs = block_needs,
	.run = run_block,
	.live_rows = ra_block_live_rows,
	.tables = block_tables,
};
