// SPDX-License-Identifier: LGPL-2.1
/*
 * Which runs of a database a report or a comparison reads: by host, kernel,
 * device, parameter (v_run_params) and start time, the same SQL in a file
 * and on a server (docs/fleet.md). A kind given twice is either value; two
 * kinds must both hold.
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ra_sql.h"
#include "report.h"

enum kind { SEL_HOST, SEL_KERNEL, SEL_DEVICE, SEL_MODEL, SEL_TRANSPORT, SEL_PARAM, SEL_SINCE,
	    SEL_UNTIL };

static const struct {
	const char *option;
	enum kind kind;
} options[] = {
	{ "host", SEL_HOST },	  { "kernel", SEL_KERNEL }, { "device", SEL_DEVICE },
	{ "model", SEL_MODEL },	  { "transport", SEL_TRANSPORT }, { "param", SEL_PARAM },
	{ "since", SEL_SINCE },	  { "until", SEL_UNTIL },
};

/*
 * A model's pattern as LIKE has it, in lower case: * any text, ? one
 * character, LIKE's own % _ and the escape \ taken literally. The same in
 * SQLite and PostgreSQL, whose LIKE differ only in case (both sides are
 * lowered). -1 when it does not fit.
 */
static int like_pattern(const char *glob, char *out, size_t len)
{
	size_t n = 0;

	for (const char *g = glob; *g; g++) {
		char c = *g >= 'A' && *g <= 'Z' ? (char)(*g - 'A' + 'a') : *g;

		if (n + 3 > len)
			return -1;
		if (c == '*') {
			out[n++] = '%';
		} else if (c == '?') {
			out[n++] = '_';
		} else {
			if (c == '%' || c == '_' || c == '\\')
				out[n++] = '\\';
			out[n++] = c;
		}
	}
	out[n] = '\0';
	return 0;
}

/* "2026-12-02", "2026-12-02T01:49:03Z", "2026-12-02 01:49", or "@1796176143" (UTC) */
static int parse_time(const char *s, int64_t *ns)
{
	static const char *const forms[] = { "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S",
					     "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M",
					     "%Y-%m-%d %H:%M", "%Y-%m-%d" };
	struct tm tm;
	char *end;

	if (*s == '@') {
		long long sec = strtoll(s + 1, &end, 10);

		if (end == s + 1 || *end)
			return -1;
		*ns = sec * 1000000000LL;
		return 0;
	}
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, forms[i], &tm);
		if (end && !*end) {
			*ns = (int64_t)timegm(&tm) * 1000000000LL;
			return 0;
		}
	}
	return -1;
}

int ra_select_option(struct ra_select *sel, const char *option, const char *arg)
{
	struct ra_select_term *t;
	size_t i;

	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (strcmp(options[i].option, option) == 0)
			break;
	if (i == sizeof(options) / sizeof(options[0]) || sel->n == RA_SELECT_MAX)
		return -1;
	t = &sel->terms[sel->n];
	*t = (struct ra_select_term){ .kind = (int)options[i].kind, .value = arg };
	if (t->kind == SEL_PARAM) {
		const char *eq = strchr(arg, '=');

		if (!eq || eq == arg)
			return -1;
		t->name_len = (int)(eq - arg);
		t->value = eq + 1;
		t->name = arg;
	} else if ((t->kind == SEL_SINCE || t->kind == SEL_UNTIL) &&
		   parse_time(arg, &t->ns) < 0) {
		return -1;
	} else if (t->kind == SEL_MODEL) {
		if (!*arg || like_pattern(arg, t->like, sizeof(t->like)) < 0)
			return -1;
		t->value = t->like;
	}
	sel->n++;
	return 0;
}

/* The terms of one kind (of one parameter's name), as "col IN (?a, ?b)" from ?@next. */
static void in_list(FILE *f, const struct ra_select *sel, int k, const char *expr, int *next)
{
	const struct ra_select_term *t = &sel->terms[k];
	bool first = true;

	fprintf(f, "%s IN (", expr);
	for (int j = 0; j < sel->n; j++) {
		const struct ra_select_term *u = &sel->terms[j];

		if (u->kind != t->kind || (t->kind == SEL_PARAM && (u->name_len != t->name_len ||
		    strncmp(u->name, t->name, (size_t)t->name_len) != 0)))
			continue;
		fprintf(f, "%s?%d", first ? "" : ", ", (*next)++);
		first = false;
	}
	fputc(')', f);
}

/*
 * Whether term @k is the first of its kind (its parameter's name): the one
 * that writes the test. A time is a test of its own.
 */
static bool first_of_kind(const struct ra_select *sel, int k)
{
	const struct ra_select_term *t = &sel->terms[k];

	if (t->kind == SEL_SINCE || t->kind == SEL_UNTIL)
		return true;
	for (int j = 0; j < k; j++) {
		const struct ra_select_term *u = &sel->terms[j];

		if (u->kind == t->kind && (t->kind != SEL_PARAM || (u->name_len == t->name_len &&
		    strncmp(u->name, t->name, (size_t)t->name_len) == 0)))
			return false;
	}
	return true;
}

