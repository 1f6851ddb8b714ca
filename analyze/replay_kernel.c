// SPDX-License-Identifier: LGPL-2.1
/*
 * The kernel the replay runs: mm/readahead.c and the read paths of
 * mm/filemap.c (filemap_read(), filemap_fault(), fault-around) of one
 * series, the algorithm of each series' sources written anew. The names
 * of the kernel's functions are given where a function here plays their
 * part. I/O completes at once: a folio is uptodate as soon as it is added,
 * so a batch is cut short only by a hole, a mark or its size, never by a
 * folio still being read.
 *
 * Everything a function here does to the page cache or the readahead state
 * is emitted as the events that kernel emits for it, in its order.
 */
#include <string.h>

#include "ra_db.h"
#include "replay_local.h"

#define MMAP_LOTSAMISS 100
#define FAULT_AROUND 16		/* fault_around_bytes / PAGE_SIZE */
#define FORCE_CHUNK 512		/* force_page_cache_ra() reads 2 MiB at a time */

static bool since(const struct rp_kernel *k, int series)
{
	return k->series >= series;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static unsigned int ilog2_64(uint64_t x)
{
	return x ? 63 - (unsigned int)__builtin_clzll(x) : 0;
}

static uint64_t pow2_up(uint64_t x)
{
	return x <= 1 ? 1 : 1ULL << (ilog2_64(x - 1) + 1);
}

/* ---- the events ---- */

static int emit(struct rp_kernel *k, struct ra_event *ev, int type)
{
	int rc;

	if (k->err)
		return -1;
	ev->type = (uint32_t)type;
	ev->pid = k->pid;
	ev->ts_ns = k->ts;
	ev->cpu = -1;
	rc = k->emit(ev, k->arg);
	if (rc < 0) {
		k->err = rc;
		return -1;
	}
	return 0;
}

/* page_cache_sync_ra / page_cache_async_ra: the state found, and the request */
static int emit_trigger(struct rp_kernel *k, struct rp_ofile *of, int type, uint64_t index,
			uint64_t req)
{
	struct ra_event ev = { .has_mask = RA_HAS_PREV_POS };

	ev.ra.dev = of->f->dev;
	ev.ra.ino = of->f->ino;
	ev.ra.index = index;
	ev.ra.req_count = req;
	ev.ra.prev_pos = of->ra.prev_pos;
	ev.ra.size = of->ra.size;
	ev.ra.async_size = of->ra.async_size;
	ev.ra.ra_pages = of->ra.ra_pages;
	ev.ra.mmap_miss = of->ra.mmap_miss;
	if (since(k, RA_KS_6_17)) {
		ev.has_mask |= RA_HAS_ORDER;
		ev.ra.order = of->ra.order;
	}
	return emit(k, &ev, type);
}

/* page_cache_ra_order: the new window, and the folio order it asks */
static int emit_window(struct rp_kernel *k, struct rp_ofile *of, uint64_t start,
		       unsigned int order)
{
	struct ra_event ev = { .has_mask = RA_HAS_ORDER };

	ev.ra.dev = of->f->dev;
	ev.ra.ino = of->f->ino;
	ev.ra.index = start;
	ev.ra.order = order;
	ev.ra.size = of->ra.size;
	ev.ra.async_size = of->ra.async_size;
	ev.ra.ra_pages = of->ra.ra_pages;
	return emit(k, &ev, RA_EV_RA_ORDER);
}

static int emit_unbounded(struct rp_kernel *k, struct rp_file *f, uint64_t index, uint64_t nr,
			  uint64_t lookahead)
{
	struct ra_event ev = { 0 };

	ev.ra.dev = f->dev;
	ev.ra.ino = f->ino;
	ev.ra.index = index;
	ev.ra.size = (uint32_t)nr;
	ev.ra.async_size = (uint32_t)lookahead;
	return emit(k, &ev, RA_EV_RA_UNBOUNDED);
}

/* mm_filemap_add_to_page_cache, mm_filemap_delete_from_page_cache */
static int emit_folio(struct rp_kernel *k, struct rp_file *f, int type, uint64_t index,
		      unsigned int order)
{
	struct ra_event ev = { .has_mask = RA_HAS_ORDER };

	ev.page.dev = f->dev;
	ev.page.ino = f->ino;
	ev.page.index = index;
	ev.page.order = order;
	return emit(k, &ev, type);
}

/* mm_filemap_get_pages, mm_filemap_map_pages: a range; mm_filemap_fault: a page */
static int emit_access(struct rp_kernel *k, struct rp_file *f, int type, uint64_t index,
		       uint64_t last)
{
	struct ra_event ev = { .has_mask = type == RA_EV_FAULT ? 0 : RA_HAS_LAST_INDEX };

	ev.page.dev = f->dev;
	ev.page.ino = f->ino;
	ev.page.index = index;
	ev.page.last_index = type == RA_EV_FAULT ? 0 : last;
	return emit(k, &ev, type);
}

/* ---- the page cache ---- */

static uint32_t page(struct rp_file *f, uint64_t index)
{
	return ra_rp_page(&f->pages, index);
}

static bool present(struct rp_file *f, uint64_t index)
{
	return page(f, index) & RP_PRESENT;
}

/* A new folio in the page cache (filemap_add_folio) */
static int add_folio(struct rp_kernel *k, struct rp_file *f, uint64_t index, unsigned int order,
		     bool mark)
{
	for (uint64_t i = 0; i < 1ULL << order; i++)
		if (page(f, index + i) & RP_GHOST)	/* evicted before it was read */
			f->doubts |= RA_DOUBT_RECLAIM;
	if (ra_rp_set_folio(&f->pages, index, order, mark) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		k->err = -1;
		return -1;
	}
	return emit_folio(k, f, RA_EV_PAGE_ADD, index, order);
}

/* The last page of the file, all ones for an empty one as the kernel computes it */
static uint64_t eof_last(const struct rp_file *f)
{
	return ra_rp_eof(f) - 1;
}

/*
 * page_cache_next_miss: the index where a walk of the xarray up from
 * @index met a hole within @n steps; 0 when it wrapped; else where the
 * scan ended (6.1: its last index, 6.12 to 7.1: @index + @n, 7.2: one past
 * its last index). The walk's index is the kernel's, which a walk that
 * starts inside a large folio advances ahead of the pages it reads.
 */
static uint64_t next_miss(const struct rp_kernel *k, struct rp_file *f, uint64_t index,
			  uint64_t n)
{
	struct rp_xas x;

	ra_rp_xas_init(&x, index);
	for (uint64_t j = 0; j < n; j++) {
		if (!ra_rp_xas_next(&f->pages, &x))
			return x.index;
		if (!x.index)
			return 0;
	}
	if (!since(k, RA_KS_6_12))
		return x.index;
	return since(k, RA_KS_7_2) ? x.index + 1 : index + n;
}

/*
 * page_cache_prev_miss: the same down from @index; all ones when the walk
 * went below page 0; else where it ended (7.2: one below its last index)
 */
static uint64_t prev_miss(const struct rp_kernel *k, struct rp_file *f, uint64_t index,
			  uint64_t n)
{
	struct rp_xas x;

	ra_rp_xas_init(&x, index);
	for (uint64_t j = 0; j < n; j++) {
		if (!ra_rp_xas_prev(&f->pages, &x) || x.index == UINT64_MAX)
			return x.index;
	}
	return since(k, RA_KS_7_2) ? x.index - 1 : x.index;
}

/* ---- mm/readahead.c ---- */

static int do_ra(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t nr,
		 uint64_t lookahead);

/* get_init_ra_size: the first window of a read of @req pages */
static uint64_t init_size(const struct rp_kernel *k, uint64_t req, uint64_t max)
{
	uint64_t n = pow2_up(req);

	if (k->policy == RA_POLICY_FIXED)
		return k->fixed_pages;
	if (n <= max / 32)
		return 4 * n;
	if (n <= max / 4)
		return 2 * n;
	return max;
}

/* get_next_ra_size: the window after one of @cur pages */
static uint64_t next_size(const struct rp_kernel *k, uint64_t cur, uint64_t max)
{
	if (k->policy == RA_POLICY_FIXED)
		return k->fixed_pages;
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

/* ractl_max_pages: a read larger than the window may read up to io_pages */
static uint64_t max_pages(const struct rp_ofile *of, uint64_t req)
{
	uint64_t m = of->ra.ra_pages;

	if (req > m && of->f->io_pages > m)
		m = min64(req, of->f->io_pages);
	return m;
}

/* page_cache_ra_unbounded: order-0 pages, the mark @lookahead from the end */
static int unbounded(struct rp_kernel *k, struct rp_file *f, uint64_t index, uint64_t nr,
		     uint64_t lookahead)
{
	uint64_t mark = lookahead && lookahead <= nr ? nr - lookahead : UINT64_MAX;

	if (emit_unbounded(k, f, index, nr, lookahead) < 0)
		return -1;
	for (uint64_t i = 0; i < nr; i++) {
		if (present(f, index + i))
			continue;	/* a cached page is never marked */
		if (add_folio(k, f, index + i, 0, i == mark) < 0)
			return -1;
	}
	return 0;
}

/* do_page_cache_ra: no page past the one holding the file's last byte */
static int do_ra(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t nr,
		 uint64_t lookahead)
{
	int64_t isize = ra_rp_isize(of->f);
	uint64_t last;

	if (isize <= 0 || !nr)
		return 0;
	last = (uint64_t)(isize - 1) >> RP_PAGE_SHIFT;
	if (index > last)
		return 0;
	if (nr > last - index) {
		nr = last - index + 1;
		if (since(k, RA_KS_7_2))
			lookahead = 0;	/* a window that reaches the end has no mark */
	}
	return unbounded(k, of->f, index, nr, lookahead);
}

/*
 * The folios of a window from *@index to @limit, naturally aligned, at most
 * of @order; the folio holding @mark marked. 1 when a page was cached
 * already (the kernel's -EEXIST: *@index is where it stopped).
 */
static int alloc_folios(struct rp_kernel *k, struct rp_file *f, uint64_t *index, uint64_t limit,
			unsigned int order, uint64_t mark, bool has_mark)
{
	bool v61 = !since(k, RA_KS_6_12);

	while (*index <= limit) {
		unsigned int o = order;

		if (*index & ((1ULL << o) - 1)) {
			o = (unsigned int)__builtin_ctzll(*index);
			if (v61 && o == 1)
				o = 0;	/* 6.1 has no order-1 file folios */
		}
		while (o > 0 && *index + (1ULL << o) - 1 > limit)
			if (--o == 1 && v61)
				o = 0;
		if (ra_rp_any_present(&f->pages, *index, 1ULL << o))
			return 1;
		if (add_folio(k, f, *index, o,
			      has_mark && *index == (mark & ~((1ULL << o) - 1))) < 0)
			return -1;
		*index += 1ULL << o;
	}
	return 0;
}

/* page_cache_ra_order of 6.17 and later: the order from ra->order */
static int ra_order_new(struct rp_kernel *k, struct rp_ofile *of, uint64_t start)
{
	struct rp_ra *ra = &of->ra;
	struct rp_file *f = of->f;
	uint64_t end = start + ra->size - 1, limit = eof_last(f), index = start;
	bool has_mark = true;
	unsigned int order;
	int rc;

	if (emit_window(k, of, start, ra->order) < 0)
		return -1;
	if (!f->large || !ra->size) {
		ra->order = 0;
		goto fallback;
	}
	if (since(k, RA_KS_7_2) && limit <= end)
		has_mark = false;	/* the window reaches the end of the file */
	limit = min64(limit, end);
	order = ra->order < f->max_order ? ra->order : f->max_order;
	if (order > ilog2_64(ra->size))
		order = ilog2_64(ra->size);
	ra->order = order;
	rc = alloc_folios(k, f, &index, limit, order, start + ra->size - ra->async_size, has_mark);
	if (rc <= 0)
		return rc;
fallback:
	if (ra->size > index - start)
		return do_ra(k, of, index, ra->size - (index - start), ra->async_size);
	return 0;
}

/*
 * The folio order a window asks before 6.17: the order it was given (the
 * triggering folio's) plus two, at most the file's largest and the window
 */
static unsigned int old_order(const struct rp_kernel *k, const struct rp_file *f, uint64_t size,
			      unsigned int order)
{
	if (!since(k, RA_KS_6_12)) {
		if (order < RP_MAX_ORDER) {
			order = order + 2 < RP_MAX_ORDER ? order + 2 : RP_MAX_ORDER;
			while ((1ULL << order) > size)
				order--;
		}
		return order;
	}
	if (order < f->max_order)
		order += 2;
	if (order > f->max_order)
		order = f->max_order;
	return order < ilog2_64(size) ? order : ilog2_64(size);
}

/*
 * page_cache_ra_order before 6.17. A window it cannot read in large folios
 * (one page cached already) it reads with order-0 pages: from where it
 * stopped, the rest of it (6.16), or the whole size again (6.1, 6.12).
 */
static int ra_order_old(struct rp_kernel *k, struct rp_ofile *of, uint64_t start,
			unsigned int order)
{
	struct rp_ra *ra = &of->ra;
	struct rp_file *f = of->f;
	bool large = f->large && ra->size >= 4;
	uint64_t index = start;
	int rc;

	if (large)
		order = old_order(k, f, ra->size, order);
	if (emit_window(k, of, start, large ? order : 0) < 0)
		return -1;
	if (large) {
		rc = alloc_folios(k, f, &index, min64(eof_last(f), start + ra->size - 1), order,
				  start + ra->size - ra->async_size, true);
		if (rc <= 0)
			return rc;
	}
	if (!since(k, RA_KS_6_16))
		return do_ra(k, of, index, ra->size, ra->async_size);
	if (ra->size > index - start)
		return do_ra(k, of, index, ra->size - (index - start), ra->async_size);
	return 0;
}

/* force_page_cache_ra: no readahead state, at most max(io_pages, ra_pages) */
int ra_rp_force(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t nr)
{
	uint64_t max = of->f->io_pages > of->ra.ra_pages ? of->f->io_pages : of->ra.ra_pages;

	nr = min64(nr, max);
	while (nr && !k->err) {
		uint64_t chunk = min64(nr, FORCE_CHUNK);

		if (do_ra(k, of, index, chunk, 0) < 0)
			return -1;
		index += chunk;
		nr -= chunk;
	}
	return k->err ? -1 : 0;
}

/* The window of a sync readahead read: ra->order 0 from 6.17 */
static int sync_readit(struct rp_kernel *k, struct rp_ofile *of)
{
	if (!since(k, RA_KS_6_17))
		return ra_order_old(k, of, of->ra.start, 0);
	of->ra.order = 0;
	return ra_order_new(k, of, of->ra.start);
}

/* A window after a sync trigger: the policy's size, else the kernel's */
static void sync_window(struct rp_kernel *k, struct rp_ra *ra, uint64_t index, uint64_t size,
			uint32_t async)
{
	ra->start = index;
	ra->size = (uint32_t)size;
	ra->async_size = async;
	if (k->policy == RA_POLICY_FIXED) {
		ra->size = k->fixed_pages;
		ra->async_size = k->fixed_pages;
	}
}

/*
 * page_cache_sync_ra of 6.12 and later: a new window at @index, of the
 * initial size when the read is sequential, else as large as the pages
 * cached before it say (context readahead), else just the pages asked.
 */
static int sync_ra(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t req)
{
	struct rp_ra *ra = &of->ra;
	uint64_t max, prev, miss, contig, size;

	if (emit_trigger(k, of, RA_EV_SYNC_RA, index, req) < 0)
		return -1;
	if (!ra->ra_pages)
		return ra_rp_force(k, of, index, 1);
	max = max_pages(of, req);
	prev = (uint64_t)ra->prev_pos >> RP_PAGE_SHIFT;
	if (!index || req > max || index - prev <= 1) {
		size = init_size(k, req, max);
		sync_window(k, ra, index, size, size > req ? (uint32_t)(size - req) :
			    (uint32_t)(size >> 1));
		return sync_readit(k, of);
	}
	miss = prev_miss(k, of->f, index - 1, max);
	contig = index - miss - 1;
	if (contig <= req)	/* a small random read: no window */
		return do_ra(k, of, index, req, 0);
	if (miss == UINT64_MAX)
		contig *= 2;	/* cached from the start: a long stream */
	sync_window(k, ra, index, min64(contig + req, max), 1);
	return sync_readit(k, of);
}

/* The end of an async window cut to its folio order (6.17 and later) */
static void trim_window(struct rp_kernel *k, struct rp_ra *ra, uint64_t max)
{
	uint64_t align, end, aligned_end;

	ra->order += 2;
	if (k->policy == RA_POLICY_FIXED)
		return;
	align = 1ULL << (ra->order < (unsigned int)__builtin_ctzll(max) ? ra->order :
			 (unsigned int)__builtin_ctzll(max));
	end = ra->start + ra->size;
	aligned_end = end & ~(align - 1);
	if (aligned_end > ra->start)
		ra->size -= (uint32_t)(end - aligned_end);
}

/*
 * page_cache_async_ra of 6.12 and later: the mark of the folio at @head was
 * hit at @index. The window after the state's own when the mark is where it
 * put it, else one from the pages cached after the mark.
 */
static int async_ra(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t head,
		    uint64_t req)
{
	struct rp_ra *ra = &of->ra;
	uint64_t max, expected, start, fsize = 1ULL << rp_order(page(of->f, head));

	if (!ra->ra_pages)
		return 0;	/* the mark stays */
	if (emit_trigger(k, of, RA_EV_ASYNC_RA, index, req) < 0)
		return -1;
	ra_rp_set_mark(&of->f->pages, head, false);
	max = max_pages(of, req);
	expected = (ra->start + ra->size - ra->async_size) & ~(fsize - 1);
	if (index == expected) {
		ra->start += ra->size;
		if (next_size(k, ra->size, max) > ra->size || k->policy == RA_POLICY_FIXED)
			ra->size = (uint32_t)next_size(k, ra->size, max);
	} else {
		start = next_miss(k, of->f, index + 1, max);
		if (!start || start - index > max)
			return 0;
		ra->start = start;
		ra->size = (uint32_t)next_size(k, start - index + req, max);
	}
	if (!since(k, RA_KS_6_17)) {
		ra->async_size = ra->size;
		return ra_order_old(k, of, ra->start, rp_order(page(of->f, head)));
	}
	trim_window(k, ra, max);
	ra->async_size = ra->size;
	return ra_order_new(k, of, ra->start);
}

/* ---- 6.1: one ondemand_readahead for both triggers ---- */

/* The state's next window, when @index is where the state expects a read */
static bool ondemand_next(struct rp_kernel *k, struct rp_ra *ra, uint64_t index,
			  unsigned int order, uint64_t max)
{
	uint64_t expected = (ra->start + ra->size - ra->async_size) & ~((1ULL << order) - 1);

	if (index != expected && index != ra->start + ra->size)
		return false;
	ra->start += ra->size;
	if (next_size(k, ra->size, max) > ra->size || k->policy == RA_POLICY_FIXED)
		ra->size = (uint32_t)next_size(k, ra->size, max);
	ra->async_size = ra->size;
	return true;
}

/* try_context_readahead: a window as large as the pages cached before @index */
static bool ondemand_context(struct rp_kernel *k, struct rp_ofile *of, uint64_t index,
			     uint64_t req, uint64_t max)
{
	uint64_t n = index - 1 - prev_miss(k, of->f, index - 1, max);

	if (n <= req)
		return false;
	if (n >= index)
		n *= 2;
	sync_window(k, &of->ra, index, min64(n + req, max), 1);
	return true;
}

/* The window a read would reach at once is merged with the one after it */
static int ondemand_readit(struct rp_kernel *k, struct rp_ofile *of, uint64_t index,
			   unsigned int order, uint64_t max)
{
	struct rp_ra *ra = &of->ra;

	if (index == ra->start && ra->size == ra->async_size) {
		uint64_t add = next_size(k, ra->size, max);

		if (ra->size + add <= max) {
			ra->async_size = (uint32_t)add;
			ra->size += (uint32_t)add;
		} else {
			ra->size = (uint32_t)max;
			ra->async_size = (uint32_t)(max >> 1);
		}
	}
	return ra_order_old(k, of, ra->start, order);
}

/* ondemand_readahead: @head is the marked folio for an async trigger, else all ones */
static int ondemand(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t head,
		    uint64_t req)
{
	struct rp_ra *ra = &of->ra;
	unsigned int order = head == UINT64_MAX ? 0 : rp_order(page(of->f, head));
	uint64_t max = max_pages(of, req), start, size;

	if (!index)
		goto initial;
	if (ondemand_next(k, ra, index, order, max))
		return ondemand_readit(k, of, index, order, max);
	if (head != UINT64_MAX) {
		start = next_miss(k, of->f, index + 1, max);
		if (!start || start - index > max)
			return 0;
		ra->start = start;
		ra->size = (uint32_t)next_size(k, start - index + req, max);
		ra->async_size = ra->size;
		return ondemand_readit(k, of, index, order, max);
	}
	if (req > max || index - ((uint64_t)ra->prev_pos >> RP_PAGE_SHIFT) <= 1)
		goto initial;
	if (ondemand_context(k, of, index, req, max))
		return ondemand_readit(k, of, index, order, max);
	return do_ra(k, of, index, req, 0);
initial:
	size = init_size(k, req, max);
	sync_window(k, ra, index, size, (uint32_t)(size > req ? size - req : size));
	return ondemand_readit(k, of, index, order, max);
}

/* page_cache_sync_ra: a read or a fault missed @index */
static int trigger_sync(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t req)
{
	if (since(k, RA_KS_6_12))
		return sync_ra(k, of, index, req);
	if (emit_trigger(k, of, RA_EV_SYNC_RA, index, req) < 0)
		return -1;
	if (!of->ra.ra_pages)
		return ra_rp_force(k, of, index, 1);
	return ondemand(k, of, index, UINT64_MAX, req);
}

/* page_cache_async_ra: a read or a fault met the marked folio at @head */
static int trigger_async(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t head,
			 uint64_t req)
{
	if (since(k, RA_KS_6_12))
		return async_ra(k, of, index, head, req);
	if (!of->ra.ra_pages)
		return 0;
	if (emit_trigger(k, of, RA_EV_ASYNC_RA, index, req) < 0)
		return -1;
	ra_rp_set_mark(&of->f->pages, head, false);
	return ondemand(k, of, index, head, req);
}

/* ---- mm/filemap.c: read() ---- */

/* The folios a read takes at once (filemap_get_read_batch) */
struct batch {
	uint64_t first, last_head, end;	/* end: one past its last folio */
	int n;
	bool marked;			/* its last folio carries the mark */
};

static void get_batch(const struct rp_kernel *k, struct rp_file *f, uint64_t index,
		      uint64_t max, struct batch *b)
{
	int cap = since(k, RA_KS_6_12) ? 31 : 15;
	uint64_t i = index;

	memset(b, 0, sizeof(*b));
	while (i <= max) {
		uint32_t v = page(f, i);

		if (!(v & RP_PRESENT))
			break;
		b->last_head = i & ~((1ULL << rp_order(v)) - 1);
		if (!b->n++)
			b->first = b->last_head;
		b->end = b->last_head + (1ULL << rp_order(v));
		b->marked = v & RP_MARK;
		if (b->n == cap || b->marked)
			break;
		i = b->end;
	}
}

/*
 * filemap_get_pages: the batch at @index of a read whose pages end before
 * @last_index; readahead when it misses or ends on a mark
 */
static int get_pages(struct rp_kernel *k, struct rp_ofile *of, uint64_t index,
		     uint64_t last_index, struct batch *b)
{
	struct rp_file *f = of->f;

	get_batch(k, f, index, last_index - 1, b);
	if (!b->n) {
		if (trigger_sync(k, of, index, last_index - index) < 0)
			return -1;
		get_batch(k, f, index, last_index - 1, b);
	}
	if (!b->n) {	/* filemap_create_folio: one page, read at once, no event */
		if (add_folio(k, f, index, 0, false) < 0)
			return -1;
		get_batch(k, f, index, index, b);
		return 0;
	}
	if (b->marked && trigger_async(k, of, b->last_head, b->last_head,
				       last_index - b->last_head) < 0)
		return -1;
	if (since(k, RA_KS_6_12))
		return emit_access(k, f, RA_EV_GET_PAGES, index, last_index - 1);
	return 0;
}

/* The pages of [@from, @to) a read copied */
static void copied(struct rp_file *f, int64_t from, int64_t to)
{
	uint64_t first = (uint64_t)from >> RP_PAGE_SHIFT;
	uint64_t last = (uint64_t)(to - 1) >> RP_PAGE_SHIFT;

	ra_rp_set_bits(&f->pages, first, last - first + 1, RP_READ, true);
}

/*
 * filemap_read: a read() of [@pos, @end). prev_pos is the end of what was
 * copied: after each folio in 6.1, once at the end from 6.12. 6.1 has no
 * mm_filemap_get_pages: one event per read stands for it, as the project's
 * probes give it.
 */
int ra_rp_read(struct rp_kernel *k, struct rp_ofile *of, int64_t pos, int64_t end)
{
	int64_t isize = ra_rp_isize(of->f), last_pos = of->ra.prev_pos, first = pos;
	struct batch b;

	while (pos < end && pos < isize && !k->err) {
		int64_t stop = end < isize ? end : isize, before = pos;
		uint64_t last_index = ((uint64_t)end + RP_PAGE_SIZE - 1) >> RP_PAGE_SHIFT;

		if (get_pages(k, of, (uint64_t)pos >> RP_PAGE_SHIFT, last_index, &b) < 0)
			return -1;
		for (uint64_t h = b.first; h < b.end && pos < stop;) {
			uint64_t fend = h + (1ULL << rp_order(page(of->f, h)));
			int64_t to = (int64_t)(fend << RP_PAGE_SHIFT) < stop ?
				     (int64_t)(fend << RP_PAGE_SHIFT) : stop;

			copied(of->f, pos, to);
			pos = last_pos = to;
			if (!since(k, RA_KS_6_12))
				of->ra.prev_pos = pos;
			h = fend;
		}
		if (pos == before)
			break;
	}
	if (!since(k, RA_KS_6_12) && pos > first)
		emit_access(k, of->f, RA_EV_GET_PAGES, (uint64_t)first >> RP_PAGE_SHIFT,
			    ((uint64_t)end - 1) >> RP_PAGE_SHIFT);
	of->ra.prev_pos = last_pos;
	return k->err ? -1 : 0;
}

/* ---- mm/filemap.c and mm/memory.c: page faults ---- */

static uint32_t map_bit(const struct rp_ofile *of)
{
	return (uint32_t)(RP_MAPPED0 << (of->map_slot < 0 ? 0 : of->map_slot));
}

static bool mapped(const struct rp_ofile *of, uint64_t index)
{
	return ra_rp_page(&of->f->pages, index) & map_bit(of);
}

/* A folio fault-around maps: from 6.18 a whole folio inside the file, else its pages in range */
static uint64_t map_folio(struct rp_kernel *k, struct rp_ofile *of, uint64_t head, uint64_t a,
			  uint64_t b)
{
	uint64_t end = head + (1ULL << rp_order(page(of->f, head))) - 1;
	uint64_t from = head > a ? head : a, to = end < b ? end : b;

	if (since(k, RA_KS_6_18) && end < eof_last(of->f)) {
		from = head;
		to = end;
	}
	ra_rp_set_bits(&of->f->pages, from, to - from + 1, map_bit(of), true);
	return to - from + 1;
}

/*
 * filemap_map_pages: map the cached folios of [@a, @b] that are not marked
 * (all are uptodate and unlocked here); mmap_miss goes down by the pages
 * seen, and from 7.2 by one at most, for the folio of the fault.
 */
static int fault_around(struct rp_kernel *k, struct rp_ofile *of, uint64_t a, uint64_t b,
			uint64_t fault, bool tried)
{
	struct rp_ra *ra = &of->ra;
	uint64_t seen = 0, i = a, head;
	bool any = false;

	b = min64(b, eof_last(of->f));
	while (i <= b && a <= b) {
		if (!present(of->f, i)) {
			i++;
			continue;
		}
		head = ra_rp_head(&of->f->pages, i);
		if (!(page(of->f, head) & RP_MARK)) {	/* a marked folio waits for its fault */
			any = true;
			seen += map_folio(k, of, head, i, b);
		}
		i = head + (1ULL << rp_order(page(of->f, head)));
	}
	if (!any)
		return 0;
	if (!since(k, RA_KS_7_2))
		ra->mmap_miss = seen >= ra->mmap_miss ? 0 : ra->mmap_miss - (uint32_t)seen;
	else if (mapped(of, fault) && !tried && of->vm == RP_VM_NORMAL && ra->mmap_miss)
		ra->mmap_miss--;
	return emit_access(k, of->f, RA_EV_MAP_PAGES, a, b);
}

/* do_sync_mmap_readahead: the page is not cached; whether readahead ran */
static int sync_mmap(struct rp_kernel *k, struct rp_ofile *of, uint64_t index)
{
	struct rp_ra *ra = &of->ra;

	if (of->vm == RP_VM_RAND || !ra->ra_pages)
		return 0;
	if (of->vm == RP_VM_SEQ)
		return trigger_sync(k, of, index, ra->ra_pages) < 0 ? -1 : 1;
	if (ra->mmap_miss < MMAP_LOTSAMISS * 10)
		ra->mmap_miss++;
	if (ra->mmap_miss > MMAP_LOTSAMISS)
		return 0;
	/* read-around: the window centred on the fault */
	ra->start = index >= ra->ra_pages / 2 ? index - ra->ra_pages / 2 : 0;
	ra->size = ra->ra_pages;
	ra->async_size = ra->ra_pages / 4;
	if (!since(k, RA_KS_6_17))
		return ra_order_old(k, of, ra->start, 0) < 0 ? -1 : 1;
	ra->order = 0;
	return ra_order_new(k, of, ra->start) < 0 ? -1 : 1;
}

/* do_async_mmap_readahead: the page is cached; whether readahead ran */
static int async_mmap(struct rp_kernel *k, struct rp_ofile *of, uint64_t index)
{
	struct rp_ra *ra = &of->ra;
	uint64_t head = ra_rp_head(&of->f->pages, index);

	if (of->vm == RP_VM_RAND || !ra->ra_pages)
		return 0;
	if (ra->mmap_miss && !(since(k, RA_KS_7_2) && of->vm == RP_VM_SEQ))
		ra->mmap_miss--;
	if (!(page(of->f, head) & RP_MARK))
		return 0;
	return trigger_async(k, of, index, head, ra->ra_pages) < 0 ? -1 : 1;
}

/*
 * One attempt of filemap_fault at @index: 1 when the page got mapped, 0
 * when the fault is retried (readahead or a read dropped the lock: the
 * retry of a major fault has FAULT_FLAG_TRIED, from 6.12 a minor one not)
 */
static int fault(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, bool *tried)
{
	int rc;

	if (emit_access(k, of->f, RA_EV_FAULT, index, index) < 0)
		return -1;
	if (present(of->f, index)) {
		rc = *tried ? 0 : async_mmap(k, of, index);
		if (rc <= 0) {
			ra_rp_set_bits(&of->f->pages, index, 1, map_bit(of) | RP_READ, true);
			return rc < 0 ? -1 : 1;
		}
		*tried = !since(k, RA_KS_6_12);
		return 0;
	}
	if (sync_mmap(k, of, index) < 0)
		return -1;
	if (!present(of->f, index) && add_folio(k, of->f, index, 0, false) < 0)
		return -1;
	*tried = true;
	return 0;
}

/*
 * A touch of page @index of a mapping not yet mapped there: fault-around
 * over [@fa_first, @fa_last] first; when that did not map the page,
 * filemap_fault, and again after a retry.
 */
int ra_rp_touch(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t fa_first,
		uint64_t fa_last)
{
	bool tried = false;
	int rc = 0;

	if (index >= ra_rp_eof(of->f) || mapped(of, index))
		return 0;	/* SIGBUS, or no fault at all */
	for (int attempt = 0; attempt < 3 && !rc; attempt++) {
		if (fault_around(k, of, fa_first, fa_last, index, tried) < 0)
			return -1;
		if (mapped(of, index)) {
			ra_rp_set_bits(&of->f->pages, index, 1, RP_READ, true);
			return 0;
		}
		rc = fault(k, of, index, &tried);
	}
	return rc < 0 ? -1 : 0;
}

/* ---- what the run did that no access explains ---- */

int ra_rp_written(struct rp_kernel *k, struct rp_file *f, uint64_t index, unsigned int order)
{
	if (order > RP_MAX_ORDER || ra_rp_any_present(&f->pages, index, 1ULL << order))
		return 0;
	return add_folio(k, f, index, order, false);
}

int ra_rp_evict(struct rp_kernel *k, struct rp_file *f, uint64_t index, unsigned int order)
{
	uint64_t end = index + (1ULL << (order > RP_MAX_ORDER ? 0 : order));

	for (uint64_t i = index; i < end && !k->err;) {
		uint64_t head;
		unsigned int o;

		if (!present(f, i)) {
			i++;
			continue;
		}
		head = ra_rp_head(&f->pages, i);
		o = rp_order(page(f, head));
		ra_rp_clear_folio(&f->pages, head);
		if (emit_folio(k, f, RA_EV_PAGE_DELETE, head, o) < 0)
			return -1;
		i = head + (1ULL << o);
	}
	return k->err ? -1 : 0;
}
