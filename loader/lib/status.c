// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* steer_status(), steer_list(), steer_pin_dir(): reading, never changing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/names.h"
#include "xdp_steer/stats.h"
#include "xdp_steer/balance.h"
#include "xdp_steer/rx_slots.h"
#include "kernel/possible.h"
#include "kernel/maps.h"
#include "kernel/netdev.h"
#include "kernel/numa.h"
#include "kernel/pins.h"
#include "kernel/prog.h"
#include "kernel/slots.h"
#include "lib/lib_int.h"

/* Whether CPU 'cpu' holds a receiver slot now (steer_rx_slot). */
static bool rx_holds(const struct steer_maps *m, int cpu)
{
	__u32 key = (__u32)cpu, slot = 0;

	return !bpf_map_lookup_elem(m->steer_rx_slot, &key, &slot) && slot;
}

/* The receiving CPUs without a receiver slot now that found every one
 * taken, by their steer_stats rows (per-CPU maps have one for every
 * possible CPU): those whose last look found none, and those that passed
 * frames for want of one and have taken none over since (a slot is
 * taken over only a lease after its CPU left it: bpf/drain.h); ascending,
 * into a malloc()ed *ids; and how many slots there are. */
static size_t rx_no_slot(const struct steer_maps *m, __u32 **ids,
			 __u32 *slots)
{
	int span = possible_span(), cpu;
	struct steer_rx_pool pool = {};
	struct steer_stats *by_id;
	__u32 zero = 0;
	size_t n = 0;

	*ids = NULL;
	if (bpf_map_lookup_elem(m->steer_rx_pool, &zero, &pool) || span <= 0)
		return 0;
	*slots = pool.limit && pool.limit < STEER_RX_SLOTS ? pool.limit :
							     STEER_RX_SLOTS;
	if (pool.claimed < *slots)
		return 0;	/* one is free: every CPU that asked got one */
	by_id = calloc(span, sizeof(*by_id));
	*ids = calloc(span, sizeof(**ids));
	if (by_id && *ids &&
	    !maps_percpu_read(m->steer_stats, 0, sizeof(*by_id), by_id))
		for (cpu = 0; cpu < span; cpu++)
			if (((__u32)by_id[cpu].rx_slot == STEER_RX_SLOT_NONE ||
			     by_id[cpu].no_rx_slot) && !rx_holds(m, cpu))
				(*ids)[n++] = cpu;
	free(by_id);
	return n;
}

/* Reads what the warnings depend on from the system and decides them;
 * what cannot be read is left out of the decision (model/health.h). */
static void check_health(struct steer_status *st, const struct steer_maps *m)
{
	struct cpu_set online, irq, misplaced;
	struct netdev_info ni, *nip = NULL;
	const struct slot_view *v = &st->view;
	struct health_input in = {
		.ifname = st->ifname,
		.if_exists = st->if_exists,
		.attached = st->at.prog_id != 0,
		.uses_pins = st->at.uses_pins,
		.nsteer = st->at.nsteer,
		.table_size = st->view.slot.table_size,
		.queue_size = st->view.slot.queue_size,
		.loader_flags = st->view.slot.loader_flags,
		.slot_flags = st->view.slot.flags,
		.buckets = st->view.buckets,
		.possible_cpus = possible_span(),
	};
	struct numa_layout *l;
	struct utsname u;
	__u32 *no_slot;
	int t;

	if (!uname(&u))
		in.release = u.release;
	cpuset_zero(&misplaced);
	for (t = 0; t < STEER_CPU_TARGETS; t++) {
		in.idle_entries += v->in_cpumap[t] && !v->need[t] &&
				   !v->in_use[t];
		/* The policy's own entries: one retiring goes once its
		 * buckets have drained, and no apply could do more. */
		if (v->in_cpumap[t] && v->need[t] &&
		    kthread_misplaced(&v->kthreads[t], t % STEER_CPU_IDS))
			cpuset_set(&misplaced, t % STEER_CPU_IDS);
	}
	in.misplaced = &misplaced;

	if (!cpuset_read_online(&online, NULL)) {
		in.online = &online;
		in.online_beyond = cpuset_count_from(&online, STEER_CPU_IDS);
	}
	if (st->if_exists && !netdev_info(st->ifname, &ni)) {
		nip = &ni;
		in.netdev = nip;
	}
	if (st->if_exists && !netdev_irq_cpus(st->ifname, nip, NULL, &irq))
		in.irq = &irq;
	in.nic_node = st->if_exists ?
		      numa_netdev_node(st->ifname, nip ? ni.bus_info : NULL, NULL) : -1;
	l = in.nic_node >= 0 ? malloc(sizeof(*l)) : NULL;
	if (l && !numa_read_layout(NULL, l))
		in.nic_node_cpus = numa_node_cpus(l, in.nic_node);
	in.nrx_no_slot = rx_no_slot(m, &no_slot, &in.rx_slots);
	in.rx_no_slot = no_slot;
	health_check(&in, &st->health);
	free(no_slot);
	free(l);
}

