// SPDX-License-Identifier: GPL-2.0
/*
 * ra-report: a run's readahead and block figures as a text summary, JSON, or
 * a self-contained HTML page.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ra_sql.h"
#include "report.h"
#include "ra_version.h"

#define EXIT_ERROR 2

static const char usage_text[] =
	"usage: ra-report [options] DB\n"
	"\n"
	"Print what readahead did in a run of the ratrace database DB: the run, its\n"
	"devices and settings, the readahead table by pattern with the fate of the\n"
	"read-ahead pages, the top files and streams, block I/O per device (btt's\n"
	"intervals, merges, plugs), readahead stalls, and warnings that change how\n"
	"far the numbers can be trusted. With several runs and no --run or --label,\n"
	"the experiment: the run sets (runs grouped by what they varied: read_ahead_kb,\n"
	"--sweep-env variables, fio's numjobs and bs, the kernel, the throttle), a row\n"
	"of figures each and the matrix of two varied dimensions, then the run list.\n"
	"DB is a file or a PostgreSQL database, postgresql://host/db (docs/fleet.md);\n"
	"the selection options (--host ... --until) choose the runs read of it.\n"
	"\n"
	"  -r, --run ID        the run to report\n"
	"  -l, --label NAME    every run with this label\n"
	"      --json          JSON on standard output (docs/report.md)\n"
	"      --markdown      the tables in Markdown, for a pull request or a mail\n"
	"      --experiment    several runs: the experiment only, not the run list\n"
	"      --html FILE     write a self-contained HTML page with charts to FILE\n"
	"  -n, --top N         rows of the files, streams and stalls tables (10)\n"
	"      --fraction F    the read_ahead_kb advice aims at this share of the device's\n"
	"                      bandwidth: a share up to 1 (0.8) or a percentage (80%) (0.8)\n"
	"      --stall-ms MS   list readahead stalls of at least MS ms (1)\n"
	RA_SELECT_USAGE
	"  -h, --help          this text\n"
	"      --version       print the version\n"
	"\n"
	"Exit status: 0 done; 2 usage error, unknown run or label, or a database\n"
	"that cannot be read.\n";

struct opts {
	int64_t run;
	const char *label;
	const char *html;
	const struct ra_renderer *renderer;
	bool markdown;		/* the experiment overview as Markdown tables */
	bool experiment_only;	/* several runs: the experiment without the run list */
	struct ra_report_opts ro;
	struct ra_select sel;
};

/* The one-line error on stderr; returns the exit status of an error. */
static int error_status(const char *msg)
{
	fprintf(stderr, "ra-report: %s\n", msg);
	return EXIT_ERROR;
}

