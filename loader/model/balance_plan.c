// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One round of the adaptive balancer by its estimates (balance.h): the
 * plan that evens the workers' loads, and what the rounds remember
 * between them; the trials that test the box are balance_trial.c's. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/balance.h"
#include "model/balance.h"

static const char *const state_words[] = {
#define WORD_(name, word, help) word,
	STEER_BAL_STATES(WORD_)
#undef WORD_
};
static const char *const state_texts[] = {
#define TEXT_(name, word, help) help,
	STEER_BAL_STATES(TEXT_)
#undef TEXT_
};

const char *balance_state_word(int state)
{
	return state >= 0 && state < STEER_BAL_NSTATES ? state_words[state] :
							  "unknown";
}

const char *balance_state_text(int state)
{
	return state >= 0 && state < STEER_BAL_NSTATES ? state_texts[state] :
							  "unknown state";
}

/* The round's working state: per worker, its load now and its target. */
struct round {
	const struct balance_input *in;
	__u32 *table;
	unsigned char *frozen;
	int widx[STEER_CPU_IDS];	/* CPU -> worker, -1: none */
	double load[STEER_CPU_IDS];	/* by worker */
	double frames[STEER_CPU_IDS];	/* by worker, counted */
	double target[STEER_CPU_IDS];	/* share * total, > 0 */
	int nworkers;
	__u32 cpu[STEER_CPU_IDS];
};

static double ratio(const struct round *r, int w)
{
	return r->load[w] / r->target[w];
}

static int busiest(const struct round *r)
{
	int w, best = 0;

	for (w = 1; w < r->nworkers; w++)
		if (ratio(r, w) > ratio(r, best))
			best = w;
	return best;
}

/* Worker cpu's weight in its share: its weight times its bias. */
static double weight_of(const struct balance_input *in, __u32 cpu)
{
	double b = in->bias ? in->bias[cpu] : 0;

	return in->weight[cpu] * (b > 0 ? b : 1);
}

static double fixed_of(const struct balance_input *in, __u32 cpu)
{
	return in->fixed ? in->fixed[cpu] : 0;
}

/* The lowest ratio a bucket or a worker's fixed load can have anywhere,
 * highest over all of them: no placement does better. */
static void lower_bound(const struct round *r, struct balance_plan *plan)
{
	const struct balance_input *in = r->in;
	double best, x;
	__u32 b;
	int w;

	plan->bound = 1;
	for (w = 0; w < r->nworkers; w++) {
		x = fixed_of(in, r->cpu[w]) / r->target[w];
		if (x > plan->bound)
			plan->bound = x;
	}
	for (b = 0; b < in->size; b++) {
		if (in->table[b] >= STEER_CPU_IDS ||
		    r->widx[in->table[b]] < 0)
			continue;
		best = -1;
		for (w = 0; w < r->nworkers; w++) {
			x = (fixed_of(in, r->cpu[w]) + in->load[b]) /
			    r->target[w];
			if (best < 0 || x < best)
				best = x;
		}
		if (best > plan->bound) {
			plan->bound = best;
			plan->bound_bucket = b;
		}
	}
}

/* The relative standard deviation of a count of n frames (Poisson). */
static double noise(double n)
{
	return n > 0 ? 1 / sqrt(n) : 1;
}

/* Bucket b's load, BALANCE_SIGMAS deviations low: what its count
 * proves at least. */
static double proven(const struct round *r, __u32 b)
{
	double low;

	if (!r->in->frames)
		return r->in->load[b];
	low = 1 - BALANCE_SIGMAS * noise(r->in->frames[b]);
	return low > 0 ? r->in->load[b] * low : 0;
}

/* The ratio over which worker w's load is proven over its share: the
 * counts' noise (BALANCE_SIGMAS deviations), and by CPU time the tick a
 * busy share may be off by (a bound, not a deviation: each reading of
 * /proc/stat cuts at a whole tick). */
static double over(const struct round *r, int w)
{
	double n = r->in->frames ? noise(r->frames[w]) : 0, tick = 0;

	if (r->in->ticks > 0 && r->load[w] > 0)
		tick = 1 / (r->load[w] * r->in->ticks);
	return 1 + r->in->tolerance + BALANCE_SIGMAS * n + tick;
}

