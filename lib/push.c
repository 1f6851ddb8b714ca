// SPDX-License-Identifier: LGPL-2.1
/*
 * Pushing runs to a PostgreSQL server (ra_push.h). Each run goes in one
 * transaction: its runs row first, and its row of pushes with its identity,
 * which is unique: when the server has a run of that identity the
 * transaction ends there. Then the rows of every table of the schema that
 * has a run_id, copied with COPY in PostgreSQL's binary format, with the
 * server's run id in place of the file's; with the events, each event
 * table's chunks go into a table of the run's own that becomes a partition
 * of it when the run commits. A value is never written into SQL: what a
 * database holds (a label, a path, a task's name) reaches the server as
 * data only.
 *
 * A run's identity is what makes it one run whatever file it is pushed
 * from: its host, start, origin, files and trace times; for a what-if run
 * (whatif), its source's identity and what it replayed too.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_local.h"
#include "pg_local.h"
#include "pgschema.h"
#include "ra_push.h"
#include "ra_version.h"

/* Columns that hold a run id of the same database: mapped to the server's. */
static const struct {
	const char *table, *col;
} run_refs[] = {
	{ "model_runs", "member" },
	{ "whatif", "source_run_id" },
};

/* A run of the file: its ids, here and on the server. */
struct run {
	int64_t id;		/* in the file */
	int64_t pg;		/* on the server: its own, or one reserved for it */
	int64_t seq_first, seq_last;
	bool present;		/* the server had it */
	char *identity;
};

struct push {
	PGconn *conn;
	const char *shown;
	const struct ra_pg_schema *schema;
	const struct ra_push_opts *o;
	struct ra_push_result *res;
	struct ra_db *src;
	const char *file;	/* as given */
	char *path;		/* absolute */
	char host[256];
	struct run *runs;
	int nruns;
	char *buf;		/* a COPY's data on its way */
	size_t len, cap;
};

static void say(const struct push *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const struct push *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!p->o->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->o->notice(msg, p->o->arg);
}

static int64_t map_run(const struct push *p, int64_t id)
{
	for (int i = 0; i < p->nruns; i++)
		if (p->runs[i].id == id)
			return p->runs[i].pg;
	return id;	/* not a run of the file: as it is */
}

/* ---- COPY in binary ---- */

static int put(struct push *p, const void *data, size_t n)
{
	if (p->len + n > p->cap) {
		size_t cap = (p->cap ? p->cap * 2 : 1 << 16) + n;
		char *b = realloc(p->buf, cap);

		if (!b)
			return -1;
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, data, n);
	p->len += n;
	return 0;
}

static int put_u16(struct push *p, int v)
{
	unsigned char b[2] = { (unsigned char)(v >> 8), (unsigned char)v };

	return put(p, b, 2);
}

static int put_u32(struct push *p, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 8), (unsigned char)v };

	return put(p, b, 4);
}

static int put_u64(struct push *p, uint64_t v)
{
	return put_u32(p, (uint32_t)(v >> 32)) || put_u32(p, (uint32_t)v) ? -1 : 0;
}

/* Send what the buffer holds once it is large. */
static int flush(struct push *p, bool all)
{
	if (!p->len || (!all && p->len < (1 << 20)))
		return 0;
	if (PQputCopyData(p->conn, p->buf, (int)p->len) != 1) {
		ra_set_error(RA_ERR_IO, "'%s': %s", p->shown, ra_pg_why(p->conn, NULL));
		return -1;
	}
	p->len = 0;
	return 0;
}

/* A value that does not fit its column: the run is refused, its values shown escaped. */
static int bad_value(const struct push *p, const struct run *r, const struct ra_pg_table *t,
		     const struct ra_pg_col *c)
{
	ra_set_error(RA_ERR_DATA, "run %lld of '%s': %s.%s holds a value that is not %s",
		     (long long)r->id, p->file, t->name, c->name,
		     c->type == 'i' ? "an integer" : "a number");
	return -1;
}

