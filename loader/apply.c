// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <bpf/bpf.h>

#include "log.h"
#include "apply.h"

static __u64 fnv1a(__u64 h, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Digest of everything a slot holds, but its generation and digest. */
static __u64 build_digest(const struct steer_build *b, const __u32 *table)
{
	struct steer_slot s = b->slot;
	__u64 h = 0xcbf29ce484222325ull;

	s.generation = 0;
	s.digest = 0;
	h = fnv1a(h, &s, sizeof(s));
	h = fnv1a(h, table, b->slot.table_size * sizeof(*table));
	h = fnv1a(h, b->rule_cpus, b->nrule_cpus * sizeof(*b->rule_cpus));
	h = fnv1a(h, b->flow, b->nflow * sizeof(*b->flow));
	h = fnv1a(h, b->prefix, b->nprefix * sizeof(*b->prefix));
	return h;
}

int apply_wait_readers(void)
{
	int inner, outer, err = 0;
	__u32 zero = 0;

	/* Updating a map-in-map with a valid inner map makes the kernel wait
	 * for an RCU grace period (maybe_wait_bpf_programs()), so every XDP
	 * program that read the old slot has finished when this returns. */
	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "steer_sync_in", 4, 4, 1,
			       NULL);
	if (inner < 0)
		return -errno;
	LIBBPF_OPTS(bpf_map_create_opts, opts, .inner_map_fd = inner);
	outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "steer_sync", 4, 4,
			       1, &opts);
	if (outer < 0) {
		err = -errno;
		goto out_inner;
	}
	if (bpf_map_update_elem(outer, &zero, &inner, BPF_ANY))
		err = -errno;
	close(outer);
out_inner:
	close(inner);
	return err;
}

/* Deletes the entries of 'slot' from a rule map whose keys carry the slot
 * at byte offset 'slot_off'. */
static int clear_slot_rules(int fd, size_t key_size, size_t slot_off,
			    __u32 slot)
{
	size_t n = 0, cap = 0;
	char *keys = NULL, *tmp, cur[64], next[64];
	void *prev = NULL;
	__u32 s;
	size_t i;
	int err = 0;

	/* Collect first: deleting while walking a hash restarts the walk. */
	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(&s, next + slot_off, sizeof(s));
		if (s == slot) {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				tmp = realloc(keys, cap * key_size);
				if (!tmp) {
					err = -ENOMEM;
					goto out;
				}
				keys = tmp;
			}
			memcpy(keys + n++ * key_size, next, key_size);
		}
		memcpy(cur, next, key_size);
		prev = cur;
	}
	for (i = 0; i < n; i++) {
		if (bpf_map_delete_elem(fd, keys + i * key_size) &&
		    errno != ENOENT) {
			err = -errno;
			goto out;
		}
	}
out:
	free(keys);
	return err;
}

static int write_rules(const struct steer_maps *m, struct steer_build *b,
		       __u32 slot)
{
	struct build_prefix_rule *pr;
	struct build_flow_rule *fr;
	__u32 i, key;
	int fd;

	for (i = 0; i < b->nrule_cpus; i++) {
		key = slot * STEER_RULE_CPUS_MAX + i;
		if (bpf_map_update_elem(m->rule_cpus, &key, &b->rule_cpus[i],
					BPF_ANY))
			return -errno;
	}
	for (i = 0; i < (__u32)b->nflow; i++) {
		struct steer_target t;

		fr = &b->flow[i];
		fr->key.slot = slot;
		t = fr->target;
		if (t.ncpus > 1)
			t.cpu += slot * STEER_RULE_CPUS_MAX;
		if (bpf_map_update_elem(m->flow_rules, &fr->key, &t,
					BPF_NOEXIST))
			return -errno;
	}
	for (i = 0; i < (__u32)b->nprefix; i++) {
		struct steer_target t;

		pr = &b->prefix[i];
		pr->key.slot = slot;
		t = pr->target;
		if (t.ncpus > 1)
			t.cpu += slot * STEER_RULE_CPUS_MAX;
		fd = pr->dst ? m->dst_prefix : m->src_prefix;
		if (bpf_map_update_elem(fd, &pr->key, &t, BPF_NOEXIST))
			return -errno;
	}
	return 0;
}

