/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The columns of the three event tables, one list each, in their order:
 * the schema's CREATE TABLE (lib/schema.c), the writer's INSERT and bindings
 * (lib/writer.c), the event stream's SELECT and reads (lib/evstream.c) and
 * the decoder's fields (collect/decode/decode.c) are made from them, so they
 * cannot disagree. A column is X(ID, name, declaration, since, member, has,
 * null): RA_<TABLE>_<ID> is its index in a row (seq is 0); since the schema
 * version that added it; member where struct ra_event holds its value (the
 * common columns are read by name, and an event has no run_id); has the
 * RA_HAS_* bit that tells it is present, or 0; null its value when it is
 * not. The first version's CREATE TABLE has the
 * columns of version 1; a column added later goes at the end of its list
 * with its version, and its version's step adds it (an ALTER TABLE), so
 * that new and upgraded databases end alike (t_db_upgrade compares them;
 * test_db checks the lists against a new database).
 */
#ifndef RA_EVCOLS_H
#define RA_EVCOLS_H

#include "ra_event.h"

/* after seq, in every event table */
#define RA_EVCOLS_COMMON(X)                                                     \
	X(RUN, run_id, "INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE", 1, run_id, 0, 0) \
	X(TS, ts_ns, "INTEGER NOT NULL", 1, ts_ns, 0, 0)                               \
	X(CPU, cpu, "INTEGER NOT NULL", 1, cpu, 0, 0)                                  \
	X(PID, pid, "INTEGER NOT NULL", 1, pid, 0, 0)                                  \
	X(EVENT, event_id, "INTEGER NOT NULL REFERENCES event_types(event_id)", 1, type, 0, 0)

#define RA_EVCOLS_RA(X)                                                         \
	X(DEV, dev, "INTEGER NOT NULL", 1, ra.dev, 0, 0)                               \
	X(INO, ino, "INTEGER NOT NULL", 1, ra.ino, 0, 0)                               \
	X(INDEX, page_index, "INTEGER NOT NULL", 1, ra.index, 0, 0)                    \
	X(REQ_COUNT, req_count_pages, "INTEGER", 1, ra.req_count, 0, 0)                \
	X(ORDER, folio_order, "INTEGER", 1, ra.order, RA_HAS_ORDER, 0)                 \
	X(SIZE, size_pages, "INTEGER", 1, ra.size, 0, 0)                               \
	X(ASYNC, async_size_pages, "INTEGER", 1, ra.async_size, 0, 0)                  \
	X(RA_PAGES, ra_pages, "INTEGER", 1, ra.ra_pages, 0, 0)                         \
	X(MMAP_MISS, mmap_miss, "INTEGER", 1, ra.mmap_miss, RA_HAS_PREV_POS, 0)        \
	X(PREV_POS, prev_pos_bytes, "INTEGER", 1, ra.prev_pos, 0, 0)

#define RA_EVCOLS_PAGE(X)                                                       \
	X(DEV, dev, "INTEGER NOT NULL", 1, page.dev, 0, 0)                             \
	X(INO, ino, "INTEGER NOT NULL", 1, page.ino, 0, 0)                             \
	X(INDEX, page_index, "INTEGER NOT NULL", 1, page.index, 0, 0)                  \
	X(LAST_INDEX, last_index, "INTEGER", 1, page.last_index, RA_HAS_LAST_INDEX, 0) \
	X(ORDER, folio_order, "INTEGER", 1, page.order, RA_HAS_ORDER, 0)               \
	X(PFN, pfn, "INTEGER", 1, page.pfn, RA_HAS_PFN, 0)

#define RA_EVCOLS_BLK(X)                                                        \
	X(DEV, dev, "INTEGER", 1, blk.dev, 0, 0)                                       \
	X(SECTOR, sector, "INTEGER", 1, blk.sector, 0, 0)                              \
	X(NR_SECTOR, nr_sector, "INTEGER", 1, blk.nr_sector, 0, 0)                     \
	X(BYTES, bytes, "INTEGER", 1, blk.bytes, RA_HAS_BYTES, 0)                      \
	X(RWBS, rwbs, "TEXT", 1, blk.rwbs, 0, 0)                                       \
	X(ERROR, error, "INTEGER", 1, blk.error, RA_HAS_ERROR, 0)                      \
	X(NR_RQ, nr_rq, "INTEGER", 1, blk.nr_rq, RA_HAS_NR_RQ, 0)                      \
	X(EXPLICIT_UNPLUG, explicit_unplug, "INTEGER", 1, blk.explicit_unplug, 0, -1)  \
	X(NEW_SECTOR, new_sector, "INTEGER", 1, blk.new_sector, 0, 0)                  \
	X(OLD_DEV, old_dev, "INTEGER", 1, blk.old_dev, 0, 0)                           \
	X(OLD_SECTOR, old_sector, "INTEGER", 1, blk.old_sector, 0, 0)

