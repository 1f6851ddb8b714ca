// SPDX-License-Identifier: LGPL-2.1
/*
 * The structural check of trace.dat files: the real fixtures pass (and their
 * version 6 and uncompressed version 7 conversions when trace-cmd is
 * installed), every truncated copy fails naming the file and an offset,
 * small files written here in both byte orders pass, and each kind of damage
 * fails with its message.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "import.h"
#include "test.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char tmpdir[64];
static const char *const fixtures[] = {
	"seq128.dat", "mmapread.dat", "par4thrash.dat", "sched-only.trace.dat",
};
/* conversions by trace-cmd, "" when it is not installed */
static char conv_v6[PATH_MAX], conv_none[PATH_MAX];
static long long truncations;

static void fixture_path(char *path, const char *name)
{
	const char *dir = getenv("RA_FIXTURES");

	snprintf(path, PATH_MAX, "%s/%s", dir ? dir : "tests/fixtures", name);
}

static void tmp_path(char *path, const char *name)
{
	snprintf(path, PATH_MAX, "%s/%s", tmpdir, name);
}

/* ---- files in memory ---- */

struct image {
	unsigned char *p;
	size_t len, cap;
	bool big;
	/* where things are, for the damage (0: not in this file) */
	size_t opts_field;	/* header: offset of the first options section */
	size_t first_sec;	/* the first section after the header */
	size_t opts1;		/* the first options section, its first option */
	size_t opt1;
	size_t opts_last;	/* the last options section, the data of its DONE option */
	size_t done_last;
	size_t hinfo_data;	/* data of the HEADER_INFO option */
	size_t buf_sec;		/* the flyrecord buffer section */
	size_t cpus_field;	/* cpu count of the BUFFER option, cpu 0's offset and size */
	size_t cpu0_off;
	size_t cpu0_size;
	size_t strings_sec;
	/* version 6 */
	size_t ftrace_count, kallsyms_size, fly, inst_field, cpucount_data, page_size;
	size_t uname_data, clock_data;	/* a string option's data */
};

static void img_put(struct image *im, const void *data, size_t n)
{
	if (im->len + n > im->cap) {
		im->cap = (im->len + n) * 2 + 4096;
		im->p = realloc(im->p, im->cap);
		if (!im->p)
			abort();
	}
	memcpy(im->p + im->len, data, n);
	im->len += n;
}

