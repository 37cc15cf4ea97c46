// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: plan_make() (loader/model/plan.c), what `apply --dry-run`
 * says an apply would change. One table row per case: description, the
 * policy in force and the new one (YAML, on CPUs 0-7), the kernel's side
 * (the class of the kthreads in force, workers whose kthread may run off
 * its CPU), and the plan expected, written out as one line. The builds
 * are made as an apply makes them: policy_compile(), then
 * build_keep_key(), build_next_table() against the table and weights in
 * force, build_choose_bank(), and the bank switch a renewed kthread
 * brings (kernel/slots.c, prepare()). The cpumap in force holds the
 * entries the policy in force needs, in its bank, of its queue_size.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>

#include "model/plan.h"
#include "policy/compile.h"
#include "test.h"

#define V1 "version: 1\n"
#define W01 V1 "cpus: [0-1]\n"

struct plan_case {
	const char *desc;
	const char *old;		/* NULL: no policy in force */
	const char *next;
	const char *sched;		/* kthreads in force: "other 10" (nice),
					 * "fifo 7" (priority); NULL: other 10 */
	const char *renew;		/* CPU list; NULL: none */
	const char *want;		/* dump() of the plan */
};

static const struct plan_case cases[] = {
	{ "the policy in force changes nothing", W01, W01, NULL, NULL,
	  "no change" },
	{ "the policy in force with a random seed keeps its key: no rehash, no move",
	  W01 "hash: {seed: random}\n", W01 "hash: {seed: random}\n", NULL,
	  NULL, "no change" },
	{ "the policy in force with a fixed seed changes nothing",
	  W01 "hash: {seed: 7}\n", W01 "hash: {seed: 7}\n", NULL, NULL,
	  "no change" },
	{ "a worker added takes its share from each, and gets an entry",
	  W01, V1 "cpus: [0-2]\n", NULL, NULL,
	  "workers +2:1; moved 170/512 0>2:85 1>2:85; cpumap 2 created 0>2048; sched 2 other/0>other/10" },
	{ "a worker removed gives its buckets to the others, its entry goes",
	  V1 "cpus: [0-2]\n", W01, NULL, NULL,
	  "workers -2:1; moved 170/512 2>0:85 2>1:85; cpumap 2 removed 2048>0" },
	{ "a weight changed moves only the difference",
	  W01, V1 "cpus: [0, {cpu: 1, weight: 3}]\n", NULL, NULL,
	  "workers 1:1>3; moved 128/512 0>1:128" },
	{ "a bigger table with the same workers moves no flow",
	  W01, W01 "table_size: 1024\n", NULL, NULL,
	  "moved 0/1024; set table_size 512>1024" },
	{ "a smaller table moves the parts of the hash space whose CPU changes, in the larger's buckets",
	  V1 "cpus: [0-2]\n", V1 "cpus: [0-2]\ntable_size: 256\n", NULL, NULL,
	  "moved 256/512 0>2:85 1>0:86 2>1:85; set table_size 512>256" },
	{ "a new queue_size makes every entry anew in the other bank",
	  W01, W01 "queue_size: 4096\n", NULL, NULL,
	  "cpumap 0 resized 2048>4096, 1 resized 2048>4096; set queue_size 2048>4096" },
	{ "a fixed seed after a random one rehashes every flow",
	  W01, W01 "hash: {seed: 7}\n", NULL, NULL,
	  "rehash; set hash.seed random>a fixed seed, another key" },
	{ "another fixed seed rehashes every flow",
	  W01 "hash: {seed: 7}\n", W01 "hash: {seed: 8}\n", NULL, NULL,
	  "rehash; set hash.seed a fixed seed>a fixed seed, another key" },
	{ "a random seed after a fixed one draws a new key",
	  W01 "hash: {seed: 7}\n", W01 "hash: {seed: random}\n", NULL, NULL,
	  "rehash; set hash.seed a fixed seed>random, a new key drawn" },
	{ "settings say what they were and what they become",
	  W01, W01 "hash: {key: l3, symmetric: true}\nlocal_fastpath: false\n"
	  "rebalance: immediate\ndrain_timeout: 80\nnon_ip: {cpu: 1}\n"
	  "decap: [gre]\nbalance: off\n", NULL, NULL,
	  "set hash.key l4>l3; set hash.symmetric false>true; "
	  "set local_fastpath true>false; set rebalance drain>immediate; "
	  "set drain_timeout 50>80; set non_ip local>cpu 1; "
	  "set decap pppoe, mpls, gre, ipip, vxlan 4789, geneve 6081, gtpu 2152, esp>gre; "
	  "set balance {by: cpu, interval: 1000, tolerance: 5, max_moves: 16}>off" },
	{ "a rule added, one removed, one whose CPU changes",
	  W01 "rules:\n"
	  "  - {match: {proto: tcp, dst_port: 443}, cpu: 0}\n"
	  "  - {match: {src: 10.1.0.0/16}, cpus: [0-1]}\n",
	  W01 "rules:\n"
	  "  - {match: {proto: tcp, dst_port: 443}, cpu: 1}\n"
	  "  - {match: {proto: udp, dst_port: 53}, cpu: 0}\n", NULL, NULL,
	  "rule ~exact r1 0>r1 1; rule +exact r2 0; rule -prefix r2 0-1" },
	{ "rules that only change order change their rule numbers",
	  W01 "rules:\n"
	  "  - {match: {proto: tcp, dst_port: 443}, cpu: 0}\n"
	  "  - {match: {proto: udp, dst_port: 53}, cpu: 1}\n",
	  W01 "rules:\n"
	  "  - {match: {proto: udp, dst_port: 53}, cpu: 1}\n"
	  "  - {match: {proto: tcp, dst_port: 443}, cpu: 0}\n", NULL, NULL,
	  "rule ~exact r1 0>r2 0; rule ~exact r2 1>r1 1" },
	{ "a rule's CPU set weighted anew changes, though its CPUs stay",
	  W01 "rules:\n  - {match: {src: 10.1.0.0/16}, cpus: [0-1]}\n",
	  W01 "rules:\n  - {match: {src: 10.1.0.0/16}, cpus: [0, {cpu: 1, weight: 2}]}\n",
	  NULL, NULL, "rule ~prefix r1 0-1>r1 0-1" },
	{ "a rule's CPU outside the workers gets an entry",
	  W01, W01 "rules:\n  - {match: {proto: tcp, dst_port: 22}, cpu: 5}\n",
	  NULL, NULL, "rule +exact r1 5; cpumap 5 created 0>2048; sched 5 other/0>other/10" },
	{ "worker_sched: the kthreads in force change class",
	  W01 "worker_sched: keep\n", W01 "worker_sched: {policy: fifo, priority: 7}\n",
	  "other 10", NULL,
	  "sched 0 other/10>fifo/7, 1 other/10>fifo/7" },
	{ "worker_sched already in force changes nothing",
	  W01 "worker_sched: {policy: fifo, priority: 7}\n",
	  W01 "worker_sched: {policy: fifo, priority: 7}\n", "fifo 7", NULL,
	  "no change" },
	{ "worker_sched: a kthread set by hand since is set again",
	  W01 "worker_sched: {policy: fifo, priority: 7}\n",
	  W01 "worker_sched: {policy: fifo, priority: 7}\n", "other 0", NULL,
	  "sched 0 other/0>fifo/7, 1 other/0>fifo/7" },
	{ "worker_sched: a new worker's kthread starts at nice 0",
	  W01, V1 "cpus: [0-2]\n", "other 10", NULL,
	  "workers +2:1; moved 170/512 0>2:85 1>2:85; cpumap 2 created 0>2048; sched 2 other/0>other/10" },
	{ "worker_sched keep leaves a new worker's kthread as the kernel makes it",
	  W01 "worker_sched: keep\n", V1 "cpus: [0-2]\nworker_sched: keep\n",
	  "other 0", NULL,
	  "workers +2:1; moved 170/512 0>2:85 1>2:85; cpumap 2 created 0>2048" },
	{ "a new queue_size keeps the workers' class on their new kthreads",
	  W01 "worker_sched: {policy: fifo, priority: 7}\n",
	  W01 "queue_size: 4096\nworker_sched: {policy: fifo, priority: 7}\n", "fifo 7", NULL,
	  "cpumap 0 resized 2048>4096, 1 resized 2048>4096; set queue_size 2048>4096" },
	{ "a new queue_size and another class: the workers' class changes",
	  W01, W01 "queue_size: 4096\nworker_sched: {policy: rr, priority: 3}\n", "other 10", NULL,
	  "cpumap 0 resized 2048>4096, 1 resized 2048>4096; sched 0 other/10>rr/3, 1 other/10>rr/3; set queue_size 2048>4096" },
	{ "a kthread off its CPU gets a new entry in the other bank",
	  W01, W01, NULL, "1",
	  "cpumap 0 renewed 2048>2048, 1 renewed 2048>2048" },
	{ "no policy in force: the whole policy is new", NULL, W01, NULL, NULL,
	  "first; workers +0:1 +1:1; cpumap 0 created 0>2048, 1 created 0>2048; sched 0 other/0>other/10, 1 other/0>other/10" },
};

