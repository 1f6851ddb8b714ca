// SPDX-License-Identifier: LGPL-2.1
/*
 * Records of fixed size by id, for a pass that keeps one per window: at most
 * a set number in memory, the least recently used of them (a clock) written
 * to a temporary table of the pass's connection to make room, and read back
 * when the pass asks for it again. The memory stays what the set holds,
 * whatever the run's length; a run that needs no more never writes one.
 *
 * A record is written as it is in memory: it may hold pointers to constant
 * strings, as the table lives only as long as the pass.
 *
 * A pass whose records end as rows of its own can keep them as they are
 * written out (ra_slots_keep): a record whose final row is stored then is
 * not given again at the end, unless it changes after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"
#include "ra_sql.h"

#define PINNED 4

struct ra_slots {
	struct ra_db *db;
	char table[48];
	size_t size;			/* of a record */
	size_t stride;			/* of a slot: the id, the clock's bit, the record */
	char *mem;
	int n, cap, max, hand;
	int pinned[PINNED];		/* the slots given last, a ring: not taken */
	int npinned;
	struct ra_map at;		/* id + 1 -> slot */
	struct ra_stmt *out, *in;
	int (*keep)(int64_t id, void *rec, void *arg);
	void *keep_arg;
	int64_t made;			/* ids below it were made */
	bool spilled, failed;
};

struct slot_head {
	int64_t id;
	bool ref;			/* used since the clock's hand last passed */
	bool dirty;			/* changed since the table's copy (or new) */
};

#define HEAD(s, i) ((struct slot_head *)((s)->mem + (size_t)(i) * (s)->stride))
#define REC(s, i) ((void *)((s)->mem + (size_t)(i) * (s)->stride + sizeof(struct slot_head)))

struct ra_slots *ra_slots_new(struct ra_db *db, const char *table, size_t size, int max)
{
	struct ra_slots *s = calloc(1, sizeof(*s));

	if (!s || ra_map_init(&s->at, sizeof(int)) < 0) {
		free(s);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	/*
	 * A table of its own: a set that follows a run and gives up may leave
	 * one behind while another reads the same run again (a table cannot be
	 * dropped while the other's statements read)
	 */
	static unsigned int sets;

	s->db = db;
	snprintf(s->table, sizeof(s->table), "%s_%u", table,
		 __atomic_add_fetch(&sets, 1, __ATOMIC_RELAXED));
	s->size = size;
	s->stride = (sizeof(struct slot_head) + size + 7) & ~(size_t)7;
	s->max = max > PINNED ? max : PINNED + 1;
	return s;
}

static void stmts_end(struct ra_slots *s)
{
	ra_sql_finalize(s->out);
	ra_sql_finalize(s->in);
	s->out = s->in = NULL;
}

/* @head, the table's name, @tail: a statement on the table */
static const char *table_sql(const struct ra_slots *s, const char *head, const char *tail,
			     char *sql, size_t len)
{
	snprintf(sql, len, "%stemp.%s%s", head, s->table, tail);
	return sql;
}

static int table_exec(struct ra_slots *s, const char *head, const char *tail)
{
	char sql[160];

	return ra_sql_exec(s->db, table_sql(s, head, tail, sql, sizeof(sql)), "");
}

static struct ra_stmt *table_stmt(struct ra_slots *s, const char *head, const char *tail)
{
	char sql[160];

