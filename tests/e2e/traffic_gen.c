// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * traffic_gen - sends test frames out of a veth for the end-to-end tests,
 * the demo and the benchmark: groups of flows (UDP or TCP-shaped, IPv4 or
 * IPv6, or ARP requests), every frame carrying a mark (magic, flow id,
 * per-flow sequence number, tests/e2e/traffic.h) that the observer counts on
 * the other side.
 *
 * Three senders write the same frames in the same order (the writer is
 * one header, traffic_write.h, compiled for each), chosen by --sender or
 * the environment variable TRAFFIC_GEN_SENDER (the option wins), each
 * live, fanout, socket or auto:
 *
 *   live    "live" test-run frames (traffic_live.c): bpf_prog_test_run_opts
 *           with BPF_F_TEST_XDP_LIVE_FRAMES runs traffic_gen.bpf.c over a
 *           template frame per group; the program writes each frame's
 *           flow and sequence number and redirects it out of the veth,
 *           which hands it to the peer's XDP program as an xdp_frame. No
 *           skb is built on the sending side, so one CPU sends millions of
 *           frames per second.
 *   fanout  for kernels that refuse live frames (some return EPERM to
 *           them): a socket sends a frame into a veth pair of the
 *           generator's own, whose XDP program has the kernel copy it
 *           --fanout times (32) through a devmap into the interface,
 *           each copy written as the next frame on its way out
 *           (traffic_fanout.c). The peer gets xdp_frames, as from a NIC,
 *           and the sending CPU spends little more per frame than live.
 *   socket  frames written in userspace and sent through an AF_PACKET
 *           socket bound to the interface, past its qdisc
 *           (traffic_socket.c); the peer gets skbs, which veth copies
 *           before its XDP program runs, and each frame costs the
 *           sending CPU a system call's share. To run a whole test on
 *           skbs, and where nothing else works. It needs no BPF.
 *   auto    (the default) live; when the kernel refuses the first live
 *           run (EPERM, EINVAL or EOPNOTSUPP) before a frame went out,
 *           fanout from then on, or socket where fanout cannot start
 *           (-v says which).
 *
 * Run it in the sending namespace.
 *
 * Flows are numbered from 0 in the order of the --group options. Within a
 * group, flow i has source address src + i / per_addr and source port
 * sport + i % per_addr; destination address and port are the group's. An
 * ESP flow's SPI is its ports (source port in the high half). A group may
 * be sent inside an encapsulation (encap=): every frame of it between one
 * outer pair of endpoints (namespace A's and B's addresses on the veth),
 * its flows told apart by the inner headers only.
 * A group may also be made of frames xdp-steer's parser refuses (bad=):
 * see bad_kinds below.
 * Frames go round-robin over the flows of a group, and groups take turns,
 * so every flow gets a frame before any gets a second; a group with
 * frames=N takes N frames each turn instead, which makes its flows heavier
 * or lighter than the others (and sends them in bursts of N).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "frame.h"
#include "tool.h"
#include "traffic.h"
#include "traffic_fanout.h"
#include "traffic_live.h"
#include "traffic_socket.h"
#include "traffic_write.h"

#define ETH_MIN_LEN	60	/* without FCS: what a NIC pads to */
/* Frames per test run when not paced: long enough to amortize the run's
 * setup (a page pool per call), short enough to notice a signal soon. */
#define MAX_RUN		65536
/* Frames per group visit when several groups take turns, at least. */
#define GROUP_QUANTUM	4096

/* Frames the steering program cannot parse whole (a parse error, or a
 * tunnel it counts malformed), each made from a group's well-formed frame:
 * for tests of what they are steered by. Every one still carries its mark
 * where the observer looks for it. */
enum gen_bad {
	BAD_NONE,
	BAD_L4_SHORT,		/* the IP length leaves 2 bytes of the
				 * transport header (the rest in the frame,
				 * past the datagram) */
	BAD_EXT_CHAIN,		/* IPv6: one hop-by-hop header more than
				 * the parser walks (STEER_IPV6_EXT_MAX) */
	BAD_VXLAN_NO_I,		/* VXLAN without its I flag */
	BAD_GENEVE_V1,		/* Geneve of version 1 */
	BAD_GTP_V2,		/* GTP of version 2 on GTP-U's port */
	BAD_GRE_ROUTING,	/* GRE with RFC 1701's routing bit */
	BAD_GRE_V1,		/* GRE of version 1 (PPTP's) */
	BAD_PPPOE_V2,		/* PPPoE of version 2 */
	BAD_GTP_EXT_LONG,	/* GTP-U whose extension header (E, then
				 * the inner IP header's first byte read as
				 * its length) runs past the datagram */
	BAD_INNER_LONG,		/* an inner IP header claiming 200 bytes
				 * more than the outer datagram holds */
	BAD_COUNT,
};

/* Any encapsulation with an outer IP header (bad_kinds[].encap). */
#define BAD_ANY_IP_TUNNEL	(-1)

/* Each kind's name and the encapsulation it needs (0: none). */
static const struct {
	const char *name;
	int encap;
} bad_kinds[BAD_COUNT] = {
	[BAD_L4_SHORT] = { "l4-short", 0 },
	[BAD_EXT_CHAIN] = { "ext-chain", 0 },
	[BAD_VXLAN_NO_I] = { "vxlan-no-i", STEER_ENCAP_VXLAN },
	[BAD_GENEVE_V1] = { "geneve-v1", STEER_ENCAP_GENEVE },
	[BAD_GTP_V2] = { "gtp-v2", STEER_ENCAP_GTPU },
	[BAD_GRE_ROUTING] = { "gre-routing", STEER_ENCAP_GRE },
	[BAD_GRE_V1] = { "gre-v1", STEER_ENCAP_GRE },
	[BAD_PPPOE_V2] = { "pppoe-v2", STEER_ENCAP_PPPOE },
	[BAD_GTP_EXT_LONG] = { "gtp-ext-long", STEER_ENCAP_GTPU },
	[BAD_INNER_LONG] = { "inner-long", BAD_ANY_IP_TUNNEL },
};