/* Whether the holds alone left busiest worker 's' as it is: it may not
 * shed, or no other worker may gain. */
static bool held_out(const struct round *r, int s)
{
	int w;

	if (!r->in->hold || r->nworkers < 2)
		return false;
	if (balance_held(r->in, r->cpu[s], BALANCE_HOLD_SHED))
		return true;
	for (w = 0; w < r->nworkers; w++)
		if (w != s && !balance_held(r->in, r->cpu[w], BALANCE_HOLD_GAIN))
			return false;
	return true;
}

static bool movable(const struct round *r, __u32 b)
{
	__u32 cpu = r->table[b];

	return cpu < STEER_CPU_IDS && r->widx[cpu] >= 0 &&
	       r->in->load[b] > 0 && !(r->frozen && r->frozen[b]) &&
	       !balance_held(r->in, cpu, BALANCE_HOLD_SHED);
}

struct move {
	__u32 bucket;
	int to;			/* worker */
	double value;		/* the higher of the two ratios after it */
};

/* The move that best evens the busiest worker 's' out, or false: the one
 * that leaves the higher of the two workers' ratios lowest, of a bucket
 * proven to carry at least 'gain' of s's share. */
static bool best_move(const struct round *r, int s, double gain,
		      struct move *best)
{
	const double *load = r->in->load;
	double vs, vw, v;
	__u32 b;
	int w;

	best->value = ratio(r, s);
	best->to = -1;
	for (b = 0; b < r->in->size; b++) {
		if (!movable(r, b) || r->widx[r->table[b]] != s ||
		    proven(r, b) <= gain * r->target[s])
			continue;
		vs = (r->load[s] - load[b]) / r->target[s];
		for (w = 0; w < r->nworkers; w++) {
			if (w == s || balance_held(r->in, r->cpu[w], BALANCE_HOLD_GAIN))
				continue;
			vw = (r->load[w] + load[b]) / r->target[w];
			v = vs > vw ? vs : vw;
			/* And it must gain at least half of what the bucket
			 * weighs on s: an elephant that would only trade
			 * places (a worker's whole load, the other idle)
			 * gains a hair, from what s carries besides. */
			if (v < best->value &&
			    ratio(r, s) - v >= load[b] / (2 * r->target[s]))
				*best = (struct move){ b, w, v };
		}
	}
	return best->to >= 0;
}

static void do_move(struct round *r, struct balance_plan *plan, __u32 b,
		    int to)
{
	const struct balance_input *in = r->in;
	int from = r->widx[r->table[b]];

	plan->moves[plan->nmoves++] = (struct balance_move){
		b, r->cpu[from], r->cpu[to], in->load[b] };
	r->table[b] = r->cpu[to];
	r->frozen[b] = 1;
	r->load[from] -= in->load[b];
	r->load[to] += in->load[b];
}

/* Buckets of the busiest worker make_room() tries, heaviest first. */
#define ROOM_TRIES	4

/* The heaviest movable bucket of worker w proven over 'floor' and not
 * in 'skip' (n of them), or size for none. */
static __u32 heaviest(const struct round *r, int w, double floor,
		      const __u32 *skip, int n)
{
	const double *load = r->in->load;
	__u32 b, best = r->in->size;
	int i;

	for (b = 0; b < r->in->size; b++) {
		if (!movable(r, b) || r->widx[r->table[b]] != w ||
		    proven(r, b) <= floor)
			continue;
		for (i = 0; i < n && skip[i] != b; i++)
			;
		if (i == n && (best == r->in->size || load[b] > load[best]))
			best = b;
	}
	return best;
}

/*
 * A move the busiest worker s cannot make directly, because every other
 * worker would end above where s is (an elephant near a share's size,
 * once the rest is even): worker w first hands some of its own buckets to
 * others, none of which ends over 'goal', then takes one of s's heaviest
 * buckets, ending at most at 'goal' itself. The first such chain that
 * fits in the round's moves is made. False when none does.
 */
