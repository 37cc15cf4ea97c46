// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the balancer by CPU time finds the best placement whatever
 * the box, through noise as large as the benchmarks' host's. A box on
 * paper (tests/lib/balance_box.h) of two CPUs, the generator and the
 * collecting on CPU 0 as in tests/bench/forward.sh, is given a worker
 * cost per frame that puts its best share of the frames on the collector
 * at 5, 15, 40 or 70 %; a worker's ring overflows in bursts before its
 * CPU is full, so even CPU time (the estimates alone) misses the best
 * share on most of them. A fifth box also wakes its worker (box.wake):
 * near the worker's saturation it has two rates 2x apart and a round's
 * noise flips it, as the benchmarks' VM of issue 49 at 1518 B; its best
 * (30 %) and each placement kept are the mean of 30 rounds, as
 * forward.sh measures a split, and as near its best the rate is flat
 * within what the climb's smallest steps can prove, from 60 s on the
 * placement kept is held to the end rate only. Every round's counts are the rate times a factor
 * drawn from 0.95 to 1.05 (rounds of one placement differ by up to 10 %,
 * as on the host of issue 49), on top of the ticks and counts as
 * measured, a round of T seconds sqrt(1 s / T) times as noisy as one of
 * 1 s (the box's rounds last as the loader makes them: short while the
 * balancer settles). On 20 seeds each, from the table as an attach builds
 * it: the run ends within 3 % of the best placement's rate; the placement
 * kept is within 3 % of the end rate 10 s after the attach (in every
 * seed) and stays there; settling moves at most a table's worth of
 * buckets; once settled the rounds move (almost) nothing. Prints, per
 * optimum, the worst seed's time to within 3 % of the end rate and of
 * the best, the settling's seconds and moves, the distance from the best
 * at the end and the moves a minute once settled; CLIMB_DEBUG=1 each
 * seed's, CLIMB_TRACE=N seed N's rounds, CLIMB_SEEDS=N more seeds,
 * CLIMB_ONLY=I the I-th box alone (0-4), CLIMB_START=F the traffic
 * starting with the attach (the last F of the first round, as forward.sh
 * sends it), CLIMB_WORK=US and CLIMB_WAKE=US
 * another worker's cost and wake-up cost, for exploring (the named best
 * share no longer holds: that check fails), CLIMB_DRAIN=N N rounds that
 * wait for the drain after each round that moved (box.drain_rounds, as
 * on the benchmarks' VM with its worker's CPU shared: it fails the
 * 10 s), CLIMB_SPREAD=F rounds of one placement up to F apart, not
 * 0.10, and CLIMB_LONG=1 the rounds all of the
 * policy's interval (as before short rounds: it fails the 10 s).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "balance_box.h"
#include "policy/policy.h"
#include "test.h"

/* The policy's defaults by CPU time (configs/default.yaml). */
#define TOL_CPU		(POLICY_BALANCE_TOLERANCE_CPU / 100.0)
#define MOVES		POLICY_BALANCE_MOVES_DEFAULT
#define INTERVAL_S	(POLICY_BALANCE_INTERVAL_DEFAULT / 1000.0)

