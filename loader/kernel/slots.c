// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The phases of an apply (slots.h) and reading the slot in force. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <bpf/bpf.h>

#include "kernel/failpoint.h"
#include "kernel/slots.h"

int slots_wait_readers(void)
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

/* ---- reading a slot's rules ------------------------------------------------ */

/* Calls fn on each key (and its value) of a rule map whose keys carry the
 * slot at byte offset 'slot_off' and belong to 'slot'. Keys are collected
 * first: deleting while walking a hash restarts the walk. */
static int for_slot_keys(int fd, size_t key_size, size_t slot_off, __u32 slot,
			 int (*fn)(int fd, const void *key, void *arg),
			 void *arg)
{
	char *keys = NULL, *tmp, cur[64], next[64];
	size_t n = 0, cap = 0, i;
	void *prev = NULL;
	int err = 0;
	__u32 s;

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
	for (i = 0; !err && i < n; i++)
		err = fn(fd, keys + i * key_size, arg);
out:
	free(keys);
	return err;
}

static int delete_key(int fd, const void *key, void *arg)
{
	(void)arg;
	if (bpf_map_delete_elem(fd, key) && errno != ENOENT)
		return -errno;
	return 0;
}

static int count_key(int fd, const void *key, void *arg)
{
	(void)fd;
	(void)key;
	++*(int *)arg;
	return 0;
}

/* need[] of a rule map's targets that name one CPU. */
static int need_target(int fd, const void *key, void *arg)
{
	unsigned char *need = arg;
	struct steer_target t;

	if (!bpf_map_lookup_elem(fd, key, &t) && t.ncpus == 1 &&
	    t.cpu < STEER_MAX_CPUS)
		need[t.cpu] = 1;
	return 0;
}

static int for_flow_rules(const struct steer_maps *m, __u32 slot,
			  int (*fn)(int, const void *, void *), void *arg)
{
	return for_slot_keys(m->flow_rules, sizeof(struct steer_rule_key),
			     offsetof(struct steer_rule_key, slot), slot, fn,
			     arg);
}

static int for_prefix_rules(const struct steer_maps *m, __u32 slot,
			    int (*fn)(int, const void *, void *), void *arg)
{
	return for_slot_keys(m->prefix_rules, sizeof(struct steer_prefix_key),
			     offsetof(struct steer_prefix_key, slot), slot, fn,
			     arg);
}

/* Every CPU slot 'id' (as the maps hold it) can send frames to. */
static int slot_needed_cpus(const struct steer_maps *m, __u32 id,
			    const struct steer_slot *s, unsigned char *need)
{
	__u32 i, key, cpu;
	int err;

	memset(need, 0, STEER_MAX_CPUS);
	if (!s->table_size)
		return 0;
	for (i = 0; i < s->table_size && i < STEER_TABLE_MAX; i++) {
		key = id * STEER_TABLE_MAX + i;
		if (bpf_map_lookup_elem(m->steer_table, &key, &cpu))
			return -errno;
		if (cpu < STEER_MAX_CPUS)
			need[cpu] = 1;
	}
	for (i = 0; i < s->nrule_cpus && i < STEER_RULE_CPUS_MAX; i++) {
		key = id * STEER_RULE_CPUS_MAX + i;
		if (bpf_map_lookup_elem(m->rule_cpus, &key, &cpu))
			return -errno;
		if (cpu < STEER_MAX_CPUS)
			need[cpu] = 1;
	}
	if (s->nonip_cpu < STEER_MAX_CPUS)
		need[s->nonip_cpu] = 1;
	err = for_flow_rules(m, id, need_target, need);
	if (!err)
		err = for_prefix_rules(m, id, need_target, need);
	return err;
}

/* ---- phases ---------------------------------------------------------------- */

static int read_ctl(const struct steer_maps *m, struct steer_ctl *ctl)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(m->steer_ctl, &zero, ctl))
		return -errno;
	ctl->active &= 1;
	return 0;
}

