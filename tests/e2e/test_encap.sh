#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Tunnelled traffic steered by its inner flow, audited by the observer
# (which finds the inner flows itself, tests/e2e/observer.bpf.c).
#
# 1. traffic_gen sends 1000 inner UDP flows inside each encapsulation, every
#    frame of a group between one outer pair of endpoints (namespace A's
#    and B's veth addresses): PPPoE, MPLS, GRE over IPv4 and IPv6, IP-in-IP,
#    VXLAN, Geneve, GTP-U; and 1000 ESP flows (SPIs) between one pair of
#    hosts. Per group: every inner flow reaches the stack on one CPU, the
#    flows spread over the CPUs as the weights say; all in order, nothing
#    dropped, received + counted drops == sent; xdp-steer's stats count
#    each group's frames under its encapsulation, none malformed. Then the
#    same GRE traffic with decap: none: all its flows meet on one CPU.
# 2. Real tunnel devices of the kernel (GRE, IP-in-IP, VXLAN) between the
#    namespaces: 1000 flows of marked UDP datagrams sent by A's stack through
#    A's tunnel device, steered by xdp-steer on B's veth, decapsulated by
#    B's device and counted by B's UDP (Udp:NoPorts): every flow on one CPU,
#    none reordered, every datagram that arrived through the tunnel (and
#    seen + counted drops == sent), counted under its encapsulation.
#
# TRAFFIC_RATE (default 150000) paces part 1, as in test_traffic.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

e2e_setup
traffic_init

RATE=${TRAFFIC_RATE:-150000}
FLOWS=1000
FRAMES_PER_FLOW=20
SIGMAS=5
traffic_cpus

if [ -z "$C1" ]; then
	skip "all" "needs at least 2 CPUs to steer between"
	exit 0
fi

cat >"$E2E_TMP/weighted.yaml" <<EOF
version: 1
cpus: [{cpu: $C0, weight: 1}$(printf ', {cpu: %s, weight: 3}' "${CPU_IDS[@]:1}")]
EOF
cat >"$E2E_TMP/nodecap.yaml" <<EOF
version: 1
cpus: [{cpu: $C0, weight: 1}$(printf ', {cpu: %s, weight: 3}' "${CPU_IDS[@]:1}")]
decap: none
EOF

# stats_json EXPR: the expression over `stats --json` of $IF_B (as d, its
# totals as t) holds.
stats_json() {
	json_holds "$(in_b "$XDP_STEER" stats "$IF_B" --json)" \
		"(lambda t: $1)(d['totals'])"
}

if ! in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/weighted.yaml"; then
	fail "xdp-steer attach $IF_B"
	e2e_done
fi
check "the receiving CPU is pinned to CPU $TRAFFIC_RX_CPU (threaded NAPI)" traffic_rx_pin
check "status shows every encapsulation looked through, on the standard ports" \
	json_holds "$(in_b "$XDP_STEER" status "$IF_B" --json)" \
	"[e['name'] for e in d['policy']['decap']] == ['pppoe', 'mpls', 'gre', 'ipip', 'vxlan', 'geneve', 'gtpu', 'esp'] and
	 [e.get('udp_ports') for e in d['policy']['decap'] if 'udp_ports' in e] == [[4789], [6081], [2152]]"

# ---- 1. generated tunnels ----------------------------------------------------

# "KIND COUNTER" per group, in --group order; group g is flows
# g*FLOWS .. g*FLOWS+FLOWS-1.
ENCAP_GROUPS=(
	"udp4+pppoe pppoe" "udp4+mpls mpls" "udp4+gre gre" "udp6+gre6 gre"
	"udp4+ipip ipip" "udp6+ipip ipip" "udp4+vxlan vxlan"
	"udp4+geneve geneve" "udp4+gtpu gtpu" "esp4 esp"
)
ARGS=()
for g in "${ENCAP_GROUPS[@]}"; do
	kind=${g%% *}
	case $kind in
	*6+gre6) ARGS+=(--group "${kind%%+*}:$FLOWS,encap=gre,outer=6") ;;
	*+*) ARGS+=(--group "${kind%%+*}:$FLOWS,encap=${kind#*+}") ;;
	*) ARGS+=(--group "$kind:$FLOWS,per-addr=$FLOWS") ;;
	esac
