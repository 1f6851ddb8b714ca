/* SPDX-License-Identifier: LGPL-2.1 */
#ifndef RA_VERSION_H
#define RA_VERSION_H

#define RA_VERSION "0.1.0"

#endif
