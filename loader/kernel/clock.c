// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * clock.c - jiffies and the tick rate for the loader (see clock.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <zlib.h>

#include "kernel/clock.h"
#include "clock.skel.h"
#include "util/mono.h"

struct steer_clock_ctx {
	__u64 jiffies;
};

/* Loaded on first use and kept: a tool run reads the clock a few times. */
static struct clock_bpf *skel;

int clock_jiffies64(__u64 *now)
{
	struct steer_clock_ctx c = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &c,
		    .ctx_size_in = sizeof(c));
	int err;

	if (!skel) {
		skel = clock_bpf__open_and_load();
		if (!skel)
			return -errno;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.steer_clock),
				     &opts);
	if (err)
		return err;
	*now = c.jiffies;
	return 0;
}

int clock_jiffies(__u32 *now)
{
	__u64 j;
	int err = clock_jiffies64(&j);

	if (!err)
		*now = (__u32)j;
	return err;
}

/* CONFIG_HZ=N in a kernel config read line by line through zlib (which
 * reads plain files as they are, so one reader serves both). */
static int hz_from(const char *path)
{
	char line[256];
	gzFile f = gzopen(path, "r");
	int hz = 0;

	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line)))
		if (!strncmp(line, "CONFIG_HZ=", 10)) {
			hz = atoi(line + 10);
			break;
		}
	gzclose(f);
	return hz;
}

/* Polls jiffies every 200 us until they change: 0 with the new value in
 * *j and the time it was seen in *t. */
static int next_tick(__u32 *j, __u64 *t)
{
	struct timespec nap = { 0, 200000 };
	__u32 from = *j, now;
	int err, i;

	/* At most 20 ms at HZ=100, plus a scheduler's delays. */
	for (i = 0; i < 2000; i++) {
		err = clock_jiffies(&now);
		if (err)
			return err;
		if (now != from) {
			*j = now;
			*t = mono_ns();
			return 0;
		}
		nanosleep(&nap, NULL);
	}
	return -ETIME;
}

/*
 * Five ticks timed from one tick's edge to another's, to the nearest rate
 * Linux offers. Edges, not a fixed nap: over a 20 ms nap HZ=250 counts 4
 * to 6 ticks as the nap's ends fall, which reads as 250 or 300 by chance
 * (an apply of the same policy then saw another drain_units, so another
 * policy); from edge to edge the error is the poll's 200 us (4 ms at
 * HZ=250 in 20 ms: 227-278, nearest 250; 300 gives 16.7 ms). At most
 * about 60 ms, on kernels whose config cannot be read.
 */
static int hz_measured(int *hz)
{
	static const int rates[] = { 100, 250, 300, 1000 };
	double r, best = 1e9;
	__u64 t0, t1;
	__u32 j, j0;
	size_t i;
	int err, n;

	err = clock_jiffies(&j);
	if (!err)
		err = next_tick(&j, &t0);
	j0 = j;
	for (n = 0; !err && n < 5; n++)
		err = next_tick(&j, &t1);
	if (err)
		return err;
	r = (double)(j - j0) * 1e9 / (double)(t1 - t0);
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		if (fabs(rates[i] - r) < best) {
			best = fabs(rates[i] - r);
			*hz = rates[i];
		}
	}
	return 0;
}

/* The coarse clocks advance once a tick, and the kernel gives their
 * resolution as the tick's length (TICK_NSEC): exact, no waiting. 0 when
 * that is not one of the rates Linux offers. */
static int hz_from_coarse(void)
{
	static const int rates[] = { 100, 250, 300, 1000 };
	struct timespec res;
	size_t i;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) || res.tv_sec ||
	    !res.tv_nsec)
		return 0;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (labs(res.tv_nsec - (1000000000L + rates[i] / 2) / rates[i]) <= 1)
			return rates[i];
	return 0;
}

int clock_hz(int *hz)
{
	char path[sizeof(((struct utsname *)0)->release) + 16];
	static int known;
	struct utsname u;
	int err;

	if (known) {
		*hz = known;
		return 0;
	}
	known = hz_from("/proc/config.gz");
	if (!known && !uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		known = hz_from(path);
	}
	if (!known)
		known = hz_from_coarse();
	if (!known) {
		err = hz_measured(&known);
		if (err)
			return err;
	}
	*hz = known;
	return 0;
}

__u32 clock_ms_to_ticks(__u32 ms, int hz)
{
	return (__u32)(((__u64)ms * (__u64)hz + 999) / 1000) + 1;
}
