// SPDX-License-Identifier: GPL-2.0
/*
 * ra-record: run a workload and record its readahead, page-cache and block
 * events into a ratrace database.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
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

#include "collect.h"
#include "ra_analyze.h"
#include "ra_version.h"

#define EXIT_WORKLOAD	1	/* recorded; the workload failed */
#define EXIT_ERROR	2	/* nothing recorded */
#define DEFAULT_BUFFER_KB 16384
#define MAX_DEVS	16
#define INFLIGHT_WAIT_MS 3000

struct setting {
	struct ra_blockdev bd;
	char old_value[32];
	char new_value[32];
	bool applied;
	bool restored;
};

struct snapdev {
	struct ra_blockdev bd;
	const char *role;
	struct ra_dev_snapshot before, after;
	bool have_before, have_after;
};

struct rec {
	/* options */
	const char *output;
	const char *label;
	const char *tmpdir;
	const char *events;
	size_t buffer_kb;
	bool drop_caches;
	const char *evict[16];		/* --evict paths */
	int nevict;
	bool capture;
	bool analyze;
	int verbose;
	char **argv;
	int repeat;
	char *sweep_kb;			/* "16,128,512" */
	char *sweep_env;		/* "NAME=v1,v2" */
	char *throttle;			/* "DEV=iops:N,bps:N" */
	const char *run_label;		/* label of the run being recorded */
	char cgroup[256];		/* blkio cgroup of the workload, "" none */
	char cgroup_procs[300];
	uint32_t throttle_dev;		/* the throttled disk */
	char throttle_iops[24], throttle_bps[24];	/* "" when not set */
	/* devices */
	struct ra_blockdev filter[MAX_DEVS];
	int nfilter;
	struct setting settings[MAX_DEVS];
	int nsettings;
	struct snapdev *snaps;
	int nsnaps;
	/* state */
	struct ra_db *db;
	struct ra_tracer *tr;
	bool mounted_tracefs;
	struct ra_workload wl;
	bool spawned;
	int sigfd;
	bool interrupted;
	int forwarded_sig;
	int64_t start_mono, end_mono, start_unix;
	struct ra_vmstat vm_before, vm_after;
	struct ra_sysinfo si;
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
	"                              on it (name, /dev path or MAJ:MIN; repeatable)\n"
	"      --read-ahead-kb DEV=KB  set DEV's read_ahead_kb for the run, restore after\n"
	"      --drop-caches           drop the page cache before the run (cold start)\n"
	"      --evict PATH            evict the pages of PATH (a file, or the files under a\n"
	"                              directory) before each run, instead of the whole\n"
	"                              page cache (POSIX_FADV_DONTNEED; repeatable)\n"
	"      --repeat N              record N runs, each from a cold page cache\n"
	"      --sweep read_ahead_kb=V1,V2,...\n"
	"                              one run set per value on the --device devices,\n"
	"                              labelled read_ahead_kb=V\n"
	"      --sweep-env NAME=V1,V2  one run set per value of the workload's variable NAME\n"
	"      --throttle DEV=iops:N,bps:N\n"
	"                              emulate a slow device: the workload's reads of DEV are\n"
	"                              throttled (blkio cgroup, removed after)\n"
	"  -e, --events LIST           tracepoint systems or SYSTEM:EVENT names to record\n"
	"                              (default readahead,filemap,block and the WILLNEED\n"
	"                              syscalls sys_enter_fadvise64, sys_enter_readahead,\n"
	"                              sys_enter_madvise)\n"
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
	"recorded (usage, input or environment error); 128+N recorded, interrupted by\n"
	"signal N.\n"
	"\n"
	"Examples:\n"
	"  ra-record -o run.db -d loop0 --read-ahead-kb loop0=512 --drop-caches \\\n"
	"            -- dd if=/mnt/file of=/dev/null bs=4k\n"
	"  ra-record -o runs.db --label ra128 -- fio --output-format=json job.fio\n";

static int die(const char *msg)
{
	fprintf(stderr, "ra-record: %s\n", msg);
	return EXIT_ERROR;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int add_setting(struct rec *r, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct setting *s;
	char dev[64];
	char *end;
	long kb;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(dev)) {
		ra_set_error(RA_ERR_USAGE, "bad --read-ahead-kb '%s' (want DEV=KB)", arg);
		return -1;
	}
	kb = strtol(eq + 1, &end, 10);
	if (!eq[1] || *end || kb < 0) {
		ra_set_error(RA_ERR_USAGE, "bad read_ahead_kb value in '%s'", arg);
		return -1;
	}
	if (r->nsettings == MAX_DEVS) {
		ra_set_error(RA_ERR_USAGE, "too many --read-ahead-kb settings");
		return -1;
	}
	snprintf(dev, sizeof(dev), "%.*s", (int)(eq - arg), arg);
	s = &r->settings[r->nsettings];
	if (ra_blockdev_resolve(dev, &s->bd) < 0)
		return -1;
	snprintf(s->new_value, sizeof(s->new_value), "%ld", kb);
	r->nsettings++;
	return 0;
}

static int add_filter(struct rec *r, const char *arg)
{
	if (r->nfilter == MAX_DEVS) {
		ra_set_error(RA_ERR_USAGE, "too many --device options");
		return -1;
	}
	if (ra_blockdev_resolve(arg, &r->filter[r->nfilter]) < 0)
		return -1;
	r->nfilter++;
	return 0;
}

enum {
	OPT_RA_KB = 256, OPT_DROP, OPT_TMPDIR, OPT_NOCAPTURE, OPT_NOANALYZE, OPT_VERSION,
	OPT_REPEAT, OPT_SWEEP, OPT_SWEEP_ENV, OPT_THROTTLE, OPT_EVICT,
};

static int parse_args(struct rec *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "label", required_argument, NULL, 'l' },
		{ "device", required_argument, NULL, 'd' },
		{ "read-ahead-kb", required_argument, NULL, OPT_RA_KB },
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
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "+o:l:d:b:e:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			r->output = optarg;
			break;
		case 'l':
			r->label = optarg;
			break;
		case 'd':
			if (add_filter(r, optarg) < 0)
				return -1;
			break;
		case OPT_RA_KB:
			if (add_setting(r, optarg) < 0)
				return -1;
			break;
		case OPT_DROP:
			r->drop_caches = true;
			break;
		case OPT_EVICT:
			if (access(optarg, R_OK) < 0) {
				ra_set_error(RA_ERR_USAGE, "cannot evict '%s': %s", optarg,
					     strerror(errno));
				return -1;
			}
			if (r->nevict == (int)(sizeof(r->evict) / sizeof(r->evict[0]))) {
				ra_set_error(RA_ERR_USAGE, "too many --evict paths");
				return -1;
			}
			r->evict[r->nevict++] = optarg;
			break;
		case 'b':
			r->buffer_kb = strtoul(optarg, &end, 10);
			if (*end || r->buffer_kb < 4) {
				ra_set_error(RA_ERR_USAGE, "bad --buffer-kb '%s'", optarg);
				return -1;
			}
			break;
		case 'e':
			r->events = optarg;
			if (ra_events_validate(optarg) < 0)
				return -1;
			break;
		case OPT_TMPDIR:
			r->tmpdir = optarg;
			break;
		case OPT_NOCAPTURE:
			r->capture = false;
			break;
		case OPT_NOANALYZE:
			r->analyze = false;
			break;
		case OPT_REPEAT:
			r->repeat = (int)strtol(optarg, &end, 10);
			if (*end || r->repeat < 1 || r->repeat > 1000) {
				ra_set_error(RA_ERR_USAGE, "bad --repeat '%s'", optarg);
				return -1;
			}
			break;
		case OPT_SWEEP:
			if (strncmp(optarg, "read_ahead_kb=", 14) != 0 || !optarg[14]) {
				ra_set_error(RA_ERR_USAGE, "bad --sweep '%s' (want read_ahead_kb=V1,V2,...)",
					     optarg);
				return -1;
			}
			r->sweep_kb = optarg + 14;
			break;
		case OPT_SWEEP_ENV:
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				ra_set_error(RA_ERR_USAGE, "bad --sweep-env '%s' (want NAME=V1,V2,...)",
					     optarg);
				return -1;
			}
			r->sweep_env = optarg;
			break;
		case OPT_THROTTLE:
			r->throttle = optarg;
			break;
		case 'q':
			r->verbose = -1;
			break;
		case 'v':
			r->verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case OPT_VERSION:
			printf("ra-record (ratrace) %s\n", RA_VERSION);
			exit(0);
		default:
			fputs(usage_text, stderr);
			ra_set_error(RA_ERR_USAGE, "bad arguments");
			return -1;
		}
	}
	if (!r->output) {
		ra_set_error(RA_ERR_USAGE, "no output database (-o DB)");
		return -1;
	}
	r->argv = argv + optind;
	if (r->sweep_kb && !r->nfilter) {
		ra_set_error(RA_ERR_USAGE, "--sweep read_ahead_kb needs the devices: --device DEV");
		return -1;
	}
	if (r->sweep_kb && r->nsettings) {
		ra_set_error(RA_ERR_USAGE, "--sweep read_ahead_kb and --read-ahead-kb exclude each other");
		return -1;
	}
	return ra_workload_check(r->argv);
}

