/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * A small table-driven unit test harness. A test binary exits 1 when any
 * check failed, 0 otherwise, and prints one line per failed check.
 */
#ifndef RA_TEST_H
#define RA_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		test_checks++;                                                           \
		if (!(cond)) {                                                           \
			test_failures++;                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                  \
		}                                                                        \
	} while (0)

#define CHECK_INT(a, b)                                                                     \
	do {                                                                                \
		long long _a = (long long)(a), _b = (long long)(b);                         \
		test_checks++;                                                              \
		if (_a != _b) {                                                             \
			test_failures++;                                                    \
			fprintf(stderr, "%s:%d: %s == %lld, expected %lld (%s)\n", __FILE__, \
				__LINE__, #a, _a, _b, #b);                                  \
		}                                                                           \
	} while (0)

#define CHECK_STR(a, b)                                                                   \
	do {                                                                              \
		const char *_a = (a), *_b = (b);                                          \
		test_checks++;                                                            \
		if (!_a || !_b || strcmp(_a, _b) != 0) {                                  \
			test_failures++;                                                  \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, \
				__LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)");    \
		}                                                                         \
	} while (0)

/* The next number of xorshift generator @state: the same sequence every run. */
static inline uint64_t test_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

struct test_case {
	const char *name;
	void (*fn)(void);
};

/* Run the cases; prints a summary line and returns the exit status. */
static inline int test_run(const char *suite, const struct test_case *cases)
{
	for (const struct test_case *c = cases; c->name; c++) {
		int before = test_failures;

		c->fn();
		if (test_failures != before)
			fprintf(stderr, "%s: %s FAILED\n", suite, c->name);
	}
	printf("%s: %d checks, %d failed\n", suite, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

/*
 * Run the cases with a fresh temporary directory in @dir (at least 32 bytes),
 * removed afterwards; returns the exit status.
 */
static inline int test_run_in_tmpdir(const char *suite, const struct test_case *cases, char *dir)
{
	char cmd[96];
	int ret;

	snprintf(dir, 32, "/tmp/ratrace-unit.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	ret = test_run(suite, cases);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		ret = 1;
	return ret;
}

#endif
