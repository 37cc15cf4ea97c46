// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The slot in force read back from the maps (slots.h): as the build that
 * would apply it again (the balancer, repair, dry runs), as the view
 * status prints, and its flip word and weights, which the apply's phases
 * read too. Reads only: nothing here writes a map. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "kernel/cpumap.h"
#include "kernel/kthreads.h"
#include "kernel/slots.h"
#include "kernel/window.h"

int slots_read_ctl(const struct steer_maps *m, struct steer_ctl *ctl)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(m->steer_ctl, &zero, ctl))
		return -errno;
	ctl->active &= 1;
	return 0;
}

int slots_read_weights(const struct steer_maps *m, __u32 slot, __u32 *weight)
{
	memset(weight, 0, STEER_CPU_IDS * sizeof(*weight));
	return maps_read_array(m->steer_weights, slot * m->span, m->span,
			       sizeof(*weight), weight);
}

static int count_key(int fd, const void *key, void *arg)
{
	(void)fd;
	(void)key;
	++*(int *)arg;
	return 0;
}

/* ---- the slot in force, read back as a build ----------------------------- */

struct collect {
	struct steer_build *b;
	__u32 base;		/* the slot's first rule_cpus entry */
};

/* A rule's target as compile made it: a CPU set's index from 0. */
static struct steer_target unslotted(const struct collect *c,
				     struct steer_target t)
{
	if (t.ncpus > 1)
		t.cpu -= c->base;
	return t;
}

/* Appends the rule at 'key' (of 'fd') to 'v' (n of them, each the key
 * then its target, as build_flow_rule and build_prefix_rule lay them
 * out), its target unslotted. */
_Static_assert(offsetof(struct build_flow_rule, target) ==
	       sizeof(struct steer_rule_key) &&
	       sizeof(struct build_flow_rule) ==
	       sizeof(struct steer_rule_key) + sizeof(struct steer_target),
	       "a flow rule is its key, then its target");
_Static_assert(offsetof(struct build_prefix_rule, target) ==
	       sizeof(struct steer_prefix_key) &&
	       sizeof(struct build_prefix_rule) ==
	       sizeof(struct steer_prefix_key) + sizeof(struct steer_target),
	       "a prefix rule is its key, then its target");
static int collect(const struct collect *c, int fd, const void *key,
		   size_t key_size, void **v, int *n)
{
	size_t size = key_size + sizeof(struct steer_target);
	struct steer_target t;
	char *grown;

	if (bpf_map_lookup_elem(fd, key, &t))
		return errno == ENOENT ? 0 : -errno;
	grown = realloc(*v, (*n + 1) * size);
	if (!grown)
		return -ENOMEM;
	*v = grown;
	grown += (*n)++ * size;
	memcpy(grown, key, key_size);
	t = unslotted(c, t);
	memcpy(grown + key_size, &t, sizeof(t));
	return 0;
}

static int collect_flow(int fd, const void *key, void *arg)
{
	struct collect *c = arg;

	return collect(c, fd, key, sizeof(struct steer_rule_key),
		       (void **)&c->b->flow, &c->b->nflow);
}

static int collect_prefix(int fd, const void *key, void *arg)
{
	struct collect *c = arg;

	return collect(c, fd, key, sizeof(struct steer_prefix_key),
		       (void **)&c->b->prefix, &c->b->nprefix);
}

int slots_read_active(const struct steer_maps *m, struct steer_ctl *ctl,
		      struct steer_slot *s, __u32 *table)
{
	int err;

	err = slots_read_ctl(m, ctl);
	if (err)
		return err;
	if (bpf_map_lookup_elem(m->steer_slots, &ctl->active, s))
		return -errno;
	if (!s->table_size || s->table_size > STEER_TABLE_MAX ||
	    s->nrule_cpus > STEER_RULE_CPUS_MAX)
		return -ENOENT;
	return maps_read_array(m->steer_table, ctl->active * STEER_TABLE_MAX,
			       s->table_size, sizeof(*table), table);
}

