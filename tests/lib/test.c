// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "test.h"

int test_failed;
const char *test_skip_reason;
static char skip_buf[256];

void test_fail(const char *file, int line, const char *what,
	       const char *fmt, ...)
{
	va_list ap;

	test_failed = 1;
	printf("  %s:%d: expected that %s, but ", file, line, what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_buf, sizeof(skip_buf), fmt, ap);
	va_end(ap);
	test_skip_reason = skip_buf;
}

/* Optional argument: run only the tests whose name contains it. */
int test_run_all(const char *suite, const struct test_case *tests, int n,
		 int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	int i, any_failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n; i++) {
		if (filter && !strstr(tests[i].name, filter))
			continue;
		test_failed = 0;
		test_skip_reason = NULL;
		tests[i].fn();
		if (test_failed) {
			printf("FAIL %s: %s\n", suite, tests[i].name);
			any_failed = 1;
		} else if (test_skip_reason) {
			printf("SKIP %s: %s (%s)\n", suite, tests[i].name,
			       test_skip_reason);
		} else {
			printf("PASS %s: %s\n", suite, tests[i].name);
		}
	}
	return any_failed;
}
