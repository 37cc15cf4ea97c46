// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * drain.c - the drain state machine of bpf/drain.h, frame by frame. The
 * receiving side is the real program under bpf_prog_test_run_opts on this
 * CPU; the old worker's side (what it dequeued, its count, when it last
 * ran) is written into its maps by hand, so each case sets exactly the
 * evidence it is about and nothing races. The last cases let the real
 * worker publish that evidence, with live frames through the cpumap.
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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <netinet/in.h>
#include <linux/if_ether.h>

#include "fixtures.h"
#include "kernel/clock.h"

/* Drain timeouts in jiffies, as the slot keeps them: a long one (a second
 * and more) that cases not about the timeout never reach, and about 25 ms
 * for the cases that wait it out (short_ticks(), by the tick rate). */
#define NO_TIMEOUT	1000
#define SHORT_MS	25
/* The drain window, open through a whole case: the cases are about what
 * the records decide inside the window the loader opens around a flip. */
#define WINDOW_TICKS	100000

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

/* Drain on with 'flags', every bucket on CPU 'from', drain state empty. */
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
		err = steer_prog_window(&prog, WINDOW_TICKS);
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

/* Frames this CPU queued to 'cpu' (steer_seq): where the frames went. */
static __u32 queued_to(int cpu)
{
	__u32 key = local_cpu * STEER_TARGETS + cpu, v = ~0u;

	bpf_map_lookup_elem(prog.steer_seq, &key, &v);
	return v;
}

/* This CPU's record of the bucket. */
static struct steer_bucket bucket_state(const struct drain_case *c)
{
	struct steer_bucket v[prog.ncpus], b = { .target = 0xdead };

	if (!bpf_map_lookup_elem(prog.steer_buckets, &c->record, v))
		b = v[local_cpu];
	return b;
}

static struct steer_stats stats(void)
{
	struct steer_stats st = {};

	steer_prog_read_stats(&prog, &st);
	return st;
}

/* ---- the old worker's side, written by hand ------------------------------- */

/* CPU 'target' has dequeued this CPU's frames up to 'seq', at its count
 * 'total', and last ran at 'last_ns' (bpf_ktime_get_ns; its clock on). */
static bool publish(int target, __u32 seq, __u32 total, __u64 last_ns)
{
	__u32 key = target * STEER_MAX_CPUS + local_cpu, t = target;
	struct steer_deq d = { .h = { STEER_MARK(seq, total) } };
	struct steer_wclock clock;
	int err;

	err = bpf_map_update_elem(prog.steer_deq, &key, &d, BPF_ANY);
	if (!err)
		err = bpf_map_update_elem(prog.steer_wtot, &t, &total, BPF_ANY);
	if (!err && bpf_map_lookup_elem(prog.steer_wclock, &t, &clock))
		err = -errno;
	if (!err) {
		clock.last_ns = last_ns;
		err = bpf_map_update_elem(prog.steer_wclock, &t, &clock,
					  BPF_ANY);
	}
	return EXPECT_EQ(err, 0, "the worker's marks were written");
}

/* CPU 'target' has dequeued 'total' frames in all. */
static bool set_wtot(int target, __u32 total)
{
	__u32 t = target;

	return EXPECT_EQ(bpf_map_update_elem(prog.steer_wtot, &t, &total,
					     BPF_ANY), 0,
			 "the worker's count was written");
}

/* CPU 'target's clock (steer_wclock). */
static struct steer_wclock wclock(int target)
{
	struct steer_wclock clock = {};
	__u32 t = target;

	bpf_map_lookup_elem(prog.steer_wclock, &t, &clock);
	return clock;
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

/* The other receiving CPU (R) queued 'sent' frames to 'target', which
 * dequeued 'dequeued' of them. */
static bool other_rx_queued(int target, __u32 sent, __u32 dequeued)
{
	__u32 rx = remote_cpu, one = 1, key;
	struct steer_deq d = { .h = { STEER_MARK(dequeued, dequeued) } };
	int err;

	if (!other_rx_queued_lately())
		return false;
	err = bpf_map_update_elem(prog.steer_rx_cpus, &rx, &one, BPF_ANY);
	key = rx * STEER_TARGETS + target;
	if (!err)
		err = bpf_map_update_elem(prog.steer_seq, &key, &sent, BPF_ANY);
	key = target * STEER_MAX_CPUS + rx;
	if (!err)
		err = bpf_map_update_elem(prog.steer_deq, &key, &d, BPF_ANY);
	return EXPECT_EQ(err, 0, "another CPU's frames were set up");
}

/* Long enough ago that the worker is idle (STEER_DRAIN_IDLE_NS). */
#define IDLE_SINCE()	(now_ns() - 1000000000ull)
/* A worker stamping as we look: busy. */
#define BUSY_NOW()	(now_ns() + 1000000000ull)

/* The bucket arrives cold at L's fast path while R queues frames too: its
 * first frame goes through L's own queue, behind whatever R may have
 * queued there; once L has dequeued it and is idle, the bucket takes the
 * fast path. Leaves it warm there (one move done). */
static bool warm_on_fastpath(const struct frame *f)
{
	__u32 q = queued_to(local_cpu);

	if (!other_rx_queued_lately() ||
	    !EXPECT_EQ(send_frame(f), XDP_REDIRECT,
		       "arriving cold, the bucket's first frame goes through L's own queue") ||
	    !EXPECT_EQ(queued_to(local_cpu), q + 1, "stamped, to L") ||
	    !publish(local_cpu, q + 1, q + 1, IDLE_SINCE()))
		return false;
	return EXPECT_EQ(send_frame(f), XDP_PASS,
			 "once L has dequeued it, the bucket takes the fast path");
}

/* ---- cases ------------------------------------------------------------------ */

static void test_held_until_dequeued(void)
{
	struct drain_case c;
	struct steer_bucket b;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame is queued");
	EXPECT_EQ(queued_to(remote_cpu), 1, "to R");
	if (!move_to(&c, local_cpu))
		return;

	/* R has dequeued nothing: the bucket stays. */
	send_frame(&c.f);
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 3, "frames after the move still go to R");
	EXPECT_EQ(queued_to(local_cpu), 0, "none to L yet");
	b = bucket_state(&c);
	EXPECT(b.since != 0, "the bucket is marked as draining");
	EXPECT_EQ(stats().drain_held, 2, "drain_held counts the two");

