// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fixtures.c - the frames and policies the program tier's cases name (see
 * fixtures.h). Frames are built header by header; a policy makes only the
 * outcome the case expects reachable where it can (one bucket, one member
 * of a CPU set), so a wrong choice shows as passed_no_target.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_ether.h>

#include "fixtures.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE	136
#endif
#ifndef ETH_P_LLDP
#define ETH_P_LLDP	0x88CC
#endif

#define RULE_SET_INDEX	10	/* where a case puts a rule's CPU set */

/* ---- policies ------------------------------------------------------------- */

int bucket_only(const struct frame *f, struct steer_slot *s)
{
	__u32 bucket = steer_table_index(frame_hash(f, s), s->table_size);
	int err;

	err = steer_prog_fill_table(&prog, 0, CPU_MISSING, s->table_size);
	if (!err)
		err = steer_prog_set_bucket(&prog, 0, bucket, remote_cpu);
	return err ? err : commit(s);
}

int bucket_of_flow(const struct steer_flow *flow, struct steer_slot *s)
{
	__u32 hash = steer_flow_hash(flow, s->hash_key, s->flags, 0);
	int err;

	err = steer_prog_fill_table(&prog, 0, CPU_MISSING, s->table_size);
	if (!err)
		err = steer_prog_set_bucket(&prog, 0,
					    steer_table_index(hash, s->table_size),
					    remote_cpu);
	return err ? err : commit(s);
}

void flow_partial(const struct frame *f, bool proto, struct steer_flow *flow)
{
	frame_flow(f, flow);
	flow->sport = 0;
	flow->dport = 0;
	if (!proto)
		flow->proto = 0;
}

int policy_bucket_partial(const struct frame *f)
{
	struct steer_flow flow;
	struct steer_slot s;

	flow_partial(f, true, &flow);
	base_slot(&s, STEER_F_HASH_L4);
	return bucket_of_flow(&flow, &s);
}

int policy_bucket_addrs(const struct frame *f)
{
	struct steer_flow flow;
	struct steer_slot s;

	flow_partial(f, false, &flow);
	base_slot(&s, STEER_F_HASH_L4);
	return bucket_of_flow(&flow, &s);
}

int policy_bucket(const struct frame *f)
{
	struct steer_slot s;

	base_slot(&s, STEER_F_HASH_L4);
	return bucket_only(f, &s);
}

int policy_bucket_l3(const struct frame *f)
{
	struct steer_slot s;

	base_slot(&s, 0);
	return bucket_only(f, &s);
}

int policy_bucket_sym(const struct frame *f)
{
	struct steer_slot s;

	base_slot(&s, STEER_F_HASH_L4 | STEER_F_SYMMETRIC);
	return bucket_only(f, &s);
}

/* Every bucket to one CPU. */
static int all_to(__u32 cpu, __u32 flags, __u32 nonip_cpu)
{
	struct steer_slot s;
	int err;

	base_slot(&s, flags);
	s.nonip_cpu = nonip_cpu;
	err = steer_prog_fill_table(&prog, 0, cpu, s.table_size);
	return err ? err : commit(&s);
}

int policy_all_remote(const struct frame *f)
{
	(void)f;
	return all_to(remote_cpu, STEER_F_HASH_L4, STEER_CPU_LOCAL);
}

int policy_empty(const struct frame *f)
{
	struct steer_slot s;
	int err;

	(void)f;
	/* A full table, so table_size 0 is the only reason not to use it. */
	err = steer_prog_fill_table(&prog, 0, remote_cpu, STEER_TABLE_MAX);
	base_slot(&s, STEER_F_HASH_L4);
	s.table_size = 0;
	return err ? err : commit(&s);
}

int policy_missing(const struct frame *f)
{
	(void)f;
	return all_to(CPU_MISSING, STEER_F_HASH_L4, STEER_CPU_LOCAL);
}

int policy_local_fast(const struct frame *f)
{
	(void)f;
	return all_to(local_cpu, STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH,
		      STEER_CPU_LOCAL);
}

int policy_local_slow(const struct frame *f)
{
	(void)f;
	return all_to(local_cpu, STEER_F_HASH_L4, STEER_CPU_LOCAL);
}

int policy_remote_fast(const struct frame *f)
{
	(void)f;
	return all_to(remote_cpu, STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH,
		      STEER_CPU_LOCAL);
}

