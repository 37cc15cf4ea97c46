/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * balance.h - one round of the adaptive balancer, on numbers: which
 * table buckets to move so the busiest worker's load comes within its
 * share. Pure (no maps, no clock): the loader feeds it what it counted,
 * the unit tests and the benchmark a simulator.
 *
 * Load is a worker's CPU time by default (balance_cpu_loads(): its busy
 * share from the kernel's accounting, what its full ring dropped on top,
 * split over its buckets by their cost), or, with balance: {by: frames},
 * what its frames cost in bytes-equivalent units (balance_cost(): each
 * frame a fixed part, then its bytes), counted per bucket on the
 * receiving CPU. loader/README.md, "Balancing load", says why CPU time.
 *
 * A worker's target share is its weight's share of all the workers'
 * weights (by CPU time each weight times its bias, which the climb
 * below learns), and its load the sum of its buckets' and of what it
 * carries that no bucket move changes (rules, non-IP frames: 'fixed').
 * A round moves buckets only when the busiest worker carries more than
 * (1 + tolerance) times its share of the total, and then until it carries
 * at most (1 + tolerance / 2) times it, or max_moves are made, or no move
 * helps: hysteresis, so counting noise around the threshold moves
 * nothing. With the frames the loads were counted from, a round also
 * acts only on what the counts prove: the busiest worker must exceed the
 * tolerance by three standard deviations of its count (Poisson: a worker
 * that counted n frames is known to sqrt(n)), and a move must gain its
 * minimum with the bucket's load three deviations low. Each move is the
 * bucket of the busiest worker, and the worker it goes to, that leaves
 * the higher of the two workers' loads (over their shares) lowest; it
 * must lower that by at least half of what the bucket weighs on the
 * busiest (an elephant that would only trade places gains a hair). A
 * worker may end with more or fewer buckets than its weight gives it: a
 * worker with an elephant needs fewer.
 */
#ifndef XDP_STEER_BALANCE_H
#define XDP_STEER_BALANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "xdp_steer/sizes.h"

/* Standard deviations of a count a round trusts (see the top). */
#define BALANCE_SIGMAS		3

/* What a frame costs its worker besides its bytes, in bytes: building
 * the skb, the stack's per-packet work. On the development VM a worker's
 * CPU time per frame (cpumap kthread and a UDP reader, by schedstat) was
 * 2.7-4.3 us for 64-byte frames and 2.8-3.3 us for 1514-byte ones: the
 * bytes were lost in the noise, and copying to the application costs
 * about 0.1 ns a byte. So a frame counts as 16 KiB: a full-size frame
 * weighs 1.09 small ones (loader/README.md, "Balancing load"). */
#define BALANCE_FRAME_COST	16384

static inline double balance_cost(__u64 packets, __u64 bytes)
{
	return (double)packets * BALANCE_FRAME_COST + (double)bytes;
}

/*
 * Load by CPU time (balance: {by: cpu}, the default), as RSS++ (CoNEXT
 * 2019) does for NIC queues: what each worker CPU did in a round, from
 * the kernel's own accounting, so the receiving CPU's collecting, the
 * cpumap kthreads and the applications there all count.
 */
struct balance_cpu {
	double busy;		/* share of the round it was busy, 0-1 */
	double sent;		/* frames sent toward it: queued to its ring
				 * and passed on the spot there */
	double dropped;		/* of those, what its full ring dropped */
};

/* A worker's demand: its busy share, and, since saturation hides load (a
 * CPU is never more than wholly busy), what its full ring threw away on
 * top: busy * sent / (sent - dropped), capped at BALANCE_DEMAND_MAX. */
#define BALANCE_DEMAND_MAX	4.0
double balance_demand(const struct balance_cpu *c);

