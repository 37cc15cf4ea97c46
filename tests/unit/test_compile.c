// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: policy_compile(), the step from a parsed policy to what one
 * slot's maps will hold. One table row per case: description, online CPUs,
 * policy text, the expected build written out as text (slot fields, table
 * CPUs, every flow rule key and target, every prefix key and target, the
 * rule CPU sets), and flows whose rule the datapath must find in that
 * build. The lookup is a model of the program's: steer_rule_key_fill() from
 * the shared header for exact-field rules, longest prefix for the tries,
 * lowest rule_id across both. Separate tests cover seeds, the worker
 * override and errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/encap.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "xdp_steer/key_fill.h"
#include "xdp_steer/filter.h"
#include "policy/compile.h"
#include "test.h"

#define NAME "p.yaml"
#define V1 "version: 1\n"
#define MAX_FLOWS 8

struct compile_case {
	const char *desc;
	const char *online;		/* online CPUs, kernel list syntax */
	const char *text;		/* the policy */
	const char *build;		/* dump_build() of the result */
	/* "PROTO SRC SPORT DST DPORT -> rule N" or "... -> table": the
	 * rule the datapath picks for that flow (ports 0 without ports). */
	const char *flows[MAX_FLOWS];
};

/* What every policy without its own settings gets. */
#define SLOT_DEFAULT \
	"slot: flags l4,fastpath,drain,balance; table 512; queue 2048; drain 50 ms; non_ip local; loader seed_random; balance 1000 ms, 5 %, 16 moves\n"

