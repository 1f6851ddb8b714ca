// SPDX-License-Identifier: LGPL-2.1
/*
 * Two sides' readahead windows compared in order: a recorded run and its
 * replay, or a replay and another run recorded at the replay's settings.
 * The windows of both sides are taken from their readahead events alike (a
 * trigger, then the window it opened; an order-0 fallback inside the window
 * it falls back from is not a window, docs/metrics.md) and met in order per
 * open file (the file, and a process number the caller gives): trigger
 * kind, page and pages asked, window start, size, async size, folio order
 * (where the event says it: kprobes do not) and the function that read it.
 *
 * Memory: per open file with windows of one side not yet met by the other,
 * those windows, at most QUEUE of each (past that the oldest counts as
 * unmatched); an open file whose windows all met holds only the order it
 * was first seen in (its windows' order at the end). Per file, its counts,
 * and its first difference where it has one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"

#define QUEUE 64		/* windows of one side waiting for the other's */
#define DIFF_LEN 176
#define TASK_SLOTS 1024	/* tasks of a side in memory (slots.c), about 90 KiB */

enum { TRIG_NONE, TRIG_SYNC, TRIG_ASYNC };

/* A window as its events describe it. */
struct win {
	uint8_t trig, order, kind;	/* kind: RA_EV_RA_ORDER or RA_EV_RA_UNBOUNDED */
	uint64_t tindex, treq, start;
	uint32_t size, async;
};

/* A ring of windows, grown up to QUEUE as they wait. */
struct queue {
	struct win *w;
	int head, n, cap;
};

/* An open file as the comparison keys it, the file and the process: made
 * when a window waits, freed when none does. */
struct ofile {
	int file;
	struct queue q[2];
};

/* What the map keeps of an open file: the order it was first seen in (that
 * of its windows left unmatched at the end), and its windows while some wait. */
struct oslot {
	struct ofile *of;
	uint64_t seq;
};

struct cfile {
	int64_t windows[2], exact;
	int32_t diff;			/* its first difference: diffs[diff - 1], 0 none */
};

/* A task's readahead events of one side, as they make windows. */
struct tside {
	struct win pending;		/* its trigger, waiting for the window */
	bool has_pending;
	bool last_order;		/* its latest window came from ra_order ... */
	uint32_t last_dev;		/* ... of this file and these pages */
	uint64_t last_ino, last_start, last_end;
};

struct ra_wincmp {
	bool no_order;			/* side 0's events do not say the folio order */
	struct ra_fileset files;
	struct cfile *cf;
	size_t capcf;
	struct ra_map ofiles_by_key;	/* (file, process) -> struct oslot */
	struct ra_map task_ids[2];	/* a side's tasks: pid + 1 -> id */
	struct ra_slots *tasks[2];	/* ... their records by id */
	uint64_t nof;			/* open files made */
	char (*diffs)[DIFF_LEN];
	size_t ndiffs, capdiffs;
	bool failed;			/* out of memory */
};

static void ofile_free(struct ofile *of)
{
	if (of) {
		free(of->q[0].w);
		free(of->q[1].w);
		free(of);
	}
}

struct ra_wincmp *ra_wincmp_alloc(void)
{
	struct ra_wincmp *c = calloc(1, sizeof(*c));

	if (!c || ra_fileset_init(&c->files) < 0 ||
	    ra_map_init(&c->ofiles_by_key, sizeof(struct oslot)) < 0 ||
	    ra_map_init(&c->task_ids[0], sizeof(int)) < 0 ||
	    ra_map_init(&c->task_ids[1], sizeof(int)) < 0 ||
	    !(c->tasks[0] = ra_slots_new("the recorded tasks' windows", sizeof(struct tside),
					 TASK_SLOTS)) ||
	    !(c->tasks[1] = ra_slots_new("the replayed tasks' windows", sizeof(struct tside),
					 TASK_SLOTS))) {
		ra_wincmp_free(c);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	return c;
}

void ra_wincmp_free(struct ra_wincmp *c)
{
	struct oslot *o;

	if (!c)
		return;
	ra_fileset_release(&c->files);
	for (size_t i = 0; c->ofiles_by_key.keys && i < c->ofiles_by_key.cap; i++)
		if ((o = ra_map_at(&c->ofiles_by_key, i)))
			ofile_free(o->of);
	ra_map_release(&c->ofiles_by_key);
	for (int side = 0; side < 2; side++) {
		ra_map_release(&c->task_ids[side]);
		ra_slots_free(c->tasks[side]);
	}
	ra_big_free(c->cf);
	free(c->diffs);
	free(c);
}

/* The open file of @file and process @who, made when new; NULL when out of memory. */
static uint64_t ofile_key(int file, int who)
{
	/* files numbered in a row, near in the map (pagemap.h) */
	return ((uint64_t)(uint32_t)who << 32 | (uint32_t)file) + 1;
}

static struct ofile *ofile_of(struct ra_wincmp *c, int file, int who)
{
	bool fresh;
	struct oslot *slot = ra_map_put(&c->ofiles_by_key, ofile_key(file, who), &fresh);

