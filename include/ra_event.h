/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * ratrace event model: one normalized event for every source (live tracefs
 * recording, trace-cmd trace.dat files, blktrace files).
 */
#ifndef RA_EVENT_H
#define RA_EVENT_H

#include <stdint.h>
#include <stddef.h>

/*
 * Event types. The numbers are stored in the database (event_types table)
 * and must never be renumbered; new types get new numbers.
 */
enum ra_event_type {
	RA_EV_NONE = 0,

	/* readahead:* (Linux 6.18 and later) */
	RA_EV_SYNC_RA = 1,	/* page_cache_sync_ra */
	RA_EV_ASYNC_RA = 2,	/* page_cache_async_ra */
	RA_EV_RA_ORDER = 3,	/* page_cache_ra_order */
	RA_EV_RA_UNBOUNDED = 4, /* page_cache_ra_unbounded */
	/* syscalls:* entries of the WILLNEED calls: ra.index and ra.req_count are the
	 * range asked in pages (req_count 0: to the end of the file), dev and ino 0 */
	RA_EV_FADVISE = 5,	/* sys_enter_fadvise64, POSIX_FADV_WILLNEED only */
	RA_EV_SYS_READAHEAD = 6, /* sys_enter_readahead */
	/* sys_enter_madvise, MADV_WILLNEED only: an address range, not a file:
	 * ra.index is the start address in pages, ra.req_count the length in pages */
	RA_EV_MADVISE = 7,

	/* filemap:* */
	RA_EV_PAGE_ADD = 10,	/* mm_filemap_add_to_page_cache */
	RA_EV_PAGE_DELETE = 11, /* mm_filemap_delete_from_page_cache */
	RA_EV_GET_PAGES = 12,	/* mm_filemap_get_pages */
	RA_EV_FAULT = 13,	/* mm_filemap_fault */
	RA_EV_MAP_PAGES = 14,	/* mm_filemap_map_pages */

	/* block:* (and the blktrace actions mapped onto them) */
	RA_EV_BIO_QUEUE = 20,
	RA_EV_BIO_BACKMERGE = 21,
	RA_EV_BIO_FRONTMERGE = 22,
	RA_EV_BIO_COMPLETE = 23,
	RA_EV_BIO_REMAP = 24,
	RA_EV_BIO_BOUNCE = 25,
	RA_EV_GETRQ = 26,
	RA_EV_RQ_INSERT = 27,
	RA_EV_RQ_ISSUE = 28,
	RA_EV_RQ_MERGE = 29,
	RA_EV_RQ_COMPLETE = 30,
	RA_EV_RQ_REQUEUE = 31,
	RA_EV_RQ_REMAP = 32,
	RA_EV_RQ_ERROR = 33,
	RA_EV_PLUG = 34,
	RA_EV_UNPLUG = 35,
	RA_EV_SPLIT = 36,
	RA_EV_SLEEPRQ = 37,	/* blktrace only */

	RA_EV_MAX
};

enum ra_event_class {
	RA_CLASS_NONE = 0,
	RA_CLASS_RA,	/* stored in ra_events */
	RA_CLASS_PAGE,	/* stored in page_events */
	RA_CLASS_BLK,	/* stored in blk_events */
};

/* Kernel-internal dev_t encoding, as tracepoints and blktrace carry it. */
#define RA_MINORBITS	20
#define RA_MKDEV(ma, mi) ((uint32_t)(((ma) << RA_MINORBITS) | (mi)))
#define RA_MAJOR(dev)	((unsigned int)((dev) >> RA_MINORBITS))
#define RA_MINOR(dev)	((unsigned int)((dev) & ((1U << RA_MINORBITS) - 1)))

struct ra_ra_fields {
	uint64_t ino;
	uint64_t index;
	uint64_t req_count;	/* sync/async triggers */
	int64_t prev_pos;	/* sync/async triggers */
	uint32_t dev;
	uint32_t order;
	uint32_t size;		/* ra_unbounded: nr_to_read */
	uint32_t async_size;	/* ra_unbounded: lookahead_size */
	uint32_t ra_pages;
	uint32_t mmap_miss;
};

struct ra_page_fields {
	uint64_t ino;
	uint64_t index;
	uint64_t last_index;	/* get_pages, map_pages */
	uint64_t pfn;		/* add, delete */
	uint32_t dev;
	uint32_t order;		/* add, delete */
};

struct ra_blk_fields {
	uint64_t sector;
	uint64_t new_sector;	/* split */
	uint64_t old_sector;	/* remap */
	uint32_t dev;
	uint32_t old_dev;	/* remap */
	uint32_t nr_sector;
	uint32_t bytes;
	int32_t error;
	int32_t nr_rq;		/* unplug */
	int32_t explicit_unplug; /* unplug: 1 explicit, 0 timer/schedule, -1 unknown */
	char rwbs[10];
};

/*
 * One event. Fields that a source or a kernel does not provide are zero;
 * has_mask tells which of the optional ones were present.
 */
struct ra_event {
	uint64_t ts_ns;
	int32_t cpu;
	int32_t pid;
	uint16_t type;		/* enum ra_event_type */
	uint16_t has_mask;	/* RA_HAS_* */
	char comm[16];		/* task name when the event carries one, else "" */
	union {
		struct ra_ra_fields ra;
		struct ra_page_fields page;
		struct ra_blk_fields blk;
	};
};

#define RA_HAS_PREV_POS		0x1	/* ra.prev_pos, ra.req_count, ra.mmap_miss */
#define RA_HAS_ORDER		0x2	/* ra.order / page.order */
#define RA_HAS_LAST_INDEX	0x4	/* page.last_index */
#define RA_HAS_PFN		0x8	/* page.pfn */
#define RA_HAS_ERROR		0x10	/* blk.error */
#define RA_HAS_BYTES		0x20	/* blk.bytes */
#define RA_HAS_NR_RQ		0x40	/* blk.nr_rq */

/**
 * ra_event_name - tracepoint name of an event type ("page_cache_sync_ra")
 * Returns a static string, or NULL for an unknown type.
 */
const char *ra_event_name(int type);

/**
 * ra_event_system - tracepoint system of an event type ("readahead")
 * Returns a static string, or NULL for an unknown type.
 */
const char *ra_event_system(int type);

/**
 * ra_event_class - the table class of an event type (enum ra_event_class):
 * the types are numbered by class (asked of every event, several times)
 */
static inline int ra_event_class(int type)
{
	if (type >= RA_EV_SYNC_RA && type <= RA_EV_MADVISE)
		return RA_CLASS_RA;
	if (type >= RA_EV_PAGE_ADD && type <= RA_EV_MAP_PAGES)
		return RA_CLASS_PAGE;
	if (type >= RA_EV_BIO_QUEUE && type <= RA_EV_SLEEPRQ)
		return RA_CLASS_BLK;
	return RA_CLASS_NONE;
}

/** ra_event_lookup - event type of a system/name pair, or RA_EV_NONE */
int ra_event_lookup(const char *system, const char *name);

/**
 * ra_event_is_call - true for the entries of the WILLNEED system calls
 * (syscalls:*): stored with the readahead events, but not readahead events
 */
int ra_event_is_call(int type);

/** ra_event_optional - true for events a recording may lack without loss of the basics */
int ra_event_optional(int type);

#endif /* RA_EVENT_H */