static const struct compile_case cases[] = {
	{ "a bare version takes every online CPU and the defaults", "0-3",
	  V1,
	  SLOT_DEFAULT
	  "shapes:\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "tcp 10.0.0.1 1 10.0.0.2 2 -> table" } },
	{ "every slot setting comes from the policy", "0-3",
	  V1 "cpus: [1-2]\nqueue_size: 256\ntable_size: 64\n"
	  "hash: {key: l3, symmetric: true, seed: 7}\n"
	  "local_fastpath: false\nrebalance: immediate\nnon_ip: {cpu: 3}\n",
	  "slot: flags symmetric; table 64; queue 256; drain 50 ms; non_ip 3; loader -\n"
	  "shapes:\n"
	  "cpus: 1 2\n"
	  "rule_cpus:\n",
	  { "tcp 10.0.0.1 1 10.0.0.2 2 -> table" } },
	{ "balance sets its flag and the balancer's settings", "0-3",
	  V1 "balance: {interval: 500, tolerance: 5, max_moves: 4}\n",
	  "slot: flags l4,fastpath,drain,balance; table 512; queue 2048; drain 50 ms; non_ip local; loader seed_random; balance 500 ms, 5 %, 4 moves\n"
	  "shapes:\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "tcp 10.0.0.1 1 10.0.0.2 2 -> table" } },
	{ "weights reach the table CPUs", "0-7",
	  V1 "cpus: [0, {cpu: 2, weight: 3}, 5-6]\n",
	  SLOT_DEFAULT
	  "shapes:\n"
	  "cpus: 0 2x3 5 6\n"
	  "rule_cpus:\n",
	  { "tcp 10.0.0.1 1 10.0.0.2 2 -> table" } },
	{ "exact-field rules: shapes in order of first use, keys zeroed outside the shape", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {proto: tcp, dst_port: 443}, cpu: 1}\n"
	  "  - {match: {proto: udp, src: 10.0.0.1, dst: 10.0.0.2, src_port: 1000, dst_port: 53}, cpu: 2}\n"
	  "  - {match: {proto: udp, src: \"2001:db8::1\", dst: \"2001:db8::2\", src_port: 1000, dst_port: 53}, cpus: [1, {cpu: 3, weight: 2}]}\n"
	  "  - {match: {src: 10.9.9.9}, cpu: 3}\n"
	  "  - {match: {dst_port: 443, proto: tcp}, cpus: [0-1]}\n",
	  SLOT_DEFAULT
	  "shapes: proto+dport proto+src+dst+sport+dport src\n"
	  "flow proto+dport: proto 6 dport 443 -> cpu 1 (rule 0)\n"
	  "flow proto+src+dst+sport+dport: proto 17 v4 10.0.0.1 > 10.0.0.2 ports 1000 > 53 -> cpu 2 (rule 1)\n"
	  "flow proto+src+dst+sport+dport: proto 17 v6 2001:db8::1 > 2001:db8::2 ports 1000 > 53 -> set 0+3 (rule 2)\n"
	  "flow src: v4 10.9.9.9 > 0.0.0.0 -> cpu 3 (rule 3)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus: 1 3 3 0 1\n",
	  { "tcp 10.9.9.9 5000 192.0.2.1 443 -> rule 0",
	    "tcp 10.9.9.9 5000 192.0.2.1 80 -> rule 3",
	    "udp 10.0.0.1 1000 10.0.0.2 53 -> rule 1",
	    "udp 10.0.0.1 1001 10.0.0.2 53 -> table",
	    "udp 2001:db8::1 1000 2001:db8::2 53 -> rule 2",
	    "udp 2001:db8::2 53 2001:db8::1 1000 -> table",
	    "icmp 10.9.9.9 0 10.9.9.8 0 -> rule 3" } },
	{ "prefix keys carry the family, so IPv4 and IPv6 prefixes (/0 too) never meet", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {src: 10.0.0.0/8}, cpu: 1}\n"
	  "  - {match: {dst: 192.168.1.0/24}, cpu: 2}\n"
	  "  - {match: {src: \"2001:db8::/32\"}, cpu: 3}\n"
	  "  - {match: {dst: \"2001:db8:ff00::/40\"}, cpus: [0-1]}\n"
	  "  - {match: {dst: 0.0.0.0/0}, cpu: 0}\n"
	  "  - {match: {src: 172.16.0.0/31}, cpu: 2}\n",
	  SLOT_DEFAULT
	  "shapes: | src/ dst/\n"
	  "prefix src/: v4 10.0.0.0/8 -> cpu 1 (rule 0)\n"
	  "prefix dst/: v4 192.168.1.0/24 -> cpu 2 (rule 1)\n"
	  "prefix src/: v6 2001:db8::/32 -> cpu 3 (rule 2)\n"
	  "prefix dst/: v6 2001:db8:ff00::/40 -> set 0+2 (rule 3)\n"
	  "prefix dst/: v4 0.0.0.0/0 -> cpu 0 (rule 4)\n"
	  "prefix src/: v4 172.16.0.0/31 -> cpu 2 (rule 5)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus: 0 1\n",
	  { "udp 10.200.1.1 1 192.168.1.9 2 -> rule 0",
	    "udp 11.0.0.1 1 192.168.1.9 2 -> rule 1",
	    "udp 11.0.0.1 1 192.168.2.9 2 -> rule 4",
	    "tcp 2001:db9::1 1 2001:db8:ff00::1 2 -> rule 3",
	    "tcp 2001:db8:1::1 1 2001:db8:ff00::1 2 -> rule 2",
	    "tcp 2001:db9::1 1 2001:db8:fe00::1 2 -> table",
	    "tcp 172.16.0.1 1 10.0.0.1 2 -> rule 4",
	    "tcp 2001:db9::1 1 2001:db9::2 2 -> table" } },
	{ "an earlier shorter prefix gives its target to a later longer one it covers", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {src: 10.0.0.0/8}, cpu: 1}\n"
	  "  - {match: {src: 10.1.0.0/16}, cpu: 2}\n",
	  SLOT_DEFAULT
	  "shapes: | src/\n"
	  "prefix src/: v4 10.0.0.0/8 -> cpu 1 (rule 0)\n"
	  "prefix src/: v4 10.1.0.0/16 -> cpu 1 (rule 0)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "tcp 10.1.2.3 1 192.0.2.1 2 -> rule 0",
	    "tcp 10.2.2.3 1 192.0.2.1 2 -> rule 0" } },
	{ "a later shorter prefix does not take over an earlier longer one", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {src: 10.1.0.0/16}, cpu: 1}\n"
	  "  - {match: {src: 10.0.0.0/8}, cpu: 2}\n",
	  SLOT_DEFAULT
	  "shapes: | src/\n"
	  "prefix src/: v4 10.1.0.0/16 -> cpu 1 (rule 0)\n"
	  "prefix src/: v4 10.0.0.0/8 -> cpu 2 (rule 1)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "tcp 10.1.2.3 1 192.0.2.1 2 -> rule 0",
	    "tcp 10.2.2.3 1 192.0.2.1 2 -> rule 1",
	    "tcp 11.1.2.3 1 192.0.2.1 2 -> table" } },
	{ "the earliest of several covering prefixes wins, not the nearest", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {dst: \"2001:db8:1::/48\"}, cpu: 1}\n"
	  "  - {match: {dst: \"2001:db8::/32\"}, cpu: 2}\n"
	  "  - {match: {dst: \"2001:db8:1:2::/64\"}, cpu: 3}\n"
	  "  - {match: {dst: \"2001:db8:2:2::/64\"}, cpu: 0}\n",
	  SLOT_DEFAULT
	  "shapes: | dst/\n"
	  "prefix dst/: v6 2001:db8:1::/48 -> cpu 1 (rule 0)\n"
	  "prefix dst/: v6 2001:db8::/32 -> cpu 2 (rule 1)\n"
	  "prefix dst/: v6 2001:db8:1:2::/64 -> cpu 1 (rule 0)\n"
	  "prefix dst/: v6 2001:db8:2:2::/64 -> cpu 2 (rule 1)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "udp 2001:db8::9 1 2001:db8:1:2::5 2 -> rule 0",
	    "udp 2001:db8::9 1 2001:db8:2:2::5 2 -> rule 1",
	    "udp 2001:db8::9 1 2001:db8:3::5 2 -> rule 1" } },
	{ "source and destination prefixes do not cover each other", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {src: 10.0.0.0/8}, cpu: 1}\n"
	  "  - {match: {dst: 10.1.0.0/16}, cpu: 2}\n",
	  SLOT_DEFAULT
	  "shapes: | src/ dst/\n"
	  "prefix src/: v4 10.0.0.0/8 -> cpu 1 (rule 0)\n"
	  "prefix dst/: v4 10.1.0.0/16 -> cpu 2 (rule 1)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "tcp 10.1.0.1 1 10.1.0.2 2 -> rule 0",
	    "tcp 11.1.0.1 1 10.1.0.2 2 -> rule 1" } },
	{ "a duplicate prefix is dropped: the earlier rule keeps it", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {src: 10.0.0.0/8}, cpu: 1}\n"
	  "  - {match: {src: 10.0.0.0/8}, cpus: [2-3]}\n",
	  SLOT_DEFAULT
	  "shapes: | src/\n"
	  "prefix src/: v4 10.0.0.0/8 -> cpu 1 (rule 0)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus: 2 3\n",
	  { "tcp 10.1.1.1 1 10.0.0.2 2 -> rule 0" } },
	{ "a duplicate exact-field rule is dropped: the earlier rule keeps its key", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {proto: udp, src: \"2001:db8::1\"}, cpu: 1}\n"
	  "  - {match: {src: \"2001:db8::1\", proto: udp}, cpus: [2-3]}\n",
	  SLOT_DEFAULT
	  "shapes: proto+src\n"
	  "flow proto+src: proto 17 v6 2001:db8::1 > :: -> cpu 1 (rule 0)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus: 2 3\n",
	  { "udp 2001:db8::1 7 2001:db8::9 9 -> rule 0",
	    "tcp 2001:db8::1 7 2001:db8::9 9 -> table",
	    "udp 2001:db8::2 7 2001:db8::1 9 -> table" } },
	{ "rule CPU sets are laid out by weight, one after another", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {proto: tcp}, cpus: [0, {cpu: 1, weight: 3}]}\n"
	  "  - {match: {proto: udp}, cpu: 2}\n"
	  "  - {match: {src: 10.0.0.0/8}, cpus: [{cpu: 2, weight: 2}, 3]}\n"
	  "  - {match: {proto: sctp}, cpus: [1-3]}\n",
	  SLOT_DEFAULT
	  "shapes: proto | src/\n"
	  "flow proto: proto 6 -> set 0+4 (rule 0)\n"
	  "flow proto: proto 17 -> cpu 2 (rule 1)\n"
	  "flow proto: proto 132 -> set 7+3 (rule 3)\n"
	  "prefix src/: v4 10.0.0.0/8 -> set 4+3 (rule 2)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus: 0 1 1 1 2 2 3 1 2 3\n",
	  { "tcp 10.0.0.1 1 10.0.0.2 2 -> rule 0",
	    "udp 10.0.0.1 1 10.0.0.2 2 -> rule 1",
	    "sctp 10.0.0.1 1 10.0.0.2 2 -> rule 2",
	    "sctp 11.0.0.1 1 10.0.0.2 2 -> rule 3",
	    "icmp 11.0.0.1 0 10.0.0.2 0 -> table" } },
	{ "a prefix nested in an earlier CPU-set rule takes that rule's set", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {src: 10.0.0.0/8}, cpus: [0, {cpu: 1, weight: 2}]}\n"
	  "  - {match: {src: 10.1.0.0/16}, cpu: 2}\n"
	  "  - {match: {src: 10.2.0.0/16}, cpus: [2-3]}\n",
	  SLOT_DEFAULT
	  "shapes: | src/\n"
	  "prefix src/: v4 10.0.0.0/8 -> set 0+3 (rule 0)\n"
	  "prefix src/: v4 10.1.0.0/16 -> set 0+3 (rule 0)\n"
	  "prefix src/: v4 10.2.0.0/16 -> set 0+3 (rule 0)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus: 0 1 1 2 3\n",
	  { "udp 10.1.0.1 1 10.0.0.2 2 -> rule 0",
	    "udp 10.2.0.1 1 10.0.0.2 2 -> rule 0",
	    "udp 11.2.0.1 1 10.0.0.2 2 -> table" } },
	{ "rules of both kinds apply in policy order", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {proto: udp, dst_port: 53}, cpu: 1}\n"
	  "  - {match: {src: 10.0.0.0/8}, cpu: 2}\n"
	  "  - {match: {proto: tcp}, cpu: 3}\n"
	  "  - {match: {src: 10.1.0.0/16}, cpu: 0}\n"
	  "  - {match: {dst: 192.0.2.0/24}, cpu: 0}\n",
	  SLOT_DEFAULT
	  "shapes: proto+dport proto | src/ dst/\n"
	  "flow proto+dport: proto 17 dport 53 -> cpu 1 (rule 0)\n"
	  "flow proto: proto 6 -> cpu 3 (rule 2)\n"
	  "prefix src/: v4 10.0.0.0/8 -> cpu 2 (rule 1)\n"
	  "prefix src/: v4 10.1.0.0/16 -> cpu 2 (rule 1)\n"
	  "prefix dst/: v4 192.0.2.0/24 -> cpu 0 (rule 4)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "udp 10.1.1.1 5 192.0.2.1 53 -> rule 0",
	    "tcp 10.1.1.1 5 192.0.2.1 80 -> rule 1",
	    "icmp 10.1.1.1 0 1.1.1.1 0 -> rule 1",
	    "tcp 192.0.2.7 5 192.0.2.1 80 -> rule 2",
	    "udp 192.0.2.7 5 192.0.2.1 54 -> rule 4",
	    "udp 198.51.100.1 5 198.51.100.2 54 -> table" } },
	{ "::/0 matches every IPv6 flow and no IPv4 flow", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {src: \"::/0\"}, cpu: 2}\n",
	  SLOT_DEFAULT
	  "shapes: | src/\n"
	  "prefix src/: v6 ::/0 -> cpu 2 (rule 0)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "udp 2001:db8::1 1 2001:db8::2 2 -> rule 0",
	    "udp ::ffff:10.0.0.1 1 ::ffff:10.0.0.2 2 -> rule 0",
	    "udp 10.0.0.1 1 10.0.0.2 2 -> table" } },
	{ "a prefix and exact fields in one rule must all match (AND)", "0-3",
	  V1 "cpus: [0-3]\nrules:\n"
	  "  - {match: {proto: tcp, src: 10.0.0.0/8, dst_port: 80}, cpu: 1}\n"
	  "  - {match: {dst: \"2001:db8::/32\", src: \"2001:db8:1::1\"}, cpu: 2}\n"
	  "  - {match: {proto: tcp, src: 10.1.0.0/16, dst_port: 80}, cpu: 3}\n",
	  SLOT_DEFAULT
	  "shapes: | proto+src/+dport src+dst/\n"
	  "prefix proto+src/+dport: proto 6 v4 10.0.0.0/8 dport 80 -> cpu 1 (rule 0)\n"
	  "prefix src+dst/: v6 2001:db8::/32 other 2001:db8:1::1 -> cpu 2 (rule 1)\n"
	  "prefix proto+src/+dport: proto 6 v4 10.1.0.0/16 dport 80 -> cpu 1 (rule 0)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "tcp 10.1.2.3 5 192.0.2.1 80 -> rule 0",
	    "tcp 10.1.2.3 5 192.0.2.1 81 -> table",
	    "udp 10.1.2.3 5 192.0.2.1 80 -> table",
	    "tcp 11.1.2.3 5 192.0.2.1 80 -> table",
	    "udp 2001:db8:1::1 5 2001:db8:9::9 7 -> rule 1",
	    "udp 2001:db8:1::2 5 2001:db8:9::9 7 -> table",
	    "udp 2001:db8:1::1 5 2001:db9::9 7 -> table" } },
	{ "symmetric mode adds each rule's mirror, with the rule's own id", "0-3",
	  V1 "cpus: [0-3]\nhash: {symmetric: true}\nrules:\n"
	  "  - {match: {proto: udp, src: 10.0.0.1, src_port: 53}, cpu: 1}\n"
	  "  - {match: {src: 10.9.0.0/16}, cpus: [2-3]}\n",
	  "slot: flags l4,symmetric,fastpath,drain,balance; table 512; queue 2048; drain 50 ms; non_ip local; loader seed_random; balance 1000 ms, 5 %, 16 moves\n"
	  "shapes: proto+src+sport proto+dst+dport | src/ dst/\n"
	  "flow proto+src+sport: proto 17 v4 10.0.0.1 > 0.0.0.0 sport 53 -> cpu 1 (rule 0)\n"
	  "flow proto+dst+dport: proto 17 v4 0.0.0.0 > 10.0.0.1 dport 53 -> cpu 1 (rule 0)\n"
	  "prefix src/: v4 10.9.0.0/16 -> set 0+2 (rule 1)\n"
	  "prefix dst/: v4 10.9.0.0/16 -> set 0+2 (rule 1)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus: 2 3\n",
	  { "udp 10.0.0.1 53 192.0.2.1 4000 -> rule 0",
	    "udp 192.0.2.1 4000 10.0.0.1 53 -> rule 0",
	    "udp 10.9.1.1 53 10.0.0.1 4000 -> rule 1",
	    "udp 10.0.0.1 4000 10.9.1.1 53 -> rule 1",
	    "tcp 192.0.2.1 1 10.9.0.7 2 -> rule 1",
	    "udp 192.0.2.1 4000 10.0.0.2 53 -> table" } },
	{ "in symmetric mode a rule's mirror still comes after earlier rules", "0-3",
	  V1 "cpus: [0-3]\nhash: {symmetric: true}\nrules:\n"
	  "  - {match: {src: 10.1.0.0/16}, cpu: 1}\n"
	  "  - {match: {src: 10.2.0.0/16}, cpu: 2}\n",
	  "slot: flags l4,symmetric,fastpath,drain,balance; table 512; queue 2048; drain 50 ms; non_ip local; loader seed_random; balance 1000 ms, 5 %, 16 moves\n"
	  "shapes: | src/ dst/\n"
	  "prefix src/: v4 10.1.0.0/16 -> cpu 1 (rule 0)\n"
	  "prefix dst/: v4 10.1.0.0/16 -> cpu 1 (rule 0)\n"
	  "prefix src/: v4 10.2.0.0/16 -> cpu 2 (rule 1)\n"
	  "prefix dst/: v4 10.2.0.0/16 -> cpu 2 (rule 1)\n"
	  "cpus: 0 1 2 3\n"
	  "rule_cpus:\n",
	  { "tcp 10.1.0.1 1 10.2.0.1 2 -> rule 0",
	    "tcp 10.2.0.1 2 10.1.0.1 1 -> rule 0" } },
};

