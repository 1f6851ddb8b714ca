// SPDX-License-Identifier: LGPL-2.1
/*
 * The blktrace reader: a real trace checked against blkparse, the same trace
 * in the other byte order, and small files written here for what the real
 * one lacks (several CPUs, every payload, notes, version 8) and for every
 * kind of damage.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import.h"
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Categories and actions of blktrace_api.h, spelled out for the files written here. */
#define TC(c)		((uint64_t)(c) << 16)
#define C_READ		0x1
#define C_WRITE		0x2
#define C_FLUSH		0x4
#define C_SYNC		0x8
#define C_QUEUE		0x10
#define C_ISSUE		0x40
#define C_COMPLETE	0x80
#define C_NOTIFY	0x400
#define C_AHEAD		0x800
#define C_META		0x1000
#define C_DISCARD	0x2000
#define C_DRV_DATA	0x4000
#define C_FUA		0x8000
#define A_QUEUE		(1 | TC(C_QUEUE))
#define A_GETRQ		(4 | TC(C_QUEUE))
#define A_ISSUE		(7 | TC(C_ISSUE))
#define A_COMPLETE	(8 | TC(C_COMPLETE))
#define A_UNPLUG_IO	(10 | TC(C_QUEUE))
#define A_UNPLUG_TIMER	(11 | TC(C_QUEUE))
#define A_SPLIT		13
#define A_REMAP		(15 | TC(C_QUEUE))
#define A_ABORT		(16 | TC(C_QUEUE))
#define A_DRV_DATA	(17 | TC(C_DRV_DATA))
#define A_CGROUP	0x100
#define N_PROCESS	(0 | TC(C_NOTIFY))
#define N_TIMESTAMP	(1 | TC(C_NOTIFY))
#define N_MESSAGE	(2 | TC(C_NOTIFY))

static char tmpdir[64];

/* ---- writing blktrace files ---- */

struct trec {
	uint64_t time;
	uint64_t sector;
	uint64_t action;
	uint32_t bytes, pid, device, cpu;
	uint16_t error;
	uint16_t pdu_len;
	unsigned char pdu[32];
	int pdu_u32;		/* the payload is u32s in the file's byte order (timestamp) */
	uint32_t magic;		/* 0: the right one */
};

static void put(unsigned char *p, uint64_t v, int size, int swap)
{
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	if (size == 2) {
		v16 = swap ? bswap_16(v16) : v16;
		memcpy(p, &v16, 2);
	} else if (size == 4) {
		v32 = swap ? bswap_32(v32) : v32;
		memcpy(p, &v32, 4);
	} else {
		v = swap ? bswap_64(v) : v;
		memcpy(p, &v, 8);
	}
}

/* One record as the kernel lays it out in @version (7: 48 bytes, 8: 64); its size. */
static size_t encode(unsigned char *out, const struct trec *r, int version, int swap)
{
	size_t hdr = version == 8 ? 64 : 48;

	memset(out, 0, hdr);
	put(out, r->magic ? r->magic : 0x65617400u | (uint32_t)version, 4, swap);
	put(out + 8, r->time, 8, swap);
	put(out + 16, r->sector, 8, swap);
	put(out + 24, r->bytes, 4, swap);
	if (version == 8) {
		put(out + 28, r->pid, 4, swap);
		put(out + 32, r->action, 8, swap);
		put(out + 40, r->device, 4, swap);
		put(out + 44, r->cpu, 4, swap);
		put(out + 48, r->error, 2, swap);
		put(out + 50, r->pdu_len, 2, swap);
	} else {
		put(out + 28, r->action, 4, swap);
		put(out + 32, r->pid, 4, swap);
		put(out + 36, r->device, 4, swap);
		put(out + 40, r->cpu, 4, swap);
		put(out + 44, r->error, 2, swap);
		put(out + 46, r->pdu_len, 2, swap);
	}
	if (r->pdu_len > sizeof(r->pdu))	/* a length that lies: no payload */
		return hdr;
	memcpy(out + hdr, r->pdu, r->pdu_len);
	for (size_t i = 0; r->pdu_u32 && i + 4 <= r->pdu_len; i += 4) {
		uint32_t v;

		memcpy(&v, r->pdu + i, 4);
		put(out + hdr + i, v, 4, swap);
	}
	return hdr + r->pdu_len;
}

static void tmp_path(char *path, const char *name)
{
	snprintf(path, PATH_MAX, "%s/%s", tmpdir, name);
}

static void write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fwrite(buf, 1, len, f) == len);
	CHECK(fclose(f) == 0);
}

/* Write @n records to tmpdir/@name; returns the file size. */
static size_t write_trace(char *path, const char *name, const struct trec *recs, int n,
			  int version, int swap)
{
	static unsigned char buf[16384];
	size_t len = 0;

	tmp_path(path, name);
	for (int i = 0; i < n; i++)
		len += encode(buf + len, &recs[i], version, swap);
	write_bytes(path, buf, len);
	return len;
}

static void *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)size);
		if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)size;
	}
	fclose(f);
	return buf;
}

