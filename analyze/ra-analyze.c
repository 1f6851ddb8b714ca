// SPDX-License-Identifier: GPL-2.0
/*
 * ra-analyze: (re)compute the derived tables of the runs of a database.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ra_analyze.h"
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
	"  -v, --verbose       say what each pass found\n"
	"  -h, --help          this text\n"
	"      --version       print the version\n"
	"\n"
	"Exit status: 0 done; 2 usage error, unknown run, or a database that cannot\n"
	"be read or written.\n";

static int die(const char *msg)
{
	fprintf(stderr, "ra-analyze: %s\n", msg);
	return EXIT_ERROR;
}

static int all_runs(struct ra_db *db, int64_t **ids)
{
	sqlite3_stmt *st = NULL;
	int n = 0, cap = 0;

	*ids = NULL;
	if (sqlite3_prepare_v2(ra_db_sqlite(db), "SELECT run_id FROM runs ORDER BY run_id", -1,
			       &st, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == cap) {
			int64_t *p = realloc(*ids, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(**ids));

			if (!p)
				break;
			*ids = p;
		}
		(*ids)[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
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
	struct ra_analyze_opts o = { 0 };
	int64_t *ids = NULL;
	struct ra_db *db;
	int n = 0, c, ret = 0;
	char *end;

	ids = calloc((size_t)argc, sizeof(*ids));
	if (!ids)
		return die("out of memory");
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
		return die("give one database");
	}
	db = ra_db_open(argv[optind], 0);
	if (!db) {
		free(ids);
		return die(ra_last_error());
	}
	if (!n) {
		free(ids);
		n = all_runs(db, &ids);
	}
	for (int i = 0; i < n && ret == 0; i++) {
		if (ra_analyze_run(db, ids[i], &o) < 0)
			ret = die(ra_last_error());
		else if (o.verbose >= 0)
			fprintf(stderr, "ra-analyze: run %lld analysed\n", (long long)ids[i]);
	}
	free(ids);
	if (ra_db_close(db) < 0 && ret == 0)
		ret = die(ra_last_error());
	return ret;
}
