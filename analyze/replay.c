// SPDX-License-Identifier: LGPL-2.1
/*
 * The replay of a recorded run (replay.h): its accesses rebuilt from the
 * events, and given in order to the model of the kernel (replay_kernel.c).
 *
 * - A read() is the mm_filemap_get_pages events of one task and file with
 *   one last page and rising first pages, replayed whole: at its trigger
 *   when the run shows one (the read waits for its I/O after it, and other
 *   readers of the file go on), else at its first event; the kernel's
 *   batches at another readahead size are others. Its byte position comes
 *   from the trigger's prev_pos (exact from 6.18) or from the read before;
 *   a read that shows only its tail (its first batch met a folio under
 *   I/O) is read from where the one before ended. The trigger's prev_pos
 *   also tells which of a process's descriptors it went through.
 * - A touch of a mapping is its fault-around range and the fault after it,
 *   replayed at the task's next access: the readahead events that follow a
 *   fault tell how the mapping was advised (MADV_SEQUENTIAL, MADV_RANDOM).
 *   A toucher going page by page touched the pages fault-around mapped for
 *   it, though the run shows no event of them.
 * - A WILLNEED call names no file: the forced window its task opens next
 *   does (docs/metrics.md, "WILLNEED calls").
 * - The run's own windows are never copied: its triggers give only what the
 *   accesses do not (byte positions, descriptors, ra_pages, the advice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "ra_bigmem.h"
#include "ra_db.h"
#include "replay_local.h"

/* A trigger of the run, waiting for the access it belongs to. */
struct hint {
	bool valid;
	int type;
	struct rp_file *f;
	uint64_t index, req;
	int64_t prev_pos;
	bool has_prev;
	uint32_t size, async_size;	/* the state of the descriptor it came from */
	uint32_t ra_pages;
};

/* The descriptors of one process on one file the replay keeps apart */
#define DESCS 4

/* A touch of a mapping: fault-around over [a, b], then a fault. */
struct touch {
	bool valid, has_range, has_fault;
	bool rec_major;			/* the run did not have the page cached */
	bool rec_ra;			/* the run read ahead for it */
	bool after;			/* it came page by page after the task's touch before */
	struct rp_ofile *of;
	uint64_t a, b, page, ts;	/* page: the one touched (the fault's, if any) */
};

/* A WILLNEED call waiting for the forced window that names its file. */
struct call {
	bool valid;
	int type;
	uint64_t index, nr, ts;
};

/* A read() whose trigger the run showed, replayed once its readahead's events are in */
struct pend_read {
	bool valid;
	struct rp_ofile *of;
	struct hint h;
	uint64_t first, last, ts;
};

struct rp_task {
	int pid, tgid;
	bool reading;			/* the read() of its latest get_pages */
	bool early;			/* replayed at its trigger: its first get_pages to come */
	struct rp_ofile *read_of;
	uint64_t read_first, read_idx, read_last;
	bool batch_cut;			/* its latest batch ended at a mark (an async trigger) */
	struct hint sync, async;
	struct touch touch;
	struct pend_read pend;
	bool listed;			/* in the replay's waiting tasks */
	struct rp_ofile *last_of;	/* its touch before: the page and how far the */
	uint64_t last_page, last_reach;	/* run's fault-around mapped from its block */
	bool sequential;		/* its latest touch came page by page after that */
	struct call call;
	bool call_tied;			/* the call's forced window met: its chunks follow */
	struct rp_file *in_ra;		/* its latest event was readahead of this file */
};

/*
 * A task in memory: at most p.tasks_held of them (TASKS_HELD by default),
 * the least recently used of the others written to a temporary file, task
 * i at i times its size, and read back when an event of it comes. What a
 * task points to (open files, files) lives as long as the replay. Tasks
 * waiting to be replayed (listed) stay in memory.
 */
struct rp_held {
	struct rp_task t;		/* first: a task's address is its holder's */
	int64_t fid;			/* its place in the file, -1 none yet */
	size_t at;			/* in the replay's held */
	bool ref;			/* asked since the clock's hand last passed */
};

#define TASKS_HELD 1024

/* The map's value of a task: in memory, or at fid in the file */
struct tref {
	struct rp_held *h;
	int64_t fid;
};

/* A file, and its number among the replay's files. */
struct rp_fent {
	struct rp_file f;
	uint32_t num;
};

struct ra_replay {
	struct ra_replay_params p;
	struct rp_kernel k;
	struct ra_map files;		/* hash of (dev, ino) -> struct rp_fent * */
	struct rp_fent *last_fe;	/* the file found last: most events are of it */
	struct rp_chunks chunks;	/* the files' pages (replay_store.c) */
	struct ra_map tasks;		/* pid + 1 -> struct tref */
	struct rp_held *near[4];	/* tasks asked last, by pid & 3, while in memory */
	struct rp_held **held;		/* the tasks in memory */
	size_t nheld, capheld, hand, max_held;
	struct ra_tmpfile tfile;	/* the others */
	int64_t nfid;
	struct rp_fent **all;		/* every file, by number (big memory) */
	size_t nall, capall;
	struct ra_pool fents;		/* the files' records */
	struct ra_slab ofiles;		/* their open files */
	/* (file number, tgid) -> the first struct rp_ofile * of a process on a
	 * file: the others follow it (next). A file many processes read is
	 * not walked for one's descriptors. */
	struct ra_map descs;
	struct {			/* the processes' files asked last, by tgid & 3 */
		const struct rp_fent *fe;
		int tgid;
		struct rp_ofile *first;
	} near_desc[4];
	struct rp_task **waiting;	/* the tasks with a touch or a read not yet replayed */
	size_t nwaiting, capwaiting;
	uint64_t clock;			/* the open files' use, in order */
	bool scanned;			/* the first pass ran (ra_replay_scan) */
	bool started;			/* the replay began: the first pass is over */
};

static const struct {
	int major, minor;
	const char *name;
} series_table[RA_KS_N] = {
	[RA_KS_6_1] = { 6, 1, "6.1" },	 [RA_KS_6_12] = { 6, 12, "6.12" },
	[RA_KS_6_16] = { 6, 16, "6.16" }, [RA_KS_6_17] = { 6, 17, "6.17" },
	[RA_KS_6_18] = { 6, 18, "6.18" }, [RA_KS_7_2] = { 7, 2, "7.2" },
};

