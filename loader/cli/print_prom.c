// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * print_prom.c - the counters in the Prometheus text format. Every
 * counter is a counter named xdp_steer_<field>_total, so rate() works on
 * it; a family's samples follow its HELP and TYPE lines, as the format
 * requires. Every series that may count is there from the first scrape,
 * at 0, as Prometheus asks, so rate() and absent() work from the start:
 * each online CPU's as a receiving CPU (any may receive), each worker the
 * policy in force sends to, and any other CPU once it has counted. A
 * series, once there, stays until the detach (counters never go back)
 * unless its CPU goes offline, or leaves the policy, before it counted.
 */
#include <stddef.h>

#include "cli/print_prom.h"

#define PREFIX "xdp_steer_"

/* steer_stats, per receiving CPU, from its one list. */
static const struct {
	const char *name;
	const char *help;
	size_t off;
} rx_metrics[] = {
#define RX_(name, kind, help) { #name, help, offsetof(struct steer_stats, name) },
	STEER_STATS_FIELDS(RX_)
#undef RX_
};

/* A worker's account (steer_worker_view); 'traced': only when the cpumap
 * tracepoint programs count. */
static const struct {
	const char *name;
	const char *help;
	size_t off;
	bool traced;
} worker_metrics[] = {
	{ "sent", "frames the receiving CPUs queued to the worker's cpumap rings (bpf_redirect_map returned XDP_REDIRECT)",
	  offsetof(struct steer_worker_view, sent), false },
	{ "delivered", "frames the worker's cpumap program ran on, on their way to the stack",
	  offsetof(struct steer_worker_view, delivered), false },
	{ "delivered_bytes", "bytes of those frames",
	  offsetof(struct steer_worker_view, delivered_bytes), false },
#define RING_(name, help) { #name, help, offsetof(struct steer_worker_view, ring.name), true },
	STEER_RING_FIELDS(RING_)
#undef RING_
#define KTHREAD_(name, help) { "kthread_" #name, help, offsetof(struct steer_worker_view, kthread.name), true },
	STEER_KTHREAD_FIELDS(KTHREAD_)
#undef KTHREAD_
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A label value: backslash, double quote and newline escaped, as the
 * format asks (interface names may hold the first two). */
static void label_value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

static void family(FILE *out, const char *name, const char *type,
		   const char *help)
{
	fprintf(out, "# HELP " PREFIX "%s %s\n", name, help);
	fprintf(out, "# TYPE " PREFIX "%s %s\n", name, type);
}

/* One sample; 'key' NULL: labelled with the interface only. */
static void sample(FILE *out, const char *name, const char *ifname,
		   const char *key, int id, __u64 v)
{
	fprintf(out, PREFIX "%s{interface=\"", name);
	label_value(out, ifname);
	if (key)
		fprintf(out, "\",%s=\"%d", key, id);
	fprintf(out, "\"} %llu\n", (unsigned long long)v);
}

/* One sample of a gauge in seconds, labelled with the interface only:
 * milliseconds kept, as the balancer's interval and its clock have them. */
static void seconds(FILE *out, const char *name, const char *ifname,
		    __u64 ms)
{
	fprintf(out, PREFIX "%s{interface=\"", name);
	label_value(out, ifname);
	fprintf(out, "\"} %llu.%03llu\n", (unsigned long long)(ms / 1000),
		(unsigned long long)(ms % 1000));
}

static __u64 at(const void *base, size_t off)
{
	return *(const __u64 *)((const char *)base + off);
}

void print_prom(FILE *out, const char *ifname, const struct steer_sample *s)
{
	struct steer_worker_view v;
	char name[96], help[512];
	size_t i;
	int c;

	family(out, "steering", "gauge",
	       "1 when the interface is there and an xdp_steer program using these counters' maps is attached to it; 0: the counters stand still (interface deleted, program detached)");
	sample(out, "steering", ifname, NULL, 0, s->steering);
	family(out, "cpumap_trace", "gauge",
	       "1 when the worker ring and kthread counters are counted (the cpumap tracepoint programs are pinned), else 0");
	sample(out, "cpumap_trace", ifname, NULL, 0, s->traced);
	/* The balancer's liveness, for an alert on one that should run and
	 * does not (loader/dist/xdp-steer.rules.yml). */
	family(out, "balance_enabled", "gauge",
	       "1 when the policy in force balances (balance: on), so a balancer is expected (xdp-steer balance IFACE, the unit xdp-steer-balance@IFACE), else 0");
	sample(out, "balance_enabled", ifname, NULL, 0, s->balance.enabled);
	family(out, "balance_interval_seconds", "gauge",
	       "the policy in force's balance.interval: how far apart the balancer's rounds are");
	seconds(out, "balance_interval_seconds", ifname,
		s->balance.interval_ms);
	family(out, "balancer_running", "gauge",
	       "1 when the balancer that last registered on the interface is a live process, else 0 (none ever ran, or it ended)");
	sample(out, "balancer_running", ifname, NULL, 0, s->balance.running);
	family(out, "balancer_last_round_timestamp_seconds", "gauge",
	       "when the balancer's last round ended, in seconds since the Unix epoch; 0 before its first");
	seconds(out, "balancer_last_round_timestamp_seconds", ifname,
		s->balance.last_ns / 1000000);
	for (i = 0; i < COUNT(rx_metrics); i++) {
		snprintf(name, sizeof(name), "%s_total", rx_metrics[i].name);
		snprintf(help, sizeof(help), "%s, per receiving CPU",
			 rx_metrics[i].help);
		family(out, name, "counter", help);
		for (c = 0; c < s->ncpus; c++)
			if (s->rx[c].rx_packets || cpuset_has(&s->online, c))
				sample(out, name, ifname, "cpu", c,
				       at(&s->rx[c], rx_metrics[i].off));
	}
	for (i = 0; i < COUNT(worker_metrics); i++) {
		/* Absent rather than a false 0 when not counted. */
		if (worker_metrics[i].traced && !s->traced)
			continue;
		snprintf(name, sizeof(name), "worker_%s_total",
			 worker_metrics[i].name);
		snprintf(help, sizeof(help), "%s, per worker CPU",
			 worker_metrics[i].help);
		family(out, name, "counter", help);
		for (c = 0; c < STEER_CPU_IDS; c++)
			if (steer_worker_view(s, c, &v) ||
			    cpuset_has(&s->workers, c))
				sample(out, name, ifname, "worker", c,
				       at(&v, worker_metrics[i].off));
	}
}