static bool make_room(struct round *r, struct balance_plan *plan, int s,
		      double gain)
{
	const struct balance_input *in = r->in;
	double excess = ratio(r, s) - 1, goal, tmp[STEER_CPU_IDS], need, v, x;
	__u32 tried[ROOM_TRIES], shed[STEER_TABLE_MAX], b, c;
	int to[STEER_TABLE_MAX], t, w, k, n, best, left;

	goal = ratio(r, s) - (excess / 2 > gain ? excess / 2 : gain);
	left = in->max_moves - plan->nmoves;
	for (t = 0; t < ROOM_TRIES; t++) {
		b = heaviest(r, s, gain * r->target[s], tried, t);
		if (b == in->size)
			break;
		tried[t] = b;
		for (w = 0; w < r->nworkers; w++) {
			need = r->load[w] + in->load[b] - goal * r->target[w];
			if (w == s || need <= 0 ||
			    balance_held(in, r->cpu[w], BALANCE_HOLD_GAIN))
				continue;
			memcpy(tmp, r->load, sizeof(tmp));
			for (n = 0; need > 0 && n + 1 < left; n++) {
				c = heaviest(r, w, 0, shed, n);
				if (c == in->size)
					break;
				shed[n] = c;
				/* Where c fits best, under the goal. */
				for (k = 0, best = -1, x = goal; k < r->nworkers; k++) {
					v = (tmp[k] + in->load[c]) / r->target[k];
					if (k != s && k != w && v <= x &&
					    !balance_held(in, r->cpu[k], BALANCE_HOLD_GAIN)) {
						best = k;
						x = v;
					}
				}
				/* Where it fits nowhere, it stays on w: shed[n]
				 * keeps it from being tried again, to[n] < 0
				 * from being moved. */
				to[n] = best;
				if (best < 0)
					continue;
				tmp[best] += in->load[c];
				need -= in->load[c];
			}
			if (need > 0)
				continue;
			for (k = 0; k < n; k++)
				if (to[k] >= 0)
					do_move(r, plan, shed[k], to[k]);
			do_move(r, plan, b, w);
			return true;
		}
	}
	return false;
}

/* Moves buckets while the busiest worker is above its aim. */
static void even_out(struct round *r, struct balance_plan *plan)
{
	const struct balance_input *in = r->in;
	double aim = 1 + in->tolerance / 2, gain = in->tolerance / 100;
	bool halfway = false;
	struct move m;
	int s;

	/* Halfway: a load that answers the moves (see balance_input) is
	 * approached, not jumped at; the next round goes on (going), now
	 * measured after these moves. */
	if (in->halfway && 1 + (plan->ratio - 1) / 2 > aim) {
		aim = 1 + (plan->ratio - 1) / 2;
		halfway = true;
	}

	for (;;) {
		s = busiest(r);
		if (ratio(r, s) <= aim)
			break;
		if (plan->nmoves == in->max_moves) {
			plan->short_of_aim = true;
			break;
		}
		if (best_move(r, s, gain, &m))
			do_move(r, plan, m.bucket, m.to);
		else if (!make_room(r, plan, s, gain))
			break;
	}
	if (halfway && plan->nmoves)
		plan->short_of_aim = true;
}

static int is_pow2(__u32 n)
{
	return n && !(n & (n - 1));
}

/* In phases: the workers (the CPUs with a weight) and their loads,
 * fixed load and then their buckets'; IDLE when no bucket carried a
 * frame (busy CPUs are then not the table's doing); each worker's
 * target, its weight's share, and the bound no placement beats; then
 * moves (even_out()) only when the busiest is past the floor and proven
 * over its share (over(): the tolerance and the counts' noise, half the
 * tolerance less while an earlier round's moves go on). table_out
 * starts as in->table, copied by memmove: they may be one array. */
int balance_plan(const struct balance_input *in, __u32 *table_out,
		 struct balance_plan *plan)
{
	struct round *r;
	double total = 0, weights = 0;
	__u32 b, cpu;
	int w;

	if (!in->table || !in->load || !in->weight || !is_pow2(in->size) ||
	    in->size > STEER_TABLE_MAX)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->frozen = calloc(in->size, 1);
	if (!r->frozen) {
		free(r);
		return -ENOMEM;
	}
	if (in->frozen)
		memcpy(r->frozen, in->frozen, in->size);
	memset(plan, 0, sizeof(*plan));
	memmove(table_out, in->table, in->size * sizeof(*table_out));
	r->in = in;
	r->table = table_out;
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		r->widx[cpu] = -1;

