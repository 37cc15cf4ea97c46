// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * steer_balance(): the adaptive balancer's rounds on one interface (see
 * steer.h). A round: count for the policy's interval, plan on the counts
 * (model/balance.h), apply the moves through the one apply path with the
 * slot in force read back and the new table (lib_apply_build), record the
 * round (steer_balance) and report it.
 *
 * The lock: counting takes none; reading the policy in force takes the
 * shared lock; a move takes the exclusive lock, like any apply, and is
 * made only if the generation it was planned against is still in force
 * (else an apply came between: the round is dropped, STALE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "kernel/possible.h"
#include "kernel/cpumap.h"
#include "kernel/evidence.h"
#include "kernel/cputime.h"
#include "kernel/maps.h"
#include "kernel/trace.h"
#include "kernel/slots.h"
#include "lib/lib_int.h"
#include "util/mono.h"

/* How often a balancer whose policy has no balance: looks again. */
#define IDLE_POLL_MS	1000

/* Rounds a balancer waits for the drains of an earlier change to end
 * before it plans around them, their buckets left where they are. A
 * bucket that carries much of a worker that never idles drains only when
 * its flows pause (bpf/README.md, "Moving flows"); one such
 * elephant must not stop every other move for as long as it runs. */
#define DRAIN_WAIT_ROUNDS	5

/* The balancer's log says how many buckets moved in the last minute. */
#define MINUTE_SLOTS	60

/* What a round reads: the policy in force, and the counters. */
struct sample {
	double t;				/* monotonic seconds */
	struct steer_ctl ctl;
	struct steer_slot slot;			/* table_size 0: no policy */
	int draining;				/* buckets still draining */
	int stalled;				/* ... from a stalled CPU */
	unsigned char stuck[STEER_CPU_IDS];	/* workers whose ring does
						 * not drain now */
	__u16 drain_rec[STEER_TABLE_MAX];	/* by drain bucket: the CPU
						 * (+ 1) its frames still go
						 * to while draining, else 0 */
	__u32 table[STEER_TABLE_MAX];
	__u32 weight[STEER_CPU_IDS];
	struct steer_load load[STEER_TABLE_MAX];	/* by drain bucket */
	struct steer_cpu_stats cpu[STEER_CPU_IDS];	/* sent toward: queued
							 * and passed there */
	struct cputime busy;				/* each CPU's ticks */
	bool traced;					/* ring was read */
	struct steer_ring_stats ring[STEER_CPU_IDS];	/* by worker, when
							 * traced */
};

struct balancer {
	struct steer_ctx *ctx;
	const char *ifname;
	const struct steer_balance_opts *o;
	struct steer_maps m;
	struct trace_maps t;			/* the ring counters */
	bool traced;				/* t is open */
	struct sample a, b;
	struct steer_stats *rx;			/* [ncpus]: steer_stats */
	int ncpus;
	struct balance_memory mem;
	int waited;				/* rounds a drain held up */
	unsigned char frozen[STEER_TABLE_MAX];	/* mem.left, and buckets
						 * draining */
	__u16 draining[STEER_TABLE_MAX];	/* by bucket: drain_rec's */
	struct balance_probe probe;		/* by CPU time */
	struct balance_plan plan;
	__u32 table[STEER_TABLE_MAX];		/* the plan's */
	double load[STEER_TABLE_MAX], frames[STEER_TABLE_MAX];
	double fixed[STEER_CPU_IDS];
	double own[STEER_CPU_IDS];		/* the load of each worker's
						 * buckets (loads()) */
	struct balance_cpu cpu[STEER_CPU_IDS];	/* by CPU time */
	unsigned char hold[STEER_CPU_IDS];	/* the round's (model/balance.h) */
	/* Buckets moved in each of the last MINUTE_SLOTS seconds, by
	 * second of the monotonic clock. */
	int moved[MINUTE_SLOTS];
	__u64 moved_sec[MINUTE_SLOTS];
	struct steer_balance rec;
	double read_s;		/* CPU time of the sample taken after a
				 * move, counted in the next round */
};

/* This thread's CPU time, seconds: what a round's phases cost. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* When process 'pid' started, in clock ticks after boot (field 22 of
 * /proc/PID/stat); -ESRCH when it is gone. */
static int proc_started(__u32 pid, __u64 *start)
{
	char path[64], buf[1024], *p;
	unsigned long long v;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* The name, field 2, may hold spaces: count from its ')'. */
	p = p ? strrchr(buf, ')') : NULL;
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &v) != 1)
		return -EINVAL;
	*start = v;
	return 0;
}

