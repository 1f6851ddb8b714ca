// SPDX-License-Identifier: LGPL-2.1
/*
 * What a recording traces: with --device, the named block devices and the
 * file systems on them (fsmap.c), as the in-kernel event filters; without,
 * everything, and the file systems are those of the events stored.
 *
 * File systems that have no block device ratrace can map (fuse, nfs, erofs
 * on a file, ...) cannot be said to lie on a device or not. With --device
 * their s_dev is filtered in as well, so that their events are counted, and
 * then left out of the database: the run says how many it left out and why,
 * instead of showing nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

enum { DEV_STORE = 1, DEV_LEAVE_OUT };

static bool has_dev(const uint32_t *v, int n, uint32_t dev)
{
	for (int i = 0; i < n; i++)
		if (v[i] == dev)
			return true;
	return false;
}

static void add_fs_dev(struct ra_scope *sc, uint32_t dev)
{
	if (!has_dev(sc->fs_devs, sc->nfs_devs, dev) && sc->nfs_devs < RA_SCOPE_MAX_DEVS)
		sc->fs_devs[sc->nfs_devs++] = dev;
}

static void add_range(struct ra_scope *sc, uint32_t dev, uint64_t start, uint64_t nr)
{
	for (int i = 0; i < sc->nblk; i++)
		if (sc->blk[i].dev == dev && sc->blk[i].start == start && sc->blk[i].nr == nr)
			return;
	if (sc->nblk < RA_SCOPE_MAX_DEVS)
		sc->blk[sc->nblk++] = (struct ra_blk_range){ dev, start, nr };
}

/*
 * A partition's block events are its disk's in its sector range (and its own,
 * if a kernel names it); of one whose range is not known, its disk's.
 */
static void add_blk_dev(struct ra_scope *sc, const struct ra_blockdev *bd)
{
	add_range(sc, bd->dev, 0, 0);
	if (bd->parent != bd->dev)
		add_range(sc, bd->parent, bd->nr_sectors ? bd->start : 0, bd->nr_sectors);
}

static void add_fs(struct ra_scope *sc, const struct ra_fs *fs)
{
	for (int i = 0; i < sc->nfs; i++)
		if (sc->fs[i] == fs)
			return;
	if (sc->nfs < RA_SCOPE_MAX_FS)
		sc->fs[sc->nfs++] = fs;
	add_fs_dev(sc, fs->s_dev);
}

void ra_scope_init(struct ra_scope *sc, const struct ra_fsmap *m, const struct ra_target *t,
		   int nt)
{
	memset(sc, 0, sizeof(*sc));
	sc->m = m;
	sc->filtered = nt > 0;
	for (int i = 0; i < nt; i++) {
		/* the device itself: a file system on it, or its block device file */
		for (int j = 0; j < t[i].nbd; j++) {
			add_fs_dev(sc, t[i].bd[j].dev);
			add_blk_dev(sc, &t[i].bd[j]);
		}
		for (int j = 0; j < t[i].nfs; j++)
			add_fs(sc, t[i].fs[j]);
		for (int j = 0; j < t[i].nmember; j++)
			add_blk_dev(sc, &t[i].member[j]);
	}
	for (int i = 0; sc->filtered && i < m->nfs && sc->nunmapped < RA_SCOPE_MAX_FS; i++) {
		const struct ra_fs *fs = &m->fs[i];

		if (!ra_fs_unmapped(fs) || has_dev(sc->fs_devs, sc->nfs_devs, fs->s_dev))
			continue;
		sc->unmapped[sc->nunmapped++] = fs->s_dev;
		add_fs_dev(sc, fs->s_dev);
	}
}

void ra_scope_reset(struct ra_scope *sc)
{
	sc->last_dev = 0;
	sc->last_kind = 0;
	sc->nseen = 0;
	memset(sc->unmapped_n, 0, sizeof(sc->unmapped_n));
}

static int dev_kind(struct ra_scope *sc, uint32_t dev)
{
	for (int i = 0; i < sc->nunmapped; i++)
		if (sc->unmapped[i] == dev)
			return DEV_LEAVE_OUT;
	if (!sc->filtered && !has_dev(sc->seen, sc->nseen, dev) && sc->nseen < RA_SCOPE_MAX_FS)
		sc->seen[sc->nseen++] = dev;
	return DEV_STORE;
}

bool ra_scope_keep(struct ra_scope *sc, const struct ra_event *ev)
{
	int cls = ra_event_class(ev->type);
	uint32_t dev;

	if (cls != RA_CLASS_RA && cls != RA_CLASS_PAGE)
		return true;
	dev = cls == RA_CLASS_RA ? ev->ra.dev : ev->page.dev;
	if (!dev)
		return true;	/* the WILLNEED system calls */
	if (dev != sc->last_dev) {
		sc->last_dev = dev;
		sc->last_kind = dev_kind(sc, dev);
	}
	if (sc->last_kind != DEV_LEAVE_OUT)
		return true;
	for (int i = 0; i < sc->nunmapped; i++)
		if (sc->unmapped[i] == dev)
			sc->unmapped_n[i]++;
	return false;
}

