// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loops.c - program tier properties that take more than one frame: every
 * truncation of valid frames, both directions of a connection, all pieces
 * of a datagram, a slot flip, a cpumap entry going away.
 */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_ether.h>

#include "fixtures.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE	136
#endif

static bool has_ports(__u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP;
}

/* Frames that must parse, to be cut. */
static void (*const valid_frames[])(struct frame *f) = {
	v4_tcp, v4_udp, v4_sctp, v4_icmp, v4_opts_tcp, v4_opts40_udp,
	v4_tcp_q, v4_udp_qinq, v4_frag_first, v4_frag_last,
	v6_tcp, v6_udplite, v6_icmpv6, v6_sctp_qq, v6_hbh_tcp,
	v6_routing_tcp, v6_dstopts_udp, v6_ah_tcp, v6_chain_tcp,
	v6_chain_icmpv6, v6_chain_at_limit, v6_frag_first, v6_frag_ah_first,
	v6_frag_last,
};

/* Cut at every byte, lengths left as they were: every cut is caught by
 * the IP length check or a header bounds check. */
static void test_truncated_every_byte(void)
{
	struct expect parse_error = PASS(passed_parse_error, 0);
	struct frame f, cut;
	char label[64];
	size_t i, len;

	if (!ready())
		return;
	for (i = 0; i < ARRAY_SIZE(valid_frames); i++) {
		if (!build_frame(&f, valid_frames[i]) ||
		    !EXPECT_EQ(policy_bucket(&f), 0, "the policy was written"))
			return;
		for (len = 14; len < f.len; len++) {
			cut = f;
			cut.len = len;
			snprintf(label, sizeof(label), "cut to %zu bytes", len);
			if (!expect_run(&cut, &parse_error, label))
				return;
		}
	}
}

/* Cut at every byte with the IP length fixed up to match: a parse error
 * until the IP header is whole; then steered by what was read (bpf/
 * parse_result.h, PARSE_PARTIAL): the addresses while an IPv6 extension header
 * is cut, with the protocol from the transport header on, until the frame
 * holds the two port words of a transport with ports; the flow's own CPU
 * from there on. Each cut's policy points only the bucket of what the
 * parser should read at the remote CPU. */
static void test_truncated_lengths_agree(void)
{
	struct expect parse_error = PASS(passed_parse_error, 0);
	struct expect steered = REDIRECT(AT_REMOTE, 0);
	struct expect partial = PARTIAL(AT_REMOTE);
	struct frame f, cut;
	struct steer_flow flow;
	struct steer_slot s;
	char label[64];
	size_t i, len, need, ip_end;
	int n_partial = 0;

	if (!ready())
		return;
	for (i = 0; i < ARRAY_SIZE(valid_frames); i++) {
		if (!build_frame(&f, valid_frames[i]))
			return;
		/* Fragments: later pieces have no transport header to need. */
		if (frame_flow(&f, &flow) || f.l4_off < 0)
			continue;
		need = f.l4_off + (has_ports(flow.proto) ? 4 : 0);
		/* IPv4's header ends where its options do; an empty IPv6
		 * payload reads as a jumbogram. */
		ip_end = f.l3_family == STEER_AF_INET6 ? (size_t)f.l3_off + 41 :
							 (size_t)f.l4_off;
		if (need < ip_end)
			need = ip_end;
		for (len = 14; len < f.len; len++) {
			const struct expect *e = &steered;

			cut = f;
			cut.len = len;
			cut.finished = false;
			frame_finish(&cut);
			base_slot(&s, STEER_F_HASH_L4);
			if (len < ip_end) {
				e = &parse_error;
			} else if (len < need) {
				flow_partial(&f, len >= (size_t)f.l4_off, &flow);
				if (!EXPECT_EQ(bucket_of_flow(&flow, &s), 0,
					       "the policy was written"))
					return;
				e = &partial;
				n_partial++;
			}
			if (e != &partial &&
			    !EXPECT_EQ(policy_bucket(&f), 0, "the policy was written"))
				return;
			snprintf(label, sizeof(label),
				 "cut to %zu bytes, lengths fixed", len);
			if (!expect_run(&cut, e, label))
				return;
		}
	}
	printf("  %d cuts steered by what was read\n", n_partial);
}

