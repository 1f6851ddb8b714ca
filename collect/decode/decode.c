// SPDX-License-Identifier: LGPL-2.1
/*
 * The one decoder: tracepoint records (live ring buffer or trace.dat) into
 * struct ra_event, through the format files that came with the records.
 * Field offsets and sizes always come from the formats, never from here.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode.h"
#include "ra_evcols.h"

#define MAX_FIELDS 12
#define MAX_EVENT_ID 65535	/* a record names its event in a u16 (common_type) */

/* a tracepoint's field and the event column it goes to (NULL: the task's name) */
struct field_spec {
	const char *name;
	const struct ra_evcol *col;
};

#define RA(c, n)	{ n, &ra_evcols_ra[RA_RA_##c] }
#define PG(c, n)	{ n, &ra_evcols_page[RA_PAGE_##c] }
#define BL(c, n)	{ n, &ra_evcols_blk[RA_BLK_##c] }
#define COMM		{ "comm", NULL }

static const struct field_spec trigger_fields[] = {
	RA(INO, "i_ino"), RA(DEV, "s_dev"), RA(INDEX, "index"), RA(ORDER, "order"),
	RA(SIZE, "size"), RA(ASYNC, "async_size"), RA(RA_PAGES, "ra_pages"),
	RA(MMAP_MISS, "mmap_miss"), RA(PREV_POS, "prev_pos"),
	RA(REQ_COUNT, "req_count"), { 0 }
};

static const struct field_spec order_fields[] = {
	RA(INO, "i_ino"), RA(DEV, "s_dev"), RA(INDEX, "index"), RA(ORDER, "order"),
	RA(SIZE, "size"), RA(ASYNC, "async_size"), RA(RA_PAGES, "ra_pages"), { 0 }
};

static const struct field_spec unbounded_fields[] = {
	RA(INO, "i_ino"), RA(DEV, "s_dev"), RA(INDEX, "index"), RA(SIZE, "nr_to_read"),
	RA(ASYNC, "lookahead_size"), { 0 }
};

/* the byte range goes to prev_pos (offset) and req_count (length) until advice_range() */
static const struct field_spec fadvise_fields[] = {
	RA(PREV_POS, "offset"), RA(REQ_COUNT, "len"), RA(SIZE, "advice"), { 0 }
};

static const struct field_spec sys_readahead_fields[] = {
	RA(PREV_POS, "offset"), RA(REQ_COUNT, "count"), { 0 }
};

/* an address range: the start address goes to prev_pos as fadvise's offset does */
static const struct field_spec madvise_fields[] = {
	RA(PREV_POS, "start"), RA(REQ_COUNT, "len_in"), RA(REQ_COUNT, "len"),
	RA(SIZE, "behavior"), { 0 }
};

static const struct field_spec cache_fields[] = {
	PG(PFN, "pfn"), PG(INO, "i_ino"), PG(INDEX, "index"),
	PG(DEV, "s_dev"), PG(ORDER, "order"), { 0 }
};

static const struct field_spec range_fields[] = {
	PG(INO, "i_ino"), PG(DEV, "s_dev"), PG(INDEX, "index"),
	PG(LAST_INDEX, "last_index"), { 0 }
};

static const struct field_spec bio_fields[] = {
	BL(DEV, "dev"), BL(SECTOR, "sector"), BL(NR_SECTOR, "nr_sector"),
	BL(ERROR, "error"), BL(RWBS, "rwbs"), COMM, { 0 }
};

static const struct field_spec rq_fields[] = {
	BL(DEV, "dev"), BL(SECTOR, "sector"), BL(NR_SECTOR, "nr_sector"),
	BL(BYTES, "bytes"), BL(ERROR, "error"), BL(RWBS, "rwbs"), COMM, { 0 }
};

static const struct field_spec plug_fields[] = {
	BL(NR_RQ, "nr_rq"), COMM, { 0 }
};

static const struct field_spec split_fields[] = {
	BL(DEV, "dev"), BL(SECTOR, "sector"), BL(NEW_SECTOR, "new_sector"), BL(RWBS, "rwbs"), COMM,
	{ 0 }
};

