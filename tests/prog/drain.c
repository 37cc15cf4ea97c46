// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * drain.c - the drain of bpf/drain.h, frame by frame. The receiving side
 * is the real program under bpf_prog_test_run_opts on this CPU; the old
 * worker's side (what entered its ring and what its kthread reported, its
 * marks, this CPU's ended NAPI polls) is written into the maps by hand, so
 * each case sets exactly the evidence it is about and nothing races. Then
 * the worker program and the tracepoint programs that keep that evidence
 * run by hand, and last, where the kernel allows live frames, the real
 * worker and the real tracepoints publish it.
 *
 * CPUs: the bucket under test starts on one present CPU and is moved to
 * the other; "R" is remote_cpu and "L" local_cpu, this process's CPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <netinet/in.h>
#include <linux/if_ether.h>

#include "fixtures.h"
#include "kernel/clock.h"
#include "race.skel.h"

/* Drain timeouts in jiffies, as the slot keeps them: a long one (a second
 * and more), and about 25 ms for the cases that wait past it
 * (short_ticks(), by the tick rate): a timeout only says when a waiting
 * bucket counts as stalled, and never moves one. */
#define NO_TIMEOUT	1000
#define SHORT_MS	25

struct drain_case {
	struct frame f;		/* a frame of the bucket under test */
	struct steer_slot s;
	__u32 bucket;		/* in the table */
	__u32 record;		/* its drain bucket, in steer_buckets */
};

/* ---- clocks, as the program reads them ----------------------------------- */

static __u64 mono_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/* bpf_ktime_get_ns() */
static __u64 now_ns(void)
{
	return mono_ns(CLOCK_MONOTONIC);
}

/* (__u32)bpf_jiffies64(), the drain bookkeeping's clock */
static __u32 jiffies(void)
{
	__u32 now = 0;

	EXPECT_EQ(clock_jiffies(&now), 0, "jiffies were read");
	return now;
}

static int tick_rate(void)
{
	int hz = 250;

	EXPECT_EQ(clock_hz(&hz), 0, "the tick rate is known");
	return hz;
}

static __u32 short_ticks(void)
{
	return clock_ms_to_ticks(SHORT_MS, tick_rate());
}

/* The least time a timeout of 'ticks' jiffies stands for: a difference of
 * n jiffies spans a little over n - 1 ticks. */
static __u64 ticks_ns(__u32 ticks)
{
	return (__u64)(ticks - 1) * 1000000000ull / (__u64)tick_rate();
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

/* ---- setting up ------------------------------------------------------------- */

static void udp_frame(struct frame *f, __u16 sport)
{
	frame_init(f);
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = V4_SRC, .dst = V4_DST,
					   .proto = IPPROTO_UDP });
	frame_udp(f, sport, 53);
	frame_finish(f);
}

static __u32 bucket_of(const struct frame *f, const struct steer_slot *s)
{
	return steer_table_index(frame_hash(f, s), s->table_size);
}

/* The warm-up window as the program sees it. */
static struct steer_window window(void)
{
	struct steer_window w = {};

	EXPECT_EQ(steer_prog_read_window(&prog, &w), 0, "the window was read");
	return w;
}

/* Drain on with 'flags', every bucket on CPU 'from', drain state empty,
 * the window open: the cases are about what the records decide, and a
 * warm-up's records decide from the flip on. The slot counts records from
 * the window's generation on, as after the warm-up that put it in force. */
static bool setup(struct drain_case *c, __u32 flags, int from,
		  __u32 drain_units)
{
	int err;

	if (!ready())
		return false;
	udp_frame(&c->f, SPORT);
	if (!EXPECT_EQ(c->f.err, 0, "the frame was built"))
		return false;
	base_slot(&c->s, STEER_F_HASH_L4 | STEER_F_DRAIN | flags);
	c->s.drain_units = drain_units;
	c->s.gro_units = 0;
	c->bucket = bucket_of(&c->f, &c->s);
	c->record = steer_table_index(frame_hash(&c->f, &c->s),
				      STEER_TABLE_MAX);
	err = steer_prog_reset_drain(&prog);
	if (!err)
		err = steer_prog_window(&prog, 1);
	c->s.drain_gen = window().gen;
	if (!err)
		err = steer_prog_fill_table(&prog, 0, from, TABLE_SIZE);
	if (!err)
		err = commit(&c->s);
	return EXPECT_EQ(err, 0, "the policy and drain state were written");
}

/* A frame in another bucket than c's, to make this CPU busy. */
static bool other_frame(const struct drain_case *c, struct frame *o)
{
	__u16 sport;

	for (sport = SPORT + 1; sport != SPORT; sport++) {
		udp_frame(o, sport);
		if (bucket_of(o, &c->s) != c->bucket)
			return true;
	}
	return EXPECT(false, "a frame of another bucket exists");
}

static bool move_to(const struct drain_case *c, int cpu)
{
	return EXPECT_EQ(steer_prog_set_bucket(&prog, 0, c->bucket, cpu), 0,
			 "the bucket was moved in the table");
}

/* ---- what the program did -------------------------------------------------- */

static int send_frame(const struct frame *f)
{
	int verdict = -1;

	if (!EXPECT_EQ(steer_prog_run(&prog, f->buf, f->len, &verdict), 0,
		       "the program ran"))
		return -1;
	return verdict;
}

/* The receiver slot of 'cpu' (struct steer_rx_pool), claimed by hand as
 * the datapath would when it holds none yet: the marks a case writes for
 * a CPU's stream are those of its slot. */
static __u32 slot_of(int cpu)
{
	int s = steer_prog_rx_slot_of(&prog, cpu, true);

	EXPECT(s >= 0, "the CPU holds a receiver slot");
	return s < 0 ? 0 : (__u32)s;
}

/* Stamped frames this CPU queued to 'target' (steer_seq): where the
 * frames went while a drain might ask. */
static __u32 queued_to(int target)
{
	__u32 key = slot_of(local_cpu) * STEER_TARGETS + target, v = ~0u;

	bpf_map_lookup_elem(prog.steer_seq, &key, &v);
	return v;
}

/* This CPU's record of the bucket. */
static struct steer_bucket bucket_state(const struct drain_case *c)
{
	struct steer_bucket v[prog.ncpus], b = { .target = 0xdead };

	if (!steer_prog_rx_read(&prog, prog.steer_buckets, c->record, v,
				sizeof(v[0])))
		b = v[local_cpu];
	return b;
}

static struct steer_stats stats(void)
{
	struct steer_stats st = {};

	steer_prog_read_stats(&prog, &st);
	return st;
}

/* Frames steer_queued's row 'row' counts queued to 'cpu'. */
static __u64 row_sent(__u32 row, int cpu)
{
	struct steer_cpu_stats cs = {};

	steer_prog_read_row_stats(&prog, row, cpu, &cs);
	return cs.packets;
}

/* ---- the old worker's side, written by hand ------------------------------- */

/* Long enough ago that the worker's last batch is over (STEER_DRAIN_IDLE_NS). */
#define IDLE_SINCE()	(now_ns() - 1000000000ull)
/* A worker reporting as we look: its last batch may still run. */
#define BUSY_NOW()	(now_ns() + 1000000000ull)

/* 'target's ring: 'entered' frames entered it (steer_wenq), its kthread
 * reported 'done' taken off, the last report at 'last_ns' and at tick
 * 'last_tick' (steer_wdone); its epochs' starts left alone. */
static bool ring_at(int target, __u32 entered, __u32 done, __u64 last_ns,
		    __u32 last_tick)
{
	struct steer_wdone wd = {};
	struct steer_wenq we = {};
	__u32 t = target;
	int err;

	bpf_map_lookup_elem(prog.steer_wdone, &t, &wd);
	wd.frames = done;
	wd.last_ns = last_ns;
	wd.last_tick = last_tick;
	we.frames = entered;
	err = bpf_map_update_elem(prog.steer_wenq, &t, &we, BPF_ANY);
	if (!err)
		err = bpf_map_update_elem(prog.steer_wdone, &t, &wd, BPF_ANY);
	return EXPECT_EQ(err, 0, "the worker's ring and reports were written");
}

/* The same, reported just now. */
static bool ring(int target, __u32 entered, __u32 done, __u64 last_ns)
{
	return ring_at(target, entered, done, last_ns, jiffies());
}

/* 'target's worker took this CPU's stamped frames up to 'seq' in a batch
 * that began at its report count 'base': its only mark of our stream. */
static bool marked(int target, __u32 seq, __u32 base)
{
	__u32 key = target * prog.rx_rows + slot_of(local_cpu);
	struct steer_deq d = { .h = { STEER_MARK(seq, base) } };

	return EXPECT_EQ(bpf_map_update_elem(prog.steer_deq, &key, &d, BPF_ANY),
			 0, "the worker's mark was written");
}

/* A NAPI poll ended on this CPU, now (steer_stats.napi_polls, as the
 * napi_poll tracepoint program counts them). */
static bool poll_ended(void)
{
	__u64 j = 0;

	return EXPECT_EQ(clock_jiffies64(&j), 0, "jiffies were read") &&
	       EXPECT_EQ(steer_prog_polls(&prog, local_cpu,
					  stats().napi_polls + 1, j), 0,
			 "a poll's end was written");
}

/* R queued a frame at the current tick (steer_stats.queued_tick), as the
 * program notes it: a bucket cold on L's fast path may then have frames
 * waiting in L's own queue. */
static bool other_rx_queued_lately(void)
{
	__u64 j = 0;

	return EXPECT_EQ(clock_jiffies64(&j), 0, "jiffies were read") &&
	       EXPECT_EQ(steer_prog_queued_tick(&prog, remote_cpu, j), 0,
			 "R's tick of its last queued frame was written");
}

/* The bucket arrives cold at L's fast path while R queues frames too: its
 * first frame goes through L's own queue, behind whatever R may have
 * queued there; once L has taken it and is idle with its ring empty, the
 * bucket takes the fast path. Leaves it warm there (one move done), L's
 * ring at 'n' frames entered and taken. */
static bool warm_on_fastpath(const struct frame *f, __u32 n)
{
	__u32 q = queued_to(local_cpu);

	if (!other_rx_queued_lately() ||
	    !EXPECT_EQ(send_frame(f), XDP_REDIRECT,
		       "arriving cold, the bucket's first frame goes through L's own queue") ||
	    !EXPECT_EQ(queued_to(local_cpu), q + 1, "stamped, to L") ||
	    !marked(local_cpu, q + 1, n - 1) ||
	    !ring(local_cpu, n, n, IDLE_SINCE()))
		return false;
	return EXPECT_EQ(send_frame(f), XDP_PASS,
			 "once L has taken it and is idle, the bucket takes the fast path");
}

/* ---- cases ------------------------------------------------------------------ */

static void test_first_frame_is_no_move(void)
{
	struct drain_case c;
	struct steer_stats st;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	st = stats();
	EXPECT_EQ(queued_to(remote_cpu), 1, "a bucket's first frame goes to its table CPU");
	EXPECT_EQ(st.moves_idle + st.moves_done + st.moves_timeout, 0,
		  "and counts as no move");
}

