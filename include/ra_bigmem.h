/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Memory for what grows with a run's files, tasks and pages rather than
 * with its events: the tables of the maps of keys, the records of files
 * and open files, the arrays indexed by file.
 *
 * The first 4 MiB come from malloc (and every allocation under 256 KiB:
 * they come and go). Beyond them, memory is pages of an unnamed temporary
 * file in $TMPDIR (else /tmp), mapped shared: the kernel keeps them cached
 * while memory is free and writes them back when it is not. When the
 * process's resident set is beyond its target (52 MiB), its pages of the
 * file leave it, from where a hand going round the file last stopped,
 * down to half of what the target leaves them (4 MiB at least); a page
 * used again faults back from the page cache. The check is made by
 * ra_big_tick() on the hot paths (every 256th call) and by a thread every
 * 5 ms, so that the process's peak RSS does not grow with the files and
 * tasks of a run. An address never moves.
 *
 * When no temporary file can be made or mapped, malloc gives it all.
 * RATRACE_BIG_ANON_KB, RATRACE_RSS_KB and RATRACE_BIG_FLOOR_KB set the
 * malloc budget, the target and the floor (the tests set them small to
 * run the file on small inputs).
 */
#ifndef RA_BIGMEM_H
#define RA_BIGMEM_H

#include <stddef.h>
#include <stdint.h>

/** ra_big_alloc - @n bytes, zeroed, 16-byte aligned; NULL out of memory */
void *ra_big_alloc(size_t n);
/** ra_big_realloc - @p resized to @n bytes: contents kept, the growth zeroed; NULL out of memory */
void *ra_big_realloc(void *p, size_t n);
/** ra_big_free - @p (from ra_big_alloc() or ra_big_realloc(), or NULL) given back */
void ra_big_free(void *p);

/* What the memory holds now, for -v and the tests */
struct ra_big_stats {
	size_t anon;		/* bytes from malloc */
	size_t mapped;		/* bytes of the temporary file in use */
	size_t peak_mapped;
	unsigned long trims;	/* times its pages were dropped from the resident set */
};
void ra_big_stats(struct ra_big_stats *s);
/** ra_big_describe - a line on the temporary file into @buf, when it was used (1), else 0 */
int ra_big_describe(char *buf, size_t len);

void ra_big_check(void);
extern _Thread_local unsigned int ra_big_ticks;

/** ra_big_tick - a use of big memory: every 256th checks the resident budget */
static inline void ra_big_tick(void)
{
	if (!(++ra_big_ticks & 255))
		ra_big_check();
}

/*
 * ra_big_slot - the home slot of @key in an open-addressing table of @cap
 * slots (a power of two). The keys that differ in their low RA_SLOT_RUN bits
 * alone (a file's pages, files or tasks numbered in a row, inode numbers
 * given together) land in one stretch of the table, in a lane of slots
 * 2^RA_SLOT_LANES apart, so that a pass going through them touches a page
 * or two of the table, not a page each, once its pages have left the
 * resident set. The stretch, the lane and where in the lane the run begins
 * are a hash of the rest of the key: keys alike in their low bits (sectors,
 * multiples of a page) spread like any others, and the runs of other
 * stretches fill the lanes between. Linear probing from there, at 3/4 full
 * (tests/unit/test_pagemap.c): 1.5 slots on average to a key there for
 * random or strided keys, 14 for keys all in a row (whole runs collide),
 * and about 120 to the end of the cluster for a key not there, against
 * 1.5 and 7.5 for a plain hash; a run of 32 keys in a row takes 1.4 pages
 * of keys, against 32.
 */
#define RA_SLOT_RUN 5
#define RA_SLOT_LANES 4

static inline size_t ra_big_slot(uint64_t key, size_t cap)
{
	uint64_t h = key >> RA_SLOT_RUN, at;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	at = (key + (h >> 40)) & ((1U << RA_SLOT_RUN) - 1);
	return (size_t)(h << (RA_SLOT_RUN + RA_SLOT_LANES) | at << RA_SLOT_LANES |
			h >> (64 - RA_SLOT_LANES)) & (cap - 1);
}

/*
 * Records of a pass that live as long as it: small allocations cut from
 * blocks of big memory, all given back at once.
 */
struct ra_pool {
	void *blocks;		/* the last block, linked to the ones before */
	char *cur;
	size_t left;
};

/** ra_pool_alloc - @n bytes of @p, zeroed, 16-byte aligned; NULL out of memory */
void *ra_pool_alloc(struct ra_pool *p, size_t n);
/** ra_pool_strndup - a copy of the @n bytes of @s in @p, with a '\0' after; NULL out of memory */
char *ra_pool_strndup(struct ra_pool *p, const char *s, size_t n);
/** ra_pool_release - every record of @p given back */
void ra_pool_release(struct ra_pool *p);

/*
 * Records of a pass that come and go: sizes up to 16 << (RA_SLAB_CLASSES
 * - 1) bytes cut from a pool, each given back to a list of its size; those
 * larger are big memory of their own, given back with the slab.
 */
#define RA_SLAB_CLASSES 11

struct ra_slab {
	struct ra_pool pool;
	void *free[RA_SLAB_CLASSES];
	struct slab_big *big;	/* the records larger than its classes */
};

/** ra_slab_alloc - @n bytes of @s, zeroed, 16-byte aligned; NULL out of memory */
void *ra_slab_alloc(struct ra_slab *s, size_t n);
/** ra_slab_free - @p, of @n bytes, given back to @s */
void ra_slab_free(struct ra_slab *s, void *p, size_t n);
/** ra_slab_realloc - @p of @old bytes resized to @n: contents kept, the growth zeroed */
void *ra_slab_realloc(struct ra_slab *s, void *p, size_t old, size_t n);
/** ra_slab_release - every record of @s given back */
void ra_slab_release(struct ra_slab *s);

/**
 * ra_sort - qsort() in place, taking no memory (glibc's qsort() takes a
 * copy of the array): a heapsort, not stable
 */
void ra_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
