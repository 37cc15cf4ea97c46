/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/sizes.h - the fixed sizes of the maps and of the loader's
 * arrays: CPU ids, banks and targets, tables, rules, receiver slots.
 */
#ifndef XDP_STEER_INCLUDE_SIZES_H
#define XDP_STEER_INCLUDE_SIZES_H

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

#endif /* XDP_STEER_INCLUDE_SIZES_H */
