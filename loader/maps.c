// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_steer.h"
#include "log.h"
#include "maps.h"

int maps_pin_dir(const char *ifname, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s", STEER_PIN_ROOT, ifname);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int open_one(const struct steer_maps *m, const char *name, int *fd)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", m->dir, name);
	*fd = bpf_obj_get(path);
	if (*fd < 0) {
		*fd = -1;
		return -errno;
	}
	return 0;
}

int maps_open(const char *ifname, struct steer_maps *m)
{
	const struct {
		const char *name;
		int *fd;
	} all[] = {
		{ STEER_STR(STEER_MAP_CPUMAP), &m->cpumap },
		{ STEER_STR(STEER_MAP_CTL), &m->ctl },
		{ STEER_STR(STEER_MAP_SLOTS), &m->slots },
		{ STEER_STR(STEER_MAP_TABLE), &m->table },
		{ STEER_STR(STEER_MAP_FLOW_RULES), &m->flow_rules },
		{ STEER_STR(STEER_MAP_SRC_PREFIX), &m->src_prefix },
		{ STEER_STR(STEER_MAP_DST_PREFIX), &m->dst_prefix },
		{ STEER_STR(STEER_MAP_RULE_CPUS), &m->rule_cpus },
		{ STEER_STR(STEER_MAP_STATS), &m->stats },
		{ STEER_STR(STEER_MAP_CPU_STATS), &m->cpu_stats },
		{ STEER_STR(STEER_MAP_WORKER_STATS), &m->worker_stats },
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		*all[i].fd = -1;
	err = maps_pin_dir(ifname, m->dir, sizeof(m->dir));
	if (err)
		return err;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		err = open_one(m, all[i].name, all[i].fd);
		if (err) {
			pr_debug("%s/%s: %s\n", m->dir, all[i].name,
				 strerror(-err));
			maps_close(m);
			return err;
		}
	}
	return 0;
}

void maps_close(struct steer_maps *m)
{
	int *fds[] = { &m->cpumap, &m->ctl, &m->slots, &m->table,
		       &m->flow_rules, &m->src_prefix, &m->dst_prefix,
		       &m->rule_cpus, &m->stats, &m->cpu_stats,
		       &m->worker_stats };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int maps_percpu_sum(int fd, __u32 key, size_t value_size, void *sum,
		    void *per_cpu)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t nfields = value_size / sizeof(__u64), c, f;
	__u64 *vals, *out = sum;

	if (ncpus < 0)
		return ncpus;
	/* The kernel rounds each CPU's value up to 8 bytes; ours are __u64s. */
	vals = calloc(ncpus, value_size);
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, vals)) {
		int err = -errno;

		free(vals);
		return err;
	}
	memset(sum, 0, value_size);
	for (c = 0; c < (size_t)ncpus; c++)
		for (f = 0; f < nfields; f++)
			out[f] += vals[c * nfields + f];
	if (per_cpu)
		memcpy(per_cpu, vals, ncpus * value_size);
	free(vals);
	return 0;
}

int maps_unpin_all(const char *ifname)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	int err = 0;
	DIR *d;

	err = maps_pin_dir(ifname, dir, sizeof(dir));
	if (err)
		return err;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && !err)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && !err)
		err = -errno;
	return err;
}