/*
 * Splits each worker's demand over what it carried, by cost (balance_cost
 * of the frames and bytes counted): cost[b] of each table bucket b on it
 * becomes its load[b] (load may be cost itself), and other[cpu] (what it
 * carried besides its buckets: rules, non-IP frames, buckets still
 * draining there) becomes its fixed[cpu], with all of the demand when it
 * carried nothing (an application alone). A CPU that collects for others
 * is busy for frames none of its buckets accounts for, so its buckets
 * weigh more there and it keeps fewer: the estimate is off by what a
 * bucket costs elsewhere, and the next round, counted after the moves,
 * corrects it.
 */
void balance_cpu_loads(__u32 size, const __u32 *table, const __u32 *weight,
		       const struct balance_cpu *cpu, const double *cost,
		       const double *other, double *load, double *fixed);

/* By CPU time, a busiest worker less busy than this (half a CPU) is left
 * as it is: it has room, a move would gain nothing, and at low load the
 * ticks of /proc/stat are too coarse to tell CPUs apart. */
#define BALANCE_BUSY_FLOOR	0.5

struct balance_input {
	__u32 size;			/* table buckets, a power of two */
	const __u32 *table;		/* [size]: each bucket's CPU */
	const __u32 *weight;		/* [STEER_CPU_IDS]: each worker's
					 * weight, 0 for other CPUs */
	const double *load;		/* [size]: each bucket's load */
	const double *frames;		/* [size] or NULL: the frames each
					 * load was counted from, for the
					 * noise of the counts */
	const double *fixed;		/* [STEER_CPU_IDS] or NULL: load no
					 * move changes, per CPU */
	const unsigned char *frozen;	/* [size] or NULL: buckets not to
					 * move (moved a moment ago) */
	const double *bias;		/* [STEER_CPU_IDS] or NULL: each
					 * worker's share is its weight times
					 * this (0 or NULL: 1), the climb's
					 * (balance_probe) */
	bool going;			/* an earlier round ran out of moves
					 * before its aim: aim, not trigger */
	double ticks;			/* by CPU time: the ticks each busy
					 * share was counted in (USER_HZ *
					 * seconds), for its noise; else 0 */
	double floor;			/* a busiest worker's load under
					 * this moves nothing (0: none) */
	double seconds;			/* the round's length (0: 1 s), for
					 * the climb's noise */
	/* Each round takes the busiest worker only halfway to its aim:
	 * by CPU time the load answers the moves (a collector that sheds
	 * work collects more; a worker whose ring stops dropping gets all
	 * that was sent to it), so an estimate made before them overshoots,
	 * and undoing it would ping-pong. */
	bool halfway;
	double tolerance;		/* 0.10 for 10 % */
	int max_moves;			/* buckets a round moves, at most */
	/* [STEER_CPU_IDS] or NULL: BALANCE_HOLD_* bits per worker, what no
	 * move of the round, trials included, may do to it
	 * (balance_hold(), and a worker that cannot drain). */
	const unsigned char *hold;
	/* The balancer settles (balance_settle()): a climb's step waits
	 * only for a worker that cannot drain, not for the holds of load
	 * that turned (balance_hold()). While it settles the estimates'
	 * own rounds turn where the box's rate flips between two (a worker
	 * saturated, so the collector need not wake it, or not: on the
	 * benchmarks' VM rounds of one placement 0.8 and 1.6 Mframes/s
	 * apart), and the climb, waiting for their holds, stayed where they
	 * left it (issue 49). Once settled, the holds keep the climb off a
	 * worker whose load comes and goes, as they keep the rounds. */
	bool settling;
};

/* Why the climb's step waits (balance_probe.wait): a worker holds (it
 * cannot drain), or the buckets it would move cool down after a move.
 * Neither counts as a step missed: the step comes once they are free. */
#define BALANCE_WAIT_HELD	1
#define BALANCE_WAIT_COOLING	2

/* balance_input.hold: no bucket moves off the worker, or onto it; and
 * whether it cannot drain (its kthread takes nothing off its ring). */
