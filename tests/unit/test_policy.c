// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the YAML policy parser. One table row per case: description,
 * online CPUs, policy text, whether it is valid, and the exact first
 * message (location included) it must produce. Every valid row is also
 * printed with policy_print() and parsed back, which must give an equal
 * policy. Separate tests check what good policies normalize to.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <unistd.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "policy/policy.h"
#include "test.h"

#define NAME "p.yaml"

struct policy_case {
	const char *desc;
	const char *online;	/* online CPUs, kernel list syntax */
	const char *text;
	int valid;		/* 1: parses (maybe with a warning) */
	const char *msg;	/* the one message expected, or NULL: none */
};

#define V1 "version: 1\n"

static const struct policy_case cases[] = {
	/* ---- good policies ---- */
	{ "the DESIGN.md example is valid", "0-15",
	  V1 "cpus: [2-7, {cpu: 8, weight: 2}]   # worker CPUs; ranges, lists, weights\n"
	  "queue_size: 2048                   # cpumap ring per worker\n"
	  "hash: {key: l4, symmetric: true, seed: random}\n"
	  "local_fastpath: true               # chosen CPU == receiving CPU: pass, no hop\n"
	  "rebalance: drain                   # drain (no reordering) | immediate\n"
	  "rules:                             # first match wins\n"
	  "  - {match: {proto: tcp, dst_port: 443}, cpu: 3}\n"
	  "  - {match: {src: 10.1.0.0/16}, cpus: [4-5]}\n",
	  1, NULL },
	{ "a bare version is a valid policy", "0-1", V1, 1, NULL },
	{ "block style is as good as flow style", "0-3",
	  V1 "cpus:\n  - 0\n  - 1-2\n  - cpu: 3\n    weight: 5\n"
	  "hash:\n  key: l3\n  symmetric: false\n  seed: 0xdeadbeef\n"
	  "rules:\n  - match:\n      proto: udp\n      src_port: 53\n    cpus: [1, 2]\n",
	  1, NULL },
	{ "IPv6 rules with quoted addresses are valid", "0-7",
	  V1 "rules:\n"
	  "  - {match: {src: \"2001:db8:ff00::/40\"}, cpus: [1-2]}\n"
	  "  - {match: {proto: tcp, src: \"2001:db8:1::1\", dst: \"2001:db8:2::1\", dst_port: 22}, cpu: 3}\n"
	  "  - match:\n      dst: fe80::/10\n    cpu: 4\n",
	  1, NULL },
	{ "every top-level key may be set", "0-3",
	  V1 "cpus: [0-3]\nqueue_size: 16384\ntable_size: 4096\n"
	  "hash: {key: l3, symmetric: true, seed: 18446744073709551615}\n"
	  "local_fastpath: false\nrebalance: immediate\nnon_ip: {cpu: 2}\n",
	  1, NULL },
	{ "protocols may be numbers", "0-1",
	  V1 "rules:\n  - {match: {proto: 47}, cpu: 1}\n  - {match: {proto: 0}, cpu: 1}\n",
	  1, NULL },
	{ "an IPv4 /0 prefix is allowed (all IPv4 by source)", "0-1",
	  V1 "rules:\n  - {match: {src: 0.0.0.0/0}, cpu: 1}\n", 1, NULL },
	{ "a one-document stream with '---' is fine", "0-1",
	  "---\n" V1 "...\n", 1, NULL },

	/* ---- warnings: valid, but CPUs past the limit are left out ---- */
	{ "on a machine with CPUs past the limit, the default cpus says it leaves them out",
	  "0-2047", V1 "table_size: 1024\n", 1,
	  NAME ": warning: the default 'cpus' leaves out 1024 of the online CPUs, those with ids of 1024 or more: xdp-steer steers to CPUs below 1024 only; name the workers with 'cpus' to choose which work" },
	{ "a sparse mask past the limit counts each CPU left out",
	  "0-3,255-257,1023-1025,5000", V1, 1,
	  NAME ": warning: the default 'cpus' leaves out 3 of the online CPUs, those with ids of 1024 or more: xdp-steer steers to CPUs below 1024 only; name the workers with 'cpus' to choose which work" },
	{ "the default 'cpus' of a machine with CPUs 256-1023 takes them all, unsaid",
	  "0-1023", V1 "table_size: 1024\n", 1, NULL },
	{ "named workers below the limit leave nothing unsaid", "0-2047",
	  V1 "cpus: [0-3]\n", 1, NULL },

	/* ---- warnings: valid, but a rule never matches ---- */
	{ "a duplicate rule is a warning", "0-3",
	  V1 "rules:\n"
	  "  - {match: {proto: tcp, dst_port: 443}, cpu: 1}\n"
	  "  - {match: {src: 10.0.0.1}, cpu: 2}\n"
	  "  - {match: {dst_port: 443, proto: tcp}, cpu: 3}\n",
	  1, NAME ":5:5: warning: rule 3 duplicates rule 1 (line 3); it never matches" },
	{ "a rule with more fields after a broader one is shadowed", "0-3",
	  V1 "rules:\n"
	  "  - {match: {proto: tcp}, cpu: 1}\n"
	  "  - {match: {proto: tcp, dst_port: 80}, cpu: 2}\n",
	  1, NAME ":4:5: warning: rule 2 is shadowed by rule 1 (line 3), which matches all its flows; it never matches" },
	{ "a longer prefix after a covering prefix is shadowed", "0-3",
	  V1 "rules:\n"
	  "  - {match: {dst: 10.0.0.0/8}, cpu: 1}\n"
	  "  - {match: {dst: 10.1.0.0/16}, cpu: 2}\n",
	  1, NAME ":4:5: warning: rule 2 is shadowed by rule 1 (line 3), which matches all its flows; it never matches" },
	{ "an exact address inside an earlier prefix is shadowed", "0-3",
	  V1 "rules:\n"
	  "  - {match: {src: \"2001:db8::/32\"}, cpu: 1}\n"
	  "  - {match: {src: \"2001:db8::5\", proto: udp}, cpu: 2}\n",
	  1, NAME ":4:5: warning: rule 2 is shadowed by rule 1 (line 3), which matches all its flows; it never matches" },
	{ "under hash.symmetric, a rule that is an earlier rule's mirror is a warning", "0-3",
	  V1 "hash: {symmetric: true}\n"
	  "rules:\n"
	  "  - {match: {proto: tcp, src_port: 80}, cpu: 1}\n"
	  "  - {match: {proto: tcp, dst_port: 80}, cpu: 2}\n",
	  1, NAME ":5:5: warning: rule 2 duplicates the mirror (hash.symmetric) of rule 1 (line 4); it never matches" },
	{ "under hash.symmetric, a rule inside an earlier rule's mirror is shadowed", "0-3",
	  V1 "hash: {symmetric: true}\n"
	  "rules:\n"
	  "  - {match: {src: 10.0.0.1, dst: 10.0.0.0/8}, cpu: 1}\n"
	  "  - {match: {src: 10.1.0.0, dst: 10.0.0.1, proto: udp}, cpu: 2}\n",
	  1, NAME ":5:5: warning: rule 2 is shadowed by the mirror (hash.symmetric) of rule 1 (line 4), which matches all its flows; it never matches" },
	{ "without hash.symmetric, the reverse of a rule is a rule of its own", "0-3",
	  V1 "rules:\n"
	  "  - {match: {proto: tcp, src_port: 80}, cpu: 1}\n"
	  "  - {match: {proto: tcp, dst_port: 80}, cpu: 2}\n",
	  1, NULL },
	{ "a prefix after a longer one is not shadowed", "0-3",
	  V1 "rules:\n"
	  "  - {match: {dst: 10.1.0.0/16}, cpu: 1}\n"
	  "  - {match: {dst: 10.0.0.0/8}, cpu: 2}\n",
	  1, NULL },
	{ "the same prefix of the other family is not shadowed", "0-3",
	  V1 "rules:\n"
	  "  - {match: {proto: tcp, src: 10.0.0.1}, cpu: 1}\n"
	  "  - {match: {proto: tcp, src: \"::1\"}, cpu: 2}\n",
	  1, NULL },

	/* ---- YAML itself ---- */
	{ "a YAML syntax error is reported where libyaml found it", "0-1",
	  V1 "cpus: [1, 2\nqueue_size: 4\n",
	  0, NAME ":3:11: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence at 2:7)" },
	{ "an unquoted IPv6 address in flow style gets a hint", "0-1",
	  V1 "rules:\n  - {match: {src: ::1}, cpu: 1}\n",
	  0, NAME ":3:19: invalid YAML: did not find expected node content (while parsing a flow node at 3:19); quote IPv6 addresses like \"::1\"" },
	{ "a bad indentation is a syntax error", "0-1",
	  V1 "hash:\n  key: l3\n symmetric: true\n",
	  0, NAME ":4:2: invalid YAML: did not find expected key (while parsing a block mapping at 1:1)" },
	{ "a byte that is not UTF-8 is reported at its line and column", "0-1",
	  V1 "cpus: [0-1]\n# caf\xe9\n",
	  0, NAME ":3:6: invalid YAML: incomplete UTF-8 octet sequence (byte 28)" },
	{ "a control character is reported at its line and column, in characters", "0-1",
	  V1 "  \xc3\xa9\xc3\xa9: \x01\n",
	  0, NAME ":2:7: invalid YAML: control characters are not allowed (byte 19)" },
	{ "a range whose end is negative is not a range", "0-1",
	  V1 "cpus: [0--1]\n",
	  0, NAME ":2:8: expected a CPU number, a range like 2-7 or {cpu: N, weight: W}, got '0--1'" },
	{ "a range beyond any integer names the range as written", "0-1",
	  V1 "cpus: [0-99999999999999999999]\n",
	  0, NAME ":2:8: range 0-99999999999999999999 is beyond the 1024 CPU ids xdp-steer steers to (cpus 0-1023)" },
	{ "a quoted true is a string, and the message says to drop the quotes", "0-1",
	  V1 "local_fastpath: \"true\"\n",
	  0, NAME ":2:17: expected true or false for local_fastpath, got the quoted string 'true'; write it without quotes" },
	{ "an empty file is refused", "0-1", "", 0,
	  NAME ":1:1: empty policy; it needs at least 'version: 1'" },
	{ "a comment-only file is refused", "0-1", "# nothing\n", 0,
	  NAME ":1:1: empty policy; it needs at least 'version: 1'" },
	{ "a policy must be a mapping", "0-1", "- version: 1\n", 0,
	  NAME ":1:1: expected a mapping of policy keys, got a list" },
	{ "a second document is refused", "0-1", V1 "---\n" V1, 0,
	  NAME ":3:1: a second YAML document; a policy is one document" },
	{ "a duplicate key is refused", "0-1",
	  V1 "cpus: [0]\ncpus: [1]\n", 0,
	  NAME ":3:1: duplicate key 'cpus' (first at line 2)" },
	{ "a key must be a name", "0-1", V1 "[a]: 1\n", 0,
	  NAME ":2:1: expected a key name, got a list" },

	/* ---- version ---- */
	{ "a missing version is refused", "0-1", "cpus: [0]\n", 0,
	  NAME ":1:1: missing 'version: 1' (the policy format version)" },
	{ "version 2 is unsupported", "0-1", "version: 2\n", 0,
	  NAME ":1:10: unsupported version 2 (this xdp-steer reads version 1)" },
	{ "a quoted version is a string", "0-1", "version: \"1\"\n", 0,
	  NAME ":1:10: expected an integer for version, got a string" },

	/* ---- unknown keys ---- */
	{ "a misspelt top-level key gets a suggestion", "0-1",
	  V1 "queue_sise: 4096\n", 0,
	  NAME ":2:1: unknown key 'queue_sise' (did you mean 'queue_size'?)" },
	{ "a transposed key gets a suggestion", "0-1",
	  V1 "rebalacne: drain\n", 0,
	  NAME ":2:1: unknown key 'rebalacne' (did you mean 'rebalance'?)" },
	{ "an unknown key far from any lists the valid ones", "0-1",
	  V1 "workers: [1]\n", 0,
	  NAME ":2:1: unknown key 'workers' (valid keys: version, cpus, queue_size, table_size, hash, local_fastpath, rebalance, drain_timeout, non_ip, balance, rules, decap, worker_sched)" },
	{ "a misspelt hash key gets a suggestion", "0-1",
	  V1 "hash: {kye: l3}\n", 0,
	  NAME ":2:8: unknown key 'kye' (did you mean 'key'?)" },
	{ "a misspelt match field gets a suggestion", "0-1",
	  V1 "rules:\n  - {match: {dst_prot: 80}, cpu: 1}\n", 0,
	  NAME ":3:14: unknown key 'dst_prot' (did you mean 'dst_port'?)" },
	{ "a misspelt rule key gets a suggestion", "0-1",
	  V1 "rules:\n  - {macth: {proto: tcp}, cpu: 1}\n", 0,
	  NAME ":3:6: unknown key 'macth' (did you mean 'match'?)" },
	{ "a misspelt weight gets a suggestion", "0-1",
	  V1 "cpus: [{cpu: 1, wieght: 2}]\n", 0,
	  NAME ":2:17: unknown key 'wieght' (did you mean 'weight'?)" },

	/* ---- types ---- */
	{ "cpus as a string is refused", "0-15", V1 "cpus: 2-7\n", 0,
	  NAME ":2:7: expected a list of CPUs, got a string" },
	{ "queue_size as a string is refused", "0-1", V1 "queue_size: big\n", 0,
	  NAME ":2:13: expected an integer for queue_size, got a string" },
	{ "an octal integer with an 8 is a string, refused", "0-1",
	  V1 "queue_size: 0o18\n", 0,
	  NAME ":2:13: expected an integer for queue_size, got a string" },
	{ "a bare 0x is a string, refused", "0-1", V1 "queue_size: 0x\n", 0,
	  NAME ":2:13: expected an integer for queue_size, got a string" },
	{ "a list where an integer goes is refused", "0-1",
	  V1 "queue_size: [1]\n", 0,
	  NAME ":2:13: expected an integer for queue_size, got a list" },
	{ "a YAML 1.1 boolean is refused by name", "0-1",
	  V1 "local_fastpath: yes\n", 0,
	  NAME ":2:17: expected true or false for local_fastpath, got 'yes'" },
	{ "hash as a list is refused", "0-1", V1 "hash: [l4]\n", 0,
	  NAME ":2:7: expected a mapping for hash, got a list" },
	{ "rules as a mapping is refused", "0-1",
	  V1 "rules: {match: {proto: tcp}, cpu: 1}\n", 0,
	  NAME ":2:8: expected a list of rules, got a mapping" },
	{ "a rule that is not a mapping is refused", "0-1",
	  V1 "rules: [tcp]\n", 0,
	  NAME ":2:9: expected a rule ({match: ..., cpu: N}), got a string" },
	{ "a CPU entry that is a word is refused", "0-1",
	  V1 "cpus: [0, all]\n", 0,
	  NAME ":2:11: expected a CPU number, a range like 2-7 or {cpu: N, weight: W}, got 'all'" },
	{ "a rule cpu that is a range is refused", "0-7",
	  V1 "rules:\n  - {match: {proto: tcp}, cpu: 2-3}\n", 0,
	  NAME ":3:32: expected a CPU number, got a string" },

	/* ---- CPUs ---- */
	{ "a CPU that is not online is refused", "0-1",
	  V1 "cpus: [0, 99]\n", 0,
	  NAME ":2:11: cpu 99 is not online (online: 0-1)" },
	{ "offline CPUs of a range are named together", "0-1,4,8-11",
	  V1 "cpus: [0-5]\n", 0,
	  NAME ":2:8: cpus 2-3,5 are not online (online: 0-1,4,8-11)" },
	{ "a CPU id past the workers' limit is refused, naming it", "0-1",
	  V1 "cpus: [1024]\n", 0,
	  NAME ":2:8: cpu 1024 is beyond the 1024 CPU ids xdp-steer steers to (cpus 0-1023)" },
	{ "a range reaching past the workers' limit is refused", "0-1023",
	  V1 "cpus: [250-1500]\n", 0,
	  NAME ":2:8: cpu 1500 is beyond the 1024 CPU ids xdp-steer steers to (cpus 0-1023)" },
	{ "online CPUs 263 and 1023 are workers (no limit at 256)", "0-1,263,1023",
	  V1 "cpus: [1, 263, 1023]\n", 1, NULL },
	{ "an online CPU past 255 is not a limit: 300 is only not online", "0-1",
	  V1 "cpus: [300]\n", 0,
	  NAME ":2:8: cpu 300 is not online (online: 0-1)" },
	{ "a negative CPU is refused", "0-1", V1 "cpus: [-1]\n", 0,
	  NAME ":2:8: cpu -1 is not a CPU number" },
	{ "a reversed range is refused with the fix", "0-15",
	  V1 "cpus: [7-2]\n", 0,
	  NAME ":2:8: range 7-2 is reversed; did you mean 2-7?" },
	{ "a zero weight is refused", "0-15",
	  V1 "cpus: [{cpu: 1, weight: 0}]\n", 0,
	  NAME ":2:25: weight 0 is out of range 1-1000" },
	{ "a negative weight is refused", "0-15",
	  V1 "cpus: [{cpu: 1, weight: -3}]\n", 0,
	  NAME ":2:25: weight -3 is out of range 1-1000" },
	{ "a weight above 1000 is refused", "0-15",
	  V1 "cpus: [{cpu: 1-2, weight: 1001}]\n", 0,
	  NAME ":2:27: weight 1001 is out of range 1-1000" },
	{ "a weighted entry needs a cpu", "0-15",
	  V1 "cpus: [{weight: 2}]\n", 0,
	  NAME ":2:8: weighted entry without 'cpu'" },
	{ "an empty CPU set is refused", "0-15", V1 "cpus: []\n", 0,
	  NAME ":2:7: empty CPU set; list at least one CPU" },
	{ "an empty rule CPU set is refused", "0-15",
	  V1 "rules:\n  - {match: {proto: tcp}, cpus: []}\n", 0,
	  NAME ":3:33: empty CPU set; list at least one CPU" },
	{ "a CPU listed twice is refused", "0-15",
	  V1 "cpus: [0-3, 2]\n", 0,
	  NAME ":2:13: cpu 2 is listed twice (first at 2:8)" },
	{ "a rule CPU that is not online is refused", "0-1",
	  V1 "rules:\n  - {match: {proto: tcp}, cpu: 7}\n", 0,
	  NAME ":3:32: cpu 7 is not online (online: 0-1)" },

	/* ---- sizes and choices ---- */
	{ "a zero queue_size is refused", "0-1", V1 "queue_size: 0\n", 0,
	  NAME ":2:13: queue_size 0 is out of range 1-16384" },
	{ "a queue_size above the kernel's limit is refused", "0-1",
	  V1 "queue_size: 16385\n", 0,
	  NAME ":2:13: queue_size 16385 is out of range 1-16384" },
	{ "a table_size that is not a power of two is refused", "0-1",
	  V1 "table_size: 500\n", 0,
	  NAME ":2:13: table_size 500 is not a power of two (try 512)" },
	{ "a table_size above the maximum is refused", "0-1",
	  V1 "table_size: 8192\n", 0,
	  NAME ":2:13: table_size 8192 is out of range 1-4096" },
	{ "a table smaller than the workers is refused at table_size, naming the workers left without a bucket",
	  "0-255", V1 "cpus: [0-255]\ntable_size: 128\n", 0,
	  NAME ":3:13: table_size 128 leaves 128 of the 256 worker CPUs without a bucket (128-255), so they would steer nothing: raise table_size to 256" },
	{ "a weight that earns no bucket is refused, with the size that gives it one",
	  "0-1", V1 "cpus: [0, {cpu: 1, weight: 200}]\ntable_size: 64\n", 0,
	  NAME ":3:13: table_size 64 leaves 1 of the 2 worker CPUs without a bucket (0), so they would steer nothing: raise table_size to 128" },
	{ "with table_size left out, it is said at cpus",
	  "0-15", V1 "cpus: [0, {cpu: 1-15, weight: 1000}]\n", 0,
	  NAME ":2:7: table_size 512 leaves 1 of the 16 worker CPUs without a bucket (0), so they would steer nothing: raise table_size to 4096" },
	{ "weights no table can serve are refused, and told to even out",
	  "0-255", V1 "cpus: [0, {cpu: 1-255, weight: 1000}]\n", 0,
	  NAME ":2:7: table_size 512 leaves 1 of the 256 worker CPUs without a bucket (0), so they would steer nothing: even out their weights" },
	{ "an unknown hash key kind is refused", "0-1",
	  V1 "hash: {key: l7}\n", 0,
	  NAME ":2:13: key must be l4 or l3, got 'l7'" },
	{ "a word seed other than random is refused", "0-1",
	  V1 "hash: {seed: secret}\n", 0,
	  NAME ":2:14: seed must be random or an integer, got 'secret'" },
	{ "a negative seed is refused", "0-1",
	  V1 "hash: {seed: -1}\n", 0,
	  NAME ":2:14: expected random or an integer for seed, got negative -1" },
	{ "an unknown rebalance mode is refused", "0-1",
	  V1 "rebalance: later\n", 0,
	  NAME ":2:12: rebalance must be drain or immediate, got 'later'" },
	{ "an unknown non_ip mode is refused", "0-1",
	  V1 "non_ip: drop\n", 0,
	  NAME ":2:9: non_ip must be local or {cpu: N}, got 'drop'" },
	{ "a non_ip CPU that is not online is refused", "0-1",
	  V1 "non_ip: {cpu: 5}\n", 0,
	  NAME ":2:15: cpu 5 is not online (online: 0-1)" },

	/* ---- rules ---- */
	{ "an empty rule list is refused", "0-1", V1 "rules: []\n", 0,
	  NAME ":2:8: empty rules; list at least one rule or remove 'rules'" },
	{ "a rules key without a value is refused", "0-1", V1 "rules:\n", 0,
	  NAME ":2:7: empty rules; list at least one rule or remove 'rules'" },
	{ "a rule without match is refused", "0-1",
	  V1 "rules:\n  - {cpu: 1}\n", 0,
	  NAME ":3:5: rule 1 has no 'match'" },
	{ "a rule without target is refused", "0-1",
	  V1 "rules:\n  - {match: {proto: tcp}}\n", 0,
	  NAME ":3:5: rule 1 has no target; give it 'cpu: N' or 'cpus: [...]'" },
	{ "a rule with cpu and cpus is refused", "0-3",
	  V1 "rules:\n  - {match: {proto: tcp}, cpu: 1, cpus: [2]}\n", 0,
	  NAME ":3:35: a rule takes 'cpu' or 'cpus', not both" },
	{ "an empty match is refused", "0-1",
	  V1 "rules:\n  - {match: {}, cpu: 1}\n", 0,
	  NAME ":3:13: empty match would catch every flow; drop the rule and list its CPUs in 'cpus'" },
	{ "an unknown protocol gets a suggestion", "0-1",
	  V1 "rules:\n  - {match: {proto: tpc}, cpu: 1}\n", 0,
	  NAME ":3:21: unknown protocol 'tpc' (did you mean 'tcp'?)" },
	{ "an unknown protocol far from any lists the names", "0-1",
	  V1 "rules:\n  - {match: {proto: gre}, cpu: 1}\n", 0,
	  NAME ":3:21: unknown protocol 'gre' (use tcp, udp, udplite, sctp, icmp, icmpv6 or a number 0-255)" },
	{ "a protocol number above 255 is refused", "0-1",
	  V1 "rules:\n  - {match: {proto: 256}, cpu: 1}\n", 0,
	  NAME ":3:21: proto 256 is out of range 0-255" },
	{ "port 0 is refused", "0-1",
	  V1 "rules:\n  - {match: {dst_port: 0}, cpu: 1}\n", 0,
	  NAME ":3:24: dst_port 0 is out of range 1-65535" },
	{ "a port above 65535 is refused", "0-1",
	  V1 "rules:\n  - {match: {src_port: 70000}, cpu: 1}\n", 0,
	  NAME ":3:24: src_port 70000 is out of range 1-65535" },
	{ "a port range is refused", "0-1",
	  V1 "rules:\n  - {match: {src_port: 80-90}, cpu: 1}\n", 0,
	  NAME ":3:24: expected an integer for src_port, got a string" },
	{ "ports with a protocol that has none are refused", "0-1",
	  V1 "rules:\n  - {match: {proto: icmp, dst_port: 7}, cpu: 1}\n", 0,
	  NAME ":3:37: proto icmp has no ports, so a rule with dst_port never matches" },
	{ "a bad IPv4 address is refused", "0-1",
	  V1 "rules:\n  - {match: {src: 10.1.0.300}, cpu: 1}\n", 0,
	  NAME ":3:19: bad address '10.1.0.300' for src (expected an IPv4 or IPv6 address, optionally /LEN)" },
	{ "a prefix length that is not a number is refused", "0-1",
	  V1 "rules:\n  - {match: {src: 10.1.0.0/x}, cpu: 1}\n", 0,
	  NAME ":3:19: bad address '10.1.0.0/x' for src (expected an IPv4 or IPv6 address, optionally /LEN)" },
	{ "an IPv4 prefix longer than 32 is refused", "0-1",
	  V1 "rules:\n  - {match: {dst: 10.1.0.0/33}, cpu: 1}\n", 0,
	  NAME ":3:19: prefix length 33 is out of range 0-32 for IPv4" },
	{ "an IPv6 prefix longer than 128 is refused", "0-1",
	  V1 "rules:\n  - {match: {dst: \"2001:db8::/129\"}, cpu: 1}\n", 0,
	  NAME ":3:19: prefix length 129 is out of range 0-128 for IPv6" },
	{ "host bits in a prefix are refused with the fix", "0-1",
	  V1 "rules:\n  - {match: {src: 10.1.2.3/16}, cpu: 1}\n", 0,
	  NAME ":3:19: 10.1.2.3/16 has host bits set; did you mean 10.1.0.0/16?" },
	{ "host bits in an IPv6 prefix are refused with the fix", "0-1",
	  V1 "rules:\n  - {match: {src: \"2001:db8::1/32\"}, cpu: 1}\n", 0,
	  NAME ":3:19: 2001:db8::1/32 has host bits set; did you mean 2001:db8::/32?" },
	{ "::/0 is a valid IPv6 prefix: IPv4 flows are kept apart by family", "0-1",
	  V1 "rules:\n  - {match: {src: \"::/0\"}, cpu: 1}\n"
	  "  - {match: {dst: \"::ffff:0:0/96\"}, cpu: 0}\n", 1, NULL },
	{ "an address as a number is refused", "0-1",
	  V1 "rules:\n  - {match: {dst: [1]}, cpu: 1}\n", 0,
	  NAME ":3:19: expected an address for dst, got a list" },
	{ "src and dst of different families are refused", "0-1",
	  V1 "rules:\n  - {match: {src: 10.0.0.1, dst: \"::2\"}, cpu: 1}\n", 0,
	  NAME ":3:34: src is IPv4 but dst is IPv6; a flow has one family" },
	{ "a prefix rule may match other fields too, all of them (AND)", "0-1",
	  V1 "rules:\n  - {match: {proto: tcp, src: 10.1.0.0/16, dst: 10.2.0.1, dst_port: 80}, cpu: 1}\n",
	  1, NULL },
	{ "a rule with two prefixes is refused, at the second", "0-1",
	  V1 "rules:\n  - {match: {src: 10.1.0.0/16, dst: 10.2.0.0/16}, cpu: 1}\n", 0,
	  NAME ":3:37: src 10.1.0.0/16 and dst 10.2.0.0/16 are both prefixes; a rule matches at most one address by prefix, the other must be a full address" },
	{ "in symmetric mode each rule's mirror counts as a set of match fields", "0-1",
	  V1 "hash: {symmetric: true}\nrules:\n"
	  "  - {match: {proto: tcp, src: 10.0.0.1}, cpu: 1}\n"
	  "  - {match: {src_port: 1}, cpu: 1}\n"
	  "  - {match: {proto: udp, dst: 10.0.0.3, src_port: 2}, cpu: 1}\n"
	  "  - {match: {src: 10.0.0.1, dst_port: 7}, cpu: 1}\n"
	  "  - {match: {src: 10.9.0.0/16}, cpu: 1}\n",
	  0, NAME ":8:13: rule 5 brings a 9th set of match fields (src prefix); at most 8 sets are allowed, as each costs a lookup per packet" },
	{ "a rule matching both directions alike adds one set in symmetric mode", "0-1",
	  V1 "hash: {symmetric: true}\nrules:\n"
	  "  - {match: {src: 10.0.0.1, dst: 10.0.0.2}, cpu: 1}\n"
	  "  - {match: {src_port: 5, dst_port: 5}, cpu: 1}\n", 1, NULL },
	{ "drain_timeout may be set in milliseconds", "0-1",
	  V1 "drain_timeout: 200\n", 1, NULL },
	{ "balance may be set with its defaults", "0-1",
	  V1 "balance: {}\n", 1, NULL },
	{ "balance may set each of its keys", "0-1",
	  V1 "balance: {interval: 250, tolerance: 5, max_moves: 4}\n", 1, NULL },
	{ "balance may be off", "0-1", V1 "balance: off\n", 1, NULL },
	{ "balance may be on, its defaults", "0-1", V1 "balance: on\n", 1, NULL },
	{ "balance may weigh by frames", "0-1", V1 "balance: {by: frames}\n", 1,
	  NULL },
	{ "balance by something else is refused", "0-1",
	  V1 "balance: {by: bytes}\n", 0,
	  NAME ":2:15: balance by must be cpu or frames, got 'bytes'" },
	{ "balance as a word other than on or off is refused", "0-1",
	  V1 "balance: yes\n", 0,
	  NAME ":2:10: balance must be on, off or {by: cpu|frames, interval: MS, tolerance: PERCENT, max_moves: N}, got 'yes'" },
	{ "rebalance: immediate alone turns the default balance off", "0-1",
	  V1 "rebalance: immediate\n", 1, NULL },
	{ "a balance interval below 100 ms is refused", "0-1",
	  V1 "balance: {interval: 10}\n", 0,
	  NAME ":2:21: balance interval (ms) 10 is out of range 100-3600000" },
	{ "a balance tolerance of 0 is refused", "0-1",
	  V1 "balance: {tolerance: 0}\n", 0,
	  NAME ":2:22: balance tolerance (%) 0 is out of range 1-100" },
	{ "balance max_moves below a pair is refused", "0-1",
	  V1 "balance: {max_moves: 1}\n", 0,
	  NAME ":2:22: balance max_moves 1 is out of range 2-4096" },
	{ "a misspelt balance key gets a suggestion", "0-1",
	  V1 "balance: {tolerence: 5}\n", 0,
	  NAME ":2:11: unknown key 'tolerence' (did you mean 'tolerance'?)" },
	{ "balance with rebalance: immediate is refused", "0-1",
	  V1 "rebalance: immediate\nbalance: {}\n", 0,
	  NAME ":3:10: balance needs rebalance: drain (the balancer moves flows only without reordering them); remove 'rebalance: immediate' or set balance: off" },
	{ "balance: off with rebalance: immediate is valid", "0-1",
	  V1 "rebalance: immediate\nbalance: off\n", 1, NULL },
	{ "worker_sched may name a class", "0-1", V1 "worker_sched: fifo\n", 1, NULL },
	{ "worker_sched may give a real-time priority", "0-1",
	  V1 "worker_sched: {policy: rr, priority: 99}\n", 1, NULL },
	{ "worker_sched other is valid", "0-1",
	  V1 "worker_sched: {policy: other}\n", 1, NULL },
	{ "an unknown worker_sched class is refused", "0-1",
	  V1 "worker_sched: batch\n", 0,
	  NAME ":2:15: worker_sched must be other, fifo, rr, keep, {policy: other, nice: 0-19} or {policy: fifo, priority: 1-99}, got 'batch'" },
	{ "a worker_sched mapping without policy is refused", "0-1",
	  V1 "worker_sched: {priority: 5}\n", 0,
	  NAME ":2:15: worker_sched must be other, fifo, rr, keep, {policy: other, nice: 0-19} or {policy: fifo, priority: 1-99}, got a mapping without policy" },
	{ "a worker_sched priority 0 is refused", "0-1",
	  V1 "worker_sched: {policy: fifo, priority: 0}\n", 0,
	  NAME ":2:40: worker_sched priority 0 is out of range 1-99" },
	{ "worker_sched may keep the kthreads as they are", "0-1",
	  V1 "worker_sched: keep\n", 1, NULL },
	{ "worker_sched other may give a nice", "0-1",
	  V1 "worker_sched: {policy: other, nice: 19}\n", 1, NULL },
	{ "a worker_sched nice over 19 is refused", "0-1",
	  V1 "worker_sched: {policy: other, nice: 20}\n", 0,
	  NAME ":2:37: worker_sched nice 20 is out of range 0-19" },
	{ "a negative worker_sched nice is refused", "0-1",
	  V1 "worker_sched: {policy: other, nice: -5}\n", 0,
	  NAME ":2:37: worker_sched nice -5 is out of range 0-19" },
	{ "a nice for fifo is refused", "0-1",
	  V1 "worker_sched: {policy: fifo, nice: 5}\n", 0,
	  NAME ":2:36: worker_sched nice applies to other only; remove it, or choose policy: other" },
	{ "keep in a worker_sched mapping is refused", "0-1",
	  V1 "worker_sched: {policy: keep}\n", 0,
	  NAME ":2:24: worker_sched must be other, fifo, rr, keep, {policy: other, nice: 0-19} or {policy: fifo, priority: 1-99}, got 'keep'" },
	{ "a priority for other is refused", "0-1",
	  V1 "worker_sched: {policy: other, priority: 5}\n", 0,
	  NAME ":2:41: worker_sched priority applies to fifo and rr only; remove it, or choose policy: fifo" },
	{ "drain_timeout 0 is refused", "0-1",
	  V1 "drain_timeout: 0\n", 0,
	  NAME ":2:16: drain_timeout 0 is out of range 1-10000" },
	{ "drain_timeout with a unit is refused", "0-1",
	  V1 "drain_timeout: 50ms\n", 0,
	  NAME ":2:16: expected an integer for drain_timeout, got a string" },
	{ "a ninth set of match fields is refused", "0-1",
	  V1 "rules:\n"
	  "  - {match: {proto: tcp}, cpu: 1}\n"
	  "  - {match: {src: 10.0.0.1}, cpu: 1}\n"
	  "  - {match: {dst: 10.0.0.1}, cpu: 1}\n"
	  "  - {match: {src_port: 1}, cpu: 1}\n"
	  "  - {match: {dst_port: 1}, cpu: 1}\n"
	  "  - {match: {proto: udp, dst_port: 2}, cpu: 1}\n"
	  "  - {match: {proto: udp, src_port: 2}, cpu: 1}\n"
	  "  - {match: {src: 10.0.0.2, dst: 10.0.0.2}, cpu: 1}\n"
	  "  - {match: {src: 10.0.0.3, dst_port: 3}, cpu: 1}\n",
	  0, NAME ":11:13: rule 9 brings a 9th set of match fields (src, dst_port); at most 8 sets are allowed, as each costs a lookup per packet" },

	/* ---- decap ---- */
	{ "decap may list encapsulations, UDP ones with ports", "0-1",
	  V1 "decap: [gre, {vxlan: [4789, 8472]}, gtpu, esp]\n", 1, NULL },
	{ "decap may be all, none or an empty list", "0-1",
	  V1 "decap: none\n", 1, NULL },
	{ "an empty decap list looks through nothing", "0-1",
	  V1 "decap: []\n", 1, NULL },
	{ "decap in block style, a port given alone", "0-1",
	  V1 "decap:\n  - pppoe\n  - geneve: 6082\n  - mpls\n", 1, NULL },
	{ "a misspelt encapsulation gets a suggestion", "0-1",
	  V1 "decap: [gre, vxlam]\n", 0,
	  NAME ":2:14: unknown encapsulation 'vxlam' (did you mean 'vxlan'?)" },
	{ "an unknown encapsulation far from any lists the known ones", "0-1",
	  V1 "decap: [quic]\n", 0,
	  NAME ":2:9: unknown encapsulation 'quic' (known: pppoe, mpls, gre, ipip, vxlan, geneve, gtpu, esp)" },
	{ "an encapsulation not carried in UDP takes no port", "0-1",
	  V1 "decap: [{gre: 4754}]\n", 0,
	  NAME ":2:9: gre is not carried in UDP: write gre, without a port" },
	{ "an encapsulation listed twice is refused", "0-1",
	  V1 "decap: [gre, vxlan, gre]\n", 0,
	  NAME ":2:21: gre is listed twice (first at 2:9)" },
	{ "a UDP port given to two encapsulations is refused", "0-1",
	  V1 "decap: [{gtpu: 4789}, vxlan]\n", 0,
	  NAME ":2:23: UDP port 4789 is given twice (first at 2:16)" },
	{ "UDP port 0 is refused", "0-1",
	  V1 "decap: [{vxlan: [8472, 0]}]\n", 0,
	  NAME ":2:24: UDP port 0 is out of range 1-65535" },
	{ "a UDP port must be a number", "0-1",
	  V1 "decap: [{vxlan: flannel}]\n", 0,
	  NAME ":2:17: expected an integer for UDP port, got a string" },
	{ "an empty port list is refused with the standard port", "0-1",
	  V1 "decap: [{geneve: []}]\n", 0,
	  NAME ":2:18: no UDP port for geneve; list at least one, or write geneve for its standard port 6081" },
	{ "more UDP ports than the datapath holds are refused", "0-1",
	  V1 "decap: [{vxlan: [1, 2, 3, 4, 5, 6, 7]}, geneve, gtpu]\n", 0,
	  NAME ":2:49: more than 8 UDP ports in decap; the datapath holds 8" },
	{ "decap as one name is refused with the list to write", "0-1",
	  V1 "decap: gre\n", 0, NAME ":2:8: decap is a list: write [gre]" },
	{ "decap as a mapping is refused with the list to write", "0-1",
	  V1 "decap: {vxlan: 4789}\n", 0,
	  NAME ":2:8: decap must be all, none or a list of encapsulations (pppoe, mpls, gre, ipip, vxlan, geneve, gtpu, esp), got a mapping; give ports in the list, as [{vxlan: 4789}]" },
	{ "a decap entry that is a list is refused", "0-1",
	  V1 "decap: [[gre]]\n", 0,
	  NAME ":2:9: expected an encapsulation or {NAME: PORT}, got a list" },
	{ "a decap entry with two encapsulations is refused", "0-1",
	  V1 "decap: [{vxlan: 4789, gtpu: 2152}]\n", 0,
	  NAME ":2:9: one encapsulation per entry, as {vxlan: 4789}" },
};

