// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * steer_which_flow(): where a flow is steered now, and why. The CPU is
 * worked out as the datapath works it out (bpf/xdp_steer.bpf.c), with the
 * same shared code of include/xdp_steer.h: the flow hash under the slot's
 * key and flags, the rule keys of each shape in use, the CPU set member
 * of a hash, the table index; the earliest matching rule wins, then the
 * table. The maps are the policy in force, read under the shared lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "xdp_steer/drain.h"
#include "xdp_steer/hash.h"
#include "xdp_steer/key_fill.h"
#include "kernel/possible.h"
#include "kernel/clock.h"
#include "kernel/maps.h"
#include "kernel/evidence.h"
#include "kernel/slots.h"
#include "lib/lib_int.h"

/* The earliest rule matching 'f' under slot 'id', as match_rules() in the
 * datapath: one lookup per shape, exact shapes in flow_rules, prefix
 * shapes (longest match) in prefix_rules. false: none matches. */
static bool match(const struct steer_maps *m, __u32 id,
		  const struct steer_slot *s, const struct steer_flow *f,
		  struct steer_target *best, __u32 *shape, bool *prefix)
{
	struct steer_prefix_key pk;
	struct steer_rule_key k;
	struct steer_target t;
	bool found = false;
	__u32 i;

	for (i = 0; i < s->nshapes && i < STEER_MAX_SHAPES; i++) {
		if (i < s->nexact) {
			steer_rule_key_fill(&k, id, s->shapes[i], f);
			if (bpf_map_lookup_elem(m->flow_rules, &k, &t))
				continue;
		} else {
			steer_prefix_key_fill(&pk, id, s->shapes[i], f);
			if (bpf_map_lookup_elem(m->prefix_rules, &pk, &t))
				continue;
		}
		if (!found || t.rule_id < best->rule_id) {
			*best = t;
			*shape = s->shapes[i];
			*prefix = i >= s->nexact;
			found = true;
		}
	}
	return found;
}

/* The CPU of a rule's target for the hash, as target_cpu() in the
 * datapath; false for a broken set (the frame then goes by the table). */
static bool rule_cpu(const struct steer_maps *m,
		     const struct steer_target *t, __u32 hash, __u32 *cpu)
{
	__u32 idx;

	if (t->ncpus <= 1) {
		*cpu = t->cpu;
		return true;
	}
	idx = t->cpu + steer_set_index(hash, t->ncpus);
	return !bpf_map_lookup_elem(m->rule_cpus, &idx, cpu);
}

/* Which receiving CPUs still send the bucket's frames to an old CPU: a
 * record live under the slot in force, its drain begun, and its last
 * frame there not up the stack yet by the drain's evidence
 * (kernel/evidence.h), as the datapath would judge it now. */
static int drain_state(const struct steer_maps *m,
		       const struct steer_slot *s, struct steer_which *w)
{
	int ncpus = possible_span(), c, hz, err, verdict;
	struct steer_bucket *v = NULL;
	struct evidence *e;
	__u32 ms;

	if (ncpus < 0)
		return ncpus;
	e = malloc(sizeof(*e));
	v = calloc(ncpus, sizeof(*v));
	if (!e || !v) {
		err = -ENOMEM;
		goto out;
	}
	/* The evidence first, as the datapath reads it. */
	err = evidence_read(m, e);
	if (!err)
		err = clock_hz(&hz);
	if (!err)
		err = maps_rx_read(m, m->steer_buckets, w->record, sizeof(*v),
				   v);
	for (c = 0; !err && c < ncpus && c < STEER_RX_CPU_IDS; c++) {
		if (!steer_bucket_live(&v[c], s->drain_gen) || !v[c].since)
			continue;
		verdict = evidence_judge(e, c, &v[c], s->drain_units,
					 s->gro_units);
		if (verdict == STEER_DRAIN_DONE)
			continue;
		w->draining_to[c] = maps_target_in(m, v[c].target &
						     ~STEER_TARGET_LOCAL) %
				    STEER_CPU_IDS;
		w->ndraining++;
		w->nstalled += verdict == STEER_DRAIN_STALLED;
		ms = (__s32)(e->now - v[c].since) > 0 ?
		     (e->now - v[c].since) * 1000 / hz : 0;
		if ((int)ms > w->drain_ms)
			w->drain_ms = ms;
	}
out:
	free(v);
	free(e);
	return err;
}

