// SPDX-License-Identifier: GPL-2.0
/*
 * ra-import: bring trace-cmd trace.dat files and blktrace binary files into a
 * ratrace database. The format is told by content. An import is atomic: when
 * any file fails, the database is left as it was.
 *
 * The import runs in a child process, watched by the parent: libtraceevent
 * can crash on a damaged trace (a garbled event format), and a signal can end
 * the import at any point. The child's transaction then never commits, and
 * the parent names the file that was being read. A new database is built at
 * a temporary name and renamed into place only after its load committed
 * (ra_db_open_for_load()), so that even a kill of both processes leaves no
 * half database. The child dies with its parent and commits nothing then.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "decode.h"
#include "import.h"
#include "ra_analyze.h"
#include "ra_bigmem.h"
#include "ra_progress.h"
#include "ra_version.h"

#define EXIT_ERROR 2

/* The path the child is reading, in memory shared with the parent. */
static char *reading;
#define READING_MAX 4096


/* Events of one type a source held that ratrace does not store. */
struct skipped {
	char system[32];
	char name[64];
	uint64_t n;
};

/* One run to import: a trace.dat file, or the blktrace files of one trace. */
struct item {
	const struct ra_file_source *src;
	char *key;		/* NAME of NAME.blktrace.N, or the path */
	char **paths;
	int npaths;
};

struct imp {
	const char *output;
	const char *label;
	int verbose;
	struct ra_progress *progress;	/* the line on a terminal, or NULL */
	uint64_t pos_done, pos_total;	/* the source's position */
	bool analyze;
	struct item *items;
	int nitems;
	struct ra_db *db;
	struct ra_writer *w;
	struct ra_live *live;		/* the readahead pass, following the events stored */
	struct ra_block_live *bklive;	/* the block pass, beside it */
	struct ra_replay_live *rplive;	/* the replay's first pass, */
	struct ra_tapq *rpq;		/* on a thread of its own */
	uint64_t events;
	const char *current;
	uint64_t first_ts, last_ts;
	const struct item *item;	/* being imported */
	int64_t *runs;			/* the runs imported, in order */
	size_t nruns;
	struct skipped *skipped;	/* of the run being imported */
	int nskipped;
	bool skipped_nomem;
};

static const char usage_text[] =
	"usage: ra-import [options] -o DB FILE...\n"
	"\n"
	"Import trace-cmd trace.dat files and blktrace binary files into the ratrace\n"
	"database DB (created when missing). The format is told by content. A FILE may\n"
	"be a trace.dat, a per-CPU blktrace file (NAME.blktrace.N; the files of one NAME\n"
	"form one run), a blktrace NAME as blkparse takes it, or a 'blkparse -d' dump.\n"
	"\n"
	"  -o, --output DB     database to add the runs to (required)\n"
	"  -l, --label NAME    label of the imported runs\n"
	"      --no-analyze    store the events only (run ra-analyze later)\n"
	"  -q, --quiet         print errors only\n"
	"  -v, --verbose       say what is imported\n"
	"  -h, --help          this text\n"
	"      --version       print the version\n"
	"\n"
	"Exit status: 0 imported; 2 nothing imported (usage error, a file that cannot\n"
	"be read or parsed, a trace without the events ratrace uses); 128+N nothing\n"
	"imported, interrupted or killed by signal N.\n"
	"\n"
	"Examples:\n"
	"  ra-import -o run.db trace.dat\n"
	"  ra-import -o run.db --label nvme sda.blktrace.0 sda.blktrace.1\n"
	"  ra-import -o run.db sda            # sda.blktrace.* as blkparse -i sda\n";

