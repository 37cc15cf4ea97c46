/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * lock.h - one lock per interface per network namespace, taken by every
 * operation of the library: exclusive by those that change what runs
 * (attach, apply, detach), shared by those that read (status), so a reader
 * never sees half a change and two changes never interleave.
 *
 * Lock files live in LOCK_DIR (root's, 0700, checked like the pins), one
 * per interface and namespace, named by netns_lock_name(): the namespace's
 * inode and cookie, so a namespace made after another was deleted, which
 * gets its inode, never shares its locks. A lock file is removed only by
 * a holder of its exclusive lock, before it unlocks; whoever then gets the
 * lock of the unlinked file sees that the name no longer gives that file
 * and opens it again (lock_take()), so a waiter behind a removal and a
 * newcomer that made a new file never both hold "the" lock.
 */
#ifndef XDP_STEER_LOCK_H
#define XDP_STEER_LOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/pins.h"
#include "util/why.h"

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
	      void (*waiting)(void *arg), void *arg, struct why *why);
void lock_release(int fd);

/* Releases the lock 'fd' of 'ifname' in 'ns' and removes its file, if
 * its exclusive lock can be had at once (a shared holder converts, which
 * may let another in first: then the file stays). 1 removed, 0 left, or
 * a negative errno; fd is closed either way. */
int lock_remove(int fd, const struct steer_netns *ns, const char *ifname);

/* Removes the lock file of 'ifname' in 'ns' if nobody holds it: 1
 * removed, 0 held or absent, or a negative errno. */
int lock_remove_idle(const struct steer_netns *ns, const char *ifname);

/* Calls fn for each lock file in LOCK_DIR, with its namespace (cookie 0
 * for an earlier xdp-steer's name, by inode alone) and interface; stops
 * at fn's first non-zero return. */
int lock_list(int (*fn)(const struct steer_netns *ns, const char *ifname,
			void *arg), void *arg);

#endif /* XDP_STEER_LOCK_H */
