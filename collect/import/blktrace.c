// SPDX-License-Identifier: LGPL-2.1
/*
 * blktrace binary files: the per-CPU files blktrace writes (NAME.blktrace.N)
 * and blkparse -d dumps, read record by record and merged by time.
 *
 * A record is a fixed header in the byte order of the machine that recorded
 * it (48 bytes in version 7; 64 in version 8, which widened the action to 64
 * bits and moved it behind the pid) followed by pdu_len bytes of payload.
 * Magic, version, byte order and every length are checked against the file
 * before a byte of the record is used.
 *
 * Order: each file is read in file order and offers its next event; the
 * smallest time across the files goes first (ties: the earlier file). The
 * per-CPU files of blktrace are time-ordered, so the events come out in time
 * order. A blkparse -d dump is one stream, already sorted by blkparse, and is
 * passed on in file order, not re-sorted. Its notify records keep the raw
 * kernel time while the other records are relative to the first one, so
 * notify records (and records that are not stored) are handled as soon as
 * they are read and never take part in the merge.
 *
 * Times are passed on as the records hold them: kernel monotonic ns in the
 * per-CPU files, ns since the first record in a dump.
 */
#include <byteswap.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decode.h"
#include "import.h"

#define BT_MAGIC	0x65617400u
#define BT_MAGIC_MASK	0xffffff00u
#define BT_HDR_V7	48
#define BT_HDR_V8	64
#define BT_BUF_SIZE	(64 * 1024)

/* Categories (BLK_TC_*), stored in the action above BT_TC_SHIFT. */
#define BT_TC_SHIFT	16
#define BT_TC(cat)	((uint64_t)(cat) << BT_TC_SHIFT)
#define TC_WRITE	(1u << 1)
#define TC_FLUSH	(1u << 2)
#define TC_SYNC		(1u << 3)
#define TC_NOTIFY	(1u << 10)
#define TC_AHEAD	(1u << 11)
#define TC_META		(1u << 12)
#define TC_DISCARD	(1u << 13)
#define TC_FUA		(1u << 15)

/* Actions (__BLK_TA_*) and notes (__BLK_TN_*) in the low 16 bits. */
enum {
	TA_QUEUE = 1, TA_BACKMERGE, TA_FRONTMERGE, TA_GETRQ, TA_SLEEPRQ, TA_REQUEUE,
	TA_ISSUE, TA_COMPLETE, TA_PLUG, TA_UNPLUG_IO, TA_UNPLUG_TIMER, TA_INSERT,
	TA_SPLIT, TA_BOUNCE, TA_REMAP,
};
#define TA_ABORT	16
#define TA_DRV_DATA	17
#define TA_CGROUP	(1u << 8)	/* an 8-byte cgroup id leads the payload */
#define TN_PROCESS	0
#define TN_TIMESTAMP	1
#define TN_MESSAGE	2
#define BT_COUNTED	64		/* actions and notes counted each apart; the rest together */

static const uint16_t act_type[] = {
	[TA_QUEUE] = RA_EV_BIO_QUEUE,		[TA_BACKMERGE] = RA_EV_BIO_BACKMERGE,
	[TA_FRONTMERGE] = RA_EV_BIO_FRONTMERGE,	[TA_GETRQ] = RA_EV_GETRQ,
	[TA_SLEEPRQ] = RA_EV_SLEEPRQ,		[TA_REQUEUE] = RA_EV_RQ_REQUEUE,
	[TA_ISSUE] = RA_EV_RQ_ISSUE,		[TA_COMPLETE] = RA_EV_RQ_COMPLETE,
	[TA_PLUG] = RA_EV_PLUG,			[TA_UNPLUG_IO] = RA_EV_UNPLUG,
	[TA_UNPLUG_TIMER] = RA_EV_UNPLUG,	[TA_INSERT] = RA_EV_RQ_INSERT,
	[TA_SPLIT] = RA_EV_SPLIT,		[TA_BOUNCE] = RA_EV_BIO_BOUNCE,
	[TA_REMAP] = RA_EV_BIO_REMAP,
};

