// SPDX-License-Identifier: LGPL-2.1
/*
 * The decoder takes offsets and sizes from the event formats: the same event
 * laid out as two kernels lay it out, in both byte orders, decodes the same.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode.h"
#include "trace.h"
#include "test.h"

/* page_cache_async_ra as Linux 6.18 on x86-64 describes it */
static const char fmt_async_618[] =
	"name: page_cache_async_ra\n"
	"ID: 616\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long i_ino;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int async_size;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int ra_pages;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int mmap_miss;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:loff_t prev_pos;\toffset:56;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long req_count;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"ino=%lx\", REC->i_ino\n";

/* The same event with a 32-bit i_ino, other field order and no mmap_miss. */
static const char fmt_async_other[] =
	"name: page_cache_async_ra\n"
	"ID: 700\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t s_dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int i_ino;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long req_count;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int order;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int async_size;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int ra_pages;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:loff_t prev_pos;\toffset:48;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"ino=%x\", REC->i_ino\n";

static const char fmt_issue[] =
	"name: block_rq_issue\n"
	"ID: 900\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d\", REC->dev\n";

static void put(unsigned char *buf, int off, int size, unsigned long long v, int big)
{
	for (int i = 0; i < size; i++) {
		int shift = big ? 8 * (size - 1 - i) : 8 * i;

		buf[off + i] = (unsigned char)(v >> shift);
	}
}

static struct tep_handle *make_tep(const char *fmt, const char *sys, int big)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *te = NULL;

	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	CHECK(tep_parse_format(tep, &te, fmt, strlen(fmt), sys) == 0);
	return tep;
}

static int decode(struct tep_handle *tep, void *data, int size, struct ra_event *ev)
{
	struct ra_decoder *dec = ra_decoder_alloc(tep, ra_dyn_lookup);
	struct tep_record rec = { .ts = 1234, .cpu = 1, .data = data, .size = size };
	int ret;

	ret = ra_decode(dec, &rec, ev);
	ra_decoder_free(dec);
	return ret;
}

static void check_async(const struct ra_event *ev, int has_mmap_miss)
{
	CHECK_INT(ev->type, RA_EV_ASYNC_RA);
	CHECK_INT(ev->ts_ns, 1234);
	CHECK_INT(ev->cpu, 1);
	CHECK_INT(ev->pid, 4321);
	CHECK_INT(ev->ra.ino, 18);
	CHECK_INT(ev->ra.dev, RA_MKDEV(7, 0));
	CHECK_INT(ev->ra.index, 96);
	CHECK_INT(ev->ra.req_count, 1);
	CHECK_INT(ev->ra.size, 64);
	CHECK_INT(ev->ra.async_size, 32);
	CHECK_INT(ev->ra.ra_pages, 32);
	CHECK_INT(ev->ra.prev_pos, -1);
	CHECK_INT(!!(ev->has_mask & RA_HAS_PREV_POS), has_mmap_miss);
}

static void test_layout_618(void)
{
	for (int big = 0; big <= 1; big++) {
		struct tep_handle *tep = make_tep(fmt_async_618, "readahead", big);
		unsigned char d[72] = { 0 };
		struct ra_event ev;

		put(d, 0, 2, 616, big);
		put(d, 4, 4, 4321, big);
		put(d, 8, 8, 18, big);
		put(d, 16, 4, RA_MKDEV(7, 0), big);
		put(d, 24, 8, 96, big);
		put(d, 36, 4, 64, big);
		put(d, 40, 4, 32, big);
		put(d, 44, 4, 32, big);
		put(d, 48, 4, 3, big);
		put(d, 56, 8, (unsigned long long)-1LL, big);
		put(d, 64, 8, 1, big);
		CHECK_INT(decode(tep, d, sizeof(d), &ev), 1);
		check_async(&ev, 1);
		CHECK_INT(ev.ra.mmap_miss, 3);
		tep_free(tep);
	}
}

static void test_layout_other(void)
{
	struct tep_handle *tep = make_tep(fmt_async_other, "readahead", 0);
	unsigned char d[56] = { 0 };
	struct ra_event ev;

	put(d, 0, 2, 700, 0);
	put(d, 4, 4, 4321, 0);
	put(d, 8, 4, RA_MKDEV(7, 0), 0);
	put(d, 12, 4, 18, 0);
	put(d, 16, 8, 96, 0);
	put(d, 24, 8, 1, 0);
	put(d, 36, 4, 64, 0);
	put(d, 40, 4, 32, 0);
	put(d, 44, 4, 32, 0);
	put(d, 48, 8, (unsigned long long)-1LL, 0);
	CHECK_INT(decode(tep, d, sizeof(d), &ev), 1);
	check_async(&ev, 0);
	tep_free(tep);
}

