// SPDX-License-Identifier: LGPL-2.1
/*
 * The text report: plain aligned tables within 100 columns, to paste into a
 * mail. Every string from the database goes through the text escape
 * (escape.c), and widths are the terminal columns of the escaped text.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define WIDTH 100
#define MIN_CUT 8	/* columns a cut text keeps at least */
#define MIN_WRAP 16	/* a wrapped one: names shorter than this never wrap */

/* Shorter headers where the view's name is long; the JSON keeps the names. */
static const char *label(const char *col)
{
	static const char *const map[][2] = {
		{ "readahead", "ra" }, { "evicted_unused", "evict" }, { "async_size", "async" },
		{ "cache_hit", "cache" }, { "eof_hit", "eof" }, { "sync_io", "sync" },
		{ "mmap_io", "mmap" }, { "io_size", "io_sz" },
		{ "thrashed", "thrash" }, { "pending", "pend" }, { "reads_completed", "reads" },
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
		{ "shared_bios", "shared" }, { "hit_ratio", "hit" }, { "hit_ratio_max", "hit_max" },
		{ "bandwidth_mib_s", "bw_mib_s" }, { "rms_rel_err", "rms_err" },
		{ "max_rel_err", "max_err" }, { "throughput_mib_s", "thru_mib_s" },
		{ "predicted_mib_s", "predicted" }, { "measured_mib_s", "measured" },
		{ "utilization", "util" }, { "transfer_ms", "xfer_ms" },
		{ "chosen", "use" }, { "unrecorded_events", "unrecorded" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i][0], col) == 0)
			return map[i][1];
	return col;
}

/* True when no row of @t has a non-zero @col. */
static bool all_zero(const struct ra_table *t, const char *col)
{
	int c = ra_table_col(t, col);

	for (int r = 0; c >= 0 && r < t->nrows; r++) {
		const struct ra_value *v = ra_table_cell(t, r, c);

		if ((v->type == RA_VALUE_INT && v->i) || (v->type == RA_VALUE_REAL && v->d))
			return false;
	}
	return true;
}

/* How many rows of @t have a value in @col. */
static int count_set(const struct ra_table *t, const char *col)
{
	int c = ra_table_col(t, col), n = 0;

	for (int r = 0; c >= 0 && r < t->nrows; r++)
		n += ra_table_cell(t, r, c)->type != RA_VALUE_NULL;
	return n;
}

/*
 * Columns the text leaves out: they repeat another column of the same row, or
 * matter less than the width they take (the JSON and HTML have them). Without
 * a mapped page (read() workloads) the hit ratio's upper bound is the hit
 * ratio, and mapped is 0: both are left out. A device's vendor and firmware
 * stay in the JSON, its bus and model show where a device has them. A block
 * row names its device, and gives its number only when some row has no name
 * (imports have none).
 */
static bool hidden(const struct ra_table *t, int col)
{
	static const char *const cols[][2] = {
		{ "readahead_stats", "readahead_pages" }, { "files", "dev" }, { "files", "ino" },
		{ "streams", "stream_id" }, { "model", "status" }, { "model", "sizes" },
		{ "model", "max_rel_err" }, { "block", "role" }, { "devices", "vendor" },
		{ "devices", "firmware" },
	};
	const char *name = t->cols[col];

	if (ra_table_hidden(t, col))
		return true;
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (strcmp(cols[i][0], t->key) == 0 && strcmp(cols[i][1], name) == 0)
			return true;
	if (strcmp(t->key, "devices") == 0 &&
	    (strcmp(name, "transport") == 0 || strcmp(name, "model") == 0))
		return count_set(t, name) == 0;
	if (strcmp(t->key, "block") == 0 && strcmp(name, "dev") == 0)
		return count_set(t, "name") == t->nrows;
	if (strcmp(t->key, "block") == 0 && strcmp(name, "name") == 0)
		return count_set(t, "name") == 0;
	return (strcmp(name, "mapped") == 0 || strcmp(name, "hit_ratio_max") == 0) &&
	       ra_table_col(t, "hit_ratio_max") >= 0 && all_zero(t, "mapped");
}


/*
 * The headers of the shown columns (NULL: hidden). Two columns must never
 * show one name: where two shortened names meet, both keep their own.
 */