/* A record header in host order, whatever the version and byte order. */
struct bt_hdr {
	uint64_t time;
	uint64_t sector;
	uint64_t action;
	uint32_t bytes;
	uint32_t pid;
	uint32_t device;
	uint32_t cpu;
	uint16_t error;
	uint16_t pdu_len;
};

struct bt_file {
	const char *path;
	int fd;
	uint64_t size;		/* at open; nothing beyond it is read */
	uint64_t off;		/* file offset of the next record */
	uint64_t rec_off;	/* file offset of the record being decoded */
	unsigned char *buf;	/* buf[pos..len) holds the bytes from off on */
	size_t cap, len, pos;
	int version;		/* 0 until the first record is read */
	int swapped;
	size_t hdr_len;
	bool checked;		/* version and order compared with the other files */
	bool has_ev;		/* ev is the next event of this file */
	struct ra_event ev;
};

struct bt_replay {
	const struct ra_blktrace_cbs *cbs;
	struct ra_blktrace_stats *stats;
	struct bt_file *files;
	int nfiles;
	const char *first_path;	/* the file that set stats->version */
	uint64_t skipped_act[BT_COUNTED + 1];	/* records not stored, by action */
	uint64_t skipped_note[BT_COUNTED + 1];	/* notify records not used, by note */
};

static int bt_bad(const struct bt_file *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A data error at the current record of @f; returns -1. */
static int bt_bad(const struct bt_file *f, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ra_set_error(RA_ERR_DATA, "'%s': offset %llu: %s", f->path, (unsigned long long)f->rec_off,
		     msg);
	return -1;
}

int ra_blktrace_probe(const void *buf, size_t len)
{
	uint32_t raw, magic;
	int swapped;

	if (!buf || len < BT_HDR_V7)
		return 0;
	memcpy(&raw, buf, sizeof(raw));
	if ((raw & BT_MAGIC_MASK) == BT_MAGIC)
		swapped = 0;
	else if ((bswap_32(raw) & BT_MAGIC_MASK) == BT_MAGIC)
		swapped = 1;
	else
		return 0;
	magic = swapped ? bswap_32(raw) : raw;
	if ((magic & 0xff) == 7 || ((magic & 0xff) == 8 && len >= BT_HDR_V8))
		return swapped ? 2 : 1;
	return 0;
}

static int bt_open(struct bt_file *f, const char *path)
{
	struct stat st;

	f->path = path;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) < 0) {
		ra_set_error(RA_ERR_USAGE, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		ra_set_error(RA_ERR_USAGE, "'%s' is a directory, not a blktrace file", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		ra_set_error(RA_ERR_USAGE, "'%s' is not a regular file", path);
		return -1;
	}
	f->size = (uint64_t)st.st_size;
	f->cap = BT_BUF_SIZE;
	f->buf = malloc(f->cap);
	if (!f->buf) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	return 0;
}

static void bt_close(struct bt_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
}

/* Make @need bytes from f->off on contiguous at buf + pos; 0 or -1. */
static int bt_fill(struct bt_file *f, size_t need)
{
	ssize_t n;

	if (f->len - f->pos >= need)
		return 0;
	if (need > f->cap) {
		unsigned char *nbuf = realloc(f->buf, need);

		if (!nbuf) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		f->buf = nbuf;
		f->cap = need;
	}
	memmove(f->buf, f->buf + f->pos, f->len - f->pos);
	f->len -= f->pos;
	f->pos = 0;
	while (f->len < need) {
		n = read(f->fd, f->buf + f->len, f->cap - f->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ra_set_error(RA_ERR_IO, "cannot read '%s': %s", f->path, strerror(errno));
			return -1;
		}
		if (n == 0)	/* the file shrank since it was opened */
			return bt_bad(f, "unexpected end of file");
		f->len += (size_t)n;
	}
	return 0;
}

/* Byte order and version from the magic of a record; the first one sets them. */
static int bt_check_magic(struct bt_file *f, const unsigned char *p)
{
	uint32_t raw, magic, version;

	memcpy(&raw, p, sizeof(raw));
	if (!f->version)
		f->swapped = (raw & BT_MAGIC_MASK) != BT_MAGIC &&
			     (bswap_32(raw) & BT_MAGIC_MASK) == BT_MAGIC;
	magic = f->swapped ? bswap_32(raw) : raw;
	if ((magic & BT_MAGIC_MASK) != BT_MAGIC)
		return bt_bad(f, "bad magic 0x%08x%s", magic,
			      f->version ? "" : " (not a blktrace file)");
	version = magic & 0xff;
	if (version != 7 && version != 8)
		return bt_bad(f, "unsupported blktrace version %u", version);
	if (f->version && (int)version != f->version)
		return bt_bad(f, "version %u in a file of version %d", version, f->version);
	f->version = (int)version;
	f->hdr_len = version == 8 ? BT_HDR_V8 : BT_HDR_V7;
	return 0;
}

static uint16_t get16(const unsigned char *p, int swap)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_16(v) : v;
}

