// SPDX-License-Identifier: LGPL-2.1
/*
 * Packed event storage (chunk.h): a chunk row holds up to RA_CHUNK_EVENTS
 * events of one run and one table. Per column the row has <name>_base (the
 * smallest value, NULL when every value is NULL), <name>_bits (the width of
 * each packed value, 0 to RA_CHUNK_BITS) and <name>_at (the bit in data
 * where the column's values begin); seq has no base, its values count from
 * seq_first. Value i of a column is the <name>_bits bits at bit
 * <name>_at + i * <name>_bits of data, least significant bit first (bit b
 * of the blob is bit b % 8 of byte b / 8). A text column (rwbs) is packed as
 * an integer first: its length, then 7 bits a character.
 */
#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_local.h"
#include "chunk.h"

#define NAME(id, name, decl, since, member, has, null) #name,
#define DECL(id, name, decl, since, member, has, null) decl,
#define SINCE(id, name, decl, since, member, has, null) since,

static const char *const ra_names[] = {"seq", RA_EVCOLS_COMMON(NAME) RA_EVCOLS_RA(NAME)};
static const char *const ra_decls[] = {"", RA_EVCOLS_COMMON(DECL) RA_EVCOLS_RA(DECL)};
static const char *const page_names[] = {"seq", RA_EVCOLS_COMMON(NAME) RA_EVCOLS_PAGE(NAME)};
static const char *const page_decls[] = {"", RA_EVCOLS_COMMON(DECL) RA_EVCOLS_PAGE(DECL)};
static const char *const blk_names[] = {"seq", RA_EVCOLS_COMMON(NAME) RA_EVCOLS_BLK(NAME)};
static const char *const blk_decls[] = {"", RA_EVCOLS_COMMON(DECL) RA_EVCOLS_BLK(DECL)};
static const unsigned char ra_since[] = {1, RA_EVCOLS_COMMON(SINCE) RA_EVCOLS_RA(SINCE)};
static const unsigned char page_since[] = {1, RA_EVCOLS_COMMON(SINCE) RA_EVCOLS_PAGE(SINCE)};
static const unsigned char blk_since[] = {1, RA_EVCOLS_COMMON(SINCE) RA_EVCOLS_BLK(SINCE)};

_Static_assert(RA_RA_NCOLS <= RA_CHUNK_COLS && RA_PAGE_NCOLS <= RA_CHUNK_COLS &&
		       RA_BLK_NCOLS <= RA_CHUNK_COLS,
	       "RA_CHUNK_COLS is too small");
_Static_assert((int)RA_RA_TS == (int)RA_PAGE_TS && (int)RA_RA_TS == (int)RA_BLK_TS &&
		       RA_RA_RUN == 1 && (int)RA_RA_EVENT == (int)RA_BLK_EVENT &&
		       (int)RA_RA_EVENT == (int)RA_PAGE_EVENT,
	       "the common columns have one index");

static struct ra_chunk_table tables[] = {
	{ RA_CLASS_RA, "ra_events", "ra_chunks", RA_RA_NCOLS, ra_names, ra_decls, ra_since,
	  ra_evcols_ra, { 0 }, false },
	{ RA_CLASS_PAGE, "page_events", "page_chunks", RA_PAGE_NCOLS, page_names, page_decls,
	  page_since, ra_evcols_page, { 0 }, false },
	{ RA_CLASS_BLK, "blk_events", "blk_chunks", RA_BLK_NCOLS, blk_names, blk_decls, blk_since,
	  ra_evcols_blk, { 0 }, false },
};

/* each column's flags, from its declaration, once (before any thread starts) */
static void set_flags(struct ra_chunk_table *t)
{
	for (int i = 0; i < t->ncols; i++)
		t->flags[i] = (i != RA_RA_SEQ && !strstr(t->decls[i], "NOT NULL") ? COL_NULL : 0) |
			      (strncmp(t->decls[i], "TEXT", 4) == 0 ? COL_TEXT : 0);
	t->ready = true;
}

const struct ra_chunk_table *ra_chunk_table(int cls)
{
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i].cls == cls) {
			if (!tables[i].ready)
				set_flags(&tables[i]);
			return &tables[i];
		}
	return NULL;
}

/* A column's values may be NULL; seq and the NOT NULL ones may not. */
static bool nullable(const struct ra_chunk_table *t, int col)
{
	return t->flags[col] & COL_NULL;
}

static bool is_text(const struct ra_chunk_table *t, int col)
{
	return t->flags[col] & COL_TEXT;
}

/* ---- events and rows ------------------------------------------------------ */

