/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer.h - the one header shared by the XDP program (clang -target bpf)
 * and userspace (gcc): the maps (one list, expanded where needed), the values
 * stored in them, and the pure functions both sides must agree on (the flow
 * hash, the CPU choice from a hash, rule keys), so a unit test can predict
 * the CPU a frame will get.
 *
 * Self-contained on purpose: fixed-width types from <linux/types.h> only.
 * Byte order is stated on every field that carries one. Every struct has
 * explicit padding and none implicit, so a value copied, compared or hashed
 * byte for byte holds nothing undefined.
 */
#ifndef XDP_STEER_H
#define XDP_STEER_H

#include <linux/types.h>

/* ---- sizes: every map has a fixed size --------------------------------- */

/* The span S of the object's compiled maps: cpumap banks of S entries,
 * queue targets bank * S + cpu (steer_wdone, steer_wenq: 2S). What
 * xdp-loader load -p creates, and what versions before the span had
 * pinned. The loader sizes them at load to the kernel's possible CPU ids
 * (nr_cpu_ids), at most STEER_CPU_IDS, and tells the programs
 * (bpf/span.h); the kernel caps a cpumap at NR_CPUS, so the span is never
 * more than the kernel allows. */
#define STEER_MAX_CPUS		256
/* CPU ids a worker may have (a policy's 'cpus', rules' CPUs): the largest
 * span, and the length of the loader's arrays by CPU id and by target.
 * Online CPUs at or past it are refused by a policy and left out of the
 * default workers, with a warning naming it. */
#define STEER_CPU_IDS		1024
#define STEER_CPU_TARGETS	(STEER_BANKS * STEER_CPU_IDS)
/* Largest indirection table (entries per slot); a power of two. */
#define STEER_TABLE_MAX		4096
/* Default table size: 512 buckets give each of 64 CPUs 8 buckets, so weights
 * stay within 1/512 of what was asked and a CPU change moves few buckets. */
#define STEER_TABLE_DEFAULT	512
/* Map entries per slot, for exact-field and for prefix rules each: as
 * many rules of a kind, half as many under hash.symmetric (each rule and
 * its mirror). */
#define STEER_MAX_RULES		16384
/* CPU ids referenced by rules that target a CPU set, per slot. */
#define STEER_RULE_CPUS_MAX	4096
/* Distinct rule shapes (field sets, see STEER_M_*): one map lookup each on
 * the fast path, so keep it small. */
#define STEER_MAX_SHAPES	8
/* IPv6 extension headers walked before giving up (RFC 8200 suggests no
 * limit; real traffic carries 0-3, attackers send long chains). */
#define STEER_IPV6_EXT_MAX	8
/* Key words: one constant and one per 32-bit word of the longest (IPv6)
 * flow: 4 + 4 address words, ports, protocol and family. */
#define STEER_HASH_KEY_WORDS	11
/* Two slots: the datapath reads the active one while the loader writes the
 * other, then flips steer_ctl.active (one word). */
#define STEER_SLOTS		2
/* Two cpumaps ("banks"): a new queue size goes into the bank not in use,
 * so no live entry (a kthread with frames in its ring) is ever replaced,
 * and buckets drain from the old bank's entry like from any old CPU. A
 * target is a cpumap entry: bank * STEER_MAX_CPUS + cpu. */
#define STEER_BANKS		2
#define STEER_TARGETS		(STEER_BANKS * STEER_MAX_CPUS)
/* Drain bookkeeping keeps time in jiffies, cut to 32 bits (bpf_jiffies64():
 * one load, cheap enough for every frame, where bpf_ktime_get_coarse_ns()
 * cost 20-30 ns; and the clock GRO ages segments by). The loader turns the
 * policy's milliseconds into the running kernel's ticks. */
/* A worker's cpumap kthread takes frames off its ring in batches of at
 * most 8 (CPUMAP_BATCH) and reports each batch at its xdp_cpumap_kthread
 * tracepoint with bottom halves off, after the batch's skbs are built and
 * before they go up; what is left of the batch then runs without a
 * preemption point. Since Linux 6.14 the kthread hands the skbs to the
 * stack (a GRO flush) at the end of the first batch that finds its ring
 * empty or brings the frames since the last flush to 64
 * (NAPI_POLL_WEIGHT): at most 63 + 8 = 71 frames from the start of a
 * frame's batch to the end of its flush's batch. Once batches of 80
 * frames from that start have been reported, a later batch has begun,
 * and that flush is over. */
#define STEER_FLUSH_GAP		80
/* The worker keeps a mark (steer_deq) per epoch of STEER_MARK_EPOCH of its
 * reported frames, the last STEER_MARKS epochs of them. Powers of two: the
 * worker divides by shifting. */
#define STEER_MARK_EPOCH	32
#define STEER_MARKS		4
/* ... and the time each epoch of STEER_EPOCH frames began
 * (steer_wdone.epoch_at). */
#define STEER_EPOCH		128
/* On kernels with HZ >= 1000 a flush that does not empty the ring keeps
 * GRO segments younger than a tick; such a frame is handed on by the
 * first flush of a later tick. A bucket there waits until the epoch after
 * its frame began this many jiffies ago and a whole epoch has followed
 * (STEER_EPOCH > STEER_FLUSH_GAP). Below HZ=1000 every flush is a full
 * one. The loader sets the slot's gro_units to this or 0. */
#define STEER_GRO_UNITS		2
/* After a worker's last batch report, what is left of that batch (its
 * skbs up the stack, a GRO flush) runs with bottom halves off: no task,
 * whatever its priority, can hold it up; only interrupts and the
 * hypervisor can. A worker whose ring is empty and that has reported
 * nothing for this long has finished. Up to 71 skbs at 1-2 us each on a
 * 2-vCPU VM: 500 us is several times that. */
#define STEER_DRAIN_IDLE_NS	500000
/* Receive queues (rx_queue_index) whose moves between CPUs the datapath
 * follows for the fast path (steer_rxq); frames of a higher queue are not
 * followed. ixgbe has at most 64, ice 256 per port by default. */
#define STEER_MAX_RXQ		1024
/* CPU ids a receiving CPU may have (steer_rx_slot's entries): Debian's
 * NR_CPUS, the largest x86_64 allows (MAXSMP). Fixed, not sized from the
 * possible CPUs at load: the object's maps have fixed sizes, so that
 * xdp-loader load -p creates the same ones; 32 KiB per interface. */
#define STEER_RX_CPU_IDS	8192
/* Receiver slots (struct steer_rx_pool): dense indexes of the CPUs that
 * queue frames under drain, which key steer_seq and steer_deq. At most
 * STEER_MAX_CPUS, the rows those maps have. */
#define STEER_RX_SLOTS		STEER_MAX_CPUS
/* steer_stats.rx_slot of a CPU that found every slot taken. */
#define STEER_RX_SLOT_NONE	0xffffffffu

/* ---- names: defined once, used by BPF (as identifiers) and userspace ---- */

#define STEER_STR_(x)		#x
#define STEER_STR(x)		STEER_STR_(x)

#define STEER_PROG_MAIN		xdp_steer
/* The cpumap programs of the two banks (STEER_BANKS): the same code under
 * two names, so bpftool and status tell an entry's bank by its program. */
#define STEER_PROG_WORKER	steer_worker
#define STEER_PROG_WORKER_B	steer_worker_b

/* Maps of interface IFNAME in the initial network namespace are pinned in
 * STEER_PIN_ROOT "/" IFNAME "/"; other namespaces get a directory of their
 * own under it (loader/kernel/pins.h). */
#define STEER_PIN_ROOT		"/sys/fs/bpf/xdp-steer"

/* Rows of STEER_MAPS that the tracepoint programs share with the XDP
 * program (STEER_TRACE_SHARED_MAPS): spelled once, here. */
/* Per receiving CPU: what it did (struct steer_stats). */
#define STEER_MAP_STATS(X)						\
	X(steer_stats, BPF_MAP_TYPE_PERCPU_ARRAY, __u32,		\
	  struct steer_stats, 1, 0)
/* [target]: what the target's kthread reported (struct steer_wdone):
 * written by its tracepoint program and, for the marks' base, read by
 * its cpumap program. */
#define STEER_MAP_WDONE(X)						\
	X(steer_wdone, BPF_MAP_TYPE_ARRAY, __u32, struct steer_wdone,	\
	  STEER_TARGETS, 0)
/* [target]: frames that entered the target's ring (struct steer_wenq),
 * added by the enqueue tracepoint program. */