static void test_held_until_its_last_frame_is_up_the_stack(void)
{
	struct drain_case c;
	struct steer_bucket b;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame is queued");
	EXPECT_EQ(queued_to(remote_cpu), 1, "to R");
	if (!move_to(&c, local_cpu))
		return;

	/* R has reported nothing: the bucket stays. */
	send_frame(&c.f);
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 3, "frames after the move still go to R");
	EXPECT_EQ(queued_to(local_cpu), 0, "none to L yet");
	b = bucket_state(&c);
	EXPECT(b.since != 0, "the bucket is marked as draining");
	EXPECT_EQ(stats().drain_held, 2, "drain_held counts the two");

	/* A poll ended: our frames are in R's ring. R took two of them,
	 * went idle, but the third waits in its ring. */
	if (!poll_ended() || !marked(remote_cpu, 2, 0) ||
	    !ring(remote_cpu, 3, 2, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 4, "with a frame still in R's ring, the bucket stays");

	/* R took all four of ours and is idle, but two frames another
	 * receiving CPU queued wait in R's ring: R has not finished. */
	if (!poll_ended() || !marked(remote_cpu, 4, 2) ||
	    !ring(remote_cpu, 6, 4, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "while another CPU's frames wait in R's ring, the bucket stays");

	/* Those are out too: the next frame goes to L. */
	if (!poll_ended() || !marked(remote_cpu, 5, 4) ||
	    !ring(remote_cpu, 7, 7, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R took every frame and its last batch is over, the bucket moves to L");
	EXPECT_EQ(queued_to(remote_cpu), 5, "and nothing more goes to R");
	b = bucket_state(&c);
	EXPECT_EQ(b.target, local_cpu, "the bucket's record says L");
	EXPECT_EQ(b.since, 0, "and it no longer drains");
	EXPECT_EQ(stats().moves_done, 1, "moves_done counts the move");
	EXPECT_EQ(stats().moves_timeout + stats().drain_stalled, 0,
		  "no timeout, no stall");
}

/* The old CPU's cpumap entry vanishes while the bucket drains from it (an
 * apply retired it, wrongly, or an operator deleted it): held frames are
 * then passed here, and the bucket keeps waiting for the frames that
 * really went into that CPU's ring, which its kthread still delivers. */
static void test_held_frame_without_its_entry_keeps_the_wait(void)
{
	struct drain_case c;
	struct steer_bucket b;
	int err;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	send_frame(&c.f);
	if (!move_to(&c, local_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "a held frame is queued to R");
	b = bucket_state(&c);
	EXPECT_EQ(b.seq, 3, "the bucket waits for R's third frame");
	if (!EXPECT_EQ(steer_prog_del_cpu(&prog, remote_cpu), 0,
		       "R's cpumap entry was deleted"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "with R's entry gone, a held frame is passed here");
	EXPECT_EQ(stats().passed_no_target, 1, "counted as passed without a target");
	/* R took two of the three, 100 frames of others after them (past
	 * STEER_FLUSH_GAP), and the third still waits in its ring. */
	if (marked(remote_cpu, 2, 10) && ring(remote_cpu, 111, 110, BUSY_NOW())) {
		send_frame(&c.f);
		EXPECT_EQ(queued_to(local_cpu), 0, "the bucket does not move while R's ring holds its frame");
		EXPECT_EQ(stats().moves_done, 0, "no move is counted");
	}
	err = steer_prog_add_cpu(&prog, remote_cpu, QSIZE, prog.worker_fd);
	EXPECT_EQ(err, 0, "R's cpumap entry was put back");
}

/* R took the bucket's frames and nothing waits in its ring, but it
 * reported its last batch less than STEER_DRAIN_IDLE_NS ago: the rest of
 * that batch may still be on its way up the stack. */
static void test_busy_worker_holds(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu) || !marked(remote_cpu, 1, 4) ||
	    !ring(remote_cpu, 5, 5, BUSY_NOW()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 2, "R took the frame but may still be in its batch: the bucket stays");
	EXPECT_EQ(queued_to(local_cpu), 0, "nothing to L");

	/* A report a little after the program's clock (another CPU's
	 * store) is busy too, not idle for 2^64 ns. */
	if (!marked(remote_cpu, 2, 5) ||
	    !ring(remote_cpu, 6, 6, now_ns() + 20000))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "a report ahead of the clock means busy");

	if (!marked(remote_cpu, 3, 6) || !ring(remote_cpu, 7, 7, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R's last batch is over with its ring empty, the bucket moves");
}

/* A worker that never idles: once reports of STEER_FLUSH_GAP frames from
 * the start of the bucket's last frame's batch have come, a later batch
 * has begun after the flush that took it (HZ < 1000: every flush is a
 * full one), and the bucket may go, busy worker or not. */
static void test_flush_gap_releases(void)
{
	struct drain_case c;
	__u32 key, last;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu))
		return;
	send_frame(&c.f);
	last = queued_to(remote_cpu);

	/* The bucket's last frame was in a batch that began at 10; frames
	 * keep coming into R's ring. */
	if (!marked(remote_cpu, last, 10) ||
	    !ring(remote_cpu, 1000, 10 + STEER_FLUSH_GAP - 1, BUSY_NOW()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "79 frames from its batch's start are not enough");

	/* That frame went to R too: the mark stops one short of it. */
	last = queued_to(remote_cpu);
	if (!marked(remote_cpu, last - 1, 10) ||
	    !ring(remote_cpu, 1000, 10 + 10 * STEER_FLUSH_GAP, BUSY_NOW()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "a mark short of the bucket's last frame releases nothing");

	/* Two marks past it: the earlier bounds its batch (base 10, 80
	 * ago); the later one (base 60, 30 ago) does not hold it. */
	last = queued_to(remote_cpu);
	if (!ring(remote_cpu, 1000, 10 + STEER_FLUSH_GAP, BUSY_NOW()))
		return;
	{
		struct steer_deq d = { .h = { STEER_MARK(last + 2, 60),
					      STEER_MARK(last, 10) } };

		key = remote_cpu * prog.rx_rows + slot_of(local_cpu);
		if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_deq, &key, &d,
						   BPF_ANY), 0, "two marks were written"))
			return;
	}
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "80 frames from its batch's start, the bucket leaves the busy CPU");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
}

/* R's epoch 'e' began at jiffies 'began' (steer_wdone.epoch_at). */
static bool epoch_began(int target, __u32 e, __u32 began)
{
	struct steer_wdone wd = {};
	__u32 t = target;

	bpf_map_lookup_elem(prog.steer_wdone, &t, &wd);
	wd.epoch_at[e & 3] = began;
	return EXPECT_EQ(bpf_map_update_elem(prog.steer_wdone, &t, &wd,
					     BPF_ANY), 0,
			 "the epoch's start was written");
}

/* HZ >= 1000: GRO keeps segments younger than a tick across busy flushes.
 * The bucket waits a whole epoch, and until the epoch after its frame's
 * batch began gro_units ago. One try: -EAGAIN when the clock ran
 * gro_units ticks between writing an epoch's start and the frame that
 * reads it (a guest's jiffies catch up several ticks at once under TCG),
 * before its verdict was judged; else 0, whatever the checks said. */
static int gro_units_try(void)
{
	__u32 began, last, moved, e = 10 / STEER_EPOCH + 1;
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return 0;
	c.s.gro_units = 2;
	if (!EXPECT_EQ(commit(&c.s), 0, "gro_units 2 was written"))
		return 0;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu))
		return 0;
	send_frame(&c.f);
	last = queued_to(remote_cpu);
	if (!marked(remote_cpu, last, 10) ||
	    !ring(remote_cpu, 1000, 10 + STEER_FLUSH_GAP, BUSY_NOW()))
		return 0;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "80 frames after it are not enough where GRO keeps young segments");

	/* A whole epoch after it, and the next epoch has just begun. */
	began = jiffies();
	last = queued_to(remote_cpu);
	if (!marked(remote_cpu, last, 10) ||
	    !ring(remote_cpu, 1000, 10 + STEER_EPOCH, BUSY_NOW()) ||
	    !epoch_began(remote_cpu, e, began))
		return 0;
	send_frame(&c.f);
	moved = queued_to(local_cpu);
	if (jiffies() - began >= c.s.gro_units)
		return -EAGAIN;
	EXPECT_EQ(moved, 0, "an epoch after it, but within gro_units of its start, it waits");

	/* The epoch began gro_units (and one) ago. */
	last = queued_to(remote_cpu);
	if (!marked(remote_cpu, last, 10) ||
	    !epoch_began(remote_cpu, e, jiffies() - 3))
		return 0;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "an epoch and gro_units after it, the bucket moves though R is busy");
	return 0;
}

static void test_gro_units_hold_a_tick(void)
{
	int i;

	for (i = 0; i < 5; i++)
		if (gro_units_try() != -EAGAIN)
			return;
	test_skip("the clock ran 2 ticks within one frame in each of 5 tries");
}

/* A drain whose old queue does not move: frames wait in R's ring and R
 * reports nothing (its kthread starved by a busy task, or its CPU stopped)
 * for many drain timeouts. The bucket stays where it is, its held frames
 * counted as stalled, and no clock lets it go: it moves once R takes its
 * frames again. */
static void test_stalled_target_keeps_its_buckets(void)
{
	struct drain_case c;
	__u32 t0, held = 0;
	int i = 0;

	if (!setup(&c, 0, remote_cpu, short_ticks()))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu) || !poll_ended() ||
	    !ring_at(remote_cpu, 50, 10, now_ns(), jiffies()))
		return;
	t0 = jiffies();
	while (jiffies() - t0 < 4 * short_ticks()) {
		send_frame(&c.f);
		held++;
		if (++i % 8 == 0 && !poll_ended())
			return;
		sleep_us(1000);
	}
	EXPECT_EQ(queued_to(local_cpu), 0, "for four drain timeouts not one frame went to L");
	EXPECT_EQ(queued_to(remote_cpu), held + 1, "every one went to R, behind its waiting ring");
	EXPECT_EQ(stats().drain_held, held, "each counted in drain_held");
	EXPECT(stats().drain_stalled > 0 && stats().drain_stalled < held,
	       "and, once R had reported nothing for the drain timeout, in drain_stalled");
	EXPECT_EQ(stats().moves_timeout + stats().moves_done, 0, "no move, by a timeout or else");

	/* R runs again: it takes and reports everything, and its last batch
	 * is over. */
	if (!poll_ended() || !marked(remote_cpu, held + 1, 40) ||
	    !ring(remote_cpu, 50 + held, 50 + held, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R's ring moved and emptied, the bucket moves to L");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
}

/* The bucket's last frame was dropped at R's full ring (the enqueue
 * tracepoint counted it, never a mark): it pins nothing. Once a poll has
 * ended since it was sent (it left this CPU) and R's ring is empty and R
 * idle, nothing of the bucket can wait there. */
static void test_a_frame_dropped_at_a_full_ring_pins_nothing(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu) || !ring(remote_cpu, 30, 30, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "no mark and no poll ended since: the frame may still be on this CPU");
	if (!poll_ended())
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "a poll ended, R's ring empty and R idle: the bucket moves");
}

/* Drain buckets do not change with the table's size: a flow whose table
 * bucket is renumbered by a table_size change still drains. */
static void test_table_resize_keeps_the_drain(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	/* The table grows to STEER_TABLE_MAX buckets, every one on L. */
	c.s.table_size = STEER_TABLE_MAX;
	if (!EXPECT_EQ(steer_prog_fill_table(&prog, 0, local_cpu,
					     STEER_TABLE_MAX) || commit(&c.s),
		       0, "the bigger table was written"))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 2, "after the resize the flow still drains from R");
	EXPECT_EQ(queued_to(local_cpu), 0, "nothing went to L yet");
	if (!marked(remote_cpu, 2, 1) || !ring(remote_cpu, 2, 2, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R delivered it, the flow moves to L");
}

/* A record written before the warm-up of the slot in force says nothing
 * (kernel/window.h): every frame queued before that warm-up was up the
 * stack by the flip. The bucket moves at its first frame. */
static void test_a_record_older_than_the_warm_up_moves_at_once(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	/* The slot in force came from a later warm-up. */
	c.s.drain_gen = bucket_state(&c).gen + 1;
	if (!EXPECT_EQ(commit(&c.s), 0, "the slot of a later warm-up was written") ||
	    !move_to(&c, local_cpu))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "the bucket moves at its next frame");
	EXPECT_EQ(stats().drain_held, 0, "nothing was held");
	EXPECT_EQ(stats().moves_idle, 1, "counted in moves_idle");
}

/* The same with the window shut, as a move of the balancer's or an
 * apply's finds most buckets: the first frame of a bucket that moved
 * while idle counts the move once and writes the new target, so the
 * next frames settle by the first compare, not counted again. */
static void test_an_idle_move_is_counted_once_with_the_window_shut(void)
{
	struct drain_case c;
	struct steer_stats st;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	c.s.drain_gen = bucket_state(&c).gen + 1;
	if (!EXPECT_EQ(commit(&c.s), 0, "the slot of a later warm-up was written") ||
	    !move_to(&c, local_cpu) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut") ||
	    !EXPECT_EQ(steer_prog_reset_stats(&prog), 0, "counters zeroed"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued");
	EXPECT_EQ(row_sent(slot_of(local_cpu), local_cpu), 1, "to the bucket's new CPU");
	EXPECT_EQ(bucket_state(&c).target, local_cpu, "whose target the record now holds");
	send_frame(&c.f);
	send_frame(&c.f);
	st = stats();
	EXPECT_EQ(row_sent(slot_of(local_cpu), local_cpu), 3, "the next frames go there too");
	EXPECT_EQ(st.moves_idle, 1, "the move counted once in moves_idle");
	EXPECT_EQ(st.drain_held + st.moves_done + st.moves_timeout, 0, "nothing held, no other move");
}

/* A bucket whose frames all came with the window shut (a low rate: no
 * frame in the warm-up), as in an apply moving buckets to a worker: its
 * move is counted all the same, once. */
static void test_a_bucket_seen_only_outside_the_window_counts_its_idle_move(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut"))
		return;
	send_frame(&c.f);
	c.s.drain_gen++;
	if (!EXPECT_EQ(commit(&c.s), 0, "the slot of a later warm-up was written") ||
	    !move_to(&c, local_cpu) ||
	    !EXPECT_EQ(steer_prog_reset_stats(&prog), 0, "counters zeroed"))
		return;
	send_frame(&c.f);
	send_frame(&c.f);
	EXPECT_EQ(row_sent(slot_of(local_cpu), local_cpu), 2, "its frames go to the new CPU");
	EXPECT_EQ(stats().moves_idle, 1, "the move counted once in moves_idle");
}

/* A bucket recorded in the warm-up, then idle for three drain timeouts:
 * idleness proves nothing (a starved worker may still hold its frames),
 * so it waits for the evidence as any other. */
static void test_an_idle_bucket_still_waits_for_its_evidence(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, 2))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu) || !poll_ended() ||
	    !ring(remote_cpu, 1, 0, IDLE_SINCE()))
		return;
	sleep_us(3 * 1000000 / tick_rate() + 1000);
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "idle for the drain timeout, its frame still in R's ring: it waits");
	EXPECT_EQ(stats().drain_held, 1, "held");
	if (!ring(remote_cpu, 2, 2, IDLE_SINCE()) || !poll_ended())
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "R's ring out: it moves");
	EXPECT_EQ(stats().moves_idle, 0, "not as an idle bucket");
}

/* Nothing moving: outside the window a queued frame reads its record and
 * writes nothing once the record names its target; with the record
 * saying where the table sends it, or nothing under this slot, it goes
 * there unstamped. Inside, every frame is stamped and recorded. */
static void test_outside_the_window_a_settled_frame_writes_nothing(void)
{
	struct drain_case c;
	struct steer_bucket b;
	struct steer_stats st;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued");
	st = stats();
	EXPECT_EQ(st.redirected, 1, "to its table CPU");
	EXPECT_EQ(queued_to(remote_cpu), 0, "unstamped: this CPU's stream to R did not advance");
	EXPECT_EQ(st.unstamped, 0, "and no stamp was refused");
	b = bucket_state(&c);
	EXPECT_EQ(b.target, remote_cpu, "its zeroed record takes its target, once");
	EXPECT_EQ(b.gen, 0, "under no generation: it says nothing to a drain");
	sleep_us(1000000 / tick_rate() + 1000);
	send_frame(&c.f);
	EXPECT_EQ(bucket_state(&c).last, b.last, "a tick later, the next frame writes nothing");

	if (!EXPECT_EQ(steer_prog_window(&prog, 1), 0, "the window was opened"))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 1, "in the window the frame is stamped, at once");
	b = bucket_state(&c);
	EXPECT(b.last != 0, "and its bucket recorded");
	EXPECT_EQ(b.target, remote_cpu, "as sent to R");
	EXPECT_EQ(b.gen, window().gen, "under the window's generation");

	if (!EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut"))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 1, "shut again, a frame its record settles is unstamped");
	EXPECT_EQ(bucket_state(&c).last, b.last, "and leaves the record alone");
}

/* The window shut, a held bucket still drains: its record, not the
 * window, keeps its frames on the old CPU, stamped, until the evidence
 * lets it go. */