struct group {
	enum traffic_shape shape;
	__u32 first, nflows;
	int family;			/* AF_INET / AF_INET6; 0 for ARP */
	struct in6_addr src, dst;	/* IPv4 in the first 4 bytes */
	__u16 sport, dport;		/* host order */
	__u32 per_addr;
	int encap;			/* STEER_ENCAP_*, or 0: none */
	int outer;			/* the encapsulation's outer family */
	enum gen_bad bad;		/* BAD_NONE: well-formed */
	__u16 vlan[2];			/* vlan=S[.C]: an 802.1ad S-tag and
					 * an 802.1Q C-tag, or one 802.1Q tag
					 * (vlan[1] 0); 0: untagged */
	__u32 tunnel_id;		/* id=N: the VNI (vxlan, geneve) or
					 * TEID (gtpu); 0: the builder's */
	struct frame tmpl;		/* frame of the group's first flow */
	__u64 quantum;			/* frames per visit */
	__u64 visit;			/* frames=N: the quantum asked for */
	struct gen_group gen;		/* what the writer reads, and its
					 * cursor (the socket sender's; the
					 * live sender's is in its program) */
};

static const char *const shape_names[TRAFFIC_NSHAPES] = {
	[TRAFFIC_UDP4] = "udp4", [TRAFFIC_TCP4] = "tcp4",
	[TRAFFIC_UDP6] = "udp6", [TRAFFIC_TCP6] = "tcp6",
	[TRAFFIC_ARP] = "arp",
	[TRAFFIC_ESP4] = "esp4", [TRAFFIC_ESP6] = "esp6",
};

enum sender {
	SENDER_AUTO,
	SENDER_LIVE,
	SENDER_SOCKET,
	SENDER_FANOUT,
};

static const char *const sender_names[] = {
	[SENDER_AUTO] = "auto", [SENDER_LIVE] = "live",
	[SENDER_SOCKET] = "socket", [SENDER_FANOUT] = "fanout",
};

/* Copies of each socket frame (--fanout): enough that the system call's
 * share is small, few enough that one frame's copies fit the peer's ring
 * (256) with room. */
#define FANOUT_DEFAULT	32

struct opts {
	const char *ifname;
	__u8 dst_mac[6], src_mac[6];
	bool have_dst_mac, have_src_mac;
	double rate;		/* frames/s, 0: unpaced */
	__u64 count;		/* 0: until the duration */
	double duration;	/* s, 0 with no count: until a signal */
	size_t size;		/* frame length, 0: smallest */
	int cpu;		/* -1: not pinned */
	const char *flows_out;
	int verbose;
	bool native;		/* the keeping link in native mode */
	enum sender sender;
	unsigned int fanout;	/* copies per socket frame (fanout) */
	__u64 check_writer;	/* frames per group to compare, 0: send */
	bool check_fanout;	/* check the fanout's tags, send nothing */
	struct group groups[TRAFFIC_MAX_GROUPS];
	int ngroups;
	__u32 nflows;
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: traffic_gen --ifname IF --dst-mac MAC [options]\n"
"Sends marked test frames out of veth IF (run it in IF's namespace).\n"
"  --group KIND:N[,src=A][,dst=A][,sport=P][,dport=P][,per-addr=K][,frames=F]\n"
"        [,encap=E][,outer=4|6][,bad=B][,vlan=S[.C]][,id=N]\n"
"                   N flows of KIND (udp4 tcp4 udp6 tcp6 esp4 esp6 arp);\n"
"                   repeatable, flow ids follow the order (default:\n"
"                   udp4:1000); inside encapsulation E (pppoe mpls gre\n"
"                   ipip vxlan geneve gtpu), over IPv4 or IPv6 (outer=);\n"
"                   with several groups, each takes F frames a turn\n"
"                   (default: about 4096 over all flows, the same per flow);\n"
"                   frames xdp-steer cannot parse whole (bad=): l4-short,\n"
"                   ext-chain (udp6, tcp6) for udp and tcp without encap;\n"
"                   vxlan-no-i, geneve-v1, gtp-v2, gtp-ext-long,\n"
"                   gre-routing, gre-v1, pppoe-v2 with their encap;\n"
"                   inner-long with gre ipip vxlan geneve gtpu;\n"
"                   under a subscriber's 802.1ad S-tag and 802.1Q C-tag\n"
"                   (vlan=S.C) or one 802.1Q tag (vlan=S), without encap;\n"
"                   a tunnel's VNI or TEID (id=) with vxlan, geneve, gtpu\n"
"  --rate PPS       frames per second; 0 sends as fast as it can (default)\n"
"  --count N        stop after N frames\n"
"  --duration S     stop after S seconds (default 1 without --count; 0 with\n"
"                   no --count: until SIGINT/SIGTERM)\n"
"  --size BYTES     frame length without FCS (default: the smallest, >= 60)\n"
"  --src-mac MAC    (default: IF's address)\n"
"  --cpu N          run on CPU N (veth runs the peer's NAPI, so its XDP, on\n"
"                   the sending CPU unless the NAPI is threaded)\n"
"  --flows-out F    write \"flow ID group G KIND sent N\" per flow to F\n"
"  --native         attach the program to IF in native mode, not SKB mode: a\n"
"                   NIC driver (igb) transmits redirected frames only while\n"
"                   an XDP program of its own runs on it (live sender)\n"
"  --sender S       live: live test-run frames (BPF_F_TEST_XDP_LIVE_FRAMES),\n"
"                   written by traffic_gen.bpf.c, the peer gets xdp_frames;\n"
"                   fanout: a socket's frame copied --fanout times through\n"
"                   a devmap, each copy written by a devmap program, the\n"
"                   peer gets xdp_frames; socket: the frames written in\n"
"                   userspace, sent through an AF_PACKET socket past the\n"
"                   qdisc, the peer gets skbs; auto (default): live, or\n"
"                   once the kernel refuses the first live run (EPERM,\n"
"                   EINVAL, EOPNOTSUPP; -v says so) fanout, or socket where\n"
"                   fanout cannot start. The environment variable\n"
"                   TRAFFIC_GEN_SENDER sets it too; the option wins\n"
"  --fanout K       copies of each socket frame, 1-%d (default %d; also\n"
"                   TRAFFIC_GEN_FANOUT, the option wins)\n"
"  --check-writer N write N frames of each group with both writers (the\n"
"                   program in plain test runs, no live frames, and in\n"
"                   userspace), compare them byte for byte and send nothing;\n"
"                   exit 1 at the first difference, printed\n"
"  --check-fanout   test-run the fanout's XDP program (no live frames) on\n"
"                   the first group's frame tagged and mistagged: only a\n"
"                   frame with its sender's key is made into copies; send\n"
"                   nothing, exit 1 at a wrong verdict\n"
"  -v               libbpf messages, the sender taken\n"
"Prints \"sent=N seconds=S fps=R sender=K\" on stdout at the end (K: the\n"
"sender that sent them).\n",
		FANOUT_MAX, FANOUT_DEFAULT);
}

