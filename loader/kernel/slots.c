// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The phases of an apply (slots.h); retiring cpumap entries and the
 * drain window's warm-up are slots_retire.c's, reading the slot in force
 * back slots_read.c's. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <bpf/bpf.h>

#include <sched.h>

#include "kernel/clock.h"
#include "kernel/cpumap.h"
#include "kernel/kthreads.h"
#include "kernel/failpoint.h"
#include "kernel/slots.h"
#include "kernel/slots_retire.h"
#include "kernel/window.h"

/* ---- clearing a slot's rules ----------------------------------------------- */

static int delete_key(int fd, const void *key, void *arg)
{
	(void)arg;
	if (bpf_map_delete_elem(fd, key) && errno != ENOENT)
		return -errno;
	return 0;
}

/* ---- phases ---------------------------------------------------------------- */

/* The key of the datapath's drain stamps (struct steer_stamp): chosen by
 * the first apply to these maps, kept while steer_seq counts on, so no
 * stamp an earlier set of maps left in a recycled page's headroom can pass
 * for one of ours. Before it is set the datapath stamps nothing; nothing
 * is queued without a policy anyway. */
static int stamp_key_init(const struct steer_maps *m)
{
	__u32 zero = 0;
	__u64 key = 0;

	if (bpf_map_lookup_elem(m->steer_stamp_key, &zero, &key))
		return -errno;
	if (key)
		return 0;
	while (!key)
		if (getrandom(&key, sizeof(key), 0) != sizeof(key))
			return -errno;
	return bpf_map_update_elem(m->steer_stamp_key, &zero, &key,
				   BPF_ANY) ? -errno : 0;
}

/* How many receiver slots these maps hand out (struct steer_rx_pool):
 * set by the first apply to them, before any frame is queued (nothing
 * is without a policy), and kept while they live: the datapath claims
 * against it. The rows the per-slot maps were sized to at load (R,
 * kernel/prog.c), or fewer by the test knob XDP_STEER_RX_SLOTS (1 to
 * STEER_RX_SLOTS; loader/README.md), so that running out of slots can be
 * tested on a machine of few CPUs. */
static int rx_pool_init(const struct steer_maps *m)
{
	struct steer_rx_pool pool;
	const char *knob = getenv("XDP_STEER_RX_SLOTS");
	unsigned long n = m->rx_rows;
	__u32 zero = 0;
	char *end;

	if (bpf_map_lookup_elem(m->steer_rx_pool, &zero, &pool))
		return -errno;
	if (pool.limit)
		return 0;
	if (knob && *knob) {
		n = strtoul(knob, &end, 10);
		if (*end || !n || n > STEER_RX_SLOTS)
			return -EINVAL;
		n = n < m->rx_rows ? n : m->rx_rows;
	}
	/* No slot past the rows of the slot-keyed maps either. */
	n = n < m->slot_rows ? n : m->slot_rows;
	pool.limit = (__u32)n;
	/* Their stride, for the datapath (steer_deq's key). */
	pool.rows = m->slot_rows;
	return bpf_map_update_elem(m->steer_rx_pool, &zero, &pool,
				   BPF_ANY) ? -errno : 0;
}

static int resolve_key(struct steer_build *b, const struct steer_slot *active)
{
	if (!build_keep_key(b, active))
		return 0;
	if (getrandom(b->slot.hash_key, sizeof(b->slot.hash_key), 0) !=
	    sizeof(b->slot.hash_key))
		return -errno;
	return 0;
}

/* Prepare, second half: the new table (build_next_table(): the
 * balancer's own, or the one in force kept whole or built on), from the
 * table and weights in force. */
static int build_table(const struct steer_maps *m, const struct steer_ctl *ctl,
		       const struct steer_slot *active, struct steer_build *b,
		       __u32 *table, int *moved)
{
	__u32 *old = NULL, weight[STEER_CPU_IDS], i, key;
	bool weights = false;
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
		weights = !slots_read_weights(m, ctl->active, weight);
	}
	err = build_next_table(b, active, weights ? weight : NULL, old, table);
	free(old);
	if (err < 0)
		return err;
	*moved = err;
	return 0;
}

