// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * keys.c - the program tier's tests of the id keys (hash.key vlan, tunnel,
 * src_port, dst_port): 200 flows inside 20 groups (QinQ VLAN pairs; VXLAN
 * and Geneve VNIs, GTP-U TEIDs, ESP SPIs; source or destination ports),
 * each group on the one CPU the shared hash of its id predicts, the groups
 * spread over the CPUs as the table's weights say; a frame the key does not
 * apply to hashed on its flow (as l4); the group's frames cut short of
 * their ports still on the group's CPU once the id was read, and whatever
 * the cut on the same CPU whichever CPU receives them (the invariant).
 */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_ether.h>

#include "prog_env.h"

#define GROUPS		20
#define PER_GROUP	10
/* The table's weights: one bucket in WEIGHT_ALL to the local CPU, the
 * rest to the remote one. */
#define WEIGHT_ALL	4
/* Ids run through the program for the spread over the weights. */
#define SPREAD_IDS	1000

static __u64 krng = 0x6b657973;

static __u32 krnd(void)
{
	krng ^= krng << 13;
	krng ^= krng >> 7;
	krng ^= krng << 17;
	return (__u32)(krng >> 32);
}

/* A group's frame 'i': its id 'g' in the header the key reads, the inner
 * (or only) flow's addresses and ports random. */
typedef void (*group_frame_fn)(struct frame *f, __u32 g);

static void inner_udp(struct frame *f)
{
	char src[20], dst[20];

	snprintf(src, sizeof(src), "10.%u.%u.%u", krnd() % 256, krnd() % 256,
		 1 + krnd() % 250);
	snprintf(dst, sizeof(dst), "172.16.%u.%u", krnd() % 256,
		 1 + krnd() % 250);
	frame_ipv4(f, &(struct frame_ip4){ .src = src, .dst = dst,
					   .proto = IPPROTO_UDP });
	frame_udp(f, 1024 + krnd() % 60000, 1 + krnd() % 60000);
	frame_payload_fill(f, 16, 0);
}

static void outer_udp(struct frame *f, __u16 sport, __u16 dport)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
		   .dst = FRAME_OUTER4_DST, .proto = IPPROTO_UDP });
	frame_udp(f, sport, dport);
}

/* A subscriber's QinQ pair: S-tag 100 + g, C-tag 1000 + g. */
static void qinq(struct frame *f, __u32 g)
{
	frame_eth(f, ETH_P_IP);
	frame_vlan(f, ETH_P_8021AD, 100 + g);
	frame_vlan(f, ETH_P_8021Q, 1000 + g);
	inner_udp(f);
}

static __u32 qinq_id(__u32 g)
{
	return 2u << STEER_IDS_TAGS_SHIFT | (100 + g) << 12 | (1000 + g);
}

/* The outer UDP source port varies by flow, as a VTEP's entropy does. */
static void vxlan(struct frame *f, __u32 g)
{
	outer_udp(f, 49152 + krnd() % 16384, 4789);
	frame_vxlan(f, 0x08, 5000 + g);
	frame_eth(f, ETH_P_IP);
	inner_udp(f);
}

static void geneve(struct frame *f, __u32 g)
{
	outer_udp(f, 49152 + krnd() % 16384, 6081);
	frame_geneve(f, 0, 0, ETH_P_IP);
	/* The VNI: bytes 4-6 of Geneve's header, after the UDP header. */
	f->buf[f->len - 4] = (__u8)((7000 + g) >> 16);
	f->buf[f->len - 3] = (__u8)((7000 + g) >> 8);
	f->buf[f->len - 2] = (__u8)(7000 + g);
	inner_udp(f);
}

static void gtpu(struct frame *f, __u32 g)
{
	outer_udp(f, 2152, 2152);
	frame_gtpu(f, &(struct frame_gtpu){ .teid = 0x10000 + g });
	inner_udp(f);
}

static void esp(struct frame *f, __u32 g)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
		   .dst = FRAME_OUTER4_DST, .proto = IPPROTO_ESP });
	frame_esp(f, 0xc0de0000 + g, 16 + krnd() % 64);
}

/* Flows from random hosts and ports to service port 8000 + g. */
static void to_port(struct frame *f, __u32 g)
{
	char src[20];

	frame_eth(f, ETH_P_IP);
	snprintf(src, sizeof(src), "10.%u.%u.%u", krnd() % 256, krnd() % 256,
		 1 + krnd() % 250);
	frame_ipv4(f, &(struct frame_ip4){ .src = src, .dst = "192.0.2.1",
					   .proto = IPPROTO_TCP });
	frame_tcp(f, 1024 + krnd() % 60000, 8000 + g);
}

