// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the policy parser and compiler (tests/fuzz/run).
 * Any input must parse without a crash, a leak, a sanitizer report or a
 * hang, and keep the promises of policy.h and yaml_util.h about its
 * messages. A valid policy must also print as canonical YAML that parses
 * back to an equal policy, compile (the parser refuses everything compile
 * can refuse), and compile to a build whose targets and CPUs follow the
 * policy. A broken promise aborts with a message, so libFuzzer keeps the
 * input as a crash artifact.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/compile.h"
#include "policy/policy.h"

/* Gaps on purpose: a range across offline CPUs and one beyond the last
 * online CPU are both reachable; 0-31 keeps the example configs valid. */
#define ONLINE "0-31,48-63"

static struct cpu_set online;
static const uint8_t *input;
static size_t input_len;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_policy: promise broken: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ninput (%zu bytes):\n%.*s\n", input_len,
		(int)input_len, (const char *)input);
	abort();
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

static char *print_policy(const struct steer_policy *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	CHECK(f, "open_memstream failed");
	err = policy_print(f, p);
	CHECK(!fclose(f) && !err, "policy_print failed (%d)", err);
	return buf;
}

/* Every input: the result and the messages agree, at most DIAGS_MAX are
 * kept and the rest counted, in document order. */
static void check_diags(int err, const struct diags *d)
{
	char msg[1024];
	int i;

	CHECK(err == 0 || err == -EINVAL, "parse returned %d", err);
	CHECK(!err == !d->nerrors, "parse returned %d with %d errors", err,
	      d->nerrors);
	CHECK(d->n <= DIAGS_MAX, "%d messages kept", d->n);
	CHECK(d->n + d->ndropped == d->nerrors + d->nwarnings,
	      "%d kept + %d dropped messages for %d errors + %d warnings",
	      d->n, d->ndropped, d->nerrors, d->nwarnings);
	for (i = 0; i < d->n; i++) {
		CHECK(d->v[i].line >= 0 && d->v[i].col >= 0,
		      "message %d is at %d:%d", i, d->v[i].line, d->v[i].col);
		CHECK(!i || d->v[i - 1].line < d->v[i].line ||
		      (d->v[i - 1].line == d->v[i].line &&
		       d->v[i - 1].col <= d->v[i].col),
		      "message %d is out of document order", i);
		diag_format(d, i, msg, sizeof(msg));
	}
}

/* The CPUs of rule 'r' in the build: one CPU, or its set repeated by
 * weight in rule_cpus. */
static void check_target(const struct steer_policy *p,
			 const struct steer_build *b,
			 const struct steer_target *t)
{
	const struct policy_rule *r;
	__u32 i, w, total = 0;
	int j;

	CHECK(t->rule_id < (__u32)p->nrules, "target of rule %u of %d",
	      t->rule_id, p->nrules);
	r = &p->rules[t->rule_id];
	if (r->cpus.n == 1) {
		CHECK(t->ncpus == 1 && t->cpu == r->cpus.v[0].cpu,
		      "rule %u targets %u+%u, not cpu %u", t->rule_id, t->cpu,
		      t->ncpus, r->cpus.v[0].cpu);
		CHECK(cpuset_has(&online, t->cpu), "rule %u targets offline cpu %u",
		      t->rule_id, t->cpu);
		return;
	}
	for (j = 0; j < r->cpus.n; j++)
		total += r->cpus.v[j].weight;
	CHECK(t->ncpus == total && t->cpu + total <= b->nrule_cpus,
	      "rule %u targets set %u+%u of %u entries, weights add up to %u",
	      t->rule_id, t->cpu, t->ncpus, b->nrule_cpus, total);
	for (i = t->cpu, j = 0; j < r->cpus.n; j++)
		for (w = 0; w < r->cpus.v[j].weight; w++, i++)
			CHECK(b->rule_cpus[i] == r->cpus.v[j].cpu,
			      "rule %u's set has cpu %u at %u, not %u", t->rule_id,
			      b->rule_cpus[i], i, r->cpus.v[j].cpu);
}

static size_t key_size;

static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, key_size);
}

/* No two entries of a map share a key (the map would keep one of them).
 * Sorted, not compared pairwise: a replayed input may hold 16384 rules. */
static void check_unique_keys(const void *first, size_t stride, int n,
			      size_t size, const char *map)
{
	char *keys = malloc(n * size + 1);
	int i;

	CHECK(keys, "out of memory");
	for (i = 0; i < n; i++)
		memcpy(keys + i * size, (const char *)first + i * stride, size);
	key_size = size;
	qsort(keys, n, size, cmp_key);
	for (i = 1; i < n; i++)
		CHECK(memcmp(keys + (i - 1) * size, keys + i * size, size),
		      "two %s entries have one key", map);
	free(keys);
}

