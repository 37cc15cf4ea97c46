// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tier: properties of the flow hash in include/xdp_steer/hash.h, the same
 * code the XDP program runs. */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "xdp_steer/hash.h"
#include "xdp_steer/key_fill.h"
#include "xdp_steer/filter.h"
#include "test.h"

/* Keys as apply draws them: random 64-bit words (from getrandom). */
static const __u64 key_a[STEER_HASH_KEY_WORDS] = {
	0x9c1f8a2be4d07f31ull, 0x4b7e06d95ac3128full, 0xe21a7c4490bd5f63ull,
	0x37d5e0a1c86b2f94ull, 0xa8f3146d2e9c07b5ull, 0x5c02bb7ef1486ad9ull,
	0xd76e9a3015c4b2e8ull, 0x1e84f5c7a93d604bull, 0x6a39d2e84f1b7c05ull,
	0xf0b74c1958e26ad3ull, 0x83c5e62f0d9a41b7ull,
};
static const __u64 key_b[STEER_HASH_KEY_WORDS] = {
	0x2d6f4b8e91a3c705ull, 0xc84a19f3e65b20d7ull, 0x71e3d05a8c2f946bull,
	0xb59c27e4f0136a8dull, 0x0e8d63b1a7f45c29ull, 0xe4317fa26d9b08c5ull,
	0x9a05c8d3b2e7416full, 0x46bf1e7902d5a3c8ull, 0xfd2893c65e0a7b14ull,
	0x1873a4ed29c6f05bull, 0x6cf9205b873ed1a4ull,
};

/* xorshift: a fixed, printed seed makes every run the same. */
static __u32 rnd_state = 2463534242u;
static __u32 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static struct steer_flow random_flow(int family)
{
	struct steer_flow f = { 0 };
	int i, words = family == STEER_AF_INET ? 1 : 4;

	for (i = 0; i < words; i++) {
		f.src[i] = rnd();
		f.dst[i] = rnd();
	}
	f.sport = rnd();
	f.dport = rnd();
	f.proto = rnd() & 1 ? IPPROTO_TCP : IPPROTO_UDP;
	f.family = family;
	return f;
}

static struct steer_flow reversed(const struct steer_flow *f)
{
	struct steer_flow r = *f;

	memcpy(r.src, f->dst, sizeof(r.src));
	memcpy(r.dst, f->src, sizeof(r.dst));
	r.sport = f->dport;
	r.dport = f->sport;
	return r;
}

static void test_same_flow_same_hash(void)
{
	int i, fam;

	for (fam = 4; fam <= 6; fam += 2)
		for (i = 0; i < 1000; i++) {
			struct steer_flow f = random_flow(fam), g = f;

			EXPECT_EQ(steer_flow_hash(&f, key_a, STEER_F_HASH_L4, 0),
				  steer_flow_hash(&g, key_a, STEER_F_HASH_L4, 0),
				  "a flow and its copy hash alike");
		}
}

static void test_symmetric_mode_joins_directions(void)
{
	__u32 flags = STEER_F_HASH_L4 | STEER_F_SYMMETRIC;
	int i, fam, differ = 0;

	for (fam = 4; fam <= 6; fam += 2)
		for (i = 0; i < 1000; i++) {
			struct steer_flow f = random_flow(fam), r = reversed(&f);

			if (!EXPECT_EQ(steer_flow_hash(&f, key_a, flags, 0),
				       steer_flow_hash(&r, key_a, flags, 0),
				       "both directions hash alike in symmetric mode"))
				return;
			differ += steer_flow_hash(&f, key_a, STEER_F_HASH_L4, 0) !=
				  steer_flow_hash(&r, key_a, STEER_F_HASH_L4, 0);
		}
	EXPECT(differ > 1990, "without symmetric mode the directions hash apart");
}

/* A "symmetric" hash that sorted ports apart from addresses would put
 * A:1->B:2 and A:2->B:1 together; ours keeps each port with its address. */
static void test_symmetric_mode_keeps_ports_with_addresses(void)
{
	__u32 flags = STEER_F_HASH_L4 | STEER_F_SYMMETRIC;
	struct steer_flow f = random_flow(STEER_AF_INET), g;

	f.sport = htons(1000);
	f.dport = htons(2000);
	g = f;
	g.sport = htons(2000);
	g.dport = htons(1000);
	EXPECT(steer_flow_hash(&f, key_a, flags, 0) !=
	       steer_flow_hash(&g, key_a, flags, 0),
	       "swapping only the ports gives another hash");
}

