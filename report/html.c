// SPDX-License-Identifier: LGPL-2.1
/*
 * The HTML report: one self-contained page (no scripts, fonts or images from
 * elsewhere), the tables of the text report and charts drawn as inline SVG.
 * Every string that comes from a trace goes through the text escape, then
 * HTML's entities.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "ra_model.h"
#include "report.h"

#define CW 720		/* chart size */
#define CH 260
#define ML 70		/* margins: left, right, top, bottom */
#define MR 150
#define MT 30
#define MB 45
#define MAX_SERIES 8

static const char *const palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
				       "#9467bd", "#8c564b", "#e377c2", "#7f7f7f" };

/* HTML text of @s: the text escape (controls, bytes that are not UTF-8), then entities. */
static void esc(FILE *out, const char *s)
{
	ra_xml_text(out, s);
}

/* A cell: text as the database holds it, numbers formatted. */
static void esc_value(FILE *out, const char *col, const struct ra_value *v)
{
	char buf[64];

	if (v->type == RA_VALUE_TEXT) {
		esc(out, v->s);
		return;
	}
	ra_fmt_value(buf, sizeof(buf), col, v);
	esc(out, buf);
}

static double num(const struct ra_table *t, int row, const char *col)
{
	int c = ra_table_col(t, col);
	const struct ra_value *v;

	if (c < 0)
		return 0;
	v = ra_table_cell(t, row, c);
	return v->type == RA_VALUE_REAL ? v->d : v->type == RA_VALUE_INT ? (double)v->i : 0;
}

static const char *text(const struct ra_table *t, int row, const char *col)
{
	int c = ra_table_col(t, col);
	const struct ra_value *v = c >= 0 ? ra_table_cell(t, row, c) : NULL;

	return v && v->type == RA_VALUE_TEXT ? v->s : "";
}

/* ---- SVG frame: axes, ticks, labels, legend ---- */

struct frame {
	double x0, x1, y0, y1;	/* data ranges */
	bool xlog;		/* x axis in log2 */
};

static double px(const struct frame *f, double x)
{
	double a = f->xlog ? log2(x > 0 ? x : 1) : x;
	double lo = f->xlog ? log2(f->x0 > 0 ? f->x0 : 1) : f->x0;
	double hi = f->xlog ? log2(f->x1 > 0 ? f->x1 : 1) : f->x1;

	return ML + (hi > lo ? (a - lo) / (hi - lo) : 0) * (CW - ML - MR);
}

static double py(const struct frame *f, double y)
{
	return CH - MB - (f->y1 > f->y0 ? (y - f->y0) / (f->y1 - f->y0) : 0) * (CH - MT - MB);
}

static double nice(double v)
{
	double p = pow(10, floor(log10(v > 0 ? v : 1))), m = v / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void svg_begin(FILE *out, const char *title, const char *id)
{
	fprintf(out, "<figure id=\"%s\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
		" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>", id, CW, CH, CW, CH);
	esc(out, title);
	fprintf(out, "</title><text x=\"%d\" y=\"18\" class=\"t\">", ML);
	esc(out, title);
	fputs("</text>\n", out);
}

static void fmt_tick(char *buf, size_t len, double v, const char *unit)
{
	if (strcmp(unit, "ns") == 0)
		ra_fmt_ns(buf, len, v);
	else if (strcmp(unit, "B") == 0 && v >= 1024)	/* powers of two: 4K, 1M */
		snprintf(buf, len, v >= 1048576 ? "%gM" : "%gK", v >= 1048576 ? v / 1048576 : v / 1024);
	else if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else if (v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/* @xunit NULL: the caller labels the x axis itself (categories). */
/*
 * Round ticks of the x axis, 7 at most: on a linear axis multiples of a
 * round step; on a log axis of bytes powers of two (4K, 16K, 1M), of times
 * powers of ten (1us, 10us, 1ms), every second or more when there are many.
 */
#define MAX_TICKS 7

static int x_ticks(const struct frame *f, const char *unit, double *t)
{
	double lo = f->x0 > 0 ? f->x0 : 1, hi = f->x1 > lo ? f->x1 : lo * 2, base, step;
	int n = 0;

	if (!f->xlog) {
		step = nice((f->x1 - f->x0) / 5);
		for (double x = ceil(f->x0 / step) * step; step > 0 && x <= f->x1 + step / 1e6 &&
		     n < MAX_TICKS; x += step)
			t[n++] = x;
		return n;
	}
	for (base = strcmp(unit, "ns") == 0 ? 10 : 2; base >= 2 && n < 2; base = base > 2 ? 2 : 0) {
		n = 0;
		step = base;
		while (log(hi / lo) / log(step) > MAX_TICKS - 1)
			step *= base;
		for (double x = pow(step, ceil(log(lo) / log(step) - 1e-9));
		     x <= hi * (1 + 1e-9) && n < MAX_TICKS; x *= step)
			t[n++] = x;
	}
	if (n < 2) {	/* a range within one power of two: its ends */
		t[0] = lo;
		t[1] = hi;
		n = 2;
	}
	return n;
}

static void svg_axes(FILE *out, const struct frame *f, const char *xlabel, const char *xunit,
		     const char *ylabel)
{
	double step = nice((f->y1 - f->y0) / 5), ticks[MAX_TICKS];
	char buf[64];

	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n", ML, CH - MB,
		CW - MR, CH - MB, ML, MT, ML, CH - MB);
	for (double y = f->y0; y <= f->y1 + step / 2 && step > 0; y += step) {
		fmt_tick(buf, sizeof(buf), y, "");
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"yt\">%s</text>", ML - 4,
			py(f, y) + 4, buf);
	}
	for (int i = 0; xunit && i < x_ticks(f, xunit, ticks); i++) {
		fmt_tick(buf, sizeof(buf), ticks[i], xunit);
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"xt\">%s</text>", px(f, ticks[i]),
			CH - MB + 16, buf);
	}
	fprintf(out, "\n<text x=\"%d\" y=\"%d\" class=\"xl\">", (ML + CW - MR) / 2, CH - 8);
	esc(out, xlabel);
	fprintf(out, "</text><text transform=\"translate(14,%d) rotate(-90)\" class=\"yl\">",
		(MT + CH - MB) / 2);
	esc(out, ylabel);
	fputs("</text>\n", out);
}

