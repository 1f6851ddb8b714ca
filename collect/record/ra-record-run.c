// SPDX-License-Identifier: GPL-2.0
/*
 * ra-record: one run: the tracer, the workload, the trace stored.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ra-record.h"
#include "ra_bigmem.h"
#include "ra_progress.h"
#include "ra_sql.h"
#include "ra_version.h"

/* ---- one run ---- */

static void note_newtask(int parent, int child, uint64_t clone_flags, void *arg);

static int setup_tracer(struct rec *r)
{
	struct ra_tracer_opts o = { 0 };

	o.buffer_kb = r->opt->buffer_kb;
	o.events = r->opt->events;
	o.dyn_mode = r->opt->source;
	o.dyn_args = r->opt->probe_args;
	o.fs_devs = r->scope.fs_devs;
	o.nfs_devs = r->scope.nfs_devs;
	o.blk = r->scope.blk;
	o.nblk = r->scope.nblk;
	o.notrace_pid = getpid();
	o.verbose = r->opt->verbose;
	o.notice = rec_notice;
	o.notice_arg = r;
	if (ra_tracefs_mount(&r->mounted_tracefs) < 0)
		return -1;
	ra_tracer_cleanup_stale(r->opt->verbose > 0 ? rec_notice : NULL, r);
	r->tr = ra_tracer_create(&o);
	if (!r->tr)
		return -1;
	r->born.n = r->asked.n = 0;
	r->tg_ns = 0;
	ra_tracer_on_newtask(r->tr, note_newtask, r);
	/* once for the recording: every run of it has the same kernel */
	if (!r->said_sources && r->opt->verbose >= 0)
		ra_tracer_notices(r->tr, rec_notice, r);
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
	r->names = ra_names_alloc(r->fsmap, r->scope.fs_devs, r->opt->nfilter ? r->scope.nfs_devs : -1);
	if (!r->names)
		return -1;
	return r->opt->nfilter ? ra_names_walk(r->names) : 0;
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
		if (r->opt->verbose >= 0)
			fprintf(stderr, "ra-record: %s: %s\n", strsignal((int)si.ssi_signo),
				r->spawned ? "stopping the workload, keeping the trace" :
					     "stopping before the next run");
	}
}

/* A signal that came while no workload ran (setting up, storing): no more runs. */
bool rec_stop_requested(struct rec *r)
{
	handle_signal(r);
	return r->interrupted;
}

/* Every TICK_NS while the workload runs: settings changed, files opened. */
static void tick(struct rec *r, bool force)
{
	int64_t now = ra_clock_ns(CLOCK_MONOTONIC);

	if (!force && now - r->last_tick < TICK_NS)
		return;
	r->last_tick = now;
	ra_settings_check(r->settings, now);
	if (!r->wl.reaped) {
		pthread_mutex_lock(&r->names_lock);
		ra_names_scan(r->names, r->wl.pid);
		pthread_mutex_unlock(&r->names_lock);
	}
	r->tick_ns += ra_clock_ns(CLOCK_MONOTONIC) - now;
	r->nticks++;
}

/* events stored at most in one turn of the recording loop, between looks */
#define LIVE_STEP 65536
/* live: the longest a turn waits for a signal or output before storing more */
#define LIVE_WAIT_MS 20

static int store_event(const struct ra_event *ev, void *arg);
static int live_begin(struct rec *r);

/*
 * Live, with every CPU busy, the scheduler shares them between the workload
 * and the recorder, and a recorder given less than it needs falls behind
 * without bound: the rest waits for the workload's end. Once the store is
 * BEHIND_NS behind the kernel's events, the threads that store them (this
 * one and the tap threads) run AHEAD_NICE below the recorder's nice value,
 * ahead of the workload's, until they are within a fifth of it again. A
 * recorder that keeps up changes nothing; one that cannot takes its CPU
 * while the workload runs instead of after it, and the run is complete a
 * bounded time after the workload's end (best effort: lowering a nice value
 * needs CAP_SYS_NICE). They stay behind the thread that empties the ring
 * buffers, which runs at -20 at worst: at -19 at most.
 * RATRACE_BEHIND_MS sets BEHIND_NS (0: ahead all the time).
 */
#define BEHIND_NS 250000000
#define BEHIND_MAX_MS 3600000
#define AHEAD_NICE 5

