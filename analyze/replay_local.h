/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The replay's parts (replay.h): the store of pages, files, open files and
 * tasks (replay_store.c), the model of the kernel's read paths
 * (replay_kernel.c) and the reconstruction of a run's accesses (replay.c).
 * Calls go one way: replay.c -> replay_kernel.c -> replay_store.c.
 */
#ifndef RA_REPLAY_LOCAL_H
#define RA_REPLAY_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "pagemap.h"
#include "replay.h"

#define RP_PAGE_SHIFT 12
#define RP_PAGE_SIZE (1LL << RP_PAGE_SHIFT)
/* The page cache's largest folio (a PMD of 4 KiB pages) */
#define RP_MAX_ORDER 9
/* A file's pages beyond any real one: the end of a file of unknown size */
#define RP_NO_EOF (1ULL << 40)
/* Processes that map one file, each with its own bit of mapped pages */
#define RP_MAP_SLOTS 8

/*
 * What the replay knows of one page of a file, 32 bits. The model's page
 * cache: present, the order of its folio (on every page of the folio) and
 * the folio's PG_readahead mark (on every page too). What the recorded run
 * did: the page cached there now and its folio's order, added at some
 * time, cached before the run began (found by the first pass,
 * ra_replay_scan()). Which processes mapped it in the model.
 */
#define RP_PRESENT	0x0001
#define RP_MARK		0x0002
#define RP_ORDER_SHIFT	2
#define RP_ORDER_MASK	0x003c
#define RP_READ		0x0040	/* accessed since the model added it */
#define RP_GHOST	0x0080	/* deleted before any access: a later read means reclaim */
#define RP_REC		0x0100	/* in the recorded run's page cache now */
#define RP_REC_ADDED	0x0200	/* added by the recorded run at some time */
#define RP_CAND		0x0400	/* first pass: accessed before the run added it */
#define RP_EARLY	0x0800	/* cached before the run began */
#define RP_REC_SHIFT	12	/* the order of the run's folio there */
#define RP_REC_MASK	0xf000
#define RP_MAPPED0	0x10000	/* mapped by the process of map slot 0 (8 slots) */
#define RP_FAULTS_LATER	0x1000000 /* the run faults on it later: not touched till then */

static inline unsigned int rp_order(uint32_t v)
{
	return (v & RP_ORDER_MASK) >> RP_ORDER_SHIFT;
}

/*
 * The pages of one file, in chunks of RP_CHUNK made when first written,
 * kept in one map for all the files of a replay (a file costs nothing
 * before a page of it is written)
 */
#define RP_CHUNK_SHIFT 12
#define RP_CHUNK (1U << RP_CHUNK_SHIFT)
/* Pages beyond this do not exist (2^63 bytes); what is written there is lost */
#define RP_PAGES_MAX (1ULL << 51)
/* Files a replay follows at most: their numbers, below the chunk numbers
 * (39 bits) in a chunk's key, and a key never 0 */
#define RP_FILE_BITS 25
#define RP_FILES_MAX ((1ULL << RP_FILE_BITS) - 1)

/* A chunk in the map: its pages, and how many it has room for */
struct rp_chunk {
	uint32_t *c;
	uint32_t room;
};

/* The chunks of every file of a replay */
struct rp_chunks {
	struct ra_map map;		/* chunk_key() -> struct rp_chunk */
	struct ra_slab slab;		/* the chunks' pages */
};

struct rp_pages {
	struct rp_chunks *chunks;	/* the replay's */
	uint64_t id;			/* the file's number in the keys */
	uint64_t last_no;		/* the key looked up last (0: none) */
	struct rp_chunk last;
	uint64_t top;			/* one past the highest page ever in the model:
					 * how tall the page cache's xarray grew */
	uint32_t scratch;		/* the page of an index beyond RP_PAGES_MAX */
};

/* One file (dev, ino): what the run says of it, and its page cache. */
struct rp_file {
	uint32_t dev;
	uint64_t ino;
	bool info_asked;		/* the file callback was asked */
	int64_t size;			/* bytes, -1 not known */
	uint64_t seen_end;		/* one past the highest page the run showed */
	bool large;			/* the file system gives it large folios */
	bool large_seen;		/* the run added folios of it above order 0 */
	unsigned int max_order;		/* then the largest */
	uint32_t ra_pages, io_pages;	/* its bdi's */
	char fstype[16];	/* its own copy: the caller's string may move */
	unsigned int doubts;		/* enum ra_replay_doubt */
	bool scan_access;		/* the first pass saw accesses of it */
	int map_tgid[RP_MAP_SLOTS];	/* the processes of the map slots, 0 free */
	int recent_tgid[4];		/* readers, for two that read at once */
	uint64_t recent_ts[4];
	struct rp_pages pages;
};

enum rp_vm { RP_VM_NORMAL, RP_VM_SEQ, RP_VM_RAND };

/* struct file_ra_state, as the model keeps it */
struct rp_ra {
	uint64_t start;
	uint32_t size, async_size, ra_pages;
	uint32_t order;			/* 6.17 and later */
	uint32_t mmap_miss;
	int64_t prev_pos;
};

/*
 * An open file: a file read by one process, through one descriptor (a
 * process may read a file through several, each with its own state).
 */
