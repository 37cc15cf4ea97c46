// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * compiled.c - policies from YAML through the loader's own parser,
 * compiler and apply (kernel/slots.c) into the program's maps, then frames
 * through the real program: the rule keys the loader writes are the ones
 * the datapath looks up. One row per case: the policy ({L} and {R} stand
 * for the local and remote CPU) and frames with what each must do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>

#include "fixtures.h"
#include "policy/compile.h"
#include "kernel/clock.h"
#include "kernel/cpumap.h"
#include "kernel/slots.h"

struct compiled_frame {
	const char *src, *dst;		/* IPv4 or IPv6 text */
	__u8 proto;
	__u16 sport, dport;
	struct expect expect;
	int encap;			/* inside this STEER_ENCAP_* (frame_tunnel:
					 * IPv4 outside), counted under it; its
					 * negative: inside it, not looked
					 * through; 0: plain */
	__u16 tunnel_port;		/* its UDP port; 0: the standard one */
};

struct compiled_case {
	const char *name;
	const char *policy;
	struct compiled_frame frames[6];
};

#define RULE_REMOTE(hit)	REDIRECT(AT_REMOTE, hit)
#define TABLE_LOCAL		PASS_LOCAL(0)

/* Every policy sends its table to the local CPU and its rules elsewhere,
 * with the queue size of the harness's cpumap entries (QSIZE), so apply
 * keeps them, and without drain: these are about rules (drain.c). */