/* Devices whose settings and counters are snapshot: named ones, else all disks. */
static int collect_snapdevs(struct rec *r)
{
	struct ra_blockdev *all = NULL;
	int n = 0;

	r->snaps = calloc(2 * MAX_DEVS + 1, sizeof(*r->snaps));
	if (!r->snaps)
		return -1;
	for (int i = 0; i < r->nfilter + r->nsettings; i++) {
		const struct ra_blockdev *bd =
			i < r->nfilter ? &r->filter[i] : &r->settings[i - r->nfilter].bd;
		bool dup = false;

		for (int j = 0; j < n; j++)
			dup |= r->snaps[j].bd.dev == bd->dev;
		if (dup)
			continue;
		r->snaps[n].bd = *bd;
		r->snaps[n].role = i < r->nfilter ? "filter" : "setting";
		n++;
	}
	if (r->nfilter == 0) {
		int m = ra_blockdev_all(&all);

		for (int i = 0; i < m; i++) {
			bool dup = false;
			struct snapdev *nv;

			for (int j = 0; j < n; j++)
				dup |= r->snaps[j].bd.dev == all[i].dev;
			if (dup)
				continue;
			nv = realloc(r->snaps, (size_t)(n + 1) * sizeof(*nv));
			if (!nv)
				break;
			r->snaps = nv;
			memset(&r->snaps[n], 0, sizeof(*nv));
			r->snaps[n].bd = all[i];
			r->snaps[n].role = "traced";
			n++;
		}
		free(all);
	}
	r->nsnaps = n;
	return 0;
}

