// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench_prog - per-frame cost of xdp-steer on the receiving CPU, measured
 * with bpf_prog_test_run_opts(repeat) against two baselines in the same run:
 * the cheapest XDP program (XDP_PASS) and the cheapest redirect to a fixed
 * CPU. Prints a table; asserts nothing.
 *
 * Rounds of every configuration are interleaved and the median is kept, so
 * a burst of other work on the machine moves all rows alike; differences
 * between rows are medians of differences within a round.
 *
 * --against OBJ: every xdp-steer row runs on OBJ as well (another build of
 * bpf/xdp_steer.bpf.c: an older commit's, a change being tried), right
 * after this tree's in each round, and a last table gives each row's
 * difference. Rows measured in one run differ by less than the same row
 * in two runs (2-5 ns apart here, one run to the next). OBJ's maps are
 * filled by this tree's code: it must share this tree's map layout, and
 * its hash and rule filter, for the rows to mean the same there.
 *
 * --direct: every timed program is attached first (attach_direct()), so
 * the kernel can call it as a driver does; a row of an XDP_PASS program
 * attached nowhere checks that it did.
 *
 * --insns: no timing; each row's instructions per frame instead, counted
 * by tests/bench/insn_count.py (insns.h), whose verdict must be the
 * kernel's for the same frame. The same on every machine (of one kernel):
 * where one commit measured +10 ns on one machine and +45 on another, the
 * count says which program runs more, --profile ROW which of its lines,
 * and --trace ROW every instruction it ran.
 */
#define _GNU_SOURCE	/* unshare() */
#include <errno.h>
#include <unistd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer.h"
#include "frame.h"
#include "prog_util.h"
#include "model/table.h"
#include "omit.h"
#include "insns.h"

/* Many short rounds, every row once per round: a burst of other work on a
 * shared machine then hits all rows alike, and a row's cost over another
 * is the median of their differences within each round, rows run
 * back to back. */
#define REPEAT		200000
#define ROUNDS		25
/* --quick: the rows of the budget only, shorter runs, more rounds: for
 * trying a change on a noisy machine. */
#define QUICK_REPEAT	50000
#define QUICK_ROUNDS	61
#define MAX_ROUNDS	QUICK_ROUNDS
static int rounds = ROUNDS, repeat = REPEAT, direct;
/* What a row's numbers are: nanoseconds, or with --insns instructions. */
static const char *unit = "ns";
static const char *fname[2] = { "IPv4 UDP", "IPv6 TCP" };
#define TARGET_CPU	1	/* not the CPU the bench runs on: a real hop */
#define BENCH_CPU	0

/* CFG_PASS_NOWHERE: a second XDP_PASS program, never attached: with
 * --direct, what the first saves by being attached says whether the
 * kernel called the attached programs directly in that run (near 0: it
 * did not; a few ns can be this VM's noise). */
enum cfg_kind { CFG_PASS, CFG_REDIRECT, CFG_MINIMAL, CFG_STEER,
		CFG_PASS_NOWHERE };

struct cfg {
	const char *name;
	enum cfg_kind kind;
	__u32 flags;		/* STEER_F_* */
	int nrules;		/* exact 5-tuple rules, none matching */
	int matching;		/* and one rule for each bench frame's flow */
	int nprefixes;		/* /24 source prefixes, none matching */
	__u32 drain_units;	/* with STEER_F_DRAIN: the drain timeout */
	int here;		/* every bucket to the bench CPU itself */
	int window;		/* the drain window open: a change under way */
	int cold;		/* every frame's bucket arrives cold at the
				 * fast path: no other CPU queues, so it
				 * needs no marker (drain.h, queued_lately()) */
	int omit;		/* 1 + the STEER_OMIT_BIT_ of a copy of the
				 * program with that part left out (omit.h) */
	int quick;		/* a row of --quick */
	int direct_only;	/* a row of --direct only */
};

/* The copies of the program with one part left out, in omit.h's order. */
static const struct {
	const char *name;
	const char *what;
} parts[] = {
#define PART_(name, what) { #name, what },
	STEER_OMIT_PARTS(PART_)
#undef PART_
	{ "ALL", "all of them at once" },
};
#define NPARTS (int)(sizeof(parts) / sizeof(parts[0]))

/* Drain rows: the steady state (the drain window closed: nothing stamped
 * or recorded), the window open as around a flip (every frame stamped,
 * its bucket's record read and written), the fast path (its buckets warm
 * there: a compare, their record's count stored, its tick once a tick),
 * and a timeout of 0, under which every frame finds its bucket cold and,
 * bound for the fast path, goes stamped through this CPU's own queue
 * first (what a bucket's first frames pay, once per drain timeout). */
#define DRAIN_DEFAULT	50

static const struct cfg cfgs[] = {
	{ "XDP_PASS (baseline)", CFG_PASS, .flags = 0, .quick = 1 },
	{ "redirect to a fixed CPU (baseline)", CFG_REDIRECT, .flags = 0,
	  .quick = 1 },
	{ "minimal software RSS (baseline)", CFG_MINIMAL, .flags = 0,
	  .quick = 1 },
	{ "xdp-steer, L3 key", CFG_STEER, .flags = 0 },
	{ "xdp-steer, L4 key", CFG_STEER, .flags = STEER_F_HASH_L4,
	  .quick = 1 },
	{ "xdp-steer, L4 key, symmetric", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_SYMMETRIC },
	{ "xdp-steer, L4 key, 1 rule", CFG_STEER, .flags = STEER_F_HASH_L4,
	  .nrules = 1 },
	{ "xdp-steer, L4 key, 100 rules", CFG_STEER, .flags = STEER_F_HASH_L4,
	  .nrules = 100 },
	{ "xdp-steer, L4 key, 10k rules", CFG_STEER, .flags = STEER_F_HASH_L4,
	  .nrules = 10000 },
	{ "xdp-steer, L4 key, 10k prefix rules", CFG_STEER,
	  .flags = STEER_F_HASH_L4, .nprefixes = 10000 },
	{ "xdp-steer, L4 key, drain", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_DRAIN,
	  .drain_units = DRAIN_DEFAULT, .quick = 1 },
	{ "xdp-steer, L4 key, drain, 1 rule", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_DRAIN, .nrules = 1,
	  .drain_units = DRAIN_DEFAULT },
	{ "xdp-steer, L4 key, drain, moving", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_DRAIN,
	  .drain_units = DRAIN_DEFAULT, .window = 1 },
	{ "fast path on, queued, drain", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH | STEER_F_DRAIN,
	  .drain_units = DRAIN_DEFAULT },
	{ "fast path, L4 key (XDP_PASS here)", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH, .here = 1,
	  .quick = 1 },
	{ "fast path, L4 key, drain", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH | STEER_F_DRAIN,
	  .drain_units = DRAIN_DEFAULT, .here = 1, .quick = 1 },
	{ "xdp-steer, L4 key, 1 rule matching the frame", CFG_STEER,
	  .flags = STEER_F_HASH_L4, .matching = 1 },
	{ "fast path, drain, every frame cold", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH | STEER_F_DRAIN,
	  .drain_units = 0, .here = 1, .cold = 1 },
	/* balance: the per-bucket load counters (steer_load) on. */
	{ "xdp-steer, L4 key, drain, balance", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_DRAIN | STEER_F_BALANCE,
	  .drain_units = DRAIN_DEFAULT },
	{ "fast path, L4 key, drain, balance", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_LOCAL_FASTPATH | STEER_F_DRAIN |
		   STEER_F_BALANCE,
	  .drain_units = DRAIN_DEFAULT, .here = 1 },
	/* The breakdown: the drain row's program less one part each. */
#define OMIT_ROW_(name, what) \
	{ "  drain row less " #name, CFG_STEER, \
	  .flags = STEER_F_HASH_L4 | STEER_F_DRAIN, \
	  .drain_units = DRAIN_DEFAULT, .omit = 1 + STEER_OMIT_BIT_##name, \
	  .quick = 1 },
	STEER_OMIT_PARTS(OMIT_ROW_)
#undef OMIT_ROW_
	{ "  drain row less all four", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_DRAIN,
	  .drain_units = DRAIN_DEFAULT, .omit = 1 + STEER_OMIT_NPARTS,
	  .quick = 1 },
	/* The id keys a plain frame carries (vlan and tunnel: bench_encap):
	 * each at most what the L4 key costs on the same frame. After the
	 * rows the summary names by their place (ROW_*). */
	{ "xdp-steer, src_port key", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_KEY_SPORT, .quick = 1 },
	{ "xdp-steer, dst_port key", CFG_STEER,
	  .flags = STEER_F_HASH_L4 | STEER_F_KEY_DPORT, .quick = 1 },
	{ "XDP_PASS attached nowhere (check)", CFG_PASS_NOWHERE,
	  .quick = 1, .direct_only = 1 },
};
#define ROW_REDIRECT	1	/* cfgs[] rows the summary compares */
#define ROW_MINIMAL	2
#define ROW_L4		4
#define ROW_RULES	6	/* 1, 100 and 10k exact rules */
#define ROW_PREFIXES	9
#define ROW_DRAIN	10
#define ROW_MOVING	12
#define ROW_FAST_QUEUED	13
#define ROW_FAST	14
#define ROW_FAST_DRAIN	15
#define ROW_MATCH	16
#define ROW_COLD	17
#define ROW_BALANCE	18
#define ROW_FAST_BALANCE 19
#define ROW_OMIT	20	/* the first breakdown row */
#define NCFG (int)(sizeof(cfgs) / sizeof(cfgs[0]))
#define ROW_PASS_NOWHERE (NCFG - 1)

struct baseline {
	struct bpf_object *obj;
	struct bpf_object *obj_nowhere;	/* a second copy: CFG_PASS_NOWHERE */
	int pass_fd;
	int pass_nowhere_fd;
	int redirect_fd;
	int minimal_fd;
};

/* The hash key of every row: xdp-steer's slots and bench_minimal alike. */
static void bench_hash_key(__u64 key[STEER_HASH_KEY_WORDS])
{
	int i;

	for (i = 0; i < STEER_HASH_KEY_WORDS; i++)
		key[i] = 0x9e3779b97f4a7c15ull * (i + 1);
}

/* bench_minimal's key and table (baseline.bpf.c): the key xdp-steer's
 * rows get, every bucket to TARGET_CPU. */
static int minimal_fill(struct bpf_object *obj)
{
	__u64 key[STEER_HASH_KEY_WORDS];
	__u32 i, cpu = TARGET_CPU, zero = 0;
	int kfd = bpf_object__find_map_fd_by_name(obj, "bench_key");
	int tfd = bpf_object__find_map_fd_by_name(obj, "bench_table");

	bench_hash_key(key);
	if (kfd < 0 || tfd < 0 || bpf_map_update_elem(kfd, &zero, key, BPF_ANY))
		return -ENOENT;
	for (i = 0; i < STEER_TABLE_MAX; i++)
		if (bpf_map_update_elem(tfd, &i, &cpu, BPF_ANY))
			return -errno;
	return 0;
}

static int baseline_open(struct baseline *b, const char *steer_obj)
{
	struct bpf_cpumap_val v = { .qsize = 256 };
	char path[4096];
	__u32 cpu = TARGET_CPU;
	char *slash;
	int fd;

	/* Beside the tests: <repo>/tests/bench/baseline.bpf.o. */
	snprintf(path, sizeof(path), "%s", steer_obj);
	slash = strstr(path, "bpf/xdp_steer.bpf.o");
	if (!slash)
		return -ENOENT;
	snprintf(slash, sizeof(path) - (slash - path), "tests/bench/baseline.bpf.o");
	b->obj = bpf_object__open_file(path, NULL);
	if (!b->obj)
		return -errno;
	if (bpf_object__load(b->obj))
		return -errno;
	b->pass_fd = bpf_program__fd(bpf_object__find_program_by_name(b->obj, "bench_pass"));
	b->redirect_fd = bpf_program__fd(bpf_object__find_program_by_name(b->obj, "bench_redirect"));
	b->minimal_fd = bpf_program__fd(bpf_object__find_program_by_name(b->obj, "bench_minimal"));
	b->obj_nowhere = bpf_object__open_file(path, NULL);
	if (!b->obj_nowhere)
		return -errno;
	if (bpf_object__load(b->obj_nowhere))
		return -errno;
	b->pass_nowhere_fd = bpf_program__fd(
		bpf_object__find_program_by_name(b->obj_nowhere, "bench_pass"));
	fd = bpf_object__find_map_fd_by_name(b->obj, "bench_cpumap");
	if (fd < 0 || bpf_map_update_elem(fd, &cpu, &v, BPF_ANY))
		return -errno;
	return minimal_fill(b->obj);
}

/* The xdp-steer policy of a row: every bucket to TARGET_CPU, the fast path
 * off, so each frame takes the same redirect as the baseline. */
static int steer_setup(struct steer_prog *p, const struct cfg *c,
		       const struct frame frames[2])
{
	struct steer_target t = { .ncpus = 1, .cpu = TARGET_CPU };
	struct steer_slot s = { .table_size = STEER_TABLE_DEFAULT,
				.nonip_cpu = STEER_CPU_LOCAL };
	struct steer_flow f;

	int i, err;

	bench_hash_key(s.hash_key);
	s.flags = c->flags;
	s.drain_units = c->drain_units;
	err = steer_prog_reset_policy(p);
	if (!err)
		err = steer_prog_reset_drain(p);
	/* A bench of a few seconds, well inside the window. */
	if (!err && c->window)
		err = steer_prog_window(p, 1u << 16);
	if (err)
		return err;
	for (i = 0; i < c->nrules; i++) {
		memset(&f, 0, sizeof(f));
		f.family = STEER_AF_INET;
		f.proto = IPPROTO_TCP;
		f.src[0] = htonl(0xc0a80000 + i);	/* 192.168.x.y */
		f.dst[0] = htonl(0xc0a90001);
		f.sport = htons(1000 + i % 50000);
		f.dport = htons(443);
		t.rule_id = i;
		err = steer_prog_add_flow_rule(p, 0, STEER_M_ALL, &f, &t);
		if (err)
			return err;
	}
	for (i = 0; i < 2 && c->matching; i++) {
		frame_flow(&frames[i], &f);
		t.rule_id = c->nrules + i;
		err = steer_prog_add_flow_rule(p, 0, STEER_M_ALL, &f, &t);
		if (err)
			return err;
	}
	if (c->nrules || c->matching)
		steer_slot_add_shape(&s, STEER_M_ALL);
	for (i = 0; i < c->nprefixes; i++) {
		memset(&f, 0, sizeof(f));
		f.family = STEER_AF_INET;
		f.src[0] = htonl(0xac100000 + (i << 8));	/* 172.16.0.0/24 ... */
		t.rule_id = c->nrules + i;
		err = steer_prog_add_prefix(p, 0, STEER_M_SRC | STEER_M_PREFIX_SRC,
					    &f, 24, &t);
		if (err)
			return err;
	}
	if (c->nprefixes)
		steer_slot_add_shape(&s, STEER_M_SRC | STEER_M_PREFIX_SRC);
	err = steer_prog_fill_table(p, 0, c->here ? BENCH_CPU : TARGET_CPU,
				    s.table_size);
	if (!err)
		err = steer_prog_write_slot(p, 0, &s);
	if (!err)
		err = steer_prog_set_active(p, 0);
	/* The fast path's receive queue (0 in a test run) and buckets warm,
	 * as once traffic has settled (but in the cold row). */
	if (!err && c->here)
		err = steer_prog_rxq_on(p, 0, BENCH_CPU);
	for (i = 0; !err && i < 2 && c->here && (c->flags & STEER_F_DRAIN) &&
		    !c->cold; i++) {
		int frag = frame_flow(&frames[i], &f);

		err = steer_prog_warm_bucket(p, BENCH_CPU,
			steer_table_index(steer_flow_hash(&f, s.hash_key,
							  s.flags, frag),
					  STEER_TABLE_MAX),
			STEER_TARGET_LOCAL | BENCH_CPU);
	}
	return err;
}

static int run(int prog_fd, const struct frame *f, __u32 *ns, int *verdict)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->buf,
		    .data_size_in = f->len, .repeat = repeat);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	*ns = o.duration;
	*verdict = o.retval;
	return 0;
}

