/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The host: block devices, their settings and counters, the mounted file
 * systems, file names, the read_ahead_kb settings a run sets or watches and
 * the journal that puts them back, what a recording traces, and blkio
 * throttling.
 */
#ifndef RA_COLLECT_HOST_H
#define RA_COLLECT_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ra_db.h"
#include "ra_event.h"

/* ---- sysinfo.c: devices, settings and counters ---- */

struct ra_blockdev {
	uint32_t dev;		/* kernel encoding, RA_MKDEV */
	uint32_t parent;	/* whole disk of a partition, else == dev */
	uint64_t start;		/* a partition's first sector on its disk, else 0 */
	uint64_t nr_sectors;	/* its size in 512-byte sectors, 0 unknown */
	char name[64];
	char parent_name[64];
	/* the hardware of the disk (sysfs device/), "" when it has none (loop, dm, md) */
	char transport[16];	/* its bus: nvme, scsi, virtio, mmc, ... */
	char vendor[64];
	char model[96];
	char firmware[48];
};

/** ra_read_small - a small file (sysfs, procfs) into @buf, trailing white space cut; 0 or -1 */
int ra_read_small(const char *path, char *buf, size_t len);

/** ra_blockdev_resolve - "loop0", "/dev/loop0" or "7:0"; 0 or -1 (RA_ERR_USAGE) */
int ra_blockdev_resolve(const char *arg, struct ra_blockdev *bd);

/** ra_blockdev_snapshot - settings and /sys/block stat of @bd; 0 or -1 */
int ra_blockdev_snapshot(const struct ra_blockdev *bd, struct ra_dev_snapshot *snap);

/** ra_blockdev_inflight - requests in flight on @bd, or -1 */
int64_t ra_blockdev_inflight(const struct ra_blockdev *bd);

/** ra_queue_read / ra_queue_write - one queue/ attribute of @bd's disk */
int ra_queue_read(const struct ra_blockdev *bd, const char *attr, char *buf, size_t len);
int ra_queue_write(const struct ra_blockdev *bd, const char *attr, const char *value);

/** ra_blockdev_all - every whole disk with a non-zero size; caller frees *out */
int ra_blockdev_all(struct ra_blockdev **out);

struct ra_sysinfo {
	char kernel[128];
	char hostname[128];
	char machine[64];
	int64_t page_size;
	int64_t cpus;
	int64_t mem_bytes;
};

void ra_sysinfo_read(struct ra_sysinfo *si);

/* /proc/vmstat kept in memory between the snapshot and the database write. */
struct ra_vmstat {
	int n;
	char name[32][48];
	int64_t value[32];
};

void ra_vmstat_read(struct ra_vmstat *vm);
int ra_vmstat_write(struct ra_db *db, int64_t run_id, const char *phase,
		    const struct ra_vmstat *vm);

/* ---- fsmap.c: mounted file systems, their block devices and readahead bdi ---- */

/* One line of /proc/self/mountinfo; the strings point into the map's text. */
struct ra_mount {
	int id;
	uint32_t s_dev;		/* RA_MKDEV of MAJ:MIN (field 3) */
	char *root;		/* the directory of the file system mounted here */
	char *point;
	char *fstype;
	char *source;
	char *options;		/* super options */
};

#define RA_FS_MAX_DEVS 16

struct ra_fs {
	uint32_t s_dev;			/* the dev of its page-cache and readahead events */
	const struct ra_mount *mnt;	/* the mount of its root, else its first mount */
	uint32_t devs[RA_FS_MAX_DEVS];	/* block devices holding it (overlay: its layers') */
	int ndevs;
	uint32_t layers[RA_FS_MAX_DEVS];	/* overlay: s_dev of the layers' file systems */
	int nlayers;
	char bdi[64];			/* the bdi of its readahead: "7:1", "btrfs-1", "" */
	char ra_path[128];		/* that bdi's read_ahead_kb file, "" unknown */
	bool own_bdi;			/* a bdi of its own, not its disk's */
	bool pseudo;			/* proc, sysfs, tmpfs, ...: no device I/O */
	char unresolved[128];		/* overlay: a layer given by a relative path, "" none */
};

struct ra_fsmap {
	struct ra_mount *mnt;
	int nmnt;
	struct ra_fs *fs;		/* one per s_dev */
	int nfs;
	char *text;
};

