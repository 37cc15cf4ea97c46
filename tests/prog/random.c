// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * random.c - several thousand random frames (random headers, well formed
 * or not, plain or inside a random encapsulation) and mutations of them
 * (bytes flipped, frames cut) through the program, under random policies
 * that look through all, some or none of the encapsulations. Every verdict
 * must be XDP_PASS or XDP_REDIRECT and every frame must move exactly one
 * outcome counter and at most one encapsulation's; a well-formed frame
 * must also go where the shared hash of its flow (the inner one, where
 * the policy looks through its encapsulation) says, counted under its
 * encapsulation. The seed is printed; XDP_STEER_SEED=<seed> repeats a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/if_ether.h>

#include "prog_env.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE	136
#endif
#ifndef ETH_P_LLDP
#define ETH_P_LLDP	0x88CC
#endif

#define RANDOM_FRAMES	4000
#define RANDOM_POLICY_EVERY 200
#define RANDOM_MAX_FAILURES 5

static __u64 rng;

/* xorshift64: small, and the same sequence everywhere for a seed. */
static __u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (__u32)(rng >> 32);
}

static __u32 below(__u32 n)
{
	return rnd() % n;
}

/* Addresses from a small pool half of the time, so equal and repeated
 * addresses (the symmetric hash's tie-break) happen. */
static void rnd_v4(char *buf, size_t size)
{
	if (below(2))
		snprintf(buf, size, "10.0.0.%u", below(4));
	else
		snprintf(buf, size, "%u.%u.%u.%u", below(256), below(256),
			 below(256), below(256));
}

static void rnd_v6(char *buf, size_t size)
{
	if (below(2))
		snprintf(buf, size, "2001:db8::%x", below(4));
	else
		snprintf(buf, size, "%x:%x:%x:%x:%x:%x:%x:%x", rnd() & 0xffff,
			 rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff,
			 rnd() & 0xffff, rnd() & 0xffff, rnd() & 0xffff,
			 rnd() & 0xffff);
}

static __u8 rnd_proto(bool v6)
{
	static const __u8 protos[] = {
		IPPROTO_TCP, IPPROTO_UDP, IPPROTO_UDPLITE, IPPROTO_SCTP,
		IPPROTO_ICMP, IPPROTO_ESP,
	};
	__u8 p = protos[below(ARRAY_SIZE(protos))];

	if (p == IPPROTO_ICMP && v6)
		return IPPROTO_ICMPV6;
	if (below(10))
		return p;
	/* Any other protocol, but not an extension header the parser would
	 * walk into the payload, nor a tunnel (rnd_tunnel() builds those
	 * with their headers). */
	do {
		p = (__u8)rnd();
	} while (p == IPPROTO_HOPOPTS || p == IPPROTO_ROUTING ||
		 p == IPPROTO_FRAGMENT || p == IPPROTO_AH ||
		 p == IPPROTO_DSTOPTS || p == 135 /* mobility */ ||
		 p == IPPROTO_GRE || p == IPPROTO_IPIP || p == IPPROTO_IPV6);
	return p;
}

/* A UDP destination port that no random policy looks through. */
static bool decap_port(__u16 port)
{
	return port == 4789 || port == 8472 || port == 6081 || port == 2152;
}

static void rnd_transport(struct frame *f, __u8 proto)
{
	__u16 sport = below(4) ? 1024 + below(64) : (__u16)rnd();
	__u16 dport = below(2) ? 443 : (__u16)rnd();

	if (decap_port(dport))
		dport = 443;

	switch (proto) {
	case IPPROTO_TCP:
		frame_tcp(f, sport, dport);
		break;
	case IPPROTO_UDP:
		frame_udp(f, sport, dport);
		break;
	case IPPROTO_UDPLITE:
		frame_udplite(f, sport, dport);
		break;
	case IPPROTO_SCTP:
		frame_sctp(f, sport, dport);
		break;
	case IPPROTO_ICMP:
		frame_icmp(f, 8, 0);
		break;
	case IPPROTO_ICMPV6:
		frame_icmpv6(f, 128, 0);
		break;
	case IPPROTO_ESP:
		frame_esp(f, rnd(), 8);
		break;
	}
	frame_payload_fill(f, below(65), (__u8)rnd());
}