	/* R is idle but has dequeued only up to frame 2 of 3. */
	if (!publish(remote_cpu, 2, 2, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 4, "with its last frame not dequeued, the bucket stays");

	/* R has dequeued all 4 of ours and is idle, but frames another
	 * receiving CPU (R itself) queued to R are still in its ring: R has
	 * not finished. */
	if (!publish(remote_cpu, 4, 4, IDLE_SINCE()) ||
	    !other_rx_queued(remote_cpu, 2, 1))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "while another CPU's frames wait in R's ring, the bucket stays");

	/* Those are out too: the next frame goes to L. */
	if (!publish(remote_cpu, 5, 6, IDLE_SINCE()) ||
	    !other_rx_queued(remote_cpu, 2, 2))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R dequeued every frame and went idle, the bucket moves to L");
	EXPECT_EQ(queued_to(remote_cpu), 5, "and nothing more goes to R");
	b = bucket_state(&c);
	EXPECT_EQ(b.target, local_cpu, "the bucket's record says L");
	EXPECT_EQ(b.since, 0, "and it no longer drains");
	EXPECT_EQ(stats().moves_done, 1, "moves_done counts the move");
	EXPECT_EQ(stats().moves_timeout, 0, "not as a timeout");
}

/* The old CPU's cpumap entry vanishes while the bucket drains from it (an
 * apply retired it, wrongly, or an operator deleted it): held frames are
 * then passed here, and the bucket keeps waiting for the last frame that
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
	b = bucket_state(&c);
	EXPECT_EQ(b.seq, 3, "the bucket still waits for R's third frame");
	/* R dequeued two of the three, and 100 frames of others after them
	 * (past STEER_FLUSH_GAP): a wait for seq 0 would end here. */
	if (publish(remote_cpu, 2, 100, IDLE_SINCE()) &&
	    set_wtot(remote_cpu, 200)) {
		send_frame(&c.f);
		EXPECT_EQ(queued_to(local_cpu), 0, "and does not move while R's ring holds it");
		EXPECT_EQ(stats().moves_done, 0, "no move is counted");
	}
	err = steer_prog_add_cpu(&prog, remote_cpu, QSIZE, prog.worker_fd);
	EXPECT_EQ(err, 0, "R's cpumap entry was put back");
}

static void test_busy_worker_holds(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu) ||
	    !publish(remote_cpu, 1, 5, BUSY_NOW()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 2, "R dequeued the frame but is still in its batch: the bucket stays");
	EXPECT_EQ(queued_to(local_cpu), 0, "nothing to L");

	/* A stamp a little after the program's clock (another CPU's store)
	 * is busy too, not idle for 2^64 ns. */
	if (!publish(remote_cpu, 2, 6, now_ns() + 20000))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "a worker stamp ahead of the clock means busy");

	if (!publish(remote_cpu, 3, 7, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R is idle with its ring empty, the bucket moves");
}

/* R's count of dequeued frames, as its cpumap program keeps it. */
static bool set_count(int target, __u32 total)
{
	__u32 t = target;

	return EXPECT_EQ(bpf_map_update_elem(prog.steer_wtot, &t, &total,
					     BPF_ANY), 0, "the count was written");
}

/* A worker that never idles flushes GRO within STEER_FLUSH_GAP frames:
 * once that many followed the bucket's last frame there, the bucket may
 * go, busy worker or not (HZ < 1000: every flush is a full one). */
static void test_flush_gap_releases(void)
{
	struct drain_case c;
	__u32 last;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu))
		return;
	send_frame(&c.f);
	last = queued_to(remote_cpu);

	/* The bucket's last frame was dequeued at count 10; the worker
	 * goes on, busy. */
	if (!publish(remote_cpu, last, 10, BUSY_NOW()) ||
	    !set_count(remote_cpu, 10 + STEER_FLUSH_GAP - 1))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "79 frames after its last are not enough");

	/* That frame went to R too: the mark stops one short of it. */
	last = queued_to(remote_cpu);
	if (!publish(remote_cpu, last - 1, 10, BUSY_NOW()) ||
	    !set_count(remote_cpu, 10 + 10 * STEER_FLUSH_GAP))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "a mark short of the bucket's last frame releases nothing");

	/* Two marks past it: the earlier bounds its dequeue (count 10,
	 * 80 ago); the later one (count 60, 30 ago) does not hold it. */
	last = queued_to(remote_cpu);
	if (!publish(remote_cpu, last, 10, BUSY_NOW()) ||
	    !set_count(remote_cpu, 10 + STEER_FLUSH_GAP))
		return;
	{
		__u32 key = remote_cpu * STEER_MAX_CPUS + local_cpu;
		struct steer_deq d = { .h = { STEER_MARK(last + 2, 60),
					      STEER_MARK(last, 10) } };

		if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_deq, &key, &d,
						   BPF_ANY), 0, "two marks were written"))
			return;
	}
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "80 frames after its last, the bucket leaves the busy CPU");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
}

/* HZ >= 1000: GRO keeps segments younger than a tick across busy flushes.
 * The bucket waits a whole epoch, and until the epoch after its frame
 * began gro_units ago. One try: -EAGAIN when the clock ran gro_units
 * ticks between writing an epoch's start and the frame that reads it (a
 * guest's jiffies catch up several ticks at once under TCG), before its
 * verdict was judged; else 0, whatever the checks said. */
