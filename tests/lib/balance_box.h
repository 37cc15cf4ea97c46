/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * balance_box.h - a box on paper for the balancer by CPU time (loader/
 * model/balance.h, balance_cpu_loads()): collecting CPUs that take the
 * frames off the NIC and also work, worker CPUs of different per-frame
 * costs, applications that take a share of a CPU, and saturation: a CPU
 * never more than wholly busy, a worker's full ring dropping what it
 * cannot take, a collector over its capacity taking fewer frames (the
 * NIC drops them unseen). Per round the balancer sees what the loader
 * sees: each CPU's busy share in whole ticks of /proc/stat, what was sent
 * toward each CPU and what its ring dropped, and each bucket's count.
 */
#ifndef XDP_STEER_BALANCE_BOX_H
#define XDP_STEER_BALANCE_BOX_H

#include "balance_sim.h"

/* CPUs a box simulates, each drawing its own noise: a fixed count, so a
 * seed gives the same runs whatever the loader's arrays' length
 * (STEER_CPU_IDS, which they are passed as). */
#define BOX_CPUS	256

struct box {
	struct sim *s;			/* the traffic's bucket shares, the
					 * table and the workers' weights */
	double rate;			/* offered, M frames/s */
	int collectors;			/* CPUs 0..collectors-1 receive,
					 * evenly (the NIC's RSS) */
	double collect;			/* us a frame costs its receiving
					 * CPU to take and steer */
	double local;			/* us a frame of the receiving CPU's
					 * own buckets costs it besides */
	double work[STEER_CPU_IDS];	/* us a frame costs a CPU that takes
					 * it off its ring */
	double app[STEER_CPU_IDS];	/* CPU share an application takes,
					 * first */
	double seconds;			/* a round */
	double interval;		/* > 0: the policy's interval, s: each
					 * round then lasts as the loader makes
					 * it (balance_round_ms(): short while
					 * settling), in 'seconds' */
	double elapsed;			/* the rounds' seconds, summed */
	struct balance_probe probe;	/* the balancer's trial, if any */
	int trials, undone;		/* trials begun, and moved back */
	double gen;			/* > 0: a generator shares the one
					 * collector, sending as fast as the
					 * time it leaves allows, at this many
					 * us a frame (the benchmarks' setup):
					 * 'rate' then follows the placement */
	double wake;			/* > 0, with gen: us a frame handed to
					 * a worker costs the collector to wake
					 * its kthread, times the share of the
					 * round the worker idles (its kthread
					 * asleep, so each flush to it wakes
					 * it: an IPI, on a VM an exit to the
					 * host). A saturated worker costs
					 * none, so the collector, and the
					 * generator beside it, run faster
					 * once the worker saturates: near
					 * that placement the box has two
					 * rates, and a round's noise flips it
					 * from one to the other (awake) */
	double awake[STEER_CPU_IDS];	/* with wake: each worker's busy
					 * share of the round before, where
					 * the next round's starts from */
	double burst;			/* > 0: a worker's ring overflows in
					 * bursts before its CPU is wholly
					 * busy: from 80 % busy on it drops a
					 * share of its frames rising to this
					 * at 100 %, which cost it nothing */
	double jitter;			/* > 0: the rate's relative standard
					 * deviation from round to round (a
					 * noisy host), with noise */
	double spread;			/* > 0: with noise, the rate
					 * times a factor drawn uniformly
					 * from 1 - spread / 2 to 1 +
					 * spread / 2 each round: rounds
					 * of one placement differ by up
					 * to 'spread', as on the
					 * benchmarks' host */
	bool stuck[STEER_CPU_IDS];	/* the CPU's kthread takes nothing
					 * this round (an application of
					 * higher priority has it all): what
					 * is sent there drops, and the
					 * balancer sees it cannot drain, as
					 * lib/balance_daemon.c's evidence_stuck() */
	/* When set, called before each round: an application that comes
	 * and goes (app[], stuck[]). */
	void (*before_round)(struct box *b, int round);
	double start;			/* > 0: the traffic starts with the
					 * attach, as the benchmarks send it:
					 * in box_balance()'s first round from
					 * elapsed 0 it runs this share of the
					 * round, the CPUs idle before (on the
					 * benchmarks' VM it took in 0.08-0.23
					 * of the next round's frames) */
	bool starting;			/* that round is on */
	int drain_rounds;		/* > 0: after a round that moved
					 * buckets, this many rounds wait for
					 * its drain, as the loader's do while
					 * a move's records outlast a round
					 * (lib/balance_daemon.c, "still drain"):
					 * they last as long, count nothing
					 * and plan nothing (on the
					 * benchmarks' VM, CPU 1 shared with
					 * other work, 5-11 of the 31-32
					 * rounds of an attach's first 10 s) */
	int waiting;			/* of those, rounds left */
	bool uncounted;			/* box_observe() leaves st->counts
					 * zero and draws none: a placement's
					 * rate alone, asked often (the climb
					 * test's), is many times faster */
	bool forget_ways;		/* plan without balance_hold(): the
					 * balancer before it, to compare */
	int stuck_moves;		/* plan moves off or onto a CPU stuck
					 * that round */
	int minute_moves[64];		/* plan moves per 60 rounds (of 1 s:
					 * per minute), the first 64 */
	int minute_back[64];		/* of those, moves back (as *back) */
};

/* What a round did, true and as seen. */
struct box_state {
	double demand[STEER_CPU_IDS];	/* true: what each CPU would be
					 * busy with, over 1 when saturated */
	double forwarded;		/* M frames/s */
	double ring_dropped;		/* M frames/s, all rings */
	struct balance_cpu seen[STEER_CPU_IDS];
	double counts[STEER_TABLE_MAX];	/* frames counted per bucket */
};

/* The box under b->s->table; noise: ticks and counts as measured (else
 * exact). */
void box_observe(struct box *b, bool noise, struct box_state *st);

/* The highest true demand of a worker over the mean of the workers'
 * (even CPU time: 1). */
double box_unevenness(const struct box *b, const struct box_state *st);

/* Rounds of the balancer by CPU time on the box (observe, split the
 * demands, plan, move at once, cool down), as sim_balance() runs them;
 * '*back' (when not NULL) counts the moves that took a bucket back to
 * the CPU its previous move took it from: ping-pong (of the plan's moves:
 * a trial's, and their way back, count in b->trials and b->undone).
 * BOX_DEBUG=1 in the environment prints each round on stderr. */
int box_balance(struct box *b, struct balance_memory *mem, double tolerance,
		int max_moves, int max_rounds, bool all, struct sim_run *run,
		int *back);

#endif /* XDP_STEER_BALANCE_BOX_H */
