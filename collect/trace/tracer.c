// SPDX-License-Identifier: LGPL-2.1
/*
 * Live recording through a private tracefs instance. While the workload runs
 * the recorder only moves full ring-buffer sub-buffers into per-CPU files
 * (splice); decoding happens after the workload has finished.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>
#include <traceevent/event-parse.h>

#include "decode.h"
#include "trace.h"
#include "host.h"
#include "ra_tmpfile.h"

/* live: how often the partly filled sub-buffers are read to move the mark on */
#define FLUSH_NS 50000000
/* live: memory for the sub-buffers read and not yet stored, all CPUs together */
#define LIVE_TAIL (8 << 20)
/* live: the longest the ring buffers wait for their thread when no wakeup comes */
#define DRAIN_NS 20000000
/* the ring buffers' thread: this far below the recorder's nice value (to -20) */
#define DRAIN_NICE 10
#define INSTANCE_PREFIX "ra-record."
#define TRACEFS_DIR "/sys/kernel/tracing"

struct cpu_cap {
	int fd;			/* trace_pipe_raw, non-blocking */
	struct tracefs_cpu *tcpu;
	int64_t overrun, dropped, read_events;
	uint64_t bytes;
};

struct ra_tracer {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct ra_decoder *dec;
	char clock[16];
	int ncpus;
	int subbuf;
	/* storing while the workload runs: each drain reads every CPU empty */
	bool live;
	_Atomic uint64_t drained_below;	/* every event before this time is read */
	int64_t flushed_at;		/* when the partly filled sub-buffers were last read */
	/* live: a thread of its own empties the ring buffers, the merge lags behind it */
	pthread_t drainer;
	bool drainer_on;
	atomic_bool drainer_stop;
	atomic_bool drainer_failed;
	char drainer_error[256];
	/* once stopped, a thread removes the instance while the run is stored */
	pthread_t remover;
	bool remover_on;
	pthread_mutex_t raw_lock;	/* the memory part of the CPUs' data (ra_rawcpu) */
	struct ra_rawmerge *merge;
	char *page;			/* a sub-buffer read */
	struct cpu_cap *cpu;
	struct ra_rawcpu *raw;	/* per CPU: the file of sub-buffers, lost counts */
	bool available[RA_EV_MAX];
	bool enabled[RA_EV_MAX];
	bool dynamic[RA_EV_MAX];	/* recorded from a dynamic event */
	struct ra_dynevents *dyn;
	int side;			/* RA_SIDE_* of the replay */
	uint64_t missed;		/* calls the dynamic events missed */
	int verbose;
};

static bool tracefs_mounted(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[1024];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char dev[256], dir[512], type[64];

		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3)
			found = strcmp(type, "tracefs") == 0;
	}
	fclose(f);
	return found;
}

int ra_tracefs_mount(bool *mounted)
{
	*mounted = false;
	if (tracefs_mounted())
		return 0;
	if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) < 0) {
		ra_set_error(RA_ERR_ENV, "tracefs is not mounted and cannot be mounted on '%s': %s%s",
			     TRACEFS_DIR, strerror(errno),
			     geteuid() ? " (ra-record needs root)" : "");
		return -1;
	}
	*mounted = true;
	return 0;
}

void ra_tracefs_unmount(bool mounted)
{
	/* Busy when another tracer uses it meanwhile: then it stays. */
	if (mounted)
		umount2(TRACEFS_DIR, UMOUNT_NOFOLLOW);
}

static bool stale_instance(const char *name)
{
	const char *p = name + strlen(INSTANCE_PREFIX);
	char *end;
	long pid = strtol(p, &end, 10);

	if (end == p || *end || pid <= 0)
		return false;
	if (pid == getpid())
		return true;	/* left by an earlier process that had our pid */
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/*
 * The instances directory is read directly: tracefs_instances() of libtracefs
 * 1.6 leaks its compiled pattern.
 */
int ra_tracer_cleanup_stale(ra_notice_fn notice, void *arg)
{
	const char *top = tracefs_tracing_dir();
	char path[4096];
	struct dirent *de;
	int removed = 0;
	DIR *d;

	if (!top)
		return 0;
	snprintf(path, sizeof(path), "%s/instances", top);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct tracefs_instance *inst;

		if (strncmp(de->d_name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) != 0 ||
		    !stale_instance(de->d_name))
			continue;
		inst = tracefs_instance_alloc(NULL, de->d_name);
		if (inst && tracefs_instance_destroy(inst) == 0) {
			removed++;
			if (notice) {
				char msg[320];

				snprintf(msg, sizeof(msg), "removed stale instance '%s'", de->d_name);
				notice(msg, arg);
			}
		}
		tracefs_instance_free(inst);
	}
	closedir(d);
	return removed;
}

static int tracing_unavailable(void)
{
	const char *dir = tracefs_tracing_dir();

	if (!dir) {
		ra_set_error(RA_ERR_ENV, "tracefs is not mounted and cannot be mounted%s",
			     geteuid() ? " (ra-record needs root)" : "");
		return -1;
	}
	if (access(dir, W_OK) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot write to '%s': %s (ra-record needs root)", dir,
			     strerror(errno));
		return -1;
	}
	return 0;
}

#define FILTER_MAX 4096

/*
 * "dev == 7340032 || (dev == 7340033 && sector >= 2048 && sector < 514048)":
 * block events of whole devices and of sector ranges; -1 when it does not fit
 */
static int range_filter(char *buf, size_t len, const struct ra_blk_range *r, int n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++) {
		const char *sep = i ? " || " : "";

		if (!r[i].nr)
			off += (size_t)snprintf(buf + off, len - off, "%sdev == %u", sep, r[i].dev);
		else
			off += (size_t)snprintf(buf + off, len - off,
						"%s(dev == %u && sector >= %llu && sector < %llu)",
						sep, r[i].dev, (unsigned long long)r[i].start,
						(unsigned long long)(r[i].start + r[i].nr));
	}
	return off < len ? 0 : -1;
}

