// SPDX-License-Identifier: LGPL-2.1
/*
 * The readahead and access events of kernels without their tracepoints, from
 * kprobes and kretprobes: made for one recording under the group
 * "ratrace_<pid>", removed after it (by a guardian process when the recorder
 * is killed, and by the next recorder's stale cleanup). Their fields have the
 * tracepoints' names, so that the one decoder reads both; where they are
 * comes from the kernel's BTF, either as names the kernel resolves itself
 * (ractl->ra->size, Linux 6.10+) or as offsets read here (+24(+16($arg1))).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "decode.h"
#include "trace.h"

#define MAX_ARGS 12
#define CMD_MAX 2048
#define MAXACTIVE "64"
#define GROUP_PREFIX "ratrace_"	/* then the recorder's pid */

/* One field: parameter @param (1-based; 0: the return value) and a member path. */
struct dyn_arg {
	const char *field;
	int param;
	const char *path;	/* "mapping->host->i_ino", "" for the parameter itself */
	bool optional;		/* left out when the kernel's BTF has no such member */
};

struct dyn_def {
	int type;		/* what it stands for (RA_EV_*), 0 for a helper of the self-check */
	int kind;		/* what it is to the decoder (RA_DK_*) */
	const char *event;	/* its name in the group: the decoder's key */
	const char *func;
	const char *alt;	/* the function's name in older kernels, or NULL */
	bool ret;		/* a kretprobe */
	const char *pointee[3];	/* the structure each pointer parameter must point to */
	struct dyn_arg args[MAX_ARGS];
};

#define FILE_OF_RACTL(p) \
	{ "i_ino", p, "mapping->host->i_ino", false }, \
	{ "s_dev", p, "mapping->host->i_sb->s_dev", false }
#define RA_STATE(p) \
	{ "size", p, "ra->size", false }, { "async_size", p, "ra->async_size", false }, \
	{ "ra_pages", p, "ra->ra_pages", false }, { "mmap_miss", p, "ra->mmap_miss", false }, \
	{ "prev_pos", p, "ra->prev_pos", false }