static int gro_units_try(void)
{
	__u32 key, began, last, moved;
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
	if (!publish(remote_cpu, last, 10, BUSY_NOW()) ||
	    !set_count(remote_cpu, 10 + STEER_FLUSH_GAP))
		return 0;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "80 frames after it are not enough where GRO keeps young segments");

	/* A whole epoch after it, and the next epoch has just begun. */
	key = remote_cpu * 4 + ((10 / STEER_EPOCH + 1) & 3);
	began = jiffies();
	last = queued_to(remote_cpu);
	if (!publish(remote_cpu, last, 10, BUSY_NOW()) ||
	    !set_count(remote_cpu, 10 + STEER_EPOCH) ||
	    !EXPECT_EQ(bpf_map_update_elem(prog.steer_wtime, &key, &began,
					   BPF_ANY), 0, "the epoch's start was written"))
		return 0;
	send_frame(&c.f);
	moved = queued_to(local_cpu);
	if (jiffies() - began >= c.s.gro_units)
		return -EAGAIN;
	EXPECT_EQ(moved, 0, "an epoch after it, but within gro_units of its start, it waits");

	/* The epoch began gro_units (and one) ago. */
	began = jiffies() - 3;
	last = queued_to(remote_cpu);
	if (!publish(remote_cpu, last, 10, BUSY_NOW()) ||
	    !set_count(remote_cpu, 10 + STEER_EPOCH) ||
	    !EXPECT_EQ(bpf_map_update_elem(prog.steer_wtime, &key, &began,
					   BPF_ANY), 0, "the epoch's start was written"))
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

/* Sends the bucket's frame about every millisecond until it moves (the
 * drain timeout is a few ticks): *moved_after gets how many jiffies that
 * took, read on the datapath's own clock, so a guest whose jiffies catch
 * up several ticks at once cannot make the move look early. Returns false
 * when this process was kept off its CPU for a timeout's length between
 * two frames (the machine busy): the bucket then went cold, and the run
 * says nothing. */
static bool send_until_moved(const struct drain_case *c, int leaving_local,
			     __u32 *moved_after)
{
	__u64 prev = now_ns(), t, gap = 0;
	__u32 j0 = jiffies();
	bool moved = false;
	int i, verdict;

	*moved_after = 0;
	for (i = 0; i < 500 && !moved; i++) {
		verdict = send_frame(&c->f);
		t = now_ns();
		gap = t - prev > gap ? t - prev : gap;
		prev = t;
		moved = leaving_local ? verdict == XDP_REDIRECT :
					queued_to(local_cpu) > 0;
		if (moved)
			*moved_after = jiffies() - j0;
		sleep_us(1000);
	}
	return gap < ticks_ns(c->s.drain_units);
}

/* A target that dequeues nothing (stalled, its CPU gone): the bucket waits
 * the drain timeout, watched without a break, then goes anyway. */
static void test_stalled_target_times_out(void)
{
	struct drain_case c;
	__u32 moved_after;
	int tries = 0;

	do {
		if (!setup(&c, 0, remote_cpu, short_ticks()))
			return;
		send_frame(&c.f);
		if (!move_to(&c, local_cpu))
			return;
	} while (!send_until_moved(&c, 0, &moved_after) && ++tries < 5);
	EXPECT(tries < 5, "a run without this process held off its CPU");
	EXPECT(moved_after, "the bucket left the stalled CPU");
	EXPECT(moved_after >= short_ticks(),
	       "not before the drain timeout");
	EXPECT_EQ(stats().moves_timeout, 1, "counted in moves_timeout");
	EXPECT_EQ(stats().moves_done, 0, "not as drained");
}

/* The watch for a stall starts when a drain looks, not from a record an
 * old drain left: a stale record never moves a bucket at once. */
static void test_stale_watch_starts_over(void)
{
	struct steer_idle idle[prog.ncpus];
	struct drain_case c;
	__u32 t;

	if (!setup(&c, 0, remote_cpu, short_ticks()))
		return;
	send_frame(&c.f);
	/* An old drain saw R's count at 0 long ago. */
	t = remote_cpu;
	memset(idle, 0, sizeof(idle));
	idle[local_cpu].seen = jiffies() - 10000;
	idle[local_cpu].checked = jiffies() - 10000;
	if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_idle, &t, idle,
					   BPF_ANY), 0, "the old record was written") ||
	    !move_to(&c, local_cpu))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 0, "the bucket waits: R may just not have run yet");
	EXPECT_EQ(stats().moves_timeout, 0, "no timeout is counted");
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
	if (!publish(remote_cpu, 2, 2, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R delivered it, the flow moves to L");
}

static void test_idle_bucket_moves_at_once(void)
{
	struct drain_case c;

	if (!setup(&c, 0, remote_cpu, 2))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu))
		return;
	/* Two ticks, and one to spare. */
	sleep_us(3 * 1000000 / tick_rate() + 1000);
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "a bucket idle for the drain timeout moves on its next frame");
	EXPECT_EQ(stats().drain_held, 0, "nothing was held");
	EXPECT_EQ(stats().moves_idle, 1, "counted in moves_idle");
}

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

/* The drain window as the program sees it. */
static struct steer_window window(void)
{
	struct steer_window w = {};

	EXPECT_EQ(steer_prog_read_window(&prog, &w), 0, "the drain window was read");
	return w;
}

/* Open as the datapath tells it (window_of() in bpf/drain.h). */
static bool window_open(void)
{
	struct steer_window w = window();
	__u32 now = jiffies();

	return w.until - now - 1 < STEER_WINDOW_MAX ||
	       w.held_until - now - 1 < STEER_WINDOW_MAX;
}

/* Nothing moving: outside the window drain costs no stamp and no record;
 * the frame goes where the table says. Inside, both come back. */