bool lib_balancer_alive(const struct steer_balance *rec)
{
	__u64 start;

	return rec->pid && !proc_started(rec->pid, &start) &&
	       start == rec->started;
}

/* Registers this process as the interface's balancer, under the
 * exclusive lock: another live one there is refused. */
static int enlist(struct balancer *bl)
{
	struct steer_balance old;
	struct lib_iface it;
	__u32 zero = 0;
	int err;

	err = lib_iface_begin(bl->ctx, bl->ifname, true, &it);
	if (err)
		goto out;
	memset(&bl->rec, 0, sizeof(bl->rec));
	bl->rec.pid = getpid();
	err = proc_started(bl->rec.pid, &bl->rec.started);
	if (err) {
		lib_fail(bl->ctx, err, "%s: cannot read this process's start in /proc: %s",
			 bl->ifname, strerror(-err));
		goto out;
	}
	if (bpf_map_lookup_elem(bl->m.steer_balance, &zero, &old)) {
		err = lib_fail(bl->ctx, -errno, "%s: reading steer_balance failed: %s",
			       bl->ifname, strerror(errno));
		goto out;
	}
	if (old.pid != bl->rec.pid && lib_balancer_alive(&old)) {
		err = lib_fail(bl->ctx, -EBUSY, "%s: a balancer already runs here (pid %u); stop it first, or add --dry-run to only watch",
			       bl->ifname, old.pid);
		goto out;
	}
	bl->rec.state = STEER_BAL_STARTING;
	if (bpf_map_update_elem(bl->m.steer_balance, &zero, &bl->rec, BPF_ANY))
		err = lib_fail(bl->ctx, -errno, "%s: writing steer_balance failed: %s",
			       bl->ifname, strerror(errno));
out:
	lib_iface_end(&it);
	return err;
}

/* -ENODEV when nothing steers with the maps any more: their pins outlive
 * the interface, and a program another tool took off; rounds would then
 * be idle for ever, saying nothing. A failed look is no answer: 0. */
static int check_steering(struct balancer *bl, const struct lib_iface *it)
{
	if (!it->ifindex)
		return lib_fail(bl->ctx, -ENODEV, "%s: the interface is gone; the balancer stops ('xdp-steer detach %s' removes its pins)",
				bl->ifname, bl->ifname);
	if (!lib_steering(it->dir, it->ifindex))
		return lib_fail(bl->ctx, -ENODEV, "%s: xdp_steer is no longer attached to it (taken off by another tool, or the interface was made anew); the balancer stops ('xdp-steer detach %s' removes its pins)",
				bl->ifname, bl->ifname);
	return 0;
}

/* The workers whose ring does not drain now (kernel/evidence.h): a move
 * off one would wait on its drain, counted as stalled, and a move onto
 * one would pile frames where nothing takes them. */
static int read_stuck(struct balancer *bl, struct sample *s)
{
	struct evidence *e = malloc(sizeof(*e));
	int err;

	if (!e)
		return -ENOMEM;
	err = evidence_read(&bl->m, e);
	if (!err)
		evidence_stuck(e, s->slot.bank, s->slot.drain_units, s->stuck);
	free(e);
	return err;
}

/* The policy in force, under the shared lock; the maps reopened if the
 * interface was attached anew. -ENODEV once it is detached, or nothing
 * steers with its maps. */
