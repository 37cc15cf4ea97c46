// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The policy's 'decap': which encapsulations the datapath looks through to
 * the inner flow, and the UDP ports of those carried in UDP.
 *
 *	decap: all                      every one, UDP ones on their standard
 *	                                port (the default)
 *	decap: none                     (or []) none
 *	decap: [gre, vxlan, {gtpu: 2152}, {geneve: [6081, 6082]}]
 *
 * The names and standard ports are include/xdp_steer/encap.h's STEER_ENCAPS.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_int.h"

/* 'decap' as one word. */
static const char *const decap_words[] = { "all", "none" };

void policy_decap_default(struct policy_decap *d)
{
	__u32 e;

	memset(d, 0, sizeof(*d));
	d->encaps = STEER_DECAP_ALL;
	for (e = 1; e < STEER_ENCAP_COUNT; e++)
		if (steer_encap_port(e))
			d->ports[d->nports++] = (struct policy_decap_port){
				steer_encap_port(e), (__u8)e };
}

bool policy_decap_equal(const struct policy_decap *a,
			const struct policy_decap *b)
{
	int i;

	if (a->encaps != b->encaps || a->nports != b->nports)
		return false;
	for (i = 0; i < a->nports; i++)
		if (a->ports[i].port != b->ports[i].port ||
		    a->ports[i].encap != b->ports[i].encap)
			return false;
	return true;
}

/* "pppoe, mpls, ..., esp": the names, for messages. */
static const char *names_str(char *buf, size_t len)
{
	size_t off = 0;
	__u32 e;

	buf[0] = '\0';
	for (e = 1; e < STEER_ENCAP_COUNT && off < len; e++)
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
				steer_encap_name(e));
	return buf;
}

/* STEER_ENCAP_* of a name, or 0 (reported, with the nearest name). */
static __u32 get_name(struct pctx *c, const yaml_node_t *n)
{
	const char *names[STEER_ENCAP_COUNT - 1], *s = yscalar(n), *hint;
	char all[128];
	__u32 e;

	for (e = 1; e < STEER_ENCAP_COUNT; e++) {
		names[e - 1] = steer_encap_name(e);
		if (yis_word(n, names[e - 1]))
			return e;
	}
	if (!s || yis_null(n)) {
		ERR(c, n, "expected an encapsulation (%s), got %s",
		    names_str(all, sizeof(all)), ynode_kind(n));
		return 0;
	}
	hint = ysuggest(s, names, STEER_ENCAP_COUNT - 1);
	if (hint)
		ERR(c, n, "unknown encapsulation '%s' (did you mean '%s'?)", s,
		    hint);
	else
		ERR(c, n, "unknown encapsulation '%s' (known: %s)", s,
		    names_str(all, sizeof(all)));
	return 0;
}

/* Where each port was first given, for "given twice". */
struct port_seen {
	const yaml_node_t *at[65536];
};

/* UDP port 'port' of encapsulation 'e', given at node 'n', into d (sorted
 * later). */
static int add_port(struct pctx *c, const yaml_node_t *n, __u32 e,
		    long long port, struct policy_decap *d,
		    struct port_seen *seen)
{
	if (seen->at[port]) {
		ERR(c, n, "UDP port %lld is given twice (first at %zu:%zu)",
		    port, seen->at[port]->start_mark.line + 1,
		    seen->at[port]->start_mark.column + 1);
		return -EINVAL;
	}
	seen->at[port] = n;
	if (d->nports == STEER_DECAP_PORTS) {
		ERR(c, n, "more than %d UDP ports in decap; the datapath holds %d",
		    STEER_DECAP_PORTS, STEER_DECAP_PORTS);
		return -EINVAL;
	}
	d->ports[d->nports++] = (struct policy_decap_port){ (__u16)port,
							    (__u8)e };
	return 0;
}

/* The ports of encapsulation 'e' at node 'v': a port or a list of them;
 * NULL: its standard port ('at' for messages). */
static int get_ports(struct pctx *c, const yaml_node_t *at,
		     const yaml_node_t *v, __u32 e, struct policy_decap *d,
		     struct port_seen *seen)
{
	yaml_node_item_t *it;
	long long port;
	int err = 0;

