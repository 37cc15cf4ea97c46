/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * compile.h - a parsed policy turned into what one slot's maps will hold.
 * Pure: unit tests check it without root.
 */
#ifndef XDP_STEER_COMPILE_H
#define XDP_STEER_COMPILE_H

#include "model/build.h"
#include "model/numa.h"
#include "policy/policy.h"
#include "util/why.h"

/* Fills *b (the caller frees it with build_free()). 'workers' overrides
 * the policy's CPU list for the table when not NULL (the loader removes
 * the RX-interrupt CPUs from a default list). Returns 0 or a negative errno
 * with the reason in 'why' (e.g. rule CPU sets too large). */
int policy_compile(const struct steer_policy *p,
		   const struct policy_cpus *workers, struct steer_build *b,
		   struct why *why);

/* The workers of a policy whose 'cpus' is not set, on an interface whose
 * RX interrupts go to 'irq' (NULL: unknown) and whose device is on node
 * 'nic_node' of 'l' (l NULL or nic_node < 0: no node): the policy's CPUs
 * (every online one) chosen by numa_default_workers(), so collectors only
 * collect and workers share the NIC's node. Returns how they were chosen
 * (NUMA_DEFAULT_ALL: every CPU works, collectors too). 'buf' holds
 * STEER_CPU_IDS. A policy with 'cpus' keeps its list (NUMA_DEFAULT_ONLINE). */
enum numa_default policy_default_workers(const struct steer_policy *p,
					 const struct cpu_set *irq,
					 const struct numa_layout *l,
					 int nic_node, struct policy_cpus *out,
					 struct table_cpu *buf);

/* The hash key an explicit seed stands for. */
void policy_seed_key(__u64 seed, __u64 key[STEER_HASH_KEY_WORDS]);

#endif /* XDP_STEER_COMPILE_H */