static void pace_begin(struct rec *r)
{
	const char *env = getenv("RATRACE_BEHIND_MS");
	char *end;
	long long ms;

	errno = 0;
	r->base_nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	if (errno)
		r->base_nice = 0;
	r->behind_ns = BEHIND_NS;
	if (env && *env) {
		errno = 0;
		ms = strtoll(env, &end, 10);
		if (!errno && !*end && ms >= 0 && ms <= BEHIND_MAX_MS)
			r->behind_ns = (int64_t)ms * 1000000;
	}
	r->ahead = false;
	r->cannot_ahead = r->base_nice <= -19;	/* no room left above -19 */
	r->merged_ns = 0;
	r->ahead_ns = 0;
	r->nahead = 0;
}

static void set_ahead(struct rec *r, bool ahead)
{
	int nice = ahead ? r->base_nice - AHEAD_NICE : r->base_nice;
	int64_t now = ra_clock_ns(CLOCK_MONOTONIC);

	if (ahead == r->ahead || (ahead && r->cannot_ahead))
		return;
	if (nice < -19)
		nice = -19;
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice) < 0 && ahead) {
		r->cannot_ahead = true;
		return;
	}
	/* the tap threads are the recorder's too: what this thread may, they may */
	ra_tapq_nice(nice);
	r->ahead = ahead;
	if (ahead) {
		r->ahead_since = now;
		r->nahead++;
	} else {
		r->ahead_ns += now - r->ahead_since;
	}
}

/* @backlog: the merge stopped with events before the drained time still to store */
static void pace(struct rec *r, int backlog)
{
	int64_t behind = backlog && r->merged_ns ?
		ra_clock_ns(CLOCK_MONOTONIC) - (int64_t)r->merged_ns : 0;

	if (!r->ahead && behind >= r->behind_ns)
		set_ahead(r, true);
	else if (r->ahead && behind < r->behind_ns / 5)
		set_ahead(r, false);
}

