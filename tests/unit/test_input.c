// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: input built to hurt the policy reader, and the bounds that
 * keep it cheap: not a regular file, too big, aliases, deep nesting, a
 * flood of mistakes, huge keys. Each must be refused (or accepted) with a
 * clear message and without work that grows with the attack; the run time
 * of each is printed, never asserted (tests/bench measures). Then the
 * pieces those bounds rest on: the stable sort of messages, suggestions,
 * and a policy digest that padding cannot change.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "policy/compile.h"
#include "test.h"

static char dir[256];

static const char *tmp_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* Writes 'len' bytes of 'text' to a file in the temp dir; its path. */
static const char *write_tmp(const char *name, const char *text, size_t len)
{
	const char *path = tmp_path(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct outcome {
	int err;
	int nerrors, kept, dropped;
	char first[1024];
};

/* Parses the file at 'path' (online CPUs 0-3), prints the time taken. */
static void parse_path(const char *path, struct outcome *o)
{
	struct steer_policy p;
	struct cpu_set on;
	struct diags d;
	double t = now();

	cpuset_parse(&on, "0-3");
	o->err = policy_parse_file(path, &on, &p, &d);
	printf("  %s: %.3f s\n", path, now() - t);
	o->nerrors = d.nerrors;
	o->kept = d.n;
	o->dropped = d.ndropped;
	o->first[0] = 0;
	if (d.n)
		diag_format(&d, 0, o->first, sizeof(o->first));
	policy_free(&p);
	diags_free(&d);
}

static void parse_text(const char *name, const char *text, size_t len,
		       struct outcome *o)
{
	const char *path = write_tmp(name, text, len);

	if (!EXPECT(path, "the temp file is written")) {
		o->err = 0;
		return;
	}
	parse_path(path, o);
}

static void expect_msg(const struct outcome *o, const char *want,
		       const char *what)
{
	if (!EXPECT(strstr(o->first, want), what))
		printf("  got \"%s\"\n", o->first);
}

/* ---- not a policy file ----------------------------------------------------- */

static void test_device_is_refused(void)
{
	struct outcome o;

	parse_path("/dev/zero", &o);
	EXPECT_EQ(o.err, -EINVAL, "/dev/zero is refused with -EINVAL");
	expect_msg(&o, "/dev/zero: is not a regular file (a device, pipe or socket); give the path of a policy file",
		   "the message says it is not a regular file");
}

static void test_fifo_is_refused_without_blocking(void)
{
	struct outcome o;

	if (!EXPECT_EQ(mkfifo(tmp_path("fifo"), 0600), 0, "a FIFO is made"))
		return;
	/* Opened with O_NONBLOCK: reading would wait for a writer forever. */
	parse_path(tmp_path("fifo"), &o);
	EXPECT_EQ(o.err, -EINVAL, "a FIFO is refused, at once");
	expect_msg(&o, "is not a regular file", "the message says why");
}

static void test_directory_is_refused(void)
{
	struct outcome o;

	parse_path(dir, &o);
	EXPECT_EQ(o.err, -EISDIR, "a directory is refused with -EISDIR");
	expect_msg(&o, ": is a directory; give the path of a policy file",
		   "the message says it is a directory, not an I/O error");
}

static void test_missing_file(void)
{
	struct outcome o;

	parse_path(tmp_path("absent.yaml"), &o);
	EXPECT_EQ(o.err, -ENOENT, "a missing file gives -ENOENT");
	expect_msg(&o, "absent.yaml: cannot open: No such file or directory",
		   "the message names the file and the reason");
}

static void test_too_big_is_refused_unread(void)
{
	const char *path = tmp_path("big.yaml");
	struct outcome o;
	int fd;

	/* Sparse: refused by its size, so its content is never read. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (!EXPECT(fd >= 0 && !ftruncate(fd, POLICY_FILE_MAX + 1),
		    "a file one byte over 1 MiB is made"))
		return;
	close(fd);
	parse_path(path, &o);
	EXPECT_EQ(o.err, -EFBIG, "a file over 1 MiB is refused with -EFBIG");
	expect_msg(&o, "big.yaml: is 1048577 bytes; a policy may be at most 1048576 (1 MiB)",
		   "the message gives the size and the limit");
}

static void test_exactly_1mib_is_read(void)
{
	size_t len = POLICY_FILE_MAX;
	char *text = malloc(len);
	struct outcome o;

	if (!EXPECT(text, "memory for the text"))
		return;
	/* "version: 1" and a comment filling the rest. */
	memset(text, ' ', len);
	memcpy(text, "version: 1\n#", 12);
	text[len - 1] = '\n';
	parse_text("mib.yaml", text, len, &o);
	free(text);
	EXPECT_EQ(o.err, 0, "a policy of exactly 1 MiB is read and valid");
}

/* ---- YAML built to multiply work ---------------------------------------- */

static void test_alias_bomb_is_refused(void)
{
	static const char text[] =
		"version: 1\n"
		"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
		"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
		"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
		"h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n";
	struct outcome o;

	parse_text("alias.yaml", text, sizeof(text) - 1, &o);
	EXPECT_EQ(o.err, -EINVAL, "a file of nested aliases is refused");
	EXPECT_EQ(o.nerrors, 1, "with one error, before any alias is expanded");
	expect_msg(&o, "alias.yaml:3:8: alias *a: aliases are not allowed in a policy; write the value out",
		   "the error points at the first alias");
}

static void test_an_anchor_without_alias_is_fine(void)
{
	static const char text[] = "version: 1\ncpus: &workers [0-1]\n";
	struct outcome o;

	parse_text("anchor.yaml", text, sizeof(text) - 1, &o);
	EXPECT_EQ(o.err, 0, "an anchor nobody refers to is harmless and accepted");
}

/* libyaml keeps "\0" in a quoted scalar; C strings would end there and
 * accept "10.0.0.1\0junk" as 10.0.0.1. */
static void test_a_nul_in_a_string_is_refused(void)
{
	static const char text[] =
		"version: 1\n"
		"table_size: \"512\\0junk\"\n";
	struct outcome o;

	parse_text("nul.yaml", text, sizeof(text) - 1, &o);
	EXPECT_EQ(o.err, -EINVAL, "a scalar with a NUL in it is refused");
	expect_msg(&o, "nul.yaml:2:13: a NUL character (\\0) in a string is not allowed; remove it",
		   "the error points at the scalar");
}

/* JSON is YAML: its quoted keys are names like any other. */
static void test_a_json_policy_is_read(void)
{
	static const char text[] = 
		"{\"version\": 1, \"cpus\": [\"0-1\"], \"non_ip\": \"local\",\n"
		" \"hash\": {\"key\": \"l3\", \"seed\": \"random\"},\n"
		" \"rules\": [{\"match\": {\"proto\": \"udp\"}, \"cpu\": 1}]}\n";
	struct outcome o;

	parse_text("policy.json", text, sizeof(text) - 1, &o);
	EXPECT_EQ(o.err, 0, "a policy written as JSON, every word quoted, is accepted");
}

static void test_deep_flow_nesting_is_refused(void)
{
	size_t depth = 40000, len = 20 + 2 * depth;
	char *text = malloc(len);
	struct outcome o;
	size_t n;

	if (!EXPECT(text, "memory for the text"))
		return;
	n = snprintf(text, len, "version: 1\ncpus: ");
	memset(text + n, '[', depth);
	memset(text + n + depth, ']', depth);
	n += 2 * depth;
	text[n++] = '\n';
	parse_text("deep.yaml", text, n, &o);
	free(text);
	EXPECT_EQ(o.err, -EINVAL, "40000 nested lists are refused");
	expect_msg(&o, "deep.yaml:2:38: nested more than 32 levels deep",
		   "at the 33rd level, without parsing the rest");
}

static void test_deep_block_nesting_is_refused(void)
{
	char *text = malloc(1 << 20), *p;
	struct outcome o;
	int i;

	if (!EXPECT(text, "memory for the text"))
		return;
	p = text + sprintf(text, "version: 1\nx:\n");
	for (i = 1; i < 1000; i++)
		p += sprintf(p, "%*s-\n", i, "");
	parse_text("deepblock.yaml", text, p - text, &o);
	free(text);
	EXPECT_EQ(o.err, -EINVAL, "1000 nested block lists are refused");
	expect_msg(&o, "nested more than 32 levels deep", "for their depth");
}

static void test_a_flood_of_mistakes_is_capped(void)
{
	char *text = malloc(1 << 20), *p;
	struct outcome o;
	int i;

	if (!EXPECT(text, "memory for the text"))
		return;
	p = text + sprintf(text, "version: 1\n");
	for (i = 0; i < 100000; i++)
		p += sprintf(p, "k%d: 1\n", i);
	parse_text("flood.yaml", text, p - text, &o);
	free(text);
	EXPECT_EQ(o.err, -EINVAL, "100000 unknown keys are refused");
	EXPECT_EQ(o.nerrors, 100000, "every error is counted");
	EXPECT_EQ(o.kept, DIAGS_MAX, "only the first DIAGS_MAX messages are kept");
	EXPECT_EQ(o.dropped, 100000 - DIAGS_MAX, "the others are counted as dropped");
	expect_msg(&o, "flood.yaml:2:1: unknown key 'k0'", "the first is the first in the file");
}

static void test_a_huge_key_is_quoted_by_its_start(void)
{
	size_t len = 1000000;
	char *text = malloc(len + 32);
	struct outcome o;
	size_t n;

	if (!EXPECT(text, "memory for the text"))
		return;
	/* An explicit key ("? ") may be longer than libyaml's 1024-byte
	 * limit on plain keys. */
	n = sprintf(text, "version: 1\n? ");
	memset(text + n, 'k', len);
	n += len;
	n += sprintf(text + n, "\n: 1\n");
	parse_text("hugekey.yaml", text, n, &o);
	free(text);
	EXPECT_EQ(o.err, -EINVAL, "a 1 MB key is refused");
	expect_msg(&o, "hugekey.yaml:2:3: unknown key 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...' (valid keys:",
		   "the message quotes its first 40 bytes and suggests nothing");
	EXPECT(strlen(o.first) < 256, "the message stays short");
}

static void test_16k_rules_of_each_kind_are_accepted(void)
{
	char *text = malloc(2 << 20), *p;
	struct steer_policy pol;
	struct steer_build b;
	struct cpu_set on;
	struct diags d;
	char why[256];
	double t;
	int i, err;

	if (!EXPECT(text, "memory for the text"))
		return;
	/* Symmetric: each rule and its mirror, so half as many rules. */
	p = text + sprintf(text, "version: 1\nhash: {symmetric: true}\nrules:\n");
	for (i = 0; i < STEER_MAX_RULES / 2; i++)
		p += sprintf(p, " - {match: {proto: 6, src: 10.%d.%d.1, dst_port: %d}, cpu: %d}\n",
			     i / 256, i % 256, 1 + i % 1000, i % 2);
	cpuset_parse(&on, "0-1");
	t = now();
	err = policy_parse_string(text, p - text, "rules.yaml", &on, &pol, &d);
	if (EXPECT_EQ(err, 0, "8192 exact rules in symmetric mode parse")) {
		err = policy_compile(&pol, NULL, &b, &WHY(why));
		if (EXPECT_EQ(err, 0, "and compile"))
			EXPECT_EQ(b.nflow, STEER_MAX_RULES,
				  "to a rule and its mirror each: flow_rules' share of a slot, full");
		build_free(&b);
	}
	printf("  8192 exact rules, symmetric: %.3f s\n", now() - t);
	policy_free(&pol);
	diags_free(&d);

	p = text + sprintf(text, "version: 1\nrules:\n");
	for (i = 0; i < STEER_MAX_RULES; i++)
		p += sprintf(p, " - {match: {proto: 6, src: 10.%d.%d.1, dst_port: %d}, cpu: %d}\n",
			     i / 256, i % 256, 1 + i % 1000, i % 2);
	for (i = 0; i < STEER_MAX_RULES; i++) {
		int len = 24 - i % 9, third = (i % 256) & (0xff00 >> (len - 16));

		/* Host bits clear: the third byte cut to the length. */
		p += sprintf(p, " - {match: {src: 10.%d.%d.0/%d}, cpu: %d}\n",
			     i / 256, len > 16 ? third : 0, len, i % 2);
	}
	t = now();
	err = policy_parse_string(text, p - text, "both.yaml", &on, &pol, &d);
	if (EXPECT_EQ(err, 0, "16384 exact and 16384 prefix rules of 9 lengths parse")) {
		err = policy_compile(&pol, NULL, &b, &WHY(why));
		if (EXPECT_EQ(err, 0, "and compile"))
			EXPECT_EQ(b.nflow, STEER_MAX_RULES,
				  "every exact rule has its entry");
		build_free(&b);
	}
	printf("  16384 exact and 16384 prefix rules: %.3f s\n", now() - t);
	/* The compiler holds the line too, for a policy the parser did not
	 * bound: the same rules made symmetric take twice the room. */
	if (!err) {
		pol.symmetric = true;
		err = policy_compile(&pol, NULL, &b, &WHY(why));
		EXPECT_EQ(err, -E2BIG, "made symmetric, they do not compile: twice the room each");
		EXPECT(!strncmp(why, "the rules take 32768 exact-field and ", 37) &&
		       strstr(why, "prefix entries; a policy has room for 16384 of each"),
		       "saying how many entries against the room");
		if (!err)
			build_free(&b);
	}
	policy_free(&pol);
	diags_free(&d);
	free(text);
}

/* ---- what the bounds rest on --------------------------------------------- */

static void test_messages_sort_stably_by_place(void)
{
	struct diags d;
	char buf[128];
	int i, ok = 1;

	if (!EXPECT_EQ(diags_init(&d, "s.yaml"), 0, "diags start"))
		return;
	/* 90 messages, lines 30 down to 1, three per line in order a b c. */
	for (i = 89; i >= 0; i--)
		diag_add(&d, DIAG_ERROR, 1 + i / 3, 1, "%c", 'a' + (2 - i % 3));
	diags_sort(&d);
	for (i = 0; i < d.n; i++) {
		snprintf(buf, sizeof(buf), "s.yaml:%d:1: %c", 1 + i / 3,
			 'a' + i % 3);
		ok &= !strcmp(diag_format(&d, i, buf + 64, 64), buf);
	}
	EXPECT(ok, "messages end in line order, and messages of one line keep the order they were found in");
	diags_free(&d);
}

static void test_suggestions_skip_long_words(void)
{
	static const char *const keys[] = { "version", "cpus" };
	char word[YSUGGEST_MAX_LEN + 2];

	EXPECT_STR(ysuggest("verison", keys, 2), "version", "a typo gets its key");
	memset(word, 'v', sizeof(word) - 1);
	word[sizeof(word) - 1] = 0;
	EXPECT(!ysuggest(word, keys, 2), "a word longer than YSUGGEST_MAX_LEN gets no suggestion");
}

/* Padding and unused bytes in a build never reach its digest. */
static void test_digest_ignores_padding(void)
{
	static const char text[] =
		"version: 1\ncpus: [0-1]\nhash: {seed: 3}\nrules:\n"
		"  - {match: {proto: udp, dst_port: 53}, cpu: 1}\n"
		"  - {match: {src: 10.0.0.0/8}, cpus: [0-1]}\n";
	struct steer_build a, b;
	struct steer_policy p;
	struct cpu_set on;
	struct diags d;
	__u32 table[4] = { 0, 1, 0, 1 };
	char why[128];

	cpuset_parse(&on, "0-1");
	if (!EXPECT_EQ(policy_parse_string(text, sizeof(text) - 1, "d.yaml", &on,
					   &p, &d), 0, "the policy parses"))
		goto out;
	if (!EXPECT_EQ(policy_compile(&p, NULL, &a, &WHY(why)), 0, "it compiles") ||
	    !EXPECT_EQ(policy_compile(&p, NULL, &b, &WHY(why)), 0, "twice")) {
		goto out;
	}
	a.slot.table_size = b.slot.table_size = 4;
	b.slot.gro_units = a.slot.gro_units;
	b.flow[0].key.flow.pad[0] = 0x55;
	b.flow[0].target.pad = 7;
	b.prefix[0].key.pad = 0x77;
	b.prefix[0].target.pad = 9;
	b.slot.generation = 99;
	EXPECT_EQ(build_digest(&a, table), build_digest(&b, table),
		  "builds that differ in padding and generation have one digest");
	b.prefix[0].target.cpu ^= 1;
	EXPECT(build_digest(&a, table) != build_digest(&b, table),
	       "a different rule target gives another digest");
	b.prefix[0].target.cpu ^= 1;
	table[3] = 0;
	EXPECT(build_digest(&a, table) != build_digest(&b, (__u32[]){ 0, 1, 0, 1 }),
	       "a different table gives another digest");
	build_free(&a);
	build_free(&b);
out:
	policy_free(&p);
	diags_free(&d);
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_device_is_refused, "/dev/zero is refused as not a regular file, unread"),
	TEST_ENTRY(test_fifo_is_refused_without_blocking, "a FIFO is refused without waiting for a writer"),
	TEST_ENTRY(test_directory_is_refused, "a directory is refused as a directory"),
	TEST_ENTRY(test_missing_file, "a missing file says so"),
	TEST_ENTRY(test_too_big_is_refused_unread, "a file over 1 MiB is refused by its size"),
	TEST_ENTRY(test_exactly_1mib_is_read, "a policy of exactly 1 MiB is read"),
	TEST_ENTRY(test_alias_bomb_is_refused, "aliases are refused before they multiply work"),
	TEST_ENTRY(test_an_anchor_without_alias_is_fine, "an anchor alone is accepted"),
	TEST_ENTRY(test_a_nul_in_a_string_is_refused, "a NUL inside a quoted string is refused, not cut"),
	TEST_ENTRY(test_a_json_policy_is_read, "a policy written as JSON (quoted keys) is read"),
	TEST_ENTRY(test_deep_flow_nesting_is_refused, "40000-deep flow nesting is refused at level 33"),
	TEST_ENTRY(test_deep_block_nesting_is_refused, "deep block nesting is refused"),
	TEST_ENTRY(test_a_flood_of_mistakes_is_capped, "100000 mistakes keep DIAGS_MAX messages and count the rest"),
	TEST_ENTRY(test_a_huge_key_is_quoted_by_its_start, "a 1 MB key is quoted by its start, with no suggestion"),
	TEST_ENTRY(test_16k_rules_of_each_kind_are_accepted, "16384 rules of each kind parse and compile"),
	TEST_ENTRY(test_messages_sort_stably_by_place, "messages sort by place, stably"),
	TEST_ENTRY(test_suggestions_skip_long_words, "suggestions skip words longer than any key"),
	TEST_ENTRY(test_digest_ignores_padding, "the policy digest ignores padding and generation"),
};

int main(int argc, char **argv)
{
	char cmd[300];
	int ret;

	snprintf(dir, sizeof(dir), "%s/xdp-steer-input.XXXXXX",
		 getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	ret = test_run_all("input", tests, ARRAY_SIZE(tests), argc, argv);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		ret = 1;
	return ret;
}