static uint32_t get32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_32(v) : v;
}

static uint64_t get64(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? bswap_64(v) : v;
}

/* Payloads of UNPLUG, SPLIT and REMAP are big-endian whatever the file's order. */
static uint64_t get_be64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static uint32_t get_be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static void bt_parse_header(const struct bt_file *f, const unsigned char *p, struct bt_hdr *h)
{
	int s = f->swapped;

	h->time = get64(p + 8, s);
	h->sector = get64(p + 16, s);
	h->bytes = get32(p + 24, s);
	if (f->version == 8) {
		h->pid = get32(p + 28, s);
		h->action = get64(p + 32, s);
		h->device = get32(p + 40, s);
		h->cpu = get32(p + 44, s);
		h->error = get16(p + 48, s);
		h->pdu_len = get16(p + 50, s);
	} else {
		h->action = get32(p + 28, s);
		h->pid = get32(p + 32, s);
		h->device = get32(p + 36, s);
		h->cpu = get32(p + 40, s);
		h->error = get16(p + 44, s);
		h->pdu_len = get16(p + 46, s);
	}
}

/*
 * Read the next record of @f: its header into @h, *@pdu pointing at its
 * pdu_len bytes of payload (valid until the next read). 1, 0 at the end, -1.
 */
static int bt_next_record(struct bt_file *f, struct bt_hdr *h, const unsigned char **pdu)
{
	uint64_t remain = f->size - f->off;
	size_t need = f->hdr_len ? f->hdr_len : BT_HDR_V7;

	f->rec_off = f->off;
	if (remain == 0)
		return 0;
	if (remain < sizeof(uint32_t))
		return bt_bad(f, "record header cut short (%llu of %zu bytes)",
			      (unsigned long long)remain, need);
	if (bt_fill(f, sizeof(uint32_t)) < 0 || bt_check_magic(f, f->buf + f->pos) < 0)
		return -1;
	if (remain < f->hdr_len)
		return bt_bad(f, "record header cut short (%llu of %zu bytes)",
			      (unsigned long long)remain, f->hdr_len);
	if (bt_fill(f, f->hdr_len) < 0)
		return -1;
	bt_parse_header(f, f->buf + f->pos, h);
	if (h->pdu_len > remain - f->hdr_len)
		return bt_bad(f, "pdu_len %u runs past the end of the file", h->pdu_len);
	if (bt_fill(f, f->hdr_len + h->pdu_len) < 0)
		return -1;
	*pdu = f->buf + f->pos + f->hdr_len;
	f->pos += f->hdr_len + h->pdu_len;
	f->off += f->hdr_len + h->pdu_len;
	return 1;
}

