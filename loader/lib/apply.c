// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* steer_apply(): a parsed policy into an attached interface's maps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/clock.h"
#include "kernel/maps.h"
#include "kernel/netdev.h"
#include "kernel/numa.h"
#include "kernel/prog.h"
#include "kernel/prog_size.h"
#include "kernel/slots.h"
#include "kernel/trace.h"
#include "policy/compile.h"
#include "lib/lib_int.h"

/* The NUMA layout (the caller frees it) and *node, the interface's node;
 * NULL when it has none, or the layout cannot be read (said). */
static struct numa_layout *nic_layout(struct steer_ctx *ctx, const char *ifname,
				      const struct netdev_info *nip, int *node)
{
	struct numa_layout *l;
	int err;

	*node = numa_netdev_node(ifname, nip ? nip->bus_info : NULL, NULL);
	l = *node >= 0 ? malloc(sizeof(*l)) : NULL;
	err = l ? numa_read_layout(NULL, l) : 0;
	if (!err)
		return l;
	free(l);
	if (err == -E2BIG)
		lib_note(ctx, STEER_WARN,
			 "%s: 'cpus' is not set and the machine has more NUMA nodes than the %d xdp-steer reads, or a node id past %d, so the workers are not kept to node %d, %s's; set 'cpus'",
			 ifname, NUMA_MAX_NODES, NUMA_MAX_NODE_ID, *node, ifname);
	else
		lib_note(ctx, STEER_WARN,
			 "%s: 'cpus' is not set and the NUMA nodes could not be read from /sys/devices/system/node (%s), so the workers are not kept to node %d, %s's; set 'cpus'",
			 ifname, strerror(-err), *node, ifname);
	return NULL;
}

/* A default CPU list leaves the CPUs that take the interface's RX
 * interrupts to collecting, and the other nodes' CPUs out when the NIC's
 * node has workers of its own; when every CPU collects, every CPU works,
 * and the caller is told. */
static void default_workers(struct steer_ctx *ctx, const char *ifname,
			    const struct steer_policy *p,
			    struct policy_cpus *out, struct table_cpu *buf,
			    bool *fallback)
{
	struct netdev_info ni, *nip = NULL;
	struct numa_layout *l = NULL;
	char list[CPUSET_STR_MAX];
	enum numa_default how;
	struct cpu_set irq;
	int err, node = -1;

	if (!netdev_info(ifname, &ni))
		nip = &ni;
	err = p->cpus_default ? netdev_irq_cpus(ifname, nip, NULL, &irq) : 0;
	if (p->cpus_default)
		l = nic_layout(ctx, ifname, nip, &node);
	how = policy_default_workers(p, err ? NULL : &irq, l, node, out, buf);
	*fallback = how == NUMA_DEFAULT_ALL;
	if (*fallback)
		lib_note(ctx, STEER_WARN,
			 "%s: 'cpus' is not set and every online CPU takes this interface's RX interrupts, so every CPU works (and collects); set 'cpus', or move the interrupts",
			 ifname);
	else if (how == NUMA_DEFAULT_NODE_COLLECTS)
		lib_note(ctx, STEER_WARN,
			 "%s: 'cpus' is not set and every CPU of NUMA node %d, %s's, takes its RX interrupts (%s), so the workers are the other nodes' CPUs, and every frame crosses nodes; move some interrupts off node %d, or set 'cpus'",
			 ifname, node, ifname,
			 cpuset_format(numa_node_cpus(l, node), list, sizeof(list)),
			 node);
	else if (how == NUMA_DEFAULT_NODE_EMPTY)
		lib_note(ctx, STEER_WARN,
			 "%s: 'cpus' is not set and NUMA node %d, %s's, has no online CPU a cpumap can address, so the workers are the other nodes' CPUs; set 'cpus' to say which",
			 ifname, node, ifname);
	else if (how == NUMA_DEFAULT_NODE)
		lib_note(ctx, STEER_INFO,
			 "%s: 'cpus' is not set: the workers are the CPUs of NUMA node %d, %s's, but those taking its RX interrupts",
			 ifname, node, ifname);
	free(l);
	if (p->hash_key == POLICY_HASH_VLAN && nip && ni.features_known &&
	    ni.rxvlan)
		lib_note(ctx, STEER_WARN, "%s: " HEALTH_RXVLAN_MSG, ifname,
			 ifname);
}

/* The longest XDP_STEER_RX_LEASE_MS: a day. */
#define STEER_RX_LEASE_MAX_MS	86400000u

/* The lease of a receiver slot (steer_slot.rx_lease, bpf/drain.h): a
 * slot whose CPU has not held it for this long may go to a CPU that finds
 * none. Far longer than the drain timeout 'drain_units', so that nothing
 * the old CPU queued can still wait anywhere: 100 drain timeouts, and 10 s
 * at least (an interrupt that irqbalance moves stays for seconds at
 * least). The test knob XDP_STEER_RX_LEASE_MS sets it shorter, but never
 * below two drain timeouts. */