/* Returns whether the parser must accept the frame (at most two tags, at
 * most STEER_IPV6_EXT_MAX extension headers walked: the walk ends at a
 * fragment header, unless it is an atomic one). */
static bool rnd_ip(struct frame *f, bool v6)
{
	static const __u8 exts[] = {
		IPPROTO_HOPOPTS, IPPROTO_DSTOPTS, IPPROTO_ROUTING, IPPROTO_AH,
		IPPROTO_FRAGMENT,
	};
	__u8 chain[STEER_IPV6_EXT_MAX + 3], proto = rnd_proto(v6);
	char src[64], dst[64];
	int n = 0, i, walked;
	__u8 opts[40];

	if (!v6) {
		bool frag = !below(6);
		struct frame_ip4 ip = {
			.src = src, .dst = dst, .proto = proto, .opts = opts,
			.opts_len = below(3) ? 0 : 4 * below(11),
			.frag_offset = frag && below(2) ? below(8192) : 0,
			.more_frags = frag && below(2),
			.dont_frag = !frag && below(2),
		};

		rnd_v4(src, sizeof(src));
		rnd_v4(dst, sizeof(dst));
		for (i = 0; i < (int)sizeof(opts); i++)
			opts[i] = (__u8)rnd();
		frame_ipv4(f, &ip);
		if (!ip.frag_offset)
			rnd_transport(f, proto);
		else
			frame_payload_fill(f, 8 + below(64), (__u8)rnd());
		return true;
	}

	n = below(4) ? below(3) : below(ARRAY_SIZE(chain) + 1);
	for (i = 0; i < n; i++)
		chain[i] = exts[below(ARRAY_SIZE(exts))];
	rnd_v6(src, sizeof(src));
	rnd_v6(dst, sizeof(dst));
	frame_ipv6(f, &(struct frame_ip6){ .src = src, .dst = dst,
		.nexthdr = n ? chain[0] : proto, .flow_label = rnd() });
	walked = n;
	for (i = 0; i < n; i++) {
		__u8 next = i + 1 < n ? chain[i + 1] : proto;

		switch (chain[i]) {
		case IPPROTO_HOPOPTS:
			frame_ipv6_hbh(f, next);
			break;
		case IPPROTO_DSTOPTS:
			frame_ipv6_dstopts(f, next);
			break;
		case IPPROTO_ROUTING:
			frame_ipv6_routing(f, next);
			break;
		case IPPROTO_AH:
			frame_ipv6_ah(f, next);
			break;
		default: {
			__u16 offset = below(2) ? 0 : below(8192);
			bool more = below(2);

			frame_ipv6_frag(f, next, offset, more);
			/* A piece ends the walk; an atomic fragment (a
			 * whole datagram) does not. */
			if (walked == n && (offset || more))
				walked = i + 1;
		}
		}
	}
	rnd_transport(f, proto);
	/* Payload length 0 means a jumbogram, which Ethernet cannot carry. */
	return walked <= STEER_IPV6_EXT_MAX && f->len > (size_t)f->l3_off + 40;
}

/* Up to two VLAN tags right after an Ethernet header; sometimes three
 * (not well formed: returns false). */
static bool rnd_tags(struct frame *f)
{
	int tags = below(10) < 6 ? 0 : (int)below(4), i;

	for (i = 0; i < tags; i++)
		frame_vlan(f, below(2) ? ETH_P_8021Q : ETH_P_8021AD,
			   below(4096));
	return tags <= 2;
}

/* An Ethernet header naming IPv4 or IPv6, and its tags. */
static bool rnd_eth(struct frame *f, bool v6)
{
	frame_eth(f, v6 ? ETH_P_IPV6 : ETH_P_IP);
	return rnd_tags(f);
}

/* A random encapsulation of a random inner IP frame (rnd_ip); returns
 * whether it is well formed. Outer headers are fixed in shape, their
 * addresses random. */
