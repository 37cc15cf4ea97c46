// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: `xdp-steer stats --prometheus` (loader/cli/print_prom.c) and
 * the worker account it and the other printers share
 * (loader/lib/stats_view.c), on samples made by hand: which series appear
 * (all of them from the first scrape, at 0, with the labels they keep),
 * their values and labels, and the format's rules (a family's HELP and TYPE
 * once, before its samples; counters end in _total; label values escaped).
 * `promtool check metrics` on real output is tests/e2e/test_ring_stats.sh's.
 */
#define _GNU_SOURCE /* open_memstream() */
#include <stdbool.h>

#include "cli/print_prom.h"
#include "test.h"

#define NCPUS 4

/* A sample of NCPUS possible CPUs, every counter zero, none online, no
 * policy (as when those could not be read). */
struct fixture {
	struct steer_sample s;
	struct steer_stats rx[NCPUS];
	struct steer_worker_stats deq[NCPUS];
	struct steer_ring_stats ring[STEER_CPU_IDS];
	struct steer_kthread_stats kthread[NCPUS];
	struct steer_cpu_stats queued[STEER_CPU_IDS];
};

static struct fixture fx;

static struct steer_sample *fixture(bool traced)
{
	memset(&fx, 0, sizeof(fx));
	fx.s.ncpus = NCPUS;
	fx.s.rx = fx.rx;
	fx.s.deq = fx.deq;
	fx.s.ring = fx.ring;
	fx.s.kthread = fx.kthread;
	fx.s.queued = fx.queued;
	fx.s.traced = traced;
	return &fx.s;
}

/* CPU 0 receives 1000 frames: 300 passed there (it is a worker too; they
 * count in its passed_local, not in queued[0]), 700 sent to CPU 2, of
 * which the ring dropped 200 and CPU 2's program took 450; 50 are still
 * in flight. */
static struct steer_sample *busy(bool traced)
{
	struct steer_sample *s = fixture(traced);

	fx.rx[0].rx_packets = 1000;
	fx.rx[0].redirected = 700;
	fx.rx[0].passed_local = 300;
	fx.rx[0].passed_local_bytes = 300 * 64;
	fx.queued[2].packets = 700;
	fx.queued[2].bytes = 700 * 64;
	fx.deq[2].packets = 450;
	fx.deq[2].bytes = 450 * 64;
	fx.ring[2].enqueued = 500;
	fx.ring[2].ring_full_drops = 200;
	fx.kthread[2].processed = 450;
	fx.kthread[2].xdp_pass = 450;
	fx.kthread[2].sched = 9;
	return s;
}

/* The printer's output, in a buffer the caller frees. */
static char *render(const char *ifname, const struct steer_sample *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	print_prom(f, ifname, s);
	fclose(f);
	return buf;
}

