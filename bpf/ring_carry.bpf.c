// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ring_carry.bpf.c - the loader's atomic adds into a live ring_stats
 * (include/xdp_steer/maps.h, STEER_TRACE_MAPS): when an upgrade's incoming
 * tracepoint programs take over from an older set whose ring_stats was
 * per receiving CPU, the older set's sums are added to the new map's
 * entries while the new programs add to them too (loader/kernel/trace.c).
 * A map update from userspace would rewrite an entry whole and could
 * undo their adds made meanwhile. The loader runs it with
 * BPF_PROG_TEST_RUN on the pinned map. A program apart from
 * xdp_steer.bpf.o, so xdp-loader never sees it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct steer_ring_stats);
	__uint(max_entries, STEER_MAX_CPUS);
} ring_stats SEC(".maps");

SEC("syscall")
int steer_ring_carry(struct steer_ring_carry_args *a)
{
	struct steer_ring_stats *r;
	__u32 cpu = a->cpu;

	r = bpf_map_lookup_elem(&ring_stats, &cpu);
	if (!r)
		return 1;
	__sync_fetch_and_add(&r->enqueued, a->add.enqueued);
	__sync_fetch_and_add(&r->ring_full_drops, a->add.ring_full_drops);
	__sync_fetch_and_add(&r->off_cpu, a->add.off_cpu);
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