static void test_block_strings(void)
{
	struct tep_handle *tep = make_tep(fmt_issue, "block", 0);
	unsigned char d[60] = { 0 };
	struct ra_event ev;

	put(d, 0, 2, 900, 0);
	put(d, 4, 4, 77, 0);
	put(d, 8, 4, RA_MKDEV(259, 3), 0);
	put(d, 16, 8, 123456789, 0);
	put(d, 24, 4, 256, 0);
	put(d, 28, 4, 131072, 0);
	memcpy(d + 34, "RA", 2);
	memcpy(d + 44, "0123456789abcdef", 16);	/* no NUL: must stay in bounds */
	CHECK_INT(decode(tep, d, sizeof(d), &ev), 1);
	CHECK_INT(ev.type, RA_EV_RQ_ISSUE);
	CHECK_INT(ev.blk.dev, RA_MKDEV(259, 3));
	CHECK_INT(ev.blk.sector, 123456789);
	CHECK_INT(ev.blk.nr_sector, 256);
	CHECK_INT(ev.blk.bytes, 131072);
	CHECK(ev.has_mask & RA_HAS_BYTES);
	CHECK_STR(ev.blk.rwbs, "RA");
	CHECK_STR(ev.comm, "0123456789abcde");

	/* A record shorter than its format: fields past the end stay zero. */
	CHECK_INT(decode(tep, d, 20, &ev), 1);
	CHECK_INT(ev.blk.dev, RA_MKDEV(259, 3));
	CHECK_INT(ev.blk.sector, 0);
	CHECK_STR(ev.comm, "");

	/* An event id the formats do not describe is not ours. */
	put(d, 0, 2, 901, 0);
	CHECK_INT(decode(tep, d, sizeof(d), &ev), 0);
	tep_free(tep);
}

/* block_io_start as Linux 6.18 has it: an event ratrace does not store */
static const char fmt_io_start[] =
	"name: block_io_start\n"
	"ID: 902\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d\", REC->dev\n";

static void skipped_cb(const char *system, const char *name, uint64_t n, void *arg)
{
	char *out = arg;
	size_t len = strlen(out);

	snprintf(out + len, 128 - len, "%s:%s=%llu;", system, name, (unsigned long long)n);
}

/* Records the decoder does not store are counted by type, ids without a format apart. */
static void test_skipped(void)
{
	struct tep_handle *tep = make_tep(fmt_issue, "block", 0);
	struct tep_event *te = NULL;
	struct tep_record rec = { .ts = 1, .cpu = 0, .size = 60 };
	unsigned char d[60] = { 0 };
	struct ra_decoder *dec;
	struct ra_event ev;
	char out[128] = "";
	static const int ids[] = { 902, 900, 902, 902, 903, 900 };

	CHECK(tep_parse_format(tep, &te, fmt_io_start, strlen(fmt_io_start), "block") == 0);
	dec = ra_decoder_alloc(tep, ra_dyn_lookup);
	rec.data = d;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		put(d, 0, 2, (unsigned long long)ids[i], 0);
		CHECK_INT(ra_decode(dec, &rec, &ev), ids[i] == 900);
	}
	CHECK_INT(ra_decoder_skipped(dec, skipped_cb, out), 4);
	CHECK_STR(out, "block:block_io_start=3;unknown:unknown event=1;");
	ra_decoder_free(dec);
	tep_free(tep);
}

/* task_newtask as Linux 6.18 on x86-64 describes it */
static const char fmt_newtask[] =
	"name: task_newtask\n"
	"ID: 205\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:u64 clone_flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:40;\tsize:2;\tsigned:1;\n"
	"\n"
	"print fmt: \"pid=%d\", REC->pid\n";

struct made {
	int n, parent, child;
	uint64_t flags;
};

static void on_newtask(int parent, int child, uint64_t flags, void *arg)
{
	struct made *m = arg;

	m->n++;
	m->parent = parent;
	m->child = child;
	m->flags = flags;
}

/*
 * A task made goes to the hook, in both byte orders, and is neither stored
 * nor counted skipped; without a hook it is counted skipped as before.
 */