static bool rnd_tunnel(struct frame *f)
{
	static const __u16 gre_flags[] = {
		0, 0x8000, 0x2000, 0x1000, 0xa000, 0x9000, 0x3000, 0xb000,
	};
	int encap = 1 + below(STEER_ENCAP_COUNT - 2);	/* ESP aside */
	bool v6 = below(2), inner6 = below(2), ok = true, teb;
	__u8 proto = IPPROTO_UDP;
	char src[64], dst[64];
	int i, n;

	frame_init(f);
	switch (encap) {
	case STEER_ENCAP_PPPOE:
		frame_eth(f, ETH_P_PPP_SES);
		ok &= rnd_tags(f);
		frame_pppoe(f, inner6 ? 0x0057 : 0x0021);
		return rnd_ip(f, inner6) && ok;
	case STEER_ENCAP_MPLS:
		frame_eth(f, ETH_P_MPLS_UC);
		ok &= rnd_tags(f);
		n = 1 + below(STEER_MPLS_LABELS_MAX + 1);
		for (i = 0; i < n; i++)
			frame_mpls(f, rnd() & 0xfffff, i + 1 == n);
		return rnd_ip(f, inner6) && ok && n <= STEER_MPLS_LABELS_MAX;
	case STEER_ENCAP_GRE:
		proto = IPPROTO_GRE;
		break;
	case STEER_ENCAP_IPIP:
		proto = inner6 ? IPPROTO_IPV6 : IPPROTO_IPIP;
		break;
	}
	ok &= rnd_eth(f, v6);
	if (v6) {
		rnd_v6(src, sizeof(src));
		rnd_v6(dst, sizeof(dst));
		frame_ipv6(f, &(struct frame_ip6){ .src = src, .dst = dst,
						   .nexthdr = proto });
	} else {
		rnd_v4(src, sizeof(src));
		rnd_v4(dst, sizeof(dst));
		frame_ipv4(f, &(struct frame_ip4){ .src = src, .dst = dst,
						   .proto = proto });
	}
	teb = !below(4);
	switch (encap) {
	case STEER_ENCAP_GRE:
		frame_gre(f, gre_flags[below(ARRAY_SIZE(gre_flags))],
			  teb ? ETH_P_TEB : inner6 ? ETH_P_IPV6 : ETH_P_IP);
		break;
	case STEER_ENCAP_IPIP:
		teb = false;
		break;
	case STEER_ENCAP_VXLAN:
		frame_udp(f, (__u16)rnd(), below(2) ? 4789 : 8472);
		frame_vxlan(f, 0x08, rnd() & 0xffffff);
		teb = true;
		break;
	case STEER_ENCAP_GENEVE:
		frame_udp(f, (__u16)rnd(), 6081);
		frame_geneve(f, 0, 4 * below(9),
			     teb ? ETH_P_TEB : inner6 ? ETH_P_IPV6 : ETH_P_IP);
		break;
	case STEER_ENCAP_GTPU:
		frame_udp(f, 2152, 2152);
		frame_gtpu(f, &(struct frame_gtpu){ .teid = rnd(),
			   .seq = below(2), .nexts = below(3) });
		teb = false;
		break;
	}
	if (teb)
		ok &= rnd_eth(f, inner6);
	return rnd_ip(f, inner6) && ok;
}

/* A random frame of random headers; returns whether it is well formed. */
static bool rnd_frame(struct frame *f)
{
	/* No MPLS (0x8847) among them: random bytes behind it are not a
	 * label stack a policy looking through MPLS would see as non-IP. */
	static const __u16 other[] = {
		ETH_P_LLDP, 0x8848 /* MPLS multicast */, 0x88b5, 0x0000, 0x05dc,
	};
	int tags = below(10) < 6 ? 0 : (int)below(4), kind = below(20), i;
	bool ok = tags <= 2;
	__u16 type;

	frame_init(f);
	if (kind < 9)
		type = ETH_P_IP;
	else if (kind < 18)
		type = ETH_P_IPV6;
	else if (kind == 18)
		type = ETH_P_ARP;
	else
		type = other[below(ARRAY_SIZE(other))];
	frame_eth(f, type);
	for (i = 0; i < tags; i++)
		frame_vlan(f, below(2) ? ETH_P_8021Q : ETH_P_8021AD,
			   below(4096));
	if (type == ETH_P_IP || type == ETH_P_IPV6)
		ok &= rnd_ip(f, type == ETH_P_IPV6);
	else if (type == ETH_P_ARP)
		frame_arp(f, 1, "10.0.0.1", "10.0.0.2");
	else
		frame_payload_fill(f, 46, (__u8)rnd());
	frame_finish(f);
	return ok;
}

