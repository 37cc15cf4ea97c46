/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * steer.h - the xdp-steer library: one entry point per operation, the only
 * way the CLI (and anything else) changes or reads an interface's state.
 *
 * Every entry point
 *   - checks the interface name before it becomes part of a path;
 *   - takes the interface's lock in this network namespace itself
 *     (exclusive to change, shared to read; kernel/lock.h);
 *   - returns 0 or a negative errno, and on failure leaves in ctx->err a
 *     message that says what failed, why, and what to try next;
 *   - never prints: warnings and progress go to ctx->notify.
 *
 * Below it, in loader/: policy/ (YAML to struct steer_policy and back,
 * compile to map contents), model/ (CPU sets, the table, health: pure),
 * kernel/ (pins, lock, maps, programs, the apply phases, netdev). This
 * header includes nothing of kernel/, so its callers reach the kernel
 * layer through these entry points alone: the plain data both hand out
 * (what is attached, the slot in force, what an apply did) is model/'s
 * (tests/unit/test_layers.py checks).
 */
#ifndef XDP_STEER_LIB_H
#define XDP_STEER_LIB_H

#include <signal.h>
#include <stdbool.h>
#include <limits.h>
#include <net/if.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "xdp_steer/balance.h"
#include "xdp_steer/keys.h"
#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/stats.h"
#include "xdp_steer/trace.h"
#include "model/attached.h"
#include "model/balance.h"
#include "model/health.h"
#include "model/kernel_features.h"
#include "model/plan.h"
#include "model/slot_view.h"
#include "model/slots_result.h"
#include "policy/policy.h"

enum steer_level {
	STEER_WARN,		/* something the caller should act on */
	STEER_INFO,		/* progress */
	STEER_WAIT,		/* a pause, said while it lasts: never part
				 * of a command's output (stats --json) */
};

struct steer_ctx {
	/* The caller's: where warnings and progress go (NULL: nowhere). One
	 * sentence each, no newline. */
	void (*notify)(void *arg, enum steer_level level, const char *msg);
	void *arg;
	/* The library's: why the last call failed. */
	char err[1024];
};

/* ---- attach, apply, detach ------------------------------------------------ */

struct steer_apply_result {
	struct slots_result slots;
	int ncpus;		/* workers in the table */
	bool cpus_fallback;	/* default workers fell back to every CPU */
};

struct steer_attach_result {
	struct attached at;
	__u32 upgraded_from;	/* the program replaced in place, or 0 */
	int migrated;		/* maps of another layout an upgrade
				 * created or rebuilt (kernel/migrate.h) */
	int trace_handover;	/* an upgrade's tracepoint programs: 0 kept
				 * (this version's already), 1 handed over,
				 * 2 handing over still (kernel/trace.h) */
	struct steer_apply_result apply;
};

/* Loads xdp_steer on 'ifname' (libxdp's dispatcher where the kernel allows
 * it, else as the only program) in 'mode' (XDP_MODE_UNSPEC: native, or
 * the running one's for an upgrade), pins its maps, with 'rx_slots'
 * receiver slots (1 to STEER_RX_SLOTS; 0: the default R, kernel/prog.h;
 * an upgrade refuses any but its maps' own), and applies 'p'. All or
 * nothing: on failure nothing is left on the interface or in bpffs.
 * Where xdp-steer already runs, upgrades it in place (lib/upgrade.c):
 * this binary's programs take the running ones' place, on the same maps,
 * traffic flowing, then 'p' is applied; res->upgraded_from says so. */
int steer_attach(struct steer_ctx *ctx, const char *ifname,
		 const struct steer_policy *p, enum xdp_attach_mode mode,
		 __u32 rx_slots, struct steer_attach_result *res);

/* Applies 'p' to 'ifname', attached by steer_attach or `xdp-loader load -p
 * <pin dir>`. Atomic: a failure leaves the policy in force. */
int steer_apply(struct steer_ctx *ctx, const char *ifname,
		const struct steer_policy *p, struct steer_apply_result *res);

/* What steer_apply() of 'p' on 'ifname' would change, with nothing
 * touched: the policy parsed and compiled as the apply would, compared
 * with the slot in force read from the maps, the cpumap entries and
 * their kthreads (model/plan.h). Under the shared lock, held only while
 * it reads; writes no map, opens no drain window, loads no program,
 * changes no kthread. Fails as steer_apply() fails (not attached, a
 * policy that cannot be compiled for this interface). Free the plan with
 * plan_free(). */
struct steer_dry_run {
	struct steer_plan plan;
	__u32 generation;	/* of the policy in force; 0: none */
	bool cpus_fallback;	/* default workers would fall back to every
				 * CPU */
};

