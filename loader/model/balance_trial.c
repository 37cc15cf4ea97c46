// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The balancer's trials (balance.h, "Trials, by CPU time"): where the
 * estimates run out, the probe and the climb move buckets and keep them
 * only if the box takes in more, judged against the noise of its rounds. */
#include <math.h>
#include <string.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/balance.h"
#include "model/balance.h"

/* Whether a climb's step may not move a bucket off worker cpu ('bit'
 * BALANCE_HOLD_SHED) or onto it (BALANCE_HOLD_GAIN): it cannot drain,
 * or, once the balancer has settled, it is held (balance.h). */
static bool trial_held(const struct balance_input *in, __u32 cpu,
		       unsigned bit)
{
	return balance_held(in, cpu, BALANCE_HOLD_STUCK) ||
	       (!in->settling && balance_held(in, cpu, bit));
}

/* The trial's moves: p's buckets from 'from' to 'to'. */
static void trial_moves(const struct balance_probe *p,
			const struct balance_input *in,
			struct balance_plan *plan, __u32 *table, __u32 from,
			__u32 to)
{
	int i;

	for (i = 0; i < p->n; i++) {
		plan->moves[i] = (struct balance_move){
			p->bucket[i], from, to, in->load[p->bucket[i]] };
		table[p->bucket[i]] = to;
	}
	plan->nmoves = p->n;
	plan->state = STEER_BAL_MOVED;
}

/* The rounds at one placement (balance_window): x frames/s over a round
 * of 'secs' seconds. */
static void window_add(struct balance_window *w, double x, double secs)
{
	if (secs <= 0)
		secs = 1;
	w->n++;
	w->secs += secs;
	w->sum += x * secs;
	w->sq += x * x * secs;
}

/* Frames/s over all of its time: a short round weighs as little as it
 * counted. */
static double window_mean(const struct balance_window *w)
{
	return w->secs > 0 ? w->sum / w->secs : 0;
}

/* Its rounds' squared deviations from its mean, relative to it, each
 * times its round's length: a round of T seconds deviates by about
 * sqrt(1 s / T) times a second's, so this over its degrees of freedom
 * is a second's relative variance whatever the rounds' length. */
static double window_ss(const struct balance_window *w)
{
	double m = window_mean(w), ss;

	if (w->n < 2 || m <= 0)
		return 0;
	ss = w->sq - w->secs * m * m;
	return ss > 0 ? ss / (m * m) : 0;
}

static double window_df(const struct balance_window *w)
{
	return w->n > 1 ? w->n - 1 : 0;
}

/* The worker that drops the most of what it was sent, over
 * BALANCE_PROBE_DROPS, and its heaviest movable bucket; false if none. */
static bool probe_pick(const struct balance_input *in,
		       const struct balance_cpu *cpu, __u32 *bucket,
		       __u32 *from)
{
	double worst = BALANCE_PROBE_DROPS, d;
	__u32 c, b, best = in->size;

	for (c = 0; c < STEER_CPU_IDS; c++) {
		if (!in->weight[c] || cpu[c].sent <= 0 ||
		    balance_held(in, c, BALANCE_HOLD_SHED))
			continue;
		d = cpu[c].dropped / cpu[c].sent;
		if (d > worst) {
			worst = d;
			*from = c;
		}
	}
	if (worst == BALANCE_PROBE_DROPS)
		return false;
	for (b = 0; b < in->size; b++)
		if (in->table[b] == *from && in->load[b] > 0 &&
		    !(in->frozen && in->frozen[b]) &&
		    (best == in->size || in->load[b] > in->load[best]))
			best = b;
	*bucket = best;
	return best < in->size;
}

/* The probe: the dropping worker's heaviest bucket to the least loaded
 * worker, where no move can help (a bucket alone over a share). */
static int probe_start(struct balance_probe *p, const struct balance_input *in,
		       const struct balance_cpu *cpu, __u32 *table_out,
		       struct balance_plan *plan)
{
	double least = -1, x;
	__u32 b, from = 0, to = 0;
	int w;