static int parse_mac(const char *s, __u8 mac[6])
{
	unsigned int b[6];
	int i, n;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%n", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &n) != 6 || s[n])
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -EINVAL;
		mac[i] = (__u8)b[i];
	}
	return 0;
}

static int parse_u64(const char *s, __u64 max, __u64 *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > max || *s == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

static void group_defaults(struct group *g)
{
	const char *src, *dst;

	g->family = g->shape == TRAFFIC_ARP ? 0 :
		    (g->shape == TRAFFIC_UDP6 || g->shape == TRAFFIC_TCP6 ||
		     g->shape == TRAFFIC_ESP6) ? AF_INET6 : AF_INET;
	g->outer = AF_INET;
	src = g->family == AF_INET6 ? "fd00:201::1" : "10.201.0.1";
	dst = g->family == AF_INET6 ? "fd00:200::2" : "10.200.0.2";
	if (g->shape == TRAFFIC_ARP) {
		/* Who has an unused address, tell 10.200.0.1: nobody
		 * answers, the receiver only learns our address. */
		src = "10.200.0.1";
		dst = "10.200.0.250";
	}
	inet_pton(g->family == AF_INET6 ? AF_INET6 : AF_INET, src, &g->src);
	inet_pton(g->family == AF_INET6 ? AF_INET6 : AF_INET, dst, &g->dst);
	g->sport = 10000;
	g->dport = (g->shape == TRAFFIC_TCP4 || g->shape == TRAFFIC_TCP6) ?
		   8000 : 9000;
	g->per_addr = 100;
}

/* KIND:N[,key=value]... */
static int parse_group(struct opts *o, char *spec)
{
	struct group *g;
	char *kind = spec, *rest, *kv;
	__u64 v;
	int i, af;

	if (o->ngroups == TRAFFIC_MAX_GROUPS) {
		fprintf(stderr, "traffic_gen: at most %d groups\n",
			TRAFFIC_MAX_GROUPS);
		return -E2BIG;
	}
	g = &o->groups[o->ngroups];
	memset(g, 0, sizeof(*g));
	rest = strchr(spec, ':');
	if (!rest)
		goto bad;
	*rest++ = 0;
	for (i = 0; i < TRAFFIC_NSHAPES; i++)
		if (!strcmp(kind, shape_names[i]))
			break;
	if (i == TRAFFIC_NSHAPES)
		goto bad;
	g->shape = i;
	group_defaults(g);
	af = g->family == AF_INET6 ? AF_INET6 : AF_INET;

	kv = strsep(&rest, ",");
	if (parse_u64(kv, TRAFFIC_MAX_FLOWS, &v) || !v)
		goto bad;
	g->nflows = (__u32)v;
	while ((kv = strsep(&rest, ","))) {
		char *val = strchr(kv, '=');

		if (!val)
			goto bad;
		*val++ = 0;
		if (!strcmp(kv, "src") || !strcmp(kv, "dst")) {
			memset(!strcmp(kv, "src") ? &g->src : &g->dst, 0,
			       sizeof(g->src));
			if (inet_pton(af, val, !strcmp(kv, "src") ?
				      &g->src : &g->dst) != 1)
				goto bad;
		} else if (!strcmp(kv, "sport") || !strcmp(kv, "dport")) {
			if (parse_u64(val, 65535, &v) || !v)
				goto bad;
			*(!strcmp(kv, "sport") ? &g->sport : &g->dport) = (__u16)v;
		} else if (!strcmp(kv, "per-addr")) {
			if (parse_u64(val, 65535, &v) || !v)
				goto bad;
			g->per_addr = (__u32)v;
		} else if (!strcmp(kv, "encap")) {
			for (i = 1; i < STEER_ENCAP_COUNT; i++)
				if (i != STEER_ENCAP_ESP &&
				    !strcmp(val, steer_encap_name(i)))
					break;
			if (i == STEER_ENCAP_COUNT || !g->family ||
			    g->shape == TRAFFIC_ESP4 || g->shape == TRAFFIC_ESP6)
				goto bad;
			g->encap = i;
		} else if (!strcmp(kv, "outer")) {
			if (strcmp(val, "4") && strcmp(val, "6"))
				goto bad;
			g->outer = val[0] == '6' ? AF_INET6 : AF_INET;
		} else if (!strcmp(kv, "bad")) {
			for (i = 1; i < BAD_COUNT; i++)
				if (!strcmp(val, bad_kinds[i].name))
					break;
			if (i == BAD_COUNT)
				goto bad;
			g->bad = i;
		} else if (!strcmp(kv, "vlan")) {
			char *dot = strchr(val, '.');

			if (dot)
				*dot++ = 0;
			if (parse_u64(val, 4094, &v) || !v)
				goto bad;
			g->vlan[0] = (__u16)v;
			if (dot && (parse_u64(dot, 4094, &v) || !v))
				goto bad;
			g->vlan[1] = dot ? (__u16)v : 0;
		} else if (!strcmp(kv, "id")) {
			if (parse_u64(val, 0xffffffffu, &v) || !v)
				goto bad;
			g->tunnel_id = (__u32)v;
		} else if (!strcmp(kv, "frames")) {
			if (parse_u64(val, 1u << 30, &v) || !v)
				goto bad;
			g->visit = v;
		} else {
			goto bad;
		}
	}
	if (g->bad && ((bad_kinds[g->bad].encap == BAD_ANY_IP_TUNNEL ?
			!g->encap || g->encap == STEER_ENCAP_PPPOE ||
			g->encap == STEER_ENCAP_MPLS :
			bad_kinds[g->bad].encap != g->encap) ||
		       g->shape == TRAFFIC_ARP || g->shape == TRAFFIC_ESP4 ||
		       g->shape == TRAFFIC_ESP6 ||
		       (g->bad == BAD_EXT_CHAIN && g->family != AF_INET6))) {
		fprintf(stderr, "traffic_gen: bad=%s is for udp and tcp groups%s%s%s\n",
			bad_kinds[g->bad].name,
			bad_kinds[g->bad].encap > 0 ? " with encap=" :
			bad_kinds[g->bad].encap ? " in a tunnel over IP" :
			" without encap",
			bad_kinds[g->bad].encap > 0 ?
			steer_encap_name((__u32)bad_kinds[g->bad].encap) : "",
			g->bad == BAD_EXT_CHAIN ? ", IPv6" : "");
		return -EINVAL;
	}
	if ((g->vlan[0] && (g->encap || !g->family)) ||
	    (g->tunnel_id && g->encap != STEER_ENCAP_VXLAN &&
	     g->encap != STEER_ENCAP_GENEVE && g->encap != STEER_ENCAP_GTPU) ||
	    (g->tunnel_id > 0xffffff && g->encap != STEER_ENCAP_GTPU)) {
		fprintf(stderr, "traffic_gen: vlan= is for udp and tcp groups without encap; id= for encap=vxlan, geneve (24 bits) or gtpu\n");
		return -EINVAL;
	}
	if (g->family && (__u32)g->sport + g->per_addr - 1 > 65535) {
		fprintf(stderr, "traffic_gen: sport + per-addr passes 65535\n");
		return -EINVAL;
	}
	if (o->nflows + g->nflows > TRAFFIC_MAX_FLOWS) {
		fprintf(stderr, "traffic_gen: at most %d flows in all\n",
			TRAFFIC_MAX_FLOWS);
		return -E2BIG;
	}
	g->first = o->nflows;
	o->nflows += g->nflows;
	o->ngroups++;
	return 0;
bad:
	fprintf(stderr, "traffic_gen: bad --group (KIND:N[,src=A][,dst=A]"
		"[,sport=P][,dport=P][,per-addr=K][,frames=F][,encap=E][,outer=4|6][,bad=B][,vlan=S[.C]][,id=N], "
		"KIND udp4 tcp4 udp6 tcp6 esp4 esp6 arp, E pppoe mpls gre ipip vxlan "
		"geneve gtpu for udp and tcp, B as --help says)\n");
	return -EINVAL;
}

/* Sum of 16-bit words as stored (ones' complement arithmetic is
 * byte-order independent: the program adds words the same way). */
static __u32 sum_words(const void *p, size_t len, __u32 s)
{
	const __u8 *b = p;
	__u16 w;

	for (; len >= 2; b += 2, len -= 2) {
		memcpy(&w, b, 2);
		s += w;
	}
	if (len) {
		__u8 last[2] = { b[0], 0 };

		memcpy(&w, last, 2);
		s += w;
	}
	return s;
}

static __u16 fold16(__u32 s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__u16)s;
}