int policy_nonip_remote(const struct frame *f)
{
	(void)f;
	return all_to(CPU_MISSING, STEER_F_HASH_L4, remote_cpu);
}

int policy_nonip_missing(const struct frame *f)
{
	(void)f;
	return all_to(remote_cpu, STEER_F_HASH_L4, CPU_MISSING);
}

int policy_nonip_here_fast(const struct frame *f)
{
	(void)f;
	return all_to(CPU_MISSING, STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH,
		      local_cpu);
}

static struct steer_target target(__u32 rule_id, __u32 cpu)
{
	return (struct steer_target){ .rule_id = rule_id, .ncpus = 1,
				      .cpu = cpu };
}

/* A slot whose table sends everything to the local CPU (no fast path), so
 * a frame on the remote CPU got there by a rule. */
static int rules_slot(struct steer_slot *s, __u32 flags)
{
	base_slot(s, STEER_F_HASH_L4 | flags);
	return steer_prog_fill_table(&prog, 0, local_cpu, s->table_size);
}

static int flow_rule(struct steer_slot *s, __u32 shape,
		     const struct steer_flow *f, __u32 rule_id, __u32 cpu)
{
	struct steer_target t = target(rule_id, cpu);
	int err = steer_slot_add_shape(s, shape);

	return err ? err : steer_prog_add_flow_rule(&prog, 0, shape, f, &t);
}

enum prefix_side { PREFIX_SRC, PREFIX_DST };

/* A prefix rule on one address, with 'more' (STEER_M_* fields of 'also')
 * matched exactly besides it. */
static int prefix_rule_and(struct steer_slot *s, enum prefix_side side,
			   const char *addr, __u32 bits, __u32 more,
			   const struct steer_flow *also, __u32 rule_id,
			   __u32 cpu)
{
	struct steer_target t = target(rule_id, cpu);
	__u8 family = strchr(addr, ':') ? STEER_AF_INET6 : STEER_AF_INET;
	struct steer_flow f = {};
	__u32 shape;
	int err;

	if (also)
		f = *also;
	f.family = family;
	memset(side == PREFIX_SRC ? f.src : f.dst, 0, 16);
	if (inet_pton(family == STEER_AF_INET ? AF_INET : AF_INET6, addr,
		      side == PREFIX_SRC ? f.src : f.dst) != 1)
		return -EINVAL;
	shape = more | (side == PREFIX_SRC ? STEER_M_SRC | STEER_M_PREFIX_SRC :
					     STEER_M_DST | STEER_M_PREFIX_DST);
	err = steer_slot_add_shape(s, shape);
	return err ? err : steer_prog_add_prefix(&prog, 0, shape, &f, bits, &t);
}

static int prefix_rule(struct steer_slot *s, enum prefix_side side,
		       const char *addr, __u32 bits, __u32 rule_id, __u32 cpu)
{
	return prefix_rule_and(s, side, addr, bits, 0, NULL, rule_id, cpu);
}

/* The rule's flow: what the frame parses to. */
int policy_rule_5tuple(const struct frame *f)
{
	struct steer_flow flow;
	struct steer_slot s;
	int err;

	frame_flow(f, &flow);
	err = rules_slot(&s, 0);
	if (!err)
		err = flow_rule(&s, STEER_M_ALL, &flow, 0, remote_cpu);
	return err ? err : commit(&s);
}

static const struct steer_flow tcp443 = {
	.proto = IPPROTO_TCP,
	.dport = __builtin_bswap16(443),
};

int policy_rule_tcp443(const struct frame *f)
{
	struct steer_slot s;
	int err;

	(void)f;
	err = rules_slot(&s, 0);
	if (!err)
		err = flow_rule(&s, STEER_M_PROTO | STEER_M_DPORT, &tcp443, 0,
				remote_cpu);
	return err ? err : commit(&s);
}

/* A rule the frame does not match: the table decides, bucket by bucket. */
int policy_rule_tcp443_bucket(const struct frame *f)
{
	struct steer_slot s;
	int err;

	base_slot(&s, STEER_F_HASH_L4);
	err = flow_rule(&s, STEER_M_PROTO | STEER_M_DPORT, &tcp443, 0,
			local_cpu);
	return err ? err : bucket_only(f, &s);
}

