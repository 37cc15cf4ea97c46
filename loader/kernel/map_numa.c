// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The per-slot maps placed on the NIC's NUMA node: see map_numa.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/map_numa.h"
#include "kernel/maps.h"

/* The map_flags of the map pinned at 'path', or -errno. */
static long pinned_flags(const char *path)
{
	struct bpf_map_info info;
	int err = maps_pinned_info(path, &info);

	return err ? err : (long)info.map_flags;
}

static int apply_one(struct bpf_object *obj, const char *name,
		     const char *pin_dir, int node)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, name);
	const char *pin;
	__u32 flags;
	long pinned = -ENOENT;
	char path[PATH_MAX];

	if (!map)
		return -ENOENT;
	flags = bpf_map__map_flags(map) & ~BPF_F_NUMA_NODE;
	/* The path libbpf reuses (an upgrade's staged map, or the pin). */
	pin = bpf_map__pin_path(map);
	if (!pin && pin_dir &&
	    snprintf(path, sizeof(path), "%s/%s", pin_dir, name) <
	    (int)sizeof(path))
		pin = path;
	if (pin)
		pinned = pinned_flags(pin);
	if (pinned >= 0)
		return bpf_map__set_map_flags(map, flags |
					      ((__u32)pinned & BPF_F_NUMA_NODE));
	if (pinned != -ENOENT)
		return (int)pinned;
	if (node < 0)
		return bpf_map__set_map_flags(map, flags);
	if (bpf_map__set_map_flags(map, flags | BPF_F_NUMA_NODE))
		return -EINVAL;
	return bpf_map__set_numa_node(map, (__u32)node);
}

int map_numa_apply(struct bpf_object *obj, const char *pin_dir, int node)
{
	int err = 0;

#define MAP_NUMA_(name)							\
	if (!err)							\
		err = apply_one(obj, #name, pin_dir, node);
	MAP_NUMA_MAPS(MAP_NUMA_)
#undef MAP_NUMA_
	return err;
}