/* "s_dev == 7340032 || s_dev == 7340033"; -1 when it does not fit */
static int dev_filter(char *buf, size_t len, const char *field, const uint32_t *devs, int n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s == %u", i ? " || " : "", field,
					devs[i]);
	return off < len ? 0 : -1;
}

/* Whether @type is in the comma-separated list of systems and system:event names. */
static bool selected(const char *list, int type)
{
	const char *sys = ra_event_system(type), *name = ra_event_name(type);
	size_t sl = strlen(sys);

	while (list && *list) {
		size_t len = strcspn(list, ",");

		if ((len == sl && strncmp(list, sys, sl) == 0) ||
		    (len == sl + 1 + strlen(name) && strncmp(list, sys, sl) == 0 &&
		     list[sl] == ':' && strncmp(list + sl + 1, name, strlen(name)) == 0))
			return true;
		list += len + (list[len] == ',');
	}
	return false;
}

int ra_events_validate(const char *list)
{
	while (list && *list) {
		size_t len = strcspn(list, ",");
		char item[128];
		bool known = false;

		snprintf(item, sizeof(item), "%.*s", (int)len, list);
		for (int t = 1; t < RA_EV_MAX && !known; t++)
			known = ra_event_name(t) && selected(item, t);
		if (!known) {
			ra_set_error(RA_ERR_USAGE, "no tracepoint of '%s' is recorded by ratrace",
				     item);
			return -1;
		}
		list += len + (list[len] == ',');
	}
	return 0;
}

/*
 * The recorder leaves itself out with a filter on the events that run in the
 * context of the task they describe. Not with set_event_notrace_pid: that
 * drops every event fired while the recorder is the current task, also
 * completions in interrupt context and page-cache deletions by reclaim that
 * concern other tasks' I/O and pages.
 */
bool ra_tracer_task_context(int type)
{
	switch (type) {
	case RA_EV_RQ_COMPLETE:
	case RA_EV_BIO_COMPLETE:
	case RA_EV_RQ_ERROR:
	case RA_EV_RQ_REQUEUE:
	case RA_EV_PAGE_DELETE:
		return false;
	default:
		return true;
	}
}

/* "FILTER" -> "(FILTER) && common_pid != PID", or "common_pid != PID" */
static void add_pid_filter(char *buf, size_t len, int type, pid_t pid)
{
	char dev[FILTER_MAX];

	if (pid <= 0 || !ra_tracer_task_context(type))
		return;
	snprintf(dev, sizeof(dev), "%s", buf);
	if (dev[0])
		snprintf(buf, len, "(%s) && common_pid != %d", dev, (int)pid);
	else
		snprintf(buf, len, "common_pid != %d", (int)pid);
}

static int enable_event(struct ra_tracer *tr, int type, const struct ra_tracer_opts *o)
{
	const char *sys = ra_event_system(type), *name = ra_event_name(type);
	char filter[FILTER_MAX + 64] = "";
	int fits = 0;

	if (!tr->available[type] || !selected(o->events ? o->events : RA_DEFAULT_EVENTS, type))
		return 0;
	if (type == RA_EV_FADVISE) {
		snprintf(filter, sizeof(filter), "advice == 3");	/* POSIX_FADV_WILLNEED */
	} else if (type == RA_EV_MADVISE) {
		snprintf(filter, sizeof(filter), "behavior == 3");	/* MADV_WILLNEED */
	} else if (type == RA_EV_SYS_READAHEAD) {
		/* no device to filter on: the forced windows that follow are */
	} else if (ra_event_class(type) == RA_CLASS_BLK) {
		if (type != RA_EV_PLUG && type != RA_EV_UNPLUG)
			fits = range_filter(filter, FILTER_MAX, o->blk, o->nblk);
	} else {
		fits = dev_filter(filter, FILTER_MAX, "s_dev", o->fs_devs, o->nfs_devs);
	}
	if (fits < 0) {
		ra_set_error(RA_ERR_USAGE, "too many devices for the filter of %s:%s", sys, name);
		return -1;
	}
	add_pid_filter(filter, sizeof(filter), type, o->notrace_pid);
	if (filter[0] && tracefs_event_file_write(tr->inst, sys, name, "filter", filter) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot set the filter of %s:%s", sys, name);
		return -1;
	}
	if (tracefs_event_enable(tr->inst, sys, name) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot enable %s:%s: %s", sys, name, strerror(errno));
		return -1;
	}
	tr->enabled[type] = true;
	return 0;
}

/* ---- the live sources (rows of ra_live_sources[]) ---- */

const struct ra_live_source ra_live_sources[] = {
	/* in the order of preference */
	{ .name = "tracepoint", .what = "the kernel's tracepoints (tracer.c)",
	  .describes = ra_tp_describes, .can = ra_tp_can, .enable = ra_tp_enable,
	  .gives = ra_tp_gives },
	{ .name = "kprobe",
	  .what = "kprobes made from the kernel's BTF where a tracepoint is missing (dynevent.c)",
	  .describes = ra_dyn_can, .can = ra_kp_can, .enable = ra_kp_enable,
	  .gives = ra_kp_gives },
	{ 0 }
};

