// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * race.bpf.c - the program tier's stand-in for a receiver slot's old CPU
 * coming back in the middle of a takeover (bpf/drain.h, rx_slot_take()):
 * run right before rx_slot_idle(), after the taker's swap of the slot's
 * CPU, it renews the slot's lease as the old CPU's first frame of a tick
 * would (rx_slot_hold()). tests/prog/drain.c attaches it to the loaded
 * xdp_steer, its steer_rx_lease the program's own.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "xdp_steer.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct steer_rx_lease);
	__uint(max_entries, STEER_RX_SLOTS);
} steer_rx_lease SEC(".maps");

/* How often it ran: the case checks that the race was run. */
__u32 renewed;

SEC("fentry/rx_slot_idle")
int BPF_PROG(steer_race_renew, __u32 s, __u32 now, __u32 lease)
{
	struct steer_rx_lease *l;
	__u32 key = s;

	l = bpf_map_lookup_elem(&steer_rx_lease, &key);
	if (l)
		__sync_lock_test_and_set(&l->tick, now ? now : 1);
	__sync_fetch_and_add(&renewed, 1);
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
