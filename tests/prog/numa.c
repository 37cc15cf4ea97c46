// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * numa.c - the per-slot maps made on the NIC's node (loader/kernel/
 * map_numa.h): the object loaded as the loader sets it up, the flag read
 * back from the kernel (bpf_map_info.map_flags: the node itself is shown
 * nowhere, but the kernel takes it only with BPF_F_NUMA_NODE, and refuses
 * a node that is not online). Node 0, which every machine has.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer/names.h"
#include "xdp_steer/stats.h"
#include "xdp_steer/drain.h"
#include "kernel/map_numa.h"
#include "kernel/pins.h"
#include "prog_env.h"

static const char *const per_slot[] = {
#define NAME_(name) #name,
	MAP_NUMA_MAPS(NAME_)
#undef NAME_
};

/* The object, unloaded, no map pinned; NULL on failure (said). */
static struct bpf_object *open_obj(void)
{
	char path[PATH_MAX];
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;

	if (!EXPECT_EQ(steer_prog_find_obj(path, sizeof(path)), 0,
		       "the object was found"))
		return NULL;
	obj = bpf_object__open_file(path, NULL);
	if (!EXPECT(obj != NULL, "the object opens"))
		return NULL;
	bpf_object__for_each_map(map, obj)
		bpf_map__set_pin_path(map, NULL);
	/* The maps are what is looked at: no program needs loading. */
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, false);
	return obj;
}

static __u32 flags_of(struct bpf_object *obj, const char *name)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_object__find_map_fd_by_name(obj, name);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return ~0u;
	return info.map_flags;
}

/* A NIC on node 0: each per-slot map is made with BPF_F_NUMA_NODE, which
 * the kernel keeps in its flags; the other maps without. */
static void test_per_slot_maps_are_made_on_the_nics_node(void)
{
	struct bpf_object *obj = open_obj();
	char what[96];
	size_t i;

	if (!obj)
		return;
	if (EXPECT_EQ(map_numa_apply(obj, NULL, 0), 0, "node 0 was set") &&
	    EXPECT_EQ(bpf_object__load(obj), 0, "the maps were made")) {
		for (i = 0; i < sizeof(per_slot) / sizeof(per_slot[0]); i++) {
			snprintf(what, sizeof(what),
				 "%s was made on a node (BPF_F_NUMA_NODE)",
				 per_slot[i]);
			EXPECT(flags_of(obj, per_slot[i]) != ~0u &&
			       (flags_of(obj, per_slot[i]) & BPF_F_NUMA_NODE),
			       what);
		}
		EXPECT(!(flags_of(obj, STEER_STR(steer_stats)) & BPF_F_NUMA_NODE),
		       "a per-CPU map (steer_stats) was not");
	}
	bpf_object__close(obj);
}

/* A NIC of no node (veth, numa_node -1): no map asks for one. */
static void test_no_node_asks_for_none(void)
{
	struct bpf_object *obj = open_obj();
	size_t i;
	bool none = true;

	if (!obj)
		return;
	if (EXPECT_EQ(map_numa_apply(obj, NULL, -1), 0, "no node was set") &&
	    EXPECT_EQ(bpf_object__load(obj), 0, "the maps were made")) {
		for (i = 0; i < sizeof(per_slot) / sizeof(per_slot[0]); i++)
			none &= !(flags_of(obj, per_slot[i]) & BPF_F_NUMA_NODE);
		EXPECT(none, "no per-slot map has BPF_F_NUMA_NODE");
	}
	bpf_object__close(obj);
}

/* A map pinned with the flag is reused by a later load (an apply, the
 * workers') whatever node is asked then: libbpf reuses only a map of the
 * same flags, so the flag comes from the pin. */
static void test_a_pinned_map_keeps_its_flag(void)
{
	struct bpf_object *obj = open_obj(), *again = NULL;
	char dir[] = "/sys/fs/bpf/xst-numa-XXXXXX", path[PATH_MAX], why[512];
	struct bpf_map *map;
	int fd;

	if (!obj)
		return;
	/* A fresh machine may have no bpffs mounted: reach it as the tool
	 * does before its first pin. */
	if (!EXPECT_EQ(bpffs_reach(&WHY(why)), 0, why) ||
	    !EXPECT(mkdtemp(dir) != NULL, "a pin directory was made"))
		goto out;
	snprintf(path, sizeof(path), "%s/%s", dir, STEER_STR(steer_deq));
	map = bpf_object__find_map_by_name(obj, STEER_STR(steer_deq));
	if (!EXPECT_EQ(map_numa_apply(obj, NULL, 0), 0, "node 0 was set") ||
	    !EXPECT_EQ(bpf_object__load(obj), 0, "the maps were made") ||
	    !EXPECT_EQ(bpf_map__pin(map, path), 0, "steer_deq was pinned"))
		goto out_dir;
	again = open_obj();
	map = again ? bpf_object__find_map_by_name(again, STEER_STR(steer_deq)) :
		      NULL;
	if (!map || !EXPECT_EQ(bpf_map__set_pin_path(map, path), 0,
			       "the second object uses the pin"))
		goto out_dir;
	EXPECT_EQ(map_numa_apply(again, dir, -1), 0,
		  "the second load asks for no node");
	EXPECT_EQ(bpf_object__load(again), 0,
		  "and reuses the pinned steer_deq (libbpf refuses other flags)");
	fd = bpf_map__fd(map);
	EXPECT(fd >= 0 && (flags_of(again, STEER_STR(steer_deq)) &
			   BPF_F_NUMA_NODE), "which keeps its flag");
out_dir:
	unlink(path);
	rmdir(dir);
out:
	bpf_object__close(again);
	bpf_object__close(obj);
}

const struct test_case numa_tests[] = {
	TEST_ENTRY(test_per_slot_maps_are_made_on_the_nics_node,
		   "numa: a NIC's node makes each per-slot map there (BPF_F_NUMA_NODE in the kernel's flags), the per-CPU maps not"),
	TEST_ENTRY(test_no_node_asks_for_none,
		   "numa: a NIC of no node (veth) asks for none"),
	TEST_ENTRY(test_a_pinned_map_keeps_its_flag,
		   "numa: a per-slot map pinned with its node is reused as it is by a later load that asks for none"),
};
const size_t n_numa_tests = ARRAY_SIZE(numa_tests);
