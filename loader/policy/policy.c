// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The policy parser's entry points: a file or a string read into one
 * document, its top-level keys checked into a struct steer_policy. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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
static int get_policy(struct pctx *c, const yaml_node_t *root)
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

static void policy_defaults(struct steer_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->version = POLICY_VERSION;
	p->cpus_default = true;
	p->queue_size = POLICY_QUEUE_DEFAULT;
	p->table_size = STEER_TABLE_DEFAULT;
	p->hash_key = POLICY_HASH_L4;
	p->seed_random = true;
	p->local_fastpath = true;
	p->rebalance = POLICY_REBALANCE_DRAIN;
	p->drain_timeout_ms = POLICY_DRAIN_TIMEOUT_DEFAULT;
	p->balance = true;
	p->balance_interval_ms = POLICY_BALANCE_INTERVAL_DEFAULT;
	p->balance_tolerance = POLICY_BALANCE_TOLERANCE_CPU;
	p->balance_max_moves = POLICY_BALANCE_MOVES_DEFAULT;
	p->nonip_cpu = STEER_CPU_LOCAL;
	p->worker_sched = POLICY_SCHED_OTHER;
	p->worker_nice = POLICY_SCHED_NICE_DEFAULT;
	policy_decap_default(&p->decap);
}

static void syntax_error(struct diags *d, yaml_parser_t *yp, const char *text,
			 size_t len)
{
	const yaml_mark_t *m = &yp->problem_mark;
	const char *problem = yp->problem ? yp->problem : "cannot parse";
	char ctx[128] = "";

	if (yp->error == YAML_READER_ERROR) {
		/* libyaml's reader gives only a byte offset: find its line,
		 * and its column in characters as the scanner counts. */
		size_t i, line = 1, col = 1, at = yp->problem_offset;

		for (i = 0; i < at && i < len; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
				col++;
			}
		}
		diag_add(d, DIAG_ERROR, line, col, "invalid YAML: %s (byte %zu)",
			 problem, at);
		return;
	}
	if (yp->context)
		snprintf(ctx, sizeof(ctx), " (%s at %zu:%zu)", yp->context,
			 yp->context_mark.line + 1, yp->context_mark.column + 1);
	/* libyaml refuses a plain scalar starting with ':' in flow style,
	 * which is how "{src: ::1}" fails: say what to do about it. */
	if (m->index > 0 && m->index + 1 < len && text[m->index] == ':' &&
	    strchr(" ,[{", text[m->index - 1]) && text[m->index + 1] != ' ')
		snprintf(ctx + strlen(ctx), sizeof(ctx) - strlen(ctx),
			 "; quote IPv6 addresses like \"::1\"");
	diag_add(d, DIAG_ERROR, m->line + 1, m->column + 1, "invalid YAML: %s%s",
		 problem, ctx);
}

int policy_parse_string(const char *text, size_t len, const char *name,
			const struct cpu_set *online, struct steer_policy *p,
			struct diags *d)
{
	return policy_parse_string_on(text, len, name, online, NULL, p, d);
}

/* Bounds the stream (ycheck_stream()) before libyaml builds a document,
 * checks the one document's keys (get_policy()), then refuses a second
 * document. Contract in policy.h. */
int policy_parse_string_on(const char *text, size_t len, const char *name,
			   const struct cpu_set *online,
			   const char *online_name, struct steer_policy *p,
			   struct diags *d)
{
	struct cpu_set sys_online, sys_possible;
	const struct cpu_set *possible = NULL;
	yaml_document_t doc, extra;
	yaml_node_t *root, *next;
	yaml_parser_t yp;
	struct pctx c;
	int err;

