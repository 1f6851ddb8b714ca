// SPDX-License-Identifier: LGPL-2.1
/*
 * A progress line on a terminal: events done, their rate, the share of the
 * work and the time left, redrawn in place.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ra_db.h"
#include "ra_progress.h"

#define REDRAW_NS 200000000	/* five times a second */

struct ra_progress {
	FILE *out;
	char cmd[32];
	char what[96];		/* the work being shown */
	int64_t start_ns;	/* when it began */
	int64_t drawn_ns;	/* when its line was last drawn, 0 never */
	int width;		/* of the line drawn, to clear it */
	int64_t delay_ns;	/* work shorter than this draws nothing */
};

struct ra_progress *ra_progress_new(FILE *out, const char *cmd)
{
	struct ra_progress *p = calloc(1, sizeof(*p));
	const char *env;

	if (!p)
		return NULL;
	p->out = out;
	snprintf(p->cmd, sizeof(p->cmd), "%s", cmd);
	p->start_ns = ra_clock_ns(CLOCK_MONOTONIC);
	/* RATRACE_PROGRESS_DELAY_MS: the tests show the lines of short work too */
	env = getenv("RATRACE_PROGRESS_DELAY_MS");
	p->delay_ns = env && *env ? strtoll(env, NULL, 10) * 1000000 : REDRAW_NS;
	return p;
}

static void clear(struct ra_progress *p)
{
	if (p->width)
		fprintf(p->out, "\r%*s\r", p->width, "");
	p->width = 0;
	fflush(p->out);
}

void ra_progress_done(struct ra_progress *p)
{
	if (!p)
		return;
	clear(p);
	p->what[0] = '\0';
	p->drawn_ns = 0;
	p->start_ns = ra_clock_ns(CLOCK_MONOTONIC);	/* the next work begins now */
}

void ra_progress_free(struct ra_progress *p)
{
	if (!p)
		return;
	clear(p);
	free(p);
}

/* "12.3 M", "512" */
static void count(char *buf, size_t len, double n)
{
	if (n >= 1e9)
		snprintf(buf, len, "%.2f G", n / 1e9);
	else if (n >= 1e6)
		snprintf(buf, len, "%.1f M", n / 1e6);
	else if (n >= 1e3)
		snprintf(buf, len, "%.1f k", n / 1e3);
	else
		snprintf(buf, len, "%.0f", n);
}

void ra_progress_update(struct ra_progress *p, const char *what, uint64_t events, uint64_t done,
			uint64_t total)
{
	char line[256], ev[32], rate[32], left[48] = "";
	int64_t now;
	double secs;
	int n;

	if (!p)
		return;
	now = ra_clock_ns(CLOCK_MONOTONIC);
	if (strncmp(p->what, what, sizeof(p->what) - 1) != 0) {
		/* new work, begun when the last one was done (its first events are counted) */
		snprintf(p->what, sizeof(p->what), "%s", what);
		p->drawn_ns = 0;
	}
	if (p->drawn_ns && now - p->drawn_ns < REDRAW_NS)
		return;
	if (!p->drawn_ns && now - p->start_ns < p->delay_ns)
		return;	/* short work draws nothing */
	p->drawn_ns = now;
	secs = (double)(now - p->start_ns) / 1e9;
	count(ev, sizeof(ev), (double)events);
	count(rate, sizeof(rate), secs > 0 ? (double)events / secs : 0);
	if (total && done && done <= total)
		snprintf(left, sizeof(left), ", %.0f%%, %.0f s left", 100.0 * (double)done / (double)total,
			 secs * (double)(total - done) / (double)done);
	n = snprintf(line, sizeof(line), "%s: %s: %s events, %s/s%s", p->cmd, what, ev, rate,
		     left);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	fprintf(p->out, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
	p->width = n;
	fflush(p->out);
}
