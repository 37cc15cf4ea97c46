// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The BPF programs: the XDP program attached through libxdp and found
 * again, and the cpumap program loaded on the pinned maps: see prog.h. */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <xdp/prog_dispatcher.h>

#include "kernel/possible.h"
#include "xdp_steer/sizes.h"
#include "xdp_steer/names.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/balance.h"
#include "xdp_steer/drain.h"
#include "xdp_steer/rx_slots.h"
#include "xdp_steer.skel.h"
#include "kernel/failpoint.h"
#include "kernel/leak.h"
#include "kernel/map_numa.h"
#include "kernel/maps.h"
#include "kernel/migrate.h"
#include "kernel/netdev.h"
#include "kernel/numa.h"
#include "kernel/prog.h"
#include "kernel/prog_size.h"
#include "kernel/vlog.h"

/* The NUMA node of the interface whose pins are in 'pin_dir' (its last
 * component the interface's name), or -1: none known (veth; numa_node
 * -1; no pin_dir). */
static int nic_node(const char *pin_dir)
{
	const char *ifname = pin_dir ? strrchr(pin_dir, '/') : NULL;
	struct netdev_info ni;
	int node;

	if (!ifname)
		return -1;
	ifname++;
	node = numa_netdev_node(ifname, !netdev_info(ifname, &ni) ?
				ni.bus_info : NULL, NULL);
	return node >= 0 ? node : -1;
}

/* The object, its maps to be reused from 'pin_dir', its cpumaps sized to
 * the kernel's possible CPUs (prog_cpumap_entries()) and the maps by
 * target to the span (prog_set_span()): a cpumap larger than
 * the kernel's NR_CPUS is refused with E2BIG, as small router kernels
 * (NR_CPUS 8, 64) showed. */
static struct xdp_steer_bpf *open_skel(const char *pin_dir)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = pin_dir);
	struct xdp_steer_bpf *skel = xdp_steer_bpf__open_opts(&opts);
	int n = prog_cpumap_entries(pin_dir), span = prog_span(pin_dir), r, err;

	if (!skel)
		return NULL;
	/* An upgrade in place loads on the maps it staged (migrate.h). */
	err = migrate_prefer_staged(skel->obj, pin_dir);
	if (err)
		goto fail;
	if (n <= 0 || span <= 0) {
		err = n <= 0 ? (n ? n : -ENODEV) : (span ? span : -ENODEV);
		goto fail;
	}
	err = prog_set_span(skel, (__u32)span, (__u32)n);
	/* The per-slot maps: a row of drain buckets per receiver slot. */
	r = prog_rx_slots(pin_dir);
	if (!err && r <= 0)
		err = r ? r : -EINVAL;
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_buckets,
					       (__u32)r * STEER_TABLE_MAX);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_load,
					       (__u32)r * STEER_TABLE_MAX);
	/* The slot-keyed maps: R rows, or a pinned set's (256 before), and
	 * steer_queued by them. */
	r = err ? 0 : prog_slot_rows(pin_dir);
	if (!err && r <= 0)
		err = r ? r : -EINVAL;
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_rx_cpu, (__u32)r);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_rx_lease,
					       (__u32)r);
	/* A row of the span's targets per slot. */
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_seq,
					       (__u32)r * STEER_BANKS * span);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_deq,
					       (__u32)r * STEER_BANKS * span);
	/* A row of the span's CPUs per slot, and one more: the CPUs
	 * without a slot. */
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_queued,
					       ((__u32)r + 1) * span);
	/* The per-slot maps on the NIC's node (map_numa.h). */
	if (!err)
		err = map_numa_apply(skel->obj, pin_dir, nic_node(pin_dir));
	if (!err)
		return skel;
fail:
	xdp_steer_bpf__destroy(skel);
	errno = -err;
	return NULL;
}