/* A bad= kind's change to a finished frame, its flow's sums taken: to the
 * tunnel's header, the same in every frame of the group (the template's)
 * and under no checksum; or to the inner IP header's length, and then
 * its checksum. */
static void make_bad(struct frame *fr, const struct group *g,
		     struct gen_flow *gf)
{
	__u8 *l3 = fr->buf + fr->l3_off;
	unsigned int len;

	/* GRE's header, or the UDP header of a UDP tunnel. */
	__u8 *t = fr->buf + fr->first_l3_off + (g->outer == AF_INET6 ? 40 : 20);

	switch (g->bad) {
	case BAD_VXLAN_NO_I:
		t[8] &= (__u8)~0x08;
		break;
	case BAD_GENEVE_V1:
		t[8] = (__u8)((t[8] & 0x3f) | 0x40);
		break;
	case BAD_GTP_V2:
		t[8] = (__u8)((t[8] & 0x0f) | 0x40);
		break;
	case BAD_GRE_ROUTING:
		t[0] |= 0x40;
		break;
	case BAD_GRE_V1:
		t[1] = (__u8)((t[1] & 0xf8) | 0x01);
		break;
	case BAD_PPPOE_V2:
		fr->buf[ETH_HLEN] = 0x21;
		break;
	case BAD_GTP_EXT_LONG:
		/* frame_tunnel()'s GTP-U has S: the next extension type is
		 * in its optional word, already there. */
		t[8] |= 0x04;
		t[8 + 11] = 0x85;	/* PDU session container */
		break;
	case BAD_INNER_LONG:
		len = (unsigned int)(g->family == AF_INET6 ? l3[4] << 8 | l3[5] :
				     l3[2] << 8 | l3[3]) + 200;
		l3[g->family == AF_INET6 ? 4 : 2] = (__u8)(len >> 8);
		l3[g->family == AF_INET6 ? 5 : 3] = (__u8)len;
		if (g->family == AF_INET6)
			break;
		l3[10] = l3[11] = 0;
		gf->ip_csum = (__u16)~fold16(sum_words(l3, 20, 0));
		memcpy(l3 + 10, &gf->ip_csum, 2);
		break;
	default:
		break;
	}
}

/* Flow i of group g as a frame (sequence 0, checksum fields 0), and what
 * the program writes for it. */
static int build_flow(const struct opts *o, const struct group *g, __u32 i,
		      struct frame *fr, struct gen_flow *gf)
{
	struct traffic_mark mark = { TRAFFIC_MAGIC, g->first + i, 0 };
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	struct in6_addr a = g->src;
	__u32 *last = g->family == AF_INET6 ? &a.s6_addr32[3] : &a.s6_addr32[0];
	bool tcp = g->shape == TRAFFIC_TCP4 || g->shape == TRAFFIC_TCP6;
	bool esp = g->shape == TRAFFIC_ESP4 || g->shape == TRAFFIC_ESP6;
	__u16 sport = (__u16)(g->sport + i % g->per_addr);
	int af = g->family == AF_INET6 ? AF_INET6 : AF_INET;
	__u8 next = esp ? IPPROTO_ESP : tcp ? IPPROTO_TCP : IPPROTO_UDP;
	bool short_l4 = g->bad == BAD_L4_SHORT;
	__u8 pseudo[40];
	size_t seg_len;
	__u8 *l3, *l4;
	int err, n;

	*last = htonl(ntohl(*last) + i / g->per_addr);
	inet_ntop(af, &a, src, sizeof(src));
	inet_ntop(af, &g->dst, dst, sizeof(dst));

