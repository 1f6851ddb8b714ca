// SPDX-License-Identifier: LGPL-2.1
/*
 * The benchmark as a child process: forked early, held until tracing runs,
 * then exec'd (never through a shell). Its output is passed through and kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"

#define OUTPUT_MAX (16u << 20)	/* stored output is capped; the terminal gets all of it */

static int executable(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

int ra_workload_check(char *const *argv)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!argv || !argv[0] || !argv[0][0]) {
		ra_set_error(RA_ERR_USAGE, "no workload given (put it after '--')");
		return -1;
	}
	if (strchr(argv[0], '/')) {
		if (executable(argv[0]))
			return 0;
		goto missing;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", argv[0]);
		if (executable(buf))
			return 0;
		path += len + (colon ? 1 : 0);
	}
missing:
	ra_set_error(RA_ERR_USAGE, "cannot run '%s': command not found", argv[0]);
	return -1;
}

static int join_cgroup(const char *procs)
{
	char buf[32];
	int fd, n;

	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%d", (int)getpid());
	n = write(fd, buf, (size_t)n) == n ? 0 : -1;
	close(fd);
	return n;
}

static void child(char *const *argv, int go, int err, int out, int errout, const char *cgroup)
{
	sigset_t none;
	char c = 0;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* The recorder forwards these: the workload must not inherit them ignored. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	if (out >= 0 && dup2(out, STDOUT_FILENO) < 0)
		goto fail;
	if (errout >= 0 && dup2(errout, STDERR_FILENO) < 0)
		goto fail;
	if (cgroup && join_cgroup(cgroup) < 0)
		goto fail;
	/* Wait until the recorder has tracing on; EOF means it gave up. */
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	if (c != 'g')
		_exit(127);
	execvp(argv[0], argv);
fail:
	e = errno;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

int ra_workload_spawn(struct ra_workload *wl, char *const *argv, bool capture)
{
	int go[2] = { -1, -1 }, err[2] = { -1, -1 }, out[2] = { -1, -1 }, eo[2] = { -1, -1 };

	const char *cgroup = wl->cgroup_procs;

	memset(wl, 0, sizeof(*wl));
	wl->cgroup_procs = cgroup;
	wl->go_fd = wl->err_fd = wl->out_fd = wl->errout_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		goto fail;
	if (capture && (pipe2(out, O_CLOEXEC) < 0 || pipe2(eo, O_CLOEXEC) < 0))
		goto fail;
	wl->pid = fork();
	if (wl->pid < 0)
		goto fail;
	if (wl->pid == 0)
		child(argv, go[0], err[1], out[1], eo[1], cgroup);
	close(go[0]);
	close(err[1]);
	if (capture) {
		close(out[1]);
		close(eo[1]);
		wl->out_fd = out[0];
		wl->errout_fd = eo[0];
		fcntl(out[0], F_SETFL, O_NONBLOCK);
		fcntl(eo[0], F_SETFL, O_NONBLOCK);
	}
	wl->go_fd = go[1];
	wl->err_fd = err[0];
	return 0;
fail:
	ra_set_error(RA_ERR_ENV, "cannot start the workload: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (err[i] >= 0)
			close(err[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (eo[i] >= 0)
			close(eo[i]);
	}
	return -1;
}

int ra_workload_start(struct ra_workload *wl)
{
	ssize_t n;
	int e;

	if (write(wl->go_fd, "g", 1) != 1) {
		ra_set_error(RA_ERR_ENV, "cannot release the workload: %s", strerror(errno));
		return -1;
	}
	close(wl->go_fd);
	wl->go_fd = -1;
	/* The error pipe closes on a successful exec and carries errno otherwise. */
	do {
		n = read(wl->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == sizeof(e)) {
		ra_set_error(RA_ERR_USAGE, "cannot run the workload: %s", strerror(e));
		return -1;
	}
	return 0;
}

static void keep_output(struct ra_workload *wl, const char *buf, size_t n)
{
	if (wl->output_len + n > OUTPUT_MAX)
		n = OUTPUT_MAX - wl->output_len;
	if (!n)
		return;
	if (wl->output_len + n + 1 > wl->output_cap) {
		size_t cap = wl->output_cap ? wl->output_cap * 2 : 65536;
		char *p;

		while (cap < wl->output_len + n + 1)
			cap *= 2;
		p = realloc(wl->output, cap);
		if (!p)
			return;
		wl->output = p;
		wl->output_cap = cap;
	}
	memcpy(wl->output + wl->output_len, buf, n);
	wl->output_len += n;
	wl->output[wl->output_len] = '\0';
}

int ra_workload_pump(struct ra_workload *wl, int fd)
{
	int to = fd == wl->out_fd ? STDOUT_FILENO : STDERR_FILENO;
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;	/* EAGAIN: nothing more for now */
		if (n == 0)
			break;
		keep_output(wl, buf, (size_t)n);
		for (ssize_t off = 0, w; off < n; off += w) {
			w = write(to, buf + off, (size_t)(n - off));
			if (w <= 0)
				break;	/* our own stdout is gone: keep storing */
		}
	}
	close(fd);
	if (fd == wl->out_fd)
		wl->out_fd = -1;
	else
		wl->errout_fd = -1;
	return 1;
}

void ra_workload_release_output(struct ra_workload *wl)
{
	free(wl->output);
	wl->output = NULL;
	wl->output_len = wl->output_cap = 0;
	if (wl->out_fd >= 0)
		close(wl->out_fd);
	if (wl->errout_fd >= 0)
		close(wl->errout_fd);
	if (wl->go_fd >= 0)
		close(wl->go_fd);
	if (wl->err_fd >= 0)
		close(wl->err_fd);
	wl->out_fd = wl->errout_fd = wl->go_fd = wl->err_fd = -1;
}

/* ---- a cold start ---- */

/*
 * One regular file's page-cache pages: written back first, then dropped.
 * Nothing else is opened (a FIFO, a socket, a device node: opening one can
 * have effects of its own).
 */
static int evict_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	struct stat now;
	int fd, err;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(sb->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &now) < 0 || !S_ISREG(now.st_mode))) {
		close(fd);	/* replaced meanwhile */
		return 0;
	}
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

int ra_workload_evict(const char *const *paths, int n)
{
	for (int i = 0; i < n; i++)
		if (nftw(paths[i], evict_one, 16, FTW_PHYS | FTW_MOUNT) != 0) {
			if (ra_last_error_kind() != RA_ERR_ENV)
				ra_set_error(RA_ERR_ENV, "cannot evict '%s': %s", paths[i],
					     strerror(errno));
			return -1;
		}
	return 0;
}

int ra_workload_drop_caches(void)
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