static const struct dyn_def defs[] = {
	{ RA_EV_SYNC_RA, RA_DK_NONE, "page_cache_sync_ra", "page_cache_sync_ra", NULL, false,
	  { "readahead_control" },
	  { FILE_OF_RACTL(1), { "index", 1, "_index", false }, RA_STATE(1),
	    { "req_count", 2, "", false } } },
	{ RA_EV_ASYNC_RA, RA_DK_NONE, "page_cache_async_ra", "page_cache_async_ra", NULL, false,
	  { "readahead_control", "folio" },
	  { FILE_OF_RACTL(1), { "index", 1, "_index", false }, RA_STATE(1),
	    { "req_count", 3, "", false } } },
	/*
	 * No order: the one asked for at entry is not the one the kernel then
	 * clamps to the mapping and records; the folios added say their order.
	 */
	{ RA_EV_RA_ORDER, RA_DK_NONE, "page_cache_ra_order", "page_cache_ra_order", NULL, false,
	  { "readahead_control", "file_ra_state" },
	  { FILE_OF_RACTL(1), { "index", 2, "start", false }, { "size", 2, "size", false },
	    { "async_size", 2, "async_size", false }, { "ra_pages", 2, "ra_pages", false } } },
	{ RA_EV_RA_UNBOUNDED, RA_DK_NONE, "page_cache_ra_unbounded", "page_cache_ra_unbounded",
	  NULL, false, { "readahead_control" },
	  { FILE_OF_RACTL(1), { "index", 1, "_index", false }, { "nr_to_read", 2, "", false },
	    { "lookahead_size", 3, "", false } } },
	/* read(2): where it starts; the return says how much it read */
	{ RA_EV_GET_PAGES, RA_DK_READ, "filemap_read", "filemap_read", NULL, false,
	  { "kiocb", "iov_iter" },
	  { { "i_ino", 1, "ki_filp->f_mapping->host->i_ino", false },
	    { "s_dev", 1, "ki_filp->f_mapping->host->i_sb->s_dev", false },
	    { "pos", 1, "ki_pos", false }, { "already", 3, "", true } } },
	{ RA_EV_GET_PAGES, RA_DK_READ_RET, "filemap_read_ret", "filemap_read", NULL, true, { 0 },
	  { { "ret", 0, "", false } } },
	{ RA_EV_FAULT, RA_DK_NONE, "mm_filemap_fault", "filemap_fault", NULL, false, { "vm_fault" },
	  { { "i_ino", 1, "vma->vm_file->f_mapping->host->i_ino", false },
	    { "s_dev", 1, "vma->vm_file->f_mapping->host->i_sb->s_dev", false },
	    { "index", 1, "pgoff", false } } },
	/*
	 * fault-around: its range at entry, given at its return when it mapped
	 * a page (a PTE was set meanwhile), as the tracepoint fires only then
	 */
	{ RA_EV_MAP_PAGES, RA_DK_MAP, "mm_filemap_map_pages", "filemap_map_pages", NULL, false,
	  { "vm_fault" },
	  { { "i_ino", 1, "vma->vm_file->f_mapping->host->i_ino", false },
	    { "s_dev", 1, "vma->vm_file->f_mapping->host->i_sb->s_dev", false },
	    { "index", 2, "", false }, { "last_index", 3, "", false } } },
	{ RA_EV_MAP_PAGES, RA_DK_MAP_PTE, "map_pte", "set_pte_range", "do_set_pte", false,
	  { "vm_fault" },
	  { { 0 } } },
	{ RA_EV_MAP_PAGES, RA_DK_MAP_RET, "filemap_map_pages_ret", "filemap_map_pages", NULL, true,
	  { 0 },
	  { { 0 } } },
	/* the self-check: which page-cache additions happen inside readahead */
	{ 0, RA_DK_CALL, "force_page_cache_ra", "force_page_cache_ra", NULL, false,
	  { "readahead_control" },
	  { { "nr_to_read", 2, "", false } } },
	{ 0, RA_DK_RET, "page_cache_sync_ra_ret", "page_cache_sync_ra", NULL, true,
	  { 0 }, { { 0 } } },
	{ 0, RA_DK_RET, "page_cache_async_ra_ret", "page_cache_async_ra", NULL, true,
	  { 0 }, { { 0 } } },
	{ 0, RA_DK_RET, "page_cache_ra_order_ret", "page_cache_ra_order", NULL, true,
	  { 0 }, { { 0 } } },
	{ 0, RA_DK_RET, "page_cache_ra_unbounded_ret", "page_cache_ra_unbounded", NULL, true,
	  { 0 }, { { 0 } } },
	{ 0, RA_DK_RET, "force_page_cache_ra_ret", "force_page_cache_ra", NULL, true,
	  { 0 }, { { 0 } } },
};

#define NDEFS (sizeof(defs) / sizeof(defs[0]))

struct ra_dynevents {
	char group[32];
	char dir[256];			/* the tracing directory */
	bool made[NDEFS];
	bool names[NDEFS];		/* written with BTF names the kernel resolved */
	bool found[NDEFS], found_alt[NDEFS];	/* the kernel can trace its function */
	int type_state[RA_EV_MAX];	/* 1: made, -1: wanted and not made */
	bool type_names[RA_EV_MAX];	/* its main probe in the names style */
	char why[RA_EV_MAX][200];
	char def[RA_EV_MAX][CMD_MAX];	/* the definition of its main probe */
	pid_t guardian;
	int guard_fd;
	int nmade;
};

bool ra_dyn_lookup(const char *system, const char *name, int *type, int *kind)
{
	if (!system || !name || strncmp(system, GROUP_PREFIX, strlen(GROUP_PREFIX)) != 0)
		return false;
	for (size_t i = 0; i < NDEFS; i++) {
		if (strcmp(defs[i].event, name) == 0) {
			*type = defs[i].type;
			*kind = defs[i].kind;
			return true;
		}
	}
	return false;
}

