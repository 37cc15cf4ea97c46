// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tier: the possible CPUs as per-CPU maps lay out their values
 * (loader/kernel/possible.c): with holes in the mask a value's position
 * is not its CPU's id, and the count is not a bound on the ids. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/possible.h"
#include "test.h"

static struct possible_cpus pc;

/* possible_read() of a file holding 'text'. */
static int read_text(const char *text)
{
	char path[] = "/tmp/xdp-steer-possible.XXXXXX";
	int fd = mkstemp(path), err;

	if (fd < 0)
		return -errno;
	err = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -EIO;
	close(fd);
	if (!err)
		err = possible_read(&pc, path);
	unlink(path);
	return err;
}

static void test_dense_mask(void)
{
	if (!EXPECT_EQ(read_text("0-3\n"), 0, "0-3 is read"))
		return;
	EXPECT_EQ(pc.count, 4, "4 values a lookup returns");
	EXPECT_EQ(pc.span, 4, "ids below 4");
	EXPECT_EQ(pc.id[3], 3, "position 3 is CPU 3");
}

static void test_mask_with_holes(void)
{
	if (!EXPECT_EQ(read_text("0-3,8-11,20\n"), 0, "0-3,8-11,20 is read"))
		return;
	EXPECT_EQ(pc.count, 9, "9 values a lookup returns");
	EXPECT_EQ(pc.span, 21, "ids below 21: the count is no bound on them");
	EXPECT_EQ(pc.id[4], 8, "position 4 is CPU 8");
	EXPECT_EQ(pc.id[8], 20, "position 8 is CPU 20");
}

static void test_largest_kernel(void)
{
	if (!EXPECT_EQ(read_text("0-8191\n"), 0, "0-8191 (NR_CPUS 8192) is read"))
		return;
	EXPECT_EQ(pc.count, 8192, "8192 values");
	EXPECT_EQ(pc.span, 8192, "ids below 8192");
}

static void test_bad_masks_are_refused(void)
{
	static const char *bad[] = { "", "\n", "3-1\n", "0-3,2\n", "0-8192\n",
				     "a\n", "0-\n", "1,1\n" };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(read_text(bad[i]), -EINVAL, "a mask out of order, past 8191 or not a list is refused");
}

static void test_scatter_puts_each_value_at_its_cpu(void)
{
	__u64 packed[9] = { 10, 11, 12, 13, 18, 19, 20, 21, 30 };
	__u64 by_id[21], want[21] = { 0 };
	int i;

	if (!EXPECT_EQ(read_text("0-3,8-11,20\n"), 0, "0-3,8-11,20 is read"))
		return;
	for (i = 0; i < 9; i++)
		want[pc.id[i]] = packed[i];
	memset(by_id, 0xff, sizeof(by_id));
	possible_scatter(&pc, packed, sizeof(__u64), by_id);
	EXPECT(!memcmp(by_id, want, sizeof(want)),
	       "each value lands at its CPU's id, zeros in the holes");
	/* In place: the caller's buffer holds the values, then the ids. */
	memset(by_id, 0xff, sizeof(by_id));
	memcpy(by_id, packed, sizeof(packed));
	possible_scatter(&pc, by_id, sizeof(__u64), by_id);
	EXPECT(!memcmp(by_id, want, sizeof(want)), "in place too");
}

static void test_this_machine(void)
{
	const struct possible_cpus *p = possible_cpus();

	if (!EXPECT(p != NULL, "this machine's possible CPUs are read"))
		return;
	EXPECT(p->count >= 1 && p->span >= p->count,
	       "at least one, and the span no less than the count");
	EXPECT_EQ(possible_span(), p->span, "possible_span() is its span");
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_dense_mask, "a dense mask: positions are ids"),
	TEST_ENTRY(test_mask_with_holes, "a mask with holes: each position's id, and the span past the count"),
	TEST_ENTRY(test_largest_kernel, "the largest kernel's 8192 possible CPUs are read"),
	TEST_ENTRY(test_bad_masks_are_refused, "masks the kernel never prints are refused"),
	TEST_ENTRY(test_scatter_puts_each_value_at_its_cpu, "per-CPU values spread to their CPUs' ids"),
	TEST_ENTRY(test_this_machine, "this machine's mask is read once"),
};

TEST_MAIN("possible")
