// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A worker's account, from one sample of the counters (steer.h). Pure: the
 * printers and their unit tests share it. */
#include <string.h>

#include "lib/steer.h"

bool steer_worker_view(const struct steer_sample *s, int cpu,
		       struct steer_worker_view *v)
{
	__u64 local = 0, local_bytes = 0, any = 0;
	const __u64 *f;
	size_t i;

	memset(v, 0, sizeof(*v));
	v->cpu = cpu;
	if (cpu < 0 || cpu >= STEER_CPU_IDS)
		return false;
	/* steer_queued counts what the receiving CPUs queued to a
	 * CPU; what a CPU passed on the spot, itself its target, is in its
	 * own passed_local and passed_local_bytes. Sent is one counter, so
	 * it never goes back from one read to the next; the load adds
	 * both. */
	if (cpu < s->ncpus) {
		local = s->rx[cpu].passed_local;
		local_bytes = s->rx[cpu].passed_local_bytes;
		v->delivered = s->deq[cpu].packets;
		v->delivered_bytes = s->deq[cpu].bytes;
		if (s->traced)
			v->kthread = s->kthread[cpu];
	}
	v->sent = s->queued[cpu].packets;
	v->toward = s->queued[cpu].packets + local;
	v->toward_bytes = s->queued[cpu].bytes + local_bytes;
	v->load = balance_cost(v->toward, v->toward_bytes);
	if (s->traced) {
		v->ring = s->ring[cpu];
		v->in_flight = (__s64)(v->sent - v->delivered -
				       v->ring.ring_full_drops);
	}
	any = v->sent | v->delivered | local;
	f = (const __u64 *)&v->ring;
	for (i = 0; i < sizeof(v->ring) / sizeof(*f); i++)
		any |= f[i];
	f = (const __u64 *)&v->kthread;
	for (i = 0; i < sizeof(v->kthread) / sizeof(*f); i++)
		any |= f[i];
	return any != 0;
}
