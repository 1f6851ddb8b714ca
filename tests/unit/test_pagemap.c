// SPDX-License-Identifier: LGPL-2.1
/*
 * The page store of the readahead pass (analyze/pagemap.c): every value put
 * is read back, removed pages are gone, a walk gives each page once, through
 * random puts and deletes that move groups between one page inline, arrays
 * that grow and shrink, and back; a reference map of pages (struct ra_map,
 * one entry a page) holds the same pages throughout. A dense cache costs
 * little more than its values, a sparse one no more than the reference.
 */
#include <stdbool.h>

#include "pagemap.h"
#include "test.h"

struct val {
	int32_t win;
	uint8_t state;
	uint8_t order;
} __attribute__((packed));

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	return test_xorshift(&rnd_state);
}

#define KEY(file, index) ((((uint64_t)(file) + 1) << 40) | (index))

static struct val val_of(uint64_t key, uint32_t gen)
{
	return (struct val){.win = (int32_t)(key * 2654435761u + gen),
			    .state = (uint8_t)(key % 4 + 1),
			    .order = (uint8_t)(gen % 10)};
}

/* Every page of @ref is in @ps with its value, and the walk gives exactly those. */
static void same(struct ra_pages *ps, struct ra_map *ref)
{
	struct ra_pages_iter it = {0};
	size_t walked = 0, wrong = 0;
	uint64_t key;
	void *v;

	CHECK_INT(ps->n, ref->n);
	for (size_t i = 0; i < ref->cap; i++) {
		if (!ref->keys[i])
			continue;
		v = ra_pages_get(ps, ref->keys[i]);
		wrong += !v || memcmp(v, (char *)ref->vals + i * ref->val_size, sizeof(struct val));
	}
	CHECK_INT(wrong, 0);
	while ((v = ra_pages_next(ps, &it, &key))) {
		const void *r = ra_map_get(ref, key);

		walked++;
		wrong += !r || memcmp(v, r, sizeof(struct val));
	}
	CHECK_INT(wrong, 0);
	CHECK_INT(walked, ref->n);
}

/* Random puts, overwrites and deletes over @span pages of @files files. */
static void random_ops(uint64_t span, int files, int ops)
{
	struct ra_pages ps;
	struct ra_map ref;
	size_t absent_found = 0;

	CHECK_INT(ra_pages_init(&ps, sizeof(struct val)), 0);
	CHECK_INT(ra_map_init(&ref, sizeof(struct val)), 0);
	for (int op = 0; op < ops; op++) {
		uint64_t key = KEY(rnd() % files, rnd() % span);
		uint64_t r = rnd() % 10;
		bool fresh, rfresh;

		if (r < 6) {
			struct val *v = ra_pages_put(&ps, key, &fresh);
			struct val *w = ra_map_put(&ref, key, &rfresh);
			struct val want = val_of(key, (uint32_t)op);

			CHECK(v && w);
			if (!v || !w)
				break;
			if (fresh != rfresh || (fresh && (v->win || v->state || v->order)))
				absent_found++;
			*v = want;
			*w = want;
		} else if (r < 9) {
			ra_pages_del(&ps, key);
			ra_map_del(&ref, key);
			absent_found += ra_pages_get(&ps, key) != NULL;
		} else {
			absent_found +=
				(ra_pages_get(&ps, key) != NULL) != (ra_map_get(&ref, key) != NULL);
		}
		if (op % (ops / 8) == 0)
			same(&ps, &ref);
	}
	CHECK_INT(absent_found, 0);
	same(&ps, &ref);
	/* every page removed: nothing left, the groups freed */
	for (size_t i = 0; i < ref.cap; i++)
		if (ref.keys[i])
			ra_pages_del(&ps, ref.keys[i]);
	CHECK_INT(ps.n, 0);
	CHECK_INT(ps.group_bytes, 0);
	CHECK(ra_pages_next(&ps, &(struct ra_pages_iter){0}, &(uint64_t){0}) == NULL);
	ra_pages_release(&ps);
	ra_map_release(&ref);
}

static void test_dense(void)
{
	random_ops(300, 2, 200000);
}

static void test_sparse(void)
{
	random_ops(1ULL << 39, 3, 200000);
}

/* Groups that fill up to 64 pages and empty again, one page at a time. */
static void test_fill_empty(void)
{
	random_ops(130, 1, 100000);
}

