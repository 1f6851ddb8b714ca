// SPDX-License-Identifier: LGPL-2.1
#include <stdlib.h>
#include <string.h>

#include "pagemap.h"
#include "ra_bigmem.h"

#define MIN_CAP 1024

static size_t slot_of(const struct ra_map *m, uint64_t key)
{
	return ra_big_slot(key, m->cap);
}

static void *val_at(const struct ra_map *m, size_t i)
{
	return (char *)m->vals + i * m->val_size;
}

int ra_map_init(struct ra_map *m, size_t val_size)
{
	memset(m, 0, sizeof(*m));
	m->val_size = val_size;
	m->cap = MIN_CAP;
	m->keys = ra_big_alloc(m->cap * sizeof(*m->keys));
	m->vals = ra_big_alloc((m->cap + 1) * val_size);	/* the last for key 0 */
	return m->keys && m->vals ? 0 : -1;
}

void ra_map_release(struct ra_map *m)
{
	ra_big_free(m->keys);
	ra_big_free(m->vals);
	memset(m, 0, sizeof(*m));
}

void *ra_map_at(const struct ra_map *m, size_t i)
{
	ra_big_tick();
	return m->keys[i] ? val_at(m, i) : NULL;
}

void *ra_map_get(const struct ra_map *m, uint64_t key)
{
	ra_big_tick();
	if (!key)
		return m->zero ? val_at(m, m->cap) : NULL;
	for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return val_at(m, i);
		if (!m->keys[i])
			return NULL;
	}
}

static int grow(struct ra_map *m)
{
	struct ra_map big = { .val_size = m->val_size, .cap = m->cap * 2 };

	big.keys = ra_big_alloc(big.cap * sizeof(*big.keys));
	big.vals = ra_big_alloc((big.cap + 1) * big.val_size);
	if (!big.keys || !big.vals) {
		ra_big_free(big.keys);
		ra_big_free(big.vals);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		bool fresh;

		if (m->keys[i])
			memcpy(ra_map_put(&big, m->keys[i], &fresh), val_at(m, i), m->val_size);
	}
	if (m->zero) {
		memcpy(val_at(&big, big.cap), val_at(m, m->cap), m->val_size);
		big.zero = true;
		big.n++;
	}
	ra_map_release(m);
	*m = big;
	return 0;
}

void *ra_map_put(struct ra_map *m, uint64_t key, bool *fresh)
{
	size_t i;

	ra_big_tick();
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return NULL;
	if (!key) {
		*fresh = !m->zero;
		if (*fresh) {
			memset(val_at(m, m->cap), 0, m->val_size);
			m->zero = true;
			m->n++;
		}
		return val_at(m, m->cap);
	}
	for (i = slot_of(m, key); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			*fresh = false;
			return val_at(m, i);
		}
	}
	m->keys[i] = key;
	memset(val_at(m, i), 0, m->val_size);
	m->n++;
	*fresh = true;
	return val_at(m, i);
}

void ra_map_del(struct ra_map *m, uint64_t key)
{
	size_t i = slot_of(m, key), j;

	ra_big_tick();
	if (!key) {
		m->n -= m->zero;
		m->zero = false;
		return;
	}
	while (m->keys[i] != key) {
		if (!m->keys[i])
			return;
		i = (i + 1) & (m->cap - 1);
	}
	/* Shift back the entries that probed past the freed slot. */
	for (j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = slot_of(m, m->keys[j]);

		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->keys[i] = m->keys[j];
			memcpy(val_at(m, i), val_at(m, j), m->val_size);
			i = j;
		}
	}
	m->keys[i] = 0;
	m->n--;
}

int ra_fileset_init(struct ra_fileset *s)
{
	memset(s, 0, sizeof(*s));
	return ra_map_init(&s->by_key, sizeof(int));
}

void ra_fileset_release(struct ra_fileset *s)
{
	ra_map_release(&s->by_key);
	ra_big_free(s->ids);
	memset(s, 0, sizeof(*s));
}

static int fileset_add(struct ra_fileset *s, uint32_t dev, uint64_t ino)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		void *p = ra_big_realloc(s->ids, cap * sizeof(*s->ids));

		if (!p)
			return -1;
		s->ids = p;
		s->cap = cap;
	}
	s->ids[s->n] = (struct ra_fileset_id){ .dev = dev, .ino = ino };
	return (int)s->n++;
}

/* The file found last, if it is (dev, ino) */
static int fileset_last(const struct ra_fileset *s, uint32_t dev, uint64_t ino)
{
	const struct ra_fileset_id *id = s->last ? &s->ids[s->last - 1] : NULL;

	return id && id->dev == dev && id->ino == ino ? s->last - 1 : -1;
}

