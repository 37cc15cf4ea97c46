/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * lock.h - one lock per interface per network namespace, taken by every
 * operation of the library: exclusive by those that change what runs
 * (attach, apply, detach), shared by those that read (status), so a reader
 * never sees half a change and two changes never interleave.
 *
 * Lock files live in LOCK_DIR (root's, 0700, checked like the pins) and are
 * never removed: removing a lock file while another process waits on it
 * would let a third take a new one at the same time.
 */
#ifndef XDP_STEER_LOCK_H
#define XDP_STEER_LOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/pins.h"

#define LOCK_DIR	"/run/xdp-steer"
/* How long to wait behind another holder, in seconds, unless the
 * environment's XDP_STEER_LOCK_TIMEOUT says otherwise. The longest hold
 * of a working xdp-steer is an apply at the largest drain_timeout (10 s
 * before its flip, 10 s and 20 ms of retiring after); a holder past this
 * is stopped or hung, and a waiter that never returns (a cron'd stats
 * --prometheus) would pile up behind it. */
#define LOCK_WAIT_S	60

/* Takes the lock of 'ifname' in 'ns'; calls waiting(arg) once before
 * waiting behind another holder, for at most LOCK_WAIT_S (-ETIMEDOUT,
 * with the holder's pid in 'why' when /proc/locks names it). Returns an
 * fd for lock_release() or a negative errno with 'why' said. */
int lock_take(const struct steer_netns *ns, const char *ifname, bool exclusive,
	      void (*waiting)(void *arg), void *arg, char *why, size_t len);
void lock_release(int fd);

#endif /* XDP_STEER_LOCK_H */