int policy_rule_fast(const struct frame *f)
{
	struct steer_slot s;
	int err;

	(void)f;
	err = rules_slot(&s, STEER_F_LOCAL_FASTPATH);
	if (!err)
		err = steer_prog_fill_table(&prog, 0, remote_cpu,
					    s.table_size);
	if (!err)
		err = flow_rule(&s, STEER_M_PROTO | STEER_M_DPORT, &tcp443, 0,
				local_cpu);
	return err ? err : commit(&s);
}

int policy_rule_missing(const struct frame *f)
{
	struct steer_slot s;
	int err;

	(void)f;
	err = rules_slot(&s, 0);
	if (!err)
		err = flow_rule(&s, STEER_M_PROTO | STEER_M_DPORT, &tcp443, 0,
				CPU_MISSING);
	return err ? err : commit(&s);
}

int policy_prefixes(const struct frame *f)
{
	struct steer_slot s;
	int err;

	(void)f;
	err = rules_slot(&s, 0);
	if (!err)
		err = prefix_rule(&s, PREFIX_SRC, "10.1.0.0", 16, 0,
				  remote_cpu);
	if (!err)
		err = prefix_rule(&s, PREFIX_DST, "192.168.7.0", 24, 1,
				  remote_cpu);
	if (!err)
		err = prefix_rule(&s, PREFIX_SRC, "2001:db8:1::", 48, 2,
				  remote_cpu);
	if (!err)
		err = prefix_rule(&s, PREFIX_DST, "2001:db8:2:3::", 64, 3,
				  remote_cpu);
	return err ? err : commit(&s);
}

/* 0.0.0.0/0 covers every IPv4 address and no IPv6 one. */
int policy_prefix_v4_any(const struct frame *f)
{
	struct steer_slot s;
	int err;

	base_slot(&s, STEER_F_HASH_L4);
	err = prefix_rule(&s, PREFIX_SRC, "0.0.0.0", 0, 0, local_cpu);
	return err ? err : bucket_only(f, &s);
}

/* Two matching rules of different kinds or shapes: the lower id wins. */
int policy_prefix0_flow1(const struct frame *f)
{
	struct steer_flow flow;
	struct steer_slot s;
	int err;

	frame_flow(f, &flow);
	err = rules_slot(&s, 0);
	if (!err)
		err = flow_rule(&s, STEER_M_ALL, &flow, 1, local_cpu);
	if (!err)
		err = prefix_rule(&s, PREFIX_SRC, "10.1.0.0", 16, 0,
				  remote_cpu);
	return err ? err : commit(&s);
}

int policy_flow0_prefix1(const struct frame *f)
{
	struct steer_flow flow;
	struct steer_slot s;
	int err;

	frame_flow(f, &flow);
	err = rules_slot(&s, 0);
	if (!err)
		err = prefix_rule(&s, PREFIX_SRC, "10.1.0.0", 16, 1,
				  local_cpu);
	if (!err)
		err = flow_rule(&s, STEER_M_ALL, &flow, 0, remote_cpu);
	return err ? err : commit(&s);
}

int policy_shapes_order(const struct frame *f)
{
	struct steer_flow flow;
	struct steer_slot s;
	int err;

	frame_flow(f, &flow);
	err = rules_slot(&s, 0);
	if (!err)
		err = flow_rule(&s, STEER_M_ALL, &flow, 3, local_cpu);
	if (!err)
		err = flow_rule(&s, STEER_M_PROTO | STEER_M_DPORT, &tcp443, 2,
				remote_cpu);
	return err ? err : commit(&s);
}

int policy_dst_before_src(const struct frame *f)
{
	struct steer_slot s;
	int err;

	(void)f;
	err = rules_slot(&s, 0);
	if (!err)
		err = prefix_rule(&s, PREFIX_SRC, "10.0.0.0", 8, 5,
				  local_cpu);
	if (!err)
		err = prefix_rule(&s, PREFIX_DST, "192.168.7.0", 24, 4,
				  remote_cpu);
	return err ? err : commit(&s);
}

/* A rule to a set of four CPUs: only the member the hash picks is
 * present, so any other pick shows as passed_no_target. */
