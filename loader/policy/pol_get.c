// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The typed getters every file of the policy parser uses: a ranged integer,
 * one of some words, a CPU, a weighted CPU list; each reports a mistake at
 * its node. They call only yaml_util.c and the model layer. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_int.h"

/* ---- numbers and words -------------------------------------------------- */

int pol_get_ranged(struct pctx *c, const yaml_node_t *n, const char *name,
		   long long lo, long long hi, long long *v)
{
	char what[64];

	snprintf(what, sizeof(what), "an integer for %s", name);
	if (yget_int(c->d, n, what, v))
		return -EINVAL;
	if (*v < lo || *v > hi) {
		ERR(c, n, "%s %lld is out of range %lld-%lld", name, *v, lo, hi);
		return -EINVAL;
	}
	return 0;
}

int pol_get_choice(struct pctx *c, const yaml_node_t *n, const char *name,
		   const char *const *choices)
{
	const char *s = yscalar(n);
	int i;

	for (i = 0; s && choices[i]; i++)
		if (yis_word(n, choices[i]))
			return i;
	if (s && !yis_null(n))
		ERR(c, n, "%s must be %s or %s, got '%s'", name, choices[0],
		    choices[1], s);
	else
		ERR(c, n, "%s must be %s or %s, got %s", name, choices[0],
		    choices[1], ynode_kind(n));
	return -EINVAL;
}

/* ---- CPUs --------------------------------------------------------------- */

/* CPUs lo..hi exist and are online; reports the first problem at 'n'. */
static int check_cpus(struct pctx *c, const yaml_node_t *n, long long lo,
		      long long hi)
{
	char have[CPUSET_STR_MAX], miss[CPUSET_STR_MAX];
	struct cpu_set off;
	long long cpu;

	if (lo < 0) {
		ERR(c, n, "cpu %lld is not a CPU number", lo);
		return -EINVAL;
	}
	if (hi >= STEER_CPU_IDS) {
		ERR(c, n, "cpu %lld is beyond the %d CPU ids xdp-steer steers to (cpus 0-%d)",
		    lo >= STEER_CPU_IDS ? lo : hi, STEER_CPU_IDS,
		    STEER_CPU_IDS - 1);
		return -EINVAL;
	}
	/* Past the possible CPUs, a CPU is no entry of the cpumap (sized to
	 * them, kernel/prog.c), online or not ever. */
	for (cpu = lo; c->possible && cpu <= hi; cpu++) {
		if (cpuset_has(c->possible, cpu))
			continue;
		cpuset_format(c->possible, have, sizeof(have));
		ERR(c, n, "cpu %lld is past this kernel's possible CPUs (%s): the cpumap has an entry for each of them only",
		    cpu, have);
		return -EINVAL;
	}
	cpuset_zero(&off);
	for (cpu = lo; cpu <= hi; cpu++)
		if (!cpuset_has(c->online, cpu))
			cpuset_set(&off, cpu);
	if (!cpuset_count(&off))
		return 0;
	cpuset_format(&off, miss, sizeof(miss));
	if (c->online_name) {
		ERR(c, n, "%s %s %s not in %s",
		    cpuset_count(&off) > 1 ? "cpus" : "cpu", miss,
		    cpuset_count(&off) > 1 ? "are" : "is", c->online_name);
		return -EINVAL;
	}
	cpuset_format(c->online, have, sizeof(have));
	ERR(c, n, "%s %s %s not online (online: %s)",
	    cpuset_count(&off) > 1 ? "cpus" : "cpu", miss,
	    cpuset_count(&off) > 1 ? "are" : "is", have[0] ? have : "none");
	return -EINVAL;
}

int pol_get_cpu(struct pctx *c, const yaml_node_t *n, __u32 *cpu)
{
	long long v;

	if (yget_int(c->d, n, "a CPU number", &v) || check_cpus(c, n, v, v))
		return -EINVAL;
	*cpu = v;
	return 0;
}

/* N (a plain integer) or "LO-HI" (quoted or not), as bounds; 1 if it is
 * neither. */