static int write_ctl(const struct steer_maps *m, const struct steer_ctl *ctl)
{
	__u32 zero = 0;

	return bpf_map_update_elem(m->steer_ctl, &zero, ctl, BPF_ANY) ? -errno : 0;
}

/*
 * Retire: removes the cpumap entries of CPUs the active slot does not need.
 * Invariant: no program runs with an older slot (retire_pending is clear,
 * or its grace period has just passed), so no reader can be about to use
 * an entry the active slot does not name. The kernel drains an entry's
 * ring before freeing it. Idempotent: any apply may run it again.
 */
static int retire(const struct steer_maps *m, const struct steer_ctl *ctl,
		  struct slots_result *res, char *why, size_t why_len)
{
	unsigned char need[STEER_MAX_CPUS];
	struct bpf_cpumap_val cur;
	struct steer_slot active;
	struct steer_ctl done = *ctl;
	__u32 cpu;
	int err;

	if (bpf_map_lookup_elem(m->steer_slots, &ctl->active, &active))
		return -errno;
	err = slot_needed_cpus(m, ctl->active, &active, need);
	if (err) {
		snprintf(why, why_len, "reading the CPUs the policy in force needs failed: %s",
			 strerror(-err));
		return err;
	}
	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++) {
		if (need[cpu] || bpf_map_lookup_elem(m->cpu_map, &cpu, &cur))
			continue;
		if (bpf_map_delete_elem(m->cpu_map, &cpu)) {
			err = -errno;
			snprintf(why, why_len, "removing CPU %u from the cpumap failed: %s",
				 cpu, strerror(-err));
			return err;
		}
		res->cpus_removed++;
	}
	if (!ctl->retire_pending)
		return 0;
	done.retire_pending = 0;
	return write_ctl(m, &done);
}

/*
 * Prepare, first half: an earlier apply that flipped but did not finish
 * (its wait failed, or it was killed) left retire_pending set. Until its
 * grace period is known to have passed, programs may still read the slot
 * this apply is about to overwrite, so wait now; refuse if that fails.
 */
static int finish_pending(const struct steer_maps *m, struct steer_ctl *ctl,
			  struct slots_result *res, char *why, size_t why_len)
{
	int err;

