// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Closing the program fds libxdp 1.3.1 leaks: see leak.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/leak.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The fds open now, ascending, in *fds (malloc'd); -1 when unreadable. */
static int open_fds(int **fds, size_t *n)
{
	size_t cap = 0;
	struct dirent *de;
	DIR *d;
	int *v;

	*fds = NULL;
	*n = 0;
	d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || fd == dirfd(d))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(*fds, cap * sizeof(*v));
			if (!v) {
				free(*fds);
				*fds = NULL;
				closedir(d);
				return -1;
			}
			*fds = v;
		}
		(*fds)[(*n)++] = (int)fd;
	}
	closedir(d);
	qsort(*fds, *n, sizeof(**fds), cmp_int);
	return 0;
}

static int is_prog_fd(int fd)
{
	char path[64], target[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return 0;
	target[len] = 0;
	return !strcmp(target, "anon_inode:bpf-prog");
}

void leak_guard_begin(struct leak_guard *g)
{
	g->ok = !open_fds(&g->fds, &g->n);
}

int leak_guard_end(struct leak_guard *g)
{
	int *now = NULL, closed = 0;
	size_t n = 0, i;

	if (g->ok && !open_fds(&now, &n)) {
		for (i = 0; i < n; i++) {
			if (bsearch(&now[i], g->fds, g->n, sizeof(int), cmp_int))
				continue;
			if (is_prog_fd(now[i]) && !close(now[i]))
				closed++;
		}
	}
	free(now);
	free(g->fds);
	g->fds = NULL;
	g->n = 0;
	g->ok = 0;
	return closed;
}