static const struct field_spec remap_fields[] = {
	BL(DEV, "dev"), BL(SECTOR, "sector"), BL(NR_SECTOR, "nr_sector"),
	BL(OLD_DEV, "old_dev"), BL(OLD_SECTOR, "old_sector"), BL(RWBS, "rwbs"), { 0 }
};

/* dynamic events: read(2)'s start (pos in page.index, already in page.last_index) and return */
static const struct field_spec read_fields[] = {
	PG(INO, "i_ino"), PG(DEV, "s_dev"), PG(INDEX, "pos"),
	PG(LAST_INDEX, "already"), { 0 }
};

static const struct field_spec ret_fields[] = { PG(INDEX, "ret"), { 0 } };

static const struct field_spec *const type_fields[RA_EV_MAX] = {
	[RA_EV_SYNC_RA] = trigger_fields,	[RA_EV_ASYNC_RA] = trigger_fields,
	[RA_EV_RA_ORDER] = order_fields,	[RA_EV_RA_UNBOUNDED] = unbounded_fields,
	[RA_EV_FADVISE] = fadvise_fields,	[RA_EV_SYS_READAHEAD] = sys_readahead_fields,
	[RA_EV_MADVISE] = madvise_fields,
	[RA_EV_PAGE_ADD] = cache_fields,	[RA_EV_PAGE_DELETE] = cache_fields,
	[RA_EV_GET_PAGES] = range_fields,	[RA_EV_FAULT] = range_fields,
	[RA_EV_MAP_PAGES] = range_fields,	[RA_EV_BIO_QUEUE] = bio_fields,
	[RA_EV_BIO_BACKMERGE] = bio_fields,	[RA_EV_BIO_FRONTMERGE] = bio_fields,
	[RA_EV_BIO_COMPLETE] = bio_fields,	[RA_EV_BIO_REMAP] = remap_fields,
	[RA_EV_BIO_BOUNCE] = bio_fields,	[RA_EV_GETRQ] = bio_fields,
	[RA_EV_RQ_INSERT] = rq_fields,		[RA_EV_RQ_ISSUE] = rq_fields,
	[RA_EV_RQ_MERGE] = rq_fields,		[RA_EV_RQ_COMPLETE] = rq_fields,
	[RA_EV_RQ_REQUEUE] = rq_fields,		[RA_EV_RQ_REMAP] = remap_fields,
	[RA_EV_RQ_ERROR] = rq_fields,		[RA_EV_PLUG] = plug_fields,
	[RA_EV_UNPLUG] = plug_fields,		[RA_EV_SPLIT] = split_fields,
};

struct dec_field {
	struct tep_format_field *f;
	const struct field_spec *spec;
};

/* The self-check's and read(2)'s state of one task. */
struct dyn_task {
	uint64_t key;			/* the pid + 1; 0: a free slot */
	int depth;			/* readahead calls it is in */
	bool have_win, have_read, have_map;
	uint32_t win_dev, read_dev, map_dev;
	uint64_t win_ino, win_start, win_end;
	uint64_t read_ino, read_pos, read_already;
	uint64_t map_ino, map_start, map_end, map_ptes;
};

struct dec_event {
	int type;
	int kind;
	bool dynamic;
	int nfields;
	unsigned short has;	/* flags of the optional fields this kernel has */
	struct dec_field fields[MAX_FIELDS];
};

struct ra_decoder {
	struct tep_handle *tep;
	int max_id;
	int common_end;			/* a record holds at least the common fields read */
	/* where libtraceevent reads a record's event id and pid (the common
	 * fields of the lowest event id), size 0 when it cannot */
	int type_off, type_size, pid_off, pid_size;
	bool swap;			/* the file's byte order is not this machine's */
	struct dec_event **by_id;	/* indexed by the trace's event id */
	uint64_t *skipped;		/* by event id: records not stored */
	uint64_t skipped_unknown;	/* records of ids the formats do not describe */
	bool present[RA_EV_MAX];
	bool dynamic[RA_EV_MAX];	/* from a dynamic event */
	bool any_dynamic;		/* the formats hold a dynamic event */
	struct dyn_task *tasks;		/* open addressing by pid */
	size_t ntasks, cap;
	struct ra_selfcheck check;
	int side;			/* RA_SIDE_*: which source of an event twice recorded */
	/* task:task_newtask, given to a hook (ra_decoder_on_newtask) */
	int newtask_id;			/* -1: not in the formats */
	struct tep_format_field *newtask_pid, *newtask_flags;
	ra_newtask_fn newtask_fn;
	void *newtask_arg;
};

