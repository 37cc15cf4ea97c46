// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The sizes of the maps an object is opened with: see prog_size.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/possible.h"
#include "xdp_steer/sizes.h"
#include "xdp_steer/names.h"
#include "xdp_steer/rx_slots.h"
#include "xdp_steer.skel.h"
#include "kernel/maps.h"
#include "kernel/migrate.h"
#include "kernel/netdev.h"
#include "kernel/prog_size.h"

static int pinned_entries(const char *dir, const char *name);

int prog_cpumap_entries(const char *pin_dir)
{
	struct bpf_map_info info;
	char path[PATH_MAX];

	/* Pinned already (by an earlier attach, or xdp-loader -p from the
	 * object's own size): libbpf reuses only a map of the same size. */
	if (pin_dir &&
	    snprintf(path, sizeof(path), "%s/cpu_map", pin_dir) < (int)sizeof(path) &&
	    !maps_pinned_info(path, &info))
		return (int)info.max_entries;
	/* An entry per CPU id, holes in the possible mask included. */
	return prog_span(pin_dir);
}

int prog_span(const char *pin_dir)
{
	int n = pin_dir ? pinned_entries(pin_dir, STEER_STR(steer_wdone)) :
			  -ENOENT;

	if (n != -ENOENT)
		return n < 0 ? n : n / STEER_BANKS;
	n = possible_span();
	if (n < 0)
		return n;
	return n < STEER_CPU_IDS ? n : STEER_CPU_IDS;
}

int prog_set_span(struct xdp_steer_bpf *skel, __u32 span,
		  __u32 cpumap_entries)
{
	__u32 targets = STEER_BANKS * span;
	int err;

	err = bpf_map__set_max_entries(skel->maps.cpu_map, cpumap_entries);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.cpu_map_b,
					       cpumap_entries);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_wdone, targets);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_wenq, targets);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_seq,
					       STEER_RX_SLOTS * targets);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_deq,
					       targets * STEER_RX_SLOTS);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.steer_weights,
					       STEER_SLOTS * span);
	if (!err)
		skel->rodata->steer_span = span;
	return err;
}

/* max_entries of the map 'name' pinned in 'dir' (its staged one first,
 * migrate.h), or -ENOENT. */
static int pinned_entries(const char *dir, const char *name)
{
	struct bpf_map_info info;
	char path[PATH_MAX + 64];
	int err;

	snprintf(path, sizeof(path), "%s/%s" MIGRATE_STAGED, dir, name);
	err = maps_pinned_info(path, &info);
	if (err) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		err = maps_pinned_info(path, &info);
	}
	return err ? err : (int)info.max_entries;
}

/* attach --rx-slots (0: none): for the maps an attach makes. */
static __u32 wanted_rx_slots;

void prog_want_rx_slots(__u32 n)
{
	wanted_rx_slots = n <= STEER_RX_SLOTS ? n : 0;
}

int prog_rx_slots(const char *pin_dir)
{
	const char *knob = getenv("XDP_STEER_RX_SLOTS"), *ifname;
	unsigned long k;
	char *end;
	int n;

	n = pin_dir ? pinned_entries(pin_dir, STEER_STR(steer_buckets)) :
		      -ENOENT;
	if (n != -ENOENT)
		return n < 0 ? n : n / STEER_TABLE_MAX;
	if (wanted_rx_slots)
		return (int)wanted_rx_slots;
	if (knob && *knob) {
		k = strtoul(knob, &end, 10);
		/* Out of range: the first apply refuses it, saying so. */
		if (!*end && k && k <= STEER_RX_SLOTS)
			return (int)k;
	}
	ifname = pin_dir ? strrchr(pin_dir, '/') : NULL;
	return prog_rx_slots_for(ifname ? ifname + 1 : NULL);
}

int prog_slot_rows(const char *pin_dir)
{
	int n;

	n = pin_dir ? pinned_entries(pin_dir, STEER_STR(steer_rx_cpu)) :
		      -ENOENT;
	if (n != -ENOENT)
		return n;
	return prog_rx_slots(pin_dir);
}

int prog_rx_slots_for(const char *ifname)
{
	const struct possible_cpus *pc = possible_cpus();
	int n, ch;

	if (!pc)
		return -errno;
	ch = ifname ? netdev_rx_channels(ifname) : -ENOENT;
	/* A driver that does not say: one channel, as veth of old. */
	n = 2 * (ch > 0 ? ch : 1);
	n = n > 16 ? n : 16;
	n = n < pc->count ? n : pc->count;
	return n < STEER_RX_SLOTS ? n : STEER_RX_SLOTS;
}
