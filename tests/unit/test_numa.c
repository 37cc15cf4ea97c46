// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tier: the default workers by the NIC's NUMA node
 * (loader/model/numa.c), a row per machine: online CPUs, node layout, the
 * NIC's node and its collectors give the workers and how they were
 * chosen; the layouts `check --nodes` refuses; and the layout and a NIC's
 * node read from a fake sysfs (loader/kernel/numa.c). In a layout, "L"
 * stands for CPUSET_MAX (L+8 is 8 past it), so the rows of CPUs past
 * the limit hold whatever the limit. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/numa.h"
#include "model/numa.h"
#include "test.h"

/* 'tmpl' with each L[+-N] written as CPUSET_MAX[+-N]. */
static const char *expand(const char *tmpl, char *out, size_t len)
{
	size_t o = 0;
	long n;
	char *end;

	for (; *tmpl && o + 16 < len; tmpl++) {
		if (*tmpl != 'L') {
			out[o++] = *tmpl;
			continue;
		}
		n = 0;
		if (tmpl[1] == '+' || (tmpl[1] == '-' && tmpl[2] >= '0' && tmpl[2] <= '9')) {
			n = strtol(tmpl + 1, &end, 10);
			tmpl = end - 1;
		}
		o += snprintf(out + o, len - o, "%ld", CPUSET_MAX + n);
	}
	out[o] = '\0';
	return out;
}

struct choice_case {
	const char *desc;
	const char *online;
	const char *layout;	/* NULL: none known */
	int nic_node;
	const char *collectors;	/* NULL: unknown */
	const char *workers;
	enum numa_default how;
};

static const struct choice_case choices[] = {
	{ "a NIC with no node: the online CPUs but the collectors",
	  "0-7", "0:0-3,1:4-7", -1, "0", "1-7", NUMA_DEFAULT_ONLINE },
	{ "no layout known: the online CPUs but the collectors",
	  "0-7", NULL, 1, "0", "1-7", NUMA_DEFAULT_ONLINE },
	{ "a NIC on node 1 of two: node 1's CPUs but its collector",
	  "0-15", "0:0-7,1:8-15", 1, "8", "9-15", NUMA_DEFAULT_NODE },
	{ "a NIC on node 0 collecting on node 1: all of node 0's CPUs",
	  "0-15", "0:0-7,1:8-15", 0, "8", "0-7", NUMA_DEFAULT_NODE },
	{ "a 2-socket box with SMT siblings numbered apart: node 1 is 16-31,48-63",
	  "0-63", "0:0-15,32-47,1:16-31,48-63", 1, "16,48", "17-31,49-63",
	  NUMA_DEFAULT_NODE },
	{ "sparse node ids (0 and 2): node 2's CPUs",
	  "0-15", "0:0-7,2:8-15", 2, "", "8-15", NUMA_DEFAULT_NODE },
	{ "sparse CPU ids: node 1 holds 4-7 and 12-15, 8-11 are not online",
	  "0-7,12-15", "0:0-3,8-11,1:4-7,12-15", 1, "4", "5-7,12-15",
	  NUMA_DEFAULT_NODE },
	{ "no collectors known: the whole of the NIC's node",
	  "0-15", "0:0-7,1:8-15", 1, NULL, "8-15", NUMA_DEFAULT_NODE },
	{ "the NIC's node has only collectors: today's default, across nodes, said",
	  "0-3", "0:0-1,1:2-3", 1, "2-3", "0-1", NUMA_DEFAULT_NODE_COLLECTS },
	{ "the NIC's node has no CPU (memory only): today's default, said",
	  "0-3", "0:0-3,1:", 1, "0", "1-3", NUMA_DEFAULT_NODE_EMPTY },
	{ "the NIC's node's CPUs are all offline: today's default, said",
	  "0-7", "0:0-7,1:8-15", 1, "0", "1-7", NUMA_DEFAULT_NODE_EMPTY },
	{ "a node the layout does not have: today's default",
	  "0-7", "0:0-3,1:4-7", 3, "0", "1-7", NUMA_DEFAULT_ONLINE },
	{ "one node: today's default",
	  "0-3", "0:0-3", 0, "0", "1-3", NUMA_DEFAULT_ONLINE },
	{ "every online CPU collects: every CPU works, whatever the node",
	  "0-3", "0:0-1,1:2-3", 1, "0-3", "0-3", NUMA_DEFAULT_ALL },
	{ "node 1 holds CPUs past the limit too: its CPUs below it work",
	  "0-L", "0:0-127,L-L+127,1:128-L-1,L+128-L+255", 1, "128", "129-L-1",
	  NUMA_DEFAULT_NODE },
	{ "node 1's CPUs are all past the limit: today's default, said",
	  "0-L", "0:0-L-1,1:L-L+63", 1, "0", "1-L-1", NUMA_DEFAULT_NODE_EMPTY },
};