/* Functions to treat as absent (RATRACE_PROBE_HIDE="f1,f2"): tests of what a missing one does. */
static bool hidden(const char *func)
{
	const char *list = getenv("RATRACE_PROBE_HIDE");
	size_t fl = strlen(func);

	while (list && *list) {
		size_t len = strcspn(list, ",");

		if (len == fl && strncmp(list, func, fl) == 0)
			return true;
		list += len + (list[len] == ',');
	}
	return false;
}

/*
 * The functions of the definitions the kernel can trace (its
 * available_filter_functions), read in one pass: found[i] for defs[i]'s
 * function, found_alt[i] for its older name. Unknown (no such file): all.
 */
static void find_functions(const char *dir, bool *found, bool *found_alt)
{
	char path[300], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/available_filter_functions", dir);
	f = fopen(path, "re");
	for (size_t i = 0; i < NDEFS; i++)
		found[i] = found_alt[i] = !f;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \n")] = '\0';	/* "name" or "name [module]" */
		for (size_t i = 0; i < NDEFS; i++) {
			found[i] |= strcmp(line, defs[i].func) == 0;
			found_alt[i] |= defs[i].alt && strcmp(line, defs[i].alt) == 0;
		}
	}
	if (f)
		fclose(f);
}

/* Whether defs[@i]'s function, as named in this kernel, can be probed. */
static bool probeable(const struct ra_dynevents *de, size_t i, const char *func)
{
	if (hidden(func))
		return false;
	return strcmp(func, defs[i].func) == 0 ? de->found[i] : de->found_alt[i];
}

static int write_cmd(const char *dir, const char *cmd)
{
	char path[300];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/dynamic_events", dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		ret = -1;
	close(fd);
	return ret;
}

/* The kernel's reason for the last refused definition, from error_log. */
static void last_error_log(const char *dir, char *buf, size_t len)
{
	char path[300], line[512];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/error_log", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "error: ");

		if (p)
			snprintf(buf, len, "%.*s", (int)strcspn(p + 7, "\n"), p + 7);
	}
	fclose(f);
}

/*
 * The functions looked up in BTF, each once (a lookup walks every type):
 * the definitions name a dozen functions, several twice.
 */
struct fn_cache {
	const char *name[2 * NDEFS];
	struct ra_btf_func fn[2 * NDEFS];
	int ret[2 * NDEFS];
	char err[2 * NDEFS][160];
	int n;
};

static int lookup(struct fn_cache *c, struct ra_btf *btf, const char *name,
		  struct ra_btf_func *fn)
{
	int i;

	for (i = 0; i < c->n && strcmp(c->name[i], name) != 0; i++)
		;
	if (i == c->n) {
		if (c->n == 2 * (int)NDEFS)
			return ra_btf_func(btf, name, fn);
		c->name[i] = name;
		c->ret[i] = ra_btf_func(btf, name, &c->fn[i]);
		snprintf(c->err[i], sizeof(c->err[i]), "%s", c->ret[i] < 0 ? ra_last_error() : "");
		c->n++;
	}
	*fn = c->fn[i];
	if (c->ret[i] < 0)
		ra_set_error(RA_ERR_ENV, "%s", c->err[i]);
	return c->ret[i];
}

static struct fn_cache cache;

/* The name @d's function has in this kernel: its older name when BTF has only that. */
static const char *func_of(struct ra_btf *btf, const struct dyn_def *d)
{
	struct ra_btf_func fn;

	if (!btf || !d->alt || lookup(&cache, btf, d->func, &fn) == 0)
		return d->func;
	return lookup(&cache, btf, d->alt, &fn) == 0 ? d->alt : d->func;
}

