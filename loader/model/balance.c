// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One round of the adaptive balancer (balance.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Whether the round may move a bucket off worker cpu ('bit'
 * BALANCE_HOLD_SHED) or onto it (BALANCE_HOLD_GAIN). */
static bool held(const struct balance_input *in, __u32 cpu, unsigned bit)
{
	return in->hold && cpu < STEER_CPU_IDS && (in->hold[cpu] & bit);
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
	if (held(r->in, r->cpu[s], BALANCE_HOLD_SHED))
		return true;
	for (w = 0; w < r->nworkers; w++)
		if (w != s && !held(r->in, r->cpu[w], BALANCE_HOLD_GAIN))
			return false;
	return true;
}

/* Whether a climb's step may not move a bucket off worker cpu ('bit'
 * BALANCE_HOLD_SHED) or onto it (BALANCE_HOLD_GAIN): it cannot drain,
 * or, once the balancer has settled, it is held (balance.h). */
static bool trial_held(const struct balance_input *in, __u32 cpu,
		       unsigned bit)
{
	return held(in, cpu, BALANCE_HOLD_STUCK) ||
	       (!in->settling && held(in, cpu, bit));
}

static bool movable(const struct round *r, __u32 b)
{
	__u32 cpu = r->table[b];

	return cpu < STEER_CPU_IDS && r->widx[cpu] >= 0 &&
	       r->in->load[b] > 0 && !(r->frozen && r->frozen[b]) &&
	       !held(r->in, cpu, BALANCE_HOLD_SHED);
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
			if (w == s || held(r->in, r->cpu[w], BALANCE_HOLD_GAIN))
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
			    held(in, r->cpu[w], BALANCE_HOLD_GAIN))
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
					    !held(in, r->cpu[k], BALANCE_HOLD_GAIN)) {
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
		    held(in, c, BALANCE_HOLD_SHED))
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
		    held(in, plan->workers[w].cpu, BALANCE_HOLD_GAIN))
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