/* The value of the first /proc/cpuinfo line starting with 'key'. */
static const char *cpuinfo(const char *key)
{
	static char vals[2][64];
	static int n;
	char line[256], *v = vals[n++ & 1];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(v, sizeof(vals[0]), "?");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)) || !strchr(line, ':'))
			continue;
		snprintf(v, sizeof(vals[0]), "%s", strchr(line, ':') + 2);
		v[strcspn(v, "\n")] = '\0';
		break;
	}
	if (f)
		fclose(f);
	return v;
}

/* The kernel's one-line account of a CPU vulnerability's mitigation. */
static const char *vuln(const char *name)
{
	static char vals[2][160];
	static int n;
	char path[128], *v = vals[n++ & 1];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/vulnerabilities/%s", name);
	snprintf(v, sizeof(vals[0]), "unknown");
	f = fopen(path, "r");
	if (f && fgets(v, sizeof(vals[0]), f))
		v[strcspn(v, "\n")] = '\0';
	if (f)
		fclose(f);
	return v;
}

/* Costs differ between machines of one kind (retpolines, microcode): the
 * table says where it was measured. */
static void print_machine(void)
{
	char line[256], model[256] = "unknown";
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
	uname(&u);
	printf("CPU: %s (family %s, model %s); kernel %s\n", model,
	       cpuinfo("cpu family"), cpuinfo("model\t"), u.release);
	/* What every call out of the program costs depends on these. */
	printf("mitigations: spectre_v2: %s; spec_rstack_overflow: %s\n",
	       vuln("spectre_v2"), vuln("spec_rstack_overflow"));
}

