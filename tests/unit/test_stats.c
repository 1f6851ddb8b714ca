// SPDX-License-Identifier: LGPL-2.1
/*
 * Statistics against values computed by hand or by a reference: exact
 * Mann-Whitney p-values from a brute-force enumeration of every assignment of
 * the pooled values (what R's wilcox.test(exact = TRUE) computes), the normal
 * approximation with tie and continuity corrections (wilcox.test(exact =
 * FALSE, correct = TRUE)), the harmonic mean, LKP's rule.
 */
#include <math.h>

#include "ra_stats.h"
#include "test.h"

#define CHECK_NEAR(a, b, eps)                                                             \
	do {                                                                              \
		double _a = (a), _b = (b);                                                \
		test_checks++;                                                            \
		if (!(fabs(_a - _b) <= (eps))) {                                          \
			test_failures++;                                                  \
			fprintf(stderr, "%s:%d: %s == %.9g, expected %.9g\n", __FILE__,   \
				__LINE__, #a, _a, _b);                                    \
		}                                                                         \
	} while (0)

struct mw_case {
	double a[8], b[8];
	int na, nb;
	double p;
};

static void test_mann_whitney(void)
{
	static const struct mw_case cases[] = {
		{ { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, 4, 4, 2.0 / 70 },	/* complete separation */
		{ { 1, 2, 3 }, { 4, 5, 6 }, 3, 3, 0.1 },		/* 2 / C(6,3) */
		{ { 1, 3, 5, 7 }, { 2, 4, 6, 8 }, 4, 4, 48.0 / 70 },
		{ { 1.1, 2.2, 3.5, 9.0, 10.2 }, { 4.4, 5.6, 6.7, 7.1, 8.9, 11.3 }, 5, 6,
		  0.428571428571 },
		/* ties: normal approximation */
		{ { 1, 1, 2, 2 }, { 2, 3, 3, 4 }, 4, 4, 0.0515083360488 },
		{ { 10, 12, 12, 15, 18 }, { 12, 20, 22, 22, 25, 30 }, 5, 6, 0.0336804458193 },
		{ { 5, 5, 5 }, { 5, 5, 5 }, 3, 3, 1.0 },		/* all equal */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mw_case *c = &cases[i];

		CHECK_NEAR(ra_mann_whitney_p(c->a, c->na, c->b, c->nb), c->p, 1e-9);
		/* symmetric in its samples */
		CHECK_NEAR(ra_mann_whitney_p(c->b, c->nb, c->a, c->na), c->p, 1e-9);
	}
	CHECK(isnan(ra_mann_whitney_p(cases[0].a, 0, cases[0].b, 4)));
}

static void test_summary(void)
{
	static const double v[] = { 1, 2, 4 }, w[] = { 3, 1, 4, 1, 5 };
	struct ra_summary s;

	CHECK_INT(ra_stats_summary(v, 3, true, &s), 0);
	CHECK_NEAR(s.mean, 3 / (1 + 0.5 + 0.25), 1e-12);	/* harmonic: 1.714285... */
	CHECK_NEAR(s.arith_mean, 7.0 / 3, 1e-12);
	CHECK_NEAR(s.median, 2, 0);
	CHECK_INT(ra_stats_summary(w, 5, false, &s), 0);
	CHECK_NEAR(s.mean, 2.8, 1e-12);
	CHECK_NEAR(s.median, 3, 0);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 5, 0);
	CHECK_NEAR(s.stddev, sqrt(12.8 / 4), 1e-12);		/* squares sum to 12.8 */
	CHECK_NEAR(s.cv, sqrt(12.8 / 4) / 2.8, 1e-12);
	CHECK_INT(ra_stats_summary(w, 4, false, &s), 0);
	CHECK_NEAR(s.median, 2, 0);				/* (1 + 3) / 2 */
	/* a rate with a zero: the harmonic mean is undefined, the arithmetic one is used */
	CHECK_INT(ra_stats_summary((const double[]){ 0, 2 }, 2, true, &s), 0);
	CHECK_NEAR(s.mean, 1, 0);
}

static void test_lkp(void)
{
	struct ra_summary a, b, c;

	ra_stats_summary((const double[]){ 10, 11, 12 }, 3, false, &a);
	ra_stats_summary((const double[]){ 20, 21, 22 }, 3, false, &b);
	ra_stats_summary((const double[]){ 10.5, 16, 22 }, 3, false, &c);
	CHECK(ra_lkp_significant(&a, &b));
	CHECK(ra_lkp_significant(&b, &a));
	CHECK(!ra_lkp_significant(&a, &c));	/* c's median 16 outside a, a's 11 inside c */
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "Mann-Whitney U p-values", test_mann_whitney },
		{ "summaries, harmonic mean", test_summary },
		{ "LKP's rule", test_lkp },
		{ NULL, NULL },
	};

	return test_run("test_stats", cases);
}
