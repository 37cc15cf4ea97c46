/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/maps.h - every map, listed once (X-macros): the XDP program's
 * (STEER_MAPS) and the tracepoint programs' (STEER_TRACE_MAPS).
 */
#ifndef XDP_STEER_INCLUDE_MAPS_H
#define XDP_STEER_INCLUDE_MAPS_H

/* The sizes and the value types the rows name, so that any expansion of
 * the lists compiles; the BPF side brings BPF_MAP_TYPE_* and struct
 * bpf_cpumap_val (<linux/bpf.h>). */
#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "xdp_steer/filter.h"
#include "xdp_steer/stats.h"
#include "xdp_steer/balance.h"
#include "xdp_steer/trace.h"
#include "xdp_steer/drain.h"
#include "xdp_steer/stamp.h"
#include "xdp_steer/rx_slots.h"

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
 *
 * The rows, where the row itself does not say it all:
 * - cpu_map_b: bank 1 of the cpumap (see STEER_BANKS).
 * - steer_table: the indirection tables, [slot * STEER_TABLE_MAX +
 *   bucket].
 * - flow_rules: not preallocated: entries cost memory as rules are
 *   applied (the datapath only reads it; apply writes it).
 * - rule_cpus: the CPU sets of rules, [slot * STEER_RULE_CPUS_MAX + i].
 * - rule_filter: bits in front of the rule lookups (steer_filter_*()).
 * - steer_buckets: drain (bpf/drain.h): [rx slot * STEER_TABLE_MAX +
 *   drain bucket], where that receiving CPU's frames of the bucket went
 *   last; written by that CPU only. Sized at load to the receiver slots R
 *   (kernel/prog.c); the object's size is STEER_RX_SLOTS.
 * - steer_seq: [rx slot * STEER_TARGETS + target]: stamped frames the
 *   receiving CPU of that slot (steer_rx_cpu) queued to the target;
 *   written by that CPU only. Rows sized at load as steer_rx_cpu's
 *   (steer_rx_pool.rows).
 * - steer_deq: [target * rows + rx slot]: how far the target's cpumap
 *   program got in that receiving CPU's stamped frames; written by the
 *   target's kthread only. 'rows': steer_rx_pool.rows.
 * - steer_rx_pool: [0]: the receiver slots handed out (struct
 *   steer_rx_pool).
 * - steer_rx_slot: [cpu id]: 1 + the receiver slot of that CPU; 0: none.
 *   Written by that CPU, and cleared by one that took its slot over.
 * - steer_rx_cpu: [rx slot]: 1 + the CPU that holds it; 0: not (yet)
 *   held. Written by the CPU that claims it, or takes it over (an atomic
 *   compare and swap, bpf/drain.h): loops over receiving CPUs. Sized at load
 *   to R rows (kernel/prog.c), or kept at a pinned map's 256 with
 *   steer_seq's and steer_deq's (steer_rx_pool.rows).
 * - steer_rx_lease: [rx slot]: its lease (struct steer_rx_lease); rows as
 *   steer_rx_cpu's.
 * - steer_queued: [rx slot * span + cpu]: what the receiving CPU of that
 *   slot queued to 'cpu' (struct steer_cpu_stats); written by the CPU
 *   holding the slot in the tick. Row 'rows' (steer_rx_pool.rows, the
 *   last): CPUs without a slot, by atomic adds. Sized at load to rows + 1
 *   rows of the span (kernel/prog.c).
 * - steer_look: [0]: while the workers look for stamps (struct
 *   steer_look).
 * - steer_rxq: [rx queue]: 1 + the CPU that last received from it, with
 *   STEER_RXQ_PENDING while that CPU waits out the move, or
 *   STEER_RXQ_QUEUED (bpf/drain.h); written only around moves (IRQ affinity,
 *   threaded NAPI).
 * - steer_rxmove: [0], per receiving CPU: a queue that moved here, while
 *   frames its old CPU queued here may still wait in this CPU's rings.
 * - steer_stamp_key: [0]: the key of drain stamps (struct steer_stamp),
 *   random, set by the first apply to these maps and never changed while
 *   steer_seq counts on; 0: nothing is stamped.
 * - steer_window: [0]: the warm-up before a flip, while every queued frame
 *   is stamped and recorded (struct steer_window).
 * - steer_load: [rx slot * STEER_TABLE_MAX + drain bucket]: what the
 *   table placed there of that receiving CPU's frames, under a policy
 *   with balance: (STEER_F_BALANCE); sized as steer_buckets.
 * - steer_balance: [0]: the balancer's last round, for status; userspace
 *   only.
 * - steer_weights: [slot * STEER_MAX_CPUS + cpu]: the table weight of each
 *   CPU (0: no table worker); userspace only: the balancer's target
 *   shares, once its moves leave bucket counts off the weights.
 */