int policy_rule_set(const struct frame *f)
{
	__u32 set[4] = { CPU_MISSING, CPU_MISSING, CPU_MISSING, CPU_MISSING };
	struct steer_target t = { .rule_id = 0, .ncpus = 4,
				  .cpu = RULE_SET_INDEX };
	struct steer_slot s;
	int err;

	err = rules_slot(&s, 0);
	if (err)
		return err;
	set[steer_set_index(frame_hash(f, &s), 4)] = remote_cpu;
	err = steer_prog_write_rule_cpus(&prog, 0, RULE_SET_INDEX, set, 4);
	if (!err)
		err = steer_slot_add_shape(&s, STEER_M_PROTO | STEER_M_DPORT);
	if (!err)
		err = steer_prog_add_flow_rule(&prog, 0,
					       STEER_M_PROTO | STEER_M_DPORT,
					       &tcp443, &t);
	return err ? err : commit(&s);
}

/* A set that points past rule_cpus: the rule is ignored, not obeyed. */
int policy_rule_set_broken(const struct frame *f)
{
	struct steer_target t = {
		.rule_id = 0, .ncpus = 2,
		.cpu = STEER_SLOTS * STEER_RULE_CPUS_MAX,
	};
	struct steer_slot s;
	int err;

	base_slot(&s, STEER_F_HASH_L4);
	err = steer_slot_add_shape(&s, STEER_M_PROTO | STEER_M_DPORT);
	if (!err)
		err = steer_prog_add_flow_rule(&prog, 0,
					       STEER_M_PROTO | STEER_M_DPORT,
					       &tcp443, &t);
	return err ? err : bucket_only(f, &s);
}

/* ---- frames ------------------------------------------------------------------ */

static void v4(struct frame *f, __u8 proto)
{
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
					   .proto = proto });
}

static void v6(struct frame *f, __u8 next)
{
	frame_ipv6(f, &(struct frame_ip6){ .src = V6_SRC, .dst = V6_DST,
					   .nexthdr = next });
}

void eth_v4(struct frame *f, __u8 proto)
{
	frame_eth(f, ETH_P_IP);
	v4(f, proto);
}

void eth_v6(struct frame *f, __u8 next)
{
	frame_eth(f, ETH_P_IPV6);
	v6(f, next);
}