	/* Judged against the rounds before it: none yet, no probe. */
	if (plan->state != STEER_BAL_BEST || !p->base.n ||
	    !probe_pick(in, cpu, &b, &from))
		return 0;
	for (w = 0; w < plan->nworkers; w++) {
		if (plan->workers[w].cpu == from || plan->workers[w].share <= 0 ||
		    balance_held(in, plan->workers[w].cpu, BALANCE_HOLD_GAIN))
			continue;
		x = plan->workers[w].after / plan->workers[w].share;
		if (least < 0 || x < least) {
			least = x;
			to = plan->workers[w].cpu;
		}
	}
	if (least < 0)
		return 0;
	p->on = true;
	p->kind = BALANCE_TRIAL_PROBE;
	p->bucket[0] = b;
	p->n = 1;
	p->from = from;
	p->to = to;
	p->moved = 0;
	p->before = window_mean(&p->base);
	memset(&p->trial, 0, sizeof(p->trial));
	p->from_part = 0;
	p->verdict = 1;
	trial_moves(p, in, plan, table_out, from, to);
	return 1;
}

static double bias_of(const struct balance_probe *p, __u32 cpu)
{
	return p->bias[cpu] > 0 ? p->bias[cpu] : 1;
}

/* The climb's first guess: from the most busy worker (of two as busy, the
 * one over its share the most) to the least busy one. */
static void climb_guess(struct balance_probe *p, const struct balance_plan *plan,
			const struct balance_cpu *cpu)
{
	const struct balance_worker *w, *hi = NULL, *lo = NULL;
	int i;

	for (i = 0; i < plan->nworkers; i++) {
		w = &plan->workers[i];
		if (!hi || cpu[w->cpu].busy > cpu[hi->cpu].busy ||
		    (cpu[w->cpu].busy == cpu[hi->cpu].busy &&
		     w->after * hi->share > hi->after * w->share))
			hi = w;
	}
	for (i = 0; i < plan->nworkers; i++) {
		w = &plan->workers[i];
		if (w != hi && (!lo || cpu[w->cpu].busy < cpu[lo->cpu].busy))
			lo = w;
	}
	p->dir = true;
	p->next_from = hi->cpu;
	p->next_to = lo->cpu;
}

static const struct balance_worker *worker_of(const struct balance_plan *plan,
					      __u32 cpu)
{
	int i;

	for (i = 0; i < plan->nworkers; i++)
		if (plan->workers[i].cpu == cpu)
			return &plan->workers[i];
	return NULL;
}

static void climb_turn(struct balance_probe *p)
{
	__u32 c = p->next_from;

	p->next_from = p->next_to;
	p->next_to = c;
}

/* The climb settles: it rests, longer when the last rest ended with no
 * step kept, and then tries one small step, the other way than the last
 * (climb_missed() turns it). */
static void climb_settle(struct balance_probe *p)
{
	if (p->kept_since || !p->rest_len)
		p->rest_len = BALANCE_CLIMB_REST;
	else if (2 * p->rest_len <= BALANCE_CLIMB_REST_MAX)
		p->rest_len *= 2;
	else
		p->rest_len = BALANCE_CLIMB_REST_MAX;
	p->rest = p->rest_len;
	p->kept_since = false;
	p->settled = true;
	p->calm = true;
	p->step = BALANCE_CLIMB_STEP_MIN;
}

/* A step kept unproven: one half as large the same way next, or, below
 * the smallest, a rest. */
static void climb_shorter(struct balance_probe *p)
{
	p->step /= 2;
	if (p->step < BALANCE_CLIMB_STEP_MIN) {
		climb_settle(p);
		/* After the rest the other way first. */
		climb_turn(p);
	}
}

/* A step that could not be taken, or was moved back: one half as large
 * the other way next, or, below the smallest, a rest. */
static void climb_missed(struct balance_probe *p)
{
	p->step = (p->step > 0 ? p->step : BALANCE_CLIMB_STEP) / 2;
	if (p->step < BALANCE_CLIMB_STEP_MIN)
		climb_settle(p);
	/* Settled too: after the rest the other way first, so the ways
	 * take turns. */
	climb_turn(p);
}

/* The climb's step from 'from' to 'to' cannot be taken now, for 'why'
 * (BALANCE_WAIT_*): said (verdict 4), not missed. */
