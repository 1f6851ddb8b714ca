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
#include <sqlite3.h>

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
	char why[160];		/* when !ok: why the points do not determine the model */
};

/* A fit whose rms relative error exceeds this is called poor in the advice. */
#define RA_MODEL_POOR_FIT 0.25

/* The smallest number of samples a size class needs to be a point of the fit. */
#define RA_MODEL_MIN_SAMPLES 5

/** ra_model_form_name - "sum" or "max" */
const char *ra_model_form_name(int form);

/**
 * ra_model_fit - fit @form to @n points sorted by size; each point weighs
 * sqrt(its samples) and its residual counts relative to its time. The fit
 * needs two sizes at least four times apart. Returns 0 with @f->ok, or 0
 * with !@f->ok and the reason in @f->why.
 */
int ra_model_fit(const struct ra_model_point *p, int n, int form, struct ra_model_fit *f);

/**
 * ra_model_fit_row - a fit stored in device_models, from the columns form,
 * status, access_ns, bandwidth_bps, rms_rel_err, reason of @st from @col on
 */
void ra_model_fit_row(sqlite3_stmt *st, int col, struct ra_model_fit *f);

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

struct ra_advice {
	double fraction;
	double target_bytes;	/* ra_model_size_for(), 0 without a model */
	int model_kb;		/* smallest power of two >= target (at least 16), 0 without a model */
	int thrash_kb;		/* smallest window size class that thrashed, 0 none */
	int current_kb;		/* read_ahead_kb of the recording, -1 unknown */
	int recommended_kb;	/* 0: no recommendation */
	char reasoning[1024];
};

/**
 * ra_model_advise - the recommended read_ahead_kb: the smallest power of two
 * that reaches @fraction of the asymptotic throughput under @f, lowered below
 * @thrash_kb when windows that large thrashed. Without a model (@f NULL or
 * !ok) only the thrashing gives an advice: half of @thrash_kb; else none. The
 * reasoning is written in sentences; @other (the other form's fit, or NULL)
 * adds how much worse it fits.
 */
void ra_model_advise(const struct ra_model_fit *f, const struct ra_model_fit *other,
		     double fraction, int thrash_kb, int current_kb, struct ra_advice *a);

#endif /* RA_MODEL_H */