static void svg_legend_color(FILE *out, int i, const char *name, const char *color)
{
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		"<text x=\"%d\" y=\"%d\" class=\"lg\">", CW - MR + 10, MT + i * 16, color,
		CW - MR + 24, MT + i * 16 + 9);
	esc(out, name);
	fputs("</text>\n", out);
}

static void svg_legend(FILE *out, int i, const char *name)
{
	svg_legend_color(out, i, name, palette[i % MAX_SERIES]);
}

static void svg_end(FILE *out, const char *caption)
{
	fputs("</svg><figcaption>", out);
	esc(out, caption);
	fputs("</figcaption></figure>\n", out);
}

/* ---- the charts ---- */

static const char *stream_name(const struct ra_report *r, int64_t id, char *buf, size_t len)
{
	const struct ra_table *s = ra_report_table(r, "streams");

	for (int i = 0; s && i < s->nrows; i++)
		if ((int64_t)num(s, i, "stream_id") == id) {
			const char *file = text(s, i, "file"), *slash = strrchr(file, '/');

			snprintf(buf, len, "%s %s", text(s, i, "comm"), slash ? slash + 1 : file);
			return buf;
		}
	snprintf(buf, len, "stream %lld", (long long)id);
	return buf;
}

static void chart_windows(FILE *out, const struct ra_report *r)
{
	const struct ra_table *t = ra_report_table(r, "chart_window_sizes");
	struct frame f = { 0 };
	int64_t cur = -1;
	int series = -1;
	char name[320];	/* a task name and a file name of 255 bytes */

	if (!t || !t->nrows)
		return;
	for (int i = 0; i < t->nrows; i++) {
		f.x1 = fmax(f.x1, num(t, i, "t_ns") / 1e6);
		f.y1 = fmax(f.y1, num(t, i, "size_pages"));
	}
	f.y1 = nice(f.y1 * 1.05);
	f.x1 = f.x1 > 0 ? f.x1 : 1;
	svg_begin(out, "Readahead window size over time (busiest streams)", "c-windows");
	svg_axes(out, &f, "time since the first window (ms)", "", "window size (pages)");
	for (int i = 0; i < t->nrows; i++) {
		int64_t id = (int64_t)num(t, i, "stream_id");

		if (id != cur) {
			if (series >= 0)
				fputs("\"/>\n", out);
			series++;
			cur = id;
			svg_legend(out, series, stream_name(r, id, name, sizeof(name)));
			fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
				palette[series % MAX_SERIES]);
		}
		fprintf(out, "%.1f,%.1f ", px(&f, num(t, i, "t_ns") / 1e6),
			py(&f, num(t, i, "size_pages")));
	}
	fputs("\"/>\n", out);
	svg_end(out, "Each point is a window; a sequential stream ramps up (x4, then x2) to"
		     " ra_pages and stays there; drops are restarts or lost state.");
}

static void chart_fates(FILE *out, const struct ra_report *r)
{
	static const char *const names[] = { "used", "mapped, access unknown",
					     "evicted, not re-read", "thrashed", "pending" };
	static const char *const colors[] = { "#1f77b4", "#9ecae1", "#ff7f0e", "#d62728",
					      "#aaaaaa" };
	const struct ra_table *t = ra_report_table(r, "files");
	int n = t ? (t->nrows < 10 ? t->nrows : 10) : 0;
	struct frame f = { 0 };
	int bar = n ? (CH - MT - MB) / n : 0;

	if (!n)
		return;
	for (int i = 0; i < n; i++)
		f.x1 = fmax(f.x1, num(t, i, "readahead_pages"));
	f.x1 = nice(f.x1 > 0 ? f.x1 : 1);
	svg_begin(out, "Fate of the read-ahead pages per file", "c-fates");
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>\n", ML, CH - MB,
		CW - MR, CH - MB);
	for (int k = 0; k <= 5; k++) {
		char buf[32];

		fmt_tick(buf, sizeof(buf), f.x1 * k / 5, "");
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"xt\">%s</text>", px(&f, f.x1 * k / 5),
			CH - MB + 16, buf);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"xl\">read-ahead pages</text>\n",
		(ML + CW - MR) / 2, CH - 8);
	for (int k = 0; k < 5; k++)
		svg_legend_color(out, k, names[k], colors[k]);
	for (int i = 0; i < n; i++) {
		double v[5] = { num(t, i, "used"), num(t, i, "mapped"),
				num(t, i, "evicted_unused") - num(t, i, "thrashed"),
				num(t, i, "thrashed"), num(t, i, "pending") }, x = 0;
		const char *file = text(t, i, "file"), *slash = strrchr(file, '/');

		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"yt\">", ML - 4, MT + i * bar + bar / 2 + 4);
		esc(out, slash ? slash + 1 : file);
		fputs("</text>", out);
		for (int k = 0; k < 5; k++) {
			fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
				"<title>%s: %.0f</title></rect>", px(&f, x), MT + i * bar + 2,
				px(&f, x + v[k]) - px(&f, x), bar - 4, colors[k], names[k], v[k]);
			x += v[k];
		}
		fputc('\n', out);
	}
	svg_end(out, "Pages read ahead for each file (the top files by volume) and what became of"
		     " them; mapped pages (mmap fault-around) may or may not have been read.");
}