/** ra_fsmap_read - the mount table now; free with ra_fsmap_free(); NULL with ra_last_error() */
struct ra_fsmap *ra_fsmap_read(void);
/** ra_fsmap_parse - the map of a mountinfo text (devices looked up in sysfs); as above */
struct ra_fsmap *ra_fsmap_parse(const char *text);
void ra_fsmap_free(struct ra_fsmap *m);
/** ra_fsmap_find - the file system of @s_dev, or NULL */
const struct ra_fs *ra_fsmap_find(const struct ra_fsmap *m, uint32_t s_dev);
/** ra_fsmap_mount - the mount of mount id @id (fdinfo's mnt_id), or NULL */
const struct ra_mount *ra_fsmap_mount(const struct ra_fsmap *m, int id);
/** ra_fs_on - whether @fs lies on block device @dev (a member, a partition of it, or above it) */
bool ra_fs_on(const struct ra_fs *fs, uint32_t dev);
/** ra_fs_unmapped - a file system with files but no block device ratrace can name */
bool ra_fs_unmapped(const struct ra_fs *fs);

#define RA_TARGET_MAX_FS 16

/* What one --device or setting argument names. */
struct ra_target {
	char arg[64];
	struct ra_blockdev bd[RA_FS_MAX_DEVS];	/* block devices: block events, snapshots */
	int nbd;
	const struct ra_fs *fs[RA_TARGET_MAX_FS];	/* the file systems on them */
	int nfs;
	/* the other devices those file systems hold data on (another btrfs member,
	 * the devices under a device-mapper or md device): recorded with them */
	struct ra_blockdev member[RA_FS_MAX_DEVS];
	int nmember;
};

/**
 * ra_target_resolve - a block device ("loop0", "/dev/loop0", "7:0"), or the
 * anonymous s_dev "0:N" of a mounted file system (its block devices), the
 * file systems on them, and the other devices those hold data on: the
 * devices without slaves below each of their devices (overlays excepted:
 * their layers are file systems of their own), unless a named device holds
 * it (itself or a partition of it). @t points into @m, which must outlive it.
 * Returns 0, or -1 (RA_ERR_USAGE) naming what @arg is when it has no device.
 */
int ra_target_resolve(const struct ra_fsmap *m, const char *arg, struct ra_target *t);

/**
 * ra_fs_store - the filesystems rows of @fs in @run_id: one per block device
 * under it (dev 0 when it has none), its bdi and @ra_kb (NULL: not known),
 * @unrecorded (-1: not counted) its events not stored
 */
int ra_fs_store(struct ra_db *db, int64_t run_id, const struct ra_fs *fs, const char *ra_kb,
		int64_t unrecorded);

/* ---- journal.c: what a recorder must put back, locked while it holds it ---- */

/* Keys of the entries: RA_JOURNAL_RA "BDI", RA_JOURNAL_CGROUP "NAME". */
#define RA_JOURNAL_RA "read_ahead_kb."
#define RA_JOURNAL_CGROUP "cgroup."

struct ra_journal_entry {
	int fd;			/* the locked entry file, -1 when not held */
	char file[128];		/* /run/ratrace/KEY */
};

/**
 * ra_journal_lock - lock the entry @key in /run/ratrace, creating it
 * When the entry lists what a dead recorder left, that is put back first
 * (said through @fn). Returns 0 (held), 1 (held by the live process *@holder)
 * or -1 (ra_last_error()).
 */
int ra_journal_lock(struct ra_journal_entry *e, const char *key, pid_t *holder,
		    ra_notice_fn fn, void *arg);

/** ra_journal_note - the line that puts the thing back (NULL: nothing to); 0 or -1 (errno) */
int ra_journal_note(struct ra_journal_entry *e, const char *line);

/** ra_journal_unlock - remove the entry (unless it still lists something) and unlock it */
void ra_journal_unlock(struct ra_journal_entry *e);

/**
 * ra_journal_recover - put back what the entries no live recorder holds
 * list, saying so through @fn; returns the entries done with
 */
int ra_journal_recover(ra_notice_fn fn, void *arg);

/* ---- paths.c: file names, taken when they can first be seen ---- */

struct ra_names;

#define RA_MAX_UNMAPPED 16

/**
 * ra_names_alloc - the names of the files of the file systems @traced
 * (@ntraced -1: of every file system with device I/O), of mount table @m
 * (both must outlive it). Free with ra_names_free(); NULL when out of memory.
 */