static struct dec_event *resolve_event(struct tep_event *te, int type, int kind)
{
	struct dec_event *de = calloc(1, sizeof(*de));
	const struct field_spec *spec = type_fields[type];

	if (!de)
		return NULL;
	de->type = type;
	de->kind = kind;
	if (kind == RA_DK_READ)
		spec = read_fields;
	else if (kind == RA_DK_READ_RET)
		spec = ret_fields;
	else if (kind != RA_DK_NONE && kind != RA_DK_MAP)
		spec = NULL;
	for (const struct field_spec *s = spec; s && s->name; s++) {
		struct tep_format_field *f = tep_find_field(te, s->name);

		/* a field a damaged format puts before the record is not there */
		if (!f || f->offset < 0 || f->size <= 0 || de->nfields == MAX_FIELDS)
			continue;
		de->fields[de->nfields].f = f;
		de->fields[de->nfields].spec = s;
		de->nfields++;
		de->has |= s->col ? s->col->has : 0;
	}
	return de;
}

/*
 * Where the common fields that libtraceevent reads from every record (the
 * event id and the pid) end: a shorter record cannot be decoded. It reads
 * them where the format of the lowest event id has them; when that format
 * puts one before the record or makes it longer than a number, no record can
 * be decoded (INT_MAX).
 */
static int common_end(struct tep_event **events, int n)
{
	static const char *const names[] = { "common_type", "common_pid" };
	int end = 0;

	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			struct tep_format_field *f = tep_find_common_field(events[i], names[j]);
			bool sound = f && f->offset >= 0 && f->size > 0 && f->size <= 8 &&
				     f->offset <= INT_MAX - 8;

			if (!sound && f && events[i]->id == events[0]->id)
				return INT_MAX;
			if (sound && f->offset + f->size > end)
				end = f->offset + f->size;
		}
	}
	return end;
}

/* Where the common field @name of the lowest event id is (tep_data_type()'s). */
static void common_at(struct tep_event **events, int n, const char *name, int *off, int *size)
{
	struct tep_format_field *f = n > 0 ? tep_find_common_field(events[0], name) : NULL;

	*off = f ? f->offset : 0;
	*size = f ? f->size : 0;
}

/*
 * A number of @size bytes of the record, as tep_read_number() reads it (0 for
 * a size other than 1, 2, 4 or 8), without a call into the library for each
 * field of each record.
 */
static inline uint64_t read_number(const struct ra_decoder *dec, const void *p, int size)
{
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		memcpy(&v2, p, 2);
		return dec->swap ? __builtin_bswap16(v2) : v2;
	case 4:
		memcpy(&v4, p, 4);
		return dec->swap ? __builtin_bswap32(v4) : v4;
	case 8:
		memcpy(&v8, p, 8);
		return dec->swap ? __builtin_bswap64(v8) : v8;
	default:
		return 0;
	}
}

/* The record's common field at @off (@size 0: none; tep_data_type() and tep_data_pid() say -1). */
static inline int common_number(const struct ra_decoder *dec, const struct tep_record *rec,
				int off, int size)
{
	return size ? (int)read_number(dec, (const char *)rec->data + off, size) : -1;
}

/* Events a record can name: ids from 0 to MAX_EVENT_ID (a damaged format may say more). */
static bool indexable(const struct tep_event *te)
{
	return te->id >= 0 && te->id <= MAX_EVENT_ID;
}

struct ra_decoder *ra_decoder_alloc(struct tep_handle *tep, ra_dyn_lookup_fn dyn_lookup)
{
	struct ra_decoder *dec = calloc(1, sizeof(*dec));
	struct tep_event **events;
	int n;

