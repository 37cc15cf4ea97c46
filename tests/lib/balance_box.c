// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A box on paper for the balancer by CPU time (balance_box.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "balance_box.h"

/* CPU time as the kernel counts it here (CONFIG_HZ 250, tick-based
 * accounting): each tick of 4 ms charges the whole tick to what the CPU
 * was doing then, and /proc/stat says the sum in USER_HZ units of 10 ms.
 * The box reads a CPU busy a share p of a round of T s as p * 100 * T
 * whole units, cut at the CPU's own phase: off by one, the bound the
 * balancer allows for (model/balance_plan.c, over()), a 250 ms round's busy
 * share to 4 %. (The kernel's ticks under it are samples: a CPU busy in
 * bursts of microseconds is found busy by a draw of them, off by about
 * sqrt(250 T p (1 - p)) ticks, 6 % of a half-busy CPU's second; neither
 * this box nor that bound counts it.) */
#define TICKS_PER_S	100
/* A worker's ring starts to overflow in bursts at this share of its
 * CPU (box.burst). */
#define BURST_FROM	0.8

/* Rounds of the collector's rate and the workers' busy shares answering
 * each other (box.wake), from where the last round left them: enough for
 * either of two rates to settle. */
#define WAKE_ITERATIONS	64

/*
 * The generator's rate when the collector also wakes the workers'
 * kthreads (box.wake), times 'factor' (the round's noise): each worker's
 * idle share costs the collector wake us for each frame handed to it,
 * and the rate sets how busy the workers are. Noisy, from the busy
 * shares of the round before (a box in one of its two rates stays there
 * until the noise or a move flips it); exact, from saturated workers (the
 * higher rate, the one a fixed placement's best runs show).
 */
static double wake_rate(struct box *b, const double *share, double factor,
			bool noise)
{
	double u[STEER_CPU_IDS] = { 0 }, cost, rate = b->rate * factor, left;
	__u32 c, top = 1;
	int i;

	/* Only the CPUs up to the last with a share: the rest idle, and
	 * cost nothing to wake (the iterations stay cheap). */
	for (c = 1; c < BOX_CPUS; c++)
		if (share[c] > 0)
			top = c + 1;
	for (c = 0; c < top; c++)
		u[c] = noise ? b->awake[c] : 1;
	for (i = 0; i < WAKE_ITERATIONS; i++) {
		cost = b->gen + b->collect + share[0] * b->local;
		for (c = 1; c < top; c++)
			cost += share[c] * b->wake * (1 - u[c]);
		rate = factor * (1 - b->app[0]) / cost;
		for (c = 1; c < top; c++) {
			left = 1 - b->app[c];
			u[c] = left <= 0 || share[c] <= 0 ? 0 :
			       rate * share[c] * b->work[c] / left;
			if (u[c] > 1)
				u[c] = 1;
		}
	}
	if (noise)
		memcpy(b->awake, u, sizeof(u));
	return rate;
}

