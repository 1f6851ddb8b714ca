// SPDX-License-Identifier: GPL-2.0
/*
 * ra-record: run a workload and record its readahead, page-cache and block
 * events into a ratrace database.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "decode.h"
#include "trace.h"
#include "host.h"
#include "record.h"
#include "ra_analyze.h"
#include "ra_model.h"
#include "ra_version.h"

#define EXIT_WORKLOAD	1	/* recorded; the workload failed */
#define EXIT_ERROR	2	/* nothing recorded */
#define DEFAULT_BUFFER_KB 16384
#define MAX_DEVS	16
#define INFLIGHT_WAIT_MS 3000
#define TICK_NS		200000000	/* how often settings and open files are read */
#define MAX_KERNELS	16
#define MAX_GUEST_ARGS	128

struct snapdev {
	struct ra_blockdev bd;
	const char *role;
	struct ra_dev_snapshot before, after;
	bool have_before, have_after;
};

/* --read-ahead-kb DEV=KB */
struct setreq {
	char dev[64];
	char value[32];
};

struct rec {
	/* options */
	const char *output;
	const char *label;
	const char *tmpdir;
	const char *events;
	int source;			/* RA_SOURCE_* */
	int probe_args;			/* RA_DYN_ARGS_* */
	bool said_sources;		/* the lines about missing events were printed */
	size_t buffer_kb;
	bool drop_caches;
	const char *evict[16];		/* --evict paths */
	int nevict;
	bool capture;
	bool analyze;
	int verbose;
	char **argv;
	int repeat;
	char *sweep_kb;			/* "16,128,512", or "auto[:LO-HI]" */
	bool sweep_auto;
	struct ra_sweep_limits sweep_limits;
	char *sweep_env;		/* "NAME=v1,v2" */
	char *throttle;			/* "DEV=iops:N,bps:N" */
	int wait_settings;		/* -1 refuse a held setting, 0 wait, N wait N s */
	const char *filter_arg[MAX_DEVS];
	int nfilter;
	struct setreq setreq[MAX_DEVS];
	int nsetreq;
	const char *run_label;		/* label of the run being recorded */
	const char *side;		/* --event-source both: "tracepoint" or "kprobe", else NULL */
	/* --kernel: the runs are recorded in guests */
	const char *kernels[MAX_KERNELS];
	int nkernels;
	const char *kernel_files;
	char *guest_args[MAX_GUEST_ARGS];	/* the options the guest's recorder gets */
	int nguest;
	/* what the runs trace and change */
	struct ra_fsmap *fsmap;
	struct ra_target filter[MAX_DEVS];
	struct ra_target set_target[MAX_DEVS];
	struct ra_scope scope;
	struct ra_settings *settings;
	struct ra_throttle thr;
	struct snapdev *snaps;
	int nsnaps;
	/* state */
	struct ra_db *db;
	struct ra_tracer *tr;
	struct ra_names *names;
	bool mounted_tracefs;
	struct ra_workload wl;
	bool spawned;
	int sigfd;
	bool interrupted;
	int forwarded_sig;
	int64_t start_mono, end_mono, start_unix, last_tick;
	int64_t run_id;			/* the run being stored */
	int64_t tick_ns, nticks;		/* what the looks while the workload ran cost */
	struct ra_vmstat vm_before, vm_after;
	struct ra_sysinfo si;
	int64_t last_run;		/* the run stored last */
	int64_t first_run;		/* the run stored first, 0 before */
	int64_t *runs;			/* every run stored, analysed, in order */
	size_t nruns;
	int rep;			/* the repeat of this run, from 1 */
	const char *env_pair;		/* its --sweep-env "NAME=value", NULL for none */
	/* replay */
	struct ra_writer *w;
};

static const char usage_text[] =
	"usage: ra-record [options] -o DB -- CMD [ARGS...]\n"
	"\n"
	"Run CMD and record the kernel's readahead, page-cache and block I/O events\n"
	"while it runs into the ratrace database DB (created when missing).\n"
	"\n"
	"  -o, --output DB             database to add the run to (required)\n"
	"  -l, --label NAME            label of the run (run sets are grouped by label)\n"
	"  -d, --device DEV            record only this block device and the file systems\n"
	"                              on it, with the other devices those hold data on\n"
	"                              (name, /dev path or MAJ:MIN; the 0:N of a mounted\n"
	"                              btrfs names its devices; repeatable)\n"
	"      --read-ahead-kb DEV=KB  set the readahead of DEV and of the file systems on\n"
	"                              it (its disk's queue/read_ahead_kb, and the bdi of\n"
	"                              a file system that has one of its own, as btrfs)\n"
	"                              for the run, restore after\n"
	"      --wait-settings[=SECONDS]\n"
	"                              wait while another recorder holds a setting to\n"
	"                              change (default: refuse; no SECONDS: no limit)\n"
	"      --drop-caches           drop the page cache before the run (cold start)\n"
	"      --evict PATH            evict the pages of PATH (a file, or the files under a\n"
	"                              directory) before each run, instead of the whole\n"
	"                              page cache (POSIX_FADV_DONTNEED; repeatable)\n"
	"      --repeat N              record N runs, each from a cold page cache\n"
	"      --sweep read_ahead_kb=V1,V2,...\n"
	"                              one run set per value on the --device devices,\n"
	"                              labelled read_ahead_kb=V\n"
	"      --sweep read_ahead_kb=auto[:LO-HI]\n"
	"                              choose the values (16-4096): record until the advice\n"
	"                              is decided, then print it\n"
	"      --sweep-env NAME=V1,V2  one run set per value of the workload's variable NAME\n"
	"      --throttle DEV=iops:N,bps:N\n"
	"                              emulate a slow device: the workload's reads of DEV are\n"
	"                              throttled (blkio cgroup, removed after)\n"
	"      --kernel K              record under kernel K instead, booted in qemu: a\n"
	"                              Debian series (6.1, 6.12, 6.18, 7.3: its newest\n"
	"                              cloud-amd64 kernel, fetched with apt and cached),\n"
	"                              a version of one (6.12.85, 6.1.0-50) or a kernel\n"
	"                              image file; repeatable, one guest at a time; the\n"
	"                              runs are labelled kernel=K\n"
	"      --kernel-files DIR      the guest's disk (vda) is made from DIR and mounted\n"
	"                              at DIR inside, so CMD reads the same paths there\n"
	"                              (needed with --kernel; -d defaults to vda)\n"
	"  -e, --events LIST           tracepoint systems or SYSTEM:EVENT names to record\n"
	"                              (default readahead,filemap,block and the WILLNEED\n"
	"                              syscalls sys_enter_fadvise64, sys_enter_readahead,\n"
	"                              sys_enter_madvise)\n"
	"      --event-source auto|tracepoint|dynamic|both\n"
	"                              where the readahead and access events come from:\n"
	"                              auto takes the tracepoint and, on kernels without it\n"
	"                              (readahead:* before 6.18), a kprobe made from the\n"
	"                              kernel's BTF; tracepoint and dynamic force one; both\n"
	"                              records both and stores two runs of the recording\n"
	"      --probe-args auto|btf-names|btf-offsets\n"
	"                              how the kprobes read their fields: BTF names the\n"
	"                              kernel resolves (6.10+), or offsets read from BTF\n"
	"                              (auto: names when the kernel takes them)\n"
	"  -b, --buffer-kb KB          ring buffer per CPU (default 16384)\n"
	"      --tmpdir DIR            where raw buffers are kept during the run (/tmp)\n"
	"      --no-capture            do not store the workload's output\n"
	"      --no-analyze            store the events only (run ra-analyze later)\n"
	"  -q, --quiet                 print errors only\n"
	"  -v, --verbose               say what is set up\n"
	"  -h, --help                  this text\n"
	"      --version               print the version\n"
	"\n"
	"Exit status: 0 recorded and CMD succeeded; 1 recorded, CMD failed; 2 nothing\n"
	"recorded (usage, input or environment error, a setting held by another\n"
	"recorder); 128+N interrupted by signal N (recorded, unless it came while\n"
	"waiting for a setting).\n"
	"\n"
	"Examples:\n"
	"  ra-record -o run.db -d loop0 --read-ahead-kb loop0=512 --drop-caches \\\n"
	"            -- dd if=/mnt/file of=/dev/null bs=4k\n"
	"  ra-record -o runs.db --label ra128 -- fio --output-format=json job.fio\n"
	"  ra-record -o k.db --kernel 6.1 --kernel 6.18 --kernel-files /srv/data \\\n"
	"            --drop-caches -- dd if=/srv/data/file of=/dev/null bs=4k\n";

