// SPDX-License-Identifier: LGPL-2.1
/*
 * The readahead replay (analyze/replay.h) on hand-built accesses whose
 * windows are known. Every expected value here was derived by hand from
 * the specification of each series' readahead (mm/readahead.c and the read
 * paths of mm/filemap.c: get_init_ra_size, get_next_ra_size, the 6.17
 * alignment trim, the folio orders of page_cache_ra_order, context
 * readahead, read-around, force_page_cache_ra), step by step in the
 * comments, not taken from the replay's output; the window counts of the
 * sequential read of 16 MiB at 128 KiB are those docs/kernels.md recorded
 * under each series (131, 131, 132, 134, 134, 133, 133).
 */
#include "events.h"
#include "replay.h"

#define INO 12
#define FILE_PAGES 4096		/* 16 MiB */

/* What the replay emitted */
static struct ra_event *out;
static size_t nout, capout;

/* The file the replay is told of */
static struct {
	const char *fstype;
	int64_t size;
	uint32_t ra_pages, io_pages;
} cfg;

static uint64_t clock_ns;
static int tasks_held;		/* the replays' tasks in memory, 0 the default */

static int collect(const struct ra_event *ev, void *arg)
{
	(void)arg;
	if (nout == capout) {
		capout = capout ? capout * 2 : 4096;
		out = realloc(out, capout * sizeof(*out));
		if (!out)
			return -1;
	}
	out[nout++] = *ev;
	return 0;
}

static int file_cb(uint32_t dev, uint64_t ino, struct ra_replay_file *f, void *arg)
{
	(void)dev, (void)ino, (void)arg;
	f->size_bytes = cfg.size;
	f->fstype = cfg.fstype;
	f->ra_pages = cfg.ra_pages;
	f->io_pages = cfg.io_pages;
	return 0;
}

/* Tasks 1000 and up are threads of process 1000; the others their own */
static int tgid_cb(int pid, void *arg)
{
	(void)arg;
	return pid >= 1000 ? 1000 : 0;
}

/* The file: on ext4 (unless told otherwise), 128 KiB (unless told), 16 MiB */
static void setup(const char *fstype, uint32_t ra_pages)
{
	nout = 0;
	clock_ns = 1000;
	cfg.fstype = fstype ? fstype : "ext4";
	cfg.size = (int64_t)FILE_PAGES * 4096;
	cfg.ra_pages = ra_pages ? ra_pages : 32;
	cfg.io_pages = 320;
}

/* A replay of @series of that file */
static struct ra_replay *start(int series, const char *fstype, uint32_t ra_pages)
{
	struct ra_replay_params p = { .series = series, .policy = RA_POLICY_KERNEL,
				      .file = file_cb, .tgid = tgid_cb, .emit = collect,
				      .tasks_held = tasks_held };
	struct ra_replay *r;

	setup(fstype, ra_pages);
	r = ra_replay_alloc(&p);
	CHECK(r != NULL);
	return r;
}

static void feed(struct ra_replay *r, struct ra_event *ev, int type, int pid)
{
	ev->type = (uint16_t)type;
	ev->pid = pid;
	ev->ts_ns = clock_ns++;
	CHECK_INT(ra_replay_event(r, ev), 0);
}

/* mm_filemap_get_pages, mm_filemap_map_pages, mm_filemap_fault of the run */
static void acc(struct ra_replay *r, int type, int pid, uint64_t first, uint64_t last)
{
	struct ra_event ev = { .has_mask = type == RA_EV_FAULT ? 0 : RA_HAS_LAST_INDEX,
			       .page = { .dev = DEV, .ino = INO, .index = first,
					 .last_index = last } };

	feed(r, &ev, type, pid);
}

/* A readahead event of the run (dev 0: a WILLNEED call's entry) */
static void raev(struct ra_replay *r, int type, int pid, uint32_t dev, uint64_t index,
		  uint64_t n)
{
	struct ra_event ev = { .ra = { .dev = dev, .ino = dev ? INO : 0, .index = index,
				       .req_count = n, .size = (uint32_t)n } };

	feed(r, &ev, type, pid);
}

/*
 * A run's page cache knows only what the run added: a page accessed and
 * never added was cached before it. A cold file is one the run read in
 * (the adds of a readahead of task 1) and dropped before the reader came.
 */
static void cold(struct ra_replay *r, uint64_t first, uint64_t n)
{
	struct ra_event ev = { .has_mask = RA_HAS_ORDER, .page = { .dev = DEV, .ino = INO } };

	raev(r, RA_EV_RA_UNBOUNDED, 1, DEV, first, n);
	for (int type = RA_EV_PAGE_ADD; type <= RA_EV_PAGE_DELETE; type++)
		for (uint64_t i = first; i < first + n; i++) {
			ev.page.index = i;
			feed(r, &ev, type, 1);
		}
	nout = 0;
}

/* read() of @pages pages at a time from page @from to @to, by task @pid */
static void read_seq(struct ra_replay *r, int pid, uint64_t from, uint64_t to, uint64_t pages)
{
	for (uint64_t i = from; i < to; i += pages)
		acc(r, RA_EV_GET_PAGES, pid, i, i + pages - 1);
}

/* A window as the readahead pass takes it from the events: its trigger and itself */
struct win {
	int trig;		/* RA_EV_SYNC_RA, RA_EV_ASYNC_RA, 0 none */
	uint64_t tindex, treq, start;
	uint32_t size, async, order;
	int kind;		/* RA_EV_RA_ORDER or RA_EV_RA_UNBOUNDED */
	uint32_t mmap_miss;	/* of the trigger */
	int pid;
};

static struct win wins[8192];
static int nwins;

/* The emitted windows: an order-0 fallback inside the window before is not one */
static void windows(void)
{
	struct win pend = { 0 };
	const struct ra_event *last_order = NULL;

	nwins = 0;
	for (size_t i = 0; i < nout && nwins < 8192; i++) {
		const struct ra_event *ev = &out[i];

		if (ev->type == RA_EV_SYNC_RA || ev->type == RA_EV_ASYNC_RA) {
			pend = (struct win){ .trig = ev->type, .tindex = ev->ra.index,
					     .treq = ev->ra.req_count,
					     .mmap_miss = ev->ra.mmap_miss };
			last_order = NULL;
			continue;
		}
		if (ev->type != RA_EV_RA_ORDER && ev->type != RA_EV_RA_UNBOUNDED)
			continue;
		if (ev->type == RA_EV_RA_UNBOUNDED && last_order &&
		    ev->ra.index >= last_order->ra.index &&
		    ev->ra.index < last_order->ra.index + last_order->ra.size)
			continue;
		wins[nwins] = pend;
		wins[nwins].start = ev->ra.index;
		wins[nwins].size = ev->ra.size;
		wins[nwins].async = ev->ra.async_size;
		wins[nwins].order = ev->type == RA_EV_RA_ORDER ? ev->ra.order : 0;
		wins[nwins].pid = ev->pid;
		wins[nwins++].kind = ev->type;
		pend = (struct win){ 0 };
		last_order = ev->type == RA_EV_RA_ORDER ? ev : NULL;
	}
}

/* The largest folio order the window's pages were added in */
static unsigned int order_used(const struct win *win)
{
	unsigned int o = 0;

	for (size_t i = 0; i < nout; i++)
		if (out[i].type == RA_EV_PAGE_ADD && out[i].page.index >= win->start &&
		    out[i].page.index < win->start + win->size && out[i].page.order > o)
			o = out[i].page.order;
	return o;
}

static int count(int type)
{
	int n = 0;

	for (size_t i = 0; i < nout; i++)
		n += out[i].type == type;
	return n;
}

/* Expected windows: trigger kind ('S', 'A', '-'), its page and pages asked, the window */
struct want {
	char trig;
	uint64_t tindex, treq, start;
	uint32_t size, async;
	int order;		/* -1: not checked */
};

