// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `xdp-steer status` as text or JSON: see print_status.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/fold.h"
#include "cli/json.h"
#include "cli/print_balance.h"
#include "cli/print_status.h"
#include "model/cpulist.h"


/* Room for a list of CPUs in a status line: past it the list ends with
 * how many it left out. */
#define STATUS_CPULIST_MAX	256

/* The cpumap entries the policy in force does not need: with 'in_use',
 * those some bucket still drains from; without, the others; as ranges of
 * CPUs per cpumap bank. 'what' comes before the first; nothing is printed
 * when there is none. */
static void print_unneeded(const struct slot_view *v, bool in_use,
			   const char *what)
{
	char list[STATUS_CPULIST_MAX];
	__u32 ids[STEER_CPU_IDS], t, bank;
	size_t n;
	int first = 1;

	for (bank = 0; bank < STEER_CPU_TARGETS / STEER_CPU_IDS; bank++) {
		n = 0;
		for (t = bank * STEER_CPU_IDS; t < (bank + 1) * STEER_CPU_IDS;
		     t++)
			if (v->in_cpumap[t] && !v->need[t] &&
			    !v->in_use[t] == !in_use)
				ids[n++] = t % STEER_CPU_IDS;
		if (!n)
			continue;
		cpulist_format(ids, n, list, sizeof(list));
		printf("%s cpu%s %s (bank %u)", first ? what : ",",
		       n == 1 ? "" : "s", list, bank);
		first = 0;
	}
}

/* The workers and their buckets: each on one line, as 'cpu 0 (256
 * buckets), cpu 1 (256 buckets)', up to 'top' of them (0: all); past
 * that, how many and which, the 'top' with the most buckets, and the
 * others summed. */
static void print_workers_text(const struct slot_view *v, size_t top)
{
	__u32 *ids = calloc(STEER_CPU_IDS, sizeof(*ids)),
	      *folded = calloc(STEER_CPU_IDS, sizeof(*folded)), cpu, sum = 0;
	double *load = calloc(STEER_CPU_IDS, sizeof(*load));
	bool *keep = calloc(STEER_CPU_IDS, sizeof(*keep));
	size_t n = 0, i, shown = 0, nfolded = 0;
	char list[STATUS_CPULIST_MAX];
	bool fold;

	if (!ids || !folded || !load || !keep) {
		/* Short of memory: every worker, as it comes. */
		printf("  workers:");
		for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
			if (v->buckets[cpu])
				printf("%s cpu %u (%u bucket%s)", n++ ? "," : "",
				       cpu, v->buckets[cpu],
				       v->buckets[cpu] == 1 ? "" : "s");
		printf("\n");
		goto out;
	}
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		if (v->buckets[cpu]) {
			load[n] = v->buckets[cpu];
			ids[n++] = cpu;
		}
	fold_top(load, n, top, keep);
	fold = top && n > top;
	printf("  workers:");
	if (fold) {
		cpulist_format(ids, n, list, sizeof(list));
		printf(" %zu CPUs %s; the %zu with the most buckets:\n   ", n,
		       list, top);
	}
	for (i = 0; i < n; i++) {
		if (!keep[i]) {
			folded[nfolded++] = ids[i];
			sum += v->buckets[ids[i]];
			continue;
		}
		/* Eight to a line when folded, so each stays short. */
		if (fold && shown && shown % 8 == 0)
			printf(",\n   ");
		else if (shown)
			printf(",");
		printf(" cpu %u (%u bucket%s)", ids[i], v->buckets[ids[i]],
		       v->buckets[ids[i]] == 1 ? "" : "s");
		shown++;
	}
	printf("\n");
	if (nfolded) {
		cpulist_format(folded, nfolded, list, sizeof(list));
		printf("    %zu more CPU%s: %u bucket%s in all (CPU%s %s)\n",
		       nfolded, nfolded == 1 ? "" : "s", sum,
		       sum == 1 ? "" : "s", nfolded == 1 ? "" : "s", list);
	}
out:
	free(ids);
	free(folded);
	free(load);
	free(keep);
}

/* The receiver slots held, and by which CPUs: "0-1,263" (slot order
 * aside: the list is sorted). */