static int64_t member_get(const struct ra_event *ev, const struct ra_evcol *c)
{
	const char *src = (const char *)ev + c->off;

	switch (c->size) {
	case 1:
		return *(const uint8_t *)src;
	case 2:
		return *(const uint16_t *)src;
	case 4:
		if (c->is_signed)
			return *(const int32_t *)src;
		return *(const uint32_t *)src;
	default:
		return (int64_t) * (const uint64_t *)src;
	}
}

/* A text as an integer: its length (0 to 7), then 7 bits a character ('?' for others). */
static int64_t text_pack(const char *s, size_t cap)
{
	uint64_t v = 0;
	size_t n = 0;

	for (; n < cap && n < RA_RWBS_CHARS && s[n]; n++) {
		unsigned char ch = (unsigned char)s[n];

		v |= (uint64_t)(ch < 0x80 ? ch : '?') << (3 + 7 * n);
	}
	return (int64_t)(v | n);
}

static void text_unpack(int64_t packed, char *s, size_t cap)
{
	uint64_t v = (uint64_t)packed;
	size_t n = v & 7;

	for (size_t i = 0; i < n && i + 1 < cap; i++)
		s[i] = (char)((v >> (3 + 7 * i)) & 127);
	s[n < cap ? n : cap - 1] = '\0';
}

static void put(struct ra_chunk_row *r, int col, bool present, int64_t v)
{
	r->set[col] = present;
	r->v[col] = present ? v : 0;
}

/* Which columns an event leaves NULL: the rules of each table. */
static void ra_row(const struct ra_event *ev, struct ra_chunk_row *r)
{
	bool trig = ev->type == RA_EV_SYNC_RA || ev->type == RA_EV_ASYNC_RA;
	bool sys = ra_event_is_call(ev->type);
	bool unb = ev->type == RA_EV_RA_UNBOUNDED || sys;

	r->set[RA_RA_REQ_COUNT] &= trig || sys;
	r->set[RA_RA_ORDER] &= !unb;
	r->set[RA_RA_RA_PAGES] &= !unb;
	r->set[RA_RA_MMAP_MISS] &= trig;
	r->set[RA_RA_PREV_POS] &= trig;
}

static void page_row(const struct ra_event *ev, struct ra_chunk_row *r)
{
	r->set[RA_PAGE_LAST_INDEX] &= (ev->has_mask & RA_HAS_LAST_INDEX) != 0;
	r->set[RA_PAGE_ORDER] &= (ev->has_mask & RA_HAS_ORDER) != 0;
	r->set[RA_PAGE_PFN] &= (ev->has_mask & RA_HAS_PFN) != 0;
}

static void blk_row(const struct ra_event *ev, struct ra_chunk_row *r)
{
	const struct ra_blk_fields *f = &ev->blk;
	/* plug and unplug: the queue when the source names it (blktrace), not ftrace */
	bool plug = ev->type == RA_EV_PLUG || ev->type == RA_EV_UNPLUG;
	bool remap = ev->type == RA_EV_BIO_REMAP || ev->type == RA_EV_RQ_REMAP;

	r->set[RA_BLK_DEV] &= !plug || f->dev != 0;
	r->set[RA_BLK_SECTOR] &= !plug;
	r->set[RA_BLK_NR_SECTOR] &= !plug;
	r->set[RA_BLK_BYTES] &= (ev->has_mask & RA_HAS_BYTES) != 0;
	r->set[RA_BLK_RWBS] &= f->rwbs[0] != '\0';
	r->set[RA_BLK_ERROR] &= (ev->has_mask & RA_HAS_ERROR) != 0;
	r->set[RA_BLK_NR_RQ] &= (ev->has_mask & RA_HAS_NR_RQ) != 0;
	r->set[RA_BLK_EXPLICIT_UNPLUG] &= ev->type == RA_EV_UNPLUG && f->explicit_unplug >= 0;
	r->set[RA_BLK_NEW_SECTOR] &= ev->type == RA_EV_SPLIT;
	r->set[RA_BLK_OLD_DEV] &= remap;
	r->set[RA_BLK_OLD_SECTOR] &= remap;
}