const struct ra_live_source *ra_live_source_find(const char *name)
{
	for (const struct ra_live_source *s = ra_live_sources; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

bool ra_tp_describes(int type)
{
	return ra_event_name(type) != NULL;
}

bool ra_tp_can(struct ra_tracer *tr, int type)
{
	return tr->available[type];
}

int ra_tp_enable(struct ra_tracer *tr, const bool *want, const struct ra_tracer_opts *o)
{
	for (int t = 1; t < RA_EV_MAX; t++)
		if (want[t] && enable_event(tr, t, o) < 0)
			return -1;
	return 0;
}

bool ra_tp_gives(struct ra_tracer *tr, int type)
{
	return tr->enabled[type];
}

bool ra_kp_can(struct ra_tracer *tr, int type)
{
	(void)tr;
	return ra_dyn_can(type);
}

bool ra_kp_gives(struct ra_tracer *tr, int type)
{
	return tr->dynamic[type];
}

/*
 * The dynamic events of @want: made, then enabled in the instance with the
 * filters the tracepoints would have had.
 */
int ra_kp_enable(struct ra_tracer *tr, const bool *want, const struct ra_tracer_opts *o)
{
	const char *group, *ev;

	tr->dyn = ra_dyn_create(want, o->dyn_args);
	if (!tr->dyn) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	group = ra_dyn_group(tr->dyn);
	for (int i = 0; (ev = ra_dyn_event(tr->dyn, i)); i++) {
		char filter[FILTER_MAX + 64] = "", *fmt;
		bool has_dev;

		fmt = tracefs_event_file_read(tr->inst, group, ev, "format", NULL);
		has_dev = fmt && strstr(fmt, " s_dev;");
		free(fmt);
		if (has_dev && dev_filter(filter, FILTER_MAX, "s_dev", o->fs_devs, o->nfs_devs) < 0) {
			ra_set_error(RA_ERR_USAGE, "too many devices for the filter of %s:%s", group,
				     ev);
			return -1;
		}
		add_pid_filter(filter, sizeof(filter), RA_EV_SYNC_RA, o->notrace_pid);
		if (filter[0] &&
		    tracefs_event_file_write(tr->inst, group, ev, "filter", filter) < 0) {
			ra_set_error(RA_ERR_ENV, "cannot set the filter of %s:%s", group, ev);
			return -1;
		}
		if (tracefs_event_enable(tr->inst, group, ev) < 0) {
			ra_set_error(RA_ERR_ENV, "cannot enable %s:%s: %s", group, ev,
				     strerror(errno));
			return -1;
		}
	}
	for (int t = 1; t < RA_EV_MAX; t++)
		tr->dynamic[t] = want[t] && ra_dyn_state(tr->dyn, t, NULL, NULL) > 0;
	return 0;
}

static int open_tmpfile(const char *dir)
{
	char path[4096];
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/ra-record.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static int open_cpus(struct ra_tracer *tr, const char *tmpdir)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	tr->cpu = calloc((size_t)n, sizeof(*tr->cpu));
	tr->raw = calloc((size_t)n, sizeof(*tr->raw));
	if (!tr->cpu || !tr->raw)
		return -1;
	for (long i = 0; i < n; i++) {
		struct cpu_cap *c = &tr->cpu[tr->ncpus];
		struct ra_rawcpu *raw = &tr->raw[tr->ncpus];
		char path[64];

		snprintf(path, sizeof(path), "per_cpu/cpu%ld/trace_pipe_raw", i);
		/* close-on-exec: a workload that outlives a killed recorder must not keep
		 * its instance busy */
		c->fd = tracefs_instance_file_open(tr->inst, path,
						   O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0)
			continue;	/* CPU not possible here */
		raw->cpu = (int)i;
		raw->fd = open_tmpfile(tmpdir);
		raw->self = ra_self_file_begin(raw->fd);	/* its pages are not the run's */
		c->tcpu = tracefs_cpu_alloc_fd(c->fd, tr->subbuf, true);
		tr->ncpus++;
		if (raw->fd < 0) {
			ra_set_error(RA_ERR_ENV, "cannot create a buffer file in '%s': %s", tmpdir,
				     strerror(errno));
			return -1;
		}
		if (!c->tcpu) {
			ra_set_error(RA_ERR_ENV, "cannot read the cpu%ld ring buffer", i);
			return -1;
		}
	}
	return 0;
}

/* Read a small tracefs file (an event format) into @buf; its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/*
 * The event formats of @systems ("system", or "system/event" for one event)
 * in the instance directory @dir. Unlike
 * tracefs_local_events_system() this reads no kallsyms or printk formats,
 * which ratrace does not use and which cost more than the formats.
 */
static struct tep_handle *load_formats(const char *dir, const char *const *systems)
{
	struct tep_handle *tep = tep_alloc();
	static char buf[65536];
	char path[4096];
	ssize_t len;

	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	len = read_small(path, buf, sizeof(buf));
	if (!tep || len <= 0 || tep_parse_header_page(tep, buf, (unsigned long)len, sizeof(long)))
		goto fail;
	for (int i = 0; systems[i]; i++) {
		const char *slash = strchr(systems[i], '/');
		struct dirent *de;
		DIR *d;

		if (slash) {	/* one event of a large system */
			char sys[64];
			ssize_t n;

			snprintf(sys, sizeof(sys), "%.*s", (int)(slash - systems[i]), systems[i]);
			snprintf(path, sizeof(path), "%s/events/%s/format", dir, systems[i]);
			n = read_small(path, buf, sizeof(buf));
			if (n > 0)
				tep_parse_event(tep, buf, (unsigned long)n, sys);
			continue;
		}
		snprintf(path, sizeof(path), "%s/events/%s", dir, systems[i]);
		d = opendir(path);
		while (d && (de = readdir(d))) {
			ssize_t n;

			if (de->d_name[0] == '.' || de->d_type != DT_DIR)
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, systems[i],
				 de->d_name);
			n = read_small(path, buf, sizeof(buf));
			if (n > 0)
				tep_parse_event(tep, buf, (unsigned long)n, systems[i]);
		}
		if (d)
			closedir(d);
	}
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	tep_set_cpus(tep, (int)sysconf(_SC_NPROCESSORS_CONF));
	return tep;
fail:
	tep_free(tep);
	return NULL;
}

#define MAX_LIVE 4

/*
 * Each event from the first live source of ra_live_sources[] that can give it on
 * this kernel; --event-source names one that is then the only one for the
 * events it describes, or asks for every one that can (both).
 */
static int enable_sources(struct ra_tracer *tr, const struct ra_tracer_opts *o)
{
	static const char *const forced[] = { [RA_SOURCE_TRACEPOINT] = "tracepoint",
					      [RA_SOURCE_DYNAMIC] = "kprobe" };
	const char *list = o->events ? o->events : RA_DEFAULT_EVENTS;
	const struct ra_live_source *live[MAX_LIVE], *only = NULL;
	static bool want[MAX_LIVE][RA_EV_MAX];
	int n = 0;

	memset(want, 0, sizeof(want));
	for (const struct ra_live_source *s = ra_live_sources; s->name && n < MAX_LIVE; s++)
		live[n++] = s;
	if (o->dyn_mode == RA_SOURCE_TRACEPOINT || o->dyn_mode == RA_SOURCE_DYNAMIC)
		only = ra_live_source_find(forced[o->dyn_mode]);
	for (int t = 1; t < RA_EV_MAX; t++) {
		if (!ra_event_name(t) || !selected(list, t))
			continue;
		for (int k = 0; k < n; k++) {
			if (only && live[k] != only && only->describes(t))
				continue;
			if (!live[k]->describes(t) || !live[k]->can(tr, t))
				continue;
			want[k][t] = true;
			if (o->dyn_mode != RA_SOURCE_BOTH)
				break;
		}
	}
	for (int k = 0; k < n; k++)
		if (live[k]->enable(tr, want[k], o) < 0)
			return -1;
	return 0;
}

static int configure(struct ra_tracer *tr, const struct ra_tracer_opts *o)
{
	const char *systems[] = { "readahead", "filemap", "block", "syscalls/sys_enter_fadvise64",
				  "syscalls/sys_enter_readahead", "syscalls/sys_enter_madvise",
				  "task/task_newtask", NULL, NULL };
	char *dir;

	if (tracefs_trace_off(tr->inst) < 0 ||
	    tracefs_instance_set_buffer_size(tr->inst, o->buffer_kb, -1) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot size the trace buffer to %zu KiB per CPU: %s",
			     o->buffer_kb, strerror(errno));
		return -1;
	}
	snprintf(tr->clock, sizeof(tr->clock), "mono");
	if (tracefs_instance_file_write(tr->inst, "trace_clock", tr->clock) < 0)
		snprintf(tr->clock, sizeof(tr->clock), "local");
	tracefs_instance_file_write(tr->inst, "buffer_percent", "20");
	/* the process of each task (threads share a descriptor's readahead state) */
	tracefs_option_enable(tr->inst, TRACEFS_OPTION_RECORD_TGID);
	for (int t = 1; t < RA_EV_MAX; t++)
		tr->available[t] = ra_event_name(t) &&
				   tracefs_event_file_exists(tr->inst, ra_event_system(t),
							     ra_event_name(t), "enable");
	if (enable_sources(tr, o) < 0)
		return -1;
	/*
	 * the tasks made while it records, and whose threads they are, for the
	 * passes that follow the run (not stored; without it, saved_tgids)
	 */
	if (tracefs_event_file_exists(tr->inst, "task", "task_newtask", "enable"))
		tracefs_event_enable(tr->inst, "task", "task_newtask");
	systems[7] = ra_dyn_event(tr->dyn, 0) ? ra_dyn_group(tr->dyn) : NULL;
	dir = tracefs_instance_get_dir(tr->inst);
	tr->tep = load_formats(dir, systems);
	tracefs_put_tracing_file(dir);
	if (!tr->tep || !(tr->dec = ra_decoder_alloc(tr->tep, ra_dyn_lookup))) {
		ra_set_error(RA_ERR_ENV, "cannot read the event formats of the instance");
		return -1;
	}
	tr->subbuf = tep_get_sub_buffer_size(tr->tep);
	if (tr->subbuf <= 0)
		tr->subbuf = getpagesize();
	return open_cpus(tr, ra_tmpfile_dir());
}

