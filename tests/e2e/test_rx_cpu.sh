#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The CPU that takes an IPv4 or IPv6 frame is a function of the policy and
# the frame's own bytes, never of the CPU that received it (DESIGN.md 1,
# invariant 2): a flow reaches the stack on one CPU, in order, however
# often its receiving CPU changes. Only frames without a readable IP header
# (and non_ip: local) may follow the receiving CPU.
#
# Frames sent, a group of $FLOWS flows each ($FRAMES_PER_FLOW frames a
# flow), all from traffic_gen, counted by the observer (tests/e2e/
# observer.bpf.c, which parses the frames itself and trusts nothing of
# xdp-steer):
# - plain UDP and TCP over IPv4 and IPv6, ESP over IPv4;
# - UDP over IPv4 and IPv6 to each port the default decap (all) looks
#   through, 4789 (VXLAN), 6081 (Geneve) and 2152 (GTP-U), carrying the
#   generator's mark, which is no tunnel header; and to 8472 and 4500,
#   tunnels' ports the default does not look through;
# - well-formed GRE over IPv4 and VXLAN over IPv6 (steered by the inner
#   flow);
# - tunnels xdp-steer counts malformed (traffic_gen's bad=): VXLAN without
#   its I flag over IPv4 and IPv6, Geneve of version 1, GTP of version 2
#   over IPv4 and IPv6, GTP-U with an extension header past the datagram,
#   GRE with the routing bit, GRE of version 1 (PPTP's) over IPv6, an
#   inner IP header longer than the outer datagram (IPv6 in IPv4, IPv4 in
#   VXLAN); and frames it cannot parse: UDP and TCP over IPv4 and IPv6
#   whose IP length leaves 2 bytes of the transport header (l4-short: the
#   rest, mark included, in the frame past the datagram, where the
#   observer still reads it), and IPv6 UDP and TCP behind one hop-by-hop
#   header more than the parser walks (ext-chain: the observer walks 16).
#   The observer finds every flow of these by its mark.
# - PPPoE of version 2: no outer IP header, so the invariant allows it to
#   follow the receiving CPU; its flows are counted and shown, not
#   asserted.
#
# Policy: every online CPU a worker, the default decap (all) and drain.
# 1. The sender moves between $C0 and $C1 every $HOP_MS ms (a process
#    setting its affinity); veth runs the receiving NAPI, so xdp-steer, on
#    the sending CPU, so the receiving CPU moves with it.
# 2. The same with the receive NAPI moved instead: $IF_B's NAPI threaded
#    (traffic_rx_pin), its thread moved between $C0 and $C1 every $HOP_MS
#    ms, the sender pinned to $C0.
# Each: the moves happened and both CPUs received frames; per kind, every
# flow reached the stack on exactly one CPU with no frame late (reordered);
# frames seen + counted drops == frames sent.
#
# TRAFFIC_RATE (default 40000 frames/s) paces both runs: slow enough that
# the sender and the receive NAPI on different CPUs (part 2) keep up on a
# loaded 2-CPU machine, fast enough for a run of about 1 s. Flows take
# turns, so a flow's 20 frames come about 50 ms apart, some 10 moves: a
# flow passed on whichever CPU received it reaches both CPUs but with
# odds of 2^-19.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

e2e_setup
traffic_init

RATE=${TRAFFIC_RATE:-40000}
FLOWS=64
FRAMES_PER_FLOW=20
HOP_MS=5
traffic_cpus

if [ -z "$C1" ]; then
	skip "all" "needs at least 2 CPUs for the receiving CPU to move between"
	exit 0
fi

