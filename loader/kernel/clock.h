/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * clock.h - the datapath's clock as the loader sees it. The drain
 * bookkeeping keeps time in jiffies (include/xdp_steer/drain.h): the
 * loader turns the policy's milliseconds into ticks of the running kernel,
 * and compares buckets' stamps with jiffies read through a tiny BPF
 * program.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef XDP_STEER_CLOCK_H
#define XDP_STEER_CLOCK_H

#include <linux/types.h>

/* The kernel's jiffies, cut to 32 bits as the datapath keeps them. */
int clock_jiffies(__u32 *now);

/* All 64 bits of them, as bpf_jiffies64() gives them (never 0). */
int clock_jiffies64(__u64 *now);

/* The kernel's tick rate: CONFIG_HZ from /proc/config.gz or
 * /boot/config-<release>, else measured (jiffies over 20 ms, rounded to
 * the nearest of 100, 250, 300, 1000). */
int clock_hz(int *hz);

/* Ticks that surely span 'ms' milliseconds: rounded up, plus one, as a
 * difference of n jiffies may stand for a little over n - 1 ticks. */
__u32 clock_ms_to_ticks(__u32 ms, int hz);

#endif /* XDP_STEER_CLOCK_H */
