// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * test_prog.c - the program tier: the real bpf/xdp_steer.bpf.o run with
 * bpf_prog_test_run_opts on crafted frames (root, no interface, no traffic).
 *
 * Most cases are rows of one table: a frame, a policy, and what must happen
 * (verdict, the CPU whose queued[] entry counts the frame, the one outcome
 * counter that moves, and the rule/fragment counters that move with it).
 * The CPU is never hard-coded where the hash decides it: the policy points
 * only the bucket steer_flow_hash() predicts for the frame at a present CPU
 * and every other bucket at a CPU without a cpumap entry, so a frame that
 * lands in any other bucket shows up as passed_no_target.
 *
 * Properties over many frames follow the table (loops.c, random.c). A
 * failing frame is printed with a line that replays it:
 *	XDP_STEER_FRAME=<hex> tests/prog/test_prog
 */
#include <stdio.h>
#include <stdlib.h>

#include "fixtures.h"

static const struct prog_case cases[] = {
	/* Protocols: each lands in the bucket the shared hash predicts. */
	{ "IPv4 TCP goes to the CPU of its predicted bucket",
	  v4_tcp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 UDP goes to the CPU of its predicted bucket",
	  v4_udp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 UDP-Lite goes to the CPU of its predicted bucket",
	  v4_udplite, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 SCTP goes to the CPU of its predicted bucket",
	  v4_sctp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 ICMP hashes on addresses and protocol",
	  v4_icmp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 GRE (no ports) hashes on addresses and protocol",
	  v4_gre, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 TCP goes to the CPU of its predicted bucket",
	  v6_tcp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 UDP goes to the CPU of its predicted bucket",
	  v6_udp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 UDP-Lite goes to the CPU of its predicted bucket",
	  v6_udplite, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 SCTP goes to the CPU of its predicted bucket",
	  v6_sctp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 ICMPv6 hashes on addresses and protocol",
	  v6_icmpv6, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 with no next header hashes on addresses",
	  v6_no_next, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 TCP with an L3-only hash goes to its predicted bucket",
	  v4_tcp, policy_bucket_l3, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 UDP with a symmetric hash goes to its predicted bucket",
	  v6_udp, policy_bucket_sym, REDIRECT(AT_REMOTE, 0) },
	{ "a frame padded past tot_len is steered, not rejected",
	  v4_tcp_padded, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4: ports past tot_len, in the frame, are not read: steered by addresses and protocol",
	  v4_ports_past_tot_len, policy_bucket_partial, PARTIAL(AT_REMOTE) },
	{ "IPv6: ports past payload_len, in the frame, are not read: steered by addresses and protocol",
	  v6_ports_past_payload_len, policy_bucket_partial, PARTIAL(AT_REMOTE) },
	{ "IPv6: an extension header running past payload_len leaves the addresses to steer by",
	  v6_ext_past_payload_len, policy_bucket_addrs, PARTIAL(AT_REMOTE) },

	/* VLAN tags. */
	{ "IPv4 TCP under one 802.1Q tag is steered like untagged",
	  v4_tcp_q, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 TCP under one 802.1ad tag is steered like untagged",
	  v4_tcp_ad, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 UDP under 802.1ad + 802.1Q (QinQ) is steered",
	  v4_udp_qinq, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 SCTP under two 802.1Q tags is steered",
	  v6_sctp_qq, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "three VLAN tags are a parse error",
	  three_tags, policy_bucket, PASS(passed_parse_error, 0) },

	/* IPv4 options and IPv6 extension headers: ports after them. */
	{ "IPv4 with 8 bytes of options reads the ports after them",
	  v4_opts_tcp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv4 with 40 bytes of options (IHL 15) reads the ports after them",
	  v4_opts40_udp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 hop-by-hop header is walked to the TCP ports",
	  v6_hbh_tcp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 routing header is walked to the TCP ports",
	  v6_routing_tcp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 destination options header is walked to the UDP ports",
	  v6_dstopts_udp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 AH (4-byte units) is walked to the TCP ports",
	  v6_ah_tcp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 chain hbh/dstopts/routing/AH/dstopts is walked to TCP",
	  v6_chain_tcp, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 chain ending in ICMPv6 hashes on addresses and ICMPv6",
	  v6_chain_icmpv6, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 chain of exactly STEER_IPV6_EXT_MAX headers is walked",
	  v6_chain_at_limit, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 chain longer than STEER_IPV6_EXT_MAX leaves the addresses to steer by",
	  v6_chain_past_limit, policy_bucket_addrs, PARTIAL(AT_REMOTE) },

	/* Fragments: L3 hash, counted; every piece predicted alike. */
	{ "IPv4 first fragment hashes on L3 and counts as a fragment",
	  v4_frag_first, policy_bucket, REDIRECT(AT_REMOTE, ALSO_FRAG) },
	{ "IPv4 middle fragment hashes on L3 and counts as a fragment",
	  v4_frag_middle, policy_bucket, REDIRECT(AT_REMOTE, ALSO_FRAG) },
	{ "IPv4 last fragment hashes on L3 and counts as a fragment",
	  v4_frag_last, policy_bucket, REDIRECT(AT_REMOTE, ALSO_FRAG) },
	{ "IPv6 first fragment hashes on L3 and counts as a fragment",
	  v6_frag_first, policy_bucket, REDIRECT(AT_REMOTE, ALSO_FRAG) },
	{ "IPv6 last fragment hashes on L3 and counts as a fragment",
	  v6_frag_last, policy_bucket, REDIRECT(AT_REMOTE, ALSO_FRAG) },
	{ "IPv6 atomic fragment (offset 0, no M) is no fragment: hashed with its ports",
	  v6_frag_atomic, policy_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "IPv6 first fragment with AH after the fragment header",
	  v6_frag_ah_first, policy_bucket, REDIRECT(AT_REMOTE, ALSO_FRAG) },
	{ "IPv6 later fragment with AH after the fragment header",
	  v6_frag_ah_last, policy_bucket, REDIRECT(AT_REMOTE, ALSO_FRAG) },

	/* Non-IP. */
	{ "ARP passes on this CPU as non-IP",
	  arp, policy_bucket, PASS(passed_nonip, 0) },
	{ "ARP under an 802.1Q tag passes as non-IP",
	  arp_q, policy_bucket, PASS(passed_nonip, 0) },
	{ "LLDP passes on this CPU as non-IP",
	  lldp, policy_bucket, PASS(passed_nonip, 0) },
	{ "non-IP goes to nonip_cpu when the policy names one",
	  arp, policy_nonip_remote, REDIRECT(AT_REMOTE, 0) },
	{ "non-IP to a nonip_cpu without cpumap entry passes",
	  lldp, policy_nonip_missing, PASS(passed_no_target, 0) },
	{ "non-IP to a nonip_cpu that is this CPU takes the fast path",
	  arp, policy_nonip_here_fast, PASS_LOCAL(0) },

	/* Rules. */
	{ "an exact 5-tuple rule beats the table",
	  v4_tcp, policy_rule_5tuple, REDIRECT(AT_REMOTE, ALSO_FLOW_HIT) },
	{ "an exact 5-tuple rule matches IPv6",
	  v6_udp, policy_rule_5tuple, REDIRECT(AT_REMOTE, ALSO_FLOW_HIT) },
	{ "a {proto tcp, dst_port 443} rule matches IPv4 TCP to 443",
	  v4_tcp443, policy_rule_tcp443, REDIRECT(AT_REMOTE, ALSO_FLOW_HIT) },
	{ "a {proto tcp, dst_port 443} rule matches IPv6 TCP to 443",
	  v6_tcp443, policy_rule_tcp443, REDIRECT(AT_REMOTE, ALSO_FLOW_HIT) },
	{ "a {proto tcp, dst_port 443} rule leaves UDP to 443 to the table",
	  v4_udp443, policy_rule_tcp443_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "a {proto tcp, dst_port 443} rule leaves TCP to 80 to the table",
	  v4_tcp, policy_rule_tcp443_bucket, REDIRECT(AT_REMOTE, 0) },
	{ "an IPv4 source prefix rule matches",
	  v4_from_net, policy_prefixes, REDIRECT(AT_REMOTE, ALSO_PREFIX_HIT) },
	{ "an IPv4 destination prefix rule matches",
	  v4_to_net, policy_prefixes, REDIRECT(AT_REMOTE, ALSO_PREFIX_HIT) },
	{ "an IPv6 source prefix rule matches",
	  v6_from_net, policy_prefixes, REDIRECT(AT_REMOTE, ALSO_PREFIX_HIT) },
	{ "an IPv6 destination prefix rule matches",
	  v6_to_net, policy_prefixes, REDIRECT(AT_REMOTE, ALSO_PREFIX_HIT) },
	{ "an address outside every prefix is left to the table",
	  v6_next_to_net, policy_prefixes, REDIRECT(AT_LOCAL, 0) },
	{ "an IPv4 /0 prefix matches any IPv4 source",
	  v4_udp, policy_prefix_v4_any, REDIRECT(AT_LOCAL, ALSO_PREFIX_HIT) },
	{ "an IPv4 /0 prefix does not match IPv6",
	  v6_udp, policy_prefix_v4_any, REDIRECT(AT_REMOTE, 0) },
	{ "a prefix rule with a lower id beats a matching flow rule",
	  v4_from_net, policy_prefix0_flow1,
	  REDIRECT(AT_REMOTE, ALSO_PREFIX_HIT) },
	{ "a flow rule with a lower id beats a matching prefix rule",
	  v4_from_net, policy_flow0_prefix1,
	  REDIRECT(AT_REMOTE, ALSO_FLOW_HIT) },
	{ "between two flow rule shapes the lower id wins",
	  v4_from_net_443, policy_shapes_order,
	  REDIRECT(AT_REMOTE, ALSO_FLOW_HIT) },
	{ "a destination prefix with a lower id beats a source prefix",
	  v4_from_net_to_net, policy_dst_before_src,
	  REDIRECT(AT_REMOTE, ALSO_PREFIX_HIT) },
	{ "a rule to a CPU set picks the member the hash predicts",
	  v4_tcp443, policy_rule_set, REDIRECT(AT_REMOTE, ALSO_FLOW_HIT) },
	{ "a rule whose CPU set is out of range is ignored",
	  v4_tcp443, policy_rule_set_broken, REDIRECT(AT_REMOTE, 0) },
	{ "a rule to this CPU takes the fast path",
	  v4_tcp443, policy_rule_fast, PASS_LOCAL(ALSO_FLOW_HIT) },
	{ "a rule to a CPU without cpumap entry passes",
	  v4_tcp443, policy_rule_missing,
	  PASS(passed_no_target, ALSO_FLOW_HIT) },

	/* Targets and the fast path. */
	{ "a CPU without cpumap entry passes as no target",
	  v4_tcp, policy_missing, PASS(passed_no_target, 0) },
	{ "table size 0 passes as no policy",
	  v4_tcp, policy_empty, PASS(passed_no_policy, 0) },
	{ "table size 0 passes non-IP as no policy too",
	  arp, policy_empty, PASS(passed_no_policy, 0) },
	{ "the chosen CPU being this CPU passes locally (fast path)",
	  v4_tcp, policy_local_fast, PASS_LOCAL(0) },
	{ "the fast path also covers IPv6",
	  v6_tcp, policy_local_fast, PASS_LOCAL(0) },
	{ "without the fast path flag this CPU is redirected to",
	  v4_tcp, policy_local_slow, REDIRECT(AT_LOCAL, 0) },
	{ "with the fast path flag another CPU is still redirected to",
	  v4_tcp, policy_remote_fast, REDIRECT(AT_REMOTE, 0) },

	/* Malformed: passed, counted, never dropped; a frame with a readable
	 * IP header is steered by what was read (bpf/parse_result.h,
	 * PARSE_PARTIAL). */
	{ "Ethernet header alone with IPv4 ethertype is a parse error",
	  eth_only_v4, policy_bucket, PASS(passed_parse_error, 0) },
	{ "a VLAN tag cut short is a parse error",
	  vlan_cut, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv4 IHL 0 is a parse error",
	  v4_ihl0, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv4 IHL 4 is a parse error",
	  v4_ihl4, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv4 IHL 15 without the options is a parse error",
	  v4_ihl15, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv4 tot_len one byte beyond the frame is a parse error",
	  v4_tot_len_long, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv4 tot_len 65535 is a parse error",
	  v4_tot_len_huge, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv4 tot_len shorter than the header is a parse error",
	  v4_tot_len_short, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv4 ethertype with version 6 is a parse error",
	  v4_version6, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv4 TCP without a TCP header is steered by addresses and protocol",
	  v4_tcp_no_l4, policy_bucket_partial, PARTIAL(AT_REMOTE) },
	{ "IPv4 TCP with 3 bytes of TCP header is steered by addresses and protocol",
	  v4_tcp_3_bytes, policy_bucket_partial, PARTIAL(AT_REMOTE) },
	{ "IPv6 payload length 0 is a parse error",
	  v6_payload_len_zero, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv6 payload length beyond the frame is a parse error",
	  v6_payload_len_long, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv6 ethertype with version 4 is a parse error",
	  v6_version4, policy_bucket, PASS(passed_parse_error, 0) },
	{ "IPv6 hop-by-hop header cut short leaves the addresses to steer by",
	  v6_hbh_cut_icmp, policy_bucket_addrs, PARTIAL(AT_REMOTE) },
	{ "IPv6 AH longer than the frame leaves the addresses to steer by",
	  v6_ah_too_long, policy_bucket_addrs, PARTIAL(AT_REMOTE) },
	{ "IPv6 fragment header cut short leaves the addresses to steer by",
	  v6_frag_cut, policy_bucket_addrs, PARTIAL(AT_REMOTE) },
};