#define SEEDS		20
/* Seconds of a run: five minutes. */
#define RUN_S		300
/* Within this of the best placement's rate, and of the end's. */
#define NEAR		0.97
/* Seconds from the attach after which every placement kept is within
 * NEAR of the rate the run ends at (issue 49: 10 s): rounds are short
 * (BALANCE_SETTLE_MS) while the balancer settles, the time is theirs
 * summed, a placement counted until the round after it ends. Measured,
 * worst of the 20 seeds: 7.25, 4.25, 3.5, 0.5 and 7.75 s (at 1 s a
 * round, CLIMB_LONG=1: 34, 21, 10, 2 and 33 s). On 500 seeds a box
 * (CLIMB_SEEDS=500), 2429 of 2500 runs are within 3 % of their end rate
 * by 10 s: 481, 491, 479, 496 and 482 of 500 (before the climb's first
 * steps waited 4 rounds until it first settles, and the edge's other
 * way came in the same round: 452, 486, 467, 496 and 454, 2355), the
 * slowest by 43.5, 116, 137, 122 and 40 s (before: 14, 118, 135, 122
 * and 40 s), and 2488 end within 3 % of the best (before 2487). What
 * is left is the noise: rounds 10 % apart at random are a second's
 * rate known to 2.9 %, so a first step that truly gains 3 % (the 40 %
 * box: the estimates leave it 4.5 % below its best) reads as a loss
 * after its 3 s of judging against 1 s before it about one time in
 * five, and with 10 s for every judging of the way there, a step that
 * gains 3.5 % is judged wrong in about 4 % of the runs however the
 * seconds are split; the runs it misleads then settle where they are
 * and find the best only after the climb's first rest (30 s). So the
 * 20 seeds here all settle within 10 s, where 71 runs of 2500 do not;
 * here every seed also settles by SETTLE_ALL_S, where 35 of 2500 do not
 * (before: 46). With a round that waits for the drain after each round
 * that moved (CLIMB_DRAIN=1, as on the benchmarks' VM with its worker's
 * CPU shared), 2199 of 2500 are within 3 % of their end rate by 10 s
 * (before these changes 2201): the walk to even CPU time takes twice
 * the time, and on the 5 % box, whose walk is longest, 182 of 500 miss
 * (171 before). */
#define SETTLE_S	10
#define SETTLE_MISSES	0
#define SETTLE_ALL_S	60
/* ... and within NEAR of the best placement's from SETTLE_ALL_S on: the
 * climb's steps after settling are judged on 1 s rounds, each against
 * up to 8 s of them. */
/* Buckets moved while the balancer settles (short rounds), at most: a
 * table's worth, each move a drain. */
#define SETTLE_MOVES	512
/* Once settled, the last two minutes: moves a round at most. Settled,
 * the climb tries one step a rest, the ways taking turns, and the rests
 * double to two and then four minutes: at most two steps in two
 * minutes, each at most max_moves buckets and as many back. (Before
 * issue 49 the climb moved 0.7-2.6 buckets a round there.) */
#define LAST_S		120
#define LAST_ROUNDS	((int)(LAST_S / INTERVAL_S))
#define SETTLED_MOVES	(2.0 * 2 * MOVES / LAST_ROUNDS)
/* ... and rounds below NEAR, steps on trial that lose: a step toward
 * the steep side of the best (the worker saturated and the collector
 * given more) loses several per cent and is moved back after a round or
 * two, one that loses just over 3 % after up to BALANCE_CLIMB_JUDGE
 * rounds; one step a rest, the rests two to four minutes long by then:
 * at most one step's judging. */
#define SETTLED_DIPS	BALANCE_CLIMB_JUDGE

/* The box's costs, in us a frame (tests/unit/test_balance_cpu.c's
 * test_climb_past_the_estimate(), fitted to the forwarding benchmark):
 * the generator's, the collecting, a frame's stack on the collector; the
 * worker's per optimum. */
#define GEN		0.05
#define COLLECT		0.085
#define LOCAL		0.685
#define BURST		0.08
#define SPREAD		0.10

struct optimum {
	double share;		/* the best share on the collector */
	double work;		/* the worker's us a frame that puts it
				 * there */
	double wake;		/* the collector's us a frame to wake an
				 * idle worker (box.wake), 0: none */
};

static const struct optimum optima[] = {
	{ 0.05, 0.19, 0 }, { 0.15, 0.30, 0 }, { 0.40, 0.70, 0 },
	{ 0.70, 2.10, 0 },
	{ 0.30, 0.50, 1.0 },
};

static const struct optimum *cur;

