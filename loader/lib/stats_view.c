// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A worker's account, from one sample of the counters (steer.h). Pure: the
 * printers and their unit tests share it. */
#include <string.h>

#include "lib/steer.h"

bool steer_worker_view(const struct steer_sample *s, int cpu,
		       struct steer_worker_view *v)
{
	__u64 local = 0, any = 0;
	const __u64 *f;
	size_t i;

	memset(v, 0, sizeof(*v));
	v->cpu = cpu;
	if (cpu < 0 || cpu >= STEER_MAX_CPUS)
		return false;
	/* cpu_stats counts what each receiving CPU sent toward a CPU,
	 * passed on the spot when that CPU is itself: every local pass is
	 * counted on that CPU both there and in passed_local, so the
	 * difference is what was queued. Read after passed_local, cpu_stats
	 * can only hold more. */
	if (cpu < s->ncpus) {
		local = s->rx[cpu].passed_local;
		v->delivered = s->deq[cpu].packets;
		v->delivered_bytes = s->deq[cpu].bytes;
		if (s->traced)
			v->kthread = s->kthread[cpu];
	}
	v->sent = s->queued[cpu].packets > local ?
		  s->queued[cpu].packets - local : 0;
	v->load = balance_cost(s->queued[cpu].packets, s->queued[cpu].bytes);
	if (s->traced) {
		v->ring = s->ring[cpu];
		v->in_flight = (__s64)(v->sent - v->delivered -
				       v->ring.ring_full_drops);
	}
	any = v->sent | v->delivered | s->queued[cpu].packets;
	f = (const __u64 *)&v->ring;
	for (i = 0; i < sizeof(v->ring) / sizeof(*f); i++)
		any |= f[i];
	f = (const __u64 *)&v->kthread;
	for (i = 0; i < sizeof(v->kthread) / sizeof(*f); i++)
		any |= f[i];
	return any != 0;
}