static struct trec io(uint64_t time, uint32_t cpu, uint64_t action, uint64_t sector,
		      uint32_t bytes)
{
	struct trec r = { .time = time, .cpu = cpu, .action = action, .sector = sector,
			  .bytes = bytes, .pid = 100 + cpu, .device = RA_MKDEV(8, 0) };

	return r;
}

static struct trec with_be64(struct trec r, size_t at, uint64_t v)
{
	v = htobe64(v);
	memcpy(r.pdu + at, &v, 8);
	if (r.pdu_len < at + 8)
		r.pdu_len = (uint16_t)(at + 8);
	return r;
}

static struct trec note(uint64_t time, uint64_t action, uint32_t pid, const void *pdu,
			uint16_t len)
{
	struct trec r = { .time = time, .action = action, .pid = pid, .pdu_len = len };

	memcpy(r.pdu, pdu, len);
	return r;
}

static struct trec timestamp(uint64_t time, uint32_t sec, uint32_t nsec)
{
	uint32_t words[2] = { sec, nsec };
	struct trec r = note(time, N_TIMESTAMP, 0, words, sizeof(words));

	r.pdu_u32 = 1;
	return r;
}

static struct trec remap(uint64_t time, uint64_t sector, uint32_t from, uint64_t from_sector)
{
	struct trec r = io(time, 0, A_REMAP | TC(C_READ), sector, 4096);
	uint32_t be_from = htobe32(from), be_to = htobe32(RA_MKDEV(8, 0));

	memcpy(r.pdu, &be_from, 4);
	memcpy(r.pdu + 4, &be_to, 4);
	return with_be64(r, 8, from_sector);
}

/* ---- reading them back ---- */

struct sink {
	struct ra_event *ev;
	size_t n, cap;
	int stop_after;		/* > 0: the callback fails at that event */
	int ntask;
	int task_pid[8];
	char task_comm[8][16];
	char skipped[256];	/* "name n;name n;" in the order reported */
};

static int sink_event(const struct ra_event *ev, void *arg)
{
	struct sink *s = arg;

	if (s->stop_after && (int)s->n == s->stop_after)
		return -1;
	if (s->n == s->cap) {
		struct ra_event *nev = realloc(s->ev, (s->cap ? s->cap * 2 : 64) * sizeof(*nev));

		if (!nev)
			return -1;
		s->ev = nev;
		s->cap = s->cap ? s->cap * 2 : 64;
	}
	s->ev[s->n++] = *ev;
	return 0;
}

static void sink_task(int pid, const char *comm, void *arg)
{
	struct sink *s = arg;

	if (s->ntask < 8) {
		s->task_pid[s->ntask] = pid;
		snprintf(s->task_comm[s->ntask], sizeof(s->task_comm[0]), "%s", comm);
	}
	s->ntask++;
}

static void sink_skipped(const char *system, const char *name, uint64_t n, void *arg)
{
	struct sink *s = arg;
	size_t len = strlen(s->skipped);

	CHECK_STR(system, "blktrace");
	snprintf(s->skipped + len, sizeof(s->skipped) - len, "%s %llu;", name,
		 (unsigned long long)n);
}

static int replay(const char *const *paths, int n, struct sink *s, struct ra_blktrace_stats *st)
{
	struct ra_blktrace_cbs cbs = { .event = sink_event, .task = sink_task,
				       .skipped = sink_skipped, .arg = s };

	return ra_blktrace_replay(paths, n, &cbs, st);
}

static int replay1(const char *path, struct sink *s, struct ra_blktrace_stats *st)
{
	return replay(&path, 1, s, st);
}

static void sink_release(struct sink *s)
{
	free(s->ev);
	memset(s, 0, sizeof(*s));
}

static int count_type(const struct sink *s, int type, int explicit_unplug)
{
	int n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->ev[i].type == type &&
		    (type != RA_EV_UNPLUG || s->ev[i].blk.explicit_unplug == explicit_unplug))
			n++;
	return n;
}

static int same_event(const struct ra_event *a, const struct ra_event *b)
{
	return a->ts_ns == b->ts_ns && a->cpu == b->cpu && a->pid == b->pid &&
	       a->type == b->type && a->has_mask == b->has_mask && !strcmp(a->comm, b->comm) &&
	       a->blk.sector == b->blk.sector && a->blk.new_sector == b->blk.new_sector &&
	       a->blk.old_sector == b->blk.old_sector && a->blk.dev == b->blk.dev &&
	       a->blk.old_dev == b->blk.old_dev && a->blk.nr_sector == b->blk.nr_sector &&
	       a->blk.bytes == b->blk.bytes && a->blk.error == b->blk.error &&
	       a->blk.nr_rq == b->blk.nr_rq && a->blk.explicit_unplug == b->blk.explicit_unplug &&
	       !strcmp(a->blk.rwbs, b->blk.rwbs);
}

static int same_events(const struct sink *a, const struct sink *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (!same_event(&a->ev[i], &b->ev[i]))
			return 0;
	return 1;
}