/*
 * The journal of what is to be put back (settings applied and not restored,
 * the throttle's cgroup), so that the next recorder restores it if this one
 * is killed.
 */
static void journal_sync(struct rec *r)
{
	struct ra_journal_item items[MAX_DEVS + 1];
	int n = 0;

	for (int i = 0; i < r->nsettings; i++)
		if (r->settings[i].applied && !r->settings[i].restored)
			items[n++] = (struct ra_journal_item){ .dev = r->settings[i].bd.dev,
							       .name = r->settings[i].bd.name,
							       .old_value = r->settings[i].old_value };
	if (r->cgroup[0])
		items[n++] = (struct ra_journal_item){ .cgroup = r->cgroup };
	if (ra_journal_write(items, n) < 0 && r->verbose > 0)
		fprintf(stderr, "ra-record: cannot write the restore journal: %s\n",
			strerror(errno));
}

static int apply_settings(struct rec *r)
{
	for (int i = 0; i < r->nsettings; i++) {
		struct setting *s = &r->settings[i];

		if (ra_queue_read(&s->bd, "read_ahead_kb", s->old_value, sizeof(s->old_value)) < 0) {
			ra_set_error(RA_ERR_ENV, "cannot read read_ahead_kb of '%s'", s->bd.name);
			return -1;
		}
		s->applied = true;	/* from here on restore_settings() writes it back */
	}
	journal_sync(r);
	for (int i = 0; i < r->nsettings; i++) {
		struct setting *s = &r->settings[i];

		if (ra_queue_write(&s->bd, "read_ahead_kb", s->new_value) < 0)
			return -1;
		if (r->verbose > 0)
			fprintf(stderr, "ra-record: %s read_ahead_kb %s -> %s\n", s->bd.name,
				s->old_value, s->new_value);
	}
	return 0;
}

