// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What an apply would change: two builds compared (plan.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/keymap.h"
#include "model/plan.h"

void plan_free(struct steer_plan *p)
{
	free(p->moves);
	free(p->rules);
	p->moves = NULL;
	p->rules = NULL;
	p->nmoves = p->nrules = 0;
}

/* ---- workers and the table ------------------------------------------------ */

static void weights_of(const struct steer_build *b, __u32 *w)
{
	int i;

	memset(w, 0, STEER_CPU_IDS * sizeof(*w));
	for (i = 0; b && i < b->ncpus; i++)
		if (b->cpus[i].cpu < STEER_CPU_IDS)
			w[b->cpus[i].cpu] = b->cpus[i].weight;
}

static void plan_workers(const struct plan_in *in, struct steer_plan *p)
{
	__u32 old_w[STEER_CPU_IDS], new_w[STEER_CPU_IDS], cpu;

	weights_of(in->old, old_w);
	weights_of(in->next, new_w);
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		if (old_w[cpu] != new_w[cpu])
			p->workers[p->nworkers++] = (struct plan_worker){
				cpu, old_w[cpu], new_w[cpu] };
}

/* Hash h goes to table[h & (size - 1)]: in the larger table's buckets
 * each part of the hash space has one CPU in either table, so a size
 * change is counted exactly too. */