/* A tracer that failed to start, undone: its error kept, and the cleanup's added. */
static void destroy_failed(struct ra_tracer *tr)
{
	int kind = ra_last_error_kind();
	char why[512], also[512];

	snprintf(why, sizeof(why), "%s", ra_last_error());
	if (ra_tracer_destroy(tr) == 0) {
		ra_set_error(kind, "%s", why);
		return;
	}
	snprintf(also, sizeof(also), "%s", ra_last_error());
	ra_set_error(kind, "%s; and %s", why, also);
}

struct ra_tracer *ra_tracer_create(const struct ra_tracer_opts *o)
{
	struct ra_tracer *tr;
	char name[64];

	if (tracing_unavailable() < 0)
		return NULL;
	ra_dyn_cleanup_stale(o->verbose > 0 ? o->notice : NULL, o->notice_arg);
	tr = calloc(1, sizeof(*tr));
	if (!tr) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	tr->verbose = o->verbose;
	pthread_mutex_init(&tr->raw_lock, NULL);
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", (int)getpid());
	tr->inst = tracefs_instance_create(name);
	if (!tr->inst) {
		ra_set_error(RA_ERR_ENV, "cannot create the tracefs instance '%s': %s", name,
			     strerror(errno));
		goto fail;
	}
	if (configure(tr, o) < 0)
		goto fail;
	return tr;
fail:
	destroy_failed(tr);
	return NULL;
}

