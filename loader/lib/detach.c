// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* steer_detach() and the sweep of stale pins. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/stat.h>

#include "xdp_steer/names.h"
#include "kernel/lock.h"
#include "kernel/pins.h"
#include "kernel/prog.h"
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
	err = pins_prepare(&it.ns, ifname, false, &WHY(why));
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
	bool quiet_busy;		/* pins a program uses are someone's
					 * to move: not reported */
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
	it.lock = lock_take(s->ns, ifname, true, NULL, NULL, &WHY(why));
	if (it.lock < 0)
		return lib_fail(s->ctx, it.lock, "%s: %s", ifname, why);
	err = lib_unpin(s->ctx, &it, &user);
	if (err)
		lock_release(it.lock);
	else
		lock_remove(it.lock, s->ns, ifname);
	if (err == -EBUSY && s->quiet_busy) {
		s->ctx->err[0] = 0;
		return 0;
	}
	if (err && err != -EBUSY)
		return err;
	return add_stale(s->res, it.dir, !err, user);
}

/* Another namespace's directory: a gone namespace's pins all go. One of
 * the inode layout (cookie 0) belongs to whichever namespace's program
 * uses it, which that namespace moves (lib_adopt()); those no program
 * uses nobody can ever reach again, and go too. */
static int sweep_netns(const struct steer_netns *ns, bool exists, void *arg)
{
	struct sweep *s = arg, sub = *s;

	if (exists && ns->cookie)
		return 0;
	sub.ns = ns;
	sub.all = true;
	sub.quiet_busy = exists;
	return pins_list(ns, sweep_iface, &sub);
}

/* Lock files, gathered before any is judged: whose namespace lives is
 * asked of netns_probe() once for all of them. */
struct lock_sweep {
	struct steer_netns *ns;
	char (*ifname)[IF_NAMESIZE_MAX + 1];
	struct netns_probe *probe;
	size_t n;
};

static int add_lock(const struct steer_netns *ns, const char *ifname,
		    void *arg)
{
	struct lock_sweep *l = arg;
	size_t n = l->n + 1;
	void *a, *b, *c;

	a = realloc(l->ns, n * sizeof(*l->ns));
	if (a)
		l->ns = a;
	b = realloc(l->ifname, n * sizeof(*l->ifname));
	if (b)
		l->ifname = b;
	c = realloc(l->probe, n * sizeof(*l->probe));
	if (c)
		l->probe = c;
	if (!a || !b || !c)
		return -ENOMEM;
	l->ns[l->n] = *ns;
	snprintf(l->ifname[l->n], sizeof(l->ifname[0]), "%s", ifname);
	l->probe[l->n] = (struct netns_probe){ ns->ino, ns->cookie, false };
	l->n++;
	return 0;
}

/* Removes the lock files nobody holds and nothing needs: those of gone
 * namespaces (an earlier xdp-steer's, named by inode alone, when no
 * namespace has that inode), and this namespace's of interfaces without
 * pins. */
static int sweep_locks(const struct steer_netns *self, int *removed)
{
	struct lock_sweep l = { 0 };
	char dir[PATH_MAX];
	struct stat st;
	size_t i;
	bool mine;
	int err;

	err = lock_list(add_lock, &l);
	if (!err)
		err = netns_probe(l.probe, l.n);
	for (i = 0; !err && i < l.n; i++) {
		mine = l.ns[i].ino == self->ino && l.ns[i].cookie == self->cookie;
		if (mine && (pins_dir(self, l.ifname[i], dir, sizeof(dir)) ||
			     !stat(dir, &st)))
			continue;
		/* An earlier xdp-steer's name (cookie 0) may be in use by one
		 * still running in the namespace with that inode, which does
		 * not look again after it locks: left while that inode lives. */
		if (!mine && l.probe[i].alive)
			continue;
		err = lock_remove_idle(&l.ns[i], l.ifname[i]);
		if (err > 0)
			(*removed)++;
		err = err < 0 ? err : 0;
	}
	free(l.ns);
	free(l.ifname);
	free(l.probe);
	return err;
}

int steer_detach_stale(struct steer_ctx *ctx, struct steer_stale_result *res)
{
	struct steer_netns self;
	struct sweep s = { ctx, res, &self, false, false };
	char why[512];
	int err;

	memset(res, 0, sizeof(*res));
	ctx->err[0] = 0;
	err = netns_self(&self, &WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s", why);
	/* Before any pin path is used, libxdp's too (ip netns exec). */
	err = bpffs_reach(&WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s", why);
	/* This namespace's pins in an earlier xdp-steer's directory are
	 * moved first, so they are not taken for another's. */
	err = lib_adopt_all(ctx, &self);
	if (!err)
		err = pins_list(&self, sweep_iface, &s);
	if (!err)
		err = pins_list_netns(&self, sweep_netns, &s);
	if (!err) {
		res->lock_dir = LOCK_DIR;
		err = sweep_locks(&self, &res->locks_removed);
		if (err)
			lib_fail(ctx, err, "removing stale lock files in %s failed: %s",
				 LOCK_DIR, strerror(-err));
	}
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
