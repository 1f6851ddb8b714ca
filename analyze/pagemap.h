/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Open-addressing hash maps of 64-bit keys for the analysis passes: tasks by
 * pid, requests by sector, groups of pages. Linear probing with
 * backward-shift deletion, so the table never fills with tombstones. Key 0
 * marks an empty slot: its value is kept apart (after the table's), so that
 * a key the input makes 0 (sector -1 plus one) is a key like any other; a
 * walk of keys[] does not see it. Keys that differ in their low 5 bits alone
 * share a page of the table or two (ra_big_slot()): keys that a pass goes
 * through together should differ there (a number given in the order first
 * seen in the low bits, not above a wide field).
 */
#ifndef RA_PAGEMAP_H
#define RA_PAGEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ra_bigmem.h"

struct ra_map {
	uint64_t *keys;
	void *vals;
	size_t val_size;
	size_t cap;	/* power of two; vals has cap + 1, the last for key 0 */
	size_t n;
	bool zero;	/* key 0 is in the map */
};

int ra_map_init(struct ra_map *m, size_t val_size);
void ra_map_release(struct ra_map *m);
/** ra_map_get - the value of @key, or NULL */
void *ra_map_get(const struct ra_map *m, uint64_t key);
/** ra_map_put - the value of @key, inserted zeroed when absent (*fresh); NULL: no memory */
void *ra_map_put(struct ra_map *m, uint64_t key, bool *fresh);
void ra_map_del(struct ra_map *m, uint64_t key);
/** ra_map_at - the value in slot @i (0 <= @i < cap) of a walk, NULL when the slot is empty */
void *ra_map_at(const struct ra_map *m, size_t i);

/*
 * Values of pages by 64-bit key (the low 6 bits are the page's place in its
 * aligned group of 64), at most RA_PAGE_VAL bytes each. The
 * pages of a group are kept together: a group of one page in its slot of
 * the groups' map, a larger one in an array in index order behind a bitmap,
 * so that a page of a dense cache costs little more than its value, and a
 * page alone no more than an entry of a map of pages.
 *
 * A value's address holds until the next put or del; values are not aligned.
 */
#define RA_PAGE_VAL 6

struct ra_pages {
	struct ra_map groups;	/* key >> 6 -> a page inline, or its group */
	size_t val_size;
	size_t n;		/* pages */
	size_t group_bytes;	/* of the groups kept apart from the map */
	struct ra_slab slab;	/* where they are kept */
};

/* A walk of every page: zero it, then call ra_pages_next() until NULL. */
struct ra_pages_iter {
	size_t slot;
	unsigned int bit;
};

int ra_pages_init(struct ra_pages *ps, size_t val_size);
void ra_pages_release(struct ra_pages *ps);
/** ra_pages_get - the value of page @key, or NULL */
void *ra_pages_get(struct ra_pages *ps, uint64_t key);
/** ra_pages_put - the value of page @key, inserted zeroed when absent (*fresh); NULL: no memory */
void *ra_pages_put(struct ra_pages *ps, uint64_t key, bool *fresh);
void ra_pages_del(struct ra_pages *ps, uint64_t key);
/** ra_pages_bytes - the memory the pages take, the groups' map's included */
size_t ra_pages_bytes(const struct ra_pages *ps);
/** ra_pages_next - the next page's value and its *key, NULL after the last */
void *ra_pages_next(struct ra_pages *ps, struct ra_pages_iter *it, uint64_t *key);

/* Files numbered 0, 1, 2... in the order first seen, by (dev, ino). */
struct ra_fileset {
	struct ra_map by_key;		/* key -> index + 1 */
	struct ra_fileset_id {
		uint32_t dev;
		uint64_t ino;
	} *ids;
	size_t n, cap;
	int last;			/* the index found last + 1 (0: none): most events */
};				/* are of the file of the one before */

int ra_fileset_init(struct ra_fileset *s);
void ra_fileset_release(struct ra_fileset *s);
/** ra_fileset_find - the number of file (dev, ino), -1 when it has none */
int ra_fileset_find(struct ra_fileset *s, uint32_t dev, uint64_t ino);
/** ra_fileset_index - the number of file (dev, ino), given when new (*fresh); -1 no memory */
int ra_fileset_index(struct ra_fileset *s, uint32_t dev, uint64_t ino, bool *fresh);

#endif
