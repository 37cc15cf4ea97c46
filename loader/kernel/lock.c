// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
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
static int open_lock_dir(char *why, size_t len)
{
	struct stat st;
	int fd;

	if (mkdir(LOCK_DIR, 0700) && errno != EEXIST) {
		int err = -errno;

		snprintf(why, len, "cannot create %s: %s%s", LOCK_DIR,
			 strerror(-err), err == -EACCES ? " (xdp-steer needs root)" : "");
		return err;
	}
	fd = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		snprintf(why, len, "cannot open %s: %s%s", LOCK_DIR, strerror(-err),
			 err == -ELOOP ? " (a symbolic link: remove it)" : "");
		return err;
	}
	if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 022)) {
		close(fd);
		snprintf(why, len, "%s is not root's own directory: remove it and retry",
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

int lock_take(const struct steer_netns *ns, const char *ifname, bool exclusive,
	      void (*waiting)(void *arg), void *arg, char *why, size_t len)
{
	int op = exclusive ? LOCK_EX : LOCK_SH, dir, fd, err;
	char name[64];

	err = pins_ifname_check(ifname, why, len);
	if (err)
		return err;
	dir = open_lock_dir(why, len);
	if (dir < 0)
		return dir;
	snprintf(name, sizeof(name), "%llu-%s.lock",
		 (unsigned long long)ns->ino, ifname);
	fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dir);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "cannot open %s/%s: %s", LOCK_DIR, name,
			 strerror(-err));
		return err;
	}
	if (flock(fd, op | LOCK_NB)) {
		/* Polled, not blocked in flock(): a wait must end. */
		struct timespec pause = { 0, 10 * 1000 * 1000 };
		long waited_ms = 0, limit_ms = 1000L * wait_seconds();
		char comm[32];
		int pid;

		if (waiting)
			waiting(arg);
		while (flock(fd, op | LOCK_NB)) {
			if (errno == EINTR)
				continue;
			if (errno != EWOULDBLOCK) {
				err = -errno;
				close(fd);
				snprintf(why, len, "cannot lock %s/%s: %s",
					 LOCK_DIR, name, strerror(-err));
				return err;
			}
			if (waited_ms >= limit_ms) {
				pid = lock_holder(fd, comm, sizeof(comm));
				close(fd);
				if (pid)
					snprintf(why, len, "pid %d (%s) has held %s/%s for %ld s and more; a stopped or hung xdp-steer? ('kill -CONT %d' resumes a stopped one), then retry",
						 pid, comm[0] ? comm : "?", LOCK_DIR,
						 name, limit_ms / 1000, pid);
				else
					snprintf(why, len, "another process has held %s/%s for %ld s and more ('fuser %s/%s' names it); retry once it is done",
						 LOCK_DIR, name, limit_ms / 1000,
						 LOCK_DIR, name);
				return -ETIMEDOUT;
			}
			nanosleep(&pause, NULL);
			waited_ms += 10;
		}
	}
	return fd;
}

void lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
