// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * prog_env.c - the program tier's harness (see prog_env.h): load the real
 * object once, pin to a CPU, and check every counter a frame can move.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog_env.h"

struct steer_prog prog;
int local_cpu, remote_cpu;
const __u64 test_key[STEER_HASH_KEY_WORDS] = {
	0x6b8b4567327b23c6ull, 0x643c986966334873ull, 0x74b0dc5119495cffull,
	0x2ae8944a625558ecull, 0x238e1f2946e87ccdull, 0x3d1b58ba507ed7abull,
	0x2eb141f241b71efbull, 0x79e2a9e37545e146ull, 0x515f007c5bd062c2ull,
	0x122008544db127f8ull, 0x0216231f1f16e9e8ull,
};
static int prog_err = 1;	/* 1: not loaded yet */

/* ---- setup ---------------------------------------------------------------- */

static void unload(void)
{
	steer_prog_del_cpu(&prog, local_cpu);
	steer_prog_del_cpu(&prog, remote_cpu);
	steer_prog_close(&prog);
}

/* Loads the object once, pins this process to one CPU and gives that CPU
 * and one other a cpumap entry (with our cpumap program). */
static int load(void)
{
	cpu_set_t allowed;
	int err, cpu;

	if (geteuid() != 0)
		return -EPERM;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -errno;
	err = steer_prog_open(&prog, NULL);
	if (err)
		return err;
	local_cpu = steer_pin_cpu(-1);
	if (local_cpu < 0)
		return local_cpu;
	remote_cpu = -1;
	for (cpu = 0; cpu < prog.ncpus && cpu < CPU_SETSIZE; cpu++) {
		if (cpu != local_cpu && CPU_ISSET(cpu, &allowed)) {
			remote_cpu = cpu;
			break;
		}
	}
	if (remote_cpu < 0)
		return -ENODEV;
	err = steer_prog_add_cpu(&prog, local_cpu, QSIZE, prog.worker_fd);
	if (!err)
		err = steer_prog_add_cpu(&prog, remote_cpu, QSIZE,
					 prog.worker_fd);
	if (err)
		return err;
	atexit(unload);
	return 0;
}

/* Loads the object once (later calls do nothing); ready() reports a
 * failure, in the test that meets it. */
void prog_env_load(void)
{
	if (prog_err != 1)
		return;
	prog_err = load();
	if (!prog_err)
		printf("  running on CPU %d, remote CPU %d, missing CPU %d\n",
		       local_cpu, remote_cpu, CPU_MISSING);
}

/* Every test starts here: false (and the test skipped) when the program
 * cannot be used on this machine. */
bool ready(void)
{
	int err;

	prog_env_load();
	switch (prog_err) {
	case 0:
		break;
	case -EPERM:
		test_skip("needs root to load BPF programs");
		return false;
	case -ENODEV:
		test_skip("needs two CPUs this process may run on");
		return false;
	case -ENOENT:
		test_skip("%s not found; run make first", STEER_PROG_OBJ_PATH);
		return false;
	default:
		/* The kernel refused the object (the verifier's log is above):
		 * a failure, not a skip, or a kernel the datapath does not
		 * verify on would pass this tier. */
		test_fail(__FILE__, __LINE__, "the kernel loaded the object",
			  "cannot load %s: %s", STEER_PROG_OBJ_PATH,
			  strerror(-prog_err));
		return false;
	}
	err = steer_prog_reset_policy(&prog);
	if (!err)
		err = steer_prog_reset_stats(&prog);
	return EXPECT_EQ(err, 0, "the maps were reset before the test");
}

int resolve_cpu(int cpu)
{
	if (cpu == AT_LOCAL)
		return local_cpu;
	if (cpu == AT_REMOTE)
		return remote_cpu;
	return cpu;
}

/* ---- expectations --------------------------------------------------------- */

const struct counter_name outcomes[] = {
	{ "redirected", OFF(redirected), 0 },
	{ "passed_local", OFF(passed_local), 0 },
	{ "passed_nonip", OFF(passed_nonip), 0 },
	{ "passed_parse_error", OFF(passed_parse_error), 0 },
	{ "passed_no_target", OFF(passed_no_target), 0 },
	{ "passed_no_policy", OFF(passed_no_policy), 0 },
};

const struct counter_name extras[] = {
	{ "fragments", OFF(fragments), ALSO_FRAG },
	{ "rule_flow_hits", OFF(rule_flow_hits), ALSO_FLOW_HIT },
	{ "rule_prefix_hits", OFF(rule_prefix_hits), ALSO_PREFIX_HIT },
	{ "encap_malformed", OFF(encap_malformed), ALSO_MALFORMED },
	{ "parsed_partial", OFF(parsed_partial), ALSO_PARTIAL },
};
const size_t n_outcomes = ARRAY_SIZE(outcomes);
const size_t n_extras = ARRAY_SIZE(extras);

