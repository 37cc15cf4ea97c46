/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pins.h - where an interface's maps are pinned, and the checks that keep
 * anyone but root from steering root's hand there.
 *
 * Layout (bpffs names may not contain '.', so a '.' of an interface name,
 * as in the VLAN device "eth0.100", is written ':', which no interface
 * name can contain):
 *   STEER_PIN_ROOT/<ifname>/                         initial namespace
 *   STEER_PIN_ROOT/netns-<inode>-<cookie>/<ifname>/  any other, by its
 *                                                    cookie (netns.h)
 * "netns-", an inode (ten digits, the kernel numbers namespaces from
 * 0xEFFFFFF9 on), '-' and a cookie make 18 characters and more, longer
 * than an interface name may be, so the two kinds of entry never meet.
 * An earlier xdp-steer named a namespace's directory by its inode alone,
 * "netns-<inode>", which the next namespace inherits: pins_adopt() moves
 * such a directory's interface when it is provably this namespace's.
 *
 * Every directory on the way is opened with O_NOFOLLOW and must be a
 * directory owned by root that nobody else can write; bpffs' own root
 * (/sys/fs/bpf, 1777 when mounted with defaults) must be root's and sticky.
 * Functions return 0 or a negative errno, with a sentence in 'why' saying
 * what to do next.
 */
#ifndef XDP_STEER_PINS_H
#define XDP_STEER_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kernel/netns.h"
#include "util/why.h"

#define PINS_BPFFS	"/sys/fs/bpf"

/* Makes PINS_BPFFS a bpffs that outlives this command (kernel/bpffs.c):
 * as it is; mounted (0700) on a machine that has none; under `ip netns
 * exec`, the bpffs of the namespace the command came from, bound in its
 * own. Else -errno, with what to do in 'why'. Called before any pin path
 * is used, libxdp's included. */
int bpffs_reach(struct why *why);

/* 0 when 'ifname' can name an interface (1-15 bytes; no '/', ':' or
 * white space; not "." or ".."), else -EINVAL with the reason. Checked
 * before an interface name becomes part of a path. */
int pins_ifname_check(const char *ifname, struct why *why);

/* The pin directory of 'ifname' in 'ns' (not checked, not created); for
 * cookie 0, the inode layout's. */
int pins_dir(const struct steer_netns *ns, const char *ifname, char *buf,
	     size_t len);

/* Makes sure bpffs is mounted at PINS_BPFFS (mounting it 0700 if not) and
 * that STEER_PIN_ROOT, the namespace's directory and ifname's are safe
 * directories; creates the missing ones (0700) when 'create', else says
 * -ENOENT. */
int pins_prepare(const struct steer_netns *ns, const char *ifname,
		 bool create, struct why *why);

/* Removes every pin of 'ifname' in 'ns' and its directory (and the
 * namespace's directory once empty), through the checked directories,
 * never following a link. 0 when there was nothing to remove. */
int pins_remove(const struct steer_netns *ns, const char *ifname,
		struct why *why);

/* The id of a loaded BPF program that uses the maps pinned in 'dir' (it
 * holds their steer_ctl), in *prog_id, or 0 when none does. Such maps are
 * live: unpinning them would leave that program steering by maps nobody
 * can reach. */
int pins_used_by(const char *dir, __u32 *prog_id);

/* Calls fn for each interface with a pin directory in 'ns' (names
 * decoded), in directory order; stops at fn's first non-zero return. */
int pins_list(const struct steer_netns *ns,
	      int (*fn)(const char *ifname, void *arg), void *arg);

/* Calls fn for each other namespace with a pin directory, with whether
 * it lives (netns_probe()); cookie 0 for a directory of the inode layout,
 * and 'exists' then says only that some namespace has that inode. */
int pins_list_netns(const struct steer_netns *self,
		    int (*fn)(const struct steer_netns *ns, bool exists,
			      void *arg), void *arg);

/* Moves the pins of 'ifname' from the inode layout's directory of
 * self's inode (STEER_PIN_ROOT/netns-<inode>/) into self's, in one
 * rename, and removes the inode's directory once empty. The caller has
 * proved them self's (the program on the interface uses them): the inode
 * alone does not. -ENOENT when there are none, -EEXIST when self has pins
 * of that name already (both stay). */
int pins_adopt(const struct steer_netns *self, const char *ifname,
	       struct why *why);

#endif /* XDP_STEER_PINS_H */