	frame_init(fr);
	/* The outer headers: namespace A's address to B's on the veth. */
	if (g->encap)
		frame_tunnel(fr, g->encap,
			     g->outer == AF_INET6 ? STEER_AF_INET6 : STEER_AF_INET,
			     af == AF_INET6 ? STEER_AF_INET6 : STEER_AF_INET,
			     g->outer == AF_INET6 ? "fd00:200::1" : "10.200.0.1",
			     g->outer == AF_INET6 ? "fd00:200::2" : "10.200.0.2");
	else if (g->family)
		frame_eth(fr, af == AF_INET6 ? ETH_P_IPV6 : ETH_P_IP);
	/* A subscriber's tags: S-tag outside, C-tag inside. */
	if (g->vlan[0] && g->vlan[1]) {
		frame_vlan(fr, ETH_P_8021AD, g->vlan[0]);
		frame_vlan(fr, ETH_P_8021Q, g->vlan[1]);
	} else if (g->vlan[0]) {
		frame_vlan(fr, ETH_P_8021Q, g->vlan[0]);
	}
	/* The tunnel's id, bytes 4-7 of its header after the outer UDP
	 * header (VXLAN's and Geneve's VNI in the first three). */
	if (g->tunnel_id) {
		__u8 *id = fr->buf + fr->first_l3_off +
			   (g->outer == AF_INET6 ? 40 : 20) + 8 + 4;
		__u32 w = g->encap == STEER_ENCAP_GTPU ? g->tunnel_id :
			  g->tunnel_id << 8 | id[3];

		id[0] = (__u8)(w >> 24);
		id[1] = (__u8)(w >> 16);
		id[2] = (__u8)(w >> 8);
		id[3] = (__u8)w;
	}
	switch (g->shape) {
	case TRAFFIC_UDP4:
	case TRAFFIC_TCP4:
	case TRAFFIC_ESP4:
		frame_ipv4(fr, &(struct frame_ip4){ .src = src, .dst = dst,
			   .proto = next, .tot_len = 20 + 2,
			   .tot_len_set = short_l4 });
		break;
	case TRAFFIC_UDP6:
	case TRAFFIC_TCP6:
	case TRAFFIC_ESP6:
		frame_ipv6(fr, &(struct frame_ip6){ .src = src, .dst = dst,
			   .nexthdr = g->bad == BAD_EXT_CHAIN ? IPPROTO_HOPOPTS :
			   next, .payload_len = 2, .payload_len_set = short_l4 });
		for (n = 0; g->bad == BAD_EXT_CHAIN && n <= STEER_IPV6_EXT_MAX; n++)
			frame_ipv6_hbh(fr, n < STEER_IPV6_EXT_MAX ?
				       IPPROTO_HOPOPTS : next);
		break;
	case TRAFFIC_ARP:
		frame_eth(fr, ETH_P_ARP);
		frame_arp(fr, 1, src, dst);
		break;
	default:
		return -EINVAL;
	}
	if (esp)
		frame_esp(fr, (__u32)sport << 16 | g->dport, 0);
	else if (g->family && tcp)
		frame_tcp(fr, sport, g->dport);
	else if (g->family)
		frame_udp(fr, sport, g->dport);
	frame_payload(fr, &mark, sizeof(mark));
	if (g->family && o->size > fr->len)
		frame_payload_fill(fr, o->size - fr->len, 0);
	err = frame_finish(fr);
	if (!err)
		err = frame_pad(fr, o->size > ETH_MIN_LEN ? o->size : ETH_MIN_LEN);
	if (err)
		return err;
	memcpy(fr->buf, o->dst_mac, 6);
	memcpy(fr->buf + 6, o->src_mac, 6);

	memset(gf, 0, sizeof(*gf));
	if (!g->family) {
		memcpy(fr->buf + ETH_HLEN + 8, o->src_mac, 6); /* sender MAC */
		return 0;
	}
	l3 = fr->buf + fr->l3_off;
	l4 = fr->buf + fr->l4_off;
	if (tcp)
		l4[13] = 0x10;			/* ACK: a data segment */
	/* The segment: to the datagram's end from the transport header
	 * (behind IPv6 extension headers; 2 bytes of it for l4-short). */
	if (af == AF_INET) {
		seg_len = (size_t)(l3[2] << 8 | l3[3]) - (size_t)(l4 - l3);
		memcpy(&gf->src[0], l3 + 12, 4);
		memcpy(&gf->dst[0], l3 + 16, 4);
		memcpy(&gf->ip_csum, l3 + 10, 2);
		memcpy(pseudo, l3 + 12, 8);
		pseudo[8] = 0;
		pseudo[9] = l3[9];
		pseudo[10] = (__u8)(seg_len >> 8);
		pseudo[11] = (__u8)seg_len;
		gf->l4_sum = sum_words(pseudo, 12, 0);
	} else {
		seg_len = (size_t)(l3[4] << 8 | l3[5]) + 40 - (size_t)(l4 - l3);
		memcpy(gf->src, l3 + 8, 16);
		memcpy(gf->dst, l3 + 24, 16);
		memcpy(pseudo, l3 + 8, 32);
		pseudo[32] = (__u8)(seg_len >> 24);
		pseudo[33] = (__u8)(seg_len >> 16);
		pseudo[34] = (__u8)(seg_len >> 8);
		pseudo[35] = (__u8)seg_len;
		pseudo[36] = pseudo[37] = pseudo[38] = 0;
		pseudo[39] = next;
		gf->l4_sum = sum_words(pseudo, 40, 0);
	}
	memcpy(&gf->sport, l4, 2);
	memcpy(&gf->dport, l4 + 2, 2);
	gf->l4_sum = fold16(sum_words(l4, seg_len, gf->l4_sum));
	make_bad(fr, g, gf);
	return 0;
}

