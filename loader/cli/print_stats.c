// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/json.h"
#include "cli/print_stats.h"

/* Names and offsets of struct steer_stats, from its one list. */
static const struct {
	const char *name;
	size_t off;
} fields[] = {
#define FIELD_(name, kind, help) { #name, offsetof(struct steer_stats, name) },
	STEER_STATS_FIELDS(FIELD_)
#undef FIELD_
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static __u64 field(const struct steer_stats *s, size_t i)
{
	return *(const __u64 *)((const char *)s + fields[i].off);
}

void print_stats_json(const char *ifname, const struct steer_sample *s)
{
	size_t i;
	int c, first;

	printf("{\"ifname\": ");
	json_str(stdout, ifname);
	printf(", \"totals\": {");
	for (i = 0; i < NFIELDS; i++)
		printf("%s\"%s\": %llu", i ? ", " : "", fields[i].name,
		       (unsigned long long)field(&s->total, i));
	printf("}, \"rx_cpus\": [");
	for (c = 0, first = 1; c < s->ncpus; c++) {
		if (!s->rx[c].rx_packets)
			continue;
		printf("%s{\"cpu\": %d", first ? "" : ", ", c);
		for (i = 0; i < NFIELDS; i++)
			printf(", \"%s\": %llu", fields[i].name,
			       (unsigned long long)field(&s->rx[c], i));
		printf("}");
		first = 0;
	}
	printf("], \"workers\": [");
	for (c = 0, first = 1; c < STEER_MAX_CPUS; c++) {
		__u64 dp = c < s->ncpus ? s->deq[c].packets : 0;
		__u64 db = c < s->ncpus ? s->deq[c].bytes : 0;

		if (!s->queued[c].packets && !dp)
			continue;
		printf("%s{\"cpu\": %d, \"queued_packets\": %llu, \"queued_bytes\": %llu, \"dequeued_packets\": %llu, \"dequeued_bytes\": %llu}",
		       first ? "" : ", ", c,
		       (unsigned long long)s->queued[c].packets,
		       (unsigned long long)s->queued[c].bytes,
		       (unsigned long long)dp, (unsigned long long)db);
		first = 0;
	}
	printf("]}\n");
}

static double rate(__u64 now, __u64 before, double dt)
{
	return now >= before && dt > 0 ? (now - before) / dt : 0;
}

static void rx_row(const char *pad, const char *label,
		   const struct steer_stats *x, const struct steer_stats *y,
		   double dt)
{
	printf("%s  %-10s %12.0f %12.0f %12.0f %10.0f %10.0f %10.0f\n", pad,
	       label, rate(y->rx_packets, x->rx_packets, dt),
	       rate(y->redirected, x->redirected, dt),
	       rate(y->passed_local, x->passed_local, dt),
	       rate(y->passed_nonip, x->passed_nonip, dt),
	       rate(y->passed_parse_error, x->passed_parse_error, dt),
	       rate(y->passed_no_target + y->passed_no_policy,
		    x->passed_no_target + x->passed_no_policy, dt));
}

void print_stats_rates(const char *ifname, const struct steer_sample *a,
		       const struct steer_sample *b)
{
	char pad[64], label[16];
	double dt = b->t - a->t;
	int c;

	snprintf(pad, sizeof(pad), "%*s", (int)strlen(ifname), "");
	printf("%s  %-10s %12s %12s %12s %10s %10s %10s\n", ifname, "rx CPU",
	       "rx pps", "redirect/s", "local/s", "non-IP/s", "errors/s",
	       "fallback/s");
	for (c = 0; c < b->ncpus; c++) {
		if (b->rx[c].rx_packets == a->rx[c].rx_packets)
			continue;
		snprintf(label, sizeof(label), "%d", c);
		rx_row(pad, label, &a->rx[c], &b->rx[c], dt);
	}
	rx_row(pad, "total", &a->total, &b->total, dt);
	printf("%s  %-10s %12s %12s %12s\n", pad, "worker CPU", "queued pps",
	       "dequeued pps", "Mbit/s");
	for (c = 0; c < STEER_MAX_CPUS; c++) {
		__u64 dy = c < b->ncpus ? b->deq[c].packets : 0;
		__u64 dx = c < a->ncpus ? a->deq[c].packets : 0;
		__u64 by = c < b->ncpus ? b->deq[c].bytes : 0;
		__u64 bx = c < a->ncpus ? a->deq[c].bytes : 0;

		if (b->queued[c].packets == a->queued[c].packets && dy == dx)
			continue;
		printf("%s  %-10d %12.0f %12.0f %12.1f\n", pad, c,
		       rate(b->queued[c].packets, a->queued[c].packets, dt),
		       rate(dy, dx, dt), rate(by, bx, dt) * 8 / 1e6);
	}
	printf("\n");
	fflush(stdout);
}
