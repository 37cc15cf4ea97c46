// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * observer - loads observer.bpf.c at tc ingress of the receiving interface
 * (run it in that interface's namespace) and on the cpumap drop
 * tracepoints, waits for SIGINT or SIGTERM, then writes what it saw:
 *
 *   ifname IF                     header lines, one fact each
 *   cpumap_id N[,N]               the cpumaps whose drops are counted (0:
 *                                 none found)
 *   marked N                      marked frames seen, all CPUs
 *   marked_arp N                  of which ARP
 *   bad_flow N                    marked with a flow id out of range
 *   drops_cpumap_enqueue N        ring full (xdp_cpumap_enqueue)
 *   drops_cpumap_kthread N        dropped by the worker (xdp_cpumap_kthread)
 *   drops_redirect_err N          redirect into the cpumap failed
 *   cpu C marked N flows N        per CPU that saw marked frames
 *   flow F cpus C[,C...] received N gaps N missing N late N last S
 *        switches N splits N      per flow seen at least once
 *
 * With --samples FILE it also writes, every --sample-ms (default 500),
 * one line of the marked frames each CPU has seen so far:
 *
 *   sample SECONDS C:N [C:N...]   seconds since it was ready
 *
 * "gaps" counts frames whose sequence number jumped ahead (seq > last + 1,
 * "missing" the numbers skipped: lost, or overtaken and counted "late" when
 * they come), "late" frames that came after a higher number (reordered or
 * duplicated). "switches" counts frames that came on another CPU than the
 * flow's frame before, "splits" those back on the CPU the flow's last
 * switch left within OBS_SPLIT_NS of it (traffic.h): the flow on two CPUs
 * at once. Loss is sent - received, not "missing". It trusts nothing of
 * xdp-steer but the id of its pinned cpumap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer.h"
#include "tool.h"
#include "traffic.h"
#include "observer.skel.h"

struct opts {
	const char *ifname;
	const char *out;
	const char *ready;
	const char *cpumap_pin[2];	/* --cpumap, up to twice */
	int npins;
	__u32 cpumap_id;
	bool drop;
	int verbose;
	const char *samples;
	long sample_ms;
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: observer --ifname IF [options]\n"
"Counts marked test frames at tc ingress of IF (run it in IF's namespace)\n"
"until SIGINT/SIGTERM, then writes a report.\n"
"  --out FILE        report to FILE (default: stdout)\n"
"  --ready FILE      create FILE once attached\n"
"  --drop            drop marked frames after counting them\n"
"  --cpumap PIN      pinned cpumap whose drops to count, up to twice\n"
"                    (xdp-steer's are cpu_map and cpu_map_b in the directory\n"
"                    'xdp-steer pin-dir IF' names)\n"
"  --cpumap-id ID    the same, by map id\n"
"  --samples FILE    every --sample-ms, each CPU's marked frames so far\n"
"  --sample-ms MS    (default 500)\n"
"  -v                libbpf messages\n");
}

/* Id of the pinned cpumap to watch; 0 (and a note) when there is none. */
static __u32 cpumap_id(const char *path)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd;

	fd = bpf_obj_get(path);
	if (fd < 0) {
		fprintf(stderr, "observer: no cpumap at %s (%s): cpumap drops "
			"are not counted\n", path, strerror(errno));
		return 0;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		info.id = 0;
	close(fd);
	return info.id;
}

