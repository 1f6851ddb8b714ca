// SPDX-License-Identifier: LGPL-2.1
/*
 * The device service model's arithmetic: fitting the sum and max forms to
 * size classes, and the read_ahead_kb advice that follows from a fit.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ra_model.h"

const char *ra_model_form_name(int form)
{
	return form == RA_FORM_MAX ? "max" : "sum";
}

double ra_model_latency_ns(const struct ra_model_fit *f, double bytes)
{
	double transfer = bytes / f->bw_bps * 1e9;

	if (f->form == RA_FORM_MAX)
		return transfer > f->access_ns ? transfer : f->access_ns;
	return f->access_ns + transfer;
}

double ra_model_throughput(const struct ra_model_fit *f, double bytes)
{
	double ns = ra_model_latency_ns(f, bytes);

	return ns > 0 ? bytes / ns * 1e9 : 0;
}

double ra_model_size_for(const struct ra_model_fit *f, double fraction)
{
	double bdp = f->access_ns / 1e9 * f->bw_bps;

	if (f->form == RA_FORM_MAX)
		return fraction * bdp;
	return fraction / (1 - fraction) * bdp;
}

/* Residuals of @f over the points: weighted RMS and maximum, relative to each time. */
static void residuals(const struct ra_model_point *p, int n, struct ra_model_fit *f)
{
	double sw = 0, se = 0, mx = 0;

	for (int i = 0; i < n; i++) {
		double w = sqrt(p[i].n), r = (ra_model_latency_ns(f, p[i].bytes) - p[i].ns) / p[i].ns;

		sw += w;
		se += w * r * r;
		if (fabs(r) > mx)
			mx = fabs(r);
	}
	f->rms_rel = sw > 0 ? sqrt(se / sw) : 0;
	f->max_rel = mx;
}

/*
 * Sum form: minimise sum w (1 - a/y - s x/y)^2, linear in the access time a
 * and the time per byte s. A negative access time is clipped to 0.
 */
static void fit_sum(const struct ra_model_point *p, int n, struct ra_model_fit *f)
{
	double suu = 0, suv = 0, svv = 0, su = 0, sv = 0, a, s, det;

	for (int i = 0; i < n; i++) {
		double w = sqrt(p[i].n), u = 1 / p[i].ns, v = p[i].bytes / p[i].ns;

		suu += w * u * u;
		suv += w * u * v;
		svv += w * v * v;
		su += w * u;
		sv += w * v;
	}
	det = suu * svv - suv * suv;
	a = det > 0 ? (su * svv - sv * suv) / det : -1;
	s = det > 0 ? (suu * sv - suv * su) / det : 0;
	if (a < 0) {
		a = 0;
		s = sv / svv;
	}
	if (!(s > 0)) {
		snprintf(f->why, sizeof(f->why),
			 "time does not grow with size: the bandwidth is beyond what was measured");
		return;
	}
	f->access_ns = a;
	f->bw_bps = 1e9 / s;
	f->ok = true;
}

/*
 * Max form: the points left of a split are access-bound (a = weighted
 * geometric mean of their times), the rest bandwidth-bound (s = weighted
 * geometric mean of time per byte); each point then goes to the term that
 * bounds it, until that no longer changes. Every split is tried; the one
 * with the least error wins.
 */
static void fit_max(const struct ra_model_point *p, int n, struct ra_model_fit *f)
{
	struct ra_model_fit best = { .form = RA_FORM_MAX }, t = { .form = RA_FORM_MAX, .ok = true };
	bool access_side[64];

	if (n > 64)
		n = 64;
	for (int k = 1; k < n; k++) {
		for (int i = 0; i < n; i++)
			access_side[i] = i < k;
		for (int iter = 0; iter < 16; iter++) {
			double wa = 0, la = 0, wb = 0, lb = 0;
			bool changed = false;

			for (int i = 0; i < n; i++) {
				double w = sqrt(p[i].n);

				if (access_side[i]) {
					wa += w;
					la += w * log(p[i].ns);
				} else {
					wb += w;
					lb += w * log(p[i].ns / p[i].bytes);
				}
			}
			if (wa == 0 || wb == 0)
				break;
			t.access_ns = exp(la / wa);
			t.bw_bps = 1e9 / exp(lb / wb);
			for (int i = 0; i < n; i++) {
				bool a = t.access_ns >= p[i].bytes / t.bw_bps * 1e9;

				changed |= a != access_side[i];
				access_side[i] = a;
			}
			if (!changed)
				break;
		}
		if (!(t.access_ns > 0 && t.bw_bps > 0))
			continue;
		residuals(p, n, &t);
		if (!best.ok || t.rms_rel < best.rms_rel)
			best = t;
	}
	if (!best.ok) {
		snprintf(f->why, sizeof(f->why), "no split of the sizes fits max(access, bytes/bandwidth)");
		return;
	}
	*f = best;
}

