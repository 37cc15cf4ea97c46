// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NUMA nodes and the default workers they choose: see numa.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/numa.h"

const struct cpu_set *numa_node_cpus(const struct numa_layout *l, int id)
{
	int i;

	for (i = 0; l && i < l->n; i++)
		if (l->node[i].id == id)
			return &l->node[i].cpus;
	return NULL;
}

/* Adds the CPUs of 'set' to node 'n', refusing a CPU another node has. */
static int node_add_cpus(struct numa_layout *l, struct numa_node *n,
			 const struct cpu_set *set, struct why *why)
{
	__u32 cpu;
	int i;

	for (i = 0; i < l->n; i++) {
		if (&l->node[i] == n)
			continue;
		for (cpu = 0; cpu < CPUSET_MAX; cpu++)
			if (cpuset_has(set, cpu) && cpuset_has(&l->node[i].cpus, cpu)) {
				why_set(why, "CPU %u is in node %d and in node %d",
					cpu, l->node[i].id, n->id);
				return -EEXIST;
			}
	}
	for (i = 0; i < CPUSET_MAX / 64; i++)
		n->cpus.bits[i] |= set->bits[i];
	n->cpus.beyond += set->beyond;
	return 0;
}

static int node_new(struct numa_layout *l, int id, struct numa_node **n,
		    struct why *why)
{
	if (id < 0 || id > NUMA_MAX_NODE_ID) {
		why_set(why, "node %d is past %d, the highest node id",
			id, NUMA_MAX_NODE_ID);
		return -E2BIG;
	}
	if (numa_node_cpus(l, id)) {
		why_set(why, "node %d is given twice", id);
		return -EEXIST;
	}
	if (l->n >= NUMA_MAX_NODES) {
		why_set(why, "more than %d nodes", NUMA_MAX_NODES);
		return -E2BIG;
	}
	*n = &l->node[l->n++];
	(*n)->id = id;
	cpuset_zero(&(*n)->cpus);
	return 0;
}

int numa_layout_add(struct numa_layout *l, int id, const char *list)
{
	struct numa_node *n;
	struct cpu_set set;
	char why[64];
	int err;

	if (cpuset_parse(&set, list))
		return -EINVAL;
	err = node_new(l, id, &n, &WHY(why));
	return err ? err : node_add_cpus(l, n, &set, &WHY(why));
}

int numa_layout_parse(struct numa_layout *l, const char *text, struct why *why)
{
	struct numa_node *n = NULL;
	const char *p = text, *end, *colon;
	char tok[64];
	struct cpu_set set;
	unsigned long id;
	char *idend;
	size_t len;
	int err;

	l->n = 0;
	why_set(why, "'%s' is not a node layout like 0:0-15,1:16-31",
		text);
	if (!*p)
		return -EINVAL;
	for (;;) {
		end = p + strcspn(p, ",");
		len = end - p;
		if (!len || len >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, p, len);
		tok[len] = '\0';
		colon = strchr(tok, ':');
		if (colon) {
			if (!isdigit((unsigned char)tok[0]))
				return -EINVAL;
			errno = 0;
			id = strtoul(tok, &idend, 10);
			if (errno || idend != colon)
				return -EINVAL;
			err = node_new(l, id > NUMA_MAX_NODE_ID ?
				       NUMA_MAX_NODE_ID + 1 : (int)id, &n,
				       why);
			if (err)
				return err;
			colon++;
		} else if (!n) {
			return -EINVAL;
		} else {
			colon = tok;
		}
		/* The kernel's list syntax, strictly: no spaces, signs or hex. */
		if (colon[strspn(colon, "0123456789-")] ||
		    cpuset_parse(&set, colon))
			return -EINVAL;
		err = node_add_cpus(l, n, &set, why);
		if (err)
			return err;
		if (!*end)
			break;
		p = end + 1;
	}
	why_clear(why);
	return 0;
}

int numa_nodes_of(const struct numa_layout *l, const struct cpu_set *cpus,
		  char *buf, size_t len)
{
	size_t off = 0;
	int i, n = 0, w;
	__u32 cpu;

	if (len)
		buf[0] = '\0';
	for (i = 0; l && i < l->n; i++) {
		for (cpu = 0; cpu < CPUSET_MAX; cpu++)
			if (cpuset_has(cpus, cpu) &&
			    cpuset_has(&l->node[i].cpus, cpu))
				break;
		if (cpu == CPUSET_MAX)
			continue;
		w = off < len ? snprintf(buf + off, len - off, "%s%d",
					 n ? "," : "", l->node[i].id) : 0;
		off += w > 0 ? w : 0;
		n++;
	}
	return n;
}

enum numa_default numa_default_workers(const struct cpu_set *online,
				       const struct numa_layout *l,
				       int nic_node,
				       const struct cpu_set *collectors,
				       struct cpu_set *out)
{
	const struct cpu_set *node = nic_node >= 0 ?
				     numa_node_cpus(l, nic_node) : NULL;
	bool node_has = false, node_all = true;
	struct cpu_set mine;
	__u32 cpu;

	cpuset_zero(&mine);
	cpuset_zero(out);
	for (cpu = 0; cpu < CPUSET_MAX; cpu++) {
		if (!cpuset_has(online, cpu))
			continue;
		if (!collectors || !cpuset_has(collectors, cpu))
			cpuset_set(out, cpu);
		if (!node)
			continue;
		if (!cpuset_has(node, cpu)) {
			node_all = false;
			continue;
		}
		node_has = true;
		if (!collectors || !cpuset_has(collectors, cpu))
			cpuset_set(&mine, cpu);
	}
	if (!cpuset_count(out)) {
		*out = *online;
		out->beyond = 0;
		return NUMA_DEFAULT_ALL;
	}
	if (!node || node_all)
		return NUMA_DEFAULT_ONLINE;
	if (!node_has)
		return NUMA_DEFAULT_NODE_EMPTY;
	if (!cpuset_count(&mine))
		return NUMA_DEFAULT_NODE_COLLECTS;
	*out = mine;
	return NUMA_DEFAULT_NODE;
}