	if (!slot)
		return NULL;
	if (fresh)
		slot->seq = c->nof++;
	if (!slot->of && (slot->of = calloc(1, sizeof(*slot->of))))
		slot->of->file = file;
	return slot->of;
}

/* An open file none of whose windows waits: its windows' memory given back. */
static void ofile_done(struct ra_wincmp *c, struct ofile *of, int who)
{
	struct oslot *slot;

	if (of->q[0].n || of->q[1].n)
		return;
	slot = ra_map_get(&c->ofiles_by_key, ofile_key(of->file, who));
	if (slot)
		slot->of = NULL;
	ofile_free(of);
}

#define ORDER_UNKNOWN 0xff	/* a window whose event does not say its folio order (kprobes) */

static bool same(const struct ra_wincmp *c, const struct win *a, const struct win *b)
{
	return a->trig == b->trig && a->tindex == b->tindex && a->treq == b->treq &&
	       a->start == b->start && a->size == b->size && a->async == b->async &&
	       (a->order == b->order || a->order == ORDER_UNKNOWN ||
		b->order == ORDER_UNKNOWN || c->no_order) && a->kind == b->kind;
}

static void describe(char *buf, size_t len, const struct win *w)
{
	static const char *const trig[] = { "none", "sync", "async" };

	if (!w) {
		snprintf(buf, len, "nothing");
		return;
	}
	snprintf(buf, len, "%s %llu+%llu, %s %llu size %u async %u order %d", trig[w->trig],
		 (unsigned long long)w->tindex, (unsigned long long)w->treq,
		 w->kind == RA_EV_RA_ORDER ? "ra_order" : "ra_unbounded",
		 (unsigned long long)w->start, w->size, w->async,
		 w->order == ORDER_UNKNOWN ? -1 : w->order);
}

/* Windows @a (side 0) and @b (side 1) of one open file; either may be NULL. */
static void compare(struct ra_wincmp *c, const struct ofile *of, const struct win *a,
		    const struct win *b)
{
	struct cfile *f = &c->cf[of->file];
	char x[80], y[80];

	if (a && b && same(c, a, b)) {
		f->exact++;
		return;
	}
	if (f->diff)
		return;
	if (ra_grow((void **)&c->diffs, &c->capdiffs, c->ndiffs + 1, sizeof(*c->diffs)) < 0) {
		c->failed = true;
		return;
	}
	describe(x, sizeof(x), a);
	describe(y, sizeof(y), b);
	snprintf(c->diffs[c->ndiffs], sizeof(*c->diffs), "%s; against %s", x, y);
	f->diff = (int32_t)++c->ndiffs;
}

static struct win *queue_pop(struct queue *q)
{
	struct win *w = &q->w[q->head];

	q->head = (q->head + 1) % q->cap;
	q->n--;
	return w;
}

/* Room in the ring for one more window: 0, or -1 out of memory. */
static int queue_room(struct queue *q)
{
	struct win *w;
	int cap;

	if (q->n < q->cap)
		return 0;
	cap = q->cap ? q->cap * 2 : 4;
	if (!(w = malloc((size_t)cap * sizeof(*w))))
		return -1;
	for (int i = 0; i < q->n; i++)
		w[i] = q->w[(q->head + i) % q->cap];
	free(q->w);
	q->w = w;
	q->head = 0;
	q->cap = cap;
	return 0;
}

/* A window of side @side: met with the other side's oldest, else queued. */
static int add_window(struct ra_wincmp *c, struct ofile *of, int side, const struct win *w,
		      int who)
{
	struct queue *mine = &of->q[side], *other = &of->q[!side];

	c->cf[of->file].windows[side]++;
	if (other->n) {
		const struct win *o = queue_pop(other);

		compare(c, of, side == 0 ? w : o, side == 0 ? o : w);
		ofile_done(c, of, who);
		return 0;
	}
	if (mine->n == QUEUE) {	/* the other side is far behind: the oldest is unmatched */
		const struct win *old = queue_pop(mine);

		compare(c, of, side == 0 ? old : NULL, side == 0 ? NULL : old);
	}
	if (queue_room(mine) < 0)
		return -1;
	mine->w[(mine->head + mine->n++) % mine->cap] = *w;
	return 0;
}

/* The order-0 fallback of the task's ra_order window: inside it, right after it. */
static bool is_fallback(const struct tside *t, const struct ra_event *ev)
{
	return ev->type == RA_EV_RA_UNBOUNDED && t->last_order && t->last_dev == ev->ra.dev &&
	       t->last_ino == ev->ra.ino && ev->ra.index >= t->last_start &&
	       ev->ra.index < t->last_end;
}

static void take_window(struct tside *t, const struct ra_event *ev, struct win *w)
{
	*w = t->has_pending ? t->pending : (struct win){ .trig = TRIG_NONE };
	w->kind = (uint8_t)ev->type;
	w->start = ev->ra.index;
	w->size = ev->ra.size;
	w->async = ev->ra.async_size;
	w->order = ev->type != RA_EV_RA_ORDER ? 0 : ev->has_mask & RA_HAS_ORDER ?
		   (uint8_t)ev->ra.order : ORDER_UNKNOWN;
	t->has_pending = false;
	t->last_order = ev->type == RA_EV_RA_ORDER;
	t->last_dev = ev->ra.dev;
	t->last_ino = ev->ra.ino;
	t->last_start = ev->ra.index;
	t->last_end = ev->ra.index + ev->ra.size;
}

/* Task @pid of side @side, made when new; NULL on error. */
static struct tside *tside_of(struct ra_wincmp *c, int side, int pid)
{
	bool fresh;
	int id;