static void check_windows(const char *what, const struct want *exp, int n)
{
	for (int i = 0; i < n && i < nwins; i++) {
		int trig = exp[i].trig == 'S' ? RA_EV_SYNC_RA :
			   exp[i].trig == 'A' ? RA_EV_ASYNC_RA : 0;
		bool ok = wins[i].trig == trig && wins[i].start == exp[i].start &&
			  wins[i].size == exp[i].size && wins[i].async == exp[i].async &&
			  (!trig || (wins[i].tindex == exp[i].tindex &&
				     wins[i].treq == exp[i].treq)) &&
			  (exp[i].order < 0 || wins[i].order == (uint32_t)exp[i].order);

		CHECK(ok);
		if (!ok)
			fprintf(stderr, "%s: window %d is %d %" PRIu64 "/%" PRIu64 " (%" PRIu64
				", %u, %u) o%u, expected %c %" PRIu64 "/%" PRIu64 " (%" PRIu64
				", %u, %u) o%d\n", what, i, wins[i].trig, wins[i].tindex,
				wins[i].treq, wins[i].start, wins[i].size, wins[i].async,
				wins[i].order, exp[i].trig, exp[i].tindex, exp[i].treq,
				exp[i].start,
				exp[i].size, exp[i].async, exp[i].order);
	}
	CHECK(nwins >= n);
}

static void finish(struct ra_replay *r)
{
	CHECK_INT(ra_replay_end(r), 0);
	windows();
}

/* ---- the sequential read of 16 MiB in 4 KiB reads at 128 KiB ---- */

/* 6.1, 6.12: ext4 without large folios, the ramp 4 8 16 32 */
static const struct want seq_612[] = {
	{ 'S', 0, 1, 0, 4, 3, 0 },	 { 'A', 1, 1, 4, 8, 8, 0 },
	{ 'A', 4, 1, 12, 16, 16, 0 },	 { 'A', 12, 1, 28, 32, 32, 0 },
	{ 'A', 28, 1, 60, 32, 32, 0 },	 { 'A', 60, 1, 92, 32, 32, 0 },
	{ 'A', 92, 1, 124, 32, 32, 0 },	 { 'A', 124, 1, 156, 32, 32, 0 },
};

/*
 * 6.16: ext4's large folios with the old order logic: the first window is
 * one order-2 folio, marked, so the first read hits its mark at once; each
 * window asks for the marked folio's order + 2 (the order column: the order
 * its folios are asked at)
 */
static const struct want seq_616[] = {
	{ 'S', 0, 1, 0, 4, 3, 2 },	 { 'A', 0, 1, 4, 8, 8, 3 },
	{ 'A', 4, 1, 12, 16, 16, 4 },	 { 'A', 12, 1, 28, 32, 32, 4 },
	{ 'A', 28, 1, 60, 32, 32, 4 },	 { 'A', 60, 1, 92, 32, 32, 4 },
	{ 'A', 92, 1, 124, 32, 32, 4 },	 { 'A', 124, 1, 156, 32, 32, 4 },
};

/*
 * 6.17 and later: ra->order + 2 per async window, the end trimmed to a
 * multiple of 2^min(order, 5): 4 8 4 8 8 16 16 32 (the order column: the
 * ra->order the trace shows, before the clamp)
 */
static const struct want seq_617[] = {
	{ 'S', 0, 1, 0, 4, 3, 0 },	 { 'A', 1, 1, 4, 8, 8, 2 },
	{ 'A', 4, 1, 12, 4, 4, 4 },	 { 'A', 12, 1, 16, 8, 8, 4 },
	{ 'A', 16, 1, 24, 8, 8, 5 },	 { 'A', 24, 1, 32, 16, 16, 5 },
	{ 'A', 32, 1, 48, 16, 16, 6 },	 { 'A', 48, 1, 64, 32, 32, 6 },
};

/* The order its folios had: 0 2 2 3 3 4 4 5 */
static const unsigned int seq_617_used[] = { 0, 2, 2, 3, 3, 4, 4, 5 };

static void test_seq_4k(void)
{
	static const struct {
		const char *release;
		const struct want *exp;
		int windows;
	} k[] = {
		{ "6.1.0-50-cloud-amd64", seq_612, 131 },
		{ "6.12.94+deb12-cloud-amd64", seq_612, 131 },
		{ "6.16.12+deb13-cloud-amd64", seq_616, 132 },
		{ "6.17.13+deb13-cloud-amd64", seq_617, 134 },
		{ "6.18.15+deb13-cloud-amd64", seq_617, 134 },
		{ "7.2.12+deb13-cloud-amd64", seq_617, 133 },
		{ "7.3.4+deb13-cloud-amd64", seq_617, 133 },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct ra_replay *r = start(ra_kseries_of(k[i].release), NULL, 32);

		cold(r, 0, FILE_PAGES);
		read_seq(r, 10, 0, FILE_PAGES, 1);
		finish(r);
		check_windows(k[i].release, k[i].exp, 8);
		CHECK_INT(nwins, k[i].windows);
		if (k[i].exp == seq_617)
			for (int j = 0; j < 8; j++)
				CHECK_INT(order_used(&wins[j]), seq_617_used[j]);
		if (k[i].exp == seq_616)	/* o2 o2 of W2, then o2 o3 o2 of W3 */
			CHECK_INT(order_used(&wins[2]), 3);
		/* a read of one page is one batch */
		CHECK_INT(count(RA_EV_GET_PAGES), FILE_PAGES);
		CHECK_INT(ra_replay_doubts(r, DEV, INO), 0);
		ra_replay_free(r);
	}
}

/*
 * The readahead pass on what the replay emitted gives the windows the run
 * recorded: at 6.18 the 134 windows of the worked example, the first
 * initial and the others subsequent (the trimmed ones continue their
 * stream), every readahead page used, the last window past the end empty.
 */
static void test_pass_rebuilds(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 1);
	finish(r);
	begin("replayed");
	for (size_t i = 0; i < nout; i++) {
		struct ra_event ev = out[i];

		ev.page.dev = ev.ra.dev = DEV;	/* a union: dev lies apart in the two */
		if (ra_event_class(ev.type) == RA_CLASS_RA)
			ev.ra.dev = DEV;
		else
			ev.page.dev = DEV;
		put(&ev, ev.type, ev.pid);
	}
	CHECK_STR(result("SELECT pattern, COUNT(*) FROM windows GROUP BY pattern ORDER BY 1"),
		  "initial|1;subsequent|133");
	CHECK_STR(result("SELECT sizes FROM streams"), "4 8 4 8x2 16x2 32x127");
	CHECK_STR(result("SELECT SUM(ra_pages_added), SUM(used), SUM(pending) FROM windows"),
		  "4095|4095|0");
	ra_replay_free(r);
}

/* ---- other read sizes and readahead sizes ---- */

/*
 * 64 KiB reads at 128 KiB: the first window is init(16) = 32 pages with 16
 * after the mark (32 - 16); each read that starts on a mark then opens the
 * next 32, in every series; 6.17 and later trim nothing (32 is aligned).
 * 4096 / 32 windows and, up to 7.1, one past the end from the last mark.
 */
static const struct want seq_64k[] = {
	{ 'S', 0, 16, 0, 32, 16, -1 },	  { 'A', 16, 16, 32, 32, 32, -1 },
	{ 'A', 32, 16, 64, 32, 32, -1 },  { 'A', 64, 16, 96, 32, 32, -1 },
	{ 'A', 96, 16, 128, 32, 32, -1 },
};

/*
 * 1 MiB reads at 128 KiB, io_pages 320: a read of 256 pages may read 256
 * (ractl_max_pages), init(256, 256) = 256 with 128 after the mark; the read
 * hits that mark with 128 pages left to read (max 128: next(256) = 128, but
 * a window never shrinks), then every read starts on the next mark.
 */
static const struct want seq_1m[] = {
	{ 'S', 0, 256, 0, 256, 128, -1 },     { 'A', 128, 128, 256, 256, 256, -1 },
	{ 'A', 256, 256, 512, 256, 256, -1 }, { 'A', 512, 256, 768, 256, 256, -1 },
	{ 'A', 768, 256, 1024, 256, 256, -1 },
};

static void test_seq_sizes(void)
{
	static const int series[] = { RA_KS_6_1, RA_KS_6_12, RA_KS_6_16, RA_KS_6_17, RA_KS_6_18,
				      RA_KS_7_2 };

	for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
		struct ra_replay *r = start(series[i], NULL, 32);

		cold(r, 0, FILE_PAGES);
		read_seq(r, 10, 0, FILE_PAGES, 16);
		finish(r);
		check_windows("64 KiB reads", seq_64k, 5);
		CHECK_INT(nwins, series[i] == RA_KS_7_2 ? 128 : 129);
		ra_replay_free(r);

		r = start(series[i], NULL, 32);
		cold(r, 0, FILE_PAGES);
		read_seq(r, 10, 0, FILE_PAGES, 256);
		finish(r);
		check_windows("1 MiB reads", seq_1m, 5);
		CHECK_INT(nwins, series[i] == RA_KS_7_2 ? 16 : 17);
		ra_replay_free(r);
	}
}

