// SPDX-License-Identifier: LGPL-2.1
/*
 * The replay pass: a run's accesses replayed (replay.h) at its own kernel
 * series and readahead sizes must give back the windows the run recorded.
 * The two sides' windows are met in order per open file (wincmp.c); the
 * share reproduced exactly is stored for the run and per file, with the
 * reasons the replay gives for not being exact where it cannot know
 * (docs/metrics.md, "Replay").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"
#include "ra_bigmem.h"
#include "ra_sql.h"
#include "replay.h"

/* What the replay is told of a file of the run. */
struct finfo {
	int64_t size_bytes;
	uint32_t ra_pages;
	char fstype[16];
	bool asked;		/* live: asked as the events came, checked at the end */
};

struct check {
	struct ra_db *db;
	int64_t run_id;
	int series;
	struct ra_replay *rp;
	struct ra_wincmp *cmp;
	struct ra_fileset files;
	struct finfo *info;
	size_t capinfo;
	struct ra_map tgids;
	/* the tasks asked last (pid 0: none) and their answers, by pid & 3: the
	 * events of a few tasks come in turns */
	int near_pid[4], near_tgid[4];
	uint32_t default_ra_pages, io_pages;
	/* what the run's reads read, first to last: the reader's throughput */
	struct ra_read_bytes bytes_read;
	int64_t first_read, last_read;
	bool failed;
	/* fed as the run is stored: what is asked, and the tasks' processes asked */
	bool live;
	struct ra_live_inputs in;
	struct ra_map asked_tgids;
};

/* The file's record, made when new; NULL when out of memory. */
static struct finfo *info_of(struct check *c, uint32_t dev, uint64_t ino)
{
	bool fresh;
	int i = ra_fileset_index(&c->files, dev, ino, &fresh);

	if (i < 0)
		return NULL;
	if ((size_t)i >= c->capinfo) {
		size_t cap = c->capinfo ? c->capinfo * 2 : 64;
		struct finfo *p = ra_big_realloc(c->info, cap * sizeof(*p));

		if (!p)
			return NULL;
		c->info = p;
		c->capinfo = cap;
	}
	if (fresh)
		c->info[i] = (struct finfo){ .size_bytes = -1 };
	return &c->info[i];
}

/* The process of task @pid, 0 when not known; live, asked once and kept. */
static int process_of(struct check *c, int pid)
{
	uint64_t key = (uint64_t)(uint32_t)pid + 1;
	const int *t = ra_map_get(&c->tgids, key);
	bool fresh;
	int *a;

	if (t || !c->live || !c->in.tgid)
		return t ? *t : 0;
	a = ra_map_put(&c->asked_tgids, key, &fresh);
	if (a && fresh)
		*a = c->in.tgid(pid, c->in.arg);
	return a ? *a : 0;
}

/* The process of task @pid as the comparison takes it (the task's own when not known). */
static int tgid_of(struct check *c, int pid)
{
	int t, at = pid & 3;

	if (pid && c->near_pid[at] == pid)
		return c->near_tgid[at];
	t = process_of(c, pid);
	c->near_pid[at] = pid;
	c->near_tgid[at] = t > 0 ? t : pid;
	return c->near_tgid[at];
}

/* The replay's events: its windows to side 1 of the comparison. */
static int on_replayed(const struct ra_event *ev, void *arg)
{
	struct check *c = arg;

	if (ra_wincmp_event(c->cmp, 1, ev, tgid_of(c, ev->pid)) < 0) {
		c->failed = true;
		return -1;
	}
	return 0;
}