static void img_set(struct image *im, size_t at, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		im->p[at + (size_t)(im->big ? n - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

static uint64_t img_get(const struct image *im, size_t at, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)im->p[at + (size_t)(im->big ? n - 1 - i : i)] << (8 * i);
	return v;
}

static void img_num(struct image *im, uint64_t v, int n)
{
	unsigned char z[8] = { 0 };

	img_put(im, z, (size_t)n);
	img_set(im, im->len - (size_t)n, v, n);
}

static void img_str(struct image *im, const char *s)
{
	img_put(im, s, strlen(s) + 1);
}

static void img_fill(struct image *im, int byte, size_t n)
{
	while (n--) {
		unsigned char b = (unsigned char)byte;

		img_put(im, &b, 1);
	}
}

static void img_align(struct image *im, size_t align)
{
	img_fill(im, 0, (align - im->len % align) % align);
}

/* header_page as Linux writes it on 64-bit machines: an 8-byte commit */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static void img_header_page(struct image *im)
{
	img_str(im, "header_page");
	img_num(im, sizeof(header_page) - 1, 8);
	img_put(im, header_page, sizeof(header_page) - 1);
}

/*
 * A 4096-byte ring-buffer sub-buffer as header_page describes it: a time
 * stamp, the 8-byte commit, one event of 8 bytes of data (type_len 2) with
 * event id @id, zeros after.
 */
static void img_page(struct image *im, int id)
{
	size_t start = im->len;

	img_num(im, 1000, 8);
	img_num(im, 12, 8);
	img_num(im, 2, 4);
	img_num(im, (uint64_t)id, 2);
	img_fill(im, 0, 6);
	img_fill(im, 0, 4096 - (im->len - start));
}

static void img_header(struct image *im, const char *version, int long_size)
{
	static const unsigned char magic[] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g',
	};

	img_put(im, magic, sizeof(magic));
	img_str(im, version);
	img_num(im, im->big, 1);
	img_num(im, (uint64_t)long_size, 1);
	im->page_size = im->len;
	img_num(im, 4096, 4);
}

/* A version 7 section header; returns where its size goes (see sec_end()). */
static size_t sec_begin(struct image *im, int id, int flags, uint32_t desc)
{
	img_num(im, (uint64_t)id, 2);
	img_num(im, (uint64_t)flags, 2);
	img_num(im, desc, 4);
	img_num(im, 0, 8);
	return im->len - 8;
}

static void sec_end(struct image *im, size_t size_field)
{
	img_set(im, size_field, im->len - size_field - 8, 8);
}

static size_t opt_begin(struct image *im, int id)
{
	img_num(im, (uint64_t)id, 2);
	img_num(im, 0, 4);
	return im->len;
}

static void opt_end(struct image *im, size_t data)
{
	img_set(im, data - 4, im->len - data, 4);
}

static const char descs[] = "header info\0flyrecord\0options\0options\0strings";
enum { D_HINFO = 0, D_FLY = 12, D_OPTS1 = 22, D_OPTS2 = 30, D_STRINGS = 38 };

/*
 * Version 7, no compression: header info, a flyrecord buffer of two CPUs
 * (one empty), two options sections chained by DONE, strings.
 */
static void build_v7(struct image *im, bool big, int long_size)
{
	size_t sz, data, cpu0_off;

	memset(im, 0, sizeof(*im));
	im->big = big;
	img_header(im, "7", long_size);
	img_str(im, "none");
	img_str(im, "");
	im->opts_field = im->len;
	img_num(im, 0, 8);

	im->first_sec = im->len;
	sz = sec_begin(im, 16, 0, D_HINFO);
	img_header_page(im);
	img_str(im, "header_event");
	img_num(im, 4, 8);
	img_put(im, "efgh", 4);
	sec_end(im, sz);

	im->buf_sec = im->len;
	sz = sec_begin(im, 3, 0, D_FLY);
	img_align(im, 4096);
	cpu0_off = im->len;
	img_page(im, 11);
	sec_end(im, sz);

	im->opts1 = im->len;
	img_set(im, im->opts_field, im->opts1, 8);
	sz = sec_begin(im, 0, 0, D_OPTS1);
	im->opt1 = im->len;
	im->hinfo_data = data = opt_begin(im, 16);
	img_num(im, im->first_sec, 8);
	opt_end(im, data);
	data = opt_begin(im, 3);
	img_num(im, im->buf_sec, 8);
	img_str(im, "");
	img_str(im, "local");
	img_num(im, 4096, 4);
	im->cpus_field = im->len;
	img_num(im, 2, 4);
	img_num(im, 0, 4);
	im->cpu0_off = im->len;
	img_num(im, cpu0_off, 8);
	im->cpu0_size = im->len;
	img_num(im, 4096, 8);
	img_num(im, 1, 4);
	img_num(im, 0, 8);
	img_num(im, 0, 8);
	opt_end(im, data);
	data = opt_begin(im, 8);
	img_num(im, 2, 4);
	opt_end(im, data);
	data = opt_begin(im, 0);
	img_num(im, 0, 8);	/* the next section, below */
	opt_end(im, data);
	sec_end(im, sz);

	im->opts_last = im->len;
	img_set(im, data, im->opts_last, 8);
	sz = sec_begin(im, 0, 0, D_OPTS2);
	im->uname_data = data = opt_begin(im, 5);
	img_str(im, "Linux test 6.18 x86_64");
	opt_end(im, data);
	im->done_last = data = opt_begin(im, 0);
	img_num(im, 0, 8);
	opt_end(im, data);
	sec_end(im, sz);

	im->strings_sec = im->len;
	sz = sec_begin(im, 15, 0, D_STRINGS);
	img_put(im, descs, sizeof(descs));
	sec_end(im, sz);
}

static void v6_option(struct image *im, int id, const void *data, size_t n)
{
	img_num(im, (uint64_t)id, 2);
	img_num(im, n, 4);
	img_put(im, data, n);
}

/*
 * Version 6: every header block, options (trace clock, a buffer instance,
 * CPUCOUNT), flyrecord or latency data of the top buffer, the instance's
 * flyrecord data.
 */
static void build_v6(struct image *im, bool big, bool latency)
{
	size_t cpu0, inst, icpu0;

	memset(im, 0, sizeof(*im));
	im->big = big;
	img_header(im, "6", 8);
	img_header_page(im);
	img_str(im, "header_event");
	img_num(im, 4, 8);
	img_put(im, "efgh", 4);
	im->ftrace_count = im->len;
	img_num(im, 2, 4);
	img_num(im, 5, 8);
	img_put(im, "fmt1\n", 5);
	img_num(im, 5, 8);
	img_put(im, "fmt2\n", 5);
	img_num(im, 2, 4);
	img_str(im, "sys1");
	img_num(im, 1, 4);
	img_num(im, 4, 8);
	img_put(im, "evt1", 4);
	img_str(im, "sys2");
	img_num(im, 0, 4);
	im->kallsyms_size = im->len;
	img_num(im, 9, 4);
	img_put(im, "ffff t x\n", 9);
	img_num(im, 0, 4);
	img_num(im, 8, 8);
	img_put(im, "12 init\n", 8);
	img_num(im, 2, 4);

	img_put(im, "options  ", 10);
	im->clock_data = im->len + 6;
	v6_option(im, 4, "[local]", 8);
	img_num(im, 3, 2);
	img_num(im, 13, 4);
	im->inst_field = im->len;
	img_num(im, 0, 8);
	img_str(im, "inst");
	img_num(im, 8, 2);
	img_num(im, 4, 4);
	im->cpucount_data = im->len;
	img_num(im, 2, 4);
	img_num(im, 0, 2);

	im->fly = im->len;
	if (latency) {
		img_put(im, "latency  ", 10);
		img_put(im, "# tracer: nop\n", 14);
		img_set(im, im->inst_field, im->fly, 8);	/* the instance: the same text */
		return;
	}
	img_put(im, "flyrecord", 10);
	im->cpu0_off = cpu0 = im->len;
	img_num(im, 0, 8);
	im->cpu0_size = im->len;
	img_num(im, 4096, 8);
	img_num(im, 0, 8);
	img_num(im, 0, 8);
	img_num(im, 7, 8);
	img_put(im, "[local]", 7);
	img_align(im, 4096);
	img_set(im, cpu0, im->len, 8);
	img_page(im, 12);

	inst = im->len;
	img_set(im, im->inst_field, inst, 8);
	img_put(im, "flyrecord", 10);
	icpu0 = im->len;
	img_num(im, 0, 8);
	img_num(im, 4096, 8);
	img_num(im, 0, 8);
	img_num(im, 0, 8);
	img_num(im, 7, 8);
	img_put(im, "[local]", 7);
	img_align(im, 4096);
	img_set(im, icpu0, im->len, 8);
	img_page(im, 13);
}

static int load_file(struct image *im, const char *path)
{
	FILE *f = fopen(path, "rb");
	long size;
	size_t n;

	memset(im, 0, sizeof(*im));
	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return -1;
	}
	im->p = malloc((size_t)size + 1);
	n = im->p ? fread(im->p, 1, (size_t)size, f) : 0;
	fclose(f);
	im->len = im->cap = n;
	return im->p && n == (size_t)size ? 0 : -1;
}

