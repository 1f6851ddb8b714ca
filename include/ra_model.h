/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The device service model: the time an I/O of a given size costs a device,
 * fitted from the recorded I/O, and the read_ahead_kb it suggests.
 *
 * Two forms are fitted to the same points and the better one is kept:
 *   sum: latency(x) = access + x / bandwidth      (a disk: seek, then transfer)
 *   max: latency(x) = max(access, x / bandwidth)  (a rate limiter: an IOPS cap
 *        and a bandwidth cap, as blk-throttle or a cloud volume enforce them)
 * docs/metrics.md states the rules.
 */
#ifndef RA_MODEL_H
#define RA_MODEL_H

#include <stdbool.h>
#include <stdint.h>

enum ra_model_form { RA_FORM_SUM, RA_FORM_MAX };

/* One size class: the mean size and mean service time of n samples. */
struct ra_model_point {
	double bytes;
	double ns;
	double n;
};

struct ra_model_fit {
	int form;		/* enum ra_model_form */
	bool ok;
	double access_ns;
	double bw_bps;		/* bytes per second */
	double rms_rel;		/* weighted root mean square of the relative residuals */
	double max_rel;		/* the largest relative residual */
	int points;		/* size classes fitted */
	double min_bytes;	/* the smallest and largest point: the measured range */
	double max_bytes;
	double min_ns;		/* their times */
	double max_ns;
	char why[160];		/* !ok: why the points do not determine the model; ok: a term they
				   do not identify, or empty */
};

/* A fit whose rms relative error exceeds this is called poor in the advice. */
#define RA_MODEL_POOR_FIT 0.25

/*
 * A term of a fit is identified when it shows: the largest size's time this
 * much above the access time (bandwidth), the smallest size's time this much
 * above its transfer (access time).
 */
#define RA_MODEL_TERM_EVIDENCE 1.25

/* The smallest number of samples a size class needs to be a point of the fit. */
#define RA_MODEL_MIN_SAMPLES 5

/* The fraction of the best throughput the stored advice aims at (ra-report --fraction). */
#define RA_ADVICE_FRACTION 0.8

/*
 * A run is device-paced when its windows were held above the block layer
 * (by a throttle) at least as long as the device sat idle, or this share of
 * its I/O time: the limiter, not the reader, bounded it.
 */
#define RA_MODEL_HELD_SHARE 0.2

#define RA_STR_(x) #x
#define RA_STR(x) RA_STR_(x)

/* A run set whose predicted throughput is off the measured by more than this is not explained. */
#define RA_MODEL_EXPLAIN_TOL 0.15

/* A run set thrashes when this share of its readahead pages (and 16 at least) thrashed. */
#define RA_THRASH_SHARE 0.05
#define RA_THRASH_MIN_PAGES 16

/** ra_model_form_name - "sum" or "max" */
const char *ra_model_form_name(int form);

/**
 * ra_model_fit - fit @form to @n points sorted by size; each point weighs
 * sqrt(its samples) and its residual counts relative to its time. The fit
 * needs two sizes at least four times apart. Returns 0 with @f->ok, or 0
 * with !@f->ok and the reason in @f->why.
 */
int ra_model_fit(const struct ra_model_point *p, int n, int form, struct ra_model_fit *f);

/* The columns of device_models that ra_model_fit_row() reads, in its order. */
#define RA_MODEL_FIT_COLS(t)                                                               \
	t "form, " t "status, " t "access_ns, " t "bandwidth_bps, " t "rms_rel_err, " t     \
	"reason, " t "sizes, " t "min_bytes, " t "max_bytes, " t "min_ns, " t "max_ns, " t  \
	"max_rel_err"
#define RA_MODEL_FIT_NCOLS 12

/**
 * ra_model_fit_row - a fit stored in device_models, from the columns
 * RA_MODEL_FIT_COLS of @st from @col on
 */
struct ra_stmt;
void ra_model_fit_row(struct ra_stmt *st, int col, struct ra_model_fit *f);

/** ra_model_latency_ns - the model's time for an I/O of @bytes */
double ra_model_latency_ns(const struct ra_model_fit *f, double bytes);

/** ra_model_throughput - bytes per second of back-to-back I/Os of @bytes */
double ra_model_throughput(const struct ra_model_fit *f, double bytes);

/**
 * ra_model_size_for - the I/O size at which throughput reaches @fraction of
 * the asymptotic throughput (the bandwidth): (fraction / (1 - fraction)) *
 * access * bandwidth for the sum form, fraction * access * bandwidth for the
 * max form.
 */
double ra_model_size_for(const struct ra_model_fit *f, double fraction);

/*
 * One read_ahead_kb of a pool: its runs that count (run set), as medians over
 * them. docs/metrics.md, "Device model", defines each figure.
 */
struct ra_model_set {
	int setting_kb;		/* read_ahead_kb of the runs */
	int runs;
	int ra_kb;		/* the kernel's largest window in the trace (ra_pages), KiB */
	double window_bytes;	/* the steady window: what the kernel read per window */
	double measured_bps;	/* 0: unknown */
	double predicted_bps;	/* the model at window_bytes; 0: no model */
	double thrash_share;	/* thrashed / readahead pages */
	int64_t thrashed_pages;
	double idle_share;	/* the device idle with no window in flight, of the I/O time */
	double held_share;	/* a window held above the block layer (a throttle) */
	double cached_share;	/* pages of the windows that were cached already */
	double unused_share;	/* pages added that were never used (pending, evicted) */
	double io_s;		/* first window opened to last completed, seconds */
	bool reader_paced;	/* idle longer than held: the reader set the pace */
	int explained;		/* 1 within RA_MODEL_EXPLAIN_TOL, 0 not, -1 unknown */
	int cause;		/* enum ra_model_cause when not explained */
	char why[200];		/* when not explained: the likely cause */
};

