/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private interfaces of the analysis passes.
 */
#ifndef RA_ANALYZE_LOCAL_H
#define RA_ANALYZE_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ra_analyze.h"
#include "ra_event.h"
#include "ra_evstream.h"
#include "ra_tmpfile.h"

/*
 * ra_grow - room for @need elements of @size bytes in the array *@p of
 * capacity *@cap: doubled as often as it takes, the new elements zeroed;
 * 0, or -1 with ra_last_error() (*@p is kept)
 */
int ra_grow(void **p, size_t *cap, size_t need, size_t size);
/** ra_grow_big - ra_grow() of an array of big memory (ra_bigmem.h), given back by ra_big_free() */
int ra_grow_big(void **p, size_t *cap, size_t need, size_t size);

/* ---- xsort.c: records sorted in bounded memory ---- */

/*
 * Records of @size bytes put in any order and read back in the order of
 * @cmp (a total order), in @mem bytes of memory: past them, sorted runs go
 * to an unnamed temporary file in $TMPDIR (or /tmp) and are merged as read.
 */
struct ra_xsort;
/** ra_xsort_new - an empty sorter; NULL out of memory */
struct ra_xsort *ra_xsort_new(size_t size, int (*cmp)(const void *, const void *), size_t mem);
/** ra_xsort_put - a copy of @rec; 0, or -1 with ra_last_error() */
int ra_xsort_put(struct ra_xsort *x, const void *rec);
/** ra_xsort_end - no more records: the reading begins (the first peek or next does it too) */
int ra_xsort_end(struct ra_xsort *x);
/** ra_xsort_peek - the next record in order, not taken; NULL at the end or on error */
const void *ra_xsort_peek(struct ra_xsort *x);
/** ra_xsort_next - the next record into @rec: 1, 0 at the end, -1 on error */
int ra_xsort_next(struct ra_xsort *x, void *rec);
/** ra_xsort_spilled - whether runs went to the file; ra_xsort_failed - whether one call failed */
bool ra_xsort_spilled(const struct ra_xsort *x);
bool ra_xsort_failed(const struct ra_xsort *x);
void ra_xsort_free(struct ra_xsort *x);

/* ---- readahead.c: its windows, for the block pass fed beside it ---- */

struct ra_live_window {
	int64_t seq;		/* of the event that opened it */
	int64_t ts;		/* of that event */
	bool sync;		/* trigger 'sync' */
	uint32_t dev;		/* of its file */
	int64_t stream;		/* its row's stream_id */
	int64_t size;		/* in pages */
	int64_t pages_added;	/* so far */
};
/** ra_live_windows - the windows opened so far, -1 when the pass could not follow */
int ra_live_windows(const struct ra_live *lv);
/** ra_live_window - window @id (from 0) as it is now; 0, or -1 */
int ra_live_window(struct ra_live *lv, int id, struct ra_live_window *out);
/** ra_live_followed - whether the run's readahead rows came from @lv's state */
bool ra_live_followed(const struct ra_live *lv);

/* ---- the passes ---- */

/** ra_block_live_rows - whether @o's block pass followed run @run_id as it was stored */
bool ra_block_live_rows(const struct ra_analyze_opts *o, int64_t run_id);
/** ra_block_live_followed - and whether its rows came from what it followed */
bool ra_block_live_followed(const struct ra_analyze_opts *o, int64_t run_id);

