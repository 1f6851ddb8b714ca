// SPDX-License-Identifier: LGPL-2.1
/*
 * Tables built in memory, what every renderer asks of a cell, and the two
 * simplest forms: Markdown and CSV. The text, JSON and HTML forms of a table
 * are in text.c, json.c and html.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct ra_table *ra_table_new(const char *key, const char *title, int ncols)
{
	struct ra_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->key = key;
	t->title = title;
	t->ncols = ncols;
	t->cols = calloc((size_t)ncols, sizeof(*t->cols));
	t->heads = calloc((size_t)ncols, sizeof(*t->heads));
	t->flags = calloc((size_t)ncols, sizeof(*t->flags));
	if (!t->cols || !t->heads || !t->flags) {
		ra_table_free(t);
		return NULL;
	}
	return t;
}

int ra_table_set_col(struct ra_table *t, int col, const char *name, const char *head,
		     unsigned flags)
{
	free(t->cols[col]);
	free(t->heads[col]);
	t->cols[col] = strdup(name);
	t->heads[col] = head ? strdup(head) : NULL;
	t->flags[col] = flags;
	return t->cols[col] && (!head || t->heads[col]) ? 0 : -1;
}

/* A string made from @fmt into *@to (what it held freed): 0, or -1 out of memory */
static int vformat(char **to, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static int vformat(char **to, const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return -1;
	free(*to);
	*to = s;
	return 0;
}

int ra_table_set_title(struct ra_table *t, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vformat(&t->own_title, fmt, ap);
	va_end(ap);
	if (ret == 0)
		t->title = t->own_title;
	return ret;
}

int ra_table_add_row(struct ra_table *t)
{
	size_t n = (size_t)t->ncols;
	struct ra_value *cells = realloc(t->cells, (size_t)(t->nrows + 1) * n * sizeof(*cells));

	if (!cells)
		return -1;
	t->cells = cells;
	memset(&cells[(size_t)t->nrows * n], 0, n * sizeof(*cells));
	for (size_t c = 0; c < n; c++)
		cells[(size_t)t->nrows * n + c].type = RA_VALUE_NULL;
	return t->nrows++;
}

static struct ra_value *cell_at(struct ra_table *t, int row, int col)
{
	struct ra_value *v = &t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];

	free(v->s);
	v->s = NULL;
	return v;
}

int ra_table_put_int(struct ra_table *t, int row, int col, int64_t i)
{
	struct ra_value *v = cell_at(t, row, col);

	v->type = RA_VALUE_INT;
	v->i = i;
	return 0;
}

int ra_table_put_real(struct ra_table *t, int row, int col, double d)
{
	struct ra_value *v = cell_at(t, row, col);

	v->type = isfinite(d) ? RA_VALUE_REAL : RA_VALUE_NULL;
	v->d = d;
	return 0;
}

int ra_table_put_text(struct ra_table *t, int row, int col, const char *s)
{
	struct ra_value *v = cell_at(t, row, col);

	v->type = RA_VALUE_TEXT;
	v->s = strdup(s ? s : "");
	return v->s ? 0 : -1;
}

int ra_table_put_bool(struct ra_table *t, int row, int col, bool b)
{
	struct ra_value *v = cell_at(t, row, col);

	v->type = RA_VALUE_BOOL;
	v->i = b;
	return 0;
}

int ra_table_show(struct ra_table *t, int row, int col, const char *fmt, ...)
{
	struct ra_value *v = &t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vformat(&v->shown, fmt, ap);
	va_end(ap);
	return ret;
}

void ra_table_mark(struct ra_table *t, int row, int col, enum ra_mark mark)
{
	t->cells[(size_t)row * (size_t)t->ncols + (size_t)col].mark = mark;
}

void ra_table_clear(struct ra_table *t)
{
	for (int k = 0; t->cells && k < t->nrows * t->ncols; k++) {
		free(t->cells[k].s);
		free(t->cells[k].shown);
	}
	for (int c = 0; c < t->ncols; c++) {
		free(t->cols ? t->cols[c] : NULL);
		free(t->heads ? t->heads[c] : NULL);
	}
	free(t->cols);
	free(t->heads);
	free(t->flags);
	free(t->cells);
	free(t->unavailable);
	free(t->own_title);
}

void ra_table_free(struct ra_table *t)
{
	if (!t)
		return;
	ra_table_clear(t);
	free(t);
}

