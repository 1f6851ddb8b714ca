// SPDX-License-Identifier: GPL-2.0
/*
 * ra-record: run a workload and record its readahead, page-cache and block
 * events into a ratrace database. Its parts: ra-record.h.
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
#include "ra_bigmem.h"
#include "ra_progress.h"
#include "ra_tmpfile.h"
#include "ra_version.h"

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

/*
 * The database's files are the recorder's (its name, the write-ahead log and
 * its index, kept through the rename of a new one): their pages leaving the
 * page cache are not the run's.
 */
static void own_db_files(struct ra_db *db)
{
	static const char *const ext[] = { "", "-wal", "-shm", "-journal" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		int fd;

		if (snprintf(path, sizeof(path), "%s%s", ra_db_file(db), ext[i]) >= (int)sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ra_self_file_begin(fd);
			close(fd);
		}
	}
}

int main(int argc, char **argv)
{
	static struct rec_opts opts = { .buffer_kb = DEFAULT_BUFFER_KB, .capture = true,
					.analyze = true, .wait_settings = -1 };
	struct rec r = { .opt = &opts, .sigfd = -1, .thr.entry.fd = -1,
			 .names_lock = PTHREAD_MUTEX_INITIALIZER,
			 .tg_lock = PTHREAD_MUTEX_INITIALIZER };
	struct signalfd_siginfo si;
	sigset_t mask;
	int ret = EXIT_ERROR;

	block_signals(&mask);
	ra_malloc_tune();
	if (rec_parse_args(&opts, argc, argv) < 0) {
		ret = rec_error_status(ra_last_error());
		goto out;
	}
	/* every temporary file of the recorder's there: the buffers', the
	 * passes', big memory's */
	ra_tmpfile_set_dir(opts.tmpdir);
	if (opts.verbose >= 0 && isatty(STDERR_FILENO))
		r.progress = ra_progress_new(stderr, "ra-record");
	r.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r.sigfd < 0) {
		ret = rec_error_status("cannot watch signals");
		goto out;
	}
	if (r.opt->nkernels) {
		ret = rec_record_guests(&r);
		goto refit;
	}
	if (getuid() == 0)
		ra_journal_recover(rec_notice, &r);	/* what killed recorders left behind */
	if (rec_prepare(&r) < 0) {
		ret = rec_error_status(ra_last_error());
		if (read(r.sigfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo != SIGCHLD)
			ret = 128 + (int)si.ssi_signo;	/* while waiting for a setting */
		goto out;
	}
	r.db = ra_db_open_for_load(r.opt->output);
	if (!r.db) {
		ret = rec_error_status(ra_last_error());
		goto out;
	}
	own_db_files(r.db);
	r.run_label = r.opt->label;
	if (r.opt->throttle && ra_throttle_setup(&r.thr, r.opt->throttle) < 0) {
		ret = rec_error_status(ra_last_error());
		ra_db_load_abort(r.db);
		goto out;
	}
	ret = rec_record_all(&r);
refit:
	if (ret < 128 && rec_refit_models(&r) < 0)
		ret = rec_error_status(ra_last_error());
out:
	rec_release_all(&r);
	if (r.db && ra_db_close(r.db) < 0 && ret == 0)
		ret = rec_error_status(ra_last_error());
	if (r.sigfd >= 0)
		close(r.sigfd);
	for (int i = 0; i < r.opt->nguest; i++)
		free(r.opt->guest_args[i]);
	free(r.runs);
	free(r.tg);
	ra_big_free(r.asked.a);
	ra_big_free(r.born.a);
	ra_progress_free(r.progress);
	return ret;
}
