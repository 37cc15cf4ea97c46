// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the example policies in configs/. Every YAML file there must
 * parse on a machine with CPUs 0-63 online without an error or a warning
 * (they are what people copy), say what they claim in their comments, and
 * document the default of every key they set.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "policy/policy.h"
#include "test.h"

#define ONLINE "0-63"

static char configs_dir[PATH_MAX];

/* $XDP_STEER_CONFIGS, else configs/ from the current directory, else from
 * the repo root above the running binary (tests/unit/<binary>). */
static int find_configs(void)
{
	const char *env = getenv("XDP_STEER_CONFIGS");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(configs_dir, sizeof(configs_dir), "%s", env);
		return 0;
	}
	if (!access("configs/default.yaml", R_OK)) {
		snprintf(configs_dir, sizeof(configs_dir), "configs");
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	snprintf(configs_dir, sizeof(configs_dir), "%s/../../configs",
		 dirname(exe));
	return access(configs_dir, R_OK) ? -ENOENT : 0;
}

static int parse_text(const char *text, const char *name,
		      struct steer_policy *p, struct diags *d)
{
	struct cpu_set on;

	cpuset_parse(&on, ONLINE);
	return policy_parse_string(text, strlen(text), name, &on, p, d);
}

/* Parses configs/<name> on CPUs 0-63; 0 when clean, the messages printed
 * otherwise. */
static int parse_config(const char *name, struct steer_policy *p)
{
	char path[PATH_MAX + 64], msg[1024];
	struct cpu_set on;
	struct diags d;
	int err, i;

	snprintf(path, sizeof(path), "%s/%s", configs_dir, name);
	cpuset_parse(&on, ONLINE);
	err = policy_parse_file(path, &on, p, &d);
	EXPECT_EQ(err, 0, "the config parses");
	EXPECT_EQ(d.nerrors, 0, "the config draws no error");
	EXPECT_EQ(d.nwarnings, 0, "the config draws no warning");
	for (i = 0; i < d.n; i++)
		printf("  %s\n", diag_format(&d, i, msg, sizeof(msg)));
	if (!err && d.n)
		err = -EINVAL;
	diags_free(&d);
	return err;
}

/* The whole file, NUL-terminated, or NULL. */
static char *read_config(const char *name)
{
	char path[PATH_MAX + 64];
	char *text;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", configs_dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, len + 1);
	if (text && fread(text, 1, len, f) != (size_t)len) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static bool ready(void)
{
	if (!configs_dir[0] && find_configs()) {
		test_fail(__FILE__, __LINE__, "the configs directory was found",
			  "neither ./configs nor the one above the binary exists");
		return false;
	}
	return true;
}

static void test_every_config_is_clean(void)
{
	const char *expected[] = { "default.yaml", "ixgbe-16q.yaml",
				   "pinned-flows.yaml" };
	char pattern[PATH_MAX + 16];
	bool found[ARRAY_SIZE(expected)] = { false };
	glob_t g;
	size_t i, j;

	if (!ready())
		return;
	snprintf(pattern, sizeof(pattern), "%s/*.yaml", configs_dir);
	if (!EXPECT_EQ(glob(pattern, 0, NULL, &g), 0, "configs/*.yaml matches files"))
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		char *base = strrchr(g.gl_pathv[i], '/') + 1;
		struct steer_policy p;
		int before = test_failed;

		test_failed = 0;
		parse_config(base, &p);
		if (test_failed)
			printf("  in %s\n", g.gl_pathv[i]);
		test_failed |= before;
		policy_free(&p);
		for (j = 0; j < ARRAY_SIZE(expected); j++)
			found[j] |= !strcmp(base, expected[j]);
	}
	for (j = 0; j < ARRAY_SIZE(expected); j++)
		if (!found[j])
			test_fail(__FILE__, __LINE__, "every documented config exists",
				  "configs/%s is missing", expected[j]);
	globfree(&g);
}

static void test_default(void)
{
	struct steer_policy p, bare;
	struct diags d;

	if (!ready() || parse_config("default.yaml", &p))
		goto out;
	EXPECT(p.cpus_default, "default.yaml leaves the worker CPUs to the loader");
	EXPECT_EQ(p.cpus.n, 64, "the default CPUs are every online CPU");
	EXPECT_EQ(p.nrules, 0, "default.yaml has no rules");
	if (EXPECT_EQ(parse_text("version: 1\n", "bare", &bare, &d), 0,
		      "a bare version parses"))
		EXPECT(policy_equal(&p, &bare),
		       "default.yaml means the same as a bare 'version: 1'");
	policy_free(&bare);
	diags_free(&d);
out:
	policy_free(&p);
}