double ra_table_real(const struct ra_table *t, int row, int col)
{
	const struct ra_value *v = ra_table_cell(t, row, col);

	return v->type == RA_VALUE_REAL ? v->d :
	       v->type == RA_VALUE_INT || v->type == RA_VALUE_BOOL ? (double)v->i : NAN;
}

char *ra_table_shown(const struct ra_table *t, int row, int col)
{
	const struct ra_value *v = ra_table_cell(t, row, col);
	char buf[64];

	if (v->shown)
		return strdup(v->shown);
	if (v->type == RA_VALUE_TEXT)
		return strdup(v->s ? v->s : "");
	ra_fmt_value(buf, sizeof(buf), t->cols[col], v);
	return strdup(buf);
}

const char *ra_table_head(const struct ra_table *t, int col)
{
	return t->heads && t->heads[col] ? t->heads[col] : t->cols[col];
}

bool ra_table_hidden(const struct ra_table *t, int col)
{
	return t->flags && (t->flags[col] & RA_COL_HIDDEN);
}

int ra_table_without(const struct ra_table *t, int col, struct ra_table *view)
{
	*view = *t;
	view->flags = calloc((size_t)t->ncols, sizeof(*view->flags));
	if (!view->flags || col < 0) {
		free(view->flags);
		view->flags = NULL;
		return -1;
	}
	if (t->flags)
		memcpy(view->flags, t->flags, (size_t)t->ncols * sizeof(*view->flags));
	view->flags[col] |= RA_COL_HIDDEN;
	return 0;
}

/* ---- Markdown ---- */

/* A column of numbers: right aligned (no cell of it is text) */
static bool numeric(const struct ra_table *t, int col)
{
	for (int r = 0; r < t->nrows; r++)
		if (ra_table_cell(t, r, col)->type == RA_VALUE_TEXT)
			return false;
	return t->nrows > 0;
}

void ra_table_markdown(FILE *out, const struct ra_table *t)
{
	if (t->title) {
		fputs("\n**", out);
		ra_md_cell(out, t->title);
		fputs("**\n\n", out);
	}
	fputc('|', out);
	for (int c = 0; c < t->ncols; c++) {
		if (ra_table_hidden(t, c))
			continue;
		fputc(' ', out);
		ra_md_cell(out, ra_table_head(t, c));
		fputs(" |", out);
	}
	fputs("\n|", out);
	for (int c = 0; c < t->ncols; c++)
		if (!ra_table_hidden(t, c))
			fputs(numeric(t, c) ? "---:|" : "---|", out);
	fputc('\n', out);
	for (int r = 0; r < t->nrows; r++) {
		fputc('|', out);
		for (int c = 0; c < t->ncols; c++) {
			char *s;

			if (ra_table_hidden(t, c))
				continue;
			s = ra_table_shown(t, r, c);
			fputc(' ', out);
			ra_md_cell(out, s ? s : "");
			fputs(" |", out);
			free(s);
		}
		fputc('\n', out);
	}
}

/* ---- CSV: every column, the values themselves ---- */

void ra_table_csv(FILE *out, const struct ra_table *t)
{
	for (int c = 0; c < t->ncols; c++) {
		fputs(c ? "," : "", out);
		ra_csv_field(out, t->cols[c]);
	}
	fputc('\n', out);
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const struct ra_value *v = ra_table_cell(t, r, c);

			fputs(c ? "," : "", out);
			if (v->type == RA_VALUE_TEXT)
				ra_csv_field(out, v->s);
			else if (v->type == RA_VALUE_INT || v->type == RA_VALUE_BOOL)
				fprintf(out, "%lld", (long long)v->i);
			else if (v->type == RA_VALUE_REAL)
				fprintf(out, "%.9g", v->d);
		}
		fputc('\n', out);
	}
}

/* ---- a run's report in Markdown: its header, warnings and every table ---- */

static void md_text(FILE *out, const char *s)
{
	ra_md_cell(out, s);
}

/* The advice: its table without the reasoning, then the reasoning as a paragraph per device */
void ra_advice_markdown(FILE *out, const struct ra_table *t)
{
	int why = ra_table_col(t, "reasoning");
	struct ra_table view;

	if (ra_table_without(t, why, &view) < 0) {
		ra_table_markdown(out, t);
		return;
	}
	ra_table_markdown(out, &view);
	free(view.flags);
	for (int row = 0; row < t->nrows; row++) {
		char *dev = ra_table_shown(t, row, 0);

		fputs("\n", out);
		md_text(out, dev ? dev : "");
		fputs(": ", out);
		md_text(out, ra_table_cell(t, row, why)->s);
		fputc('\n', out);
		free(dev);
	}
}