static int record_loop(struct rec *r)
{
	int ncpus = ra_tracer_ncpus(r->tr);
	struct pollfd *pfd = calloc((size_t)ncpus + 3, sizeof(*pfd));
	int n, backlog = 0;

	if (!pfd) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	pace_begin(r);
	while (!r->wl.reaped) {
		/* live, a thread of the tracer empties the ring buffers: not polled here */
		for (n = 0; n < ncpus; n++)
			pfd[n] = (struct pollfd){ .fd = r->live ? -1 : ra_tracer_fd(r->tr, n),
						  .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = r->sigfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = r->wl.out_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = r->wl.errout_fd, .events = POLLIN };
		/* with events still to store, only a look at what came */
		if (poll(pfd, (nfds_t)n, backlog ? 0 : r->live ? LIVE_WAIT_MS : TICK_NS / 1000000) < 0 &&
		    errno != EINTR)
			break;
		if (ra_tracer_drain(r->tr) < 0 ||
		    (r->live && (backlog = ra_tracer_live_step(r->tr, LIVE_STEP, store_event, r)) < 0)) {
			set_ahead(r, false);
			free(pfd);
			return -1;
		}
		if (r->live)
			pace(r, backlog);
		if (r->wl.out_fd >= 0 && pfd[ncpus + 1].revents)
			ra_workload_pump(&r->wl, r->wl.out_fd);
		if (r->wl.errout_fd >= 0 && pfd[ncpus + 2].revents)
			ra_workload_pump(&r->wl, r->wl.errout_fd);
		if (pfd[ncpus].revents)
			handle_signal(r);
		tick(r, false);
	}
	set_ahead(r, false);	/* a workload made after this one starts as this one did */
	free(pfd);
	r->end_mono = ra_clock_ns(CLOCK_MONOTONIC);
	r->step_ns = r->end_mono;
	pthread_mutex_lock(&r->names_lock);
	r->scan_pid = 0;	/* its processes are gone: nothing more to look at */
	pthread_mutex_unlock(&r->names_lock);
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
	if (ra_workload_spawn(&r->wl, r->opt->argv, r->opt->capture) < 0)
		return -1;
	r->spawned = true;
	if (ra_tracer_start(r->tr) < 0)
		return -1;
	snapshot(r, false);
	r->start_unix = ra_clock_ns(CLOCK_REALTIME);
	r->start_mono = ra_clock_ns(CLOCK_MONOTONIC);
	r->last_tick = r->start_mono;
	pthread_mutex_lock(&r->names_lock);
	r->scan_pid = r->wl.pid;
	pthread_mutex_unlock(&r->names_lock);
	if (live_begin(r) < 0 || ra_workload_start(&r->wl) < 0)
		return -1;
	if (record_loop(r) < 0)
		return -1;
	tick(r, true);		/* the settings once more, before they are put back */
	rec_step(r, "workload's output, settings looked at");
	wait_inflight(r);
	rec_step(r, "I/O in flight completed");
	snapshot(r, true);
	if (ra_tracer_stop(r->tr) < 0)
		return -1;
	rec_step(r, "counters read, tracing stopped");
	return 0;
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

/*
 * Over what saved_tgids say at the end, the processes /proc gave the passes
 * while the tasks lived, and those of the tasks made during the run, as
 * their making said (process_of).
 */
static int store_known_tgids(struct rec *r, const struct pidtab *t)
{
	struct ra_stmt *st = ra_sql_prepare(r->db, "UPDATE tasks SET tgid = ? WHERE run_id = ?"
						   " AND pid = ?");
	int ret = st ? 0 : -1;

	for (size_t i = 0; i < t->n && ret == 0; i++) {
		ra_big_tick();
		if (t->a[i].val > 0)
			ret = ra_sql_put(st, "iii", (int64_t)t->a[i].val, r->run_id,
					 (int64_t)t->a[i].pid);
	}
	ra_sql_finalize(st);
	return ret;
}

static int *pidtab_at(struct pidtab *t, int pid, bool add);

/* The process saved_tgids says of a task of the run (of any other: nothing). */
static int saved_of_run(int pid, int tgid, void *arg)
{
	int *at = pidtab_at(arg, pid, false);

	if (at)
		*at = tgid;
	return 0;
}

/*
 * The process of each task the run names, as saved_tgids says at the end
 * (a line a pid the kernel has had: the tasks the trace does not name are
 * skipped), then over it what store_known_tgids keeps.
 */
static int store_saved_tgids(struct rec *r)
{
	struct ra_stmt *st = ra_sql_prepare(r->db, "SELECT pid FROM tasks WHERE run_id = ?"
						   " ORDER BY pid");
	struct pidtab run = { 0 };
	int ret = st && ra_sql_bind(st, "i", r->run_id) == 0 ? 0 : -1;

	while (ret == 0 && (ret = ra_sql_step(st)) == 1) {
		int64_t pid = ra_sql_int(st, 0);

		ret = pid <= 0 || pid > INT_MAX || pidtab_at(&run, (int)pid, true) ? 0 : -1;
		if (ret < 0)
			ra_set_error(RA_ERR_IO, "out of memory");
	}
	ra_sql_finalize(st);
	if (ret == 0 && ra_tracer_tgids(r->tr, saved_of_run, &run) < 0)
		ret = -1;
	if (ret == 0)
		ret = store_known_tgids(r, &run);
	ra_big_free(run.a);
	return ret;
}

static int store_event(const struct ra_event *ev, void *arg)
{
	struct rec *r = arg;

	r->merged_ns = ev->ts_ns;
	/* the recorder's threads other than the one its pid filter leaves out */
	if (ra_tracer_task_context(ev->type) && ra_self_task(ev->pid, (int64_t)ev->ts_ns))
		return 0;
	/* the pages of its own files, which leave the page cache in no task's name */
	if (ev->type == RA_EV_PAGE_DELETE &&
	    ra_self_file(ev->page.dev, ev->page.ino, (int64_t)ev->ts_ns))
		return 0;

	if ((++r->stored_events & 0xffff) == 0 && r->progress) {
		uint64_t done, total;

		ra_tracer_position(r->tr, &done, &total);
		ra_progress_update(r->progress, "storing the events", r->stored_events, done, total);
	}
	return ra_scope_keep(&r->scope, ev) ? ra_writer_add(r->w, ev) : 0;
}

/* The file systems of the run and the readahead setting in force for each. */
static int store_filesystems(struct rec *r, int64_t run_id)
{
	struct ra_scope_store o = { .db = r->db, .run_id = run_id, .settings = r->settings,
				    .names = r->names, .notice = rec_notice, .arg = r };

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
			.transport = s->bd.transport, .vendor = s->bd.vendor,
			.model = s->bd.model, .firmware = s->bd.firmware,
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
	info->origin = "record";
	info->argv = r->opt->argv;
	info->start_unix_ns = r->start_unix;
	info->kernel = r->si.kernel;
	info->hostname = r->si.hostname;
	info->machine = r->si.machine;
	info->page_size = r->si.page_size;
	info->cpus = r->si.cpus;
	info->mem_bytes = r->si.mem_bytes;
	info->trace_clock = ra_tracer_clock(r->tr);
	info->buffer_kb = (int64_t)r->opt->buffer_kb;
	info->tool_version = RA_VERSION;
	info->execution = "host";
}

/* The writer of run @run_id's events. */
static int store_begin(struct rec *r, int64_t run_id)
{
	char comm[16];

	ra_writer_free(r->w);	/* the first run of a recording stored twice */
	r->w = ra_writer_alloc(r->db, run_id);
	if (!r->w)
		return -1;
	ra_writer_set_namer(r->w, name_task, r);
	snprintf(comm, sizeof(comm), "%s", basename(r->opt->argv[0]));
	ra_writer_note_task(r->w, r->wl.pid, comm);
	ra_scope_reset(&r->scope);
	r->run_id = run_id;
	r->stored_events = 0;
	return 0;
}

/* ---- what the readahead pass asks while the run is stored (the store thread) ---- */

#define LIVE_LOOK_NS 10000000	/* between two looks for an answer not known */

/*
 * The size of a file the workload has had open, the size its name will be
 * stored with; its processes' open files looked at again when it was not seen.
 */
static int64_t live_size(uint32_t dev, uint64_t ino, void *arg)
{
	struct rec *r = arg;
	int64_t size = -1, now = ra_clock_ns(CLOCK_MONOTONIC);

	pthread_mutex_lock(&r->names_lock);
	if (!ra_names_open_size(r->names, dev, ino, &size) && r->scan_pid > 0 &&
	    now - r->scan_ns >= LIVE_LOOK_NS) {
		r->scan_ns = now;
		ra_names_scan(r->names, r->scan_pid);
		if (!ra_names_open_size(r->names, dev, ino, &size))
			size = -1;
	}
	/* not seen open: its size now, from its inode number, as the run will name it */
	if (size < 0 && !ra_names_size_by_ino(r->names, dev, ino, &size))
		size = -1;
	pthread_mutex_unlock(&r->names_lock);
	return size;
}

static int add_tgid(int pid, int tgid, void *arg)
{
	struct rec *r = arg;

	if (r->ntg == r->captg) {
		size_t cap = r->captg ? r->captg * 2 : 256;
		void *p = realloc(r->tg, cap * sizeof(*r->tg));

		if (!p)
			return -1;
		r->tg = p;
		r->captg = cap;
	}
	r->tg[r->ntg].pid = pid;
	r->tg[r->ntg++].tgid = tgid;
	return 0;
}

static int cmp_tg(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The process of live task @pid from /proc, 0 when it is gone. */
static int proc_tgid(int pid)
{
	char path[64], buf[512];
	const char *at;
	ssize_t n;
	int fd, tgid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	at = strstr(buf, "\nTgid:");
	if (!at || sscanf(at + 6, "%d", &tgid) != 1 || tgid <= 0)
		return 0;
	return tgid;
}

/*
 * The value of @pid in @t, NULL when it has none; with @add, made 0 when
 * new (NULL: no memory). Pids mostly grow: a new one mostly goes at the end.
 * At most one entry a pid (big memory: pid_max can be 4 M).
 */
static int *pidtab_at(struct pidtab *t, int pid, bool add)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->a[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->a[lo].pid == pid)
		return &t->a[lo].val;
	if (!add)
		return NULL;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		void *p = ra_big_realloc(t->a, cap * sizeof(*t->a));

		if (!p)
			return NULL;
		t->a = p;
		t->cap = cap;
	}
	memmove(&t->a[lo + 1], &t->a[lo], (t->n - lo) * sizeof(*t->a));
	t->n++;
	t->a[lo] = (struct pidval){ .pid = pid };
	return &t->a[lo].val;
}