/* ---- the builds, as an apply makes them ------------------------------------ */

static int compile(const char *text, struct steer_build *b)
{
	struct steer_policy p;
	struct cpu_set on;
	struct diags d;
	char why[512];
	int err, i;

	memset(b, 0, sizeof(*b));
	cpuset_parse(&on, "0-7");
	err = policy_parse_string(text, strlen(text), "p.yaml", &on, &p, &d);
	for (i = 0; err && i < d.n; i++)
		printf("  %s\n", diag_format(&d, i, why, sizeof(why)));
	diags_free(&d);
	if (!err)
		err = policy_compile(&p, NULL, b, &WHY(why));
	policy_free(&p);
	return err;
}

static void weights_of(const struct steer_build *b, __u32 *w)
{
	int i;

	memset(w, 0, STEER_CPU_IDS * sizeof(*w));
	for (i = 0; i < b->ncpus; i++)
		w[b->cpus[i].cpu] = b->cpus[i].weight;
}

static void parse_sched(const char *s, struct plan_sched *out)
{
	char name[16];
	int v = 10;

	*out = (struct plan_sched){ true, SCHED_OTHER, 0, 10 };
	if (!s || sscanf(s, "%15s %d", name, &v) != 2)
		return;
	if (!strcmp(name, "other"))
		out->nice = v;
	else {
		out->policy = !strcmp(name, "fifo") ? SCHED_FIFO : SCHED_RR;
		out->priority = v;
		out->nice = 0;
	}
}

