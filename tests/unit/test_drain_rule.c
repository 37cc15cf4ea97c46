// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the drain's rule of include/xdp_steer/drain.h, which the datapath
 * (bpf/drain.h) and the loader (kernel/evidence.h) both judge by: when a
 * record says anything (steer_bucket_live()), which mark bounds a frame
 * (steer_mark_base()), and when the evidence says its last frame is up the
 * stack (steer_drain_verdict(), steer_ring_delivered()). A case is a row:
 * what was read, and the verdict. No clock enters but the ones read: a
 * worker that waits its turn for ever keeps its buckets for ever.
 */
#include "xdp_steer/trace.h"
#include "xdp_steer/drain.h"
#include "test.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

static void test_a_record_says_something_from_its_slots_warm_up_on(void)
{
	struct steer_bucket b = { .target = 3, .last = 100, .gen = 7 };

	EXPECT(steer_bucket_live(&b, 7), "a record of the slot's warm-up is live");
	EXPECT(steer_bucket_live(&b, 6), "one written after an earlier slot's warm-up is live under it");
	EXPECT(!steer_bucket_live(&b, 8), "one older than the slot's warm-up says nothing");
	b.gen = 0xfffffffeu;
	EXPECT(steer_bucket_live(&b, 0xfffffffeu) && !steer_bucket_live(&b, 2),
	       "generations compare across their wrap");
	b.gen = 1;
	b.last = 0;
	EXPECT(!steer_bucket_live(&b, 1), "a record never written says nothing");
	b = (struct steer_bucket){ .target = STEER_TARGET_LOCAL | 3,
				   .last = 100, .gen = 0 };
	EXPECT(steer_bucket_live(&b, 50), "a fast-path record, kept always, is live whatever its generation");
}

static void test_the_earliest_mark_at_or_past_the_frame_bounds_its_batch(void)
{
	__u64 h[STEER_MARKS] = { STEER_MARK(10, 300), STEER_MARK(20, 340),
				 STEER_MARK(15, 320), 0 };
	__u32 base = 0;

	EXPECT(steer_mark_base(h, 12, &base) && base == 320,
	       "stamp 12: the mark of stamp 15, the earliest past it");
	EXPECT(steer_mark_base(h, 10, &base) && base == 300,
	       "stamp 10: its own mark");
	EXPECT(!steer_mark_base(h, 21, &base),
	       "stamp 21: no mark yet, not dequeued");
	EXPECT(!steer_mark_base(h, 0, &base),
	       "an unstamped frame is never found by a mark");
	h[0] = STEER_MARK(0xfffffff0u, 290);
	EXPECT(steer_mark_base(h, 0xffffffffu, &base) && base == 320,
	       "stamps compare across their wrap");
}

/* One verdict: what was read, and what it decides. */
struct verdict_case {
	const char *what;
	int found;		/* a mark at or past the frame */
	__u32 base;		/* its base */
	int polled;		/* a NAPI poll of its sender ended since */
	struct steer_drain_facts f;
	__u32 now, timeout, gro_units;
	__u64 now_ns;
	int want;		/* STEER_DRAIN_* */
};

