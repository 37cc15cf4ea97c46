// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* steer_attach(): load, pin, apply; all or nothing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/libbpf.h>

#include "kernel/possible.h"
#include "kernel/failpoint.h"
#include "kernel/migrate.h"
#include "kernel/netdev.h"
#include "kernel/pins.h"
#include "kernel/prog.h"
#include "kernel/prog_size.h"
#include "lib/lib_int.h"

/* Why attaching failed, and what to do, by errno. Only a driver without
 * native XDP calls for skb mode; the other causes need other cures. */
static void attach_advice(const char *ifname, enum xdp_attach_mode mode,
			  int err, const char *verifier_said, char *buf,
			  size_t len)
{
	struct netdev_info ni = { .driver = "" };
	int possible = possible_span(), max;
	struct utsname u;

	netdev_info(ifname, &ni);
	/* The program never reached the driver: say what the kernel did
	 * not take. */
	if (verifier_said[0] && (err == -EINVAL || err == -EACCES)) {
		snprintf(buf, len, "the kernel's verifier refused xdp_steer (\"%s\"): this kernel lacks or forbids something the datapath needs (README.md, Requirements); -v shows its whole log",
			 verifier_said);
		return;
	}
	switch (err) {
	case -EOPNOTSUPP:
		snprintf(buf, len, mode == XDP_MODE_NATIVE ?
			 "the driver (%s) has no native XDP: try --mode skb" :
			 "the kernel refused this mode (%s driver)",
			 ni.driver[0] ? ni.driver : "unknown");
		break;
	case -EBUSY:
	case -EEXIST:
		snprintf(buf, len, "another XDP program is on %s, attached in another mode or without libxdp, so the two cannot share it: 'xdp-loader status %s' and 'ip link show %s' show it",
			 ifname, ifname, ifname);
		break;
	case -EPERM:
	case -EACCES:
		snprintf(buf, len, "permission denied: " LIB_NEEDS_ROOT);
		break;
	case -ENOMEM:
		max = ixgbe_xdp_max_cpus(uname(&u) ? NULL : u.release);
		if (!strcmp(ni.driver, "ixgbe") && possible > max)
			snprintf(buf, len, "ixgbe on this kernel refuses native XDP when more than %d CPUs are possible (%d here)%s: boot with nr_cpus=%d (or possible_cpus=%d)",
				 max, possible, max < 2 * IXGBE_XDP_QS ?
				 ", 128 from Linux 5.18" : "", max, max);
		else
			snprintf(buf, len, "the kernel or driver is out of memory for it (%s driver); -v shows the kernel's message",
				 ni.driver[0] ? ni.driver : "unknown");
		break;
	case -EINVAL:
	case -ERANGE:
		if (!strcmp(ni.driver, "igb") && ni.mtu > IGB_XDP_MAX_MTU) {
			snprintf(buf, len, "igb refuses native XDP with MTU %d: a frame of MTU + 26 bytes must fit its 3072-byte RX buffer, so %d at most ('ip link set %s mtu %d')",
				 ni.mtu, IGB_XDP_MAX_MTU, ifname, IGB_XDP_MAX_MTU);
			break;
		}
		snprintf(buf, len, "the driver (%s) refused the program: an MTU too big for XDP, or LRO on? 'xdp-steer status %s' checks; -v shows the kernel's message",
			 ni.driver[0] ? ni.driver : "unknown", ifname);
		break;
	default:
		snprintf(buf, len, "-v shows libxdp's and the kernel's messages");
	}
}

/* Why xdp_steer runs alone where the kernel refused it in libxdp's
 * dispatcher (kernel/prog.c), and what it costs. */
#define EXT_REFUSED "the kernel refuses xdp_steer as an extension of libxdp's dispatcher (\"Extension program changes packet data, while original does not\": xdp_steer stamps frames for drain with bpf_xdp_adjust_head; the dispatcher of libxdp before 1.5.5 does not change packet data)"

/* The contract is steer.h's; the steps: the kernel's features, before
 * the lock; the interface locked; what runs there now, which makes an
 * upgrade in place (its maps this layout's or one migrate.h carries
 * over, --rx-slots equal to theirs if given) or a refusal that says the
 * way out; else a new attach: the pins made clean, the program
 * attached, then the policy applied. A failed apply detaches and
 * unpins again, its reason said first. */