static const struct policy_case *cur;

/* Parses 'text' with the online CPUs in 'online' (list syntax). */
static int parse(const char *text, const char *online, struct steer_policy *p,
		 struct diags *d)
{
	struct cpu_set on;

	if (cpuset_parse(&on, online))
		return -EBADMSG;
	return policy_parse_string(text, strlen(text), NAME, &on, p, d);
}

/* Prints 'p' into a string the caller frees. */
static char *print_str(const struct steer_policy *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	policy_print(f, p);
	fclose(f);
	return buf;
}

/* The printed policy parses back to an equal one, with the same number
 * of warnings (a shadowed rule stays shadowed) and no error. */
static void check_round_trip(const struct steer_policy *p, const char *online,
			     int nwarnings)
{
	struct steer_policy q;
	struct diags d;
	char *text = print_str(p);

	if (!EXPECT(text, "the policy was printed"))
		return;
	if (EXPECT_EQ(parse(text, online, &q, &d), 0,
		      "the printed policy parses") &&
	    EXPECT_EQ(d.nerrors, 0, "the printed policy draws no error") &&
	    EXPECT_EQ(d.nwarnings, nwarnings,
		      "the printed policy draws the same warnings"))
		EXPECT(policy_equal(p, &q),
		       "the printed policy parses back to an equal policy");
	if (test_failed) {
		printf("  printed policy:\n%s", text);
		diags_print(stdout, &d);
	}
	policy_free(&q);
	diags_free(&d);
	free(text);
}