/*
 * 4 KiB reads at 16 KiB (ra_pages 4) on 6.18: init(1, 4) = 2, then next(2)
 * = 4 trimmed to the 4-aligned end 4 (2 pages), then 4 pages per window.
 * 6.12 has no trim: (2, 4, 4) and on, 1025 windows.
 */
static const struct want ra16_618[] = {
	{ 'S', 0, 1, 0, 2, 1, 0 },	{ 'A', 1, 1, 2, 2, 2, 2 },	{ 'A', 2, 1, 4, 4, 4, 3 },
	{ 'A', 4, 1, 8, 4, 4, 4 },	{ 'A', 8, 1, 12, 4, 4, 4 },
};
static const struct want ra16_612[] = {
	{ 'S', 0, 1, 0, 2, 1, 0 },	{ 'A', 1, 1, 2, 4, 4, 0 },	{ 'A', 2, 1, 6, 4, 4, 0 },
	{ 'A', 6, 1, 10, 4, 4, 0 },
};

/*
 * At 512 KiB (128 pages), 6.18: 4, 16, then 32 trimmed at order 4 to end
 * on 48 (28), 56 trimmed at order 6 to end on 64 (16), and so on until the
 * windows are 128 and aligned at 384
 */
static const struct want ra512_618[] = {
	{ 'S', 0, 1, 0, 4, 3, 0 },	   { 'A', 1, 1, 4, 16, 16, 2 },
	{ 'A', 4, 1, 20, 28, 28, 4 },	   { 'A', 20, 1, 48, 16, 16, 6 },
	{ 'A', 48, 1, 64, 32, 32, 6 },	   { 'A', 64, 1, 96, 32, 32, 7 },
	{ 'A', 96, 1, 128, 64, 64, 7 },	   { 'A', 128, 1, 192, 64, 64, 8 },
	{ 'A', 192, 1, 256, 128, 128, 8 }, { 'A', 256, 1, 384, 128, 128, 9 },
};

/* At 2048 KiB (512 pages), 6.18: up to 512-page windows (order 9 folios) at 1024 */
static const struct want ra2048_618[] = {
	{ 'S', 0, 1, 0, 4, 3, -1 },	     { 'A', 1, 1, 4, 16, 16, -1 },
	{ 'A', 4, 1, 20, 60, 60, -1 },	     { 'A', 20, 1, 80, 112, 112, -1 },
	{ 'A', 80, 1, 192, 64, 64, -1 },     { 'A', 192, 1, 256, 128, 128, -1 },
	{ 'A', 256, 1, 384, 128, 128, -1 },  { 'A', 384, 1, 512, 256, 256, -1 },
	{ 'A', 512, 1, 768, 256, 256, -1 },  { 'A', 768, 1, 1024, 512, 512, -1 },
	{ 'A', 1024, 1, 1536, 512, 512, -1 },
};

static void ra_size_case(int series, uint32_t ra_pages, const struct want *exp, int n,
			 int windows)
{
	struct ra_replay *r = start(series, NULL, ra_pages);

	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 1);
	finish(r);
	check_windows(ra_kseries_name(series), exp, n);
	CHECK_INT(nwins, windows);
	ra_replay_free(r);
}

static void test_ra_sizes(void)
{
	ra_size_case(RA_KS_6_18, 4, ra16_618, 5, 1026);
	ra_size_case(RA_KS_7_2, 4, ra16_618, 5, 1025);
	ra_size_case(RA_KS_6_12, 4, ra16_612, 4, 1025);
	ra_size_case(RA_KS_6_18, 128, ra512_618, 10, 39);
	ra_size_case(RA_KS_7_2, 128, ra512_618, 10, 38);
	ra_size_case(RA_KS_6_18, 512, ra2048_618, 11, 16);
	CHECK_INT(order_used(&wins[9]), 9);	/* the 512-page windows: one PMD folio each */
	ra_size_case(RA_KS_7_2, 512, ra2048_618, 11, 15);
}

/* ---- readers that are not sequential ---- */

/*
 * 4 KiB reads far apart: each misses with its page's neighbours uncached
 * (context readahead finds nothing before it), so page_cache_sync_ra reads
 * just that page (do_page_cache_ra, no mark) and leaves the state alone
 */
static void test_random(void)
{
	static const uint64_t at[] = { 1000, 37, 2500, 800, 3333, 150, 2100, 4000 };
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	for (size_t i = 0; i < 8; i++)
		acc(r, RA_EV_GET_PAGES, 10, at[i], at[i]);
	finish(r);
	CHECK_INT(nwins, 8);
	for (int i = 0; i < nwins && i < 8; i++) {
		CHECK_INT(wins[i].kind, RA_EV_RA_UNBOUNDED);
		CHECK_INT(wins[i].trig, RA_EV_SYNC_RA);
		CHECK_INT(wins[i].tindex, at[i]);
		CHECK_INT(wins[i].start, at[i]);
		CHECK_INT(wins[i].size, 1);
		CHECK_INT(wins[i].async, 0);
	}
	CHECK_INT(count(RA_EV_PAGE_ADD), 8);
	/* the trigger carries prev_pos: the end of the read before */
	CHECK_INT(out[0].ra.prev_pos, -1);
	for (size_t i = 0; i < nout; i++)
		if (out[i].type == RA_EV_SYNC_RA && out[i].ra.index == 37)
			CHECK_INT(out[i].ra.prev_pos, 1001 * 4096);
	ra_replay_free(r);
}

/*
 * 4 KiB read every 16 KiB. 6.18: page 4 misses with 0..3 cached behind it
 * (from page 0: contig 4, doubled) so a context window (4, 9, 1); its mark
 * (12) is read: (13, 18) trimmed to end on 28, read as folios 13 (o0), 14
 * (o1) and 16, 20, 24 (o2). Page 28 misses with 28 pages cached down to 0,
 * but page_cache_prev_miss's walk of the xarray starts at 27, inside the
 * folio of 24: xas_load() leaves the walk on the folio's slot (24) with its
 * index at 27, and the walk goes on three slots ahead of its index; at the
 * node's first slot (index 3) it leaves the node and ends, the index at 2,
 * taken for a hole: contig 25, (28, 26, 1), to 53. A real 6.18 kernel does
 * exactly this. Page 56 then misses with 55 not cached: a small random
 * read, and so does every read after it (1014 windows). 6.12 reads (13, 18,
 * 18) whole, to 30: the same from page 32 on, 1019 windows.
 */
static const struct want stride_618[] = {
	{ 'S', 0, 1, 0, 4, 3, 0 },	{ 'S', 4, 1, 4, 9, 1, 0 },
	{ 'A', 12, 1, 13, 15, 15, 2 },
	{ 'S', 28, 1, 28, 26, 1, 0 },	{ 'S', 56, 1, 56, 1, 0, 0 },	{ 'S', 60, 1, 60, 1, 0, 0 },
};
static const struct want stride_612[] = {
	{ 'S', 0, 1, 0, 4, 3, 0 },	{ 'S', 4, 1, 4, 9, 1, 0 },
	{ 'A', 12, 1, 13, 18, 18, 0 },
	{ 'S', 32, 1, 32, 1, 0, 0 },	{ 'S', 36, 1, 36, 1, 0, 0 },
};

static void test_stride(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	for (uint64_t i = 0; i < FILE_PAGES; i += 4)
		acc(r, RA_EV_GET_PAGES, 10, i, i);
	finish(r);
	check_windows("stride 6.18", stride_618, 6);
	CHECK_INT(nwins, 1014);
	ra_replay_free(r);

	r = start(RA_KS_6_12, NULL, 32);
	cold(r, 0, FILE_PAGES);
	for (uint64_t i = 0; i < FILE_PAGES; i += 4)
		acc(r, RA_EV_GET_PAGES, 10, i, i);
	finish(r);
	check_windows("stride 6.12", stride_612, 5);
	CHECK_INT(nwins, 1019);
	ra_replay_free(r);
}

/* ---- mappings ---- */

