// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * traffic_fanout.c - traffic_gen's fanout sender (traffic_fanout.h).
 *
 * Where the kernel refuses live test-run frames, a socket's frames reach
 * the peer as skbs, which veth copies into a page before its XDP program
 * sees them, and each costs the sending CPU a system call's share: the
 * generator, not the receiver, is what a benchmark then measures. So the
 * socket sends fewer frames, into a veth pair of the generator's own
 * ("tgf<pid>" and "tgf<pid>p", in this namespace): on the far end,
 * traffic_fan (traffic_gen.bpf.c) redirects each with BPF_F_BROADCAST to
 * a devmap whose every entry is the interface to send out of. The kernel
 * copies the frame once per entry (xdpf_clone(): a page and a memcpy), the
 * entries' program traffic_fan_write writes each copy as the group's next
 * frame, and the devmap sends them in bulk (veth's ndo_xdp_xmit): the peer
 * gets xdp_frames, as from the live sender. The socket's frame carries its
 * group and the number of copies in its source MAC (struct fanout_tag):
 * a full fanout, or one copy (the last frames of a count); and a key of
 * this sender's, so that nothing else on the pair is taken for one. The
 * pair has no IPv6 and fixed MACs, so its own stack stays quiet.
 *
 * All of it runs on the sending CPU: each frame the socket sends runs the
 * pair's NAPI on the way out of the system call (the bottom halves are
 * enabled again after each transmit), so the copies of one frame, at most
 * FANOUT_MAX, reach the peer's ring (256 frames) in one burst, and its
 * NAPI runs next. The pair goes when the sender closes; after a kill -9 it
 * stays until the namespace goes (a later sender of the same pid deletes
 * it first).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "frame.h"
#include "tool.h"
#include "traffic_fanout.h"
#include "traffic_socket.h"
#include "traffic_gen.skel.h"

/* How long sent frames may take to come out of the pair's NAPI (it runs
 * in ksoftirqd when the CPU had too much softirq work) before those not
 * written are taken as copies the kernel had no page for. */
#define FANOUT_SETTLE_NS	(50 * 1000 * 1000ULL)
/* How long the interface may take no xdp_frames (its peer's XDP program
 * replaced, say) before the sender gives up. */
#define FANOUT_DRY_NS		(1000 * 1000 * 1000ULL)

struct traffic_fanout {
	struct traffic_gen_bpf *skel;
	struct traffic_socket *sock;	/* on the pair's first end */
	char in[IFNAMSIZ];		/* the socket's end */
	int link_fd;			/* traffic_fan on the far end */
	unsigned int copies;
	int out_ifindex;		/* the interface sent out of */
	__u64 dry_since;		/* when sends began to make no copy,
					 * 0: the last one made some */
	__u8 key[3];			/* gen_fan_key */
	__u8 frame[FRAME_MAX];		/* the socket's frame */
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Runs an ip(8) command quietly; 0 when it succeeded. The names are ours
 * (digits and letters), no quoting needed. */
static int run_ip(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd) - 20, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(cmd) - 20)
		return -1;
	strcat(cmd, " >/dev/null 2>&1");
	return system(cmd) ? -1 : 0;
}

/* No IPv6 on a pair end: no router solicitation or MLD report from its
 * stack. 0 or -1. */
static int quiet_ipv6(const char *ifname)
{
	char path[128];
	FILE *fp;
	int ret;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
		 ifname);
	fp = fopen(path, "w");
	if (!fp)
		return errno == ENOENT ? 0 : -1;	/* no IPv6 at all */
	ret = fputs("1\n", fp) < 0 ? -1 : 0;
	if (fclose(fp))
		ret = -1;
	return ret;
}

static int fill_devmap(int map_fd, __u32 entries, int ifindex, int prog_fd)
{
	struct bpf_devmap_val v = {
		.ifindex = (__u32)ifindex,
		.bpf_prog.fd = prog_fd,
	};
	__u32 i;

	for (i = 0; i < entries; i++)
		if (bpf_map_update_elem(map_fd, &i, &v, 0))
			return -errno;
	return 0;
}