/* The balancer's record, and whether it still runs. */
static int read_balance(const struct steer_maps *m,
			struct steer_balance_status *b)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(m->steer_balance, &zero, &b->rec))
		return -errno;
	b->running = lib_balancer_alive(&b->rec);
	return 0;
}

int steer_status(struct steer_ctx *ctx, const char *ifname,
		 struct steer_status *st)
{
	const char *missing = NULL;
	struct steer_maps m;
	struct lib_iface it;
	int err;

	memset(st, 0, sizeof(*st));
	err = lib_iface_begin(ctx, ifname, false, &it);
	if (err)
		goto out;
	snprintf(st->ifname, sizeof(st->ifname), "%s", ifname);
	snprintf(st->pin_dir, sizeof(st->pin_dir), "%s", it.dir);
	st->if_exists = it.ifindex != 0;
	err = maps_open(it.dir, &m, &missing);
	if (err == -ENOENT) {
		if (!lib_pins_lost(ctx, &it, missing))
			lib_not_attached(ctx, &it, missing, "");
		goto out;
	}
	if (err) {
		lib_maps_failed(ctx, &it, err, missing);
		goto out;
	}
	if (it.ifindex)
		prog_find(it.dir, it.ifindex, &st->at);
	err = slots_read_view(&m, &st->view);
	if (!err)
		err = read_balance(&m, &st->balance);
	if (err)
		lib_fail(ctx, err, "%s: reading the maps in %s failed: %s",
			 ifname, it.dir, strerror(-err));
	else
		check_health(st, &m);
	maps_close(&m);
out:
	lib_iface_end(&it);
	return err;
}

static int add_ifname(const char *ifname, void *arg)
{
	struct steer_list *l = arg;
	char (*v)[IF_NAMESIZE] = realloc(l->ifnames, (l->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->ifnames = v;
	snprintf(v[l->n++], sizeof(v[0]), "%s", ifname);
	return 0;
}

static int add_dir(char (**v)[PATH_MAX], int *n, const struct steer_netns *ns)
{
	char (*nv)[PATH_MAX] = realloc(*v, (*n + 1) * sizeof(**v));
	char name[NETNS_NAME_MAX];

	if (!nv)
		return -ENOMEM;
	*v = nv;
	netns_dir_name(ns, name, sizeof(name));
	snprintf(nv[(*n)++], sizeof(nv[0]), "%s/%s", STEER_PIN_ROOT, name);
	return 0;
}

static int add_gone(const struct steer_netns *ns, bool exists, void *arg)
{
	struct steer_list *l = arg;

	if (!exists)
		return add_dir(&l->gone, &l->ngone, ns);
	/* The inode layout's, at an inode some namespace has now: whose
	 * they are, only a program using them tells. */
	if (!ns->cookie)
		return add_dir(&l->earlier, &l->nearlier, ns);
	return 0;
}

int steer_list(struct steer_ctx *ctx, struct steer_list *l)
{
	struct steer_netns self;
	char why[512];
	int err;

	memset(l, 0, sizeof(*l));
	ctx->err[0] = 0;
	err = netns_self(&self, &WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s", why);
	/* Before any pin path is used, libxdp's too (ip netns exec). */
	err = bpffs_reach(&WHY(why));
	if (err)
		return lib_fail(ctx, err, "%s", why);
	err = lib_adopt_all(ctx, &self);
	if (err)
		return err;
	err = pins_list(&self, add_ifname, l);
	if (!err)
		err = pins_list_netns(&self, add_gone, l);
	if (err) {
		steer_list_free(l);
		return lib_fail(ctx, err, "listing %s failed: %s%s",
				STEER_PIN_ROOT, strerror(-err),
				lib_priv_hint(err));
	}
	return 0;
}

void steer_list_free(struct steer_list *l)
{
	free(l->ifnames);
	free(l->gone);
	free(l->earlier);
	memset(l, 0, sizeof(*l));
}
int steer_pin_dir(struct steer_ctx *ctx, const char *ifname, bool create,
		  char *buf, size_t len)
{
	struct lib_iface it;
	char why[512];
	int err;

	err = lib_iface_begin(ctx, ifname, create, &it);
	if (!err && create) {
		err = pins_prepare(&it.ns, ifname, true, &WHY(why));
		if (err)
			lib_fail(ctx, err, "%s: %s", ifname, why);
	}
	if (!err)
		snprintf(buf, len, "%s", it.dir);
	lib_iface_end(&it);
	return err;
}