static void headers(const struct ra_table *t, const char **hdr)
{
	for (int c = 0; c < t->ncols; c++)
		hdr[c] = hidden(t, c) ? NULL : t->heads && t->heads[c] ? t->heads[c] :
					       label(t->cols[c]);
	for (int c = 0; c < t->ncols; c++)
		for (int d = c + 1; d < t->ncols; d++)
			if (hdr[c] && hdr[d] && strcmp(hdr[c], hdr[d]) == 0 &&
			    !(t->heads && (t->heads[c] || t->heads[d]))) {
				hdr[c] = t->cols[c];
				hdr[d] = t->cols[d];
			}
}

/*
 * How a text column too wide for the page gives way: the summaries the JSON
 * holds whole are cut ("..."); anything else, names above all, wraps onto
 * the next lines, so that two different names never look the same. A table
 * built in memory says which of its columns are summaries (RA_COL_CUT); in
 * a table of the views, they are the streams' sizes and the models' reasons.
 */
enum give { FIT, CUT, WRAP };

static enum give give_way(const struct ra_table *t, int col)
{
	if (t->flags)
		return t->flags[col] & RA_COL_CUT ? CUT : WRAP;
	return strcmp(t->cols[col], "sizes") == 0 || strcmp(t->cols[col], "reason") == 0 ? CUT :
											     WRAP;
}

/* A table as escaped text: the cells, the width and the give of each column. */
struct grid {
	const struct ra_table *t;
	const char **hdr;	/* escaped */
	char **own;		/* the escaped headers it made */
	char **cell;		/* nrows * ncols, NULL in hidden columns */
	int *w;
	enum give *give;
	const char **pos;	/* of each cell of the row being printed: what is left */
	int sep;
};

static char *cell_text(const struct ra_table *t, int row, int col)
{
	char *s = ra_table_shown(t, row, col), *e = s ? ra_text_escape(s) : NULL;

	free(s);
	return e;
}

/* A text column (left aligned, may give way): any of its cells is text. */
static bool is_text(const struct grid *g, int col)
{
	for (int r = 0; r < g->t->nrows; r++)
		if (ra_table_cell(g->t, r, col)->type == RA_VALUE_TEXT)
			return true;
	return false;
}

static void grid_free(struct grid *g)
{
	for (int i = 0; g->cell && i < g->t->nrows * g->t->ncols; i++)
		free(g->cell[i]);
	free(g->cell);
	for (int c = 0; g->own && c < g->t->ncols; c++)
		free(g->own[c]);
	free(g->own);
	free(g->hdr);
	free(g->w);
	free(g->give);
	free(g->pos);
}

static int grid_fill(struct grid *g, const struct ra_table *t)
{
	size_t n = (size_t)t->ncols;

	memset(g, 0, sizeof(*g));
	g->t = t;
	g->hdr = calloc(n, sizeof(*g->hdr));
	g->own = calloc(n, sizeof(*g->own));
	g->cell = calloc(n * (size_t)t->nrows, sizeof(*g->cell));
	g->w = calloc(n, sizeof(*g->w));
	g->give = calloc(n, sizeof(*g->give));
	g->pos = calloc(n, sizeof(*g->pos));
	if (!g->hdr || !g->own || !g->cell || !g->w || !g->give || !g->pos)
		return -1;
	headers(t, g->hdr);
	for (int c = 0; c < t->ncols; c++)	/* made headers may come from a database */
		if (g->hdr[c] && t->heads && g->hdr[c] == t->heads[c] &&
		    !(g->hdr[c] = g->own[c] = ra_text_escape(t->heads[c])))
			return -1;
	/* two columns still of one header (a dimension named n): the later numbered */
	for (int d = 1; d < t->ncols; d++)
		for (int c = 0; c < d && g->hdr[d]; c++)
			if (g->hdr[c] && strcmp(g->hdr[c], g->hdr[d]) == 0) {
				char *h;

				if (asprintf(&h, "%s#%d", g->hdr[d], d + 1) < 0)
					return -1;
				free(g->own[d]);
				g->hdr[d] = g->own[d] = h;
				break;
			}
	for (int c = 0; c < t->ncols; c++) {
		if (!g->hdr[c])
			continue;
		g->w[c] = ra_text_width(g->hdr[c]);
		for (int r = 0; r < t->nrows; r++) {
			char **s = &g->cell[r * t->ncols + c];

			if (!(*s = cell_text(t, r, c)))
				return -1;
			if (ra_text_width(*s) > g->w[c])
				g->w[c] = ra_text_width(*s);
		}
	}
	return 0;
}