/* A trigger the run recorded after a fault: what the kernel did for it */
static void trig_ev(struct ra_replay *r, int type, int pid, uint64_t index, uint64_t req,
		    uint32_t ra_pages)
{
	struct ra_event ev = { .has_mask = RA_HAS_PREV_POS,
			       .ra = { .dev = DEV, .ino = INO, .index = index, .req_count = req,
				       .ra_pages = ra_pages, .prev_pos = -1 } };

	feed(r, &ev, type, pid);
}

/* A window the run read for task @pid: its event, then its pages added */
static void rec_window(struct ra_replay *r, int pid, uint64_t start, uint64_t n)
{
	struct ra_event ev = { .has_mask = RA_HAS_ORDER, .page = { .dev = DEV, .ino = INO } };

	raev(r, RA_EV_RA_ORDER, pid, DEV, start, n);
	for (uint64_t i = start; i < start + n; i++) {
		ev.page.index = i;
		feed(r, &ev, RA_EV_PAGE_ADD, pid);
	}
}

/*
 * A mapping touched page after page, no advice, 6.18, as the run records
 * it: the fault on page 0 reads around it (start 0, ra_pages, a quarter
 * after the mark at 24) and its retry maps 0..15; touching 16 maps 16..31
 * but the marked 24; the fault on 24 hits the mark (async with ra_pages
 * asked: (32, 32, 32), order 0 + 2); the fault on 32 (a marked order-2
 * folio) opens (64, 32, 32) at order 4, and the one on 64 (96, 32, 32).
 */
static const struct want around[] = {
	{ '-', 0, 0, 0, 32, 8, 0 },	    { 'A', 24, 32, 32, 32, 32, 2 },
	{ 'A', 32, 32, 64, 32, 32, 4 },	    { 'A', 64, 32, 96, 32, 32, 6 },
};

/* The fault on @page hit a mark: the run's async readahead of ra_pages */
static void fault_async(struct ra_replay *r, uint64_t page, uint64_t next, uint32_t ra_pages)
{
	acc(r, RA_EV_FAULT, 10, page, page);
	trig_ev(r, RA_EV_ASYNC_RA, 10, page, ra_pages, ra_pages);
	rec_window(r, 10, next, ra_pages);
}

/* The touches of the run above */
static void around_run(struct ra_replay *r)
{
	cold(r, 0, FILE_PAGES);
	acc(r, RA_EV_FAULT, 10, 0, 0);
	rec_window(r, 10, 0, 32);
	acc(r, RA_EV_MAP_PAGES, 10, 0, 15);	/* the retry */
	acc(r, RA_EV_MAP_PAGES, 10, 16, 31);
	acc(r, RA_EV_MAP_PAGES, 10, 16, 31);	/* touching 24 */
	fault_async(r, 24, 32, 32);
	acc(r, RA_EV_MAP_PAGES, 10, 16, 31);
	fault_async(r, 32, 64, 32);
	acc(r, RA_EV_MAP_PAGES, 10, 32, 47);
	acc(r, RA_EV_MAP_PAGES, 10, 48, 63);
	fault_async(r, 64, 96, 32);
}

/*
 * The same touches at read_ahead_kb 16 (4 pages): read-around (0, 4, 1)
 * marks page 3, which fault-around does not map. The run shows no touch of
 * 1..15, but the touch of 16 came page by page after the one of 0 (the
 * block after, every page between cached in the run): the toucher touched
 * 3, faulting on its mark: (4, 4, 4), then 4 (8, 4, 4), 8 and 12; 16 is
 * its own touch, and 20 lies between it and the touch of 24.
 */
static const struct want around4[] = {
	{ '-', 0, 0, 0, 4, 1, 0 },	{ 'A', 3, 4, 4, 4, 4, 2 },	{ 'A', 4, 4, 8, 4, 4, 4 },
	{ 'A', 8, 4, 12, 4, 4, 4 },	{ 'A', 12, 4, 16, 4, 4, 4 },	{ 'A', 16, 4, 20, 4, 4, 4 },
	{ 'A', 20, 4, 24, 4, 4, 4 },	{ 'A', 24, 4, 28, 4, 4, 4 },
};

static void test_mmap_around(void)
{
	struct ra_replay_params p = { .series = RA_KS_6_18, .ra_pages = 4, .file = file_cb,
				      .tgid = tgid_cb, .emit = collect };
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	around_run(r);
	finish(r);
	check_windows("read-around", around, 4);
	CHECK_INT(nwins, 4);
	/* the touches of 0, 24, 32 and 64 fault; 32's and 64's folios are marked, not mapped */
	CHECK_INT(count(RA_EV_FAULT), 4);
	/* one miss counted, then 16 pages mapped by fault-around: mmap_miss 0 */
	CHECK_INT(wins[1].mmap_miss, 0);
	CHECK_INT(ra_replay_doubts(r, DEV, INO), 0);
	ra_replay_free(r);

	setup(NULL, 32);
	r = ra_replay_alloc(&p);
	around_run(r);
	finish(r);
	check_windows("read-around at 16 KiB", around4, 8);
	ra_replay_free(r);
}

/*
 * mmap_miss: every fault of a touch far from the others misses. Up to 7.1
 * the retry's fault-around takes the 16 pages it maps off the count; from
 * 7.2 a retry takes nothing off, so after 100 misses read-around stops and
 * a miss reads its page alone.
 */
static void test_mmap_miss(void)
{
	static const int series[] = { RA_KS_6_18, RA_KS_7_2 };
	struct ra_event add = { .has_mask = RA_HAS_ORDER, .page = { .dev = DEV, .ino = INO } };

	for (int k = 0; k < 2; k++) {
		struct ra_replay *r = start(series[k], NULL, 32);

		cfg.size = 16384LL * 4096;
		cold(r, 0, 16384);
		for (uint64_t i = 0; i < 120; i++) {
			acc(r, RA_EV_FAULT, 10, i * 128 + 16, i * 128 + 16);
			if (series[k] == RA_KS_7_2 && i >= 100) {
				add.page.index = i * 128 + 16;
				feed(r, &add, RA_EV_PAGE_ADD, 10);
			} else {
				rec_window(r, 10, i * 128, 32);
			}
		}
		finish(r);
		CHECK_INT(nwins, series[k] == RA_KS_7_2 ? 100 : 120);
		CHECK_INT(count(RA_EV_PAGE_ADD), series[k] == RA_KS_7_2 ? 100 * 32 + 20 : 120 * 32);
		ra_replay_free(r);
	}
}

/*
 * MADV_SEQUENTIAL (fio's mmap engine, which also asks POSIX_FADV_SEQUENTIAL:
 * ra_pages 64 of the bdi's 32), as the fixture mmapread recorded it: the
 * run's sync trigger after the first fault asks ra_pages. A miss reads
 * init(64, 64) = 64 with 32 after the mark, the marks then come every 64
 * pages. At read_ahead_kb 64 (16 pages, doubled to 32) the same touches
 * meet the marks of 32-page windows: (0, 32, 16), then the touch of 16
 * faults on its mark, and each window after is 32 pages.
 */
static const struct want seqmap64[] = {
	{ 'S', 0, 64, 0, 64, 32, 0 },	{ 'A', 32, 64, 64, 64, 64, 2 },
	{ 'A', 64, 64, 128, 64, 64, 4 }, { 'A', 128, 64, 192, 64, 64, 6 },
};
static const struct want seqmap32[] = {
	{ 'S', 0, 32, 0, 32, 16, 0 },	 { 'A', 16, 32, 32, 32, 32, 2 },
	{ 'A', 32, 32, 64, 32, 32, 4 },	 { 'A', 64, 32, 96, 32, 32, 6 },
	{ 'A', 96, 32, 128, 32, 32, 7 }, { 'A', 128, 32, 160, 32, 32, 7 },
};

static void seqmap_run(uint32_t what_if)
{
	struct ra_replay_params p = { .series = RA_KS_6_18, .ra_pages = what_if, .file = file_cb,
				      .tgid = tgid_cb, .emit = collect };
	struct ra_replay *r = ra_replay_alloc(&p);

	nout = 0;
	cold(r, 0, FILE_PAGES);
	acc(r, RA_EV_FAULT, 10, 0, 0);
	trig_ev(r, RA_EV_SYNC_RA, 10, 0, 64, 64);
	rec_window(r, 10, 0, 64);
	for (uint64_t b = 0; b < 128; b += 16) {
		acc(r, RA_EV_MAP_PAGES, 10, b, b + 15);
		if (b == 32 || b == 64)
			fault_async(r, b, b + 32 + (b == 64 ? 32 : 0), 64);
	}
	fault_async(r, 128, 192, 64);
	finish(r);
	ra_replay_free(r);
}

