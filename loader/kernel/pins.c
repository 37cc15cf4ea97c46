// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>

#include "xdp_steer.h"
#include "kernel/pins.h"

/* The fixed inode of the initial network namespace since Linux 6.x
 * (PROC_NET_INIT_INO); earlier kernels number it like any other. */
#define NET_INIT_INO	0xEFFFFFF9ull
#define NETNS_PREFIX	"netns-"

static int ns_ino(const char *path, __u64 *ino)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

/* 1 when /proc/2 is kthreadd, which lives in the initial namespaces. */
static int pid2_is_kthreadd(void)
{
	char comm[32] = "";
	FILE *f = fopen("/proc/2/comm", "r");

	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strcmp(comm, "kthreadd\n");
}

int pins_netns_self(struct steer_netns *ns)
{
	__u64 init;
	int err;

	err = ns_ino("/proc/self/ns/net", &ns->ino);
	if (err)
		return err;
	if (pid2_is_kthreadd() && !ns_ino("/proc/2/ns/net", &init))
		ns->initial = ns->ino == init;
	else if (!ns_ino("/proc/1/ns/net", &init))
		ns->initial = ns->ino == init;
	else
		ns->initial = ns->ino == NET_INIT_INO;
	return 0;
}

int pins_ifname_check(const char *ifname, char *why, size_t len)
{
	size_t n = ifname ? strnlen(ifname, IF_NAMESIZE_MAX + 1) : 0;
	const char *p;

	if (!n) {
		snprintf(why, len, "an empty interface name");
		return -EINVAL;
	}
	if (n > IF_NAMESIZE_MAX) {
		snprintf(why, len, "'%.20s...' is longer than an interface name can be (%d bytes)",
			 ifname, IF_NAMESIZE_MAX);
		return -EINVAL;
	}
	if (!strcmp(ifname, ".") || !strcmp(ifname, "..")) {
		snprintf(why, len, "'%s' is not an interface name", ifname);
		return -EINVAL;
	}
	for (p = ifname; *p; p++) {
		if (*p == '/' || *p == ':' || isspace((unsigned char)*p)) {
			snprintf(why, len, "'%s' is not an interface name (it has a '%c')",
				 ifname, isspace((unsigned char)*p) ? ' ' : *p);
			return -EINVAL;
		}
	}
	return 0;
}

/* ifname as a bpffs entry name: '.' is reserved there. */
static void encode_ifname(const char *ifname, char *out)
{
	for (; *ifname; ifname++)
		*out++ = *ifname == '.' ? ':' : *ifname;
	*out = 0;
}

static void decode_ifname(const char *name, char *out, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		out[i] = name[i] == ':' ? '.' : name[i];
	out[i] = 0;
}

static void netns_name(const struct steer_netns *ns, char *buf, size_t len)
{
	snprintf(buf, len, NETNS_PREFIX "%llu", (unsigned long long)ns->ino);
}

int pins_dir(const struct steer_netns *ns, const char *ifname, char *buf,
	     size_t len)
{
	char enc[IF_NAMESIZE_MAX + 1], nsname[32];
	int n;

	if (strlen(ifname) > IF_NAMESIZE_MAX)
		return -EINVAL;
	encode_ifname(ifname, enc);
	netns_name(ns, nsname, sizeof(nsname));
	if (ns->initial)
		n = snprintf(buf, len, "%s/%s", STEER_PIN_ROOT, enc);
	else
		n = snprintf(buf, len, "%s/%s/%s", STEER_PIN_ROOT, nsname, enc);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Opens directory 'name' in 'dirfd' without following a link and checks it
 * is root's and writable by root alone; makes it (0700) first if absent
 * and 'create'. Returns the fd or a negative errno, with 'why' said. */
static int open_safe_dir(int dirfd, const char *name, const char *shown,
			 bool create, char *why, size_t len)
{
	struct stat st;
	int fd, err;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dirfd, name, 0700) && errno != EEXIST) {
			err = -errno;
			snprintf(why, len, "cannot create %s: %s%s", shown,
				 strerror(-err), err == -EACCES || err == -EPERM ?
				 " (xdp-steer needs root)" : "");
			return err;
		}
		fd = openat(dirfd, name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		err = -errno;
		/* O_DIRECTORY answers ENOTDIR before O_NOFOLLOW says ELOOP:
		 * look at the entry itself to say which it is. */
		if ((err == -ELOOP || err == -ENOTDIR) &&
		    !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			err = -ELOOP;
		if (err == -ELOOP)
			snprintf(why, len, "%s is a symbolic link, not the directory xdp-steer made: someone planted it; remove it ('rm %s') and retry",
				 shown, shown);
		else if (err == -ENOTDIR)
			snprintf(why, len, "%s is not a directory; remove it and retry",
				 shown);
		else if (err == -ENOENT)
			snprintf(why, len, "%s does not exist", shown);
		else
			snprintf(why, len, "cannot open %s: %s%s", shown,
				 strerror(-err), err == -EACCES ?
				 " (xdp-steer needs root)" : "");
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		snprintf(why, len, "cannot stat %s: %s", shown, strerror(-err));
		return err;
	}
	if (st.st_uid != 0) {
		close(fd);
		snprintf(why, len, "%s belongs to uid %u, not root: someone else made it, and could plant links in it; check and remove it ('rm -r %s'), then retry",
			 shown, (unsigned)st.st_uid, shown);
		return -EPERM;
	}
	if (st.st_mode & 022) {
		close(fd);
		snprintf(why, len, "%s can be written by others (mode %03o): 'chmod 700 %s', then retry",
			 shown, (unsigned)(st.st_mode & 0777), shown);
		return -EPERM;
	}
	return fd;
}

