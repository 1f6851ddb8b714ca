// SPDX-License-Identifier: LGPL-2.1
/*
 * The sources of events, one row each: the kernel's tracepoints and the
 * kprobes made where they are missing (recorded live by ra-record), trace-cmd
 * trace.dat files and blktrace files (imported by ra-import). Every source
 * gives the same struct ra_event, so that what comes after knows no source.
 */
#include <string.h>

#include "collect.h"

const struct ra_source ra_sources[] = {
	/* live, in the order of preference */
	{ .name = "tracepoint", .kind = RA_LIVE,
	  .what = "the kernel's tracepoints (tracer.c)",
	  .describes = ra_tp_describes, .can = ra_tp_can, .enable = ra_tp_enable,
	  .gives = ra_tp_gives },
	{ .name = "kprobe", .kind = RA_LIVE,
	  .what = "kprobes made from the kernel's BTF where a tracepoint is missing (dynevent.c)",
	  .describes = ra_dyn_can, .can = ra_kp_can, .enable = ra_kp_enable,
	  .gives = ra_kp_gives },
	/* files */
	{ .name = "trace.dat", .kind = RA_FILE,
	  .what = "trace-cmd trace.dat files (tracedat.c)",
	  .probe = ra_tracedat_probe, .import = ra_tracedat_import },
	{ .name = "blktrace", .kind = RA_FILE,
	  .what = "blktrace per-CPU files and blkparse -d dumps (blktrace.c)",
	  .probe = ra_blktrace_probe, .trace_name = ra_blktrace_trace_name,
	  .import = ra_blktrace_import },
	{ 0 }
};

const struct ra_source *ra_source_find(const char *name)
{
	for (const struct ra_source *s = ra_sources; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

const struct ra_source *ra_source_probe(const void *head, size_t len)
{
	for (const struct ra_source *s = ra_sources; s->name; s++)
		if (s->kind == RA_FILE && s->probe(head, len))
			return s;
	return NULL;
}