static void test_l3_key_ignores_ports(void)
{
	int i, differ = 0;

	for (i = 0; i < 1000; i++) {
		struct steer_flow f = random_flow(i & 1 ? 4 : 6), g = f;

		g.sport ^= 0x1234;
		EXPECT_EQ(steer_flow_hash(&f, key_a, 0, 0),
			  steer_flow_hash(&g, key_a, 0, 0),
			  "the L3 key hashes flows that differ in ports alike");
		EXPECT_EQ(steer_flow_hash(&f, key_a, STEER_F_HASH_L4, 1),
			  steer_flow_hash(&f, key_a, 0, 0),
			  "a fragment hashes as the L3 key does, even in L4 mode");
		differ += steer_flow_hash(&f, key_a, STEER_F_HASH_L4, 0) !=
			  steer_flow_hash(&g, key_a, STEER_F_HASH_L4, 0);
	}
	EXPECT(differ > 995, "the L4 key hashes flows that differ in ports apart");
}

static void test_family_and_protocol_enter_the_hash(void)
{
	struct steer_flow f = random_flow(STEER_AF_INET), g = f;

	g.proto = f.proto == IPPROTO_TCP ? IPPROTO_UDP : IPPROTO_TCP;
	EXPECT(steer_flow_hash(&f, key_a, STEER_F_HASH_L4, 0) !=
	       steer_flow_hash(&g, key_a, STEER_F_HASH_L4, 0),
	       "under the L4 key, TCP and UDP between the same hosts hash apart");
	EXPECT(steer_flow_hash(&f, key_a, 0, 0) == steer_flow_hash(&g, key_a, 0, 0),
	       "under the L3 key, every flow between two hosts hashes alike");
	EXPECT(steer_flow_hash(&f, key_a, STEER_F_HASH_L4, 1) ==
	       steer_flow_hash(&g, key_a, STEER_F_HASH_L4, 1),
	       "fragments hash on addresses only, whatever their protocol");
	g = f;
	g.family = STEER_AF_INET6;
	EXPECT(steer_flow_hash(&f, key_a, 0, 0) != steer_flow_hash(&g, key_a, 0, 0),
	       "an IPv4 flow and the IPv6 flow with the same words hash apart");
}

/* Chi-square of 'n' flows over 'buckets' table buckets, under a key. */
static double spread_chi2(const __u64 key[STEER_HASH_KEY_WORDS], int family, int n, __u32 buckets)
{
	__u32 count[64] = { 0 }, b;
	double expect = (double)n / buckets, chi2 = 0;
	int i;

	rnd_state = 88172645u;
	for (i = 0; i < n; i++) {
		struct steer_flow f = random_flow(family);

		count[steer_table_index(steer_flow_hash(&f, key, STEER_F_HASH_L4, 0),
					buckets)]++;
	}
	for (b = 0; b < buckets; b++)
		chi2 += (count[b] - expect) * (count[b] - expect) / expect;
	return chi2;
}

static void test_hash_spreads_evenly_under_any_key(void)
{
	/* 63 degrees of freedom: chi2 above 110 has p < 0.0002. */
	EXPECT(spread_chi2(key_a, 4, 64000, 64) < 110, "IPv4 flows spread evenly over 64 buckets under key A");
	EXPECT(spread_chi2(key_b, 4, 64000, 64) < 110, "IPv4 flows spread evenly over 64 buckets under key B");
	EXPECT(spread_chi2(key_a, 6, 64000, 64) < 110, "IPv6 flows spread evenly over 64 buckets under key A");
	EXPECT(spread_chi2(key_b, 6, 64000, 64) < 110, "IPv6 flows spread evenly over 64 buckets under key B");
}