/*
 * Kernels since 6.13, and 6.12 since its stable updates took the same
 * check (Debian's 6.12.117 has it, 6.12.5 had not), refuse an extension
 * program that changes packet data in place of a function that does not:
 * "Extension program changes packet data, while original does not".
 * xdp_steer calls bpf_xdp_adjust_head (drain stamps frames with it); the
 * stubs of libxdp's dispatcher change nothing before libxdp 1.5.5, which
 * gave them a no-op bpf_xdp_adjust_tail() for this (xdp-tools PR #509). So
 * under Debian bookworm's libxdp 1.3.1 such a kernel refuses xdp_steer in
 * the dispatcher, and libxdp returns EINVAL. The kernel's words reach us
 * only in the verifier log libbpf prints: while attaching, libbpf's output
 * passes through spot_refusal() on its way to the printer set before.
 */
static libbpf_print_fn_t print_before;
static bool ext_refused;
static char verifier_said[160];

static int spot_refusal(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	va_list copy;
	char *text;

	/* Whole: a verifier log runs to megabytes, its reason at the end. */
	va_copy(copy, ap);
	if (vasprintf(&text, fmt, copy) >= 0) {
		if (strstr(text, "changes packet data"))
			ext_refused = true;
		vlog_reason(text, verifier_said, sizeof(verifier_said));
		free(text);
	}
	va_end(copy);
	return print_before ? print_before(level, fmt, ap) : 0;
}

int prog_spotting_refusal(int (*fn)(void *arg), void *arg, bool *refused)
{
	int err;

	ext_refused = false;
	verifier_said[0] = 0;
	print_before = libbpf_set_print(spot_refusal);
	err = fn(arg);
	libbpf_set_print(print_before);
	*refused = ext_refused;
	return err;
}

/* One try: a fresh object (a failed load cannot be retried on the same
 * one), attached through libxdp; 'alone': without the dispatcher, with
 * libxdp's own switch for it, LIBXDP_SKIP_DISPATCHER. */
static int attach_obj(const char *pin_dir, int ifindex,
		      enum xdp_attach_mode mode, bool alone)
{
	const char *env = getenv("LIBXDP_SKIP_DISPATCHER");
	char *saved = env ? strdup(env) : NULL;
	struct xdp_steer_bpf *skel;
	struct xdp_program *prog;
	int err;

	skel = open_skel(pin_dir);
	if (!skel) {
		err = -errno;
		goto out;
	}
	/* The cpumap programs are loaded by apply, into each cpumap entry. */
	bpf_program__set_autoload(skel->progs.STEER_PROG_WORKER, false);
	bpf_program__set_autoload(skel->progs.STEER_PROG_WORKER_B, false);
	prog = xdp_program__from_bpf_obj(skel->obj, "xdp");
	err = libxdp_get_error(prog);
	if (err) {
		xdp_steer_bpf__destroy(skel);
		goto out;
	}
	if (alone)
		setenv("LIBXDP_SKIP_DISPATCHER", "1", 1);
	err = xdp_program__attach(prog, ifindex, mode, 0);
	if (saved)
		setenv("LIBXDP_SKIP_DISPATCHER", saved, 1);
	else
		unsetenv("LIBXDP_SKIP_DISPATCHER");
	/* The program came from our object: closing it leaves the object,
	 * which the skeleton owns, to the skeleton. */
	xdp_program__close(prog);
	xdp_steer_bpf__destroy(skel);
out:
	free(saved);
	return err;
}

/* attach_obj() with the dispatcher, for prog_spotting_refusal(). */
struct attach_args {
	const char *pin_dir;
	int ifindex;
	enum xdp_attach_mode mode;
};

static int attach_with_dispatcher(void *arg)
{
	const struct attach_args *a = arg;

	return attach_obj(a->pin_dir, a->ifindex, a->mode, false);
}

int prog_attach(const char *pin_dir, int ifindex, enum xdp_attach_mode mode,
		struct attached *out)
{
	struct attach_args a = { pin_dir, ifindex, mode };
	struct leak_guard g;
	bool refused;
	int err;