/* Flows from source port 3000 + g, random addresses and destination. */
static void from_port(struct frame *f, __u32 g)
{
	char dst[20];

	frame_eth(f, ETH_P_IPV6);
	snprintf(dst, sizeof(dst), "2001:db8::%x", krnd() % 0xffff);
	frame_ipv6(f, &(struct frame_ip6){ .src = "2001:db8:1::1", .dst = dst,
					   .nexthdr = IPPROTO_UDP });
	frame_udp(f, 3000 + g, 1 + krnd() % 60000);
	frame_payload_fill(f, 8, 0);
}

static __u32 vni_id(__u32 g) { return 5000 + g; }
static __u32 geneve_id(__u32 g) { return 7000 + g; }
static __u32 teid_id(__u32 g) { return 0x10000 + g; }
static __u32 spi_id(__u32 g) { return 0xc0de0000 + g; }
static __u32 dport_id(__u32 g) { return htons(8000 + g); }
static __u32 sport_id(__u32 g) { return htons(3000 + g); }

struct key_case {
	const char *what;
	__u32 flags;		/* STEER_F_KEY_* */
	group_frame_fn build;
	__u32 (*id)(__u32 g);	/* the id the key reads from group g */
};

static const struct key_case key_cases[] = {
	{ "vlan: QinQ subscriber pairs", STEER_F_KEY_VLAN, qinq, qinq_id },
	{ "tunnel: VXLAN VNIs", STEER_F_KEY_TUNNEL, vxlan, vni_id },
	{ "tunnel: Geneve VNIs", STEER_F_KEY_TUNNEL, geneve, geneve_id },
	{ "tunnel: GTP-U TEIDs", STEER_F_KEY_TUNNEL, gtpu, teid_id },
	{ "tunnel: ESP SPIs", STEER_F_KEY_TUNNEL, esp, spi_id },
	{ "dst_port: service ports", STEER_F_KEY_DPORT, to_port, dport_id },
	{ "src_port: source ports (IPv6)", STEER_F_KEY_SPORT, from_port,
	  sport_id },
};

static __u32 table[STEER_TABLE_MAX];

/* Key 'flags' (plus the L4 key's flag, as the loader sets it), every
 * encapsulation looked through, no fast path (a frame for this CPU shows
 * in its queued counters), the table weighted 1 : WEIGHT_ALL - 1. */
static int key_policy(__u32 flags, struct steer_slot *s)
{
	__u32 i;
	int err;

	decap_slot(s, flags | STEER_F_HASH_L4);
	for (i = 0; i < STEER_TABLE_MAX; i++)
		table[i] = i % WEIGHT_ALL ? remote_cpu : local_cpu;
	err = steer_prog_write_table(&prog, 0, table, STEER_TABLE_MAX);
	return err ? err : commit(s);
}

/* The CPU that takes the frame run on CPU 'me' (-1: passed where it
 * arrived), and the key counters it moved. */
static int run_on(const struct frame *f, int me, __u64 *hashed,
		  __u64 *fallback)
{
	struct steer_stats st = {};
	int cpu = run_on_cpu(f, me, &st);

	/* Hashed on the id: placed by the table without falling back. */
	*fallback = st.key_id_fallback;
	*hashed = cpu > -2 && (st.redirected || st.passed_local) &&
		  !st.key_id_fallback && !st.rule_flow_hits &&
		  !st.rule_prefix_hits;
	return cpu;
}

static int predicted(const struct steer_slot *s, __u32 id)
{
	return (int)table[steer_table_index(steer_id_hash(id, s->hash_key),
					    s->table_size)];
}

/* Every group's flows on the group's predicted CPU, counted as hashed on
 * the key; both CPUs get groups. */
