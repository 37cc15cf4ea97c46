// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What every entry point does first and last, and how it fails. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <sys/stat.h>

#include "kernel/lock.h"
#include "kernel/maps.h"
#include "kernel/migrate.h"
#include "kernel/pins.h"
#include "kernel/prog.h"
#include "lib/lib_int.h"

int lib_fail(struct steer_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->err, sizeof(ctx->err), fmt, ap);
	va_end(ap);
	return err;
}

void lib_note(struct steer_ctx *ctx, enum steer_level level,
	      const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!ctx->notify)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->notify(ctx->arg, level, msg);
}

const char *lib_priv_hint(int err)
{
	if (err == -EPERM || err == -EACCES)
		return " (" LIB_NEEDS_ROOT ")";
	return "";
}

/* The kernel layer's short "(xdp-steer needs root)" off 'why', where
 * lib_priv_hint() is to say the whole of it. */
static void drop_suffix(char *why, const char *suffix)
{
	size_t n = strlen(why), k = strlen(suffix);

	if (n >= k && !strcmp(why + n - k, suffix))
		why[n - k] = '\0';
}

struct waiting_arg {
	struct steer_ctx *ctx;
	const char *ifname;
};

static void say_waiting(void *arg)
{
	struct waiting_arg *w = arg;

	lib_note(w->ctx, STEER_WAIT,
		 "%s: waiting for another xdp-steer working on this interface",
		 w->ifname);
}

int lib_adopt(struct steer_ctx *ctx, const struct steer_netns *ns,
	      const char *ifname)
{
	struct steer_netns old = { .ino = ns->ino };
	char dir[PATH_MAX], why[512];
	struct attached at;
	struct stat st;
	int ifindex, lock, err;

	if (ns->initial || pins_dir(&old, ifname, dir, sizeof(dir)) ||
	    stat(dir, &st))
		return 0;
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return 0;
	lock = lock_take(ns, ifname, true, NULL, NULL, &WHY(why));
	if (lock < 0)
		return lib_fail(ctx, lock, "%s: %s%s", ifname, why,
				lib_priv_hint(lock));
	/* The program attached here holds the maps pinned there (map ids
	 * are unique while the maps live): they are this namespace's. */
	err = prog_find(dir, ifindex, &at);
	if (!err && at.prog_id && at.uses_pins) {
		err = pins_adopt(ns, ifname, &WHY(why));
		if (!err) {
			pins_dir(ns, ifname, why, sizeof(why));
			lib_note(ctx, STEER_WARN, "%s: moved its pins from %s, where an earlier xdp-steer put them by the namespace's inode alone, to %s",
				 ifname, dir, why);
		} else {
			lib_note(ctx, STEER_WARN, "%s: %s", ifname, why);
		}
	}
	lock_release(lock);
	return 0;
}

struct adopt_arg {
	struct steer_ctx *ctx;
	const struct steer_netns *ns;
};

static int adopt_one(const char *ifname, void *arg)
{
	struct adopt_arg *a = arg;

	return lib_adopt(a->ctx, a->ns, ifname);
}

int lib_adopt_all(struct steer_ctx *ctx, const struct steer_netns *ns)
{
	struct steer_netns old = { .ino = ns->ino };
	struct adopt_arg a = { ctx, ns };

	if (ns->initial)
		return 0;
	return pins_list(&old, adopt_one, &a);
}

/* An upgrade in place killed with maps staged (kernel/migrate.h):
 * finished when the program on the interface uses them, else undone. */
static int settle_upgrade(struct steer_ctx *ctx, const struct lib_iface *it)
{
	struct attached at = { 0 };
	char why[512];
	int r;

	if (migrate_staged(it->dir) <= 0)
		return 0;
	/* Unread, the program might use them: left for the next command. */
	if (it->ifindex && prog_find(it->dir, it->ifindex, &at))
		return 0;
	r = migrate_settle(it->dir, at.prog_id, &WHY(why));
	if (r < 0)
		return lib_fail(ctx, r, "%s: settling an upgrade in place left halfway (maps staged in %s) failed: %s",
				it->ifname, it->dir, why);
	if (r == 1)
		lib_note(ctx, STEER_INFO, "%s: an upgrade in place left halfway is finished: program %u runs on its new maps, now pinned under their names",
			 it->ifname, at.prog_id);
	else
		lib_note(ctx, STEER_INFO, "%s: an upgrade in place left halfway before its program was swapped is undone: its staged maps removed",
			 it->ifname);
	return 0;
}

/* steer.h's interface names hold the kernel layer's longest and a NUL. */
_Static_assert(IF_NAMESIZE == IF_NAMESIZE_MAX + 1,
	       "steer.h's IF_NAMESIZE is netns.h's IF_NAMESIZE_MAX + 1");

int steer_ifname_check(struct steer_ctx *ctx, const char *ifname)
{
	char why[128];
	int err;

	ctx->err[0] = 0;
	err = pins_ifname_check(ifname, &WHY(why));
	return err ? lib_fail(ctx, err, "%s", why) : 0;
}

int lib_iface_begin(struct steer_ctx *ctx, const char *ifname, bool exclusive,
		    struct lib_iface *it)
{
	struct waiting_arg w = { ctx, ifname };
	char why[512];
	int err;