/* Marks in need[] every CPU the build can send frames to. */
static void needed_cpus(const struct steer_build *b, const __u32 *table,
			unsigned char *need)
{
	__u32 i;

	memset(need, 0, STEER_MAX_CPUS);
	for (i = 0; i < b->slot.table_size; i++)
		need[table[i]] = 1;
	for (i = 0; i < b->nrule_cpus; i++)
		need[b->rule_cpus[i]] = 1;
	for (i = 0; i < (__u32)b->nflow; i++)
		if (b->flow[i].target.ncpus == 1)
			need[b->flow[i].target.cpu] = 1;
	for (i = 0; i < (__u32)b->nprefix; i++)
		if (b->prefix[i].target.ncpus == 1)
			need[b->prefix[i].target.cpu] = 1;
	if (b->slot.nonip_cpu != STEER_CPU_LOCAL)
		need[b->slot.nonip_cpu] = 1;
}

/* Creates the cpumap entries 'need' lacks, or whose queue size differs.
 * An existing matching entry is left alone: replacing it would start a
 * second kthread draining that CPU's frames and could reorder them.
 * added[cpu] = 1 for entries created, 2 for entries replaced. */
static int ensure_cpumap(const struct steer_maps *m, const unsigned char *need,
			 __u32 qsize, int worker_fd, unsigned char *added)
{
	struct bpf_cpumap_val want = { .qsize = qsize }, cur;
	__u32 cpu;

	want.bpf_prog.fd = worker_fd;
	memset(added, 0, STEER_MAX_CPUS);
	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++) {
		int exists;

		if (!need[cpu])
			continue;
		memset(&cur, 0, sizeof(cur));
		exists = !bpf_map_lookup_elem(m->cpumap, &cpu, &cur);
		if (exists && cur.qsize == qsize && cur.bpf_prog.id)
			continue;
		if (bpf_map_update_elem(m->cpumap, &cpu, &want, BPF_ANY)) {
			int err = -errno;

			pr_err("cannot add CPU %u to the cpumap: %s\n", cpu,
			       strerror(-err));
			return err;
		}
		added[cpu] = exists ? 2 : 1;
	}
	return 0;
}

/* Undoes the entries ensure_cpumap() created (replaced ones stay: their
 * old kthread is gone either way). */
static void undo_cpumap(const struct steer_maps *m, const unsigned char *added)
{
	__u32 cpu;

	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
		if (added[cpu] == 1)
			bpf_map_delete_elem(m->cpumap, &cpu);
}

static int resolve_key(struct steer_build *b, const struct steer_slot *active)
{
	if (!(b->slot.loader_flags & STEER_LF_SEED_RANDOM))
		return 0;
	if (active->table_size && (active->loader_flags & STEER_LF_SEED_RANDOM)) {
		memcpy(b->slot.hash_key, active->hash_key,
		       sizeof(b->slot.hash_key));
		return 0;
	}
	if (getrandom(b->slot.hash_key, sizeof(b->slot.hash_key), 0) !=
	    sizeof(b->slot.hash_key))
		return -errno;
	return 0;
}

