/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * ratrace analysis passes: derived tables (windows, streams, ...) computed
 * from a run's raw events. docs/metrics.md defines every figure.
 */
#ifndef RA_ANALYZE_H
#define RA_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ra_db.h"

struct ra_analyze_opts {
	int verbose;
	int64_t stall_ns;	/* a readahead bio waiting longer to be issued is a stall; 0: 1 ms */
	/* with verbose > 0: a line of what each pass did; NULL says nothing */
	ra_notice_fn notice;
	void *notice_arg;
	struct ra_progress *progress;	/* each pass's reading of the events, or NULL */
	/* the readahead pass fed as the run was stored (ra_live_begin), or NULL */
	struct ra_live *live;
	/* the replay pass fed so (ra_replay_live_begin), or NULL */
	struct ra_replay_live *replay_live;
	/* the block pass fed so (ra_block_live_begin), or NULL */
	struct ra_block_live *block_live;
	/* the events the readahead pass reads, handed on as it reads them (to
	 * the replay's first pass, on a thread of its own), or NULL */
	struct ra_feed *feed;
	/* readahead windows the pass holds in memory, the others kept in a
	 * temporary file until the end; 0: 16384 (about 3 MiB), at least 5 */
	int window_slots;
	/* block latencies held in memory before their sorter writes them to a
	 * temporary file, merged there at the end; 0: 131072 (2 MiB) */
	int latencies_held;
};

/*
 * The readahead pass of a run fed while its events are stored: ra_live_event
 * is the writer's tap (ra_writer_set_tap), and ra_analyze_in_load() with the
 * result in its options' live writes the rows the events left, the same as a
 * read of the stored events gives. What the run knows only at the end is
 * asked when an event first needs it, and checked then: where an answer
 * differs from the run's, the pass reads the stored events after all.
 */
struct ra_live;

/* A partition a run traces without its disk: the disk's events in its sectors are its. */
struct ra_live_part {
	uint32_t dev, disk;
	uint64_t start, nr_sectors;
};

struct ra_live_inputs {
	int64_t page_size;	/* the run's, in bytes */
	bool completions;	/* block_rq_complete or block_bio_complete is recorded */
	/* the process (thread group) of task @pid, 0 when not known */
	int (*tgid)(int pid, void *arg);
	/* the size in bytes of the file the run will name (dev, ino) with, -1 when not known */
	int64_t (*size)(uint32_t dev, uint64_t ino, void *arg);
	void *arg;
	int window_slots;	/* as ra_analyze_opts' */
	int latencies_held;	/* as ra_analyze_opts' */
	/* for the replay (ra_replay_live_begin): the file system type of file
	 * system @dev ("ext4"), NULL when not known */
	const char *(*fstype)(uint32_t dev, void *arg);
	/* for the block pass (ra_block_live_begin): whether file system @fs_dev
	 * holds data on block device @blkdev or on a partition of it, as the
	 * run's filesystems rows will say; NULL: none known */
	bool (*fs_holds)(uint32_t fs_dev, uint32_t blkdev, void *arg);
	/* for the block pass: the partitions traced without their disk, as the
	 * run's devices rows will say */
	const struct ra_live_part *parts;
	int nparts;
	int max_sectors_kb;	/* the largest of the run's devices', 0 not known */
	int read_ahead_kb;	/* the readahead size the run set, 0 not known */
};

/** ra_live_begin - follow run @run_id's events from now on; NULL on error */
struct ra_live *ra_live_begin(struct ra_db *db, int64_t run_id, const struct ra_live_inputs *in);
/** ra_live_event - one event of the run, in seq order, as stored (a ra_tap_fn) */
int ra_live_event(const struct ra_event *ev, int64_t seq, void *live);
void ra_live_free(struct ra_live *live);

/*
 * The block pass of a run fed while its events are stored, beside the
 * readahead pass @ra (ra_block_live_event after ra_live_event, for each
 * event): its requests and stalls are written as they end, the rest by
 * ra_analyze_in_load() with it in the options' block_live. What it could not
 * know while the events came (the pages a window adds later, the run's
 * partitions and file systems) is checked then: where it does not hold, the
 * pass reads the stored events after all.
 */
struct ra_block_live;
/** ra_block_live_begin - follow run @run_id's events beside @ra; NULL with the error */
struct ra_block_live *ra_block_live_begin(struct ra_db *db, int64_t run_id, struct ra_live *ra,
					  const struct ra_live_inputs *in);