/* The files of one trace share version and byte order. */
static int bt_check_file(struct bt_replay *r, struct bt_file *f)
{
	struct ra_blktrace_stats *st = r->stats;

	f->checked = true;
	if (!r->first_path) {
		r->first_path = f->path;
		st->version = f->version;
		st->swapped = f->swapped;
		return 0;
	}
	if (f->version != st->version || f->swapped != st->swapped)
		return bt_bad(f, "version %d%s does not match version %d%s of '%s'", f->version,
			      f->swapped ? " (swapped)" : "", st->version,
			      st->swapped ? " (swapped)" : "", r->first_path);
	return 0;
}

/* Step over the cgroup id that leads the payload of cgroup-tagged records. */
static int bt_payload(const struct bt_file *f, const struct bt_hdr *h, const unsigned char **pdu,
		      size_t *len)
{
	*len = h->pdu_len;
	if (!(h->action & TA_CGROUP))
		return 0;
	if (*len < sizeof(uint64_t))
		return bt_bad(f, "pdu_len %u is too short for a cgroup id", h->pdu_len);
	*pdu += sizeof(uint64_t);
	*len -= sizeof(uint64_t);
	return 0;
}

static int bt_process(struct bt_replay *r, const struct bt_hdr *h, const unsigned char *pdu,
		      size_t len)
{
	char comm[16];
	size_t n = 0;

	while (n < len && n < sizeof(comm) - 1 && pdu[n])
		n++;
	memcpy(comm, pdu, n);
	comm[n] = '\0';
	if (r->cbs && r->cbs->task)
		r->cbs->task((int)h->pid, comm, r->cbs->arg);
	return 0;
}

/* The wall clock at the start of the trace: two u32 in the file's byte order. */
static int bt_timestamp(struct bt_replay *r, const struct bt_file *f, const unsigned char *pdu,
			size_t len)
{
	uint32_t sec;
	int32_t nsec;

	if (len < 2 * sizeof(uint32_t))
		return bt_bad(f, "timestamp pdu of %zu bytes, expected 8", len);
	sec = get32(pdu, f->swapped);
	nsec = (int32_t)get32(pdu + 4, f->swapped);
	if (r->stats->wall_start_ns < 0)
		r->stats->wall_start_ns = (int64_t)sec * 1000000000 + nsec;
	return 0;
}

static int bt_notify(struct bt_replay *r, const struct bt_file *f, const struct bt_hdr *h,
		     const unsigned char *pdu, size_t len)
{
	unsigned int note = (unsigned int)(h->action & 0xffff) & ~TA_CGROUP;

	r->stats->notify++;
	if (note == TN_PROCESS)
		return bt_process(r, h, pdu, len);
	if (note == TN_TIMESTAMP)
		return bt_timestamp(r, f, pdu, len);
	/* messages and unknown notes are counted only */
	r->skipped_note[note < BT_COUNTED ? note : BT_COUNTED]++;
	return 0;
}

/* rwbs as blkparse shows it: 'R' only for records that carry bytes. */
static void bt_fill_rwbs(char *rwbs, uint64_t action, uint32_t bytes)
{
	int i = 0;

	if (action & BT_TC(TC_FLUSH))
		rwbs[i++] = 'F';
	if (action & BT_TC(TC_DISCARD))
		rwbs[i++] = 'D';
	else if (action & BT_TC(TC_WRITE))
		rwbs[i++] = 'W';
	else if (bytes)
		rwbs[i++] = 'R';
	else
		rwbs[i++] = 'N';
	if (action & BT_TC(TC_FUA))
		rwbs[i++] = 'F';
	if (action & BT_TC(TC_AHEAD))
		rwbs[i++] = 'A';
	if (action & BT_TC(TC_SYNC))
		rwbs[i++] = 'S';
	if (action & BT_TC(TC_META))
		rwbs[i++] = 'M';
	rwbs[i] = '\0';
}