int apply_build(const struct steer_maps *m, struct steer_build *b,
		int worker_fd, struct apply_result *res)
{
	unsigned char need[STEER_MAX_CPUS], added[STEER_MAX_CPUS];
	__u32 *table = NULL, *old = NULL, zero = 0, key, i, cpu;
	struct steer_slot active;
	struct steer_ctl ctl;
	__u32 inactive;
	int err;

	memset(res, 0, sizeof(*res));
	memset(added, 0, sizeof(added));
	if (bpf_map_lookup_elem(m->ctl, &zero, &ctl))
		return -errno;
	ctl.active &= 1;
	inactive = !ctl.active;
	if (bpf_map_lookup_elem(m->slots, &ctl.active, &active))
		return -errno;

	err = resolve_key(b, &active);
	if (err)
		return err;

	table = calloc(STEER_TABLE_MAX, sizeof(*table));
	old = calloc(STEER_TABLE_MAX, sizeof(*old));
	if (!table || !old) {
		err = -ENOMEM;
		goto out;
	}
	/* Start from the table in force so only the buckets that must
	 * change CPU do. */
	if (active.table_size == b->slot.table_size) {
		for (i = 0; i < active.table_size; i++) {
			key = ctl.active * STEER_TABLE_MAX + i;
			if (bpf_map_lookup_elem(m->table, &key, &old[i])) {
				err = -errno;
				goto out;
			}
		}
		err = table_build(table, b->slot.table_size, b->cpus, b->ncpus,
				  old);
	} else {
		err = table_build(table, b->slot.table_size, b->cpus, b->ncpus,
				  NULL);
	}
	if (err < 0)
		goto out;
	res->moved_buckets = err;

	needed_cpus(b, table, need);
	b->slot.digest = build_digest(b, table);
	if (active.table_size && active.digest == b->slot.digest) {
		/* Nothing to flip; still repair missing cpumap entries. */
		err = ensure_cpumap(m, need, b->slot.queue_size, worker_fd,
				    added);
		for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
			res->cpus_added += !!added[cpu];
		res->unchanged = 1;
		res->slot = ctl.active;
		res->generation = active.generation;
		res->moved_buckets = 0;
		goto out;
	}

	/* Everything below until the flip touches only the inactive slot
	 * and adds cpumap entries no active rule points at yet. */
	err = clear_slot_rules(m->flow_rules, sizeof(struct steer_rule_key),
			       offsetof(struct steer_rule_key, slot), inactive);
	if (!err)
		err = clear_slot_rules(m->src_prefix,
				       sizeof(struct steer_prefix_key),
				       offsetof(struct steer_prefix_key, slot),
				       inactive);
	if (!err)
		err = clear_slot_rules(m->dst_prefix,
				       sizeof(struct steer_prefix_key),
				       offsetof(struct steer_prefix_key, slot),
				       inactive);
	if (err)
		goto out;
	for (i = 0; i < b->slot.table_size; i++) {
		key = inactive * STEER_TABLE_MAX + i;
		if (bpf_map_update_elem(m->table, &key, &table[i], BPF_ANY)) {
			err = -errno;
			goto out;
		}
	}
	err = write_rules(m, b, inactive);
	if (err)
		goto out;
	err = ensure_cpumap(m, need, b->slot.queue_size, worker_fd, added);
	if (err)
		goto out_undo;
	b->slot.generation = active.generation + 1;
	if (bpf_map_update_elem(m->slots, &inactive, &b->slot, BPF_ANY)) {
		err = -errno;
		goto out_undo;
	}

	/* The flip: from here on the new policy is in force. */
	ctl.active = inactive;
	if (bpf_map_update_elem(m->ctl, &zero, &ctl, BPF_ANY)) {
		err = -errno;
		goto out_undo;
	}
	res->slot = inactive;
	res->generation = b->slot.generation;
	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
		res->cpus_added += !!added[cpu];

	/* Only once no program still reads the old slot may CPUs that left
	 * lose their cpumap entry (and the next apply reuse that slot). The
	 * kernel drains an entry's queue before freeing it. */
	err = apply_wait_readers();
	if (err)
		pr_warn("cannot wait for readers of the old policy (%s); leaving CPUs that left in the cpumap\n",
			strerror(-err));
	for (cpu = 0; !err && cpu < STEER_MAX_CPUS; cpu++) {
		struct bpf_cpumap_val cur;

		if (need[cpu] || bpf_map_lookup_elem(m->cpumap, &cpu, &cur))
			continue;
		if (bpf_map_delete_elem(m->cpumap, &cpu))
			pr_warn("cannot remove CPU %u from the cpumap: %s\n",
				cpu, strerror(errno));
		else
			res->cpus_removed++;
	}
	err = 0;
	goto out;

out_undo:
	undo_cpumap(m, added);
out:
	free(table);
	free(old);
	return err;
}