static int climb_waits(struct balance_probe *p, __u32 from, __u32 to,
		       int why)
{
	p->verdict = 4;
	p->kind = BALANCE_TRIAL_CLIMB;
	p->wait = why;
	p->from = from;
	p->to = to;
	return 0;
}

/* The climb's step, when no worker's estimate is over its share and one
 * is saturated: BALANCE_CLIMB_STEP of the frames, heaviest buckets first,
 * none alone over what is left of the step. A step that cannot gather
 * half of that (one flow and a few stray frames) is not taken: its
 * answer would be noise. */
static int climb_start(struct balance_probe *p, const struct balance_input *in,
		       const struct balance_cpu *cpu, __u32 *table_out,
		       struct balance_plan *plan)
{
	const struct balance_worker *f, *t;
	const double *count;
	double left, moved = 0, all = 0, cooling = 0;
	__u32 b, best;
	int i, max;
	bool busy = false;

	if (plan->nworkers < 2 || plan->total <= 0)
		return 0;
	for (i = 0; i < plan->nworkers; i++)
		busy |= cpu[plan->workers[i].cpu].busy >= BALANCE_CLIMB_BUSY;
	if (!busy) {
		/* With room to spare, even CPU time is the aim again. */
		if (++p->idle >= BALANCE_CLIMB_REST) {
			memset(p->bias, 0, sizeof(p->bias));
			/* What the climb judged no longer binds the
			 * rounds (balance.h). */
			memset(p->way, 0, sizeof(p->way));
			p->dir = false;
			p->step = 0;
			p->rest_len = 0;
		}
		return 0;
	}
	p->idle = 0;
	if (p->rest > 0) {
		p->rest--;
		return 0;
	}
	/* Judged against a mean, not one round; until the climb first
	 * settles, of fewer rounds (balance.h). */
	if (p->base.n < (p->rest_len ? BALANCE_CLIMB_BEFORE :
				       BALANCE_SETTLE_BEFORE))
		return 0;
	if (p->step <= 0)
		p->step = BALANCE_CLIMB_STEP;
	if (!p->dir)
		climb_guess(p, plan, cpu);
	f = worker_of(plan, p->next_from);
	t = worker_of(plan, p->next_to);
	if (!f || !t) {
		p->dir = false;
		return 0;
	}
	/* A worker that cannot drain, or, once settled, held: no step now,
	 * none counted as missed. */
	if (trial_held(in, f->cpu, BALANCE_HOLD_SHED) ||
	    trial_held(in, t->cpu, BALANCE_HOLD_GAIN))
		return climb_waits(p, f->cpu, t->cpu, BALANCE_WAIT_HELD);
	max = in->max_moves < BALANCE_CLIMB_MAX ? in->max_moves :
						  BALANCE_CLIMB_MAX;
	/* By frames, not load: by the estimate a collector's buckets weigh
	 * more, yet what a step changes is where frames go. */
	count = in->frames ? in->frames : in->load;
	for (b = 0; b < in->size; b++)
		if (in->table[b] < STEER_CPU_IDS && in->weight[in->table[b]])
			all += count[b];
	left = p->step * all;
	for (p->n = 0; p->n < max && left > 0; p->n++) {
		best = in->size;
		for (b = 0; b < in->size; b++) {
			if (table_out[b] != f->cpu || in->load[b] <= 0 ||
			    count[b] > left || (in->frozen && in->frozen[b]))
				continue;
			for (i = 0; i < p->n && p->bucket[i] != b; i++)
				;
			if (i == p->n &&
			    (best == in->size || count[b] > count[best]))
				best = b;
		}
		if (best == in->size)
			break;
		p->bucket[p->n] = best;
		left -= count[best];
		moved += count[best];
	}
	/* Short by the round's moves (max_moves), the step is what they
	 * carry: small buckets, enough of them for a step of its own. */
	if (moved < p->step * all / 2 && p->n < max) {
		/* Short only by buckets that cool down after a move: no miss,
		 * the step waits for them. */
		for (b = 0; b < in->size; b++)
			if (in->frozen && in->frozen[b] &&
			    table_out[b] == f->cpu && in->load[b] > 0 &&
			    count[b] <= p->step * all)
				cooling += count[b];
		if (moved + cooling >= p->step * all / 2)
			return climb_waits(p, f->cpu, t->cpu,
					   BALANCE_WAIT_COOLING);
		/* 'from' carries less than the step: that way is at its
		 * end, which says nothing of the step's size; the other way
		 * first, as large, before the climb halves it. Said
		 * (verdict 6), as the climb may settle on it. */
		p->verdict = 6;
		p->kind = BALANCE_TRIAL_CLIMB;
		p->from = f->cpu;
		p->to = t->cpu;
		p->moved = p->step;
		if (!p->edge) {
			p->edge = true;
			/* The last step this way was kept: the best lies
			 * between, so half as large back. */
			if (p->way[f->cpu < t->cpu ? 0 : 1].kept &&
			    p->step / 2 >= BALANCE_CLIMB_STEP_MIN)
				p->step /= 2;
			climb_turn(p);
			p->turned = true;
			return climb_start(p, in, cpu, table_out, plan);
		}
		p->edge = false;
		climb_missed(p);
		return 0;
	}
	p->edge = false;
	p->on = true;
	p->kind = BALANCE_TRIAL_CLIMB;
	p->from = f->cpu;
	p->to = t->cpu;
	p->moved = all > 0 ? moved / all : 0;
	p->before = window_mean(&p->base);
	memset(&p->trial, 0, sizeof(p->trial));
	p->from_part = 0;
	p->verdict = 1;
	trial_moves(p, in, plan, table_out, f->cpu, t->cpu);
	return 1;
}