static void test_closed_window_keeps_no_records(void)
{
	struct drain_case c;
	struct steer_stats st;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was closed"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued");
	st = stats();
	EXPECT_EQ(st.redirected, 1, "to its table CPU");
	EXPECT_EQ(queued_to(remote_cpu), 0, "unstamped: this CPU's stream to R did not advance");
	EXPECT_EQ(bucket_state(&c).last, 0, "no bucket record was written");
	EXPECT_EQ(st.unstamped, 0, "and no metadata was refused");

	if (!EXPECT_EQ(steer_prog_window(&prog, WINDOW_TICKS), 0,
		       "the window was opened"))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 1, "in the window the frame is stamped");
	EXPECT(bucket_state(&c).last != 0, "and its bucket recorded");
	EXPECT_EQ(bucket_state(&c).target, remote_cpu, "as sent to R");
}

/* A CPU that found the window shut does not look again for the rest of
 * that tick (steer_stats.window_shut): a window the loader opens then is
 * seen from the next tick on, which the two ticks it waits past the drain
 * timeout before a flip cover (drain.h, window_shut()). The window is
 * written here as the loader writes it, the CPUs' memory left alone. */
static void test_window_opened_is_seen_from_the_next_tick(void)
{
	struct steer_window w = {};
	struct drain_case c;
	__u32 zero = 0, before, after = 0;
	int tries;

	/* The shut window found and the open one written in one tick. A try
	 * that crossed a tick may have stamped its second frame (the window
	 * open, the tick new): the next starts from empty drain state. */
	for (tries = 0; tries < 20; tries++) {
		if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) ||
		    !EXPECT_EQ(steer_prog_window(&prog, 0), 0,
			       "the window was closed"))
			return;
		before = jiffies();
		send_frame(&c.f);
		w.until = before + WINDOW_TICKS;
		w.held_until = w.opened = w.flipped = before;
		if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_window, &zero,
						   &w, BPF_ANY), 0,
			       "the window was opened behind the CPU's back"))
			return;
		send_frame(&c.f);
		after = jiffies();
		if (after == before)
			break;
	}
	if (!EXPECT_EQ(after, before, "two frames ran in one tick"))
		return;
	EXPECT_EQ(queued_to(remote_cpu), 0, "in the tick the window was found shut, no frame is stamped");
	EXPECT_EQ(bucket_state(&c).last, 0, "nor recorded");
	sleep_us(1000000 / tick_rate() + 1000);
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 1, "from the next tick on the frames are stamped");
	EXPECT(bucket_state(&c).last != 0, "and their bucket recorded");
}

/* A CPU holding a bucket back keeps the window open past the loader's
 * end, until the bucket would be cold: the CPUs keep stamping while one
 * still waits, so a drain's evidence never stops half way. */
static void test_held_bucket_keeps_the_window_open(void)
{
	struct drain_case c;
	struct steer_window w;
	__u32 before;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT))
		return;
	send_frame(&c.f);
	if (!move_to(&c, local_cpu) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 2), 0,
		       "the window was left open two ticks"))
		return;
	before = jiffies();
	send_frame(&c.f);
	EXPECT_EQ(stats().drain_held, 1, "R dequeued nothing: the frame is held");
	w = window();
	EXPECT(w.held_until - before >= NO_TIMEOUT + 2 &&
	       w.held_until - before < NO_TIMEOUT + 4,
	       "the hold keeps the window open the drain timeout and two ticks");
	/* Past the loader's end: still stamping, still held. */
	sleep_us(3 * 1000000 / tick_rate() + 1000);
	send_frame(&c.f);
	EXPECT_EQ(queued_to(remote_cpu), 3, "past the loader's end the frames are stamped and held");
	EXPECT_EQ(queued_to(local_cpu), 0, "none went to L");
}

/* The fast path outside the window: a frame queued to another CPU is
 * neither stamped nor recorded, as without the fast path; a warm bucket
 * on the fast path writes its own record only: the tick of its frames,
 * and this CPU's count at its last one (window open or not, so the
 * window need not be looked at). */
static void test_fastpath_outside_the_window_keeps_no_records(void)
{
	struct drain_case c, here;
	struct steer_bucket b0, b1;
	int i;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, remote_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was closed"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame is queued to R");
	EXPECT_EQ(queued_to(remote_cpu), 0, "unstamped");
	EXPECT_EQ(bucket_state(&c).last, 0, "and unrecorded");

	if (!setup(&here, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was closed") ||
	    !warm_on_fastpath(&here.f))
		return;
	b0 = bucket_state(&here);
	/* Two ticks on, so the tick of the frames below is a new one. */
	sleep_us(2 * 1000000 / tick_rate() + 1000);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(send_frame(&here.f), XDP_PASS, "warm, the bucket stays on the fast path");
	b1 = bucket_state(&here);
	EXPECT_EQ(b1.target, STEER_TARGET_LOCAL | local_cpu, "its record says passed here");
	EXPECT_EQ(b1.seq - b0.seq, 10, "its count at its last frame, 10 frames on");
	EXPECT(b1.last != b0.last && jiffies() - b1.last <= 1,
	       "but the tick of its last frame, so it stays warm");
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

/* Leaving the fast path: frames passed here reach the stack when this
 * NAPI poll ends, so the bucket goes only at a gap of STEER_POLL_GAP of
 * this CPU's frames. */
static void test_leaving_fastpath_waits_for_a_gap(void)
{
	struct drain_case c;
	struct frame o;
	int i;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !other_frame(&c, &o) || !warm_on_fastpath(&c.f) ||
	    !warm_on_fastpath(&o))
		return;
	if (!move_to(&c, remote_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "right after the move it still is");
	for (i = 0; i < STEER_POLL_GAP - 2; i++)
		send_frame(&o);
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "after a gap of 127 frames it still is");
	EXPECT_EQ(queued_to(remote_cpu), 0, "nothing went to R");
	for (i = 0; i < STEER_POLL_GAP - 1; i++)
		send_frame(&o);
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "after a gap of 128 frames it goes to R");
	EXPECT_EQ(queued_to(remote_cpu), 1, "queued to R");
	EXPECT_EQ(stats().drain_held, 2, "two frames were held");
	EXPECT_EQ(stats().moves_done, 3, "counted in moves_done (with the two warm-ups')");
}

