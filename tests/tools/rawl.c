// SPDX-License-Identifier: LGPL-2.1
/*
 * rawl: the read workloads of the end-to-end tests. Each mode reads one file
 * in a way that makes the kernel's readahead take one of its paths:
 *
 *   rawl seq FILE [--bs N]                          read(2) the whole file in order
 *   rawl random FILE [--count N] [--bs N] [--seed S] reads at far-apart random offsets
 *   rawl interleave FILE                            two descriptors, one per half, alternating
 *   rawl fadvise FILE [--len N]                     POSIX_FADV_WILLNEED, pause, then read
 *   rawl mmap FILE                                  touch every page of a read-only mapping
 *
 * No mode gives the kernel an access hint except fadvise's WILLNEED. Errors
 * print one line naming the file and exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096ULL
#define BS_MAX (64ULL << 20)

struct opts {
	unsigned long long bs;
	unsigned long long count;
	unsigned long long seed;
	unsigned long long len;
	int has_len;
};

static const char *file;

static void usage(void)
{
	fprintf(stderr, "usage: rawl seq FILE [--bs N]\n"
			"       rawl random FILE [--count N] [--bs N] [--seed S]\n"
			"       rawl interleave FILE\n"
			"       rawl fadvise FILE [--len N]\n"
			"       rawl mmap FILE\n");
	exit(2);
}

static void fail(const char *what, int err)
{
	fprintf(stderr, "rawl: %s: %s: %s\n", file, what, strerror(err));
	exit(2);
}

static void fail_msg(const char *msg)
{
	fprintf(stderr, "rawl: %s: %s\n", file, msg);
	exit(2);
}

static unsigned long long parse_num(const char *opt, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "rawl: %s: bad number '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

static int open_file(void)
{
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		fail("open", errno);
	return fd;
}

static unsigned long long file_size(int fd)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		fail("fstat", errno);
	if (!S_ISREG(sb.st_mode))
		fail_msg("not a regular file");
	return (unsigned long long)sb.st_size;
}

/* One read(2) of up to len bytes; returns what was read, 0 at EOF. */
static size_t read_some(int fd, char *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		fail("read", errno);
	return (size_t)n;
}

static char *alloc_buf(unsigned long long bs)
{
	char *buf = malloc(bs);

	if (!buf)
		fail("malloc", ENOMEM);
	return buf;
}

/* Reads fd from its position to EOF (or limit bytes) with read(2) of bs bytes. */
static unsigned long long read_seq(int fd, unsigned long long bs, unsigned long long limit,
				   unsigned long long *nreads)
{
	char *buf = alloc_buf(bs);
	unsigned long long total = 0;
	size_t n;

	*nreads = 0;
	while (total < limit) {
		size_t want = limit - total < bs ? (size_t)(limit - total) : (size_t)bs;

		n = read_some(fd, buf, want);
		if (!n)
			break;
		total += n;
		(*nreads)++;
	}
	free(buf);
	return total;
}

static int mode_seq(const struct opts *o)
{
	int fd = open_file();
	unsigned long long nreads, total;

	total = read_seq(fd, o->bs, UINT64_MAX, &nreads);
	close(fd);
	printf("seq: %llu bytes in %llu reads of %llu\n", total, nreads, o->bs);
	return 0;
}

/* splitmix64: a small deterministic generator, the same sequence everywhere. */
static uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The file is cut into slots of 2 * bs (in pages); a read covers the second
 * half of a slot. So page 0 is never read, the page before a read is never
 * cached by an earlier read (the kernel sees no sequential history), and two
 * consecutive reads are at least 3 slots apart (never adjacent).
 */
static int mode_random(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd);
	unsigned long long bs_pages = (o->bs + PAGE - 1) / PAGE;
	unsigned long long slot = 2 * bs_pages;
	unsigned long long nslots = size / PAGE / slot;
	unsigned long long i, k, prev = 0;
	uint64_t state = o->seed;
	char *buf;

	if (nslots < 8)
		fail_msg("file too small for random reads of this size");
	buf = alloc_buf(o->bs);
	for (i = 0; i < o->count; i++) {
		off_t off;
		ssize_t n;

		do {
			k = next_rand(&state) % nslots;
		} while (i && (k > prev ? k - prev : prev - k) < 4);
		prev = k;
		off = (off_t)((k * slot + bs_pages) * PAGE);
		do {
			n = pread(fd, buf, o->bs, off);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			fail("pread", errno);
	}
	free(buf);
	close(fd);
	printf("random: %llu reads of %llu in %llu slots, seed %llu\n", o->count, o->bs, nslots,
	       o->seed);
	return 0;
}

