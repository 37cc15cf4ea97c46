// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tier: the names made from a network namespace's identity
 * (loader/kernel/netns.c): pin directories and lock files, read back, and
 * the names of an earlier xdp-steer (by inode alone) told apart from
 * today's. One table row per name: description, the name, whether it
 * parses, and the namespace (and interface) it gives.
 */
#include <errno.h>
#include <stdbool.h>

#include "kernel/netns.h"
#include "test.h"

struct name_case {
	const char *desc;
	const char *name;
	bool parses;
	unsigned long long ino, cookie;	/* cookie 0: the inode layout's */
	const char *ifname;		/* lock names only */
};

static const struct name_case dirs[] = {
	{ .desc = "a namespace's directory gives its inode and cookie",
	  .name = "netns-4026532177-60", .parses = true, .ino = 4026532177ull, .cookie = 60 },
	{ .desc = "the largest cookie is read whole",
	  .name = "netns-4026532177-18446744073709551615", .parses = true, .ino = 4026532177ull, .cookie = 18446744073709551615ull },
	{ .desc = "an earlier xdp-steer's directory gives its inode and cookie 0",
	  .name = "netns-4026532177", .parses = true, .ino = 4026532177ull, .cookie = 0 },
	{ .desc = "cookie 0 is nobody's: not a namespace's directory",
	  .name = "netns-4026532177-0", .parses = false },
	{ .desc = "a cookie past 64 bits is not read",
	  .name = "netns-1-18446744073709551616", .parses = false },
	{ .desc = "an interface's directory is not a namespace's",
	  .name = "eth0", .parses = false },
	{ .desc = "an interface named netns-12 is not a namespace's, though it reads as one",
	  .name = "netns-12", .parses = false },
	{ .desc = "an interface named netns-1x is not a namespace's",
	  .name = "netns-1x", .parses = false },
	{ .desc = "a missing cookie after the dash is not read",
	  .name = "netns-4026532177-", .parses = false },
	{ .desc = "a sign is not a digit",
	  .name = "netns-+4026532177-5", .parses = false },
	{ .desc = "a leading zero is not how we write numbers",
	  .name = "netns-04026532177-5", .parses = false },
	{ .desc = "a third number is not ours",
	  .name = "netns-1-2-3", .parses = false },
	{ .desc = "the prefix alone is not a name",
	  .name = "netns-", .parses = false },
};

static const struct name_case locks[] = {
	{ .desc = "a lock file gives its namespace and interface",
	  .name = "4026532177-60:eth0.lock", .parses = true, .ino = 4026532177ull, .cookie = 60, .ifname = "eth0" },
	{ .desc = "an interface name with dots and dashes is kept whole",
	  .name = "4026532177-60:ve-th.100.lock", .parses = true, .ino = 4026532177ull, .cookie = 60, .ifname = "ve-th.100" },
	{ .desc = "a 15-byte interface name fits",
	  .name = "1-2:abcdefghijklmno.lock", .parses = true, .ino = 1, .cookie = 2, .ifname = "abcdefghijklmno" },
	{ .desc = "a 16-byte interface name does not",
	  .name = "1-2:abcdefghijklmnop.lock", .parses = false },
	{ .desc = "an earlier xdp-steer's lock file gives inode and cookie 0",
	  .name = "4026532177-eth0.lock", .parses = true, .ino = 4026532177ull, .cookie = 0, .ifname = "eth0" },
	{ .desc = "an earlier lock of an interface named with digits and a dash stays one name",
	  .name = "4026532177-12-x.lock", .parses = true, .ino = 4026532177ull, .cookie = 0, .ifname = "12-x" },
	{ .desc = "cookie 0 is nobody's",
	  .name = "1-0:eth0.lock", .parses = false },
	{ .desc = "no interface name, no lock",
	  .name = "1-2:.lock", .parses = false },
	{ .desc = "a name without .lock is not a lock",
	  .name = "1-2:eth0", .parses = false },
	{ .desc = "something else in the directory is not a lock",
	  .name = "notes.txt", .parses = false },
	{ .desc = "a cookie with letters is not read",
	  .name = "1-2x:eth0.lock", .parses = false },
};

static void test_dir_names_read_back(void)
{
	struct steer_netns ns;
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		const struct name_case *c = &dirs[i];
		char buf[NETNS_NAME_MAX];

		if (!EXPECT_EQ(netns_dir_parse(c->name, &ns), c->parses, c->desc)) {
			printf("  name: %s\n", c->name);
			continue;
		}
		if (!c->parses)
			continue;
		EXPECT_EQ(ns.ino, c->ino, c->desc);
		EXPECT_EQ(ns.cookie, c->cookie, c->desc);
		EXPECT(!netns_dir_name(&ns, buf, sizeof(buf)), "the name is made again");
		EXPECT_STR(buf, c->name, "the name made again is the name read");
	}
}

static void test_lock_names_read_back(void)
{
	char ifname[IF_NAMESIZE_MAX + 1], buf[NETNS_NAME_MAX];
	struct steer_netns ns;
	size_t i;

	for (i = 0; i < sizeof(locks) / sizeof(locks[0]); i++) {
		const struct name_case *c = &locks[i];

		if (!EXPECT_EQ(netns_lock_parse(c->name, &ns, ifname, sizeof(ifname)),
			       c->parses, c->desc)) {
			printf("  name: %s\n", c->name);
			continue;
		}
		if (!c->parses)
			continue;
		EXPECT_EQ(ns.ino, c->ino, c->desc);
		EXPECT_EQ(ns.cookie, c->cookie, c->desc);
		EXPECT_STR(ifname, c->ifname, c->desc);
		EXPECT(!netns_lock_name(&ns, ifname, buf, sizeof(buf)), "the lock name is made again");
		EXPECT_STR(buf, c->name, "the lock name made again is the name read");
	}
}

/* Interface names are at most 15 bytes: a namespace directory's name is
 * longer, so the two never meet in STEER_PIN_ROOT. */
static void test_namespace_dir_names_are_longer_than_any_interface_name(void)
{
	struct steer_netns ns = { .ino = 0xF0000000ull, .cookie = 1 };
	char buf[NETNS_NAME_MAX];

	EXPECT(!netns_dir_name(&ns, buf, sizeof(buf)), "the smallest name is made");
	EXPECT(strlen(buf) > IF_NAMESIZE_MAX, "the smallest namespace directory name is longer than an interface name");
	EXPECT_EQ(netns_dir_name(&ns, buf, 10), -ENAMETOOLONG, "a short buffer is refused, not overrun");
}

static const struct test_case tests[] = {
	TEST_ENTRY(test_dir_names_read_back, "namespace directory names read back to the namespace they were made from"),
	TEST_ENTRY(test_lock_names_read_back, "lock file names read back to their namespace and interface"),
	TEST_ENTRY(test_namespace_dir_names_are_longer_than_any_interface_name, "a namespace directory name is longer than any interface name"),
};

TEST_MAIN("unit/netns")