/* The fewest columns column @c keeps when it gives way. */
static int floor_width(const struct grid *g, int c)
{
	int min = give_way(g->t, c) == CUT ? MIN_CUT : MIN_WRAP;

	return ra_text_width(g->hdr[c]) > min ? ra_text_width(g->hdr[c]) : min;
}

/* The column that gives way next: a summary before a name, the widest first. */
static int next_squeeze(const struct grid *g)
{
	int best = -1;

	for (int c = 0; c < g->t->ncols; c++) {
		if (!g->hdr[c] || !is_text(g, c) || g->w[c] <= floor_width(g, c))
			continue;
		if (best < 0 || give_way(g->t, c) < give_way(g->t, best) ||
		    (give_way(g->t, c) == give_way(g->t, best) && g->w[c] > g->w[best]))
			best = c;
	}
	return best;
}

/* Columns that go, in this order, from a table still too wide for the page. */
static int next_drop(const struct grid *g)
{
	static const char *const order[][2] = {
		{ "readahead_stats", "async_size" }, { "readahead_stats", "io_size" },
		{ "readahead_stats", "eof_hit" }, { "readahead_stats", "cache_hit" },
		{ "files", "windows" }, { "devices", "read_ahead_kb_after" },
		{ "devices", "nr_requests" }, { "devices", "rotational" },
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int c = ra_table_col(g->t, order[i][1]);

		if (strcmp(order[i][0], g->t->key) == 0 && c >= 0 && g->hdr[c])
			return c;
	}
	return -1;
}

/*
 * Too wide: narrower gaps when that is enough; else text columns give way
 * (the gaps kept), then the gaps narrow, then the columns that matter least
 * go, until it fits. A table that cannot fit keeps its gaps.
 */
static void squeeze(struct grid *g)
{
	int total = 0, shown = 0, c;

	for (c = 0; c < g->t->ncols; c++)
		if (g->hdr[c]) {
			total += g->w[c];
			shown++;
		}
	g->sep = total + (shown - 1) <= WIDTH && total + 2 * (shown - 1) > WIDTH ? 1 : 2;
	total += g->sep * (shown - 1);
	while (total > WIDTH && (c = next_squeeze(g)) >= 0) {
		int cut = g->w[c] - floor_width(g, c);

		cut = total - WIDTH < cut ? total - WIDTH : cut;
		g->w[c] -= cut;
		total -= cut;
		g->give[c] = give_way(g->t, c);
	}
	if (total > WIDTH && g->sep == 2) {
		g->sep = 1;
		total -= shown - 1;
	}
	while (total > WIDTH && (c = next_drop(g)) >= 0) {
		total -= g->w[c] + g->sep;
		g->hdr[c] = NULL;
	}
	if (total > WIDTH)	/* it cannot fit: the gaps are worth more than a column */
		g->sep = 2;
}


/* The piece of @s that goes on this line of a cell @w columns wide; moves @s on. */
static char *piece(const char **s, int w, enum give give)
{
	size_t n = strlen(*s);
	char *p;

	if (ra_text_width(*s) > w && give == CUT) {
		n = ra_text_prefix(*s, w - 3);
		p = malloc(n + 4);
		if (p)
			memcpy(p, *s, n), memcpy(p + n, "...", 4);
		*s += strlen(*s);
		return p;
	}
	if (ra_text_width(*s) > w) {
		size_t k;

		n = ra_text_prefix(*s, w);
		n = n ? n : strlen(*s);	/* a character wider than the column */
		/*
		 * words ("kernel=6.12 SCEN=seq") break after a space where one
		 * fits, paths after a slash; the piece keeps it, so that the
		 * pieces are the text whole
		 */
		for (k = n; k > 0 && (*s)[k - 1] != ' '; k--)
			;
		if (!k)
			for (k = n; k > n / 2 && (*s)[k - 1] != '/'; k--)
				;
		if (k > n / 2 || (k > 0 && (*s)[k - 1] == ' '))
			n = k;
	}
	p = strndup(*s, n);
	*s += n;
	return p;
}

/* Print @line without the spaces that pad its end. */
static void put_line(FILE *out, char *line, size_t len)
{
	while (len && line[len - 1] == ' ')
		len--;
	fwrite(line, 1, len, out);
	fputc('\n', out);
}

/* One line of a row: the next piece of each cell. */
static void print_line(FILE *out, const struct grid *g)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool first = true;

	if (!f)
		return;
	for (int c = 0; c < g->t->ncols; c++) {
		if (!g->hdr[c])
			continue;
		p = piece(&g->pos[c], g->w[c], g->give[c]);
		fprintf(f, "%*s", first ? 0 : g->sep, "");
		ra_text_pad(f, p ? p : "", g->w[c], !is_text(g, c));
		free(p);
		first = false;
	}
	if (fclose(f) == 0)
		put_line(out, buf, len);
	free(buf);
}