static void chart_latency(FILE *out, const struct ra_report *r)
{
	static const char *const ivs[] = { "D2C", "Q2C", "Q2D_RA" };
	const struct ra_table *t = ra_report_table(r, "chart_latency");
	struct frame f = { .x0 = 1e18, .xlog = true };
	const char *dev;

	if (!t || !t->nrows)
		return;
	dev = text(t, 0, "dev");	/* the busiest device comes first in the block table */
	if (ra_report_table(r, "block") && ra_report_table(r, "block")->nrows)
		dev = text(ra_report_table(r, "block"), 0, "dev");
	for (int i = 0; i < t->nrows; i++) {
		if (strcmp(text(t, i, "dev"), dev) != 0)
			continue;
		f.x0 = fmin(f.x0, fmax(num(t, i, "lo_ns"), 1));
		f.x1 = fmax(f.x1, num(t, i, "hi_ns"));
		f.y1 = fmax(f.y1, num(t, i, "n"));
	}
	if (f.x1 <= 0)
		return;
	f.y1 = nice(f.y1 * 1.05);
	{
		char title[96];

		snprintf(title, sizeof(title), "Request latencies of %s (log2 buckets)", dev);
		svg_begin(out, title, "c-latency");
	}
	svg_axes(out, &f, "latency (log scale)", "ns", "requests or bios");
	for (int k = 0; k < 3; k++) {
		svg_legend(out, k, ivs[k]);
		for (int i = 0; i < t->nrows; i++) {
			double x0, x1, w;

			if (strcmp(text(t, i, "dev"), dev) || strcmp(text(t, i, "interval"), ivs[k]))
				continue;
			x0 = px(&f, fmax(num(t, i, "lo_ns"), 1));
			x1 = px(&f, num(t, i, "hi_ns"));
			w = (x1 - x0) / 3;
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
				" fill=\"%s\"><title>%s %.0f</title></rect>", x0 + k * w,
				py(&f, num(t, i, "n")), w, CH - MB - py(&f, num(t, i, "n")),
				palette[k], ivs[k], num(t, i, "n"));
		}
		fputc('\n', out);
	}
	svg_end(out, "D2C: issued to completed; Q2C: queued to completed; Q2D_RA: readahead bios"
		     " queued to issued (stalls).");
}

static void chart_throughput(FILE *out, const struct ra_report *r)
{
	const struct ra_table *t = ra_report_table(r, "chart_throughput");
	struct frame f = { 0 };
	double bucket_s;

	if (!t || !t->nrows)
		return;
	bucket_s = num(t, 0, "bucket_ns") / 1e9;
	if (bucket_s <= 0)
		return;
	for (int i = 0; i < t->nrows; i++)
		f.y1 = fmax(f.y1, num(t, i, "bytes") / bucket_s / 1e6);
	f.x1 = bucket_s * 100;
	f.y1 = nice(f.y1 * 1.05);
	svg_begin(out, "Read throughput and readahead I/O over time", "c-throughput");
	svg_axes(out, &f, "time (s)", "", "MB/s completed");
	svg_legend(out, 0, "readahead reads");
	svg_legend(out, 1, "other reads");
	for (int i = 0; i < t->nrows; i++) {
		double b = num(t, i, "bucket"), ra = num(t, i, "ra_bytes") / bucket_s / 1e6;
		double all = num(t, i, "bytes") / bucket_s / 1e6;
		double x0 = px(&f, b * bucket_s), x1 = px(&f, (b + 1) * bucket_s);

		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
			x0, py(&f, ra), x1 - x0, CH - MB - py(&f, ra), palette[0], x0, py(&f, all),
			x1 - x0, py(&f, ra) - py(&f, all), palette[1]);
	}
	svg_end(out, "Bytes of completed read requests per hundredth of the run.");
}

static void chart_sizes(FILE *out, const struct ra_report *r)
{
	const struct ra_table *t = ra_report_table(r, "chart_io_sizes");
	struct frame f = { 0 };
	int n = t ? t->nrows : 0, w;

	if (!n)
		return;
	for (int i = 0; i < n; i++)
		f.y1 = fmax(f.y1, num(t, i, "requests"));
	f.y1 = nice(f.y1 * 1.05);
	f.x1 = n;
	svg_begin(out, "Readahead request sizes", "c-sizes");
	svg_axes(out, &f, "request size (bytes, log2 buckets)", NULL, "requests");
	w = (CW - ML - MR) / n;
	for (int i = 0; i < n; i++) {
		char buf[32];

		fmt_tick(buf, sizeof(buf), num(t, i, "size_bytes"), "");
		fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
			"<title>%s B: %.0f</title></rect><text x=\"%d\" y=\"%d\" class=\"xt\">%sB"
			"</text>\n", ML + i * w + 2, py(&f, num(t, i, "requests")), w - 4,
			CH - MB - py(&f, num(t, i, "requests")), palette[2], buf,
			num(t, i, "requests"), ML + i * w + w / 2, CH - MB + 16, buf);
	}
	svg_end(out, "Completed readahead requests (A in rwbs) by size.");
}

/*
 * Throughput against I/O size: the size classes the window model was fitted
 * to (filled when used), the fitted forms as curves, the advice's target.
 */
