// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where an interface's maps are pinned, and the checks on that place: see
 * pins.h. */
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
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "xdp_steer/names.h"
#include "xdp_steer/slot.h"
#include "kernel/pins.h"

int pins_ifname_check(const char *ifname, struct why *why)
{
	size_t n = ifname ? strnlen(ifname, IF_NAMESIZE_MAX + 1) : 0;
	const char *p;

	if (!n) {
		why_set(why, "an empty interface name");
		return -EINVAL;
	}
	if (n > IF_NAMESIZE_MAX) {
		why_set(why, "'%.20s...' is longer than an interface name can be (%d bytes)",
			ifname, IF_NAMESIZE_MAX);
		return -EINVAL;
	}
	if (!strcmp(ifname, ".") || !strcmp(ifname, "..")) {
		why_set(why, "'%s' is not an interface name", ifname);
		return -EINVAL;
	}
	for (p = ifname; *p; p++) {
		if (*p == '/' || *p == ':' || isspace((unsigned char)*p)) {
			why_set(why, "'%s' is not an interface name (it has a '%c')",
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

int pins_dir(const struct steer_netns *ns, const char *ifname, char *buf,
	     size_t len)
{
	char enc[IF_NAMESIZE_MAX + 1], nsname[NETNS_NAME_MAX];
	int n;

	if (strlen(ifname) > IF_NAMESIZE_MAX)
		return -EINVAL;
	encode_ifname(ifname, enc);
	if (netns_dir_name(ns, nsname, sizeof(nsname)))
		return -ENAMETOOLONG;
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
			 bool create, struct why *why)
{
	struct stat st;
	int fd, err;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dirfd, name, 0700) && errno != EEXIST) {
			err = -errno;
			why_set(why, "cannot create %s: %s%s", shown,
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
			why_set(why, "%s is a symbolic link, not the directory xdp-steer made: someone planted it; remove it ('rm %s') and retry",
				shown, shown);
		else if (err == -ENOTDIR)
			why_set(why, "%s is not a directory; remove it and retry",
				shown);
		else if (err == -ENOENT)
			why_set(why, "%s does not exist", shown);
		else
			why_set(why, "cannot open %s: %s%s", shown,
				strerror(-err), err == -EACCES ?
				" (xdp-steer needs root)" : "");
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		why_set(why, "cannot stat %s: %s", shown, strerror(-err));
		return err;
	}
	if (st.st_uid != 0) {
		close(fd);
		why_set(why, "%s belongs to uid %u, not root: someone else made it, and could plant links in it; check and remove it ('rm -r %s'), then retry",
			shown, (unsigned)st.st_uid, shown);
		return -EPERM;
	}
	if (st.st_mode & 022) {
		close(fd);
		why_set(why, "%s can be written by others (mode %03o): 'chmod 700 %s', then retry",
			shown, (unsigned)(st.st_mode & 0777), shown);
		return -EPERM;
	}
	return fd;
}

/* bpffs mounted at PINS_BPFFS (bpffs_reach()), root's, and sticky if
 * others may write it; returns an fd of it. */
static int open_bpffs(struct why *why)
{
	struct stat st;
	int fd, err;

	err = bpffs_reach(why);
	if (err)
		return err;
	fd = open(PINS_BPFFS, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		why_set(why, "cannot open %s: %s", PINS_BPFFS,
			strerror(-err));
		return err;
	}
	if (fstat(fd, &st) || st.st_uid != 0 ||
	    ((st.st_mode & 002) && !(st.st_mode & S_ISVTX))) {
		close(fd);
		why_set(why, "%s is not root's, or others may rename entries in it (not sticky): remount it ('mount -t bpf -o mode=0700 bpf %s')",
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
	char nsname[NETNS_NAME_MAX];
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
		      bool create, struct chain *c, struct why *why)
{
	char shown[PATH_MAX];
	int fd;

	c->bpffs = c->root = c->ns = c->dir = -1;
	fd = pins_ifname_check(ifname, why);
	if (fd)
		return fd;
	encode_ifname(ifname, c->enc);
	if (netns_dir_name(ns, c->nsname, sizeof(c->nsname))) {
		why_set(why, "%s: pin path too long", ifname);
		return -ENAMETOOLONG;
	}
	fd = open_bpffs(why);
	if (fd < 0)
		goto fail;
	c->bpffs = fd;
	fd = open_safe_dir(c->bpffs, STEER_PIN_ROOT + sizeof(PINS_BPFFS),
			   STEER_PIN_ROOT, create, why);
	if (fd < 0)
		goto fail;
	c->root = fd;
	if (!ns->initial) {
		snprintf(shown, sizeof(shown), "%s/%s", STEER_PIN_ROOT, c->nsname);
		fd = open_safe_dir(c->root, c->nsname, shown, create, why);
		if (fd < 0)
			goto fail;
		c->ns = fd;
	}
	pins_dir(ns, ifname, shown, sizeof(shown));
	fd = open_safe_dir(chain_parent(c), c->enc, shown, create, why);
	if (fd < 0)
		goto fail;
	c->dir = fd;
	return 0;
fail:
	chain_close(c);
	return fd;
}

int pins_prepare(const struct steer_netns *ns, const char *ifname,
		 bool create, struct why *why)
{
	struct chain c;
	int err;

	err = chain_open(ns, ifname, create, &c, why);
	if (!err)
		chain_close(&c);
	return err;
}

int pins_remove(const struct steer_netns *ns, const char *ifname,
		struct why *why)
{
	struct dirent *de;
	struct chain c;
	char shown[PATH_MAX];
	int err, fd;
	DIR *d;

	err = chain_open(ns, ifname, false, &c, why);
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
		why_set(why, "cannot list %s: %s", shown, strerror(-err));
		goto out;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/* unlinkat never follows: a link planted here (it cannot be,
		 * the directory is root's) would go, not its target. */
		if (unlinkat(c.dir, de->d_name, 0) && errno != ENOENT && !err) {
			err = -errno;
			why_set(why, "cannot remove %s/%s: %s", shown,
				de->d_name, strerror(-err));
		}
	}
	closedir(d);
	if (err)
		goto out;
	if (unlinkat(chain_parent(&c), c.enc, AT_REMOVEDIR) && errno != ENOENT) {
		err = -errno;
		why_set(why, "cannot remove %s: %s", shown, strerror(-err));
		goto out;
	}
	/* The namespace's directory goes with its last interface. */
	if (c.ns >= 0 && unlinkat(c.root, c.nsname, AT_REMOVEDIR) &&
	    errno != ENOTEMPTY && errno != ENOENT) {
		err = -errno;
		why_set(why, "cannot remove %s/%s: %s", STEER_PIN_ROOT,
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
	char dir[PATH_MAX], nsname[NETNS_NAME_MAX], ifname[IF_NAMESIZE_MAX + 1];
	struct dirent *de;
	int err = 0;
	DIR *d;

	if (netns_dir_name(ns, nsname, sizeof(nsname)))
		return -ENAMETOOLONG;
	if (ns->initial)
		snprintf(dir, sizeof(dir), "%s", STEER_PIN_ROOT);
	else
		snprintf(dir, sizeof(dir), "%s/%s", STEER_PIN_ROOT, nsname);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (de = readdir(d))) {
		struct steer_netns other;

		if (de->d_name[0] == '.' || de->d_type != DT_DIR ||
		    netns_dir_parse(de->d_name, &other))
			continue;
		decode_ifname(de->d_name, ifname, sizeof(ifname));
		err = fn(ifname, arg);
	}
	closedir(d);
	return err;
}

int pins_list_netns(const struct steer_netns *self,
		    int (*fn)(const struct steer_netns *ns, bool exists,
			      void *arg), void *arg)
{
	struct netns_probe *v = NULL, *nv;
	struct steer_netns ns;
	struct dirent *de;
	size_t n = 0, i;
	int err = 0;
	DIR *d;

	d = opendir(STEER_PIN_ROOT);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!netns_dir_parse(de->d_name, &ns) ||
		    (ns.ino == self->ino && ns.cookie == self->cookie))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			err = -ENOMEM;
			break;
		}
		v = nv;
		v[n].ino = ns.ino;
		v[n].cookie = ns.cookie;
		n++;
	}
	closedir(d);
	/* Asked all at once: one pass over /proc, however many there are. */
	if (!err)
		err = netns_probe(v, n);
	for (i = 0; !err && i < n; i++) {
		ns.ino = v[i].ino;
		ns.cookie = v[i].cookie;
		ns.initial = false;
		err = fn(&ns, v[i].alive, arg);
	}
	free(v);
	return err;
}

int pins_adopt(const struct steer_netns *self, const char *ifname,
	       struct why *why)
{
	struct steer_netns old = { .ino = self->ino };
	char from[PATH_MAX], to[PATH_MAX], name[NETNS_NAME_MAX],
	     shown[PATH_MAX];
	struct chain c;
	int fd, err;

	if (self->initial || !self->cookie)
		return -EINVAL;
	err = chain_open(&old, ifname, false, &c, why);
	if (err)
		return err;
	pins_dir(&old, ifname, from, sizeof(from));
	pins_dir(self, ifname, to, sizeof(to));
	netns_dir_name(self, name, sizeof(name));
	snprintf(shown, sizeof(shown), "%s/%s", STEER_PIN_ROOT, name);
	fd = open_safe_dir(c.root, name, shown, true, why);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	/* One rename moves every pin, links included, and never replaces
	 * pins this namespace made since. */
	if (renameat2(c.ns, c.enc, fd, c.enc, RENAME_NOREPLACE)) {
		err = -errno;
		if (err == -EEXIST || err == -ENOTEMPTY)
			why_set(why, "cannot move %s to %s: it exists already; 'xdp-steer detach --stale' removes the old pins once no program uses them",
				from, to);
		else
			why_set(why, "cannot move %s to %s: %s", from, to,
				strerror(-err));
	}
	close(fd);
	/* The inode's directory goes with its last interface. */
	if (!err && unlinkat(c.root, c.nsname, AT_REMOVEDIR) &&
	    errno != ENOTEMPTY && errno != ENOENT) {
		err = -errno;
		why_set(why, "cannot remove %s/%s: %s", STEER_PIN_ROOT,
			c.nsname, strerror(-err));
	}
out:
	chain_close(&c);
	return err;
}
