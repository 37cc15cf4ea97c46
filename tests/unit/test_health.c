// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the warnings of `xdp-steer status` (loader/health.c), one
 * table row per case: description, the machine and policy as plain data,
 * the warnings expected in order (a substring of each) or none. Then
 * netdev_irq_cpus() (loader/kernel/netdev.c) on a fake procfs tree in a
 * temp dir, one row per driver naming scheme.
 */
#define _GNU_SOURCE /* nftw() */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xdp_steer/sizes.h"
#include "xdp_steer/slot.h"
#include "model/health.h"
#include "kernel/netdev.h"
#include "test.h"

#define IFNAME "eth2"
/* A field set to this could not be read (the pointer passed is NULL). */
#define UNREADABLE "unreadable"

/* Zero fields and NULL strings are those of a healthy setup (see
 * row_input()), so a row states only what differs. */
struct health_case {
	const char *desc;
	bool no_iface;		/* the interface is not in the namespace */
	bool detached;		/* no xdp_steer program on it */
	bool foreign_maps;	/* a program that does not use the pins */
	int nsteer;		/* xdp_steer programs in the dispatcher;
				 * 0: 1 */
	bool no_policy;		/* active slot empty (table_size 0) */
	__u32 queue_size;	/* 0: 2048 */
	const char *workers;	/* CPUs owning buckets; NULL: "2-5" */
	const char *online;	/* NULL: "0-7" */
	const char *irq;	/* NULL: "0-1" */
	const char *driver;	/* NULL: "ixgbe" */
	int mtu;		/* 0: 1500 */
	bool lro;
	bool ntuple_off;	/* ixgbe's ATR on */
	int possible;		/* possible CPUs; 0: 8 */
	const char *release;	/* uname -r; NULL: "6.1.0-26-amd64" */
	bool fallback;		/* default workers fell back to every CPU */
	int idle_entries;	/* cpumap entries nothing needs */
	const char *misplaced;	/* workers whose kthread may run elsewhere;
				 * NULL: none */
	bool rxvlan;		/* rx-vlan-offload on */
	__u32 key;		/* STEER_F_KEY_* of the policy's hash.key */
	const char *node;	/* "N:LIST": the NIC's NUMA node and its CPUs;
				 * NULL: no node */
	bool cpus_default;	/* the policy has no 'cpus' */
	__u32 online_beyond;	/* online CPUs with ids past STEER_CPU_IDS */
	const __u32 *rx_no_slot;	/* receiving CPUs without a slot */
	size_t nrx_no_slot;
	__u32 rx_slots;
	const char *want[9];	/* a substring of each warning, in order */
};