/* The hash the datapath computes for a frame of flow 'f' without VLAN
 * tags or a tunnel's header (bpf/xdp_steer.bpf.c: key_id_hash()). */
static __u32 which_hash(const struct steer_slot *s, const struct steer_flow *f,
			bool *key_id)
{
	__u32 ports, id;

	memcpy(&ports, &f->sport, sizeof(ports));
	*key_id = (s->flags & STEER_F_KEY_ID) &&
		  steer_key_id(s->flags, 0, 0, ports, 0, &id);
	return *key_id ? steer_id_hash(id, s->hash_key) :
			 steer_flow_hash(f, s->hash_key, s->flags, 0);
}

/* In the datapath's order, under the shared lock: the slot in force
 * and its table read, the flow's hash, the earliest matching rule,
 * whose CPU is the answer; else the table's bucket and, under drain,
 * the receiving CPUs whose records still send it to an old CPU
 * (drain_state()). The answer is for a frame without VLAN tags or a
 * tunnel's header (which_hash()). */
int steer_which_flow(struct steer_ctx *ctx, const char *ifname,
		     const struct steer_flow *f, struct steer_which *w)
{
	__u32 *table = NULL, cpu, shape = 0, i;
	struct steer_target t = {};
	struct steer_ctl ctl;
	struct steer_slot s;
	struct steer_maps m;
	struct lib_iface it;
	bool prefix = false;
	int err;

	memset(w, 0, sizeof(*w));
	w->flow = *f;
	for (i = 0; i < STEER_RX_CPU_IDS; i++)
		w->draining_to[i] = STEER_CPU_LOCAL;
	err = lib_iface_begin(ctx, ifname, false, &it);
	if (err)
		goto out;
	err = lib_maps_open(ctx, &it, &m);
	if (err)
		goto out;
	table = calloc(STEER_TABLE_MAX, sizeof(*table));
	err = table ? slots_read_active(&m, &ctl, &s, table) : -ENOMEM;
	if (err == -ENOENT)
		lib_fail(ctx, err, "%s: no policy applied; 'xdp-steer apply %s --policy POLICY' first",
			 ifname, ifname);
	else if (err)
		lib_fail(ctx, err, "%s: reading the policy in force failed: %s",
			 ifname, strerror(-err));
	if (err)
		goto out_maps;
	w->generation = s.generation;
	w->table_size = s.table_size;
	w->fastpath = s.flags & STEER_F_LOCAL_FASTPATH;
	w->symmetric = s.flags & STEER_F_SYMMETRIC;
	w->key_flags = s.flags & (STEER_F_KEY_ID | STEER_F_HASH_L4);
	w->hash = which_hash(&s, f, &w->key_id);
	if (s.nshapes && match(&m, ctl.active, &s, f, &t, &shape, &prefix) &&
	    rule_cpu(&m, &t, w->hash, &cpu)) {
		w->by = prefix ? STEER_WHICH_PREFIX : STEER_WHICH_RULE;
		w->cpu = cpu;
		w->rule_id = t.rule_id;
		w->shape = shape;
		w->set_size = t.ncpus > 1 ? t.ncpus : 1;
		goto out_maps;
	}
	w->by = STEER_WHICH_TABLE;
	w->bucket = steer_table_index(w->hash, s.table_size);
	w->record = steer_table_index(w->hash, STEER_TABLE_MAX);
	w->cpu = table[w->bucket];
	if (s.flags & STEER_F_DRAIN) {
		err = drain_state(&m, &s, w);
		if (err)
			lib_fail(ctx, err, "%s: reading the drain records failed: %s",
				 ifname, strerror(-err));
	}
out_maps:
	free(table);
	maps_close(&m);
out:
	lib_iface_end(&it);
	return err;
}