/* Where the BUFFER option with data [@p, @end) has its cpu count and cpu 0. */
static void find_cpu0(struct image *im, size_t p, size_t end)
{
	p += 8;
	p += strnlen((char *)im->p + p, end - p) + 1;	/* instance */
	p += strnlen((char *)im->p + p, end - p) + 1;	/* clock */
	p += 4;						/* page size */
	if (p + 4 + 20 > end)
		return;
	im->cpus_field = p;
	im->cpu0_off = p + 4 + 4;
	im->cpu0_size = p + 4 + 12;
}

/* A real version 7 file, little-endian: where the damage goes. */
static int load_v7(struct image *im, const char *path)
{
	size_t pos, sec;

	if (load_file(im, path) < 0 || im->len < 64 || im->p[10] != '7' || im->p[12] != 0)
		return -1;
	pos = 18;	/* magic, "7", endian, long size, page size */
	pos += strnlen((char *)im->p + pos, 64) + 1;
	pos += strnlen((char *)im->p + pos, 64) + 1;
	im->opts_field = pos;
	im->first_sec = pos + 8;
	im->opts1 = sec = img_get(im, pos, 8);
	im->opt1 = sec + 16;
	for (int guard = 0; sec && sec + 16 < im->len && guard < 64; guard++) {
		size_t end = sec + 16 + img_get(im, sec + 8, 8), o = sec + 16;

		if (end > im->len)
			return -1;
		while (o + 6 <= end && img_get(im, o, 2) != 0) {
			if (img_get(im, o, 2) == 3)
				find_cpu0(im, o + 6, o + 6 + img_get(im, o + 2, 4));
			o += 6 + img_get(im, o + 2, 4);
		}
		if (o + 14 > end)
			return -1;
		im->opts_last = sec;
		im->done_last = o + 6;
		sec = img_get(im, o + 6, 8);
	}
	return 0;
}

static int img_write(const struct image *im, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, im->p, im->len);
	close(fd);
	return n == (ssize_t)im->len ? 0 : -1;
}

static void img_free(struct image *im)
{
	free(im->p);
	im->p = NULL;
}

/* ---- checks ---- */

static int check_passes(const char *path)
{
	int ret = ra_tracedat_check(path);

	if (ret < 0)
		fprintf(stderr, "  %s: %s\n", path, ra_last_error());
	return ret;
}

/* Whether @path fails with an error of RA_ERR_DATA naming it, an offset and @want. */
static bool fails_with(const char *path, const char *want)
{
	char prefix[PATH_MAX + 16];
	const char *msg;

	snprintf(prefix, sizeof(prefix), "'%s': offset ", path);
	if (ra_tracedat_check(path) != -1) {
		fprintf(stderr, "  %s: passed, expected \"%s\"\n", path, want ? want : "an error");
		return false;
	}
	msg = ra_last_error();
	if (ra_last_error_kind() != RA_ERR_DATA || strncmp(msg, prefix, strlen(prefix)) != 0 ||
	    (want && !strstr(msg, want))) {
		fprintf(stderr, "  %s: \"%s\", expected \"%s\"\n", path, msg, want ? want : "");
		return false;
	}
	return true;
}

/* Copies of @src cut at every 4096th byte, each of the first 600 and last 200 bytes fail. */
static void check_truncations(const char *src)
{
	struct image im = { 0 };
	char path[PATH_MAX];
	int fd, bad = 0, n = 0;

	if (load_file(&im, src) < 0) {
		fprintf(stderr, "  cannot read %s\n", src);
		CHECK(!"fixture readable");
		img_free(&im);
		return;
	}
	tmp_path(path, "truncated.dat");
	if (img_write(&im, path) < 0 || (fd = open(path, O_WRONLY)) < 0) {
		CHECK(!"temporary copy written");
		img_free(&im);
		return;
	}
	for (size_t off = im.len; off-- > 0;) {
		if (off % 4096 != 0 && off >= 600 && off + 200 < im.len)
			continue;
		if (ftruncate(fd, (off_t)off) != 0) {
			bad++;
			break;
		}
		n++;
		if (!fails_with(path, NULL) && bad++ < 5)
			fprintf(stderr, "  (%s cut to %zu bytes)\n", src, off);
	}
	close(fd);
	unlink(path);
	img_free(&im);
	CHECK_INT(bad, 0);
	truncations += n;
}

static void test_fixtures(void)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		struct ra_td_layout lay;
		uint64_t rest = 0;

		fixture_path(path, fixtures[i]);
		CHECK_INT(check_passes(path), 0);
		/* the chunks left to a reader of the layout pass when it asks */
		CHECK_INT(ra_tracedat_layout(path, &lay), 0);
		for (int r = 0; r < lay.n; r++)
			rest += lay.r[r].nrest;
		CHECK(rest > 0 || lay.algo == RA_TD_NONE);
		CHECK_INT(ra_td_check_rest(path, &lay), 0);
		for (int r = 0; r < lay.n; r++)
			CHECK_INT((int)lay.r[r].nrest, 0);
		ra_td_layout_free(&lay);
	}
}