#define BALANCE_HOLD_SHED	(1u << 0)
#define BALANCE_HOLD_GAIN	(1u << 1)
#define BALANCE_HOLD_STUCK	(1u << 2)
/* ... and whether the hold is for buckets still draining off or onto it
 * (balance_hold_draining()), which the log says. */
#define BALANCE_HOLD_DRAINING	(1u << 3)

/* Whether a round may move a bucket off worker cpu ('bit'
 * BALANCE_HOLD_SHED) or onto it (BALANCE_HOLD_GAIN), by in->hold. */
static inline bool balance_held(const struct balance_input *in, __u32 cpu,
				unsigned bit)
{
	return in->hold && cpu < STEER_CPU_IDS && (in->hold[cpu] & bit);
}

struct balance_move {
	__u32 bucket;
	__u32 from, to;
	double load;			/* the bucket's */
};

/* A worker of the table. */
struct balance_worker {
	__u32 cpu;
	__u32 buckets;
	double share;			/* of the total load, by weight */
	double load;			/* before the round's moves */
	double after;			/* after them */
};

struct balance_plan {
	int state;			/* STEER_BAL_IDLE, _BALANCED, _MOVED,
					 * _BEST or _HELD */
	double total;			/* load of all workers */
	__u32 busiest;			/* CPU, before the moves */
	double ratio;			/* its load over its share's */
	double after;			/* the highest ratio after the moves */
	/* The best any placement could do: the highest ratio at least one
	 * worker has, whatever moves (a bucket's load, with the fixed load
	 * where it is least, over that worker's share; or 1). Over
	 * 1 + tolerance: 'bound_bucket' alone exceeds a share. */
	double bound;
	__u32 bound_bucket;
	struct balance_worker workers[STEER_CPU_IDS];
	int nworkers;
	struct balance_move moves[STEER_TABLE_MAX];
	int nmoves;
	bool short_of_aim;		/* stopped above its aim: at max_moves,
					 * or halfway */
};

/*
 * Plans one round: fills *plan, and table_out[0..size) with the table
 * after its moves (table_out may be in->table itself). 0, or -EINVAL for
 * an input it cannot read (no table, a size that is no power of two).
 */
int balance_plan(const struct balance_input *in, __u32 *table_out,
		 struct balance_plan *plan);

/* A bucket a round moved stays where it went for this many rounds more
 * (on top of the hysteresis): a move is judged on counts taken after it,
 * never undone by the next round's noise. */
#define BALANCE_COOLDOWN	2

/*
 * Load that changes way, held: a worker whose load a round moves one way
 * (it sheds, or gains) within twice its backoff of a move the other way
 * has turned. One turn is a balancer settling (it overshot); a second
 * before the first calmed down is load that follows something coming and
 * going, an application on its CPU: no round then moves buckets off or
 * onto the worker (trials are judged, and exempt) for its backoff,
 * BALANCE_BACKOFF_MIN rounds doubled at each such turn, up to
 * BALANCE_BACKOFF_MAX. BALANCE_BACKOFF_CALM backoffs without a turn
 * halve it, and below BALANCE_BACKOFF_MIN forget it. So the application's
 * load goes back and forth ever more rarely: the moves a minute stay
 * bounded (loader/README.md, "Balancing load";
 * tests/unit/test_balance_cpu.c).
 */
#define BALANCE_BACKOFF_MIN	5
#define BALANCE_BACKOFF_MAX	240
#define BALANCE_BACKOFF_CALM	4

/* What the balancer remembers between rounds: left[b] > 0 while bucket b
 * cools down (balance_input.frozen takes it as is). */
