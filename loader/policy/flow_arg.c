// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A flow named on the command line (`xdp-steer which`), as the datapath
 * parses one from a frame: struct steer_flow. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

static int get_proto(const char *s, __u8 *proto, struct why *why)
{
	unsigned long v;
	char *end;
	int n = policy_proto_number(s);

	if (n >= 0) {
		*proto = n;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s >= '0' && *s <= '9' && !*end && !errno && v <= 255) {
		*proto = v;
		return 0;
	}
	why_set(why, "unknown protocol '%s' (use tcp, udp, udplite, sctp, icmp, icmpv6 or a number 0-255)",
		s);
	return -EINVAL;
}

/* ADDR, IPV4:PORT or [IPV6]:PORT into addr[] (network order), *port
 * (network order, 0 when not given) and *family. */
static int get_end(const char *s, const char *what, __u32 *addr,
		   __u16 *port, __u8 *family, bool *has_port, struct why *why)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *colon = NULL, *a = s;
	unsigned long v;
	size_t n;
	char *end;

	*has_port = false;
	*port = 0;
	memset(addr, 0, 16);
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || (close[1] && close[1] != ':'))
			goto bad;
		a = s + 1;
		n = close - a;
		colon = close[1] ? close + 1 : NULL;
	} else {
		colon = strchr(s, ':');
		/* More than one ':' is an IPv6 address without a port. */
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;
		n = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (n >= sizeof(buf))
		goto bad;
	memcpy(buf, a, n);
	buf[n] = 0;
	if (*s != '[' && inet_pton(AF_INET, buf, addr) == 1)
		*family = STEER_AF_INET;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		*family = STEER_AF_INET6;
	else
		goto bad;
	if (colon) {
		errno = 0;
		v = strtoul(colon + 1, &end, 10);
		if (colon[1] < '0' || colon[1] > '9' || *end || errno ||
		    v < 1 || v > 65535) {
			why_set(why, "bad port in %s '%s' (1-65535)", what, s);
			return -EINVAL;
		}
		*port = htons((__u16)v);
		*has_port = true;
	}
	return 0;
bad:
	why_set(why, "bad %s '%s' (an IPv4 address, IPv4:PORT, an IPv6 address or [IPv6]:PORT)",
		what, s);
	return -EINVAL;
}

int policy_flow_parse(const char *proto, const char *src, const char *dst,
		      struct steer_flow *f, struct why *why)
{
	bool sp, dp;
	__u8 sf, df;
	int err;

	memset(f, 0, sizeof(*f));
	err = get_proto(proto, &f->proto, why);
	if (!err)
		err = get_end(src, "source", f->src, &f->sport, &sf, &sp, why);
	if (!err)
		err = get_end(dst, "destination", f->dst, &f->dport, &df, &dp,
			      why);
	if (err)
		return err;
	if (sf != df) {
		why_set(why, "the source '%s' and the destination '%s' are not of one family (IPv4 or IPv6)",
			src, dst);
		return -EINVAL;
	}
	f->family = sf;
	if ((sp || dp) && !policy_proto_has_ports(f->proto)) {
		why_set(why, "%s has no ports the datapath reads (only tcp, udp, udplite and sctp do); leave them out",
			proto);
		return -EINVAL;
	}
	return 0;
}
