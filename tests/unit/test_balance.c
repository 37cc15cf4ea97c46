// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the balancer's rounds (loader/model/balance.h) against a
 * simulator (tests/lib/balance_sim.h): flows of Zipf sizes with a few
 * elephants, 2, 16 and 64 workers, tables of 512 to 4096 buckets, counts
 * drawn with the noise of a real interval. Where a placement within the
 * tolerance exists, the busiest worker ends within it; where one bucket
 * alone exceeds a share, the round says so and ends as low as the bucket
 * counts allow; no round moves more than max_moves; once settled, rounds
 * under noise move nothing; and when the traffic shifts it settles again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/balance.h"
#include "balance_sim.h"
#include "test.h"

#define TOL		0.10
#define MOVES		16
/* Frames a round counts: a second of 1 Mpps. */
#define FRAMES		1e6
#define MAX_ROUNDS	60

struct scenario {
	const char *name;
	int workers;
	__u32 size;
	struct sim_traffic t;
};

/* Skewed traffic each worker count can still carry within 10 %: the
 * biggest flow below a share. */
static const struct scenario feasible[] = {
	{ "2 workers, 512 buckets, 4 elephants of 10 %", 2, 512,
	  { 10000, 1.0, 4, 0.10 } },
	{ "2 workers, 4096 buckets, 8 elephants of 6 %", 2, 4096,
	  { 20000, 1.0, 8, 0.06 } },
	{ "16 workers, 512 buckets, 6 elephants of 5 %", 16, 512,
	  { 20000, 0.9, 6, 0.05 } },
	{ "16 workers, 1024 buckets, 10 elephants of 4 %", 16, 1024,
	  { 50000, 0.9, 10, 0.04 } },
	{ "16 workers, 4096 buckets, 12 elephants of 3 %", 16, 4096,
	  { 100000, 0.9, 12, 0.03 } },
	{ "64 workers, 1024 buckets, 16 elephants of 1.2 %", 64, 1024,
	  { 100000, 0.7, 16, 0.012 } },
	{ "64 workers, 4096 buckets, 24 elephants of 1 %", 64, 4096,
	  { 100000, 0.7, 24, 0.01 } },
};

#define SEEDS	4

static const struct scenario *cur;

static struct sim *sim_new(const struct scenario *sc, const __u32 *weights,
			   __u64 seed)
{
	struct sim *s = malloc(sizeof(*s));

	if (!EXPECT(s != NULL, "memory for the simulator") ||
	    !EXPECT_EQ(sim_init(s, sc->size, sc->workers, weights, &sc->t,
				seed), 0, "the simulator starts")) {
		free(s);
		return NULL;
	}
	return s;
}

static void test_converges(void)
{
	struct balance_memory mem;
	struct sim_run run;
	struct sim *s;
	double before, after;
	__u64 seed;
	int moved_any = 0;

	for (seed = 1; seed <= SEEDS; seed++) {
		s = sim_new(cur, NULL, seed);
		if (!s)
			return;
		memset(&mem, 0, sizeof(mem));
		before = sim_ratio(s, NULL);
		if (!EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES,
					   MAX_ROUNDS, false, &run), 0,
			       "the rounds settle"))
			goto next;
		after = sim_ratio(s, NULL);
		moved_any |= run.moves > 0;
		printf("  seed %llu: busiest %.3f -> %.3f of its share, %d moves in %d rounds (at most %d a round), bound %.3f\n",
		       (unsigned long long)seed, before, after, run.moves,
		       run.rounds, run.most, run.bound);
		EXPECT(run.bound <= 1 + TOL,
		       "the scenario can be balanced within the tolerance");
		EXPECT(after <= 1 + TOL,
		       "the busiest worker ends within the tolerance of its share");
		EXPECT_EQ(run.state, STEER_BAL_BALANCED, "the last round says balanced");
		EXPECT(run.most <= MOVES, "no round moves more than max_moves");
		EXPECT(before <= 1 + TOL || run.moves > 0,
		       "an imbalance over the tolerance was acted on");
next:
		free(s);
	}
	EXPECT(moved_any, "the skewed traffic needed moves in at least one run");
}