static void test_newtask(void)
{
	for (int big = 0; big <= 1; big++) {
		struct tep_handle *tep = make_tep(fmt_newtask, "task", big);
		struct tep_record rec = { .ts = 5, .cpu = 0, .size = 48 };
		unsigned char d[48] = { 0 };
		struct made m = { 0 };
		struct ra_decoder *dec = ra_decoder_alloc(tep, ra_dyn_lookup);
		struct ra_event ev;
		char out[128] = "";

		put(d, 0, 2, 205, big);
		put(d, 4, 4, 700, big);
		put(d, 8, 4, 701, big);
		put(d, 32, 8, 0x10f00ULL, big);	/* a thread: CLONE_THREAD and its kin */
		rec.data = d;
		CHECK_INT(ra_decode(dec, &rec, &ev), 0);
		CHECK_INT(ra_decoder_skipped(dec, NULL, NULL), 1);
		ra_decoder_on_newtask(dec, on_newtask, &m);
		CHECK_INT(ra_decode(dec, &rec, &ev), 0);
		CHECK_INT(m.n, 1);
		CHECK_INT(m.parent, 700);
		CHECK_INT(m.child, 701);
		CHECK_INT(m.flags, 0x10f00);
		rec.size = 36;	/* the flags cut off: not given */
		CHECK_INT(ra_decode(dec, &rec, &ev), 0);
		CHECK_INT(m.n, 1);
		CHECK_INT(ra_decoder_skipped(dec, skipped_cb, out), 1);
		CHECK_STR(out, "task:task_newtask=1;");
		ra_decoder_free(dec);
		tep_free(tep);
	}
}

/* sys_enter_madvise as Linux 6.18 on x86-64 describes it (behavior: int in 8 bytes) */
static const char fmt_madvise[] =
	"name: sys_enter_madvise\n"
	"ID: 726\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long start;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t len_in;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int behavior;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"start: 0x%08lx\", ((unsigned long)(REC->start))\n";

/*
 * madvise(MADV_WILLNEED): the address range in pages (a partial last page
 * counts), dev and ino 0; other advice is not stored, but counted.
 */
static void test_madvise(void)
{
	static const struct {
		unsigned long long start, len, behavior;
		int stored;
		unsigned long long index, pages;
	} cases[] = {
		{ 0x7f03ce200000ULL, 32ULL << 20, 3, 1, 0x7f03ce200000ULL / 4096, 8192 },
		{ 0x7f03ce200000ULL, 4097, 3, 1, 0x7f03ce200000ULL / 4096, 2 },
		{ 0x7f03ce200000ULL, 0, 3, 1, 0x7f03ce200000ULL / 4096, 0 },
		{ 0x7f03ce200000ULL, 32ULL << 20, 0, 0, 0, 0 },		/* MADV_NORMAL */
		{ 0x7f03ce200000ULL, 32ULL << 20, 4, 0, 0, 0 },		/* MADV_DONTNEED */
	};
	struct tep_handle *tep = make_tep(fmt_madvise, "syscalls", 0);
	struct tep_record rec = { .ts = 7, .cpu = 0, .size = 40 };
	struct ra_decoder *dec = ra_decoder_alloc(tep, ra_dyn_lookup);
	unsigned char d[40] = { 0 };
	char out[128] = "";
	struct ra_event ev;

	rec.data = d;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put(d, 0, 2, 726, 0);
		put(d, 4, 4, 99, 0);
		put(d, 16, 8, cases[i].start, 0);
		put(d, 24, 8, cases[i].len, 0);
		put(d, 32, 8, cases[i].behavior, 0);
		CHECK_INT(ra_decode(dec, &rec, &ev), cases[i].stored);
		if (!cases[i].stored)
			continue;
		CHECK_INT(ev.type, RA_EV_MADVISE);
		CHECK_INT(ev.pid, 99);
		CHECK_INT(ev.ra.index, cases[i].index);
		CHECK_INT(ev.ra.req_count, cases[i].pages);
		CHECK_INT(ev.ra.dev, 0);
		CHECK_INT(ev.ra.ino, 0);
		CHECK_INT(ev.ra.size, 0);
		CHECK_INT(ev.ra.prev_pos, 0);
	}
	CHECK_INT(ra_decoder_skipped(dec, skipped_cb, out), 2);
	CHECK_STR(out, "syscalls:sys_enter_madvise=2;");
	ra_decoder_free(dec);
	tep_free(tep);
}

/* block_rq_issue once more with the id of fmt_issue, dev elsewhere and a field before the record */
static const char fmt_issue_dup[] =
	"name: block_rq_issue\n"
	"ID: 900\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t dev;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:-64;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d\", REC->dev\n";

/* a format whose id no record can carry (common_type is a u16) */
static const char fmt_issue_far[] =
	"name: block_rq_insert\n"
	"ID: 1000000\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d\", REC->dev\n";

/*
 * What a damaged trace.dat can hold: two formats of one id (the first
 * counts, nothing leaks), a field at a negative offset (absent), an id past
 * the u16 of the records (not indexed), and records shorter than the common
 * fields (not decoded, counted as unknown).
 */