/* An elephant never pauses for a poll's length; it moves at the timeout. */
static void test_fastpath_elephant_times_out(void)
{
	struct drain_case c;
	__u32 moved_after;
	int tries = 0;

	do {
		if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu,
			   short_ticks()) || !warm_on_fastpath(&c.f))
			return;
		if (!move_to(&c, remote_cpu))
			return;
	} while (!send_until_moved(&c, 1, &moved_after) && ++tries < 5);
	EXPECT(tries < 5, "a run without this process held off its CPU");
	EXPECT(moved_after, "the elephant left the fast path");
	EXPECT(moved_after >= short_ticks(),
	       "not before the drain timeout");
	EXPECT_EQ(stats().moves_timeout, 1, "counted in moves_timeout");
}

/* A bucket arriving cold at the fast path while another receiving CPU's
 * frames to this CPU are still queued: it lines up behind them in this
 * CPU's queue, then moves to the fast path once its frames there are out,
 * and so are the others' before them. */
static void test_cold_fastpath_lines_up_behind_the_queue(void)
{
	__u32 key, one = 1, sent = 5;
	struct drain_case c;
	struct steer_deq d = { .h = { STEER_MARK(3, 3) } };

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT))
		return;
	/* R received and queued 5 frames to L; L has dequeued 3. */
	if (!other_rx_queued_lately())
		return;
	key = remote_cpu;
	bpf_map_update_elem(prog.steer_rx_cpus, &key, &one, BPF_ANY);
	key = remote_cpu * STEER_TARGETS + local_cpu;
	bpf_map_update_elem(prog.steer_seq, &key, &sent, BPF_ANY);
	key = local_cpu * STEER_MAX_CPUS + remote_cpu;
	if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_deq, &key, &d, BPF_ANY),
		       0, "R's frames to L were set up"))
		return;

	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the frame goes through L's own queue, not the fast path");
	EXPECT_EQ(queued_to(local_cpu), 1, "queued to L");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "and so does the next, while its first is queued");

	/* L dequeued R's last two and ours, and is idle. */
	d.h[0] = STEER_MARK(5, 7);
	bpf_map_update_elem(prog.steer_deq, &key, &d, BPF_ANY);
	if (!publish(local_cpu, 2, 7, IDLE_SINCE()))
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
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was closed") ||
	    !other_rx_queued_lately())
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame is queued to L");
	EXPECT_EQ(queued_to(local_cpu), 1, "stamped, the window shut or not");
	EXPECT_EQ(bucket_state(&c).target, local_cpu, "the bucket is recorded as queued to L");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "while it is queued, so is the next");
	if (!publish(local_cpu, 2, 2, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "out and L idle: the fast path");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
	EXPECT(!window_open(), "this CPU's own move never opened the window");
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
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was closed") ||
	    !EXPECT_EQ(clock_jiffies64(&j), 0, "jiffies were read") ||
	    !EXPECT_EQ(steer_prog_queued_tick(&prog, remote_cpu,
					      j - short_ticks() - 1), 0,
		       "R last queued a frame a drain timeout ago"))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "the window shut, R's queueing older than the timeout: the fast path");
	EXPECT_EQ(queued_to(local_cpu), 0, "nothing went through L's own queue");
	EXPECT_EQ(stats().moves_done + stats().moves_idle, 0, "no move counted");
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
	__u16 sport;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was closed") ||
	    !other_frame(&c, &o) ||
	    !EXPECT_EQ(steer_prog_set_bucket(&prog, 0, bucket_of(&o, &c.s),
					     remote_cpu), 0,
		       "o's bucket is on R"))
		return;
	/* x: a third bucket, on L. */
	for (sport = SPORT + 1; sport != SPORT; sport++) {
		udp_frame(&x, sport);
		if (bucket_of(&x, &c.s) != c.bucket &&
		    bucket_of(&x, &c.s) != bucket_of(&o, &c.s))
			break;
	}
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
	__u32 key;
	struct steer_deq d = { .h = { STEER_MARK(3, 3) } };

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was closed") ||
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f))
		return;
	if (!queue_was_on(remote_cpu) || !other_rx_queued(local_cpu, 5, 3))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "after the queue moved here, its frames go through L's own queue");
	EXPECT_EQ(stats().rxq_moves, 1, "the move is counted in rxq_moves");
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "and so does the next, while the marker is queued");
	EXPECT_EQ(queued_to(local_cpu), 3, "both queued to L, after the warm-up's");

	/* L dequeued R's last two and our three, and is idle. */
	key = local_cpu * STEER_MAX_CPUS + remote_cpu;
	d.h[0] = STEER_MARK(5, 8);
	if (!EXPECT_EQ(bpf_map_update_elem(prog.steer_deq, &key, &d, BPF_ANY),
		       0, "R's frames were dequeued") ||
	    !publish(local_cpu, 3, 8, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "once they are out, the bucket is back on the fast path");
	EXPECT_EQ(stats().moves_done, 3, "warm-up, off the fast path and back: counted in moves_done");
	EXPECT_EQ(stats().rxq_moves, 1, "one move in all");
	EXPECT(!window_open(), "the window stayed shut");
}

/* The marker alone decides: a queue moving here from a CPU that sent
 * nothing here gives the fast path back once the marker is out. */
static void test_queue_moved_here_resumes_once_its_marker_is_out(void)
{
	struct drain_case c;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, NO_TIMEOUT) ||
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f) ||
	    !queue_was_on(remote_cpu))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame after the move is the marker, in L's queue");
	EXPECT_EQ(stats().rxq_moves, 1, "the move is counted");
	if (!publish(local_cpu, 2, 2, IDLE_SINCE()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_PASS, "the marker out, the fast path goes on");
	EXPECT_EQ(queued_to(local_cpu), 2, "only the warm-up's frame and the marker were queued");
}