	leak_guard_begin(&g);
	err = prog_spotting_refusal(attach_with_dispatcher, &a, &refused);
	refused = err == -EINVAL && refused;
	/* libxdp's own fallback when a kernel has no dispatcher at all; it
	 * never replaces a program already there (-EEXIST then). */
	if (refused)
		err = attach_obj(pin_dir, ifindex, mode, true);
	if (!err) {
		err = prog_find(pin_dir, ifindex, out);
		if (!err && !out->prog_id)
			err = -ENOENT;
		if (err)
			prog_detach(ifindex);
	}
	leak_guard_end(&g);
	out->ext_refused = refused;
	/* The reason of the first try's refusal; after a retry alone, the
	 * retry's failure is another's. */
	snprintf(out->verifier_said, sizeof(out->verifier_said), "%s",
		 err && !refused ? verifier_said : "");
	return err;
}

/* 1 when the program uses the steer_ctl map pinned in 'dir'. */
static int uses_pinned_maps(const char *dir, int prog_fd)
{
	struct bpf_prog_info info = {};
	struct bpf_map_info minfo = {};
	__u32 len = sizeof(info), mlen = sizeof(minfo), ids[32], i;
	char path[PATH_MAX + 32];
	int fd, found = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, STEER_STR(steer_ctl));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &minfo, &mlen))
		goto out;
	info.nr_map_ids = 32;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		goto out;
	for (i = 0; i < info.nr_map_ids && i < 32; i++)
		found |= ids[i] == minfo.id;
out:
	close(fd);
	return found;
}

int prog_find(const char *pin_dir, int ifindex, struct attached *out)
{
	struct xdp_program *p = NULL;
	struct xdp_multiprog *mp;
	struct leak_guard g;
	int err;

	memset(out, 0, sizeof(*out));
	leak_guard_begin(&g);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	err = libxdp_get_error(mp);
	if (err) {
		leak_guard_end(&g);
		return err == -ENOENT ? 0 : err;
	}
	out->mode = xdp_multiprog__attach_mode(mp);
	out->dispatcher = !xdp_multiprog__is_legacy(mp);
	out->nprogs = xdp_multiprog__program_count(mp);
	if (out->dispatcher) {
		struct xdp_program *q;

		for (q = xdp_multiprog__next_prog(NULL, mp); q;
		     q = xdp_multiprog__next_prog(q, mp))
			if (!strcmp(xdp_program__name(q),
				    STEER_STR(STEER_PROG_MAIN)) &&
			    !out->nsteer++)
				p = q;
	} else {
		p = xdp_multiprog__main_prog(mp);
		out->nprogs = p ? 1 : 0;
		if (p && strcmp(xdp_program__name(p),
				STEER_STR(STEER_PROG_MAIN)))
			p = NULL;
		out->nsteer = p ? 1 : 0;
	}
	if (p) {
		out->prog_id = xdp_program__id(p);
		out->uses_pins = uses_pinned_maps(pin_dir, xdp_program__fd(p));
	}
	xdp_multiprog__close(mp);
	leak_guard_end(&g);
	return 0;
}

/* The xdp_steer programs in a dispatcher, in 'out' (at most 'max'):
 * program 'id' alone, or with 'but' every one except it (id 0: all);
 * their count. Two are there only while an upgrade in place swaps them
 * (prog_replace()), or after one was killed between its two steps. */
static size_t steer_progs(struct xdp_multiprog *mp, __u32 id, bool but,
			  struct xdp_program **out, size_t max)
{
	struct xdp_program *p = NULL;
	size_t n = 0;

	while ((p = xdp_multiprog__next_prog(p, mp)) && n < max)
		if (!strcmp(xdp_program__name(p), STEER_STR(STEER_PROG_MAIN)) &&
		    (xdp_program__id(p) == id) != but)
			out[n++] = p;
	return n;
}