static int cmp_u32(const void *a, const void *b)
{
	return *(const __u32 *)a < *(const __u32 *)b ? -1 :
	       *(const __u32 *)a > *(const __u32 *)b;
}

static int cmp_s32(const void *a, const void *b)
{
	return *(const __s32 *)a < *(const __s32 *)b ? -1 :
	       *(const __s32 *)a > *(const __s32 *)b;
}

/* Median over rounds of row a's time minus row b's, frame k. */
static double delta(__u32 ns[][2][MAX_ROUNDS], int a, int b, int k)
{
	__s32 d[MAX_ROUNDS];
	int r;

	for (r = 0; r < rounds; r++)
		d[r] = (__s32)ns[a][k][r] - (__s32)ns[b][k][r];
	qsort(d, rounds, sizeof(d[0]), cmp_s32);
	return d[rounds / 2];
}

static void print_delta(const char *what, __u32 ns[][2][MAX_ROUNDS], int a, int b)
{
	int k;

	printf("%s:", what);
	for (k = 0; k < 2; k++)
		printf(" %s %+.0f %s%s", fname[k], delta(ns, a, b, k), unit,
		       k ? "\n" : ",");
}

static void build_frames(struct frame *v4, struct frame *v6)
{
	frame_init(v4);
	frame_eth(v4, ETH_P_IP);
	frame_ipv4(v4, &(struct frame_ip4){ .src = "10.0.0.1", .dst = "10.0.0.2",
					      .proto = IPPROTO_UDP });
	frame_udp(v4, 1234, 5678);
	frame_payload_fill(v4, 64 - 14 - 20 - 8, 0);	/* 64 bytes in all */
	frame_finish(v4);

	frame_init(v6);
	frame_eth(v6, ETH_P_IPV6);
	frame_ipv6(v6, &(struct frame_ip6){ .src = "2001:db8::1", .dst = "2001:db8::2",
					      .nexthdr = IPPROTO_TCP });
	frame_tcp(v6, 1234, 443);
	frame_finish(v6);	/* 74 bytes: the smallest IPv6 TCP frame */
}