static int cpu_span(struct pctx *c, const yaml_node_t *n, long long *lo,
		    long long *hi)
{
	const char *s = yscalar(n), *dash;
	unsigned long long a, b;

	if (yis_int(n)) {
		if (yget_int(c->d, n, "a CPU number", lo))
			return -EINVAL;
		*hi = *lo;
		return 0;
	}
	/* Digits, one dash, digits: strtoull alone would take "0--1" as 0
	 * to 2^64 - 1. */
	if (!s || strspn(s, "0123456789-") != strlen(s))
		return 1;
	dash = strchr(s, '-');
	if (!dash || dash == s || !dash[1] || strchr(dash + 1, '-'))
		return 1;
	errno = 0;
	a = strtoull(s, NULL, 10);
	b = strtoull(dash + 1, NULL, 10);
	if (errno == ERANGE || a > LLONG_MAX || b > LLONG_MAX) {
		ERR(c, n, "range %s is beyond the %d CPU ids xdp-steer steers to (cpus 0-%d)",
		    s, STEER_CPU_IDS, STEER_CPU_IDS - 1);
		return -EINVAL;
	}
	if (a > b) {
		ERR(c, n, "range %llu-%llu is reversed; did you mean %llu-%llu?",
		    a, b, b, a);
		return -EINVAL;
	}
	*lo = a;
	*hi = b;
	return 0;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct table_cpu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* One entry of a CPU list: N, LO-HI or {cpu: N|LO-HI, weight: W}. */
static int cpu_entry(struct pctx *c, const yaml_node_t *n, long long *lo,
		     long long *hi, long long *weight)
{
	static const char *const keys[] = { "cpu", "weight" };
	yaml_node_t *v[2];
	int err;

	*weight = 1;
	if (n->type == YAML_MAPPING_NODE) {
		err = ymap_walk(c->d, c->doc, n, "a weighted CPU", keys, 2, v,
				NULL);
		if (!v[0]) {
			if (!err)
				ERR(c, n, "weighted entry without 'cpu'");
			return -EINVAL;
		}
		if (v[1] && pol_get_ranged(c, v[1], "weight", 1, POLICY_WEIGHT_MAX,
				       weight))
			err = -EINVAL;
		n = v[0];
		if (err)
			return err;
	}
	err = cpu_span(c, n, lo, hi);
	if (err > 0) {
		if (yscalar(n) && !yis_null(n))
			ERR(c, n, "expected a CPU number, a range like 2-7 or {cpu: N, weight: W}, got '%s'",
			    yscalar(n));
		else
			ERR(c, n, "expected a CPU number, a range like 2-7 or {cpu: N, weight: W}, got %s",
			    ynode_kind(n));
		return -EINVAL;
	}
	if (err)
		return err;
	return check_cpus(c, n, *lo, *hi);
}

int pol_get_cpu_list(struct pctx *c, const yaml_node_t *n,
		     struct policy_cpus *out)
{
	const yaml_node_t *first[STEER_CPU_IDS] = { NULL };
	long long lo, hi, w, cpu;
	yaml_node_item_t *it;
	struct table_cpu *v;
	int err = 0;

	if (n->type != YAML_SEQUENCE_NODE) {
		ERR(c, n, "expected a list of CPUs, got %s", ynode_kind(n));
		return -EINVAL;
	}
	if (n->data.sequence.items.start == n->data.sequence.items.top) {
		ERR(c, n, "empty CPU set; list at least one CPU");
		return -EINVAL;
	}
	v = calloc(STEER_CPU_IDS, sizeof(*v));
	if (!v)
		return -ENOMEM;
	out->v = v;
	out->n = 0;
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		const yaml_node_t *e = ynode(c->doc, *it);

		if (cpu_entry(c, e, &lo, &hi, &w)) {
			err = -EINVAL;
			continue;
		}
		for (cpu = lo; cpu <= hi; cpu++) {
			if (first[cpu]) {
				ERR(c, e, "cpu %lld is listed twice (first at %zu:%zu)",
				    cpu, first[cpu]->start_mark.line + 1,
				    first[cpu]->start_mark.column + 1);
				err = -EINVAL;
				break;
			}
			first[cpu] = e;
			v[out->n++] = (struct table_cpu){ cpu, w };
		}
	}
	qsort(v, out->n, sizeof(*v), cmp_cpu);
	return err;
}