static int plan_moves(const struct plan_in *in, struct steer_plan *p)
{
	__u32 m, n, j, from, to, *count;

	p->new_table_size = n = in->next->slot.table_size;
	p->units = n;
	if (!in->old)
		return 0;
	p->old_table_size = m = in->old->slot.table_size;
	p->units = m > n ? m : n;
	if (!m || !n)
		return 0;
	count = calloc((size_t)STEER_CPU_IDS * STEER_CPU_IDS, sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (j = 0; j < p->units; j++) {
		from = in->old_table[j & (m - 1)];
		to = in->next_table[j & (n - 1)];
		if (from == to || from >= STEER_CPU_IDS || to >= STEER_CPU_IDS)
			continue;
		if (!count[from * STEER_CPU_IDS + to]++)
			p->nmoves++;
		p->moved++;
	}
	p->moves = calloc(p->nmoves + 1, sizeof(*p->moves));
	if (!p->moves) {
		free(count);
		return -ENOMEM;
	}
	p->nmoves = 0;
	for (from = 0; from < STEER_CPU_IDS; from++)
		for (to = 0; to < STEER_CPU_IDS; to++)
			if (count[from * STEER_CPU_IDS + to])
				p->moves[p->nmoves++] = (struct plan_move){
					from, to, count[from * STEER_CPU_IDS + to] };
	free(count);
	return 0;
}

/* ---- rules ----------------------------------------------------------------- */

/* A rule entry of either kind, seen the same way. */
struct entry {
	const void *key;		/* slot as the build holds it */
	const struct steer_target *t;
};

static struct entry flow_entry(const struct steer_build *b, int i)
{
	return (struct entry){ &b->flow[i].key, &b->flow[i].target };
}

static struct entry prefix_entry(const struct steer_build *b, int i)
{
	return (struct entry){ &b->prefix[i].key, &b->prefix[i].target };
}

/* Copies 'key' with its slot cleared into buf: the same rule in either
 * slot compares equal. */
static void unslot(bool prefix, const void *key, void *buf)
{
	if (prefix) {
		memcpy(buf, key, sizeof(struct steer_prefix_key));
		((struct steer_prefix_key *)buf)->slot = 0;
	} else {
		memcpy(buf, key, sizeof(struct steer_rule_key));
		((struct steer_rule_key *)buf)->slot = 0;
	}
}

/* The CPUs a target sends to, one per unit of weight: n of them into
 * out[] (at most STEER_RULE_CPUS_MAX). */
static __u32 target_cpus(const struct steer_build *b,
			 const struct steer_target *t, __u32 *out)
{
	__u32 i;

	if (t->ncpus <= 1) {
		out[0] = t->cpu;
		return 1;
	}
	for (i = 0; i < t->ncpus && t->cpu + i < b->nrule_cpus &&
		    i < STEER_RULE_CPUS_MAX; i++)
		out[i] = b->rule_cpus[t->cpu + i];
	return i;
}

static void cpus_set(const __u32 *v, __u32 n, struct cpu_set *s)
{
	__u32 i;

	cpuset_zero(s);
	for (i = 0; i < n; i++)
		if (v[i] < STEER_CPU_IDS)
			cpuset_set(s, v[i]);
}

struct rule_walk {
	const struct plan_in *in;
	struct steer_plan *p;
	bool prefix;
	int nold, nnew;
	struct entry (*get)(const struct steer_build *b, int i);
	__u32 *a, *b;		/* STEER_RULE_CPUS_MAX each */
};

static void add_rule(struct rule_walk *w, enum plan_what what,
		     const void *key, const struct entry *o,
		     const struct entry *n)
{
	struct plan_rule *r = &w->p->rules[w->p->nrules++];
	__u32 na, nb;

	memset(r, 0, sizeof(*r));
	r->what = what;
	r->prefix = w->prefix;
	if (w->prefix)
		unslot(true, key, &r->pfx);
	else
		unslot(false, key, &r->exact);
	r->old_rule = o ? (int)o->t->rule_id : -1;
	r->new_rule = n ? (int)n->t->rule_id : -1;
	if (o) {
		na = target_cpus(w->in->old, o->t, w->a);
		cpus_set(w->a, na, &r->old_cpus);
	}
	if (n) {
		nb = target_cpus(w->in->next, n->t, w->b);
		cpus_set(w->b, nb, &r->new_cpus);
	}
}

/* Whether two targets send alike: the same rule, the same CPUs with the
 * same weights in the same order (the set index picks by position). */
static bool same_target(struct rule_walk *w, const struct entry *o,
			const struct entry *n)
{
	__u32 na, nb;

	if (o->t->rule_id != n->t->rule_id || o->t->ncpus != n->t->ncpus)
		return false;
	na = target_cpus(w->in->old, o->t, w->a);
	nb = target_cpus(w->in->next, n->t, w->b);
	return na == nb && !memcmp(w->a, w->b, na * sizeof(*w->a));
}

/* Removed and changed entries in the order of the rules in force, then
 * the added ones in the new build's order. */
static int diff_rules(struct rule_walk *w)
{
	size_t size = w->prefix ? sizeof(struct steer_prefix_key) :
				  sizeof(struct steer_rule_key);
	union {
		struct steer_rule_key e;
		struct steer_prefix_key p;
	} k;
	struct keymap next, old;
	struct entry o, n;
	int i, j, err;

	err = keymap_init(&next, size, w->nnew + 1);
	if (err)
		return err;
	err = keymap_init(&old, size, w->nold + 1);
	if (err) {
		keymap_free(&next);
		return err;
	}
	for (i = 0; i < w->nnew; i++) {
		unslot(w->prefix, w->get(w->in->next, i).key, &k);
		keymap_put_min(&next, &k, i);
	}
	for (i = 0; i < w->nold; i++) {
		o = w->get(w->in->old, i);
		unslot(w->prefix, o.key, &k);
		keymap_put_min(&old, &k, i);
		j = keymap_get(&next, &k);
		if (j < 0) {
			add_rule(w, PLAN_REMOVED, o.key, &o, NULL);
			continue;
		}
		n = w->get(w->in->next, j);
		if (!same_target(w, &o, &n))
			add_rule(w, PLAN_CHANGED, o.key, &o, &n);
	}
	for (j = 0; j < w->nnew; j++) {
		n = w->get(w->in->next, j);
		unslot(w->prefix, n.key, &k);
		if (keymap_get(&old, &k) < 0)
			add_rule(w, PLAN_ADDED, n.key, NULL, &n);
	}
	keymap_free(&next);
	keymap_free(&old);
	return 0;
}

static int plan_rules(const struct plan_in *in, struct steer_plan *p)
{
	struct rule_walk w = { .in = in, .p = p };
	int nold = in->old ? in->old->nflow + in->old->nprefix : 0;
	int err;

	p->rules = calloc(nold + in->next->nflow + in->next->nprefix + 1,
			  sizeof(*p->rules));
	w.a = calloc(STEER_RULE_CPUS_MAX, sizeof(*w.a));
	w.b = calloc(STEER_RULE_CPUS_MAX, sizeof(*w.b));
	if (!p->rules || !w.a || !w.b) {
		err = -ENOMEM;
		goto out;
	}
	w.get = flow_entry;
	w.nold = in->old ? in->old->nflow : 0;
	w.nnew = in->next->nflow;
	err = diff_rules(&w);
	if (err)
		goto out;
	w.prefix = true;
	w.get = prefix_entry;
	w.nold = in->old ? in->old->nprefix : 0;
	w.nnew = in->next->nprefix;
	err = diff_rules(&w);
out:
	free(w.a);
	free(w.b);
	return err;
}

/* ---- cpumap entries and their kthreads ------------------------------------- */

static void add_cpumap(struct steer_plan *p, __u32 cpu,
		       enum plan_cpumap_what what, __u32 old_q, __u32 new_q)
{
	p->cpumap[p->ncpumap++] = (struct plan_cpumap){ cpu, what, old_q,
							new_q };
}

static bool sched_differs(const struct plan_sched *a,
			  const struct plan_sched *b)
{
	return !a->known || a->policy != b->policy ||
	       a->priority != b->priority ||
	       (b->policy == SCHED_OTHER && a->nice != b->nice);
}

/* Per CPU, its entry in the new slot's bank (nt) and in the other (ot):
 * kept, created, made anew (renewed; resized when the ring size
 * differs), or removed; then, under a worker_sched other than keep, the
 * kthreads whose class would change (a new worker's starts at
 * SCHED_OTHER, nice 0). */
static void plan_cpumap(const struct plan_in *in, struct steer_plan *p)
{
	const struct steer_build *b = in->next;
	unsigned char need[STEER_CPU_IDS];
	struct plan_sched from, to = {
		true, b->sched_policy, b->sched_priority, b->sched_nice };
	__u32 cpu, nt, ot, bank = b->slot.bank & 1, q = b->slot.queue_size;
	bool renew, fresh;

	build_needed_cpus(b, in->next_table, need);
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++) {
		nt = bank * STEER_CPU_IDS + cpu;
		ot = (!bank) * STEER_CPU_IDS + cpu;
		renew = need[cpu] && in->renew && cpuset_has(in->renew, cpu);
		fresh = false;
		if (!need[cpu]) {
			if (in->in_cpumap[ot])
				add_cpumap(p, cpu, PLAN_CPUMAP_REMOVED,
					   in->qsize[ot], 0);
			if (in->in_cpumap[nt])
				add_cpumap(p, cpu, PLAN_CPUMAP_REMOVED,
					   in->qsize[nt], 0);
			continue;
		}
		if (in->in_cpumap[nt]) {
			if (renew)
				add_cpumap(p, cpu, PLAN_CPUMAP_RENEWED,
					   in->qsize[nt], q);
			if (in->in_cpumap[ot])
				add_cpumap(p, cpu, PLAN_CPUMAP_REMOVED,
					   in->qsize[ot], 0);
			fresh = renew;
		} else if (in->in_cpumap[ot]) {
			add_cpumap(p, cpu, in->qsize[ot] == q ?
				   PLAN_CPUMAP_RENEWED : PLAN_CPUMAP_RESIZED,
				   in->qsize[ot], q);
			fresh = true;
		} else {
			add_cpumap(p, cpu, PLAN_CPUMAP_CREATED, 0, q);
			fresh = true;
		}
		if (!b->sched_set)
			continue;
		/* A kthread made anew in place of one (renewed, resized)
		 * is compared with that one: the worker's class is what
		 * changes or not. */
		if (!fresh)
			from = in->sched[nt];
		else if (in->in_cpumap[ot] && in->sched[ot].known)
			from = in->sched[ot];
		else if (in->in_cpumap[nt] && in->sched[nt].known)
			from = in->sched[nt];
		else
			from = (struct plan_sched){ true, SCHED_OTHER, 0, 0 };
		if (sched_differs(&from, &to))
			p->sched[p->nsched++] = (struct plan_sched_change){
				cpu, from, to };
	}
}

