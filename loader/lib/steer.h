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
 * kernel/ (pins, lock, maps, programs, the apply phases, netdev).
 */
#ifndef XDP_STEER_LIB_H
#define XDP_STEER_LIB_H

#include <stdbool.h>
#include <limits.h>
#include <linux/types.h>
#include <xdp/libxdp.h>

#include "model/health.h"
#include "policy/policy.h"
#include "kernel/pins.h"
#include "kernel/prog.h"
#include "kernel/slots.h"

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
	struct steer_apply_result apply;
};

/* Loads xdp_steer on 'ifname' (libxdp's dispatcher where the kernel allows
 * it, else as the only program), pins its maps and applies 'p'. All or
 * nothing: on failure nothing is left on the interface or in bpffs. */
int steer_attach(struct steer_ctx *ctx, const char *ifname,
		 const struct steer_policy *p, enum xdp_attach_mode mode,
		 struct steer_attach_result *res);

/* Applies 'p' to 'ifname', attached by steer_attach or `xdp-loader load -p
 * <pin dir>`. Atomic: a failure leaves the policy in force. */
int steer_apply(struct steer_ctx *ctx, const char *ifname,
		const struct steer_policy *p, struct steer_apply_result *res);

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
};

/* Removes the pins of interfaces of this namespace that are gone, and of
 * namespaces that are gone, unless a program still uses them. */
int steer_detach_stale(struct steer_ctx *ctx, struct steer_stale_result *res);
void steer_stale_free(struct steer_stale_result *res);

/* ---- status ---------------------------------------------------------------- */

struct steer_status {
	char ifname[IF_NAMESIZE_MAX + 1];
	char pin_dir[PATH_MAX];
	bool if_exists;
	struct attached at;
	struct slot_view view;
	struct health health;
};

/* The state of 'ifname' in this namespace; -ENOENT when it has no pins. */
int steer_status(struct steer_ctx *ctx, const char *ifname,
		 struct steer_status *st);

/* Interfaces with pins in this namespace, and other namespaces' pin
 * directories whose namespace is gone. */
struct steer_list {
	char (*ifnames)[IF_NAMESIZE_MAX + 1];
	int n;
	char (*gone)[PATH_MAX];	/* STEER_PIN_ROOT/netns-<inode> */
	int ngone;
};

int steer_list(struct steer_ctx *ctx, struct steer_list *l);
void steer_list_free(struct steer_list *l);

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
	struct steer_stats total;
	struct steer_stats *rx;		/* [ncpus]: per receiving CPU */
	struct steer_cpu_stats *queued;	/* [STEER_MAX_CPUS]: toward a CPU,
					 * local passes included */
	struct steer_worker_stats *deq;	/* [ncpus]: dequeued by a worker */
	/* The cpumap tracepoints' counters (kernel/trace.h); all zero when
	 * 'traced' is false (their programs are not pinned). */
	bool traced;
	struct steer_ring_stats *ring;	/* [STEER_MAX_CPUS]: per worker */
	struct steer_kthread_stats *kthread; /* [ncpus]: per worker CPU */
};

/* What became of the frames sent to one worker CPU, since the first apply
 * (counters of both cpumap banks together). Every frame sent is either
 * delivered, dropped at a full ring, or still in flight (in a receiving
 * CPU's bulk queue or in the ring); once traffic stops,
 * sent == delivered + ring_full_drops exactly. */
struct steer_worker_view {
	int cpu;
	__u64 sent;		/* queued to its ring: bpf_redirect_map()
				 * returned XDP_REDIRECT (cpu_stats, less
				 * the frames passed on the CPU itself) */
	__u64 delivered;	/* its cpumap program ran on them */
	__u64 delivered_bytes;
	struct steer_ring_stats ring;	    /* when traced */
	struct steer_kthread_stats kthread; /* when traced */
	__s64 in_flight;	/* sent - delivered - ring_full_drops, when
				 * traced; after traffic, not 0 only if
				 * frames were lost elsewhere */
};

/* The account of worker 'cpu' (< STEER_MAX_CPUS) in 's'; false when
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

#endif /* XDP_STEER_LIB_H */
