// SPDX-License-Identifier: LGPL-2.1
/*
 * The device service model's arithmetic: fitting the sum and max forms to
 * size classes (advice.c turns a fit into read_ahead_kb).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ra_model.h"
#include "ra_sql.h"

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

/*
 * A term the points do not show: the bandwidth when the largest size took
 * hardly longer than the access time (every size access-bound), the access
 * time when the smallest took hardly longer than its transfer (every size
 * bandwidth-bound). The fit stays, its unshown term is only a bound.
 */
static void identified(struct ra_model_fit *f)
{
	double transfer = f->min_bytes / f->bw_bps * 1e9;

	if (f->max_ns < RA_MODEL_TERM_EVIDENCE * f->access_ns)
		snprintf(f->why, sizeof(f->why), "the bandwidth is not identifiable: every size is"
			 " access-bound (%.0f KiB took %.3f ms)", f->max_bytes / 1024,
			 f->max_ns / 1e6);
	else if (f->min_ns < RA_MODEL_TERM_EVIDENCE * transfer)
		snprintf(f->why, sizeof(f->why), "the access time is not identifiable: every size is"
			 " bandwidth-bound (%.3f ms at most)", f->min_ns / 1e6);
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
	f->min_bytes = p[0].bytes;
	f->max_bytes = p[n - 1].bytes;
	f->min_ns = p[0].ns;
	f->max_ns = p[n - 1].ns;
	if (n < 2) {
		snprintf(f->why, sizeof(f->why),
			 "one I/O size only (%.0f KiB): runs with other read_ahead_kb values"
			 " (--sweep) give the sizes a fit needs", p[0].bytes / 1024);
		return 0;
	}
	if (p[n - 1].bytes < 0.9 * 4 * p[0].bytes) {	/* mean sizes of classes 4x apart */
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
	f->min_bytes = p[0].bytes;
	f->max_bytes = p[n - 1].bytes;
	f->min_ns = p[0].ns;
	f->max_ns = p[n - 1].ns;
	if (f->ok) {
		residuals(p, n, f);
		identified(f);
	}
	return 0;
}

void ra_model_fit_row(struct ra_stmt *q, int c, struct ra_model_fit *f)
{
	const char *form, *status, *why;
	char fmt[64];
	int skip = c < 40 ? c : 40;

	memset(fmt, 'n', (size_t)skip);
	snprintf(fmt + skip, sizeof(fmt) - (size_t)skip, "ttffftxfffff");
	memset(f, 0, sizeof(*f));
	ra_sql_row(q, fmt, &form, &status, &f->access_ns, &f->bw_bps, &f->rms_rel, &why, &f->points,
		   &f->min_bytes, &f->max_bytes, &f->min_ns, &f->max_ns, &f->max_rel);
	f->form = form && strcmp(form, "max") == 0 ? RA_FORM_MAX : RA_FORM_SUM;
	f->ok = status && strcmp(status, "ok") == 0;
	if (why)
		snprintf(f->why, sizeof(f->why), "%s", why);
}
