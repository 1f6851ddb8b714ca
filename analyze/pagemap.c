// SPDX-License-Identifier: LGPL-2.1
#include <stdlib.h>
#include <string.h>

#include "pagemap.h"

#define MIN_CAP 1024

static size_t slot_of(const struct ra_map *m, uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ULL;
	key ^= key >> 33;
	return (size_t)key & (m->cap - 1);
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
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, val_size);
	return m->keys && m->vals ? 0 : -1;
}

void ra_map_release(struct ra_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void *ra_map_get(struct ra_map *m, uint64_t key)
{
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

	big.keys = calloc(big.cap, sizeof(*big.keys));
	big.vals = calloc(big.cap, big.val_size);
	if (!big.keys || !big.vals) {
		free(big.keys);
		free(big.vals);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		bool fresh;

		if (m->keys[i])
			memcpy(ra_map_put(&big, m->keys[i], &fresh), val_at(m, i), m->val_size);
	}
	ra_map_release(m);
	*m = big;
	return 0;
}

void *ra_map_put(struct ra_map *m, uint64_t key, bool *fresh)
{
	size_t i;

	if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return NULL;
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
	free(s->ids);
	memset(s, 0, sizeof(*s));
}

static int fileset_add(struct ra_fileset *s, uint32_t dev, uint64_t ino)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		void *p = realloc(s->ids, cap * sizeof(*s->ids));

		if (!p)
			return -1;
		s->ids = p;
		s->cap = cap;
	}
	s->ids[s->n] = (struct ra_fileset_id){ .dev = dev, .ino = ino };
	return (int)s->n++;
}

int ra_fileset_index(struct ra_fileset *s, uint32_t dev, uint64_t ino, bool *fresh)
{
	uint64_t key = ((uint64_t)dev << 32) ^ ino ^ (ino >> 32 << 12) ^ 1;
	int *slot;

	/* a key the hash gives two pairs probes on to the next */
	for (;; key += 0x9e3779b97f4a7c15ULL) {
		slot = ra_map_put(&s->by_key, key ? key : 1, fresh);
		if (!slot)
			return -1;
		if (*fresh || (s->ids[*slot - 1].dev == dev && s->ids[*slot - 1].ino == ino))
			break;
	}
	if (!*fresh)
		return *slot - 1;
	*slot = fileset_add(s, dev, ino) + 1;
	if (!*slot)
		ra_map_del(&s->by_key, key ? key : 1);
	return *slot - 1;
}

int ra_fileset_find(struct ra_fileset *s, uint32_t dev, uint64_t ino)
{
	uint64_t key = ((uint64_t)dev << 32) ^ ino ^ (ino >> 32 << 12) ^ 1;

	for (;; key += 0x9e3779b97f4a7c15ULL) {
		const int *slot = ra_map_get(&s->by_key, key ? key : 1);

		if (!slot)
			return -1;
		if (s->ids[*slot - 1].dev == dev && s->ids[*slot - 1].ino == ino)
			return *slot - 1;
	}
}