static void run_choice(const struct choice_case *c)
{
	char buf[256], got[CPUSET_STR_MAX], want[CPUSET_STR_MAX], why[128];
	struct cpu_set online, coll, out, expect;
	struct numa_layout l;
	enum numa_default how;

	cpuset_parse(&online, expand(c->online, buf, sizeof(buf)));
	if (c->collectors)
		cpuset_parse(&coll, c->collectors);
	if (c->layout &&
	    !EXPECT_EQ(numa_layout_parse(&l, expand(c->layout, buf, sizeof(buf)),
					 &WHY(why)), 0, "the layout parses"))
		return;
	how = numa_default_workers(&online, c->layout ? &l : NULL, c->nic_node,
				   c->collectors ? &coll : NULL, &out);
	cpuset_parse(&expect, expand(c->workers, buf, sizeof(buf)));
	if (!EXPECT_STR(cpuset_format(&out, got, sizeof(got)),
			cpuset_format(&expect, want, sizeof(want)),
			"the default workers are the expected CPUs"))
		fprintf(stderr, "  layout %s, NIC node %d, collectors %s\n",
			c->layout ? c->layout : "(none)", c->nic_node,
			c->collectors ? c->collectors : "(unknown)");
	EXPECT_EQ(how, c->how, "they were chosen as expected");
}

static void test_choices(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(choices); i++) {
		int before = test_failed;

		run_choice(&choices[i]);
		if (test_failed > before)
			fprintf(stderr, "  in row: %s\n", choices[i].desc);
	}
}

static void test_layout_keeps_cpus_past_the_limit(void)
{
	char buf[256], why[128];
	struct numa_layout l;

	if (!EXPECT_EQ(numa_layout_parse(&l, expand("0:0-L-1,L+256-L+511,1:L-L+255,L+512-L+767", buf,
						    sizeof(buf)), &WHY(why)), 0,
		       "a layout with CPUs past the limit parses"))
		return;
	EXPECT_EQ(l.n, 2, "two nodes");
	EXPECT_EQ(cpuset_count(&l.node[0].cpus), CPUSET_MAX,
		  "node 0 has every CPU below the limit");
	EXPECT_EQ(l.node[0].cpus.beyond, 256, "and 256 past it, counted");
	EXPECT_EQ(cpuset_count(&l.node[1].cpus), 0, "node 1 none below it");
	EXPECT_EQ(l.node[1].cpus.beyond, 512, "and 512 past it, counted");
}

static void test_nodes_of(void)
{
	char why[128], ids[64];
	struct numa_layout l;
	struct cpu_set s;

	if (!EXPECT_EQ(numa_layout_parse(&l, "0:0-3,2:4-7,5:8-11", &WHY(why)), 0,
		       "a layout of nodes 0, 2 and 5 parses"))
		return;
	cpuset_parse(&s, "1,9");
	EXPECT_EQ(numa_nodes_of(&l, &s, ids, sizeof(ids)), 2, "CPUs 1 and 9 are on two nodes");
	EXPECT_STR(ids, "0,5", "nodes 0 and 5");
	cpuset_parse(&s, "5-6,20");
	EXPECT_EQ(numa_nodes_of(&l, &s, ids, sizeof(ids)), 1,
		  "CPUs 5-6 and 20 (of no node) are on one node");
	EXPECT_STR(ids, "2", "node 2");
}

struct bad_case {
	const char *layout;
	int err;
	const char *why;
};

static const struct bad_case bad[] = {
	{ "", -EINVAL, "is not a node layout" },
	{ "0-3", -EINVAL, "is not a node layout" },
	{ "x:0-3", -EINVAL, "is not a node layout" },
	{ "0:0-3,,1:4-7", -EINVAL, "is not a node layout" },
	{ "0:3-1", -EINVAL, "is not a node layout" },
	{ "0:0x3", -EINVAL, "is not a node layout" },
	{ "0:0-3,1:4-7,", -EINVAL, "is not a node layout" },
	{ "0:0-3,0:4-7", -EEXIST, "node 0 is given twice" },
	{ "0:0-3,1:3-5", -EEXIST, "CPU 3 is in node 0 and in node 1" },
	{ "4096:0", -E2BIG, "node 4096 is past 4095" },
};

