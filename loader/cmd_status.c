// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* status: what is attached where, the policy in force, health warnings. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "cmd.h"
#include "health.h"
#include "log.h"
#include "maps.h"
#include "netdev.h"
#include "prog.h"

/* The slot in force and what its table and rules hold. */
struct slot_view {
	struct steer_slot slot;
	__u32 active;
	__u32 buckets[STEER_MAX_CPUS];	/* table buckets per CPU */
	int nflow, nsrc, ndst;
	struct bpf_cpumap_val cpumap[STEER_MAX_CPUS];
	unsigned char in_cpumap[STEER_MAX_CPUS];
};

static int count_slot_keys(int fd, size_t key_size, size_t slot_off,
			   __u32 slot)
{
	char cur[64], next[64];
	void *prev = NULL;
	int n = 0;
	__u32 s;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(&s, next + slot_off, sizeof(s));
		n += s == slot;
		memcpy(cur, next, key_size);
		prev = cur;
	}
	return n;
}

static int read_view(const struct steer_maps *m, struct slot_view *v)
{
	struct steer_ctl ctl;
	__u32 zero = 0, i, key, cpu;

	memset(v, 0, sizeof(*v));
	if (bpf_map_lookup_elem(m->ctl, &zero, &ctl))
		return -errno;
	v->active = ctl.active & 1;
	if (bpf_map_lookup_elem(m->slots, &v->active, &v->slot))
		return -errno;
	for (i = 0; i < v->slot.table_size && i < STEER_TABLE_MAX; i++) {
		key = v->active * STEER_TABLE_MAX + i;
		if (!bpf_map_lookup_elem(m->table, &key, &cpu) &&
		    cpu < STEER_MAX_CPUS)
			v->buckets[cpu]++;
	}
	v->nflow = count_slot_keys(m->flow_rules, sizeof(struct steer_rule_key),
				   offsetof(struct steer_rule_key, slot), v->active);
	v->nsrc = count_slot_keys(m->src_prefix, sizeof(struct steer_prefix_key),
				  offsetof(struct steer_prefix_key, slot), v->active);
	v->ndst = count_slot_keys(m->dst_prefix, sizeof(struct steer_prefix_key),
				  offsetof(struct steer_prefix_key, slot), v->active);
	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
		v->in_cpumap[cpu] = !bpf_map_lookup_elem(m->cpumap, &cpu,
							 &v->cpumap[cpu]);
	return 0;
}

/* Reads what the warnings depend on from the system and decides them;
 * what cannot be read is left out of the decision (health.h). */
static void check_health(const char *ifname, bool if_exists,
			 const struct attached *at, const struct slot_view *v,
			 struct health *h)
{
	struct cpu_set online, irq;
	struct netdev_info ni;
	struct health_input in = {
		.ifname = ifname,
		.if_exists = if_exists,
		.attached = at->prog_id != 0,
		.uses_pins = at->uses_pins,
		.table_size = v->slot.table_size,
		.queue_size = v->slot.queue_size,
		.buckets = v->buckets,
	};

	if (!cpuset_read_online(&online, NULL))
		in.online = &online;
	if (!netdev_irq_cpus(ifname, NULL, &irq))
		in.irq = &irq;
	if (!netdev_info(ifname, &ni))
		in.netdev = &ni;
	health_check(&in, h);
}

static void print_text(const char *ifname, const struct attached *at,
		       const struct slot_view *v, const struct health *h)
{
	const struct steer_slot *s = &v->slot;
	__u32 cpu;
	int i, first = 1;

	if (at->prog_id)
		printf("%s: xdp_steer program %u, %s mode, %s\n", ifname,
		       at->prog_id, prog_mode_name(at->mode),
		       at->dispatcher ? "under libxdp's dispatcher" :
				       "single program (no dispatcher)");
	else
		printf("%s: not attached (maps pinned in %s/%s)\n", ifname,
		       STEER_PIN_ROOT, ifname);
	if (s->table_size) {
		printf("  policy: generation %u (slot %u), hash %s%s, local fast path %s, rebalance %s, queue %u, table %u\n",
		       s->generation, v->active,
		       s->flags & STEER_F_HASH_L4 ? "l4" : "l3",
		       s->flags & STEER_F_SYMMETRIC ? " symmetric" : "",
		       s->flags & STEER_F_LOCAL_FASTPATH ? "on" : "off",
		       s->loader_flags & STEER_LF_REBALANCE_DRAIN ? "drain" : "immediate",
		       s->queue_size, s->table_size);
		printf("  workers:");
		for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
			if (v->buckets[cpu]) {
				printf("%s cpu %u (%u buckets)", first ? "" : ",",
				       cpu, v->buckets[cpu]);
				first = 0;
			}
		printf("\n  rules: %d exact-field (%u field set%s), %d source prefix, %d destination prefix\n",
		       v->nflow, s->nshapes, s->nshapes == 1 ? "" : "s",
		       v->nsrc, v->ndst);
		printf("  non-IP: ");
		if (s->nonip_cpu == STEER_CPU_LOCAL)
			printf("passed on the receiving CPU\n");
		else
			printf("cpu %u\n", s->nonip_cpu);
	}
	for (i = 0; i < h->n; i++)
		printf("  warning: %s\n", h->msg[i]);
}