	/* Workers: the CPUs with a weight; their buckets' load. */
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++) {
		if (!in->weight[cpu])
			continue;
		r->widx[cpu] = r->nworkers;
		r->cpu[r->nworkers] = cpu;
		plan->workers[r->nworkers].cpu = cpu;
		r->load[r->nworkers] = fixed_of(in, cpu);
		weights += weight_of(in, cpu);
		r->nworkers++;
	}
	for (b = 0; b < in->size; b++) {
		cpu = in->table[b];
		if (cpu >= STEER_CPU_IDS || r->widx[cpu] < 0)
			continue;
		w = r->widx[cpu];
		plan->workers[w].buckets++;
		r->load[w] += in->load[b];
		r->frames[w] += in->frames ? in->frames[b] : 0;
	}
	for (w = 0; w < r->nworkers; w++)
		total += r->load[w];
	plan->nworkers = r->nworkers;
	plan->total = total;
	plan->state = STEER_BAL_IDLE;
	/* No frame went by the table: busy CPUs (by CPU time) are not
	 * its doing, and nothing could move. */
	for (b = 0; b < in->size && in->load[b] <= 0; b++)
		;
	if (total <= 0 || !r->nworkers || b == in->size)
		goto out;

	for (w = 0; w < r->nworkers; w++) {
		plan->workers[w].share = weight_of(in, r->cpu[w]) / weights;
		plan->workers[w].load = r->load[w];
		r->target[w] = plan->workers[w].share * total;
	}
	lower_bound(r, plan);
	w = busiest(r);
	plan->busiest = r->cpu[w];
	plan->ratio = ratio(r, w);
	plan->state = STEER_BAL_BALANCED;
	if (r->load[w] >= in->floor &&
	    plan->ratio > over(r, w) - (in->going ? in->tolerance / 2 : 0)) {
		even_out(r, plan);
		plan->state = plan->nmoves ? STEER_BAL_MOVED :
			      held_out(r, w) ? STEER_BAL_HELD : STEER_BAL_BEST;
	}
	for (w = 0; w < r->nworkers; w++)
		plan->workers[w].after = r->load[w];
	plan->after = ratio(r, busiest(r));
out:
	free(r->frozen);
	free(r);
	return 0;
}

double balance_demand(const struct balance_cpu *c)
{
	double kept = c->sent - c->dropped;

	if (c->dropped <= 0 || c->sent <= 0)
		return c->busy;
	if (kept <= c->sent / BALANCE_DEMAND_MAX)
		return c->busy * BALANCE_DEMAND_MAX;
	return c->busy * c->sent / kept;
}

void balance_cpu_loads(__u32 size, const __u32 *table, const __u32 *weight,
		       const struct balance_cpu *cpu, const double *cost,
		       const double *other, double *load, double *fixed)
{
	double carried[STEER_CPU_IDS], scale[STEER_CPU_IDS], demand;
	__u32 b, c;

	for (c = 0; c < STEER_CPU_IDS; c++)
		carried[c] = weight[c] && other ? other[c] : 0;
	for (b = 0; b < size; b++)
		if (table[b] < STEER_CPU_IDS && weight[table[b]])
			carried[table[b]] += cost[b];
	for (c = 0; c < STEER_CPU_IDS; c++) {
		demand = weight[c] ? balance_demand(&cpu[c]) : 0;
		scale[c] = carried[c] > 0 ? demand / carried[c] : 0;
		fixed[c] = !weight[c] ? 0 :
			   carried[c] > 0 ? (other ? other[c] : 0) * scale[c] :
			   demand;
	}
	for (b = 0; b < size; b++)
		load[b] = table[b] < STEER_CPU_IDS ?
			  cost[b] * scale[table[b]] : 0;
}

/* Worker cpu's load moved one way this round ('at', the round + 1 it
 * last did; 'other', the other way's): a move within twice its backoff
 * of one the other way is a turn. A turn after another, not yet calmed
 * down, holds it both ways for its backoff, doubled. */