/* Someone who knows key A's placement learns nothing about key B's. */
static void test_different_keys_give_different_spreads(void)
{
	int i, same = 0, n = 10000;
	__u32 size = 512;

	for (i = 0; i < n; i++) {
		struct steer_flow f = random_flow(i & 1 ? 4 : 6);

		same += steer_table_index(steer_flow_hash(&f, key_a, STEER_F_HASH_L4, 0), size) ==
			steer_table_index(steer_flow_hash(&f, key_b, STEER_F_HASH_L4, 0), size);
	}
	/* Independent placements agree on 1/512 of flows: about 20. */
	EXPECT(same < 60, "two keys put almost no flow in the same bucket");
}

/* Flows that differ in one bit of one field still land everywhere. */
static void test_single_bit_changes_move_the_bucket(void)
{
	struct steer_flow f = random_flow(STEER_AF_INET6), g;
	__u32 h = steer_flow_hash(&f, key_a, STEER_F_HASH_L4, 0);
	int bit, same = 0;

	for (bit = 0; bit < 128; bit++) {
		g = f;
		g.src[bit / 32] ^= 1u << (bit % 32);
		same += steer_table_index(steer_flow_hash(&g, key_a, STEER_F_HASH_L4, 0), 512) ==
			steer_table_index(h, 512);
	}
	EXPECT(same <= 2, "flipping any one source-address bit moves the flow's bucket");
}

/*
 * Real flows count: one client opens connections from consecutive source
 * ports. Under a linear hash their hashes form an arithmetic progression,
 * and for a few keys in a thousand the progression's step hits almost one
 * parity of bucket: most of the flows on one CPU of two. Over 2000 keys
 * (as apply would draw them), 1000 flows from 10 addresses x 100 ports
 * must split between even and odd buckets (a 2-CPU table) within 5
 * binomial standard deviations (16 flows each) every time.
 */
static void test_consecutive_ports_spread_under_every_key(void)
{
	int k, w, i, worst = 0, bad = 0;

	rnd_state = 2463534242u;
	for (k = 0; k < 2000; k++) {
		__u64 key[STEER_HASH_KEY_WORDS];
		int even = 0, dev;

		for (w = 0; w < STEER_HASH_KEY_WORDS; w++)
			key[w] = (__u64)rnd() << 32 | rnd();
		for (i = 0; i < 1000; i++) {
			struct steer_flow f = {
				.src = { htonl(0x0ac90001u + i / 100) },
				.dst = { htonl(0x0ac80002u) },
				.sport = htons(10000 + i % 100),
				.dport = htons(9000),
				.proto = IPPROTO_UDP,
				.family = STEER_AF_INET,
			};

			even += !(steer_table_index(steer_flow_hash(&f, key,
					STEER_F_HASH_L4, 0), 512) & 1);
		}
		dev = even > 500 ? even - 500 : 500 - even;
		worst = dev > worst ? dev : worst;
		bad += dev > 5 * 16;
	}
	if (!EXPECT_EQ(bad, 0, "no key puts 1000 consecutive-port flows more than 5 sigma off an even split"))
		printf("  worst split: %d of 1000 flows on one side\n", 500 + worst);
}

static void test_set_index_stays_in_the_set(void)
{
	__u32 n, count[7] = { 0 };
	int i;

	for (n = 1; n <= 7; n++)
		EXPECT(steer_set_index(0xffffffffu, n) < n, "the largest hash picks a member of the set");
	for (i = 0; i < 70000; i++)
		count[steer_set_index(rnd(), 7)]++;
	for (n = 0; n < 7; n++)
		EXPECT(count[n] > 9500 && count[n] < 10500, "hashes spread evenly over a set of 7");
}

static void test_rule_key_zeroes_fields_outside_the_shape(void)
{
	struct steer_flow f = random_flow(STEER_AF_INET);
	struct steer_rule_key k;

	steer_rule_key_fill(&k, 1, STEER_M_PROTO | STEER_M_DPORT, &f);
	EXPECT_EQ(k.flow.src[0] | k.flow.dst[0] | k.flow.sport | k.flow.family, 0,
		  "a proto+dst_port key has no addresses, source port or family");
	EXPECT_EQ(k.flow.dport, f.dport, "a proto+dst_port key keeps the destination port");
	steer_rule_key_fill(&k, 0, STEER_M_SRC, &f);
	EXPECT_EQ(k.flow.family, f.family, "an address key keeps the family");
	EXPECT_EQ(k.flow.src[0], f.src[0], "a source key keeps the source address");
}