static void restore_settings(struct rec *r)
{
	for (int i = r->nsettings - 1; i >= 0; i--) {
		struct setting *s = &r->settings[i];

		if (!s->applied || s->restored)
			continue;
		if (ra_queue_write(&s->bd, "read_ahead_kb", s->old_value) == 0)
			s->restored = true;
		else
			fprintf(stderr, "ra-record: cannot restore read_ahead_kb of '%s' to %s\n",
				s->bd.name, s->old_value);
	}
	journal_sync(r);
}

/* One file's page-cache pages: written back first, then dropped. */
static int evict_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	int fd, err;

	(void)sb;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;	/* not ours to read: its pages stay */
	fdatasync(fd);
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (err) {
		ra_set_error(RA_ERR_ENV, "cannot evict '%s': %s", path, strerror(err));
		return -1;
	}
	return 0;
}

/* The --evict paths, files under directories included (one file system each). */
static int evict_paths(struct rec *r)
{
	for (int i = 0; i < r->nevict; i++)
		if (nftw(r->evict[i], evict_one, 16, FTW_PHYS | FTW_MOUNT) != 0) {
			if (ra_last_error_kind() != RA_ERR_ENV)
				ra_set_error(RA_ERR_ENV, "cannot evict '%s': %s", r->evict[i],
					     strerror(errno));
			return -1;
		}
	return 0;
}