static void test_groups_one_cpu(void)
{
	struct steer_slot s;
	size_t k;

	if (!ready())
		return;
	for (k = 0; k < ARRAY_SIZE(key_cases); k++) {
		const struct key_case *kc = &key_cases[k];
		int per_cpu[2] = { 0, 0 }, cpu, want;
		__u64 hashed, fallback;
		struct frame f;
		__u32 g, i;
		char label[128];

		if (!EXPECT_EQ(key_policy(kc->flags, &s), 0, "the policy was written"))
			return;
		for (g = 0; g < GROUPS; g++) {
			want = predicted(&s, kc->id(g));
			per_cpu[want == remote_cpu]++;
			for (i = 0; i < PER_GROUP; i++) {
				frame_init(&f);
				kc->build(&f, g);
				if (!EXPECT_EQ(frame_finish(&f), 0, "the frame was built"))
					return;
				cpu = run_on(&f, local_cpu, &hashed, &fallback);
				snprintf(label, sizeof(label), "%s, group %u, flow %u",
					 kc->what, g, i);
				if (!EXPECT_EQ(cpu, want, "the flow is on its group's predicted CPU") ||
				    !EXPECT_EQ(hashed, 1, "the frame was hashed on its id, not its flow") ||
				    !EXPECT_EQ(fallback, 0, "key_id_fallback did not")) {
					frame_dump(stdout, &f, label);
					return;
				}
			}
		}
		printf("  %s: %d groups of %d flows, %d groups on CPU %d, %d on CPU %d\n",
		       kc->what, GROUPS, PER_GROUP, per_cpu[0], local_cpu,
		       per_cpu[1], remote_cpu);
		EXPECT(per_cpu[0] && per_cpu[1], "the groups spread over both CPUs");
	}
}

/* SPREAD_IDS ids of each key through the program: the share of the local
 * CPU (weight 1 of WEIGHT_ALL) within 6 points of 1/WEIGHT_ALL. */
static void test_ids_spread_by_weight(void)
{
	struct steer_slot s;
	size_t k;

	if (!ready())
		return;
	for (k = 0; k < ARRAY_SIZE(key_cases); k++) {
		const struct key_case *kc = &key_cases[k];
		__u64 hashed, fallback;
		int local = 0, cpu;
		struct frame f;
		double share;
		__u32 g;

		if (!EXPECT_EQ(key_policy(kc->flags, &s), 0, "the policy was written"))
			return;
		for (g = 0; g < SPREAD_IDS; g++) {
			frame_init(&f);
			kc->build(&f, g * 7 % 50000);
			frame_finish(&f);
			cpu = run_on(&f, local_cpu, &hashed, &fallback);
			local += cpu == local_cpu;
		}
		share = (double)local / SPREAD_IDS;
		printf("  %s: %d ids, %.1f %% on the weight-1 CPU (weight %.1f %%)\n",
		       kc->what, SPREAD_IDS, 100 * share, 100.0 / WEIGHT_ALL);
		EXPECT(share > 1.0 / WEIGHT_ALL - 0.06 &&
		       share < 1.0 / WEIGHT_ALL + 0.06,
		       "the ids spread over the CPUs by the table's weights");
	}
}

/* Frames an id key does not apply to hash on their flow as under l4, and
 * are counted so: untagged under vlan, a GRE tunnel and plain UDP under
 * tunnel, ICMP (no ports) under dst_port, a fragment under src_port. */