int prog_detach(int ifindex)
{
	struct xdp_program *progs[MAX_DISPATCHER_ACTIONS];
	struct xdp_multiprog *mp;
	enum xdp_attach_mode mode;
	struct leak_guard g;
	size_t n = 0;
	int err;

	leak_guard_begin(&g);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	err = libxdp_get_error(mp);
	if (err)
		goto out;
	mode = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		progs[0] = xdp_multiprog__main_prog(mp);
		n = progs[0] && !strcmp(xdp_program__name(progs[0]),
					STEER_STR(STEER_PROG_MAIN));
	} else {
		/* Every xdp_steer in one step: a second one is left only by
		 * an upgrade killed halfway, and must not outlive the pins. */
		n = steer_progs(mp, 0, true, progs, MAX_DISPATCHER_ACTIONS);
	}
	err = n ? xdp_program__detach_multi(progs, n, ifindex, mode, 0) :
		  -ENOENT;
	xdp_multiprog__close(mp);
out:
	/* Only now is xdp_steer freed, and its maps with it. */
	leak_guard_end(&g);
	return err;
}

/* The netlink flags of an attach mode. */
static int mode_flags(enum xdp_attach_mode mode)
{
	switch (mode) {
	case XDP_MODE_NATIVE:
		return XDP_FLAGS_DRV_MODE;
	case XDP_MODE_SKB:
		return XDP_FLAGS_SKB_MODE;
	case XDP_MODE_HW:
		return XDP_FLAGS_HW_MODE;
	default:
		return 0;
	}
}

/* prog_replace() of a program alone on its interface. */
static int replace_alone(const char *pin_dir, int ifindex,
			 const struct attached *at, __u32 *new_id,
			 const struct prog_swap_hook *hook, struct why *why)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	struct bpf_prog_info info = {};
	__u32 ilen = sizeof(info);
	struct xdp_steer_bpf *skel;
	int err, old_fd;

	old_fd = bpf_prog_get_fd_by_id(at->prog_id);
	if (old_fd < 0) {
		err = -errno;
		why_set(why, "cannot open the running program %u: %s",
			at->prog_id, strerror(-err));
		return err;
	}
	/* libbpf reuses every pinned map, and refuses to load when one's
	 * type, sizes or flags are not this version's: nothing has changed
	 * then. */
	skel = open_skel(pin_dir);
	if (!skel) {
		err = -errno;
		why_set(why, "opening this version's program failed: %s",
			strerror(-err));
		goto out_fd;
	}
	bpf_program__set_autoload(skel->progs.STEER_PROG_WORKER, false);
	bpf_program__set_autoload(skel->progs.STEER_PROG_WORKER_B, false);
	err = xdp_steer_bpf__load(skel);
	if (err) {
		why_set(why, "this version's program does not load on the maps pinned in %s (%s): a map's layout changed between the versions; -v names it; 'xdp-steer detach' and attach again to upgrade",
			pin_dir, strerror(-err));
		goto out_skel;
	}
	if (hook) {
		err = hook->fn(hook->arg, why);
		if (err)
			goto out_skel;
	}
	/* One netlink request: the kernel swaps the program on the
	 * interface if the one there is still at->prog_id, so each frame
	 * meets either program, both on the same maps and slot. */
	opts.old_prog_fd = old_fd;
	err = bpf_xdp_attach(ifindex, bpf_program__fd(skel->progs.STEER_PROG_MAIN),
			     mode_flags(at->mode) | XDP_FLAGS_REPLACE, &opts);
	if (err) {
		why_set(why, "the kernel refused to swap program %u for this version's: %s%s",
			at->prog_id, strerror(-err), err == -EEXIST ?
			" (another program took its place meanwhile)" : "");
		goto out_skel;
	}
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.STEER_PROG_MAIN),
				    &info, &ilen))
		*new_id = info.id;
out_skel:
	/* The interface holds the new program; our fds go. */
	xdp_steer_bpf__destroy(skel);
out_fd:
	close(old_fd);
	return err;
}

/* The running program's place in the dispatcher: its run priority and
 * the actions after which the next program runs. */
