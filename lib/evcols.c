// SPDX-License-Identifier: LGPL-2.1
/*
 * Where each event column's value is in struct ra_event, made from the
 * column lists of ra_evcols.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "ra_evcols.h"

#define MEMBER(member, has, null, colname)                                      \
	{ colname, offsetof(struct ra_event, member),                           \
	  sizeof(((struct ra_event *)0)->member), has, null,                    \
	  _Generic(((struct ra_event *)0)->member, int8_t: 1, int16_t: 1,      \
		   int32_t: 1, int64_t: 1, default: 0) }
#define RA_COL(id, name, decl, since, member, has, null)                        \
	[RA_RA_##id] = MEMBER(member, has, null, #name),
#define PAGE_COL(id, name, decl, since, member, has, null)                      \
	[RA_PAGE_##id] = MEMBER(member, has, null, #name),
#define BLK_COL(id, name, decl, since, member, has, null)                       \
	[RA_BLK_##id] = MEMBER(member, has, null, #name),

const struct ra_evcol ra_evcols_ra[RA_RA_NCOLS] = { RA_EVCOLS_RA(RA_COL) };
const struct ra_evcol ra_evcols_page[RA_PAGE_NCOLS] = { RA_EVCOLS_PAGE(PAGE_COL) };
const struct ra_evcol ra_evcols_blk[RA_BLK_NCOLS] = { RA_EVCOLS_BLK(BLK_COL) };