	if (!dec)
		goto nomem;
	dec->tep = tep;
	dec->newtask_id = -1;
	n = tep_get_events_count(tep);
	events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	if (!events)
		n = 0;
	for (int i = 0; i < n; i++)
		if (indexable(events[i]) && events[i]->id > dec->max_id)
			dec->max_id = events[i]->id;
	dec->common_end = common_end(events, n);
	common_at(events, n, "common_type", &dec->type_off, &dec->type_size);
	common_at(events, n, "common_pid", &dec->pid_off, &dec->pid_size);
	dec->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	dec->by_id = calloc((size_t)dec->max_id + 1, sizeof(*dec->by_id));
	dec->skipped = calloc((size_t)dec->max_id + 1, sizeof(*dec->skipped));
	if (!dec->by_id || !dec->skipped)
		goto nomem;
	for (int i = 0; i < n; i++) {
		int type = ra_event_lookup(events[i]->system, events[i]->name), kind = RA_DK_NONE;
		bool dyn = false;

		if (type == RA_EV_NONE && dyn_lookup &&
		    dyn_lookup(events[i]->system, events[i]->name, &type, &kind))
			dyn = true;
		/* of two formats with one id (a damaged file), the first counts */
		if ((type == RA_EV_NONE && kind == RA_DK_NONE) || (type && !type_fields[type]) ||
		    !indexable(events[i]) || dec->by_id[events[i]->id])
			continue;
		dec->by_id[events[i]->id] = resolve_event(events[i], type, kind);
		if (!dec->by_id[events[i]->id])
			goto nomem;
		dec->by_id[events[i]->id]->dynamic = dyn;
		dec->any_dynamic |= dyn;
		if (type && (kind == RA_DK_NONE || kind == RA_DK_READ_RET || kind == RA_DK_MAP_RET)) {
			dec->present[type] = true;
			dec->dynamic[type] |= dyn;
		}
	}
	return dec;
nomem:
	ra_decoder_free(dec);
	ra_set_error(RA_ERR_IO, "out of memory");
	return NULL;
}

void ra_decoder_free(struct ra_decoder *dec)
{
	if (!dec)
		return;
	for (int i = 0; dec->by_id && i <= dec->max_id; i++)
		free(dec->by_id[i]);
	free(dec->by_id);
	free(dec->skipped);
	free(dec->tasks);
	free(dec);
}

bool ra_decoder_has(struct ra_decoder *dec, int type)
{
	return type > 0 && type < RA_EV_MAX && dec->present[type];
}

void ra_decoder_side(struct ra_decoder *dec, int side)
{
	dec->side = side;
	free(dec->tasks);
	dec->tasks = NULL;
	dec->ntasks = dec->cap = 0;
	memset(&dec->check, 0, sizeof(dec->check));
	memset(dec->skipped, 0, ((size_t)dec->max_id + 1) * sizeof(*dec->skipped));
	dec->skipped_unknown = 0;
}

bool ra_decoder_dynamic(struct ra_decoder *dec, int type)
{
	return type > 0 && type < RA_EV_MAX && dec->dynamic[type];
}

void ra_decoder_selfcheck(struct ra_decoder *dec, struct ra_selfcheck *out)
{
	*out = dec->check;
}

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

/*
 * The state of task @pid; made when new if @create, else NULL for a task
 * without one. NULL also when out of memory.
 */
static struct dyn_task *task_get(struct ra_decoder *dec, int pid, bool create)
{
	uint64_t key = (uint64_t)(uint32_t)pid + 1;	/* 0 marks a free slot */
	size_t h;

