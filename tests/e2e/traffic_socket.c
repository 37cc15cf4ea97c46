// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * traffic_socket.c - traffic_gen's socket sender (traffic_socket.h).
 *
 * Frames are written in a ring of buffers, as the kernel's live test runs
 * write them in a pool of pages: a buffer keeps whatever the last frame in
 * it was, the writer (traffic_write.h) rewrites every field that differs
 * between flows, and the template is copied in only when a buffer last
 * held another group's frame. A batch of them goes out with one
 * sendmmsg(); the socket skips the qdisc (PACKET_QDISC_BYPASS) and hands
 * each frame to the driver, a veth straight to its peer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#include "frame.h"
#include "tool.h"
#include "traffic_socket.h"
#include "traffic_write.h"

/* Frames per sendmmsg(). */
#define SOCK_BATCH	64

struct traffic_socket {
	int fd;
	__u8 (*buf)[FRAME_MAX];		/* SOCK_BATCH frame buffers */
	int owner[SOCK_BATCH];		/* group whose frame a buffer holds,
					 * -1: none */
	__u32 flow[SOCK_BATCH];		/* flow written in it last */
	struct iovec iov[SOCK_BATCH];
	struct mmsghdr msg[SOCK_BATCH];
};

struct traffic_socket *traffic_socket_open(int ifindex)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
	};
	struct traffic_socket *s;
	int one = 1, err, i;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->buf = aligned_alloc(64, SOCK_BATCH * sizeof(*s->buf));
	if (!s->buf) {
		err = ENOMEM;
		goto free_s;
	}
	/* Protocol 0: the socket sends only, nothing received is queued on
	 * it. */
	s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		err = errno;
		goto free_buf;
	}
	if (setsockopt(s->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
		       sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&sll, sizeof(sll))) {
		err = errno;
		goto close_fd;
	}
	for (i = 0; i < SOCK_BATCH; i++) {
		s->owner[i] = -1;
		s->iov[i].iov_base = s->buf[i];
		s->msg[i].msg_hdr.msg_iov = &s->iov[i];
		s->msg[i].msg_hdr.msg_iovlen = 1;
	}
	return s;

close_fd:
	close(s->fd);
free_buf:
	free(s->buf);
free_s:
	free(s);
	errno = err;
	return NULL;
}

/* Puts back the frames from 'from' on of a batch of k, last first: their
 * flows' sequence numbers, and the group's cursor to the first of them. */
static void unwrite(struct traffic_socket *s, struct gen_group *g,
		    struct gen_flow *flows, int from, int k)
{
	int i;

	for (i = k - 1; i >= from; i--)
		flows[s->flow[i]].seq--;
	g->cursor = s->flow[from] - g->first;
}

/* Sends frames [0, k) of the batch, again from the first one the driver
 * dropped. Returns how many went out; errno says why, when not all. */
static int send_batch(struct traffic_socket *s, int k)
{
	int done = 0, n;

	while (done < k) {
		n = sendmmsg(s->fd, s->msg + done, (unsigned int)(k - done), 0);
		if (n > 0) {
			done += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* A veth drops a frame when its peer's queue is full and
		 * says ENOBUFS: room comes as the peer's NAPI or backlog
		 * runs, here or on another CPU. */
		if (n < 0 && errno == ENOBUFS && !tool_stop) {
			sched_yield();
			continue;
		}
		break;
	}
	return done;
}

int traffic_socket_send(struct traffic_socket *s, struct gen_group *g, int gidx,
			const void *tmpl, size_t len, struct gen_flow *flows,
			__u64 n, __u64 *sent)
{
	int i, k, done;
	__u32 flow;

	if (len > FRAME_MAX)
		return -EINVAL;
	while (n) {
		k = n < SOCK_BATCH ? (int)n : SOCK_BATCH;
		for (i = 0; i < k; i++) {
			if (s->owner[i] != gidx) {
				memcpy(s->buf[i], tmpl, len);
				s->owner[i] = gidx;
			}
			s->iov[i].iov_len = len;
			flow = traffic_next_flow(g);
			s->flow[i] = flow;
			if (traffic_write(s->buf[i], s->buf[i] + len, g,
					  &flows[flow], flow)) {
				/* The template is too short for its shape,
				 * which traffic_gen checks before: the
				 * writer may have taken a number. */
				unwrite(s, g, flows, 0, i);
				return -EINVAL;
			}
		}
		done = send_batch(s, k);
		*sent += (__u64)done;
		if (done < k) {
			/* Told to stop while the peer had no room: not an
			 * error, as a live test run cut short is not. */
			int err = tool_stop && errno == ENOBUFS ? -EINTR :
				  errno ? -errno : -EIO;

			unwrite(s, g, flows, done, k);
			return err;
		}
		n -= (__u64)k;
	}
	return 0;
}

int traffic_socket_send_copies(struct traffic_socket *s, const void *frame,
			       size_t len, __u64 n, __u64 *sent)
{
	int i, k, done;

	while (n) {
		k = n < SOCK_BATCH ? (int)n : SOCK_BATCH;
		for (i = 0; i < k; i++) {
			s->iov[i].iov_base = (void *)frame;
			s->iov[i].iov_len = len;
		}
		done = send_batch(s, k);
		for (i = 0; i < k; i++)
			s->iov[i].iov_base = s->buf[i];
		*sent += (__u64)done;
		if (done < k)
			return tool_stop && errno == ENOBUFS ? -EINTR :
			       errno ? -errno : -EIO;
		n -= (__u64)k;
	}
	return 0;
}

void traffic_socket_close(struct traffic_socket *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s->buf);
	free(s);
}
