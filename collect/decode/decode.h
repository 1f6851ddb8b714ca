/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Events, shared by recording and import: the tracepoint decoder (a tep
 * record to a struct ra_event) and the sources of events, one row each.
 */
#ifndef RA_COLLECT_DECODE_H
#define RA_COLLECT_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ra_db.h"
#include "ra_event.h"

struct tep_handle;
struct tep_record;

/* ---- decode.c: tep record -> struct ra_event ---- */

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


struct ra_decoder;

/*
 * The type (RA_EV_*) and kind (RA_DK_*) of a dynamic event ratrace made, by
 * its system and name; false for any other event. The recorder that makes
 * them knows their names (ra_dyn_lookup); NULL: no dynamic event is known.
 */
typedef bool (*ra_dyn_lookup_fn)(const char *system, const char *name, int *type, int *kind);

/**
 * ra_decoder_alloc - resolve the events and fields ratrace uses in @tep, the
 * dynamic ones by @dyn
 * The decoder keeps a reference to @tep, which must outlive it.
 */
struct ra_decoder *ra_decoder_alloc(struct tep_handle *tep, ra_dyn_lookup_fn dyn);
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

/*
 * A task @parent made task @child with @clone_flags (task:task_newtask),
 * in time order among the events.
 */
typedef void (*ra_newtask_fn)(int parent, int child, uint64_t clone_flags, void *arg);
/**
 * ra_decoder_on_newtask - give each task:task_newtask record to @fn (NULL:
 * none) instead of counting it skipped; nothing when the formats do not
 * describe it
 */
void ra_decoder_on_newtask(struct ra_decoder *dec, ra_newtask_fn fn, void *arg);

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
/* An event to store, in time order: 0 to go on, -1 to stop (ra_last_error()). */
typedef int (*ra_event_cb)(const struct ra_event *ev, void *arg);
typedef void (*ra_skipped_cb)(const char *system, const char *name, uint64_t n, void *arg);

/**
 * ra_decoder_skipped - the records ra_decode() returned 0 for, per event type
 * Calls @cb (may be NULL) once per event type with its count: the system and
 * name from the formats, or "unknown", "unknown event" for records of an event
 * the formats do not describe. Returns the total.
 */
uint64_t ra_decoder_skipped(struct ra_decoder *dec, ra_skipped_cb cb, void *arg);

#endif /* RA_COLLECT_DECODE_H */