int steer_apply_dry_run(struct steer_ctx *ctx, const char *ifname,
			const struct steer_policy *p,
			struct steer_dry_run *res);

/* Applies the policy in force on 'ifname' again, read back from its maps
 * (no policy file): every worker's cpumap kthread that may run off its CPU
 * gets a new entry on its CPU (res->slots.renewed), missing entries are
 * made again. res->slots.unchanged when there was nothing to mend. */
int steer_repair(struct steer_ctx *ctx, const char *ifname,
		 struct steer_apply_result *res);

struct steer_detach_result {
	bool was_attached;	/* a program was taken off */
	bool iface_gone;	/* the interface no longer exists */
	bool pins_removed;	/* its pin directory was removed */
};

/* Takes xdp_steer off 'ifname' and removes its pins; pins whose interface
 * is gone are removed too. Pins some program still uses stay (-EBUSY). */
int steer_detach(struct steer_ctx *ctx, const char *ifname,
		 struct steer_detach_result *res);

/* What a stale-pin sweep found: pin directories of interfaces or network
 * namespaces that are gone. */
struct steer_stale {
	char dir[PATH_MAX];
	bool removed;		/* false: a program still uses its maps */
	__u32 prog_id;		/* ... that program */
};

struct steer_stale_result {
	struct steer_stale *v;
	int n;
	int locks_removed;	/* lock files nothing needed any more */
	const char *lock_dir;	/* where they were */
};

/* Removes the pins of interfaces of this namespace that are gone, and of
 * namespaces that are gone, unless a program still uses them; pins an
 * earlier xdp-steer left by a namespace's inode alone that no program
 * uses; and the lock files nobody holds of gone namespaces (by
 * inode alone, for an earlier xdp-steer's names) and of this
 * namespace's interfaces without pins. */
int steer_detach_stale(struct steer_ctx *ctx, struct steer_stale_result *res);
void steer_stale_free(struct steer_stale_result *res);

/* ---- status ---------------------------------------------------------------- */

/* The balancer of an interface, as status sees it. */
struct steer_balance_status {
	bool running;		/* rec.pid is a live balancer */
	struct steer_balance rec; /* its record (steer_balance[0]) */
};

struct steer_status {
	char ifname[IF_NAMESIZE];
	char pin_dir[PATH_MAX];
	bool if_exists;
	struct attached at;
	struct slot_view view;
	struct health health;
	struct steer_balance_status balance;
};

/* The state of 'ifname' in this namespace; -ENOENT when it has no pins. */
int steer_status(struct steer_ctx *ctx, const char *ifname,
		 struct steer_status *st);

/* Interfaces with pins in this namespace, and other namespaces' pin
 * directories whose namespace is gone. */
struct steer_list {
	char (*ifnames)[IF_NAMESIZE];
	int n;
	char (*gone)[PATH_MAX];	/* STEER_PIN_ROOT/netns-<inode>-<cookie> */
	int ngone;
	/* Directories an earlier xdp-steer named by inode alone (netns-
	 * <inode>) whose inode a living namespace has now: its pins if its
	 * program uses them (its next xdp-steer command moves them), else
	 * stale. */
	char (*earlier)[PATH_MAX];
	int nearlier;
};

int steer_list(struct steer_ctx *ctx, struct steer_list *l);
void steer_list_free(struct steer_list *l);

/* 0 when 'ifname' can name an interface (1-15 bytes; no '/', ':' or
 * white space; not "." or ".."), else -EINVAL with the reason in
 * ctx->err. Every entry point checks it; a caller may ask first, to tell
 * a bad argument from a failure. Takes no lock, touches nothing. */
int steer_ifname_check(struct steer_ctx *ctx, const char *ifname);

/* The pin directory of 'ifname' in this namespace, for `xdp-loader load
 * -p`; made (with its safety checks) when 'create'. */
int steer_pin_dir(struct steer_ctx *ctx, const char *ifname, bool create,
		  char *buf, size_t len);

/* ---- stats ------------------------------------------------------------------ */

/* Every counter, read at one instant, downstream ones first (what a
 * worker dequeued before what was sent to it), so a sum of what became of
 * the frames never exceeds what was sent. */
