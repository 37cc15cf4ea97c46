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

/* Takes the lock of 'ifname' in 'ns'; calls waiting(arg) once before
 * blocking behind another holder. Returns an fd for lock_release() or a
 * negative errno with 'why' said. */
int lock_take(const struct steer_netns *ns, const char *ifname, bool exclusive,
	      void (*waiting)(void *arg), void *arg, char *why, size_t len);
void lock_release(int fd);

#endif /* XDP_STEER_LOCK_H */
