/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * policy_int.h - what the files of the policy parser share: the parsing
 * state and the typed getters that report mistakes at their node. Not for
 * users of the parser (they include policy.h).
 */
#ifndef XDP_STEER_POLICY_INT_H
#define XDP_STEER_POLICY_INT_H

#include "policy/policy.h"
#include "util/array.h"

/* Parsing state: the document, where messages go, the online CPUs. */
struct pctx {
	yaml_document_t *doc;
	struct diags *d;
	const struct cpu_set *online;
	const char *online_name;	/* what messages call them: NULL for
					 * "online", else "--cpus 0-63" */
	/* The kernel's possible CPUs, when the policy is checked for this
	 * machine (NULL otherwise): the cpumap has an entry for each. */
	const struct cpu_set *possible;
	struct steer_policy *p;
	long long rule_cpus;	/* rule_cpus entries used by CPU-set rules;
				 * up to 16384 rules x 256 CPUs x weight 1000,
				 * more than an int holds */
};

#define ERR(c, node, ...) diag_node((c)->d, DIAG_ERROR, node, __VA_ARGS__)

/* The typed getters, in pol_get.c: they call only yaml_util.c and the
 * model layer, so every file of the parser may use them. */

/* An integer scalar within [lo, hi]: "NAME V is out of range LO-HI". */
int pol_get_ranged(struct pctx *c, const yaml_node_t *n, const char *name,
		   long long lo, long long hi, long long *v);
/* One of 'choices' (a NULL-terminated list); returns its index. */
int pol_get_choice(struct pctx *c, const yaml_node_t *n, const char *name,
		   const char *const *choices);
/* A single online CPU ('cpu: N'). */
int pol_get_cpu(struct pctx *c, const yaml_node_t *n, __u32 *cpu);
/* A list of CPUs with weights, as in 'cpus:', sorted. */
int pol_get_cpu_list(struct pctx *c, const yaml_node_t *n,
		     struct policy_cpus *out);

/* The keys with a file of their own, which use the getters. */

/* 'decap:' into c->p->decap (policy_decap.c). */
int pol_get_decap(struct pctx *c, const yaml_node_t *n);
/* 'rules:' into c->p->rules, shapes, and the shadowed-rule warnings
 * (policy_rules.c). */
int pol_get_rules(struct pctx *c, const yaml_node_t *n);

/* The document's root into c->p, whose every key holds its default:
 * 0, -EINVAL (reported in c->d) or -ENOMEM (policy_keys.c). */
int pol_get_policy(struct pctx *c, const yaml_node_t *root);

#endif /* XDP_STEER_POLICY_INT_H */
