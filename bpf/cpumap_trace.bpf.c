// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cpumap_trace.bpf.c - what became of the frames xdp_steer handed to its
 * cpumaps, from the kernel's own tracepoints (include/trace/events/xdp.h):
 * how many entered each worker's ring, how many a full ring dropped
 * (bpf_redirect_map() had already returned XDP_REDIRECT for them), and what
 * each worker's kthread took off its ring. include/xdp_steer/trace.h says
 * when the loader attaches them and why.
 *
 * The drain's evidence comes from here too (bpf/drain.h): frames that
 * entered each ring (steer_wenq), what each worker's kthread reported
 * (steer_wdone), and when this CPU's NAPI polls end (steer_stats). Those
 * maps are the XDP program's own, which the loader hands this object.
 *
 * An object apart from xdp_steer.bpf.o: xdp-loader never sees it, and the
 * datapath pays nothing for it. Raw tracepoints, not tp_btf: they need no
 * kernel BTF (custom router kernels often go without it), and the
 * arguments read here are unchanged since 5.9 (xdp-steer needs 5.19).
 * Each program runs once per bulk of up to 8 frames (a flush to one ring,
 * a kthread batch), for every cpumap on the machine; one array lookup
 * tells ours from the others.
 *
 * The counters are per-CPU and plain: the enqueue tracepoint fires in the
 * receiving CPU's softirq, the kthread's with bottom halves off, so
 * neither nests on its CPU. steer_wenq is added to atomically, by every
 * CPU that queues to a ring; steer_wdone by the kthread of its entry
 * (its count atomically too: see report()).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "xdp_steer.h"
#include "map_def.h"
#include "salt.h"
#include "span.h"

/* Not pinned by libbpf: the loader pins them, and the links, itself, and
 * only once all of them are attached (kernel/trace.c). */
#define TRACE_BPF_MAP(...)	STEER_MAP_DEF(LIBBPF_PIN_NONE, __VA_ARGS__)
STEER_TRACE_MAPS(TRACE_BPF_MAP)
STEER_TRACE_SHARED_MAPS(TRACE_BPF_MAP)

/* The kernel's struct xdp_cpumap_stats (include/net/xdp.h), unchanged
 * since it appeared in 5.9. */
struct cpumap_stats {
	unsigned int redirect;
	unsigned int pass;
	unsigned int drop;
};

/* The bank (0 or 1) of 'map_id' when it is one of this interface's
 * cpumaps, else -1. */
static __always_inline int bank_of(__u32 map_id)
{
	const struct steer_cpumap_ids *ids;
	__u32 zero = 0;

	ids = bpf_map_lookup_elem(&cpumap_ids, &zero);
	if (!ids || !map_id)
		return -1;
	if (map_id == ids->id[0])
		return 0;
	return map_id == ids->id[1] ? 1 : -1;
}

/* trace_xdp_cpumap_enqueue(map_id, processed, drops, to_cpu), on the
 * receiving CPU as it flushes frames to one worker's ring. */
SEC("raw_tp/xdp_cpumap_enqueue")
int STEER_TP_ENQUEUE(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 processed = (__u32)ctx->args[1], drops = (__u32)ctx->args[2];
	__u32 cpu = (__u32)ctx->args[3], frames, target;
	struct steer_ring_stats *r;
	struct steer_wenq *e;
	int bank;

	STEER_SALT();
	bank = bank_of((__u32)ctx->args[0]);
	if (bank < 0 || cpu >= steer_span)
		return 0;
	/* Native XDP reports a flush: 'processed' counts all its frames,
	 * the dropped ones too. Generic (skb) mode reports one frame, as
	 * processed 1, drops 0 or as processed 0, drops 1. The larger of
	 * the two is the frames either way. */
	frames = processed > drops ? processed : drops;
	target = cpu + (bank ? steer_span : 0);
	e = bpf_map_lookup_elem(&steer_wenq, &target);
	if (e && frames > drops)
		__sync_fetch_and_add(&e->frames, frames - drops);
	/* Atomic: every CPU that queues to the worker adds here, once a
	 * flush, as to steer_wenq above. */
	r = bpf_map_lookup_elem(&ring_stats, &cpu);
	if (!r)
		return 0;
	if (frames > drops)
		__sync_fetch_and_add(&r->enqueued, frames - drops);
	if (drops)
		__sync_fetch_and_add(&r->ring_full_drops, drops);
	return 0;
}