static const struct health_case cases[] = {
	{ .desc = "a healthy ixgbe setup gives no warning" },
	{ .desc = "a healthy veth setup gives no warning", .driver = "veth", .irq = "" },
	/* ---- NUMA: workers off the NIC's node ---- */
	{ .desc = "workers all on the NIC's node give no warning",
	  .node = "1:0-7" },
	{ .desc = "workers on a node the NIC is not on are warned of, naming the node's CPUs",
	  .node = "1:4-7",
	  .want = { "worker CPUs 2-3 are not on NUMA node 1, where eth2 is: every frame steered to them crosses nodes; set 'cpus' to CPUs of node 1 (4-7), or leave it unset to default to them" } },
	{ .desc = "workers on node 0 of a NIC on node 0 of two give no warning",
	  .node = "0:0-5" },
	/* ---- receiver slots (struct steer_rx_pool) and CPU ids past the
	 * design's limit (STEER_CPU_IDS, 1024) ---- */
	{ .desc = "a receiving CPU without a receiver slot is warned of: its buckets stay on their workers, and what to do",
	  .rx_no_slot = (const __u32[]){ 263 }, .nrx_no_slot = 1, .rx_slots = 256,
	  .want = { "CPUs 263 received eth2's frames but found all 256 of its receiver slots taken: with no row for drain records and loads there, the frames of the table received there are passed there, whatever an apply or the balancer says (stats: no_rx_slot); a slot goes to another CPU only once its CPU has received nothing for the slot's lease (100 drain timeouts, 10 s at least): keep eth2's interrupts (and its NAPI threads) on at most 256 CPUs at a time, or raise the slots (up to 256) with attach's --rx-slots: 'xdp-steer detach eth2' and attach it again (an upgrade in place from a version before receiver slots gives slot n to CPU n, none to CPUs of id 256 or more; detach and attach hands them out densely)" } },
	{ .desc = "several receiving CPUs without a slot are named as ranges, with the limit in force",
	  .rx_no_slot = (const __u32[]){ 1, 256, 257, 258, 1000 }, .nrx_no_slot = 5, .rx_slots = 1,
	  .want = { "CPUs 1,256-258,1000 received eth2's frames but found all 1 of its receiver slots taken" } },
	{ .desc = "the default 'cpus' with online CPUs past the limit says how many it leaves out",
	  .cpus_default = true, .online_beyond = 8,
	  .want = { "the default 'cpus' leaves out 8 online CPUs with ids of 1024 or more: xdp-steer steers to CPUs below 1024 only; name the workers with 'cpus' to choose which work" } },
	{ .desc = "a policy naming its 'cpus' is not warned of online CPUs past the limit",
	  .online_beyond = 8 },
	{ .desc = "the default 'cpus' on a machine within the limit gives no warning",
	  .cpus_default = true },
	/* ---- hash.key vlan and the NIC's VLAN offload ---- */
	{ .desc = "key vlan with rx-vlan-offload on warns, naming the ethtool command",
	  .key = STEER_F_KEY_VLAN, .rxvlan = true, .driver = "veth", .irq = "",
	  .want = { "hash.key is vlan, but rx-vlan-offload is on: the NIC takes the outer VLAN tag off before XDP sees the frame, so frames hash on the tags left in them, or as l4 without one; 'ethtool -K eth2 rxvlan off'" } },
	{ .desc = "key vlan with rx-vlan-offload off gives no warning",
	  .key = STEER_F_KEY_VLAN, .driver = "veth", .irq = "" },
	{ .desc = "rx-vlan-offload on under another key gives no warning",
	  .key = STEER_F_KEY_TUNNEL, .rxvlan = true, .driver = "veth", .irq = "" },
	/* ---- queue_size ---- */
	{ .desc = "queue_size 256 gives no warning", .queue_size = 256 },
	{ .desc = "queue_size 255 warns that it is small", .queue_size = 255,
	  .want = { "queue_size 255 is small: a worker that is briefly descheduled drops frames; 2048 is the default" } },
	{ .desc = "queue_size 16 warns that it is small", .queue_size = 16,
	  .want = { "queue_size 16 is small" } },
	{ .desc = "without a policy only the missing policy is reported, not its queue",
	  .no_policy = true, .queue_size = 16, .workers = "",
	  .want = { "no policy applied: every frame passes on the receiving CPU; 'xdp-steer apply eth2 --policy POLICY'" } },
	/* ---- cpumap entries left over ---- */
	{ .desc = "a cpumap entry nothing needs or drains from warns, with the cure",
	  .idle_entries = 1,
	  .want = { "1 cpumap entry that the policy in force does not need and no bucket drains from (the drain line lists them): an apply was interrupted, or drains outlasted its wait; apply the policy again to remove them" } },
	{ .desc = "several are counted", .idle_entries = 3,
	  .want = { "3 cpumap entries that the policy in force does not need" } },
	{ .desc = "without a policy, left-over entries are not what to fix first",
	  .no_policy = true, .idle_entries = 2, .workers = "",
	  .want = { "no policy applied" } },
	/* ---- ixgbe's limits ---- */
	{ .desc = "ixgbe with MTU 3050 gives no warning", .mtu = 3050 },
	{ .desc = "ixgbe with MTU 3051 warns of its XDP limit", .mtu = 3051,
	  .want = { "MTU 3051: ixgbe refuses XDP above 3050" } },
	{ .desc = "a veth with MTU 9000 gives no warning", .driver = "veth", .mtu = 9000, .irq = "" },
	{ .desc = "another driver with MTU 9000 gives no warning", .driver = "i40e", .mtu = 9000 },
	{ .desc = "ixgbe with LRO on warns and says how to turn it off", .lro = true,
	  .want = { "LRO is on: ixgbe refuses XDP with LRO (RSC); 'ethtool -K eth2 lro off'" } },
	{ .desc = "a veth with LRO on gives no warning", .driver = "veth", .lro = true },
	{ .desc = "ixgbe with MTU 9000 and LRO on gives both warnings", .mtu = 9000, .lro = true,
	  .want = { "MTU 9000: ixgbe refuses", "LRO is on" } },
	{ .desc = "an unreadable driver gives no driver warning", .driver = UNREADABLE, .mtu = 9000, .lro = true },
	{ .desc = "ixgbe with ntuple off warns that ATR moves TCP flows between queues", .ntuple_off = true,
	  .want = { "ntuple is off, so ixgbe's Flow Director ATR moves TCP flows between RX queues as their senders move: 'ethtool -K eth2 ntuple on' turns ATR off" } },
	/* ---- igb's limit (measured in the VM: 3046 attaches, 3047 not) ---- */
	{ .desc = "igb with MTU 3046 gives no warning", .driver = "igb", .mtu = 3046 },
	{ .desc = "igb with MTU 3047 warns of its XDP limit", .driver = "igb", .mtu = 3047,
	  .want = { "MTU 3047: igb refuses native XDP above 3046" } },
	{ .desc = "another driver with ntuple off gives no ATR warning", .driver = "i40e", .ntuple_off = true },
	{ .desc = "ixgbe with 128 possible CPUs gives no warning", .possible = 128 },
	{ .desc = "ixgbe with 129 possible CPUs warns that native XDP is refused", .possible = 129,
	  .want = { "129 CPUs are possible: ixgbe on Linux 6.1.0-26-amd64 refuses native XDP with more than 128; boot with nr_cpus=128" } },
	{ .desc = "ixgbe before Linux 5.18 takes 64 possible CPUs", .possible = 64,
	  .release = "5.10.0-33-amd64" },
	{ .desc = "ixgbe before Linux 5.18 with 65 possible CPUs warns, with that kernel's limit",
	  .possible = 65, .release = "5.10.0-33-amd64",
	  .want = { "65 CPUs are possible: ixgbe on Linux 5.10.0-33-amd64 refuses native XDP with more than 64 (128 from Linux 5.18); boot with nr_cpus=64" } },
	{ .desc = "ixgbe on Linux 5.18 takes 128", .possible = 128, .release = "5.18.0" },
	{ .desc = "an unreadable kernel release is taken for the lower limit",
	  .possible = 65, .release = "?",
	  .want = { "ixgbe on Linux ? refuses native XDP with more than 64" } },
	{ .desc = "another driver with 4096 possible CPUs gives no warning", .driver = "mlx5_core", .possible = 4096 },
	/* ---- offline workers ---- */
	{ .desc = "offline worker CPUs are named, with where their frames really go and the cure",
	  .online = "0-3",
	  .want = { "worker CPUs 4-5 are offline: the kernel runs their cpumap kthreads on other CPUs, where their flows now reach the stack, and leaves them there when the CPUs come back; bring them online and run 'xdp-steer repair eth2', or apply a policy without them" } },
	{ .desc = "offline workers never say their frames wait (the kthread runs elsewhere)",
	  .online = "0-3", .misplaced = "4",
	  .want = { "the kernel runs their cpumap kthreads on other CPUs" } },
	/* ---- kthreads off their CPU ---- */
	{ .desc = "a worker whose kthread may run on other CPUs is named, with what to run",
	  .misplaced = "3",
	  .want = { "the cpumap kthreads of worker CPUs 3 may run on other CPUs too (their CPUs went offline and came back): their flows can reach the stack on two CPUs, out of order; 'xdp-steer repair eth2' (or any apply) puts new ones on their CPUs" } },
	{ .desc = "several such workers are named in list form", .misplaced = "2-3,5",
	  .want = { "worker CPUs 2-3,5 may run on other CPUs too" } },
	{ .desc = "an offline worker's kthread is left to the offline warning",
	  .online = "0-4", .misplaced = "5",
	  .want = { "worker CPUs 5 are offline" } },
	{ .desc = "an offline and an online misplaced worker give one warning each",
	  .online = "0-4", .misplaced = "3,5",
	  .want = { "worker CPUs 5 are offline", "the cpumap kthreads of worker CPUs 3 may run" } },
	{ .desc = "a misplaced kthread is named also when the online CPUs are unknown",
	  .online = UNREADABLE, .misplaced = "4",
	  .want = { "the cpumap kthreads of worker CPUs 4 may run" } },
	{ .desc = "unknown kthreads give no kthread warning", .misplaced = UNREADABLE },
	{ .desc = "a single offline worker in the middle is named", .online = "0-2,4-7",
	  .want = { "worker CPUs 3 are offline" } },
	{ .desc = "CPU 255, the cpumap's last, offline is named", .workers = "250-255", .online = "0-254",
	  .want = { "worker CPUs 255 are offline" } },
	{ .desc = "offline CPUs that are not workers give no warning", .online = "0-5" },
	{ .desc = "all 256 CPUs online and working gives no warning", .workers = "2-255", .online = "0-255" },
	{ .desc = "unreadable online CPUs give no offline warning", .online = UNREADABLE, .workers = "2-100" },
	/* ---- RX interrupts on workers ---- */
	{ .desc = "workers taking RX interrupts are named exactly, in list form",
	  .workers = "1-7", .irq = "0,2-3,5,9",
	  .want = { "worker CPUs 2-3,5 also take eth2's RX interrupts: they both collect and process; leave them out of 'cpus'" } },
	{ .desc = "one worker taking RX interrupts is named", .irq = "0-2",
	  .want = { "worker CPUs 2 also take eth2's RX interrupts" } },
	{ .desc = "RX interrupts on CPUs that are not workers give no warning", .irq = "0-1,6-7" },
	{ .desc = "an interface without IRQs gives no interrupt warning", .irq = "", .driver = "veth" },
	{ .desc = "unreadable interrupts give no interrupt warning", .irq = UNREADABLE },
	{ .desc = "default workers that fell back to every CPU say so, instead of naming them",
	  .fallback = true, .workers = "0-7", .irq = "0-7",
	  .want = { "'cpus' is not set and every online CPU takes eth2's RX interrupts, so every CPU works" } },
	/* ---- the program and the interface ---- */
	{ .desc = "pins without a program warn and say how to clean up", .detached = true,
	  .want = { "maps are pinned but no xdp_steer program is attached: nothing steers; 'xdp-steer detach eth2' cleans up" } },
	{ .desc = "a program that does not use the pins warns", .foreign_maps = true,
	  .want = { "the attached xdp_steer program does not use the pinned maps: policy changes have no effect; detach and attach again" } },
	{ .desc = "two xdp_steer in the dispatcher (an upgrade killed between its swaps) are warned of, with attach as the way out, not detach",
	  .nsteer = 2,
	  .want = { "2 xdp_steer programs run in libxdp's dispatcher: an upgrade in place was killed between its two swaps; they steer as one, frames the first passes counted twice; the next 'xdp-steer attach eth2 --policy POLICY' finishes the upgrade" } },
	{ .desc = "a vanished interface warns and says how to remove its pins",
	  .no_iface = true, .detached = true, .driver = UNREADABLE, .irq = "",
	  .want = { "no interface eth2 in this network namespace (it was deleted): nothing steers; 'xdp-steer detach eth2' removes the pins" } },
	{ .desc = "a program detached with no policy gives both warnings",
	  .detached = true, .no_policy = true, .workers = "",
	  .want = { "no xdp_steer program is attached", "no policy applied" } },
	{ .desc = "everything wrong at once gives every warning, in a fixed order",
	  .foreign_maps = true, .queue_size = 64, .workers = "0-9", .online = "0-7",
	  .irq = "0-1", .mtu = 9000, .lro = true, .ntuple_off = true, .possible = 256,
	  .misplaced = "7",
	  .want = { "does not use the pinned maps", "worker CPUs 8-9 are offline",
		    "worker CPUs 7 may run on other CPUs",
		    "worker CPUs 0-1 also take eth2's RX", "queue_size 64 is small",
		    "MTU 9000", "LRO is on", "ntuple is off", "256 CPUs are possible" } },
};

