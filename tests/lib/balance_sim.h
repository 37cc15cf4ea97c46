/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * balance_sim.h - traffic for the balancer on paper (loader/model/
 * balance.h), shared by its unit test and its benchmark: flows whose sizes
 * follow Zipf's law, a few elephants on top, each flow in a random bucket
 * as the keyed hash puts it; per round, each bucket's count drawn around
 * its load as a counter sees it over an interval (Poisson noise).
 */
#ifndef XDP_STEER_BALANCE_SIM_H
#define XDP_STEER_BALANCE_SIM_H

#include <stdbool.h>
#include <linux/types.h>

#include "model/balance.h"
#include "model/table.h"

struct sim_traffic {
	int nflows;		/* mice, Zipf-sized */
	double zipf;		/* exponent of their sizes (1: classic) */
	int elephants;		/* on top of them */
	double elephant;	/* each elephant's part of all the load */
};

struct sim {
	__u32 size;			/* table buckets */
	int nworkers;
	struct table_cpu cpus[STEER_CPU_IDS];
	__u32 weight[STEER_CPU_IDS];	/* by CPU, as the maps hold them */
	__u32 table[STEER_TABLE_MAX];
	double load[STEER_TABLE_MAX];	/* each bucket's true load, sum 1 */
	__u32 elephant_bucket[64];	/* where each elephant is */
	int nelephants;
	double elephant;		/* each one's part of the load */
	__u64 rng;
};

/* Workers 0..nworkers-1 of weight 1 (or 'weights', when not NULL), a
 * fresh table of 'size' as the loader builds it, and the traffic. 0 or a
 * negative errno. */
int sim_init(struct sim *s, __u32 size, int nworkers, const __u32 *weights,
	     const struct sim_traffic *t, __u64 seed);

/* A number drawn uniformly from [0, 1), from the simulator's generator
 * (the same on every machine). */
double sim_uniform(struct sim *s);
/* A standard normal deviate. */
double sim_normal(struct sim *s);

/* The elephants move to new random buckets, each alone in its own (their
 * flows ended and others began): the traffic shifts. */
void sim_shift(struct sim *s);

/* Each bucket's count over a round of 'frames' frames: Poisson around its
 * load (frames = 0: the true load, no noise). */
void sim_measure(struct sim *s, double frames, double *out);

/* The highest worker load over its share (by weight) of s->table under
 * loads 'load' (the true ones when NULL), as balance_plan() reckons it. */
double sim_ratio(const struct sim *s, const double *load);

/* What a run of rounds did. */
struct sim_run {
	int rounds;		/* until it was quiet */
	int moves;		/* buckets moved in all */
	int most;		/* in the round that moved most */
	int state;		/* of the last round */
	double bound;		/* the plan's lower bound, last round */
};

/* Balancer rounds as the loader runs them (measure, plan, move, cool
 * down) until BALANCE_COOLDOWN + 1 rounds in a row move nothing, at most
 * 'max_rounds'; with 'all', 'max_rounds' of them whatever they do.
 * 'frames': each round's count (0: exact loads). 0 or a negative errno;
 * -ETIMEDOUT when it did not settle. */
int sim_balance(struct sim *s, struct balance_memory *mem, double tolerance,
		int max_moves, double frames, int max_rounds, bool all,
		struct sim_run *run);

#endif /* XDP_STEER_BALANCE_SIM_H */