void v4_tcp(struct frame *f)
{
	eth_v4(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

void v4_udp(struct frame *f)
{
	eth_v4(f, IPPROTO_UDP);
	frame_udp(f, SPORT, 53);
}

void v4_udplite(struct frame *f)
{
	eth_v4(f, IPPROTO_UDPLITE);
	frame_udplite(f, SPORT, 5004);
}

void v4_sctp(struct frame *f)
{
	eth_v4(f, IPPROTO_SCTP);
	frame_sctp(f, SPORT, 3868);
}

void v4_icmp(struct frame *f)
{
	eth_v4(f, IPPROTO_ICMP);
	frame_icmp(f, 8, 0);
}

void v4_gre(struct frame *f)
{
	eth_v4(f, IPPROTO_GRE);
	frame_payload_fill(f, 24, 0);
}

void v6_tcp(struct frame *f)
{
	eth_v6(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

void v6_udp(struct frame *f)
{
	eth_v6(f, IPPROTO_UDP);
	frame_udp(f, SPORT, 53);
}

void v6_udplite(struct frame *f)
{
	eth_v6(f, IPPROTO_UDPLITE);
	frame_udplite(f, SPORT, 5004);
}

void v6_sctp(struct frame *f)
{
	eth_v6(f, IPPROTO_SCTP);
	frame_sctp(f, SPORT, 3868);
}

void v6_icmpv6(struct frame *f)
{
	eth_v6(f, IPPROTO_ICMPV6);
	frame_icmpv6(f, 128, 0);
}

void v6_no_next(struct frame *f)
{
	eth_v6(f, IPPROTO_NONE);
	frame_payload_fill(f, 8, 0);
}

void v4_tcp_padded(struct frame *f)
{
	v4_tcp(f);
	frame_finish(f);
	frame_pad(f, 80);
}

void v4_tcp_q(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_vlan(f, ETH_P_8021Q, 100);
	v4(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

void v4_tcp_ad(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_vlan(f, ETH_P_8021AD, 100);
	v4(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

void v4_udp_qinq(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_vlan(f, ETH_P_8021AD, 100);
	frame_vlan(f, ETH_P_8021Q, 200);
	v4(f, IPPROTO_UDP);
	frame_udp(f, SPORT, 53);
}

void v6_sctp_qq(struct frame *f)
{
	frame_eth(f, ETH_P_IPV6);
	frame_vlan(f, ETH_P_8021Q, 100);
	frame_vlan(f, ETH_P_8021Q, 200);
	v6(f, IPPROTO_SCTP);
	frame_sctp(f, SPORT, 3868);
}

void three_tags(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_vlan(f, ETH_P_8021AD, 100);
	frame_vlan(f, ETH_P_8021Q, 200);
	frame_vlan(f, ETH_P_8021Q, 300);
	v4(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

static const __u8 opts8[] = { 1, 1, 1, 1, 0x94, 0x04, 0x00, 0x00 };
static const __u8 opts40[40] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0x94, 4, 0, 0,
};

void v4_opts_tcp(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
		.proto = IPPROTO_TCP, .opts = opts8, .opts_len = 8 });
	frame_tcp(f, SPORT, DPORT);
}

void v4_opts40_udp(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
		.proto = IPPROTO_UDP, .opts = opts40, .opts_len = 40 });
	frame_udp(f, SPORT, 53);
}

void v6_hbh_tcp(struct frame *f)
{
	eth_v6(f, IPPROTO_HOPOPTS);
	frame_ipv6_hbh(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

void v6_routing_tcp(struct frame *f)
{
	eth_v6(f, IPPROTO_ROUTING);
	frame_ipv6_routing(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

void v6_dstopts_udp(struct frame *f)
{
	eth_v6(f, IPPROTO_DSTOPTS);
	frame_ipv6_dstopts(f, IPPROTO_UDP);
	frame_udp(f, SPORT, 53);
}

void v6_ah_tcp(struct frame *f)
{
	eth_v6(f, IPPROTO_AH);
	frame_ipv6_ah(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

/* The order RFC 8200 recommends, minus the fragment header. */
void v6_chain_tcp(struct frame *f)
{
	eth_v6(f, IPPROTO_HOPOPTS);
	frame_ipv6_hbh(f, IPPROTO_DSTOPTS);
	frame_ipv6_dstopts(f, IPPROTO_ROUTING);
	frame_ipv6_routing(f, IPPROTO_AH);
	frame_ipv6_ah(f, IPPROTO_DSTOPTS);
	frame_ipv6_dstopts(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, DPORT);
}

void v6_chain_icmpv6(struct frame *f)
{
	eth_v6(f, IPPROTO_HOPOPTS);
	frame_ipv6_hbh(f, IPPROTO_ROUTING);
	frame_ipv6_routing(f, IPPROTO_DSTOPTS);
	frame_ipv6_dstopts(f, IPPROTO_ICMPV6);
	frame_icmpv6(f, 128, 0);
}

/* 'n' destination options headers in a row, then UDP. */
static void v6_dstopts_chain(struct frame *f, int n)
{
	int i;

	eth_v6(f, IPPROTO_DSTOPTS);
	for (i = 0; i < n; i++)
		frame_ipv6_dstopts(f, i + 1 < n ? IPPROTO_DSTOPTS : IPPROTO_UDP);
	frame_udp(f, SPORT, 53);
}

void v6_chain_at_limit(struct frame *f)
{
	v6_dstopts_chain(f, STEER_IPV6_EXT_MAX);
}

void v6_chain_past_limit(struct frame *f)
{
	v6_dstopts_chain(f, STEER_IPV6_EXT_MAX + 1);
}

/* Pieces of one datagram: the first carries the transport header. */
static void v4_frag(struct frame *f, __u16 offset, bool more)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
		.proto = IPPROTO_UDP, .frag_offset = offset,
		.more_frags = more });
	if (offset == 0)
		frame_udp(f, SPORT, 53);
	frame_payload_fill(f, 64, (__u8)offset);
}

void v4_frag_first(struct frame *f)
{
	v4_frag(f, 0, true);
}

void v4_frag_middle(struct frame *f)
{
	v4_frag(f, 9, true);
}

void v4_frag_last(struct frame *f)
{
	v4_frag(f, 18, false);
}

static void v6_frag(struct frame *f, __u16 offset, bool more)
{
	eth_v6(f, IPPROTO_HOPOPTS);
	frame_ipv6_hbh(f, IPPROTO_FRAGMENT);
	frame_ipv6_frag(f, IPPROTO_TCP, offset, more);
	if (offset == 0)
		frame_tcp(f, SPORT, DPORT);
	frame_payload_fill(f, 64, (__u8)offset);
}

void v6_frag_first(struct frame *f)
{
	v6_frag(f, 0, true);
}

void v6_frag_last(struct frame *f)
{
	v6_frag(f, 11, false);
}

/* Offset 0 and no M: a whole datagram behind a fragment header (RFC 6946). */
void v6_frag_atomic(struct frame *f)
{
	v6_frag(f, 0, false);
}

/* AH after the fragment header, where RFC 8200 puts it: only the first
 * piece has a real AH; a later piece has payload bytes in its place. */
static void v6_frag_ah(struct frame *f, __u16 offset, bool more)
{
	eth_v6(f, IPPROTO_FRAGMENT);
	frame_ipv6_frag(f, IPPROTO_AH, offset, more);
	if (offset == 0) {
		frame_ipv6_ah(f, IPPROTO_TCP);
		frame_tcp(f, SPORT, DPORT);
	}
	frame_payload_fill(f, 64, 0xf0);
}

void v6_frag_ah_first(struct frame *f)
{
	v6_frag_ah(f, 0, true);
}

void v6_frag_ah_last(struct frame *f)
{
	v6_frag_ah(f, 12, false);
}

void arp(struct frame *f)
{
	frame_eth(f, ETH_P_ARP);
	frame_arp(f, 1, V4_SRC, V4_DST);
}

void arp_q(struct frame *f)
{
	frame_eth(f, ETH_P_ARP);
	frame_vlan(f, ETH_P_8021Q, 100);
	frame_arp(f, 2, V4_DST, V4_SRC);
}

void lldp(struct frame *f)
{
	frame_eth(f, ETH_P_LLDP);
	frame_payload_fill(f, 46, 0x02);
}

void v4_tcp443(struct frame *f)
{
	eth_v4(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, 443);
}

void v6_tcp443(struct frame *f)
{
	eth_v6(f, IPPROTO_TCP);
	frame_tcp(f, SPORT, 443);
}

void v4_udp443(struct frame *f)
{
	eth_v4(f, IPPROTO_UDP);
	frame_udp(f, SPORT, 443);
}

void v4_from_net(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = "10.1.2.3",
		.dst = V4_DST, .proto = IPPROTO_TCP });
	frame_tcp(f, SPORT, DPORT);
}

void v4_from_net_443(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = "10.1.2.3",
		.dst = V4_DST, .proto = IPPROTO_TCP });
	frame_tcp(f, SPORT, 443);
}

void v4_to_net(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC,
		.dst = "192.168.7.9", .proto = IPPROTO_UDP });
	frame_udp(f, SPORT, 53);
}

void v4_from_net_to_net(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = "10.1.2.3",
		.dst = "192.168.7.9", .proto = IPPROTO_UDP });
	frame_udp(f, SPORT, 53);
}