#define STEER_MAPS(X)							\
	X(cpu_map, BPF_MAP_TYPE_CPUMAP, __u32, struct bpf_cpumap_val,	\
	  STEER_MAX_CPUS, 0)						\
	X(cpu_map_b, BPF_MAP_TYPE_CPUMAP, __u32, struct bpf_cpumap_val,	\
	  STEER_MAX_CPUS, 0)						\
	X(steer_ctl, BPF_MAP_TYPE_ARRAY, __u32, struct steer_ctl, 1, 0)	\
	X(steer_slots, BPF_MAP_TYPE_ARRAY, __u32, struct steer_slot,	\
	  STEER_SLOTS, 0)						\
	X(steer_table, BPF_MAP_TYPE_ARRAY, __u32, __u32,		\
	  STEER_SLOTS * STEER_TABLE_MAX, 0)				\
	X(flow_rules, BPF_MAP_TYPE_HASH, struct steer_rule_key,	\
	  struct steer_target, STEER_SLOTS * STEER_MAX_RULES,		\
	  BPF_F_NO_PREALLOC)						\
	X(prefix_rules, BPF_MAP_TYPE_LPM_TRIE, struct steer_prefix_key,\
	  struct steer_target, STEER_SLOTS * STEER_MAX_RULES,		\
	  BPF_F_NO_PREALLOC)						\
	X(rule_cpus, BPF_MAP_TYPE_ARRAY, __u32, __u32,			\
	  STEER_SLOTS * STEER_RULE_CPUS_MAX, 0)				\
	X(rule_filter, BPF_MAP_TYPE_ARRAY, __u32, __u64,		\
	  STEER_SLOTS * STEER_FILTER_SLOT_WORDS, 0)			\
	STEER_MAP_STATS(X)						\
	X(worker_stats, BPF_MAP_TYPE_PERCPU_ARRAY, __u32,		\
	  struct steer_worker_stats, 1, 0)				\
	X(steer_buckets, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_bucket, STEER_RX_SLOTS * STEER_TABLE_MAX, 0)	\
	X(steer_seq, BPF_MAP_TYPE_ARRAY, __u32, __u32,			\
	  STEER_RX_SLOTS * STEER_TARGETS, 0)				\
	X(steer_deq, BPF_MAP_TYPE_ARRAY, __u32, struct steer_deq,	\
	  STEER_TARGETS * STEER_RX_SLOTS, 0)				\
	X(steer_rx_pool, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_rx_pool, 1, 0)					\
	X(steer_rx_slot, BPF_MAP_TYPE_ARRAY, __u32, __u32,		\
	  STEER_RX_CPU_IDS, 0)						\
	X(steer_rx_cpu, BPF_MAP_TYPE_ARRAY, __u32, __u32,		\
	  STEER_RX_SLOTS, 0)						\
	X(steer_rx_lease, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_rx_lease, STEER_RX_SLOTS, 0)			\
	X(steer_queued, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_cpu_stats,					\
	  (STEER_RX_SLOTS + 1) * STEER_MAX_CPUS, 0)			\
	STEER_MAP_WDONE(X)						\
	STEER_MAP_WENQ(X)						\
	X(steer_look, BPF_MAP_TYPE_ARRAY, __u32, struct steer_look, 1, 0)\
	X(steer_rxq, BPF_MAP_TYPE_ARRAY, __u32, __u32, STEER_MAX_RXQ, 0)\
	X(steer_rxmove, BPF_MAP_TYPE_PERCPU_ARRAY, __u32,		\
	  struct steer_rxmove, 1, 0)					\
	X(steer_stamp_key, BPF_MAP_TYPE_ARRAY, __u32, __u64, 1, 0)	\
	X(steer_window, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_window, 1, 0)					\
	X(steer_load, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_load, STEER_RX_SLOTS * STEER_TABLE_MAX, 0)	\
	X(steer_balance, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_balance, 1, 0)					\
	X(steer_weights, BPF_MAP_TYPE_ARRAY, __u32, __u32,		\
	  STEER_SLOTS * STEER_MAX_CPUS, 0)

/* The XDP program's maps the tracepoint programs write (the drain's
 * evidence, bpf/drain.h): the loader hands them the pinned ones. */
#define STEER_TRACE_SHARED_MAPS(X)					\
	STEER_MAP_STATS(X)						\
	STEER_MAP_WDONE(X)						\
	STEER_MAP_WENQ(X)

/*
 * The maps of the tracepoint programs, as STEER_MAPS (pinned next to them
 * by the loader):
 * - cpumap_ids: [0]: which cpumaps are this interface's.
 * - ring_stats: [worker cpu]: the fate of frames at the worker's ring,
 *   both banks together, added atomically by every CPU that queues there
 *   and by its kthreads (per receiving CPU before: 3 MiB at 512 possible
 *   CPUs, for a sum no reader split); sized at load to the span
 *   (kernel/trace.c).
 * - kthread_stats: [0], per worker CPU: what its cpumap kthreads did.
 */
#define STEER_TRACE_MAPS(X)						\
	X(cpumap_ids, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_cpumap_ids, 1, 0)				\
	X(ring_stats, BPF_MAP_TYPE_ARRAY, __u32,			\
	  struct steer_ring_stats, STEER_MAX_CPUS, 0)			\
	X(kthread_stats, BPF_MAP_TYPE_PERCPU_ARRAY, __u32,		\
	  struct steer_kthread_stats, 1, 0)

#endif /* XDP_STEER_INCLUDE_MAPS_H */
