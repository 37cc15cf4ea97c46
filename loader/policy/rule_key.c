// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A rule as map keys: its mirror for symmetric hashing, and its key cut to
 * a shape and prefix length. Used by compile.c and by the shadowed-rule
 * check; calls no other file of policy/. */
#include <string.h>

#include "policy/policy.h"
#include "util/array.h"

void policy_addr_mask(__u32 *addr, int bytes, int len)
{
	__u8 *b = (__u8 *)addr;
	int i;

	for (i = 0; i < bytes; i++) {
		if (len >= 8)
			len -= 8;
		else {
			b[i] &= (__u8)(0xff00 >> len);
			len = 0;
		}
	}
}

__u32 policy_shape_mirror(__u32 shape)
{
	static const __u32 pairs[][2] = {
		{ STEER_M_SRC, STEER_M_DST },
		{ STEER_M_SPORT, STEER_M_DPORT },
		{ STEER_M_PREFIX_SRC, STEER_M_PREFIX_DST },
	};
	__u32 m = shape;
	size_t i;

	for (i = 0; i < ARRAY_LEN(pairs); i++) {
		m &= ~(pairs[i][0] | pairs[i][1]);
		if (shape & pairs[i][0])
			m |= pairs[i][1];
		if (shape & pairs[i][1])
			m |= pairs[i][0];
	}
	return m;
}

void policy_rule_mirror(const struct policy_rule *r, struct policy_rule *m)
{
	*m = *r;
	m->shape = policy_shape_mirror(r->shape);
	m->fields = m->shape & STEER_M_ALL;
	memcpy(m->flow.src, r->flow.dst, sizeof(m->flow.src));
	memcpy(m->flow.dst, r->flow.src, sizeof(m->flow.dst));
	m->flow.sport = r->flow.dport;
	m->flow.dport = r->flow.sport;
	m->src_len = r->dst_len;
	m->dst_len = r->src_len;
}

void policy_rule_key(const struct policy_rule *r, __u32 s, int len,
		     struct steer_prefix_key *k)
{
	int bytes = r->flow.family == STEER_AF_INET ? 4 : 16;
	const __u32 *a, *o;
	__u32 other;

	memset(k, 0, sizeof(*k));
	k->shape = s;
	k->family = (s & (STEER_M_SRC | STEER_M_DST)) ? r->flow.family : 0;
	k->proto = (s & STEER_M_PROTO) ? r->flow.proto : 0;
	k->sport = (s & STEER_M_SPORT) ? r->flow.sport : 0;
	k->dport = (s & STEER_M_DPORT) ? r->flow.dport : 0;
	if (!(s & STEER_M_PREFIX)) {
		if (s & STEER_M_SRC)
			memcpy(k->other, r->flow.src, sizeof(k->other));
		if (s & STEER_M_DST)
			memcpy(k->addr, r->flow.dst, sizeof(k->addr));
		return;
	}
	a = (s & STEER_M_PREFIX_DST) ? r->flow.dst : r->flow.src;
	o = (s & STEER_M_PREFIX_DST) ? r->flow.src : r->flow.dst;
	other = (s & STEER_M_PREFIX_DST) ? STEER_M_SRC : STEER_M_DST;
	if (s & other)
		memcpy(k->other, o, sizeof(k->other));
	memcpy(k->addr, a, bytes);
	policy_addr_mask(k->addr, bytes, len);
	k->prefixlen = STEER_PREFIX_FIXED_BITS + len;
}