/* " NAME=FETCH" of one field in the style asked; 0, 1 (optional, absent), -1 */
static int render_arg(struct ra_btf *btf, const struct ra_btf_func *fn, const struct dyn_arg *a,
		      bool names, char *buf, size_t len, char *why, size_t wlen)
{
	struct ra_btf_fetch fe;
	char inner[CMD_MAX];
	static const char *const types[2][9] = {
		{ "", "u8", "u16", "", "u32", "", "", "", "u64" },
		{ "", "s8", "s16", "", "s32", "", "", "", "s64" },
	};

	if (a->param == 0) {	/* signed, as wide as the function's return type */
		snprintf(buf, len, " %s=$retval:s%d", a->field, fn->ret_size == 4 ? 32 : 64);
		return 0;
	}
	if (a->param > fn->nparams) {
		if (a->optional)
			return 1;
		snprintf(why, wlen, "has %d parameters, not %d", fn->nparams, a->param);
		return -1;
	}
	if (ra_btf_path(btf, fn, a->param, a->path, &fe) < 0) {
		if (a->optional)
			return 1;
		snprintf(why, wlen, "%s", ra_last_error());
		return -1;
	}
	if (names) {
		snprintf(buf, len, " %s=%s%s%s", a->field, fn->param[a->param - 1],
			 *a->path ? "->" : "", a->path);
		return 0;
	}
	snprintf(inner, sizeof(inner), "$arg%d", a->param);
	for (int i = 0; i < fe.nderef; i++) {
		char next[CMD_MAX];

		snprintf(next, sizeof(next), "+%u(%s)", fe.off[i], inner);
		snprintf(inner, sizeof(inner), "%s", next);
	}
	snprintf(buf, len, " %s=%s:%s", a->field, inner, types[fe.is_signed][fe.size]);
	return 0;
}

/* The definition of @d in @group; 0, or -1 with @why */
static int render(struct ra_btf *btf, const struct dyn_def *d, const char *group, bool names,
		  char *cmd, size_t len, char *why, size_t wlen)
{
	const char *func = func_of(btf, d);
	struct ra_btf_func fn;
	size_t off;

	if (lookup(&cache, btf, func, &fn) < 0) {
		snprintf(why, wlen, "%s", ra_last_error());
		return -1;
	}
	for (int i = 0; i < 3 && !d->ret; i++) {
		if (!d->pointee[i])
			continue;
		if (i >= fn.nparams || strcmp(fn.pointee[i], d->pointee[i]) != 0) {
			snprintf(why, wlen, "its parameter %d is not a struct %s *", i + 1,
				 d->pointee[i]);
			return -1;
		}
	}
	/* returns of up to MAXACTIVE calls at once (the default is 2 per CPU) */
	off = (size_t)snprintf(cmd, len, "%s:%s/%s %s", d->ret ? "r" MAXACTIVE : "p", group,
			       d->event, func);
	for (int i = 0; i < MAX_ARGS && d->args[i].field && off < len; i++) {
		char arg[CMD_MAX];
		int r = render_arg(btf, &fn, &d->args[i], names, arg, sizeof(arg), why, wlen);

		if (r < 0)
			return -1;
		if (r == 0)
			off += (size_t)snprintf(cmd + off, len - off, "%s", arg);
	}
	if (off >= len) {
		snprintf(why, wlen, "its definition is too long");
		return -1;
	}
	return 0;
}

static void remove_event(const char *dir, const char *group, const char *event)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "-:%s/%s", group, event);
	write_cmd(dir, cmd);
}

/*
 * The "GROUP/EVENT ..." of a dynamic_events line ("p:G/E f ...", "r16:G/E f"),
 * or NULL for a line that is not a probe.
 */
static char *probe_name(char *line)
{
	size_t n = strspn(line, "pfrt0123456789");

	return n && line[n] == ':' ? line + n + 1 : NULL;
}

/* Whether the probe of @line is in @group. */
static bool in_group(char *line, const char *group)
{
	char *name = probe_name(line);
	size_t gl = strlen(group);

	return name && strncmp(name, group, gl) == 0 && name[gl] == '/';
}