int ra_tracer_start(struct ra_tracer *tr)
{
	if (tracefs_trace_on(tr->inst) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot start tracing: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int ra_tracer_ncpus(struct ra_tracer *tr)
{
	return tr->ncpus;
}

int ra_tracer_fd(struct ra_tracer *tr, int i)
{
	return tr->cpu[i].fd;
}

const char *ra_tracer_clock(struct ra_tracer *tr)
{
	return tr->clock;
}

/*
 * A CPU read empty through read(2), partial sub-buffers too, each stored
 * whole (the rest zero). At most @max sub-buffers: 0 emptied, 1 not yet.
 */
static int read_empty(struct ra_tracer *tr, struct cpu_cap *c, struct ra_rawcpu *raw, int max,
		      int64_t *total)
{
	int n;

	for (int i = 0; i < max; i++) {
		n = tracefs_cpu_flush(c->tcpu, tr->page);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				ra_set_error(RA_ERR_IO, "cannot save the cpu%d ring buffer: %s",
					     raw->cpu, strerror(errno));
				return -1;
			}
			return 0;
		}
		memset(tr->page + n, 0, (size_t)(tr->subbuf - n > 0 ? tr->subbuf - n : 0));
		if (ra_rawcpu_append(raw, tr->page, (size_t)tr->subbuf) < 0)
			return -1;
		c->bytes += (uint64_t)tr->subbuf;
		*total += tr->subbuf;
	}
	return 1;
}

/*
 * Live: every CPU read empty. What was committed before the drain began is
 * then in the files; an event being written as it began (reserved, its time
 * taken, not committed yet) is done within microseconds: 20 ms is the margin.
 */
static int64_t drain_full(struct ra_tracer *tr);

static int64_t drain_live(struct ra_tracer *tr)
{
	int64_t total = 0, start = ra_clock_ns(CLOCK_MONOTONIC);
	bool emptied = true;

	if (start - tr->flushed_at < FLUSH_NS)
		return drain_full(tr);
	tr->flushed_at = start;
	for (int i = 0; i < tr->ncpus; i++) {
		int rc = read_empty(tr, &tr->cpu[i], &tr->raw[i], 4096, &total);

		if (rc < 0)
			return -1;
		emptied &= rc == 0;
	}
	if (emptied && start > 20000000)
		tr->drained_below = (uint64_t)(start - 20000000);
	return total;
}

int64_t ra_tracer_drain(struct ra_tracer *tr)
{
	if (tr->drainer_on) {	/* its thread drains: only say how it fares */
		if (!atomic_load(&tr->drainer_failed))
			return 0;
		ra_set_error(RA_ERR_IO, "%s", tr->drainer_error);
		return -1;
	}
	if (tr->live)
		return drain_live(tr);
	return drain_full(tr);
}

/*
 * The thread that empties the ring buffers while the workload runs: woken
 * when one is filling (buffer_percent) and every DRAIN_NS, it moves whole
 * sub-buffers into memory and every FLUSH_NS the partly filled ones too, so
 * that no event is overwritten however far the merge lags behind.
 */
static void *drain_thread(void *arg)
{
	struct ra_tracer *tr = arg;
	struct pollfd *pfd = calloc((size_t)tr->ncpus, sizeof(*pfd));
	id_t tid = (id_t)syscall(SYS_gettid);
	int nice;

	ra_self_thread_begin();
	pthread_setname_np(pthread_self(), "ra-drain");
	/*
	 * Ahead of the workload and of the merge when the CPUs are all busy,
	 * also of a merge that runs ahead of the workload (ra-record's pace):
	 * it needs little CPU, but late it loses events (best effort: root)
	 */
	errno = 0;
	nice = getpriority(PRIO_PROCESS, tid);
	if (errno)
		nice = 0;
	setpriority(PRIO_PROCESS, tid, nice - DRAIN_NICE < -20 ? -20 : nice - DRAIN_NICE);
	for (int i = 0; pfd && i < tr->ncpus; i++)
		pfd[i] = (struct pollfd){ .fd = tr->cpu[i].fd, .events = POLLIN };
	while (pfd && !atomic_load(&tr->drainer_stop)) {
		if (poll(pfd, (nfds_t)tr->ncpus, DRAIN_NS / 1000000) < 0 && errno != EINTR)
			break;
		if (drain_live(tr) < 0) {
			snprintf(tr->drainer_error, sizeof(tr->drainer_error), "%s", ra_last_error());
			atomic_store(&tr->drainer_failed, true);
			break;
		}
	}
	if (!pfd) {
		snprintf(tr->drainer_error, sizeof(tr->drainer_error), "out of memory");
		atomic_store(&tr->drainer_failed, true);
	}
	free(pfd);
	ra_self_thread_end();
	return NULL;
}

static int drainer_start(struct ra_tracer *tr)
{
	atomic_store(&tr->drainer_stop, false);
	atomic_store(&tr->drainer_failed, false);
	if (pthread_create(&tr->drainer, NULL, drain_thread, tr) != 0) {
		ra_set_error(RA_ERR_IO, "cannot start the thread that reads the ring buffers");
		return -1;
	}
	tr->drainer_on = true;
	return 0;
}

/* The thread stopped; 0, or -1 when an error had stopped it (set if @say). */
static int drainer_join(struct ra_tracer *tr, bool say)
{
	if (!tr->drainer_on)
		return 0;
	atomic_store(&tr->drainer_stop, true);
	pthread_join(tr->drainer, NULL);
	tr->drainer_on = false;
	if (!atomic_load(&tr->drainer_failed))
		return 0;
	if (say)
		ra_set_error(RA_ERR_IO, "%s", tr->drainer_error);
	return -1;
}

/*
 * Whole sub-buffers only (a partly filled one stays with its writer): into
 * memory while the workload runs, else to the file.
 */
static int drain_one(struct ra_tracer *tr, struct cpu_cap *c, struct ra_rawcpu *raw)
{
	int n;

	if (!tr->live)
		n = tracefs_cpu_write(c->tcpu, raw->fd, true);
	else if ((n = tracefs_cpu_buffered_read(c->tcpu, tr->page, true)) > 0 &&
		 ra_rawcpu_append(raw, tr->page, (size_t)n) < 0)
		return -2;
	if (n > 0)
		raw->end += tr->live ? 0 : (uint64_t)n;
	return n;
}