void ra_chunk_event_row(const struct ra_chunk_table *t, const struct ra_event *ev, int64_t seq,
			struct ra_chunk_row *r)
{
	put(r, RA_RA_SEQ, true, seq);
	put(r, RA_RA_RUN, true, 0);
	put(r, RA_RA_TS, true, (int64_t)ev->ts_ns);
	put(r, RA_RA_CPU, true, ev->cpu);
	put(r, RA_RA_PID, true, ev->pid);
	put(r, RA_RA_EVENT, true, ev->type);
	for (int i = RA_RA_EVENT + 1; i < t->ncols; i++) {
		const struct ra_evcol *c = &t->cols[i];

		if (is_text(t, i))
			put(r, i, true, text_pack((const char *)ev + c->off, c->size));
		else
			put(r, i, true, member_get(ev, c));
	}
	if (t->cls == RA_CLASS_RA)
		ra_row(ev, r);
	else if (t->cls == RA_CLASS_PAGE)
		page_row(ev, r);
	else
		blk_row(ev, r);
	for (int i = RA_RA_EVENT + 1; i < t->ncols; i++)
		if (!r->set[i])
			r->v[i] = 0;
}

void ra_chunk_row_event(const struct ra_chunk_table *t, const struct ra_chunk_row *r,
			struct ra_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts_ns = (uint64_t)r->v[RA_RA_TS];
	ev->cpu = (int32_t)r->v[RA_RA_CPU];
	ev->pid = (int32_t)r->v[RA_RA_PID];
	ev->type = (uint16_t)r->v[RA_RA_EVENT];
	for (int i = RA_RA_EVENT + 1; i < t->ncols; i++) {
		const struct ra_evcol *c = &t->cols[i];

		if (is_text(t, i)) {
			text_unpack(r->set[i] ? r->v[i] : 0, (char *)ev + c->off, c->size);
		} else if (!r->set[i]) {
			ra_evcol_set(ev, c, c->null);
		} else {
			ev->has_mask |= c->has;
			ra_evcol_set(ev, c, r->v[i]);
		}
	}
}

/* ---- SQL text ------------------------------------------------------------- */

struct sbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap)
			break;
		size_t cap = (b->cap ? b->cap : 1024) * 2 + (size_t)n;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->failed = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	b->len += (size_t)n;
}