struct ra_names *ra_names_alloc(const struct ra_fsmap *m, const uint32_t *traced, int ntraced);
void ra_names_free(struct ra_names *nm);
/** ra_names_traced - whether file system @s_dev is one whose names are kept */
bool ra_names_traced(const struct ra_names *nm, uint32_t s_dev);
/** ra_names_walk - every regular file of the traced file systems, before the workload */
int ra_names_walk(struct ra_names *nm);
/**
 * ra_names_open_size - 1 and the size of file (@dev, @ino) when it was seen
 * open, the size its name is stored with; 0 when it was not
 */
int ra_names_open_size(const struct ra_names *nm, uint32_t dev, uint64_t ino, int64_t *size);
/**
 * ra_names_size_by_ino - 1 and the size file (@dev, @ino) has now, where its
 * file system names an inode number (the name the run will store it with);
 * 0 when it cannot tell
 */
int ra_names_size_by_ino(const struct ra_names *nm, uint32_t dev, uint64_t ino, int64_t *size);
/** ra_names_scan - the regular files the processes of @pid's tree have open */
void ra_names_scan(struct ra_names *nm, int pid);
/**
 * ra_names_unmapped - the @i-th file system without a block device ratrace
 * can map that a scan found open files on, with one such file; 0 past the end
 */
int ra_names_unmapped(const struct ra_names *nm, int i, uint32_t *s_dev, const char **path);

/* How the names of a run's files were found. */
struct ra_name_counts {
	size_t open;		/* seen open while the workload ran */
	size_t by_ino;		/* from the inode number after it (ext2/3/4, btrfs) */
	size_t walked;		/* by a walk of the file system after it */
	size_t before;		/* gone at the end: the name the walk before the run saw */
	size_t unnamed;
};

/**
 * ra_paths_resolve - names of the run's @files (ra_writer_files(), in order)
 * into the files table: a name seen open, else the name at the end of the
 * run (from the inode number where the file system can tell it, else from a
 * walk), else the name before it; how each was found into @counts (zeroed
 * by the caller; may be NULL). 0 or -1
 */
int ra_paths_resolve(struct ra_db *db, int64_t run_id, const struct ra_names *nm,
		     const struct ra_file_id *files, size_t nfiles, struct ra_name_counts *counts);

/* ---- settings.c: the read_ahead_kb files a run sets or watches ---- */

struct ra_settings;

/** ra_settings_alloc - an empty set; messages for the user go to @notice. NULL: no memory */
struct ra_settings *ra_settings_alloc(ra_notice_fn notice, void *arg, bool verbose);
/** ra_settings_free - unlock and free (restore first); safe on NULL */
void ra_settings_free(struct ra_settings *s);
/**
 * ra_settings_disk / ra_settings_fs - the read_ahead_kb of @bd's disk, of
 * @fs's bdi when it has one of its own: set to @value for the run, to the
 * sweep's value (@sweep), or watched only (@value NULL). 0 or -1 (two values)
 */
int ra_settings_disk(struct ra_settings *s, const struct ra_blockdev *bd, const char *value,
		     bool sweep);
int ra_settings_fs(struct ra_settings *s, const struct ra_fs *fs, const char *value, bool sweep);
/** ra_settings_sweep - the value of the sweep's settings for the next run */
void ra_settings_sweep(struct ra_settings *s, const char *value);
/**
 * ra_settings_lock - lock every setting the runs change, against other
 * recorders: @wait_s -1 refuses one held by another (naming it and its
 * holder), 0 waits until it is free, N waits N seconds; a signal on @sigfd
 * ends the wait. 0 or -1 (ra_last_error()), nothing changed.
 */
int ra_settings_lock(struct ra_settings *s, int wait_s, int sigfd);
/** ra_settings_begin - a new run: read every value; -1 when one to set cannot be read */
int ra_settings_begin(struct ra_settings *s);
/** ra_settings_apply - journal, then write, the values to set */
int ra_settings_apply(struct ra_settings *s);
/** ra_settings_check - read every value again: changes seen at @ts_ns; returns their number */
int ra_settings_check(struct ra_settings *s, int64_t ts_ns);
/** ra_settings_restore - put back what was set, saying when it had changed meanwhile */
int ra_settings_restore(struct ra_settings *s);
/** ra_settings_store - settings and setting_changes rows of the run (@timed: ts_ns known) */
int ra_settings_store(const struct ra_settings *s, struct ra_db *db, int64_t run_id,
		      bool timed);
