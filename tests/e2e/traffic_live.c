// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * traffic_live.c - traffic_gen's live sender (traffic_live.h).
 *
 * No skb is built on the sending side, so one CPU sends millions of
 * frames per second. Every XDP test run adds its program to the kernel's
 * XDP dispatcher and removes it afterwards, each time waiting for an RCU
 * grace period (16-24 ms here): paced sending in short runs would be
 * impossible. So the program is also attached (LIVE_KEEP), in SKB mode
 * through a link that dies with the process, to the veth itself; the
 * dispatcher then keeps it and test runs start at once. Frames the veth
 * really receives pass untouched (the program only works on frames from
 * test runs, which arrive on loopback).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "traffic_live.h"
#include "traffic_gen.skel.h"

struct traffic_live {
	struct traffic_gen_bpf *skel;
	int prog_fd;
	int map_fd;
	int link_fd;		/* LIVE_KEEP's link, or -1 */
};

/* A NIC driver resets its rings when an XDP program comes, and takes the
 * carrier down meanwhile: wait (up to 10 s) until the interface runs
 * again, so that the first frames are not sent into the reset. */
static void wait_running(const char *ifname)
{
	struct ifreq ifr = {};
	int fd, i;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	for (i = 0; i < 1000; i++) {
		if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 ||
		    (ifr.ifr_flags & IFF_RUNNING))
			break;
		usleep(10000);
	}
	close(fd);
}

/* See the top of the file. Without it sending still works, only paced
 * runs come out slow (and a NIC driver that transmits redirected frames
 * only with an XDP program of its own, igb, sends nothing: --native).
 * Returns the link fd or -1. */
static int keep_in_dispatcher(int prog_fd, int ifindex, const char *ifname,
			      bool native)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo,
		    .flags = native ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE);
	int fd;

	fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &lo);
	if (fd < 0)
		fprintf(stderr, "traffic_gen: warning: cannot attach to %s in %s "
			"mode (%s): each test run waits for an RCU grace period, "
			"paced rates will be low\n", ifname,
			native ? "native" : "SKB", strerror(errno));
	else if (native)
		wait_running(ifname);
	return fd;
}

struct traffic_live *traffic_live_open(int ifindex, const char *ifname,
				       int flags, const struct gen_group *groups,
				       int ngroups, const struct gen_flow *flows,
				       __u32 nflows)
{
	struct traffic_live *l;
	int err = 0;
	__u32 i;

	if (ngroups > TRAFFIC_MAX_GROUPS) {
		errno = E2BIG;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->link_fd = -1;
	l->skel = traffic_gen_bpf__open_and_load();
	if (!l->skel) {
		err = errno;
		goto free_l;
	}
	l->prog_fd = bpf_program__fd(l->skel->progs.traffic_gen);
	l->map_fd = bpf_map__fd(l->skel->maps.gen_flows);
	l->skel->bss->gen_ifindex = (__u32)ifindex;
	l->skel->bss->gen_lo_ifindex = if_nametoindex("lo");
	memcpy(l->skel->bss->gen_groups, groups, (size_t)ngroups * sizeof(*groups));
	for (i = 0; i < nflows; i++) {
		if (bpf_map_update_elem(l->map_fd, &i, &flows[i], 0)) {
			err = errno;
			goto destroy;
		}
	}
	if (flags & LIVE_KEEP)
		l->link_fd = keep_in_dispatcher(l->prog_fd, ifindex, ifname,
						flags & LIVE_NATIVE);
	return l;

destroy:
	traffic_gen_bpf__destroy(l->skel);
free_l:
	free(l);
	errno = err;
	return NULL;
}

int traffic_live_send(struct traffic_live *l, int gidx, const void *tmpl,
		      size_t len, __u64 n, __u64 *sent)
{
	LIBBPF_OPTS(bpf_test_run_opts, run,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		    .data_in = tmpl,
		    .data_size_in = (__u32)len,
		    .repeat = (__u32)n);
	__u64 before = l->skel->bss->gen_frames;
	int ret;

	l->skel->bss->gen_cur = (__u32)gidx;
	ret = bpf_prog_test_run_opts(l->prog_fd, &run);
	*sent += l->skel->bss->gen_frames - before;
	return ret;
}

int traffic_live_write_one(struct traffic_live *l, int gidx, const void *tmpl,
			   size_t len, void *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, run,
		    .data_in = tmpl,
		    .data_size_in = (__u32)len,
		    .data_out = out,
		    .data_size_out = (__u32)len,
		    .repeat = 1);
	int ret;

	l->skel->bss->gen_cur = (__u32)gidx;
	ret = bpf_prog_test_run_opts(l->prog_fd, &run);
	if (ret)
		return ret;
	if (run.retval != XDP_REDIRECT || run.data_size_out != len)
		return -EPROTO;
	return 0;
}

int traffic_live_read_seqs(struct traffic_live *l, struct gen_flow *flows,
			   __u32 nflows)
{
	struct gen_flow gf;
	__u32 i;

	for (i = 0; i < nflows; i++) {
		if (bpf_map_lookup_elem(l->map_fd, &i, &gf))
			return -errno;
		flows[i].seq = gf.seq;
	}
	return 0;
}

struct traffic_gen_bpf *traffic_live_skel(struct traffic_live *l)
{
	return l->skel;
}

void traffic_live_close(struct traffic_live *l)
{
	if (!l)
		return;
	if (l->link_fd >= 0)
		close(l->link_fd);
	traffic_gen_bpf__destroy(l->skel);
	free(l);
}
