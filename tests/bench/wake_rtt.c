// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * wake_rtt - what it costs here to wake a thread that sleeps on another,
 * idle CPU: steering wakes a worker's cpumap kthread (RPS: its softirq)
 * whenever the worker ran out of frames, and how much that costs differs
 * between machines far more than the datapath does (tests/bench/README.md,
 * "What this machine adds"). The benchmarks print it in their header.
 *
 *   wake_rtt [CPU_A CPU_B [ROUNDS]]      (default: 0 1 2000)
 *
 * A thread on CPU_A writes a byte into a pipe that a thread sleeping on
 * CPU_B reads, and waits for its answer on another pipe: each round trip
 * is two wake-ups of a sleeping thread on an idle CPU. Then the same with
 * both threads on CPU_A, where no CPU idles in between. Prints
 *
 *   wake_rtt: round trip 74.2 us across CPUs 0 and 1, 2.1 us on CPU 0
 *
 * A bare-metal CPU that idles in MWAIT is woken by the store that marks
 * the thread runnable; a VM's vCPU that idles in HLT needs an IPI, an exit
 * to the host and the host's own wake-up of the vCPU's thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct peer {
	int cpu;
	int in, out;	/* the pipe it reads, the one it answers on */
};

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Answers each byte until its pipe closes. */
static void *answer(void *arg)
{
	struct peer *p = arg;
	char c;

	/* A CPU gone since main() tried it: the end of the answers tells. */
	if (pin(p->cpu)) {
		close(p->out);
		p->out = -1;
		return NULL;
	}
	while (read(p->in, &c, 1) == 1)
		if (write(p->out, &c, 1) != 1)
			break;
	return NULL;
}

/* Mean round trip in ns between this thread on 'cpu_a' and a peer on
 * 'cpu_b', or a negative errno. */
static double round_trip(int cpu_a, int cpu_b, int rounds)
{
	int to_peer[2], from_peer[2], err = 0, i;
	struct timespec t0, t1;
	struct peer p;
	pthread_t th;
	char c = 0;

	if (pipe(to_peer))
		return -errno;
	if (pipe(from_peer)) {
		err = -errno;
		goto close_to;
	}
	p = (struct peer){ .cpu = cpu_b, .in = to_peer[0], .out = from_peer[1] };
	err = -pthread_create(&th, NULL, answer, &p);
	if (err)
		goto close_from;
	err = pin(cpu_a);
	/* One round trip first: the peer is pinned and asleep in read(). */
	for (i = -1; !err && i < rounds; i++) {
		if (i == 0)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		if (write(to_peer[1], &c, 1) != 1 || read(from_peer[0], &c, 1) != 1)
			err = -EIO;	/* the peer could not run on its CPU */
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(to_peer[1]);
	pthread_join(th, NULL);
	close(to_peer[0]);
	close(from_peer[0]);
	if (p.out >= 0)
		close(from_peer[1]);
	if (err)
		return err;
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / rounds;
close_from:
	close(from_peer[0]);
	close(from_peer[1]);
close_to:
	close(to_peer[0]);
	close(to_peer[1]);
	return err;
}

int main(int argc, char **argv)
{
	int a = 0, b = 1, rounds = 2000;
	double across, alone;

	if (argc != 1 && argc != 3 && argc != 4) {
		fprintf(stderr, "usage: wake_rtt [CPU_A CPU_B [ROUNDS]]\n");
		return 2;
	}
	if (argc >= 3) {
		a = atoi(argv[1]);
		b = atoi(argv[2]);
	}
	if (argc == 4)
		rounds = atoi(argv[3]);
	if (a < 0 || b < 0 || a >= CPU_SETSIZE || b >= CPU_SETSIZE || a == b || rounds < 1) {
		fprintf(stderr, "wake_rtt: give two different CPUs below %d and at least one round\n", CPU_SETSIZE);
		return 2;
	}
	/* The peer cannot report a CPU it may not run on: try both here. */
	if (pin(b) || pin(a)) {
		fprintf(stderr, "wake_rtt: cannot run on CPU %d or %d: %s (are both online?)\n",
			a, b, strerror(errno));
		return 1;
	}
	across = round_trip(a, b, rounds);
	alone = across < 0 ? across : round_trip(a, a, rounds);
	if (across < 0 || alone < 0) {
		int err = (int)-(across < 0 ? across : alone);

		if (err == EIO)
			fprintf(stderr, "wake_rtt: the thread for CPU %d could not run there (is it online?)\n",
				across < 0 ? b : a);
		else
			fprintf(stderr, "wake_rtt: CPUs %d and %d: %s\n", a, b, strerror(err));
		return 1;
	}
	printf("wake_rtt: round trip %.1f us across CPUs %d and %d, %.1f us on CPU %d\n",
	       across / 1e3, a, b, alone / 1e3, a);
	return 0;
}