static void chart_model(FILE *out, const struct ra_report *r)
{
	const struct ra_table *t = ra_report_table(r, "model_points");
	const struct ra_table *m = ra_report_table(r, "model");
	const struct ra_table *a = ra_report_table(r, "advice");
	struct frame f = { .x0 = 4096, .x1 = 4194304, .xlog = true };
	int legend = 0;

	if (!t || !m || !t->nrows)
		return;
	for (int i = 0; i < t->nrows; i++) {
		if (strcmp(text(t, i, "timing"), "window") != 0 || !(num(t, i, "service_ms") > 0))
			continue;
		f.y1 = fmax(f.y1, num(t, i, "avg_bytes") / num(t, i, "service_ms") * 1e3 / 1048576);
		while (f.x1 < num(t, i, "avg_bytes") * 1.5 && f.x1 < 1073741824.0)
			f.x1 *= 2;	/* windows beyond 4 MiB (POSIX_FADV_SEQUENTIAL doubles them) */
	}
	for (int i = 0; i < m->nrows; i++)
		if (strcmp(text(m, i, "timing"), "window") == 0 && num(m, i, "chosen") > 0)
			f.y1 = fmax(f.y1, num(m, i, "bandwidth_mib_s"));
	if (f.y1 <= 0)
		return;
	f.y1 = nice(f.y1 * 1.1);
	svg_begin(out, "Throughput by I/O size: measured classes and the fitted model", "c-model");
	svg_axes(out, &f, "I/O size (bytes, log scale)", "B", "MiB/s");
	for (int i = 0; i < m->nrows; i++) {
		struct ra_model_fit fit = { .ok = true };
		bool chosen = num(m, i, "chosen") > 0;
		char name[64];

		if (strcmp(text(m, i, "timing"), "window") != 0 ||
		    strcmp(text(m, i, "status"), "ok") != 0)
			continue;
		fit.form = strcmp(text(m, i, "form"), "max") == 0 ? RA_FORM_MAX : RA_FORM_SUM;
		fit.access_ns = num(m, i, "access_ms") * 1e6;
		fit.bw_bps = num(m, i, "bandwidth_mib_s") * 1048576;
		if (fit.bw_bps <= 0)
			continue;
		snprintf(name, sizeof(name), "%s %s form", text(m, i, "dev"), text(m, i, "form"));
		svg_legend(out, legend, name);
		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"",
			palette[legend % MAX_SERIES], chosen ? "2" : "1",
			chosen ? "" : " stroke-dasharray=\"4 3\"");
		/* over the measured sizes only: the model is not extrapolated */
		for (int k = 0; k <= 60; k++) {
			double lo = log2(fmax(num(m, i, "min_kb") * 1024, f.x0));
			double hi = log2(fmin(fmax(num(m, i, "max_kb") * 1024, 2 * f.x0), f.x1));
			double x = exp2(lo + k * (hi - lo) / 60);

			fprintf(out, "%.1f,%.1f ", px(&f, x),
				py(&f, fmin(ra_model_throughput(&fit, x) / 1048576, f.y1)));
		}
		fputs("\"/>\n", out);
		legend++;
	}
	svg_legend_color(out, legend++, "measured", "#000");
	for (int i = 0; i < t->nrows; i++) {
		double x = num(t, i, "avg_bytes"), y = num(t, i, "service_ms") * 1e6;

		if (strcmp(text(t, i, "timing"), "window") != 0 || y <= 0 || x < f.x0 || x > f.x1)
			continue;
		y = x / y * 1e9 / 1048576;
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#000\">"
			"<title>%.0f KiB: %.2f MiB/s, %.0f windows</title></circle>\n", px(&f, x),
			py(&f, fmin(y, f.y1)), num(t, i, "used") > 0 ? "#000" : "none", x / 1024, y,
			num(t, i, "n"));
	}
	for (int i = 0; a && i < a->nrows; i++) {
		double kb = num(a, i, "recommended_kb"), ratio = num(a, i, "window_ratio");
		double x = kb * 1024 * (ratio > 0 ? ratio : 1);

		if (kb <= 0)
			continue;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\""
			" stroke-dasharray=\"2 2\"/><text x=\"%.1f\" y=\"%d\">"
			"advice %.0f KiB</text>\n", px(&f, x), MT, px(&f, x), CH - MB, palette[3],
			px(&f, x) + 4, MT + 12, kb);
	}
	svg_end(out, "Points: windows of one size class, their bytes over their mean device"
		     " time (hollow: too few to be fitted). Curves: size / latency(size) of each"
		     " fitted form over the measured sizes, the chosen one solid. The dotted line is"
		     " the recommended read_ahead_kb, at the window it gives (POSIX_FADV_SEQUENTIAL"
		     " readers read windows of twice it).");
}

/* ---- tables ---- */

static const char *const mark_class[] = {
	[RA_MARK_NONE] = "", [RA_MARK_SIGNIFICANT] = "sig", [RA_MARK_REGRESSION] = "reg",
	[RA_MARK_INCONCLUSIVE] = "inc", [RA_MARK_EMULATED] = "emu", [RA_MARK_CHANGED] = "chg",
};

/* Run ids apart by spaces, each a link to its page "@stem.run-N.html" */
static void run_links(FILE *out, const char *ids, const char *stem)
{
	for (const char *p = ids; *p;) {
		size_t n = strspn(p, "0123456789");

		if (!n) {	/* not an id: as text */
			char *piece;

			n = strcspn(p, " ");
			n += !n;
			piece = strndup(p, n);
			esc(out, piece ? piece : "");
			free(piece);
		} else {
			fputs("<a href=\"", out);
			esc(out, stem);
			fprintf(out, ".run-%.*s.html\">%.*s</a>", (int)n, p, (int)n, p);
		}
		p += n;
	}
}

