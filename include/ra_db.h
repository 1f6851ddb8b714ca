/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * ratrace database API. The database is the contract between the collectors,
 * the analysis passes and the renderers; docs/schema.md describes every table.
 */
#ifndef RA_DB_H
#define RA_DB_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "ra_event.h"

#define RA_SCHEMA_VERSION 13
/* A read-only tool's reading of a database stops after this long (seconds). */
#define RA_DB_READ_SECONDS 600
#define RA_APPLICATION_ID 0x52415452 /* "RATR" */

struct ra_db;
struct ra_writer;

enum ra_db_flags {
	RA_DB_CREATE = 1,	/* create the file and the schema when missing */
	RA_DB_READONLY = 2,
};

/**
 * ra_db_open - open (and with RA_DB_CREATE create) a ratrace database
 * @path: file name
 * @flags: enum ra_db_flags
 *
 * Refuses files that are not ratrace databases and databases of a newer
 * schema version. Returns a handle to be released with ra_db_close(), or NULL
 * with the reason in ra_last_error().
 *
 * A writer works in WAL mode and leaves the file in rollback-journal mode
 * when it closes as the last connection. With RA_DB_READONLY the file is
 * read as it is and nothing is made beside it (no -wal, no -shm), also on
 * read-only media and when the file was left in WAL mode, without missing
 * what a -wal file holds (docs/report.md, "Reading a database"). Such an
 * open reads the file's header through a descriptor of its own: do not make
 * it while this process holds the same file open through SQLite, whose
 * record locks a close() of another descriptor would drop.
 *
 * @path may be a server's URL (ra_db_is_url()), opened with RA_DB_READONLY
 * only: the same statements (ra_sql.h) and views then run on the server.
 */
struct ra_db *ra_db_open(const char *path, int flags);

/**
 * ra_db_is_url - whether @name is a PostgreSQL server's URL (postgresql://,
 * postgres://) rather than a file: ra_db_open() reads such a database
 * read-only, on the server (docs/fleet.md)
 */
bool ra_db_is_url(const char *name);

/** ra_db_redact - @url as messages show it, its password hidden; malloc'd, NULL out of memory */
char *ra_db_redact(const char *url);

/**
 * ra_db_open_for_load - open @path to load runs into, made when missing
 *
 * An existing database is opened as ra_db_open() with RA_DB_CREATE does. A
 * missing one is built at a temporary name in the same directory
 * (".NAME.ratrace-new-PID"), its first load without a journal, and appears
 * at @path only when ra_db_close() closes it after a committed load (synced,
 * renamed into place unless a file appeared there meanwhile, the directory
 * synced); any other end removes the temporary. Messages name @path.
 * Returns a handle for ra_db_close(), or NULL with ra_last_error().
 */
struct ra_db *ra_db_open_for_load(const char *path);

/**
 * ra_db_remove_stale - remove the temporaries of @path (see
 * ra_db_open_for_load()) whose processes no longer exist
 */
void ra_db_remove_stale(const char *path);

/** ra_db_remove_files - unlink a database file and its -wal, -shm, -journal */
void ra_db_remove_files(const char *path);

/**
 * ra_db_close - finalize, close and free; returns 0 or -1 (ra_last_error())
 *
 * For a read-only handle read without SQLite's locks, -1 also says that a
 * writer changed the file while it was read: what was read is not to be used.
 *
 * A database that ra_db_open_for_load() is building is renamed into place
 * here when a load was committed, and removed otherwise.
 */
int ra_db_close(struct ra_db *db);

struct ra_progress;
/**
 * ra_db_set_progress - reads of @db's events report to @p as the work @what
 * (a string that outlives it; NULL @p: to nothing)
 */
void ra_db_set_progress(struct ra_db *db, struct ra_progress *p, const char *what);

/** ra_db_path - the file name @db was opened with, owned by @db */
const char *ra_db_path(struct ra_db *db);
/** ra_db_file - the file @db is in now: a new one's temporary name until its load commits */
const char *ra_db_file(struct ra_db *db);

/** ra_db_exec - run fixed SQL (DDL, PRAGMA, BEGIN/COMMIT); 0 or -1 */
int ra_db_exec(struct ra_db *db, const char *sql);

/* Run metadata; strings are copied, NULL means unknown. */
struct ra_run_info {
	const char *label;
	const char *origin;		/* "record", "trace.dat", "blktrace" */
	const char *origin_path;	/* the imported file(s) */
	char *const *argv;		/* workload, NULL-terminated, or NULL */
	int64_t start_unix_ns;
	const char *kernel;
	const char *hostname;
	const char *machine;
	int64_t page_size;
	int64_t cpus;
	int64_t mem_bytes;
	const char *trace_clock;
	int64_t buffer_kb;
	const char *tool_version;
	const char *execution;		/* "host", "vm-kvm", "vm-tcg"; NULL not known */
};