/*
 * A climb's step kept: the two workers' shares become what they carry
 * now, counted after the step (plan, before its moves), their sum
 * unchanged, so that the rounds after call the new placement even
 * instead of undoing it (a collector reads as busy with fewer buckets,
 * each of them heavier by the estimate). Each worker's weight over its
 * target is the same, so the biases scale as the targets.
 */
static void climb_kept(struct balance_probe *p, const struct balance_plan *plan)
{
	const struct balance_worker *f = worker_of(plan, p->from),
				    *t = worker_of(plan, p->to);
	double sum, tf, tt, bf, bt;

	if (!f || !t || f->load + t->load <= 0 || f->share <= 0 ||
	    t->share <= 0)
		return;
	sum = (f->share + t->share) * plan->total;
	/* The part 'from' carries, over the trial's rounds: one round's
	 * busy shares, short and cut in ticks, would set the shares on
	 * noise, and the rounds after would move buckets on it. */
	tf = sum * (p->trial.secs > 0 ? p->from_part / p->trial.secs :
					f->load / (f->load + t->load));
	tt = sum - tf;
	bf = bias_of(p, f->cpu) * tf / (f->share * plan->total);
	bt = bias_of(p, t->cpu) * tt / (t->share * plan->total);
	p->bias[f->cpu] = bf < BALANCE_BIAS_MIN ? BALANCE_BIAS_MIN :
			  bf > BALANCE_BIAS_MAX ? BALANCE_BIAS_MAX : bf;
	p->bias[t->cpu] = bt < BALANCE_BIAS_MIN ? BALANCE_BIAS_MIN :
			  bt > BALANCE_BIAS_MAX ? BALANCE_BIAS_MAX : bt;
}

/* A window closes: its spread joins the pool, where older windows weigh
 * less at each (a host's noise changes with what else it runs). */
static void window_close(struct balance_probe *p, struct balance_window *w)
{
	p->spread_ss = 0.9 * p->spread_ss + window_ss(w);
	p->spread_df = 0.9 * p->spread_df + window_df(w);
	memset(w, 0, sizeof(*w));
}

/* The relative variance of a second's count: the pool and the open
 * windows, with BALANCE_CLIMB_NOISE weighing as two rounds, so that two
 * rounds that happen to agree prove nothing. */
static double spread_var(const struct balance_probe *p)
{
	return (p->spread_ss + window_ss(&p->base) + window_ss(&p->trial) +
		2 * BALANCE_CLIMB_NOISE * BALANCE_CLIMB_NOISE) /
	       (p->spread_df + window_df(&p->base) + window_df(&p->trial) + 2);
}