void ra_table_html(FILE *out, const struct ra_table *t, const char *stem)
{
	if (t->title) {
		fprintf(out, "<h3 id=\"%s\">", t->key);
		esc(out, t->title);
		fputs("</h3>\n", out);
	}
	if (t->note) {
		fputs("<p class=\"note\">", out);
		esc(out, t->note);
		fputs("</p>\n", out);
	}
	if (!t->nrows) {
		fputs("<p class=\"note\">", out);
		esc(out, t->unavailable ? t->unavailable : "none");
		fputs("</p>\n", out);
		return;
	}
	fputs("<div class=\"wide\"><table><thead><tr>", out);
	for (int c = 0; c < t->ncols; c++) {
		if (ra_table_hidden(t, c))
			continue;
		fputs("<th>", out);
		esc(out, ra_table_head(t, c));
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (int r = 0; r < t->nrows; r++) {
		fputs("<tr>", out);
		for (int c = 0; c < t->ncols; c++) {
			const struct ra_value *v = ra_table_cell(t, r, c);
			char *shown;

			if (ra_table_hidden(t, c))
				continue;
			if (v->type == RA_VALUE_TEXT || v->mark) {
				fprintf(out, "<td class=\"%s%s%s\">", v->type == RA_VALUE_TEXT ? "s" : "",
					v->type == RA_VALUE_TEXT && v->mark ? " " : "",
					mark_class[v->mark]);
			} else {
				fputs("<td>", out);
			}
			shown = ra_table_shown(t, r, c);
			if (t->flags && (t->flags[c] & RA_COL_RUNS) && stem)
				run_links(out, shown ? shown : "", stem);
			else
				esc(out, shown ? shown : "");
			free(shown);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
}

/*
 * The advice: a paragraph per device (its number, then the reasoning, as
 * the text prints it), then the table of its figures without the reasoning.
 */
static void html_advice(FILE *out, const struct ra_table *t)
{
	int why = ra_table_col(t, "reasoning"), rec = ra_table_col(t, "recommended_kb");
	int cur = ra_table_col(t, "current_kb"), frac = ra_table_col(t, "fraction");
	struct ra_table view;

	if (rec < 0 || cur < 0 || frac < 0 || ra_table_without(t, why, &view) < 0) {
		ra_table_html(out, t, NULL);
		return;
	}
	fprintf(out, "<h3 id=\"%s\">", t->key);
	esc(out, t->title);
	fputs("</h3>\n", out);
	for (int r = 0; r < t->nrows; r++) {
		char *dev = ra_table_shown(t, r, 0), *kb = ra_table_shown(t, r, rec);
		char *was = ra_table_shown(t, r, cur);

		fputs("<p><b>", out);
		esc(out, dev ? dev : "");
		fputs("</b>: read_ahead_kb <b>", out);
		esc(out, kb ? kb : "");
		fputs("</b> (recorded with ", out);
		esc(out, was ? was : "");
		fprintf(out, "; aiming at %.0f%% of the bandwidth)</p>\n<p class=\"why\">",
			ra_table_real(t, r, frac) * 100);
		esc(out, ra_table_cell(t, r, why)->s);
		fputs("</p>\n", out);
		free(dev);
		free(kb);
		free(was);
	}
	view.title = NULL;
	view.note = NULL;
	ra_table_html(out, &view, NULL);
	free(view.flags);
}

static void html_run(FILE *out, const struct ra_report *r)
{
	const struct ra_table *t = &r->tables[0];

	fprintf(out, "<section id=\"run-%lld\"><h2>Run %lld</h2>\n<dl>", (long long)r->run_id,
		(long long)r->run_id);
	for (int c = 1; c < t->ncols; c++) {
		if (ra_table_cell(t, 0, c)->type == RA_VALUE_NULL)
			continue;
		fputs("<dt>", out);
		esc(out, t->cols[c]);
		fputs("</dt><dd>", out);
		esc_value(out, t->cols[c], ra_table_cell(t, 0, c));
		fputs("</dd>", out);
	}
	fputs("</dl>\n", out);
	if (r->nwarnings) {
		fputs("<ul class=\"warn\">", out);
		for (int i = 0; i < r->nwarnings; i++) {
			fputs("<li>", out);
			esc(out, r->warnings[i]);
			fputs("</li>", out);
		}
		fputs("</ul>\n", out);
	}
}

static void html_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
	      " style-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>", out);
	esc(out, title);
	fputs("</title>\n<style>\n"
	      "body{font:14px/1.4 sans-serif;margin:2em;color:#222;max-width:1100px}\n"
	      "table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}\n"
	      "th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}\n"
	      "th{background:#f0f0f0}td.s{text-align:left}\n"
	      "dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}\n"
	      "dt{font-weight:bold}dd{margin:0}.note{color:#555;margin:0}\n"
	      ".warn{background:#fff3cd;border:1px solid #e0c060;padding:.5em 2em}\n"
	      "figure{margin:1em 0}svg{background:#fff;border:1px solid #ddd}\n"
	      "svg text{font:11px sans-serif;fill:#333}svg .t{font-size:13px;font-weight:bold}\n"
	      "svg .yt{text-anchor:end}svg .xt,svg .xl,svg .yl{text-anchor:middle}\n"
	      "svg .ax{stroke:#333;stroke-width:1}figcaption{color:#555;font-size:12px}\n"
	      "svg{max-width:100%;height:auto}.wide{overflow-x:auto}\n"
	      ".wide table{width:max-content}td.s{max-width:40em}\n"
	      "ul.lg{list-style:none;padding:0;margin:.3em 0;font-size:12px}\n"
	      ".reg{background:#f4c7c3}.sig{background:#cfe8cf}.inc,.emu{color:#888}"
	      ".chg{background:#e4e4f4}\n"
	      "p.why{max-width:50em;margin:.2em 0 .8em}\n"
	      "ul.lg span{display:inline-block;width:10px;height:10px;margin-right:6px}\n"
	      "@media (max-width:600px){body{margin:.5em}}\n"
	      "</style></head><body>\n<h1>", out);
	esc(out, title);
	fputs("</h1>\n", out);
}

/*
 * What the run's what-if runs predict (ra-whatif --store): the reader's
 * throughput by read_ahead_kb, one line per kernel series, and the
 * hypothetical policies as marks at their window.
 */
static void chart_whatif(FILE *out, const struct ra_report *r)
{
	const struct ra_table *t = ra_report_table(r, "whatif");
	struct frame f = { .x0 = 16384, .x1 = 16384, .xlog = true };
	const char *cur = NULL;
	int series = -1, marks = 0;
	bool open = false;

	if (!t)
		return;
	for (int i = 0; i < t->nrows; i++) {
		double kb = strcmp(text(t, i, "policy"), "kernel") == 0 ? num(t, i, "read_ahead_kb")
									: num(t, i, "window_kb");

		if (!(num(t, i, "read_mib_s") > 0) || !(kb > 0))
			continue;
		f.y1 = fmax(f.y1, num(t, i, "read_mib_s"));
		f.x0 = fmin(f.x0, kb * 1024);
		f.x1 = fmax(f.x1, kb * 1024);
	}
	if (f.y1 <= 0)
		return;
	if (f.x1 <= f.x0)
		f.x1 = f.x0 * 2;
	f.y1 = nice(f.y1 * 1.1);
	svg_begin(out, "Predicted reader throughput by read_ahead_kb (what-if runs)", "c-whatif");
	svg_axes(out, &f, "read_ahead_kb (bytes, log scale)", "B", "MiB/s");
	/* the rows come by series, policy, read_ahead_kb: a line per series */
	for (int i = 0; i < t->nrows; i++) {
		double y = num(t, i, "read_mib_s"), kb = num(t, i, "read_ahead_kb");

		if (strcmp(text(t, i, "policy"), "kernel") != 0 || !(y > 0) || !(kb > 0))
			continue;
		if (!cur || strcmp(cur, text(t, i, "series")) != 0) {
			char name[64];

			if (open)
				fputs("\"/>\n", out);
			cur = text(t, i, "series");
			series++;
			snprintf(name, sizeof(name), "%s", cur);
			svg_legend(out, series, name);
			fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
				palette[series % MAX_SERIES]);
			open = true;
		}
		fprintf(out, "%.1f,%.1f ", px(&f, kb * 1024), py(&f, y));
	}
	if (open)
		fputs("\"/>\n", out);
	for (int i = 0; i < t->nrows; i++) {
		double y = num(t, i, "read_mib_s"), kb = num(t, i, "window_kb");
		char name[96];

		if (strcmp(text(t, i, "policy"), "kernel") == 0 || !(y > 0) || !(kb > 0))
			continue;
		snprintf(name, sizeof(name), "%s %.0fK, %s (hyp.)", text(t, i, "policy"), kb,
			 text(t, i, "series"));
		svg_legend_color(out, series + 1 + marks, name, "#555555");
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"#555555\">"
			"<title>", px(&f, kb * 1024) - 4, py(&f, y) - 4);
		esc(out, name);
		fprintf(out, ": %.1f MiB/s</title></rect>\n", y);
		marks++;
	}
	svg_end(out, "The run's accesses replayed through each series' readahead at each"
		     " read_ahead_kb, timed by the run's device (its model, or its throttle):"
		     " what the reader would have read per second. Squares: hypothetical"
		     " policies, at their window.");
}