# "NAME GROUP ASSERT" per kind, in --group order (group g is flows
# g*FLOWS .. g*FLOWS+FLOWS-1); GROUP is traffic_gen's --group without
# the count; ASSERT "one" (one CPU, in order) or "info" (shown only).
KINDS=(
	"udp4 udp4 one"
	"tcp4 tcp4 one"
	"udp6 udp6 one"
	"tcp6 tcp6 one"
	"esp4 esp4 one"
	"udp4-to-4789 udp4,dport=4789 one"
	"udp6-to-4789 udp6,dport=4789 one"
	"udp4-to-6081 udp4,dport=6081 one"
	"udp6-to-6081 udp6,dport=6081 one"
	"udp4-to-2152 udp4,dport=2152 one"
	"udp6-to-2152 udp6,dport=2152 one"
	"udp4-to-8472 udp4,dport=8472 one"
	"udp6-to-4500 udp6,dport=4500 one"
	"gre4 udp4,encap=gre one"
	"vxlan6 udp6,encap=vxlan,outer=6 one"
	"vxlan4-no-i udp4,encap=vxlan,bad=vxlan-no-i one"
	"vxlan6-no-i udp6,encap=vxlan,outer=6,bad=vxlan-no-i one"
	"geneve4-v1 udp4,encap=geneve,bad=geneve-v1 one"
	"gtp4-v2 udp4,encap=gtpu,bad=gtp-v2 one"
	"gtp6-v2 udp6,encap=gtpu,outer=6,bad=gtp-v2 one"
	"gtp4-ext-long udp4,encap=gtpu,bad=gtp-ext-long one"
	"gre4-routing tcp4,encap=gre,bad=gre-routing one"
	"gre6-v1 udp6,encap=gre,outer=6,bad=gre-v1 one"
	"ipip-inner-long udp6,encap=ipip,bad=inner-long one"
	"vxlan4-inner-long tcp4,encap=vxlan,bad=inner-long one"
	"udp4-l4-short udp4,bad=l4-short one"
	"tcp4-l4-short tcp4,bad=l4-short one"
	"udp6-l4-short udp6,bad=l4-short one"
	"tcp6-l4-short tcp6,bad=l4-short one"
	"udp6-ext-chain udp6,bad=ext-chain one"
	"tcp6-ext-chain tcp6,bad=ext-chain one"
	"pppoe-v2 udp4,encap=pppoe,bad=pppoe-v2 info"
)
ARGS=()
for k in "${KINDS[@]}"; do
	set -- $k
	ARGS+=(--group "${2%%,*}:$FLOWS${2#"${2%%,*}"}")
