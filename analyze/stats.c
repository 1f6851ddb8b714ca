// SPDX-License-Identifier: LGPL-2.1
/*
 * Statistics of run sets: summaries, the two-sided Mann-Whitney U test
 * (exact for small samples without ties, normal approximation with tie
 * correction otherwise), and LKP's rule for very small sets.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ra_stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int ra_stats_summary(const double *v, int n, bool rate, struct ra_summary *s)
{
	double *sorted, sum = 0, inv = 0, sq = 0;
	bool nonpos = false;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n <= 0)
		return 0;
	sorted = malloc((size_t)n * sizeof(*sorted));
	if (!sorted)
		return -1;
	memcpy(sorted, v, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_double);
	for (int i = 0; i < n; i++) {
		sum += v[i];
		nonpos |= v[i] <= 0;
		if (v[i] > 0)
			inv += 1 / v[i];
	}
	s->arith_mean = sum / n;
	/* rates average harmonically (the mean of the times it took) */
	s->mean = rate && !nonpos ? n / inv : s->arith_mean;
	for (int i = 0; i < n; i++)
		sq += (v[i] - s->arith_mean) * (v[i] - s->arith_mean);
	s->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	s->cv = s->arith_mean != 0 ? s->stddev / fabs(s->arith_mean) : 0;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	return 0;
}

/* U of sample a: pairs (x in a, y in b) with x > y, ties counting one half. */
static double u_statistic(const double *a, int na, const double *b, int nb)
{
	double u = 0;

	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	return u;
}

static bool has_ties(const double *a, int na, const double *b, int nb)
{
	for (int i = 0; i < na + nb; i++)
		for (int j = i + 1; j < na + nb; j++)
			if ((i < na ? a[i] : b[i - na]) == (j < na ? a[j] : b[j - na]))
				return true;
	return false;
}

/*
 * Exact distribution of U under the null hypothesis: the number of ways to
 * place m items among m + n with a given U, by the recurrence
 * c(m, n, u) = c(m - 1, n, u - n) + c(m, n - 1, u).
 */
static double exact_p(int m, int n, double u)
{
	int umax = m * n, lo = (int)floor(u < umax - u ? u : umax - u);
	double *c, total = 0, tail = 0, p;

	/* c[j][k]: counts for j items of the first sample among the first ones */
	c = calloc((size_t)(m + 1) * (size_t)(n + 1) * (size_t)(umax + 1), sizeof(*c));
	if (!c)
		return NAN;
#define C(j, k, x) c[((size_t)(j) * (size_t)(n + 1) + (size_t)(k)) * (size_t)(umax + 1) + (size_t)(x)]
	for (int j = 0; j <= m; j++)
		for (int k = 0; k <= n; k++)
			for (int x = 0; x <= j * k; x++) {
				if (j == 0 || k == 0) {
					C(j, k, x) = x == 0;
					continue;
				}
				C(j, k, x) = (x >= k ? C(j - 1, k, x - k) : 0) + C(j, k - 1, x);
			}
	for (int x = 0; x <= umax; x++) {
		total += C(m, n, x);
		if (x <= lo)
			tail += C(m, n, x);
	}
#undef C
	free(c);
	p = 2 * tail / total;
	return p > 1 ? 1 : p;
}

/* Normal approximation with tie correction and continuity correction. */
static double normal_p(const double *a, int na, const double *b, int nb, double u)
{
	int n = na + nb;
	double *all = malloc((size_t)n * sizeof(*all)), ties = 0, mu, sigma, z;

	if (!all)
		return NAN;
	memcpy(all, a, (size_t)na * sizeof(*all));
	memcpy(all + na, b, (size_t)nb * sizeof(*all));
	qsort(all, (size_t)n, sizeof(*all), cmp_double);
	for (int i = 0; i < n;) {
		int j = i;

		while (j < n && all[j] == all[i])
			j++;
		ties += pow(j - i, 3) - (j - i);
		i = j;
	}
	free(all);
	mu = na * (double)nb / 2;
	sigma = sqrt(na * (double)nb / 12 * ((n + 1) - ties / ((double)n * (n - 1))));
	if (sigma == 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sigma;
	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2));
}

double ra_mann_whitney_p(const double *a, int na, const double *b, int nb)
{
	double u;

	if (na < 1 || nb < 1)
		return NAN;
	u = u_statistic(a, na, b, nb);
	if (!has_ties(a, na, b, nb) && na * nb <= 400)
		return exact_p(na, nb, u);
	return normal_p(a, na, b, nb, u);
}

bool ra_lkp_significant(const struct ra_summary *a, const struct ra_summary *b)
{
	/* each side's median outside the other's range */
	return (a->median < b->min || a->median > b->max) &&
	       (b->median < a->min || b->median > a->max);
}