static void test_a_held_bucket_drains_with_the_window_shut(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut"))
		return;
	send_frame(&c.f);
	send_frame(&c.f);
	EXPECT_EQ(stats().drain_held, 2, "R took nothing: both frames are held");
	EXPECT_EQ(queued_to(remote_cpu), 3, "stamped, to R");
	if (!marked(remote_cpu, 3, 0) || !ring(remote_cpu, 3, 3, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(stats().moves_done, 1, "once R delivered them, the bucket moves");
	EXPECT_EQ(bucket_state(&c).target, local_cpu, "its record says L");
	send_frame(&c.f);
	EXPECT_EQ(stats().redirected, 5, "its frames go on to L");
	EXPECT_EQ(queued_to(local_cpu), 1, "unstamped from the move on, the record settling them");
}

/* The fast path outside the window: a frame queued to another CPU is
 * unstamped and recorded under no generation, as without the fast path
 * (test_outside_the_window_a_settled_frame_writes_nothing); a warm bucket
 * on the fast path writes its own record only: the count of ended polls
 * at its last frame and the tick of it. */
static void test_fastpath_outside_the_window_keeps_no_records(void)
{
	struct drain_case c, here;
	struct steer_bucket b0, b1;
	int i;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, remote_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued to R");
	EXPECT_EQ(queued_to(remote_cpu), 0, "unstamped");
	EXPECT_EQ(bucket_state(&c).gen, 0, "and unrecorded (its record names its target, under no generation)");

	if (!setup(&here, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut") ||
	    !warm_on_fastpath(&here.f, 1))
		return;
	b0 = bucket_state(&here);
	/* Two ticks on, so the tick of the frames below is a new one. */
	sleep_us(2 * 1000000 / tick_rate() + 1000);
	if (!poll_ended() || !poll_ended())
		return;
	for (i = 0; i < 10; i++)
		EXPECT_EQ(send_frame(&here.f), XDP_PASS, "warm, the bucket stays on the fast path");
	b1 = bucket_state(&here);
	EXPECT_EQ(b1.target, STEER_TARGET_LOCAL | local_cpu, "its record says passed here");
	EXPECT_EQ(b1.poll - b0.poll, 2, "the count of ended polls at its last frame");
	EXPECT(b1.last != b0.last && jiffies() - b1.last <= 1,
	       "and the tick of it, so it stays warm");
}

/* A warm bucket's every frame on the fast path writes the tick it came at,
 * so that the next one, within the drain timeout, finds it warm. Each
 * frame is looked at alone: a record that said "a frame came" (1) instead
 * would read cold at the next frame, which would go the slow way and write
 * the tick, so every other frame would look right. */
static void test_a_warm_bucket_on_the_fast_path_records_each_frames_tick(void)
{
	struct steer_stats before;
	struct steer_bucket b;
	struct drain_case c;
	__u32 now;
	int i;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !warm_on_fastpath(&c.f, 1))
		return;
	before = stats();
	for (i = 0; i < 3; i++) {
		/* Two ticks on, so each frame's tick is a new one. */
		sleep_us(2 * 1000000 / tick_rate() + 1000);
		if (!poll_ended())
			return;
		now = jiffies();
		EXPECT_EQ(send_frame(&c.f), XDP_PASS, "warm, the frame is passed here");
		b = bucket_state(&c);
		EXPECT(b.last - now <= 1, "its record holds the tick of this frame");
		EXPECT_EQ(b.target, STEER_TARGET_LOCAL | local_cpu, "and says passed here");
	}
	EXPECT_EQ(stats().moves_done + stats().moves_idle + stats().moves_timeout,
		  before.moves_done + before.moves_idle + before.moves_timeout,
		  "no frame read the bucket as cold or moved: no move counted");
}

static void test_drain_off_moves_at_once(void)
{
	struct drain_case c;
	struct steer_bucket b;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	c.s.flags &= ~STEER_F_DRAIN;
	if (!EXPECT_EQ(commit(&c.s), 0, "drain off was written"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued");
	if (!move_to(&c, local_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame after the move is queued");
	EXPECT_EQ(queued_to(remote_cpu), 0, "without drain, frames are not stamped");
	EXPECT_EQ(queued_to(local_cpu), 0, "to either CPU");
	b = bucket_state(&c);
	EXPECT_EQ(b.last, 0, "and buckets keep no record");
	EXPECT_EQ(stats().redirected, 2, "both frames were redirected");
	EXPECT_EQ(stats().drain_held, 0, "none held");
}

/* Leaving the fast path: frames passed here reach the stack before their
 * NAPI poll returns, so the bucket goes once a poll has ended since its
 * last frame here; other buckets' frames in between prove nothing. */
static void test_leaving_fastpath_waits_for_a_poll_to_end(void)
{
	struct drain_case c;
	struct frame o;
	int i;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !other_frame(&c, &o) || !warm_on_fastpath(&c.f, 1) ||
	    !warm_on_fastpath(&o, 2))
		return;
	if (!move_to(&c, remote_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "right after the move it is passed here still");
	for (i = 0; i < 1000; i++)
		send_frame(&o);
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "1000 frames of another bucket later, no poll ended: still");
	EXPECT_EQ(queued_to(remote_cpu), 0, "nothing went to R");
	if (!poll_ended())
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "a poll ended since its last frame here: it goes to R");
	EXPECT_EQ(queued_to(remote_cpu), 1, "queued to R");
	EXPECT_EQ(stats().drain_held, 2, "two frames were held");
	EXPECT_EQ(stats().moves_done, 3, "counted in moves_done (with the two warm-ups')");
}

/* An elephant never pauses: every frame of this CPU is its own. It still
 * leaves the fast path, at the first frame of the next poll, with no
 * timeout; where GRO keeps young segments (HZ >= 1000) at the first one
 * after a poll that ended at a later tick than its last frame. */
static void test_an_elephant_leaves_the_fast_path_at_the_next_poll(void)
{
	struct drain_case c;
	__u64 j = 0;
	__u32 t0;
	int i;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()) ||
	    !warm_on_fastpath(&c.f, 1) || !move_to(&c, remote_cpu))
		return;
	t0 = jiffies();
	for (i = 0; jiffies() - t0 < 3 * short_ticks(); i++) {
		if (!EXPECT_EQ(send_frame(&c.f), XDP_PASS, "while no poll ends, the elephant stays"))
			return;
		if (i % 64 == 0)
			sleep_us(500);
	}
	EXPECT_EQ(stats().moves_timeout, 0, "three drain timeouts later, nothing moved it");
	if (!poll_ended())
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the next poll's first frame goes to R");

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()))
		return;
	c.s.gro_units = 2;
	if (!EXPECT_EQ(commit(&c.s), 0, "gro_units 2 was written") ||
	    !warm_on_fastpath(&c.f, 1) || !move_to(&c, remote_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "HZ >= 1000: the elephant's frame is passed here");
	/* A poll that ended at the tick of that frame, or before. */
	if (!EXPECT_EQ(steer_prog_polls(&prog, local_cpu,
					stats().napi_polls + 1,
					bucket_state(&c).last), 0,
		       "a poll's end at the frame's tick was written"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "a poll that ended in its frame's tick may have kept it in GRO");
	sleep_us(2 * 1000000 / tick_rate() + 1000);
	if (!EXPECT_EQ(clock_jiffies64(&j), 0, "jiffies were read") ||
	    !EXPECT_EQ(steer_prog_polls(&prog, local_cpu,
					stats().napi_polls + 1, j), 0,
		       "a poll's end at a later tick was written"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "after a poll that ended at a later tick it goes");
}

/* A bucket arriving cold at the fast path while another receiving CPU's
 * frames to this CPU are still queued: it lines up behind them in this
 * CPU's queue, then moves to the fast path once its frames there are out,
 * and so are the others' before them. */
static void test_cold_fastpath_lines_up_behind_the_queue(void)
{
	struct drain_case c;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT))
		return;
	/* R received and queued 5 frames to L; L has taken 3. */
	if (!other_rx_queued_lately() || !ring(local_cpu, 5, 3, BUSY_NOW()))
		return;

	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame goes through L's own queue, not the fast path");
	EXPECT_EQ(queued_to(local_cpu), 1, "queued to L");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "and so does the next, while its first is queued");

	/* L took R's last two and ours, and is idle. */
	if (!marked(local_cpu, 2, 5) || !ring(local_cpu, 7, 7, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "once the queue is out, the bucket takes the fast path");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
}

/* R queues frames (to anywhere: L cannot know where), and nothing says
 * any of them went to L: the cold bucket still goes through L's own queue
 * first, with the window shut, and takes the fast path once its own frame
 * there is out. */
static void test_cold_fastpath_goes_through_its_own_queue_first(void)
{
	struct drain_case c;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut") ||
	    !other_rx_queued_lately())
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame is queued to L");
	EXPECT_EQ(queued_to(local_cpu), 1, "stamped, the window shut or not");
	EXPECT_EQ(bucket_state(&c).target, local_cpu, "the bucket is recorded as queued to L");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "while it is queued, so is the next");
	if (!marked(local_cpu, 2, 0) || !ring(local_cpu, 2, 2, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "out and L idle: the fast path");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
	EXPECT(!window().open, "this CPU's own move never opened the window");
	EXPECT_EQ(stats().rxq_moves, 0, "the queue's first frames here count as no move");
}

static bool queue_was_on(int cpu);

/* No other receiving CPU has queued a frame within the drain timeout (L
 * is the only one, or the others queued longer ago): nothing of the
 * bucket can wait in L's own queue, so a cold bucket takes the fast path
 * at its first frame, window open or shut. Before, it went through L's
 * own queue, and one flow that never paused stayed there for good. */
static void test_cold_fastpath_is_direct_when_no_other_cpu_queues(void)
{
	struct drain_case c;
	__u64 j = 0;
	int i;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "the window open, the first frame takes the fast path");
	for (i = 0; i < 100; i++)
		EXPECT_EQ(send_frame(&c.f), XDP_PASS, "and so does every next one");
	EXPECT_EQ(queued_to(local_cpu), 0, "nothing went through L's own queue");
	EXPECT_EQ(bucket_state(&c).target, STEER_TARGET_LOCAL | local_cpu,
		  "the bucket is recorded as passed here");

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut") ||
	    !EXPECT_EQ(clock_jiffies64(&j), 0, "jiffies were read") ||
	    !EXPECT_EQ(steer_prog_queued_tick(&prog, remote_cpu,
					      j - short_ticks() - 1), 0,
		       "R last queued a frame a drain timeout ago"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "the window shut, R's queueing older than the timeout: the fast path");
	EXPECT_EQ(queued_to(local_cpu), 0, "nothing went through L's own queue");
	EXPECT_EQ(stats().moves_done + stats().moves_idle, 0, "no move counted");
}

/* The cold fast path's case: c's bucket on L under the fast path, the
 * window shut, 'slots' receiver slots (0: all), a frame o of another
 * bucket on R, and x of a third bucket, on L. */
static bool cold_case(struct drain_case *c, int slots, struct frame *o,
		      struct frame *x)
{
	__u16 sport;

	if (!setup(c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    (slots && !EXPECT_EQ(steer_prog_rx_slots(&prog, slots), 0,
				 "the receiver slots were set")) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut") ||
	    !other_frame(c, o) ||
	    !EXPECT_EQ(steer_prog_set_bucket(&prog, 0, bucket_of(o, &c->s),
					     remote_cpu), 0,
		       "o's bucket is on R"))
		return false;
	for (sport = SPORT + 1; sport != SPORT; sport++) {
		udp_frame(x, sport);
		if (bucket_of(x, &c->s) != c->bucket &&
		    bucket_of(x, &c->s) != bucket_of(o, &c->s))
			return true;
	}
	return EXPECT(false, "a frame of a third bucket exists");
}

/* The tick a CPU queues in is the program's own note. L queues a frame to
 * R: L's own queueing makes no marker. Then R queues a frame to L (the
 * window shut: unstamped, its steady state), and a bucket cold on L's
 * fast path goes through L's own queue. */
static void test_cold_fastpath_sees_a_frame_another_cpu_queued(void)
{
	struct drain_case c;
	struct frame o, x;
	__u64 moves;

	if (!cold_case(&c, 0, &o, &x))
		return;
	EXPECT_EQ(send_frame(&o), XDP_REDIRECT, "L queues o to R");
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "L's own queueing: the cold bucket takes the fast path");

	if (!EXPECT_EQ(steer_pin_cpu(remote_cpu), remote_cpu, "the test runs on R"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "on R, a frame of a bucket on L is queued to L");
	if (!EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again") ||
	    !queue_was_on(local_cpu))
		return;
	moves = stats().rxq_moves;
	EXPECT_EQ(send_frame(&x), XDP_REDIRECT, "R queued lately: a cold bucket goes through L's own queue");
	EXPECT_EQ(queued_to(local_cpu), 1, "stamped, to L");
	EXPECT_EQ(stats().rxq_moves, moves, "for R's queueing: the receive queue is plainly L's");
}

/* ---- a receive queue moving between CPUs --------------------------------- */

/* R queued 'entered' frames to L's own queue, lately, of which L took
 * 'taken' (with ours, as its ring counts them), L busy. */
static bool other_rx_queued(__u32 entered, __u32 taken)
{
	return other_rx_queued_lately() &&
	       ring(local_cpu, entered, taken, BUSY_NOW());
}

/* Test runs receive on queue 0 (loopback's): say it was on 'cpu' last. */
static bool queue_was_on(int cpu)
{
	return EXPECT_EQ(steer_prog_rxq_on(&prog, 0, cpu), 0,
			 "the receive queue's last CPU was written");
}

/* The bucket is warm on L's fast path; then its receive queue moves here
 * from R, which had queued 5 frames to L, 3 of them dequeued so far. From
 * the move the bucket's frames go through L's own queue, the first as the
 * marker, behind R's; once the marker is out, back to the fast path. */
static void test_queue_moved_here_waits_for_its_old_cpu(void)
{
	struct drain_case c;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut") ||
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f, 1))
		return;
	/* Our warm-up's frame, and R's 5, 3 of them taken. */
	if (!queue_was_on(remote_cpu) || !other_rx_queued(6, 4))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "after the queue moved here, its frames go through L's own queue");
	EXPECT_EQ(stats().rxq_moves, 1, "the move is counted in rxq_moves");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "and so does the next, while the marker is queued");
	EXPECT_EQ(queued_to(local_cpu), 3, "both queued to L, after the warm-up's");

	/* L took R's last two and our two more, and is idle. */
	if (!marked(local_cpu, 3, 6) || !ring(local_cpu, 8, 8, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "once they are out, the bucket is back on the fast path");
	EXPECT_EQ(stats().moves_done, 3, "warm-up, off the fast path and back: counted in moves_done");
	EXPECT_EQ(stats().rxq_moves, 1, "one move in all");
	EXPECT(!window().open, "the window stayed shut");
}

/* The marker alone decides: a queue moving here from a CPU that sent
 * nothing here gives the fast path back once the marker is out. */
static void test_queue_moved_here_resumes_once_its_marker_is_out(void)
{
	struct drain_case c;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f, 1) ||
	    !queue_was_on(remote_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame after the move is the marker, in L's queue");
	EXPECT_EQ(stats().rxq_moves, 1, "the move is counted");
	if (!marked(local_cpu, 2, 1) || !ring(local_cpu, 2, 2, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "the marker out, the fast path goes on");
	EXPECT_EQ(queued_to(local_cpu), 2, "only the warm-up's frame and the marker were queued");
}

/* R's frames to L do not come out: L's kthread takes nothing for four
 * drain timeouts (starved, or its CPU stopped). The fast path stays held
 * behind them, the marker waited for however long it takes: no clock
 * gives it back. Once L takes and hands on everything, it comes back. */
static void test_queue_moved_here_waits_for_its_marker_however_long(void)
{
	struct drain_case c;
	__u32 t0, marker;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()) ||
	    !queue_was_on(remote_cpu) || !other_rx_queued(5, 3))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the queue's first frame here is the marker, in L's queue");
	marker = queued_to(local_cpu);
	t0 = jiffies();
	while (jiffies() - t0 < 4 * short_ticks()) {
		if (!poll_ended() ||
		    !EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT,
			       "while L takes nothing, the fast path stays held"))
			return;
		sleep_us(1000);
	}
	EXPECT_EQ(stats().moves_timeout, 0, "four drain timeouts later, no timeout ended the wait");
	if (!marked(local_cpu, queued_to(local_cpu), 10) ||
	    !ring(local_cpu, 5 + queued_to(local_cpu),
		  5 + queued_to(local_cpu), IDLE_SINCE()))
		return;
	EXPECT(marker == 1, "the marker was the first frame queued");
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "once L handed everything on, the fast path is back");
	EXPECT_EQ(stats().moves_timeout, 0, "still no timeout");
}

