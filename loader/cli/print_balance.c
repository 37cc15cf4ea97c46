// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A balancer round as a line of text or JSON, and the balancer's part of
 * `status`: see print_balance.h. */
#include <stdio.h>
#include <time.h>

#include "cli/json.h"
#include "cli/print_balance.h"

/* Moves listed in a text line, at most; the JSON has all of them. */
#define MOVES_SHOWN	8

static double share(const struct balance_plan *p, double load)
{
	return p->total > 0 ? load / p->total : 0;
}

static void moves_text(const struct balance_plan *p)
{
	int i;

	for (i = 0; i < p->nmoves && i < MOVES_SHOWN; i++)
		printf("%s%u %u->%u %.1f%%", i ? ", " : " (",
		       p->moves[i].bucket, p->moves[i].from, p->moves[i].to,
		       100 * share(p, p->moves[i].load));
	if (p->nmoves > MOVES_SHOWN)
		printf(", %d more", p->nmoves - MOVES_SHOWN);
	if (p->nmoves)
		printf(")");
}

/* By CPU time: how busy each worker was, and what its ring dropped on top
 * ("cpu time 0 100%, 1 93%+12%"). */
static void busy_text(const struct balance_plan *p,
		      const struct balance_cpu *cpu)
{
	const struct balance_cpu *c;
	double over;
	int i;

	if (!cpu)
		return;
	printf("; cpu time");
	for (i = 0; i < p->nworkers; i++) {
		c = &cpu[p->workers[i].cpu];
		over = balance_demand(c) - c->busy;
		printf("%s %u %.0f%%", i ? "," : "", p->workers[i].cpu,
		       100 * c->busy);
		if (over > 0.005)
			printf("+%.0f%%", 100 * over);
	}
}

/* The workers a round may not move buckets off or onto, and why
 * ("; held: cpu 1 cannot drain (...), cpu 0 turned again (...)"). */
static void hold_text(const struct balance_plan *p,
		      const struct steer_balance_round *r)
{
	const char *sep = "; held:";
	__u32 c;
	int i;

	if (!r->hold)
		return;
	for (i = 0; i < p->nworkers; i++) {
		c = p->workers[i].cpu;
		if (r->stuck && r->stuck[c])
			printf("%s cpu %u cannot drain (its kthread takes nothing off its ring)",
			       sep, c);
		else if (r->hold[c] & BALANCE_HOLD_DRAINING)
			printf("%s cpu %u has buckets still draining %s it (its counts do not show them moved yet)",
			       sep, c,
			       r->hold[c] & BALANCE_HOLD_SHED ? "off" : "onto");
		else if (r->hold[c])
			printf("%s cpu %u turned again (its load comes and goes: left alone for its backoff)",
			       sep, c);
		else
			continue;
		sep = ",";
	}
}

void print_balance_text(const char *ifname, const struct steer_balance_round *r)
{
	const struct balance_plan *p = r->plan;
	const struct steer_slot *s = &r->slot;

	printf("%s: round %u: ", ifname, r->round);
	/* "moved 4 buckets", "would move 4 buckets", else the state. */
	if (p && p->nmoves && (r->applied || r->dry_run))
		printf("%s %d bucket%s", r->applied ? "moved" : "would move",
		       p->nmoves, p->nmoves == 1 ? "" : "s");
	else if (p && p->nmoves)
		printf("%s, %d bucket%s planned", balance_state_word(r->state),
		       p->nmoves, p->nmoves == 1 ? "" : "s");
	else
		printf("%s", balance_state_word(r->state));
	if (p && p->total > 0) {
		moves_text(p);
		printf("; busiest cpu %u at %.2f of its share", p->busiest,
		       p->ratio);
		if (p->nmoves)
			printf(", %.2f after", p->after);
		printf(" (tolerance %u %%)", s->balance_tolerance);
		busy_text(p, r->cpu);
		if (r->state == STEER_BAL_BEST && p->bound > 1 + s->balance_tolerance / 100.0)
			printf("; bucket %u alone is %.2f of a share",
			       p->bound_bucket, p->bound);
		printf("; %.0f frames/s", r->frames);
		hold_text(p, r);
	} else if (r->state == STEER_BAL_OFF) {
		printf(": %s", balance_state_text(r->state));
	}
	if (r->note[0])
		printf(": %s", r->note);
	if (r->applied)
		printf("; generation %u -> %u", r->generation, r->applied);
	else if (r->generation)
		printf("; generation %u", r->generation);
	printf("; %d move%s in the last minute\n", r->minute_moves,
	       r->minute_moves == 1 ? "" : "s");
	fflush(stdout);
}

