// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The climb's sentence in the balancer's round line (balance.h,
 * balance_climb_note()): what it tried, what it measured against what it
 * needed, and, when it settles, what each way last gave, so an operator
 * who sees a box below its ceiling can tell why it stopped there.
 */
#include <stdarg.h>
#include <stdio.h>

#include "model/balance.h"

/* snprintf() at *n in buf, which it never overruns; *n counts what
 * would have been written. */
static void add(char *buf, size_t len, int *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t len, int *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(*n >= 0 && (size_t)*n < len ? buf + *n : NULL,
		      *n >= 0 && (size_t)*n < len ? len - *n : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n += k;
}

static double bias(const struct balance_probe *p, __u32 cpu)
{
	return p->bias[cpu] > 0 ? p->bias[cpu] : 1;
}

/* "a step of 4.0 % from cpu 0 to cpu 1 gained +2.1 % in 5 rounds,
 * needed +3.0 %" */
static void way(char *buf, size_t len, int *n, const struct balance_step *s)
{
	add(buf, len, n, "a step of %.1f %% from cpu %u to cpu %u %s %+.1f %% in %d rounds, needed %+.1f %%",
	    100 * s->moved, s->from, s->to, s->kept ? "gained" : "gave",
	    100 * s->gain, s->rounds, 100 * s->need);
}

/* Why the climb settles: how long it rests, and the last step each way,
 * what it gave and what it needed. */
static void settles(char *buf, size_t len, int *n, const struct balance_probe *p)
{
	const char *sep = " ";
	int i;

	add(buf, len, n, "; settles for %d rounds, no step of %.1f %% or more gaining more than the noise:",
	    p->rest, 100 * BALANCE_CLIMB_STEP_MIN);
	for (i = 0; i < 2; i++) {
		if (!p->way[i].tried)
			continue;
		add(buf, len, n, "%s", sep);
		way(buf, len, n, &p->way[i]);
		sep = "; ";
	}
	if (!p->way[0].tried && !p->way[1].tried)
		add(buf, len, n, " no step was judged either way");
}

int balance_climb_note(const struct balance_probe *p, char *buf, size_t len)
{
	int n = 0;

	if (len)
		buf[0] = '\0';
	switch (p->verdict) {
	case 1:
		add(buf, len, &n, "climb: the workers read even and one is saturated: %d buckets (%.1f %% of the frames) tried from cpu %u on cpu %u, against %.0f frames/s taken in over %d rounds",
		    p->n, 100 * p->moved, p->from, p->to, p->before,
		    p->base.n);
		if (p->turned)
			add(buf, len, &n, "; the other way, as cpu %u carries too little for a step to cpu %u",
			    p->to, p->from);
		break;
	case 2:
	case 3:
		add(buf, len, &n, "climb: %d buckets from cpu %u to cpu %u %s: %.0f frames/s against %.0f, %+.1f %% in %d rounds, needed %+.1f %% (noise)",
		    p->n, p->from, p->to, p->verdict == 2 ? "kept" : "moved back",
		    p->after, p->before, 100 * p->gain,
		    p->way[p->from < p->to ? 0 : 1].rounds, 100 * p->need);
		if (p->verdict == 2 && p->gain < p->need)
			add(buf, len, &n, "; unproven, it stays as it gained, and the next step is half as large");
		if (p->verdict == 2)
			add(buf, len, &n, "; cpu %u's share x%.2f, cpu %u's x%.2f",
			    p->from, bias(p, p->from), p->to, bias(p, p->to));
		if (p->settled)
			settles(buf, len, &n, p);
		else if (p->verdict == 3)
			add(buf, len, &n, "; next a step of %.1f %% from cpu %u to cpu %u",
			    100 * p->step, p->next_from, p->next_to);
		break;
	case 4:
		if (p->wait == BALANCE_WAIT_HELD)
			add(buf, len, &n, "climb: waits: a step from cpu %u to cpu %u would move buckets of a worker that cannot drain, or whose load turned again",
			    p->from, p->to);
		else
			add(buf, len, &n, "climb: waits: cpu %u's buckets for a step to cpu %u cool down after a move",
			    p->from, p->to);
		break;
	case 6:
		add(buf, len, &n, "climb: cpu %u carries too little for a step of %.1f %% of the frames to cpu %u",
		    p->from, 100 * p->moved, p->to);
		if (p->settled)
			settles(buf, len, &n, p);
		else
			add(buf, len, &n, "; next a step of %.1f %% from cpu %u to cpu %u",
			    100 * p->step, p->next_from, p->next_to);
		break;
	case 5:
		add(buf, len, &n, "climb: judging %d buckets from cpu %u on cpu %u, round %d of at most %d: %+.1f %%, needs %+.1f %% either way",
		    p->n, p->from, p->to, p->trial.n, BALANCE_CLIMB_JUDGE,
		    100 * p->gain, 100 * p->need);
		break;
	}
	return n;
}