static int box_new(struct box *b, __u64 seed)
{
	static const struct sim_traffic t = { 1000, 0, 0, 0 };

	memset(b, 0, sizeof(*b));
	b->s = malloc(sizeof(*b->s));
	if (!EXPECT(b->s != NULL, "memory for the simulator") ||
	    !EXPECT_EQ(sim_init(b->s, 512, 2, NULL, &t, seed), 0,
		       "the simulator starts")) {
		free(b->s);
		b->s = NULL;
		return -1;
	}
	b->collectors = 1;
	b->gen = GEN;
	b->collect = COLLECT;
	b->local = LOCAL;
	b->work[0] = b->work[1] = cur->work;
	b->wake = getenv("CLIMB_WAKE") ? atof(getenv("CLIMB_WAKE")) : cur->wake;
	if (getenv("CLIMB_WORK"))
		b->work[0] = b->work[1] = atof(getenv("CLIMB_WORK"));
	b->burst = BURST;
	/* CLIMB_START=F: the traffic starts with the attach, as forward.sh
	 * sends it, running the last F of the first round (as a process
	 * does, the boxes here keep their traffic going across the attach;
	 * test_attach_round_sets_no_spread() starts it). */
	b->start = getenv("CLIMB_START") ? atof(getenv("CLIMB_START")) : 0;
	b->seconds = INTERVAL_S;
	/* Rounds as the loader times them; CLIMB_LONG=1: every round the
	 * policy's interval, as before settling had short ones. */
	b->interval = getenv("CLIMB_LONG") ? 0 : INTERVAL_S;
	b->drain_rounds = getenv("CLIMB_DRAIN") ? atoi(getenv("CLIMB_DRAIN")) :
						  0;
	return 0;
}

/* Rounds of 1 s a placement of a box with two rates (box.wake) is
 * measured on, as forward.sh measures a fixed split: their mean. */
#define TWO_RATES_ROUNDS	30

/* The rate of the placement in b->s->table: exact; on a box with two
 * rates (box.wake), the mean of TWO_RATES_ROUNDS noisy rounds from the
 * higher one, which near the edge of the worker's saturation the noise
 * flips to the lower, as on the benchmarks' VM. The same draws for every
 * placement, so that the best is not the luckiest of them and a
 * placement measures the same each time; the box's generator, round
 * length and state are left as they were. */
static double rate_of(struct box *b)
{
	double awake[STEER_CPU_IDS], seconds = b->seconds, sum = 0;
	struct box_state st;
	__u64 rng = b->s->rng;
	int i;

	if (!(b->wake > 0)) {
		box_observe(b, false, &st);
		return st.forwarded;
	}
	memcpy(awake, b->awake, sizeof(awake));
	for (i = 0; i < STEER_CPU_IDS; i++)
		b->awake[i] = 1;
	b->seconds = 1;
	b->s->rng = 0x9e3779b97f4a7c15ull;
	b->uncounted = true;
	for (i = 0; i < TWO_RATES_ROUNDS; i++) {
		box_observe(b, true, &st);
		sum += st.forwarded;
	}
	b->uncounted = false;
	memcpy(b->awake, awake, sizeof(awake));
	b->seconds = seconds;
	b->s->rng = rng;
	return sum / TWO_RATES_ROUNDS;
}

/* The best rate any share of the collector gives; its share. */
static double best_split(struct box *b, double *share)
{
	__u32 i, k, n = b->s->size;
	double best = 0, x;

	for (k = 0; k <= n; k += 2) {
		for (i = 0; i < n; i++)
			b->s->table[i] = i < k ? 0 : 1;
		x = rate_of(b);
		if (x > best) {
			best = x;
			*share = (double)k / n;
		}
	}
	return best;
}

struct outcome {
	double end;		/* the rate over the best's of the last
				 * placement kept (no step on trial) */
	double share;		/* the collector's share at the end */
	double near_best;	/* seconds until every placement kept was
				 * within NEAR of the best's rate */
	double near_end;	/* ... of the end's */
	double settling;	/* seconds of short rounds */
	int settle_moves;	/* moves made in them */
	int last_moves;		/* moves in the last LAST_S seconds */
	int last_dips;		/* of those rounds, below NEAR of the best
				 * (steps on trial); on a box with two
				 * rates, of the end */
	int moves;
};

/* Up to 2048 rounds: when each ended, and the placement kept after it
 * (its rate over the best's; < 0: a step on trial). */
#define MAX_ROUNDS	2048

