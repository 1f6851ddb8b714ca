// SPDX-License-Identifier: LGPL-2.1
/*
 * The automatic sweep's choices on synthetic devices: from no run to a
 * decided advice, each step recording the setting ra_sweep_next() names, and
 * the advice it ends at against the truth of the full sweep (16 to 4096 KiB).
 */
#include <stdio.h>

#include "pools.h"
#include "test.h"

static const int full[] = { 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 0 };

/* Runs the sweep on @d with measurements off by @noise (cycled); the runs it took. */
static int sweep(const struct device *d, const double *noise, int nnoise, struct ra_advice *a,
		 char *order, size_t len)
{
	struct ra_sweep_limits l;
	struct pool t;
	char why[160];
	int next, runs = 0;

	ra_sweep_parse("auto", &l);
	pool_init(&t, d, NULL);
	order[0] = '\0';
	for (;;) {
		ra_model_advise(&t.p, 0.8, a);
		ra_sweep_next(&t.p, a, &l, &next, why, sizeof(why));
		if (!next)
			break;
		snprintf(order + strlen(order), len - strlen(order), "%s%d", runs ? " " : "", next);
		pool_add(&t, next, nnoise ? noise[runs % nnoise] : 1);
		runs++;
	}
	return runs;
}

static void test_devices(void)
{
	static const struct device devs[] = {
		{ RA_FORM_MAX, 1e6, 200e6, 1, 0 },	/* 1000 IOPS, 200 MB/s, dd */
		{ RA_FORM_MAX, 1e6, 200e6, 2, 0 },	/* the same, fio */
		{ RA_FORM_MAX, 8e6, 100e6, 1, 0 },	/* 125 IOPS, 100 MB/s */
		{ RA_FORM_MAX, 0.2e6, 500e6, 1, 0 },	/* 5000 IOPS, 500 MB/s */
		{ RA_FORM_MAX, 5e6, 20e6, 1, 0 },	/* 200 IOPS, 20 MB/s */
		{ RA_FORM_MAX, 0.5e6, 20e6, 2, 0 },	/* 2000 IOPS, 20 MB/s, fio */
	};
	static const double noise[] = { 1.02, 0.97, 1.01, 0.99, 1.03 };
	struct ra_advice a;
	char order[128];

	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		int truth = device_truth(&devs[i], full, 0.8);
		int runs = sweep(&devs[i], NULL, 0, &a, order, sizeof(order));

		printf("# device %zu: %d runs (%s), advice %d, truth %d\n", i, runs, order,
		       a.recommended_kb, truth);
		CHECK_INT(a.status, RA_ADVICE_OK);
		CHECK_INT(a.recommended_kb, truth);
		CHECK(runs < 9);
		runs = sweep(&devs[i], noise, 5, &a, order, sizeof(order));
		printf("# with noise: %d runs (%s), advice %d\n", runs, order, a.recommended_kb);
		CHECK_INT(a.recommended_kb, truth);
		CHECK(runs <= 12);
	}
}

/* A measurement within 5% of the threshold is taken again. */
static void test_close_call(void)
{
	/* 1251 IOPS, 200 MB/s: 128 KiB gives 164 MB/s, 82% of the best */
	static const struct device d = { RA_FORM_MAX, 1e9 / 1251, 200e6, 1, 0 };
	struct ra_advice a;
	char order[128];
	int runs = sweep(&d, NULL, 0, &a, order, sizeof(order));

	printf("# close call: %d runs (%s), advice %d\n", runs, order, a.recommended_kb);
	CHECK_INT(a.recommended_kb, device_truth(&d, full, 0.8));
	CHECK_INT(a.recommended_kb, 128);
	CHECK(strstr(strstr(order, "128") + 3, "128") != NULL);	/* 128 again */
	CHECK(runs <= 12);
}

static void test_parse(void)
{
	struct ra_sweep_limits l;

	CHECK_INT(ra_sweep_parse("auto", &l), 0);
	CHECK_INT(l.lo_kb, 16);
	CHECK_INT(l.hi_kb, 4096);
	CHECK_INT(ra_sweep_parse("auto:64-1024", &l), 0);
	CHECK_INT(l.lo_kb, 64);
	CHECK_INT(l.hi_kb, 1024);
	CHECK_INT(ra_sweep_parse("auto:64-128", &l), -1);	/* not 4x apart */
	CHECK_INT(ra_sweep_parse("auto:x", &l), -1);
	CHECK_INT(ra_sweep_parse("auto:2-1024", &l), -1);
	CHECK_INT(ra_sweep_parse("auto:64-1024x", &l), -1);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "devices from no run to the advice", test_devices },
		{ "a close call is measured again", test_close_call },
		{ "limits", test_parse },
		{ NULL, NULL },
	};

	return test_run("test_sweep", cases);
}
