// SPDX-License-Identifier: LGPL-2.1
/*
 * Records of fixed size by id, for a pass that keeps one per window: at most
 * a set number in memory, the least recently used of them (a clock) written
 * to a temporary file (tmpfile.c) to make room, and read back when the pass
 * asks for it again. The memory stays what the set holds, whatever the
 * run's length; a run that needs no more never writes one.
 *
 * Record i is at i times the file's stride, behind a word that says whether
 * it was written and kept; the records written out in order of their ids
 * (as a clock gives them, roughly) go through a buffer of WBUF records, one
 * write of many. A record is written as it is in memory: it may hold
 * pointers to constant strings, as the file lives only as long as the pass.
 *
 * A pass whose records end as rows of its own can keep them as they are
 * written out (ra_slots_keep): a record whose final row is stored then is
 * not given again at the end, unless it changes after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"

#define PINNED 4
/* Records of the write buffer, and bytes of a read of the file at the end. */
#define WBUF 256
#define SCAN_BYTES (256 << 10)

/* A record's word in the file: never written (a hole reads 0), written, kept. */
enum { F_NONE, F_LEFT, F_KEPT };

struct ra_slots {
	char name[48];
	size_t size;			/* of a record */
	size_t stride;			/* of a slot: the id, the clock's bit, the record */
	size_t fstride;			/* of a record in the file: its word, the record */
	char *mem;
	int n, max, hand;
	int pinned[PINNED];		/* the slots given last, a ring: not taken */
	int npinned;
	struct ra_map at;		/* id + 1 -> slot */
	struct ra_tmpfile tmp;
	char *wbuf;			/* records wfirst.. wfirst + WBUF - 1, where present */
	int64_t wfirst;
	uint64_t wpresent[WBUF / 64];
	char *one;			/* a record as the file holds it, read or written alone */
	int64_t fend;			/* records the file spans */
	int (*keep)(int64_t id, void *rec, void *arg);
	void *keep_arg;
	int64_t made;			/* ids below it were made */
	int64_t last_id[2];		/* the records given last, in slots last_slot, or -1 */
	int last_slot[2];
	bool spilled, failed;
};

struct slot_head {
	int64_t id;
	bool ref;			/* used since the clock's hand last passed */
	bool dirty;			/* changed since the file's copy (or new) */
};

#define HEAD(s, i) ((struct slot_head *)((s)->mem + (size_t)(i) * (s)->stride))
#define REC(s, i) ((void *)((s)->mem + (size_t)(i) * (s)->stride + sizeof(struct slot_head)))
#define FWORD 8

struct ra_slots *ra_slots_new(const char *name, size_t size, int max)
{
	struct ra_slots *s = calloc(1, sizeof(*s));

