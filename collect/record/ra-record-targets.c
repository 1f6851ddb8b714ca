// SPDX-License-Identifier: GPL-2.0
/*
 * ra-record: what the runs trace and change: the devices and file systems
 * of -d, their snapshots, the settings of --read-ahead-kb.
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

/* ---- what the runs trace and change ---- */

static int resolve_targets(struct rec *r)
{
	r->fsmap = ra_fsmap_read();
	if (!r->fsmap)
		return -1;
	for (int i = 0; i < r->opt->nfilter; i++)
		if (ra_target_resolve(r->fsmap, r->opt->filter_arg[i], &r->filter[i]) < 0)
			return -1;
	for (int i = 0; i < r->opt->nsetreq; i++)
		if (ra_target_resolve(r->fsmap, r->opt->setreq[i].dev, &r->set_target[i]) < 0)
			return -1;
	ra_scope_init(&r->scope, r->fsmap, r->filter, r->opt->nfilter);
	return 0;
}

static int add_snap(struct rec *r, const struct ra_blockdev *bd, const char *role)
{
	struct snapdev *nv;

	for (int j = 0; j < r->nsnaps; j++)
		if (r->snaps[j].bd.dev == bd->dev)
			return 0;
	nv = realloc(r->snaps, (size_t)(r->nsnaps + 1) * sizeof(*nv));
	if (!nv) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	r->snaps = nv;
	memset(&r->snaps[r->nsnaps], 0, sizeof(*nv));
	r->snaps[r->nsnaps].bd = *bd;
	r->snaps[r->nsnaps++].role = role;
	return 0;
}

/* The devices snapshot: the named ones and their members, else every disk. */
static int collect_snapdevs(struct rec *r)
{
	struct ra_blockdev *all = NULL;
	int m, ret = 0;

	for (int i = 0; i < r->opt->nfilter; i++)
		for (int j = 0; j < r->filter[i].nbd; j++)
			if (add_snap(r, &r->filter[i].bd[j], "filter") < 0)
				return -1;
	for (int i = 0; i < r->opt->nfilter; i++)
		for (int j = 0; j < r->filter[i].nmember; j++)
			if (add_snap(r, &r->filter[i].member[j], "member") < 0)
				return -1;
	for (int i = 0; i < r->opt->nsetreq; i++)
		for (int j = 0; j < r->set_target[i].nbd; j++)
			if (add_snap(r, &r->set_target[i].bd[j], "setting") < 0)
				return -1;
	if (r->opt->nfilter)
		return 0;
	m = ra_blockdev_all(&all);
	for (int i = 0; i < m && ret == 0; i++)
		ret = add_snap(r, &all[i], "traced");
	free(all);
	return ret;
}

/* The settings of the runs on target @t: @value, the sweep's (@sweep), or watched (NULL). */
static int target_settings(struct rec *r, const struct ra_target *t, const char *value,
			   bool sweep)
{
	for (int j = 0; j < t->nbd; j++)
		if (ra_settings_disk(r->settings, &t->bd[j], value, sweep) < 0)
			return -1;
	for (int j = 0; j < t->nfs; j++)
		if (ra_settings_fs(r->settings, t->fs[j], value, sweep) < 0)
			return -1;
	return 0;
}

/*
 * What the runs set (--read-ahead-kb, --sweep on the --device devices), and
 * what they watch: the disks snapshot and the bdi of every file system in
 * scope (every mounted one without --device) that has one of its own.
 */
static int build_settings(struct rec *r)
{
	r->settings = ra_settings_alloc(rec_notice, r, r->opt->verbose > 0);
	if (!r->settings)
		return -1;
	for (int i = 0; i < r->opt->nsetreq; i++)
		if (target_settings(r, &r->set_target[i], r->opt->setreq[i].value, false) < 0)
			return -1;
	for (int i = 0; r->opt->sweep_kb && i < r->opt->nfilter; i++)
		if (target_settings(r, &r->filter[i], NULL, true) < 0)
			return -1;
	for (int i = 0; i < r->nsnaps; i++)
		if (ra_settings_disk(r->settings, &r->snaps[i].bd, NULL, false) < 0)
			return -1;
	for (int i = 0; i < (r->opt->nfilter ? r->scope.nfs : r->fsmap->nfs); i++) {
		const struct ra_fs *fs = r->opt->nfilter ? r->scope.fs[i] : &r->fsmap->fs[i];

		if (ra_settings_fs(r->settings, fs, NULL, false) < 0)
			return -1;
	}
	return 0;
}

/* Say which file systems on the devices cannot have their readahead set. */
static void warn_unset(struct rec *r)
{
	for (int i = 0; i < r->opt->nsetreq + (r->opt->sweep_kb ? r->opt->nfilter : 0); i++) {
		const struct ra_target *t = i < r->opt->nsetreq ? &r->set_target[i] :
							    &r->filter[i - r->opt->nsetreq];

		for (int j = 0; j < t->nfs; j++) {
			const struct ra_fs *fs = t->fs[j];

			if (!fs->ra_path[0] && !fs->nlayers && r->opt->verbose >= 0)
				fprintf(stderr, "ra-record: warning: which bdi governs the"
					" readahead of the %s file system at '%s' is not known:"
					" only the queue/read_ahead_kb of its disk is set\n",
					fs->mnt->fstype, fs->mnt->point);
		}
	}
}

/* -v: the devices recorded because a file system on a named one holds data on them. */
static void say_members(struct rec *r)
{
	for (int i = 0; i < r->opt->nfilter && r->opt->verbose > 0; i++)
		for (int j = 0; j < r->filter[i].nmember; j++)
			fprintf(stderr, "ra-record: recording %s too: a file system on '%s'"
				" holds data on it\n", r->filter[i].member[j].name,
				r->filter[i].arg);
}

int rec_prepare(struct rec *r)
{
	if (resolve_targets(r) < 0 || collect_snapdevs(r) < 0 || build_settings(r) < 0)
		return -1;
	warn_unset(r);
	say_members(r);
	return ra_settings_lock(r->settings, r->opt->wait_settings, r->sigfd);
}
