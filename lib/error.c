// SPDX-License-Identifier: LGPL-2.1
/*
 * The last error of the library, one line in git's style.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ra_db.h"

#define MAX_LINE 512	/* longer messages (SQL that SQLite quotes) are cut */

static __thread char last_msg[1024];
static __thread int last_kind;

/*
 * Text from elsewhere in a message (SQLite quotes the SQL of a damaged
 * schema, a file holds strings of its own) may have newlines and other
 * control characters: each run of white space that holds one becomes a
 * single space, so that the message stays one line.
 */
static void one_line(char *s)
{
	char *out = s;
	size_t spaces = 0;
	bool control = false;

	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == ' ' || c < 0x20 || c == 0x7f) {
			spaces++;
			control |= c != ' ';
			continue;
		}
		if (control)
			spaces = 1;
		while (spaces && out < p) {
			*out++ = ' ';
			spaces--;
		}
		*out++ = (char)c;
		spaces = 0;
		control = false;
	}
	*out = '\0';
}

/* Cut @s to MAX_LINE bytes, not inside a UTF-8 character, marking the cut. */
static void cut(char *s)
{
	size_t n = strlen(s);

	if (n <= MAX_LINE)
		return;
	n = MAX_LINE - 3;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(s + n, "...", 4);
}

void ra_set_error(int kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	one_line(last_msg);
	cut(last_msg);
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