/* ---- the plan as one line ---------------------------------------------------- */

struct sbuf {
	char s[4096];
	size_t n;
};

static void put(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	b->n += vsnprintf(b->s + b->n, b->n < sizeof(b->s) ? sizeof(b->s) - b->n : 0,
			  fmt, ap);
	va_end(ap);
}

static const char *part(struct sbuf *b)
{
	return b->n ? "; " : "";
}

static const char *sched_word(int policy)
{
	return policy == SCHED_FIFO ? "fifo" : policy == SCHED_RR ? "rr" : "other";
}

static void put_sched(struct sbuf *b, const struct plan_sched *s)
{
	put(b, "%s/%d", sched_word(s->policy),
	    s->policy == SCHED_OTHER ? s->nice : s->priority);
}

static void dump(struct sbuf *b, const struct steer_plan *p)
{
	static const char *const cpumap_words[] = {
		"created", "removed", "resized", "renewed" };
	static const char what[] = { '+', '-', '~' };
	char list[CPUSET_STR_MAX];
	int i;

	b->n = 0;
	b->s[0] = 0;
	if (!p->changes) {
		put(b, "no change");
		return;
	}
	if (!p->had_policy)
		put(b, "first");
	for (i = 0; i < p->nworkers; i++) {
		const struct plan_worker *w = &p->workers[i];

		put(b, "%s", i ? " " : (b->n ? "; workers " : "workers "));
		if (!w->old_weight)
			put(b, "+%u:%u", w->cpu, w->new_weight);
		else if (!w->new_weight)
			put(b, "-%u:%u", w->cpu, w->old_weight);
		else
			put(b, "%u:%u>%u", w->cpu, w->old_weight, w->new_weight);
	}
	if (p->had_policy && (p->moved || p->old_table_size != p->new_table_size)) {
		put(b, "%smoved %u/%u", part(b), p->moved, p->units);
		for (i = 0; i < p->nmoves; i++)
			put(b, " %u>%u:%u", p->moves[i].from, p->moves[i].to,
			    p->moves[i].buckets);
	}
	if (p->rehash)
		put(b, "%srehash", part(b));
	for (i = 0; i < p->nrules; i++) {
		const struct plan_rule *r = &p->rules[i];

		put(b, "%srule %c%s", part(b), what[r->what],
		    r->prefix ? "prefix" : "exact");
		if (r->what != PLAN_ADDED)
			put(b, " r%d %s", r->old_rule + 1,
			    cpuset_format(&r->old_cpus, list, sizeof(list)));
		if (r->what == PLAN_CHANGED)
			put(b, ">r%d %s", r->new_rule + 1,
			    cpuset_format(&r->new_cpus, list, sizeof(list)));
		if (r->what == PLAN_ADDED)
			put(b, " r%d %s", r->new_rule + 1,
			    cpuset_format(&r->new_cpus, list, sizeof(list)));
	}
	for (i = 0; i < p->ncpumap; i++)
		put(b, "%s%u %s %u>%u", i ? ", " : (b->n ? "; cpumap " : "cpumap "),
		    p->cpumap[i].cpu, cpumap_words[p->cpumap[i].what],
		    p->cpumap[i].old_qsize, p->cpumap[i].new_qsize);
	for (i = 0; i < p->nsched; i++) {
		put(b, "%s%u ", i ? ", " : (b->n ? "; sched " : "sched "),
		    p->sched[i].cpu);
		put_sched(b, &p->sched[i].from);
		put(b, ">");
		put_sched(b, &p->sched[i].to);
	}
	for (i = 0; i < p->nsettings; i++)
		put(b, "%sset %s %s>%s", part(b), p->settings[i].name,
		    p->settings[i].from, p->settings[i].to);
}