/* 1 when 'line' is a whole line of 'out'. */
static int has_line(const char *out, const char *line)
{
	size_t n = strlen(line);
	const char *p = out;

	while ((p = strstr(p, line))) {
		if ((p == out || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return 1;
		p++;
	}
	return 0;
}

#define EXPECT_LINE(out, line, what)					\
	((out) && has_line(out, line) ? 1 :				\
	 (test_fail(__FILE__, __LINE__, what, "no line \"%s\"", line), 0))
#define EXPECT_NO(out, text, what)					\
	((out) && !strstr(out, text) ? 1 :				\
	 (test_fail(__FILE__, __LINE__, what, "found \"%s\"", text), 0))

static void test_rx_series(void)
{
	char *out = render("eth1", busy(true));

	EXPECT_LINE(out, "# TYPE xdp_steer_redirected_total counter",
		    "redirected is declared a counter named with _total");
	EXPECT_LINE(out, "xdp_steer_redirected_total{interface=\"eth1\",cpu=\"0\"} 700",
		    "receiving CPU 0's redirected frames are a sample labelled cpu=\"0\"");
	EXPECT_LINE(out, "xdp_steer_rx_bytes_total{interface=\"eth1\",cpu=\"0\"} 0",
		    "every steer_stats field is there, rx_bytes included");
	EXPECT_NO(out, "cpu=\"1\"",
		  "a receiving CPU neither online nor ever receiving has no series");
	free(out);
}

static void test_worker_series(void)
{
	char *out = render("eth1", busy(true));

	EXPECT_LINE(out, "xdp_steer_worker_sent_total{interface=\"eth1\",worker=\"2\"} 700",
		    "worker 2 was sent the 700 frames redirected to it");
	EXPECT_LINE(out, "xdp_steer_worker_ring_full_drops_total{interface=\"eth1\",worker=\"2\"} 200",
		    "worker 2's ring-full drops are a counter of its own");
	EXPECT_LINE(out, "xdp_steer_worker_enqueued_total{interface=\"eth1\",worker=\"2\"} 500",
		    "worker 2's enqueued frames are there");
	EXPECT_LINE(out, "xdp_steer_worker_kthread_processed_total{interface=\"eth1\",worker=\"2\"} 450",
		    "worker 2's kthread count is there, prefixed kthread_");
	EXPECT_LINE(out, "xdp_steer_worker_delivered_bytes_total{interface=\"eth1\",worker=\"2\"} 28800",
		    "worker 2's delivered bytes are there");
	EXPECT_LINE(out, "xdp_steer_worker_sent_total{interface=\"eth1\",worker=\"0\"} 0",
		    "CPU 0 sent only local passes: a worker series with nothing sent through a ring");
	EXPECT_NO(out, "worker=\"1\"", "a CPU the policy does not name and nothing was sent to has no worker series");
	EXPECT_LINE(out, "xdp_steer_cpumap_trace{interface=\"eth1\"} 1",
		    "the cpumap_trace gauge says the ring counters are counted");
	free(out);
}

/* A monitor must tell counters that stand still because nothing steers
 * (the interface deleted, the program detached) from an idle link. */
static void test_steering_gauge(void)
{
	struct steer_sample *s = busy(true);
	char *out;

	s->steering = true;
	out = render("eth1", s);
	EXPECT_LINE(out, "xdp_steer_steering{interface=\"eth1\"} 1",
		    "the steering gauge is 1 while a program using the maps is on the interface");
	free(out);
	s->steering = false;
	out = render("eth1", s);
	EXPECT_LINE(out, "xdp_steer_steering{interface=\"eth1\"} 0",
		    "and 0 when nothing steers, the counters still there");
	EXPECT_LINE(out, "xdp_steer_worker_sent_total{interface=\"eth1\",worker=\"2\"} 700",
		    "(the counters as they stood)");
	free(out);
}

/* An alert must tell a balancer that should run from one that does:
 * whether the policy balances, how often, whether the recorded balancer
 * lives, and when its last round ended, to the millisecond. */
static void test_balancer_gauges(void)
{
	struct steer_sample *s = busy(true);
	char *out;

	s->balance.enabled = true;
	s->balance.interval_ms = 1500;
	s->balance.running = true;
	s->balance.last_ns = 1700000000987654321ull;
	out = render("eth1", s);
	EXPECT_LINE(out, "# TYPE xdp_steer_balance_enabled gauge",
		    "balance_enabled is declared a gauge");
	EXPECT_LINE(out, "xdp_steer_balance_enabled{interface=\"eth1\"} 1",
		    "balance_enabled is 1 when the policy balances");
	EXPECT_LINE(out, "xdp_steer_balance_interval_seconds{interface=\"eth1\"} 1.500",
		    "balance_interval_seconds is the policy's interval in seconds");
	EXPECT_LINE(out, "xdp_steer_balancer_running{interface=\"eth1\"} 1",
		    "balancer_running is 1 while the recorded balancer lives");
	EXPECT_LINE(out, "xdp_steer_balancer_last_round_timestamp_seconds{interface=\"eth1\"} 1700000000.987",
		    "the last round's end is in seconds since the epoch, to the ms");
	free(out);
	memset(&s->balance, 0, sizeof(s->balance));
	out = render("eth1", s);
	EXPECT_LINE(out, "xdp_steer_balance_enabled{interface=\"eth1\"} 0",
		    "and 0 under balance: off or without a policy");
	EXPECT_LINE(out, "xdp_steer_balancer_running{interface=\"eth1\"} 0",
		    "balancer_running is 0 when none runs");
	EXPECT_LINE(out, "xdp_steer_balancer_last_round_timestamp_seconds{interface=\"eth1\"} 0.000",
		    "the last round is 0 before any round");
	free(out);
}

static void test_untraced(void)
{
	char *out = render("eth1", busy(false));

	EXPECT_LINE(out, "xdp_steer_cpumap_trace{interface=\"eth1\"} 0",
		    "without the tracepoint programs the cpumap_trace gauge is 0");
	EXPECT_NO(out, "xdp_steer_worker_ring_full", "without them no ring-full series appears (no false 0)");
	EXPECT_NO(out, "xdp_steer_worker_kthread", "without them no kthread series appears");
	EXPECT_LINE(out, "xdp_steer_worker_sent_total{interface=\"eth1\",worker=\"2\"} 700",
		    "the datapath's own counters are there all the same");
	free(out);
}

static void test_escaping(void)
{
	char *out = render("q\"b\\x", busy(true));

	EXPECT_LINE(out, "xdp_steer_cpumap_trace{interface=\"q\\\"b\\\\x\"} 1",
		    "a quote and a backslash in the interface name are escaped in the label");
	free(out);
}

/* The format's rules, over the whole output: each family's HELP, then its
 * TYPE, then only its own samples; each family once; counters in _total. */
static void test_format(void)
{
	char *out = render("eth1", busy(true)), *save = NULL, *line;
	char family[128] = "", seen[8192] = " ";
	int bad = 0, families = 0;

	if (!EXPECT(out != NULL, "the printer wrote something"))
		return;
	for (line = strtok_r(out, "\n", &save); line && !bad;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128], type[32], key[132];

		if (sscanf(line, "# HELP %127s", name) == 1) {
			snprintf(key, sizeof(key), " %s ", name);
			if (strstr(seen, key)) {
				test_fail(__FILE__, __LINE__, "no family is declared twice",
					  "%s twice", name);
				bad = 1;
			}
			if (strlen(seen) + strlen(key) < sizeof(seen))
				strcat(seen, key + 1);
			snprintf(family, sizeof(family), "%s", name);
			families++;
		} else if (sscanf(line, "# TYPE %127s %31s", name, type) == 2) {
			if (strcmp(name, family)) {
				test_fail(__FILE__, __LINE__, "a TYPE line follows its family's HELP line",
					  "TYPE %s after HELP %s", name, family);
				bad = 1;
			}
			if (!strcmp(type, "counter") &&
			    (strlen(name) < 6 || strcmp(name + strlen(name) - 6, "_total"))) {
				test_fail(__FILE__, __LINE__, "every counter's name ends in _total",
					  "%s", name);
				bad = 1;
			}
		} else if (strncmp(line, family, strlen(family)) ||
			   line[strlen(family)] != '{') {
			test_fail(__FILE__, __LINE__, "a sample belongs to the family declared last",
				  "\"%s\" under %s", line, family);
			bad = 1;
		}
	}
	EXPECT(families > 20, "every steer_stats field and worker counter is a family");
	free(out);
}

/* The sample lines of the printer's output with their values cut off:
 * the series, one per line, in order. Frees 'out'. */
static char *series_of(char *out)
{
	char *p, *q, *line, *save = NULL, *res;
	size_t len = out ? strlen(out) + 1 : 1;

	res = calloc(1, len);
	if (!res || !out) {
		free(out);
		return res;
	}
	q = res;
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !(p = strrchr(line, ' ')))
			continue;
		memcpy(q, line, p - line);
		q += p - line;
		*q++ = '\n';
	}
	free(out);
	return res;
}