/* The run's events: its windows to side 0, every event to the replay. */
static int on_recorded(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct check *c = arg;

	(void)seq;
	/* the reads' span: from the first readahead or read event to the last read */
	if (c->first_read < 0 && (ra_wincmp_takes(ev) || ev->type == RA_EV_GET_PAGES))
		c->first_read = (int64_t)ev->ts_ns;
	if (ev->type == RA_EV_GET_PAGES || ev->type == RA_EV_FAULT || ev->type == RA_EV_MAP_PAGES)
		c->last_read = (int64_t)ev->ts_ns;
	if (ra_wincmp_event(c->cmp, 0, ev, tgid_of(c, ev->pid)) < 0 ||
	    ra_replay_event(c->rp, ev) < 0)
		return -1;
	/* after the replay took it: the file's size is known then */
	if (ev->type == RA_EV_GET_PAGES) {
		struct finfo *f = info_of(c, ev->page.dev, ev->page.ino);

		if (!f)
			return -1;
		if (ra_read_bytes_add(&c->bytes_read, ev->pid, ev->page.dev, ev->page.ino,
				      ev->page.index, ev->page.last_index, f->size_bytes) < 0)
			return -1;
	}
	return 0;
}

/* The replay's first pass: what only the whole run shows (replay.h). */
int ra_replay_scan_event(const struct ra_event *ev, int64_t seq, void *rp)
{
	(void)seq;
	return ra_replay_scan(rp, ev);
}

/* ---- what the replay is told of the run ---- */

static int replay_file(uint32_t dev, uint64_t ino, struct ra_replay_file *out, void *arg)
{
	struct check *c = arg;
	struct finfo *f = info_of(c, dev, ino);

	if (!f)
		return -1;
	if (c->live && !f->asked) {
		const char *t = c->in.fstype ? c->in.fstype(dev, c->in.arg) : NULL;

		f->asked = true;
		f->size_bytes = c->in.size ? c->in.size(dev, ino, c->in.arg) : -1;
		snprintf(f->fstype, sizeof(f->fstype), "%s", t ? t : "");
	}
	*out = (struct ra_replay_file){
		.size_bytes = f->size_bytes, .fstype = f->fstype,
		.ra_pages = f->ra_pages ? f->ra_pages : c->default_ra_pages,
		.io_pages = c->io_pages,
	};
	return 0;
}

static int replay_tgid(int pid, void *arg)
{
	return process_of(arg, pid);
}

/* Files: their sizes and file systems. */
static int load_files(struct check *c)
{
	static const char sql[] =
		"SELECT f.dev, f.ino, f.size_bytes,"
		" (SELECT fstype FROM filesystems s WHERE s.run_id = f.run_id AND s.fs_dev = f.dev"
		"  LIMIT 1)"
		" FROM files f WHERE f.run_id = ?1";
	struct ra_stmt *st = ra_sql_prepare(c->db, sql);
	int rc = -1;

	if (st && ra_sql_bind(st, "i", c->run_id) == 0) {
		while ((rc = ra_sql_step(st)) == 1) {
			int64_t dev, ino, size;
			const char *fstype;
			struct finfo *f;

			ra_sql_row(st, "iiit", &dev, &ino, &size, &fstype);
			f = info_of(c, (uint32_t)dev, (uint64_t)ino);
			if (!f) {
				ra_set_error(RA_ERR_IO, "out of memory");
				rc = -1;
				break;
			}
			f->size_bytes = ra_sql_null(st, 2) ? -1 : size;
			snprintf(f->fstype, sizeof(f->fstype), "%s", fstype ? fstype : "");
		}
	}
	ra_sql_finalize(st);
	return rc == 0 ? 0 : -1;
}

/* The readahead size each file had in force: its first window's, or trigger's. */
static int note_ra_pages(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct check *c = arg;
	struct finfo *f;

	(void)seq;
	if (!ra_wincmp_takes(ev) || !ev->ra.ra_pages)
		return 0;
	f = info_of(c, ev->ra.dev, ev->ra.ino);
	if (!f) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (!f->ra_pages)
		f->ra_pages = ev->ra.ra_pages;
	return 0;
}