static void run_case(void)
{
	const struct policy_case *c = cur;
	struct steer_policy p;
	struct diags d;
	char msg[1024];
	int err;

	err = parse(c->text, c->online, &p, &d);
	if (c->valid) {
		EXPECT_EQ(err, 0, "the policy is valid");
		EXPECT_EQ(d.nerrors, 0, "there is no error");
	} else {
		EXPECT_EQ(err, -EINVAL, "the policy is refused with -EINVAL");
		EXPECT_EQ(d.nerrors, 1, "there is exactly one error");
	}
	if (c->msg) {
		if (EXPECT_EQ(d.n, 1, "there is exactly one message"))
			EXPECT_STR(diag_format(&d, 0, msg, sizeof(msg)), c->msg,
				   "the message names the mistake and its place");
	} else {
		EXPECT_EQ(d.n, 0, "there is no message");
	}
	if (c->valid && !err)
		check_round_trip(&p, c->online, d.nwarnings);
	if (test_failed) {
		printf("  policy:\n%s", c->text);
		diags_print(stdout, &d);
	}
	policy_free(&p);
	diags_free(&d);
}

/* ---- normalization ------------------------------------------------------ */

static void expect_cpus(const struct policy_cpus *s, const char *want,
			const char *what)
{
	char got[1024];
	size_t off = 0;
	int i;

	got[0] = '\0';
	for (i = 0; i < s->n && off < sizeof(got); i++)
		off += snprintf(got + off, sizeof(got) - off, "%s%u:%u",
				i ? " " : "", s->v[i].cpu, s->v[i].weight);
	EXPECT_STR(got, want, what);
}