/* A line the analysis says of what it did (-v). */
static void say_line(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

/* The one-line error on stderr; returns the exit status of an error. */
static int error_status(const char *msg)
{
	fprintf(stderr, "ra-record: %s\n", msg);
	return EXIT_ERROR;
}

static void notice(const char *msg, void *arg)
{
	const struct rec *r = arg;

	if (r->verbose >= 0)
		fprintf(stderr, "ra-record: %s\n", msg);
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- options ---- */

static int add_setting(struct rec *r, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct setreq *s;
	char *end;
	long kb;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(s->dev)) {
		ra_set_error(RA_ERR_USAGE, "bad --read-ahead-kb '%s' (want DEV=KB)", arg);
		return -1;
	}
	kb = strtol(eq + 1, &end, 10);
	if (!eq[1] || *end || kb < 0) {
		ra_set_error(RA_ERR_USAGE, "bad read_ahead_kb value in '%s'", arg);
		return -1;
	}
	if (r->nsetreq == MAX_DEVS) {
		ra_set_error(RA_ERR_USAGE, "too many --read-ahead-kb settings");
		return -1;
	}
	s = &r->setreq[r->nsetreq++];
	snprintf(s->dev, sizeof(s->dev), "%.*s", (int)(eq - arg), arg);
	snprintf(s->value, sizeof(s->value), "%ld", kb);
	return 0;
}

static int add_filter(struct rec *r, const char *arg)
{
	if (r->nfilter == MAX_DEVS) {
		ra_set_error(RA_ERR_USAGE, "too many --device options");
		return -1;
	}
	r->filter_arg[r->nfilter++] = arg;
	return 0;
}

static int add_evict(struct rec *r, const char *arg)
{
	if (access(arg, R_OK) < 0) {
		ra_set_error(RA_ERR_USAGE, "cannot evict '%s': %s", arg, strerror(errno));
		return -1;
	}
	if (r->nevict == (int)(sizeof(r->evict) / sizeof(r->evict[0]))) {
		ra_set_error(RA_ERR_USAGE, "too many --evict paths");
		return -1;
	}
	r->evict[r->nevict++] = arg;
	return 0;
}

static int set_wait(struct rec *r, const char *arg)
{
	char *end;
	long s;

	if (!arg) {
		r->wait_settings = 0;
		return 0;
	}
	s = strtol(arg, &end, 10);
	if (!*arg || *end || s < 1 || s > 86400) {
		ra_set_error(RA_ERR_USAGE, "bad --wait-settings '%s' (want SECONDS, 1 to 86400)",
			     arg);
		return -1;
	}
	r->wait_settings = (int)s;
	return 0;
}

enum {
	OPT_RA_KB = 256, OPT_DROP, OPT_TMPDIR, OPT_NOCAPTURE, OPT_NOANALYZE, OPT_VERSION,
	OPT_REPEAT, OPT_SWEEP, OPT_SWEEP_ENV, OPT_THROTTLE, OPT_EVICT, OPT_WAIT, OPT_KERNEL,
	OPT_KERNEL_FILES, OPT_SOURCE, OPT_PROBE_ARGS,
};

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "label", required_argument, NULL, 'l' },
	{ "device", required_argument, NULL, 'd' },
	{ "read-ahead-kb", required_argument, NULL, OPT_RA_KB },
	{ "wait-settings", optional_argument, NULL, OPT_WAIT },
	{ "drop-caches", no_argument, NULL, OPT_DROP },
	{ "evict", required_argument, NULL, OPT_EVICT },
	{ "buffer-kb", required_argument, NULL, 'b' },
	{ "events", required_argument, NULL, 'e' },
	{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
	{ "no-capture", no_argument, NULL, OPT_NOCAPTURE },
	{ "no-analyze", no_argument, NULL, OPT_NOANALYZE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "sweep-env", required_argument, NULL, OPT_SWEEP_ENV },
	{ "throttle", required_argument, NULL, OPT_THROTTLE },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "kernel-files", required_argument, NULL, OPT_KERNEL_FILES },
	{ "event-source", required_argument, NULL, OPT_SOURCE },
	{ "probe-args", required_argument, NULL, OPT_PROBE_ARGS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

/* The options that take a number or a spec; 0, -1 bad. */
static int parse_value(struct rec *r, int c, char *arg)
{
	char *end;

	switch (c) {
	case 'b':
		r->buffer_kb = strtoul(arg, &end, 10);
		if (*end || r->buffer_kb < 4)
			break;
		return 0;
	case OPT_REPEAT:
		r->repeat = (int)strtol(arg, &end, 10);
		if (*end || r->repeat < 1 || r->repeat > 1000)
			break;
		return 0;
	case OPT_SWEEP:
		if (strncmp(arg, "read_ahead_kb=", 14) != 0 || !arg[14]) {
			ra_set_error(RA_ERR_USAGE,
				     "bad --sweep '%s' (want read_ahead_kb=V1,V2,...)", arg);
			return -1;
		}
		r->sweep_kb = arg + 14;
		r->sweep_auto = strncmp(r->sweep_kb, "auto", 4) == 0;
		return r->sweep_auto ? ra_sweep_parse(r->sweep_kb, &r->sweep_limits) : 0;
	case OPT_SWEEP_ENV:
		if (!strchr(arg, '=') || arg[0] == '=') {
			ra_set_error(RA_ERR_USAGE, "bad --sweep-env '%s' (want NAME=V1,V2,...)",
				     arg);
			return -1;
		}
		r->sweep_env = arg;
		return 0;
	}
	ra_set_error(RA_ERR_USAGE, "bad --%s '%s'", c == 'b' ? "buffer-kb" : "repeat", arg);
	return -1;
}

/* --event-source and --probe-args; 0, -1 bad */
static int parse_source(struct rec *r, int c, const char *arg)
{
	static const char *const sources[] = { "auto", "tracepoint", "dynamic", "both", NULL };
	static const char *const styles[] = { "auto", "btf-names", "btf-offsets", NULL };
	const char *const *names = c == OPT_SOURCE ? sources : styles;

	for (int i = 0; names[i]; i++) {
		if (strcmp(arg, names[i]) != 0)
			continue;
		if (c == OPT_SOURCE)
			r->source = i;	/* RA_SOURCE_AUTO, _TRACEPOINT, _DYNAMIC, _BOTH */
		else
			r->probe_args = i;	/* RA_DYN_ARGS_AUTO, _NAMES, _OFFSETS */
		return 0;
	}
	ra_set_error(RA_ERR_USAGE, "bad --%s '%s' (want %s)",
		     c == OPT_SOURCE ? "event-source" : "probe-args", arg,
		     c == OPT_SOURCE ? "auto, tracepoint, dynamic or both" :
				       "auto, btf-names or btf-offsets");
	return -1;
}

static int parse_opt(struct rec *r, int c, char *arg)
{
	switch (c) {
	case 'o':
		r->output = arg;
		return 0;
	case 'l':
		r->label = arg;
		return 0;
	case 'd':
		return add_filter(r, arg);
	case OPT_RA_KB:
		return add_setting(r, arg);
	case OPT_WAIT:
		return set_wait(r, arg);
	case OPT_DROP:
		r->drop_caches = true;
		return 0;
	case OPT_EVICT:
		return add_evict(r, arg);
	case 'e':
		r->events = arg;
		return ra_events_validate(arg);
	case OPT_TMPDIR:
		r->tmpdir = arg;
		return 0;
	case OPT_NOCAPTURE:
		r->capture = false;
		return 0;
	case OPT_NOANALYZE:
		r->analyze = false;
		return 0;
	case OPT_THROTTLE:
		r->throttle = arg;
		return 0;
	case OPT_KERNEL:
		if (r->nkernels == MAX_KERNELS) {
			ra_set_error(RA_ERR_USAGE, "too many --kernel options");
			return -1;
		}
		r->kernels[r->nkernels++] = arg;
		return 0;
	case OPT_KERNEL_FILES:
		r->kernel_files = arg;
		return 0;
	case 'q':
		r->verbose = -1;
		return 0;
	case 'v':
		r->verbose++;
		return 0;
	case 'h':
		fputs(usage_text, stdout);
		exit(0);
	case OPT_VERSION:
		printf("ra-record (ratrace) %s\n", RA_VERSION);
		exit(0);
	case 'b':
	case OPT_REPEAT:
	case OPT_SWEEP:
	case OPT_SWEEP_ENV:
		return parse_value(r, c, arg);
	case OPT_SOURCE:
	case OPT_PROBE_ARGS:
		return parse_source(r, c, arg);
	}
	fputs(usage_text, stderr);
	ra_set_error(RA_ERR_USAGE, "bad arguments");
	return -1;
}

/*
 * The options a guest's recorder gets as they were given: those of the runs
 * (devices, settings, sweeps, caches, events). The database, the label, the
 * kernels and the host's temporary and waiting options stay here.
 */
static int note_guest_opt(struct rec *r, int c, const char *arg)
{
	static const int guest_opts[] = { 'd', OPT_RA_KB, OPT_DROP, OPT_EVICT, 'b', 'e',
					  OPT_NOCAPTURE, OPT_REPEAT, OPT_SWEEP, OPT_SWEEP_ENV,
					  OPT_THROTTLE, OPT_SOURCE, OPT_PROBE_ARGS, 'q', 'v' };
	const struct option *o;
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(guest_opts) / sizeof(guest_opts[0]); i++)
		if (guest_opts[i] == c)
			break;
	if (i == sizeof(guest_opts) / sizeof(guest_opts[0]))
		return 0;
	for (o = longopts; o->name && o->val != c; o++)
		;
	if (!o->name || r->nguest + 2 >= MAX_GUEST_ARGS) {
		ra_set_error(RA_ERR_USAGE, "too many options for a guest");
		return -1;
	}
	snprintf(name, sizeof(name), "--%s", o->name);
	if (!(r->guest_args[r->nguest++] = strdup(name)) ||
	    (arg && !(r->guest_args[r->nguest++] = strdup(arg)))) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	return 0;
}