/* What a row describes, as health_check() takes it. */
struct row_input {
	struct health_input in;
	__u32 buckets[STEER_CPU_IDS];
	struct cpu_set online, irq, misplaced, node;
	struct netdev_info ni;
};

static int parse_or_default(struct cpu_set *s, const char *list,
			    const char *dflt)
{
	return cpuset_parse(s, list ? list : dflt);
}

static int row_input(const struct health_case *c, struct row_input *r)
{
	struct cpu_set workers;
	__u32 cpu;

	memset(r, 0, sizeof(*r));
	if (parse_or_default(&workers, c->workers, "2-5"))
		return -EINVAL;
	for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
		r->buckets[cpu] = cpuset_has(&workers, cpu) ? 8 : 0;
	r->in = (struct health_input) {
		.ifname = IFNAME,
		.if_exists = !c->no_iface,
		.attached = !c->detached,
		.uses_pins = !c->foreign_maps,
		.nsteer = c->nsteer ? c->nsteer : 1,
		.table_size = c->no_policy ? 0 : 512,
		.queue_size = c->queue_size ?: 2048,
		.loader_flags = (c->fallback ? STEER_LF_CPUS_FALLBACK : 0) |
				(c->cpus_default ? STEER_LF_CPUS_DEFAULT : 0),
		.buckets = r->buckets,
		.possible_cpus = c->possible ?: 8,
		.release = c->release ?: "6.1.0-26-amd64",
		.idle_entries = c->idle_entries,
		.slot_flags = STEER_F_HASH_L4 | c->key,
		.online_beyond = c->online_beyond,
		.rx_no_slot = c->rx_no_slot,
		.nrx_no_slot = c->nrx_no_slot,
		.rx_slots = c->rx_slots,
	};
	if (!c->online || strcmp(c->online, UNREADABLE)) {
		if (parse_or_default(&r->online, c->online, "0-7"))
			return -EINVAL;
		r->in.online = &r->online;
	}
	if (c->node) {
		r->in.nic_node = atoi(c->node);
		if (cpuset_parse(&r->node, strchr(c->node, ':') + 1))
			return -EINVAL;
		r->in.nic_node_cpus = &r->node;
	}
	if (c->misplaced && strcmp(c->misplaced, UNREADABLE)) {
		if (cpuset_parse(&r->misplaced, c->misplaced))
			return -EINVAL;
		r->in.misplaced = &r->misplaced;
	}
	if (!c->irq || strcmp(c->irq, UNREADABLE)) {
		if (parse_or_default(&r->irq, c->irq, "0-1"))
			return -EINVAL;
		r->in.irq = &r->irq;
	}
	if (!c->driver || strcmp(c->driver, UNREADABLE)) {
		snprintf(r->ni.driver, sizeof(r->ni.driver), "%s",
			 c->driver ? c->driver : "ixgbe");
		r->ni.mtu = c->mtu ?: 1500;
		r->ni.lro = c->lro;
		r->ni.ntuple = !c->ntuple_off;
		r->ni.rxvlan = c->rxvlan;
		r->ni.features_known = true;
		r->in.netdev = &r->ni;
	}
	return 0;
}