/* Every address of a prefix has its filter bit among those the prefix
 * sets, and a long IPv4 prefix sets one bit, not all of them. */
static void test_prefix_filter_covers_every_address_of_its_prefix(void)
{
	static const struct {
		const char *addr;
		__u32 bits;
		__u32 count;	/* values the prefix sets */
	} cases[] = {
		{ "0.0.0.0", 0, 1u << 16 }, { "10.0.0.0", 8, 1u << 8 },
		{ "172.16.0.0", 12, 1u << 4 }, { "192.168.0.0", 16, 1 },
		{ "192.168.128.0", 17, 1 }, { "198.51.100.0", 24, 1 },
		{ "203.0.113.7", 32, 1 }, { "::", 0, 1u << 16 },
		{ "2001::", 16, 1u << 16 }, { "2001:db8::", 20, 1u << 12 },
		{ "2001:db8::", 32, 1 }, { "2001:db8:1:2::", 64, 1 },
	};
	size_t i;
	int j, bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		__u8 family = strchr(cases[i].addr, ':') ? STEER_AF_INET6 :
							   STEER_AF_INET;
		__u32 a[4] = {}, first, count, full = family == STEER_AF_INET ?
						       32 : 128;

		inet_pton(family == STEER_AF_INET ? AF_INET : AF_INET6,
			  cases[i].addr, a);
		steer_filter_prefix_range(a, family, cases[i].bits, &first,
					  &count);
		bad += count != cases[i].count;
		/* Addresses inside: the host bits made up at random. */
		for (j = 0; j < 1000; j++) {
			__u32 x[4], bit, v;

			memcpy(x, a, sizeof(x));
			for (bit = cases[i].bits; bit < full; bit++)
				if (rand() & 1)
					((__u8 *)x)[bit / 8] |= 0x80 >> (bit % 8);
			v = steer_filter_prefix_value(x, family);
			bad += v < first || v >= first + count;
		}
	}
	EXPECT_EQ(bad, 0, "each prefix sets as many values as it spans, and every address of it falls on one of them");
}

/* The datapath takes a frame's bit from its flow, the loader from a rule's
 * key: the same bit, for every shape, family and flow. */
static void test_filter_bit_of_a_flow_is_the_bit_of_its_key(void)
{
	struct steer_rule_key k;
	struct steer_flow f;
	int i, j, bad = 0;
	__u32 shape;

	for (i = 0; i < 20000; i++) {
		memset(&f, 0, sizeof(f));
		f.family = i & 1 ? STEER_AF_INET6 : STEER_AF_INET;
		for (j = 0; j < (f.family == STEER_AF_INET6 ? 4 : 1); j++) {
			f.src[j] = (__u32)rand() * 2654435761u;
			f.dst[j] = (__u32)rand() * 2246822519u;
		}
		f.sport = rand();
		f.dport = rand();
		f.proto = rand();
		shape = (__u32)i % (STEER_M_ALL + 1);
		memset(&k, 0, sizeof(k));
		steer_rule_key_fill(&k, 1, shape, &f);
		bad += steer_filter_exact_bit(shape, &f) !=
		       steer_filter_exact_bit(k.shape, &k.flow);
	}
	EXPECT_EQ(bad, 0, "the bit of every flow equals the bit of its rule key");
}

/* Rule keys as policies hold them, and their neighbours: the i-th flow of
 * a kind that differs from the others in a few low bits of one field
 * (its shape in *shape). */
static struct steer_flow filter_flow(int kind, int i, __u32 *shape)
{
	struct steer_flow f = { 0 };