	if (dec->cap) {
		for (h = slot_of(key, dec->cap); dec->tasks[h].key; h = (h + 1) & (dec->cap - 1))
			if (dec->tasks[h].key == key)
				return &dec->tasks[h];
	}
	if (!create)
		return NULL;
	if (dec->ntasks * 2 >= dec->cap) {
		size_t ncap = dec->cap ? dec->cap * 2 : 64;
		struct dyn_task *nt = calloc(ncap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < dec->cap; i++) {
			if (!dec->tasks[i].key)
				continue;
			for (h = slot_of(dec->tasks[i].key, ncap); nt[h].key; h = (h + 1) & (ncap - 1))
				;
			nt[h] = dec->tasks[i];
		}
		free(dec->tasks);
		dec->tasks = nt;
		dec->cap = ncap;
	}
	for (h = slot_of(key, dec->cap); dec->tasks[h].key; h = (h + 1) & (dec->cap - 1))
		;
	dec->tasks[h].key = key;
	dec->ntasks++;
	return &dec->tasks[h];
}

/*
 * The self-check of the dynamic readahead events: every page the page cache
 * gains while a task is inside a readahead call must lie in the window that
 * call opened. A window whose start, size or file were read wrongly, or a
 * window function that ran without its probe firing (inlined, renamed),
 * shows as pages outside.
 */
static void check_event(struct ra_decoder *dec, const struct dec_event *de, struct ra_event *ev)
{
	struct dyn_task *t;

	/* a task's state begins with a readahead call: additions and returns only look */
	t = task_get(dec, ev->pid, de->kind == RA_DK_CALL || (de->kind == RA_DK_NONE &&
						       de->type != RA_EV_PAGE_ADD));
	if (!t)
		return;
	switch (de->kind) {
	case RA_DK_CALL:
		t->depth++;
		t->have_win = false;
		return;
	case RA_DK_RET:
		if (t->depth > 0 && --t->depth == 0)
			t->have_win = false;
		return;
	case RA_DK_READ:
	case RA_DK_READ_RET:
	case RA_DK_MAP:
	case RA_DK_MAP_PTE:
	case RA_DK_MAP_RET:
		return;
	}
	switch (de->type) {
	case RA_EV_SYNC_RA:
	case RA_EV_ASYNC_RA:
		t->depth = 1;	/* outermost: a return missed before does not count on */
		t->have_win = false;
		break;
	case RA_EV_RA_ORDER:
	case RA_EV_RA_UNBOUNDED: {
		uint64_t end = ev->ra.index + ev->ra.size;
		bool inside = t->have_win && t->win_dev == ev->ra.dev && t->win_ino == ev->ra.ino &&
			      ev->ra.index >= t->win_start && ev->ra.index < t->win_end;

		t->depth++;
		dec->check.windows++;
		if (inside) {	/* the fallback of the window it is in */
			if (end > t->win_end)
				t->win_end = end;
			break;
		}
		t->have_win = true;
		t->win_dev = ev->ra.dev;
		t->win_ino = ev->ra.ino;
		t->win_start = ev->ra.index;
		t->win_end = end;
		break;
	}
	case RA_EV_PAGE_ADD: {
		uint64_t n = ev->has_mask & RA_HAS_ORDER && ev->page.order < 20 ?
			     1ULL << ev->page.order : 1;

		if (t->depth <= 0)
			break;
		if (t->have_win && (t->win_dev != ev->page.dev || t->win_ino != ev->page.ino)) {
			dec->check.other_files += n;	/* metadata read for the file */
			break;
		}
		dec->check.pages += n;
		if (!t->have_win || ev->page.index < t->win_start ||
		    ev->page.index + n > t->win_end) {
			dec->check.outside += n;
			if (!dec->check.first_ts)
				dec->check.first_ts = ev->ts_ns;
		}
		break;
	}
	}
}

/* fault-around by dynamic events: its range at its return, when it mapped a page */
static int map_event(struct ra_decoder *dec, const struct dec_event *de, struct ra_event *ev)
{
	struct dyn_task *t = task_get(dec, ev->pid, de->kind == RA_DK_MAP);

	if (!t)
		return 0;
	if (de->kind == RA_DK_MAP) {
		t->have_map = true;
		t->map_ino = ev->page.ino;
		t->map_dev = ev->page.dev;
		t->map_start = ev->page.index;
		t->map_end = ev->page.last_index;
		t->map_ptes = 0;
		return 0;
	}
	if (de->kind == RA_DK_MAP_PTE) {
		t->map_ptes += t->have_map;
		return 0;
	}
	if (!t->have_map || !t->map_ptes) {
		t->have_map = false;
		return 0;
	}
	t->have_map = false;
	ev->page.ino = t->map_ino;
	ev->page.dev = t->map_dev;
	ev->page.index = t->map_start;
	ev->page.last_index = t->map_end;
	ev->has_mask = RA_HAS_LAST_INDEX;
	return 1;
}

