// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The workers' cpumap entries in both banks (cpumap.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/cpumap.h"
#include "kernel/progtag.h"
#include "kernel/evidence.h"

static int bank_fd(const struct steer_maps *m, __u32 target)
{
	return target >= STEER_CPU_IDS ? m->cpu_map_b : m->cpu_map;
}

static __u32 cpu_of(__u32 target)
{
	return target % STEER_CPU_IDS;
}

/* Whether 'target' can have an entry: its CPU below the cpumaps' size
 * (unknown, 0: any), so that a scan of the STEER_CPU_TARGETS looks up
 * only the span's. */
static bool can_be(const struct steer_maps *m, __u32 target)
{
	return !m->cpumap_entries || cpu_of(target) < m->cpumap_entries;
}

struct needs {
	unsigned char *need;
	__u32 base;		/* the slot's bank * STEER_CPU_IDS */
};

static int need_target(int fd, const void *key, void *arg)
{
	struct needs *n = arg;
	struct steer_target t;

	if (!bpf_map_lookup_elem(fd, key, &t) && t.ncpus == 1 &&
	    t.cpu < STEER_CPU_IDS)
		n->need[n->base + t.cpu] = 1;
	return 0;
}

int cpumap_slot_needs(const struct steer_maps *m, __u32 id,
		      const struct steer_slot *s, unsigned char *need)
{
	struct needs n = { need, s->bank ? STEER_CPU_IDS : 0 };
	__u32 i, key, cpu, *table;
	int err;

	memset(need, 0, STEER_CPU_TARGETS);
	if (!s->table_size)
		return 0;
	table = calloc(STEER_TABLE_MAX, sizeof(*table));
	if (!table)
		return -ENOMEM;
	/* In batches: a balancer round reads it every round. */
	err = maps_read_array(m->steer_table, id * STEER_TABLE_MAX,
			      s->table_size < STEER_TABLE_MAX ? s->table_size :
			      STEER_TABLE_MAX, sizeof(*table), table);
	for (i = 0; !err && i < s->table_size && i < STEER_TABLE_MAX; i++)
		if (table[i] < STEER_CPU_IDS)
			need[n.base + table[i]] = 1;
	free(table);
	if (err)
		return err;
	for (i = 0; i < s->nrule_cpus && i < STEER_RULE_CPUS_MAX; i++) {
		key = id * STEER_RULE_CPUS_MAX + i;
		if (bpf_map_lookup_elem(m->rule_cpus, &key, &cpu))
			return -errno;
		if (cpu < STEER_CPU_IDS)
			need[n.base + cpu] = 1;
	}
	if (s->nonip_cpu < STEER_CPU_IDS)
		need[n.base + s->nonip_cpu] = 1;
	err = maps_for_flow_rules(m, id, need_target, &n);
	if (!err)
		err = maps_for_prefix_rules(m, id, need_target, &n);
	return err;
}

struct in_use_scan {
	const struct evidence *e;
	const struct steer_slot *s;
	unsigned char *in_use;
	unsigned char *undecided;	/* NULL: not asked */
	__u16 *records;			/* NULL: not asked */
	int draining, stalled;
};

static int in_use_one(__u32 key, const void *values, int ncpus, void *arg)
{
	const struct steer_bucket *v = values;
	struct in_use_scan *s = arg;
	__u32 target;
	int c, verdict;

	for (c = 0; c < ncpus && c < STEER_RX_CPU_IDS; c++) {
		if (!steer_bucket_live(&v[c], s->s->drain_gen))
			continue;
		target = v[c].target & STEER_TARGET_LOCAL ? STEER_CPU_TARGETS :
			 maps_target_in(s->e->m, v[c].target);
		if (target < STEER_CPU_TARGETS)
			s->in_use[target] = 1;
		verdict = evidence_judge(s->e, c, &v[c], s->s->drain_units,
					 s->s->gro_units);
		if (verdict == STEER_DRAIN_DONE)
			continue;
		if (s->undecided && target < STEER_CPU_TARGETS)
			s->undecided[target] = 1;
		if (!v[c].since)
			continue;
		s->draining++;
		s->stalled += verdict == STEER_DRAIN_STALLED;
		if (s->records && key < STEER_TABLE_MAX)
			s->records[key] = 1 +
				(v[c].target & STEER_TARGET_LOCAL ? (__u32)c :
				 target < STEER_CPU_TARGETS ? cpu_of(target) :
							      STEER_CPU_IDS);
	}
	return 0;
}