/* Settled, then many rounds of noisy counts: nothing moves. */
static void test_no_moves_once_settled(void)
{
	struct balance_memory mem;
	struct sim_run run;
	struct sim *s = sim_new(cur, NULL, 7);

	if (!s)
		return;
	memset(&mem, 0, sizeof(mem));
	if (EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES, MAX_ROUNDS, false,
				  &run), 0, "the rounds settle") &&
	    EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES, 20, true, &run),
		      0, "twenty more rounds run")) {
		EXPECT_EQ(run.moves, 0, "twenty noisy rounds after settling move nothing");
	}
	/* Counts ten times noisier (0.1 s at 1 Mpps) move nothing either. */
	if (EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES / 10, 20, true,
				  &run), 0, "twenty short rounds run"))
		EXPECT_EQ(run.moves, 0, "nor do twenty rounds of 100000 frames");
	free(s);
}

/* The elephants move to other buckets: the rounds settle again. */
static void test_shift(void)
{
	struct balance_memory mem;
	struct sim_run run;
	struct sim *s = sim_new(cur, NULL, 11);
	double shifted;
	int shift;

	if (!s)
		return;
	memset(&mem, 0, sizeof(mem));
	if (!EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES, MAX_ROUNDS, false,
				   &run), 0, "the rounds settle"))
		goto out;
	for (shift = 0; shift < 3; shift++) {
		sim_shift(s);
		shifted = sim_ratio(s, NULL);
		if (!EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES,
					   MAX_ROUNDS, false, &run), 0,
			       "the rounds settle again after the shift"))
			break;
		printf("  shift %d: busiest %.3f -> %.3f, %d moves in %d rounds\n",
		       shift + 1, shifted, sim_ratio(s, NULL), run.moves,
		       run.rounds);
		EXPECT(sim_ratio(s, NULL) <= 1 + TOL,
		       "the busiest worker is within the tolerance again");
		EXPECT(run.most <= MOVES, "no round moves more than max_moves");
	}
out:
	free(s);
}

static void test_elephant_over_a_share(void)
{
	/* 16 workers, one flow with 20 % of the load: 3.2 shares. */
	static const struct scenario sc = {
		"", 16, 512, { 20000, 0.9, 1, 0.20 } };
	struct balance_memory mem = { .going = false };
	struct sim_run run;
	struct sim *s = sim_new(&sc, NULL, 3);
	double after;

	if (!s)
		return;
	if (EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES, MAX_ROUNDS, false,
				  &run), 0, "the rounds settle")) {
		after = sim_ratio(s, NULL);
		printf("  busiest %.3f of its share, the best possible %.3f; %d moves in %d rounds\n",
		       after, run.bound, run.moves, run.rounds);
		EXPECT(run.bound > 1 + TOL,
		       "the plan's bound says one bucket alone exceeds a share");
		EXPECT_EQ(run.state, STEER_BAL_BEST,
			  "the last round says it does the best possible");
		EXPECT(after <= run.bound + TOL / 2,
		       "the busiest worker ends within half the tolerance of the best possible");
		EXPECT(run.most <= MOVES, "no round moves more than max_moves");
	}
	/* And then it stays: noisy rounds move nothing. */
	if (EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES, 20, true, &run),
		      0, "twenty more rounds run"))
		EXPECT_EQ(run.moves, 0, "twenty more rounds move nothing");
	free(s);
}

/* Weights 1 and 3: the targets are a quarter and three quarters. */
static void test_weights_are_the_targets(void)
{
	static const struct scenario sc = {
		"", 2, 512, { 10000, 1.0, 4, 0.08 } };
	static const __u32 weights[] = { 1, 3 };
	struct balance_memory mem = { .going = false };
	double per[2] = { 0, 0 }, total = 0;
	struct sim_run run;
	struct sim *s = sim_new(&sc, weights, 5);
	__u32 b;

	if (!s)
		return;
	/* Every elephant on CPU 0, the light one. */
	for (b = 0; b < s->size; b++)
		s->table[b] = b < 128 ? 0 : 1;
	for (b = 0; b < 4; b++) {
		s->load[s->elephant_bucket[b]] -= 0.08;
		s->elephant_bucket[b] = b * 7;
		s->load[b * 7] += 0.08;
	}
	if (EXPECT_EQ(sim_balance(s, &mem, TOL, MOVES, FRAMES, MAX_ROUNDS, false,
				  &run), 0, "the rounds settle")) {
		for (b = 0; b < s->size; b++) {
			per[s->table[b]] += s->load[b];
			total += s->load[b];
		}
		printf("  cpu 0 carries %.3f (weight 1 of 4), cpu 1 %.3f\n",
		       per[0] / total, per[1] / total);
		EXPECT(per[0] / total <= 0.25 * (1 + TOL),
		       "the weight-1 CPU ends within the tolerance of a quarter");
		EXPECT(per[1] / total <= 0.75 * (1 + TOL),
		       "the weight-3 CPU within it of three quarters");
	}
	free(s);
}

