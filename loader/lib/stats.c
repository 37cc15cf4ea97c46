// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The counters of an interface, read as often as the caller likes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

#include "kernel/maps.h"
#include "lib/lib_int.h"

struct steer_stats_src {
	struct steer_maps m;
};

int steer_sample_alloc(struct steer_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus < 0)
		return s->ncpus;
	s->rx = calloc(s->ncpus, sizeof(*s->rx));
	s->queued = calloc(STEER_MAX_CPUS, sizeof(*s->queued));
	s->deq = calloc(s->ncpus, sizeof(*s->deq));
	if (s->rx && s->queued && s->deq)
		return 0;
	steer_sample_free(s);
	return -ENOMEM;
}

void steer_sample_free(struct steer_sample *s)
{
	free(s->rx);
	free(s->queued);
	free(s->deq);
	s->rx = NULL;
	s->queued = NULL;
	s->deq = NULL;
}

int steer_stats_open(struct steer_ctx *ctx, const char *ifname,
		     struct steer_stats_src **srcp)
{
	struct steer_stats_src *src;
	const char *missing = NULL;
	struct lib_iface it;
	int err;

	*srcp = NULL;
	err = lib_iface_begin(ctx, ifname, false, &it);
	if (err)
		goto out;
	src = calloc(1, sizeof(*src));
	if (!src) {
		err = lib_fail(ctx, -ENOMEM, "out of memory");
		goto out;
	}
	err = maps_open(it.dir, &src->m, &missing);
	if (err == -ENOENT)
		lib_fail(ctx, err, "%s: xdp-steer is not attached here (no %s in %s)",
			 ifname, missing, it.dir);
	else if (err)
		lib_fail(ctx, err, "%s: cannot open the maps in %s: %s%s",
			 ifname, it.dir, strerror(-err), lib_priv_hint(err));
	if (err)
		free(src);
	else
		*srcp = src;
out:
	/* The maps stay open without the lock: counters are read-only, and
	 * an fd keeps a map alive even if it is detached meanwhile. */
	lib_iface_end(&it);
	return err;
}

int steer_stats_read(struct steer_stats_src *src, struct steer_sample *s)
{
	struct steer_worker_stats wsum;
	struct timespec ts;
	__u32 cpu;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->t = ts.tv_sec + ts.tv_nsec / 1e9;
	err = maps_percpu_sum(src->m.steer_stats, 0, sizeof(s->total),
			      &s->total, s->rx);
	if (!err)
		err = maps_percpu_sum(src->m.worker_stats, 0, sizeof(wsum),
				      &wsum, s->deq);
	for (cpu = 0; !err && cpu < STEER_MAX_CPUS; cpu++)
		err = maps_percpu_sum(src->m.cpu_stats, cpu,
				      sizeof(s->queued[cpu]), &s->queued[cpu],
				      NULL);
	return err;
}

void steer_stats_close(struct steer_stats_src *src)
{
	if (!src)
		return;
	maps_close(&src->m);
	free(src);
}
