// SPDX-License-Identifier: LGPL-2.1
/*
 * The read_ahead_kb advice of a pool: its model and its run sets (one per
 * read_ahead_kb) in, the recommended setting, or the settings to record to
 * decide, out. docs/metrics.md, "Device model", states the rules.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ra_model.h"

#define MAX_CAND 48
#define MIN_ADVICE_KB 16
/* a window this much larger than the setting's was the read's size, not readahead's */
#define READ_SIZED 1.5

#define APPEND(a, ...)                                                                     \
	do {                                                                               \
		size_t off_ = strlen((a)->reasoning);                                      \
		if (off_ < sizeof((a)->reasoning))                                         \
			snprintf((a)->reasoning + off_, sizeof((a)->reasoning) - off_,     \
				 __VA_ARGS__);                                             \
	} while (0)

/* the candidates: the powers of two and the measured settings of the measured range */
struct cands {
	int kb[MAX_CAND];
	double est[MAX_CAND];	/* measured, else the model calibrated by its neighbours */
	double model[MAX_CAND];	/* the model's throughput, 0 without one */
	bool measured[MAX_CAND];
	bool allowed[MAX_CAND];	/* below the thrashing cap, and known not to thrash */
	int n;
	double best, best_model, best_measured;
	int cap;		/* the smallest setting that thrashed, 0 none */
	int last_ok;		/* the largest measured setting below it */
	int fast;		/* the fastest allowed candidate, -1 none */
	bool reached;		/* the recommendation reaches the fraction of the best */
};

const char *ra_advice_status_name(int status)
{
	static const char *const names[] = { "none", "ok", "unreliable", "unidentifiable",
					     "flat" };

	return status >= 0 && status <= RA_ADVICE_FLAT ? names[status] : "none";
}

static double mib(double bps)
{
	return bps / 1048576;
}

static const struct ra_model_set *set_of(const struct ra_model_pool *p, int kb)
{
	for (int i = 0; i < p->nsets; i++)
		if (p->sets[i].setting_kb == kb)
			return &p->sets[i];
	return NULL;
}

static bool thrashes(const struct ra_model_set *s)
{
	return s->thrash_share >= RA_THRASH_SHARE && s->thrashed_pages >= RA_THRASH_MIN_PAGES;
}

/* The measured sets around @kb: the largest below and the smallest above (NULL: none). */
static void neighbours(const struct ra_model_pool *p, int kb, const struct ra_model_set **lo,
		       const struct ra_model_set **hi)
{
	*lo = *hi = NULL;
	for (int i = 0; i < p->nsets; i++) {
		if (p->sets[i].setting_kb < kb)
			*lo = &p->sets[i];
		else if (p->sets[i].setting_kb > kb && !*hi)
			*hi = &p->sets[i];
	}
}

/*
 * The window the kernel reads at setting @kb: measured where a set has it;
 * between two measured settings, their ratio of window to setting where the
 * two agree (windows follow read_ahead_kb), else log-linear between their
 * windows; 0 outside the measured range (no extrapolation).
 */
static double window_at(const struct ra_model_pool *p, int kb)
{
	const struct ra_model_set *s = set_of(p, kb), *lo, *hi;
	double rlo, rhi, t;

	if (s)
		return s->window_bytes;
	neighbours(p, kb, &lo, &hi);
	if (!lo || !hi || !(lo->window_bytes > 0) || !(hi->window_bytes > 0))
		return 0;
	rlo = lo->window_bytes / lo->setting_kb;
	rhi = hi->window_bytes / hi->setting_kb;
	if (fabs(rlo / rhi - 1) < 0.25)
		return kb * sqrt(rlo * rhi);
	t = log((double)kb / lo->setting_kb) / log((double)hi->setting_kb / lo->setting_kb);
	return lo->window_bytes * pow(hi->window_bytes / lo->window_bytes, t);
}

static double model_at(const struct ra_model_pool *p, int kb)
{
	double x = window_at(p, kb);

	return p->fit.ok && x > 0 ? ra_model_throughput(&p->fit, x) : 0;
}

/* measured / predicted of a set, 1 when either is unknown */
static double calibration(const struct ra_model_set *s)
{
	return s && s->measured_bps > 0 && s->predicted_bps > 0 ?
		       s->measured_bps / s->predicted_bps : 1;
}