struct dispatcher_place {
	unsigned int run_prio;
	bool chain[XDP_REDIRECT + 1];
};

/* Where program 'id' runs in the dispatcher on 'ifindex'. */
static int read_place(int ifindex, __u32 id, struct dispatcher_place *pl)
{
	struct xdp_program *p = NULL;
	struct xdp_multiprog *mp;
	unsigned int a;
	int err;

	mp = xdp_multiprog__get_from_ifindex(ifindex);
	err = libxdp_get_error(mp);
	if (err)
		return err;
	err = -ENOENT;
	while ((p = xdp_multiprog__next_prog(p, mp)))
		if (xdp_program__id(p) == id) {
			pl->run_prio = xdp_program__run_prio(p);
			for (a = 0; a <= XDP_REDIRECT; a++)
				pl->chain[a] = xdp_program__chain_call_enabled(p, a);
			err = 0;
			break;
		}
	xdp_multiprog__close(mp);
	return err;
}

/* This version's xdp_steer, on the pinned maps, into the dispatcher on
 * 'ifindex' at place 'pl': libxdp builds a dispatcher of every program
 * there and this one, and swaps it in. Its id in *new_id. */
static int join_dispatcher(const char *pin_dir, int ifindex,
			   enum xdp_attach_mode mode,
			   const struct dispatcher_place *pl, __u32 *new_id)
{
	struct xdp_steer_bpf *skel;
	struct xdp_program *prog;
	char *saved;
	const char *env;
	unsigned int a;
	int err;

	skel = open_skel(pin_dir);
	if (!skel)
		return -errno;
	bpf_program__set_autoload(skel->progs.STEER_PROG_WORKER, false);
	bpf_program__set_autoload(skel->progs.STEER_PROG_WORKER_B, false);
	prog = xdp_program__from_bpf_obj(skel->obj, "xdp");
	err = libxdp_get_error(prog);
	if (err)
		goto out_skel;
	err = xdp_program__set_run_prio(prog, pl->run_prio);
	for (a = 0; a <= XDP_REDIRECT && !err; a++)
		err = xdp_program__set_chain_call_enabled(prog, a, pl->chain[a]);
	/* The dispatcher is there: LIBXDP_SKIP_DISPATCHER, which makes
	 * libxdp attach a program alone, cannot apply, and would fail. */
	env = getenv("LIBXDP_SKIP_DISPATCHER");
	saved = env ? strdup(env) : NULL;
	unsetenv("LIBXDP_SKIP_DISPATCHER");
	if (!err)
		err = xdp_program__attach(prog, ifindex, mode, 0);
	if (saved)
		setenv("LIBXDP_SKIP_DISPATCHER", saved, 1);
	free(saved);
	if (!err)
		*new_id = xdp_program__id(prog);
	xdp_program__close(prog);
out_skel:
	xdp_steer_bpf__destroy(skel);
	return err;
}

/* Takes xdp_steer program 'id' (with 'but': every xdp_steer but it) out
 * of the dispatcher on 'ifindex', in one swap. */
static int leave_dispatcher(int ifindex, __u32 id, bool but)
{
	struct xdp_program *progs[MAX_DISPATCHER_ACTIONS];
	struct xdp_multiprog *mp;
	size_t n;
	int err;

	mp = xdp_multiprog__get_from_ifindex(ifindex);
	err = libxdp_get_error(mp);
	if (err)
		return err;
	n = steer_progs(mp, id, but, progs, MAX_DISPATCHER_ACTIONS);
	err = n ? xdp_program__detach_multi(progs, n, ifindex,
					    xdp_multiprog__attach_mode(mp), 0) : 0;
	xdp_multiprog__close(mp);
	return err;
}

