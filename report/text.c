// SPDX-License-Identifier: LGPL-2.1
/*
 * The text report: plain aligned tables within 100 columns, to paste into a
 * mail.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define WIDTH 100
#define CELL 256

/* Shorter headers where the view's name is long; the JSON keeps the names. */
static const char *label(const char *col)
{
	static const char *const map[][2] = {
		{ "readahead", "ra" }, { "evicted_unused", "evicted" },
		{ "readahead_pages", "ra_pages" }, { "async_size", "async" },
		{ "cache_hit", "cache" }, { "eof_hit", "eof" }, { "sync_io", "sync" },
		{ "mmap_io", "mmap" }, { "io_size", "io_sz" }, { "ra_pages", "max" },
		{ "thrashed", "thrash" }, { "reads_completed", "reads" },
		{ "sectors_read", "sectors" }, { "ra_requests", "ra_reqs" },
		{ "ra_avg_bytes", "ra_avg_B" }, { "stat_reads_delta", "st_reads" },
		{ "stat_sectors_delta", "st_sect" }, { "stat_match", "match" },
		{ "q2c_avg_ns", "Q2C_avg" }, { "q2c_p99_ns", "Q2C_p99" },
		{ "d2c_avg_ns", "D2C_avg" }, { "d2c_p99_ns", "D2C_p99" },
		{ "read_ahead_kb", "ra_kb" }, { "read_ahead_kb_after", "ra_kb_after" },
		{ "rotational", "rot" }, { "nr_requests", "nr_req" },
		{ "max_sectors_kb", "max_kb" }, { "requests_per_unplug", "rq/unplug" },
		{ "unplugs_explicit", "explicit" }, { "unplugs_timer", "timer" },
		{ "avg_sync_wait_ns", "sync_wait" }, { "avg_io_ns", "io_time" },
		{ "shared_bios", "shared" }, { "hit_ratio", "hit" },
		{ "bandwidth_mib_s", "bw_mib_s" }, { "rms_rel_err", "rms_err" },
		{ "max_rel_err", "max_err" }, { "throughput_mib_s", "thru_mib_s" },
		{ "predicted_mib_s", "predicted" }, { "measured_mib_s", "measured" },
		{ "utilization", "util" }, { "transfer_ms", "xfer_ms" }, { "samples", "n" },
		{ "chosen", "use" }, { "unrecorded_events", "unrecorded" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i][0], col) == 0)
			return map[i][1];
	return col;
}

static void cell_text(const struct ra_table *t, int row, int col, char *buf)
{
	ra_fmt_value(buf, CELL, t->cols[col], ra_table_cell(t, row, col));
}

/* Columns the text leaves out: they repeat another column of the same row, or
 * matter less than the width they take (the JSON and HTML have them). */
