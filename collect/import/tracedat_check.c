// SPDX-License-Identifier: LGPL-2.1
/*
 * A structural check of trace-cmd trace.dat files (versions 6 and 7, either
 * byte order) before libtracecmd opens them: libtracecmd does not say where
 * a file is broken and takes some truncated files without a word, and it and
 * libtraceevent read some of what a file holds without bounds (string
 * options, header_page, the blocks of the header sections, the sub-buffer
 * pages of the trace data). That is checked here too, in compressed sections
 * and chunks after decompressing them as libtracecmd does (zstd, zlib); the
 * text of the event formats is left to libtraceevent's parser.
 *
 * Every size, count and offset the file declares is compared with the file
 * size, or with the section or option that holds it, before it is used. The
 * file is read with pread() through a small window, never loaded whole; every
 * loop is bounded by the bytes it consumes and by a fixed cap, and the chain
 * of version 7 options sections visits each section at most once.
 *
 * The layouts are those of trace-cmd.dat.v6(5) and trace-cmd.dat.v7(5), with
 * what libtracecmd's reader and writer do beyond the man pages:
 *  - version 7 sections follow one another from the end of the initial format
 *    to the end of the file (the reader finds the strings sections that way),
 *    and a section's description is an offset into the strings sections, or
 *    0xffffffff for none;
 *  - a compressed section other than trace data starts with the compressed
 *    and the uncompressed size (u32 each); compressed trace data (of a CPU in
 *    a BUFFER section, or a whole BUFFER_TEXT section) is a u32 count of
 *    chunks, each a u32 compressed size, a u32 uncompressed size and the
 *    data: the chunks must fit in the data and decompress to their size;
 *  - version 6: a CPUCOUNT option overrides the CPU count of the header for
 *    the flyrecord offset/size pairs, and when a TRACECLOCK option is present
 *    the trace clock (u64 size, text) follows the pairs of the top buffer;
 *    the BUFFER option of an instance (u64 offset, name) points at its own
 *    "flyrecord" (or "options"/"latency") marker and pairs.
 * CPU data starts at a multiple of the page size of the header; data of a CPU
 * with size 0 is not looked at (its offset may lie past the end).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "import.h"

#define WINDOW		65536		/* bytes of the file read at once */
#define MAX_SECTIONS	65536		/* version 7 sections in one file */
#define MAX_ITEMS	(1u << 22)	/* entries behind one count, options of one section */
#define MAX_VERSION	16		/* bytes of the version string, NUL included */
#define MAX_NAME	256		/* compression, system, instance and clock names */
#define MAX_V6_BUFFERS	256		/* version 6 buffer instances */
#define MAX_CPU_ID	65536
#define NO_DESC		0xffffffffu
#define MAX_PAGE	(1u << 20)	/* ring-buffer sub-buffers; no kernel page is larger */
#define MAX_INFLATED	(256u << 20)	/* a decompressed section or chunk */

/* Ring-buffer sub-buffers as libtraceevent's kbuffer reads them. */
#define KB_PADDING	29
#define KB_TIME_EXTEND	30
#define KB_TIME_STAMP	31
#define KB_COMMIT_MASK	((1u << 27) - 1)
#define KB_MISSED_STORED (1u << 30)	/* a count of lost events follows the data */

/* Option and section ids (trace-cmd.dat.v7(5); a section has its option's id). */
enum {
	ID_DONE = 0,
	ID_DATE = 1,
	ID_CPUSTAT = 2,
	ID_BUFFER = 3,
	ID_TRACECLOCK = 4,
	ID_UNAME = 5,
	ID_HOOK = 6,
	ID_OFFSET = 7,
	ID_CPUCOUNT = 8,
	ID_VERSION = 9,
	ID_PROCMAPS = 10,
	ID_TIME_SHIFT = 12,
	ID_GUEST = 13,
	ID_TSC2NSEC = 14,
	ID_STRINGS = 15,
	ID_HEADER_INFO = 16,
	ID_FTRACE_EVENTS = 17,
	ID_EVENT_FORMATS = 18,
	ID_KALLSYMS = 19,
	ID_PRINTK = 20,
	ID_CMDLINES = 21,
	ID_BUFFER_TEXT = 22,
	ID_BTF_FILE = 23,
	ID_LAST_BOOT_INFO = 24,
	ID_MODULES_FILE = 25,
};

#define SEC_FL_COMPRESS 1

struct section {
	uint64_t off;		/* of the 16-byte header */
	uint64_t size;		/* of what follows the header */
	uint32_t desc;
	uint16_t id;
	uint16_t flags;
	bool visited;		/* an options section already walked */
	uint64_t zsize;		/* compressed (not trace data): the compressed bytes */
	uint64_t rsize;		/* and the size they decompress to, as declared */
};

enum algo { ALGO_NONE, ALGO_ZSTD, ALGO_ZLIB };

struct v6_buffer {
	uint64_t field;		/* where the BUFFER option holds the offset */
	uint64_t off;
	char name[MAX_NAME];
};

struct chk {
	const char *path;
	int fd;
	uint64_t fsize;
	bool big;		/* numbers are big-endian */
	uint32_t page_size;
	bool compressed;	/* version 7 names a compression algorithm */
	enum algo algo;
	/* decompressed data checked as if it were the file (fsize its size) */
	const char *inflated;	/* what it is, NULL for the file itself */
	uint64_t inflated_at;	/* where its compressed form is in the file */
	unsigned char *win;	/* win_len bytes of the file from win_off */
	uint64_t win_off;
	size_t win_len;
	struct section *sec;	/* version 7, in file order */
	size_t nsec;
	size_t sec_cap;
	uint64_t strings;	/* bytes of the strings sections */
	bool clock_option;	/* version 6: a TRACECLOCK option was seen */
	int lsize;		/* bytes of a sub-buffer's commit (4 or 8); 0: pages unchecked */
	bool latency;		/* a buffer holds latency text, not event records */
	bool header_seen;	/* a header_page was read (lsize holds its answer) */
	struct v6_buffer buf[MAX_V6_BUFFERS];
	int nbuf;
	struct ra_td_layout *lay;	/* where the event data is, when asked for */
	uint64_t rest, nrest;	/* the chunks of the last CPU data left unchecked (ra_td_region) */
};

/* The data of a CPU for the layout: -1 out of memory. */
static int add_region(struct chk *c, const char *buffer, uint64_t cpu, uint64_t off, uint64_t end,
		      uint32_t ps, bool compressed)
{
	struct ra_td_layout *l = c->lay;
	struct ra_td_region *r;

	if (!l)
		return 0;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;

		r = realloc(l->r, (size_t)cap * sizeof(*r));
		if (!r) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		l->r = r;
		l->cap = cap;
	}
	r = &l->r[l->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->buffer, sizeof(r->buffer), "%s", buffer);
	r->cpu = (uint32_t)cpu;
	r->off = off;
	r->end = end;
	r->page_size = ps;
	r->compressed = compressed;
	r->rest = compressed ? c->rest : 0;
	r->nrest = compressed ? c->nrest : 0;
	return 0;
}

static int bad(struct chk *c, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct chk *c, uint64_t off, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (c->inflated)
		ra_set_error(RA_ERR_DATA, "'%s': offset %llu: %s, decompressed, at %llu: %s",
			     c->path, (unsigned long long)c->inflated_at, c->inflated,
			     (unsigned long long)off, reason);
	else
		ra_set_error(RA_ERR_DATA, "'%s': offset %llu: %s", c->path,
			     (unsigned long long)off, reason);
	return -1;
}

static int past_end(struct chk *c, uint64_t off, const char *what)
{
	return bad(c, off, "%s runs past the end of the file (%llu bytes)", what,
		   (unsigned long long)c->fsize);
}

/* Whether @n bytes at @off lie inside the file; no overflow. */
static bool fits(const struct chk *c, uint64_t off, uint64_t n)
{
	return off <= c->fsize && n <= c->fsize - off;
}