/* The marker went into L's ring without a stamp (no key, or no headroom
 * for it): no mark can ever name it, so the ring itself must show it is
 * out, gone idle with everything that entered taken off, not a timer. */
static void test_queue_moved_here_waits_for_an_unstamped_marker_by_its_ring(void)
{
	struct drain_case c;
	__u32 t0;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()) ||
	    !queue_was_on(remote_cpu) || !other_rx_queued(5, 3) ||
	    !EXPECT_EQ(steer_prog_set_stamp_key(&prog, 0), 0,
		       "the stamps' key was unset"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the queue's first frame here is the marker, in L's queue");
	EXPECT_EQ(stats().unstamped, 1, "unstamped");
	t0 = jiffies();
	while (jiffies() - t0 < 4 * short_ticks()) {
		if (!poll_ended() ||
		    !EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT,
			       "while L's ring holds frames, the fast path stays held"))
			goto out;
		sleep_us(1000);
	}
	EXPECT_EQ(stats().moves_timeout, 0, "four drain timeouts later, no timeout ended the wait");
	/* The last frame held left this CPU with a poll's end, and the ring
	 * took everything that entered it. */
	if (!poll_ended() ||
	    !ring(local_cpu, 5 + queued_to(local_cpu), 5 + queued_to(local_cpu),
		  IDLE_SINCE()))
		goto out;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "once L's ring is empty and idle, the fast path is back");
	EXPECT_EQ(stats().moves_timeout, 0, "still no timeout");
out:
	steer_prog_set_stamp_key(&prog, STEER_TEST_STAMP_KEY);
}

/* The marker cannot be queued: this CPU has no cpumap entry of its own
 * (its frames to itself are passed here, the marker too). The frames R
 * queued here before the entry went are the kernel's to flush as it
 * frees the entry (its kthread empties the ring before it stops): the
 * wait ends at the drain timeout, counted. The loader never leaves a CPU
 * of the policy in force without its entry. */
static void test_queue_moved_here_without_an_entry_gives_the_fast_path_back_at_the_timeout(void)
{
	struct drain_case c;
	__u32 j0, waited = 0;
	__u64 t0;
	int v = XDP_PASS, err;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()) ||
	    !queue_was_on(remote_cpu) || !other_rx_queued(5, 3) ||
	    !EXPECT_EQ(steer_prog_del_cpu(&prog, local_cpu), 0,
		       "L's cpumap entry was deleted"))
		return;
	/* The wait in jiffies, the datapath's clock (a guest's jiffies may
	 * catch up several ticks at once). */
	t0 = now_ns();
	j0 = jiffies();
	while (now_ns() - t0 < 20 * ticks_ns(short_ticks())) {
		send_frame(&c.f);
		if (stats().passed_local) {
			v = XDP_PASS;
			waited = jiffies() - j0;
			break;
		}
		v = -1;
		sleep_us(1000);
	}
	err = steer_prog_add_cpu(&prog, local_cpu, QSIZE, prog.worker_fd);
	EXPECT_EQ(err, 0, "L's cpumap entry was put back");
	EXPECT_EQ(v, XDP_PASS, "the bucket came back to the fast path");
	EXPECT(waited >= short_ticks(), "not before the drain timeout");
	EXPECT(stats().moves_timeout >= 1, "counted in moves_timeout");
}

/* A queue's first frame here (after attach: no CPU passed one yet), while
 * another CPU queues frames, is the marker; it is out before the traffic
 * pauses for longer than the drain timeout. The next frame finds the wait
 * over by evidence, not by the timeout: a pause is no stall (the peer's
 * own IPv6 frames before a test's traffic did this). */
static void test_queue_marker_out_before_a_pause_is_no_timeout(void)
{
	struct drain_case c;
	__u32 t0;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()) ||
	    !other_rx_queued_lately())
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the queue's first frame here is the marker, in L's queue");
	if (!marked(local_cpu, 1, 0) || !ring(local_cpu, 1, 1, IDLE_SINCE()))
		return;
	t0 = jiffies();
	while (jiffies() - t0 < 2 * short_ticks())
		sleep_us(2000);
	send_frame(&c.f);
	EXPECT_EQ(stats().moves_timeout, 0, "the marker was out: no move ended by the timeout");
	if (!marked(local_cpu, queued_to(local_cpu), 1) ||
	    !ring(local_cpu, 2, 2, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "and the fast path is back");
}

/* A queue moved here, its marker is queued to L behind R's frames, and
 * then the whole CPU stands still for longer than the drain timeout (a
 * hypervisor's pause; no frame, no kthread). After it the marker is still
 * queued and L's count moves again: the bucket keeps waiting, as a
 * bucket's drain does, and takes the fast path once the marker is out,
 * with no timeout counted. Only a queue that stands still for the
 * timeout while frames look at it is a stall. */
static void test_queue_moved_here_waits_through_a_pause(void)
{
	struct drain_case c;
	__u32 t0, marker;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()) ||
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f, 1) ||
	    !queue_was_on(remote_cpu) || !other_rx_queued(6, 4))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame after the move is the marker, in L's queue");
	marker = queued_to(local_cpu);
	t0 = jiffies();
	while (jiffies() - t0 < 2 * short_ticks())
		sleep_us(2000);
	/* L took R's two and is at work again, the marker next. */
	if (!marked(local_cpu, marker - 1, 0) ||
	    !ring(local_cpu, 8, 6, BUSY_NOW()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "after the pause the marker is still queued: still through L's queue");
	EXPECT_EQ(stats().moves_timeout, 0, "a pause is no stall: no timeout counted");
	if (!other_rx_queued_lately() ||
	    !marked(local_cpu, marker + 1, 6) ||
	    !ring(local_cpu, 9, 9, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "the marker out, the fast path is back");
	EXPECT_EQ(stats().moves_timeout, 0, "still no timeout");
}

/* The other tests say where a queue was by writing its word; here the
 * program itself moves it: R takes the queue with a frame bound for its
 * own fast path, as R's NAPI would, and when the queue comes back L sees
 * the move in the word R wrote and holds its warm bucket off the fast
 * path. */
static void test_queue_taken_by_another_cpu_is_seen_when_it_comes_back(void)
{
	struct drain_case c;
	int verdict;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f, 1) ||
	    !EXPECT_EQ(send_frame(&c.f), XDP_PASS, "warm, its queue L's: the fast path"))
		return;
	if (!move_to(&c, remote_cpu) ||
	    !EXPECT_EQ(steer_pin_cpu(remote_cpu), remote_cpu, "the test runs on R"))
		return;
	verdict = send_frame(&c.f);
	EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again");
	EXPECT_EQ(verdict, XDP_REDIRECT, "on R the queue's first frame goes through R's own queue");
	EXPECT_EQ(stats().rxq_moves, 1, "R counted the move from L");
	if (!move_to(&c, local_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "back on L, the queue's first frame goes through L's own queue, not the fast path");
	EXPECT_EQ(stats().rxq_moves, 2, "L counted the move back");
}

/* The queue leaves L for R, which sends every frame of it elsewhere (here
 * to L itself: the bucket's table CPU), then comes back to L: L sees it
 * left, and its fast path waits behind what R queued to L meanwhile. */
static void test_queue_back_by_way_of_a_cpu_that_passes_none_is_seen(void)
{
	struct drain_case c;
	int verdict;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f, 1) ||
	    !EXPECT_EQ(send_frame(&c.f), XDP_PASS, "warm, its queue L's: the fast path"))
		return;
	if (!EXPECT_EQ(steer_pin_cpu(remote_cpu), remote_cpu, "the test runs on R"))
		return;
	verdict = send_frame(&c.f);
	EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again");
	EXPECT_EQ(verdict, XDP_REDIRECT, "on R the queue's frame is queued to L, the bucket's CPU");
	EXPECT_EQ(stats().rxq_moves, 1, "R counted the move from L");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "back on L, the queue's first frame goes through L's own queue, not the fast path");
	EXPECT_EQ(stats().rxq_moves, 2, "L counted the move back");
}

/* A queue moves here from R, and its first frame here is queued (to R,
 * its bucket's CPU): this CPU takes the queue as one that queued its
 * frames. The next frame, of a bucket warm on this CPU's fast path, still
 * waits out the move through this CPU's own queue, and the move is
 * counted once. */
static void test_queue_taken_by_a_queued_frame_still_holds_the_fast_path(void)
{
	struct drain_case c;
	struct frame o;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f, 1) ||
	    !EXPECT_EQ(send_frame(&c.f), XDP_PASS, "warm, its queue L's: the fast path") ||
	    !other_frame(&c, &o) ||
	    !EXPECT_EQ(steer_prog_set_bucket(&prog, 0, bucket_of(&o, &c.s),
					     remote_cpu), 0,
		       "the other bucket was put on R") ||
	    !queue_was_on(remote_cpu))
		return;
	EXPECT_EQ(send_frame(&o), XDP_REDIRECT, "the queue's first frame here is queued to R");
	EXPECT_EQ(stats().rxq_moves, 1, "the move from R counted");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the warm bucket's next frame goes through L's own queue, not the fast path");
	EXPECT_EQ(stats().rxq_moves, 1, "the move counted once");
}

/* L held the receive queue only as one whose frames it queued (every
 * bucket on R), and no other CPU queues: a bucket put on L then takes the
 * fast path at its first frame, the queue needing no marker (before,
 * this was the one flow at saturation that stayed in L's own queue). */
static void test_queue_held_as_queued_gives_the_fast_path_when_no_other_cpu_queues(void)
{
	struct drain_case c;
	struct frame o;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, remote_cpu, NO_TIMEOUT) ||
	    !other_frame(&c, &o))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "every bucket on R: the frame is queued to R");
	if (!EXPECT_EQ(steer_prog_set_bucket(&prog, 0, bucket_of(&o, &c.s),
					     local_cpu), 0,
		       "the other bucket was put on L"))
		return;
	EXPECT_EQ(send_frame(&o), XDP_PASS, "its first frame takes L's fast path");
	EXPECT_EQ(queued_to(local_cpu), 0, "nothing went through L's own queue");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first bucket's frames still go to R");
	EXPECT_EQ(stats().rxq_moves, 0, "no receive queue move counted");
}

/* R's record of the bucket: its last frame went to 'target' at jiffies
 * 'last'. */
static bool record_on_remote(const struct drain_case *c, __u16 target,
			     __u32 last)
{
	return EXPECT_EQ(steer_prog_bucket_at(&prog, remote_cpu, c->record,
					      target, last), 0,
			 "R's record was written");
}

/* This CPU's steer_rxmove says the last queue to move here came from
 * 'cpu' at jiffies 'at'. */
static bool moved_from(int cpu, __u32 at)
{
	struct steer_rxmove v[prog.ncpus];
	__u32 zero = 0;
	int err;

	err = bpf_map_lookup_elem(prog.steer_rxmove, &zero, v) ? -errno : 0;
	if (!err) {
		v[local_cpu].from = cpu + 1;
		v[local_cpu].from_at = at;
		err = bpf_map_update_elem(prog.steer_rxmove, &zero, v,
					  BPF_ANY) ? -errno : 0;
	}
	return EXPECT_EQ(err, 0, "the queue's old CPU was written");
}

/* A policy change moved the bucket from R's queue to L; R was still
 * holding its frames on R (its record warm there) when their receive
 * queue moved to L. L's record is cold: L's frames go to R first, behind
 * R's, and the bucket moves to L once R has dequeued them. */
