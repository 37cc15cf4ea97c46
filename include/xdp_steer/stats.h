/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/stats.h - what each receiving CPU counts (steer_stats, one
 * list: STEER_STATS_FIELDS), what it queued per target, what workers took.
 */
#ifndef XDP_STEER_INCLUDE_STATS_H
#define XDP_STEER_INCLUDE_STATS_H

#include <linux/types.h>
#include "xdp_steer/encap.h"

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
	/* Not a counter: the datapath's own cache (bpf/drain.h). q + 1 when
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
	 * (bpf/drain.h). Summed with the rest by readers and never shown. */
	__u64 napi_polls;
	__u64 napi_poll_tick;
	/* Not a counter either: jiffies (all 64 bits, never 0) of the
	 * last tick in which this CPU queued a frame under drain, or asked
	 * the window for one (bpf/drain.h, queued_lately()): a bucket arriving
	 * cold at another CPU's fast path needs a marker only while some
	 * other receiving CPU may have queued its frames there. Written
	 * once a tick; summed with the rest by readers and never shown. */
	__u64 queued_tick;
	/* Not a counter either: the datapath's cache of this CPU's
	 * receiver slot (steer_rx_slot): in bits 0-31 slot + 1,
	 * STEER_RX_SLOT_NONE when every slot was taken, 0: none claimed
	 * yet; in bits 32-63 the tick (jiffies) it was last checked in:
	 * valid for that tick only, since a slot idle for the lease may
	 * be taken over (bpf/drain.h, rx_slot_tick()). In this value because
	 * the frame has it in hand: a frame compares the tick, no
	 * lookup. Summed with the rest by readers and never shown. */
	__u64 rx_slot;
	/* What this CPU queued per target CPU is in steer_queued, by its
	 * receiver slot, not here: a row of every worker in this per-CPU
	 * value would cost its size times the possible CPUs. */
};

/* worker_stats[0] (per-CPU array): frames the cpumap program dequeued on
 * each worker CPU, read per CPU. */
struct steer_worker_stats {
	__u64 packets;
	__u64 bytes;
};

#endif /* XDP_STEER_INCLUDE_STATS_H */