static int load_tgids(struct check *c)
{
	struct ra_stmt *st = ra_sql_prepare(c->db, "SELECT pid, tgid FROM tasks"
					    " WHERE run_id = ?1 AND tgid IS NOT NULL");
	int rc = -1;

	if (st && ra_sql_bind(st, "i", c->run_id) == 0) {
		while ((rc = ra_sql_step(st)) == 1) {
			int pid = 0, tgid = 0;
			bool fresh;
			int *t;

			ra_sql_row(st, "xx", &pid, &tgid);
			t = ra_map_put(&c->tgids, (uint64_t)(uint32_t)pid + 1, &fresh);
			if (!t) {
				ra_set_error(RA_ERR_IO, "out of memory");
				rc = -1;
				break;
			}
			*t = tgid;
		}
	}
	ra_sql_finalize(st);
	return rc == 0 ? 0 : -1;
}

/* The devices' io_pages (max_sectors_kb / 4) and the run's readahead setting. */
static int load_settings(struct check *c)
{
	int64_t max_kb = 0, ra_kb = 0;

	if (ra_sql_one(c->db, "SELECT MAX(max_sectors_kb) FROM device_snapshots"
			      " WHERE run_id = ?1 AND phase = 'before'", "i", "i", c->run_id,
		       &max_kb) < 0 ||
	    ra_sql_one(c->db, "SELECT MAX(read_ahead_kb) FROM filesystems WHERE run_id = ?1",
		       "i", "i", c->run_id, &ra_kb) < 0)
		return -1;
	c->io_pages = max_kb > 0 ? (uint32_t)(max_kb / 4) : 0;
	c->default_ra_pages = ra_kb > 0 ? (uint32_t)(ra_kb / 4) : 32;
	return 0;
}

/* A kprobe on page_cache_ra_order does not read the folio order: not compared. */
static int order_known(struct check *c)
{
	int64_t kprobe = 0;

	if (ra_sql_one(c->db, "SELECT COUNT(*) FROM event_sources WHERE run_id = ?1"
			      " AND name = 'page_cache_ra_order' AND probe = 'kprobe'", "i", "i",
		       c->run_id, &kprobe) < 0)
		return -1;
	if (kprobe)
		ra_wincmp_no_order(c->cmp);
	return 0;
}

/* ---- the rows ---- */