static int ts_sorted(const struct sink *s)
{
	for (size_t i = 1; i < s->n; i++)
		if (s->ev[i].ts_ns < s->ev[i - 1].ts_ns)
			return 0;
	return 1;
}

static void fixture_path(char *path)
{
	const char *dir = getenv("RA_FIXTURES");

	snprintf(path, PATH_MAX, "%s/nvme-readahead.blktrace.0", dir ? dir : "tests/fixtures");
}

/* ---- the real trace ---- */

/*
 * What blkparse 1.2.0 reports for the fixture (it wants the file renamed to
 * x.blktrace.1 beside an empty x.blktrace.0):
 *   blkparse -i x | awk 'NF > 7 && $1 ~ /,/ { print $6 }' | sort | uniq -c
 * 963 each of A Q G P U D C, nothing else; 6741 entries; U counts all 1,
 * rwbs RA on A Q G D C and N on P U.
 */
static const struct {
	const char *act;
	int type;
	int explicit_unplug;
	int count;
} fixture_counts[] = {
	{ "A", RA_EV_BIO_REMAP, 0, 963 },	{ "Q", RA_EV_BIO_QUEUE, 0, 963 },
	{ "G", RA_EV_GETRQ, 0, 963 },		{ "P", RA_EV_PLUG, 0, 963 },
	{ "U", RA_EV_UNPLUG, 1, 963 },		{ "T", RA_EV_UNPLUG, 0, 0 },
	{ "D", RA_EV_RQ_ISSUE, 0, 963 },	{ "C", RA_EV_RQ_COMPLETE, 0, 963 },
	{ "I", RA_EV_RQ_INSERT, 0, 0 },		{ "M", RA_EV_BIO_BACKMERGE, 0, 0 },
	{ "F", RA_EV_BIO_FRONTMERGE, 0, 0 },	{ "X", RA_EV_SPLIT, 0, 0 },
	{ "R", RA_EV_RQ_REQUEUE, 0, 0 },	{ "S", RA_EV_SLEEPRQ, 0, 0 },
	{ "B", RA_EV_BIO_BOUNCE, 0, 0 },
};

static void check_fixture_fields(const struct sink *s)
{
	int bad_dev = 0, bad_rwbs = 0, bad_unplug = 0, bad_complete = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct ra_event *e = &s->ev[i];
		int bytes = e->type != RA_EV_PLUG && e->type != RA_EV_UNPLUG;

		bad_dev += e->blk.dev != RA_MKDEV(259, 0) || e->cpu != 1;
		bad_rwbs += strcmp(e->blk.rwbs, bytes ? "RA" : "N") != 0 ||
			    e->blk.bytes != (bytes ? 4096u : 0) || e->comm[0];
		bad_unplug += e->type == RA_EV_UNPLUG &&
			      (e->blk.nr_rq != 1 || !(e->has_mask & RA_HAS_NR_RQ));
		bad_complete += e->type == RA_EV_RQ_COMPLETE &&
				(e->blk.error != 0 || !(e->has_mask & RA_HAS_ERROR));
	}
	CHECK_INT(bad_dev, 0);
	CHECK_INT(bad_rwbs, 0);
	CHECK_INT(bad_unplug, 0);
	CHECK_INT(bad_complete, 0);
}

static void test_fixture(void)
{
	struct ra_blktrace_stats st;
	struct sink s = { 0 };
	char path[PATH_MAX];

	fixture_path(path);
	CHECK_INT(replay1(path, &s, &st), 0);
	CHECK_INT(st.records, 6743);	/* 6741 entries and two process notes */
	CHECK_INT(st.events, 6741);
	CHECK_INT(s.n, 6741);
	CHECK_INT(st.notify, 2);
	CHECK_INT(st.skipped, 0);
	CHECK_INT(st.version, 7);
	CHECK_INT(st.swapped, 0);
	CHECK_INT(st.wall_start_ns, -1);
	for (size_t i = 0; i < ARRAY_SIZE(fixture_counts); i++)
		CHECK_INT(count_type(&s, fixture_counts[i].type, fixture_counts[i].explicit_unplug),
			  fixture_counts[i].count);
	CHECK(ts_sorted(&s));
	check_fixture_fields(&s);
	/* blkparse: "259,0 1 1 0.000000000 21279 A RA 2348060440 + 8 <- (259,3) 2345510680" */
	if (s.n) {
		CHECK_INT(s.ev[0].type, RA_EV_BIO_REMAP);
		CHECK_INT(s.ev[0].ts_ns, 175669815001344ULL);
		CHECK_INT(s.ev[0].pid, 21279);
		CHECK_INT(s.ev[0].blk.sector, 2348060440ULL);
		CHECK_INT(s.ev[0].blk.nr_sector, 8);
		CHECK_INT(s.ev[0].blk.old_dev, RA_MKDEV(259, 3));
		CHECK_INT(s.ev[0].blk.old_sector, 2345510680ULL);
		CHECK_INT(s.ev[s.n - 1].ts_ns - s.ev[0].ts_ns, 345541853);
	}
	CHECK_INT(s.ntask, 2);
	CHECK_INT(s.task_pid[0], 0);
	CHECK_STR(s.task_comm[0], "swapper/1");
	CHECK_INT(s.task_pid[1], 10256);
	CHECK_STR(s.task_comm[1], "VizCompositorTh");
	sink_release(&s);
}