static const struct compiled_case cases[] = {
	{ "symmetric: a rule on one direction's source also places the reverse direction",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5, symmetric: true}\nrules:\n"
	  "  - {match: {src: 10.1.0.0/16}, cpu: {R}}\n",
	  { { "10.1.2.3", "192.0.2.9", IPPROTO_UDP, 40000, 53, RULE_REMOTE(ALSO_PREFIX_HIT), 0, 0 },
	    { "192.0.2.9", "10.1.2.3", IPPROTO_UDP, 53, 40000, RULE_REMOTE(ALSO_PREFIX_HIT), 0, 0 },
	    { "192.0.2.9", "10.2.2.3", IPPROTO_UDP, 53, 40000, TABLE_LOCAL, 0, 0 } } },
	{ "not symmetric: the reverse direction is left to the table",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\nrules:\n"
	  "  - {match: {src: 10.1.0.0/16}, cpu: {R}}\n",
	  { { "10.1.2.3", "192.0.2.9", IPPROTO_UDP, 40000, 53, RULE_REMOTE(ALSO_PREFIX_HIT), 0, 0 },
	    { "192.0.2.9", "10.1.2.3", IPPROTO_UDP, 53, 40000, TABLE_LOCAL, 0, 0 } } },
	{ "symmetric: an exact rule with a port keeps the port with its address both ways",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5, symmetric: true}\nrules:\n"
	  "  - {match: {proto: udp, src: 10.0.0.1, src_port: 5353}, cpu: {R}}\n",
	  { { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 5353, 7, RULE_REMOTE(ALSO_FLOW_HIT), 0, 0 },
	    { "10.0.0.2", "10.0.0.1", IPPROTO_UDP, 7, 5353, RULE_REMOTE(ALSO_FLOW_HIT), 0, 0 },
	    { "10.0.0.2", "10.0.0.1", IPPROTO_UDP, 5353, 7, TABLE_LOCAL, 0, 0 } } },
	{ "::/0 places every IPv6 flow and no IPv4 flow",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\nrules:\n"
	  "  - {match: {src: \"::/0\"}, cpu: {R}}\n",
	  { { "2001:db8::1", "2001:db8::2", IPPROTO_TCP, 1000, 80, RULE_REMOTE(ALSO_PREFIX_HIT), 0, 0 },
	    { "::ffff:10.0.0.1", "::1", IPPROTO_TCP, 1000, 80, RULE_REMOTE(ALSO_PREFIX_HIT), 0, 0 },
	    { "10.0.0.1", "10.0.0.2", IPPROTO_TCP, 1000, 80, TABLE_LOCAL, 0, 0 } } },
	{ "0.0.0.0/0 places every IPv4 flow and no IPv6 flow, even IPv4-mapped",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\nrules:\n"
	  "  - {match: {dst: 0.0.0.0/0}, cpu: {R}}\n",
	  { { "10.0.0.1", "10.0.0.2", IPPROTO_TCP, 1000, 80, RULE_REMOTE(ALSO_PREFIX_HIT), 0, 0 },
	    { "2001:db8::1", "::ffff:10.0.0.2", IPPROTO_TCP, 1000, 80, TABLE_LOCAL, 0, 0 } } },
	{ "a prefix and exact fields must all match (AND, not OR)",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\nrules:\n"
	  "  - {match: {proto: udp, src: 10.0.0.0/8, dst_port: 53}, cpu: {R}}\n",
	  { { "10.9.9.9", "192.0.2.1", IPPROTO_UDP, 4000, 53, RULE_REMOTE(ALSO_PREFIX_HIT), 0, 0 },
	    { "10.9.9.9", "192.0.2.1", IPPROTO_UDP, 4000, 54, TABLE_LOCAL, 0, 0 },
	    { "10.9.9.9", "192.0.2.1", IPPROTO_TCP, 4000, 53, TABLE_LOCAL, 0, 0 },
	    { "11.9.9.9", "192.0.2.1", IPPROTO_UDP, 4000, 53, TABLE_LOCAL, 0, 0 } } },
	{ "an exact rule before a prefix rule wins for the flows both match",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\nrules:\n"
	  "  - {match: {proto: tcp, dst_port: 22}, cpu: {L}}\n"
	  "  - {match: {dst: \"2001:db8::/32\"}, cpu: {R}}\n",
	  { { "2001:db9::1", "2001:db8::2", IPPROTO_TCP, 999, 22, PASS_LOCAL(ALSO_FLOW_HIT), 0, 0 },
	    { "2001:db9::1", "2001:db8::2", IPPROTO_TCP, 999, 23, RULE_REMOTE(ALSO_PREFIX_HIT), 0, 0 } } },
	/* decap: frames counted under their encapsulation (TUNNELLED). */
	{ "decap by default: rules match the inner flow of every encapsulation",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\nrules:\n"
	  "  - {match: {proto: udp, dst_port: 53}, cpu: {R}}\n",
	  { { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, RULE_REMOTE(ALSO_FLOW_HIT), STEER_ENCAP_VXLAN, 0 },
	    { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, RULE_REMOTE(ALSO_FLOW_HIT), STEER_ENCAP_GRE, 0 },
	    { "2001:db8::1", "2001:db8::2", IPPROTO_UDP, 4000, 53, RULE_REMOTE(ALSO_FLOW_HIT), STEER_ENCAP_GTPU, 0 },
	    { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, RULE_REMOTE(ALSO_FLOW_HIT), STEER_ENCAP_PPPOE, 0 },
	    { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 54, TABLE_LOCAL, STEER_ENCAP_MPLS, 0 },
	    { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, RULE_REMOTE(ALSO_FLOW_HIT), 0, 0 } } },
	{ "decap: [gre] looks through GRE, and VXLAN is the outer UDP flow",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\ndecap: [gre]\nrules:\n"
	  "  - {match: {proto: udp, dst_port: 53}, cpu: {R}}\n",
	  { { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, RULE_REMOTE(ALSO_FLOW_HIT), STEER_ENCAP_GRE, 0 },
	    { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, TABLE_LOCAL, -STEER_ENCAP_VXLAN, 0 } } },
	{ "decap: [{vxlan: 8472}] looks through VXLAN on 8472 only",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\ndecap: [{vxlan: 8472}]\nrules:\n"
	  "  - {match: {proto: udp, dst_port: 53}, cpu: {R}}\n",
	  { { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, RULE_REMOTE(ALSO_FLOW_HIT), STEER_ENCAP_VXLAN, 8472 },
	    { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, TABLE_LOCAL, -STEER_ENCAP_VXLAN, 0 } } },
	{ "decap: none looks through nothing: PPPoE is non-IP again",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\ndecap: none\nnon_ip: {cpu: {R}}\nrules:\n"
	  "  - {match: {proto: udp, dst_port: 53}, cpu: {R}}\n",
	  { { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, TABLE_LOCAL, -STEER_ENCAP_IPIP, 0 },
	    { "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 4000, 53, REDIRECT(AT_REMOTE, 0), -STEER_ENCAP_PPPOE, 0 } } },
	{ "a prefix rule matches the inner source, not the outer one",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\nrules:\n"
	  "  - {match: {src: 172.16.0.0/12}, cpu: {R}}\n"
	  "  - {match: {src: 192.0.2.0/24}, cpu: {L}}\n",
	  { { "172.20.1.1", "10.0.0.2", IPPROTO_TCP, 4000, 80, RULE_REMOTE(ALSO_PREFIX_HIT), STEER_ENCAP_IPIP, 0 },
	    { "172.20.1.1", "10.0.0.2", IPPROTO_TCP, 4000, 80, RULE_REMOTE(ALSO_PREFIX_HIT), STEER_ENCAP_GENEVE, 0 } } },
	{ "ESP: a rule on protocol 50 places it, its SPI hashed",
	  "version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: immediate\nhash: {seed: 5}\nrules:\n"
	  "  - {match: {proto: 50, dst: 10.0.0.2}, cpu: {R}}\n",
	  { { "10.0.0.1", "10.0.0.2", IPPROTO_ESP, 0x1234, 0x5678, RULE_REMOTE(ALSO_FLOW_HIT), STEER_ENCAP_ESP, 0 },
	    { "10.0.0.1", "10.0.0.3", IPPROTO_ESP, 0x1234, 0x5678, TABLE_LOCAL, STEER_ENCAP_ESP, 0 } } },
};

/* The policy with {L} and {R} replaced by the harness's CPUs. */
static char *policy_text(const char *tmpl)
{
	size_t len = strlen(tmpl) + 64, n = 0;
	char *out = malloc(len);
	const char *p;

	if (!out)
		return NULL;
	for (p = tmpl; *p && n + 8 < len; p++) {
		if (!strncmp(p, "{L}", 3) || !strncmp(p, "{R}", 3)) {
			n += snprintf(out + n, len - n, "%d",
				      p[1] == 'L' ? local_cpu : remote_cpu);
			p += 2;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = 0;
	return out;
}

/* Parses, compiles and applies the policy with the loader's own code. */
static int apply_text(const char *tmpl)
{
	struct steer_maps m = { .dir = "(test program)", .span = STEER_MAX_CPUS };
	struct slots_result res;
	struct steer_policy p;
	struct steer_build b;
	struct diags d;
	char why[512] = "", msg[512], *text = policy_text(tmpl);
	int err, i, hz;

	if (!text)
		return -ENOMEM;
#define FD_(name, ...) m.name = prog.name;
	STEER_MAPS(FD_)
#undef FD_
	err = policy_parse_string(text, strlen(text), "case.yaml", NULL, &p, &d);
	for (i = 0; err && i < d.n; i++)
		printf("  %s\n", diag_format(&d, i, msg, sizeof(msg)));
	diags_free(&d);
	if (!err)
		err = policy_compile(&p, NULL, &b, &WHY(why));
	/* As the library does: the drain timeout in the kernel's ticks. */
	if (!err && !(err = clock_hz(&hz)))
		b.slot.drain_units = clock_ms_to_ticks(b.slot.drain_ms, hz);
	if (!err) {
		err = slots_apply(&m, &b, prog.worker_fds, &res, &WHY(why));
		build_free(&b);
	}
	if (err)
		printf("  applying failed: %s (%s)\n  policy:\n%s", strerror(-err),
		       why, text);
	policy_free(&p);
	free(text);
	return err;
}

static void frame_of(struct frame *f, const struct compiled_frame *c)
{
	int encap = c->encap < 0 ? -c->encap : c->encap;
	bool v6 = strchr(c->src, ':');

	frame_init(f);
	if (encap && encap != STEER_ENCAP_ESP)
		frame_tunnel_port(f, encap, STEER_AF_INET,
				  v6 ? STEER_AF_INET6 : STEER_AF_INET, NULL,
				  NULL, c->tunnel_port);
	else
		frame_eth(f, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (v6)
		frame_ipv6(f, &(struct frame_ip6){ .src = c->src, .dst = c->dst,
						   .nexthdr = c->proto });
	else
		frame_ipv4(f, &(struct frame_ip4){ .src = c->src, .dst = c->dst,
						   .proto = c->proto });
	if (c->proto == IPPROTO_TCP)
		frame_tcp(f, c->sport, c->dport);
	else if (c->proto == IPPROTO_ESP)
		frame_esp(f, (__u32)c->sport << 16 | c->dport, 16);
	else
		frame_udp(f, c->sport, c->dport);
	frame_finish(f);
}

static const struct compiled_case *cur;

static void run_compiled(void)
{
	struct expect e;
	char label[256];
	struct frame f;
	int i;

	if (!ready())
		return;
	if (!EXPECT_EQ(apply_text(cur->policy), 0,
		       "the policy applies through the loader's apply phases"))
		goto out;
	for (i = 0; i < (int)ARRAY_SIZE(cur->frames) && cur->frames[i].src; i++) {
		frame_of(&f, &cur->frames[i]);
		if (!EXPECT_EQ(f.err, 0, "the frame is built"))
			continue;
		snprintf(label, sizeof(label), "%s %u > %s %u", cur->frames[i].src,
			 cur->frames[i].sport, cur->frames[i].dst,
			 cur->frames[i].dport);
		e = cur->frames[i].expect;
		e.encap = cur->frames[i].encap > 0 ? cur->frames[i].encap : 0;
		expect_run(&f, &e, label);
	}
out:
	/* Apply may have retired or replaced the harness's entries. */
	steer_prog_reset_policy(&prog);
	steer_prog_add_cpu(&prog, local_cpu, QSIZE, prog.worker_fd);
	steer_prog_add_cpu(&prog, remote_cpu, QSIZE, prog.worker_fd);
}

/* The drain window as the program sees it. */
static struct steer_window window(void)
{
	struct steer_window w = {};

	EXPECT_EQ(steer_prog_read_window(&prog, &w), 0, "the drain window was read");
	return w;
}

/* With drain, an apply that moves buckets warms up first (kernel/window.h):
 * it opens the window under a new generation, waits until every ring has
 * handed on what it held, flips to a slot whose records count from that
 * generation on, and shuts the window. A first policy has nothing to
 * move. */
static void test_drain_apply_flips_after_the_warm_up(void)
{
	struct steer_window before, w;
	struct steer_slot s = {};
	__u32 active = 0;

	if (!ready() || !EXPECT_EQ(steer_prog_window(&prog, 0), 0,
				   "the window was shut"))
		return;
	before = window();
	if (!EXPECT_EQ(apply_text("version: 1\ncpus: [{L}]\nqueue_size: 256\nrebalance: drain\ndrain_timeout: 30\n"),
		       0, "a first policy applies"))
		goto out;
	w = window();
	EXPECT_EQ(w.gen, before.gen, "a first policy has nothing to move: no warm-up");
	EXPECT(steer_prog_get_active(&prog, &active) == 0 &&
	       steer_prog_read_slot(&prog, active, &s) == 0 &&
	       s.drain_gen == w.gen,
	       "its slot counts records from the last generation on");
	if (!EXPECT_EQ(apply_text("version: 1\ncpus: [{R}]\nqueue_size: 256\nrebalance: drain\ndrain_timeout: 30\n"),
		       0, "a policy moving every bucket applies"))
		goto out;
	w = window();
	EXPECT_EQ(w.gen, before.gen + 1, "the apply opened the window under a new generation");
	EXPECT(!w.open, "and shut it at the flip");
	EXPECT((__s32)(w.flipped - w.opened) >= 0, "flipping after it opened");
	EXPECT(steer_prog_get_active(&prog, &active) == 0 &&
	       steer_prog_read_slot(&prog, active, &s) == 0 &&
	       s.drain_gen == w.gen,
	       "the new slot counts records from the warm-up's generation on");
out:
	steer_prog_reset_policy(&prog);
	steer_prog_add_cpu(&prog, local_cpu, QSIZE, prog.worker_fd);
	steer_prog_add_cpu(&prog, remote_cpu, QSIZE, prog.worker_fd);
}

/* The balancer's apply (lib/balance_daemon.c): the slot in force read back with
 * slots_read_build, a table of its own, through slots_apply; and what an
 * apply of a policy does to the table it leaves (slots.h). */
#define BALANCED_POLICY \
	"version: 1\ncpus: [{L}, {R}]\nqueue_size: 256\ndrain_timeout: 5\n" \
	"balance: {interval: 500}\nhash: {seed: 7}\nrules:\n" \
	"  - {match: {proto: tcp, dst_port: 443}, cpu: {R}}\n" \
	"  - {match: {src: 10.9.0.0/16}, cpus: [{L}, {R}]}\n" \
	"  - {match: {dst: \"2001:db8::/32\", proto: udp}, cpu: {L}}\n"

static void maps_of_prog(struct steer_maps *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->dir, sizeof(m->dir), "(test program)");
	/* The object as compiled: its span (bpf/span.h). */
	m->span = STEER_MAX_CPUS;
#define FD_(name, ...) m->name = prog.name;
	STEER_MAPS(FD_)
#undef FD_
}

/* Buckets of 'table' on each of the two CPUs. */
static void counts(const __u32 *table, __u32 n, int *on_local, int *on_remote)
{
	__u32 i;

	*on_local = *on_remote = 0;
	for (i = 0; i < n; i++) {
		*on_local += table[i] == (__u32)local_cpu;
		*on_remote += table[i] == (__u32)remote_cpu;
	}
}

static void test_balancer_apply_path(void)
{
	__u32 *table = calloc(STEER_TABLE_MAX, sizeof(*table));
	__u32 *again = calloc(STEER_TABLE_MAX, sizeof(*again));
	struct slots_result res;
	struct steer_build b;
	struct steer_maps m;
	char why[512] = "";
	int l, r, nflow, nprefix, i;
	__u32 gen;

	if (!EXPECT(table && again, "memory for tables") || !ready() ||
	    !EXPECT_EQ(apply_text(BALANCED_POLICY), 0, "a policy with rules of both kinds and balance: applies"))
		goto out;
	maps_of_prog(&m);
	if (!EXPECT_EQ(slots_read_build(&m, &b, table), 0, "the slot in force reads back as a build"))
		goto out;
	nflow = b.nflow;
	nprefix = b.nprefix;
	gen = b.slot.generation;
	EXPECT_EQ(b.ncpus, 2, "with its two workers and their weights");
	EXPECT(nflow > 0 && nprefix > 0, "and its rules of both kinds");
	b.table = table;
	EXPECT_EQ(slots_apply(&m, &b, prog.worker_fds, &res, &WHY(why)), 0,
		  "applying it again as it is succeeds");
	EXPECT(res.unchanged, "and changes nothing: the digest of rules read back in map order is the policy's");
	build_free(&b);

	/* A balancer round: eight buckets from the remote CPU to the local. */
	if (!EXPECT_EQ(slots_read_build(&m, &b, table), 0, "read back again"))
		goto out;
	for (i = 0, l = 0; i < (int)b.slot.table_size && l < 8; i++)
		if (table[i] == (__u32)remote_cpu) {
			table[i] = local_cpu;
			l++;
		}
	b.table = table;
	EXPECT_EQ(slots_apply(&m, &b, prog.worker_fds, &res, &WHY(why)), 0,
		  "a table of its own applies");
	EXPECT(!res.unchanged && res.generation == gen + 1 && res.moved_buckets == 8,
	       "as a new generation that moved exactly those 8 buckets");
	build_free(&b);
	if (!EXPECT_EQ(slots_read_build(&m, &b, again), 0, "and reads back"))
		goto out;
	EXPECT(!memcmp(again, table, b.slot.table_size * sizeof(*table)),
	       "with that table in force");
	EXPECT(b.nflow == nflow && b.nprefix == nprefix, "and every rule kept");
	build_free(&b);

	/* Who wins (slots.h): the same workers and weights keep the table. */
	EXPECT_EQ(apply_text(BALANCED_POLICY), 0, "the same policy applies again");
	slots_read_build(&m, &b, again);
	build_free(&b);
	EXPECT(!memcmp(again, table, STEER_TABLE_MAX / 8 * sizeof(*table)),
	       "and keeps the balanced table bucket for bucket");
	counts(again, 512, &l, &r);
	EXPECT(l == 264 && r == 248, "bucket counts off the weights included");
	EXPECT_EQ(apply_text("version: 1\ncpus: [{L}, {R}]\nqueue_size: 256\ndrain_timeout: 5\n"
			     "balance: off\nhash: {seed: 7}\n"), 0,
		  "balance: off applies");
	slots_read_build(&m, &b, again);
	build_free(&b);
	counts(again, 512, &l, &r);
	EXPECT(l == 256 && r == 256, "and gives each CPU its weight's bucket count back");
out:
	free(table);
	free(again);
	steer_prog_reset_policy(&prog);
	steer_prog_add_cpu(&prog, local_cpu, QSIZE, prog.worker_fd);
	steer_prog_add_cpu(&prog, remote_cpu, QSIZE, prog.worker_fd);
}

/* An upgrade in place (lib/upgrade.c): the entries' program told apart
 * from another version's by its tag, and an apply that renews the workers
 * moves every bucket to new entries in the other bank. */
static void test_upgrade_renews_other_versions_workers(void)
{
	int other[STEER_BANKS] = { prog.prog_fd, prog.prog_fd };
	struct slots_result res;
	struct steer_slot before, after;
	struct steer_ctl ctl;
	struct steer_build b;
	struct steer_maps m;
	char why[256] = "";
	__u32 zero = 0, table[STEER_TABLE_MAX];

	if (!ready() || !EXPECT_EQ(apply_text(BALANCED_POLICY), 0, "a policy applies"))
		goto out;
	maps_of_prog(&m);
	EXPECT_EQ(cpumap_workers_current(&m, prog.worker_fds, &WHY(why)), 1,
		  "its entries run this version's worker: the same tag");
	EXPECT_EQ(cpumap_workers_current(&m, other, &WHY(why)), 0,
		  "against other code (another version's) they do not");
	EXPECT(strstr(why, "runs another version's program") != NULL,
	       "and the first such entry is named");
	if (!EXPECT_EQ(bpf_map_lookup_elem(prog.steer_ctl, &zero, &ctl), 0, "steer_ctl is read") ||
	    !EXPECT_EQ(bpf_map_lookup_elem(prog.steer_slots, &ctl.active, &before), 0,
		       "the slot in force is read") ||
	    !EXPECT_EQ(slots_read_build(&m, &b, table), 0, "and read back as a build"))
		goto out;
	b.table = table;
	b.renew_workers = true;
	EXPECT_EQ(slots_apply(&m, &b, prog.worker_fds, &res, &WHY(why)), 0,
		  "applying it again, renewing the workers, succeeds");
	build_free(&b);
	bpf_map_lookup_elem(prog.steer_ctl, &zero, &ctl);
	bpf_map_lookup_elem(prog.steer_slots, &ctl.active, &after);
	EXPECT(!res.unchanged && after.bank == !before.bank,
	       "as a new generation on the other bank's entries, made anew");
	EXPECT(!memcmp(&before.hash_key, &after.hash_key, sizeof(after.hash_key)) &&
	       after.table_size == before.table_size,
	       "the policy otherwise as it was");
out:
	steer_prog_reset_policy(&prog);
	steer_prog_add_cpu(&prog, local_cpu, QSIZE, prog.worker_fd);
	steer_prog_add_cpu(&prog, remote_cpu, QSIZE, prog.worker_fd);
}

int run_compiled_tests(int argc, char **argv)
{
	struct test_case warm = TEST_ENTRY(test_drain_apply_flips_after_the_warm_up,
		"drain: an apply warms up under a new generation, flips once every ring handed on what it held, and shuts the window");
	struct test_case bal = TEST_ENTRY(test_balancer_apply_path,
		"balance: the slot in force read back applies unchanged; a table of its own moves just its buckets; who wins between apply and balancer");
	struct test_case upgrade = TEST_ENTRY(test_upgrade_renews_other_versions_workers,
		"upgrade: the workers' program is told from another version's by its tag, and renewing them moves every bucket to new entries in the other bank");
	size_t i;
	int failed = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct test_case one = TEST_ENTRY(run_compiled, cases[i].name);

		cur = &cases[i];
		failed |= test_run_all("prog", &one, 1, argc, argv);
	}
	failed |= test_run_all("prog", &warm, 1, argc, argv);
	failed |= test_run_all("prog", &bal, 1, argc, argv);
	failed |= test_run_all("prog", &upgrade, 1, argc, argv);
	return failed;
}