static void print_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static void print_json(const char *ifname, const struct attached *at,
		       const struct slot_view *v, const struct health *h)
{
	const struct steer_slot *s = &v->slot;
	__u32 cpu;
	int i, first = 1;

	printf("{\"ifname\": ");
	print_json_str(ifname);
	printf(", \"attached\": %s, \"prog_id\": %u, \"mode\": \"%s\", \"dispatcher\": %s, \"uses_pins\": %s",
	       at->prog_id ? "true" : "false", at->prog_id,
	       prog_mode_name(at->mode), at->dispatcher ? "true" : "false",
	       at->uses_pins ? "true" : "false");
	printf(", \"policy\": {\"applied\": %s, \"generation\": %u, \"slot\": %u, \"hash\": \"%s\", \"symmetric\": %s, \"local_fastpath\": %s, \"rebalance\": \"%s\", \"queue_size\": %u, \"table_size\": %u, \"exact_rules\": %d, \"src_prefix_rules\": %d, \"dst_prefix_rules\": %d",
	       s->table_size ? "true" : "false", s->generation, v->active,
	       s->flags & STEER_F_HASH_L4 ? "l4" : "l3",
	       s->flags & STEER_F_SYMMETRIC ? "true" : "false",
	       s->flags & STEER_F_LOCAL_FASTPATH ? "true" : "false",
	       s->loader_flags & STEER_LF_REBALANCE_DRAIN ? "drain" : "immediate",
	       s->queue_size, s->table_size, v->nflow, v->nsrc, v->ndst);
	printf(", \"workers\": [");
	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
		if (v->buckets[cpu]) {
			printf("%s{\"cpu\": %u, \"buckets\": %u}", first ? "" : ", ",
			       cpu, v->buckets[cpu]);
			first = 0;
		}
	printf("], \"cpumap\": [");
	for (cpu = 0, first = 1; cpu < STEER_MAX_CPUS; cpu++)
		if (v->in_cpumap[cpu]) {
			printf("%s{\"cpu\": %u, \"qsize\": %u, \"prog_id\": %u}",
			       first ? "" : ", ", cpu, v->cpumap[cpu].qsize,
			       v->cpumap[cpu].bpf_prog.id);
			first = 0;
		}
	printf("]}, \"warnings\": [");
	for (i = 0; i < h->n; i++) {
		printf("%s", i ? ", " : "");
		print_json_str(h->msg[i]);
	}
	printf("]}\n");
}

/* Exit status: 0, or EXIT_FAIL when nothing could be read. */
static int status_one(const char *ifname, int json)
{
	struct slot_view *v;
	struct health h = { .n = 0 };
	struct steer_maps m;
	struct attached at = {};
	int err, ifindex;

	ifindex = if_nametoindex(ifname);
	err = maps_open(ifname, &m);
	if (err) {
		pr_err("%s: xdp-steer is not attached here (no maps in %s/%s)\n",
		       ifname, STEER_PIN_ROOT, ifname);
		return EXIT_FAIL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		maps_close(&m);
		return EXIT_FAIL;
	}
	if (ifindex)
		prog_find(ifname, ifindex, &at);
	err = read_view(&m, v);
	if (err) {
		pr_err("%s: reading the maps failed: %s\n", ifname, strerror(-err));
	} else {
		check_health(ifname, ifindex != 0, &at, v, &h);
		if (json)
			print_json(ifname, &at, v, &h);
		else
			print_text(ifname, &at, v, &h);
	}
	free(v);
	maps_close(&m);
	return err ? EXIT_FAIL : 0;
}

static int json_handle(int opt, const char *arg, void *ctx)
{
	(void)arg;
	if (opt != 'j')
		return -1;
	*(int *)ctx = 1;
	return 0;
}

int cmd_status(int argc, char **argv)
{
	const char *usage = "xdp-steer status [IFACE] [--json]\n"
		"  What is attached, in which mode, the policy in force and health\n"
		"  warnings; every interface with pins when IFACE is not given.";
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct dirent *de;
	int json = 0, ret, any = 0;
	DIR *d;

	ret = cmd_getopt(argc, argv, "j", longopts, usage, json_handle, &json);
	if (ret >= 0)
		return ret;
	if (argc - optind > 1) {
		fprintf(stderr, "usage: %s\n", usage);
		return EXIT_USAGE;
	}
	if (argc - optind == 1)
		return status_one(argv[optind], json);
	ret = 0;
	d = opendir(STEER_PIN_ROOT);
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			ret |= status_one(de->d_name, json);
			any = 1;
		}
		closedir(d);
	}
	if (!any && !json)
		printf("xdp-steer is not attached to any interface\n");
	return ret ? EXIT_FAIL : 0;
}
