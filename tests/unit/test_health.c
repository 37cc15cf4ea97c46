// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the warnings of `xdp-steer status` (loader/health.c), one
 * table row per case: description, the machine and policy as plain data,
 * the warnings expected in order (a substring of each) or none. Then
 * netdev_irq_cpus() (loader/netdev.c) on a fake procfs tree in a temp dir.
 */
#define _GNU_SOURCE /* nftw() */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health.h"
#include "netdev.h"
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
	bool no_policy;		/* active slot empty (table_size 0) */
	__u32 queue_size;	/* 0: 2048 */
	const char *workers;	/* CPUs owning buckets; NULL: "2-5" */
	const char *online;	/* NULL: "0-7" */
	const char *irq;	/* NULL: "0-1" */
	const char *driver;	/* NULL: "ixgbe" */
	int mtu;		/* 0: 1500 */
	bool lro;
	const char *want[7];	/* a substring of each warning, in order */
};

static const struct health_case cases[] = {
	{ .desc = "a healthy ixgbe setup gives no warning" },
	{ .desc = "a healthy veth setup gives no warning", .driver = "veth", .irq = "" },
	/* ---- queue_size ---- */
	{ .desc = "queue_size 256 gives no warning", .queue_size = 256 },
	{ .desc = "queue_size 255 warns that it is small", .queue_size = 255,
	  .want = { "queue_size 255 is small: a worker that is briefly descheduled drops frames; 2048 is the default" } },
	{ .desc = "queue_size 16 warns that it is small", .queue_size = 16,
	  .want = { "queue_size 16 is small" } },
	{ .desc = "without a policy only the missing policy is reported, not its queue",
	  .no_policy = true, .queue_size = 16, .workers = "",
	  .want = { "no policy applied: every frame passes on the receiving CPU; 'xdp-steer apply eth2 POLICY'" } },
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
	/* ---- offline workers ---- */
	{ .desc = "offline worker CPUs are named", .online = "0-3",
	  .want = { "worker CPUs 4-5 are offline: their frames wait in the cpumap; bring them online or apply a policy without them" } },
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
	/* ---- the program and the interface ---- */
	{ .desc = "pins without a program warn and say how to clean up", .detached = true,
	  .want = { "maps are pinned but no xdp_steer program is attached: nothing steers; 'xdp-steer detach eth2' cleans up" } },
	{ .desc = "a program that does not use the pins warns", .foreign_maps = true,
	  .want = { "the attached xdp_steer program does not use the pinned maps: policy changes have no effect; detach and attach again" } },
	{ .desc = "a vanished interface warns, and of the missing program",
	  .no_iface = true, .detached = true, .driver = UNREADABLE, .irq = "",
	  .want = { "no interface eth2 in this network namespace", "maps are pinned but no xdp_steer program" } },
	{ .desc = "a program detached with no policy gives both warnings",
	  .detached = true, .no_policy = true, .workers = "",
	  .want = { "no xdp_steer program is attached", "no policy applied" } },
	{ .desc = "everything wrong at once gives every warning, in a fixed order",
	  .foreign_maps = true, .queue_size = 64, .workers = "0-9", .online = "0-7",
	  .irq = "0-1", .mtu = 9000, .lro = true,
	  .want = { "does not use the pinned maps", "worker CPUs 8-9 are offline",
		    "worker CPUs 0-1 also take eth2's RX", "queue_size 64 is small",
		    "MTU 9000", "LRO is on" } },
};

/* What a row describes, as health_check() takes it. */
struct row_input {
	struct health_input in;
	__u32 buckets[STEER_MAX_CPUS];
	struct cpu_set online, irq;
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
	for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
		r->buckets[cpu] = cpuset_has(&workers, cpu) ? 8 : 0;
	r->in = (struct health_input) {
		.ifname = IFNAME,
		.if_exists = !c->no_iface,
		.attached = !c->detached,
		.uses_pins = !c->foreign_maps,
		.table_size = c->no_policy ? 0 : 512,
		.queue_size = c->queue_size ?: 2048,
		.buckets = r->buckets,
	};
	if (!c->online || strcmp(c->online, UNREADABLE)) {
		if (parse_or_default(&r->online, c->online, "0-7"))
			return -EINVAL;
		r->in.online = &r->online;
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
		r->in.netdev = &r->ni;
	}
	return 0;
}

static const struct health_case *cur;

static void run_case(void)
{
	const struct health_case *c = cur;
	struct row_input r;
	struct health h;
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
}

static void test_bad_input_is_refused(void)
{
	static const __u32 buckets[STEER_MAX_CPUS];
	struct health_input in = { .ifname = IFNAME, .buckets = buckets };
	struct health h;

	in.ifname = NULL;
	EXPECT_EQ(health_check(&in, &h), -EINVAL, "a missing interface name is refused with -EINVAL");
	in.ifname = IFNAME;
	in.buckets = NULL;
	EXPECT_EQ(health_check(&in, &h), -EINVAL, "missing bucket counts are refused with -EINVAL");
}

