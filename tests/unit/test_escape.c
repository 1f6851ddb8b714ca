// SPDX-License-Identifier: GPL-2.0
/*
 * The escapers of the outputs (report/escape.c): text, JSON, CSV and
 * Markdown, on strings a Linux file name can hold, with their right answers
 * written out by hand.
 */
#include "report.h"
#include "test.h"

/* What @put wrote for @in. */
static char *capture(void (*put)(FILE *, const char *), const char *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	put(f, in);
	fclose(f);
	return buf;
}

struct escape_case {
	const char *in, *text, *json, *csv, *md;
};

static const struct escape_case cases[] = {
	{ "plain", "plain", "\"plain\"", "plain", "plain" },
	{ "", "", "\"\"", "", "" },
	{ "a\nb", "a\\nb", "\"a\\nb\"", "\"a\nb\"", "a\\\\nb" },
	{ "t\tr\r", "t\\tr\\r", "\"t\\tr\\r\"", "\"t\tr\r\"", "t\\\\tr\\\\r" },
	{ "esc\x1b[31m", "esc\\x1b[31m", "\"esc\\u001b[31m\"", "esc\x1b[31m", "esc\\\\x1b\\[31m" },
	{ "del\x7f", "del\\x7f", "\"del\\u007f\"", "del\x7f", "del\\\\x7f" },
	{ "q\"uote", "q\"uote", "\"q\\\"uote\"", "\"q\"\"uote\"", "q\"uote" },
	{ "back\\slash", "back\\\\slash", "\"back\\\\slash\"", "back\\slash", "back\\\\\\\\slash" },
	{ "a|b,c", "a|b,c", "\"a|b,c\"", "\"a|b,c\"", "a\\|b,c" },
	{ "*_`<x>&[l]~$", "*_`<x>&[l]~$", "\"*_`<x>&[l]~$\"", "*_`<x>&[l]~$",
	  "\\*\\_\\`\\<x\\>\\&\\[l\\]\\~\\$" },
	/* not UTF-8: text shows the bytes; JSON and CSV the code points of their values */
	{ "bad\xff\xfe", "bad\\xff\\xfe", "\"bad\\u00ff\\u00fe\"", "bad\xc3\xbf\xc3\xbe",
	  "bad\\\\xff\\\\xfe" },
	{ "cut\xe6\x97", "cut\\xe6\\x97", "\"cut\\u00e6\\u0097\"", "cut\xc3\xa6\xc2\x97",
	  "cut\\\\xe6\\\\x97" },
	{ "over\xc0\xaf", "over\\xc0\\xaf", "\"over\\u00c0\\u00af\"", "over\xc3\x80\xc2\xaf",
	  "over\\\\xc0\\\\xaf" },
	{ "sur\xed\xa0\x80", "sur\\xed\\xa0\\x80", "\"sur\\u00ed\\u00a0\\u0080\"",
	  "sur\xc3\xad\xc2\xa0\xc2\x80", "sur\\\\xed\\\\xa0\\\\x80" },
	/* valid UTF-8 is kept; C1 and the bidirectional controls are not */
	{ "\xc3\xbcn\xc3\xaf\xe6\x97\xa5\xf0\x9f\x98\x80", "\xc3\xbcn\xc3\xaf\xe6\x97\xa5\xf0\x9f\x98\x80",
	  "\"\xc3\xbcn\xc3\xaf\xe6\x97\xa5\xf0\x9f\x98\x80\"",
	  "\xc3\xbcn\xc3\xaf\xe6\x97\xa5\xf0\x9f\x98\x80", "\xc3\xbcn\xc3\xaf\xe6\x97\xa5\xf0\x9f\x98\x80" },
	{ "c1\xc2\x9bx", "c1\\u009bx", "\"c1\\u009bx\"", "c1\xc2\x9bx", "c1\\\\u009bx" },
	{ "rl\xe2\x80\xaeo", "rl\\u202eo", "\"rl\xe2\x80\xaeo\"", "rl\xe2\x80\xaeo", "rl\\\\u202eo" },
	{ NULL, NULL, NULL, NULL, NULL }
};

static void check_put(void (*put)(FILE *, const char *), const char *in, const char *want)
{
	char *got = capture(put, in);

	CHECK_STR(got, want);
	free(got);
}

static void test_escapers(void)
{
	for (const struct escape_case *c = cases; c->in; c++) {
		char *t = ra_text_escape(c->in);

		CHECK_STR(t, c->text);
		free(t);
		check_put(ra_text_put, c->in, c->text);
		check_put(ra_json_string, c->in, c->json);
		check_put(ra_csv_field, c->in, c->csv);
		check_put(ra_md_cell, c->in, c->md);
	}
	check_put(ra_json_string, NULL, "\"\"");
}

/* XML: the text escape first (no control byte or invalid byte reaches it), then entities */
static void test_xml(void)
{
	check_put(ra_xml_text, "plain", "plain");
	check_put(ra_xml_text, "</a>&\"'", "&lt;/a&gt;&amp;&quot;&apos;");
	check_put(ra_xml_text, "c\x01\x1b\n", "c\\x01\\x1b\\n");
	check_put(ra_xml_text, "bad\xff", "bad\\xff");
	check_put(ra_xml_text, "non\xef\xbf\xbe\xef\xbf\xbf", "non\\ufffe\\uffff");
	check_put(ra_xml_text, "\xc3\xbcn\xe6\x97\xa5", "\xc3\xbcn\xe6\x97\xa5");
	check_put(ra_xml_text, NULL, "");
}

struct width_case {
	const char *in;
	int width;
	int prefix3;	/* bytes of the prefix within 3 columns */
};

static const struct width_case widths[] = {
	{ "abcdef", 6, 3 },
	{ "\xe6\x97\xa5\xe6\x9c\xac", 4, 3 },			/* two wide characters */
	{ "e\xcc\x81" "e\xcc\x81" "e\xcc\x81" "e", 4, 9 },	/* combining accents: zero width */
	{ "a\\x1b", 5, 1 },					/* an escape is never cut */
	{ "\\\\ab", 4, 3 },
	{ "", 0, 0 },
	{ NULL, 0, 0 }
};

static void test_widths(void)
{
	for (const struct width_case *c = widths; c->in; c++) {
		CHECK_INT(ra_text_width(c->in), c->width);
		CHECK_INT(ra_text_prefix(c->in, 3), c->prefix3);
	}
}

static void test_pad(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	ra_text_pad(f, "\xe6\x97\xa5", 4, false);
	fputc('|', f);
	ra_text_pad(f, "ab", 4, true);
	fclose(f);
	CHECK_STR(buf, "\xe6\x97\xa5  |  ab");
	free(buf);
}

int main(void)
{
	static const struct test_case tests[] = {
		{ "XML text", test_xml },
		{ "escapers", test_escapers },
		{ "widths", test_widths },
		{ "pad", test_pad },
		{ NULL, NULL },
	};

	return test_run("escape", tests);
}