static int html_begin(FILE *out, int n)
{
	(void)n;
	html_head(out, "ratrace report");
	return 0;
}

static int html_render(FILE *out, const struct ra_report *r, int index)
{
	html_run(out, r);
	fputs("<h3>Charts</h3>\n", out);
	chart_windows(out, r);
	chart_fates(out, r);
	chart_latency(out, r);
	chart_throughput(out, r);
	chart_sizes(out, r);
	chart_model(out, r);
	chart_whatif(out, r);
	for (int i = 1; i < r->ntables; i++) {
		const struct ra_table *t = &r->tables[i];

		if (strcmp(t->key, "advice") == 0)
			html_advice(out, t);
		else if (strncmp(t->key, "chart_", 6) != 0)
			ra_table_html(out, t, NULL);
	}
	fputs("</section>\n", out);
	return ferror(out) ? -1 : 0;
}

static int html_end(FILE *out)
{
	fputs("</body></html>\n", out);
	return fflush(out);
}

const struct ra_renderer ra_render_html = {
	.name = "html",
	.begin = html_begin,
	.render = html_render,
	.end = html_end,
};

/* ---- the experiment page ---- */

static bool numeric_dim(const struct ra_experiment *x, int d)
{
	for (int s = 0; s < x->nsets; s++) {
		char *end;

		if (!(strtod(x->sets[s].values[d], &end) > 0) || *end)
			return false;
	}
	return true;
}