/* Bytes flipped, the frame cut, or both. */
static void mutate(struct frame *f)
{
	int flips = below(3) ? 1 + below(4) : 0, i;

	for (i = 0; i < flips; i++)
		f->buf[below(f->len)] ^= (__u8)(1 + below(255));
	if (!flips || below(2))
		f->len = 14 + below(f->len - 14 + 1);
	snprintf(f->desc + strlen(f->desc), sizeof(f->desc) - strlen(f->desc),
		 ", mutated (%d bytes flipped, cut to %zu)", flips, f->len);
}

/* Frames of random bytes, with an IP, IPv6 or VLAN ethertype mostly. */
static void rnd_bytes(struct frame *f)
{
	static const __u16 types[] = {
		ETH_P_IP, ETH_P_IPV6, ETH_P_8021Q, ETH_P_8021AD, 0x1234,
	};
	__u16 type = types[below(ARRAY_SIZE(types))];
	size_t i;

	frame_init(f);
	f->len = 14 + below(200);
	for (i = 0; i < f->len; i++)
		f->buf[i] = (__u8)rnd();
	f->buf[12] = type >> 8;
	f->buf[13] = type & 0xff;
	snprintf(f->desc, sizeof(f->desc), "random bytes");
}

struct random_policy {
	struct steer_slot slot;
	__u32 table[STEER_TABLE_MAX];
};

static int rnd_policy(struct random_policy *rp)
{
	const __u32 cpus[] = { local_cpu, remote_cpu, CPU_MISSING };
	const __u32 nonip[] = { STEER_CPU_LOCAL, local_cpu, remote_cpu,
				CPU_MISSING };
	struct steer_slot *s = &rp->slot;
	__u32 i;
	int err;

	base_slot(s, rnd() & (STEER_F_HASH_L4 | STEER_F_SYMMETRIC |
			      STEER_F_LOCAL_FASTPATH));
	for (i = 0; i < STEER_HASH_KEY_WORDS; i++)
		s->hash_key[i] = (__u64)rnd() << 32 | rnd();
	/* Every encapsulation looked through, none, or some: UDP ones on
	 * their standard port, VXLAN sometimes on 8472 too. */
	i = below(5);
	if (i < 3) {
		steer_slot_decap_all(s);
	} else if (i == 4) {
		__u32 e;

		s->decap = rnd() & STEER_DECAP_ALL;
		for (e = 1; e < STEER_ENCAP_COUNT; e++)
			if ((s->decap & STEER_DECAP(e)) && steer_encap_port(e))
				steer_decap_add_port(s, htons(steer_encap_port(e)), e);
	}
	if ((s->decap & STEER_DECAP(STEER_ENCAP_VXLAN)) && below(2))
		steer_decap_add_port(s, htons(8472), STEER_ENCAP_VXLAN);
	s->table_size = below(10) ? 1u << (1 + below(12)) : 0;
	s->nonip_cpu = nonip[below(ARRAY_SIZE(nonip))];
	for (i = 0; i < STEER_TABLE_MAX; i++)
		rp->table[i] = cpus[below(ARRAY_SIZE(cpus))];
	err = steer_prog_write_table(&prog, 0, rp->table, STEER_TABLE_MAX);
	return err ? err : commit(s);
}