/* A rule pins heavy traffic to CPU 0: its buckets make room, and the
 * rule's load (fixed) is never something a round moves. */
static void test_fixed_load(void)
{
	static const struct scenario sc = {
		"", 2, 512, { 10000, 1.0, 0, 0 } };
	double load[STEER_TABLE_MAX], fixed[STEER_CPU_IDS] = { 0 };
	struct balance_plan *plan = malloc(sizeof(*plan));
	struct sim *s = sim_new(&sc, NULL, 9);
	double on0 = 0, total = 0;
	__u32 b;
	int r, i;

	if (!s || !EXPECT(plan != NULL, "memory for a plan"))
		goto out;
	/* The rule's flows carry 0.4 of what the buckets carry. */
	fixed[0] = 0.4;
	for (r = 0; r < 10; r++) {
		struct balance_input in = {
			.size = s->size, .table = s->table,
			.weight = s->weight, .load = load, .fixed = fixed,
			.tolerance = TOL, .max_moves = MOVES,
		};

		sim_measure(s, 0, load);
		if (!EXPECT_EQ(balance_plan(&in, s->table, plan), 0,
			       "the round is planned"))
			goto out;
		for (i = 0; i < plan->nmoves; i++)
			if (!EXPECT(plan->moves[i].bucket < s->size,
				    "only table buckets move"))
				goto out;
	}
	for (b = 0; b < s->size; b++) {
		on0 += s->table[b] == 0 ? s->load[b] : 0;
		total += s->load[b];
	}
	printf("  cpu 0 carries %.3f with the rule's 0.4, of %.3f\n",
	       on0 + 0.4, total + 0.4);
	EXPECT((on0 + 0.4) / (total + 0.4) <= 0.5 * (1 + TOL),
	       "the CPU with the pinned load ends within the tolerance");
	EXPECT(on0 < total / 2, "its buckets carry less than half for it");
out:
	free(plan);
	free(s);
}

/* One flow, its worker's whole load but for a hair of non-IP frames
 * there ('fixed'), the other worker idle (the benchmarks' one flow on the
 * collector's fast path): moving it would only trade places, the hair
 * gained, so nothing moves, round after round. */
static void test_elephant_stays(void)
{
	static const __u32 weight[STEER_CPU_IDS] = { 1, 1 };
	struct balance_plan *plan = malloc(sizeof(*plan));
	double load[8] = { 0 }, fixed[STEER_CPU_IDS] = { 1e-4 };
	__u32 table[8] = { 0, 1, 0, 1, 0, 1, 0, 1 };
	struct balance_input in = {
		.size = 8, .table = table, .weight = weight, .load = load,
		.fixed = fixed, .tolerance = TOL, .max_moves = MOVES,
	};
	int r;

	if (!EXPECT(plan != NULL, "memory for a plan"))
		return;
	load[4] = 1.0;
	for (r = 0; r < 3; r++) {
		if (!EXPECT_EQ(balance_plan(&in, table, plan), 0,
			       "the round is planned"))
			break;
		EXPECT_EQ(plan->nmoves, 0, "the elephant does not trade places");
		EXPECT_EQ(plan->state, STEER_BAL_BEST, "best-possible, said");
	}
	EXPECT_EQ(table[4], 0, "it stays on cpu 0");
	free(plan);
}

/* 1024 workers (CPU ids 0-1023), 4096 buckets: CPU 1023's buckets
 * carry four times the others' load, and the round moves load off it to
 * workers of the whole range, within max_moves. */
