/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Live tracing: a private tracefs instance recording to per-CPU files of
 * raw ring-buffer sub-buffers, the running kernel's BTF, and readahead and
 * access events from kprobes where the tracepoints are missing.
 */
#ifndef RA_COLLECT_TRACE_H
#define RA_COLLECT_TRACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ra_db.h"
#include "ra_event.h"
#include "decode.h"

struct tep_handle;
struct tep_record;

/* ---- rawbuf.c: per-CPU files of raw ring-buffer sub-buffers ---- */

struct ra_rawcpu {
	int cpu;
	int fd;			/* file of sub-buffers, read from offset 0 */
	int self;		/* the file's ra_self_file_begin() slot, while fd >= 0 */
	uint64_t end;		/* the stream's bytes so far (file and memory) */
	/*
	 * Live: the newest sub-buffers, bytes [tail_at, tail_at + tail_len) of
	 * the stream, wait in memory for the merge; what it has not read when
	 * they fill goes to the file at the same offsets. A merge that keeps up
	 * never touches the file.
	 */
	char *tail;
	size_t tail_len, tail_cap;
	uint64_t tail_at;
	uint64_t read_at;	/* the merge has read the bytes before this */
	/*
	 * Live: the file in segments of RA_RAW_SEG bytes. Segment k of the
	 * stream (from seg_first on) is at file offset seg[k - seg_first]; a
	 * segment the merge has read is used again for the next one (its pages
	 * are in memory already), the file grows with the backlog only.
	 */
	uint64_t *seg;		/* UINT64_MAX: a segment that never went to the file */
	size_t nseg, capseg;
	uint64_t seg_first;
	uint64_t warm[16];	/* segments read, their pages kept for the next */
	int nwarm;
	uint64_t *cold;		/* the others read, their bytes given back (holes) */
	size_t ncold, capcold;
	uint64_t file_end;	/* of the segments made */
	pthread_mutex_t *lock;	/* of the above and end, when another thread appends */
	uint64_t missed;	/* out: events the ring buffer marked as lost */
	uint64_t events;	/* out: events read */
	int missed_unknown;	/* out: sub-buffers that lost an unknown number */
	uint64_t size, done;	/* out: the stream's bytes, and those replayed so far */
};

/**
 * ra_rawcpu_keep - keep up to @cap bytes of @rc's newest sub-buffers in
 * memory (freed by ra_rawcpu_release()); 0, or -1 when out of memory
 */
int ra_rawcpu_keep(struct ra_rawcpu *rc, size_t cap);
/**
 * ra_rawcpu_append - @len bytes of whole sub-buffers at the end of @rc's
 * stream: in memory while there is room, else in the file. 0, or -1 with
 * ra_last_error() set
 */
int ra_rawcpu_append(struct ra_rawcpu *rc, const void *buf, size_t len);
/** ra_rawcpu_release - the memory of ra_rawcpu_keep(), what it held written out first */
int ra_rawcpu_release(struct ra_rawcpu *rc);
/** ra_rawcpu_free - what ra_rawcpu_keep() and the appends after it took, all of it */
void ra_rawcpu_free(struct ra_rawcpu *rc);

/**
 * ra_rawbuf_replay - merge the per-CPU files by time and decode every record
 * Calls @cb for each event ratrace stores; stops when @cb returns < 0.
 * Returns 0, or -1 with ra_last_error() set.
 */
int ra_rawbuf_replay(struct tep_handle *tep, struct ra_decoder *dec, struct ra_rawcpu *cpus,
		     int ncpus, ra_event_cb cb, void *arg);

/*
 * The same merge a step at a time, while the files are still written: each
 * step passes on, in time order, the events before @below (a time every
 * CPU's file is known to have passed), at most @max_events of them, reading
 * whole sub-buffers only unless @final. A merge stepped to the end gives
 * exactly what ra_rawbuf_replay() gives. A step returns 0 when it reached
 * @below or the end of the files, 1 when @max_events stopped it, -1 on error.
 */
struct ra_rawmerge;
struct ra_rawmerge *ra_rawmerge_new(struct tep_handle *tep, struct ra_decoder *dec,
				    struct ra_rawcpu *cpus, int ncpus);
int ra_rawmerge_step(struct ra_rawmerge *m, uint64_t below, uint64_t max_events, bool final,
		     ra_event_cb cb, void *arg);
/*
 * ra_rawmerge_release - the bytes of the files the merge has read: a live
 * recording's segments are used again (a few, their pages warm), the
 * others given back to the file system (holes punched); the file holds the
 * backlog the merge has not read, however long the run
 */
void ra_rawmerge_release(struct ra_rawmerge *m);
void ra_rawmerge_free(struct ra_rawmerge *m);

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
int ra_dyn_cleanup_stale(ra_notice_fn notice, void *arg);

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
	int verbose;
	/* what the user is told that is not an error (a stale group removed) */
	ra_notice_fn notice;
	void *notice_arg;
};

