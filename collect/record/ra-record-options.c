// SPDX-License-Identifier: GPL-2.0
/*
 * ra-record: the options, parsed once into struct rec, and the command's
 * messages.
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

#include "ra-record.h"
#include "ra_version.h"

/* A line the analysis says of what it did (-v). */
void rec_say_line(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", msg);
}

/* The one-line error on stderr; returns the exit status of an error. */
int rec_error_status(const char *msg)
{
	fprintf(stderr, "ra-record: %s\n", msg);
	return EXIT_ERROR;
}

void rec_notice(const char *msg, void *arg)
{
	const struct rec *r = arg;

	if (r->opt->verbose >= 0)
		fprintf(stderr, "ra-record: %s\n", msg);
}

void rec_step(struct rec *r, const char *what)
{
	int64_t now;

	if (r->opt->verbose < 2)
		return;
	now = ra_clock_ns(CLOCK_MONOTONIC);
	fprintf(stderr, "ra-record: %-36s %7.3f s\n", what, (double)(now - r->step_ns) / 1e9);
	r->step_ns = now;
}

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
	"      --tmpdir DIR            where temporary files are made ($TMPDIR, else /tmp)\n"
	"      --no-capture            do not store the workload's output\n"
	"      --no-analyze            store the events only (run ra-analyze later)\n"
	"  -q, --quiet                 print errors only\n"
	"  -v, --verbose               say what is set up; twice: the time of each\n"
	"                              step after the workload ended\n"
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

/* ---- options ---- */

static int add_setting(struct rec_opts *r, const char *arg)
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

static int add_filter(struct rec_opts *r, const char *arg)
{
	if (r->nfilter == MAX_DEVS) {
		ra_set_error(RA_ERR_USAGE, "too many --device options");
		return -1;
	}
	r->filter_arg[r->nfilter++] = arg;
	return 0;
}

static int add_evict(struct rec_opts *r, const char *arg)
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

static int set_wait(struct rec_opts *r, const char *arg)
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
static int parse_value(struct rec_opts *r, int c, char *arg)
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
static int parse_source(struct rec_opts *r, int c, const char *arg)
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

static int parse_opt(struct rec_opts *r, int c, char *arg)
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
static int note_guest_opt(struct rec_opts *r, int c, const char *arg)
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

static int check_kernel_args(struct rec_opts *r)
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

int rec_parse_args(struct rec_opts *r, int argc, char **argv)
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
