/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * test.h - the smallest test framework that does what we need: tests are
 * functions listed in a table, assertions are named by the sentence they
 * prove, and each test prints one line the runner (tests/run) counts:
 *
 *   PASS <suite>: <test name>
 *   FAIL <suite>: <test name>     (after the failed assertions' lines)
 *   SKIP <suite>: <test name> (<reason>)
 *
 * A test binary exits 1 when any test failed.
 */
#ifndef XDP_STEER_TEST_H
#define XDP_STEER_TEST_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

/* State of the running test. */
extern int test_failed;
extern const char *test_skip_reason;

/* Records a failed assertion; 'what' reads as a sentence ("the frame was
 * redirected to CPU 1"). */
void test_fail(const char *file, int line, const char *what,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Marks the running test skipped, with the reason; the caller returns. */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs the table; returns the exit status for main(). */
int test_run_all(const char *suite, const struct test_case *tests, int n,
		 int argc, char **argv);

#define EXPECT(cond, what)						\
	((cond) ? 1 : (test_fail(__FILE__, __LINE__, what,		\
				 "condition '%s' is false", #cond), 0))

#define EXPECT_EQ(actual, expected, what) ({				\
	long long _a = (long long)(actual), _e = (long long)(expected);	\
	_a == _e ? 1 : (test_fail(__FILE__, __LINE__, what,		\
				  "got %lld, expected %lld", _a, _e), 0);	\
})

#define EXPECT_STR(actual, expected, what) ({				\
	const char *_a = (actual), *_e = (expected);			\
	(_a && _e && !strcmp(_a, _e)) ? 1 :				\
		(test_fail(__FILE__, __LINE__, what,			\
			   "got \"%s\", expected \"%s\"",		\
			   _a ? _a : "(null)", _e ? _e : "(null)"), 0);	\
})

#define TEST_ENTRY(fn, name) { name, fn }
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Defines main() over a table named 'tests'. */
#define TEST_MAIN(suite)						\
	int main(int argc, char **argv)					\
	{								\
		return test_run_all(suite, tests, ARRAY_SIZE(tests),	\
				    argc, argv);			\
	}

/* Defines main() for a fixture table: run_case() runs once per row of
 * 'cases', with 'cur' pointing at the row and the row's 'desc' as the
 * test's name (so each row gets its own line), then the table 'tests'. */
#define TEST_MAIN_WITH_CASES(suite)					\
	int main(int argc, char **argv)					\
	{								\
		int failed = 0;						\
		size_t i;						\
									\
		for (i = 0; i < ARRAY_SIZE(cases); i++) {		\
			struct test_case t = { cases[i].desc, run_case }; \
									\
			cur = &cases[i];				\
			failed |= test_run_all(suite, &t, 1, argc, argv); \
		}							\
		failed |= test_run_all(suite, tests, ARRAY_SIZE(tests),	\
				       argc, argv);			\
		return failed;						\
	}

#endif /* XDP_STEER_TEST_H */
