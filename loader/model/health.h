/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * health.h - the warnings of `xdp-steer status`, decided from plain data.
 * Pure: the caller reads the maps and the system (online CPUs, the RX
 * interrupts' CPUs, driver, MTU and features), so unit tests can state a
 * machine ("ixgbe, MTU 9000, CPUs 2-3 offline") without having one.
 */
#ifndef XDP_STEER_HEALTH_H
#define XDP_STEER_HEALTH_H

#include <stdbool.h>
#include <linux/types.h>

#include "model/cpuset.h"

/* What the system says about an interface (kernel/netdev.c reads it). */
struct netdev_info {
	char driver[32];	/* "ixgbe", "veth", ... */
	char bus_info[32];	/* "0000:01:00.0" for a PCI NIC, else "" */
	int mtu;
	bool lro;
	bool ntuple;		/* ntuple filters on (on ixgbe: ATR off) */
	bool rxvlan;		/* rx-vlan-offload on: the NIC strips the
				 * outer VLAN tag before XDP sees the frame */
	bool features_known;	/* lro and ntuple could be read */
};

/* ixgbe refuses XDP above a 3 KiB frame (its XDP receive buffer, minus
 * Ethernet header, FCS and one VLAN tag). */
#define IXGBE_XDP_MAX_MTU	3050
/* igb takes a frame of MTU + 26 bytes (Ethernet header, FCS, two VLAN
 * tags) into one RX buffer for XDP: 3072 bytes when the MTU was above 1510
 * as XDP came, else 1536 (so with XDP on, the MTU cannot be raised past
 * 1510). Measured on Debian's 6.1 in QEMU: 3046 attaches, 3047 is refused. */
#define IGB_XDP_MAX_MTU		3046
/* ixgbe gives each possible CPU an XDP TX ring, from at most 64, and
 * refuses native XDP with ENOMEM when more CPUs are possible (nr_cpu_ids)
 * than it has rings for: 64 before Linux 5.18, 128 since (two CPUs to a
 * ring, under a lock). */
#define IXGBE_XDP_QS	64

/* The most possible CPUs ixgbe takes native XDP with, on the kernel
 * 'release' (uname -r: "5.10.0-33-amd64"); the lower bound when it cannot
 * be read. */
int ixgbe_xdp_max_cpus(const char *release);

/* What the warnings depend on. A pointer left NULL means "could not be
 * read": its warnings are not decided rather than guessed. */
struct health_input {
	const char *ifname;
	bool if_exists;		/* the interface is in this namespace */
	bool attached;		/* an xdp_steer program is on it */
	bool uses_pins;		/* ... and it uses the pinned maps */
	int nsteer;		/* xdp_steer programs in libxdp's dispatcher */
	__u32 table_size;	/* active slot; 0: no policy applied */
	__u32 queue_size;	/* active slot's cpumap ring, frames */
	__u32 loader_flags;	/* active slot's STEER_LF_* */
	const __u32 *buckets;	/* STEER_CPU_IDS counts: table buckets per CPU */
	const struct cpu_set *online;
	const struct cpu_set *irq;	/* CPUs taking ifname's RX interrupts */
	const struct netdev_info *netdev;
	int possible_cpus;		/* nr_cpu_ids; 0: unknown */
	const char *release;		/* uname -r; NULL: unknown */
	int idle_entries;	/* cpumap entries the policy in force does
				 * not need and no bucket drains from */
	/* Workers whose cpumap kthread (of either bank) may run on other
	 * CPUs than its own (kernel/kthreads.h). */
	const struct cpu_set *misplaced;
	__u32 slot_flags;	/* active slot's STEER_F_*: its hash.key */
	/* The NIC's NUMA node (< 0: none) and its CPUs (NULL: unknown):
	 * workers off it are warned of, on a machine of more nodes. */
	int nic_node;
	const struct cpu_set *nic_node_cpus;
	/* Online CPUs with ids of STEER_CPU_IDS or more, which no policy
	 * may name (cpuset_count_from()). */
	__u32 online_beyond;
	/* Receiving CPUs that found every one of the interface's
	 * 'rx_slots' receiver slots taken (struct steer_rx_pool),
	 * ascending. */
	const __u32 *rx_no_slot;
	size_t nrx_no_slot;
	__u32 rx_slots;
};

/* hash.key vlan on a NIC that takes the outer tag off before XDP: said by
 * status and by attach and apply (the interface's name in the command). */
#define HEALTH_RXVLAN_MSG \
	"hash.key is vlan, but rx-vlan-offload is on: the NIC takes the outer VLAN tag off before XDP sees the frame, so frames hash on the tags left in them, or as l4 without one; 'ethtool -K %s rxvlan off'"

/* Room for every warning health_check() can give at once, with spare. */
#define HEALTH_MAX_WARN	16

/* The longest list of CPUs a warning gives, NUL included: past it the
 * list ends with how many it left out (model/cpulist.h). */
#define HEALTH_CPULIST_MAX	256

struct health {
	char *msg[HEALTH_MAX_WARN];	/* one sentence each, no newline, of
					 * any length; health_free() frees */
	int n;
	int dropped;			/* warnings that did not fit, or
					 * found no memory */
};

/* Fills 'h' with the warnings 'in' calls for, each saying what to do
 * next. 'h' is zeroed, or holds an earlier check's warnings, which it
 * frees first. Returns 0, -EINVAL without ifname or buckets, or -ENOSPC
 * when some did not fit. */
int health_check(const struct health_input *in, struct health *h);

/* Frees the warnings and empties the list. */
void health_free(struct health *h);

#endif /* XDP_STEER_HEALTH_H */
