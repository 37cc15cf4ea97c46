// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The per-interface, per-namespace lock every operation takes: see lock.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "kernel/lock.h"

/* LOCK_DIR made (0700) if absent; refused unless it is root's own. */
static int open_lock_dir(struct why *why)
{
	struct stat st;
	int fd;

	if (mkdir(LOCK_DIR, 0700) && errno != EEXIST) {
		int err = -errno;

		why_set(why, "cannot create %s: %s%s", LOCK_DIR,
			strerror(-err), err == -EACCES ? " (xdp-steer needs root)" : "");
		return err;
	}
	fd = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		why_set(why, "cannot open %s: %s%s", LOCK_DIR, strerror(-err),
			err == -ELOOP ? " (a symbolic link: remove it)" : "");
		return err;
	}
	if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 022)) {
		close(fd);
		why_set(why, "%s is not root's own directory: remove it and retry",
			LOCK_DIR);
		return -EPERM;
	}
	return fd;
}

/* The pid holding a lock on the file open as 'fd', from /proc/locks
 * ("1: FLOCK  ADVISORY  WRITE 1234 00:1a:5678 0 EOF": the file as
 * major:minor:inode, the device numbers in hex), and its name; 0 if none
 * is found. A "->" line is a waiter, not a holder. */
static int lock_holder(int fd, char *comm, size_t len)
{
	char line[256], path[64], dev_ino[64];
	struct stat st;
	int pid = 0, n;
	FILE *f;

	comm[0] = '\0';
	if (fstat(fd, &st))
		return 0;
	snprintf(dev_ino, sizeof(dev_ino), " %02x:%02x:%llu ",
		 major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	while (!pid && fgets(line, sizeof(line), f))
		if (!strstr(line, "->") && strstr(line, dev_ino) &&
		    sscanf(line, "%*d: %*s %*s %*s %d", &n) == 1)
			pid = n;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = pid ? fopen(path, "re") : NULL;
	if (f) {
		if (fgets(comm, len, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	return pid;
}

static int wait_seconds(void)
{
	const char *env = getenv("XDP_STEER_LOCK_TIMEOUT");
	char *end;
	long s;

	if (!env || !*env)
		return LOCK_WAIT_S;
	s = strtol(env, &end, 10);
	return *end || s < 1 || s > 86400 ? LOCK_WAIT_S : (int)s;
}

/* 1 when 'name' in 'dir' is still the file open as 'fd'. */
static int still_named(int dir, const char *name, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) || fstatat(dir, name, &b, AT_SYMLINK_NOFOLLOW))
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The lock lock.h describes, in steps: the name checked, the lock
 * directory opened (root's own), then until the lock holds: the file
 * opened or made, flock() polled until the wait's end, and the lock
 * kept only if the name still gives this file. lock_remove() unlinks a
 * file under its lock, and a lock on an unlinked file keeps out nobody
 * who comes after. On every path only the returned fd stays open. */
int lock_take(const struct steer_netns *ns, const char *ifname, bool exclusive,
	      void (*waiting)(void *arg), void *arg, struct why *why)
{
	int op = exclusive ? LOCK_EX : LOCK_SH, dir, fd, err;
	/* Polled, not blocked in flock(): a wait must end. */
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	long waited_ms = 0, limit_ms = 1000L * wait_seconds();
	char name[NETNS_NAME_MAX], comm[32];
	bool said = false;
	int pid;

	err = pins_ifname_check(ifname, why);
	if (err)
		return err;
	if (netns_lock_name(ns, ifname, name, sizeof(name))) {
		why_set(why, "lock file name too long");
		return -ENAMETOOLONG;
	}
	dir = open_lock_dir(why);
	if (dir < 0)
		return dir;
	for (;;) {
		fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0) {
			err = -errno;
			why_set(why, "cannot open %s/%s: %s", LOCK_DIR,
				name, strerror(-err));
			goto out;
		}
		while (flock(fd, op | LOCK_NB)) {
			if (errno == EINTR)
				continue;
			if (errno != EWOULDBLOCK) {
				err = -errno;
				close(fd);
				why_set(why, "cannot lock %s/%s: %s",
					LOCK_DIR, name, strerror(-err));
				goto out;
			}
			if (waited_ms >= limit_ms) {
				pid = lock_holder(fd, comm, sizeof(comm));
				close(fd);
				if (pid)
					why_set(why, "pid %d (%s) has held %s/%s for %ld s and more; a stopped or hung xdp-steer? ('kill -CONT %d' resumes a stopped one), then retry",
						pid, comm[0] ? comm : "?", LOCK_DIR,
						name, limit_ms / 1000, pid);
				else
					why_set(why, "another process has held %s/%s for %ld s and more ('fuser %s/%s' names it); retry once it is done",
						LOCK_DIR, name, limit_ms / 1000,
						LOCK_DIR, name);
				err = -ETIMEDOUT;
				goto out;
			}
			if (waiting && !said)
				waiting(arg);
			said = true;
			nanosleep(&pause, NULL);
			waited_ms += 10;
		}
		/* The holder before us may have removed the file (lock_remove):
		 * a lock on a file no longer named keeps out nobody who comes
		 * after, so take the one the name gives now. */
		if (still_named(dir, name, fd))
			break;
		close(fd);
	}
	err = fd;
out:
	close(dir);
	return err;
}

void lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* Removes 'name' if the exclusive lock on 'fd' can be had at once and the
 * name is still that file's; closes fd. 1 removed, 0 left, or -errno. */
static int remove_locked(int dir, const char *name, int fd)
{
	int err = 0;

	/* Another holder (or a reader with its shared lock) keeps it. An
	 * exclusive lock held already is kept: flock() converts in place. */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return 0;
	}
	if (still_named(dir, name, fd))
		err = unlinkat(dir, name, 0) ? -errno : 1;
	/* Unlinked before the unlock: a waiter that gets the lock now sees
	 * the name gone and takes a new file, never this one with a third. */
	close(fd);
	return err == -ENOENT ? 0 : err;
}

int lock_remove(int fd, const struct steer_netns *ns, const char *ifname)
{
	char name[NETNS_NAME_MAX], why[256];
	int dir, err;

	if (fd < 0)
		return 0;
	if (netns_lock_name(ns, ifname, name, sizeof(name))) {
		close(fd);
		return -ENAMETOOLONG;
	}
	dir = open_lock_dir(&WHY(why));
	if (dir < 0) {
		close(fd);
		return dir;
	}
	err = remove_locked(dir, name, fd);
	close(dir);
	return err;
}

int lock_remove_idle(const struct steer_netns *ns, const char *ifname)
{
	char name[NETNS_NAME_MAX], why[256];
	int dir, fd, err;

	if (netns_lock_name(ns, ifname, name, sizeof(name)))
		return -ENAMETOOLONG;
	dir = open_lock_dir(&WHY(why));
	if (dir < 0)
		return dir;
	fd = openat(dir, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		err = errno == ENOENT ? 0 : -errno;
	else
		err = remove_locked(dir, name, fd);
	close(dir);
	return err;
}

int lock_list(int (*fn)(const struct steer_netns *ns, const char *ifname,
			void *arg), void *arg)
{
	char ifname[IF_NAMESIZE_MAX + 1];
	struct steer_netns ns;
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(LOCK_DIR);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (de = readdir(d)))
		if (netns_lock_parse(de->d_name, &ns, ifname, sizeof(ifname)))
			err = fn(&ns, ifname, arg);
	closedir(d);
	return err;
}
