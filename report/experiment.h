/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The experiment's data (experiment.c), shared with its HTML page (html.c):
 * the run sets of a database, their dimensions and figures, and what their
 * charts draw.
 */
#ifndef RA_EXPERIMENT_H
#define RA_EXPERIMENT_H

#include <stdint.h>

#define MAX_PARAMS 64
#define MAX_DIMS 16
#define X_BUCKETS 64	/* latency histogram buckets, window ramp points */

struct param {
	char *name;	/* "read_ahead_kb", "numjobs", the variable of "env" */
	char *scope;	/* the device, "fio", "" */
	char *value;
};

struct xset {
	struct param *params;
	int nparams;
	int64_t *runs;
	int nruns;
	char *key;	/* its parameters, for grouping */
	char *label;	/* the dimensions' values: "read_ahead_kb=16 numjobs=4" */
	const char *values[MAX_DIMS];	/* per dimension, "-" when it has none */
	/* figures over its runs; NAN when none has them */
	double tput_hmean, tput_min, tput_max, max_lat_ns, hit, thrashed, windows, ra_bytes,
		stalls;
	int tput_n;
	/* charts: D2C requests per log2 bucket over its runs (bucket b: [2^b, 2^(b+1)) ns) */
	double lat[X_BUCKETS];
	/* the window sizes (pages) of the busiest stream of its first run, in order */
	double ramp[X_BUCKETS];
	int nramp;
};

struct ra_experiment {
	struct xset *sets;
	int nsets;
	int ndims;
	char *dims[MAX_DIMS];		/* display names */
	char *dim_name[MAX_DIMS], *dim_scope[MAX_DIMS];
	const char *tput_metric;	/* read_bw_bytes or device_read_bw_bytes */
};

#endif
