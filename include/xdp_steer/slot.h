/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/slot.h - one policy as the datapath reads it (struct
 * steer_slot, its flags and hash keys) and the word that picks the
 * active slot (struct steer_ctl).
 */
#ifndef XDP_STEER_INCLUDE_SLOT_H
#define XDP_STEER_INCLUDE_SLOT_H

#include <linux/types.h>
#include "xdp_steer/sizes.h"
#include "xdp_steer/encap.h"

/* steer_ctl[0]: which slot the datapath reads. 'active' is the only word a
 * policy swap changes while traffic flows; the datapath reads nothing else
 * here. Only xdp_steer reads this map (loader/kernel/pins.c). */
struct steer_ctl {
	__u32 active;		/* 0 or 1 */
	__u32 retire_pending;	/* loader only: 1 from a flip until its grace
				 * period has passed and the CPUs the old slot
				 * needed were retired; an apply that finds it
				 * set finishes that first */
};

/* steer_slot.flags */
#define STEER_F_HASH_L4		(1u << 0) /* ports enter the hash */
#define STEER_F_SYMMETRIC	(1u << 1) /* both directions hash alike */
#define STEER_F_LOCAL_FASTPATH	(1u << 2) /* chosen CPU == this CPU: pass */
#define STEER_F_DRAIN		(1u << 3) /* rebalance: drain */
#define STEER_F_BALANCE		(1u << 4) /* balance: count steer_load */
/* balance: {by: frames}: the balancer weighs buckets by their frames and
 * bytes, not by their CPUs' time; userspace only. */
#define STEER_F_BALANCE_FRAMES	(1u << 9)
/* hash.key other than l3 and l4: one id of the frame is hashed, not its
 * flow (steer_key_id()); at most one of these is set. */
#define STEER_F_KEY_VLAN	(1u << 5) /* the outermost one or two VLAN IDs */
#define STEER_F_KEY_TUNNEL	(1u << 6) /* VNI, TEID or SPI */
#define STEER_F_KEY_SPORT	(1u << 7) /* the source port alone */
#define STEER_F_KEY_DPORT	(1u << 8) /* the destination port alone */
#define STEER_F_KEY_ID		(STEER_F_KEY_VLAN | STEER_F_KEY_TUNNEL | \
				 STEER_F_KEY_SPORT | STEER_F_KEY_DPORT)

/* hash.key's kinds, X(name, slot flags), in the order the policy's
 * enum has them (loader/policy/policy.h). The id keys carry the L4 flag:
 * frames they do not apply to hash on their flow under it. */
#define STEER_HASH_KEYS(X)						\
	X(l4, STEER_F_HASH_L4)						\
	X(l3, 0)							\
	X(vlan, STEER_F_KEY_VLAN | STEER_F_HASH_L4)			\
	X(tunnel, STEER_F_KEY_TUNNEL | STEER_F_HASH_L4)			\
	X(src_port, STEER_F_KEY_SPORT | STEER_F_HASH_L4)		\
	X(dst_port, STEER_F_KEY_DPORT | STEER_F_HASH_L4)

/* hash.key's name for a slot's flags. */
static inline const char *steer_hash_key_name(__u32 flags)
{
	__u32 key = flags & (STEER_F_KEY_ID | STEER_F_HASH_L4);

#define STEER_HASH_KEY_NAME_(name, f)					\
	if (key == (f))							\
		return #name;
	STEER_HASH_KEYS(STEER_HASH_KEY_NAME_)
#undef STEER_HASH_KEY_NAME_
	return "?";
}

/* Meaning of steer_slot.nonip_cpu when non-IP frames stay where they are. */
#define STEER_CPU_LOCAL		0xffffffffu

/* What the exact-rule filter keeps of a flow under one shape: masks over
 * the two words it hashes, and the shape's own tag (the rule filter,
 * xdp_steer/filter.h). */
struct steer_filter_mask {
	__u64 addrs;		/* over steer_filter_addrs() */
	__u64 rest;		/* over steer_filter_rest() */
	__u64 tag;		/* the shape, in the rest's high word */
};