/* Swap every header field of every version-7 record of @buf in place. */
static int swap_v7_headers(unsigned char *buf, size_t len)
{
	static const int sizes[] = { 4, 4, 8, 8, 4, 4, 4, 4, 4, 2, 2 };
	size_t off = 0;

	while (off + 48 <= len) {
		uint16_t pdu_len;
		unsigned char *p = buf + off;

		memcpy(&pdu_len, buf + off + 46, 2);
		for (size_t i = 0; i < ARRAY_SIZE(sizes); p += sizes[i], i++) {
			uint64_t v = 0;

			memcpy(&v, p, (size_t)sizes[i]);
			put(p, v, sizes[i], 1);
		}
		off += 48 + pdu_len;
	}
	return off == len;
}

static void test_fixture_swapped(void)
{
	struct ra_blktrace_stats st, st_sw;
	struct sink s = { 0 }, sw = { 0 };
	char path[PATH_MAX], swapped[PATH_MAX];
	unsigned char *buf;
	size_t len = 0;

	fixture_path(path);
	buf = read_all(path, &len);
	CHECK(buf != NULL);
	if (!buf)
		return;
	CHECK(swap_v7_headers(buf, len));
	tmp_path(swapped, "swapped.blktrace.0");
	write_bytes(swapped, buf, len);
	CHECK_INT(ra_blktrace_probe(buf, len), 2);
	CHECK_INT(replay1(path, &s, &st), 0);
	CHECK_INT(replay1(swapped, &sw, &st_sw), 0);
	CHECK_INT(st_sw.swapped, 1);
	CHECK_INT(st_sw.records, st.records);
	CHECK_INT(sw.n, 6741);
	CHECK(same_events(&s, &sw));
	CHECK_INT(sw.ntask, 2);
	CHECK_STR(sw.task_comm[1], "VizCompositorTh");
	sink_release(&s);
	sink_release(&sw);
	free(buf);
}

/* ---- written files ---- */

static void test_merge(void)
{
	const struct trec cpu0[] = {
		io(10, 0, A_QUEUE, 1, 4096), io(30, 0, A_QUEUE, 3, 4096),
		io(50, 0, A_QUEUE, 5, 4096), io(50, 0, A_ISSUE, 5, 4096),
	};
	/* the file says .1; its records say CPU 3: taken as they are */
	const struct trec cpu1[] = {
		io(20, 3, A_QUEUE, 2, 4096), io(30, 3, A_QUEUE, 33, 4096),
		io(40, 3, A_QUEUE, 4, 4096), io(60, 3, A_QUEUE, 6, 4096),
	};
	static const uint64_t want_sector[] = { 1, 2, 3, 33, 4, 5, 5, 6 };
	char p0[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];
	const char *paths[] = { p0, p1, p2 };
	struct ra_blktrace_stats st;
	struct sink s = { 0 };

	write_trace(p0, "m.blktrace.0", cpu0, 4, 7, 0);
	write_trace(p1, "m.blktrace.1", cpu1, 4, 7, 0);
	write_trace(p2, "m.blktrace.2", NULL, 0, 7, 0);	/* an idle CPU */
	CHECK_INT(replay(paths, 3, &s, &st), 0);
	CHECK_INT(s.n, 8);
	CHECK(ts_sorted(&s));
	for (size_t i = 0; i < s.n && i < ARRAY_SIZE(want_sector); i++) {
		CHECK_INT(s.ev[i].blk.sector, want_sector[i]);
		CHECK_INT(s.ev[i].cpu, s.ev[i].blk.sector == 1 || s.ev[i].blk.sector == 3 ||
						       s.ev[i].blk.sector == 5 ? 0 : 3);
	}
	sink_release(&s);
}

/* One of each payload; the same events whatever the version and byte order. */
static int payload_trace(struct trec *r)
{
	int n = 0;
	struct trec c = io(7, 0, A_COMPLETE | TC(C_READ), 900, 8192);
	uint64_t cgid = 0x1122334455667788ULL;

	r[n++] = with_be64(io(1, 0, A_UNPLUG_IO | TC(C_READ), 0, 0), 0, 3);
	r[n++] = with_be64(io(2, 0, A_UNPLUG_TIMER | TC(C_READ), 0, 0), 0, 2);
	r[n++] = with_be64(io(3, 0, A_SPLIT | TC(C_READ), 1000, 65536), 0, 1008);
	r[n++] = remap(4, 5000, RA_MKDEV(8, 1), 3000);
	r[n] = io(5, 0, A_UNPLUG_IO | A_CGROUP, 0, 0);
	memcpy(r[n].pdu, &cgid, 8);
	r[n] = with_be64(r[n], 8, 4);
	n++;
	r[n++] = io(6, 0, A_DRV_DATA, 0, 0);
	r[n++] = io(6, 0, A_ABORT, 0, 0);
	c.error = (uint16_t)-5;
	r[n++] = c;
	r[n++] = io(8, 0, A_ISSUE | TC(C_WRITE), 900, 8192);
	return n;
}

