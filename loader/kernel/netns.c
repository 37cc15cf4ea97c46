// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Network namespaces: which one state belongs to, and whether it still
 * lives: see netns.h. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kernel/netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE	71
#endif

/* The fixed inode of the initial network namespace since Linux 6.x
 * (PROC_NET_INIT_INO); earlier kernels number it like any other. Its
 * cookie is no landmark: 1 on some kernels, 3 on 6.18. */
#define NET_INIT_INO	0xEFFFFFF9ull

static int ns_stat(const char *path, struct stat *st)
{
	return stat(path, st) ? -errno : 0;
}

/* 1 when /proc/2 is kthreadd, which lives in the initial namespaces. */
static int pid2_is_kthreadd(void)
{
	char comm[32] = "";
	FILE *f = fopen("/proc/2/comm", "re");

	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strcmp(comm, "kthreadd\n");
}

/* 1 when kthreadd's network namespace, the initial one, lists this
 * thread's socket 'fd' (an AF_UNIX one) in its /proc/2/net/unix, 0 when
 * it does not, negative errno when that cannot be read. The way when
 * /proc/2/ns/net cannot be: reading another process's namespace links
 * takes ptrace access, which a process holding fewer capabilities than
 * kthreadd lacks (a systemd unit with CapabilityBoundingSet=), where
 * /proc/PID/net asks for none. */
static int unix_listed_by_kthreadd(int fd)
{
	char line[512], want[32];
	struct stat st;
	int found = 0;
	FILE *f;

	if (fstat(fd, &st))
		return -errno;
	f = fopen("/proc/2/net/unix", "re");
	if (!f)
		return -errno;
	/* Num RefCount Protocol Flags Type St Inode [Path]: the inode is
	 * the 7th field. */
	snprintf(want, sizeof(want), "%llu", (unsigned long long)st.st_ino);
	while (!found && fgets(line, sizeof(line), f)) {
		char *tok, *save = NULL;
		int i = 0;

		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save))
			if (++i == 7) {
				found = !strcmp(tok, want);
				break;
			}
	}
	fclose(f);
	return found;
}

/* Whether this thread is in kthreadd's network namespace, by its socket
 * in /proc/2/net/unix (unix_listed_by_kthreadd()). */
static int initial_by_unix(void)
{
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = unix_listed_by_kthreadd(fd);
	close(fd);
	return ret;
}

/* The cookie of the namespace this thread is in. */
static int cookie_here(__u64 *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd, err = 0;

	/* Any socket will do; AF_UNIX exists in every namespace. */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		err = -errno;
	close(fd);
	return err;
}

int netns_self(struct steer_netns *ns, struct why *why)
{
	struct stat self, init;
	int err;

	memset(ns, 0, sizeof(*ns));
	err = ns_stat("/proc/self/ns/net", &self);
	if (err) {
		why_set(why, "cannot tell which network namespace this is (/proc/self/ns/net: %s)",
			strerror(-err));
		return err;
	}
	ns->ino = self.st_ino;
	err = cookie_here(&ns->cookie);
	if (err == -ENOPROTOOPT) {
		why_set(why, "this kernel does not tell a network namespace's cookie (SO_NETNS_COOKIE, Linux 5.14 and later), which xdp-steer needs to keep namespaces apart");
		return -EOPNOTSUPP;
	}
	if (err) {
		why_set(why, "cannot read this network namespace's cookie (SO_NETNS_COOKIE): %s",
			strerror(-err));
		return err;
	}
	/* Two living namespaces never share an inode: comparing inodes is
	 * sound here, both ends being alive. */
	if (pid2_is_kthreadd() && !ns_stat("/proc/2/ns/net", &init))
		ns->initial = self.st_ino == init.st_ino;
	else if (pid2_is_kthreadd() && (err = initial_by_unix()) >= 0)
		ns->initial = err;
	else if (!ns_stat("/proc/1/ns/net", &init))
		ns->initial = self.st_ino == init.st_ino;
	else
		ns->initial = self.st_ino == NET_INIT_INO;
	return 0;
}

int netns_cookie_of(int nsfd, __u64 *cookie)
{
	__u64 got = 0;
	int p[2], status, err = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (!pid) {
		/* The child: enters, asks, says, leaves. */
		close(p[0]);
		if (setns(nsfd, CLONE_NEWNET) || cookie_here(&got))
			_exit(1);
		_exit(write(p[1], &got, sizeof(got)) == sizeof(got) ? 0 : 1);
	}
	close(p[1]);
	do
		n = read(p[0], &got, sizeof(got));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != sizeof(got))
		return -ESRCH;
	*cookie = got;
	return 0;
}

int netns_dir_name(const struct steer_netns *ns, char *buf, size_t len)
{
	int n;

	if (ns->cookie)
		n = snprintf(buf, len, NETNS_DIR_PREFIX "%llu-%llu",
			     (unsigned long long)ns->ino,
			     (unsigned long long)ns->cookie);
	else
		n = snprintf(buf, len, NETNS_DIR_PREFIX "%llu",
			     (unsigned long long)ns->ino);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A decimal number without sign, leading zero or overflow at *p; moves
 * *p past it. */
static int parse_u64(const char **p, __u64 *v)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)**p) ||
	    (**p == '0' && isdigit((unsigned char)(*p)[1])))
		return -EINVAL;
	errno = 0;
	x = strtoull(*p, &end, 10);
	if (errno)
		return -EINVAL;
	*v = x;
	*p = end;
	return 0;
}

