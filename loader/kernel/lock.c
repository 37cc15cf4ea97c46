// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

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
		if (waiting)
			waiting(arg);
		while (flock(fd, op)) {
			if (errno == EINTR)
				continue;
			err = -errno;
			close(fd);
			snprintf(why, len, "cannot lock %s/%s: %s", LOCK_DIR,
				 name, strerror(-err));
			return err;
		}
	}
	return fd;
}

void lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