/* R's frames never come out (dropped at a full ring, or L stalled): the
 * fast path comes back at the drain timeout, counted. */
static void test_queue_moved_here_times_out(void)
{
	struct drain_case c;
	__u32 j0, waited = 0;
	__u64 t0;
	int v = XDP_REDIRECT;

	if (!setup(&c, STEER_F_LOCAL_FASTPATH, local_cpu, short_ticks()) ||
	    !queue_was_on(remote_cpu) || !other_rx_queued(local_cpu, 5, 3))
		return;
	/* L keeps dequeuing (busy), but never R's last two. */
	if (!publish(local_cpu, 0, 3, BUSY_NOW()))
		return;
	/* The wait in jiffies, the datapath's clock (see send_until_moved()). */
	t0 = now_ns();
	j0 = jiffies();
	while (v == XDP_REDIRECT && now_ns() - t0 < 20 * ticks_ns(short_ticks())) {
		v = send_frame(&c.f);
		if (v == XDP_PASS)
			waited = jiffies() - j0;
		sleep_us(1000);
	}
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
	if (!publish(local_cpu, 1, 1, IDLE_SINCE()))
		return;
	t0 = jiffies();
	while (jiffies() - t0 < 2 * short_ticks())
		sleep_us(2000);
	send_frame(&c.f);
	EXPECT_EQ(stats().moves_timeout, 0, "the marker was out: no move ended by the timeout");
	if (!publish(local_cpu, 2, 2, IDLE_SINCE()))
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
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f) ||
	    !queue_was_on(remote_cpu) || !other_rx_queued(local_cpu, 5, 3))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "the first frame after the move is the marker, in L's queue");
	marker = queued_to(local_cpu);
	t0 = jiffies();
	while (jiffies() - t0 < 2 * short_ticks())
		sleep_us(2000);
	/* L dequeued R's two and is at work again, the marker next. */
	if (!publish(local_cpu, marker - 1, marker + 4, BUSY_NOW()))
		return;
	EXPECT_EQ(send_frame(&c.f), XDP_REDIRECT, "after the pause the marker is still queued: still through L's queue");
	EXPECT_EQ(stats().moves_timeout, 0, "a pause is no stall: no timeout counted");
	if (!other_rx_queued(local_cpu, 5, 5) ||
	    !publish(local_cpu, marker + 1, marker + 6, IDLE_SINCE()))
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
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f) ||
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
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f) ||
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
	    !queue_was_on(local_cpu) || !warm_on_fastpath(&c.f) ||
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
	EXPECT_EQ(queued_to(remote_cpu), 2, "while R has dequeued nothing, the next goes there too");
	if (!publish(remote_cpu, 2, 2, IDLE_SINCE()))
		return;
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "once R dequeued ours and went idle, the bucket moves to L");
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

/* ---- the real worker ------------------------------------------------------------ */

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
 * EPERM as root). The worker's own part is then tested by the cases
 * below, which run it as a plain XDP program. */
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

static bool wait_worker(__u64 packets)
{
	struct steer_worker_stats ws = {};
	int i;

	for (i = 0; i < 2000; i++) {
		steer_prog_read_worker_stats(&prog, &ws);
		if (ws.packets >= packets)
			return true;
		sleep_us(1000);
	}
	return EXPECT_EQ(ws.packets, packets, "the worker dequeued every frame");
}

static void test_worker_publishes_what_it_dequeued(void)
{
	__u32 n = 200, key, total = 0, began = 0;
	struct steer_stats st;
	struct steer_deq d = {};
	struct steer_wclock clock;
	struct drain_case c;
	int err;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !private_netns())
		return;
	err = run_live(&c.f, n);
	if (live_refused(err))
		return;
	if (!EXPECT_EQ(err, 0, "the live frames ran") || !wait_worker(n))
		return;
	st = stats();
	EXPECT_EQ(st.unstamped, 0, "every frame carried its stamp");
	EXPECT_EQ(queued_to(remote_cpu), n, "this CPU queued n frames to R");

	key = remote_cpu * STEER_MAX_CPUS + local_cpu;
	bpf_map_lookup_elem(prog.steer_deq, &key, &d);
	/* n = 200: epoch 6 (frames 192-200) at h[2], 5 at h[1], 4 at h[0],
	 * 3 (96-127) at h[3]. */
	EXPECT_EQ(d.h[(n / STEER_MARK_EPOCH) % STEER_MARKS], STEER_MARK(n, n),
		  "R's latest mark is our last frame, at its count n");
	EXPECT_EQ(d.h[1], STEER_MARK(191, 191), "epoch 5's last frame is marked");
	EXPECT_EQ(d.h[0], STEER_MARK(159, 159), "epoch 4's last frame is marked");
	EXPECT_EQ(d.h[3], STEER_MARK(127, 127), "epoch 3's last frame is marked");
	key = remote_cpu;
	bpf_map_lookup_elem(prog.steer_wtot, &key, &total);
	EXPECT_EQ(total, n, "steer_wtot counts what R dequeued");
	clock = wclock(remote_cpu);
	EXPECT(clock.last_ns && clock.last_ns <= now_ns() &&
	       now_ns() - clock.last_ns < 10000000000ull,
	       "R's clock holds when it last ran, stamped frames holding it on");
	EXPECT(clock.until - jiffies() - 1 < STEER_WINDOW_MAX,
	       "and is on for the drain timeout after our last frame");
	key = remote_cpu * 4 + 1;
	bpf_map_lookup_elem(prog.steer_wtime, &key, &began);
	EXPECT(began && began <= jiffies(), "steer_wtime holds when epoch 1 began");

	/* The real marks release a moved bucket once R is idle. */
	if (!move_to(&c, local_cpu))
		return;
	sleep_us(2 * STEER_DRAIN_IDLE_NS / 1000);
	send_frame(&c.f);
	EXPECT_EQ(queued_to(local_cpu), 1, "with R's marks, the moved bucket goes to L");
	EXPECT_EQ(stats().moves_done, 1, "counted in moves_done");
}