static void test_mmap_sequential(void)
{
	setup(NULL, 32);
	seqmap_run(0);
	check_windows("MADV_SEQUENTIAL", seqmap64, 4);
	CHECK_INT(nwins, 4);
	seqmap_run(16);
	check_windows("MADV_SEQUENTIAL at 64 KiB", seqmap32, 6);
	CHECK_INT(nwins, 6);
}

/*
 * MADV_RANDOM: the run read nothing ahead for a miss where read-around
 * would have; the replay reads the page alone
 */
static void test_mmap_random(void)
{
	struct ra_event add = { .has_mask = RA_HAS_ORDER, .page = { .dev = DEV, .ino = INO } };
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	for (uint64_t p = 100; p < 1000; p += 400) {
		acc(r, RA_EV_FAULT, 10, p, p);
		add.page.index = p;
		feed(r, &add, RA_EV_PAGE_ADD, 10);
	}
	finish(r);
	CHECK_INT(nwins, 0);
	CHECK_INT(count(RA_EV_PAGE_ADD), 3);
	ra_replay_free(r);
}

/*
 * A program that maps a shared library, as the fixture mmapread recorded
 * one (539 pages, read_ahead_kb 8192 on its disk): it read page 0 (the
 * window (0, 4, 3), its mark on 1), faulted on 537 (read-around from 0,
 * 2048 pages, read in order-0 pages after 0..3, its lookahead cut with it
 * at the end of the file: the mark on 27), touched the blocks at 0 and 16
 * without a fault, and only much later faulted on 27 and then on 1, each
 * mark opening a window past the end. The touch at 16 is not a toucher's
 * going on from 0: the run faults on page 1 later, so it was not touched
 * then (the first pass tells), and the mark on 1 is hit after the one on
 * 27, as in the run.
 */
static struct ra_event script[64];
static int nscript;

static void script_ev(int type, uint64_t index, uint64_t n, uint32_t dev)
{
	struct ra_event *ev = &script[nscript++];

	memset(ev, 0, sizeof(*ev));
	ev->type = (uint16_t)type;
	ev->pid = 10;
	ev->ts_ns = 1000 + (uint64_t)nscript;
	if (ra_event_class(type) == RA_CLASS_RA) {
		ev->has_mask = RA_HAS_PREV_POS;
		ev->ra = (struct ra_ra_fields){ .dev = dev, .ino = INO, .index = index,
						.req_count = n, .size = (uint32_t)n,
						.ra_pages = 2048, .prev_pos = -1 };
	} else {
		ev->has_mask = type == RA_EV_PAGE_ADD ? RA_HAS_ORDER : RA_HAS_LAST_INDEX;
		ev->page = (struct ra_page_fields){ .dev = DEV, .ino = INO, .index = index,
						    .last_index = index + n - 1 };
	}
}

/* The script through both passes, its add standing for the adds of pages 0..@pages - 1 */
static void script_run(struct ra_replay *r, uint64_t pages)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nscript; i++) {
			struct ra_event ev = script[i];
			uint64_t n = ev.type == RA_EV_PAGE_ADD ? pages : 1;

			for (uint64_t p = 0; p < n; p++) {
				if (ev.type == RA_EV_PAGE_ADD)
					ev.page.index = p;
				CHECK_INT(pass ? ra_replay_event(r, &ev) : ra_replay_scan(r, &ev), 0);
			}
		}
}

static void test_touch_loader(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 2048);

	cfg.size = 539 * 4096;
	nscript = 0;
	script_ev(RA_EV_SYNC_RA, 0, 1, DEV);
	script_ev(RA_EV_PAGE_ADD, 0, 1, 0);	/* (the run's adds stand for 0..3 and 4..538) */
	script_ev(RA_EV_GET_PAGES, 0, 1, 0);
	script_ev(RA_EV_FAULT, 537, 1, 0);
	script_ev(RA_EV_RA_ORDER, 0, 2048, DEV);
	script_ev(RA_EV_MAP_PAGES, 528, 10, 0);
	script_ev(RA_EV_MAP_PAGES, 0, 16, 0);
	script_ev(RA_EV_MAP_PAGES, 16, 16, 0);
	script_ev(RA_EV_MAP_PAGES, 16, 16, 0);
	script_ev(RA_EV_FAULT, 27, 1, 0);
	script_ev(RA_EV_ASYNC_RA, 27, 2048, DEV);
	script_ev(RA_EV_MAP_PAGES, 0, 16, 0);
	script_ev(RA_EV_FAULT, 1, 1, 0);
	script_ev(RA_EV_ASYNC_RA, 1, 2048, DEV);
	script_run(r, 539);
	finish(r);
	CHECK_INT(nwins, 4);
	CHECK_INT(wins[1].trig, 0);	/* read-around */
	CHECK_INT(wins[1].size, 2048);
	CHECK_INT(wins[2].tindex, 27);
	CHECK_INT(wins[2].start, 539);
	CHECK_INT(wins[2].size, 2045);
	CHECK_INT(wins[3].tindex, 1);
	CHECK_INT(wins[3].size, 2037);
	ra_replay_free(r);
}

/* ---- WILLNEED ---- */

/*
 * fadvise(WILLNEED) of the whole file: force_page_cache_ra reads at most
 * max(io_pages, ra_pages) = 320 pages, no mark, no state; the reads then
 * hit until page 320, whose miss is sequential (prev_pos at 320): initial.
 */
static const struct want fadv[] = {
	{ '-', 0, 0, 0, 320, 0, 0 },	 { 'S', 320, 1, 320, 4, 3, 0 },
	{ 'A', 321, 1, 324, 8, 8, 2 },	 { 'A', 324, 1, 332, 4, 4, 4 },
};

static void test_willneed(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	raev(r, RA_EV_FADVISE, 20, 0, 0, 0);
	raev(r, RA_EV_RA_UNBOUNDED, 20, DEV, 0, 320);	/* the run's forced window: the file */
	read_seq(r, 20, 0, 400, 1);
	finish(r);
	check_windows("fadvise", fadv, 4);
	CHECK_INT(out[0].ts_ns, out[0].type == RA_EV_RA_UNBOUNDED ? out[0].ts_ns : 0);
	ra_replay_free(r);

	/* readahead(2) of 1 MiB; then 4.7 MiB with io_pages 1280: chunks of 2 MiB */
	r = start(RA_KS_6_18, NULL, 32);
	cfg.io_pages = 1280;
	cold(r, 0, FILE_PAGES);
	raev(r, RA_EV_SYS_READAHEAD, 20, 0, 0, 256);
	raev(r, RA_EV_RA_UNBOUNDED, 20, DEV, 0, 256);
	raev(r, RA_EV_FADVISE, 21, 0, 1024, 1200);
	raev(r, RA_EV_RA_UNBOUNDED, 21, DEV, 1024, 512);
	raev(r, RA_EV_RA_UNBOUNDED, 21, DEV, 1536, 512);
	raev(r, RA_EV_RA_UNBOUNDED, 21, DEV, 2048, 176);
	/* madvise names an address: its file and offset are its forced window's */
	raev(r, RA_EV_MADVISE, 22, 0, 0x7f0000, 16);
	raev(r, RA_EV_RA_UNBOUNDED, 22, DEV, 3000, 16);
	finish(r);
	CHECK_INT(nwins, 5);
	CHECK_INT(wins[0].size, 256);
	CHECK_INT(wins[1].start, 1024);
	CHECK_INT(wins[1].size, 512);
	CHECK_INT(wins[2].start, 1536);
	CHECK_INT(wins[3].start, 2048);
	CHECK_INT(wins[3].size, 176);
	CHECK_INT(wins[4].start, 3000);
	CHECK_INT(wins[4].size, 16);
	CHECK_INT(count(RA_EV_PAGE_ADD), 256 + 1200 + 16);
	ra_replay_free(r);
}

/* ---- several readers ---- */

/*
 * Two processes read the two halves of one file in turn, a page each: two
 * readahead states. The first ramps as a lone reader; the second's first
 * read at 2048 has no history (prev_pos -1, 2047 not cached): a small
 * random read; its next is sequential: (2049, 4, 3); its mark at 2050 gives
 * (2053, 8) trimmed to end on 2060 (order 2), then (2060, 14 -> 4).
 */