#define STEER_MAP_WENQ(X)						\
	X(steer_wenq, BPF_MAP_TYPE_ARRAY, __u32, struct steer_wenq,	\
	  STEER_TARGETS, 0)

/*
 * Every map, once: X(name, type, key, value, max_entries, map_flags). The
 * name is the C identifier in the BPF object, the pin name, and the field
 * of struct steer_maps in the loader. Expanded by bpf/xdp_steer.bpf.c into
 * definitions and by userspace into fd tables; the types are only spelled
 * out by the BPF side.
 */
#define STEER_MAPS(X)							\
	X(cpu_map, BPF_MAP_TYPE_CPUMAP, __u32, struct bpf_cpumap_val,	\
	  STEER_MAX_CPUS, 0)						\
	/* Bank 1 of the cpumap (see STEER_BANKS). */			\
	X(cpu_map_b, BPF_MAP_TYPE_CPUMAP, __u32, struct bpf_cpumap_val,	\
	  STEER_MAX_CPUS, 0)						\
	X(steer_ctl, BPF_MAP_TYPE_ARRAY, __u32, struct steer_ctl, 1, 0)	\
	X(steer_slots, BPF_MAP_TYPE_ARRAY, __u32, struct steer_slot,	\
	  STEER_SLOTS, 0)						\
	/* Indirection tables: slot * STEER_TABLE_MAX + bucket. */	\
	X(steer_table, BPF_MAP_TYPE_ARRAY, __u32, __u32,		\
	  STEER_SLOTS * STEER_TABLE_MAX, 0)				\
	/* Not preallocated: entries cost memory as rules are applied	\
	 * (the datapath only reads it; apply writes it). */		\
	X(flow_rules, BPF_MAP_TYPE_HASH, struct steer_rule_key,	\
	  struct steer_target, STEER_SLOTS * STEER_MAX_RULES,		\
	  BPF_F_NO_PREALLOC)						\
	X(prefix_rules, BPF_MAP_TYPE_LPM_TRIE, struct steer_prefix_key,\
	  struct steer_target, STEER_SLOTS * STEER_MAX_RULES,		\
	  BPF_F_NO_PREALLOC)						\
	/* CPU sets of rules: slot * STEER_RULE_CPUS_MAX + i. */	\
	X(rule_cpus, BPF_MAP_TYPE_ARRAY, __u32, __u32,			\
	  STEER_SLOTS * STEER_RULE_CPUS_MAX, 0)				\
	/* Bits in front of the rule lookups (steer_filter_*()). */	\
	X(rule_filter, BPF_MAP_TYPE_ARRAY, __u32, __u64,		\
	  STEER_SLOTS * STEER_FILTER_SLOT_WORDS, 0)			\
	STEER_MAP_STATS(X)						\
	X(worker_stats, BPF_MAP_TYPE_PERCPU_ARRAY, __u32,		\
	  struct steer_worker_stats, 1, 0)				\
	/* Drain (bpf/drain.h): [rx slot * STEER_TABLE_MAX + drain	\
	 * bucket], where that receiving CPU's frames of the bucket	\
	 * went last; written by that CPU only. Sized at load to the	\
	 * receiver slots R (kernel/prog.c); the object's size is	\
	 * STEER_RX_SLOTS. */						\
	X(steer_buckets, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_bucket, STEER_RX_SLOTS * STEER_TABLE_MAX, 0)	\
	/* [rx slot * STEER_TARGETS + target]: stamped frames the	\
	 * receiving CPU of that slot (steer_rx_cpu) queued to the	\
	 * target; written by that CPU only. Rows sized at load as	\
	 * steer_rx_cpu's (steer_rx_pool.rows). */			\
	X(steer_seq, BPF_MAP_TYPE_ARRAY, __u32, __u32,			\
	  STEER_RX_SLOTS * STEER_TARGETS, 0)				\
	/* [target * rows + rx slot]: how far the target's cpumap	\
	 * program got in that receiving CPU's stamped frames; written	\
	 * by the target's kthread only. 'rows': steer_rx_pool.rows. */	\
	X(steer_deq, BPF_MAP_TYPE_ARRAY, __u32, struct steer_deq,	\
	  STEER_TARGETS * STEER_RX_SLOTS, 0)				\
	/* [0]: the receiver slots handed out (struct steer_rx_pool). */\
	X(steer_rx_pool, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_rx_pool, 1, 0)					\
	/* [cpu id]: 1 + the receiver slot of that CPU; 0: none. Written \
	 * by that CPU, and cleared by one that took its slot over. */	\
	X(steer_rx_slot, BPF_MAP_TYPE_ARRAY, __u32, __u32,		\
	  STEER_RX_CPU_IDS, 0)						\
	/* [rx slot]: 1 + the CPU that holds it; 0: not (yet) held.	\
	 * Written by the CPU that claims it, or takes it over (an	\
	 * atomic compare and swap, drain.h): loops over receiving CPUs.	\
	 * Sized at load to R rows (kernel/prog.c), or kept at a pinned	\
	 * map's 256 with steer_seq's and steer_deq's			\
	 * (steer_rx_pool.rows). */					\
	X(steer_rx_cpu, BPF_MAP_TYPE_ARRAY, __u32, __u32,		\
	  STEER_RX_SLOTS, 0)						\
	/* [rx slot]: its lease (struct steer_rx_lease); rows as	\
	 * steer_rx_cpu's. */						\
	X(steer_rx_lease, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_rx_lease, STEER_RX_SLOTS, 0)			\
	/* [rx slot * span + cpu]: what the receiving CPU of that	\
	 * slot queued to 'cpu' (struct steer_cpu_stats); written by	\
	 * the CPU holding the slot in the tick. Row 'rows'		\
	 * (steer_rx_pool.rows, the last): CPUs without a slot, by	\
	 * atomic adds. Sized at load to rows + 1 rows of the span	\
	 * (kernel/prog.c). */						\
	X(steer_queued, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_cpu_stats,					\
	  (STEER_RX_SLOTS + 1) * STEER_MAX_CPUS, 0)			\
	STEER_MAP_WDONE(X)						\
	STEER_MAP_WENQ(X)						\
	/* [0]: while the workers look for stamps (struct steer_look). */\
	X(steer_look, BPF_MAP_TYPE_ARRAY, __u32, struct steer_look, 1, 0)\
	/* [rx queue]: 1 + the CPU that last received from it, with	\
	 * STEER_RXQ_PENDING while that CPU waits out the move, or	\
	 * STEER_RXQ_QUEUED (drain.h); written only around moves (IRQ	\
	 * affinity, threaded NAPI). */					\
	X(steer_rxq, BPF_MAP_TYPE_ARRAY, __u32, __u32, STEER_MAX_RXQ, 0)\
	/* [0], per receiving CPU: a queue that moved here, while frames	\
	 * its old CPU queued here may still wait in this CPU's rings. */	\
	X(steer_rxmove, BPF_MAP_TYPE_PERCPU_ARRAY, __u32,		\
	  struct steer_rxmove, 1, 0)					\
	/* [0]: the key of drain stamps (struct steer_stamp), random,	\
	 * set by the first apply to these maps and never changed while	\
	 * steer_seq counts on; 0: nothing is stamped. */		\
	X(steer_stamp_key, BPF_MAP_TYPE_ARRAY, __u32, __u64, 1, 0)	\
	/* [0]: the warm-up before a flip, while every queued frame	\
	 * is stamped and recorded (struct steer_window). */		\
	X(steer_window, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_window, 1, 0)					\
	/* [rx slot * STEER_TABLE_MAX + drain bucket]: what the table	\
	 * placed there of that receiving CPU's frames, under a policy	\
	 * with balance: (STEER_F_BALANCE); sized as steer_buckets. */	\
	X(steer_load, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_load, STEER_RX_SLOTS * STEER_TABLE_MAX, 0)	\
	/* [0]: the balancer's last round, for status; userspace only. */\
	X(steer_balance, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_balance, 1, 0)					\
	/* [slot * STEER_MAX_CPUS + cpu]: the table weight of each CPU	\
	 * (0: no table worker); userspace only: the balancer's target	\
	 * shares, once its moves leave bucket counts off the weights. */\
	X(steer_weights, BPF_MAP_TYPE_ARRAY, __u32, __u32,		\
	  STEER_SLOTS * STEER_MAX_CPUS, 0)

/* ---- map values --------------------------------------------------------- */

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

/* What the parser read for the id keys (the datapath's struct parsed,
 * bpf/parse.h): a word of VLAN IDs and flags, and a tunnel's id. */