/* The part of the two workers' load 'from' carries this round. */
static double trial_part(const struct balance_probe *p,
			 const struct balance_plan *plan)
{
	const struct balance_worker *f = worker_of(plan, p->from),
				    *t = worker_of(plan, p->to);

	return f && t && f->load + t->load > 0 ?
	       f->load / (f->load + t->load) : 0.5;
}

/* What the trial's way last gave, for the log. */
static void way_judged(struct balance_probe *p, bool kept)
{
	struct balance_step *s = &p->way[p->from < p->to ? 0 : 1];

	*s = (struct balance_step){ true, kept, p->from, p->to, p->moved,
				    p->gain, p->need, p->trial.n };
}

/* A round of trial p on: 'taken' joins its window, and it is judged once
 * the means differ by its need either way, or after BALANCE_CLIMB_JUDGE
 * rounds: kept (0), or its moves back in plan (1); else it goes on
 * (verdict 5, 0). */
static int judge(struct balance_probe *p, const struct balance_input *in,
		 double taken, __u32 *table_out, struct balance_plan *plan)
{
	double least = p->kind == BALANCE_TRIAL_CLIMB ? BALANCE_CLIMB_GAIN :
							BALANCE_PROBE_GAIN, se;
	bool stayed = true, proven;
	int i;

	window_add(&p->trial, taken, in->seconds);
	p->from_part += trial_part(p, plan) * (in->seconds > 0 ? in->seconds : 1);
	p->before = window_mean(&p->base);
	p->after = window_mean(&p->trial);
	p->gain = p->before > 0 ? p->after / p->before - 1 : 0;
	/* A mean over S seconds of rounds is known to a second's deviation
	 * over sqrt(S). */
	se = sqrt(spread_var(p) * (1.0 / (p->base.secs > 0 ? p->base.secs : 1) +
				   1.0 / p->trial.secs));
	p->need = BALANCE_CLIMB_SIGMAS * se > least ?
		  BALANCE_CLIMB_SIGMAS * se : least;
	/* A bucket some other change moved away ends the trial as it is. */
	for (i = 0; i < p->n; i++)
		stayed &= table_out[p->bucket[i]] == p->to;
	/* Kept on three rounds at least: the spread at the new placement,
	 * which may differ from the pool's, is one of them. */
	if (stayed && (p->gain < p->need || p->trial.n < BALANCE_CLIMB_KEEP) &&
	    p->gain > -p->need && p->trial.n < BALANCE_CLIMB_JUDGE) {
		p->verdict = 5;
		return 0;
	}
	p->on = false;
	proven = p->gain >= p->need;
	/* A climb's step that gained, unproven, after all its rounds: the
	 * best guess is that it helps, and a loss large enough to matter is
	 * rarely measured as a gain that long; the next step is half as
	 * large, so such keeps add up to little. */
	if (proven || !stayed ||
	    (p->kind == BALANCE_TRIAL_CLIMB && p->gain > 0)) {
		p->verdict = 2;
		if (p->kind == BALANCE_TRIAL_CLIMB && stayed) {
			way_judged(p, true);
			climb_kept(p, plan);
			if (proven) {
				/* The best is further that way: longer
				 * strides. */
				p->kept_since = true;
				p->step = 2 * p->step < BALANCE_CLIMB_STEP ?
					  2 * p->step : BALANCE_CLIMB_STEP;
			} else {
				climb_shorter(p);
				/* What is left to gain, short rounds
				 * cannot tell apart: long ones from now. */
				p->calm = true;
			}
		}
		/* Its rounds are the new placement's. */
		window_close(p, &p->base);
		p->base = p->trial;
		memset(&p->trial, 0, sizeof(p->trial));
	p->from_part = 0;
		return 0;
	}
	p->verdict = 3;
	if (p->kind == BALANCE_TRIAL_CLIMB) {
		way_judged(p, false);
		climb_missed(p);
		p->calm = true;
	}
	/* Back where 'base' was counted. */
	window_close(p, &p->trial);
	trial_moves(p, in, plan, table_out, p->to, p->from);
	return 1;
}

/* Whether the climb has judged a step between workers a and b, either
 * way: from then on the two are its to place (balance.h). */