/* What a well-formed frame must do under the policy. */
static struct expect predict(const struct frame *f,
			     const struct random_policy *rp)
{
	const struct steer_slot *s = &rp->slot;
	struct expect e = PASS(passed_nonip, 0);
	struct steer_flow flow;
	__u32 cpu;
	bool frag;

	bool looked = frame_looked_through(f, s);

	if (!s->table_size)
		return (struct expect)PASS(passed_no_policy, 0);
	e.encap = looked ? f->encap : 0;
	if (!f->l3_family || (f->l2_tunnel && !looked)) {
		if (s->nonip_cpu == STEER_CPU_LOCAL)
			return e;
		cpu = s->nonip_cpu;
	} else {
		frag = looked ? frame_flow(f, &flow) :
				frame_flow_plain(f, &flow);
		/* ESP inside a tunnel: its SPI only where ESP is looked
		 * through too. */
		if (flow.proto == IPPROTO_ESP &&
		    !(s->decap & STEER_DECAP(STEER_ENCAP_ESP)))
			flow.sport = flow.dport = 0;
		e.also = frag ? ALSO_FRAG : 0;
		cpu = rp->table[steer_table_index(steer_flow_hash(&flow,
				s->hash_key, s->flags, frag), s->table_size)];
	}
	if ((s->flags & STEER_F_LOCAL_FASTPATH) && cpu == (__u32)local_cpu) {
		e.verdict = XDP_PASS;
		e.cpu = CPU_NONE;	/* passed_local_bytes instead */
		e.outcome = OFF(passed_local);
	} else if (cpu == (__u32)local_cpu || cpu == (__u32)remote_cpu) {
		e.verdict = XDP_REDIRECT;
		e.cpu = (int)cpu;
		e.outcome = OFF(redirected);
	} else {
		e.verdict = XDP_PASS;
		e.cpu = CPU_NONE;
		e.outcome = OFF(passed_no_target);
	}
	return e;
}

struct counts {
	struct steer_stats st;
	__u64 cpu_packets[3];	/* local, remote, missing */
};

static int read_counts(struct counts *c)
{
	const __u32 cpus[3] = { local_cpu, remote_cpu, CPU_MISSING };
	struct steer_cpu_stats cs;
	int err, i;

	err = steer_prog_read_stats(&prog, &c->st);
	for (i = 0; i < 3 && !err; i++) {
		err = steer_prog_read_cpu_stats(&prog, cpus[i], &cs);
		c->cpu_packets[i] = cs.packets;
	}
	return err;
}

/* Runs one random frame and checks what every frame must satisfy, and
 * everything else when 'e' predicts it. */
static bool random_run(const struct frame *f, const struct expect *e,
		       struct counts *prev)
{
	struct counts cur;
	int verdict = -1, err, cpu;
	__u64 moved = 0, delta, cpu_moved = 0;
	char what[96];
	bool ok = true;
	size_t i;

