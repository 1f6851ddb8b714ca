// SPDX-License-Identifier: GPL-2.0
/*
 * The output layer (report/table.c and the renderers): one table built in
 * memory, with a hostile text cell, a value shown otherwise than it is held,
 * a NULL, a truth value and a mark, printed in each form, the right answers
 * written out by hand.
 */
#include <math.h>

#include "report.h"
#include "test.h"

/* A table of two rows: name (text), bw (real, shown in MB/s), n, ok, runs */
static struct ra_table *sample(void)
{
	struct ra_table *t = ra_table_new("sample", "Sample \x1b table", 5);
	int r;

	if (!t)
		return NULL;
	ra_table_set_col(t, 0, "name", "set", 0);
	ra_table_set_col(t, 1, "bw_bps", "MB/s", 0);
	ra_table_set_col(t, 2, "n", NULL, 0);
	ra_table_set_col(t, 3, "ok", NULL, 0);
	ra_table_set_col(t, 4, "runs", NULL, RA_COL_RUNS);
	r = ra_table_add_row(t);
	ra_table_put_text(t, r, 0, "a|b<\"x\">\n");
	ra_table_put_real(t, r, 1, 12500000);
	ra_table_show(t, r, 1, "%.1f", 12.5);
	ra_table_mark(t, r, 1, RA_MARK_REGRESSION);
	ra_table_put_int(t, r, 2, 3);
	ra_table_put_bool(t, r, 3, true);
	ra_table_put_text(t, r, 4, "1 2");
	r = ra_table_add_row(t);
	ra_table_put_text(t, r, 0, "plain");
	ra_table_put_real(t, r, 1, NAN);
	ra_table_put_int(t, r, 2, 0);
	ra_table_put_bool(t, r, 3, false);
	ra_table_put_text(t, r, 4, "x");
	return t;
}

static char *render(void (*fn)(FILE *, const struct ra_table *), const struct ra_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, t);
	fclose(f);
	return buf;
}

static void html(FILE *f, const struct ra_table *t)
{
	ra_table_html(f, t, "p<");
}

static void json(FILE *f, const struct ra_table *t)
{
	ra_table_json(f, t, "");
}

static void test_values(void)
{
	struct ra_table *t = sample();
	char *s;

	if (!t)
		return;
	CHECK(isnan(ra_table_real(t, 1, 1)));
	CHECK(ra_table_real(t, 0, 1) == 12500000);
	CHECK_INT(ra_table_cell(t, 1, 1)->type, RA_VALUE_NULL);
	CHECK_STR(ra_table_head(t, 1), "MB/s");
	CHECK_STR(ra_table_head(t, 2), "n");
	s = ra_table_shown(t, 0, 1);
	CHECK_STR(s, "12.5");
	free(s);
	s = ra_table_shown(t, 1, 1);
	CHECK_STR(s, "-");
	free(s);
	s = ra_table_shown(t, 0, 3);
	CHECK_STR(s, "yes");
	free(s);
	CHECK(ra_table_set_title(t, "made %d", 7) == 0);
	CHECK_STR(t->title, "made 7");
	ra_table_free(t);
}

static void test_forms(void)
{
	struct ra_table *t = sample();
	char *s;

	if (!t)
		return;
	/* the values, every column */
	s = render(ra_table_csv, t);
	CHECK_STR(s, "name,bw_bps,n,ok,runs\n"
		     "\"a|b<\"\"x\"\">\n\",12500000,3,1,1 2\n"
		     "plain,,0,0,x\n");
	free(s);
	s = render(json, t);
	CHECK_STR(s, "[\n  {\n    \"name\": \"a|b<\\\"x\\\">\\n\",\n    \"bw_bps\": 12500000,\n"
		     "    \"n\": 3,\n    \"ok\": true,\n    \"runs\": \"1 2\"\n  },\n"
		     "  {\n    \"name\": \"plain\",\n    \"bw_bps\": null,\n    \"n\": 0,\n"
		     "    \"ok\": false,\n    \"runs\": \"x\"\n  }\n]");
	free(s);
	/* what people read; a hidden column is left out */
	t->flags[4] |= RA_COL_HIDDEN;
	s = render(ra_table_markdown, t);
	CHECK_STR(s, "\n**Sample \\\\x1b table**\n\n"
		     "| set | MB/s | n | ok |\n|---|---:|---:|---:|\n"
		     "| a\\|b\\<\"x\"\\>\\\\n | 12.5 | 3 | yes |\n"
		     "| plain | - | 0 | no |\n");
	free(s);
	s = render(ra_table_text, t);
	CHECK_STR(s, "\nSample \\x1b table\n"
		     "set         MB/s  n   ok\n"
		     "a|b<\"x\">\\n  12.5  3  yes\n"
		     "plain          -  0   no\n");
	free(s);
	t->flags[4] &= ~RA_COL_HIDDEN;
	s = render(html, t);
	CHECK_STR(s, "<h3 id=\"sample\">Sample \\x1b table</h3>\n"
		     "<div class=\"wide\"><table><thead><tr><th>set</th><th>MB/s</th><th>n</th>"
		     "<th>ok</th><th>runs</th></tr></thead><tbody>\n"
		     "<tr><td class=\"s\">a|b&lt;&quot;x&quot;&gt;\\n</td><td class=\"reg\">12.5</td>"
		     "<td>3</td><td>yes</td><td class=\"s\"><a href=\"p&lt;.run-1.html\">1</a>"
		     " <a href=\"p&lt;.run-2.html\">2</a></td></tr>\n"
		     "<tr><td class=\"s\">plain</td><td>-</td><td>0</td><td>no</td>"
		     "<td class=\"s\">x</td></tr>\n</tbody></table></div>\n");
	free(s);
	ra_table_free(t);
}