void ra_replay_doubt_names(unsigned int d, char *buf, size_t len)
{
	static const struct { unsigned int bit; const char *name; } names[] = {
		{ RA_DOUBT_SHARED, "shared" },     { RA_DOUBT_RECLAIM, "reclaim" },
		{ RA_DOUBT_INFLIGHT, "in_flight" }, { RA_DOUBT_NOACCESS, "no_access" },
		{ RA_DOUBT_UNKNOWN, "unknown_file" },
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && n < len; i++)
		if (d & names[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      names[i].name);
}

static int store_files(struct check *c, int64_t *tot)
{
	struct ra_batch *st = ra_batch_new(c->db,
		"INSERT INTO replay_files (run_id, dev, ino, windows, replayed, exact, doubts,"
		" first_difference)", 8);
	struct ra_wincmp_file f;
	char doubts[128];
	int rc = 0;

	if (!st)
		return -1;
	for (size_t i = 0; rc == 0 && ra_wincmp_file(c->cmp, i, &f); i++) {
		if (!f.windows[0] && !f.windows[1])
			continue;
		ra_replay_doubt_names(ra_replay_doubts(c->rp, f.dev, f.ino), doubts,
				      sizeof(doubts));
		rc = ra_batch_put(st, "iiiiiitt", c->run_id, (int64_t)f.dev, (int64_t)f.ino,
				f.windows[0], f.windows[1], f.exact, doubts[0] ? doubts : NULL,
				f.first_difference);
		tot[0] += f.windows[0];
		tot[1] += f.windows[1];
		tot[2] += f.exact;
	}
	if (rc == 0)
		rc = ra_batch_flush(st);
	ra_batch_free(st);
	return rc;
}

static int store(struct check *c)
{
	int64_t tot[3] = { 0 };
	char doubts[128];

	if (ra_wincmp_end(c->cmp) < 0 || store_files(c, tot) < 0)
		return -1;
	ra_replay_doubt_names(ra_replay_doubts(c->rp, 0, 0), doubts, sizeof(doubts));
	return ra_sql_exec(c->db, "INSERT INTO replay_checks (run_id, series, windows, replayed,"
				  " exact, share, doubts, bytes_read, read_ns)"
				  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
			   "itiiidtij", c->run_id, ra_kseries_name(c->series), tot[0], tot[1],
			   tot[2], tot[0] ? (double)tot[2] / (double)tot[0] : (double)NAN,
			   doubts[0] ? doubts : NULL, (int64_t)c->bytes_read.bytes,
			   c->first_read >= 0 ? c->last_read - c->first_read : (int64_t)-1);
}

/* ---- the pass ---- */

static int series_of_run(struct check *c, char *note)
{
	char *kernel = NULL;

	if (ra_sql_one(c->db, "SELECT kernel FROM runs WHERE run_id = ?1", "i", "T", c->run_id,
		       &kernel) < 0)
		return -1;
	c->series = kernel ? ra_kseries_of(kernel) : -1;
	if (c->series < 0)
		snprintf(note, RA_PASS_NOTE, "no replay: the run's kernel ('%s') is not one whose"
			 " readahead ratrace models (6.1 and later)", kernel ? kernel : "unknown");
	free(kernel);
	return 0;
}

static void check_release(struct check *c)
{
	ra_replay_free(c->rp);
	ra_wincmp_free(c->cmp);
	ra_fileset_release(&c->files);
	ra_map_release(&c->tgids);
	ra_map_release(&c->asked_tgids);
	ra_read_bytes_release(&c->bytes_read);
	ra_big_free(c->info);
}

static int check_init(struct check *c)
{
	struct ra_replay_params p = { .series = c->series, .policy = RA_POLICY_KERNEL,
				      .file = replay_file, .tgid = replay_tgid,
				      .emit = on_replayed, .arg = c };

	if (ra_fileset_init(&c->files) < 0 || ra_map_init(&c->tgids, sizeof(int)) < 0 ||
	    ra_map_init(&c->asked_tgids, sizeof(int)) < 0 ||
	    ra_read_bytes_init(&c->bytes_read) < 0 || !(c->cmp = ra_wincmp_alloc()) || !(c->rp = ra_replay_alloc(&p))) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	return 0;
}

/* ---- fed as the run is stored ---- */

struct ra_replay_live {
	struct check c;
	/* a run that does not say what the replay must know (an imported
	 * trace): only the first pass follows the events, the replay reads
	 * them after the load */
	bool scan;
};

static bool needs_scan(const struct check *c);
static int note_ra_pages(const struct ra_event *ev, int64_t seq, void *arg);

/* The replay fed run @run_id's events; @scan: its first pass only (needs_scan()). */
static struct ra_replay_live *live_new(struct ra_db *db, int64_t run_id,
				       const struct ra_live_inputs *in, bool scan)
{
	struct ra_replay_live *lv = calloc(1, sizeof(*lv));
	char note[RA_PASS_NOTE];

	if (!lv) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	lv->c = (struct check){ .db = db, .run_id = run_id, .first_read = -1, .live = !scan,
				.in = *in };
	lv->scan = scan;
	lv->c.io_pages = in->max_sectors_kb > 0 ? (uint32_t)in->max_sectors_kb / 4 : 0;
	lv->c.default_ra_pages = in->read_ahead_kb > 0 ? (uint32_t)in->read_ahead_kb / 4 : 32;
	if (series_of_run(&lv->c, note) < 0 || lv->c.series < 0 || check_init(&lv->c) < 0) {
		if (lv->c.series < 0)
			ra_set_error(RA_ERR_DATA, "%s", note);
		ra_replay_live_free(lv);
		return NULL;
	}
	return lv;
}

struct ra_replay_live *ra_replay_live_begin(struct ra_db *db, int64_t run_id,
					    const struct ra_live_inputs *in)
{
	struct check probe = { .db = db, .run_id = run_id };

	return live_new(db, run_id, in, needs_scan(&probe));
}

struct ra_replay_live *ra_replay_scan_begin(struct ra_db *db, int64_t run_id)
{
	struct check probe = { .db = db, .run_id = run_id };
	struct ra_live_inputs in = { 0 };
	struct ra_replay_live *lv;

	if (!needs_scan(&probe))
		return NULL;
	lv = live_new(db, run_id, &in, true);
	if (!lv)
		ra_set_error(RA_OK, "%s", "");	/* the replay says why, if it runs */
	return lv;
}

int ra_replay_live_event(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct ra_replay_live *lv = arg;
	int cls = ra_event_class(ev->type);

	if (lv->c.failed || (cls != RA_CLASS_RA && cls != RA_CLASS_PAGE))
		return 0;
	if (lv->scan ? (cls == RA_CLASS_RA && note_ra_pages(ev, seq, &lv->c) < 0) ||
		       ra_replay_scan(lv->c.rp, ev) < 0 :
		       on_recorded(ev, seq, &lv->c) < 0)
		lv->c.failed = true;
	return 0;
}

void ra_replay_live_free(struct ra_replay_live *lv)
{
	if (!lv)
		return;
	check_release(&lv->c);
	free(lv);
}

/*
 * Did what the replay was told as the events came hold? The sizes and file
 * systems of the files it asked, the processes of the tasks: 1, or 0 when
 * one differs from the run's (the stored events are replayed again), -1.
 */
static int live_held(struct check *lv, char *why, size_t len)
{
	struct check fin = { .db = lv->db, .run_id = lv->run_id };
	int ret = 1;

	if (lv->failed || check_init(&fin) < 0) {
		check_release(&fin);
		snprintf(why, len, "the replay that followed failed");
		return lv->failed ? 0 : -1;
	}
	if (load_files(&fin) < 0 || load_tgids(&fin) < 0) {
		check_release(&fin);
		return -1;
	}
	for (size_t i = 0; i < lv->files.n && ret == 1; i++) {
		const struct finfo *a = &lv->info[i], *b;
		int k = ra_fileset_find(&fin.files, lv->files.ids[i].dev, lv->files.ids[i].ino);

		/*
		 * What the replay was told of a file matters where it has windows
		 * (a file written, read from the page cache, or of which only
		 * deleted pages passed has none, whatever its size then)
		 */
		if (k < 0 || !ra_wincmp_windows(lv->cmp, lv->files.ids[i].dev, lv->files.ids[i].ino))
			continue;
		b = &fin.info[k];
		if (a->asked && a->size_bytes != b->size_bytes) {
			snprintf(why, len, "the size of file %u:%llu was not known when it was needed",
				 lv->files.ids[i].dev, (unsigned long long)lv->files.ids[i].ino);
			ret = 0;
		} else if (a->asked && strcmp(a->fstype, b->fstype)) {
			snprintf(why, len, "the file system of file %u:%llu was not known when it was"
				 " needed", lv->files.ids[i].dev, (unsigned long long)lv->files.ids[i].ino);
			ret = 0;
		}
	}
	for (size_t i = 0; i < lv->asked_tgids.cap && ret == 1; i++) {
		uint64_t key = lv->asked_tgids.keys[i];
		const int *stored = key ? ra_map_get(&fin.tgids, key) : NULL;
		int pid = (int)(uint32_t)(key - 1), asked = ((const int *)lv->asked_tgids.vals)[i];

		/* as tgid_of() takes them: a task of no known process is its own */
		if (key && (stored && *stored > 0 ? *stored : pid) != (asked > 0 ? asked : pid)) {
			snprintf(why, len, "the process of task %d was not known when it was needed"
				 " (%d, then %d)", pid, asked > 0 ? asked : pid,
				 stored && *stored > 0 ? *stored : pid);
			ret = 0;
		}
	}
	check_release(&fin);
	return ret;
}

/*
 * The replay's first pass finds what only the whole run shows: what an
 * imported trace does not say (file sizes, file systems, pages cached
 * before it). A recording says them, and its own replay reads no further
 * than it did: one pass over its events is enough.
 */
static bool needs_scan(const struct check *c)
{
	int64_t recorded = 0;

	if (ra_sql_one(c->db, "SELECT COUNT(*) FROM runs WHERE run_id = ?1 AND origin = 'record'",
		       "i", "i", c->run_id, &recorded) < 0)
		return true;
	return !recorded;
}

/* The replay that followed the run as it was stored, if what it was told held. */
static int finish_live(struct check *c, const struct ra_analyze_opts *o)
{
	char why[160] = "";
	int held = live_held(c, why, sizeof(why));

	if (held == 0)
		ra_pass_say(o, "replay: replaying the stored events again: %s", why);
	if (held <= 0)
		return held;
	if (order_known(c) < 0 || ra_replay_end(c->rp) < 0 || store(c) < 0)
		return -1;
	ra_pass_say(o, "replay: followed as the events were stored, at %s, %zu files",
		    ra_kseries_name(c->series), c->files.n);
	return 1;
}

/*
 * The replay of the stored events, after its first pass (@scanned: the first
 * pass and the files' readahead sizes followed the load).
 */
static int replay_stored(struct check *c, bool scanned, const struct ra_analyze_opts *o)
{
	if (load_settings(c) < 0 || load_files(c) < 0 || load_tgids(c) < 0 || order_known(c) < 0)
		return -1;
	if (!scanned &&
	    (ra_evstream_each(c->db, c->run_id, RA_STREAM_RA, note_ra_pages, c) < 0 ||
	     (needs_scan(c) && ra_evstream_each(c->db, c->run_id, RA_STREAM_RA | RA_STREAM_PAGE,
						ra_replay_scan_event, c->rp) < 0)))
		return -1;
	if (ra_evstream_each(c->db, c->run_id, RA_STREAM_RA | RA_STREAM_PAGE, on_recorded, c) < 0 ||
	    c->failed || ra_replay_end(c->rp) < 0 || store(c) < 0)
		return -1;
	ra_pass_say(o, "replay: at %s, %zu files%s", ra_kseries_name(c->series), c->files.n,
		    scanned ? "; its first pass beside an earlier reading of the events" : "");
	return 0;
}

static int run_replay(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o,
		      char *note)
{
	struct ra_replay_live *lv = o && o->replay_live && o->replay_live->c.run_id == run_id ?
				    o->replay_live : NULL;
	struct check c = { .db = db, .run_id = run_id, .first_read = -1 };
	int ret = -1;

	if (lv && lv->scan && !lv->c.failed)
		return replay_stored(&lv->c, true, o);
	if (lv && lv->scan)
		ra_pass_say(o, "replay: reading the stored events for its first pass: the one"
			    " that followed failed");
	if (lv && !lv->scan) {
		int done = finish_live(&lv->c, o);

		if (done)
			return done < 0 ? -1 : 0;
	}

	if (series_of_run(&c, note) < 0)
		return -1;
	if (c.series < 0)
		return 0;
	if (check_init(&c) < 0 || replay_stored(&c, false, o) < 0)
		goto out;
	ret = 0;
out:
	check_release(&c);
	return ret;
}

static const char *const replay_needs[] = { "readahead:page_cache_ra_order", NULL };
static const char *const replay_tables[] = { "replay_checks", "replay_files", NULL };

const struct ra_pass ra_pass_replay = {
	.name = "replay",
	.needs = replay_needs,
	.run = run_replay,
	.tables = replay_tables,
	.fed_begin = ra_replay_scan_begin,
	.fed_event = ra_replay_live_event,
	.fed_free = ra_replay_live_free,
};