int cpumap_in_use(const struct steer_maps *m, const struct steer_slot *s,
		  unsigned char *in_use, unsigned char *undecided,
		  int *draining, int *stalled, __u16 *records)
{
	struct in_use_scan scan = { .s = s, .in_use = in_use,
				    .undecided = undecided,
				    .records = records };
	struct evidence *e;
	__u32 t;
	int err;

	memset(in_use, 0, STEER_CPU_TARGETS);
	if (undecided)
		memset(undecided, 0, STEER_CPU_TARGETS);
	if (records)
		memset(records, 0, STEER_TABLE_MAX * sizeof(*records));
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	/* The evidence before the records, as the datapath reads it before
	 * it writes: a record written since may only look undecided. */
	err = evidence_read(m, e);
	for (t = 0; !err && t < STEER_CPU_TARGETS; t++) {
		in_use[t] = (__s32)(e->facts[t].enq - e->facts[t].done) > 0;
		if (undecided)
			undecided[t] = in_use[t];
	}
	scan.e = e;
	if (!err)
		err = maps_rx_scan(m, m->steer_buckets,
				   sizeof(struct steer_bucket), in_use_one,
				   &scan);
	free(e);
	if (draining)
		*draining = scan.draining;
	if (stalled)
		*stalled = scan.stalled;
	return err;
}

int cpumap_add(const struct steer_maps *m, const unsigned char *need,
	       const unsigned char *renew, __u32 qsize, const int *worker_fds,
	       unsigned char *added, struct why *why)
{
	struct bpf_cpumap_val want = { .qsize = qsize }, cur;
	__u32 target, cpu;
	int err;

	memset(added, 0, STEER_CPU_TARGETS);
	for (target = 0; target < STEER_CPU_TARGETS; target++) {
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
			why_set(why, "CPU %u's cpumap entry (bank %u) has a %u-frame ring and buckets still drain from it; retry once they are done",
				cpu, target / STEER_CPU_IDS, cur.qsize);
			return -EBUSY;
		}
		added[target] = 1;
update:
		want.bpf_prog.fd = worker_fds[target / STEER_CPU_IDS];
		if (bpf_map_update_elem(bank_fd(m, target), &cpu, &want,
					BPF_ANY)) {
			err = -errno;
			why_set(why, "adding CPU %u to the cpumap failed: %s%s",
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

	for (target = 0; target < STEER_CPU_TARGETS; target++) {
		if (!added[target])
			continue;
		cpu = cpu_of(target);
		bpf_map_delete_elem(bank_fd(m, target), &cpu);
	}
}

int cpumap_retire(const struct steer_maps *m, const unsigned char *need,
		  const unsigned char *in_use, int *removed, int *kept,
		  struct why *why)
{
	struct bpf_cpumap_val cur;
	__u32 target, cpu;
	int err;

	*removed = *kept = 0;
	for (target = 0; target < STEER_CPU_TARGETS; target++) {
		cpu = cpu_of(target);
		if (need[target] || !can_be(m, target) ||
		    bpf_map_lookup_elem(bank_fd(m, target), &cpu, &cur))
			continue;
		if (in_use[target]) {
			(*kept)++;
			continue;
		}
		if (bpf_map_delete_elem(bank_fd(m, target), &cpu)) {
			err = -errno;
			why_set(why, "removing CPU %u (bank %u) from the cpumap failed: %s",
				cpu, target / STEER_CPU_IDS, strerror(-err));
			return err;
		}
		(*removed)++;
	}
	return 0;
}

int cpumap_workers_current(const struct steer_maps *m,
			   const int fds[STEER_BANKS], struct why *why)
{
	__u8 mine[STEER_BANKS][BPF_TAG_SIZE], theirs[BPF_TAG_SIZE];
	struct bpf_cpumap_val cur;
	__u32 target, cpu, bank;
	int err = 0;

	for (bank = 0; bank < STEER_BANKS && !err; bank++)
		err = prog_tag(0, fds[bank], mine[bank]);
	for (target = 0; target < STEER_CPU_TARGETS && !err; target++) {
		cpu = cpu_of(target);
		bank = target / STEER_CPU_IDS;
		if (!can_be(m, target) ||
		    bpf_map_lookup_elem(bank_fd(m, target), &cpu, &cur) ||
		    !cur.bpf_prog.id)
			continue;
		err = prog_tag(cur.bpf_prog.id, -1, theirs);
		if (!err && memcmp(mine[bank], theirs, BPF_TAG_SIZE)) {
			why_set(why, "CPU %u's cpumap entry (bank %u) runs another version's program (%u)",
				cpu, bank, cur.bpf_prog.id);
			return 0;
		}
	}
	return err ? err : 1;
}

void cpumap_read(const struct steer_maps *m, struct bpf_cpumap_val *val,
		 unsigned char *present)
{
	__u32 target, cpu;

	for (target = 0; target < STEER_CPU_TARGETS; target++) {
		cpu = cpu_of(target);
		memset(&val[target], 0, sizeof(val[target]));
		present[target] = can_be(m, target) &&
				  !bpf_map_lookup_elem(bank_fd(m, target), &cpu,
						       &val[target]);
	}
}

int cpumap_bank_entries(const struct steer_maps *m, __u32 bank)
{
	struct bpf_cpumap_val val;
	__u32 cpu;
	int n = 0;

	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		n += can_be(m, cpu) &&
		     !bpf_map_lookup_elem(bank_fd(m, bank * STEER_CPU_IDS + cpu),
					  &cpu, &val);
	return n;
}
