// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: `xdp-steer stats` and `status` on machines of 2, 300 and 1024
 * CPUs, some with sparse ids, on samples and views made by hand. The text
 * stays readable: CPU lists as ranges (model/cpulist.c), per-CPU tables cut
 * to the busiest --top CPUs with the others summed in one row
 * (cli/fold.c), and with few CPUs nothing folded. JSON and Prometheus keep
 * every CPU whatever --top says. The warnings of status keep their whole
 * sentence however many CPUs they list (model/health.c).
 */
#define _GNU_SOURCE /* open_memstream() */
#include <stdbool.h>
#include <unistd.h>

#include "cli/fold.h"
#include "cli/print_prom.h"
#include "cli/print_stats.h"
#include "cli/print_status.h"
#include "model/cpulist.h"
#include "model/health.h"
#include "test.h"

/* ---- what a printer wrote to stdout ------------------------------------- */

static FILE *cap_file;
static int cap_saved = -1;

static void capture_begin(void)
{
	fflush(stdout);
	cap_file = tmpfile();
	cap_saved = dup(STDOUT_FILENO);
	if (cap_file && cap_saved >= 0)
		dup2(fileno(cap_file), STDOUT_FILENO);
}

/* The output since capture_begin(), in a buffer the caller frees. */
static char *capture_end(void)
{
	char *buf = NULL;
	long len;

	fflush(stdout);
	if (cap_saved >= 0) {
		dup2(cap_saved, STDOUT_FILENO);
		close(cap_saved);
		cap_saved = -1;
	}
	if (!cap_file)
		return NULL;
	len = ftell(cap_file);
	buf = calloc(1, len > 0 ? len + 1 : 1);
	rewind(cap_file);
	if (buf && len > 0 && fread(buf, 1, len, cap_file) != (size_t)len)
		buf[0] = '\0';
	fclose(cap_file);
	cap_file = NULL;
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static int count_str(const char *s, const char *what)
{
	int n = 0;

	while (s && (s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* The line of 'out' that starts, after blanks, with 'first' as its first
 * word; NULL when none does. Copied into 'line'. */
static const char *row(const char *out, const char *first, char *line,
		       size_t len)
{
	const char *p = out, *end, *w;
	size_t n = strlen(first);

	while (p && *p) {
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		for (w = p; w < end && *w == ' '; w++)
			;
		if ((size_t)(end - w) >= n && !strncmp(w, first, n) &&
		    (w[n] == ' ' || w + n == end)) {
			snprintf(line, len, "%.*s", (int)(end - p), p);
			return line;
		}
		p = *end ? end + 1 : end;
	}
	return NULL;
}

/* ---- CPU ids as ranges ------------------------------------------------------ */

/* ids from "lo-hi" pairs, as a machine's sysfs lists would give them. */
struct span {
	__u32 lo, hi;
};

static size_t ids_of(const struct span *sp, size_t nsp, __u32 *ids)
{
	size_t n = 0, i;
	__u32 c;

	for (i = 0; i < nsp; i++)
		for (c = sp[i].lo; c <= sp[i].hi; c++)
			ids[n++] = c;
	return n;
}

static const struct list_case {
	const char *desc;
	struct span spans[4];
	size_t nspans;
	const char *want;
} list_cases[] = {
	{ "two CPUs read as one range", { { 0, 1 } }, 1, "0-1" },
	{ "a single CPU is its id", { { 7, 7 } }, 1, "7" },
	{ "sparse ids read as ranges and single ids",
	  { { 0, 1 }, { 263, 263 }, { 1000, 1023 } }, 3, "0-1,263,1000-1023" },
	{ "1024 CPUs read as one range", { { 0, 1023 } }, 1, "0-1023" },
	{ "ids past 8192 read as any other", { { 8190, 8200 } }, 1,
	  "8190-8200" },
	{ "no CPU is the empty list", { { 0, 0 } }, 0, "" },
};

static void test_cpu_lists_are_ranges(void)
{
	__u32 ids[2048];
	char buf[256];
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(list_cases); i++) {
		n = ids_of(list_cases[i].spans, list_cases[i].nspans, ids);
		EXPECT_EQ(cpulist_format(ids, n, buf, sizeof(buf)), 0,
			  "a list that fits leaves no CPU out");
		if (!EXPECT_STR(buf, list_cases[i].want,
				"the CPUs are written as ranges"))
			printf("  case: %s\n", list_cases[i].desc);
	}
	ids[0] = 3;
	ids[1] = 3;
	ids[2] = 4;
	cpulist_format(ids, 3, buf, sizeof(buf));
	EXPECT_STR(buf, "3-4", "a repeated id counts once");
}

/* Every other CPU of 1024 does not fit in 64 bytes: whole ids, then how
 * many were left out, and the two add up to 512. */
static void test_long_list_says_how_many_it_left_out(void)
{
	char buf[CPULIST_MIN_LEN], *p, *end;
	__u32 ids[512], expect = 0;
	size_t left, listed = 0, i;
	unsigned long v, more = 0;

	for (i = 0; i < 512; i++)
		ids[i] = 2 * i;
	left = cpulist_format(ids, 512, buf, sizeof(buf));
	EXPECT(strlen(buf) < sizeof(buf), "the list fits its buffer");
	EXPECT(left > 0, "a list too long leaves CPUs out");
	p = strstr(buf, " and ");
	if (!EXPECT(p, "the list says how many CPUs it left out")) {
		printf("  got \"%s\"\n", buf);
		return;
	}
	EXPECT_EQ(sscanf(p, " and %lu more", &more), 1,
		  "it ends with \"and N more\"");
	EXPECT_EQ(more, left, "N is the count the function returns");
	/* Every id before it whole, in order: none cut in the middle. */
	for (p = buf; *p != ' '; p = end + (*end == ',')) {
		v = strtoul(p, &end, 10);
		if (!EXPECT_EQ(v, expect, "each id listed is whole and in order"))
			break;
		expect += 2;
		listed++;
	}
	EXPECT_EQ(listed + left, 512, "the ids listed and those left out are all 512");
}

/* ---- the busiest rows ------------------------------------------------------- */

static void test_fold_keeps_the_busiest(void)
{
	double load[300];
	bool keep[300];
	size_t i, kept = 0;

	for (i = 0; i < 300; i++)
		load[i] = (double)((i * 37) % 300);	/* each load once */
	EXPECT_EQ(fold_top(load, 300, 16, keep), 16, "16 rows of 300 are kept");
	for (i = 0; i < 300; i++) {
		kept += keep[i];
		if (keep[i] && !EXPECT(load[i] >= 284, "only the 16 busiest are kept"))
			break;
	}
	EXPECT_EQ(kept, 16, "exactly 16 are marked");
	EXPECT_EQ(fold_top(load, 300, 0, keep), 300, "top 0 keeps every row");
	EXPECT_EQ(fold_top(load, 2, 16, keep), 2, "2 rows under a top of 16 are both kept");
	for (i = 0; i < 300; i++)
		load[i] = 1;
	fold_top(load, 300, 16, keep);
	EXPECT(keep[0] && keep[15] && !keep[16],
	       "on a tie the earlier rows are kept");
}

/* ---- stats on a machine made by hand ---------------------------------------- */

#define MAX_POSSIBLE 1024

/* Two samples of a machine of 'possible' CPUs, a second apart: each
 * receiving CPU c received 1000 + c frames and redirected them, each
 * worker w got 10 (w + 1) of them and delivered them. */
struct machine {
	struct steer_sample a, b;
	struct steer_stats rx_a[MAX_POSSIBLE], rx_b[MAX_POSSIBLE];
	struct steer_worker_stats deq_a[MAX_POSSIBLE], deq_b[MAX_POSSIBLE];
	struct steer_ring_stats ring_a[STEER_CPU_IDS], ring_b[STEER_CPU_IDS];
	struct steer_kthread_stats kt_a[MAX_POSSIBLE], kt_b[MAX_POSSIBLE];
	struct steer_cpu_stats q_a[STEER_CPU_IDS], q_b[STEER_CPU_IDS];
	__u32 rx[MAX_POSSIBLE], workers[STEER_CPU_IDS];
	size_t nrx, nworkers;
};

static struct machine m;

static void machine(int possible, const struct span *rx, size_t nrx,
		    const struct span *w, size_t nw)
{
	size_t i;
	__u32 c;

	memset(&m, 0, sizeof(m));
	m.a = (struct steer_sample){ .t = 10, .ncpus = possible, .rx = m.rx_a,
				     .deq = m.deq_a, .ring = m.ring_a,
				     .kthread = m.kt_a, .queued = m.q_a,
				     .traced = true };
	m.b = (struct steer_sample){ .t = 11, .ncpus = possible, .rx = m.rx_b,
				     .deq = m.deq_b, .ring = m.ring_b,
				     .kthread = m.kt_b, .queued = m.q_b,
				     .traced = true };
	m.nrx = ids_of(rx, nrx, m.rx);
	m.nworkers = ids_of(w, nw, m.workers);
	for (i = 0; i < m.nrx; i++) {
		c = m.rx[i];
		m.rx_b[c].rx_packets = 1000 + c;
		m.rx_b[c].redirected = 1000 + c;
		m.b.total.rx_packets += 1000 + c;
		m.b.total.redirected += 1000 + c;
		cpuset_set(&m.b.online, c);
	}
	for (i = 0; i < m.nworkers; i++) {
		c = m.workers[i];
		m.q_b[c].packets = 10 * (c + 1);
		m.q_b[c].bytes = 640 * (c + 1);
		m.deq_b[c].packets = 10 * (c + 1);
		m.deq_b[c].bytes = 640 * (c + 1);
		m.ring_b[c].enqueued = 10 * (c + 1);
		m.kt_b[c].processed = 10 * (c + 1);
		cpuset_set(&m.b.workers, c);
	}
}

static const struct stats_case {
	const char *desc;
	int possible;
	struct span rx[4];
	size_t nrx;
	struct span workers[4];
	size_t nworkers;
	/* With the default top of 16: the rows folded, the receiving
	 * CPUs' fold row's CPUs, and the workers'. */
	const char *rx_folded, *workers_folded;
} stats_cases[] = {
	{ "2 CPUs: every CPU has its row, nothing is folded", 2,
	  { { 0, 1 } }, 1, { { 0, 1 } }, 1, NULL, NULL },
	{ "300 CPUs: the 16 busiest of each table, the rest in one row", 300,
	  { { 0, 299 } }, 1, { { 0, 255 } }, 1, "CPUs 0-283", "CPUs 0-239" },
	{ "1024 possible CPUs, sparse ids 0-1, 263, 1000-1023", 1024,
	  { { 0, 1 }, { 263, 263 }, { 1000, 1023 } }, 3,
	  { { 0, 1 }, { 200, 201 }, { 240, 255 } }, 3,
	  "CPUs 0-1,263,1000-1007", "CPUs 0-1,200-201" },
	{ "1024 CPUs, every one receiving", 1024, { { 0, 1023 } }, 1,
	  { { 0, 255 } }, 1, "CPUs 0-1007", "CPUs 0-239" },
};

/* The sum of what the folded rows held: rx frames of the receiving CPUs
 * not among the 'top' busiest, sent frames of the workers likewise. The
 * busiest are the highest ids (each CPU's load grows with its id). */
static double folded_rx(size_t top)
{
	double sum = 0;
	size_t i;

	for (i = 0; i + top < m.nrx; i++)
		sum += 1000 + m.rx[i];
	return sum;
}

static double folded_sent(size_t top)
{
	double sum = 0;
	size_t i;

	for (i = 0; i + top < m.nworkers; i++)
		sum += 10 * (m.workers[i] + 1);
	return sum;
}

/* The fold row of a table whose header starts with 'header', its CPUs
 * and its first column. */
static void check_fold(const char *out, const char *header, size_t n,
		       size_t top, const char *cpus, double first)
{
	char label[32], line[1024], name[32];
	const char *table = strstr(out, header);
	double v;

	snprintf(label, sizeof(label), "%zu more", n - top);
	if (!EXPECT(table && row(table, label, line, sizeof(line)),
		    "a row says how many CPUs it folds")) {
		printf("  no row \"%s\" after \"%s\" in:\n%s", label,
		       header, out);
		return;
	}
	EXPECT(sscanf(line, " %31s more %lf", name, &v) == 2,
	       "the fold row reads 'N more' then its sums");
	EXPECT_EQ(v, first, "the fold row's first column is the sum of the CPUs it folds");
	if (!EXPECT(strstr(line, cpus), "the fold row names its CPUs as ranges"))
		printf("  want \"%s\" in: %s\n", cpus, line);
}

static void check_rates(const struct stats_case *c, const char *out,
			size_t top)
{
	size_t shown_rx = top && m.nrx > top ? top : m.nrx,
	       shown_w = top && m.nworkers > top ? top : m.nworkers;
	char label[16], line[1024];
	size_t i;
	int lines = count_lines(out);

	/* Headers, rows, fold rows, the total, the blank line after. */
	if (!EXPECT(lines <= (int)(shown_rx + shown_w) + 6,
		    "the rates print at most --top rows per table and a few more"))
		printf("  %d lines for %zu + %zu rows\n", lines, shown_rx,
		       shown_w);
	for (i = 0; i < m.nrx; i++) {
		snprintf(label, sizeof(label), "%u", m.rx[i]);
		if (i + shown_rx < m.nrx)
			continue;
		if (!EXPECT(row(out, label, line, sizeof(line)),
			    "each of the busiest receiving CPUs has its row")) {
			printf("  no row for CPU %s\n", label);
			break;
		}
	}
	if (c->rx_folded && top)
		check_fold(out, "rx CPU", m.nrx, top, c->rx_folded,
			   folded_rx(top));
	if (c->workers_folded && top)
		check_fold(out, "worker CPU", m.nworkers, top,
			   c->workers_folded, folded_sent(top));
	if (!c->rx_folded || !top)
		EXPECT(!strstr(out, " more "), "nothing is folded when every CPU fits");
}

static const struct stats_case *cur;

static void run_case(void)
{
	const struct stats_case *c = cur;
	char *out, *p;
	size_t len = 0;
	FILE *f;

	machine(c->possible, c->rx, c->nrx, c->workers, c->nworkers);

	capture_begin();
	print_stats_rates("eth9", &m.a, &m.b, FOLD_TOP_DEFAULT);
	out = capture_end();
	check_rates(c, out, FOLD_TOP_DEFAULT);
	if (test_failed)
		printf("%s", out);
	free(out);

	capture_begin();
	print_stats_rates("eth9", &m.a, &m.b, 0);
	out = capture_end();
	EXPECT_EQ(count_lines(out), (int)(m.nrx + m.nworkers) + 4,
		  "--all prints a row for every CPU");
	free(out);

	capture_begin();
	print_stats_totals("eth9", &m.b, FOLD_TOP_DEFAULT);
	out = capture_end();
	/* The tables, and the legend after them. */
	EXPECT(count_lines(out) <= 2 * FOLD_TOP_DEFAULT + 6,
	       "the totals print at most --top rows per table and a few more");
	if (c->rx_folded)
		check_fold(out, "rx CPU", m.nrx, FOLD_TOP_DEFAULT,
			   c->rx_folded, folded_rx(FOLD_TOP_DEFAULT));
	if (c->workers_folded)
		check_fold(out, "worker CPU", m.nworkers, FOLD_TOP_DEFAULT,
			   c->workers_folded, folded_sent(FOLD_TOP_DEFAULT));
	free(out);

	/* JSON and Prometheus know no --top: every CPU, always. */
	capture_begin();
	print_stats_json("eth9", &m.b);
	out = capture_end();
	p = out ? strstr(out, "\"workers\"") : NULL;
	if (EXPECT(p, "the JSON has its workers")) {
		EXPECT_EQ(count_str(p, "{\"cpu\": "), m.nworkers,
			  "the JSON lists every worker");
		*p = '\0';
		EXPECT_EQ(count_str(out, "{\"cpu\": "), m.nrx,
			  "the JSON lists every receiving CPU");
	}
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	if (!EXPECT(f, "a memory stream opens"))
		return;
	print_prom(f, "eth9", &m.b);
	fclose(f);
	EXPECT_EQ(count_str(out, "xdp_steer_rx_packets_total{"), m.nrx,
		  "Prometheus has every receiving CPU's series");
	EXPECT_EQ(count_str(out, "xdp_steer_worker_sent_total{"), m.nworkers,
		  "Prometheus has every worker's series");
	free(out);
}

/* ---- status ---------------------------------------------------------------- */

static struct steer_status st;

/* 'n' workers from CPU 'first' up, worker i with 4 + i % 3 buckets; the
 * policy before left cpumap entries 100-199 of bank 1 draining. */
static void status_of(__u32 first, __u32 n)
{
	__u32 c;

	memset(&st, 0, sizeof(st));
	snprintf(st.ifname, sizeof(st.ifname), "eth9");
	st.if_exists = true;
	st.view.slot.table_size = 4096;
	st.view.slot.queue_size = 2048;
	st.view.slot.nonip_cpu = STEER_CPU_LOCAL;
	for (c = first; c < first + n; c++) {
		st.view.buckets[c] = 4 + c % 3;
		st.view.in_cpumap[c] = st.view.need[c] = 1;
	}
	for (c = 100; c < 200; c++)
		st.view.in_cpumap[STEER_CPU_IDS + c] =
			st.view.in_use[STEER_CPU_IDS + c] = 1;
}

static void test_status_folds_many_workers(void)
{
	char line[1024], want[128];
	__u32 c, sum;
	char *out;
	int lines;

	status_of(0, 256);
	capture_begin();
	print_status_text(&st, FOLD_TOP_DEFAULT);
	out = capture_end();
	lines = count_lines(out);
	EXPECT(lines <= 16, "status of 256 workers takes a screen, not a line per worker");
	EXPECT(strstr(out, "workers: 256 CPUs 0-255;"),
	       "the workers line names them as a range");
	EXPECT(row(out, "240", line, sizeof(line)) &&
	       strstr(line, "240 more CPUs:"),
	       "a line says how many workers it folds");
	/* The 16 with most buckets hold 6 each: CPUs 2, 5, ..., 47. */
	EXPECT(strstr(out, "cpu 47 (6 buckets)") && !strstr(out, "cpu 50 "),
	       "the workers shown are those with the most buckets");
	for (c = 0, sum = 0; c < 256; c++)
		sum += st.view.buckets[c];
	snprintf(want, sizeof(want), "240 more CPUs: %u buckets in all (CPUs ",
		 sum - 16 * 6);
	if (!EXPECT(strstr(line, want),
		    "the fold line sums the buckets of the workers it folds"))
		printf("  want \"%s\" in: %s\n", want, line);
	EXPECT(strstr(out, "cpus 100-199 (bank 1)"),
	       "the drain line names its cpumap entries as ranges");
	if (test_failed)
		printf("%s", out);
	free(out);

	capture_begin();
	print_status_text(&st, 0);
	out = capture_end();
	EXPECT_EQ(count_str(out, " cpu "), 256,
		  "--all shows every worker");
	free(out);

	capture_begin();
	print_status_json(&st);
	out = capture_end();
	EXPECT_EQ(count_str(out, "\"buckets\": "), 256,
		  "the JSON lists every worker");
	free(out);
}

/* Workers up to CPU 1023 (STEER_CPU_IDS), the same fold. */
static void test_status_folds_1024_workers(void)
{
	char *out;

	status_of(0, STEER_CPU_IDS);
	capture_begin();
	print_status_text(&st, FOLD_TOP_DEFAULT);
	out = capture_end();
	EXPECT(count_lines(out) <= 16, "status of 1024 workers takes a screen");
	EXPECT(strstr(out, "workers: 1024 CPUs 0-1023;") &&
	       strstr(out, "1008 more CPUs:"),
	       "the workers line names CPUs 0-1023 and folds 1008 of them");
	if (test_failed)
		printf("%s", out);
	free(out);
	capture_begin();
	print_status_json(&st);
	out = capture_end();
	EXPECT_EQ(count_str(out, "\"buckets\": "), STEER_CPU_IDS,
		  "the JSON lists every one of the 1024 workers");
	EXPECT(strstr(out, "\"cpu\": 1023, \"buckets\""),
	       "CPU 1023 among them");
	free(out);
}

static void test_status_of_two_workers_is_unchanged(void)
{
	char *out;

	status_of(0, 2);
	memset(st.view.in_cpumap + STEER_CPU_IDS, 0, STEER_CPU_IDS);
	capture_begin();
	print_status_text(&st, FOLD_TOP_DEFAULT);
	out = capture_end();
	EXPECT(strstr(out, "\n  workers: cpu 0 (4 buckets), cpu 1 (5 buckets)\n"),
	       "two workers are listed on one line, as ever");
	if (test_failed)
		printf("%s", out);
	free(out);
}

/* ---- warnings ---------------------------------------------------------------- */

/* Every odd CPU of 256 offline, each a worker: the list is long, and the
 * warning keeps its whole sentence. */
static void test_warning_with_a_long_cpu_list_is_whole(void)
{
	static __u32 buckets[STEER_CPU_IDS];
	struct cpu_set online;
	struct health h = {};
	struct health_input in = {
		.ifname = "eth9", .if_exists = true, .attached = true,
		.uses_pins = true, .table_size = 4096, .queue_size = 2048,
		.buckets = buckets, .online = &online,
	};
	unsigned long more = 0;
	const char *p;
	__u32 c;

	cpuset_zero(&online);
	for (c = 0; c < STEER_CPU_IDS; c++) {
		buckets[c] = 16;
		if (c % 2 == 0)
			cpuset_set(&online, c);
	}
	EXPECT_EQ(health_check(&in, &h), 0, "the check succeeds");
	if (!EXPECT_EQ(h.n, 1, "one warning"))
		goto out;
	EXPECT(strstr(h.msg[0], "worker CPUs 1,3,5,"),
	       "the offline workers are listed");
	EXPECT(strstr(h.msg[0], "or apply a policy without them"),
	       "the warning ends with its advice, not cut");
	p = strstr(h.msg[0], " more are offline");
	if (EXPECT(p, "the warning says how many CPUs the list left out")) {
		while (p > h.msg[0] && p[-1] >= '0' && p[-1] <= '9')
			p--;
		more = strtoul(p, NULL, 10);
		EXPECT(more > 0 && more < STEER_CPU_IDS / 2,
		       "some are listed, the others counted");
	}
	if (test_failed)
		printf("  got warning: %s\n", h.msg[0]);
out:
	health_free(&h);
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_cpu_lists_are_ranges, "CPU lists are written as ranges"),
	TEST_ENTRY(test_long_list_says_how_many_it_left_out,
		   "a list too long for its room says how many CPUs it left out"),
	TEST_ENTRY(test_fold_keeps_the_busiest,
		   "the rows kept are the busiest, the rest folded"),
	TEST_ENTRY(test_status_folds_1024_workers,
		   "status of 1024 workers (CPU ids up to 1023) folds them too"),
	TEST_ENTRY(test_status_folds_many_workers,
		   "status of 256 workers shows the 16 with most buckets and sums the rest"),
	TEST_ENTRY(test_status_of_two_workers_is_unchanged,
		   "status of two workers is as it always was"),
	TEST_ENTRY(test_warning_with_a_long_cpu_list_is_whole,
		   "a warning listing 128 CPUs keeps its whole sentence"),
};

#define cases stats_cases
TEST_MAIN_WITH_CASES("summary")
