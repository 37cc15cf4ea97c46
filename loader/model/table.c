// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The indirection table, built from the workers' weights: see table.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xdp_steer/sizes.h"
#include "model/table.h"

static int is_pow2(__u32 n)
{
	return n && !(n & (n - 1));
}

int table_quotas(__u32 size, const struct table_cpu *cpus, int ncpus,
		 __u32 *quota)
{
	__u64 total = 0, given = 0;
	__u64 *rem;
	int i, j, best;

	if (ncpus <= 0 || !is_pow2(size))
		return -EINVAL;
	for (i = 0; i < ncpus; i++) {
		if (!cpus[i].weight || cpus[i].cpu >= STEER_CPU_IDS)
			return -EINVAL;
		total += cpus[i].weight;
	}
	rem = calloc(ncpus, sizeof(*rem));
	if (!rem)
		return -ENOMEM;
	for (i = 0; i < ncpus; i++) {
		quota[i] = (__u64)size * cpus[i].weight / total;
		rem[i] = (__u64)size * cpus[i].weight % total;
		given += quota[i];
	}
	/* Hand the leftover buckets to the largest remainders; ties go to the
	 * CPU listed first, so the same policy always gives the same quotas. */
	for (; given < size; given++) {
		best = -1;
		for (j = 0; j < ncpus; j++)
			if (best < 0 || rem[j] > rem[best])
				best = j;
		quota[best]++;
		rem[best] = 0;
	}
	free(rem);
	return 0;
}

int table_starved(__u32 size, const struct table_cpu *cpus, int ncpus,
		  bool *starved, __u32 *need)
{
	__u32 *quota = calloc(ncpus > 0 ? ncpus : 1, sizeof(*quota));
	int i, n = 0, err;

	if (!quota)
		return -ENOMEM;
	*need = 0;
	err = table_quotas(size, cpus, ncpus, quota);
	for (i = 0; !err && i < ncpus; i++) {
		starved[i] = !quota[i];
		n += starved[i];
	}
	/* Quotas only grow with the size: the first that starves none. */
	for (size *= 2; !err && n && !*need && size <= STEER_TABLE_MAX;
	     size *= 2) {
		err = table_quotas(size, cpus, ncpus, quota);
		for (i = 0; !err && i < ncpus && quota[i]; i++)
			;
		if (!err && i == ncpus)
			*need = size;
	}
	free(quota);
	return err ? err : n;
}

/* Index in cpus[] of 'cpu', or -1. */
static int cpu_index(const struct table_cpu *cpus, int ncpus, __u32 cpu)
{
	int i;

	for (i = 0; i < ncpus; i++)
		if (cpus[i].cpu == cpu)
			return i;
	return -1;
}

/* The contract is table.h's; in three passes: the quotas (and no CPU
 * listed twice), the buckets that keep their old CPU up to its quota,
 * then the rest refilled from the CPU furthest below its quota.
 * STEER_CPU_IDS marks a bucket to refill: no worker has that id.
 * 'table' is written only once the input is known good. */
int table_build(__u32 *table, __u32 size, const struct table_cpu *cpus,
		int ncpus, const __u32 *old)
{
	__u32 *quota, *have;
	int i, j, best, err, moved = 0;
	__u32 b;

	quota = calloc(ncpus > 0 ? ncpus : 1, sizeof(*quota));
	have = calloc(ncpus > 0 ? ncpus : 1, sizeof(*have));
	if (!quota || !have) {
		err = -ENOMEM;
		goto out_free;
	}
	err = table_quotas(size, cpus, ncpus, quota);
	if (err)
		goto out_free;
	for (i = 0; i < ncpus; i++)
		for (j = 0; j < i; j++)
			if (cpus[i].cpu == cpus[j].cpu) {
				err = -EINVAL;
				goto out_free;
			}

	/* Keep what may stay; STEER_CPU_IDS marks a bucket to refill. */
	for (b = 0; b < size; b++) {
		i = old ? cpu_index(cpus, ncpus, old[b]) : -1;
		if (i >= 0 && have[i] < quota[i]) {
			table[b] = old[b];
			have[i]++;
		} else {
			table[b] = STEER_CPU_IDS;
		}
	}
	/* Refill with the CPU furthest below its quota: a fresh table comes
	 * out interleaved, a changed one gives each newcomer buckets from
	 * everywhere in the hash space. */
	for (b = 0; b < size; b++) {
		if (table[b] != STEER_CPU_IDS)
			continue;
		best = -1;
		for (j = 0; j < ncpus; j++) {
			if (have[j] >= quota[j])
				continue;
			if (best < 0 || (__u64)(quota[j] - have[j]) * quota[best] >
					(__u64)(quota[best] - have[best]) * quota[j])
				best = j;
		}
		table[b] = cpus[best].cpu;
		have[best]++;
		moved++;
	}
	if (old) {
		/* A refilled bucket may have got its old CPU back. */
		moved = 0;
		for (b = 0; b < size; b++)
			moved += table[b] != old[b];
	}
	err = moved;
out_free:
	free(quota);
	free(have);
	return err;
}