int slots_read_build(const struct steer_maps *m, struct steer_build *b,
		     __u32 *table)
{
	struct collect c = { .b = b };
	__u32 weight[STEER_CPU_IDS], i, key;
	struct steer_ctl ctl;
	int err;

	memset(b, 0, sizeof(*b));
	err = slots_read_active(m, &ctl, &b->slot, table);
	if (err)
		return err;
	err = slots_read_weights(m, ctl.active, weight);
	if (err)
		return err;
	for (i = 0; i < STEER_CPU_IDS; i++)
		if (weight[i])
			b->cpus[b->ncpus++] = (struct table_cpu){ i, weight[i] };
	if (!b->ncpus)
		return -ENOENT;
	b->nrule_cpus = b->slot.nrule_cpus;
	for (i = 0; i < b->nrule_cpus; i++) {
		key = ctl.active * STEER_RULE_CPUS_MAX + i;
		if (bpf_map_lookup_elem(m->rule_cpus, &key, &b->rule_cpus[i]))
			return -errno;
	}
	c.base = ctl.active * STEER_RULE_CPUS_MAX;
	err = maps_for_flow_rules(m, ctl.active, collect_flow, &c);
	if (!err)
		err = maps_for_prefix_rules(m, ctl.active, collect_prefix, &c);
	if (err)
		build_free(b);
	return err;
}

static int read_window_view(const struct steer_maps *m, struct slot_view *v)
{
	struct steer_window w;
	int err;

	err = window_read(m, &w);
	if (!err)
		v->window_open = w.open != 0;
	return err;
}

/* The receiver slots handed out, and their CPUs (steer_rx_cpu); a slot
 * claimed whose CPU is not written yet is left out. */
static int read_rx_view(const struct steer_maps *m, struct slot_view *v)
{
	struct steer_rx_pool pool;
	__u32 zero = 0, s, n, cpu;

	if (bpf_map_lookup_elem(m->steer_rx_pool, &zero, &pool))
		return -errno;
	v->rx_slots = pool.limit && pool.limit < STEER_RX_SLOTS ? pool.limit :
							      STEER_RX_SLOTS;
	n = steer_rx_pool_used(&pool);
	for (s = 0; s < n; s++) {
		if (bpf_map_lookup_elem(m->steer_rx_cpu, &s, &cpu))
			return -errno;
		if (cpu)
			v->rx_cpus[v->rx_held++] = cpu - 1;
	}
	return 0;
}

int slots_read_view(const struct steer_maps *m, struct slot_view *v)
{
	__u32 i, key, cpu;
	int err;

	memset(v, 0, sizeof(*v));
	err = slots_read_ctl(m, &v->ctl);
	if (err)
		return err;
	if (bpf_map_lookup_elem(m->steer_slots, &v->ctl.active, &v->slot))
		return -errno;
	for (i = 0; i < v->slot.table_size && i < STEER_TABLE_MAX; i++) {
		key = v->ctl.active * STEER_TABLE_MAX + i;
		if (!bpf_map_lookup_elem(m->steer_table, &key, &cpu) &&
		    cpu < STEER_CPU_IDS)
			v->buckets[cpu]++;
	}
	err = maps_for_flow_rules(m, v->ctl.active, count_key, &v->nflow);
	if (!err)
		err = maps_for_prefix_rules(m, v->ctl.active, count_key, &v->nprefix);
	if (err)
		return err;
	cpumap_read(m, v->cpumap, v->in_cpumap);
	err = cpumap_slot_needs(m, v->ctl.active, &v->slot, v->need);
	if (!err)
		err = cpumap_in_use(m, &v->slot, v->in_use, NULL,
				    &v->draining, &v->stalled, NULL);
	if (!err)
		err = read_window_view(m, v);
	if (!err)
		err = read_rx_view(m, v);
	/* The kthreads are the system's to read, not the maps': a /proc
	 * that cannot be read leaves them unknown (pid 0), no failure. */
	if (!err)
		kthreads_read(m, v->kthreads);
	return err;
}