/* ---- the build as text -------------------------------------------------- */

struct sbuf {
	char s[8192];
	size_t n;
};

static void put(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;

	if (b->n >= sizeof(b->s))
		return;
	va_start(ap, fmt);
	b->n += vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
	va_end(ap);
}

static void put_names(struct sbuf *b, __u32 bits, const char *const *names,
		      int n, const char *sep)
{
	int i, first = 1;

	for (i = 0; i < n; i++)
		if (bits & (1u << i)) {
			put(b, "%s%s", first ? "" : sep, names[i]);
			first = 0;
		}
	if (first)
		put(b, "-");
}

/* A shape as fields joined by '+', an address matched by prefix with a
 * '/' after it: "proto+src/+dport". */
static void put_shape(struct sbuf *b, __u32 shape)
{
	static const char *const names[] = { "proto", "src", "dst", "sport", "dport" };
	int i, first = 1;

	for (i = 0; i < 5; i++) {
		if (!(shape & (1u << i)))
			continue;
		put(b, "%s%s%s", first ? "" : "+", names[i],
		    (i == 1 && (shape & STEER_M_PREFIX_SRC)) ||
		    (i == 2 && (shape & STEER_M_PREFIX_DST)) ? "/" : "");
		first = 0;
	}
	if (first)
		put(b, "-");
}