static int check_kernel_args(struct rec *r)
{
	struct stat st;

	if (!r->nkernels && r->kernel_files) {
		ra_set_error(RA_ERR_USAGE, "--kernel-files is for --kernel");
		return -1;
	}
	if (!r->nkernels)
		return 0;
	if (!r->kernel_files) {
		ra_set_error(RA_ERR_USAGE, "--kernel needs the guest's files: --kernel-files DIR");
		return -1;
	}
	if (stat(r->kernel_files, &st) < 0 || !S_ISDIR(st.st_mode)) {
		ra_set_error(RA_ERR_USAGE, "--kernel-files '%s' is not a directory", r->kernel_files);
		return -1;
	}
	if (r->wait_settings != -1)
		fprintf(stderr, "ra-record: --wait-settings is for recording here: a guest's"
			" settings are its own\n");
	return 0;
}

static int parse_args(struct rec *r, int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "+o:l:d:b:e:qvh", longopts, NULL)) != -1)
		if (parse_opt(r, c, optarg) < 0 || note_guest_opt(r, c, optarg) < 0)
			return -1;
	if (!r->output) {
		ra_set_error(RA_ERR_USAGE, "no output database (-o DB)");
		return -1;
	}
	r->argv = argv + optind;
	if (check_kernel_args(r) < 0)
		return -1;
	if (r->sweep_kb && !r->nfilter && !r->nkernels) {
		ra_set_error(RA_ERR_USAGE, "--sweep read_ahead_kb needs the devices: --device DEV");
		return -1;
	}
	if (r->sweep_kb && r->nsetreq) {
		ra_set_error(RA_ERR_USAGE,
			     "--sweep read_ahead_kb and --read-ahead-kb exclude each other");
		return -1;
	}
	if (r->sweep_auto && (!r->analyze || r->sweep_env || r->repeat > 1)) {
		ra_set_error(RA_ERR_USAGE, "--sweep read_ahead_kb=auto analyses every run and"
			     " chooses its repeats: not with --no-analyze, --sweep-env or --repeat");
		return -1;
	}
	return ra_workload_check(r->argv);
}

/* ---- what the runs trace and change ---- */

static int resolve_targets(struct rec *r)
{
	r->fsmap = ra_fsmap_read();
	if (!r->fsmap)
		return -1;
	for (int i = 0; i < r->nfilter; i++)
		if (ra_target_resolve(r->fsmap, r->filter_arg[i], &r->filter[i]) < 0)
			return -1;
	for (int i = 0; i < r->nsetreq; i++)
		if (ra_target_resolve(r->fsmap, r->setreq[i].dev, &r->set_target[i]) < 0)
			return -1;
	ra_scope_init(&r->scope, r->fsmap, r->filter, r->nfilter);
	return 0;
}

