/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The columns of the three event tables, one list each, in their order:
 * the schema's CREATE TABLE (schema.c), the writer's INSERT and bindings
 * (writer.c) and the event stream's SELECT and reads (evstream.c) are made
 * from them, so they cannot disagree. A column is X(ID, name, declaration,
 * since): RA_<TABLE>_<ID> is its index in a row (seq is 0), and since the
 * schema version that added it. The first version's CREATE TABLE has the
 * columns of version 1; a column added later goes at the end of its list
 * with its version, and its version's step adds it (an ALTER TABLE), so
 * that new and upgraded databases end alike (t_db_upgrade compares them;
 * test_db checks the lists against a new database).
 */
#ifndef RA_EVCOLS_H
#define RA_EVCOLS_H

/* after seq, in every event table */
#define RA_EVCOLS_COMMON(X)                                                     \
	X(RUN, run_id, "INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE", 1) \
	X(TS, ts_ns, "INTEGER NOT NULL", 1)                                     \
	X(CPU, cpu, "INTEGER NOT NULL", 1)                                      \
	X(PID, pid, "INTEGER NOT NULL", 1)                                      \
	X(EVENT, event_id, "INTEGER NOT NULL REFERENCES event_types(event_id)", 1)

#define RA_EVCOLS_RA(X)                                                         \
	X(DEV, dev, "INTEGER NOT NULL", 1)                                      \
	X(INO, ino, "INTEGER NOT NULL", 1)                                      \
	X(INDEX, page_index, "INTEGER NOT NULL", 1)                             \
	X(REQ_COUNT, req_count_pages, "INTEGER", 1)                             \
	X(ORDER, folio_order, "INTEGER", 1)                                     \
	X(SIZE, size_pages, "INTEGER", 1)                                       \
	X(ASYNC, async_size_pages, "INTEGER", 1)                                \
	X(RA_PAGES, ra_pages, "INTEGER", 1)                                     \
	X(MMAP_MISS, mmap_miss, "INTEGER", 1)                                   \
	X(PREV_POS, prev_pos_bytes, "INTEGER", 1)

#define RA_EVCOLS_PAGE(X)                                                       \
	X(DEV, dev, "INTEGER NOT NULL", 1)                                      \
	X(INO, ino, "INTEGER NOT NULL", 1)                                      \
	X(INDEX, page_index, "INTEGER NOT NULL", 1)                             \
	X(LAST_INDEX, last_index, "INTEGER", 1)                                 \
	X(ORDER, folio_order, "INTEGER", 1)                                     \
	X(PFN, pfn, "INTEGER", 1)

#define RA_EVCOLS_BLK(X)                                                        \
	X(DEV, dev, "INTEGER", 1)                                               \
	X(SECTOR, sector, "INTEGER", 1)                                         \
	X(NR_SECTOR, nr_sector, "INTEGER", 1)                                   \
	X(BYTES, bytes, "INTEGER", 1)                                           \
	X(RWBS, rwbs, "TEXT", 1)                                                \
	X(ERROR, error, "INTEGER", 1)                                           \
	X(NR_RQ, nr_rq, "INTEGER", 1)                                           \
	X(EXPLICIT_UNPLUG, explicit_unplug, "INTEGER", 1)                       \
	X(NEW_SECTOR, new_sector, "INTEGER", 1)                                 \
	X(OLD_DEV, old_dev, "INTEGER", 1)                                       \
	X(OLD_SECTOR, old_sector, "INTEGER", 1)

/* the index of each column in a row, and the number of columns */
#define RA_EVCOL_RA_ID(id, name, decl, since) RA_RA_##id,
#define RA_EVCOL_PAGE_ID(id, name, decl, since) RA_PAGE_##id,
#define RA_EVCOL_BLK_ID(id, name, decl, since) RA_BLK_##id,
enum { RA_RA_SEQ, RA_EVCOLS_COMMON(RA_EVCOL_RA_ID) RA_EVCOLS_RA(RA_EVCOL_RA_ID) RA_RA_NCOLS };
enum { RA_PAGE_SEQ, RA_EVCOLS_COMMON(RA_EVCOL_PAGE_ID) RA_EVCOLS_PAGE(RA_EVCOL_PAGE_ID)
       RA_PAGE_NCOLS };
enum { RA_BLK_SEQ, RA_EVCOLS_COMMON(RA_EVCOL_BLK_ID) RA_EVCOLS_BLK(RA_EVCOL_BLK_ID) RA_BLK_NCOLS };

/* ", name" of each column */
#define RA_EVCOL_NAME(id, name, decl, since) ", " #name
/* ",\n  name declaration" of each column of the first schema version only */
#define RA_EVCOL_DEF(id, name, decl, since) RA_EVCOL_DEF_V##since(name, decl)
#define RA_EVCOL_DEF_V1(name, decl) ",\n  " #name " " decl
/* a later column: "ALTER TABLE t ADD COLUMN name declaration;" in its own step */

/* "seq, run_id, ..." of a table's list: RA_EVCOLS_NAMES(RA_EVCOLS_PAGE) */
#define RA_EVCOLS_NAMES(list) "seq" RA_EVCOLS_COMMON(RA_EVCOL_NAME) list(RA_EVCOL_NAME)
/* the CREATE TABLE of an event table */
#define RA_EVCOLS_CREATE(table, list)                                           \
	"CREATE TABLE " table " (\n  seq INTEGER PRIMARY KEY" RA_EVCOLS_COMMON(RA_EVCOL_DEF) \
	list(RA_EVCOL_DEF) "\n);\n"

#endif /* RA_EVCOLS_H */