/* ---- slot settings --------------------------------------------------------- */

static void setting(struct steer_plan *p, const char *name, const char *from,
		    const char *to)
{
	struct plan_setting *s;

	if (!strcmp(from, to) || p->nsettings >= PLAN_SETTINGS_MAX)
		return;
	s = &p->settings[p->nsettings++];
	s->name = name;
	snprintf(s->from, sizeof(s->from), "%s", from);
	snprintf(s->to, sizeof(s->to), "%s", to);
}

static const char *fmt(char *buf, size_t len, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
static const char *fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, len, f, ap);
	va_end(ap);
	return buf;
}

/* "gre, vxlan 4789 8472", as the policy's decap names them; "none". */
static const char *decap_text(const struct steer_slot *s, char *buf,
			      size_t len)
{
	size_t n = 0;
	__u32 e;
	int i;

	buf[0] = 0;
	for (e = 1; e < STEER_ENCAP_COUNT; e++) {
		if (!(s->decap & STEER_DECAP(e)))
			continue;
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
			      n ? ", " : "", steer_encap_name(e));
		for (i = 0; i < STEER_DECAP_PORTS; i++)
			if (s->decap_port[i] && s->decap_port_encap[i] == e)
				n += snprintf(buf + n, n < len ? len - n : 0,
					      " %u", ntohs(s->decap_port[i]));
	}
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

