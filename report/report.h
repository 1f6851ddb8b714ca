/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The output layer: every figure ratrace prints is a cell of a named table
 * (a run's report read from the database's views, an experiment's run sets,
 * a comparison's metrics), and one renderer per form prints any table: text,
 * Markdown, CSV, JSON and HTML. docs/report.md documents the tables' keys.
 */
#ifndef RA_REPORT_H
#define RA_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ra_db.h"

/* The type of a value: SQL's, and a truth value (JSON's true and false, CSV's 1 and 0) */
enum ra_value_type { RA_VALUE_NULL, RA_VALUE_INT, RA_VALUE_REAL, RA_VALUE_TEXT, RA_VALUE_BOOL };

/*
 * How a cell stands out where people read it (HTML classes sig, reg, inc,
 * emu, chg): significant (better), regression, too few runs, emulated
 * timing, a significant change of a figure that is neither better nor worse
 */
enum ra_mark { RA_MARK_NONE, RA_MARK_SIGNIFICANT, RA_MARK_REGRESSION, RA_MARK_INCONCLUSIVE,
	       RA_MARK_EMULATED, RA_MARK_CHANGED };

/*
 * One value of a table: SQL NULL, integer, real, text or a truth value. The
 * forms for programs (JSON, CSV) print the value; those for people (text,
 * Markdown, HTML) print @shown when set, else the value formatted by its
 * column's name (ra_fmt_value).
 */
struct ra_value {
	enum ra_value_type type;
	int64_t i;		/* also the truth value */
	double d;
	char *s;
	char *shown;		/* the cell for people, or NULL */
	enum ra_mark mark;
};

/* Column flags */
#define RA_COL_HIDDEN 1u	/* left out of the forms for people (text, Markdown, HTML) */
#define RA_COL_RUNS 2u		/* text: run ids apart by spaces; HTML links each to its page */
#define RA_COL_CUT 4u		/* a summary: too wide for the text, it is cut ("..."), not wrapped */

struct ra_table {
	const char *key;	/* JSON key and HTML id: "readahead_stats" */
	const char *title;	/* "Readahead windows by pattern"; NULL: none printed */
	const char *note;	/* a line under the title, or NULL */
	int ncols;
	char **cols;		/* column names as the views name them: JSON keys, CSV header */
	char **heads;		/* headers for people, or NULL (a short form of the name) */
	unsigned *flags;	/* RA_COL_* of each column, or NULL */
	int nrows;
	struct ra_value *cells;	/* nrows * ncols */
	char *unavailable;	/* the analysis behind the table could not run: why; or NULL */
	char *own_title;	/* a title made for this table (title points at it) */
	int lead;		/* text too wide in blocks: the columns each begins with (0: 1) */
};

struct ra_report {
	int64_t run_id;
	struct ra_table *tables;
	int ntables;
	char **warnings;
	int nwarnings;
};

struct ra_report_opts {
	int top;		/* rows of the top-N tables */
	int64_t stall_ns;	/* threshold of the stalls table */
	double fraction;	/* of the asymptotic throughput the advice aims at; 0: 0.8 */
};

/**
 * ra_report_load - read the report of @run_id from @db
 * Returns a report to free with ra_report_free(), or NULL (ra_last_error()).
 */
struct ra_report *ra_report_load(struct ra_db *db, int64_t run_id, const struct ra_report_opts *o);
void ra_report_free(struct ra_report *r);

/*
 * Tables built in memory: ra_table_new() gives an empty table of @ncols
 * columns; ra_table_set_col() names each, ra_table_add_row() adds a row of
 * NULLs (its index, or -1 out of memory) and ra_table_put_*() fill its cells
 * (0, or -1 out of memory). Strings are copied.
 */
struct ra_table *ra_table_new(const char *key, const char *title, int ncols);
int ra_table_set_col(struct ra_table *t, int col, const char *name, const char *head,
		     unsigned flags);
int ra_table_set_title(struct ra_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ra_table_add_row(struct ra_table *t);
int ra_table_put_int(struct ra_table *t, int row, int col, int64_t v);
/* A real; NAN (not known) becomes NULL */
int ra_table_put_real(struct ra_table *t, int row, int col, double v);
int ra_table_put_text(struct ra_table *t, int row, int col, const char *s);
int ra_table_put_bool(struct ra_table *t, int row, int col, bool v);
int ra_table_show(struct ra_table *t, int row, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void ra_table_mark(struct ra_table *t, int row, int col, enum ra_mark mark);
/** ra_table_clear - free what @t holds (not @t) */
void ra_table_clear(struct ra_table *t);
void ra_table_free(struct ra_table *t);
/** ra_table_real - a numeric cell as a double; NAN when NULL or text */
double ra_table_real(const struct ra_table *t, int row, int col);

/*
 * The renderers of one table. Text: aligned within 100 columns, text columns
 * wrapping or cut (text.c). Markdown: GitHub's table. CSV: RFC 4180 with a
 * header of the column names. JSON: an array of objects, or one row's object
 * (json.c). HTML: a table, marked cells classed, RA_COL_RUNS cells linked to
 * "@stem.run-N.html" (html.c; @stem NULL: no links).
 */
void ra_table_text(FILE *out, const struct ra_table *t);
void ra_table_markdown(FILE *out, const struct ra_table *t);
void ra_table_csv(FILE *out, const struct ra_table *t);
void ra_table_json(FILE *out, const struct ra_table *t, const char *indent);
void ra_table_json_row(FILE *out, const struct ra_table *t, int row, const char *indent);
void ra_table_json_value(FILE *out, const struct ra_value *v);
void ra_table_html(FILE *out, const struct ra_table *t, const char *stem);
/* The advice table: its figures, then the reasoning of each device as a paragraph */
void ra_advice_markdown(FILE *out, const struct ra_table *t);
/* The text of a cell for people, to free(): @shown, else the value formatted */
char *ra_table_shown(const struct ra_table *t, int row, int col);
/* A column's header for people */
const char *ra_table_head(const struct ra_table *t, int col);
bool ra_table_hidden(const struct ra_table *t, int col);
/*
 * ra_table_without - @view: @t with column @col hidden (its cells shared);
 * free(view->flags) after. -1 (no view) out of memory or for no column.
 */
int ra_table_without(const struct ra_table *t, int col, struct ra_table *view);

/** ra_report_table - the table of @key, or NULL */
const struct ra_table *ra_report_table(const struct ra_report *r, const char *key);
/** ra_table_col - index of column @name, or -1 */
int ra_table_col(const struct ra_table *t, const char *name);
const struct ra_value *ra_table_cell(const struct ra_table *t, int row, int col);

/* Renderers: a table of them, chosen by name. */
struct ra_renderer {
	const char *name;
	int (*begin)(FILE *out, int nreports);
	int (*render)(FILE *out, const struct ra_report *r, int index);
	int (*end)(FILE *out);
};

extern const struct ra_renderer ra_render_text;
/* The tables of @r named in @keys (NULL-terminated), as its text report prints them */
void ra_report_text_tables(FILE *out, const struct ra_report *r, const char *const *keys);
/* ... and as its Markdown report does; @keys NULL: every table but the charts' */
void ra_report_markdown_tables(FILE *out, const struct ra_report *r, const char *const *keys);
extern const struct ra_renderer ra_render_json;
extern const struct ra_renderer ra_render_html;
extern const struct ra_renderer ra_render_markdown;

/*
 * Which runs to read (select.c): the options --host, --kernel, --device,
 * --model, --transport, --param NAME=VALUE, --since and --until of ra-report
 * and ra-compare. A kind
 * given twice is either value, two kinds both; times are UTC.
 */
#define RA_SELECT_MAX 64
#define RA_SELECT_USAGE \
	"      --host NAME         the runs recorded on host NAME (repeatable: any of them)\n" \
	"      --kernel K          the runs of kernel K (uname -r; repeatable)\n"            \
	"      --device DEV        the runs with device DEV (a name, or MAJ:MIN; repeatable)\n"\
	"      --model PATTERN     the runs with a device of that model (* any text, ? one\n"\
	"                          character, case ignored; 'Samsung SSD 9*'; repeatable)\n"\
	"      --transport BUS     the runs with a device on bus BUS (nvme, scsi, virtio, mmc)\n"\
	"      --param NAME=VALUE  the runs whose parameter NAME (v_run_params) is VALUE\n"   \
	"      --since TIME        the runs started at TIME or later (2026-12-02,\n"          \
	"                          2026-12-02T18:00:00Z, @UNIX_SECONDS; UTC)\n"              \
	"      --until TIME        the runs started before TIME\n"
struct ra_select_term {
	int kind;
	const char *name;	/* a parameter's name, name_len bytes */
	int name_len;
	const char *value;	/* a model's is its pattern for LIKE ... ESCAPE '\' */
	int64_t ns;		/* a time */
	char like[256];
};
struct ra_select {
	struct ra_select_term terms[RA_SELECT_MAX];
	int n;
};
/*
 * The selection's options in a getopt_long() table, each returning @val;
 * ra_select_option() takes their names
 */
#define RA_SELECT_LONGOPTS(val)                                   \
	{ "host", required_argument, NULL, (val) },               \
	{ "kernel", required_argument, NULL, (val) },             \
	{ "device", required_argument, NULL, (val) },             \
	{ "model", required_argument, NULL, (val) },              \
	{ "transport", required_argument, NULL, (val) },          \
	{ "param", required_argument, NULL, (val) },              \
	{ "since", required_argument, NULL, (val) },              \
	{ "until", required_argument, NULL, (val) }
/** ra_select_option - add --@option @arg ("host", "param", ...); 0, or -1 when it is bad */
int ra_select_option(struct ra_select *sel, const char *option, const char *arg);
/**
 * ra_select_runs - the runs of @db that @sel selects, with label @label too
 * when not NULL, in the order of their ids, into *@ids (to free()); their
 * count, or -1 with ra_last_error()
 */
int ra_select_runs(struct ra_db *db, const struct ra_select *sel, const char *label,
		   int64_t **ids);
/** ra_ids_json - "[1,2,3]": runs for json_each() in SQL; malloc'd, NULL out of memory */
char *ra_ids_json(const int64_t *ids, int n);

/*
 * The experiment (experiment.c): runs grouped into run sets by what they
 * varied (v_run_params), a row of figures per set, the matrix of two
 * dimensions; docs/report.md has its columns and keys.
 */
struct ra_experiment;
struct ra_experiment *ra_experiment_load(struct ra_db *db, const int64_t *ids, int n);
/*
 * ra_experiment_set_runs - the runs of the run set labelled @label (as the
 * experiment names it: "read_ahead_kb=128 numjobs=4") among the @n runs @ids
 * of @db. Returns their count into *@runs (to free()), 0 when no set has it,
 * -1 on error.
 */
int ra_experiment_set_runs(struct ra_db *db, const int64_t *ids, int n, const char *label,
			   int64_t **runs);
void ra_experiment_free(struct ra_experiment *x);
int ra_experiment_sets(const struct ra_experiment *x);
/* An experiment of the sides of a comparison: one dimension, "side"; a set per side */
struct ra_experiment *ra_experiment_sides(void);
int ra_experiment_add_side(struct ra_experiment *x, struct ra_db *db, const int64_t *ids, int n,
			   const char *name);
/*
 * Its tables: "sets", a row per run set (a column per dimension, the set's
 * label, n, figures, runs), and "matrix" (rows the first dimension's values,
 * a column per value of the second, the throughput), NULL when it has none.
 * Tables to ra_table_free(); NULL out of memory (or no matrix).
 */
struct ra_table *ra_experiment_sets_table(const struct ra_experiment *x);
struct ra_table *ra_experiment_matrix_table(const struct ra_experiment *x);
/*
 * The experiment's forms: its tables, then the device model and advice of
 * @model (a run's report: its pool's; NULL: none)
 */
int ra_experiment_text(FILE *out, const struct ra_experiment *x, const struct ra_report *model);
int ra_experiment_markdown(FILE *out, const struct ra_experiment *x,
			   const struct ra_report *model);
int ra_experiment_json(FILE *out, const struct ra_experiment *x, const struct ra_report *model);
/*
 * The experiment page: its tables and charts (html.c), the device model of
 * @model (a report, or NULL), links to the runs' pages "STEM.run-N.html"
 */
int ra_experiment_html(FILE *out, const struct ra_experiment *x, const struct ra_report *model,
		       const char *stem);
/*
 * The experiment page's charts alone, and its section of the device model of
 * @model (chart, tables, advice); the page's head (CSS, CSP) and HTML text escape
 */
void ra_experiment_html_charts(FILE *out, const struct ra_experiment *x);
void ra_html_model(FILE *out, const struct ra_report *model);
void ra_html_head(FILE *out, const char *title);
void ra_html_text(FILE *out, const char *s);

/* Formatting shared by the renderers. */
void ra_fmt_ns(char *buf, size_t len, double ns);
void ra_fmt_value(char *buf, size_t len, const char *col, const struct ra_value *v);

/*
 * Escaping (escape.c) of every string that comes from a trace, a database or
 * the command line, one function per kind of output; docs/report.md has the
 * mappings. A NULL string is written as an empty one.
 *
 * Text: control characters (C0, DEL, C1), the marks that reorder a line and
 * bytes that are not UTF-8 become visible escapes (\n, \x1b, \u009b, \xff), a
 * backslash is doubled, and the rest (valid UTF-8) is kept.
 */
void ra_text_put(FILE *out, const char *s);
/** ra_text_escape - the text escape of @s, to free(); NULL when out of memory */
char *ra_text_escape(const char *s);
/** ra_text_width - the terminal columns of escaped text @s */
int ra_text_width(const char *s);
/** ra_text_prefix - bytes of the longest prefix of escaped @s within @cols columns */
size_t ra_text_prefix(const char *s, int cols);
/*
 * ra_text_wrap - escaped @s in lines of at most 100 columns, the first going
 * on from column @col, the others indented by @indent; ends the line
 */
void ra_text_wrap(FILE *out, const char *s, int col, int indent);
/** ra_text_pad - escaped @s padded with spaces to @width columns, on the left if @right */
void ra_text_pad(FILE *out, const char *s, int width, bool right);
/* A Markdown table cell: the text escape, then a backslash before | \ ` * _ [ ] < > & ~ $ */
void ra_md_cell(FILE *out, const char *s);
/* A quoted JSON string, always valid UTF-8: a byte that is not UTF-8 becomes \u00XX */
void ra_json_string(FILE *out, const char *s);
/* An RFC 4180 CSV field (quoted when it holds , " CR or LF), with JSON's byte mapping */
void ra_csv_field(FILE *out, const char *s);
/*
 * XML character data or an attribute value: the text escape (so no control
 * character, byte that is not UTF-8 or noncharacter XML forbids reaches it),
 * then & < > " ' as entities
 */
void ra_xml_text(FILE *out, const char *s);

#endif /* RA_REPORT_H */