static void test_1024_workers_plan(void)
{
	static __u32 weight[STEER_CPU_IDS], table[STEER_TABLE_MAX];
	static double load[STEER_TABLE_MAX];
	struct balance_plan *plan = malloc(sizeof(*plan));
	struct balance_input in = {
		.size = STEER_TABLE_MAX, .table = table, .weight = weight,
		.load = load, .tolerance = TOL, .max_moves = MOVES,
	};
	int i, off_1023 = 0, past_255 = 0;

	if (!EXPECT(plan != NULL, "memory for a plan"))
		return;
	for (i = 0; i < STEER_CPU_IDS; i++)
		weight[i] = 1;
	for (i = 0; i < STEER_TABLE_MAX; i++) {
		table[i] = i % STEER_CPU_IDS;
		load[i] = table[i] == STEER_CPU_IDS - 1 ? 4 : 1;
	}
	if (EXPECT_EQ(balance_plan(&in, table, plan), 0, "the round is planned")) {
		EXPECT_EQ(plan->nworkers, STEER_CPU_IDS, "the plan has 1024 workers");
		EXPECT_EQ(plan->busiest, STEER_CPU_IDS - 1, "CPU 1023 is the busiest");
		for (i = 0; i < plan->nmoves; i++) {
			off_1023 += plan->moves[i].from == STEER_CPU_IDS - 1;
			past_255 += plan->moves[i].to > 255;
		}
		EXPECT(plan->nmoves > 0 && plan->nmoves <= MOVES && off_1023 > 0,
		       "it moves buckets off CPU 1023, within max_moves");
		EXPECT(past_255 > 0, "moves go to workers past 255 too");
		EXPECT(plan->after < plan->ratio, "the busiest carries less after");
		printf("  %d moves off CPU 1023, %d to CPUs past 255; busiest %.2f -> %.2f\n",
		       off_1023, past_255, plan->ratio, plan->after);
	}
	free(plan);
}

/* Over tolerance, but the busiest worker may not shed (its kthread cannot
 * drain now, or its load keeps turning), then no other may gain: no move,
 * and the round says held, not best-possible. */
static void test_held_says_so(void)
{
	double load[8] = { 0.4, 0.1, 0.4, 0.1, 0.4, 0.1, 0.4, 0.1 };
	struct balance_plan *plan = malloc(sizeof(*plan));
	unsigned char hold[STEER_CPU_IDS] = { 0 };
	double fixed[STEER_CPU_IDS] = { 0 };
	__u32 weight[STEER_CPU_IDS] = { 1, 1 };
	__u32 table[8] = { 0, 1, 0, 1, 0, 1, 0, 1 };
	struct balance_input in = {
		.size = 8, .table = table, .weight = weight, .load = load,
		.fixed = fixed, .tolerance = TOL, .max_moves = MOVES,
		.hold = hold,
	};

	if (!EXPECT(plan != NULL, "memory for a plan"))
		return;
	hold[0] = BALANCE_HOLD_SHED | BALANCE_HOLD_GAIN;
	if (EXPECT_EQ(balance_plan(&in, table, plan), 0, "the round is planned")) {
		EXPECT_EQ(plan->nmoves, 0, "cpu 0, the busiest, sheds nothing");
		EXPECT_EQ(plan->state, STEER_BAL_HELD, "and the round says held");
	}
	hold[0] = 0;
	hold[1] = BALANCE_HOLD_GAIN;
	if (EXPECT_EQ(balance_plan(&in, table, plan), 0, "the round is planned")) {
		EXPECT_EQ(plan->nmoves, 0, "cpu 1, the only other, gains nothing");
		EXPECT_EQ(plan->state, STEER_BAL_HELD, "held again");
	}
	hold[1] = 0;
	if (EXPECT_EQ(balance_plan(&in, table, plan), 0, "the round is planned"))
		EXPECT(plan->nmoves > 0 && plan->state == STEER_BAL_MOVED,
		       "with the holds gone it moves");
	free(plan);
}

static void test_idle_and_balanced(void)
{
	static const struct scenario sc = {
		"", 16, 512, { 100000, 0.5, 0, 0 } };
	double zero[STEER_TABLE_MAX] = { 0 };
	struct balance_plan *plan = malloc(sizeof(*plan));
	struct sim *s = sim_new(&sc, NULL, 13);
	struct balance_input in;

	if (!s || !EXPECT(plan != NULL, "memory for a plan"))
		goto out;
	in = (struct balance_input){ .size = s->size, .table = s->table,
		.weight = s->weight, .load = zero, .tolerance = TOL,
		.max_moves = MOVES };
	EXPECT_EQ(balance_plan(&in, s->table, plan), 0, "an idle round is planned");
	EXPECT_EQ(plan->state, STEER_BAL_IDLE, "no traffic: idle");
	EXPECT_EQ(plan->nmoves, 0, "and nothing moves");
	/* 100000 flows of gentle sizes: the hash alone is even enough. */
	in.load = s->load;
	EXPECT_EQ(balance_plan(&in, s->table, plan), 0, "a round is planned");
	printf("  even traffic: busiest %.3f of its share\n", plan->ratio);
	EXPECT_EQ(plan->state, STEER_BAL_BALANCED, "even traffic: balanced");
	EXPECT_EQ(plan->nmoves, 0, "and nothing moves");
	in.size = 500;
	EXPECT_EQ(balance_plan(&in, s->table, plan), -EINVAL,
		  "a table size that is no power of two is refused");
out:
	free(plan);
	free(s);
}