static bool hidden(const struct ra_table *t, int col)
{
	static const char *const cols[][2] = {
		{ "readahead_stats", "readahead_pages" }, { "files", "dev" }, { "files", "ino" },
		{ "streams", "stream_id" }, { "model", "status" }, { "model", "sizes" },
		{ "model", "max_rel_err" },
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (strcmp(cols[i][0], t->key) == 0 && strcmp(cols[i][1], t->cols[col]) == 0)
			return true;
	return false;
}

/* Shorten @s to @w columns: paths keep their end, other text its start. */
static void fit(char *s, int w, bool keep_end)
{
	int n = (int)strlen(s);

	if (n <= w || w < 4)
		return;
	if (keep_end) {
		memmove(s + 3, s + n - (w - 3), (size_t)(w - 3) + 1);
		memcpy(s, "...", 3);
	} else {
		strcpy(s + w - 3, "...");
	}
}

static int text_widths(const struct ra_table *t, int *w, int *sep)
{
	char buf[CELL];
	int total = 0, widest = -1, shown = 0;

	for (int c = 0; c < t->ncols; c++) {
		w[c] = 0;
		if (hidden(t, c))
			continue;
		shown++;
		w[c] = (int)strlen(label(t->cols[c]));
		for (int r = 0; r < t->nrows; r++) {
			cell_text(t, r, c, buf);
			if ((int)strlen(buf) > w[c])
				w[c] = (int)strlen(buf);
		}
		total += w[c];
		if (ra_table_cell(t, 0, c)->type == SQLITE_TEXT && (widest < 0 || w[c] > w[widest]))
			widest = c;
	}
	/* too wide: narrower gaps first, then the widest text column gives way */
	*sep = total + 2 * (shown - 1) > WIDTH ? 1 : 2;
	total += *sep * (shown - 1);
	if (total > WIDTH && widest >= 0 && w[widest] - (total - WIDTH) >= 8)
		w[widest] -= total - WIDTH;
	return widest;
}

static void print_table(FILE *out, const struct ra_table *t)
{
	int *w = calloc((size_t)t->ncols, sizeof(*w)), squeezed, sep;
	bool first;
	char buf[CELL];

	if (!w)
		return;
	fprintf(out, "\n%s\n", t->title);
	if (t->note)
		fprintf(out, "  (%s)\n", t->note);
	if (!t->nrows) {
		fprintf(out, "  none\n");
		free(w);
		return;
	}
	squeezed = text_widths(t, w, &sep);
	first = true;
	for (int c = 0; c < t->ncols; c++) {
		bool text = ra_table_cell(t, 0, c)->type == SQLITE_TEXT;

		if (hidden(t, c))
			continue;
		fprintf(out, "%*s%*s", first ? 0 : sep, "", text ? -w[c] : w[c], label(t->cols[c]));
		first = false;
	}
	fputc('\n', out);
	for (int r = 0; r < t->nrows; r++) {
		first = true;
		for (int c = 0; c < t->ncols; c++) {
			bool text = ra_table_cell(t, r, c)->type == SQLITE_TEXT;

			if (hidden(t, c))
				continue;
			cell_text(t, r, c, buf);
			if (c == squeezed)
				fit(buf, w[c], strcmp(t->cols[c], "file") == 0);
			fprintf(out, "%*s%*s", first ? 0 : sep, "", text ? -w[c] : w[c], buf);
			first = false;
		}
		fputc('\n', out);
	}
	free(w);
}

/* Words of @s in lines of at most WIDTH columns, indented by @indent. */
static void wrap(FILE *out, const char *s, int indent)
{
	int col = indent;

	fprintf(out, "%*s", indent, "");
	while (*s) {
		int n = (int)strcspn(s, " ");

		if (col > indent && col + 1 + n > WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", n, s);
		col += n;
		s += n;
		while (*s == ' ')
			s++;
	}
	fputc('\n', out);
}

/* The advice: a line per device, then its reasoning as a paragraph. */
static void print_advice(FILE *out, const struct ra_table *t)
{
	char rec[CELL], cur[CELL];

	fprintf(out, "\n%s\n", t->title);
	if (!t->nrows)
		fprintf(out, "  none\n");
	for (int r = 0; r < t->nrows; r++) {
		cell_text(t, r, ra_table_col(t, "recommended_kb"), rec);
		cell_text(t, r, ra_table_col(t, "current_kb"), cur);
		fprintf(out, "  %s: read_ahead_kb %s (recorded with %s; aiming at %.0f%% of the"
			" bandwidth)\n", ra_table_cell(t, r, 0)->s, rec, cur,
			ra_table_cell(t, r, ra_table_col(t, "fraction"))->d * 100);
		wrap(out, ra_table_cell(t, r, ra_table_col(t, "reasoning"))->s, 4);
	}
}

static void print_run(FILE *out, const struct ra_table *t)
{
	char buf[CELL];

	fprintf(out, "ratrace report: run %lld\n", (long long)ra_table_cell(t, 0, 0)->i);
	for (int c = 1; c < t->ncols; c++) {
		if (ra_table_cell(t, 0, c)->type == SQLITE_NULL)
			continue;
		cell_text(t, 0, c, buf);
		fit(buf, WIDTH - 16, false);
		fprintf(out, "  %-13s %s\n", t->cols[c], buf);
	}
}

static int text_begin(FILE *out, int n)
{
	return 0;
}

static int text_render(FILE *out, const struct ra_report *r, int index)
{
	if (index)
		fprintf(out, "\n%s\n\n", "========================================");
	print_run(out, &r->tables[0]);
	if (r->nwarnings) {
		fprintf(out, "\nWarnings\n");
		for (int i = 0; i < r->nwarnings; i++)
			fprintf(out, "  ! %s\n", r->warnings[i]);
	}
	for (int i = 1; i < r->ntables; i++)
		if (strcmp(r->tables[i].key, "advice") == 0)
			print_advice(out, &r->tables[i]);
		else if (strncmp(r->tables[i].key, "chart_", 6) != 0)
			print_table(out, &r->tables[i]);
	return ferror(out) ? -1 : 0;
}

static int text_end(FILE *out)
{
	return fflush(out);
}

const struct ra_renderer ra_render_text = {
	.name = "text",
	.begin = text_begin,
	.render = text_render,
	.end = text_end,
};
