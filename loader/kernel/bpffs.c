// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The bpffs that holds the pins, and the one that outlives the command.
 *
 * `ip netns exec NS cmd` runs cmd in a mount namespace of its own and
 * mounts a fresh sysfs on /sys there, which hides the host's bpffs. A
 * bpffs mounted in that namespace would vanish with the command, and
 * every pin with it, while the program stays attached. So when
 * PINS_BPFFS is not a bpffs and we run in another mount namespace than
 * the process that started us, we attach a copy of that namespace's
 * PINS_BPFFS mount over ours, in our namespace only: its pins, libxdp's
 * too, are then the ones `nsenter --net` and the host see.
 *
 * The kernel refuses a bind mount whose source is in another mount
 * namespace (EINVAL), so the copy is taken from inside it: setns() there,
 * open_tree(OPEN_TREE_CLONE), setns() back, move_mount() the detached
 * copy onto PINS_BPFFS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <linux/mount.h>

#include "kernel/pins.h"

static bool is_bpffs(const char *path)
{
	struct statfs sfs;

	return !statfs(path, &sfs) && sfs.f_type == BPF_FS_MAGIC;
}

/* The parent of 'pid' (from /proc/PID/stat), or 0. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	/* The name in parentheses may hold anything: read after its end. */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 1, " %*c %d", &ppid);
	fclose(f);
	return ppid;
}

static void comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	buf[0] = 0;
	f = fopen(path, "re");
	if (f) {
		if (fgets(buf, len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
	if (!buf[0])
		snprintf(buf, len, "?");
}

/* The nearest ancestor in another mount namespace than ours: the one
 * that ran `ip netns exec` (or unshare). 0 when every ancestor shares
 * ours, -1 when one does not and cannot be looked at. */
static pid_t outer_ancestor(void)
{
	struct stat self, st;
	char path[64];
	pid_t pid = getppid();
	int depth;

	if (stat("/proc/self/ns/mnt", &self))
		return 0;
	for (depth = 0; pid > 1 && depth < 64; depth++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
		if (stat(path, &st))
			return -1;
		if (st.st_ino != self.st_ino || st.st_dev != self.st_dev)
			return pid;
		pid = parent_of(pid);
	}
	return 0;
}

/* A detached copy of the PINS_BPFFS mount of pid's mount namespace, as
 * an fd for move_mount(); -errno when there is none. Back in our own
 * namespace, and cwd, on return; -ENOTRECOVERABLE if that failed. */
static int clone_outer_bpffs(pid_t pid)
{
	int outer, self, cwd, tree = -ENOENT;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	outer = open(path, O_RDONLY | O_CLOEXEC);
	self = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	/* setns() moves cwd to the namespace's root. */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (outer < 0 || self < 0 || cwd < 0) {
		tree = -errno;
		goto out;
	}
	if (setns(outer, CLONE_NEWNS)) {
		tree = -errno;
		goto out;
	}
	if (is_bpffs(PINS_BPFFS)) {
		tree = syscall(SYS_open_tree, AT_FDCWD, PINS_BPFFS,
			       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (tree < 0)
			tree = -errno;
	}
	if (setns(self, CLONE_NEWNS) || fchdir(cwd)) {
		if (tree >= 0)
			close(tree);
		tree = -ENOTRECOVERABLE;
	}
out:
	if (outer >= 0)
		close(outer);
	if (self >= 0)
		close(self);
	if (cwd >= 0)
		close(cwd);
	return tree;
}

int bpffs_reach(struct why *why)
{
	char comm[32];
	int tree, err;
	pid_t outer;

	if (is_bpffs(PINS_BPFFS))
		return 0;
	outer = outer_ancestor();
	if (!outer) {
		/* A fresh machine may not have it mounted; libxdp needs it
		 * too, for its dispatcher pins. Only root may use ours. */
		if (mount("bpf", PINS_BPFFS, "bpf", 0, "mode=0700")) {
			err = -errno;
			why_set(why, "%s is not a bpffs and mounting one failed: %s; try 'mount -t bpf -o mode=0700 bpf %s'",
				PINS_BPFFS, strerror(-err), PINS_BPFFS);
			return err;
		}
		return 0;
	}
	if (outer > 0) {
		comm_of(outer, comm, sizeof(comm));
		tree = clone_outer_bpffs(outer);
		if (tree >= 0) {
			err = syscall(SYS_move_mount, tree, "", AT_FDCWD,
				      PINS_BPFFS, MOVE_MOUNT_F_EMPTY_PATH) ?
				-errno : 0;
			close(tree);
			if (!err)
				return 0;
		} else {
			err = tree;
		}
		if (err != -ENOENT) {
			why_set(why, "%s is not a bpffs in this command's own mount namespace ('ip netns exec' makes one), and taking the one of pid %d (%s) into it failed: %s; run the command with 'nsenter --net=/run/netns/NS' instead",
				PINS_BPFFS, (int)outer, comm, strerror(-err));
			return err;
		}
	} else {
		why_set(why, "%s is not a bpffs in this command's own mount namespace ('ip netns exec' makes one), and the namespace it came from cannot be looked at, so pins made here could vanish when it exits: run the command with 'nsenter --net=/run/netns/NS' instead",
			PINS_BPFFS);
		return -ENOENT;
	}
	why_set(why, "%s is not a bpffs in this command's own mount namespace ('ip netns exec' makes one), and none is mounted where it came from (pid %d, %s), so pins made here would vanish when it exits: mount one there ('mount -t bpf -o mode=0700 bpf %s'), or run the command with 'nsenter --net=/run/netns/NS' instead",
		PINS_BPFFS, (int)outer, comm, PINS_BPFFS);
	return -ENOENT;
}