/* The kernel's saved_tgids, read again when older than LIVE_LOOK_NS. */
static const int *saved_tgid(struct rec *r, int pid)
{
	int64_t now = ra_clock_ns(CLOCK_MONOTONIC);

	if (!r->tg_ns || now - r->tg_ns >= LIVE_LOOK_NS) {
		r->tg_ns = now;
		r->ntg = 0;
		if (ra_tracer_tgids(r->tr, add_tgid, r) < 0)
			r->ntg = 0;
		qsort(r->tg, r->ntg, sizeof(*r->tg), cmp_tg);
	}
	return r->ntg ? bsearch(&pid, r->tg, r->ntg, sizeof(*r->tg), cmp_tg) : NULL;
}

/*
 * The process of task @pid (under tg_lock), 0 when not known: for a task
 * made during the run, what its making said (note_newtask); while it
 * lives, what /proc says, an answer kept and stored with the run
 * (store_known_tgids); for a task gone since, the kernel's saved_tgids,
 * which take a task's process at a context switch after its events, its
 * last one at the latest (until then they hold the process of an earlier
 * task of that pid).
 */
static int process_of(struct rec *r, int pid)
{
	int *known = pidtab_at(&r->born, pid, false);
	const int *saved;
	int tgid;

	if (!known)
		known = pidtab_at(&r->asked, pid, false);
	if (known)
		return *known;
	tgid = proc_tgid(pid);
	if (tgid > 0) {
		known = pidtab_at(&r->asked, pid, true);
		if (known)
			*known = tgid;
		return tgid;
	}
	saved = saved_tgid(r, pid);
	return saved ? saved[1] : 0;
}

