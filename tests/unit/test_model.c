// SPDX-License-Identifier: LGPL-2.1
/*
 * The device model's arithmetic on points whose answer is known: the disk of
 * the 2010 discussion (8 ms, 100 MB/s, the sum form), a throttle (5 ms per
 * I/O, 50 MiB/s, the max form), noise, and the points that determine nothing.
 */
#include <math.h>
#include <string.h>

#include "pools.h"
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
	NEAR(ra_model_size_for(&sum, 0.5), 0.8e6, 1e-6);
}

/* blk-throttle at 200 IOPS and 50 MiB/s: an I/O costs max(5 ms, size / 50 MiB/s). */
static void test_throttle(void)
{
	static const double kb[] = { 32, 128, 512, 2048 };
	static const double noise[] = { 1.04, 0.97, 1.05, 0.96 };
	struct ra_model_point p[4];
	struct ra_model_fit sum, max;

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
	CHECK_INT(max.points, 4);
	NEAR(max.min_bytes, 32768, 1e-9);
	NEAR(max.max_bytes, 2097152, 1e-9);
	ra_model_fit(p + 1, 2, RA_FORM_SUM, &sum);	/* 128 and 512 KiB: exact, untested */
	CHECK(sum.ok && sum.rms_rel < 1e-9);

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
}

static const int full[] = { 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 0 };
/* a throttle of 1000 IOPS and 200 MB/s: its knee is 200 KB, 80% at 156 KiB */
static const struct device thr1000 = { RA_FORM_MAX, 1e6, 200e6, 1, 0 };
static const struct device fio1000 = { RA_FORM_MAX, 1e6, 200e6, 2, 0 };
/* 125 IOPS and 100 MB/s: a knee of 800 KB */
static const struct device thr125 = { RA_FORM_MAX, 8e6, 100e6, 1, 0 };
static const struct device bs1m = { RA_FORM_MAX, 8e6, 100e6, 1, 1048576 };
/* the 2010 disk: 8 ms and 100 MB/s, seek then transfer */
static const struct device disk = { RA_FORM_SUM, 8e6, 100e6, 1, 0 };

static bool has(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

static bool next_has(const struct ra_advice *a, int kb)
{
	for (int i = 0; i < RA_ADVICE_MAX_NEXT && a->next_kb[i]; i++)
		if (a->next_kb[i] == kb)
			return true;
	return false;
}

/* A full sweep of each device advises its measured truth, in read_ahead_kb. */
static void test_full_sweeps(void)
{
	static const struct {
		const struct device *d;
		int form, kb;
	} cases[] = {
		{ &thr1000, RA_FORM_MAX, 256 },
		{ &fio1000, RA_FORM_MAX, 128 },	/* POSIX_FADV_SEQUENTIAL: windows of 256 */
		{ &thr125, RA_FORM_MAX, 1024 },
		{ &disk, RA_FORM_SUM, 2048 },	/* 80% of the best measured, 84 MB/s at 4 MiB */
	};
	struct pool t;
	struct ra_advice a;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pool_init(&t, cases[i].d, full);
		ra_model_advise(&t.p, 0.8, &a);
		CHECK_INT(t.p.fit.form, cases[i].form);
		CHECK_INT(a.status, RA_ADVICE_OK);
		CHECK_INT(a.recommended_kb, cases[i].kb);
		CHECK_INT(a.recommended_kb, device_truth(cases[i].d, full, 0.8));
		CHECK_INT(a.measured_kb, cases[i].kb);
		NEAR(t.p.fit.access_ns, cases[i].d->access_ns, 1e-6);
		NEAR(t.p.fit.bw_bps, cases[i].d->bw_bps, 1e-6);
	}
	pool_init(&t, &fio1000, full);
	ra_model_advise(&t.p, 0.8, &a);
	CHECK(has(a.reasoning, "POSIX_FADV_SEQUENTIAL"));
	CHECK(a.window_ratio == 2);
	pool_init(&t, &thr1000, full);
	ra_model_advise(&t.p, 0.8, &a);
	CHECK(has(a.reasoning, "like a throttle"));
	ra_model_advise(&t.p, 0.95, &a);
	CHECK_INT(a.recommended_kb, 256);	/* the plateau: a higher fraction, no more */
}