#define STEER_IDS_TAGS_SHIFT	24	/* bits 24-25: tags read, 0-2 */
#define STEER_IDS_VIDS		0x00ffffffu /* outer VID << 12 | inner VID
					      * (0 with one tag) */
#define STEER_IDS_TUNNEL	(1u << 31) /* the tunnel id is the frame's */

/*
 * Encapsulations the parser looks through to steer by the inner flow, one
 * level deep: X(A, ID, name, udp_port, help), A passed through. ID names
 * STEER_ENCAP_<ID> (1, 2, ...; 0 is none); its bit in steer_slot.decap is
 * STEER_DECAP(STEER_ENCAP_<ID>); udp_port is the standard UDP destination
 * port of one carried in UDP, 0 for the others; help says what its
 * counter (steer_stats.encap_<name>) counts. The policy's 'decap' names
 * them by 'name'.
 */
#define STEER_ENCAPS(X, A)						\
	X(A, PPPOE, pppoe, 0, "PPPoE session frames (ethertype 0x8864) looked into") \
	X(A, MPLS, mpls, 0, "MPLS unicast frames (ethertype 0x8847) looked into") \
	X(A, GRE, gre, 0, "GRE frames (IP protocol 47, version 0) looked into") \
	X(A, IPIP, ipip, 0, "IP-in-IP frames (IP protocol 4 or 41) looked into") \
	X(A, VXLAN, vxlan, 4789, "VXLAN frames looked into")		\
	X(A, GENEVE, geneve, 6081, "Geneve frames looked into")		\
	X(A, GTPU, gtpu, 2152, "GTP-U frames looked into")		\
	X(A, ESP, esp, 0, "ESP frames (IP protocol 50) whose SPI was hashed as their ports")

#define STEER_ENCAP_ENUM_(A, ID, name, port, help) STEER_ENCAP_##ID,
enum steer_encap {
	STEER_ENCAP_NONE,
	STEER_ENCAPS(STEER_ENCAP_ENUM_, )
	STEER_ENCAP_COUNT
};
#define STEER_DECAP(encap)	(1u << (encap))
/* Every encapsulation: the policy's default 'decap' (each of UDP on its
 * standard port). */
#define STEER_ENCAP_ALL_(A, ID, name, port, help) | STEER_DECAP(STEER_ENCAP_##ID)
#define STEER_DECAP_ALL		(0 STEER_ENCAPS(STEER_ENCAP_ALL_, ))

/* The policy's name of an encapsulation, its standard UDP port (0: not
 * carried in UDP); NULL and 0 for an id that is none. */
