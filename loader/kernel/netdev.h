/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * netdev.h - what the system says about an interface: which CPUs take its
 * RX interrupts, its driver, MTU and features. Read for status warnings
 * and to keep a default policy's workers off the collector CPUs.
 */
#ifndef XDP_STEER_NETDEV_H
#define XDP_STEER_NETDEV_H

#include "model/cpuset.h"
#include "model/health.h"

/* Driver, bus, MTU and features of 'ifname' (ethtool ioctls). */
int netdev_info(const char *ifname, struct netdev_info *info);

/* The NIC's receive channels in use (ETHTOOL_GCHANNELS: rx + combined),
 * or a negative errno (-EOPNOTSUPP: the driver does not say). */
int netdev_rx_channels(const char *ifname);

/*
 * CPUs the interface's RX interrupts are affine to, from /proc/interrupts
 * and /proc/irq/N/effective_affinity_list (smp_affinity_list when the
 * kernel has no effective one). An interrupt is an RX interrupt of
 * 'ifname' when one of the names it carries matches how 'info->driver'
 * names its RX vectors (a table in netdev.c: ixgbe's "eth2-TxRx-0", i40e's
 * "i40e-eth2-TxRx-0", mlx5's "mlx5_comp0@pci:0000:01:00.0", ...); a
 * driver's misc and TX-only vectors are not. An unknown driver falls back
 * to "<ifname>-TxRx-N", "<ifname>-rx-N" and "<ifname>-N". 'info' NULL:
 * that fallback. 'proc' is the procfs root (tests pass a fake tree), NULL
 * for /proc. The empty set for a device without interrupts (veth).
 */
int netdev_irq_cpus(const char *ifname, const struct netdev_info *info,
		    const char *proc, struct cpu_set *cpus);

#endif /* XDP_STEER_NETDEV_H */
