// SPDX-License-Identifier: LGPL-2.1
/*
 * Names and classes of the event types.
 */
#include <string.h>

#include "ra_event.h"

/* (the class of a type is told by its number: ra_event_class()) */
struct ra_event_desc {
	const char *system;
	const char *name;
	int optional;
};

static const struct ra_event_desc descs[RA_EV_MAX] = {
	[RA_EV_SYNC_RA] = { "readahead", "page_cache_sync_ra", 0 },
	[RA_EV_ASYNC_RA] = { "readahead", "page_cache_async_ra", 0 },
	[RA_EV_RA_ORDER] = { "readahead", "page_cache_ra_order", 0 },
	[RA_EV_RA_UNBOUNDED] = { "readahead", "page_cache_ra_unbounded", 0 },
	[RA_EV_FADVISE] = { "syscalls", "sys_enter_fadvise64", 1 },
	[RA_EV_SYS_READAHEAD] = { "syscalls", "sys_enter_readahead", 1 },
	[RA_EV_MADVISE] = { "syscalls", "sys_enter_madvise", 1 },

	[RA_EV_PAGE_ADD] = { "filemap", "mm_filemap_add_to_page_cache", 0 },
	[RA_EV_PAGE_DELETE] = { "filemap", "mm_filemap_delete_from_page_cache", 0 },
	[RA_EV_GET_PAGES] = { "filemap", "mm_filemap_get_pages", 0 },
	[RA_EV_FAULT] = { "filemap", "mm_filemap_fault", 0 },
	[RA_EV_MAP_PAGES] = { "filemap", "mm_filemap_map_pages", 0 },

	[RA_EV_BIO_QUEUE] = { "block", "block_bio_queue", 0 },
	[RA_EV_BIO_BACKMERGE] = { "block", "block_bio_backmerge", 0 },
	[RA_EV_BIO_FRONTMERGE] = { "block", "block_bio_frontmerge", 0 },
	[RA_EV_BIO_COMPLETE] = { "block", "block_bio_complete", 1 },
	[RA_EV_BIO_REMAP] = { "block", "block_bio_remap", 0 },
	[RA_EV_BIO_BOUNCE] = { "block", "block_bio_bounce", 1 },
	[RA_EV_GETRQ] = { "block", "block_getrq", 0 },
	[RA_EV_RQ_INSERT] = { "block", "block_rq_insert", 0 },
	[RA_EV_RQ_ISSUE] = { "block", "block_rq_issue", 0 },
	[RA_EV_RQ_MERGE] = { "block", "block_rq_merge", 0 },
	[RA_EV_RQ_COMPLETE] = { "block", "block_rq_complete", 0 },
	[RA_EV_RQ_REQUEUE] = { "block", "block_rq_requeue", 0 },
	[RA_EV_RQ_REMAP] = { "block", "block_rq_remap", 0 },
	[RA_EV_RQ_ERROR] = { "block", "block_rq_error", 1 },
	[RA_EV_PLUG] = { "block", "block_plug", 0 },
	[RA_EV_UNPLUG] = { "block", "block_unplug", 0 },
	[RA_EV_SPLIT] = { "block", "block_split", 0 },
	[RA_EV_SLEEPRQ] = { "block", "block_sleeprq", 1 },
};

static const struct ra_event_desc *desc(int type)
{
	if (type <= RA_EV_NONE || type >= RA_EV_MAX || !descs[type].name)
		return NULL;
	return &descs[type];
}

const char *ra_event_name(int type)
{
	const struct ra_event_desc *d = desc(type);

	return d ? d->name : NULL;
}

const char *ra_event_system(int type)
{
	const struct ra_event_desc *d = desc(type);

	return d ? d->system : NULL;
}

int ra_event_is_call(int type)
{
	const struct ra_event_desc *d = desc(type);

	return d && strcmp(d->system, "syscalls") == 0;
}

int ra_event_optional(int type)
{
	const struct ra_event_desc *d = desc(type);

	return d ? d->optional : 1;
}

int ra_event_lookup(const char *system, const char *name)
{
	for (int i = 1; i < RA_EV_MAX; i++) {
		if (!descs[i].name)
			continue;
		if (strcmp(descs[i].name, name) == 0 &&
		    (!system || strcmp(descs[i].system, system) == 0))
			return i;
	}
	return RA_EV_NONE;
}
