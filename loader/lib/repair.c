// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * steer_repair(): the policy in force applied again, read back from the
 * maps as the balancer reads it, so that whatever an apply mends is
 * mended without the policy file: cpumap kthreads that may run off their
 * CPU (kernel/kthreads.h) get new entries on their CPUs, missing cpumap
 * entries are made again, an interrupted apply is finished. What a udev
 * rule runs when a CPU comes back online (loader/dist/).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "kernel/cpumap.h"
#include "kernel/kthreads.h"
#include "kernel/maps.h"
#include "kernel/slots.h"
#include "lib/lib_int.h"

int lib_misplaced(const struct steer_maps *m, struct cpu_set *out)
{
	unsigned char need[STEER_CPU_TARGETS];
	struct cpu_set online;
	struct steer_slot s;
	struct steer_ctl ctl;
	__u32 zero = 0;
	int err;

	cpuset_zero(out);
	/* Only the policy's own entries: a retiring one goes once its
	 * buckets have drained, and applying again would not hasten it. */
	err = bpf_map_lookup_elem(m->steer_ctl, &zero, &ctl) ? -errno : 0;
	if (!err && bpf_map_lookup_elem(m->steer_slots, &(__u32){ ctl.active & 1 },
					&s))
		err = -errno;
	if (!err)
		err = cpumap_slot_needs(m, ctl.active & 1, &s, need);
	if (!err)
		err = cpuset_read_online(&online, NULL);
	if (!err)
		err = kthreads_misplaced(m, need, &online, out);
	return err;
}

int lib_repair_locked(struct steer_ctx *ctx, const struct lib_iface *it,
		      const struct steer_maps *m,
		      struct steer_apply_result *res)
{
	__u32 *table = calloc(STEER_TABLE_MAX, sizeof(*table));
	struct steer_build b;
	int err;

	memset(res, 0, sizeof(*res));
	if (!table)
		return lib_fail(ctx, -ENOMEM, "out of memory");
	err = slots_read_build(m, &b, table);
	if (err == -ENOENT) {
		err = lib_fail(ctx, err, "%s: no policy in force to apply again; 'xdp-steer apply %s --policy POLICY'",
			       it->ifname, it->ifname);
		goto out;
	}
	if (err) {
		lib_fail(ctx, err, "%s: reading the policy in force failed: %s",
			 it->ifname, strerror(-err));
		goto out;
	}
	/* Its own table as it is: a repair moves no bucket to another CPU. */
	b.table = table;
	err = lib_apply_build(ctx, it, m, &b, res);
	build_free(&b);
out:
	free(table);
	return err;
}

int steer_repair(struct steer_ctx *ctx, const char *ifname,
		 struct steer_apply_result *res)
{
	struct steer_maps m;
	struct lib_iface it;
	int err;

	memset(res, 0, sizeof(*res));
	err = lib_iface_begin(ctx, ifname, true, &it);
	if (!err)
		err = lib_iface_require(ctx, &it);
	if (!err)
		err = lib_maps_open(ctx, &it, &m);
	if (!err) {
		err = lib_repair_locked(ctx, &it, &m, res);
		maps_close(&m);
	}
	lib_iface_end(&it);
	return err;
}