/* Throughput at @kb: the measured median, else the model scaled as its neighbours were. */
static double estimate(const struct ra_model_pool *p, int kb, bool *measured)
{
	const struct ra_model_set *s = set_of(p, kb), *lo, *hi;

	*measured = s && s->measured_bps > 0;
	if (*measured)
		return s->measured_bps;
	if (s)
		return s->predicted_bps;
	neighbours(p, kb, &lo, &hi);
	return model_at(p, kb) * sqrt(calibration(lo) * calibration(hi));
}

static void add_cand(struct cands *c, int kb)
{
	int i = c->n;

	if (c->n == MAX_CAND)
		return;
	while (i > 0 && c->kb[i - 1] > kb)
		i--;
	if (i > 0 && c->kb[i - 1] == kb)
		return;
	memmove(&c->kb[i + 1], &c->kb[i], (size_t)(c->n - i) * sizeof(c->kb[0]));
	c->kb[i] = kb;
	c->n++;
}

/* The candidates of @p, their throughput, the best, and the thrashing cap. */
static void candidates(const struct ra_model_pool *p, struct cands *c)
{
	int lo = p->sets[0].setting_kb, hi = p->sets[p->nsets - 1].setting_kb;

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < p->nsets; i++)
		add_cand(c, p->sets[i].setting_kb);
	for (int kb = 1; p->fit.ok && kb <= hi && kb > 0; kb *= 2)
		if (kb > lo)
			add_cand(c, kb);
	for (int i = 0; i < p->nsets && !c->cap; i++) {
		if (thrashes(&p->sets[i]))
			c->cap = p->sets[i].setting_kb;
		else
			c->last_ok = p->sets[i].setting_kb;
	}
	for (int i = 0; i < c->n; i++) {
		const struct ra_model_set *s = set_of(p, c->kb[i]);

		c->est[i] = estimate(p, c->kb[i], &c->measured[i]);
		c->model[i] = model_at(p, c->kb[i]);
		/* between the last measured setting that did not thrash and one that did: unknown */
		c->allowed[i] = !c->cap || (c->kb[i] < c->cap && (s || c->kb[i] < c->last_ok));
		if ((c->allowed[i] || s) && c->est[i] > c->best)
			c->best = c->est[i];
		if (c->model[i] > c->best_model)
			c->best_model = c->model[i];
		if (c->measured[i] && c->est[i] > c->best_measured)
			c->best_measured = c->est[i];
	}
}

static void kib(char *buf, size_t len, double bytes)
{
	if (bytes >= 10 * 1048576.0)
		snprintf(buf, len, "%.1f MiB", bytes / 1048576);
	else
		snprintf(buf, len, "%.0f KiB", bytes / 1024);
}

/* Sentences on the fit: its parameters, which form, how well. */
static void describe_fit(const struct ra_model_pool *p, struct ra_advice *a)
{
	const struct ra_model_fit *f = &p->fit, *o = &p->other;
	char b1[32];

	if (!f->ok) {
		APPEND(a, "No model: %s. ", f->why[0] ? f->why : "no I/O to fit");
		return;
	}
	kib(b1, sizeof(b1), f->access_ns / 1e9 * f->bw_bps);
	if (f->why[0])
		APPEND(a, "Access %.3f ms and bandwidth %.1f MiB/s (%s form, %d sizes from %.0f to "
		       "%.0f KiB), but %s. ", f->access_ns / 1e6, mib(f->bw_bps),
		       ra_model_form_name(f->form), f->points, f->min_bytes / 1024,
		       f->max_bytes / 1024, f->why);
	else
		APPEND(a, "Access %.3f ms and bandwidth %.1f MiB/s (%s form, %d sizes from %.0f to "
		       "%.0f KiB) make a bandwidth-delay product of %s. ", f->access_ns / 1e6,
		       mib(f->bw_bps), ra_model_form_name(f->form), f->points,
		       f->min_bytes / 1024, f->max_bytes / 1024, b1);
	if (f->points == 2)
		APPEND(a, "Two sizes only: a two-parameter form passes through both, so the fit's "
		       "error says nothing and the two forms cannot be told apart. ");
	else if (o->ok)
		APPEND(a, "The %s form fits the sizes within %.1f%% (rms), the %s form within "
		       "%.1f%%%s. ", ra_model_form_name(f->form), f->rms_rel * 100,
		       ra_model_form_name(o->form), o->rms_rel * 100,
		       f->form == RA_FORM_MAX && o->rms_rel > 2 * f->rms_rel ?
		       ": the device limits I/Os and bytes per second like a throttle, rather "
		       "than seeking then transferring" : "");
	a->target_bytes = ra_model_size_for(f, a->fraction);
}

