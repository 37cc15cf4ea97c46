// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "netdev.h"

/* An interrupt belongs to the interface when a word of its name is the
 * interface name or starts with "<ifname>-" (ixgbe: "eth2-TxRx-0"). */
static bool irq_names_if(const char *line, const char *ifname)
{
	size_t n = strlen(ifname);
	const char *p = line;

	while ((p = strstr(p, ifname))) {
		bool start = p == line || p[-1] == ' ' || p[-1] == '\t';
		char after = p[n];

		if (start && (after == '-' || after == '\n' || after == ' ' ||
			      after == '\0' || after == '@'))
			return true;
		p += n;
	}
	return false;
}

int netdev_irq_cpus(const char *ifname, const char *proc,
		    struct cpu_set *cpus)
{
	char path[512], line[4096], list[CPUSET_STR_MAX];
	struct cpu_set one;
	FILE *f, *a;
	unsigned int irq;
	__u32 cpu;

	cpuset_zero(cpus);
	if (!proc)
		proc = "/proc";
	snprintf(path, sizeof(path), "%s/interrupts", proc);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %u:", &irq) != 1 || !irq_names_if(line, ifname))
			continue;
		snprintf(path, sizeof(path), "%s/irq/%u/effective_affinity_list",
			 proc, irq);
		a = fopen(path, "r");
		if (!a) {
			snprintf(path, sizeof(path), "%s/irq/%u/smp_affinity_list",
				 proc, irq);
			a = fopen(path, "r");
		}
		if (!a)
			continue;
		if (fgets(list, sizeof(list), a) && !cpuset_parse(&one, list))
			for (cpu = 0; cpu < STEER_MAX_CPUS; cpu++)
				if (cpuset_has(&one, cpu))
					cpuset_set(cpus, cpu);
		fclose(a);
	}
	fclose(f);
	return 0;
}

int netdev_info(const char *ifname, struct netdev_info *info)
{
	struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_value flags = { .cmd = ETHTOOL_GFLAGS };
	struct ifreq ifr;
	int fd, err = 0;

	memset(info, 0, sizeof(*info));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFMTU, &ifr)) {
		err = -errno;
		goto out;
	}
	info->mtu = ifr.ifr_mtu;
	ifr.ifr_data = (void *)&drv;
	if (!ioctl(fd, SIOCETHTOOL, &ifr))
		snprintf(info->driver, sizeof(info->driver), "%s", drv.driver);
	ifr.ifr_data = (void *)&flags;
	if (!ioctl(fd, SIOCETHTOOL, &ifr))
		info->lro = flags.data & ETH_FLAG_LRO;
out:
	close(fd);
	return err;
}
