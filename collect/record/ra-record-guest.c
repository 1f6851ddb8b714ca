// SPDX-License-Identifier: GPL-2.0
/*
 * ra-record: the runs in guests (--kernel).
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
#include "ra_tmpfile.h"

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
	char **argv = calloc((size_t)r->opt->nguest + 8, sizeof(*argv));
	int k = 0;

	if (!argv)
		return NULL;
	snprintf(label, len, "%s%skernel=%s", r->opt->label ? r->opt->label : "", r->opt->label ? "," : "",
		 kernel_tag(kernel));
	argv[k++] = (char *)"--no-analyze";
	argv[k++] = (char *)"--label";
	argv[k++] = label;
	if (!r->opt->nfilter) {
		argv[k++] = (char *)"-d";
		argv[k++] = (char *)"vda";
	}
	for (int i = 0; i < r->opt->nguest; i++)
		argv[k++] = r->opt->guest_args[i];
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
	db = ra_db_open_for_load(r->opt->output);
	if (!db)
		return -1;
	if (ra_db_load_begin(db) < 0 || ra_db_copy_runs(db, path, &tags, &ids, &n) < 0)
		goto fail;
	if (!n) {
		ra_set_error(RA_ERR_DATA, "kernel %s: the guest recorded no run", kernel);
		goto fail;
	}
	for (size_t i = 0; i < n && r->opt->analyze; i++) {
		struct ra_analyze_opts ao = { .verbose = r->opt->verbose, .notice = rec_say_line };

		if (ra_analyze_in_load(db, ids[i], &ao) < 0)
			goto fail;
	}
	if (ra_db_load_commit(db) < 0)
		goto fail;
	if (r->opt->analyze && rec_remember_runs(r, ids, n) < 0)
		goto out;
	for (size_t i = 0; i < n && r->opt->verbose >= 0; i++)
		fprintf(stderr, "ra-record: kernel %s (%s, %s): run %lld in '%s'\n", kernel,
			info.release, tags.execution, (long long)ids[i], r->opt->output);
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
	struct ra_vm_job job = { .kernel = kernel, .files = r->opt->kernel_files, .cmd = r->opt->argv,
				 .tmpdir = r->opt->tmpdir };
	char dir[PATH_MAX], label[512];
	int rc, signo = 0;

	snprintf(dir, sizeof(dir), "%s/ra-record-vm.XXXXXX", ra_tmpfile_dir());
	if (!mkdtemp(dir))
		return rec_error_status("cannot make a temporary directory for the guest");
	job.outdir = dir;
	job.guest_args = guest_argv(r, kernel, label, sizeof(label));
	if (!job.guest_args) {
		rmdir(dir);
		return rec_error_status("out of memory");
	}
	rc = ra_vm_run(&job, r->sigfd, &signo);
	free(job.guest_args);
	if (rc < 0)
		rc = rec_error_status(ra_last_error());
	else if (signo)
		rc = 128 + signo;
	else if ((rc == 0 || rc == EXIT_WORKLOAD) && merge_guest(r, kernel, dir) < 0)
		rc = rec_error_status(ra_last_error());
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

	if (access(r->opt->output, F_OK) == 0) {
		/* read-only first, which changes nothing; a writer upgrades an older one */
		db = ra_db_open(r->opt->output, RA_DB_READONLY);
		if (db && ra_db_close(db) == 0)
			return 0;
		db = ra_db_open(r->opt->output, 0);
		return db && ra_db_close(db) == 0 ? 0 : -1;
	}
	copy = strdup(r->opt->output);
	if (!copy) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	dir = dirname(copy);
	ok = access(dir, W_OK) == 0;
	if (!ok)
		ra_set_error(RA_ERR_USAGE, "cannot create '%s': %s", r->opt->output, strerror(errno));
	free(copy);
	return ok ? 0 : -1;
}

/* Every --kernel in turn, one guest at a time; the worst exit status wins. */
int rec_record_guests(struct rec *r)
{
	int worst = 0;

	if (check_output(r) < 0)
		return rec_error_status(ra_last_error());
	for (int i = 0; i < r->opt->nkernels; i++) {
		int rc = record_guest(r, r->opt->kernels[i]);

		if (rc > worst)
			worst = rc;
		if (rc >= 128)
			break;
	}
	return worst;
}
