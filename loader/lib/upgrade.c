// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * upgrade.c - `attach` where xdp-steer already runs: this binary's
 * programs take the running ones' place while traffic flows, on the same
 * pinned maps, so the policy in force and every drain under way carry on;
 * then the policy given is applied as `apply` would.
 *
 * The XDP program is swapped in one step (kernel/prog.c). The cpumap
 * workers of another version get new entries in the other bank, which the
 * apply moves every bucket to through drain, as for a new queue size. The
 * tracepoint programs cannot be swapped without a moment when both or
 * neither count, and the drain's evidence is exact counts: an upgrade
 * whose tracepoint programs differ is refused, before anything changes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cpumap.h"
#include "kernel/maps.h"
#include "kernel/prog.h"
#include "kernel/trace.h"
#include "lib/lib_int.h"

/* 1 when every cpumap entry runs this binary's worker program. */
static int workers_current(struct steer_ctx *ctx, const struct lib_iface *it,
			   const struct steer_maps *m)
{
	struct xdp_steer_bpf *worker;
	int fds[STEER_BANKS], err;
	char why[256];

	err = prog_worker_load(it->dir, &worker);
	if (err)
		return lib_fail(ctx, err, "%s: loading this version's cpumap program failed: %s; -v shows the kernel's message",
				it->ifname, strerror(-err));
	prog_worker_fds(worker, fds);
	err = cpumap_workers_current(m, fds, why, sizeof(why));
	prog_worker_close(worker);
	if (err < 0)
		return lib_fail(ctx, err, "%s: reading the cpumap programs failed: %s",
				it->ifname, strerror(-err));
	if (!err)
		lib_note(ctx, STEER_INFO, "%s: %s: the apply gives every worker a new entry with this version's",
			 it->ifname, why);
	return err;
}

int lib_upgrade_locked(struct steer_ctx *ctx, const struct lib_iface *it,
		       const struct steer_policy *p,
		       enum xdp_attach_mode mode,
		       struct steer_attach_result *res)
{
	const char *missing = NULL;
	struct steer_maps m;
	__u32 new_id = 0;
	char why[512];
	int err, current;

	if (res->at.dispatcher)
		return lib_fail(ctx, -EOPNOTSUPP, "%s: xdp-steer runs in libxdp's dispatcher here (program %u), and an upgrade in place replaces a program alone on its interface: 'xdp-steer detach %s', then attach",
				it->ifname, res->at.prog_id, it->ifname);
	if (mode != res->at.mode)
		return lib_fail(ctx, -EINVAL, "%s: xdp-steer runs in %s mode (program %u); attaching in %s mode takes 'xdp-steer detach %s' first",
				it->ifname, prog_mode_name(res->at.mode),
				res->at.prog_id, prog_mode_name(mode), it->ifname);
	err = maps_open(it->dir, &m, &missing);
	if (err)
		return lib_maps_failed(ctx, it, err, missing);
	/* Everything that could refuse, before anything changes. */
	err = trace_is_current(&m, why, sizeof(why));
	if (!err)
		err = lib_fail(ctx, -EPROTO, "%s: cannot upgrade in place: %s, and swapping tracepoint programs leaves a moment when both or neither count the drain's evidence; 'xdp-steer detach %s', then attach",
			       it->ifname, why, it->ifname);
	else if (err < 0)
		lib_fail(ctx, err, "%s: reading the tracepoint programs failed: %s",
			 it->ifname, strerror(-err));
	if (err < 0)
		goto out;
	current = workers_current(ctx, it, &m);
	if (current < 0) {
		err = current;
		goto out;
	}
	err = prog_replace(it->dir, it->ifindex, &res->at, &new_id, why,
			   sizeof(why));
	if (err) {
		lib_fail(ctx, err, "%s: %s; program %u stays, and its policy", it->ifname,
			 why, res->at.prog_id);
		goto out;
	}
	res->upgraded_from = res->at.prog_id;
	res->at.prog_id = new_id;
	err = lib_apply_renewing(ctx, it, p, !current, &res->apply);
out:
	maps_close(&m);
	return err;
}