/* trace-cmd convert: the first fixture as version 6 and as uncompressed version 7. */
static void test_conversions(void)
{
	static const struct {
		const char *args, *name;
		char *out;
	} conv[] = {
		{ "--file-version 6", "v6.dat", conv_v6 },
		{ "--compression none", "none.dat", conv_none },
	};
	char src[PATH_MAX], path[PATH_MAX], cmd[3 * PATH_MAX];

	if (system("command -v trace-cmd >/dev/null 2>&1") != 0)
		return;	/* not installed: nothing to convert with */
	fixture_path(src, fixtures[0]);
	for (size_t i = 0; i < ARRAY_SIZE(conv); i++) {
		tmp_path(path, conv[i].name);
		/* trace-cmd mounts tracefs when it is not mounted: as root, let it do so
		 * in a private mount namespace that goes away with it */
		snprintf(cmd, sizeof(cmd), "%strace-cmd convert %s -i '%s' -o '%s' >/dev/null 2>&1",
			 geteuid() == 0 ? "unshare -m " : "", conv[i].args, src, path);
		if (system(cmd) != 0) {
			printf("note: '%s' failed, not checked\n", cmd);
			continue;
		}
		CHECK_INT(check_passes(path), 0);
		snprintf(conv[i].out, PATH_MAX, "%s", path);
	}
}

static const struct {
	const char *name;
	bool big, v6, latency;
	int long_size;
} synthetic[] = {
	{ "v7-le.dat", false, false, false, 8 }, { "v7-be.dat", true, false, false, 8 },
	{ "v7-le32.dat", false, false, false, 4 }, { "v7-be32.dat", true, false, false, 4 },
	{ "v6-le.dat", false, true, false, 8 },	 { "v6-be.dat", true, true, false, 8 },
	{ "v6-lat-le.dat", false, true, true, 8 }, { "v6-lat-be.dat", true, true, true, 8 },
};

static void build_synthetic(struct image *im, size_t i)
{
	if (synthetic[i].v6)
		build_v6(im, synthetic[i].big, synthetic[i].latency);
	else
		build_v7(im, synthetic[i].big, synthetic[i].long_size);
}

static void test_synthetic(void)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(synthetic); i++) {
		struct image im;

		build_synthetic(&im, i);
		tmp_path(path, synthetic[i].name);
		CHECK_INT(img_write(&im, path), 0);
		/* latency text is sound, and said apart: libtracecmd cannot iterate it */
		CHECK_INT(check_passes(path), synthetic[i].latency ? 1 : 0);
		img_free(&im);
	}
}

static void test_truncated(void)
{
	char path[PATH_MAX];

	truncations = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		fixture_path(path, fixtures[i]);
		check_truncations(path);
	}
	if (conv_v6[0])
		check_truncations(conv_v6);
	if (conv_none[0])
		check_truncations(conv_none);
	/* latency data is text to the end of the file: cuts in it cannot be seen */
	for (size_t i = 0; i < ARRAY_SIZE(synthetic); i++) {
		if (synthetic[i].latency)
			continue;
		tmp_path(path, synthetic[i].name);
		check_truncations(path);
	}
	printf("truncated copies checked: %lld\n", truncations);
}

/* ---- damage ---- */

enum damage {
	BAD_MAGIC,
	BAD_VERSION,
	BAD_ENDIAN,
	BAD_LONG,
	BAD_PAGE,
	OPTS_PAST_END,
	OPTS_ZERO,
	SECTION_HUGE,
	OPTION_PAST_SECTION,
	DONE_CYCLE,
	DONE_MID_SECTION,
	DONE_SHORT,
	NO_DONE,
	WRONG_TARGET,
	OPTS_NOT_OPTIONS,
	CPU_DATA_PAST_END,
	CPU_DATA_UNALIGNED,
	CPU_COUNT_HUGE,
	CHUNK_COUNT_HUGE,
	CHUNK_PAST_DATA,
	COMPRESSED_NO_ALGO,
	DESC_PAST_STRINGS,
	STRINGS_SIZE_HUGE,
	PAGE_COMMIT_PAST,
	PAGE_EVENT_PAST,
	PAGE_PADDING_BACK,
	PAGE_LOST_PAST,
	PAGE_SHORT_EVENT,
	CPU_NOT_PAGES,
	BUF_PAGE_SIZE,
	UNAME_NO_NUL,
	HOOK_OPTION,
	HEADER_PAGE_PAST,
	HEADER_PAGE_TEXT,
};

enum { BOTH, SYNTHETIC, REAL };	/* which files the damage applies to */

