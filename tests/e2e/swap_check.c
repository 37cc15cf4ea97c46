// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * swap_check - load for the policy-swap test (tests/e2e/test_swap.sh).
 *
 *   swap_check --prog-id ID --pin DIR [--live] [--max-seconds S]
 *
 * Opens the program ATTACHED to the interface by id (xdp_steer, or libxdp's
 * dispatcher running it) and, on one thread pinned to
 * each online CPU, runs it with bpf_prog_test_run_opts in a tight loop on
 * frames of many flows, until SIGTERM/SIGINT, while the test script swaps
 * policies with `xdp-steer apply`. Two classes of frames:
 *
 *   rule frames   UDP 10.a.b.1:port -> 198.18.c.d:port, which every policy
 *                 of the test matches with a rule (a source prefix, UDP,
 *                 a destination prefix);
 *   table frames  TCP 192.168.a.b:port -> 192.0.2.c:port, which no rule of
 *                 any policy matches: the indirection table places them.
 *
 * Each run of one frame must return XDP_REDIRECT (the policies turn the
 * local fast path off, and a missing cpumap entry would make it XDP_PASS).
 * With --live, every iteration also sends a batch of frames with
 * BPF_F_TEST_XDP_LIVE_FRAMES, so frames really go through the cpumap to
 * the worker CPUs while entries come and go ("live=unsupported" when the
 * kernel cannot).
 *
 * Between runs each thread reads steer_ctl.active from the pinned map, so
 * the output says how many flips the load overlapped. At exit it prints
 * key=value lines for the script to compare with the program's counters:
 *
 *   threads=2 rule_frames=N table_frames=N live_frames=N
 *   verdict_redirect=N verdict_other=N run_errors=N flips_seen=N
 *
 * and the first few unexpected verdicts, each with its frame as hex, so a
 * failure can be replayed with tests/prog/test_prog. Exit status: 0 when it
 * ran, 1 on a setup error (the counts say whether the runs were right).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "frame.h"
#include "xdp_steer/names.h"
#include "xdp_steer/slot.h"

/* Frames per live batch: enough to fill the cpumap's bulk queue (8) a few
 * times over, few enough that one batch does not outlast a swap. */
#define LIVE_BATCH	64
/* Unexpected verdicts printed in full; the rest are only counted. */
#define MAX_REPORTS	5

static struct {
	int prog_fd;
	int ctl_fd;
	int live;
	int max_seconds;
} cfg = { .prog_fd = -1, .ctl_fd = -1 };

static atomic_int stop;
static atomic_int reports;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

struct counts {
	unsigned long long rule_frames, table_frames, live_frames;
	unsigned long long verdict_redirect, verdict_other, run_errors;
	unsigned long long flips_seen;
};

struct worker {
	pthread_t thread;
	int cpu;
	struct counts c;
};

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static void build(struct frame *f, int rule, unsigned int i)
{
	char src[32], dst[32];

	frame_init(f);
	frame_eth(f, 0x0800);
	if (rule) {
		snprintf(src, sizeof(src), "10.%u.%u.1", (i >> 8) & 255, i & 255);
		snprintf(dst, sizeof(dst), "198.18.%u.%u", (i >> 16) & 1,
			 (i >> 3) & 255);
		frame_ipv4(f, &(struct frame_ip4){ .src = src, .dst = dst,
						   .proto = 17 });
		frame_udp(f, 1024 + i % 50000, 7000 + i % 1000);
	} else {
		snprintf(src, sizeof(src), "192.168.%u.%u", (i >> 8) & 255,
			 i & 255);
		snprintf(dst, sizeof(dst), "192.0.2.%u", (i >> 5) & 255);
		frame_ipv4(f, &(struct frame_ip4){ .src = src, .dst = dst,
						   .proto = 6 });
		frame_tcp(f, 1024 + i % 60000, 1 + i % 1024);
	}
	frame_payload_fill(f, 18, (__u8)i);
	frame_finish(f);
}

static void report(const struct frame *f, int cpu, int verdict, int err)
{
	char label[96];

	if (atomic_fetch_add(&reports, 1) >= MAX_REPORTS)
		return;
	snprintf(label, sizeof(label), "cpu %d: verdict %d, error %d", cpu,
		 verdict, err);
	pthread_mutex_lock(&report_lock);
	frame_dump(stdout, f, label);
	pthread_mutex_unlock(&report_lock);
}

