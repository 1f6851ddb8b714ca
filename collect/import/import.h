/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Trace files: trace-cmd's trace.dat (read and checked) and blktrace's
 * binary files.
 */
#ifndef RA_COLLECT_IMPORT_H
#define RA_COLLECT_IMPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ra_db.h"
#include "ra_event.h"
#include "decode.h"

struct tep_handle;
struct tep_record;

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

/*
 * Where a trace.dat's event records are, as the check found them: the data of
 * each CPU of each buffer, for a reader that goes through it a page at a
 * time.
 */
struct ra_td_region {
	char buffer[256];	/* "" for the top buffer, else the instance's name */
	uint32_t cpu;
	uint64_t off, end;	/* the data; compressed: a u32 count of chunks, then the chunks */
	uint32_t page_size;	/* of its sub-buffers */
	bool compressed;
	/*
	 * compressed: the chunks the check did not decompress (their sizes
	 * checked only), nrest of them from offset rest: all but the first
	 * that holds data, the one libtracecmd reads as it opens the file. A
	 * reader checks each as it decompresses it; ra_td_check_rest() checks
	 * them before libtracecmd reads them.
	 */
	uint64_t rest, nrest;
};

enum ra_td_algo { RA_TD_NONE, RA_TD_ZSTD, RA_TD_ZLIB };

struct ra_td_layout {
	struct ra_td_region *r;	/* in the file's order of buffers, each by CPU */
	int n, cap;
	bool big;		/* numbers are big-endian */
	int lsize;		/* bytes of a sub-buffer's commit; 0: its pages were not checked */
	enum ra_td_algo algo;
	/* options by which libtracecmd moves timestamps (DATE, OFFSET, TIME_SHIFT, TSC2NSEC) */
	bool moved_ts;
};

/**
 * ra_td_page_check - the check of one sub-buffer of @ps bytes (read from
 * offset @at of @path) that the check of the file made of each: 0, or -1 with
 * the error set. For a reader that trusts no byte it did not check itself.
 */
int ra_td_page_check(const struct ra_td_layout *lay, const char *path, const void *page,
		     uint32_t ps, uint64_t at);
/**
 * ra_tracedat_layout - ra_tracedat_check() that also fills @lay (free it with
 * the next), for a reader of the event data that checks it as it goes: the
 * compressed chunks past the first of each CPU's are left to it (the
 * regions' rest).
 */
int ra_tracedat_layout(const char *path, struct ra_td_layout *lay);
/** ra_td_check_rest - the check of the chunks the layout left: 0, or -1 with the error */
int ra_td_check_rest(const char *path, struct ra_td_layout *lay);
/** ra_td_region_what - "cpu 1 data of buffer 'name'" as the check's messages name @r */
const char *ra_td_region_what(const struct ra_td_region *r, char *buf, size_t len);
void ra_td_layout_free(struct ra_td_layout *lay);
/**
 * ra_td_inflate - decompress @n bytes of @algo at @in into @out (@cap bytes)
 * Returns the bytes made, or -1 (*@why says why).
 */
int64_t ra_td_inflate(enum ra_td_algo algo, const void *in, uint64_t n, void *out, uint64_t cap,
		      const char **why);

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

/* ---- sources.c: the files a trace can be imported from, one row each ---- */

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
	/* how far the source is: @done of @total bytes (NULL: not asked) */
	void (*position)(void *arg, uint64_t done, uint64_t total);
	/* after the events: @has tells which tracepoints the source described
	 * (NULL: those it held events of) */
	int (*end)(void *arg, int64_t run_id, bool (*has)(void *ctx, int type), void *ctx);
	struct ra_db *db;
	void *arg;
};

/*
 * One file source, imported by ra-import: the first row whose probe knows a
 * file's first bytes reads it. Adding a source is its file and its row
 * (ra_file_sources[], sources.c). Every source gives the same struct
 * ra_event, so that what comes after knows no source; the live ones are
 * trace.h's.
 */
struct ra_file_source {
	const char *name;	/* runs.origin */
	const char *what;	/* for the user */
	int (*probe)(const void *head, size_t len);
	/* the length of the name the files of one trace share ("dir/sda" of
	 * dir/sda.blktrace.3), 0 when a file is a trace of its own */
	size_t (*trace_name)(const char *path);
	int (*import)(const char *const *paths, int npaths, const struct ra_import_sink *sink);
};

extern const struct ra_file_source ra_file_sources[];	/* ends with a row without a name */

/** ra_file_source_find - the row named @name, or NULL */
const struct ra_file_source *ra_file_source_find(const char *name);
/** ra_file_source_probe - the file source whose format begins with @head, or NULL */
const struct ra_file_source *ra_file_source_probe(const void *head, size_t len);

/** ra_tracedat_import - a trace.dat (one path) into a run of @sink; 0 or -1 */
int ra_tracedat_import(const char *const *paths, int npaths, const struct ra_import_sink *sink);
/** ra_blktrace_import - the blktrace files of one trace into a run of @sink; 0 or -1 */
int ra_blktrace_import(const char *const *paths, int npaths, const struct ra_import_sink *sink);
/** ra_blktrace_trace_name - the length of NAME in NAME.blktrace.N, else 0 */
size_t ra_blktrace_trace_name(const char *path);

#endif /* RA_COLLECT_IMPORT_H */
