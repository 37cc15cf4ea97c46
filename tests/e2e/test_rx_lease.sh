#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A receiver slot goes to the CPU that receives now, a lease after its
# last one stopped (struct steer_rx_pool, bpf/drain.h rx_slot_tick()): the
# receive interrupt moving as irqbalance moves it, over more CPUs than
# there are slots, no longer leaves the new one without a slot for good.
# Attached with one slot (XDP_STEER_RX_SLOTS=1) and a lease of half a
# second (XDP_STEER_RX_LEASE_MS=500), workers [C0, C1], $IF_B's NAPI threaded:
#
# 1. The NAPI thread on C0: C0 takes the only slot.
# 2. The thread moved to C1, traffic running: C1 finds the slot taken and
#    passes its frames where it receives them (no_rx_slot grows), until
#    the slot has been idle for the lease; then C1 takes it over.
# 3. An audited run on C1: no frame goes without a slot (no_rx_slot
#    stays), C1 counts one takeover, status names C1 as the slot's CPU and
#    warns of no CPU without one, and the flows are steered over both
#    workers, each on one CPU, in order, every frame accounted for.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

e2e_setup
traffic_init
traffic_cpus
if [ -z "$C1" ]; then
	skip "all" "needs 2 CPUs: a receiving CPU that moves"
	exit 0
fi
T=$E2E_TMP
FLOWS=64
RATE=40000
steer() { in_b "$XDP_STEER" "$@"; }
snap() { steer stats "$IF_B" --json >"$1"; }
# grew A B CPU:FIELD...: how much each FIELD of CPU's row in rx_cpus grew
# from snapshot A to B (a row missing counts 0), in one line.
grew() {
	python3 -c 'import json, sys
a, b = (json.load(open(f))["rx_cpus"] for f in sys.argv[1:3])
def get(rows, cpu, field):
    return sum(c.get(field, 0) for c in rows if c["cpu"] == cpu)
out = []
for cf in sys.argv[3:]:
    cpu, field = cf.split(":")
    out.append(str(get(b, int(cpu), field) - get(a, int(cpu), field)))
print(" ".join(out))' "$@"
}
# absent PATTERN FILE: FILE has no line with PATTERN.
absent() { ! grep -q "$1" "$2"; }
# napi_to CPU: $IF_B's NAPI threads onto CPU, and the generator with them.
napi_to() {
	local pid
	for pid in $(traffic_napi_pids); do
		taskset -p -c "$1" "$pid" >/dev/null || return 1
	done
	TRAFFIC_CPU=$1
}

printf 'version: 1\ncpus: [%s, %s]\nhash: {seed: 1}\nrebalance: drain\n' "$C0" "$C1" >"$T/policy.yaml"
# A CPU claims its slot at its first frame of the table: no IPv6 from A
# (its MLD reports, sent on any CPU) may take it before C0's traffic.
in_a sysctl -qw net.ipv6.conf."$IF_A".disable_ipv6=1
check "attach with one receiver slot and a lease of 0.5 s, workers [$C0, $C1]" \
	in_b env XDP_STEER_RX_SLOTS=1 XDP_STEER_RX_LEASE_MS=500 "$XDP_STEER" attach "$IF_B" --policy "$T/policy.yaml"
TRAFFIC_RX_CPU=$C0
check "$IF_B's NAPI threaded, on C0 ($C0)" traffic_rx_pin

# ---- 1. C0 receives ----------------------------------------------------------------

napi_to "$C0"
gen_run --group "udp4:$FLOWS" --rate "$RATE" --count 5000 >/dev/null
snap "$T/s1"
check "C0 received and holds the slot (status)" \
	grep -q "receiver slots: 1 of 1 held, by receiving cpus $C0\$" <(steer status "$IF_B")

# ---- 2. the receive NAPI moves to C1 -------------------------------------------------

check "the NAPI thread moved to C1 ($C1)" napi_to "$C1"
gen_run --group "udp4:$FLOWS" --rate "$RATE" --count 5000 >/dev/null
snap "$T/s2"
n2=$(grew "$T/s1" "$T/s2" "$C1:no_rx_slot")
check "C1, the slot C0's for less than the lease, passes its frames for want of one ($n2 in no_rx_slot)" \
	test "$n2" -gt 0
# The rest of the lease, then frames on C1 take the slot over.
sleep 0.6
gen_run --group "udp4:$FLOWS" --rate "$RATE" --count 2000 >/dev/null
snap "$T/s3"
steer status "$IF_B" >"$T/status" 2>&1
grep "receiver slots" "$T/status" | sed 's/^/  status: /'
check "status says the one slot is held, by C1" \
	grep -q "receiver slots: 1 of 1 held, by receiving cpus $C1\$" "$T/status"
check "status warns of no CPU without a slot" \
	absent "found all 1 of its receiver slots taken" "$T/status"
check "C1 counts one takeover" test "$(grew "$T/s1" "$T/s3" "$C1:rx_slot_takeovers")" -eq 1

# ---- 3. C1 steers ----------------------------------------------------------------------

observer_start --drop || fail "the observer attaches to $IF_B"
gen_run --group "udp4:$FLOWS" --rate "$RATE" --count 20000 || fail "the generator sends its frames"
observer_stop || fail "the observer reports"
snap "$T/s4"
echo "  $(traffic_summary "$OBS_REPORT")"
read -r n4 r4 l4 x4 < <(grew "$T/s3" "$T/s4" "$C1:no_rx_slot" "$C1:redirected" \
	"$C1:passed_local" "$C0:rx_packets")
echo "  C1 over the run: redirected $r4, passed here $l4, no_rx_slot $n4; C0 received $x4"
check "C1 received the run (C0 received $x4 of it)" test "$x4" -eq 0 -a "$((r4 + l4))" -gt 0
check "no frame of C1's goes without a slot any more ($n4)" test "$n4" -eq 0
check "C1 queues the flows of C0's buckets to C0 ($r4) and passes its own here ($l4)" \
	test "$r4" -gt 0 -a "$l4" -gt 0
check "the flows are spread over both workers" \
	traffic_share "$OBS_REPORT" 0 $((FLOWS - 1)) "$C0:1 $C1:1"
check "every flow on one CPU" traffic_flows_one_cpu "$OBS_REPORT" 0 $((FLOWS - 1))
check "no flow out of order" traffic_not_late "$OBS_REPORT"
check "frames received + counted drops == frames sent ($GEN_SENT)" \
	traffic_accounted "$OBS_REPORT"
e2e_done