#define MS	1000000ull
static const struct verdict_case verdicts[] = {
	{ "reports of 80 frames from the start of its batch: a later batch began after its flush",
	  1, 1000, 0, { .enq = 5000, .done = 1080, .last_ns = 10 * MS }, 50, 12,
	  0, 10 * MS, STEER_DRAIN_DONE },
	{ "79 frames: its flush may not be over, and the ring is not empty",
	  1, 1000, 1, { .enq = 5000, .done = 1079, .last_ns = 10 * MS,
			.last_tick = 50 }, 50, 12, 0, 10 * MS, STEER_DRAIN_WAIT },
	{ "a mark read after the count, ahead of it, proves nothing",
	  1, 2000, 0, { .enq = 5000, .done = 1500, .last_tick = 50 }, 50, 12,
	  0, 10 * MS, STEER_DRAIN_WAIT },
	{ "no mark and no poll ended since: the frame may not have left its sender",
	  0, 0, 0, { .enq = 100, .done = 100, .last_ns = 1 * MS }, 50, 12, 0,
	  900 * MS, STEER_DRAIN_WAIT },
	{ "a poll ended since, the ring empty, the last report 500 us old: idle",
	  0, 0, 1, { .enq = 100, .done = 100, .last_ns = 9 * MS }, 50, 12, 0,
	  9 * MS + STEER_DRAIN_IDLE_NS, STEER_DRAIN_DONE },
	{ "... 499 us old: the rest of its batch may still run",
	  0, 0, 1, { .enq = 100, .done = 100, .last_ns = 9 * MS }, 50, 12, 0,
	  9 * MS + STEER_DRAIN_IDLE_NS - 1000, STEER_DRAIN_WAIT },
	{ "a report after the clock was read is no idleness",
	  1, 50, 1, { .enq = 100, .done = 100, .last_ns = 10 * MS }, 50, 12, 0,
	  9 * MS, STEER_DRAIN_WAIT },
	{ "frames wait in the ring: no idleness, however long ago the last report",
	  1, 50, 1, { .enq = 101, .done = 100, .last_ns = 1, .last_tick = 45 },
	  50, 12, 0, 999999 * MS, STEER_DRAIN_WAIT },
	{ "frames wait and nothing was reported for the drain timeout: stalled, and it still waits",
	  1, 50, 1, { .enq = 101, .done = 100, .last_ns = 1, .last_tick = 38 },
	  50, 12, 0, 999999 * MS, STEER_DRAIN_STALLED },
	{ "a frame dropped at a full ring leaves an empty ring behind: idle, not pinned",
	  0, 0, 1, { .enq = 7, .done = 7, .last_ns = 1 }, 50, 12, 0, 5 * MS,
	  STEER_DRAIN_DONE },
	{ "counts compare across their wrap",
	  1, 0xffffffc0u, 0, { .enq = 0x20, .done = 0x10, .last_tick = 50 }, 50,
	  12, 0, 1, STEER_DRAIN_DONE },
	{ "HZ >= 1000: 80 frames are not enough where GRO keeps young segments",
	  1, 1000, 0, { .enq = 5000, .done = 1100, .last_tick = 50,
			.epoch_next = 10 }, 50, 12, 2, 10 * MS, STEER_DRAIN_WAIT },
	{ "HZ >= 1000: an epoch after, begun two ticks ago",
	  1, 1000, 0, { .enq = 5000, .done = 1128, .last_tick = 50,
			.epoch_next = 48 }, 50, 12, 2, 10 * MS, STEER_DRAIN_DONE },
	{ "HZ >= 1000: an epoch after, begun a tick ago",
	  1, 1000, 0, { .enq = 5000, .done = 1128, .last_tick = 50,
			.epoch_next = 49 }, 50, 12, 2, 10 * MS, STEER_DRAIN_WAIT },
};

static void test_each_verdict_follows_from_what_was_read(void)
{
	const struct verdict_case *c;
	size_t i;

	for (i = 0; i < ARRAY_LEN(verdicts); i++) {
		c = &verdicts[i];
		EXPECT_EQ(steer_drain_verdict(c->found, c->base, c->polled, &c->f,
					      c->now, c->now_ns, c->timeout,
					      c->gro_units),
			  c->want, c->what);
	}
}

static void test_a_ring_has_delivered_what_entered_it_by_the_same_rule(void)
{
	struct steer_drain_facts f = { .enq = 500, .done = 400,
				       .last_tick = 50 };

	EXPECT(!steer_ring_delivered(420, &f, 50, 10 * MS, 0),
	       "frames up to 420 in: not all taken off yet");
	f.done = 499;
	EXPECT(!steer_ring_delivered(420, &f, 50, 10 * MS, 0),
	       "taken off, but their flush may not be over, and more wait");
	f.done = 500;
	EXPECT(steer_ring_delivered(420, &f, 50, 10 * MS, 0),
	       "80 frames reported after the last of them");
	f = (struct steer_drain_facts){ .enq = 420, .done = 420, .last_ns = MS };
	EXPECT(steer_ring_delivered(420, &f, 50, MS + STEER_DRAIN_IDLE_NS, 0),
	       "all taken off, the ring empty, and the worker idle");
	EXPECT(steer_ring_delivered(0, &(struct steer_drain_facts){ 0 }, 50,
				    10 * MS, 0),
	       "a ring nothing entered has delivered everything");
}