/* Runs XDP_STEER_FRAME (hex, as a failure prints it) under a table that
 * alternates the two present CPUs and prints what the program did. */
static void test_replay(void)
{
	struct steer_cpu_stats cs;
	struct steer_stats st;
	__u32 table[TABLE_SIZE], b;
	struct steer_slot s;
	struct frame f;
	int verdict = -1;
	size_t i;

	if (!ready() ||
	    !EXPECT_EQ(frame_from_hex(&f, getenv("XDP_STEER_FRAME")), 0,
		       "XDP_STEER_FRAME is hex"))
		return;
	base_slot(&s, STEER_F_HASH_L4);
	for (b = 0; b < TABLE_SIZE; b++)
		table[b] = (b & 1) ? remote_cpu : local_cpu;
	if (!EXPECT_EQ(steer_prog_write_table(&prog, 0, table, TABLE_SIZE) ||
		       commit(&s), 0, "the policy was written") ||
	    !EXPECT_EQ(steer_prog_run(&prog, f.buf, f.len, &verdict), 0,
		       "the program ran") ||
	    !EXPECT_EQ(steer_prog_read_stats(&prog, &st), 0,
		       "steer_stats could be read"))
		return;
	frame_dump(stdout, &f, "replayed");
	printf("  verdict %d (XDP_PASS %d, XDP_REDIRECT %d)\n", verdict,
	       XDP_PASS, XDP_REDIRECT);
	for (i = 0; i < n_outcomes; i++)
		printf("  %s %llu\n", outcomes[i].name,
		       (unsigned long long)counter(&st, outcomes[i].off));
	for (i = 0; i < n_extras; i++)
		printf("  %s %llu\n", extras[i].name,
		       (unsigned long long)counter(&st, extras[i].off));
	for (b = 0; b < STEER_MAX_CPUS; b++) {
		if (!steer_prog_read_cpu_stats(&prog, b, &cs) && cs.packets)
			printf("  queued[%u] %llu\n", b,
			       (unsigned long long)cs.packets);
	}
}