/** ra_pass_say - a line of what a pass did, through @o's notice when verbose */
void ra_pass_say(const struct ra_analyze_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define RA_PASS_NOTE 256

struct ra_pass {
	const char *name;
	/* Tracepoints the pass cannot do without ("system:event"), NULL-terminated. */
	const char *const *needs;
	/*
	 * 0 or -1 (ra_last_error()). A pass that did its work with a caveat
	 * writes it in @note (NUL-terminated, RA_PASS_NOTE bytes): the message
	 * of its analyses row, state ok.
	 */
	int (*run)(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *o, char *note);
	/* Tables of derived rows the pass owns, deleted before it runs. */
	const char *const *tables;
	/*
	 * Tables of what the pass keeps of the run's own rows for later passes
	 * of other runs (NULL: none): deleted with @tables, except when the
	 * pass runs again over the same rows (a model refitted to a grown pool).
	 */
	const char *const *inputs;
	/* Whether rows of @run_id were written as its events were stored: the
	 * tables are not deleted then (the pass deletes them if it reads the
	 * events again). NULL: never. */
	bool (*live_rows)(const struct ra_analyze_opts *o, int64_t run_id);
	/*
	 * A pass that reads the events twice, whose first reading can take
	 * the events an earlier pass reads (the driver hands them on, on a
	 * thread of their own): its state for @run_id, NULL when it has none to
	 * take; what it does with an event (a ra_tap_fn); its state freed. The
	 * state reaches the pass as ra_analyze_opts' replay_live. NULL: none.
	 */
	struct ra_replay_live *(*fed_begin)(struct ra_db *db, int64_t run_id);
	int (*fed_event)(const struct ra_event *ev, int64_t seq, void *state);
	void (*fed_free)(struct ra_replay_live *state);
};

/** ra_pass_clear - delete @p's rows of run @run_id from its tables and inputs; 0 or -1 */
int ra_pass_clear(struct ra_db *db, const struct ra_pass *p, int64_t run_id);

extern const struct ra_pass ra_pass_readahead;
extern const struct ra_pass ra_pass_block;
extern const struct ra_pass ra_pass_model;
extern const struct ra_pass ra_pass_replay;
/* SQL of the run ids pooled with run ?1 by the model pass (itself included) */
extern const char ra_model_pool_sql[];

/* ---- modelsets.c: the runs of a model's pool and their run sets ---- */

struct ra_model_fit;

struct ra_member {
	int64_t run_id;
	const char *state;	/* "used", "failed", "killed", "interrupted", "no_io",
				 * "no_readahead" */
	char reason[128];
	int setting_kb;		/* read_ahead_kb, else the trace's ra_pages in KiB */
	int ra_kb;		/* the trace's largest ra_pages, KiB */
	double window_bytes;	/* the steady window */
	int windows;		/* windows with device time */
	int all_windows;
	double io_ns;		/* first window opened to last completed */
	double idle_share, held_share;
	bool device_paced;	/* held as long as idle, or RA_MODEL_HELD_SHARE: the device's pace */
	double thrash_share;	/* of the steady size class's readahead pages */
	int64_t thrashed_pages;
	double cached_share;
	double unused_share;	/* pages added never used: pending at the end, evicted unused */
	bool app_measured;	/* measured_bps is the benchmark's (fio), not the device's */
	double measured_bps, predicted_bps;
};

/**
 * ra_pool_members - the runs of run @run_id's pool with their facts on file
 * system device @dev, in *@out (freed by the caller), *@n of them
 */
int ra_pool_members(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_member **out,
		    int *n);
/*
 * What a member's facts on a device are made of, over its windows there (NaN
 * or 0 where there is none): of the windows with device time their count,
 * service, idle and held time, first opening and last completion (@io); the
 * steady window's size in pages; of the windows of the steady size class
 * (half of it and up) their readahead pages added and thrashed, of all the
 * pages they covered inside the file, added, the largest ra_pages of a
 * readahead, their count, pages pending or evicted unused (@fates); and how
 * many devices the run's windows with I/O read from.
 */
struct ra_member_sums {
	double io[6];
	double steady;
	double fates[7];
	double io_devs;
};
/** ra_member_sums - @w of run @run_id on file system device @dev, by SQL over its rows */
int ra_member_sums(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_member_sums *w);
/** ra_member_finish - the facts @m of run @m->run_id on @dev from @w and the run's own rows */
int ra_member_finish(struct ra_db *db, uint32_t dev, const struct ra_member_sums *w,
		     struct ra_member *m);
/** ra_member_load - the facts of run @m->run_id on file system device @dev, from its rows */
int ra_member_load(struct ra_db *db, uint32_t dev, struct ra_member *m);
/** ra_model_facts_load - run @run_id's stored facts on @dev into @m: 1, 0 none stored, -1 */
int ra_model_facts_load(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_member *m);

/* ---- modelinputs.c: a run's own inputs to its pools' models ---- */

/* Size classes of samples: log2 of their bytes, rounded; a model point each. */
#define RA_MODEL_CLASSES 48
/* A member's size class counts in a pool when it holds this share of its samples of the device. */
#define RA_MODEL_RUN_CLASS_SHARE 0.10

/** ra_model_inputs_store - compute and write run @run_id's model_facts and model_samples */
int ra_model_inputs_store(struct ra_db *db, int64_t run_id);

/*
 * The same inputs fed as the passes write the rows they are made of, so that
 * the model pass need not read the run's windows and requests again: a
 * window's row as the readahead pass writes it (again with its last row as
 * @was), a window_io row as the block pass writes it, a request as it is
 * stored. What the feed cannot follow spoils it: the inputs are then read
 * from the rows.
 */
struct ra_model_feed;
/* A windows row: what the model's inputs take of it. */
struct ra_feed_window {
	uint32_t dev;
	int64_t size, stream;	/* stream_id, 0 none */
	int64_t added, ra_added, thrashed;
	int64_t covered;	/* pages of it inside the file */
	int64_t ra_pages;	/* of a readahead (not 'around' or 'forced'), -1 none */
	int64_t unused;		/* pending + evicted_unused */
};
/* A window_io row, with its window's device, opening, stream and size. */
struct ra_feed_io {
	uint32_t dev;
	int64_t ts, stream, size, bytes;
	int64_t service, idle, held;	/* -1 not timed */
	int64_t last_c;			/* 0 none */
};
/** ra_model_feed_new - an empty feed; NULL with ra_last_error() */
struct ra_model_feed *ra_model_feed_new(void);
void ra_model_feed_free(struct ra_model_feed *f);
void ra_model_feed_window(struct ra_model_feed *f, const struct ra_feed_window *now,
			  const struct ra_feed_window *was);
void ra_model_feed_io(struct ra_model_feed *f, const struct ra_feed_io *io);
/** ra_model_feed_io_again - the window_io rows are written again from none */
void ra_model_feed_io_again(struct ra_model_feed *f);
/** ra_model_feed_request - a requests row: its device, sectors, D2C, whether a read with D2C */
void ra_model_feed_request(struct ra_model_feed *f, uint32_t dev, int64_t sectors,
			   int64_t d2c_ns, bool read);
/** ra_model_feed_spoil - the feed cannot give the run's inputs (@why); safe on NULL */
void ra_model_feed_spoil(struct ra_model_feed *f, const char *why);
/**
 * ra_model_inputs_store_fed - ra_model_inputs_store() from @f: 1 stored, 0
 * not (the feed was spoiled, or its rows were not the run's: @why), -1 error
 */
int ra_model_inputs_store_fed(struct ra_db *db, int64_t run_id, struct ra_model_feed *f,
			      char *why, size_t len);
/** ra_live_feed - the model inputs fed beside the readahead pass @lv, NULL none */
struct ra_model_feed *ra_live_feed(struct ra_live *lv);

/* A size class of a pool: its members' samples that count, summed, and their median. */
struct ra_pool_class {
	int64_t n, n_lat;
	double bytes, sum_ns, sum_lat;
	int64_t p50;
};
/**
 * ra_model_pool_classes - the RA_MODEL_CLASSES classes @cls of run @run_id's
 * pool on device @dev by @timing ("window" or "d2c"), from its members'
 * stored inputs; *@nruns the members that gave samples; 0 or -1
 */
int ra_model_pool_classes(struct ra_db *db, int64_t run_id, uint32_t dev, const char *timing,
			  struct ra_pool_class *cls, int *nruns);
/**
 * ra_pool_store - @m's predictions under @fit (chosen form; !ok: none), its
 * rows in model_runs and its run sets in model_sets, for run @run_id
 */
int ra_pool_store(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_member *m, int n,
		  const struct ra_model_fit *fit);

/* ---- spans.c: time intervals ---- */

struct ra_span {
	int64_t lo, hi;
};

/** ra_span_union - sort @n spans and merge the overlapping ones in place; the new count */
int ra_span_union(struct ra_span *s, int n);
/**
 * ra_span_cover - how much of (@lo, @hi] the union @u of @n spans covers.
 * Queries must come in increasing time: *@cur (0 at first) skips the spans
 * that ended before @lo.
 */
int64_t ra_span_cover(const struct ra_span *u, int n, int *cur, int64_t lo, int64_t hi);

/*
 * A union of spans that come in any order, kept disjoint and in order of
 * their starts, for intervals that come in increasing time: spans that end
 * before the next interval are dropped.
 */
struct ra_span_set {
	struct ra_span *u;
	int n;
	size_t cap;
};

/** ra_span_set_add - @s with (@lo, @hi] added (nothing when @hi <= @lo); -1: no memory */
int ra_span_set_add(struct ra_span_set *s, int64_t lo, int64_t hi);
/** ra_span_set_cover - how much of (@lo, @hi] the spans of @s cover */
int64_t ra_span_set_cover(const struct ra_span_set *s, int64_t lo, int64_t hi);
/** ra_span_set_drop - the spans that end at or before @t dropped */
void ra_span_set_drop(struct ra_span_set *s, int64_t t);
void ra_span_set_free(struct ra_span_set *s);

/* ---- slots.c: a pass's records by id, in bounded memory ---- */

struct ra_slots;

/**
 * ra_slots_new - records of @size bytes, at most @max (at least 5) in memory,
 * the others in a temporary file; @name names them in errors
 */
struct ra_slots *ra_slots_new(const char *name, size_t size, int max);
/** ra_slots_make - record @id, zeroed: ids are made 0, 1, 2...; NULL on error */
void *ra_slots_make(struct ra_slots *s, int64_t id);
/**
 * ra_slots_get - record @id, read back if it was written out; NULL when it was
 * never made, or on error (ra_slots_failed). A pointer stays valid for the
 * next three calls of ra_slots_make, ra_slots_get or ra_slots_peek on the
 * set, whatever they make or read back (a set's records never move).
 */
void *ra_slots_get(struct ra_slots *s, int64_t id);
/**
 * ra_slots_keyed - the record of @key, found through @ids (key -> int id):
 * when new, made (zeroed, the next id) and *@fresh; *@id its id. NULL on
 * error (the key is not kept then).
 */
struct ra_map;
void *ra_slots_keyed(struct ra_slots *s, struct ra_map *ids, uint64_t key, bool *fresh, int *id);
/** ra_slots_peek - the same, to read only: a record not changed is not written again */
const void *ra_slots_peek(struct ra_slots *s, int64_t id);
/** ra_slots_failed - whether a call failed (ra_last_error() said why) */
bool ra_slots_failed(const struct ra_slots *s);
/** ra_slots_spilled - whether some record was written out */
bool ra_slots_spilled(const struct ra_slots *s);
/**
 * ra_slots_keep - @keep(id, record, @arg) when a changed record is written
 * out: 1 when it stored the record's final form itself, 0 when not, -1 on
 * error (the write fails); what it changes in the record is written too
 */
void ra_slots_keep(struct ra_slots *s, int (*keep)(int64_t id, void *rec, void *arg),
		   void *arg);
/**
 * ra_slots_each - @fn on every record in id order, until it returns nonzero;
 * changes @fn makes are kept only when nothing was written out. With a
 * keeper, the records it did not keep (or that changed since), in no order.
 */
int ra_slots_each(struct ra_slots *s, int (*fn)(int64_t id, void *rec, void *arg), void *arg);
/** ra_slots_detach - give up the records (another set may read the same run again) */
void ra_slots_detach(struct ra_slots *s);
/** ra_slots_free - the records and their file; safe on NULL */
void ra_slots_free(struct ra_slots *s);

/* ---- wincmp.c: two sides' readahead windows compared in order ---- */

struct ra_wincmp;

struct ra_wincmp *ra_wincmp_alloc(void);
void ra_wincmp_free(struct ra_wincmp *c);
/** ra_wincmp_no_order - the folio orders side 0's events give are not the kernel's (kprobes) */
void ra_wincmp_no_order(struct ra_wincmp *c);
/** ra_wincmp_takes - whether @ev is one of the readahead events that make windows */
bool ra_wincmp_takes(const struct ra_event *ev);
/**
 * ra_wincmp_event - a readahead event of side @side (0 or 1), of the open file
 * of its file and process @who (a number that names the process alike on
 * both sides); other events are ignored. 0 or -1
 */
int ra_wincmp_event(struct ra_wincmp *c, int side, const struct ra_event *ev, int who);
/** ra_wincmp_end - the windows still waiting for the other side are unmatched; 0 or -1 */
int ra_wincmp_end(struct ra_wincmp *c);

struct ra_wincmp_file {
	uint32_t dev;
	uint64_t ino;
	int64_t windows[2];		/* of each side */
	int64_t exact;			/* met by the same window on the other side */
	const char *first_difference;	/* the first that was not, or NULL */
};

/** ra_wincmp_windows - whether file (@dev, @ino) had windows on either side */
bool ra_wincmp_windows(struct ra_wincmp *c, uint32_t dev, uint64_t ino);
/** ra_wincmp_file - the tallies of the @i-th file (0, 1, ...); false past the last */
bool ra_wincmp_file(const struct ra_wincmp *c, size_t i, struct ra_wincmp_file *out);

/* ---- replaycheck.c ---- */

/** ra_replay_scan_event - ra_replay_scan() of replay @rp as an event stream's callback */
int ra_replay_scan_event(const struct ra_event *ev, int64_t seq, void *rp);
/** ra_replay_doubt_names - "shared,reclaim" of replay doubts @d (enum ra_replay_doubt) */
void ra_replay_doubt_names(unsigned int d, char *buf, size_t len);

/* ---- analyze.c ---- */

/** ra_analyze_exec - run one SQL statement with the run id bound to ?1 */
int ra_analyze_exec(struct ra_db *db, const char *sql, int64_t run_id);

#endif /* RA_ANALYZE_LOCAL_H */
