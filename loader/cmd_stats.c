// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stats: counters of the receiving CPUs and of the workers, as rates every
 * --interval seconds (like xdp-bench), or once as JSON. */
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "xdp_steer.h"
#include "cmd.h"
#include "log.h"
#include "maps.h"

/* Everything read at one instant. */
struct sample {
	double t;			/* seconds, monotonic */
	int ncpus;
	struct steer_stats total;
	struct steer_stats *rx;		/* [ncpus]: per receiving CPU */
	struct steer_cpu_stats *queued;	/* [STEER_MAX_CPUS]: toward a CPU */
	struct steer_worker_stats *deq;	/* [ncpus]: dequeued by a worker */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int sample_alloc(struct sample *s)
{
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus < 0)
		return s->ncpus;
	s->rx = calloc(s->ncpus, sizeof(*s->rx));
	s->queued = calloc(STEER_MAX_CPUS, sizeof(*s->queued));
	s->deq = calloc(s->ncpus, sizeof(*s->deq));
	return s->rx && s->queued && s->deq ? 0 : -ENOMEM;
}

static void sample_free(struct sample *s)
{
	free(s->rx);
	free(s->queued);
	free(s->deq);
}

static int sample_read(const struct steer_maps *m, struct sample *s)
{
	struct steer_worker_stats wsum;
	struct timespec ts;
	__u32 cpu;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->t = ts.tv_sec + ts.tv_nsec / 1e9;
	err = maps_percpu_sum(m->stats, 0, sizeof(s->total), &s->total, s->rx);
	if (!err)
		err = maps_percpu_sum(m->worker_stats, 0, sizeof(wsum), &wsum,
				      s->deq);
	for (cpu = 0; !err && cpu < STEER_MAX_CPUS; cpu++)
		err = maps_percpu_sum(m->cpu_stats, cpu, sizeof(s->queued[cpu]),
				      &s->queued[cpu], NULL);
	return err;
}

/* Field names and offsets of struct steer_stats, for both outputs. */
static const struct {
	const char *name;
	size_t off;
} fields[] = {
#define F(x) { #x, offsetof(struct steer_stats, x) }
	F(rx_packets), F(rx_bytes), F(redirected), F(passed_local),
	F(passed_nonip), F(passed_parse_error), F(passed_no_target),
	F(passed_no_policy), F(fragments), F(rule_flow_hits),
	F(rule_prefix_hits),
#undef F
};

static __u64 field(const struct steer_stats *s, int i)
{
	return *(const __u64 *)((const char *)s + fields[i].off);
}