static void say_no_copies(const struct traffic_fanout *f)
{
	char name[IF_NAMESIZE] = "?";

	if_indextoname((unsigned int)f->out_ifindex, name);
	fprintf(stderr, "traffic_gen: fanout: no frame came out of %s: its peer "
		"takes no XDP frames now (needs an XDP program, GRO or threaded "
		"NAPI on it)\n", name);
}

struct traffic_fanout *traffic_fanout_open(struct traffic_live *l, int ifindex,
					   unsigned int copies)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = XDP_FLAGS_DRV_MODE);
	struct traffic_fanout *f;
	char far[IFNAMSIZ];
	int err, far_idx, in_idx, prog_fd, i;

	if (!copies || copies > FANOUT_MAX) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->link_fd = -1;
	f->skel = traffic_live_skel(l);
	srandom((unsigned int)(getpid() ^ mono_ns()));
	for (i = 0; i < 3; i++)
		f->key[i] = f->skel->bss->gen_fan_key[i] = (__u8)random();
	f->copies = copies;
	f->out_ifindex = ifindex;
	snprintf(f->in, sizeof(f->in), "tgf%d", (int)getpid());
	snprintf(far, sizeof(far), "tgf%dp", (int)getpid());
	run_ip("ip link del %s", f->in);
	if (run_ip("ip link add %s address 02:00:00:00:00:01 type veth peer "
		   "name %s address 02:00:00:00:00:02", f->in, far) ||
	    quiet_ipv6(f->in) || quiet_ipv6(far) ||
	    run_ip("ip link set %s up", far) || run_ip("ip link set %s up", f->in)) {
		fprintf(stderr, "traffic_gen: fanout: cannot make the veth pair "
			"%s, %s (needs ip(8) and CAP_NET_ADMIN)\n", f->in, far);
		err = EPERM;
		goto del;
	}
	in_idx = (int)if_nametoindex(f->in);
	far_idx = (int)if_nametoindex(far);
	if (!in_idx || !far_idx) {
		err = ENODEV;
		goto del;
	}
	prog_fd = bpf_program__fd(f->skel->progs.traffic_fan_write);
	err = -fill_devmap(bpf_map__fd(f->skel->maps.gen_fan_many), copies,
			   ifindex, prog_fd);
	if (!err)
		err = -fill_devmap(bpf_map__fd(f->skel->maps.gen_fan_one), 1,
				   ifindex, prog_fd);
	if (err) {
		fprintf(stderr, "traffic_gen: fanout: a devmap entry with a "
			"program: %s (kernel before 5.8?)\n", strerror(err));
		goto del;
	}
	f->link_fd = bpf_link_create(bpf_program__fd(f->skel->progs.traffic_fan),
				     far_idx, BPF_XDP, &lo);
	if (f->link_fd < 0) {
		err = errno;
		fprintf(stderr, "traffic_gen: fanout: attaching to %s: %s\n", far,
			strerror(err));
		goto del;
	}
	f->sock = traffic_socket_open(in_idx);
	if (!f->sock) {
		err = errno;
		fprintf(stderr, "traffic_gen: fanout: AF_PACKET socket on %s: %s\n",
			f->in, strerror(err));
		goto del;
	}
	return f;

del:
	if (f->link_fd >= 0)
		close(f->link_fd);
	run_ip("ip link del %s", f->in);
	free(f);
	errno = err;
	return NULL;
}

/* Sends n socket frames of 'len' bytes for group 'gidx', each to be made
 * into 'each' frames; the frames written are counted in *sent once the
 * pair's NAPI has taken them all (or stopped writing for a while). */
static int send_tagged(struct traffic_fanout *f, int gidx, size_t len,
		       __u8 copies, __u64 n, __u64 each, __u64 *sent)
{
	volatile __u64 *written = &f->skel->bss->gen_frames;
	struct fanout_tag *t = (void *)(f->frame + FANOUT_TAG_OFF);
	__u64 before = *written, socket_sent = 0, last, seen, t0;
	int ret;

	t->magic = FANOUT_MAGIC;
	t->group = (__u8)gidx;
	t->copies = copies;
	memcpy(t->key, f->key, sizeof(t->key));
	ret = traffic_socket_send_copies(f->sock, f->frame, len, n,
					 &socket_sent);
	last = *written;
	t0 = mono_ns();
	while (last - before < socket_sent * each &&
	       mono_ns() - t0 < FANOUT_SETTLE_NS) {
		sched_yield();
		seen = *written;
		if (seen != last) {
			last = seen;
			t0 = mono_ns();
		}
	}
	*sent += last - before;
	/* Not one copy made: the kernel's devmap passes over an interface
	 * that cannot take xdp_frames now (a veth whose peer has no NAPI:
	 * no XDP program, GRO or threaded NAPI there), and sending on
	 * would spin. */
	if (!ret && socket_sent && last == before)
		ret = -ENXIO;
	return ret;
}

