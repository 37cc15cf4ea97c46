// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the verifier's reason read from libbpf's message
 * (loader/kernel/vlog.c), which attach puts in its one-line error. One
 * table row per message: description, the message, the reason or none.
 */
#include <string.h>

#include "kernel/vlog.h"
#include "test.h"

struct vlog_case {
	const char *desc;
	const char *text;
	const char *reason;	/* NULL: none found */
};

/* As libbpf 1.1 prints a refused program (seen on a 6.18 that refuses
 * bpf_xdp_adjust_meta), cut short in the middle. */
#define REFUSED_META							\
	"prog 'xdp_steer': BPF program load failed: Invalid argument\n"	\
	"prog 'xdp_steer': -- BEGIN PROG LOAD LOG --\n"			\
	"0: R1=ctx() R10=fp0\n"						\
	"; if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*m))) { @ drain.h:232\n" \
	"5681: (85) call bpf_xdp_adjust_meta#54\n"			\
	"program of this type cannot use helper bpf_xdp_adjust_meta#54\n" \
	"processed 1471 insns (limit 1000000) max_states_per_insn 0 total_states 88 peak_states 88 mark_read 0\n" \
	"-- END PROG LOAD LOG --\n"

static const struct vlog_case cases[] = {
	{ .desc = "a refused helper: the line that names it",
	  .text = REFUSED_META,
	  .reason = "program of this type cannot use helper bpf_xdp_adjust_meta#54" },
	{ .desc = "the statistics at the end are skipped, however many",
	  .text = "-- BEGIN PROG LOAD LOG --\nR4 !read_ok\n"
		  "verification time 32 usec\nstack depth 0\n"
		  "processed 92 insns (limit 1000000)\n\n-- END PROG LOAD LOG --\n",
	  .reason = "R4 !read_ok" },
	{ .desc = "a message without a log has no reason",
	  .text = "libbpf: failed to load object 'xdp_steer_bpf'\n",
	  .reason = NULL },
	{ .desc = "a log cut before its end has no reason",
	  .text = "-- BEGIN PROG LOAD LOG --\n0: R1=ctx() R10=fp0\n",
	  .reason = NULL },
	{ .desc = "a log of statistics only has no reason",
	  .text = "-- BEGIN PROG LOAD LOG --\nprocessed 2 insns\n-- END PROG LOAD LOG --\n",
	  .reason = NULL },
	{ .desc = "an empty log has no reason",
	  .text = "-- BEGIN PROG LOAD LOG --\n-- END PROG LOAD LOG --\n",
	  .reason = NULL },
};

static void test_reasons(void)
{
	char buf[160];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct vlog_case *c = &cases[i];
		int found;

		strcpy(buf, "untouched");
		found = vlog_reason(c->text, buf, sizeof(buf));
		EXPECT_EQ(found, c->reason != NULL, c->desc);
		EXPECT_STR(buf, c->reason ? c->reason : "untouched", c->desc);
	}
}

static void test_long_reason_is_cut_to_the_buffer(void)
{
	char buf[8];

	EXPECT_EQ(vlog_reason(REFUSED_META, buf, sizeof(buf)), 1,
		  "a reason longer than the buffer is found");
	EXPECT_STR(buf, "program", "and cut to the buffer, terminated");
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_reasons,
		   "the verifier's reason is the log's last line before its statistics"),
	TEST_ENTRY(test_long_reason_is_cut_to_the_buffer,
		   "a reason longer than the buffer is cut, terminated"),
};

TEST_MAIN("vlog")