/* The series of set @s: its value of the second dimension, or of the rest. */
static const char *series_name(const struct ra_experiment *x, const struct xset *s, char *buf,
			       size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int d = 1; d < x->ndims && off < len; d++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", d > 1 ? " " : "",
					x->dims[d], s->values[d]);
	return buf[0] ? buf : "all runs";
}

/* The x axis of the set charts: the first dimension, log2 when it is numeric. */
struct xaxis {
	struct frame f;
	bool numeric;
	const char *cats[64];
	int ncats;
};

/* Set @s's value of the first dimension; "all" when the runs vary in nothing. */
static const char *dim0(const struct ra_experiment *x, const struct xset *s)
{
	return x->ndims ? s->values[0] : "all";
}

static double x_of(const struct ra_experiment *x, const struct xaxis *a, const struct xset *s)
{
	if (a->numeric)
		return px(&a->f, strtod(dim0(x, s), NULL));
	for (int i = 0; i < a->ncats; i++)
		if (strcmp(a->cats[i], dim0(x, s)) == 0)
			return px(&a->f, i);
	return px(&a->f, 0);
}

static void x_axis(const struct ra_experiment *x, struct xaxis *a)
{
	memset(a, 0, sizeof(*a));
	a->numeric = x->ndims > 0 && numeric_dim(x, 0);
	if (a->numeric) {
		a->f.xlog = true;
		a->f.x0 = a->f.x1 = strtod(x->sets[0].values[0], NULL);
		for (int s = 0; s < x->nsets; s++) {
			double v = strtod(x->sets[s].values[0], NULL);

			a->f.x0 = fmin(a->f.x0, v);
			a->f.x1 = fmax(a->f.x1, v);
		}
		if (a->f.x0 == a->f.x1) {
			a->f.x0 /= 2;
			a->f.x1 *= 2;
		}
		return;
	}
	for (int s = 0; s < x->nsets && a->ncats < 64; s++) {
		const char *v = dim0(x, &x->sets[s]);
		int i;

		for (i = 0; i < a->ncats && strcmp(a->cats[i], v) != 0; i++)
			;
		if (i == a->ncats)
			a->cats[a->ncats++] = v;
	}
	a->f.x0 = -0.5;
	a->f.x1 = a->ncats - 0.5;
}

enum { Y_TPUT, Y_HIT, Y_THRASH };

/*
 * A figure of the sets against the first dimension, a line per series (the
 * other dimensions' values); throughput with the min-max range of its runs.
 */
static void chart_sets(FILE *out, const struct ra_experiment *x, int which, const char *id,
		       const char *title, const char *ylabel, const char *caption)
{
	const char *names[MAX_SERIES];
	char buf[512];
	struct xaxis a;
	int nseries = 0;

	x_axis(x, &a);
	for (int s = 0; s < x->nsets; s++) {
		const struct xset *e = &x->sets[s];
		double v = which == Y_TPUT ? fmax(e->tput_max, e->tput_hmean) / 1e6 :
			   which == Y_HIT ? e->hit : e->thrashed;

		if (isfinite(v))
			a.f.y1 = fmax(a.f.y1, v);
	}
	a.f.y1 = which == Y_HIT ? 1 : nice(a.f.y1 > 0 ? a.f.y1 * 1.05 : 1);
	svg_begin(out, title, id);
	svg_axes(out, &a.f, x->ndims ? x->dims[0] : "run set", NULL, ylabel);
	/* a tick at each value of the dimension */
	for (int s = 0; s < x->nsets; s++) {
		bool first = true;

		for (int t = 0; t < s && first; t++)
			first = strcmp(dim0(x, &x->sets[t]), dim0(x, &x->sets[s])) != 0;
		if (!first)
			continue;
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"xt\">", x_of(x, &a, &x->sets[s]),
			CH - MB + 16);
		esc(out, dim0(x, &x->sets[s]));
		fputs("</text>", out);
	}
	for (int s = 0; s < x->nsets; s++) {
		const char *n = series_name(x, &x->sets[s], buf, sizeof(buf));
		int k;

		for (k = 0; k < nseries && strcmp(names[k], n) != 0; k++)
			;
		if (k == nseries && nseries < MAX_SERIES) {
			names[nseries] = strdup(n);
			if (!names[nseries])
				break;
			svg_legend(out, nseries, names[nseries]);
			nseries++;
		}
	}
	for (int k = 0; k < nseries; k++) {
		bool open = false;

		for (int s = 0; s < x->nsets; s++) {
			const struct xset *e = &x->sets[s];
			double v = which == Y_TPUT ? e->tput_hmean / 1e6 :
				   which == Y_HIT ? e->hit : e->thrashed;

			if (strcmp(series_name(x, e, buf, sizeof(buf)), names[k]) != 0 || !isfinite(v))
				continue;
			if (!open)
				fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\""
					" points=\"", palette[k]);
			open = true;
			fprintf(out, "%.1f,%.1f ", x_of(x, &a, e), py(&a.f, v));
		}
		if (open)
			fputs("\"/>\n", out);
		for (int s = 0; s < x->nsets; s++) {
			const struct xset *e = &x->sets[s];
			double v = which == Y_TPUT ? e->tput_hmean / 1e6 :
				   which == Y_HIT ? e->hit : e->thrashed, cx = x_of(x, &a, e);

			if (strcmp(series_name(x, e, buf, sizeof(buf)), names[k]) != 0 || !isfinite(v))
				continue;
			if (which == Y_TPUT && isfinite(e->tput_min))
				fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
					" stroke=\"%s\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
					" y2=\"%.1f\" stroke=\"%s\"/><line x1=\"%.1f\" y1=\"%.1f\""
					" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", cx,
					py(&a.f, e->tput_min / 1e6), cx, py(&a.f, e->tput_max / 1e6),
					palette[k], cx - 4, py(&a.f, e->tput_min / 1e6), cx + 4,
					py(&a.f, e->tput_min / 1e6), palette[k], cx - 4,
					py(&a.f, e->tput_max / 1e6), cx + 4, py(&a.f, e->tput_max / 1e6),
					palette[k]);
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", cx,
				py(&a.f, v), palette[k]);
			esc(out, e->label);
			fprintf(out, ": %.4g (n=%d)</title></circle>\n", v, e->nruns);
		}
	}
	for (int k = 0; k < nseries; k++)
		free((char *)names[k]);
	svg_end(out, caption);
}