static bool climbed(const struct balance_probe *p, __u32 a, __u32 b)
{
	const struct balance_step *s;
	int i;

	for (i = 0; i < 2; i++) {
		s = &p->way[i];
		if (s->tried && ((s->from == a && s->to == b) ||
				 (s->from == b && s->to == a)))
			return true;
	}
	return false;
}

/* The plan's moves between two saturated workers the climb has judged
 * a step between, dropped (balance.h): their buckets stay in table_out
 * where they were, p->undone counts them. */
static void keep_climbed(struct balance_probe *p,
			 const struct balance_input *in,
			 const struct balance_cpu *cpu, __u32 *table_out,
			 struct balance_plan *plan)
{
	const struct balance_move *m;
	int i, n = 0, w;

	p->undone = 0;
	for (i = 0; i < plan->nmoves; i++) {
		m = &plan->moves[i];
		if (cpu[m->from].busy >= BALANCE_CLIMB_BUSY &&
		    cpu[m->to].busy >= BALANCE_CLIMB_BUSY &&
		    climbed(p, m->from, m->to)) {
			table_out[m->bucket] = in->table[m->bucket];
			for (w = 0; w < plan->nworkers; w++) {
				if (plan->workers[w].cpu == m->from)
					plan->workers[w].after += m->load;
				if (plan->workers[w].cpu == m->to)
					plan->workers[w].after -= m->load;
			}
			p->undone++;
			continue;
		}
		plan->moves[n++] = *m;
	}
	plan->nmoves = n;
	if (p->undone && !n) {
		plan->short_of_aim = false;
		plan->state = STEER_BAL_BALANCED;
	}
}

int balance_probe_round(struct balance_probe *p, const struct balance_input *in,
			const struct balance_cpu *cpu, double taken,
			__u32 *table_out, struct balance_plan *plan)
{
	int w;

	p->verdict = 0;
	p->settled = false;
	p->turned = false;
	p->undone = 0;
	/* A trial's rounds are judged whatever the round found, and they
	 * make no other move: their counts are the trial's answer, and what
	 * the plan made of them would be kept unjudged. */
	if (p->on) {
		memmove(table_out, in->table, in->size * sizeof(*table_out));
		plan->nmoves = 0;
		plan->short_of_aim = false;
		plan->state = STEER_BAL_BALANCED;
		for (w = 0; w < plan->nworkers; w++)
			plan->workers[w].after = plan->workers[w].load;
		plan->after = plan->ratio;
		/* Its way back held (a worker that cannot drain now): judged
		 * in a later round, on counts the hold did not skew. */
		if (trial_held(in, p->to, BALANCE_HOLD_SHED) ||
		    trial_held(in, p->from, BALANCE_HOLD_GAIN))
			return 0;
		return judge(p, in, taken, table_out, plan);
	}
	/* The rounds at the placement in force, since it changed; a long
	 * window starts again, so a step is judged against the recent
	 * past. */
	keep_climbed(p, in, cpu, table_out, plan);
	if (p->fresh || p->base.n >= 4 * BALANCE_CLIMB_JUDGE)
		window_close(p, &p->base);
	p->fresh = false;
	/* Not the first round: it counts from the attach, and traffic that
	 * starts with it (as the benchmarks send it) took in 0.08-0.23 of
	 * the next round's there; that pair, pooled, set the spread to
	 * 45-61 % and every step's need to 20-84 % through the settling
	 * (balance.h). */
	if (p->started)
		window_add(&p->base, taken, in->seconds);
	p->started = true;
	if (plan->nmoves) {
		p->fresh = true;
		return 0;
	}
	/* The probe begins only where no move can help, the climb where the
	 * workers are even. */
	return probe_start(p, in, cpu, table_out, plan) ||
	       climb_start(p, in, cpu, table_out, plan);
}

void balance_probe_forget(struct balance_probe *p)
{
	p->on = false;
	p->verdict = 0;
	memset(&p->trial, 0, sizeof(p->trial));
	p->from_part = 0;
}

void balance_probe_rest(const struct balance_probe *p,
			struct balance_memory *m)
{
	if (p->verdict >= 2 && p->kind == BALANCE_TRIAL_PROBE)
		m->left[p->bucket[0]] = BALANCE_PROBE_REST;
}
