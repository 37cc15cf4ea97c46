/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * window.h - the drain window (struct steer_window in xdp_steer.h): the
 * datapath keeps drain records only while it is open, so an apply that
 * moves buckets with rebalance: drain opens it, waits until every record
 * not written since is cold, flips, and keeps it open the drain timeout
 * after the flip.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef XDP_STEER_WINDOW_H
#define XDP_STEER_WINDOW_H

#include <linux/types.h>

#include "kernel/maps.h"

/* A window never opened (the map starts zeroed) reads as closed whatever
 * jiffies say: a zero end is "open" in the minutes after boot, when
 * jiffies are near 2^32. Leaves an opened window alone. */
int window_init(const struct steer_maps *m);

/* Opens the window and returns once it has been open for 'units' jiffies
 * and two ticks, with at least as long still ahead: a flip right after is
 * safe for a slot whose drain timeout is 'units'. */
int window_open(const struct steer_maps *m, __u32 units);

/* Right after the flip: keeps the window open 'units' and two ticks more,
 * and notes when the flip was. */
int window_flipped(const struct steer_maps *m, __u32 units);

/* The window as the datapath sees it now: open (1) or not, and the ticks
 * left, for status. */
int window_read(const struct steer_maps *m, struct steer_window *w,
		int *open, __u32 *left);

#endif /* XDP_STEER_WINDOW_H */
