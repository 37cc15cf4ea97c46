// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bench_encap - what looking through an encapsulation costs the receiving
 * CPU: the same inner frames (IPv4 UDP, IPv6 TCP) sent plain and inside
 * each encapsulation, under one policy (L4 key, every encapsulation looked
 * through, every bucket to one other CPU), with bpf_prog_test_run_opts
 * (repeat). A row's cost over the plain frame is the median of their
 * differences within a round, rows run back to back, as in bench_prog.
 * Also: the plain frames with nothing looked through (decap: []), which
 * must cost what they cost with everything looked through; and ESP, which
 * has no inner frame, against the same ESP frame with nothing looked
 * through (its SPI read and hashed, or not). Prints a table; asserts
 * nothing.
 *
 * --insns: no timing; each row's instructions per frame instead, counted
 * by tests/bench/insn_count.py (insns.h) after the kernel ran the row's
 * frames once each; the model's verdict must be the kernel's. The counts are the
 * same on every machine with this kernel: the budget's price per
 * instruction is the machine's (tests/bench/README.md, "Instructions per
 * frame").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <linux/bpf.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/encap.h"
#include "xdp_steer/slot.h"
#include "xdp_steer/keys.h"
#include "frame.h"
#include "prog_util.h"
#include "insns.h"

#define REPEAT		200000
#define ROUNDS		25
#define TARGET_CPU	1
#define BENCH_CPU	0
/* The budget: looking through one encapsulation, over the same
 * inner frame unencapsulated. */
#define BUDGET_NS	15

enum { INNER4, INNER6, NINNER };

/* A row: how to wrap the inner frame ('plain': none), and 'how' it runs. */
struct row {
	const char *name;
	void (*wrap)(struct frame *f, int inner_family);
	unsigned int how;
};
#define NODECAP		1	/* the slot looks through nothing */
#define KEY_VLAN	4	/* hash.key vlan, not l4 */
#define KEY_TUNNEL	8	/* hash.key tunnel, not l4 */
#define SLOT_HOW	(NODECAP | KEY_VLAN | KEY_TUNNEL)
#define OVER_ABOVE	2	/* its cost is over the row above's, not the
				 * plain inner frame's */

static void v4(struct frame *f, int inner_family)
{
	(void)inner_family;
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
		   .dst = FRAME_OUTER4_DST, .proto = IPPROTO_GRE });
}

/* A subscriber's two VLAN tags (802.1ad, 802.1Q). */
static void qinq(struct frame *f, int fam)
{
	frame_eth(f, fam == STEER_AF_INET6 ? ETH_P_IPV6 : ETH_P_IP);
	frame_vlan(f, ETH_P_8021AD, 100);
	frame_vlan(f, ETH_P_8021Q, 1000);
}

static void pppoe(struct frame *f, int fam)
{
	frame_tunnel(f, STEER_ENCAP_PPPOE, 0, fam, NULL, NULL);
}

static void mpls(struct frame *f, int fam)
{
	frame_tunnel(f, STEER_ENCAP_MPLS, 0, fam, NULL, NULL);
}

static void gre(struct frame *f, int fam)
{
	frame_tunnel(f, STEER_ENCAP_GRE, STEER_AF_INET, fam, NULL, NULL);
}

static void gre_ks(struct frame *f, int fam)
{
	v4(f, fam);
	frame_gre(f, 0x3000, fam == STEER_AF_INET6 ? ETH_P_IPV6 : ETH_P_IP);
}

static void gre6(struct frame *f, int fam)
{
	frame_tunnel(f, STEER_ENCAP_GRE, STEER_AF_INET6, fam, NULL, NULL);
}

static void gre_teb(struct frame *f, int fam)
{
	v4(f, fam);
	frame_gre(f, 0, ETH_P_TEB);
	frame_eth(f, fam == STEER_AF_INET6 ? ETH_P_IPV6 : ETH_P_IP);
}

static void ipip(struct frame *f, int fam)
{
	frame_tunnel(f, STEER_ENCAP_IPIP, STEER_AF_INET, fam, NULL, NULL);
}

static void ipip6(struct frame *f, int fam)
{
	frame_tunnel(f, STEER_ENCAP_IPIP, STEER_AF_INET6, fam, NULL, NULL);
}

static void vxlan(struct frame *f, int fam)
{
	frame_tunnel(f, STEER_ENCAP_VXLAN, STEER_AF_INET, fam, NULL, NULL);
}

static void vxlan_vlan(struct frame *f, int fam)
{
	vxlan(f, fam);
	frame_vlan(f, ETH_P_8021Q, 10);
}