	policy_defaults(p);
	err = diags_init(d, name);
	if (err)
		return err;
	if (!online) {
		err = cpuset_read_online(&sys_online, NULL);
		if (err) {
			diag_add(d, DIAG_ERROR, 0, 0,
				 "cannot read the online CPUs: %s",
				 strerror(-err));
			return err;
		}
		online = &sys_online;
		if (!cpuset_read_online(&sys_possible,
					"/sys/devices/system/cpu/possible"))
			possible = &sys_possible;
	}
	err = ycheck_stream(d, text, len, POLICY_DEPTH_MAX);
	if (err)
		return err;
	if (!yaml_parser_initialize(&yp))
		return -ENOMEM;
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	if (!yaml_parser_load(&yp, &doc)) {
		syntax_error(d, &yp, text, len);
		yaml_parser_delete(&yp);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		diag_add(d, DIAG_ERROR, 1, 1, "empty policy; it needs at least 'version: %d'",
			 POLICY_VERSION);
		err = -EINVAL;
		goto out_doc;
	}
	c = (struct pctx){ .doc = &doc, .d = d, .online = online,
			   .online_name = online ? online_name : NULL,
			   .possible = possible, .p = p };
	err = get_policy(&c, root);

	if (!yaml_parser_load(&yp, &extra)) {
		syntax_error(d, &yp, text, len);
		err = -EINVAL;
	} else {
		next = yaml_document_get_root_node(&extra);
		if (next) {
			ERR(&c, next, "a second YAML document; a policy is one document");
			err = -EINVAL;
		}
		yaml_document_delete(&extra);
	}
	/* Messages in document order, whatever order the keys were checked
	 * in. */
	if (diags_sort(d) && !err)
		err = -ENOMEM;
	if (!err && d->nerrors)
		err = -EINVAL;
out_doc:
	yaml_document_delete(&doc);
	yaml_parser_delete(&yp);
	return err;
}

/* Fails the parse before it starts: defaults in *p, the reason in *d. */
static int file_error(const char *path, struct steer_policy *p,
		      struct diags *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int file_error(const char *path, struct steer_policy *p,
		      struct diags *d, int err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	policy_defaults(p);
	if (diags_init(d, path))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_add(d, DIAG_ERROR, 0, 0, "%s", msg);
	return err;
}

int policy_parse_file(const char *path, const struct cpu_set *online,
		      struct steer_policy *p, struct diags *d)
{
	return policy_parse_file_on(path, online, NULL, p, d);
}

/* Reads the whole file, refusing what is not a regular file of at most
 * POLICY_FILE_MAX bytes, then parses its text as policy_parse_string_on()
 * does. Contract in policy.h. */
int policy_parse_file_on(const char *path, const struct cpu_set *online,
			 const char *online_name, struct steer_policy *p,
			 struct diags *d)
{
	struct stat st;
	char *text;
	ssize_t n = 0;
	size_t len = 0;
	int fd, err;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer before
	 * fstat() can refuse it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		return file_error(path, p, d, err, "cannot open: %s",
				  strerror(-err));
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return file_error(path, p, d, err, "cannot read: %s",
				  strerror(-err));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return file_error(path, p, d, -EISDIR,
				  "is a directory; give the path of a policy file");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return file_error(path, p, d, -EINVAL,
				  "is not a regular file (a device, pipe or socket); give the path of a policy file");
	}
	if (st.st_size > POLICY_FILE_MAX) {
		close(fd);
		return file_error(path, p, d, -EFBIG,
				  "is %lld bytes; a policy may be at most %d (1 MiB)",
				  (long long)st.st_size, POLICY_FILE_MAX);
	}
	/* One byte more than allowed, to notice a file that grew. */
	text = malloc(POLICY_FILE_MAX + 1);
	if (!text) {
		close(fd);
		return file_error(path, p, d, -ENOMEM, "out of memory");
	}
	while (len <= POLICY_FILE_MAX) {
		n = read(fd, text + len, POLICY_FILE_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err) {
		free(text);
		return file_error(path, p, d, err, "cannot read: %s",
				  strerror(-err));
	}
	if (len > POLICY_FILE_MAX) {
		free(text);
		return file_error(path, p, d, -EFBIG,
				  "is more than %d bytes (1 MiB), the most a policy may be",
				  POLICY_FILE_MAX);
	}
	err = policy_parse_string_on(text, len, path, online, online_name, p,
				     d);
	free(text);
	return err;
}

void policy_free(struct steer_policy *p)
{
	int i;

	for (i = 0; i < p->nrules; i++)
		free(p->rules[i].cpus.v);
	free(p->rules);
	free(p->cpus.v);
	memset(p, 0, sizeof(*p));
}