static int rx_lease_ticks(__u32 drain_units, int hz, __u32 *lease)
{
	const char *knob = getenv("XDP_STEER_RX_LEASE_MS");
	__u64 ticks = (__u64)drain_units * 100, floor = 2ull * drain_units + 2;
	unsigned long ms;
	char *end;

	if (ticks < 10ull * (__u64)hz)
		ticks = 10ull * (__u64)hz;
	if (knob && *knob) {
		ms = strtoul(knob, &end, 10);
		if (*end || !ms || ms > STEER_RX_LEASE_MAX_MS)
			return -EINVAL;
		ticks = clock_ms_to_ticks((__u32)ms, hz);
		if (ticks < floor)
			ticks = floor;
	}
	/* Half the tick counter's span: a signed difference still orders. */
	*lease = ticks < 0x7fffffffull ? (__u32)ticks : 0x7fffffffu;
	return 0;
}

int lib_apply_ticks(struct steer_ctx *ctx, const struct lib_iface *it,
		    struct steer_build *b)
{
	int err, hz;

	/* The datapath counts time in jiffies. Below HZ=1000 every GRO
	 * flush is a full one. */
	err = clock_hz(&hz);
	if (err)
		return lib_fail(ctx, err, "%s: cannot tell the kernel's tick rate (no CONFIG_HZ in /proc/config.gz or /boot, and jiffies unreadable: %s)",
				it->ifname, strerror(-err));
	b->slot.drain_units = clock_ms_to_ticks(b->slot.drain_ms, hz);
	b->slot.gro_units = hz < 1000 ? 0 : STEER_GRO_UNITS;
	err = rx_lease_ticks(b->slot.drain_units, hz, &b->slot.rx_lease);
	if (err)
		return lib_fail(ctx, err, "%s: XDP_STEER_RX_LEASE_MS (a test knob) must be a number of milliseconds from 1 to %u; unset it",
				it->ifname, STEER_RX_LEASE_MAX_MS);
	return 0;
}

/* The highest CPU the build sends frames to (table, rules, non-IP). */
static __u32 build_top_cpu(const struct steer_build *b)
{
	__u32 top = 0, i;

#define TOP_(c) do { if ((c) != STEER_CPU_LOCAL && (c) > top) top = (c); } while (0)
	for (i = 0; i < (__u32)b->ncpus; i++)
		TOP_(b->cpus[i].cpu);
	for (i = 0; i < b->nrule_cpus; i++)
		TOP_(b->rule_cpus[i]);
	for (i = 0; i < (__u32)b->nflow; i++)
		if (b->flow[i].target.ncpus == 1)
			TOP_(b->flow[i].target.cpu);
	for (i = 0; i < (__u32)b->nprefix; i++)
		if (b->prefix[i].target.ncpus == 1)
			TOP_(b->prefix[i].target.cpu);
	TOP_(b->slot.nonip_cpu);
#undef TOP_
	return top;
}

/* Each step that can refuse comes before the policy's maps are written:
 * the build's highest CPU against the pinned maps' span, the drain's
 * ticks, the cpumap program loaded on the pinned maps, the tracepoint
 * programs (a drain policy refused without them, immediate warned).
 * Then slots_apply(), the one step that writes the policy, which leaves
 * the previous one in force when it fails. After it, only warnings: the
 * tracepoint programs' handover, and retirements put off. */
int lib_apply_build(struct steer_ctx *ctx, const struct lib_iface *it,
		    const struct steer_maps *m, struct steer_build *b,
		    struct steer_apply_result *res)
{
	struct xdp_steer_bpf *worker = NULL;
	int worker_fds[STEER_BANKS];
	__u32 top = build_top_cpu(b);
	char why[512];
	int err;

