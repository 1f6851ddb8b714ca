// SPDX-License-Identifier: LGPL-2.1
/*
 * Big memory (ra_bigmem.h): malloc up to a budget, then blocks of a
 * temporary file mapped shared, whose pages leave the resident set when
 * the process is beyond its resident target.
 *
 * The file is sparse and mapped whole once (RESERVE bytes of address
 * space, nothing on disk), so that a block never moves. A block is a power
 * of two of at least MIN_BLOCK bytes; room on disk is allocated for what
 * it is given (a write to it can never fail for want of space: the block
 * comes from malloc then). A block given back leaves the resident set and
 * waits for the next taker of its size, who finds it zeroed as far as it
 * asks; its room on disk stays (a hole punched costs a discard on a file
 * system mounted with them). Every allocation starts with a header that
 * says where it came from.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "ra_bigmem.h"
#include "ra_db.h"
#include "ra_tmpfile.h"

#define KIB 1024UL
#define MIB (1024 * KIB)
#define DEFAULT_ANON (4 * MIB)
#define DEFAULT_RSS (52 * MIB)
#define DEFAULT_FLOOR (4 * MIB)
#define MIN_BLOCK (64 * KIB)
#define FILE_MIN (256 * KIB)	/* smaller ones from malloc: they come and go */
#define CLASSES 24		/* blocks up to 2^39 bytes */
#define RESERVE (64ULL << 30)	/* address space of the file: halved until it maps */
#define POOL_BLOCK (256 * KIB)
#define SWEEP (2 * MIB)		/* dropped from the resident set at a time */
#define WATCH_NS 5000000	/* the watching thread's period */

enum { FROM_MALLOC = 0x6d616c6c, FROM_FILE = 0x66696c65 };

struct hdr {
	size_t n;		/* bytes asked */
	size_t room;		/* from malloc: the bytes it gave, the header's included;
				 * from the file: the most bytes it ever had (beyond
				 * them its pages were never written: zero, and room
				 * on disk not yet allocated) */
	uint32_t from;
	uint32_t cls;		/* from the file: the block is MIN_BLOCK << cls */
	uint64_t pad;		/* what follows 16-byte aligned */
};
_Static_assert(sizeof(struct hdr) % 16 == 0, "records after a header 16-byte aligned");

_Thread_local unsigned int ra_big_ticks;

static struct {
	pthread_mutex_t lock;
	bool ready;		/* budgets read */
	bool tried;		/* the file was tried: fd >= 0 if it is there */
	bool tmpfs;		/* it is in memory: blocks given back are punched out */
	size_t anon_budget;
	size_t rss_target;	/* the process's resident set, at most, where the file can */
	size_t floor;		/* the file's pages resident never dropped below this */
	size_t anon;
	struct ra_tmpfile file;
	char *base;
	size_t reserve, top;	/* bytes of the file given out once */
	size_t hand;		/* where the next sweep of the resident set starts */
	size_t mapped, peak_mapped;
	size_t *free_at[CLASSES];	/* offsets of blocks given back, by class */
	size_t nfree[CLASSES], capfree[CLASSES];
	int statm;
	long base_shared;	/* pages of files resident when the file was made */
	unsigned long trims;
} big = { .lock = PTHREAD_MUTEX_INITIALIZER, .file = { .fd = -1 }, .statm = -1 };

static size_t env_kib(const char *name, size_t dflt)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long k;

	if (!v || !*v)
		return dflt;
	errno = 0;
	k = strtoull(v, &end, 10);
	return errno || *end || k > (1ULL << 40) ? dflt : (size_t)k * KIB;
}

static void read_budgets(void)
{
	if (big.ready)
		return;
	big.anon_budget = env_kib("RATRACE_BIG_ANON_KB", DEFAULT_ANON);
	big.rss_target = env_kib("RATRACE_RSS_KB", DEFAULT_RSS);
	big.floor = env_kib("RATRACE_BIG_FLOOR_KB", DEFAULT_FLOOR);
	big.ready = true;
}

