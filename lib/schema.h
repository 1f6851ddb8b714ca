/* SPDX-License-Identifier: LGPL-2.1 */
#ifndef RA_SCHEMA_H
#define RA_SCHEMA_H

/* version 1's tables */
extern const char ra_schema_sql[];
/* ra_schema_steps[v - 2] makes version v from version v - 1; NULL-terminated */
extern const char *const ra_schema_steps[];
extern const char ra_schema_views_sql[];
extern const char ra_schema_drop_views_sql[];

#endif
