/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * numa.h - NUMA nodes and their CPUs, and the default workers they choose:
 * with no 'cpus' in a policy, the CPUs of the NIC's node work (those that
 * do not collect), so no frame crosses sockets on its way to the stack.
 * Pure: kernel/numa.c reads the layout from sysfs, `check --nodes` from
 * its argument, and unit tests state one ("0:0-15,1:16-31").
 */
#ifndef XDP_STEER_NUMA_H
#define XDP_STEER_NUMA_H

#include "model/cpuset.h"
#include "util/why.h"

/* Nodes a layout holds: more than any machine Linux runs on has sockets
 * with CPUs (a node id itself may be up to NUMA_MAX_NODE_ID). */
#define NUMA_MAX_NODES		64
#define NUMA_MAX_NODE_ID	4095

struct numa_node {
	int id;
	struct cpu_set cpus;	/* cpus.beyond: its CPUs past STEER_CPU_IDS */
};

struct numa_layout {
	int n;
	struct numa_node node[NUMA_MAX_NODES];
};

/* "0:0-15,1:16-31" or "0:0-7,16-23,1:8-15,24-31": each NODE: starts a
 * node, the CPU list after it (the kernel's list syntax) up to the next
 * NODE: is its CPUs. A node may have no CPU ("2:"). Returns 0, -EINVAL
 * (syntax), -EEXIST (a node or a CPU twice) or -E2BIG (more than
 * NUMA_MAX_NODES nodes, or an id past NUMA_MAX_NODE_ID); 'why' says which. */
int numa_layout_parse(struct numa_layout *l, const char *text, struct why *why);

/* Adds node 'id' with the CPUs of 'list'; for kernel/numa.c. Same
 * returns as numa_layout_parse(). */
int numa_layout_add(struct numa_layout *l, int id, const char *list);

/* The CPUs of node 'id', NULL when the layout has no such node. */
const struct cpu_set *numa_node_cpus(const struct numa_layout *l, int id);

/* The ids of the nodes that hold a CPU of 'cpus', as a list ("0,1,3"),
 * in buf; the count of those nodes is returned. CPUs of no node count
 * for nothing. */
int numa_nodes_of(const struct numa_layout *l, const struct cpu_set *cpus,
		  char *buf, size_t len);

/* How numa_default_workers() chose. */
enum numa_default {
	/* The online CPUs but the collectors: the NIC has no node, the
	 * layout is unknown, or the node has every online CPU (one node). */
	NUMA_DEFAULT_ONLINE,
	/* The NIC's node's online CPUs but the collectors. */
	NUMA_DEFAULT_NODE,
	/* The NIC's node has online CPUs, but each collects: the online
	 * CPUs but the collectors, as without a node (cross-node). */
	NUMA_DEFAULT_NODE_COLLECTS,
	/* The NIC's node has no online CPU a cpumap can address (a
	 * memory-only node, or its CPUs past STEER_CPU_IDS): the online
	 * CPUs but the collectors, as without a node. */
	NUMA_DEFAULT_NODE_EMPTY,
	/* Every online CPU collects: every online CPU works (collecting
	 * too), whatever the node. */
	NUMA_DEFAULT_ALL,
};

/* The default workers into 'out': of 'online' (the candidates), those of
 * node 'nic_node' of 'l' (nic_node < 0 or l NULL: no node) that are not in
 * 'collectors' (NULL or empty: none known); when the node has none of
 * those, the online CPUs but the collectors; when that is empty, every
 * online CPU. Returns which of these it is. */
enum numa_default numa_default_workers(const struct cpu_set *online,
				       const struct numa_layout *l,
				       int nic_node,
				       const struct cpu_set *collectors,
				       struct cpu_set *out);

#endif /* XDP_STEER_NUMA_H */