	return ra_sql_prepare(s->db, table_sql(s, head, tail, sql, sizeof(sql)));
}

void ra_slots_free(struct ra_slots *s)
{
	if (!s)
		return;
	stmts_end(s);
	if (s->spilled)
		table_exec(s, "DROP TABLE IF EXISTS ", "");
	free(s->mem);
	ra_map_release(&s->at);
	free(s);
}

void ra_slots_detach(struct ra_slots *s)
{
	if (!s)
		return;
	stmts_end(s);
	s->failed = true;	/* its table is dropped when it is freed */
}

bool ra_slots_failed(const struct ra_slots *s)
{
	return s->failed;
}

bool ra_slots_spilled(const struct ra_slots *s)
{
	return s->spilled;
}

/* The table, made when the first record is written out. */
static int spill_begin(struct ra_slots *s)
{
	char sql[160];

	/* the records not kept are found without reading the others */
	snprintf(sql, sizeof(sql), "CREATE INDEX temp.%s_left ON %s (id) WHERE NOT kept",
		 s->table, s->table);
	if (table_exec(s, "DROP TABLE IF EXISTS ", "") < 0 ||
	    table_exec(s, "CREATE TABLE ", " (id INTEGER PRIMARY KEY, r BLOB NOT NULL,"
		       " kept INTEGER NOT NULL)") < 0 ||
	    (s->keep && ra_sql_exec(s->db, sql, "") < 0))
		return -1;
	s->out = table_stmt(s, "INSERT OR REPLACE INTO ", " VALUES (?1, ?2, ?3)");
	s->in = table_stmt(s, "SELECT r FROM ", " WHERE id = ?1");
	s->spilled = true;
	return s->out && s->in ? 0 : -1;
}

static int slot_out(struct ra_slots *s, int slot)
{
	int kept = 0;

	if ((!s->spilled && spill_begin(s) < 0) ||
	    (s->keep && (kept = s->keep(HEAD(s, slot)->id, REC(s, slot), s->keep_arg)) < 0))
		return -1;
	return ra_sql_put(s->out, "ibx", HEAD(s, slot)->id, REC(s, slot), s->size, kept > 0);
}

void ra_slots_keep(struct ra_slots *s, int (*keep)(int64_t id, void *rec, void *arg),
		   void *arg)
{
	s->keep = keep;
	s->keep_arg = arg;
}

/*
 * @fn on the records of the table's rows @where (in id order) but those in
 * memory when @skip_held, each copied into @rec
 */
static int table_each(struct ra_slots *s, const char *where, bool skip_held, void *rec,
		      int (*fn)(int64_t id, void *rec, void *arg), void *arg)
{
	struct ra_stmt *q = table_stmt(s, "SELECT id, r FROM ", where);
	int ret = q ? 0 : -1, rc;

	while (ret == 0 && (rc = ra_sql_step(q)) != 0) {
		const void *blob = NULL;
		size_t len = 0;
		int64_t id = -1;

		if (rc < 0) {
			ret = -1;
			break;
		}
		ra_sql_row(q, "ib", &id, &blob, &len);
		if (len != s->size) {
			ra_set_error(RA_ERR_IO, "record %lld of %s was not kept", (long long)id,
				     s->table);
			ret = -1;
			break;
		}
		if (skip_held && ra_map_get(&s->at, (uint64_t)id + 1))
			continue;
		memcpy(rec, blob, len);
		ret = fn(id, rec, arg);
	}
	ra_sql_finalize(q);
	return ret;
}

static bool pinned(const struct ra_slots *s, int slot)
{
	for (int i = 0; i < PINNED && i < s->npinned; i++)
		if (s->pinned[i] == slot)
			return true;
	return false;
}

static void pin(struct ra_slots *s, int slot)
{
	HEAD(s, slot)->ref = true;
	s->pinned[s->npinned++ % PINNED] = slot;
}

/* A free slot: a new one up to the set's size, then the clock's choice, written out. */
static int slot_take(struct ra_slots *s)
{
	if (s->n < s->max) {
		if (s->n == s->cap) {
			int cap = s->cap ? s->cap * 2 : 64;
			char *p;

			cap = cap < s->max ? cap : s->max;
			p = realloc(s->mem, (size_t)cap * s->stride);
			if (!p) {
				ra_set_error(RA_ERR_IO, "out of memory");
				return -1;
			}
			s->mem = p;
			s->cap = cap;
		}
		return s->n++;
	}
	for (;;) {
		int slot = s->hand;

		s->hand = (s->hand + 1) % s->n;
		if (pinned(s, slot))
			continue;
		if (HEAD(s, slot)->ref) {
			HEAD(s, slot)->ref = false;
			continue;
		}
		if (HEAD(s, slot)->dirty && slot_out(s, slot) < 0)
			return -1;
		ra_map_del(&s->at, (uint64_t)HEAD(s, slot)->id + 1);
		return slot;
	}
}

static int slot_map(struct ra_slots *s, int slot, int64_t id)
{
	bool fresh;
	int *at = ra_map_put(&s->at, (uint64_t)id + 1, &fresh);

	if (!at) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	*at = slot;
	HEAD(s, slot)->id = id;
	pin(s, slot);
	return 0;
}

void *ra_slots_make(struct ra_slots *s, int64_t id)
{
	int slot;

	if (id != s->made) {
		ra_set_error(RA_ERR_USAGE, "record %lld of %s made out of order", (long long)id,
			     s->table);
		s->failed = true;
		return NULL;
	}
	slot = slot_take(s);
	if (slot < 0 || slot_map(s, slot, id) < 0) {
		s->failed = true;
		return NULL;
	}
	s->made++;
	HEAD(s, slot)->dirty = true;
	memset(REC(s, slot), 0, s->size);
	return REC(s, slot);
}

static void *lookup(struct ra_slots *s, int64_t id, bool change)
{
	const int *at = ra_map_get(&s->at, (uint64_t)id + 1);
	const void *blob = NULL;
	size_t len = 0;
	int slot, rc;

	if (at) {
		pin(s, *at);
		HEAD(s, *at)->dirty |= change;
		return REC(s, *at);
	}
	if (id < 0 || id >= s->made)
		return NULL;
	/* made, not in memory: written out */
	slot = s->spilled ? slot_take(s) : -1;
	if (slot < 0 || ra_sql_bind(s->in, "i", id) < 0 || (rc = ra_sql_step(s->in)) < 0)
		goto fail;
	if (rc)
		ra_sql_row(s->in, "b", &blob, &len);
	if (!rc || len != s->size) {
		ra_sql_reset(s->in);
		ra_set_error(RA_ERR_IO, "record %lld of %s was not kept", (long long)id, s->table);
		goto fail;
	}
	memcpy(REC(s, slot), blob, len);
	ra_sql_reset(s->in);
	if (slot_map(s, slot, id) < 0)
		goto fail;
	HEAD(s, slot)->dirty = change;
	return REC(s, slot);
fail:
	s->failed = true;
	return NULL;
}

void *ra_slots_get(struct ra_slots *s, int64_t id)
{
	return lookup(s, id, true);
}

const void *ra_slots_peek(struct ra_slots *s, int64_t id)
{
	return lookup(s, id, false);
}

int ra_slots_each(struct ra_slots *s, int (*fn)(int64_t id, void *rec, void *arg), void *arg)
{
	void *rec;
	int ret = 0;

	if (!s->spilled) {	/* slot i holds record i */
		for (int i = 0; i < s->n && ret == 0; i++)
			ret = fn(HEAD(s, i)->id, REC(s, i), arg);
		return ret;
	}
	if (s->keep) {
		/* the records not kept (those in memory have newer copies), then
		 * those in memory; the slots stay as they are */
		if (!(rec = malloc(s->size))) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		ret = table_each(s, " WHERE NOT kept ORDER BY id", true, rec, fn, arg);
		free(rec);
		for (int i = 0; i < s->n && ret == 0; i++)
			ret = fn(HEAD(s, i)->id, REC(s, i), arg);
		return ret;
	}
	for (int i = 0; i < s->n && ret == 0; i++)
		if (HEAD(s, i)->dirty && ra_map_get(&s->at, (uint64_t)HEAD(s, i)->id + 1))
			ret = slot_out(s, i);
	/* slot 0 is the scratch: all is written out */
	if (ret == 0)
		ret = table_each(s, " ORDER BY id", false, REC(s, 0), fn, arg);
	/* every record is in the table now: the slots are free */
	for (int i = 0; i < s->n; i++)
		ra_map_del(&s->at, (uint64_t)HEAD(s, i)->id + 1);
	s->n = s->npinned = s->hand = 0;
	return ret;
}
