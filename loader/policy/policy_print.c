// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The policy in canonical YAML, and policy comparison. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "xdp_steer/encap.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "policy/policy_int.h"

/* ---- printing ----------------------------------------------------------- */

/* "2-7, {cpu: 8, weight: 2}": runs of consecutive CPUs of one weight. */
static void print_cpus(FILE *f, const struct policy_cpus *s)
{
	int i, j;

	for (i = 0; i < s->n; i = j + 1) {
		const struct table_cpu *a = &s->v[i];

		for (j = i; j + 1 < s->n && s->v[j + 1].cpu == s->v[j].cpu + 1 &&
			    s->v[j + 1].weight == a->weight; j++)
			;
		fputs(i ? ", " : "", f);
		if (a->weight != 1)
			fputs("{cpu: ", f);
		if (j > i)
			fprintf(f, "%u-%u", a->cpu, s->v[j].cpu);
		else
			fprintf(f, "%u", a->cpu);
		if (a->weight != 1)
			fprintf(f, ", weight: %u}", a->weight);
	}
}

/* IPv6 is quoted: libyaml refuses an unquoted "::1" in flow style. */
static void print_addr(FILE *f, const __u32 *addr, __u8 family, __u8 len)
{
	int af = family == STEER_AF_INET ? AF_INET : AF_INET6;
	const char *q = af == AF_INET ? "" : "\"";
	char buf[INET6_ADDRSTRLEN];

	inet_ntop(af, addr, buf, sizeof(buf));
	if (len != (af == AF_INET ? 32 : 128))
		fprintf(f, "%s%s/%u%s", q, buf, len, q);
	else
		fprintf(f, "%s%s%s", q, buf, q);
}

static void print_rule(FILE *f, const struct policy_rule *r)
{
	const char *name = policy_proto_name(r->flow.proto);
	const char *sep = "";

	fputs("  - {match: {", f);
	if (r->fields & STEER_M_PROTO) {
		if (name)
			fprintf(f, "proto: %s", name);
		else
			fprintf(f, "proto: %u", r->flow.proto);
		sep = ", ";
	}
	if (r->fields & STEER_M_SRC) {
		fprintf(f, "%ssrc: ", sep);
		print_addr(f, r->flow.src, r->flow.family, r->src_len);
		sep = ", ";
	}
	if (r->fields & STEER_M_DST) {
		fprintf(f, "%sdst: ", sep);
		print_addr(f, r->flow.dst, r->flow.family, r->dst_len);
		sep = ", ";
	}
	if (r->fields & STEER_M_SPORT) {
		fprintf(f, "%ssrc_port: %u", sep, ntohs(r->flow.sport));
		sep = ", ";
	}
	if (r->fields & STEER_M_DPORT)
		fprintf(f, "%sdst_port: %u", sep, ntohs(r->flow.dport));
	if (r->cpus.n == 1 && r->cpus.v[0].weight == 1) {
		fprintf(f, "}, cpu: %u}\n", r->cpus.v[0].cpu);
	} else {
		fputs("}, cpus: [", f);
		print_cpus(f, &r->cpus);
		fputs("]}\n", f);
	}
}

/* all, none, or the list: names, UDP ones with their ports. */
static void print_decap(FILE *f, const struct policy_decap *d)
{
	struct policy_decap all;
	const char *sep = "";
	int e, i, n;

	policy_decap_default(&all);
	if (policy_decap_equal(d, &all)) {
		fputs("decap: all\n", f);
		return;
	}
	if (!d->encaps) {
		fputs("decap: none\n", f);
		return;
	}
	fputs("decap: [", f);
	for (e = 1; e < STEER_ENCAP_COUNT; e++) {
		if (!(d->encaps & STEER_DECAP(e)))
			continue;
		fputs(sep, f);
		sep = ", ";
		if (!steer_encap_port(e)) {
			fputs(steer_encap_name(e), f);
			continue;
		}
		for (i = n = 0; i < d->nports; i++)
			n += d->ports[i].encap == e;
		fprintf(f, "{%s: %s", steer_encap_name(e), n > 1 ? "[" : "");
		for (i = n = 0; i < d->nports; i++)
			if (d->ports[i].encap == e)
				fprintf(f, "%s%u", n++ ? ", " : "",
					d->ports[i].port);
		fputs(n > 1 ? "]}" : "}", f);
	}
	fputs("]\n", f);
}