/*
 * kernel window / read_ahead_kb (the trace's ra_pages against the setting):
 * POSIX_FADV_SEQUENTIAL doubles it, some file systems scale it. 0 when the
 * sets disagree.
 */
static double window_ratio(const struct ra_model_pool *p)
{
	double lo = 0, hi = 0;

	for (int i = 0; i < p->nsets; i++) {
		const struct ra_model_set *s = &p->sets[i];
		double r = s->setting_kb > 0 && s->ra_kb > 0 ? (double)s->ra_kb / s->setting_kb : 0;

		if (!(r > 0))
			continue;
		lo = lo > 0 && lo < r ? lo : r;
		hi = hi > r ? hi : r;
	}
	return lo > 0 && hi <= lo * 1.01 ? lo : 0;
}

static void describe_ratio(const struct ra_model_pool *p, struct ra_advice *a)
{
	a->window_ratio = window_ratio(p);
	if (a->window_ratio > 0 && fabs(a->window_ratio - 1) < 0.01)
		return;
	if (fabs(a->window_ratio - 2) < 0.01)
		APPEND(a, "The kernel read ahead twice read_ahead_kb (ra_pages in the trace): the "
		       "reader asked POSIX_FADV_SEQUENTIAL (fio does), which doubles the window; "
		       "the advice is in read_ahead_kb, half the window. ");
	else if (a->window_ratio > 0)
		APPEND(a, "The kernel's window was %.2f x read_ahead_kb (ra_pages in the trace): "
		       "the file system scales it, or the setting changed during the runs; the "
		       "advice is in read_ahead_kb. ", a->window_ratio);
	else if (p->nsets > 1)
		APPEND(a, "The kernel's window (ra_pages in the trace) did not follow read_ahead_kb "
		       "by one ratio: the file system reads ahead through its own setting (btrfs: "
		       "its bdi), or the setting changed during runs; the advice maps settings "
		       "to windows as measured. ");
}

static void push_next(struct ra_advice *a, const struct ra_model_pool *p, int kb)
{
	int i = 0;

	if (kb < 4 || set_of(p, kb))
		return;
	while (i < RA_ADVICE_MAX_NEXT - 1 && a->next_kb[i] && a->next_kb[i] != kb)
		i++;
	if (i < RA_ADVICE_MAX_NEXT - 1 && !a->next_kb[i])
		a->next_kb[i] = kb;
}

static void next_text(struct ra_advice *a)
{
	if (!a->next_kb[0])
		return;
	APPEND(a, "Record read_ahead_kb ");
	for (int i = 0; a->next_kb[i]; i++)
		APPEND(a, "%s%d", i ? (a->next_kb[i + 1] ? ", " : " and ") : "", a->next_kb[i]);
	APPEND(a, " to decide. ");
}

/* The smallest power-of-two setting whose window reaches @bytes, by the pool's ratio. */
static int setting_for_window(const struct ra_model_pool *p, double ratio, double bytes)
{
	int kb = 4;

	for (; kb < (1 << 22); kb *= 2) {
		double x = window_at(p, kb);

		if (!(x > 0))
			x = kb * 1024.0 * (ratio > 0 ? ratio : 1);
		if (x >= bytes)
			break;
	}
	return kb;
}

/*
 * Settings that decide between too few sizes: away from one; beyond two whose
 * time per window did not grow (both access-bound) or grew with their size
 * (both bandwidth-bound); else where the two forms' advice differ.
 */
static void suggest_few(const struct ra_model_pool *p, struct ra_advice *a)
{
	int lo = p->sets[0].setting_kb, hi = p->sets[p->nsets - 1].setting_kb;
	const struct ra_model_fit *f[2] = { &p->fit, &p->other };
	double grew = p->fit.min_ns > 0 ? p->fit.max_ns / p->fit.min_ns : 0;
	double apart = p->fit.min_bytes > 0 ? p->fit.max_bytes / p->fit.min_bytes : 0;

	if (p->nsets == 1 || !(grew > 0)) {
		push_next(a, p, lo < 256 ? lo * 8 : lo / 8 >= MIN_ADVICE_KB ? lo / 8 : lo * 8);
		return;
	}
	if (grew < RA_MODEL_TERM_EVIDENCE || grew * RA_MODEL_TERM_EVIDENCE > apart) {
		bool up = grew < RA_MODEL_TERM_EVIDENCE;

		APPEND(a, "From %.0f to %.0f KiB the time per window %s: both sizes are %s-bound "
		       "and the %s is not identifiable. ", p->fit.min_bytes / 1024,
		       p->fit.max_bytes / 1024, up ? "hardly grew" : "grew with the size",
		       up ? "access" : "bandwidth", up ? "bandwidth" : "access time");
		push_next(a, p, up ? hi * 4 : lo / 4);
		push_next(a, p, up ? hi * 2 : lo / 2);
		return;
	}
	for (int i = 0; i < 2; i++) {
		int kb;

		if (!f[i]->ok)
			continue;
		kb = setting_for_window(p, a->window_ratio, ra_model_size_for(f[i], a->fraction));
		push_next(a, p, kb);
		push_next(a, p, kb / 2);
	}
}