/* Between measured settings the model interpolates; the setting it rests on is to verify. */
static void test_sparse(void)
{
	static const int kb[] = { 32, 128, 512, 2048, 0 };
	struct pool t;
	struct ra_advice a;

	pool_init(&t, &thr1000, kb);
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_OK);
	CHECK_INT(a.recommended_kb, 256);
	CHECK_INT(a.measured_kb, 512);
	CHECK_INT(a.verify_kb[0], 256);
	CHECK(has(a.reasoning, "the model's, between measured settings"));
}

/* Sizes that do not bracket the knee: no number, and what to record. */
static void test_not_bracketed(void)
{
	static const int two_low[] = { 128, 512, 0 }, two_wide[] = { 64, 4096, 0 };
	static const int three_low[] = { 16, 64, 256, 0 }, three_high[] = { 1024, 2048, 4096, 0 };
	struct pool t;
	struct ra_advice a;

	pool_init(&t, &thr125, two_low);	/* both access-bound */
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_UNIDENTIFIABLE);
	CHECK_INT(a.recommended_kb, 0);
	CHECK(next_has(&a, 2048));
	CHECK(has(a.reasoning, "No single number"));
	pool_init(&t, &thr125, two_wide);	/* the knee between: the forms disagree */
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_UNIDENTIFIABLE);
	CHECK_INT(a.recommended_kb, 0);
	CHECK(next_has(&a, 1024));
	CHECK(has(a.reasoning, "Two sizes only"));
	pool_init(&t, &thr125, three_low);	/* three, all access-bound */
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_UNIDENTIFIABLE);
	CHECK(next_has(&a, 512) && next_has(&a, 1024));
	CHECK(has(a.reasoning, "bandwidth is not identifiable"));
	pool_init(&t, &thr125, three_high);	/* three, all bandwidth-bound */
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_UNIDENTIFIABLE);
	CHECK(next_has(&a, 512) && next_has(&a, 256));
	pool_add(&t, 512, 1);
	pool_add(&t, 256, 1);
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_OK);
	CHECK_INT(a.recommended_kb, 1024);
}

/* Reads of 1 MiB read windows of 1 MiB below read_ahead_kb 1024: nothing to set. */
static void test_read_sized(void)
{
	static const int kb[] = { 16, 128, 1024, 2048, 4096, 0 };
	struct pool t;
	struct ra_advice a;

	pool_init(&t, &bs1m, kb);
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_FLAT);
	CHECK_INT(a.recommended_kb, 0);
	NEAR(t.p.fit.min_bytes, 1048576, 1e-9);
	CHECK(has(a.reasoning, "readahead below 1024 KiB changes nothing"));
	CHECK(has(a.reasoning, "access time is not identifiable"));
}

/* A reader that sets the pace: the model does not explain it, the advice is unreliable. */
static void test_reader_paced(void)
{
	struct pool t;
	struct ra_advice a;

	pool_init(&t, &thr1000, NULL);
	pool_add(&t, 16, 1);
	pool_add(&t, 64, 1);
	pool_add(&t, 256, 0.5);
	pool_add(&t, 1024, 0.6);
	pool_add(&t, 4096, 0.6);
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_UNRELIABLE);
	CHECK_INT(t.sets[2].explained, 0);
	CHECK_INT(t.sets[2].cause, RA_CAUSE_READER);
	CHECK_INT(t.sets[0].explained, 1);
	CHECK(has(a.reasoning, "Unreliable"));
	CHECK(has(a.reasoning, "the reader set the pace"));
	CHECK(has(a.reasoning, "At read_ahead_kb 256 (2.00x), 1024 (1.67x), 4096 (1.67x)"));
	NEAR(t.p.fit.bw_bps, 200e6, 1e-6);	/* the device's time, its idle left out */
}