static const struct health_case *cur;

static void run_case(void)
{
	const struct health_case *c = cur;
	struct row_input r;
	struct health h = {};
	int i, nwant = 0;

	if (!EXPECT(!row_input(c, &r), "the row's CPU lists parse"))
		return;
	while (nwant < (int)ARRAY_SIZE(c->want) && c->want[nwant])
		nwant++;
	EXPECT_EQ(health_check(&r.in, &h), 0, "the check succeeds");
	EXPECT_EQ(h.n, nwant, "exactly the expected number of warnings is given");
	for (i = 0; i < nwant && i < h.n; i++)
		if (!EXPECT(strstr(h.msg[i], c->want[i]), "each warning says what the row expects, in order"))
			printf("  warning %d should contain \"%s\"\n", i, c->want[i]);
	if (test_failed)
		for (i = 0; i < h.n; i++)
			printf("  got warning: %s\n", h.msg[i]);
	health_free(&h);
}

static void test_bad_input_is_refused(void)
{
	static const __u32 buckets[STEER_CPU_IDS];
	struct health_input in = { .ifname = IFNAME, .buckets = buckets };
	struct health h = {};

	in.ifname = NULL;
	EXPECT_EQ(health_check(&in, &h), -EINVAL, "a missing interface name is refused with -EINVAL");
	in.ifname = IFNAME;
	in.buckets = NULL;
	EXPECT_EQ(health_check(&in, &h), -EINVAL, "missing bucket counts are refused with -EINVAL");
}