/* The window at the smallest setting was set by the reads: smaller settings read the same. */
static bool read_sized(const struct ra_model_pool *p, double ratio)
{
	const struct ra_model_set *s = &p->sets[0];

	return s->window_bytes > READ_SIZED * s->setting_kb * 1024.0 * (ratio > 0 ? ratio : 1);
}

static void flat_text(const struct ra_model_pool *p, struct ra_advice *a)
{
	const struct ra_model_set *s = &p->sets[0];
	int upto = s->setting_kb;

	for (int i = 1; i < p->nsets && p->sets[i].window_bytes <= s->window_bytes * 1.1; i++)
		upto = p->sets[i].setting_kb;
	a->status = RA_ADVICE_FLAT;
	APPEND(a, "Every setting from %d to %d KiB read windows of %.0f KiB: the reads themselves "
	       "ask that much (more than read_ahead_kb), so readahead below %.0f KiB changes "
	       "nothing for this workload and needs no setting; the model covers %.0f KiB and up "
	       "only. ", s->setting_kb, upto, s->window_bytes / 1024, s->window_bytes / 1024,
	       p->fit.min_bytes / 1024);
}

/*
 * Whether the measured sizes bracket the knee: the largest shows the bandwidth
 * term (its time above the access time), the smallest the access term (its
 * time above its transfer), and the best would stay the best with a larger
 * size. Sets the status and what to record when they do not.
 */
static void bracket(const struct ra_model_pool *p, const struct cands *c, struct ra_advice *a)
{
	const struct ra_model_fit *f = &p->fit;
	int lo = p->sets[0].setting_kb, hi = p->sets[p->nsets - 1].setting_kb;
	double rec = 0;
	bool m;

	if (f->max_ns < RA_MODEL_TERM_EVIDENCE * f->access_ns) {
		a->status = RA_ADVICE_UNIDENTIFIABLE;
		push_next(a, p, hi * 2);
		push_next(a, p, hi * 4);
		return;
	}
	if (a->recommended_kb == lo && read_sized(p, a->window_ratio)) {
		flat_text(p, a);
		return;
	}
	if (a->recommended_kb == lo && lo > MIN_ADVICE_KB) {
		a->status = RA_ADVICE_UNIDENTIFIABLE;
		APPEND(a, "Every measured setting reaches %.0f%% of the best, %d KiB too: the knee "
		       "is at or below it. ", a->fraction * 100, lo);
		push_next(a, p, lo / 2);
		push_next(a, p, lo / 4);
		return;
	}
	if (a->recommended_kb)
		rec = estimate(p, a->recommended_kb, &m);
	/* a larger size could raise the best, unless thrashing caps the sizes anyway */
	if (rec > 0 && !c->cap && a->fraction * ra_model_throughput(f, 2 * f->max_bytes) > rec * 1.02) {
		a->status = RA_ADVICE_UNIDENTIFIABLE;
		APPEND(a, "The throughput still grows at the largest size (%.0f KiB): a larger "
		       "setting would raise the best. ", f->max_bytes / 1024);
		push_next(a, p, hi * 2);
		return;
	}
}

/* The fastest candidate of @c at or above the cap, and its set (a thrashing one). */
static int fastest_thrashing(const struct cands *c)
{
	int best = -1;

	for (int i = 0; i < c->n; i++)
		if (c->cap && c->kb[i] >= c->cap && c->measured[i] &&
		    (best < 0 || c->est[i] > c->est[best]))
			best = i;
	return best;
}

static void thrash_text(const struct ra_model_pool *p, const struct cands *c, int fast,
			struct ra_advice *a)
{
	const struct ra_model_set *s = set_of(p, c->cap);
	int t = fastest_thrashing(c);