struct rp_ofile {
	struct rp_file *f;
	int tgid;
	struct rp_ofile *next;		/* the process's next descriptor of the file, in
					 * the order they were made */
	uint64_t used;			/* when it was last used, for the latest one */
	struct rp_ra ra;
	bool prev_exact;		/* ra.prev_pos from the run, not guessed */
	uint32_t rec_ra_pages;		/* the ra_pages the run's events gave it, 0 none */
	unsigned int ra_mult;		/* the run's ra_pages over its bdi's: 2 after
					 * POSIX_FADV_SEQUENTIAL */
	bool ra_set;			/* ra.ra_pages chosen */
	enum rp_vm vm;			/* what its mapping's readahead was told */
	int map_slot;			/* its bit of mapped pages, -1 none yet */
	int fa_phase;			/* fault-around blocks start at this page mod 16 */
	uint32_t width;			/* the widest read() seen, pages */
};

/* The model of the kernel: its series, policy and the access it replays. */
struct rp_kernel {
	int series;
	enum ra_policy policy;
	uint32_t fixed_pages, scaling_pages;
	int (*emit)(const struct ra_event *ev, void *arg);
	void *arg;
	uint64_t ts;			/* the access replayed: its time and task */
	int pid;
	int err;			/* what emit returned, < 0 stops the replay */
};

/* ---- replay_store.c ---- */

/** ra_rp_chunks_init - no chunks yet: 0, or -1 out of memory */
int ra_rp_chunks_init(struct rp_chunks *chunks);
/** ra_rp_pages_init - the pages of file number @id, in the replay's @chunks */
void ra_rp_pages_init(struct rp_pages *p, struct rp_chunks *chunks, uint64_t id);
/** ra_rp_chunks_release - every chunk, and their map */
void ra_rp_chunks_release(struct rp_chunks *chunks);
/** ra_rp_page - the bits of page @index, 0 for a page never written */
uint32_t ra_rp_page(struct rp_pages *p, uint64_t index);
/** ra_rp_page_at - the bits of page @index to change; NULL when out of memory */
uint32_t *ra_rp_page_at(struct rp_pages *p, uint64_t index);
/** ra_rp_chunks_each - @fn on every page of every file written, until it returns nonzero */
int ra_rp_chunks_each(struct rp_chunks *chunks,
		      int (*fn)(uint64_t id, uint64_t index, uint32_t *v, void *arg), void *arg);
/** ra_rp_head - the first page of the model's folio holding @index (present) */
uint64_t ra_rp_head(struct rp_pages *p, uint64_t index);
/** ra_rp_any_present - whether a page of [@index, @index + @n) is in the model */
bool ra_rp_any_present(struct rp_pages *p, uint64_t index, uint64_t n);
/** ra_rp_set_folio - the folio of order @order at @index in the model, marked or not */
int ra_rp_set_folio(struct rp_pages *p, uint64_t index, unsigned int order, bool mark);
/** ra_rp_clear_folio - the model's folio at @head gone; whether a page was unread */
bool ra_rp_clear_folio(struct rp_pages *p, uint64_t head);
/** ra_rp_set_mark - the mark of the folio at @head set or cleared */
void ra_rp_set_mark(struct rp_pages *p, uint64_t head, bool on);
/** ra_rp_set_bits - @bits set (@on) or cleared in [@index, @index + @n); -1 out of memory */
int ra_rp_set_bits(struct rp_pages *p, uint64_t index, uint64_t n, uint32_t bits, bool on);

/*
 * A walk of the page cache's xarray as xas_prev()/xas_next() make it, one
 * index at a time from a fresh state: its index, and the slot it reads,
 * which is not always the index's (a walk that starts inside a large folio
 * reads from the folio's first slot on while its index counts from where
 * it started, until it leaves the node).
 */
struct rp_xas {
	uint64_t index;
	int state;			/* RP_XS_* */
	unsigned int level;		/* of the node: its slots cover 64^level pages */
	uint64_t base;			/* the node's first page */
	unsigned int offset;		/* the slot */
};

enum { RP_XS_NODE, RP_XS_RESTART, RP_XS_BOUNDS, RP_XS_HEAD };

/** ra_rp_xas_init - a walk from @index */
void ra_rp_xas_init(struct rp_xas *x, uint64_t index);
/** ra_rp_xas_prev - the walk one index down: whether an entry is there (not a hole) */
bool ra_rp_xas_prev(struct rp_pages *p, struct rp_xas *x);
/** ra_rp_xas_next - the walk one index up: whether an entry is there */
bool ra_rp_xas_next(struct rp_pages *p, struct rp_xas *x);

/** ra_rp_eof - one past the file's last page: its size, else the highest seen */
uint64_t ra_rp_eof(const struct rp_file *f);
/** ra_rp_isize - the file's size in bytes, as the model takes it */
int64_t ra_rp_isize(const struct rp_file *f);

/* ---- replay_kernel.c ---- */

/**
 * ra_rp_read - a read() of bytes [@pos, @end) through filemap_read(); the
 * events as the kernel emits them
 */
int ra_rp_read(struct rp_kernel *k, struct rp_ofile *of, int64_t pos, int64_t end);
/**
 * ra_rp_touch - a touch of page @index of a mapping: fault-around over
 * [@fa_first, @fa_last], then filemap_fault() and its readahead
 */
int ra_rp_touch(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t fa_first,
		uint64_t fa_last);
/** ra_rp_force - force_page_cache_ra() of @nr pages from @index (WILLNEED) */
int ra_rp_force(struct rp_kernel *k, struct rp_ofile *of, uint64_t index, uint64_t nr);
/** ra_rp_written - a folio the run added by a write: in the model where it is free */
int ra_rp_written(struct rp_kernel *k, struct rp_file *f, uint64_t index, unsigned int order);
/** ra_rp_evict - the run deleted [@index, 2^@order pages): the model's folios there go */
int ra_rp_evict(struct rp_kernel *k, struct rp_file *f, uint64_t index, unsigned int order);

#endif /* RA_REPLAY_LOCAL_H */
