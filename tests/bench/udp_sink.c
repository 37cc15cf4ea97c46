// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udp_sink - the application end of the throughput benchmark: UDP sockets
 * that read the generator's marked datagrams as fast as they can, one
 * thread per given CPU, and count what the stack delivered: datagrams, and
 * datagrams that came after a later one of their flow (reordered). Run it
 * in the receiving namespace; SIGINT or SIGTERM stops it, then it prints
 *
 *   received=N late=N unmarked=N
 *
 * The sockets share the port with SO_REUSEPORT, which picks a socket by a
 * hash of the 4-tuple: a flow always lands on one socket, so per-flow
 * sequence state needs no locking.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tool.h"
#include "traffic.h"

#define BATCH		64
#define MAX_THREADS	64
/* Far above the default (212 KB): the benchmark measures the stack, not
 * how soon a socket buffer overflows while the reader is descheduled. */
#define RCVBUF		(16 << 20)

struct sink {
	pthread_t thread;
	int cpu;
	int fd;
	unsigned long long received, late, unmarked;
};

static __u64 last_seq[TRAFFIC_MAX_FLOWS];

static int sink_open(struct sink *s, int port)
{
	struct sockaddr_in6 sa = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
		.sin6_addr = IN6ADDR_ANY_INIT,
	};
	/* Wake up now and then to see the stop flag. */
	struct timeval tv = { .tv_usec = 100000 };
	int one = 1, zero = 0, size = RCVBUF;

	s->fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return -errno;
	if (setsockopt(s->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
	    setsockopt(s->fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return -errno;
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	return 0;
}

static void count(struct sink *s, const void *buf, size_t len)
{
	const struct traffic_mark *m = buf;

	if (len < sizeof(*m) || m->magic != TRAFFIC_MAGIC ||
	    m->flow >= TRAFFIC_MAX_FLOWS) {
		s->unmarked++;
		return;
	}
	s->received++;
	if (m->seq <= last_seq[m->flow])
		s->late++;
	else
		last_seq[m->flow] = m->seq;
}

static void *sink_run(void *arg)
{
	static __thread char bufs[BATCH][64];
	struct sink *s = arg;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	cpu_set_t set;
	int i, n;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		/* Only the mark is read: the rest of a datagram is cut off. */
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (!tool_stop) {
		n = recvmmsg(s->fd, msgs, BATCH, MSG_WAITFORONE, NULL);
		for (i = 0; i < n; i++)
			count(s, bufs[i], msgs[i].msg_len);
	}
	return NULL;
}

static int parse_cpus(const char *list, struct sink *sinks)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int n = 0, lo, hi, c;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (sscanf(tok, "%d-%d", &lo, &hi) != 2) {
			if (sscanf(tok, "%d", &lo) != 1)
				goto bad;
			hi = lo;
		}
		if (lo < 0 || hi < lo)
			goto bad;
		for (c = lo; c <= hi; c++) {
			if (n == MAX_THREADS)
				goto bad;
			sinks[n++].cpu = c;
		}
	}
	free(copy);
	return n;
bad:
	free(copy);
	return -EINVAL;
}

static void usage(FILE *out)
{
	fprintf(out,
"usage: udp_sink --cpus LIST [--port P] [--ready FILE]\n"
"Reads UDP datagrams on port P (default 9000, IPv4 and IPv6), one thread\n"
"and socket per CPU of LIST (e.g. 1-3,5), until SIGINT or SIGTERM; then\n"
"prints \"received=N late=N unmarked=N\". --ready: created once listening.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "ready", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	static struct sink sinks[MAX_THREADS];
	unsigned long long received = 0, late = 0, unmarked = 0;
	const char *cpus = NULL, *ready = NULL;
	int c, i, n, err, port = 9000;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': cpus = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'r': ready = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!cpus || port <= 0 || port > 65535) {
		usage(stderr);
		return 2;
	}
	n = parse_cpus(cpus, sinks);
	if (n <= 0) {
		fprintf(stderr, "udp_sink: bad CPU list '%s' (e.g. 1-3,5; at most %d CPUs)\n",
			cpus, MAX_THREADS);
		return 2;
	}
	tool_stop_on_signals();
	for (i = 0; i < n; i++) {
		err = sink_open(&sinks[i], port);
		if (err) {
			fprintf(stderr, "udp_sink: socket on port %d: %s\n",
				port, strerror(-err));
			return 1;
		}
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&sinks[i].thread, NULL, sink_run, &sinks[i])) {
			fprintf(stderr, "udp_sink: cannot start a thread\n");
			return 1;
		}
	tool_ready(ready);
	for (i = 0; i < n; i++) {
		pthread_join(sinks[i].thread, NULL);
		received += sinks[i].received;
		late += sinks[i].late;
		unmarked += sinks[i].unmarked;
	}
	printf("received=%llu late=%llu unmarked=%llu\n", received, late, unmarked);
	return 0;
}
