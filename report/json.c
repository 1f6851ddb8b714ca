// SPDX-License-Identifier: LGPL-2.1
/*
 * The JSON report: the report's tables under their keys, values as the views
 * hold them (nanoseconds, pages, bytes), documented in docs/report.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define JSON_VERSION 1

void ra_table_json_value(FILE *out, const struct ra_value *v)
{
	switch (v->type) {
	case RA_VALUE_BOOL:
		fputs(v->i ? "true" : "false", out);
		break;
	case RA_VALUE_INT:
		fprintf(out, "%lld", (long long)v->i);
		break;
	case RA_VALUE_REAL:
		if (isfinite(v->d))
			fprintf(out, "%.17g", v->d);
		else
			fputs("null", out);
		break;
	case RA_VALUE_TEXT:
		ra_json_string(out, v->s);
		break;
	default:
		fputs("null", out);
	}
}

void ra_table_json_row(FILE *out, const struct ra_table *t, int r, const char *indent)
{
	fputc('{', out);
	for (int c = 0; c < t->ncols; c++) {
		fprintf(out, "%s\n%s  ", c ? "," : "", indent);
		ra_json_string(out, t->cols[c]);
		fputs(": ", out);
		ra_table_json_value(out, ra_table_cell(t, r, c));
	}
	fprintf(out, "\n%s}", indent);
}

/* The table as an array of its rows' objects, each on lines of its own */
void ra_table_json(FILE *out, const struct ra_table *t, const char *indent)
{
	char *inner = NULL;

	if (asprintf(&inner, "%s  ", indent) < 0)
		inner = NULL;
	fputc('[', out);
	for (int r = 0; r < t->nrows; r++) {
		fprintf(out, "%s\n%s", r ? "," : "", inner ? inner : "");
		ra_table_json_row(out, t, r, inner ? inner : "");
	}
	fprintf(out, "%s]", t->nrows ? "\n" : "");
	if (t->nrows)
		fputs(indent, out);
	free(inner);
}

static int json_begin(FILE *out, int n)
{
	fprintf(out, "{\n  \"ratrace_report_version\": %d,\n  \"runs\": [", JSON_VERSION);
	return 0;
}

static int json_render(FILE *out, const struct ra_report *rep, int index)
{
	fprintf(out, "%s\n    {\n      \"warnings\": [", index ? "," : "");
	for (int i = 0; i < rep->nwarnings; i++) {
		fprintf(out, "%s\n        ", i ? "," : "");
		ra_json_string(out, rep->warnings[i]);
	}
	fprintf(out, "%s]", rep->nwarnings ? "\n      " : "");
	for (int i = 0; i < rep->ntables; i++) {
		const struct ra_table *t = &rep->tables[i];

		fprintf(out, ",\n      ");
		ra_json_string(out, t->key);
		fputs(": ", out);
		if (i == 0) {	/* the run: one object */
			ra_table_json_row(out, t, 0, "      ");
			continue;
		}
		ra_table_json(out, t, "      ");
	}
	/* the tables whose analysis could not run, and why */
	fputs(",\n      \"unavailable\": {", out);
	for (int i = 0, n = 0; i < rep->ntables; i++) {
		const struct ra_table *t = &rep->tables[i];

		if (!t->unavailable)
			continue;
		fprintf(out, "%s\n        ", n++ ? "," : "");
		ra_json_string(out, t->key);
		fputs(": ", out);
		ra_json_string(out, t->unavailable);
	}
	fputs("}", out);
	fputs("\n    }", out);
	return ferror(out) ? -1 : 0;
}

static int json_end(FILE *out)
{
	fputs("\n  ]\n}\n", out);
	return fflush(out);
}

const struct ra_renderer ra_render_json = {
	.name = "json",
	.begin = json_begin,
	.render = json_render,
	.end = json_end,
};
