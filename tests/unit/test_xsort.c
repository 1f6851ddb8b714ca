// SPDX-License-Identifier: LGPL-2.1
/*
 * The sorter of the passes (analyze/xsort.c): records read back in order,
 * each once, from memory and from runs merged out of a temporary file, with
 * no file left in the directory; a directory it cannot write is an error
 * that names it.
 */
#include <dirent.h>
#include <stdbool.h>
#include <unistd.h>

#include "analyze_local.h"
#include "test.h"

struct rec {
	int64_t key;
	int32_t id;
	int32_t pad;
};

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* @n records of keys drawn from @range through a sorter of @mem bytes, against qsort */
static void sort_case(const char *dir, int n, int64_t range, size_t mem, bool spills)
{
	struct ra_xsort *x = ra_xsort_new(sizeof(struct rec), cmp_rec, mem);
	struct rec *want = malloc((size_t)(n ? n : 1) * sizeof(*want)), r;
	int got = 0, bad = 0, rc;

	CHECK(x != NULL && want != NULL);
	if (!x || !want)
		return;
	for (int i = 0; i < n; i++) {
		want[i] = (struct rec){ .key = (int64_t)(random() % range) - range / 2, .id = i };
		CHECK_INT(ra_xsort_put(x, &want[i]), 0);
	}
	qsort(want, (size_t)n, sizeof(*want), cmp_rec);
	CHECK_INT(ra_xsort_end(x), 0);
	CHECK_INT(ra_xsort_spilled(x), spills);
	if (spills)	/* the file has no name */
		CHECK_INT(files_in(dir), 0);
	while ((rc = ra_xsort_next(x, &r)) == 1) {
		const struct rec *p = ra_xsort_peek(x);

		if (got >= n || cmp_rec(&r, &want[got]) != 0 || (p && cmp_rec(p, &r) <= 0))
			bad++;
		got++;
	}
	CHECK_INT(rc, 0);
	CHECK_INT(got, n);
	CHECK_INT(bad, 0);
	CHECK(ra_xsort_peek(x) == NULL);
	CHECK_INT(ra_xsort_next(x, &r), 0);
	CHECK(!ra_xsort_failed(x));
	CHECK_INT(ra_xsort_put(x, &r), -1);	/* the reading began */
	ra_xsort_free(x);
	free(want);
}

static char dir[32];

static void test_orders(void)
{
	setenv("TMPDIR", dir, 1);
	srandom(7);
	sort_case(dir, 0, 10, 4096, false);
	sort_case(dir, 1, 10, 4096, false);
	sort_case(dir, 1000, 1 << 20, 1 << 20, false);		/* in memory */
	sort_case(dir, 256, 50, 256 * sizeof(struct rec), false);	/* exactly full */
	sort_case(dir, 257, 50, 256 * sizeof(struct rec), true);	/* one more: two runs */
	sort_case(dir, 100000, 1000, 64 * sizeof(struct rec), true);	/* 1563 runs, keys repeated */
	sort_case(dir, 300000, INT64_MAX / 2, 1 << 16, true);
	CHECK_INT(files_in(dir), 0);
}

/* A directory that is not there: said, with its name. */
static void test_no_dir(void)
{
	char gone[64];
	struct ra_xsort *x;
	struct rec r = { 1, 1, 0 };

	snprintf(gone, sizeof(gone), "%s/none", dir);
	setenv("TMPDIR", gone, 1);
	x = ra_xsort_new(sizeof(r), cmp_rec, 64 * sizeof(r));
	CHECK(x != NULL);
	if (!x)
		return;
	for (int i = 0; i < 64; i++)
		CHECK_INT(ra_xsort_put(x, &r), 0);
	CHECK_INT(ra_xsort_put(x, &r), -1);
	CHECK(ra_xsort_failed(x));
	CHECK(strstr(ra_last_error(), "cannot make a temporary file in '") != NULL);
	CHECK(strstr(ra_last_error(), "/none'") != NULL);
	CHECK_INT(ra_xsort_next(x, &r), -1);
	ra_xsort_free(x);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "records in order, from memory and merged runs", test_orders },
		{ "no directory for the runs", test_no_dir },
		{ NULL, NULL },
	};

	return test_run_in_tmpdir("test_xsort", cases, dir);
}