/* An overlay whose layers are not known: its files' events are its layers' own. */
static void overlay_msg(char *msg, size_t len, const struct ra_fs *fs, bool filtered)
{
	snprintf(msg, len, "warning: the overlay file system %u:%u at '%s' gives its layer '%s'"
		 " by a relative path: ratrace cannot tell which file system holds it%s",
		 RA_MAJOR(fs->s_dev), RA_MINOR(fs->s_dev), fs->mnt->point, fs->unresolved,
		 filtered ? "; the events of its files are recorded when their layer's file"
		 " system is on the --device devices" : "");
}

/* A file system with no block device ratrace can map: a row, and one line. */
static int store_unmapped(const struct ra_scope *sc, const struct ra_scope_store *o,
			  const struct ra_fs *fs, int64_t n, const char *path)
{
	char msg[2048];

	if (fs->unresolved[0])
		overlay_msg(msg, sizeof(msg), fs, sc->filtered);
	else if (sc->filtered)
		snprintf(msg, sizeof(msg), "warning: the %s file system %u:%u at '%s'%s%s%s has no"
			 " block device ratrace can map to the --device devices: its page-cache"
			 " and readahead events are not recorded", fs->mnt->fstype,
			 RA_MAJOR(fs->s_dev), RA_MINOR(fs->s_dev), fs->mnt->point,
			 path ? " (the workload had '" : "", path ? path : "",
			 path ? "' open)" : "");
	else
		snprintf(msg, sizeof(msg), "warning: the %s file system %u:%u at '%s' has no block"
			 " device ratrace can map: its readahead is not tied to a device or a"
			 " setting", fs->mnt->fstype, RA_MAJOR(fs->s_dev), RA_MINOR(fs->s_dev),
			 fs->mnt->point);
	if (o->notice)
		o->notice(msg, o->arg);
	return ra_fs_store(o->db, o->run_id, fs, ra_settings_value(o->settings, fs->ra_path), n);
}

/* The unmapped file systems whose events were left out, or whose files the workload had open. */
static int store_left_out(const struct ra_scope *sc, const struct ra_scope_store *o)
{
	const char *path;
	uint32_t dev;

	for (int i = 0; i < sc->nunmapped; i++) {
		const struct ra_fs *fs = ra_fsmap_find(sc->m, sc->unmapped[i]);

		if (fs && sc->unmapped_n[i] > 0 &&
		    store_unmapped(sc, o, fs, sc->unmapped_n[i], NULL) < 0)
			return -1;
	}
	for (int i = 0; ra_names_unmapped(o->names, i, &dev, &path); i++) {
		const struct ra_fs *fs = ra_fsmap_find(sc->m, dev);
		bool stored = has_dev(sc->seen, sc->nseen, dev);

		for (int j = 0; j < sc->nunmapped; j++)
			stored |= sc->unmapped[j] == dev && sc->unmapped_n[j] > 0;
		if (fs && !stored && store_unmapped(sc, o, fs, sc->filtered ? 0 : -1, path) < 0)
			return -1;
	}
	return 0;
}

static int store_fs(const struct ra_scope *sc, const struct ra_scope_store *o,
		    const struct ra_fs *fs)
{
	if (!fs || fs->pseudo)
		return 0;
	if (ra_fs_unmapped(fs))
		return store_unmapped(sc, o, fs, -1, NULL);
	return ra_fs_store(o->db, o->run_id, fs, ra_settings_value(o->settings, fs->ra_path),
			   sc->filtered ? 0 : -1);
}

/* Unfiltered: an overlay has no events of its own; it is listed when a layer's are stored. */
static bool above_seen(const struct ra_scope *sc, const struct ra_fs *fs)
{
	for (int i = 0; i < fs->nlayers; i++)
		if (has_dev(sc->seen, sc->nseen, fs->layers[i]))
			return true;
	return false;
}

int ra_scope_store(const struct ra_scope *sc, const struct ra_scope_store *o)
{
	for (int i = 0; i < (sc->filtered ? sc->nfs : sc->nseen); i++) {
		const struct ra_fs *fs = sc->filtered ? sc->fs[i] :
							ra_fsmap_find(sc->m, sc->seen[i]);

		if (store_fs(sc, o, fs) < 0)
			return -1;
	}
	for (int i = 0; !sc->filtered && i < sc->m->nfs; i++)
		if (sc->m->fs[i].nlayers && !has_dev(sc->seen, sc->nseen, sc->m->fs[i].s_dev) &&
		    above_seen(sc, &sc->m->fs[i]) && store_fs(sc, o, &sc->m->fs[i]) < 0)
			return -1;
	return store_left_out(sc, o);
}