static void test_key_fallback_is_l4(void)
{
	static const struct {
		const char *what;
		__u32 flags;
		int kind;
	} rows[] = {
		{ "an untagged frame under vlan", STEER_F_KEY_VLAN, 0 },
		{ "plain UDP under tunnel", STEER_F_KEY_TUNNEL, 0 },
		{ "GRE (no tunnel id) under tunnel", STEER_F_KEY_TUNNEL, 1 },
		{ "ICMP (no ports) under dst_port", STEER_F_KEY_DPORT, 2 },
		{ "a fragment under src_port", STEER_F_KEY_SPORT, 3 },
		{ "VXLAN without its I flag (no VNI) under tunnel",
		  STEER_F_KEY_TUNNEL, 4 },
	};
	struct steer_slot s;
	size_t r;

	if (!ready())
		return;
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		__u64 hashed, fallback;
		struct steer_flow flow;
		struct frame f;
		bool frag;
		int cpu;

		frame_init(&f);
		switch (rows[r].kind) {
		case 0:
			frame_eth(&f, ETH_P_IP);
			inner_udp(&f);
			break;
		case 1:
			frame_eth(&f, ETH_P_IP);
			frame_ipv4(&f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
				   .dst = FRAME_OUTER4_DST, .proto = IPPROTO_GRE });
			frame_gre(&f, 0, ETH_P_IP);
			inner_udp(&f);
			break;
		case 2:
			frame_eth(&f, ETH_P_IP);
			frame_ipv4(&f, &(struct frame_ip4){ .src = "10.1.2.3",
				   .dst = "10.3.2.1", .proto = IPPROTO_ICMP });
			frame_icmp(&f, 8, 0);
			break;
		case 3:
			frame_eth(&f, ETH_P_IP);
			frame_ipv4(&f, &(struct frame_ip4){ .src = "10.1.2.3",
				   .dst = "10.3.2.1", .proto = IPPROTO_UDP,
				   .more_frags = true });
			frame_udp(&f, 3001, 53);
			frame_payload_fill(&f, 32, 0);
			break;
		case 4:
			outer_udp(&f, 50000, 4789);
			frame_vxlan(&f, 0x00, 5001);
			frame_eth(&f, ETH_P_IP);
			inner_udp(&f);
			break;
		}
		if (!EXPECT_EQ(frame_finish(&f), 0, "the frame was built") ||
		    !EXPECT_EQ(key_policy(rows[r].flags, &s), 0, "the policy was written"))
			return;
		/* What l4 reads: the inner flow of what decap looks
		 * through; the outer flow of a look-alike. */
		if (rows[r].kind == 4)
			frag = frame_flow_plain(&f, &flow);
		else
			frag = frame_looked_through(&f, &s) ?
			       frame_flow(&f, &flow) : frame_flow_plain(&f, &flow);
		cpu = run_on(&f, local_cpu, &hashed, &fallback);
		if (!EXPECT_EQ(cpu, (int)table[steer_table_index(
				steer_flow_hash(&flow, s.hash_key, s.flags, frag),
				s.table_size)],
			       "the frame is where its flow's l4 hash puts it") ||
		    !EXPECT_EQ(fallback, 1, "key_id_fallback counted it") ||
		    !EXPECT_EQ(hashed, 0, "it was not hashed on an id")) {
			frame_dump(stdout, &f, rows[r].what);
			return;
		}
	}
}

/* A group's frames cut at every byte, lengths fixed: whatever the cut,
 * the same CPU whichever CPU receives them, or passed where they arrive
 * (no IP header whole); once the id is read (the tags, the tunnel's
 * header) and an IP header is whole, the group's CPU. */
static void test_cut_frames_keep_the_rule(void)
{
	struct steer_slot s;
	size_t k;

	if (!ready())
		return;
	for (k = 0; k < ARRAY_SIZE(key_cases); k++) {
		const struct key_case *kc = &key_cases[k];
		__u64 hashed, fallback, h2, f2;
		struct frame whole, cut;
		int a, b, want, on_group = 0;
		size_t len;

		if (!EXPECT_EQ(key_policy(kc->flags, &s), 0, "the policy was written"))
			return;
		frame_init(&whole);
		kc->build(&whole, 3);
		frame_finish(&whole);
		want = predicted(&s, kc->id(3));
		for (len = 14; len <= whole.len; len++) {
			cut = whole;
			cut.len = len;
			cut.finished = false;
			frame_finish(&cut);
			a = run_on(&cut, local_cpu, &hashed, &fallback);
			b = run_on(&cut, remote_cpu, &h2, &f2);
			if (!EXPECT_EQ(a, b, "the cut frame is taken by the same CPU whichever CPU receives it") ||
			    !EXPECT(!hashed || a == want, "a cut frame hashed on its id is on its group's CPU")) {
				frame_dump(stdout, &cut, kc->what);
				steer_pin_cpu(local_cpu);
				return;
			}
			on_group += hashed && a == want;
		}
		steer_pin_cpu(local_cpu);
		printf("  %s: %zu cuts, %d of them hashed on the id, on the group's CPU\n",
		       kc->what, whole.len - 13, on_group);
		EXPECT(on_group > 0, "some cuts still carry the id");
	}
}

const struct test_case key_tests[] = {
	TEST_ENTRY(test_groups_one_cpu,
		   "every id key: 200 flows in 20 groups (VLAN pairs, VNIs, TEIDs, SPIs, ports), each group on its predicted CPU"),
	TEST_ENTRY(test_ids_spread_by_weight,
		   "every id key: 1000 ids spread over the CPUs by the table's weights"),
	TEST_ENTRY(test_key_fallback_is_l4,
		   "a frame an id key does not apply to (untagged, no tunnel id, no ports, a fragment) hashes as l4, counted"),
	TEST_ENTRY(test_cut_frames_keep_the_rule,
		   "every id key: a group's frames cut at every byte keep one CPU whichever CPU receives them, the group's once the id is read"),
};
const size_t n_key_tests = ARRAY_SIZE(key_tests);
