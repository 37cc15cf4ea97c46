// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `xdp-steer apply --dry-run`: the plan (model/plan.h) as text or JSON. */
#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "cli/json.h"
#include "cli/print_plan.h"
#include "cli/print_status.h"

static const char *what_name(enum plan_what w)
{
	return w == PLAN_ADDED ? "added" : w == PLAN_REMOVED ? "removed" :
	       "changed";
}

static const char *cpumap_name(enum plan_cpumap_what w)
{
	switch (w) {
	case PLAN_CPUMAP_CREATED: return "created";
	case PLAN_CPUMAP_REMOVED: return "removed";
	case PLAN_CPUMAP_RESIZED: return "resized";
	case PLAN_CPUMAP_RENEWED: return "renewed";
	}
	return "?";
}

/* "fifo, priority 7", "other, nice 10", "unknown (no kthread found)". */
static const char *sched_text(const struct plan_sched *s, char *buf,
			      size_t len)
{
	if (!s->known)
		snprintf(buf, len, "unknown (no kthread found)");
	else if (s->policy == SCHED_FIFO || s->policy == SCHED_RR)
		snprintf(buf, len, "%s, priority %d", sched_name(s->policy),
			 s->priority);
	else if (s->policy == SCHED_OTHER)
		snprintf(buf, len, "other, nice %d", s->nice);
	else
		snprintf(buf, len, "%s", sched_name(s->policy));
	return buf;
}

static const char *addr_text(const __u32 *a, __u8 family, int len, char *buf,
			     size_t size)
{
	int af = family == STEER_AF_INET ? AF_INET : AF_INET6;
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(af, a, ip, sizeof(ip));
	if (len < 0)
		snprintf(buf, size, "%s", ip);
	else
		snprintf(buf, size, "%s/%d", ip, len);
	return buf;
}

/* A rule entry's fields as the policy's match names them: "proto: tcp,
 * dst_port: 443", "src: 10.1.0.0/16". */
static const char *rule_text(const struct plan_rule *r, char *buf,
			     size_t size)
{
	__u32 shape = r->prefix ? r->pfx.shape : r->exact.shape;
	__u8 proto = r->prefix ? r->pfx.proto : r->exact.flow.proto;
	__u8 family = r->prefix ? r->pfx.family : r->exact.flow.family;
	__u16 sport = r->prefix ? r->pfx.sport : r->exact.flow.sport;
	__u16 dport = r->prefix ? r->pfx.dport : r->exact.flow.dport;
	int plen = r->prefix ? (int)(r->pfx.prefixlen - STEER_PREFIX_FIXED_BITS) : -1;
	const char *name = policy_proto_name(proto), *sep = "";
	const __u32 *src, *dst;
	char a[INET6_ADDRSTRLEN + 16];
	size_t n = 0;

	if (r->prefix) {
		src = shape & STEER_M_PREFIX_SRC ? r->pfx.addr : r->pfx.other;
		dst = shape & STEER_M_PREFIX_SRC ? r->pfx.other : r->pfx.addr;
	} else {
		src = r->exact.flow.src;
		dst = r->exact.flow.dst;
	}
	buf[0] = 0;
#define ADD(...) (n += snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__))
	if (shape & STEER_M_PROTO) {
		if (name)
			ADD("proto: %s", name);
		else
			ADD("proto: %u", proto);
		sep = ", ";
	}
	if (shape & STEER_M_SRC) {
		ADD("%ssrc: %s", sep, addr_text(src, family,
			shape & STEER_M_PREFIX_SRC ? plen : -1, a, sizeof(a)));
		sep = ", ";
	}
	if (shape & STEER_M_DST) {
		ADD("%sdst: %s", sep, addr_text(dst, family,
			shape & STEER_M_PREFIX_DST ? plen : -1, a, sizeof(a)));
		sep = ", ";
	}
	if (shape & STEER_M_SPORT) {
		ADD("%ssrc_port: %u", sep, ntohs(sport));
		sep = ", ";
	}
	if (shape & STEER_M_DPORT)
		ADD("%sdst_port: %u", sep, ntohs(dport));
#undef ADD
	return buf;
}

static void print_cpus(const struct cpu_set *s)
{
	char list[CPUSET_STR_MAX];

	cpuset_format(s, list, sizeof(list));
	printf("%s %s", cpuset_count(s) == 1 ? "cpu" : "cpus", list);
}

