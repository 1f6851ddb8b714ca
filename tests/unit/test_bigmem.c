// SPDX-License-Identifier: LGPL-2.1
/*
 * Big memory (lib/bigmem.c): with no malloc budget and no resident floor,
 * every block of 256 KiB or more is pages of the temporary file. Blocks
 * keep what was written to them while their pages leave the resident set
 * (measured in /proc/self/status) and fault back; a block given back and
 * taken again, or grown in place, reads zero where it was not written;
 * pools and slabs give zeroed, aligned records; ra_sort() sorts as qsort()
 * does. A block has room on disk for every page it is given; on tmpfs a
 * block given back gives its memory back. A $TMPDIR that cannot hold the
 * file leaves malloc to give it all.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ra_bigmem.h"
#include "test.h"

#define MIB (1024 * 1024)

static uint64_t rnd_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	return test_xorshift(&rnd_state);
}

/* The process's RssFile, KiB (-1 unknown) */
static long rss_file_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssFile: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The bytes on disk of the process's unnamed file in directory @dir, -1 none */
static long long file_bytes(const char *dir)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long long bytes = -1;

	while (d && (e = readdir(d))) {
		char link[64], path[256];
		ssize_t n;
		struct stat sb;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;
		path[n] = '\0';
		if (strncmp(path, dir, strlen(dir)) == 0 && strstr(path, "(deleted)") &&
		    stat(link, &sb) == 0 && S_ISREG(sb.st_mode))
			bytes = (long long)sb.st_blocks * 512;
	}
	if (d)
		closedir(d);
	return bytes;
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Byte @i of block @k's pattern */
static unsigned char pat(int k, size_t i)
{
	return (unsigned char)(k * 131 + i * 7 + (i >> 12));
}

#define BLOCKS 24

/* 24 blocks of 1 to 4 MiB written whole, dropped from the resident set, read back */
static void test_blocks_kept(void)
{
	unsigned char *b[BLOCKS];
	size_t len[BLOCKS];
	struct ra_big_stats st;
	long base = rss_file_kb(), after;
	int wrong = 0;

	for (int k = 0; k < BLOCKS; k++) {
		len[k] = (size_t)(1 + k % 4) * MIB - (size_t)k * 100;
		b[k] = ra_big_alloc(len[k]);
		CHECK(b[k] != NULL);
		if (!b[k])
			return;
		CHECK(((uintptr_t)b[k] & 15) == 0);
		CHECK(all_zero(b[k], len[k]));
		for (size_t i = 0; i < len[k]; i++)
			b[k][i] = pat(k, i);
	}
	ra_big_stats(&st);
	CHECK(st.mapped >= 50 * MIB);
	/*
	 * 60 MiB written (the watching thread may have dropped some already);
	 * the check drops the rest (no floor, a target of 1 KiB)
	 */
	ra_big_check();
	after = rss_file_kb();
	CHECK(base >= 0 && after >= 0 && after < base + 4 * 1024);
	ra_big_stats(&st);
	CHECK(st.trims >= 1);
	for (int k = 0; k < BLOCKS; k++)
		for (size_t i = 0; i < len[k]; i++)
			wrong += b[k][i] != pat(k, i);
	CHECK_INT(wrong, 0);
	for (int k = 0; k < BLOCKS; k++)
		ra_big_free(b[k]);
	ra_big_stats(&st);
	CHECK_INT(st.mapped, 0);
}