/* Two descriptors, two readahead states: fd1 reads the first half, fd2 the second. */
static int mode_interleave(const struct opts *o)
{
	int fd1 = open_file(), fd2 = open_file();
	unsigned long long size = file_size(fd1);
	unsigned long long half = size / 2 / PAGE * PAGE;
	unsigned long long pos1 = 0, pos2 = half, nreads = 0;
	char *buf = alloc_buf(PAGE);
	int done1 = 0, done2 = 0;

	(void)o;
	if (lseek(fd2, (off_t)half, SEEK_SET) < 0)
		fail("lseek", errno);
	while (!done1 || !done2) {
		if (!done1) {
			size_t want = half - pos1 < PAGE ? (size_t)(half - pos1) : (size_t)PAGE;
			size_t n = want ? read_some(fd1, buf, want) : 0;

			pos1 += n;
			nreads += n > 0;
			done1 = !n || pos1 >= half;
		}
		if (!done2) {
			size_t n = read_some(fd2, buf, PAGE);

			pos2 += n;
			nreads += n > 0;
			done2 = !n;
		}
	}
	free(buf);
	close(fd1);
	close(fd2);
	printf("interleave: %llu + %llu bytes in %llu reads, second half from %llu\n", pos1,
	       pos2 - half, nreads, half);
	return 0;
}

static int mode_fadvise(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd);
	unsigned long long len = o->has_len ? o->len : size;
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	unsigned long long nreads, total;
	int err;

	err = posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_WILLNEED);
	if (err)
		fail("posix_fadvise", err);
	while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
		;
	total = read_seq(fd, PAGE, len, &nreads);
	close(fd);
	printf("fadvise: WILLNEED %llu bytes, read %llu in %llu reads\n", len, total, nreads);
	return 0;
}

static int mode_mmap(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd);
	unsigned long long off, sum = 0;
	const volatile unsigned char *p;
	void *map;

	(void)o;
	if (!size) {
		close(fd);
		printf("mmap: empty file, sum 0\n");
		return 0;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap", errno);
	p = map;
	for (off = 0; off < size; off += PAGE)
		sum += p[off];
	if (munmap(map, size) < 0)
		fail("munmap", errno);
	close(fd);
	printf("mmap: %llu pages, sum %llu\n", (size + PAGE - 1) / PAGE, sum);
	return 0;
}

struct mode {
	const char *name;
	int (*run)(const struct opts *o);
	const char *options; /* the options the mode takes, space-separated */
};

static const struct mode modes[] = {
	{ "seq", mode_seq, "--bs" },
	{ "random", mode_random, "--count --bs --seed" },
	{ "interleave", mode_interleave, "" },
	{ "fadvise", mode_fadvise, "--len" },
	{ "mmap", mode_mmap, "" },
};

static int takes(const struct mode *m, const char *opt)
{
	size_t len = strlen(opt);
	const char *s = m->options;

	while ((s = strstr(s, opt))) {
		if ((s == m->options || s[-1] == ' ') && (s[len] == ' ' || !s[len]))
			return 1;
		s += len;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .bs = PAGE, .count = 2000, .seed = 1 };
	const struct mode *m = NULL;
	size_t i;
	int a;

	if (argc < 3)
		usage();
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			m = &modes[i];
	if (!m)
		usage();
	file = argv[2];
	for (a = 3; a < argc; a += 2) {
		const char *opt = argv[a];

		if (strncmp(opt, "--", 2) || !takes(m, opt) || a + 1 >= argc) {
			fprintf(stderr, "rawl: %s: bad option '%s'\n", m->name, opt);
			usage();
		}
		if (!strcmp(opt, "--bs"))
			o.bs = parse_num(opt, argv[a + 1]);
		else if (!strcmp(opt, "--count"))
			o.count = parse_num(opt, argv[a + 1]);
		else if (!strcmp(opt, "--seed"))
			o.seed = parse_num(opt, argv[a + 1]);
		else if (!strcmp(opt, "--len")) {
			o.len = parse_num(opt, argv[a + 1]);
			o.has_len = 1;
		}
	}
	if (!o.bs || o.bs > BS_MAX) {
		fprintf(stderr, "rawl: --bs must be 1 to %llu\n", BS_MAX);
		exit(2);
	}
	if (m->run(&o))
		return 2;
	if (fflush(stdout) == EOF)
		fail("stdout", errno);
	return 0;
}
