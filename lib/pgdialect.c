// SPDX-License-Identifier: LGPL-2.1
/*
 * The SQL of the reports, written for SQLite, in PostgreSQL's dialect. Most
 * of it is the same in both: what differs and is syntax is rewritten here,
 * token by token; what differs in meaning (SUM of integers, ROUND, MAX of two
 * values, the text of a real, group_concat, ...) is the ratrace schema's
 * functions of the same names on the server (lib/pgschema.c), found before
 * PostgreSQL's own. The rules are listed at ra_pg_dialect() in pg_local.h;
 * tests/unit/test_pgdialect.c has an example of each.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include "pg_local.h"

enum kind { K_SPACE, K_WORD, K_NUM, K_STR, K_QID, K_PARAM, K_OP, K_LP, K_RP, K_COMMA, K_SEMI };

struct tok {
	enum kind kind;
	const char *s;
	int len;
	int depth;		/* parentheses around it (a parenthesis: those outside it) */
	char *repl;		/* what it becomes, or NULL: itself */
	const char *suffix;	/* what follows it (static), or NULL */
};

struct toks {
	struct tok *t;
	int n, cap;
	int nparams;
	int aliases;
};

static bool is_word(const struct tok *t, const char *w)
{
	return t->kind == K_WORD && (int)strlen(w) == t->len && strncasecmp(t->s, w, t->len) == 0;
}

static int push(struct toks *ts, enum kind k, const char *s, int len, int depth)
{
	if (ts->n == ts->cap) {
		int cap = ts->cap ? ts->cap * 2 : 256;
		struct tok *t = realloc(ts->t, (size_t)cap * sizeof(*t));

		if (!t)
			return -1;
		ts->t = t;
		ts->cap = cap;
	}
	ts->t[ts->n++] = (struct tok){ .kind = k, .s = s, .len = len, .depth = depth };
	return 0;
}