/* Loads the program at 'path' with maps of its own, and the cpumap
 * entries of the target CPU and of the bench CPU (where a fast path's
 * marker would go). */
static int open_prog(struct steer_prog *p, const char *path)
{
	int err = steer_prog_open(p, path);

	if (err) {
		fprintf(stderr, "bench_prog: cannot load %s: %s (run as root after 'make')\n",
			path, strerror(-err));
		return err;
	}
	if (p->ncpus <= TARGET_CPU) {
		fprintf(stderr, "bench_prog: needs CPUs %d and %d\n", BENCH_CPU, TARGET_CPU);
		return -ENODEV;
	}
	err = steer_prog_add_cpu(p, TARGET_CPU, 256, p->worker_fd);
	if (!err)
		err = steer_prog_add_cpu(p, BENCH_CPU, 256, p->worker_fd);
	if (err)
		fprintf(stderr, "bench_prog: cannot add CPUs %d and %d to the cpumap: %s\n",
			BENCH_CPU, TARGET_CPU, strerror(-err));
	return err;
}

/* progs[0]: the program; progs[1 + i]: its copy less part i (omit.h),
 * built beside the tests. */
static int open_progs(struct steer_prog progs[1 + NPARTS], const char *obj)
{
	char path[4096], *tail;
	int i, err;

	for (i = 0; i <= NPARTS; i++) {
		snprintf(path, sizeof(path), "%s", obj);
		tail = strstr(path, "bpf/xdp_steer.bpf.o");
		if (i && tail)
			snprintf(tail, sizeof(path) - (tail - path),
				 "tests/bench/omit/%s.bpf.o", parts[i - 1].name);
		err = open_prog(&progs[i], path);
		if (err)
			return err;
	}
	return 0;
}