/* read(2) by a dynamic event: kept at its start, given as the pages read at its return */
static int read_event(struct ra_decoder *dec, const struct dec_event *de, struct ra_event *ev)
{
	uint64_t ps = tep_get_page_size(dec->tep) > 0 ? (uint64_t)tep_get_page_size(dec->tep) : 4096;
	struct dyn_task *t = task_get(dec, ev->pid, de->kind == RA_DK_READ);
	int64_t ret, already;

	if (!t)
		return 0;
	if (de->kind == RA_DK_READ) {
		t->have_read = true;
		t->read_ino = ev->page.ino;
		t->read_dev = ev->page.dev;
		t->read_pos = ev->page.index;
		t->read_already = ev->page.last_index;
		return 0;
	}
	/* what it read: its return less what it had read before; nothing on an error */
	ret = (int64_t)ev->page.index;
	already = (int64_t)t->read_already;
	if (!t->have_read || ret <= 0 || already < 0 || ret <= already ||
	    t->read_pos > UINT64_MAX - (uint64_t)(ret - already)) {
		t->have_read = false;
		return 0;
	}
	t->have_read = false;
	ev->page.ino = t->read_ino;
	ev->page.dev = t->read_dev;
	ev->page.index = t->read_pos / ps;
	ev->page.last_index = (t->read_pos + (uint64_t)(ret - already) - 1) / ps;
	ev->has_mask = RA_HAS_LAST_INDEX;
	return 1;
}

/* a text field into @dst of @cap bytes, cut to fit and ended */
static void store_string(char *dst, size_t cap, const struct tep_format_field *f, const char *data,
			 int data_size)
{
	int n = f->size < (int)cap - 1 ? f->size : (int)cap - 1;

	if (f->offset >= data_size)
		n = 0;
	else if (n > data_size - f->offset)
		n = data_size - f->offset;
	memcpy(dst, data + f->offset, (size_t)n);
	dst[n] = '\0';
}

#define POSIX_FADV_WILLNEED 3
#define MADV_WILLNEED 3

/*
 * A WILLNEED call's byte range (of the file; of the address space for
 * madvise) as the pages it covers; other advice is not kept.
 */
static int advice_range(struct ra_decoder *dec, struct ra_event *ev)
{
	uint64_t ps = tep_get_page_size(dec->tep) > 0 ? (uint64_t)tep_get_page_size(dec->tep) : 4096;
	uint64_t off = (uint64_t)ev->ra.prev_pos, len = ev->ra.req_count;

	if (ev->type == RA_EV_FADVISE && ev->ra.size != POSIX_FADV_WILLNEED)
		return 0;
	if (ev->type == RA_EV_MADVISE && ev->ra.size != MADV_WILLNEED)
		return 0;
	ev->ra.index = off / ps;
	ev->ra.req_count = len ? (off + len + ps - 1) / ps - ev->ra.index : 0;
	ev->ra.prev_pos = 0;
	ev->ra.size = 0;
	return 1;
}

void ra_decoder_on_newtask(struct ra_decoder *dec, ra_newtask_fn fn, void *arg)
{
	struct tep_event *te = fn ? tep_find_event_by_name(dec->tep, "task", "task_newtask") : NULL;

	dec->newtask_id = -1;
	dec->newtask_fn = NULL;
	if (!te)
		return;
	dec->newtask_pid = tep_find_field(te, "pid");
	dec->newtask_flags = tep_find_field(te, "clone_flags");
	if (!dec->newtask_pid || !dec->newtask_flags || dec->newtask_pid->size > 8 ||
	    dec->newtask_flags->size > 8)
		return;
	dec->newtask_id = te->id;
	dec->newtask_fn = fn;
	dec->newtask_arg = arg;
}

