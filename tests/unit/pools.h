/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Synthetic pools for the advice and sweep tests: a device of known access
 * time and bandwidth (sum or max form), a kernel window of ratio x the
 * setting (2 under POSIX_FADV_SEQUENTIAL), and run sets whose measured
 * throughput is the device's, times a factor where a test says so.
 */
#ifndef RA_TEST_POOLS_H
#define RA_TEST_POOLS_H

#include <math.h>
#include <string.h>

#include "ra_model.h"

#define POOL_MAX 24

struct device {
	int form;
	double access_ns, bw_bps;
	double ratio;		/* window / read_ahead_kb */
	double read_bytes;	/* a read of this size sets the window when larger (bs=1M) */
};

struct pool {
	struct ra_model_pool p;
	struct ra_model_set sets[POOL_MAX];
	struct ra_model_point pts[POOL_MAX];
	const struct device *dev;
};

static inline double device_window(const struct device *d, int kb)
{
	double x = kb * 1024.0 * (d->ratio > 0 ? d->ratio : 1);

	return x > d->read_bytes ? x : d->read_bytes;
}

static inline double device_bps(const struct device *d, int kb)
{
	struct ra_model_fit f = { .form = d->form, .ok = true, .access_ns = d->access_ns,
				  .bw_bps = d->bw_bps };

	return ra_model_throughput(&f, device_window(d, kb));
}

/* Fits of the pool's distinct windows, the chosen form as the model pass chooses it. */
static inline void pool_fit(struct pool *t)
{
	struct ra_model_fit f[2];
	int n = 0;

	for (int i = 0; i < t->p.nsets; i++) {
		double x = t->sets[i].window_bytes;

		if (n && fabs(t->pts[n - 1].bytes - x) < 1)
			continue;
		/* a reader-paced set's samples are the device's time, its idle time left out */
		t->pts[n] = (struct ra_model_point){ .bytes = x, .n = 100,
						     .ns = x / (t->sets[i].reader_paced ?
								device_bps(t->dev, t->sets[i].setting_kb) :
								t->sets[i].measured_bps) * 1e9 };
		n++;
	}
	ra_model_fit(t->pts, n, RA_FORM_SUM, &f[0]);
	ra_model_fit(t->pts, n, RA_FORM_MAX, &f[1]);
	int pick = f[0].ok && f[1].ok ? f[1].rms_rel < f[0].rms_rel - 0.01 : f[1].ok && !f[0].ok;
	t->p.fit = f[pick];
	t->p.other = f[!pick];
	for (int i = 0; i < t->p.nsets; i++) {
		t->sets[i].predicted_bps = t->p.fit.ok ?
			ra_model_throughput(&t->p.fit, t->sets[i].window_bytes) : 0;
		ra_model_check(&t->sets[i]);
	}
}

/*
 * Adds a run set at @kb measured at @factor x the device (kept sorted); a
 * factor under 1 is a reader that set the pace, the device idle meanwhile.
 */
static inline void pool_add(struct pool *t, int kb, double factor)
{
	struct ra_model_set *s;
	int i = t->p.nsets;

	for (int k = 0; k < t->p.nsets; k++)
		if (t->sets[k].setting_kb == kb) {
			t->sets[k].runs++;
			pool_fit(t);
			return;
		}
	while (i > 0 && t->sets[i - 1].setting_kb > kb) {
		t->sets[i] = t->sets[i - 1];
		i--;
	}
	s = &t->sets[i];
	memset(s, 0, sizeof(*s));
	s->setting_kb = kb;
	s->runs = 1;
	s->ra_kb = (int)(kb * (t->dev->ratio > 0 ? t->dev->ratio : 1));
	s->window_bytes = device_window(t->dev, kb);
	s->measured_bps = device_bps(t->dev, kb) * factor;
	s->io_s = 3;
	s->held_share = factor < 1 ? 0 : 0.8;
	s->reader_paced = factor < 1;
	s->idle_share = factor < 1 ? 1 - factor : 0.01;
	t->p.nsets++;
	pool_fit(t);
}

static inline void pool_init(struct pool *t, const struct device *d, const int *kb)
{
	memset(t, 0, sizeof(*t));
	t->dev = d;
	t->p.sets = t->sets;
	t->p.current_kb = -1;
	for (int i = 0; kb && kb[i]; i++)
		pool_add(t, kb[i], 1);
}

/* The truth of a full sweep: the smallest setting of @kb reaching @f of the best. */
static inline int device_truth(const struct device *d, const int *kb, double f)
{
	double best = 0;

	for (int i = 0; kb[i]; i++)
		best = fmax(best, device_bps(d, kb[i]));
	for (int i = 0; kb[i]; i++)
		if (device_bps(d, kb[i]) >= f * best)
			return kb[i];
	return 0;
}

#endif