/* The process of a task, asked when a pass first meets it; 0 when not known. */
static int live_tgid(int pid, void *arg)
{
	struct rec *r = arg;
	int tgid;

	pthread_mutex_lock(&r->tg_lock);
	tgid = process_of(r, pid);
	pthread_mutex_unlock(&r->tg_lock);
	return tgid;
}

/*
 * A task made (decoded in time order, before any event of the task): a
 * thread of its maker's process, or a process of its own.
 */
static void note_newtask(int parent, int child, uint64_t clone_flags, void *arg)
{
	struct rec *r = arg;
	int tgid = child, *at;

	if (child <= 0)
		return;
	pthread_mutex_lock(&r->tg_lock);
	if (clone_flags & CLONE_THREAD) {
		tgid = process_of(r, parent);
		if (tgid <= 0)
			tgid = parent;
	}
	at = pidtab_at(&r->born, child, true);
	if (at)
		*at = tgid;	/* without memory, asked later as any other task */
	pthread_mutex_unlock(&r->tg_lock);
}

/* The file system type of the events' device @dev, for the replay. */
static const char *live_fstype(uint32_t dev, void *arg)
{
	struct rec *r = arg;
	const struct ra_fs *fs = ra_fsmap_find(r->fsmap, dev);

	/* as the run's filesystems rows will say: none for a file system without I/O */
	return fs && fs->mnt && !fs->pseudo ? fs->mnt->fstype : NULL;
}

/*
 * Whether file system @fs_dev is on block device @blkdev: one of its
 * devices, or that device's disk, as the run's filesystems and devices rows
 * will have it (the block pass checks the answers against them).
 */
static bool live_fs_holds(uint32_t fs_dev, uint32_t blkdev, void *arg)
{
	struct rec *r = arg;
	const struct ra_fs *fs = ra_fsmap_find(r->fsmap, fs_dev);

	for (int i = 0; fs && i < fs->ndevs; i++) {
		if (fs->devs[i] == blkdev)
			return true;
		for (int k = 0; k < r->nsnaps; k++)
			if (r->snaps[k].bd.dev == fs->devs[i] && r->snaps[k].bd.parent == blkdev)
				return true;
	}
	return false;
}

/*
 * The partitions the run traces without their disk, as its devices rows
 * will say (the block pass's load_parts()): their disk's events in their
 * sectors are theirs.
 */