static void geneve(struct frame *f, int fam)
{
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
		   .dst = FRAME_OUTER4_DST, .proto = IPPROTO_UDP });
	frame_udp(f, FRAME_TUNNEL_SPORT, 6081);
	frame_geneve(f, 0, 8, ETH_P_TEB);
	frame_eth(f, fam == STEER_AF_INET6 ? ETH_P_IPV6 : ETH_P_IP);
}

static void gtpu(struct frame *f, int fam)
{
	frame_tunnel(f, STEER_ENCAP_GTPU, STEER_AF_INET, fam, NULL, NULL);
}

static void gtpu_ext(struct frame *f, int fam)
{
	(void)fam;
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
		   .dst = FRAME_OUTER4_DST, .proto = IPPROTO_UDP });
	frame_udp(f, 2152, 2152);
	frame_gtpu(f, &(struct frame_gtpu){ .teid = 7, .nexts = 1 });
}

/* ESP has no inner frame to see: the "inner frame" is its ciphertext,
 * and its row is over the same frame with nothing looked through, whose
 * SPI is not read. */
static void esp(struct frame *f, int fam)
{
	(void)fam;
	frame_eth(f, ETH_P_IP);
	frame_ipv4(f, &(struct frame_ip4){ .src = FRAME_OUTER4_SRC,
		   .dst = FRAME_OUTER4_DST, .proto = IPPROTO_ESP });
	frame_esp(f, 0x1234, 0);
}

static const struct row rows[] = {
	{ "plain (the inner frame alone)", NULL, 0 },
	{ "plain, decap: [] (nothing looked through)", NULL, NODECAP },
	/* An id key costs at most what the L4 key costs on the same frame:
	 * each over the row above it, the same frame under l4. */
	{ "QinQ (two VLAN tags)", qinq, 0 },
	{ "QinQ, vlan key: over the row above", qinq, KEY_VLAN | OVER_ABOVE },
	{ "PPPoE", pppoe, 0 },
	{ "MPLS, 2 labels", mpls, 0 },
	{ "GRE over IPv4", gre, 0 },
	{ "GRE over IPv4, key and sequence", gre_ks, 0 },
	{ "GRE over IPv6", gre6, 0 },
	{ "GRE, Ethernet inside (0x6558)", gre_teb, 0 },
	{ "IP-in-IP over IPv4", ipip, 0 },
	{ "IP-in-IP over IPv6", ipip6, 0 },
	{ "VXLAN", vxlan, 0 },
	{ "VXLAN, tunnel key: over the row above", vxlan,
	  KEY_TUNNEL | OVER_ABOVE },
	{ "VXLAN, inner VLAN tag", vxlan_vlan, 0 },
	{ "Geneve, 8 bytes of options", geneve, 0 },
	{ "GTP-U, sequence number", gtpu, 0 },
	{ "GTP-U, tunnel key: over the row above", gtpu,
	  KEY_TUNNEL | OVER_ABOVE },
	{ "GTP-U, PDU session container", gtpu_ext, 0 },
	{ "ESP, decap: [] (its SPI not read)", esp, NODECAP },
	{ "ESP, its SPI hashed: over the row above", esp, OVER_ABOVE },
	{ "ESP, tunnel key: over the row above", esp,
	  KEY_TUNNEL | OVER_ABOVE },
};
#define NROWS	(int)(sizeof(rows) / sizeof(rows[0]))
#define ROW_PLAIN	0

/* The inner frames, as bench_prog's: IPv4 UDP and IPv6 TCP. */
static void inner(struct frame *f, int which)
{
	if (which == INNER4) {
		frame_ipv4(f, &(struct frame_ip4){ .src = "10.0.0.1",
			   .dst = "10.0.0.2", .proto = IPPROTO_UDP });
		frame_udp(f, 1234, 5678);
		frame_payload_fill(f, 64 - 14 - 20 - 8, 0);
	} else {
		frame_ipv6(f, &(struct frame_ip6){ .src = "2001:db8::1",
			   .dst = "2001:db8::2", .nexthdr = IPPROTO_TCP });
		frame_tcp(f, 1234, 443);
	}
}

static int build(struct frame *f, const struct row *r, int which)
{
	int fam = which == INNER4 ? STEER_AF_INET : STEER_AF_INET6;

	frame_init(f);
	if (r->wrap)
		r->wrap(f, fam);
	else
		frame_eth(f, which == INNER4 ? ETH_P_IP : ETH_P_IPV6);
	inner(f, which);
	return frame_finish(f);
}

/* Every bucket to TARGET_CPU; everything looked through, or nothing
 * ('how' NODECAP); the L4 key or an id key ('how' KEY_*). */
