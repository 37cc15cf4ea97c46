// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The workers' cpumap entries in both banks (cpumap.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/clock.h"
#include "kernel/cpumap.h"

static int bank_fd(const struct steer_maps *m, __u32 target)
{
	return target >= STEER_MAX_CPUS ? m->cpu_map_b : m->cpu_map;
}

static __u32 cpu_of(__u32 target)
{
	return target % STEER_MAX_CPUS;
}

struct needs {
	unsigned char *need;
	__u32 base;		/* the slot's bank * STEER_MAX_CPUS */
};

static int need_target(int fd, const void *key, void *arg)
{
	struct needs *n = arg;
	struct steer_target t;

	if (!bpf_map_lookup_elem(fd, key, &t) && t.ncpus == 1 &&
	    t.cpu < STEER_MAX_CPUS)
		n->need[n->base + t.cpu] = 1;
	return 0;
}

int cpumap_slot_needs(const struct steer_maps *m, __u32 id,
		      const struct steer_slot *s, unsigned char *need)
{
	struct needs n = { need, s->bank ? STEER_MAX_CPUS : 0 };
	__u32 i, key, cpu;
	int err;

	memset(need, 0, STEER_TARGETS);
	if (!s->table_size)
		return 0;
	for (i = 0; i < s->table_size && i < STEER_TABLE_MAX; i++) {
		key = id * STEER_TABLE_MAX + i;
		if (bpf_map_lookup_elem(m->steer_table, &key, &cpu))
			return -errno;
		if (cpu < STEER_MAX_CPUS)
			need[n.base + cpu] = 1;
	}
	for (i = 0; i < s->nrule_cpus && i < STEER_RULE_CPUS_MAX; i++) {
		key = id * STEER_RULE_CPUS_MAX + i;
		if (bpf_map_lookup_elem(m->rule_cpus, &key, &cpu))
			return -errno;
		if (cpu < STEER_MAX_CPUS)
			need[n.base + cpu] = 1;
	}
	if (s->nonip_cpu < STEER_MAX_CPUS)
		need[n.base + s->nonip_cpu] = 1;
	err = maps_for_flow_rules(m, id, need_target, &n);
	if (!err)
		err = maps_for_prefix_rules(m, id, need_target, &n);
	return err;
}

struct in_use_scan {
	__u32 now, units;
	unsigned char *in_use;
	unsigned char *records;		/* NULL: not asked */
	int draining;
};

static int in_use_one(__u32 key, const void *values, int ncpus, void *arg)
{
	const struct steer_bucket *v = values;
	struct in_use_scan *s = arg;
	__u32 target;
	int c;

	for (c = 0; c < ncpus; c++) {
		if (!steer_bucket_warm(&v[c], s->now, s->units))
			continue;
		target = v[c].target & ~STEER_TARGET_LOCAL;
		if (target < STEER_TARGETS)
			s->in_use[target] = 1;
		s->draining += v[c].since != 0;
		if (v[c].since && s->records && key < STEER_TABLE_MAX)
			s->records[key] = 1;
	}
	return 0;
}

int cpumap_in_use(const struct steer_maps *m, __u32 units,
		  unsigned char *in_use, int *draining,
		  unsigned char *records)
{
	struct in_use_scan s = { .units = units, .in_use = in_use,
				 .records = records };
	int err;

	memset(in_use, 0, STEER_TARGETS);
	if (records)
		memset(records, 0, STEER_TABLE_MAX);
	*draining = 0;
	err = clock_jiffies(&s.now);
	if (!err)
		err = maps_percpu_scan(m->steer_buckets, STEER_TABLE_MAX,
				       sizeof(struct steer_bucket),
				       in_use_one, &s);
	*draining = s.draining;
	return err;
}

int cpumap_add(const struct steer_maps *m, const unsigned char *need,
	       const unsigned char *renew, __u32 qsize, const int *worker_fds,
	       unsigned char *added, char *why, size_t why_len)
{
	struct bpf_cpumap_val want = { .qsize = qsize }, cur;
	__u32 target, cpu;
	int err;

	memset(added, 0, STEER_TARGETS);
	for (target = 0; target < STEER_TARGETS; target++) {
		if (!need[target])
			continue;
		cpu = cpu_of(target);
		memset(&cur, 0, sizeof(cur));
		if (!bpf_map_lookup_elem(bank_fd(m, target), &cpu, &cur)) {
			/* Renewed: its kthread may run off its CPU
			 * (kthreads.h); a new entry has a new one. */
			if (cur.qsize == qsize && renew && renew[target]) {
				added[target] = 1;
				goto update;
			}
			if (cur.qsize == qsize && cur.bpf_prog.id)
				continue;
			/* Not one of ours (no program): ours replaces it. */
			if (cur.qsize == qsize)
				goto update;
			snprintf(why, why_len, "CPU %u's cpumap entry (bank %u) has a %u-frame ring and buckets still drain from it; retry once they are done",
				 cpu, target / STEER_MAX_CPUS, cur.qsize);
			return -EBUSY;
		}
		added[target] = 1;
update:
		want.bpf_prog.fd = worker_fds[target / STEER_MAX_CPUS];
		if (bpf_map_update_elem(bank_fd(m, target), &cpu, &want,
					BPF_ANY)) {
			err = -errno;
			snprintf(why, why_len, "adding CPU %u to the cpumap failed: %s%s",
				 cpu, strerror(-err),
				 err == -ENOMEM ? " (a kernel that refuses the cpumap program's frags setting says ENOMEM too)" : "");
			return err;
		}
	}
	return 0;
}

void cpumap_undo(const struct steer_maps *m, const unsigned char *added)
{
	__u32 target, cpu;

	for (target = 0; target < STEER_TARGETS; target++) {
		if (!added[target])
			continue;
		cpu = cpu_of(target);
		bpf_map_delete_elem(bank_fd(m, target), &cpu);
	}
}

int cpumap_retire(const struct steer_maps *m, const unsigned char *need,
		  const unsigned char *in_use, int *removed, int *kept,
		  char *why, size_t why_len)
{
	struct bpf_cpumap_val cur;
	__u32 target, cpu;
	int err;

	*removed = *kept = 0;
	for (target = 0; target < STEER_TARGETS; target++) {
		cpu = cpu_of(target);
		if (need[target] ||
		    bpf_map_lookup_elem(bank_fd(m, target), &cpu, &cur))
			continue;
		if (in_use[target]) {
			(*kept)++;
			continue;
		}
		if (bpf_map_delete_elem(bank_fd(m, target), &cpu)) {
			err = -errno;
			snprintf(why, why_len, "removing CPU %u (bank %u) from the cpumap failed: %s",
				 cpu, target / STEER_MAX_CPUS, strerror(-err));
			return err;
		}
		(*removed)++;
	}
	return 0;
}

void cpumap_read(const struct steer_maps *m, struct bpf_cpumap_val *val,
		 unsigned char *present)
{
	__u32 target, cpu;

	for (target = 0; target < STEER_TARGETS; target++) {
		cpu = cpu_of(target);
		memset(&val[target], 0, sizeof(val[target]));
		present[target] = !bpf_map_lookup_elem(bank_fd(m, target), &cpu,
						       &val[target]);
	}
}