static void put_target(struct sbuf *b, const struct steer_target *t)
{
	if (t->ncpus == 1)
		put(b, " -> cpu %u (rule %u)", t->cpu, t->rule_id);
	else
		put(b, " -> set %u+%u (rule %u)", t->cpu, t->ncpus, t->rule_id);
	if (t->pad)
		put(b, " pad %u", t->pad);
}

static void put_addr(struct sbuf *b, __u8 family, const __u32 *a)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(family == STEER_AF_INET ? AF_INET : AF_INET6, a, s, sizeof(s));
	put(b, "%s", s);
}

/* Every field of a flow rule key that is set, so a field outside the
 * shape that is not zero shows up. */
static void put_flow_rule(struct sbuf *b, const struct build_flow_rule *r)
{
	const struct steer_flow *f = &r->key.flow;

	put(b, "flow ");
	put_shape(b, r->key.shape);
	put(b, ":");
	if (r->key.slot)
		put(b, " slot %u", r->key.slot);
	if (f->proto)
		put(b, " proto %u", f->proto);
	if (f->family) {
		put(b, " v%u ", f->family);
		put_addr(b, f->family, f->src);
		put(b, " > ");
		put_addr(b, f->family, f->dst);
	} else if (f->src[0] || f->src[1] || f->src[2] || f->src[3] ||
		   f->dst[0] || f->dst[1] || f->dst[2] || f->dst[3]) {
		put(b, " addresses without a family");
	}
	if (f->sport && f->dport)
		put(b, " ports %u > %u", ntohs(f->sport), ntohs(f->dport));
	else if (f->sport)
		put(b, " sport %u", ntohs(f->sport));
	else if (f->dport)
		put(b, " dport %u", ntohs(f->dport));
	if (f->pad[0] || f->pad[1])
		put(b, " pad set");
	put_target(b, &r->target);
	put(b, "\n");
}