static char *sb_done(struct sbuf *b)
{
	if (b->failed || !b->s) {
		free(b->s);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	return b->s;
}

/*
 * the chunk columns of every column of the view but run_id, in their order;
 * @create: those of version 10 only (a later column's step adds its own,
 * ALTER TABLE t ADD COLUMN x_base INTEGER, x_bits and x_at INTEGER NOT NULL
 * DEFAULT 0: the chunks of before hold it as NULL)
 */
static void meta_cols(struct sbuf *b, const struct ra_chunk_table *t, const char *prefix,
		      const char *decl_base, const char *decl_int, bool create)
{
	for (int i = 0; i < t->ncols; i++) {
		if (i == RA_RA_RUN || (create && t->since[i] > 10))
			continue;
		if (i != RA_RA_SEQ)
			sb_add(b, ",%s%s_base%s", prefix, t->names[i], decl_base);
		sb_add(b, ",%s%s_bits%s,%s%s_at%s", prefix, t->names[i], decl_int, prefix,
		       t->names[i], decl_int);
	}
}

char *ra_chunk_create_sql(const struct ra_chunk_table *t)
{
	struct sbuf b = {0};

	sb_add(&b,
	       "CREATE TABLE %s (\n  seq_first INTEGER PRIMARY KEY,\n"
	       "  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	       "  seq_last INTEGER NOT NULL,\n  n INTEGER NOT NULL",
	       t->chunks);
	meta_cols(&b, t, "\n  ", " INTEGER", " INTEGER NOT NULL", true);
	sb_add(&b, ",\n  data BLOB NOT NULL\n);\n");
	return sb_done(&b);
}

char *ra_chunk_insert_sql(const struct ra_chunk_table *t)
{
	struct sbuf b = {0};
	int n = 5;

	sb_add(&b, "INSERT INTO %s (seq_first, run_id, seq_last, n", t->chunks);
	meta_cols(&b, t, " ", "", "", false);
	sb_add(&b, ", data) VALUES (?");
	for (int i = 0; i < t->ncols; i++)
		n += i == RA_RA_RUN ? 0 : i == RA_RA_SEQ ? 2 : 3;
	for (int i = 1; i < n; i++)
		sb_add(&b, ",?");
	sb_add(&b, ")");
	return sb_done(&b);
}

char *ra_chunk_select_sql(const struct ra_chunk_table *t, const char *where)
{
	struct sbuf b = {0};

	sb_add(&b, "SELECT seq_first, run_id, seq_last, n");
	meta_cols(&b, t, " ", "", "", false);
	sb_add(&b, ", data FROM %s %s", t->chunks, where);
	return sb_done(&b);
}

/*
 * The packed value of column @name of slot s.i of chunk c: its bits, read
 * byte by byte (instr() in the 256 bytes of k.b gives a byte's value).
 * SQLite gives << >> & | one precedence: everything is in parentheses.
 */
static void sql_packed(struct sbuf *b, const char *name)
{
	char p[128];

	snprintf(p, sizeof(p), "(c.%s_at + s.i * c.%s_bits)", name, name);
	sb_add(b,
	       "(CASE c.%s_bits WHEN 0 THEN 0 ELSE (((instr(k.b, substr(c.data, (%s >> 3) + 1, 1)) "
	       "- 1)",
	       name, p);
	for (int j = 1; j < 8; j++)
		sb_add(b,
		       " | (CASE WHEN (%s & 7) + c.%s_bits > %d THEN"
		       " ((instr(k.b, substr(c.data, (%s >> 3) + %d, 1)) - 1) << %d) ELSE 0 END)",
		       p, name, 8 * j, p, j + 1, 8 * j);
	sb_add(b, ") >> (%s & 7)) & ((1 << c.%s_bits) - 1) END)", p, name);
}

/* The value: the base and the packed distance (one more, 0 for NULL, when nullable). */
static void sql_value(struct sbuf *b, const struct ra_chunk_table *t, int col)
{
	const char *name = t->names[col];

	if (col == RA_RA_SEQ) {
		sb_add(b, "c.seq_first + ");
		sql_packed(b, name);
		return;
	}
	sb_add(b, nullable(t, col) ? "(c.%s_base + (NULLIF(" : "(c.%s_base + (", name);
	sql_packed(b, name);
	sb_add(b, nullable(t, col) ? ", 0) - 1))" : "))");
}

char *ra_chunk_view_sql(const struct ra_chunk_table *t)
{
	struct sbuf b = {0};

	/* CAST gives each column the affinity of the table's column (12 = '12') */
	sb_add(&b, "CREATE VIEW %s AS\n  SELECT ", t->view);
	for (int i = 0; i < t->ncols; i++) {
		sb_add(&b, i ? ",\n    " : "");
		if (i == RA_RA_RUN) {
			sb_add(&b, "c.run_id AS run_id");
		} else if (is_text(t, i)) {
			/* length, then 7 bits a character: computed once in its own subquery */
			sb_add(&b, "CAST((SELECT NULLIF(substr(char(");
			for (int j = 0; j < RA_RWBS_CHARS; j++)
				sb_add(&b, "%s(x.v >> %d) & 127", j ? ", " : "", 3 + 7 * j);
			sb_add(&b, "), 1, x.v & 7), '') FROM (SELECT ");
			sql_value(&b, t, i);
			sb_add(&b, " AS v LIMIT 1 OFFSET 0) x) AS TEXT) AS %s", t->names[i]);
		} else {
			sb_add(&b, "CAST(");
			sql_value(&b, t, i);
			sb_add(&b, " AS INTEGER) AS %s", t->names[i]);
		}
	}
	sb_add(&b, "\n  FROM %s c JOIN chunk_slots s ON s.i < c.n JOIN chunk_bytes k;\n",
	       t->chunks);
	return sb_done(&b);
}

/*
 * The same view on a PostgreSQL server (lib/pgschema.c), in schema @schema:
 * each slot of each chunk (generate_series), its values unpacked by the
 * schema's functions chunk_bits, chunk_value and chunk_text (lib/pgfuncs.c),
 * which read the bits as bits_get() does and add them to the base as a
 * uint64_t does.
 */
char *ra_chunk_view_pgsql(const struct ra_chunk_table *t, const char *schema)
{
	struct sbuf b = {0};

	sb_add(&b, "CREATE VIEW %s.%s AS\n  SELECT ", schema, t->view);
	for (int i = 0; i < t->ncols; i++) {
		const char *name = t->names[i];

		sb_add(&b, i ? ",\n    " : "");
		if (i == RA_RA_RUN) {
			sb_add(&b, "c.run_id AS run_id");
			continue;
		}
		if (i == RA_RA_SEQ) {
			sb_add(&b, "(c.seq_first + %s.chunk_bits(c.data, c.%s_at + s.i * c.%s_bits,"
			       " c.%s_bits))::bigint AS %s", schema, name, name, name, name);
			continue;
		}
		sb_add(&b, is_text(t, i) ? "%s.chunk_text(" : "(", schema);
		sb_add(&b, "%s.chunk_value(c.%s_base, %s.chunk_bits(c.data, c.%s_at + s.i * c.%s_bits,"
		       " c.%s_bits), %s)) AS %s", schema, name, schema, name, name, name,
		       nullable(t, i) ? "true" : "false", name);
	}
	sb_add(&b, "\n  FROM %s.%s c CROSS JOIN LATERAL generate_series(0, c.n - 1) AS s(i)",
	       schema, t->chunks);
	return sb_done(&b);
}

/* ---- packing -------------------------------------------------------------- */

/* What a column of a chunk row holds besides its packed values. */
struct meta {
	int64_t base;
	bool has_base;
	int bits;
	int64_t at;
};

static int width(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

static void bits_put(unsigned char *data, int64_t at, uint64_t v)
{
	uint64_t w;

	memcpy(&w, data + (at >> 3), 8);
	w = htole64(le64toh(w) | v << (at & 7));
	memcpy(data + (at >> 3), &w, 8);
}

static uint64_t bits_get(const unsigned char *data, int64_t at, int bits)
{
	uint64_t w;

	memcpy(&w, data + (at >> 3), 8);
	return (le64toh(w) >> (at & 7)) & ((UINT64_C(1) << bits) - 1);
}

/* The distance of a value from the base as packed; 0 is NULL in a nullable column. */
static uint64_t packed(const struct ra_chunk_row *r, int col, const struct meta *m, bool null_ok)
{
	if (!r->set[col])
		return 0;
	return (uint64_t)r->v[col] - (uint64_t)m->base + (null_ok ? 1 : 0);
}

/* The bits a column's values take: for values from @lo to @hi (@any: some are set). */
static int col_bits(bool null_ok, bool any, int64_t lo, int64_t hi)
{
	if (!any)
		return 0;
	if (null_ok && (uint64_t)hi - (uint64_t)lo == UINT64_MAX)
		return 65;
	return width((uint64_t)hi - (uint64_t)lo + (null_ok ? 1 : 0));
}

/* Pack rows [from, from + n) into @data: its length, or -1 when a column needs more bits. */
static int pack(const struct ra_chunk *ch, int from, int n, struct meta *m, unsigned char *data)
{
	const struct ra_chunk_table *t = ch->t;
	const struct ra_chunk_row *rows = ch->rows + from;
	bool whole = from == 0 && n == ch->n;	/* all its rows: their range is known */
	int packing[RA_CHUNK_COLS], np = 0;
	int64_t at = 0;

	for (int c = 0; c < t->ncols; c++) {
		int64_t hi = whole && ch->any[c] ? ch->hi[c] : 0;

		if (c == RA_RA_RUN)
			continue;
		m[c].has_base = whole && ch->any[c];
		m[c].base = m[c].has_base ? ch->lo[c] : 0;
		for (int i = 0; i < n && !whole; i++) {
			if (!rows[i].set[c])
				continue;
			if (!m[c].has_base || rows[i].v[c] < m[c].base)
				m[c].base = rows[i].v[c];
			if (!m[c].has_base || rows[i].v[c] > hi)
				hi = rows[i].v[c];
			m[c].has_base = true;
		}
		if (c == RA_RA_SEQ)
			m[c].base = rows[0].v[c];
		m[c].bits = col_bits(nullable(t, c), m[c].has_base, m[c].base, hi);
		if (m[c].bits > RA_CHUNK_BITS)
			return -1;
		m[c].at = at;
		at += (int64_t)n * m[c].bits;
	}
	memset(data, 0, (size_t)(at + 7) / 8 + 8);
	/* row by row: each row's values are read together (the data is small) */
	for (int c = 0; c < t->ncols; c++)
		if (c != RA_RA_RUN && m[c].bits)
			packing[np++] = c;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < np; k++) {
			int c = packing[k];

			bits_put(data, m[c].at + (int64_t)i * m[c].bits,
				 packed(&rows[i], c, &m[c], nullable(t, c)));
		}
	return (int)((at + 7) / 8);
}

static int store_rows(sqlite3_stmt *ins, struct ra_chunk *ch, int from, int n)
{
	struct meta m[RA_CHUNK_COLS];
	const struct ra_chunk_table *t = ch->t;
	int len = pack(ch, from, n, m, ch->data), p = 1;

	if (len < 0) { /* a column too wide: in halves (one row always fits) */
		int half = n / 2;

		return store_rows(ins, ch, from, half) < 0
			       ? -1
			       : store_rows(ins, ch, from + half, n - half);
	}
	sqlite3_bind_int64(ins, p++, ch->rows[from].v[RA_RA_SEQ]);
	sqlite3_bind_int64(ins, p++, ch->run_id);
	sqlite3_bind_int64(ins, p++, ch->rows[from + n - 1].v[RA_RA_SEQ]);
	sqlite3_bind_int(ins, p++, n);
	for (int c = 0; c < t->ncols; c++) {
		if (c == RA_RA_RUN)
			continue;
		if (c != RA_RA_SEQ && m[c].has_base)
			sqlite3_bind_int64(ins, p++, m[c].base);
		else if (c != RA_RA_SEQ)
			sqlite3_bind_null(ins, p++);
		sqlite3_bind_int(ins, p++, m[c].bits);
		sqlite3_bind_int64(ins, p++, m[c].at);
	}
	sqlite3_bind_blob(ins, p, ch->data, len, SQLITE_STATIC);
	if (sqlite3_step(ins) != SQLITE_DONE) {
		sqlite3_reset(ins);
		return -1;
	}
	sqlite3_reset(ins);
	return 0;
}

static void chunk_reset(struct ra_chunk *ch)
{
	ch->n = 0;
	memset(ch->any, 0, sizeof(ch->any));
	ch->rowbits = 0;
	/* the header's length, the blob's type, four columns, three a packed column */
	ch->meta = 3 + 3 + 4 * (1 + 8) + 3 * 3 * (ch->t ? ch->t->ncols - 1 : 0);
}

int ra_chunk_store(sqlite3_stmt *ins, struct ra_chunk *ch)
{
	int ret = ch->n ? store_rows(ins, ch, 0, ch->n) : 0;

	chunk_reset(ch);
	return ret;
}

void ra_chunk_begin(struct ra_chunk *ch, const struct ra_chunk_table *t, int page_size)
{
	ch->t = t;
	/* a table b-tree leaf keeps a record of up to the usable size less 35 bytes */
	ch->limit = (page_size >= 512 && page_size <= 65536 ? page_size : 4096) - 35;
	chunk_reset(ch);
}

/* The bytes of an integer in a record (SQLite's serial types of file format 4). */
static int int_bytes(int64_t v)
{
	if (v == 0 || v == 1)
		return 0;
	if (v >= -128 && v <= 127)
		return 1;
	if (v >= -32768 && v <= 32767)
		return 2;
	if (v >= -8388608 && v <= 8388607)
		return 3;
	if (v >= INT32_MIN && v <= INT32_MAX)
		return 4;
	if (v >= -(INT64_C(1) << 47) && v < (INT64_C(1) << 47))
		return 6;
	return 8;
}

/* The bits of a column of values from @lo to @hi (0 for one stored apart anyway). */
static int span_bits(const struct ra_chunk_table *t, int c, int64_t lo, int64_t hi)
{
	int b = c == RA_RA_SEQ ? width((uint64_t)hi - (uint64_t)lo)
			       : col_bits(nullable(t, c), true, lo, hi);

	return b > RA_CHUNK_BITS ? 0 : b;
}

/*
 * Add @row, the chunk's record kept within its limit: the record's bytes, at
 * most, are its header (a byte a column, the blob's length in three), the
 * four first columns, three a packed column and its base, and the bits of
 * the rows; a column's width changes only with a value outside its range.
 */
int ra_chunk_add(sqlite3_stmt *ins, struct ra_chunk *ch, int64_t run_id,
		 const struct ra_chunk_row *row)
{
	const struct ra_chunk_table *t = ch->t;
	int changed[RA_CHUNK_COLS], nch = 0, nbits[RA_CHUNK_COLS];
	int64_t nlo[RA_CHUNK_COLS], nhi[RA_CHUNK_COLS], rowbits = ch->rowbits, meta = ch->meta;

	if (ch->n && (ch->n == RA_CHUNK_EVENTS || run_id != ch->run_id) &&
	    ra_chunk_store(ins, ch) < 0)
		return -1;
	for (int c = 0; c < t->ncols; c++) {
		int64_t v = row->v[c];

		if (c == RA_RA_RUN || !row->set[c] ||
		    (ch->any[c] && v >= ch->lo[c] && v <= ch->hi[c]))
			continue;
		nlo[c] = ch->any[c] && ch->lo[c] < v ? ch->lo[c] : v;
		nhi[c] = ch->any[c] && ch->hi[c] > v ? ch->hi[c] : v;
		nbits[c] = span_bits(t, c, nlo[c], nhi[c]);
		rowbits += nbits[c] - (ch->any[c] ? ch->bits[c] : 0);
		if (c != RA_RA_SEQ)
			meta += int_bytes(nlo[c]) - (ch->any[c] ? int_bytes(ch->lo[c]) : 0);
		changed[nch++] = c;
	}
	if (ch->n && meta + ((int64_t)(ch->n + 1) * rowbits + 7) / 8 > ch->limit) {
		if (ra_chunk_store(ins, ch) < 0)
			return -1;
		return ra_chunk_add(ins, ch, run_id, row);
	}
	for (int k = 0; k < nch; k++) {
		int c = changed[k];

		ch->lo[c] = nlo[c];
		ch->hi[c] = nhi[c];
		ch->bits[c] = nbits[c];
		ch->any[c] = true;
	}
	ch->rowbits = rowbits;
	ch->meta = meta;
	ch->run_id = run_id;
	ch->rows[ch->n++] = *row;
	return 0;
}

/* ---- unpacking ------------------------------------------------------------ */

static int damaged(struct ra_chunk *ch, const char *path, int64_t seq, const char *why)
{
	ra_set_error(RA_ERR_DATA, "'%s': the %s chunk at seq %lld is damaged: %s", path,
		     ch->t->view, (long long)seq, why);
	return -1;
}

static bool int_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_INTEGER;
}