static const struct want second_half[] = {
	{ 'S', 2048, 1, 2048, 1, 0, 0 },   { 'S', 2049, 1, 2049, 4, 3, 0 },
	{ 'A', 2050, 1, 2053, 7, 7, 2 },   { 'A', 2053, 1, 2060, 4, 4, 4 },
};

/* The windows of task @pid only */
static void windows_of(int pid)
{
	int n = 0;

	windows();
	for (int i = 0; i < nwins; i++)
		if (wins[i].pid == pid)
			wins[n++] = wins[i];
	nwins = n;
}

/*
 * Twenty readers of their own part of the file, a read of 4 pages each in
 * turn, the odd ones after the run's async trigger at their mark (every
 * trigger of a round before its reads), the last read of 8 pages in two
 * batches (every task's second after every first: the replay must know the
 * read is going on), and ten tasks that touch a mapping of their part page
 * by page; the replay's events, in order (a hash of their fields), and how
 * many.
 */
static uint64_t twenty_readers(size_t *n)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);
	uint64_t h = 1469598103934665603ULL;

	cold(r, 0, FILE_PAGES);
	for (uint64_t k = 0; k < 16; k++) {
		for (int pid = 11; pid < 30 && k % 8 == 4; pid += 2)	/* every trigger first */
			raev(r, RA_EV_ASYNC_RA, pid, DEV, (uint64_t)(pid - 10) * 100 + 4 * k, 4);
		for (int pid = 10; pid < 30; pid++) {
			uint64_t at = (uint64_t)(pid - 10) * 100 + 4 * k;

			/* the last read in two batches, each task's second after all firsts */
			acc(r, RA_EV_GET_PAGES, pid, at, k == 15 ? at + 7 : at + 3);
		}
		for (int pid = 10; pid < 30 && k == 15; pid++)
			acc(r, RA_EV_GET_PAGES, pid, (uint64_t)(pid - 10) * 100 + 64,
			    (uint64_t)(pid - 10) * 100 + 67);
		for (int pid = 40; pid < 50; pid++)	/* mappings touched page by page */
			acc(r, RA_EV_FAULT, pid, 2000 + (uint64_t)(pid - 40) * 200 + k,
			    2000 + (uint64_t)(pid - 40) * 200 + k);
	}
	CHECK_INT(ra_replay_end(r), 0);
	for (size_t i = 0; i < nout; i++) {
		const uint64_t f[] = { out[i].type, (uint64_t)out[i].pid, out[i].ts_ns,
				       out[i].ra.index, out[i].ra.size, out[i].ra.async_size,
				       out[i].page.index, out[i].page.last_index };

		for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++)
			h = (h ^ f[j]) * 1099511628211ULL;
	}
	*n = nout;
	ra_replay_free(r);
	return h;
}

/* The same with three tasks in memory, the others written out and read back. */
static void test_tasks_held(void)
{
	size_t n, n_held;
	uint64_t h = twenty_readers(&n), held;

	tasks_held = 3;
	held = twenty_readers(&n_held);
	tasks_held = 0;
	CHECK(n > 480);	/* the reads' and faults' own, and their windows */
	CHECK_INT(n_held, n);
	CHECK(held == h);
}

static void test_two_readers(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	for (uint64_t i = 0; i < 2048; i++) {
		acc(r, RA_EV_GET_PAGES, 30, i, i);
		acc(r, RA_EV_GET_PAGES, 40, 2048 + i, 2048 + i);
	}
	CHECK_INT(ra_replay_end(r), 0);
	windows_of(30);
	check_windows("first half", seq_617, 8);
	windows_of(40);
	check_windows("second half", second_half, 4);
	CHECK(ra_replay_doubts(r, DEV, INO) & RA_DOUBT_SHARED);
	ra_replay_free(r);

	/* two threads of one process, one descriptor, pages in turn: one state, one stream */
	r = start(RA_KS_6_18, NULL, 32);
	cold(r, 0, FILE_PAGES);
	for (uint64_t i = 0; i < FILE_PAGES; i++)
		acc(r, RA_EV_GET_PAGES, 1000 + (int)(i & 1), i, i);
	finish(r);
	check_windows("threads", seq_617, 8);
	CHECK_INT(nwins, 134);
	CHECK_INT(ra_replay_doubts(r, DEV, INO), 0);
	ra_replay_free(r);
}

/*
 * One process reading the two halves through two descriptors (rawl
 * interleave), as 6.18 records it: each miss's trigger carries the
 * prev_pos of its descriptor, -1 for one not read yet. The replay keeps
 * two states: at page 4 the mark of (4, 8, 8) is where the first
 * descriptor's state expects it, (12, 4, 4), though the second descriptor
 * read last.
 */
static void hinted_read(struct ra_replay *r, int type, uint64_t page, int64_t prev)
{
	struct ra_event ev = { .has_mask = RA_HAS_PREV_POS,
			       .ra = { .dev = DEV, .ino = INO, .index = page, .req_count = 1,
				       .ra_pages = 32, .prev_pos = prev } };

	if (type)
		feed(r, &ev, type, 60);
	acc(r, RA_EV_GET_PAGES, 60, page, page);
}

static void test_two_descriptors(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	hinted_read(r, RA_EV_SYNC_RA, 0, -1);
	hinted_read(r, RA_EV_SYNC_RA, 2048, -1);
	hinted_read(r, RA_EV_ASYNC_RA, 1, 4096);
	hinted_read(r, RA_EV_SYNC_RA, 2049, 2049 * 4096);
	hinted_read(r, 0, 2, 0);
	hinted_read(r, RA_EV_ASYNC_RA, 2050, 2050 * 4096);
	hinted_read(r, 0, 3, 0);
	hinted_read(r, 0, 2051, 0);
	hinted_read(r, RA_EV_ASYNC_RA, 4, 4 * 4096);
	finish(r);
	CHECK_INT(nwins, 6);
	CHECK_INT(wins[4].tindex, 2050);
	CHECK_INT(wins[4].start, 2053);
	CHECK_INT(wins[4].size, 7);
	CHECK_INT(wins[5].tindex, 4);
	CHECK_INT(wins[5].start, 12);
	CHECK_INT(wins[5].size, 4);
	ra_replay_free(r);
}

/*
 * Two processes start reading one file at once: the first misses (its
 * trigger, its window's adds), and while it waits for the I/O the second
 * reads page 0, found cached, before the first's mm_filemap_get_pages. The
 * first's read is replayed at its trigger, so the second's is a hit, as in
 * the run: one window, the first's.
 */
static void test_read_waits(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	trig_ev(r, RA_EV_SYNC_RA, 30, 0, 1, 32);
	rec_window(r, 30, 0, 4);
	acc(r, RA_EV_GET_PAGES, 40, 0, 0);
	acc(r, RA_EV_GET_PAGES, 30, 0, 0);
	finish(r);
	CHECK_INT(nwins, 1);
	CHECK_INT(wins[0].pid, 30);
	CHECK_INT(count(RA_EV_GET_PAGES), 2);
	CHECK_INT(out[nout - 1].pid, 40);	/* the second's read comes last */
	ra_replay_free(r);
}

/* ---- the end of a file ---- */

/*
 * A file of 10000 bytes: pages 0..2, the last partial. On 6.18 the first
 * window (0, 4, 3) is cut at page 2 and its mark at 1 kept; the read of 1
 * opens (4, 8, 8), all past the end: no page. On 6.12 the window is read
 * in order-0 pages by do_page_cache_ra, which cuts it to 3 pages and its
 * lookahead with it: the mark moves to page 0, hit by the first read,
 * where the state does not expect it (1): the next miss after it, 3, opens
 * (3, next(3 + 1) = 8). From 7.2 the first window reaches the end and has
 * no mark. A 64 KiB read of the file: (0, 32, 16), three pages, one batch;
 * a read past the end reads nothing.
 */