static const struct {
	enum damage what;
	const char *name;
	int files;
	const char *want;
} damages[] = {
	{ BAD_MAGIC, "bad magic", BOTH, "offset 0: bad magic" },
	{ BAD_VERSION, "unknown version", BOTH, "offset 10: unsupported file version '8'" },
	{ BAD_ENDIAN, "endian byte 7", BOTH, "offset 12: endian byte 7" },
	{ BAD_LONG, "long size 3", BOTH, "offset 13: long size 3, expected 4 or 8" },
	{ BAD_PAGE, "page size 3000", BOTH, "offset 14: page size 3000 is not a power of two" },
	{ OPTS_PAST_END, "options offset past the end", BOTH,
	  "the header's options offset points to offset" },
	{ OPTS_ZERO, "options offset 0", BOTH, "the header's options offset is 0" },
	{ SECTION_HUGE, "section size 2^63", BOTH,
	  "section of 9223372036854775808 bytes runs past the end of the file" },
	{ OPTION_PAST_SECTION, "option size past its section", BOTH,
	  "option of 2147483647 bytes runs past the end of its options section" },
	{ DONE_CYCLE, "DONE points at its own section", BOTH,
	  "DONE option points back to the options section at offset" },
	{ DONE_MID_SECTION, "DONE points inside a section", BOTH,
	  "which is not the start of a section" },
	{ DONE_SHORT, "DONE option of 4 bytes", BOTH, "DONE option of 4 bytes, expected 8" },
	{ NO_DONE, "options section without DONE", SYNTHETIC, "ends without a DONE option" },
	{ WRONG_TARGET, "HEADER_INFO points at the buffer", SYNTHETIC,
	  "HEADER_INFO option points to a 'flyrecord buffer' section at offset" },
	{ OPTS_NOT_OPTIONS, "options section with another id", BOTH,
	  "points to a 'id 99' section at offset" },
	{ CPU_DATA_PAST_END, "cpu data past the end", BOTH,
	  "cpu 0 data of buffer '' (4294967296 bytes at offset" },
	{ CPU_DATA_UNALIGNED, "cpu data off the page size", BOTH,
	  "is not aligned to the page size (4096)" },
	{ CPU_COUNT_HUGE, "cpu count past its option", BOTH,
	  "BUFFER option lists 1000 cpus but has room for 2" },
	{ CHUNK_COUNT_HUGE, "compressed chunk count huge", REAL,
	  "cpu 0 data of buffer '': 4294967295 compressed chunks cannot fit" },
	{ CHUNK_PAST_DATA, "compressed chunk past the data", REAL,
	  "cpu 0 data of buffer '': chunk 0 of 2147483647 bytes runs past the end of the data" },
	{ COMPRESSED_NO_ALGO, "compressed without an algorithm", SYNTHETIC,
	  "header info section is compressed but the file names no compression" },
	{ DESC_PAST_STRINGS, "description past the strings", SYNTHETIC,
	  "header info section names description string 4096, past the 46 bytes" },
	{ STRINGS_SIZE_HUGE, "strings section past the end", SYNTHETIC,
	  "strings section of 4096 bytes runs past the end of the file" },
	{ PAGE_COMMIT_PAST, "sub-buffer commit past the page", SYNTHETIC,
	  "cpu 0 data of buffer '': sub-buffer commit of 5000 bytes runs past its 4080 bytes" },
	{ PAGE_EVENT_PAST, "event past the commit", SYNTHETIC,
	  "cpu 0 data of buffer '': event of 12 bytes runs past the committed data" },
	{ PAGE_PADDING_BACK, "padding with a negative length", SYNTHETIC,
	  "cpu 0 data of buffer '': padding length 4294967292 goes backwards" },
	{ PAGE_LOST_PAST, "lost-event count past the page", SYNTHETIC,
	  "the lost-event count after 4080 committed bytes runs past the sub-buffer" },
	{ PAGE_SHORT_EVENT, "event length below its own word", SYNTHETIC,
	  "event length 2, less than its own 4 bytes" },
	{ CPU_NOT_PAGES, "cpu data not whole pages", SYNTHETIC,
	  "cpu 0 data of buffer '' of 4000 bytes is not a whole number of 4096-byte pages" },
	{ BUF_PAGE_SIZE, "buffer page size 0", BOTH,
	  "BUFFER option's page size 0 is not a power of two" },
	{ UNAME_NO_NUL, "UNAME without its NUL", SYNTHETIC,
	  "UNAME option of 23 bytes is not NUL-terminated" },
	{ HOOK_OPTION, "a HOOK option", SYNTHETIC,
	  "HOOK option: trace-cmd hooks (record -H) are not supported" },
	{ HEADER_PAGE_PAST, "header_page past its section", SYNTHETIC,
	  "header_page of 100000 bytes runs past the end of its header info section" },
	{ HEADER_PAGE_TEXT, "header_page without its timestamp", SYNTHETIC,
	  "header_page does not begin with the 8-byte timestamp field" },
};

/* Damage to what the sections hold: sub-buffers, options, header_page. */
static void apply_content(struct image *im, enum damage what)
{
	size_t page = im->cpu0_off ? (size_t)img_get(im, im->cpu0_off, 8) : 0;
	size_t hpage = im->first_sec + 16 + 12;	/* header_page's size in the header info */

	switch (what) {
	case PAGE_COMMIT_PAST:
		img_set(im, page + 8, 5000, 8);
		break;
	case PAGE_EVENT_PAST:
		img_set(im, page + 16, 3, 4);
		break;
	case PAGE_PADDING_BACK:
		img_set(im, page + 16, 29, 4);
		img_set(im, page + 20, 0xfffffffc, 4);
		break;
	case PAGE_LOST_PAST:
		img_set(im, page + 8, 4080 | (1u << 30), 8);
		break;
	case PAGE_SHORT_EVENT:
		img_set(im, page + 16, 0, 4);
		img_set(im, page + 20, 2, 4);
		break;
	case CPU_NOT_PAGES:
		img_set(im, im->cpu0_size, 4000, 8);
		break;
	case BUF_PAGE_SIZE:
		img_set(im, im->cpus_field - 4, 0, 4);
		break;
	case UNAME_NO_NUL:
		im->p[im->uname_data + img_get(im, im->uname_data - 4, 4) - 1] = 'x';
		break;
	case HOOK_OPTION:
		img_set(im, im->uname_data - 6, 6, 2);
		break;
	case HEADER_PAGE_PAST:
		img_set(im, hpage, 100000, 8);
		break;
	case HEADER_PAGE_TEXT:
		im->p[hpage + 8 + 12] = 'T';
		break;
	default:
		break;
	}
}