int ra_fileset_index(struct ra_fileset *s, uint32_t dev, uint64_t ino, bool *fresh)
{
	uint64_t key = ((uint64_t)dev << 32) ^ ino ^ (ino >> 32 << 12) ^ 1;
	int *slot, i = fileset_last(s, dev, ino);

	if (i >= 0) {
		*fresh = false;
		return i;
	}
	/* a key the hash gives two pairs probes on to the next */
	for (;; key += 0x9e3779b97f4a7c15ULL) {
		slot = ra_map_put(&s->by_key, key ? key : 1, fresh);
		if (!slot)
			return -1;
		if (*fresh || (s->ids[*slot - 1].dev == dev && s->ids[*slot - 1].ino == ino))
			break;
	}
	if (!*fresh) {
		s->last = *slot;
		return *slot - 1;
	}
	*slot = fileset_add(s, dev, ino) + 1;
	if (!*slot)
		ra_map_del(&s->by_key, key ? key : 1);
	else
		s->last = *slot;
	return *slot - 1;
}

int ra_fileset_find(struct ra_fileset *s, uint32_t dev, uint64_t ino)
{
	uint64_t key = ((uint64_t)dev << 32) ^ ino ^ (ino >> 32 << 12) ^ 1;
	int i = fileset_last(s, dev, ino);

	if (i >= 0)
		return i;
	for (;; key += 0x9e3779b97f4a7c15ULL) {
		const int *slot = ra_map_get(&s->by_key, key ? key : 1);

		if (!slot)
			return -1;
		if (s->ids[*slot - 1].dev == dev && s->ids[*slot - 1].ino == ino) {
			s->last = *slot;
			return *slot - 1;
		}
	}
}

/*
 * A slot of the groups' map is 8 bytes. A group of one page holds it inline:
 * its low-order byte (TAG) is 1 | its place << 1, six others (from VAL) its
 * value. A larger group's slot holds the address of its struct group, whose
 * low-order bit is 0 (a slab's records are aligned). A group's key is its
 * number + 1, never 0.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TAG 0
#define VAL 1
#else
#define TAG 7
#define VAL 0
#endif
#define GROUP(key) (((key) >> 6) + 1)
#define INLINE 1
#define GROUP_MIN 2

struct group {
	uint64_t bits;		/* the pages present */
	uint32_t cap;		/* values room was made for: 2 to 64 */
	uint32_t pad;
	unsigned char vals[];	/* the present pages' values, in index order */
};

static struct group *group_at(const unsigned char *slot)
{
	struct group *g;

	memcpy(&g, slot, sizeof(g));
	return g;
}

static void set_group(unsigned char *slot, struct group *g)
{
	memcpy(slot, &g, sizeof(g));
}

static size_t group_size(const struct ra_pages *ps, size_t cap)
{
	return sizeof(struct group) + cap * ps->val_size;
}

static unsigned int rank(uint64_t bits, unsigned int bit)
{
	return (unsigned int)__builtin_popcountll(bits & ((1ULL << bit) - 1));
}

int ra_pages_init(struct ra_pages *ps, size_t val_size)
{
	memset(ps, 0, sizeof(*ps));
	if (val_size > RA_PAGE_VAL)
		return -1;
	ps->val_size = val_size;
	return ra_map_init(&ps->groups, sizeof(uint64_t));
}

void ra_pages_release(struct ra_pages *ps)
{
	/* a group is at most 16 + 64 * RA_PAGE_VAL bytes: the slab holds them all */
	ra_slab_release(&ps->slab);
	ra_map_release(&ps->groups);
	memset(ps, 0, sizeof(*ps));
}

void *ra_pages_get(struct ra_pages *ps, uint64_t key)
{
	unsigned char *slot = ra_map_get(&ps->groups, GROUP(key));
	unsigned int bit = key & 63;
	struct group *g;

	if (!slot)
		return NULL;
	if (slot[TAG] & INLINE)
		return slot[TAG] >> 1 == bit ? slot + VAL : NULL;
	g = group_at(slot);
	if (!(g->bits >> bit & 1))
		return NULL;
	return g->vals + rank(g->bits, bit) * ps->val_size;
}

