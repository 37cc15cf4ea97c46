// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * round_cost - the CPU time of a balancer round by workers (issue 46,
 * "Cost": a round at 1024 workers, at most 50 ms of CPU), on the real
 * pinned maps of an attached interface, with the library's own rounds
 * (steer_balance()); tests/bench/round_cost.sh sets it up.
 *
 *   round_cost IFNAME PIN_DIR
 *
 * A policy may name only online CPUs, and a cpumap entry needs one: so
 * for N workers this writes the policy in force's table (bucket i to
 * worker i % N) and weights (1 each) into its maps by hand, as if an
 * apply had, and gives every receiver slot (steer_rx_cpu, steer_rx_pool)
 * to a possible CPU, as their first frames would. The counts the rounds
 * read (steer_load) are written by a second thread every 10 ms, as the
 * datapath would count frames. Everything a round reads then has N
 * workers' size: the table, the weights, each target's evidence, the
 * records; only cpumap entries and kthreads are missing for the workers
 * past the online CPUs, and those cost the round nothing but the repair's
 * look for them (which reads only the ones that exist). A move onto a
 * worker without an entry fails: so rounds at N workers are of two
 * kinds, both the library's:
 *
 *   even    the loads even: the round reads, plans no move, and looks
 *           for misplaced kthreads (its every-round repair), as a
 *           settled balancer does each round;
 *   skewed  a dry run with heavy buckets on the even workers: the plan
 *           moves max_moves buckets; nothing is written;
 *
 * and the write-back (an apply of the moves) is measured on the online
 * CPUs only ("write" rows, N = online CPUs), where its cpumap entries
 * exist: it writes the table and weights whole, whatever N.
 *
 * Each row is the median of BENCH_ROUNDS rounds (default 5) of this
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID: system calls included, the
 * counting thread not), in ms: read, plan, write, repair, total; and
 * "batched/single", the same run's rounds with every map read one
 * lookup at a time (maps_batch_use(false)), as a kernel before 5.6 reads
 * them. BENCH_WORKERS (default "16 64 255 1024") lists N; an N past the
 * maps' span (the possible CPU ids they were sized for at load, at most
 * STEER_CPU_IDS: a worker's id must have a cpumap entry's place) or the
 * table's buckets is skipped, saying which. BENCH_SLOTS holds
 * that many receiver slots (default: every one, up to the possible CPUs);
 * BENCH_SINGLE=0 leaves the single-lookup rows out (a slow VM's time).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/balance.h"
#include "xdp_steer/rx_slots.h"
#include "kernel/maps.h"
#include "kernel/possible.h"
#include "lib/steer.h"

#define MAX_ROUNDS	64

static struct steer_maps m;
static __u32 active;			/* the slot in force */
static struct steer_slot slot;
static __u32 *weight_of;		/* [STEER_TABLE_MAX]: each bucket's
					 * load per tick */
static volatile int counting = 1;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* libbpf's own notes (an ELF section it skips) are not the table's. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static void fail(const char *what, int err)
{
	fprintf(stderr, "round_cost: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* The datapath's counting, by hand: every receiver slot's row of
 * steer_load grows by each bucket's weight every 10 ms. */
static void *count_loads(void *arg)
{
	size_t n = (size_t)m.rx_rows * STEER_TABLE_MAX;
	struct steer_load *rows = calloc(n, sizeof(*rows));
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	size_t i;

	(void)arg;
	if (!rows)
		fail("memory for the loads", ENOMEM);
	while (counting) {
		pthread_mutex_lock(&load_lock);
		for (i = 0; i < n; i++) {
			rows[i].packets += weight_of[i % STEER_TABLE_MAX];
			rows[i].bytes += 100 * weight_of[i % STEER_TABLE_MAX];
		}
		pthread_mutex_unlock(&load_lock);
		if (maps_write_array(m.steer_load, 0, rows, sizeof(*rows), n))
			fail("writing steer_load", errno);
		nanosleep(&tick, NULL);
	}
	free(rows);
	return NULL;
}

/* The policy in force now names workers 0..n-1, bucket i to i % n. */
static void set_workers(__u32 n)
{
	__u32 *table = calloc(STEER_TABLE_MAX, sizeof(*table));
	__u32 weight[STEER_CPU_IDS] = { 0 }, i;
	int err;

	if (!table)
		fail("memory for the table", ENOMEM);
	for (i = 0; i < slot.table_size; i++)
		table[i] = i % n;
	for (i = 0; i < n; i++)
		weight[i] = 1;
	err = maps_write_array(m.steer_table, active * STEER_TABLE_MAX, table,
			       sizeof(*table), slot.table_size);
	if (!err)
		err = maps_write_array(m.steer_weights, active * m.span,
				       weight, sizeof(*weight), m.span);
	if (err)
		fail("writing the table and weights in force", err);
	free(table);
}

/* Each bucket's load: even, or skewed: a heavy bucket (a hundred times
 * the others') every 16 buckets of the even workers, so that single
 * moves are worth the planner's while. */
static void set_loads(__u32 n, bool skewed)
{
	__u32 i, b;

	pthread_mutex_lock(&load_lock);
	for (i = 0; i < STEER_TABLE_MAX; i++) {
		b = i % slot.table_size;
		weight_of[i] = skewed && b % n % 2 == 0 && b / n % 16 == 0 ?
			       100 : 1;
	}
	pthread_mutex_unlock(&load_lock);
}

/* Every receiver slot to a possible CPU, as their first frames would
 * claim them (bpf/drain.h): steer_rx_cpu, then the pool's count. */
static __u32 claim_slots(void)
{
	const char *want = getenv("BENCH_SLOTS");
	int span = possible_span();
	struct steer_rx_pool pool;
	__u32 s, cpu, zero = 0, n = m.rx_rows;

	if (want && strtoul(want, NULL, 10) < n)
		n = strtoul(want, NULL, 10);

	if (bpf_map_lookup_elem(m.steer_rx_pool, &zero, &pool))
		fail("reading steer_rx_pool", errno);
	for (s = 0; s < n && (int)s < span; s++) {
		cpu = s + 1;
		if (bpf_map_update_elem(m.steer_rx_cpu, &s, &cpu, BPF_ANY) ||
		    bpf_map_update_elem(m.steer_rx_slot, &s, &cpu, BPF_ANY))
			fail("writing a receiver slot", errno);
	}
	pool.claimed = s;
	if (bpf_map_update_elem(m.steer_rx_pool, &zero, &pool, BPF_ANY))
		fail("writing steer_rx_pool", errno);
	return s;
}

struct rounds {
	int n, want, moved, failed;
	double read[MAX_ROUNDS], plan[MAX_ROUNDS], write[MAX_ROUNDS],
	       repair[MAX_ROUNDS], total[MAX_ROUNDS];
	char note[1024];
	volatile sig_atomic_t stop;
};

static void on_round(void *arg, const struct steer_balance_round *r)
{
	struct rounds *x = arg;
	int i = x->n;

	if (i >= x->want || i >= MAX_ROUNDS)
		return;
	x->read[i] = r->cpu_s.read * 1e3;
	x->plan[i] = r->cpu_s.plan * 1e3;
	x->write[i] = r->cpu_s.write * 1e3;
	x->repair[i] = r->cpu_s.repair * 1e3;
	x->total[i] = x->read[i] + x->plan[i] + x->write[i] + x->repair[i];
	x->moved += r->plan ? r->plan->nmoves : 0;
	if (getenv("BENCH_TRACE"))
		fprintf(stderr, "round %u: state %d, %d moves, applied %u: %s\n",
			r->round, r->state, r->plan ? r->plan->nmoves : -1,
			r->applied, r->note);
	if (r->state == STEER_BAL_FAILED) {
		x->failed++;
		snprintf(x->note, sizeof(x->note), "%s", r->note);
	}
	if (++x->n >= x->want)
		x->stop = 1;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n ? v[n / 2] : 0;
}

/* BENCH_ROUNDS rounds of the library's balancer; the medians in x. */
static void run(const char *ifname, bool dry_run, struct rounds *x)
{
	struct steer_balance_opts o = { .dry_run = dry_run };
	struct steer_ctx ctx = { 0 };
	const char *e = getenv("BENCH_ROUNDS");
	int want = e ? atoi(e) : 5, err;

	memset(x, 0, sizeof(*x));
	x->want = want > 0 && want <= MAX_ROUNDS ? want : 5;
	err = steer_balance(&ctx, ifname, &o, on_round, x, &x->stop);
	if (err)
		fprintf(stderr, "round_cost: the balancer stopped: %s\n", ctx.err);
}

static void row(const char *kind, __u32 n, struct rounds *x, double single)
{
	double read = median(x->read, x->n), plan = median(x->plan, x->n),
	       write = median(x->write, x->n),
	       repair = median(x->repair, x->n),
	       total = median(x->total, x->n);

	printf("%-7s %6u %8.2f %8.2f %8.2f %8.2f %8.2f %7.0f",
	       kind, n, read, plan, write, repair, total,
	       x->n ? (double)x->moved / x->n : 0);
	if (single > 0)
		printf(" %9.2f", total / single);
	else
		printf(" %9s", "-");
	if (x->failed)
		printf("  (%d failed: %s)", x->failed, x->note);
	printf("\n");
}

int main(int argc, char **argv)
{
	const char *list = getenv("BENCH_WORKERS");
	char buf[256], *tok, *save;
	struct rounds even, single, skewed;
	struct steer_ctl ctl;
	int online = 0, singles = !getenv("BENCH_SINGLE") ||
				 strcmp(getenv("BENCH_SINGLE"), "0");
	__u32 held;
	pthread_t counter;
	__u32 zero = 0, n;

	libbpf_set_print(quiet);
	if (argc != 3) {
		fprintf(stderr, "usage: round_cost IFNAME PIN_DIR\n");
		return 2;
	}
	if (maps_open(argv[2], &m, NULL))
		fail("opening the pinned maps", errno);
	if (bpf_map_lookup_elem(m.steer_ctl, &zero, &ctl))
		fail("reading steer_ctl", errno);
	active = ctl.active;
	if (bpf_map_lookup_elem(m.steer_slots, &active, &slot) ||
	    !slot.table_size)
		fail("reading the slot in force (attach with a policy first)",
		     errno ? errno : ENOENT);
	weight_of = calloc(STEER_TABLE_MAX, sizeof(*weight_of));
	if (!weight_of)
		fail("memory", ENOMEM);
	online = (int)sysconf(_SC_NPROCESSORS_ONLN);
	held = claim_slots();
	set_loads(1, false);
	if (pthread_create(&counter, NULL, count_loads, NULL))
		fail("starting the counting thread", errno);

	printf("# balancer round CPU time (ms, median of %s rounds), table %u buckets, %u of %u receiver slots held, %d possible CPUs, maps' span %u (at most %u workers)\n",
	       getenv("BENCH_ROUNDS") ? getenv("BENCH_ROUNDS") : "5",
	       slot.table_size, held, m.rx_rows, possible_span(), m.span,
	       m.span < slot.table_size ? m.span : slot.table_size);
	printf("%-7s %6s %8s %8s %8s %8s %8s %7s %9s\n", "round", "N", "read",
	       "plan", "write", "repair", "total", "moves", "vs_single");
	snprintf(buf, sizeof(buf), "%s", list ? list : "16 64 255 1024");
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		n = strtoul(tok, NULL, 10);
		if (!n || n > m.span || n > slot.table_size) {
			printf("# N=%s skipped: the maps' span is %u CPU ids (the possible CPUs at load, at most STEER_CPU_IDS %d) and the table %u buckets; N needs both\n",
			       tok, m.span, STEER_CPU_IDS, slot.table_size);
			continue;
		}
		set_workers(n);
		set_loads(n, false);
		memset(&single, 0, sizeof(single));
		if (singles) {
			maps_batch_use(false);
			run(argv[1], false, &single);
			maps_batch_use(true);
			row("single", n, &single, 0);
		}
		run(argv[1], false, &even);
		row("even", n, &even, median(single.total, single.n));
		set_loads(n, true);
		run(argv[1], true, &skewed);
		row("skewed", n, &skewed, 0);
	}
	/* The write-back, on the online CPUs, whose entries exist. */
	if (online >= 2) {
		n = (__u32)online < m.span ? (__u32)online : m.span;
		set_workers(n);
		set_loads(n, true);
		run(argv[1], false, &even);
		row("write", n, &even, 0);
	}
	counting = 0;
	pthread_join(counter, NULL);
	maps_close(&m);
	return 0;
}
