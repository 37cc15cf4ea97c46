// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CPU ids as ranges for people to read: see cpulist.h. */
#include <stdio.h>
#include <string.h>

#include "model/cpulist.h"

/* The end of the range that starts at ids[i]: the last index of the run
 * of consecutive ids (repeats included). */
static size_t run_end(const __u32 *ids, size_t n, size_t i)
{
	while (i + 1 < n && (ids[i + 1] == ids[i] || ids[i + 1] == ids[i] + 1))
		i++;
	return i;
}

/* The CPUs in ids[i..j], repeats counted once. */
static size_t distinct(const __u32 *ids, size_t i, size_t j)
{
	size_t count = 1;

	for (; i < j; i++)
		count += ids[i + 1] != ids[i];
	return count;
}

size_t cpulist_format(const __u32 *ids, size_t n, char *buf, size_t len)
{
	size_t off = 0, i, end, left, need;
	char range[32], more[40];
	int w;

	left = n ? distinct(ids, 0, n - 1) : 0;
	if (!len)
		return left;
	buf[0] = '\0';
	for (i = 0; i < n; i = end + 1) {
		end = run_end(ids, n, i);
		if (ids[end] == ids[i])
			w = snprintf(range, sizeof(range), "%s%u",
				     off ? "," : "", ids[i]);
		else
			w = snprintf(range, sizeof(range), "%s%u-%u",
				     off ? "," : "", ids[i], ids[end]);
		/* This range, and after it room for what says how many
		 * did not fit, unless it is the last. */
		need = (size_t)w;
		if (end + 1 < n)
			need += snprintf(more, sizeof(more), " and %zu more",
					 left - distinct(ids, i, end));
		if (off + need >= len)
			break;
		memcpy(buf + off, range, (size_t)w + 1);
		off += (size_t)w;
		left -= distinct(ids, i, end);
	}
	if (!left)
		return 0;
	snprintf(buf + off, len - off, "%s%zu more", off ? " and " : "", left);
	return left;
}

size_t cpulist_from_set(const struct cpu_set *s, __u32 *ids)
{
	size_t n = 0;
	__u32 cpu;

	for (cpu = 0; cpu < sizeof(s->bits) * 8; cpu++)
		if (cpuset_has(s, cpu))
			ids[n++] = cpu;
	return n;
}

size_t cpulist_format_set(const struct cpu_set *s, char *buf, size_t len)
{
	__u32 ids[sizeof(s->bits) * 8];

	return cpulist_format(ids, cpulist_from_set(s, ids), buf, len);
}