static int add_snap(struct rec *r, const struct ra_blockdev *bd, const char *role)
{
	struct snapdev *nv;

	for (int j = 0; j < r->nsnaps; j++)
		if (r->snaps[j].bd.dev == bd->dev)
			return 0;
	nv = realloc(r->snaps, (size_t)(r->nsnaps + 1) * sizeof(*nv));
	if (!nv) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	r->snaps = nv;
	memset(&r->snaps[r->nsnaps], 0, sizeof(*nv));
	r->snaps[r->nsnaps].bd = *bd;
	r->snaps[r->nsnaps++].role = role;
	return 0;
}

/* The devices snapshot: the named ones and their members, else every disk. */
static int collect_snapdevs(struct rec *r)
{
	struct ra_blockdev *all = NULL;
	int m, ret = 0;

	for (int i = 0; i < r->nfilter; i++)
		for (int j = 0; j < r->filter[i].nbd; j++)
			if (add_snap(r, &r->filter[i].bd[j], "filter") < 0)
				return -1;
	for (int i = 0; i < r->nfilter; i++)
		for (int j = 0; j < r->filter[i].nmember; j++)
			if (add_snap(r, &r->filter[i].member[j], "member") < 0)
				return -1;
	for (int i = 0; i < r->nsetreq; i++)
		for (int j = 0; j < r->set_target[i].nbd; j++)
			if (add_snap(r, &r->set_target[i].bd[j], "setting") < 0)
				return -1;
	if (r->nfilter)
		return 0;
	m = ra_blockdev_all(&all);
	for (int i = 0; i < m && ret == 0; i++)
		ret = add_snap(r, &all[i], "traced");
	free(all);
	return ret;
}

/* The settings of the runs on target @t: @value, the sweep's (@sweep), or watched (NULL). */
static int target_settings(struct rec *r, const struct ra_target *t, const char *value,
			   bool sweep)
{
	for (int j = 0; j < t->nbd; j++)
		if (ra_settings_disk(r->settings, &t->bd[j], value, sweep) < 0)
			return -1;
	for (int j = 0; j < t->nfs; j++)
		if (ra_settings_fs(r->settings, t->fs[j], value, sweep) < 0)
			return -1;
	return 0;
}

/*
 * What the runs set (--read-ahead-kb, --sweep on the --device devices), and
 * what they watch: the disks snapshot and the bdi of every file system in
 * scope (every mounted one without --device) that has one of its own.
 */
static int build_settings(struct rec *r)
{
	r->settings = ra_settings_alloc(notice, r, r->verbose > 0);
	if (!r->settings)
		return -1;
	for (int i = 0; i < r->nsetreq; i++)
		if (target_settings(r, &r->set_target[i], r->setreq[i].value, false) < 0)
			return -1;
	for (int i = 0; r->sweep_kb && i < r->nfilter; i++)
		if (target_settings(r, &r->filter[i], NULL, true) < 0)
			return -1;
	for (int i = 0; i < r->nsnaps; i++)
		if (ra_settings_disk(r->settings, &r->snaps[i].bd, NULL, false) < 0)
			return -1;
	for (int i = 0; i < (r->nfilter ? r->scope.nfs : r->fsmap->nfs); i++) {
		const struct ra_fs *fs = r->nfilter ? r->scope.fs[i] : &r->fsmap->fs[i];

		if (ra_settings_fs(r->settings, fs, NULL, false) < 0)
			return -1;
	}
	return 0;
}

/* Say which file systems on the devices cannot have their readahead set. */
static void warn_unset(struct rec *r)
{
	for (int i = 0; i < r->nsetreq + (r->sweep_kb ? r->nfilter : 0); i++) {
		const struct ra_target *t = i < r->nsetreq ? &r->set_target[i] :
							    &r->filter[i - r->nsetreq];

		for (int j = 0; j < t->nfs; j++) {
			const struct ra_fs *fs = t->fs[j];

			if (!fs->ra_path[0] && !fs->nlayers && r->verbose >= 0)
				fprintf(stderr, "ra-record: warning: which bdi governs the"
					" readahead of the %s file system at '%s' is not known:"
					" only the queue/read_ahead_kb of its disk is set\n",
					fs->mnt->fstype, fs->mnt->point);
		}
	}
}

/* -v: the devices recorded because a file system on a named one holds data on them. */
static void say_members(struct rec *r)
{
	for (int i = 0; i < r->nfilter && r->verbose > 0; i++)
		for (int j = 0; j < r->filter[i].nmember; j++)
			fprintf(stderr, "ra-record: recording %s too: a file system on '%s'"
				" holds data on it\n", r->filter[i].member[j].name,
				r->filter[i].arg);
}

static int prepare(struct rec *r)
{
	if (resolve_targets(r) < 0 || collect_snapdevs(r) < 0 || build_settings(r) < 0)
		return -1;
	warn_unset(r);
	say_members(r);
	return ra_settings_lock(r->settings, r->wait_settings, r->sigfd);
}

/* ---- one run ---- */

static int setup_tracer(struct rec *r)
{
	struct ra_tracer_opts o = { 0 };

	o.buffer_kb = r->buffer_kb;
	o.events = r->events;
	o.dyn_mode = r->source;
	o.dyn_args = r->probe_args;
	o.fs_devs = r->scope.fs_devs;
	o.nfs_devs = r->scope.nfs_devs;
	o.blk = r->scope.blk;
	o.nblk = r->scope.nblk;
	o.notrace_pid = getpid();
	o.tmpdir = r->tmpdir;
	o.verbose = r->verbose;
	o.notice = notice;
	o.notice_arg = r;
	if (ra_tracefs_mount(&r->mounted_tracefs) < 0)
		return -1;
	ra_tracer_cleanup_stale(r->verbose > 0 ? notice : NULL, r);
	r->tr = ra_tracer_create(&o);
	if (!r->tr)
		return -1;
	/* once for the recording: every run of it has the same kernel */
	if (!r->said_sources && r->verbose >= 0)
		ra_tracer_notices(r->tr, notice, r);
	r->said_sources = true;
	return 0;
}

/*
 * Names of the files of the traced file systems, as they are before the run,
 * for the files the workload deletes. Only with --device: without it every
 * file system is traced, and a walk of all of them before each run costs
 * seconds; the files held open during the run and the walk after it name
 * the rest.
 */
static int setup_names(struct rec *r)
{
	r->names = ra_names_alloc(r->fsmap, r->scope.fs_devs, r->nfilter ? r->scope.nfs_devs : -1);
	if (!r->names)
		return -1;
	return r->nfilter ? ra_names_walk(r->names) : 0;
}

static void snapshot(struct rec *r, bool after)
{
	for (int i = 0; i < r->nsnaps; i++) {
		struct snapdev *s = &r->snaps[i];

		if (after)
			s->have_after = ra_blockdev_snapshot(&s->bd, &s->after) == 0;
		else
			s->have_before = ra_blockdev_snapshot(&s->bd, &s->before) == 0;
	}
	ra_vmstat_read(after ? &r->vm_after : &r->vm_before);
}

/* Let readahead I/O still in flight finish so that the counters settle. */
static void wait_inflight(struct rec *r)
{
	for (int waited = 0; waited < INFLIGHT_WAIT_MS; waited += 10) {
		int64_t busy = 0;

		for (int i = 0; i < r->nsnaps; i++) {
			int64_t n = ra_blockdev_inflight(&r->snaps[i].bd);

			busy += n > 0 ? n : 0;
		}
		if (!busy)
			return;
		usleep(10000);
	}
}