	/* The pinned maps' span, not this machine's, bounds the workers:
	 * pins made by xdp-loader load -p, or by a version before the span,
	 * have STEER_MAX_CPUS (kernel/prog.c prog_span()). */
	if (top >= m->cpumap_entries || top >= m->span)
		return lib_fail(ctx, -ERANGE,
				"%s: the policy names CPU %u, but the maps pinned in %s have cpumap entries for CPU ids below %u only (made by xdp-loader load -p, by an older xdp-steer, or for fewer possible CPUs); nothing was changed. 'xdp-steer detach %s' and attach again to size them for this machine (CPU ids below %d)",
				it->ifname, top, it->dir,
				m->cpumap_entries < m->span ?
				m->cpumap_entries : m->span,
				it->ifname, STEER_CPU_IDS);
	err = lib_apply_ticks(ctx, it, b);
	if (err)
		return err;
	res->ncpus = b->ncpus;
	err = prog_worker_load(it->dir, &worker);
	if (err)
		return lib_fail(ctx, err, "%s: cannot load the cpumap program on the maps in %s: %s; were they pinned by another version of xdp-steer? 'xdp-steer detach %s' and attach again",
				it->ifname, it->dir, strerror(-err), it->ifname);
	/* Before any cpumap entry is added: the ring counters then cover
	 * every frame the datapath counts as sent. Under rebalance: drain
	 * they are the drain's evidence, without which no bucket could ever
	 * move; under immediate, steering works all the same. */
	if (trace_ensure(m, &WHY(why))) {
		if (b->slot.flags & STEER_F_DRAIN) {
			err = lib_fail(ctx, -ENOTSUP,
				       "%s: rebalance: drain needs the cpumap and napi_poll tracepoint programs, and %s; nothing was changed. 'rebalance: immediate' steers without them (a change may then reorder flows)",
				       it->ifname, why);
			goto out_worker;
		}
		lib_note(ctx, STEER_WARN,
			 "%s: ring-full drops will not be counted (stats shows them as unknown): %s",
			 it->ifname, why);
	}
	prog_worker_fds(worker, worker_fds);
	err = slots_apply(m, b, worker_fds, &res->slots, &WHY(why));
	if (err) {
		lib_fail(ctx, err, "%s: applying the policy failed: %s%s",
			 it->ifname, why[0] ? why : strerror(-err),
			 res->slots.had_policy ?
			 "; the previous policy is still in force" : "");
		goto out_worker;
	}
	/* An upgrade's tracepoint programs take over once the bank the
	 * old ones count is retired, which this apply may have done. */
	if (trace_handover_finish(m, &WHY(why)) < 0)
		lib_note(ctx, STEER_WARN,
			 "%s: handing the tracepoint programs over to this version's failed: %s; the next apply tries again",
			 it->ifname, why);
	if (res->slots.retire_deferred)
		lib_note(ctx, STEER_WARN,
			 "%s: the policy is in force, but CPUs that left keep their cpumap entries until the next apply (waiting for readers of the old policy failed)",
			 it->ifname);
out_worker:
	prog_worker_close(worker);
	return err;
}

int lib_apply_open(struct steer_ctx *ctx, const struct lib_iface *it,
		   struct steer_maps *m, bool dry_run)
{
	const char *missing = NULL;
	int err;

	err = maps_open(it->dir, m, &missing);
	if (err == -ENOENT && lib_pins_lost(ctx, it, missing))
		return err;
	if (err == -ENOENT)
		return lib_fail(ctx, err, "%s: no xdp-steer maps in %s (%s missing); run 'xdp-steer attach %s --policy FILE', or 'xdp-loader load -p %s %s xdp_steer.bpf.o' first",
				it->ifname, it->dir, missing, it->ifname,
				it->dir, it->ifname);
	if (err)
		return lib_maps_failed(ctx, it, err, missing);
	if (!lib_steering(it->dir, it->ifindex))
		lib_note(ctx, STEER_WARN,
			 "%s: no attached xdp_steer program uses the maps in %s; the policy %s stored, but nothing steers until one is attached",
			 it->ifname, it->dir, dry_run ? "would be" : "is");
	return 0;
}

int lib_apply_compile(struct steer_ctx *ctx, const struct lib_iface *it,
		      const struct steer_policy *p, struct steer_build *b,
		      bool *cpus_fallback)
{
	struct table_cpu buf[STEER_CPU_IDS];
	struct policy_cpus workers;
	char why[512];
	int err;

	default_workers(ctx, it->ifname, p, &workers, buf, cpus_fallback);
	err = policy_compile(p, &workers, b, &WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s: %s", it->ifname,
				why[0] ? why : strerror(-err));
	if (*cpus_fallback)
		b->slot.loader_flags |= STEER_LF_CPUS_FALLBACK;
	if (p->cpus_default)
		b->slot.loader_flags |= STEER_LF_CPUS_DEFAULT;
	return 0;
}

int lib_apply_locked(struct steer_ctx *ctx, const struct lib_iface *it,
		     const struct steer_policy *p,
		     struct steer_apply_result *res)
{
	return lib_apply_renewing(ctx, it, p, false, res);
}

int lib_apply_renewing(struct steer_ctx *ctx, const struct lib_iface *it,
		       const struct steer_policy *p, bool renew,
		       struct steer_apply_result *res)
{
	struct steer_build b = {};
	struct steer_maps m;
	int err;

	memset(res, 0, sizeof(*res));
	err = lib_apply_open(ctx, it, &m, false);
	if (err)
		return err;
	err = lib_apply_compile(ctx, it, p, &b, &res->cpus_fallback);
	b.renew_workers = renew;
	if (!err)
		err = lib_apply_build(ctx, it, &m, &b, res);
	build_free(&b);
	maps_close(&m);
	return err;
}

int steer_apply(struct steer_ctx *ctx, const char *ifname,
		const struct steer_policy *p, struct steer_apply_result *res)
{
	struct lib_iface it;
	int err;

	err = lib_iface_begin(ctx, ifname, true, &it);
	if (err)
		goto out;
	err = lib_iface_require(ctx, &it);
	if (err)
		goto out;
	err = lib_apply_locked(ctx, &it, p, res);
out:
	lib_iface_end(&it);
	return err;
}
