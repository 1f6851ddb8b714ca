// SPDX-License-Identifier: LGPL-2.1
/*
 * The device model's arithmetic on points whose answer is known: the disk of
 * the 2010 discussion (8 ms, 100 MB/s, the sum form), a throttle (5 ms per
 * I/O, 50 MiB/s, the max form), noise, and the points that determine nothing.
 */
#include <math.h>
#include <string.h>

#include "ra_model.h"
#include "test.h"

#define NEAR(a, b, rel) CHECK(fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)))

static void points(struct ra_model_point *p, const double *kb, int n, int form, double access_ns,
		   double bw, const double *noise)
{
	struct ra_model_fit f = { .form = form, .ok = true, .access_ns = access_ns, .bw_bps = bw };

	for (int i = 0; i < n; i++) {
		p[i].bytes = kb[i] * 1024;
		p[i].ns = ra_model_latency_ns(&f, p[i].bytes) * (noise ? noise[i] : 1);
		p[i].n = 100;
	}
}

/* The mail's table: 8 ms and 100 MB/s; 128 KB gives 13.8 MB/s, 512 KB 39 MB/s. */
static void test_disk(void)
{
	static const double kb[] = { 16, 64, 256, 1024, 4096 };
	struct ra_model_point p[5];
	struct ra_model_fit sum, max;
	struct ra_advice a;

	points(p, kb, 5, RA_FORM_SUM, 8e6, 100e6, NULL);
	CHECK_INT(ra_model_fit(p, 5, RA_FORM_SUM, &sum), 0);
	CHECK(sum.ok);
	NEAR(sum.access_ns, 8e6, 1e-6);
	NEAR(sum.bw_bps, 100e6, 1e-6);
	CHECK(sum.rms_rel < 1e-9);
	NEAR(ra_model_throughput(&sum, 128000) / 1e6, 13.79, 1e-3);
	NEAR(ra_model_throughput(&sum, 512000) / 1e6, 39.02, 1e-3);
	ra_model_fit(p, 5, RA_FORM_MAX, &max);
	CHECK(max.ok);
	CHECK(max.rms_rel > 0.1);	/* a sum is not a max: the error says so */
	/* 80%: 4 x the bandwidth-delay product of 800 KB */
	NEAR(ra_model_size_for(&sum, 0.8), 3.2e6, 1e-6);
	ra_model_advise(&sum, &max, 0.8, 0, 128, &a);
	CHECK_INT(a.model_kb, 4096);
	CHECK_INT(a.recommended_kb, 4096);
	CHECK(strstr(a.reasoning, "Recorded with read_ahead_kb 128") != NULL);
	ra_model_advise(&sum, &max, 0.5, 0, 128, &a);	/* the product itself: 781 KiB */
	CHECK_INT(a.recommended_kb, 1024);
}

/* blk-throttle at 200 IOPS and 50 MiB/s: an I/O costs max(5 ms, size / 50 MiB/s). */
static void test_throttle(void)
{
	static const double kb[] = { 32, 128, 512, 2048 };
	static const double noise[] = { 1.04, 0.97, 1.05, 0.96 };
	struct ra_model_point p[4];
	struct ra_model_fit sum, max;
	struct ra_advice a;

	points(p, kb, 4, RA_FORM_MAX, 5e6, 52428800, NULL);
	ra_model_fit(p, 4, RA_FORM_MAX, &max);
	ra_model_fit(p, 4, RA_FORM_SUM, &sum);
	CHECK(max.ok && sum.ok);
	NEAR(max.access_ns, 5e6, 1e-6);
	NEAR(max.bw_bps, 52428800, 1e-6);
	CHECK(max.rms_rel < 1e-9);
	CHECK(sum.rms_rel > 0.05);
	/* 0.8 x 5 ms x 50 MiB/s = 205 KiB: 256 */
	NEAR(ra_model_size_for(&max, 0.8), 0.8 * 5e-3 * 52428800, 1e-9);
	ra_model_advise(&max, &sum, 0.8, 0, 128, &a);
	CHECK_INT(a.recommended_kb, 256);
	CHECK(strstr(a.reasoning, "like a throttle") != NULL);
	CHECK_INT(max.points, 4);
	ra_model_fit(p + 1, 2, RA_FORM_SUM, &sum);	/* 128 and 512 KiB: exact, untested */
	CHECK(sum.ok && sum.rms_rel < 1e-9);
	ra_model_advise(&sum, &max, 0.8, 0, 128, &a);
	CHECK(strstr(a.reasoning, "Two sizes only") != NULL);
	ra_model_fit(p, 4, RA_FORM_SUM, &sum);
	/* windows of 256 KiB and more thrashed: the advice goes below them */
	ra_model_advise(&max, &sum, 0.8, 256, 128, &a);
	CHECK_INT(a.model_kb, 256);
	CHECK_INT(a.recommended_kb, 128);
	CHECK(strstr(a.reasoning, "lowered to 128 KiB") != NULL);
	ra_model_advise(&max, &sum, 0.8, 1024, 128, &a);
	CHECK_INT(a.recommended_kb, 256);

	/* with a few percent of noise the fit stays within 10% */
	points(p, kb, 4, RA_FORM_MAX, 5e6, 52428800, noise);
	ra_model_fit(p, 4, RA_FORM_MAX, &max);
	ra_model_fit(p, 4, RA_FORM_SUM, &sum);
	CHECK(max.ok);
	NEAR(max.access_ns, 5e6, 0.1);
	NEAR(max.bw_bps, 52428800, 0.1);
	CHECK(max.rms_rel < sum.rms_rel);
}

static void test_unidentifiable(void)
{
	static const double kb[] = { 128, 256 };
	struct ra_model_point p[2];
	struct ra_model_fit f;
	struct ra_advice a;

	points(p, kb, 2, RA_FORM_SUM, 8e6, 100e6, NULL);
	ra_model_fit(p, 1, RA_FORM_SUM, &f);
	CHECK(!f.ok);
	CHECK(strstr(f.why, "one I/O size only (128 KiB)") != NULL);
	ra_model_fit(p, 2, RA_FORM_MAX, &f);
	CHECK(!f.ok);
	CHECK(strstr(f.why, "at least 4x apart") != NULL);
	ra_model_fit(p, 0, RA_FORM_SUM, &f);
	CHECK(!f.ok);

	/* time that does not grow with size has no bandwidth to fit */
	p[1] = (struct ra_model_point){ .bytes = 1048576, .ns = p[0].ns, .n = 10 };
	ra_model_fit(p, 2, RA_FORM_SUM, &f);
	CHECK(!f.ok);
	CHECK(strstr(f.why, "does not grow") != NULL);

	ra_model_advise(&f, NULL, 0.8, 0, 128, &a);
	CHECK_INT(a.recommended_kb, 0);
	CHECK(strncmp(a.reasoning, "No model: ", 10) == 0);
	ra_model_advise(NULL, NULL, 0.8, 512, -1, &a);
	CHECK_INT(a.recommended_kb, 256);
	CHECK_INT(a.model_kb, 0);
	CHECK_INT(a.thrash_kb, 512);
	CHECK(strstr(a.reasoning, "256 KiB at most") != NULL);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "the 2010 disk: sum form", test_disk },
		{ "a throttle: max form, advice, thrashing", test_throttle },
		{ "points that determine no model", test_unidentifiable },
		{ NULL, NULL },
	};

	return test_run("test_model", cases);
}
