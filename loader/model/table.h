/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * table.h - the indirection table: which CPU each hash bucket goes to.
 * Pure code, shared by the loader, the tests and the benchmarks.
 */
#ifndef XDP_STEER_TABLE_H
#define XDP_STEER_TABLE_H

#include <stdbool.h>
#include <linux/types.h>

/* A worker CPU and its share of the buckets. */
struct table_cpu {
	__u32 cpu;
	__u32 weight;	/* > 0 */
};

/* Bucket count each CPU should own: weight-proportional, each within one
 * bucket of the exact share (largest remainder). quota[i] is for cpus[i]. */
int table_quotas(__u32 size, const struct table_cpu *cpus, int ncpus,
		 __u32 *quota);

/* How many of the CPUs get no bucket from a table of 'size' (their
 * weight's share rounds to none), each marked in starved[i] (ncpus
 * bools); *need is then the least power of two up to STEER_TABLE_MAX that
 * gives every CPU one, or 0 if none does. A negative errno for bad input. */
int table_starved(__u32 size, const struct table_cpu *cpus, int ncpus,
		  bool *starved, __u32 *need);

/*
 * Fills table[0..size) (size a power of two) with CPU ids in proportion to
 * the weights. With 'old' (the table now in force, same size), every bucket
 * whose CPU stays in the set and is not over its new quota keeps its CPU, so
 * only the buckets that must move do: adding or removing a CPU moves the
 * fewest flows possible. Returns the number of buckets whose CPU differs
 * from 'old' (all of them without it), or a negative errno.
 */
int table_build(__u32 *table, __u32 size, const struct table_cpu *cpus,
		int ncpus, const __u32 *old);

#endif /* XDP_STEER_TABLE_H */