struct balance_memory {
	unsigned char left[STEER_TABLE_MAX];
	/* The last round stopped at max_moves short of its aim: the next
	 * goes on toward it, whatever its trigger says. */
	bool going;
	/* The way each worker's load last moved (see above): rounds
	 * counted, the round (+ 1) it last shed and gained, its backoff in
	 * rounds (0: no turn to remember), the round (+ 1) of its last turn
	 * or halving, and the round it is held until. */
	__u32 round;
	__u32 shed_at[STEER_CPU_IDS];
	__u32 gained_at[STEER_CPU_IDS];
	__u32 backoff[STEER_CPU_IDS];
	__u32 turned_at[STEER_CPU_IDS];
	__u32 held_until[STEER_CPU_IDS];
	/* Settling (balance_settle()): rounds in a row that moved and
	 * tried nothing, and whether it has settled. */
	__u32 quiet;
	bool calm;
};

/* After a round: every cooldown one round shorter, the round's moved
 * buckets frozen for BALANCE_COOLDOWN rounds, and whether it is going
 * on; unless 'trial' (the moves are a trial's, or its way back), the way
 * the moves took load, for balance_hold(). */
void balance_remember(struct balance_memory *m, const struct balance_plan *p,
		      bool trial);

/* Before a round: hold[cpu] (STEER_CPU_IDS) gets the BALANCE_HOLD_* bits
 * the way load last moved puts on each worker. */
void balance_hold(const struct balance_memory *m, unsigned char *hold);

/*
 * A round that plans around buckets still draining (the balancer waits
 * a few rounds for them first): until its drain is done a moved bucket's
 * frames still go to the CPU it left, and count there, so that CPU reads
 * as loaded as before the move and the one it went to as light as
 * before. A round that believed them would move more the same way, and
 * the next, the drains still on, more again. So hold[] (STEER_CPU_IDS)
 * gets BALANCE_HOLD_SHED on each CPU a bucket still drains off and
 * BALANCE_HOLD_GAIN on each it drains to (table[b]), each with
 * BALANCE_HOLD_DRAINING; drain_from[b] (size) is the CPU + 1 a bucket's
 * frames still go to while its drain is not done, as its drain records
 * say (cpumap_in_use()), else 0: a move the balancer made or an apply's.
 * On the benchmarks' VM a sink sharing the worker's CPU with its kthread
 * at nice 10 kept 31-416 buckets draining for 5-20 rounds of 250 ms, and
 * the rounds that planned around them took the collector from 256 of
 * 512 buckets to 478 in 3 s, its worker then idle up to 38 % of the time
 * (tests/bench/README.md, "Forwarding: xdp-steer against RPS").
 */
void balance_hold_draining(const __u32 *table, __u32 size,
			   const __u16 *drain_from, unsigned char *hold);

/*
 * Settling: after an attach or a policy change (a memory new, all zero)
 * the balancer's rounds last BALANCE_SETTLE_MS, or the policy's interval
 * when shorter, until it has settled: the climb judged a step it could
 * not prove, or settled (balance_probe.calm), or BALANCE_SETTLE_QUIET
 * rounds in a row moved nothing and had no trial on (the estimates are
 * even and no worker is saturated), or BALANCE_SETTLE_MAX rounds passed;
 * then the policy's interval. Far from its aim a balancer is bounded by
 * what its rounds may move and by the climb's minimums, counted in
 * rounds: short rounds, BALANCE_SETTLE_MOVES times max_moves each by CPU
 * time, and, until the climb first settles, its steps judged against
 * BALANCE_SETTLE_BEFORE rounds (not BALANCE_CLIMB_BEFORE) make them
 * short in time: its first way down after an attach is a few steps, each
 * judged on its own rounds, and waiting 8 rounds of 1 s before each step
 * after the first unproven one (which ends the short rounds) put its
 * next steps past 10 s (issue 49 asks 10 s from the attach): with the
 * edge's rule below, 71 of 2500 runs of the unit tests' boxes are not
 * within 3 % of their end rate by 10 s, 145 before. A short round's
 * counts are noisier (a round of T seconds deviates about sqrt(1 s / T)
 * times as much as a second's, and its busy shares are read in fewer
 * ticks): the climb weighs each round by its length (balance_window), so
 * a step needs as many seconds of evidence whatever the rounds' length,
 * and a step that gains less than short rounds can prove (about 5 %)
 * ends the settling: what is left is judged on the policy's rounds. Each
 * move is a drain (bpf/README.md, "Moving flows"): its frames stay on the
 * old CPU until the evidence says its last frame there is up the stack,
 * typically a few ms, well within a short round; the next round counts
 * after it. Once settled the rounds are the policy's, so rests, backoffs
 * and moves a minute are as long and as few as before.
 */