static void test_bucket_cold_here_follows_the_queues_old_cpu_to_its_target(void)
{
	struct drain_case c;
	struct steer_bucket b;

	if (!setup(&c, 0, local_cpu, NO_TIMEOUT) ||
	    !record_on_remote(&c, remote_cpu, jiffies()) ||
	    !queue_was_on(remote_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame here is queued");
	EXPECT_EQ(queued_to(remote_cpu), 1, "to R, behind R's own frames there");
	EXPECT_EQ(queued_to(local_cpu), 0, "not to L, the table's CPU");
	b = bucket_state(&c);
	EXPECT_EQ(b.target, remote_cpu, "this CPU's record says R");
	EXPECT(b.since != 0, "and that the bucket drains from there");
	EXPECT_EQ(stats().drain_held, 1, "counted in drain_held");
	EXPECT_EQ(stats().rxq_moves, 1, "the queue's move counted");
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 2, "while R has taken nothing, the next goes there too");
	if (!marked(remote_cpu, 2, 1) || !ring(remote_cpu, 2, 2, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R took ours and went idle, the bucket moves to L");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
}

/* Nothing to follow: the old CPU's record is cold (its frames long
 * delivered), or its frames were passed there (they reached the stack
 * before its last poll of the queue ended). */
static void test_bucket_cold_here_goes_straight_when_the_old_cpu_held_nothing(void)
{
	struct drain_case c;

	if (!setup(&c, 0, local_cpu, NO_TIMEOUT) ||
	    !record_on_remote(&c, remote_cpu,
		       jiffies() - NO_TIMEOUT - 1) ||
	    !queue_was_on(remote_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued");
	EXPECT_EQ(queued_to(local_cpu), 1, "to L at once: R's record is cold");
	EXPECT_EQ(queued_to(remote_cpu), 0, "nothing to R");

	if (!setup(&c, 0, local_cpu, NO_TIMEOUT) ||
	    !record_on_remote(&c, STEER_TARGET_LOCAL | remote_cpu,
		       jiffies()) ||
	    !queue_was_on(remote_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued");
	EXPECT_EQ(queued_to(local_cpu), 1, "to L at once: R passed its frames on its fast path");
	EXPECT_EQ(queued_to(remote_cpu), 0, "nothing to R");
	EXPECT_EQ(stats().drain_held, 0, "nothing held");

	/* R's record warm, but the queue came from R longer than the drain
	 * timeout ago: R's frames of the queue are long delivered. */
	if (!setup(&c, 0, local_cpu, NO_TIMEOUT) ||
	    !record_on_remote(&c, remote_cpu, jiffies()) ||
	    !queue_was_on(local_cpu) ||
	    !moved_from(remote_cpu, jiffies() - NO_TIMEOUT - 1))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued");
	EXPECT_EQ(queued_to(local_cpu), 1, "to L at once: the queue's move is older than the timeout");
	EXPECT_EQ(queued_to(remote_cpu), 0, "nothing to R");
}
/* ---- receiver slots (struct steer_rx_pool) ---------------------------------- */

/* CPU 'cpu''s own steer_stats line: its cache of its slot (rx_slot) and
 * its no_rx_slot count. */
static struct steer_stats stats_on(int cpu)
{
	struct steer_stats v[prog.ncpus], st = {};
	__u32 zero = 0;

	if (!bpf_map_lookup_elem(prog.steer_stats, &zero, v))
		st = v[cpu];
	return st;
}

static struct steer_rx_pool rx_pool(void)
{
	struct steer_rx_pool pool = {};
	__u32 zero = 0;

	bpf_map_lookup_elem(prog.steer_rx_pool, &zero, &pool);
	return pool;
}

/* Which CPU holds slot 's' (steer_rx_cpu): 1 + its id, 0: none. */
static __u32 rx_cpu_of(__u32 s)
{
	__u32 v = ~0u;

	bpf_map_lookup_elem(prog.steer_rx_cpu, &s, &v);
	return v;
}

/* No slot is handed out; R queues first, then L (every bucket on L, no
 * fast path: both queue to L): R takes slot 0 and L slot 1, whatever their
 * CPU ids, each caching it, and L's stamps count in slot 1's row. */
static void test_a_cpus_first_queued_frame_claims_the_next_receiver_slot(void)
{
	struct drain_case c;
	__u32 key, seq = 0;

	if (!setup(&c, 0, local_cpu, NO_TIMEOUT))
		return;
	EXPECT_EQ(rx_pool().claimed, 0, "no slot is handed out after a reset");
	if (!EXPECT_EQ(steer_pin_cpu(remote_cpu), remote_cpu, "the test runs on R"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "on R, the frame is queued to L");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "and the next");
	if (!EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again"))
		return;
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), 0, "R, the first to queue, holds slot 0");
	EXPECT_EQ(rx_cpu_of(0), (__u32)remote_cpu + 1, "slot 0 names R");
	EXPECT_EQ((__u32)stats_on(remote_cpu).rx_slot, 1, "R caches its slot (slot + 1) in its own stats line");
	EXPECT_EQ(rx_pool().claimed, 1, "R asked once, for two frames");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), -1, "L, which queued nothing yet, holds none");

	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "on L, the frame is queued to L");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), 1, "L holds the next slot, 1");
	EXPECT_EQ(rx_cpu_of(1), (__u32)local_cpu + 1, "slot 1 names L");
	EXPECT_EQ((__u32)stats_on(local_cpu).rx_slot, 2, "L caches it");
	EXPECT_EQ(rx_pool().claimed, 2, "two slots handed out");
	key = 1 * STEER_TARGETS + local_cpu;
	bpf_map_lookup_elem(prog.steer_seq, &key, &seq);
	EXPECT_EQ(seq, 1, "L's stamp to L counts in slot 1's stream");
	key = 0 * STEER_TARGETS + local_cpu;
	bpf_map_lookup_elem(prog.steer_seq, &key, &seq);
	EXPECT_EQ(seq, 2, "R's two in slot 0's");
	EXPECT_EQ(stats().no_rx_slot, 0, "no frame went without a slot");
}

/* A slot held in steer_rx_slot but missing from the CPU's cache (its
 * stats line zeroed): the CPU takes its own back, and asks for no other. */
static void test_a_cpu_that_lost_its_cache_takes_its_own_slot_back(void)
{
	struct drain_case c;

	if (!setup(&c, 0, local_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	if (!EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), 0, "L holds slot 0") ||
	    !EXPECT_EQ(steer_prog_queued_tick(&prog, local_cpu, 0), 0, "L's tick was forgotten"))
		return;
	{
		struct steer_stats v[prog.ncpus];
		__u32 zero = 0;

		if (!EXPECT_EQ(bpf_map_lookup_elem(prog.steer_stats, &zero, v), 0,
			       "the stats were read"))
			return;
		v[local_cpu].rx_slot = 0;
		if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_stats, &zero, v,
						   BPF_ANY), 0, "L's cache was zeroed"))
			return;
	}
	send_frame(&c.f);
	EXPECT_EQ((__u32)stats_on(local_cpu).rx_slot, 1, "L caches slot 0 again");
	EXPECT_EQ(rx_pool().claimed, 1, "and asked for no other");
	EXPECT_EQ(queued_to(local_cpu), 2, "its stamps go on in slot 0's stream");
}

/* Two frames queued to R, one on L, one on R: each counts in its
 * receiving CPU's slot's row of steer_queued (only that CPU writes it),
 * whatever that CPU's id; none in the row of the CPUs without a slot. */
static void test_each_cpu_counts_what_it_queued_in_its_slots_row(void)
{
	struct drain_case c;
	int l, r;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_reset_stats(&prog), 0, "counters zeroed"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "on L, the frame is queued to R");
	if (!EXPECT_EQ(steer_pin_cpu(remote_cpu), remote_cpu, "the test runs on R"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "on R, the frame is queued to R (no fast path)");
	if (!EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again"))
		return;
	l = steer_prog_rx_slot_of(&prog, local_cpu, false);
	r = steer_prog_rx_slot_of(&prog, remote_cpu, false);
	if (!EXPECT(l >= 0 && r >= 0 && l != r, "L and R hold a slot each"))
		return;
	EXPECT_EQ(row_sent(l, remote_cpu), 1, "L's row counts L's frame to R");
	EXPECT_EQ(row_sent(r, remote_cpu), 1, "R's row counts R's frame to R");
	EXPECT_EQ(row_sent(prog.rx_rows, remote_cpu), 0, "the row of CPUs without a slot counts none");
}

/* One slot, R's; L, without one, queues a non-IP frame to R (a rule's
 * or non-IP frame is queued whatever the slots): it counts in the row of
 * the CPUs without a slot, the last, so what was sent to R stays whole. */
static void test_a_cpu_without_a_slot_counts_what_it_queued_in_the_shared_row(void)
{
	struct drain_case c;
	struct frame a;
	struct steer_cpu_stats cs = {};

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_rx_slots(&prog, 1), 0, "one receiver slot") ||
	    !EXPECT_EQ(steer_prog_reset_stats(&prog), 0, "counters zeroed"))
		return;
	c.s.nonip_cpu = remote_cpu;
	if (!EXPECT_EQ(commit(&c.s), 0, "non-IP frames go to R"))
		return;
	if (!EXPECT_EQ(steer_pin_cpu(remote_cpu), remote_cpu, "the test runs on R"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "on R, the frame is queued to R");
	if (!EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, slotless, the table frame is passed here");
	frame_init(&a);
	frame_eth(&a, ETH_P_ARP);
	frame_arp(&a, 1, "10.0.0.1", "10.0.0.2");
	EXPECT_EQ(send_frame(&a), XDP_REDIRECT, "on L, the non-IP frame is queued to R");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), -1, "L holds no slot");
	EXPECT_EQ(row_sent(prog.rx_rows, remote_cpu), 1, "the shared row counts L's frame to R");
	EXPECT_EQ(row_sent(0, remote_cpu), 1, "R's row (slot 0) counts R's own");
	EXPECT_EQ(steer_prog_read_cpu_stats(&prog, remote_cpu, &cs), 0, "the rows could be summed");
	EXPECT_EQ(cs.packets, 2, "what was sent to R is both");
	EXPECT_EQ(cs.bytes, c.f.len + a.len, "and their bytes");
}

/* One slot (the knob's least), which R takes; then a table frame on L:
 * L finds none, and with no row for its drain records it passes the
 * frame here, counted, rather than queue it to the table's CPU with no
 * record ("immediate", which a move would reorder); so does every table
 * frame of L's, the bucket moved in the table or not. */
static void test_a_cpu_without_a_slot_passes_its_table_frames_here_counted(void)
{
	struct drain_case c;
	int i;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_rx_slots(&prog, 1), 0, "one receiver slot"))
		return;
	if (!EXPECT_EQ(steer_pin_cpu(remote_cpu), remote_cpu, "the test runs on R"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "on R, the frame is queued to R");
	if (!EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again"))
		return;
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), 0, "R holds the only slot");

	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, slotless, the frame is passed here, not queued to R");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), -1, "L holds no slot");
	EXPECT_EQ((__u32)stats_on(local_cpu).rx_slot, STEER_RX_SLOT_NONE, "L caches that it has none, for the tick");
	EXPECT_EQ(stats_on(local_cpu).no_rx_slot, 1, "its frame counts in no_rx_slot");
	EXPECT_EQ(stats_on(local_cpu).passed_local, 1, "and in passed_local");
	EXPECT(rx_pool().overflow_tick != 0, "the pool notes the tick in which a CPU found no slot");
	if (!move_to(&c, local_cpu))
		return;
	for (i = 0; i < 3; i++) {
		if (!poll_ended() || !ring(remote_cpu, 10, 10, IDLE_SINCE()))
			return;
		EXPECT_EQ(send_frame(&c.f), XDP_PASS, "moved to L, the bucket's frame is passed here still");
	}
	EXPECT_EQ(row_sent(prog.rx_rows, remote_cpu), 0, "none of L's frames to R");
	EXPECT_EQ(row_sent(prog.rx_rows, local_cpu), 0, "none to L's queue");
	EXPECT_EQ(stats().moves_done + stats().moves_idle + stats().moves_timeout, 0,
		  "no move of any kind");
	EXPECT_EQ(stats_on(local_cpu).no_rx_slot, 4, "every frame of L's counts");
	EXPECT_EQ(rx_pool().claimed, 1, "L took nothing from a pool it read as full: 'claimed' stays at the limit");
}

/* One slot, L's. R, without a slot, passes its table frame on R; its
 * failed claim notes a tick in the pool (overflow_tick), since a slotless
 * CPU may still queue (a rule's frames): L cannot find R among the slots,
 * so a bucket cold on L's fast path goes through L's own queue, behind
 * whatever R may have queued. */
static void test_a_cpu_without_a_slot_holds_a_cold_bucket_off_the_fast_path(void)
{
	struct drain_case c;
	struct frame o, x;

	if (!cold_case(&c, 1, &o, &x))
		return;
	EXPECT_EQ(send_frame(&o), XDP_REDIRECT, "L queues o to R");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), 0, "L holds the only slot");
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "no other CPU queued: the cold bucket takes the fast path");

	if (!EXPECT_EQ(steer_pin_cpu(remote_cpu), remote_cpu, "the test runs on R"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on R, slotless, a frame of a bucket on L is passed on R");
	if (!EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again") ||
	    !queue_was_on(local_cpu))
		return;
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), -1, "R holds no slot");
	EXPECT_EQ(send_frame(&x), XDP_REDIRECT, "R, slotless, queued lately: a cold bucket goes through L's own queue");
	EXPECT_EQ(queued_to(local_cpu), 1, "stamped, to L");
}

/* ---- receiver slots taken over (steer_slot.rx_lease) ---------------------- */

/* The lease of the cases below, in jiffies: short, so that a slot's tick
 * set by hand this far back is idle past it, and the tick of a CPU that
 * held it within a few ticks is not. */
#define LEASE		50

/* A case with 'slots' receiver slots and a lease of LEASE. */
static bool lease_case(struct drain_case *c, int from, __u32 slots)
{
	if (!setup(c, 0, from, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_rx_slots(&prog, slots), 0, "the receiver slots were set"))
		return false;
	c->s.rx_lease = LEASE;
	return EXPECT_EQ(commit(&c->s), 0, "the lease was written");
}

/* Slot 's''s lease (steer_rx_lease). */
static struct steer_rx_lease rx_lease_of(__u32 s)
{
	struct steer_rx_lease l = {};

	bpf_map_lookup_elem(prog.steer_rx_lease, &s, &l);
	return l;
}

/* Slot 's' last held 'ago' ticks ago, as its CPU's first frame of that
 * tick would have written it. */
static bool rx_held_ago(__u32 s, __u32 ago)
{
	struct steer_rx_lease l = rx_lease_of(s);

	l.tick = jiffies() - ago;
	return EXPECT_EQ(bpf_map_update_elem(prog.steer_rx_lease, &s, &l, BPF_ANY),
			 0, "the slot's tick was written");
}

/* A NAPI poll ended on 'cpu', now. */
static bool poll_ended_on(int cpu)
{
	return EXPECT_EQ(steer_prog_polls(&prog, cpu, stats_on(cpu).napi_polls + 1,
					  jiffies()), 0, "a poll's end was written");
}

/* Waits for the next tick: a CPU checks its slot at its first frame of a
 * tick, and a tick set back by hand (rx_held_ago()) stands for ticks gone
 * by only once the CPU's own check of this tick is behind it. */
static void next_tick(void)
{
	__u32 t = jiffies();

	while (jiffies() == t)
		usleep(1000);
}

/* A frame of the table on 'cpu': its verdict. */
static int send_on(int cpu, const struct frame *f)
{
	int v;

	if (!EXPECT_EQ(steer_pin_cpu(cpu), cpu, "the test runs on the CPU"))
		return -1;
	v = send_frame(f);
	EXPECT_EQ(steer_pin_cpu(local_cpu), local_cpu, "the test runs on L again");
	return v;
}

/* One slot, R's, idle past the lease; a table frame on L, which finds
 * every slot taken: L takes R's over, by its first frame, and R's entry
 * no longer names it (a CPU that lost its cache finds none, not this
 * one). L passed its frames here until then, without a slot: it goes on
 * passing them here, slot held, until a poll of its own has ended (they
 * may still be in its GRO lists); then it queues them as the table says,
 * with a record in that slot's row. */
static void test_a_slot_idle_past_the_lease_goes_to_a_cpu_that_finds_none(void)
{
	struct drain_case c;
	__u32 before;

	if (!lease_case(&c, remote_cpu, 1))
		return;
	send_on(remote_cpu, &c.f);
	if (!EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), 0, "R holds the only slot") ||
	    !rx_held_ago(0, LEASE + 10))
		return;
	before = jiffies();
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, the frame of the takeover is passed here");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), 0, "L holds slot 0");
	EXPECT_EQ(rx_cpu_of(0), (__u32)local_cpu + 1, "slot 0 names L");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), -1, "R's entry names no slot");
	EXPECT_EQ(stats_on(local_cpu).rx_slot_takeovers, 1, "L counts one takeover");
	EXPECT((__s32)(rx_lease_of(0).tick - before) >= 0, "slot 0's tick is L's, of now");
	EXPECT_EQ(rx_lease_of(0).pending, 1, "not used until a poll of L's has ended");
	EXPECT_EQ(rx_pool().claimed, 1, "no slot was claimed past the limit");
	if (!poll_ended() )
		return;
	next_tick();
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "a poll later, the frame is queued to R, as the table says");
	EXPECT_EQ((__u32)stats_on(local_cpu).rx_slot, 1, "L caches slot 0");
	EXPECT_EQ(rx_lease_of(0).pending, 0, "the slot is in use");
	EXPECT_EQ(stats_on(local_cpu).no_rx_slot, 1, "only the takeover's frame went without a slot");
	EXPECT_EQ(bucket_state(&c).target, remote_cpu, "L's record of the bucket, in slot 0's row, says R");
}

