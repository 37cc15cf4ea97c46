/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * evidence.h - the drain's evidence as the loader reads it (bpf/drain.h):
 * what entered and left each worker's ring and when its kthread last
 * reported (steer_wenq, steer_wdone), each receiving CPU's ended NAPI
 * polls (steer_stats), the workers' marks (steer_deq); and the verdict on
 * a bucket record by the datapath's own rule, steer_drain_verdict() of
 * include/xdp_steer/drain.h. Status, which, the retiring of cpumap entries and
 * the warm-up of an apply judge by it.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef XDP_STEER_EVIDENCE_H
#define XDP_STEER_EVIDENCE_H

#include <linux/types.h>

#include "kernel/maps.h"

struct evidence {
	const struct steer_maps *m;
	/* Per target (a cpumap entry, the loader's bank * STEER_CPU_IDS +
	 * cpu, maps_target_in()): its
	 * facts without epoch_next, and its epochs' start ticks. */
	struct steer_drain_facts facts[STEER_CPU_TARGETS];
	__u32 epoch_at[STEER_CPU_TARGETS][4];
	/* Per receiving CPU id: steer_stats.napi_polls and napi_poll_tick,
	 * and 1 + its receiver slot (steer_rx_slot; 0: none), whose marks
	 * its stamped frames leave (steer_deq). */
	__u32 polls[STEER_RX_CPU_IDS];
	__u32 poll_tick[STEER_RX_CPU_IDS];
	__u16 rx_slot[STEER_RX_CPU_IDS];
	__u32 now;		/* jiffies, read after the facts */
	__u64 now_ns;		/* CLOCK_MONOTONIC, as bpf_ktime_get_ns() */
};

/* Reads the receiver slots handed out and each receiving CPU's ended
 * polls, then every target's facts
 * (enqueue counts first: struct steer_drain_facts says why), then the
 * clocks: a poll counted as ended flushed its frames into their rings
 * before, and a frame counted as entered was taken off before it was
 * reported. */
int evidence_read(const struct steer_maps *m, struct evidence *e);

/* The verdict (enum steer_drain) on receiving CPU 'rx''s record 'b' of
 * a drain bucket, as the datapath would give it now: for a queued target,
 * steer_drain_verdict() over the marks of rx's receiver slot (a CPU
 * without one waits for good, as drained() has it); for the fast path,
 * whether a poll has ended since its last frame. 'timeout' and 'gro_units' are the
 * slot's drain_units and gro_units. */
int evidence_judge(const struct evidence *e, __u32 rx,
		   const struct steer_bucket *b, __u32 timeout,
		   __u32 gro_units);

/* Whether every frame among the first 'upto' that entered target's ring
 * is up the stack (steer_ring_delivered()). */
int evidence_ring_delivered(const struct evidence *e, __u32 target,
			    __u32 upto, __u32 gro_units);

/* stuck[cpu] (STEER_CPU_IDS) = 1 for each CPU whose entry in cpumap
 * bank 'bank' cannot drain now: frames wait in its ring and its kthread
 * has reported nothing for 'units' jiffies (a drain from it would wait,
 * counted in drain_stalled). */
void evidence_stuck(const struct evidence *e, __u32 bank, __u32 units,
		    unsigned char *stuck);

#endif /* XDP_STEER_EVIDENCE_H */
