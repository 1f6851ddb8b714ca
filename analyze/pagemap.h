/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Open-addressing hash maps of 64-bit keys (never 0) for the analysis passes:
 * cached pages by (file, index), tasks by pid. Linear probing with
 * backward-shift deletion, so the table never fills with tombstones.
 */
#ifndef RA_PAGEMAP_H
#define RA_PAGEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ra_map {
	uint64_t *keys;
	void *vals;
	size_t val_size;
	size_t cap;	/* power of two */
	size_t n;
};

int ra_map_init(struct ra_map *m, size_t val_size);
void ra_map_release(struct ra_map *m);
/** ra_map_get - the value of @key, or NULL */
void *ra_map_get(struct ra_map *m, uint64_t key);
/** ra_map_put - the value of @key, inserted zeroed when absent (*fresh); NULL: no memory */
void *ra_map_put(struct ra_map *m, uint64_t key, bool *fresh);
void ra_map_del(struct ra_map *m, uint64_t key);

#endif