/**
 * ra_db_run_create - insert a run row and its workload arguments
 * Returns the new run_id, or -1.
 */
int64_t ra_db_run_create(struct ra_db *db, const struct ra_run_info *info);

/* Figures known only when a run ends. -1 (or NULL) leaves a column unset. */
struct ra_run_end {
	int64_t wall_ns;
	int exit_status;	/* -1: none (killed or not run) */
	int exit_signal;	/* 0: none */
	int interrupted;	/* recording stopped by SIGINT/SIGTERM */
	int64_t trace_start_ns;
	int64_t trace_end_ns;
};

/** ra_db_run_finish - store the end figures and mark the run complete; 0 or -1 */
int ra_db_run_finish(struct ra_db *db, int64_t run_id, const struct ra_run_end *end);

/** ra_db_run_set_text - set one free-text column of runs ("workload_output") */
int ra_db_run_set_text(struct ra_db *db, int64_t run_id, const char *column, const char *value);

/** ra_db_run_set_start - set the wall-clock start (started_at, start_unix_ns) */
int ra_db_run_set_start(struct ra_db *db, int64_t run_id, int64_t unix_ns);

/* What every copied run is given; NULL members keep the source's value. */
struct ra_copy_tags {
	const char *label;
	const char *execution;		/* runs.execution */
	const char *boot_kernel;	/* runs.boot_kernel */
};

/**
 * ra_db_copy_runs - copy the complete recorded runs of another ratrace database
 * @db: the destination, inside ra_db_load_begin() ... ra_db_load_commit()
 * @src_path: a ratrace database of this schema version, opened read-only
 * @tags: what to set on every copied run, or NULL
 * @new_ids: gets the new run ids in the source's order (malloc'd, the caller
 *           frees it), @n their count
 *
 * The runs get new run ids and event seqs; the recording's tables are copied,
 * the derived ones are not: analyse the new runs (ra_analyze_in_load()).
 * Returns 0, or -1 with ra_last_error() (abort the load: nothing is kept).
 */
int ra_db_copy_runs(struct ra_db *db, const char *src_path, const struct ra_copy_tags *tags,
		    int64_t **new_ids, size_t *n);

/* Block device settings and counters around a run. */
struct ra_dev_snapshot {
	int64_t read_ahead_kb, rotational, nr_requests, max_sectors_kb, logical_block_size;
	char scheduler[64];
	int64_t stat[17];	/* /sys/block/DEV/stat fields in order; -1 when absent */
	int nstat;
};

/* A block device of a run; a partition says where it lies on its disk. */
struct ra_db_device {
	uint32_t dev;
	const char *name;
	const char *role;	/* "filter", "member", "setting", "traced" */
	uint32_t disk;		/* the whole disk: dev itself for a disk; 0 not known */
	int64_t start_sector;	/* first sector on the disk (0 for a disk); -1 not known */
	int64_t nr_sectors;	/* size in 512-byte sectors; -1 not known */
	const char *transport;	/* the disk's bus, vendor, model and firmware; NULL or "" none */
	const char *vendor;
	const char *model;
	const char *firmware;
};

int ra_db_add_device(struct ra_db *db, int64_t run_id, const struct ra_db_device *d);
int ra_db_add_dev_snapshot(struct ra_db *db, int64_t run_id, uint32_t dev, const char *phase,
			   const struct ra_dev_snapshot *snap);
int ra_db_add_vmstat(struct ra_db *db, int64_t run_id, const char *phase, const char *name,
		     int64_t value);
/* @path: the file the setting was written to (NULL: not known) */
int ra_db_add_setting(struct ra_db *db, int64_t run_id, uint32_t dev, const char *name,
		      const char *path, const char *old_value, const char *new_value,
		      int restored);
/* a parameter the run varied (run_params): @scope "" or NULL for none */
int ra_db_add_param(struct ra_db *db, int64_t run_id, const char *name, const char *scope,
		    const char *value);
/* the setting written at @path was restored after runs @first_run on (its own transaction) */
int ra_db_setting_restored(struct ra_db *db, const char *path, int64_t first_run);
/* a setting seen at @observed while the run expected @expected; ts_ns -1: not known */
int ra_db_add_setting_change(struct ra_db *db, int64_t run_id, uint32_t dev, const char *name,
			     const char *path, int64_t ts_ns, const char *expected,
			     const char *observed);