static int64_t drain_full(struct ra_tracer *tr)
{
	int64_t total = 0;

	for (int i = 0; i < tr->ncpus; i++) {
		struct cpu_cap *c = &tr->cpu[i];
		int n;

		while ((n = drain_one(tr, c, &tr->raw[i])) > 0) {
			c->bytes += (uint64_t)n;
			total += n;
		}
		if (n == -2)
			return -1;
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			ra_set_error(RA_ERR_IO, "cannot save the cpu%d ring buffer: %s",
				     tr->raw[i].cpu, strerror(errno));
			return -1;
		}
	}
	return total;
}

/* Read the partly filled sub-buffers; each is stored whole to keep alignment. */
static int flush_cpu(struct ra_tracer *tr, struct cpu_cap *c, struct ra_rawcpu *raw)
{
	char *buf = malloc((size_t)tr->subbuf);
	int n, ret = 0;

	if (!buf)
		return -1;
	while ((n = tracefs_cpu_flush(c->tcpu, buf)) > 0) {
		memset(buf + n, 0, (size_t)(tr->subbuf - n > 0 ? tr->subbuf - n : 0));
		if (ra_rawcpu_append(raw, buf, (size_t)tr->subbuf) < 0) {
			ret = -1;
			break;
		}
		c->bytes += (uint64_t)tr->subbuf;
	}
	free(buf);
	return ret;
}

static int64_t stat_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

static void read_stats(struct ra_tracer *tr, struct cpu_cap *c, int cpu)
{
	char path[64], *text;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(tr->inst, path, NULL);
	if (!text) {
		c->overrun = c->dropped = c->read_events = -1;
		return;
	}
	c->overrun = stat_field(text, "\noverrun:");
	c->dropped = stat_field(text, "dropped events:");
	c->read_events = stat_field(text, "read events:");
	free(text);
}

/*
 * The "PID TEXT" lines of the tracefs file @name, each given to @cb (with
 * the text after the space, ended by the line's end) until it returns
 * non-zero. A line at a time: sscanf over the rest of the file would
 * measure all of it for each line (saved_tgids has a line a pid).
 */
static int pid_lines(const char *name, int (*cb)(int pid, char *text, void *arg), void *arg)
{
	char *text = tracefs_instance_file_read(NULL, name, NULL);
	int ret = 0;

	for (char *line = text, *next; line && *line && ret == 0; line = next) {
		char *end;
		long pid;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		errno = 0;
		pid = strtol(line, &end, 10);
		if (!errno && end != line && *end == ' ' && pid > 0 && pid <= INT_MAX)
			ret = cb((int)pid, end + 1, arg);
	}
	free(text);
	return ret;
}

struct tgid_walk {
	int (*cb)(int pid, int tgid, void *arg);
	void *arg;
};

static int tgid_line(int pid, char *text, void *arg)
{
	struct tgid_walk *w = arg;
	char *end;
	long tgid;

	errno = 0;
	tgid = strtol(text, &end, 10);
	if (errno || end == text || *end || tgid <= 0 || tgid > INT_MAX)
		return 0;
	return w->cb(pid, (int)tgid, w->arg);
}

/* A task's name the kernel saved (best effort: a name not taken is skipped). */
static int comm_line(int pid, char *text, void *arg)
{
	tep_register_comm(arg, text, pid);
	return 0;
}

/*
 * The instance's removal: the kernel frees its ring buffers and waits for
 * the tracepoints to be quiet (50 ms here), not worth waiting for.
 */
static void *remove_instance(void *arg)
{
	struct ra_tracer *tr = arg;

	pthread_setname_np(pthread_self(), "ra-remove");
	tracefs_instance_destroy(tr->inst);
	return NULL;
}

/* A CPU's trace_pipe_raw closed (once: it may be closed before the tracer goes). */
static void close_cpu(struct cpu_cap *c)
{
	if (c->tcpu)
		tracefs_cpu_free_fd(c->tcpu);
	if (c->fd >= 0)
		close(c->fd);
	c->tcpu = NULL;
	c->fd = -1;
}