void *ra_pages_put(struct ra_pages *ps, uint64_t key, bool *fresh)
{
	unsigned int bit = key & 63, n, r;
	unsigned char *slot;
	struct group *g;
	bool new_group;

	slot = ra_map_put(&ps->groups, GROUP(key), &new_group);
	if (!slot)
		return NULL;
	*fresh = false;
	if (new_group) {
		memset(slot, 0, sizeof(uint64_t));
		slot[TAG] = (unsigned char)(INLINE | bit << 1);
		ps->n++;
		*fresh = true;
		return slot + VAL;
	}
	if (slot[TAG] & INLINE) {
		if (slot[TAG] >> 1 == bit)
			return slot + VAL;
		g = ra_slab_alloc(&ps->slab, group_size(ps, GROUP_MIN));
		if (!g)
			return NULL;
		ps->group_bytes += group_size(ps, GROUP_MIN);
		g->bits = 1ULL << (slot[TAG] >> 1);
		g->cap = GROUP_MIN;
		g->pad = 0;
		memcpy(g->vals, slot + VAL, ps->val_size);
		set_group(slot, g);
	}
	g = group_at(slot);
	if (g->bits >> bit & 1)
		return g->vals + rank(g->bits, bit) * ps->val_size;
	n = (unsigned int)__builtin_popcountll(g->bits);
	if (n == g->cap) {
		struct group *big = ra_slab_realloc(&ps->slab, g, group_size(ps, g->cap),
						    group_size(ps, 2 * g->cap));

		if (!big)
			return NULL;
		ps->group_bytes += big->cap * ps->val_size;
		big->cap *= 2;
		set_group(slot, big);
		g = big;
	}
	r = rank(g->bits, bit);
	memmove(g->vals + (r + 1) * ps->val_size, g->vals + r * ps->val_size,
		(n - r) * ps->val_size);
	memset(g->vals + r * ps->val_size, 0, ps->val_size);
	g->bits |= 1ULL << bit;
	ps->n++;
	*fresh = true;
	return g->vals + r * ps->val_size;
}

void ra_pages_del(struct ra_pages *ps, uint64_t key)
{
	unsigned char *slot = ra_map_get(&ps->groups, GROUP(key));
	unsigned int bit = key & 63, n, r;
	struct group *g;

	if (!slot)
		return;
	if (slot[TAG] & INLINE) {
		if (slot[TAG] >> 1 == bit) {
			ra_map_del(&ps->groups, GROUP(key));
			ps->n--;
		}
		return;
	}
	g = group_at(slot);
	if (!(g->bits >> bit & 1))
		return;
	n = (unsigned int)__builtin_popcountll(g->bits) - 1;
	r = rank(g->bits, bit);
	memmove(g->vals + r * ps->val_size, g->vals + (r + 1) * ps->val_size,
		(n - r) * ps->val_size);
	g->bits &= ~(1ULL << bit);
	ps->n--;
	if (n == 1) {
		/* back inline: the slot's bytes are the group's address until here */
		memset(slot, 0, sizeof(uint64_t));
		slot[TAG] = (unsigned char)(INLINE | __builtin_ctzll(g->bits) << 1);
		memcpy(slot + VAL, g->vals, ps->val_size);
		ps->group_bytes -= group_size(ps, g->cap);
		ra_slab_free(&ps->slab, g, group_size(ps, g->cap));
	} else if (n <= g->cap / 4) {
		struct group *small = ra_slab_realloc(&ps->slab, g, group_size(ps, g->cap),
						      group_size(ps, g->cap / 2));

		if (small) {
			small->cap /= 2;
			ps->group_bytes -= small->cap * ps->val_size;
			set_group(slot, small);
		}
	}
}

size_t ra_pages_bytes(const struct ra_pages *ps)
{
	return ps->groups.cap * (sizeof(uint64_t) + ps->groups.val_size) + ps->group_bytes;
}

void *ra_pages_next(struct ra_pages *ps, struct ra_pages_iter *it, uint64_t *key)
{
	for (; it->slot < ps->groups.cap; it->slot++, it->bit = 0) {
		unsigned char *slot = val_at(&ps->groups, it->slot);
		uint64_t gkey = ps->groups.keys[it->slot];
		struct group *g;
		uint64_t left;

		if (!gkey)
			continue;
		if (slot[TAG] & INLINE) {
			if (it->bit)
				continue;
			it->bit = 64;
			*key = (gkey - 1) << 6 | (uint64_t)(slot[TAG] >> 1);
			return slot + VAL;
		}
		g = group_at(slot);
		left = it->bit < 64 ? g->bits >> it->bit << it->bit : 0;
		if (!left)
			continue;
		it->bit = (unsigned int)__builtin_ctzll(left);
		*key = (gkey - 1) << 6 | it->bit;
		return g->vals + rank(g->bits, it->bit++) * ps->val_size;
	}
	return NULL;
}