static void print_rules_text(const struct steer_plan *p)
{
	const struct plan_rule *r;
	char text[512];
	int i;

	for (i = 0; i < p->nrules; i++) {
		r = &p->rules[i];
		printf("    %s: {%s}", what_name(r->what),
		       rule_text(r, text, sizeof(text)));
		if (r->what != PLAN_ADDED) {
			printf(" rule %d, ", r->old_rule + 1);
			print_cpus(&r->old_cpus);
		}
		if (r->what == PLAN_CHANGED)
			printf(" ->");
		if (r->what != PLAN_REMOVED) {
			printf(" rule %d, ", r->new_rule + 1);
			print_cpus(&r->new_cpus);
		}
		printf("\n");
	}
}

static void count_rules(const struct steer_plan *p, int *n)
{
	int i;

	n[0] = n[1] = n[2] = 0;
	for (i = 0; i < p->nrules; i++)
		n[p->rules[i].what]++;
}

/* The plan as text, in the plan's order (model/plan.h): a line for the
 * workers, the table's moves (only over a policy in force: a first
 * apply fills the table, it moves no bucket), the hash key, the rules
 * with a line per entry, the cpumap entries, worker_sched, then a line
 * per setting. A part that does not change prints nothing; a plan that
 * changes nothing is one line. */
void print_plan_text(const char *ifname, const char *policy,
		     const struct steer_dry_run *r)
{
	const struct steer_plan *p = &r->plan;
	char a[128], b[128];
	int i, n[3];

	if (!p->changes) {
		printf("%s: dry run: %s is the policy in force (generation %u); an apply would change nothing\n",
		       ifname, policy, r->generation);
		return;
	}
	if (p->had_policy)
		printf("%s: dry run: applying %s over generation %u would change (nothing was changed):\n",
		       ifname, policy, r->generation);
	else
		printf("%s: dry run: no policy in force; applying %s would put it in force whole (nothing was changed):\n",
		       ifname, policy);
	if (p->nworkers) {
		printf("  workers:");
		for (i = 0; i < p->nworkers; i++) {
			const struct plan_worker *w = &p->workers[i];

			printf("%s cpu %u ", i ? ";" : "", w->cpu);
			if (!w->old_weight)
				printf("added (weight %u)", w->new_weight);
			else if (!w->new_weight)
				printf("removed (weight %u)", w->old_weight);
			else
				printf("weight %u -> %u", w->old_weight,
				       w->new_weight);
		}
		printf("\n");
	}
	if (p->had_policy && (p->moved || p->old_table_size != p->new_table_size)) {
		printf("  table: %u of %u buckets would move", p->moved, p->units);
		if (p->old_table_size != p->new_table_size)
			printf(" (table %u -> %u buckets; counted in the larger's)",
			       p->old_table_size, p->new_table_size);
		for (i = 0; i < p->nmoves; i++)
			printf("%s cpu %u -> cpu %u: %u", i ? "," : ":",
			       p->moves[i].from, p->moves[i].to,
			       p->moves[i].buckets);
		printf("\n");
	}
	if (p->rehash)
		printf("  hash key: a new one; every flow is hashed anew, whatever its bucket's CPU\n");
	if (p->nrules) {
		count_rules(p, n);
		printf("  rules (map entries): %d added, %d removed, %d changed\n",
		       n[PLAN_ADDED], n[PLAN_REMOVED], n[PLAN_CHANGED]);
		print_rules_text(p);
	}
	if (p->ncpumap) {
		printf("  cpumap:");
		for (i = 0; i < p->ncpumap; i++) {
			const struct plan_cpumap *c = &p->cpumap[i];

			printf("%s cpu %u %s", i ? ";" : "", c->cpu,
			       cpumap_name(c->what));
			if (c->what == PLAN_CPUMAP_CREATED)
				printf(" (queue_size %u)", c->new_qsize);
			else if (c->what == PLAN_CPUMAP_REMOVED)
				printf(" (queue_size %u, once no bucket drains from it)",
				       c->old_qsize);
			else if (c->what == PLAN_CPUMAP_RESIZED)
				printf(" (queue_size %u -> %u)", c->old_qsize,
				       c->new_qsize);
			else
				printf(" (its kthread may run off its CPU)");
		}
		printf("\n");
	}
	if (p->nsched) {
		printf("  worker_sched:");
		for (i = 0; i < p->nsched; i++)
			printf("%s cpu %u %s -> %s", i ? ";" : "",
			       p->sched[i].cpu,
			       sched_text(&p->sched[i].from, a, sizeof(a)),
			       sched_text(&p->sched[i].to, b, sizeof(b)));
		printf("\n");
	}
	for (i = 0; i < p->nsettings; i++)
		printf("  %s: %s -> %s\n", p->settings[i].name,
		       p->settings[i].from, p->settings[i].to);
}