static void apply(struct image *im, enum damage what)
{
	switch (what) {
	case BAD_MAGIC:
		im->p[1] = 0x09;
		break;
	case BAD_VERSION:
		im->p[10] = '8';
		break;
	case BAD_ENDIAN:
		im->p[12] = 7;
		break;
	case BAD_LONG:
		im->p[13] = 3;
		break;
	case BAD_PAGE:
		img_set(im, 14, 3000, 4);
		break;
	case OPTS_PAST_END:
		img_set(im, im->opts_field, im->len + 100, 8);
		break;
	case OPTS_ZERO:
		img_set(im, im->opts_field, 0, 8);
		break;
	case SECTION_HUGE:
		img_set(im, im->first_sec + 8, 1ULL << 63, 8);
		break;
	case OPTION_PAST_SECTION:
		img_set(im, im->opt1 + 2, 0x7fffffff, 4);
		break;
	case DONE_CYCLE:
		img_set(im, im->done_last, im->opts_last, 8);
		break;
	case DONE_MID_SECTION:
		img_set(im, im->done_last, im->first_sec + 1, 8);
		break;
	case DONE_SHORT:
		img_set(im, im->done_last - 4, 4, 4);
		break;
	case NO_DONE:
		img_set(im, im->done_last - 6, 5, 2);	/* DONE becomes UNAME */
		break;
	case WRONG_TARGET:
		img_set(im, im->hinfo_data, im->buf_sec, 8);
		break;
	case OPTS_NOT_OPTIONS:
		img_set(im, im->opts1, 99, 2);
		break;
	case CPU_DATA_PAST_END:
		img_set(im, im->cpu0_size, 1ULL << 32, 8);
		break;
	case CPU_DATA_UNALIGNED:
		img_set(im, im->cpu0_off, img_get(im, im->cpu0_off, 8) + 32, 8);
		break;
	case CPU_COUNT_HUGE:
		img_set(im, im->cpus_field, 1000, 4);
		break;
	case CHUNK_COUNT_HUGE:
		img_set(im, img_get(im, im->cpu0_off, 8), 0xffffffff, 4);
		break;
	case CHUNK_PAST_DATA:
		img_set(im, img_get(im, im->cpu0_off, 8) + 4, 0x7fffffff, 4);
		break;
	case COMPRESSED_NO_ALGO:
		img_set(im, im->first_sec + 2, 1, 2);
		break;
	case DESC_PAST_STRINGS:
		img_set(im, im->first_sec + 4, 4096, 4);
		break;
	case STRINGS_SIZE_HUGE:
		img_set(im, im->strings_sec + 8, 4096, 8);
		break;
	default:
		apply_content(im, what);
		break;
	}
}

static void check_damage(const struct image *orig, const char *label, bool synthetic_file)
{
	char path[PATH_MAX];

	tmp_path(path, "damaged.dat");
	for (size_t i = 0; i < ARRAY_SIZE(damages); i++) {
		struct image im = *orig;
		bool ok;

		if ((damages[i].files == SYNTHETIC && !synthetic_file) ||
		    (damages[i].files == REAL && synthetic_file))
			continue;
		im.p = malloc(orig->len);
		if (!im.p)
			abort();
		memcpy(im.p, orig->p, orig->len);
		apply(&im, damages[i].what);
		CHECK_INT(img_write(&im, path), 0);
		ok = fails_with(path, damages[i].want);
		if (!ok)
			fprintf(stderr, "  damage \"%s\" of %s\n", damages[i].name, label);
		CHECK(ok);
		img_free(&im);
	}
	unlink(path);
}

static void test_damage_v7(void)
{
	struct image im;
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(synthetic); i++) {
		if (synthetic[i].v6)
			continue;
		build_synthetic(&im, i);
		check_damage(&im, synthetic[i].name, true);
		img_free(&im);
	}
	fixture_path(path, fixtures[0]);
	if (load_v7(&im, path) < 0) {
		CHECK(!"first fixture is a little-endian version 7 file");
	} else {
		CHECK(im.opts_last > im.opts1);	/* two options sections */
		CHECK(im.cpu0_off != 0);	/* and a BUFFER option */
		check_damage(&im, fixtures[0], false);
	}
	img_free(&im);
}

enum damage6 {
	HEADER_PAGE_NAME,
	FTRACE_COUNT_HUGE,
	KALLSYMS_HUGE,
	NOT_FLYRECORD,
	V6_CPU_DATA_PAST_END,
	V6_CPU_UNALIGNED,
	V6_CPUCOUNT_HUGE,
	INSTANCE_PAST_END,
	INSTANCE_GARBAGE,
	V6_CLOCK_NO_NUL,
	V6_PAGE_COMMIT,
};

static const struct {
	enum damage6 what;
	const char *name;
	bool flyrecord_only;
	const char *want;
} damages6[] = {
	{ HEADER_PAGE_NAME, "header_page misspelt", false, "offset 18: expected \"header_page\"" },
	{ FTRACE_COUNT_HUGE, "ftrace count huge", false,
	  "ftrace event format count 4294967295 cannot fit in the" },
	{ KALLSYMS_HUGE, "kallsyms size huge", false,
	  "kallsyms of 4294967295 bytes runs past the end of the file" },
	{ NOT_FLYRECORD, "no flyrecord marker", false,
	  "expected \"flyrecord\" or \"latency\", found \"flyrekord\"" },
	{ V6_CPU_DATA_PAST_END, "cpu data past the end", true,
	  "cpu 0 data (4294967296 bytes at offset" },
	{ V6_CPU_UNALIGNED, "cpu data off the page size", true,
	  "cpu 0 data at offset 4104 is not aligned to the page size (4096)" },
	{ V6_CPUCOUNT_HUGE, "CPUCOUNT option huge", true, "offsets and sizes of 100000 cpus" },
	{ INSTANCE_PAST_END, "instance offset past the end", false,
	  "BUFFER option points to offset 1099511627776, past the end" },
	{ INSTANCE_GARBAGE, "instance offset inside the header", false,
	  "expected \"flyrecord\" or \"latency\", found" },
	{ V6_CLOCK_NO_NUL, "TRACECLOCK without its NUL", false,
	  "TRACECLOCK option of 8 bytes is not NUL-terminated" },
	{ V6_PAGE_COMMIT, "sub-buffer commit past the page", true,
	  "cpu 0 data: sub-buffer commit of 5000 bytes runs past its 4080 bytes" },
};