	if (!s || ra_map_init(&s->at, sizeof(int)) < 0) {
		free(s);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->size = size;
	s->stride = (sizeof(struct slot_head) + size + 7) & ~(size_t)7;
	s->fstride = FWORD + ((size + 7) & ~(size_t)7);
	s->max = max > PINNED ? max : PINNED + 1;
	s->last_id[0] = s->last_id[1] = -1;
	if (!(s->one = calloc(1, s->fstride))) {
		ra_map_release(&s->at);
		free(s);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	ra_tmpfile_init(&s->tmp);
	return s;
}

void ra_slots_free(struct ra_slots *s)
{
	if (!s)
		return;
	ra_tmpfile_close(&s->tmp);
	free(s->wbuf);
	free(s->one);
	free(s->mem);
	ra_map_release(&s->at);
	free(s);
}

void ra_slots_detach(struct ra_slots *s)
{
	if (s)
		s->failed = true;	/* its file is closed when it is freed */
}

bool ra_slots_failed(const struct ra_slots *s)
{
	return s->failed;
}

bool ra_slots_spilled(const struct ra_slots *s)
{
	return s->spilled;
}

static char *wslot(const struct ra_slots *s, int64_t id)
{
	return s->wbuf + (size_t)(id - s->wfirst) * s->fstride;
}

static bool buffered(const struct ra_slots *s, int64_t id)
{
	return s->wbuf && id >= s->wfirst && id < s->wfirst + WBUF &&
	       s->wpresent[(id - s->wfirst) / 64] >> ((id - s->wfirst) % 64) & 1;
}

static int file_io(struct ra_slots *s, bool out, void *buf, int64_t id, int64_t n)
{
	if (ra_tmpfile_io(&s->tmp, out, buf, (size_t)n * s->fstride,
			  (off_t)id * (off_t)s->fstride) < 0) {
		s->failed = true;
		return -1;
	}
	if (out && id + n > s->fend)
		s->fend = id + n;
	return 0;
}

/* The write buffer's records to the file, a write per run of present ones. */
static int flush(struct ra_slots *s)
{
	for (int i = 0; i < WBUF;) {
		int j = i;

		while (j < WBUF && s->wpresent[j / 64] >> (j % 64) & 1)
			j++;
		if (j > i && file_io(s, true, wslot(s, s->wfirst + i), s->wfirst + i, j - i) < 0)
			return -1;
		i = j + 1;
	}
	memset(s->wpresent, 0, sizeof(s->wpresent));
	return 0;
}

/* Record @id, @kept or not, from @rec to the file: through the buffer when its
 * id is in the buffer's span or after it, else at once. */
static int write_rec(struct ra_slots *s, int64_t id, const void *rec, bool kept)
{
	char *w;

	if (!s->wbuf) {
		if (!(s->wbuf = malloc(WBUF * s->fstride))) {
			s->failed = true;
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		s->wfirst = id;
	}
	if (id >= s->wfirst + WBUF) {
		if (flush(s) < 0)
			return -1;
		s->wfirst = id;
	}
	/* behind the buffer: written alone, at once */
	w = id < s->wfirst ? s->one : wslot(s, id);
	memset(w, 0, s->fstride);
	w[0] = kept ? F_KEPT : F_LEFT;
	memcpy(w + FWORD, rec, s->size);
	if (w == s->one)
		return file_io(s, true, w, id, 1);
	s->wpresent[(id - s->wfirst) / 64] |= 1ULL << ((id - s->wfirst) % 64);
	return 0;
}

static int slot_out(struct ra_slots *s, int slot)
{
	int kept = 0;

	if (ra_tmpfile_open(&s->tmp) < 0) {
		s->failed = true;
		return -1;
	}
	s->spilled = true;
	if (s->keep && (kept = s->keep(HEAD(s, slot)->id, REC(s, slot), s->keep_arg)) < 0)
		return -1;
	return write_rec(s, HEAD(s, slot)->id, REC(s, slot), kept > 0);
}

void ra_slots_keep(struct ra_slots *s, int (*keep)(int64_t id, void *rec, void *arg),
		   void *arg)
{
	s->keep = keep;
	s->keep_arg = arg;
}

static int not_kept(const struct ra_slots *s, int64_t id)
{
	ra_set_error(RA_ERR_IO, "record %lld of %s was not kept", (long long)id, s->name);
	return -1;
}

/*
 * @fn on the file's records in id order (after the buffer is written): those
 * not kept and not in memory when @left_only, else every one (each must have
 * been written). Each is read into a buffer of the scan.
 */
static int file_each(struct ra_slots *s, bool left_only,
		     int (*fn)(int64_t id, void *rec, void *arg), void *arg)
{
	int64_t per = SCAN_BYTES / (int64_t)s->fstride, end;
	char *buf;
	int ret = 0;

	if (per < 1)
		per = 1;
	if (flush(s) < 0)
		return -1;
	end = left_only ? s->fend : s->made;
	if (!(buf = malloc((size_t)per * s->fstride))) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	for (int64_t id = 0; id < end && ret == 0; id += per) {
		int64_t n = end - id < per ? end - id : per, in_file = s->fend - id;

		/* a span past the file's end reads as records never written */
		in_file = in_file < 0 ? 0 : in_file < n ? in_file : n;
		memset(buf + (size_t)in_file * s->fstride, 0, (size_t)(n - in_file) * s->fstride);
		if (in_file && file_io(s, false, buf, id, in_file) < 0) {
			ret = -1;
			break;
		}
		for (int64_t k = 0; k < n && ret == 0; k++) {
			char *r = buf + (size_t)k * s->fstride;

			if (left_only && (r[0] != F_LEFT || ra_map_get(&s->at, (uint64_t)(id + k) + 1)))
				continue;
			if (r[0] == F_NONE)
				ret = not_kept(s, id + k);
			else
				ret = fn(id + k, r + FWORD, arg);
		}
	}
	free(buf);
	return ret;
}

static bool pinned(const struct ra_slots *s, int slot)
{
	for (int i = 0; i < PINNED && i < s->npinned; i++)
		if (s->pinned[i] == slot)
			return true;
	return false;
}

static void pin(struct ra_slots *s, int slot)
{
	HEAD(s, slot)->ref = true;
	s->pinned[s->npinned++ % PINNED] = slot;
}

/* A free slot: a new one up to the set's size, then the clock's choice, written out. */
static int slot_take(struct ra_slots *s)
{
	if (s->n < s->max) {
		/*
		 * Room for the whole set at once, so that a record never moves
		 * while the set fills (a pointer given holds until evicted); the
		 * pages are the kernel's until a slot is first used.
		 */
		if (!s->mem && !(s->mem = malloc((size_t)s->max * s->stride))) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		return s->n++;
	}
	for (;;) {
		int slot = s->hand;

		s->hand = (s->hand + 1) % s->n;
		if (pinned(s, slot))
			continue;
		if (HEAD(s, slot)->ref) {
			HEAD(s, slot)->ref = false;
			continue;
		}
		if (HEAD(s, slot)->dirty && slot_out(s, slot) < 0)
			return -1;
		ra_map_del(&s->at, (uint64_t)HEAD(s, slot)->id + 1);
		for (int i = 0; i < 2; i++)
			if (slot == s->last_slot[i])
				s->last_id[i] = -1;
		return slot;
	}
}

/* Record @id in @slot is the one given last. */
static void remember(struct ra_slots *s, int64_t id, int slot)
{
	s->last_id[1] = s->last_id[0];
	s->last_slot[1] = s->last_slot[0];
	s->last_id[0] = id;
	s->last_slot[0] = slot;
}

static int slot_map(struct ra_slots *s, int slot, int64_t id)
{
	bool fresh;
	int *at = ra_map_put(&s->at, (uint64_t)id + 1, &fresh);

	if (!at) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	*at = slot;
	HEAD(s, slot)->id = id;
	pin(s, slot);
	remember(s, id, slot);
	return 0;
}

void *ra_slots_make(struct ra_slots *s, int64_t id)
{
	int slot;

	if (id != s->made) {
		ra_set_error(RA_ERR_USAGE, "record %lld of %s made out of order", (long long)id,
			     s->name);
		s->failed = true;
		return NULL;
	}
	slot = slot_take(s);
	if (slot < 0 || slot_map(s, slot, id) < 0) {
		s->failed = true;
		return NULL;
	}
	s->made++;
	HEAD(s, slot)->dirty = true;
	memset(REC(s, slot), 0, s->size);
	return REC(s, slot);
}

static void *lookup(struct ra_slots *s, int64_t id, bool change)
{
	const int *at;
	const char *r = NULL;
	int slot;

	/* one of the last two records again: a pass's common case */
	if (id >= 0 && (id == s->last_id[0] || id == s->last_id[1])) {
		slot = s->last_slot[id == s->last_id[0] ? 0 : 1];
		if (id != s->last_id[0])
			remember(s, id, slot);
		pin(s, slot);
		HEAD(s, slot)->dirty |= change;
		return REC(s, slot);
	}
	if ((at = ra_map_get(&s->at, (uint64_t)id + 1))) {
		pin(s, *at);
		HEAD(s, *at)->dirty |= change;
		remember(s, id, *at);
		return REC(s, *at);
	}
	if (id < 0 || id >= s->made)
		return NULL;
	/* made, not in memory: written out */
	slot = s->spilled ? slot_take(s) : -1;
	if (slot < 0)
		goto fail;
	if (buffered(s, id))
		r = wslot(s, id);
	else if (id < s->fend && file_io(s, false, s->one, id, 1) == 0)
		r = s->one;
	else if (id < s->fend)
		goto fail;
	if (!r || r[0] == F_NONE) {
		not_kept(s, id);
		goto fail;
	}
	memcpy(REC(s, slot), r + FWORD, s->size);
	if (slot_map(s, slot, id) < 0)
		goto fail;
	HEAD(s, slot)->dirty = change;
	return REC(s, slot);
fail:
	s->failed = true;
	return NULL;
}

void *ra_slots_get(struct ra_slots *s, int64_t id)
{
	return lookup(s, id, true);
}

void *ra_slots_keyed(struct ra_slots *s, struct ra_map *ids, uint64_t key, bool *fresh, int *id)
{
	int *at = ra_map_put(ids, key, fresh);
	void *rec;

	if (!at) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	if (!*fresh) {
		*id = *at;
		return ra_slots_get(s, *at);
	}
	*id = *at = (int)s->made;
	if (!(rec = ra_slots_make(s, s->made)))
		ra_map_del(ids, key);
	return rec;
}

const void *ra_slots_peek(struct ra_slots *s, int64_t id)
{
	return lookup(s, id, false);
}

int ra_slots_each(struct ra_slots *s, int (*fn)(int64_t id, void *rec, void *arg), void *arg)
{
	int ret = 0;

	if (!s->spilled) {	/* slot i holds record i */
		for (int i = 0; i < s->n && ret == 0; i++)
			ret = fn(HEAD(s, i)->id, REC(s, i), arg);
		return ret;
	}
	if (s->keep) {
		/* the records not kept (those in memory have newer copies), then
		 * those in memory; the slots stay as they are */
		ret = file_each(s, true, fn, arg);
		for (int i = 0; i < s->n && ret == 0; i++)
			ret = fn(HEAD(s, i)->id, REC(s, i), arg);
		return ret;
	}
	for (int i = 0; i < s->n && ret == 0; i++)
		if (HEAD(s, i)->dirty && ra_map_get(&s->at, (uint64_t)HEAD(s, i)->id + 1))
			ret = slot_out(s, i);
	if (ret == 0)
		ret = file_each(s, false, fn, arg);
	/* every record is in the file now: the slots are free */
	for (int i = 0; i < s->n; i++)
		ra_map_del(&s->at, (uint64_t)HEAD(s, i)->id + 1);
	s->n = s->npinned = s->hand = 0;
	s->last_id[0] = s->last_id[1] = -1;
	return ret;
}