static void test_design_example(void)
{
	struct steer_policy p;
	struct diags d;
	char *text;

	if (!EXPECT_EQ(parse(cases[0].text, "0-15", &p, &d), 0,
		       "the DESIGN.md example parses"))
		goto out;
	expect_cpus(&p.cpus, "2:1 3:1 4:1 5:1 6:1 7:1 8:2",
		    "2-7 expand to weight-1 CPUs and 8 keeps weight 2");
	EXPECT(!p.cpus_default, "the CPUs are the listed ones");
	EXPECT_EQ(p.queue_size, 2048, "the queue size is 2048");
	EXPECT_EQ(p.table_size, STEER_TABLE_DEFAULT, "the table size is the default");
	EXPECT_EQ(p.hash_key, POLICY_HASH_L4, "the hash takes ports");
	EXPECT(p.symmetric, "the hash is symmetric");
	EXPECT(p.seed_random, "the seed is random");
	EXPECT(p.local_fastpath, "the local fast path is on");
	EXPECT_EQ(p.rebalance, POLICY_REBALANCE_DRAIN, "moves wait for drain");
	EXPECT_EQ(p.nonip_cpu, STEER_CPU_LOCAL, "non-IP frames stay local");
	if (!EXPECT_EQ(p.nrules, 2, "there are two rules"))
		goto out;
	EXPECT(!policy_rule_is_prefix(&p.rules[0]), "rule 1 is exact");
	EXPECT_EQ(p.rules[0].fields, STEER_M_PROTO | STEER_M_DPORT,
		  "rule 1 matches proto and dst_port");
	EXPECT_EQ(p.rules[0].flow.proto, 6, "rule 1 matches TCP");
	EXPECT_EQ(p.rules[0].flow.dport, htons(443),
		  "rule 1's port is stored in network order");
	EXPECT_EQ(p.rules[0].flow.family, 0, "rule 1 matches both families");
	expect_cpus(&p.rules[0].cpus, "3:1", "rule 1 goes to CPU 3");
	EXPECT_EQ(p.rules[0].line, 8, "rule 1 starts on line 8");
	EXPECT_EQ(p.rules[1].shape, STEER_M_SRC | STEER_M_PREFIX_SRC,
		  "rule 2 is a prefix rule on the source");
	EXPECT_EQ(p.rules[1].fields, STEER_M_SRC, "rule 2 matches the source");
	EXPECT_EQ(p.rules[1].flow.src[0], htonl(0x0a010000),
		  "rule 2's prefix is 10.1.0.0 in network order");
	EXPECT_EQ(p.rules[1].src_len, 16, "rule 2's prefix is a /16");
	EXPECT_EQ(p.rules[1].flow.family, STEER_AF_INET, "rule 2 is IPv4");
	expect_cpus(&p.rules[1].cpus, "4:1 5:1", "rule 2 goes to CPUs 4 and 5");
	/* Symmetric: each rule's mirror has a shape of its own. */
	if (EXPECT_EQ(p.nshapes, 4, "two rules and their mirrors make four shapes")) {
		EXPECT_EQ(p.shapes[0], STEER_M_PROTO | STEER_M_DPORT,
			  "the first shape is proto and dst_port");
		EXPECT_EQ(p.shapes[1], STEER_M_PROTO | STEER_M_SPORT,
			  "its mirror is proto and src_port");
		EXPECT_EQ(p.shapes[2], STEER_M_SRC | STEER_M_PREFIX_SRC,
			  "the third is a source prefix");
		EXPECT_EQ(p.shapes[3], STEER_M_DST | STEER_M_PREFIX_DST,
			  "its mirror is a destination prefix");
	}
	EXPECT_EQ(policy_slot_flags(&p),
		  STEER_F_HASH_L4 | STEER_F_SYMMETRIC | STEER_F_LOCAL_FASTPATH |
		  STEER_F_DRAIN | STEER_F_BALANCE,
		  "the slot flags follow the policy (balance on by default)");

	text = print_str(&p);
	EXPECT_STR(text,
		   "version: 1\n"
		   "cpus: [2-7, {cpu: 8, weight: 2}]\n"
		   "queue_size: 2048\n"
		   "table_size: 512\n"
		   "hash: {key: l4, symmetric: true, seed: random}\n"
		   "local_fastpath: true\n"
		   "rebalance: drain\n"
		   "drain_timeout: 50\n"
		   "non_ip: local\n"
		   "decap: all\n"
		   "balance: {by: cpu, interval: 1000, tolerance: 5, max_moves: 16}\n"
		   "worker_sched: {policy: other, nice: 10}\n"
		   "rules:\n"
		   "  - {match: {proto: tcp, dst_port: 443}, cpu: 3}\n"
		   "  - {match: {src: 10.1.0.0/16}, cpus: [4-5]}\n",
		   "the normalized policy reads like the example");
	free(text);
out:
	diags_print(stdout, &d);
	policy_free(&p);
	diags_free(&d);
}