	err = steer_prog_run(&prog, f->buf, f->len, &verdict);
	if (!err)
		err = read_counts(&cur);
	if (!EXPECT_EQ(err, 0, "the program ran and its counters were read"))
		return false;
	ok &= EXPECT(verdict == XDP_PASS || verdict == XDP_REDIRECT,
		     "the verdict is XDP_PASS or XDP_REDIRECT");
	ok &= EXPECT_EQ(cur.st.rx_packets - prev->st.rx_packets, 1,
			"rx_packets moved by one");
	for (i = 0; i < n_outcomes; i++) {
		delta = counter(&cur.st, outcomes[i].off) -
			counter(&prev->st, outcomes[i].off);
		moved += delta;
		snprintf(what, sizeof(what), "%s moved as predicted",
			 outcomes[i].name);
		if (e && !EXPECT_EQ(delta, outcomes[i].off == e->outcome, what))
			ok = false;
	}
	ok &= EXPECT_EQ(moved, 1, "exactly one outcome counter moved");
	for (i = 0; e && i < n_extras; i++) {
		delta = counter(&cur.st, extras[i].off) -
			counter(&prev->st, extras[i].off);
		snprintf(what, sizeof(what), "%s moved as predicted",
			 extras[i].name);
		ok &= EXPECT_EQ(delta, !!(e->also & extras[i].bit), what);
	}
	for (i = 0, moved = 0; i < n_encaps; i++) {
		delta = counter(&cur.st, encaps[i].off) -
			counter(&prev->st, encaps[i].off);
		moved += delta;
		snprintf(what, sizeof(what), "%s moved as predicted",
			 encaps[i].name);
		if (e)
			ok &= EXPECT_EQ(delta, e->encap == encaps[i].bit, what);
	}
	ok &= EXPECT(moved <= 1, "at most one encapsulation counted the frame");
	ok &= EXPECT(cur.st.encap_malformed - prev->st.encap_malformed <=
		     cur.st.passed_parse_error - prev->st.passed_parse_error +
		     cur.st.parsed_partial - prev->st.parsed_partial,
		     "a malformed encapsulation is passed as a parse error or steered by what was read");
	ok &= EXPECT(cur.st.parsed_partial - prev->st.parsed_partial +
		     cur.st.passed_parse_error - prev->st.passed_parse_error <= 1,
		     "a frame steered by what was read is no parse error");
	for (i = 0; i < 3; i++)
		cpu_moved += cur.cpu_packets[i] - prev->cpu_packets[i];
	ok &= EXPECT_EQ(cpu_moved, verdict == XDP_REDIRECT,
			"steer_queued moved for redirected frames only");
	ok &= EXPECT_EQ(cur.st.passed_local_bytes - prev->st.passed_local_bytes,
			cur.st.passed_local != prev->st.passed_local ? f->len : 0,
			"passed_local_bytes moved by a frame passed on the spot, only");
	if (e) {
		cpu = resolve_cpu(e->cpu);
		ok &= EXPECT_EQ(verdict, e->verdict, "the verdict is the predicted one");
		ok &= EXPECT_EQ(cur.cpu_packets[0] - prev->cpu_packets[0],
				cpu == local_cpu, "the local CPU's steer_queued moved as predicted");
		ok &= EXPECT_EQ(cur.cpu_packets[1] - prev->cpu_packets[1],
				cpu == remote_cpu, "the remote CPU's steer_queued moved as predicted");
	}
	*prev = cur;
	return ok;
}

static void test_random_frames(void)
{
	const char *env = getenv("XDP_STEER_SEED");
	unsigned long long seed = env ? strtoull(env, NULL, 0) : 0x5eed5eedULL;
	static struct random_policy rp;
	struct counts prev;
	struct frame f, m;
	int failures = 0, i, runs = 0, predicted = 0, tunnelled = 0;
	__u64 sum = 0;
	struct expect e;
	size_t k;

	if (!ready())
		return;
	printf("  seed 0x%llx (XDP_STEER_SEED=0x%llx repeats this run)\n",
	       seed, seed);
	rng = seed ? seed : 1;
	if (!EXPECT_EQ(read_counts(&prev), 0, "the counters were read"))
		return;
	for (i = 0; i < RANDOM_FRAMES && failures < RANDOM_MAX_FAILURES; i++) {
		bool well_formed;

		if (i % RANDOM_POLICY_EVERY == 0 &&
		    !EXPECT_EQ(rnd_policy(&rp), 0, "a random policy was written"))
			return;
		if (below(3) == 0) {
			well_formed = rnd_tunnel(&f);
			frame_finish(&f);
			tunnelled++;
		} else if (below(10)) {
			well_formed = rnd_frame(&f);
		} else {
			rnd_bytes(&f);
			well_formed = false;
		}
		if (well_formed)
			e = predict(&f, &rp);
		runs++;
		predicted += well_formed;
		if (!random_run(&f, well_formed ? &e : NULL, &prev)) {
			frame_dump(stdout, &f, "random");
			failures++;
		}
		if (!below(3))
			continue;
		m = f;
		mutate(&m);
		runs++;
		if (!random_run(&m, NULL, &prev)) {
			frame_dump(stdout, &m, "mutated");
			failures++;
		}
	}
	for (k = 0; k < n_outcomes; k++)
		sum += counter(&prev.st, outcomes[k].off);
	EXPECT_EQ(sum, prev.st.rx_packets,
		  "the outcome counters add up to rx_packets");
	EXPECT_EQ(prev.st.rx_packets, runs, "rx_packets counted every run");
	printf("  %d frames run, %d of them well formed and predicted, %d built in a tunnel\n",
	       runs, predicted, tunnelled);
}