/* The CPUs' files closed (an instance with a file open cannot go), then the instance. */
static void remover_start(struct ra_tracer *tr)
{
	sigset_t all, old;

	for (int i = 0; i < tr->ncpus; i++)
		close_cpu(&tr->cpu[i]);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	tr->remover_on = pthread_create(&tr->remover, NULL, remove_instance, tr) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int ra_tracer_stop(struct ra_tracer *tr)
{
	int ret = 0;

	tracefs_trace_off(tr->inst);
	tr->missed = ra_dyn_missed(tr->dyn);
	if (drainer_join(tr, true) < 0 || ra_tracer_drain(tr) < 0)
		ret = -1;
	for (int i = 0; i < tr->ncpus; i++) {
		if (flush_cpu(tr, &tr->cpu[i], &tr->raw[i]) < 0)
			ret = -1;
		read_stats(tr, &tr->cpu[i], tr->raw[i].cpu);
	}
	/* Task names the kernel saved while tracing (best effort). */
	pid_lines("saved_cmdlines", comm_line, tr->tep);
	/* what the instance holds is read: what else it did is in tr */
	if (ret == 0)
		remover_start(tr);
	return ret;
}

void ra_tracer_side(struct ra_tracer *tr, int side)
{
	tr->side = side;
	ra_decoder_side(tr->dec, side);
}

/*
 * Memory for the sub-buffers not yet stored: LIVE_TAIL in all (or
 * RATRACE_LIVE_MEMORY_KB), at least one sub-buffer a CPU.
 */
static size_t live_tail(const struct ra_tracer *tr)
{
	const char *env = getenv("RATRACE_LIVE_MEMORY_KB");
	size_t all = env && *env ? (size_t)strtoull(env, NULL, 10) << 10 : LIVE_TAIL;
	size_t n = all / (size_t)tr->subbuf / (size_t)tr->ncpus;

	return (n < 1 ? 1 : n) * (size_t)tr->subbuf;
}

int ra_tracer_live_begin(struct ra_tracer *tr)
{
	if (strcmp(tr->clock, "mono") != 0)
		return 1;	/* the mark is a time of the trace's clock */
	tr->page = malloc((size_t)tr->subbuf);
	tr->merge = tr->page ? ra_rawmerge_new(tr->tep, tr->dec, tr->raw, tr->ncpus) : NULL;
	if (!tr->merge) {
		free(tr->page);
		tr->page = NULL;
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	for (int i = 0; i < tr->ncpus; i++) {
		tr->raw[i].lock = &tr->raw_lock;
		if (ra_rawcpu_keep(&tr->raw[i], live_tail(tr)) < 0)
			return -1;
	}
	tr->live = true;
	tr->drained_below = 0;
	tr->flushed_at = 0;
	return drainer_start(tr);
}

void ra_tracer_on_newtask(struct ra_tracer *tr, ra_newtask_fn fn, void *arg)
{
	ra_decoder_on_newtask(tr->dec, fn, arg);
}

int ra_tracer_live_step(struct ra_tracer *tr, uint64_t max_events, ra_event_cb cb, void *arg)
{
	int ret;

	if (!tr->merge)
		return 0;
	ret = ra_rawmerge_step(tr->merge, tr->drained_below, max_events, false, cb, arg);
	ra_rawmerge_release(tr->merge);	/* read once: nothing is replayed again */
	return ret;
}

int ra_tracer_live_end(struct ra_tracer *tr, ra_event_cb cb, void *arg)
{
	int ret;

	if (!tr->merge)
		return ra_tracer_replay(tr, cb, arg);
	ret = ra_rawmerge_step(tr->merge, UINT64_MAX, UINT64_MAX, true, cb, arg);
	ra_rawmerge_free(tr->merge);
	tr->merge = NULL;
	tr->live = false;
	for (int i = 0; i < tr->ncpus; i++)
		if (ra_rawcpu_release(&tr->raw[i]) < 0)
			ret = -1;
	return ret < 0 ? -1 : 0;
}

void ra_tracer_position(struct ra_tracer *tr, uint64_t *done, uint64_t *total)
{
	*done = *total = 0;
	for (int i = 0; i < tr->ncpus; i++) {
		*done += tr->raw[i].done;
		*total += tr->raw[i].size;
	}
}

int ra_tracer_replay(struct ra_tracer *tr, ra_event_cb cb, void *arg)
{
	return ra_rawbuf_replay(tr->tep, tr->dec, tr->raw, tr->ncpus, cb, arg);
}

const char *ra_tracer_comm(struct ra_tracer *tr, int pid)
{
	const char *comm;

	if (!tr->tep || !tep_is_pid_registered(tr->tep, pid))
		return NULL;
	comm = tep_data_comm_from_pid(tr->tep, pid);
	return comm && comm[0] != '<' ? comm : NULL;
}

int ra_tracer_tgids(struct ra_tracer *tr, int (*cb)(int pid, int tgid, void *arg), void *arg)
{
	struct tgid_walk w = { cb, arg };

	(void)tr;
	return pid_lines("saved_tgids", tgid_line, &w);
}

uint64_t ra_tracer_lost(struct ra_tracer *tr)
{
	uint64_t lost = 0;

	for (int i = 0; i < tr->ncpus; i++) {
		struct cpu_cap *c = &tr->cpu[i];
		uint64_t ring = (uint64_t)(c->overrun > 0 ? c->overrun : 0) +
				(uint64_t)(c->dropped > 0 ? c->dropped : 0);

		lost += ring > tr->raw[i].missed ? ring : tr->raw[i].missed;
	}
	return lost;
}

/* Where each event that has a dynamic version came from in this run. */
static int store_sources(struct ra_tracer *tr, struct ra_db *db, int64_t run_id)
{
	for (int t = 1; t < RA_EV_MAX; t++) {
		const char *args = ra_dyn_names_style(tr->dyn, t) ? "btf-names" : "btf-offsets";
		const char *def = NULL, *why = NULL, *src;
		bool tp, dyn;
		int st;

		if (!ra_dyn_can(t))
			continue;
		st = ra_dyn_state(tr->dyn, t, &def, &why);
		/* recorded from both sources, each side is a run of its own */
		tp = tr->enabled[t] && tr->side != RA_SIDE_DYNAMIC;
		dyn = st > 0 && tr->side != RA_SIDE_TRACEPOINT;
		src = dyn ? "kprobe" : tp ? "tracepoint" : "none";
		if (!dyn && !tp && st >= 0)
			why = tr->available[t] ? "not recorded" : RA_NOT_ASKED;
		if (ra_db_add_event_source(db, run_id, ra_event_system(t), ra_event_name(t), src,
					   dyn ? args : NULL, dyn ? def : NULL,
					   dyn || tp ? NULL : why) < 0)
			return -1;
	}
	return 0;
}

/* The self-check of a run whose readahead events came from dynamic events. */
static int store_selfcheck(struct ra_tracer *tr, struct ra_db *db, int64_t run_id)
{
	struct ra_selfcheck c;
	const char *state = "pass";
	char msg[400];
	bool any = false;

	for (int t = RA_EV_SYNC_RA; t <= RA_EV_RA_UNBOUNDED; t++)
		any |= tr->dynamic[t];
	if (!any || tr->side == RA_SIDE_TRACEPOINT)
		return 0;
	ra_decoder_selfcheck(tr->dec, &c);
	snprintf(msg, sizeof(msg), "%llu of %llu pages added inside readahead calls fell"
		 " outside their window (%llu windows)", (unsigned long long)c.outside,
		 (unsigned long long)c.pages, (unsigned long long)c.windows);
	/* what makes the count unsound first: then outside pages prove nothing */
	if (!ra_dyn_checked(tr->dyn)) {
		state = "incomplete";
		snprintf(msg, sizeof(msg), "cannot tell readahead's own pages: %s",
			 ra_dyn_check_why(tr->dyn));
	} else if (ra_tracer_lost(tr)) {
		state = "incomplete";
		snprintf(msg, sizeof(msg), "%llu events were lost",
			 (unsigned long long)ra_tracer_lost(tr));
	} else if (tr->missed) {
		state = "incomplete";
		snprintf(msg, sizeof(msg), "the probes missed %llu calls (kprobe_profile)",
			 (unsigned long long)tr->missed);
	} else if (c.outside) {
		state = "fail";
	}
	return ra_db_add_self_check(db, run_id, "readahead_windows", state, (int64_t)c.pages,
				    (int64_t)c.outside, msg);
}

/* One line per reason: the events it leaves out, and what the run still gives. */
int ra_tracer_notices(struct ra_tracer *tr, ra_notice_fn fn, void *arg)
{
	bool said[RA_EV_MAX] = { false };
	int n = 0;

	for (int t = 1; t < RA_EV_MAX; t++) {
		const char *why, *w2;
		char line[1024];
		size_t off;
		bool ra = false, unbounded = false;
		int count = 0;

		if (said[t] || ra_dyn_state(tr->dyn, t, NULL, &why) >= 0)
			continue;
		off = (size_t)snprintf(line, sizeof(line), "no dynamic event for");
		for (int u = t; u < RA_EV_MAX && off < sizeof(line); u++) {
			if (said[u] || ra_dyn_state(tr->dyn, u, NULL, &w2) >= 0 || strcmp(w2, why))
				continue;
			said[u] = true;
			count++;
			if (u == RA_EV_RA_UNBOUNDED)
				unbounded = true;
			else if (ra_event_class(u) == RA_CLASS_RA)
				ra = true;
			off += (size_t)snprintf(line + off, sizeof(line) - off, "%s %s:%s",
						u == t ? "" : ",", ra_event_system(u),
						ra_event_name(u));
		}
		if (off < sizeof(line))
			snprintf(line + off, sizeof(line) - off, " (%s): the run is recorded without"
				 " %s: %s", why, count > 1 ? "them" : "it",
				 ra ? "no windows, patterns or fates; block I/O and the page cache"
				      " are recorded" :
				 unbounded ? "no forced windows (fadvise, readahead(2), madvise),"
					     " and the self-check fails where they ran" :
				      "fates cannot tell pages used this way from pending ones");
		fn(line, arg);
		n++;
	}
	if (ra_dyn_event(tr->dyn, 0) && !ra_dyn_checked(tr->dyn) && ra_dyn_check_why(tr->dyn)[0]) {
		char line[512];

		snprintf(line, sizeof(line), "the self-check of the dynamic readahead events cannot"
			 " run: %s", ra_dyn_check_why(tr->dyn));
		fn(line, arg);
		n++;
	}
	return n;
}

int ra_tracer_store_meta(struct ra_tracer *tr, struct ra_db *db, int64_t run_id)
{
	for (int t = 1; t < RA_EV_MAX; t++) {
		if (!ra_event_name(t) || (!tr->available[t] && t == RA_EV_SLEEPRQ))
			continue;
		if (ra_db_add_tracepoint(db, run_id, ra_event_system(t), ra_event_name(t),
					 tr->available[t], tr->enabled[t]) < 0)
			return -1;
	}
	if (store_sources(tr, db, run_id) < 0 || store_selfcheck(tr, db, run_id) < 0)
		return -1;
	for (int i = 0; i < tr->ncpus; i++) {
		struct cpu_cap *c = &tr->cpu[i];

		/*
		 * Every event the kernel handed out (its "read events") is one the
		 * replay read from the files: one it did not is lost to the run,
		 * beside those the ring buffer dropped (which it never handed out).
		 */
		if (c->read_events >= 0 && (uint64_t)c->read_events > tr->raw[i].events)
			tr->raw[i].missed += (uint64_t)c->read_events - tr->raw[i].events;
		if (ra_db_add_lost(db, run_id, tr->raw[i].cpu, c->overrun, c->dropped,
				   (int64_t)tr->raw[i].missed, c->read_events) < 0)
			return -1;
	}
	return 0;
}

int ra_tracer_destroy(struct ra_tracer *tr)
{
	int ret;

	if (!tr)
		return 0;
	drainer_join(tr, false);	/* an error stopped the run with it still reading */
	pthread_mutex_destroy(&tr->raw_lock);
	ra_rawmerge_free(tr->merge);
	free(tr->page);
	for (int i = 0; i < tr->ncpus; i++) {
		close_cpu(&tr->cpu[i]);
		if (tr->raw[i].fd >= 0) {
			close(tr->raw[i].fd);
			ra_self_file_end(tr->raw[i].self);
		}
		ra_rawcpu_free(&tr->raw[i]);
	}
	free(tr->cpu);
	free(tr->raw);
	if (tr->remover_on) {
		pthread_join(tr->remover, NULL);
	} else if (tr->inst) {
		tracefs_trace_off(tr->inst);
		tracefs_instance_destroy(tr->inst);
	}
	tracefs_instance_free(tr->inst);
	/* after the instance that had them enabled */
	ret = ra_dyn_destroy(tr->dyn);
	ra_decoder_free(tr->dec);
	tep_free(tr->tep);
	free(tr);
	return ret;
}