#define BALANCE_SETTLE_MS	250
#define BALANCE_SETTLE_QUIET	16
#define BALANCE_SETTLE_MAX	240
#define BALANCE_SETTLE_MOVES	4
#define BALANCE_SETTLE_BEFORE	4

struct balance_probe;

/* After a round planned (and balance_remember()), with the probe when
 * by CPU time (else NULL): counts it toward settling. Whether the next
 * round is still a settling one. */
bool balance_settle(struct balance_memory *m, const struct balance_plan *plan,
		    const struct balance_probe *p);

/* A round's moves at most: the policy's max_moves, times
 * BALANCE_SETTLE_MOVES while m settles. */
int balance_round_moves(const struct balance_memory *m, int max_moves);

/* A round's length, in ms: 'interval' (the policy's), or
 * BALANCE_SETTLE_MS when shorter and m still settles. */
unsigned balance_round_ms(const struct balance_memory *m, unsigned interval);

/*
 * Trials, by CPU time: where the estimates run out, the box's answer.
 * A trial moves buckets, through drain like any move, and the rounds that
 * plan after it keep them if the workers took in (frames sent to them
 * less ring drops) more a second, by what the rounds' noise lets them
 * prove (the climb's judging, below) and at least BALANCE_PROBE_GAIN for
 * a probe, else move them back; no other move is made while a trial is
 * on. Two kinds:
 *
 * The probe: a worker throws frames away in its full ring, and no move
 * the estimates justify helps, as a bucket alone exceeds a share
 * (best-possible: one elephant is its worker's whole load, and the other
 * CPUs may read busy only because some work there fills any idle time,
 * which a CPU's busy share cannot tell from need). The dropping worker's
 * heaviest bucket goes to the least loaded worker. Either way the bucket
 * then stays put for BALANCE_PROBE_REST rounds, so a probe that failed
 * is not tried again at once.
 *
 * The climb: the estimates call the workers even, yet one of them is
 * saturated (busy BALANCE_CLIMB_BUSY or more). Even CPU time is then not
 * the most the box takes in: a CPU that collects reads wholly busy
 * whatever it is given (its NAPI polls, or a generator, take any idle
 * time), and a worker's ring overflows in bursts before its CPU is
 * wholly busy, which counts as load. So the climb moves a step of the
 * frames from the most busy worker to the least busy one (none if it
 * cannot gather half of that from buckets no larger than the step: that
 * way is at its end, so the other way is tried first, in the same round
 * (a round of 1 s said only that), as large, or half as large when the
 * last step the first way was kept (the best lies between the two: on
 * the unit tests' box whose best is 5 % on the collector, a step as
 * large back lost 11-18 % and cost the climb its next judgings), and a
 * step that cannot be gathered either way counts as one moved back), and
 * judges it on the mean of the rounds after it against the mean of the
 * rounds before it at the placement it left, as a host's rounds differ
 * by several per cent (issue 49: up to 10 %): kept when the gain is at
 * least BALANCE_CLIMB_SIGMAS standard errors of that difference (the
 * rounds' spread, pooled over the climb's windows) and at least the
 * kind's minimum (BALANCE_CLIMB_GAIN, BALANCE_PROBE_GAIN), on
 * BALANCE_CLIMB_KEEP rounds at least, moved back as soon as it loses
 * that much; after BALANCE_CLIMB_JUDGE rounds of neither, a climb's step
 * that gained is kept unproven (the next one the same way, half as
 * large), any other moved back. A step kept moves their shares
 * to what they carry after it (bias: each worker's share is its weight
 * times its bias), so that the rounds after even CPU time around the new
 * placement instead of undoing it, and is followed by one twice as large
 * (up to BALANCE_CLIMB_STEP) the same way; one moved back, by one half as
 * large the other way.
 * The first step is BALANCE_CLIMB_STEP; when the next would be smaller
 * than BALANCE_CLIMB_STEP_MIN, the climb settles: it rests
 * BALANCE_CLIMB_REST rounds, doubled at each settling in a row with no
 * step kept, up to BALANCE_CLIMB_REST_MAX, then tries steps of twice the
 * smallest again (the box may have changed). What each way last gave and
 * needed is kept for the balancer's log (balance_climb_note()). After
 * BALANCE_CLIMB_REST rounds with no worker saturated, the biases return
 * to 1: with room to spare, even CPU time is the aim.
 *
 * What the climb judged, the estimates do not undo: between two
 * saturated workers, whose loads the estimates can tell apart only by
 * what a full ring drops, a round moves no bucket once the climb has
 * judged a step between them, either way (the climb's next steps try
 * both ways, judged). The estimates disagree with the box exactly where
 * the climb was needed: a worker whose ring overflows at the best
 * placement (on the benchmarks' VM a saturated worker spares the
 * collector the IPIs that wake an idle one, so the best placement keeps
 * the worker's ring full, 7-23 % of what it is sent dropped there) reads
 * 1.3-2 times as loaded as the collector, and the rounds by CPU time
 * moved buckets back within a few seconds, to where the worker idles and
 * the collector wakes it, the box's rate halved (issue 49,
 * tests/bench/README.md; the box with two rates of
 * tests/unit/test_balance_climb.c, where a move the other way than the
 * last loss did the same). The round's note says how many moves it kept
 * where they were (balance_probe.undone).
 *
 * The balancer's first round counts in none of the climb's windows (and
 * no probe begins before a round is counted): it counts from the attach,
 * and traffic that starts with it, as the benchmarks send it, took in
 * 0.08-0.23 of the next round's there; pooled into the spread, that pair set
 * every step's need to 20-84 % through the settling on the benchmarks'
 * VM, so no step was proven and each next one was half as large.
 */