/* What a chunk row says of a column's packed values */
struct col_meta {
	uint64_t base;		/* the value of a packed 0 (less one where 0 is NULL) */
	int64_t at;
	int bits;
	bool has_base, null_ok;
};

int ra_chunk_load(sqlite3_stmt *st, struct ra_chunk *ch, const char *path)
{
	struct col_meta cm[RA_CHUNK_COLS];
	unsigned char *data = ch->data;
	const struct ra_chunk_table *t = ch->t;
	int64_t seq = sqlite3_column_int64(st, 0), n = sqlite3_column_int64(st, 3);
	int ncol = sqlite3_column_count(st), p = 4, len;

	ch->n = 0;
	if (!int_col(st, 0) || !int_col(st, 1) || !int_col(st, 3))
		return damaged(ch, path, seq, "seq_first, run_id or n is not an integer");
	if (n < 1 || n > RA_CHUNK_EVENTS)
		return damaged(ch, path, seq, "n is out of range");
	len = sqlite3_column_bytes(st, ncol - 1);
	if (len < 0 || len > RA_CHUNK_DATA - 8)
		return damaged(ch, path, seq, "data is too long");
	memset(data, 0, (size_t)len + 8);
	if (len)
		memcpy(data, sqlite3_column_blob(st, ncol - 1), (size_t)len);
	ch->run_id = sqlite3_column_int64(st, 1);
	for (int c = 0; c < t->ncols; c++) {
		bool null_ok = nullable(t, c), has_base = true;
		int64_t base = 0, bits, at;

		cm[c].bits = 0;
		if (c == RA_RA_RUN)
			continue;
		if (c == RA_RA_SEQ) {
			base = seq;
		} else {
			has_base = int_col(st, p);
			if (!has_base && sqlite3_column_type(st, p) != SQLITE_NULL)
				return damaged(ch, path, seq, "a base is not an integer");
			if (!has_base && !null_ok)
				return damaged(ch, path, seq, "a NOT NULL column has no base");
			base = sqlite3_column_int64(st, p++);
		}
		bits = sqlite3_column_int64(st, p);
		at = sqlite3_column_int64(st, p + 1);
		if (!int_col(st, p) || !int_col(st, p + 1) || bits < 0 || bits > RA_CHUNK_BITS ||
		    at < 0)
			return damaged(ch, path, seq, "a column's bits are out of range");
		if (at > (int64_t)len * 8 || at + n * bits > (int64_t)len * 8)
			return damaged(ch, path, seq, "a column runs past the data");
		p += 2;
		cm[c] = (struct col_meta){ .base = (uint64_t)base - (null_ok ? 1 : 0), .at = at,
					   .bits = (int)bits, .has_base = has_base,
					   .null_ok = null_ok };
	}
	/* row by row: a row's values are written together, each column read in turn */
	for (int i = 0; i < n; i++) {
		struct ra_chunk_row *r = &ch->rows[i];

		r->v[RA_RA_RUN] = ch->run_id;
		r->set[RA_RA_RUN] = true;
		for (int c = 0; c < t->ncols; c++) {
			const struct col_meta *m = &cm[c];
			uint64_t d;

			if (c == RA_RA_RUN)
				continue;
			d = m->bits ? bits_get(data, m->at + i * m->bits, m->bits) : 0;
			r->set[c] = m->has_base && (!m->null_ok || d != 0);
			r->v[c] = r->set[c] ? (int64_t)(m->base + d) : 0;
		}
	}
	ch->n = (int)n;
	return 0;
}