	APPEND(a, "Settings of %d KiB and more thrashed (%.0f%% of the readahead pages at %d KiB "
	       "were evicted unused and read again), ", c->cap, s->thrash_share * 100, c->cap);
	if (fast < 0) {
		APPEND(a, "and no setting below them was measured: the advice is only to stay "
		       "below them, %d KiB at most. ", a->recommended_kb);
		return;
	}
	if (c->kb[fast] != a->recommended_kb || t < 0 || c->est[t] <= c->est[fast]) {
		APPEND(a, "so the advice stays below them. ");
		return;
	}
	APPEND(a, "and the fastest of the settings that did not is %d KiB (%.1f MiB/s). %d KiB "
	       "was measured faster (%.1f MiB/s, %.0f%% more) but read %.0f%% of its readahead "
	       "pages twice: each thrashed page costs the device a second read, and the memory "
	       "those windows hold is taken from the other readers under the memory limit, so "
	       "the faster setting is not worth it. ", c->kb[fast], mib(c->est[fast]), c->kb[t],
	       mib(c->est[t]), (c->est[t] / c->est[fast] - 1) * 100,
	       set_of(p, c->kb[t])->thrash_share * 100);
}

/*
 * The recommendation over the candidates: the smallest one below the
 * thrashing cap that reaches the fraction of the best; when the thrashing
 * settings were the fast ones, the fastest below them.
 */
static void pick(struct cands *c, struct ra_advice *a)
{
	int fast = -1;

	a->thrash_kb = c->cap;
	for (int i = 0; i < c->n; i++) {
		if (!a->model_kb && c->model[i] > 0 && c->model[i] >= a->fraction * c->best_model)
			a->model_kb = c->kb[i];
		if (!a->measured_kb && c->measured[i] &&
		    c->est[i] >= a->fraction * c->best_measured)
			a->measured_kb = c->kb[i];
		if (!c->allowed[i])
			continue;
		if (!a->recommended_kb && c->est[i] >= a->fraction * c->best)
			a->recommended_kb = c->kb[i];
		if (fast < 0 || c->est[i] > c->est[fast])
			fast = i;
	}
	c->fast = fast;
	c->reached = a->recommended_kb != 0;
	if (c->cap && !a->recommended_kb)
		a->recommended_kb = fast >= 0 ? c->kb[fast] : c->cap / 2 >= 4 ? c->cap / 2 : 4;
}

static void pick_text(const struct ra_model_pool *p, const struct cands *c, struct ra_advice *a)
{
	int fast = c->fast;

	if (a->recommended_kb && c->reached) {
		bool m;
		double e = estimate(p, a->recommended_kb, &m);

		APPEND(a, "Over the measured settings (%d to %d KiB) the best throughput is %.1f MiB/s; "
		       "%d KiB is the smallest setting reaching %.0f%% of it: %.1f MiB/s (%s). ",
		       p->sets[0].setting_kb, p->sets[p->nsets - 1].setting_kb, mib(c->best),
		       a->recommended_kb, a->fraction * 100, mib(e),
		       m ? "measured" : "the model's, between measured settings");
	}
	if (a->model_kb && a->model_kb != a->recommended_kb)
		APPEND(a, "The model alone says %d KiB. ", a->model_kb);
	if (a->measured_kb && a->measured_kb != a->recommended_kb)
		APPEND(a, "The measured settings alone say %d KiB. ", a->measured_kb);
	if (c->cap)
		thrash_text(p, c, fast, a);
}

/* The share behind @cause in @s: idle, cached, thrashed, or the run's seconds. */
static double cause_value(const struct ra_model_set *s, int cause)
{
	switch (cause) {
	case RA_CAUSE_READER:
		return s->idle_share * 100;
	case RA_CAUSE_CACHED:
		return s->cached_share * 100;
	case RA_CAUSE_THRASH:
		return s->thrash_share * 100;
	default:
		return s->io_s;
	}
}

/* A short run's allowance: a throttle's where one held the windows, else the device's own. */
static const char *short_cause(bool throttled)
{
	return throttled ? "a throttle's burst allowance (blk-throttle grants a slice at once) or "
			   "a device cache" : "a device cache or the first I/O's latency";
}