/* After a takeover, L passes its table frames here, tick after tick, for
 * as long as no poll of its own has ended; the first frame after one uses
 * the slot. */
static void test_a_cpu_that_took_a_slot_over_uses_it_once_a_poll_of_its_own_ended(void)
{
	struct drain_case c;
	int i;

	if (!lease_case(&c, remote_cpu, 1) ||
	    !EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, true), 0, "R holds the only slot") ||
	    !rx_held_ago(0, LEASE + 10))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, the frame of the takeover is passed here");
	for (i = 0; i < 3; i++) {
		next_tick();
		EXPECT_EQ(send_frame(&c.f), XDP_PASS, "a tick later, no poll ended: passed here still");
	}
	EXPECT_EQ(stats_on(local_cpu).no_rx_slot, 4, "each counted in no_rx_slot");
	EXPECT_EQ(rx_cpu_of(0), (__u32)local_cpu + 1, "slot 0 names L all along");
	if (!poll_ended())
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "a poll ended, in the same tick: the tick's look is done, passed here");
	next_tick();
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the next tick: queued to R with the slot");
	EXPECT_EQ(stats_on(local_cpu).no_rx_slot, 5, "no more frames without a slot");
}

/* One slot, R's, held a few ticks ago (within the lease): L finds none,
 * passes its table frame here, and takes nothing over. */
static void test_a_slot_held_within_the_lease_is_not_taken_over(void)
{
	struct drain_case c;

	if (!lease_case(&c, remote_cpu, 1))
		return;
	send_on(remote_cpu, &c.f);
	if (!rx_held_ago(0, LEASE - 10))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, slotless, the frame is passed here");
	EXPECT_EQ(rx_cpu_of(0), (__u32)remote_cpu + 1, "slot 0 still names R");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), 0, "R's entry still names it");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), -1, "L holds none");
	EXPECT_EQ(stats_on(local_cpu).rx_slot_takeovers, 0, "no takeover counted");
	EXPECT_EQ(stats_on(local_cpu).no_rx_slot, 1, "L's frame counts in no_rx_slot");
}

/* One slot, R's, renewed by R at a tick later than the one L read (jiffies
 * move on between the two CPUs' reads): not idle, not taken over. */
static void test_a_slot_renewed_at_a_later_tick_than_the_takers_is_not_taken_over(void)
{
	struct steer_rx_lease l;
	struct drain_case c;
	__u32 s = 0;

	if (!lease_case(&c, remote_cpu, 1) ||
	    !EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, true), 0, "R holds the only slot"))
		return;
	l = rx_lease_of(0);
	l.tick = jiffies() + 5;
	if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_rx_lease, &s, &l, BPF_ANY), 0,
		       "R's tick is a few ticks ahead of L's"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, slotless, the frame is passed here");
	EXPECT_EQ(rx_cpu_of(0), (__u32)remote_cpu + 1, "slot 0 still names R");
	EXPECT_EQ(stats_on(local_cpu).rx_slot_takeovers, 0, "no takeover counted");
}

/* A slot with a tick of 0 (never seen held since the maps were made, as
 * after an upgrade from a version without leases): its lease starts at
 * the first look, and only a lease later is it taken over. */
static void test_a_slot_never_seen_held_starts_its_lease_at_the_first_look(void)
{
	struct drain_case c;
	__u32 before;

	if (!lease_case(&c, remote_cpu, 1) ||
	    !EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, true), 0, "R holds the only slot") ||
	    !rx_held_ago(0, jiffies()))
		return;
	before = jiffies();
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, slotless: the frame is passed here");
	EXPECT((__s32)(rx_lease_of(0).tick - before) >= 0, "slot 0's lease starts now");
	EXPECT_EQ(rx_cpu_of(0), (__u32)remote_cpu + 1, "slot 0 still names R");
}

/* Two slots: R's idle past the lease, and one of a CPU Z that holds it
 * now. L takes R's over. Then R receives again: it finds its slot gone,
 * and no free one; once Z's is idle past the lease, R takes that over.
 * R never writes slot 0's rows again: L's record and stream there stay
 * as L left them. */
static void test_a_cpu_back_after_losing_its_slot_takes_another_and_never_writes_the_lost_rows(void)
{
	struct steer_bucket rec0, now0;
	struct drain_case c;
	__u32 key, seq0 = 0, seq = 0;

	if (!lease_case(&c, remote_cpu, 2))
		return;
	send_on(remote_cpu, &c.f);
	if (!EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), 0, "R holds slot 0") ||
	    !EXPECT_EQ(steer_prog_rx_slot_of(&prog, CPU_MISSING, true), 1, "Z holds slot 1") ||
	    !rx_held_ago(0, LEASE + 10) || !rx_held_ago(1, 1))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, the frame of the takeover is passed here");
	if (!EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), 0, "L took slot 0 over") ||
	    !poll_ended())
		return;
	next_tick();
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "a poll later, on L, the frame is queued to R");
	key = c.record;
	bpf_map_lookup_elem(prog.steer_buckets, &key, &rec0);
	key = 0 * STEER_TARGETS + remote_cpu;
	bpf_map_lookup_elem(prog.steer_seq, &key, &seq0);

	/* R's entry names slot 0 again, as it does between L's swap of the
	 * slot's CPU and its clearing of R's entry: R's own check must see
	 * the slot gone. */
	key = remote_cpu;
	seq = 1;
	if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_rx_slot, &key, &seq, BPF_ANY), 0,
		       "R's entry names slot 0"))
		return;
	seq = 0;
	next_tick();
	EXPECT_EQ(send_on(remote_cpu, &c.f), XDP_PASS, "back on R, its slot gone and none free: passed there");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), -1, "R's entry names no slot");
	EXPECT_EQ(stats_on(remote_cpu).no_rx_slot, 1, "counted in R's no_rx_slot");
	EXPECT_EQ(rx_cpu_of(0), (__u32)local_cpu + 1, "slot 0 still names L");
	if (!rx_held_ago(1, LEASE + 10))
		return;
	next_tick();
	EXPECT_EQ(send_on(remote_cpu, &c.f), XDP_PASS, "on R, the frame of its takeover is passed there");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), 1, "R took Z's idle slot 1 over");
	EXPECT_EQ(rx_cpu_of(1), (__u32)remote_cpu + 1, "slot 1 names R");
	EXPECT_EQ(stats_on(remote_cpu).rx_slot_takeovers, 1, "R counts one takeover");
	if (!poll_ended_on(remote_cpu))
		return;
	next_tick();
	EXPECT_EQ(send_on(remote_cpu, &c.f), XDP_REDIRECT, "a poll later, on R, queued to R as the table says, with its slot");
	EXPECT_EQ(stats_on(remote_cpu).no_rx_slot, 2, "and no more frames without a slot");
	key = c.record;
	bpf_map_lookup_elem(prog.steer_buckets, &key, &now0);
	EXPECT(!memcmp(&rec0, &now0, sizeof(rec0)), "slot 0's record of the bucket is as L left it");
	key = 0 * STEER_TARGETS + remote_cpu;
	bpf_map_lookup_elem(prog.steer_seq, &key, &seq);
	EXPECT_EQ(seq, seq0, "slot 0's stream to R is as L left it");
	key = STEER_TABLE_MAX + c.record;
	bpf_map_lookup_elem(prog.steer_buckets, &key, &now0);
	EXPECT(now0.last != 0, "R's record of the bucket is in slot 1's row");
}

/* The race's stand-in (tests/prog/race.bpf.c), attached to the loaded
 * program's rx_slot_idle() with the program's steer_rx_lease; NULL with
 * *why set when this kernel refuses it. */
static struct race_bpf *race_attach(char *why, size_t len)
{
	struct race_bpf *r = race_bpf__open();
	int err;

	if (!r) {
		snprintf(why, len, "opening the race program failed: %s", strerror(errno));
		return NULL;
	}
	err = bpf_map__reuse_fd(r->maps.steer_rx_lease, prog.steer_rx_lease);
	if (!err)
		err = bpf_program__set_attach_target(r->progs.steer_race_renew,
						     prog.prog_fd,
						     "rx_slot_idle");
	if (!err)
		err = race_bpf__load(r);
	if (!err)
		err = race_bpf__attach(r);
	if (err) {
		snprintf(why, len, "this kernel refuses an fentry program on an XDP program's function: %s",
			 strerror(-err));
		race_bpf__destroy(r);
		return NULL;
	}
	return r;
}

/* One slot, R's, idle past the lease; L finds every slot taken and swaps
 * itself in as slot 0's CPU, and R's first frame of a tick renews the
 * lease right then, between L's swap and its second read of the tick
 * (race.bpf.c, run before rx_slot_idle()). L sees the tick renewed and
 * gives the slot back: R holds it still, L holds none and passes its
 * frame here, and no takeover is counted. */
static void test_a_takeover_that_meets_the_old_cpus_renewal_gives_the_slot_back(void)
{
	struct race_bpf *r;
	struct drain_case c;
	char why[256];

	if (!lease_case(&c, remote_cpu, 1) ||
	    !EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, true), 0, "R holds the only slot") ||
	    !rx_held_ago(0, LEASE + 10))
		return;
	r = race_attach(why, sizeof(why));
	if (!r) {
		test_skip("%s", why);
		return;
	}
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, slotless, the frame is passed here");
	EXPECT_EQ(r->bss->renewed, 1, "R renewed its lease between L's swap and its second look");
	race_bpf__destroy(r);
	EXPECT_EQ(rx_cpu_of(0), (__u32)remote_cpu + 1, "slot 0 names R again");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, false), 0, "R's entry still names it");
	EXPECT_EQ(steer_prog_rx_slot_of(&prog, local_cpu, false), -1, "L holds none");
	EXPECT_EQ(stats_on(local_cpu).rx_slot_takeovers, 0, "no takeover counted");
	EXPECT_EQ(stats_on(local_cpu).no_rx_slot, 1, "L's frame counts in no_rx_slot");
}

/* R's record of a bucket queued to R, unstamped, while R's count of ended
 * polls stood far above L's; R's slot idle past the lease, the bucket
 * moved to L in the table. L takes the slot over with the record: its
 * frame left R a lease ago, and the record now says so in L's count, so
 * the drain decides by R's ring alone: idle and empty, the bucket moves.
 * Kept in R's count, it would wait until L's polls caught up. */
static void test_a_record_taken_over_drains_by_its_old_targets_evidence(void)
{
	struct steer_bucket b = {};
	struct drain_case c;
	__u32 key;

	if (!lease_case(&c, remote_cpu, 1) ||
	    !EXPECT_EQ(steer_prog_rx_slot_of(&prog, remote_cpu, true), 0, "R holds the only slot") ||
	    !rx_held_ago(0, LEASE + 10))
		return;
	b.target = remote_cpu;
	b.last = jiffies() - LEASE - 10;
	b.poll = 1000000;
	b.gen = window().gen;
	key = c.record;
	if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_buckets, &key, &b, BPF_ANY), 0,
		       "R's record was written") ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut") ||
	    !EXPECT_EQ(steer_prog_polls(&prog, local_cpu, 10, jiffies()), 0,
		       "L's polls were written") ||
	    !ring(remote_cpu, 7, 7, IDLE_SINCE()) ||
	    !move_to(&c, local_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "on L, the frame of the takeover is passed here");
	EXPECT_EQ(stats_on(local_cpu).rx_slot_takeovers, 1, "L took R's slot over");
	if (!poll_ended())
		return;
	next_tick();
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "a poll later, the frame is queued");
	EXPECT_EQ(bucket_state(&c).target, local_cpu, "to L, the bucket's new CPU: its drain is done");
	EXPECT_EQ(stats().moves_done, 1, "one move done");
	EXPECT_EQ(stats().drain_held, 0, "no frame held on R");
}

/* ---- the worker's stamps, run by hand --------------------------------------- */

/* The stamp CPU rx's frame to 'target' carries: its 'seq', rx's receiver
 * slot, the tag under the key the tests set (STEER_TEST_STAMP_KEY). */
static struct steer_stamp stamp_of(__u32 seq, int rx, int target)
{
	struct steer_stamp m = { .seq = seq, .rx_slot = slot_of(rx),
				 .target = target };

	m.tag = steer_stamp_tag(m.seq, m.rx_slot, m.target, STEER_TEST_STAMP_KEY);
	return m;
}

/* Runs bank 0's worker program on this CPU (L) over 'f', with 'stamp'
 * right in front of the frame, where the receiving CPU leaves it in the
 * headroom (a test run's metadata lies there); NULL: whatever the test
 * run's headroom holds (zeros). False unless it ran, passed the frame and
 * handed it on from its own first byte, unchanged. */
static bool run_worker(const struct frame *f, const struct steer_stamp *stamp)
{
	static unsigned char in[sizeof(*stamp) + FRAME_MAX], out[FRAME_MAX];
	static struct bpf_object *obj;
	static int fd = -1;
	struct xdp_md ctx = {};
	__u32 at = stamp ? sizeof(*stamp) : 0;
	int err;

	if (!obj) {
		obj = steer_prog_open_worker_xdp(&prog, 0, &fd);
		if (!obj) {
			test_fail(__FILE__, __LINE__,
				  "the worker program loaded as a plain XDP program",
				  "%s", strerror(errno));
			return false;
		}
	}
	if (stamp)
		memcpy(in, stamp, sizeof(*stamp));
	memcpy(in + at, f->buf, f->len);
	ctx.data = at;
	ctx.data_end = at + f->len;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in,
		    .data_size_in = at + f->len, .data_out = out,
		    .data_size_out = sizeof(out), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	err = bpf_prog_test_run_opts(fd, &o);
	/* The test run hands back the metadata, then the frame. */
	return EXPECT_EQ(err, 0, "the worker ran") &&
	       EXPECT_EQ(o.retval, XDP_PASS, "the worker passed the frame") &&
	       EXPECT_EQ(o.data_size_out, at + f->len,
			 "from the frame's own start") &&
	       EXPECT(!memcmp(out + at, f->buf, f->len), "unchanged");
}

/* The workers' gate: looking for stamps (a sender held it) or not. */
static bool look(bool on)
{
	struct steer_look l = { .until = on ? (jiffies() + 1000) | 1 : 0 };
	__u32 zero = 0;

	return EXPECT_EQ(bpf_map_update_elem(prog.steer_look, &zero, &l,
					     BPF_ANY), 0, "the gate was written");
}