/* ---- version 10: the event tables' rows into chunks ----------------------- */

/* (db.c's helpers call this file: these are its own) */
static int fail(struct ra_db *db, const char *what)
{
	ra_set_error(RA_ERR_IO, "%s '%s': %s", what, db->path, sqlite3_errmsg(db->db));
	return -1;
}

static sqlite3_stmt *prepare(struct ra_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK) {
		fail(db, "cannot read");
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

static int exec(struct ra_db *db, const char *sql)
{
	return sqlite3_exec(db->db, sql, NULL, NULL, NULL) == SQLITE_OK
		       ? 0
		       : fail(db, "cannot upgrade the schema of");
}

int ra_chunk_page_size(struct ra_db *db)
{
	sqlite3_stmt *st = NULL;
	int size = 4096;

	if (sqlite3_prepare_v2(db->db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		size = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return size;
}

static int exec_owned(struct ra_db *db, char *sql)
{
	int ret = sql ? exec(db, sql) : -1;

	free(sql);
	return ret;
}

/* whether @name is a table (not a view) of the file */
static int is_table(struct ra_db *db, const char *name)
{
	sqlite3_stmt *st = prepare(db, "SELECT COUNT(*) FROM sqlite_master"
				       " WHERE type = 'table' AND name = ?1");
	int ret = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		ret = sqlite3_column_int(st, 0) > 0;
	else
		fail(db, "cannot read the schema of");
	sqlite3_finalize(st);
	return ret;
}

/* A row of a version 9 table as the reader of then saw it. */
static void old_row(sqlite3_stmt *sel, const struct ra_chunk_table *t, struct ra_chunk_row *r)
{
	for (int i = 0; i < t->ncols; i++) {
		bool null = sqlite3_column_type(sel, i) == SQLITE_NULL;

		if (is_text(t, i)) {
			const unsigned char *s = sqlite3_column_text(sel, i);

			put(r, i, !null && s && s[0], s ? text_pack((const char *)s, 64) : 0);
		} else if (null && !nullable(t, i)) {
			put(r, i, true, i > RA_RA_EVENT ? t->cols[i].null : 0);
		} else {
			put(r, i, !null, sqlite3_column_int64(sel, i));
		}
	}
}

static int convert(struct ra_db *db, const struct ra_chunk_table *t, struct ra_chunk *ch,
		   int page_size)
{
	struct sbuf b = {0};
	sqlite3_stmt *sel = NULL, *ins = NULL;
	char *sql;
	int rc = SQLITE_DONE, ret = -1;

	sb_add(&b, "SELECT ");
	for (int i = 0; i < t->ncols; i++)
		sb_add(&b, "%s%s", i ? ", " : "", t->names[i]);
	sb_add(&b, " FROM %s ORDER BY seq", t->view);
	sql = sb_done(&b);
	sel = sql ? prepare(db, sql) : NULL;
	free(sql);
	sql = sel ? ra_chunk_insert_sql(t) : NULL;
	ins = sql ? prepare(db, sql) : NULL;
	free(sql);
	if (!ins)
		goto out;
	ra_chunk_begin(ch, t, page_size);
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		struct ra_chunk_row r;

		old_row(sel, t, &r);
		if (ra_chunk_add(ins, ch, r.v[RA_RA_RUN], &r) < 0)
			break;
	}
	if (rc == SQLITE_DONE && ra_chunk_store(ins, ch) == 0)
		ret = 0;
	else
		fail(db, "cannot pack the events of");
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return ret;
}

int ra_chunk_upgrade(struct ra_db *db)
{
	struct ra_chunk *ch = malloc(sizeof(*ch));
	int page_size = ra_chunk_page_size(db), ret = -1;

	if (!ch) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const struct ra_chunk_table *t = ra_chunk_table(tables[i].cls);
		char drop[64];
		int old = is_table(db, t->view);

		snprintf(drop, sizeof(drop), "DROP TABLE %s;", t->view);
		if (old < 0 || exec_owned(db, ra_chunk_create_sql(t)) < 0 ||
		    (old && (convert(db, t, ch, page_size) < 0 || exec(db, drop) < 0)))
			goto out;
	}
	ret = 0;
out:
	free(ch);
	return ret;
}

int ra_chunk_views(struct ra_db *db, bool make)
{
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const struct ra_chunk_table *t = ra_chunk_table(tables[i].cls);
		char drop[64];

		int table = make ? 0 : is_table(db, t->view);

		snprintf(drop, sizeof(drop), "DROP VIEW IF EXISTS %s;", t->view);
		if (table < 0 || (make && exec_owned(db, ra_chunk_view_sql(t)) < 0) ||
		    (!make && !table && exec(db, drop) < 0))
			return -1;
	}
	return 0;
}