static int read_policy(struct balancer *bl, struct sample *s, bool *renewed)
{
	unsigned char in_use[STEER_CPU_TARGETS];
	struct lib_iface it;
	int err, same;

	*renewed = false;
	err = lib_iface_begin(bl->ctx, bl->ifname, false, &it);
	if (err)
		goto out;
	same = maps_pinned_same(&bl->m);
	if (same == -ENOENT) {
		err = lib_fail(bl->ctx, -ENODEV, "%s: xdp-steer was detached; the balancer stops",
			       bl->ifname);
		goto out;
	}
	err = check_steering(bl, &it);
	if (err)
		goto out;
	if (same <= 0) {
		maps_close(&bl->m);
		err = lib_maps_open(bl->ctx, &it, &bl->m);
		if (err)
			goto out;
		*renewed = true;
	}
	/* The tracepoints' links are pinned at the first apply, perhaps
	 * after the balancer started; without them ring drops go unseen. */
	if (*renewed && bl->traced) {
		trace_close(&bl->t);
		bl->traced = false;
	}
	if (!bl->traced)
		bl->traced = !trace_open(it.dir, &bl->t);
	memset(&s->slot, 0, sizeof(s->slot));
	err = slots_read_active(&bl->m, &s->ctl, &s->slot, s->table);
	if (err == -ENOENT) {
		s->slot.table_size = 0;
		err = 0;
		goto out;
	}
	if (!err)
		err = slots_read_weights(&bl->m, s->ctl.active, s->weight);
	if (!err)
		err = cpumap_in_use(&bl->m, &s->slot, in_use, NULL,
				    &s->draining, &s->stalled, s->drain_rec);
	if (!err)
		err = read_stuck(bl, s);
	if (err)
		lib_fail(bl->ctx, err, "%s: reading the policy in force failed: %s",
			 bl->ifname, strerror(-err));
out:
	lib_iface_end(&it);
	return err;
}

/* What was sent toward each CPU into s->cpu: queued to it by every
 * receiving CPU (steer_queued), and passed on the spot by itself (its
 * own steer_stats). */
static int read_toward(struct balancer *bl, struct sample *s)
{
	struct steer_stats total;
	int c, err;

	err = maps_percpu_sum(bl->m.steer_stats, 0, sizeof(total), &total,
			      bl->rx);
	if (!err)
		err = maps_queued_sum(&bl->m, s->cpu);
	for (c = 0; !err && c < bl->ncpus && c < STEER_CPU_IDS; c++) {
		s->cpu[c].packets += bl->rx[c].passed_local;
		s->cpu[c].bytes += bl->rx[c].passed_local_bytes;
	}
	return err;
}

/* The policy in force and then the counters (no lock: they only grow). */
static int take(struct balancer *bl, struct sample *s, bool *renewed)
{
	int err;

	err = read_policy(bl, s, renewed);
	if (err)
		return err;
	s->t = mono_s();
	/* Summed row by row over the receiver slots held: never a value
	 * per possible CPU. */
	err = maps_rx_sum(&bl->m, bl->m.steer_load, sizeof(struct steer_load),
			  s->load);
	if (!err)
		err = read_toward(bl, s);
	s->traced = bl->traced;
	if (!err && bl->traced)
		err = maps_read_array(bl->t.ring_stats, 0, bl->m.span,
				      sizeof(*s->ring), s->ring);
	if (!err && cputime_read(NULL, &s->busy))
		memset(&s->busy, 0, sizeof(s->busy));
	if (err)
		lib_fail(bl->ctx, err, "%s: reading the load counters failed: %s",
			 bl->ifname, strerror(-err));
	return err;
}

/* Sleeps 'ms' unless *stop is set first. */
static void pause_ms(__u32 ms, const volatile sig_atomic_t *stop)
{
	struct timespec slice = { 0, 50 * 1000 * 1000 }, rest;
	double end = mono_s() + ms / 1000.0, left;

	while (!*stop && (left = end - mono_s()) > 0) {
		if (left < 0.05) {
			rest.tv_sec = 0;
			rest.tv_nsec = (long)(left * 1e9);
			nanosleep(&rest, NULL);
			break;
		}
		nanosleep(&slice, NULL);
	}
}

