/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * compile.h - a parsed policy turned into what one slot's maps will hold.
 * Pure: unit tests check it without root.
 */
#ifndef XDP_STEER_COMPILE_H
#define XDP_STEER_COMPILE_H

#include "model/build.h"
#include "policy/policy.h"

/* Fills *b (the caller frees it with build_free()). 'workers' overrides
 * the policy's CPU list for the table when not NULL (the loader removes
 * the RX-interrupt CPUs from a default list). Returns 0 or a negative errno
 * with the reason in 'why' (e.g. rule CPU sets too large). */
int policy_compile(const struct steer_policy *p,
		   const struct policy_cpus *workers, struct steer_build *b,
		   char *why, size_t why_len);

/* The workers of a policy whose 'cpus' is not set, on an interface whose
 * RX interrupts go to 'irq' (NULL: unknown): the policy's CPUs (every
 * online one) but those, so collectors only collect. When that leaves none,
 * every CPU works and *fallback says so. 'buf' holds STEER_MAX_CPUS. A
 * policy with 'cpus' keeps its list. */
void policy_default_workers(const struct steer_policy *p,
			    const struct cpu_set *irq, struct policy_cpus *out,
			    struct table_cpu *buf, bool *fallback);

/* The hash key an explicit seed stands for. */
void policy_seed_key(__u64 seed, __u64 key[STEER_HASH_KEY_WORDS]);

#endif /* XDP_STEER_COMPILE_H */