/* A row: a cell that wraps goes on in its column on the lines below. */
static void print_row(FILE *out, const struct grid *g, int row)
{
	bool more;

	for (int c = 0; c < g->t->ncols; c++)
		g->pos[c] = !g->hdr[c] ? "" : row < 0 ? g->hdr[c] : g->cell[row * g->t->ncols + c];
	for (;;) {
		print_line(out, g);
		more = false;
		for (int c = 0; c < g->t->ncols; c++)
			more |= *g->pos[c] != '\0';
		if (!more)
			break;
	}
}

/* An empty table: nothing happened, or the analysis behind it could not run (and why). */
static void print_empty(FILE *out, const struct ra_table *t)
{
	fputs("  ", out);
	ra_text_put(out, t->unavailable ? t->unavailable : "none");
	fputc('\n', out);
}

/* The width of the shown columns of @g, their gaps included */
static int grid_width(const struct grid *g)
{
	int total = 0, shown = 0;

	for (int c = 0; c < g->t->ncols; c++)
		if (g->hdr[c]) {
			total += g->w[c];
			shown++;
		}
	return total + g->sep * (shown > 0 ? shown - 1 : 0);
}

/* What squeeze() changes, kept to be put back */
struct layout {
	const char **hdr;
	int *w;
	enum give *give;
	int sep;
};

static int layout_save(struct layout *l, const struct grid *g)
{
	size_t n = (size_t)g->t->ncols;

	l->hdr = malloc(n * sizeof(*l->hdr));
	l->w = malloc(n * sizeof(*l->w));
	l->give = malloc(n * sizeof(*l->give));
	if (!l->hdr || !l->w || !l->give)
		return -1;
	memcpy(l->hdr, g->hdr, n * sizeof(*l->hdr));
	memcpy(l->w, g->w, n * sizeof(*l->w));
	memcpy(l->give, g->give, n * sizeof(*l->give));
	l->sep = g->sep;
	return 0;
}

static void layout_restore(struct grid *g, const struct layout *l)
{
	size_t n = (size_t)g->t->ncols;

	memcpy(g->hdr, l->hdr, n * sizeof(*l->hdr));
	memcpy(g->w, l->w, n * sizeof(*l->w));
	memcpy(g->give, l->give, n * sizeof(*l->give));
	g->sep = l->sep;
}

static void layout_free(struct layout *l)
{
	free(l->hdr);
	free(l->w);
	free(l->give);
}

/*
 * The rows within the page: text columns give way (squeeze()); a table that
 * cannot fit so (numbers do not wrap: a matrix of many kernels, a comparison
 * of many sides) goes in blocks of columns, each beginning with the table's
 * lead columns (what names the row; a comparison's base) and as wide as fits,
 * then squeezed itself, blocks a blank line apart. Each block holds one
 * column more at least.
 */
static void print_blocks(FILE *out, struct grid *g)
{
	int n = g->t->ncols, lead = g->t->lead > 0 ? g->t->lead : 1, start = n, lead_w = 0;
	struct layout all = { 0 };
	bool *is_lead = calloc((size_t)n, sizeof(*is_lead));

	if (!is_lead || layout_save(&all, g) < 0)
		goto out;
	squeeze(g);
	if (grid_width(g) <= WIDTH) {
		for (int r = -1; r < g->t->nrows; r++)
			print_row(out, g, r);
		goto out;
	}
	layout_restore(g, &all);
	for (int k = 0, m = 0; k < n; k++) {
		if (!all.hdr[k])
			continue;
		if (m++ < lead) {
			is_lead[k] = true;
			lead_w += (lead_w ? 2 : 0) + all.w[k];
		} else if (start == n) {
			start = k;
		}
	}
	for (int c = start; c < n || c == start;) {
		int used = lead_w, k;

		if (c > start)
			fputc('\n', out);
		layout_restore(g, &all);
		for (k = 0; k < n; k++)
			g->hdr[k] = is_lead[k] ? all.hdr[k] : NULL;
		for (k = c; k < n; k++) {
			if (!all.hdr[k])
				continue;
			if (k > c && used + 2 + all.w[k] > WIDTH)
				break;
			g->hdr[k] = all.hdr[k];
			used += 2 + all.w[k];
		}
		squeeze(g);
		for (int r = -1; r < g->t->nrows; r++)
			print_row(out, g, r);
		if (k == c)	/* the lead columns only */
			break;
		c = k;
	}
	layout_restore(g, &all);
out:
	layout_free(&all);
	free(is_lead);
}

