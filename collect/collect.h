/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private interfaces of the collectors: the tracepoint decoder shared by live
 * recording and trace.dat import, the raw ring-buffer reader, the tracefs
 * recorder, system snapshots and the workload runner.
 */
#ifndef RA_COLLECT_H
#define RA_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ra_db.h"
#include "ra_event.h"

struct tep_handle;
struct tep_record;

/* ---- decode.c: tep record -> struct ra_event ---- */

struct ra_decoder;

/**
 * ra_decoder_alloc - resolve the events and fields ratrace uses in @tep
 * The decoder keeps a reference to @tep, which must outlive it.
 */
struct ra_decoder *ra_decoder_alloc(struct tep_handle *tep);
void ra_decoder_free(struct ra_decoder *dec);

/** ra_decoder_has - whether @tep describes event @type */
bool ra_decoder_has(struct ra_decoder *dec, int type);

/**
 * ra_decode - decode @rec into @ev
 * Returns 1 when @rec is an event ratrace stores, 0 when it is another event
 * (counted: see ra_decoder_skipped()).
 */
int ra_decode(struct ra_decoder *dec, struct tep_record *rec, struct ra_event *ev);

/* What the self-check of dynamic readahead events counted (decode.c). */
struct ra_selfcheck {
	uint64_t windows;	/* windows from dynamic events */
	uint64_t pages;		/* pages added to their files inside readahead calls */
	uint64_t outside;	/* of those, pages outside the call's window (or with none) */
	uint64_t other_files;	/* pages of other files added inside the calls (metadata) */
	uint64_t first_ts;	/* the first page outside */
};

/* Which events ra_decode() passes on when an event came from both sources. */
enum { RA_SIDE_ALL, RA_SIDE_TRACEPOINT, RA_SIDE_DYNAMIC };

/**
 * ra_decoder_side - decode the tracepoints' or the dynamic events' side of
 * the events recorded from both, from now on; resets the counts (skipped
 * records, the self-check) for a replay of the same records
 */
void ra_decoder_side(struct ra_decoder *dec, int side);
/** ra_decoder_dynamic - whether the formats hold a dynamic event of @type */
bool ra_decoder_dynamic(struct ra_decoder *dec, int type);
/** ra_decoder_selfcheck - the self-check's counts of the records decoded so far */
void ra_decoder_selfcheck(struct ra_decoder *dec, struct ra_selfcheck *out);

/* One event type a source held and ratrace did not store, and how many. */
typedef void (*ra_skipped_cb)(const char *system, const char *name, uint64_t n, void *arg);

/**
 * ra_decoder_skipped - the records ra_decode() returned 0 for, per event type
 * Calls @cb (may be NULL) once per event type with its count: the system and
 * name from the formats, or "unknown", "unknown event" for records of an event
 * the formats do not describe. Returns the total.
 */
uint64_t ra_decoder_skipped(struct ra_decoder *dec, ra_skipped_cb cb, void *arg);

/* ---- rawbuf.c: per-CPU files of raw ring-buffer sub-buffers ---- */

struct ra_rawcpu {
	int cpu;
	int fd;			/* file of sub-buffers, read from offset 0 */
	uint64_t missed;	/* out: events the ring buffer marked as lost */
	uint64_t events;	/* out: events read */
	int missed_unknown;	/* out: sub-buffers that lost an unknown number */
};

typedef int (*ra_event_cb)(const struct ra_event *ev, void *arg);

/**
 * ra_rawbuf_replay - merge the per-CPU files by time and decode every record
 * Calls @cb for each event ratrace stores; stops when @cb returns < 0.
 * Returns 0, or -1 with ra_last_error() set.
 */
int ra_rawbuf_replay(struct tep_handle *tep, struct ra_decoder *dec, struct ra_rawcpu *cpus,
		     int ncpus, ra_event_cb cb, void *arg);

/* ---- blktrace.c: blktrace binary files (per-CPU NAME.blktrace.N, blkparse -d dumps) ---- */

struct ra_blktrace_stats {
	uint64_t records;	/* trace records read (all actions) */
	uint64_t events;	/* records mapped to a struct ra_event and passed on */
	uint64_t notify;	/* notify records (process names, timestamps, messages) */
	uint64_t skipped;	/* records of actions ratrace does not store */
	int version;		/* 7 or 8 */
	int swapped;		/* 1 when the files are of the other byte order */
	int64_t wall_start_ns;	/* from a timestamp notify record, else -1 */
};

