/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A run's events read back from the three event tables, merged by seq (the
 * tables share one sequence), as struct ra_event: what the analysis passes
 * see is what the collectors wrote (lib/writer.c is the other way).
 */
#ifndef RA_EVSTREAM_H
#define RA_EVSTREAM_H

#include <stdint.h>

#include "ra_db.h"
#include "ra_event.h"

struct ra_evstream;

#define RA_STREAM_RA	(1u << RA_CLASS_RA)
#define RA_STREAM_PAGE	(1u << RA_CLASS_PAGE)
#define RA_STREAM_BLK	(1u << RA_CLASS_BLK)
/* only the completions of block_bio_complete and block_rq_complete */
#define RA_STREAM_BLK_DONE (1u << (RA_CLASS_BLK + 1))

/** ra_evstream_open - the events of @run_id of the classes in @mask, merged by seq */
struct ra_evstream *ra_evstream_open(struct ra_db *db, int64_t run_id, unsigned int mask);
/** ra_evstream_next - 1 and the next event in @ev, 0 at the end, -1 on error */
int ra_evstream_next(struct ra_evstream *s, struct ra_event *ev, int64_t *seq);
void ra_evstream_close(struct ra_evstream *s);

typedef int (*ra_seq_event_cb)(const struct ra_event *ev, int64_t seq, void *arg);

/**
 * ra_evstream_each - call @cb for every event of @run_id of the classes in
 * @mask, in seq order; stops when @cb returns < 0. Returns 0 or -1. A callback
 * that fails without an error message of its own gets "out of memory".
 */
int ra_evstream_each(struct ra_db *db, int64_t run_id, unsigned int mask, ra_seq_event_cb cb,
		     void *arg);

#endif /* RA_EVSTREAM_H */