static void check_payloads(const struct sink *s)
{
	if (s->n != 7)
		return;
	CHECK_INT(s->ev[0].blk.nr_rq, 3);
	CHECK_INT(s->ev[0].blk.explicit_unplug, 1);
	CHECK(s->ev[0].has_mask & RA_HAS_NR_RQ);
	CHECK_INT(s->ev[1].blk.nr_rq, 2);
	CHECK_INT(s->ev[1].blk.explicit_unplug, 0);
	CHECK_INT(s->ev[2].type, RA_EV_SPLIT);
	CHECK_INT(s->ev[2].blk.sector, 1000);
	CHECK_INT(s->ev[2].blk.new_sector, 1008);
	CHECK_INT(s->ev[2].blk.nr_sector, 128);
	CHECK_INT(s->ev[3].type, RA_EV_BIO_REMAP);
	CHECK_INT(s->ev[3].blk.dev, RA_MKDEV(8, 0));
	CHECK_INT(s->ev[3].blk.old_dev, RA_MKDEV(8, 1));
	CHECK_INT(s->ev[3].blk.old_sector, 3000);
	CHECK_INT(s->ev[4].blk.nr_rq, 4);	/* behind the cgroup id */
	CHECK_INT(s->ev[5].type, RA_EV_RQ_COMPLETE);
	CHECK_INT(s->ev[5].blk.error, -5);
	CHECK_INT(s->ev[5].has_mask, RA_HAS_BYTES | RA_HAS_ERROR);
	CHECK_INT(s->ev[5].blk.bytes, 8192);
	CHECK_INT(s->ev[6].type, RA_EV_RQ_ISSUE);
	CHECK_INT(s->ev[6].has_mask, RA_HAS_BYTES);
	CHECK_STR(s->ev[6].blk.rwbs, "W");
}

static void test_payloads(void)
{
	static const struct {
		int version, swap;
	} forms[] = { { 7, 0 }, { 7, 1 }, { 8, 0 }, { 8, 1 } };
	struct sink first = { 0 };
	struct trec r[16];
	int n = payload_trace(r);

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		struct ra_blktrace_stats st;
		struct sink s = { 0 };
		char path[PATH_MAX];

		write_trace(path, "pdu.blktrace.0", r, n, forms[i].version, forms[i].swap);
		CHECK_INT(replay1(path, &s, &st), 0);
		CHECK_INT(st.version, forms[i].version);
		CHECK_INT(st.swapped, forms[i].swap);
		CHECK_INT(st.records, 9);
		CHECK_INT(st.skipped, 2);
		CHECK_INT(s.n, 7);
		check_payloads(&s);
		if (i == 0)
			first = s;
		else
			CHECK(same_events(&first, &s));
		if (i != 0)
			sink_release(&s);
	}
	sink_release(&first);
}

static void test_rwbs(void)
{
	static const struct {
		uint64_t cats;
		uint32_t bytes;
		const char *rwbs;
	} cases[] = {
		{ C_READ | C_AHEAD, 4096, "RA" },
		{ C_READ, 0, "N" },
		{ C_WRITE | C_SYNC, 4096, "WS" },
		{ C_WRITE | C_FLUSH | C_FUA | C_SYNC, 4096, "FWFS" },
		{ C_FLUSH, 0, "FN" },
		{ C_DISCARD | C_WRITE, 1 << 20, "D" },
		{ C_READ | C_META | C_SYNC, 4096, "RSM" },
		{ C_WRITE | C_FLUSH | C_FUA | C_AHEAD | C_SYNC | C_META, 512, "FWFASM" },
	};
	struct trec r[ARRAY_SIZE(cases)];
	struct ra_blktrace_stats st;
	struct sink s = { 0 };
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		r[i] = io(i, 0, A_QUEUE | TC(cases[i].cats), 8, cases[i].bytes);
	write_trace(path, "rwbs.blktrace.0", r, ARRAY_SIZE(cases), 7, 0);
	CHECK_INT(replay1(path, &s, &st), 0);
	CHECK_INT(s.n, ARRAY_SIZE(cases));
	for (size_t i = 0; i < s.n && i < ARRAY_SIZE(cases); i++)
		CHECK_STR(s.ev[i].blk.rwbs, cases[i].rwbs);
	sink_release(&s);
}