/* Remove every event of @group ("ratrace_PID"); how many are left. */
static int remove_group(const char *dir, const char *group)
{
	size_t gl = strlen(group);
	int left = 0, before = -1;

	/*
	 * The names first, then the removals: dynamic_events is read by record
	 * index, and a removal while it is being read shifts the records after
	 * it past the reader. Again until none is left or none went.
	 */
	for (int pass = 0; pass < 8; pass++) {
		char path[300], line[CMD_MAX], names[2 * NDEFS][64];
		int n = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/dynamic_events", dir);
		f = fopen(path, "re");
		if (!f)
			return 0;
		left = 0;
		while (fgets(line, sizeof(line), f)) {
			char *ev;

			if (!in_group(line, group))
				continue;
			left++;
			ev = probe_name(line) + gl + 1;
			ev[strcspn(ev, " \n")] = '\0';
			if (n < (int)(sizeof(names) / sizeof(names[0])))
				snprintf(names[n++], sizeof(names[0]), "%s", ev);
		}
		fclose(f);
		if (!left || left == before)
			break;
		before = left;
		for (int i = 0; i < n; i++)
			remove_event(dir, group, names[i]);
	}
	return left;
}

/* Disable the group's events in instance ra-record.PID, if it is still there. */
static void disable_in_instance(const char *dir, const char *group, pid_t pid)
{
	char path[400];
	int fd;

	snprintf(path, sizeof(path), "%s/instances/ra-record.%d/events/%s/enable", dir, (int)pid,
		 group);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0) {
			/* removal below then fails and says so */
		}
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/instances/ra-record.%d", dir, (int)pid);
	/* busy while the killed recorder still holds its ring buffers open: its
	 * pipe to the guardian may close before them; 5 s at most */
	for (int i = 0; i < 100 && rmdir(path) < 0 && errno == EBUSY; i++)
		usleep(50000);
}

int ra_dyn_cleanup_stale(ra_notice_fn notice, void *arg)
{
	const char *dir = tracefs_tracing_dir();
	char path[300], line[CMD_MAX], done[64][32];
	int ndone = 0, removed = 0;
	FILE *f;

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/dynamic_events", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && ndone < 64) {
		char group[32], *name = probe_name(line);
		long pid;
		bool seen = false;

		if (!name || strncmp(name, "ratrace_", 8) != 0)
			continue;
		snprintf(group, sizeof(group), "%.*s", (int)strcspn(name, "/ "), name);
		pid = strtol(group + 8, NULL, 10);
		for (int i = 0; i < ndone && !seen; i++)
			seen = strcmp(done[i], group) == 0;
		if (seen || pid <= 0 || (pid != getpid() && !(kill((pid_t)pid, 0) < 0 && errno == ESRCH)))
			continue;
		snprintf(done[ndone++], sizeof(done[0]), "%s", group);
	}
	fclose(f);
	for (int i = 0; i < ndone; i++) {
		disable_in_instance(dir, done[i], (pid_t)strtol(done[i] + 8, NULL, 10));
		if (remove_group(dir, done[i]) == 0) {
			removed++;
			if (notice) {
				char msg[96];

				snprintf(msg, sizeof(msg), "removed the stale dynamic events '%s'",
					 done[i]);
				notice(msg, arg);
			}
		}
	}
	return removed;
}

/*
 * A process that outlives a killed recorder: when the pipe from the recorder
 * closes, it removes what the recorder made and left (its instance, then its
 * events). It runs in a session of its own, so that a signal to the
 * recorder's process group leaves it to do that.
 */
static pid_t start_guardian(const char *dir, const char *group, int *fd)
{
	int p[2];
	pid_t pid, parent = getpid();

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		char c;

		close(p[1]);
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		for (int f = 0; f < 1024; f++)
			if (f != p[0] && f != 2)
				close(f);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		disable_in_instance(dir, group, parent);
		remove_group(dir, group);
		_exit(0);
	}
	close(p[0]);
	*fd = p[1];
	return pid;
}

bool ra_dyn_can(int type)
{
	for (size_t i = 0; i < NDEFS; i++)
		if (defs[i].type == type && !defs[i].ret)
			return true;
	return false;
}

