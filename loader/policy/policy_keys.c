// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The policy's top-level keys, one getter each, and pol_get_policy(), the
 * phases that run them over a document's root in the order their checks
 * depend on. Calls only the shared getters (pol_get.c), the rules' and
 * decap's (policy_rules.c, policy_decap.c) and yaml_util.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "policy/policy_int.h"

/* Every CPU of 's' at weight 1: 'cpus' left out. */
static int cpus_from_set(const struct cpu_set *s, struct policy_cpus *out)
{
	__u32 cpu;

	out->v = calloc(STEER_CPU_IDS, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	out->n = 0;
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		if (cpuset_has(s, cpu))
			out->v[out->n++] = (struct table_cpu){ cpu, 1 };
	return 0;
}

/* ---- top level ---------------------------------------------------------- */

enum {
	K_VERSION, K_CPUS, K_QUEUE, K_TABLE, K_HASH, K_FASTPATH, K_REBALANCE,
	K_DRAIN_TIMEOUT, K_NONIP, K_BALANCE, K_RULES, K_DECAP, K_SCHED, K_N
};
static const char *const top_keys[K_N] = {
	"version", "cpus", "queue_size", "table_size", "hash", "local_fastpath",
	"rebalance", "drain_timeout", "non_ip", "balance", "rules", "decap",
	"worker_sched",
};

/* hash: {key: one of STEER_HASH_KEYS, symmetric: BOOL, seed: random|N},
 * any of them left out keeping its default. */
static int get_hash(struct pctx *c, const yaml_node_t *n)
{
	static const char *const keys[] = { "key", "symmetric", "seed" };
#define HASH_KEY_NAME_(name, flags) #name,
	static const char *const kinds[] = {
		STEER_HASH_KEYS(HASH_KEY_NAME_) NULL
	};
#undef HASH_KEY_NAME_
	struct steer_policy *p = c->p;
	unsigned long long seed;
	yaml_node_t *v[3];
	int err, i;

	err = ymap_walk(c->d, c->doc, n, "a mapping for hash", keys, 3, v, NULL);
	if (v[0]) {
		i = pol_get_choice(c, v[0], "key", kinds);
		if (i < 0)
			err = -EINVAL;
		else
			p->hash_key = (enum policy_hash_key)i;
	}
	if (v[1] && yget_bool(c->d, v[1], "true or false for symmetric",
			      &p->symmetric))
		err = -EINVAL;
	/* An id has no direction to order; rules and the fallback of an id
	 * key would take it, the id not: refused rather than half done. */
	if (v[1] && p->symmetric && p->hash_key > POLICY_HASH_L3) {
		ERR(c, v[1], "symmetric applies to the l3 and l4 keys, not to key %s",
		    kinds[p->hash_key]);
		err = -EINVAL;
	}
	if (v[2]) {
		if (yis_word(v[2], "random")) {
			p->seed_random = true;
		} else if (yis_int(v[2])) {
			if (yget_u64(c->d, v[2], "random or an integer for seed",
				     &seed))
				err = -EINVAL;
			p->seed_random = false;
			p->seed = seed;
		} else {
			if (yscalar(v[2]) && !yis_null(v[2]))
				ERR(c, v[2], "seed must be random or an integer, got '%s'",
				    yscalar(v[2]));
			else
				ERR(c, v[2], "seed must be random or an integer, got %s",
				    ynode_kind(v[2]));
			err = -EINVAL;
		}
	}
	return err;
}

static int get_nonip(struct pctx *c, const yaml_node_t *n)
{
	static const char *const keys[] = { "cpu" };
	yaml_node_t *v[1];

	if (yis_word(n, "local")) {
		c->p->nonip_cpu = STEER_CPU_LOCAL;
		return 0;
	}
	if (n->type != YAML_MAPPING_NODE) {
		if (yscalar(n) && !yis_null(n))
			ERR(c, n, "non_ip must be local or {cpu: N}, got '%s'",
			    yscalar(n));
		else
			ERR(c, n, "non_ip must be local or {cpu: N}, got %s",
			    ynode_kind(n));
		return -EINVAL;
	}
	if (ymap_walk(c->d, c->doc, n, "{cpu: N} for non_ip", keys, 1, v, NULL))
		return -EINVAL;
	if (!v[0]) {
		ERR(c, n, "non_ip must be local or {cpu: N}, got a mapping without cpu");
		return -EINVAL;
	}
	return pol_get_cpu(c, v[0], &c->p->nonip_cpu);
}

/* worker_sched: other, fifo, rr, keep, or {policy: fifo|rr, priority: N}
 * or {policy: other, nice: N}; priority (1-99, default 1) only for the
 * real-time two, nice (0-19, default 0) only for other. */
#define SCHED_USAGE "worker_sched must be other, fifo, rr, keep, {policy: other, nice: 0-19} or {policy: fifo, priority: 1-99}"
static int get_worker_sched(struct pctx *c, const yaml_node_t *n)
{
	static const char *const keys[] = { "policy", "priority", "nice" };
	static const char *const names[] = { "other", "fifo", "rr" };
	const yaml_node_t *pol = n;
	struct steer_policy *p = c->p;
	yaml_node_t *v[3] = { NULL, NULL, NULL };
	long long x;
	int i;

	p->worker_nice = 0;
	if (n->type != YAML_MAPPING_NODE && yis_word(n, "keep")) {
		p->worker_sched = POLICY_SCHED_KEEP;
		p->worker_priority = 0;
		return 0;
	}
	if (n->type == YAML_MAPPING_NODE) {
		if (ymap_walk(c->d, c->doc, n, "a mapping for worker_sched",
			      keys, 3, v, NULL))
			return -EINVAL;
		if (!v[0]) {
			ERR(c, n, SCHED_USAGE ", got a mapping without policy");
			return -EINVAL;
		}
		pol = v[0];
	}
	for (i = 0; i < 3; i++)
		if (yis_word(pol, names[i]))
			break;
	if (i == 3) {
		if (yscalar(pol) && !yis_null(pol))
			ERR(c, pol, SCHED_USAGE ", got '%s'", yscalar(pol));
		else
			ERR(c, pol, SCHED_USAGE ", got %s", ynode_kind(pol));
		return -EINVAL;
	}
	p->worker_sched = POLICY_SCHED_OTHER + i;
	p->worker_priority = i ? POLICY_SCHED_PRIO_DEFAULT : 0;
	if (v[2]) {
		if (i) {
			ERR(c, v[2], "worker_sched nice applies to other only; remove it, or choose policy: other");
			return -EINVAL;
		}
		if (pol_get_ranged(c, v[2], "worker_sched nice", 0, 19, &x))
			return -EINVAL;
		p->worker_nice = x;
	}
	if (!v[1])
		return 0;
	if (!i) {
		ERR(c, v[1], "worker_sched priority applies to fifo and rr only; remove it, or choose policy: fifo");
		return -EINVAL;
	}
	if (pol_get_ranged(c, v[1], "worker_sched priority", 1, 99, &x))
		return -EINVAL;
	p->worker_priority = x;
	return 0;
}


/* Every worker of the policy gets a bucket of its table: one whose weight
 * earns it none would steer nothing, without a word. Said at 'n' (the
 * table_size, else the cpus; NULL: both defaults, no place in the file). */
static int table_fits(struct pctx *c, const yaml_node_t *n,
		      const struct steer_policy *p)
{
	bool *starved = calloc(p->cpus.n, sizeof(*starved));
	char list[CPUSET_STR_MAX], more[48] = "";
	struct cpu_set none;
	__u32 need;
	int i, k;

	if (!starved)
		return -ENOMEM;
	k = table_starved(p->table_size, p->cpus.v, p->cpus.n, starved, &need);
	if (k > 0) {
		cpuset_zero(&none);
		for (i = 0; i < p->cpus.n; i++)
			if (starved[i])
				cpuset_set(&none, p->cpus.v[i].cpu);
		cpuset_format(&none, list, sizeof(list));
		if (need)
			snprintf(more, sizeof(more), "raise table_size to %u", need);
		else
			snprintf(more, sizeof(more), "even out their weights");
		if (n)
			ERR(c, n, "table_size %u leaves %d of the %d worker CPUs without a bucket (%s), so they would steer nothing: %s",
			    p->table_size, k, p->cpus.n, list, more);
		else
			diag_add(c->d, DIAG_ERROR, 0, 0, "table_size %u leaves %d of the %d worker CPUs without a bucket (%s), so they would steer nothing: %s",
				 p->table_size, k, p->cpus.n, list, more);
	}
	free(starved);
	return k > 0 ? -EINVAL : k == -ENOMEM ? k : 0;
}
/* balance: on, off, or {by: cpu|frames, interval: MS, tolerance: PERCENT,
 * max_moves: N}, any of them left out taking its default. */
static int get_balance(struct pctx *c, const yaml_node_t *n)
{
	static const char *const balance_keys[] = {
		"by", "interval", "tolerance", "max_moves",
	};
	static const char *const balance_by[] = { "cpu", "frames", NULL };
	struct steer_policy *p = c->p;
	yaml_node_t *v[4];
	long long x;
	int err, e;

	if (yis_word(n, "off") || yis_word(n, "on")) {
		p->balance = yis_word(n, "on");
		return 0;
	}
	if (n->type != YAML_MAPPING_NODE) {
		if (yscalar(n) && !yis_null(n))
			ERR(c, n, "balance must be on, off or {by: cpu|frames, interval: MS, tolerance: PERCENT, max_moves: N}, got '%s'",
			    yscalar(n));
		else
			ERR(c, n, "balance must be on, off or {by: cpu|frames, interval: MS, tolerance: PERCENT, max_moves: N}, got %s",
			    ynode_kind(n));
		return -EINVAL;
	}
	err = ymap_walk(c->d, c->doc, n, "a mapping for balance", balance_keys,
			4, v, NULL);
	p->balance = true;
	if (v[0]) {
		e = pol_get_choice(c, v[0], "balance by", balance_by);
		if (e < 0)
			err = -EINVAL;
		else
			p->balance_frames = e == 1;
	}
	/* Each measure has its own default tolerance. */
	if (!v[2])
		p->balance_tolerance = p->balance_frames ?
				       POLICY_BALANCE_TOLERANCE_DEFAULT :
				       POLICY_BALANCE_TOLERANCE_CPU;
	v[0] = v[1];
	v[1] = v[2];
	v[2] = v[3];
	p->balance = true;
	if (v[0]) {
		if (pol_get_ranged(c, v[0], "balance interval (ms)",
				   POLICY_BALANCE_INTERVAL_MIN,
				   POLICY_BALANCE_INTERVAL_MAX, &x))
			err = -EINVAL;
		else
			p->balance_interval_ms = x;
	}
	if (v[1]) {
		if (pol_get_ranged(c, v[1], "balance tolerance (%)", 1, 100, &x))
			err = -EINVAL;
		else
			p->balance_tolerance = x;
	}
	/* At least 2: make_room() hands a bucket on before it takes one. */
	if (v[2]) {
		if (pol_get_ranged(c, v[2], "balance max_moves", 2,
				   STEER_TABLE_MAX, &x))
			err = -EINVAL;
		else
			p->balance_max_moves = x;
	}
	return err;
}

static __u32 pow2_near(long long v)
{
	__u32 hi = 1;

	while (hi < v && hi < STEER_TABLE_MAX)
		hi <<= 1;
	return hi / 2 && v - hi / 2 < hi - v ? hi / 2 : hi;
}

/* 'version', which must be there. */
static int get_version(struct pctx *c, const yaml_node_t *root,
		       const yaml_node_t *n)
{
	long long x;

	if (!n) {
		ERR(c, root, "missing 'version: %d' (the policy format version)",
		    POLICY_VERSION);
		return -EINVAL;
	}
	if (yget_int(c->d, n, "an integer for version", &x))
		return -EINVAL;
	if (x != POLICY_VERSION) {
		ERR(c, n, "unsupported version %lld (this xdp-steer reads version %d)",
		    x, POLICY_VERSION);
		return -EINVAL;
	}
	c->p->version = x;
	return 0;
}

/* 'cpus', or its default: every online CPU (c->online). -ENOMEM ends the
 * parse; -EINVAL has been reported. */
static int get_cpus(struct pctx *c, const yaml_node_t *n)
{
	struct steer_policy *p = c->p;
	int e;

	if (n) {
		p->cpus_default = false;
		return pol_get_cpu_list(c, n, &p->cpus);
	}
	if (!cpuset_count(c->online)) {
		diag_add(c->d, DIAG_ERROR, 0, 0, "no %s CPUs to default 'cpus' to",
			 c->online_name ? c->online_name : "online");
		return -EINVAL;
	}
	e = cpus_from_set(c->online, &p->cpus);
	if (e)
		return e;
	if (cpuset_count_from(c->online, STEER_CPU_IDS))
		diag_add(c->d, DIAG_WARNING, 0, 0, "the default 'cpus' leaves out %u of the %s CPUs, those with ids of %d or more: xdp-steer steers to CPUs below %d only; name the workers with 'cpus' to choose which work",
			 cpuset_count_from(c->online, STEER_CPU_IDS),
			 c->online_name ? c->online_name : "online",
			 STEER_CPU_IDS, STEER_CPU_IDS);
	return 0;
}

/* 'queue_size' and 'table_size'. */
static int get_sizes(struct pctx *c, yaml_node_t *const *v)
{
	struct steer_policy *p = c->p;
	long long x;
	int err = 0;

	if (v[K_QUEUE]) {
		if (pol_get_ranged(c, v[K_QUEUE], "queue_size", 1, POLICY_QUEUE_MAX, &x))
			err = -EINVAL;
		else
			p->queue_size = x;
	}
	if (v[K_TABLE]) {
		if (pol_get_ranged(c, v[K_TABLE], "table_size", 1, STEER_TABLE_MAX, &x)) {
			err = -EINVAL;
		} else if (x & (x - 1)) {
			ERR(c, v[K_TABLE], "table_size %lld is not a power of two (try %u)",
			    x, pow2_near(x));
			err = -EINVAL;
		} else {
			p->table_size = x;
		}
	}
	return err;
}

/* The keys that each set their own part of the policy: every one is read,
 * whatever the others hold. */
static int get_settings(struct pctx *c, yaml_node_t *const *v)
{
	static const char *const rebal[] = { "drain", "immediate", NULL };
	struct steer_policy *p = c->p;
	long long x;
	int err = 0, e;

	if (v[K_HASH] && get_hash(c, v[K_HASH]))
		err = -EINVAL;
	if (v[K_FASTPATH] && yget_bool(c->d, v[K_FASTPATH],
				       "true or false for local_fastpath",
				       &p->local_fastpath))
		err = -EINVAL;
	if (v[K_REBALANCE]) {
		e = pol_get_choice(c, v[K_REBALANCE], "rebalance", rebal);
		if (e < 0)
			err = -EINVAL;
		else
			p->rebalance = e ? POLICY_REBALANCE_IMMEDIATE :
					   POLICY_REBALANCE_DRAIN;
	}
	if (v[K_DRAIN_TIMEOUT]) {
		if (pol_get_ranged(c, v[K_DRAIN_TIMEOUT], "drain_timeout", 1,
				   POLICY_DRAIN_TIMEOUT_MAX, &x))
			err = -EINVAL;
		else
			p->drain_timeout_ms = x;
	}
	if (v[K_NONIP] && get_nonip(c, v[K_NONIP]))
		err = -EINVAL;
	if (v[K_DECAP] && pol_get_decap(c, v[K_DECAP]))
		err = -EINVAL;
	if (v[K_BALANCE] && get_balance(c, v[K_BALANCE]))
		err = -EINVAL;
	if (v[K_SCHED] && get_worker_sched(c, v[K_SCHED]))
		err = -EINVAL;
	return err;
}

/* The balancer moves flows only through drain, never reordering them: on
 * by default only with it, refused with immediate. */
static int balance_needs_drain(struct pctx *c, yaml_node_t *const *v)
{
	struct steer_policy *p = c->p;

	if (!v[K_BALANCE] && p->rebalance == POLICY_REBALANCE_IMMEDIATE)
		p->balance = false;
	if (v[K_BALANCE] && p->balance &&
	    p->rebalance == POLICY_REBALANCE_IMMEDIATE) {
		ERR(c, v[K_BALANCE], "balance needs rebalance: drain (the balancer moves flows only without reordering them); remove 'rebalance: immediate' or set balance: off");
		return -EINVAL;
	}
	return 0;
}

/*
 * The document's root into c->p, whose every key already holds its
 * default (policy_defaults()). The phases, in this order:
 *  1. read the top-level keys: ymap_walk() reports unknown and repeated
 *     ones, and a root that is no mapping ends the parse;
 *  2. 'version';
 *  3. 'cpus' or its default, the online CPUs (the one default that
 *     depends on the machine), then 'queue_size' and 'table_size';
 *  4. the table against the workers (table_fits()), only when nothing
 *     before it has a mistake: a wrong table_size or cpus leaves nothing
 *     sound to check;
 *  5. each other key's getter (get_settings());
 *  6. cross-key checks: balance against rebalance, which also sets the
 *     balancer's default;
 *  7. 'rules' last: their shapes and shadowing depend on hash.symmetric.
 * Apart from phase 4, every phase runs after a mistake in an earlier one,
 * so one run reports every independent mistake; only -ENOMEM stops it.
 * Returns 0, -EINVAL (reported in c->d) or -ENOMEM.
 */
int pol_get_policy(struct pctx *c, const yaml_node_t *root)
{
	yaml_node_t *v[K_N];
	int err, e;

	err = ymap_walk(c->d, c->doc, root, "a mapping of policy keys", top_keys,
			K_N, v, NULL);
	if (root->type != YAML_MAPPING_NODE)
		return err;
	if (get_version(c, root, v[K_VERSION]))
		err = -EINVAL;
	e = get_cpus(c, v[K_CPUS]);
	if (e == -ENOMEM)
		return e;
	if (e)
		err = e;
	if (get_sizes(c, v))
		err = -EINVAL;
	if (!err && c->p->cpus.n) {
		e = table_fits(c, v[K_TABLE] ? v[K_TABLE] : v[K_CPUS], c->p);
		if (e == -ENOMEM)
			return e;
		if (e)
			err = e;
	}
	if (get_settings(c, v))
		err = -EINVAL;
	if (balance_needs_drain(c, v))
		err = -EINVAL;
	if (v[K_RULES]) {
		e = pol_get_rules(c, v[K_RULES]);
		if (e == -ENOMEM)
			return e;
		if (e)
			err = e;
	}
	return err;
}
