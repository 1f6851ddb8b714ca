// SPDX-License-Identifier: LGPL-2.1
/*
 * rawl: the read workloads of the end-to-end tests. Each mode reads one file
 * in a way that makes the kernel's readahead take one of its paths:
 *
 *   rawl seq FILE [--bs N]                          read(2) the whole file in order
 *   rawl random FILE [--count N] [--bs N] [--seed S] reads at far-apart random offsets
 *   rawl interleave FILE [--fds 1|2]                the two halves in turn, through two
 *                                                   descriptors (one per half) or one
 *   rawl threads FILE                               two threads, one descriptor, 4 KiB
 *                                                   read(2)s in turn, to the end
 *   rawl stride FILE [--bs N] [--skip N]            read bs bytes, skip N, to the end
 *   rawl backward FILE [--bs N]                     read bs-byte blocks from the end back
 *   rawl fadvise FILE [--len N] [--first N]         POSIX_FADV_WILLNEED (after a read of
 *                                                   --first bytes), pause, then read
 *   rawl readahead FILE [--len N] [--bs N]          readahead(2), pause, then read
 *   rawl madvise FILE [--len N]                     map it, MADV_NORMAL and MADV_WILLNEED, pause,
 *                                                   touch its pages
 *   rawl mmap FILE [--advice normal|sequential|random|hugepage]
 *                                                   touch every page of a read-only mapping
 *   rawl touch FILE [--count N] [--gap P] [--seed S] one byte in each of N random places
 *                                                   of a mapping, P pages apart
 *
 * No mode gives the kernel an access hint except the WILLNEED of fadvise,
 * readahead and madvise (of the first N bytes, the whole file by default) and
 * mmap's --advice. Errors print one line naming the file and exit 2.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
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
	unsigned long long fds;
	unsigned long long first;
	unsigned long long skip;
	unsigned long long gap;
	int advice;
};

static const char *file;

static void usage(void)
{
	fprintf(stderr, "usage: rawl seq FILE [--bs N]\n"
			"       rawl random FILE [--count N] [--bs N] [--seed S]\n"
			"       rawl interleave FILE [--fds 1|2]\n"
			"       rawl threads FILE\n"
			"       rawl stride FILE [--bs N] [--skip N]\n"
			"       rawl backward FILE [--bs N]\n"
			"       rawl fadvise FILE [--len N] [--first N]\n"
			"       rawl readahead FILE [--len N] [--bs N]\n"
			"       rawl madvise FILE [--len N]\n"
			"       rawl mmap FILE [--advice normal|sequential|random|hugepage]\n"
			"       rawl touch FILE [--count N] [--gap PAGES] [--seed S]\n");
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

static size_t pread_some(int fd, char *buf, size_t len, unsigned long long off)
{
	ssize_t n;

	do {
		n = pread(fd, buf, len, (off_t)off);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		fail("pread", errno);
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
	unsigned long long i, k, prev = 0, distinct = 0;
	uint64_t state = o->seed;
	unsigned char *seen;
	char *buf;

	if (nslots < 8)
		fail_msg("file too small for random reads of this size");
	seen = calloc(nslots, 1);
	if (!seen)
		fail("calloc", ENOMEM);
	buf = alloc_buf(o->bs);
	for (i = 0; i < o->count; i++) {
		off_t off;
		ssize_t n;

		do {
			k = next_rand(&state) % nslots;
		} while (i && (k > prev ? k - prev : prev - k) < 4);
		prev = k;
		distinct += !seen[k];
		seen[k] = 1;
		off = (off_t)((k * slot + bs_pages) * PAGE);
		do {
			n = pread(fd, buf, o->bs, off);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			fail("pread", errno);
	}
	free(buf);
	free(seen);
	close(fd);
	printf("random: %llu reads of %llu in %llu slots, seed %llu; %llu pages read\n", o->count,
	       o->bs, nslots, o->seed, distinct * bs_pages);
	return 0;
}

/*
 * The first half and the second half in turn, 4 KiB at a time: through two
 * descriptors (two readahead states, one per half) or, with --fds 1, through
 * one (pread, one readahead state for both).
 */
static int mode_interleave(const struct opts *o)
{
	int fd1 = open_file(), fd2 = o->fds == 1 ? fd1 : open_file();
	unsigned long long size = file_size(fd1);
	unsigned long long half = size / 2 / PAGE * PAGE;
	unsigned long long pos1 = 0, pos2 = half, nreads = 0;
	char *buf = alloc_buf(PAGE);
	int done1 = 0, done2 = 0;

	while (!done1 || !done2) {
		if (!done1) {
			size_t want = half - pos1 < PAGE ? (size_t)(half - pos1) : (size_t)PAGE;
			size_t n = want ? pread_some(fd1, buf, want, pos1) : 0;

			pos1 += n;
			nreads += n > 0;
			done1 = !n || pos1 >= half;
		}
		if (!done2) {
			size_t n = pread_some(fd2, buf, PAGE, pos2);

			pos2 += n;
			nreads += n > 0;
			done2 = !n;
		}
	}
	free(buf);
	close(fd1);
	if (fd2 != fd1)
		close(fd2);
	printf("interleave: %llu + %llu bytes in %llu reads, second half from %llu, %d descriptor(s)\n",
	       pos1, pos2 - half, nreads, half, fd2 == fd1 ? 1 : 2);
	return 0;
}

