// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The kernel's possible CPUs, as per-CPU map values lay them out: see
 * possible.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/possible.h"

#define POSSIBLE_PATH "/sys/devices/system/cpu/possible"

int possible_read(struct possible_cpus *p, const char *path)
{
	char buf[8192], *s, *end;
	unsigned long lo, hi, c;
	FILE *f;

	p->count = p->span = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	s = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!s)
		return -EINVAL;
	while (*s && !isspace((unsigned char)*s)) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		/* In order and within the kernel's bound, as it prints it. */
		if (hi < lo || hi >= POSSIBLE_MAX ||
		    (p->span && lo < (unsigned long)p->span))
			return -EINVAL;
		for (c = lo; c <= hi; c++)
			p->id[p->count++] = c;
		p->span = hi + 1;
		s = end;
		if (*s == ',')
			s++;
	}
	return p->count ? 0 : -EINVAL;
}

const struct possible_cpus *possible_cpus(void)
{
	static struct possible_cpus mine;
	static int err = 1;

	if (err > 0)
		err = possible_read(&mine, POSSIBLE_PATH);
	if (err) {
		errno = -err;
		return NULL;
	}
	return &mine;
}

int possible_span(void)
{
	const struct possible_cpus *p = possible_cpus();

	return p ? p->span : -errno;
}

void possible_scatter(const struct possible_cpus *p, const void *packed,
		      size_t value_size, void *by_id)
{
	int i;

	/* From the last: a caller may scatter in place (by_id == packed). */
	for (i = p->count - 1; i >= 0; i--)
		memmove((char *)by_id + p->id[i] * value_size,
			(const char *)packed + i * value_size, value_size);
	for (i = 0; i < p->count; i++) {
		__u32 from = i ? p->id[i - 1] + 1 : 0;

		memset((char *)by_id + from * value_size, 0,
		       (p->id[i] - from) * value_size);
	}
}