int ra_kseries_of(const char *release)
{
	char *end;
	long major, minor;
	int s;

	if (!release || *release < '0' || *release > '9')
		return -1;
	major = strtol(release, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	minor = strtol(end + 1, &end, 10);
	for (s = RA_KS_N - 1; s >= 0; s--)
		if (major > series_table[s].major ||
		    (major == series_table[s].major && minor >= series_table[s].minor))
			return s;
	return -1;
}

const char *ra_kseries_name(int series)
{
	return series >= 0 && series < RA_KS_N ? series_table[series].name : NULL;
}

static int oom(void)
{
	ra_set_error(RA_ERR_IO, "out of memory");
	return -1;
}

/* ---- files, open files, tasks ---- */

/*
 * Which folio orders the file system gives files in this series: xfs
 * always, ext4 from 6.16, btrfs from 7.2 (64 blocks; before, only with
 * CONFIG_BTRFS_EXPERIMENTAL, which Debian leaves off), up to the PMD's 9
 */
static void file_folios(const struct ra_replay *r, struct rp_file *f)
{
	int s = r->k.series;

	f->large = false;
	f->max_order = 0;
	/* a file system the run does not name (an imported trace): large folios
	 * when the run added some, the PMD's order at most */
	if (!*f->fstype) {
		f->large = f->large_seen;
		f->max_order = f->large_seen ? RP_MAX_ORDER : 0;
		return;
	}
	if (!strcmp(f->fstype, "xfs") || (!strcmp(f->fstype, "ext4") && s >= RA_KS_6_16)) {
		f->large = true;
		f->max_order = RP_MAX_ORDER;
	} else if (!strcmp(f->fstype, "btrfs") && s >= RA_KS_7_2) {
		f->large = true;
		f->max_order = 6;	/* BTRFS_MAX_FOLIO_ORDER with 4 KiB blocks */
	}
}

/* What the run says of the file: its size, file system and bdi */
static void file_info(struct ra_replay *r, struct rp_file *f)
{
	struct ra_replay_file info = { .size_bytes = -1 };

	f->info_asked = true;
	if (!r->p.file || r->p.file(f->dev, f->ino, &info, r->p.arg) < 0) {
		f->doubts |= RA_DOUBT_UNKNOWN;
		info.size_bytes = -1;
		info.fstype = NULL;
	}
	f->size = info.size_bytes;
	snprintf(f->fstype, sizeof(f->fstype), "%s", info.fstype ? info.fstype : "");
	f->ra_pages = info.ra_pages;
	/* io_pages not known: the block layer's default max_sectors_kb, 1280 */
	f->io_pages = info.io_pages ? info.io_pages : 320;
	/* btrfs reads through a bdi of its own, whose io_pages no queue ever sets */
	if (!strcmp(f->fstype, "btrfs"))
		f->io_pages = 32;
	if (f->size < 0 || !info.fstype || !info.io_pages)
		f->doubts |= RA_DOUBT_UNKNOWN;
	file_folios(r, f);
}

static uint64_t file_key(uint32_t dev, uint64_t ino)
{
	return ((uint64_t)dev << 32) ^ ino ^ (ino >> 32 << 12) ^ 1;
}

static struct rp_fent *fent_new(struct ra_replay *r, uint32_t dev, uint64_t ino)
{
	struct rp_fent *fe;

	if (r->nall >= RP_FILES_MAX) {
		ra_set_error(RA_ERR_DATA, "more than %llu files: the replay follows at most that many",
			     (unsigned long long)RP_FILES_MAX);
		return NULL;
	}
	fe = ra_pool_alloc(&r->fents, sizeof(*fe));
	if (!fe || ra_grow_big((void **)&r->all, &r->capall, r->nall + 1, sizeof(*r->all)) < 0) {
		oom();
		return NULL;
	}
	ra_rp_pages_init(&fe->f.pages, &r->chunks, r->nall);
	fe->f.dev = dev;
	fe->f.ino = ino;
	fe->f.size = -1;
	fe->num = (uint32_t)r->nall;
	r->all[r->nall++] = fe;
	return fe;
}

/* File (dev, ino), made when new; NULL when out of memory or files (error set) */
static struct rp_fent *fent_of(struct ra_replay *r, uint32_t dev, uint64_t ino)
{
	uint64_t key = file_key(dev, ino);
	struct rp_fent **slot;
	bool fresh;

	if (r->last_fe && r->last_fe->f.dev == dev && r->last_fe->f.ino == ino)
		return r->last_fe;
	for (;; key += 0x9e3779b97f4a7c15ULL) {	/* a pair never collides with another */
		slot = ra_map_put(&r->files, key ? key : 1, &fresh);
		if (!slot) {
			oom();
			return NULL;
		}
		if (fresh || ((*slot)->f.dev == dev && (*slot)->f.ino == ino))
			break;
	}
	if (fresh && !(*slot = fent_new(r, dev, ino))) {
		ra_map_del(&r->files, key ? key : 1);
		return NULL;
	}
	r->last_fe = *slot;
	return *slot;
}

/* File (dev, ino) when the replay has it, else NULL */
static const struct rp_fent *fent_find(const struct ra_replay *r, uint32_t dev, uint64_t ino)
{
	for (uint64_t key = file_key(dev, ino);; key += 0x9e3779b97f4a7c15ULL) {
		struct rp_fent *const *slot = ra_map_get(&r->files, key ? key : 1);

		if (!slot || ((*slot)->f.dev == dev && (*slot)->f.ino == ino))
			return slot ? *slot : NULL;
	}
}

/*
 * The file, with what the run says of it asked once. Not in the first pass,
 * which may come before the run says it (an import's follows the load): the
 * replay asks as it starts.
 */
static struct rp_file *file_of(struct ra_replay *r, uint32_t dev, uint64_t ino)
{
	struct rp_fent *fe = fent_of(r, dev, ino);

	if (fe && !fe->f.info_asked)
		file_info(r, &fe->f);
	return fe ? &fe->f : NULL;
}

/* The readahead size of an open file: the policy's, the replay's, the run's */
static void choose_ra_pages(const struct ra_replay *r, struct rp_ofile *of)
{
	uint32_t base = r->p.ra_pages ? r->p.ra_pages : of->f->ra_pages;

	if (of->rec_ra_pages && of->f->ra_pages)
		of->ra_mult = of->rec_ra_pages == 2 * of->f->ra_pages ? 2 : 1;
	if (r->p.policy == RA_POLICY_FIXED)
		of->ra.ra_pages = r->p.fixed_pages;
	else if (r->p.policy == RA_POLICY_SCALING)
		of->ra.ra_pages = r->p.scaling_pages * of->ra_mult;
	else if (!r->p.ra_pages && of->rec_ra_pages)
		of->ra.ra_pages = of->rec_ra_pages;	/* as the run had it */
	else
		of->ra.ra_pages = base * of->ra_mult;
}

/* The run's ra_pages for an open file (POSIX_FADV_SEQUENTIAL doubles it) */
static void learn_ra_pages(const struct ra_replay *r, struct rp_ofile *of, uint32_t ra_pages)
{
	if (of->rec_ra_pages == ra_pages)
		return;
	of->rec_ra_pages = ra_pages;
	choose_ra_pages(r, of);
}

/* The key of process @tgid's descriptors of file @fe in descs */
static uint64_t desc_key(const struct rp_fent *fe, int tgid)
{
	return (uint64_t)fe->num << 32 | (uint32_t)tgid;
}

/*
 * The first descriptor of process @tgid on file @fe, NULL none. A process's
 * first stays first: the last few found are kept (two readers in turns).
 */
static struct rp_ofile *descs_of(struct ra_replay *r, const struct rp_fent *fe, int tgid)
{
	int at = tgid & 3;
	struct rp_ofile *const *first;

	if (r->near_desc[at].first && r->near_desc[at].fe == fe && r->near_desc[at].tgid == tgid)
		return r->near_desc[at].first;
	first = ra_map_get(&r->descs, desc_key(fe, tgid));
	if (!first || !*first)
		return NULL;
	r->near_desc[at].fe = fe;
	r->near_desc[at].tgid = tgid;
	r->near_desc[at].first = *first;
	return *first;
}

static struct rp_ofile *ofile_new(struct ra_replay *r, struct rp_fent *fe, int tgid)
{
	struct rp_ofile *of = ra_slab_alloc(&r->ofiles, sizeof(*of)), **at;
	bool fresh;

	at = of ? ra_map_put(&r->descs, desc_key(fe, tgid), &fresh) : NULL;
	if (!at) {
		ra_slab_free(&r->ofiles, of, sizeof(*of));
		oom();
		return NULL;
	}
	while (!fresh && *at)	/* after the process's others (DESCS at most) */
		at = &(*at)->next;
	*of = (struct rp_ofile){ .f = &fe->f, .tgid = tgid, .ra.prev_pos = -1 /* file_ra_state_init */,
				 .ra_mult = 1, .map_slot = -1 };
	choose_ra_pages(r, of);
	*at = of;
	return of;
}

/* The open file of process @tgid on (dev, ino): the descriptor it used last */
static struct rp_ofile *ofile_of(struct ra_replay *r, uint32_t dev, uint64_t ino, int tgid)
{
	struct rp_fent *fe = fent_of(r, dev, ino);
	struct rp_ofile *last = NULL;

	if (!fe)
		return NULL;
	if (!fe->f.info_asked)
		file_info(r, &fe->f);
	for (struct rp_ofile *d = descs_of(r, fe, tgid); d; d = d->next)
		if (!last || d->used > last->used)
			last = d;
	return last ? last : ofile_new(r, fe, tgid);
}

/* A descriptor opened anew: at most DESCS per process and file, the oldest given up */
static struct rp_ofile *desc_new(struct ra_replay *r, struct rp_fent *fe, int tgid)
{
	struct rp_ofile *old = NULL;
	int n = 0;

	for (struct rp_ofile *d = descs_of(r, fe, tgid); d; d = d->next) {
		n++;
		if (!old || d->used < old->used)
			old = d;
	}
	if (n < DESCS)
		return ofile_new(r, fe, tgid);
	old->ra = (struct rp_ra){ .prev_pos = -1 };	/* file_ra_state_init */
	old->prev_exact = false;
	old->width = 0;
	choose_ra_pages(r, old);
	return old;
}

/* Whether descriptor @d, not @best, is the better one for the state the run's trigger had */
static bool state_fits(const struct rp_ofile *d, const struct rp_ofile *best,
		       const struct hint *h)
{
	bool mine = d->ra.size == h->size && d->ra.async_size == h->async_size;

	if (!best)
		return true;
	if (mine != (best->ra.size == h->size && best->ra.async_size == h->async_size))
		return mine;
	return d->used > best->used;
}

/*
 * The descriptor of a read, among those of its process: the one whose
 * prev_pos is the one the run's trigger for the read had (exact, else in
 * the same page: ours may be a guess), or one not yet read for a trigger
 * of a descriptor not yet read (the process opened the file again), or for
 * a read without a trigger the one it continues; else the latest.
 */
static struct rp_ofile *desc_for_read(struct ra_replay *r, struct rp_ofile *last,
				      const struct hint *h, uint64_t index)
{
	struct rp_fent *fe = (struct rp_fent *)last->f;	/* a file is its entry's first member */
	struct rp_ofile *exact = NULL, *near = NULL, *unread = NULL, *cont = NULL;

	for (struct rp_ofile *d = descs_of(r, fe, last->tgid); d; d = d->next) {
		int64_t gap;

		gap = h && h->has_prev ? d->ra.prev_pos - h->prev_pos : INT64_MAX;
		if (!gap && state_fits(d, exact, h))
			exact = d;
		else if (gap > -RP_PAGE_SIZE && gap < RP_PAGE_SIZE && state_fits(d, near, h))
			near = d;
		if (d->ra.prev_pos < 0 && !unread)
			unread = d;
		if (d->ra.prev_pos >= 0 &&
		    index - ((uint64_t)d->ra.prev_pos >> RP_PAGE_SHIFT) <= 1 &&
		    (!cont || d->used > cont->used))
			cont = d;
	}
	if (exact || near)
		return exact ? exact : near;
	if (h && h->has_prev && h->prev_pos < 0)
		return unread ? unread : desc_new(r, fe, last->tgid);
	if (!h && cont)
		return cont;
	return last;
}

/* Task @h out of memory to the file; -1 on error (r->k.err not set: the caller's). */
static int task_out(struct ra_replay *r, struct rp_held *h)
{
	struct tref *ref = ra_map_get(&r->tasks, (uint64_t)(uint32_t)h->t.pid + 1);

	if (h->fid < 0)
		h->fid = r->nfid++;
	if (!ref || ra_tmpfile_open(&r->tfile) < 0 ||
	    ra_tmpfile_io(&r->tfile, true, &h->t, sizeof(h->t),
			  (off_t)h->fid * (off_t)sizeof(h->t)) < 0)
		return -1;
	*ref = (struct tref){ .h = NULL, .fid = h->fid };
	if (r->near[h->t.pid & 3] == h)
		r->near[h->t.pid & 3] = NULL;
	r->held[h->at] = r->held[--r->nheld];
	r->held[h->at]->at = h->at;
	free(h);
	return 0;
}

/* Room for one more task in memory: a task not waiting and not asked lately goes out. */
static int task_room(struct ra_replay *r)
{
	size_t tries = 2 * r->nheld;

	if (r->nheld < r->max_held)
		return 0;
	while (tries--) {
		struct rp_held *h = r->held[r->hand++ % r->nheld];

		if (h->t.listed)
			continue;
		if (h->ref) {
			h->ref = false;
			continue;
		}
		return task_out(r, h);
	}
	return 0;	/* every one waits: memory grows */
}

/* Task @h, made or read back, among those in memory. */
static int task_in(struct ra_replay *r, struct rp_held *h)
{
	if (r->nheld == r->capheld &&
	    ra_grow((void **)&r->held, &r->capheld, r->nheld + 1, sizeof(*r->held)) < 0)
		return -1;
	h->at = r->nheld;
	h->ref = true;
	r->held[r->nheld++] = h;
	return 0;
}

/*
 * The task of @ref (task @pid's in the map), made when @fresh, read back
 * when written out; NULL on error. The map is not changed: @ref holds.
 */
static struct rp_task *task_at(struct ra_replay *r, struct tref *ref, int pid, bool fresh)
{
	struct rp_held *h;
	int tgid, room;

	if (!fresh && ref->h) {
		ref->h->ref = true;
		return &ref->h->t;
	}
	if ((room = task_room(r)) < 0 || !(h = calloc(1, sizeof(*h)))) {
		if (fresh)
			ra_map_del(&r->tasks, (uint64_t)(uint32_t)pid + 1);
		if (room == 0)
			oom();	/* else the file's error */
		return NULL;
	}
	if (!fresh) {
		h->fid = ref->fid;
		if (ra_tmpfile_io(&r->tfile, false, &h->t, sizeof(h->t),
				  (off_t)h->fid * (off_t)sizeof(h->t)) < 0) {
			free(h);
			return NULL;
		}
	} else {
		tgid = r->p.tgid ? r->p.tgid(pid, r->p.arg) : 0;
		h->fid = -1;
		h->t.pid = pid;
		h->t.tgid = tgid > 0 ? tgid : pid;
	}
	if (task_in(r, h) < 0) {
		free(h);
		if (fresh)
			ra_map_del(&r->tasks, (uint64_t)(uint32_t)pid + 1);
		return NULL;
	}
	ref->h = h;
	return &h->t;
}

/* Task @pid, made when new; NULL on error (most events are the last one's task's) */
static struct rp_task *task_of(struct ra_replay *r, int pid)
{
	bool fresh;
	struct tref *ref;
	struct rp_task *t;

	struct rp_held *h = r->near[pid & 3];

	if (h && h->t.pid == pid) {
		h->ref = true;
		return &h->t;
	}
	ref = ra_map_put(&r->tasks, (uint64_t)(uint32_t)pid + 1, &fresh);
	if (!ref) {
		oom();
		return NULL;
	}
	t = task_at(r, ref, pid, fresh);
	r->near[pid & 3] = t ? ref->h : NULL;
	return t;
}

/* The end of the file as far as the run showed it, for a file of unknown size */
static void seen(struct rp_file *f, uint64_t end)
{
	if (end > f->seen_end && end < RP_NO_EOF)
		f->seen_end = end;
}

/* Two processes reading the file at once: one read between two of the other's */
static void note_reader(struct rp_file *f, int tgid, uint64_t ts)
{
	int i, slot = 0;
	uint64_t mine = 0;

	for (i = 0; i < 4; i++)
		if (f->recent_tgid[i] == tgid)
			mine = f->recent_ts[i];
	for (i = 0; i < 4; i++) {
		if (f->recent_tgid[i] && f->recent_tgid[i] != tgid && mine &&
		    f->recent_ts[i] > mine)
			f->doubts |= RA_DOUBT_SHARED;
		if (f->recent_tgid[i] == tgid || f->recent_ts[i] < f->recent_ts[slot])
			slot = i;
	}
	for (i = 0; i < 4; i++)
		if (f->recent_tgid[i] == tgid)
			slot = i;
	f->recent_tgid[slot] = tgid;
	f->recent_ts[slot] = ts ? ts : 1;
}

/* The replay acts for task @t at time @ts */
static struct rp_kernel *kernel_for(struct ra_replay *r, const struct rp_task *t, uint64_t ts)
{
	r->k.pid = t->pid;
	r->k.ts = ts;
	return &r->k;
}

/* ---- touches of a mapping ---- */

/* The process's bit of mapped pages of the file */
static void map_slot(struct rp_ofile *of)
{
	int i, free_slot = -1;

	if (of->map_slot >= 0)
		return;
	for (i = 0; i < RP_MAP_SLOTS; i++) {
		if (of->f->map_tgid[i] == of->tgid) {
			of->map_slot = i;
			return;
		}
		if (!of->f->map_tgid[i] && free_slot < 0)
			free_slot = i;
	}
	/* more processes than slots share the last one */
	of->map_slot = free_slot >= 0 ? free_slot : RP_MAP_SLOTS - 1;
	of->f->map_tgid[of->map_slot] = of->tgid;
}

/*
 * The page a touch without a fault touched: fault-around mapped it in the
 * run, so the run had it cached, and the process had not mapped it yet.
 * The first such page of the range (a sequential toucher's); the model may
 * have marked it or not have it, and then faults where the run did not.
 */
static uint64_t touched_page(const struct touch *t)
{
	struct rp_pages *p = &t->of->f->pages;
	uint32_t mine = (uint32_t)(RP_MAPPED0 << t->of->map_slot);

	for (uint64_t i = t->a; i <= t->b && i < t->a + 512; i++) {
		uint32_t v = ra_rp_page(p, i);

		if ((v & RP_REC) && !(v & mine))
			return i;
	}
	for (uint64_t i = t->a; i <= t->b && i < t->a + 512; i++)
		if (!(ra_rp_page(p, i) & mine))
			return i;
	return t->a;
}

/*
 * What the run's readahead for the fault says of the mapping's advice: a
 * miss with no readahead where the model would read around is MADV_RANDOM
 */
static void touch_advice(const struct touch *t)
{
	struct rp_ofile *of = t->of;

	if (t->has_fault && t->rec_major && !t->rec_ra && of->vm == RP_VM_NORMAL &&
	    of->ra.ra_pages && of->ra.mmap_miss < 100)
		of->vm = RP_VM_RAND;
}

/* The fault-around block of a touch of @page: the run's range, else the one around it */
static void touch_block(const struct touch *tc, uint64_t page, uint64_t *a, uint64_t *b)
{
	uint64_t phase = (uint64_t)tc->of->fa_phase;

	if (tc->has_range) {
		*a = tc->a;
		*b = tc->b;
		return;
	}
	*a = page >= phase ? ((page - phase) & ~15ULL) + phase : 0;
	*b = *a + 15;
}

/* How far the run's fault-around mapped from a block ending at @b: 6.18 maps large folios whole */
static uint64_t touch_reach(struct rp_ofile *of, uint64_t b)
{
	uint32_t v = ra_rp_page(&of->f->pages, b);

	if (!(v & RP_REC))
		return b;
	return b | ((1ULL << ((v & RP_REC_MASK) >> RP_REC_SHIFT)) - 1);
}

/*
 * Whether a touch of @page came page by page after the task's touch
 * before: it is in the block after that one's, or right after the run's
 * folio that held that block's end, and every page between was cached in
 * the run (a toucher would have faulted on the others) and is not one the
 * run faults on later (the first pass knows: it was not touched yet). Asked
 * when the touch is seen, before the run's readahead for it.
 */
static bool touch_after(const struct rp_task *t, const struct rp_ofile *of, uint64_t page)
{
	if (t->last_of != of || page <= t->last_page || page > t->last_reach + 16)
		return false;
	for (uint64_t i = t->last_page + 1; i < page; i++)
		if ((ra_rp_page(&of->f->pages, i) & (RP_REC | RP_FAULTS_LATER)) != RP_REC)
			return false;
	return true;
}

/*
 * The pages between the task's last touch and this one, @page, when it
 * came page by page after it: the toucher touched them too. The run had
 * them mapped; the model may not (a mark of a smaller window there), and
 * then they fault.
 */
static int touch_between(struct rp_kernel *k, struct rp_task *t, struct rp_ofile *of,
			 uint64_t page, bool after)
{
	uint32_t mine = (uint32_t)(RP_MAPPED0 << of->map_slot);
	uint64_t phase = (uint64_t)of->fa_phase, fa;

	t->sequential = after;
	if (!after)
		return 0;
	for (uint64_t i = t->last_page + 1; i < page && i < ra_rp_eof(of->f); i++) {
		if (ra_rp_page(&of->f->pages, i) & mine)
			continue;
		fa = i >= phase ? ((i - phase) & ~15ULL) + phase : 0;
		if (ra_rp_touch(k, of, i, fa, fa + 15) < 0)
			return -1;
	}
	return 0;
}

/* Replay the task's touch: its page, and the fault-around block around it */
static int touch_flush(struct ra_replay *r, struct rp_task *t)
{
	struct touch *tc = &t->touch;
	struct rp_ofile *of = tc->of;
	struct rp_kernel *k;
	uint64_t page, a, b;

	if (!tc->valid)
		return 0;
	tc->valid = false;
	map_slot(of);
	touch_advice(tc);
	page = tc->page;
	touch_block(tc, page, &a, &b);
	note_reader(of->f, of->tgid, tc->ts);
	of->used = ++r->clock;
	k = kernel_for(r, t, tc->ts);
	if (touch_between(k, t, of, page, tc->after) < 0 || ra_rp_touch(k, of, page, a, b) < 0)
		return -1;
	t->last_of = of;
	t->last_page = page;
	t->last_reach = touch_reach(of, b);
	return 0;
}

static int waiting_add(struct ra_replay *r, struct rp_task *t)
{
	if (t->listed)
		return 0;
	if (ra_grow((void **)&r->waiting, &r->capwaiting, r->nwaiting + 1, sizeof(*r->waiting)) < 0)
		return -1;
	r->waiting[r->nwaiting++] = t;
	t->listed = true;
	return 0;
}
static int read_flush(struct ra_replay *r, struct rp_task *t);

/*
 * The touches and reads not yet replayed, of file @f (all for NULL), but
 * task @except's: an event of the file by another task comes after them
 */
static int waiting_flush(struct ra_replay *r, const struct rp_file *f, const struct rp_task *except)
{
	size_t keep = 0;

	for (size_t i = 0; i < r->nwaiting; i++) {
		struct rp_task *t = r->waiting[i];

		if (t != except && t->touch.valid && (!f || t->touch.of->f == f) &&
		    touch_flush(r, t) < 0)
			return -1;
		if (t != except && t->pend.valid && (!f || t->pend.of->f == f) &&
		    read_flush(r, t) < 0)
			return -1;
		if (t->touch.valid || t->pend.valid)
			r->waiting[keep++] = t;
		else
			t->listed = false;
	}
	r->nwaiting = keep;
	return 0;
}

/* The task's access is over: the triggers and calls before it are spent */
static void access_begins(struct rp_task *t)
{
	t->in_ra = NULL;
	t->call.valid = false;
	t->call_tied = false;
}

/* mm_filemap_fault: the fault of the task's touch, or a retry of it, or a new touch */
static int on_fault(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
		    const struct ra_event *ev)
{
	struct touch *tc = &t->touch;
	uint64_t index = ev->page.index;

	seen(of->f, index + 1);
	ra_rp_set_bits(&of->f->pages, index, 1, RP_FAULTS_LATER, false);
	if (tc->valid && tc->of == of && tc->has_fault && tc->page == index)
		return 0;	/* the same fault again, after a retry */
	if (tc->valid && tc->of == of && !tc->has_fault && tc->has_range && tc->a <= index &&
	    index <= tc->b) {
		tc->has_fault = true;	/* fault-around did not map it */
	} else {
		if (touch_flush(r, t) < 0)
			return -1;
		*tc = (struct touch){ .valid = true, .of = of, .has_fault = true, .ts = ev->ts_ns };
	}
	tc->page = index;
	tc->rec_major = !(ra_rp_page(&of->f->pages, index) & RP_REC);
	tc->after = touch_after(t, of, index);
	t->sync.valid = t->async.valid = false;
	return waiting_add(r, t);
}

/* mm_filemap_map_pages: fault-around of a new touch, or the retry of the task's */
static int on_map(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
		  const struct ra_event *ev)
{
	struct touch *tc = &t->touch;
	uint64_t a = ev->page.index, b = ev->page.last_index;

	if (b < a || b - a > 4096)
		return 0;	/* not a fault-around range */
	seen(of->f, b + 1);
	if (b - a + 1 == 16)
		of->fa_phase = (int)(a & 15);
	if (tc->valid && tc->of == of && tc->has_fault && a <= tc->page && tc->page <= b)
		return 0;	/* the retry mapped the page of the fault */
	if (touch_flush(r, t) < 0)
		return -1;
	*tc = (struct touch){ .valid = true, .of = of, .has_range = true, .a = a, .b = b,
			      .ts = ev->ts_ns };
	map_slot(of);
	tc->page = touched_page(tc);
	tc->after = touch_after(t, of, tc->page);
	return waiting_add(r, t);
}

/* ---- read() ---- */

/* The run's trigger for a read at @index, if any */
static const struct hint *hint_for(const struct rp_task *t, const struct rp_file *f,
				   uint64_t index)
{
	if (t->sync.valid && t->sync.f == f && t->sync.index == index)
		return &t->sync;
	if (t->async.valid && t->async.f == f && t->async.index == index)
		return &t->async;
	return NULL;
}

/*
 * Where a read of pages [@index, @last] starts and ends, in bytes, and the
 * open file's prev_pos before it. The run's trigger @h gives prev_pos exactly;
 * else a guessed end (a whole page) is corrected by a read that starts in
 * that page. A read that starts where the previous one ended continues it
 * in its page. A read whose range starts at a mark the trigger hit, after a
 * gap no wider than a read, is the tail of a read from the previous end.
 */
static void read_span(const struct hint *h, struct rp_ofile *of, uint64_t index, uint64_t last,
		      int64_t *pos, int64_t *end)
{
	int64_t start = (int64_t)(index << RP_PAGE_SHIFT), prev;

	*pos = start;
	*end = (int64_t)((last + 1) << RP_PAGE_SHIFT);
	if (h && h->has_prev) {
		of->ra.prev_pos = h->prev_pos;
		of->prev_exact = true;
	} else if (!of->prev_exact && of->ra.prev_pos == start + RP_PAGE_SIZE) {
		of->ra.prev_pos = start + 1;	/* it ended inside this page */
	}
	prev = of->ra.prev_pos;
	if (prev > start && prev >> RP_PAGE_SHIFT == (int64_t)index)
		*pos = prev;
	if (h && h->type == RA_EV_ASYNC_RA && h->req == last + 1 - index && prev >= 0 &&
	    prev < start && last + 1 - ((uint64_t)prev >> RP_PAGE_SHIFT) <= of->width + 1) {
		*pos = prev;
		of->f->doubts |= RA_DOUBT_INFLIGHT;
	}
}

/* Whether the run's latest batch of the task's read() ended at a mark it hit */
static bool cut_at_mark(const struct rp_task *t, const struct rp_file *f, uint64_t index,
			uint64_t last)
{
	return t->async.valid && t->async.f == f && t->async.index >= index &&
	       t->async.index <= last;
}

/*
 * A batch of the task's read() after its first: the kernel's batches end at
 * a mark (an async trigger in the batch), before a hole (a sync trigger at
 * the next) or when full; one that ended elsewhere met a folio under I/O.
 */
static void on_batch(struct rp_task *t, const struct rp_file *f, uint64_t index)
{
	bool hole = t->sync.valid && t->sync.f == f && t->sync.index == index;

	if (!t->batch_cut && !hole && index - t->read_idx < 15)
		t->read_of->f->doubts |= RA_DOUBT_INFLIGHT;
	t->read_idx = index;
	t->batch_cut = cut_at_mark(t, f, index, t->read_last);
}

/* Pages cached before the run that the first pass did not tell: the page read */
static void early_page(struct rp_file *f, uint64_t index)
{
	uint32_t *v, bits = ra_rp_page(&f->pages, index);

	if (bits & (RP_REC | RP_REC_ADDED | RP_PRESENT))
		return;
	v = ra_rp_page_at(&f->pages, index);
	if (v)
		*v |= RP_REC | RP_EARLY;
	ra_rp_set_folio(&f->pages, index, 0, false);
}

/*
 * A new read() of pages [@index, @last] by task @t through @of's process,
 * replayed whole; @h the run's trigger for it, if any. @early: at the
 * trigger, before its first mm_filemap_get_pages.
 */
static int read_new(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
		    const struct hint *h, uint64_t index, uint64_t last, uint64_t ts, bool early)
{
	int64_t pos, end;
	int rc;

	if (!r->scanned)
		early_page(of->f, index);
	of = desc_for_read(r, of, h, index);
	of->used = ++r->clock;
	if (h)
		learn_ra_pages(r, of, h->ra_pages);
	read_span(h, of, index, last, &pos, &end);
	note_reader(of->f, of->tgid, ts);
	rc = ra_rp_read(kernel_for(r, t, ts), of, pos, end);
	if (last + 1 - index > of->width && of->width < 1024)
		of->width = (uint32_t)(last + 1 - index);
	*t = (struct rp_task){ .pid = t->pid, .tgid = t->tgid, .reading = true, .early = early,
			       .read_of = of, .read_first = index, .read_idx = index,
			       .read_last = last, .touch = t->touch, .listed = t->listed,
			       .last_of = t->last_of, .last_page = t->last_page,
			       .last_reach = t->last_reach, .sequential = t->sequential,
			       .batch_cut = cut_at_mark(t, of->f, index, last),
			       .in_ra = early ? of->f : NULL };	/* its readahead's adds follow */
	return rc;
}

/* The task's read() known from its trigger, replayed */
static int read_flush(struct ra_replay *r, struct rp_task *t)
{
	struct pend_read p = t->pend;

	if (!p.valid)
		return 0;
	t->pend.valid = false;
	return read_new(r, t, p.of, &p.h, p.first, p.last, p.ts, true);
}

/*
 * Whether a get_pages of pages [@index, @last] is a batch of the task's
 * read(): the same last page, or the file's last where the read asked for
 * more (an access event that covers what a read read, as the kprobes of
 * kernels before 6.12 give it, stops at the end of the file; the trigger
 * said what was asked)
 */
static bool read_goes_on(const struct rp_task *t, const struct rp_ofile *of, uint64_t index,
			 uint64_t last)
{
	const struct rp_file *f = of->f;
	uint64_t end = f->size >= 0 ? ((uint64_t)f->size + RP_PAGE_SIZE - 1) >> RP_PAGE_SHIFT :
				      f->seen_end;

	if (!t->reading || t->read_of->f != of->f || t->read_of->tgid != of->tgid)
		return false;
	if (last != t->read_last && !(last < t->read_last && end && last + 1 == end))
		return false;
	return t->early ? index >= t->read_first : index > t->read_idx;
}

/* mm_filemap_get_pages: a read(), or the next batch of the task's read() */
static int on_read(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
		   const struct ra_event *ev)
{
	uint64_t index = ev->page.index, last = ev->page.last_index;

	seen(of->f, index + 1);
	if (last < index || last - index >= (1ULL << 19))
		return 0;	/* beyond what one read() moves */
	if (touch_flush(r, t) < 0 || read_flush(r, t) < 0)
		return -1;
	if (read_goes_on(t, of, index, last)) {
		if (t->early && index != t->read_first)	/* its first batch had no event */
			of->f->doubts |= RA_DOUBT_INFLIGHT;
		if (!t->early)
			on_batch(t, of->f, index);
		t->early = false;
		t->read_idx = index;
		t->sync.valid = t->async.valid = false;
		return 0;
	}
	return read_new(r, t, of, hint_for(t, of->f, index), index, last, ev->ts_ns, false);
}

/* ---- what the run's readahead events tell ---- */

/*
 * Runs without access events (no mm_filemap_get_pages before 6.12, as the
 * first pass found): a trigger stands for the read that made it, of the
 * pages it asked
 */
static int read_from_trigger(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
			     const struct ra_event *ev)
{
	int64_t pos = (int64_t)(ev->ra.index << RP_PAGE_SHIFT);
	uint64_t req = ev->ra.req_count ? ev->ra.req_count : 1;

	of->f->doubts |= RA_DOUBT_NOACCESS;
	if (ev->has_mask & RA_HAS_PREV_POS) {
		of->ra.prev_pos = ev->ra.prev_pos;
		of->prev_exact = true;
		if (ev->ra.prev_pos > pos &&
		    ev->ra.prev_pos >> RP_PAGE_SHIFT == pos >> RP_PAGE_SHIFT)
			pos = ev->ra.prev_pos;	/* it continues the read before in its page */
	}
	return ra_rp_read(kernel_for(r, t, ev->ts_ns), of, pos,
			  (int64_t)((ev->ra.index + req) << RP_PAGE_SHIFT));
}

/*
 * The read() a trigger of the run comes from, replayed before any other
 * task's event of the file: a read waits for its I/O after its trigger,
 * and other tasks' reads of the file in the meantime find what it read
 * ahead, as in the run. It waits for the events of its own readahead (a
 * folio that reclaim took for its allocation goes first). The trigger
 * tells the read's end (req_count) and, for a hit of a mark (async), its
 * start: where the read before ended (prev_pos), when no wider than a
 * read; a miss (sync) starts the read. A trigger of the read in progress
 * is only noted.
 */
static int read_at_trigger(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
			   const struct hint *h, uint64_t ts)
{
	uint64_t index = h->index, last = index + (h->req ? h->req : 1) - 1, prev, first = index;

	if (!h->has_prev || !h->req)
		return 0;	/* no req_count: the get_pages will say */
	if (t->reading && t->read_of->f == of->f && t->read_of->tgid == of->tgid &&
	    index >= t->read_first && last == t->read_last)
		return 0;
	if (t->pend.valid && t->pend.of->f == of->f && index >= t->pend.first &&
	    last == t->pend.last)
		return 0;
	prev = h->prev_pos >= 0 ? (uint64_t)h->prev_pos >> RP_PAGE_SHIFT : UINT64_MAX;
	if (h->type == RA_EV_ASYNC_RA && prev <= index && index - prev <= (of->width ? of->width : 1))
		first = prev;
	if (touch_flush(r, t) < 0 || read_flush(r, t) < 0)
		return -1;
	t->pend = (struct pend_read){ .valid = true, .of = of, .h = *h, .first = first,
				      .last = last, .ts = ts };
	return waiting_add(r, t);
}

/* page_cache_sync_ra, page_cache_async_ra of the run: hints for the access they belong to */
static int on_trigger(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
		      const struct ra_event *ev)
{
	struct touch *tc = &t->touch;
	struct hint *h = ev->type == RA_EV_SYNC_RA ? &t->sync : &t->async;

	t->in_ra = of->f;
	t->call.valid = false;
	t->call_tied = false;
	if (tc->valid && tc->of == of && tc->has_fault && tc->page == ev->ra.index) {
		learn_ra_pages(r, of, ev->ra.ra_pages);
		tc->rec_ra = true;	/* the fault's own readahead */
		if (ev->type == RA_EV_SYNC_RA && ev->ra.req_count == ev->ra.ra_pages &&
		    tc->rec_major)
			of->vm = RP_VM_SEQ;	/* MADV_SEQUENTIAL: a miss reads ra_pages */
		return 0;
	}
	if (r->scanned && !of->f->scan_access)
		return read_from_trigger(r, t, of, ev);
	*h = (struct hint){ .valid = true, .type = ev->type, .f = of->f, .index = ev->ra.index,
			    .req = ev->ra.req_count, .prev_pos = ev->ra.prev_pos,
			    .has_prev = (ev->has_mask & RA_HAS_PREV_POS) != 0,
			    .size = ev->ra.size, .async_size = ev->ra.async_size,
			    .ra_pages = ev->ra.ra_pages };
	return read_at_trigger(r, t, of, h, ev->ts_ns);
}

/* A WILLNEED call's forced window names its file: force_page_cache_ra from there */
static int call_replay(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
		       const struct ra_event *ev)
{
	struct call *c = &t->call;
	uint64_t index = c->type == RA_EV_MADVISE ? ev->ra.index : c->index;

	c->valid = false;
	t->call_tied = true;
	note_reader(of->f, of->tgid, c->ts);
	return ra_rp_force(kernel_for(r, t, c->ts), of, index, c->nr ? c->nr : UINT64_MAX);
}

/* page_cache_ra_order, page_cache_ra_unbounded of the run */
static int on_window(struct ra_replay *r, struct rp_task *t, struct rp_ofile *of,
		     const struct ra_event *ev)
{
	struct touch *tc = &t->touch;
	bool forced = ev->type == RA_EV_RA_UNBOUNDED;

	t->in_ra = of->f;
	if (forced && t->call.valid)
		return call_replay(r, t, of, ev);
	if (forced && t->call_tied)
		return 0;	/* the call's next 2 MiB */
	t->call.valid = false;
	t->call_tied = false;
	if (!forced && tc->valid && tc->of == of && tc->has_fault && !tc->rec_ra) {
		learn_ra_pages(r, of, ev->ra.ra_pages);
		tc->rec_ra = true;	/* read-around: the mapping has no advice */
		if (of->vm == RP_VM_RAND)
			of->vm = RP_VM_NORMAL;
	}
	return 0;
}

/* fadvise64(WILLNEED), readahead(2), madvise(WILLNEED): the range, waiting for its file */
static int on_call(struct ra_replay *r, struct rp_task *t, const struct ra_event *ev)
{
	if (touch_flush(r, t) < 0 || read_flush(r, t) < 0)
		return -1;
	t->call = (struct call){ .valid = true, .type = ev->type, .index = ev->ra.index,
				 .nr = ev->ra.req_count, .ts = ev->ts_ns };
	t->call_tied = false;
	t->in_ra = NULL;
	return 0;
}

/* ---- the run's page cache ---- */

/*
 * Whether the task's add of @index is of its read (its readahead, its
 * fault, or the page its read() is at); any other is a write's, and goes
 * into the model as the run made it
 */
static bool add_explained(const struct rp_task *t, const struct rp_file *f, uint64_t index)
{
	if (t->in_ra == f)
		return true;
	if (t->touch.valid && t->touch.of->f == f)
		return true;
	return t->reading && t->read_of->f == f && index >= t->read_idx && index <= t->read_last;
}

/* The run's folio at @index: cached there now, of @order */
static int rec_folio(struct rp_file *f, uint64_t index, unsigned int order)
{
	for (uint64_t i = index; i < index + (1ULL << order); i++) {
		uint32_t *v = ra_rp_page_at(&f->pages, i);

		if (!v)
			return oom();
		*v = (*v & ~RP_REC_MASK) | RP_REC | RP_REC_ADDED | (order << RP_REC_SHIFT);
	}
	return 0;
}

static int on_add(struct ra_replay *r, struct rp_task *t, struct rp_file *f,
		  const struct ra_event *ev)
{
	unsigned int order = ev->page.order <= RP_MAX_ORDER ? ev->page.order : 0;
	uint64_t n = 1ULL << order;

	if (rec_folio(f, ev->page.index, order) < 0)
		return -1;
	seen(f, ev->page.index + n);
	if (add_explained(t, f, ev->page.index))
		return 0;
	if (waiting_flush(r, f, t) < 0)
		return -1;
	return ra_rp_written(kernel_for(r, t, ev->ts_ns), f, ev->page.index, order);
}

/* A deletion of the run (reclaim, truncation, DONTNEED): the model's folios there go too */
static int on_delete(struct ra_replay *r, struct rp_task *t, struct rp_file *f,
		     const struct ra_event *ev)
{
	unsigned int order = ev->page.order <= RP_MAX_ORDER ? ev->page.order : 0;

	if (ra_rp_set_bits(&f->pages, ev->page.index, 1ULL << order, RP_REC | RP_REC_MASK,
			   false) < 0)
		return oom();
	if (r->p.model_reclaim)
		return 0;	/* the caller's estimate of reclaim stands for the run's */
	if (waiting_flush(r, f, t) < 0)
		return -1;
	return ra_rp_evict(kernel_for(r, t, ev->ts_ns), f, ev->page.index, order);
}

int ra_replay_evict(struct ra_replay *r, uint32_t dev, uint64_t ino, uint64_t index,
		    uint64_t ts)
{
	struct rp_file *f = file_of(r, dev, ino);
	struct rp_task none = { .pid = 0 };

	if (!f)
		return -1;
	f->doubts |= RA_DOUBT_RECLAIM;
	if (ra_rp_evict(kernel_for(r, &none, ts), f, index, 0) < 0)
		return r->k.err ? r->k.err : -1;
	return 0;
}

/* ---- the first pass: what only the whole run shows ---- */

/* A page accessed before the run added it, and never added since, was cached already */
static int scan_access(struct rp_file *f, uint64_t index, uint64_t last)
{
	f->scan_access = true;
	for (uint64_t i = index; i <= last; i++) {
		uint32_t *v;

		if (ra_rp_page(&f->pages, i) & RP_REC_ADDED)
			continue;
		v = ra_rp_page_at(&f->pages, i);
		if (!v)
			return oom();
		*v |= RP_CAND;
	}
	return 0;
}

static int scan_folio(struct rp_file *f, const struct ra_event *ev)
{
	unsigned int order = ev->page.order <= RP_MAX_ORDER ? ev->page.order : 0;

	if (ev->type == RA_EV_PAGE_ADD && order)
		f->large_seen = true;

	for (uint64_t i = 0; i < 1ULL << order; i++) {
		uint32_t *v = ra_rp_page_at(&f->pages, ev->page.index + i);

		if (!v)
			return oom();
		if (ev->type == RA_EV_PAGE_DELETE && !(*v & RP_REC_ADDED))
			*v |= RP_EARLY;	/* deleted, never added: it was cached */
		if (ev->type == RA_EV_PAGE_ADD)
			*v = (uint32_t)((*v | RP_REC_ADDED) & ~RP_CAND);
	}
	if (ev->type == RA_EV_PAGE_ADD)
		seen(f, ev->page.index + (1ULL << order));
	return 0;
}

int ra_replay_scan(struct ra_replay *r, const struct ra_event *ev)
{
	struct rp_fent *fe;
	struct rp_file *f;
	uint64_t index = ev->page.index, last;

	if (r->started) {
		ra_set_error(RA_ERR_USAGE, "the replay's first pass after its events");
		return -1;
	}
	r->scanned = true;
	if (ra_event_class(ev->type) != RA_CLASS_PAGE)
		return 0;
	if (!(fe = fent_of(r, ev->page.dev, ev->page.ino)))
		return -1;
	f = &fe->f;
	last = ev->has_mask & RA_HAS_LAST_INDEX ? ev->page.last_index : index;
	switch (ev->type) {
	case RA_EV_PAGE_ADD:
	case RA_EV_PAGE_DELETE:
		return scan_folio(f, ev);
	case RA_EV_GET_PAGES:
		seen(f, index + 1);
		if (last < index || last - index >= (1ULL << 19))
			return 0;	/* beyond what one read() moves */
		return scan_access(f, index, last);
	case RA_EV_FAULT:
		seen(f, index + 1);
		if (ra_rp_set_bits(&f->pages, index, 1, RP_FAULTS_LATER, true) < 0)
			return oom();
		return scan_access(f, index, index);
	case RA_EV_MAP_PAGES:	/* fault-around maps cached pages only */
		seen(f, last + 1);
		return last >= index && last - index < 4096 ? scan_access(f, index, last) : 0;
	}
	return 0;
}

/* The first pass's finding for a page: cached from the start, or nothing */
static int scan_page(uint64_t id, uint64_t index, uint32_t *v, void *arg)
{
	struct ra_replay *r = arg;
	struct rp_file *f = &r->all[id]->f;

	if (*v & RP_CAND)
		*v |= RP_EARLY;
	*v &= (uint32_t)~(RP_CAND | RP_REC_ADDED | RP_REC);
	if ((*v & RP_EARLY) && index < ra_rp_eof(f)) {
		*v |= RP_PRESENT | RP_REC;	/* an order-0 folio with no mark */
		if (index >= f->pages.top)
			f->pages.top = index + 1;
	} else {
		*v &= (uint32_t)~RP_EARLY;
	}
	return 0;
}

static void scan_finish(struct ra_replay *r)
{
	r->started = true;
	if (!r->scanned)
		return;
	for (size_t i = 0; i < r->nall; i++) {
		struct rp_file *f = &r->all[i]->f;

		ra_big_tick();
		if (!f->info_asked)
			file_info(r, f);	/* its folios with what the whole run showed */
		else
			file_folios(r, f);
	}
	ra_rp_chunks_each(&r->chunks, scan_page, r);
}

/* ---- the replay ---- */

struct ra_replay *ra_replay_alloc(const struct ra_replay_params *p)
{
	struct ra_replay *r;

	if (!p->emit || p->series < 0 || p->series >= RA_KS_N ||
	    (p->policy == RA_POLICY_FIXED && !p->fixed_pages) ||
	    (p->policy == RA_POLICY_SCALING && !p->scaling_pages)) {
		ra_set_error(RA_ERR_USAGE,
			     "a replay needs emit, a kernel series and the policy's size");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || ra_map_init(&r->files, sizeof(struct rp_fent *)) < 0 ||
	    ra_map_init(&r->descs, sizeof(struct rp_ofile *)) < 0 ||
	    ra_rp_chunks_init(&r->chunks) < 0 ||
	    ra_map_init(&r->tasks, sizeof(struct tref)) < 0) {
		ra_replay_free(r);
		oom();
		return NULL;
	}
	r->p = *p;
	r->max_held = p->tasks_held > 0 ? (size_t)p->tasks_held : TASKS_HELD;
	ra_tmpfile_init(&r->tfile);
	/* the policies are the 6.18 paths with other window sizes */
	r->k = (struct rp_kernel){ .series = p->policy == RA_POLICY_KERNEL ? p->series : RA_KS_6_18,
				   .policy = p->policy, .fixed_pages = p->fixed_pages,
				   .scaling_pages = p->scaling_pages, .emit = p->emit,
				   .arg = p->arg };
	return r;
}

/* An access event: the touches of others on the file go first */
static int on_access(struct ra_replay *r, struct rp_task *t, const struct ra_event *ev)
{
	struct rp_ofile *of = ofile_of(r, ev->page.dev, ev->page.ino, t->tgid);
	struct ra_event e = *ev;

	if (!of || waiting_flush(r, of->f, t) < 0)
		return -1;
	access_begins(t);
	if (!(e.has_mask & RA_HAS_LAST_INDEX))
		e.page.last_index = e.page.index;
	if (ev->type == RA_EV_GET_PAGES)
		return on_read(r, t, of, &e);
	if (read_flush(r, t) < 0)
		return -1;
	if (ev->type == RA_EV_FAULT)
		return on_fault(r, t, of, &e);
	return on_map(r, t, of, &e);
}

static int on_ra(struct ra_replay *r, struct rp_task *t, const struct ra_event *ev)
{
	struct rp_ofile *of;

	if (ra_event_is_call(ev->type))
		return on_call(r, t, ev);
	if (!ev->ra.dev && !ev->ra.ino)
		return 0;
	of = ofile_of(r, ev->ra.dev, ev->ra.ino, t->tgid);
	if (!of)
		return -1;
	if (ev->type == RA_EV_SYNC_RA || ev->type == RA_EV_ASYNC_RA)
		return on_trigger(r, t, of, ev);
	return on_window(r, t, of, ev);
}

static int on_page(struct ra_replay *r, struct rp_task *t, const struct ra_event *ev)
{
	struct rp_file *f;

	if (ev->type != RA_EV_PAGE_ADD && ev->type != RA_EV_PAGE_DELETE)
		return on_access(r, t, ev);
	f = file_of(r, ev->page.dev, ev->page.ino);
	if (!f)
		return -1;
	if (ev->type == RA_EV_PAGE_ADD)
		return on_add(r, t, f, ev);
	return on_delete(r, t, f, ev);
}

int ra_replay_event(struct ra_replay *r, const struct ra_event *ev)
{
	int cls = ra_event_class(ev->type), rc;
	struct rp_task *t;

	if (!r->started)
		scan_finish(r);
	if (r->k.err)
		return r->k.err;
	if (cls != RA_CLASS_RA && cls != RA_CLASS_PAGE)
		return 0;
	t = task_of(r, ev->pid);
	if (!t)
		return -1;
	rc = cls == RA_CLASS_RA ? on_ra(r, t, ev) : on_page(r, t, ev);
	return rc < 0 && r->k.err ? r->k.err : rc;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The rest of the last block a task touched, when it touched page by page:
 * it went on to the end of what the run had mapped for it. In the order of
 * the tasks' pids, not of the map's slots: tasks whose touches end on one
 * file share its pages.
 */
static int touches_end(struct ra_replay *r)
{
	uint64_t *keys = r->tasks.n ? ra_big_alloc(r->tasks.n * sizeof(*keys)) : NULL;
	size_t n = 0;
	int rc = 0;

	if (r->tasks.n && !keys)
		return oom();
	for (size_t i = 0; i < r->tasks.cap && n < r->tasks.n; i++)
		if (r->tasks.keys[i])
			keys[n++] = r->tasks.keys[i];
	ra_sort(keys, n, sizeof(*keys), cmp_key);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct rp_task *t;

		/* one written out is read back (the map stays) */
		if (!(t = task_at(r, ra_map_get(&r->tasks, keys[i]), (int)(uint32_t)(keys[i] - 1),
				  false)))
			rc = -1;
		else if (t->last_of && t->sequential &&
			 touch_between(kernel_for(r, t, r->k.ts), t, t->last_of, t->last_reach + 1,
				       touch_after(t, t->last_of, t->last_reach + 1)) < 0)
			rc = -1;
	}
	ra_big_free(keys);
	return rc;
}

int ra_replay_end(struct ra_replay *r)
{
	if (!r->started)
		scan_finish(r);
	if (waiting_flush(r, NULL, NULL) < 0 || touches_end(r) < 0)
		return r->k.err ? r->k.err : -1;
	return r->k.err ? r->k.err : 0;
}

void ra_replay_free(struct ra_replay *r)
{
	if (!r)
		return;
	ra_pool_release(&r->fents);
	ra_slab_release(&r->ofiles);
	for (size_t i = 0; i < r->nheld; i++)
		free(r->held[i]);
	free(r->held);
	ra_tmpfile_close(&r->tfile);
	ra_map_release(&r->files);
	ra_map_release(&r->descs);
	ra_rp_chunks_release(&r->chunks);
	ra_map_release(&r->tasks);
	ra_big_free(r->all);
	free(r->waiting);
	free(r);
}

unsigned int ra_replay_doubts(const struct ra_replay *r, uint32_t dev, uint64_t ino)
{
	const struct rp_fent *fe;
	unsigned int all = 0;

	if (dev || ino)
		return (fe = fent_find(r, dev, ino)) ? fe->f.doubts : 0;
	for (size_t i = 0; i < r->nall; i++) {
		ra_big_tick();
		all |= r->all[i]->f.doubts;
	}
	return all;
}

/* ---- the bytes the reads returned ---- */

struct lookup {
	uint32_t dev;
	uint64_t ino, index, last;
};

int ra_read_bytes_init(struct ra_read_bytes *rb)
{
	rb->bytes = 0;
	memset(rb->near, 0, sizeof(rb->near));
	return ra_map_init(&rb->last, sizeof(struct lookup));
}

void ra_read_bytes_release(struct ra_read_bytes *rb)
{
	ra_map_release(&rb->last);
}

int ra_read_bytes_add(struct ra_read_bytes *rb, int pid, uint32_t dev, uint64_t ino,
		      uint64_t index, uint64_t last, int64_t size)
{
	bool fresh = false;
	int at = pid & 3;
	struct lookup *l = pid && rb->near[at].pid == pid ? rb->near[at].at : NULL;
	uint64_t end = (last + 1) * 4096;

	/* the map changes only here, and its values move only when a key is added */
	if (!l && !(l = ra_map_put(&rb->last, (uint64_t)(uint32_t)pid + 1, &fresh)))
		return -1;
	if (fresh)
		memset(rb->near, 0, sizeof(rb->near));
	rb->near[at].pid = pid;
	rb->near[at].at = l;
	if (!fresh && l->dev == dev && l->ino == ino && l->last == last && index > l->index &&
	    index <= l->last) {
		l->index = index;	/* the rest of the same read */
		return 0;
	}
	*l = (struct lookup){ .dev = dev, .ino = ino, .index = index, .last = last };
	if (last < index)
		return 0;
	if (size >= 0 && end > (uint64_t)size)
		end = (uint64_t)size;
	if (end > index * 4096)
		rb->bytes += end - index * 4096;
	return 0;
}