static void cause_sentence(struct ra_advice *a, int cause, const char *range, bool throttled)
{
	switch (cause) {
	case RA_CAUSE_READER:
		APPEND(a, "the device sat idle %s%% of the I/O time with no window in flight: the "
		       "reader set the pace (CPU bound), not the device", range);
		break;
	case RA_CAUSE_CACHED:
		APPEND(a, "%s%% of the windows' pages were in the page cache already and cost no "
		       "device time", range);
		break;
	case RA_CAUSE_THRASH:
		APPEND(a, "%s%% of the readahead pages thrashed (evicted unused, read again): "
		       "memory pressure, the reclaim slowed the readers", range);
		break;
	case RA_CAUSE_SHORT:
		APPEND(a, "the I/O lasted %s s: %s weighs much in a short run", range,
		       short_cause(throttled));
		break;
	default:
		APPEND(a, "the runs did not follow the device's time per window (%s): other I/O "
		       "on the device, or the reader waited elsewhere", range);
	}
}

/* The run sets of one cause: their settings, how far off, the cause with its range. */
static void cause_text(const struct ra_model_pool *p, int cause, struct ra_advice *a)
{
	double lo = 0, hi = 0;
	bool throttled = false;
	char range[48];
	int n = 0;

	for (int i = 0; i < p->nsets; i++) {
		const struct ra_model_set *s = &p->sets[i];
		double v = cause_value(s, cause);

		if (s->explained != 0 || s->cause != cause)
			continue;
		throttled |= s->held_share >= RA_MODEL_HELD_SHARE;
		APPEND(a, "%s%d (%.2fx)", n++ ? ", " : "At read_ahead_kb ", s->setting_kb,
		       s->predicted_bps / s->measured_bps);
		lo = n == 1 || v < lo ? v : lo;
		hi = n == 1 || v > hi ? v : hi;
	}
	if (!n)
		return;
	if (cause == RA_CAUSE_OTHER)
		snprintf(range, sizeof(range), "predicted / measured");
	else if (cause == RA_CAUSE_SHORT)
		snprintf(range, sizeof(range), hi - lo < 0.01 ? "%.2f" : "%.2f to %.2f", lo, hi);
	else
		snprintf(range, sizeof(range), hi - lo < 1 ? "%.0f" : "%.0f to %.0f", lo, hi);
	APPEND(a, " the model does not explain the measured throughput (predicted / measured): ");
	cause_sentence(a, cause, range, throttled);
	APPEND(a, ". ");
}

/* Run sets the model does not explain, poor fits: the advice is then unreliable. */
static void check_text(const struct ra_model_pool *p, struct ra_advice *a)
{
	int n = 0;

	for (int i = 0; i < p->nsets; i++)
		n += p->sets[i].explained == 0;
	for (int c = RA_CAUSE_READER; n && c <= RA_CAUSE_OTHER; c++)
		cause_text(p, c, a);
	if (p->fit.ok && p->fit.rms_rel > RA_MODEL_POOR_FIT)
		APPEND(a, "The fit is poor (%.0f%% rms): the sizes do not follow one curve (mixed "
		       "workloads, a cache in front of the device). ", p->fit.rms_rel * 100);
	if (n || (p->fit.ok && p->fit.rms_rel > RA_MODEL_POOR_FIT))
		a->status = RA_ADVICE_UNRELIABLE;
}

/* Unmeasured settings the recommendation rests on: it, and the candidate below it. */
static void verify(const struct ra_model_pool *p, const struct cands *c, struct ra_advice *a)
{
	int k = 0;

	for (int i = 0; i < c->n && a->recommended_kb; i++) {
		if (c->kb[i] != a->recommended_kb)
			continue;
		if (!c->measured[i])
			a->verify_kb[k++] = c->kb[i];
		if (i > 0 && !c->measured[i - 1])
			a->verify_kb[k++] = c->kb[i - 1];
	}
}

static bool has_io(const struct ra_model_pool *p)
{
	for (int i = 0; i < p->nsets; i++)
		if (p->sets[i].window_bytes > 0)
			return true;
	return false;
}

/* Every measured setting reaches the fraction of the best measured. */
static bool all_reach(const struct ra_model_pool *p, const struct cands *c, double fraction)
{
	for (int i = 0; i < p->nsets; i++)
		if (!(p->sets[i].measured_bps >= fraction * c->best_measured))
			return false;
	return c->best_measured > 0;
}