struct steer_sample {
	double t;			/* seconds, monotonic */
	int ncpus;			/* possible CPUs */
	bool steering;			/* the interface is there, and a
					 * program using these maps is on it */
	struct steer_stats total;
	struct steer_stats *rx;		/* [ncpus]: per receiving CPU */
	/* [STEER_CPU_IDS]: queued to each CPU by every receiving CPU
	 * (steer_queued); local passes are in rx[cpu].passed_local* */
	struct steer_cpu_stats *queued;
	struct steer_worker_stats *deq;	/* [ncpus]: dequeued by a worker */
	/* The cpumap tracepoints' counters (kernel/trace.h); all zero when
	 * 'traced' is false (their programs are not pinned). */
	bool traced;
	struct steer_ring_stats *ring;	/* [STEER_CPU_IDS]: per worker */
	struct steer_kthread_stats *kthread; /* [ncpus]: per worker CPU */
	/* The CPUs whose counters a monitor should see from the first read,
	 * at 0 until they count: any online CPU may receive, and the
	 * policy in force sends to 'workers' (its table, rules and non-IP
	 * CPU; empty without a policy). */
	struct cpu_set online;
	struct cpu_set workers;
	/* The balancer (steer_balance[0]), so a monitor can tell one that
	 * should run and does not: whether the policy in force balances,
	 * and how often; whether the balancer recorded there is a live
	 * process; when its last round ended (CLOCK_REALTIME ns, 0: none
	 * yet). A dry run records nothing, so does not count. */
	struct {
		bool enabled;
		__u32 interval_ms;
		bool running;
		__u64 last_ns;
	} balance;
};

/* What became of the frames sent to one worker CPU, since the first apply
 * (counters of both cpumap banks together). Every frame sent is either
 * delivered, dropped at a full ring, or still in flight (in a receiving
 * CPU's bulk queue or in the ring); once traffic stops,
 * sent == delivered + ring_full_drops exactly. */
struct steer_worker_view {
	int cpu;
	__u64 sent;		/* queued to its ring: bpf_redirect_map()
				 * returned XDP_REDIRECT
				 * (steer_queued) */
	__u64 toward;		/* sent, and what it passed on the spot */
	__u64 toward_bytes;
	__u64 delivered;	/* its cpumap program ran on them */
	__u64 delivered_bytes;
	struct steer_ring_stats ring;	    /* when traced */
	struct steer_kthread_stats kthread; /* when traced */
	__s64 in_flight;	/* sent - delivered - ring_full_drops, when
				 * traced; after traffic, not 0 only if
				 * frames were lost elsewhere */
	/* The work the frames sent toward it cause there, queued or passed
	 * on the spot (it is the receiving CPU), as the balancer weighs it:
	 * balance_cost() of their count and bytes (model/balance.h). */
	double load;
};

/* The account of worker 'cpu' (< STEER_CPU_IDS) in 's'; false when
 * nothing was ever sent to it or counted on it. Pure. */
bool steer_worker_view(const struct steer_sample *s, int cpu,
		       struct steer_worker_view *v);

int steer_sample_alloc(struct steer_sample *s);
void steer_sample_free(struct steer_sample *s);

struct steer_stats_src;

/* Opens the counters of 'ifname'; read them with steer_stats_read() as
 * often as wanted, then close. */
int steer_stats_open(struct steer_ctx *ctx, const char *ifname,
		     struct steer_stats_src **src);
int steer_stats_read(struct steer_stats_src *src, struct steer_sample *s);
void steer_stats_close(struct steer_stats_src *src);

/* ---- which ------------------------------------------------------------------ */

/* Where a flow goes now, and why. */
struct steer_which {
	struct steer_flow flow;
	__u32 generation;	/* of the policy in force */
	__u32 hash;
	__u32 key_flags;	/* the policy's hash.key (STEER_F_HASH_L4,
				 * STEER_F_KEY_*: steer_hash_key_name()) */
	bool key_id;		/* an id key applied to the flow: 'hash' is
				 * its id's; else the flow's (a 5-tuple
				 * carries no VLAN tag or tunnel id) */
	enum {
		STEER_WHICH_RULE,	/* an exact-field rule */
		STEER_WHICH_PREFIX,	/* a prefix rule */
		STEER_WHICH_TABLE,	/* the indirection table */
	} by;
	__u32 cpu;		/* where its frames go now */
	__u32 rule_id;		/* RULE, PREFIX: the rule, from 0 */
	__u32 shape;		/* RULE, PREFIX: the shape that matched
				 * (STEER_M_*): under hash.symmetric the
				 * rule's or its mirror's */
	bool symmetric;		/* the policy's hash.symmetric */
	__u32 set_size;		/* RULE, PREFIX: CPUs in its set (1: one) */
	__u32 bucket;		/* TABLE: table bucket */
	__u32 table_size;
	__u32 record;		/* TABLE: its drain bucket (steer_buckets) */
	bool fastpath;		/* local_fastpath: passed where received on
				 * 'cpu' */
	/* TABLE, while the bucket drains: per receiving CPU whose record
	 * still sends it elsewhere, that old CPU (STEER_CPU_LOCAL: none). */
	__u32 draining_to[STEER_RX_CPU_IDS];
	int ndraining;		/* receiving CPUs draining it */
	int nstalled;		/* ... from a CPU whose kthread took nothing
				 * off its waiting ring for the drain
				 * timeout: it waits on */
	int drain_ms;		/* ... for so long at least, the longest */
};