static void put_prefix_rule(struct sbuf *b, const struct build_prefix_rule *r)
{
	const struct steer_prefix_key *k = &r->key;
	__u32 other = (k->shape & STEER_M_PREFIX_SRC) ? STEER_M_DST : STEER_M_SRC;

	put(b, "prefix ");
	put_shape(b, k->shape);
	put(b, ":");
	if (k->slot)
		put(b, " slot %u", k->slot);
	if (k->proto)
		put(b, " proto %u", k->proto);
	put(b, " %s ", k->family == STEER_AF_INET ? "v4" : "v6");
	put_addr(b, k->family, k->addr);
	put(b, "/%u", k->prefixlen - STEER_PREFIX_FIXED_BITS);
	if (k->shape & other) {
		put(b, " other ");
		put_addr(b, k->family, k->other);
	}
	if (k->sport)
		put(b, " sport %u", ntohs(k->sport));
	if (k->dport)
		put(b, " dport %u", ntohs(k->dport));
	if (k->pad)
		put(b, " pad set");
	put_target(b, &r->target);
	put(b, "\n");
}

static void dump_build(struct sbuf *b, const struct steer_build *bd)
{
	static const char *const flag_names[] = {
		"l4", "symmetric", "fastpath", "drain", "balance",
	};
	static const char *const lflag_names[] = { "seed_random", "cpus_fallback" };
	const struct steer_slot *s = &bd->slot;
	__u32 i;

	put(b, "slot: flags ");
	put_names(b, s->flags, flag_names, 5, ",");
	put(b, "; table %u; queue %u; drain %u ms; non_ip ", s->table_size,
	    s->queue_size, s->drain_ms);
	if (s->nonip_cpu == STEER_CPU_LOCAL)
		put(b, "local");
	else
		put(b, "%u", s->nonip_cpu);
	put(b, "; loader ");
	put_names(b, s->loader_flags, lflag_names, 2, ",");
	if (s->balance_ms || s->balance_tolerance || s->balance_max_moves)
		put(b, "; balance %u ms, %u %%, %u moves", s->balance_ms,
		    s->balance_tolerance, s->balance_max_moves);
	if (s->generation || s->digest)
		put(b, "; generation %u digest %llx", s->generation,
		    (unsigned long long)s->digest);
	put(b, "\nshapes:");
	for (i = 0; i < s->nshapes && i < STEER_MAX_SHAPES; i++) {
		put(b, i == s->nexact ? " | " : " ");
		put_shape(b, s->shapes[i]);
	}
	put(b, "\n");
	for (i = 0; i < (__u32)bd->nflow; i++)
		put_flow_rule(b, &bd->flow[i]);
	for (i = 0; i < (__u32)bd->nprefix; i++)
		put_prefix_rule(b, &bd->prefix[i]);
	put(b, "cpus:");
	for (i = 0; i < (__u32)bd->ncpus; i++) {
		put(b, " %u", bd->cpus[i].cpu);
		if (bd->cpus[i].weight != 1)
			put(b, "x%u", bd->cpus[i].weight);
	}
	put(b, "\nrule_cpus:");
	for (i = 0; i < bd->nrule_cpus; i++)
		put(b, " %u", bd->rule_cpus[i]);
	put(b, "\n");
}

/* ---- the datapath's rule lookup, modelled on the build ------------------ */

static const struct steer_target *first_of(const struct steer_target *a,
					   const struct steer_target *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return b->rule_id < a->rule_id ? b : a;
}

/* 1 when the stored prefix key 'r' holds the lookup key 'k': equal up to
 * the address, then r's prefix length of it. */
static int prefix_holds(const struct steer_prefix_key *r,
			const struct steer_prefix_key *k)
{
	__u32 bits = r->prefixlen - STEER_PREFIX_FIXED_BITS, full = bits / 8;
	const __u8 *x = (const __u8 *)r->addr, *y = (const __u8 *)k->addr;

	return !memcmp(&r->slot, &k->slot, offsetof(struct steer_prefix_key, addr) -
					   offsetof(struct steer_prefix_key, slot)) &&
	       !memcmp(x, y, full) &&
	       !(bits % 8 && (x[full] ^ y[full]) & (0xff00 >> (bits % 8)));
}

/* The rule the program would pick: every shape through the same key
 * functions as the program, exact shapes by equality, prefix shapes by
 * longest match, lowest rule_id across all. */
static const struct steer_target *lookup(const struct steer_build *bd,
					 const struct steer_flow *f)
{
	const struct steer_target *best = NULL;
	const struct build_prefix_rule *longest;
	struct steer_prefix_key pk;
	struct steer_rule_key k;
	__u32 i;
	int j;

	for (i = 0; i < bd->slot.nexact; i++) {
		steer_rule_key_fill(&k, 0, bd->slot.shapes[i], f);
		for (j = 0; j < bd->nflow; j++)
			if (!memcmp(&bd->flow[j].key, &k, sizeof(k)))
				best = first_of(best, &bd->flow[j].target);
	}
	for (i = bd->slot.nexact; i < bd->slot.nshapes; i++) {
		steer_prefix_key_fill(&pk, 0, bd->slot.shapes[i], f);
		longest = NULL;
		for (j = 0; j < bd->nprefix; j++) {
			const struct build_prefix_rule *r = &bd->prefix[j];

			if (prefix_holds(&r->key, &pk) &&
			    (!longest || r->key.prefixlen > longest->key.prefixlen))
				longest = r;
		}
		if (longest)
			best = first_of(best, &longest->target);
	}
	return best;
}

/* "PROTO SRC SPORT DST DPORT -> rule N|table" into a flow and the rule id
 * expected (-1: the table). */
