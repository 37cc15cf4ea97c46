/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * prog_size.h - the sizes xdp_steer's maps are made with: the cpumaps'
 * entries, the span of CPU ids (bpf/span.h) and the receiver slots,
 * each that of the maps already pinned where there are some, so an
 * object opened on them fits them.
 */
#ifndef XDP_STEER_PROG_SIZE_H
#define XDP_STEER_PROG_SIZE_H

#include <linux/types.h>

/* Entries of the interface's cpumaps: those of the one pinned in 'pin_dir'
 * (NULL: none looked for), else the span (prog_span()); or a negative
 * errno. A CPU at or past it can have no worker. */
int prog_cpumap_entries(const char *pin_dir);

/* The span S of the interface's maps (bpf/span.h): that of the
 * steer_wdone pinned in 'pin_dir' (its entries / 2: STEER_MAX_CPUS in
 * pins of xdp-loader load -p and of versions before the span), else the
 * kernel's possible CPU ids (highest + 1), at most STEER_CPU_IDS; or a
 * negative errno. */
int prog_span(const char *pin_dir);

/* Sizes the maps of 'skel' that have the span's dimensions (the cpumaps
 * 'cpumap_entries', steer_wdone, steer_wenq, steer_seq, steer_deq,
 * steer_weights) and tells its programs the span (its .rodata). */
struct xdp_steer_bpf;
int prog_set_span(struct xdp_steer_bpf *skel, __u32 span,
		  __u32 cpumap_entries);

/* The receiver slots R of the interface whose pins are in 'pin_dir' (its
 * last component the interface's name): those of the steer_buckets
 * pinned there (max_entries / STEER_TABLE_MAX), else attach --rx-slots
 * (prog_want_rx_slots()), else XDP_STEER_RX_SLOTS (a test knob), else
 * min(possible CPUs, max(16, 2 x the NIC's receive channels)), at most
 * STEER_RX_SLOTS; or a negative errno. */
int prog_rx_slots(const char *pin_dir);

/* R for the maps the loads that follow make (attach --rx-slots N, 1 to
 * STEER_RX_SLOTS); 0: prog_rx_slots()'s default again. */
void prog_want_rx_slots(__u32 n);

/* Rows of the slot-keyed maps (steer_seq, steer_deq, steer_rx_cpu) of
 * the interface whose pins are in 'pin_dir': those of the steer_rx_cpu
 * pinned there (256 before they were sized: an upgrade keeps them), else
 * prog_rx_slots(); or a negative errno. */
int prog_slot_rows(const char *pin_dir);

/* min(possible CPUs, max(16, 2 x the receive channels of 'ifname' (NULL
 * or a driver that does not say: 1))), at most STEER_RX_SLOTS. */
int prog_rx_slots_for(const char *ifname);

#endif /* XDP_STEER_PROG_SIZE_H */