static void test_damaged_formats(void)
{
	struct tep_handle *tep = make_tep(fmt_issue, "block", 0);
	struct tep_event *te = NULL;
	struct ra_decoder *dec;
	unsigned char d[60] = { 0 };
	struct tep_record rec = { .ts = 1, .cpu = 0, .data = d, .size = 60 };
	struct ra_event ev;
	char out[128] = "";

	tep_parse_format(tep, &te, fmt_issue_dup, strlen(fmt_issue_dup), "block");
	tep_parse_format(tep, &te, fmt_issue_far, strlen(fmt_issue_far), "block");
	dec = ra_decoder_alloc(tep, ra_dyn_lookup);
	CHECK(dec != NULL);
	put(d, 0, 2, 900, 0);
	put(d, 4, 4, 77, 0);
	put(d, 8, 4, RA_MKDEV(259, 3), 0);
	put(d, 12, 4, RA_MKDEV(8, 1), 0);
	put(d, 16, 8, 4242, 0);
	CHECK_INT(ra_decode(dec, &rec, &ev), 1);
	CHECK_INT(ev.pid, 77);
	CHECK_INT(ev.blk.dev, RA_MKDEV(259, 3));
	CHECK_INT(ev.blk.sector, 4242);
	CHECK_INT(ra_decoder_has(dec, RA_EV_RQ_INSERT), 0);
	for (int size = 0; size < 8; size++) {
		rec.size = size;
		CHECK_INT(ra_decode(dec, &rec, &ev), 0);
	}
	CHECK_INT(ra_decoder_skipped(dec, skipped_cb, out), 8);
	CHECK_STR(out, "unknown:unknown event=8;");
	ra_decoder_free(dec);
	tep_free(tep);
}

/* fmt_issue with its common_type where a damaged file puts it: at offset -1 (atoi) */
static const char fmt_issue_type_before[] =
	"name: block_rq_issue\n"
	"ID: 900\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:4294967295;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d\", REC->dev\n";

/*
 * libtraceevent reads every record's event id where the lowest id's format
 * says: before the record, no record is decoded (the byte before this one
 * would make it a block_rq_issue).
 */
static void test_common_before_record(void)
{
	struct tep_handle *tep = make_tep(fmt_issue_type_before, "block", 0);
	unsigned char buf[1 + 16] = { 0x84, 0x03 };	/* 900, little-endian, from buf[0] */
	struct tep_record rec = { .ts = 1, .cpu = 0, .data = buf + 1, .size = 16 };
	struct ra_decoder *dec = ra_decoder_alloc(tep, ra_dyn_lookup);
	struct ra_event ev;

	CHECK(dec != NULL);
	CHECK_INT(ra_decode(dec, &rec, &ev), 0);
	CHECK_INT(ra_decoder_skipped(dec, NULL, NULL), 1);
	ra_decoder_free(dec);
	tep_free(tep);
}

static void test_names(void)
{
	static const char *const tables[] = { NULL, "readahead", "filemap", "block" };

	for (int t = -1; t <= RA_EV_MAX + 1; t++) {
		int cls = ra_event_class(t);

		/* a named type has the class of its system (the syscalls' entries: ra_events) */
		CHECK_INT(cls != RA_CLASS_NONE, t > 0 && t < RA_EV_MAX && ra_event_name(t) != NULL);
		if (cls == RA_CLASS_NONE)
			continue;
		CHECK_INT(ra_event_lookup(ra_event_system(t), ra_event_name(t)), t);
		if (strcmp(ra_event_system(t), "syscalls"))
			CHECK_STR(ra_event_system(t), tables[cls]);
		else
			CHECK_INT(cls, RA_CLASS_RA);
	}
	CHECK_INT(ra_event_lookup("block", "page_cache_sync_ra"), RA_EV_NONE);
	CHECK_INT(ra_event_lookup("sched", "sched_switch"), RA_EV_NONE);
	CHECK_STR(ra_event_name(RA_EV_SYNC_RA), "page_cache_sync_ra");
	CHECK(ra_event_name(0) == NULL && ra_event_name(RA_EV_MAX) == NULL);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "layout of Linux 6.18, both byte orders", test_layout_618 },
		{ "another layout of the same event", test_layout_other },
		{ "block strings and short records", test_block_strings },
		{ "records not stored are counted", test_skipped },
		{ "tasks made go to their hook", test_newtask },
		{ "madvise(MADV_WILLNEED) in pages", test_madvise },
		{ "event names", test_names },
		{ "damaged formats and records", test_damaged_formats },
		{ "common fields before the record", test_common_before_record },
		{ NULL, NULL },
	};

	return test_run("test_decode", cases);
}
