// SPDX-License-Identifier: LGPL-2.1
/*
 * The replay's store of pages: 16 bits per page of a file (replay_local.h),
 * in chunks of 4096 pages made when a page of theirs is first written, so
 * that a file costs what the run touched of it, bounded by its size.
 */
#include <stdlib.h>
#include <string.h>

#include "replay_local.h"

int ra_rp_pages_init(struct rp_pages *p)
{
	memset(p, 0, sizeof(*p));
	return ra_map_init(&p->chunks, sizeof(uint16_t *));
}

void ra_rp_pages_release(struct rp_pages *p)
{
	for (size_t i = 0; i < p->chunks.cap; i++) {
		uint16_t **c = (uint16_t **)((char *)p->chunks.vals + i * sizeof(uint16_t *));

		if (p->chunks.keys[i])
			free(*c);
	}
	ra_map_release(&p->chunks);
	memset(p, 0, sizeof(*p));
}

/* The chunk of page @index; made when @make, else NULL when there is none. */
static uint16_t *chunk_of(struct rp_pages *p, uint64_t index, bool make)
{
	uint64_t no = (index >> RP_CHUNK_SHIFT) + 1;
	uint16_t **slot;
	bool fresh;

	if (no == p->last_no)
		return p->last;
	if (!make) {
		slot = ra_map_get(&p->chunks, no);
		return slot ? *slot : NULL;
	}
	slot = ra_map_put(&p->chunks, no, &fresh);
	if (!slot)
		return NULL;
	if (fresh && !(*slot = calloc(RP_CHUNK, sizeof(uint16_t)))) {
		ra_map_del(&p->chunks, no);
		return NULL;
	}
	p->last_no = no;
	p->last = *slot;
	return *slot;
}

uint16_t ra_rp_page(struct rp_pages *p, uint64_t index)
{
	uint16_t *c = chunk_of(p, index, false);

	return c ? c[index & (RP_CHUNK - 1)] : 0;
}

uint16_t *ra_rp_page_at(struct rp_pages *p, uint64_t index)
{
	uint16_t *c = chunk_of(p, index, true);

	return c ? &c[index & (RP_CHUNK - 1)] : NULL;
}

int ra_rp_pages_each(struct rp_pages *p, int (*fn)(uint64_t index, uint16_t *v, void *arg),
		     void *arg)
{
	for (size_t i = 0; i < p->chunks.cap; i++) {
		uint64_t no = p->chunks.keys[i];
		uint16_t *c;
		int rc;

		if (!no)
			continue;
		c = *(uint16_t **)((char *)p->chunks.vals + i * sizeof(uint16_t *));
		for (uint32_t k = 0; k < RP_CHUNK; k++) {
			if (!c[k])
				continue;
			rc = fn(((no - 1) << RP_CHUNK_SHIFT) + k, &c[k], arg);
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
	uint16_t set = RP_PRESENT | (uint16_t)(order << RP_ORDER_SHIFT) | (mark ? RP_MARK : 0);

	for (uint64_t i = 0; i < 1ULL << order; i++) {
		uint16_t *v = ra_rp_page_at(p, index + i);

		if (!v)
			return -1;
		*v = (uint16_t)((*v & ~(RP_MARK | RP_ORDER_MASK | RP_READ | RP_GHOST)) | set);
	}
	return 0;
}

bool ra_rp_clear_folio(struct rp_pages *p, uint64_t head)
{
	unsigned int order = rp_order(ra_rp_page(p, head));
	bool unread = false;

	for (uint64_t i = 0; i < 1ULL << order; i++) {
		uint16_t *v = ra_rp_page_at(p, head + i);

		if (!v || !(*v & RP_PRESENT))
			continue;
		unread |= !(*v & RP_READ);
		/* a page deleted before it was read: reclaim, if it is read later */
		*v = (uint16_t)((*v & ~(RP_PRESENT | RP_MARK | RP_ORDER_MASK | RP_READ)) |
				(*v & RP_READ ? 0 : RP_GHOST));
		*v &= (uint16_t)~(0xfu * RP_MAPPED0);
	}
	return unread;
}

void ra_rp_set_mark(struct rp_pages *p, uint64_t head, bool on)
{
	unsigned int order = rp_order(ra_rp_page(p, head));

	for (uint64_t i = 0; i < 1ULL << order; i++) {
		uint16_t *v = ra_rp_page_at(p, head + i);

		if (v)
			*v = (uint16_t)(on ? *v | RP_MARK : *v & ~RP_MARK);
	}
}

int ra_rp_set_bits(struct rp_pages *p, uint64_t index, uint64_t n, uint16_t bits, bool on)
{
	for (uint64_t i = 0; i < n; i++) {
		uint16_t *v;

		if (!on && !(ra_rp_page(p, index + i) & bits))
			continue;	/* nothing to clear: no chunk made for it */
		v = ra_rp_page_at(p, index + i);
		if (!v)
			return -1;
		*v = (uint16_t)(on ? *v | bits : *v & ~bits);
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

void ra_rp_file_release(struct rp_file *f)
{
	ra_rp_pages_release(&f->pages);
}