/* `xdp-steer which`'s flow: PROTO SRC[:PORT] DST[:PORT]. */
static void test_flow_parse(void)
{
	static const struct {
		const char *proto, *src, *dst, *msg;	/* msg NULL: valid */
	} rows[] = {
		{ "udp", "10.0.0.1:1234", "10.0.0.2:53", NULL },
		{ "tcp", "[2001:db8::1]:40000", "[2001:db8::2]:443", NULL },
		{ "icmpv6", "2001:db8::1", "2001:db8::2", NULL },
		{ "47", "10.0.0.1", "10.0.0.2", NULL },
		{ "sctp", "10.0.0.1", "10.0.0.2:9", NULL },
		{ "ucp", "10.0.0.1", "10.0.0.2", "unknown protocol 'ucp'" },
		{ "256", "10.0.0.1", "10.0.0.2", "unknown protocol '256'" },
		{ "icmp", "10.0.0.1:5", "10.0.0.2", "icmp has no ports" },
		{ "udp", "10.0.0.1:0", "10.0.0.2", "bad port in source '10.0.0.1:0'" },
		{ "udp", "10.0.0.1:65536", "10.0.0.2", "bad port in source" },
		{ "udp", "10.0.0.1", "[2001:db8::2]:5", "not of one family" },
		{ "udp", "10.0.0.300", "10.0.0.2", "bad source '10.0.0.300'" },
		{ "udp", "10.0.0.1", "[2001:db8::2", "bad destination" },
		{ "udp", "[10.0.0.1]:5", "10.0.0.2", "bad source" },
	};
	struct steer_flow f;
	char why[256];
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		why[0] = 0;
		err = policy_flow_parse(rows[i].proto, rows[i].src, rows[i].dst,
					&f, &WHY(why));
		if (!rows[i].msg) {
			EXPECT_EQ(err, 0, rows[i].src);
			continue;
		}
		EXPECT_EQ(err, -EINVAL, rows[i].src);
		if (!strstr(why, rows[i].msg))
			test_fail(__FILE__, __LINE__, "the reason names the mistake",
				  "'%s' does not hold '%s'", why, rows[i].msg);
	}
	err = policy_flow_parse("tcp", "[2001:db8::1]:40000", "2001:db8::2",
				&f, &WHY(why));
	EXPECT_EQ(err, 0, "an IPv6 flow with one port parses");
	EXPECT(f.family == STEER_AF_INET6 && f.proto == 6 &&
	       f.sport == htons(40000) && f.dport == 0 &&
	       f.src[0] == htonl(0x20010db8) && f.src[3] == htonl(1) &&
	       f.dst[3] == htonl(2) && !f.pad[0] && !f.pad[1],
	       "into the struct the datapath parses a frame into");
	err = policy_flow_parse("udp", "10.0.0.1:1234", "10.0.0.2:53", &f,
				&WHY(why));
	EXPECT(!err && f.family == STEER_AF_INET && f.src[0] == htonl(0x0a000001) &&
	       !f.src[1] && f.dst[0] == htonl(0x0a000002) &&
	       f.sport == htons(1234) && f.dport == htons(53) && f.proto == 17,
	       "an IPv4 flow sits in word 0, ports in network order");
}