/* A VLAN-tagged ARP frame: a parse error while the tag is cut, non-IP
 * once it is whole (ARP itself is never read). */
static void test_truncated_non_ip(void)
{
	struct expect parse_error = PASS(passed_parse_error, 0);
	struct expect nonip = PASS(passed_nonip, 0);
	struct frame f, cut;
	char label[64];
	size_t len;

	if (!ready() || !build_frame(&f, arp_q) ||
	    !EXPECT_EQ(policy_bucket(&f), 0, "the policy was written"))
		return;
	for (len = 14; len <= f.len; len++) {
		cut = f;
		cut.len = len;
		snprintf(label, sizeof(label), "cut to %zu bytes", len);
		if (!expect_run(&cut, len < 18 ? &parse_error : &nonip, label))
			return;
	}
}

/* Builds the same connection seen from the other end. */
static void conn(struct frame *f, int family, __u8 proto, bool reverse)
{
	const char *a = family == 4 ? "198.51.100.7" : "2001:db8:a::7";
	const char *b = family == 4 ? "203.0.113.9" : "2001:db8:b::9";
	__u16 pa = 51000, pb = 443;

	frame_init(f);
	if (family == 4) {
		frame_eth(f, ETH_P_IP);
		frame_ipv4(f, &(struct frame_ip4){ .src = reverse ? b : a,
			.dst = reverse ? a : b, .proto = proto });
	} else {
		frame_eth(f, ETH_P_IPV6);
		frame_ipv6(f, &(struct frame_ip6){ .src = reverse ? b : a,
			.dst = reverse ? a : b, .nexthdr = proto });
	}
	if (proto == IPPROTO_TCP)
		frame_tcp(f, reverse ? pb : pa, reverse ? pa : pb);
	else if (proto == IPPROTO_UDP)
		frame_udp(f, reverse ? pb : pa, reverse ? pa : pb);
	else if (proto == IPPROTO_SCTP)
		frame_sctp(f, reverse ? pb : pa, reverse ? pa : pb);
	else
		frame_icmp(f, 8, 0);
	frame_finish(f);
}

static const struct {
	int family;
	__u8 proto;
} conns[] = {
	{ 4, IPPROTO_TCP }, { 4, IPPROTO_UDP }, { 4, IPPROTO_ICMP },
	{ 6, IPPROTO_TCP }, { 6, IPPROTO_SCTP },
};

static void test_symmetric_pairs(void)
{
	struct expect steered = REDIRECT(AT_REMOTE, 0);
	struct steer_slot sym, plain;
	struct frame fwd, rev;
	size_t i;

	if (!ready())
		return;
	base_slot(&sym, STEER_F_HASH_L4 | STEER_F_SYMMETRIC);
	base_slot(&plain, STEER_F_HASH_L4);
	for (i = 0; i < ARRAY_SIZE(conns); i++) {
		conn(&fwd, conns[i].family, conns[i].proto, false);
		conn(&rev, conns[i].family, conns[i].proto, true);
		EXPECT_EQ(frame_hash(&fwd, &sym), frame_hash(&rev, &sym),
			  "a symmetric hash is the same in both directions");
		EXPECT(frame_hash(&fwd, &plain) != frame_hash(&rev, &plain),
		       "a plain hash differs between the directions");
		if (!EXPECT_EQ(policy_bucket_sym(&fwd), 0,
			       "the policy was written"))
			return;
		if (!expect_run(&fwd, &steered, "forward") ||
		    !expect_run(&rev, &steered, "reverse"))
			return;
	}
}

/* Symmetric swaps ends, not fields: a->b:443 from port 51000 and a->b:51000
 * from port 443 are different connections and hash apart. */
static void test_symmetric_keeps_ports_with_addresses(void)
{
	struct steer_flow f1 = {
		.src = { htonl(0xc6336407) }, .dst = { htonl(0xcb007109) },
		.sport = htons(51000), .dport = htons(443),
		.proto = IPPROTO_TCP, .family = STEER_AF_INET,
	};
	struct steer_flow f2 = f1;

	f2.sport = f1.dport;
	f2.dport = f1.sport;
	EXPECT(steer_flow_hash(&f1, test_key, STEER_F_HASH_L4 |
			       STEER_F_SYMMETRIC, 0) !=
	       steer_flow_hash(&f2, test_key, STEER_F_HASH_L4 |
			       STEER_F_SYMMETRIC, 0),
	       "swapping only the ports changes a symmetric hash");
}