/* The first and last pages of a group and of the index space. */
static void test_edges(void)
{
	uint64_t keys[] = {KEY(0, 0),
			   KEY(0, 63),
			   KEY(0, 64),
			   KEY(0, (1ULL << 40) - 1),
			   KEY(0, (1ULL << 40) - 64),
			   KEY(5, 0),
			   KEY(5, 63), 5, 63};
	struct ra_pages ps;
	struct ra_map ref;
	bool fresh;

	CHECK_INT(ra_pages_init(&ps, sizeof(struct val)), 0);
	CHECK_INT(ra_map_init(&ref, sizeof(struct val)), 0);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		*(struct val *)ra_pages_put(&ps, keys[i], &fresh) = val_of(keys[i], 7);
		CHECK(fresh);
		*(struct val *)ra_map_put(&ref, keys[i], &fresh) = val_of(keys[i], 7);
	}
	same(&ps, &ref);
	CHECK(ra_pages_get(&ps, KEY(0, 1)) == NULL);
	CHECK(ra_pages_get(&ps, KEY(1, 0)) == NULL);
	ra_pages_del(&ps, KEY(0, 62)); /* absent, in a group of two */
	ra_pages_del(&ps, KEY(1, 5));  /* absent, no group */
	same(&ps, &ref);
	CHECK(ra_pages_init(&(struct ra_pages){0}, RA_PAGE_VAL + 1) < 0);
	ra_pages_release(&ps);
	ra_map_release(&ref);
}

/* What a cache costs: dense, a page is about its value; alone, about an
 * entry of the reference. */
static void test_memory(void)
{
	struct ra_pages dense, sparse;
	bool fresh;
	size_t n = 1 << 18;

	CHECK_INT(ra_pages_init(&dense, sizeof(struct val)), 0);
	CHECK_INT(ra_pages_init(&sparse, sizeof(struct val)), 0);
	for (size_t i = 0; i < n; i++) {
		CHECK(ra_pages_put(&dense, KEY(0, i), &fresh) != NULL);
		CHECK(ra_pages_put(&sparse, KEY(0, i * 64 + i % 64), &fresh) != NULL);
	}
	fprintf(stderr, "%zu pages: %.2f bytes a page dense, %.2f alone\n", n,
		(double)ra_pages_bytes(&dense) / n, (double)ra_pages_bytes(&sparse) / n);
	/* 6 bytes of value, 16 of a group's head every 64 pages, the map's slot */
	CHECK(ra_pages_bytes(&dense) <= n * 7);
	/* a map of pages of 16-byte entries, at most 3/4 full */
	CHECK(ra_pages_bytes(&sparse) <= n * 16 * 4 / 3 * 2);
	CHECK_INT(sparse.group_bytes, 0);
	ra_pages_release(&dense);
	ra_pages_release(&sparse);
}

static void test_key_zero(void)
{
	struct ra_map m;
	bool fresh;
	int64_t *v;

	CHECK_INT(ra_map_init(&m, sizeof(int64_t)), 0);
	CHECK(ra_map_get(&m, 0) == NULL);	/* not an empty slot's value */
	for (uint64_t k = 1; k <= 700; k++)	/* values left in slots, then freed */
		*(int64_t *)ra_map_put(&m, k, &fresh) = (int64_t)k;
	for (uint64_t k = 1; k <= 700; k++)
		ra_map_del(&m, k);
	CHECK(ra_map_get(&m, 0) == NULL);
	CHECK_INT(m.n, 0);
	v = ra_map_put(&m, 0, &fresh);
	CHECK(v && fresh && *v == 0);
	if (v)
		*v = -7;
	CHECK(ra_map_put(&m, 0, &fresh) == v && !fresh);
	for (uint64_t k = 1; k <= 5000; k++)	/* grown several times */
		*(int64_t *)ra_map_put(&m, k, &fresh) = (int64_t)k;
	CHECK_INT(m.n, 5001);
	v = ra_map_get(&m, 0);
	CHECK(v && *v == -7);
	CHECK(ra_map_get(&m, 4321) && *(int64_t *)ra_map_get(&m, 4321) == 4321);
	ra_map_del(&m, 0);
	CHECK(ra_map_get(&m, 0) == NULL);
	CHECK_INT(m.n, 5000);
	ra_map_release(&m);
}

/* How far the keys of @m sit from their home slots, on average */
static double mean_probe(const struct ra_map *m)
{
	size_t sum = 0, n = 0;

	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		sum += (i - ra_big_slot(m->keys[i], m->cap)) & (m->cap - 1);
		n++;
	}
	return n ? (double)sum / (double)n : 0;
}

/* How far the @n keys from @first (a step of @step), not in @m, look on
 * average before they find an empty slot */
