// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * prom_sample: `xdp-steer stats --prometheus` (print_prom) on a sample made
 * by hand, with every family it can print: two online CPUs, both workers
 * of the policy, the tracepoint programs counting, a balancer running. For the tests that must
 * know the metrics and labels the exporter really emits (the Grafana
 * dashboard's queries, tests/unit/test_dashboard.py; the alerting rules',
 * tests/unit/test_alerts.py) without a copy of the list. Usage: prom_sample [IFACE]
 */
#include "cli/print_prom.h"

#define NCPUS 2

int main(int argc, char **argv)
{
	static struct steer_stats rx[NCPUS];
	static struct steer_worker_stats deq[NCPUS];
	static struct steer_ring_stats ring[STEER_CPU_IDS];
	static struct steer_kthread_stats kthread[NCPUS];
	static struct steer_cpu_stats queued[STEER_CPU_IDS];
	struct steer_sample s = {
		.ncpus = NCPUS, .steering = true, .traced = true,
		.rx = rx, .deq = deq, .ring = ring, .kthread = kthread,
		.queued = queued,
		/* A balancer running by the default policy's interval. */
		.balance = { .enabled = true, .interval_ms = 1000,
			     .running = true,
			     .last_ns = 1700000000123000000ull },
	};
	int c;

	for (c = 0; c < NCPUS; c++) {
		cpuset_set(&s.online, c);
		cpuset_set(&s.workers, c);
	}
	print_prom(stdout, argc > 1 ? argv[1] : "eth1", &s);
	return 0;
}