static int live_parts(const struct rec *r, struct ra_live_part *out, int max)
{
	int n = 0;

	for (int i = 0; i < r->nsnaps && n < max; i++) {
		const struct snapdev *p = &r->snaps[i];
		bool disk_traced = false;

		if ((strcmp(p->role, "filter") && strcmp(p->role, "member")) ||
		    p->bd.parent == p->bd.dev || !p->bd.parent || !p->bd.nr_sectors)
			continue;
		for (int k = 0; k < r->nsnaps && !disk_traced; k++)
			disk_traced = r->snaps[k].bd.dev == p->bd.parent &&
				      strcmp(r->snaps[k].role, "setting") != 0;
		if (!disk_traced)
			out[n++] = (struct ra_live_part){ .dev = p->bd.dev, .disk = p->bd.parent,
							  .start = p->bd.start,
							  .nr_sectors = p->bd.nr_sectors };
	}
	return n;
}

/* The devices' largest request and the readahead size the run found on them. */
static void live_devices(const struct rec *r, struct ra_live_inputs *in)
{
	for (int i = 0; i < r->nsnaps; i++) {
		const struct snapdev *s = &r->snaps[i];

		if (!s->have_before)
			continue;
		if (s->before.max_sectors_kb > in->max_sectors_kb)
			in->max_sectors_kb = (int)s->before.max_sectors_kb;
		if (s->before.read_ahead_kb > in->read_ahead_kb)
			in->read_ahead_kb = (int)s->before.read_ahead_kb;
	}
}

/* The tap: the readahead pass, the block pass, each event as stored; the replay's thread. */
static int live_tap(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct rec *r = arg;

	if (r->ralive)
		ra_live_event(ev, seq, r->ralive);
	if (r->bklive)
		ra_block_live_event(ev, seq, r->bklive);
	if (r->rpq)
		ra_tapq_put(r->rpq, ev, seq);
	return 0;
}

/*
 * The readahead pass, the block pass and the replay follow the events as
 * they are stored, when they can (the block pass: with the completions
 * recorded; the replay: from the tracepoints, whose windows say their folio
 * order).
 */
static void live_analysis(struct rec *r, int64_t run_id, const struct ra_run_info *info)
{
	struct ra_live_inputs in = {
		.page_size = info->page_size, .tgid = live_tgid, .size = live_size, .arg = r,
		.completions = ra_tp_gives(r->tr, RA_EV_RQ_COMPLETE) ||
			       ra_tp_gives(r->tr, RA_EV_BIO_COMPLETE),
		.fstype = live_fstype, .fs_holds = live_fs_holds,
	};

	struct ra_live_part parts[64];

	live_devices(r, &in);
	in.parts = parts;
	in.nparts = live_parts(r, parts, 64);
	r->ralive = r->opt->analyze ? ra_live_begin(r->db, run_id, &in) : NULL;
	r->bklive = r->ralive && ra_tp_gives(r->tr, RA_EV_RQ_COMPLETE) ?
		    ra_block_live_begin(r->db, run_id, r->ralive, &in) : NULL;
	r->rplive = r->ralive && ra_tp_gives(r->tr, RA_EV_RA_ORDER) ?
		    ra_replay_live_begin(r->db, run_id, &in) : NULL;
	/* the replay costs as much as the other two: a stage of its own */
	r->rpq = r->rplive ? ra_tapq_start(ra_replay_live_event, r->rplive) : NULL;
	if (!r->rpq) {
		ra_replay_live_free(r->rplive);
		r->rplive = NULL;
	}
	if (r->ralive)
		ra_writer_set_tap(r->w, live_tap, r);
	ra_set_error(RA_OK, "%s", "");	/* a pass not followed reads the stored events */
}

/* The passes fed no more (the writer given no tap first). */
static void live_drop(struct rec *r)
{
	if (r->w)
		ra_writer_set_tap(r->w, NULL, NULL);
	ra_tapq_end(r->rpq);
	r->rpq = NULL;
	ra_block_live_free(r->bklive);
	r->bklive = NULL;
	ra_live_free(r->ralive);
	r->ralive = NULL;
	ra_replay_live_free(r->rplive);
	r->rplive = NULL;
}

/*
 * Into a file no other process can open, the run's events are stored while
 * its workload runs: the load begins before it starts, and each turn of the
 * recording loop stores what every CPU has passed. (Into a shared file the
 * load would hold the write lock for the whole workload: it waits for the
 * end as before.) Returns 0, or -1 with nothing begun.
 */
