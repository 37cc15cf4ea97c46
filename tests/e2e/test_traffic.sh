#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Real traffic through the steered interface, audited by an observer that
# does not trust xdp-steer: marked frames of many flows (UDP and TCP-shaped,
# IPv4 and IPv6, and ARP) sent from namespace A by traffic_gen, counted per
# flow at tc ingress of $IF_B in namespace B by observer, with the kernel's
# cpumap drops from its tracepoints and the veth pair's drop counters.
#
# The policies use every online CPU. The receiving CPU (where $IF_B's NAPI,
# and so xdp-steer, runs) is pinned to CPU 0 as a NIC queue's interrupt
# would be (traffic_lib.sh says why).
#
# For both load paths (xdp-steer attach; xdp-loader load -p, then xdp-steer
# apply): every flow reaches the stack on exactly one CPU, in order;
# received + counted drops == sent, and nothing is dropped at a paced rate
# the machine sustains; flows per CPU follow the weights (binomial
# tolerance); ARP and ping work both ways. With xdp-steer attach also: the
# frames are well-formed (B's stack finds no checksum error); a weighted
# policy; rules pinning a port and two prefixes; unpaced floods, one with a
# 16-frame cpumap queue (whatever is dropped is counted, nothing is
# reordered; the generator's rate is printed). Policy swaps under traffic
# are test_drain.sh's.
#
# TRAFFIC_RATE (frames/s, default 150000) is the paced rate: on a 2-vCPU
# EPYC the receiving side takes over a million frames/s, so 150k holds
# with a wide margin while a run of 1750 flows x 120 frames lasts 1.4 s.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

e2e_setup
traffic_init

RATE=${TRAFFIC_RATE:-150000}
FRAMES_PER_FLOW=120
SIGMAS=5
traffic_cpus
CPU_LIST=$(sed 's/,/, /g' /sys/devices/system/cpu/online)
# Flows 0-999 UDP/IPv4, 1000-1249 TCP/IPv4, 1250-1499 UDP/IPv6,
# 1500-1749 TCP/IPv6, 1750-1753 ARP requests.
MIX=(--group udp4:1000 --group tcp4:250 --group udp6:250 --group tcp6:250
     --group arp:4)
MIX_IP_LAST=1749
MIX_LAST=1753
STEER_PIN_DIR=$PIN_B

if [ -z "$C1" ]; then
	skip "all" "needs at least 2 CPUs to steer between"
	exit 0
fi

cat >"$E2E_TMP/even.yaml" <<EOF
version: 1
cpus: [$CPU_LIST]
EOF
cat >"$E2E_TMP/weighted.yaml" <<EOF
version: 1
cpus: [{cpu: $C0, weight: 1}$(printf ', {cpu: %s, weight: 3}' "${CPU_IDS[@]:1}")]
EOF
cat >"$E2E_TMP/rules.yaml" <<EOF
version: 1
cpus: [$CPU_LIST]
rules:
  - {match: {proto: udp, dst_port: 7777}, cpu: $C0}
  - {match: {src: 10.77.0.0/16}, cpu: $C1}
  - {match: {src: "fd00:77::/32"}, cpu: $C0}
EOF

# run_paced NAME GENERATOR-ARGS...: one audited run at $RATE.
run_paced() {
	local name=$1
	shift
	if ! observer_start --drop; then
		fail "$name: the observer attaches to $IF_B"
		return 1
	fi
	gen_run --rate "$RATE" "$@" ||
		fail "$name: the generator sends its frames"
	observer_stop || fail "$name: the observer reports"
	echo "  $name: $(traffic_summary "$OBS_REPORT")"
}

# The assertions on a run of $MIX with the policy in force weighted $1.
audit_mix() {
	local name=$1 weights=$2
	check "$name: every one of $((MIX_LAST + 1)) flows reached the stack on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 "$MIX_LAST"
	check "$name: no flow had a frame out of sequence" \
		traffic_in_order "$OBS_REPORT"
	check "$name: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
	check "$name: no frame was dropped at $RATE frames/s" \
		traffic_no_drops "$OBS_REPORT"
	check "$name: the IP flows per CPU match weights $weights within $SIGMAS sigma" \
		traffic_share "$OBS_REPORT" 0 "$MIX_IP_LAST" "$weights" "$SIGMAS"
	check "$name: every ARP frame sent reached the stack" \
		test "$(report_get "$OBS_REPORT" marked_arp)" -eq \
		"$(awk '$5 == "arp" {s += $7} END {print s + 0}' "$GEN_FLOWS")"
}