static int setup(struct steer_prog *p, unsigned int how)
{
	struct steer_slot s = { .table_size = STEER_TABLE_DEFAULT,
				.nonip_cpu = STEER_CPU_LOCAL,
				.flags = STEER_F_HASH_L4 };
	int i, err;

	for (i = 0; i < STEER_HASH_KEY_WORDS; i++)
		s.hash_key[i] = 0x9e3779b97f4a7c15ull * (i + 1);
	if (!(how & NODECAP))
		steer_slot_decap_all(&s);
	if (how & KEY_VLAN)
		s.flags |= STEER_F_KEY_VLAN;
	if (how & KEY_TUNNEL)
		s.flags |= STEER_F_KEY_TUNNEL;
	err = steer_prog_fill_table(p, 0, TARGET_CPU, s.table_size);
	if (!err)
		err = steer_prog_write_slot(p, 0, &s);
	return err ? err : steer_prog_set_active(p, 0);
}

static int cmp_u32(const void *a, const void *b)
{
	return *(const __u32 *)a < *(const __u32 *)b ? -1 :
	       *(const __u32 *)a > *(const __u32 *)b;
}

static int cmp_s32(const void *a, const void *b)
{
	return *(const __s32 *)a < *(const __s32 *)b ? -1 :
	       *(const __s32 *)a > *(const __s32 *)b;
}

static __u32 median_u32(const __u32 *v)
{
	__u32 s[ROUNDS];

	memcpy(s, v, sizeof(s));
	qsort(s, ROUNDS, sizeof(s[0]), cmp_u32);
	return s[ROUNDS / 2];
}

/* Median over rounds of a's time minus b's. */
static int median_delta(const __u32 *a, const __u32 *b)
{
	__s32 d[ROUNDS];
	int r;

	for (r = 0; r < ROUNDS; r++)
		d[r] = (__s32)a[r] - (__s32)b[r];
	qsort(d, ROUNDS, sizeof(d[0]), cmp_s32);
	return d[ROUNDS / 2];
}

/* The kernel's runs of a row's frames (insns_runs_in_one_tick()). */
struct row_runs {
	const struct steer_prog *p;
	const struct frame *f;
	int verdict[NINNER];
};

static int row_runs(void *arg)
{
	struct row_runs *r = arg;
	__u32 ns;
	int k;

	for (k = 0; k < NINNER; k++)
		if (steer_prog_run_repeat(r->p, r->f[k].buf, r->f[k].len, 1,
					  &r->verdict[k], &ns))
			return -errno;
	return 0;
}

/* --insns: the row's frames run once each by the kernel, then counted by
 * the model into counts[k][0], both in one run of the tool, on the maps
 * as the kernel left them, at the clock read right after, in the runs'
 * tick. */
static int count_row(const struct steer_prog *p, const char *tool,
		     const struct frame f[NINNER], const char *name,
		     const char *show, __u32 counts[NINNER][ROUNDS])
{
	struct row_runs r = { .p = p, .f = f };
	struct insns_frame c[NINNER];
	__u64 now = 0;
	int k, err;

	err = insns_runs_in_one_tick(row_runs, &r, &now);
	if (err) {
		fprintf(stderr, "bench_encap: test run or the datapath's clock failed: %s\n",
			strerror(-err));
		return -1;
	}
	for (k = 0; k < NINNER; k++)
		c[k] = (struct insns_frame){
			.buf = f[k].buf, .len = f[k].len, .name = name,
			.kernel_verdict = r.verdict[k],
		};
	if (insns_count_checked("bench_encap", tool, p->prog_fd, c, NINNER,
				BENCH_CPU, now, show, XDP_REDIRECT))
		return -1;
	for (k = 0; k < NINNER; k++)
		counts[k][0] = c[k].insns;
	return 0;
}