/* The length of the token at @p and its kind; 0 at the end. */
static int scan(const char *p, enum kind *k)
{
	const char *q = p;

	if (!*p)
		return 0;
	if (isspace((unsigned char)*p)) {
		while (isspace((unsigned char)*q))
			q++;
		*k = K_SPACE;
	} else if (p[0] == '-' && p[1] == '-') {
		q = p + strcspn(p, "\n");
		*k = K_SPACE;
	} else if (p[0] == '/' && p[1] == '*') {
		const char *end = strstr(p + 2, "*/");

		q = end ? end + 2 : p + strlen(p);
		*k = K_SPACE;
	} else if (*p == '\'' || *p == '"') {
		for (q = p + 1; *q && !(*q == *p && q[1] != *p); q++)
			if (*q == *p)
				q++;	/* a doubled quote */
		q += *q ? 1 : 0;
		*k = *p == '\'' ? K_STR : K_QID;
	} else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
		while (isalnum((unsigned char)*q) || *q == '.' ||
		       ((*q == '+' || *q == '-') && (q[-1] == 'e' || q[-1] == 'E')))
			q++;
		*k = K_NUM;
	} else if (isalpha((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80) {
		while (isalnum((unsigned char)*q) || *q == '_' || *q == '$' || (unsigned char)*q >= 0x80)
			q++;
		*k = K_WORD;
	} else if (*p == '?') {
		for (q = p + 1; isdigit((unsigned char)*q); q++)
			;
		*k = K_PARAM;
	} else {
		static const char *const two[] = { "||", "<=", ">=", "!=", "<>", "==", "<<", ">>" };

		*k = *p == '(' ? K_LP : *p == ')' ? K_RP : *p == ',' ? K_COMMA :
		     *p == ';' ? K_SEMI : K_OP;
		q = p + 1;
		for (size_t i = 0; *k == K_OP && i < sizeof(two) / sizeof(two[0]); i++)
			if (strncmp(p, two[i], 2) == 0)
				q = p + 2;
	}
	return (int)(q - p);
}

static int tokenize(const char *sql, struct toks *ts)
{
	int depth = 0, len;
	enum kind k;

	for (const char *p = sql; (len = scan(p, &k)) > 0; p += len) {
		if (k == K_RP && depth > 0)
			depth--;
		if (push(ts, k, p, len, depth) < 0)
			return -1;
		if (k == K_LP)
			depth++;
	}
	return 0;
}

/* The next token after @i that is not white space, or -1. */
static int next(const struct toks *ts, int i)
{
	while (++i < ts->n)
		if (ts->t[i].kind != K_SPACE)
			return i;
	return -1;
}

static int prev(const struct toks *ts, int i)
{
	while (--i >= 0)
		if (ts->t[i].kind != K_SPACE)
			return i;
	return -1;
}

/* The parenthesis that closes the one at @i, or -1. */
static int closing(const struct toks *ts, int i)
{
	for (int j = i + 1; j < ts->n; j++)
		if (ts->t[j].kind == K_RP && ts->t[j].depth == ts->t[i].depth)
			return j;
	return -1;
}

static int replace(struct tok *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int replace(struct tok *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	free(t->repl);
	t->repl = s;
	return 0;
}

/*
 * A decimal literal is a double in SQLite, numeric in PostgreSQL: it becomes
 * the double SQLite reads from it (its own conversion, not strtod's), written
 * so that PostgreSQL reads the same one.
 */
static int real_literal(struct tok *t, sqlite3 *mem)
{
	sqlite3_stmt *st = NULL;
	char sql[96];
	int ret = -1;

	if (t->len > 64)
		return -1;
	snprintf(sql, sizeof(sql), "SELECT %.*s", t->len, t->s);
	if (sqlite3_prepare_v2(mem, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_FLOAT)
			ret = replace(t, "'%.17g'::float8", sqlite3_column_double(st, 0));
		else if (sqlite3_column_type(st, 0) == SQLITE_INTEGER)
			ret = replace(t, "%lld", (long long)sqlite3_column_int64(st, 0));
	}
	if (ret < 0)
		ra_set_error(RA_ERR_USAGE, "bad number '%.*s' in SQL", t->len, t->s);
	sqlite3_finalize(st);
	return ret;
}

/* Parameters, decimal literals and "==". */
static int literals(struct toks *ts)
{
	sqlite3 *mem = NULL;
	int ret = 0;

	for (int i = 0; i < ts->n && ret == 0; i++) {
		struct tok *t = &ts->t[i];

		if (t->kind == K_PARAM) {
			int n = t->len > 1 ? atoi(t->s + 1) : ts->nparams + 1;

			ts->nparams = n > ts->nparams ? n : ts->nparams;
			ret = replace(t, "$%d", n);
		} else if (t->kind == K_NUM && strcspn(t->s, ".eExX") < (size_t)t->len) {
			if (!mem && sqlite3_open(":memory:", &mem) != SQLITE_OK)
				ret = -1;
			else
				ret = real_literal(t, mem);
		} else if (t->kind == K_OP && t->len == 2 && strncmp(t->s, "==", 2) == 0) {
			ret = replace(t, "=");
		}
	}
	sqlite3_close(mem);
	return ret;
}

/* "a IS b" and "a IS NOT b" between values, not NULL or a truth value. */
static int is_distinct(struct toks *ts)
{
	static const char *const keep[] = { "NULL", "TRUE", "FALSE", "UNKNOWN", "DISTINCT" };

	for (int i = 0; i < ts->n; i++) {
		int j = next(ts, i), k;
		bool plain = true;

		if (!is_word(&ts->t[i], "IS") || j < 0)
			continue;
		k = is_word(&ts->t[j], "NOT") ? next(ts, j) : j;
		for (size_t w = 0; k >= 0 && w < sizeof(keep) / sizeof(keep[0]); w++)
			plain &= !is_word(&ts->t[k], keep[w]);
		if (!plain || k < 0)
			continue;
		if (k != j) {	/* IS NOT b */
			if (replace(&ts->t[i], "IS DISTINCT") < 0 || replace(&ts->t[j], "FROM") < 0)
				return -1;
		} else if (replace(&ts->t[i], "IS NOT DISTINCT FROM") < 0) {
			return -1;
		}
	}
	return 0;
}

/* CAST(x AS INTEGER|REAL|TEXT) with SQLite's conversions: ratrace.cast_*(x). */
static int casts(struct toks *ts)
{
	static const struct {
		const char *type, *fn;
	} types[] = {
		{ "INTEGER", "integer" }, { "INT", "integer" }, { "BIGINT", "integer" },
		{ "REAL", "real" }, { "FLOAT", "real" }, { "DOUBLE", "real" }, { "TEXT", "text" },
	};

	for (int i = 0; i < ts->n; i++) {
		int lp = next(ts, i), rp, as = -1, ty;

		if (!is_word(&ts->t[i], "CAST") || lp < 0 || ts->t[lp].kind != K_LP ||
		    (rp = closing(ts, lp)) < 0)
			continue;
		for (int j = lp + 1; j < rp; j++)
			if (ts->t[j].depth == ts->t[lp].depth + 1 && is_word(&ts->t[j], "AS"))
				as = j;
		ty = as >= 0 ? next(ts, as) : -1;
		for (size_t k = 0; ty >= 0 && k < sizeof(types) / sizeof(types[0]); k++) {
			if (!is_word(&ts->t[ty], types[k].type))
				continue;
			if (replace(&ts->t[i], RA_PG_SCHEMA ".cast_%s", types[k].fn) < 0)
				return -1;
			for (int j = as; j < rp; j++)
				if (replace(&ts->t[j], "%s", "") < 0)
					return -1;
			break;
		}
	}
	return 0;
}

/*
 * AVG adds in doubles in SQLite, an integer's value made a double first:
 * PostgreSQL's AVG of a double does the same (its AVG of an integer is
 * numeric, exact).
 */
static int averages(struct toks *ts)
{
	for (int i = 0; i < ts->n; i++) {
		int lp = next(ts, i), arg, rp;

		if (!is_word(&ts->t[i], "AVG") || lp < 0 || ts->t[lp].kind != K_LP ||
		    (arg = next(ts, lp)) < 0 || is_word(&ts->t[arg], "DISTINCT") ||
		    (rp = closing(ts, lp)) < 0)
			continue;
		if (replace(&ts->t[lp], "(" RA_PG_SCHEMA ".cast_real(") < 0 ||
		    replace(&ts->t[rp], "))") < 0)
			return -1;
	}
	return 0;
}

/* LIKE without an escape character and blind to ASCII case, as SQLite's. */
static int likes(struct toks *ts)
{
	for (int i = 0; i < ts->n; i++) {
		int j = next(ts, i), k;
		struct tok *p;

		if (!is_word(&ts->t[i], "LIKE"))
			continue;
		if (replace(&ts->t[i], "ILIKE") < 0)
			return -1;
		if (j < 0)
			continue;
		p = &ts->t[j];
		k = next(ts, j);
		if ((p->kind == K_PARAM || (p->kind == K_STR && memchr(p->s, '\\', p->len))) &&
		    (k < 0 || !is_word(&ts->t[k], "ESCAPE")))
			p->suffix = " ESCAPE ''";
	}
	return 0;
}

static bool ends_list(const struct tok *t)
{
	static const char *const words[] = { "LIMIT", "OFFSET", "UNION", "EXCEPT", "INTERSECT",
					     "ROWS", "RANGE", "GROUPS", "WINDOW", "FOR", "FETCH" };

	if (t->kind == K_SEMI)
		return true;
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
		if (is_word(t, words[w]))
			return true;
	return false;
}

/* The last token of an ORDER BY item ending before @end: where NULLS goes. */
static void order_item(struct toks *ts, int last)
{
	struct tok *t;

	if (last < 0)
		return;
	t = &ts->t[last];
	if (is_word(t, "FIRST") || is_word(t, "LAST"))
		return;
	t->suffix = is_word(t, "DESC") ? " NULLS LAST" : " NULLS FIRST";
}

/* NULLs sort first in SQLite, last in PostgreSQL (ascending). */
static void orders(struct toks *ts)
{
	for (int i = 0; i < ts->n; i++) {
		int by = next(ts, i), d, last = -1, j;

		if (!is_word(&ts->t[i], "ORDER") || by < 0 || !is_word(&ts->t[by], "BY"))
			continue;
		d = ts->t[i].depth;
		for (j = next(ts, by); j >= 0; j = next(ts, j)) {
			const struct tok *t = &ts->t[j];

			if (t->depth < d || (t->depth == d && ends_list(t)))
				break;
			if (t->depth == d && t->kind == K_COMMA) {
				order_item(ts, last);
				last = -1;
			} else {
				last = j;
			}
		}
		order_item(ts, last);
	}
}

static bool clause_word(const struct tok *t)
{
	static const char *const words[] = {
		"WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT",
		"JOIN", "LEFT", "RIGHT", "INNER", "CROSS", "FULL", "NATURAL", "ON", "USING",
		"WINDOW", "OFFSET",
	};

	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
		if (is_word(t, words[w]))
			return true;
	return false;
}

/* Whether a FROM clause is open at depth @d before token @i. */
static bool in_from(const struct toks *ts, int i, int d)
{
	for (int j = i - 1; j >= 0; j--) {
		const struct tok *t = &ts->t[j];

		if (t->depth < d)
			return false;
		if (t->depth > d)
			continue;
		if (is_word(t, "FROM"))
			return true;
		if (is_word(t, "SELECT") || is_word(t, "WHERE") || is_word(t, "GROUP") ||
		    is_word(t, "HAVING") || is_word(t, "ORDER") || is_word(t, "LIMIT"))
			return false;
	}
	return false;
}

/* PostgreSQL (before 16) wants an alias for a subquery in FROM. */
static int aliases(struct toks *ts)
{
	for (int i = 0; i < ts->n; i++) {
		int p = prev(ts, i), in = next(ts, i), rp, after;
		const struct tok *t;

		if (ts->t[i].kind != K_LP || p < 0 || in < 0 ||
		    !(is_word(&ts->t[in], "SELECT") || is_word(&ts->t[in], "WITH") ||
		      is_word(&ts->t[in], "VALUES")))
			continue;
		t = &ts->t[p];
		if (!is_word(t, "FROM") && !is_word(t, "JOIN") &&
		    !(t->kind == K_COMMA && in_from(ts, i, ts->t[i].depth)))
			continue;
		if ((rp = closing(ts, i)) < 0)
			continue;
		after = next(ts, rp);
		if (after >= 0 && (is_word(&ts->t[after], "AS") ||
				   ((ts->t[after].kind == K_WORD || ts->t[after].kind == K_QID) &&
				    !clause_word(&ts->t[after]))))
			continue;
		if (replace(&ts->t[rp], ") AS ra_q%d", ++ts->aliases) < 0)
			return -1;
	}
	return 0;
}

static char *join(const struct toks *ts)
{
	size_t len = 0;
	FILE *f;
	char *out = NULL;

	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (int i = 0; i < ts->n; i++) {
		const struct tok *t = &ts->t[i];

		if (t->repl)
			fputs(t->repl, f);
		else
			fwrite(t->s, 1, (size_t)t->len, f);
		if (t->suffix)
			fputs(t->suffix, f);
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

char *ra_pg_dialect(const char *sql, int *nparams)
{
	struct toks ts = { 0 };
	char *out = NULL;

	ra_set_error(RA_ERR_IO, "out of memory");	/* unless a step says better */
	if (tokenize(sql, &ts) == 0 && literals(&ts) == 0 && is_distinct(&ts) == 0 &&
	    casts(&ts) == 0 && averages(&ts) == 0 && likes(&ts) == 0 && aliases(&ts) == 0) {
		orders(&ts);
		out = join(&ts);
	}
	if (nparams)
		*nparams = ts.nparams;
	for (int i = 0; i < ts.n; i++)
		free(ts.t[i].repl);
	free(ts.t);
	return out;
}