/* The payload fields of UNPLUG, SPLIT and REMAP; 0 or -1 when it is too short. */
static int bt_pdu_fields(const struct bt_file *f, unsigned int act, const unsigned char *pdu,
			 size_t len, struct ra_event *ev)
{
	const char *what = act == TA_REMAP ? "remap" : act == TA_SPLIT ? "split" : "unplug";
	size_t need = act == TA_REMAP ? 16 : 8;
	uint64_t nr;

	if (len < need)
		return bt_bad(f, "%s pdu of %zu bytes, expected %zu", what, len, need);
	if (act == TA_SPLIT) {
		ev->blk.new_sector = get_be64(pdu);
	} else if (act == TA_REMAP) {
		ev->blk.old_dev = get_be32(pdu);
		ev->blk.old_sector = get_be64(pdu + 8);
	} else {
		nr = get_be64(pdu);
		ev->blk.nr_rq = nr > INT32_MAX ? INT32_MAX : (int32_t)nr;
		ev->blk.explicit_unplug = act == TA_UNPLUG_IO;
		ev->has_mask |= RA_HAS_NR_RQ;
	}
	return 0;
}

/* Map a record to @ev: 1 mapped, 0 an action ratrace does not store, -1 error. */
static int bt_event(const struct bt_file *f, const struct bt_hdr *h, const unsigned char *pdu,
		    size_t len, struct ra_event *ev)
{
	unsigned int act = (unsigned int)(h->action & 0xffff) & ~TA_CGROUP;

	if (act >= sizeof(act_type) / sizeof(act_type[0]) || act_type[act] == RA_EV_NONE)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = h->time;
	ev->cpu = (int32_t)h->cpu;
	ev->pid = (int32_t)h->pid;
	ev->type = act_type[act];
	ev->has_mask = RA_HAS_BYTES;
	ev->blk.dev = h->device;
	ev->blk.sector = h->sector;
	ev->blk.nr_sector = h->bytes >> 9;
	ev->blk.bytes = h->bytes;
	bt_fill_rwbs(ev->blk.rwbs, h->action, h->bytes);
	if (act == TA_COMPLETE) {
		ev->blk.error = (int16_t)h->error;	/* the kernel stores -errno */
		ev->has_mask |= RA_HAS_ERROR;
	}
	if (act == TA_UNPLUG_IO || act == TA_UNPLUG_TIMER || act == TA_SPLIT || act == TA_REMAP)
		return bt_pdu_fields(f, act, pdu, len, ev) < 0 ? -1 : 1;
	return 1;
}

/* Decode one record; 1 when it became f->ev, 0 when it was consumed, -1 error. */
static int bt_decode(struct bt_replay *r, struct bt_file *f, const struct bt_hdr *h,
		     const unsigned char *pdu)
{
	size_t len;
	int ret;

	r->stats->records++;
	if (bt_payload(f, h, &pdu, &len) < 0)
		return -1;
	if (h->action & BT_TC(TC_NOTIFY))
		return bt_notify(r, f, h, pdu, len);
	ret = bt_event(f, h, pdu, len, &f->ev);
	if (ret == 0) {
		unsigned int act = (unsigned int)(h->action & 0xffff) & ~TA_CGROUP;

		r->stats->skipped++;
		r->skipped_act[act < BT_COUNTED ? act : BT_COUNTED]++;
	}
	return ret;
}

/* Read records of @f until one becomes its next event or the file ends; 0 or -1. */
static int bt_advance(struct bt_replay *r, struct bt_file *f)
{
	const unsigned char *pdu = NULL;
	struct bt_hdr h = { 0 };
	int ret;

	f->has_ev = false;
	for (;;) {
		ret = bt_next_record(f, &h, &pdu);
		if (ret <= 0)
			return ret;
		if (!f->checked && bt_check_file(r, f) < 0)
			return -1;
		ret = bt_decode(r, f, &h, pdu);
		if (ret < 0)
			return -1;
		if (ret > 0) {
			f->has_ev = true;
			return 0;
		}
	}
}