#define BALANCE_PROBE_DROPS	0.05	/* of what a worker was sent */
#define BALANCE_PROBE_GAIN	0.02
#define BALANCE_PROBE_REST	60
#define BALANCE_CLIMB_BUSY	0.95
#define BALANCE_CLIMB_STEP	0.08	/* of the frames by the table */
#define BALANCE_CLIMB_STEP_MIN	0.02
#define BALANCE_CLIMB_GAIN	0.005	/* a step's least gain, noise or
					 * not */
#define BALANCE_CLIMB_SIGMAS	2.0
/* Rounds a step is judged on at most, and the rounds at a placement a
 * step waits for first, so its 'before' is a mean too. */
#define BALANCE_CLIMB_JUDGE	12
#define BALANCE_CLIMB_BEFORE	8
#define BALANCE_CLIMB_KEEP	3	/* rounds a step is kept on, at
					 * least */
/* The rounds' relative spread assumed before any is measured. */
#define BALANCE_CLIMB_NOISE	0.03
#define BALANCE_CLIMB_REST	30
#define BALANCE_CLIMB_REST_MAX	240
#define BALANCE_CLIMB_MAX	64	/* buckets a step moves, at most */
#define BALANCE_BIAS_MIN	0.25
#define BALANCE_BIAS_MAX	4.0

enum { BALANCE_TRIAL_PROBE = 1, BALANCE_TRIAL_CLIMB };

/* Rounds at one placement: what the workers took in, summed. */
struct balance_window {
	int n;
	double secs;			/* the rounds' length, summed */
	double sum, sq;			/* of frames/s, and of their
					 * squares, each times its round's
					 * length */
};