static const char *onoff(__u32 flags, __u32 bit)
{
	return flags & bit ? "true" : "false";
}

static const char *nonip_text(__u32 cpu, char *buf, size_t len)
{
	return cpu == STEER_CPU_LOCAL ? "local" : fmt(buf, len, "cpu %u", cpu);
}

static const char *balance_text(const struct steer_slot *s, char *buf,
				size_t len)
{
	if (!(s->flags & STEER_F_BALANCE))
		return "off";
	return fmt(buf, len, "{by: %s, interval: %u, tolerance: %u, max_moves: %u}",
		   s->flags & STEER_F_BALANCE_FRAMES ? "frames" : "cpu",
		   s->balance_ms, s->balance_tolerance, s->balance_max_moves);
}

static void plan_settings(const struct plan_in *in, struct steer_plan *p)
{
	const struct steer_slot *o = &in->old->slot, *n = &in->next->slot;
	char a[96], c[96];
	bool old_random = o->loader_flags & STEER_LF_SEED_RANDOM;
	bool new_random = n->loader_flags & STEER_LF_SEED_RANDOM;

	setting(p, "hash.key", steer_hash_key_name(o->flags),
		steer_hash_key_name(n->flags));
	setting(p, "hash.symmetric", onoff(o->flags, STEER_F_SYMMETRIC),
		onoff(n->flags, STEER_F_SYMMETRIC));
	/* The key itself is a secret: said changed or kept, never shown. */
	p->rehash = in->key_drawn ||
		    memcmp(o->hash_key, n->hash_key, sizeof(o->hash_key));
	if (p->rehash)
		setting(p, "hash.seed", old_random ? "random" : "a fixed seed",
			new_random ? "random, a new key drawn" :
				     "a fixed seed, another key");
	setting(p, "table_size", fmt(a, sizeof(a), "%u", o->table_size),
		fmt(c, sizeof(c), "%u", n->table_size));
	setting(p, "queue_size", fmt(a, sizeof(a), "%u", o->queue_size),
		fmt(c, sizeof(c), "%u", n->queue_size));
	setting(p, "local_fastpath", onoff(o->flags, STEER_F_LOCAL_FASTPATH),
		onoff(n->flags, STEER_F_LOCAL_FASTPATH));
	setting(p, "rebalance", o->flags & STEER_F_DRAIN ? "drain" : "immediate",
		n->flags & STEER_F_DRAIN ? "drain" : "immediate");
	setting(p, "drain_timeout", fmt(a, sizeof(a), "%u", o->drain_ms),
		fmt(c, sizeof(c), "%u", n->drain_ms));
	setting(p, "non_ip", nonip_text(o->nonip_cpu, a, sizeof(a)),
		nonip_text(n->nonip_cpu, c, sizeof(c)));
	setting(p, "decap", decap_text(o, a, sizeof(a)),
		decap_text(n, c, sizeof(c)));
	setting(p, "balance", balance_text(o, a, sizeof(a)),
		balance_text(n, c, sizeof(c)));
}

/* The digest of everything the build puts in a slot but its bank (the
 * cpumap entries say why that moves). */
static __u64 digest_any_bank(const struct steer_build *b, const __u32 *table)
{
	struct steer_build c = *b;

	c.slot.bank = 0;
	return build_digest(&c, table);
}

int plan_make(const struct plan_in *in, struct steer_plan *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->had_policy = in->old != NULL;
	plan_workers(in, p);
	err = plan_moves(in, p);
	if (!err)
		err = plan_rules(in, p);
	if (err) {
		plan_free(p);
		return err;
	}
	plan_cpumap(in, p);
	if (in->old) {
		plan_settings(in, p);
		/* Anything the lists above do not name (the rules' field
		 * sets follow the rules; a drain timeout in ticks follows
		 * the kernel's HZ): an apply would still flip. */
		if (!p->nworkers && !p->moved && !p->nrules && !p->nsettings &&
		    digest_any_bank(in->old, in->old_table) !=
		    digest_any_bank(in->next, in->next_table))
			setting(p, "the slot's other fields", "in force",
				"differ");
	}
	p->changes = !in->old || p->nworkers || p->moved || p->nrules ||
		     p->ncpumap || p->nsched || p->nsettings || p->rehash;
	return 0;
}
