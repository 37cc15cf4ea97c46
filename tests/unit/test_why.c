// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: loader/util/why.h, the reason a call failed as every layer
 * writes it: the first reason kept where the code asks for it, a reason
 * that goes on after another cut as one snprintf() of the whole would be,
 * and a struct why of length 0 that takes nothing.
 */
#include <string.h>

#include "util/why.h"
#include "test.h"

static void test_a_reason_from_an_array_has_its_size(void)
{
	char buf[24];
	struct why w = WHY(buf);

	EXPECT(w.buf == buf, "WHY() writes into the array");
	EXPECT_EQ(w.len, sizeof(buf), "and knows its size");
}

static void test_the_first_reason_wins_only_where_asked(void)
{
	char buf[64];
	struct why w = WHY(buf);

	why_clear(&w);
	EXPECT(why_empty(&w), "a cleared reason is empty");
	why_first(&w, "listing %s failed", "the kthreads");
	EXPECT_STR(buf, "listing the kthreads failed",
		   "why_first() writes where no reason is");
	why_first(&w, "warming up failed");
	EXPECT_STR(buf, "listing the kthreads failed",
		   "and keeps the reason already there");
	why_set(&w, "failpoint %d", 3);
	EXPECT_STR(buf, "failpoint 3", "why_set() replaces it");
	why_clear(&w);
	why_first(&w, "warming up failed");
	EXPECT_STR(buf, "warming up failed",
		   "after why_clear() the next first reason is written");
}

static void test_a_reason_is_cut_to_the_buffer_terminated(void)
{
	char buf[8];
	struct why w = WHY(buf);

	memset(buf, 'x', sizeof(buf));
	why_set(&w, "removing CPU %u failed", 3);
	EXPECT_STR(buf, "removin", "a long reason is cut, terminated");
	EXPECT(!why_empty(&w), "and is a reason");
}

/* As say_waiting() names the CPUs, and trace_handover_begin() adds the
 * undo's reason: pieces cut where one snprintf() of the whole is. */
static void test_a_reason_goes_on_after_another(void)
{
	static const char *const piece[] = { "the kthreads of CPU", " 1",
					     ", 3", " did not hand on" };
	const char *whole = "the kthreads of CPU 1, 3 did not hand on";
	size_t len, i;

	for (len = 1; len <= strlen(whole) + 2; len++) {
		char buf[64], want[64];
		struct why w = { buf, len }, rest;

		memset(buf, 'x', sizeof(buf));
		why_set(&w, "%s", piece[0]);
		for (i = 1; i < sizeof(piece) / sizeof(piece[0]); i++) {
			rest = why_rest(&w);
			why_set(&rest, "%s", piece[i]);
		}
		snprintf(want, len, "%s", whole);
		if (!EXPECT_STR(buf, want, "the pieces read as the whole, cut where it is"))
			printf("  buffer of %zu bytes\n", len);
		if (!EXPECT_EQ(buf[len], 'x', "nothing is written past the buffer"))
			printf("  buffer of %zu bytes\n", len);
	}
}

static void test_a_reason_of_length_0_takes_nothing(void)
{
	char buf[4] = "old";
	struct why w = { buf, 0 }, rest;

	why_set(&w, "adding CPU %u failed", 1);
	why_first(&w, "listing failed");
	why_clear(&w);
	rest = why_rest(&w);
	why_set(&rest, "more");
	EXPECT_STR(buf, "old", "nothing is written, not even a terminator");
	EXPECT(why_empty(&w), "and it reads as no reason");
	EXPECT_EQ(rest.len, 0, "the room after it is none");
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_a_reason_from_an_array_has_its_size,
		   "a reason made from an array has the array's size"),
	TEST_ENTRY(test_the_first_reason_wins_only_where_asked,
		   "why_first() keeps the first reason, why_set() replaces it, why_clear() empties it"),
	TEST_ENTRY(test_a_reason_is_cut_to_the_buffer_terminated,
		   "a reason longer than its buffer is cut, terminated"),
	TEST_ENTRY(test_a_reason_goes_on_after_another,
		   "a reason written on after another is cut where one of the whole is, at every buffer size"),
	TEST_ENTRY(test_a_reason_of_length_0_takes_nothing,
		   "a reason of length 0 takes nothing and reads as none"),
};

TEST_MAIN("why")
