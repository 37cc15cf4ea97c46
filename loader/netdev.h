/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * netdev.h - what the system says about an interface: which CPUs take its
 * RX interrupts, its driver, MTU and LRO setting. Read for status warnings
 * and to keep a default policy's workers off the collector CPUs.
 */
#ifndef XDP_STEER_NETDEV_H
#define XDP_STEER_NETDEV_H

#include <stdbool.h>

#include "cpuset.h"

/* CPUs the interface's interrupts are affine to, from /proc/interrupts
 * and /proc/irq/N/effective_affinity_list; empty for virtual devices.
 * 'proc' is the procfs root (tests pass a fake tree), NULL for /proc. */
int netdev_irq_cpus(const char *ifname, const char *proc,
		    struct cpu_set *cpus);

struct netdev_info {
	char driver[32];	/* "ixgbe", "veth", ... */
	int mtu;
	bool lro;
};

int netdev_info(const char *ifname, struct netdev_info *info);

/* ixgbe refuses XDP above a 3 KiB frame (its XDP receive buffer, minus
 * Ethernet header, FCS and one VLAN tag). */
#define IXGBE_XDP_MAX_MTU	3050

#endif /* XDP_STEER_NETDEV_H */
