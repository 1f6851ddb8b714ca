// SPDX-License-Identifier: LGPL-2.1
/*
 * Strings from a trace or a database in each output: text for a terminal,
 * JSON, CSV (RFC 4180) and Markdown table cells. A Linux file name is bytes:
 * any of them may be a control character, and the name need not be UTF-8 at
 * all, so none of these strings may reach an output raw. docs/report.md
 * documents the mappings.
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "report.h"

/*
 * The well-formed UTF-8 sequence at @s: its length (1 to 4) and code point,
 * or 0 when the byte at @s does not begin one (a stray continuation byte, an
 * overlong form, a surrogate, a value above U+10FFFF, a cut sequence).
 */
static int utf8_seq(const unsigned char *s, uint32_t *cp)
{
	uint32_t c = s[0], min;
	int n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the terminating NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * Characters a terminal does not show as themselves: C0, DEL, C1, and the
 * marks that reorder or break a line (bidirectional controls, U+2028/9).
 */
static bool invisible(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x61c || c == 0x200e ||
	       c == 0x200f || (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* Markdown's inline punctuation, escaped with a backslash in a table cell. */
static bool md_special(int c)
{
	return c && strchr("\\|`*_[]<>&~$", c) != NULL;
}

static void put_md(FILE *out, const char *s, size_t n, bool md)
{
	for (size_t i = 0; i < n; i++) {
		if (md && md_special(s[i]))
			fputc('\\', out);
		fputc(s[i], out);
	}
}

static void put_escape(FILE *out, uint32_t c, bool md)
{
	char buf[16];

	if (c == '\n' || c == '\t' || c == '\r' || c == '\\')
		snprintf(buf, sizeof(buf), "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' :
			 c == '\r' ? 'r' : '\\');
	else if (c < 0x80)
		snprintf(buf, sizeof(buf), "\\x%02x", c);
	else
		snprintf(buf, sizeof(buf), "\\u%04x", c);
	put_md(out, buf, strlen(buf), md);
}

/* The text escape, plain or for a Markdown cell. */
static void text_put(FILE *out, const char *s, bool md)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char buf[8];
	uint32_t c;

	while (*p) {
		int n = utf8_seq(p, &c);

		if (!n) {
			snprintf(buf, sizeof(buf), "\\x%02x", *p);
			put_md(out, buf, strlen(buf), md);
			n = 1;
		} else if (c == '\\' || invisible(c)) {
			put_escape(out, c, md);
		} else {
			put_md(out, (const char *)p, (size_t)n, md);
		}
		p += n;
	}
}

void ra_text_put(FILE *out, const char *s)
{
	text_put(out, s, false);
}

char *ra_text_escape(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	ra_text_put(f, s);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void ra_md_cell(FILE *out, const char *s)
{
	text_put(out, s, true);
}

/* Widths come from the C.UTF-8 locale's tables, whatever the user's locale. */
static locale_t utf8_locale(void)
{
	static locale_t loc;
	static bool tried;

	if (!tried) {
		tried = true;
		loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	}
	return loc;
}

/*
 * The next unit of escaped text: an escape sequence, or a character with the
 * zero-width ones after it (combining marks). Returns its length in bytes and
 * its width in columns in @w; 0 at the end.
 */
static size_t next_unit(const char *s, int *w)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	uint32_t c;
	int k;

	*w = 0;
	if (*p == '\\' && p[1]) {
		n = p[1] == 'x' ? 4 : p[1] == 'u' ? 6 : 2;
		n = strnlen(s, n);
		*w = (int)n;
		return n;
	}
	while (p[n] && (k = utf8_seq(p + n, &c)) > 0) {
		int cw = c < 0x7f ? 1 : wcwidth((wchar_t)c);

		if (n && cw != 0)
			break;
		*w += cw < 0 ? 1 : cw;
		n += (size_t)k;
	}
	return n ? n : 1;	/* a stray byte: not from ra_text_escape() */
}

/* Walk the units of @s up to @cols columns; returns the bytes that fit. */
static size_t walk(const char *s, int cols, int *width)
{
	locale_t loc = utf8_locale(), old = loc ? uselocale(loc) : (locale_t)0;
	size_t off = 0;
	int w, total = 0;

	while (s[off]) {
		size_t n = next_unit(s + off, &w);

		if (total + w > cols)
			break;
		total += w;
		off += n;
	}
	if (loc)
		uselocale(old);
	*width = total;
	return off;
}

int ra_text_width(const char *s)
{
	int w;

	walk(s, 1 << 30, &w);
	return w;
}

size_t ra_text_prefix(const char *s, int cols)
{
	int w;

	return walk(s, cols, &w);
}

void ra_text_pad(FILE *out, const char *s, int width, bool right)
{
	int pad = width - ra_text_width(s);

	if (right && pad > 0)
		fprintf(out, "%*s", pad, "");
	fputs(s, out);
	if (!right && pad > 0)
		fprintf(out, "%*s", pad, "");
}

static void put_latin1(FILE *out, unsigned char b)
{
	fputc(0xc0 | b >> 6, out);
	fputc(0x80 | (b & 0x3f), out);
}

/* The two-character JSON escape of @c, or 0. */
static char json_named(uint32_t c)
{
	switch (c) {
	case '"':
		return '"';
	case '\\':
		return '\\';
	case '\b':
		return 'b';
	case '\f':
		return 'f';
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	case '\t':
		return 't';
	default:
		return 0;
	}
}

void ra_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	uint32_t c;

	fputc('"', out);
	for (int n; *p; p += n) {
		n = utf8_seq(p, &c);
		if (!n) {	/* not UTF-8: the byte as the code point of its value */
			fprintf(out, "\\u%04x", *p);
			n = 1;
		} else if (json_named(c)) {
			fprintf(out, "\\%c", json_named(c));
		} else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029) {
			fprintf(out, "\\u%04x", c);
		} else {
			fwrite(p, 1, (size_t)n, out);
		}
	}
	fputc('"', out);
}

void ra_csv_field(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	bool quote = p[strcspn((const char *)p, ",\"\r\n")] != '\0';
	uint32_t c;

	if (quote)
		fputc('"', out);
	for (int n; *p; p += n) {
		n = utf8_seq(p, &c);
		if (!n) {
			put_latin1(out, *p);
			n = 1;
		} else {
			if (c == '"')
				fputc('"', out);
			fwrite(p, 1, (size_t)n, out);
		}
	}
	if (quote)
		fputc('"', out);
}

void ra_xml_text(FILE *out, const char *s)
{
	char *t = ra_text_escape(s);
	const unsigned char *p = (const unsigned char *)(t ? t : "");

	while (*p) {
		uint32_t c;
		int n = utf8_seq(p, &c);

		if (n > 1 && (c == 0xfffe || c == 0xffff)) {
			fprintf(out, "\\u%04x", c);
		} else if (n == 1 && strchr("&<>\"'", (int)c)) {
			fputs(c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" :
			      c == '"' ? "&quot;" : "&apos;", out);
		} else {
			fwrite(p, 1, (size_t)(n ? n : 1), out);
		}
		p += n ? n : 1;
	}
	free(t);
}
