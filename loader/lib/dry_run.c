// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * steer_apply_dry_run(): what an apply would change, read and compared,
 * nothing written. The build is made by the apply's own steps (lib_apply_
 * open, compile and ticks; slots_plan(), the read-only half of the
 * apply's prepare), so its errors and its table are the apply's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cpumap.h"
#include "kernel/maps.h"
#include "kernel/slots.h"
#include "lib/lib_int.h"

/* What lives on the heap: two tables, a plan's reading of the kernel. */
struct dry_bufs {
	__u32 *old_table, *next_table;
	struct slots_plan *sp;
	struct bpf_cpumap_val val[STEER_CPU_TARGETS];
	unsigned char present[STEER_CPU_TARGETS];
	__u32 qsize[STEER_CPU_TARGETS];
	struct plan_sched sched[STEER_CPU_TARGETS];
};

static void fill_kernel_side(struct dry_bufs *d)
{
	const struct kthread_info *k;
	__u32 t;

	for (t = 0; t < STEER_CPU_TARGETS; t++) {
		d->qsize[t] = d->present[t] ? d->val[t].qsize : 0;
		k = &d->sp->kt[t];
		d->sched[t] = (struct plan_sched){
			.known = k->pid != 0 && k->policy >= 0,
			.policy = k->policy,
			.priority = k->priority,
			.nice = k->nice,
		};
	}
}

/* Entries the slot in force does not need that buckets still drain
 * from go once drained, whatever is applied: not the apply's change, so
 * not in the plan (status shows them). */
static int leaving(const struct steer_maps *m, struct dry_bufs *d)
{
	unsigned char need[STEER_CPU_TARGETS], in_use[STEER_CPU_TARGETS];
	__u32 t;
	int err;

	if (!d->sp->active.table_size)
		return 0;
	err = cpumap_slot_needs(m, d->sp->ctl.active, &d->sp->active, need);
	if (!err)
		err = cpumap_in_use(m, &d->sp->active, in_use, NULL, NULL, NULL,
				    NULL);
	for (t = 0; !err && t < STEER_CPU_TARGETS; t++)
		if (!need[t] && in_use[t])
			d->present[t] = 0;
	return err;
}

/* Under the shared lock, the apply's read-only steps in its order: the
 * maps opened, the policy compiled and its ticks set, the build in force
 * read back (-ENOENT: none, a first apply), slots_plan() for the table
 * the apply would write and the kthreads it would renew, the cpumap
 * entries less those that go anyway (leaving()); then plan_make()
 * compares. Builds and maps are freed on every path; res->plan is the
 * caller's to free once plan_make() has succeeded. */
static int dry_run_locked(struct steer_ctx *ctx, const struct lib_iface *it,
			  const struct steer_policy *p,
			  struct steer_dry_run *res, struct dry_bufs *d)
{
	struct steer_build next = {}, old = {};
	struct plan_in in = {};
	struct steer_maps m;
	bool had_old;
	char why[512];
	int err;

	err = lib_apply_open(ctx, it, &m, true);
	if (err)
		return err;
	err = lib_apply_compile(ctx, it, p, &next, &res->cpus_fallback);
	if (!err)
		err = lib_apply_ticks(ctx, it, &next);
	if (err)
		goto out;
	err = slots_read_build(&m, &old, d->old_table);
	had_old = !err;
	if (err && err != -ENOENT) {
		lib_fail(ctx, err, "%s: reading the policy in force failed: %s",
			 it->ifname, strerror(-err));
		goto out;
	}
	err = slots_plan(&m, &next, d->next_table, d->sp, &WHY(why));
	if (err) {
		lib_fail(ctx, err, "%s: planning the apply failed: %s",
			 it->ifname, why[0] ? why : strerror(-err));
		goto out;
	}
	cpumap_read(&m, d->val, d->present);
	err = leaving(&m, d);
	if (err) {
		lib_fail(ctx, err, "%s: reading which cpumap entries buckets drain from failed: %s",
			 it->ifname, strerror(-err));
		goto out;
	}
	fill_kernel_side(d);
	res->generation = had_old ? d->sp->active.generation : 0;
	in = (struct plan_in){
		.old = had_old ? &old : NULL,
		.old_table = d->old_table,
		.next = &next,
		.next_table = d->next_table,
		.key_drawn = d->sp->key_drawn,
		.in_cpumap = d->present,
		.qsize = d->qsize,
		.sched = d->sched,
		.renew = &d->sp->renewed,
	};
	err = plan_make(&in, &res->plan);
	if (err)
		lib_fail(ctx, err, "%s: out of memory comparing the policies",
			 it->ifname);
out:
	build_free(&old);
	build_free(&next);
	maps_close(&m);
	return err;
}

int steer_apply_dry_run(struct steer_ctx *ctx, const char *ifname,
			const struct steer_policy *p,
			struct steer_dry_run *res)
{
	struct dry_bufs *d;
	struct lib_iface it;
	int err;

	memset(res, 0, sizeof(*res));
	d = calloc(1, sizeof(*d));
	if (d) {
		d->old_table = calloc(STEER_TABLE_MAX, sizeof(__u32));
		d->next_table = calloc(STEER_TABLE_MAX, sizeof(__u32));
		d->sp = calloc(1, sizeof(*d->sp));
	}
	if (!d || !d->old_table || !d->next_table || !d->sp) {
		err = lib_fail(ctx, -ENOMEM, "out of memory");
		goto out_free;
	}
	/* Shared: a dry run reads, as status does; an apply under way
	 * finishes first. */
	err = lib_iface_begin(ctx, ifname, false, &it);
	if (err)
		goto out;
	err = lib_iface_require(ctx, &it);
	if (err)
		goto out;
	err = dry_run_locked(ctx, &it, p, res, d);
out:
	lib_iface_end(&it);
out_free:
	if (d) {
		free(d->old_table);
		free(d->next_table);
		free(d->sp);
	}
	free(d);
	return err;
}