/* Blocks given back and taken again read zero; growth in place and moves keep the bytes */
static void test_reuse_and_growth(void)
{
	unsigned char *a, *c;
	size_t n = 700 * 1024;
	int wrong = 0;

	a = ra_big_alloc(n);
	CHECK(a != NULL);
	if (!a)
		return;
	memset(a, 0xab, n);
	ra_big_free(a);
	c = ra_big_alloc(n - 4096);	/* the same class: the block given back */
	CHECK(c == a);
	CHECK(c && all_zero(c, n - 4096));
	if (!c)
		return;
	/* grown in place over bytes the block's first taker wrote: zero */
	memset(c, 0x5a, 1000);
	c = ra_big_realloc(c, n);
	CHECK(c == a);
	CHECK(c && c[999] == 0x5a && all_zero(c + 1000, n - 1000));
	if (!c)
		return;
	/* shrunk, written past the end no more, grown again: zero beyond */
	memset(c, 0x11, n);
	c = ra_big_realloc(c, 300 * 1024);
	c = ra_big_realloc(c, n);
	CHECK(c && c[300 * 1024 - 1] == 0x11 && all_zero(c + 300 * 1024, n - 300 * 1024));
	if (!c)
		return;
	/* moved to a larger class: every byte kept, the growth zero */
	for (size_t i = 0; i < n; i++)
		c[i] = pat(3, i);
	c = ra_big_realloc(c, 3 * n);
	CHECK(c != NULL);
	if (!c)
		return;
	for (size_t i = 0; i < n; i++)
		wrong += c[i] != pat(3, i);
	CHECK_INT(wrong, 0);
	CHECK(all_zero(c + n, 2 * n));
	/* small ones come from malloc and behave the same */
	a = ra_big_alloc(100);
	CHECK(a && all_zero(a, 100));
	if (a) {
		memset(a, 7, 100);
		a = ra_big_realloc(a, 50000);
		CHECK(a && a[99] == 7 && all_zero(a + 100, 50000 - 100));
	}
	ra_big_free(a);
	ra_big_free(c);
	ra_big_free(NULL);
}

/* Pools and slabs: zeroed, aligned records that keep their bytes; strings whole */
static void test_pools(void)
{
	struct ra_pool p = { 0 };
	struct ra_slab s = { 0 };
	char *str[2000];
	unsigned char *rec[2000];
	size_t sz[2000];
	int wrong = 0;

	for (int i = 0; i < 2000; i++) {
		char buf[64];
		int n = snprintf(buf, sizeof(buf), "/mnt/d/%d/file-%d", i % 17, i);

		str[i] = ra_pool_strndup(&p, buf, (size_t)n);
		rec[i] = ra_pool_alloc(&p, 100 + (size_t)(i % 300));
		CHECK(str[i] && rec[i]);
		if (!str[i] || !rec[i])
			return;
		CHECK(((uintptr_t)rec[i] & 15) == 0);
		wrong += !all_zero(rec[i], 100 + (size_t)(i % 300));
		memset(rec[i], i & 0xff, 100 + (size_t)(i % 300));
	}
	for (int i = 0; i < 2000; i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "/mnt/d/%d/file-%d", i % 17, i);
		wrong += strcmp(str[i], buf) != 0;
		wrong += rec[i][99] != (i & 0xff);
	}
	CHECK_INT(wrong, 0);
	ra_pool_release(&p);
	/* a slab: records of every class, given back at random, taken again zeroed */
	for (int i = 0; i < 2000; i++) {
		sz[i] = 1 + (size_t)(rnd() % 9000);
		rec[i] = ra_slab_alloc(&s, sz[i]);
		CHECK(rec[i] != NULL);
		if (!rec[i])
			return;
		wrong += !all_zero(rec[i], sz[i]);
		memset(rec[i], 0xee, sz[i]);
	}
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 2000; i++) {
			size_t n = 1 + (size_t)(rnd() % 9000);

			if (rnd() % 2) {
				ra_slab_free(&s, rec[i], sz[i]);
				rec[i] = ra_slab_alloc(&s, n);
				wrong += !rec[i] || !all_zero(rec[i], n);
			} else {
				rec[i] = ra_slab_realloc(&s, rec[i], sz[i], n);
				wrong += !rec[i] ||
					 (n > sz[i] && !all_zero(rec[i] + sz[i], n - sz[i])) ||
					 rec[i][0] != 0xee;
			}
			if (!rec[i])
				return;
			sz[i] = n;
			memset(rec[i], 0xee, n);
		}
	}
	CHECK_INT(wrong, 0);
	ra_slab_release(&s);
}