static int parse_flow(const char *line, struct steer_flow *f, int *rule)
{
	static const struct { const char *name; __u8 proto; } protos[] = {
		{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP },
		{ "sctp", IPPROTO_SCTP }, { "icmp", IPPROTO_ICMP },
	};
	char proto[16], src[64], dst[64], what[16];
	unsigned int sport, dport;
	size_t i;

	memset(f, 0, sizeof(*f));
	if (sscanf(line, "%15s %63s %u %63s %u -> %15s %d", proto, src, &sport,
		   dst, &dport, what, rule) < 6)
		return -EINVAL;
	if (!strcmp(what, "table"))
		*rule = -1;
	else if (strcmp(what, "rule"))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(protos); i++)
		if (!strcmp(proto, protos[i].name))
			f->proto = protos[i].proto;
	if (!f->proto)
		return -EINVAL;
	if (inet_pton(AF_INET, src, f->src) == 1 &&
	    inet_pton(AF_INET, dst, f->dst) == 1)
		f->family = STEER_AF_INET;
	else if (inet_pton(AF_INET6, src, f->src) == 1 &&
		 inet_pton(AF_INET6, dst, f->dst) == 1)
		f->family = STEER_AF_INET6;
	else
		return -EINVAL;
	f->sport = htons(sport);
	f->dport = htons(dport);
	return 0;
}

/* ---- running the table -------------------------------------------------- */

static int parse(const char *text, const char *online, struct steer_policy *p)
{
	struct cpu_set on;
	struct diags d;
	char msg[512];
	int err, i;

	memset(p, 0, sizeof(*p));
	if (cpuset_parse(&on, online))
		return -EBADMSG;
	err = policy_parse_string(text, strlen(text), NAME, &on, p, &d);
	for (i = 0; err && i < d.n; i++)
		printf("  %s\n", diag_format(&d, i, msg, sizeof(msg)));
	diags_free(&d);
	return err;
}

static const struct compile_case *cur;

static void run_case(void)
{
	const struct compile_case *c = cur;
	struct steer_policy p;
	struct steer_build b;
	struct sbuf got = { .n = 0 };
	char why[512];
	int i, err;

	if (!EXPECT_EQ(parse(c->text, c->online, &p), 0, "the policy parses")) {
		policy_free(&p);
		return;
	}
	err = policy_compile(&p, NULL, &b, &WHY(why));
	if (!EXPECT_EQ(err, 0, "the policy compiles")) {
		printf("  why: %s\n", why);
		policy_free(&p);
		return;
	}
	dump_build(&got, &b);
	EXPECT_STR(got.s, c->build, "the build holds exactly what the policy says");
	/* The datapath takes a frame's filter bit through these masks. */
	for (i = 0; i < (int)b.slot.nshapes && i < STEER_MAX_SHAPES; i++) {
		struct steer_filter_mask m;

		steer_filter_mask_of(b.slot.shapes[i], &m);
		EXPECT(!memcmp(&m, &b.slot.filter_masks[i], sizeof(m)),
		       "the slot holds each shape's filter masks");
	}
	for (i = 0; i < MAX_FLOWS && c->flows[i]; i++) {
		const struct steer_target *t;
		struct steer_flow f;
		char what[256];
		int want;

		if (!EXPECT_EQ(parse_flow(c->flows[i], &f, &want), 0,
			       "the case's flow line is well formed"))
			continue;
		t = lookup(&b, &f);
		if (want < 0)
			snprintf(what, sizeof(what),
				 "no rule but the table places '%s'", c->flows[i]);
		else
			snprintf(what, sizeof(what),
				 "the datapath picks rule %d for '%s'", want,
				 c->flows[i]);
		EXPECT_EQ(t ? (long long)t->rule_id : -1, want, what);
	}
	if (test_failed)
		printf("  policy:\n%s  build:\n%s", c->text, got.s);
	build_free(&b);
	policy_free(&p);
}

/* ---- seeds -------------------------------------------------------------- */

static int compile_text(const char *text, struct steer_build *b)
{
	struct steer_policy p;
	char why[512];
	int err;

	err = parse(text, "0-3", &p);
	if (!err)
		err = policy_compile(&p, NULL, b, &WHY(why));
	policy_free(&p);
	return err;
}

static void test_seed_key(void)
{
	__u64 k1[STEER_HASH_KEY_WORDS], k2[STEER_HASH_KEY_WORDS], k0[STEER_HASH_KEY_WORDS];
	struct steer_build a = {}, b = {};
	int i, j, distinct = 1, zero = 0;

	policy_seed_key(1, k1);
	policy_seed_key(1, k2);
	EXPECT(!memcmp(k1, k2, sizeof(k1)), "one seed always gives one key");
	policy_seed_key(2, k2);
	EXPECT(memcmp(k1, k2, sizeof(k1)), "another seed gives another key");
	policy_seed_key(0, k0);
	for (i = 0; i < STEER_HASH_KEY_WORDS; i++) {
		zero += !k0[i];
		for (j = 0; j < i; j++)
			distinct &= k0[i] != k0[j];
	}
	EXPECT_EQ(zero, 0, "seed 0 gives a key without zero words");
	EXPECT(distinct, "the key words of seed 0 all differ");

	if (!EXPECT_EQ(compile_text(V1 "hash: {seed: 1}\n", &a), 0,
		       "a policy with seed 1 compiles"))
		return;
	EXPECT(!memcmp(a.slot.hash_key, k1, sizeof(k1)),
	       "the slot's key is policy_seed_key(seed)");
	EXPECT_EQ(a.slot.loader_flags & STEER_LF_SEED_RANDOM, 0,
		  "an explicit seed is not marked random");
	if (EXPECT_EQ(compile_text(V1 "hash: {seed: 1}\n", &b), 0,
		      "it compiles again"))
		EXPECT(!memcmp(a.slot.hash_key, b.slot.hash_key,
			       sizeof(a.slot.hash_key)),
		       "compiling twice gives the same key");
	build_free(&a);
	build_free(&b);
}

/* The UDP ports of encapsulation 'e' in the slot, host order, ascending
 * as compiled; how many. */
static int slot_ports(const struct steer_slot *s, __u32 e, __u16 *out)
{
	int i, n = 0;

	for (i = 0; i < STEER_DECAP_PORTS; i++)
		if (s->decap_port[i] && s->decap_port_encap[i] == e)
			out[n++] = ntohs(s->decap_port[i]);
	return n;
}