static void test_a_bucket_leaves_the_fast_path_once_a_poll_ended(void)
{
	struct steer_bucket b = { .poll = 10, .last = 50 };

	EXPECT(!steer_polled_since(10, 50, &b, 0),
	       "no poll ended since its last frame here: it may still be in one");
	EXPECT(steer_polled_since(11, 50, &b, 0),
	       "one ended since: the frame is up the stack");
	EXPECT(!steer_polled_since(11, 50, &b, 2),
	       "HZ >= 1000: one that ended in the frame's own tick may leave young GRO segments");
	EXPECT(steer_polled_since(11, 51, &b, 2),
	       "one that ended at a later tick does not");
	b.poll = 0xffffffffu;
	EXPECT(steer_polled_since(0, 50, &b, 0), "counts compare across their wrap");
}

/* The kthread tracepoint's reading of a cpumap kthread's name
 * (steer_cpumap_comm_cpu()), as the kernel writes it into the task's
 * 16-byte comm: "cpumap/<cpu>/map:<id>", cut at 15 characters. */
static void test_a_cpumap_kthread_name_gives_its_cpu_up_to_8191(void)
{
	static const struct {
		const char *name;
		int cpu;
	} rows[] = {
		{ "cpumap/0/map:12", 0 },
		{ "cpumap/263/map:", 263 },
		{ "cpumap/999/map:", 999 },
		{ "cpumap/1000/map", 1000 },	/* 4 digits: lost before */
		{ "cpumap/1023/map", 1023 },
		{ "cpumap/8191/map", 8191 },	/* NR_CPUS 8192 - 1 */
		{ "cpumap/1234567/", 1234567 },	/* the most comm holds */
		{ "cpumap/12345678", -1 },	/* no '/' left in comm */
		{ "cpumap//map:123", -1 },
		{ "cpumap/2x/map:1", -1 },
		{ "kworker/3:1", -1 },
		{ "ksoftirqd/263", -1 },
	};
	char comm[16];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(comm, 0, sizeof(comm));
		strncpy(comm, rows[i].name, sizeof(comm) - 1);
		if (!EXPECT_EQ(steer_cpumap_comm_cpu(comm), rows[i].cpu,
			       "the CPU of a kthread's name is read whole, or -1 for none"))
			printf("  name \"%s\"\n", rows[i].name);
	}
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_a_record_says_something_from_its_slots_warm_up_on, "a bucket record says where its last frame went from its slot's warm-up on"),
	TEST_ENTRY(test_the_earliest_mark_at_or_past_the_frame_bounds_its_batch, "the earliest mark at or past a frame bounds its batch"),
	TEST_ENTRY(test_each_verdict_follows_from_what_was_read, "each drain verdict follows from what was read, and no clock moves a bucket"),
	TEST_ENTRY(test_a_ring_has_delivered_what_entered_it_by_the_same_rule, "a ring has delivered what entered it by the same rule"),
	TEST_ENTRY(test_a_cpumap_kthread_name_gives_its_cpu_up_to_8191, "a cpumap kthread's name gives its CPU, ids of 4 digits (1000-8191) included"),
	TEST_ENTRY(test_a_bucket_leaves_the_fast_path_once_a_poll_ended, "a bucket leaves the fast path once a poll has ended on its CPU since its last frame there, datapath and loader alike"),
};

int main(int argc, char **argv)
{
	return test_run_all("unit/drain_rule", tests, ARRAY_LEN(tests), argc,
			    argv);
}