static void test_notes(void)
{
	const struct trec r[] = {
		timestamp(1, 1700000000, 123456789),
		note(2, N_PROCESS, 42, "dd\0\0\0\0\0\0\0\0\0\0\0\0\0", 16),
		note(3, N_PROCESS, 43, "abcdefghijklmnop", 16),	/* no NUL: cut at 15 */
		note(4, N_MESSAGE, 0, "hello", 5),
		io(5, 0, A_GETRQ | TC(C_READ), 8, 4096),
		timestamp(6, 1800000000, 0),	/* only the first one counts */
	};

	for (int swap = 0; swap <= 1; swap++) {
		struct ra_blktrace_stats st;
		struct sink s = { 0 };
		char path[PATH_MAX];

		write_trace(path, "notes.blktrace.0", r, ARRAY_SIZE(r), 7, swap);
		CHECK_INT(replay1(path, &s, &st), 0);
		CHECK_INT(st.records, 6);
		CHECK_INT(st.notify, 5);
		CHECK_INT(st.events, 1);
		CHECK_INT(st.wall_start_ns, 1700000000123456789LL);
		CHECK_INT(s.ntask, 2);
		CHECK_INT(s.task_pid[0], 42);
		CHECK_STR(s.task_comm[0], "dd");
		CHECK_INT(s.task_pid[1], 43);
		CHECK_STR(s.task_comm[1], "abcdefghijklmno");
		sink_release(&s);
	}
}

/*
 * Records ratrace does not store, counted by kind: abort and driver data
 * (actions 16, 17), messages (note 2), an action and a note no kernel has,
 * under the cgroup flag too. Process and timestamp notes are used, not
 * counted. A replay that fails reports nothing.
 */
static void test_skipped(void)
{
	const struct trec r[] = {
		io(1, 0, A_ABORT, 8, 4096), io(2, 0, A_DRV_DATA, 0, 0),
		io(3, 0, A_DRV_DATA | A_CGROUP, 0, 0), note(4, N_MESSAGE, 0, "hi", 2),
		note(5, N_MESSAGE, 0, "again", 5), io(6, 0, 30 | TC(C_QUEUE), 8, 4096),
		io(7, 0, 200 | TC(C_QUEUE), 8, 4096), note(8, 9 | TC(C_NOTIFY), 0, "x", 1),
		note(9, N_PROCESS, 42, "dd", 3), timestamp(10, 1700000000, 0),
		io(11, 0, A_QUEUE | TC(C_READ), 8, 4096),
	};
	struct trec rr[ARRAY_SIZE(r)];
	struct ra_blktrace_stats st;
	struct sink s = { 0 };
	char path[PATH_MAX];

	memcpy(rr, r, sizeof(r));
	rr[2].pdu_len = 8;	/* the cgroup id */
	write_trace(path, "skip.blktrace.0", rr, ARRAY_SIZE(rr), 7, 0);
	CHECK_INT(replay1(path, &s, &st), 0);
	CHECK_INT(st.events, 1);
	CHECK_INT(st.skipped, 5);
	CHECK_STR(s.skipped, "message 2;note 9 1;abort 1;drv_data 2;action 30 1;"
			     "action 64 or more 1;");
	sink_release(&s);
	rr[10].magic = 0x11111111;	/* damaged: the replay fails, nothing is reported */
	write_trace(path, "skip.blktrace.0", rr, ARRAY_SIZE(rr), 7, 0);
	CHECK_INT(replay1(path, &s, &st), -1);
	CHECK_STR(s.skipped, "");
	sink_release(&s);
}

/*
 * A blkparse -d dump: one file holding every CPU, times relative to the first
 * record except the notes, which keep the raw kernel time. Its notes must not
 * hold its events back when it is merged with another file.
 */
static void test_dump(void)
{
	const struct trec dump[] = {
		io(0, 0, A_QUEUE, 1, 4096), io(20, 1, A_QUEUE, 2, 4096),
		note(175669815058248ULL, N_PROCESS, 7, "kworker", 8),
		io(30, 0, A_ISSUE, 1, 4096), io(40, 1, A_ISSUE, 2, 4096),
	};
	const struct trec other[] = { io(25, 2, A_QUEUE, 9, 4096) };
	static const uint64_t want_ts[] = { 0, 20, 25, 30, 40 };
	char p0[PATH_MAX], p1[PATH_MAX];
	const char *paths[] = { p0, p1 };
	struct ra_blktrace_stats st;
	struct sink s = { 0 };

	write_trace(p0, "dump.bin", dump, ARRAY_SIZE(dump), 7, 0);
	write_trace(p1, "other.blktrace.2", other, 1, 7, 0);
	CHECK_INT(replay(paths, 2, &s, &st), 0);
	CHECK_INT(s.n, 5);
	for (size_t i = 0; i < s.n && i < ARRAY_SIZE(want_ts); i++)
		CHECK_INT(s.ev[i].ts_ns, want_ts[i]);
	CHECK_INT(s.ntask, 1);
	CHECK_STR(s.task_comm[0], "kworker");
	sink_release(&s);
}