static bool in_shapes(const struct steer_slot *s, __u32 from, __u32 to,
		      __u32 shape)
{
	__u32 i;

	for (i = from; i < to; i++)
		if (s->shapes[i] == shape)
			return true;
	return false;
}

/* Compiles 'p' and checks the build; returns its digest. */
static __u64 compile_and_check(const struct steer_policy *p)
{
	static __u32 table[STEER_TABLE_MAX];
	unsigned char need[STEER_CPU_IDS];
	struct steer_build b;
	char why[512];
	__u64 digest;
	int i, err;

	err = policy_compile(p, NULL, &b, &WHY(why));
	CHECK(!err, "a valid policy does not compile (%d): %s", err, why);
	err = table_build(table, b.slot.table_size, b.cpus, b.ncpus, NULL);
	CHECK(err >= 0, "table_build failed (%d)", err);
	CHECK(b.slot.nshapes == (__u32)p->nshapes && b.slot.nexact <= b.slot.nshapes,
	      "the slot has %u shapes (%u exact), the policy %d",
	      b.slot.nshapes, b.slot.nexact, p->nshapes);
	CHECK(b.nrule_cpus <= STEER_RULE_CPUS_MAX, "%u rule_cpus entries",
	      b.nrule_cpus);
	for (i = 0; i < b.nflow; i++) {
		CHECK(in_shapes(&b.slot, 0, b.slot.nexact, b.flow[i].key.shape),
		      "flow rule %d has shape %#x, not an exact shape", i,
		      b.flow[i].key.shape);
		check_target(p, &b, &b.flow[i].target);
	}
	for (i = 0; i < b.nprefix; i++) {
		const struct steer_prefix_key *k = &b.prefix[i].key;

		CHECK(in_shapes(&b.slot, b.slot.nexact, b.slot.nshapes, k->shape),
		      "prefix rule %d has shape %#x, not a prefix shape", i,
		      k->shape);
		CHECK(k->prefixlen - STEER_PREFIX_FIXED_BITS <=
		      (k->family == STEER_AF_INET ? 32u : 128u),
		      "prefix rule %d is a /%u of IPv%u", i,
		      k->prefixlen - STEER_PREFIX_FIXED_BITS, k->family);
		check_target(p, &b, &b.prefix[i].target);
	}
	if (b.nflow)
		check_unique_keys(&b.flow[0].key, sizeof(b.flow[0]), b.nflow,
				  sizeof(b.flow[0].key), "flow_rules");
	if (b.nprefix)
		check_unique_keys(&b.prefix[0].key, sizeof(b.prefix[0]),
				  b.nprefix, sizeof(b.prefix[0].key),
				  "prefix_rules");
	build_needed_cpus(&b, table, need);
	for (i = 0; i < STEER_CPU_IDS; i++)
		CHECK(!need[i] || cpuset_has(&online, i),
		      "the build needs offline cpu %d", i);
	digest = build_digest(&b, table);
	build_free(&b);
	return digest;
}

/* A valid policy prints as canonical YAML: it parses back to an equal
 * policy with the same warnings, and prints the same again. */
static void check_valid(const struct steer_policy *p, const struct diags *d)
{
	struct steer_policy q;
	struct diags dq;
	char *text, *again;
	int err;

	text = print_policy(p);
	err = policy_parse_string(text, strlen(text), "printed", &online, &q,
				  &dq);
	if (err || dq.nwarnings != d->nwarnings) {
		diags_print(stderr, &dq);
		fail("the printed policy gives %d with %d warnings, not %d:\n%s",
		     err, dq.nwarnings, d->nwarnings, text);
	}
	CHECK(policy_equal(p, &q), "the printed policy parses to another policy:\n%s",
	      text);
	again = print_policy(&q);
	CHECK(!strcmp(text, again), "printing is not canonical:\n%s\nthen:\n%s",
	      text, again);
	CHECK(compile_and_check(p) == compile_and_check(&q),
	      "equal policies compile to different digests");
	free(again);
	free(text);
	policy_free(&q);
	diags_free(&dq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct steer_policy p;
	struct diags d;
	int err;

	if (!cpuset_count(&online) && cpuset_parse(&online, ONLINE))
		abort();
	input = data;
	input_len = size;
	err = policy_parse_string((const char *)data, size, "fuzz", &online, &p,
				  &d);
	check_diags(err, &d);
	if (!err)
		check_valid(&p, &d);
	policy_free(&p);
	diags_free(&d);
	return 0;
}