/* The inactive slot's rule filter: the bits of its rules, no others
 * (include/xdp_steer/filter.h). */
static int write_filter(const struct steer_maps *m,
			const struct steer_build *b, __u32 slot)
{
	__u64 *w = calloc(STEER_FILTER_SLOT_WORDS, sizeof(*w));
	int i, err;

	if (!w)
		return -ENOMEM;
	for (i = 0; i < b->nflow; i++)
		steer_filter_add_exact(w, &b->flow[i].key);
	for (i = 0; i < b->nprefix; i++)
		steer_filter_add_prefix(w, &b->prefix[i].key);
	err = maps_write_array(m->rule_filter, slot * STEER_FILTER_SLOT_WORDS,
			       w, sizeof(*w), STEER_FILTER_SLOT_WORDS);
	free(w);
	return err;
}

/*
 * Write: the inactive slot's rules, table, CPU sets and, last, its slot
 * struct. Invariant: no program reads the inactive slot (the grace period
 * of the flip away from it has passed: finish_pending saw to that).
 */
static int write_inactive(const struct steer_maps *m, struct steer_build *b,
			  const __u32 *table, __u32 slot)
{
	__u32 i, key, weight[STEER_CPU_IDS];
	struct steer_target t;
	int err;

	err = maps_for_flow_rules(m, slot, delete_key, NULL);
	if (!err)
		err = maps_for_prefix_rules(m, slot, delete_key, NULL);
	if (err)
		return err;
	/* In batches: the balancer writes them every move. */
	err = maps_write_array(m->steer_table, slot * STEER_TABLE_MAX, table,
			       sizeof(*table), b->slot.table_size);
	if (err)
		return err;
	memset(weight, 0, sizeof(weight));
	for (i = 0; i < (__u32)b->ncpus; i++)
		if (b->cpus[i].cpu < m->span)
			weight[b->cpus[i].cpu] = b->cpus[i].weight;
	err = maps_write_array(m->steer_weights, slot * m->span, weight,
			       sizeof(*weight), m->span);
	if (err)
		return err;
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
	err = write_filter(m, b, slot);
	if (err)
		return err;
	b->slot.nrule_cpus = b->nrule_cpus;
	err = failpoint("write");
	if (err)
		return err;
	return bpf_map_update_elem(m->steer_slots, &slot, &b->slot, BPF_ANY) ?
	       -errno : 0;
}

static int count_added(const unsigned char *added)
{
	int target, n = 0;

	for (target = 0; target < STEER_CPU_TARGETS; target++)
		n += added[target];
	return n;
}

/* The policy's worker_sched, on the kthreads of every entry the slot
 * needs: new ones start as SCHED_OTHER at nice 0, and the policy may have
 * changed it for the others. Under "keep", a worker's new kthread in the
 * other bank (a new queue size, a repair) takes the class of the one it
 * replaces (old[], read before), so "keep: an apply changes nothing"
 * holds. */
static int set_sched(const struct steer_maps *m, const struct steer_build *b,
		     const unsigned char *need, const unsigned char *added,
		     const struct kthread_info *old, int *changed,
		     struct why *why)
{
	unsigned char inherit[STEER_CPU_TARGETS] = { 0 };
	struct kthread_info want[STEER_CPU_TARGETS];
	__u32 target, from;
	int n = 0;

	if (b->sched_set)
		return kthreads_sched(m, need, b->sched_policy,
				      b->sched_priority, b->sched_nice, changed,
				      why);
	if (!old)
		return 0;
	for (target = 0; target < STEER_CPU_TARGETS; target++) {
		from = (target + STEER_CPU_IDS) % STEER_CPU_TARGETS;
		if (!added[target] || !old[from].pid ||
		    old[from].policy < 0 ||
		    (old[from].policy == SCHED_OTHER && !old[from].priority &&
		     !old[from].nice))
			continue;
		want[target] = old[from];
		inherit[target] = 1;
		n++;
	}
	return n ? kthreads_sched_each(m, inherit, want, why) : 0;
}

