// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The drain window (window.h). */
#include <errno.h>
#include <time.h>
#include <bpf/bpf.h>

#include "kernel/clock.h"
#include "kernel/window.h"

/* The later of two ends, 'end' being ahead of 'now' and 'other' any: ends
 * are jiffies in a wrapping 32-bit space, and one more than
 * STEER_WINDOW_MAX ahead is a stale one. */
static __u32 later(__u32 end, __u32 other, __u32 now)
{
	if (other - now - 1 < STEER_WINDOW_MAX && other - now > end - now)
		return other;
	return end;
}

static int read_window(const struct steer_maps *m, struct steer_window *w)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->steer_window, &zero, w) ? -errno : 0;
}

/* The datapath writes held_until with plain stores: a write of the whole
 * value here may put back an older one. Harmless: each end written here
 * lies past any hold seen so far (jiffies are read after the value). */
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
	__u32 now;
	int err;

	err = read_window(m, &w);
	if (err || w.until || w.held_until || w.opened)
		return err;
	err = clock_jiffies(&now);
	if (err)
		return err;
	w.until = w.held_until = w.opened = w.flipped = now;
	return write_window(m, &w);
}

int window_open(const struct steer_maps *m, __u32 units)
{
	struct timespec nap = { 0, 1000000 };
	struct steer_window w;
	__u32 now, warm = units + 2;
	int err, tries, hz;

	err = clock_hz(&hz);
	if (err)
		return err;
	for (tries = 0; tries < 3; tries++) {
		/* Ahead: the warm-up, the drain timeout after the flip, and
		 * a second for this process to get from here to the flip
		 * (window_flipped extends it from the flip on). */
		err = read_window(m, &w);
		if (!err)
			err = clock_jiffies(&now);
		if (!err) {
			w.opened = now;
			w.until = later(now + 2 * warm + (__u32)hz, w.until,
					now);
			err = write_window(m, &w);
		}
		while (!err && now - w.opened < warm) {
			nanosleep(&nap, NULL);
			err = clock_jiffies(&now);
		}
		if (!err)
			err = read_window(m, &w);
		if (err)
			return err;
		/* Still open as long again: nothing but an apply (under the
		 * lock) writes the end, and it only extends it. Else this
		 * process was held up past the margin, and records may have
		 * lapsed: open it again. */
		if (w.until - now - 1 < STEER_WINDOW_MAX && w.until - now >= warm)
			return 0;
	}
	return -ETIMEDOUT;
}

int window_flipped(const struct steer_maps *m, __u32 units)
{
	struct steer_window w;
	__u32 now;
	int err;

	err = read_window(m, &w);
	if (!err)
		err = clock_jiffies(&now);
	if (err)
		return err;
	w.flipped = now;
	w.until = later(now + units + 2, w.until, now);
	return write_window(m, &w);
}

int window_read(const struct steer_maps *m, struct steer_window *w,
		int *open, __u32 *left)
{
	__u32 now, end;
	int err;

	err = read_window(m, w);
	if (!err)
		err = clock_jiffies(&now);
	if (err)
		return err;
	end = later(now, w->until, now);
	end = later(end, w->held_until, now);
	*open = end != now;
	*left = end - now;
	return 0;
}