void box_observe(struct box *b, bool noise, struct box_state *st)
{
	const struct sim *s = b->s;
	double share[STEER_CPU_IDS] = { 0 }, in[STEER_CPU_IDS] = { 0 };
	double taken = 0, per, need, left, done, ticks, frames, rate, kept;
	/* A round of T seconds is noisier than one of 1 s by sqrt(1 s / T):
	 * fewer frames and less time to average a host's hiccups over. */
	double scale = b->seconds > 0 ? sqrt(1 / b->seconds) : 1;
	__u32 c, k, bk;

	memset(st, 0, sizeof(*st));
	for (bk = 0; bk < s->size; bk++)
		share[s->table[bk]] += s->load[bk];
	/* Collectors first: NAPI runs before any task, after the
	 * application's share (a softirq would take it; a busy application
	 * is what the worst case looks like). */
	if (b->gen > 0)
		b->rate = (1 - b->app[0]) /
			  (b->gen + b->collect + share[0] * b->local);
	rate = b->rate;
	if (noise && b->jitter > 0)
		rate *= 1 + scale * b->jitter * sim_normal(b->s);
	if (noise && b->spread > 0)
		rate *= 1 + scale * b->spread * (sim_uniform(b->s) - 0.5);
	if (b->gen > 0 && b->wake > 0)
		rate = wake_rate(b, share, rate / b->rate, noise);
	per = rate / b->collectors;
	for (k = 0; k < (__u32)b->collectors; k++) {
		need = per * (b->collect + share[k] * b->local);
		left = 1 - b->app[k];
		done = need > left ? per * left / need : per;
		st->demand[k] = b->app[k] + need;
		st->seen[k].busy = b->app[k] + (need > left ? left : need);
		/* The generator takes the rest. */
		if (b->gen > 0) {
			st->demand[k] = 1;
			st->seen[k].busy = 1;
		}
		st->seen[k].sent += done * share[k];
		st->forwarded += done * share[k];
		taken += done;
		for (c = 0; c < BOX_CPUS; c++)
			if (c != k)
				in[c] += done * share[c];
	}
	/* Then each CPU's ring, with what is left of it. */
	for (c = 0; c < BOX_CPUS; c++) {
		if (in[c] <= 0)
			continue;
		need = in[c] * b->work[c];
		left = 1 - st->seen[c].busy - (c < (__u32)b->collectors ? 0 :
					       b->app[c]);
		if (b->stuck[c])
			left = 0;
		if (c >= (__u32)b->collectors) {
			st->demand[c] = b->app[c];
			st->seen[c].busy = b->app[c];
		}
		/* What a burst drops costs nothing. */
		kept = in[c];
		if (b->burst > 0 && left > 0 && need > BURST_FROM * left)
			kept *= 1 - b->burst * (need >= left ? 1 :
				(need / left - BURST_FROM) / (1 - BURST_FROM));
		need = kept * b->work[c];
		done = need > left ? kept * left / need : kept;
		st->demand[c] += need;
		st->seen[c].busy += need > left ? left : need;
		st->seen[c].sent += in[c];
		st->seen[c].dropped = in[c] - done;
		st->ring_dropped += in[c] - done;
		st->forwarded += done;
	}
	/* The traffic of the attach's round runs only the last 'start' of
	 * it: the CPUs idle before. */
	if (noise && b->starting) {
		for (c = 0; c < BOX_CPUS; c++) {
			st->seen[c].busy *= b->start;
			st->seen[c].sent *= b->start;
			st->seen[c].dropped *= b->start;
		}
		st->forwarded *= b->start;
		taken *= b->start;
	}
	for (c = 0; c < BOX_CPUS; c++) {
		if (c >= (__u32)b->collectors && !in[c])
			st->demand[c] = st->seen[c].busy = b->app[c];
		st->seen[c].sent *= 1e6 * b->seconds;
		st->seen[c].dropped *= 1e6 * b->seconds;
		if (noise) {
			/* Whole units, each CPU's at its own phase. */
			ticks = st->seen[c].busy * TICKS_PER_S * b->seconds;
			ticks = floor(ticks + sim_uniform(b->s));
			st->seen[c].busy = ticks / (TICKS_PER_S * b->seconds);
		}
	}
	if (b->uncounted)
		return;
	frames = taken * 1e6 * b->seconds;
	sim_measure(b->s, noise ? frames : 0, st->counts);
	if (!noise)
		for (bk = 0; bk < s->size; bk++)
			st->counts[bk] *= frames;
}

double box_unevenness(const struct box *b, const struct box_state *st)
{
	double sum = 0, most = 0;
	int c, n = 0;

	for (c = 0; c < BOX_CPUS; c++) {
		if (!b->s->weight[c])
			continue;
		sum += st->demand[c];
		if (st->demand[c] > most)
			most = st->demand[c];
		n++;
	}
	return sum > 0 ? most / (sum / n) : 1;
}