int steer_attach(struct steer_ctx *ctx, const char *ifname,
		 const struct steer_policy *p, enum xdp_attach_mode mode,
		 __u32 rx_slots, struct steer_attach_result *res)
{
	struct lib_iface it;
	char why[512];
	__u32 user;
	int err;

	memset(res, 0, sizeof(*res));
	/* Before anything is touched: a kernel that lacks what xdp_steer
	 * needs is told what it lacks, not left to the verifier's log. */
	err = steer_kernel_check(ctx, ifname);
	if (err)
		return err;
	err = lib_iface_begin(ctx, ifname, true, &it);
	if (err)
		goto out;
	err = lib_iface_require(ctx, &it);
	if (err)
		goto out;
	err = prog_find(it.dir, it.ifindex, &res->at);
	if (err) {
		lib_fail(ctx, err, "%s: cannot read the XDP programs on it: %s%s",
			 ifname, strerror(-err), lib_priv_hint(err));
		goto out;
	}
	if (res->at.prog_id) {
		/* Attached, but with its pins gone (part or all) an apply
		 * cannot reach it: say the way out, not "use apply". */
		const char *missing = NULL;
		struct steer_maps m;
		int e = res->at.uses_pins ? maps_open(it.dir, &m, &missing) :
			-ENOENT;
		__u32 rows = 0;		/* R of maps of this version's layout */

		if (!e) {
			rows = m.rx_rows;
			maps_close(&m);
		}
		/* Its steer_ctl pinned here: an upgrade, which carries
		 * over or refuses maps of another layout (kernel/migrate.h). */
		if (res->at.uses_pins &&
		    (e == -EPROTO ||
		     (e == -ENOENT && !migrate_prog_has_map(res->at.prog_id,
							     missing))))
			e = 0;
		if ((e == -ENOENT && lib_pins_lost(ctx, &it, missing)) ||
		    (e == -EPROTO && lib_maps_failed(ctx, &it, e, missing))) {
			err = -EEXIST;
			goto out;
		}
		/* R is the pinned maps': an upgrade keeps it. */
		if (!e && rx_slots && rows && rows != rx_slots) {
			err = lib_fail(ctx, -EEXIST, "%s: its maps have %u receiver slots, and --rx-slots %u cannot change them in place; nothing was changed: 'xdp-steer detach %s', then attach it again with --rx-slots %u",
				       ifname, rows, rx_slots, ifname, rx_slots);
			goto out;
		}
		if (!e && rx_slots && !rows) {
			err = lib_fail(ctx, -EEXIST, "%s: its maps are another version's, whose receiver slots an upgrade in place sizes itself, not --rx-slots %u; nothing was changed: attach without --rx-slots, or 'xdp-steer detach %s', then attach it again with --rx-slots %u",
				       ifname, rx_slots, ifname, rx_slots);
			goto out;
		}
		if (!e) {
			err = lib_upgrade_locked(ctx, &it, p,
						 mode == XDP_MODE_UNSPEC ?
						 res->at.mode : mode, res);
			goto out;
		}
		err = lib_fail(ctx, -EEXIST, "%s: xdp-steer is already attached (program %u); change its policy with 'xdp-steer apply %s --policy POLICY'",
			       ifname, res->at.prog_id, ifname);
		goto out;
	}
	if (mode == XDP_MODE_UNSPEC)
		mode = XDP_MODE_NATIVE;
	err = pins_prepare(&it.ns, ifname, true, &WHY(why));
	if (err) {
		lib_fail(ctx, err, "%s: %s", ifname, why);
		goto out;
	}
	/* Pins without our program on the interface are left from a run that
	 * died, or belong to a program elsewhere: start clean, unless a
	 * program still uses them. */
	err = lib_unpin(ctx, &it, &user);
	if (err)
		goto out;
	err = pins_prepare(&it.ns, ifname, true, &WHY(why));
	if (err) {
		lib_fail(ctx, err, "%s: %s", ifname, why);
		goto out;
	}
	prog_want_rx_slots(rx_slots);
	err = prog_attach(it.dir, it.ifindex, mode, &res->at);
	prog_want_rx_slots(0);
	if (err && res->at.ext_refused && (err == -EEXIST || err == -EBUSY)) {
		lib_fail(ctx, err, "%s: %s; it could run only as the one XDP program on %s, and another is there: take that off first ('xdp-loader status %s' shows it), or use libxdp 1.5.5 or later",
			 ifname, EXT_REFUSED, ifname, ifname);
		pins_remove(&it.ns, ifname, &WHY(why));
		goto out;
	}
	if (err) {
		attach_advice(ifname, mode, err, res->at.verifier_said, why,
			      sizeof(why));
		lib_fail(ctx, err, "%s: attaching in %s mode failed: %s; %s",
			 ifname, attach_mode_name(mode), strerror(-err), why);
		pins_remove(&it.ns, ifname, &WHY(why));
		goto out;
	}
	if (res->at.ext_refused)
		lib_note(ctx, STEER_WARN, "%s: %s; attached as the one XDP program on %s instead, without the dispatcher: no other XDP program can run beside it (xdp-loader refuses to add one) until libxdp is 1.5.5 or later",
			 ifname, EXT_REFUSED, ifname);
	err = failpoint("attach-apply");
	if (err)
		lib_fail(ctx, err, "%s: failpoint attach-apply", ifname);
	else
		err = lib_apply_locked(ctx, &it, p, &res->apply);
	if (err) {
		/* All or nothing: no program runs without its policy. */
		char first[sizeof(ctx->err)];

		memcpy(first, ctx->err, sizeof(first));
		prog_detach(it.ifindex);
		lib_unpin(ctx, &it, &user);
		lib_fail(ctx, err, "%s; detached again", first);
	}
out:
	lib_iface_end(&it);
	return err;
}