/* A text column too wide for the page wraps in its column, never cut. */
static void test_wrap(void)
{
	struct ra_table *t = ra_table_new("w", NULL, 2);
	char name[151], *s, *line;
	int r, lines = 0;

	if (!t)
		return;
	memset(name, 'v', 150);
	name[150] = '\0';
	ra_table_set_col(t, 0, "label", NULL, 0);
	ra_table_set_col(t, 1, "n", NULL, 0);
	r = ra_table_add_row(t);
	ra_table_put_text(t, r, 0, name);
	ra_table_put_int(t, r, 1, 42);
	s = render(ra_table_text, t);
	for (line = s ? strtok(s, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		CHECK(strlen(line) <= 100);
		lines++;
	}
	CHECK_INT(lines, 3);	/* the header and the label in two pieces */
	free(s);
	/* words break at spaces: every piece holds whole words */
	name[0] = '\0';
	for (int i = 0; i < 30; i++)
		strcat(name, i ? " w" : "w"), strcat(name, i % 2 ? "ord" : "ide");
	ra_table_put_text(t, r, 0, name);
	s = render(ra_table_text, t);
	lines = 0;
	for (line = s ? strtok(s, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		char *w, *save = NULL;

		if (lines++ == 0)
			continue;	/* the header */
		for (w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save))
			CHECK(strcmp(w, "wide") == 0 || strcmp(w, "word") == 0 ||
			      strcmp(w, "42") == 0);
	}
	CHECK(lines >= 3);
	free(s);
	ra_table_free(t);
}

/*
 * Numbers cannot wrap: a table of many wide numeric columns (a matrix of
 * many kernels) goes in blocks of columns within the page, each beginning
 * with the column that names the row, every column once.
 */
static void test_blocks(void)
{
	struct ra_table *t = ra_table_new("m", NULL, 13);
	char *s, *line, *save = NULL;
	int r, blocks = 1, seen[13] = { 0 }, firsts = 0;

	if (!t)
		return;
	ra_table_set_col(t, 0, "read_ahead_kb", NULL, 0);
	for (int c = 1; c < 13; c++) {
		char name[32];

		snprintf(name, sizeof(name), "6.12.%02d+deb13-amd64", c);
		ra_table_set_col(t, c, name, name, 0);
	}
	r = ra_table_add_row(t);
	ra_table_put_text(t, r, 0, "device_read_bw_bytes");	/* a name too long to wrap whole */
	for (int c = 1; c < 13; c++) {
		ra_table_put_real(t, r, c, c * 1e6);
		ra_table_show(t, r, c, "%d.0 (3)", c);
	}
	s = render(ra_table_text, t);
	for (line = s ? strtok_r(s, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char *p = line;

		CHECK(strlen(line) <= 100);
		if (strncmp(line, "ra_kb", 5) == 0)
			firsts++;
		else	/* folding is no reason to break the row's name */
			CHECK(strncmp(line, "device_read_bw_bytes  ", 22) == 0);
		while ((p = strstr(p, "6.12."))) {
			seen[atoi(p + 5)]++;
			p += 5;
		}
	}
	blocks = firsts;
	CHECK(blocks >= 3);	/* 12 columns of 20, 4 to a block at most */
	for (int c = 1; c < 13; c++)
		CHECK_INT(seen[c], 1);
	free(s);
	ra_table_free(t);
}

/*
 * A cell never filled is NULL in every form; two columns of one header
 * show two; a built table's column cuts only when flagged so, whatever its
 * name.
 */
static void test_edges(void)
{
	struct ra_table *t = ra_table_new("e", NULL, 3);
	char name[121], *s;
	int r;

	if (!t)
		return;
	memset(name, 'w', 120);
	name[120] = '\0';
	ra_table_set_col(t, 0, "workload", NULL, 0);
	ra_table_set_col(t, 1, "n", "n", 0);
	ra_table_set_col(t, 2, "count", "n", 0);
	r = ra_table_add_row(t);
	ra_table_put_text(t, r, 0, name);
	ra_table_put_int(t, r, 1, 1);
	CHECK_INT(ra_table_cell(t, r, 2)->type, RA_VALUE_NULL);
	s = render(json, t);
	CHECK(s && strstr(s, "\"count\": null"));
	free(s);
	s = render(ra_table_text, t);
	CHECK(s && strstr(s, "  n  n#3\n"));
	CHECK(s && !strstr(s, "..."));		/* wrapped whole */
	CHECK(s && strstr(s, "  1    -\n"));
	free(s);
	t->flags[0] = RA_COL_CUT;
	s = render(ra_table_text, t);
	CHECK(s && strstr(s, "...  1    -\n"));
	free(s);
	ra_table_free(t);
}

int main(void)
{
	static const struct test_case tests[] = {
		{ "values", test_values },
		{ "forms", test_forms },
		{ "wrap", test_wrap },
		{ "blocks", test_blocks },
		{ "edges", test_edges },
		{ NULL, NULL },
	};

	return test_run("table", tests);
}
