// SPDX-License-Identifier: LGPL-2.1
/*
 * Time spans: the union of intervals, and how much of a later interval it
 * covers. The block pass uses them to tell the time a device had a window in
 * flight from the time it sat idle.
 */
#include <stdlib.h>

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
