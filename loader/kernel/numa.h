/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * numa.h - the machine's NUMA nodes and an interface's node, from sysfs:
 * to keep a default policy's workers on the NIC's node, and for status
 * to warn of workers off it.
 */
#ifndef XDP_STEER_KERNEL_NUMA_H
#define XDP_STEER_KERNEL_NUMA_H

#include "model/numa.h"

/* The online nodes (/sys/devices/system/node/online) and each one's CPUs
 * (nodeN/cpulist). 'sys' is the sysfs root (tests pass a fake tree), NULL
 * for /sys. Returns 0, -ENOENT on a kernel without NUMA, -E2BIG past
 * NUMA_MAX_NODES nodes, or another negative errno. */
int numa_read_layout(const char *sys, struct numa_layout *l);

/* The node of 'ifname''s device: the numa_node of /sys/class/net/IF/device,
 * or of the nearest device above it that has one (a virtio-net device's
 * is its PCI function's). sysfs shows the interfaces of the namespace
 * that mounted it, so one in another namespace (nsenter without a sysfs of
 * its own) is found by 'bus_info' (ethtool's: "0000:81:00.0", "virtio4";
 * NULL or "": none) under /sys/bus/{pci,virtio}/devices. Returns the node
 * (>= 0), -ENOENT when there is none (no device, as veth; numa_node -1: a
 * one-node machine, or firmware that does not say), or another negative
 * errno. */
int numa_netdev_node(const char *ifname, const char *bus_info,
		     const char *sys);

#endif /* XDP_STEER_KERNEL_NUMA_H */