/* A line the analysis says of what it did (-v). */
static void say_line(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

/* The one-line error on stderr; returns the exit status of an error. */
static int error_status(const char *msg)
{
	fprintf(stderr, "ra-import: %s\n", msg);
	return EXIT_ERROR;
}

static int add_path(struct item *it, const char *path)
{
	char **np = realloc(it->paths, (size_t)(it->npaths + 1) * sizeof(*np));

	if (!np)
		return -1;
	it->paths = np;
	it->paths[it->npaths] = strdup(path);
	return it->paths[it->npaths++] ? 0 : -1;
}

static struct item *find_or_add(struct imp *im, const struct ra_file_source *src, const char *key,
				size_t keylen)
{
	struct item *ni;

	for (int i = 0; i < im->nitems; i++)
		if (im->items[i].src == src && keylen && strlen(im->items[i].key) == keylen &&
		    strncmp(im->items[i].key, key, keylen) == 0)
			return &im->items[i];
	ni = realloc(im->items, (size_t)(im->nitems + 1) * sizeof(*ni));
	if (!ni)
		return NULL;
	im->items = ni;
	ni = &im->items[im->nitems++];
	memset(ni, 0, sizeof(*ni));
	ni->src = src;
	ni->key = keylen ? strndup(key, keylen) : strdup(key);
	return ni->key ? ni : NULL;
}

/* NAME given as blkparse takes it: NAME.blktrace.0, .1, ... */
static int add_blktrace_name(struct imp *im, const char *name)
{
	struct item *it = NULL;
	char **paths = NULL;
	int n, ret = 0;

	n = ra_blktrace_expand(name, &paths);
	if (n <= 0) {
		ra_set_error(RA_ERR_USAGE, "cannot open '%s': %s", name, strerror(ENOENT));
		return -1;
	}
	it = find_or_add(im, ra_file_source_find("blktrace"), name, strlen(name));
	for (int i = 0; i < n; i++) {
		if (ret == 0 && (!it || add_path(it, paths[i]) < 0)) {
			ra_set_error(RA_ERR_IO, "out of memory");
			ret = -1;
		}
		free(paths[i]);
	}
	free(paths);
	return ret;
}

static int read_head(const char *path, unsigned char *buf, size_t len, size_t *got)
{
	struct stat sb;
	ssize_t n;
	int fd;

	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		ra_set_error(RA_ERR_USAGE, "'%s' is a directory", path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ra_set_error(RA_ERR_USAGE, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, len);
	close(fd);
	if (n < 0) {
		ra_set_error(RA_ERR_USAGE, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	*got = (size_t)n;
	return 0;
}

static int classify(struct imp *im, const char *path)
{
	const struct ra_file_source *src;
	unsigned char head[64];
	struct item *it;
	size_t got, plen;

	if (access(path, F_OK) < 0 && errno == ENOENT)
		return add_blktrace_name(im, path);
	if (read_head(path, head, sizeof(head), &got) < 0)
		return -1;
	if (got == 0) {
		ra_set_error(RA_ERR_DATA, "'%s': empty file", path);
		return -1;
	}
	src = ra_file_source_probe(head, got);
	if (!src) {
		ra_set_error(RA_ERR_DATA, "'%s': neither a trace.dat nor a blktrace file", path);
		return -1;
	}
	plen = src->trace_name ? src->trace_name(path) : 0;
	it = find_or_add(im, src, path, plen);
	if (!it || add_path(it, path) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	return 0;
}

/* How far the source is through its files (a trace.dat's records, by bytes). */
static void sink_position(void *arg, uint64_t done, uint64_t total)
{
	struct imp *im = arg;

	im->pos_done = done;
	im->pos_total = total;
}

static int store_event(const struct ra_event *ev, void *arg)
{
	struct imp *im = arg;

	if (!ra_writer_total(im->w))
		im->first_ts = ev->ts_ns;
	im->last_ts = ev->ts_ns;
	if (ra_writer_add(im->w, ev) < 0)
		return -1;
	if ((++im->events & 0xffff) == 0)
		ra_progress_update(im->progress, im->current, im->events, im->pos_done,
				   im->pos_total);
	return 0;
}

/* Tracepoints: available when the file describes them, enabled when they occur. */
static int store_tracepoints(struct imp *im, int64_t run_id, bool (*has)(void *, int), void *ctx)
{
	for (int t = 1; t < RA_EV_MAX; t++) {
		bool avail;

		if (!ra_event_name(t))
			continue;
		avail = has ? has(ctx, t) : ra_writer_count(im->w, t) > 0;
		if (ra_db_add_tracepoint(im->db, run_id, ra_event_system(t), ra_event_name(t),
					 avail, ra_writer_count(im->w, t) > 0) < 0)
			return -1;
	}
	return 0;
}

/* Counts of one source merged by system and name (a trace.dat's buffers). */
static void note_skipped(const char *system, const char *name, uint64_t n, void *arg)
{
	struct imp *im = arg;
	struct skipped *s;

	for (int i = 0; i < im->nskipped; i++) {
		if (strcmp(im->skipped[i].system, system) == 0 &&
		    strcmp(im->skipped[i].name, name) == 0) {
			im->skipped[i].n += n;
			return;
		}
	}
	s = realloc(im->skipped, (size_t)(im->nskipped + 1) * sizeof(*s));
	if (!s) {
		im->skipped_nomem = true;
		return;
	}
	im->skipped = s;
	s = &im->skipped[im->nskipped++];
	snprintf(s->system, sizeof(s->system), "%s", system);
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->n = n;
}

static int cmp_skipped(const void *a, const void *b)
{
	const struct skipped *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The skipped events into skipped_events, most frequent first. */
static int store_skipped(struct imp *im, int64_t run_id)
{
	if (im->skipped_nomem) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (im->nskipped > 1)
		qsort(im->skipped, (size_t)im->nskipped, sizeof(*im->skipped), cmp_skipped);
	for (int i = 0; i < im->nskipped; i++)
		if (ra_db_add_skipped(im->db, run_id, im->skipped[i].system, im->skipped[i].name,
				      (int64_t)im->skipped[i].n) < 0)
			return -1;
	return 0;
}

/* "ra-import: 'x.dat': skipped 14012 events ratrace does not use: block_io_start 7000, ..." */
static void print_skipped(const struct imp *im, const char *path)
{
	uint64_t total = 0;

	for (int i = 0; i < im->nskipped; i++)
		total += im->skipped[i].n;
	if (!total)
		return;
	fprintf(stderr, "ra-import: '%s': skipped %llu event%s ratrace does not use:", path,
		(unsigned long long)total, total == 1 ? "" : "s");
	for (int i = 0; i < im->nskipped; i++)
		fprintf(stderr, "%s %s %llu", i ? "," : "", im->skipped[i].name,
			(unsigned long long)im->skipped[i].n);
	fputc('\n', stderr);
}

/* ---- the sink the file sources' imports fill (ra_import_sink) ---- */

static void sink_task(int pid, const char *comm, void *arg)
{
	struct imp *im = arg;

	ra_writer_note_task(im->w, pid, comm);
}

static void sink_namer(void *arg, const char *(*name)(int pid, void *ctx), void *ctx)
{
	struct imp *im = arg;

	ra_writer_set_namer(im->w, name, ctx);
}

static uint64_t sink_stored(void *arg)
{
	struct imp *im = arg;

	return ra_writer_total(im->w);
}

/* The passes that follow the events stored: the readahead pass, then the block pass. */
static int live_tap(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct imp *im = arg;

	ra_live_event(ev, seq, im->live);
	if (im->bklive)
		ra_block_live_event(ev, seq, im->bklive);
	if (im->rpq)
		ra_tapq_put(im->rpq, ev, seq);
	return 0;
}

static void live_free(struct imp *im)
{
	ra_tapq_end(im->rpq);
	im->rpq = NULL;
	ra_replay_live_free(im->rplive);
	im->rplive = NULL;
	ra_block_live_free(im->bklive);
	im->bklive = NULL;
	ra_live_free(im->live);
	im->live = NULL;
}

/* A run row and its writer; the run's metadata is known before the events. */
static int64_t sink_begin(void *arg, struct ra_run_info *info)
{
	struct imp *im = arg;
	const struct item *it = im->item;
	size_t len = 1;
	char *joined;
	int64_t run_id;

	for (int i = 0; i < it->npaths; i++)
		len += strlen(it->paths[i]) + 1;
	joined = calloc(1, len);
	if (!joined) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	for (int i = 0; i < it->npaths; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, it->paths[i]);
	}
	info->label = im->label;
	info->origin_path = joined;
	info->tool_version = RA_VERSION;
	run_id = ra_db_run_create(im->db, info);
	free(joined);
	if (run_id < 0 || !(im->w = ra_writer_alloc(im->db, run_id)))
		return -1;
	if (im->analyze) {
		/*
		 * A trace names no file sizes nor processes: the pass asks none.
		 * Whether it has block completions matters only once one came.
		 */
		struct ra_live_inputs in = { .page_size = info->page_size, .completions = true };

		live_free(im);
		im->live = ra_live_begin(im->db, run_id, &in);
		im->bklive = im->live ? ra_block_live_begin(im->db, run_id, im->live, &in) : NULL;
		/*
		 * The replay's first pass, what only the whole trace shows (the
		 * pages cached before it), follows too; the replay itself needs
		 * it whole and reads the stored events after the load.
		 */
		im->rplive = im->live ? ra_replay_live_begin(im->db, run_id, &in) : NULL;
		im->rpq = im->rplive ? ra_tapq_start(ra_replay_live_event, im->rplive) : NULL;
		if (!im->rpq) {
			ra_replay_live_free(im->rplive);
			im->rplive = NULL;
		}
		if (im->live)
			ra_writer_set_tap(im->w, live_tap, im);
		ra_set_error(RA_OK, "%s", "");	/* a pass not followed reads after the load */
	}
	im->current = it->paths[0];
	im->events = 0;
	im->pos_done = im->pos_total = 0;	/* until its source says */
	return run_id;
}

static int sink_end(void *arg, int64_t run_id, bool (*has)(void *, int), void *ctx)
{
	struct imp *im = arg;
	struct ra_run_end end = { .wall_ns = (int64_t)(im->last_ts - im->first_ts),
				  .exit_status = -1,
				  .trace_start_ns = (int64_t)im->first_ts,
				  .trace_end_ns = (int64_t)im->last_ts };

	if (store_skipped(im, run_id) < 0 || store_tracepoints(im, run_id, has, ctx) < 0 ||
	    ra_writer_finish(im->w) < 0 || ra_db_run_finish(im->db, run_id, &end) < 0)
		return -1;
	ra_tapq_end(im->rpq);	/* the replay's first pass has every event */
	im->rpq = NULL;
	if (im->analyze) {
		struct ra_analyze_opts ao = { .verbose = im->verbose, .notice = say_line,
					      .progress = im->progress, .live = im->live,
					      .block_live = im->bklive, .replay_live = im->rplive };
		int64_t *runs = realloc(im->runs, (im->nruns + 1) * sizeof(*runs));
		int ret;

		if (!runs) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		im->runs = runs;
		im->runs[im->nruns++] = run_id;
		ret = ra_analyze_in_load(im->db, run_id, &ao);
		ra_writer_set_tap(im->w, NULL, NULL);
		live_free(im);
		return ret;
	}
	return 0;
}

/* The models of the runs imported before the last, which pool them all now. */
static int refit_models(struct imp *im)
{
	struct ra_analyze_opts ao = { .verbose = im->verbose, .notice = say_line,
				      .progress = im->progress };

	for (size_t i = 0; i + 1 < im->nruns; i++)
		if (ra_analyze_model_in_load(im->db, im->runs[i], &ao) < 0)
			return -1;
	return 0;
}

static int import_item(struct imp *im, struct item *it)
{
	int ret;

	im->first_ts = im->last_ts = 0;
	im->nskipped = 0;
	im->skipped_nomem = false;
	if (reading)
		snprintf(reading, READING_MAX, "%s", it->paths[0]);
	{
		struct ra_import_sink sink = {
			.begin = sink_begin, .event = store_event, .task = sink_task,
			.namer = sink_namer, .skipped = note_skipped, .stored = sink_stored,
			.position = sink_position,
			.end = sink_end, .db = im->db, .arg = im,
		};

		im->item = it;
		ret = it->src->import((const char *const *)it->paths, it->npaths, &sink);
	}
	ra_progress_done(im->progress);
	if (im->w) {
		if (ret == 0 && im->verbose >= 0) {
			char line[160];

			fprintf(stderr, "ra-import: %llu events from '%s'\n",
				(unsigned long long)ra_writer_total(im->w), it->paths[0]);
			print_skipped(im, it->paths[0]);
			if (im->verbose > 0 && ra_big_describe(line, sizeof(line)))
				fprintf(stderr, "ra-import: %s\n", line);
		}
		ra_writer_set_tap(im->w, NULL, NULL);
		live_free(im);
		ra_writer_free(im->w);
		im->w = NULL;
	}
	return ret;
}

static int parse_args(struct imp *im, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "label", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 256 },
		{ "no-analyze", no_argument, NULL, 257 },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "o:l:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			im->output = optarg;
			break;
		case 'l':
			im->label = optarg;
			break;
		case 'q':
			im->verbose = -1;
			break;
		case 'v':
			im->verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 256:
			printf("ra-import (ratrace) %s\n", RA_VERSION);
			exit(0);
		case 257:
			im->analyze = false;
			break;
		default:
			fputs(usage_text, stderr);
			ra_set_error(RA_ERR_USAGE, "bad arguments");
			return -1;
		}
	}
	if (!im->output) {
		ra_set_error(RA_ERR_USAGE, "no output database (-o DB)");
		return -1;
	}
	if (optind == argc) {
		ra_set_error(RA_ERR_USAGE, "no file to import");
		return -1;
	}
	for (int i = optind; i < argc; i++)
		if (classify(im, argv[i]) < 0)
			return -1;
	return 0;
}

static void free_items(struct imp *im)
{
	free(im->skipped);
	for (int i = 0; i < im->nitems; i++) {
		for (int j = 0; j < im->items[i].npaths; j++)
			free(im->items[i].paths[j]);
		free(im->items[i].paths);
		free(im->items[i].key);
	}
	free(im->items);
}

static pid_t child;
static pid_t supervisor;	/* in the child: the parent that watches it, or 0 */

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* In the child: whether the parent that watches it is gone (its death kills the child). */
static bool orphaned(void)
{
	return supervisor && getppid() != supervisor;
}

/* Signals that the import's own code raises: a crash, blamed on the input. */
static bool crash_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGABRT || sig == SIGSYS || sig == SIGTRAP;
}

/* The exit status and the line for a child that died of @sig. */
static int child_signaled(int sig, const char *output, bool existed)
{
	const char *file = reading && reading[0] ? reading : "?";
	const char *state = existed ? "is as it was" : "removed";

	if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
		fprintf(stderr, "ra-import: interrupted; '%s' %s\n", output, state);
		return 128 + sig;
	}
	if (!crash_signal(sig)) {
		/* a kill from outside (the OOM killer, kill -9): not the input's fault */
		fprintf(stderr, "ra-import: the import was killed (SIG%s) while reading '%s'; '%s' %s\n",
			sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", file, output, state);
		return 128 + sig;
	}
	fprintf(stderr, "ra-import: '%s': the import crashed reading it (%s): corrupt input; '%s' %s\n",
		file, strsignal(sig), output, state);
	return EXIT_ERROR;
}

/*
 * Run the import in a child and wait for it. Returns the child's exit status,
 * or, when it died of a signal, 128 + the signal for an interruption or a
 * kill and EXIT_ERROR for a crash, after one line that says so.
 */
static int supervise(const char *output, bool *is_child)
{
	static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = forward };
	struct stat sb;
	bool existed = stat(output, &sb) == 0;
	pid_t self = getpid();
	int status;

	reading = mmap(NULL, READING_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		       0);
	if (reading == MAP_FAILED)
		reading = NULL;
	fflush(NULL);
	child = fork();
	if (child == 0) {
		/* dies with the parent, also when the parent went before this line */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != self)
			_exit(EXIT_ERROR);
		supervisor = self;
	}
	if (child <= 0) {
		*is_child = true;	/* or no child could be made: import here */
		return 0;
	}
	/* passed on to the child, but for signals ignored from the start */
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		struct sigaction old;

		if (sigaction(forwarded[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(forwarded[i], &sa, NULL);
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return EXIT_ERROR;
	if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == EXIT_ERROR))
		return WEXITSTATUS(status);
	ra_db_remove_stale(output);	/* the dead child's temporary database */
	if (WIFSIGNALED(status))
		return child_signaled(WTERMSIG(status), output, existed);
	/* a sanitizer that reports a crash ends the child with a status of its own */
	fprintf(stderr, "ra-import: '%s': the import failed reading it (exit status %d); '%s' %s\n",
		reading && reading[0] ? reading : "?", WEXITSTATUS(status), output,
		existed ? "is as it was" : "removed");
	return EXIT_ERROR;
}

