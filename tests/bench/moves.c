// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * moves - how long after a policy flip every bucket has moved, watched from
 * the pinned maps of a live interface (tests/bench/moves.sh runs it around
 * `xdp-steer apply`).
 *
 *   moves PIN_DIR [TIMEOUT_MS]
 *
 * Waits for steer_ctl.active to change (the flip), then scans the buckets'
 * records on every receiving CPU until each bucket that is warm (a frame
 * within the drain timeout) is where the new table puts it; a cold bucket
 * moves on its next frame, so it counts as moved. Prints one line:
 *
 *   moved_us=N to_move=N scans=N
 *
 * moved_us: from the flip seen to the scan that found everything in place
 * (resolution: a scan, about a millisecond); to_move: drain buckets (of
 * STEER_TABLE_MAX, whatever the table's size) x receiving CPUs out of
 * place at the first scan. Exit status 1 on a setup error or
 * when nothing flipped or moved within TIMEOUT_MS (default 10000).
 * MOVES_TRACE=1 prints every scan, with the first buckets out of place.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/drain.h"
#include "xdp_steer/hash.h"
#include "kernel/clock.h"
#include "kernel/maps.h"

static __u64 mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000ull + (__u64)ts.tv_nsec / 1000;
}

static void nap_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

/* The span of the maps (struct steer_maps). */
static __u32 span = STEER_MAX_CPUS;

/* Where a frame of a bucket on table CPU 'cpu' goes from receiving CPU
 * 'rx' (the datapath's target_of()). */
static __u32 target_of(const struct steer_slot *s, __u32 cpu, __u32 rx)
{
	__u32 t = cpu + (s->bank ? span : 0);

	if ((s->flags & STEER_F_LOCAL_FASTPATH) && cpu == rx)
		return STEER_TARGET_LOCAL | t;
	return t;
}

struct scan {
	const struct steer_slot *s;
	const __u32 *table;
	__u32 now;
	int count;
};

/* Drain bucket 'key' (steer_buckets) on each receiving CPU: warm and not
 * where its table bucket's CPU puts it? */
static int check_bucket(__u32 key, const void *values, int ncpus, void *arg)
{
	const struct steer_bucket *v = values;
	struct scan *sc = arg;
	__u32 want, cur, cpu;
	int c;

	cpu = sc->table[steer_table_index(key, sc->s->table_size)];
	for (c = 0; c < ncpus; c++) {
		if (!v[c].last || sc->now - v[c].last >= sc->s->drain_units)
			continue;
		want = target_of(sc->s, cpu, c);
		cur = v[c].target;
		if (cur == want || (cur & want & STEER_TARGET_LOCAL))
			continue;
		if (getenv("MOVES_TRACE") && sc->count < 3)
			fprintf(stderr, "    bucket %u rx %d: at %#x, wants %#x, last %u ago, draining since %u ago\n",
				key, c, cur, want, sc->now - v[c].last,
				v[c].since ? sc->now - v[c].since : 0);
		sc->count++;
	}
	return 0;
}

/* Drain buckets x receiving CPUs warm and not where the table puts them. */
static int out_of_place(const struct steer_maps *m, const struct steer_slot *s,
			const __u32 *table, int *count)
{
	struct scan sc = { .s = s, .table = table };
	int err;

	err = clock_jiffies(&sc.now);
	if (!err)
		err = maps_rx_scan(m, m->steer_buckets,
				       sizeof(struct steer_bucket),
				       check_bucket, &sc);
	*count = sc.count;
	return err;
}

int main(int argc, char **argv)
{
	__u64 timeout_us, t0, t_flip;
	__u32 zero = 0, active0, key;
	struct steer_maps m;
	struct steer_ctl ctl;
	struct steer_slot s;
	__u32 *table;
	int err, count, first = -1, scans = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: moves PIN_DIR [TIMEOUT_MS]\n");
		return 1;
	}
	timeout_us = (argc > 2 ? strtoull(argv[2], NULL, 10) : 10000) * 1000;
	err = maps_open(argv[1], &m, NULL);
	if (err) {
		fprintf(stderr, "moves: cannot open the maps in %s: %s\n",
			argv[1], strerror(-err));
		return 1;
	}
	span = m.span;
	table = calloc(STEER_TABLE_MAX, sizeof(*table));
	if (!table ||
	    bpf_map_lookup_elem(m.steer_ctl, &zero, &ctl)) {
		fprintf(stderr, "moves: cannot read steer_ctl\n");
		return 1;
	}
	/* Ready: the script starts the apply once it sees this. */
	printf("ready\n");
	fflush(stdout);
	active0 = ctl.active;
	t0 = mono_us();
	do {
		nap_us(50);
		if (bpf_map_lookup_elem(m.steer_ctl, &zero, &ctl))
			return 1;
		if (mono_us() - t0 > timeout_us) {
			fprintf(stderr, "moves: no flip within the timeout\n");
			return 1;
		}
	} while (ctl.active == active0);
	t_flip = mono_us();
	key = ctl.active & 1;
	if (bpf_map_lookup_elem(m.steer_slots, &key, &s))
		return 1;
	for (key = 0; key < s.table_size; key++) {
		__u32 k = (ctl.active & 1) * STEER_TABLE_MAX + key;

		if (bpf_map_lookup_elem(m.steer_table, &k, &table[key]))
			return 1;
	}
	for (;;) {
		err = out_of_place(&m, &s, table, &count);
		if (err) {
			fprintf(stderr, "moves: reading the buckets: %s\n",
				strerror(-err));
			return 1;
		}
		scans++;
		if (getenv("MOVES_TRACE"))
			fprintf(stderr, "  %llu us: %d out of place\n",
				(unsigned long long)(mono_us() - t_flip), count);
		if (first < 0)
			first = count;
		if (!count)
			break;
		if (mono_us() - t_flip > timeout_us) {
			fprintf(stderr, "moves: %d buckets still out of place\n",
				count);
			return 1;
		}
	}
	printf("moved_us=%llu to_move=%d scans=%d\n",
	       (unsigned long long)(mono_us() - t_flip), first, scans);
	maps_close(&m);
	return 0;
}
