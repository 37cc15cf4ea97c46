/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * fixtures.h - frames and policies for the program tier's cases, named for
 * what they are so a row of the case table reads as a sentence.
 */
#ifndef XDP_STEER_FIXTURES_H
#define XDP_STEER_FIXTURES_H

#include "prog_env.h"

#define V4_SRC	"10.0.0.1"
#define V4_DST	"10.0.0.2"
#define V6_SRC	"2001:db8::1"
#define V6_DST	"2001:db8::2"
#define SPORT	40000
#define DPORT	80

/* Only the bucket of the flow the program should hash for the frame under
 * 's' (frame_hash(): its inner flow where 's' looks through its
 * encapsulation) leads to a present CPU (remote); writes 's' and makes it
 * active. */
int bucket_only(const struct frame *f, struct steer_slot *s);
/* The same for the bucket of 'flow' (not a fragment). */
int bucket_of_flow(const struct steer_flow *flow, struct steer_slot *s);
/* What the program reads of a frame whose IP header is whole and a header
 * after it is not (bpf/parse_result.h, PARSE_PARTIAL): the frame's flow
 * (frame_flow()) without its ports, and without its protocol too when
 * 'proto' is false (an IPv6 extension header chain that broke). */
void flow_partial(const struct frame *f, bool proto, struct steer_flow *flow);

/* Policies: write slot 0 (and its table and rules) for the frame about to
 * be sent, and make it active; 0 or a negative errno. */
int policy_bucket(const struct frame *f);
int policy_bucket_l3(const struct frame *f);
int policy_bucket_sym(const struct frame *f);
/* The bucket of flow_partial() with its protocol, and without it. */
int policy_bucket_partial(const struct frame *f);
int policy_bucket_addrs(const struct frame *f);
/* Every bucket to the remote CPU. */
int policy_all_remote(const struct frame *f);
int policy_empty(const struct frame *f);
int policy_missing(const struct frame *f);
int policy_local_fast(const struct frame *f);
int policy_local_slow(const struct frame *f);
int policy_remote_fast(const struct frame *f);
int policy_nonip_remote(const struct frame *f);
int policy_nonip_missing(const struct frame *f);
int policy_nonip_here_fast(const struct frame *f);
int policy_rule_5tuple(const struct frame *f);
int policy_rule_tcp443(const struct frame *f);
int policy_rule_tcp443_bucket(const struct frame *f);
int policy_rule_fast(const struct frame *f);
int policy_rule_missing(const struct frame *f);
int policy_prefixes(const struct frame *f);
int policy_prefix_v4_any(const struct frame *f);
int policy_prefix0_flow1(const struct frame *f);
int policy_flow0_prefix1(const struct frame *f);
int policy_shapes_order(const struct frame *f);
int policy_dst_before_src(const struct frame *f);
int policy_rule_set(const struct frame *f);
int policy_rule_set_broken(const struct frame *f);

/* Ethernet and an IPv4/IPv6 header between V4_/V6_SRC and _DST. */
void eth_v4(struct frame *f, __u8 proto);
void eth_v6(struct frame *f, __u8 next);

/* Frames, not yet finished (lengths unset). */
void v4_tcp(struct frame *f);
void v4_udp(struct frame *f);
void v4_udplite(struct frame *f);
void v4_sctp(struct frame *f);
void v4_icmp(struct frame *f);
void v4_gre(struct frame *f);
void v6_tcp(struct frame *f);
void v6_udp(struct frame *f);
void v6_udplite(struct frame *f);
void v6_sctp(struct frame *f);
void v6_icmpv6(struct frame *f);
void v6_no_next(struct frame *f);
void v4_tcp_padded(struct frame *f);
void v4_ports_past_tot_len(struct frame *f);
void v6_ports_past_payload_len(struct frame *f);
void v6_ext_past_payload_len(struct frame *f);
void v4_tcp_q(struct frame *f);
void v4_tcp_ad(struct frame *f);
void v4_udp_qinq(struct frame *f);
void v6_sctp_qq(struct frame *f);
void three_tags(struct frame *f);
void v4_opts_tcp(struct frame *f);
void v4_opts40_udp(struct frame *f);
void v6_hbh_tcp(struct frame *f);
void v6_routing_tcp(struct frame *f);
void v6_dstopts_udp(struct frame *f);
void v6_ah_tcp(struct frame *f);
void v6_chain_tcp(struct frame *f);
void v6_chain_icmpv6(struct frame *f);
void v6_chain_at_limit(struct frame *f);
void v6_chain_past_limit(struct frame *f);
void v4_frag_first(struct frame *f);
void v4_frag_middle(struct frame *f);
void v4_frag_last(struct frame *f);
void v6_frag_first(struct frame *f);
void v6_frag_last(struct frame *f);
void v6_frag_atomic(struct frame *f);
void v6_frag_ah_first(struct frame *f);
void v6_frag_ah_last(struct frame *f);
void arp(struct frame *f);
void arp_q(struct frame *f);
void lldp(struct frame *f);
void v4_tcp443(struct frame *f);
void v6_tcp443(struct frame *f);
void v4_udp443(struct frame *f);
void v4_from_net(struct frame *f);
void v4_from_net_443(struct frame *f);
void v4_to_net(struct frame *f);
void v4_from_net_to_net(struct frame *f);
void v6_from_net(struct frame *f);
void v6_to_net(struct frame *f);
void v6_next_to_net(struct frame *f);
void v4_ihl0(struct frame *f);
void v4_ihl4(struct frame *f);
void v4_ihl15(struct frame *f);
void v4_tot_len_long(struct frame *f);
void v4_tot_len_huge(struct frame *f);
void v4_tot_len_short(struct frame *f);
void v4_version6(struct frame *f);
void v6_payload_len_zero(struct frame *f);
void v6_payload_len_long(struct frame *f);
void v6_version4(struct frame *f);
void eth_only_v4(struct frame *f);
void vlan_cut(struct frame *f);
void v4_tcp_no_l4(struct frame *f);
void v4_tcp_3_bytes(struct frame *f);
void v6_hbh_cut_icmp(struct frame *f);
void v6_ah_too_long(struct frame *f);
void v6_frag_cut(struct frame *f);

#endif /* XDP_STEER_FIXTURES_H */
