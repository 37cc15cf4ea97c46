// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Each CPU's busy time from /proc/stat (cputime.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cputime.h"

int cputime_read(const char *path, struct cputime *t)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	char line[512];
	unsigned int cpu;
	FILE *f;
	int n = 0;

	memset(t, 0, sizeof(*t));
	f = fopen(path ? path : "/proc/stat", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* "cpuN user nice system idle iowait irq softirq steal
		 * guest guest_nice": guest time is inside user already. */
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3, "%u %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &user, &nice, &sys, &idle, &iowait, &irq,
			   &softirq) != 8 || cpu >= STEER_CPU_IDS)
			continue;
		t->busy[cpu] = user + nice + sys + irq + softirq;
		t->all[cpu] = t->busy[cpu] + idle + iowait;
		n++;
	}
	fclose(f);
	return n ? 0 : -ENODATA;
}

double cputime_busy(const struct cputime *a, const struct cputime *b,
		    __u32 cpu)
{
	double busy, all;

	if (cpu >= STEER_CPU_IDS || b->all[cpu] <= a->all[cpu] ||
	    b->busy[cpu] < a->busy[cpu])
		return 0;
	busy = b->busy[cpu] - a->busy[cpu];
	all = b->all[cpu] - a->all[cpu];
	return busy < all ? busy / all : 1;
}

double cputime_ticks(const struct cputime *a, const struct cputime *b)
{
	__u64 d, least = 0;
	__u32 c;

	for (c = 0; c < STEER_CPU_IDS; c++) {
		if (b->all[c] <= a->all[c])
			continue;
		d = b->all[c] - a->all[c];
		if (!least || d < least)
			least = d;
	}
	return least;
}