/* A table of a report: its rows, or why it has none */
static void md_section(FILE *out, const struct ra_table *t)
{
	if (!t->nrows) {
		fputs("\n**", out);
		md_text(out, t->title);
		fputs("**: ", out);
		md_text(out, t->unavailable ? t->unavailable : "none");
		fputc('\n', out);
	} else if (strcmp(t->key, "advice") == 0) {
		ra_advice_markdown(out, t);
	} else {
		ra_table_markdown(out, t);
	}
}

void ra_report_markdown_tables(FILE *out, const struct ra_report *r, const char *const *keys)
{
	for (int i = 1; i < r->ntables; i++) {
		const struct ra_table *t = &r->tables[i];
		bool chosen = !keys && strncmp(t->key, "chart_", 6) != 0;

		for (const char *const *k = keys; k && *k && !chosen; k++)
			chosen = strcmp(t->key, *k) == 0;
		if (chosen)
			md_section(out, t);
	}
}

static int md_begin(FILE *out, int n)
{
	return 0;
}

static int md_render(FILE *out, const struct ra_report *r, int index)
{
	const struct ra_table *run = &r->tables[0];

	fprintf(out, "%s### ratrace report: run %lld\n\n| | |\n|---|---|\n", index ? "\n" : "",
		(long long)r->run_id);
	for (int c = 1; c < run->ncols; c++) {
		char *s;

		if (ra_table_cell(run, 0, c)->type == RA_VALUE_NULL || !(s = ra_table_shown(run, 0, c)))
			continue;
		fputs("| ", out);
		md_text(out, run->cols[c]);
		fputs(" | ", out);
		md_text(out, s);
		fputs(" |\n", out);
		free(s);
	}
	for (int i = 0; i < r->nwarnings; i++) {
		fputs(i ? "- " : "\n**Warnings**\n\n- ", out);
		md_text(out, r->warnings[i]);
		fputc('\n', out);
	}
	ra_report_markdown_tables(out, r, NULL);
	return ferror(out) ? -1 : 0;
}

static int md_end(FILE *out)
{
	return fflush(out);
}

const struct ra_renderer ra_render_markdown = {
	.name = "markdown",
	.begin = md_begin,
	.render = md_render,
	.end = md_end,
};

/* ---- what every renderer asks of a cell ---- */

int ra_table_col(const struct ra_table *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c], name) == 0)
			return c;
	return -1;
}

const struct ra_value *ra_table_cell(const struct ra_table *t, int row, int col)
{
	return &t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
}

void ra_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", ns / 1e9);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Text of a cell for people: times with units, ratios with 4 digits. */
void ra_fmt_value(char *buf, size_t len, const char *col, const struct ra_value *v)
{
	double x = v->type == RA_VALUE_REAL ? v->d : (double)v->i;

	switch (v->type) {
	case RA_VALUE_NULL:
		snprintf(buf, len, "-");
		return;
	case RA_VALUE_TEXT:
		snprintf(buf, len, "%s", v->s);
		return;
	case RA_VALUE_BOOL:
		snprintf(buf, len, "%s", v->i ? "yes" : "no");
		return;
	case RA_VALUE_INT:
	case RA_VALUE_REAL:
		break;
	}
	if (ends_with(col, "_ns") && strcmp(col, "q_ts_ns") != 0)
		ra_fmt_ns(buf, len, x);
	else if (strncmp(col, "hit_ratio", 9) == 0 || ends_with(col, "_rel_err") ||
		 strcmp(col, "utilization") == 0)
		snprintf(buf, len, "%.4f", x);
	else if (ends_with(col, "_ms") && v->type == RA_VALUE_REAL)
		snprintf(buf, len, "%.3f", x);
	else if ((ends_with(col, "_mib_s") || strcmp(col, "fraction") == 0) &&
		 v->type == RA_VALUE_REAL)
		snprintf(buf, len, "%.2f", x);
	else if (ends_with(col, "_bytes"))
		snprintf(buf, len, "%.0f", x);
	else if (v->type == RA_VALUE_REAL)
		snprintf(buf, len, "%.1f", x);
	else
		snprintf(buf, len, "%lld", (long long)v->i);
}