int policy_print(FILE *f, const struct steer_policy *p)
{
	int i;

	fprintf(f, "version: %d\n", p->version);
	/* An absent 'cpus' means "online CPUs minus the RX-interrupt ones,
	 * of the NIC's node when it has some, at apply time": writing the list out would change that meaning, so
	 * it is shown as a comment. */
	if (p->cpus_default)
		fputs("# cpus: not set, so the online CPUs but those taking RX interrupts, of the NIC's NUMA node if it has some: [", f);
	else
		fputs("cpus: [", f);
	print_cpus(f, &p->cpus);
	fputs("]\n", f);
	fprintf(f, "queue_size: %u\n", p->queue_size);
	fprintf(f, "table_size: %u\n", p->table_size);
	fprintf(f, "hash: {key: %s, symmetric: %s, seed: ",
		steer_hash_key_name(policy_slot_flags(p)),
		p->symmetric ? "true" : "false");
	if (p->seed_random)
		fputs("random}\n", f);
	else
		fprintf(f, "0x%llx}\n", (unsigned long long)p->seed);
	fprintf(f, "local_fastpath: %s\n", p->local_fastpath ? "true" : "false");
	fprintf(f, "rebalance: %s\n",
		p->rebalance == POLICY_REBALANCE_IMMEDIATE ? "immediate" : "drain");
	fprintf(f, "drain_timeout: %u\n", p->drain_timeout_ms);
	if (p->nonip_cpu == STEER_CPU_LOCAL)
		fputs("non_ip: local\n", f);
	else
		fprintf(f, "non_ip: {cpu: %u}\n", p->nonip_cpu);
	print_decap(f, &p->decap);
	if (p->balance)
		fprintf(f, "balance: {by: %s, interval: %u, tolerance: %u, max_moves: %u}\n",
			p->balance_frames ? "frames" : "cpu",
			p->balance_interval_ms, p->balance_tolerance,
			p->balance_max_moves);
	else
		fputs("balance: off\n", f);
	if (p->worker_sched == POLICY_SCHED_KEEP)
		fputs("worker_sched: keep\n", f);
	else if (p->worker_sched == POLICY_SCHED_OTHER && !p->worker_nice)
		fputs("worker_sched: other\n", f);
	else if (p->worker_sched == POLICY_SCHED_OTHER)
		fprintf(f, "worker_sched: {policy: other, nice: %u}\n",
			p->worker_nice);
	else
		fprintf(f, "worker_sched: {policy: %s, priority: %u}\n",
			p->worker_sched == POLICY_SCHED_FIFO ? "fifo" : "rr",
			p->worker_priority);
	if (!p->nrules)
		fputs("# rules: none; the table places every flow\n", f);
	else
		fputs("rules:\n", f);
	for (i = 0; i < p->nrules; i++)
		print_rule(f, &p->rules[i]);
	return ferror(f) ? -EIO : 0;
}

static bool cpus_equal(const struct policy_cpus *a, const struct policy_cpus *b)
{
	return a->n == b->n &&
	       (!a->n || !memcmp(a->v, b->v, a->n * sizeof(*a->v)));
}

bool policy_equal(const struct steer_policy *a, const struct steer_policy *b)
{
	int i;

	if (a->version != b->version || !cpus_equal(&a->cpus, &b->cpus) ||
	    a->cpus_default != b->cpus_default ||
	    a->queue_size != b->queue_size || a->table_size != b->table_size ||
	    a->hash_key != b->hash_key || a->symmetric != b->symmetric ||
	    a->seed_random != b->seed_random ||
	    (!a->seed_random && a->seed != b->seed) ||
	    a->local_fastpath != b->local_fastpath ||
	    a->rebalance != b->rebalance ||
	    a->drain_timeout_ms != b->drain_timeout_ms ||
	    a->nonip_cpu != b->nonip_cpu ||
	    !policy_decap_equal(&a->decap, &b->decap) ||
	    a->balance != b->balance ||
	    (a->balance &&
	     (a->balance_frames != b->balance_frames ||
	      a->balance_interval_ms != b->balance_interval_ms ||
	      a->balance_tolerance != b->balance_tolerance ||
	      a->balance_max_moves != b->balance_max_moves)) ||
	    a->worker_sched != b->worker_sched ||
	    a->worker_priority != b->worker_priority ||
	    a->worker_nice != b->worker_nice ||
	    a->nrules != b->nrules || a->nshapes != b->nshapes ||
	    memcmp(a->shapes, b->shapes, sizeof(a->shapes)))
		return false;
	for (i = 0; i < a->nrules; i++) {
		const struct policy_rule *x = &a->rules[i], *y = &b->rules[i];

		if (x->shape != y->shape || x->fields != y->fields ||
		    memcmp(&x->flow, &y->flow, sizeof(x->flow)) ||
		    x->src_len != y->src_len || x->dst_len != y->dst_len ||
		    !cpus_equal(&x->cpus, &y->cpus))
			return false;
	}
	return true;
}

__u32 policy_slot_flags(const struct steer_policy *p)
{
	__u32 flags = 0;

#define HASH_KEY_FLAGS_(name, f) f,
	static const __u32 key_flags[] = { STEER_HASH_KEYS(HASH_KEY_FLAGS_) };
#undef HASH_KEY_FLAGS_

	flags |= key_flags[p->hash_key];
	if (p->symmetric)
		flags |= STEER_F_SYMMETRIC;
	if (p->local_fastpath)
		flags |= STEER_F_LOCAL_FASTPATH;
	if (p->rebalance == POLICY_REBALANCE_DRAIN)
		flags |= STEER_F_DRAIN;
	if (p->balance)
		flags |= STEER_F_BALANCE;
	if (p->balance && p->balance_frames)
		flags |= STEER_F_BALANCE_FRAMES;
	return flags;
}