static void json_sched(const struct plan_sched *s)
{
	if (!s->known) {
		printf("null");
		return;
	}
	printf("{\"policy\": \"%s\", \"priority\": %d, \"nice\": %d}",
	       sched_name(s->policy), s->priority,
	       s->policy == SCHED_OTHER ? s->nice : 0);
}

static void json_cpus(const struct cpu_set *s)
{
	__u32 cpu;
	int first = 1;

	printf("[");
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		if (cpuset_has(s, cpu)) {
			printf("%s%u", first ? "" : ", ", cpu);
			first = 0;
		}
	printf("]");
}

/* The plan as one JSON document (print_plan.h), in the text's order.
 * Every key is there whatever changes, a list empty where nothing does,
 * so a script reads one shape; a rule's "old" is null when it is added
 * and "new" null when it is removed. Every string from outside (the
 * interface, the policy file, rule matches, settings) goes through
 * json_str(). */
void print_plan_json(const char *ifname, const char *policy,
		     const struct steer_dry_run *r)
{
	const struct steer_plan *p = &r->plan;
	char text[512];
	int i;

	printf("{\"ifname\": ");
	json_str(stdout, ifname);
	printf(", \"policy\": ");
	json_str(stdout, policy);
	printf(", \"dry_run\": true, \"changes\": %s, \"policy_in_force\": %s, \"generation\": %u",
	       p->changes ? "true" : "false", p->had_policy ? "true" : "false",
	       r->generation);
	printf(", \"workers\": [");
	for (i = 0; i < p->nworkers; i++)
		printf("%s{\"cpu\": %u, \"old_weight\": %u, \"new_weight\": %u}",
		       i ? ", " : "", p->workers[i].cpu,
		       p->workers[i].old_weight, p->workers[i].new_weight);
	printf("], \"table\": {\"old_size\": %u, \"new_size\": %u, \"units\": %u, \"moved\": %u, \"moves\": [",
	       p->old_table_size, p->new_table_size, p->units, p->moved);
	for (i = 0; i < p->nmoves; i++)
		printf("%s{\"from\": %u, \"to\": %u, \"buckets\": %u}",
		       i ? ", " : "", p->moves[i].from, p->moves[i].to,
		       p->moves[i].buckets);
	printf("]}, \"rehash\": %s, \"rules\": [", p->rehash ? "true" : "false");
	for (i = 0; i < p->nrules; i++) {
		const struct plan_rule *u = &p->rules[i];

		printf("%s{\"change\": \"%s\", \"kind\": \"%s\", \"match\": ",
		       i ? ", " : "", what_name(u->what),
		       u->prefix ? "prefix" : "exact");
		json_str(stdout, rule_text(u, text, sizeof(text)));
		printf(", \"old\": ");
		if (u->what == PLAN_ADDED) {
			printf("null");
		} else {
			printf("{\"rule\": %d, \"cpus\": ", u->old_rule + 1);
			json_cpus(&u->old_cpus);
			printf("}");
		}
		printf(", \"new\": ");
		if (u->what == PLAN_REMOVED) {
			printf("null");
		} else {
			printf("{\"rule\": %d, \"cpus\": ", u->new_rule + 1);
			json_cpus(&u->new_cpus);
			printf("}");
		}
		printf("}");
	}
	printf("], \"cpumap\": [");
	for (i = 0; i < p->ncpumap; i++)
		printf("%s{\"cpu\": %u, \"change\": \"%s\", \"old_qsize\": %u, \"new_qsize\": %u}",
		       i ? ", " : "", p->cpumap[i].cpu,
		       cpumap_name(p->cpumap[i].what), p->cpumap[i].old_qsize,
		       p->cpumap[i].new_qsize);
	printf("], \"worker_sched\": [");
	for (i = 0; i < p->nsched; i++) {
		printf("%s{\"cpu\": %u, \"from\": ", i ? ", " : "",
		       p->sched[i].cpu);
		json_sched(&p->sched[i].from);
		printf(", \"to\": ");
		json_sched(&p->sched[i].to);
		printf("}");
	}
	printf("], \"settings\": [");
	for (i = 0; i < p->nsettings; i++) {
		printf("%s{\"name\": ", i ? ", " : "");
		json_str(stdout, p->settings[i].name);
		printf(", \"from\": ");
		json_str(stdout, p->settings[i].from);
		printf(", \"to\": ");
		json_str(stdout, p->settings[i].to);
		printf("}");
	}
	printf("]}\n");
}