/* RUN_S seconds of rounds from the table as an attach builds it. */
static int climb(struct box *b, double best, struct outcome *o, bool trace)
{
	static double end_at[MAX_ROUNDS], kept[MAX_ROUNDS], seen[MAX_ROUNDS];
	struct balance_memory mem;
	struct sim_run run;
	double was, x;
	__u32 i;
	int r, n;

	memset(&mem, 0, sizeof(mem));
	memset(o, 0, sizeof(*o));
	b->elapsed = 0;
	was = rate_of(b) / best;
	for (r = 0; b->elapsed < RUN_S && r < MAX_ROUNDS; r++) {
		bool settling = !mem.calm;

		if (box_balance(b, &mem, TOL_CPU, MOVES, 1, true, &run, NULL))
			return -1;
		o->moves += run.moves;
		if (settling) {
			o->settle_moves += run.moves;
			o->settling = b->elapsed;
		}
		if (b->elapsed > RUN_S - LAST_S)
			o->last_moves += run.moves;
		end_at[r] = b->elapsed;
		x = rate_of(b);
		/* A step on trial asks the box a question; the placement the
		 * climb keeps is the answer. */
		kept[r] = b->probe.on ? -1 : x / best;
		seen[r] = x / best;
		if (!b->probe.on)
			o->end = x / best;
		if (trace) {
			char note[512];
			__u32 k, c = 0;

			for (k = 0; k < b->s->size; k++)
				c += b->s->table[k] == 0;
			balance_climb_note(&b->probe, note, sizeof(note));
			printf("      %.2f s: %.3f of the best, %.1f %% on the collector, %d moves%s%s\n",
			       b->elapsed, x / best,
			       100.0 * c / b->s->size, run.moves,
			       *note ? ": " : "", note);
		}
	}
	n = r;
	/* A placement kept after round r is in force until round r + 1
	 * ends: one below ends no earlier. */
	if (was < NEAR)
		o->near_best = end_at[0];
	if (was < NEAR * o->end)
		o->near_end = end_at[0];
	for (r = 0; r + 1 < n; r++) {
		if (kept[r] >= 0 && kept[r] < NEAR)
			o->near_best = end_at[r + 1];
		if (kept[r] >= 0 && kept[r] < NEAR * o->end)
			o->near_end = end_at[r + 1];
	}
	for (r = 0; r < n; r++)
		o->last_dips += end_at[r] > RUN_S - LAST_S &&
				seen[r] < NEAR * (b->wake > 0 ? o->end : 1);
	for (i = 0; i < b->s->size; i++)
		o->share += b->s->table[i] == 0;
	o->share /= b->s->size;
	return 0;
}