static void apply6(struct image *im, enum damage6 what)
{
	switch (what) {
	case HEADER_PAGE_NAME:
		im->p[18] = 'H';
		break;
	case FTRACE_COUNT_HUGE:
		img_set(im, im->ftrace_count, 0xffffffff, 4);
		break;
	case KALLSYMS_HUGE:
		img_set(im, im->kallsyms_size, 0xffffffff, 4);
		break;
	case NOT_FLYRECORD:
		memcpy(im->p + im->fly, "flyrekord", 9);
		break;
	case V6_CPU_DATA_PAST_END:
		img_set(im, im->cpu0_size, 1ULL << 32, 8);
		break;
	case V6_CPU_UNALIGNED:
		img_set(im, im->cpu0_off, img_get(im, im->cpu0_off, 8) + 8, 8);
		break;
	case V6_CPUCOUNT_HUGE:
		img_set(im, im->cpucount_data, 100000, 4);
		break;
	case INSTANCE_PAST_END:
		img_set(im, im->inst_field, 1ULL << 40, 8);
		break;
	case INSTANCE_GARBAGE:
		img_set(im, im->inst_field, 40, 8);
		break;
	case V6_CLOCK_NO_NUL:
		im->p[im->clock_data + 7] = 'x';
		break;
	case V6_PAGE_COMMIT:
		img_set(im, (size_t)img_get(im, im->cpu0_off, 8) + 8, 5000, 8);
		break;
	}
}

static void test_damage_v6(void)
{
	char path[PATH_MAX];

	tmp_path(path, "damaged6.dat");
	for (size_t s = 0; s < ARRAY_SIZE(synthetic); s++) {
		if (!synthetic[s].v6)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(damages6); i++) {
			struct image im;
			bool ok;

			if (damages6[i].flyrecord_only && synthetic[s].latency)
				continue;
			build_synthetic(&im, s);
			apply6(&im, damages6[i].what);
			CHECK_INT(img_write(&im, path), 0);
			ok = fails_with(path, damages6[i].want);
			if (!ok)
				fprintf(stderr, "  damage \"%s\" of %s\n", damages6[i].name,
					synthetic[s].name);
			CHECK(ok);
			img_free(&im);
		}
	}
	unlink(path);
}

/* ---- zstd-compressed version 7: what the check decompresses ---- */

enum zdamage {
	Z_NONE, Z_CHUNK_GARBAGE, Z_CHUNK_SIZE, Z_PAGE_COMMIT, Z_HEADER_PAGE, Z_SECTION,
	/* the CPU's data in two chunks, the second damaged */
	Z_LATER_GARBAGE, Z_LATER_COMMIT,
};

/* @n bytes of @src compressed with zstd, after the 4-byte sizes @zsize_at leaves room for */
static void img_zstd(struct image *im, const void *src, size_t n)
{
	size_t cap = ZSTD_compressBound(n), z;
	void *buf = malloc(cap);

	if (!buf)
		abort();
	z = ZSTD_compress(buf, cap, src, n, 3);
	if (ZSTD_isError(z))
		abort();
	img_num(im, z, 4);
	img_num(im, n, 4);
	img_put(im, buf, z);
	free(buf);
}

/*
 * Version 7 compressed with zstd, little-endian: a compressed header info
 * section, a flyrecord buffer of one CPU whose data is one compressed chunk
 * of one page, options and strings uncompressed. @what damages it before or
 * after compressing.
 */
static void build_v7z(struct image *im, enum zdamage what)
{
	struct image raw = { 0 }, page = { 0 };
	size_t sz, data, cpu0, opts, chunk;

	memset(im, 0, sizeof(*im));
	img_header(im, "7", 8);
	img_str(im, "zstd");
	img_str(im, "1.5.4");
	im->opts_field = im->len;
	img_num(im, 0, 8);

	im->first_sec = im->len;
	img_header_page(&raw);
	img_str(&raw, "header_event");
	img_num(&raw, 4, 8);
	img_put(&raw, "efgh", 4);
	if (what == Z_HEADER_PAGE)
		raw.p[12 + 8 + 12] = 'T';
	if (what == Z_SECTION)
		img_set(&raw, 12, 100000, 8);
	sz = sec_begin(im, 16, 1, D_HINFO);
	img_zstd(im, raw.p, raw.len);
	sec_end(im, sz);

	im->buf_sec = im->len;
	sz = sec_begin(im, 3, 1, D_FLY);
	img_align(im, 4096);
	cpu0 = im->len;
	img_page(&page, 11);
	if (what == Z_PAGE_COMMIT)
		img_set(&page, 8, 5000, 8);
	img_num(im, what >= Z_LATER_GARBAGE ? 2 : 1, 4);
	chunk = im->len;
	img_zstd(im, page.p, page.len);
	if (what >= Z_LATER_GARBAGE) {
		if (what == Z_LATER_COMMIT)
			img_set(&page, 8, 5000, 8);
		chunk = im->len;
		img_zstd(im, page.p, page.len);
	}
	if (what == Z_CHUNK_GARBAGE || what == Z_LATER_GARBAGE)
		memset(im->p + chunk + 8, 0x5a, 8);
	if (what == Z_CHUNK_SIZE)
		img_set(im, chunk + 4, 8192, 4);
	sec_end(im, sz);

	opts = im->len;
	img_set(im, im->opts_field, opts, 8);
	sz = sec_begin(im, 0, 0, D_OPTS1);
	data = opt_begin(im, 16);
	img_num(im, im->first_sec, 8);
	opt_end(im, data);
	data = opt_begin(im, 3);
	img_num(im, im->buf_sec, 8);
	img_str(im, "");
	img_str(im, "local");
	img_num(im, 4096, 4);
	img_num(im, 1, 4);
	img_num(im, 0, 4);
	img_num(im, cpu0, 8);
	img_num(im, im->len - cpu0, 8);	/* rewritten below */
	img_set(im, im->len - 8, (chunk + 8 + img_get(im, chunk, 4)) - cpu0, 8);
	opt_end(im, data);
	data = opt_begin(im, 0);
	img_num(im, 0, 8);
	opt_end(im, data);
	sec_end(im, sz);

	sz = sec_begin(im, 15, 0, D_STRINGS);
	img_put(im, descs, sizeof(descs));
	sec_end(im, sz);
	img_free(&raw);
	img_free(&page);
}

