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
	"it lists the runs.\n"
	"\n"
	"  -r, --run ID        the run to report\n"
	"  -l, --label NAME    every run with this label\n"
	"      --json          JSON on standard output (docs/report.md)\n"
	"      --html FILE     write a self-contained HTML page with charts to FILE\n"
	"  -n, --top N         rows of the files, streams and stalls tables (10)\n"
	"      --fraction F    the read_ahead_kb advice aims at this share of the device's\n"
	"                      bandwidth: 0.8, 80 or 80%% (0.8)\n"
	"      --stall-ms MS   list readahead stalls of at least MS ms (1)\n"
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
	struct ra_report_opts ro;
};

static int die(const char *msg)
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
		{ "html", required_argument, NULL, 'H' },
		{ "top", required_argument, NULL, 'n' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "fraction", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	double ms;
	int c;

	while ((c = getopt_long(argc, argv, "r:l:n:h", longopts, NULL)) != -1) {
		switch (c) {
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
			/* a fraction (0.8) or a percentage (80, 80%) */
			o->ro.fraction = strtod(optarg, &end);
			if (*end == '%')
				end++;
			if (o->ro.fraction >= 1)
				o->ro.fraction /= 100;
			if (*end || !(o->ro.fraction > 0 && o->ro.fraction < 1))
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

/* The runs to report: one, a label's, or the only run of the database. */
static int select_runs(struct ra_db *db, const struct opts *o, int64_t **ids)
{
	sqlite3_stmt *st = NULL;
	const char *sql = o->label ? "SELECT run_id FROM runs WHERE label = ?1 ORDER BY run_id" :
				     "SELECT run_id FROM runs ORDER BY run_id";
	int n = 0;

	*ids = NULL;
	if (o->run) {
		*ids = malloc(sizeof(**ids));
		if (!*ids)
			return -1;
		(*ids)[0] = o->run;
		return 1;
	}
	if (sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (o->label)
		sqlite3_bind_text(st, 1, o->label, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t *p = realloc(*ids, (size_t)(n + 1) * sizeof(*p));

		if (!p)
			break;
		*ids = p;
		(*ids)[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}

static void list_runs(struct ra_db *db)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(ra_db_sqlite(db),
			       "SELECT run_id, COALESCE(label, '-'), COALESCE(kernel, '-'),"
			       " COALESCE(started_at, '-'), COALESCE(wall_ns, 0) / 1e9,"
			       " lost_events, COALESCE(workload, (SELECT source_path FROM runs r"
			       " WHERE r.run_id = v.run_id), '-') FROM v_runs v ORDER BY run_id",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	printf("%4s  %-14s  %-18s  %-20s  %8s  %6s  %s\n", "run", "label", "kernel", "started",
	       "wall_s", "lost", "workload");
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("%4lld  %-14.14s  %-18.18s  %-20.20s  %8.2f  %6lld  %.60s\n",
		       (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1),
		       sqlite3_column_text(st, 2), sqlite3_column_text(st, 3),
		       sqlite3_column_double(st, 4), (long long)sqlite3_column_int64(st, 5),
		       sqlite3_column_text(st, 6));
	sqlite3_finalize(st);
	fprintf(stderr, "ra-report: several runs: pick one with --run ID or a set with --label NAME\n");
}

static int render(struct ra_db *db, const struct opts *o, const int64_t *ids, int n, FILE *out)
{
	int ret = 0;

	o->renderer->begin(out, n);
	for (int i = 0; i < n && ret == 0; i++) {
		struct ra_report *r = ra_report_load(db, ids[i], &o->ro);

		if (!r)
			return -1;
		ret = o->renderer->render(out, r, i);
		ra_report_free(r);
	}
	if (o->renderer->end(out) != 0 || ret < 0) {
		ra_set_error(RA_ERR_IO, "cannot write the report: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The page goes to FILE.tmp first: a failed report leaves no half page behind. */
static int render_file(struct ra_db *db, const struct opts *o, const int64_t *ids, int n)
{
	size_t len = strlen(o->html) + 8;
	char *tmp = malloc(len);
	FILE *out;
	int ret = -1;

	if (!tmp)
		return -1;
	snprintf(tmp, len, "%s.tmp", o->html);
	out = fopen(tmp, "we");
	if (!out) {
		ra_set_error(RA_ERR_USAGE, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	ret = render(db, o, ids, n, out);
	if (fclose(out) != 0 && ret == 0) {
		ra_set_error(RA_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
		ret = -1;
	}
	if (ret == 0 && rename(tmp, o->html) < 0) {
		ra_set_error(RA_ERR_IO, "cannot rename '%s': %s", tmp, strerror(errno));
		ret = -1;
	}
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o = { .renderer = &ra_render_text, .ro = { .top = 10 } };
	struct ra_db *db;
	int64_t *ids = NULL;
	int n, ret = 0;

	if (parse(&o, argc, argv) < 0)
		return EXIT_ERROR;
	db = ra_db_open(argv[optind], RA_DB_READONLY);
	if (!db)
		return die(ra_last_error());
	n = select_runs(db, &o, &ids);
	if (n < 0) {
		ret = die("cannot read the runs");
	} else if (n == 0) {
		if (o.label)
			fprintf(stderr, "ra-report: no run labelled '%s' in '%s'\n", o.label,
				argv[optind]);
		else
			fprintf(stderr, "ra-report: no runs in '%s'\n", argv[optind]);
		ret = EXIT_ERROR;
	} else if (n > 1 && !o.label && !o.run) {
		list_runs(db);
	} else if ((o.html ? render_file(db, &o, ids, n) : render(db, &o, ids, n, stdout)) < 0) {
		ret = die(ra_last_error());
	}
	free(ids);
	ra_db_close(db);
	return ret;
}