/* A row this run runs. */
static int row_on(int c, int quick)
{
	return (!quick || cfgs[c].quick) && (direct || !cfgs[c].direct_only);
}

/* The verdict row c's frames get. */
static int row_verdict(int c)
{
	return cfgs[c].kind == CFG_PASS || cfgs[c].kind == CFG_PASS_NOWHERE ||
	       cfgs[c].here ? XDP_PASS : XDP_REDIRECT;
}

/* Times row c's program 'fd' on both frames in round r; checks the
 * verdict the row expects. */
static int run_row(int c, int fd, const struct frame frames[2],
		   __u32 ns[2][MAX_ROUNDS], int r)
{
	int k, verdict = -1;

	for (k = 0; k < 2; k++) {
		if (run(fd, &frames[k], &ns[k][r], &verdict)) {
			fprintf(stderr, "bench_prog: test run failed: %s\n", strerror(errno));
			return -1;
		}
		if (verdict != row_verdict(c)) {
			fprintf(stderr, "bench_prog: '%s' returned verdict %d\n", cfgs[c].name, verdict);
			return -1;
		}
	}
	return 0;
}

/* The kernel's runs of a row's two frames (insns_runs_in_one_tick()). */
struct row_runs {
	int fd;
	const struct frame *frames;
	int verdict[2];
};

static int row_runs(void *arg)
{
	struct row_runs *r = arg;
	__u32 ns;
	int k;

	for (k = 0; k < 2; k++)
		if (run(r->fd, &r->frames[k], &ns, &r->verdict[k]))
			return -errno;
	return 0;
}

/* --insns: row c's instructions per frame, counted by the model
 * (insns.h) into counts[k][0]. The kernel runs each frame once first
 * (repeat is 1); the model then runs each, as the timed rows' runs but the
 * first do, on the maps as the kernel left them and at the clock read
 * right after the kernel's runs, in their tick (a bucket warm then is
 * warm in the model): both frames in one run of the tool. It must reach
 * the kernel's verdict, or it took another path and its count means
 * nothing. */