static void test_list_is_emptied_first(void)
{
	struct row_input r;
	struct health h = {};

	row_input(&(struct health_case){ .detached = true, .lro = true }, &r);
	health_check(&r.in, &h);
	EXPECT_EQ(h.n, 2, "a first check gives its two warnings");
	row_input(&(struct health_case){ .desc = "healthy" }, &r);
	EXPECT_EQ(health_check(&r.in, &h), 0, "a second check succeeds");
	EXPECT_EQ(h.n, 0, "the second check does not keep the first one's warnings");
	health_free(&h);
}

/* ---- netdev_irq_cpus() on a fake procfs ------------------------------------ */

/* Interrupts of several drivers, named as each names them, and IRQs of
 * other devices. ixgbe's eth2 has four queue vectors and a link vector
 * named just "eth2"; eth20's names start with "eth2"; i40e, ice and mlx5
 * name vectors with the driver or the PCI address. */
static const char interrupts[] =
	"            CPU0       CPU1       CPU2       CPU3\n"
	"   0:         22          0          0          0   IO-APIC   2-edge      timer\n"
	"  24:          0          0          0          0  PCI-MSI-0000:00:03.0   0-edge      virtio0-config\n"
	"  40:       1234          0          0          0  IR-PCI-MSIX-0000:03:00.0    0-edge      eth2-TxRx-0\n"
	"  41:          0       1234          0          0  IR-PCI-MSIX-0000:03:00.0    1-edge      eth2-TxRx-1\n"
	"  42:          0          0       1234          0  IR-PCI-MSIX-0000:03:00.0    2-edge      eth2-TxRx-2\n"
	"  43:          0          0          0       1234  IR-PCI-MSIX-0000:03:00.0    3-edge      eth2-TxRx-3\n"
	"  44:          1          0          0          0  IR-PCI-MSIX-0000:03:00.0    4-edge      eth2\n"
	"  50:        999          0          0          0  IR-PCI-MSIX-0000:03:00.1    0-edge      eth20-TxRx-0\n"
	"  51:          0          0          0          0  IR-PCI-MSIX-0000:03:00.1    1-edge      eth20\n"
	"  52:          0          0          0          0  IR-PCI-MSIX-0000:03:00.1    2-edge      eth20-tx-1\n"
	"  60:          5          0          0          0  IR-PCI-MSIX-0000:05:00.0    0-edge      i40e-0000:05:00.0:misc\n"
	"  61:          0          5          0          0  IR-PCI-MSIX-0000:05:00.0    1-edge      i40e-ens1f0-TxRx-0\n"
	"  62:          0          0          5          0  IR-PCI-MSIX-0000:05:00.0    2-edge      i40e-ens1f0-TxRx-1\n"
	"  70:          5          0          0          0  IR-PCI-MSIX-0000:06:00.0    0-edge      ice-0000:06:00.0:misc\n"
	"  71:          0          0          0          5  IR-PCI-MSIX-0000:06:00.0    1-edge      ice-ens2-TxRx-0\n"
	"  80:          5          0          0          0  IR-PCI-MSIX-0000:07:00.0    0-edge      mlx5_async0@pci:0000:07:00.0\n"
	"  81:          0          5          0          0  IR-PCI-MSIX-0000:07:00.0    1-edge      mlx5_comp0@pci:0000:07:00.0\n"
	"  82:          0          0          5          0  IR-PCI-MSIX-0000:07:00.0    2-edge      mlx5_comp1@pci:0000:07:00.0\n"
	"  83:          0          0          0          5  IR-PCI-MSIX-0000:07:00.1    0-edge      mlx5_comp0@pci:0000:07:00.1\n"
	"  90:          0          0          0          5  IR-PCI-MSIX-0000:08:00.0    0-edge      enp8s0-rx-0, enp8s0-tx-0\n"
	" NMI:          0          0          0          0   Non-maskable interrupts\n"
	" LOC:      12345      12345      12345      12345   Local timer interrupts\n"
	" ERR:          0\n";