	return ra_slots_keyed(c->tasks[side], &c->task_ids[side], (uint64_t)(uint32_t)pid + 1,
			      &fresh, &id);
}

static int window_of(struct ra_wincmp *c, int side, const struct ra_event *ev, int who)
{
	bool fresh;
	struct tside *t = tside_of(c, side, ev->pid);
	struct ofile *of;
	struct win w;
	int file;

	if (!t)
		return -1;
	if (ev->type == RA_EV_SYNC_RA || ev->type == RA_EV_ASYNC_RA) {
		t->pending = (struct win){ .trig = ev->type == RA_EV_SYNC_RA ? TRIG_SYNC : TRIG_ASYNC,
					   .tindex = ev->ra.index, .treq = ev->ra.req_count };
		t->has_pending = true;
		return 0;
	}
	if (is_fallback(t, ev)) {
		t->last_order = false;
		return 0;
	}
	take_window(t, ev, &w);
	file = ra_fileset_index(&c->files, ev->ra.dev, ev->ra.ino, &fresh);
	if (file < 0 || ra_grow_big((void **)&c->cf, &c->capcf, (size_t)file + 1, sizeof(*c->cf)) < 0 ||
	    !(of = ofile_of(c, file, who)) || add_window(c, of, side, &w, who) < 0 || c->failed)
		return -1;
	return 0;
}

void ra_wincmp_no_order(struct ra_wincmp *c)
{
	c->no_order = true;
}

bool ra_wincmp_takes(const struct ra_event *ev)
{
	return (ev->type == RA_EV_SYNC_RA || ev->type == RA_EV_ASYNC_RA ||
		ev->type == RA_EV_RA_ORDER || ev->type == RA_EV_RA_UNBOUNDED) && ev->ra.dev;
}

int ra_wincmp_event(struct ra_wincmp *c, int side, const struct ra_event *ev, int who)
{
	if (!ra_wincmp_takes(ev))
		return 0;
	if (window_of(c, side, ev, who) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	const struct oslot *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

int ra_wincmp_end(struct ra_wincmp *c)
{
	struct ra_map *m = &c->ofiles_by_key;
	struct oslot *left, *o;
	size_t n = 0;

	for (size_t i = 0; i < m->cap; i++)
		n += (o = ra_map_at(m, i)) && o->of;
	if (!(left = malloc((n ? n : 1) * sizeof(*left)))) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	/* the windows still waiting, in the order their open files were first seen */
	n = 0;
	for (size_t i = 0; i < m->cap; i++)
		if ((o = ra_map_at(m, i)) && o->of) {
			left[n++] = *o;
			o->of = NULL;
		}
	qsort(left, n, sizeof(*left), by_seq);
	for (size_t i = 0; i < n; i++) {
		struct ofile *of = left[i].of;

		while (of->q[0].n)
			compare(c, of, queue_pop(&of->q[0]), NULL);
		while (of->q[1].n)
			compare(c, of, NULL, queue_pop(&of->q[1]));
		ofile_free(of);
	}
	free(left);
	if (c->failed) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	return 0;
}

bool ra_wincmp_windows(struct ra_wincmp *c, uint32_t dev, uint64_t ino)
{
	int i = ra_fileset_find(&c->files, dev, ino);

	return i >= 0 && (size_t)i < c->capcf && (c->cf[i].windows[0] || c->cf[i].windows[1]);
}

bool ra_wincmp_file(const struct ra_wincmp *c, size_t i, struct ra_wincmp_file *out)
{
	if (i >= c->files.n)
		return false;
	*out = (struct ra_wincmp_file){
		.dev = c->files.ids[i].dev, .ino = c->files.ids[i].ino,
		.windows = { c->cf[i].windows[0], c->cf[i].windows[1] }, .exact = c->cf[i].exact,
		.first_difference = c->cf[i].diff ? c->diffs[c->cf[i].diff - 1] : NULL,
	};
	return true;
}