/** ra_block_live_event - one event of the run, in seq order, as stored (a ra_tap_fn) */
int ra_block_live_event(const struct ra_event *ev, int64_t seq, void *live);
void ra_block_live_free(struct ra_block_live *live);

/* A what-if: a run's accesses replayed at another series, size or policy. */
struct ra_whatif {
	int series;		/* the kernel series (its RA_KS_* number); -1 the run's own */
	int policy;		/* 0 the kernel's, 1 a fixed window, 2 a device-scaled one */
	int read_ahead_kb;	/* 0: the run's own */
	int window_kb;		/* the window of policies 1 and 2 */
	int max_sectors_kb;	/* the device's largest request (io_pages); 0: the run's */
	int64_t device_lead_ns;	/* the device's head start (ra_whatif_calibrate) */
};

/**
 * ra_whatif_make - the what-if run of run @src under @wi, inside a load the
 * caller began (ra_db_load_begin()): a run of origin 'whatif' with its
 * readahead and block events, analysed, and its row in the whatif table;
 * its id in *@run_id. 0, or -1 with ra_last_error().
 */
int ra_whatif_make(struct ra_db *db, int64_t src, const struct ra_whatif *wi,
		   const struct ra_analyze_opts *o, int64_t *run_id);

/**
 * ra_whatif_calibrate - the head start of the device model of run @src's
 * what-if runs that makes the replay at its own settings last as long as its
 * reads did, into *@lead_ns (0 where the run cannot tell), inside a load.
 * 0 or -1
 */
int ra_whatif_calibrate(struct ra_db *db, int64_t src, int64_t *lead_ns);

/*
 * The replay pass of a run fed as it is stored (docs/metrics.md "Replay"):
 * ra_replay_live_event is a tap beside ra_live_event, and
 * ra_analyze_in_load() with the result in its options' replay_live stores
 * what the replay found; where what it was told while the events came (a
 * file's size or file system, a task's process) differs from the run's, the
 * pass replays the stored events after all.
 */
struct ra_replay_live;
/*
 * The events of a pass's reading handed on (ra_analyze_opts' feed): @q gets
 * each, and @fed says whether the pass read them all (else the one fed reads
 * them itself).
 */
struct ra_feed {
	struct ra_tapq *q;
	bool fed;
};
/** ra_replay_live_begin - follow run @run_id's events from now on; NULL with the error */
struct ra_replay_live *ra_replay_live_begin(struct ra_db *db, int64_t run_id,
					    const struct ra_live_inputs *in);
/** ra_replay_live_event - one event of the run, in seq order, as stored (a ra_tap_fn) */
int ra_replay_live_event(const struct ra_event *ev, int64_t seq, void *live);
void ra_replay_live_free(struct ra_replay_live *live);
/**
 * ra_replay_scan_begin - the replay's first pass of run @run_id, fed events as
 * ra_replay_live_begin's are, when the run needs one (an imported trace) and
 * the replay models its kernel; else NULL (no error)
 */
struct ra_replay_live *ra_replay_scan_begin(struct ra_db *db, int64_t run_id);

/**
 * ra_analyze_run - (re)compute every analysis of @run_id
 *
 * Replaces the run's derived rows in one transaction: running it twice gives
 * the same tables. A pass whose events the run lacks (readahead:* before
 * Linux 6.18) is stored as 'unavailable' with the reason, not as zeros.
 * Returns 0, or -1 with ra_last_error().
 */
int ra_analyze_run(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *opts);

/**
 * ra_analyze_in_load - the same inside a load the caller began with
 * ra_db_load_begin(): no transaction of its own.
 */
int ra_analyze_in_load(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *opts);

/**
 * ra_analyze_model_in_load - the device model pass of @run_id again, inside a
 * load the caller began
 *
 * A run's model pools the runs recorded like it as they are when the run is
 * analysed, and analysing a run changes no other run's rows: a recording or
 * an import of several runs fits the earlier of them again once the last is
 * in, so that each pools them all.
 */
int ra_analyze_model_in_load(struct ra_db *db, int64_t run_id, const struct ra_analyze_opts *opts);

/**
 * ra_analyze_models - ra_analyze_model_in_load() of every run of @ids but
 * the last (whose model saw them all), each in a transaction of its own
 */
int ra_analyze_models(struct ra_db *db, const int64_t *ids, size_t n,
		      const struct ra_analyze_opts *opts);

/**
 * ra_bench_parse_fio - fio's JSON results in the run's workload output into
 * bench_results; 0 or -1
 */
int ra_bench_parse_fio(struct ra_db *db, int64_t run_id);

#endif /* RA_ANALYZE_H */