static void handle_signal(struct rec *r)
{
	struct signalfd_siginfo si;
	int status;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (!r->wl.reaped && waitpid(r->wl.pid, &status, WNOHANG) == r->wl.pid) {
				r->wl.status = status;
				r->wl.reaped = true;
			}
			continue;
		}
		r->interrupted = true;
		r->forwarded_sig = (int)si.ssi_signo;
		/* A terminal's Ctrl-C reached the workload already (same process group). */
		if (si.ssi_code != SI_KERNEL && r->spawned && r->wl.pid > 0 && !r->wl.reaped)
			kill(r->wl.pid, (int)si.ssi_signo);
		if (r->verbose >= 0)
			fprintf(stderr, "ra-record: %s: %s\n", strsignal((int)si.ssi_signo),
				r->spawned ? "stopping the workload, keeping the trace" :
					     "stopping before the next run");
	}
}

/* A signal that came while no workload ran (setting up, storing): no more runs. */
static bool stop_requested(struct rec *r)
{
	handle_signal(r);
	return r->interrupted;
}

/* Every TICK_NS while the workload runs: settings changed, files opened. */
static void tick(struct rec *r, bool force)
{
	int64_t now = clock_ns(CLOCK_MONOTONIC);

	if (!force && now - r->last_tick < TICK_NS)
		return;
	r->last_tick = now;
	ra_settings_check(r->settings, now);
	if (!r->wl.reaped)
		ra_names_scan(r->names, r->wl.pid);
	r->tick_ns += clock_ns(CLOCK_MONOTONIC) - now;
	r->nticks++;
}

static int record_loop(struct rec *r)
{
	int ncpus = ra_tracer_ncpus(r->tr);
	struct pollfd *pfd = calloc((size_t)ncpus + 3, sizeof(*pfd));
	int n;

	if (!pfd) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	while (!r->wl.reaped) {
		for (n = 0; n < ncpus; n++)
			pfd[n] = (struct pollfd){ .fd = ra_tracer_fd(r->tr, n), .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = r->sigfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = r->wl.out_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = r->wl.errout_fd, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, TICK_NS / 1000000) < 0 && errno != EINTR)
			break;
		if (ra_tracer_drain(r->tr) < 0) {
			free(pfd);
			return -1;
		}
		if (r->wl.out_fd >= 0 && pfd[ncpus + 1].revents)
			ra_workload_pump(&r->wl, r->wl.out_fd);
		if (r->wl.errout_fd >= 0 && pfd[ncpus + 2].revents)
			ra_workload_pump(&r->wl, r->wl.errout_fd);
		if (pfd[ncpus].revents)
			handle_signal(r);
		tick(r, false);
	}
	free(pfd);
	r->end_mono = clock_ns(CLOCK_MONOTONIC);
	/* Output the workload wrote just before it ended; do not wait for its children. */
	if (r->wl.out_fd >= 0)
		ra_workload_pump(&r->wl, r->wl.out_fd);
	if (r->wl.errout_fd >= 0)
		ra_workload_pump(&r->wl, r->wl.errout_fd);
	return 0;
}

static int run_workload(struct rec *r)
{
	r->wl.cgroup_procs = r->thr.cgroup[0] ? r->thr.procs : NULL;
	if (ra_workload_spawn(&r->wl, r->argv, r->capture) < 0)
		return -1;
	r->spawned = true;
	if (ra_tracer_start(r->tr) < 0)
		return -1;
	snapshot(r, false);
	r->start_unix = clock_ns(CLOCK_REALTIME);
	r->start_mono = clock_ns(CLOCK_MONOTONIC);
	r->last_tick = r->start_mono;
	if (ra_workload_start(&r->wl) < 0)
		return -1;
	if (record_loop(r) < 0)
		return -1;
	tick(r, true);		/* the settings once more, before they are put back */
	wait_inflight(r);
	snapshot(r, true);
	return ra_tracer_stop(r->tr);
}

/* ---- storing ---- */

static void read_proc_comm(int pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* A task the events do not name: the kernel's saved names, else /proc. */
static const char *name_task(int pid, void *arg)
{
	static char buf[64];
	struct rec *r = arg;
	const char *comm = ra_tracer_comm(r->tr, pid);

	if (comm)
		return comm;
	read_proc_comm(pid, buf, sizeof(buf));
	return buf[0] ? buf : NULL;
}

/* The process of each task the run names (tasks the trace does not name are skipped). */
static int store_tgid(int pid, int tgid, void *arg)
{
	struct rec *r = arg;

	return ra_db_set_task_tgid(r->db, r->run_id, pid, tgid);
}

static int store_event(const struct ra_event *ev, void *arg)
{
	struct rec *r = arg;

	return ra_scope_keep(&r->scope, ev) ? ra_writer_add(r->w, ev) : 0;
}

/* The file systems of the run and the readahead setting in force for each. */
static int store_filesystems(struct rec *r, int64_t run_id)
{
	struct ra_scope_store o = { .db = r->db, .run_id = run_id, .settings = r->settings,
				    .names = r->names, .notice = notice, .arg = r };

	return ra_scope_store(&r->scope, &o);
}

/* What this run varied that no other row holds: its --sweep-env value and repeat. */
static int store_params(struct rec *r, int64_t run_id)
{
	char rep[16];

	if (r->env_pair) {
		size_t nl = strcspn(r->env_pair, "=");
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)nl, r->env_pair);
		if (ra_db_add_param(r->db, run_id, "env", name, r->env_pair + nl + 1) < 0)
			return -1;
	}
	if (r->side && ra_db_add_param(r->db, run_id, "events", NULL, r->side) < 0)
		return -1;
	snprintf(rep, sizeof(rep), "%d", r->rep ? r->rep : 1);
	return ra_db_add_param(r->db, run_id, "repeat", NULL, rep);
}

static int store_meta(struct rec *r, int64_t run_id)
{
	for (int i = 0; i < r->nsnaps; i++) {
		struct snapdev *s = &r->snaps[i];
		struct ra_db_device d = {
			.dev = s->bd.dev, .name = s->bd.name, .role = s->role, .disk = s->bd.parent,
			.start_sector = (int64_t)s->bd.start,
			.nr_sectors = s->bd.nr_sectors ? (int64_t)s->bd.nr_sectors : -1,
		};

		if (ra_db_add_device(r->db, run_id, &d) < 0)
			return -1;
		if (s->have_before &&
		    ra_db_add_dev_snapshot(r->db, run_id, s->bd.dev, "before", &s->before) < 0)
			return -1;
		if (s->have_after &&
		    ra_db_add_dev_snapshot(r->db, run_id, s->bd.dev, "after", &s->after) < 0)
			return -1;
	}
	if (ra_settings_store(r->settings, r->db, run_id,
			      strcmp(ra_tracer_clock(r->tr), "mono") == 0) < 0 ||
	    ra_throttle_store(&r->thr, r->db, run_id) < 0)
		return -1;
	if (store_params(r, run_id) < 0)
		return -1;
	if (ra_vmstat_write(r->db, run_id, "before", &r->vm_before) < 0 ||
	    ra_vmstat_write(r->db, run_id, "after", &r->vm_after) < 0)
		return -1;
	return 0;
}