static int count_row(int c, int fd, const struct frame frames[2],
		     __u32 counts[2][MAX_ROUNDS], const char *tool,
		     const char *show)
{
	struct row_runs r = { .fd = fd, .frames = frames };
	struct insns_frame f[2];
	char name[2][256], title[2][320];
	__u64 now = 0;
	int k, err;

	err = insns_runs_in_one_tick(row_runs, &r, &now);
	if (err) {
		fprintf(stderr, "bench_prog: test run or the datapath's clock failed: %s\n",
			strerror(-err));
		return -1;
	}
	for (k = 0; k < 2; k++) {
		snprintf(name[k], sizeof(name[k]), "%s, %s", cfgs[c].name,
			 fname[k]);
		snprintf(title[k], sizeof(title[k]), "%s: %s", name[k],
			 show && !strcmp(show, "--trace") ?
			 "every instruction run" :
			 "instructions per source line");
		f[k] = (struct insns_frame){
			.buf = frames[k].buf, .len = frames[k].len,
			.name = name[k], .title = title[k],
			.kernel_verdict = r.verdict[k],
		};
	}
	if (insns_count_checked("bench_prog", tool, fd, f, 2, BENCH_CPU, now,
				show, row_verdict(c)))
		return -1;
	for (k = 0; k < 2; k++)
		counts[k][0] = f[k].insns;
	return 0;
}

/* A row whose frames a rule places: did they find it? They miss it in a
 * program whose rule filter bit (include/xdp_steer/filter.h) differs from the
 * one this tree's setup sets, and the row then times something else. */
static int check_matched(const struct steer_prog *p, int c, const char *obj)
{
	struct steer_stats st;

	if (!cfgs[c].matching)
		return 0;
	if (steer_prog_read_stats(p, &st) || !st.rule_flow_hits) {
		fprintf(stderr, "bench_prog: '%s': no frame found its rule in %s: is its rule filter this tree's?\n",
			cfgs[c].name, obj);
		return -1;
	}
	return 0;
}

/* A row --against runs on the other program too: xdp-steer's own rows,
 * not the baselines or the copies less a part. */
static int row_against(int c)
{
	return cfgs[c].kind == CFG_STEER && !cfgs[c].omit;
}

/* --direct. test_run calls a program through the kernel's XDP dispatcher
 * (bpf_dispatcher_xdp_func): a direct call for a program attached to an
 * interface (up to 48 of them), as a driver's NAPI poll calls it; an
 * indirect call (a retpoline where spectre_v2 says Retpolines) for one
 * attached nowhere, which is what the plain run times. Each program goes
 * on a veth of a network namespace this process makes for itself (generic
 * XDP: no frame ever crosses these interfaces), so nothing outside it is
 * touched, and the namespace with its programs goes away when the process
 * ends, however it ends. */
static int attach_direct(const int *fds, int n)
{
	char cmd[128], name[IFNAMSIZ];
	int i, ifindex;

	if (unshare(CLONE_NEWNET))
		return -errno;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "bench%d", i);
		snprintf(cmd, sizeof(cmd),
			 "ip link add %s type veth peer name %sp", name, name);
		if (system(cmd))
			return -ENODEV;
		ifindex = if_nametoindex(name);
		if (!ifindex ||
		    bpf_xdp_attach(ifindex, fds[i], XDP_FLAGS_SKB_MODE, NULL))
			return -errno;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_prog [--quick] [--direct] [--against OBJ]\n"
		"       bench_prog --insns [--quick] [--against OBJ] [--profile|--trace ROW]\n"
		"  --quick        the rows of the budgets only, shorter runs, more rounds\n"
		"  --direct       each program attached first (generic XDP, on a veth of\n"
		"                 a network namespace of the bench's own), for the\n"
		"                 kernel to call directly, as from a driver, not through\n"
		"                 a retpolined indirect call (a row checks that it did)\n"
		"  --against OBJ  time each xdp-steer row on OBJ too (another build of\n"
		"                 bpf/xdp_steer.bpf.c) and print the differences\n"
		"  --insns        count each row's instructions per frame instead of\n"
		"                 timing it (tests/bench/insn_count.py: a model of the\n"
		"                 verified program, its verdict checked against the kernel's)\n"
		"  --profile ROW  with --insns: ROW's instructions per source line\n"
		"  --trace ROW    with --insns: every instruction ROW runs\n");
}