static int run_one(const struct frame *f, __u32 flags, __u32 repeat,
		   int *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->buf,
		    .data_size_in = f->len, .repeat = repeat, .flags = flags);
	int err;

	if (flags & BPF_F_TEST_XDP_LIVE_FRAMES)
		o.batch_size = repeat;
	err = bpf_prog_test_run_opts(cfg.prog_fd, &o);
	*verdict = o.retval;
	return err;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	struct steer_ctl ctl;
	__u32 zero = 0, last = ~0u;
	unsigned int i;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		w->c.run_errors++;
		return NULL;
	}
	/* Threads walk different flows: start far apart. */
	for (i = w->cpu * 0x9e3779b1u; !atomic_load(&stop); i++) {
		struct frame f;
		int rule, verdict, err;

		if (!bpf_map_lookup_elem(cfg.ctl_fd, &zero, &ctl)) {
			if (last != ~0u && (ctl.active & 1) != last)
				w->c.flips_seen++;
			last = ctl.active & 1;
		}
		for (rule = 0; rule < 2; rule++) {
			build(&f, rule, i);
			err = run_one(&f, 0, 1, &verdict);
			if (err) {
				w->c.run_errors++;
				report(&f, w->cpu, verdict, err);
				continue;
			}
			if (rule)
				w->c.rule_frames++;
			else
				w->c.table_frames++;
			if (verdict == XDP_REDIRECT) {
				w->c.verdict_redirect++;
			} else {
				w->c.verdict_other++;
				report(&f, w->cpu, verdict, 0);
			}
		}
		if (cfg.live) {
			rule = i & 1;
			build(&f, rule, i ^ 0x5555);
			err = run_one(&f, BPF_F_TEST_XDP_LIVE_FRAMES,
				      LIVE_BATCH, &verdict);
			if (err) {
				w->c.run_errors++;
				report(&f, w->cpu, -1, err);
			} else {
				w->c.live_frames += LIVE_BATCH;
				if (rule)
					w->c.rule_frames += LIVE_BATCH;
				else
					w->c.table_frames += LIVE_BATCH;
			}
		}
	}
	return NULL;
}

/* BPF_F_TEST_XDP_LIVE_FRAMES came with Linux 5.18; some kernels refuse it
 * (EPERM). */
static int live_supported(void)
{
	struct frame f;
	int verdict;

	build(&f, 0, 0);
	return !run_one(&f, BPF_F_TEST_XDP_LIVE_FRAMES, 1, &verdict);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: swap_check --prog-id ID --pin DIR [--live] [--max-seconds S]\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "prog-id", required_argument, NULL, 'p' },
		{ "pin", required_argument, NULL, 'd' },
		{ "live", no_argument, NULL, 'l' },
		{ "max-seconds", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	const char *pin = NULL;
	struct worker *w;
	struct counts sum = {};
	char path[512];
	long prog_id = 0;
	int opt, ncpus, n = 0, cpu, i;
	cpu_set_t online;
	time_t start;

	cfg.max_seconds = 120;
	while ((opt = getopt_long(argc, argv, "p:d:lm:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			prog_id = strtol(optarg, NULL, 10);
			break;
		case 'd':
			pin = optarg;
			break;
		case 'l':
			cfg.live = 1;
			break;
		case 'm':
			cfg.max_seconds = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (prog_id <= 0 || !pin) {
		usage(stderr);
		return 2;
	}
	cfg.prog_fd = bpf_prog_get_fd_by_id(prog_id);
	if (cfg.prog_fd < 0) {
		fprintf(stderr, "swap_check: program %ld: %s\n", prog_id,
			strerror(errno));
		return 1;
	}
	/* xdp_steer itself, or libxdp's dispatcher that calls it: what is
	 * attached to the interface either way. */
	if (bpf_obj_get_info_by_fd(cfg.prog_fd, &info, &info_len) ||
	    info.type != BPF_PROG_TYPE_XDP) {
		fprintf(stderr, "swap_check: program %ld is not an XDP program (type %u, name '%s')\n",
			prog_id, info.type, info.name);
		return 1;
	}
	if (cfg.live && !live_supported()) {
		printf("live=unsupported\n");
		cfg.live = 0;
	} else if (cfg.live) {
		/* The probe ran one table frame through the program. */
		sum.table_frames++;
		sum.live_frames++;
	}
	snprintf(path, sizeof(path), "%s/%s", pin, STEER_STR(steer_ctl));
	cfg.ctl_fd = bpf_obj_get(path);
	if (cfg.ctl_fd < 0) {
		fprintf(stderr, "swap_check: %s: %s\n", path, strerror(errno));
		return 1;
	}

	if (sched_getaffinity(0, sizeof(online), &online))
		return 1;
	ncpus = CPU_COUNT(&online);
	w = calloc(ncpus, sizeof(*w));
	if (!w)
		return 1;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	for (cpu = 0; cpu < CPU_SETSIZE && n < ncpus; cpu++) {
		if (!CPU_ISSET(cpu, &online))
			continue;
		w[n].cpu = cpu;
		if (pthread_create(&w[n].thread, NULL, run, &w[n])) {
			fprintf(stderr, "swap_check: pthread_create failed\n");
			atomic_store(&stop, 1);
			break;
		}
		n++;
	}
	printf("running threads=%d\n", n);
	fflush(stdout);
	start = time(NULL);
	while (!atomic_load(&stop) && time(NULL) - start < cfg.max_seconds)
		usleep(10000);
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		sum.rule_frames += w[i].c.rule_frames;
		sum.table_frames += w[i].c.table_frames;
		sum.live_frames += w[i].c.live_frames;
		sum.verdict_redirect += w[i].c.verdict_redirect;
		sum.verdict_other += w[i].c.verdict_other;
		sum.run_errors += w[i].c.run_errors;
		sum.flips_seen += w[i].c.flips_seen;
	}
	printf("threads=%d\nrule_frames=%llu\ntable_frames=%llu\nlive_frames=%llu\n"
	       "verdict_redirect=%llu\nverdict_other=%llu\nrun_errors=%llu\nflips_seen=%llu\n",
	       n, sum.rule_frames, sum.table_frames, sum.live_frames,
	       sum.verdict_redirect, sum.verdict_other, sum.run_errors,
	       sum.flips_seen);
	free(w);
	return 0;
}