static void test_minimal_defaults(void)
{
	struct steer_policy p;
	struct diags d;
	char *text;

	if (!EXPECT_EQ(parse(V1, "0-3,6", &p, &d), 0, "'version: 1' parses"))
		goto out;
	EXPECT(p.cpus_default, "the CPUs are the default set");
	expect_cpus(&p.cpus, "0:1 1:1 2:1 3:1 6:1",
		    "the default CPUs are every online CPU with weight 1");
	text = print_str(&p);
	EXPECT_STR(text,
		   "version: 1\n"
		   "# cpus: not set, so the online CPUs but those taking RX interrupts, of the NIC's NUMA node if it has some: [0-3, 6]\n"
		   "queue_size: 2048\n"
		   "table_size: 512\n"
		   "hash: {key: l4, symmetric: false, seed: random}\n"
		   "local_fastpath: true\n"
		   "rebalance: drain\n"
		   "drain_timeout: 50\n"
		   "non_ip: local\n"
		   "decap: all\n"
		   "balance: {by: cpu, interval: 1000, tolerance: 5, max_moves: 16}\n"
		   "worker_sched: {policy: other, nice: 10}\n"
		   "# rules: none; the table places every flow\n",
		   "every default is written out");
	free(text);
out:
	policy_free(&p);
	diags_free(&d);
}

/* YAML 1.2's core schema: decimal with a sign, 0o octal, 0x hex. */
static void test_integer_forms(void)
{
	const char *text = V1 "queue_size: 0o4000\nhash: {seed: 0xFF}\n"
		"drain_timeout: +20\n";
	struct steer_policy p;
	struct diags d;

	if (!EXPECT_EQ(parse(text, "0-1", &p, &d), 0, "the policy parses"))
		goto out;
	EXPECT_EQ(p.queue_size, 2048, "0o4000 is octal 2048");
	EXPECT_EQ(p.seed, 255, "0xFF is hex 255");
	EXPECT_EQ(p.drain_timeout_ms, 20, "+20 is 20");
out:
	diags_print(stdout, &d);
	policy_free(&p);
	diags_free(&d);
}