/* The process's pages resident, and those of files (statm's second and third fields) */
static bool resident_pages(long *resident, long *shared)
{
	char buf[128];
	ssize_t n;
	long size;

	if (big.statm < 0)
		return false;
	n = pread(big.statm, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return sscanf(buf, "%ld %ld %ld", &size, resident, shared) == 3;
}

static void *watch(void *arg)
{
	const struct timespec period = { 0, WATCH_NS };

	ra_self_thread_begin();
	pthread_setname_np(pthread_self(), "ra-watch");
	for (;;) {
		nanosleep(&period, NULL);
		ra_big_check();
	}
	return arg;
}

/*
 * A thread that checks the budget every WATCH_NS, for the uses of big
 * memory that do not tick (a walk of an array, a sort)
 */
static void watch_start(void)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;

	if (pthread_attr_init(&attr))
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* no signal of the process's is ever delivered to it */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_create(&t, &attr, watch, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

/*
 * The file made, the error of the caller's kept when it cannot be (malloc
 * gives the memory then); copy-on-write off, so that a page rewritten
 * needs no new room on btrfs
 */
static bool tmpfile_quiet(struct ra_tmpfile *t)
{
	char msg[512];
	int kind = ra_last_error_kind(), flags = 0;
	struct statfs sfs;

	snprintf(msg, sizeof(msg), "%s", ra_last_error());
	if (ra_tmpfile_open(t) < 0) {
		ra_set_error(kind, "%s", msg);
		return false;
	}
	if (ioctl(t->fd, FS_IOC_GETFLAGS, &flags) == 0) {
		flags |= FS_NOCOW_FL;
		ioctl(t->fd, FS_IOC_SETFLAGS, &flags);
	}
	big.tmpfs = fstatfs(t->fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC;
	return true;
}

/*
 * A child of a fork has no mapping of the file (MADV_DONTFORK): it
 * starts with malloc alone, and a lock of its own
 */
static void after_fork(void)
{
	pthread_mutex_init(&big.lock, NULL);
	big.base = NULL;
	big.tried = true;
	big.file.fd = -1;
	big.statm = -1;
	big.anon = 0;
	big.mapped = big.top = 0;
	for (int c = 0; c < CLASSES; c++)
		big.nfree[c] = 0;
}

/* The file made and mapped, once; false when it cannot be */
static bool file_ready(void)
{
	void *p = MAP_FAILED;
	long resident;

	if (big.tried)
		return big.base != NULL;
	big.tried = true;
	ra_tmpfile_init(&big.file);
	if (!tmpfile_quiet(&big.file))
		return false;
	for (big.reserve = RESERVE; big.reserve >= 256 * MIB; big.reserve /= 2) {
		if (ftruncate(big.file.fd, (off_t)big.reserve) < 0)
			continue;
		p = mmap(NULL, big.reserve, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
			 big.file.fd, 0);
		if (p != MAP_FAILED)
			break;
	}
	if (p == MAP_FAILED) {
		ra_tmpfile_close(&big.file);
		return false;
	}
	/* a fault reads its page alone: no read-around of pages never written */
	madvise(p, big.reserve, MADV_RANDOM);
	/* a child (a workload, a helper) does not share it */
	madvise(p, big.reserve, MADV_DONTFORK);
	pthread_atfork(NULL, NULL, after_fork);
	big.statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (!resident_pages(&resident, &big.base_shared))
		big.base_shared = 0;
	/* the checks on the hot paths read it without the lock */
	__atomic_store_n(&big.base, (char *)p, __ATOMIC_RELEASE);
	watch_start();
	return true;
}

/* The class of a block of @bytes, CLASSES when none is large enough */
static unsigned int class_of(size_t bytes)
{
	unsigned int c = 0;

	while (c < CLASSES && (MIN_BLOCK << c) < bytes)
		c++;
	return c;
}

static size_t page_up(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

/*
 * A block of class @c of the file for @n bytes, its header's room set and
 * room on disk allocated for them (its pages beyond are not touched until
 * it grows in place); NULL none
 */
static struct hdr *block_take(unsigned int c, size_t n)
{
	size_t len, off, had = 0, from, to;
	bool reused;
	struct hdr *h;

	if (c >= CLASSES || !file_ready())
		return NULL;
	len = MIN_BLOCK << c;
	reused = big.nfree[c] > 0;
	if (reused) {
		off = big.free_at[c][--big.nfree[c]];
		had = ((struct hdr *)(big.base + off))->room;
	} else {
		if (big.top + len > big.reserve)
			return NULL;
		off = big.top;
	}
	/* room on disk for its pages up to n, from its start (its header) */
	from = reused ? page_up(had + sizeof(*h)) : 0;
	to = page_up(n + sizeof(*h));
	if (to > from && fallocate(big.file.fd, 0, (off_t)(off + from), (off_t)(to - from)) < 0) {
		if (reused)
			big.nfree[c]++;
		return NULL;
	}
	if (!reused)
		big.top += len;
	big.mapped += len;
	if (big.mapped > big.peak_mapped)
		big.peak_mapped = big.mapped;
	h = (struct hdr *)(big.base + off);
	/* what a block given back had is zeroed as far as it is given again */
	memset(h + 1, 0, n < had ? n : had);
	h->room = n > had ? n : had;
	return h;
}

/*
 * Block @h of class @c given back: its pages leave the resident set, its
 * bytes and room on disk stay for the next taker (a hole punched costs a
 * discard on a file system mounted with it, and blocks come and go)
 */
static void block_give(struct hdr *h, unsigned int c)
{
	size_t len = MIN_BLOCK << c, off = (size_t)((char *)h - big.base);

	big.mapped -= len;
	if (big.nfree[c] == big.capfree[c]) {
		size_t cap = big.capfree[c] ? big.capfree[c] * 2 : 16;
		size_t *p = realloc(big.free_at[c], cap * sizeof(*p));

		if (!p)
			return;	/* the block is lost to reuse, not to correctness */
		big.free_at[c] = p;
		big.capfree[c] = cap;
	}
	big.free_at[c][big.nfree[c]++] = off;
	madvise(h, len, MADV_DONTNEED);
	/*
	 * On tmpfs its pages are memory (shared, swapped like the rest): a
	 * hole punched there costs no discard and gives them back. The next
	 * taker allocates room again from its start.
	 */
	if (big.tmpfs &&
	    fallocate(big.file.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      (off_t)len) == 0)
		h->room = 0;
}

void *ra_big_alloc(size_t n)
{
	size_t bytes = n + sizeof(struct hdr);
	struct hdr *h = NULL;

	if (bytes < n)
		return NULL;
	pthread_mutex_lock(&big.lock);
	read_budgets();
	if (bytes >= FILE_MIN && big.anon + bytes > big.anon_budget) {
		unsigned int c = class_of(bytes);

		h = block_take(c, n);
		if (h) {
			h->from = FROM_FILE;
			h->cls = c;
		}
	}
	if (!h) {
		h = calloc(1, bytes);
		if (h) {
			h->from = FROM_MALLOC;
			h->room = bytes;
			big.anon += bytes;
		}
	}
	pthread_mutex_unlock(&big.lock);
	if (!h)
		return NULL;
	h->n = n;
	return h + 1;
}

void ra_big_free(void *p)
{
	struct hdr *h;

	if (!p)
		return;
	h = (struct hdr *)p - 1;
	pthread_mutex_lock(&big.lock);
	if (h->from == FROM_FILE) {
		block_give(h, h->cls);
	} else {
		big.anon -= h->room;
		free(h);
	}
	pthread_mutex_unlock(&big.lock);
}

/* Room on disk for @n bytes of file block @h beyond its header */
static bool room_for(const struct hdr *h, size_t n)
{
	size_t from = page_up(h->room + sizeof(*h)), to = page_up(n + sizeof(*h));
	off_t off = (off_t)((const char *)h - big.base);

	return to <= from || fallocate(big.file.fd, 0, off + (off_t)from, (off_t)(to - from)) == 0;
}

/* A copy of big memory, a MiB at a time: the resident budget checked between */
static void copy(char *to, const char *from, size_t n)
{
	for (size_t done = 0; done < n; done += MIB) {
		memcpy(to + done, from + done, n - done < MIB ? n - done : MIB);
		ra_big_check();
	}
}

void *ra_big_realloc(void *p, size_t n)
{
	struct hdr *h;
	void *q;

	if (!p)
		return ra_big_alloc(n);
	if (n > SIZE_MAX - sizeof(*h))
		return NULL;
	h = (struct hdr *)p - 1;
	if (h->from == FROM_FILE && n + sizeof(*h) <= MIN_BLOCK << h->cls && room_for(h, n)) {
		/* in place: what it had beyond n is zeroed when it grows again */
		if (n > h->n)
			memset((char *)p + h->n, 0, (n < h->room ? n : h->room) - h->n);
		h->n = n;
		if (n > h->room)
			h->room = n;
		return p;
	}
	if (h->from == FROM_MALLOC && n <= h->n) {
		memset((char *)p + n, 0, h->n - n);
		h->n = n;
		return p;
	}
	q = ra_big_alloc(n);
	if (!q)
		return NULL;
	copy(q, p, h->n < n ? h->n : n);
	ra_big_free(p);
	return q;
}

/*
 * The file's pages resident beyond what the process may have of them: the
 * target less the rest of its resident set (anonymous memory and the
 * libraries' pages, about those resident when the file was made), the
 * floor at least; 0 within it (within half of it when @going on)
 */
static size_t excess(size_t *file_bytes, bool going)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), file, rest, allowed;
	long resident, shared;

	if (!resident_pages(&resident, &shared) || shared <= big.base_shared)
		return 0;
	file = (size_t)(shared - big.base_shared) * pg;
	*file_bytes = file;
	rest = resident > shared - big.base_shared ?
		       (size_t)(resident - (shared - big.base_shared)) * pg :
		       0;
	allowed = big.rss_target > rest ? big.rss_target - rest : 0;
	if (allowed < big.floor)
		allowed = big.floor;
	if (file <= (going ? allowed / 2 : allowed))
		return 0;
	return file - allowed / 2;
}

void ra_big_check(void)
{
	size_t drop, file, span, swept = 0;

	if (!__atomic_load_n(&big.base, __ATOMIC_ACQUIRE) || !(drop = excess(&file, false)))
		return;
	/*
	 * A hand goes round the file dropping its pages from the resident
	 * set, down to half of what may stay (so that the next drop is not
	 * at once): at the file's density of resident pages, as far as holds
	 * the bytes to drop, then on while the pages were elsewhere, once
	 * round at most. Pages used since the hand last passed stay; those
	 * used again fault back from the page cache.
	 */
	pthread_mutex_lock(&big.lock);
	do {
		span = (size_t)((double)big.top * (double)drop / (double)file);
		span = page_up(span < SWEEP ? SWEEP : span);
		if (span > big.top - swept)
			span = big.top - swept;
		swept += span;
		while (span) {
			size_t len;

			if (big.hand >= big.top)
				big.hand = 0;
			len = big.top - big.hand < span ? big.top - big.hand : span;
			madvise(big.base + big.hand, len, MADV_DONTNEED);
			big.hand += len;
			span -= len;
		}
	} while (swept < big.top && (drop = excess(&file, true)));
	big.trims++;
	pthread_mutex_unlock(&big.lock);
}

void ra_big_stats(struct ra_big_stats *s)
{
	pthread_mutex_lock(&big.lock);
	s->anon = big.anon;
	s->mapped = big.mapped;
	s->peak_mapped = big.peak_mapped;
	s->trims = big.trims;
	pthread_mutex_unlock(&big.lock);
}

/* ---- pools ---- */

struct pool_block {
	void *prev;
	char pad[8];		/* the records after it 16-byte aligned */
};

/* Room for @n bytes at p->cur: a fresh block when this one has not (its rest is left) */
static bool pool_room(struct ra_pool *p, size_t n)
{
	/* a block and its header, the big memory's, make POOL_BLOCK */
	size_t len = POOL_BLOCK - sizeof(struct hdr);
	struct pool_block *b;

	if (n <= p->left)
		return true;
	if (n + sizeof(struct pool_block) > len)
		len = n + sizeof(struct pool_block);
	b = ra_big_alloc(len);
	if (!b)
		return false;
	b->prev = p->blocks;
	p->blocks = b;
	p->cur = (char *)(b + 1);
	p->left = len - sizeof(*b);
	return true;
}

void *ra_pool_alloc(struct ra_pool *p, size_t n)
{
	size_t pad = (size_t)-(uintptr_t)p->cur & 15;
	void *r;

	if (!pool_room(p, pad + n))
		return NULL;
	pad = (size_t)-(uintptr_t)p->cur & 15;	/* 0 in a fresh block */
	r = p->cur + pad;
	p->cur += pad + n;
	p->left -= pad + n;
	return r;
}

char *ra_pool_strndup(struct ra_pool *p, const char *s, size_t n)
{
	char *r;

	if (!pool_room(p, n + 1))
		return NULL;
	r = p->cur;
	memcpy(r, s, n);
	r[n] = '\0';
	p->cur += n + 1;
	p->left -= n + 1;
	return r;
}

void ra_pool_release(struct ra_pool *p)
{
	while (p->blocks) {
		struct pool_block *b = p->blocks;

		p->blocks = b->prev;
		ra_big_free(b);
	}
	memset(p, 0, sizeof(*p));
}

/* ---- slabs ---- */

static unsigned int slab_class(size_t n)
{
	unsigned int c = 0;

	while ((size_t)16 << c < n)
		c++;
	return c;
}

/* A record larger than the slab's classes: big memory of its own, listed */
struct slab_big {
	struct slab_big *prev, *next;
};

static void *slab_big_alloc(struct ra_slab *s, size_t n)
{
	struct slab_big *b;

	if (n > SIZE_MAX - sizeof(*b) || !(b = ra_big_alloc(sizeof(*b) + n)))
		return NULL;
	b->next = s->big;
	if (b->next)
		b->next->prev = b;
	s->big = b;
	return b + 1;
}

static void slab_big_free(struct ra_slab *s, void *p)
{
	struct slab_big *b = (struct slab_big *)p - 1;

	if (b->prev)
		b->prev->next = b->next;
	else
		s->big = b->next;
	if (b->next)
		b->next->prev = b->prev;
	ra_big_free(b);
}

void *ra_slab_alloc(struct ra_slab *s, size_t n)
{
	unsigned int c = slab_class(n);
	void *r;

	if (c >= RA_SLAB_CLASSES)
		return slab_big_alloc(s, n);
	r = s->free[c];
	if (!r)
		return ra_pool_alloc(&s->pool, (size_t)16 << c);
	memcpy(&s->free[c], r, sizeof(void *));
	memset(r, 0, (size_t)16 << c);
	return r;
}

void ra_slab_free(struct ra_slab *s, void *p, size_t n)
{
	unsigned int c = slab_class(n);

	if (!p)
		return;
	if (c >= RA_SLAB_CLASSES) {
		slab_big_free(s, p);
		return;
	}
	memcpy(p, &s->free[c], sizeof(void *));
	s->free[c] = p;
}

void *ra_slab_realloc(struct ra_slab *s, void *p, size_t old, size_t n)
{
	void *q;

	if (p && slab_class(old) == slab_class(n) && slab_class(n) < RA_SLAB_CLASSES) {
		if (n > old)
			memset((char *)p + old, 0, n - old);
		return p;
	}
	q = ra_slab_alloc(s, n);
	if (!q)
		return NULL;
	if (p)
		memcpy(q, p, old < n ? old : n);
	ra_slab_free(s, p, old);
	return q;
}

void ra_slab_release(struct ra_slab *s)
{
	while (s->big)
		slab_big_free(s, s->big + 1);
	ra_pool_release(&s->pool);
	memset(s, 0, sizeof(*s));
}

/* ---- sorting in place ---- */

static void swap_bytes(char *a, char *b, size_t size)
{
	while (size--) {
		char t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

/* The heap of @n elements from @base made whole again below element @i */
static void sift_down(char *base, size_t i, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && cmp(base + c * size, base + (c + 1) * size) < 0)
			c++;
		if (cmp(base + i * size, base + c * size) >= 0)
			return;
		swap_bytes(base + i * size, base + c * size, size);
		i = c;
	}
}

void ra_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *b = base;

	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;) {
		ra_big_tick();
		sift_down(b, i, n, size, cmp);
	}
	for (size_t end = n - 1; end > 0; end--) {
		ra_big_tick();
		swap_bytes(b, b + end * size, size);
		sift_down(b, 0, end, size, cmp);
	}
}

int ra_big_describe(char *buf, size_t len)
{
	struct ra_big_stats s;

	ra_big_stats(&s);
	if (!s.peak_mapped)
		return 0;
	snprintf(buf, len,
		 "records of files and tasks: %.1f MiB at most in a temporary file, its pages"
		 " dropped from memory %lu time%s",
		 (double)s.peak_mapped / MIB, s.trims, s.trims == 1 ? "" : "s");
	return 1;
}
