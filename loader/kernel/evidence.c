// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The drain's evidence, read by the loader (evidence.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/clock.h"
#include "kernel/evidence.h"
#include "kernel/possible.h"
#include "util/mono.h"

/* Each possible CPU's napi_polls and napi_poll_tick (steer_stats). */
static int read_polls(const struct steer_maps *m, struct evidence *e)
{
	int ncpus = possible_span(), c, err;
	struct steer_stats *v;

	if (ncpus < 0)
		return ncpus;
	v = calloc(ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = maps_percpu_read(m->steer_stats, 0, sizeof(*v), v);
	for (c = 0; !err && c < ncpus && c < STEER_RX_CPU_IDS; c++) {
		e->polls[c] = (__u32)v[c].napi_polls;
		e->poll_tick[c] = (__u32)v[c].napi_poll_tick;
	}
	free(v);
	return err;
}

/* Which CPU holds each receiver slot handed out (steer_rx_cpu), into
 * e->rx_slot by CPU id. A slot claimed after this read names no CPU here:
 * a record stamped under it is judged as waiting, which it may be. */
static int read_slots(const struct steer_maps *m, struct evidence *e)
{
	struct steer_rx_pool pool;
	__u32 zero = 0, s, n, *cpu;
	int err;

	if (bpf_map_lookup_elem(m->steer_rx_pool, &zero, &pool))
		return -errno;
	n = steer_rx_pool_used(&pool);
	if (!n)
		return 0;
	cpu = calloc(n, sizeof(*cpu));
	if (!cpu)
		return -ENOMEM;
	err = maps_read_array(m->steer_rx_cpu, 0, n, sizeof(*cpu), cpu);
	for (s = 0; !err && s < n; s++)
		if (cpu[s] && cpu[s] - 1 < STEER_RX_CPU_IDS)
			e->rx_slot[cpu[s] - 1] = (__u16)(s + 1);
	free(cpu);
	return err;
}

/* Every target's ring counts: the enqueue counts first (struct
 * steer_drain_facts says why), each map in batches (2 x targets lookups
 * one by one, twice a balancer round, were its largest read). The maps
 * hold 2S targets (bank * S + cpu); the loader's arrays bank *
 * STEER_CPU_IDS + cpu (maps_target_in()). */
static int read_facts(const struct steer_maps *m, struct evidence *e)
{
	__u32 n = 2 * m->span, t, kt;
	struct steer_wenq *we = calloc(n ? n : 1, sizeof(*we));
	struct steer_wdone *wd = calloc(n ? n : 1, sizeof(*wd));
	int err;

	err = !we || !wd ? -ENOMEM :
	      maps_read_array(m->steer_wenq, 0, n, sizeof(*we), we);
	if (!err)
		err = maps_read_array(m->steer_wdone, 0, n, sizeof(*wd), wd);
	for (kt = 0; !err && kt < n; kt++) {
		t = maps_target_in(m, kt);
		if (t >= STEER_CPU_TARGETS)
			continue;
		e->facts[t].enq = we[kt].frames;
		e->facts[t].done = wd[kt].frames;
		e->facts[t].last_tick = wd[kt].last_tick;
		e->facts[t].last_ns = wd[kt].last_ns;
		memcpy(e->epoch_at[t], wd[kt].epoch_at, sizeof(wd[kt].epoch_at));
	}
	free(we);
	free(wd);
	return err;
}

int evidence_read(const struct steer_maps *m, struct evidence *e)
{
	int err;

	memset(e, 0, sizeof(*e));
	e->m = m;
	/* The polls first: a poll counted as ended had flushed its frames
	 * into their rings, and the enqueue counts read after hold them. */
	err = read_slots(m, e);
	if (!err)
		err = read_polls(m, e);
	if (!err)
		err = read_facts(m, e);
	if (!err)
		err = clock_jiffies(&e->now);
	if (err)
		return err;
	e->now_ns = mono_ns();
	return 0;
}

int evidence_judge(const struct evidence *e, __u32 rx,
		   const struct steer_bucket *b, __u32 timeout,
		   __u32 gro_units)
{
	struct steer_drain_facts f;
	struct steer_deq d = {};
	__u32 target, idx, base = 0;
	int found;

	if (rx >= STEER_RX_CPU_IDS)
		return STEER_DRAIN_WAIT;
	/* The fast path: a poll ended since its last frame (drain.h). */
	if (b->target & STEER_TARGET_LOCAL)
		return steer_polled_since(e->polls[rx], e->poll_tick[rx], b,
					  gro_units) ?
		       STEER_DRAIN_DONE : STEER_DRAIN_WAIT;
	target = maps_target_in(e->m, b->target);
	if (target >= STEER_CPU_TARGETS || !e->rx_slot[rx])
		return STEER_DRAIN_WAIT;
	if (e->rx_slot[rx] > e->m->slot_rows)
		return STEER_DRAIN_WAIT;
	idx = b->target * e->m->slot_rows + e->rx_slot[rx] - 1;
	/* Marks read after the facts only make them later: still facts. */
	if (bpf_map_lookup_elem(e->m->steer_deq, &idx, &d))
		memset(&d, 0, sizeof(d));
	f = e->facts[target];
	found = steer_mark_base(d.h, b->seq, &base);
	if (found)
		f.epoch_next = e->epoch_at[target][(base / STEER_EPOCH + 1) & 3];
	/* Signed, as polls read before the record may be behind it. */
	return steer_drain_verdict(found, base,
				   (__s32)(e->polls[rx] - b->poll) > 0, &f,
				   e->now, e->now_ns, timeout, gro_units);
}

int evidence_ring_delivered(const struct evidence *e, __u32 target,
			    __u32 upto, __u32 gro_units)
{
	struct steer_drain_facts f;

	if (target >= STEER_CPU_TARGETS)
		return 0;
	f = e->facts[target];
	f.epoch_next = e->epoch_at[target][(upto / STEER_EPOCH + 1) & 3];
	return steer_ring_delivered(upto, &f, e->now, e->now_ns, gro_units);
}

void evidence_stuck(const struct evidence *e, __u32 bank, __u32 units,
		    unsigned char *stuck)
{
	const struct steer_drain_facts *f;
	__u32 cpu;

	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++) {
		f = &e->facts[(bank ? STEER_CPU_IDS : 0) + cpu];
		stuck[cpu] = (__s32)(f->enq - f->done) > 0 &&
			     e->now - f->last_tick >= units;
	}
}
