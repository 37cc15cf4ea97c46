// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Sets of CPU ids and the kernel's list syntax for them: see cpuset.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cpuset.h"

#define ONLINE_PATH "/sys/devices/system/cpu/online"

void cpuset_zero(struct cpu_set *s)
{
	memset(s, 0, sizeof(*s));
}

void cpuset_set(struct cpu_set *s, __u32 cpu)
{
	if (cpu < CPUSET_MAX)
		s->bits[cpu / 64] |= 1ull << (cpu % 64);
}

void cpuset_clear(struct cpu_set *s, __u32 cpu)
{
	if (cpu < CPUSET_MAX)
		s->bits[cpu / 64] &= ~(1ull << (cpu % 64));
}

bool cpuset_has(const struct cpu_set *s, __u32 cpu)
{
	return cpu < CPUSET_MAX && (s->bits[cpu / 64] >> (cpu % 64) & 1);
}

int cpuset_count(const struct cpu_set *s)
{
	int i, n = 0;

	for (i = 0; i < CPUSET_MAX / 64; i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int cpuset_count_from(const struct cpu_set *s, __u32 first)
{
	int n = (int)s->beyond;
	__u32 c;

	for (c = first; c < CPUSET_MAX; c++)
		n += cpuset_has(s, c);
	return n;
}

bool cpuset_equal(const struct cpu_set *a, const struct cpu_set *b)
{
	return !memcmp(a->bits, b->bits, sizeof(a->bits));
}

static int parse_num(const char **p, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*v = strtoul(*p, &end, 10);
	if (errno)
		return -EINVAL;
	*p = end;
	return 0;
}

int cpuset_parse(struct cpu_set *s, const char *list)
{
	const char *p = list;
	unsigned long lo, hi, c;

	cpuset_zero(s);
	while (isspace((unsigned char)*p))
		p++;
	while (*p) {
		if (parse_num(&p, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_num(&p, &hi) || hi < lo)
				return -EINVAL;
		}
		for (c = lo; c <= hi && c < CPUSET_MAX; c++)
			cpuset_set(s, c);
		if (hi >= CPUSET_MAX)
			s->beyond += hi - (lo > CPUSET_MAX ? lo : CPUSET_MAX) + 1;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

int cpuset_read_online(struct cpu_set *s, const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f;
	int err;

	f = fopen(path ? path : ONLINE_PATH, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (err)
		return err;
	buf[n] = '\0';
	return cpuset_parse(s, buf);
}

char *cpuset_format(const struct cpu_set *s, char *buf, size_t len)
{
	size_t off = 0;
	__u32 lo, hi;
	int n;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (lo = 0; lo < CPUSET_MAX; lo++) {
		if (!cpuset_has(s, lo))
			continue;
		for (hi = lo; hi + 1 < CPUSET_MAX && cpuset_has(s, hi + 1); hi++)
			;
		if (hi == lo)
			n = snprintf(buf + off, len - off, "%s%u", off ? "," : "", lo);
		else
			n = snprintf(buf + off, len - off, "%s%u-%u",
				     off ? "," : "", lo, hi);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += n;
		lo = hi;
	}
	return buf;
}
