#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Receiver slots running out (struct steer_rx_pool; bpf/README.md,
# "Moving flows"): attached with one slot (the test knob
# XDP_STEER_RX_SLOTS=1), two receiving CPUs. veth runs the receiving
# side's XDP on the sending CPU, so the sender's CPU is the receiving CPU.
#
# 1. Workers [C1]: UDP from C0, queued to C1, gives C0 the only slot.
# 2. Workers [C0]: paced UDP from C0 and from C1 (other ports) runs on;
#    C1 finds no slot at its first frame of the table, and status warns,
#    naming C1 and the limit; status (text and JSON) says the slot is
#    C0's.
# 3. Workers [C1], the traffic running: C0's buckets leave its fast path
#    for C1 (C0's frames are redirected from then on, the control), while
#    C1, with no row for drain records (steer_buckets is per slot),
#    passes every frame of the table where it received it, never queued
#    without a record: all passed on C1, each counted in no_rx_slot
#    (stats --json, C1's row; none in C0's).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

e2e_setup
traffic_cpus
if [ -z "$C1" ]; then
	skip "all" "needs 2 CPUs: two receiving CPUs for one slot"
	exit 0
fi
T=$E2E_TMP
steer() { in_b "$XDP_STEER" "$@"; }

SENDERS=()
slots_cleanup() {
	local p
	for p in "${SENDERS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	e2e_cleanup
}
trap slots_cleanup EXIT

policy() {
	printf 'version: 1\ncpus: [%s]\nhash: {seed: 1}\nrebalance: drain\nlocal_fastpath: true\n' "$1" >"$T/p-$1.yaml"
	echo "$T/p-$1.yaml"
}

# send_burst CPU N PORT0: N datagrams to ports PORT0.. from a process on CPU.
send_burst() {
	in_a taskset -c "$1" python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in range(int(sys.argv[3]), int(sys.argv[3]) + int(sys.argv[2])):
    s.sendto(b"x", (sys.argv[1], p))' "$IP_B" "$2" "$3"
}
# sender_start CPU PORT0: 64 flows from a process on CPU, about 2000
# frames a second, until killed.
sender_start() {
	# nsenter execs taskset, which execs python: $! is the sender.
	nsenter --net=/run/netns/"$NS_A" taskset -c "$1" python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
p0 = int(sys.argv[2])
while True:
    for p in range(p0, p0 + 64):
        s.sendto(b"x", (sys.argv[1], p))
    time.sleep(0.03)' "$IP_B" "$2" &
	SENDERS+=($!)
}
snap() { steer stats "$IF_B" --json >"$1"; }
# rx_field SNAP CPU FIELD: FIELD of CPU's row in rx_cpus (0 without one).
rx_field() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(c[sys.argv[3]] for c in d["rx_cpus"] if c["cpu"] == int(sys.argv[2])))' "$1" "$2" "$3"
}
# grew A B CPU FIELD: how much FIELD of CPU's row grew from A to B.
grew() { echo $(($(rx_field "$2" "$3" "$4") - $(rx_field "$1" "$3" "$4"))); }

# ---- 1. C0 takes the only slot ---------------------------------------------------

# A CPU claims its slot at its first frame of the table: no IPv6 from A
# (its MLD reports, sent on any CPU) may take it before C0's UDP.
in_a sysctl -qw net.ipv6.conf."$IF_A".disable_ipv6=1

check "attach with one receiver slot (XDP_STEER_RX_SLOTS=1), workers [$C1]" \
	in_b env XDP_STEER_RX_SLOTS=1 "$XDP_STEER" attach "$IF_B" --policy "$(policy "$C1")"
send_burst "$C0" 64 20000
sleep 0.3
snap "$T/s0"
check "C0 ($C0) queued its frames to C1 and holds the slot: none counts in no_rx_slot" \
	test "$(rx_field "$T/s0" "$C0" redirected)" -ge 64 -a "$(rx_field "$T/s0" "$C0" no_rx_slot)" -eq 0

# ---- 2. C1 finds none --------------------------------------------------------------

check "apply workers [$C0]" steer apply "$IF_B" --policy "$(policy "$C0")"
sender_start "$C0" 21000
sender_start "$C1" 22000
sleep 1
snap "$T/s1"
echo "  C1 ($C1): redirected $(grew "$T/s0" "$T/s1" "$C1" redirected)"
steer status "$IF_B" >"$T/status" 2>&1
grep -i "receiver slot" "$T/status" | sed 's/^/  status: /'
check "status warns that CPU $C1 found every receiver slot taken, naming the limit and what to do" \
	grep -q "CPUs $C1 received $IF_B's frames but found all 1 of its receiver slots taken: .*'xdp-steer detach $IF_B' and attach it again" "$T/status"
grep "receiver slots:" "$T/status" | sed 's/^/  status: /'
check "status says the one slot is held, by C0" \
	grep -q "receiver slots: 1 of 1 held, by receiving cpus $C0\$" "$T/status"
check "status --json says the same" \
	json_holds "$(steer status "$IF_B" --json)" "d['policy']['receiver_slots'] == 1 and d['policy']['receiver_slots_held'] == [$C0]"

# ---- 3. a move: C1's buckets stay --------------------------------------------------

check "apply workers [$C1] under the traffic" steer apply "$IF_B" --policy "$(policy "$C1")"
sleep 1
snap "$T/s2"
sleep 1
snap "$T/s3"
c0r=$(grew "$T/s2" "$T/s3" "$C0" redirected) c0l=$(grew "$T/s2" "$T/s3" "$C0" passed_local)
c1r=$(grew "$T/s2" "$T/s3" "$C1" redirected) c1l=$(grew "$T/s2" "$T/s3" "$C1" passed_local)
echo "  a second after the apply, over a second: C0 redirected $c0r, passed here $c0l; C1 redirected $c1r, passed here $c1l"
check "C0's buckets left its fast path for C1: its frames are queued ($c0r), none passed there ($c0l)" \
	test "$c0r" -gt 0 -a "$c0l" -eq 0
check "C1, slotless, passes its frames where it receives them ($c1l), none queued ($c1r)" \
	test "$c1l" -gt 0 -a "$c1r" -eq 0
n1=$(grew "$T/s2" "$T/s3" "$C1" no_rx_slot)
check "C1's frames passed for want of a slot count in its no_rx_slot ($n1 of $c1l)" \
	test "$n1" -eq "$c1l"
check "C0's row counts none" test "$(rx_field "$T/s3" "$C0" no_rx_slot)" -eq 0
e2e_done