/** ra_settings_value - the value a read_ahead_kb file had for the run, or NULL */
const char *ra_settings_value(const struct ra_settings *s, const char *path);
/** ra_settings_count - settings known (@changed_only: those the runs change) */
int ra_settings_count(const struct ra_settings *s, bool changed_only);

/* ---- scope.c: what a recording traces ---- */

#define RA_SCOPE_MAX_FS 64
#define RA_SCOPE_MAX_DEVS 128

/*
 * What the filter of block events lets through: the events of @dev, all of
 * them (@nr 0) or those of sectors [start, start + nr). Block events carry
 * the whole disk with the sector on it, never a partition: a partition is
 * its disk's sector range.
 */
struct ra_blk_range {
	uint32_t dev;
	uint64_t start, nr;
};

struct ra_scope {
	const struct ra_fsmap *m;
	bool filtered;				/* devices were named */
	const struct ra_fs *fs[RA_SCOPE_MAX_FS];	/* the file systems on them */
	int nfs;
	uint32_t fs_devs[RA_SCOPE_MAX_DEVS];	/* filter of page-cache and readahead events */
	int nfs_devs;
	struct ra_blk_range blk[RA_SCOPE_MAX_DEVS];	/* filter of block events */
	int nblk;
	uint32_t unmapped[RA_SCOPE_MAX_FS];	/* no device to map: counted, left out */
	int64_t unmapped_n[RA_SCOPE_MAX_FS];
	int nunmapped;
	uint32_t seen[RA_SCOPE_MAX_FS];		/* unfiltered: s_dev of stored events */
	int nseen;
	uint32_t last_dev;
	int last_kind;
};

/**
 * ra_scope_init - the scope of the devices @t (none: everything), of mount
 * table @m: page-cache and readahead events of the file systems on them,
 * block events of them and of their members (of a partition, its disk's in
 * its sectors)
 */
void ra_scope_init(struct ra_scope *sc, const struct ra_fsmap *m, const struct ra_target *t,
		   int nt);
/** ra_scope_reset - a new run: nothing seen or left out yet */
void ra_scope_reset(struct ra_scope *sc);
/** ra_scope_keep - whether @ev is stored (false: counted as left out) */
bool ra_scope_keep(struct ra_scope *sc, const struct ra_event *ev);

struct ra_scope_store {
	struct ra_db *db;
	int64_t run_id;
	const struct ra_settings *settings;	/* the read_ahead_kb values of the run */
	const struct ra_names *names;		/* unmapped file systems of open files */
	ra_notice_fn notice;			/* a line for each of those */
	void *arg;
};

/**
 * ra_scope_store - the filesystems rows of the run: those on the devices (or
 * of the stored events), and those without a device that the run met
 */
int ra_scope_store(const struct ra_scope *sc, const struct ra_scope_store *o);

/* ---- throttle.c: a blkio cgroup of the workload (slow-device emulation) ---- */

struct ra_throttle {
	char cgroup[256];	/* "" when none */
	char procs[300];	/* its cgroup.procs, for the workload to join */
	uint32_t dev;		/* the throttled disk */
	char iops[24], bps[24];	/* "" when not set */
	struct ra_journal_entry entry;
};

/**
 * ra_throttle_setup - "DEV=iops:N,bps:N": create the cgroup and set its read
 * throttles on DEV's disk. 0, or -1 (ra_last_error()); remove it either way.
 */
int ra_throttle_setup(struct ra_throttle *t, const char *spec);
/**
 * ra_throttle_settle - before a run: the limits set anew (no credit left by
 * the runs before), then a wait until the first slice they begin has passed.
 * 0 (also without a throttle), or -1 (ra_last_error()).
 */
int ra_throttle_settle(struct ra_throttle *t);
/** ra_throttle_remove - remove the cgroup; 0, or -1 (the journal keeps it) */
int ra_throttle_remove(struct ra_throttle *t);
/** ra_throttle_store - the throttle as settings rows of @run_id */
int ra_throttle_store(const struct ra_throttle *t, struct ra_db *db, int64_t run_id);

#endif /* RA_COLLECT_HOST_H */