/* Two threads reading one descriptor in turn: one readahead state for both. */
struct shared {
	pthread_mutex_t lock;
	int fd;
	int turn;
	unsigned long long bytes, reads[2];
	bool done;
};

struct reader_arg {
	struct shared *sh;
	int id;
};

static void *reader_thread(void *p)
{
	struct reader_arg *a = p;
	struct shared *sh = a->sh;
	char buf[PAGE];

	for (;;) {
		size_t n;

		pthread_mutex_lock(&sh->lock);
		if (sh->done) {
			pthread_mutex_unlock(&sh->lock);
			return NULL;
		}
		if (sh->turn != a->id) {	/* strictly in turn */
			pthread_mutex_unlock(&sh->lock);
			sched_yield();
			continue;
		}
		n = read_some(sh->fd, buf, PAGE);
		sh->bytes += n;
		sh->reads[a->id] += n > 0;
		sh->done = !n;
		sh->turn = !a->id;
		pthread_mutex_unlock(&sh->lock);
	}
}

static int mode_threads(const struct opts *o)
{
	struct shared sh = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = open_file() };
	struct reader_arg args[2] = { { &sh, 0 }, { &sh, 1 } };
	pthread_t th[2];

	(void)o;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, reader_thread, &args[i]) != 0)
			fail_msg("cannot start a thread");
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	close(sh.fd);
	printf("threads: %llu bytes in %llu + %llu reads of one descriptor\n", sh.bytes,
	       sh.reads[0], sh.reads[1]);
	return 0;
}

/* bs bytes read, skip bytes skipped, to the end of the file (pread). */
static int mode_stride(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd), off, total = 0, nreads = 0;
	char *buf = alloc_buf(o->bs);

	for (off = 0; off < size; off += o->bs + o->skip) {
		total += pread_some(fd, buf, (size_t)o->bs, off);
		nreads++;
	}
	free(buf);
	close(fd);
	printf("stride: %llu bytes in %llu reads of %llu, %llu skipped after each\n", total,
	       nreads, o->bs, o->skip);
	return 0;
}

/* The file in bs-byte blocks from the last to the first (pread). */
static int mode_backward(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd), end = size, total = 0, nreads = 0;
	char *buf = alloc_buf(o->bs);

	while (end > 0) {
		unsigned long long off = end > o->bs ? end - o->bs : 0;

		total += pread_some(fd, buf, (size_t)(end - off), off);
		nreads++;
		end = off;
	}
	free(buf);
	close(fd);
	printf("backward: %llu bytes in %llu reads of %llu\n", total, nreads, o->bs);
	return 0;
}

/* Time for the kernel's readahead of a WILLNEED call to finish. */
static void pause_200ms(void)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };

	while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
		;
}

static int mode_fadvise(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd);
	unsigned long long len = o->has_len ? o->len : size;
	unsigned long long nreads, total, first = 0;
	int err;

	if (o->first) {	/* a read first: its window is the task's latest */
		first = read_seq(fd, PAGE, o->first, &nreads);
		if (lseek(fd, 0, SEEK_SET) < 0)
			fail("lseek", errno);
	}
	err = posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_WILLNEED);
	if (err)
		fail("posix_fadvise", err);
	pause_200ms();
	total = read_seq(fd, PAGE, len, &nreads);
	close(fd);
	printf("fadvise: WILLNEED %llu bytes, read %llu in %llu reads, %llu first\n", len, total,
	       nreads, first);
	return 0;
}

static int mode_readahead(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd);
	unsigned long long len = o->has_len ? o->len : size;
	unsigned long long nreads, total;

	if (readahead(fd, 0, (size_t)len) < 0)
		fail("readahead", errno);
	pause_200ms();
	total = read_seq(fd, o->bs, len, &nreads);
	close(fd);
	printf("readahead: %llu bytes, read %llu in %llu reads\n", len, total, nreads);
	return 0;
}