	if (!v)
		return add_port(c, at, e, steer_encap_port(e), d, seen);
	if (v->type != YAML_SEQUENCE_NODE) {
		if (pol_get_ranged(c, v, "UDP port", 1, 65535, &port))
			return -EINVAL;
		return add_port(c, v, e, port, d, seen);
	}
	if (v->data.sequence.items.start == v->data.sequence.items.top) {
		ERR(c, v, "no UDP port for %s; list at least one, or write %s for its standard port %u",
		    steer_encap_name(e), steer_encap_name(e),
		    steer_encap_port(e));
		return -EINVAL;
	}
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		const yaml_node_t *pn = ynode(c->doc, *it);

		if (pol_get_ranged(c, pn, "UDP port", 1, 65535, &port) ||
		    add_port(c, pn, e, port, d, seen))
			err = -EINVAL;
	}
	return err;
}

/* An entry: NAME, {NAME: PORT} or {NAME: [PORT, ...]}; its encapsulation
 * (0 after reporting), *ports the node of its ports, if any. */
static __u32 get_entry(struct pctx *c, const yaml_node_t *n,
		       const yaml_node_t **ports)
{
	yaml_node_pair_t *pair;
	__u32 e;

	*ports = NULL;
	if (n->type == YAML_SCALAR_NODE && !yis_null(n))
		return get_name(c, n);
	if (n->type != YAML_MAPPING_NODE) {
		ERR(c, n, "expected an encapsulation or {NAME: PORT}, got %s",
		    ynode_kind(n));
		return 0;
	}
	pair = n->data.mapping.pairs.start;
	if (n->data.mapping.pairs.top - pair != 1) {
		ERR(c, n, "one encapsulation per entry, as {vxlan: 4789}");
		return 0;
	}
	e = get_name(c, ynode(c->doc, pair->key));
	if (e && !steer_encap_port(e)) {
		ERR(c, n, "%s is not carried in UDP: write %s, without a port",
		    steer_encap_name(e), steer_encap_name(e));
		return 0;
	}
	*ports = ynode(c->doc, pair->value);
	return e;
}

static int cmp_port(const void *a, const void *b)
{
	const struct policy_decap_port *x = a, *y = b;

	if (x->encap != y->encap)
		return x->encap < y->encap ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/* 'decap:' in the forms of the file's opening comment: the two words,
 * then anything but a list refused, saying how to write it, then the
 * list, where every entry is checked so that one run says all its
 * mistakes. c->p->decap is set only from a list without a mistake,
 * its ports sorted by encapsulation, then port, so two policies that
 * mean the same compare equal (policy_decap_equal()). */
int pol_get_decap(struct pctx *c, const yaml_node_t *n)
{
	const yaml_node_t *first[STEER_ENCAP_COUNT] = { NULL };
	struct policy_decap d = { 0 };
	struct port_seen *seen;
	yaml_node_item_t *it;
	char all[128];
	int err = 0;
	__u32 e;

	if (yis_word(n, decap_words[0])) {
		policy_decap_default(&c->p->decap);
		return 0;
	}
	if (yis_word(n, decap_words[1])) {
		memset(&c->p->decap, 0, sizeof(c->p->decap));
		return 0;
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		if (yscalar(n) && !yis_null(n) && (e = get_name(c, n)))
			ERR(c, n, "decap is a list: write [%s]",
			    steer_encap_name(e));
		else if (yscalar(n) && !yis_null(n))
			ERR(c, n, "decap must be all, none or a list of encapsulations (%s)",
			    names_str(all, sizeof(all)));
		else if (n->type == YAML_MAPPING_NODE)
			ERR(c, n, "decap must be all, none or a list of encapsulations (%s), got a mapping; give ports in the list, as [{vxlan: 4789}]",
			    names_str(all, sizeof(all)));
		else
			ERR(c, n, "decap must be all, none or a list of encapsulations (%s), got %s",
			    names_str(all, sizeof(all)), ynode_kind(n));
		return -EINVAL;
	}
	seen = calloc(1, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		const yaml_node_t *en = ynode(c->doc, *it), *ports;

		e = get_entry(c, en, &ports);
		if (!e) {
			err = -EINVAL;
			continue;
		}
		if (first[e]) {
			ERR(c, en, "%s is listed twice (first at %zu:%zu)",
			    steer_encap_name(e), first[e]->start_mark.line + 1,
			    first[e]->start_mark.column + 1);
			err = -EINVAL;
			continue;
		}
		first[e] = en;
		d.encaps |= STEER_DECAP(e);
		if (steer_encap_port(e) && get_ports(c, en, ports, e, &d, seen))
			err = -EINVAL;
	}
	free(seen);
	qsort(d.ports, d.nports, sizeof(d.ports[0]), cmp_port);
	if (!err)
		c->p->decap = d;
	return err;
}