static int drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3", 1) != 1) {
		ra_set_error(RA_ERR_ENV, "cannot drop caches: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int setup_tracer(struct rec *r)
{
	uint32_t fs[MAX_DEVS], blk[2 * MAX_DEVS];
	struct ra_tracer_opts o = { 0 };
	int nblk = 0;

	for (int i = 0; i < r->nfilter; i++) {
		fs[i] = r->filter[i].dev;
		blk[nblk++] = r->filter[i].dev;
		if (r->filter[i].parent != r->filter[i].dev)
			blk[nblk++] = r->filter[i].parent;
	}
	o.buffer_kb = r->buffer_kb;
	o.events = r->events;
	o.fs_devs = fs;
	o.nfs_devs = r->nfilter;
	o.blk_devs = blk;
	o.nblk_devs = nblk;
	o.notrace_pid = getpid();
	o.tmpdir = r->tmpdir;
	o.verbose = r->verbose;
	if (ra_tracefs_mount(&r->mounted_tracefs) < 0)
		return -1;
	ra_tracer_cleanup_stale(r->verbose > 0);
	r->tr = ra_tracer_create(&o);
	return r->tr ? 0 : -1;
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
		if (si.ssi_code != SI_KERNEL && !r->wl.reaped)
			kill(r->wl.pid, (int)si.ssi_signo);
		if (r->verbose >= 0)
			fprintf(stderr, "ra-record: %s: stopping the workload, keeping the trace\n",
				strsignal((int)si.ssi_signo));
	}
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
		if (poll(pfd, (nfds_t)n, 200) < 0 && errno != EINTR)
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
	r->wl.cgroup_procs = r->cgroup[0] ? r->cgroup_procs : NULL;
	if (ra_workload_spawn(&r->wl, r->argv, r->capture) < 0)
		return -1;
	r->spawned = true;
	if (ra_tracer_start(r->tr) < 0)
		return -1;
	snapshot(r, false);
	r->start_unix = clock_ns(CLOCK_REALTIME);
	r->start_mono = clock_ns(CLOCK_MONOTONIC);
	if (ra_workload_release(&r->wl) < 0)
		return -1;
	if (record_loop(r) < 0)
		return -1;
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

static int store_event(const struct ra_event *ev, void *arg)
{
	struct rec *r = arg;

	return ra_writer_add(r->w, ev);
}

static int store_meta(struct rec *r, int64_t run_id)
{
	for (int i = 0; i < r->nsnaps; i++) {
		struct snapdev *s = &r->snaps[i];

		if (ra_db_add_device(r->db, run_id, s->bd.dev, s->bd.name, s->role) < 0)
			return -1;
		if (s->have_before &&
		    ra_db_add_dev_snapshot(r->db, run_id, s->bd.dev, "before", &s->before) < 0)
			return -1;
		if (s->have_after &&
		    ra_db_add_dev_snapshot(r->db, run_id, s->bd.dev, "after", &s->after) < 0)
			return -1;
	}
	for (int i = 0; i < r->nsettings; i++) {
		struct setting *s = &r->settings[i];

		char path[300];

		snprintf(path, sizeof(path), "/sys/class/block/%s/queue/read_ahead_kb",
			 s->bd.parent_name);
		if (ra_db_add_setting(r->db, run_id, s->bd.dev, "read_ahead_kb", path, s->old_value,
				      s->new_value, s->restored) < 0)
			return -1;
	}
	/* the workload's blkio throttle: set for the run's cgroup, removed with it */
	if (r->throttle_iops[0] &&
	    ra_db_add_setting(r->db, run_id, r->throttle_dev, "blkio.throttle.read_iops_device",
			      r->cgroup, NULL, r->throttle_iops, 1) < 0)
		return -1;
	if (r->throttle_bps[0] &&
	    ra_db_add_setting(r->db, run_id, r->throttle_dev, "blkio.throttle.read_bps_device",
			      r->cgroup, NULL, r->throttle_bps, 1) < 0)
		return -1;
	if (ra_vmstat_write(r->db, run_id, "before", &r->vm_before) < 0 ||
	    ra_vmstat_write(r->db, run_id, "after", &r->vm_after) < 0)
		return -1;
	return 0;
}

static int store_run(struct rec *r)
{
	struct ra_run_info info = { 0 };
	struct ra_run_end end = { 0 };
	int64_t run_id;
	int st = r->wl.status;
	char comm[16];

	ra_sysinfo_read(&r->si);
	info.label = r->run_label;
	info.source = "record";
	info.argv = r->argv;
	info.start_unix_ns = r->start_unix;
	info.kernel = r->si.kernel;
	info.hostname = r->si.hostname;
	info.machine = r->si.machine;
	info.page_size = r->si.page_size;
	info.cpus = r->si.cpus;
	info.mem_bytes = r->si.mem_bytes;
	info.trace_clock = ra_tracer_clock(r->tr);
	info.buffer_kb = (int64_t)r->buffer_kb;
	info.tool_version = RA_VERSION;

	if (ra_db_load_begin(r->db) < 0)
		return -1;
	run_id = ra_db_run_create(r->db, &info);
	if (run_id < 0 || store_meta(r, run_id) < 0)
		goto fail;
	r->w = ra_writer_alloc(r->db, run_id);
	if (!r->w)
		goto fail;
	ra_writer_set_namer(r->w, name_task, r);
	snprintf(comm, sizeof(comm), "%s", basename(r->argv[0]));
	ra_writer_note_task(r->w, r->wl.pid, comm);
	if (ra_tracer_replay(r->tr, store_event, r) < 0 || ra_writer_finish(r->w) < 0 ||
	    ra_paths_resolve(r->db, run_id) < 0)
		goto fail;
	/* after the replay, which counted the ring buffer's own lost-event marks */
	if (ra_tracer_store_meta(r->tr, r->db, run_id) < 0)
		goto fail;
	if (r->capture && r->wl.output &&
	    (ra_db_run_set_text(r->db, run_id, "workload_output", r->wl.output) < 0 ||
	     ra_bench_parse_fio(r->db, run_id) < 0))
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
		struct ra_analyze_opts ao = { .verbose = r->verbose };

		if (ra_analyze_in_load(r->db, run_id, &ao) < 0)
			goto fail;
	}
	if (ra_db_load_commit(r->db) < 0)
		goto fail;
	if (r->verbose >= 0)
		fprintf(stderr, "ra-record: run %lld: %llu events in '%s', %llu lost\n",
			(long long)run_id, (unsigned long long)ra_writer_total(r->w), r->output,
			(unsigned long long)ra_tracer_lost(r->tr));
	return 0;
fail:
	ra_db_load_abort(r->db);
	return -1;
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
	restore_settings(r);
	ra_tracer_destroy(r->tr);
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
	free(r->snaps);
	r->snaps = NULL;
	r->nsnaps = 0;
}