int main(int argc, char **argv)
{
	static __u32 ns[NROWS][NINNER][ROUNDS];
	static struct frame frames[NROWS][NINNER];
	const char *unit = "ns";
	struct steer_prog p;
	char obj[4096], tool[4096];
	int r, c, k, verdict, worst = 0, d, rounds = ROUNDS, insns = 0;
	const char *show = NULL, *show_row = NULL;

	if (argc >= 2 && !strcmp(argv[1], "--insns") &&
	    (argc == 2 || (argc == 4 && (!strcmp(argv[2], "--profile") ||
					 !strcmp(argv[2], "--trace"))))) {
		insns = 1;
		rounds = 1;
		unit = "insns";
		if (argc == 4) {
			show = argv[2];
			show_row = argv[3];
		}
		if (insns_tool_path("bench_encap", tool, sizeof(tool)))
			return 1;
	} else if (argc != 1) {
		fprintf(stderr, "usage: bench_encap [--insns [--profile|--trace ROW]]\n"
			"  --insns        count each row's instructions per frame instead of timing it\n"
			"                 (tests/bench/insn_count.py, its verdict checked against the kernel's)\n"
			"  --profile ROW  with --insns: ROW's instructions per source line\n"
			"  --trace ROW    with --insns: every instruction ROW runs\n");
		return 2;
	}
	for (c = 0; show_row && c < NROWS; c++)
		if (!strcmp(rows[c].name, show_row))
			break;
	if (show_row && c == NROWS) {
		fprintf(stderr, "bench_encap: %s %s: no such row (the names as the table prints them)\n",
			show, show_row);
		return 2;
	}

	if (steer_prog_find_obj(obj, sizeof(obj)) ||
	    steer_prog_open(&p, obj)) {
		fprintf(stderr, "bench_encap: cannot load %s (run as root after 'make')\n", obj);
		return 1;
	}
	if (p.ncpus <= TARGET_CPU ||
	    steer_prog_add_cpu(&p, TARGET_CPU, 256, p.worker_fd)) {
		fprintf(stderr, "bench_encap: needs CPU %d in the cpumap\n", TARGET_CPU);
		return 1;
	}
	steer_pin_cpu(BENCH_CPU);
	for (c = 0; c < NROWS; c++)
		for (k = 0; k < NINNER; k++)
			if (build(&frames[c][k], &rows[c], k)) {
				fprintf(stderr, "bench_encap: building '%s' failed\n", rows[c].name);
				return 1;
			}

	for (r = 0; r < rounds; r++) {
		for (c = 0; c < NROWS; c++) {
			/* The slot changes only around the decap: [] and
			 * id key rows. */
			if ((!c || (rows[c].how ^ rows[c - 1].how) & SLOT_HOW) &&
			    setup(&p, rows[c].how & SLOT_HOW)) {
				fprintf(stderr, "bench_encap: setting up '%s' failed\n", rows[c].name);
				return 1;
			}
			if (insns) {
				if (count_row(&p, tool, frames[c], rows[c].name,
					      show_row &&
					      !strcmp(rows[c].name, show_row) ?
					      show : NULL, ns[c]))
					return 1;
				continue;
			}
			for (k = 0; k < NINNER; k++) {
				if (steer_prog_run_repeat(&p, frames[c][k].buf,
							  frames[c][k].len, REPEAT,
							  &verdict, &ns[c][k][r])) {
					fprintf(stderr, "bench_encap: test run failed: %s\n", strerror(errno));
					return 1;
				}
				if (verdict != XDP_REDIRECT) {
					fprintf(stderr, "bench_encap: '%s' returned verdict %d\n", rows[c].name, verdict);
					return 1;
				}
			}
		}
	}

	if (insns)
		printf("Looking through encapsulations: instructions per frame on the receiving CPU, each row's verified program run once in a model (tests/bench/insn_count.py), its verdict the kernel's; CPU %d, target CPU %d\n",
		       BENCH_CPU, TARGET_CPU);
	else
		printf("Looking through encapsulations: bpf_prog_test_run_opts, %d runs x %d rounds, median; CPU %d, target CPU %d\n",
		       REPEAT, ROUNDS, BENCH_CPU, TARGET_CPU);
	printf("every encapsulation looked through (the default decap), L4 key, no rules; over: the row minus the plain inner frame\n\n");
	printf("%-44s %21s %21s\n", "inner frame inside", "IPv4 UDP",
	       "IPv6 TCP");
	printf("%-44s %9s %5s %5s %9s %5s\n", "", unit, "over", "", unit,
	       "over");
	for (c = 0; c < NROWS; c++) {
		printf("%-44s", rows[c].name);
		for (k = 0; k < NINNER; k++) {
			const __u32 *base = ns[rows[c].how & OVER_ABOVE ?
					       c - 1 : ROW_PLAIN][k];

			d = insns ? (int)ns[c][k][0] - (int)base[0] :
				    median_delta(ns[c][k], base);
			if (c != ROW_PLAIN && !(rows[c].how & NODECAP) &&
			    d > worst)
				worst = d;
			printf(" %9u %+5d %-5s",
			       insns ? ns[c][k][0] : median_u32(ns[c][k]),
			       c == ROW_PLAIN ? 0 : d, unit);
		}
		printf("\n");
	}
	if (insns)
		printf("\nworst encapsulation over its plain inner frame: %+d insns (budget %d ns)\n",
		       worst, BUDGET_NS);
	else
		printf("\nworst encapsulation over its plain inner frame: %+d ns (budget %d)\n",
		       worst, BUDGET_NS);
	steer_prog_close(&p);
	return 0;
}
