/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * map_numa.h - the per-slot maps on the NIC's NUMA node. They are plain
 * arrays (one copy, where per-CPU maps had one per CPU on its own node),
 * read and written by the CPUs that take the NIC's interrupts, which
 * serve its queues from its node: so they are made there.
 */
#ifndef XDP_STEER_MAP_NUMA_H
#define XDP_STEER_MAP_NUMA_H

struct bpf_object;

/* The per-slot maps, by name (include/xdp_steer/maps.h). */
#define MAP_NUMA_MAPS(X)						\
	X(steer_buckets) X(steer_load) X(steer_seq) X(steer_deq)	\
	X(steer_queued)

/* For each per-slot map of 'obj' (not loaded yet): a map pinned in
 * 'pin_dir' (NULL: none) keeps what it was made with (BPF_F_NUMA_NODE
 * or not: libbpf reuses only a map of the same flags); else, with 'node'
 * >= 0, it is made on that node; node < 0: no preference. Returns 0 or a
 * negative errno. */
int map_numa_apply(struct bpf_object *obj, const char *pin_dir, int node);

#endif /* XDP_STEER_MAP_NUMA_H */