static void test_finds_best(void)
{
	double best, fbest = 0, worst = 2, moved = 0, slowest = 0, slowest_end = 0;
	double settling = 0;
	int dips = 0, seed, far = 0, slow = 0, busy = 0, most = 0, churn = 0;
	int late = 0;
	int dipped = 0, nseeds;
	struct outcome o;
	struct box b;

	/* CLIMB_SEEDS=N measures on more. */
	nseeds = getenv("CLIMB_SEEDS") ? atoi(getenv("CLIMB_SEEDS")) : SEEDS;
	for (seed = 1; seed <= nseeds; seed++) {
		if (box_new(&b, seed))
			return;
		best = best_split(&b, &fbest);
		if (seed == 1 &&
		    !EXPECT(fabs(fbest - cur->share) <= 0.02,
			    "the simulator's best share on the collector is the one named")) {
			free(b.s);
			return;
		}
		/* CLIMB_SPREAD=F: rounds up to F apart, for exploring
		 * noisier hosts (the 10 s and 3 % checks may fail). */
		b.spread = getenv("CLIMB_SPREAD") ?
			   atof(getenv("CLIMB_SPREAD")) : SPREAD;
		/* The table as an attach builds it. */
		sim_init(b.s, 512, 2, NULL,
			 &(struct sim_traffic){ 1000, 0, 0, 0 }, seed);
		if (!EXPECT_EQ(climb(&b, best, &o, getenv("CLIMB_TRACE") &&
				     atoi(getenv("CLIMB_TRACE")) == seed), 0,
			       "the rounds run")) {
			free(b.s);
			return;
		}
		if (getenv("CLIMB_DEBUG"))
			printf("    seed %d: %.3f of the best at %.0f %% on the collector, within 3 %% of the end from %.2f s, of the best from %.2f s, %d moves in %.2f s of settling, %d in all, %d in the last %d s, %d rounds of them below\n",
			       seed, o.end, 100 * o.share, o.near_end,
			       o.near_best, o.settle_moves, o.settling,
			       o.moves, o.last_moves, LAST_S, o.last_dips);
		worst = o.end < worst ? o.end : worst;
		slowest = o.near_best > slowest ? o.near_best : slowest;
		slowest_end = o.near_end > slowest_end ? o.near_end :
							 slowest_end;
		settling = o.settling > settling ? o.settling : settling;
		most = o.settle_moves > most ? o.settle_moves : most;
		moved = (double)o.last_moves / LAST_ROUNDS > moved ?
			(double)o.last_moves / LAST_ROUNDS : moved;
		dips = o.last_dips > dips ? o.last_dips : dips;
		far += o.end < NEAR;
		slow += o.near_end > SETTLE_S;
		late += o.near_end > SETTLE_ALL_S ||
			(!(cur->wake > 0) && o.near_best > SETTLE_ALL_S);
		churn += o.settle_moves > SETTLE_MOVES;
		busy += o.last_moves > SETTLED_MOVES * LAST_ROUNDS;
		dipped += o.last_dips > SETTLED_DIPS;
		free(b.s);
	}
	printf("  best at %.0f %% on the collector: worst seed ends %.1f %% below the best, within 3 %% of its end rate from %.2f s (%d seeds after %d s) and of the best from %.2f s at the latest; settling takes %.2f s and %d moves at most; in the last %d s at most %.1f moves a minute and %d rounds below (steps on trial)\n",
	       100 * fbest, 100 * (1 - worst), slowest_end, slow, SETTLE_S,
	       slowest, settling, most, LAST_S, 60 * moved / INTERVAL_S,
	       dips);
	EXPECT_EQ(far, 0,
		  "every seed ends within 3 % of the best placement's rate");
	EXPECT(slow <= SETTLE_MISSES,
	       "in every seed (but SETTLE_MISSES) the placement kept is within 3 % of the end rate from SETTLE_S seconds after the attach on");
	EXPECT_EQ(late, 0,
		  "in every seed the placement kept is within 3 % of the end rate and of the best from SETTLE_ALL_S seconds after the attach on");
	EXPECT_EQ(churn, 0,
		  "in every seed settling moves at most SETTLE_MOVES buckets");
	EXPECT_EQ(busy, 0,
		  "once settled, every seed moves at most SETTLED_MOVES buckets a round");
	EXPECT_EQ(dipped, 0,
		  "once settled, the steps on trial take a seed below 3 % of the best in at most SETTLED_DIPS rounds");
}

/* The round line says why the climb stopped where it did: when it
 * settles, the last step each way, what it gained and what it needed,
 * and how long it rests. From the box whose best is 40 %, seed 1. */
