/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Recording: the benchmark as a child process, and recording under another
 * kernel in a guest.
 */
#ifndef RA_COLLECT_RECORD_H
#define RA_COLLECT_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ra_db.h"
#include "ra_event.h"

/* ---- workload.c: the benchmark as a child process ---- */

struct ra_workload {
	pid_t pid;
	int go_fd;		/* write end: releases the child */
	int err_fd;		/* read end: errno of a failed exec */
	int out_fd;		/* read end of the child's stdout, or -1 */
	int errout_fd;		/* read end of the child's stderr, or -1 */
	char *output;		/* captured stdout + stderr */
	size_t output_len;
	size_t output_cap;
	int status;		/* waitpid status once reaped */
	bool reaped;
	const char *cgroup_procs;	/* set before spawning: the child joins this cgroup */
};

/** ra_workload_check - whether @argv[0] can be run; 0 or -1 (RA_ERR_USAGE) */
int ra_workload_check(char *const *argv);

/**
 * ra_workload_spawn - fork the workload, stopped until ra_workload_start()
 * @capture: tee the child's stdout/stderr through pipes to be stored
 */
int ra_workload_spawn(struct ra_workload *wl, char *const *argv, bool capture);
/** ra_workload_start - let the held workload exec: it starts now; 0 or -1 */
int ra_workload_start(struct ra_workload *wl);

/** ra_workload_pump - copy available output of @fd through; 0, or 1 at EOF */
int ra_workload_pump(struct ra_workload *wl, int fd);
void ra_workload_release_output(struct ra_workload *wl);

/**
 * ra_workload_evict - write back and drop the page-cache pages of @paths
 * (files, or the files under directories, one file system each); 0 or -1
 */
int ra_workload_evict(const char *const *paths, int n);
/** ra_workload_drop_caches - write back, then drop the whole page cache; 0 or -1 */
int ra_workload_drop_caches(void);

/* ---- vm.c: recording under another kernel, in a guest ---- */

/* One guest recording: ra-vm run OUTDIR KERNEL FILES -- GUEST_ARGS -- CMD. */
struct ra_vm_job {
	const char *outdir;		/* where the helper leaves guest.db and info */
	const char *kernel;		/* a Debian series ("6.18") or an image file */
	const char *files;		/* the directory the guest's disk is made from */
	char **guest_args;		/* the guest recorder's options, NULL-terminated */
	char **cmd;			/* the workload, NULL-terminated */
	const char *tmpdir;		/* where the guest's disks are made; NULL: $TMPDIR */
};

/**
 * ra_vm_run - run the guest helper for @j and wait for it
 * Signals read from @sigfd while it runs are sent on to it; the last one in
 * *@signo. Returns its exit status (0 or 1: the guest recorded, with the
 * guest workload's result; 2: it said why on stderr; 128+N: a signal), or -1
 * with ra_last_error() when it could not be started.
 */
int ra_vm_run(const struct ra_vm_job *j, int sigfd, int *signo);

/* What the helper says about the guest (OUTDIR/info). */
struct ra_vm_info {
	char accel[16];			/* "kvm" or "tcg" */
	char release[128];		/* the guest's uname -r */
	char image[512];		/* the kernel as found: package (version), or file */
};

/** ra_vm_info_read - read OUTDIR/info; 0 or -1 (ra_last_error()) */
int ra_vm_info_read(const char *outdir, struct ra_vm_info *info);

#endif /* RA_COLLECT_RECORD_H */
