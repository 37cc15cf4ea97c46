/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/filter.h - the rule filter: bits in front of the rule lookups,
 * set by the loader for its rules and tested by the datapath.
 */
#ifndef XDP_STEER_INCLUDE_FILTER_H
#define XDP_STEER_INCLUDE_FILTER_H

#include <linux/types.h>
#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"

/*
 *
 * A rule lookup is a call into the kernel (a hash map or an LPM trie):
 * tens of ns a frame and a shape under retpolines, paid by every frame
 * while rules exist, though most frames match none. So each slot has
 * bits in front of its lookups (rule_filter): a frame looks a shape up
 * only when its bit is set. Set bits only ever let a lookup through, so
 * a bit set by chance costs a lookup, never a wrong CPU; a rule's own bit
 * is always set (the loader sets them before the slot goes live).
 *
 * Per slot, STEER_FILTER_SLOT_WORDS 64-bit words:
 *   - exact rules: STEER_FILTER_EXACT_BITS bits, one per masked rule key
 *     (steer_filter_exact_bit(); 10k rules set 4 % of them);
 *   - prefix rules: for each family and side (source, destination), one
 *     bit per value of 16 bits of the address (IPv4: its first 16; IPv6:
 *     its bits 16-31, as the first 16 are the same for most of a
 *     network's prefixes): set for every value a prefix covers.
 */
#define STEER_FILTER_EXACT_SHIFT	18
#define STEER_FILTER_EXACT_BITS		(1u << STEER_FILTER_EXACT_SHIFT)
#define STEER_FILTER_PREFIX_BITS	(1u << 16)
#define STEER_FILTER_EXACT_WORDS	(STEER_FILTER_EXACT_BITS / 64)
#define STEER_FILTER_PREFIX_WORDS	(STEER_FILTER_PREFIX_BITS / 64)
#define STEER_FILTER_SLOT_WORDS		(STEER_FILTER_EXACT_WORDS + \
					 4 * STEER_FILTER_PREFIX_WORDS)

/* The exact-rule bit of flow 'f' under 'shape': of its key as
 * steer_rule_key_fill() masks it (the slot is not hashed), taken from the
 * flow itself, so a frame that matches nothing builds no key. Masking a
 * key's own flow again changes nothing: the loader passes its keys.
 * Multiply-shift with fixed odd constants: a frame built to pass the
 * filter only costs the lookup it would have cost anyway. Two multiplies
 * whatever the family, over two words of the flow:
 *   addrs: source << 32 | destination, an IPv6 address folded to one word
 *          (a collision only lets a lookup through);
 *   rest:  (protocol << 8 | family << 16) << 32 | the ports, swapped to
 *          host order (on little-endian CPUs), where consecutive ports
 *          spread: a multiply spreads low-order counts best. Taken in
 *          network order, the neighbours of 10k consecutive source-port
 *          rules found their bit set 13 % of the time, 3.5 times as often
 *          as random flows do (tests/unit/test_hash.c).
 * A shape keeps of each word what its fields cover (the family with
 * either address), and adds itself in the rest's high word: masks the
 * loader computes once per shape and keeps in the slot, so the datapath
 * takes the two words from the flow and, per shape, masks them: testing
 * each field per shape instead cost one exact shape 22 (IPv4) to 25
 * (IPv6) instructions more (bench_prog --insns). */
static inline __u64 steer_filter_addrs(const struct steer_flow *f)
{
	__u64 s[2], d[2];
	__u32 src, dst;

	if (f->family == STEER_AF_INET6) {
		/* The four words' xor, two at a time: 64-bit loads. */
		__builtin_memcpy(s, f->src, sizeof(s));
		__builtin_memcpy(d, f->dst, sizeof(d));
		s[0] ^= s[1];
		d[0] ^= d[1];
		src = (__u32)s[0] ^ (__u32)(s[0] >> 32);
		dst = (__u32)d[0] ^ (__u32)(d[0] >> 32);
	} else {
		src = f->src[0];
		dst = f->dst[0];
	}
	return (__u64)src << 32 | dst;
}

static inline __u64 steer_filter_rest(const struct steer_flow *f)
{
	__u32 ports = __builtin_bswap32((__u32)f->sport |
					(__u32)f->dport << 16);

	return (__u64)((__u32)f->proto << 8 | (__u32)f->family << 16) << 32 |
	       ports;
}

