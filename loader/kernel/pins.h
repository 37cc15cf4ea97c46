/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pins.h - where an interface's maps are pinned, and the checks that keep
 * anyone but root from steering root's hand there.
 *
 * Layout (bpffs names may not contain '.', so a '.' of an interface name,
 * as in the VLAN device "eth0.100", is written ':', which no interface
 * name can contain):
 *   STEER_PIN_ROOT/<ifname>/                initial network namespace
 *   STEER_PIN_ROOT/netns-<inode>/<ifname>/  any other namespace, by the
 *                                           inode of /proc/PID/ns/net
 * "netns-" and an inode (ten digits, the kernel numbers namespaces from
 * 0xEFFFFFF9 on) make 16 characters, one more than an interface name may
 * have, so the two kinds of entry never meet.
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

#define PINS_BPFFS	"/sys/fs/bpf"
/* Longest interface name (IFNAMSIZ - 1). */
#define IF_NAMESIZE_MAX	15

/* The network namespace state is kept per. */
struct steer_netns {
	__u64 ino;		/* inode of its nsfs file */
	bool initial;		/* the initial namespace */
};

/* The namespace this process runs in. The initial one is that of PID 2
 * (kthreadd) or, where that cannot be read, PID 1, or on kernels that fix
 * its inode (6.x), that inode. */
int pins_netns_self(struct steer_netns *ns);

/* 0 when 'ifname' can name an interface (1-15 bytes; no '/', ':' or
 * white space; not "." or ".."), else -EINVAL with the reason. Checked
 * before an interface name becomes part of a path. */
int pins_ifname_check(const char *ifname, char *why, size_t len);

/* The pin directory of 'ifname' in 'ns' (not checked, not created). */
int pins_dir(const struct steer_netns *ns, const char *ifname, char *buf,
	     size_t len);

/* Makes sure bpffs is mounted at PINS_BPFFS (mounting it 0700 if not) and
 * that STEER_PIN_ROOT, the namespace's directory and ifname's are safe
 * directories; creates the missing ones (0700) when 'create', else says
 * -ENOENT. */
int pins_prepare(const struct steer_netns *ns, const char *ifname,
		 bool create, char *why, size_t len);

/* Removes every pin of 'ifname' in 'ns' and its directory (and the
 * namespace's directory once empty), through the checked directories,
 * never following a link. 0 when there was nothing to remove. */
int pins_remove(const struct steer_netns *ns, const char *ifname, char *why,
		size_t len);

/* The id of a loaded BPF program that uses the maps pinned in 'dir' (it
 * holds their steer_ctl), in *prog_id, or 0 when none does. Such maps are
 * live: unpinning them would leave that program steering by maps nobody
 * can reach. */
int pins_used_by(const char *dir, __u32 *prog_id);

/* Calls fn for each interface with a pin directory in 'ns' (names
 * decoded), in directory order; stops at fn's first non-zero return. */
int pins_list(const struct steer_netns *ns,
	      int (*fn)(const char *ifname, void *arg), void *arg);

/* Calls fn for each other namespace with pins, with whether any process
 * or /run/netns entry still holds that namespace. */
int pins_list_netns(const struct steer_netns *self,
		    int (*fn)(const struct steer_netns *ns, bool exists,
			      void *arg), void *arg);

#endif /* XDP_STEER_PINS_H */