	f.family = STEER_AF_INET;
	f.proto = IPPROTO_TCP;
	f.src[0] = htonl(0x0a000001);
	f.dst[0] = htonl(0xc0000201);
	f.sport = htons(40000);
	f.dport = htons(443);
	*shape = STEER_M_ALL;
	switch (kind) {
	case 0:		/* IPv4 hosts of a /16, by source */
		f.src[0] = htonl(0x0a000000 + i);
		*shape = STEER_M_SRC;
		break;
	case 1:		/* IPv6 hosts of a /64 by source, full 5-tuple */
		f.family = STEER_AF_INET6;
		f.src[0] = f.dst[0] = htonl(0x20010db8);
		f.src[3] = htonl(i + 1);
		f.dst[3] = htonl(1);
		break;
	case 2:		/* IPv6 networks: the second word counts */
		f.family = STEER_AF_INET6;
		f.src[0] = htonl(0x20010db8);
		f.src[1] = htonl(i << 16);
		f.src[3] = htonl(1);
		*shape = STEER_M_SRC;
		break;
	case 3:		/* source ports of one host pair */
		f.sport = htons(1024 + i);
		break;
	case 4:		/* destination ports and protocols */
		f.dport = htons(1 + i / 2);
		f.proto = i & 1 ? IPPROTO_UDP : IPPROTO_TCP;
		*shape = STEER_M_DPORT | STEER_M_PROTO;
		break;
	default:	/* random 5-tuples: what a good mix gives any kind */
		f = random_flow(i & 1 ? STEER_AF_INET6 : STEER_AF_INET);
		break;
	}
	return f;
}

/* What the filter is for: 10k rules of one kind set their bits; frames of
 * the 10k neighbouring flows no rule names must find their bit clear
 * about as often as random flows do against random rules (96 %), or they
 * pay lookups that a filter with a better mix would spare them. */
static void test_filter_lets_few_unruled_neighbours_through(void)
{
	static const char *const what[] = {
		"neighbours of 10k IPv4 /32 source rules pass at most 6 % of the time",
		"neighbours of 10k IPv6 5-tuple rules pass at most 6 % of the time",
		"neighbours of 10k IPv6 network rules pass at most 6 % of the time",
		"neighbours of 10k source-port rules pass at most 6 % of the time",
		"neighbours of 10k port-and-protocol rules pass at most 6 % of the time",
		"10k random flows pass the bits of 10k random rules at most 6 % of the time",
	};
	static __u64 bits[STEER_FILTER_EXACT_WORDS];
	const int n = 10000;
	struct steer_flow f;
	int kind, i, passed;
	__u32 shape, bit;

	for (kind = 0; kind < (int)ARRAY_SIZE(what); kind++) {
		memset(bits, 0, sizeof(bits));
		for (i = 0; i < n; i++) {
			f = filter_flow(kind, i, &shape);
			bit = steer_filter_exact_bit(shape, &f);
			bits[bit / 64] |= 1ull << (bit % 64);
		}
		for (passed = 0; i < 2 * n; i++) {
			f = filter_flow(kind, i, &shape);
			bit = steer_filter_exact_bit(shape, &f);
			passed += bits[bit / 64] >> (bit % 64) & 1;
		}
		EXPECT(passed <= n * 6 / 100, what[kind]);
	}
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_same_flow_same_hash, "same flow gives the same hash"),
	TEST_ENTRY(test_symmetric_mode_joins_directions, "symmetric mode maps both directions together"),
	TEST_ENTRY(test_symmetric_mode_keeps_ports_with_addresses, "symmetric mode keeps ports with their addresses"),
	TEST_ENTRY(test_l3_key_ignores_ports, "L3 key and fragments ignore ports"),
	TEST_ENTRY(test_family_and_protocol_enter_the_hash, "family enters the hash; protocol only with ports (L4, not a fragment)"),
	TEST_ENTRY(test_hash_spreads_evenly_under_any_key, "flows spread evenly under any key"),
	TEST_ENTRY(test_different_keys_give_different_spreads, "different keys give different spreads"),
	TEST_ENTRY(test_single_bit_changes_move_the_bucket, "one flipped address bit moves the bucket"),
	TEST_ENTRY(test_consecutive_ports_spread_under_every_key, "consecutive ports spread evenly under every key"),
	TEST_ENTRY(test_set_index_stays_in_the_set, "rule CPU-set index stays in the set and spreads"),
	TEST_ENTRY(test_rule_key_zeroes_fields_outside_the_shape, "rule keys zero the fields outside their shape"),
	TEST_ENTRY(test_filter_bit_of_a_flow_is_the_bit_of_its_key, "a flow's filter bit is its rule key's"),
	TEST_ENTRY(test_filter_lets_few_unruled_neighbours_through, "the filter lets few neighbours of ruled flows through"),
	TEST_ENTRY(test_prefix_filter_covers_every_address_of_its_prefix, "the prefix filter covers every address of its prefix"),
};

TEST_MAIN("unit/hash")