static inline const char *steer_encap_name(__u32 encap)
{
#define STEER_ENCAP_NAME_(A, ID, name, port, help)			\
	if (encap == STEER_ENCAP_##ID)					\
		return #name;
	STEER_ENCAPS(STEER_ENCAP_NAME_, )
#undef STEER_ENCAP_NAME_
	return (const char *)0;
}

static inline __u16 steer_encap_port(__u32 encap)
{
#define STEER_ENCAP_PORT_(A, ID, name, port, help)			\
	if (encap == STEER_ENCAP_##ID)					\
		return port;
	STEER_ENCAPS(STEER_ENCAP_PORT_, )
#undef STEER_ENCAP_PORT_
	return 0;
}

/* UDP ports the policy's 'decap' may give, all encapsulations together. */
#define STEER_DECAP_PORTS	8
/* Most MPLS labels walked to the bottom of the stack, GTP-U extension
 * headers walked to the payload: deeper ones are malformed (counted in
 * encap_malformed and passed). Real stacks carry 1-4 labels (segment
 * routing a few more), GTP-U 0-2 extensions. */
#define STEER_MPLS_LABELS_MAX	8
#define STEER_GTPU_EXT_MAX	4

/* A UDP port's bit in steer_slot.decap_port_bits: a plain UDP frame pays one
 * test of this bit, and only a frame whose bit is set compares its port
 * with decap_port[]. Taken from the port as stored (network order), so
 * both sides compute it without a byte swap. */
static inline __u32 steer_port_bit(__u16 port)
{
	return (__u32)port & 63;
}

/* Meaning of steer_slot.nonip_cpu when non-IP frames stay where they are. */
#define STEER_CPU_LOCAL		0xffffffffu

/* What the exact-rule filter keeps of a flow under one shape: masks over
 * the two words it hashes, and the shape's own tag (the rule filter,
 * below). */
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
	__u32 shapes[STEER_MAX_SHAPES]; /* STEER_M_* sets, see below */
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
	 * taken over by a CPU that finds none (drain.h, rx_slot_tick());
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

/* Fields of a flow a rule can match; a "shape" is a set of them. A shape
 * with STEER_M_PREFIX_SRC (or _DST) matches its source (destination)
 * address by prefix, in prefix_rules; its other fields, the other address
 * included, match exactly. A shape without either is looked up in
 * flow_rules, every field exact. */
#define STEER_M_PROTO		(1u << 0)
#define STEER_M_SRC		(1u << 1)
#define STEER_M_DST		(1u << 2)
#define STEER_M_SPORT		(1u << 3)
#define STEER_M_DPORT		(1u << 4)
#define STEER_M_ALL		0x1fu
#define STEER_M_PREFIX_SRC	(1u << 5) /* with STEER_M_SRC */
#define STEER_M_PREFIX_DST	(1u << 6) /* with STEER_M_DST */
#define STEER_M_PREFIX		(STEER_M_PREFIX_SRC | STEER_M_PREFIX_DST)

#define STEER_AF_INET		4
#define STEER_AF_INET6		6

/* The flow a frame belongs to, as parsed. IPv4 addresses sit in word 0, the
 * other words zero. sport/dport are zero for frames without ports. */
struct steer_flow {
	__u32 src[4];		/* network byte order */
	__u32 dst[4];		/* network byte order */
	__u16 sport;		/* network byte order */
	__u16 dport;		/* network byte order */
	__u8 proto;		/* IPPROTO_* of the transport header */
	__u8 family;		/* STEER_AF_INET or STEER_AF_INET6 */
	__u8 pad[2];		/* zero */
} __attribute__((aligned(8)));	/* two address words in one load */

/* flow_rules key: the flow with every field outside 'shape' zeroed (family
 * too, unless the shape has an address). */
struct steer_rule_key {
	__u32 slot;
	__u32 shape;		/* STEER_M_*, no prefix bit */
	struct steer_flow flow;
};

/* prefix_rules key (LPM trie). Everything before 'addr' is matched in full;
 * 'addr' (the prefix side's address) by prefixlen - STEER_PREFIX_FIXED_BITS
 * bits. The family is part of the full match, so IPv4 and IPv6 prefixes,
 * /0 included, never meet. */
struct steer_prefix_key {
	__u32 prefixlen;	/* STEER_PREFIX_FIXED_BITS + prefix length */
	__u32 slot;		/* host order */
	__u32 shape;		/* STEER_M_*, with one STEER_M_PREFIX_* bit */
	__u8 family;		/* STEER_AF_* */
	__u8 proto;		/* zero unless the shape has STEER_M_PROTO */
	__u16 pad;
	__u16 sport;		/* network byte order; zero unless in shape */
	__u16 dport;		/* network byte order; zero unless in shape */
	__u32 other[4];		/* the other address, network byte order;
				 * zero unless the shape has it */
	__u32 addr[4];		/* network byte order */
};
/* Bits of a prefix key's data before 'addr'. */
#define STEER_PREFIX_FIXED_BITS	(8 * 32)

/* Value of a rule: which CPU(s) its flows go to. */
struct steer_target {
	__u32 rule_id;		/* position in the policy, from 0: first wins */
	__u32 ncpus;		/* 1: 'cpu' is the CPU; >1: a set */
	__u32 cpu;		/* the CPU, or index of the set's first entry
				 * in rule_cpus (slot * STEER_RULE_CPUS_MAX + i) */
	__u32 pad;
};

/*
 * steer_stats (per-CPU array, one entry): what the receiving CPU did, one
 * __u64 per field, X(name, kind, help). Kind OUTCOME: every frame lands in
 * exactly one of these. Kind COUNT: counted besides the outcome. The list
 * is expanded into the struct and by every reader (stats, tests), so a new
 * counter is one line here.
 */
#define STEER_STATS_FIELDS(X)						\
	X(rx_packets, COUNT, "frames the program saw")			\
	X(rx_bytes, COUNT, "bytes of those frames")			\
	X(redirected, OUTCOME, "frames queued to a worker CPU's cpumap ring") \
	X(passed_local, OUTCOME, "frames whose CPU is the receiving CPU, passed there") \
	X(passed_nonip, OUTCOME, "frames that are not IPv4/IPv6, passed on the receiving CPU") \
	X(passed_parse_error, OUTCOME, "frames without a readable IP header (truncated or malformed), passed on the receiving CPU") \
	X(passed_no_target, OUTCOME, "frames whose CPU has no cpumap entry, passed on the receiving CPU") \
	X(passed_no_policy, OUTCOME, "frames seen while no policy was applied") \
	X(fragments, COUNT, "IP fragments (hashed on addresses only)") \
	X(rule_flow_hits, COUNT, "frames an exact-field rule placed")	\
	X(rule_prefix_hits, COUNT, "frames a prefix rule placed")	\
	X(drain_held, COUNT, "frames sent to a bucket's old CPU while it drained") \
	X(drain_stalled, COUNT, "of those, frames held while the old CPU's kthread had taken nothing off its waiting ring for the drain timeout: the move waits on") \
	X(moves_done, COUNT, "buckets moved once their old CPU had handed their frames to the stack") \
	X(moves_idle, COUNT, "buckets moved at their first frame since the warm-up of the apply that moved them, in which they had none") \
	X(moves_timeout, COUNT, "fast-path holds after a receive queue moved to this CPU, ended by the drain timeout because no marker could be queued (a bucket never moves by a timeout)") \
	X(unstamped, COUNT, "frames queued without a drain stamp (no headroom for it)") \
	X(rxq_moves, COUNT, "receive queues found moved to this CPU from another (IRQ affinity, threaded NAPI)") \
	STEER_ENCAPS(STEER_ENCAP_STAT_, X)				\
	X(encap_malformed, COUNT, "frames of those encapsulations truncated or malformed: steered by the outer flow, or by the inner IP header where that was read; passed on the receiving CPU behind PPPoE or MPLS without one") \
	X(key_id_fallback, COUNT, "frames the id hash.key names does not apply to (no tag, no tunnel id, no ports), hashed on their flow") \
	X(parsed_partial, COUNT, "frames with a readable IP header whose later headers were cut short or malformed (a tunnel look-alike, a short transport header), steered by what was read") \
	X(passed_local_bytes, COUNT, "bytes of the frames passed_local counts") \
	X(no_rx_slot, COUNT, "frames of this receiving CPU while it found every receiver slot taken: those of the table passed here (its drain records and loads are kept per slot), the others queued without a drain stamp") \
	X(rx_slot_takeovers, COUNT, "receiver slots this CPU took over from a CPU that had not received for the lease (rx_lease), finding every slot taken")
/* One steer_stats row per encapsulation: encap_<name>. */
#define STEER_ENCAP_STAT_(X, ID, name, port, help) X(encap_##name, COUNT, help)

/* steer_queued[rx slot * span + cpu]: frames the receiving CPU
 * of that slot queued to 'cpu' (bpf_redirect_map() said XDP_REDIRECT). A
 * frame passed on the spot counts in passed_local and passed_local_bytes
 * instead: so what was sent to a worker is one counter per row, which
 * never goes back between two reads (a difference of two counters read
 * apart can), and what went toward a CPU is the sum of both. */
struct steer_cpu_stats {
	__u64 packets;
	__u64 bytes;
};

#define STEER_STATS_U64_(name, kind, help) __u64 name;
struct steer_stats {
	STEER_STATS_FIELDS(STEER_STATS_U64_)
	/* Not a counter: the datapath's own cache (drain.h). q + 1 when
	 * this CPU last found receive queue q plainly its own in steer_rxq,
	 * with no move waited out; with STEER_RXQ_MINE_QUEUED, when this CPU
	 * holds q in steer_rxq only as one that queued its frames; 0: look
	 * there. A CPU that takes the queue from this one zeroes it. In this
	 * line because the frame has it in hand already: the check is then
	 * a compare, not a lookup (13 instructions less a frame,
	 * bench_prog --insns). Summed with the rest by readers and never
	 * shown. */
	__u64 rxq_mine;
	/* Not counters either, written by the napi_poll tracepoint
	 * program (bpf/cpumap_trace.bpf.c) after every NAPI poll on this
	 * CPU, of any device: how many ended, and the tick of the last.
	 * Frames passed in a poll reach the stack before the poll returns
	 * (below HZ=1000 whatever GRO held; from HZ=1000 what it held
	 * since an earlier tick), so a frame that finds the count changed
	 * since a bucket's last one passed here comes after all of them
	 * (drain.h). Summed with the rest by readers and never shown. */
	__u64 napi_polls;
	__u64 napi_poll_tick;
	/* Not a counter either: jiffies (all 64 bits, never 0) of the
	 * last tick in which this CPU queued a frame under drain, or asked
	 * the window for one (drain.h, queued_lately()): a bucket arriving
	 * cold at another CPU's fast path needs a marker only while some
	 * other receiving CPU may have queued its frames there. Written
	 * once a tick; summed with the rest by readers and never shown. */
	__u64 queued_tick;
	/* Not a counter either: the datapath's cache of this CPU's
	 * receiver slot (steer_rx_slot): in bits 0-31 slot + 1,
	 * STEER_RX_SLOT_NONE when every slot was taken, 0: none claimed
	 * yet; in bits 32-63 the tick (jiffies) it was last checked in:
	 * valid for that tick only, since a slot idle for the lease may
	 * be taken over (drain.h, rx_slot_tick()). In this value because
	 * the frame has it in hand: a frame compares the tick, no
	 * lookup. Summed with the rest by readers and never shown. */
	__u64 rx_slot;
	/* What this CPU queued per target CPU is in steer_queued, by its
	 * receiver slot: here (queued[256], before) it was 4 KiB per
	 * possible CPU, 2 MiB at 512, for a lookup less a queued frame. */
};

/* worker_stats[0] (per-CPU array): frames the cpumap program dequeued on
 * each worker CPU, read per CPU. */
struct steer_worker_stats {
	__u64 packets;
	__u64 bytes;
};

/* steer_load[drain bucket] (per-CPU array): frames and bytes of the
 * bucket's flows that this receiving CPU placed by the table, counted
 * only while the slot has STEER_F_BALANCE (rules and non-IP frames are
 * not counted: they cannot move). The balancer sums them per table bucket
 * (drain bucket & (table_size - 1)) over the CPUs. */
struct steer_load {
	__u64 packets;
	__u64 bytes;
};

/* steer_balance[0]: the balancer's record of itself (xdp-steer balance),
 * for status; the datapath never reads it. One update per round. */
struct steer_balance {
	__u64 started;		/* its process's start, in clock ticks after
				 * boot (/proc/PID/stat): with 'pid', whether
				 * that process still runs */
	__u64 last_ns;		/* its last round, CLOCK_REALTIME ns */
	__u32 pid;		/* 0: no balancer ever ran here */
	__u32 rounds;		/* rounds since it started */
	__u32 moves;		/* buckets it moved since it started */
	__u32 last_moves;	/* ... in its last round (planned, dry run) */
	__u32 state;		/* STEER_BAL_* of its last round */
	__u32 busiest;		/* the busiest worker in its last round */
	__u32 ratio_pm;		/* its load over its share, per mille */
	__u32 after_pm;		/* ... once the round's moves are done */
	__u32 generation;	/* the policy generation it last saw */
	__u32 flags;		/* STEER_BALF_* */
};
#define STEER_BALF_DRY_RUN	(1u << 0) /* it only says what it would move */

/* What a balancer round found (steer_balance.state). */
#define STEER_BAL_STATES(X)						\
	X(STARTING, "starting", "its first round has not ended yet")	\
	X(OFF, "off", "the policy in force says balance: off")	\
	X(IDLE, "idle", "no traffic was counted")			\
	X(BALANCED, "balanced", "the busiest worker is within tolerance") \
	X(MOVED, "moved", "it moved buckets toward the weights")	\
	X(BEST, "best-possible", "over tolerance, but no move makes it better (a bucket alone exceeds a share)") \
	X(WAITING, "waiting", "buckets of an earlier move still drain")	\
	X(STALE, "stale", "an apply came between its plan and its move: planned again") \
	X(FAILED, "failed", "applying its moves failed")		\
	X(HELD, "held", "over tolerance, but the workers a move needs are held: one cannot drain now, or its load keeps turning")
#define STEER_BAL_ENUM_(name, word, help) STEER_BAL_##name,
enum { STEER_BAL_STATES(STEER_BAL_ENUM_) STEER_BAL_NSTATES };
#undef STEER_BAL_ENUM_

/* ---- the cpumap's own account: tracepoint counters ----------------------- */

/*
 * A full cpumap ring drops a frame after bpf_redirect_map() returned
 * XDP_REDIRECT, so the datapath never learns of it; only the kernel's
 * xdp_cpumap_enqueue tracepoint does (and xdp_cpumap_kthread tells what
 * each worker's kthread took off its ring). Small programs of their own
 * object (bpf/cpumap_trace.bpf.c) count both for one interface's two
 * cpumaps: tracepoints fire for every cpumap on the machine, so they
 * count only the map ids the loader wrote in cpumap_ids. The same
 * programs keep the drain's evidence (bpf/drain.h): what entered and left
 * each ring, when each worker last reported, and, from the napi_poll
 * tracepoint, when each CPU's NAPI polls end. Every apply loads them if
 * their links are not pinned yet and pins the links in the interface's
 * pin directory under the programs' names, before it adds a cpumap
 * entry: they count every frame steer_stats.queued and worker_stats
 * count, so sent == delivered + dropped can be read per worker. An apply
 * under rebalance: drain refuses to flip without them. Detach removes
 * them with the other pins.
 */
#define STEER_TP_ENQUEUE	tp_cpumap_enqueue
#define STEER_TP_KTHREAD	tp_cpumap_kthread
#define STEER_TP_NAPI		tp_napi_poll
/* X(program): each program is also the pin name of its link. */
#define STEER_TRACE_PROGS(X)						\
	X(STEER_TP_ENQUEUE)						\
	X(STEER_TP_KTHREAD)						\
	X(STEER_TP_NAPI)

/* The XDP program's maps the tracepoint programs write (the drain's
 * evidence, bpf/drain.h): the loader hands them the pinned ones. */
#define STEER_TRACE_SHARED_MAPS(X)					\
	STEER_MAP_STATS(X)						\
	STEER_MAP_WDONE(X)						\
	STEER_MAP_WENQ(X)

/* The maps of the tracepoint programs, as STEER_MAPS (pinned next to
 * them by the loader). */
#define STEER_TRACE_MAPS(X)						\
	/* [0]: which cpumaps are this interface's. */			\
	X(cpumap_ids, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_cpumap_ids, 1, 0)				\
	/* [worker cpu]: the fate of frames at the worker's ring, both	\
	 * banks together, added atomically by every CPU that queues	\
	 * there and by its kthreads (per receiving CPU before: 3 MiB	\
	 * at 512 possible CPUs, for a sum no reader split); sized at	\
	 * load to the span (kernel/trace.c). */			\
	X(ring_stats, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_ring_stats, STEER_MAX_CPUS, 0)			\
	/* [0], per worker CPU: what its cpumap kthreads did. */	\
	X(kthread_stats, BPF_MAP_TYPE_PERCPU_ARRAY, __u32,		\
	  struct steer_kthread_stats, 1, 0)

/* cpumap_ids[0]: the ids of cpu_map and cpu_map_b (0: none). */
struct steer_cpumap_ids {
	__u32 id[STEER_BANKS];
};

/* The CPU id in the name the kernel gives a cpumap entry's kthread,
 * "cpumap/<cpu>/map:<id>" (kernel/bpf/cpumap.c, from the entry's key), as
 * the task's comm holds it: 15 characters and a NUL, so up to 7 digits
 * and the '/' after them, every CPU id Linux allows (NR_CPUS <= 8192)
 * whole. -1 when 'comm' is not such a name. The kthread tracepoint
 * (bpf/cpumap_trace.bpf.c) tells a worker's reports by it. */
static inline int steer_cpumap_comm_cpu(const char comm[16])
{
	int cpu = 0, i;

	if (comm[0] != 'c' || comm[6] != '/')
		return -1;
	for (i = 7; i < 15; i++) {
		if (comm[i] == '/')
			return i > 7 ? cpu : -1;
		if (comm[i] < '0' || comm[i] > '9')
			return -1;
		cpu = cpu * 10 + (comm[i] - '0');
	}
	return -1;
}

/* ring_stats: X(name, help), one __u64 each. */
#define STEER_RING_FIELDS(X)						\
	X(enqueued, "frames that entered the worker's cpumap ring")	\
	X(ring_full_drops, "frames the kernel dropped because the worker's cpumap ring was full") \
	X(off_cpu, "frames the worker's cpumap kthread took off its ring while running on another CPU (its CPU went offline)")

/* kthread_stats: X(name, help), one __u64 each; the kthread reports a
 * batch of at most 8 frames at a time. */
#define STEER_KTHREAD_FIELDS(X)						\
	X(processed, "frames the worker's cpumap kthread took off its ring") \
	X(drops, "frames the kthread dropped after its program, for want of memory for an skb") \
	X(sched, "batches the kthread began after sleeping or yielding the CPU") \
	X(xdp_pass, "frames the worker's cpumap program passed to the stack") \
	X(xdp_drop, "frames the worker's cpumap program dropped, or the kthread could not pass on") \
	X(xdp_redirect, "frames the worker's cpumap program redirected")

#define STEER_FIELD_U64_(name, help) __u64 name;
struct steer_ring_stats {
	STEER_RING_FIELDS(STEER_FIELD_U64_)
};

struct steer_kthread_stats {
	STEER_KTHREAD_FIELDS(STEER_FIELD_U64_)
};

/* bpf/ring_carry.bpf.c's steer_ring_carry(), its context: 'add' added
 * to ring_stats[cpu]. */
struct steer_ring_carry_args {
	__u32 cpu;
	__u32 pad;
	struct steer_ring_stats add;
};

/* steer_buckets[hash % STEER_TABLE_MAX], per receiving CPU: where the
 * frames of that drain bucket went last. Drain buckets are the finest
 * table's buckets whatever the table's size, so a flow keeps its record
 * when table_size changes; each lies in one table bucket. A bucket whose
 * table CPU changed keeps sending to 'target' until the evidence says its
 * last frame there reached the stack (bpf/drain.h); no clock ends that
 * wait. */
struct steer_bucket {
	__u16 target;		/* STEER_TARGET_* bits over a target id */
	__u16 pad;
	__u32 seq;		/* steer_seq stamp of its last frame queued to
				 * 'target'; 0: that frame was not stamped */
	__u32 last;		/* time of its last frame, jiffies;
				 * 0: none yet (the map starts zeroed) */
	__u32 since;		/* when its drain began; 0: not draining */
	__u32 poll;		/* this CPU's napi_polls at its last frame */
	__u32 gen;		/* steer_window.gen when written (a queued
				 * target's record is evidence only from
				 * its slot's drain_gen on) */
};
/* steer_bucket.target: passed on the receiving CPU itself. */
#define STEER_TARGET_LOCAL	0x8000u

/* Whether a record says where the bucket's last frame went, under a slot
 * whose drain_gen is 'drain_gen': one written (last != 0) on the fast
 * path (those records are kept always) or in the slot's warm-up or later.
 * An older record of a queued target says nothing: every frame queued
 * before that warm-up had reached the stack by the flip (kernel/window.h).
 * The datapath, status and which judge records alike. */
static inline int steer_bucket_live(const struct steer_bucket *b,
				    __u32 drain_gen)
{
	return b->last && ((b->target & STEER_TARGET_LOCAL) ||
			   (__s32)(b->gen - drain_gen) >= 0);
}

/* Whether a bucket's last frame passed on the fast path of a receiving
 * CPU whose napi_polls and napi_poll_tick (struct steer_stats) are
 * 'polls' and 'poll_tick' is up the stack: a poll has ended there since
 * (b->poll); where GRO keeps young segments (gro_units, HZ >= 1000), one
 * that ended at a later tick than the frame's. The datapath and the
 * loader judge a bucket leaving the fast path alike. */
static inline int steer_polled_since(__u32 polls, __u32 poll_tick,
				     const struct steer_bucket *b,
				     __u32 gro_units)
{
	return (__s32)(polls - b->poll) > 0 &&
	       (!gro_units || (__s32)(poll_tick - b->last) > 0);
}

/* steer_deq[target * rows + rx slot] (steer_rx_pool_rows()): how far
 * the target's cpumap program got in the stamped frames of the receiving
 * CPU holding that slot: per epoch e of the target's reported frames
 * (steer_wdone.frames / STEER_MARK_EPOCH), at h[e % STEER_MARKS], the
 * last stamp taken then and the report count before its batch (its
 * base). Each mark is one 64-bit word, written in one store so no reader
 * sees half of one: the stamp in bits 0-31, the base in bits 32-63. Frames up to a mark's stamp were in batches that
 * began at most at its base: a fact that stays true, so any mark, however
 * old, bounds the frames before it. */
struct steer_deq {
	__u64 h[STEER_MARKS];
};
#define STEER_MARK(seq, base)	((__u64)(seq) | (__u64)(base) << 32)
#define STEER_MARK_SEQ(m)	((__u32)(m))
#define STEER_MARK_BASE(m)	((__u32)((m) >> 32))

/* steer_wdone[target]: what the target's cpumap kthread has reported, one
 * batch at a time, at the xdp_cpumap_kthread tracepoint (bpf/
 * cpumap_trace.bpf.c). The tracepoint program tells the entry by the
 * kthread's name and the cpumap's id, so the count stays the entry's
 * wherever the kthread runs (its CPU offline: kernel/kthreads.h). Written
 * by that kthread only; one line each, as a worker writes it every batch.
 * Reports of batches that took no frame change only the clocks. */
struct steer_wdone {
	__u32 frames;		/* frames taken off the ring in reported
				 * batches (wraps) */
	__u32 last_tick;	/* jiffies at the last report */
	__u64 last_ns;		/* bpf_ktime_get_ns() at the last report */
	__u32 epoch_at[4];	/* jiffies when epoch e of STEER_EPOCH
				 * frames began, at [e % 4] */
	__u64 pad[4];
};

/* steer_wenq[target]: frames that entered the target's ring, added at the
 * xdp_cpumap_enqueue tracepoint by every CPU that queues there (an atomic
 * add per flush of up to 8 frames, right after the flush took the ring's
 * producer lock: the line moves between the same CPUs as that lock).
 * With steer_wdone.frames: the ring is empty when the two are equal. */
struct steer_wenq {
	__u32 frames;		/* wraps */
	__u32 pad[15];
};

/* What a drain knows of one target (bpf/drain.h), read in this order:
 * the enqueue count first, so that a frame counted there and taken off
 * since is in the reports read after. */
struct steer_drain_facts {
	__u32 enq;		/* steer_wenq.frames */
	__u32 done;		/* steer_wdone.frames */
	__u32 last_tick;	/* steer_wdone.last_tick */
	__u32 epoch_next;	/* steer_wdone.epoch_at[] of the epoch after
				 * the mark's base (with gro_units only) */
	__u64 last_ns;		/* steer_wdone.last_ns */
};

/* What a drain decides (steer_drain_verdict()). */
enum steer_drain {
	STEER_DRAIN_WAIT,	/* keep sending to the old target */
	STEER_DRAIN_DONE,	/* its last frame there is up the stack */
	STEER_DRAIN_STALLED,	/* wait; the target has taken nothing off
				 * its waiting ring for the timeout */
};

/* The earliest of a receiving CPU's marks at a target (struct steer_deq,
 * 'h' may be the map's own) at or past stamp 'seq' (0: unstamped, never
 * found): 1 with its base in *base. */
static inline int steer_mark_base(const __u64 h[STEER_MARKS], __u32 seq,
				  __u32 *base)
{
	int found = 0, i;
	__u64 m;

	for (i = 0; i < STEER_MARKS; i++) {
		/* Once: a worker may write the mark meanwhile, and a stamp
		 * with another mark's base would prove too much. */
		m = *(const volatile __u64 *)&h[i];
		if (seq && m && (__s32)(STEER_MARK_SEQ(m) - seq) >= 0 &&
		    (!found || (__s32)(STEER_MARK_BASE(m) - *base) < 0)) {
			*base = STEER_MARK_BASE(m);
			found = 1;
		}
	}
	return found;
}

/*
 * Whether a target has handed the stack the last frame a receiving CPU
 * queued to it (bpf/drain.h says why each test suffices): 'found' and
 * 'base' from steer_mark_base() for its stamp; 'polled': a NAPI poll of
 * that CPU has ended since it was sent; 'f' the target's facts; 'now'
 * jiffies and 'now_ns' bpf_ktime_get_ns() (CLOCK_MONOTONIC), read after
 * the facts; 'timeout' the drain timeout and 'gro_units' the slot's, in
 * jiffies. The datapath decides every move with it, and status, which and
 * the loader's retiring judge records with it alike.
 */
static inline int steer_drain_verdict(int found, __u32 base, int polled,
				      const struct steer_drain_facts *f,
				      __u32 now, __u64 now_ns, __u32 timeout,
				      __u32 gro_units)
{
	/* A later batch began after the flush that took the frame. Signed:
	 * a mark read after the count may be ahead of it. */
	if (found && !gro_units &&
	    (__s32)(f->done - base) >= STEER_FLUSH_GAP)
		return STEER_DRAIN_DONE;
	if (found && gro_units && (__s32)(f->done - base) >= STEER_EPOCH &&
	    now - f->epoch_next >= gro_units)
		return STEER_DRAIN_DONE;
	/* Idle: the frame has left its sender, nothing waits in the ring,
	 * and the last batch is over. */
	if (!found && !polled)
		return STEER_DRAIN_WAIT;
	if ((__s32)(f->enq - f->done) > 0)
		return now - f->last_tick >= timeout ? STEER_DRAIN_STALLED :
						       STEER_DRAIN_WAIT;
	/* Signed: the kthread may report after now_ns was read. */
	if ((__s64)(now_ns - f->last_ns) < STEER_DRAIN_IDLE_NS)
		return STEER_DRAIN_WAIT;
	return STEER_DRAIN_DONE;
}

/* Whether every frame among the first 'upto' that entered a target's ring
 * is up the stack (the loader's warm-up: kernel/window.h), by the tests
 * of steer_drain_verdict() for the last of them. */
static inline int steer_ring_delivered(__u32 upto,
				       const struct steer_drain_facts *f,
				       __u32 now, __u64 now_ns,
				       __u32 gro_units)
{
	if ((__s32)(f->done - upto) < 0)
		return 0;
	return steer_drain_verdict(1, upto, 1, f, now, now_ns, 0xffffffffu,
				   gro_units) == STEER_DRAIN_DONE;
}

/* steer_look[0]: the workers look for stamps in front of their frames
 * while 'until' (jiffies) lies ahead, at a cost of two helper calls a
 * frame. Every sender of a stamped frame, and every worker that finds
 * one, keeps it so for the drain timeout and two ticks (once a tick
 * each). A stamp not looked at leaves no mark; marks only speed a drain
 * (a drain without them waits for its old CPU to go idle), so a worker
 * that misses some costs time, never order. Never 0 once held. */
struct steer_look {
	__u32 until;
	__u32 pad;
};
/* A worker that finds a stamp keeps the gate open this many ticks ahead:
 * more stamped frames may wait behind it, longer than their senders'
 * hold. */
#define STEER_LOOK_TICKS	4

/* steer_rxmove[0], per receiving CPU (see drain.h): after a receive
 * queue moved here, frames bound for the fast path go through this CPU's
 * own queue until the first of them, the marker, has reached the stack:
 * this CPU queued it behind every frame the queue's old CPU had queued
 * here. And where the last queue to move here came from: for the drain
 * timeout after, a bucket cold here but warm there follows that CPU's
 * frames to their target first. */
struct steer_rxmove {
	__u32 pending;		/* 1 while the above holds */
	__u32 since;		/* when the move was seen, jiffies */
	__u32 target;		/* the marker's target: this CPU, a bank */
	__u32 seq;		/* its stamp there; 0: not sent yet */
	__u32 from;		/* 1 + the CPU the last queue to move here
				 * left; 0: none */
	__u32 from_at;		/* when that move was seen, jiffies */
	__u32 poll;		/* this CPU's napi_polls when it was sent */
	__u32 queued;		/* 1: the marker entered this CPU's ring
				 * (stamped or not); 0: none yet */
};
/* steer_rxq: the queue's CPU still waits out its move (steer_rxmove). */
#define STEER_RXQ_PENDING	0x80000000u
/* steer_rxq: the queue's CPU has queued its frames elsewhere, and passed
 * none on its fast path since the queue moved there: the first it passes
 * waits out the move all the same. */
#define STEER_RXQ_QUEUED	0x40000000u
/* steer_stats.rxq_mine: this CPU holds the queue as STEER_RXQ_QUEUED: its
 * queued frames need not look again, its fast path must. */
#define STEER_RXQ_MINE_QUEUED	(1ull << 32)

/*
 * steer_window[0]: the warm-up before a flip under rebalance: drain. A
 * bucket's drain needs to know where its last frame went and which it was
 * (a stamp in front of the frame, its number in a record of the bucket),
 * and stamping and recording every queued frame costs 20 ns a frame and
 * more. Only buckets that move need them, and buckets move only at a
 * flip. So the loader opens the window ('open'), waits until every
 * receiving CPU sees it, and then until every cpumap ring has handed to
 * the stack each frame that entered it before (kernel/window.h): frames
 * queued before the window are then no concern of any drain, and every
 * frame after it is stamped and recorded under 'gen'. It flips, and shuts
 * the window. From the flip on, a bucket whose record of this warm-up (or
 * later) names another target than the table drains from there; any
 * other goes where the table says. Outside the window a queued frame
 * reads the window and its bucket's record, and writes nothing unless
 * the bucket drains.
 *
 * A receiving CPU's own moves (a receive queue or a flow arriving here
 * from another CPU, drain.h) need no window: it sends a marker through
 * its own queue, behind whatever the others queued here, and keeps
 * records of its own for the buckets concerned until the marker is out.
 */
struct steer_window {
	__u32 open;		/* loader: 1 during a warm-up */
	__u32 gen;		/* loader: bumped at every opening; never 0
				 * once initialised */
	__u32 opened;		/* loader: jiffies when it last opened */
	__u32 flipped;		/* loader: jiffies of the last flip */
};

/* The stamp a receiving CPU leaves in the headroom right in front of a
 * frame it queues to a worker under drain: who sent it, to which target,
 * and its place in that sender's stream there. The headroom, not XDP
 * metadata: some kernels refuse bpf_xdp_adjust_meta() (seen: a hardened
 * 6.18 whose verifier says "program of this type cannot use helper"), and
 * some drivers have no metadata; every one keeps XDP_PACKET_HEADROOM,
 * which bpf_xdp_adjust_head() reaches on both sides. The frame's data does
 * not move. Headroom is not cleared between frames: 'tag' tells a stamp
 * from bytes an earlier frame left there. A stamp an earlier frame of
 * these maps left (same key) states a fact still true, that its sender's
 * frames up to 'seq' have left the ring, only late: a drain then waits
 * longer, never less (drain.h). Anything else matches the tag with odds of
 * 2^-64, the key being secret: nothing outside the kernel reads headroom. */
struct steer_stamp {
	__u32 seq;		/* the sender's steer_seq for the target */
	__u16 rx_slot;		/* the sender's receiver slot */
	__u16 target;
	__u64 tag;		/* steer_stamp_tag() */
};

/* The tag of a stamp whose first 8 bytes are 'seq', 'rx_slot' and
 * 'target', under the key 'key' (steer_stamp_key, nonzero). */
static inline __u64 steer_stamp_tag(__u32 seq, __u16 rx_slot, __u16 target,
				    __u64 key)
{
	return key ^ ((__u64)seq | (__u64)rx_slot << 32 | (__u64)target << 48);
}

/*
 * steer_rx_pool[0]: the receiver slots. A CPU that queues frames under
 * drain takes the next slot at its first tick of doing so (bpf/drain.h,
 * rx_slot_tick()): an atomic add on 'claimed', then it writes its own
 * steer_rx_cpu and steer_rx_slot entries, in that order. Once every slot
 * is taken, a CPU that finds none takes over one whose CPU has not held
 * it for the lease (steer_slot.rx_lease, struct steer_rx_lease); 'claimed' goes
 * past 'limit' by at most one per CPU (each adds only while it reads
 * room left), so readers take the smaller.
 */
struct steer_rx_pool {
	__u32 claimed;		/* slots asked for so far (atomic add) */
	__u32 limit;		/* slots there are: set by the first apply
				 * to these maps, <= STEER_RX_SLOTS;
				 * 0: STEER_RX_SLOTS */
	__u32 overflow_tick;	/* jiffies of the last tick in which a CPU
				 * without a slot queued a frame under drain
				 * (queued_lately() cannot name it); 0: none */
	__u32 rows;		/* rows of steer_seq, steer_deq and
				 * steer_rx_cpu as sized at load (the stride
				 * of steer_deq's key), set with 'limit';
				 * 0: STEER_RX_SLOTS, the rows of versions
				 * before (this word was their pad), whose
				 * maps an upgrade keeps */
};

/* steer_rx_lease[slot]: the lease of a receiver slot (bpf/drain.h,
 * rx_slot_tick()). 'tick' is written by the slot's CPU at its first frame
 * of each tick, and once by a CPU that starts the lease of a slot never
 * seen held; the rest by the slot's CPU only. */
struct steer_rx_lease {
	__u32 tick;		/* jiffies of the last tick its CPU held it;
				 * 0: not seen held since these maps were
				 * made */
	__u32 pending;		/* 1: taken over, not used yet: its CPU
				 * passes its table frames here until a NAPI
				 * poll of its own ends after 'poll' */
	__u32 poll;		/* its CPU's napi_polls at the takeover */
	__u32 pad;
};

/* bpf/pool_mark.bpf.c's steer_pool_limit(), its context. */
struct steer_pool_limit_args {
	__u32 limit;		/* in: the new limit */
	__u32 claimed;		/* out: claimed, read after the store */
};

/* Rows of the slot-keyed maps (steer_seq, steer_deq, steer_rx_cpu,
 * steer_rx_lease). */
static inline __u32 steer_rx_pool_rows(const struct steer_rx_pool *p)
{
	return p->rows && p->rows < STEER_RX_SLOTS ? p->rows : STEER_RX_SLOTS;
}

/* The slots a pool has: its limit. */
static inline __u32 steer_rx_pool_limit(const struct steer_rx_pool *p)
{
	return p->limit && p->limit < STEER_RX_SLOTS ? p->limit :
						       STEER_RX_SLOTS;
}

/* The slots of a pool that are handed out: at most its limit. */
static inline __u32 steer_rx_pool_used(const struct steer_rx_pool *p)
{
	__u32 limit = steer_rx_pool_limit(p);

	return p->claimed < limit ? p->claimed : limit;
}

/* ---- the flow hash ------------------------------------------------------ */

/* 1 when the (src, sport) end sorts after the (dst, dport) end: symmetric
 * mode then swaps both ends together, as the kernel's flow dissector does,
 * so ports stay with their addresses. */
static inline int steer_flow_reversed(const struct steer_flow *f)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (f->src[i] != f->dst[i])
			return f->src[i] > f->dst[i];
	}
	return f->sport > f->dport;
}