/* With the window shut a frame carries no stamp, and the worker still
 * counts it, by the target its program serves: each bank's entry runs
 * that bank's program, so a drain's flush gap and idle test see every
 * frame dequeued. */
static void test_worker_counts_every_frame_by_bank(void)
{
	struct bpf_cpumap_val v = { .qsize = QSIZE };
	__u32 n = 100, cpu = remote_cpu, key, total = 0, bank0 = 0;
	struct steer_deq d = {};
	struct drain_case c;
	int err, i;

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !private_netns() ||
	    !EXPECT_EQ(steer_prog_window(&prog, 0), 0, "the window was closed"))
		return;
	c.s.bank = 1;
	v.bpf_prog.fd = prog.worker_fds[1];
	if (!EXPECT_EQ(commit(&c.s), 0, "the slot uses bank 1") ||
	    !EXPECT_EQ(bpf_map_update_elem(prog.cpu_map_b, &cpu, &v, BPF_ANY),
		       0, "R has a bank-1 entry with the bank-1 program"))
		return;
	err = run_live(&c.f, n);
	if (live_refused(err))
		goto out;
	if (!EXPECT_EQ(err, 0, "the live frames ran"))
		goto out;
	key = STEER_MAX_CPUS + remote_cpu;
	for (i = 0; i < 2000 && total < n; i++) {
		bpf_map_lookup_elem(prog.steer_wtot, &key, &total);
		sleep_us(1000);
	}
	EXPECT_EQ(total, n, "R's bank-1 target counted every frame");
	EXPECT_EQ(queued_to(STEER_MAX_CPUS + remote_cpu), 0, "though none was stamped");
	key = remote_cpu;
	bpf_map_lookup_elem(prog.steer_wtot, &key, &bank0);
	EXPECT_EQ(bank0, 0, "R's bank-0 target counted none");
	key = (STEER_MAX_CPUS + remote_cpu) * STEER_MAX_CPUS + local_cpu;
	bpf_map_lookup_elem(prog.steer_deq, &key, &d);
	EXPECT(!d.h[0] && !d.h[1] && !d.h[2] && !d.h[3],
	       "unstamped frames leave no mark");
	EXPECT_EQ(wclock(STEER_MAX_CPUS + remote_cpu).last_ns, 0,
		  "nor read the worker's clock: no drain could ask");
out:
	bpf_map_delete_elem(prog.cpu_map_b, &cpu);
	c.s.bank = 0;
	commit(&c.s);
}

/* ---- the worker's stamps, run by hand --------------------------------------- */

/* The stamp R's frame to L carries: its 'seq', the tag under the key the
 * tests set (STEER_TEST_STAMP_KEY). */
static struct steer_stamp stamp_of(__u32 seq, int rx, int target)
{
	struct steer_stamp m = { .seq = seq, .rx_cpu = rx, .target = target };

	m.tag = steer_stamp_tag(m.seq, m.rx_cpu, m.target, STEER_TEST_STAMP_KEY);
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

/* L's worker: 'total' frames dequeued so far, no marks, its clock on
 * (a sender held it) or off. */
static bool worker_state(__u32 total, bool clock_on)
{
	__u32 t = local_cpu, key = local_cpu * STEER_MAX_CPUS + remote_cpu;
	struct steer_wclock clock = {};
	struct steer_deq d = {};
	int err;

	if (clock_on)
		clock.until = (jiffies() + 1000) | 1;
	err = bpf_map_update_elem(prog.steer_wclock, &t, &clock, BPF_ANY);
	if (!err)
		err = bpf_map_update_elem(prog.steer_wtot, &t, &total, BPF_ANY);
	if (!err)
		err = bpf_map_update_elem(prog.steer_deq, &key, &d, BPF_ANY);
	return EXPECT_EQ(err, 0, "L's worker state was written");
}

/* L's mark of R's stream in slot 'i' (steer_deq). */
static __u64 mark_of_remote(int i)
{
	__u32 key = local_cpu * STEER_MAX_CPUS + remote_cpu;
	struct steer_deq d = {};

	bpf_map_lookup_elem(prog.steer_deq, &key, &d);
	return d.h[i & (STEER_MARKS - 1)];
}

static __u32 wtot_of(int target)
{
	__u32 t = target, total = 0;

	bpf_map_lookup_elem(prog.steer_wtot, &t, &total);
	return total;
}

static void test_worker_reads_the_stamp_in_the_headroom(void)
{
	struct drain_case c;
	struct steer_stamp m = stamp_of(7, remote_cpu, local_cpu);

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !worker_state(4, true) ||
	    !run_worker(&c.f, &m))
		return;
	EXPECT_EQ(wtot_of(local_cpu), 5, "the frame counts in L's total");
	EXPECT_EQ(mark_of_remote(5 / STEER_MARK_EPOCH), STEER_MARK(7, 5),
		  "L marks R's stream: up to 7 dequeued at its count 5");
	EXPECT(wclock(local_cpu).last_ns, "and reads its clock, a drain may ask");
}

static void test_worker_takes_no_stamp_without_its_tag(void)
{
	struct drain_case c;
	struct steer_stamp m = stamp_of(7, remote_cpu, local_cpu);

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !worker_state(4, true))
		return;
	m.tag ^= 1;
	if (!run_worker(&c.f, &m))
		return;
	EXPECT_EQ(wtot_of(local_cpu), 5, "the frame counts in L's total");
	EXPECT_EQ(mark_of_remote(0), 0, "bytes an earlier frame left, one bit off the tag, mark nothing");
	m = stamp_of(7, remote_cpu, local_cpu);
	m.seq = 8;
	if (!run_worker(&c.f, &m))
		return;
	EXPECT_EQ(mark_of_remote(0), 0, "nor a tag of other fields");
	if (!run_worker(&c.f, NULL))
		return;
	EXPECT_EQ(mark_of_remote(0), 0, "nor a headroom of zeros");
	EXPECT_EQ(steer_prog_set_stamp_key(&prog, 0), 0, "the key was unset");
	m.tag = steer_stamp_tag(m.seq, m.rx_cpu, m.target, 0);
	run_worker(&c.f, &m);
	EXPECT_EQ(steer_prog_set_stamp_key(&prog, STEER_TEST_STAMP_KEY), 0,
		  "the key was set again");
	EXPECT_EQ(mark_of_remote(0), 0, "nor anything while the key is unset");
	EXPECT_EQ(wtot_of(local_cpu), 8, "every frame counted");
}