struct ra_blktrace_cbs {
	ra_event_cb event;	/* every mapped record, merged by time across files */
	void (*task)(int pid, const char *comm, void *arg); /* process-name notify records */
	/* after a replay that succeeded, per kind of record not stored (system
	 * "blktrace"; name "abort", "drv_data", "message", "action N", "note N") */
	ra_skipped_cb skipped;
	void *arg;
};

/**
 * ra_blktrace_probe - whether the first bytes of a file are a blktrace record
 * Returns 1 (native order), 2 (swapped), 0 (not blktrace).
 */
int ra_blktrace_probe(const void *buf, size_t len);

/**
 * ra_blktrace_replay - read blktrace files and pass their records on in time order
 * @paths: files, each a per-CPU file or a blkparse -d dump
 *
 * Everything is checked before it is used (magic, version, byte order, pdu
 * length, short reads). Returns 0, or -1 with ra_last_error() naming the file,
 * the offset and what was wrong; events already passed on must then be
 * discarded by the caller.
 */
int ra_blktrace_replay(const char *const *paths, int npaths, const struct ra_blktrace_cbs *cbs,
		       struct ra_blktrace_stats *stats);

/**
 * ra_blktrace_expand - the per-CPU files of a trace: NAME -> NAME.blktrace.N
 * Returns how many exist (> 0) with *@paths a NULL-terminated array sorted by
 * N, or -1 (RA_ERR_USAGE when there is none). The caller frees every string
 * and the array.
 */
int ra_blktrace_expand(const char *name, char ***paths);

/* ---- tracedat.c: trace-cmd trace.dat files ---- */

struct ra_tracedat;

/** ra_tracedat_probe - whether the first bytes of a file are a trace.dat header */
int ra_tracedat_probe(const void *buf, size_t len);
/**
 * ra_tracedat_check - structural check of a trace.dat (versions 6 and 7)
 * Every size and offset the file declares must lie inside the file, and what
 * the libraries read without bounds must be sound (docs/robustness.md).
 * Returns 0; 1 when it is sound but a buffer holds latency text instead of
 * event records (which libtracecmd cannot iterate); or -1 with
 * ra_last_error() naming the file, the offset and what is wrong
 * (RA_ERR_DATA; RA_ERR_USAGE when the file cannot be opened or read).
 */
int ra_tracedat_check(const char *path);
/** ra_tracedat_open - open a trace.dat and all its buffers; NULL with ra_last_error() */
struct ra_tracedat *ra_tracedat_open(const char *path);
void ra_tracedat_close(struct ra_tracedat *td);
/** ra_tracedat_has - whether the file's formats describe event @type */
bool ra_tracedat_has(struct ra_tracedat *td, int type);
/** ra_tracedat_replay - decode every record of every buffer in time order */
int ra_tracedat_replay(struct ra_tracedat *td, ra_event_cb cb, void *arg);
/**
 * ra_tracedat_skipped - the records of the replay that ratrace does not store
 * As ra_decoder_skipped(), over every buffer (an event type of two buffers is
 * passed to @cb twice). Returns the total.
 */
uint64_t ra_tracedat_skipped(struct ra_tracedat *td, ra_skipped_cb cb, void *arg);
void ra_tracedat_uname(struct ra_tracedat *td, char *kernel, char *host, char *machine,
		       size_t len);
void ra_tracedat_clock(struct ra_tracedat *td, char *out, size_t len);
int ra_tracedat_page_size(struct ra_tracedat *td);
int ra_tracedat_ncpus(struct ra_tracedat *td);
void ra_tracedat_span(struct ra_tracedat *td, uint64_t *first, uint64_t *last);
int ra_tracedat_store_lost(struct ra_tracedat *td, struct ra_db *db, int64_t run_id);
const char *ra_tracedat_comm(struct ra_tracedat *td, int pid);

/* ---- sysinfo.c: devices, settings and counters ---- */