/*
 * Multilinear hashing (Lemire and Kaser, "Strongly universal string hashing
 * is fast", 2014): h = (k0 + k1*w1 + ... + kn*wn) mod 2^64, keep the top 32
 * bits. Over random 64-bit keys it is strongly universal: without the key,
 * nobody can choose flows that pile onto one CPU. The products are
 * independent, so the CPU runs them in parallel: several times faster than
 * jhash's serial mixing, which matters at one hash per frame.
 *
 * The sum is linear in each word, so flows that differ by a counter (one
 * client's consecutive source ports) hash to an arithmetic progression; for
 * about one key in 200 its step lines up with the table and most of those
 * flows share a bucket parity, i.e. one CPU of two. A fixed bijective mix of
 * the result (one multiply; a bijection keeps the family's universality)
 * breaks the progression up.
 *
 * What enters: the family and addresses always; the protocol and ports
 * only in L4 mode, and not for a fragment (l3_only). So under the L3 key
 * every flow between two hosts meets on one CPU, TCP, UDP and ICMP alike,
 * and a datagram's fragments meet its unfragmented neighbours; under the
 * L4 key the fragments meet each other (as NIC RSS hashes them too).
 */
/* The keyed sum over a flow's words, its two ends in the order given
 * (symmetric mode may swap them). Inline always, as the mix below: it
 * takes more arguments than a BPF function may, and the datapath sums
 * words where they lie, in the frame or in its parsed flow. */
