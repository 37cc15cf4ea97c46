/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * features.h - what this kernel (and this libxdp) offer xdp-steer, for
 * `xdp-steer --version`: each probe is cheap, attaches nothing to any
 * interface and leaves nothing behind. Those that load a BPF program need
 * root; run without it they return -EPERM and say so.
 */
#ifndef XDP_STEER_FEATURES_H
#define XDP_STEER_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "model/kernel_features.h"
#include "util/why.h"

/*
 * Runs every probe of STEER_KERNEL_FEATURES into r[STEER_KF_COUNT]: 1 yes,
 * 0 no, a negative errno when it could not tell (-EPERM: not root). Loads
 * a few tiny programs and makes one cpumap entry on this CPU (its kthread
 * is the one whose name is read), attached nowhere and freed before it
 * returns. *kthread_by_release (when not NULL) is set when kthread_names
 * was taken from the kernel's release: the probe's kthread had a name of
 * 15 bytes or fewer (a map id below 100), which no kernel cuts.
 */
void features_kernel(int r[STEER_KF_COUNT], bool *kthread_by_release);

/*
 * What this kernel lacks of what attach needs, as "a (Linux 5.19), b
 * (Linux 5.14)" into buf, from r as features_kernel() fills it: the
 * number of features missing (0: none; a probe that could not tell counts
 * as present, so an unprivileged check refuses nothing). 'buf' may be NULL
 * when 'len' is 0: the count alone.
 */
int features_lacking(const int r[STEER_KF_COUNT], char *buf, size_t len);

/* The Linux release xdp-steer needs: the newest 'since' of the
 * features attach needs ("5.19"). */
const char *features_kernel_min(void);

/*
 * Whether xdp_steer can run under libxdp's dispatcher here, next to other
 * XDP programs, as `attach` would find out: loads libxdp's own dispatcher
 * object (not attached anywhere) and an extension program that changes
 * packet data as xdp_steer does into its first slot, links it, and frees
 * both. 1: yes; 0: no, with why in 'why' (the kernel refuses extension
 * programs, or refuses one that changes packet data in this libxdp's
 * dispatcher, or libxdp's dispatcher object is missing, or
 * LIBXDP_SKIP_DISPATCHER is set); a negative errno when it could not tell
 * (-EPERM: not root), also said in 'why'.
 */
int features_dispatcher(struct why *why);

/* Whether the kernel takes XDP programs that handle multi-buffer frames
 * (BPF_F_XDP_HAS_FRAGS, 5.18 and later): 1, 0, or a negative errno
 * (-EPERM: not root). */
int features_xdp_frags(void);

/* Whether sockets tell their network namespace's cookie
 * (SO_NETNS_COOKIE, 5.14 and later): 1 with it in *cookie, 0, or a
 * negative errno. Needs no privilege. */
int features_netns_cookie(__u64 *cookie);

/* The file libxdp was loaded from, links resolved
 * ("/usr/lib/x86_64-linux-gnu/libxdp.so.1.3.0"): libxdp has no call that
 * tells its version, and the file's name carries its ABI version. 0, or
 * a negative errno (libxdp linked in statically). */
int features_libxdp_file(char *buf, size_t len);

#endif /* XDP_STEER_FEATURES_H */