/* bpffs mounted at PINS_BPFFS, root's, and sticky if others may write it;
 * returns an fd of it. */
static int open_bpffs(char *why, size_t len)
{
	struct statfs sfs;
	struct stat st;
	int fd, err;

	if (statfs(PINS_BPFFS, &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		/* A fresh machine may not have it mounted; libxdp needs it
		 * too, for its dispatcher pins. Only root may use ours. */
		if (mount("bpf", PINS_BPFFS, "bpf", 0, "mode=0700")) {
			err = -errno;
			snprintf(why, len, "%s is not a bpffs and mounting one failed: %s; try 'mount -t bpf -o mode=0700 bpf %s'",
				 PINS_BPFFS, strerror(-err), PINS_BPFFS);
			return err;
		}
	}
	fd = open(PINS_BPFFS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "cannot open %s: %s", PINS_BPFFS,
			 strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || st.st_uid != 0 ||
	    ((st.st_mode & 002) && !(st.st_mode & S_ISVTX))) {
		close(fd);
		snprintf(why, len, "%s is not root's, or others may rename entries in it (not sticky): remount it ('mount -t bpf -o mode=0700 bpf %s')",
			 PINS_BPFFS, PINS_BPFFS);
		return -EPERM;
	}
	return fd;
}

/* The checked chain of directories down to ifname's: fds of its parent and
 * of the directory itself (-1 when absent and !create). */
struct chain {
	int bpffs, root, ns, dir;
	char enc[IF_NAMESIZE_MAX + 1];
	char nsname[32];
};

static void chain_close(struct chain *c)
{
	int *fds[] = { &c->bpffs, &c->root, &c->ns, &c->dir };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* The fd of the directory holding ifname's directory. */
static int chain_parent(const struct chain *c)
{
	return c->ns >= 0 ? c->ns : c->root;
}

static int chain_open(const struct steer_netns *ns, const char *ifname,
		      bool create, struct chain *c, char *why, size_t len)
{
	char shown[PATH_MAX];
	int fd;

	c->bpffs = c->root = c->ns = c->dir = -1;
	fd = pins_ifname_check(ifname, why, len);
	if (fd)
		return fd;
	encode_ifname(ifname, c->enc);
	netns_name(ns, c->nsname, sizeof(c->nsname));
	fd = open_bpffs(why, len);
	if (fd < 0)
		goto fail;
	c->bpffs = fd;
	fd = open_safe_dir(c->bpffs, STEER_PIN_ROOT + sizeof(PINS_BPFFS),
			   STEER_PIN_ROOT, create, why, len);
	if (fd < 0)
		goto fail;
	c->root = fd;
	if (!ns->initial) {
		snprintf(shown, sizeof(shown), "%s/%s", STEER_PIN_ROOT, c->nsname);
		fd = open_safe_dir(c->root, c->nsname, shown, create, why, len);
		if (fd < 0)
			goto fail;
		c->ns = fd;
	}
	pins_dir(ns, ifname, shown, sizeof(shown));
	fd = open_safe_dir(chain_parent(c), c->enc, shown, create, why, len);
	if (fd < 0)
		goto fail;
	c->dir = fd;
	return 0;
fail:
	chain_close(c);
	return fd;
}

int pins_prepare(const struct steer_netns *ns, const char *ifname,
		 bool create, char *why, size_t len)
{
	struct chain c;
	int err;

	err = chain_open(ns, ifname, create, &c, why, len);
	if (!err)
		chain_close(&c);
	return err;
}

int pins_remove(const struct steer_netns *ns, const char *ifname, char *why,
		size_t len)
{
	struct dirent *de;
	struct chain c;
	char shown[PATH_MAX];
	int err, fd;
	DIR *d;

	err = chain_open(ns, ifname, false, &c, why, len);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	pins_dir(ns, ifname, shown, sizeof(shown));
	fd = dup(c.dir);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(why, len, "cannot list %s: %s", shown, strerror(-err));
		goto out;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* unlinkat never follows: a link planted here (it cannot be,
		 * the directory is root's) would go, not its target. */
		if (unlinkat(c.dir, de->d_name, 0) && errno != ENOENT && !err) {
			err = -errno;
			snprintf(why, len, "cannot remove %s/%s: %s", shown,
				 de->d_name, strerror(-err));
		}
	}
	closedir(d);
	if (err)
		goto out;
	if (unlinkat(chain_parent(&c), c.enc, AT_REMOVEDIR) && errno != ENOENT) {
		err = -errno;
		snprintf(why, len, "cannot remove %s: %s", shown, strerror(-err));
		goto out;
	}
	/* The namespace's directory goes with its last interface. */
	if (c.ns >= 0 && unlinkat(c.root, c.nsname, AT_REMOVEDIR) &&
	    errno != ENOTEMPTY && errno != ENOENT) {
		err = -errno;
		snprintf(why, len, "cannot remove %s/%s: %s", STEER_PIN_ROOT,
			 c.nsname, strerror(-err));
	}
out:
	chain_close(&c);
	return err;
}

int pins_used_by(const char *dir, __u32 *prog_id)
{
	struct bpf_map_info minfo = {};
	__u32 mlen = sizeof(minfo), id = 0, i, ids[64];
	char path[PATH_MAX + 32];
	int fd, pfd, err = 0;

	*prog_id = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, STEER_STR(steer_ctl));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (bpf_obj_get_info_by_fd(fd, &minfo, &mlen)) {
		err = -errno;
		goto out;
	}
	/* Only xdp_steer itself reads steer_ctl, whether it runs as an XDP
	 * program or as a dispatcher's extension. */
	for (;;) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_prog_get_next_id(id, &id)) {
			err = errno == ENOENT ? 0 : -errno;
			break;
		}
		pfd = bpf_prog_get_fd_by_id(id);
		if (pfd < 0)
			continue;	/* gone since */
		info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
		info.map_ids = (__u64)(unsigned long)ids;
		if (!bpf_obj_get_info_by_fd(pfd, &info, &len)) {
			for (i = 0; i < info.nr_map_ids && i < 64; i++)
				if (ids[i] == minfo.id)
					*prog_id = id;
		}
		close(pfd);
		if (*prog_id)
			break;
	}
