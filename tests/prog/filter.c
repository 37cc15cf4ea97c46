// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * filter.c - the rule filter in front of the rule lookups (rule_filter,
 * include/xdp_steer/filter.h): a rule whose bit is not set is never looked
 * up, so the filter is really in the path, and the bits the loader's own
 * helpers set let every rule through. (compiled.c proves the same for the rules
 * the loader's apply writes.)
 */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>

#include "prog_env.h"

#define SRC	"10.1.2.3"
#define DST	"10.9.8.7"

static void udp_frame(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = SRC, .dst = DST,
					   .proto = IPPROTO_UDP });
	frame_udp(f, 4000, 53);
}

/* Slot 0 live with 'shape', its table all on this CPU: a frame no rule
 * places is passed here. */
static bool setup(struct frame *f, __u32 shape)
{
	struct steer_slot s;

	if (!ready() || !build_frame(f, udp_frame))
		return false;
	base_slot(&s, STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH);
	return EXPECT_EQ(steer_slot_add_shape(&s, shape), 0, "the shape fits") &&
	       EXPECT_EQ(steer_prog_fill_table(&prog, 0, local_cpu, TABLE_SIZE),
			 0, "the table was written") &&
	       EXPECT_EQ(commit(&s), 0, "the slot went live");
}

static const struct steer_target *to_remote(void)
{
	static struct steer_target t;

	t.ncpus = 1;
	t.cpu = remote_cpu;
	t.rule_id = 0;
	return &t;
}

static void test_exact_rule_is_looked_up_only_through_its_filter_bit(void)
{
	const struct expect table = PASS_LOCAL(0);
	const struct expect rule = REDIRECT(AT_REMOTE, ALSO_FLOW_HIT);
	struct steer_rule_key key = {};
	struct steer_flow flow;
	struct frame f;

	if (!setup(&f, STEER_M_ALL))
		return;
	frame_flow(&f, &flow);
	steer_rule_key_fill(&key, 0, STEER_M_ALL, &flow);
	if (!EXPECT_EQ(bpf_map_update_elem(prog.flow_rules, &key, to_remote(),
					   BPF_ANY), 0,
		       "the rule went into flow_rules, its filter bit left clear"))
		return;
	expect_run(&f, &table, "a rule the filter does not know is not looked up");
	if (!EXPECT_EQ(steer_prog_add_flow_rule(&prog, 0, STEER_M_ALL, &flow,
						to_remote()), 0,
		       "the rule was written with its bit"))
		return;
	expect_run(&f, &rule, "with its bit set, the rule places the frame");
}

static void test_prefix_rule_is_looked_up_only_through_its_filter_bits(void)
{
	const __u32 shape = STEER_M_SRC | STEER_M_PREFIX_SRC;
	const struct expect table = PASS_LOCAL(0);
	const struct expect rule = REDIRECT(AT_REMOTE, ALSO_PREFIX_HIT);
	struct steer_prefix_key key = {};
	struct steer_flow flow;
	struct frame f;

	if (!setup(&f, shape))
		return;
	frame_flow(&f, &flow);
	steer_prefix_key_fill(&key, 0, shape, &flow);
	key.prefixlen = STEER_PREFIX_FIXED_BITS + 24;
	((__u8 *)key.addr)[3] = 0;
	if (!EXPECT_EQ(bpf_map_update_elem(prog.prefix_rules, &key, to_remote(),
					   BPF_ANY), 0,
		       "10.1.2.0/24 went into prefix_rules, its filter bits left clear"))
		return;
	expect_run(&f, &table, "a prefix the filter does not know is not looked up");
	if (!EXPECT_EQ(steer_prog_add_prefix(&prog, 0, shape, &flow, 24,
					     to_remote()), 0,
		       "the prefix was written with its bits"))
		return;
	expect_run(&f, &rule, "with its bits set, the prefix places the frame");
}

const struct test_case filter_tests[] = {
	TEST_ENTRY(test_exact_rule_is_looked_up_only_through_its_filter_bit,
		   "rule filter: an exact rule is looked up only when its bit is set"),
	TEST_ENTRY(test_prefix_rule_is_looked_up_only_through_its_filter_bits,
		   "rule filter: a prefix rule is looked up only when its bits are set"),
};
const size_t n_filter_tests = ARRAY_SIZE(filter_tests);