static void test_decap(void)
{
	static const __u32 table[STEER_TABLE_MAX];
	struct steer_build a = {}, b = {}, c = {};
	__u16 ports[STEER_DECAP_PORTS];
	__u64 bits = 0;
	int i;

	if (!EXPECT_EQ(compile_text(V1, &a), 0, "a bare policy compiles"))
		return;
	EXPECT_EQ(a.slot.decap, STEER_DECAP_ALL,
		  "by default every encapsulation is looked through");
	EXPECT(slot_ports(&a.slot, STEER_ENCAP_VXLAN, ports) == 1 &&
	       ports[0] == 4789, "VXLAN on 4789");
	EXPECT(slot_ports(&a.slot, STEER_ENCAP_GENEVE, ports) == 1 &&
	       ports[0] == 6081, "Geneve on 6081");
	EXPECT(slot_ports(&a.slot, STEER_ENCAP_GTPU, ports) == 1 &&
	       ports[0] == 2152, "GTP-U on 2152");
	for (i = 0; i < STEER_DECAP_PORTS; i++)
		if (a.slot.decap_port[i])
			bits |= 1ull << steer_port_bit(a.slot.decap_port[i]);
	EXPECT_EQ(a.slot.decap_port_bits, bits,
		  "decap_port_bits has the bit of each port, and only those");

	if (!EXPECT_EQ(compile_text(V1 "decap: [gre, {vxlan: [8472, 4789]}, esp]\n", &b),
		       0, "a decap list compiles"))
		goto out;
	EXPECT_EQ(b.slot.decap, STEER_DECAP(STEER_ENCAP_GRE) |
		  STEER_DECAP(STEER_ENCAP_VXLAN) | STEER_DECAP(STEER_ENCAP_ESP),
		  "exactly the encapsulations listed are looked through");
	EXPECT(slot_ports(&b.slot, STEER_ENCAP_VXLAN, ports) == 2 &&
	       ports[0] == 4789 && ports[1] == 8472, "VXLAN on both its ports");
	EXPECT_EQ(slot_ports(&b.slot, STEER_ENCAP_GENEVE, ports) +
		  slot_ports(&b.slot, STEER_ENCAP_GTPU, ports), 0,
		  "no port of an encapsulation left out");

	if (EXPECT_EQ(compile_text(V1 "decap: none\n", &c), 0,
		      "decap: none compiles"))
		EXPECT(!c.slot.decap && !c.slot.decap_port_bits &&
		       !c.slot.decap_port[0], "decap: none leaves the slot's decap empty");
	EXPECT(build_digest(&a, table) != build_digest(&c, table),
	       "the digest changes with decap, so an apply of it is not 'unchanged'");
out:
	build_free(&a);
	build_free(&b);
	build_free(&c);
}

static void test_seed_random(void)
{
	struct steer_build a = {};
	int i, nonzero = 0;

	if (!EXPECT_EQ(compile_text(V1 "hash: {seed: random}\n", &a), 0,
		       "a policy with a random seed compiles"))
		return;
	EXPECT(a.slot.loader_flags & STEER_LF_SEED_RANDOM,
	       "a random seed is marked STEER_LF_SEED_RANDOM for apply");
	for (i = 0; i < STEER_HASH_KEY_WORDS; i++)
		nonzero += !!a.slot.hash_key[i];
	EXPECT_EQ(nonzero, 0, "compile leaves the key of a random seed to apply");
	build_free(&a);
}

/* ---- the worker override and errors ------------------------------------- */

static void test_workers_override(void)
{
	struct table_cpu w[] = { { 1, 1 }, { 3, 2 } };
	struct policy_cpus workers = { w, 2 }, none = { w, 0 };
	struct steer_policy p;
	struct steer_build b;
	char why[512];

	if (!EXPECT_EQ(parse(V1 "rules:\n  - {match: {proto: tcp}, cpu: 0}\n",
			     "0-3", &p), 0, "the policy parses"))
		goto out;
	if (EXPECT_EQ(policy_compile(&p, &workers, &b, &WHY(why)), 0,
		      "it compiles with a worker list")) {
		EXPECT_EQ(b.ncpus, 2, "the table gets the workers given");
		EXPECT(b.cpus[0].cpu == 1 && b.cpus[1].cpu == 3 &&
		       b.cpus[1].weight == 2,
		       "the table CPUs and weights are the ones given");
		EXPECT_EQ(b.nflow, 1, "rules stay");
		build_free(&b);
	}
	EXPECT_EQ(policy_compile(&p, &none, &b, &WHY(why)), -EINVAL,
		  "an empty worker list is refused");
	EXPECT(strstr(why, "no worker CPU"), "the reason says no worker CPU is left");
	EXPECT(!b.flow && !b.prefix, "a failed compile leaves nothing to free");
out:
	policy_free(&p);
}

/* A policy without 'cpus' leaves the RX-interrupt CPUs out of the table,
 * unless that leaves nothing, and keeps to the NIC's node. */