/* default.yaml shows each default as a commented-out setting ("#key:" at
 * the top level, "#  key:" nested); prose comments start with "# ". */
static void test_default_uncommented(void)
{
	struct steer_policy p, q = {};
	struct diags d = {};
	char *text, *line, *out;
	size_t n = 0;
	int settings = 0;

	if (!ready() || parse_config("default.yaml", &p))
		goto out_p;
	text = read_config("default.yaml");
	if (!EXPECT(text, "default.yaml can be read"))
		goto out_p;
	out = calloc(1, strlen(text) + 1);
	for (line = strtok(text, "\n"); out && line; line = strtok(NULL, "\n")) {
		if (line[0] == '#' && (isalpha((unsigned char)line[1]) ||
				       (line[1] == ' ' && line[2] == ' ' &&
					isalpha((unsigned char)line[3])))) {
			line++;
			settings++;
		}
		n += sprintf(out + n, "%s\n", line);
	}
	EXPECT(settings >= 9, "default.yaml shows at least 9 settings commented out");
	if (out && EXPECT_EQ(parse_text(out, "default.yaml uncommented", &q, &d), 0,
			     "default.yaml with every setting uncommented parses")) {
		EXPECT_EQ(d.n, 0, "it draws no message");
		EXPECT(policy_equal(&p, &q),
		       "uncommenting the settings of default.yaml changes nothing");
	}
	if (test_failed && out)
		printf("  uncommented:\n%s", out);
	policy_free(&q);
	diags_free(&d);
	free(out);
	free(text);
out_p:
	policy_free(&p);
}

static void test_ixgbe(void)
{
	struct steer_policy p;
	int i, ok = 1;

	if (!ready() || parse_config("ixgbe-16q.yaml", &p))
		goto out;
	EXPECT(!p.cpus_default, "ixgbe-16q.yaml names its workers");
	EXPECT_EQ(p.cpus.n, 16, "there are 16 workers");
	for (i = 0; i < p.cpus.n; i++)
		ok &= p.cpus.v[i].cpu == (__u32)(16 + i) && p.cpus.v[i].weight == 1;
	EXPECT(ok, "the workers are CPUs 16-31, weight 1, clear of collectors 0-15");
	EXPECT_EQ(p.queue_size, POLICY_QUEUE_DEFAULT, "the queue size is the default");
	EXPECT_EQ(p.table_size, STEER_TABLE_DEFAULT, "the table size is the default");
	EXPECT_EQ(p.nrules, 0, "ixgbe-16q.yaml has no rules");
out:
	policy_free(&p);
}

static void test_balanced(void)
{
	struct steer_policy p;

	if (!ready() || parse_config("balanced.yaml", &p))
		goto out;
	EXPECT(p.balance, "balanced.yaml turns the balancer on");
	EXPECT_EQ(p.rebalance, POLICY_REBALANCE_DRAIN,
		  "it moves flows through drain");
	EXPECT_EQ(p.balance_interval_ms, POLICY_BALANCE_INTERVAL_DEFAULT,
		  "its interval is the default");
	EXPECT_EQ(p.balance_tolerance, POLICY_BALANCE_TOLERANCE_CPU,
		  "its tolerance is the default");
	EXPECT_EQ(p.balance_max_moves, POLICY_BALANCE_MOVES_DEFAULT,
		  "its max_moves is the default");
	EXPECT(policy_slot_flags(&p) & STEER_F_BALANCE,
	       "its slot counts per-bucket load");
out:
	policy_free(&p);
}