/* Pass on the earliest pending event until every file is done; 0 or -1. */
static int bt_merge(struct bt_replay *r)
{
	const struct ra_blktrace_cbs *cbs = r->cbs;
	struct bt_file *min;

	for (;;) {
		min = NULL;
		for (int i = 0; i < r->nfiles; i++)
			if (r->files[i].has_ev && (!min || r->files[i].ev.ts_ns < min->ev.ts_ns))
				min = &r->files[i];
		if (!min)
			return 0;
		r->stats->events++;
		if (cbs && cbs->event && cbs->event(&min->ev, cbs->arg) < 0)
			return -1;
		if (bt_advance(r, min) < 0)
			return -1;
	}
}

/* The names of the records not used, as blkparse calls them where it names them. */
static void bt_report_skipped(const struct bt_replay *r)
{
	char name[32];

	if (!r->cbs || !r->cbs->skipped)
		return;
	for (unsigned int i = 0; i <= BT_COUNTED; i++) {
		if (r->skipped_act[i]) {
			if (i == TA_ABORT || i == TA_DRV_DATA)
				snprintf(name, sizeof(name), "%s", i == TA_ABORT ? "abort" : "drv_data");
			else if (i < BT_COUNTED)
				snprintf(name, sizeof(name), "action %u", i);
			else
				snprintf(name, sizeof(name), "action %u or more", BT_COUNTED);
			r->cbs->skipped("blktrace", name, r->skipped_act[i], r->cbs->arg);
		}
		if (r->skipped_note[i]) {
			if (i == TN_MESSAGE)
				snprintf(name, sizeof(name), "message");
			else if (i < BT_COUNTED)
				snprintf(name, sizeof(name), "note %u", i);
			else
				snprintf(name, sizeof(name), "note %u or more", BT_COUNTED);
			r->cbs->skipped("blktrace", name, r->skipped_note[i], r->cbs->arg);
		}
	}
}

int ra_blktrace_replay(const char *const *paths, int npaths, const struct ra_blktrace_cbs *cbs,
		       struct ra_blktrace_stats *stats)
{
	struct ra_blktrace_stats local;
	struct bt_replay r = { .cbs = cbs, .stats = stats ? stats : &local };
	int ret = -1;

	memset(r.stats, 0, sizeof(*r.stats));
	r.stats->wall_start_ns = -1;
	if (!paths || npaths <= 0) {
		ra_set_error(RA_ERR_USAGE, "no blktrace files given");
		return -1;
	}
	r.files = calloc((size_t)npaths, sizeof(*r.files));
	if (!r.files) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	for (int i = 0; i < npaths; i++)
		r.files[i].fd = -1;
	r.nfiles = npaths;
	for (int i = 0; i < npaths; i++)
		if (bt_open(&r.files[i], paths[i]) < 0 || bt_advance(&r, &r.files[i]) < 0)
			goto out;
	ret = bt_merge(&r);
	if (ret == 0)
		bt_report_skipped(&r);
out:
	for (int i = 0; i < npaths; i++)
		bt_close(&r.files[i]);
	free(r.files);
	return ret;
}

/* ---- NAME -> NAME.blktrace.N ---- */

struct bt_name {
	unsigned long n;
	char *path;
};

static int bt_name_cmp(const void *a, const void *b)
{
	const struct bt_name *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n;
}

/* The N of "BASE.blktrace.N", or -1 when @entry is not such a name. */
static long bt_cpu_suffix(const char *entry, const char *base, size_t base_len)
{
	const char *p = entry + base_len;
	char *end;
	long n;

	if (strncmp(entry, base, base_len) != 0 || strncmp(p, ".blktrace.", 10) != 0)
		return -1;
	p += 10;
	if (*p < '0' || *p > '9' || strlen(p) > 6)
		return -1;
	n = strtol(p, &end, 10);
	return *end ? -1 : n;
}