static void test_worker_takes_no_stamp_for_another_target(void)
{
	struct drain_case c;
	struct steer_stamp m = stamp_of(7, remote_cpu, remote_cpu);

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !worker_state(4, true) ||
	    !run_worker(&c.f, &m))
		return;
	EXPECT_EQ(mark_of_remote(0), 0,
		  "a stamp for R's queue, dequeued on L (a kthread off its CPU), marks nothing");
}

static void test_worker_looks_for_no_stamp_while_no_drain_may_ask(void)
{
	struct drain_case c;
	struct steer_stamp m = stamp_of(7, remote_cpu, local_cpu);

	if (!setup(&c, 0, remote_cpu, NO_TIMEOUT) || !worker_state(4, false) ||
	    !run_worker(&c.f, &m))
		return;
	EXPECT_EQ(wtot_of(local_cpu), 5, "the frame counts in L's total");
	EXPECT_EQ(mark_of_remote(0), 0, "with L's clock off, no stamp is looked for");
	EXPECT_EQ(wclock(local_cpu).last_ns, 0, "nor the clock read");
}

const struct test_case drain_tests[] = {
	TEST_ENTRY(test_first_frame_is_no_move,
		   "drain: a bucket's first frame goes to its CPU and counts as no move"),
	TEST_ENTRY(test_held_until_dequeued,
		   "drain: a moved bucket keeps its old CPU until that CPU dequeued its frames"),
	TEST_ENTRY(test_held_frame_without_its_entry_keeps_the_wait,
		   "drain: a held frame passed for want of its old CPU's entry keeps the bucket waiting for that CPU"),
	TEST_ENTRY(test_busy_worker_holds,
		   "drain: a bucket waits while its old CPU is still in its batch"),
	TEST_ENTRY(test_flush_gap_releases,
		   "drain: 80 frames after its last one, a bucket leaves a busy CPU"),
	TEST_ENTRY(test_gro_units_hold_a_tick,
		   "drain: where GRO keeps young segments, a bucket also waits an epoch and gro_units"),
	TEST_ENTRY(test_stalled_target_times_out,
		   "drain: a bucket leaves a CPU that dequeues nothing at the drain timeout, counted"),
	TEST_ENTRY(test_stale_watch_starts_over,
		   "drain: an old drain's record never calls a target stalled"),
	TEST_ENTRY(test_table_resize_keeps_the_drain,
		   "drain: a table_size change keeps each flow's drain"),
	TEST_ENTRY(test_idle_bucket_moves_at_once,
		   "drain: an idle bucket moves on its next frame"),
	TEST_ENTRY(test_closed_window_keeps_no_records,
		   "drain: outside the window nothing is stamped or recorded"),
	TEST_ENTRY(test_window_opened_is_seen_from_the_next_tick,
		   "drain: a window opened in a tick this CPU found it shut in is seen from the next tick on"),
	TEST_ENTRY(test_held_bucket_keeps_the_window_open,
		   "drain: a held bucket keeps the window open past the loader's end"),
	TEST_ENTRY(test_fastpath_outside_the_window_keeps_no_records,
		   "drain: with the fast path, outside the window queued frames are unstamped and warm local buckets write only their own record"),
	TEST_ENTRY(test_drain_off_moves_at_once,
		   "drain: off, a bucket moves on its next frame and nothing is stamped"),
	TEST_ENTRY(test_leaving_fastpath_waits_for_a_gap,
		   "drain: a bucket leaves the fast path only at a gap of 128 frames"),
	TEST_ENTRY(test_fastpath_elephant_times_out,
		   "drain: an elephant leaves the fast path at the drain timeout, counted"),
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
	TEST_ENTRY(test_queue_moved_here_times_out,
		   "drain: a queue moved here gives the fast path back at the drain timeout, counted"),
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
	TEST_ENTRY(test_queue_taken_by_a_queued_frame_still_holds_the_fast_path,
		   "drain: a queue first seen here by a frame queued elsewhere still holds the fast path back, counted once"),
	TEST_ENTRY(test_queue_marker_out_before_a_pause_is_no_timeout,
		   "drain: a queue whose marker was out before a pause longer than the timeout is not counted as a timeout"),
	TEST_ENTRY(test_worker_reads_the_stamp_in_the_headroom,
		   "drain: the worker reads a stamp in the headroom in front of the frame, marks its sender's stream and hands the frame on unchanged"),
	TEST_ENTRY(test_worker_takes_no_stamp_without_its_tag,
		   "drain: the worker takes no stamp whose tag is not the key's: bytes an earlier frame left, zeros, or any while the key is unset"),
	TEST_ENTRY(test_worker_takes_no_stamp_for_another_target,
		   "drain: the worker takes no stamp made for another target"),
	TEST_ENTRY(test_worker_looks_for_no_stamp_while_no_drain_may_ask,
		   "drain: the worker looks for no stamp while its clock is off"),
	TEST_ENTRY(test_worker_publishes_what_it_dequeued,
		   "drain: the real worker publishes its marks and they release a moved bucket"),
	TEST_ENTRY(test_worker_counts_every_frame_by_bank,
		   "drain: the worker counts unstamped frames too, by its bank's target"),
};
const size_t n_drain_tests = ARRAY_SIZE(drain_tests);
