/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * policy.h - the YAML policy (version 1): parse and validate it into a
 * struct steer_policy, print it back in canonical form. Pure (no maps, no
 * root): the set of online CPUs is a parameter, so tests can choose it.
 *
 * Every mistake becomes a diagnostic "file:line:col: message" pointing at
 * the YAML node that holds it (1-based, from libyaml's marks); doubtful but
 * valid things (duplicate or shadowed rules) are warnings, printed as
 * "file:line:col: warning: message". Parsing goes on after an error, so
 * one run reports every independent mistake, in document order.
 *
 * Files: policy.c (document, top-level keys, CPU lists), policy_rules.c
 * (rules, addresses, shadowing), policy_print.c (canonical output),
 * yaml_util.c (diagnostics and typed YAML nodes), cpuset.c (CPU sets).
 */
#ifndef XDP_STEER_POLICY_H
#define XDP_STEER_POLICY_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "xdp_steer.h"
#include "cpuset.h"
#include "table.h"
#include "yaml_util.h"

#define POLICY_VERSION		1
/* cpumap ring per worker: 2048 frames ride out a scheduling delay of the
 * worker kthread at line rate without drops; the kernel refuses more than
 * 16384. */
#define POLICY_QUEUE_DEFAULT	2048
#define POLICY_QUEUE_MAX	16384
/* Weights are ratios between CPUs; 1000 to 1 is already beyond what a
 * 4096-bucket table can express. */
#define POLICY_WEIGHT_MAX	1000

enum policy_hash_key {
	POLICY_HASH_L4,		/* addresses, protocol and ports (default) */
	POLICY_HASH_L3,		/* addresses and protocol */
};

enum policy_rebalance {
	POLICY_REBALANCE_DRAIN,		/* move a flow once its old CPU drained */
	POLICY_REBALANCE_IMMEDIATE,	/* move at once; may reorder */
};

/* A CPU list: sorted by CPU id, no duplicates, every weight in 1..1000. */
struct policy_cpus {
	struct table_cpu *v;
	int n;
};

enum policy_rule_kind {
	POLICY_RULE_EXACT,	/* any fields, full addresses: flow_rules */
	POLICY_RULE_PREFIX,	/* one src or dst prefix: src/dst_prefixes */
};

/* One rule of 'rules:', in policy order (the index is its rule_id). */
struct policy_rule {
	enum policy_rule_kind kind;
	__u32 fields;		/* STEER_M_* the match names; a prefix rule
				 * has exactly STEER_M_SRC or STEER_M_DST */
	struct steer_flow flow;	/* values of 'fields', network byte order,
				 * IPv4 in word 0; family set only when an
				 * address is matched; everything else zero */
	__u8 src_len;		/* prefix length in bits; 32 or 128 = exact */
	__u8 dst_len;
	struct policy_cpus cpus; /* target: one CPU ('cpu:') or a set */
	int line;		/* where the rule starts, for messages */
	int col;
};

/* A whole policy, every default filled in. */
struct steer_policy {
	int version;
	struct policy_cpus cpus;	/* worker CPUs and their weights */
	bool cpus_default;		/* 'cpus' absent: cpus holds every
					 * online CPU and the loader removes
					 * those taking RX interrupts */
	__u32 queue_size;		/* cpumap ring per worker */
	__u32 table_size;		/* power of two <= STEER_TABLE_MAX */
	enum policy_hash_key hash_key;
	bool symmetric;
	bool seed_random;		/* new random hash key at each apply */
	__u64 seed;			/* otherwise the key derives from this */
	bool local_fastpath;
	enum policy_rebalance rebalance;
	__u32 nonip_cpu;		/* a CPU, or STEER_CPU_LOCAL */
	struct policy_rule *rules;
	int nrules;
	__u32 shapes[STEER_MAX_SHAPES];	/* distinct 'fields' of exact rules,
					 * in order of first use */
	int nshapes;
};

/*
 * Parses a policy from text[0..len) shown as 'name' in messages, or from
 * the file at 'path'. 'online' is the set of online CPUs (NULL: read from
 * sysfs). Both initialize *p and *d; the caller frees them with
 * policy_free() and diags_free() whatever the result. Returns 0 when the
 * policy is valid (there may be warnings in *d), -EINVAL when *d holds
 * errors, or another negative errno (file unreadable, out of memory), also
 * described in *d.
 */
int policy_parse_string(const char *text, size_t len, const char *name,
			const struct cpu_set *online, struct steer_policy *p,
			struct diags *d);
int policy_parse_file(const char *path, const struct cpu_set *online,
		      struct steer_policy *p, struct diags *d);
void policy_free(struct steer_policy *p);

/* Prints the policy as canonical YAML with every default written out, CPU
 * lists compact ("2-7, {cpu: 8, weight: 2}"); parsing the output gives an
 * equal policy. Returns 0 or -EIO. */
int policy_print(FILE *f, const struct steer_policy *p);

/* Same meaning (source locations aside). */
bool policy_equal(const struct steer_policy *a, const struct steer_policy *b);

/* STEER_F_* flags of a slot for this policy, prefix flags included. */
__u32 policy_slot_flags(const struct steer_policy *p);

/* "tcp", "udp", ... or NULL for a protocol without a name here. */
const char *policy_proto_name(__u8 proto);

#endif /* XDP_STEER_POLICY_H */