/* The round's loads: each table bucket's, from its drain buckets' counts
 * (drain bucket d lies in table bucket d & (size - 1)), and what each
 * worker carried besides its buckets (rules, non-IP). */
static double loads(struct balancer *bl)
{
	const struct sample *a = &bl->a, *b = &bl->b;
	__u32 mask = b->slot.table_size - 1, d, t, c;
	double frames = 0, sent;
	__u64 pk, by;

	memset(bl->load, 0, sizeof(bl->load));
	memset(bl->frames, 0, sizeof(bl->frames));
	for (d = 0; d < STEER_TABLE_MAX; d++) {
		pk = b->load[d].packets - a->load[d].packets;
		by = b->load[d].bytes - a->load[d].bytes;
		t = d & mask;
		bl->frames[t] += pk;
		bl->load[t] += balance_cost(pk, by);
		frames += pk;
	}
	/* Each worker's buckets' load, in one pass over the table: a pass
	 * per worker cost 4 million steps a round at 1024 workers. */
	memset(bl->own, 0, sizeof(bl->own));
	for (t = 0; t <= mask; t++)
		if (a->table[t] < STEER_CPU_IDS)
			bl->own[a->table[t]] += bl->load[t];
	for (c = 0; c < STEER_CPU_IDS; c++) {
		if (!b->weight[c]) {
			bl->fixed[c] = 0;
			continue;
		}
		sent = balance_cost(b->cpu[c].packets - a->cpu[c].packets,
				    b->cpu[c].bytes - a->cpu[c].bytes) -
		       bl->own[c];
		/* Frames of a bucket still draining from its old CPU count
		 * there; never below none. */
		bl->fixed[c] = sent > 0 ? sent : 0;
		bl->cpu[c] = (struct balance_cpu){
			.busy = cputime_busy(&a->busy, &b->busy, c),
			.sent = b->cpu[c].packets - a->cpu[c].packets,
			.dropped = a->traced && b->traced ?
				   b->ring[c].ring_full_drops -
				   a->ring[c].ring_full_drops : 0,
		};
	}
	if (!(b->slot.flags & STEER_F_BALANCE_FRAMES))
		balance_cpu_loads(b->slot.table_size, a->table, b->weight,
				  bl->cpu, bl->load, bl->fixed, bl->load,
				  bl->fixed);
	return frames;
}

/* The moves of bl->plan (bl->table), applied as the slot in force with
 * that table, under the exclusive lock, if 'generation' is still in
 * force: -ESTALE otherwise. */
static int move(struct balancer *bl, __u32 generation,
		struct steer_apply_result *res)
{
	__u32 *now = calloc(STEER_TABLE_MAX, sizeof(*now));
	struct steer_build build;
	struct lib_iface it;
	int err;

	memset(res, 0, sizeof(*res));
	if (!now)
		return lib_fail(bl->ctx, -ENOMEM, "out of memory");
	err = lib_iface_begin(bl->ctx, bl->ifname, true, &it);
	if (err)
		goto out;
	err = slots_read_build(&bl->m, &build, now);
	if (err == -ENOENT) {
		err = -ESTALE;
		goto out;
	}
	if (err) {
		lib_fail(bl->ctx, err, "%s: reading the policy in force failed: %s",
			 bl->ifname, strerror(-err));
		goto out;
	}
	if (build.slot.generation != generation ||
	    !(build.slot.flags & STEER_F_BALANCE)) {
		err = -ESTALE;
	} else {
		build.table = bl->table;
		err = lib_apply_build(bl->ctx, &it, &bl->m, &build, res);
	}
	build_free(&build);
out:
	lib_iface_end(&it);
	free(now);
	return err;
}