done
COUNT=$((${#KINDS[@]} * FLOWS * FRAMES_PER_FLOW))

cat >"$E2E_TMP/policy.yaml" <<EOF
version: 1
cpus: [$(echo "${CPU_IDS[@]}" | sed 's/ /, /g')]
EOF

# ---- the mover ----------------------------------------------------------------

# hop_start PID...: moves the tasks between $C0 and $C1 every $HOP_MS ms
# (one process setting affinities: a taskset run costs a millisecond or
# more) until hop_stop or until one of them is gone; the number of moves
# in $HOP_OUT.
HOP_PID=
hop_start() {
	HOP_OUT=$E2E_TMP/hops.$TRAFFIC_RUN
	python3 -c 'import os, signal, sys, time
a, b, dwell = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000
pids = [int(p) for p in sys.argv[4:]]
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
n = 0
try:
    while True:
        for p in pids:
            os.sched_setaffinity(p, {(b, a)[n % 2]})
        n += 1
        time.sleep(dwell)
except ProcessLookupError:
    pass
finally:
    print(n)' "$C0" "$C1" "$HOP_MS" "$@" >"$HOP_OUT" &
	HOP_PID=$!
}
hop_stop() {
	[ -n "$HOP_PID" ] || return 0
	kill "$HOP_PID" 2>/dev/null
	wait "$HOP_PID" 2>/dev/null
	HOP_PID=
}
rx_cpu_cleanup() {
	hop_stop
	traffic_cleanup
}
trap rx_cpu_cleanup EXIT

# ---- the audit ------------------------------------------------------------------

snap() { in_b "$XDP_STEER" stats "$IF_B" --json >"$1"; }

# rx_line A B: frames each receiving CPU took from snapshot A to B, and of
# them the parse errors and malformed tunnels (passed where received).
rx_line() {
	python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def per(d):
    return {c["cpu"]: c for c in d["rx_cpus"]}
pa, pb = per(a), per(b)
out = []
for c in sorted(pb):
    d = {k: pb[c][k] - pa.get(c, {}).get(k, 0)
         for k in ("rx_packets", "passed_parse_error", "encap_malformed")}
    out.append("CPU %d %d (parse errors %d, malformed tunnels %d)" %
               (c, d["rx_packets"], d["passed_parse_error"], d["encap_malformed"]))
print(", ".join(out))' "$1" "$2"
}

# rx_on CPU: frames CPU received over the run (snapshots $T0, $T1).
rx_on() {
	python3 -c 'import json, sys
def rx(f):
    return sum(c["rx_packets"] for c in json.load(open(f))["rx_cpus"]
               if c["cpu"] == int(sys.argv[3]))
print(rx(sys.argv[2]) - rx(sys.argv[1]))' "$T0" "$T1" "$1"
}

# kind_account REPORT FIRST LAST [examples]: "N of M flows seen, K on
# several CPUs, L with late frames" for flows FIRST..LAST, or with
# "examples" the first offenders instead; exit 1 unless all arrived, each
# on one CPU, none late.
kind_account() {
	awk -v lo="$2" -v hi="$3" -v examples="${4:-}" '
		$1 == "flow" && $2 >= lo && $2 <= hi {
			n++
			if ($4 ~ /,/) { multi++; if (multi <= 3) ex = ex " flow " $2 " on CPUs " $4 ";" }
			if ($12) { late++; if (late <= 3) ex = ex " flow " $2 " " $12 " late;" }
		}
		END {
			if (!examples)
				printf "%d of %d flows seen, %d on several CPUs, %d with late frames\n", \
					n, hi - lo + 1, multi, late
			else if (ex != "")
				print "e.g." ex
			exit (n != hi - lo + 1 || multi || late) ? 1 : 0
		}' "$1"
}

# run_moving NAME RATE HOP-PIDS-FN: one audited run while the mover moves
# the tasks HOP-PIDS-FN names (called once the generator runs).
run_moving() {
	local name=$1 rate=$2 pids_fn=$3 i k first last line moves cpu0 cpu1
	T0=$E2E_TMP/before.$TRAFFIC_RUN T1=$E2E_TMP/after.$TRAFFIC_RUN
	snap "$T0"
	if ! observer_start --drop; then
		fail "$name: the observer attaches to $IF_B"
		return 1
	fi
	gen_start --rate "$rate" --count "$COUNT" "${ARGS[@]}"
	hop_start $($pids_fn)
	while kill -0 "$GEN_PID" 2>/dev/null; do
		sleep 0.05
	done
	hop_stop
	gen_stop || fail "$name: the generator sends its frames"
	observer_stop || fail "$name: the observer reports"
	snap "$T1"
	moves=$(cat "$HOP_OUT")
	cpu0=$(rx_on "$C0") cpu1=$(rx_on "$C1")
	echo "  $name: $(traffic_summary "$OBS_REPORT") in ${GEN_SECONDS}s"
	echo "  $name: received: $(rx_line "$T0" "$T1")"
	echo "  $name: drops: $(traffic_drops_detail "$OBS_REPORT")"
	check "$name: moved between CPU $C0 and $C1 every $HOP_MS ms ($moves moves)" \
		test "${moves:-0}" -ge 20
	check "$name: both CPUs received frames (CPU $C0 $cpu0, CPU $C1 $cpu1)" \
		test "$cpu0" -gt 0 -a "$cpu1" -gt 0
	for i in "${!KINDS[@]}"; do
		set -- ${KINDS[$i]}
		first=$((i * FLOWS)) last=$((first + FLOWS - 1))
		line=$(kind_account "$OBS_REPORT" "$first" "$last")
		if [ "$3" = info ]; then
			echo "  $name: $1 (flows $first-$last, no outer IP header: may follow the receiving CPU, not asserted): $line"
			continue
		fi
		check "$name: $1 (flows $first-$last): every flow on one CPU, none late ($line)" \
			kind_account "$OBS_REPORT" "$first" "$last" examples
	done
	check "$name: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
}

if ! in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/policy.yaml"; then
	fail "xdp-steer attach $IF_B"
	e2e_done
fi

check "the default decap looks through UDP ports 2152, 4789 and 6081, those the datagrams to the tunnels' ports go to" \
	json_holds "$(in_b "$XDP_STEER" status "$IF_B" --json)" \
	"sorted(p for e in d['policy']['decap'] for p in e.get('udp_ports', [])) == [2152, 4789, 6081]"

# ---- 1. the sender moves ----------------------------------------------------------

gen_pid() { echo "$GEN_PID"; }
run_moving "sender moving" "$RATE" gen_pid

# ---- 2. the receive NAPI moves ------------------------------------------------------

if check "the receive NAPI is threaded, its thread pinned to CPU $TRAFFIC_RX_CPU" traffic_rx_pin; then
	run_moving "receive NAPI moving" "$RATE" traffic_napi_pids
fi

e2e_done
