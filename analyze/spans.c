// SPDX-License-Identifier: LGPL-2.1
/*
 * Time spans: the union of intervals, and how much of a later interval it
 * covers. The block pass uses them to tell the time a device had a window in
 * flight from the time it sat idle.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"

static int cmp_lo(const void *a, const void *b)
{
	const struct ra_span *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

int ra_span_union(struct ra_span *s, int n)
{
	int out = 0;

	qsort(s, (size_t)n, sizeof(*s), cmp_lo);
	for (int i = 0; i < n; i++) {
		if (s[i].hi <= s[i].lo)
			continue;
		if (out && s[i].lo <= s[out - 1].hi) {
			if (s[i].hi > s[out - 1].hi)
				s[out - 1].hi = s[i].hi;
			continue;
		}
		s[out++] = s[i];
	}
	return out;
}

int64_t ra_span_cover(const struct ra_span *u, int n, int *cur, int64_t lo, int64_t hi)
{
	int64_t sum = 0;

	while (*cur < n && u[*cur].hi <= lo)
		(*cur)++;
	for (int i = *cur; i < n && u[i].lo < hi; i++) {
		int64_t a = u[i].lo > lo ? u[i].lo : lo, b = u[i].hi < hi ? u[i].hi : hi;

		if (b > a)
			sum += b - a;
	}
	return sum;
}

/* The first span of @s that ends at or after @t */
static int set_find(const struct ra_span_set *s, int64_t t)
{
	int a = 0, b = s->n;

	while (a < b) {
		int m = a + (b - a) / 2;

		if (s->u[m].hi < t)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

int ra_span_set_add(struct ra_span_set *s, int64_t lo, int64_t hi)
{
	int i, j;

	if (hi <= lo)
		return 0;
	/* the spans it touches, u[i..j), become one (as ra_span_union merges) */
	i = j = set_find(s, lo);
	for (; j < s->n && s->u[j].lo <= hi; j++) {
		if (s->u[j].lo < lo)
			lo = s->u[j].lo;
		if (s->u[j].hi > hi)
			hi = s->u[j].hi;
	}
	if (i == j) {
		if (ra_grow((void **)&s->u, &s->cap, (size_t)s->n + 1, sizeof(*s->u)) < 0)
			return -1;
		memmove(s->u + i + 1, s->u + i, (size_t)(s->n - i) * sizeof(*s->u));
		s->n++;
	} else if (j > i + 1) {
		memmove(s->u + i + 1, s->u + j, (size_t)(s->n - j) * sizeof(*s->u));
		s->n -= j - i - 1;
	}
	s->u[i] = (struct ra_span){ lo, hi };
	return 0;
}

int64_t ra_span_set_cover(const struct ra_span_set *s, int64_t lo, int64_t hi)
{
	int64_t sum = 0;

	for (int i = set_find(s, lo); i < s->n && s->u[i].lo < hi; i++) {
		int64_t a = s->u[i].lo > lo ? s->u[i].lo : lo, b = s->u[i].hi < hi ? s->u[i].hi : hi;

		if (b > a)
			sum += b - a;
	}
	return sum;
}

void ra_span_set_drop(struct ra_span_set *s, int64_t t)
{
	int i = 0;

	while (i < s->n && s->u[i].hi <= t)
		i++;
	if (i) {
		memmove(s->u, s->u + i, (size_t)(s->n - i) * sizeof(*s->u));
		s->n -= i;
	}
}

void ra_span_set_free(struct ra_span_set *s)
{
	free(s->u);
	*s = (struct ra_span_set){ 0 };
}