static int iface_mac(const char *ifname, __u8 mac[6])
{
	struct ifreq ifr = {};
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		err = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return err;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static int parse_sender(const char *s, enum sender *out)
{
	int i;

	for (i = 0; i < (int)(sizeof(sender_names) / sizeof(sender_names[0])); i++) {
		if (!strcmp(s, sender_names[i])) {
			*out = (enum sender)i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "dst-mac", required_argument, NULL, 'd' },
		{ "src-mac", required_argument, NULL, 's' },
		{ "group", required_argument, NULL, 'g' },
		{ "rate", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 'z' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "flows-out", required_argument, NULL, 'o' },
		{ "native", no_argument, NULL, 'N' },
		{ "sender", required_argument, NULL, 'S' },
		{ "check-writer", required_argument, NULL, 'C' },
		{ "fanout", required_argument, NULL, 'F' },
		{ "check-fanout", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *env = getenv("TRAFFIC_GEN_SENDER");
	const char *fan = getenv("TRAFFIC_GEN_FANOUT");
	bool have_duration = false;
	char *end;
	__u64 v;
	int c;

	o->cpu = -1;
	o->fanout = FANOUT_DEFAULT;
	if (env && *env && parse_sender(env, &o->sender)) {
		fprintf(stderr, "traffic_gen: bad TRAFFIC_GEN_SENDER '%s' (live, "
			"fanout, socket or auto)\n", env);
		return -EINVAL;
	}
	if (fan && *fan) {
		if (parse_u64(fan, FANOUT_MAX, &v) || !v) {
			fprintf(stderr, "traffic_gen: bad TRAFFIC_GEN_FANOUT '%s' "
				"(1-%d)\n", fan, FANOUT_MAX);
			return -EINVAL;
		}
		o->fanout = (unsigned int)v;
	}
	while ((c = getopt_long(argc, argv, "vh", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->ifname = optarg;
			break;
		case 'd':
		case 's':
			if (parse_mac(optarg, c == 'd' ? o->dst_mac : o->src_mac)) {
				fprintf(stderr, "traffic_gen: bad MAC '%s'\n", optarg);
				return -EINVAL;
			}
			*(c == 'd' ? &o->have_dst_mac : &o->have_src_mac) = true;
			break;
		case 'g':
			if (parse_group(o, optarg))
				return -EINVAL;
			break;
		case 'r':
		case 't':
			errno = 0;
			*(c == 'r' ? &o->rate : &o->duration) = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    (c == 'r' ? o->rate : o->duration) < 0) {
				fprintf(stderr, "traffic_gen: bad number '%s'\n", optarg);
				return -EINVAL;
			}
			have_duration |= c == 't';
			break;
		case 'n':
		case 'z':
		case 'c':
			if (parse_u64(optarg, c == 'n' ? UINT64_MAX :
				      c == 'z' ? FRAME_MAX : CPU_SETSIZE - 1, &v)) {
				fprintf(stderr, "traffic_gen: bad number '%s'\n", optarg);
				return -EINVAL;
			}
			if (c == 'n')
				o->count = v;
			else if (c == 'z')
				o->size = (size_t)v;
			else
				o->cpu = (int)v;
			break;
		case 'o':
			o->flows_out = optarg;
			break;
		case 'N':
			o->native = true;
			break;
		case 'S':
			if (parse_sender(optarg, &o->sender)) {
				fprintf(stderr, "traffic_gen: bad --sender '%s' (live, "
					"fanout, socket or auto)\n", optarg);
				return -EINVAL;
			}
			break;
		case 'F':
			if (parse_u64(optarg, FANOUT_MAX, &v) || !v) {
				fprintf(stderr, "traffic_gen: bad --fanout '%s' "
					"(1-%d)\n", optarg, FANOUT_MAX);
				return -EINVAL;
			}
			o->fanout = (unsigned int)v;
			break;
		case 'K':
			o->check_fanout = true;
			break;
		case 'C':
			if (parse_u64(optarg, 1u << 20, &o->check_writer) ||
			    !o->check_writer) {
				fprintf(stderr, "traffic_gen: bad number '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc || !o->ifname || !o->have_dst_mac) {
		usage(stderr);
		return -EINVAL;
	}
	if (!o->count && !have_duration)
		o->duration = 1;
	if (!o->ngroups) {
		char def[] = "udp4:1000";

		parse_group(o, def);
	}
	return 0;
}

static int write_flows(const struct opts *o, const struct gen_flow *flows)
{
	FILE *out;
	__u32 f;
	int g, err = 0;

	out = fopen(o->flows_out, "w");
	if (!out) {
		err = -errno;
		fprintf(stderr, "traffic_gen: %s: %s\n", o->flows_out, strerror(errno));
		return err;
	}
	for (g = 0; g < o->ngroups; g++) {
		const struct group *gr = &o->groups[g];

		for (f = gr->first; f < gr->first + gr->nflows; f++) {
			fprintf(out, "flow %u group %d %s%s%s%s%s sent %llu\n",
				f, g, shape_names[gr->shape],
				gr->encap ? "+" : "",
				gr->encap ? steer_encap_name(gr->encap) : "",
				gr->bad ? "/" : "",
				gr->bad ? bad_kinds[gr->bad].name : "",
				(unsigned long long)flows[f].seq);
		}
	}
	if (fclose(out) && !err)
		err = -errno;
	return err;
}

/* The flows of every group into flows[] (indexed by flow id), and each
 * group's template and what the writer reads of it. 0 or a negative
 * errno, said. */
static int build_groups(struct opts *o, struct gen_flow *flows)
{
	struct frame fr;
	int g, ret;
	__u32 i;

	for (g = 0; g < o->ngroups; g++) {
		struct group *gr = &o->groups[g];

		for (i = 0; i < gr->nflows; i++) {
			ret = build_flow(o, gr, i, &fr, &flows[gr->first + i]);
			if (ret) {
				fprintf(stderr, "traffic_gen: building a frame of "
					"group %d: %s (--size too large?)\n",
					g, strerror(-ret));
				return ret;
			}
			if (!i)
				gr->tmpl = fr;
		}
		if (gr->family && (gr->tmpl.l3_off > TRAFFIC_L3_MAX ||
				   gr->tmpl.l4_off - gr->tmpl.l3_off > TRAFFIC_L4_MAX)) {
			fprintf(stderr, "traffic_gen: group %d's IP header starts past byte %d,"
				" or its transport header %d bytes after it\n",
				g, TRAFFIC_L3_MAX, TRAFFIC_L4_MAX);
			return -E2BIG;
		}
		gr->gen = (struct gen_group){
			.shape = gr->shape, .first = gr->first,
			.nflows = gr->nflows,
			.l3 = gr->family ? (__u32)gr->tmpl.l3_off : 0,
			.l4 = gr->family ?
			      (__u32)(gr->tmpl.l4_off - gr->tmpl.l3_off) : 0 };
		memcpy(gr->gen.eth, gr->tmpl.buf, sizeof(gr->gen.eth));
		gr->gen.ntags = !gr->vlan[0] ? 0 : gr->vlan[1] ? 2 : 1;
		memcpy(gr->gen.tags, gr->tmpl.buf + 12, sizeof(gr->gen.tags));
		if (gr->family)
			gr->gen.hops = gr->tmpl.buf[gr->tmpl.l3_off +
						    (gr->family == AF_INET6 ? 7 : 8)];
		/* One group sends without turns; several take turns of at
		 * least one frame per flow. */
		gr->quantum = o->ngroups == 1 ? UINT64_MAX :
			      gr->visit ? gr->visit :
			      gr->nflows * (__u64)((GROUP_QUANTUM + o->nflows - 1) /
						   o->nflows);
	}
	return 0;
}

/* The live sender with every group's writer state and the flows. */
static struct traffic_live *open_live(const struct opts *o, int ifindex,
				      int flags, const struct gen_flow *flows)
{
	struct gen_group gen[TRAFFIC_MAX_GROUPS];
	struct traffic_live *l;
	int g;

	for (g = 0; g < o->ngroups; g++)
		gen[g] = o->groups[g].gen;
	l = traffic_live_open(ifindex, o->ifname, flags, gen, o->ngroups,
			      flows, o->nflows);
	if (!l) {
		int err = errno;

		fprintf(stderr, "traffic_gen: loading the program: %s (needs root)\n",
			strerror(err));
		errno = err;
	}
	return l;
}

static void print_hex(const char *label, const __u8 *b, size_t len)
{
	size_t i;

	fprintf(stderr, "  %s:", label);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n    ", b[i]);
	fprintf(stderr, "\n");
}

/* --check-writer: the next n frames of each group as the program writes
 * them (each over the template, in a plain test run) and as userspace
 * writes them (in one buffer, over the frame before, as the socket sender
 * does), and the flows' sequence numbers after. 0 when all agree, else
 * -EPROTO with the first difference printed. */
static int check_writer(const struct opts *o, int ifindex,
			const struct gen_flow *flows)
{
	static __u8 prog_buf[FRAME_MAX], user_buf[FRAME_MAX];
	struct gen_flow *mine = NULL, *theirs = NULL;
	struct traffic_live *l;
	int g, ret = 0;
	__u64 k;
	__u32 f;

	l = open_live(o, ifindex, 0, flows);
	if (!l)
		return -errno;
	mine = calloc(o->nflows, sizeof(*mine));
	theirs = calloc(o->nflows, sizeof(*theirs));
	if (!mine || !theirs) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(mine, flows, o->nflows * sizeof(*mine));
	for (g = 0; g < o->ngroups && !ret; g++) {
		const struct group *gr = &o->groups[g];
		struct gen_group gen = gr->gen;

		memcpy(user_buf, gr->tmpl.buf, gr->tmpl.len);
		for (k = 0; k < o->check_writer; k++) {
			ret = traffic_live_write_one(l, g, gr->tmpl.buf,
						     gr->tmpl.len, prog_buf);
			if (ret) {
				fprintf(stderr, "traffic_gen: plain test run of "
					"group %d: %s\n", g, strerror(-ret));
				goto out;
			}
			f = traffic_next_flow(&gen);
			if (traffic_write(user_buf, user_buf + gr->tmpl.len, &gen,
					  &mine[f], f) ||
			    memcmp(prog_buf, user_buf, gr->tmpl.len)) {
				fprintf(stderr, "traffic_gen: frame %llu of group %d "
					"(flow %u) differs between the writers\n",
					(unsigned long long)k, g, f);
				print_hex("program", prog_buf, gr->tmpl.len);
				print_hex("userspace", user_buf, gr->tmpl.len);
				ret = -EPROTO;
				break;
			}
		}
	}
	if (ret)
		goto out;
	ret = traffic_live_read_seqs(l, theirs, o->nflows);
	for (f = 0; !ret && f < o->nflows; f++) {
		if (theirs[f].seq != mine[f].seq) {
			fprintf(stderr, "traffic_gen: flow %u's sequence number is "
				"%llu in the program, %llu in userspace\n", f,
				(unsigned long long)theirs[f].seq,
				(unsigned long long)mine[f].seq);
			ret = -EPROTO;
		}
	}
	if (!ret)
		printf("checked=%llu groups=%d same\n",
		       (unsigned long long)o->check_writer * (__u64)o->ngroups,
		       o->ngroups);
out:
	free(theirs);
	free(mine);
	traffic_live_close(l);
	return ret;
}

/* The sender in use: live, fanout or socket. */
struct sender_state {
	enum sender kind;
	bool live_ran;			/* a live run returned */
	struct traffic_live *live;	/* the program: live and fanout */
	struct traffic_fanout *fan;
	struct traffic_socket *sock;
};

static int open_socket(struct sender_state *s, const struct opts *o,
		       int ifindex)
{
	s->sock = traffic_socket_open(ifindex);
	if (!s->sock) {
		int err = -errno;

		fprintf(stderr, "traffic_gen: AF_PACKET socket on %s: %s (needs "
			"CAP_NET_RAW)\n", o->ifname, strerror(-err));
		return err;
	}
	s->kind = SENDER_SOCKET;
	return 0;
}

/* The fanout sender, over the program of a live sender opened without
 * flags (none attached to the interface: fanout sends no test runs). */
static int open_fanout(struct sender_state *s, const struct opts *o,
		       int ifindex, const struct gen_flow *flows)
{
	s->live = open_live(o, ifindex, 0, flows);
	if (!s->live)
		return -errno;
	s->fan = traffic_fanout_open(s->live, ifindex, o->fanout);
	if (!s->fan) {
		int err = -errno;

		traffic_live_close(s->live);
		s->live = NULL;
		return err;
	}
	s->kind = SENDER_FANOUT;
	return 0;
}

/* Sends 'want' frames of group 'cur'; adds those sent to *sent. Under
 * --sender auto, the first live run the kernel refuses before a frame
 * went out switches to the fanout sender, or the socket sender where
 * fanout cannot start, which sends them instead. 0, -EINTR (cut short by
 * a signal) or a negative errno, said. */
static int send_frames(struct sender_state *s, struct opts *o,
		       struct gen_flow *flows, int ifindex, int cur,
		       __u64 want, __u64 *sent)
{
	struct group *gr = &o->groups[cur];
	int ret, refused;

	if (s->kind == SENDER_LIVE) {
		ret = traffic_live_send(s->live, cur, gr->tmpl.buf,
					gr->tmpl.len, want, sent);
		if (!ret || ret == -EINTR) {
			s->live_ran = true;
			return ret;
		}
		if (o->sender != SENDER_AUTO || s->live_ran || *sent ||
		    (ret != -EPERM && ret != -EINVAL && ret != -EOPNOTSUPP)) {
			fprintf(stderr, "traffic_gen: test run: %s%s\n",
				strerror(-ret), ret == -EINVAL ?
				" (kernel without live frames, 5.18+? try "
				"--sender fanout)" : ret == -EPERM ?
				" (the kernel refuses live frames? try "
				"--sender fanout)" : "");
			return ret;
		}
		/* Nothing was sent: the flows and cursors in userspace are
		 * still where the program's are, and a program loaded anew
		 * starts from them. */
		refused = ret;
		traffic_live_close(s->live);
		s->live = NULL;
		ret = open_fanout(s, o, ifindex, flows);
		if (o->verbose)
			fprintf(stderr, "traffic_gen: the kernel refuses live "
				"frames (%s): sender: %s, from now on\n",
				strerror(-refused), ret ? "socket" : "fanout");
		if (ret)
			ret = open_socket(s, o, ifindex);
		if (ret)
			return ret;
	}
	if (s->kind == SENDER_FANOUT) {
		ret = traffic_fanout_send(s->fan, cur, gr->tmpl.buf,
					  gr->tmpl.len, want, sent);
		if (ret && ret != -EINTR)
			fprintf(stderr, "traffic_gen: sending on %s: %s\n",
				o->ifname, strerror(-ret));
		return ret;
	}
	ret = traffic_socket_send(s->sock, &gr->gen, cur, gr->tmpl.buf,
				  gr->tmpl.len, flows, want, sent);
	if (ret && ret != -EINTR)
		fprintf(stderr, "traffic_gen: sending on %s: %s\n", o->ifname,
			strerror(-ret));
	return ret;
}

int main(int argc, char **argv)
{
	struct sender_state snd = {};
	struct gen_flow *flows = NULL;
	struct opts o = {};
	__u64 sent = 0, left = 0;
	int ret, cur = 0, ifindex;
	double t0, t1, cap;

	if (parse_args(argc, argv, &o))
		return 2;	/* usage error */
	tool_libbpf_verbosity(o.verbose);

	ifindex = (int)if_nametoindex(o.ifname);
	if (!ifindex) {
		fprintf(stderr, "traffic_gen: no interface %s here (%s); run it in"
			" the interface's namespace\n", o.ifname, strerror(errno));
		return 1;
	}
	if (!o.have_src_mac && (ret = iface_mac(o.ifname, o.src_mac))) {
		fprintf(stderr, "traffic_gen: MAC of %s: %s\n", o.ifname,
			strerror(-ret));
		return 1;
	}
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "traffic_gen: CPU %d: %s\n", o.cpu,
				strerror(errno));
			return 1;
		}
	}

	flows = calloc(o.nflows, sizeof(*flows));
	if (!flows) {
		fprintf(stderr, "traffic_gen: %s\n", strerror(ENOMEM));
		return 1;
	}
	ret = build_groups(&o, flows);
	if (ret)
		goto out;
	if (o.check_writer) {
		ret = check_writer(&o, ifindex, flows);
		goto out;
	}
	if (o.check_fanout) {
		snd.live = open_live(&o, ifindex, 0, flows);
		ret = snd.live ? traffic_fanout_check(snd.live, o.groups[0].tmpl.buf,
						      o.groups[0].tmpl.len) : -errno;
		goto out;
	}
	if (o.sender == SENDER_SOCKET) {
		ret = open_socket(&snd, &o, ifindex);
		if (ret)
			goto out;
	} else if (o.sender == SENDER_FANOUT) {
		ret = open_fanout(&snd, &o, ifindex, flows);
		if (ret)
			goto out;
	} else {
		snd.kind = SENDER_LIVE;
		snd.live = open_live(&o, ifindex, LIVE_KEEP |
				     (o.native ? LIVE_NATIVE : 0), flows);
		if (!snd.live) {
			ret = -errno;
			goto out;
		}
	}

	if (o.verbose)
		fprintf(stderr, "traffic_gen: sender: %s%s\n",
			sender_names[snd.kind], o.sender == SENDER_AUTO ?
			" (--sender auto)" : "");
	tool_stop_on_signals();
	/* Paced: runs of at most 1 ms of frames, so a burst stays short. */
	cap = o.rate > 0 ? (o.rate / 1000 > 64 ? o.rate / 1000 : 64) : MAX_RUN;
	left = o.groups[0].quantum;
	t0 = now_s();
	t1 = t0;
	while (!tool_stop) {
		__u64 want = (__u64)cap;

		t1 = now_s();
		if (o.count && sent >= o.count)
			break;
		if (o.duration > 0 && t1 - t0 >= o.duration)
			break;
		if (o.rate > 0) {
			double due = o.rate * (t1 - t0) - (double)sent;
			__u64 least = 64;

			if (o.count && o.count - sent < least)
				least = o.count - sent;
			if (due < (double)least) {
				sleep_s(((double)least - due) / o.rate);
				continue;
			}
			if (due < (double)want)
				want = (__u64)due;
		}
		if (o.count && o.count - sent < want)
			want = o.count - sent;
		if (left < want)
			want = left;

		ret = send_frames(&snd, &o, flows, ifindex, cur, want, &sent);
		if (ret && ret != -EINTR)
			goto out;
		left -= want;
		if (!left) {
			cur = (cur + 1) % o.ngroups;
			left = o.groups[cur].quantum;
		}
	}
	t1 = now_s();
	ret = 0;
	printf("sent=%llu seconds=%.3f fps=%.0f sender=%s\n",
	       (unsigned long long)sent, t1 - t0,
	       t1 > t0 ? (double)sent / (t1 - t0) : 0.0, sender_names[snd.kind]);
	fflush(stdout);
	if (o.flows_out) {
		if (snd.live)
			ret = traffic_live_read_seqs(snd.live, flows, o.nflows);
		if (ret)
			fprintf(stderr, "traffic_gen: reading the flows: %s\n",
				strerror(-ret));
		else
			ret = write_flows(&o, flows);
	}
out:
	traffic_fanout_close(snd.fan);
	traffic_live_close(snd.live);
	traffic_socket_close(snd.sock);
	free(flows);
	return ret ? 1 : 0;
}