/* The test of term @k (of the first of its kind), its parameters numbered from ?@next. */
static void term_sql(FILE *f, const struct ra_select *sel, int k, int *next)
{
	const struct ra_select_term *t = &sel->terms[k];
	int from;

	switch (t->kind) {
	case SEL_SINCE:
		fprintf(f, " AND r.start_unix_ns >= ?%d", (*next)++);
		break;
	case SEL_UNTIL:
		fprintf(f, " AND r.start_unix_ns < ?%d", (*next)++);
		break;
	case SEL_HOST:
		fputs(" AND ", f);
		in_list(f, sel, k, "r.hostname", next);
		break;
	case SEL_KERNEL:
		fputs(" AND ", f);
		in_list(f, sel, k, "r.kernel", next);
		break;
	case SEL_MODEL:		/* any device of the run whose model is like any pattern */
		fputs(" AND EXISTS (SELECT 1 FROM devices d WHERE d.run_id = r.run_id AND (", f);
		for (int j = k; j < sel->n; j++)
			if (sel->terms[j].kind == SEL_MODEL)
				fprintf(f, "%sLOWER(d.model) LIKE ?%d ESCAPE '\\'", j > k ? " OR " : "",
					(*next)++);
		fputs("))", f);
		break;
	case SEL_TRANSPORT:
		fputs(" AND EXISTS (SELECT 1 FROM devices d WHERE d.run_id = r.run_id AND ", f);
		in_list(f, sel, k, "d.transport", next);
		fputc(')', f);
		break;
	case SEL_DEVICE:	/* a name or MAJ:MIN: one list of values for both */
		from = *next;
		fputs(" AND EXISTS (SELECT 1 FROM v_devices d WHERE d.run_id = r.run_id AND (", f);
		in_list(f, sel, k, "d.name", next);
		*next = from;
		fputs(" OR ", f);
		in_list(f, sel, k, "d.dev", next);
		fputs("))", f);
		break;
	default:
		fprintf(f, " AND EXISTS (SELECT 1 FROM v_run_params p WHERE p.run_id = r.run_id"
			" AND p.name = ?%d AND ", (*next)++);
		in_list(f, sel, k, "p.value", next);
		fputc(')', f);
	}
}

/* "SELECT run_id FROM runs r WHERE ..." with the terms' parameters numbered from ?1. */
static char *select_sql(const struct ra_select *sel, bool label)
{
	size_t len = 0;
	char *sql = NULL;
	FILE *f = open_memstream(&sql, &len);
	int next = 1;

	if (!f)
		return NULL;
	fputs("SELECT r.run_id FROM runs r WHERE 1 = 1", f);
	for (int k = 0; k < sel->n; k++)
		if (first_of_kind(sel, k))
			term_sql(f, sel, k, &next);
	if (label)
		fprintf(f, " AND r.label = ?%d", next);
	fputs(" ORDER BY r.run_id", f);
	if (fclose(f) != 0) {
		free(sql);
		return NULL;
	}
	return sql;
}

/* Bind in the order select_sql() numbered them. */
static int bind_terms(struct ra_stmt *st, const struct ra_select *sel, const char *label)
{
	int next = 1;

	for (int k = 0; k < sel->n; k++) {
		const struct ra_select_term *t = &sel->terms[k];

		if (!first_of_kind(sel, k))
			continue;
		if (t->kind == SEL_SINCE || t->kind == SEL_UNTIL) {
			if (ra_sql_bind_at(st, next++, "i", t->ns) < 0)
				return -1;
			continue;
		}
		if (t->kind == SEL_PARAM &&
		    ra_sql_bind_at(st, next++, "s", t->name, (size_t)t->name_len) < 0)
			return -1;
		for (int j = k; j < sel->n; j++) {
			const struct ra_select_term *u = &sel->terms[j];

			if (u->kind != t->kind || (t->kind == SEL_PARAM && (u->name_len != t->name_len ||
			    strncmp(u->name, t->name, (size_t)t->name_len) != 0)))
				continue;
			if (ra_sql_bind_at(st, next++, "t", u->value) < 0)
				return -1;
		}
	}
	return label ? ra_sql_bind_at(st, next, "t", label) : 0;
}

int ra_select_runs(struct ra_db *db, const struct ra_select *sel, const char *label,
		   int64_t **ids)
{
	char *sql = select_sql(sel, label != NULL);
	struct ra_stmt *st = sql ? ra_sql_prepare(db, sql) : NULL;
	int n = 0, rc = st ? 1 : -1;

	*ids = NULL;
	free(sql);
	if (st && bind_terms(st, sel, label) < 0)
		rc = -1;
	while (rc == 1 && (rc = ra_sql_step(st)) == 1) {
		int64_t *p = realloc(*ids, (size_t)(n + 1) * sizeof(*p));

		if (!p) {
			rc = -1;
			break;
		}
		*ids = p;
		ra_sql_row(st, "i", &p[n++]);
	}
	ra_sql_finalize(st);
	if (rc == 0)
		return n;
	free(*ids);
	*ids = NULL;
	ra_set_error(RA_ERR_IO, "cannot read the runs of '%s': %s", ra_db_path(db),
		     ra_sql_why(db));
	return -1;
}

char *ra_ids_json(const int64_t *ids, int n)
{
	size_t len = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? "," : "", (long long)ids[i]);
	fputc(']', f);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
