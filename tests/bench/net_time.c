// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * net_time - receive processing time per CPU for the end-to-end benchmarks
 * (net_time.bpf.c says what is counted). Attaches, then reads commands on
 * stdin, one a line, until end of input:
 *
 *   maps ID...   count the kthreads of these cpumaps (by map id; up to 4;
 *                none: no kthread counts)
 *   app TGID     tell apart the softirq time run in this process's
 *                threads (0: none)
 *   snap         print one line: for each possible CPU
 *                "CPU:KTHREAD_NS:SOFTIRQ_NS:SOFTIRQS:BATCHES:FRAMES:WOKEN:
 *                APP_SOFTIRQ_NS:KTHREAD_PID" (totals since the start, and
 *                the pid of the chosen maps' kthread there, 0 before its
 *                first batch), separated by spaces
 *
 * A script runs it as a coprocess and takes the difference of two snaps
 * around a run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "net_time.h"
#include "tool.h"
#include "net_time.skel.h"

static int snap(int map_fd, int ncpus)
{
	struct net_time *v = calloc(ncpus, sizeof(*v));
	__u32 zero = 0;
	int c;

	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &zero, v)) {
		free(v);
		return -errno;
	}
	for (c = 0; c < ncpus; c++)
		printf("%s%d:%llu:%llu:%llu:%llu:%llu:%llu:%llu:%u", c ? " " : "", c,
		       (unsigned long long)v[c].kthread_ns,
		       (unsigned long long)v[c].softirq_ns,
		       (unsigned long long)v[c].softirqs,
		       (unsigned long long)v[c].batches,
		       (unsigned long long)v[c].frames,
		       (unsigned long long)v[c].woken,
		       (unsigned long long)v[c].app_softirq_ns,
		       v[c].kthread_pid);
	printf("\n");
	fflush(stdout);
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	struct net_time_bpf *skel;
	char line[256];
	int ncpus, err;

	tool_libbpf_verbosity(argc > 1 && !strcmp(argv[1], "-v"));
	ncpus = libbpf_num_possible_cpus();
	skel = net_time_bpf__open_and_load();
	if (ncpus < 0 || !skel) {
		fprintf(stderr, "net_time: cannot load net_time.bpf.o: %s\n",
			strerror(errno));
		return 1;
	}
	err = net_time_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "net_time: cannot attach the tracepoint programs: %s\n",
			strerror(-err));
		goto out;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "maps", 4)) {
			char *p = line + 4, *end;
			int i;

			for (i = 0; i < NET_TIME_MAX_MAPS; i++) {
				unsigned long id = strtoul(p, &end, 10);

				skel->bss->map_ids[i] = end == p ? 0 : (__u32)id;
				p = end;
			}
		} else if (!strncmp(line, "app", 3)) {
			skel->bss->app_tgid = (__u32)strtoul(line + 3, NULL, 10);
		} else if (!strncmp(line, "snap", 4)) {
			err = snap(bpf_map__fd(skel->maps.net_time), ncpus);
			if (err) {
				fprintf(stderr, "net_time: reading the counters: %s\n",
					strerror(-err));
				goto out;
			}
		} else {
			fprintf(stderr, "net_time: unknown command: %s", line);
			err = -EINVAL;
			goto out;
		}
	}
out:
	net_time_bpf__destroy(skel);
	return err ? 1 : 0;
}