/* 'target's mark of R's stream in slot 'i' (steer_deq). */
static __u64 mark_of_remote(int target, int i)
{
	__u32 key = target * prog.rx_rows + slot_of(remote_cpu);
	struct steer_deq d = {};

	bpf_map_lookup_elem(prog.steer_deq, &key, &d);
	return d.h[i & (STEER_MARKS - 1)];
}

static void test_worker_reads_the_stamp_in_the_headroom(void)
{
	struct drain_case c;
	struct steer_stamp m;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	m = stamp_of(7, remote_cpu, local_cpu);
	if (!look(true) || !ring(local_cpu, 200, 70, BUSY_NOW()) ||
	    !run_worker(&c.f, &m))
		return;
	EXPECT_EQ(mark_of_remote(local_cpu, 70 / STEER_MARK_EPOCH),
		  STEER_MARK(7, 70),
		  "L marks R's stream: up to 7 taken in a batch that began at its report count 70");
}

static void test_worker_takes_no_stamp_without_its_tag(void)
{
	struct drain_case c;
	struct steer_stamp m;
	int i;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !look(true))
		return;
	m = stamp_of(7, remote_cpu, local_cpu);
	m.tag ^= 1;
	if (!run_worker(&c.f, &m))
		return;
	EXPECT_EQ(mark_of_remote(local_cpu, 0), 0, "bytes an earlier frame left, one bit off the tag, mark nothing");
	m = stamp_of(7, remote_cpu, local_cpu);
	m.seq = 8;
	if (!run_worker(&c.f, &m))
		return;
	EXPECT_EQ(mark_of_remote(local_cpu, 0), 0, "nor a tag of other fields");
	if (!run_worker(&c.f, NULL))
		return;
	EXPECT_EQ(mark_of_remote(local_cpu, 0), 0, "nor a headroom of zeros");
	EXPECT_EQ(steer_prog_set_stamp_key(&prog, 0), 0, "the key was unset");
	m.tag = steer_stamp_tag(m.seq, m.rx_slot, m.target, 0);
	run_worker(&c.f, &m);
	EXPECT_EQ(steer_prog_set_stamp_key(&prog, STEER_TEST_STAMP_KEY), 0,
		  "the key was set again");
	for (i = 0; i < STEER_MARKS; i++)
		EXPECT_EQ(mark_of_remote(local_cpu, i), 0, "nor anything while the key is unset");
}

/* A stamp for R's entry, taken on L: R's kthread runs on L (R's CPU went
 * offline), and the stamp's target, under the key, says whose frame it
 * is. Its mark goes to R's stream at R's report count, so R's drains go
 * on however long the kthread stays away. */
static void test_worker_marks_the_stamps_target_wherever_it_runs(void)
{
	struct drain_case c;
	struct steer_stamp m;
	struct steer_deq d = {};
	__u32 key;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	m = stamp_of(7, local_cpu, remote_cpu);
	key = remote_cpu * prog.rx_rows + slot_of(local_cpu);
	if (!look(true) ||
	    !ring(remote_cpu, 50, 40, BUSY_NOW()) ||
	    !ring(local_cpu, 900, 800, BUSY_NOW()) || !run_worker(&c.f, &m))
		return;
	bpf_map_lookup_elem(prog.steer_deq, &key, &d);
	EXPECT_EQ(d.h[40 / STEER_MARK_EPOCH % STEER_MARKS], STEER_MARK(7, 40),
		  "taken on L, R's frame marks R's stream at R's count");
	EXPECT_EQ(mark_of_remote(local_cpu, 800 / STEER_MARK_EPOCH), 0,
		  "and nothing of L's");
}

static void test_worker_looks_for_no_stamp_while_the_gate_is_shut(void)
{
	struct drain_case c;
	struct steer_stamp m;
	struct steer_look l = {};
	__u32 zero = 0, before;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	m = stamp_of(7, remote_cpu, local_cpu);
	if (!look(false) || !run_worker(&c.f, &m))
		return;
	EXPECT_EQ(mark_of_remote(local_cpu, 0), 0, "with the gate shut, no stamp is looked for");
	/* A gate held until a tick gone by is shut too. */
	l.until = (jiffies() - 2) | 1;
	if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_look, &zero, &l, BPF_ANY),
		       0, "a gate past its end was written") ||
	    !run_worker(&c.f, &m))
		return;
	EXPECT_EQ(mark_of_remote(local_cpu, 0), 0, "nor with one past its end");
	/* A sender's stamped frame opens it. The bound is taken from a tick
	 * read before the send: a TCG guest can let ticks pass after it. */
	before = jiffies();
	if (!EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "a frame was queued, stamped") ||
	    !EXPECT_EQ(bpf_map_lookup_elem(prog.steer_look, &zero, &l), 0,
		       "the gate was read"))
		return;
	EXPECT((__s32)(l.until - before) > (__s32)NO_TIMEOUT + 1,
	       "a stamped frame holds the gate open for the drain timeout and two ticks");
}

/* ---- the tracepoint programs, run by hand -------------------------------- */

/* The tracepoint programs on our maps (prog_util.h), and the kthread's
 * name this thread takes while one runs. */
static struct bpf_object *trace_obj;
static int trace_fds[STEER_TRACE_NPROGS];
enum { TP_ENQUEUE, TP_KTHREAD, TP_NAPI };

static bool trace_ready(void)
{
	struct steer_cpumap_ids ids = {};
	struct bpf_map_info info;
	__u32 len, zero = 0;
	int fd;

	if (!trace_obj)
		trace_obj = steer_prog_open_trace(&prog, trace_fds);
	if (!trace_obj) {
		test_fail(__FILE__, __LINE__, "the tracepoint programs loaded",
			  "%s", strerror(errno));
		return false;
	}
	/* Our two cpumaps are the interface's, as the loader says. */
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	if (!bpf_obj_get_info_by_fd(prog.cpu_map, &info, &len))
		ids.id[0] = info.id;
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	if (!bpf_obj_get_info_by_fd(prog.cpu_map_b, &info, &len))
		ids.id[1] = info.id;
	fd = bpf_object__find_map_fd_by_name(trace_obj, "cpumap_ids");
	return EXPECT(fd >= 0 && ids.id[0] && ids.id[1] &&
		      !bpf_map_update_elem(fd, &zero, &ids, BPF_ANY),
		      "the cpumaps' ids were written");
}

static __u32 cpumap_id(int bank)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	bpf_obj_get_info_by_fd(bank ? prog.cpu_map_b : prog.cpu_map, &info,
			       &len);
	return info.id;
}

/* Runs tracepoint program 'which' on this CPU with 'args', this thread
 * named 'comm' meanwhile (NULL: its own name), as the kernel would run
 * it in that kthread. */
static bool run_tp(int which, const __u64 *args, int nargs, const char *comm)
{
	char own[16] = "";
	int err;

	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args,
		    .ctx_size_in = nargs * sizeof(*args));
	if (comm) {
		prctl(PR_GET_NAME, own, 0, 0, 0);
		prctl(PR_SET_NAME, comm, 0, 0, 0);
	}
	err = bpf_prog_test_run_opts(trace_fds[which], &o);
	if (comm)
		prctl(PR_SET_NAME, own, 0, 0, 0);
	return EXPECT_EQ(err, 0, "the tracepoint program ran");
}

static struct steer_wdone wdone_of(__u32 target)
{
	struct steer_wdone wd = {};

	bpf_map_lookup_elem(prog.steer_wdone, &target, &wd);
	return wd;
}

/* xdp_cpumap_kthread(map_id, processed, drops, sched, stats), run as
 * R's bank-1 kthread on L: the report counts for R's bank-1 entry, its
 * kthread told by its name, wherever it runs. */
static void test_a_kthread_report_counts_for_its_entry_wherever_it_runs(void)
{
	__u32 target = STEER_MAX_CPUS + remote_cpu, j0;
	__u64 args[5] = { 0, 8, 0, 0, 0 }, t0;
	struct steer_wdone wd;
	struct drain_case c;
	char comm[16];

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !trace_ready())
		return;
	args[0] = cpumap_id(1);
	snprintf(comm, sizeof(comm), "cpumap/%d/map:%u", remote_cpu,
		 (unsigned)args[0]);
	t0 = now_ns();
	j0 = jiffies();
	if (!run_tp(TP_KTHREAD, args, 5, comm))
		return;
	wd = wdone_of(target);
	EXPECT_EQ(wd.frames, 8, "R's bank-1 entry counts the batch of 8");
	EXPECT(wd.last_ns >= t0 && wd.last_ns <= now_ns(), "and when it reported");
	/* Between the ticks read around the run: a TCG guest's test run may
	 * take ticks. */
	EXPECT(wd.last_tick - j0 <= jiffies() - j0, "in ticks too");
	EXPECT_EQ(wdone_of(remote_cpu).frames + wdone_of(local_cpu).frames +
		  wdone_of(STEER_MAX_CPUS + local_cpu).frames, 0,
		  "no other entry: not L's, whose CPU ran it, nor bank 0's");

	/* 130 more: the count crosses into epoch 1, which begins now. */
	args[1] = 130;
	if (!run_tp(TP_KTHREAD, args, 5, comm))
		return;
	wd = wdone_of(target);
	EXPECT_EQ(wd.frames, 138, "the counts add up");
	EXPECT(wd.epoch_at[1] - j0 <= jiffies() - j0, "epoch 1's start is noted");

	/* A batch of none (a wake-up to an empty ring) moves the clocks
	 * only: an entry made anew in its place may count already. */
	args[1] = 0;
	if (!run_tp(TP_KTHREAD, args, 5, comm))
		return;
	EXPECT_EQ(wdone_of(target).frames, 138, "a batch of none adds nothing");

	/* Another cpumap's kthread, or a task of another name, counts for
	 * no entry of ours. */
	args[0] = cpumap_id(1) + 1000;
	args[1] = 8;
	run_tp(TP_KTHREAD, args, 5, comm);
	args[0] = cpumap_id(1);
	run_tp(TP_KTHREAD, args, 5, "not-a-kthread");
	EXPECT_EQ(wdone_of(target).frames, 138, "another map's or another task's batch counts for none");
}

/* xdp_cpumap_enqueue(map_id, processed, drops, to_cpu): what entered R's
 * bank-0 ring from this CPU's flush, drops not. */
static void test_an_enqueue_report_adds_what_entered_the_ring(void)
{
	__u64 args[4] = { 0, 8, 3, 0 };
	struct steer_wenq we = {};
	struct drain_case c;
	__u32 target;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !trace_ready())
		return;
	args[0] = cpumap_id(0);
	args[3] = remote_cpu;
	if (!run_tp(TP_ENQUEUE, args, 4, NULL))
		return;
	target = remote_cpu;
	bpf_map_lookup_elem(prog.steer_wenq, &target, &we);
	EXPECT_EQ(we.frames, 5, "a flush of 8 with 3 dropped: 5 entered R's ring");
	args[0] = cpumap_id(1);
	args[1] = 1;
	args[2] = 0;
	run_tp(TP_ENQUEUE, args, 4, NULL);
	target = STEER_MAX_CPUS + remote_cpu;
	bpf_map_lookup_elem(prog.steer_wenq, &target, &we);
	EXPECT_EQ(we.frames, 1, "a frame into bank 1 counts for R's bank-1 entry");
}

static void test_a_napi_poll_counts_for_its_cpu(void)
{
	__u64 args[3] = { 0, 64, 64 }, j = 0;
	struct drain_case c;
	struct steer_stats st;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !trace_ready() ||
	    !run_tp(TP_NAPI, args, 3, NULL) || !run_tp(TP_NAPI, args, 3, NULL))
		return;
	st = stats();
	clock_jiffies64(&j);
	EXPECT_EQ(st.napi_polls, 2, "two polls ended on this CPU");
	EXPECT(st.napi_poll_tick && j - st.napi_poll_tick <= 1, "the last at this tick");
}

/* ---- the real worker and the real tracepoints ----------------------------- */

/* Live frames go through the cpumap to a worker that builds skbs on
 * loopback: in a network namespace of our own, nothing else sees them. */
static bool private_netns(void)
{
	static int done;

	if (!done)
		done = unshare(CLONE_NEWNET) ? -errno : 1;
	return EXPECT_EQ(done, 1, "a private network namespace for live frames");
}

static int run_live(const struct frame *f, __u32 n)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f->buf,
		    .data_size_in = f->len, .repeat = n, .batch_size = 64,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);

	return bpf_prog_test_run_opts(prog.prog_fd, &o);
}

/* Skips the test, saying why, when the kernel ran no live frames: before
 * 5.18 it has none, and some kernels refuse them (seen: a hardened 6.18,
 * EPERM as root). The worker's and the tracepoints' own parts are then
 * tested by the cases above, which run them by hand. */
static bool live_refused(int err)
{
	if (err == -EOPNOTSUPP || err == -EINVAL) {
		test_skip("live frames need kernel 5.18");
		return true;
	}
	if (err == -EPERM) {
		test_skip("this kernel refuses live frames (BPF_F_TEST_XDP_LIVE_FRAMES: %s)",
			  strerror(-err));
		return true;
	}
	return false;
}

/* The tracepoint programs attached for real, as an apply attaches them;
 * 'links' closed by trace_detach(). */
static bool trace_attach(int links[STEER_TRACE_NPROGS])
{
	static const char *const tps[] = {
		"xdp_cpumap_enqueue", "xdp_cpumap_kthread", "napi_poll",
	};
	int i;

	for (i = 0; i < STEER_TRACE_NPROGS; i++)
		links[i] = -1;
	if (!trace_ready())
		return false;
	for (i = 0; i < STEER_TRACE_NPROGS; i++) {
		links[i] = bpf_raw_tracepoint_open(tps[i], trace_fds[i]);
		if (!EXPECT(links[i] >= 0, "a tracepoint program was attached"))
			return false;
	}
	return true;
}

static void trace_detach(int links[STEER_TRACE_NPROGS])
{
	int i;

	for (i = 0; i < STEER_TRACE_NPROGS; i++)
		if (links[i] >= 0)
			close(links[i]);
}

/* Until R's kthread reported 'n' frames (or two seconds). */
static bool wait_reported(__u32 target, __u32 n)
{
	int i;

	for (i = 0; i < 2000 && wdone_of(target).frames < n; i++)
		sleep_us(1000);
	return EXPECT_EQ(wdone_of(target).frames, n,
			 "the worker's kthread reported every frame");
}

