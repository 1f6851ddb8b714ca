/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * How far long work is, for a line on a terminal: the commands make one with
 * ra_progress_new() when standard error is a terminal and -q was not given,
 * and hand it to what works (ra_db_set_progress(), the import's sources, the
 * recorder's store). Library code only reports; it never prints.
 */
#ifndef RA_PROGRESS_H
#define RA_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

struct ra_progress;

/** ra_progress_new - a line on @out, each begun with "@cmd: "; NULL out of memory */
struct ra_progress *ra_progress_new(FILE *out, const char *cmd);
/** ra_progress_free - end the line (if one was drawn) and free it; safe on NULL */
void ra_progress_free(struct ra_progress *p);

/**
 * ra_progress_update - @events done of the work @what; @done of @total of its
 * units (bytes, events; @total 0 when not known) give the share and the
 * time left. Draws at most five times a second; safe on NULL.
 */
void ra_progress_update(struct ra_progress *p, const char *what, uint64_t events, uint64_t done,
			uint64_t total);
/** ra_progress_done - the end of @what: its line is cleared for what comes next */
void ra_progress_done(struct ra_progress *p);

#endif /* RA_PROGRESS_H */
