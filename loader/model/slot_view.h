/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * slot_view.h - the slot in force on an interface, as read back from its
 * maps and /proc. Plain data: kernel/slots_read.c fills it
 * (slots_read_view()), the library hands it out (steer_status), the CLI
 * prints it.
 */
#ifndef XDP_STEER_SLOT_VIEW_H
#define XDP_STEER_SLOT_VIEW_H

#include <linux/bpf.h>
#include <linux/types.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "model/kthread.h"

/* The slot in force and what its table, rules and the cpumap hold. */
struct slot_view {
	struct steer_ctl ctl;
	struct steer_slot slot;		/* the active one */
	__u32 buckets[STEER_CPU_IDS];	/* table buckets per CPU */
	int nflow;			/* flow_rules entries of the slot */
	int nprefix;			/* prefix_rules entries of the slot */
	/* Both banks' entries, by target (bank * STEER_CPU_IDS + cpu). */
	struct bpf_cpumap_val cpumap[STEER_CPU_TARGETS];
	unsigned char in_cpumap[STEER_CPU_TARGETS];
	unsigned char in_use[STEER_CPU_TARGETS];	/* named by live records */
	unsigned char need[STEER_CPU_TARGETS];	/* by the active slot */
	int draining;			/* buckets still draining */
	int stalled;			/* ... from a target that took
					 * nothing off its waiting ring for
					 * the drain timeout */
	/* Each entry's kthread, by target; pid 0 where none was found. */
	struct kthread_info kthreads[STEER_CPU_TARGETS];
	int window_open;		/* an apply warms up (kernel/window.h) */
	/* Receiver slots (struct steer_rx_pool): how many there are, and
	 * the CPUs holding the first rx_held of them, in slot order. */
	__u32 rx_slots;
	__u32 rx_held;
	__u32 rx_cpus[STEER_RX_SLOTS];
};

#endif /* XDP_STEER_SLOT_VIEW_H */
