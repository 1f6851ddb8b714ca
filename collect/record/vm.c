// SPDX-License-Identifier: LGPL-2.1
/*
 * Recording under another kernel: the helper (ra-vm, a script next to
 * ra-record or in its libexec directory) boots the kernel in qemu and records
 * inside; this side starts it, forwards signals to it, and reads what it left.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"

#ifndef RA_LIBEXECDIR
#define RA_LIBEXECDIR "/usr/local/libexec/ratrace"
#endif

/* The helper: $RATRACE_VM_HELPER, else beside this program, else installed. */
static int find_helper(char *buf, size_t len)
{
	const char *env = getenv("RATRACE_VM_HELPER");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return access(buf, X_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(buf, len, "%s/ra-vm", self);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	snprintf(buf, len, "%s/ra-vm", RA_LIBEXECDIR);
	return access(buf, X_OK);
}

/* argv of "ra-vm run OUTDIR KERNEL FILES -- GUEST_ARGS -- CMD". */
static char **helper_argv(char *helper, const struct ra_vm_job *j)
{
	int ng = 0, nc = 0, k = 0;
	char **argv;

	while (j->guest_args[ng])
		ng++;
	while (j->cmd[nc])
		nc++;
	argv = calloc((size_t)(ng + nc + 8), sizeof(*argv));
	if (!argv)
		return NULL;
	argv[k++] = helper;
	argv[k++] = (char *)"run";
	argv[k++] = (char *)j->outdir;
	argv[k++] = (char *)j->kernel;
	argv[k++] = (char *)j->files;
	argv[k++] = (char *)"--";
	for (int i = 0; i < ng; i++)
		argv[k++] = j->guest_args[i];
	argv[k++] = (char *)"--";
	for (int i = 0; i < nc; i++)
		argv[k++] = j->cmd[i];
	return argv;
}

static void exec_helper(char **argv, const char *recorder, const char *tmpdir)
{
	sigset_t none;

	/* A shell cannot trap what it was started ignoring (a background job's SIGINT). */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setenv("RA_RECORD", recorder, 1);
	if (tmpdir)
		setenv("TMPDIR", tmpdir, 1);
	execv(argv[0], argv);
	fprintf(stderr, "ra-record: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(2);
}

/* Wait for @pid, passing on the signals @sigfd takes; its exit status. */
static int wait_helper(pid_t pid, int sigfd, int *signo)
{
	struct signalfd_siginfo si;
	struct pollfd p = { .fd = sigfd, .events = POLLIN };
	int status;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		poll(&p, 1, 200);
		while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			*signo = (int)si.ssi_signo;
			/* A terminal's Ctrl-C reached the helper already (same process group). */
			if (si.ssi_code != SI_KERNEL)
				kill(pid, (int)si.ssi_signo);
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int ra_vm_run(const struct ra_vm_job *j, int sigfd, int *signo)
{
	char helper[PATH_MAX], recorder[PATH_MAX];
	char **argv;
	ssize_t n;
	pid_t pid;
	int rc;

	if (find_helper(helper, sizeof(helper)) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot find the guest helper 'ra-vm' (%s)", helper);
		return -1;
	}
	n = readlink("/proc/self/exe", recorder, sizeof(recorder) - 1);
	if (n <= 0) {
		ra_set_error(RA_ERR_ENV, "cannot find this program: %s", strerror(errno));
		return -1;
	}
	recorder[n] = '\0';
	argv = helper_argv(helper, j);
	if (!argv) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	pid = fork();
	if (pid == 0)
		exec_helper(argv, recorder, j->tmpdir);
	free(argv);
	if (pid < 0) {
		ra_set_error(RA_ERR_ENV, "cannot fork: %s", strerror(errno));
		return -1;
	}
	rc = wait_helper(pid, sigfd, signo);
	if (rc < 0)
		ra_set_error(RA_ERR_ENV, "cannot wait for the guest helper: %s", strerror(errno));
	return rc;
}

int ra_vm_info_read(const char *outdir, struct ra_vm_info *info)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	memset(info, 0, sizeof(*info));
	snprintf(path, sizeof(path), "%s/info", outdir);
	f = fopen(path, "re");
	if (!f) {
		ra_set_error(RA_ERR_DATA, "the guest helper left no '%s'", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "accel ", 6) == 0)
			snprintf(info->accel, sizeof(info->accel), "%s", line + 6);
		else if (strncmp(line, "release ", 8) == 0)
			snprintf(info->release, sizeof(info->release), "%s", line + 8);
		else if (strncmp(line, "image ", 6) == 0)
			snprintf(info->image, sizeof(info->image), "%s", line + 6);
	}
	fclose(f);
	if (strcmp(info->accel, "kvm") != 0 && strcmp(info->accel, "tcg") != 0) {
		ra_set_error(RA_ERR_DATA, "'%s' names no accelerator", path);
		return -1;
	}
	return 0;
}