/*
 * Repair: the workers of the new slot whose kthread, in the bank the slot
 * would use, may run off its CPU (kthreads.h says how that comes about,
 * and why only a new entry mends it). Only online CPUs: a new kthread
 * for an offline one would be widened again by its first frame.
 */
static int find_misplaced(const struct steer_maps *m, __u32 bank,
			  const unsigned char *cpus, struct kthread_info *kt,
			  struct cpu_set *out, struct why *why)
{
	struct cpu_set online;
	__u32 cpu;
	int err;

	cpuset_zero(out);
	err = kthreads_read(m, kt);
	if (!err)
		err = cpuset_read_online(&online, NULL);
	if (err) {
		why_set(why, "reading the cpumap kthreads' allowed CPUs failed: %s",
			strerror(-err));
		return err;
	}
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		if (cpus[cpu] && cpuset_has(&online, cpu) &&
		    kthread_misplaced(&kt[bank * STEER_CPU_IDS + cpu], cpu))
			cpuset_set(out, cpu);
	return 0;
}

/* The entries of the new slot's bank to make anew: misplaced ones the
 * slot in force does not send to (it uses the other bank, or there is
 * none), unless a bucket still drains from them: making that one anew
 * could reorder its flows, so -EBUSY. */
static int renew_targets(const struct steer_maps *m,
			 const struct steer_slot *active, __u32 bank,
			 const struct cpu_set *misplaced, unsigned char *renew,
			 struct why *why)
{
	unsigned char in_use[STEER_CPU_TARGETS];
	__u32 cpu, target;
	int err;

	memset(renew, 0, STEER_CPU_TARGETS);
	if (!cpuset_count(misplaced))
		return 0;
	err = cpumap_in_use(m, active, in_use, NULL, NULL, NULL, NULL);
	if (err) {
		why_set(why, "reading which cpumap entries buckets use failed: %s",
			strerror(-err));
		return err;
	}
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++) {
		if (!cpuset_has(misplaced, cpu))
			continue;
		target = bank * STEER_CPU_IDS + cpu;
		if (active->table_size && in_use[target]) {
			why_set(why, "CPU %u's cpumap kthread (bank %u) may run on other CPUs and buckets still drain from it; retry once they are done",
				cpu, bank);
			return -EBUSY;
		}
		renew[target] = 1;
	}
	return 0;
}

/*
 * Prepare, what reads alone: the build's table, bank and digest against
 * the slot in force, its key already resolved; the CPUs it needs
 * (cpus[STEER_CPU_IDS]) and every kthread (kt[STEER_CPU_TARGETS]); whether
 * it is the policy in force; the workers whose kthread may run off its
 * CPU. Shared by the apply and its dry run (slots_plan()), so the dry
 * run predicts what the apply does.
 */
static int prepare(const struct steer_maps *m, const struct steer_ctl *ctl,
		   const struct steer_slot *active, struct steer_build *b,
		   __u32 *table, unsigned char *cpus, struct kthread_info *kt,
		   int *moved, bool *same_policy, struct cpu_set *renewed,
		   struct why *why)
{
	int err;

	err = build_table(m, ctl, active, b, table, moved);
	if (err)
		return err;
	b->slot.bank = build_choose_bank(active, &b->slot);
	build_needed_cpus(b, table, cpus);
	b->slot.nrule_cpus = b->nrule_cpus;
	b->slot.digest = build_digest(b, table);
	*same_policy = active->table_size && active->digest == b->slot.digest;
	err = find_misplaced(m, b->slot.bank, cpus, kt, renewed, why);
	if (err)
		return err;
	/* Misplaced kthreads in the bank in force: the slot moves to new
	 * entries in the other bank, as for a new queue size, and its
	 * buckets drain from the old ones without reordering. */
	if (active->table_size && b->slot.bank == active->bank &&
	    (cpuset_count(renewed) || b->renew_workers)) {
		b->slot.bank = !active->bank;
		b->slot.digest = build_digest(b, table);
	}
	return 0;
}

