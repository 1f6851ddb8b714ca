// SPDX-License-Identifier: LGPL-2.1
/*
 * The replay's store of pages: 32 bits per page of a file (replay_local.h),
 * in chunks of 4096 pages made when a page of theirs is first written, so
 * that a file costs what the run touched of it, bounded by its size. A
 * chunk holds room for its pages up to the highest written (16 at least,
 * doubled as needed): a small file costs about its own pages.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_local.h"

int ra_rp_chunks_init(struct rp_chunks *chunks)
{
	memset(chunks, 0, sizeof(*chunks));
	return ra_map_init(&chunks->map, sizeof(struct rp_chunk));
}

void ra_rp_pages_init(struct rp_pages *p, struct rp_chunks *chunks, uint64_t id)
{
	memset(p, 0, sizeof(*p));
	p->chunks = chunks;
	p->id = id;
}

#define CHUNK_MIN 16

void ra_rp_chunks_release(struct rp_chunks *chunks)
{
	ra_slab_release(&chunks->slab);
	ra_map_release(&chunks->map);
}

/* Chunk *@ch with room for page @off of it: 0, or -1 out of memory. */
static int chunk_room(struct rp_chunks *chunks, struct rp_chunk *ch, uint32_t off)
{
	uint32_t want = ch->room ? ch->room : CHUNK_MIN;
	uint32_t *c;

	if (off < ch->room)
		return 0;
	while (want <= off)
		want *= 2;
	c = ra_slab_realloc(&chunks->slab, ch->c, (size_t)ch->room * sizeof(uint32_t),
			    (size_t)want * sizeof(uint32_t));
	if (!c)
		return -1;
	ch->c = c;
	ch->room = want;
	return 0;
}

/*
 * The key of a file's chunk, never 0 (file numbers below RP_FILES_MAX):
 * chunk numbers above the bits of file numbers, so that the first chunks
 * of files numbered in a row have keys in a row, near in the map
 * (pagemap.h)
 */
static uint64_t chunk_key(const struct rp_pages *p, uint64_t index)
{
	return ((index >> RP_CHUNK_SHIFT) << RP_FILE_BITS | p->id) + 1;
}

/* The chunk of page @index; made when @make, else NULL when there is none. */
static const struct rp_chunk *chunk_of(struct rp_pages *p, uint64_t index, bool make)
{
	uint64_t key = chunk_key(p, index);
	struct rp_chunk *slot;
	bool fresh;

	if (key == p->last_no && (!make || (index & (RP_CHUNK - 1)) < p->last.room))
		return &p->last;
	if (!make)
		return ra_map_get(&p->chunks->map, key);
	slot = ra_map_put(&p->chunks->map, key, &fresh);
	if (!slot)
		return NULL;
	if (chunk_room(p->chunks, slot, (uint32_t)(index & (RP_CHUNK - 1))) < 0) {
		if (fresh)
			ra_map_del(&p->chunks->map, key);
		if (key == p->last_no)
			p->last_no = 0;
		return NULL;
	}
	p->last_no = key;
	p->last = *slot;
	return &p->last;
}

uint32_t ra_rp_page(struct rp_pages *p, uint64_t index)
{
	const struct rp_chunk *ch = index < RP_PAGES_MAX ? chunk_of(p, index, false) : NULL;
	uint32_t off = (uint32_t)(index & (RP_CHUNK - 1));

	return ch && off < ch->room ? ch->c[off] : 0;
}

uint32_t *ra_rp_page_at(struct rp_pages *p, uint64_t index)
{
	const struct rp_chunk *ch;

	if (index >= RP_PAGES_MAX) {
		p->scratch = 0;
		return &p->scratch;
	}
	ch = chunk_of(p, index, true);
	return ch ? &ch->c[index & (RP_CHUNK - 1)] : NULL;
}

int ra_rp_chunks_each(struct rp_chunks *chunks,
		      int (*fn)(uint64_t id, uint64_t index, uint32_t *v, void *arg), void *arg)
{
	for (size_t i = 0; i < chunks->map.cap; i++) {
		const struct rp_chunk *ch = ra_map_at(&chunks->map, i);
		uint64_t key = chunks->map.keys[i] - 1;
		int rc;

		if (!ch)
			continue;
		for (uint32_t k = 0; k < ch->room; k++) {
			if (!ch->c[k])
				continue;
			rc = fn(key & ((1ULL << RP_FILE_BITS) - 1),
				((key >> RP_FILE_BITS) << RP_CHUNK_SHIFT) + k, &ch->c[k], arg);
			if (rc)
				return rc;
		}
	}
	return 0;
}

