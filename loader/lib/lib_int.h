/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * lib_int.h - what the library's entry points share: failing with a
 * message, notifying, and the start and end of every operation on one
 * interface (name checked, namespace known, lock held). Not for callers of
 * the library (they include lib/steer.h).
 */
#ifndef XDP_STEER_LIB_INT_H
#define XDP_STEER_LIB_INT_H

#include "kernel/netns.h"
#include "lib/steer.h"

/* Puts the message in ctx->err and returns 'err' (a negative errno). */
int lib_fail(struct steer_ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void lib_note(struct steer_ctx *ctx, enum steer_level level,
	      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What xdp-steer needs, said after a permission error. Being root, not
 * holding capabilities: /run/xdp-steer and the pin directories are root's
 * alone (0700), and finding the programs on an interface by their ids
 * takes CAP_SYS_ADMIN, which CAP_BPF does not stand in for. */
#define LIB_NEEDS_ROOT "xdp-steer needs root: uid 0 with CAP_SYS_ADMIN and CAP_NET_ADMIN; another user with CAP_BPF and CAP_NET_ADMIN cannot open its lock and pin directories, root's alone"

/* " (" LIB_NEEDS_ROOT ")" after a permission error, else "". */
const char *lib_priv_hint(int err);

/* One interface of this namespace, locked. */
struct lib_iface {
	const char *ifname;
	struct steer_netns ns;
	int ifindex;		/* 0: no such interface here */
	char dir[PATH_MAX];	/* its pin directory */
	int lock;
};

/* Takes the lock of 'ifname' in this namespace, first moving its pins
 * from an earlier xdp-steer's directory (lib_adopt()). */
int lib_iface_begin(struct steer_ctx *ctx, const char *ifname, bool exclusive,
		    struct lib_iface *it);
/* Releases the lock, and removes its file when 'ifname' has no pins. */
void lib_iface_end(struct lib_iface *it);

/* 0 when the locked interface exists in this namespace, else -ENODEV with
 * the message that says how to list them. */
int lib_iface_require(struct steer_ctx *ctx, const struct lib_iface *it);

/* Moves the pins of 'ifname' from the directory an earlier xdp-steer
 * named by this namespace's inode alone (pins.h) into this namespace's,
 * when the program attached to 'ifname' here uses them: proof they are
 * this namespace's, which the inode is not (a namespace deleted without
 * detach leaves its inode to the next one made). Others stay, for detach
 * --stale. 0 unless the lock cannot be had; a move that fails is warned
 * of, and the pins stay where they are. */
int lib_adopt(struct steer_ctx *ctx, const struct steer_netns *ns,
	      const char *ifname);
/* lib_adopt() of every interface in that earlier directory. */
int lib_adopt_all(struct steer_ctx *ctx, const struct steer_netns *ns);

/* A compiled build into the maps of 'it' (lock held): the one apply path,
 * for a policy (lib_apply_locked) and for the balancer's moves (the slot
 * in force read back with a table of its own). */
struct steer_maps;
struct steer_build;
int lib_apply_build(struct steer_ctx *ctx, const struct lib_iface *it,
		    const struct steer_maps *m, struct steer_build *b,
		    struct steer_apply_result *res);

/* The steps of an apply its dry run shares (lib/dry_run.c), so both fail
 * alike: the maps of 'it' opened, with the advice when they are missing
 * (a warning when no program uses them, worded for a dry run with
 * 'dry_run'); 'p' compiled for 'it' (default workers without the
 * RX-interrupt CPUs); the drain timeout in the kernel's ticks. Each 0 or
 * a negative errno with ctx->err said. */
int lib_apply_open(struct steer_ctx *ctx, const struct lib_iface *it,
		   struct steer_maps *m, bool dry_run);
int lib_apply_compile(struct steer_ctx *ctx, const struct lib_iface *it,
		      const struct steer_policy *p, struct steer_build *b,
		      bool *cpus_fallback);
int lib_apply_ticks(struct steer_ctx *ctx, const struct lib_iface *it,
		    struct steer_build *b);

/* steer_apply() with the lock already held (by attach or apply). */
int lib_apply_locked(struct steer_ctx *ctx, const struct lib_iface *it,
		     const struct steer_policy *p,
		     struct steer_apply_result *res);
/* The same, giving every worker a new cpumap entry when 'renew' (its
 * program is another version's: an upgrade in place). */
int lib_apply_renewing(struct steer_ctx *ctx, const struct lib_iface *it,
		       const struct steer_policy *p, bool renew,
		       struct steer_apply_result *res);

/* attach where xdp-steer already runs (res->at), locked: lib/upgrade.c. */
int lib_upgrade_locked(struct steer_ctx *ctx, const struct lib_iface *it,
		       const struct steer_policy *p,
		       enum xdp_attach_mode mode,
		       struct steer_attach_result *res);

/* The policy in force applied again (steer_repair), under the caller's
 * exclusive lock. */
int lib_repair_locked(struct steer_ctx *ctx, const struct lib_iface *it,
		      const struct steer_maps *m,
		      struct steer_apply_result *res);

/* The online workers of the policy in force whose cpumap kthread (in the
 * entries the policy needs) may run off its CPU (kernel/kthreads.h). */
struct cpu_set;
int lib_misplaced(const struct steer_maps *m, struct cpu_set *out);

/* An xdp_steer program is attached to 'it' but its maps are not all
 * pinned in its directory ('missing' names one, NULL: they are there but
 * not the program's): pins removed by hand or left by another version, or
 * a program loaded without -p. Says so, with the way out (detach, attach
 * again), and returns -ENOENT; 0 (nothing said) when no xdp_steer program
 * is attached there, and the caller's own advice for "not attached"
 * applies. */
int lib_pins_lost(struct steer_ctx *ctx, const struct lib_iface *it,
		  const char *missing);

/* Whether an xdp_steer program using the maps pinned in 'dir' is attached
 * to 'ifindex' (0: no such interface): 1 yes, 0 no (the counters stand
 * still, nothing steers), a negative errno when its programs could not be
 * read. */
int lib_steering(const char *dir, int ifindex);

/* The maps of 'it' are missing ('missing' names one) and no program
 * lost them (lib_pins_lost() said nothing): no such interface, or
 * nothing attached to it; 'advice' (may be "") is added to the latter.
 * Returns -ENOENT. */
int lib_not_attached(struct steer_ctx *ctx, const struct lib_iface *it,
		     const char *missing, const char *advice);

/* maps_open() on 'it' failed with 'err' other than -ENOENT ('missing':
 * the map it stopped at): says why and what to do. Returns 'err'. */
int lib_maps_failed(struct steer_ctx *ctx, const struct lib_iface *it,
		    int err, const char *missing);

/* Opens the maps of 'it' into *m, failing with the usual advice (nothing
 * attached here, the program's pins lost, or no permission). */
struct steer_maps;
int lib_maps_open(struct steer_ctx *ctx, const struct lib_iface *it,
		  struct steer_maps *m);


/* Whether the balancer a steer_balance record names still runs (the same
 * process: its pid and start time). */
bool lib_balancer_alive(const struct steer_balance *rec);

/* Removes the pins of 'it' unless a program uses them. 0, or -EBUSY with
 * the program's id in *prog_id and ctx->err said. Polls a short while: a
 * program just detached may take a moment to be freed. */
int lib_unpin(struct steer_ctx *ctx, const struct lib_iface *it,
	      __u32 *prog_id);

#endif /* XDP_STEER_LIB_INT_H */