void print_balance_json(const char *ifname, const struct steer_balance_round *r)
{
	const struct balance_plan *p = r->plan;
	const struct steer_slot *s = &r->slot;
	int i;

	printf("{\"ifname\": ");
	json_str(stdout, ifname);
	printf(", \"round\": %u, \"time\": %.3f, \"seconds\": %.3f, \"state\": \"%s\", \"dry_run\": %s, \"generation\": %u, \"applied\": %u",
	       r->round, r->t, r->seconds, balance_state_word(r->state),
	       r->dry_run ? "true" : "false", r->generation, r->applied);
	printf(", \"by\": \"%s\", \"interval_ms\": %u, \"tolerance\": %u, \"max_moves\": %u, \"frames_per_s\": %.0f",
	       s->flags & STEER_F_BALANCE_FRAMES ? "frames" : "cpu",
	       s->balance_ms, s->balance_tolerance, s->balance_max_moves,
	       r->frames);
	if (p) {
		printf(", \"busiest\": %u, \"ratio\": %.4f, \"after\": %.4f, \"bound\": %.4f, \"bound_bucket\": %u, \"workers\": [",
		       p->busiest, p->ratio, p->after, p->bound,
		       p->bound_bucket);
		for (i = 0; i < p->nworkers; i++) {
			printf("%s{\"cpu\": %u, \"weight_share\": %.4f, \"share\": %.4f, \"after\": %.4f, \"buckets\": %u",
			       i ? ", " : "", p->workers[i].cpu,
			       p->workers[i].share,
			       share(p, p->workers[i].load),
			       share(p, p->workers[i].after),
			       p->workers[i].buckets);
			if (r->cpu)
				printf(", \"busy\": %.4f, \"demand\": %.4f, \"ring_dropped\": %.0f, \"sent_per_s\": %.0f",
				       r->cpu[p->workers[i].cpu].busy,
				       balance_demand(&r->cpu[p->workers[i].cpu]),
				       r->cpu[p->workers[i].cpu].dropped,
				       r->cpu[p->workers[i].cpu].sent /
					       (r->seconds > 0 ? r->seconds : 1));
			if (r->hold)
				printf(", \"cannot_drain\": %s, \"sheds_none\": %s, \"gains_none\": %s, \"drain_held\": %s",
				       r->stuck && r->stuck[p->workers[i].cpu] ? "true" : "false",
				       r->hold[p->workers[i].cpu] & BALANCE_HOLD_SHED ? "true" : "false",
				       r->hold[p->workers[i].cpu] & BALANCE_HOLD_GAIN ? "true" : "false",
				       r->hold[p->workers[i].cpu] & BALANCE_HOLD_DRAINING ? "true" : "false");
			printf("}");
		}
		printf("], \"moves\": [");
		for (i = 0; i < p->nmoves; i++)
			printf("%s{\"bucket\": %u, \"from\": %u, \"to\": %u, \"share\": %.4f}",
			       i ? ", " : "", p->moves[i].bucket,
			       p->moves[i].from, p->moves[i].to,
			       share(p, p->moves[i].load));
		printf("]");
	} else {
		/* No plan (off, idle before a count, stale): the same keys,
		 * so a reader need not test for each. */
		printf(", \"busiest\": null, \"ratio\": null, \"after\": null, \"bound\": null, \"bound_bucket\": null, \"workers\": [], \"moves\": []");
	}
	printf(", \"minute_moves\": %d, \"note\": ", r->minute_moves);
	json_str(stdout, r->note);
	printf("}\n");
	fflush(stdout);
}

/* Seconds since a CLOCK_REALTIME stamp in ns. */
static double age(__u64 ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9 - ns / 1e9;
}

void print_balance_status_text(const struct steer_status *st)
{
	const struct steer_slot *s = &st->view.slot;
	const struct steer_balance *b = &st->balance.rec;

	printf("  balance: ");
	if (!(s->flags & STEER_F_BALANCE))
		printf("off");
	else
		printf("by %s, every %u ms, tolerance %u %%, at most %u moves a round",
		       s->flags & STEER_F_BALANCE_FRAMES ? "frames" : "cpu time",
		       s->balance_ms, s->balance_tolerance,
		       s->balance_max_moves);
	if (!b->pid) {
		printf("; no balancer has run here%s\n",
		       s->flags & STEER_F_BALANCE ?
		       " (start one: 'xdp-steer balance IFACE', or the unit xdp-steer-balance@IFACE)" : "");
		return;
	}
	printf("; balancer pid %u %s", b->pid,
	       st->balance.running ? "running" : "not running");
	if (b->rounds)
		printf(", round %u %.0f s ago: %s, busiest cpu %u at %.2f of its share (%.2f after its moves), %u bucket%s moved in it, %u since it started",
		       b->rounds, age(b->last_ns), balance_state_word(b->state),
		       b->busiest, b->ratio_pm / 1000.0, b->after_pm / 1000.0,
		       b->last_moves, b->last_moves == 1 ? "" : "s", b->moves);
	printf("\n");
}

void print_balance_status_json(const struct steer_status *st)
{
	const struct steer_slot *s = &st->view.slot;
	const struct steer_balance *b = &st->balance.rec;

	printf(", \"balance\": {\"enabled\": %s, \"by\": \"%s\", \"interval_ms\": %u, \"tolerance\": %u, \"max_moves\": %u, \"running\": %s, \"pid\": %u, \"rounds\": %u, \"moves\": %u, \"last_moves\": %u, \"state\": \"%s\", \"busiest\": %u, \"ratio\": %.3f, \"after\": %.3f, \"seen_generation\": %u, \"age_s\": %.1f}",
	       s->flags & STEER_F_BALANCE ? "true" : "false",
	       s->flags & STEER_F_BALANCE_FRAMES ? "frames" : "cpu",
	       s->balance_ms,
	       s->balance_tolerance, s->balance_max_moves,
	       st->balance.running ? "true" : "false", b->pid, b->rounds,
	       b->moves, b->last_moves, balance_state_word(b->state),
	       b->busiest, b->ratio_pm / 1000.0, b->after_pm / 1000.0,
	       b->generation, b->last_ns ? age(b->last_ns) : -1.0);
}