int netns_dir_parse(const char *name, struct steer_netns *ns)
{
	const char *p = name + strlen(NETNS_DIR_PREFIX);

	memset(ns, 0, sizeof(*ns));
	/* A name an interface could have is an interface's directory in
	 * the initial namespace's ("netns-12" may be an interface). */
	if (strlen(name) <= IF_NAMESIZE_MAX ||
	    strncmp(name, NETNS_DIR_PREFIX, strlen(NETNS_DIR_PREFIX)) ||
	    parse_u64(&p, &ns->ino))
		return 0;
	if (!*p)
		return 1;
	if (*p++ != '-' || parse_u64(&p, &ns->cookie) || *p || !ns->cookie)
		return 0;
	return 1;
}

int netns_lock_name(const struct steer_netns *ns, const char *ifname,
		    char *buf, size_t len)
{
	int n;

	if (ns->cookie)
		n = snprintf(buf, len, "%llu-%llu:%s.lock",
			     (unsigned long long)ns->ino,
			     (unsigned long long)ns->cookie, ifname);
	else
		n = snprintf(buf, len, "%llu-%s.lock",
			     (unsigned long long)ns->ino, ifname);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int netns_lock_parse(const char *name, struct steer_netns *ns, char *ifname,
		     size_t len)
{
	const char *p = name, *colon = strchr(name, ':');
	size_t n = strlen(name), suffix = strlen(".lock");
	const char *ifn;

	memset(ns, 0, sizeof(*ns));
	if (n <= suffix || strcmp(name + n - suffix, ".lock") ||
	    parse_u64(&p, &ns->ino) || *p++ != '-')
		return 0;
	if (colon) {
		if (parse_u64(&p, &ns->cookie) || p != colon || !ns->cookie)
			return 0;
		ifn = colon + 1;
	} else {
		ifn = p;
	}
	n = name + n - suffix - ifn;
	if (!n || n > IF_NAMESIZE_MAX || n >= len || memchr(ifn, '/', n))
		return 0;
	memcpy(ifname, ifn, n);
	ifname[n] = 0;
	return 1;
}

/* ---- liveness ------------------------------------------------------------ */

struct probe_run {
	struct netns_probe *v;
	bool *done;		/* v[i] answered */
	size_t n, left;		/* asked, not yet answered */
	dev_t nsfs;		/* nsfs' device: a plain file is no namespace */
};

static void answer(struct probe_run *r, size_t i, bool alive)
{
	r->v[i].alive = alive;
	r->done[i] = true;
	r->left--;
}

/* 'path' names a namespace: answers every open question about its inode.
 * Inodes are unique among the living, so once the living namespace at an
 * inode is known, every other cookie asked at that inode is gone. */
static void probe_path(struct probe_run *r, const char *path)
{
	bool need_cookie = false;
	__u64 cookie = 0;
	struct stat st;
	size_t i;
	int fd, err;

	if (stat(path, &st) || st.st_dev != r->nsfs)
		return;
	for (i = 0; i < r->n; i++) {
		if (r->done[i] || r->v[i].ino != st.st_ino)
			continue;
		if (r->v[i].cookie)
			need_cookie = true;
		else
			answer(r, i, true);
	}
	if (!need_cookie)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* The process may have exited since the stat, its namespace with
	 * it: what is open now is what counts, and it lives while open. */
	err = fstat(fd, &st) || st.st_dev != r->nsfs ||
	      netns_cookie_of(fd, &cookie);
	close(fd);
	if (err)
		return;
	for (i = 0; i < r->n; i++)
		if (!r->done[i] && r->v[i].ino == st.st_ino && r->v[i].cookie)
			answer(r, i, r->v[i].cookie == cookie);
}

/* Unescapes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
}

/* Network namespaces mounted anywhere this mount namespace sees (ip netns
 * bind-mounts in /run/netns, container runtimes elsewhere). */
static void probe_mounts(struct probe_run *r)
{
	char line[4096], root[256], point[PATH_MAX], *sep;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return;
	while (r->left && fgets(line, sizeof(line), f)) {
		/* "36 35 0:4 net:[4026532177] /run/netns/a rw ... - nsfs ..." */
		sep = strstr(line, " - nsfs ");
		if (!sep || sscanf(line, "%*s %*s %*s %255s %4095s", root, point) != 2 ||
		    strncmp(root, "net:[", 5))
			continue;
		unescape(point);
		probe_path(r, point);
	}
	fclose(f);
}

static void probe_dir(struct probe_run *r, const char *dir, bool procs)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while (r->left && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (procs && !isdigit((unsigned char)de->d_name[0])))
			continue;
		snprintf(path, sizeof(path), procs ? "%s/%s/ns/net" : "%s/%s",
			 dir, de->d_name);
		probe_path(r, path);
	}
	closedir(d);
}

int netns_probe(struct netns_probe *v, size_t n)
{
	struct probe_run r = { v, NULL, n, n, 0 };
	struct stat st;
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		v[i].alive = false;
	if (!n)
		return 0;
	err = ns_stat("/proc/self/ns/net", &st);
	if (err)
		return err;
	r.nsfs = st.st_dev;
	r.done = calloc(n, sizeof(*r.done));
	if (!r.done)
		return -ENOMEM;
	/* Cheapest first: a few mounts, then every process. */
	probe_dir(&r, "/run/netns", false);
	if (r.left)
		probe_mounts(&r);
	if (r.left)
		probe_dir(&r, "/proc", true);
	free(r.done);
	return 0;
}