static inline __attribute__((always_inline))
__u64 steer_flow_sum(const __u64 key[STEER_HASH_KEY_WORDS], __u32 ports,
		     __u32 pf, const __u32 *s, const __u32 *d, int v6)
{
	__u64 h = key[0] + key[1] * ports + key[2] * pf +
		  key[3] * s[0] + key[4] * d[0];

	if (v6)
		h += key[5] * s[1] + key[6] * s[2] + key[7] * s[3] +
		     key[8] * d[1] + key[9] * d[2] + key[10] * d[3];
	return h;
}

/* The fixed mix of a keyed sum, its top 32 bits. */
static inline __attribute__((always_inline)) __u32 steer_hash_mix(__u64 h)
{
	h >>= 32;
	h ^= h >> 16;
	h = (__u32)(h * 0x45d9f3bu);
	h ^= h >> 16;
	return (__u32)h;
}

/* steer_flow_hash() under the L4 key, not symmetric, of a datagram that
 * is no fragment: the commonest case, which the datapath computes inline
 * (bpf/xdp_steer.bpf.c, frame_hash(); for the commonest frame, from its
 * words where they lie: bpf/parse.h, common_hash()), every other in a
 * function of its own; steer_flow_hash() takes it for that case too.
 *
 * The two ports and the protocol with the family are words of the flow
 * as they lie in it (on little-endian CPUs the source port and the
 * protocol in the low halves, as before): one load each, where taking the
 * fields one by one and joining them cost every frame 7 instructions
 * (bench_prog --insns). The parser writes each word in one store
 * (bpf/parse.h). */