static void run_info(struct rec *r, struct ra_run_info *info)
{
	ra_sysinfo_read(&r->si);
	info->label = r->run_label;
	info->source = "record";
	info->argv = r->argv;
	info->start_unix_ns = r->start_unix;
	info->kernel = r->si.kernel;
	info->hostname = r->si.hostname;
	info->machine = r->si.machine;
	info->page_size = r->si.page_size;
	info->cpus = r->si.cpus;
	info->mem_bytes = r->si.mem_bytes;
	info->trace_clock = ra_tracer_clock(r->tr);
	info->buffer_kb = (int64_t)r->buffer_kb;
	info->tool_version = RA_VERSION;
	info->execution = "host";
}

/* The events, in time order, and what depends on them. */
static int store_trace(struct rec *r, int64_t run_id)
{
	char comm[16];

	ra_writer_free(r->w);	/* the first run of a recording stored twice */
	r->w = ra_writer_alloc(r->db, run_id);
	if (!r->w)
		return -1;
	ra_writer_set_namer(r->w, name_task, r);
	snprintf(comm, sizeof(comm), "%s", basename(r->argv[0]));
	ra_writer_note_task(r->w, r->wl.pid, comm);
	ra_scope_reset(&r->scope);
	r->run_id = run_id;
	if (ra_tracer_replay(r->tr, store_event, r) < 0 || ra_writer_finish(r->w) < 0 ||
	    ra_tracer_tgids(r->tr, store_tgid, r) < 0 ||
	    ra_paths_resolve(r->db, run_id, r->names) < 0 || store_filesystems(r, run_id) < 0)
		return -1;
	/* after the replay, which counted the ring buffer's own lost-event marks */
	if (ra_tracer_store_meta(r->tr, r->db, run_id) < 0)
		return -1;
	if (r->capture && r->wl.output &&
	    (ra_db_run_set_text(r->db, run_id, "workload_output", r->wl.output) < 0 ||
	     ra_bench_parse_fio(r->db, run_id) < 0))
		return -1;
	return 0;
}

/* Runs @ids were stored and analysed: remembered, to fit their models again at the end. */
static int remember_runs(struct rec *r, const int64_t *ids, size_t n)
{
	int64_t *runs = realloc(r->runs, (r->nruns + n) * sizeof(*runs));

	if (!runs) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	memcpy(runs + r->nruns, ids, n * sizeof(*ids));
	r->runs = runs;
	r->nruns += n;
	return 0;
}

/*
 * Each run's device model pools the runs recorded like it as they were when
 * it was analysed: the runs before the last fit theirs again, so that every
 * run of a sweep pools the whole sweep.
 */
static int refit_models(struct rec *r)
{
	struct ra_analyze_opts ao = { .verbose = r->verbose, .notice = say_line };
	struct ra_db *db = r->db;
	int ret;

	if (r->nruns < 2)
		return 0;
	if (!db && !(db = ra_db_open_for_load(r->output)))
		return -1;
	ret = ra_analyze_models(db, r->runs, r->nruns, &ao);
	if (db != r->db && ra_db_close(db) < 0)
		ret = -1;
	return ret;
}

static int store_run(struct rec *r)
{
	struct ra_run_info info = { 0 };
	struct ra_run_end end = { 0 };
	int64_t run_id;
	int st = r->wl.status;

	run_info(r, &info);
	if (ra_db_load_begin(r->db) < 0)
		return -1;
	run_id = ra_db_run_create(r->db, &info);
	if (run_id < 0 || store_meta(r, run_id) < 0 || store_trace(r, run_id) < 0)
		goto fail;
	end.wall_ns = r->end_mono - r->start_mono;
	end.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	end.exit_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	end.interrupted = r->interrupted;
	end.trace_start_ns = r->start_mono;
	end.trace_end_ns = r->end_mono;
	if (ra_db_run_finish(r->db, run_id, &end) < 0)
		goto fail;
	if (r->analyze) {
		struct ra_analyze_opts ao = { .verbose = r->verbose, .notice = say_line };

		if (ra_analyze_in_load(r->db, run_id, &ao) < 0)
			goto fail;
	}
	if (ra_db_load_commit(r->db) < 0)
		goto fail;
	if (r->analyze && remember_runs(r, &run_id, 1) < 0)
		return -1;
	r->last_run = run_id;
	if (!r->first_run)
		r->first_run = run_id;
	if (r->verbose > 0 && r->nticks)
		fprintf(stderr, "ra-record: %lld looks at settings and open files, %.1f us each\n",
			(long long)r->nticks, (double)r->tick_ns / (double)r->nticks / 1e3);
	if (r->verbose >= 0)
		fprintf(stderr, "ra-record: run %lld: %llu events in '%s', %llu lost\n",
			(long long)run_id, (unsigned long long)ra_writer_total(r->w), r->output,
			(unsigned long long)ra_tracer_lost(r->tr));
	return 0;
fail:
	ra_db_load_abort(r->db);
	return -1;
}

/*
 * The run, or with --event-source both the two runs of one recording: the
 * tracepoints' events, then the dynamic events' (labelled events=tracepoint
 * and events=kprobe), for a comparison of the sources on one workload.
 */
static int store_runs(struct rec *r)
{
	static const struct { int side; const char *name; } sides[] = {
		{ RA_SIDE_TRACEPOINT, "tracepoint" }, { RA_SIDE_DYNAMIC, "kprobe" },
	};
	const char *label = r->run_label;
	char buf[512];
	int ret = 0;

	if (r->source != RA_SOURCE_BOTH)
		return store_run(r);
	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]) && ret == 0; i++) {
		snprintf(buf, sizeof(buf), "%s%sevents=%s", label ? label : "", label ? "," : "",
			 sides[i].name);
		r->run_label = buf;
		r->side = sides[i].name;
		ra_tracer_side(r->tr, sides[i].side);
		ret = store_run(r);
	}
	r->run_label = label;
	r->side = NULL;
	return ret;
}

static int exit_code(struct rec *r)
{
	int st = r->wl.status;

	if (r->interrupted)
		return 128 + r->forwarded_sig;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	return EXIT_WORKLOAD;
}

static void cleanup(struct rec *r)
{
	ra_settings_restore(r->settings);
	if (ra_tracer_destroy(r->tr) < 0)
		fprintf(stderr, "ra-record: %s\n", ra_last_error());
	r->tr = NULL;
	ra_tracefs_unmount(r->mounted_tracefs);
	r->mounted_tracefs = false;
	if (r->spawned && !r->wl.reaped) {
		/* Never released (setup failed) or still running after an error. */
		if (r->wl.go_fd < 0)
			kill(r->wl.pid, SIGTERM);
		ra_workload_release_output(&r->wl);
		waitpid(r->wl.pid, NULL, 0);
		r->wl.reaped = true;
	}
	ra_workload_release_output(&r->wl);
	ra_writer_free(r->w);
	r->w = NULL;
	ra_names_free(r->names);
	r->names = NULL;
}