/* A pool's model and run sets, the input of the advice. */
struct ra_model_pool {
	struct ra_model_fit fit;	/* the chosen form */
	struct ra_model_fit other;	/* the other form */
	struct ra_model_set *sets;	/* by setting_kb, ascending */
	int nsets;
	int left_out;			/* runs of the pool left out (failed, killed, ...) */
	int no_io;			/* runs that read nothing from the device */
	int no_readahead;		/* runs that read from it, but not ahead */
	int current_kb;			/* read_ahead_kb of the run advised, -1 unknown */
};

enum ra_model_cause {
	RA_CAUSE_NONE,
	RA_CAUSE_READER,	/* the device idle with nothing in flight: the reader's pace */
	RA_CAUSE_CACHED,	/* pages that were cached cost no device time */
	RA_CAUSE_THRASH,	/* pages read twice */
	RA_CAUSE_SHORT,		/* a short run: a throttle's burst, a device cache */
	RA_CAUSE_OTHER,
};

/**
 * ra_model_check - compare @s's predicted and measured throughput: sets
 * @s->explained and, when the model does not explain the measurement, the
 * likely cause in @s->why (the reader set the pace, cached pages, thrashing,
 * a short run's burst)
 */
void ra_model_check(struct ra_model_set *s);

enum ra_advice_status {
	RA_ADVICE_NONE,			/* nothing to advise: no I/O */
	RA_ADVICE_OK,
	RA_ADVICE_UNRELIABLE,		/* a number, but the model does not explain the runs */
	RA_ADVICE_UNIDENTIFIABLE,	/* no single number: record next_kb to decide */
	RA_ADVICE_FLAT,			/* every setting measured gives the same I/O */
};

#define RA_ADVICE_MAX_NEXT 4

struct ra_advice {
	double fraction;
	int status;		/* enum ra_advice_status */
	double target_bytes;	/* ra_model_size_for(), 0 without a model */
	int model_kb;		/* the model's smallest setting reaching the fraction, 0 none */
	int measured_kb;	/* the smallest measured setting reaching it, 0 none */
	int thrash_kb;		/* the smallest setting whose runs thrashed, 0 none */
	int current_kb;		/* read_ahead_kb of the recording, -1 unknown */
	int recommended_kb;	/* 0: no recommendation */
	double window_ratio;	/* kernel window / read_ahead_kb, 0 unknown */
	int next_kb[RA_ADVICE_MAX_NEXT];	/* settings to record to decide, 0-ended */
	int verify_kb[2];	/* unmeasured settings the recommendation rests on, 0-ended */
	char reasoning[2048];
};

/**
 * ra_model_advise - the recommended read_ahead_kb of @p at @fraction: the
 * smallest setting whose throughput reaches @fraction of the best over the
 * measured settings (measured where a run set exists, else the model's
 * prediction), in the unit of read_ahead_kb, below the settings whose runs
 * thrashed. No number where the sizes do not bracket the knee, and the
 * settings to record to decide. The reasoning is written in sentences.
 */
void ra_model_advise(const struct ra_model_pool *p, double fraction, struct ra_advice *a);

/** ra_advice_status_name - "ok", "unreliable", "unidentifiable", "flat" or "none" */
const char *ra_advice_status_name(int status);

struct ra_db;

/**
 * ra_model_pool_load - the pool of run @run_id's model of file system device
 * @dev as the model pass stored it: fits, run sets, runs left out, the run's
 * setting. Returns 0, or -1 with ra_last_error(); release with
 * ra_model_pool_release().
 */
int ra_model_pool_load(struct ra_db *db, int64_t run_id, uint32_t dev, struct ra_model_pool *p);
void ra_model_pool_release(struct ra_model_pool *p);

/*
 * The automatic sweep: which read_ahead_kb to record next, from the pool and
 * its advice.
 */
struct ra_sweep_limits {
	int lo_kb, hi_kb;	/* the settings it may record */
	int max_runs;		/* runs in the pool at most */
	int max_repeats;	/* runs of one setting at most */
	double margin;		/* a measurement this close to the threshold is repeated */
};

/**
 * ra_sweep_parse - the limits of an automatic sweep from "auto" (16 to 4096
 * KiB) or "auto:LO-HI". Returns 0, or -1 with ra_last_error().
 */
int ra_sweep_parse(const char *spec, struct ra_sweep_limits *l);

struct ra_sweep_state {
	uint32_t dev;		/* the file system device whose advice decides, 0 none yet */
	int runs;		/* runs of its pool */
	int next_kb;		/* the setting to record next, 0 when decided */
	struct ra_advice advice;
	char why[160];
};

/**
 * ra_sweep_step - where the automatic sweep stands after run @run_id (0: no
 * run yet): the pool of its main device (the one its windows read most), the
 * advice at @fraction, and the next setting to record. Returns 0, or -1 with
 * ra_last_error().
 */
int ra_sweep_step(struct ra_db *db, int64_t run_id, double fraction,
		  const struct ra_sweep_limits *l, struct ra_sweep_state *s);

/**
 * ra_sweep_next - the setting to record next in *@next_kb, or 0 when the
 * advice @a of @p is decided (or cannot be within @l); @why says which in a
 * sentence. Returns 0.
 */
int ra_sweep_next(const struct ra_model_pool *p, const struct ra_advice *a,
		  const struct ra_sweep_limits *l, int *next_kb, char *why, size_t len);

#endif /* RA_MODEL_H */