/* Two elephants of 0.8 share each on one worker, every other worker at
 * 0.85 of its share with small buckets: no single move helps (the
 * receiver would end at 1.65), so a worker first makes room; then rounds
 * go on until the busiest is within the tolerance. */
static void test_make_room(void)
{
	static const __u32 weight[STEER_CPU_IDS] = { 1, 1, 1, 1, 1 };
	struct balance_plan *plan = malloc(sizeof(*plan));
	struct balance_memory mem = { .going = false };
	double load[128];
	__u32 table[128], b;
	struct balance_input in = { .size = 128, .table = table,
		.weight = weight, .load = load, .frozen = mem.left,
		.tolerance = TOL, .max_moves = MOVES };
	int round;

	if (!EXPECT(plan != NULL, "memory for a plan"))
		return;
	for (b = 0; b < 128; b++) {
		table[b] = b < 2 ? 0 : 1 + b % 4;
		load[b] = b < 2 ? 0.16 : 0.68 / 126;
	}
	for (round = 0; round < 10; round++) {
		in.going = mem.going;
		if (!EXPECT_EQ(balance_plan(&in, table, plan), 0,
			       "the round is planned"))
			break;
		balance_remember(&mem, plan, false);
		printf("  round %d: busiest %.3f -> %.3f in %d moves\n", round,
		       plan->ratio, plan->after, plan->nmoves);
		if (!round) {
			EXPECT_EQ(plan->state, STEER_BAL_MOVED, "it moves");
			EXPECT(table[0] != table[1], "the two elephants part at once");
			EXPECT(plan->nmoves > 1, "after room was made for one");
		}
		EXPECT(plan->nmoves <= MOVES, "within max_moves");
		if (!plan->nmoves)
			break;
	}
	EXPECT(plan->after <= 1 + TOL,
	       "the busiest worker ends within the tolerance");
	free(plan);
}

/* Fills 128 KiB of stack below the caller with 0x01 bytes: the locals of
 * what the caller calls next start as that, not as zeros by luck, so a
 * value read before it was written shows (as a bucket 0x01010101). */
static void __attribute__((noinline)) paint_stack(void)
{
	volatile unsigned char buf[1 << 17];

	memset((void *)buf, 1, sizeof(buf));
}

/* make_room() where the worker making room has a bucket that fits on no
 * other worker under the goal: worker 0 carries two elephants (0.65 of a
 * share each), every other worker 0.9, so no single move helps; worker
 * 1's heaviest bucket (0.42) fits nowhere, its small ones (0.03) do. The
 * round passes the big one over, sheds small ones, and takes an
 * elephant; every move it plans is of a bucket of the table, from the
 * worker that has it, to a worker. (Before, the pass-over skipped a slot
 * of the plan it then read unwritten: on a painted stack, a move of
 * bucket 0x01010101.) */
static void test_make_room_passes_over_a_bucket_that_fits_nowhere(void)
{
	static const __u32 weight[STEER_CPU_IDS] = { 1, 1, 1, 1 };
	struct balance_plan *plan = malloc(sizeof(*plan));
	double load[128];
	__u32 table[128], before[128], b, cpu[128];
	struct balance_input in = { .size = 128, .table = table,
		.weight = weight, .load = load, .tolerance = TOL,
		.max_moves = 32 };
	int i, bad = 0;

	if (!EXPECT(plan != NULL, "memory for a plan"))
		return;
	for (b = 0; b < 128; b++) {
		table[b] = b < 2 ? 0 : b < 19 ? 1 : b < 49 ? 2 : 3;
		load[b] = b < 2 ? 0.65 : b == 2 ? 0.42 : b < 79 ? 0.03 : 0;
	}
	memcpy(before, table, sizeof(before));
	paint_stack();
	if (!EXPECT_EQ(balance_plan(&in, table, plan), 0, "the round is planned"))
		goto out;
	memcpy(cpu, before, sizeof(cpu));
	for (i = 0; i < plan->nmoves; i++) {
		b = plan->moves[i].bucket;
		if (b >= 128 || plan->moves[i].from != cpu[b] ||
		    plan->moves[i].to > 3 || plan->moves[i].to == cpu[b]) {
			if (bad++ < 3)
				printf("  move %d: bucket %u from cpu %u to cpu %u\n",
				       i, b, plan->moves[i].from, plan->moves[i].to);
			continue;
		}
		cpu[b] = plan->moves[i].to;
	}
	EXPECT_EQ(bad, 0, "every move is of a bucket of the table, from its worker, to another worker");
	EXPECT(!memcmp(cpu, table, sizeof(cpu)), "the table after is the moves made");
	EXPECT(table[0] != table[1], "the two elephants part");
	EXPECT_EQ(table[2], 1, "the bucket that fits nowhere stays");
	EXPECT(plan->nmoves <= 32, "within max_moves");
out:
	free(plan);
}