/* Lines of 'out' that start with 'prefix'. */
static int count_lines(const char *out, const char *prefix)
{
	const char *p = out;
	int n = 0;

	if (!out)
		return -1;
	while (*p) {
		if (!strncmp(p, prefix, strlen(prefix)))
			n++;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

/* Lines of 'out' that end with 'suffix'. */
static int count_ends(const char *out, const char *suffix)
{
	size_t n = strlen(suffix);
	const char *p = out, *end;
	int count = 0;

	if (!out)
		return -1;
	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		if ((size_t)(end - p) >= n && !strncmp(end - n, suffix, n))
			count++;
	}
	return count;
}

/* Online CPUs 0-3, the policy's workers 0 and 2 (0 the receiving CPU, a
 * worker too, as busy() has it), nothing counted yet. */
static struct steer_sample *fresh(bool traced)
{
	struct steer_sample *s = fixture(traced);
	int c;

	for (c = 0; c < NCPUS; c++)
		cpuset_set(&s->online, c);
	cpuset_set(&s->workers, 0);
	cpuset_set(&s->workers, 2);
	return s;
}

static void test_first_scrape(void)
{
	char *out = render("eth1", fresh(true));
	int families = count_lines(out, "# TYPE ");
	int gauges = count_ends(out, " gauge");

	EXPECT_LINE(out, "xdp_steer_rx_packets_total{interface=\"eth1\",cpu=\"3\"} 0",
		    "an online CPU that has received nothing has its rx_packets series, at 0");
	EXPECT_LINE(out, "xdp_steer_passed_parse_error_total{interface=\"eth1\",cpu=\"1\"} 0",
		    "... and every other steer_stats counter, parse errors included");
	EXPECT_LINE(out, "xdp_steer_worker_sent_total{interface=\"eth1\",worker=\"2\"} 0",
		    "a worker the policy names, sent nothing yet, has its sent series at 0");
	EXPECT_LINE(out, "xdp_steer_worker_ring_full_drops_total{interface=\"eth1\",worker=\"2\"} 0",
		    "... and its ring-full drops at 0, the tracepoint programs counting");
	EXPECT_LINE(out, "xdp_steer_worker_kthread_sched_total{interface=\"eth1\",worker=\"0\"} 0",
		    "... and its kthread counters, worker 0 too");
	EXPECT_NO(out, "worker=\"1\"", "an online CPU the policy does not name has no worker series");
	EXPECT_NO(out, "worker=\"3\"", "nor has CPU 3");
	/* Every family, each with its 4 receiving CPUs or its 2 workers, and
	 * the interface's gauges, one series each. */
	EXPECT_EQ(count_lines(out, "xdp_steer_") - count_lines(out, "xdp_steer_worker_"),
		  gauges + 4 * (families - gauges - count_lines(out, "# TYPE xdp_steer_worker_")),
		  "each receiving-CPU family has a series for each of the 4 online CPUs");
	EXPECT_EQ(count_lines(out, "xdp_steer_worker_"),
		  2 * count_lines(out, "# TYPE xdp_steer_worker_"),
		  "each worker family has a series for each of the 2 workers");
	EXPECT_EQ(gauges, 6, "the interface's gauges are there: steering, cpumap_trace and the balancer's 4");
	EXPECT(count_lines(out, "# TYPE xdp_steer_worker_") > 5,
	       "the worker families are all there, ring and kthread ones included");
	free(out);
}

/* Rates and absence alerts need a series to keep its labels: the first
 * scrape must already have every series traffic will bring. */
static void test_same_series_later(void)
{
	struct steer_sample *s;
	char *before, *after;
	int c;

	before = series_of(render("eth1", fresh(true)));
	s = busy(true);
	for (c = 0; c < NCPUS; c++)
		cpuset_set(&s->online, c);
	cpuset_set(&s->workers, 0);
	cpuset_set(&s->workers, 2);
	after = series_of(render("eth1", s));
	EXPECT(before && after && !strcmp(before, after),
	       "after 1000 frames the series are those of the first scrape, labels and order the same");
	free(before);
	free(after);
	before = series_of(render("eth1", fresh(false)));
	s = busy(false);
	for (c = 0; c < NCPUS; c++)
		cpuset_set(&s->online, c);
	cpuset_set(&s->workers, 0);
	cpuset_set(&s->workers, 2);
	after = series_of(render("eth1", s));
	EXPECT(before && after && !strcmp(before, after),
	       "and so without the tracepoint programs");
	EXPECT_NO(before, "ring_full", "(whose ring series are absent from the first scrape on)");
	free(before);
	free(after);
}

/* A CPU taken offline, or out of the policy, after it counted keeps its
 * series: a counter does not vanish while it stands. */
static void test_counted_stays(void)
{
	char *out = render("eth1", busy(true));

	EXPECT_LINE(out, "xdp_steer_rx_packets_total{interface=\"eth1\",cpu=\"0\"} 1000",
		    "receiving CPU 0, not online in this sample, keeps the series it counted");
	EXPECT_LINE(out, "xdp_steer_worker_delivered_total{interface=\"eth1\",worker=\"2\"} 450",
		    "worker 2, no longer named by the policy, keeps its series");
	free(out);
}

static void test_view(void)
{
	struct steer_worker_view v;
	struct steer_sample *s = busy(true);

	EXPECT(steer_worker_view(s, 2, &v), "worker 2 has an account");
	EXPECT_EQ(v.sent, 700, "sent is what steer_queued counted toward worker 2");
	EXPECT_EQ(v.in_flight, 50, "in flight is sent - delivered - ring-full drops");
	EXPECT(steer_worker_view(s, 0, &v), "CPU 0 has an account (frames went toward it)");
	EXPECT_EQ(v.sent, 0, "local passes are not sent: steer_queued counts only what was queued");
	EXPECT(!steer_worker_view(s, 1, &v), "CPU 1, sent nothing and counting nothing, has none");
	EXPECT(!steer_worker_view(s, STEER_CPU_IDS, &v), "a CPU past the workers' ids has none");
	/* The load toward a CPU is what was queued to it and what it passed
	 * itself: 300 of 1000 frames of one size toward CPU 0. */
	steer_worker_view(s, 0, &v);
	EXPECT_EQ((long long)(1000 * v.load), (long long)(1000 * balance_cost(300, 300 * 64)),
		  "CPU 0's load is its local passes");
	steer_worker_view(s, 2, &v);
	EXPECT_EQ((long long)(1000 * v.load), (long long)(1000 * balance_cost(700, 700 * 64)),
		  "CPU 2's load is what was queued to it");
	fx.rx[0].passed_local = 301;
	steer_worker_view(s, 2, &v);
	EXPECT_EQ(v.sent, 700, "a local pass counted between two reads leaves sent as it was: it never goes back");
	s = busy(false);
	steer_worker_view(s, 2, &v);
	EXPECT_EQ(v.ring.ring_full_drops + v.kthread.processed + v.in_flight, 0,
		  "untraced, the ring and kthread figures stay zero, not stale");
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_rx_series, "receiving CPUs' counters are labelled cpu"),
	TEST_ENTRY(test_first_scrape, "the first scrape, before any frame, has every counter of every online CPU and every worker the policy names, at 0"),
	TEST_ENTRY(test_same_series_later, "the first scrape's series are those traffic brings later, labels the same"),
	TEST_ENTRY(test_counted_stays, "a CPU that counted keeps its series when it goes offline or leaves the policy"),
	TEST_ENTRY(test_worker_series, "workers' accounts are labelled worker, ring and kthread counters included"),
	TEST_ENTRY(test_steering_gauge, "a gauge says whether anything steers, so standing counters are not read as an idle link"),
	TEST_ENTRY(test_balancer_gauges, "gauges say whether a balancer is expected, whether it runs and when its last round ended"),
	TEST_ENTRY(test_untraced, "without the tracepoint programs, ring counters are absent and the gauge says 0"),
	TEST_ENTRY(test_escaping, "label values are escaped"),
	TEST_ENTRY(test_format, "families are declared once, HELP then TYPE then their samples; counters end in _total"),
	TEST_ENTRY(test_view, "the worker account: sent is what was queued, load adds the local passes, in flight, no account without frames"),
};

TEST_MAIN("unit/prom")
