/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ra-record's own parts, one file each: the options (ra-record-options.c),
 * what the runs trace and change (-targets), one run recorded and stored
 * (-run), the run sets of a sweep (-sweep), the runs in guests (-guest),
 * and main (ra-record.c). Not a library: only ra-record links them.
 */
#ifndef RA_RECORD_H
#define RA_RECORD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "decode.h"
#include "host.h"
#include "ra_analyze.h"
#include "ra_model.h"
#include "record.h"
#include "trace.h"

#define EXIT_WORKLOAD	1	/* recorded; the workload failed */
#define EXIT_ERROR	2	/* nothing recorded */
#define DEFAULT_BUFFER_KB 16384
#define MAX_DEVS	16
#define INFLIGHT_WAIT_MS 3000
#define TICK_NS		200000000	/* how often settings and open files are read */
#define MAX_KERNELS	16
#define MAX_GUEST_ARGS	128

struct snapdev {
	struct ra_blockdev bd;
	const char *role;
	struct ra_dev_snapshot before, after;
	bool have_before, have_after;
};

/* --read-ahead-kb DEV=KB */
struct setreq {
	char dev[64];
	char value[32];
};

/* The options, parsed once (ra-record-options.c), read-only after. */
struct rec_opts {
	const char *output;
	const char *label;
	const char *tmpdir;
	const char *events;
	int source;			/* RA_SOURCE_* */
	int probe_args;			/* RA_DYN_ARGS_* */
	size_t buffer_kb;
	bool drop_caches;
	const char *evict[16];		/* --evict paths */
	int nevict;
	bool capture;
	bool analyze;
	int verbose;
	char **argv;
	int repeat;
	char *sweep_kb;			/* "16,128,512", or "auto[:LO-HI]" */
	bool sweep_auto;
	struct ra_sweep_limits sweep_limits;
	char *sweep_env;		/* "NAME=v1,v2" */
	char *throttle;			/* "DEV=iops:N,bps:N" */
	int wait_settings;		/* -1 refuse a held setting, 0 wait, N wait N s */
	const char *filter_arg[MAX_DEVS];
	int nfilter;
	struct setreq setreq[MAX_DEVS];
	int nsetreq;
	/* --kernel: the runs are recorded in guests */
	const char *kernels[MAX_KERNELS];
	int nkernels;
	const char *kernel_files;
	char *guest_args[MAX_GUEST_ARGS];	/* the options the guest's recorder gets */
	int nguest;
};

/* Values by pid, sorted by pid (live_tgid). */
struct pidtab {
	struct pidval { int pid, val; } *a;
	size_t n, cap;
};

struct rec {
	const struct rec_opts *opt;
	struct ra_progress *progress;	/* the line on a terminal while storing, or NULL */
	/* the run's load began with its workload: stored while it runs */
	bool live;
	uint64_t stored_events;		/* of the run being stored */
	bool said_sources;		/* the lines about missing events were printed */
	const char *run_label;		/* label of the run being recorded */
	const char *side;		/* --event-source both: "tracepoint" or "kprobe", else NULL */
	/* what the runs trace and change */
	struct ra_fsmap *fsmap;
	struct ra_target filter[MAX_DEVS];
	struct ra_target set_target[MAX_DEVS];
	struct ra_scope scope;
	struct ra_settings *settings;
	struct ra_throttle thr;
	struct snapdev *snaps;
	int nsnaps;
	/* state */
	struct ra_db *db;
	struct ra_tracer *tr;
	struct ra_names *names;
	bool mounted_tracefs;
	struct ra_workload wl;
	bool spawned;
	int sigfd;
	bool interrupted;
	int forwarded_sig;
	int64_t start_mono, end_mono, start_unix, last_tick;
	int64_t run_id;			/* the run being stored */
	int64_t tick_ns, nticks;		/* what the looks while the workload ran cost */
	struct ra_vmstat vm_before, vm_after;
	struct ra_sysinfo si;
	int64_t last_run;		/* the run stored last */
	int64_t first_run;		/* the run stored first, 0 before */
	int64_t *runs;			/* every run stored, analysed, in order */
	size_t nruns;
	int rep;			/* the repeat of this run, from 1 */
	const char *env_pair;		/* its --sweep-env "NAME=value", NULL for none */
	/* replay */
	struct ra_writer *w;
	/* the readahead pass fed while the run is stored, and what it asks */
	struct ra_live *ralive;
	struct ra_replay_live *rplive;	/* the replay fed so too, */
	struct ra_tapq *rpq;		/* on a thread of its own */
	struct ra_block_live *bklive;	/* and the block pass */
	pthread_mutex_t names_lock;	/* names: the looks, and the pass's questions */
	int scan_pid;			/* the workload while it runs, else 0 */
	int64_t scan_ns;		/* the pass's latest look at its open files */
	struct { int pid, tgid; } *tg;	/* the kernel's saved_tgids, sorted by pid */
	size_t ntg, captg;
	int64_t tg_ns;			/* when they were read */
	/* the processes of the tasks (live_tgid), under tg_lock: */
	pthread_mutex_t tg_lock;
	struct pidtab born;		/* of the tasks made during the run, from their making */
	struct pidtab asked;		/* as /proc gave it while the task lived */
	int64_t step_ns;		/* -vv: when the last step after the workload ended */
	/* live: how far the store is behind the kernel's events (pace) */
	uint64_t merged_ns;		/* the time of the last event merged */
	int64_t behind_ns;		/* how far behind they run ahead */
	bool ahead;			/* its threads run ahead of the workload's */
	bool cannot_ahead;		/* they may not (no CAP_SYS_NICE) */
	int base_nice;			/* the nice value they had before */
	int64_t ahead_since, ahead_ns;	/* since when, and for how long in all */
	int nahead;			/* how many times */
};

/* ra-record-options.c: the messages */
/** rec_error_status - the one-line error on stderr; the exit status of an error */
int rec_error_status(const char *msg);
/** rec_notice - a line for the user, unless -q */
void rec_notice(const char *msg, void *arg);
/**
 * rec_step - with -vv, the time the step @what took since the last one (the
 * first: since the workload ended), on stderr
 */
void rec_step(struct rec *r, const char *what);
/** rec_say_line - a line the analysis says of what it did (-v) */
void rec_say_line(const char *msg, void *arg);
/** rec_parse_args - the options and the workload into @r; 0 or -1 (RA_ERR_USAGE) */
int rec_parse_args(struct rec_opts *o, int argc, char **argv);

/* ra-record-targets.c */
/** rec_prepare - the devices, file systems and settings the runs trace and change */
int rec_prepare(struct rec *r);

/* ra-record-run.c */
/** rec_stop_requested - whether a signal asked the recording to stop */
bool rec_stop_requested(struct rec *r);
/** rec_record_one - record one run and store it; its exit status */
int rec_record_one(struct rec *r);
/** rec_remember_runs - add @ids to the runs stored; 0 or -1 */
int rec_remember_runs(struct rec *r, const int64_t *ids, size_t n);
/** rec_refit_models - the models of the earlier runs, once the last is in; 0 or -1 */
int rec_refit_models(struct rec *r);

/* ra-record-sweep.c */
/** rec_record_all - every run of the run sets the options ask for; the worst exit status */
int rec_record_all(struct rec *r);
void rec_release_all(struct rec *r);

/* ra-record-guest.c */
/** rec_record_guests - the runs under each --kernel, in guests; the worst exit status */
int rec_record_guests(struct rec *r);

#endif /* RA_RECORD_H */