static void test_list_is_emptied_first(void)
{
	struct row_input r;
	struct health h;

	row_input(&(struct health_case){ .detached = true, .lro = true }, &r);
	health_check(&r.in, &h);
	EXPECT_EQ(h.n, 2, "a first check gives its two warnings");
	row_input(&(struct health_case){ .desc = "healthy" }, &r);
	EXPECT_EQ(health_check(&r.in, &h), 0, "a second check succeeds");
	EXPECT_EQ(h.n, 0, "the second check does not keep the first one's warnings");
}

/* ---- netdev_irq_cpus() on a fake procfs ------------------------------------ */

/* An ixgbe eth2 (four queue IRQs and its link IRQ) next to an eth20 whose
 * names start with "eth2", and IRQs of other devices. */
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

/* Makes the fake tree in a new temp dir named in 'root'; 'with_interrupts'
 * false leaves out /proc/interrupts. Returns 0 or a negative errno. */
static int fake_proc_make(char *root, size_t len, bool with_interrupts)
{
	char dir[512];
	unsigned int i;
	int err = 0;

	snprintf(root, len, "%s/xdp-steer-proc.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	if (!mkdtemp(root))
		return -errno;
	if (with_interrupts)
		err = write_file(root, "interrupts", interrupts);
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

/* The CPUs netdev_irq_cpus() finds for 'ifname', in list form, or the
 * error; "" when the fake tree could not be made. */
static int irq_cpus_of(const char *ifname, bool with_interrupts,
		       char *list, size_t len)
{
	char root[256];
	struct cpu_set cpus;
	int err;

	list[0] = '\0';
	err = fake_proc_make(root, sizeof(root), with_interrupts);
	if (!EXPECT_EQ(err, 0, "the fake procfs tree is made in a temp dir"))
		return err;
	err = netdev_irq_cpus(ifname, root, &cpus);
	if (!err)
		cpuset_format(&cpus, list, len);
	fake_proc_remove(root);
	EXPECT(access(root, F_OK) && errno == ENOENT, "the fake procfs tree is removed");
	return err;
}

static void test_irq_cpus_of_ixgbe(void)
{
	char list[CPUSET_STR_MAX];

	EXPECT_EQ(irq_cpus_of("eth2", true, list, sizeof(list)), 0, "reading eth2's IRQs succeeds");
	EXPECT_STR(list, "0,4-7,10-11,13",
		   "eth2's queue and link IRQs give their CPUs, ranges included, and none of eth20's");
}

static void test_irq_cpus_prefix_is_not_a_match(void)
{
	char list[CPUSET_STR_MAX];

	EXPECT_EQ(irq_cpus_of("eth20", true, list, sizeof(list)), 0, "reading eth20's IRQs succeeds");
	EXPECT_STR(list, "20", "eth20 gets its own IRQs only, not eth2's");
	EXPECT_EQ(irq_cpus_of("eth", true, list, sizeof(list)), 0, "reading eth's IRQs succeeds");
	EXPECT_STR(list, "", "a prefix of an interface name matches no IRQ");
	EXPECT_EQ(irq_cpus_of("TxRx", true, list, sizeof(list)), 0, "reading TxRx's IRQs succeeds");
	EXPECT_STR(list, "", "a word inside an IRQ name is not an interface name");
}

static void test_irq_cpus_of_veth(void)
{
	char list[CPUSET_STR_MAX] = "x";

	EXPECT_EQ(irq_cpus_of("veth0", true, list, sizeof(list)), 0,
		  "an interface without IRQs (a veth) is no error");
	EXPECT_STR(list, "", "an interface without IRQs gets the empty set");
}

static void test_irq_cpus_without_interrupts_file(void)
{
	char list[CPUSET_STR_MAX];

	EXPECT_EQ(irq_cpus_of("eth2", false, list, sizeof(list)), -ENOENT,
		  "a missing interrupts file gives -ENOENT");
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_bad_input_is_refused, "bad input is refused"),
	TEST_ENTRY(test_list_is_emptied_first, "each check starts from an empty list"),
	TEST_ENTRY(test_irq_cpus_of_ixgbe, "irq cpus: an ixgbe's queue and link IRQs, effective affinity first, then the requested one"),
	TEST_ENTRY(test_irq_cpus_prefix_is_not_a_match, "irq cpus: eth20's IRQs are not eth2's, nor the other way round"),
	TEST_ENTRY(test_irq_cpus_of_veth, "irq cpus: an interface without IRQs gets the empty set"),
	TEST_ENTRY(test_irq_cpus_without_interrupts_file, "irq cpus: a missing /proc/interrupts is an error"),
};

TEST_MAIN_WITH_CASES("health")
