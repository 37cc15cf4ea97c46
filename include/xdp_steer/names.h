/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * xdp_steer/names.h - names defined once, used by BPF (as identifiers) and
 * userspace: the programs and the pin root.
 */
#ifndef XDP_STEER_INCLUDE_NAMES_H
#define XDP_STEER_INCLUDE_NAMES_H

#define STEER_STR_(x)		#x
#define STEER_STR(x)		STEER_STR_(x)

#define STEER_PROG_MAIN		xdp_steer
/* The cpumap programs of the two banks (STEER_BANKS): the same code under
 * two names, so bpftool and status tell an entry's bank by its program. */
#define STEER_PROG_WORKER	steer_worker
#define STEER_PROG_WORKER_B	steer_worker_b

/* Maps of interface IFNAME in the initial network namespace are pinned in
 * STEER_PIN_ROOT "/" IFNAME "/"; other namespaces get a directory of their
 * own under it (loader/kernel/pins.h). */
#define STEER_PIN_ROOT		"/sys/fs/bpf/xdp-steer"

#endif /* XDP_STEER_INCLUDE_NAMES_H */
