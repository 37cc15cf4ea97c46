// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The warnings of `xdp-steer status`: see health.h. */
#define _GNU_SOURCE /* vasprintf() */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "model/cpulist.h"
#include "model/health.h"

/* Returns -ENOSPC and counts the warning dropped when the list is full. */
static int health_add(struct health *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int health_add(struct health *h, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (h->n >= HEALTH_MAX_WARN) {
		h->dropped++;
		return -ENOSPC;
	}
	va_start(ap, fmt);
	ret = vasprintf(&h->msg[h->n], fmt, ap);
	va_end(ap);
	if (ret < 0) {
		h->msg[h->n] = NULL;
		h->dropped++;
		return -ENOMEM;
	}
	h->n++;
	return 0;
}

void health_free(struct health *h)
{
	int i;

	for (i = 0; i < h->n; i++)
		free(h->msg[i]);
	h->n = 0;
	h->dropped = 0;
}

/* 's' as ranges, a long list ending with how many it left out. */
static const char *cpus_text(const struct cpu_set *s,
			     char list[HEALTH_CPULIST_MAX])
{
	cpulist_format_set(s, list, HEALTH_CPULIST_MAX);
	return list;
}

/* The workers (CPUs owning buckets) that are also in 'set' ('in_set') or
 * not ('!in_set'). */
static void workers_vs(const __u32 *buckets, const struct cpu_set *set,
		       bool in_set, struct cpu_set *out)
{
	__u32 cpu;

	cpuset_zero(out);
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		if (buckets[cpu] && cpuset_has(set, cpu) == in_set)
			cpuset_set(out, cpu);
}

int ixgbe_xdp_max_cpus(const char *release)
{
	unsigned int major, minor;

	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
		return IXGBE_XDP_QS;
	return major > 5 || (major == 5 && minor >= 18) ? 2 * IXGBE_XDP_QS :
	       IXGBE_XDP_QS;
}

/* The warnings in the order status prints them: the program and its
 * maps (the interface gone, no program, maps unused: one at most; two
 * programs in the dispatcher), no policy, the workers' CPUs (offline,
 * kthreads misplaced, taking RX interrupts, off the NIC's node), the
 * receiver slots, the default 'cpus' leaving out high CPU ids, idle
 * cpumap entries, the queue size, then the NIC's settings and its
 * driver's own limits (igb, ixgbe). Each check reads 'in' alone. */
int health_check(const struct health_input *in, struct health *h)
{
	const struct netdev_info *ni = in->netdev;
	const char *ifname = in->ifname;
	char list[HEALTH_CPULIST_MAX];
	struct cpu_set cpus;
	__u32 cpu;
	int max;

	health_free(h);
	if (!ifname || !in->buckets)
		return -EINVAL;
	if (!in->if_exists)
		health_add(h, "no interface %s in this network namespace (it was deleted): nothing steers; 'xdp-steer detach %s' removes the pins",
			   ifname, ifname);
	else if (!in->attached)
		health_add(h, "maps are pinned but no xdp_steer program is attached: nothing steers; 'xdp-steer detach %s' cleans up",
			   ifname);
	else if (!in->uses_pins)
		health_add(h, "the attached xdp_steer program does not use the pinned maps: policy changes have no effect; detach and attach again");
	/* Left by an upgrade in place killed between its two swaps of the
	 * dispatcher (kernel/prog.c): both steer as one, the first's passes
	 * seen by the second. */
	if (in->attached && in->nsteer > 1)
		health_add(h, "%d xdp_steer programs run in libxdp's dispatcher: an upgrade in place was killed between its two swaps; they steer as one, frames the first passes counted twice; the next 'xdp-steer attach %s --policy POLICY' finishes the upgrade",
			   in->nsteer, ifname);
	if (!in->table_size)
		health_add(h, "no policy applied: every frame passes on the receiving CPU; 'xdp-steer apply %s --policy POLICY'",
			   ifname);
	/* An offline CPU's kthread is not stopped: the scheduler moves it
	 * (widening its allowed CPUs) to an online CPU when a frame wakes
	 * it, and its frames reach the stack there (kernel/kthreads.h). */
	if (in->online) {
		workers_vs(in->buckets, in->online, false, &cpus);
		if (cpuset_count(&cpus))
			health_add(h, "worker CPUs %s are offline: the kernel runs their cpumap kthreads on other CPUs, where their flows now reach the stack, and leaves them there when the CPUs come back; bring them online and run 'xdp-steer repair %s', or apply a policy without them",
				   cpus_text(&cpus, list),
				   ifname);
	}
	if (in->misplaced) {
		cpuset_zero(&cpus);
		for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
			if (cpuset_has(in->misplaced, cpu) &&
			    (!in->online || cpuset_has(in->online, cpu)))
				cpuset_set(&cpus, cpu);
		if (cpuset_count(&cpus))
			health_add(h, "the cpumap kthreads of worker CPUs %s may run on other CPUs too (their CPUs went offline and came back): their flows can reach the stack on two CPUs, out of order; 'xdp-steer repair %s' (or any apply) puts new ones on their CPUs",
				   cpus_text(&cpus, list),
				   ifname);
	}
	if (in->table_size && (in->loader_flags & STEER_LF_CPUS_FALLBACK))
		health_add(h, "'cpus' is not set and every online CPU takes %s's RX interrupts, so every CPU works: set 'cpus' to CPUs that do not collect, or move the interrupts",
			   ifname);
	else if (in->irq) {
		workers_vs(in->buckets, in->irq, true, &cpus);
		if (cpuset_count(&cpus))
			health_add(h, "worker CPUs %s also take %s's RX interrupts: they both collect and process; leave them out of 'cpus'",
				   cpus_text(&cpus, list), ifname);
	}
	/* A frame steered off the NIC's node has its data read on another
	 * node: cross-node misses on every frame, which a 2-socket router
	 * pays at every hop. Said also of an explicit 'cpus', never
	 * changed. */
	if (in->table_size && in->nic_node >= 0 && in->nic_node_cpus) {
		workers_vs(in->buckets, in->nic_node_cpus, false, &cpus);
		if (cpuset_count(&cpus)) {
			char node[HEALTH_CPULIST_MAX];

			health_add(h, "worker CPUs %s are not on NUMA node %d, where %s is: every frame steered to them crosses nodes; set 'cpus' to CPUs of node %d (%s), or leave it unset to default to them",
				   cpus_text(&cpus, list), in->nic_node,
				   ifname, in->nic_node,
				   cpus_text(in->nic_node_cpus, node));
		}
	}
	/* The drain keeps its evidence per receiver slot (struct
	 * steer_rx_pool), leased: taken over only a lease after its CPU
	 * stopped receiving. A bucket a CPU
	 * without one receives keeps its worker, in order, whatever the
	 * table says (drain.h waits for evidence that never comes). */
	if (in->nrx_no_slot) {
		cpulist_format(in->rx_no_slot, in->nrx_no_slot, list,
			       sizeof(list));
		health_add(h, "CPUs %s received %s's frames but found all %u of its receiver slots taken: with no row for drain records and loads there, the frames of the table received there are passed there, whatever an apply or the balancer says (stats: no_rx_slot); a slot goes to another CPU only once its CPU has received nothing for the slot's lease (100 drain timeouts, 10 s at least): keep %s's interrupts (and its NAPI threads) on at most %u CPUs at a time, or raise the slots (up to 256) with attach's --rx-slots: 'xdp-steer detach %s' and attach it again (an upgrade in place from a version before receiver slots gives slot n to CPU n, none to CPUs of id 256 or more; detach and attach hands them out densely)",
			   list, ifname, in->rx_slots, ifname, in->rx_slots,
			   ifname);
	}
	if (in->table_size && (in->loader_flags & STEER_LF_CPUS_DEFAULT) &&
	    in->online_beyond)
		health_add(h, "the default 'cpus' leaves out %u online %s of %d or more: xdp-steer steers to CPUs below %d only; name the workers with 'cpus' to choose which work",
			   in->online_beyond,
			   in->online_beyond == 1 ? "CPU with an id" :
						    "CPUs with ids",
			   STEER_CPU_IDS, STEER_CPU_IDS);
	/* Each keeps a kthread and its ring; only an apply removes them
	 * (kernel/slots_retire.c, slots_retire()). */
	if (in->table_size && in->idle_entries)
		health_add(h, "%d cpumap entr%s that the policy in force does not need and no bucket drains from (the drain line lists them): an apply was interrupted, or drains outlasted its wait; apply the policy again to remove them",
			   in->idle_entries, in->idle_entries == 1 ? "y" : "ies");
	/* A ring must hold what arrives while its worker is off the CPU:
	 * at 1 Mpps per worker, 256 frames last a quarter millisecond. */
	if (in->table_size && in->queue_size < 256)
		health_add(h, "queue_size %u is small: a worker that is briefly descheduled drops frames; 2048 is the default",
			   in->queue_size);
	if (in->table_size && (in->slot_flags & STEER_F_KEY_VLAN) && ni &&
	    ni->features_known && ni->rxvlan)
		health_add(h, HEALTH_RXVLAN_MSG, ifname);
	if (ni && !strcmp(ni->driver, "igb") && ni->mtu > IGB_XDP_MAX_MTU)
		health_add(h, "MTU %d: igb refuses native XDP above %d",
			   ni->mtu, IGB_XDP_MAX_MTU);
	/* These limits are ixgbe's own (its XDP receive buffer, RSC); other
	 * drivers have others we do not know, so they get no warning. */
	if (ni && !strcmp(ni->driver, "ixgbe")) {
		if (ni->mtu > IXGBE_XDP_MAX_MTU)
			health_add(h, "MTU %d: ixgbe refuses XDP above %d",
				   ni->mtu, IXGBE_XDP_MAX_MTU);
		if (ni->lro)
			health_add(h, "LRO is on: ixgbe refuses XDP with LRO (RSC); 'ethtool -K %s lro off'",
				   ifname);
		/* ATR samples transmitted TCP segments and points the flow's
		 * receive queue at the sending CPU: a flow changes collector
		 * whenever its sender moves. Perfect filters turn ATR off. */
		if (ni->features_known && !ni->ntuple)
			health_add(h, "ntuple is off, so ixgbe's Flow Director ATR moves TCP flows between RX queues as their senders move: 'ethtool -K %s ntuple on' turns ATR off",
				   ifname);
		max = ixgbe_xdp_max_cpus(in->release);
		if (in->possible_cpus > max)
			health_add(h, "%d CPUs are possible: ixgbe on Linux %s refuses native XDP with more than %d%s; boot with nr_cpus=%d (or possible_cpus=%d)",
				   in->possible_cpus,
				   in->release ? in->release : "(unknown)", max,
				   max < 2 * IXGBE_XDP_QS ? " (128 from Linux 5.18)" : "",
				   max, max);
	}
	return h->dropped ? -ENOSPC : 0;
}