static int parse(struct opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "label", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "experiment", no_argument, NULL, 'x' },
		{ "html", required_argument, NULL, 'H' },
		{ "top", required_argument, NULL, 'n' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "fraction", required_argument, NULL, 'f' },
		RA_SELECT_LONGOPTS('S'),
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	double ms;
	int c, idx;

	while ((c = getopt_long(argc, argv, "r:l:n:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'S':
			if (ra_select_option(&o->sel, longopts[idx].name, optarg) < 0) {
				fprintf(stderr, "ra-report: bad --%s '%s'\n", longopts[idx].name,
					optarg);
				return -1;
			}
			break;
		case 'r':
			o->run = strtoll(optarg, &end, 10);
			if (*end || o->run <= 0)
				goto bad;
			break;
		case 'l':
			o->label = optarg;
			break;
		case 'j':
			o->renderer = &ra_render_json;
			break;
		case 'm':
			o->markdown = true;
			o->renderer = &ra_render_markdown;
			break;
		case 'x':
			o->experiment_only = true;
			break;
		case 'H':
			o->html = optarg;
			o->renderer = &ra_render_html;
			break;
		case 'n':
			o->ro.top = (int)strtol(optarg, &end, 10);
			if (*end || o->ro.top <= 0)
				goto bad;
			break;
		case 's':
			ms = strtod(optarg, &end);
			if (*end || ms < 0)
				goto bad;
			o->ro.stall_ns = (int64_t)(ms * 1e6);
			break;
		case 'f':
			/* a fraction up to 1 (0.8, 1.0), or a percentage (80, 80%, 100%) */
			o->ro.fraction = strtod(optarg, &end);
			if (end == optarg)
				goto bad;
			if (*end == '%' || o->ro.fraction > 1)
				o->ro.fraction /= 100;
			if (*end == '%')
				end++;
			if (*end || !(o->ro.fraction > 0 && o->ro.fraction <= 1))
				goto bad;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("ra-report (ratrace) %s\n", RA_VERSION);
			exit(0);
		default:
			fputs(usage_text, stderr);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ra-report: give one database\n");
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "ra-report: bad value '%s' for -%c\n", optarg, c);
	return -1;
}

/* The runs to report: one, a label's, or every run of the database the selection leaves. */
static int select_runs(struct ra_db *db, const struct opts *o, int64_t **ids)
{
	int n;

	if (!o->run || o->sel.n) {
		n = ra_select_runs(db, &o->sel, o->run ? NULL : o->label, ids);
		if (n <= 0 || !o->run)
			return n;
		for (int i = 0; i < n; i++)
			if ((*ids)[i] == o->run) {
				(*ids)[0] = o->run;
				return 1;
			}
		free(*ids);
		*ids = NULL;
		ra_set_error(RA_ERR_USAGE, "run %lld of '%s' is not among the runs selected",
			     (long long)o->run, ra_db_path(db));
		return -1;
	}
	*ids = malloc(sizeof(**ids));
	if (!*ids)
		return -1;
	(*ids)[0] = o->run;
	return 1;
}

/* The run list: a row per run of @ids, labels and kernels whole, the workload cut. */
static struct ra_table *list_load(struct ra_db *db, const int64_t *ids, int n)
{
	static const char *const cols[] = { "run", "label", "kernel", "started", "wall_s", "lost",
					    "workload" };
	struct ra_table *t = ra_table_new("runs", NULL, 7);
	struct ra_stmt *st = NULL;
	char *json = ra_ids_json(ids, n);
	int rc = -1;

	for (int c = 0; t && json && c < 7; c++)	/* the workload: the run's header has it whole */
		if (ra_table_set_col(t, c, cols[c], NULL, c == 6 ? RA_COL_CUT : 0) < 0)
			goto fail;
	if (!t || !(st = ra_sql_prepare(db, "SELECT run_id, COALESCE(label, '-'),"
					" COALESCE(kernel, '-'), COALESCE(started_at, '-'),"
					" COALESCE(wall_ns, 0) / 1e9, lost_events,"
					" COALESCE(workload, (SELECT origin_path FROM runs r"
					" WHERE r.run_id = v.run_id), '-') FROM v_runs v"
					" WHERE run_id IN (SELECT value FROM json_each(?1))"
					" ORDER BY run_id")) || ra_sql_bind(st, "t", json) < 0)
		goto fail;
	while ((rc = ra_sql_step(st)) == 1) {
		const char *text[7] = { NULL };
		int64_t run, lost;
		double wall;
		int r = ra_table_add_row(t);

		ra_sql_row(st, "itttfit", &run, &text[1], &text[2], &text[3], &wall, &lost, &text[6]);
		if (r < 0 || ra_table_put_int(t, r, 0, run) < 0) {
			rc = -1;
			break;
		}
		for (int c = 1; c < 7; c++)
			if (c != 4 && c != 5 && ra_table_put_text(t, r, c, text[c]) < 0)
				goto fail;
		ra_table_put_real(t, r, 4, wall);
		ra_table_put_int(t, r, 5, lost);
		if (ra_table_show(t, r, 4, "%.2f", wall) < 0)
			goto fail;
	}
	if (rc == 0) {
		ra_sql_finalize(st);
		free(json);
		return t;
	}
fail:
	ra_sql_finalize(st);
	free(json);
	ra_table_free(t);
	return NULL;
}

/* Everything ra-report prints, read whole before the database is closed. */
struct output {
	int64_t *ids;
	int n;
	bool listing;		/* several runs and no choice: the experiment and the run list */
	struct ra_table *list;	/* the run list */
	struct ra_experiment *x;
	struct ra_report **reps;
	struct ra_report *model;	/* listing: the report whose device model it shows */
	char *model_error;		/* or why it has none */
};

static void output_free(struct output *out)
{
	for (int i = 0; out->reps && i < out->n; i++)
		ra_report_free(out->reps[i]);
	free(out->reps);
	free(out->ids);
	ra_table_free(out->list);
	ra_experiment_free(out->x);
	if (!out->reps)
		ra_report_free(out->model);
	free(out->model_error);
}

static int no_runs(struct ra_db *db, const struct opts *o)
{
	char *label = o->label ? ra_text_escape(o->label) : NULL;

	if (label)
		ra_set_error(RA_ERR_USAGE, "no run labelled '%s' in '%s'%s", label, ra_db_path(db),
			     o->sel.n ? " among the runs selected" : "");
	else
		ra_set_error(RA_ERR_USAGE, "no runs in '%s'%s", ra_db_path(db),
			     o->sel.n ? " among the runs selected" : "");
	free(label);
	return -1;
}

/* The report of each run of @out. */
static int load_reports(struct ra_db *db, const struct opts *o, struct output *out)
{
	out->reps = calloc((size_t)out->n, sizeof(*out->reps));
	if (!out->reps)
		return -1;
	for (int i = 0; i < out->n; i++)
		if (!(out->reps[i] = ra_report_load(db, out->ids[i], &o->ro)))
			return -1;
	return 0;
}

/*
 * The run list, or the reports of the chosen runs, in one read transaction:
 * every table from one state of the database, also while a writer commits.
 */
/* The index in @ids of the last run that is not a what-if (the last run if all are); -1 */
static int last_recorded(struct ra_db *db, const int64_t *ids, int n)
{
	char *json = ra_ids_json(ids, n);
	int64_t id = 0;
	int rc;

	if (!json)
		return -1;
	rc = ra_sql_one(db, "SELECT MAX(run_id) FROM runs WHERE origin IS NOT 'whatif'"
			" AND run_id IN (SELECT value FROM json_each(?1))", "t", "i", json, &id);
	free(json);
	if (rc < 0)
		return -1;
	for (int i = n - 1; i >= 0; i--)
		if (ids[i] == id)
			return i;
	return n - 1;
}

static int read_output(struct ra_db *db, const struct opts *o, struct output *out)
{
	int k;

	if (ra_db_exec(db, "BEGIN") < 0 || (out->n = select_runs(db, o, &out->ids)) < 0)
		return -1;
	if (out->n == 0)
		return no_runs(db, o);
	if (out->n > 1 && !o->label && !o->run) {
		out->listing = true;
		out->x = ra_experiment_load(db, out->ids, out->n);
		if (!out->x)
			return -1;
		/* the experiment page links to a page of each run */
		if (o->html && load_reports(db, o, out) < 0)
			return -1;
		/* the device model and advice of the last recorded run's pool (a
		 * what-if run's model is its source's) */
		k = last_recorded(db, out->ids, out->n);
		if (k < 0)
			return -1;
		out->model = out->reps ? out->reps[k] : ra_report_load(db, out->ids[k], &o->ro);
		if (!out->model && !(out->model_error = strdup(ra_last_error())))
			return -1;
		if ((out->list = list_load(db, out->ids, out->n)))
			return ra_db_exec(db, "COMMIT");
		ra_set_error(RA_ERR_IO, "cannot read the runs of '%s': %s", ra_db_path(db),
			     ra_sql_why(db));
		return -1;
	}
	if (load_reports(db, o, out) < 0)
		return -1;
	return ra_db_exec(db, "COMMIT");
}

static int render(const struct opts *o, const struct output *out, FILE *f)
{
	int ret = o->renderer->begin(f, out->n);

	for (int i = 0; i < out->n && ret == 0; i++)
		ret = o->renderer->render(f, out->reps[i], i);
	if (o->renderer->end(f) != 0 || ret < 0) {
		ra_set_error(RA_ERR_IO, "cannot write the report: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The name of @path without its directory and a ".html" ending, to free(). */
static char *page_stem(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".html") == 0)
		n -= 5;
	return strndup(base, n);
}

/*
 * A page goes to FILE.tmp first: a failed report leaves no half page behind.
 * @run >= 0: the page of out->reps[@run] alone; PAGE_EXPERIMENT: the
 * experiment page; PAGE_ALL: every report of @out.
 */
enum { PAGE_ALL = -1, PAGE_EXPERIMENT = -2 };

static int write_page(const char *path, const struct opts *o, const struct output *out, int run)
{
	size_t len = strlen(path) + 8;
	char *tmp = malloc(len);
	FILE *f;
	int ret = -1;

	if (!tmp)
		return -1;
	snprintf(tmp, len, "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f) {
		ra_set_error(RA_ERR_USAGE, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	if (run == PAGE_ALL) {
		ret = render(o, out, f);
	} else if (run == PAGE_EXPERIMENT) {
		char *stem = page_stem(path);

		ret = stem ? ra_experiment_html(f, out->x, out->model, stem) : -1;
		free(stem);
	} else {
		struct output one = { .n = 1, .reps = &out->reps[run] };

		ret = render(o, &one, f);
	}
	if (fclose(f) != 0 && ret == 0) {
		ra_set_error(RA_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
		ret = -1;
	}
	if (ret == 0 && rename(tmp, path) < 0) {
		ra_set_error(RA_ERR_IO, "cannot rename '%s': %s", tmp, strerror(errno));
		ret = -1;
	}
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

/*
 * The experiment page at FILE and the page of each run beside it, named
 * STEM.run-N.html (STEM: FILE's name without ".html"), which it links to.
 */
static int render_experiment(const struct opts *o, const struct output *out)
{
	char *stem = page_stem(o->html);
	const char *slash = strrchr(o->html, '/');
	int dirlen = slash ? (int)(slash - o->html + 1) : 0;

	if (!stem)
		return -1;
	for (int i = 0; i < out->n; i++) {
		char *path;

		if (asprintf(&path, "%.*s%s.run-%lld.html", dirlen, o->html, stem,
			     (long long)out->ids[i]) < 0) {
			free(stem);
			return -1;
		}
		if (write_page(path, o, out, i) < 0) {
			free(path);
			free(stem);
			return -1;
		}
		free(path);
	}
	free(stem);
	return write_page(o->html, o, out, PAGE_EXPERIMENT);
}

static int write_output(const struct opts *o, struct output *out)
{
	if (!out->listing)
		return o->html ? write_page(o->html, o, out, PAGE_ALL) : render(o, out, stdout);
	if (o->html)
		return render_experiment(o, out);
	if (out->model_error)
		fprintf(stderr, "ra-report: no device model: %s\n", out->model_error);
	if (o->renderer == &ra_render_json ? ra_experiment_json(stdout, out->x, out->model) :
	    o->markdown ? ra_experiment_markdown(stdout, out->x, out->model) :
	    ra_experiment_text(stdout, out->x, out->model)) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (o->renderer != &ra_render_json && !o->markdown) {
		if (o->experiment_only)
			return fflush(stdout) == 0 ? 0 : -1;
		ra_table_text(stdout, out->list);
	}
	if (fflush(stdout) != 0) {
		ra_set_error(RA_ERR_IO, "cannot write the run list: %s", strerror(errno));
		return -1;
	}
	if (o->renderer == &ra_render_text && !o->experiment_only)
		fprintf(stderr, "ra-report: several runs: pick one with --run ID or a set with"
			" --label NAME\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .renderer = &ra_render_text, .ro = { .top = 10 } };
	struct output out = { 0 };
	struct ra_db *db;
	int ret;

	if (parse(&o, argc, argv) < 0)
		return EXIT_ERROR;
	db = ra_db_open(argv[optind], RA_DB_READONLY);
	if (!db)
		return error_status(ra_last_error());
	ret = read_output(db, &o, &out);
	/* closed before anything is printed: a close can find the reading spoiled */
	if (ra_db_close(db) < 0 && ret == 0)
		ret = -1;
	if (ret == 0)
		ret = write_output(&o, &out);
	output_free(&out);
	return ret < 0 ? error_status(ra_last_error()) : 0;
}