/* Column @k of the row of @st as the binary value of column @c on the server. */
static int put_value(struct push *p, sqlite3_stmt *st, int k, const struct run *r,
		     const struct ra_pg_table *t, const struct ra_pg_col *c, bool ref)
{
	int type = sqlite3_column_type(st, k);
	const char *text;
	char num[32];
	double d;
	int64_t i;
	size_t n;

	if (strcmp(c->name, "run_id") == 0)
		return put_u32(p, 8) || put_u64(p, (uint64_t)r->pg) ? -1 : 0;
	if (type == SQLITE_NULL)
		return put_u32(p, UINT32_MAX);
	switch (c->type) {
	case 'i':
		if (type == SQLITE_FLOAT) {
			d = sqlite3_column_double(st, k);
			if (d != (double)(int64_t)d)
				return bad_value(p, r, t, c);
		} else if (type != SQLITE_INTEGER) {
			return bad_value(p, r, t, c);
		}
		i = sqlite3_column_int64(st, k);
		if (ref)
			i = map_run(p, i);
		return put_u32(p, 8) || put_u64(p, (uint64_t)i) ? -1 : 0;
	case 'r':
		if (type != SQLITE_FLOAT && type != SQLITE_INTEGER)
			return bad_value(p, r, t, c);
		d = sqlite3_column_double(st, k);
		memcpy(&i, &d, 8);
		return put_u32(p, 8) || put_u64(p, (uint64_t)i) ? -1 : 0;
	case 't':
		/* a real as SQLite writes it; a text up to a NUL, as ratrace reads it */
		if (type == SQLITE_FLOAT) {
			sqlite3_snprintf(sizeof(num), num, "%!.15g", sqlite3_column_double(st, k));
			text = num;
			n = strlen(num);
		} else {
			text = (const char *)sqlite3_column_text(st, k);
			n = text ? strnlen(text, (size_t)sqlite3_column_bytes(st, k)) : 0;
		}
		return put_u32(p, (uint32_t)n) || put(p, text, n) ? -1 : 0;
	default:
		text = sqlite3_column_blob(st, k);
		n = (size_t)sqlite3_column_bytes(st, k);
		return put_u32(p, (uint32_t)n) || put(p, text, n) ? -1 : 0;
	}
}

static bool is_ref(const struct ra_pg_table *t, const struct ra_pg_col *c)
{
	for (size_t i = 0; i < sizeof(run_refs) / sizeof(run_refs[0]); i++)
		if (strcmp(run_refs[i].table, t->name) == 0 && strcmp(run_refs[i].col, c->name) == 0)
			return true;
	return false;
}

/* "SELECT cols FROM t WHERE run_id = ?1" (the chunks: by their seqs), and the COPY. */
static int table_sql(const struct ra_pg_table *t, const char *dest, char **sel, char **copy)
{
	size_t sl = 0, cl = 0;
	FILE *s = open_memstream(sel, &sl), *c = open_memstream(copy, &cl);
	bool bad;

	if (!s || !c) {
		if (s)
			fclose(s);
		if (c)
			fclose(c);
		return -1;
	}
	fputs("SELECT ", s);
	fprintf(c, "COPY " RA_PG_SCHEMA ".\"%s\" (", dest);
	for (int i = 0; i < t->ncols; i++) {
		fprintf(s, "%s\"%s\"", i ? ", " : "", t->cols[i].name);
		fprintf(c, "%s\"%s\"", i ? ", " : "", t->cols[i].name);
	}
	fprintf(s, " FROM \"%s\" WHERE %srun_id = ?1", t->name,
		t->events ? "seq_first BETWEEN ?2 AND ?3 AND " : "");
	fputs(") FROM STDIN (FORMAT binary)", c);
	bad = fclose(s) != 0;
	bad |= fclose(c) != 0;	/* both closed, whatever the first gave */
	return bad ? -1 : 0;
}

static int copy_end(struct push *p, bool ok)
{
	PGresult *res;
	int ret = 0;

	if (ok && flush(p, true) < 0)
		ok = false;
	if (PQputCopyEnd(p->conn, ok ? NULL : "the push stopped") != 1)
		ok = false;
	while ((res = PQgetResult(p->conn))) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK && ret == 0) {
			if (ok)
				ra_set_error(RA_ERR_IO, "'%s': %s", p->shown, ra_pg_why(p->conn, res));
			ret = -1;
		}
		PQclear(res);
	}
	return ok ? ret : -1;
}