static void test_odd_size(void)
{
	static const int series[] = { RA_KS_6_12, RA_KS_6_18, RA_KS_7_2 };

	for (int k = 0; k < 3; k++) {
		struct ra_replay *r = start(series[k], NULL, 32);

		cfg.size = 10000;
		cold(r, 0, 3);
		read_seq(r, 10, 0, 3, 1);
		finish(r);
		CHECK_INT(nwins, series[k] == RA_KS_7_2 ? 1 : 2);
		CHECK_INT(wins[0].size, 4);
		CHECK_INT(count(RA_EV_PAGE_ADD), 3);
		if (series[k] != RA_KS_7_2) {
			CHECK_INT(wins[1].tindex, series[k] == RA_KS_6_12 ? 0 : 1);
			CHECK_INT(wins[1].start, series[k] == RA_KS_6_12 ? 3 : 4);
		}
		ra_replay_free(r);
	}

	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cfg.size = 10000;
	cold(r, 0, 3);
	acc(r, RA_EV_GET_PAGES, 10, 0, 15);
	acc(r, RA_EV_GET_PAGES, 10, 3, 18);	/* past the end: no read of the kernel's */
	acc(r, RA_EV_GET_PAGES, 10, 1, 1);
	finish(r);
	CHECK_INT(nwins, 1);
	CHECK_INT(wins[0].size, 32);
	CHECK_INT(wins[0].async, 16);
	CHECK_INT(count(RA_EV_PAGE_ADD), 3);
	CHECK_INT(count(RA_EV_GET_PAGES), 2);
	ra_replay_free(r);
}

/* ---- xfs: large folios in every series ---- */

/*
 * 6.1 on xfs: the first window is one marked order-2 folio, so the first
 * read hits its mark at once, at page 0, where ondemand_readahead always
 * starts over: (0, 4, 3) again, its folio there already (the order-0
 * fallback finds all cached). The miss at 4 is where the state's window
 * ends: 6.1 continues it, (4, 8, 8), which the read would reach at once:
 * merged with the next to (4, 24, 16) (order 2, mark on 12's folio). From
 * there as 6.16: the marked folio's order + 2.
 */
static const struct want xfs_61[] = {
	{ 'S', 0, 1, 0, 4, 3, 2 },	{ 'A', 0, 1, 0, 4, 3, 2 },	{ 'S', 4, 1, 4, 24, 16, 2 },
	{ 'A', 12, 1, 28, 32, 32, 4 },	{ 'A', 28, 1, 60, 32, 32, 4 },
};

/* 1 MiB reads on xfs at 6.18: the orders ramp 0 2 4 6 8, then stay at log2(256) */
static const unsigned int xfs_1m_used[] = { 0, 2, 4, 6, 8, 8 };

static void test_xfs(void)
{
	struct ra_replay *r = start(RA_KS_6_12, "xfs", 32);

	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 1);
	finish(r);
	check_windows("xfs 6.12", seq_616, 8);	/* large folios, the old order logic */
	CHECK_INT(nwins, 132);
	ra_replay_free(r);

	r = start(RA_KS_6_1, "xfs", 32);
	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 1);
	finish(r);
	check_windows("xfs 6.1", xfs_61, 5);
	ra_replay_free(r);

	r = start(RA_KS_6_18, "xfs", 32);
	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 256);
	finish(r);
	check_windows("xfs 1 MiB reads", seq_1m, 5);
	for (int i = 0; i < 6; i++)
		CHECK_INT(order_used(&wins[i]), xfs_1m_used[i]);
	ra_replay_free(r);
}

static void test_btrfs(void)
{
	struct ra_replay *r;

	/*
	 * btrfs has large folios from 7.2 only, 64 blocks at most: at its
	 * bdi's 4 MiB, 4 KiB reads open (0, 4), (4, 16), (20, 60) and (80,
	 * 240), which 7.2 reads at order min(6, 6, 7). 6.18 has none, so
	 * ra->order falls back to 0 after every window and the trim is to 4
	 * pages: (20, 64), (84, 128), all order 0.
	 */
	r = start(RA_KS_6_18, "btrfs", 1024);
	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 1);
	finish(r);
	CHECK_INT(wins[3].size, 128);
	CHECK_INT(order_used(&wins[3]), 0);
	ra_replay_free(r);
	r = start(RA_KS_7_2, "btrfs", 1024);
	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 1);
	finish(r);
	CHECK_INT(wins[3].size, 240);
	CHECK_INT(order_used(&wins[3]), 6);
	ra_replay_free(r);

	/* and an io_pages of 32: a 1 MiB read at 128 KiB reads 32 pages at a time */
	r = start(RA_KS_6_18, "btrfs", 32);
	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 256);
	finish(r);
	CHECK_INT(wins[0].size, 32);
	CHECK_INT(wins[1].size, 32);
	ra_replay_free(r);
}

/* ---- the series, the policies ---- */

static void test_kseries(void)
{
	static const struct {
		const char *release;
		int series;
	} k[] = {
		{ "6.1.0-50-cloud-amd64", RA_KS_6_1 },	{ "6.12.94+deb12-cloud-amd64", RA_KS_6_12 },
		{ "6.13", RA_KS_6_12 },			{ "6.16.12+deb13-cloud-amd64", RA_KS_6_16 },
		{ "6.17.8", RA_KS_6_17 },		{ "6.18.44-fc-v782", RA_KS_6_18 },
		{ "6.19.6", RA_KS_6_18 },		{ "7.1.13", RA_KS_6_18 },
		{ "7.2.12+deb13-cloud-amd64", RA_KS_7_2 }, { "7.3", RA_KS_7_2 },
		{ "10.1", RA_KS_7_2 },			{ "6.0.12", -1 },
		{ "5.15.0-91-generic", -1 },		{ "linux", -1 },
		{ "6", -1 },				{ "", -1 },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		CHECK_INT(ra_kseries_of(k[i].release), k[i].series);
	CHECK_INT(ra_kseries_of(NULL), -1);
	CHECK_STR(ra_kseries_name(RA_KS_6_1), "6.1");
	CHECK_STR(ra_kseries_name(RA_KS_6_16), "6.16");
	CHECK_STR(ra_kseries_name(RA_KS_7_2), "7.2");
	CHECK(ra_kseries_name(RA_KS_N) == NULL);
	CHECK(ra_kseries_name(-1) == NULL);
}

/*
 * FIXED at 16 pages: every window 16 pages with its mark on its first page,
 * so the first read enters the second window at once; no ramp, no trim,
 * whatever series was asked (the 6.18 paths). SCALING at 64 pages is the
 * kernel's ramp up to 64.
 */
static const struct want fixed16[] = {
	{ 'S', 0, 1, 0, 16, 16, 0 },	{ 'A', 0, 1, 16, 16, 16, 2 },
	{ 'A', 16, 1, 32, 16, 16, 4 },	{ 'A', 32, 1, 48, 16, 16, 6 },
};

static void policy_run(int series, enum ra_policy policy, uint32_t pages, uint32_t what_if)
{
	struct ra_replay_params p = { .series = series, .policy = policy, .ra_pages = what_if,
				      .fixed_pages = pages, .scaling_pages = pages,
				      .file = file_cb, .tgid = tgid_cb, .emit = collect };
	struct ra_replay *r;

	setup(NULL, 32);
	r = ra_replay_alloc(&p);
	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, FILE_PAGES, 1);
	finish(r);
	ra_replay_free(r);
}

static void test_policies(void)
{
	struct ra_replay_params bad = { .series = RA_KS_6_18, .policy = RA_POLICY_FIXED,
					.emit = collect };
	static struct win kernel64[8192];
	int n;

	policy_run(RA_KS_6_1, RA_POLICY_FIXED, 16, 0);
	check_windows("fixed", fixed16, 4);
	CHECK_INT(nwins, 257);
	policy_run(RA_KS_6_18, RA_POLICY_KERNEL, 0, 64);
	memcpy(kernel64, wins, sizeof(wins));
	n = nwins;
	policy_run(RA_KS_6_18, RA_POLICY_SCALING, 64, 0);
	CHECK_INT(nwins, n);
	for (int i = 0; i < n && i < nwins; i++)
		CHECK(!memcmp(&wins[i], &kernel64[i], sizeof(wins[i])));
	CHECK_INT(wins[20].size, 64);
	CHECK(ra_replay_alloc(&bad) == NULL);	/* FIXED needs its size */
}

/* ---- what the run shows beyond the accesses ---- */

/*
 * Pages cached before the run (read, never added) are in the model from
 * the first pass on: the windows that reach them add none of them, and
 * the reader's first miss is at 100. A file of unknown size ends, for the
 * replay, at the highest page the run added.
 */