/* ---- the cases -------------------------------------------------------------- */

static const struct plan_case *cur;

static void run_case(void)
{
	const struct plan_case *c = cur;
	static __u32 old_table[STEER_TABLE_MAX], next_table[STEER_TABLE_MAX];
	static struct plan_sched sched[STEER_CPU_TARGETS];
	static unsigned char in_cpumap[STEER_CPU_TARGETS];
	static __u32 qsize[STEER_CPU_TARGETS];
	unsigned char need[STEER_CPU_IDS];
	struct steer_build old = {}, next = {};
	struct steer_slot none = {};
	const struct steer_slot *active = &none;
	__u32 weight[STEER_CPU_IDS], t, cpu;
	struct plan_sched k;
	struct cpu_set renew;
	struct steer_plan p;
	struct sbuf got;
	bool drawn;
	int err;

	memset(in_cpumap, 0, sizeof(in_cpumap));
	memset(qsize, 0, sizeof(qsize));
	parse_sched(c->sched, &k);
	cpuset_zero(&renew);
	if (c->renew)
		cpuset_parse(&renew, c->renew);
	for (t = 0; t < STEER_CPU_TARGETS; t++)
		sched[t] = k;
	if (c->old) {
		if (!EXPECT_EQ(compile(c->old, &old), 0, "the policy in force compiles"))
			return;
		/* A random key in force: the apply drew it. */
		if (build_keep_key(&old, &none))
			memset(old.slot.hash_key, 0x5a, sizeof(old.slot.hash_key));
		EXPECT(build_next_table(&old, &none, NULL, NULL, old_table) >= 0,
		       "the table in force builds");
		old.slot.bank = 1;
		build_needed_cpus(&old, old_table, need);
		for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
			if (need[cpu]) {
				t = old.slot.bank * STEER_CPU_IDS + cpu;
				in_cpumap[t] = 1;
				qsize[t] = old.slot.queue_size;
			}
		active = &old.slot;
	}
	if (!EXPECT_EQ(compile(c->next, &next), 0, "the new policy compiles"))
		goto out;
	drawn = build_keep_key(&next, active);
	weights_of(&old, weight);
	err = build_next_table(&next, active, c->old ? weight : NULL,
			       c->old && old.slot.table_size == next.slot.table_size ?
			       old_table : NULL, next_table);
	if (!EXPECT(err >= 0, "the new table builds"))
		goto out;
	next.slot.bank = build_choose_bank(active, &next.slot);
	if (active->table_size && next.slot.bank == active->bank &&
	    cpuset_count(&renew))
		next.slot.bank = !active->bank;
	err = plan_make(&(struct plan_in){
			.old = c->old ? &old : NULL, .old_table = old_table,
			.next = &next, .next_table = next_table,
			.key_drawn = drawn, .in_cpumap = in_cpumap,
			.qsize = qsize, .sched = sched, .renew = &renew }, &p);
	if (!EXPECT_EQ(err, 0, "the plan is made"))
		goto out;
	dump(&got, &p);
	EXPECT_STR(got.s, c->want, "the plan says exactly what the apply would change");
	EXPECT_EQ(p.changes, strcmp(c->want, "no change") != 0,
		  "the plan has changes exactly when it lists some");
	plan_free(&p);
out:
	build_free(&old);
	build_free(&next);
}