static int bt_add_name(struct bt_name **names, int *n, int *cap, long cpu, const char *dir,
		       size_t dir_len, const char *entry)
{
	struct bt_name *nn;
	char *path;

	if (*n == *cap) {
		nn = realloc(*names, (size_t)(*cap ? *cap * 2 : 16) * sizeof(*nn));
		if (!nn)
			return -1;
		*names = nn;
		*cap = *cap ? *cap * 2 : 16;
	}
	if (asprintf(&path, "%.*s%s", (int)dir_len, dir, entry) < 0)
		return -1;
	(*names)[*n].n = (unsigned long)cpu;
	(*names)[*n].path = path;
	(*n)++;
	return 0;
}

static int bt_list_names(const char *name, struct bt_name **names, int *n)
{
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	size_t dir_len = slash ? (size_t)(slash - name) + 1 : 0;
	char *dir = slash ? strndup(name, dir_len) : strdup(".");
	struct dirent *de;
	DIR *d = NULL;
	int cap = 0, ret = -1;
	long cpu;

	if (!dir || !(d = opendir(dir))) {
		ra_set_error(RA_ERR_USAGE, "cannot list '%s': %s", dir ? dir : name,
			     strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		cpu = bt_cpu_suffix(de->d_name, base, strlen(base));
		if (cpu >= 0 && bt_add_name(names, n, &cap, cpu, name, dir_len, de->d_name) < 0) {
			ra_set_error(RA_ERR_IO, "out of memory");
			goto out;
		}
	}
	ret = 0;
out:
	if (d)
		closedir(d);
	free(dir);
	return ret;
}

int ra_blktrace_expand(const char *name, char ***paths)
{
	struct bt_name *names = NULL;
	char **out = NULL;
	int n = 0, ret = -1;

	*paths = NULL;
	if (bt_list_names(name, &names, &n) < 0)
		goto out;
	if (!n) {
		ra_set_error(RA_ERR_USAGE, "no blktrace files '%s.blktrace.N'", name);
		goto out;
	}
	out = calloc((size_t)n + 1, sizeof(*out));
	if (!out) {
		ra_set_error(RA_ERR_IO, "out of memory");
		goto out;
	}
	qsort(names, (size_t)n, sizeof(*names), bt_name_cmp);
	for (int i = 0; i < n; i++) {
		out[i] = names[i].path;
		names[i].path = NULL;
	}
	*paths = out;
	ret = n;
out:
	for (int i = 0; i < n; i++)
		free(names[i].path);
	free(names);
	return ret;
}

/* "dir/sda.blktrace.3" -> length of "dir/sda", else 0 */
size_t ra_blktrace_trace_name(const char *path)
{
	const char *p = strstr(path, ".blktrace.");
	const char *d;

	while (p && strstr(p + 1, ".blktrace."))
		p = strstr(p + 1, ".blktrace.");
	if (!p)
		return 0;
	d = p + strlen(".blktrace.");
	if (!*d || strspn(d, "0123456789") != strlen(d))
		return 0;
	return (size_t)(p - path);
}

int ra_blktrace_import(const char *const *paths, int npaths, const struct ra_import_sink *sink)
{
	struct ra_blktrace_cbs cbs = { .event = sink->event, .task = sink->task,
				       .skipped = sink->skipped, .arg = sink->arg };
	struct ra_run_info info = { .origin = "blktrace", .trace_clock = "blktrace" };
	struct ra_blktrace_stats st;
	int64_t run_id = sink->begin(sink->arg, &info);

	if (run_id < 0)
		return -1;
	if (ra_blktrace_replay(paths, npaths, &cbs, &st) < 0)
		return -1;
	if (sink->stored(sink->arg) == 0) {
		ra_set_error(RA_ERR_DATA, "'%s' holds no block I/O records", paths[0]);
		return -1;
	}
	if (st.wall_start_ns > 0 && ra_db_run_set_start(sink->db, run_id, st.wall_start_ns) < 0)
		return -1;
	return sink->end(sink->arg, run_id, NULL, NULL);
}