/* The first pass over the run of test_scan: the reads, then the adds the run will show */
static void scan_reads(struct ra_replay *r)
{
	struct ra_event ev = { .type = RA_EV_GET_PAGES, .pid = 10, .has_mask = RA_HAS_LAST_INDEX,
			       .page = { .dev = DEV, .ino = INO } };

	for (uint64_t i = 0; i < FILE_PAGES; i++) {
		ev.page.index = ev.page.last_index = i;
		CHECK_INT(ra_replay_scan(r, &ev), 0);
	}
	ev.type = RA_EV_PAGE_ADD;
	ev.has_mask = RA_HAS_ORDER;
	for (uint64_t i = 100; i < FILE_PAGES; i += i == 149 ? 51 : 1) {
		ev.page.index = i;
		CHECK_INT(ra_replay_scan(r, &ev), 0);
	}
}

static void test_scan(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);
	int early = 0;

	cfg.size = -1;
	scan_reads(r);
	/* the run: pages 100..149 and 200.. read in (and dropped), then the reads */
	cold(r, 100, 50);
	cold(r, 200, FILE_PAGES - 200);
	read_seq(r, 10, 0, FILE_PAGES, 1);
	finish(r);
	CHECK_INT(wins[0].start, 100);
	CHECK_INT(wins[0].size, 4);
	for (size_t i = 0; i < nout; i++) {
		uint64_t at = out[i].page.index;

		early += out[i].type == RA_EV_PAGE_ADD && ((at >= 150 && at < 200) || at < 100);
	}
	CHECK_INT(early, 0);
	CHECK(ra_replay_doubts(r, DEV, INO) & RA_DOUBT_UNKNOWN);
	/* the last window, from the mark of the one ending at 4095: past the end, nothing added */
	CHECK_INT(wins[nwins - 1].start, FILE_PAGES);
	CHECK_INT(count(RA_EV_PAGE_ADD) > 0, 1);
	ra_replay_free(r);
}

/* A writer's pages are in the model as it added them: the reader's first miss is after them */
static void test_writes(void)
{
	struct ra_event add = { .has_mask = RA_HAS_ORDER, .page = { .dev = DEV, .ino = INO } };
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	for (uint64_t i = 0; i < 64; i += 4) {
		add.page.index = i;
		add.page.order = 2;
		feed(r, &add, RA_EV_PAGE_ADD, 50);
	}
	read_seq(r, 10, 0, 128, 1);
	finish(r);
	CHECK_INT(wins[0].trig, RA_EV_SYNC_RA);
	CHECK_INT(wins[0].start, 64);
	CHECK_INT(wins[0].size, 4);
	CHECK_INT(out[0].type, RA_EV_PAGE_ADD);
	CHECK_INT(out[0].pid, 50);
	CHECK_INT(out[0].page.order, 2);
	ra_replay_free(r);
}

/* A page deleted before it was read and read again: reclaim */
static void test_doubt_reclaim(void)
{
	struct ra_event del = { .has_mask = RA_HAS_ORDER, .page = { .dev = DEV, .ino = INO } };
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	read_seq(r, 10, 0, 32, 1);
	for (uint64_t i = 32; i < 96; i++) {
		del.page.index = i;
		feed(r, &del, RA_EV_PAGE_DELETE, 1);
	}
	CHECK_INT(ra_replay_doubts(r, DEV, INO), 0);
	read_seq(r, 10, 32, 64, 1);
	finish(r);
	CHECK_INT(ra_replay_doubts(r, DEV, INO), RA_DOUBT_RECLAIM);
	CHECK_INT(count(RA_EV_PAGE_DELETE), 1);	/* the model had 32..47: one order-4 folio */
	CHECK_INT(wins[6].trig, RA_EV_SYNC_RA);		/* read again from 32: initial */
	CHECK_INT(wins[6].start, 32);
	ra_replay_free(r);
}

/*
 * A folio under I/O: a read's next batch starts where no mark, hole or
 * full batch ended the one before; or a read shows only its tail, after
 * the trigger at the mark its first batch hit: it is read from where the
 * read before ended (prev_pos of the trigger)
 */
static void test_doubt_inflight(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cold(r, 0, FILE_PAGES);
	acc(r, RA_EV_GET_PAGES, 10, 0, 15);
	acc(r, RA_EV_GET_PAGES, 10, 5, 15);
	finish(r);
	CHECK_INT(ra_replay_doubts(r, 0, 0), RA_DOUBT_INFLIGHT);
	ra_replay_free(r);

	/* 64 KiB reads: (0, 32, 16); the read of 16..31 shows 20..31 after the trigger at 20 */
	r = start(RA_KS_6_18, NULL, 32);
	cold(r, 0, FILE_PAGES);
	acc(r, RA_EV_GET_PAGES, 10, 0, 15);
	{
		struct ra_event ev = { .has_mask = RA_HAS_PREV_POS,
				       .ra = { .dev = DEV, .ino = INO, .index = 20, .req_count = 12,
					       .ra_pages = 32, .prev_pos = 16 * 4096 } };

		feed(r, &ev, RA_EV_ASYNC_RA, 10);
	}
	acc(r, RA_EV_GET_PAGES, 10, 20, 31);
	finish(r);
	/* read from 16: the mark at 16 is hit, (32, 32, 32) */
	CHECK_INT(nwins, 2);
	CHECK_INT(wins[1].tindex, 16);
	CHECK_INT(wins[1].start, 32);
	CHECK_INT(ra_replay_doubts(r, 0, 0), RA_DOUBT_INFLIGHT);
	ra_replay_free(r);
}

/*
 * A run without access events (6.1 without probes of get_pages), found by
 * the first pass: its triggers stand for the reads
 */
static void test_doubt_noaccess(void)
{
	struct ra_event ev = { .has_mask = RA_HAS_PREV_POS, .type = RA_EV_SYNC_RA, .pid = 10,
			       .ra = { .dev = DEV, .ino = INO, .req_count = 1, .prev_pos = -1,
				       .ra_pages = 32 } };
	struct ra_replay *r = start(RA_KS_6_1, NULL, 32);

	CHECK_INT(ra_replay_scan(r, &ev), 0);
	cold(r, 0, FILE_PAGES);
	trig_ev(r, RA_EV_SYNC_RA, 10, 0, 1, 32);
	trig_ev(r, RA_EV_ASYNC_RA, 10, 1, 1, 32);
	finish(r);
	check_windows("from triggers", seq_612, 2);
	CHECK_INT(ra_replay_doubts(r, DEV, INO), RA_DOUBT_NOACCESS);
	ra_replay_free(r);
}

/* A file the run does not describe (no file system, no io_pages) */
static void test_doubt_unknown(void)
{
	struct ra_replay *r = start(RA_KS_6_18, NULL, 32);

	cfg.fstype = NULL;
	cfg.io_pages = 0;
	cold(r, 0, 64);
	read_seq(r, 10, 0, 64, 1);
	finish(r);
	CHECK_INT(ra_replay_doubts(r, 0, 0), RA_DOUBT_UNKNOWN);
	ra_replay_free(r);
}

static const struct test_case cases[] = {
	{ "seq_4k", test_seq_4k },
	{ "pass_rebuilds", test_pass_rebuilds },
	{ "seq_sizes", test_seq_sizes },
	{ "ra_sizes", test_ra_sizes },
	{ "random", test_random },
	{ "stride", test_stride },
	{ "mmap_around", test_mmap_around },
	{ "mmap_miss", test_mmap_miss },
	{ "mmap_sequential", test_mmap_sequential },
	{ "mmap_random", test_mmap_random },
	{ "touch_loader", test_touch_loader },
	{ "willneed", test_willneed },
	{ "two_readers", test_two_readers },
	{ "tasks beyond those in memory", test_tasks_held },
	{ "two_descriptors", test_two_descriptors },
	{ "read_waits", test_read_waits },
	{ "odd_size", test_odd_size },
	{ "xfs", test_xfs },
	{ "btrfs", test_btrfs },
	{ "kseries", test_kseries },
	{ "policies", test_policies },
	{ "scan", test_scan },
	{ "writes", test_writes },
	{ "doubt_reclaim", test_doubt_reclaim },
	{ "doubt_inflight", test_doubt_inflight },
	{ "doubt_noaccess", test_doubt_noaccess },
	{ "doubt_unknown", test_doubt_unknown },
	{ NULL, NULL },
};

int main(void)
{
	int rc = test_run_in_tmpdir("test_replay", cases, dir);

	free(out);
	return rc;
}