# ARP and ping across the steered interface, both directions.
audit_nonip() {
	local name=$1
	if ! command -v python3 >/dev/null; then
		skip "$name: ARP and ping" "python3 missing"
		return
	fi
	ip -n "$NS_A" neigh flush dev "$IF_A"
	ip -n "$NS_B" neigh flush dev "$IF_B"
	check "$name: ping from A to B is answered (ARP request in through XDP)" \
		traffic_ping "$NS_A" "$IP_B" 3
	check "$name: A resolved B's MAC by ARP" \
		traffic_neigh_resolved "$NS_A" "$IF_A" "$IP_B" "$MAC_B"
	ip -n "$NS_B" neigh flush dev "$IF_B"
	check "$name: ping from B to A is answered (ARP reply and echo reply in through XDP)" \
		traffic_ping "$NS_B" "$IP_A" 3
	check "$name: B resolved A's MAC by ARP" \
		traffic_neigh_resolved "$NS_B" "$IF_B" "$IP_A" "$MAC_A"
	check "$name: IPv6 ping from B to A is answered (neighbour discovery through XDP)" \
		traffic_ping "$NS_B" "$IP6_A" 3
}

# ---- xdp-steer attach --------------------------------------------------------

if ! in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/even.yaml"; then
	fail "xdp-steer attach $IF_B in native mode"
	e2e_done
fi
check "the receiving CPU is pinned to CPU $TRAFFIC_RX_CPU (threaded NAPI)" traffic_rx_pin

run_paced "attach, cpus [$CPU_LIST]" "${MIX[@]}" \
	--count $(( (MIX_LAST + 1) * FRAMES_PER_FLOW ))
audit_mix "attach, cpus [$CPU_LIST]" "$EVEN"
audit_nonip "attach"

# Well-formed frames: let through to B's stack, which has no sockets for
# them, every UDP frame must count as a datagram for a closed port and none
# as a checksum error; TCP-shaped ones must pass TCP's checksum too.
snmp0=$(traffic_snmp "$NS_B")
if observer_start; then
	gen_run --rate "$RATE" "${MIX[@]}" --count $(( (MIX_LAST + 1) * 10 )) ||
		fail "checksums: the generator sends its frames"
	observer_stop
	snmp1=$(traffic_snmp "$NS_B")
	delta() { traffic_snmp_delta "$snmp0" "$snmp1" "$1"; }
	check "checksums: B's stack took all $(gen_sent_of udp4) UDP/IPv4 frames as datagrams (Udp:NoPorts)" \
		test "$(delta Udp:NoPorts)" -eq "$(gen_sent_of udp4)"
	check "checksums: B's stack took all $(gen_sent_of udp6) UDP/IPv6 frames as datagrams (Udp6NoPorts)" \
		test "$(delta Udp6NoPorts)" -eq "$(gen_sent_of udp6)"
	check "checksums: B's stack took all $(( $(gen_sent_of tcp4) + $(gen_sent_of tcp6) )) TCP-shaped frames as segments (Tcp:InSegs)" \
		test "$(delta Tcp:InSegs)" -ge "$(( $(gen_sent_of tcp4) + $(gen_sent_of tcp6) ))"
	check "checksums: B's stack counted no UDP, UDP6 or TCP checksum error" \
		test "$(( $(delta Udp:InCsumErrors) + $(delta Udp6InCsumErrors) + $(delta Tcp:InCsumErrors) + $(delta Tcp:InErrs) ))" -eq 0
else
	fail "checksums: the observer attaches to $IF_B"
fi

# Weights 1:3: on 2 CPUs a quarter of the flows go to the first (250 of
# 1000 expected, 5 sigma = 68); an even split would be 18 sigma off.
if in_b "$XDP_STEER" -q apply "$IF_B" --policy "$E2E_TMP/weighted.yaml"; then
	run_paced "weights $WEIGHTED" --group udp4:1000 --count 100000
	check "weights $WEIGHTED: every one of 1000 flows reached the stack on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 999
	check "weights $WEIGHTED: no flow had a frame out of sequence" \
		traffic_in_order "$OBS_REPORT"
	check "weights $WEIGHTED: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
	check "weights $WEIGHTED: no frame was dropped at $RATE frames/s" \
		traffic_no_drops "$OBS_REPORT"
	check "weights $WEIGHTED: flows per CPU match weights 1:3 within $SIGMAS sigma" \
		traffic_share "$OBS_REPORT" 0 999 "$WEIGHTED" "$SIGMAS"
else
	fail "xdp-steer apply of a weighted policy"
