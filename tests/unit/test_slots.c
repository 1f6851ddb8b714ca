// SPDX-License-Identifier: LGPL-2.1
/*
 * A pass's records by id (analyze/slots.c): a few held in memory, the
 * others in a temporary file. Every record read back is the one last
 * changed, through random reads and changes of recent and old records (the
 * file's write buffer, its writes behind the buffer, its reads); at the end
 * every record is given once, or was kept with what it holds last. A
 * directory that cannot hold the file is an error that names it.
 */
#include <stdbool.h>
#include <unistd.h>

#include "analyze_local.h"
#include "test.h"

struct rec {
	int64_t id;
	int32_t v[11];
	int32_t keeps;		/* changed by the keeper */
};

#define N 3000

static struct rec want[N];	/* what each record holds last */
static struct rec kept_copy[N];	/* what the keeper stored last of it */
static bool kept_last[N];	/* whether the last write out was kept */
static int given[N];

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	return test_xorshift(&rnd_state);
}

/* Keeps the records of ids divisible by 3, and marks what it kept. */
static int keeper(int64_t id, void *r, void *arg)
{
	struct rec *rec = r;

	(void)arg;
	rec->keeps++;
	want[id].keeps = rec->keeps;
	kept_last[id] = id % 3 == 0;
	if (kept_last[id])
		kept_copy[id] = *rec;
	return kept_last[id];
}

static int gather(int64_t id, void *r, void *arg)
{
	const struct rec *rec = r;
	int *wrong = arg;

	if (id < 0 || id >= N)
		return -1;
	given[id]++;
	*wrong += memcmp(rec, &want[id], sizeof(*rec)) != 0;
	return 0;
}

/* @n records, @max in memory, reads and changes at random; with a keeper or not. */
static void random_run(int max, bool keep)
{
	struct ra_slots *s = ra_slots_new("the test's records", sizeof(struct rec), max);
	int made = 0, wrong = 0, lost = 0;

	memset(want, 0, sizeof(want));
	memset(kept_last, 0, sizeof(kept_last));
	memset(given, 0, sizeof(given));
	CHECK(s != NULL);
	if (!s)
		return;
	if (keep)
		ra_slots_keep(s, keeper, NULL);
	while (made < N) {
		uint64_t r = rnd() % 8;

		if (r < 3 || made == 0) {
			struct rec *rec = ra_slots_make(s, made);

			if (!rec) {
				lost++;
				break;
			}
			want[made].id = rec->id = made;
			for (int k = 0; k < 11; k++)
				want[made].v[k] = rec->v[k] = (int32_t)rnd();
			made++;
			continue;
		}
		/* a recent record mostly, an old one at times */
		int64_t id = r < 6 ? made - 1 - (int64_t)(rnd() % (made < 40 ? made : 40)) :
				     (int64_t)(rnd() % made);

		if (r % 2) {
			const struct rec *rec = ra_slots_peek(s, id);

			lost += !rec;
			wrong += rec && memcmp(rec, &want[id], sizeof(*rec)) != 0;
		} else {
			struct rec *rec = ra_slots_get(s, id);

			lost += !rec;
			wrong += rec && memcmp(rec, &want[id], sizeof(*rec)) != 0;
			if (rec) {
				int k = (int)(rnd() % 11);

				want[id].v[k] = rec->v[k] = (int32_t)rnd();
			}
		}
	}
	CHECK_INT(lost, 0);
	CHECK_INT(wrong, 0);
	CHECK(ra_slots_spilled(s) == (max < N));
	CHECK(ra_slots_peek(s, N) == NULL);
	CHECK(!ra_slots_failed(s));
	CHECK_INT(ra_slots_each(s, gather, &wrong), 0);
	CHECK_INT(wrong, 0);
	int twice = 0, missing = 0, stale = 0, kept_given = 0;

	for (int id = 0; id < N; id++) {
		twice += given[id] > 1;
		/* a record kept is given again only from memory */
		kept_given += keep && given[id] && kept_last[id];
		if (given[id])
			continue;
		/* not given: kept, with what it holds last */
		missing += !keep || !kept_last[id];
		stale += keep && kept_last[id] && memcmp(&kept_copy[id], &want[id], sizeof(want[id]));
	}
	CHECK_INT(twice, 0);
	CHECK(kept_given <= max);
	CHECK_INT(missing, 0);
	CHECK_INT(stale, 0);
	ra_slots_free(s);
}

static void test_few_held(void)
{
	random_run(5, false);
	random_run(5, true);
}

static void test_more_held(void)
{
	random_run(300, false);
	random_run(300, true);
}

static void test_all_held(void)
{
	random_run(N, false);
	random_run(N, true);
}

/* A directory that cannot hold the file: an error naming it, at the first
 * record that must leave memory. */
static void test_no_dir(void)
{
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	struct ra_slots *s;
	int i;

	setenv("TMPDIR", "/nonexistent/ratrace-dir", 1);
	s = ra_slots_new("the test's records", sizeof(struct rec), 5);
	CHECK(s != NULL);
	for (i = 0; s && i < 10 && ra_slots_make(s, i); i++)
		;
	CHECK_INT(i, 5);
	CHECK(s && ra_slots_failed(s));
	CHECK(strstr(ra_last_error(), "/nonexistent/ratrace-dir") != NULL);
	ra_slots_free(s);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "five held, the others in the file", test_few_held },
		{ "300 held", test_more_held },
		{ "all held, no file", test_all_held },
		{ "a directory that cannot hold the file", test_no_dir },
		{ NULL, NULL },
	};

	return test_run("slots", cases);
}