/* Whether the kernel takes kprobe events: 0, or -1 with @why. */
static int kprobes_available(const char *dir, char *why, size_t len)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/kprobe_events", dir);
	if (access(path, F_OK) == 0)
		return 0;
	snprintf(why, len, "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)");
	return -1;
}

/*
 * Make definition @i: in the names style when the kernel takes it (and it
 * differs from the offsets), else with offsets. Sets de->names[i].
 */
static int make_one(struct ra_dynevents *de, struct ra_btf *btf, size_t i, int style,
		    char *cmd, size_t len, char *why, size_t wlen)
{
	char log[256], offs[CMD_MAX];

	if (render(btf, &defs[i], de->group, false, offs, sizeof(offs), why, wlen) < 0)
		return -1;
	if (style != RA_DYN_ARGS_OFFSETS) {
		if (render(btf, &defs[i], de->group, true, cmd, len, why, wlen) < 0)
			return -1;
		if (strcmp(cmd, offs) != 0 && write_cmd(de->dir, cmd) == 0) {
			de->names[i] = true;
			return 0;
		}
		if (style == RA_DYN_ARGS_NAMES && strcmp(cmd, offs) != 0) {
			last_error_log(de->dir, log, sizeof(log));
			snprintf(why, wlen, "the kernel refused '%s': %s", cmd,
				 log[0] ? log : strerror(errno));
			return -1;
		}
	}
	snprintf(cmd, len, "%s", offs);
	if (write_cmd(de->dir, cmd) == 0)
		return 0;
	last_error_log(de->dir, log, sizeof(log));
	snprintf(why, wlen, "the kernel refused '%s': %s", cmd, log[0] ? log : strerror(errno));
	return -1;
}

struct ra_dynevents *ra_dyn_create(const bool *want, int style)
{
	struct ra_dynevents *de = calloc(1, sizeof(*de));
	const char *dir = tracefs_tracing_dir();
	struct ra_btf *btf = NULL;
	char why[200] = "";
	bool any = false;

	if (!de) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	de->guard_fd = -1;
	de->guardian = -1;
	snprintf(de->group, sizeof(de->group), GROUP_PREFIX "%d", (int)getpid());
	snprintf(de->dir, sizeof(de->dir), "%s", dir ? dir : "/sys/kernel/tracing");
	for (int t = 1; t < RA_EV_MAX; t++)
		any |= want[t];
	if (!any)
		return de;
	if (kprobes_available(de->dir, why, sizeof(why)) == 0) {
		btf = ra_btf_open(NULL);
		if (!btf)
			snprintf(why, sizeof(why), "%s", ra_last_error());
	}
	cache.n = 0;	/* of this kernel's BTF */
	if (btf) {
		find_functions(de->dir, de->found, de->found_alt);
		de->guardian = start_guardian(de->dir, de->group, &de->guard_fd);
		if (de->guardian < 0)
			snprintf(why, sizeof(why), "cannot start the process that removes the"
				 " dynamic events after the recorder: %s", strerror(errno));
	}
	for (size_t i = 0; i < NDEFS; i++) {
		int t = defs[i].type;
		bool ra = want[RA_EV_SYNC_RA] || want[RA_EV_ASYNC_RA] || want[RA_EV_RA_ORDER] ||
			  want[RA_EV_RA_UNBOUNDED];
		char cmd[CMD_MAX], w[200];

		/* the helpers of the self-check come with the readahead events */
		if (!(t ? want[t] : ra) || (t && de->type_state[t] < 0))
			continue;
		if (!btf || de->guardian < 0)
			snprintf(w, sizeof(w), "%s", why);
		else if (!probeable(de, i, func_of(btf, &defs[i])))
			snprintf(w, sizeof(w), "%s is not a function the kernel can probe"
				 " (renamed, static and inlined, or not built)", func_of(btf, &defs[i]));
		else if (make_one(de, btf, i, style, cmd, sizeof(cmd), w, sizeof(w)) == 0) {
			de->made[i] = true;
			de->nmade++;
			if (t && !defs[i].ret && !de->def[t][0]) {
				snprintf(de->def[t], sizeof(de->def[t]), "%s", cmd);
				de->type_state[t] = 1;
				de->type_names[t] = de->names[i];
			}
			continue;
		}
		if (!strstr(w, func_of(btf, &defs[i])) && btf && de->guardian >= 0) {
			char tmp[200];

			snprintf(tmp, sizeof(tmp), "%s: %s", func_of(btf, &defs[i]), w);
			snprintf(w, sizeof(w), "%s", tmp);
		}
		/* an event of several probes (read(2), fault-around) is all of them or none */
		if (t) {
			de->type_state[t] = -1;
			snprintf(de->why[t], sizeof(de->why[t]), "%s", w);
			de->def[t][0] = '\0';
			for (size_t k = 0; k < i; k++) {	/* its probes made already go */
				if (defs[k].type != t || !de->made[k])
					continue;
				remove_event(de->dir, de->group, defs[k].event);
				de->made[k] = false;
				de->nmade--;
			}
		} else if (!de->why[0][0]) {
			snprintf(de->why[0], sizeof(de->why[0]), "%s", w);
		}
	}
	ra_btf_close(btf);
	return de;
}