static void went(struct balance_memory *m, __u32 cpu, __u32 *at,
		 const __u32 *other)
{
	__u32 b = m->backoff[cpu] ? m->backoff[cpu] : BALANCE_BACKOFF_MIN;

	/* An earlier round's: a round that makes room both sheds and
	 * gains on a worker, no turn. */
	if (other[cpu] && other[cpu] > at[cpu] && other[cpu] <= m->round &&
	    m->round + 1 - other[cpu] <= 2 * b) {
		if (m->backoff[cpu]) {
			b = 2 * b < BALANCE_BACKOFF_MAX ? 2 * b :
							  BALANCE_BACKOFF_MAX;
			m->held_until[cpu] = m->round + 1 + b;
		}
		m->backoff[cpu] = b;
		m->turned_at[cpu] = m->round + 1;
	}
	at[cpu] = m->round + 1;
}

void balance_remember(struct balance_memory *m, const struct balance_plan *p,
		      bool trial)
{
	__u32 cpu, b;
	int i;

	for (i = 0; i < STEER_TABLE_MAX; i++)
		if (m->left[i])
			m->left[i]--;
	for (i = 0; i < p->nmoves; i++)
		m->left[p->moves[i].bucket] = BALANCE_COOLDOWN;
	m->going = p->short_of_aim;
	for (i = 0; !trial && i < p->nmoves; i++) {
		if (p->moves[i].from < STEER_CPU_IDS)
			went(m, p->moves[i].from, m->shed_at, m->gained_at);
		if (p->moves[i].to < STEER_CPU_IDS)
			went(m, p->moves[i].to, m->gained_at, m->shed_at);
	}
	/* Calm for BALANCE_BACKOFF_CALM backoffs since its last turn:
	 * halved, and forgotten below BALANCE_BACKOFF_MIN. */
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++) {
		b = m->backoff[cpu];
		if (b && m->round + 1 - m->turned_at[cpu] >=
			 BALANCE_BACKOFF_CALM * b) {
			m->backoff[cpu] = b / 2 >= BALANCE_BACKOFF_MIN ?
					  b / 2 : 0;
			m->turned_at[cpu] = m->round + 1;
		}
	}
	m->round++;
}

void balance_hold_draining(const __u32 *table, __u32 size,
			   const __u16 *drain_from, unsigned char *hold)
{
	__u32 b, from;

	for (b = 0; b < size && b < STEER_TABLE_MAX; b++) {
		if (!drain_from[b])
			continue;
		/* Draining to where it was (moved back before its drain was
		 * done), or to a target the maps do not hold: no way. */
		from = drain_from[b] - 1;
		if (from >= STEER_CPU_IDS || table[b] >= STEER_CPU_IDS ||
		    from == table[b])
			continue;
		hold[from] |= BALANCE_HOLD_SHED | BALANCE_HOLD_DRAINING;
		hold[table[b]] |= BALANCE_HOLD_GAIN | BALANCE_HOLD_DRAINING;
	}
}

bool balance_settle(struct balance_memory *m, const struct balance_plan *plan,
		    const struct balance_probe *p)
{
	if (m->calm)
		return false;
	m->quiet = plan->nmoves || (p && p->on) ? 0 : m->quiet + 1;
	m->calm = m->quiet >= BALANCE_SETTLE_QUIET || (p && p->calm) ||
		  m->round >= BALANCE_SETTLE_MAX;
	return !m->calm;
}

unsigned balance_round_ms(const struct balance_memory *m, unsigned interval)
{
	return !m->calm && interval > BALANCE_SETTLE_MS ? BALANCE_SETTLE_MS :
							  interval;
}

int balance_round_moves(const struct balance_memory *m, int max_moves)
{
	long n = (long)max_moves * BALANCE_SETTLE_MOVES;

	if (m->calm)
		return max_moves;
	return n < STEER_TABLE_MAX ? (int)n : STEER_TABLE_MAX;
}

void balance_hold(const struct balance_memory *m, unsigned char *hold)
{
	__u32 cpu;

	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		hold[cpu] = m->held_until[cpu] > m->round ?
			    BALANCE_HOLD_SHED | BALANCE_HOLD_GAIN : 0;
}