/* What trial p did this round, for the round's line. */
static void probe_note(const struct balancer *bl, const struct balance_probe *p,
		       char *note, size_t len)
{
	if (p->kind == BALANCE_TRIAL_PROBE) {
		if (p->verdict == 1)
			snprintf(note, len, "probe: cpu %u's ring dropped %.0f %% of its frames and no estimate helps: bucket %u tried on cpu %u",
				 p->from, 100 * bl->cpu[p->from].dropped /
					  bl->cpu[p->from].sent,
				 p->bucket[0], p->to);
		else if (p->verdict == 5)
			snprintf(note, len, "probe: judging bucket %u on cpu %u, round %d of at most %d: %+.1f %%, needs %+.1f %% either way",
				 p->bucket[0], p->to, p->trial.n,
				 BALANCE_CLIMB_JUDGE, 100 * p->gain,
				 100 * p->need);
		else
			snprintf(note, len, "probe: bucket %u %s cpu %u: the workers took in %.0f frames/s, %.0f before (%+.1f %%, needed %+.1f %%)",
				 p->bucket[0],
				 p->verdict == 2 ? "stays on" : "back to",
				 p->verdict == 2 ? p->to : p->from, p->after,
				 p->before, 100 * p->gain, 100 * p->need);
		return;
	}
	balance_climb_note(p, note, len);
}

/* By CPU time, after the plan (model/balance.h, balance_probe_round()):
 * a trial judged, or begun, on what the workers took in this round. A
 * dry run says what it would try and forgets it. */
static void probe(struct balancer *bl, const struct balance_input *in,
		  struct steer_balance_round *r)
{
	struct balance_probe *p = &bl->probe;
	double taken = 0;
	__u32 c;

	for (c = 0; c < STEER_CPU_IDS; c++)
		if (in->weight[c] && bl->cpu[c].sent > bl->cpu[c].dropped)
			taken += bl->cpu[c].sent - bl->cpu[c].dropped;
	taken /= r->seconds > 0 ? r->seconds : 1;
	if (balance_probe_round(p, in, bl->cpu, taken, bl->table, &bl->plan))
		r->state = bl->plan.state;
	if (p->verdict)
		probe_note(bl, p, r->note, sizeof(r->note));
	else if (p->undone)
		snprintf(r->note, sizeof(r->note),
			 "climb: %d move%s of the estimates left undone: between two saturated workers, which the climb's steps place",
			 p->undone, p->undone == 1 ? "" : "s");
	r->news = (p->verdict >= 1 && p->verdict <= 3) || p->settled;
	if (bl->o->dry_run)
		balance_probe_forget(p);
}

/* The buckets a round must not move: those cooling down after a move
 * (bl->mem), and those whose drain records (at every table size a drain
 * bucket's low bits) still drain on some receiving CPU (bl->draining). */
static void frozen_buckets(struct balancer *bl, const struct sample *b)
{
	__u32 mask = b->slot.table_size - 1, d;

	memcpy(bl->frozen, bl->mem.left, sizeof(bl->frozen));
	memset(bl->draining, 0, sizeof(bl->draining));
	if (!b->draining)
		return;
	for (d = 0; d < STEER_TABLE_MAX; d++)
		if (b->drain_rec[d]) {
			bl->frozen[d & mask] = 1;
			bl->draining[d & mask] = b->drain_rec[d];
		}
}