/* Thrashing caps the advice at the measured settings that did not thrash. */
static void test_thrash(void)
{
	static const int kb[] = { 16, 64, 256, 1024, 0 };
	struct pool t;
	struct ra_advice a;

	pool_init(&t, &fio1000, kb);
	t.sets[2].thrash_share = 0.22;	/* 256 thrashed, faster still */
	t.sets[2].thrashed_pages = 20000;
	t.sets[3].thrash_share = 0.55;	/* 1024 thrashed and was slower */
	t.sets[3].thrashed_pages = 30000;
	t.sets[1].thrash_share = 0.03;	/* below 5%: not thrashing */
	t.sets[1].thrashed_pages = 2000;
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.thrash_kb, 256);
	CHECK_INT(a.recommended_kb, 64);	/* the fastest that did not thrash */
	CHECK(has(a.reasoning, "256 KiB was measured faster"));
	CHECK(has(a.reasoning, "not worth it"));
	/* one setting only, thrashing: stay below it */
	pool_init(&t, &thr1000, (const int[]){ 2048, 0 });
	t.sets[0].thrash_share = 0.3;
	t.sets[0].thrashed_pages = 5000;
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.recommended_kb, 1024);
	CHECK_INT(a.thrash_kb, 2048);
	CHECK(has(a.reasoning, "1024 KiB at most"));
}

/* A short run measured faster than its device: the allowance named is a throttle's only
 * where a throttle held the windows. */
static void test_short_run(void)
{
	static const int kb[] = { 16, 64, 256, 1024, 0 };
	struct pool t;
	struct ra_advice a;

	for (int throttled = 0; throttled < 2; throttled++) {
		pool_init(&t, &thr1000, kb);
		for (int i = 0; i < t.p.nsets; i++)
			t.sets[i].held_share = throttled ? 0.8 : 0;
		t.sets[1].measured_bps *= 1.6;
		t.sets[1].io_s = 0.4;
		for (int i = 0; i < t.p.nsets; i++)
			ra_model_check(&t.sets[i]);
		ra_model_advise(&t.p, 0.8, &a);
		CHECK_INT(t.sets[1].explained, 0);
		CHECK_INT(t.sets[1].cause, RA_CAUSE_SHORT);
		CHECK(has(a.reasoning, "the I/O lasted 0.40 s"));
		CHECK(has(a.reasoning, "burst allowance") == (throttled == 1));
		CHECK(has(a.reasoning, "the first I/O's latency") == (throttled == 0));
		CHECK(has(t.sets[1].why, "burst allowance") == (throttled == 1));
	}
}

static void test_no_io(void)
{
	struct pool t;
	struct ra_advice a;

	pool_init(&t, &thr1000, NULL);
	ra_model_advise(&t.p, 0.8, &a);
	CHECK_INT(a.status, RA_ADVICE_NONE);
	CHECK_INT(a.recommended_kb, 0);
	CHECK(has(a.reasoning, "No run of the pool read from the device"));
	pool_init(&t, &thr1000, full);
	t.p.left_out = 2;
	ra_model_advise(&t.p, 0.8, &a);
	CHECK(has(a.reasoning, "2 runs of the pool were left out"));
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "the 2010 disk: sum form", test_disk },
		{ "a throttle: max form", test_throttle },
		{ "points that determine no model", test_unidentifiable },
		{ "full sweeps advise their truth", test_full_sweeps },
		{ "sparse sweeps interpolate", test_sparse },
		{ "sizes that do not bracket the knee", test_not_bracketed },
		{ "reads that set the window size", test_read_sized },
		{ "a reader that sets the pace", test_reader_paced },
		{ "thrashing", test_thrash },
		{ "a short run, throttled or not", test_short_run },
		{ "no I/O, runs left out", test_no_io },
		{ NULL, NULL },
	};

	return test_run("test_model", cases);
}
