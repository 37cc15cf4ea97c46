// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pool_mark.bpf.c - the loader's single stores into steer_rx_pool. First:
 * steer_rx_pool.overflow_tick set to the datapath's now, from userspace: an upgrade in place that rebuilds steer_stats
 * marks "some CPU may have queued lately" around its swap
 * (loader/kernel/migrate.c). One 32-bit store: a map update from
 * userspace rewrites the whole value, and could undo a receiving CPU's
 * claim (its atomic add on 'claimed') made meanwhile. The loader runs it
 * with BPF_PROG_TEST_RUN on the pinned pool. A program apart from
 * xdp_steer.bpf.o, so xdp-loader never sees it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct steer_rx_pool);
	__uint(max_entries, 1);
} steer_rx_pool SEC(".maps");

SEC("syscall")
int steer_pool_mark(void *ctx)
{
	struct steer_rx_pool *pool;
	__u32 zero = 0, now = (__u32)bpf_jiffies64();

	pool = bpf_map_lookup_elem(&steer_rx_pool, &zero);
	if (pool)
		pool->overflow_tick = now ? now : 1;
	return 0;
}

/* steer_rx_pool.limit lowered to a->limit, one 32-bit store beside the
 * claims; a->claimed gets 'claimed' read after it by an atomic (a full
 * barrier): every slot a claim took before the store is below it, and
 * every claim after the store checks the new limit. The upgrade in
 * place lowers a pool of an older version's 256 slots to what the
 * per-slot maps it makes have rows for (loader/kernel/migrate_ways.c). */
SEC("syscall")
int steer_pool_limit(struct steer_pool_limit_args *a)
{
	struct steer_rx_pool *pool;
	__u32 zero = 0;

	pool = bpf_map_lookup_elem(&steer_rx_pool, &zero);
	if (!pool)
		return 1;
	pool->limit = a->limit;
	a->claimed = __sync_fetch_and_add(&pool->claimed, 0);
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
