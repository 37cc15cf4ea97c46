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
 * Hostile input is bounded before libyaml builds a document: a regular
 * file of at most POLICY_FILE_MAX bytes, nesting at most POLICY_DEPTH_MAX
 * deep, no aliases (they would let a small file stand for a huge tree), at
 * most DIAGS_MAX messages kept.
 *
 * Files: policy.c (the document, the top-level keys), pol_get.c (the typed
 * getters: ranged integers, words, CPUs, CPU lists), policy_rules.c
 * (rules, addresses, shadowing), policy_decap.c ('decap'), policy_print.c
 * (canonical output), yaml_util.c (diagnostics and typed YAML nodes);
 * compile.c turns a policy into map contents, with rule_key.c (a rule's
 * mirror and keys). CPU sets and weighted CPUs come from the model layer
 * below (model/cpuset.h, model/table.h).
 */
#ifndef XDP_STEER_POLICY_H
#define XDP_STEER_POLICY_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/encap.h"
#include "xdp_steer/keys.h"
#include "model/cpuset.h"
#include "model/table.h"
#include "policy/yaml_util.h"
#include "util/why.h"

#define POLICY_VERSION		1
/* A policy is a short text; a bigger file is a mistake (or an attack). */
#define POLICY_FILE_MAX		(1 << 20)
/* The deepest valid policy nests 6 levels (rules, a rule, its cpus, a
 * weighted CPU, ...); libyaml itself takes seconds on 40000. */
#define POLICY_DEPTH_MAX	32
/* cpumap ring per worker: 2048 frames ride out a scheduling delay of the
 * worker kthread at line rate without drops; the kernel refuses more than
 * 16384. */
#define POLICY_QUEUE_DEFAULT	2048
#define POLICY_QUEUE_MAX	16384
/* How long a bucket that moved may wait for its old CPU to deliver what
 * was queued there (see bpf/README.md, "Moving flows"): longer than a worker
 * kthread is kept off its CPU by a busy application (a few scheduler
 * slices, 3-12 ms) and than GRO holds a frame (one tick, up to 4 ms), short
 * enough that a stalled worker holds a bucket only briefly. */
#define POLICY_DRAIN_TIMEOUT_DEFAULT	50
#define POLICY_DRAIN_TIMEOUT_MAX	10000
/* Weights are ratios between CPUs; 1000 to 1 is already beyond what a
 * 4096-bucket table can express. */
#define POLICY_WEIGHT_MAX	1000
/* balance: (the adaptive balancer, xdp-steer balance). A round a second:
 * long enough that a round's counts are many frames even at a few
 * thousand frames/s, and that its moves (each apply with drain waits
 * drain_timeout) are long done by the next; short enough to follow a
 * shift in a few seconds. 10 %: a worker may carry 1.1 times its share
 * before buckets move; much less and counting noise alone would move
 * them. 16 buckets a round: enough to undo a
 * handful of elephants at once, few enough that a round stays one
 * small change. */
#define POLICY_BALANCE_INTERVAL_DEFAULT	1000
#define POLICY_BALANCE_INTERVAL_MIN	100
#define POLICY_BALANCE_INTERVAL_MAX	3600000
#define POLICY_BALANCE_TOLERANCE_DEFAULT 10	/* by frames */
/* By CPU time (balance.by: cpu, the default) 5 %: a busy share is known
 * to a tick in a hundred, and with two workers 10 % over the mean would
 * let one idle a fifth of its time while the other saturates. */
#define POLICY_BALANCE_TOLERANCE_CPU	5
#define POLICY_BALANCE_MOVES_DEFAULT	16

/* hash.key, in STEER_HASH_KEYS' order (include/xdp_steer/slot.h). */
enum policy_hash_key {
	POLICY_HASH_L4,		/* addresses, protocol and ports (default) */
	POLICY_HASH_L3,		/* addresses and protocol */
	POLICY_HASH_VLAN,	/* the outermost one or two VLAN IDs */
	POLICY_HASH_TUNNEL,	/* VNI, TEID or SPI */
	POLICY_HASH_SRC_PORT,	/* the source port alone */
	POLICY_HASH_DST_PORT,	/* the destination port alone */
};

/* worker_sched: the scheduling class of the interface's cpumap kthreads
 * (the workers' receive processing). */
enum policy_sched {
	POLICY_SCHED_KEEP,		/* keep: leave them as they are */
	POLICY_SCHED_OTHER,		/* SCHED_OTHER, at worker_nice */
	POLICY_SCHED_FIFO,		/* real-time, run until they sleep */
	POLICY_SCHED_RR,		/* real-time, round robin */
};
#define POLICY_SCHED_PRIO_DEFAULT	1
/* worker_sched left out: SCHED_OTHER at nice 10, so an application on a
 * worker's CPU gets about nine tenths of it (CFS weights 1024 against
 * 110) while both want it. What the kthread cannot take then waits in,
 * or overflows, its ring, before the worker spent anything on it, and the
 * balancer counts the overflow as that CPU's load; at nice 0 the kthread
 * fills the application's socket faster than the application, sharing
 * the CPU, empties it, and the frames die there, paid for and unseen
 * (tests/bench/README.md, "Forwarding: xdp-steer against RPS"). No other
 * task there: no difference. */
#define POLICY_SCHED_NICE_DEFAULT	10

