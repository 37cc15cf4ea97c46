// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cpumap_set - puts another second-stage program (or none) into one entry
 * of a pinned cpumap, for the worker-cost study (tests/bench/run worker):
 * the kernel makes a new entry, with a new kthread and ring, that holds the
 * program after this tool exits.
 *
 *   cpumap_set MAP_PIN CPU QSIZE [OBJECT PROGRAM]
 *
 * Without OBJECT and PROGRAM the entry runs no program. The entry's
 * frames already queued are delivered by its old kthread first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_cpumap_val val = { 0 };
	struct bpf_object *obj = NULL;
	struct bpf_program *prog, *p;
	__u32 cpu;
	int map_fd, err;

	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: cpumap_set MAP_PIN CPU QSIZE [OBJECT PROGRAM]\n");
		return 2;
	}
	map_fd = bpf_obj_get(argv[1]);
	if (map_fd < 0) {
		fprintf(stderr, "cpumap_set: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	cpu = (__u32)strtoul(argv[2], NULL, 10);
	val.qsize = (__u32)strtoul(argv[3], NULL, 10);
	if (argc == 6) {
		obj = bpf_object__open_file(argv[4], NULL);
		if (!obj) {
			fprintf(stderr, "cpumap_set: %s: %s\n", argv[4], strerror(errno));
			return 1;
		}
		prog = bpf_object__find_program_by_name(obj, argv[5]);
		if (!prog) {
			fprintf(stderr, "cpumap_set: %s has no program %s\n",
				argv[4], argv[5]);
			return 1;
		}
		/* Only the one asked for: the object's others are no business
		 * of the entry. */
		bpf_object__for_each_program(p, obj)
			bpf_program__set_autoload(p, p == prog);
		err = bpf_object__load(obj);
		if (err) {
			fprintf(stderr, "cpumap_set: loading %s: %s\n", argv[5],
				strerror(-err));
			return 1;
		}
		val.bpf_prog.fd = bpf_program__fd(prog);
	}
	if (bpf_map_update_elem(map_fd, &cpu, &val, BPF_ANY)) {
		fprintf(stderr, "cpumap_set: updating CPU %u's entry: %s\n", cpu,
			strerror(errno));
		return 1;
	}
	bpf_object__close(obj);
	return 0;
}
