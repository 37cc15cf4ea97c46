/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * health.h - the warnings of `xdp-steer status`, decided from plain data.
 * Pure: the caller reads the maps and the system (online CPUs, the RX
 * interrupts' CPUs, driver and MTU), so unit tests can state a machine
 * ("ixgbe, MTU 9000, CPUs 2-3 offline") without having one.
 */
#ifndef XDP_STEER_HEALTH_H
#define XDP_STEER_HEALTH_H

#include <stdbool.h>
#include <linux/types.h>

#include "cpuset.h"
#include "netdev.h"

/* What the warnings depend on. A pointer left NULL means "could not be
 * read": its warnings are not decided rather than guessed. */
struct health_input {
	const char *ifname;
	bool if_exists;		/* the interface is in this namespace */
	bool attached;		/* an xdp_steer program is on it */
	bool uses_pins;		/* ... and it uses the pinned maps */
	__u32 table_size;	/* active slot; 0: no policy applied */
	__u32 queue_size;	/* active slot's cpumap ring, frames */
	const __u32 *buckets;	/* STEER_MAX_CPUS counts: table buckets per CPU */
	const struct cpu_set *online;
	const struct cpu_set *irq;	/* CPUs taking ifname's RX interrupts */
	const struct netdev_info *netdev;
};

/* Room for every warning health_check() can give at once, with spare. */
#define HEALTH_MAX_WARN	16

struct health {
	char msg[HEALTH_MAX_WARN][256];	/* one sentence each, no newline */
	int n;
	int dropped;			/* warnings that did not fit */
};

/* Fills 'h' with the warnings 'in' calls for, each saying what to do
 * next. Returns 0, -EINVAL without ifname or buckets, or -ENOSPC when
 * some did not fit. */
int health_check(const struct health_input *in, struct health *h);

#endif /* XDP_STEER_HEALTH_H */
