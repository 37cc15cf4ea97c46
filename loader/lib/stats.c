// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The counters of an interface, read as often as the caller likes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/possible.h"
#include "kernel/cpumap.h"
#include "kernel/maps.h"
#include "kernel/trace.h"
#include "kernel/slots.h"
#include "lib/lib_int.h"
#include "util/mono.h"

struct steer_stats_src {
	struct steer_maps m;
	struct trace_maps t;
	bool traced;
	char ifname[IF_NAMESIZE];
	char dir[PATH_MAX];
	__u32 table[STEER_TABLE_MAX];	/* the active slot's, read for its CPUs */
};

int steer_sample_alloc(struct steer_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->ncpus = possible_span();
	if (s->ncpus < 0)
		return s->ncpus;
	s->rx = calloc(s->ncpus, sizeof(*s->rx));
	s->deq = calloc(s->ncpus, sizeof(*s->deq));
	s->ring = calloc(STEER_CPU_IDS, sizeof(*s->ring));
	s->kthread = calloc(s->ncpus, sizeof(*s->kthread));
	s->queued = calloc(STEER_CPU_IDS, sizeof(*s->queued));
	if (s->rx && s->deq && s->ring && s->kthread && s->queued)
		return 0;
	steer_sample_free(s);
	return -ENOMEM;
}

void steer_sample_free(struct steer_sample *s)
{
	free(s->rx);
	free(s->deq);
	free(s->ring);
	free(s->kthread);
	free(s->queued);
	s->queued = NULL;
	s->rx = NULL;
	s->deq = NULL;
	s->ring = NULL;
	s->kthread = NULL;
}

int steer_stats_open(struct steer_ctx *ctx, const char *ifname,
		     struct steer_stats_src **srcp)
{
	struct steer_stats_src *src;
	const char *missing = NULL;
	struct lib_iface it;
	int err;

	*srcp = NULL;
	err = lib_iface_begin(ctx, ifname, false, &it);
	if (err)
		goto out;
	src = calloc(1, sizeof(*src));
	if (!src) {
		err = lib_fail(ctx, -ENOMEM, "out of memory");
		goto out;
	}
	err = maps_open(it.dir, &src->m, &missing);
	if (err == -ENOENT) {
		if (!lib_pins_lost(ctx, &it, missing))
			lib_not_attached(ctx, &it, missing, "");
	} else if (err) {
		lib_maps_failed(ctx, &it, err, missing);
	}
	if (err) {
		free(src);
		goto out;
	}
	/* Without the tracepoint programs (attached by an older xdp-steer,
	 * or by xdp-loader and never applied) the rest still counts. */
	src->traced = !trace_open(it.dir, &src->t);
	snprintf(src->ifname, sizeof(src->ifname), "%s", ifname);
	snprintf(src->dir, sizeof(src->dir), "%s", it.dir);
	*srcp = src;
out:
	/* The maps stay open without the lock: counters are read-only, and
	 * an fd keeps a map alive even if it is detached meanwhile. */
	lib_iface_end(&it);
	return err;
}

/* The interface is here and a program that uses these maps is attached
 * to it: else the counters stand still, and a monitor must be told. */
static bool steering(const struct steer_stats_src *src)
{
	return lib_steering(src->dir, if_nametoindex(src->ifname)) == 1;
}

/* The CPUs the policy in force sends to, in either cpumap bank, and
 * whether it balances (as the balancer itself decides: a table, and
 * balance on); none and no without a policy. */
static int read_policy(struct steer_stats_src *src, struct steer_sample *s)
{
	unsigned char need[STEER_CPU_TARGETS];
	struct cpu_set *w = &s->workers;
	struct steer_slot slot;
	struct steer_ctl ctl;
	int err, t;

	cpuset_zero(w);
	s->balance.enabled = false;
	s->balance.interval_ms = 0;
	err = slots_read_active(&src->m, &ctl, &slot, src->table);
	if (err == -ENOENT)
		return 0;
	if (!err) {
		s->balance.enabled = slot.table_size &&
				     (slot.flags & STEER_F_BALANCE);
		s->balance.interval_ms = slot.balance_ms;
		err = cpumap_slot_needs(&src->m, ctl.active, &slot, need);
	}
	for (t = 0; !err && t < STEER_CPU_TARGETS; t++)
		if (need[t])
			cpuset_set(w, t % STEER_CPU_IDS);
	return err;
}

/* The balancer's record: who, and when its last round ended. */
static int read_balancer(struct steer_stats_src *src, struct steer_sample *s)
{
	struct steer_balance rec;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(src->m.steer_balance, &zero, &rec))
		return -errno;
	s->balance.running = lib_balancer_alive(&rec);
	s->balance.last_ns = rec.last_ns;
	return 0;
}

int steer_stats_read(struct steer_stats_src *src, struct steer_sample *s)
{
	struct steer_kthread_stats ksum;
	struct steer_worker_stats wsum;
	int err;

	s->t = mono_s();
	s->steering = steering(src);
	/* Downstream first (steer.h): what the workers took, what the rings
	 * took, then what was sent. */
	err = maps_percpu_sum(src->m.worker_stats, 0, sizeof(wsum), &wsum,
			      s->deq);
	s->traced = src->traced;
	if (!err && src->traced)
		err = maps_percpu_sum(src->t.kthread_stats, 0, sizeof(ksum),
				      &ksum, s->kthread);
	if (!err && src->traced)
		err = maps_read_array(src->t.ring_stats, 0, src->m.span,
				      sizeof(*s->ring), s->ring);
	if (!err)
		err = maps_percpu_sum(src->m.steer_stats, 0, sizeof(s->total),
				      &s->total, s->rx);
	if (!err)
		err = maps_queued_sum(&src->m, s->queued);
	/* Which series to show at 0: a CPU list that cannot be read leaves
	 * only the CPUs that count already, as before. */
	if (cpuset_read_online(&s->online, NULL))
		cpuset_zero(&s->online);
	if (!err)
		err = read_policy(src, s);
	if (!err)
		err = read_balancer(src, s);
	return err;
}

void steer_stats_close(struct steer_stats_src *src)
{
	if (!src)
		return;
	maps_close(&src->m);
	if (src->traced)
		trace_close(&src->t);
	free(src);
}
