// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the system says about an interface (its RX interrupts' CPUs,
 * driver, MTU, features): see netdev.h. */
#include <ctype.h>
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

#include "kernel/netdev.h"

/*
 * How drivers name their RX (or combined RX/TX) interrupt vectors. In a
 * pattern "{if}" stands for the interface name, "{bus}" for its PCI
 * address (ethtool's bus_info) and "#" for one or more digits. Vectors
 * that match none (ixgbe's and igb's link vector named just "eth2", i40e's
 * "i40e-0000:01:00.0:misc", "-tx-" vectors) do not collect frames.
 */
static const struct irq_naming {
	const char *driver;		/* NULL: any other driver */
	const char *patterns[4];
} namings[] = {
	{ "ixgbe", { "{if}-TxRx-#", "{if}-rx-#" } },
	{ "ixgbevf", { "{if}-TxRx-#", "{if}-rx-#" } },
	{ "igb", { "{if}-TxRx-#", "{if}-rx-#" } },
	{ "igc", { "{if}-TxRx-#", "{if}-rx-#" } },
	{ "i40e", { "i40e-{if}-TxRx-#", "i40e-{if}-rx-#" } },
	{ "iavf", { "iavf-{if}-TxRx-#", "iavf-{if}-rx-#" } },
	{ "ice", { "ice-{if}-TxRx-#", "ice-{if}-rx-#" } },
	/* mlx5 names completion vectors by device, not by interface. */
	{ "mlx5_core", { "mlx5_comp#@pci:{bus}" } },
	{ NULL, { "{if}-TxRx-#", "{if}-rx-#", "{if}-#" } },
};

static const struct irq_naming *naming_of(const char *driver)
{
	size_t i;

	for (i = 0; namings[i].driver; i++)
		if (driver && !strcmp(driver, namings[i].driver))
			return &namings[i];
	return &namings[i];
}

/* 1 when 'word' (len bytes) is 'pat' with its tokens filled in. */
static int name_matches(const char *pat, const char *word, size_t len,
			const char *ifname, const char *bus)
{
	const char *w = word, *end = word + len, *sub;
	size_t n;

	while (*pat) {
		sub = !strncmp(pat, "{if}", 4) ? ifname :
		      !strncmp(pat, "{bus}", 5) ? bus : NULL;
		if (sub) {
			n = strlen(sub);
			if (!n || (size_t)(end - w) < n || memcmp(w, sub, n))
				return 0;
			w += n;
			pat += pat[1] == 'i' ? 4 : 5;
		} else if (*pat == '#') {
			if (w == end || !isdigit((unsigned char)*w))
				return 0;
			while (w < end && isdigit((unsigned char)*w))
				w++;
			pat++;
		} else {
			if (w == end || *w != *pat)
				return 0;
			w++;
			pat++;
		}
	}
	return w == end;
}

/* 1 when a name in the action list of an interrupt line is an RX vector of
 * the interface. The names follow the counters and the chip/hwirq words;
 * several actions on one IRQ are separated by ", ". */
static int line_is_rx_of(const char *line, const struct irq_naming *nm,
			 const char *ifname, const char *bus)
{
	const char *p = line, *w;
	size_t len;
	int i;

	while (*p) {
		while (*p && (isspace((unsigned char)*p) || *p == ','))
			p++;
		w = p;
		while (*p && !isspace((unsigned char)*p) && *p != ',')
			p++;
		len = p - w;
		for (i = 0; len && i < 4 && nm->patterns[i]; i++)
			if (name_matches(nm->patterns[i], w, len, ifname, bus))
				return 1;
	}
	return 0;
}

int netdev_irq_cpus(const char *ifname, const struct netdev_info *info,
		    const char *proc, struct cpu_set *cpus)
{
	char path[512], list[CPUSET_STR_MAX], *line = NULL, *end;
	const struct irq_naming *nm = naming_of(info ? info->driver : NULL);
	const char *bus = info ? info->bus_info : "";
	struct cpu_set one;
	unsigned long irq;
	size_t cap = 0;
	FILE *f, *a;
	__u32 cpu;

	cpuset_zero(cpus);
	if (!proc)
		proc = "/proc";
	snprintf(path, sizeof(path), "%s/interrupts", proc);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* A line has a counter per possible CPU, 11 bytes each: whole lines
	 * (getline), so a name past any fixed length is still read, and no
	 * line's tail is taken for a line of its own. */
	while (getline(&line, &cap, f) > 0) {
		end = line + strspn(line, " ");
		if (!isdigit((unsigned char)*end))
			continue;
		irq = strtoul(end, &end, 10);
		if (*end != ':' || !line_is_rx_of(end + 1, nm, ifname, bus))
			continue;
		snprintf(path, sizeof(path), "%s/irq/%lu/effective_affinity_list",
			 proc, irq);
		a = fopen(path, "r");
		if (!a) {
			snprintf(path, sizeof(path), "%s/irq/%lu/smp_affinity_list",
				 proc, irq);
			a = fopen(path, "r");
		}
		if (!a)
			continue;
		if (fgets(list, sizeof(list), a) && !cpuset_parse(&one, list))
			for (cpu = 0; cpu < STEER_CPU_IDS; cpu++)
				if (cpuset_has(&one, cpu))
					cpuset_set(cpus, cpu);
		fclose(a);
	}
	free(line);
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
	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -EINVAL;
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
	if (!ioctl(fd, SIOCETHTOOL, &ifr)) {
		snprintf(info->driver, sizeof(info->driver), "%s", drv.driver);
		snprintf(info->bus_info, sizeof(info->bus_info), "%s",
			 drv.bus_info);
	}
	ifr.ifr_data = (void *)&flags;
	if (!ioctl(fd, SIOCETHTOOL, &ifr)) {
		info->lro = flags.data & ETH_FLAG_LRO;
		info->ntuple = flags.data & ETH_FLAG_NTUPLE;
		info->rxvlan = flags.data & ETH_FLAG_RXVLAN;
		info->features_known = true;
	}
out:
	close(fd);
	return err;
}

int netdev_rx_channels(const char *ifname)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	int fd, n;

	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -EINVAL;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ch;
	n = ioctl(fd, SIOCETHTOOL, &ifr) ? -errno :
	    (int)(ch.rx_count + ch.combined_count);
	close(fd);
	return n;
}