/** ra_tracefs_mount - mount tracefs when it is not mounted; *mounted tells if we did */
int ra_tracefs_mount(bool *mounted);
/** ra_tracefs_unmount - undo ra_tracefs_mount() when it mounted */
void ra_tracefs_unmount(bool mounted);

/** ra_events_validate - every item of an event selection names known tracepoints */
int ra_events_validate(const char *list);

/** ra_tracer_cleanup_stale - remove instances of recorders that no longer run */
int ra_tracer_cleanup_stale(ra_notice_fn notice, void *arg);

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
/*
 * Storing while the workload runs: after ra_tracer_start(), live_begin makes
 * each drain read every CPU empty, so that the events before the drain are
 * in the files (1: not for this trace clock, nothing changed; 0; -1). Each
 * live_step passes on at most @max_events more of those, in time order (0
 * caught up, 1 more to come, -1); live_end, after ra_tracer_stop(), passes
 * on the rest (without live_begin: the whole replay). The events and their
 * order are exactly ra_tracer_replay()'s.
 */
int ra_tracer_live_begin(struct ra_tracer *tr);
int ra_tracer_live_step(struct ra_tracer *tr, uint64_t max_events, ra_event_cb cb, void *arg);
int ra_tracer_live_end(struct ra_tracer *tr, ra_event_cb cb, void *arg);
/** ra_tracer_position - how far the replay is: @done of @total bytes of sub-buffers */
void ra_tracer_position(struct ra_tracer *tr, uint64_t *done, uint64_t *total);
/** ra_tracer_replay - decode the recorded events in time order */
int ra_tracer_replay(struct ra_tracer *tr, ra_event_cb cb, void *arg);
/**
 * ra_tracer_on_newtask - give @fn each task made while the tracer records
 * (task:task_newtask, enabled where the kernel has it), in time order among
 * the events given to the callbacks of the functions that read them
 */
void ra_tracer_on_newtask(struct ra_tracer *tr, ra_newtask_fn fn, void *arg);

/**
 * ra_tracer_task_context - whether events of @type fire in the context of the
 * task they describe (the recorder leaves its own out: a filter on its
 * pid, and its other threads' events as they are stored)
 */
bool ra_tracer_task_context(int type);

/**
 * ra_tracer_tgids - each task's process as the kernel saved them while tracing
 * (saved_tgids): @cb for each, until it returns non-zero; that value, or 0
 */
int ra_tracer_tgids(struct ra_tracer *tr, int (*cb)(int pid, int tgid, void *arg), void *arg);
/** ra_tracer_comm - a task name the tracer knows for @pid, or NULL */
const char *ra_tracer_comm(struct ra_tracer *tr, int pid);
uint64_t ra_tracer_lost(struct ra_tracer *tr);
/**
 * ra_tracer_destroy - remove the instance and its dynamic events, and free;
 * safe on NULL. -1 with ra_last_error() when a dynamic event stayed.
 */
int ra_tracer_destroy(struct ra_tracer *tr);

/*
 * The live sources of events, recorded by ra-record while the workload
 * runs: each event comes from the first row that can give it on the kernel
 * (--event-source chooses). Adding a source is its operations and its row
 * (ra_live_sources[], tracer.c). The files a trace can be imported from are
 * the file sources (import.h).
 */
struct ra_live_source {
	const char *name;	/* event_sources.probe */
	const char *what;	/* for the user */
	bool (*describes)(int type);		/* it has a version of event @type */
	bool (*can)(struct ra_tracer *tr, int type);	/* ... on this kernel */
	int (*enable)(struct ra_tracer *tr, const bool *want, const struct ra_tracer_opts *o);
	bool (*gives)(struct ra_tracer *tr, int type);	/* it records @type */
};

extern const struct ra_live_source ra_live_sources[];	/* ends with a row without a name */

/** ra_live_source_find - the row named @name, or NULL */
const struct ra_live_source *ra_live_source_find(const char *name);

/* The live sources' operations: the tracepoints' (tracer.c), the kprobes' (dynevent.c). */
bool ra_tp_describes(int type);
bool ra_tp_can(struct ra_tracer *tr, int type);
int ra_tp_enable(struct ra_tracer *tr, const bool *want, const struct ra_tracer_opts *o);
bool ra_tp_gives(struct ra_tracer *tr, int type);
bool ra_kp_can(struct ra_tracer *tr, int type);
int ra_kp_enable(struct ra_tracer *tr, const bool *want, const struct ra_tracer_opts *o);
bool ra_kp_gives(struct ra_tracer *tr, int type);

#endif /* RA_COLLECT_TRACE_H */