/* The moves add up: every bucket that changes CPU is in one pair, and
 * each pair's count is what the tables say. */
static void test_moves_match_the_tables(void)
{
	static __u32 a[512], b[512];
	struct table_cpu from[] = { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 } };
	struct table_cpu to[] = { { 1, 1 }, { 2, 2 }, { 4, 1 } };
	struct steer_build old = { .ncpus = 4 }, next = { .ncpus = 3 };
	static unsigned char none[STEER_CPU_TARGETS];
	static __u32 q[STEER_CPU_TARGETS];
	static struct plan_sched s[STEER_CPU_TARGETS];
	__u32 count[8][8] = { { 0 } }, i, sum = 0;
	struct steer_plan p;
	int moved, k;

	memcpy(old.cpus, from, sizeof(from));
	memcpy(next.cpus, to, sizeof(to));
	old.slot.table_size = next.slot.table_size = 512;
	table_build(a, 512, from, 4, NULL);
	moved = table_build(b, 512, to, 3, a);
	for (i = 0; i < 512; i++)
		if (a[i] != b[i])
			count[a[i]][b[i]]++;
	if (!EXPECT_EQ(plan_make(&(struct plan_in){
			.old = &old, .old_table = a, .next = &next,
			.next_table = b, .in_cpumap = none, .qsize = q,
			.sched = s }, &p), 0, "the plan is made"))
		return;
	EXPECT_EQ(p.moved, moved, "the plan moves what table_build says moved");
	for (k = 0; k < p.nmoves; k++) {
		sum += p.moves[k].buckets;
		EXPECT_EQ(p.moves[k].buckets, count[p.moves[k].from][p.moves[k].to],
			  "each pair moves what the tables say");
		EXPECT(!k || p.moves[k - 1].from < p.moves[k].from ||
		       (p.moves[k - 1].from == p.moves[k].from &&
			p.moves[k - 1].to < p.moves[k].to),
		       "pairs come by CPU they leave, then CPU they reach");
	}
	EXPECT_EQ(sum, p.moved, "the pairs add up to the buckets moved");
	plan_free(&p);
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_moves_match_the_tables,
		   "the moves per CPU pair add up to the tables' differences"),
};

TEST_MAIN_WITH_CASES("unit/plan")
