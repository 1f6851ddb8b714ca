/* SPDX-License-Identifier: LGPL-2.1 */
#ifndef RA_SCHEMA_H
#define RA_SCHEMA_H

extern const char ra_schema_sql[];
extern const char ra_schema_v2_sql[];
extern const char ra_schema_upgrade_v1_sql[];

#endif