int main(int argc, char **argv)
{
	const struct test_case replay = TEST_ENTRY(test_replay, "replay");
	int failed = 0;

	prog_env_load();
	if (getenv("XDP_STEER_FRAME"))
		return test_run_all("prog", &replay, 1, 1, argv);

	/* One PASS/FAIL line per row: each row is a test of its own. */
	failed |= run_case_table(cases, ARRAY_SIZE(cases), argc, argv);
	failed |= run_encap_cases(argc, argv);
	failed |= test_run_all("prog", encap_tests, n_encap_tests, argc, argv);
	failed |= test_run_all("prog", key_tests, n_key_tests, argc, argv);
	failed |= run_compiled_tests(argc, argv);
	failed |= test_run_all("prog", loop_tests, n_loop_tests, argc, argv);
	failed |= test_run_all("prog", random_tests, n_random_tests, argc,
			       argv);
	failed |= test_run_all("prog", drain_tests, n_drain_tests, argc, argv);
	failed |= test_run_all("prog", scan_tests, n_scan_tests, argc, argv);
	failed |= test_run_all("prog", filter_tests, n_filter_tests, argc,
			       argv);
	failed |= test_run_all("prog", balance_tests, n_balance_tests, argc,
			       argv);
	failed |= test_run_all("prog", numa_tests, n_numa_tests, argc, argv);
	return failed;
}