static void print_json(const char *ifname, const struct sample *s)
{
	size_t i;
	int c, first;

	printf("{\"ifname\": \"%s\", \"totals\": {", ifname);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		printf("%s\"%s\": %llu", i ? ", " : "", fields[i].name,
		       (unsigned long long)field(&s->total, i));
	printf("}, \"rx_cpus\": [");
	for (c = 0, first = 1; c < s->ncpus; c++) {
		if (!s->rx[c].rx_packets)
			continue;
		printf("%s{\"cpu\": %d", first ? "" : ", ", c);
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
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

static void print_rates(const char *ifname, const struct sample *a,
			const struct sample *b)
{
	double dt = b->t - a->t;
	int c;

	printf("%s  %-10s %12s %12s %12s %10s %10s %10s\n", ifname, "rx CPU",
	       "rx pps", "redirect/s", "local/s", "non-IP/s", "errors/s",
	       "fallback/s");
	for (c = 0; c < b->ncpus; c++) {
		const struct steer_stats *x = &a->rx[c], *y = &b->rx[c];

		if (y->rx_packets == x->rx_packets)
			continue;
		printf("%*s  %-10d %12.0f %12.0f %12.0f %10.0f %10.0f %10.0f\n",
		       (int)strlen(ifname), "", c,
		       rate(y->rx_packets, x->rx_packets, dt),
		       rate(y->redirected, x->redirected, dt),
		       rate(y->passed_local, x->passed_local, dt),
		       rate(y->passed_nonip, x->passed_nonip, dt),
		       rate(y->passed_parse_error, x->passed_parse_error, dt),
		       rate(y->passed_no_target + y->passed_no_policy,
			    x->passed_no_target + x->passed_no_policy, dt));
	}
	printf("%*s  %-10s %12.0f %12.0f %12.0f %10.0f %10.0f %10.0f\n",
	       (int)strlen(ifname), "", "total",
	       rate(b->total.rx_packets, a->total.rx_packets, dt),
	       rate(b->total.redirected, a->total.redirected, dt),
	       rate(b->total.passed_local, a->total.passed_local, dt),
	       rate(b->total.passed_nonip, a->total.passed_nonip, dt),
	       rate(b->total.passed_parse_error, a->total.passed_parse_error, dt),
	       rate(b->total.passed_no_target + b->total.passed_no_policy,
		    a->total.passed_no_target + a->total.passed_no_policy, dt));
	printf("%*s  %-10s %12s %12s %12s\n", (int)strlen(ifname), "",
	       "worker CPU", "queued pps", "dequeued pps", "Mbit/s");
	for (c = 0; c < STEER_MAX_CPUS; c++) {
		__u64 dy = c < b->ncpus ? b->deq[c].packets : 0;
		__u64 dx = c < a->ncpus ? a->deq[c].packets : 0;
		__u64 by = c < b->ncpus ? b->deq[c].bytes : 0;
		__u64 bx = c < a->ncpus ? a->deq[c].bytes : 0;

		if (b->queued[c].packets == a->queued[c].packets && dy == dx)
			continue;
		printf("%*s  %-10d %12.0f %12.0f %12.1f\n", (int)strlen(ifname),
		       "", c,
		       rate(b->queued[c].packets, a->queued[c].packets, dt),
		       rate(dy, dx, dt), rate(by, bx, dt) * 8 / 1e6);
	}
	printf("\n");
	fflush(stdout);
}

struct stats_opts {
	double interval;
	int json;
	long count;
};

static int stats_handle(int opt, const char *arg, void *ctx)
{
	struct stats_opts *o = ctx;
	char *end;

	switch (opt) {
	case 'i':
		o->interval = strtod(arg, &end);
		if (*end || o->interval < 0.1 || o->interval > 3600) {
			pr_err("--interval takes seconds from 0.1 to 3600, not '%s'\n", arg);
			return -1;
		}
		return 0;
	case 'c':
		o->count = strtol(arg, &end, 10);
		if (*end || o->count < 1) {
			pr_err("--count takes a positive number, not '%s'\n", arg);
			return -1;
		}
		return 0;
	case 'j':
		o->json = 1;
		return 0;
	}
	return -1;
}

int cmd_stats(int argc, char **argv)
{
	const char *usage = "xdp-steer stats IFACE [--interval S] [--count N] [--json]\n"
		"  Per-CPU rates every S seconds (default 1) until Ctrl-C or N reports;\n"
		"  --json prints the counters once as one JSON document.";
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats_opts o = { .interval = 1 };
	struct sample a = {}, b = {}, tmp;
	struct steer_maps m;
	const char *ifname;
	int ret, err;

	ret = cmd_getopt(argc, argv, "i:c:j", longopts, usage, stats_handle, &o);
	if (ret >= 0)
		return ret;
	if (argc - optind != 1) {
		fprintf(stderr, "usage: %s\n", usage);
		return EXIT_USAGE;
	}
	ifname = argv[optind];
	err = maps_open(ifname, &m);
	if (err) {
		pr_err("%s: xdp-steer is not attached here (no maps in %s/%s)\n",
		       ifname, STEER_PIN_ROOT, ifname);
		return EXIT_FAIL;
	}
	ret = EXIT_FAIL;
	if (sample_alloc(&a) || sample_alloc(&b))
		goto out;
	err = sample_read(&m, &a);
	if (err) {
		pr_err("%s: reading the counters failed: %s\n", ifname, strerror(-err));
		goto out;
	}
	if (o.json) {
		print_json(ifname, &a);
		ret = 0;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop) {
		usleep(o.interval * 1e6);
		if (stop || sample_read(&m, &b))
			break;
		print_rates(ifname, &a, &b);
		tmp = a;
		a = b;
		b = tmp;
		if (o.count && !--o.count)
			break;
	}
	ret = 0;
out:
	sample_free(&a);
	sample_free(&b);
	maps_close(&m);
	return ret;
}