	if (!ctl->retire_pending)
		return 0;
	err = failpoint("wait");
	if (!err)
		err = slots_wait_readers();
	if (err) {
		snprintf(why, why_len, "an earlier apply left its old slot possibly in use, and waiting for its readers failed (%s); nothing was changed, retry",
			 strerror(-err));
		return err;
	}
	err = retire(m, ctl, res, why, why_len);
	if (err)
		return err;
	ctl->retire_pending = 0;
	res->finished_pending = true;
	return 0;
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

/* Prepare, second half: the new table, built from the one in force when
 * the size is the same, so only the buckets that must move do. */
static int build_table(const struct steer_maps *m, const struct steer_ctl *ctl,
		       const struct steer_slot *active, struct steer_build *b,
		       __u32 *table, struct slots_result *res)
{
	__u32 *old = NULL, i, key;
	int err;

	if (active->table_size == b->slot.table_size) {
		old = calloc(STEER_TABLE_MAX, sizeof(*old));
		if (!old)
			return -ENOMEM;
		for (i = 0; i < active->table_size; i++) {
			key = ctl->active * STEER_TABLE_MAX + i;
			if (bpf_map_lookup_elem(m->steer_table, &key, &old[i])) {
				err = -errno;
				free(old);
				return err;
			}
		}
	}
	err = table_build(table, b->slot.table_size, b->cpus, b->ncpus, old);
	free(old);
	if (err < 0)
		return err;
	res->moved_buckets = err;
	return 0;
}

/*
 * Write: the inactive slot's rules, table, CPU sets and, last, its slot
 * struct. Invariant: no program reads the inactive slot (the grace period
 * of the flip away from it has passed: finish_pending saw to that).
 */
static int write_inactive(const struct steer_maps *m, struct steer_build *b,
			  const __u32 *table, __u32 slot)
{
	struct steer_target t;
	__u32 i, key;
	int err;

	err = for_flow_rules(m, slot, delete_key, NULL);
	if (!err)
		err = for_prefix_rules(m, slot, delete_key, NULL);
	if (err)
		return err;
	for (i = 0; i < b->slot.table_size; i++) {
		key = slot * STEER_TABLE_MAX + i;
		if (bpf_map_update_elem(m->steer_table, &key, &table[i], BPF_ANY))
			return -errno;
	}
	for (i = 0; i < b->nrule_cpus; i++) {
		key = slot * STEER_RULE_CPUS_MAX + i;
		if (bpf_map_update_elem(m->rule_cpus, &key, &b->rule_cpus[i],
					BPF_ANY))
			return -errno;
	}
	for (i = 0; i < (__u32)b->nflow; i++) {
		b->flow[i].key.slot = slot;
		t = b->flow[i].target;
		if (t.ncpus > 1)
			t.cpu += slot * STEER_RULE_CPUS_MAX;
		if (bpf_map_update_elem(m->flow_rules, &b->flow[i].key, &t,
					BPF_NOEXIST))
			return -errno;
	}
	for (i = 0; i < (__u32)b->nprefix; i++) {
		b->prefix[i].key.slot = slot;
		t = b->prefix[i].target;
		if (t.ncpus > 1)
			t.cpu += slot * STEER_RULE_CPUS_MAX;
		if (bpf_map_update_elem(m->prefix_rules, &b->prefix[i].key, &t,
					BPF_NOEXIST))
			return -errno;
	}
	b->slot.nrule_cpus = b->nrule_cpus;
	err = failpoint("write");
	if (err)
		return err;
	return bpf_map_update_elem(m->steer_slots, &slot, &b->slot, BPF_ANY) ?
	       -errno : 0;
}

/*
 * Add cpumap: creates the entries 'need' lacks, or whose queue size
 * differs. An existing matching entry is left alone: replacing it would
 * start a second kthread delivering that CPU's frames and could reorder
 * them. added[cpu] = 1 for entries created, 2 for entries replaced.
 * Invariant: the active slot names none of the created entries, so
 * removing them again (undo_cpumap) is harmless.
 */
static int add_cpumap(const struct steer_maps *m, const unsigned char *need,
		      __u32 qsize, int worker_fd, unsigned char *added,
		      char *why, size_t why_len)
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
		exists = !bpf_map_lookup_elem(m->cpu_map, &cpu, &cur);
		if (exists && cur.qsize == qsize && cur.bpf_prog.id)
			continue;
		if (bpf_map_update_elem(m->cpu_map, &cpu, &want, BPF_ANY)) {
			int err = -errno;

			snprintf(why, why_len, "adding CPU %u to the cpumap failed: %s%s",
				 cpu, strerror(-err),
				 err == -ENOMEM ? " (a kernel that refuses the cpumap program's frags setting says ENOMEM too)" : "");
			return err;
		}
		added[cpu] = exists ? 2 : 1;
	}
	return 0;
}

/* Undoes the entries add_cpumap() created (replaced ones stay: their old
 * kthread is gone either way). */
static void undo_cpumap(const struct steer_maps *m, const unsigned char *added)
{
	__u32 cpu;

	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
		if (added[cpu] == 1)
			bpf_map_delete_elem(m->cpu_map, &cpu);
}

static int count_added(const unsigned char *added)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
		n += !!added[cpu];
	return n;
}