/* Overlaid per set: D2C latency shares, or the window ramp of one stream. */
static void chart_overlay(FILE *out, const struct ra_experiment *x, bool latency)
{
	struct frame f = { .x0 = latency ? 1e9 : 0 };
	int shown = x->nsets < MAX_SERIES ? x->nsets : MAX_SERIES, lo = X_BUCKETS, hi = 0;

	for (int s = 0; s < shown; s++) {
		const struct xset *e = &x->sets[s];
		double total = 0;

		if (latency) {
			for (int b = 0; b < X_BUCKETS; b++)
				total += e->lat[b];
			for (int b = 0; b < X_BUCKETS && total > 0; b++)
				if (e->lat[b] > 0) {
					lo = b < lo ? b : lo;
					hi = b > hi ? b : hi;
					f.y1 = fmax(f.y1, e->lat[b] / total * 100);
				}
		} else {
			f.x1 = fmax(f.x1, e->nramp);
			for (int i = 0; i < e->nramp; i++)
				f.y1 = fmax(f.y1, e->ramp[i]);
		}
	}
	if (latency) {
		if (lo > hi)
			return;
		f.xlog = true;
		f.x0 = exp2(lo);
		f.x1 = exp2(hi + 1);
	} else if (f.x1 <= 0) {
		return;
	}
	f.y1 = nice(f.y1 > 0 ? f.y1 * 1.05 : 1);
	svg_begin(out, latency ? "Device latency (D2C) of each run set" :
				 "Window size ramp of one stream per run set",
		  latency ? "x-latency" : "x-ramps");
	svg_axes(out, &f, latency ? "issued to completed (log scale)" : "window of the stream",
		 latency ? "ns" : "", latency ? "% of requests" : "window size (pages)");
	for (int s = 0; s < shown; s++) {
		const struct xset *e = &x->sets[s];
		double total = 0;

		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			palette[s]);
		if (latency) {
			for (int b = 0; b < X_BUCKETS; b++)
				total += e->lat[b];
			for (int b = lo; b <= hi && total > 0; b++)
				fprintf(out, "%.1f,%.1f ", px(&f, exp2(b) * 1.41421356),
					py(&f, e->lat[b] / total * 100));
		} else {
			for (int i = 0; i < e->nramp; i++)
				fprintf(out, "%.1f,%.1f ", px(&f, i + 1), py(&f, e->ramp[i]));
		}
		fputs("\"/>\n", out);
	}
	/* the legend under the chart: set labels of any length wrap there */
	fputs("</svg><ul class=\"lg\">", out);
	for (int s = 0; s < shown; s++) {
		fprintf(out, "<li><span style=\"background:%s\"></span>", palette[s]);
		esc(out, x->sets[s].label);
		fputs("</li>", out);
	}
	fputs("</ul><figcaption>", out);
	if (latency)
		fputs(x->nsets > shown ? "Share of the completed requests per log2 bucket, summed"
			" over each set's runs (the first 8 sets)." : "Share of the completed requests"
			" per log2 bucket, summed over each set's runs.", out);
	else
		fprintf(out, "The first %d windows of the busiest stream of each set's first run, in"
			" order: a sequential reader ramps up to ra_pages and stays there.",
			X_BUCKETS);
	fputs("</figcaption></figure>\n", out);
}

void ra_experiment_html_charts(FILE *out, const struct ra_experiment *x)
{
	fputs("<h2>Charts</h2>\n", out);
	chart_sets(out, x, Y_TPUT, "x-throughput", "Throughput by run set", "MB/s",
		   "Harmonic mean of each set's runs; the bars span their min and max.");
	chart_sets(out, x, Y_HIT, "x-hit", "Hit ratio by run set", "hit ratio",
		   "Share of the read-ahead pages that were read (mean of the set's runs).");
	chart_sets(out, x, Y_THRASH, "x-thrash", "Thrashed pages by run set", "pages",
		   "Read-ahead pages evicted unread, then read again (mean of the set's runs).");
	chart_overlay(out, x, true);
	chart_overlay(out, x, false);
}

void ra_html_head(FILE *out, const char *title)
{
	html_head(out, title);
}

void ra_html_text(FILE *out, const char *s)
{
	esc(out, s);
}

void ra_html_model(FILE *out, const struct ra_report *model)
{
	const struct ra_table *adv = ra_report_table(model, "advice");

	fprintf(out, "<h2>Device model and advice (run %lld, its pool)</h2>\n",
		(long long)model->run_id);
	chart_model(out, model);
	for (const char *const *k = (const char *const[]){ "model", "predictions", NULL }; *k; k++) {
		const struct ra_table *t = ra_report_table(model, *k);

		if (t)
			ra_table_html(out, t, NULL);
	}
	if (adv)
		html_advice(out, adv);
}