static void test_settling_explained(void)
{
	static const char *const says[] = {
		"moved back", "settles for", "a step of",
		"from cpu 0 to cpu 1", "from cpu 1 to cpu 0", "needed",
	};
	char note[1024], want[160];
	struct balance_memory mem;
	const struct balance_step *w;
	struct sim_run run;
	struct box b;
	int r, i, len;

	cur = &optima[2];
	if (box_new(&b, 1))
		return;
	b.spread = SPREAD;
	memset(&mem, 0, sizeof(mem));
	for (r = 0; b.elapsed < RUN_S && !b.probe.settled; r++)
		if (box_balance(&b, &mem, TOL_CPU, MOVES, 1, true, &run, NULL))
			break;
	if (!EXPECT(b.probe.settled, "the climb settles within the run")) {
		free(b.s);
		return;
	}
	len = balance_climb_note(&b.probe, note, sizeof(note));
	printf("  round %d: %s\n", r, note);
	EXPECT(len > 0 && (size_t)len < sizeof(note),
	       "the note fits the round line's");
	for (i = 0; i < (int)ARRAY_SIZE(says); i++) {
		snprintf(want, sizeof(want), "the note says '%s'", says[i]);
		EXPECT(strstr(note, says[i]) != NULL, want);
	}
	for (i = 0; i < 2; i++) {
		w = &b.probe.way[i];
		snprintf(want, sizeof(want),
			 "a step of %.1f %% from cpu %u to cpu %u gave %+.1f %% in %d rounds, needed %+.1f %%",
			 100 * w->moved, w->from, w->to, 100 * w->gain,
			 w->rounds, 100 * w->need);
		EXPECT(w->tried && !w->kept && strstr(note, want),
		       "each way's last step is said with its gain and the gain it needed");
	}
	/* A short buffer is cut, never overrun, and the length still said. */
	EXPECT_EQ(balance_climb_note(&b.probe, want, 16), len,
		  "a short buffer gets the same length back");
	EXPECT_EQ(strlen(want), 15, "and holds what fits, ended");
	free(b.s);
}

/* Traffic that starts with the attach, as forward.sh sends it: the
 * balancer's first round takes in 0.08-0.23 of the next one's on the
 * benchmarks' VM. Pooled into the climb's spread, that pair made every
 * step's need 20-84 % through the settling there (2026-12-07, three
 * attaches), so no step was proven and each next one was half as large.
 * The first round counts in no window: the climb's first judging needs
 * what the rounds after it spread (here at most 20 %, about 10 %; 97 %
 * with the first round in). The box whose best is 40 %, a sixth of the
 * first round with traffic, seeds 1-4. */
#define START		0.15
#define FIRST_NEED	0.20

static void test_attach_round_sets_no_spread(void)
{
	struct balance_memory mem;
	struct sim_run run;
	double worst = 0;
	struct box b;
	int seed, r;

	cur = &optima[2];
	for (seed = 1; seed <= 4; seed++) {
		if (box_new(&b, seed))
			return;
		b.spread = SPREAD;
		b.start = START;
		memset(&mem, 0, sizeof(mem));
		for (r = 0; b.elapsed < 30 && b.probe.verdict != 5; r++)
			if (box_balance(&b, &mem, TOL_CPU, MOVES, 1, true, &run,
					NULL))
				break;
		if (!EXPECT(b.probe.verdict == 5,
			    "the climb judges a step within 30 s")) {
			free(b.s);
			return;
		}
		if (b.probe.need > worst)
			worst = b.probe.need;
		free(b.s);
	}
	printf("  the first judging round needs %+.1f %% at most\n",
	       100 * worst);
	EXPECT(worst <= FIRST_NEED,
	       "the climb's first judging needs at most FIRST_NEED: the attach's round is not in its spread");
}

int main(int argc, char **argv)
{
	static const struct test_case explained[] = {
		TEST_ENTRY(test_settling_explained,
			   "balance climb: the round that settles the climb says the last step each way, its gain and the gain it needed"),
		TEST_ENTRY(test_attach_round_sets_no_spread,
			   "balance climb: traffic that starts with the attach does not set the spread the climb's steps are judged on"),
	};
	char name[256];
	int failed = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(optima); i++) {
		struct test_case t[] = { TEST_ENTRY(test_finds_best, name) };

		cur = &optima[i];
		if (getenv("CLIMB_ONLY") && atoi(getenv("CLIMB_ONLY")) != (int)i)
			continue;
		snprintf(name, sizeof(name),
			 "balance climb: best share %.0f %% on the collector, rounds 10 %% apart: within 3 %% of the end rate 10 s after the attach (every seed; 60 s), ends within 3 %% of the best, settling's moves bounded, quiet once settled",
			 100 * cur->share);
		failed |= test_run_all("balance_climb", t, 1, argc, argv);
	}
	failed |= test_run_all("balance_climb", explained, ARRAY_SIZE(explained),
			       argc, argv);
	return failed;
}