/* ---- slow-device emulation: a blkio cgroup of the workload ---- */

#define BLKIO "/sys/fs/cgroup/blkio"

static int cg_write(const char *dir, const char *file, const char *value)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok ? 0 : -1;
}

/* "loop0=iops:200,bps:52428800" */
static int throttle_setup(struct rec *r)
{
	const char *eq = strchr(r->throttle, '='), *p;
	struct ra_blockdev bd;
	char dev[64], val[96];
	int set = 0;

	if (!eq || eq == r->throttle || (size_t)(eq - r->throttle) >= sizeof(dev)) {
		ra_set_error(RA_ERR_USAGE, "bad --throttle '%s' (want DEV=iops:N,bps:N)",
			     r->throttle);
		return -1;
	}
	snprintf(dev, sizeof(dev), "%.*s", (int)(eq - r->throttle), r->throttle);
	if (ra_blockdev_resolve(dev, &bd) < 0)
		return -1;
	if (access(BLKIO, W_OK) < 0) {
		ra_set_error(RA_ERR_ENV, "--throttle needs the cgroup v1 blkio controller at '%s'",
			     BLKIO);
		return -1;
	}
	r->throttle_dev = bd.parent;
	snprintf(r->cgroup, sizeof(r->cgroup), BLKIO "/ra-record.%d", (int)getpid());
	snprintf(r->cgroup_procs, sizeof(r->cgroup_procs), "%s/cgroup.procs", r->cgroup);
	if (mkdir(r->cgroup, 0755) < 0 && errno != EEXIST) {
		ra_set_error(RA_ERR_ENV, "cannot create '%s': %s", r->cgroup, strerror(errno));
		r->cgroup[0] = '\0';
		return -1;
	}
	journal_sync(r);
	for (p = eq + 1; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		unsigned long long n;
		const char *file;

		if (sscanf(p, "iops:%llu", &n) == 1) {
			file = "blkio.throttle.read_iops_device";
			snprintf(r->throttle_iops, sizeof(r->throttle_iops), "%llu", n);
		} else if (sscanf(p, "bps:%llu", &n) == 1) {
			file = "blkio.throttle.read_bps_device";
			snprintf(r->throttle_bps, sizeof(r->throttle_bps), "%llu", n);
		} else {
			break;
		}
		snprintf(val, sizeof(val), "%u:%u %llu", RA_MAJOR(bd.parent), RA_MINOR(bd.parent), n);
		if (cg_write(r->cgroup, file, val) < 0) {
			ra_set_error(RA_ERR_ENV, "cannot set %s of '%s': %s", file, r->cgroup,
				     strerror(errno));
			return -1;
		}
		set++;
	}
	if (!set || *p) {
		ra_set_error(RA_ERR_USAGE, "bad --throttle '%s' (want DEV=iops:N,bps:N)",
			     r->throttle);
		return -1;
	}
	return 0;
}

