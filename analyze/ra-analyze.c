// SPDX-License-Identifier: GPL-2.0
/*
 * ra-analyze: (re)compute the derived tables of the runs of a database.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ra_analyze.h"
#include "ra_bigmem.h"
#include "ra_progress.h"
#include "ra_sql.h"
#include "ra_version.h"

#define EXIT_ERROR 2

static const char usage_text[] =
	"usage: ra-analyze [options] DB\n"
	"\n"
	"Recompute the analyses of the runs in the ratrace database DB: readahead\n"
	"windows and their patterns, streams, and the fate of every read-ahead page.\n"
	"ra-record and ra-import run them already; run ra-analyze after an upgrade or\n"
	"to analyse again. Each run is replaced in one transaction.\n"
	"\n"
	"  -r, --run ID        only this run (repeatable; default: every run)\n"
	"  -q, --quiet         print errors only\n"
	"  -v, --verbose       say what each pass found and how long it took\n"
	"  -h, --help          this text\n"
	"      --version       print the version\n"
	"\n"
	"Exit status: 0 done; 2 usage error, unknown run, a database that cannot be\n"
	"read or written, or whose runs cannot be told (none, or run rows damaged or\n"
	"missing).\n";

/* A line the analysis says of what it did (-v). */
static void say_line(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

/* The one-line error on stderr; returns the exit status of an error. */
static int error_status(const char *msg)
{
	fprintf(stderr, "ra-analyze: %s\n", msg);
	return EXIT_ERROR;
}

/* Every run id of the runs table into *@ids; the count, or -1 with the error. */
static int all_runs(struct ra_db *db, int64_t **ids)
{
	struct ra_stmt *st = ra_sql_prepare(db, "SELECT run_id FROM runs ORDER BY run_id");
	int n = 0, cap = 0, rc = st ? 1 : -1;

	*ids = NULL;
	while (rc == 1 && (rc = ra_sql_step(st)) == 1) {
		if (n == cap) {
			int64_t *p = realloc(*ids, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(**ids));

			if (!p) {
				ra_set_error(RA_ERR_IO, "out of memory");
				n = -1;
				goto out;
			}
			*ids = p;
		}
		ra_sql_row(st, "i", &(*ids)[n++]);
	}
	if (rc < 0) {
		ra_set_error(RA_ERR_DATA, "cannot read the runs of '%s': %s", ra_db_path(db),
			     ra_sql_why(db));
		n = -1;
	}
out:
	ra_sql_finalize(st);
	return n;
}

/*
 * A run whose events are in the database without its run row (deleted with
 * foreign keys off, or lost to damage): its id, 0 when there is none, -1
 * with the error when the events cannot be read.
 */
static int64_t orphaned_run(struct ra_db *db)
{
	static const char sql[] =
		"SELECT run_id FROM ra_chunks WHERE run_id NOT IN (SELECT run_id FROM runs) UNION ALL "
		"SELECT run_id FROM page_chunks WHERE run_id NOT IN (SELECT run_id FROM runs) UNION ALL "
		"SELECT run_id FROM blk_chunks WHERE run_id NOT IN (SELECT run_id FROM runs) LIMIT 1";
	int64_t id = 0;
	int rc = ra_sql_one(db, sql, "", "i", &id);

	if (rc < 0)
		ra_set_error(RA_ERR_DATA, "cannot read the events of '%s': %s", ra_db_path(db),
			     ra_sql_why(db));
	return rc < 0 ? -1 : id;
}

/* The runs to analyse when none is named: every one, if the runs can be read. */
static int runs_to_analyse(struct ra_db *db, int64_t **ids)
{
	int n = all_runs(db, ids);
	int64_t orphan;

	if (n < 0)
		return -1;
	orphan = orphaned_run(db);
	if (orphan < 0)
		return -1;
	if (orphan > 0) {
		ra_set_error(RA_ERR_DATA,
			     "'%s': the events of run %lld have no run row (damaged or deleted);"
			     " name the runs to analyse with -r", ra_db_path(db),
			     (long long)orphan);
		return -1;
	}
	if (n == 0) {
		ra_set_error(RA_ERR_DATA, "'%s' holds no runs", ra_db_path(db));
		return -1;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 256 },
		{ NULL, 0, NULL, 0 }
	};
	struct ra_analyze_opts o = { .notice = say_line };
	int64_t *ids = NULL;
	struct ra_db *db;
	int n = 0, c, ret = 0;
	char *end, line[160];

	ids = calloc((size_t)argc, sizeof(*ids));
	if (!ids)
		return error_status("out of memory");
	while ((c = getopt_long(argc, argv, "r:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			ids[n] = strtoll(optarg, &end, 10);
			if (*end || ids[n] <= 0) {
				free(ids);
				fprintf(stderr, "ra-analyze: bad run id '%s'\n", optarg);
				return EXIT_ERROR;
			}
			n++;
			break;
		case 'q':
			o.verbose = -1;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			free(ids);
			return 0;
		case 256:
			printf("ra-analyze (ratrace) %s\n", RA_VERSION);
			free(ids);
			return 0;
		default:
			fputs(usage_text, stderr);
			free(ids);
			return EXIT_ERROR;
		}
	}
	if (optind != argc - 1) {
		free(ids);
		return error_status("give one database");
	}
	db = ra_db_open(argv[optind], 0);
	if (!db) {
		free(ids);
		return error_status(ra_last_error());
	}
	if (!n) {
		free(ids);
		n = runs_to_analyse(db, &ids);
		if (n < 0)
			ret = error_status(ra_last_error());
	}
	if (o.verbose >= 0 && isatty(STDERR_FILENO))
		o.progress = ra_progress_new(stderr, "ra-analyze");
	for (int i = 0; i < n && ret == 0; i++) {
		if (ra_analyze_run(db, ids[i], &o) < 0)
			ret = error_status(ra_last_error());
		else if (o.verbose >= 0)
			fprintf(stderr, "ra-analyze: run %lld analysed\n", (long long)ids[i]);
	}
	/* the runs before the last fit their models again: each pools them all */
	if (ret == 0 && n > 1 && ra_analyze_models(db, (const int64_t *)ids, (size_t)n, &o) < 0)
		ret = error_status(ra_last_error());
	if (ret == 0 && o.verbose > 0 && ra_big_describe(line, sizeof(line)))
		fprintf(stderr, "ra-analyze: %s\n", line);
	ra_progress_free(o.progress);
	free(ids);
	if (ra_db_close(db) < 0 && ret == 0)
		ret = error_status(ra_last_error());
	return ret;
}