/*
 * A chunk after the first of a CPU's data is left to the reader of the
 * layout: its sizes checked, then the chunk checked as the whole check
 * does when the reader asks (ra_td_check_rest), with the same words.
 */
static void check_later_chunk(const char *path, const char *want)
{
	struct ra_td_layout lay;

	CHECK_INT(ra_tracedat_layout(path, &lay), 0);
	if (lay.n != 1) {
		CHECK_INT(lay.n, 1);
		ra_td_layout_free(&lay);
		return;
	}
	CHECK_INT((int)lay.r[0].nrest, 1);
	CHECK_INT(ra_td_check_rest(path, &lay), -1);
	CHECK_INT(ra_last_error_kind(), RA_ERR_DATA);
	if (!strstr(ra_last_error(), want))
		fprintf(stderr, "  the rest: \"%s\", expected \"%s\"\n", ra_last_error(), want);
	CHECK(strstr(ra_last_error(), want) != NULL);
	CHECK_INT(ra_td_check_rest(path, &lay), -1);	/* as often as asked */
	ra_td_layout_free(&lay);
}

/* Compressed sections and chunks are decompressed and checked like the rest. */
static void test_compressed(void)
{
	static const struct {
		enum zdamage what;
		const char *want;
	} cases[] = {
		{ Z_CHUNK_GARBAGE, "cpu 0 data of buffer '' does not decompress: " },
		{ Z_CHUNK_SIZE, "cpu 0 data of buffer '': chunk decompresses to 4096 bytes, not the 8192 it declares" },
		{ Z_PAGE_COMMIT, "cpu 0 data of buffer '', decompressed, at 8: page 0 of the chunk: sub-buffer commit of 5000 bytes runs past its 4080 bytes" },
		{ Z_HEADER_PAGE, "header info section, decompressed, at 20: header_page does not begin with the 8-byte timestamp field" },
		{ Z_SECTION, "header info section, decompressed, at 12: header_page of 100000 bytes runs past the end of its header info section" },
		{ Z_LATER_GARBAGE, "cpu 0 data of buffer '' does not decompress: " },
		{ Z_LATER_COMMIT, "cpu 0 data of buffer '', decompressed, at 8: page 0 of the chunk: sub-buffer commit of 5000 bytes runs past its 4080 bytes" },
	};
	char path[PATH_MAX];
	struct image im;

	tmp_path(path, "v7z.dat");
	build_v7z(&im, Z_NONE);
	CHECK_INT(img_write(&im, path), 0);
	CHECK_INT(check_passes(path), 0);
	img_free(&im);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		bool ok;

		build_v7z(&im, cases[i].what);
		CHECK_INT(img_write(&im, path), 0);
		ok = fails_with(path, cases[i].want);
		if (!ok)
			fprintf(stderr, "  compressed damage %zu\n", i);
		CHECK(ok);
		img_free(&im);
		if (cases[i].what >= Z_LATER_GARBAGE)
			check_later_chunk(path, cases[i].want);
	}
	unlink(path);
}

static void test_unreadable(void)
{
	char path[PATH_MAX];
	struct image im = { 0 };

	tmp_path(path, "does-not-exist.dat");
	CHECK_INT(ra_tracedat_check(path), -1);
	CHECK_INT(ra_last_error_kind(), RA_ERR_USAGE);
	CHECK(strstr(ra_last_error(), "does-not-exist.dat") != NULL);
	CHECK_INT(ra_tracedat_check(tmpdir), -1);
	CHECK_INT(ra_last_error_kind(), RA_ERR_USAGE);

	tmp_path(path, "empty.dat");
	CHECK_INT(img_write(&im, path), 0);
	CHECK(fails_with(path, "offset 0: empty file"));
	img_put(&im, "\x17\x08\x44tra", 6);
	CHECK_INT(img_write(&im, path), 0);
	CHECK(fails_with(path, "offset 0: magic runs past the end of the file (6 bytes)"));
	im.len = 0;
	img_put(&im, "\x17\x08\x44tracing77777777777777777777", 30);
	CHECK_INT(img_write(&im, path), 0);
	CHECK(fails_with(path, "offset 10: version string is not terminated within 16 bytes"));
	unlink(path);
	img_free(&im);
}

static const struct test_case cases[] = {
	{ "real fixtures pass", test_fixtures },
	{ "trace-cmd conversions pass", test_conversions },
	{ "files written here pass", test_synthetic },
	{ "truncated copies fail", test_truncated },
	{ "damaged version 7 files fail", test_damage_v7 },
	{ "damaged version 6 files fail", test_damage_v6 },
	{ "compressed files are decompressed and checked", test_compressed },
	{ "unreadable and tiny files", test_unreadable },
	{ NULL, NULL },
};

int main(void)
{
	return test_run_in_tmpdir("tracedat_check", cases, tmpdir);
}