int ra_model_fit(const struct ra_model_point *p, int n, int form, struct ra_model_fit *f)
{
	memset(f, 0, sizeof(*f));
	f->form = form;
	f->points = n;
	if (n < 1) {
		snprintf(f->why, sizeof(f->why), "no size class with %d samples or more",
			 RA_MODEL_MIN_SAMPLES);
		return 0;
	}
	if (n < 2) {
		snprintf(f->why, sizeof(f->why),
			 "one I/O size only (%.0f KiB): runs with other read_ahead_kb values"
			 " (--sweep) give the sizes a fit needs", p[0].bytes / 1024);
		return 0;
	}
	if (p[n - 1].bytes < 4 * p[0].bytes) {
		snprintf(f->why, sizeof(f->why),
			 "sizes from %.0f to %.0f KiB only: a fit needs sizes at least 4x apart",
			 p[0].bytes / 1024, p[n - 1].bytes / 1024);
		return 0;
	}
	if (form == RA_FORM_MAX)
		fit_max(p, n, f);
	else
		fit_sum(p, n, f);
	f->points = n;
	if (f->ok)
		residuals(p, n, f);
	return 0;
}

static void kib(char *buf, size_t len, double bytes)
{
	if (bytes >= 10 * 1048576.0)
		snprintf(buf, len, "%.1f MiB", bytes / 1048576);
	else
		snprintf(buf, len, "%.0f KiB", bytes / 1024);
}

#define APPEND(a, ...)                                                                     \
	do {                                                                               \
		size_t off_ = strlen((a)->reasoning);                                      \
		if (off_ < sizeof((a)->reasoning))                                         \
			snprintf((a)->reasoning + off_, sizeof((a)->reasoning) - off_,     \
				 __VA_ARGS__);                                             \
	} while (0)

void ra_model_advise(const struct ra_model_fit *f, const struct ra_model_fit *other,
		     double fraction, int thrash_kb, int current_kb, struct ra_advice *a)
{
	char b1[32], b2[32];

	memset(a, 0, sizeof(*a));
	a->fraction = fraction;
	a->thrash_kb = thrash_kb;
	a->current_kb = current_kb;
	if (f && f->ok) {
		double bdp = f->access_ns / 1e9 * f->bw_bps;
		int kb = 16;

		a->target_bytes = ra_model_size_for(f, fraction);
		while (kb * 1024.0 < a->target_bytes && kb < (1 << 30))
			kb *= 2;
		a->model_kb = kb;
		a->recommended_kb = kb;
		kib(b1, sizeof(b1), bdp);
		APPEND(a, "Access %.3f ms and bandwidth %.1f MiB/s (%s form) make a "
		       "bandwidth-delay product of %s. ", f->access_ns / 1e6, f->bw_bps / 1048576,
		       ra_model_form_name(f->form), b1);
		if (f->points == 2)
			APPEND(a, "Two sizes only: a two-parameter form passes through both, so "
			       "the fit's error says nothing; a third size would test it. ");
		else if (other && other->ok)
			APPEND(a, "The %s form fits the sizes within %.1f%% (rms), the %s form "
			       "within %.1f%%%s. ", ra_model_form_name(f->form), f->rms_rel * 100,
			       ra_model_form_name(other->form), other->rms_rel * 100,
			       f->form == RA_FORM_MAX && other->rms_rel > 2 * f->rms_rel ?
			       ": the device limits I/Os and bytes per second like a throttle, "
			       "rather than seeking then transferring" : "");
		kib(b2, sizeof(b2), a->target_bytes);
		if (f->form == RA_FORM_MAX)
			APPEND(a, "Each I/O costs max(access, size/bandwidth), so throughput reaches "
			       "%.0f%% of the bandwidth at %.2f x %s = %s. ", fraction * 100, fraction,
			       b1, b2);
		else
			APPEND(a, "Throughput size/(access + size/bandwidth) reaches %.0f%% of the "
			       "bandwidth at %.0f/%.0f x %s = %s. ", fraction * 100, fraction * 100,
			       (1 - fraction) * 100, b1, b2);
		APPEND(a, "The smallest power of two there (16 KiB at least) is %d KiB: "
		       "%.1f MiB/s, %.0f%% of the bandwidth.", kb,
		       ra_model_throughput(f, kb * 1024.0) / 1048576,
		       ra_model_throughput(f, kb * 1024.0) / f->bw_bps * 100);
		if (f->rms_rel > RA_MODEL_POOR_FIT)
			APPEND(a, " The fit is poor (%.0f%% rms): the sizes do not follow one curve "
			       "(mixed workloads, a cache in front of the device); take the advice as "
			       "a rough guide, and a --sweep of read_ahead_kb for cleaner points.",
			       f->rms_rel * 100);
	} else {
		APPEND(a, "No model: %s.", f && f->why[0] ? f->why : "no I/O to fit");
	}
	if (thrash_kb > 0) {
		int below = thrash_kb / 2 >= 4 ? thrash_kb / 2 : 4;

		if (a->recommended_kb >= thrash_kb) {
			APPEND(a, " Windows of %d KiB and more thrashed (pages read ahead, evicted "
			       "unused and read again), so the advice is lowered to %d KiB.",
			       thrash_kb, below);
			a->recommended_kb = below;
		} else if (a->recommended_kb) {
			APPEND(a, " Windows of %d KiB and more thrashed; %d KiB stays below them.",
			       thrash_kb, a->recommended_kb);
		} else {
			APPEND(a, " Windows of %d KiB and more thrashed (pages read ahead, evicted "
			       "unused and read again): without a model the advice is only to stay "
			       "below them, %d KiB at most.", thrash_kb, below);
			a->recommended_kb = below;
		}
	}
	if (a->recommended_kb && current_kb >= 0)
		APPEND(a, " Recorded with read_ahead_kb %d%s.", current_kb,
		       current_kb == a->recommended_kb ? ", already the advice" : "");
}