/* Two flows that differ only in the source port: one bucket under an L3
 * hash, two under an L4 hash (ports chosen so the buckets differ). */
static void test_l4_hash_differs_from_l3(void)
{
	struct expect steered = REDIRECT(AT_REMOTE, 0);
	struct expect elsewhere = PASS(passed_no_target, 0);
	struct steer_slot l3, l4;
	struct frame a, b;
	__u16 port;

	if (!ready())
		return;
	base_slot(&l3, 0);
	base_slot(&l4, STEER_F_HASH_L4);
	frame_init(&a);
	eth_v4(&a, IPPROTO_UDP);
	frame_udp(&a, SPORT, 53);
	frame_finish(&a);
	for (port = SPORT + 1; port < SPORT + 100; port++) {
		frame_init(&b);
		eth_v4(&b, IPPROTO_UDP);
		frame_udp(&b, port, 53);
		frame_finish(&b);
		if (steer_table_index(frame_hash(&a, &l4), TABLE_SIZE) !=
		    steer_table_index(frame_hash(&b, &l4), TABLE_SIZE))
			break;
	}
	EXPECT_EQ(frame_hash(&a, &l3), frame_hash(&b, &l3),
		  "an L3 hash ignores the ports");
	EXPECT(frame_hash(&a, &l4) != frame_hash(&b, &l4),
	       "an L4 hash depends on the ports");
	if (!EXPECT_EQ(policy_bucket_l3(&a), 0, "the L3 policy was written") ||
	    !expect_run(&a, &steered, "L3, flow a") ||
	    !expect_run(&b, &steered, "L3, flow b"))
		return;
	if (!EXPECT_EQ(policy_bucket(&a), 0, "the L4 policy was written") ||
	    !expect_run(&a, &steered, "L4, flow a"))
		return;
	expect_run(&b, &elsewhere, "L4, flow b");
}

/* Every piece of a datagram on one CPU, whatever the table: with a table
 * that alternates CPUs, all pieces count on the first piece's CPU. */
static void test_fragments_meet(void)
{
	static void (*const datagrams[][3])(struct frame *f) = {
		{ v4_frag_first, v4_frag_middle, v4_frag_last },
		{ v6_frag_first, v6_frag_last, NULL },
		{ v6_frag_ah_first, v6_frag_ah_last, NULL },
	};
	__u32 table[TABLE_SIZE], b;
	struct steer_slot s;
	struct frame f;
	size_t d, i;

	if (!ready())
		return;
	base_slot(&s, STEER_F_HASH_L4);
	for (b = 0; b < TABLE_SIZE; b++)
		table[b] = (b & 1) ? remote_cpu : local_cpu;
	if (!EXPECT_EQ(steer_prog_write_table(&prog, 0, table, TABLE_SIZE) ||
		       commit(&s), 0, "the policy was written"))
		return;
	for (d = 0; d < ARRAY_SIZE(datagrams); d++) {
		struct expect e = REDIRECT(0, ALSO_FRAG);

		build_frame(&f, datagrams[d][0]);
		e.cpu = (int)table[steer_table_index(frame_hash(&f, &s),
						     TABLE_SIZE)];
		for (i = 0; i < 3 && datagrams[d][i]; i++) {
			build_frame(&f, datagrams[d][i]);
			if (!expect_run(&f, &e, "a piece of the datagram"))
				return;
		}
	}
}

/* The datapath reads only the active slot: a whole policy written into
 * the other one changes nothing until the flip, and takes over at once. */
