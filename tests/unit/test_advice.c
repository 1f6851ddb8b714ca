// SPDX-License-Identifier: LGPL-2.1
/*
 * advice_calls on hand-built event sequences: each WILLNEED call (fadvise64,
 * readahead, madvise) with the forced windows its task opened before its
 * next readahead event, the answers worked out by hand. File 5 has 8192 pages.
 */
#include "events.h"

/*
 * One event of a script: "PID:OP:A:B". OP f fadvise64, r readahead, m madvise
 * (A the first page asked, of the file or for madvise of the address space;
 * B the pages asked), u a page_cache_ra_unbounded of file 5 (A its start, B
 * its size, the pages added with it), v the same of file 3 (a second mapping
 * of one madvise), t a sync trigger of file 5 at page A with an ra_order
 * window of B pages, g a read of pages A to B of file 5 from the page cache
 * (a task of the recorded devices).
 */
static void advice_step(const char *tok)
{
	struct ra_event ev = { 0 };
	int pid = 0, a = 0, b = 0;
	char op = 0;

	CHECK(sscanf(tok, "%d:%c:%d:%d", &pid, &op, &a, &b) == 4);
	switch (op) {
	case 'f':
	case 'r':
	case 'm':
		ev.ra.index = (uint64_t)a;
		ev.ra.req_count = (uint64_t)b;
		put(&ev, op == 'f' ? RA_EV_FADVISE : op == 'r' ? RA_EV_SYS_READAHEAD : RA_EV_MADVISE,
		    pid);
		break;
	case 'u':
	case 'v':
		unbounded(pid, op == 'u' ? 5 : 3, (uint64_t)a, (uint32_t)b);
		add(pid, op == 'u' ? 5 : 3, (uint64_t)a, b, 0);
		break;
	case 'g':
		access_ev(RA_EV_GET_PAGES, pid, 5, (uint64_t)a, (uint64_t)b);
		break;
	case 't':
		trig(1, pid, 5, (uint64_t)a, 1, 32);
		order(pid, 5, (uint64_t)a, (uint32_t)b, 0);
		add(pid, 5, (uint64_t)a, b, 0);
		break;
	default:
		CHECK(!"bad step");
	}
}

/* Rows: call|dev|ino|offset_pages|asked_pages|windows|read_pages|pages_added. */
static const struct {
	const char *name;
	const char *events;
	const char *want;
} cases[] = {
	{ "madvise: file and offset from its window, capped at 320 pages",
	  "10:m:8323072:8192 10:u:0:320", "madvise|7340032|5|0|8192|1|320|320" },
	{ "madvise of the middle of a mapping: the window's file page",
	  "10:m:8323100:64 10:u:28:64", "madvise|7340032|5|28|64|1|64|64" },
	{ "madvise read in two chunks, a later window after a trigger not its",
	  "10:m:8323072:1024 10:u:0:512 10:u:512:512 10:t:2000:32 10:u:4000:16",
	  "madvise|7340032|5|0|1024|2|1024|1024" },
	{ "madvise that read nothing (anonymous memory): its address, no file",
	  "10:g:0:7 10:m:8323072:16", "madvise|NULL|NULL|8323072|16|0|0|0" },
	{ "another task's forced window is not the call's",
	  "10:g:0:7 10:m:8323072:64 11:u:0:64", "madvise|NULL|NULL|8323072|64|0|0|0" },
	{ "the next call takes the windows after it",
	  "10:m:8323072:64 10:m:9000000:32 10:u:0:32",
	  "madvise|NULL|NULL|8323072|64|0|0|0;madvise|7340032|5|0|32|1|32|32" },
	{ "a task with no page of the recorded devices: its calls are another device's",
	  "12:f:0:64 12:m:8323072:16 10:f:100:50 10:u:100:50", "fadvise64|7340032|5|100|50|1|50|50" },
	{ "fadvise64 and readahead: their own offsets",
	  "10:f:100:50 10:u:100:50 10:r:300:8 10:u:300:8",
	  "fadvise64|7340032|5|100|50|1|50|50;readahead|7340032|5|300|8|1|8|8" },
	{ "a call of zero length", "10:g:0:0 10:m:8323072:0", "madvise|NULL|NULL|8323072|0|0|0|0" },
	{ "madvise over two mappings: the file, offset and end of its first window",
	  "10:m:8323172:1024 10:u:100:64 10:v:0:64", "madvise|7340032|5|100|1024|2|128|128" },
	{ "asked past the end of the 8192-page file: cut there",
	  "10:m:8323172:10000 10:u:100:320", "madvise|7340032|5|100|8092|1|320|320" },
};

static void test_calls(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[512], name[32], *save = NULL;
		const char *got;

		snprintf(name, sizeof(name), "advice%zu", i);
		begin(name);
		CHECK_INT(ra_db_add_file(db, run_id, DEV, 5, "/f", 8192 * 4096), 0);
		snprintf(buf, sizeof(buf), "%s", cases[i].events);
		for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			advice_step(tok);
		got = result("SELECT call, dev, ino, offset_pages, asked_pages, windows, read_pages,"
			     " pages_added FROM advice_calls ORDER BY seq");
		if (strcmp(got, cases[i].want) != 0)
			fprintf(stderr, "advice: %s\n", cases[i].name);
		CHECK_STR(got, cases[i].want);
	}
}

/* The calls open no window of their own (dev 0, ino 0 is no file). */
static void test_no_window(void)
{
	begin("nowindow");
	advice_step("10:m:8323072:64");
	advice_step("10:f:0:64");
	advice_step("10:r:0:64");
	CHECK_STR(result("SELECT COUNT(*) FROM windows"), "0");
}

int main(void)
{
	static const struct test_case tcases[] = {
		{ "WILLNEED calls and their windows", test_calls },
		{ "the calls open no window", test_no_window },
		{ NULL, NULL },
	};
	return test_run_in_tmpdir("test_advice", tcases, dir);
}