static void test_normalized_cpu_lists(void)
{
	const char *text =
		V1 "cpus: [9, {cpu: 4-5, weight: 3}, 0-2, {cpu: 3, weight: 1}, {cpu: 6, weight: 3}]\n"
		"hash: {key: l3, seed: 4660}\n"
		"non_ip: {cpu: 9}\n"
		"rules:\n"
		"  - {match: {src: \"2001:DB8:0::1\", dst: \"2001:db8::2\", proto: 58}, cpus: [{cpu: 2, weight: 1}]}\n"
		"  - {match: {dst: \"2001:db8:ff00::/40\"}, cpus: [{cpu: 1, weight: 2}, 3, 2]}\n";
	struct steer_policy p;
	struct diags d;
	char *out;

	if (!EXPECT_EQ(parse(text, "0-15", &p, &d), 0, "the policy parses"))
		goto out;
	expect_cpus(&p.cpus, "0:1 1:1 2:1 3:1 4:3 5:3 6:3 9:1",
		    "CPUs are sorted, ranges expanded, weights kept");
	out = print_str(&p);
	EXPECT_STR(out,
		   "version: 1\n"
		   "cpus: [0-3, {cpu: 4-6, weight: 3}, 9]\n"
		   "queue_size: 2048\n"
		   "table_size: 512\n"
		   "hash: {key: l3, symmetric: false, seed: 0x1234}\n"
		   "local_fastpath: true\n"
		   "rebalance: drain\n"
		   "drain_timeout: 50\n"
		   "non_ip: {cpu: 9}\n"
		   "decap: all\n"
		   "balance: {by: cpu, interval: 1000, tolerance: 5, max_moves: 16}\n"
		   "worker_sched: {policy: other, nice: 10}\n"
		   "rules:\n"
		   "  - {match: {proto: icmpv6, src: \"2001:db8::1\", dst: \"2001:db8::2\"}, cpu: 2}\n"
		   "  - {match: {dst: \"2001:db8:ff00::/40\"}, cpus: [{cpu: 1, weight: 2}, 2-3]}\n",
		   "runs of one weight compress, addresses are canonical");
	check_round_trip(&p, "0-15", 0);
	free(out);
out:
	diags_print(stdout, &d);
	policy_free(&p);
	diags_free(&d);
}

/* 'head' ("version: 1" and any keys before the rules), then n1 rules from
 * fmt1 and n2 from fmt2, whose one %d is the rule's number in its run. */
static char *rules_doc(const char *head, int n1, const char *fmt1, int n2,
		       const char *fmt2)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i;

	if (!f)
		return NULL;
	fprintf(f, "%srules:\n", head);
	for (i = 1; i <= n1; i++)
		fprintf(f, fmt1, i);
	for (i = 1; i <= n2; i++)
		fprintf(f, fmt2, i);
	fclose(f);
	return buf;
}

/* "version: 1" and n rules from fmt, whose one %d is the rule number. */
static char *many_rules(int n, const char *fmt)
{
	return rules_doc(V1, n, fmt, 0, NULL);
}

/* 'text' is refused with one message, 'want' (built by the caller with
 * the line and column of the rule too many). */
static void expect_one_error(char *text, const char *want, const char *what)
{
	struct steer_policy p;
	struct diags d;
	char msg[512];

	if (!EXPECT(text, "the policy was built"))
		return;
	EXPECT_EQ(parse(text, "0-1", &p, &d), -EINVAL, what);
	if (EXPECT_EQ(d.n, 1, "there is exactly one message"))
		EXPECT_STR(diag_format(&d, 0, msg, sizeof(msg)), want,
			   "the message names the rule too many");
	policy_free(&p);
	diags_free(&d);
	free(text);
}

#define EXACT_FMT	"  - {match: {proto: 6, dst_port: %d}, cpu: 1}\n"
#define PREFIX_FMT	"  - {match: {src: \"2001:db8:%x::/48\"}, cpu: 1}\n"

/* Each kind has STEER_MAX_RULES entries a slot (flow_rules, prefix_rules). */
static void test_too_many_rules(void)
{
	char want[512];

	snprintf(want, sizeof(want),
		 NAME ":%d:5: rule %d is one prefix rule too many: at most %d fit; use fewer, or exact-field rules for some",
		 STEER_MAX_RULES + 3, STEER_MAX_RULES + 1, STEER_MAX_RULES);
	expect_one_error(many_rules(STEER_MAX_RULES + 1, PREFIX_FMT), want,
			 "a policy with one prefix rule too many is refused");
	snprintf(want, sizeof(want),
		 NAME ":%d:5: rule %d is one exact-field rule too many: at most %d fit; use fewer, or prefix rules for some",
		 STEER_MAX_RULES + 3, STEER_MAX_RULES + 1, STEER_MAX_RULES);
	expect_one_error(many_rules(STEER_MAX_RULES + 1, EXACT_FMT), want,
			 "a policy with one exact-field rule too many is refused");
	snprintf(want, sizeof(want),
		 NAME ":%d:5: rule %d is one too many; at most %d rules are allowed (%d of each kind, exact-field and prefix)",
		 2 * STEER_MAX_RULES + 3, 2 * STEER_MAX_RULES + 1,
		 2 * STEER_MAX_RULES, STEER_MAX_RULES);
	expect_one_error(rules_doc(V1, STEER_MAX_RULES, EXACT_FMT,
				   STEER_MAX_RULES + 1, PREFIX_FMT), want,
			 "a policy with the most of each kind and one more is refused");
}

/* hash.symmetric stores each rule and its mirror: half as many fit. The
 * loader once took 16384 symmetric rules, filled one slot's share of
 * flow_rules twice over, and then failed every apply of another such
 * policy with E2BIG while writing the inactive slot. */
static void test_too_many_symmetric_rules(void)
{
	const char *head = V1 "hash: {symmetric: true}\n";
	char want[512];

	snprintf(want, sizeof(want),
		 NAME ":%d:5: rule %d is one exact-field rule too many: at most %d fit under hash.symmetric, which stores each rule twice (itself and its mirror); use fewer, or prefix rules for some",
		 STEER_MAX_RULES / 2 + 4, STEER_MAX_RULES / 2 + 1,
		 STEER_MAX_RULES / 2);
	expect_one_error(rules_doc(head, STEER_MAX_RULES / 2 + 1, EXACT_FMT,
				   0, NULL), want,
			 "a symmetric policy with one exact-field rule too many is refused");
	snprintf(want, sizeof(want),
		 NAME ":%d:5: rule %d is one prefix rule too many: at most %d fit under hash.symmetric, which stores each rule twice (itself and its mirror); use fewer, or exact-field rules for some",
		 STEER_MAX_RULES + 4, STEER_MAX_RULES + 1, STEER_MAX_RULES / 2);
	expect_one_error(rules_doc(head, STEER_MAX_RULES / 2, EXACT_FMT,
				   STEER_MAX_RULES / 2 + 1, PREFIX_FMT), want,
			 "a symmetric policy with one prefix rule too many is refused");
}

static void test_rule_cpu_sets_limit(void)
{
	/* 16 rules of 256 CPUs fill rule_cpus exactly; the 17th overflows. */
	char *text = many_rules(17, "  - {match: {dst_port: %d}, cpus: [0-255]}\n");
	struct steer_policy p;
	struct diags d;
	char msg[512];

	if (!EXPECT(text, "the policy was built"))
		return;
	EXPECT_EQ(parse(text, "0-255", &p, &d), -EINVAL,
		  "rule CPU sets beyond rule_cpus are refused");
	if (EXPECT_EQ(d.n, 1, "there is exactly one message"))
		EXPECT_STR(diag_format(&d, 0, msg, sizeof(msg)),
			   NAME ":19:35: rule CPU sets need 4352 entries counting weights, more than the 4096 the datapath holds; use fewer CPUs or smaller weights in rule sets",
			   "the message names the rule that overflows");
	policy_free(&p);
	diags_free(&d);
	free(text);
}

static void test_rule_cpu_sets_count_past_int(void)
{
	/* 8400 rules of 256 CPUs at weight 1000 ask for 2150400000 entries,
	 * more than an int counts: the count must not wrap back under the
	 * limit, and the overflow is said once, at the first rule. */
	char *text = many_rules(8400, "  - {match: {dst_port: %d}, cpus: [{cpu: 0-255, weight: 1000}]}\n");
	struct steer_policy p;
	struct diags d;
	char msg[512];

	if (!EXPECT(text, "the policy was built"))
		return;
	EXPECT_EQ(parse(text, "0-255", &p, &d), -EINVAL,
		  "rule CPU sets far beyond rule_cpus are refused");
	EXPECT_EQ(d.nerrors, 1, "said once");
	if (EXPECT_EQ(d.n, 1, "in one message"))
		EXPECT_STR(diag_format(&d, 0, msg, sizeof(msg)),
			   NAME ":3:34: rule CPU sets need 256000 entries counting weights, more than the 4096 the datapath holds; use fewer CPUs or smaller weights in rule sets",
			   "at the first rule, which alone overflows");
	policy_free(&p);
	diags_free(&d);
	free(text);
}