/* The first len bytes of a shared read-only mapping of the file, then each of its pages. */
static int mode_madvise(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd);
	unsigned long long len = o->has_len ? o->len : size;
	unsigned long long off, sum = 0;
	const volatile unsigned char *p;
	void *map;

	if (!size || !len || len > size)
		fail_msg("--len must be 1 to the file's size");
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap", errno);
	/* advice that is not WILLNEED first: a recording leaves it out */
	if (madvise(map, len, MADV_NORMAL) < 0 || madvise(map, len, MADV_WILLNEED) < 0)
		fail("madvise", errno);
	pause_200ms();
	p = map;
	for (off = 0; off < len; off += PAGE)
		sum += p[off];
	if (munmap(map, size) < 0)
		fail("munmap", errno);
	close(fd);
	printf("madvise: WILLNEED %llu bytes at %p, touched %llu pages, sum %llu\n", len, map,
	       (len + PAGE - 1) / PAGE, sum);
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
	if (o->advice != MADV_NORMAL && madvise(map, size, o->advice) < 0)
		fail("madvise", errno);
	p = map;
	for (off = 0; off < size; off += PAGE)
		sum += p[off];
	if (munmap(map, size) < 0)
		fail("munmap", errno);
	close(fd);
	printf("mmap: %llu pages, sum %llu, advice %s\n", (size + PAGE - 1) / PAGE, sum,
	       o->advice == MADV_SEQUENTIAL ? "sequential" :
	       o->advice == MADV_HUGEPAGE ? "hugepage" : o->advice == MADV_RANDOM ? "random" :
								      "normal");
	return 0;
}

/*
 * One byte in each of count places of a read-only mapping, in random order:
 * the file is cut into slots of gap pages and a place is the first page of a
 * slot, each slot at most once.
 */
static int mode_touch(const struct opts *o)
{
	int fd = open_file();
	unsigned long long size = file_size(fd), nslots, i, sum = 0;
	uint64_t state = o->seed;
	const volatile unsigned char *p;
	unsigned long long *slot;
	void *map;

	nslots = o->gap ? size / PAGE / o->gap : 0;
	if (o->count > nslots)
		fail_msg("file too small for this many places this far apart");
	slot = malloc((nslots ? nslots : 1) * sizeof(*slot));
	if (!slot)
		fail("malloc", ENOMEM);
	for (i = 0; i < nslots; i++)
		slot[i] = i;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail("mmap", errno);
	p = map;
	for (i = 0; i < o->count; i++) {	/* a partial Fisher-Yates shuffle */
		unsigned long long j = i + next_rand(&state) % (nslots - i), k = slot[j];

		slot[j] = slot[i];
		slot[i] = k;
		sum += p[k * o->gap * PAGE];
	}
	munmap(map, size);
	free(slot);
	close(fd);
	printf("touch: %llu places %llu pages apart, sum %llu, seed %llu\n", o->count, o->gap,
	       sum, o->seed);
	return 0;
}

static int parse_advice(const char *s)
{
	if (!strcmp(s, "normal"))
		return MADV_NORMAL;
	if (!strcmp(s, "sequential"))
		return MADV_SEQUENTIAL;
	if (!strcmp(s, "hugepage"))
		return MADV_HUGEPAGE;
	if (!strcmp(s, "random"))
		return MADV_RANDOM;
	fprintf(stderr, "rawl: --advice: want normal, sequential, random or hugepage, not '%s'\n",
		s);
	exit(2);
}

struct mode {
	const char *name;
	int (*run)(const struct opts *o);
	const char *options; /* the options the mode takes, space-separated */
};

static const struct mode modes[] = {
	{ "seq", mode_seq, "--bs" },
	{ "random", mode_random, "--count --bs --seed" },
	{ "interleave", mode_interleave, "--fds" },
	{ "threads", mode_threads, "" },
	{ "stride", mode_stride, "--bs --skip" },
	{ "backward", mode_backward, "--bs" },
	{ "fadvise", mode_fadvise, "--len --first" },
	{ "readahead", mode_readahead, "--len --bs" },
	{ "madvise", mode_madvise, "--len" },
	{ "mmap", mode_mmap, "--advice" },
	{ "touch", mode_touch, "--count --gap --seed" },
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
	struct opts o = { .bs = PAGE, .count = 2000, .seed = 1, .fds = 2, .skip = PAGE, .gap = 64,
			  .advice = MADV_NORMAL };
	const struct mode *m = NULL;
	size_t i;
	int a;

	if (argc < 3)
		usage();
	if (getenv("RA_TEST_PIDS")) {	/* the tests' way to tell their own calls from others' */
		FILE *f = fopen(getenv("RA_TEST_PIDS"), "a");

		if (f) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
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
		} else if (!strcmp(opt, "--fds"))
			o.fds = parse_num(opt, argv[a + 1]);
		else if (!strcmp(opt, "--first"))
			o.first = parse_num(opt, argv[a + 1]);
		else if (!strcmp(opt, "--skip"))
			o.skip = parse_num(opt, argv[a + 1]);
		else if (!strcmp(opt, "--gap"))
			o.gap = parse_num(opt, argv[a + 1]);
		else if (!strcmp(opt, "--advice"))
			o.advice = parse_advice(argv[a + 1]);
	}
	if (o.fds != 1 && o.fds != 2) {
		fprintf(stderr, "rawl: --fds must be 1 or 2\n");
		exit(2);
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