static void test_default_workers(void)
{
	struct table_cpu buf[STEER_CPU_IDS];
	struct policy_cpus w;
	struct steer_policy p, listed;
	struct numa_layout l;
	struct cpu_set irq;
	char why[128];
	bool fallback;

	if (!EXPECT_EQ(parse(V1, "0-3", &p), 0, "a policy without cpus parses") ||
	    !EXPECT_EQ(parse(V1 "cpus: [0-3]\n", "0-3", &listed), 0,
		       "a policy with cpus parses"))
		goto out;
	cpuset_parse(&irq, "0,2");
	fallback = policy_default_workers(&p, &irq, NULL, -1, &w, buf) == NUMA_DEFAULT_ALL;
	EXPECT(w.n == 2 && w.v[0].cpu == 1 && w.v[1].cpu == 3 && !fallback,
	       "the CPUs taking RX interrupts (0, 2) are left out: workers 1 and 3");
	fallback = policy_default_workers(&listed, &irq, NULL, -1, &w, buf) == NUMA_DEFAULT_ALL;
	EXPECT(w.n == 4 && !fallback, "a policy that lists its CPUs keeps them all");
	cpuset_parse(&irq, "0-3");
	fallback = policy_default_workers(&p, &irq, NULL, -1, &w, buf) == NUMA_DEFAULT_ALL;
	EXPECT(w.n == 4 && fallback,
	       "when every CPU takes RX interrupts, all work and the fallback is said");
	cpuset_parse(&irq, "");
	fallback = policy_default_workers(&p, &irq, NULL, -1, &w, buf) == NUMA_DEFAULT_ALL;
	EXPECT(w.n == 4 && !fallback, "an interface without interrupts (veth) leaves all CPUs working");
	fallback = policy_default_workers(&p, NULL, NULL, -1, &w, buf) == NUMA_DEFAULT_ALL;
	EXPECT(w.n == 4 && !fallback, "unknown interrupts leave all CPUs working, no fallback said");
	if (!EXPECT_EQ(numa_layout_parse(&l, "0:0-1,1:2-3", &WHY(why)), 0,
		       "the layout 0:0-1,1:2-3 parses"))
		goto out;
	cpuset_parse(&irq, "2");
	EXPECT(policy_default_workers(&p, &irq, &l, 1, &w, buf) == NUMA_DEFAULT_NODE &&
	       w.n == 1 && w.v[0].cpu == 3,
	       "a NIC on node 1 (CPUs 2-3) collecting on CPU 2: the one worker is CPU 3");
	EXPECT(policy_default_workers(&listed, &irq, &l, 1, &w, buf) == NUMA_DEFAULT_ONLINE &&
	       w.n == 4, "a policy that lists its CPUs keeps them all, node or not");
out:
	policy_free(&p);
	policy_free(&listed);
}

/* The parser counts rule_cpus entries per rule and refuses more than the
 * map holds, so only a policy changed after parsing reaches compile's own
 * check; this one asks for 2000 + 2100 entries. */
static void test_rule_cpus_too_big(void)
{
	struct steer_policy p;
	struct steer_build b;
	char why[512];

	if (!EXPECT_EQ(parse(V1 "rules:\n"
			     "  - {match: {src: 10.0.0.0/8}, cpus: [0-1]}\n"
			     "  - {match: {proto: tcp}, cpus: [0-1]}\n",
			     "0-3", &p), 0, "the policy parses"))
		goto out;
	p.rules[0].cpus.v[0].weight = 1000;
	p.rules[0].cpus.v[1].weight = 1000;
	p.rules[1].cpus.v[0].weight = 1000;
	p.rules[1].cpus.v[1].weight = 1100;
	EXPECT_EQ(policy_compile(&p, NULL, &b, &WHY(why)), -E2BIG,
		  "rule CPU sets beyond STEER_RULE_CPUS_MAX are refused with -E2BIG");
	EXPECT(strstr(why, "4100 entries"), "the reason counts the entries needed");
	/* Sets are laid out in policy order: rule 1 takes 2000, then rule
	 * 2's 2100 do not fit. */
	EXPECT(strstr(why, "rule 2 (line 4)"),
	       "the reason names the rule that overflowed and its line");
	EXPECT(!b.flow && !b.prefix, "a failed compile leaves nothing to free");
	if (test_failed)
		printf("  why: %s\n", why);
out:
	policy_free(&p);
}

/* Rules at the parser's limit, 4096 rule_cpus entries, compile, and each
 * prefix nested in the first rule carries that rule's set. */
static void test_rule_cpus_at_limit(void)
{
	struct steer_policy p;
	struct steer_build b;
	char why[512];
	int i;

	if (!EXPECT_EQ(parse(V1 "rules:\n"
			     "  - {match: {src: 10.0.0.0/8}, cpus: [{cpu: 0, weight: 1000}, {cpu: 1, weight: 1000}, {cpu: 2, weight: 1000}, {cpu: 3, weight: 1000}]}\n"
			     "  - {match: {src: 10.1.0.0/16}, cpus: [{cpu: 0, weight: 48}, {cpu: 1, weight: 48}]}\n"
			     "  - {match: {src: 10.2.0.0/16}, cpu: 1}\n"
			     "  - {match: {src: 10.3.0.0/16}, cpu: 2}\n",
			     "0-3", &p), 0, "a policy with 4096 rule_cpus entries parses"))
		goto out;
	if (EXPECT_EQ(policy_compile(&p, NULL, &b, &WHY(why)), 0,
		      "it compiles")) {
		EXPECT_EQ(b.nrule_cpus, 4096,
			  "every rule's set is laid out once, all 4096 entries");
		for (i = 0; i < b.nprefix; i++)
			EXPECT(b.prefix[i].target.cpu == 0 &&
			       b.prefix[i].target.ncpus == 4000 &&
			       b.prefix[i].target.rule_id == 0,
			       "every nested prefix carries rule 1's set");
		build_free(&b);
	} else {
		printf("  why: %s\n", why);
	}
out:
	policy_free(&p);
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_seed_key, "an explicit seed gives a deterministic key (policy_seed_key)"),
	TEST_ENTRY(test_decap, "decap compiles into the slot's bits and UDP ports, and its digest"),
	TEST_ENTRY(test_seed_random, "a random seed is left to apply, marked STEER_LF_SEED_RANDOM"),
	TEST_ENTRY(test_workers_override, "a worker list overrides the policy's table CPUs"),
	TEST_ENTRY(test_default_workers, "default workers leave out RX-interrupt CPUs, keep to the NIC's node, and fall back to all when none is left"),
	TEST_ENTRY(test_rule_cpus_too_big, "rule CPU sets too big for rule_cpus are an error"),
	TEST_ENTRY(test_rule_cpus_at_limit, "rule CPU sets at the limit compile, nested prefixes included"),
};

TEST_MAIN_WITH_CASES("compile")