/*
 * prog_replace() under libxdp's dispatcher. libxdp (1.3.1) can add a
 * program to a dispatcher or take one out, each by building a new
 * dispatcher and swapping it in atomically, but cannot swap one program
 * for another: so two swaps. The new xdp_steer joins at the running one's
 * run priority and chain actions, so it keeps its place among the other
 * programs; at equal priority and name libxdp runs a loaded program (the
 * old one) before one it loads. Between the two swaps every frame meets
 * the old xdp_steer first: one it redirects leaves the dispatcher there;
 * one it passes (the fast path, non-IP frames, rules' passes, a missing
 * cpumap entry) meets the new one, which reads the same maps, its records
 * just written by the old one, and passes it too: counted twice in the
 * stats and the balancer's loads, for that moment only. Then the old
 * xdp_steer, and any an upgrade killed between the swaps left, leave.
 */
static int replace_in_dispatcher(const char *pin_dir, int ifindex,
				 const struct attached *at, __u32 *new_id,
				 const struct prog_swap_hook *hook,
				 struct why *why)
{
	struct dispatcher_place pl = { 0 };
	struct leak_guard g;
	int err, undo;

	leak_guard_begin(&g);
	err = read_place(ifindex, at->prog_id, &pl);
	if (err) {
		why_set(why, "cannot find the running program %u in libxdp's dispatcher: %s",
			at->prog_id, strerror(-err));
		goto out;
	}
	/* libxdp loads and swaps in one call: the hook runs before. */
	if (hook) {
		err = hook->fn(hook->arg, why);
		if (err)
			goto out;
	}
	err = join_dispatcher(pin_dir, ifindex, at->mode, &pl, new_id);
	if (err) {
		why_set(why, "libxdp could not add this version's program to the dispatcher beside program %u (%s): a map's layout changed between the versions, the dispatcher is full, or the kernel refused it; -v says which",
			at->prog_id, strerror(-err));
		*new_id = 0;
		goto out;
	}
	err = failpoint("dispatcher-joined");
	if (!err)
		err = leave_dispatcher(ifindex, *new_id, true);
	if (err) {
		undo = leave_dispatcher(ifindex, *new_id, false);
		why_set(why, "libxdp could not take program %u out of the dispatcher after this version's (program %u) joined it: %s; %s",
			at->prog_id, *new_id, strerror(-err), undo ?
			"both run, each frame passed by the first seen by the second: 'xdp-steer attach' again finishes the upgrade" :
			"this version's was taken out again");
		*new_id = undo ? *new_id : 0;
	}
out:
	/* Only now is the old xdp_steer freed. */
	leak_guard_end(&g);
	return err;
}

int prog_replace(const char *pin_dir, int ifindex, const struct attached *at,
		 __u32 *new_id, const struct prog_swap_hook *hook,
		 struct why *why)
{
	*new_id = 0;
	return at->dispatcher ?
	       replace_in_dispatcher(pin_dir, ifindex, at, new_id, hook, why) :
	       replace_alone(pin_dir, ifindex, at, new_id, hook, why);
}

int prog_worker_load(const char *pin_dir, struct xdp_steer_bpf **skelp)
{
	struct xdp_steer_bpf *skel;
	int err;

	/* Opening with the pin directory makes libbpf reuse the pinned maps
	 * (it refuses ones that do not match), so the worker counts into the
	 * same worker_stats the XDP program's owner reads. */
	skel = open_skel(pin_dir);
	if (!skel)
		return -errno;
	bpf_program__set_autoload(skel->progs.STEER_PROG_MAIN, false);
	err = xdp_steer_bpf__load(skel);
	if (err) {
		xdp_steer_bpf__destroy(skel);
		return err;
	}
	*skelp = skel;
	return 0;
}

void prog_worker_fds(const struct xdp_steer_bpf *skel, int fds[STEER_BANKS])
{
	fds[0] = bpf_program__fd(skel->progs.STEER_PROG_WORKER);
	fds[1] = bpf_program__fd(skel->progs.STEER_PROG_WORKER_B);
}

void prog_worker_close(struct xdp_steer_bpf *skel)
{
	xdp_steer_bpf__destroy(skel);
}
