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

/* Files numbered 0, 1, 2... in the order first seen, by (dev, ino). */
struct ra_fileset {
	struct ra_map by_key;		/* key -> index + 1 */
	struct ra_fileset_id {
		uint32_t dev;
		uint64_t ino;
	} *ids;
	size_t n, cap;
};

int ra_fileset_init(struct ra_fileset *s);
void ra_fileset_release(struct ra_fileset *s);
/** ra_fileset_find - the number of file (dev, ino), -1 when it has none */
int ra_fileset_find(struct ra_fileset *s, uint32_t dev, uint64_t ino);
/** ra_fileset_index - the number of file (dev, ino), given when new (*fresh); -1 no memory */
int ra_fileset_index(struct ra_fileset *s, uint32_t dev, uint64_t ino, bool *fresh);

#endif