static int record_one(struct rec *r)
{
	bool restore_failed;
	int ret;

	r->tr = NULL;
	r->spawned = false;
	r->interrupted = false;
	r->tick_ns = r->nticks = 0;
	memset(&r->wl, 0, sizeof(r->wl));
	r->wl.go_fd = r->wl.err_fd = r->wl.out_fd = r->wl.errout_fd = -1;
	if (setup_names(r) < 0 || setup_tracer(r) < 0 || ra_settings_begin(r->settings) < 0 ||
	    ra_settings_apply(r->settings) < 0 ||
	    ((r->drop_caches || (r->repeat > 1 && !r->nevict)) && ra_workload_drop_caches() < 0) ||
	    ra_workload_evict(r->evict, r->nevict) < 0) {
		ret = error_status(ra_last_error());
		ra_db_load_abort(r->db);	/* a database made for this run goes again */
		goto out;
	}
	if (stop_requested(r)) {	/* before the workload starts: nothing to record */
		ret = 128 + r->forwarded_sig;
		ra_db_load_abort(r->db);
		goto out;
	}
	if (run_workload(r) < 0) {
		ret = error_status(ra_last_error());
		ra_db_load_abort(r->db);
		goto out;
	}
	/*
	 * Settings go back before the slower work of storing the trace. One
	 * that cannot be put back is stored as not restored, and no other run
	 * starts on a machine that is not as it was.
	 */
	restore_failed = ra_settings_restore(r->settings) < 0;
	if (store_runs(r) < 0) {
		ret = error_status(ra_last_error());
		goto out;
	}
	ret = exit_code(r);
	if (restore_failed && ret < 128)
		ret = error_status("a setting could not be restored (above): stopping; the run is stored"
			  " with the setting marked not restored");
out:
	cleanup(r);
	return ret;
}

/* ---- run sets ---- */

/* The next comma-separated value of *list into @buf; false at the end. */
static bool next_value(const char **list, char *buf, size_t len)
{
	size_t n;

	if (!*list || !**list)
		return false;
	n = strcspn(*list, ",");
	snprintf(buf, len, "%.*s", (int)n, *list);
	*list += n + ((*list)[n] == ',');
	return true;
}

static void compose_label(struct rec *r, char *buf, size_t len, const char *kb, const char *env)
{
	size_t off = 0;

	buf[0] = '\0';
	if (r->label)
		off += (size_t)snprintf(buf + off, len - off, "%s", r->label);
	if (kb)
		off += (size_t)snprintf(buf + off, len - off, "%sread_ahead_kb=%s", off ? "," : "",
					kb);
	if (env && off < len)
		snprintf(buf + off, len - off, "%s%s", off ? "," : "", env);
	r->run_label = buf[0] ? buf : NULL;
}