static void print_rx_slots_text(const struct slot_view *v)
{
	char list[512];
	__u32 ids[STEER_RX_SLOTS], i, j, t;

	memcpy(ids, v->rx_cpus, v->rx_held * sizeof(ids[0]));
	for (i = 1; i < v->rx_held; i++)
		for (j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			t = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	cpulist_format(ids, v->rx_held, list, sizeof(list));
	printf("  receiver slots: %u of %u held%s%s%s\n", v->rx_held,
	       v->rx_slots, v->rx_held ? ", by receiving cpus " : "",
	       v->rx_held ? list : "",
	       v->rx_held ? "" : " (no CPU has received a frame of the table yet)");
}

/* Buckets still draining (and those waiting on a stalled CPU), an apply's
 * warm-up under way, and the cpumap entries kept for draining buckets (or
 * left over). */
static void print_drain_text(const struct slot_view *v)
{
	printf("  drain: %d bucket%s draining", v->draining,
	       v->draining == 1 ? "" : "s");
	if (v->stalled)
		printf(" (%d waiting on a CPU whose kthread took nothing off its ring for the drain timeout: they wait on, never moved by a timer)",
		       v->stalled);
	if (v->window_open)
		printf(", an apply warming up (every frame stamped)");
	print_unneeded(v, true, "; cpumap entries the policy no longer needs, kept while buckets drain from them:");
	print_unneeded(v, false, "; cpumap entries the policy does not need, which no bucket drains from, left until the next apply:");
	printf("\n");
	print_rx_slots_text(v);
}

/* The slot's decap: "gre, vxlan (4789, 8472), esp", or "none". */
static void print_decap_text(const struct steer_slot *s)
{
	const char *sep = "";
	__u32 e;
	int i, n;

	printf("  decap (tunnels looked through to the inner flow): ");
	for (e = 1; e < STEER_ENCAP_COUNT; e++) {
		if (!(s->decap & STEER_DECAP(e)))
			continue;
		printf("%s%s", sep, steer_encap_name(e));
		sep = ", ";
		for (i = n = 0; i < STEER_DECAP_PORTS; i++)
			if (s->decap_port[i] && s->decap_port_encap[i] == e)
				printf("%s%u", n++ ? ", " : " (UDP ",
				       ntohs(s->decap_port[i]));
		if (n)
			printf(")");
	}
	printf("%s\n", *sep ? "" : "none");
}

/* The same as a JSON list: [{"name": "gre"}, {"name": "vxlan",
 * "udp_ports": [4789]}, ...]. */
static void print_decap_json(const struct steer_slot *s)
{
	__u32 e;
	int i, n, first = 1;

	printf("[");
	for (e = 1; e < STEER_ENCAP_COUNT; e++) {
		if (!(s->decap & STEER_DECAP(e)))
			continue;
		printf("%s{\"name\": \"%s\"", first ? "" : ", ",
		       steer_encap_name(e));
		first = 0;
		if (!steer_encap_port(e)) {
			printf("}");
			continue;
		}
		printf(", \"udp_ports\": [");
		for (i = n = 0; i < STEER_DECAP_PORTS; i++)
			if (s->decap_port[i] && s->decap_port_encap[i] == e)
				printf("%s%u", n++ ? ", " : "",
				       ntohs(s->decap_port[i]));
		printf("]}");
	}
	printf("]");
}

static const char *tf(int b)
{
	return b ? "true" : "false";
}

const char *sched_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER: return "other";
	case SCHED_FIFO: return "fifo";
	case SCHED_RR: return "rr";
	case SCHED_BATCH: return "batch";
	case SCHED_IDLE: return "idle";
	}
	return "unknown";
}

/* The class the kthreads of the entries the policy in force needs share
 * (the policy's worker_sched is not kept in the maps: this is what the
 * kthreads have): 1 with one of them in *k, 0 when they differ, -1 when
 * none was found. */
static int worker_sched(const struct slot_view *v,
			const struct kthread_info **k)
{
	const struct kthread_info *t;
	int target;

	*k = NULL;
	for (target = 0; target < STEER_CPU_TARGETS; target++) {
		t = &v->kthreads[target];
		if (!v->need[target] || !t->pid)
			continue;
		if (*k && (t->policy != (*k)->policy ||
			   t->priority != (*k)->priority ||
			   (t->policy == SCHED_OTHER && t->nice != (*k)->nice)))
			return 0;
		*k = t;
	}
	return *k ? 1 : -1;
}