/* the index of each column in a row, and the number of columns */
#define RA_EVCOL_RA_ID(id, name, decl, since, member, has, null) RA_RA_##id,
#define RA_EVCOL_PAGE_ID(id, name, decl, since, member, has, null) RA_PAGE_##id,
#define RA_EVCOL_BLK_ID(id, name, decl, since, member, has, null) RA_BLK_##id,
enum { RA_RA_SEQ, RA_EVCOLS_COMMON(RA_EVCOL_RA_ID) RA_EVCOLS_RA(RA_EVCOL_RA_ID) RA_RA_NCOLS };
enum { RA_PAGE_SEQ, RA_EVCOLS_COMMON(RA_EVCOL_PAGE_ID) RA_EVCOLS_PAGE(RA_EVCOL_PAGE_ID)
       RA_PAGE_NCOLS };
enum { RA_BLK_SEQ, RA_EVCOLS_COMMON(RA_EVCOL_BLK_ID) RA_EVCOLS_BLK(RA_EVCOL_BLK_ID) RA_BLK_NCOLS };

/* ", name" of each column */
#define RA_EVCOL_NAME(id, name, decl, since, member, has, null) ", " #name
/* ",\n  name declaration" of each column of the first schema version only */
#define RA_EVCOL_DEF(id, name, decl, since, member, has, null) RA_EVCOL_DEF_V##since(name, decl)
#define RA_EVCOL_DEF_V1(name, decl) ",\n  " #name " " decl
/* a later column: "ALTER TABLE t ADD COLUMN name declaration;" in its own step */

/* "seq, run_id, ..." of a table's list: RA_EVCOLS_NAMES(RA_EVCOLS_PAGE) */
#define RA_EVCOLS_NAMES(list) "seq" RA_EVCOLS_COMMON(RA_EVCOL_NAME) list(RA_EVCOL_NAME)
/* the CREATE TABLE of an event table */
#define RA_EVCOLS_CREATE(table, list)                                           \
	"CREATE TABLE " table " (\n  seq INTEGER PRIMARY KEY" RA_EVCOLS_COMMON(RA_EVCOL_DEF) \
	list(RA_EVCOL_DEF) "\n);\n"

/* Where a column's value is in struct ra_event */
struct ra_evcol {
	const char *name;	/* the column's */
	unsigned short off;	/* offsetof(struct ra_event, member) */
	unsigned char size;	/* 1, 2, 4 or 8; a char array (a text) is wider */
	unsigned short has;	/* the RA_HAS_* bit set when it is present, or 0 */
	signed char null;	/* its value when it is not */
	unsigned char is_signed; /* the member is a signed integer */
};

/*
 * The columns of each table after the common ones, indexed by column:
 * ra_evcols_blk[RA_BLK_RWBS] (the entries below RA_<TABLE>_DEV are empty)
 */
extern const struct ra_evcol ra_evcols_ra[RA_RA_NCOLS];
extern const struct ra_evcol ra_evcols_page[RA_PAGE_NCOLS];
extern const struct ra_evcol ra_evcols_blk[RA_BLK_NCOLS];

/*
 * ra_evcol_set - @v into the column's member of @ev (a number column only);
 * inline: it is called for each column of each event decoded, stored or read
 */
static inline void ra_evcol_set(struct ra_event *ev, const struct ra_evcol *c, int64_t v)
{
	char *dst = (char *)ev + c->off;

	switch (c->size) {
	case 1:
		*(uint8_t *)dst = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)dst = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)dst = (uint32_t)v;
		break;
	case 8:
		*(uint64_t *)dst = (uint64_t)v;
		break;
	}
}

#endif /* RA_EVCOLS_H */