uint64_t ra_rp_head(struct rp_pages *p, uint64_t index)
{
	unsigned int order = rp_order(ra_rp_page(p, index));

	return index & ~((1ULL << order) - 1);
}

bool ra_rp_any_present(struct rp_pages *p, uint64_t index, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (ra_rp_page(p, index + i) & RP_PRESENT)
			return true;
	return false;
}

int ra_rp_set_folio(struct rp_pages *p, uint64_t index, unsigned int order, bool mark)
{
	uint32_t set = RP_PRESENT | (uint32_t)(order << RP_ORDER_SHIFT) | (mark ? RP_MARK : 0);

	if (index + (1ULL << order) > p->top)
		p->top = index + (1ULL << order);

	for (uint64_t i = 0; i < 1ULL << order; i++) {
		uint32_t *v = ra_rp_page_at(p, index + i);

		if (!v)
			return -1;
		*v = (uint32_t)((*v & ~(RP_MARK | RP_ORDER_MASK | RP_READ | RP_GHOST)) | set);
	}
	return 0;
}

bool ra_rp_clear_folio(struct rp_pages *p, uint64_t head)
{
	unsigned int order = rp_order(ra_rp_page(p, head));
	bool unread = false;

	for (uint64_t i = 0; i < 1ULL << order; i++) {
		uint32_t *v = ra_rp_page_at(p, head + i);

		if (!v || !(*v & RP_PRESENT))
			continue;
		unread |= !(*v & RP_READ);
		/* a page deleted before it was read: reclaim, if it is read later */
		*v = (uint32_t)((*v & ~(RP_PRESENT | RP_MARK | RP_ORDER_MASK | RP_READ)) |
				(*v & RP_READ ? 0 : RP_GHOST));
		*v &= (uint32_t)~(0xffu * RP_MAPPED0);
	}
	return unread;
}

void ra_rp_set_mark(struct rp_pages *p, uint64_t head, bool on)
{
	unsigned int order = rp_order(ra_rp_page(p, head));

	for (uint64_t i = 0; i < 1ULL << order; i++) {
		uint32_t *v = ra_rp_page_at(p, head + i);

		if (v)
			*v = (uint32_t)(on ? *v | RP_MARK : *v & ~RP_MARK);
	}
}

int ra_rp_set_bits(struct rp_pages *p, uint64_t index, uint64_t n, uint32_t bits, bool on)
{
	for (uint64_t i = 0; i < n; i++) {
		uint32_t *v;

		if (!on && !(ra_rp_page(p, index + i) & bits))
			continue;	/* nothing to clear: no chunk made for it */
		v = ra_rp_page_at(p, index + i);
		if (!v)
			return -1;
		*v = (uint32_t)(on ? *v | bits : *v & ~bits);
	}
	return 0;
}

uint64_t ra_rp_eof(const struct rp_file *f)
{
	if (f->size >= 0)
		return (uint64_t)(f->size + RP_PAGE_SIZE - 1) >> RP_PAGE_SHIFT;
	return f->seen_end ? f->seen_end : RP_NO_EOF;
}

int64_t ra_rp_isize(const struct rp_file *f)
{
	if (f->size >= 0)
		return f->size;
	return (int64_t)(ra_rp_eof(f) << RP_PAGE_SHIFT);
}

/* ---- the xarray of the page cache, walked ---- */

#define XA_SHIFT 6
#define XA_SLOTS 64

enum xe { XE_NULL, XE_ENTRY, XE_SIBLING, XE_NODE };

static uint64_t span(unsigned int level)
{
	return 1ULL << (XA_SHIFT * level);
}

/* The levels of nodes: 0 when page 0 alone is stored, in the head itself */
static unsigned int height(struct rp_pages *p)
{
	uint64_t max = p->top ? p->top - 1 : 0;
	unsigned int h = 1;
	uint32_t v = ra_rp_page(p, 0);

	/* a multi-index entry is never stored at index 0 of a tree of its size */
	if ((v & RP_PRESENT) && rp_order(v) && max == (1ULL << rp_order(v)) - 1)
		max++;
	if (!max)
		return 0;
	while (h < 10 && max > span(h) - 1)
		h++;
	return h;
}

static bool any_present(struct rp_pages *p, uint64_t first, uint64_t n)
{
	for (uint64_t i = first; i < first + n; i++) {
		if (!(i & (RP_CHUNK - 1)) && n - (i - first) >= RP_CHUNK &&
		    !chunk_of(p, i, false)) {
			i += RP_CHUNK - 1;	/* a chunk never written holds nothing */
			continue;
		}
		if (ra_rp_page(p, i) & RP_PRESENT)
			return true;
	}
	return false;
}

