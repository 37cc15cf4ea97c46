/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * netns.h - which network namespace state belongs to, the names made from
 * it (pin directories, lock files), and whether a namespace still lives.
 *
 * A namespace is known by its cookie (SO_NETNS_COOKIE, Linux 5.14+): the
 * kernel numbers namespaces from one counter that only counts up, so no
 * two namespaces of a boot ever share a cookie. Not by the inode of its
 * nsfs file, which the kernel hands to the next namespace made as soon as
 * the old one is freed: pins keyed by inode were inherited by whoever came
 * next (issue 30). Pins and locks live in bpffs and /run, both emptied at
 * boot, so a cookie that is unique within a boot is unique for them.
 *
 * Names carry the inode too, for the living: a namespace is found from a
 * process or a mount by its inode (a stat), never by its cookie, which
 * only a socket made inside it tells. To ask whether the namespace of
 * (inode, cookie) lives, netns_probe() looks for a living namespace with
 * that inode (inodes are unique among the living) and only then enters it
 * once to read its cookie.
 *
 * Names (netns_dir_name(), netns_lock_name()):
 *   netns-<inode>-<cookie>        a namespace's pin directory
 *   <inode>-<cookie>:<ifname>.lock  an interface's lock file
 * An interface name cannot hold ':', so a lock name splits at its first
 * one. Those an earlier xdp-steer made, by inode alone ("netns-<inode>",
 * "<inode>-<ifname>.lock"), are read as cookie 0, which no namespace has
 * (the kernel's first cookie is 1).
 */
#ifndef XDP_STEER_NETNS_H
#define XDP_STEER_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "util/why.h"

/* Longest interface name (IFNAMSIZ - 1). */
#define IF_NAMESIZE_MAX	15

#define NETNS_DIR_PREFIX	"netns-"
/* Room for any name below: two 20-digit numbers, an interface name. */
#define NETNS_NAME_MAX	64

/* A network namespace, as state is kept per. */
struct steer_netns {
	__u64 ino;		/* inode of its nsfs file (reused) */
	__u64 cookie;		/* SO_NETNS_COOKIE (never reused); 0: a
				 * name of the inode layout, owner unknown */
	bool initial;		/* the initial namespace */
};

/* The namespace this process runs in. The initial one is that of PID 2
 * (kthreadd) or, where that cannot be read, PID 1, or on kernels that fix
 * its inode (6.x), that inode. -EOPNOTSUPP (said in 'why') on a kernel
 * without SO_NETNS_COOKIE. */
int netns_self(struct steer_netns *ns, struct why *why);

/* The cookie of the namespace open as 'nsfd' (an nsfs file), read by a
 * child that enters it: this process never leaves its own. */
int netns_cookie_of(int nsfd, __u64 *cookie);

/* "netns-<inode>-<cookie>" ("netns-<inode>" for cookie 0). */
int netns_dir_name(const struct steer_netns *ns, char *buf, size_t len);
/* 1 when 'name' is a namespace directory's name, with *ns filled (cookie
 * 0 for the inode layout's), else 0: also for any name of 15 bytes or
 * fewer, which is an interface's (every namespace's name is longer). */
int netns_dir_parse(const char *name, struct steer_netns *ns);

/* "<inode>-<cookie>:<ifname>.lock" ("<inode>-<ifname>.lock" for cookie
 * 0). */
int netns_lock_name(const struct steer_netns *ns, const char *ifname,
		    char *buf, size_t len);
/* 1 when 'name' is a lock file's name, with *ns and ifname filled, else
 * 0. */
int netns_lock_parse(const char *name, struct steer_netns *ns, char *ifname,
		     size_t len);

/* One question to netns_probe(). */
struct netns_probe {
	__u64 ino;
	__u64 cookie;		/* 0: any namespace with that inode */
	bool alive;		/* the answer */
};

/* Whether each namespace lives: some process is in it (/proc/PID/ns/net,
 * its main thread's), or it is mounted (/run/netns/NAME, or any nsfs
 * mount in /proc/self/mountinfo). One pass over /proc however many are
 * asked, and one child per inode found in use (its cookie). A namespace
 * held only by an open file descriptor, or by a thread that is not its
 * process's main one, counts as gone: callers remove nothing a program
 * still uses, whatever this says. */
int netns_probe(struct netns_probe *v, size_t n);

#endif /* XDP_STEER_NETNS_H */