int slots_plan(const struct steer_maps *m, struct steer_build *b,
	       __u32 *table, struct slots_plan *out, struct why *why)
{
	unsigned char cpus[STEER_CPU_IDS];
	struct cpu_set stale;
	__u32 cpu;
	int err;

	memset(out, 0, sizeof(*out));
	why_clear(why);
	err = slots_read_ctl(m, &out->ctl);
	if (!err && bpf_map_lookup_elem(m->steer_slots, &out->ctl.active,
					&out->active))
		err = -errno;
	if (err)
		return err;
	/* A key to draw stays zero here: the plan says it would be drawn. */
	out->key_drawn = build_keep_key(b, &out->active);
	err = prepare(m, &out->ctl, &out->active, b, table, cpus, out->kt,
		      &out->moved_buckets, &out->same_policy, &out->renewed,
		      why);
	if (err)
		return err;
	/* The new bank's own entries, when the slot moves to it, as the
	 * apply reads them (kthreads made anew there too). */
	if (!out->active.table_size || b->slot.bank != out->active.bank) {
		err = find_misplaced(m, b->slot.bank, cpus, out->kt, &stale,
				     why);
		if (err)
			return err;
		for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
			if (cpuset_has(&stale, cpu))
				cpuset_set(&out->renewed, cpu);
	}
	return 0;
}

/* One apply's state, from its first phase to its last: what each phase
 * reads of the ones before it, and where it says why it failed. */
struct apply {
	const struct steer_maps *m;
	struct steer_build *b;
	const int *worker_fds;
	struct slots_result *res;
	struct why *why;
	struct steer_ctl ctl;		/* the flip word, as read first */
	struct steer_slot active;	/* the slot in force before */
	__u32 inactive;			/* the slot this apply writes */
	bool warm;			/* a warm-up opens the drain window */
	__u32 *table;			/* the new table (STEER_TABLE_MAX) */
	struct kthread_info *kt;	/* the kthreads, by cpumap entry */
	unsigned char cpus[STEER_CPU_IDS];	/* the new policy's workers */
	unsigned char need[STEER_CPU_TARGETS];	/* its cpumap entries */
	unsigned char added[STEER_CPU_TARGETS];	/* entries this apply made */
	unsigned char renew[STEER_CPU_TARGETS];	/* entries made anew */
};

/* Begin: the slot in force, and what an earlier apply left finished (its
 * grace period, the entries it could not retire yet). Changes no slot. */
static int apply_begin(struct apply *a)
{
	int err;

	err = slots_read_ctl(a->m, &a->ctl);
	if (!err && bpf_map_lookup_elem(a->m->steer_slots, &a->ctl.active,
					&a->active))
		err = -errno;
	if (!err)
		err = stamp_key_init(a->m);
	if (!err) {
		err = rx_pool_init(a->m);
		if (err == -EINVAL)
			why_set(a->why, "XDP_STEER_RX_SLOTS (a test knob) must be a number of receiver slots from 1 to %d; unset it",
				STEER_RX_SLOTS);
	}
	if (err)
		return err;
	/* First, for the caller's message: what stays in force on failure. */
	a->res->had_policy = a->active.table_size != 0;
	err = window_init(a->m);
	if (!err)
		err = a->ctl.retire_pending ?
		      slots_finish_pending(a->m, &a->ctl, a->res, a->why) :
		      slots_retire(a->m, &a->ctl, false, a->res, a->why);
	return err;
}

/* Prepare: the new slot built (prepare()), and, for a bank switch, the
 * other bank freed of entries with another ring size: an interrupted
 * apply may have left some there, still drained from. Waits for those
 * buckets, as retire does. */