	memset(it, 0, sizeof(*it));
	it->lock = -1;
	it->ifname = ifname;
	ctx->err[0] = 0;
	err = pins_ifname_check(ifname, &WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s", why);
	err = netns_self(&it->ns, &WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s", why);
	/* Before any pin path is used, libxdp's too (ip netns exec). */
	err = bpffs_reach(&WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s", why);
	err = pins_dir(&it->ns, ifname, it->dir, sizeof(it->dir));
	if (err)
		return lib_fail(ctx, err, "%s: pin path too long", ifname);
	err = lib_adopt(ctx, &it->ns, ifname);
	if (err)
		return err;
	it->lock = lock_take(&it->ns, ifname, exclusive, say_waiting, &w,
			     &WHY(why));
	if (it->lock < 0) {
		err = it->lock;
		it->lock = -1;
		drop_suffix(why, " (xdp-steer needs root)");
		return lib_fail(ctx, err, "%s: %s%s", ifname, why,
				lib_priv_hint(err));
	}
	it->ifindex = if_nametoindex(ifname);
	return exclusive ? settle_upgrade(ctx, it) : 0;
}

int lib_iface_require(struct steer_ctx *ctx, const struct lib_iface *it)
{
	if (it->ifindex)
		return 0;
	return lib_fail(ctx, -ENODEV, "%s: no such interface in this network namespace; 'ip link' lists them",
			it->ifname);
}

void lib_iface_end(struct lib_iface *it)
{
	struct stat st;

	/* An interface without pins has nothing for its lock to guard; its
	 * file goes, safely for any waiter (lock.h). */
	if (it->lock >= 0 && stat(it->dir, &st) && errno == ENOENT)
		lock_remove(it->lock, &it->ns, it->ifname);
	else
		lock_release(it->lock);
	it->lock = -1;
}

int lib_pins_lost(struct steer_ctx *ctx, const struct lib_iface *it,
		  const char *missing)
{
	struct attached at;
	char what[PATH_MAX + 64];

	if (!it->ifindex || prog_find(it->dir, it->ifindex, &at) ||
	    !at.prog_id)
		return 0;
	if (missing)
		snprintf(what, sizeof(what), "its maps are not all pinned in %s (no %s)",
			 it->dir, missing);
	else
		snprintf(what, sizeof(what), "it does not use the maps pinned in %s",
			 it->dir);
	return lib_fail(ctx, -ENOENT, "%s: xdp_steer program %u is attached, but %s: pins removed by hand or left by another version of xdp-steer, or a program loaded without -p; 'xdp-steer detach %s', then attach it again",
			it->ifname, at.prog_id, what, it->ifname);
}

int lib_steering(const char *dir, int ifindex)
{
	struct attached at;
	int err;

	if (!ifindex)
		return 0;
	err = prog_find(dir, ifindex, &at);
	if (err)
		return err;
	return at.prog_id && at.uses_pins;
}

int lib_not_attached(struct steer_ctx *ctx, const struct lib_iface *it,
		     const char *missing, const char *advice)
{
	if (!it->ifindex)
		return lib_fail(ctx, -ENOENT, "%s: no such interface in this network namespace, and no pins of one by that name; 'ip link' lists the interfaces, 'xdp-steer status' the pins",
				it->ifname);
	return lib_fail(ctx, -ENOENT, "%s: xdp-steer is not attached here (no %s in %s)%s",
			it->ifname, missing, it->dir, advice);
}

int lib_maps_failed(struct steer_ctx *ctx, const struct lib_iface *it,
		    int err, const char *missing)
{
	if (migrate_staged(it->dir) > 0)
		return lib_fail(ctx, -EAGAIN, "%s: an upgrade in place was left halfway, its new maps staged beside the pins in %s (*" MIGRATE_STAGED "): the next 'xdp-steer attach' or 'xdp-steer apply' on %s settles it",
				it->ifname, it->dir, it->ifname);
	if (err == -EPROTO)
		return lib_fail(ctx, err, "%s: the map %s pinned in %s is not this version's (its key, value or size differs): pinned by another version of xdp-steer; 'xdp-steer attach %s --policy POLICY' upgrades it in place where its maps can be carried over, else says why; or 'xdp-steer detach %s', then attach it again",
				it->ifname, missing, it->dir, it->ifname, it->ifname);
	return lib_fail(ctx, err, "%s: cannot open the maps in %s: %s%s",
			it->ifname, it->dir, strerror(-err),
			lib_priv_hint(err));
}

int lib_maps_open(struct steer_ctx *ctx, const struct lib_iface *it,
		  struct steer_maps *m)
{
	const char *missing = NULL;
	char advice[128];
	int err;

	err = maps_open(it->dir, m, &missing);
	if (err == -ENOENT && lib_pins_lost(ctx, it, missing))
		return err;
	if (err == -ENOENT) {
		snprintf(advice, sizeof(advice), "; 'xdp-steer attach %s --policy FILE' first",
			 it->ifname);
		return lib_not_attached(ctx, it, missing, advice);
	}
	if (err)
		return lib_maps_failed(ctx, it, err, missing);
	return 0;
}

int lib_unpin(struct steer_ctx *ctx, const struct lib_iface *it,
	      __u32 *prog_id)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	char why[512];
	int err, tries;

	/* A program libxdp just took off (a dispatcher's extension is freed
	 * after its link) may still hold the maps for a moment. */
	for (tries = 0; tries < 40; tries++) {
		err = pins_used_by(it->dir, prog_id);
		if (err)
			return lib_fail(ctx, err, "%s: cannot tell whether a program uses the maps in %s: %s%s",
					it->ifname, it->dir, strerror(-err),
					lib_priv_hint(err));
		if (!*prog_id)
			break;
		nanosleep(&pause, NULL);
	}
	if (*prog_id)
		return lib_fail(ctx, -EBUSY, "%s: program %u still uses the maps in %s, so they stay; 'bpftool prog show id %u' says what it is",
				it->ifname, *prog_id, it->dir, *prog_id);
	err = pins_remove(&it->ns, it->ifname, &WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s: %s", it->ifname, why);
	return 0;
}