void v6_from_net(struct frame *f)
{
	frame_eth(f, ETH_P_IPV6);
	frame_ipv6(f, &(struct frame_ip6){ .src = "2001:db8:1::5",
		.dst = V6_DST, .nexthdr = IPPROTO_TCP });
	frame_tcp(f, SPORT, DPORT);
}

void v6_to_net(struct frame *f)
{
	frame_eth(f, ETH_P_IPV6);
	frame_ipv6(f, &(struct frame_ip6){ .src = V6_SRC,
		.dst = "2001:db8:2:3::7", .nexthdr = IPPROTO_UDP });
	frame_udp(f, SPORT, 53);
}

/* 2001:db8:2:4:: is outside 2001:db8:2:3::/64. */
void v6_next_to_net(struct frame *f)
{
	frame_eth(f, ETH_P_IPV6);
	frame_ipv6(f, &(struct frame_ip6){ .src = V6_SRC,
		.dst = "2001:db8:2:4::7", .nexthdr = IPPROTO_UDP });
	frame_udp(f, SPORT, 53);
}

/* Malformed frames. */
static void v4_ihl(struct frame *f, __u8 ihl)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
		.proto = IPPROTO_TCP, .ihl = ihl });
	frame_tcp(f, SPORT, DPORT);
}

void v4_ihl0(struct frame *f)
{
	v4_ihl(f, 0xf0);	/* 0 would mean "computed"; the nibble is 0 */
}

void v4_ihl4(struct frame *f)
{
	v4_ihl(f, 4);
}

void v4_ihl15(struct frame *f)
{
	v4_ihl(f, 15);
}