static int live_begin(struct rec *r)
{
	struct ra_run_info info = { 0 };
	int64_t run_id;

	r->live = false;
	if (r->opt->source == RA_SOURCE_BOTH || !ra_db_private(r->db))
		return 0;
	run_info(r, &info);
	if (ra_db_load_begin(r->db) < 0)
		return -1;
	run_id = ra_db_run_create(r->db, &info);
	if (run_id < 0 || store_begin(r, run_id) < 0 || ra_tracer_live_begin(r->tr) < 0) {
		ra_db_load_abort(r->db);
		return -1;
	}
	live_analysis(r, run_id, &info);
	r->live = true;
	return 0;
}

/*
 * The names of the run's files. ratrace's own open files (the database and
 * its -wal, whose pages the run may have seen written) are named too, not
 * looked for on the disk.
 */
static int store_paths(struct rec *r, int64_t run_id)
{
	struct ra_name_counts nc = { 0 };
	struct ra_file_id *files;
	size_t n;
	int ret;

	if (ra_writer_files(r->w, &files, &n) < 0)
		return -1;
	ra_names_scan(r->names, getpid());
	ret = ra_paths_resolve(r->db, run_id, r->names, files, n, &nc);
	ra_big_free(files);
	if (r->opt->verbose > 0)
		fprintf(stderr, "ra-record: file names: %zu seen open, %zu from the inode number,"
			" %zu by a walk, %zu from before the run, %zu not found\n",
			nc.open, nc.by_ino, nc.walked, nc.before, nc.unnamed);
	return ret;
}

/* The events in time order, and what depends on them. */
static int store_trace(struct rec *r, int64_t run_id)
{
	if (!r->live && store_begin(r, run_id) < 0)
		return -1;
	if (ra_tracer_live_end(r->tr, store_event, r) < 0)
		return -1;
	ra_progress_done(r->progress);
	rec_step(r, "last events read and stored");
	if (ra_writer_finish(r->w) < 0)
		return -1;
	ra_tapq_end(r->rpq);	/* the replay has every event */
	r->rpq = NULL;
	rec_step(r, "store finished");
	if (store_saved_tgids(r) < 0 || store_known_tgids(r, &r->asked) < 0 ||
	    store_known_tgids(r, &r->born) < 0)
		return -1;
	rec_step(r, "processes of the tasks");
	if (store_paths(r, run_id) < 0)
		return -1;
	rec_step(r, "file names");
	if (store_filesystems(r, run_id) < 0)
		return -1;
	/* after the replay, which counted the ring buffer's own lost-event marks */
	if (ra_tracer_store_meta(r->tr, r->db, run_id) < 0)
		return -1;
	if (r->opt->capture && r->wl.output &&
	    (ra_db_run_set_text(r->db, run_id, "workload_output", r->wl.output) < 0 ||
	     ra_bench_parse_fio(r->db, run_id) < 0))
		return -1;
	return 0;
}

/* Runs @ids were stored and analysed: remembered, to fit their models again at the end. */
int rec_remember_runs(struct rec *r, const int64_t *ids, size_t n)
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
int rec_refit_models(struct rec *r)
{
	struct ra_analyze_opts ao = { .verbose = r->opt->verbose, .notice = rec_say_line,
				      .progress = r->progress };
	struct ra_db *db = r->db;
	int ret;

	if (r->nruns < 2)
		return 0;
	if (!db && !(db = ra_db_open_for_load(r->opt->output)))
		return -1;
	ret = ra_analyze_models(db, r->runs, r->nruns, &ao);
	if (db != r->db && ra_db_close(db) < 0)
		ret = -1;
	return ret;
}

/* The recorder's own CPU time so far (its threads, not the workload's), per event stored. */
static void say_cpu(const struct rec *r)
{
	struct rusage ru;
	double user, sys;
	uint64_t n = ra_writer_total(r->w);

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	fprintf(stderr, "ra-record: the recorder's own CPU: %.2f s user, %.2f s system, %.2f us an event\n",
		user, sys, n ? (user + sys) * 1e6 / (double)n : 0.0);
}

