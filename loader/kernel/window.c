// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The warm-up window (window.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "kernel/clock.h"
#include "kernel/evidence.h"
#include "kernel/window.h"

int window_read(const struct steer_maps *m, struct steer_window *w)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->steer_window, &zero, w) ? -errno : 0;
}

static int write_window(const struct steer_maps *m,
			const struct steer_window *w)
{
	__u32 zero = 0;

	return bpf_map_update_elem(m->steer_window, &zero, w, BPF_ANY) ?
	       -errno : 0;
}

int window_init(const struct steer_maps *m)
{
	struct steer_window w;
	int err;

	err = window_read(m, &w);
	if (err || (w.gen && !w.open))
		return err;
	/* Open with no apply under way (the caller holds the lock): an
	 * apply killed in its warm-up left it so. */
	if (!w.gen)
		w.gen = 1;
	w.open = 0;
	return write_window(m, &w);
}

int window_open(const struct steer_maps *m, __u32 *gen)
{
	struct steer_window w;
	__u32 now;
	int err;

	err = window_read(m, &w);
	if (!err)
		err = clock_jiffies(&now);
	if (err)
		return err;
	w.gen = w.gen + 1 ? w.gen + 1 : 1;
	w.open = 1;
	w.opened = now;
	*gen = w.gen;
	return write_window(m, &w);
}

int window_close(const struct steer_maps *m, int flipped)
{
	struct steer_window w;
	__u32 now;
	int err;

	err = window_read(m, &w);
	if (!err)
		err = clock_jiffies(&now);
	if (err)
		return err;
	w.open = 0;
	if (flipped)
		w.flipped = now;
	return write_window(m, &w);
}

/* Names the entries in 'waiting' in 'why'. */
static void say_waiting(const unsigned char *waiting, struct why *why)
{
	struct why rest;
	__u32 t;
	int first = 1;

	why_set(why, "the cpumap kthreads of CPU");
	for (t = 0; t < STEER_CPU_TARGETS; t++) {
		if (!waiting[t])
			continue;
		rest = why_rest(why);
		why_set(&rest, "%s %u%s", first ? "" : ",", t % STEER_CPU_IDS,
			t >= STEER_CPU_IDS ? " (bank 1)" : "");
		first = 0;
	}
	rest = why_rest(why);
	why_set(&rest,
		" did not hand on the frames in their rings within %d ms (a task of higher priority on their CPU, or their CPU offline with its kthread nowhere to run?): moving buckets off them now could reorder their flows. The policy in force stays; retry once they run, or apply with 'rebalance: immediate' (reorders)",
		WINDOW_READY_MS);
}

int window_wait_ready(const struct steer_maps *m, __u32 gro_units,
		      struct why *why)
{
	struct timespec pause = { 0, 1000000 };
	unsigned char waiting[STEER_CPU_TARGETS];
	struct evidence *e;
	__u32 upto[STEER_CPU_TARGETS], t;
	__u64 start;
	int err, left;

	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	/* Everything that entered each ring so far. */
	err = evidence_read(m, e);
	start = e->now_ns;
	for (t = 0; !err && t < STEER_CPU_TARGETS; t++)
		upto[t] = e->facts[t].enq;
	while (!err) {
		left = 0;
		for (t = 0; t < STEER_CPU_TARGETS; t++) {
			waiting[t] = !evidence_ring_delivered(e, t, upto[t],
							      gro_units);
			left += waiting[t];
		}
		if (!left)
			break;
		/* By the clock each read takes with it (a read of every
		 * target's facts takes time of its own). */
		if (e->now_ns - start >= WINDOW_READY_MS * 1000000ull) {
			say_waiting(waiting, why);
			err = -ETIMEDOUT;
			break;
		}
		nanosleep(&pause, NULL);
		err = evidence_read(m, e);
	}
	free(e);
	return err;
}