/*
 * A file system @fs_dev on block device @dev (0: none ratrace can map), named
 * @dev_name (NULL: not known); read_ahead_kb -1: not known; unrecorded_events:
 * its events left out, -1 not counted.
 */
struct ra_db_filesystem {
	uint32_t fs_dev, dev;
	const char *dev_name, *fstype, *mount_point, *bdi;
	int64_t read_ahead_kb, unrecorded_events;
};

int ra_db_add_filesystem(struct ra_db *db, int64_t run_id, const struct ra_db_filesystem *f);
/* @n events of system:name that the source held and ratrace does not store */
int ra_db_add_skipped(struct ra_db *db, int64_t run_id, const char *system, const char *name,
		      int64_t n);
int ra_db_add_tracepoint(struct ra_db *db, int64_t run_id, const char *system, const char *name,
			 int available, int enabled);
/* The message of an event without a tracepoint whose kprobe was not asked for. */
#define RA_NOT_ASKED "kprobes were not asked for (--event-source tracepoint)"

/* where event system:name came from: @probe "tracepoint", "kprobe" or "none" (@message why) */
int ra_db_add_event_source(struct ra_db *db, int64_t run_id, const char *system,
			   const char *name, const char *probe, const char *args,
			   const char *definition, const char *message);
/* a self-check of the run: @state "pass", "fail" or "incomplete" */
int ra_db_add_self_check(struct ra_db *db, int64_t run_id, const char *name, const char *state,
			 int64_t checked, int64_t failed, const char *message);
int ra_db_add_lost(struct ra_db *db, int64_t run_id, int cpu, int64_t overrun, int64_t dropped,
		   int64_t missed, int64_t entries_read);
int ra_db_add_task(struct ra_db *db, int64_t run_id, int pid, const char *comm);
/* the process (thread group) of a task stored with ra_db_add_task() or the writer */
int ra_db_set_task_tgid(struct ra_db *db, int64_t run_id, int pid, int tgid);
/* size_bytes -1: unknown */
int ra_db_add_file(struct ra_db *db, int64_t run_id, uint32_t dev, uint64_t ino, const char *path,
		   int64_t size_bytes);

/**
 * ra_writer_alloc - bulk event writer for one run
 *
 * Events must be added in time order; rows are written in batches, the last
 * ones by ra_writer_finish(), which must come before the caller's COMMIT (the
 * caller owns the transaction around the load). ra_writer_free() discards
 * what was not finished; call it before closing @db.
 */
struct ra_writer *ra_writer_alloc(struct ra_db *db, int64_t run_id);
int ra_writer_add(struct ra_writer *w, const struct ra_event *ev);
/* Names a task the events do not name; returns NULL when it cannot. */
typedef const char *(*ra_namer_fn)(int pid, void *arg);

/**
 * ra_writer_set_namer - ask @namer, when the events end (ra_writer_finish),
 * for each task no event named
 */
void ra_writer_set_namer(struct ra_writer *w, ra_namer_fn namer, void *arg);

/**
 * ra_writer_set_tap - give @tap each event as it is stored, in seq order, as
 * it will read back from the database (ra_evstream): an analysis that reads
 * the events while they are stored. @tap runs on the writer's store thread
 * when it has one, and must not use the connection but for its own
 * statements; what it returns is ignored.
 */
typedef int (*ra_tap_fn)(const struct ra_event *ev, int64_t seq, void *arg);
void ra_writer_set_tap(struct ra_writer *w, ra_tap_fn tap, void *arg);
/**
 * A tap on a thread of its own (one more stage of the load's pipeline): the
 * events put are handed over in batches and given to @tap in the order put,
 * while the caller goes on. Without a second CPU (or with RATRACE_PIPELINE=0)
 * ra_tapq_put gives each event to @tap itself. A tap that fails (< 0) is
 * given no more events, and its error comes back (-1 and ra_last_error())
 * from the next ra_tapq_put that hands a batch over, ra_tapq_wait (until
 * the thread has given every batch handed over) or ra_tapq_end (what the
 * tap still holds given, the thread ended, the queue freed).
 * ra_tapq_start: NULL when out of memory.
 */
struct ra_tapq;
struct ra_tapq *ra_tapq_start(ra_tap_fn tap, void *arg);
int ra_tapq_put(struct ra_tapq *q, const struct ra_event *ev, int64_t seq);
int ra_tapq_wait(struct ra_tapq *q);
int ra_tapq_end(struct ra_tapq *q);
/**
 * ra_tapq_nice - the nice value of every tap thread of the process, those
 * running and those started after (until the first call, a thread keeps
 * the one it was started with). Lowering it needs CAP_SYS_NICE: -1 with
 * errno when a thread's could not be set.
 */