static void throttle_remove(struct rec *r)
{
	if (!r->cgroup[0])
		return;
	if (rmdir(r->cgroup) < 0) {
		fprintf(stderr, "ra-record: cannot remove '%s': %s\n", r->cgroup, strerror(errno));
		return;	/* the journal keeps it for the next recorder */
	}
	r->cgroup[0] = '\0';
	journal_sync(r);
}

/* ---- one run ---- */

static int record_one(struct rec *r)
{
	int ret;

	r->tr = NULL;
	r->spawned = false;
	r->interrupted = false;
	memset(&r->wl, 0, sizeof(r->wl));
	r->wl.go_fd = r->wl.err_fd = r->wl.out_fd = r->wl.errout_fd = -1;
	for (int i = 0; i < r->nsettings; i++)
		r->settings[i].applied = r->settings[i].restored = false;
	if (collect_snapdevs(r) < 0 || setup_tracer(r) < 0 || apply_settings(r) < 0 ||
	    ((r->drop_caches || (r->repeat > 1 && !r->nevict)) && drop_caches() < 0) ||
	    evict_paths(r) < 0 || run_workload(r) < 0) {
		ret = die(ra_last_error());
		ra_db_load_abort(r->db);	/* a database made for this run goes again */
		goto out;
	}
	/* Settings go back before the slower work of storing the trace. */
	restore_settings(r);
	if (store_run(r) < 0) {
		ret = die(ra_last_error());
		goto out;
	}
	ret = exit_code(r);
out:
	cleanup(r);
	return ret;
}

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

/* Every value of the sweeps, each --repeat times; the worst exit status wins. */
static int record_all(struct rec *r)
{
	const char *kbs = r->sweep_kb, *envs;
	char kb[32], env[256], pair[400], label[512];
	bool have_kb, have_env;
	int worst = 0;

	do {
		have_kb = next_value(&kbs, kb, sizeof(kb));
		for (int i = 0; have_kb && i < r->nfilter; i++) {
			r->settings[i].bd = r->filter[i];
			snprintf(r->settings[i].new_value, sizeof(r->settings[i].new_value), "%s", kb);
			r->nsettings = r->nfilter;
		}
		envs = r->sweep_env ? strchr(r->sweep_env, '=') + 1 : NULL;
		do {
			have_env = next_value(&envs, env, sizeof(env));
			if (have_env && sweep_env_value(r, env, pair, sizeof(pair)) < 0)
				return die(ra_last_error());
			compose_label(r, label, sizeof(label), have_kb ? kb : NULL,
				      have_env ? pair : NULL);
			for (int rep = 0; rep < (r->repeat ? r->repeat : 1); rep++) {
				int rc = record_one(r);

				if (rc > worst)
					worst = rc;
				if (rc >= 128 || rc == EXIT_ERROR)
					return worst;	/* interrupted, or cannot record */
			}
		} while (have_env && envs && *envs);
	} while (have_kb && kbs && *kbs);
	return worst;
}

int main(int argc, char **argv)
{
	struct rec r = { .buffer_kb = DEFAULT_BUFFER_KB, .capture = true, .analyze = true,
			 .sigfd = -1 };
	sigset_t mask;
	int ret = EXIT_ERROR;

	/* Signals are taken through a signalfd, so that every exit path cleans up. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	ra_malloc_tune();

	if (parse_args(&r, argc, argv) < 0)
		return die(ra_last_error());
	r.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r.sigfd < 0)
		return die("cannot watch signals");
	r.db = ra_db_open(r.output, RA_DB_CREATE);
	if (!r.db)
		return die(ra_last_error());
	r.run_label = r.label;
	if (getuid() == 0)
		ra_journal_recover();	/* what killed recorders left behind */
	if (r.throttle && throttle_setup(&r) < 0) {
		ret = die(ra_last_error());
		ra_db_load_abort(r.db);
		goto out;
	}
	ret = record_all(&r);
out:
	throttle_remove(&r);
	if (ra_db_close(r.db) < 0 && ret == 0)
		ret = die(ra_last_error());
	if (r.sigfd >= 0)
		close(r.sigfd);
	return ret;
}