static void test_several_errors_are_collected(void)
{
	const char *text =
		V1 "cpus: [0-15, 300]\nqueue_sise: 3\nrebalance: later\n";
	const char *want[] = {
		NAME ":2:8: cpus 2-15 are not online (online: 0-1)",
		NAME ":2:14: cpu 300 is not online (online: 0-1)",
		NAME ":3:1: unknown key 'queue_sise' (did you mean 'queue_size'?)",
		NAME ":4:12: rebalance must be drain or immediate, got 'later'",
	};
	struct steer_policy p;
	struct diags d;
	char msg[512];
	size_t i;

	EXPECT_EQ(parse(text, "0-1", &p, &d), -EINVAL, "the policy is refused");
	if (EXPECT_EQ(d.n, (int)ARRAY_SIZE(want), "every mistake is reported"))
		for (i = 0; i < ARRAY_SIZE(want); i++)
			EXPECT_STR(diag_format(&d, i, msg, sizeof(msg)), want[i],
				   "the messages come in document order");
	policy_free(&p);
	diags_free(&d);
}

static void test_parse_file(void)
{
	char path[] = "/tmp/test_policy_XXXXXX";
	struct steer_policy p;
	struct cpu_set on;
	struct diags d;
	char msg[512];
	int fd;

	cpuset_parse(&on, "0-3");
	fd = mkstemp(path);
	if (!EXPECT(fd >= 0, "a temporary file was created"))
		return;
	if (write(fd, "version: 1\ncpus: [9]\n", 21) != 21)
		test_fail(__FILE__, __LINE__, "the file was written", "short write");
	close(fd);
	EXPECT_EQ(policy_parse_file(path, &on, &p, &d), -EINVAL,
		  "a bad policy file is refused");
	if (EXPECT_EQ(d.n, 1, "there is one message")) {
		char want[600];

		snprintf(want, sizeof(want),
			 "%s:2:8: cpu 9 is not online (online: 0-3)", path);
		EXPECT_STR(diag_format(&d, 0, msg, sizeof(msg)), want,
			   "file errors carry the file's path");
	}
	policy_free(&p);
	diags_free(&d);
	unlink(path);

	EXPECT_EQ(policy_parse_file("/nonexistent/p.yaml", &on, &p, &d), -ENOENT,
		  "a missing file is -ENOENT");
	if (EXPECT_EQ(d.n, 1, "there is one message"))
		EXPECT_STR(diag_format(&d, 0, msg, sizeof(msg)),
			   "/nonexistent/p.yaml: cannot open: No such file or directory",
			   "the message says the file cannot be opened");
	policy_free(&p);
	diags_free(&d);
}

static void test_cpuset(void)
{
	struct cpu_set s;
	char buf[CPUSET_STR_MAX];
	int i;

	EXPECT_EQ(cpuset_parse(&s, "0-1,4,8-11\n"), 0, "a sysfs list parses");
	EXPECT_EQ(cpuset_count(&s), 7, "the list has 7 CPUs");
	EXPECT_STR(cpuset_format(&s, buf, sizeof(buf)), "0-1,4,8-11",
		   "the set prints back compactly");
	EXPECT_EQ(cpuset_parse(&s, "3-1"), -EINVAL, "a reversed range is refused");
	EXPECT_EQ(cpuset_parse(&s, "0-1,1023"), 0, "a set with CPU 1023 parses");
	EXPECT(cpuset_has(&s, 1023) && cpuset_count(&s) == 3 && !s.beyond,
	       "CPU 1023 is in the set, nothing past it");
	EXPECT_EQ(cpuset_parse(&s, "0,8191"), 0, "a set with CPU 8191 (NR_CPUS 8192 - 1) parses");
	EXPECT_STR(cpuset_format(&s, buf, sizeof(buf)), "0,8191",
		   "CPU 8191 prints back");
	EXPECT_EQ(cpuset_count_from(&s, STEER_CPU_IDS), 1,
		  "one CPU of it is past the workers' limit");
	EXPECT_EQ(cpuset_parse(&s, "0-10000"), 0, "CPUs past NR_CPUS are not refused");
	EXPECT_STR(cpuset_format(&s, buf, sizeof(buf)), "0-8191",
		   "the set stops at CPUSET_MAX (8192)");
	EXPECT_EQ(s.beyond, 1809, "the CPUs past it are counted, not dropped unsaid");
	EXPECT_EQ(cpuset_count_from(&s, STEER_CPU_IDS), 8192 - 1024 + 1809,
		  "those past the workers' limit are counted with them");
	cpuset_zero(&s);
	for (i = 0; i < CPUSET_MAX; i += 2)
		cpuset_set(&s, i);
	cpuset_format(&s, buf, sizeof(buf));
	EXPECT_EQ(strlen(buf) < sizeof(buf) - 1, 1,
		  "the worst-case set fits CPUSET_STR_MAX");
	EXPECT_STR(buf + strlen(buf) - 9, "8188,8190", "the worst-case set is whole");
	EXPECT_EQ(cpuset_read_online(&s, NULL), 0, "sysfs online CPUs are read");
	EXPECT(cpuset_has(&s, 0), "CPU 0 is online");
}

/* check --cpus: the CPUs of another machine, named in messages as given. */
static void test_named_cpus(void)
{
	const char *text = V1 "cpus: [0-15, 99]\nnon_ip: {cpu: 64}\n"
		"rules:\n  - {match: {proto: tcp}, cpus: [70-72]}\n";
	struct steer_policy p;
	struct diags d;
	struct cpu_set on;
	char buf[256];

	cpuset_parse(&on, "0-63");
	EXPECT_EQ(policy_parse_string_on(text, strlen(text), NAME, &on,
					 "--cpus 0-63", &p, &d), -EINVAL,
		  "CPUs beyond the named set are refused");
	if (EXPECT_EQ(d.n, 3, "one message for each")) {
		EXPECT_STR(diag_format(&d, 0, buf, sizeof(buf)),
			   NAME ":2:14: cpu 99 is not in --cpus 0-63",
			   "a CPU of 'cpus' is said not to be in the set");
		EXPECT_STR(diag_format(&d, 1, buf, sizeof(buf)),
			   NAME ":3:15: cpu 64 is not in --cpus 0-63",
			   "non_ip's CPU too");
		EXPECT_STR(diag_format(&d, 2, buf, sizeof(buf)),
			   NAME ":5:34: cpus 70-72 are not in --cpus 0-63",
			   "a rule's CPU range too, in the plural");
	}
	policy_free(&p);
	diags_free(&d);

	EXPECT_EQ(policy_parse_string_on(V1, strlen(V1), NAME, &on,
					 "--cpus 0-63", &p, &d), 0,
		  "a bare policy parses against the named set");
	EXPECT_EQ(p.cpus.n, 64, "and defaults its CPUs to the set");
	policy_free(&p);
	diags_free(&d);
}

static void test_suggestions(void)
{
	static const char *const keys[] = { "cpus", "queue_size", "rules" };

	EXPECT_EQ(edit_distance("queue_sise", "queue_size"), 1,
		  "one substitution is distance 1");
	EXPECT_EQ(edit_distance("rlues", "rules"), 1,
		  "a transposition is distance 1");
	EXPECT_STR(ysuggest("cpu", keys, 3), "cpus", "'cpu' suggests 'cpus'");
	EXPECT(!ysuggest("xyz", keys, 3), "a far word suggests nothing");
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_design_example, "the DESIGN.md example normalizes as written"),
	TEST_ENTRY(test_flow_parse, "which's flows parse into struct steer_flow, mistakes named"),
	TEST_ENTRY(test_minimal_defaults, "a bare version gets every default"),
	TEST_ENTRY(test_integer_forms, "integers read in decimal, 0o octal and 0x hex"),
	TEST_ENTRY(test_normalized_cpu_lists, "CPU lists and addresses normalize"),
	TEST_ENTRY(test_too_many_rules, "more than STEER_MAX_RULES rules of a kind are refused"),
	TEST_ENTRY(test_too_many_symmetric_rules, "under hash.symmetric, more than half of STEER_MAX_RULES rules of a kind are refused"),
	TEST_ENTRY(test_rule_cpu_sets_limit, "rule CPU sets beyond rule_cpus are refused"),
	TEST_ENTRY(test_rule_cpu_sets_count_past_int, "rule CPU sets are counted past INT_MAX entries, and their overflow said once"),
	TEST_ENTRY(test_several_errors_are_collected, "several mistakes are reported together"),
	TEST_ENTRY(test_parse_file, "policy files are read and named in messages"),
	TEST_ENTRY(test_cpuset, "CPU sets parse and print in list syntax"),
	TEST_ENTRY(test_named_cpus, "against another machine's CPUs (check --cpus), messages name the set"),
	TEST_ENTRY(test_suggestions, "misspelt keys find their nearest valid key"),
};

TEST_MAIN_WITH_CASES("policy")
