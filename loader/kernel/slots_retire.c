// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Retiring the cpumap entries the slot in force no longer needs, and
 * the warm-up and refresh that let a retire tell a drained entry from
 * one still in use: see slots_retire.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "kernel/cpumap.h"
#include "kernel/failpoint.h"
#include "kernel/slots.h"
#include "kernel/slots_retire.h"
#include "kernel/window.h"

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

int slots_write_ctl(const struct steer_maps *m, const struct steer_ctl *ctl)
{
	__u32 zero = 0;

	return bpf_map_update_elem(m->steer_ctl, &zero, ctl, BPF_ANY) ? -errno : 0;
}

/* How long retire waits for buckets to leave the CPUs that left: their
 * drain timeout, and two ticks (up to 20 ms) that jiffies may lag by. */
static __u64 drain_wait_ns(const struct steer_slot *s)
{
	return (__u64)s->drain_ms * 1000000ull + 20000000ull;
}

/* A warm-up (window.h): the window opened under a new generation, in
 * *gen, seen open by every CPU, and every ring's earlier frames handed
 * on. On failure the window is shut again, 'why' says why, and the
 * caller changes nothing. */
int slots_warm_up(const struct steer_maps *m, __u32 gro_units, __u32 *gen,
		  struct why *why)
{
	int err;

	err = window_open(m, gen);
	if (!err)
		err = failpoint("warm-up");
	if (!err)
		err = slots_wait_readers();
	if (!err)
		err = window_wait_ready(m, gro_units, why);
	if (err) {
		window_close(m, 0);
		why_first(why, "warming up the drain failed: %s",
			  strerror(-err));
	}
	return err;
}

/*
 * Refresh: every bucket record written before now stops saying anything,
 * as after a flip, without one: a warm-up (window.h), then the slot in
 * force's drain_gen moves on to its generation, in place. That is the
 * one field that changes (the rest is written back as it was read, under
 * the lock: no other writer), and a frame that reads it either side of
 * the store decides safely: every frame queued before the warm-up is up
 * the stack, and every one since is recorded under the new generation.
 * An entry that only old records named (buckets held on it whose drains
 * are done, but which sent no frame since to say so) is then free to go.
 * 0 when done or not needed; a warm-up that timed out changes nothing.
 */
static int refresh(const struct steer_maps *m, const struct steer_ctl *ctl,
		   struct why *why)
{
	struct steer_slot s;
	__u32 gen;
	int err;

	if (bpf_map_lookup_elem(m->steer_slots, &ctl->active, &s))
		return -errno;
	if (!s.table_size || !(s.flags & STEER_F_DRAIN))
		return 0;
	err = slots_warm_up(m, s.gro_units, &gen, why);
	if (err)
		return err;
	s.drain_gen = gen;
	err = bpf_map_update_elem(m->steer_slots, &ctl->active, &s,
				  BPF_ANY) ? -errno : 0;
	window_close(m, 0);
	/* No frame runs with the old drain_gen any more. */
	if (!err)
		err = slots_wait_readers();
	return err;
}

/* 1 when every entry in_use[] keeps but need[] does not is kept only by
 * records whose drains are done (undecided[] 0): a refresh frees it. */
static int only_settled(const unsigned char *need, const unsigned char *in_use,
			const unsigned char *undecided)
{
	__u32 t;

	for (t = 0; t < STEER_CPU_TARGETS; t++)
		if (!need[t] && in_use[t] && undecided[t])
			return 0;
	return 1;
}

/*
 * Retire: removes the cpumap entries (both banks) that the active slot
 * does not need and no live bucket record names (cpumap_in_use()).
 * Invariant: no program runs with an older slot (retire_pending is clear,
 * or its grace period has just passed), so no frame can be about to go to
 * an entry the active slot does not name, but for a draining bucket's old
 * CPU, which stays until the bucket has moved. With 'wait' it waits up to
 * the drain timeout for those, and then, if every drain that keeps one is
 * done by the evidence, refreshes (above) to free them; what is left, the
 * next apply retires. The kernel drains an entry's ring before freeing
 * it. Idempotent: any apply runs it again.
 */
int slots_retire(const struct steer_maps *m, const struct steer_ctl *ctl,
		 bool wait, struct slots_result *res, struct why *why)
{
	unsigned char need[STEER_CPU_TARGETS], in_use[STEER_CPU_TARGETS];
	unsigned char undecided[STEER_CPU_TARGETS];
	struct timespec pause = { 0, 2000000 };
	struct steer_slot active;
	struct steer_ctl done = *ctl;
	__u64 waited = 0;
	int err, removed, kept, refreshed = 0;

	if (bpf_map_lookup_elem(m->steer_slots, &ctl->active, &active))
		return -errno;
	err = cpumap_slot_needs(m, ctl->active, &active, need);
	if (err) {
		why_set(why, "reading the CPUs the policy in force needs failed: %s",
			strerror(-err));
		return err;
	}
	for (;;) {
		err = cpumap_in_use(m, &active, in_use, undecided, NULL, NULL,
				    NULL);
		if (!err)
			err = cpumap_retire(m, need, in_use, &removed, &kept,
					    why);
		if (err)
			return err;
		res->cpus_removed += removed;
		res->cpus_kept = kept;
		if (!kept || !wait)
			break;
		if (waited >= drain_wait_ns(&active)) {
			if (refreshed || !only_settled(need, in_use, undecided))
				break;
			refreshed = 1;
			if (refresh(m, ctl, why))
				break;
			why_clear(why);
			if (bpf_map_lookup_elem(m->steer_slots, &ctl->active,
						&active))
				return -errno;
			continue;
		}
		nanosleep(&pause, NULL);
		waited += pause.tv_nsec;
	}
	if (!ctl->retire_pending)
		return 0;
	done.retire_pending = 0;
	return slots_write_ctl(m, &done);
}

/*
 * Prepare, first half: an earlier apply that flipped but did not finish
 * (its wait failed, or it was killed) left retire_pending set. Until its
 * grace period is known to have passed, programs may still read the slot
 * this apply is about to overwrite, so wait now; refuse if that fails.
 */
int slots_finish_pending(const struct steer_maps *m, struct steer_ctl *ctl,
			 struct slots_result *res, struct why *why)
{
	int err;

	if (!ctl->retire_pending)
		return 0;
	err = failpoint("wait");
	if (!err)
		err = slots_wait_readers();
	if (err) {
		why_set(why, "an earlier apply left its old slot possibly in use, and waiting for its readers failed (%s); nothing was changed, retry",
			strerror(-err));
		return err;
	}
	err = slots_retire(m, ctl, true, res, why);
	if (err)
		return err;
	ctl->retire_pending = 0;
	res->finished_pending = true;
	return 0;
}