void ra_table_text(FILE *out, const struct ra_table *t)
{
	struct grid g;

	if (t->title) {
		fputc('\n', out);
		ra_text_put(out, t->title);
		fputc('\n', out);
	}
	if (t->note)
		fprintf(out, "  (%s)\n", t->note);
	if (!t->nrows) {
		print_empty(out, t);
		return;
	}
	if (grid_fill(&g, t) == 0)
		print_blocks(out, &g);
	grid_free(&g);
}

/*
 * Escaped text @s in lines of at most WIDTH columns, the first going on from
 * column @col, the others indented by @indent; a word longer than a line is
 * broken.
 */
void ra_text_wrap(FILE *out, const char *s, int col, int indent)
{
	bool fresh = true;	/* nothing on this line yet */

	while (*s) {
		size_t n = strcspn(s, " ");
		char *word = strndup(s, n), *w = word;

		if (!word)
			return;
		if (!fresh && col + 1 + ra_text_width(word) > WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			fresh = true;
		}
		if (!fresh) {
			fputc(' ', out);
			col++;
		}
		while (col + ra_text_width(w) > WIDTH && ra_text_prefix(w, WIDTH - col)) {
			size_t k = ra_text_prefix(w, WIDTH - col);

			fprintf(out, "%.*s\n%*s", (int)k, w, indent, "");
			col = indent;
			w += k;
		}
		fputs(w, out);
		col += ra_text_width(w);
		fresh = false;
		free(word);
		s += n;
		s += strspn(s, " ");
	}
	fputc('\n', out);
}

/* The advice: a line per device, then its reasoning as a paragraph. */
static void print_advice(FILE *out, const struct ra_table *t)
{
	fprintf(out, "\n%s\n", t->title);
	if (!t->nrows)
		print_empty(out, t);
	for (int r = 0; r < t->nrows; r++) {
		char *dev = cell_text(t, r, 0), *rec = cell_text(t, r, ra_table_col(t, "recommended_kb"));
		char *cur = cell_text(t, r, ra_table_col(t, "current_kb"));
		char *why = cell_text(t, r, ra_table_col(t, "reasoning"));

		if (dev && rec && cur && why) {
			fprintf(out, "  %s: read_ahead_kb %s (recorded with %s; aiming at %.0f%% of"
				" the bandwidth)\n", dev, rec, cur,
				ra_table_cell(t, r, ra_table_col(t, "fraction"))->d * 100);
			fprintf(out, "%*s", 4, "");
			ra_text_wrap(out, why, 4, 4);
		}
		free(dev);
		free(rec);
		free(cur);
		free(why);
	}
}

/* The run: a line per known column, long values wrapped under themselves. */
static void print_run(FILE *out, const struct ra_table *t)
{
	fprintf(out, "ratrace report: run %lld\n", (long long)ra_table_cell(t, 0, 0)->i);
	for (int c = 1; c < t->ncols; c++) {
		char *s;

		if (ra_table_cell(t, 0, c)->type == RA_VALUE_NULL || !(s = cell_text(t, 0, c)))
			continue;
		fprintf(out, "  %-13s ", t->cols[c]);
		ra_text_wrap(out, s, 16, 16);
		free(s);
	}
}

static void print_warnings(FILE *out, const struct ra_report *r)
{
	if (!r->nwarnings)
		return;
	fprintf(out, "\nWarnings\n");
	for (int i = 0; i < r->nwarnings; i++) {
		fputs("  ! ", out);
		ra_text_put(out, r->warnings[i]);
		fputc('\n', out);
	}
}

static void print_section(FILE *out, const struct ra_table *t)
{
	if (strcmp(t->key, "advice") == 0)
		print_advice(out, t);
	else if (strncmp(t->key, "chart_", 6) != 0)
		ra_table_text(out, t);
}

void ra_report_text_tables(FILE *out, const struct ra_report *r, const char *const *keys)
{
	for (int i = 1; i < r->ntables; i++)
		for (const char *const *k = keys; *k; k++)
			if (strcmp(r->tables[i].key, *k) == 0)
				print_section(out, &r->tables[i]);
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
	print_warnings(out, r);
	for (int i = 1; i < r->ntables; i++)
		print_section(out, &r->tables[i]);
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
