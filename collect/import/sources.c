// SPDX-License-Identifier: LGPL-2.1
/*
 * The files a trace can be imported from, one row each: trace-cmd trace.dat
 * files and blktrace files (ra-import). The live sources, the kernel's
 * tracepoints and kprobes, are the tracer's (ra_live_sources[]).
 */
#include <string.h>

#include "import.h"

const struct ra_file_source ra_file_sources[] = {
	{ .name = "trace.dat", .what = "trace-cmd trace.dat files (tracedat.c)",
	  .probe = ra_tracedat_probe, .import = ra_tracedat_import },
	{ .name = "blktrace", .what = "blktrace per-CPU files and blkparse -d dumps (blktrace.c)",
	  .probe = ra_blktrace_probe, .trace_name = ra_blktrace_trace_name,
	  .import = ra_blktrace_import },
	{ 0 }
};

const struct ra_file_source *ra_file_source_find(const char *name)
{
	for (const struct ra_file_source *s = ra_file_sources; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

const struct ra_file_source *ra_file_source_probe(const void *head, size_t len)
{
	for (const struct ra_file_source *s = ra_file_sources; s->name; s++)
		if (s->probe(head, len))
			return s;
	return NULL;
}
