#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# One flow at saturation that comes to the receiving CPU's fast path
# takes it from its first frame and keeps it (about 12 s). The receiving
# CPU is the only one that receives (threaded NAPI pinned, the generator
# beside it). The flow starts on a worker (a first policy with the
# workers only: the receiving CPU holds the receive queue as one it only
# queues from), pauses (its frames long delivered, its bucket cold), an
# apply of the shipped configs/default.yaml puts its bucket on the
# receiving CPU meanwhile, and it resumes at saturation. No other CPU can
# have queued the flow's frames to the receiving CPU's own queue, so the
# fast path needs no marker there, neither for the cold bucket nor for
# the receive queue coming back to the fast path (bpf/README.md, "Moving
# flows"). Before that was asked, the
# first frame went through the receiving CPU's own queue as a marker, the
# bucket behind it, and the flow, never pausing again, stayed there: its
# last frame there was never out while the next kept coming, and that
# queue dropped most of the flow (the forwarding benchmark's one flow at
# 0.14 times no XDP). No balancer runs. Checks, over 3 s after the pause:
# nearly every frame passed on the fast path, next to none queued to the
# receiving CPU, `which` says the flow is not draining, nothing late,
# every frame received or counted as dropped.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

POLICY=$E2E_ROOT/configs/default.yaml
R=$TRAFFIC_RX_CPU

if ! command -v python3 >/dev/null; then
	skip "all" "python3 missing, needed to read xdp-steer's JSON"
	exit 0
fi

xs() { in_b "$XDP_STEER" "$@"; }
total() {	# total FILE FIELD
	jget "$(cat "$1")" "d['totals']['$2']"
}
queued_to() {	# queued_to FILE CPU: frames queued to CPU's cpumap entry
	jget "$(cat "$1")" "sum(w['sent_packets'] for w in d['workers'] if w['cpu'] == $2)"
}

mapfile -t CPUS < <(traffic_online_cpus)
WORKERS=$(printf '%s\n' "${CPUS[@]}" | awk -v r="$R" '$1 != r' | paste -sd, -)
if [ -z "$WORKERS" ]; then
	skip "all" "needs a CPU besides the receiving one"
	exit 0
fi
e2e_setup
traffic_init
T=$E2E_TMP
printf 'version: 1\ncpus: [%s]\n' "$WORKERS" >"$T/workers.yaml"

check "attach with the workers only (cpus: [$WORKERS])" \
	xs attach "$IF_B" --policy "$T/workers.yaml"
traffic_rx_pin >/dev/null || { fail "pinning the receiving CPU"; e2e_done; }
check "apply the shipped configs/default.yaml" \
	xs apply "$IF_B" --policy "$POLICY"
# A source port whose flow the shipped table puts on the receiving CPU
# (the hash key stays across applies).
SPORT=
for p in $(seq 4000 4200); do
	if xs which "$IF_B" udp "10.201.0.1:$p" 10.200.0.2:9000 |
		grep -q "cpu $R, by bucket"; then
		SPORT=$p
		break
	fi
done
check "a flow whose bucket the shipped table puts on the receiving cpu $R (source port ${SPORT:-none})" \
	test -n "$SPORT"
[ -n "$SPORT" ] || e2e_done
FLOW=(udp "10.201.0.1:$SPORT" 10.200.0.2:9000)
check "back to the workers only" xs apply "$IF_B" --policy "$T/workers.yaml"

observer_start --drop || { fail "observer starts"; e2e_done; }
gen_start --group "udp4:1,src=10.201.0.1,sport=$SPORT,dport=9000" \
	--rate 0 --duration 0
sleep 1
# The flow pauses (its frames on the worker long delivered, its bucket
# cold), the shipped policy puts it on the receiving CPU meanwhile, and
# it resumes at saturation.
kill -STOP "$GEN_PID"
sleep 0.3
check "during a pause of the flow, the shipped policy puts it on cpu $R" \
	xs apply "$IF_B" --policy "$POLICY"
kill -CONT "$GEN_PID"
sleep 0.5
xs stats "$IF_B" --json >"$T/s0"
sleep 3
xs stats "$IF_B" --json >"$T/s1"
txt=$(xs which "$IF_B" "${FLOW[@]}")
gen_stop
observer_stop

rx=$(($(total "$T/s1" rx_packets) - $(total "$T/s0" rx_packets)))
local_=$(($(total "$T/s1" passed_local) - $(total "$T/s0" passed_local)))
own=$(($(queued_to "$T/s1" "$R") - $(queued_to "$T/s0" "$R")))
held=$(($(total "$T/s1" drain_held) - $(total "$T/s0" drain_held)))
echo "  in 3 s after the pause: $rx frames received, $local_ passed on the fast path, $own queued to cpu $R's own queue, $held held for a drain"
echo "  $txt"
echo "  moves: done $(total "$T/s1" moves_done), idle $(total "$T/s1" moves_idle), timeout $(total "$T/s1" moves_timeout); drain_held $(total "$T/s1" drain_held); rxq_moves $(total "$T/s1" rxq_moves)"
check "the receiving cpu took the flow at saturation ($rx frames in 3 s)" \
	test "$rx" -gt 10000
check "at least 99 % of them passed on the fast path ($local_ of $rx)" \
	test "$((local_ * 100))" -ge "$((rx * 99))"
check "under 1 % went through the receiving cpu's own queue ($own)" \
	test "$((own * 100))" -lt "$rx"
check "which says the flow is on cpu $R, not draining" \
	grep -q "cpu $R, by bucket .*not draining" <<<"$txt"
check "no frame of the flow arrived after a later one" traffic_not_late "$OBS_REPORT"
check "every frame sent was received or counted as dropped" traffic_accounted "$OBS_REPORT"
echo "  $(traffic_summary "$OBS_REPORT")"
e2e_done