static int store_run(struct rec *r)
{
	struct ra_run_info info = { 0 };
	struct ra_run_end end = { 0 };
	int64_t run_id;
	int st = r->wl.status;

	if (r->live) {
		run_id = r->run_id;	/* begun with the workload */
	} else {
		run_info(r, &info);
		if (ra_db_load_begin(r->db) < 0)
			return -1;
		run_id = ra_db_run_create(r->db, &info);
	}
	if (run_id < 0 || store_meta(r, run_id) < 0)
		goto fail;
	rec_step(r, "devices, settings, counters stored");
	if (store_trace(r, run_id) < 0)
		goto fail;
	rec_step(r, "file systems, losses, output stored");
	end.wall_ns = r->end_mono - r->start_mono;
	end.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	end.exit_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	end.interrupted = r->interrupted;
	end.trace_start_ns = r->start_mono;
	end.trace_end_ns = r->end_mono;
	if (ra_db_run_finish(r->db, run_id, &end) < 0)
		goto fail;
	if (r->opt->analyze) {
		struct ra_analyze_opts ao = { .verbose = r->opt->verbose, .notice = rec_say_line,
					      .progress = r->progress, .live = r->ralive,
					      .replay_live = r->rplive,
					      .block_live = r->bklive };

		char line[160];

		if (ra_analyze_in_load(r->db, run_id, &ao) < 0)
			goto fail;
		rec_step(r, "analyses");
		if (r->opt->verbose > 0 && ra_big_describe(line, sizeof(line)))
			fprintf(stderr, "ra-record: %s\n", line);
	}
	live_drop(r);
	if (ra_db_load_commit(r->db) < 0)
		goto fail;
	rec_step(r, "committed");
	if (r->opt->analyze && rec_remember_runs(r, &run_id, 1) < 0)
		return -1;
	r->last_run = run_id;
	if (!r->first_run)
		r->first_run = run_id;
	if (r->opt->verbose > 0 && r->nticks)
		fprintf(stderr, "ra-record: %lld looks at settings and open files, %.1f us each\n",
			(long long)r->nticks, (double)r->tick_ns / (double)r->nticks / 1e3);
	if (r->opt->verbose > 0)
		say_cpu(r);
	if (r->opt->verbose > 0 && r->nahead)
		fprintf(stderr, "ra-record: the store was %.0f ms behind the kernel's events %d times:"
			" its threads ran ahead of the workload's for %.2f s of %.2f s\n",
			(double)r->behind_ns / 1e6, r->nahead, (double)r->ahead_ns / 1e9,
			(double)(r->end_mono - r->start_mono) / 1e9);
	if (r->opt->verbose >= 0)
		fprintf(stderr, "ra-record: run %lld: %llu events in '%s', %llu lost\n",
			(long long)run_id, (unsigned long long)ra_writer_total(r->w), r->opt->output,
			(unsigned long long)ra_tracer_lost(r->tr));
	r->live = false;
	return 0;
fail:
	live_drop(r);
	ra_db_load_abort(r->db);
	r->live = false;
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

	if (r->opt->source != RA_SOURCE_BOTH)
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
	live_drop(r);
	ra_writer_free(r->w);
	r->w = NULL;
	ra_names_free(r->names);
	r->names = NULL;
}

int rec_record_one(struct rec *r)
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
	    ((r->opt->drop_caches || (r->opt->repeat > 1 && !r->opt->nevict)) &&
	     ra_workload_drop_caches() < 0) ||
	    ra_workload_evict(r->opt->evict, r->opt->nevict) < 0) {
		ret = rec_error_status(ra_last_error());
		ra_db_load_abort(r->db);	/* a database made for this run goes again */
		goto out;
	}
	if (rec_stop_requested(r)) {	/* before the workload starts: nothing to record */
		ret = 128 + r->forwarded_sig;
		ra_db_load_abort(r->db);
		goto out;
	}
	if (ra_throttle_settle(&r->thr) < 0 || run_workload(r) < 0) {
		ret = rec_error_status(ra_last_error());
		ra_db_load_abort(r->db);
		goto out;
	}
	/*
	 * Settings go back before the slower work of storing the trace. One
	 * that cannot be put back is stored as not restored, and no other run
	 * starts on a machine that is not as it was.
	 */
	restore_failed = ra_settings_restore(r->settings) < 0;
	rec_step(r, "settings restored");
	if (store_runs(r) < 0) {
		ret = rec_error_status(ra_last_error());
		goto out;
	}
	ret = exit_code(r);
	if (restore_failed && ret < 128)
		ret = rec_error_status("a setting could not be restored (above): stopping; the run is stored"
			  " with the setting marked not restored");
out:
	cleanup(r);
	rec_step(r, "tracing instance removed");
	return ret;
}