static inline __u32 steer_flow_hash_l4(const struct steer_flow *f,
				       const __u64 key[STEER_HASH_KEY_WORDS])
{
	__u32 ports;
	__u16 pf;

	__builtin_memcpy(&ports, &f->sport, sizeof(ports));
	__builtin_memcpy(&pf, &f->proto, sizeof(pf));
	return steer_hash_mix(steer_flow_sum(key, ports, pf, f->src, f->dst,
					     f->family == STEER_AF_INET6));
}

static inline __u32 steer_flow_hash(const struct steer_flow *f,
				    const __u64 key[STEER_HASH_KEY_WORDS],
				    __u32 flags, int l3_only)
{
	__u32 ports = 0, pf;
	__u16 w;
	int l4 = !l3_only && (flags & STEER_F_HASH_L4);
	int v6 = f->family == STEER_AF_INET6;

	if (l4 && !(flags & STEER_F_SYMMETRIC))
		return steer_flow_hash_l4(f, key);
	if (l4) {
		__builtin_memcpy(&ports, &f->sport, sizeof(ports));
		__builtin_memcpy(&w, &f->proto, sizeof(w));
		pf = w;
	} else {
		pf = (__u32)f->family << 8;
	}
	/* The sum written out for each order: the flow's words then load
	 * from where they lie, where pointers chosen between the two ends
	 * cost every frame 5 instructions to set up (bench_prog --insns). */
	if ((flags & STEER_F_SYMMETRIC) && steer_flow_reversed(f))
		return steer_hash_mix(steer_flow_sum(key, ports >> 16 |
							  ports << 16, pf,
						     f->dst, f->src, v6));
	return steer_hash_mix(steer_flow_sum(key, ports, pf, f->src, f->dst,
					     v6));
}