static void v4_tot_len(struct frame *f, __u16 tot_len)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
		.proto = IPPROTO_TCP, .tot_len = tot_len,
		.tot_len_set = true });
	frame_tcp(f, SPORT, DPORT);
}

void v4_tot_len_long(struct frame *f)
{
	v4_tot_len(f, 41);
}

void v4_tot_len_huge(struct frame *f)
{
	v4_tot_len(f, 0xffff);
}

void v4_tot_len_short(struct frame *f)
{
	v4_tot_len(f, 19);
}

/* A datagram that ends 'cut' bytes into its transport header (tot_len or
 * payload_len says so), the header's bytes still in the frame, then
 * Ethernet padding: the parser must not take them for ports. */
void v4_ports_past_tot_len(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
		.proto = IPPROTO_UDP, .tot_len = 20 + 2, .tot_len_set = true });
	frame_udp(f, SPORT, 53);
	frame_finish(f);
	frame_pad(f, 60);
}

void v6_ports_past_payload_len(struct frame *f)
{
	frame_eth(f, ETH_P_IPV6);
	frame_ipv6(f, &(struct frame_ip6){ .src = V6_SRC, .dst = V6_DST,
		.nexthdr = IPPROTO_UDP, .payload_len = 3,
		.payload_len_set = true });
	frame_udp(f, SPORT, 53);
	frame_finish(f);
	frame_pad(f, 80);
}

void v6_ext_past_payload_len(struct frame *f)
{
	frame_eth(f, ETH_P_IPV6);
	frame_ipv6(f, &(struct frame_ip6){ .src = V6_SRC, .dst = V6_DST,
		.nexthdr = IPPROTO_DSTOPTS, .payload_len = 8,
		.payload_len_set = true });
	frame_ipv6_dstopts(f, IPPROTO_UDP);	/* 16 bytes */
	frame_udp(f, SPORT, 53);
	frame_finish(f);
	frame_pad(f, 100);
}

void v4_version6(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
		.proto = IPPROTO_TCP, .version = 6 });
	frame_tcp(f, SPORT, DPORT);
}

static void v6_payload_len(struct frame *f, __u16 len)
{
	frame_eth(f, ETH_P_IPV6);
	frame_ipv6(f, &(struct frame_ip6){ .src = V6_SRC, .dst = V6_DST,
		.nexthdr = IPPROTO_TCP, .payload_len = len,
		.payload_len_set = true });
	frame_tcp(f, SPORT, DPORT);
}

void v6_payload_len_zero(struct frame *f)
{
	v6_payload_len(f, 0);
}

void v6_payload_len_long(struct frame *f)
{
	v6_payload_len(f, 21);
}

void v6_version4(struct frame *f)
{
	frame_eth(f, ETH_P_IPV6);
	frame_ipv6(f, &(struct frame_ip6){ .src = V6_SRC, .dst = V6_DST,
		.nexthdr = IPPROTO_TCP, .version = 4 });
	frame_tcp(f, SPORT, DPORT);
}

void eth_only_v4(struct frame *f)
{
	frame_eth(f, ETH_P_IP);
}

void vlan_cut(struct frame *f)
{
	frame_eth(f, ETH_P_8021Q);
	frame_payload_fill(f, 2, 0);
}

/* Headers whose lengths agree with the frame, cut short anyway. */
void v4_tcp_no_l4(struct frame *f)
{
	eth_v4(f, IPPROTO_TCP);
}

void v4_tcp_3_bytes(struct frame *f)
{
	eth_v4(f, IPPROTO_TCP);
	frame_payload_fill(f, 3, 0x9c);
}

void v6_hbh_cut_icmp(struct frame *f)
{
	eth_v6(f, IPPROTO_HOPOPTS);
	frame_payload(f, "\x3a\x00\x01\x02", 4);	/* next: ICMPv6 */
}

void v6_ah_too_long(struct frame *f)
{
	eth_v6(f, IPPROTO_AH);
	/* AH claiming 1028 bytes, followed by no next header. */
	frame_payload(f, "\x3b\xff\x00\x00\x00\x00\x10\x00\x00\x00\x00\x01",
		      12);
}

void v6_frag_cut(struct frame *f)
{
	eth_v6(f, IPPROTO_FRAGMENT);
	frame_payload(f, "\x11\x00\x00\x01\x00\x00\xbe", 7);
}