static int sweep_env_value(struct rec *r, const char *value, char *pair, size_t len)
{
	size_t nl = strcspn(r->sweep_env, "=");
	char name[128];

	snprintf(name, sizeof(name), "%.*s", (int)nl, r->sweep_env);
	snprintf(pair, len, "%s=%s", name, value);
	if (setenv(name, value, 1) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot set %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

static void print_advice(struct rec *r, const struct ra_sweep_state *s)
{
	const struct ra_advice *a = &s->advice;

	printf("read_ahead_kb %s: %d run%s; advice for %u:%u: ", r->sweep_kb, s->runs,
	       s->runs == 1 ? "" : "s", s->dev >> 20, s->dev & 1048575);
	if (a->recommended_kb)
		printf("read_ahead_kb %d (%s)\n", a->recommended_kb, ra_advice_status_name(a->status));
	else
		printf("none (%s)\n", ra_advice_status_name(a->status));
	printf("  %s\n  %s\n", s->why, a->reasoning);
}

/*
 * --sweep read_ahead_kb=auto: the analysis says which setting to record
 * next (ra_sweep_step) until the advice is decided; the worst exit status wins.
 */
static int record_auto(struct rec *r)
{
	struct ra_sweep_state s;
	char kb[32], label[512];
	int worst = 0, rc;

	for (;;) {
		if (ra_sweep_step(r->db, r->last_run, RA_ADVICE_FRACTION, &r->sweep_limits, &s) < 0)
			return error_status(ra_last_error());
		if (!s.next_kb)
			break;
		if (r->verbose >= 0)
			fprintf(stderr, "ra-record: read_ahead_kb %d next: %s\n", s.next_kb, s.why);
		snprintf(kb, sizeof(kb), "%d", s.next_kb);
		ra_settings_sweep(r->settings, kb);
		compose_label(r, label, sizeof(label), kb, NULL);
		rc = record_one(r);
		worst = rc > worst ? rc : worst;
		if (rc >= 128 || rc == EXIT_ERROR)
			return worst;	/* interrupted, or cannot record */
	}
	print_advice(r, &s);
	return worst;
}

/* Every value of the sweeps, each --repeat times; the worst exit status wins. */
static int record_all(struct rec *r)
{
	const char *kbs = r->sweep_kb, *envs;
	char kb[32], env[256], pair[400], label[512];
	bool have_kb, have_env;
	int worst = 0;

	if (r->sweep_auto)
		return record_auto(r);
	do {
		have_kb = next_value(&kbs, kb, sizeof(kb));
		if (have_kb)
			ra_settings_sweep(r->settings, kb);
		envs = r->sweep_env ? strchr(r->sweep_env, '=') + 1 : NULL;
		do {
			have_env = next_value(&envs, env, sizeof(env));
			if (have_env && sweep_env_value(r, env, pair, sizeof(pair)) < 0)
				return error_status(ra_last_error());
			compose_label(r, label, sizeof(label), have_kb ? kb : NULL,
				      have_env ? pair : NULL);
			r->env_pair = have_env ? pair : NULL;
			for (int rep = 0; rep < (r->repeat ? r->repeat : 1); rep++) {
				int rc;

				r->rep = rep + 1;
				rc = record_one(r);

				if (rc > worst)
					worst = rc;
				if (rc >= 128 || rc == EXIT_ERROR)
					return worst;	/* interrupted, or cannot record */
				if (stop_requested(r))	/* while the run was stored */
					return 128 + r->forwarded_sig;
			}
		} while (have_env && envs && *envs);
	} while (have_kb && kbs && *kbs);
	return worst;
}

static void release_all(struct rec *r)
{
	char cgroup[sizeof(r->thr.cgroup)];

	snprintf(cgroup, sizeof(cgroup), "%s", r->thr.cgroup);
	if (ra_throttle_remove(&r->thr) < 0)
		fprintf(stderr, "ra-record: %s\n", ra_last_error());
	else if (cgroup[0] && r->db && r->first_run &&
		 ra_db_setting_restored(r->db, cgroup, r->first_run) < 0)
		fprintf(stderr, "ra-record: %s\n", ra_last_error());
	ra_settings_free(r->settings);
	r->settings = NULL;
	free(r->snaps);
	r->snaps = NULL;
	ra_fsmap_free(r->fsmap);
	r->fsmap = NULL;
}

/* ---- runs in guests (--kernel) ---- */

/* What the runs of a guest are called: the kernel that booted it, its file name for an image. */
static const char *kernel_tag(const char *kernel)
{
	const char *slash = strrchr(kernel, '/');

	return slash ? slash + 1 : kernel;
}

/* The guest recorder's options: its database is the helper's, its runs are analysed here. */
static char **guest_argv(struct rec *r, const char *kernel, char *label, size_t len)
{
	char **argv = calloc((size_t)r->nguest + 8, sizeof(*argv));
	int k = 0;

	if (!argv)
		return NULL;
	snprintf(label, len, "%s%skernel=%s", r->label ? r->label : "", r->label ? "," : "",
		 kernel_tag(kernel));
	argv[k++] = (char *)"--no-analyze";
	argv[k++] = (char *)"--label";
	argv[k++] = label;
	if (!r->nfilter) {
		argv[k++] = (char *)"-d";
		argv[k++] = (char *)"vda";
	}
	for (int i = 0; i < r->nguest; i++)
		argv[k++] = r->guest_args[i];
	return argv;
}

/* Bring the runs the guest recorded into the database, analysed, in one transaction. */
static int merge_guest(struct rec *r, const char *kernel, const char *dir)
{
	struct ra_copy_tags tags = { 0 };
	struct ra_vm_info info;
	char path[PATH_MAX];
	int64_t *ids = NULL;
	size_t n = 0;
	struct ra_db *db;
	int ret = -1;

	if (ra_vm_info_read(dir, &info) < 0)
		return -1;
	tags.execution = strcmp(info.accel, "kvm") == 0 ? "vm-kvm" : "vm-tcg";
	tags.boot_kernel = info.image;
	snprintf(path, sizeof(path), "%s/guest.db", dir);
	db = ra_db_open_for_load(r->output);
	if (!db)
		return -1;
	if (ra_db_load_begin(db) < 0 || ra_db_copy_runs(db, path, &tags, &ids, &n) < 0)
		goto fail;
	if (!n) {
		ra_set_error(RA_ERR_DATA, "kernel %s: the guest recorded no run", kernel);
		goto fail;
	}
	for (size_t i = 0; i < n && r->analyze; i++) {
		struct ra_analyze_opts ao = { .verbose = r->verbose, .notice = say_line };

		if (ra_analyze_in_load(db, ids[i], &ao) < 0)
			goto fail;
	}
	if (ra_db_load_commit(db) < 0)
		goto fail;
	if (r->analyze && remember_runs(r, ids, n) < 0)
		goto out;
	for (size_t i = 0; i < n && r->verbose >= 0; i++)
		fprintf(stderr, "ra-record: kernel %s (%s, %s): run %lld in '%s'\n", kernel,
			info.release, tags.execution, (long long)ids[i], r->output);
	ret = 0;
	goto out;
fail:
	ra_db_load_abort(db);
out:
	free(ids);
	if (ra_db_close(db) < 0)
		ret = -1;
	return ret;
}

static void remove_guest_dir(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/guest.db", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/info", dir);
	unlink(path);
	rmdir(dir);
}

/* One kernel: its guest records, its runs join the database. The exit status. */
static int record_guest(struct rec *r, const char *kernel)
{
	struct ra_vm_job job = { .kernel = kernel, .files = r->kernel_files, .cmd = r->argv,
				 .tmpdir = r->tmpdir };
	char dir[PATH_MAX], label[512];
	int rc, signo = 0;

	snprintf(dir, sizeof(dir), "%s/ra-record-vm.XXXXXX",
		 r->tmpdir ? r->tmpdir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return error_status("cannot make a temporary directory for the guest");
	job.outdir = dir;
	job.guest_args = guest_argv(r, kernel, label, sizeof(label));
	if (!job.guest_args) {
		rmdir(dir);
		return error_status("out of memory");
	}
	rc = ra_vm_run(&job, r->sigfd, &signo);
	free(job.guest_args);
	if (rc < 0)
		rc = error_status(ra_last_error());
	else if (signo)
		rc = 128 + signo;
	else if ((rc == 0 || rc == EXIT_WORKLOAD) && merge_guest(r, kernel, dir) < 0)
		rc = error_status(ra_last_error());
	remove_guest_dir(dir);
	return rc;
}

/*
 * Before a guest boots: the database is one the runs can join (an existing
 * one opens, an older one is upgraded), or its directory takes a new one.
 */
static int check_output(struct rec *r)
{
	char *copy, *dir;
	struct ra_db *db;
	int ok;

	if (access(r->output, F_OK) == 0) {
		/* read-only first, which changes nothing; a writer upgrades an older one */
		db = ra_db_open(r->output, RA_DB_READONLY);
		if (db && ra_db_close(db) == 0)
			return 0;
		db = ra_db_open(r->output, 0);
		return db && ra_db_close(db) == 0 ? 0 : -1;
	}
	copy = strdup(r->output);
	if (!copy) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	dir = dirname(copy);
	ok = access(dir, W_OK) == 0;
	if (!ok)
		ra_set_error(RA_ERR_USAGE, "cannot create '%s': %s", r->output, strerror(errno));
	free(copy);
	return ok ? 0 : -1;
}

/* Every --kernel in turn, one guest at a time; the worst exit status wins. */
static int record_guests(struct rec *r)
{
	int worst = 0;

	if (check_output(r) < 0)
		return error_status(ra_last_error());
	for (int i = 0; i < r->nkernels; i++) {
		int rc = record_guest(r, r->kernels[i]);

		if (rc > worst)
			worst = rc;
		if (rc >= 128)
			break;
	}
	return worst;
}

/* Signals are taken through a signalfd, so that every exit path cleans up. */
static void block_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGQUIT);
	sigaddset(mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, mask, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int main(int argc, char **argv)
{
	struct rec r = { .buffer_kb = DEFAULT_BUFFER_KB, .capture = true, .analyze = true,
			 .sigfd = -1, .wait_settings = -1, .thr.entry.fd = -1 };
	struct signalfd_siginfo si;
	sigset_t mask;
	int ret = EXIT_ERROR;

	block_signals(&mask);
	ra_malloc_tune();
	if (parse_args(&r, argc, argv) < 0) {
		ret = error_status(ra_last_error());
		goto out;
	}
	r.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r.sigfd < 0) {
		ret = error_status("cannot watch signals");
		goto out;
	}
	if (r.nkernels) {
		ret = record_guests(&r);
		goto refit;
	}
	if (getuid() == 0)
		ra_journal_recover(notice, &r);	/* what killed recorders left behind */
	if (prepare(&r) < 0) {
		ret = error_status(ra_last_error());
		if (read(r.sigfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo != SIGCHLD)
			ret = 128 + (int)si.ssi_signo;	/* while waiting for a setting */
		goto out;
	}
	r.db = ra_db_open_for_load(r.output);
	if (!r.db) {
		ret = error_status(ra_last_error());
		goto out;
	}
	r.run_label = r.label;
	if (r.throttle && ra_throttle_setup(&r.thr, r.throttle) < 0) {
		ret = error_status(ra_last_error());
		ra_db_load_abort(r.db);
		goto out;
	}
	ret = record_all(&r);
refit:
	if (ret < 128 && refit_models(&r) < 0)
		ret = error_status(ra_last_error());
out:
	release_all(&r);
	if (r.db && ra_db_close(r.db) < 0 && ret == 0)
		ret = error_status(ra_last_error());
	if (r.sigfd >= 0)
		close(r.sigfd);
	for (int i = 0; i < r.nguest; i++)
		free(r.guest_args[i]);
	free(r.runs);
	return ret;
}
