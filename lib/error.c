// SPDX-License-Identifier: LGPL-2.1
/*
 * The last error of the library, one line in git's style.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ra_db.h"

static __thread char last_msg[1024];
static __thread int last_kind;

void ra_set_error(int kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	last_kind = kind;
}

const char *ra_last_error(void)
{
	return last_msg[0] ? last_msg : "unknown error";
}

int ra_last_error_kind(void)
{
	return last_kind;
}