struct item {
	uint32_t key;
	uint32_t seq;
	char pad[5];
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ra_sort gives what qsort gives, for elements of odd and even sizes, with ties */
static void test_sort(void)
{
	static struct item a[5000], b[5000];
	static uint64_t u[3001], v[3001];

	for (size_t n = 0; n <= 5000; n = n ? n * 3 : 1) {
		for (size_t i = 0; i < n; i++)
			a[i] = (struct item){ .key = (uint32_t)(rnd() % 50), .seq = (uint32_t)i };
		memcpy(b, a, n * sizeof(*a));
		ra_sort(a, n, sizeof(*a), cmp_item);
		qsort(b, n, sizeof(*b), cmp_item);
		CHECK(memcmp(a, b, n * sizeof(*a)) == 0);
	}
	for (size_t i = 0; i < 3001; i++)
		u[i] = v[i] = rnd();
	ra_sort(u, 3001, sizeof(*u), cmp_u64);
	qsort(v, 3001, sizeof(*v), cmp_u64);
	CHECK(memcmp(u, v, sizeof(u)) == 0);
}

/*
 * Room on disk for every page of a block given, its header's first; a
 * slab's records larger than its classes given back with it
 */
static void test_room(void)
{
	struct ra_slab s = { 0 };
	struct ra_big_stats before, after;
	long long b0;
	unsigned char *p, *big[4];

	b0 = file_bytes("/tmp/");
	/* a block of a class not used before: fresh, 73.3 pages with its header */
	p = ra_big_alloc(300000);
	CHECK(p != NULL);
	CHECK(b0 >= 0 && file_bytes("/tmp/") - b0 == 74 * 4096);
	ra_big_free(p);
	ra_big_stats(&before);
	for (int i = 0; i < 4; i++) {
		big[i] = ra_slab_alloc(&s, 40000 + (size_t)i);
		CHECK(big[i] && all_zero(big[i], 40000));
	}
	big[1] = ra_slab_realloc(&s, big[1], 40001, 90000);
	ra_slab_free(&s, big[2], 40002);
	ra_slab_release(&s);
	ra_big_stats(&after);
	CHECK_INT(after.anon, before.anon);
	CHECK_INT(after.mapped, before.mapped);
}

/* In a child, before any file: on tmpfs, a block given back gives its memory back */
static void test_tmpfs(void)
{
	long long b1;
	pid_t pid;
	int status = 0;

	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		bool ok = true;

		setenv("TMPDIR", "/dev/shm", 1);
		for (int i = 0; i < 8; i++) {
			unsigned char *q = ra_big_alloc(8 * MIB);

			ok = ok && q && all_zero(q, 8 * MIB);
			if (q)
				memset(q, 0x77, 8 * MIB);
			ra_big_free(q);
		}
		b1 = file_bytes("/dev/shm/");
		_exit(ok && b1 >= 0 && b1 < 1 * MIB ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* In a child, before any file: a $TMPDIR that cannot hold it leaves it to malloc */
static void test_no_dir(void)
{
	pid_t pid = fork();
	int status = 0;

	CHECK(pid >= 0);
	if (pid == 0) {
		struct ra_big_stats st;
		unsigned char *p;
		bool ok;

		setenv("TMPDIR", "/nonexistent/ratrace-dir", 1);
		p = ra_big_alloc(4 * MIB);
		ok = p && all_zero(p, 4 * MIB);
		if (p)
			memset(p, 1, 4 * MIB);
		ra_big_stats(&st);
		ok = ok && st.mapped == 0 && st.anon >= 4 * MIB;
		ra_big_free(p);
		ra_big_stats(&st);
		_exit(ok && st.anon == 0 ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "a $TMPDIR that cannot hold the file", test_no_dir },
		{ "a $TMPDIR on tmpfs", test_tmpfs },
		{ "blocks kept while their pages leave the resident set", test_blocks_kept },
		{ "blocks taken again and grown", test_reuse_and_growth },
		{ "pools and slabs", test_pools },
		{ "sorting in place", test_sort },
		{ "room on disk, and given back", test_room },
		{ NULL, NULL },
	};

	/* read at the first allocation: everything big in the file, all of it droppable */
	setenv("RATRACE_BIG_ANON_KB", "0", 1);
	setenv("RATRACE_RSS_KB", "1", 1);
	setenv("RATRACE_BIG_FLOOR_KB", "0", 1);
	return test_run("bigmem", cases);
}