/* The rows of run @r of the file's table by @sel: a statement to step, or NULL. */
static sqlite3_stmt *run_rows(struct push *p, const struct run *r, const char *sel)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(ra_db_sqlite(p->src), sel, -1, &st, NULL) != SQLITE_OK) {
		ra_set_error(RA_ERR_DATA, "cannot read '%s': %s", p->file,
			     sqlite3_errmsg(ra_db_sqlite(p->src)));
		sqlite3_finalize(st);
		return NULL;
	}
	sqlite3_bind_int64(st, 1, r->id);
	sqlite3_bind_int64(st, 2, r->seq_first);
	sqlite3_bind_int64(st, 3, r->seq_last);
	return st;
}

/* @copy of the rows of @st, its first stepped already (@rc): their count, or -1. */
static int64_t send_rows(struct push *p, sqlite3_stmt *st, int rc, const struct run *r,
			 const struct ra_pg_table *t, const char *copy)
{
	static const char header[] = "PGCOPY\n\377\r\n";
	PGresult *res = PQexec(p->conn, copy);
	int64_t n = 0;
	bool ok;

	if (PQresultStatus(res) != PGRES_COPY_IN) {
		ra_set_error(RA_ERR_IO, "'%s': %s", p->shown, ra_pg_why(p->conn, res));
		PQclear(res);
		return -1;
	}
	PQclear(res);
	p->len = 0;
	ok = put(p, header, 11) == 0 && put_u32(p, 0) == 0 && put_u32(p, 0) == 0;
	for (; ok && rc == SQLITE_ROW; rc = sqlite3_step(st), n++) {
		ok = put_u16(p, t->ncols) == 0;
		for (int k = 0; ok && k < t->ncols; k++)
			ok = put_value(p, st, k, r, t, &t->cols[k], is_ref(t, &t->cols[k])) == 0;
		ok = ok && flush(p, false) == 0;
	}
	if (ok && rc != SQLITE_DONE) {
		ra_set_error(RA_ERR_DATA, "cannot read '%s': %s", p->file,
			     sqlite3_errmsg(ra_db_sqlite(p->src)));
		ok = false;
	}
	ok = ok && put_u16(p, 0xffff) == 0;
	return copy_end(p, ok) < 0 ? -1 : n;
}

/* The rows of @r in table @t of the file into table @dest on the server; the count or -1. */
static int64_t copy_rows(struct push *p, const struct run *r, const struct ra_pg_table *t,
			 const char *dest)
{
	char *sel = NULL, *copy = NULL;
	sqlite3_stmt *st = NULL;
	int64_t n = -1;
	int rc;

	if (table_sql(t, dest, &sel, &copy) < 0)
		ra_set_error(RA_ERR_IO, "out of memory");
	else if ((st = run_rows(p, r, sel)))
		/* a table without rows of the run costs the server nothing */
		n = (rc = sqlite3_step(st)) == SQLITE_DONE ? 0 : send_rows(p, st, rc, r, t, copy);
	sqlite3_finalize(st);
	free(sel);
	free(copy);
	return n;
}

/* ---- a run ---- */

static int exec_ok(struct push *p, const char *sql)
{
	return ra_pg_run(p->conn, p->shown, sql);
}

/* The run's runs row, copied as any table's: 0 or -1. */
static int insert_run(struct push *p, const struct run *r, const struct ra_pg_table *t)
{
	int64_t n = copy_rows(p, r, t, t->name);

	if (n == 1)
		return 0;
	if (n == 0)
		ra_set_error(RA_ERR_DATA, "cannot read run %lld of '%s'", (long long)r->id, p->file);
	return -1;
}