fi

# Rules: each group is 300 flows that hashing alone would spread over both
# CPUs; the last group matches no rule and must still spread.
if in_b "$XDP_STEER" -q apply "$IF_B" --policy "$E2E_TMP/rules.yaml"; then
	run_paced "rules" --count 120000 \
		--group udp4:300,dport=7777 \
		--group udp4:300,src=10.77.0.1 \
		--group tcp6:300,src=fd00:77::1 \
		--group udp4:300,src=10.78.0.1
	check "rules: the UDP dst_port 7777 rule put all its 300 flows on CPU $C0" \
		traffic_on_cpu "$OBS_REPORT" 0 299 "$C0"
	check "rules: the 10.77.0.0/16 source prefix rule put all its 300 flows on CPU $C1" \
		traffic_on_cpu "$OBS_REPORT" 300 599 "$C1"
	check "rules: the fd00:77::/32 source prefix rule put all its 300 TCP/IPv6 flows on CPU $C0" \
		traffic_on_cpu "$OBS_REPORT" 600 899 "$C0"
	check "rules: flows matching no rule still spread over all CPUs within $SIGMAS sigma" \
		traffic_share "$OBS_REPORT" 900 1199 "$EVEN" "$SIGMAS"
	check "rules: no flow had a frame out of sequence" traffic_in_order "$OBS_REPORT"
	check "rules: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
else
	fail "xdp-steer apply of a policy with rules"
fi

# Unpaced floods: whatever is dropped must be counted, and drops may leave
# gaps but never reorder a flow. With a 16-frame cpumap queue the worker
# cannot keep up, so the cpumap drops (seen only by the tracepoint) must
# show up in the account.
flood() {
	local name=$1 policy=$2
	if ! in_b "$XDP_STEER" -q apply "$IF_B" --policy "$policy"; then
		fail "$name: xdp-steer apply"
		return
	fi
	if ! observer_start --drop; then
		fail "$name: the observer attaches to $IF_B"
		return
	fi
	gen_run --group udp4:1000 --count 2000000 ||
		fail "$name: the generator sends its frames"
	observer_stop
	echo "  $name: $(traffic_summary "$OBS_REPORT")"
	echo "  $name: drops: $(traffic_drops_detail "$OBS_REPORT")"
	echo "  $name: the generator sent $GEN_SENT frames in $GEN_SECONDS s: $GEN_FPS frames/s"
	check "$name: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
	check "$name: every one of 1000 flows reached the stack on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 999
	check "$name: no frame arrived after a later one of its flow" \
		traffic_not_late "$OBS_REPORT"
}
cat >"$E2E_TMP/small-queue.yaml" <<EOF
version: 1
cpus: [$CPU_LIST]
queue_size: 16
EOF
flood "flood" "$E2E_TMP/even.yaml"
flood "flood, 16-frame cpumap queue" "$E2E_TMP/small-queue.yaml"
check "flood, 16-frame cpumap queue: the cpumap dropped frames, and they were counted" \
	test "$(report_get "$OBS_REPORT" drops_cpumap_enqueue)" -gt 0
in_b "$XDP_STEER" -q apply "$IF_B" --policy "$E2E_TMP/even.yaml" ||
	fail "xdp-steer apply back to cpus [$CPU_LIST]"

# ---- xdp-loader load -p, then xdp-steer apply ---------------------------------

in_b "$XDP_STEER" -q detach "$IF_B" || fail "xdp-steer detach $IF_B"
if ! command -v xdp-loader >/dev/null; then
	skip "xdp-loader path" "xdp-loader missing (xdp-tools)"
elif in_b "$XDP_STEER" -q pin-dir --create "$IF_B" >/dev/null &&
     in_b xdp-loader load -m native -p "$STEER_PIN_DIR" "$IF_B" "$BPF_OBJ" >/dev/null 2>&1 &&
     in_b "$XDP_STEER" -q apply "$IF_B" --policy "$E2E_TMP/even.yaml"; then
	check "xdp-loader: the receiving CPU is pinned to CPU $TRAFFIC_RX_CPU (threaded NAPI)" \
		traffic_rx_pin
	run_paced "xdp-loader, cpus [$CPU_LIST]" "${MIX[@]}" \
		--count $(( (MIX_LAST + 1) * FRAMES_PER_FLOW ))
	audit_mix "xdp-loader, cpus [$CPU_LIST]" "$EVEN"
	audit_nonip "xdp-loader"
else
	fail "xdp-loader load -m native -p, then xdp-steer apply"
fi

e2e_done