static int report(const struct opts *o, struct observer_bpf *skel,
		  __u32 map_id)
{
	int ncpu = libbpf_num_possible_cpus();
	struct obs_cpu *cpus = NULL;
	struct obs_drops *dr = NULL;
	struct obs_cpu tot = {};
	struct obs_drops dtot = {};
	__u64 *flows_on = NULL;
	struct obs_flow f;
	__u32 zero = 0, id;
	FILE *out = stdout;
	int i, w, err = 0;

	if (ncpu < 0)
		return ncpu;
	cpus = calloc((size_t)ncpu, sizeof(*cpus));
	dr = calloc((size_t)ncpu, sizeof(*dr));
	flows_on = calloc(TRAFFIC_MAX_CPUS, sizeof(*flows_on));
	if (!cpus || !dr || !flows_on) {
		err = -ENOMEM;
		goto out;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.obs_cpu), &zero, cpus) ||
	    bpf_map_lookup_elem(bpf_map__fd(skel->maps.obs_drops), &zero, dr)) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < ncpu; i++) {
		tot.marked += cpus[i].marked;
		tot.marked_arp += cpus[i].marked_arp;
		tot.bad_flow += cpus[i].bad_flow;
		dtot.enqueue += dr[i].enqueue;
		dtot.kthread += dr[i].kthread;
		dtot.redirect_err += dr[i].redirect_err;
	}
	if (o->out && !(out = fopen(o->out, "w"))) {
		err = -errno;
		fprintf(stderr, "observer: %s: %s\n", o->out, strerror(errno));
		goto out;
	}
	fprintf(out, "ifname %s\ncpumap_id %u,%u\nmarked %llu\nmarked_arp %llu\n"
		"bad_flow %llu\ndrops_cpumap_enqueue %llu\n"
		"drops_cpumap_kthread %llu\ndrops_redirect_err %llu\n",
		o->ifname, map_id, skel->bss->obs_cpumap_ids[1],
		(unsigned long long)tot.marked,
		(unsigned long long)tot.marked_arp,
		(unsigned long long)tot.bad_flow,
		(unsigned long long)dtot.enqueue,
		(unsigned long long)dtot.kthread,
		(unsigned long long)dtot.redirect_err);

	/* Two passes over the flows (64k lookups each, cheap): the CPU lines
	 * need every flow and read best before the flow lines. */
	for (id = 0; id < TRAFFIC_MAX_FLOWS; id++) {
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.obs_flows), &id, &f)) {
			err = -errno;
			goto out_close;
		}
		for (i = 0; i < TRAFFIC_MAX_CPUS; i++)
			if (f.cpus[i / 64] & (1ull << (i % 64)))
				flows_on[i]++;
	}
	for (i = 0; i < ncpu && i < TRAFFIC_MAX_CPUS; i++)
		if (cpus[i].marked || flows_on[i])
			fprintf(out, "cpu %d marked %llu flows %llu\n", i,
				(unsigned long long)cpus[i].marked,
				(unsigned long long)flows_on[i]);
	for (id = 0; id < TRAFFIC_MAX_FLOWS; id++) {
		bool first = true;

		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.obs_flows), &id, &f)) {
			err = -errno;
			goto out_close;
		}
		if (!f.received)
			continue;
		fprintf(out, "flow %u cpus ", id);
		for (w = 0; w < TRAFFIC_MAX_CPUS; w++) {
			if (!(f.cpus[w / 64] & (1ull << (w % 64))))
				continue;
			fprintf(out, "%s%d", first ? "" : ",", w);
			first = false;
		}
		fprintf(out, " received %llu gaps %llu missing %llu late %llu "
			"last %llu switches %llu splits %llu\n",
			(unsigned long long)f.received,
			(unsigned long long)f.gaps,
			(unsigned long long)f.missing,
			(unsigned long long)f.late,
			(unsigned long long)f.last_seq,
			(unsigned long long)f.switches,
			(unsigned long long)f.splits);
	}
out_close:
	if (out != stdout && fclose(out) && !err)
		err = -errno;
	else if (out == stdout)
		fflush(out);
out:
	free(cpus);
	free(dr);
	free(flows_on);
	return err;
}

/* One "sample" line: each CPU's marked frames so far. */
static void sample(FILE *f, struct observer_bpf *skel, struct obs_cpu *v,
		   int ncpu, double t)
{
	__u32 zero = 0;
	int i;

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.obs_cpu), &zero, v))
		return;
	fprintf(f, "sample %.3f", t);
	for (i = 0; i < ncpu; i++)
		if (v[i].marked)
			fprintf(f, " %d:%llu", i, (unsigned long long)v[i].marked);
	fprintf(f, "\n");
	fflush(f);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Until SIGINT or SIGTERM (blocked in 'block'), a sample line every
 * o->sample_ms. */