/* A run's events of one table: a table of their own, a partition once filled. */
static int64_t copy_events(struct push *p, const struct run *r, const struct ra_pg_table *t)
{
	char part[96], sql[512];
	int64_t n;

	snprintf(part, sizeof(part), "%s_r%lld", t->name, (long long)r->pg);
	snprintf(sql, sizeof(sql), "CREATE TABLE " RA_PG_SCHEMA ".\"%s\" (LIKE " RA_PG_SCHEMA
		 ".\"%s\" INCLUDING DEFAULTS INCLUDING STORAGE, CHECK (run_id = %lld))", part, t->name,
		 (long long)r->pg);
	if (exec_ok(p, sql) < 0 || (n = copy_rows(p, r, t, part)) < 0)
		return -1;
	if (n == 0)
		snprintf(sql, sizeof(sql), "DROP TABLE " RA_PG_SCHEMA ".\"%s\"", part);
	else
		snprintf(sql, sizeof(sql), "ALTER TABLE " RA_PG_SCHEMA ".\"%s\" ATTACH PARTITION "
			 RA_PG_SCHEMA ".\"%s\" FOR VALUES IN (%lld)", t->name, part,
			 (long long)r->pg);
	return exec_ok(p, sql) < 0 ? -1 : n;
}

/*
 * The run's row of pushes: where it came from, and its identity, which
 * makes it one run. 1, or 0 when the server has a run of that identity (a
 * push beside this one that committed first: this one waits for it here).
 */
static int claim(struct push *p, const struct run *r)
{
	char id[24], src[24];
	const char *values[7] = { id, p->host, p->path, src, RA_VERSION, p->o->events ? "t" : "f",
				  r->identity };
	PGresult *res;
	int ret;

	snprintf(id, sizeof(id), "%lld", (long long)r->pg);
	snprintf(src, sizeof(src), "%lld", (long long)r->id);
	res = PQexecParams(p->conn, "INSERT INTO " RA_PG_SCHEMA ".pushes (run_id, source_host,"
			   " source_file, source_run_id, tool_version, events, identity)"
			   " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (identity) DO NOTHING"
			   " RETURNING run_id", 7, NULL, values, NULL, NULL, 0);
	ret = PQresultStatus(res) == PGRES_TUPLES_OK ? PQntuples(res) : -1;
	if (ret < 0)
		ra_set_error(RA_ERR_IO, "'%s': %s", p->shown, ra_pg_why(p->conn, res));
	PQclear(res);
	return ret;
}

/* The rows of run @r in one transaction; 1 pushed, 0 there already, -1. */
static int push_run(struct push *p, const struct run *r)
{
	const struct ra_pg_schema *s = p->schema;
	int64_t rows = 1, chunks = 0;
	int rc;

	if (exec_ok(p, "BEGIN") < 0)
		return -1;
	rc = insert_run(p, r, ra_pg_schema_table(s, "runs")) < 0 ? -1 : claim(p, r);
	for (int i = 0; rc == 1 && i < s->n; i++) {
		const struct ra_pg_table *t = &s->t[i];
		int64_t n;

		if (!t->run || strcmp(t->name, "runs") == 0 || (t->events && !p->o->events) ||
		    (t->events && r->seq_first <= 0))
			continue;
		n = t->events ? copy_events(p, r, t) : copy_rows(p, r, t, t->name);
		if (n < 0)
			rc = -1;
		rows += n;
		chunks += t->events && n > 0 ? n : 0;
	}
	if (rc != 1) {
		PQclear(PQexec(p->conn, "ROLLBACK"));
		return rc;
	}
	if (exec_ok(p, "COMMIT") < 0)
		return -1;
	p->res->rows += rows;
	p->res->chunks += chunks;
	return 1;
}

/* ---- a database ---- */

static bool wanted(const struct ra_push_opts *o, int64_t id)
{
	if (!o->runs)
		return true;
	for (int i = 0; i < o->nruns; i++)
		if (o->runs[i] == id)
			return true;
	return false;
}