enum policy_rebalance {
	POLICY_REBALANCE_DRAIN,		/* move a flow once its old CPU drained */
	POLICY_REBALANCE_IMMEDIATE,	/* move at once; may reorder */
};

/* A CPU list: sorted by CPU id, no duplicates, every weight in 1..1000. */
struct policy_cpus {
	struct table_cpu *v;
	int n;
};

/* One rule of 'rules:', in policy order (the index is its rule_id). */
struct policy_rule {
	__u32 fields;		/* STEER_M_* the match names */
	__u32 shape;		/* STEER_M_* the match names, plus
				 * STEER_M_PREFIX_SRC/_DST when that address
				 * is a prefix shorter than a full address (at
				 * most one is); without: an exact rule */
	struct steer_flow flow;	/* values of the fields, network byte order,
				 * IPv4 in word 0, a prefix's host bits zero;
				 * family set only when an address is matched;
				 * everything else zero */
	__u8 src_len;		/* prefix length in bits; 32 or 128 = exact */
	__u8 dst_len;
	struct policy_cpus cpus; /* target: one CPU ('cpu:') or a set */
	int line;		/* where the rule starts, for messages */
	int col;
};

/* What 'decap' looks through: the encapsulations, and the UDP ports of
 * those carried in UDP, sorted by encapsulation (STEER_ENCAPS order), then
 * port. */
struct policy_decap {
	__u32 encaps;		/* STEER_DECAP(STEER_ENCAP_*) bits */
	int nports;
	struct policy_decap_port {
		__u16 port;	/* host order */
		__u8 encap;	/* STEER_ENCAP_* */
	} ports[STEER_DECAP_PORTS];
};

/* The default: every encapsulation, each of UDP on its standard port. */
void policy_decap_default(struct policy_decap *d);
bool policy_decap_equal(const struct policy_decap *a,
			const struct policy_decap *b);

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
	bool seed_random;		/* a random hash key, drawn at the
					 * first apply and kept by later ones */
	__u64 seed;			/* otherwise the key derives from this */
	bool local_fastpath;
	enum policy_rebalance rebalance;
	__u32 drain_timeout_ms;		/* see POLICY_DRAIN_TIMEOUT_DEFAULT */
	__u32 nonip_cpu;		/* a CPU, or STEER_CPU_LOCAL */
	struct policy_decap decap;	/* encapsulations looked through */
	bool balance;			/* balance on (else the others are
					 * their defaults, unused) */
	bool balance_frames;		/* by: frames (else by: cpu) */
	__u32 balance_interval_ms;
	__u32 balance_tolerance;	/* percent over a worker's share */
	__u32 balance_max_moves;	/* buckets per round */
	enum policy_sched worker_sched;
	__u32 worker_priority;		/* 1-99 for FIFO and RR, else 0 */
	__u32 worker_nice;		/* 0-19 for OTHER, else 0 */
	struct policy_rule *rules;
	int nrules;
	__u32 shapes[STEER_MAX_SHAPES];	/* distinct rule shapes in order of
					 * first use, mirrors included in
					 * symmetric mode */
	int nshapes;
};

/* A rule as map keys (rule_key.c). Symmetric mode matches a rule in both
 * directions of a connection: the rule and its mirror (source and
 * destination swapped). */
__u32 policy_shape_mirror(__u32 shape);
void policy_rule_mirror(const struct policy_rule *r, struct policy_rule *m);
static inline bool policy_rule_is_prefix(const struct policy_rule *r)
{
	return r->shape & STEER_M_PREFIX;
}

/* The canonical key of rule 'r' cut to a shape 's' of the same kind and,
 * for a prefix shape, to prefix length 'len': two rules meet under one key
 * exactly when one restricted to the other's shape and length equals it.
 * A prefix rule's key is the datapath's prefix_rules key (slot 0); an exact
 * rule's puts its source in 'other', its destination in 'addr' and
 * prefixlen 0. */
void policy_rule_key(const struct policy_rule *r, __u32 s, int len,
		     struct steer_prefix_key *k);
/* Keeps the first 'len' bits of a network-order address of 'bytes'. */
void policy_addr_mask(__u32 *addr, int bytes, int len);

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
/* The same against another machine's CPUs ('check --cpus'): 'online' is
 * that set and 'online_name' what messages call it, "cpu 99 is not in
 * ONLINE_NAME" where they would say "is not online (online: 0-1)". */
int policy_parse_string_on(const char *text, size_t len, const char *name,
			   const struct cpu_set *online,
			   const char *online_name, struct steer_policy *p,
			   struct diags *d);
int policy_parse_file_on(const char *path, const struct cpu_set *online,
			 const char *online_name, struct steer_policy *p,
			 struct diags *d);
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
/* The number of a protocol name, or -1. */
int policy_proto_number(const char *name);
/* Whether the datapath parses the protocol's ports (others hash and
 * match with ports 0). */
bool policy_proto_has_ports(__u8 proto);

/* A flow as `xdp-steer which` takes it: PROTO (a name above or 0-255),
 * SRC[:PORT] and DST[:PORT] (IPv4 "10.0.0.1:80", IPv6 "[2001:db8::1]:80",
 * or an address alone: port 0), into the struct the datapath parses a
 * frame into. 0, or -EINVAL with what is wrong in 'why'. */
int policy_flow_parse(const char *proto, const char *src, const char *dst,
		      struct steer_flow *f, struct why *why);

#endif /* XDP_STEER_POLICY_H */