struct ra_blockdev {
	uint32_t dev;		/* kernel encoding, RA_MKDEV */
	uint32_t parent;	/* whole disk of a partition, else == dev */
	uint64_t start;		/* a partition's first sector on its disk, else 0 */
	uint64_t nr_sectors;	/* its size in 512-byte sectors, 0 unknown */
	char name[64];
	char parent_name[64];
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

/* Messages for the user (what was put back for a dead recorder), one line each. */
typedef void (*ra_notice_fn)(const char *msg, void *arg);

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

/* ---- bench.c ---- */

/** ra_bench_parse_fio - fio's JSON results in the run's output into bench_results; 0 or -1 */
int ra_bench_parse_fio(struct ra_db *db, int64_t run_id);

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
/** ra_names_scan - the regular files the processes of @pid's tree have open */
void ra_names_scan(struct ra_names *nm, int pid);
/**
 * ra_names_unmapped - the @i-th file system without a block device ratrace
 * can map that a scan found open files on, with one such file; 0 past the end
 */
int ra_names_unmapped(const struct ra_names *nm, int i, uint32_t *s_dev, const char **path);

/**
 * ra_paths_resolve - names of the run's files into the files table: a name
 * seen open, else found after the run, else before it; 0 or -1
 */
int ra_paths_resolve(struct ra_db *db, int64_t run_id, const struct ra_names *nm);

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
/** ra_throttle_remove - remove the cgroup; 0, or -1 (the journal keeps it) */
int ra_throttle_remove(struct ra_throttle *t);
/** ra_throttle_store - the throttle as settings rows of @run_id */
int ra_throttle_store(const struct ra_throttle *t, struct ra_db *db, int64_t run_id);

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
 * ra_workload_spawn - fork the workload, stopped until ra_workload_release()
 * @capture: tee the child's stdout/stderr through pipes to be stored
 */
int ra_workload_spawn(struct ra_workload *wl, char *const *argv, bool capture);
int ra_workload_release(struct ra_workload *wl);

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

/* ---- btf.c: the running kernel's BTF ---- */

struct ra_btf;

#define RA_BTF_MAX_PARAMS 6
#define RA_BTF_MAX_DEREF 8

struct ra_btf_func {
	int nparams;
	int ret_size;				/* bytes of the return value, 0 void */
	char param[RA_BTF_MAX_PARAMS][32];	/* the parameters' names */
	char pointee[RA_BTF_MAX_PARAMS][48];	/* the struct a pointer parameter points to, "" */
	uint32_t type_id[RA_BTF_MAX_PARAMS];
};

/* How to read PARAM->a->b: memory at +off[0] of the parameter, then +off[1] of that, ... */
struct ra_btf_fetch {
	uint32_t off[RA_BTF_MAX_DEREF];
	int nderef;
	int size;		/* of the number at the end: 1, 2, 4 or 8 */
	bool is_signed;
};

/**
 * ra_btf_open - the kernel's BTF (@path NULL: $RATRACE_BTF, else
 * /sys/kernel/btf/vmlinux); NULL with ra_last_error() (RA_ERR_ENV)
 */
struct ra_btf *ra_btf_open(const char *path);
void ra_btf_close(struct ra_btf *b);
/** ra_btf_func - the parameters of function @name; 0, or -1 when BTF has no such function */
int ra_btf_func(struct ra_btf *b, const char *name, struct ra_btf_func *fn);
/**
 * ra_btf_path - where "a->b->c" lies from parameter @param (1-based) of @fn
 * ("" for the parameter itself), through anonymous members too; 0, or -1
 * naming the member that is not there
 */
int ra_btf_path(struct ra_btf *b, const struct ra_btf_func *fn, int param, const char *path,
		struct ra_btf_fetch *out);

/* ---- dynevent.c: readahead and access events from kprobes ---- */

struct ra_dynevents;

/* How the probes' fields are written: BTF names the kernel resolves, or offsets. */
enum { RA_DYN_ARGS_AUTO, RA_DYN_ARGS_NAMES, RA_DYN_ARGS_OFFSETS };

/** ra_dyn_can - whether event @type has a dynamic version */
bool ra_dyn_can(int type);
/**
 * ra_dyn_create - the dynamic events of the types @want[type] (and, with the
 * readahead ones, the probes of the self-check), under "ratrace_<pid>"
 * Never fails for a kernel that lacks something: ra_dyn_state() says, per
 * type, what was made and why not. NULL only when out of memory.
 */
struct ra_dynevents *ra_dyn_create(const bool *want, int style);
/** ra_dyn_state - 1 made (*@def its definition), -1 wanted and not made (*@why), 0 not wanted */
int ra_dyn_state(const struct ra_dynevents *de, int type, const char **def, const char **why);
/** ra_dyn_checked - whether the probes of the self-check were all made */
bool ra_dyn_checked(const struct ra_dynevents *de);
/** ra_dyn_missed - calls the probes missed (kprobe_profile), as far as the kernel says */
uint64_t ra_dyn_missed(const struct ra_dynevents *de);
/** ra_dyn_check_why - why a probe of the self-check was not made, "" */
const char *ra_dyn_check_why(const struct ra_dynevents *de);
/** ra_dyn_names_style - whether @type's probe has BTF names (else offsets read from BTF) */
bool ra_dyn_names_style(const struct ra_dynevents *de, int type);
const char *ra_dyn_group(const struct ra_dynevents *de);
/* What a dynamic event is to the decoder beyond its type. */
enum {
	RA_DK_NONE,	/* a tracepoint, or a dynamic event with the tracepoint's fields */
	RA_DK_READ,	/* read(2) starts: kept until it returns */
	RA_DK_READ_RET,	/* read(2) returns: the pages it read, as mm_filemap_get_pages */
	RA_DK_MAP,	/* fault-around starts: its range kept until it returns */
	RA_DK_MAP_PTE,	/* a page table entry set: fault-around mapped something */
	RA_DK_MAP_RET,	/* fault-around returns: its range, when it mapped a page */
	RA_DK_CALL,	/* a readahead call without a window of its own starts */
	RA_DK_RET,	/* a readahead call returns */
};

/**
 * ra_dyn_lookup - the type (RA_EV_*, 0 for a helper of the self-check) and
 * kind (RA_DK_*) of event @name of a ratrace group ("ratrace_<pid>"); false
 * for any other event
 */
bool ra_dyn_lookup(const char *system, const char *name, int *type, int *kind);
/** ra_dyn_event - the @i-th event made (its name in the group), NULL past the end */
const char *ra_dyn_event(const struct ra_dynevents *de, int i);
/** ra_dyn_destroy - remove the events (after the instance that used them); 0 or -1 */
int ra_dyn_destroy(struct ra_dynevents *de);
/** ra_dyn_cleanup_stale - remove the groups of recorders that no longer run */
int ra_dyn_cleanup_stale(int verbose);

/* ---- tracer.c: a private tracefs instance recording to per-CPU files ---- */

struct ra_tracer;

#define RA_DEFAULT_EVENTS \
	"readahead,filemap,block,syscalls:sys_enter_fadvise64,syscalls:sys_enter_readahead," \
	"syscalls:sys_enter_madvise"

/* Where the readahead and access events come from. */
enum { RA_SOURCE_AUTO, RA_SOURCE_TRACEPOINT, RA_SOURCE_DYNAMIC, RA_SOURCE_BOTH };

struct ra_tracer_opts {
	size_t buffer_kb;		/* per CPU */
	int dyn_mode;			/* RA_SOURCE_*: auto takes the tracepoint where there is one */
	int dyn_args;			/* RA_DYN_ARGS_* */
	const char *events;		/* systems and system:event names, comma separated */
	const uint32_t *fs_devs;	/* filter of readahead/filemap (s_dev) */
	int nfs_devs;
	const struct ra_blk_range *blk;	/* filter of block events (dev, sector) */
	int nblk;
	pid_t notrace_pid;
	const char *tmpdir;
	int verbose;
};

/** ra_tracefs_mount - mount tracefs when it is not mounted; *mounted tells if we did */
int ra_tracefs_mount(bool *mounted);
/** ra_tracefs_unmount - undo ra_tracefs_mount() when it mounted */
void ra_tracefs_unmount(bool mounted);

/** ra_events_validate - every item of an event selection names known tracepoints */
int ra_events_validate(const char *list);

/** ra_tracer_cleanup_stale - remove instances of recorders that no longer run */
int ra_tracer_cleanup_stale(int verbose);

/**
 * ra_tracer_create - a tracefs instance "ra-record.<pid>" set up but not started
 * Returns NULL with ra_last_error() (RA_ERR_ENV when tracing is unavailable).
 */
struct ra_tracer *ra_tracer_create(const struct ra_tracer_opts *opts);
int ra_tracer_start(struct ra_tracer *tr);
int ra_tracer_ncpus(struct ra_tracer *tr);
int ra_tracer_fd(struct ra_tracer *tr, int i);
/** ra_tracer_drain - move full sub-buffers of every CPU to its file; bytes or -1 */
int64_t ra_tracer_drain(struct ra_tracer *tr);
/** ra_tracer_stop - stop tracing, read what is left, read the per-CPU stats */
int ra_tracer_stop(struct ra_tracer *tr);
const char *ra_tracer_clock(struct ra_tracer *tr);
/**
 * ra_tracer_notices - one line through @fn for each event that has neither a
 * tracepoint nor a dynamic event, saying why and what the run still gives
 */
int ra_tracer_notices(struct ra_tracer *tr, ra_notice_fn fn, void *arg);
/** ra_tracer_store_meta - tracepoints, event sources, the self-check and lost events */
int ra_tracer_store_meta(struct ra_tracer *tr, struct ra_db *db, int64_t run_id);
/**
 * ra_tracer_side - which side of the events recorded from both sources the
 * next replay and store give (RA_SIDE_*; RA_SOURCE_BOTH records both)
 */
void ra_tracer_side(struct ra_tracer *tr, int side);
/** ra_tracer_replay - decode the recorded events in time order */
int ra_tracer_replay(struct ra_tracer *tr, ra_event_cb cb, void *arg);
/**
 * ra_tracer_tgids - each task's process as the kernel saved them while tracing
 * (saved_tgids): @cb for each, until it returns non-zero; that value, or 0
 */
int ra_tracer_tgids(struct ra_tracer *tr, int (*cb)(int pid, int tgid, void *arg), void *arg);
/** ra_tracer_comm - a task name the tracer knows for @pid, or NULL */
const char *ra_tracer_comm(struct ra_tracer *tr, int pid);
uint64_t ra_tracer_lost(struct ra_tracer *tr);
/** ra_tracer_destroy - remove the instance and free; safe on NULL */
void ra_tracer_destroy(struct ra_tracer *tr);

/* The live sources' operations (tracer.c): rows of ra_sources[]. */
bool ra_tp_describes(int type);
bool ra_tp_can(struct ra_tracer *tr, int type);
int ra_tp_enable(struct ra_tracer *tr, const bool *want, const struct ra_tracer_opts *o);
bool ra_tp_gives(struct ra_tracer *tr, int type);
bool ra_kp_can(struct ra_tracer *tr, int type);
int ra_kp_enable(struct ra_tracer *tr, const bool *want, const struct ra_tracer_opts *o);
bool ra_kp_gives(struct ra_tracer *tr, int type);

/* ---- source.c: the sources of events, one row each ---- */

/*
 * What an import of a file source gives the run it makes (ra-import
 * implements it): the run's row, then its events in time order, then what
 * the source knew of them.
 */
struct ra_import_sink {
	int64_t (*begin)(void *arg, struct ra_run_info *info);	/* the run's id, or -1 */
	ra_event_cb event;
	void (*task)(int pid, const char *comm, void *arg);	/* a task's name */
	/* names of tasks the source knows, asked for when the events are stored */
	void (*namer)(void *arg, const char *(*name)(int pid, void *ctx), void *ctx);
	ra_skipped_cb skipped;
	uint64_t (*stored)(void *arg);				/* events stored so far */
	/* after the events: @has tells which tracepoints the source described
	 * (NULL: those it held events of) */
	int (*end)(void *arg, int64_t run_id, bool (*has)(void *ctx, int type), void *ctx);
	struct ra_db *db;
	void *arg;
};

enum { RA_LIVE, RA_FILE };

/*
 * One source of events. A live source is recorded by ra-record while the
 * workload runs: each event comes from the first row that can give it on the
 * kernel (--event-source chooses). A file source is imported by ra-import:
 * the first row whose probe knows a file's first bytes reads it. Adding a
 * source is its file and its row.
 */
struct ra_source {
	const char *name;	/* event_sources.source (live), runs.source (files) */
	int kind;		/* RA_LIVE or RA_FILE */
	const char *what;	/* for the user */
	/* live sources */
	bool (*describes)(int type);		/* it has a version of event @type */
	bool (*can)(struct ra_tracer *tr, int type);	/* ... on this kernel */
	int (*enable)(struct ra_tracer *tr, const bool *want, const struct ra_tracer_opts *o);
	bool (*gives)(struct ra_tracer *tr, int type);	/* it records @type */
	/* file sources */
	int (*probe)(const void *head, size_t len);
	/* the length of the name the files of one trace share ("dir/sda" of
	 * dir/sda.blktrace.3), 0 when a file is a trace of its own */
	size_t (*trace_name)(const char *path);
	int (*import)(const char *const *paths, int npaths, const struct ra_import_sink *sink);
};

extern const struct ra_source ra_sources[];	/* ends with a row without a name */

/** ra_source_find - the row named @name, or NULL */
const struct ra_source *ra_source_find(const char *name);
/** ra_source_probe - the file source whose format begins with @head, or NULL */
const struct ra_source *ra_source_probe(const void *head, size_t len);

/** ra_tracedat_import - a trace.dat (one path) into a run of @sink; 0 or -1 */
int ra_tracedat_import(const char *const *paths, int npaths, const struct ra_import_sink *sink);
/** ra_blktrace_import - the blktrace files of one trace into a run of @sink; 0 or -1 */
int ra_blktrace_import(const char *const *paths, int npaths, const struct ra_import_sink *sink);
/** ra_blktrace_trace_name - the length of NAME in NAME.blktrace.N, else 0 */
size_t ra_blktrace_trace_name(const char *path);

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

#endif /* RA_COLLECT_H */