int ra_tapq_nice(int nice);

/**
 * ra_writer_set_unstored - events of the classes in @classes (1 << enum
 * ra_event_class) go to the tap only, not to the database (a run whose
 * events are made again from another's, as a what-if's are); before the
 * first event
 */
void ra_writer_set_unstored(struct ra_writer *w, unsigned int classes);
/** ra_writer_note_task - a task name learned outside the events; events' names win */
int ra_writer_note_task(struct ra_writer *w, int pid, const char *comm);
/** ra_writer_finish - write the events still waiting and the task names; 0 or -1 */
int ra_writer_finish(struct ra_writer *w);
uint64_t ra_writer_count(struct ra_writer *w, int type);
uint64_t ra_writer_total(struct ra_writer *w);

/* A file of a run: its file system's device and its inode. */
struct ra_file_id {
	uint32_t dev;
	uint64_t ino;
};

/**
 * ra_writer_files - the files of the run's readahead events and of the pages
 * it added to the cache, in order of (dev, ino), into *@out (big memory,
 * ra_bigmem.h: given back by ra_big_free(); NULL when none) and *@n; 0 or -1
 */
int ra_writer_files(struct ra_writer *w, struct ra_file_id **out, size_t *n);
void ra_writer_free(struct ra_writer *w);

/**
 * ra_db_load_begin - start loading runs (one transaction for the whole load)
 *
 * End with ra_db_load_commit() or ra_db_load_abort(). Either all of the load
 * is in the database or none of it. ra_db_load_abort() on a file that
 * ra_db_open() created removes that file when the handle is closed, also when
 * no load had begun.
 */
int ra_db_load_begin(struct ra_db *db);
/**
 * ra_db_private - whether no other process can open @db: a new file still at
 * its temporary name (ra_db_open_for_load()), where a load may hold the
 * write lock as long as it likes
 */
bool ra_db_private(const struct ra_db *db);
int ra_db_load_commit(struct ra_db *db);
void ra_db_load_abort(struct ra_db *db);

/**
 * ra_malloc_tune - keep freed heap memory for reuse in a long batch job
 * (decoding allocates and frees per record; trimming the heap each time costs
 * page faults)
 */
void ra_malloc_tune(void);

/** ra_clock_ns - the time of clock @id (CLOCK_MONOTONIC, CLOCK_REALTIME) in ns */
int64_t ra_clock_ns(clockid_t id);

/*
 * The process's own threads (the store thread, a recorder's threads): each
 * says when it begins and ends, and ra_self_task() tells whether an event
 * of task @pid at @ts_ns (CLOCK_MONOTONIC, the "mono" trace clock) was
 * one of theirs.
 */
void ra_self_thread_begin(void);
void ra_self_thread_end(void);
bool ra_self_task(int pid, int64_t ts_ns);

/*
 * The process's own files (its temporary files, a recorder's database):
 * ra_self_file_begin(fd) as one is opened (its slot, -1 none),
 * ra_self_file_end(slot) once it is closed ends the time it counts, and
 * ra_self_file() tells whether file (@dev, the kernel's dev_t, @ino) at
 * @ts_ns (CLOCK_MONOTONIC) was one of them.
 */
int ra_self_file_begin(int fd);
void ra_self_file_end(int slot);
bool ra_self_file(uint32_t dev, uint64_t ino, int64_t ts_ns);

/*
 * The SQL of a device number column or expression @x (the kernel's dev_t:
 * major << 20 | minor) as "MAJ:MIN", the form every output shows.
 */
#define RA_SQL_DEV(x) "((" x ") >> 20) || ':' || ((" x ") & 1048575)"

/* Errors: library functions set a one-line message (git style). */
enum ra_err {
	RA_OK = 0,
	RA_ERR_USAGE,	/* bad arguments or input the user named */
	RA_ERR_DATA,	/* a file's content is wrong (corrupt, newer schema) */
	RA_ERR_ENV,	/* the system lacks something (root, tracefs, a device) */
	RA_ERR_IO,	/* reading or writing failed */
};

void ra_set_error(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *ra_last_error(void);
int ra_last_error_kind(void);

/*
 * Messages for the user that are not errors (what was put back for a dead
 * recorder, a setting the kernel refused), one line each: library code says
 * them through such a callback, never on a stream of its own.
 */
typedef void (*ra_notice_fn)(const char *msg, void *arg);

#endif /* RA_DB_H */