/* IRQ, effective_affinity_list, smp_affinity_list; NULL: no such file. */
static const struct {
	unsigned int irq;
	const char *effective, *requested;
} affinity[] = {
	{ 0, "0\n", "0-15\n" },
	{ 24, "1\n", "0-15\n" },
	{ 40, "4\n", "0-15\n" },	/* effective wins */
	{ 41, "5\n", "5\n" },
	{ 42, "6-7\n", "6-7\n" },	/* a range */
	{ 43, NULL, "10-11,13\n" },	/* no effective: the requested one */
	{ 44, "0\n", "0-15\n" },	/* the link IRQ */
	{ 50, "20\n", "20\n" },
	/* 51: neither file (an IRQ without affinity is skipped) */
	{ 52, "21\n", "21\n" },
	{ 60, "30\n", "30\n" }, { 61, "31\n", "31\n" }, { 62, "32\n", "32\n" },
	{ 70, "40\n", "40\n" }, { 71, "41\n", "41\n" },
	{ 80, "50\n", "50\n" }, { 81, "51\n", "51\n" }, { 82, "52\n", "52\n" },
	{ 83, "53\n", "53\n" },
	{ 90, "60\n", "60\n" },
};

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void fake_proc_remove(const char *root)
{
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Makes the fake tree in a new temp dir named in 'root', with 'text' as
 * its interrupts file (NULL: none). Returns 0 or a negative errno. */
static int fake_proc_make(char *root, size_t len, const char *text)
{
	char dir[512];
	unsigned int i;
	int err = 0;

	snprintf(root, len, "%s/xdp-steer-proc.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(root))
		return -errno;
	if (text)
		err = write_file(root, "interrupts", text);
	snprintf(dir, sizeof(dir), "%s/irq", root);
	if (!err && mkdir(dir, 0755))
		err = -errno;
	for (i = 0; !err && i < ARRAY_SIZE(affinity); i++) {
		snprintf(dir, sizeof(dir), "%s/irq/%u", root, affinity[i].irq);
		if (mkdir(dir, 0755))
			err = -errno;
		if (!err && affinity[i].effective)
			err = write_file(dir, "effective_affinity_list", affinity[i].effective);
		if (!err && affinity[i].requested)
			err = write_file(dir, "smp_affinity_list", affinity[i].requested);
	}
	if (err)
		fake_proc_remove(root);
	return err;
}

/* The CPUs netdev_irq_cpus() finds for 'ifname' of 'driver' (NULL: not
 * known) at 'bus', in list form, or the error; 'text' is the interrupts
 * file (NULL: none). */
static int irq_cpus_of(const char *ifname, const char *driver,
		       const char *bus, const char *text, char *list,
		       size_t len)
{
	struct netdev_info ni = {};
	char root[256];
	struct cpu_set cpus;
	int err;

	list[0] = '\0';
	snprintf(ni.driver, sizeof(ni.driver), "%s", driver ?: "");
	snprintf(ni.bus_info, sizeof(ni.bus_info), "%s", bus ?: "");
	err = fake_proc_make(root, sizeof(root), text);
	if (!EXPECT_EQ(err, 0, "the fake procfs tree is made in a temp dir"))
		return err;
	err = netdev_irq_cpus(ifname, driver ? &ni : NULL, root, &cpus);
	if (!err)
		cpuset_format(&cpus, list, len);
	fake_proc_remove(root);
	EXPECT(access(root, F_OK) && errno == ENOENT, "the fake procfs tree is removed");
	return err;
}

/* One row per naming scheme: which CPUs an interface's RX vectors use. */
static const struct {
	const char *desc, *ifname, *driver, *bus, *want;
} irq_cases[] = {
	{ "ixgbe: the queue vectors' CPUs, ranges included, not the link vector's (eth2) nor eth20's",
	  "eth2", "ixgbe", "0000:03:00.0", "4-7,10-11,13" },
	{ "igb names vectors like ixgbe", "eth2", "igb", "0000:03:00.0", "4-7,10-11,13" },
	{ "ixgbe: an interface whose name extends another's gets its own vectors only, not TX-only ones",
	  "eth20", "ixgbe", "0000:03:00.1", "20" },
	{ "a prefix of an interface name matches no vector", "eth", "ixgbe", "", "" },
	{ "a word inside a vector name is not an interface name", "TxRx", "ixgbe", "", "" },
	{ "i40e: i40e-IFACE-TxRx-N, not the misc vector", "ens1f0", "i40e", "0000:05:00.0", "31-32" },
	{ "ice: ice-IFACE-TxRx-N, not the misc vector", "ens2", "ice", "0000:06:00.0", "41" },
	{ "mlx5: completion vectors of the interface's PCI function, not async ones nor the other port's",
	  "enp7s0f0np0", "mlx5_core", "0000:07:00.0", "51-52" },
	{ "mlx5 without a PCI address matches nothing", "enp7s0f0np0", "mlx5_core", "", "" },
	{ "an unknown driver: IFACE-rx-N in a shared action list, not IFACE-tx-N alone",
	  "enp8s0", "r8169", "", "60" },
	{ "an unknown driver: ixgbe-style names match, the link vector does not",
	  "eth2", NULL, NULL, "4-7,10-11,13" },
	{ "a veth has no vectors: the empty set, no error", "veth0", "veth", "", "" },
};

static void test_irq_naming_table(void)
{
	char list[CPUSET_STR_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(irq_cases); i++) {
		if (!EXPECT_EQ(irq_cpus_of(irq_cases[i].ifname, irq_cases[i].driver,
					   irq_cases[i].bus, interrupts, list,
					   sizeof(list)),
			       0, "reading the fake /proc succeeds"))
			continue;
		EXPECT_STR(list, irq_cases[i].want, irq_cases[i].desc);
	}
}

static void test_irq_cpus_without_interrupts_file(void)
{
	char list[CPUSET_STR_MAX];

	EXPECT_EQ(irq_cpus_of("eth2", "ixgbe", "", NULL, list, sizeof(list)),
		  -ENOENT, "a missing interrupts file gives -ENOENT");
}

/* 'interrupts' as a machine with 'ncpus' possible CPUs shows it: the
 * counters of the CPUs past the four (a value of 40, like an IRQ number
 * of eth2's) go between each line's own and its chip; caller frees. */
static char *wide_interrupts(unsigned int ncpus)
{
	const char *line = interrupts, *nl, *chip;
	size_t cap = strlen(interrupts) + ncpus * 11 * 32, n = 0;
	char *out = malloc(cap);
	unsigned int c;

	if (!out)
		return NULL;
	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		/* After the fourth counter: the header's "CPU3", an IRQ's. */
		chip = strstr(line, "CPU3") ? strstr(line, "CPU3") + 4 :
			line + 5 + 4 * 11;
		if (chip > nl)
			chip = nl;
		n += snprintf(out + n, cap - n, "%.*s", (int)(chip - line), line);
		for (c = 4; c < ncpus && chip < nl; c++)
			n += snprintf(out + n, cap - n, strstr(line, "CPU3") ?
				      " %9s%u" : " %10s", strstr(line, "CPU3") ?
				      "CPU" : "40", c);
		n += snprintf(out + n, cap - n, "%.*s\n", (int)(nl - chip), chip);
	}
	return out;
}

static void test_irq_cpus_lines_of_many_cpus(void)
{
	char list[CPUSET_STR_MAX], *text = wide_interrupts(512);

	if (!EXPECT(text && strlen(text) > 512 * 11 * 20,
		    "an interrupts file of 512 CPUs is made (lines of 5.6 kB)"))
		goto out;
	if (EXPECT_EQ(irq_cpus_of("eth2", "ixgbe", "0000:03:00.0", text, list,
				  sizeof(list)), 0, "reading it succeeds"))
		EXPECT_STR(list, "4-7,10-11,13",
			   "eth2's vectors are found past 4096 bytes, and no line's tail is read as an IRQ of its own");
	if (EXPECT_EQ(irq_cpus_of("enp8s0", "r8169", "", text, list,
				  sizeof(list)), 0, "reading it succeeds"))
		EXPECT_STR(list, "60", "a shared action list at a wide line's end is read too");
out:
	free(text);
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_bad_input_is_refused, "bad input is refused"),
	TEST_ENTRY(test_list_is_emptied_first, "each check starts from an empty list"),
	TEST_ENTRY(test_irq_naming_table, "irq cpus: each driver's RX vectors are found by its naming scheme, misc and TX vectors are not"),
	TEST_ENTRY(test_irq_cpus_without_interrupts_file, "irq cpus: a missing /proc/interrupts is an error"),
	TEST_ENTRY(test_irq_cpus_lines_of_many_cpus, "irq cpus: /proc/interrupts of 512 CPUs is read in whole lines"),
};

TEST_MAIN_WITH_CASES("health")