static void print_worker_sched_text(const struct slot_view *v)
{
	const struct kthread_info *k;
	int same = worker_sched(v, &k);

	if (same < 0)
		return;
	printf("  worker_sched: ");
	if (!same)
		printf("mixed (the workers' kthreads differ)\n");
	else if (k->policy == SCHED_FIFO || k->policy == SCHED_RR)
		printf("%s, priority %d\n", sched_name(k->policy), k->priority);
	else if (k->policy == SCHED_OTHER)
		printf("%s, nice %d\n", sched_name(k->policy), k->nice);
	else
		printf("%s\n", sched_name(k->policy));
}

static void print_worker_sched_json(const struct slot_view *v)
{
	const struct kthread_info *k;
	int same = worker_sched(v, &k);

	printf(", \"worker_sched\": ");
	if (same < 0)
		printf("null");
	else if (!same)
		printf("\"mixed\"");
	else
		printf("{\"policy\": \"%s\", \"priority\": %d, \"nice\": %d}",
		       sched_name(k->policy), k->priority,
		       k->policy == SCHED_OTHER ? k->nice : 0);
}

/* An entry's kthread: pid, class, the CPUs it may run on, and whether
 * that is its own CPU only. */
static void print_kthread_json(const struct kthread_info *k, __u32 cpu)
{
	if (!k->pid) {
		printf(", \"kthread\": null");
		return;
	}
	printf(", \"kthread\": {\"pid\": %d, \"sched\": \"%s\", \"priority\": %d, \"nice\": %d, \"cpus_allowed\": ",
	       (int)k->pid, sched_name(k->policy), k->priority, k->nice);
	if (k->allowed_known)
		printf("\"%s\"", k->allowed);
	else
		printf("null");
	printf(", \"on_its_cpu\": %s}", tf(!kthread_misplaced(k, cpu)));
}

void print_status_text(const struct steer_status *st, size_t top)
{
	const struct slot_view *v = &st->view;
	const struct steer_slot *s = &v->slot;
	int i;

	if (st->at.prog_id)
		printf("%s: xdp_steer program %u, %s mode, %s\n", st->ifname,
		       st->at.prog_id, attach_mode_name(st->at.mode),
		       st->at.dispatcher ? "under libxdp's dispatcher" :
					   "single program (no dispatcher)");
	else
		printf("%s: not attached (maps pinned in %s)\n", st->ifname,
		       st->pin_dir);
	if (s->table_size) {
		printf("  policy: generation %u (slot %u), hash %s%s, local fast path %s, rebalance %s",
		       s->generation, v->ctl.active,
		       steer_hash_key_name(s->flags),
		       s->flags & STEER_F_SYMMETRIC ? " symmetric" : "",
		       s->flags & STEER_F_LOCAL_FASTPATH ? "on" : "off",
		       s->flags & STEER_F_DRAIN ? "drain" : "immediate");
		if (s->flags & STEER_F_DRAIN)
			printf(" (timeout %u ms)", s->drain_ms);
		printf(", queue %u (cpumap bank %u), table %u\n", s->queue_size,
		       s->bank, s->table_size);
		print_workers_text(v, top);
		printf("  rules: %d exact-field, %d prefix (%u field set%s)\n",
		       v->nflow, v->nprefix, s->nshapes,
		       s->nshapes == 1 ? "" : "s");
		printf("  non-IP: ");
		if (s->nonip_cpu == STEER_CPU_LOCAL)
			printf("passed on the receiving CPU\n");
		else
			printf("cpu %u\n", s->nonip_cpu);
		print_worker_sched_text(v);
		print_decap_text(s);
		print_drain_text(v);
		print_balance_status_text(st);
	}
	for (i = 0; i < st->health.n; i++)
		printf("  warning: %s\n", st->health.msg[i]);
}

/* In the text's order: the program, then "policy", written whole
 * whether or not one is applied (its fields then the empty slot's
 * zeros, so a reader finds every key) and holding worker_sched, the
 * receiver slots, decap, the workers' buckets, the cpumap entries of
 * both banks with their kthreads, and the balancer; then the health
 * warnings. A cpumap entry's CPU and bank come from its index,
 * STEER_CPU_IDS entries a bank. */