static int sample_until_stopped(const struct opts *o, struct observer_bpf *skel,
				const sigset_t *block)
{
	int ncpu = libbpf_num_possible_cpus(), sig;
	struct timespec wait = { o->sample_ms / 1000,
				 o->sample_ms % 1000 * 1000000 };
	struct obs_cpu *v = ncpu > 0 ? calloc(ncpu, sizeof(*v)) : NULL;
	FILE *f = fopen(o->samples, "w");
	double t0 = mono();

	if (!v || !f) {
		fprintf(stderr, "observer: %s: %s\n", o->samples, strerror(errno));
		free(v);
		if (f)
			fclose(f);
		return -EIO;
	}
	while (!tool_stop) {
		sig = sigtimedwait(block, NULL, &wait);
		if (sig == SIGINT || sig == SIGTERM)
			tool_stop = 1;
		sample(f, skel, v, ncpu, mono() - t0);
	}
	fclose(f);
	free(v);
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "ready", required_argument, NULL, 'r' },
		{ "drop", no_argument, NULL, 'd' },
		{ "cpumap", required_argument, NULL, 'm' },
		{ "cpumap-id", required_argument, NULL, 'I' },
		{ "samples", required_argument, NULL, 's' },
		{ "sample-ms", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->ifname = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'r':
			o->ready = optarg;
			break;
		case 'd':
			o->drop = true;
			break;
		case 'm':
			if (o->npins == 2) {
				fprintf(stderr, "observer: --cpumap at most twice\n");
				return -EINVAL;
			}
			o->cpumap_pin[o->npins++] = optarg;
			break;
		case 'I':
			errno = 0;
			o->cpumap_id = (__u32)strtoul(optarg, &end, 0);
			if (errno || *end || end == optarg) {
				fprintf(stderr, "observer: bad map id '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 's':
			o->samples = optarg;
			break;
		case 'S':
			errno = 0;
			o->sample_ms = strtol(optarg, &end, 10);
			if (errno || *end || o->sample_ms < 10) {
				fprintf(stderr, "observer: bad --sample-ms '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc || !o->ifname) {
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .sample_ms = 500 };
	struct observer_bpf *skel;
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, tc, .handle = 1, .priority = 1);
	bool hook_created = false;
	sigset_t block, old;
	__u32 map_id;
	int ret;

	if (parse_args(argc, argv, &o))
		return 2;	/* usage error */
	tool_libbpf_verbosity(o.verbose);

	hook.ifindex = (int)if_nametoindex(o.ifname);
	if (!hook.ifindex) {
		fprintf(stderr, "observer: no interface %s here (%s); run it in"
			" the interface's namespace\n", o.ifname, strerror(errno));
		return 1;
	}
	skel = observer_bpf__open();
	if (!skel) {
		fprintf(stderr, "observer: opening the object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->obs_drop_marked = o.drop;
	ret = observer_bpf__load(skel);
	if (ret) {
		fprintf(stderr, "observer: loading: %s (needs root)\n", strerror(-ret));
		goto out;
	}
	map_id = o.cpumap_id;
	if (!map_id && o.npins)
		map_id = cpumap_id(o.cpumap_pin[0]);
	skel->bss->obs_cpumap_ids[0] = map_id;
	if (o.npins == 2)
		skel->bss->obs_cpumap_ids[1] = cpumap_id(o.cpumap_pin[1]);
	ret = observer_bpf__attach(skel);	/* the raw tracepoints */
	if (ret) {
		fprintf(stderr, "observer: attaching to the xdp tracepoints: %s\n",
			strerror(-ret));
		goto out;
	}

	ret = bpf_tc_hook_create(&hook);
	if (ret && ret != -EEXIST) {
		fprintf(stderr, "observer: clsact on %s: %s\n", o.ifname,
			strerror(-ret));
		goto out;
	}
	hook_created = !ret;
	tc.prog_fd = bpf_program__fd(skel->progs.observer_ingress);
	ret = bpf_tc_attach(&hook, &tc);
	if (ret) {
		fprintf(stderr, "observer: tc ingress on %s: %s\n", o.ifname,
			strerror(-ret));
		goto out_hook;
	}

	/* Blocked until sigsuspend(), so a signal cannot slip in between
	 * the test of 'tool_stop' and the wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	tool_stop_on_signals();
	tool_ready(o.ready);
	if (o.samples)
		sample_until_stopped(&o, skel, &block);
	while (!tool_stop)
		sigsuspend(&old);

	ret = report(&o, skel, map_id);
	if (ret)
		fprintf(stderr, "observer: reading the maps: %s\n", strerror(-ret));
	tc.prog_fd = 0;
	tc.prog_id = 0;
	tc.flags = 0;
	bpf_tc_detach(&hook, &tc);
out_hook:
	if (hook_created) {
		/* Both points: removes the clsact qdisc we added, so the next
		 * observer creates it anew instead of finding it. */
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
out:
	observer_bpf__destroy(skel);
	return ret ? 1 : 0;
}