/* Cut a small file at every offset: a clean prefix at record boundaries, else an error. */
static void test_truncated(void)
{
	struct trec r[16];
	int n = payload_trace(r);

	r[n++] = note(9, N_PROCESS, 42, "dd\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	for (int version = 7; version <= 8; version++) {
		unsigned char buf[4096];
		size_t ends[16], len = 0;
		char path[PATH_MAX];

		for (int i = 0; i < n; i++) {
			len += encode(buf + len, &r[i], version, version == 8);
			ends[i] = len;
		}
		tmp_path(path, "cut.blktrace.0");
		for (size_t cut = 0; cut <= len; cut++) {
			struct ra_blktrace_stats st;
			struct sink s = { 0 };
			int whole = 0, boundary = cut == 0, ret;

			for (int i = 0; i < n; i++) {
				whole += ends[i] <= cut;
				boundary |= ends[i] == cut;
			}
			write_bytes(path, buf, cut);
			ret = replay1(path, &s, &st);
			CHECK_INT(ret, boundary ? 0 : -1);
			if (ret == 0)
				CHECK_INT(st.records, whole);
			else
				CHECK(strstr(ra_last_error(), path) &&
				      ra_last_error_kind() == RA_ERR_DATA);
			sink_release(&s);
		}
	}
}

/* ---- damaged and wrong input ---- */

static void make_bad_magic(char *path)
{
	struct trec r[] = { io(1, 0, A_QUEUE, 8, 4096) };

	r[0].magic = 0x12345678;
	write_trace(path, "magic.blktrace.0", r, 1, 7, 0);
}

static void make_bad_magic_later(char *path)
{
	struct trec r[] = { io(1, 0, A_QUEUE, 8, 4096), io(2, 0, A_QUEUE, 8, 4096) };

	r[1].magic = 0x65617500 | 7;
	write_trace(path, "magic2.blktrace.0", r, 2, 7, 0);
}

static void make_pdu_past_end(char *path)
{
	struct trec r[] = { io(1, 0, A_QUEUE, 8, 4096), io(2, 0, A_QUEUE, 8, 4096) };

	r[1].pdu_len = 9000;	/* encode() writes no payload for it */
	write_trace(path, "pdu.blktrace.0", r, 2, 7, 0);
}

static void make_version9(char *path)
{
	struct trec r[] = { io(1, 0, A_QUEUE, 8, 4096) };

	r[0].magic = 0x65617409;
	write_trace(path, "v9.blktrace.0", r, 1, 7, 0);
}

static void make_version_change(char *path)
{
	struct trec r[] = { io(1, 0, A_QUEUE, 8, 4096), io(2, 0, A_QUEUE, 8, 4096) };

	r[1].magic = 0x65617408;
	write_trace(path, "vchange.blktrace.0", r, 2, 7, 0);
}

static void make_short_unplug(char *path)
{
	struct trec r[] = { io(1, 0, A_QUEUE, 8, 4096), io(2, 0, A_UNPLUG_IO, 0, 0) };

	r[1].pdu_len = 4;
	write_trace(path, "unplug.blktrace.0", r, 2, 7, 0);
}

static void make_short_remap(char *path)
{
	struct trec r[] = { remap(1, 8, RA_MKDEV(8, 1), 0) };

	r[0].pdu_len = 12;
	write_trace(path, "remap.blktrace.0", r, 1, 8, 0);
}

static void make_short_cgroup(char *path)
{
	struct trec r[] = { io(1, 0, A_QUEUE | A_CGROUP, 8, 4096) };

	r[0].pdu_len = 4;
	write_trace(path, "cgroup.blktrace.0", r, 1, 7, 1);
}

static void make_short_timestamp(char *path)
{
	struct trec r[] = { timestamp(1, 1, 2) };

	r[0].pdu_len = 6;
	write_trace(path, "ts.blktrace.0", r, 1, 7, 0);
}

static void make_empty(char *path)
{
	tmp_path(path, "empty.blktrace.0");
	write_bytes(path, "", 0);
}