const char *ra_dyn_group(const struct ra_dynevents *de)
{
	return de->group;
}

int ra_dyn_state(const struct ra_dynevents *de, int type, const char **def, const char **why)
{
	if (def)
		*def = de->def[type];
	if (why)
		*why = de->why[type];
	return de->type_state[type];
}

/*
 * Whether the self-check can count calls: every readahead function whose
 * entry was probed has its return probed too (a function missing whole
 * leaves the count sound; its calls are what the check then finds).
 */
bool ra_dyn_checked(const struct ra_dynevents *de)
{
	bool any = false;

	for (size_t r = 0; r < NDEFS; r++) {
		if (defs[r].type || !defs[r].ret)
			continue;
		for (size_t e = 0; e < NDEFS; e++) {
			if (defs[e].ret || strcmp(defs[e].func, defs[r].func) != 0 || !de->made[e])
				continue;
			if (!de->made[r])
				return false;
			any = true;
		}
	}
	return any;
}

uint64_t ra_dyn_missed(const struct ra_dynevents *de)
{
	char path[300], line[512], name[256];
	size_t gl = strlen(de->group);
	unsigned long long hits, missed;
	uint64_t total = 0;
	FILE *f;

	if (!de->nmade)
		return 0;
	snprintf(path, sizeof(path), "%s/kprobe_profile", de->dir);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))	/* "  GROUP/EVENT  HITS  MISSED" */
		if (sscanf(line, "%255s %llu %llu", name, &hits, &missed) == 3 &&
		    strncmp(name, de->group, gl) == 0 && name[gl] == '/')
			total += missed;
	if (f)
		fclose(f);
	return total;
}

const char *ra_dyn_check_why(const struct ra_dynevents *de)
{
	return de->why[0];
}

bool ra_dyn_names_style(const struct ra_dynevents *de, int type)
{
	return de->type_names[type];
}

/* The events made, one at a time: their names in the group, NULL at the end. */
const char *ra_dyn_event(const struct ra_dynevents *de, int i)
{
	for (size_t k = 0; k < NDEFS; k++)
		if (de->made[k] && i-- == 0)
			return defs[k].event;
	return NULL;
}

int ra_dyn_destroy(struct ra_dynevents *de)
{
	int left = 0;

	if (!de)
		return 0;
	if (de->nmade)
		left = remove_group(de->dir, de->group);
	if (de->guard_fd >= 0)
		close(de->guard_fd);	/* the guardian finds nothing left, and ends */
	if (de->guardian > 0)
		waitpid(de->guardian, NULL, 0);
	free(de);
	if (left) {
		ra_set_error(RA_ERR_ENV, "%d dynamic events could not be removed", left);
		return -1;
	}
	return 0;
}