static void test_the_real_worker_and_tracepoints_publish_and_release(void)
{
	__u32 n = 200, key, target = remote_cpu;
	int links[STEER_TRACE_NPROGS];
	struct steer_wenq we = {};
	struct steer_deq d = {};
	struct drain_case c;
	__u32 base = 0;
	int err, i;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !private_netns() ||
	    !trace_attach(links))
		goto out;
	err = run_live(&c.f, n);
	if (live_refused(err))
		goto out;
	if (!EXPECT_EQ(err, 0, "the live frames ran") ||
	    !wait_reported(target, n))
		goto out;
	EXPECT_EQ(stats().unstamped, 0, "every frame carried its stamp");
	EXPECT_EQ(queued_to(remote_cpu), n, "this CPU queued n frames to R");
	bpf_map_lookup_elem(prog.steer_wenq, &target, &we);
	EXPECT_EQ(we.frames, n, "all of them entered R's ring, by the enqueue tracepoint");
	/* No napi_polls asserted: a live test run flushes its batches
	 * outside any NAPI poll (6.1 and 6.12, seen in the VM tier), so the
	 * napi_poll program is tested by hand above. */
	key = remote_cpu * prog.rx_rows + slot_of(local_cpu);
	bpf_map_lookup_elem(prog.steer_deq, &key, &d);
	EXPECT(steer_mark_base(d.h, n, &base) && base < n && n - base <= 8,
	       "R's marks reach our last frame, in a batch of at most 8 from its end");
	for (i = 0; i < STEER_MARKS; i++)
		EXPECT(!d.h[i] || STEER_MARK_BASE(d.h[i]) <= n,
		       "every mark's base is a count R reported");

	/* The real evidence releases a moved bucket once R is idle. */
	if (!move_to(&c, local_cpu))
		goto out;
	sleep_us(2 * STEER_DRAIN_IDLE_NS / 1000);
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "with R's reports, the moved bucket goes to L");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
out:
	trace_detach(links);
}

/* With the window shut a frame carries no stamp and leaves no mark; the
 * kthread's reports count it all the same, for its entry: here R's
 * bank-1 one. */
static void test_unstamped_frames_leave_no_mark_and_are_reported(void)
{
	struct bpf_cpumap_val v = { .qsize = QSIZE };
	__u32 n = 100, cpu = remote_cpu, key;
	int links[STEER_TRACE_NPROGS];
	struct steer_deq d = {};
	struct drain_case c;
	int err;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !private_netns() ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was shut") ||
	    !trace_attach(links))
		goto out;
	c.s.bank = 1;
	v.bpf_prog.fd = prog.worker_fds[1];
	if (!EXPECT_EQ(commit(&c.s), 0, "the slot uses bank 1") ||
	    !EXPECT_EQ(bpf_map_update_elem(prog.cpu_map_b, &cpu, &v, BPF_ANY),
		       0, "R has a bank-1 entry with the bank-1 program"))
		goto out;
	err = run_live(&c.f, n);
	if (live_refused(err))
		goto out;
	if (!EXPECT_EQ(err, 0, "the live frames ran") ||
	    !wait_reported(STEER_MAX_CPUS + remote_cpu, n))
		goto out;
	EXPECT_EQ(queued_to(STEER_MAX_CPUS + remote_cpu), 0, "though none was stamped");
	EXPECT_EQ(wdone_of(remote_cpu).frames, 0, "R's bank-0 entry reported none");
	key = (STEER_MAX_CPUS + remote_cpu) * prog.rx_rows + slot_of(local_cpu);
	bpf_map_lookup_elem(prog.steer_deq, &key, &d);
	EXPECT(!d.h[0] && !d.h[1] && !d.h[2] && !d.h[3],
	       "unstamped frames leave no mark");
out:
	trace_detach(links);
	bpf_map_delete_elem(prog.cpu_map_b, &cpu);
	c.s.bank = 0;
	commit(&c.s);
}

const struct test_case drain_tests[] = {
	TEST_ENTRY(test_first_frame_is_no_move,
		   "drain: a bucket's first frame goes to its CPU and counts as no move"),
	TEST_ENTRY(test_held_until_its_last_frame_is_up_the_stack,
		   "drain: a moved bucket keeps its old CPU until its frames there are taken off the ring and up the stack"),
	TEST_ENTRY(test_held_frame_without_its_entry_keeps_the_wait,
		   "drain: a held frame passed for want of its old CPU's entry keeps the bucket waiting for that CPU"),
	TEST_ENTRY(test_busy_worker_holds,
		   "drain: a bucket waits while its old CPU's last batch may still run"),
	TEST_ENTRY(test_flush_gap_releases,
		   "drain: 80 frames reported from its batch's start, a bucket leaves a busy CPU"),
	TEST_ENTRY(test_gro_units_hold_a_tick,
		   "drain: where GRO keeps young segments, a bucket also waits an epoch and gro_units"),
	TEST_ENTRY(test_stalled_target_keeps_its_buckets,
		   "drain: a bucket stays on a CPU that takes nothing off its ring for four drain timeouts, counted as stalled, and moves once it does"),
	TEST_ENTRY(test_a_frame_dropped_at_a_full_ring_pins_nothing,
		   "drain: a last frame dropped at a full ring pins nothing: a poll's end, an empty ring and an idle worker release the bucket"),
	TEST_ENTRY(test_table_resize_keeps_the_drain,
		   "drain: a table_size change keeps each flow's drain"),
	TEST_ENTRY(test_a_record_older_than_the_warm_up_moves_at_once,
		   "drain: a bucket whose record is older than its slot's warm-up moves on its next frame"),
	TEST_ENTRY(test_an_idle_move_is_counted_once_with_the_window_shut,
		   "drain: with the window shut, a bucket that moved while idle is counted once in moves_idle at its first frame"),
	TEST_ENTRY(test_a_bucket_seen_only_outside_the_window_counts_its_idle_move,
		   "drain: a bucket whose frames all came with the window shut counts its idle move once"),
	TEST_ENTRY(test_an_idle_bucket_still_waits_for_its_evidence,
		   "drain: a bucket idle for the drain timeout still waits for its old CPU's evidence"),
	TEST_ENTRY(test_outside_the_window_a_settled_frame_writes_nothing,
		   "drain: outside the window a queued frame is unstamped and writes its record only to name a new target; inside, every one is stamped and recorded"),
	TEST_ENTRY(test_a_held_bucket_drains_with_the_window_shut,
		   "drain: a held bucket drains on with the window shut"),
	TEST_ENTRY(test_fastpath_outside_the_window_keeps_no_records,
		   "drain: with the fast path, outside the window queued frames are unstamped and warm local buckets write only their own record"),
	TEST_ENTRY(test_a_warm_bucket_on_the_fast_path_records_each_frames_tick,
		   "drain: a warm bucket's every frame on the fast path records its tick, so the next one finds it warm"),
	TEST_ENTRY(test_drain_off_moves_at_once,
		   "drain: off, a bucket moves on its next frame and nothing is stamped"),
	TEST_ENTRY(test_leaving_fastpath_waits_for_a_poll_to_end,
		   "drain: a bucket leaves the fast path once a NAPI poll has ended since its last frame there"),
	TEST_ENTRY(test_an_elephant_leaves_the_fast_path_at_the_next_poll,
		   "drain: an elephant leaves the fast path at the next poll, never by a timeout; from HZ=1000 after a poll at a later tick"),
	TEST_ENTRY(test_cold_fastpath_lines_up_behind_the_queue,
		   "drain: a cold bucket lines up behind frames queued to this CPU before taking the fast path"),
	TEST_ENTRY(test_cold_fastpath_goes_through_its_own_queue_first,
		   "drain: a cold bucket goes through this CPU's own queue before the fast path, the window shut"),
	TEST_ENTRY(test_cold_fastpath_is_direct_when_no_other_cpu_queues,
		   "drain: a cold bucket takes the fast path at once while no other receiving CPU queued a frame within the drain timeout"),
	TEST_ENTRY(test_queue_held_as_queued_gives_the_fast_path_when_no_other_cpu_queues,
		   "drain: a queue this CPU only queued from gives a bucket put here the fast path at once while no other CPU queues"),
	TEST_ENTRY(test_cold_fastpath_sees_a_frame_another_cpu_queued,
		   "drain: a frame another receiving CPU queues sends a bucket cold here through this CPU's own queue; this CPU's own do not"),
	TEST_ENTRY(test_queue_moved_here_waits_for_its_old_cpu,
		   "drain: a queue moved here keeps its warm buckets off the fast path until its marker, behind its old CPU's frames, is out"),
	TEST_ENTRY(test_queue_moved_here_resumes_once_its_marker_is_out,
		   "drain: a queue moved here gives the fast path back once its marker is out"),
	TEST_ENTRY(test_queue_moved_here_waits_for_its_marker_however_long,
		   "drain: a queue moved here waits for its marker however long this CPU's kthread takes, with no timeout"),
	TEST_ENTRY(test_queue_moved_here_waits_for_an_unstamped_marker_by_its_ring,
		   "drain: a queue moved here whose marker went unstamped waits for this CPU's ring to empty and go idle, never a timeout"),
	TEST_ENTRY(test_queue_moved_here_without_an_entry_gives_the_fast_path_back_at_the_timeout,
		   "drain: a queue moved here to a CPU without a cpumap entry of its own gives the fast path back at the drain timeout, counted"),
	TEST_ENTRY(test_queue_moved_here_waits_through_a_pause,
		   "drain: a queue moved here waits through a pause of its CPU longer than the timeout for its marker, no timeout counted"),
	TEST_ENTRY(test_queue_taken_by_another_cpu_is_seen_when_it_comes_back,
		   "drain: a queue another CPU took is seen as moved when it comes back"),
	TEST_ENTRY(test_queue_back_by_way_of_a_cpu_that_passes_none_is_seen,
		   "drain: a queue that comes back by way of a CPU that passed none of its frames is seen as moved"),
	TEST_ENTRY(test_bucket_cold_here_follows_the_queues_old_cpu_to_its_target,
		   "drain: a bucket cold here, whose queue came from a CPU holding it on an old target, goes there first, then moves"),
	TEST_ENTRY(test_bucket_cold_here_goes_straight_when_the_old_cpu_held_nothing,
		   "drain: a bucket cold here goes straight to its CPU when the queue's old CPU held nothing of it, or the queue moved long ago"),
	TEST_ENTRY(test_a_cpus_first_queued_frame_claims_the_next_receiver_slot,
		   "drain: a CPU's first frame queued under drain claims the next receiver slot, whatever its id, cached in its stats line; its stamps count in that slot's stream"),
	TEST_ENTRY(test_a_cpu_that_lost_its_cache_takes_its_own_slot_back,
		   "drain: a CPU whose cache of its slot was lost takes its own back and claims no other"),
	TEST_ENTRY(test_a_cpu_without_a_slot_passes_its_table_frames_here_counted,
		   "drain: a CPU that finds every receiver slot taken passes its table frames here, counted in no_rx_slot, never queued without a record"),
	TEST_ENTRY(test_each_cpu_counts_what_it_queued_in_its_slots_row,
		   "drain: each receiving CPU counts what it queued per worker in its receiver slot's row of steer_queued"),
	TEST_ENTRY(test_a_cpu_without_a_slot_counts_what_it_queued_in_the_shared_row,
		   "drain: a CPU without a slot counts what it queued (non-IP, rules) in steer_queued's shared last row, so a worker's sent stays whole"),
	TEST_ENTRY(test_a_cpu_without_a_slot_holds_a_cold_bucket_off_the_fast_path,
		   "drain: a CPU that found no slot sends a bucket cold on another CPU's fast path through that CPU's own queue"),
	TEST_ENTRY(test_a_slot_idle_past_the_lease_goes_to_a_cpu_that_finds_none,
		   "drain: a receiver slot idle past the lease goes to a CPU that finds every slot taken, at its first frame; the old CPU's entry names it no more"),
	TEST_ENTRY(test_a_cpu_that_took_a_slot_over_uses_it_once_a_poll_of_its_own_ended,
		   "drain: a CPU that took a slot over passes its table frames here until a NAPI poll of its own has ended, then uses the slot"),
	TEST_ENTRY(test_a_takeover_that_meets_the_old_cpus_renewal_gives_the_slot_back,
		   "drain: a takeover whose slot's old CPU renews its lease between the swap and the second look gives the slot back"),
	TEST_ENTRY(test_a_slot_renewed_at_a_later_tick_than_the_takers_is_not_taken_over,
		   "drain: a receiver slot renewed at a tick later than the one its would-be taker read is not taken over"),
	TEST_ENTRY(test_a_slot_held_within_the_lease_is_not_taken_over,
		   "drain: a receiver slot held within the lease is not taken over"),
	TEST_ENTRY(test_a_slot_never_seen_held_starts_its_lease_at_the_first_look,
		   "drain: a receiver slot never seen held (tick 0, as after an upgrade) starts its lease at the first look, and is not taken then"),
	TEST_ENTRY(test_a_cpu_back_after_losing_its_slot_takes_another_and_never_writes_the_lost_rows,
		   "drain: a CPU back after losing its slot finds it gone, takes another idle one over, and never writes the lost slot's rows"),
	TEST_ENTRY(test_a_record_taken_over_drains_by_its_old_targets_evidence,
		   "drain: a record taken over with its slot drains by its old target's evidence, never by the old CPU's poll count"),
	TEST_ENTRY(test_queue_taken_by_a_queued_frame_still_holds_the_fast_path,
		   "drain: a queue first seen here by a frame queued elsewhere still holds the fast path back, counted once"),
	TEST_ENTRY(test_queue_marker_out_before_a_pause_is_no_timeout,
		   "drain: a queue whose marker was out before a pause longer than the timeout is not counted as a timeout"),
	TEST_ENTRY(test_worker_reads_the_stamp_in_the_headroom,
		   "drain: the worker reads a stamp in the headroom in front of the frame, marks its sender's stream at its report count and hands the frame on unchanged"),
	TEST_ENTRY(test_worker_takes_no_stamp_without_its_tag,
		   "drain: the worker takes no stamp whose tag is not the key's: bytes an earlier frame left, zeros, or any while the key is unset"),
	TEST_ENTRY(test_worker_marks_the_stamps_target_wherever_it_runs,
		   "drain: a worker's kthread running on another CPU marks its own entry's streams, by the stamp's target"),
	TEST_ENTRY(test_worker_looks_for_no_stamp_while_the_gate_is_shut,
		   "drain: the workers look for no stamp while the gate is shut, and a stamped frame opens it"),
	TEST_ENTRY(test_a_kthread_report_counts_for_its_entry_wherever_it_runs,
		   "drain: a kthread's batch report counts for its entry, told by its name and cpumap, wherever it runs"),
	TEST_ENTRY(test_an_enqueue_report_adds_what_entered_the_ring,
		   "drain: an enqueue report adds what entered the entry's ring, drops not"),
	TEST_ENTRY(test_a_napi_poll_counts_for_its_cpu,
		   "drain: a NAPI poll's end counts for its CPU"),
	TEST_ENTRY(test_the_real_worker_and_tracepoints_publish_and_release,
		   "drain: the real worker and tracepoints publish the evidence, and it releases a moved bucket"),
	TEST_ENTRY(test_unstamped_frames_leave_no_mark_and_are_reported,
		   "drain: unstamped frames leave no mark, and their kthread reports them for their entry"),
};
const size_t n_drain_tests = ARRAY_SIZE(drain_tests);