int main(int argc, char **argv)
{
	/* [NCFG + c]: row c on the --against program. */
	static __u32 ns[2 * NCFG][2][MAX_ROUNDS];
	static struct steer_prog progs[1 + NPARTS], other;
	__u32 sorted[MAX_ROUNDS];
	struct frame frames[2];
	struct steer_prog *p;
	struct baseline b = {};
	char obj[4096], what[256];
	const char *against = NULL, *profile = NULL, *show = NULL;
	char tool[4096];
	double med[NCFG][2];
	int c, r, k, i, err, fd, quick = 0, nfds = 0, insns = 0, shown = 0;
	int this_row;
	int fds[3 + 1 + NPARTS + 1];	/* baselines, progs[], other */

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
			rounds = QUICK_ROUNDS;
			repeat = QUICK_REPEAT;
		} else if (!strcmp(argv[i], "--direct")) {
			direct = 1;
		} else if (!strcmp(argv[i], "--against") && i + 1 < argc) {
			against = argv[++i];
		} else if (!strcmp(argv[i], "--insns")) {
			insns = 1;
		} else if ((!strcmp(argv[i], "--profile") ||
			    !strcmp(argv[i], "--trace")) && i + 1 < argc) {
			show = argv[i];
			profile = argv[++i];
		} else {
			usage();
			return 2;
		}
	}

	if ((insns && direct) || (profile && !insns)) {
		usage();
		return 2;
	}
	if (insns) {
		/* One round, each frame run once: counts do not vary. */
		rounds = 1;
		repeat = 1;
		unit = "insns";
		if (insns_tool_path("bench_prog", tool, sizeof(tool)))
			return 1;
	}
	if (steer_prog_find_obj(obj, sizeof(obj))) {
		fprintf(stderr, "bench_prog: cannot find bpf/xdp_steer.bpf.o (run 'make')\n");
		return 1;
	}
	if (open_progs(progs, obj) || (against && open_prog(&other, against)))
		return 1;
	err = baseline_open(&b, obj);
	if (err) {
		fprintf(stderr, "bench_prog: baseline programs: %s\n", strerror(-err));
		return 1;
	}
	if (direct) {
		fds[nfds++] = b.pass_fd;
		fds[nfds++] = b.redirect_fd;
		fds[nfds++] = b.minimal_fd;
		for (i = 0; i <= NPARTS; i++)
			fds[nfds++] = progs[i].prog_fd;
		if (against)
			fds[nfds++] = other.prog_fd;
		err = attach_direct(fds, nfds);
		if (err) {
			fprintf(stderr, "bench_prog: --direct: cannot attach the programs in a namespace of their own: %s (needs root, iproute2 and veth)\n",
				strerror(-err));
			return 1;
		}
	}
	steer_pin_cpu(BENCH_CPU);
	build_frames(&frames[0], &frames[1]);

	for (r = 0; r < rounds; r++)
		for (c = 0; c < NCFG; c++) {
			if (!row_on(c, quick))
				continue;
			p = &progs[cfgs[c].omit];
			if (cfgs[c].kind == CFG_STEER &&
			    steer_setup(p, &cfgs[c], frames)) {
				fprintf(stderr, "bench_prog: setting up '%s' failed\n", cfgs[c].name);
				return 1;
			}
			fd = cfgs[c].kind == CFG_PASS ? b.pass_fd :
			     cfgs[c].kind == CFG_REDIRECT ? b.redirect_fd :
			     cfgs[c].kind == CFG_MINIMAL ? b.minimal_fd :
			     cfgs[c].kind == CFG_PASS_NOWHERE ? b.pass_nowhere_fd :
			     p->prog_fd;
			this_row = profile && !strcmp(profile, cfgs[c].name);
			shown |= this_row;
			if ((insns ? count_row(c, fd, frames, ns[c], tool,
					       this_row ? show : NULL) :
				     run_row(c, fd, frames, ns[c], r)) ||
			    (!r && check_matched(p, c, obj)))
				return 1;
			if (!against || !row_against(c))
				continue;
			/* A layout this tree's setup cannot fill (an older
			 * struct steer_slot, say) fails here. */
			if (steer_setup(&other, &cfgs[c], frames)) {
				fprintf(stderr, "bench_prog: setting up '%s' in %s failed: are its maps those of this tree?\n",
					cfgs[c].name, against);
				return 1;
			}
			if ((insns ? count_row(c, other.prog_fd, frames,
					       ns[NCFG + c], tool, NULL) :
				     run_row(c, other.prog_fd, frames,
					     ns[NCFG + c], r)) ||
			    (!r && check_matched(&other, c, against)))
				return 1;
		}

	if (profile && !shown) {
		fprintf(stderr, "bench_prog: %s %s: no such row%s (the names as the table prints them)\n",
			show, profile, quick ? " in --quick" : "");
		return 1;
	}
	if (insns)
		printf("Instructions per frame on the receiving CPU: each row's verified program run once in a model (tests/bench/insn_count.py), its verdict the kernel's; CPU %d, target CPU %d\n\n",
		       BENCH_CPU, TARGET_CPU);
	else
		printf("Per-frame cost on the receiving CPU: bpf_prog_test_run_opts, %d runs x %d rounds, median; CPU %d, target CPU %d\n%s\n\n",
		       repeat, rounds, BENCH_CPU, TARGET_CPU, direct ?
		       "--direct: each program attached (generic XDP, a namespace of its own), for the XDP dispatcher to call directly as from a driver (whether it did: the check below)" :
		       "each program attached nowhere: test_run calls it by an indirect call, a retpoline where spectre_v2 says Retpolines (--direct: as from a driver)");
	print_machine();
	printf("\n");
	printf("%-38s %14s %14s\n", "program", "IPv4 UDP 64B", "IPv6 TCP 74B");
	for (c = 0; c < NCFG; c++) {
		if (!row_on(c, quick))
			continue;
		for (k = 0; k < 2; k++) {
			memcpy(sorted, ns[c][k], sizeof(sorted));
			qsort(sorted, rounds, sizeof(__u32), cmp_u32);
			med[c][k] = sorted[rounds / 2];
		}
		printf("%-38s %11.0f %-5s %8.0f %s\n", cfgs[c].name,
		       med[c][0], unit, med[c][1], unit);
	}
	printf("\n");
	if (direct)
		print_delta("--direct's check: XDP_PASS attached nowhere over attached (near 0: the kernel did not call the attached programs directly in this run; a few ns can be noise)",
			    ns, ROW_PASS_NOWHERE, 0);
	print_delta("the minimal software RSS over the fixed-CPU redirect (what steering at all costs here)",
		    ns, ROW_MINIMAL, ROW_REDIRECT);
	print_delta("xdp-steer (L4 key, no rules) over the fixed-CPU redirect",
		    ns, ROW_L4, ROW_REDIRECT);
	print_delta("xdp-steer (L4 key, no rules, drain) over the fixed-CPU redirect (budget 15 ns)",
		    ns, ROW_DRAIN, ROW_REDIRECT);
	print_delta("xdp-steer (L4 key, no rules, drain) over the minimal software RSS (what the design adds)",
		    ns, ROW_DRAIN, ROW_MINIMAL);
	print_delta("drain bookkeeping, queued, steady state (budget 5 ns)", ns,
		    ROW_DRAIN, ROW_L4);
	print_delta("drain bookkeeping, fast path, steady state (budget 5 ns)",
		    ns, ROW_FAST_DRAIN, ROW_FAST);
	if (quick)
		goto breakdown;
	print_delta("1 exact rule, matching no frame (budget 10 ns)", ns,
		    ROW_RULES, ROW_L4);
	print_delta("100 exact rules (budget 10 ns)", ns, ROW_RULES + 1, ROW_L4);
	print_delta("10k exact rules (budget 10 ns)", ns, ROW_RULES + 2, ROW_L4);
	print_delta("10k prefix rules (budget 10 ns)", ns, ROW_PREFIXES, ROW_L4);
	print_delta("a frame an exact rule places (the lookup the filter lets through)",
		    ns, ROW_MATCH, ROW_L4);
	print_delta("drain bookkeeping, queued, while buckets move", ns,
		    ROW_MOVING, ROW_L4);
	print_delta("drain bookkeeping, fast path on, frames queued", ns,
		    ROW_FAST_QUEUED, ROW_L4);
	print_delta("a cold bucket's frame on the fast path (no other CPU queues: their ticks scanned, no marker)",
		    ns, ROW_COLD, ROW_FAST_DRAIN);
	print_delta("per-bucket load counters (balance:), queued", ns,
		    ROW_BALANCE, ROW_DRAIN);
	print_delta("per-bucket load counters (balance:), fast path", ns,
		    ROW_FAST_BALANCE, ROW_FAST_DRAIN);
breakdown:
	printf("\nBreakdown: what each part of the drain row costs (the row less the part)\n");
	for (i = 0; i < NPARTS; i++) {
		snprintf(what, sizeof(what), "  %s", parts[i].what);
		print_delta(what, ns, ROW_DRAIN, ROW_OMIT + i);
	}
	print_delta("  what is left without all four, over the fixed-CPU redirect",
		    ns, ROW_OMIT + NPARTS - 1, ROW_REDIRECT);
	if (against) {
		printf("\nThis tree's program against %s: each row's %s here less there\n",
		       against, insns ? "count" : "time");
		for (c = 0; c < NCFG; c++) {
			if (!row_on(c, quick) || !row_against(c))
				continue;
			snprintf(what, sizeof(what), "  %s", cfgs[c].name);
			print_delta(what, ns, c, NCFG + c);
		}
		steer_prog_close(&other);
	}
	for (i = 0; i <= NPARTS; i++)
		steer_prog_close(&progs[i]);
	bpf_object__close(b.obj);
	bpf_object__close(b.obj_nowhere);
	return 0;
}