/* ---- the receiving CPU decides nothing ----------------------------------- */

/* UDP to a port a tunnel has (4789, 8472, 6081, 2152, 4500), carrying
 * random bytes: mostly no tunnel's header (a VXLAN header without its I
 * flag, GTP of another version), sometimes one by chance. */
static void rnd_lookalike(struct frame *f)
{
	static const __u16 ports[] = { 4789, 8472, 6081, 2152, 4500 };
	bool v6 = below(2);
	char src[64], dst[64];
	__u8 junk[64];
	size_t i, n = below(sizeof(junk) + 1);

	frame_init(f);
	frame_eth(f, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (v6) {
		rnd_v6(src, sizeof(src));
		rnd_v6(dst, sizeof(dst));
		frame_ipv6(f, &(struct frame_ip6){ .src = src, .dst = dst,
						   .nexthdr = IPPROTO_UDP });
	} else {
		rnd_v4(src, sizeof(src));
		rnd_v4(dst, sizeof(dst));
		frame_ipv4(f, &(struct frame_ip4){ .src = src, .dst = dst,
						   .proto = IPPROTO_UDP });
	}
	frame_udp(f, 1024 + below(4096), ports[below(ARRAY_SIZE(ports))]);
	for (i = 0; i < n; i++)
		junk[i] = (__u8)rnd();
	frame_payload(f, junk, n);
	frame_finish(f);
}

/* Cut to a random length of at least the Ethernet header, every length
 * field fixed to the cut: headers cut short that claim no more than they
 * have. */
static void cut_fixed(struct frame *f)
{
	f->len = 14 + below(f->len - 14 + 1);
	f->finished = false;
	frame_finish(f);
	snprintf(f->desc + strlen(f->desc), sizeof(f->desc) - strlen(f->desc),
		 ", cut to %zu, lengths fixed", f->len);
}

/* Frames of the corpus below, and how many of them each kind of outcome
 * got, for the summary. */
#define RXCPU_FRAMES	3000

/* The CPU that takes frame 'f' when the program runs on CPU 'me': the CPU
 * it was queued to, or 'me' for a frame the policy passes there (the fast
 * path); -1 for one passed on the receiving CPU because nothing of its own
 * could place it (no IP header read, or not IP under non_ip: local), which
 * may follow the receiving CPU. *outcome: its outcome counter. */
static int taken_by(const struct frame *f, int me, size_t *outcome)
{
	struct steer_stats st = {};
	int cpu = run_on_cpu(f, me, &st);
	size_t i;

	*outcome = 0;
	for (i = 0; cpu > -2 && i < n_outcomes; i++)
		if (counter(&st, outcomes[i].off))
			*outcome = outcomes[i].off;
	/* Passed on its CPU's fast path or queued to that CPU is one place:
	 * which of the two is the drain's business (a bucket cold there goes
	 * through the CPU's own queue while another CPU queues frames), not
	 * the frame's; the CPU is compared apart. */
	if (*outcome == OFF(passed_local))
		*outcome = OFF(redirected);
	return cpu;
}

/*
 * The design's second invariant: a frame's CPU is a function of the policy
 * and the frame's own bytes, never of the CPU that received it. Every
 * frame of a corpus (random frames plain and in every encapsulation, well
 * formed or not, UDP to every port the slot looks through with payloads
 * that are no tunnel, mutations of all of them: bytes flipped, cut) runs
 * on this CPU and on another, under one policy with every encapsulation
 * looked through, the fast path and drain on, buckets spread over both
 * CPUs: each time the same outcome, and the same CPU for every frame but
 * those passed where they arrived for lack of an IP header (or not IP).
 * The receive queue seems to hop between the CPUs with every frame, as a
 * NIC queue's NAPI would when its IRQ moves.
 */
static void test_rx_cpu_decides_nothing(void)
{
	static struct random_policy rp;
	struct steer_slot *s = &rp.slot;
	int i, n = 0, placed = 0, unplaced = 0, partial = 0, failures = 0;
	int known = 0;
	size_t oa, ob;
	struct frame f, orig;
	__u32 k;
	int err;

	if (!ready())
		return;
	rng = 0x1dcb5eedULL;
	base_slot(s, STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH | STEER_F_DRAIN);
	s->drain_units = 25;
	steer_slot_decap_all(s);
	steer_decap_add_port(s, htons(8472), STEER_ENCAP_VXLAN);
	for (k = 0; k < STEER_TABLE_MAX; k++)
		rp.table[k] = below(2) ? local_cpu : remote_cpu;
	err = steer_prog_reset_drain(&prog);
	if (!err)
		err = steer_prog_write_table(&prog, 0, rp.table, STEER_TABLE_MAX);
	if (!err)
		err = commit(s);
	if (!EXPECT_EQ(err, 0, "the policy was written"))
		return;
	for (i = 0; i < RXCPU_FRAMES && failures < RANDOM_MAX_FAILURES; i++) {
		struct steer_stats st;
		int a, b;

		struct steer_flow flow;
		bool well_formed = true, inner;

		k = below(10);
		if (k < 3) {
			well_formed = rnd_tunnel(&f);
			frame_finish(&f);
		} else if (k < 5) {
			rnd_lookalike(&f);
		} else if (k < 9) {
			well_formed = rnd_frame(&f);
		} else {
			rnd_bytes(&f);
			well_formed = false;
		}
		k = below(4);
		if (k == 0) {
			mutate(&f);
			well_formed = false;
		} else if (k == 1) {
			orig = f;
			cut_fixed(&f);
			/* Placed where its IP header survived the cut. */
			well_formed &= frame_flow_cut(&orig, f.len, &flow,
						      &inner) >= 0;
		}
		/* A frame the builder knows to hold a readable IP header. */
		well_formed &= f.nip > 0;
		a = taken_by(&f, local_cpu, &oa);
		b = taken_by(&f, remote_cpu, &ob);
		n++;
		if (!EXPECT(a > -2 && b > -2, "the frame ran on both CPUs"))
			break;
		if (!EXPECT_EQ(oa, ob, "the frame's outcome is the same on both CPUs") ||
		    !EXPECT_EQ(a, b, "the frame is taken by the same CPU (or passed where it arrives) whichever CPU receives it")) {
			printf("  on CPU %d: CPU %d, on CPU %d: CPU %d\n",
			       local_cpu, a, remote_cpu, b);
			frame_dump(stdout, &f, "received on either CPU");
			failures++;
			continue;
		}
		if (well_formed && !EXPECT(a >= 0, "a frame with a readable IP header is placed by the policy, not passed where it arrives")) {
			frame_dump(stdout, &f, "with a readable IP header");
			failures++;
			continue;
		}
		known += well_formed;
		if (a < 0)
			unplaced++;
		else
			placed++;
		if (!steer_prog_read_stats(&prog, &st))
			partial += st.parsed_partial > 0;
	}
	steer_pin_cpu(local_cpu);
	printf("  %d frames, each on CPU %d and CPU %d: %d taken by one CPU (%d of them steered by what was read of a cut or malformed frame; %d known by their builder to hold a readable IP header), %d passed where they arrived (no IP header, or not IP)\n",
	       n, local_cpu, remote_cpu, placed, partial, known, unplaced);
	EXPECT(placed > n / 2, "most frames of the corpus were placed by the policy");
	EXPECT(partial > n / 20, "the corpus holds cut and malformed frames with an IP header");
}

const struct test_case random_tests[] = {
	TEST_ENTRY(test_random_frames,
		   "random and mutated frames are passed or redirected, each counted once"),
	TEST_ENTRY(test_rx_cpu_decides_nothing,
		   "a frame's CPU is the same whichever CPU receives it: random, tunnelled, look-alike, cut and malformed frames"),
};
const size_t n_random_tests = ARRAY_SIZE(random_tests);