static void make_directory(char *path)
{
	tmp_path(path, "dir.blktrace.0");
	CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void make_missing(char *path)
{
	tmp_path(path, "missing.blktrace.0");
}

static void test_bad_input(void)
{
	static const struct {
		const char *name;
		void (*make)(char *path);
		int kind;	/* RA_OK: reads cleanly */
		const char *msg;
	} cases[] = {
		{ "bad magic", make_bad_magic, RA_ERR_DATA,
		  "offset 0: bad magic 0x12345678 (not a blktrace file)" },
		{ "bad magic later", make_bad_magic_later, RA_ERR_DATA, "offset 48: bad magic" },
		{ "pdu past end", make_pdu_past_end, RA_ERR_DATA,
		  "offset 48: pdu_len 9000 runs past the end of the file" },
		{ "version 9", make_version9, RA_ERR_DATA, "unsupported blktrace version 9" },
		{ "version change", make_version_change, RA_ERR_DATA,
		  "offset 48: version 8 in a file of version 7" },
		{ "short unplug", make_short_unplug, RA_ERR_DATA,
		  "offset 48: unplug pdu of 4 bytes, expected 8" },
		{ "short remap", make_short_remap, RA_ERR_DATA,
		  "remap pdu of 12 bytes, expected 16" },
		{ "short cgroup", make_short_cgroup, RA_ERR_DATA, "too short for a cgroup id" },
		{ "short timestamp", make_short_timestamp, RA_ERR_DATA,
		  "timestamp pdu of 6 bytes" },
		{ "empty", make_empty, RA_OK, NULL },
		{ "directory", make_directory, RA_ERR_USAGE, "is a directory" },
		{ "missing", make_missing, RA_ERR_USAGE, "cannot open" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ra_blktrace_stats st;
		int before = test_failures, ret;
		struct sink s = { 0 };
		char path[PATH_MAX];

		cases[i].make(path);
		ret = replay1(path, &s, &st);
		CHECK_INT(ret, cases[i].kind == RA_OK ? 0 : -1);
		if (ret < 0) {
			CHECK_INT(ra_last_error_kind(), cases[i].kind);
			CHECK(strstr(ra_last_error(), path) != NULL);
			CHECK(strstr(ra_last_error(), cases[i].msg) != NULL);
		} else {
			CHECK_INT(st.records, 0);
		}
		if (test_failures != before)
			fprintf(stderr, "  case '%s': %s\n", cases[i].name, ra_last_error());
		sink_release(&s);
	}
}

static void test_mixed_files(void)
{
	const struct trec r[] = { io(1, 0, A_QUEUE, 8, 4096) };
	char p0[PATH_MAX], p1[PATH_MAX];
	const char *paths[] = { p0, p1 };
	struct sink s = { 0 };

	write_trace(p0, "mix.blktrace.0", r, 1, 7, 0);
	write_trace(p1, "mix.blktrace.1", r, 1, 8, 0);
	CHECK_INT(replay(paths, 2, &s, NULL), -1);
	CHECK(strstr(ra_last_error(), "does not match version 7") != NULL);
	write_trace(p1, "mix.blktrace.1", r, 1, 7, 1);
	CHECK_INT(replay(paths, 2, &s, NULL), -1);
	CHECK(strstr(ra_last_error(), "version 7 (swapped) does not match") != NULL);
	CHECK_INT(replay(paths, 0, &s, NULL), -1);
	CHECK_INT(ra_last_error_kind(), RA_ERR_USAGE);
	sink_release(&s);
}

static void test_callback_stops(void)
{
	struct ra_blktrace_stats st;
	struct sink s = { .stop_after = 3 };
	char path[PATH_MAX];

	fixture_path(path);
	CHECK_INT(replay1(path, &s, &st), -1);
	CHECK_INT(s.n, 3);
	sink_release(&s);
}

static void test_probe(void)
{
	static const struct {
		int version, swap, len;
		uint32_t magic;
		int want;
	} cases[] = {
		{ 7, 0, 48, 0, 1 },  { 7, 1, 48, 0, 2 },	 { 8, 0, 64, 0, 1 },
		{ 8, 1, 64, 0, 2 },  { 8, 0, 48, 0, 0 },	 { 7, 0, 47, 0, 0 },
		{ 7, 0, 48, 0x65617409, 0 },	{ 7, 0, 48, 0x7f454c46, 0 },
	};
	unsigned char buf[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct trec r = io(1, 0, A_QUEUE, 8, 4096);

		r.magic = cases[i].magic;
		encode(buf, &r, cases[i].version, cases[i].swap);
		CHECK_INT(ra_blktrace_probe(buf, (size_t)cases[i].len), cases[i].want);
	}
	CHECK_INT(ra_blktrace_probe(NULL, 0), 0);
}

static void test_expand(void)
{
	static const char *const names[] = {
		"ex.blktrace.10", "ex.blktrace.0", "ex.blktrace.1", "ex.blktrace.x",
		"ex.blktrace.",	  "exx.blktrace.0", "ex.blktrace.2.bak", "other.blktrace.0",
	};
	static const char *const want[] = { "ex.blktrace.0", "ex.blktrace.1", "ex.blktrace.10" };
	char path[PATH_MAX], name[PATH_MAX], **paths = NULL;
	int n;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		tmp_path(path, names[i]);
		write_bytes(path, "", 0);
	}
	tmp_path(name, "ex");
	n = ra_blktrace_expand(name, &paths);
	CHECK_INT(n, 3);
	for (int i = 0; i < n && i < 3; i++) {
		tmp_path(path, want[i]);
		CHECK_STR(paths[i], path);
	}
	if (paths)
		CHECK(paths[n > 0 ? n : 0] == NULL);
	for (int i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
	tmp_path(name, "nothing");
	CHECK_INT(ra_blktrace_expand(name, &paths), -1);
	CHECK_INT(ra_last_error_kind(), RA_ERR_USAGE);
	CHECK(paths == NULL);
}

static const struct test_case cases[] = {
	{ "fixture", test_fixture },
	{ "fixture byte-swapped", test_fixture_swapped },
	{ "merge per-CPU files", test_merge },
	{ "payloads in v7/v8, both orders", test_payloads },
	{ "rwbs", test_rwbs },
	{ "notes", test_notes },
	{ "records not stored, by kind", test_skipped },
	{ "blkparse -d dump", test_dump },
	{ "truncated at every offset", test_truncated },
	{ "bad input", test_bad_input },
	{ "files that do not match", test_mixed_files },
	{ "callback stops the replay", test_callback_stops },
	{ "probe", test_probe },
	{ "expand NAME", test_expand },
	{ NULL, NULL },
};

int main(void)
{
	return test_run_in_tmpdir("blktrace", cases, tmpdir);
}