/* Computes where 'f' goes on 'ifname' right now with the shared hash,
 * table index and rule keys the datapath uses (xdp_steer.h), reading the
 * policy in force from the maps. -ENOENT without a policy. */
int steer_which_flow(struct steer_ctx *ctx, const char *ifname,
		     const struct steer_flow *f, struct steer_which *w);

/* ---- balance ---------------------------------------------------------------- */

struct steer_balance_opts {
	bool once;		/* one round, then return */
	bool dry_run;		/* plan and say, move nothing, record
				 * nothing: any number may run */
};

/* One round of the balancer, for its caller to print. */
struct steer_balance_round {
	__u32 round;		/* from 1 */
	double t;		/* when it ended, CLOCK_REALTIME seconds */
	double seconds;		/* the interval it counted */
	int state;		/* STEER_BAL_* */
	bool dry_run;
	__u32 generation;	/* the policy it planned against */
	__u32 applied;		/* the generation its moves made (0: none) */
	struct steer_slot slot;	/* that policy's settings (balance_*) */
	double frames;		/* frames the table placed, per second */
	const struct balance_plan *plan; /* NULL when it did not plan */
	const struct balance_cpu *cpu;	/* [STEER_CPU_IDS]: by CPU time,
					 * what each CPU did; else NULL */
	/* [STEER_CPU_IDS]: BALANCE_HOLD_* bits on each worker this round
	 * (the way load last moved, a worker that cannot drain); NULL when
	 * it did not plan. */
	const unsigned char *hold;
	const unsigned char *stuck;	/* [STEER_CPU_IDS]: 1 for a worker
					 * whose ring does not drain now */
	int minute_moves;	/* buckets moved in the last minute, this
				 * round's included */
	char note[1024];	/* why it waited, dropped or failed */
	/* The CPU time of the round's phases, this thread's (seconds):
	 * reading the maps (the policy in force and the counters; after a
	 * move, the next round's first sample too), planning, writing the
	 * moves back (the apply), and looking for misplaced kthreads. */
	struct {
		double read, plan, write, repair;
	} cpu_s;
	bool news;		/* the note says a trial begun or judged, or
				 * the climb settling: said even when the
				 * state repeats */
};

/*
 * The adaptive balancer on 'ifname' (model/balance.h; loader/README.md,
 * "Balancing load"): every balance.interval of the policy in force it counts each
 * bucket's load, plans a round and applies its moves through the apply
 * path (lib_apply_build: drain, the lock), then calls on_round. Rounds
 * run until *stop is set (a signal) or, with o->once, after one. Without
 * dry_run it records itself in steer_balance, and refuses (-EBUSY) when
 * another live balancer is recorded there. An apply between a round's
 * plan and its move wins: the round is dropped (STALE) and planned again.
 * Returns 0, or a negative errno (not attached, detached meanwhile).
 */
int steer_balance(struct steer_ctx *ctx, const char *ifname,
		  const struct steer_balance_opts *o,
		  void (*on_round)(void *arg,
				   const struct steer_balance_round *r),
		  void *arg, const volatile sig_atomic_t *stop);

/* ---- features --------------------------------------------------------------- */

/* What this machine offers xdp-steer (kernel/features.h). Each probe's
 * result: 1 yes, 0 no, a negative errno when it could not tell (-EPERM:
 * it needs root). */
struct steer_features {
	int dispatcher;		/* libxdp's dispatcher takes xdp_steer */
	char dispatcher_why[256]; /* why not, or why unknown */
	int kernel[STEER_KF_COUNT]; /* STEER_KERNEL_FEATURES, each found
				     * (model/kernel_features.h) */
	bool kthread_by_release; /* kthread_names from the release */
	int lacking;		/* how many of those attach needs are not */
	const char *kernel_min;	/* the Linux release attach needs: the
				 * newest 'since' of those ("5.19") */
	char libxdp_file[PATH_MAX]; /* "" when unknown */
};

/* Runs the probes: fast, attaches nothing to any interface, leaves
 * nothing behind, takes no lock. Returns 0. */
int steer_features(struct steer_ctx *ctx, struct steer_features *f);

/* 0 when this kernel has every feature attach needs (or a probe could not
 * tell, unprivileged), else -EOPNOTSUPP with a message that lists what it
 * lacks ("IFNAME: " first, unless NULL). Attach asks first, before it
 * touches anything, and check for this machine. */
int steer_kernel_check(struct steer_ctx *ctx, const char *ifname);

#endif /* XDP_STEER_LIB_H */