static int apply_prepare(struct apply *a)
{
	struct steer_build *b = a->b;
	int err;

	a->inactive = !a->ctl.active;
	err = resolve_key(b, &a->active);
	if (!err)
		err = prepare(a->m, &a->ctl, &a->active, b, a->table, a->cpus,
			      a->kt, &a->res->moved_buckets,
			      &a->res->same_policy, &a->res->renewed, a->why);
	if (!err && a->active.table_size && b->slot.bank != a->active.bank)
		err = slots_retire(a->m, &a->ctl, true, a->res, a->why);
	return err;
}

/* Renew: the cpumap entries whose kthreads are misplaced, and on an
 * upgrade the new bank's entries left from before (they run the older
 * program), to be made anew; then the entries the new slot needs. */
static int apply_renew(struct apply *a)
{
	struct steer_build *b = a->b;
	bool new_bank = !a->active.table_size ||
			b->slot.bank != a->active.bank;
	struct cpu_set stale;
	__u32 cpu;
	int err = 0;

	cpuset_zero(&stale);
	/* The new bank's own entries (left by an interrupted apply, or a
	 * first policy's) may have misplaced kthreads too: read again, as
	 * retire may have removed some. */
	if (new_bank)
		err = find_misplaced(a->m, b->slot.bank, a->cpus, a->kt,
				     &stale, a->why);
	if (b->renew_workers && a->active.table_size && new_bank)
		for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
			if (a->cpus[cpu])
				cpuset_set(&stale, cpu);
	if (!err)
		err = renew_targets(a->m, &a->active, b->slot.bank, &stale,
				    a->renew, a->why);
	if (err)
		return err;
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		if (cpuset_has(&stale, cpu))
			cpuset_set(&a->res->renewed, cpu);
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		a->need[b->slot.bank * STEER_CPU_IDS + cpu] = a->cpus[cpu];
	return 0;
}

/* The same policy as in force: nothing to flip. Still repairs missing
 * cpumap entries and the kthreads' scheduling, and retires what an
 * earlier apply kept, waiting as its own retire would have. */
static int apply_keep(struct apply *a)
{
	struct slots_result *res = a->res;
	int err;

	res->unchanged = true;
	res->slot = a->ctl.active;
	res->generation = a->active.generation;
	res->moved_buckets = 0;
	err = cpumap_add(a->m, a->need, NULL, a->b->slot.queue_size,
			 a->worker_fds, a->added, a->why);
	if (!err)
		err = set_sched(a->m, a->b, a->need, a->added, NULL,
				&res->sched_changed, a->why);
	if (!err && res->cpus_kept)
		err = slots_retire(a->m, &a->ctl, true, res, a->why);
	res->cpus_added = count_added(a->added);
	return err;
}

/* Write: the inactive slot, whole. Its drain_gen is the warm-up's
 * generation, the next one (this process holds the lock: no other apply
 * opens the window meanwhile); without a warm-up, the last one. */
static int apply_write(struct apply *a)
{
	struct steer_build *b = a->b;
	struct steer_window win;
	int err;

	a->warm = a->active.table_size && (b->slot.flags & STEER_F_DRAIN);
	err = window_read(a->m, &win);
	if (err) {
		why_set(a->why, "reading the drain window failed: %s",
			strerror(-err));
		return err;
	}
	b->slot.drain_gen = a->warm ? (win.gen + 1 ? win.gen + 1 : 1) :
				      win.gen;
	b->slot.generation = a->active.generation + 1;
	err = write_inactive(a->m, b, a->table, a->inactive);
	if (err)
		why_set(a->why, "writing the inactive slot failed: %s",
			strerror(-err));
	return err;
}

/* Add cpumap: entries for the new slot's bank, and the kthreads'
 * scheduling. Invariant: the active slot names none of the created
 * entries (they are new), so removing them again (cpumap_undo()) is
 * harmless. A policy whose workers cannot be scheduled as it says is not
 * put in force. */