static int fill(struct chk *c, uint64_t off)
{
	size_t want = c->fsize - off < WINDOW ? (size_t)(c->fsize - off) : WINDOW;
	size_t got = 0;

	if (c->inflated)	/* all of it is in the window */
		return bad(c, off, "read past the decompressed data");
	c->win_len = 0;
	while (got < want) {
		ssize_t n = pread(c->fd, c->win + got, want - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			const char *why = n < 0 ? strerror(errno) : "the file shrank";

			ra_set_error(RA_ERR_USAGE, "'%s': cannot read at offset %llu: %s", c->path,
				     (unsigned long long)(off + got), why);
			return -1;
		}
		got += (size_t)n;
	}
	c->win_off = off;
	c->win_len = want;
	return 0;
}

/* Copy @n (<= WINDOW) bytes at @off, which the caller has checked with fits(). */
static int get(struct chk *c, uint64_t off, void *dst, size_t n)
{
	if (off < c->win_off || off - c->win_off > c->win_len ||
	    n > c->win_len - (off - c->win_off))
		if (fill(c, off) < 0)
			return -1;
	memcpy(dst, c->win + (off - c->win_off), n);
	return 0;
}

/* Like get(), but a read outside the window leaves it where it is (for far hops). */
static int get_direct(struct chk *c, uint64_t off, void *dst, size_t n)
{
	size_t got = 0;

	if (off >= c->win_off && off - c->win_off <= c->win_len &&
	    n <= c->win_len - (off - c->win_off)) {
		memcpy(dst, c->win + (off - c->win_off), n);
		return 0;
	}
	if (c->inflated)
		return bad(c, off, "read past the decompressed data");
	while (got < n) {
		ssize_t r = pread(c->fd, (char *)dst + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			const char *why = r < 0 ? strerror(errno) : "the file shrank";

			ra_set_error(RA_ERR_USAGE, "'%s': cannot read at offset %llu: %s", c->path,
				     (unsigned long long)(off + got), why);
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

static uint64_t decode(const struct chk *c, const unsigned char *b, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)b[c->big ? n - 1 - i : i] << (8 * i);
	return v;
}

/*
 * A number of @n bytes at *@pos that must end by @end: the end of the file
 * (@in NULL) or of the structure @in names. Advances *@pos.
 */
static int field(struct chk *c, uint64_t *pos, uint64_t end, int n, const char *what,
		 const char *in, uint64_t *out)
{
	unsigned char b[8];

	if (*pos > end || end - *pos < (uint64_t)n)
		return in ? bad(c, *pos, "%s runs past the end of its %s", what, in)
			  : past_end(c, *pos, what);
	if (get(c, *pos, b, (size_t)n) < 0)
		return -1;
	*out = decode(c, b, n);
	*pos += (uint64_t)n;
	return 0;
}

/* A NUL-terminated string at *@pos of at most @max bytes, ending by @end (see field()). */
static int cstr(struct chk *c, uint64_t *pos, uint64_t end, size_t max, const char *what,
		const char *in, char *out, size_t outlen)
{
	uint64_t start = *pos;

	for (size_t i = 0;; i++) {
		unsigned char ch;

		if (i == max)
			return bad(c, start, "%s is not terminated within %zu bytes", what, max);
		if (start + i >= end)
			return in ? bad(c, start, "%s runs past the end of its %s", what, in)
				  : past_end(c, start, what);
		if (get(c, start + i, &ch, 1) < 0)
			return -1;
		if (i < outlen)
			out[i] = (char)ch;
		if (!ch) {
			*pos = start + i + 1;
			return 0;
		}
	}
}

/* @s with anything but printable ASCII replaced, for messages. */
static const char *printable(char *s)
{
	for (char *p = s; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	return s;
}

/*
 * Skip a block of @size bytes at *@pos, declared at @decl, that must end by
 * @end: the end of the file (@in NULL) or of the section @in names.
 */
static int block(struct chk *c, uint64_t *pos, uint64_t end, uint64_t decl, uint64_t size,
		 const char *what, const char *in)
{
	if (*pos > end || size > end - *pos) {
		if (in)
			return bad(c, decl, "%s of %llu bytes runs past the end of its %s", what,
				   (unsigned long long)size, in);
		return bad(c, decl, "%s of %llu bytes runs past the end of the file (%llu bytes)",
			   what, (unsigned long long)size, (unsigned long long)c->fsize);
	}
	*pos += size;
	return 0;
}

/* A count at *@pos (@n bytes) of entries of at least @min bytes that must fit by @end. */
static int count(struct chk *c, uint64_t *pos, uint64_t end, int n, uint64_t min,
		 const char *what, const char *in, uint64_t *out)
{
	uint64_t decl = *pos;

	if (field(c, pos, end, n, what, in, out) < 0)
		return -1;
	if (*out > MAX_ITEMS || *out > (end - *pos) / min) {
		if (in)
			return bad(c, decl, "%s %llu cannot fit in the %llu bytes left in its %s",
				   what, (unsigned long long)*out,
				   (unsigned long long)(end - *pos), in);
		return bad(c, decl, "%s %llu cannot fit in the %llu bytes left in the file", what,
			   (unsigned long long)*out, (unsigned long long)(end - *pos));
	}
	return 0;
}

/* A block with a size of @n bytes before it, ending by @end (see block()). */
static int sized(struct chk *c, uint64_t *pos, uint64_t end, int n, const char *what,
		 const char *size_what, const char *in)
{
	uint64_t decl = *pos, size;

	if (field(c, pos, end, n, size_what, in, &size) < 0)
		return -1;
	return block(c, pos, end, decl, size, what, in);
}

/* The @n bytes of @s at *@pos, ending by @end (see block()). */
static int expect(struct chk *c, uint64_t *pos, uint64_t end, const char *s, size_t n,
		  const char *in)
{
	char b[16];

	if (*pos > end || n > end - *pos) {
		if (in)
			return bad(c, *pos, "\"%s\" runs past the end of its %s", s, in);
		return bad(c, *pos, "\"%s\" runs past the end of the file (%llu bytes)", s,
			   (unsigned long long)c->fsize);
	}
	if (get(c, *pos, b, n) < 0)
		return -1;
	if (memcmp(b, s, n) != 0)
		return bad(c, *pos, "expected \"%s\"", s);
	*pos += n;
	return 0;
}

static const char *const option_names[] = {
	"DONE",		 "DATE",	 "CPUSTAT",	  "BUFFER",	"TRACECLOCK",
	"UNAME",	 "HOOK",	 "OFFSET",	  "CPUCOUNT",	"VERSION",
	"PROCMAPS",	 "TRACEID",	 "TIME_SHIFT",	  "GUEST",	"TSC2NSEC",
	"STRINGS",	 "HEADER_INFO",	 "FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS",
	"PRINTK",	 "CMDLINES",	 "BUFFER_TEXT",	  "BTF_FILE",	"LAST_BOOT_INFO",
	"MODULES_FILE",
};

static const char *option_name(unsigned id, char *buf, size_t len)
{
	if (id < sizeof(option_names) / sizeof(option_names[0]))
		return option_names[id];
	snprintf(buf, len, "id %u", id);
	return buf;
}

static const char *section_name(unsigned id, char *buf, size_t len)
{
	switch (id) {
	case ID_DONE:
		return "options";
	case ID_BUFFER:
		return "flyrecord buffer";
	case ID_STRINGS:
		return "strings";
	case ID_HEADER_INFO:
		return "header info";
	case ID_FTRACE_EVENTS:
		return "ftrace events";
	case ID_EVENT_FORMATS:
		return "event formats";
	case ID_KALLSYMS:
		return "kallsyms";
	case ID_PRINTK:
		return "printk";
	case ID_CMDLINES:
		return "cmdlines";
	case ID_BUFFER_TEXT:
		return "latency buffer";
	case ID_BTF_FILE:
		return "btf";
	case ID_MODULES_FILE:
		return "modules";
	default:
		snprintf(buf, len, "id %u", id);
		return buf;
	}
}

/* ---- what the libraries read without bounds ---- */

/*
 * Options that libtracecmd reads as C strings (strdup, strtok_r, strtoll):
 * their NUL must lie within their size.
 */
static int terminated(struct chk *c, uint64_t opt, uint64_t data, uint64_t size,
		      const char *name)
{
	unsigned char b[256];

	for (uint64_t p = data; p < data + size;) {
		size_t n = data + size - p < sizeof(b) ? (size_t)(data + size - p) : sizeof(b);

		if (get_direct(c, p, b, n) < 0)
			return -1;
		if (memchr(b, 0, n))
			return 0;
		p += n;
	}
	return bad(c, opt, "%s option of %llu bytes is not NUL-terminated", name,
		   (unsigned long long)size);
}

/*
 * A GUEST option: name, u64 trace id, u32 count of guest CPUs, and per CPU
 * a u32 CPU id (which libtracecmd uses as an index, below the count) and a
 * u32 host pid.
 */
static int guest(struct chk *c, uint64_t opt, uint64_t data, uint64_t size)
{
	uint64_t p = data, end = data + size, n, cpu;
	char name[MAX_NAME];

	if (cstr(c, &p, end, MAX_NAME, "guest name", "GUEST option", name, sizeof(name)) < 0 ||
	    field(c, &p, end, 8, "guest trace id", "GUEST option", &n) < 0 ||
	    field(c, &p, end, 4, "guest cpu count", "GUEST option", &n) < 0)
		return -1;
	if (n > (end - p) / 8)
		return bad(c, p - 4, "GUEST option lists %llu cpus but has room for %llu",
			   (unsigned long long)n, (unsigned long long)((end - p) / 8));
	for (uint64_t i = 0; i < n; i++, p += 4) {
		uint64_t at = p;

		if (field(c, &p, end, 4, "guest cpu id", "GUEST option", &cpu) < 0)
			return -1;
		if (cpu >= n)
			return bad(c, at, "GUEST option names cpu %llu of %llu",
				   (unsigned long long)(int32_t)cpu, (unsigned long long)n);
	}
	return 0;
}

/* An option @name of @size bytes at @data (its header at @opt): what libtracecmd assumes of it. */
static int option_content(struct chk *c, unsigned id, const char *name, uint64_t opt,
			  uint64_t data, uint64_t size)
{
	if (c->lay && (id == ID_DATE || id == ID_OFFSET || id == ID_TIME_SHIFT || id == ID_TSC2NSEC))
		c->lay->moved_ts = true;
	switch (id) {
	case ID_DATE:
	case ID_TRACECLOCK:
	case ID_UNAME:
	case ID_OFFSET:
	case ID_VERSION:
	case ID_PROCMAPS:
		return terminated(c, opt, data, size, name);
	case ID_GUEST:
		return guest(c, opt, data, size);
	case ID_HOOK:
		/* libtracecmd prints a hook and dereferences NULL on a malformed one */
		return bad(c, opt, "HOOK option: trace-cmd hooks (record -H) are not supported");
	case ID_CPUCOUNT:
		if (size < 4)
			return bad(c, opt, "CPUCOUNT option of %llu bytes, expected 4",
				   (unsigned long long)size);
		return 0;
	case ID_CPUSTAT:
		if (!size)
			return bad(c, opt, "CPUSTAT option is empty");
		return 0;
	default:
		return 0;
	}
}

/* Whether *@p starts with @line, with or without "\tsigned:N;" before its newline; skips it. */
static bool header_line(const char **p, const char *line, char sign)
{
	size_t n = strlen(line);
	const char *q = *p + n;

	if (strncmp(*p, line, n) != 0)
		return false;
	if (strncmp(q, "\tsigned:", 8) == 0 && q[8] == sign && q[9] == ';')
		q += 10;
	if (*q != '\n')
		return false;
	*p = q + 1;
	return true;
}

/*
 * header_page: libtracecmd reads no sub-buffer unless it describes an 8-byte
 * timestamp, and kbuffer reads a sub-buffer's commit in as many bytes as the
 * commit field has (8, or else 4). Both lines must be as kernels write them,
 * so that libtraceevent reads what is checked here; *@lsize is the commit's
 * size. An empty header_page (kernels before 2.6.31: another layout, which
 * libtraceevent assumes) leaves the pages unchecked.
 */
static int commit_size(struct chk *c, uint64_t off, uint64_t size, int *lsize)
{
	static const char ts[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;";
	static const char commit[] = "\tfield: local_t commit;\toffset:8;\tsize:";
	char text[160], line[64];
	size_t n = size < sizeof(text) - 1 ? (size_t)size : sizeof(text) - 1;
	const char *p = text;

	*lsize = 0;
	if (!size)
		return 0;
	if (get_direct(c, off, text, n) < 0)
		return -1;
	text[n] = '\0';
	if (!header_line(&p, ts, '0'))
		return bad(c, off, "header_page does not begin with the 8-byte timestamp field");
	for (int ls = 4; ls <= 8; ls += 4) {
		snprintf(line, sizeof(line), "%s%d;", commit, ls);
		if (header_line(&p, line, '1')) {
			*lsize = ls;
			return 0;
		}
	}
	return bad(c, off, "header_page does not describe a commit field of 4 or 8 bytes after the timestamp");
}

/* header_page and header_event, ending by @end (see block()). */
static int header_info(struct chk *c, uint64_t *pos, uint64_t end, const char *in)
{
	uint64_t decl, size;
	int lsize;

	if (expect(c, pos, end, "header_page", 12, in) < 0)
		return -1;
	decl = *pos;
	if (field(c, pos, end, 8, "header_page size", in, &size) < 0 ||
	    block(c, pos, end, decl, size, "header_page", in) < 0 ||
	    commit_size(c, *pos - size, size, &lsize) < 0)
		return -1;
	if (c->header_seen && lsize != c->lsize)
		return bad(c, decl, "header_page says %d-byte commits, an earlier one %d", lsize,
			   c->lsize);
	c->lsize = lsize;
	c->header_seen = true;
	if (expect(c, pos, end, "header_event", 13, in) < 0)
		return -1;
	return sized(c, pos, end, 8, "header_event", "header_event size", in);
}

/* The ftrace event formats: a u32 count of u64-sized blocks. */
static int ftrace_formats(struct chk *c, uint64_t *pos, uint64_t end, const char *in)
{
	uint64_t n;

	if (count(c, pos, end, 4, 8, "ftrace event format count", in, &n) < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		if (sized(c, pos, end, 8, "ftrace event format", "ftrace event format size", in) < 0)
			return -1;
	return 0;
}

/* The event formats: a u32 count of systems, each a name and a u32 count of u64-sized blocks. */
static int event_formats(struct chk *c, uint64_t *pos, uint64_t end, const char *in)
{
	uint64_t n;

	if (count(c, pos, end, 4, 5, "event system count", in, &n) < 0)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		char sys[MAX_NAME];
		uint64_t events;

		if (cstr(c, pos, end, MAX_NAME, "event system name", in, sys, sizeof(sys)) < 0 ||
		    count(c, pos, end, 4, 8, "event format count", in, &events) < 0)
			return -1;
		for (uint64_t j = 0; j < events; j++)
			if (sized(c, pos, end, 8, "event format", "event format size", in) < 0)
				return -1;
	}
	return 0;
}

/*
 * The events of one sub-buffer: @commit bytes at @data, of @area bytes of
 * data. Each event header, time extension and padding length must lie in the
 * sub-buffer, and each event's data in what was committed.
 */
static int page_events(struct chk *c, uint64_t data, uint64_t commit, uint64_t area,
		       const char *what)
{
	unsigned char b[4];
	uint64_t pos = 0;

	while (pos < commit) {
		uint64_t at = data + pos, len, word = 0;
		unsigned type;

		if (commit - pos < 4)
			return bad(c, at, "%s: event header runs past the committed data", what);
		if (get(c, at, b, 4) < 0)
			return -1;
		type = (unsigned)decode(c, b, 4) & 0x1f;
		if (type == 0 || type == KB_PADDING || type >= KB_TIME_EXTEND) {
			if ((type == KB_PADDING ? area : commit) - pos < 8)
				return bad(c, at, "%s: event length runs past the %s", what,
					   type == KB_PADDING ? "sub-buffer" : "committed data");
			if (get(c, at + 4, b, 4) < 0)
				return -1;
			word = decode(c, b, 4);
		}
		if (type == KB_PADDING) {
			/* kbuffer adds the length as an int: a negative one goes back for ever */
			if (word > INT32_MAX)
				return bad(c, at + 4, "%s: padding length %llu goes backwards", what,
					   (unsigned long long)word);
			pos += 4 + word;
			continue;
		}
		if (type >= KB_TIME_EXTEND) {
			pos += 8;
			continue;
		}
		if (type == 0 && word < 4)
			return bad(c, at + 4, "%s: event length %llu, less than its own 4 bytes", what,
				   (unsigned long long)word);
		len = type ? 4ull * type : ((word - 4 + 3) & ~3ull);
		pos += type ? 4 : 8;
		if (len > commit - pos)
			return bad(c, at, "%s: event of %llu bytes runs past the committed data", what,
				   (unsigned long long)len);
		pos += len;
	}
	return 0;
}

/* A sub-buffer of @ps bytes at @at: its commit within it, then its events. */
static int page(struct chk *c, uint64_t at, uint32_t ps, const char *what)
{
	uint64_t start = 8 + (uint64_t)c->lsize, area = ps - start, commit, v;
	unsigned char b[8];

	if (get(c, at + 8, b, (size_t)c->lsize) < 0)
		return -1;
	v = decode(c, b, c->lsize);
	commit = (uint32_t)v & KB_COMMIT_MASK;
	if (commit > area)
		return bad(c, at + 8, "%s: sub-buffer commit of %llu bytes runs past its %llu bytes",
			   what, (unsigned long long)commit, (unsigned long long)area);
	if (((uint32_t)v & KB_MISSED_STORED) && area - commit < (uint64_t)c->lsize)
		return bad(c, at + 8, "%s: the lost-event count after %llu committed bytes runs past the sub-buffer",
			   what, (unsigned long long)commit);
	return page_events(c, at + start, commit, area, what);
}

int ra_td_page_check(const struct ra_td_layout *lay, const char *path, const void *buf,
		     uint32_t ps, uint64_t at)
{
	struct chk c = {
		.path = path, .fd = -1, .fsize = ps, .big = lay->big, .lsize = lay->lsize,
		.inflated = "a sub-buffer read again", .inflated_at = at,
		.win = (unsigned char *)buf, .win_len = ps,
	};

	if (!lay->lsize || ps <= 8 + (uint32_t)lay->lsize)
		return bad(&c, 0, "sub-buffers the check could not read");
	return page(&c, 0, ps, "sub-buffer");
}

/* The uncompressed data of a CPU: @size bytes at @off (both checked), pages of @ps bytes. */
static int cpu_pages(struct chk *c, uint64_t decl, uint64_t off, uint64_t size, uint32_t ps,
		     const char *what)
{
	if (size % ps)
		return bad(c, decl, "%s of %llu bytes is not a whole number of %u-byte pages", what,
			   (unsigned long long)size, ps);
	if (!c->lsize || ps <= 8 + (uint32_t)c->lsize)
		return 0;
	for (uint64_t p = off; p < off + size; p += ps)
		if (page(c, p, ps, what) < 0)
			return -1;
	return 0;
}

/* ---- compressed data, decompressed as libtracecmd does it (zstd, zlib) ---- */

/* @n bytes at @off of the file in a new buffer; NULL with the error set. */
static unsigned char *read_bytes(struct chk *c, uint64_t off, uint64_t n)
{
	unsigned char *buf = malloc(n ? (size_t)n : 1);

	if (!buf) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	if (get_direct(c, off, buf, (size_t)n) < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Decompress @in into @out (@cap bytes); the bytes made, or -1 with *@why. */
static int64_t decompress(enum algo algo, const unsigned char *in, uint64_t n, unsigned char *out,
			  uint64_t cap, const char **why)
{
	if (algo == ALGO_ZSTD) {
		size_t r = ZSTD_decompress(out, (size_t)cap, in, (size_t)n);

		*why = ZSTD_isError(r) ? ZSTD_getErrorName(r) : NULL;
		return *why ? -1 : (int64_t)r;
	} else {
		uLongf len = (uLongf)cap;
		int r = uncompress(out, &len, in, (uLong)n);

		*why = r == Z_OK ? NULL : zError(r);
		return *why ? -1 : (int64_t)len;
	}
}

/*
 * Decompress the @zsize bytes at @off into at most @cap bytes: *@out gets a
 * buffer the caller frees, *@len the bytes made. -1 with the error set when
 * the data does not decompress or is larger than ratrace reads.
 */
static int inflate_at(struct chk *c, uint64_t off, uint64_t zsize, uint64_t cap, const char *what,
		      unsigned char **out, uint64_t *len)
{
	unsigned char *in = NULL;
	const char *why;
	int64_t n;

	*out = NULL;
	if (zsize > MAX_INFLATED || cap > MAX_INFLATED)
		return bad(c, off, "%s: %llu bytes that decompress to %llu, more than %u MiB",
			   what, (unsigned long long)zsize, (unsigned long long)cap,
			   MAX_INFLATED >> 20);
	in = read_bytes(c, off, zsize);
	*out = in ? malloc(cap ? (size_t)cap : 1) : NULL;
	if (in && !*out)
		ra_set_error(RA_ERR_IO, "out of memory");
	n = *out ? decompress(c->algo, in, zsize, *out, cap, &why) : -1;
	free(in);
	if (n >= 0) {
		*len = (uint64_t)n;
		return 0;
	}
	if (*out)
		bad(c, off, "%s does not decompress: %s", what, why);
	free(*out);
	*out = NULL;
	return -1;
}

/* A check of @len decompressed bytes at @buf (from @at in the file) as if they were the file. */
static void inflated_init(struct chk *sub, const struct chk *c, unsigned char *buf, uint64_t len,
			  const char *what, uint64_t at)
{
	*sub = *c;
	sub->inflated = what;
	sub->inflated_at = at;
	sub->fsize = len;
	sub->win = buf;
	sub->win_off = 0;
	sub->win_len = (size_t)len;
}

/*
 * One compressed chunk of trace data (header at @pos: compressed size,
 * decompressed size) decompresses to the size it declares; trace data of a
 * CPU (@ps: its page size; 0 for latency text) is whole pages of it.
 */
/* The sizes of the chunk at @pos: whole pages of @ps (0: any), neither past what ratrace reads. */
static int chunk_sizes(struct chk *c, uint64_t pos, uint64_t zsize, uint64_t rsize, uint32_t ps,
		       const char *what)
{
	if (ps && rsize % ps)
		return bad(c, pos, "%s: chunk of %llu bytes is not a whole number of %u-byte pages",
			   what, (unsigned long long)rsize, ps);
	if (zsize > MAX_INFLATED || rsize > MAX_INFLATED)
		return bad(c, pos + 8, "%s: %llu bytes that decompress to %llu, more than %u MiB",
			   what, (unsigned long long)zsize, (unsigned long long)rsize,
			   MAX_INFLATED >> 20);
	return 0;
}

static int inflate_chunk(struct chk *c, uint64_t pos, uint64_t zsize, uint64_t rsize,
			 uint32_t ps, const char *what)
{
	unsigned char *buf;
	struct chk sub;
	uint64_t len;
	int ret = 0;

	if (chunk_sizes(c, pos, zsize, rsize, ps, what) < 0 ||
	    inflate_at(c, pos + 8, zsize, rsize, what, &buf, &len) < 0)
		return -1;
	if (len != rsize)
		ret = bad(c, pos, "%s: chunk decompresses to %llu bytes, not the %llu it declares",
			  what, (unsigned long long)len, (unsigned long long)rsize);
	inflated_init(&sub, c, buf, len, what, pos);
	for (uint64_t p = 0; ret == 0 && ps && c->lsize && ps > 8 + (uint32_t)c->lsize && p < len;
	     p += ps) {
		char pw[48];

		snprintf(pw, sizeof(pw), "page %llu of the chunk", (unsigned long long)(p / ps));
		ret = page(&sub, p, ps, pw);
	}
	free(buf);
	return ret;
}

/* ---- version 7 ---- */

static int add_section(struct chk *c, const struct section *s)
{
	if (c->nsec == c->sec_cap) {
		size_t cap = c->sec_cap ? c->sec_cap * 2 : 16;
		struct section *p = realloc(c->sec, cap * sizeof(*p));

		if (!p) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		c->sec = p;
		c->sec_cap = cap;
	}
	c->sec[c->nsec++] = *s;
	return 0;
}

/* Walk the sections from @pos, the end of the initial format, to the end of the file. */
static int walk_sections(struct chk *c, uint64_t pos)
{
	uint64_t strings = 0;
	char nb[32];

	while (pos < c->fsize) {
		struct section s = { .off = pos };
		uint64_t p = pos, v, csize, rsize;
		const char *name;

		if (c->nsec >= MAX_SECTIONS)
			return bad(c, pos, "more than %d sections", MAX_SECTIONS);
		if (c->fsize - pos < 16)
			return past_end(c, pos, "section header");
		if (field(c, &p, c->fsize, 2, "section id", NULL, &v) < 0)
			return -1;
		s.id = (uint16_t)v;
		if (field(c, &p, c->fsize, 2, "section flags", NULL, &v) < 0)
			return -1;
		s.flags = (uint16_t)v;
		if (field(c, &p, c->fsize, 4, "section description", NULL, &v) < 0)
			return -1;
		s.desc = (uint32_t)v;
		if (field(c, &p, c->fsize, 8, "section size", NULL, &s.size) < 0)
			return -1;
		name = section_name(s.id, nb, sizeof(nb));
		if (!fits(c, p, s.size))
			return bad(c, pos,
				   "%s section of %llu bytes runs past the end of the file (%llu bytes)",
				   name, (unsigned long long)s.size, (unsigned long long)c->fsize);
		if ((s.flags & SEC_FL_COMPRESS) && !c->compressed)
			return bad(c, pos,
				   "%s section is compressed but the file names no compression", name);
		rsize = s.size;
		if ((s.flags & SEC_FL_COMPRESS) && s.id != ID_BUFFER && s.id != ID_BUFFER_TEXT) {
			uint64_t q = p, end = p + s.size;

			if (field(c, &q, end, 4, "compressed size", "section", &csize) < 0 ||
			    field(c, &q, end, 4, "uncompressed size", "section", &rsize) < 0)
				return -1;
			if (csize > end - q)
				return bad(c, p,
					   "compressed data of %llu bytes runs past the end of its %s section (%llu bytes)",
					   (unsigned long long)csize, name,
					   (unsigned long long)s.size);
			s.zsize = csize;
			s.rsize = rsize;
		}
		if (s.id == ID_STRINGS)
			strings += rsize;
		if (add_section(c, &s) < 0)
			return -1;
		pos = p + s.size;
	}
	c->strings = strings;
	return 0;
}

/* Every section description must lie inside the strings sections. */
static int check_descriptions(struct chk *c)
{
	char nb[32];

	for (size_t i = 0; i < c->nsec; i++) {
		const struct section *s = &c->sec[i];

		if (s->desc == NO_DESC || s->desc < c->strings)
			continue;
		if (!c->strings)
			return bad(c, c->fsize,
				   "the file ends without a strings section, which the section descriptions need");
		return bad(c, s->off + 4,
			   "%s section names description string %u, past the %llu bytes of the strings sections",
			   section_name(s->id, nb, sizeof(nb)), s->desc,
			   (unsigned long long)c->strings);
	}
	return 0;
}

static struct section *find_section(struct chk *c, uint64_t off)
{
	size_t lo = 0, hi = c->nsec;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->sec[mid].off == off)
			return &c->sec[mid];
		if (c->sec[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The section of id @id at @off, which @what declares at @decl; NULL with the error set. */
static struct section *target(struct chk *c, uint64_t decl, uint64_t off, unsigned id,
			      const char *what)
{
	struct section *s;
	char nb[32], nb2[32];

	if (off >= c->fsize) {
		bad(c, decl, "%s points to offset %llu, past the end of the file (%llu bytes)",
		    what, (unsigned long long)off, (unsigned long long)c->fsize);
		return NULL;
	}
	s = find_section(c, off);
	if (!s) {
		bad(c, decl, "%s points to offset %llu, which is not the start of a section", what,
		    (unsigned long long)off);
		return NULL;
	}
	if (s->id != id) {
		bad(c, decl, "%s points to a '%s' section at offset %llu, expected '%s'", what,
		    section_name(s->id, nb, sizeof(nb)), (unsigned long long)off,
		    section_name(id, nb2, sizeof(nb2)));
		return NULL;
	}
	return s;
}

/*
 * Chunk @i's header at *@pos, of data that ends by @end: its sizes into
 * *@zsize and *@rsize, *@pos past the header.
 */
static int chunk_header(struct chk *c, uint64_t *pos, uint64_t end, uint64_t i, const char *what,
			uint64_t *zsize, uint64_t *rsize)
{
	unsigned char b[8];

	if (end - *pos < 8)
		return bad(c, *pos, "%s: chunk %llu header runs past the end of the data",
			   what, (unsigned long long)i);
	if (get_direct(c, *pos, b, 8) < 0)
		return -1;
	*zsize = decode(c, b, 4);
	*rsize = decode(c, b + 4, 4);
	if (*zsize > end - *pos - 8)
		return bad(c, *pos,
			   "%s: chunk %llu of %llu bytes runs past the end of the data (offset %llu)",
			   what, (unsigned long long)i, (unsigned long long)*zsize,
			   (unsigned long long)end);
	return 0;
}

/*
 * Compressed trace data at @off that must end by @end (<= the file size;
 * @what names it): a u32 count of chunks, each a u32 compressed size, a u32
 * uncompressed size and the compressed bytes. For a reader of the layout,
 * the event data's chunks after the first that holds data (the one
 * libtracecmd decompresses as it opens the file) are checked as the reader
 * decompresses them; their sizes are checked here.
 */
static int chunks(struct chk *c, uint64_t off, uint64_t end, uint32_t ps, const char *what)
{
	uint64_t pos = off, n;
	bool deep = true;

	c->rest = c->nrest = 0;
	if (field(c, &pos, end, 4, "chunk count", what, &n) < 0)
		return -1;
	if (n > MAX_ITEMS || n > (end - pos) / 8)
		return bad(c, off, "%s: %llu compressed chunks cannot fit in its %llu bytes", what,
			   (unsigned long long)n, (unsigned long long)(end - off));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t zsize, rsize;

		if (chunk_header(c, &pos, end, i, what, &zsize, &rsize) < 0)
			return -1;
		if (deep) {
			if (inflate_chunk(c, pos, zsize, rsize, ps, what) < 0)
				return -1;
			deep = !(c->lay && ps && rsize);
		} else {
			if (chunk_sizes(c, pos, zsize, rsize, ps, what) < 0)
				return -1;
			if (!c->nrest++)
				c->rest = pos;
		}
		pos += 8 + zsize;
	}
	return 0;
}

const char *ra_td_region_what(const struct ra_td_region *r, char *buf, size_t len)
{
	char name[MAX_NAME];

	snprintf(name, sizeof(name), "%s", r->buffer);
	snprintf(buf, len, "cpu %u data of buffer '%s'", r->cpu, printable(name));
	return buf;
}

int ra_td_check_rest(const char *path, struct ra_td_layout *lay)
{
	struct chk c = { .path = path, .big = lay->big, .lsize = lay->lsize,
			 .algo = lay->algo == RA_TD_ZSTD ? ALGO_ZSTD :
				 lay->algo == RA_TD_ZLIB ? ALGO_ZLIB : ALGO_NONE };
	struct stat st;
	bool any = false;
	int ret = 0;

	for (int i = 0; i < lay->n; i++)
		any |= lay->r[i].nrest > 0;
	if (!any)
		return 0;
	c.fd = open(path, O_RDONLY | O_CLOEXEC);
	c.win = malloc(WINDOW);
	if (c.fd < 0 || fstat(c.fd, &st) < 0 || !c.win) {
		ra_set_error(c.win ? RA_ERR_USAGE : RA_ERR_IO, "'%s': cannot read: %s", path,
			     c.win ? strerror(errno) : "out of memory");
		ret = -1;
	}
	c.fsize = ret == 0 ? (uint64_t)st.st_size : 0;
	for (int i = 0; i < lay->n && ret == 0; i++) {
		struct ra_td_region *r = &lay->r[i];
		uint64_t pos = r->rest, end = r->end < c.fsize ? r->end : c.fsize;
		char what[MAX_NAME + 64];

		ra_td_region_what(r, what, sizeof(what));
		for (uint64_t k = 0; k < r->nrest && ret == 0; k++) {
			uint64_t zsize, rsize;

			if (pos > end)
				ret = bad(&c, pos, "%s: the data is not the one checked (did the file"
					  " change?)", what);
			else if ((ret = chunk_header(&c, &pos, end, k, what, &zsize, &rsize)) == 0 &&
				 (ret = inflate_chunk(&c, pos, zsize, rsize, r->page_size, what)) == 0)
				pos += 8 + zsize;
		}
		if (ret == 0)
			r->nrest = 0;
	}
	free(c.win);
	if (c.fd >= 0)
		close(c.fd);
	return ret;
}

/* A BUFFER or BUFFER_TEXT option of @size bytes whose data starts at @data. */
static int buffer_v7(struct chk *c, unsigned id, uint64_t data, uint64_t size)
{
	const char *in = id == ID_BUFFER ? "BUFFER option" : "BUFFER_TEXT option";
	uint64_t p = data, end = data + size, off, v, cpus;
	char name[MAX_NAME], clock[MAX_NAME], what[MAX_NAME + 64];
	const struct section *s;
	uint32_t ps;

	if (field(c, &p, end, 8, "section offset", in, &off) < 0 ||
	    cstr(c, &p, end, MAX_NAME, "instance name", in, name, sizeof(name)) < 0 ||
	    cstr(c, &p, end, MAX_NAME, "clock name", in, clock, sizeof(clock)) < 0)
		return -1;
	s = target(c, data, off, id, in);
	if (!s)
		return -1;
	if (id == ID_BUFFER_TEXT) {
		c->latency = true;
		if (!(s->flags & SEC_FL_COMPRESS))
			return 0;
		snprintf(what, sizeof(what), "latency data of buffer '%s'", printable(name));
		return chunks(c, s->off + 16, s->off + 16 + s->size, 0, what);
	}
	if (field(c, &p, end, 4, "page size", in, &v) < 0)
		return -1;
	if (v < 512 || v > MAX_PAGE || (v & (v - 1)))
		return bad(c, p - 4, "BUFFER option's page size %llu is not a power of two from 512 to 1 MiB",
			   (unsigned long long)v);
	/* libtracecmd reads the top buffer in the file's pages, an instance in its own */
	ps = name[0] ? (uint32_t)v : c->page_size;
	if (field(c, &p, end, 4, "cpu count", in, &cpus) < 0)
		return -1;
	if (cpus > (end - p) / 20)
		return bad(c, p - 4, "BUFFER option lists %llu cpus but has room for %llu",
			   (unsigned long long)cpus, (unsigned long long)((end - p) / 20));
	for (uint64_t i = 0; i < cpus; i++) {
		uint64_t entry = p, cpu, coff, csize, cend;

		if (field(c, &p, end, 4, "cpu id", in, &cpu) < 0 ||
		    field(c, &p, end, 8, "cpu data offset", in, &coff) < 0 ||
		    field(c, &p, end, 8, "cpu data size", in, &csize) < 0)
			return -1;
		if (cpu >= MAX_CPU_ID)
			return bad(c, entry, "BUFFER option names cpu %llu, not below %d",
				   (unsigned long long)cpu, MAX_CPU_ID);
		if (!csize)
			continue;
		if (!fits(c, coff, csize))
			return bad(c, entry,
				   "cpu %llu data of buffer '%s' (%llu bytes at offset %llu) runs past the end of the file (%llu bytes)",
				   (unsigned long long)cpu, printable(name),
				   (unsigned long long)csize, (unsigned long long)coff,
				   (unsigned long long)c->fsize);
		if (coff % c->page_size)
			return bad(c, entry,
				   "cpu %llu data of buffer '%s' at offset %llu is not aligned to the page size (%u)",
				   (unsigned long long)cpu, printable(name),
				   (unsigned long long)coff, c->page_size);
		snprintf(what, sizeof(what), "cpu %llu data of buffer '%s'", (unsigned long long)cpu,
			 printable(name));
		/*
		 * trace-cmd before 3.2 left the chunk count out of the size:
		 * compressed data may end 4 bytes after offset + size.
		 */
		cend = (s->flags & SEC_FL_COMPRESS) && fits(c, coff, csize + 4) ? coff + csize + 4 :
		       (s->flags & SEC_FL_COMPRESS) ? c->fsize : coff + csize;
		if ((s->flags & SEC_FL_COMPRESS) && chunks(c, coff, cend, ps, what) < 0)
			return -1;
		if (!(s->flags & SEC_FL_COMPRESS) && cpu_pages(c, entry, coff, csize, ps, what) < 0)
			return -1;
		if (add_region(c, name, cpu, coff, cend, ps, s->flags & SEC_FL_COMPRESS) < 0)
			return -1;
	}
	return 0;
}

/*
 * The options of the uncompressed options section @s; *@next is the offset of
 * the next options section (0: none) and *@decl where the DONE option has it.
 */
static int options_v7(struct chk *c, const struct section *s, uint64_t *next, uint64_t *decl)
{
	uint64_t pos = s->off + 16, end = pos + s->size;
	char nb[32];

	for (unsigned n = 0;; n++) {
		uint64_t opt = pos, id, size, data, v;
		const char *name;

		if (n >= MAX_ITEMS)
			return bad(c, pos, "more than %u options in one section", MAX_ITEMS);
		if (pos == end)
			return bad(c, pos,
				   "options section at offset %llu ends without a DONE option",
				   (unsigned long long)s->off);
		if (end - pos < 6)
			return bad(c, pos,
				   "option header runs past the end of its options section (at offset %llu)",
				   (unsigned long long)s->off);
		if (field(c, &pos, end, 2, "option id", NULL, &id) < 0 ||
		    field(c, &pos, end, 4, "option size", NULL, &size) < 0)
			return -1;
		data = pos;
		name = option_name((unsigned)id, nb, sizeof(nb));
		if (size > end - data)
			return bad(c, opt,
				   "%s option of %llu bytes runs past the end of its options section (at offset %llu, %llu bytes)",
				   name, (unsigned long long)size, (unsigned long long)s->off,
				   (unsigned long long)s->size);
		switch (id) {
		case ID_DONE:
			if (size < 8)
				return bad(c, opt, "DONE option of %llu bytes, expected 8",
					   (unsigned long long)size);
			*decl = data;
			return field(c, &pos, end, 8, "next options offset", "options section",
				     next);
		case ID_HEADER_INFO:
		case ID_FTRACE_EVENTS:
		case ID_EVENT_FORMATS:
		case ID_KALLSYMS:
		case ID_PRINTK:
		case ID_CMDLINES:
		case ID_BTF_FILE:
		case ID_MODULES_FILE: {
			char what[48];

			if (size < 8)
				return bad(c, opt, "%s option of %llu bytes, expected 8", name,
					   (unsigned long long)size);
			if (field(c, &pos, end, 8, "section offset", "options section", &v) < 0)
				return -1;
			snprintf(what, sizeof(what), "%s option", name);
			if (!target(c, data, v, (unsigned)id, what))
				return -1;
			break;
		}
		case ID_BUFFER:
		case ID_BUFFER_TEXT:
			if (buffer_v7(c, (unsigned)id, data, size) < 0)
				return -1;
			break;
		default:
			if (option_content(c, (unsigned)id, name, opt, data, size) < 0)
				return -1;
			break;
		}
		pos = data + size;
	}
}

/*
 * What the uncompressed header sections hold, as version 6 has it after its
 * header: every block inside its section. (A compressed section is not
 * looked into: libtracecmd decompresses it, and the supervisor of the import
 * contains what goes wrong there.)
 */
static int section_content(struct chk *c, unsigned id, uint64_t pos, uint64_t end,
			   const char *in)
{
	switch (id) {
	case ID_HEADER_INFO:
		return header_info(c, &pos, end, in);
	case ID_FTRACE_EVENTS:
		return ftrace_formats(c, &pos, end, in);
	case ID_EVENT_FORMATS:
		return event_formats(c, &pos, end, in);
	case ID_KALLSYMS:
		return sized(c, &pos, end, 4, "kallsyms", "kallsyms size", in);
	case ID_PRINTK:
		return sized(c, &pos, end, 4, "printk formats", "printk formats size", in);
	case ID_CMDLINES:
		return sized(c, &pos, end, 8, "saved command lines", "saved command lines size", in);
	default:
		return 0;
	}
}

/* A compressed header section: decompressed into as much as libtracecmd allows, then checked. */
static int inflated_section(struct chk *c, const struct section *s, const char *in)
{
	uint64_t cap = s->rsize > s->zsize ? s->rsize : s->zsize, len;
	unsigned char *buf;
	struct chk sub;
	int ret;

	if (inflate_at(c, s->off + 16 + 8, s->zsize, cap, in, &buf, &len) < 0)
		return -1;
	inflated_init(&sub, c, buf, len, in, s->off);
	ret = section_content(&sub, s->id, 0, len, in);
	c->lsize = sub.lsize;
	c->header_seen = sub.header_seen;
	free(buf);
	return ret;
}

static int section_contents(struct chk *c)
{
	for (size_t i = 0; i < c->nsec; i++) {
		const struct section *s = &c->sec[i];
		char in[48], nb[32];
		int ret;

		if (s->id < ID_HEADER_INFO || s->id > ID_CMDLINES)
			continue;
		snprintf(in, sizeof(in), "%s section", section_name(s->id, nb, sizeof(nb)));
		if (s->flags & SEC_FL_COMPRESS)
			ret = inflated_section(c, s, in);
		else
			ret = section_content(c, s->id, s->off + 16, s->off + 16 + s->size, in);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* Follow the options sections from the header's offset @first (declared at @decl). */
static int walk_options(struct chk *c, uint64_t first, uint64_t decl)
{
	const char *what = "the header's options offset";
	uint64_t next = first;

	if (!first)
		return bad(c, decl,
			   "the header's options offset is 0 (version 7 needs an options section)");
	for (;;) {
		struct section *s = target(c, decl, next, ID_DONE, what);

		if (!s)
			return -1;
		if (s->visited)
			return bad(c, decl,
				   "%s points back to the options section at offset %llu (a cycle)",
				   what, (unsigned long long)s->off);
		s->visited = true;
		if (s->flags & SEC_FL_COMPRESS)
			return 0;	/* its options cannot be read without decompressing */
		if (options_v7(c, s, &next, &decl) < 0)
			return -1;
		if (!next)
			return 0;
		what = "DONE option";
	}
}

static int check_v7(struct chk *c, uint64_t pos)
{
	char zname[MAX_NAME], zver[MAX_NAME];
	uint64_t decl, first, zname_at = pos;

	if (cstr(c, &pos, c->fsize, MAX_NAME, "compression name", NULL, zname, sizeof(zname)) < 0)
		return -1;
	if (!zname[0])
		return bad(c, pos - 1, "empty compression name");
	if (cstr(c, &pos, c->fsize, MAX_NAME, "compression version", NULL, zver, sizeof(zver)) < 0)
		return -1;
	c->compressed = strcmp(zname, "none") != 0;
	if (c->compressed) {
		if (strcmp(zname, "zstd") == 0)
			c->algo = ALGO_ZSTD;
		else if (strcmp(zname, "zlib") == 0)
			c->algo = ALGO_ZLIB;
		else
			return bad(c, zname_at, "compression '%s' is neither zstd nor zlib",
				   printable(zname));
	}
	decl = pos;
	if (field(c, &pos, c->fsize, 8, "options offset", NULL, &first) < 0)
		return -1;
	if (walk_sections(c, pos) < 0 || section_contents(c) < 0 ||
	    walk_options(c, first, decl) < 0)
		return -1;
	return check_descriptions(c);
}

/* ---- version 6 ---- */

/* Options after "options  \0", up to the id 0; instances are recorded when @top. */
static int options_v6(struct chk *c, uint64_t *pos, bool top, uint64_t *cpus)
{
	char nb[32];

	for (unsigned n = 0;; n++) {
		uint64_t opt = *pos, id, size, data, v;
		const char *name;

		if (n >= MAX_ITEMS)
			return bad(c, opt, "more than %u options", MAX_ITEMS);
		if (field(c, pos, c->fsize, 2, "option id", NULL, &id) < 0)
			return -1;
		if (id == ID_DONE)
			return 0;
		if (field(c, pos, c->fsize, 4, "option size", NULL, &size) < 0)
			return -1;
		data = *pos;
		name = option_name((unsigned)id, nb, sizeof(nb));
		if (!fits(c, data, size))
			return bad(c, opt,
				   "%s option of %llu bytes runs past the end of the file (%llu bytes)",
				   name, (unsigned long long)size, (unsigned long long)c->fsize);
		if (option_content(c, (unsigned)id, name, opt, data, size) < 0)
			return -1;
		switch (id) {
		case ID_CPUCOUNT:
			if (field(c, pos, c->fsize, 4, "cpu count", NULL, cpus) < 0)
				return -1;
			break;
		case ID_TRACECLOCK:
			if (top)
				c->clock_option = true;
			break;
		case ID_BUFFER: {
			char bname[MAX_NAME];
			uint64_t p = data, end = data + size;

			if (field(c, &p, end, 8, "buffer offset", "BUFFER option", &v) < 0 ||
			    cstr(c, &p, end, MAX_NAME, "instance name", "BUFFER option",
				 bname, sizeof(bname)) < 0)
				return -1;
			if (!top || !bname[0])
				break;	/* the top buffer: read in sequence */
			if (c->nbuf == MAX_V6_BUFFERS)
				return bad(c, opt, "more than %d buffer instances", MAX_V6_BUFFERS);
			c->buf[c->nbuf].field = data;
			c->buf[c->nbuf].off = v;
			snprintf(c->buf[c->nbuf].name, MAX_NAME, "%s", bname);
			c->nbuf++;
			break;
		}
		default:
			break;
		}
		*pos = data + size;
	}
}

/* The part from the options/latency/flyrecord marker at *@pos on. */
static int data_v6(struct chk *c, uint64_t pos, bool top, const char *buffer, uint64_t *cpusp)
{
	char kind[11] = "", what[32];
	uint64_t at = pos, cpus;

	for (int round = 0; round < 2; round++) {
		at = pos;
		if (!fits(c, pos, 10))
			return bad(c, pos,
				   "\"flyrecord\", \"latency\" or \"options\" runs past the end of the file (%llu bytes)",
				   (unsigned long long)c->fsize);
		if (get(c, pos, kind, 10) < 0)
			return -1;
		kind[10] = '\0';
		pos += 10;
		if (round == 0 && strncmp(kind, "options", 7) == 0) {
			if (options_v6(c, &pos, top, cpusp) < 0)
				return -1;
			continue;
		}
		break;
	}
	if (strncmp(kind, "latency", 7) == 0) {
		c->latency = true;
		return 0;	/* the rest of the file is text */
	}
	cpus = *cpusp;
	if (strncmp(kind, "flyrecord", 9) != 0)
		return bad(c, at, "expected \"flyrecord\" or \"latency\", found \"%s\"",
			   printable(kind));
	if (cpus > MAX_ITEMS || cpus > (c->fsize - pos) / 16)
		return bad(c, pos,
			   "offsets and sizes of %llu cpus cannot fit in the %llu bytes left in the file",
			   (unsigned long long)cpus, (unsigned long long)(c->fsize - pos));
	for (uint64_t cpu = 0; cpu < cpus; cpu++) {
		uint64_t entry = pos, off, size;

		if (field(c, &pos, c->fsize, 8, "cpu data offset", NULL, &off) < 0 ||
		    field(c, &pos, c->fsize, 8, "cpu data size", NULL, &size) < 0)
			return -1;
		if (size && !fits(c, off, size))
			return bad(c, entry,
				   "cpu %llu data (%llu bytes at offset %llu) runs past the end of the file (%llu bytes)",
				   (unsigned long long)cpu, (unsigned long long)size,
				   (unsigned long long)off, (unsigned long long)c->fsize);
		if (size && off % c->page_size)
			return bad(c, entry,
				   "cpu %llu data at offset %llu is not aligned to the page size (%u)",
				   (unsigned long long)cpu, (unsigned long long)off, c->page_size);
		snprintf(what, sizeof(what), "cpu %llu data", (unsigned long long)cpu);
		if (size && (cpu_pages(c, entry, off, size, c->page_size, what) < 0 ||
			     add_region(c, buffer, cpu, off, off + size, c->page_size, false) < 0))
			return -1;
	}
	if (top && c->clock_option)
		return sized(c, &pos, c->fsize, 8, "trace clock", "trace clock size", NULL);
	return 0;
}

static int check_v6(struct chk *c, uint64_t pos)
{
	uint64_t cpus;

	uint64_t end = c->fsize;

	if (header_info(c, &pos, end, NULL) < 0 || ftrace_formats(c, &pos, end, NULL) < 0 ||
	    event_formats(c, &pos, end, NULL) < 0 ||
	    sized(c, &pos, end, 4, "kallsyms", "kallsyms size", NULL) < 0 ||
	    sized(c, &pos, end, 4, "printk formats", "printk formats size", NULL) < 0 ||
	    sized(c, &pos, end, 8, "saved command lines", "saved command lines size", NULL) < 0 ||
	    field(c, &pos, end, 4, "cpu count", NULL, &cpus) < 0)
		return -1;
	/* a CPUCOUNT option overrides the header's count, for the instances too */
	if (data_v6(c, pos, true, "", &cpus) < 0)
		return -1;
	for (int i = 0; i < c->nbuf; i++) {
		uint64_t icpus = cpus;

		if (c->buf[i].off >= c->fsize)
			return bad(c, c->buf[i].field,
				   "BUFFER option points to offset %llu, past the end of the file (%llu bytes)",
				   (unsigned long long)c->buf[i].off, (unsigned long long)c->fsize);
		if (data_v6(c, c->buf[i].off, false, c->buf[i].name, &icpus) < 0)
			return -1;
	}
	return 0;
}

/* ---- both ---- */

static int check_file(struct chk *c)
{
	static const unsigned char magic[10] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g',
	};
	unsigned char b[10];
	char version[MAX_VERSION];
	size_t n = c->fsize < sizeof(magic) ? (size_t)c->fsize : sizeof(magic);
	uint64_t pos = sizeof(magic), v;

	if (!n)
		return bad(c, 0, "empty file, not a trace.dat file");
	if (get(c, 0, b, n) < 0)
		return -1;
	if (memcmp(b, magic, n) != 0)
		return bad(c, 0, "bad magic, not a trace.dat file");
	if (n < sizeof(magic))
		return past_end(c, 0, "magic");
	if (cstr(c, &pos, c->fsize, MAX_VERSION, "version string", NULL, version,
		 sizeof(version)) < 0)
		return -1;
	if (strcmp(version, "6") != 0 && strcmp(version, "7") != 0)
		return bad(c, sizeof(magic), "unsupported file version '%s'", printable(version));
	if (field(c, &pos, c->fsize, 1, "endian byte", NULL, &v) < 0)
		return -1;
	if (v > 1)
		return bad(c, pos - 1, "endian byte %llu, expected 0 (little) or 1 (big)",
			   (unsigned long long)v);
	c->big = v == 1;
	if (field(c, &pos, c->fsize, 1, "long size", NULL, &v) < 0)
		return -1;
	if (v != 4 && v != 8)
		return bad(c, pos - 1, "long size %llu, expected 4 or 8", (unsigned long long)v);
	if (field(c, &pos, c->fsize, 4, "page size", NULL, &v) < 0)
		return -1;
	if (v < 512 || v > MAX_PAGE || (v & (v - 1)))
		return bad(c, pos - 4, "page size %llu is not a power of two from 512 to 1 MiB",
			   (unsigned long long)v);
	c->page_size = (uint32_t)v;
	return version[0] == '7' ? check_v7(c, pos) : check_v6(c, pos);
}

int ra_tracedat_check(const char *path)
{
	return ra_tracedat_layout(path, NULL);
}

void ra_td_layout_free(struct ra_td_layout *lay)
{
	if (!lay)
		return;
	free(lay->r);
	memset(lay, 0, sizeof(*lay));
}

int64_t ra_td_inflate(enum ra_td_algo algo, const void *in, uint64_t n, void *out, uint64_t cap,
		      const char **why)
{
	return decompress(algo == RA_TD_ZLIB ? ALGO_ZLIB : ALGO_ZSTD, in, n, out, cap, why);
}

int ra_tracedat_layout(const char *path, struct ra_td_layout *lay)
{
	struct chk *c;
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ra_set_error(RA_ERR_USAGE, "'%s': cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		ra_set_error(RA_ERR_USAGE, "'%s': cannot stat: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		ra_set_error(RA_ERR_USAGE, "'%s': not a regular file", path);
		close(fd);
		return -1;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->win = malloc(WINDOW);
	if (!c || !c->win) {
		free(c);
		close(fd);
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	c->path = path;
	c->fd = fd;
	c->fsize = (uint64_t)st.st_size;
	if (lay) {
		memset(lay, 0, sizeof(*lay));
		c->lay = lay;
	}
	ret = check_file(c);
	if (lay) {
		lay->big = c->big;
		lay->lsize = c->lsize;
		lay->algo = c->algo == ALGO_ZSTD ? RA_TD_ZSTD : c->algo == ALGO_ZLIB ? RA_TD_ZLIB :
						RA_TD_NONE;
		if (ret != 0)
			ra_td_layout_free(lay);
	}
	if (ret == 0 && c->latency)
		ret = 1;
	free(c->win);
	free(c->sec);
	free(c);
	close(fd);
	return ret;
}
