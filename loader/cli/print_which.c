// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `xdp-steer which` as a line of text or JSON: see print_which.h. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "cli/json.h"
#include "cli/print_which.h"

/* "10.0.0.1:80", "[2001:db8::1]:80", or the address alone (no port). */
static void end_str(const struct steer_flow *f, const __u32 *addr,
		    __u16 port, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	bool v6 = f->family == STEER_AF_INET6;

	inet_ntop(v6 ? AF_INET6 : AF_INET, addr, a, sizeof(a));
	if (!port)
		snprintf(buf, len, "%s", a);
	else if (v6)
		snprintf(buf, len, "[%s]:%u", a, ntohs(port));
	else
		snprintf(buf, len, "%s:%u", a, ntohs(port));
}

static void proto_str(__u8 proto, char *buf, size_t len)
{
	const char *name = policy_proto_name(proto);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%u", proto);
}

/* "proto, dst_port" or "src prefix, dst_port": the fields of a shape. */
static void shape_str(__u32 shape, char *buf, size_t len)
{
	static const struct {
		__u32 bit;
		const char *name;
	} fields[] = {
		{ STEER_M_PROTO, "proto" }, { STEER_M_SRC, "src" },
		{ STEER_M_DST, "dst" }, { STEER_M_SPORT, "src_port" },
		{ STEER_M_DPORT, "dst_port" },
	};
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!(shape & fields[i].bit))
			continue;
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s%s",
			      n ? ", " : "", fields[i].name,
			      (fields[i].bit == STEER_M_SRC &&
			       (shape & STEER_M_PREFIX_SRC)) ||
			      (fields[i].bit == STEER_M_DST &&
			       (shape & STEER_M_PREFIX_DST)) ? " prefix" : "");
	}
}

static const char *by_word(const struct steer_which *w)
{
	return w->by == STEER_WHICH_RULE ? "rule" :
	       w->by == STEER_WHICH_PREFIX ? "prefix" : "table";
}

void print_which_text(const char *ifname, const struct steer_which *w)
{
	char p[16], src[64], dst[64], shape[96];
	int c, first = 1;

	proto_str(w->flow.proto, p, sizeof(p));
	end_str(&w->flow, w->flow.src, w->flow.sport, src, sizeof(src));
	end_str(&w->flow, w->flow.dst, w->flow.dport, dst, sizeof(dst));
	printf("%s: %s %s -> %s: cpu %u, ", ifname, p, src, dst, w->cpu);
	if (w->by != STEER_WHICH_TABLE) {
		shape_str(w->shape, shape, sizeof(shape));
		printf("by %s rule %u (%s%s)", w->by == STEER_WHICH_PREFIX ?
		       "prefix" : "exact-field", w->rule_id + 1, shape,
		       w->symmetric ? "; the rule's fields or, under hash.symmetric, its mirror's" : "");
		if (w->set_size > 1)
			printf(", its CPU set's member for this flow's hash (%u entries)",
			       w->set_size);
	} else {
		printf("by bucket %u of the table's %u (drain bucket %u), ",
		       w->bucket, w->table_size, w->record);
		if (!w->ndraining)
			printf("not draining");
		for (c = 0; c < STEER_RX_CPU_IDS; c++) {
			if (w->draining_to[c] == STEER_CPU_LOCAL)
				continue;
			printf("%s receiving cpu %d still sends it to cpu %u",
			       first ? "draining:" : ",", c, w->draining_to[c]);
			first = 0;
		}
		if (w->ndraining)
			printf(" (for %d ms so far)", w->drain_ms);
		if (w->nstalled)
			printf(" (its old cpu's kthread took nothing off its ring for the drain timeout: the bucket waits for it, never moved by a timer)");
	}
	if (w->fastpath)
		printf("; passed on the spot when received on cpu %u (local fast path)",
		       w->cpu);
	printf("; hash key %s", steer_hash_key_name(w->key_flags));
	if (w->key_flags & (STEER_F_KEY_VLAN | STEER_F_KEY_TUNNEL))
		printf(" (frames of this flow with %s hash on %s instead)",
		       w->key_flags & STEER_F_KEY_VLAN ? "VLAN tags" :
		       "a VNI, TEID or SPI", w->key_flags & STEER_F_KEY_VLAN ?
		       "their VLAN IDs" : "it");
	else if ((w->key_flags & STEER_F_KEY_ID) && !w->key_id)
		printf(" (this flow has no ports: hashed as l4)");
	printf("; policy generation %u\n", w->generation);
}

void print_which_json(const char *ifname, const struct steer_which *w)
{
	char p[16], a[INET6_ADDRSTRLEN], shape[96];
	int af = w->flow.family == STEER_AF_INET6 ? AF_INET6 : AF_INET, c;
	int first = 1;

	proto_str(w->flow.proto, p, sizeof(p));
	printf("{\"ifname\": ");
	json_str(stdout, ifname);
	printf(", \"proto\": \"%s\", \"src\": \"%s\", \"sport\": %u", p,
	       inet_ntop(af, w->flow.src, a, sizeof(a)), ntohs(w->flow.sport));
	printf(", \"dst\": \"%s\", \"dport\": %u",
	       inet_ntop(af, w->flow.dst, a, sizeof(a)), ntohs(w->flow.dport));
	printf(", \"generation\": %u, \"hash\": %u, \"cpu\": %u, \"by\": \"%s\", \"fastpath\": %s",
	       w->generation, w->hash, w->cpu, by_word(w),
	       w->fastpath ? "true" : "false");
	printf(", \"key\": \"%s\", \"key_applied\": %s",
	       steer_hash_key_name(w->key_flags), w->key_id ? "true" : "false");
	if (w->by != STEER_WHICH_TABLE) {
		shape_str(w->shape, shape, sizeof(shape));
		printf(", \"rule\": %u, \"fields\": \"%s\", \"set_size\": %u}\n",
		       w->rule_id + 1, shape, w->set_size);
		return;
	}
	printf(", \"bucket\": %u, \"table_size\": %u, \"drain_bucket\": %u, \"draining\": %s, \"drain_stalled\": %s, \"drain_ms\": %d, \"draining_from\": [",
	       w->bucket, w->table_size, w->record,
	       w->ndraining ? "true" : "false", w->nstalled ? "true" : "false",
	       w->drain_ms);
	for (c = 0; c < STEER_RX_CPU_IDS; c++) {
		if (w->draining_to[c] == STEER_CPU_LOCAL)
			continue;
		printf("%s{\"rx_cpu\": %d, \"cpu\": %u}", first ? "" : ", ", c,
		       w->draining_to[c]);
		first = 0;
	}
	printf("]}\n");
}
