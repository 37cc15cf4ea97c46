// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The machine's NUMA nodes and an interface's node: see numa.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/numa.h"

/* The first line of 'path' into buf, its newline cut. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (!err)
		buf[strcspn(buf, "\n")] = '\0';
	return err;
}

/* The nodes of the list 'ids', each with its cpulist read into 'cpus'. */
static int layout_of(const char *sys, const char *ids, char *cpus,
		     size_t cpus_len, struct numa_layout *l)
{
	char path[PATH_MAX], *end;
	const char *p;
	unsigned long lo, hi, id;
	int err;

	for (p = ids; *p; p = *end ? end + 1 : end) {
		lo = strtoul(p, &end, 10);
		if (end == p)
			return -EINVAL;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo)
				return -EINVAL;
		}
		if (*end && *end != ',')
			return -EINVAL;
		for (id = lo; id <= hi; id++) {
			if (id > NUMA_MAX_NODE_ID)
				return -E2BIG;
			snprintf(path, sizeof(path),
				 "%s/devices/system/node/node%lu/cpulist", sys, id);
			err = read_line(path, cpus, cpus_len);
			if (err == -ENODATA)
				cpus[0] = '\0';
			else if (err)
				return err;
			err = numa_layout_add(l, id, cpus);
			if (err)
				return err;
		}
	}
	return 0;
}

int numa_read_layout(const char *sys, struct numa_layout *l)
{
	/* A cpulist of every other CPU of 8192 fits, with room. */
	const size_t cpus_len = 8192 * 6;
	char path[PATH_MAX], ids[4096], *cpus;
	int err;

	l->n = 0;
	if (!sys)
		sys = "/sys";
	snprintf(path, sizeof(path), "%s/devices/system/node/online", sys);
	err = read_line(path, ids, sizeof(ids));
	if (err)
		return err;
	cpus = malloc(cpus_len);
	if (!cpus)
		return -ENOMEM;
	err = layout_of(sys, ids, cpus, cpus_len, l);
	free(cpus);
	return err;
}

int numa_netdev_node(const char *ifname, const char *bus_info,
		     const char *sys)
{
	static const char *const buses[] = { "pci", "virtio" };
	char path[PATH_MAX + 16], dev[PATH_MAX], top[PATH_MAX], val[32], *slash;
	long node;
	size_t i;
	int err;

	if (!sys)
		sys = "/sys";
	snprintf(top, sizeof(top), "%s/devices", sys);
	/* realpath() of the root, for a fake tree reached through links. */
	if (realpath(top, dev))
		memcpy(top, dev, sizeof(top));
	snprintf(path, sizeof(path), "%s/class/net/%s/device", sys, ifname);
	err = realpath(path, dev) ? 0 : -errno;
	for (i = 0; err && bus_info && *bus_info && !strchr(bus_info, '/') &&
		    i < sizeof(buses) / sizeof(buses[0]); i++) {
		snprintf(path, sizeof(path), "%s/bus/%s/devices/%s", sys,
			 buses[i], bus_info);
		err = realpath(path, dev) ? 0 : -errno;
	}
	if (err)
		return err;
	for (;;) {
		snprintf(path, sizeof(path), "%s/numa_node", dev);
		err = read_line(path, val, sizeof(val));
		if (!err) {
			node = strtol(val, NULL, 10);
			return node >= 0 && node <= NUMA_MAX_NODE_ID ? (int)node :
			       -ENOENT;
		}
		if (err != -ENOENT)
			return err;
		slash = strrchr(dev, '/');
		if (!slash || strncmp(dev, top, strlen(top)) ||
		    slash - dev <= (long)strlen(top))
			return -ENOENT;
		*slash = '\0';
	}
}