/* Plans round r on samples a (start) and b (end), and moves. */
static void round_plan(struct balancer *bl, struct steer_balance_round *r)
{
	const struct sample *a = &bl->a, *b = &bl->b;
	struct balance_input in = {
		.size = b->slot.table_size, .table = a->table,
		.weight = b->weight, .load = bl->load, .frames = bl->frames,
		.fixed = bl->fixed, .frozen = bl->frozen,
		.floor = b->slot.flags & STEER_F_BALANCE_FRAMES ? 0 :
			 BALANCE_BUSY_FLOOR,
		.halfway = !(b->slot.flags & STEER_F_BALANCE_FRAMES),
		.ticks = b->slot.flags & STEER_F_BALANCE_FRAMES ? 0 :
			 cputime_ticks(&a->busy, &b->busy),
		.seconds = r->seconds,
		.tolerance = b->slot.balance_tolerance / 100.0,
		/* By CPU time, more while it settles (model/balance.h). */
		.max_moves = b->slot.flags & STEER_F_BALANCE_FRAMES ?
			     (int)b->slot.balance_max_moves :
			     balance_round_moves(&bl->mem,
						 b->slot.balance_max_moves),
		.going = bl->mem.going,
		.bias = b->slot.flags & STEER_F_BALANCE_FRAMES ? NULL :
			bl->probe.bias,
		.hold = bl->hold,
		.settling = !bl->mem.calm,
	};
	__u32 c;
	struct steer_apply_result res;
	int err;

	r->generation = b->slot.generation;
	r->slot = b->slot;
	if (!b->slot.table_size || !(b->slot.flags & STEER_F_BALANCE)) {
		r->state = STEER_BAL_OFF;
		memset(&bl->mem, 0, sizeof(bl->mem));
		memset(&bl->probe, 0, sizeof(bl->probe));
		return;
	}
	if (a->slot.generation != b->slot.generation ||
	    a->ctl.active != b->ctl.active) {
		r->state = STEER_BAL_STALE;
		snprintf(r->note, sizeof(r->note),
			 "the policy changed during the round (generation %u to %u): counting again",
			 a->slot.generation, b->slot.generation);
		memset(&bl->mem, 0, sizeof(bl->mem));
		memset(&bl->probe, 0, sizeof(bl->probe));
		return;
	}
	/* Until they are done, their frames count on their old CPUs; after
	 * DRAIN_WAIT_ROUNDS, plan without moving them. */
	if (!b->draining) {
		bl->waited = 0;
	} else if (bl->waited < DRAIN_WAIT_ROUNDS) {
		bl->waited++;
		r->state = STEER_BAL_WAITING;
		snprintf(r->note, sizeof(r->note),
			 "%d bucket records of an earlier change still drain",
			 b->draining);
		return;
	}
	frozen_buckets(bl, b);
	/* The way load last moved holds; a worker that cannot drain now
	 * neither sheds nor gains: a move off it would only wait. */
	balance_hold(&bl->mem, bl->hold);
	for (c = 0; c < STEER_CPU_IDS; c++)
		if (b->stuck[c] && b->weight[c])
			bl->hold[c] |= BALANCE_HOLD_SHED | BALANCE_HOLD_GAIN |
				       BALANCE_HOLD_STUCK;
	/* Planned around drains: their frames still count where they were. */
	balance_hold_draining(a->table, b->slot.table_size, bl->draining,
			      bl->hold);
	r->hold = bl->hold;
	r->stuck = b->stuck;
	r->frames = loads(bl) / (r->seconds > 0 ? r->seconds : 1);
	r->cpu = b->slot.flags & STEER_F_BALANCE_FRAMES ? NULL : bl->cpu;
	if (balance_plan(&in, bl->table, &bl->plan)) {
		r->state = STEER_BAL_FAILED;
		snprintf(r->note, sizeof(r->note), "the table in force cannot be read as one");
		return;
	}
	r->plan = &bl->plan;
	r->state = bl->plan.state;
	if (b->draining)
		snprintf(r->note, sizeof(r->note),
			 "planned around %d bucket records still draining after %d rounds",
			 b->draining, bl->waited);
	if (r->cpu)
		probe(bl, &in, r);
	if (bl->o->dry_run)
		return;
	if (bl->plan.nmoves) {
		r->cpu_s.write = cpu_now();
		err = move(bl, b->slot.generation, &res);
		r->cpu_s.write = cpu_now() - r->cpu_s.write;
		if (err == -ESTALE) {
			r->state = STEER_BAL_STALE;
			snprintf(r->note, sizeof(r->note),
				 "an apply came between the plan and its moves: planned again next round");
			memset(&bl->mem, 0, sizeof(bl->mem));
			memset(&bl->probe, 0, sizeof(bl->probe));
			return;
		}
		if (err) {
			r->state = STEER_BAL_FAILED;
			snprintf(r->note, sizeof(r->note), "%s", bl->ctx->err);
			return;
		}
		r->applied = res.slots.generation;
	}
	balance_remember(&bl->mem, &bl->plan, bl->probe.verdict == 1 ||
					      bl->probe.verdict == 3);
	balance_probe_rest(&bl->probe, &bl->mem);
	balance_settle(&bl->mem, &bl->plan, r->cpu ? &bl->probe : NULL);
}