int traffic_fanout_send(struct traffic_fanout *f, int gidx, const void *tmpl,
			size_t len, __u64 n, __u64 *sent)
{
	__u64 many = n / f->copies, ones = n % f->copies;
	int ret = 0;

	if (len > sizeof(f->frame) || len < FANOUT_TAG_OFF + sizeof(struct fanout_tag))
		return -EINVAL;
	memcpy(f->frame, tmpl, len);
	if (many)
		ret = send_tagged(f, gidx, len,
				  f->copies == 1 ? FANOUT_ONE : FANOUT_MANY,
				  many, f->copies, sent);
	if (!ret && ones)
		ret = send_tagged(f, gidx, len, FANOUT_ONE, ones, 1, sent);
	if (ret != -ENXIO) {
		f->dry_since = 0;
		return ret;
	}
	/* A while without copies is a peer between XDP programs; for good,
	 * nothing would ever end a --count run. */
	if (!f->dry_since)
		f->dry_since = mono_ns();
	if (mono_ns() - f->dry_since < FANOUT_DRY_NS) {
		usleep(1000);
		return 0;
	}
	say_no_copies(f);
	return ret;
}

/* traffic_fan's verdict on 'frame' in a plain test run, or a negative
 * errno. */
static int fan_verdict(struct traffic_gen_bpf *skel, const __u8 *frame,
		       size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame,
		    .data_size_in = (__u32)len, .repeat = 1);

	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.traffic_fan), &run))
		return -errno;
	return (int)run.retval;
}

int traffic_fanout_check(struct traffic_live *l, const void *tmpl, size_t len)
{
	static const struct {
		const char *what;
		int tagged, key_off, magic_off, want;
	} cases[] = {
		{ "a frame tagged with the sender's key is broadcast", 1, 0, 0,
		  XDP_REDIRECT },
		{ "a tag with another key passes", 1, 1, 0, XDP_PASS },
		{ "a source MAC that only starts with the magic passes", 0, 0, 0,
		  XDP_PASS },
		{ "a tag with the key but another magic passes", 1, 0, 1,
		  XDP_PASS },
	};
	struct traffic_gen_bpf *skel = traffic_live_skel(l);
	struct fanout_tag *t;
	__u8 frame[FRAME_MAX];
	size_t i;
	int v;

	if (len > sizeof(frame) || len < FANOUT_TAG_OFF + sizeof(*t))
		return -EINVAL;
	memcpy(skel->bss->gen_fan_key, "\x5a\xa5\x3c", 3);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(frame, tmpl, len);
		t = (void *)(frame + FANOUT_TAG_OFF);
		t->magic = FANOUT_MAGIC + cases[i].magic_off * 2;
		if (cases[i].tagged) {
			t->group = 0;
			t->copies = FANOUT_MANY;
			memcpy(t->key, skel->bss->gen_fan_key, sizeof(t->key));
			t->key[2] ^= (__u8)cases[i].key_off;
		} else {
			/* Whatever follows the magic, never the key. */
			t->key[0] = (__u8)~skel->bss->gen_fan_key[0];
		}
		v = fan_verdict(skel, frame, len);
		if (v != cases[i].want) {
			fprintf(stderr, "traffic_gen: fanout: %s: verdict %d, not %d\n",
				cases[i].what, v, cases[i].want);
			return v < 0 ? v : -EPROTO;
		}
		printf("fanout: %s\n", cases[i].what);
	}
	return 0;
}

void traffic_fanout_close(struct traffic_fanout *f)
{
	if (!f)
		return;
	traffic_socket_close(f->sock);
	if (f->link_fd >= 0)
		close(f->link_fd);
	run_ip("ip link del %s", f->in);
	free(f);
}
