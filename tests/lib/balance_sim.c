// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Traffic for the balancer on paper (balance_sim.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "balance_sim.h"

/* xorshift64*: fast, good enough, the same on every machine. */
static __u64 next(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dull;
}

double sim_uniform(struct sim *s)
{
	return (next(s) >> 11) * (1.0 / 9007199254740992.0);
}

double sim_normal(struct sim *s)
{
	double u = sim_uniform(s), v = sim_uniform(s);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* A bucket no elephant is in: an elephant alone in a bucket, as two
 * elephants hashing together would be another (harder) scenario. */
static __u32 pick_free(struct sim *s)
{
	__u32 b;
	int i;

	for (;;) {
		b = next(s) % s->size;
		for (i = 0; i < s->nelephants && s->elephant_bucket[i] != b; i++)
			;
		if (i == s->nelephants)
			return b;
	}
}

int sim_init(struct sim *s, __u32 size, int nworkers, const __u32 *weights,
	     const struct sim_traffic *t, __u64 seed)
{
	double mice = 1 - t->elephants * t->elephant, sum = 0, *flow;
	int i, err;

	memset(s, 0, sizeof(*s));
	if (nworkers < 1 || nworkers > STEER_CPU_IDS || t->elephants > 64 ||
	    mice < 0)
		return -EINVAL;
	s->size = size;
	s->nworkers = nworkers;
	s->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	for (i = 0; i < nworkers; i++) {
		s->cpus[i] = (struct table_cpu){ i, weights ? weights[i] : 1 };
		s->weight[i] = s->cpus[i].weight;
	}
	err = table_build(s->table, size, s->cpus, nworkers, NULL);
	if (err < 0)
		return err;
	flow = calloc(t->nflows + 1, sizeof(*flow));
	if (!flow)
		return -ENOMEM;
	for (i = 0; i < t->nflows; i++)
		sum += flow[i] = pow(i + 1, -t->zipf);
	for (i = 0; i < t->nflows; i++)
		s->load[next(s) % size] += mice * flow[i] / sum;
	free(flow);
	s->elephant = t->elephant;
	for (i = 0; i < t->elephants; i++) {
		s->elephant_bucket[i] = pick_free(s);
		s->nelephants = i + 1;
		s->load[s->elephant_bucket[i]] += t->elephant;
	}
	return 0;
}

void sim_shift(struct sim *s)
{
	int i;

	for (i = 0; i < s->nelephants; i++) {
		__u32 to = pick_free(s);
		double e = s->elephant;

		s->load[s->elephant_bucket[i]] -= e;
		s->load[to] += e;
		s->elephant_bucket[i] = to;
	}
}

void sim_measure(struct sim *s, double frames, double *out)
{
	double lambda;
	__u32 b;

	for (b = 0; b < s->size; b++) {
		lambda = s->load[b] * frames;
		out[b] = frames > 0 ? lambda + sqrt(lambda) * sim_normal(s) :
				      s->load[b];
		if (out[b] < 0)
			out[b] = 0;
	}
}

double sim_ratio(const struct sim *s, const double *load)
{
	double per[STEER_CPU_IDS] = { 0 }, total = 0, weights = 0, worst = 0;
	__u32 b;
	int c;

	if (!load)
		load = s->load;
	for (b = 0; b < s->size; b++) {
		per[s->table[b]] += load[b];
		total += load[b];
	}
	for (c = 0; c < s->nworkers; c++)
		weights += s->weight[c];
	for (c = 0; c < s->nworkers; c++)
		if (per[c] / (s->weight[c] / weights * total) > worst)
			worst = per[c] / (s->weight[c] / weights * total);
	return worst;
}

int sim_balance(struct sim *s, struct balance_memory *mem, double tolerance,
		int max_moves, double frames, int max_rounds, bool all,
		struct sim_run *run)
{
	double load[STEER_TABLE_MAX];
	struct balance_plan *plan = malloc(sizeof(*plan));
	struct balance_input in = {
		.size = s->size, .table = s->table, .weight = s->weight,
		.load = load, .frozen = mem->left, .tolerance = tolerance,
		.max_moves = max_moves,
	};
	int quiet = 0, err = 0;

	memset(run, 0, sizeof(*run));
	if (!plan)
		return -ENOMEM;
	while (all || quiet <= BALANCE_COOLDOWN) {
		if (run->rounds == max_rounds) {
			err = all ? 0 : -ETIMEDOUT;
			break;
		}
		sim_measure(s, frames, load);
		/* A frame is one unit of load here: the counts are frames. */
		in.frames = frames > 0 ? load : NULL;
		in.going = mem->going;
		err = balance_plan(&in, s->table, plan);
		if (err)
			break;
		balance_remember(mem, plan, false);
		run->rounds++;
		run->moves += plan->nmoves;
		if (plan->nmoves > run->most)
			run->most = plan->nmoves;
		run->state = plan->state;
		run->bound = plan->bound;
		quiet = plan->nmoves ? 0 : quiet + 1;
	}
	free(plan);
	return err;
}
