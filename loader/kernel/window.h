/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * window.h - the warm-up before a flip under rebalance: drain (struct
 * steer_window in xdp_steer/stamp.h). While the window is open every queued
 * frame is stamped and its bucket recorded under the window's generation.
 * An apply opens it, waits until every receiving CPU sees it open (an RCU
 * grace period: each frame's program runs inside one), then until every
 * cpumap ring has handed to the stack each frame that entered it before
 * (kernel/evidence.h), flips, and shuts it. From the flip on, a record of
 * that generation or later tells where its bucket's last frame went; an
 * older one says nothing that still matters. No clock decides: a ring
 * whose kthread takes nothing for the wait's limit fails the apply, and
 * the policy in force stays.
 *
 * Functions return 0 or a negative errno.
 */
#ifndef XDP_STEER_WINDOW_H
#define XDP_STEER_WINDOW_H

#include <stddef.h>
#include <linux/types.h>

#include "kernel/maps.h"
#include "util/why.h"

/* How long an apply waits for the rings to deliver what they held when
 * the window opened, at most. A kthread that gets any share of its CPU
 * empties a ring far sooner (a 2048-frame ring at a tenth of a 2-vCPU
 * VM's CPU: about 20 ms). */
#define WINDOW_READY_MS		2000

/* A window never opened (the map starts zeroed) gets generation 1, so
 * that a zeroed record (generation 0) is older than any slot's warm-up;
 * an open one (an apply killed in its warm-up: the caller holds the
 * lock) is shut. */
int window_init(const struct steer_maps *m);

/* Opens the window under a new generation, in *gen. */
int window_open(const struct steer_maps *m, __u32 *gen);

/* Once the window is seen open everywhere (slots_wait_readers()):
 * returns when every cpumap entry (both banks) has handed to the stack
 * each frame that had entered its ring, or -ETIMEDOUT after
 * WINDOW_READY_MS with the entries still waiting named in 'why'.
 * 'gro_units' is the slot's. */
int window_wait_ready(const struct steer_maps *m, __u32 gro_units,
		      struct why *why);

/* Shuts the window; 'flipped': after a flip, whose time it notes in the
 * map for whoever reads it (bpftool), as it notes the opening's. */
int window_close(const struct steer_maps *m, int flipped);

/* The window as it is. */
int window_read(const struct steer_maps *m, struct steer_window *w);

#endif /* XDP_STEER_WINDOW_H */