/*
 * The id an id key (STEER_F_KEY_ID in 'flags') hashes for a frame, from
 * what the parser read: 'ids' (STEER_IDS_*), the tunnel's id, the flow's
 * two ports as one word (source port in its first two bytes, network
 * order) and whether it is a fragment. 1 with *id set; 0 when the key does
 * not apply (no VLAN tag, no tunnel id, no ports: a protocol without them,
 * or a fragment, whose later pieces carry none): the frame then hashes on
 * its flow under the L4 key (steer_flow_hash()), so those frames still
 * spread, and a fragment's pieces meet. The tags' count is in the VLAN id:
 * one tag of VID 5 is not two of 0 and 5.
 */
static inline int steer_key_id(__u32 flags, __u32 ids, __u32 tunnel_id,
			       __u32 ports, int is_frag, __u32 *id)
{
	int dst = !!(flags & STEER_F_KEY_DPORT);

	if (flags & STEER_F_KEY_VLAN) {
		*id = ids & ~STEER_IDS_TUNNEL;
		return *id != 0;
	}
	if (flags & STEER_F_KEY_TUNNEL) {
		*id = tunnel_id;
		return !!(ids & STEER_IDS_TUNNEL);
	}
	if (!ports || is_frag)
		return 0;
	/* The port the key names, as it lies in the word (a shift, not a
	 * pointer into it: the verifier refuses arithmetic on a stack
	 * pointer's bits). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	*id = (dst ? ports >> 16 : ports) & 0xffff;
#else
	*id = (dst ? ports : ports >> 16) & 0xffff;
#endif
	return 1;
}

/* The hash of an id key's id: the flows' keyed sum over the one word,
 * and the same final mix (steer_flow_hash()). The key's kind stays out:
 * one policy has one key, and its term cost a port key the instructions
 * that put it over the L4 key on the same frame (bench_prog --insns). */
static inline __u32 steer_id_hash(__u32 id,
				  const __u64 key[STEER_HASH_KEY_WORDS])
{
	return steer_hash_mix(key[0] + key[1] * id);
}

/* Table bucket of a hash: the low bits, table_size a power of two. */
static inline __u32 steer_table_index(__u32 hash, __u32 table_size)
{
	return hash & (table_size - 1);
}

/* Member of a rule's CPU set of n for a hash: the high bits, by multiply and
 * shift instead of a division, so it is independent of the table bucket. */
static inline __u32 steer_set_index(__u32 hash, __u32 n)
{
	return (__u32)(((__u64)hash * n) >> 32);
}

/* ---- rule keys ------------------------------------------------------------ */

/* The flow as an exact shape's rule key sees it: fields outside 'shape'
 * zeroed. A word at a time, each masked: field by field, a frame a rule
 * places ran 22 instructions more (bench_prog --insns). The flow's pad is
 * masked out. */
static inline void steer_rule_key_fill(struct steer_rule_key *k, __u32 slot,
				       __u32 shape, const struct steer_flow *f)
{
	__u64 sm = (shape & STEER_M_SRC) ? ~0ull : 0;
	__u64 dm = (shape & STEER_M_DST) ? ~0ull : 0;
	__u16 pm[2] = { (shape & STEER_M_SPORT) ? 0xffff : 0,
			(shape & STEER_M_DPORT) ? 0xffff : 0 };
	__u8 fm[4] = { (shape & STEER_M_PROTO) ? 0xff : 0,
		       (shape & (STEER_M_SRC | STEER_M_DST)) ? 0xff : 0 };
	__u64 a[2], b[2];
	__u32 w, m;

	k->slot = slot;
	k->shape = shape;
	__builtin_memcpy(a, f->src, sizeof(a));
	__builtin_memcpy(b, f->dst, sizeof(b));
	a[0] &= sm;
	a[1] &= sm;
	b[0] &= dm;
	b[1] &= dm;
	__builtin_memcpy(k->flow.src, a, sizeof(a));
	__builtin_memcpy(k->flow.dst, b, sizeof(b));
	__builtin_memcpy(&w, &f->sport, sizeof(w));
	__builtin_memcpy(&m, pm, sizeof(m));
	w &= m;
	__builtin_memcpy(&k->flow.sport, &w, sizeof(w));
	__builtin_memcpy(&w, &f->proto, sizeof(w));
	__builtin_memcpy(&m, fm, sizeof(m));
	w &= m;
	__builtin_memcpy(&k->flow.proto, &w, sizeof(w));
}

/* The lookup key of a flow in a prefix shape: the prefix side's full
 * address (32 or 128 bits), the shape's other fields exact. */
static inline void steer_prefix_key_fill(struct steer_prefix_key *k,
					 __u32 slot, __u32 shape,
					 const struct steer_flow *f)
{
	int dst = (shape & STEER_M_PREFIX_DST) != 0;
	int other = (shape & (dst ? STEER_M_SRC : STEER_M_DST)) != 0;
	int i;

	k->prefixlen = STEER_PREFIX_FIXED_BITS +
		       (f->family == STEER_AF_INET ? 32 : 128);
	k->slot = slot;
	k->shape = shape;
	k->family = f->family;
	k->proto = (shape & STEER_M_PROTO) ? f->proto : 0;
	k->pad = 0;
	k->sport = (shape & STEER_M_SPORT) ? f->sport : 0;
	k->dport = (shape & STEER_M_DPORT) ? f->dport : 0;
	/* Words chosen, not pointers to the flow's addresses: clang kept
	 * those in front of the exact-rule loop, spilled, and the frames
	 * of exact rules paid 9 instructions for them (bench_prog
	 * --insns). */
	for (i = 0; i < 4; i++) {
		k->other[i] = !other ? 0 : dst ? f->src[i] : f->dst[i];
		k->addr[i] = dst ? f->dst[i] : f->src[i];
	}
}

/* ---- the rule filter -------------------------------------------------------
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

#endif /* XDP_STEER_H */