/*
 * What slot @off of the node at @level from @base holds: a folio, a sibling
 * of one (its first slot in *@canon), a node below, or nothing. A folio
 * lies in the node whose slots are as large as its order allows.
 */
static enum xe slot(struct rp_pages *p, unsigned int level, uint64_t base, unsigned int off,
		    unsigned int *canon)
{
	uint64_t s = base + off * span(level), head;
	uint32_t v = ra_rp_page(p, s);
	unsigned int o = rp_order(v);

	if ((v & RP_PRESENT) && o >= XA_SHIFT * level && o < XA_SHIFT * (level + 1)) {
		head = s & ~((1ULL << o) - 1);
		*canon = (unsigned int)((head - base) >> (XA_SHIFT * level));
		return s == head ? XE_ENTRY : XE_SIBLING;
	}
	if (level && any_present(p, s, span(level)))
		return XE_NODE;
	return XE_NULL;
}

static unsigned int offset_of(uint64_t index, unsigned int level)
{
	return (unsigned int)(index >> (XA_SHIFT * level)) & (XA_SLOTS - 1);
}

/* xas_load: down from the head to the entry of the index; a sibling leads to its folio */
static bool xas_load(struct rp_pages *p, struct rp_xas *x)
{
	unsigned int h = height(p), canon = 0;
	enum xe e;

	if (!h) {
		x->state = x->index ? RP_XS_BOUNDS : RP_XS_HEAD;
		return !x->index && (ra_rp_page(p, 0) & RP_PRESENT);
	}
	if (x->index > span(h) - 1) {
		x->state = RP_XS_BOUNDS;
		return false;
	}
	x->state = RP_XS_NODE;
	x->level = h - 1;
	x->base = 0;
	for (;;) {
		x->offset = offset_of(x->index, x->level);
		e = slot(p, x->level, x->base, x->offset, &canon);
		if (e == XE_SIBLING) {
			x->offset = canon;
			e = XE_ENTRY;
		}
		if (e != XE_NODE || !x->level)
			return e != XE_NULL;
		x->base += x->offset * span(x->level);
		x->level--;
	}
}

/* Up to the parent node when the slot left this one; false past the top */
static bool climb(struct rp_pages *p, struct rp_xas *x, bool down)
{
	unsigned int h = height(p);

	while (x->offset == (down ? 255U : XA_SLOTS)) {
		unsigned int mine = offset_of(x->base, x->level + 1);

		if (x->level + 1 >= h) {
			x->state = RP_XS_BOUNDS;
			return false;
		}
		x->offset = down ? (mine - 1) & 255 : mine + 1;
		x->level++;
		x->base &= ~(span(x->level + 1) - 1);
	}
	return true;
}

/* The entry at the walk's slot, down into nodes to the slot of its index */
static bool settle(struct rp_pages *p, struct rp_xas *x)
{
	unsigned int canon;

	for (;;) {
		enum xe e = slot(p, x->level, x->base, x->offset, &canon);

		if (e != XE_NODE || !x->level)
			return e != XE_NULL;
		x->base += x->offset * span(x->level);
		x->level--;
		x->offset = offset_of(x->index, x->level);
	}
}

/* __xas_prev and __xas_next: the index moves, the slot follows it when they agree */
static bool xas_step(struct rp_pages *p, struct rp_xas *x, bool down)
{
	if (x->state != RP_XS_RESTART)
		x->index += down ? -1ULL : 1;
	if (x->state == RP_XS_HEAD) {
		x->state = RP_XS_BOUNDS;
		return false;
	}
	if (x->state != RP_XS_NODE)
		return xas_load(p, x);
	if (x->offset != offset_of(x->index, x->level))
		x->offset = down ? (x->offset - 1) & 255 : x->offset + 1;
	return climb(p, x, down) && settle(p, x);
}

void ra_rp_xas_init(struct rp_xas *x, uint64_t index)
{
	memset(x, 0, sizeof(*x));
	x->index = index;
	x->state = RP_XS_RESTART;
}

bool ra_rp_xas_prev(struct rp_pages *p, struct rp_xas *x)
{
	unsigned int canon;

	if (x->state != RP_XS_NODE || x->level || !x->offset)
		return xas_step(p, x, true);
	x->index--;
	x->offset--;
	return slot(p, 0, x->base, x->offset, &canon) != XE_NULL;
}

bool ra_rp_xas_next(struct rp_pages *p, struct rp_xas *x)
{
	unsigned int canon;

	if (x->state != RP_XS_NODE || x->level || x->offset == XA_SLOTS - 1)
		return xas_step(p, x, false);
	x->index++;
	x->offset++;
	return slot(p, 0, x->base, x->offset, &canon) != XE_NULL;
}