/* What the last judged step each way gave: kept or not, the gain
 * measured (relative) and the gain it needed, on how many rounds. */
struct balance_step {
	bool tried;
	bool kept;
	__u32 from, to;
	double moved;			/* of the frames by the table */
	double gain, need;
	int rounds;
};

struct balance_probe {
	bool on;			/* buckets are on trial */
	int kind;			/* BALANCE_TRIAL_* */
	__u32 bucket[BALANCE_CLIMB_MAX];
	int n;
	__u32 from, to;
	double moved;			/* of the frames by the table */
	double before;			/* frames/s the workers took in then */
	int verdict;			/* of the last round: 0 none, 1 a
					 * trial began, 2 kept, 3 moved back,
					 * 4 the climb waits (wait says why),
					 * 5 a trial is being judged, 6 the
					 * climb's step could not be gathered
					 * ('from' carries too little): the
					 * other way next, or it settles */
	int wait;			/* BALANCE_WAIT_*, with verdict 4 */
	double after;			/* what they took in, judged */
	double gain, need;		/* the trial's, judged or so far */
	/* The windows: rounds at the placement in force (before), and of
	 * the trial on (after). */
	struct balance_window base, trial;
	bool fresh;			/* the placement changed: 'base'
					 * starts again */
	bool started;			/* a round was seen (the first counts
					 * in no window) */
	double from_part;		/* of the trial's rounds: the part of
					 * the two workers' load 'from'
					 * carried, times each round's
					 * length, summed */
	double spread_ss, spread_df;	/* the rounds' relative spread,
					 * pooled over closed windows */
	/* The climb's, between trials. */
	double bias[STEER_CPU_IDS];	/* each worker's, 0 for 1 */
	bool dir;			/* the next step goes next_from ->
					 * next_to */
	__u32 next_from, next_to;
	double step;			/* the next step's size (0: the
					 * first) */
	int rest;			/* rounds before the next step */
	int rest_len;			/* the last rest's rounds */
	bool kept_since;		/* a step was kept since it settled */
	bool edge;			/* the last step could not be gathered
					 * (its 'from' carries too little): the
					 * other way is tried before a miss */
	bool turned;			/* this round's step goes the other way
					 * for that, said in its note */
	bool settled;			/* this round's step back settled
					 * it */
	bool calm;			/* it has settled since the probe
					 * was new (balance_settle()) */
	int idle;			/* rounds with no worker saturated */
	struct balance_step way[2];	/* by way: from < to, from > to */
	int undone;			/* moves of this round's plan dropped
					 * for what the climb judged */
};

/*
 * After balance_plan(), by CPU time:
 * counts 'taken' (frames/s the workers took in this round) for the trial
 * on, and judges it once it can, or counts it for the placement in force
 * and starts one. 1 when plan (and table_out, the table after) now holds
 * the moves to make, else 0; p->verdict says what it did. A round with a
 * trial on makes no other move: plan loses what it planned (its counts
 * are the trial's answer). balance_input.bias takes p->bias.
 */
int balance_probe_round(struct balance_probe *p, const struct balance_input *in,
			const struct balance_cpu *cpu, double taken,
			__u32 *table_out, struct balance_plan *plan);
/* A trial begun but never made (a dry run): as if it had not begun. */
void balance_probe_forget(struct balance_probe *p);

/* After balance_remember(): a bucket whose probe ended rests. */
void balance_probe_rest(const struct balance_probe *p,
			struct balance_memory *m);

/* The climb's sentence for the balancer's round line (verdicts 1-6 of a
 * climb's trial): what it tried, what each way gained and needed, and
 * why it rests. The length snprintf() would have written. */
int balance_climb_note(const struct balance_probe *p, char *buf,
		       size_t len);

/* The state's word and sentence (STEER_BAL_STATES). */
const char *balance_state_word(int state);
const char *balance_state_text(int state);

#endif /* XDP_STEER_BALANCE_H */