static int apply_add(struct apply *a)
{
	struct steer_build *b = a->b;
	int err;

	err = cpumap_add(a->m, a->need, a->renew, b->slot.queue_size,
			 a->worker_fds, a->added, a->why);
	if (!err && (err = failpoint("add-cpumap")))
		why_set(a->why, "failpoint add-cpumap");
	if (!err)
		err = set_sched(a->m, b, a->need, a->added,
				b->slot.bank != a->active.bank ? a->kt : NULL,
				&a->res->sched_changed, a->why);
	return err;
}

/* Warm up: with drain, every queued frame is stamped and recorded while
 * the window is open; once every CPU sees it open and every ring has
 * handed on what it held before, a record of this generation tells where
 * its bucket's last frame went, and any other bucket has nothing left
 * anywhere (kernel/window.h). A first policy has nothing to move. */
static int apply_warm_up(struct apply *a)
{
	__u32 want = a->b->slot.drain_gen, gen;
	int err;

	if (!a->warm)
		return 0;
	err = slots_warm_up(a->m, a->b->slot.gro_units, &gen, a->why);
	if (!err && gen != want) {
		window_close(a->m, 0);
		err = -ESTALE;
		why_set(a->why, "the drain window's generation moved under this apply (%u, not %u): retry",
			gen, want);
	}
	return err;
}

/* Flip: from here on the new policy is in force. On failure the policy
 * in force stays, and nothing needs stamps. */
static int apply_flip(struct apply *a)
{
	int err;

	a->ctl.active = a->inactive;
	a->ctl.retire_pending = 1;
	err = failpoint("flip");
	if (!err)
		err = slots_write_ctl(a->m, &a->ctl);
	if (err) {
		why_set(a->why, "switching to the new slot failed: %s",
			strerror(-err));
		if (a->warm)
			window_close(a->m, 0);
		return err;
	}
	/* From the flip on, the records of the warm-up and the drains
	 * decide: stamping every frame is over. */
	if (a->warm)
		window_close(a->m, 1);
	a->res->slot = a->inactive;
	a->res->generation = a->b->slot.generation;
	a->res->cpus_added = count_added(a->added);
	return 0;
}

/* Wait, then retire the old slot's entries. The new policy is in force
 * whatever happens here: what cannot be retired now, the next apply
 * retires (retire_deferred). */
static void apply_retire(struct apply *a)
{
	if (failpoint("wait") || slots_wait_readers() ||
	    failpoint("retire") ||
	    slots_retire(a->m, &a->ctl, true, a->res, a->why))
		a->res->retire_deferred = true;
}

int slots_apply(const struct steer_maps *m, struct steer_build *b,
		const int *worker_fds, struct slots_result *res,
		struct why *why)
{
	struct apply a = { .m = m, .b = b, .worker_fds = worker_fds,
			   .res = res, .why = why };
	int err;

	memset(res, 0, sizeof(*res));
	why_clear(why);
	a.table = calloc(STEER_TABLE_MAX, sizeof(*a.table));
	a.kt = calloc(STEER_CPU_TARGETS, sizeof(*a.kt));
	err = a.table && a.kt ? 0 : -ENOMEM;
	if (!err)
		err = apply_begin(&a);
	if (!err)
		err = apply_prepare(&a);
	if (!err)
		err = apply_renew(&a);
	if (err)
		goto out;
	if (a.active.table_size && a.active.digest == b->slot.digest) {
		err = apply_keep(&a);
		goto out;
	}
	err = apply_write(&a);
	if (err)
		goto out;
	err = apply_add(&a);
	if (!err)
		err = apply_warm_up(&a);
	if (!err)
		err = apply_flip(&a);
	if (err) {
		cpumap_undo(m, a.added);
		goto out;
	}
	apply_retire(&a);
out:
	free(a.kt);
	free(a.table);
	return err;
}