const struct counter_name encaps[] = {
#define ENCAP_(A, ID, name, port, help)					\
	{ "encap_" #name, OFF(encap_##name), STEER_ENCAP_##ID },
	STEER_ENCAPS(ENCAP_, )
#undef ENCAP_
};
const size_t n_encaps = ARRAY_SIZE(encaps);

__u64 counter(const struct steer_stats *st, size_t off)
{
	return *(const __u64 *)((const char *)st + off);
}

/* Runs one frame on zeroed counters and checks all of them against 'e':
 * the verdict, rx moved by one, exactly the expected counters moved, and
 * only the expected CPU's steer_queued entry for a queued frame; a
 * frame passed on the spot moves passed_local_bytes instead, and no queued
 * entry. Prints the frame when anything is off. */
bool expect_run(const struct frame *f, const struct expect *e,
		const char *label)
{
	static struct steer_cpu_stats cs[STEER_MAX_CPUS];
	struct steer_stats st;
	int verdict = -1, err, cpu = resolve_cpu(e->cpu);
	bool local = e->outcome == OFF(passed_local);
	char what[160];
	bool ok = true;
	__u32 c;
	size_t i;

	err = steer_prog_reset_frame_counters(&prog);
	if (!err)
		err = steer_prog_run(&prog, f->buf, f->len, &verdict);
	ok &= EXPECT_EQ(err, 0, "the program ran");
	if (err)
		goto out;
	snprintf(what, sizeof(what), "the verdict is %s",
		 e->verdict == XDP_PASS ? "XDP_PASS" : "XDP_REDIRECT");
	ok &= EXPECT_EQ(verdict, e->verdict, what);

	err = steer_prog_read_stats(&prog, &st);
	ok &= EXPECT_EQ(err, 0, "steer_stats could be read");
	ok &= EXPECT_EQ(st.rx_packets, 1, "rx_packets moved by one");
	ok &= EXPECT_EQ(st.rx_bytes, f->len, "rx_bytes moved by the frame");
	for (i = 0; i < n_outcomes; i++) {
		int want = outcomes[i].off == e->outcome;

		snprintf(what, sizeof(what), "%s moved by %d",
			 outcomes[i].name, want);
		ok &= EXPECT_EQ(counter(&st, outcomes[i].off), want, what);
	}
	for (i = 0; i < n_extras; i++) {
		int want = !!(e->also & extras[i].bit);

		snprintf(what, sizeof(what), "%s moved by %d", extras[i].name,
			 want);
		ok &= EXPECT_EQ(counter(&st, extras[i].off), want, what);
	}
	for (i = 0; i < n_encaps; i++) {
		int want = e->encap == encaps[i].bit;

		snprintf(what, sizeof(what), "%s moved by %d", encaps[i].name,
			 want);
		ok &= EXPECT_EQ(counter(&st, encaps[i].off), want, what);
	}
	ok &= EXPECT_EQ(st.passed_local_bytes, local ? f->len : 0,
			local ? "passed_local_bytes moved by the frame" :
			"passed_local_bytes did not move");
	err = steer_prog_read_all_cpu_stats(&prog, cs);
	ok &= EXPECT_EQ(err, 0, "steer_queued could be read");
	for (c = 0; c < STEER_MAX_CPUS && !err; c++) {
		int want = (int)c == cpu && !local;

		if (cs[c].packets == (__u64)want &&
		    cs[c].bytes == (want ? f->len : 0))
			continue;
		snprintf(what, sizeof(what),
			 "queued[%u] counted %d frame(s) of %zu bytes", c,
			 want, f->len);
		ok &= EXPECT_EQ(cs[c].packets, want, what);
		ok &= EXPECT_EQ(cs[c].bytes, want ? f->len : 0, what);
	}
out:
	if (!ok)
		frame_dump(stdout, f, label);
	return ok;
}

int run_on_cpu(const struct frame *f, int me, struct steer_stats *st)
{
	static struct steer_cpu_stats cs[STEER_MAX_CPUS];
	int verdict = -1, err;
	__u32 c;

	if (steer_pin_cpu(me) != me)
		return -2;
	err = steer_prog_reset_frame_counters(&prog);
	if (!err)
		err = steer_prog_run(&prog, f->buf, f->len, &verdict);
	if (!err)
		err = steer_prog_read_stats(&prog, st);
	if (!err)
		err = steer_prog_read_all_cpu_stats(&prog, cs);
	if (err)
		return -2;
	if (st->passed_local)
		return me;
	for (c = 0; c < STEER_MAX_CPUS; c++)
		if (cs[c].packets)
			return (int)c;
	return -1;
}

/* ---- slots ------------------------------------------------------------------ */

void base_slot(struct steer_slot *s, __u32 flags)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->hash_key, test_key, sizeof(s->hash_key));
	s->flags = flags;
	s->table_size = TABLE_SIZE;
	s->nonip_cpu = STEER_CPU_LOCAL;
	/* The window's first generation (steer_prog_reset_drain()): the
	 * records a test's frames write count, a zeroed one does not. */
	s->drain_gen = 1;
}

void decap_slot(struct steer_slot *s, __u32 flags)
{
	base_slot(s, flags);
	steer_slot_decap_all(s);
}

int commit(const struct steer_slot *s)
{
	int err = steer_prog_write_slot(&prog, 0, s);

	return err ? err : steer_prog_set_active(&prog, 0);
}

__u32 frame_hash(const struct frame *f, const struct steer_slot *s)
{
	struct steer_flow flow;
	bool frag = frame_looked_through(f, s) ? frame_flow(f, &flow) :
						 frame_flow_plain(f, &flow);

	return steer_flow_hash(&flow, s->hash_key, s->flags, frag);
}

bool build_frame(struct frame *f, void (*fn)(struct frame *f))
{
	frame_init(f);
	fn(f);
	return EXPECT_EQ(frame_finish(f), 0, "the frame was built");
}

/* ---- case tables ------------------------------------------------------------ */

static const struct prog_case *current;

static void run_case(void)
{
	const struct prog_case *c = current;
	struct frame f;

	if (!ready() || !build_frame(&f, c->build))
		return;
	if (!EXPECT_EQ(c->policy(&f), 0, "the policy was written"))
		return;
	expect_run(&f, &c->expect, c->name);
}

int run_case_table(const struct prog_case *cases, size_t n, int argc,
		   char **argv)
{
	int failed = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct test_case one = TEST_ENTRY(run_case, cases[i].name);

		current = &cases[i];
		failed |= test_run_all("prog", &one, 1, argc, argv);
	}
	return failed;
}