static void test_slot_flip(void)
{
	struct expect on_local = REDIRECT(AT_LOCAL, 0);
	struct expect by_rule = REDIRECT(AT_REMOTE, ALSO_FLOW_HIT);
	struct expect no_target = PASS(passed_no_target, 0);
	struct steer_target t = { .rule_id = 0, .ncpus = 1, .cpu = remote_cpu };
	struct steer_slot s0, s1;
	struct steer_flow flow;
	struct frame f, other;
	__u32 active = 9;

	if (!ready() || !build_frame(&f, v4_tcp) || !build_frame(&other, v6_udp))
		return;
	frame_flow(&f, &flow);
	base_slot(&s0, STEER_F_HASH_L4);
	if (!EXPECT_EQ(steer_prog_fill_table(&prog, 0, local_cpu, TABLE_SIZE) ||
		       commit(&s0), 0, "slot 0 was written and made active"))
		return;
	if (!expect_run(&f, &on_local, "slot 0 active"))
		return;

	/* Slot 1: table to a missing CPU, a rule for f to the remote CPU,
	 * and a different key, so nothing of slot 0 is reused. */
	base_slot(&s1, STEER_F_HASH_L4);
	s1.hash_key[0] ^= 0x9e3779b9;
	s1.generation = 2;
	steer_slot_add_shape(&s1, STEER_M_ALL);
	if (!EXPECT_EQ(steer_prog_fill_table(&prog, 1, CPU_MISSING,
					     TABLE_SIZE) ||
		       steer_prog_add_flow_rule(&prog, 1, STEER_M_ALL, &flow,
						&t) ||
		       steer_prog_write_slot(&prog, 1, &s1), 0,
		       "slot 1 was written"))
		return;
	if (!expect_run(&f, &on_local, "slot 1 written, slot 0 active") ||
	    !expect_run(&other, &on_local, "slot 1 written, slot 0 active"))
		return;

	if (!EXPECT_EQ(steer_prog_set_active(&prog, 1), 0, "slot 1 was made active"))
		return;
	steer_prog_get_active(&prog, &active);
	EXPECT_EQ(active, 1, "steer_ctl.active reads back as 1");
	if (!expect_run(&f, &by_rule, "slot 1 active") ||
	    !expect_run(&other, &no_target, "slot 1 active"))
		return;

	if (!EXPECT_EQ(steer_prog_set_active(&prog, 0), 0, "slot 0 was made active again"))
		return;
	expect_run(&f, &on_local, "back on slot 0");
}

/* An entry removed from the cpumap (a worker CPU taken away) makes the
 * frames meant for it pass, not vanish. */
static void test_removed_cpumap_entry(void)
{
	struct expect steered = REDIRECT(AT_REMOTE, 0);
	struct expect no_target = PASS(passed_no_target, 0);
	struct frame f;
	int err;

	if (!ready() || !build_frame(&f, v6_tcp) ||
	    !EXPECT_EQ(policy_bucket(&f), 0, "the policy was written") ||
	    !expect_run(&f, &steered, "with the entry"))
		return;
	if (!EXPECT_EQ(steer_prog_del_cpu(&prog, remote_cpu), 0,
		       "the remote CPU's cpumap entry was removed"))
		return;
	expect_run(&f, &no_target, "without the entry");
	err = steer_prog_add_cpu(&prog, remote_cpu, QSIZE, prog.worker_fd);
	EXPECT_EQ(err, 0, "the remote CPU's cpumap entry was restored");
	expect_run(&f, &steered, "with the entry again");
}

const struct test_case loop_tests[] = {
	TEST_ENTRY(test_truncated_every_byte,
		   "valid frames cut at every byte are parse errors"),
	TEST_ENTRY(test_truncated_lengths_agree,
		   "frames cut with lengths fixed up: a parse error until the IP header is whole, then steered by what was read"),
	TEST_ENTRY(test_truncated_non_ip,
		   "a tagged ARP frame cut inside its tag is a parse error"),
	TEST_ENTRY(test_symmetric_pairs,
		   "both directions of a connection meet on one CPU with a symmetric hash"),
	TEST_ENTRY(test_symmetric_keeps_ports_with_addresses,
		   "a symmetric hash keeps each port with its address"),
	TEST_ENTRY(test_l4_hash_differs_from_l3,
		   "an L4 hash separates flows an L3 hash puts together"),
	TEST_ENTRY(test_fragments_meet,
		   "every fragment of a datagram lands on one CPU"),
	TEST_ENTRY(test_slot_flip,
		   "a policy written to the inactive slot acts only after the flip"),
	TEST_ENTRY(test_removed_cpumap_entry,
		   "frames for a CPU whose cpumap entry is gone pass"),
};
const size_t n_loop_tests = ARRAY_SIZE(loop_tests);
