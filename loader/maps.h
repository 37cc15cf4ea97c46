/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * maps.h - the pinned maps of one interface, opened by path, so the loader
 * works the same whether it or `xdp-loader load -p` loaded the program.
 */
#ifndef XDP_STEER_MAPS_H
#define XDP_STEER_MAPS_H

#include <limits.h>
#include <linux/types.h>

struct steer_maps {
	char dir[PATH_MAX];	/* STEER_PIN_ROOT/<ifname> */
	int cpumap;
	int ctl;
	int slots;
	int table;
	int flow_rules;
	int src_prefix;
	int dst_prefix;
	int rule_cpus;
	int stats;
	int cpu_stats;
	int worker_stats;
};

/* Pin directory of an interface into buf. */
int maps_pin_dir(const char *ifname, char *buf, size_t size);

/* Opens every pinned map of 'ifname'; -ENOENT when it is not attached. */
int maps_open(const char *ifname, struct steer_maps *m);
void maps_close(struct steer_maps *m);

/* Sums a per-CPU array entry of 'value_size' bytes made of __u64 fields
 * into 'sum'; 'per_cpu' (optional, ncpus * value_size) gets the values. */
int maps_percpu_sum(int fd, __u32 key, size_t value_size, void *sum,
		    void *per_cpu);

/* Removes the pins of 'ifname' and its directory. */
int maps_unpin_all(const char *ifname);

#endif /* XDP_STEER_MAPS_H */
