// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* steer_detach() and the sweep of stale pins. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "kernel/lock.h"
#include "lib/lib_int.h"

int steer_detach(struct steer_ctx *ctx, const char *ifname,
		 struct steer_detach_result *res)
{
	struct lib_iface it;
	char why[512];
	__u32 user;
	int err;

	memset(res, 0, sizeof(*res));
	err = lib_iface_begin(ctx, ifname, true, &it);
	if (err)
		goto out;
	res->iface_gone = !it.ifindex;
	if (it.ifindex) {
		err = prog_detach(it.ifindex);
		if (err && err != -ENOENT) {
			lib_fail(ctx, err, "%s: detaching failed: %s%s", ifname,
				 strerror(-err), lib_priv_hint(err));
			goto out;
		}
		res->was_attached = !err;
	}
	err = pins_prepare(&it.ns, ifname, false, why, sizeof(why));
	if (err == -ENOENT) {
		err = 0;
		if (res->iface_gone)
			err = lib_fail(ctx, -ENODEV, "%s: no such interface in this network namespace, and no pins of it; 'ip link' lists interfaces, 'xdp-steer status' what xdp-steer runs on",
				       ifname);
		goto out;
	}
	if (err) {
		lib_fail(ctx, err, "%s: %s", ifname, why);
		goto out;
	}
	err = lib_unpin(ctx, &it, &user);
	res->pins_removed = !err;
out:
	lib_iface_end(&it);
	return err;
}

static int add_stale(struct steer_stale_result *res, const char *dir,
		     bool removed, __u32 prog_id)
{
	struct steer_stale *v = realloc(res->v, (res->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	res->v = v;
	memset(&v[res->n], 0, sizeof(v[res->n]));
	snprintf(v[res->n].dir, sizeof(v[res->n].dir), "%s", dir);
	v[res->n].removed = removed;
	v[res->n].prog_id = prog_id;
	res->n++;
	return 0;
}

struct sweep {
	struct steer_ctx *ctx;
	struct steer_stale_result *res;
	const struct steer_netns *ns;	/* the namespace being swept */
	bool all;			/* its namespace is gone: every entry */
};

/* One interface directory: removed when its interface (or namespace) is
 * gone and no program uses its maps. */
static int sweep_iface(const char *ifname, void *arg)
{
	struct sweep *s = arg;
	struct lib_iface it = { .ifname = ifname, .ns = *s->ns, .lock = -1 };
	char why[512];
	__u32 user = 0;
	int err;

	if (!s->all && if_nametoindex(ifname))
		return 0;
	if (pins_dir(s->ns, ifname, it.dir, sizeof(it.dir)))
		return 0;
	it.lock = lock_take(s->ns, ifname, true, NULL, NULL, why, sizeof(why));
	if (it.lock < 0)
		return lib_fail(s->ctx, it.lock, "%s: %s", ifname, why);
	err = lib_unpin(s->ctx, &it, &user);
	lock_release(it.lock);
	if (err && err != -EBUSY)
		return err;
	return add_stale(s->res, it.dir, !err, user);
}

static int sweep_netns(const struct steer_netns *ns, bool exists, void *arg)
{
	struct sweep *s = arg, sub = *s;

	if (exists)
		return 0;
	sub.ns = ns;
	sub.all = true;
	return pins_list(ns, sweep_iface, &sub);
}

int steer_detach_stale(struct steer_ctx *ctx, struct steer_stale_result *res)
{
	struct steer_netns self;
	struct sweep s = { ctx, res, &self, false };
	int err;

	memset(res, 0, sizeof(*res));
	ctx->err[0] = 0;
	err = pins_netns_self(&self);
	if (err)
		return lib_fail(ctx, err, "cannot tell which network namespace this is: %s",
				strerror(-err));
	err = pins_list(&self, sweep_iface, &s);
	if (!err)
		err = pins_list_netns(&self, sweep_netns, &s);
	if (err && !ctx->err[0])
		lib_fail(ctx, err, "listing the pins in %s failed: %s%s",
			 STEER_PIN_ROOT, strerror(-err), lib_priv_hint(err));
	return err;
}

void steer_stale_free(struct steer_stale_result *res)
{
	free(res->v);
	res->v = NULL;
	res->n = 0;
}