static void test_pinned_flows(void)
{
	struct steer_policy p;
	int i, five_v4 = 0, five_v6 = 0, proto_port = 0, set = 0, weighted = 0;
	int pfx[2][2] = { { 0 } };	/* [dst][v6] */

	if (!ready() || parse_config("pinned-flows.yaml", &p))
		goto out;
	for (i = 0; i < p.nrules; i++) {
		const struct policy_rule *r = &p.rules[i];
		int j;

		if (!policy_rule_is_prefix(r) && r->fields == STEER_M_ALL) {
			five_v4 += r->flow.family == STEER_AF_INET;
			five_v6 += r->flow.family == STEER_AF_INET6;
		}
		if (!policy_rule_is_prefix(r) &&
		    r->fields == (STEER_M_PROTO | STEER_M_DPORT))
			proto_port++;
		if (policy_rule_is_prefix(r))
			pfx[r->fields == STEER_M_DST][r->flow.family == STEER_AF_INET6]++;
		if (r->cpus.n > 1)
			set++;
		for (j = 0; j < r->cpus.n; j++)
			weighted += r->cpus.v[j].weight > 1;
	}
	EXPECT(five_v4, "pinned-flows.yaml has an exact IPv4 5-tuple rule");
	EXPECT(five_v6, "pinned-flows.yaml has an exact IPv6 5-tuple rule");
	EXPECT(proto_port, "pinned-flows.yaml has a protocol and port rule");
	EXPECT(pfx[0][0], "pinned-flows.yaml has an IPv4 source prefix rule");
	EXPECT(pfx[1][0], "pinned-flows.yaml has an IPv4 destination prefix rule");
	EXPECT(pfx[0][1], "pinned-flows.yaml has an IPv6 source prefix rule");
	EXPECT(pfx[1][1], "pinned-flows.yaml has an IPv6 destination prefix rule");
	EXPECT(set, "pinned-flows.yaml has a rule to a CPU set");
	EXPECT(weighted, "pinned-flows.yaml has a weighted CPU set");
out:
	policy_free(&p);
}

/* The policy setting a line makes, or NULL: a top-level key at column 1,
 * or a key of 'hash' (indented). 'hash' itself only holds those, and rule
 * fields (match, cpu, cpus inside a rule) are not settings. */
static const char *setting_of(const char *line)
{
	static const char *const top[] = {
		"version", "cpus", "queue_size", "table_size", "local_fastpath",
		"rebalance", "non_ip", "balance", "rules",
	};
	static const char *const hash[] = { "key", "symmetric", "seed" };
	size_t indent = strspn(line, " "), i, n;
	const char *s = line + indent;

	n = strcspn(s, ":");
	if (s[n] != ':')
		return NULL;
	for (i = 0; !indent && i < ARRAY_SIZE(top); i++)
		if (strlen(top[i]) == n && !strncmp(s, top[i], n))
			return top[i];
	for (i = 0; indent && i < ARRAY_SIZE(hash); i++)
		if (strlen(hash[i]) == n && !strncmp(s, hash[i], n))
			return hash[i];
	return NULL;
}

/* Every setting a config writes down says its default (or that it is
 * required), on its line or in the comment block right above it. The
 * commented-out settings of default.yaml are the defaults themselves
 * (test_default_uncommented proves it). */
static void test_defaults_documented(void)
{
	const char *names[] = { "default.yaml", "ixgbe-16q.yaml",
				"pinned-flows.yaml", "balanced.yaml" };
	size_t f;

	if (!ready())
		return;
	for (f = 0; f < ARRAY_SIZE(names); f++) {
		char *text = read_config(names[f]), *line, *next;
		bool above = false;	/* "default" in the comments above */
		int lineno = 0, settings = 0;

		if (!EXPECT(text, "the config can be read"))
			continue;
		for (line = text; line && *line; line = next) {
			const char *key;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			lineno++;
			if (line[strspn(line, " ")] == '#') {
				above |= strcasestr(line, "default") != NULL;
				continue;
			}
			key = setting_of(line);
			if (key) {
				settings++;
				if (!above && !strstr(line, "default") &&
				    !strstr(line, "required"))
					test_fail(__FILE__, __LINE__,
						  "every setting in a config states its default",
						  "%s:%d: '%s' does not", names[f],
						  lineno, key);
			}
			above = false;
		}
		EXPECT(settings >= 1, "the config has settings to check");
		free(text);
	}
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_every_config_is_clean, "every configs/*.yaml parses on 64 CPUs without an error or a warning"),
	TEST_ENTRY(test_default, "default.yaml means the defaults, workers left to the loader"),
	TEST_ENTRY(test_default_uncommented, "uncommenting the settings of default.yaml changes nothing"),
	TEST_ENTRY(test_ixgbe, "ixgbe-16q.yaml puts the workers on CPUs 16-31"),
	TEST_ENTRY(test_pinned_flows, "pinned-flows.yaml shows every kind of rule"),
	TEST_ENTRY(test_balanced, "balanced.yaml runs the balancer with its defaults"),
	TEST_ENTRY(test_defaults_documented, "every setting in a config states its default"),
};

TEST_MAIN("configs")