/* Counts 'n' buckets moved now; the moves of the last minute. */
static int minute_moves(struct balancer *bl, int n)
{
	__u64 sec = (__u64)mono_s();
	int i, sum = 0;

	i = sec % MINUTE_SLOTS;
	if (bl->moved_sec[i] != sec) {
		bl->moved_sec[i] = sec;
		bl->moved[i] = 0;
	}
	bl->moved[i] += n;
	for (i = 0; i < MINUTE_SLOTS; i++)
		if (sec - bl->moved_sec[i] < MINUTE_SLOTS)
			sum += bl->moved[i];
	return sum;
}

/*
 * Every round, moved or not: a worker's cpumap kthread that may run off
 * its CPU (its CPU went offline and came back: kernel/kthreads.h) is put
 * back by applying the policy in force again, under the exclusive lock,
 * as a move would (a move mends it by itself). The kthreads of the last
 * walk of /proc are asked about by pid; /proc is walked again only when
 * one of them changed (kernel/kthreads.h, kthreads_misplaced()).
 */
static void repair(struct balancer *bl, struct steer_balance_round *r)
{
	struct steer_apply_result res;
	char list[CPUSET_STR_MAX];
	struct cpu_set misplaced;
	struct lib_iface it;
	int err;

	if (r->applied || r->state == STEER_BAL_FAILED ||
	    lib_misplaced(&bl->m, &misplaced) ||
	    !cpuset_count(&misplaced))
		return;
	err = lib_iface_begin(bl->ctx, bl->ifname, true, &it);
	if (!err)
		err = lib_repair_locked(bl->ctx, &it, &bl->m, &res);
	lib_iface_end(&it);
	if (err) {
		lib_note(bl->ctx, STEER_WARN, "%s: the cpumap kthreads of worker CPUs %s may run on other CPUs, and applying the policy in force again failed: %s",
			 bl->ifname, cpuset_format(&misplaced, list, sizeof(list)),
			 bl->ctx->err);
		return;
	}
	if (res.slots.unchanged)
		return;
	r->applied = res.slots.generation;
	lib_note(bl->ctx, STEER_INFO, "%s: the cpumap kthreads of worker CPUs %s could run on other CPUs: the policy in force applied again put new ones on their CPUs (generation %u)",
		 bl->ifname, cpuset_format(&res.slots.renewed, list, sizeof(list)),
		 res.slots.generation);
}