void print_status_json(const struct steer_status *st)
{
	const struct slot_view *v = &st->view;
	const struct steer_slot *s = &v->slot;
	__u32 cpu;
	int i, first = 1;

	printf("{\"ifname\": ");
	json_str(stdout, st->ifname);
	printf(", \"pin_dir\": ");
	json_str(stdout, st->pin_dir);
	printf(", \"interface_exists\": %s, \"attached\": %s, \"prog_id\": %u, \"mode\": \"%s\", \"dispatcher\": %s, \"uses_pins\": %s",
	       tf(st->if_exists), tf(st->at.prog_id != 0), st->at.prog_id,
	       attach_mode_name(st->at.mode), tf(st->at.dispatcher),
	       tf(st->at.uses_pins));
	printf(", \"policy\": {\"applied\": %s, \"generation\": %u, \"slot\": %u, \"retire_pending\": %s, \"hash\": \"%s\", \"symmetric\": %s, \"local_fastpath\": %s, \"rebalance\": \"%s\", \"drain_timeout_ms\": %u, \"draining_buckets\": %d, \"draining_stalled\": %d, \"drain_window_open\": %s, \"queue_size\": %u, \"bank\": %u, \"table_size\": %u, \"exact_rules\": %d, \"prefix_rules\": %d, \"rule_shapes\": %u",
	       tf(s->table_size != 0), s->generation, v->ctl.active,
	       tf(v->ctl.retire_pending),
	       steer_hash_key_name(s->flags),
	       tf(s->flags & STEER_F_SYMMETRIC),
	       tf(s->flags & STEER_F_LOCAL_FASTPATH),
	       s->flags & STEER_F_DRAIN ? "drain" : "immediate",
	       s->drain_ms, v->draining, v->stalled, tf(v->window_open),
	       s->queue_size, s->bank,
	       s->table_size, v->nflow, v->nprefix, s->nshapes);
	print_worker_sched_json(v);
	printf(", \"receiver_slots\": %u, \"receiver_slots_held\": [",
	       v->rx_slots);
	for (cpu = 0; cpu < v->rx_held; cpu++)
		printf("%s%u", cpu ? ", " : "", v->rx_cpus[cpu]);
	printf("]");
	printf(", \"decap\": ");
	print_decap_json(s);
	printf(", \"workers\": [");
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		if (v->buckets[cpu]) {
			printf("%s{\"cpu\": %u, \"buckets\": %u}", first ? "" : ", ",
			       cpu, v->buckets[cpu]);
			first = 0;
		}
	printf("], \"cpumap\": [");
	for (cpu = 0, first = 1; cpu < STEER_CPU_TARGETS; cpu++)
		if (v->in_cpumap[cpu]) {
			printf("%s{\"cpu\": %u, \"bank\": %u, \"qsize\": %u, \"prog_id\": %u, \"retiring\": %s, \"drained_from\": %s",
			       first ? "" : ", ", cpu % STEER_CPU_IDS,
			       cpu / STEER_CPU_IDS, v->cpumap[cpu].qsize,
			       v->cpumap[cpu].bpf_prog.id,
			       tf(!v->need[cpu]), tf(v->in_use[cpu]));
			print_kthread_json(&v->kthreads[cpu],
					   cpu % STEER_CPU_IDS);
			printf("}");
			first = 0;
		}
	printf("]");
	print_balance_status_json(st);
	printf("}, \"warnings\": [");
	for (i = 0; i < st->health.n; i++) {
		printf("%s", i ? ", " : "");
		json_str(stdout, st->health.msg[i]);
	}
	printf("]}");
}

void print_status_gone(const struct steer_list *l)
{
	int i;

	for (i = 0; i < l->ngone; i++)
		printf("%s: pins of a network namespace that is gone; 'xdp-steer detach --stale' removes them\n",
		       l->gone[i]);
	for (i = 0; i < l->nearlier; i++)
		printf("%s: pins an earlier xdp-steer named by a namespace's inode alone; the next xdp-steer command in the namespace whose program uses them moves them, 'xdp-steer detach --stale' removes those no program uses\n",
		       l->earlier[i]);
}