int slots_apply(const struct steer_maps *m, struct steer_build *b,
		int worker_fd, struct slots_result *res, char *why,
		size_t why_len)
{
	unsigned char need[STEER_MAX_CPUS], added[STEER_MAX_CPUS];
	struct steer_slot active;
	struct steer_ctl ctl;
	__u32 *table, inactive;
	int err;

	memset(res, 0, sizeof(*res));
	why[0] = 0;
	table = calloc(STEER_TABLE_MAX, sizeof(*table));
	if (!table)
		return -ENOMEM;

	/* Prepare. */
	err = read_ctl(m, &ctl);
	if (!err)
		err = finish_pending(m, &ctl, res, why, why_len);
	if (err)
		goto out;
	inactive = !ctl.active;
	if (bpf_map_lookup_elem(m->steer_slots, &ctl.active, &active)) {
		err = -errno;
		goto out;
	}
	err = resolve_key(b, &active);
	if (!err)
		err = build_table(m, &ctl, &active, b, table, res);
	if (err)
		goto out;
	build_needed_cpus(b, table, need);
	b->slot.nrule_cpus = b->nrule_cpus;
	b->slot.digest = build_digest(b, table);
	if (active.table_size && active.digest == b->slot.digest) {
		/* Same policy: nothing to flip. Still repair missing cpumap
		 * entries, and retire unneeded ones (left by an apply killed
		 * before its flip). */
		res->unchanged = true;
		res->slot = ctl.active;
		res->generation = active.generation;
		res->moved_buckets = 0;
		err = add_cpumap(m, need, b->slot.queue_size, worker_fd, added,
				 why, why_len);
		res->cpus_added = count_added(added);
		if (!err)
			err = retire(m, &ctl, res, why, why_len);
		goto out;
	}

	/* Write. */
	b->slot.generation = active.generation + 1;
	err = write_inactive(m, b, table, inactive);
	if (err) {
		snprintf(why, why_len, "writing the inactive slot failed: %s",
			 strerror(-err));
		goto out;
	}

	/* Add cpumap. */
	err = add_cpumap(m, need, b->slot.queue_size, worker_fd, added, why,
			 why_len);
	if (!err && (err = failpoint("add-cpumap")))
		snprintf(why, why_len, "failpoint add-cpumap");
	if (err)
		goto out_undo;

	/* Flip: from here on the new policy is in force. */
	ctl.active = inactive;
	ctl.retire_pending = 1;
	err = failpoint("flip");
	if (!err)
		err = write_ctl(m, &ctl);
	if (err) {
		snprintf(why, why_len, "switching to the new slot failed: %s",
			 strerror(-err));
		goto out_undo;
	}
	res->slot = inactive;
	res->generation = b->slot.generation;
	res->cpus_added = count_added(added);

	/* Wait, then retire. */
	if (failpoint("wait") || slots_wait_readers()) {
		res->retire_deferred = true;
		goto out;
	}
	err = failpoint("retire");
	if (!err)
		err = retire(m, &ctl, res, why, why_len);
	if (err) {
		/* In force all the same; the next apply retires again. */
		res->retire_deferred = true;
		err = 0;
	}
	goto out;

out_undo:
	undo_cpumap(m, added);
out:
	free(table);
	return err;
}

int slots_read_view(const struct steer_maps *m, struct slot_view *v)
{
	__u32 i, key, cpu;
	int err;

	memset(v, 0, sizeof(*v));
	err = read_ctl(m, &v->ctl);
	if (err)
		return err;
	if (bpf_map_lookup_elem(m->steer_slots, &v->ctl.active, &v->slot))
		return -errno;
	for (i = 0; i < v->slot.table_size && i < STEER_TABLE_MAX; i++) {
		key = v->ctl.active * STEER_TABLE_MAX + i;
		if (!bpf_map_lookup_elem(m->steer_table, &key, &cpu) &&
		    cpu < STEER_MAX_CPUS)
			v->buckets[cpu]++;
	}
	err = for_flow_rules(m, v->ctl.active, count_key, &v->nflow);
	if (!err)
		err = for_prefix_rules(m, v->ctl.active, count_key, &v->nprefix);
	if (err)
		return err;
	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
		v->in_cpumap[cpu] = !bpf_map_lookup_elem(m->cpu_map, &cpu,
							 &v->cpumap[cpu]);
	return 0;
}