static inline void steer_filter_mask_of(__u32 shape,
					struct steer_filter_mask *m)
{
	/* The ports' bytes as the swap leaves them: sport's on top. */
	__u64 sport = (shape & STEER_M_SPORT) ? 0xffff0000ull : 0;
	__u64 dport = (shape & STEER_M_DPORT) ? 0x0000ffffull : 0;
	__u64 proto = (shape & STEER_M_PROTO) ? 0xff00ull << 32 : 0;
	__u64 family = (shape & (STEER_M_SRC | STEER_M_DST)) ?
		       0xff0000ull << 32 : 0;

	m->addrs = ((shape & STEER_M_SRC) ? 0xffffffffull << 32 : 0) |
		   ((shape & STEER_M_DST) ? 0xffffffffull : 0);
	m->rest = proto | family | sport | dport;
	m->tag = (__u64)shape << 32;
}

static inline __u32 steer_filter_exact_bit_of(const struct steer_filter_mask *m,
					      __u64 addrs, __u64 rest)
{
	__u64 h = (addrs & m->addrs) * 0xd6e8feb86659fd93ull +
		  ((rest & m->rest) | m->tag) * 0xc2b2ae3d27d4eb4full;

	return (__u32)(h >> (64 - STEER_FILTER_EXACT_SHIFT));
}

static inline __u32 steer_filter_exact_bit(__u32 shape,
					   const struct steer_flow *f)
{
	struct steer_filter_mask m;

	steer_filter_mask_of(shape, &m);
	return steer_filter_exact_bit_of(&m, steer_filter_addrs(f),
					 steer_filter_rest(f));
}

/* Fills the slot's filter_masks from its shapes: whoever writes shapes
 * calls it before the slot goes live (the loader, the tests). */
static inline void steer_slot_fill_filter_masks(struct steer_slot *s)
{
	__u32 i;

	for (i = 0; i < STEER_MAX_SHAPES; i++)
		steer_filter_mask_of(i < s->nshapes ? s->shapes[i] : 0,
				     &s->filter_masks[i]);
}

/* The 16 bits of address 'a' (network order words) the prefix filter
 * indexes by. */
static inline __u32 steer_filter_prefix_value(const __u32 *a, __u8 family)
{
	const __u8 *b = (const __u8 *)a;

	return family == STEER_AF_INET6 ? (__u32)b[2] << 8 | b[3] :
					  (__u32)b[0] << 8 | b[1];
}

/* Index in rule_filter of the first word of the prefix filter of 'slot'
 * for 'family' and the side a prefix shape matches ('dst': 0 or 1). */
static inline __u32 steer_filter_prefix_base(__u32 slot, __u8 family,
					     int dst)
{
	return slot * STEER_FILTER_SLOT_WORDS + STEER_FILTER_EXACT_WORDS +
	       ((family == STEER_AF_INET6) * 2 + !!dst) *
	       STEER_FILTER_PREFIX_WORDS;
}

/* The values [*first, *first + *count) of steer_filter_prefix_value()
 * that addresses of a prefix of 'bits' bits (address 'a') can have. */
static inline void steer_filter_prefix_range(const __u32 *a, __u8 family,
					     __u32 bits, __u32 *first,
					     __u32 *count)
{
	/* Bits of the prefix before the 16 the filter looks at. */
	__u32 skip = family == STEER_AF_INET6 ? 16 : 0, known;

	known = bits <= skip ? 0 : bits - skip > 16 ? 16 : bits - skip;
	*count = 1u << (16 - known);
	*first = steer_filter_prefix_value(a, family) & ~(*count - 1);
}

/* Sets bits [first, first + n) of a filter from word 0 of 'w'. */
static inline void steer_filter_set_bits(__u64 *w, __u32 first, __u32 n)
{
	__u32 bit;

	for (bit = first; bit < first + n; bit++)
		w[bit / 64] |= 1ull << (bit % 64);
}

/* The loader's side: sets what a rule needs in the image of one slot's
 * filter (STEER_FILTER_SLOT_WORDS words) that it writes before the slot
 * goes live. 'k' as the rule maps hold it. */
static inline void steer_filter_add_exact(__u64 *slot_words,
					  const struct steer_rule_key *k)
{
	steer_filter_set_bits(slot_words,
			      steer_filter_exact_bit(k->shape, &k->flow), 1);
}

static inline void steer_filter_add_prefix(__u64 *slot_words,
					   const struct steer_prefix_key *k)
{
	__u32 first, n;

	steer_filter_prefix_range(k->addr, k->family,
				  k->prefixlen - STEER_PREFIX_FIXED_BITS,
				  &first, &n);
	steer_filter_set_bits(slot_words +
			      steer_filter_prefix_base(0, k->family,
					k->shape & STEER_M_PREFIX_DST),
			      first, n);
}

#endif /* XDP_STEER_INCLUDE_FILTER_H */