/* The server's id of the run of @identity, or 0. */
static int64_t lookup(struct push *p, const char *identity)
{
	const char *values[1] = { identity };
	PGresult *res = PQexecParams(p->conn, "SELECT run_id FROM " RA_PG_SCHEMA ".pushes"
				     " WHERE identity = $1", 1, NULL, values, NULL, NULL, 0);
	int64_t id = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		ra_set_error(RA_ERR_IO, "'%s': %s", p->shown, ra_pg_why(p->conn, res));
		id = -1;
	} else if (PQntuples(res) > 0) {
		id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	}
	PQclear(res);
	return id;
}

/* Columns @from.. of the row of @st, each as its length and text ("-" for NULL). */
static void put_fields(FILE *f, sqlite3_stmt *st, int from, int n)
{
	for (int i = from; i < from + n; i++) {
		const char *v = (const char *)sqlite3_column_text(st, i);

		if (v)
			fprintf(f, "%zu:%s;", strlen(v), v);
		else
			fputs("-;", f);
	}
}

/* The identity of run @id of the file (see the top of this file), malloc'd. */
static char *identity(struct push *p, int64_t id, int depth)
{
	sqlite3 *db = ra_db_sqlite(p->src);
	sqlite3_stmt *st = NULL;
	int64_t source = 0;
	size_t len = 0;
	char *out = NULL, *src;
	FILE *f = open_memstream(&out, &len);
	bool ok = f != NULL;

	if (ok && sqlite3_prepare_v2(db, "SELECT hostname, start_unix_ns, origin, origin_path,"
				     " trace_start_ns, trace_end_ns FROM runs WHERE run_id = ?1", -1,
				     &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		ok = sqlite3_step(st) == SQLITE_ROW;
		if (ok)
			put_fields(f, st, 0, 6);
	} else {
		ok = false;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* a what-if run: what it replayed, and of which run (a file of before version 11 has none) */
	if (ok && depth < 4 &&
	    sqlite3_prepare_v2(db, "SELECT source_run_id, series, policy, read_ahead_kb, window_kb"
			       " FROM whatif WHERE run_id = ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			source = sqlite3_column_int64(st, 0);
			fputs("whatif;", f);
			put_fields(f, st, 1, 4);
		}
	}
	sqlite3_finalize(st);
	if (ok && source) {
		src = identity(p, source, depth + 1);
		fprintf(f, "of(%s)", src ? src : "");
		ok = src != NULL;
		free(src);
	}
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok) {
		free(out);
		ra_set_error(RA_ERR_DATA, "cannot read run %lld of '%s': %s", (long long)id, p->file,
			     sqlite3_errmsg(db));
		return NULL;
	}
	return out;
}

/* Ids of the server's for the @absent runs of the file it has not, in the file's order. */
static int reserve(struct push *p, int absent)
{
	char count[16];
	const char *v[1] = { count };
	PGresult *res;
	int next = 0;

	snprintf(count, sizeof(count), "%d", absent);
	res = PQexecParams(p->conn, "SELECT nextval(pg_get_serial_sequence('" RA_PG_SCHEMA
			   ".runs', 'run_id')) FROM generate_series(1, $1::int)", 1, NULL, v, NULL,
			   NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != absent) {
		ra_set_error(RA_ERR_IO, "'%s': %s", p->shown, ra_pg_why(p->conn, res));
		PQclear(res);
		return -1;
	}
	for (int i = 0; i < p->nruns; i++)
		if (!p->runs[i].present)
			p->runs[i].pg = strtoll(PQgetvalue(res, next++, 0), NULL, 10);
	PQclear(res);
	return 0;
}

/*
 * The runs of the file, with the server's id of each: its own for a run it
 * has, a new one reserved (in the file's order) for the others.
 */
static int list_runs(struct push *p)
{
	sqlite3_stmt *st = NULL;
	int rc, absent = 0;

	if (sqlite3_prepare_v2(ra_db_sqlite(p->src), "SELECT run_id, COALESCE(seq_first, 0),"
			       " COALESCE(seq_last, -1) FROM runs ORDER BY run_id", -1, &st,
			       NULL) != SQLITE_OK) {
		ra_set_error(RA_ERR_DATA, "cannot read the runs of '%s': %s", p->file,
			     sqlite3_errmsg(ra_db_sqlite(p->src)));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct run *r = realloc(p->runs, (size_t)(p->nruns + 1) * sizeof(*r));

		if (!r)
			break;
		p->runs = r;
		r = &r[p->nruns++];
		*r = (struct run){ .id = sqlite3_column_int64(st, 0),
				   .seq_first = sqlite3_column_int64(st, 1),
				   .seq_last = sqlite3_column_int64(st, 2) };
		if (!(r->identity = identity(p, r->id, 0)) || (r->pg = lookup(p, r->identity)) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		r->present = r->pg > 0;
		absent += !r->present;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		ra_set_error(RA_ERR_DATA, "cannot read the runs of '%s'", p->file);
		return -1;
	}
	return absent ? reserve(p, absent) : 0;
}

/* Run @r of the file, unless the server has it: 0, 1 when it failed, -1 when the server is gone. */
static int push_one(struct push *p, const struct run *r)
{
	int rc;

	if (r->present) {
		p->res->present++;
		say(p, "%s: run %lld is on the server as run %lld", p->file, (long long)r->id,
		    (long long)r->pg);
		return 0;
	}
	rc = push_run(p, r);
	if (rc == 1) {
		p->res->pushed++;
		say(p, "%s: run %lld pushed as run %lld", p->file, (long long)r->id,
		    (long long)r->pg);
		return 0;
	}
	if (rc == 0) {
		p->res->present++;
		say(p, "%s: run %lld was pushed meanwhile", p->file, (long long)r->id);
		return 0;
	}
	p->res->failed++;
	say(p, "%s: run %lld not pushed: %s", p->file, (long long)r->id, ra_last_error());
	return PQstatus(p->conn) == CONNECTION_OK ? 1 : -1;
}

static int push_file(struct push *p)
{
	char abs[PATH_MAX];
	int failed = 0, rc = 0;

	p->src = ra_db_open(p->file, RA_DB_READONLY);
	if (!p->src)
		return -1;
	/* each run's rows are read by its key in every table: its pages, read once */
	sqlite3_exec(ra_db_sqlite(p->src), "PRAGMA cache_size = -131072", NULL, NULL, NULL);
	p->path = strdup(realpath(p->file, abs) ? abs : p->file);
	if (!p->path || list_runs(p) < 0)
		rc = -1;
	for (int i = 0; rc >= 0 && i < p->nruns; i++)
		if (wanted(p->o, p->runs[i].id) && (rc = push_one(p, &p->runs[i])) > 0)
			failed = 1;
	if (ra_db_close(p->src) < 0)
		rc = -1;
	p->src = NULL;
	return rc < 0 ? -1 : failed;
}

int ra_push(const char *url, const char *const *files, int nfiles, const struct ra_push_opts *o,
	    struct ra_push_result *res)
{
	struct ra_pg_schema schema = { 0 };
	struct push p = { .o = o, .res = res, .schema = &schema };
	char *shown = ra_pg_redact(url);
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (!shown) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	p.shown = shown;
	if (o->source_host)
		snprintf(p.host, sizeof(p.host), "%s", o->source_host);
	else if (gethostname(p.host, sizeof(p.host) - 1) < 0)
		p.host[0] = '\0';
	if (ra_pg_schema_load(&schema) < 0 || !(p.conn = ra_pg_connect(url, shown, false)) ||
	    ra_pg_schema_ensure(p.conn, shown, &schema) < 0)
		goto out;
	for (int i = 0; i < o->ngrants; i++)
		if (ra_pg_schema_grant(p.conn, shown, o->grants[i]) < 0)
			goto out;
	ret = 0;
	for (int i = 0; i < nfiles && ret >= 0; i++) {
		int rc;

		p.file = files[i];
		rc = push_file(&p);
		free(p.path);
		for (int k = 0; k < p.nruns; k++)
			free(p.runs[k].identity);
		free(p.runs);
		p.path = NULL;
		p.runs = NULL;
		p.nruns = 0;
		ret = rc < 0 ? -1 : rc ? 1 : ret;
	}
out:
	PQfinish(p.conn);
	ra_pg_schema_release(&schema);
	free(p.buf);
	free(shown);
	return ret;
}
