// SPDX-License-Identifier: LGPL-2.1
/*
 * Two sides' windows met in order per open file (analyze/wincmp.c): counts
 * and exact ones per file, and the first difference of a file, which for
 * the windows still waiting at the end is that of the open file seen first,
 * whatever its windows did in between (an open file whose windows all met
 * gives its memory back, not its place).
 */
#include "analyze_local.h"
#include "test.h"

#define DEV 0x700000

/*
 * A readahead event @type of task @pid at @index of file @ino: a window of
 * @n pages, or a trigger of @n pages asked.
 */
static int raev(struct ra_wincmp *c, int side, int type, int pid, uint64_t ino, uint64_t index,
		uint32_t n)
{
	struct ra_event ev = { .pid = pid, .type = (uint16_t)type };

	ev.ra.dev = DEV;
	ev.ra.ino = ino;
	ev.ra.index = index;
	ev.ra.size = n;
	ev.ra.req_count = n;
	return ra_wincmp_event(c, side, &ev, pid);
}

/* A window of ra_unbounded of @n pages at @start in file @ino, by task @pid. */
static int window(struct ra_wincmp *c, int side, int pid, uint64_t ino, uint64_t start,
		  uint32_t n)
{
	return raev(c, side, RA_EV_RA_UNBOUNDED, pid, ino, start, n);
}

static void test_counts(void)
{
	struct ra_wincmp *c = ra_wincmp_alloc();
	struct ra_wincmp_file f;

	CHECK(c != NULL);
	if (!c)
		return;
	for (int i = 0; i < 100; i++) {	/* met at once, or after the other side's */
		CHECK_INT(window(c, 0, 1, 5, (uint64_t)i * 8, 8), 0);
		CHECK_INT(window(c, 1, 1, 5, (uint64_t)i * 8, i == 50 ? 4 : 8), 0);
	}
	for (int i = 0; i < 10; i++)
		CHECK_INT(window(c, 1, 2, 6, (uint64_t)i * 8, 8), 0);
	for (int i = 0; i < 10; i++)
		CHECK_INT(window(c, 0, 2, 6, (uint64_t)i * 8, 8), 0);
	CHECK_INT(ra_wincmp_end(c), 0);
	CHECK(ra_wincmp_file(c, 0, &f));
	CHECK_INT(f.ino, 5);
	CHECK_INT(f.windows[0], 100);
	CHECK_INT(f.windows[1], 100);
	CHECK_INT(f.exact, 99);
	CHECK(f.first_difference && strstr(f.first_difference, "400 size 8") &&
	      strstr(f.first_difference, "400 size 4"));
	CHECK(ra_wincmp_file(c, 1, &f));
	CHECK_INT(f.exact, 10);
	CHECK(f.first_difference == NULL);
	CHECK(!ra_wincmp_file(c, 2, &f));
	ra_wincmp_free(c);
}

static void test_order_at_end(void)
{
	struct ra_wincmp *c = ra_wincmp_alloc();
	struct ra_wincmp_file f;

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_INT(window(c, 0, 1, 5, 0, 8), 0);		/* process 1, seen first */
	CHECK_INT(window(c, 0, 2, 5, 500, 8), 0);	/* process 2 */
	CHECK_INT(window(c, 1, 1, 5, 0, 8), 0);		/* 1's met: nothing waits */
	CHECK_INT(window(c, 0, 1, 5, 1000, 8), 0);	/* 1 waits again */
	CHECK_INT(ra_wincmp_end(c), 0);
	CHECK(ra_wincmp_file(c, 0, &f));
	CHECK_INT(f.windows[0], 3);
	CHECK_INT(f.windows[1], 1);
	CHECK_INT(f.exact, 1);
	/* process 1's window is unmatched first, as 1 was seen first */
	CHECK(f.first_difference && strstr(f.first_difference, "1000 size 8") &&
	      strstr(f.first_difference, "; against nothing"));
	ra_wincmp_free(c);
}

/*
 * More tasks than the comparison keeps in memory. On side 0 every task's
 * trigger comes before any window, and every window before any task's
 * order-0 fallback of it, so that each task's record leaves memory and comes
 * back twice, with its trigger, then with its window; side 1 has each
 * trigger right before its window. Every window meets its own, trigger
 * included, and no fallback is a window.
 */
static void test_many_tasks(void)
{
	struct ra_wincmp *c = ra_wincmp_alloc();
	struct ra_wincmp_file f;
	enum { TASKS = 3000 };

	CHECK(c != NULL);
	if (!c)
		return;
	for (int pid = 1; pid <= TASKS; pid++)
		CHECK_INT(raev(c, 0, RA_EV_ASYNC_RA, pid, 9, (uint64_t)pid * 100 + 1, 4), 0);
	for (int pid = 1; pid <= TASKS; pid++)
		CHECK_INT(raev(c, 0, RA_EV_RA_ORDER, pid, 9, (uint64_t)pid * 100, 16), 0);
	for (int pid = 1; pid <= TASKS; pid++) {
		CHECK_INT(window(c, 0, pid, 9, (uint64_t)pid * 100 + 4, 12), 0);
		CHECK_INT(raev(c, 1, RA_EV_ASYNC_RA, pid, 9, (uint64_t)pid * 100 + 1, 4), 0);
		CHECK_INT(raev(c, 1, RA_EV_RA_ORDER, pid, 9, (uint64_t)pid * 100, 16), 0);
	}
	CHECK_INT(ra_wincmp_end(c), 0);
	CHECK(ra_wincmp_file(c, 0, &f));
	CHECK_INT(f.windows[0], TASKS);
	CHECK_INT(f.windows[1], TASKS);
	CHECK_INT(f.exact, TASKS);
	ra_wincmp_free(c);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "windows met in order", test_counts },
		{ "the windows left at the end, in the order seen", test_order_at_end },
		{ "more tasks than are kept in memory", test_many_tasks },
		{ NULL, NULL },
	};

	return test_run("wincmp", cases);
}