done
NGROUPS=${#ENCAP_GROUPS[@]}
LAST=$((NGROUPS * FLOWS - 1))

stats0=$(in_b "$XDP_STEER" stats "$IF_B" --json)
if ! observer_start --drop; then
	fail "the observer attaches to $IF_B"
	e2e_done
fi
gen_run --rate "$RATE" --count $((NGROUPS * FLOWS * FRAMES_PER_FLOW)) "${ARGS[@]}" ||
	fail "the generator sends its frames"
observer_stop || fail "the observer reports"
echo "  $(traffic_summary "$OBS_REPORT")"
stats1=$(in_b "$XDP_STEER" stats "$IF_B" --json)

# encap_delta COUNTER: how much a stats counter grew over the run.
encap_delta() {
	python3 -c 'import json, sys
a, b = (json.loads(x)["totals"] for x in sys.argv[1:3])
print(b[sys.argv[3]] - a[sys.argv[3]])' "$stats0" "$stats1" "encap_$1"
}

for i in "${!ENCAP_GROUPS[@]}"; do
	kind=${ENCAP_GROUPS[$i]%% *} counter=${ENCAP_GROUPS[$i]#* }
	first=$((i * FLOWS)) last=$((i * FLOWS + FLOWS - 1))
	[ "$kind" = udp6+gre6 ] && kind=udp6+gre
	name="$kind (flows $first-$last)"
	check "$name: every one of $FLOWS inner flows reached the stack on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" "$first" "$last"
	check "$name: the inner flows per CPU match weights $WEIGHTED within $SIGMAS sigma" \
		traffic_share "$OBS_REPORT" "$first" "$last" "$WEIGHTED" "$SIGMAS"
done
check "no inner flow had a frame out of sequence" traffic_in_order "$OBS_REPORT"
check "frames received + counted drops == frames sent ($GEN_SENT)" \
	traffic_accounted "$OBS_REPORT"
check "no frame was dropped at $RATE frames/s" traffic_no_drops "$OBS_REPORT"
for counter in pppoe mpls gre ipip vxlan geneve gtpu esp; do
	want=0
	for g in "${ENCAP_GROUPS[@]}"; do
		kind=${g%% *}
		[ "${g#* }" = "$counter" ] || continue
		[ "$kind" = udp6+gre6 ] && kind=udp6+gre
		want=$((want + $(gen_sent_of "$kind")))
	done
	check "stats: encap_$counter counted the $want frames sent inside $counter" \
		test "$(encap_delta "$counter")" -eq "$want"
done
check "stats: no frame of an encapsulation was malformed" \
	test "$(encap_delta malformed)" -eq 0
check "stats: the text output has the tunnels line" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER stats $IF_B --totals | grep -q '^ *tunnels .*gre'"

# Not looked through: every GRE flow is the one outer flow.
if in_b "$XDP_STEER" -q apply "$IF_B" --policy "$E2E_TMP/nodecap.yaml" && observer_start --drop; then
	gen_run --rate "$RATE" --count $((FLOWS * 5)) --group "udp4:$FLOWS,encap=gre" ||
		fail "decap none: the generator sends its frames"
	observer_stop
	check "decap: none: all $FLOWS GRE flows meet on one CPU (the outer flow's)" \
		awk '$1 == "flow" { cpus[$4] = 1; n++ }
		     END { for (c in cpus) k++; if (n != 1000 || k != 1) { print n " flows on " k " CPUs"; exit 1 } }' \
		"$OBS_REPORT"
else
	fail "decap: none: apply and observer"
fi
in_b "$XDP_STEER" -q apply "$IF_B" --policy "$E2E_TMP/weighted.yaml" ||
	fail "xdp-steer apply back to the weighted policy"

# ---- 2. the kernel's own tunnel devices --------------------------------------

# tunnel_pair KIND: a tunnel device of KIND in A and in B over the veth,
# 192.168.77.1/24 and .2/24 on them; 1 (a skip printed) when the kernel
# has no such device.
tunnel_pair() {
	local kind=$1 a b
	case $kind in
	gre) a=(type gre local "$IP_A" remote "$IP_B")
	     b=(type gre local "$IP_B" remote "$IP_A") ;;
	ipip) a=(type ipip local "$IP_A" remote "$IP_B")
	      b=(type ipip local "$IP_B" remote "$IP_A") ;;
	vxlan) a=(type vxlan id 42 local "$IP_A" remote "$IP_B" dstport 4789 dev "$IF_A")
	       b=(type vxlan id 42 local "$IP_B" remote "$IP_A" dstport 4789 dev "$IF_B") ;;
	esac
	if ! ip -n "$NS_A" link add tun7 "${a[@]}" 2>/dev/null ||
	   ! ip -n "$NS_B" link add tun7 "${b[@]}" 2>/dev/null; then
		ip -n "$NS_A" link del tun7 2>/dev/null
		skip "real $kind tunnel" "the kernel cannot make a $kind device here"
		return 1
	fi
	ip -n "$NS_A" addr add 192.168.77.1/24 dev tun7 &&
	ip -n "$NS_B" addr add 192.168.77.2/24 dev tun7 &&
	ip -n "$NS_A" link set tun7 up && ip -n "$NS_B" link set tun7 up
}