static void test_bad_layouts(void)
{
	struct numa_layout l;
	char why[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = numa_layout_parse(&l, bad[i].layout, &WHY(why));

		if (!EXPECT_EQ(err, bad[i].err, "the layout is refused with its errno") ||
		    !EXPECT(strstr(why, bad[i].why), "the reason names the mistake"))
			fprintf(stderr, "  layout '%s': %d, '%s'\n", bad[i].layout,
				err, why);
	}
	EXPECT_EQ(numa_layout_parse(&l, "0:0-3,1:", &WHY(why)), 0,
		  "a node without CPUs is a node");
}

/* A fake sysfs: nodes 0 and 2 online, a virtio-net NIC whose PCI function
 * says node 2, a PCI NIC saying -1, and a veth with no device. */
static char root[] = "/tmp/xdp-steer-numa.XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX], cmd[PATH_MAX + 16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	*strrchr(cmd, '/') = '\0';
	strcat(cmd, "'");
	if (system(cmd))
		return;
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void link_to(const char *rel, const char *target)
{
	char path[PATH_MAX], cmd[3 * PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && ln -s '%s' '%s'",
		 path, target, path);
	if (system(cmd))
		fprintf(stderr, "  cannot link %s\n", path);
}

static void test_sysfs(void)
{
	char cmd[PATH_MAX];
	struct numa_layout l;
	const struct cpu_set *c;
	char list[64];

	if (!mkdtemp(root)) {
		test_skip("no temporary directory");
		return;
	}
	put("devices/system/node/online", "0,2\n");
	put("devices/system/node/node0/cpulist", "0-3,8-11\n");
	put("devices/system/node/node2/cpulist", "4-7,12-15\n");
	put("devices/pci0000:80/0000:80:00.0/0000:81:00.0/numa_node", "2\n");
	put("devices/pci0000:80/0000:80:00.0/0000:81:00.0/virtio4/vendor", "0x1af4\n");
	put("devices/pci0000:00/0000:00:02.0/numa_node", "-1\n");
	link_to("class/net/eth9/device",
		"../../../devices/pci0000:80/0000:80:00.0/0000:81:00.0/virtio4");
	link_to("class/net/eth1/device", "../../../devices/pci0000:00/0000:00:02.0");
	put("class/net/veth0/address", "00:00:00:00:00:01\n");
	link_to("bus/pci/devices/0000:81:00.0",
		"../../../devices/pci0000:80/0000:80:00.0/0000:81:00.0");
	link_to("bus/virtio/devices/virtio4",
		"../../../devices/pci0000:80/0000:80:00.0/0000:81:00.0/virtio4");

	if (EXPECT_EQ(numa_read_layout(root, &l), 0, "the layout is read") &&
	    EXPECT_EQ(l.n, 2, "two nodes")) {
		c = numa_node_cpus(&l, 2);
		EXPECT(c && !strcmp(cpuset_format(c, list, sizeof(list)), "4-7,12-15"),
		       "node 2 (node 1 absent) has CPUs 4-7,12-15");
	}
	EXPECT_EQ(numa_netdev_node("eth9", NULL, root), 2,
		  "a virtio-net NIC's node is its PCI function's");
	EXPECT_EQ(numa_netdev_node("eth1", NULL, root), -ENOENT,
		  "numa_node -1 is no node");
	EXPECT_EQ(numa_netdev_node("veth0", NULL, root), -ENOENT,
		  "a veth has no device, so no node");
	EXPECT_EQ(numa_netdev_node("eth5", "0000:81:00.0", root), 2,
		  "a PCI NIC of another namespace is found by its bus_info");
	EXPECT_EQ(numa_netdev_node("eth6", "virtio4", root), 2,
		  "a virtio-net NIC of another namespace, by its virtio device");
	EXPECT_EQ(numa_netdev_node("eth7", "../../etc", root), -ENOENT,
		  "a bus_info with a slash is not followed");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "  cannot remove %s\n", root);
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_choices, "default workers: the NIC's node's CPUs but collectors, else today's default, a row per machine"),
	TEST_ENTRY(test_layout_keeps_cpus_past_the_limit, "a layout counts CPUs past the limit, dropping none unsaid"),
	TEST_ENTRY(test_nodes_of, "the nodes a CPU set spans are named, sparse ids too"),
	TEST_ENTRY(test_bad_layouts, "bad --nodes layouts are refused, each with its reason"),
	TEST_ENTRY(test_sysfs, "the layout and a NIC's node are read from sysfs, through a virtio device to its PCI function"),
};

TEST_MAIN("numa")