/* steer_slots[slot]: one complete policy, minus its table and rules. */
struct steer_slot {
	__u64 hash_key[STEER_HASH_KEY_WORDS]; /* secret; random or from the seed */
	__u32 flags;		/* STEER_F_* */
	__u32 table_size;	/* power of two <= STEER_TABLE_MAX; 0: no policy */
	__u32 nonip_cpu;	/* CPU for non-IP frames, or STEER_CPU_LOCAL */
	__u32 generation;	/* bumped by every apply, for status */
	__u32 nexact;		/* shapes[0..nexact): looked up in flow_rules */
	__u32 nshapes;		/* shapes[nexact..nshapes): in prefix_rules */
	__u32 shapes[STEER_MAX_SHAPES]; /* STEER_M_* sets (keys.h) */
	/* steer_filter_mask_of(shapes[i]), filled with them
	 * (steer_slot_fill_filter_masks()); the datapath reads those of the
	 * exact shapes: a frame then masks a word where it would test a
	 * field. */
	struct steer_filter_mask filter_masks[STEER_MAX_SHAPES];
	/* Loader bookkeeping, ignored by the datapath: */
	__u32 queue_size;	/* cpumap ring size of the workers */
	__u32 loader_flags;	/* STEER_LF_* */
	__u32 nrule_cpus;	/* rule_cpus entries the slot uses */
	__u32 bank;		/* cpumap bank of its workers: 0 cpu_map,
				 * 1 cpu_map_b */
	__u32 drain_units;	/* drain timeout, jiffies */
	__u32 gro_units;	/* STEER_GRO_UNITS, or 0 below HZ=1000 */
	__u32 drain_ms;		/* drain timeout as the policy gave it */
	/* The datapath reads this one: steer_window.gen of the warm-up
	 * before this slot's flip. A bucket record written in it or later
	 * tells where the bucket's last frame went; an older one nothing
	 * (every frame queued before that warm-up had reached the stack by
	 * the flip). Not in the digest: applying a policy again changes
	 * nothing. */
	__u32 drain_gen;
	__u64 digest;		/* of everything applied: same digest, same policy */
	/* Encapsulations the parser looks through (policy 'decap'): */
	__u32 decap;		/* STEER_DECAP(STEER_ENCAP_*) bits */
	__u32 decap_pad;
	__u64 decap_port_bits;	/* bit steer_port_bit(port) of each port below */
	__u16 decap_port[STEER_DECAP_PORTS]; /* UDP destination ports, network
					       * order; 0: unused */
	__u8 decap_port_encap[STEER_DECAP_PORTS]; /* STEER_ENCAP_* of each */
	/* balance: (with STEER_F_BALANCE), for the balancer: */
	__u32 balance_ms;	/* interval between rounds */
	__u32 balance_tolerance; /* percent a worker may exceed its share */
	__u32 balance_max_moves; /* buckets moved per round, at most */
	/* The datapath reads this one: the lease of a receiver slot, in
	 * jiffies: a slot whose CPU has not held it for this long may be
	 * taken over by a CPU that finds none (bpf/drain.h, rx_slot_tick());
	 * far longer than the drain timeout. 0: never taken over. */
	__u32 rx_lease;
};

/* Adds UDP destination port 'port' (network order) of encapsulation
 * 'encap' to the slot's decap ports; -1 when all STEER_DECAP_PORTS are
 * taken. The loader (from the policy) and the tests fill them so. */
static inline int steer_decap_add_port(struct steer_slot *s, __u16 port,
				       __u32 encap)
{
	int i;

	for (i = 0; i < STEER_DECAP_PORTS; i++) {
		if (s->decap_port[i])
			continue;
		s->decap_port[i] = port;
		s->decap_port_encap[i] = (__u8)encap;
		s->decap_port_bits |= 1ull << steer_port_bit(port);
		return 0;
	}
	return -1;
}

/* steer_slot.loader_flags */
#define STEER_LF_SEED_RANDOM	(1u << 0) /* key drawn at random: keep it on
					   * re-apply so flows do not move */
#define STEER_LF_CPUS_FALLBACK	(1u << 1) /* cpus not set, and every online
					   * CPU takes RX interrupts: all work */
#define STEER_LF_CPUS_DEFAULT	(1u << 2) /* cpus not set: the default
					   * workers (status warns of online
					   * CPUs it cannot take) */

#endif /* XDP_STEER_INCLUDE_SLOT_H */
