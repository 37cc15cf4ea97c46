// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * balance_sim - the balancer on paper: static hash against balanced, over
 * skewed traffic (tests/lib/balance_sim.h: Zipf-sized flows, elephants on
 * top, each round's counts drawn with Poisson noise at 1 Mpps for 1 s).
 * Prints a table; asserts nothing (tests/unit/test_balance.c does).
 *
 * max/mean is the busiest worker's load over the mean worker's (all
 * weights 1). "balanced" is where the rounds settle (three in a row
 * without a move); "moves" the buckets moved to get there, "rounds" the
 * rounds it took, "most" the most any round moved. Medians over SEEDS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance_sim.h"

#define SEEDS		9
#define TOL		0.10
#define MOVES		16
#define FRAMES		1e6
#define MAX_ROUNDS	200

struct row {
	int workers;
	__u32 size;
	const char *traffic;
	struct sim_traffic t;
};

static const struct row rows[] = {
	{ 16, 512, "Zipf 0.9, 20k flows + 6 x 5 %", { 20000, 0.9, 6, 0.05 } },
	{ 16, 4096, "Zipf 0.9, 20k flows + 6 x 5 %", { 20000, 0.9, 6, 0.05 } },
	{ 16, 512, "Zipf 1.0, 50k flows, no elephants", { 50000, 1.0, 0, 0 } },
	{ 16, 512, "Zipf 0.9, 20k flows + 1 x 20 %", { 20000, 0.9, 1, 0.20 } },
	{ 64, 1024, "Zipf 0.7, 100k flows + 16 x 1.2 %", { 100000, 0.7, 16, 0.012 } },
	{ 64, 4096, "Zipf 0.7, 100k flows + 16 x 1.2 %", { 100000, 0.7, 16, 0.012 } },
	{ 64, 4096, "Zipf 0.7, 100k flows + 1 x 5 %", { 100000, 0.7, 1, 0.05 } },
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

int main(void)
{
	double before[SEEDS], after[SEEDS], moves[SEEDS], rounds[SEEDS];
	double most[SEEDS], bound[SEEDS];
	struct balance_memory *mem = malloc(sizeof(*mem));
	struct sim *s = malloc(sizeof(*s));
	struct sim_run run;
	size_t r;
	int k, err;

	if (!s || !mem)
		return 1;
	printf("Balancer on paper: static hash vs balanced, tolerance %.0f %%, max_moves %d, %d seeds (medians);\n"
	       "each round counts 1 s at 1 Mpps (Poisson noise); max/mean: busiest worker's load over the mean\n\n",
	       TOL * 100, MOVES, SEEDS);
	printf("%-7s %-7s %-36s %9s %9s %8s %6s %6s %6s\n", "workers",
	       "buckets", "traffic", "static", "balanced", "best", "moves",
	       "rounds", "most");
	printf("%-7s %-7s %-36s %9s %9s %8s %6s %6s %6s\n", "", "", "",
	       "max/mean", "max/mean", "possible", "", "", "/round");
	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		for (k = 0; k < SEEDS; k++) {
			memset(mem, 0, sizeof(*mem));
			if (sim_init(s, rows[r].size, rows[r].workers, NULL,
				     &rows[r].t, k + 1))
				return 1;
			before[k] = sim_ratio(s, NULL);
			err = sim_balance(s, mem, TOL, MOVES, FRAMES,
					  MAX_ROUNDS, false, &run);
			if (err && err != -110)
				return 1;
			after[k] = sim_ratio(s, NULL);
			moves[k] = run.moves;
			rounds[k] = run.rounds;
			most[k] = run.most;
			bound[k] = run.bound;
		}
		printf("%-7d %-7u %-36s %9.2f %9.2f %8.2f %6.0f %6.0f %6.0f\n",
		       rows[r].workers, rows[r].size, rows[r].traffic,
		       median(before, SEEDS), median(after, SEEDS),
		       median(bound, SEEDS), median(moves, SEEDS),
		       median(rounds, SEEDS), median(most, SEEDS));
	}
	free(s);
	free(mem);
	return 0;
}
