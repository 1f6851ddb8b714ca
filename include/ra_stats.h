/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Statistics for comparing run sets (docs/compare.md).
 */
#ifndef RA_STATS_H
#define RA_STATS_H

#include <stdbool.h>

struct ra_summary {
	int n;
	double mean;		/* harmonic for rates, arithmetic otherwise */
	double arith_mean;
	double median;
	double stddev;		/* sample standard deviation */
	double cv;		/* stddev / |arithmetic mean| */
	double min, max;
};

/** ra_stats_summary - summary of @n values; @rate: use the harmonic mean; 0 or -1 */
int ra_stats_summary(const double *v, int n, bool rate, struct ra_summary *s);

/**
 * ra_mann_whitney_p - two-sided p-value of the Mann-Whitney U test
 * Exact for samples without ties (na * nb <= 400), else the normal
 * approximation with tie and continuity corrections. NAN for empty samples.
 */
double ra_mann_whitney_p(const double *a, int na, const double *b, int nb);

/** ra_lkp_significant - LKP's rule: each side's median lies outside the other's range */
bool ra_lkp_significant(const struct ra_summary *a, const struct ra_summary *b);

#endif /* RA_STATS_H */