static double mean_miss(const struct ra_map *m, uint64_t first, uint64_t step, size_t n)
{
	size_t sum = 0;

	for (size_t k = 0; k < n; k++) {
		size_t i = ra_big_slot(first + k * step, m->cap);

		while (m->keys[i]) {
			i = (i + 1) & (m->cap - 1);
			sum++;
		}
	}
	return (double)sum / (double)n;
}

/* Distinct 4 KiB pages of @m's keys that @n keys from @first (a step of
 * @step) sit on */
static size_t key_pages(const struct ra_map *m, uint64_t first, uint64_t step, size_t n)
{
	uintptr_t seen[64];
	size_t npages = 0;

	for (size_t k = 0; k < n; k++) {
		size_t i = ra_big_slot(first + k * step, m->cap), j;
		uintptr_t page;

		while (m->keys[i] != first + k * step)
			i = (i + 1) & (m->cap - 1);
		page = (uintptr_t)&m->keys[i] / 4096;
		for (j = 0; j < npages && seen[j] != page; j++)
			;
		if (j == npages && npages < 64)
			seen[npages++] = page;
	}
	return npages;
}

/*
 * Keys read together share a page of the table (a run's files in the order
 * first seen, a file's groups of pages), so that a table whose pages left
 * the resident set costs a fault per 32 keys, not per key; and linear
 * probing stays short for random keys and for keys alike in their low bits
 * (sectors, multiples of a page), and bounded for keys all in a row. Home
 * slots in a row for keys in a row give probes of hundreds of slots at 3/4
 * full; lanes whose runs all begin at their start, as many for keys whose
 * low bits are 0.
 */
static void test_locality(void)
{
	struct ra_map dense, random, sparse, strided;
	size_t n = 393216;	/* 3/4 of 2^19 slots */
	uint64_t s = 12345;
	bool fresh;

	CHECK_INT(ra_map_init(&dense, sizeof(uint32_t)), 0);
	CHECK_INT(ra_map_init(&random, sizeof(uint32_t)), 0);
	CHECK_INT(ra_map_init(&sparse, sizeof(uint32_t)), 0);
	CHECK_INT(ra_map_init(&strided, sizeof(uint32_t)), 0);
	for (uint64_t k = 1; k <= n; k++) {
		CHECK(ra_map_put(&dense, k, &fresh) != NULL);
		CHECK(ra_map_put(&random, test_xorshift(&s) | 1, &fresh) != NULL);
		CHECK(ra_map_put(&sparse, k << 20, &fresh) != NULL);
		CHECK(ra_map_put(&strided, k * 8, &fresh) != NULL);
	}
	fprintf(stderr, "mean probe: dense %.2f, random %.2f, sparse %.2f, strided %.2f (cap %zu)\n",
		mean_probe(&dense), mean_probe(&random), mean_probe(&sparse), mean_probe(&strided),
		dense.cap);
	CHECK(mean_probe(&dense) < 20);
	CHECK(mean_probe(&random) < 3);
	CHECK(mean_probe(&sparse) < 3);
	CHECK(mean_probe(&strided) < 3);
	/* a key not there: to the end of its cluster, the map at its fullest */
	fprintf(stderr, "mean miss: dense %.1f, random %.1f\n", mean_miss(&dense, n + 1, 1, 20000),
		mean_miss(&random, 1ULL << 62, 0x9e3779b97f4a7c15ULL, 20000));
	CHECK(mean_miss(&dense, n + 1, 1, 20000) < 250);
	CHECK(mean_miss(&random, 1ULL << 62, 0x9e3779b97f4a7c15ULL, 20000) < 15);
	/* 64 keys in a row: two runs, a page of keys each (two where probing
	 * crosses one) */
	for (uint64_t first = 64; first < n; first += 64 * 97)
		CHECK(key_pages(&dense, first, 1, 64) <= 4);
	/* keys far apart: a page each, nearly */
	CHECK(key_pages(&sparse, 1 << 20, 1 << 20, 64) >= 48);
	ra_map_release(&dense);
	ra_map_release(&random);
	ra_map_release(&sparse);
	ra_map_release(&strided);
}

int main(void)
{
	static const struct test_case cases[] = {
		{"dense", test_dense}, {"sparse", test_sparse}, {"fill_empty", test_fill_empty},
		{"edges", test_edges}, {"memory", test_memory}, {"key 0", test_key_zero},
		{"locality", test_locality},
		{NULL, NULL},
	};

	return test_run("pagemap", cases);
}