/* The round in steer_balance[0], for status. */
static void record(struct balancer *bl, const struct steer_balance_round *r)
{
	struct timespec ts;
	__u32 zero = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	bl->rec.last_ns = (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	bl->rec.rounds++;
	bl->rec.state = r->state;
	bl->rec.generation = r->applied ? r->applied : r->generation;
	bl->rec.last_moves = r->applied && r->plan ? r->plan->nmoves : 0;
	bl->rec.moves += bl->rec.last_moves;
	if (r->plan && r->plan->total > 0) {
		bl->rec.busiest = r->plan->busiest;
		bl->rec.ratio_pm = (__u32)(r->plan->ratio * 1000 + 0.5);
		bl->rec.after_pm = (__u32)(r->plan->after * 1000 + 0.5);
	}
	bpf_map_update_elem(bl->m.steer_balance, &zero, &bl->rec, BPF_ANY);
}

/* The rounds steer.h describes: the maps opened under the shared lock,
 * let go at once (each round takes the lock it needs), the balancer
 * enlisted and a first sample; then each round waits its length (short
 * while it settles, IDLE_POLL_MS without balance:), samples, plans (or,
 * attached anew, forgets and counts again), repairs misplaced kthreads
 * and records itself (neither in a dry run), and reports. After a move
 * the next round counts from a fresh sample, so no round's counts span
 * two tables. */
int steer_balance(struct steer_ctx *ctx, const char *ifname,
		  const struct steer_balance_opts *o,
		  void (*on_round)(void *arg,
				   const struct steer_balance_round *r),
		  void *arg, const volatile sig_atomic_t *stop)
{
	struct steer_balance_round r;
	struct balancer *bl = calloc(1, sizeof(*bl));
	struct lib_iface it;
	struct timespec ts;
	bool renewed;
	__u32 n, ms;
	double t0;
	int err;

	if (!bl)
		return lib_fail(ctx, -ENOMEM, "out of memory");
	bl->ctx = ctx;
	bl->ifname = ifname;
	bl->o = o;
	bl->ncpus = possible_span();
	bl->rx = bl->ncpus > 0 ? calloc(bl->ncpus, sizeof(*bl->rx)) : NULL;
	if (!bl->rx) {
		err = lib_fail(ctx, bl->ncpus < 0 ? bl->ncpus : -ENOMEM,
			       "cannot count the possible CPUs, or out of memory");
		goto out_free;
	}
	err = lib_iface_begin(ctx, ifname, false, &it);
	if (!err)
		err = lib_maps_open(ctx, &it, &bl->m);
	lib_iface_end(&it);
	if (err)
		goto out_free;
	if (!o->dry_run) {
		err = enlist(bl);
		if (err)
			goto out_maps;
	}
	err = take(bl, &bl->a, &renewed);
	for (n = 1; !err && !*stop; n++) {
		/* Short rounds while it settles (model/balance.h). */
		ms = bl->a.slot.table_size && (bl->a.slot.flags & STEER_F_BALANCE) ?
		     balance_round_ms(&bl->mem, bl->a.slot.balance_ms) :
		     IDLE_POLL_MS;
		pause_ms(ms, stop);
		if (*stop)
			break;
		t0 = cpu_now();
		err = take(bl, &bl->b, &renewed);
		if (err)
			break;
		memset(&r, 0, sizeof(r));
		r.cpu_s.read = cpu_now() - t0 + bl->read_s;
		bl->read_s = 0;
		t0 = cpu_now();
		r.round = n;
		r.dry_run = o->dry_run;
		r.seconds = bl->b.t - bl->a.t;
		if (renewed) {
			r.state = STEER_BAL_STALE;
			r.generation = bl->b.slot.generation;
			r.slot = bl->b.slot;
			snprintf(r.note, sizeof(r.note),
				 "the interface was attached anew: counting again");
			memset(&bl->mem, 0, sizeof(bl->mem));
			memset(&bl->probe, 0, sizeof(bl->probe));
		} else {
			round_plan(bl, &r);
		}
		r.cpu_s.plan = cpu_now() - t0 - r.cpu_s.write;
		t0 = cpu_now();
		if (!o->dry_run)
			repair(bl, &r);
		r.cpu_s.repair = cpu_now() - t0;
		r.minute_moves = minute_moves(bl, r.applied && r.plan ?
						  r.plan->nmoves : 0);
		clock_gettime(CLOCK_REALTIME, &ts);
		r.t = ts.tv_sec + ts.tv_nsec / 1e9;
		if (!o->dry_run)
			record(bl, &r);
		if (on_round)
			on_round(arg, &r);
		if (o->once)
			break;
		/* After a move the next round counts from the new table. */
		if (r.applied) {
			t0 = cpu_now();
			err = take(bl, &bl->a, &renewed);
			bl->read_s = cpu_now() - t0;
		} else
			bl->a = bl->b;
	}
out_maps:
	if (bl->traced)
		trace_close(&bl->t);
	maps_close(&bl->m);
out_free:
	free(bl->rx);
	free(bl);
	return err;
}
