// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * balance.c - the balancer's per-bucket load counters (steer_load): what
 * the table places is counted in the frame's drain bucket, on the CPU
 * that received it, and only under a slot with STEER_F_BALANCE; frames
 * placed by a rule or the non-IP setting never are (they cannot move).
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fixtures.h"

/* Every drain bucket's count on every CPU: the frame's own record on
 * 'cpu' holds 'frames' frames of 'bytes' bytes each, and nothing else
 * anywhere. */
static bool load_is(__u32 record, int cpu, __u64 frames, __u64 bytes)
{
	struct steer_load *v = calloc(prog.ncpus, sizeof(*v));
	int c, stray = 0, ok = 1;
	__u32 key;

	if (!EXPECT(v != NULL, "memory for the per-CPU values"))
		return false;
	for (key = 0; key < STEER_TABLE_MAX && ok; key++) {
		ok = EXPECT_EQ(steer_prog_rx_read(&prog, prog.steer_load, key,
						  v, sizeof(*v)), 0,
			       "steer_load could be read");
		for (c = 0; ok && c < prog.ncpus; c++) {
			if (key == record && c == cpu)
				continue;
			stray += v[c].packets || v[c].bytes;
		}
		if (ok && key == record) {
			EXPECT_EQ(v[cpu].packets, frames,
				  "the frame's drain bucket counts its frames on the receiving CPU");
			EXPECT_EQ(v[cpu].bytes, frames * bytes,
				  "and their bytes");
		}
	}
	free(v);
	return ok && EXPECT_EQ(stray, 0, "no other bucket or CPU counts anything");
}

static __u32 record_of(const struct frame *f, const struct steer_slot *s)
{
	return steer_table_index(frame_hash(f, s), STEER_TABLE_MAX);
}

/* Sends 'n' copies of the frame; each must get 'verdict'. */
static bool send(const struct frame *f, int n, int verdict)
{
	int i, got = -1;

	for (i = 0; i < n; i++)
		if (!EXPECT_EQ(steer_prog_run(&prog, f->buf, f->len, &got), 0,
			       "the program ran") ||
		    !EXPECT_EQ(got, verdict, "the frame got its verdict"))
			return false;
	return true;
}

/* Every bucket to 'cpu', under 'flags'. */
static bool policy_all_to(struct steer_slot *s, __u32 flags, int cpu)
{
	base_slot(s, flags);
	return EXPECT_EQ(steer_prog_fill_table(&prog, 0, cpu, s->table_size) ||
			 commit(s), 0, "the policy was written");
}

static void test_no_balance_counts_nothing(void)
{
	struct steer_slot s;
	struct frame f;

	if (!ready() || !build_frame(&f, v4_udp) ||
	    !policy_all_to(&s, STEER_F_HASH_L4, remote_cpu) ||
	    !send(&f, 3, XDP_REDIRECT))
		return;
	load_is(record_of(&f, &s), local_cpu, 0, 0);
}

static void test_balance_counts_the_bucket(void)
{
	struct steer_slot s;
	struct frame f;

	if (!ready() || !build_frame(&f, v6_tcp) ||
	    !policy_all_to(&s, STEER_F_HASH_L4 | STEER_F_BALANCE, remote_cpu) ||
	    !send(&f, 3, XDP_REDIRECT))
		return;
	load_is(record_of(&f, &s), local_cpu, 3, f.len);
}

static void test_balance_counts_the_drain_bucket(void)
{
	struct steer_slot s;
	struct frame f;

	/* A 64-bucket table: the count is kept per finest bucket all the
	 * same, so the balancer reads any table size from it. */
	if (!ready() || !build_frame(&f, v4_tcp))
		return;
	base_slot(&s, STEER_F_HASH_L4 | STEER_F_BALANCE | STEER_F_DRAIN);
	s.table_size = 64;
	if (!EXPECT_EQ(steer_prog_fill_table(&prog, 0, remote_cpu, 64) ||
		       commit(&s), 0, "the policy was written") ||
	    !send(&f, 2, XDP_REDIRECT))
		return;
	load_is(record_of(&f, &s), local_cpu, 2, f.len);
}

static void test_balance_counts_the_fast_path(void)
{
	struct steer_slot s;
	struct frame f;

	if (!ready() || !build_frame(&f, v4_udp) ||
	    !policy_all_to(&s, STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH |
			   STEER_F_BALANCE, local_cpu) ||
	    !send(&f, 2, XDP_PASS))
		return;
	load_is(record_of(&f, &s), local_cpu, 2, f.len);
}

static void test_rule_frames_are_not_counted(void)
{
	struct steer_target t = { .ncpus = 1, .cpu = 0 };
	struct steer_flow flow;
	struct steer_slot s;
	struct frame f;

	if (!ready() || !build_frame(&f, v4_udp) ||
	    !policy_all_to(&s, STEER_F_HASH_L4 | STEER_F_BALANCE, remote_cpu))
		return;
	frame_flow(&f, &flow);
	t.cpu = remote_cpu;
	if (!EXPECT_EQ(steer_slot_add_shape(&s, STEER_M_ALL) ||
		       steer_prog_add_flow_rule(&prog, 0, STEER_M_ALL, &flow, &t) ||
		       commit(&s), 0, "a rule pins the frame's flow") ||
	    !send(&f, 2, XDP_REDIRECT))
		return;
	load_is(record_of(&f, &s), local_cpu, 0, 0);
}

static void test_nonip_frames_are_not_counted(void)
{
	struct steer_slot s;
	struct frame f;

	if (!ready() || !build_frame(&f, arp))
		return;
	base_slot(&s, STEER_F_HASH_L4 | STEER_F_BALANCE);
	s.nonip_cpu = remote_cpu;
	if (!EXPECT_EQ(steer_prog_fill_table(&prog, 0, remote_cpu,
					     s.table_size) || commit(&s), 0,
		       "the policy was written") ||
	    !send(&f, 2, XDP_REDIRECT))
		return;
	load_is(0, local_cpu, 0, 0);
}

const struct test_case balance_tests[] = {
	TEST_ENTRY(test_no_balance_counts_nothing,
		   "balance load: without balance: no bucket counts a frame"),
	TEST_ENTRY(test_balance_counts_the_bucket,
		   "balance load: a frame the table places counts in its drain bucket, on the receiving CPU"),
	TEST_ENTRY(test_balance_counts_the_drain_bucket,
		   "balance load: with a smaller table the count is still per drain bucket"),
	TEST_ENTRY(test_balance_counts_the_fast_path,
		   "balance load: a frame passed on the fast path counts too"),
	TEST_ENTRY(test_rule_frames_are_not_counted,
		   "balance load: a frame a rule places counts nowhere"),
	TEST_ENTRY(test_nonip_frames_are_not_counted,
		   "balance load: a non-IP frame counts nowhere"),
};
const size_t n_balance_tests = ARRAY_SIZE(balance_tests);