int main(int argc, char **argv)
{
	struct imp im = { .analyze = true };
	int ret = EXIT_ERROR;
	bool is_child = false;

	ra_malloc_tune();
	/*
	 * One arena for the decoder and the store thread: apart, each keeps what
	 * the other freed (the passes' state at the end of a run of many
	 * windows: 9.7 MiB at the peak). ra-record keeps one per thread: its
	 * store thread shares the machine with the workload, and a lock taken by
	 * both threads cost it 2% more of the workload's time.
	 */
	mallopt(M_ARENA_MAX, 1);
	if (parse_args(&im, argc, argv) < 0) {
		ret = error_status(ra_last_error());
		goto out;
	}
	ret = supervise(im.output, &is_child);
	if (!is_child)
		goto out;
	ret = EXIT_ERROR;
	if (im.verbose >= 0 && isatty(STDERR_FILENO))
		im.progress = ra_progress_new(stderr, "ra-import");
	im.db = ra_db_open_for_load(im.output);
	if (!im.db) {
		ret = error_status(ra_last_error());
		goto out;
	}
	if (ra_db_load_begin(im.db) < 0)
		goto fail;
	for (int i = 0; i < im.nitems; i++) {
		if (import_item(&im, &im.items[i]) < 0)
			goto fail;
	}
	if (refit_models(&im) < 0)
		goto fail;
	if (orphaned()) {
		ra_set_error(RA_ERR_ENV, "the supervising process is gone; nothing imported");
		goto fail;
	}
	if (ra_db_load_commit(im.db) < 0)
		goto fail;
	ret = 0;
	goto close;
fail:
	ra_progress_done(im.progress);
	ret = error_status(ra_last_error());
	ra_db_load_abort(im.db);
close:
	if (ra_db_close(im.db) < 0 && ret == 0)
		ret = error_status(ra_last_error());
out:
	ra_progress_free(im.progress);
	free_items(&im);
	free(im.runs);
	return ret;
}
