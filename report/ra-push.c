// SPDX-License-Identifier: GPL-2.0
/*
 * ra-push: copy the runs of ratrace databases to a shared one on a
 * PostgreSQL server, where ra-report and ra-compare read them by its URL.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ra_push.h"
#include "ra_version.h"

#define EXIT_SOME_FAILED 1
#define EXIT_ERROR 2

static const char usage_text[] =
	"usage: ra-push [options] DB... URL\n"
	"\n"
	"Copy the runs of the ratrace databases DB to the PostgreSQL database of URL\n"
	"(postgresql://[user@]host[:port]/dbname[?sslmode=...]; libpq reads the PG*\n"
	"environment and ~/.pgpass too): each run with its parameters and every derived\n"
	"table, in one transaction, once (a run the server has is left as it is). The\n"
	"first push makes the ratrace schema there; a newer ratrace upgrades it.\n"
	"ra-report and ra-compare read the URL as they read a file (docs/fleet.md).\n"
	"\n"
	"  -e, --events            the raw events too (partitioned by run on the server)\n"
	"  -r, --run ID            only run ID of each database (repeatable)\n"
	"      --source-host NAME  the pushing machine's name to record (its own)\n"
	"      --grant ROLE        let ROLE read the ratrace schema, now and later\n"
	"                          (repeatable)\n"
	"  -q, --quiet             no line per run\n"
	"  -h, --help              this text\n"
	"      --version           print the version\n"
	"\n"
	"Exit status: 0 every run is on the server; 1 some runs could not be pushed\n"
	"(each is named, the others are there); 2 usage error, a database that cannot\n"
	"be read, or a server that cannot be used.\n";

struct opts {
	struct ra_push_opts push;
	int64_t *runs;
	const char **grants;
	bool quiet;
};

static void notice(const char *msg, void *arg)
{
	const struct opts *o = arg;

	if (!o->quiet || strstr(msg, " not pushed: "))
		fprintf(stderr, "ra-push: %s\n", msg);
}

static int add_run(struct opts *o, const char *arg)
{
	char *end;
	long long id = strtoll(arg, &end, 10);
	int64_t *r;

	if (*end || id <= 0)
		return -1;
	r = realloc(o->runs, (size_t)(o->push.nruns + 1) * sizeof(*r));
	if (!r)
		return -1;
	o->runs = r;
	r[o->push.nruns++] = id;
	o->push.runs = r;
	return 0;
}

static int add_grant(struct opts *o, const char *role)
{
	const char **g = realloc(o->grants, (size_t)(o->push.ngrants + 1) * sizeof(*g));

	if (!g)
		return -1;
	o->grants = g;
	g[o->push.ngrants++] = role;
	o->push.grants = g;
	return 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "run", required_argument, NULL, 'r' },
		{ "source-host", required_argument, NULL, 'S' },
		{ "grant", required_argument, NULL, 'G' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "er:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o->push.events = true;
			break;
		case 'r':
			if (add_run(o, optarg) < 0) {
				fprintf(stderr, "ra-push: bad run '%s'\n", optarg);
				return -1;
			}
			break;
		case 'S':
			o->push.source_host = optarg;
			break;
		case 'G':
			if (add_grant(o, optarg) < 0)
				return -1;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("ra-push (ratrace) %s\n", RA_VERSION);
			exit(0);
		default:
			fputs(usage_text, stderr);
			return -1;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "ra-push: give one database or more, then the server's URL\n");
		return -1;
	}
	if (!ra_db_is_url(argv[argc - 1])) {
		fprintf(stderr, "ra-push: the last argument is the server, postgresql://...\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .push = { .notice = notice } };
	struct ra_push_result res;
	char *shown;
	int ret;

	o.push.arg = &o;
	if (parse(&o, argc, argv) < 0) {
		free(o.runs);
		free(o.grants);
		return EXIT_ERROR;
	}
	ret = ra_push(argv[argc - 1], (const char *const *)argv + optind, argc - optind - 1,
		      &o.push, &res);
	if (ret < 0)
		fprintf(stderr, "ra-push: %s\n", ra_last_error());
	shown = ra_db_redact(argv[argc - 1]);
	if (ret >= 0 && !o.quiet)
		fprintf(stderr, "ra-push: %d run(s) pushed to '%s', %d there already, %d failed"
			" (%lld rows, %lld of them chunks of events)\n", res.pushed,
			shown ? shown : "", res.present, res.failed, (long long)res.rows,
			(long long)res.chunks);
	free(shown);
	free(o.runs);
	free(o.grants);
	return ret < 0 ? EXIT_ERROR : ret > 0 ? EXIT_SOME_FAILED : 0;
}