out:
	close(fd);
	return err;
}

int pins_list(const struct steer_netns *ns,
	      int (*fn)(const char *ifname, void *arg), void *arg)
{
	char dir[PATH_MAX], nsname[32], ifname[IF_NAMESIZE_MAX + 1];
	struct dirent *de;
	int err = 0;
	DIR *d;

	netns_name(ns, nsname, sizeof(nsname));
	if (ns->initial)
		snprintf(dir, sizeof(dir), "%s", STEER_PIN_ROOT);
	else
		snprintf(dir, sizeof(dir), "%s/%s", STEER_PIN_ROOT, nsname);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR ||
		    !strncmp(de->d_name, NETNS_PREFIX, strlen(NETNS_PREFIX)))
			continue;
		decode_ifname(de->d_name, ifname, sizeof(ifname));
		err = fn(ifname, arg);
	}
	closedir(d);
	return err;
}

/* 1 when a process or a /run/netns entry holds namespace 'ino'. */
static int netns_exists(__u64 ino)
{
	const char *dirs[] = { "/proc", "/run/netns" };
	char path[PATH_MAX];
	struct dirent *de;
	size_t i;
	__u64 have = 0;
	DIR *d;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		d = opendir(dirs[i]);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (i == 0 && !isdigit((unsigned char)de->d_name[0]))
				continue;
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), i == 0 ? "%s/%s/ns/net" : "%s/%s",
				 dirs[i], de->d_name);
			if (!ns_ino(path, &have) && have == ino) {
				closedir(d);
				return 1;
			}
		}
		closedir(d);
	}
	return 0;
}

int pins_list_netns(const struct steer_netns *self,
		    int (*fn)(const struct steer_netns *ns, bool exists,
			      void *arg), void *arg)
{
	struct steer_netns ns = { 0 };
	unsigned long long ino;
	struct dirent *de;
	char *end;
	int err = 0;
	DIR *d;

	d = opendir(STEER_PIN_ROOT);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (de = readdir(d))) {
		if (strncmp(de->d_name, NETNS_PREFIX, strlen(NETNS_PREFIX)))
			continue;
		errno = 0;
		ino = strtoull(de->d_name + strlen(NETNS_PREFIX), &end, 10);
		if (errno || *end || ino == self->ino)
			continue;
		ns.ino = ino;
		err = fn(&ns, netns_exists(ino), arg);
	}
	closedir(d);
	return err;
}