int box_balance(struct box *b, struct balance_memory *mem, double tolerance,
		int max_moves, int max_rounds, bool all, struct sim_run *run,
		int *back)
{
	struct sim *s = b->s;
	struct balance_plan *plan = malloc(sizeof(*plan));
	struct box_state *st = malloc(sizeof(*st));
	double load[STEER_TABLE_MAX], fixed[STEER_CPU_IDS];
	struct balance_input in = {
		.size = s->size, .table = s->table, .weight = s->weight,
		.load = load, .fixed = fixed, .frozen = mem->left,
		.floor = BALANCE_BUSY_FLOOR, .tolerance = tolerance,
		.ticks = TICKS_PER_S * b->seconds,
		.halfway = true,
		.max_moves = max_moves, .bias = b->probe.bias,
	};
	unsigned char hold[STEER_CPU_IDS];
	unsigned short *left = calloc(STEER_TABLE_MAX, sizeof(*left));
	__u32 *out = calloc(STEER_TABLE_MAX, sizeof(*out));
	int quiet = 0, err = 0, i, minute;
	double taken;
	__u32 b_, c;

	memset(run, 0, sizeof(*run));
	if (back)
		*back = 0;
	if (!plan || !st || !left || !out) {
		err = -ENOMEM;
		goto out;
	}
	while (all || quiet <= BALANCE_COOLDOWN) {
		if (run->rounds == max_rounds) {
			err = all ? 0 : -ETIMEDOUT;
			break;
		}
		/* As the loader times its rounds. */
		if (b->interval > 0)
			b->seconds = balance_round_ms(mem, b->interval * 1000 +
							   0.5) / 1000.0;
		/* A move's drain outlasts the round: this one waits. */
		if (b->waiting > 0) {
			b->waiting--;
			b->elapsed += b->seconds;
			run->rounds++;
			quiet = 0;
			continue;
		}
		in.ticks = TICKS_PER_S * b->seconds;
		in.seconds = b->seconds;
		in.max_moves = b->interval > 0 ?
			       balance_round_moves(mem, max_moves) : max_moves;
		if (b->before_round)
			b->before_round(b, run->rounds);
		b->starting = b->start > 0 && b->elapsed == 0;
		box_observe(b, true, st);
		b->starting = false;
		in.frames = st->counts;
		/* The holds, as lib/balance_daemon.c puts them. */
		if (b->forget_ways)
			memset(hold, 0, sizeof(hold));
		else
			balance_hold(mem, hold);
		for (c = 0; c < BOX_CPUS; c++)
			if (b->stuck[c] && s->weight[c])
				hold[c] |= BALANCE_HOLD_SHED |
					   BALANCE_HOLD_GAIN |
					   BALANCE_HOLD_STUCK;
		in.hold = hold;
		balance_cpu_loads(s->size, s->table, s->weight, st->seen,
				  st->counts, NULL, load, fixed);
		in.going = mem->going;
		in.settling = !mem->calm;
		/* Planned apart from the table in force, as the loader does:
		 * a round that judges a trial drops what it planned. */
		err = balance_plan(&in, out, plan);
		if (err)
			break;
		/* The probe, as the loader runs it (lib/balance_daemon.c). */
		for (taken = 0, c = 0; c < BOX_CPUS; c++)
			if (s->weight[c])
				taken += st->seen[c].sent - st->seen[c].dropped;
		balance_probe_round(&b->probe, &in, st->seen,
				    taken / b->seconds, out, plan);
		memcpy(s->table, out, s->size * sizeof(*out));
		balance_remember(mem, plan, b->probe.verdict == 1 ||
					     b->probe.verdict == 3);
		balance_probe_rest(&b->probe, mem);
		balance_settle(mem, plan, &b->probe);
		b->elapsed += b->seconds;
		if (plan->nmoves)
			b->waiting = b->drain_rounds;
		if (getenv("BOX_DEBUG")) {
			int w;
			fprintf(stderr, "round %d: state %d ratio %.3f moves %d:", run->rounds, plan->state, plan->ratio, plan->nmoves);
			for (w = 0; w < plan->nworkers; w++)
				fprintf(stderr, " %u:%.3f/%.3f(%u)h%u", plan->workers[w].cpu, st->seen[plan->workers[w].cpu].busy, st->demand[plan->workers[w].cpu], plan->workers[w].buckets, hold[plan->workers[w].cpu]);
			fprintf(stderr, " probe %d;", b->probe.verdict);
			for (w = 0; w < plan->nmoves; w++)
				if (w < 6 || b->stuck[plan->moves[w].from] || b->stuck[plan->moves[w].to])
					fprintf(stderr, " %u>%u%s", plan->moves[w].from, plan->moves[w].to, b->stuck[plan->moves[w].from] || b->stuck[plan->moves[w].to] ? "!" : "");
			fprintf(stderr, "\n");
		}
		/* A trial's moves, and their way back, are tried and judged,
		 * not ping-pong: counted apart. */
		b->trials += b->probe.verdict == 1;
		b->undone += b->probe.verdict == 3;
		minute = run->rounds / 60 < 64 ? run->rounds / 60 : 63;
		for (i = 0; i < plan->nmoves; i++) {
			c = plan->moves[i].from;
			b->stuck_moves += c < STEER_CPU_IDS && b->stuck[c];
			c = plan->moves[i].to;
			b->stuck_moves += c < STEER_CPU_IDS && b->stuck[c];
			b->minute_moves[minute]++;
		}
		for (i = 0; back && !b->probe.verdict && i < plan->nmoves; i++) {
			b_ = plan->moves[i].bucket;
			if (left[b_] == plan->moves[i].to + 1) {
				(*back)++;
				b->minute_back[minute]++;
			}
			left[b_] = plan->moves[i].from + 1;
		}
		run->rounds++;
		run->moves += plan->nmoves;
		if (plan->nmoves > run->most)
			run->most = plan->nmoves;
		run->state = plan->state;
		run->bound = plan->bound;
		/* A step on trial is not settled: its judging may move it
		 * back. */
		quiet = plan->nmoves || b->probe.on ? 0 : quiet + 1;
	}
out:
	free(out);
	free(left);
	free(plan);
	free(st);
	return err;
}