/* The status: too few sizes, measurements the model does not explain, no bracket. */
static void judge(const struct ra_model_pool *p, const struct cands *c, struct ra_advice *a)
{
	a->status = RA_ADVICE_OK;
	if (!p->fit.ok || p->fit.points < 3) {
		if (read_sized(p, a->window_ratio) && all_reach(p, c, a->fraction)) {
			flat_text(p, a);
			return;
		}
		a->status = RA_ADVICE_UNIDENTIFIABLE;
		suggest_few(p, a);
		return;
	}
	check_text(p, a);
	if (a->status == RA_ADVICE_OK)
		bracket(p, c, a);
}

/* The reasoning begins with what the advice is: a number, an unreliable one, none. */
static void lead(struct ra_advice *a)
{
	char head[160] = "", tmp[sizeof(a->reasoning)];

	if (a->status == RA_ADVICE_UNRELIABLE)
		snprintf(head, sizeof(head), "Unreliable: the model does not explain every "
			 "measurement (below); the number rests on the measured settings. ");
	else if (a->status == RA_ADVICE_UNIDENTIFIABLE && a->recommended_kb)
		snprintf(head, sizeof(head), "An upper bound, not a measured advice. ");
	else if (a->status == RA_ADVICE_UNIDENTIFIABLE)
		snprintf(head, sizeof(head), "No single number: the measured sizes do not decide "
			 "it. ");
	else if (a->status == RA_ADVICE_FLAT)
		snprintf(head, sizeof(head), "No setting needed: the workload's own reads set the "
			 "I/O size. ");
	if (!head[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s%s", head, a->reasoning);
	memcpy(a->reasoning, tmp, sizeof(tmp));
}

void ra_model_advise(const struct ra_model_pool *p, double fraction, struct ra_advice *a)
{
	struct cands c;

	memset(a, 0, sizeof(*a));
	a->fraction = fraction;
	a->current_kb = p->current_kb;
	if (!has_io(p) && p->no_readahead && !p->no_io) {
		a->status = RA_ADVICE_NONE;
		APPEND(a, "No run of the pool read ahead, though the device was read: the reads "
		       "went around readahead (MADV_RANDOM, POSIX_FADV_RANDOM or O_DIRECT), so "
		       "read_ahead_kb does not change their I/O; nothing to advise.");
		return;
	}
	if (!has_io(p)) {
		a->status = RA_ADVICE_NONE;
		APPEND(a, "No run of the pool read from the device: %s%s; nothing to advise. "
		       "Record from a cold page cache (ra-record --drop-caches or --evict).",
		       p->no_io ? "the reads found their pages in the page cache" :
		       "no readahead window with I/O", p->left_out ? ", or the runs were left out" : "");
		return;
	}
	describe_fit(p, a);
	describe_ratio(p, a);
	candidates(p, &c);
	pick(&c, a);
	judge(p, &c, a);
	if (a->status == RA_ADVICE_UNIDENTIFIABLE && !(c.cap && !p->fit.ok)) {
		a->recommended_kb = 0;
	} else if (a->status == RA_ADVICE_FLAT) {
		a->recommended_kb = 0;
	}
	if (a->recommended_kb || c.cap)
		pick_text(p, &c, a);
	next_text(a);
	verify(p, &c, a);
	if (p->left_out)
		APPEND(a, "%d run%s of the pool %s left out (failed, killed or interrupted). ",
		       p->left_out, p->left_out > 1 ? "s" : "", p->left_out > 1 ? "were" : "was");
	if (a->recommended_kb && a->current_kb >= 0)
		APPEND(a, "Recorded with read_ahead_kb %d%s.", a->current_kb,
		       a->current_kb == a->recommended_kb ? ", already the advice" : "");
	lead(a);
}

static int why_cause(const struct ra_model_set *s, double err)
{
	if (err > 0 && s->reader_paced)
		return RA_CAUSE_READER;
	if (err < 0 && s->cached_share > 0.05)
		return RA_CAUSE_CACHED;
	if (err > 0 && s->thrash_share >= 0.01)
		return RA_CAUSE_THRASH;
	if (err < 0 && s->io_s < 2)
		return RA_CAUSE_SHORT;
	return RA_CAUSE_OTHER;
}

void ra_model_check(struct ra_model_set *s)
{
	double err;

	s->why[0] = '\0';
	s->explained = -1;
	if (!(s->measured_bps > 0) || !(s->predicted_bps > 0))
		return;
	err = (s->predicted_bps - s->measured_bps) / s->measured_bps;
	s->explained = fabs(err) <= RA_MODEL_EXPLAIN_TOL;
	s->cause = RA_CAUSE_NONE;
	if (s->explained)
		return;
	s->cause = why_cause(s, err);
	if (s->cause == RA_CAUSE_READER)
		snprintf(s->why, sizeof(s->why), "the device sat idle %.0f%% of the I/O time with "
			 "no window in flight: the reader set the pace (CPU bound), not the device",
			 s->idle_share * 100);
	else if (s->cause == RA_CAUSE_CACHED)
		snprintf(s->why, sizeof(s->why), "%.0f%% of the windows' pages were in the page "
			 "cache already and cost no device time", s->cached_share * 100);
	else if (s->cause == RA_CAUSE_THRASH)
		snprintf(s->why, sizeof(s->why), "%.0f%% of the readahead pages thrashed (evicted "
			 "unused, read again): memory pressure, the reclaim slowed the readers",
			 s->thrash_share * 100);
	else if (s->cause == RA_CAUSE_SHORT)
		snprintf(s->why, sizeof(s->why), "its I/O lasted %.2f s: %s weighs much in a short"
			 " run", s->io_s, short_cause(s->held_share >= RA_MODEL_HELD_SHARE));
	else
		snprintf(s->why, sizeof(s->why), "the runs were %s than the device's time per "
			 "window says: other I/O on the device, or the reader waited elsewhere",
			 err > 0 ? "slower" : "faster");
}

static int pool_runs(const struct ra_model_pool *p)
{
	int n = p->left_out;

	for (int i = 0; i < p->nsets; i++)
		n += p->sets[i].runs;
	return n;
}

static bool in_limits(const struct ra_sweep_limits *l, int kb)
{
	return kb >= l->lo_kb && kb <= l->hi_kb;
}

/* The first of @kb (0-ended, @n at most) inside the limits. */
static int first_in(const struct ra_sweep_limits *l, const int *kb, int n)
{
	for (int i = 0; i < n && kb[i]; i++)
		if (in_limits(l, kb[i]))
			return kb[i];
	return 0;
}

/*
 * A measurement near the threshold is repeated: the recommended setting and
 * the measured one below it decide the advice, and one run of either within
 * the margin of fraction x best could fall on the other side.
 */
static int close_call(const struct ra_model_pool *p, const struct ra_advice *a,
		      const struct ra_sweep_limits *l)
{
	const struct ra_model_set *rec = set_of(p, a->recommended_kb), *below = NULL;
	double best = 0;

	for (int i = 0; i < p->nsets; i++) {
		if (p->sets[i].measured_bps > best)
			best = p->sets[i].measured_bps;
		if (p->sets[i].setting_kb < a->recommended_kb)
			below = &p->sets[i];
	}
	for (int k = 0; k < 2 && best > 0; k++) {
		const struct ra_model_set *s = k ? below : rec;

		if (s && s->runs < l->max_repeats && s->measured_bps > 0 &&
		    fabs(s->measured_bps / (a->fraction * best) - 1) < l->margin)
			return s->setting_kb;
	}
	return 0;
}

int ra_sweep_next(const struct ra_model_pool *p, const struct ra_advice *a,
		  const struct ra_sweep_limits *l, int *next_kb, char *why, size_t len)
{
	int start = 128;

	*next_kb = 0;
	if (pool_runs(p) >= l->max_runs) {
		snprintf(why, len, "%d runs, the most the sweep may record", pool_runs(p));
		return 0;
	}
	if (!p->nsets) {
		*next_kb = start < l->lo_kb ? l->lo_kb : start > l->hi_kb ? l->hi_kb : start;
		snprintf(why, len, "no run yet: the kernel's default first");
		return 0;
	}
	switch (a->status) {
	case RA_ADVICE_UNIDENTIFIABLE:
		*next_kb = first_in(l, a->next_kb, RA_ADVICE_MAX_NEXT);
		snprintf(why, len, *next_kb ? "to bracket the knee" :
			 "the settings that would decide lie outside %d..%d KiB", l->lo_kb, l->hi_kb);
		return 0;
	case RA_ADVICE_OK:
	case RA_ADVICE_UNRELIABLE:
		*next_kb = first_in(l, a->verify_kb, 2);
		if (*next_kb) {
			snprintf(why, len, "to measure what the advice rests on");
			return 0;
		}
		*next_kb = close_call(p, a, l);
		snprintf(why, len, *next_kb ? "a measurement close to the threshold, again" :
			 "the advice is decided");
		return 0;
	default:
		snprintf(why, len, "nothing to decide: %s", ra_advice_status_name(a->status));
		return 0;
	}
}