/* A task made: to the hook, not stored (nor counted among those skipped). */
static void newtask(struct ra_decoder *dec, struct tep_record *rec)
{
	const struct tep_format_field *p = dec->newtask_pid, *f = dec->newtask_flags;
	const char *data = rec->data;

	if (p->offset > rec->size || p->size > rec->size - p->offset ||
	    f->offset > rec->size || f->size > rec->size - f->offset)
		return;
	dec->newtask_fn(common_number(dec, rec, dec->pid_off, dec->pid_size),
			(int)read_number(dec, data + p->offset, p->size),
			read_number(dec, data + f->offset, f->size), dec->newtask_arg);
}

int ra_decode(struct ra_decoder *dec, struct tep_record *rec, struct ra_event *ev)
{
	const char *data = rec->data;
	struct dec_event *de;
	int id;

	if (rec->size < dec->common_end) {
		dec->skipped_unknown++;	/* too short to say what it is */
		return 0;
	}
	id = common_number(dec, rec, dec->type_off, dec->type_size);
	if (id == dec->newtask_id && id >= 0) {
		newtask(dec, rec);
		return 0;
	}
	if (id < 0 || id > dec->max_id) {
		dec->skipped_unknown++;
		return 0;
	}
	de = dec->by_id[id];
	if (!de) {
		dec->skipped[id]++;
		return 0;
	}
	/* an event recorded from both sources: the side asked for only */
	if ((dec->side == RA_SIDE_TRACEPOINT && de->dynamic) ||
	    (dec->side == RA_SIDE_DYNAMIC && !de->dynamic && de->type &&
	     dec->dynamic[de->type]))
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->type = (uint16_t)(de->type ? de->type : RA_EV_NONE);
	ev->ts_ns = rec->ts;
	ev->cpu = rec->cpu;
	ev->pid = common_number(dec, rec, dec->pid_off, dec->pid_size);
	ev->has_mask = de->has;
	if (de->type == RA_EV_UNPLUG)
		ev->blk.explicit_unplug = -1;
	for (int i = 0; i < de->nfields; i++) {
		struct tep_format_field *f = de->fields[i].f;
		const struct field_spec *s = de->fields[i].spec;

		if (!s->col || s->col->size > sizeof(int64_t)) {
			store_string(s->col ? (char *)ev + s->col->off : ev->comm,
				     s->col ? s->col->size : sizeof(ev->comm), f, data, rec->size);
			continue;
		}
		if (f->offset > rec->size || f->size > rec->size - f->offset)
			continue;
		ra_evcol_set(ev, s->col, (int64_t)read_number(dec, data + f->offset, f->size));
	}
	if (de->dynamic || (de->type == RA_EV_PAGE_ADD && dec->any_dynamic))
		check_event(dec, de, ev);
	if (de->kind == RA_DK_READ || de->kind == RA_DK_READ_RET)
		return read_event(dec, de, ev);
	if (de->kind == RA_DK_MAP || de->kind == RA_DK_MAP_PTE || de->kind == RA_DK_MAP_RET)
		return map_event(dec, de, ev);
	if (de->kind != RA_DK_NONE)
		return 0;
	if (de->type == RA_EV_FADVISE || de->type == RA_EV_SYS_READAHEAD ||
	    de->type == RA_EV_MADVISE) {
		if (advice_range(dec, ev))
			return 1;
		dec->skipped[id]++;	/* advice other than WILLNEED */
		return 0;
	}
	return 1;
}

uint64_t ra_decoder_skipped(struct ra_decoder *dec, ra_skipped_cb cb, void *arg)
{
	uint64_t total = dec->skipped_unknown;

	for (int id = 0; id <= dec->max_id; id++) {
		struct tep_event *te;

		if (!dec->skipped[id])
			continue;
		total += dec->skipped[id];
		te = tep_find_event(dec->tep, id);
		if (te && cb)
			cb(te->system, te->name, dec->skipped[id], arg);
		else if (cb)
			cb("unknown", "unknown event", dec->skipped[id], arg);
	}
	if (dec->skipped_unknown && cb)
		cb("unknown", "unknown event", dec->skipped_unknown, arg);
	return total;
}