/* The CPU of the cpumap entry whose kthread is running, from its name
 * (steer_cpumap_comm_cpu()). The tracepoint's arguments carry only the
 * map, not the entry, and no map lookup could tell the entry from the
 * running task without kernel BTF. -1 when the name is not one (a
 * kthread of ours has it always). */
static __always_inline int entry_cpu(void)
{
	char comm[16];

	if (bpf_get_current_comm(comm, sizeof(comm)))
		return -1;
	return steer_cpumap_comm_cpu(comm);
}

/* The entry's report of a batch of 'n' frames (struct steer_wdone): its
 * count, and when. The epoch a count crosses into begins now. */
static __always_inline void report(__u32 target, __u32 n)
{
	struct steer_wdone *wd;
	__u32 frames, now;

	wd = bpf_map_lookup_elem(&steer_wdone, &target);
	if (!wd)
		return;
	now = (__u32)bpf_jiffies64();
	/* Added atomically: an entry made anew in the same place (a
	 * kthread of the same name) counts while the old one's kthread still
	 * empties its ring, and a count that went back would prove too much
	 * (the loader replaces only an entry whose ring was empty, so that
	 * is at most a last batch). A batch of none (the kthread woke to an
	 * empty ring: to stop, say) moves only the clocks. */
	if (n) {
		/* No fetch (kernels before 5.12 have none): the epoch is
		 * judged on the count read before. */
		frames = wd->frames + n;
		__sync_fetch_and_add(&wd->frames, n);
		if (frames / STEER_EPOCH != (frames - n) / STEER_EPOCH)
			wd->epoch_at[(frames / STEER_EPOCH) & 3] = now;
	}
	wd->last_tick = now;
	wd->last_ns = bpf_ktime_get_ns();
}

/* trace_xdp_cpumap_kthread(map_id, processed, drops, sched, xdp_stats),
 * on the CPU the kthread runs on after each batch: its worker's CPU,
 * unless that CPU went offline since the entry was made (the scheduler
 * then widens the kthread's allowed CPUs and never narrows them back:
 * loader/kernel/kthreads.h), which off_cpu counts, per worker. Once per
 * batch of up to 8 frames, not per frame in the worker program: the
 * name is read at this cost whatever the batch. */
SEC("raw_tp/xdp_cpumap_kthread")
int STEER_TP_KTHREAD(struct bpf_raw_tracepoint_args *ctx)
{
	struct steer_kthread_stats *k;
	struct steer_ring_stats *r;
	struct cpumap_stats s;
	__u32 zero = 0, own;
	int cpu, bank;

	STEER_SALT();
	bank = bank_of((__u32)ctx->args[0]);
	if (bank < 0)
		return 0;
	cpu = entry_cpu();
	own = (__u32)cpu;
	if (cpu >= 0 && own < steer_span)
		report(own + (bank ? steer_span : 0), (__u32)ctx->args[1]);
	if (cpu >= 0 && own != bpf_get_smp_processor_id()) {
		/* Atomic: the kthreads of both banks add here. */
		r = bpf_map_lookup_elem(&ring_stats, &own);
		if (r)
			__sync_fetch_and_add(&r->off_cpu,
					     (__u32)ctx->args[1]);
	}
	k = bpf_map_lookup_elem(&kthread_stats, &zero);
	if (!k)
		return 0;
	k->processed += (__u32)ctx->args[1];
	k->drops += (__u32)ctx->args[2];
	k->sched += (__u32)ctx->args[3] != 0;
	/* A raw tracepoint's pointer argument is read through the helper
	 * (tp_btf could load it directly, but needs kernel BTF). */
	if (bpf_probe_read_kernel(&s, sizeof(s), (void *)ctx->args[4]))
		return 0;
	k->xdp_pass += s.pass;
	k->xdp_drop += s.drop;
	k->xdp_redirect += s.redirect;
	return 0;
}

/* trace_napi_poll(napi, work, budget), after every NAPI poll on this CPU,
 * of any device: the poll's frames passed to the stack are up it by now
 * (struct steer_stats, napi_polls). Every poll ending on a CPU ends the
 * poll a frame passed before it was in: polls on one CPU do not nest. */
SEC("raw_tp/napi_poll")
int STEER_TP_NAPI(struct bpf_raw_tracepoint_args *ctx)
{
	struct steer_stats *st;
	__u32 zero = 0;

	STEER_SALT();
	st = bpf_map_lookup_elem(&steer_stats, &zero);
	if (st) {
		st->napi_polls++;
		st->napi_poll_tick = bpf_jiffies64();
	}
	return 0;
}

char _license[] SEC("license") = "Dual BSD/GPL";