TUN_FLOWS=1000
TUN_ROUNDS=10

# veth_tx_dropped: what A's veth dropped handing skbs to B (its ring full);
# traffic_drops counts only what XDP redirects lose there.
veth_tx_dropped() {
	ip -n "$NS_A" -j -s link show "$IF_A" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["dropped"])'
}
for kind in gre ipip vxlan; do
	tunnel_pair "$kind" || continue
	ip netns exec "$NS_A" ethtool -K tun7 tx off >/dev/null 2>&1
	name="real $kind tunnel"
	# Neighbours resolved first (B's veth address; VXLAN's inner address,
	# by ARP inside VXLAN): datagrams sent meanwhile would wait in the
	# neighbour queue, the surplus dropped, the rest sent late.
	check "$name: A reaches B's address inside the tunnel" \
		traffic_ping "$NS_A" 192.168.77.2 2
	snmp0=$(traffic_snmp "$NS_B")
	stats0=$(in_b "$XDP_STEER" stats "$IF_B" --json)
	_link_counters_before
	txd0=$(veth_tx_dropped)
	if ! observer_start; then
		fail "$name: the observer attaches to $IF_B"
		continue
	fi
	out=$(nsenter --net=/run/netns/"$NS_A" python3 "$E2E_ROOT/tests/e2e/tunnel_send.py" \
		192.168.77.2 9999 0 "$TUN_FLOWS" "$TUN_ROUNDS")
	sent=${out#sent=}
	TRAFFIC_DRAIN=1 observer_stop
	snmp1=$(traffic_snmp "$NS_B")
	stats1=$(in_b "$XDP_STEER" stats "$IF_B" --json)
	seen=$(report_get "$OBS_REPORT" marked)
	txd=$(( $(veth_tx_dropped) - txd0 ))
	drops=$(( $(traffic_drops "$OBS_REPORT") + txd ))
	echo "  $name: $(GEN_SENT=$sent traffic_summary "$OBS_REPORT"); drops: $(traffic_drops_detail "$OBS_REPORT"), A's veth handing skbs over $txd"
	check "$name: every one of $TUN_FLOWS flows reached B's stack on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 $((TUN_FLOWS - 1))
	check "$name: no datagram came after a later one of its flow" \
		traffic_not_late "$OBS_REPORT"
	check "$name: datagrams seen ($seen) + counted drops ($drops) account for all $sent sent" \
		test "$seen" -le "$sent" -a $((seen + drops)) -ge "$sent"
	check "$name: the flows per CPU match weights $WEIGHTED within $SIGMAS sigma" \
		traffic_share "$OBS_REPORT" 0 $((TUN_FLOWS - 1)) "$WEIGHTED" "$SIGMAS"
	check "$name: B's tunnel device decapsulated all $seen datagrams that arrived, to its UDP (Udp:NoPorts)" \
		test "$(traffic_snmp_delta "$snmp0" "$snmp1" Udp:NoPorts)" -eq "$seen"
	check "$name: stats counted them under encap_$kind, none malformed" \
		python3 -c 'import json, sys
a, b = (json.loads(x)["totals"] for x in sys.argv[1:3])
k = "encap_" + sys.argv[3]
sys.exit(0 if b[k] - a[k] >= int(sys.argv[4]) and b["encap_malformed"] == a["encap_malformed"] else 1)' \
		"$stats0" "$stats1" "$kind" "$seen"
	ip -n "$NS_A" link del tun7
	ip -n "$NS_B" link del tun7
done

e2e_done