/* Frozen buckets (moved a moment ago) stay where they are. */
static void test_frozen_stay(void)
{
	static const struct scenario sc = {
		"", 2, 512, { 10000, 1.0, 4, 0.10 } };
	unsigned char frozen[STEER_TABLE_MAX];
	struct balance_plan *plan = malloc(sizeof(*plan));
	struct sim *s = sim_new(&sc, NULL, 1);
	struct balance_input in;
	__u32 b;
	int i, bad = 0;

	if (!s || !EXPECT(plan != NULL, "memory for a plan"))
		goto out;
	/* Everything on CPU 0 frozen: no pair can leave it. */
	for (b = 0; b < s->size; b++)
		s->table[b] = b & 1;
	for (i = 0; i < 4; i++) {
		s->load[s->elephant_bucket[i]] -= 0.10;
		s->elephant_bucket[i] = 2 * i;
		s->load[2 * i] += 0.10;
	}
	for (b = 0; b < s->size; b++)
		frozen[b] = s->table[b] == 0;
	in = (struct balance_input){ .size = s->size, .table = s->table,
		.weight = s->weight, .load = s->load, .frozen = frozen,
		.tolerance = TOL, .max_moves = MOVES };
	EXPECT_EQ(balance_plan(&in, s->table, plan), 0, "the round is planned");
	for (i = 0; i < plan->nmoves; i++)
		bad += frozen[plan->moves[i].bucket];
	EXPECT_EQ(bad, 0, "no frozen bucket moves");
	EXPECT_EQ(plan->state, STEER_BAL_BEST,
		  "over tolerance with nothing movable: the best possible");
out:
	free(plan);
	free(s);
}

int main(int argc, char **argv)
{
	static const struct test_case one[] = {
		TEST_ENTRY(test_elephant_over_a_share,
			   "balance: one flow over a share: said, and the best possible done"),
		TEST_ENTRY(test_weights_are_the_targets,
			   "balance: weights 1:3 are the target shares"),
		TEST_ENTRY(test_fixed_load,
			   "balance: a rule's pinned load is made room for, never moved"),
		TEST_ENTRY(test_elephant_stays,
			   "balance: one flow that is its worker's whole load, the other idle, does not trade places for a hair"),
		TEST_ENTRY(test_idle_and_balanced,
			   "balance: no traffic is idle, even traffic balanced, without moves"),
		TEST_ENTRY(test_1024_workers_plan,
			   "balance: 1024 workers (CPU ids to 1023): the round moves load off the busiest, CPU 1023"),
		TEST_ENTRY(test_held_says_so,
			   "balance: a round the holds leave over tolerance moves nothing and says held"),
		TEST_ENTRY(test_frozen_stay,
			   "balance: buckets moved a moment ago stay"),
		TEST_ENTRY(test_make_room_passes_over_a_bucket_that_fits_nowhere,
			   "balance: making room passes over a bucket that fits nowhere, and plans only moves of real buckets to workers"),
		TEST_ENTRY(test_make_room,
			   "balance: two elephants no single move parts: a worker makes room first"),
	};
	char name[3][160];
	int failed = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(feasible); i++) {
		struct test_case t[3] = {
			TEST_ENTRY(test_converges, name[0]),
			TEST_ENTRY(test_no_moves_once_settled, name[1]),
			TEST_ENTRY(test_shift, name[2]),
		};

		cur = &feasible[i];
		snprintf(name[0], sizeof(name[0]),
			 "balance: %s: ends within the tolerance, moves bounded",
			 cur->name);
		snprintf(name[1], sizeof(name[1]),
			 "balance: %s: no moves once settled", cur->name);
		snprintf(name[2], sizeof(name[2]),
			 "balance: %s: settles again when the traffic shifts",
			 cur->name);
		failed |= test_run_all("balance", t, 3, argc, argv);
	}
	failed |= test_run_all("balance", one, ARRAY_SIZE(one), argc, argv);
	return failed;
}
