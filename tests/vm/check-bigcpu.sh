#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Inside a VM of 264 vCPUs booted with maxcpus=2 (tests/vm/matrix's
# bigcpu-6.1): CPU $HIGH (263) is brought online, so the online CPUs are
# {0, 1, 263}, a CPU id past 255 (the cpumaps' size before the span)
# among 264 possible CPUs (issue 46). On a veth pair between two
# namespaces:
#
#   machine   264 possible CPUs, CPU 263 online; /proc/interrupts read
#             whole (its header names CPU263; its lines stay short with 3
#             online CPUs, so finding 3's 4096-byte lines are not reached)
#   default   configs/default.yaml (no 'cpus' key): check and attach work,
#             the default workers are 0-1 and 263 (/proc/interrupts parsed
#             with 264 possible CPUs, no worker lost or made up), no
#             warning (finding 2: a CPU is never dropped silently)
#   accept    a policy naming CPU 263 as a worker: check takes it; one
#             naming offline CPU 2 is refused as not online, the online
#             CPUs listed
#   sparse    UDP sent from processes pinned to CPU 0, then CPU 1 (veth
#             runs the receiving side's XDP on the sending CPU): stats
#             --json and --totals count the frames under those CPU ids;
#             CPU 263's rows, if shown, count nothing (nothing was sent
#             there); the workers in status are 0, 1 and 263 (finding 5);
#             then UDP from CPU 263 counts under 263, and CPU 263 takes a
#             receiver slot (steer_rx_slot: bpf/README.md, "Moving
#             flows"), so status gives no warning that it found none
#   hw        workers past 255 (unless BIGCPU_HW=0): a policy of workers 1
#             and 263, rebalance: drain, frames received on CPU 0 (its
#             NAPI thread there), marked UDP of 200 flows (traffic_gen):
#             every flow on one CPU, in order, the flows spread 1:1 over
#             CPU 1 and CPU 263 (the observer at tc ingress); then an
#             apply of weights 1:3 under the traffic: the drain completes
#             within 5 s, buckets moved by their drain (the kthread
#             tracepoint reads "cpumap/263/..."), none late, none split,
#             every frame accounted for. Before the span (cpumaps of 256
#             entries) check and attach refused such a policy.
#   rx        finding 1, a receiving CPU >= 256 under drain (unless
#             BIGCPU_RX=0). Marked UDP of 200 flows (traffic_gen) sent from
#             CPU 263, $IF_B's NAPI threaded on 263, rebalance: drain,
#             and applies of weights 1:3, then 1:1, between workers 0 and
#             1 under the traffic: every frame accounted for, none late;
#             after each apply the drain completes under traffic within
#             3 s (status: no bucket draining, the drain window closed)
#             and CPU 1 then takes its share by weight; buckets moved by
#             their drain (moves_done + moves_idle), none by the timeout;
#             CPU 263's frames counted under its receiver slot, none in
#             no_rx_slot. Before receiver slots (drain.h answered
#             DRAIN_WAIT for a CPU past STEER_MAX_CPUS) the share and the
#             moves failed (tests/README.md, "On other kernels, and
#             under libxdp's dispatcher", has the numbers). About 1.5
#             minutes more under TCG.
#
# With BIGCPU_HIGH at or past STEER_CPU_IDS (1024, the workers' limit)
# the checks turn into their opposite: the default leaves the CPU out
# with a warning naming the limit, and check, attach and apply refuse a
# policy naming it (such a VM takes far longer to boot).
#
#   tests/vm/run --cpus 264 --x2apic --tcg-thread single --append maxcpus=2 \
#           -- tests/vm/check-bigcpu.sh
#   ... -- env BIGCPU_RX=0 tests/vm/check-bigcpu.sh   (without the rx part;
#                                    BIGCPU_HW=0: without the hw part)
set -uo pipefail
cd "$(dirname "$0")/../.."

SUITE=vm/check-bigcpu E2E_ID=vm
. tests/e2e/lib.sh
. tests/e2e/traffic_lib.sh

HIGH=${BIGCPU_HIGH:-263}
LIMIT=$(awk '$1 == "#define" && $2 == "STEER_CPU_IDS" { print $3 }' include/xdp_steer/sizes.h)
ONLINE=/sys/devices/system/cpu/cpu$HIGH/online
# The default workers: the online CPUs the cpumap can address.
WORKERS=0,1
[ "$HIGH" -lt "$LIMIT" ] && WORKERS=0,1,$HIGH
T=

steer() { in_b "$XDP_STEER" "$@"; }
stats_json() { steer stats "$IF_B" --json; }
status_json() { steer status "$IF_B" --json; }
# Read with grep and awk: a python3 start takes 3-6 s under TCG here.
# The worker CPUs of the policy in force, "0,1".
workers_of_status() {
	status_json | grep -o '"cpu": [0-9]*, "buckets"' | awk '{ printf "%s%d", (NR > 1 ? "," : ""), $2 }'
}
# status_field KEY: a number or word of status --json (its first).
status_field() { status_json | grep -o "\"$1\": [a-z0-9]*" | head -1 | awk '{ print $2 }'; }
# total FILE KEY: a counter of "totals" in a stats --json document.
total() { grep -o "\"$2\": [0-9]*" "$1" | head -1 | awk '{ print $2 }'; }
# rx_rows FILE: "CPU RX_PACKETS" per row of rx_cpus.
rx_rows() { grep -o '"cpu": [0-9]*, "rx_packets": [0-9]*' "$1" | awk -F'[:,] *' '{ print $2, $4 }'; }
# rx_of FILE CPU: the frames received on CPU.
rx_of() { rx_rows "$1" | awk -v c="$2" '$1 == c { n += $2 } END { print n + 0 }'; }
# queued_of FILE [CPU]: the frames queued to worker CPU (to all workers).
queued_of() {
	grep -o '"cpu": [0-9]*, "queued_packets": [0-9]*' "$1" |
		awk -F'[:,] *' -v c="${2:-}" 'c == "" || $2 == c { n += $4 } END { print n + 0 }'
}
# worker_rows FILE: the worker CPUs of stats --json, one a line.
worker_rows() { grep -o '"cpu": [0-9]*, "queued_packets"' "$1" | awk -F'[:,] *' '{ print $2 }'; }
has_xdp() { ip -n "$NS_B" link show "$IF_B" | grep -q ' xdp'; }

# ---- the machine: CPU $HIGH online, and back offline at the end ----------------

if [ ! -e "$ONLINE" ]; then
	fail "CPU $HIGH exists (boot with tests/vm/run --cpus 264 --x2apic; possible: $(cat /sys/devices/system/cpu/possible))"
	e2e_done
fi
BROUGHT_UP=
if [ "$(cat "$ONLINE")" != 1 ]; then
	echo 1 >"$ONLINE" && BROUGHT_UP=1
fi
high_restore() {
	[ -n "$BROUGHT_UP" ] && echo 0 >"$ONLINE"
	BROUGHT_UP=
}

e2e_setup
traffic_init
trap 'traffic_cleanup; high_restore' EXIT
T=$E2E_TMP

echo "  possible CPUs $(cat /sys/devices/system/cpu/possible), online $(cat /sys/devices/system/cpu/online), STEER_CPU_IDS $LIMIT"
check "CPU $HIGH is online" test "$(cat "$ONLINE")" = 1
check "the kernel has more than 256 possible CPUs (the cpumaps' size before the span), $HIGH among them" \
	test "$(sed 's/.*[-,]//' /sys/devices/system/cpu/possible)" -ge "$HIGH" -a "$HIGH" -ge 256
echo "  /proc/interrupts: $(wc -l </proc/interrupts) lines, the longest $(wc -L </proc/interrupts) bytes (finding 3's 4096 is reached from about 370 online CPUs, not here)"
check "/proc/interrupts has a column for CPU$HIGH" \
	grep -q "CPU$HIGH" <(head -1 /proc/interrupts)

# ---- default: configs/default.yaml, no 'cpus' key ----------------------------

"$XDP_STEER" check --policy configs/default.yaml >"$T/check.out" 2>&1
rc=$?
check "check of configs/default.yaml exits 0 (exit $rc)" test $rc -eq 0
sed -n 's/^/  check: /p' "$T/check.out" | grep -iE 'cpus|warn|263|256'
if [ "$HIGH" -ge "$LIMIT" ]; then
	check "check says the default workers are 0-1" \
		grep -qE '^# cpus: not set, .*: \[0-1\]$' "$T/check.out"
	check "check warns that the default leaves out CPU $HIGH, naming the limit $LIMIT" \
		grep -qE "warning: .*leaves out 1 of the online CPUs.* $LIMIT" "$T/check.out"
else
	check "check says the default workers are 0-1 and $HIGH" \
		grep -qE "^# cpus: not set, .*: \[0-1, $HIGH\]\$" "$T/check.out"
fi

# ---- refuse: a policy naming CPU $HIGH -----------------------------------------

printf 'version: 1\ncpus: [0, 1, %d]\n' "$HIGH" >"$T/high.yaml"
# Where the parser points: line 2, the column of the high id.
at="$T/high.yaml:2:$(($(sed -n 2p "$T/high.yaml" | grep -bo "$HIGH" | cut -d: -f1) + 1))"
if [ "$HIGH" -ge "$LIMIT" ]; then
	"$XDP_STEER" check --policy "$T/high.yaml" >"$T/out" 2>&1
	rc=$?
	sed 's/^/  check: /' "$T/out"
	check "check refuses a policy naming CPU $HIGH (exit $rc)" test $rc -ne 0
	check "the refusal is at $at and names CPU $HIGH and the limit $LIMIT" \
		grep -qE "^$at: .*$HIGH.*$LIMIT" "$T/out"
	steer attach "$IF_B" --policy "$T/high.yaml" >"$T/out" 2>&1
	rc=$?
	check "attach refuses it too (exit $rc), at $at" \
		eval "test $rc -ne 0 && grep -qE '^$at: .*$HIGH.*$LIMIT' '$T/out'"
	check "the refused attach left no XDP program on $IF_B" eval '! has_xdp'
	check "the refused attach left no pins" test ! -e "$PIN_B"
fi

if [ "$HIGH" -lt "$LIMIT" ]; then
	"$XDP_STEER" check --policy "$T/high.yaml" >"$T/out" 2>&1
	rc=$?
	sed 's/^/  check: /' "$T/out"
	check "check takes the policy naming CPU $HIGH as a worker (exit $rc)" test $rc -eq 0
	check "  and prints it with CPU $HIGH among the workers" \
		grep -q "^cpus: \[0-1, $HIGH\]\$" "$T/out"
fi

# An offline CPU of the sparse online mask: named as such, with the mask.
printf 'version: 1\ncpus: [0, 2]\n' >"$T/offline.yaml"
"$XDP_STEER" check --policy "$T/offline.yaml" >"$T/out" 2>&1
rc=$?
sed 's/^/  check: /' "$T/out"
check "check refuses offline CPU 2 (exit $rc) at its place, saying it is not online" \
	eval "test $rc -ne 0 && grep -qE 'offline.yaml:2:[0-9]+: cpu 2 is not online \(online: 0-1' '$T/out'"
# Said, not asserted: the online CPUs it lists are a cpu_set's, which has
# no room past the limit.
grep -qE "online: 0-1, ?$HIGH\)" "$T/out" ||
	echo "  the online CPUs listed leave out CPU $HIGH"

# ---- default attached ----------------------------------------------------------

steer attach "$IF_B" --policy configs/default.yaml >"$T/attach.out" 2>&1
rc=$?
sed 's/^/  attach: /' "$T/attach.out"
check "attach of configs/default.yaml exits 0 (exit $rc)" test $rc -eq 0
if [ "$HIGH" -ge "$LIMIT" ]; then
	check "attach warns that the default leaves out CPU $HIGH, naming the limit $LIMIT" \
		grep -qE "warning: .*leaves out 1 of the online CPUs.* $LIMIT" "$T/attach.out"
	check "the workers in status are 0 and 1" test "$(workers_of_status)" = 0,1
else
	check "the workers in status are 0, 1 and $HIGH" test "$(workers_of_status)" = "0,1,$HIGH"
fi
steer status "$IF_B" >"$T/status.out" 2>&1
rc=$?
check "status exits 0 with $(wc -l </proc/interrupts) lines of /proc/interrupts to read (exit $rc)" \
	test $rc -eq 0
grep -E 'workers|warn|cpu' "$T/status.out" | sed 's/^/  status: /'
if [ "$HIGH" -ge "$LIMIT" ]; then
	check "status warns that the default 'cpus' leaves out the online CPU past the limit" \
		grep -q "the default 'cpus' leaves out 1 online CPU with an id of $LIMIT or more" "$T/status.out"
fi

if [ "$HIGH" -ge "$LIMIT" ]; then
	gen0=$(status_field generation)
	steer apply "$IF_B" --policy "$T/high.yaml" >"$T/out" 2>&1
	rc=$?
	check "apply refuses the policy naming CPU $HIGH (exit $rc), at $at" \
		eval "test $rc -ne 0 && grep -qE '^$at: .*$HIGH.*$LIMIT' '$T/out'"
	check "the default policy stays in force (generation $gen0, workers 0 and 1)" \
		test "$(status_field generation),$(workers_of_status)" = "$gen0,0,1"
fi

# ---- sparse: frames counted under the CPU ids that received them ---------------

# send_from CPU N: N UDP datagrams to N ports from a process on CPU.
send_from() {
	in_a taskset -c "$1" bash -c "for p in \$(seq 20000 $((20000 + $2 - 1))); do
		echo x >/dev/udp/$IP_B/\$p; done" 2>/dev/null
	sleep 0.5
}
# rx_delta A B CPU: frames the program saw on CPU between two stats --json.
rx_delta() { echo $(($(rx_of "$2" "$3") - $(rx_of "$1" "$3"))); }
# within N LO HI
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# The neighbours first: their frames are not the test's.
send_from 0 1
stats_json >"$T/s0"
send_from 0 40
stats_json >"$T/s1"
send_from 1 70
stats_json >"$T/s2"
d00=$(rx_delta "$T/s0" "$T/s1" 0) d01=$(rx_delta "$T/s0" "$T/s1" 1)
d10=$(rx_delta "$T/s1" "$T/s2" 0) d11=$(rx_delta "$T/s1" "$T/s2" 1)
dh=$(rx_delta "$T/s0" "$T/s2" "$HIGH")
echo "  received on CPU 0/1/$HIGH: $d00/$d01/$(rx_delta "$T/s0" "$T/s1" "$HIGH") of 40 sent from CPU 0, $d10/$d11/$(rx_delta "$T/s1" "$T/s2" "$HIGH") of 70 from CPU 1"
# Up to 2 frames of slack: a neighbour probe may cross meanwhile.
check "40 datagrams sent from CPU 0 count under rx CPU 0 ($d00), not 1 ($d01)" \
	eval "within $d00 40 42 && within $d01 0 2"
check "70 datagrams sent from CPU 1 count under rx CPU 1 ($d11), not 0 ($d10)" \
	eval "within $d11 70 72 && within $d10 0 2"
# CPU $HIGH, a worker, may send a neighbour probe, whose answer veth
# receives there: the same slack of 2.
check "no frame of the test counts under rx CPU $HIGH, which sent none ($dh)" \
	within "$dh" 0 2
check "the rx CPU rows of stats --json are online CPUs, and add up to the total ($(total "$T/s2" rx_packets))" \
	eval "rx_rows '$T/s2' | awk -v h=$HIGH -v t=$(total "$T/s2" rx_packets) '
		\$1 != 0 && \$1 != 1 && \$1 != h { bad = 1 } { n += \$2 } END { exit bad || n != t }'"
check "the worker rows of stats --json are CPUs $WORKERS" \
	test "$(worker_rows "$T/s2" | sort -n | paste -sd,)" = "$WORKERS"
steer stats "$IF_B" --totals >"$T/totals" 2>&1
sed 's/^/  /' "$T/totals" | head -12
# totals_rx CPU: the rx column of CPU's row in the rx table of --totals.
totals_rx() { awk -v c="$1" '/rx CPU/ { on = 1; next } /worker CPU/ { on = 0 } on && $1 == c { print $2 }' "$T/totals"; }
j0=$(rx_of "$T/s2" 0) j1=$(rx_of "$T/s2" 1)
check "stats --totals shows rx CPU 0 and 1 with at least the counts of stats --json ($j0, $j1)" \
	eval "[ \"\$(totals_rx 0)\" -ge $j0 ] && [ \"\$(totals_rx 1)\" -ge $j1 ]"
check "stats --totals shows no row for rx CPU $HIGH, or one of at most 2 frames (neighbours)" \
	eval "[ -z \"\$(totals_rx $HIGH)\" ] || [ \"\$(totals_rx $HIGH)\" -le 2 ]"

# A CPU past 255 receives: counted under its own id; it takes one
# of the R receiver slots sized at attach (R = max(16, 2 x channels)
# here), so status has no slot to warn of (model/health.c).
if [ "$HIGH" -ge 256 ]; then
	send_from "$HIGH" 30
	stats_json >"$T/s3"
	dh=$(rx_delta "$T/s2" "$T/s3" "$HIGH")
	check "30 datagrams sent from CPU $HIGH count under rx CPU $HIGH ($dh)" \
		within "$dh" 30 32
	steer status "$IF_B" >"$T/status.rx" 2>&1
	grep -i "received\|slot" "$T/status.rx" | sed 's/^/  status: /'
	check "status gives no warning of a receiving CPU without a receiver slot" \
		eval "! grep -q 'receiver slots taken' '$T/status.rx'"
	check "status says CPU $HIGH holds a receiver slot" \
		grep -q "receiver slots: [0-9]* of [0-9]* held, by receiving cpus .*$HIGH" "$T/status.rx"
	check "and no frame counts in no_rx_slot ($(total "$T/s3" no_rx_slot))" \
		test "$(total "$T/s3" no_rx_slot)" = 0
fi

# ---- rx: finding 1, a receiving CPU >= 256 under drain (BIGCPU_RX=1) --------------

# drained_within S: polls status until no bucket drains and the drain
# window is closed, at most S seconds; prints the milliseconds waited.
drained_within() {
	local i
	for i in $(seq $(($1 * 10))); do
		if [ "$(status_json | grep -o '"draining_buckets": [0-9]*\|"drain_window_open": [a-z]*' | tr '\n' ' ')" = \
		     '"draining_buckets": 0 "drain_window_open": false ' ]; then
			echo $((i * 100))
			return 0
		fi
		sleep 0.1
	done
	return 1
}
# share_of_1 A B: CPU 1's share (percent) of the frames queued to the
# workers between two stats --json.
share_of_1() {
	local one=$(($(queued_of "$2" 1) - $(queued_of "$1" 1)))
	local all=$(($(queued_of "$2") - $(queued_of "$1")))
	echo $(((100 * one + all / 2) / (all ? all : 1)))
}
# apply_moving W: apply of weights 1:W while the traffic runs; the drain
# completes under traffic within 3 s, and CPU 1 then takes its share.
apply_moving() {
	local t0 ms share want=$((100 * $1 / ($1 + 1)))
	t0=$SECONDS
	steer apply "$IF_B" --policy "$T/rx-$1.yaml" >"$T/apply.out" 2>&1 ||
		{ sed 's/^/  apply: /' "$T/apply.out"; fail "rx: apply of weights 1:$1"; }
	echo "  rx: apply of weights 1:$1 took $((SECONDS - t0)) s"
	ms=$(drained_within 3)
	check "rx: after the apply of 1:$1, the drain completes under traffic within 3 s (no bucket draining, window closed${ms:+: $ms ms})" \
		test -n "$ms"
	stats_json >"$T/w0"
	sleep 1
	stats_json >"$T/w1"
	share=$(share_of_1 "$T/w0" "$T/w1")
	check "rx: then CPU 1 takes its share of the frames, $want % by weight ($share %)" \
		test "$share" -ge $((want - 10)) -a "$share" -le $((want + 10))
}
# drain_counters A B: how the drain's counters grew between two stats --json.
drain_counters() {
	local k out=
	for k in drain_held drain_stalled moves_done moves_idle moves_timeout unstamped; do
		out+="$k $(($(total "$2" $k) - $(total "$1" $k))), "
	done
	echo "${out%, }"
}
rx_part() {
	local rxh w
	steer detach "$IF_B" >/dev/null 2>&1
	for w in 1 3; do
		printf 'version: 1\ncpus: [0, {cpu: 1, weight: %d}]\nhash: {seed: 1}\nrebalance: drain\n' \
			"$w" >"$T/rx-$w.yaml"
	done
	check "rx: attach with workers 0 and 1, rebalance drain" \
		steer attach "$IF_B" --policy "$T/rx-1.yaml"
	TRAFFIC_RX_CPU=$HIGH TRAFFIC_CPU=$HIGH
	check "rx: $IF_B's NAPI thread is on CPU $HIGH" traffic_rx_pin
	stats_json >"$T/r0"
	if ! observer_start --drop; then
		fail "rx: the observer attaches to $IF_B"
		return
	fi
	gen_start --group udp4:200 --rate "${BIGCPU_RATE:-1000}" --duration 0
	sleep 1
	# Weights 1:1 -> 1:3 -> 1:1 (seed fixed): buckets move to CPU 1 and
	# back, each move a drain of frames received on CPU $HIGH.
	apply_moving 3
	apply_moving 1
	gen_stop || fail "rx: the generator sent frames throughout"
	observer_stop || fail "rx: the observer reports"
	stats_json >"$T/r1"
	echo "  rx: $(traffic_summary "$OBS_REPORT")"
	echo "  rx: drops: $(traffic_drops_detail "$OBS_REPORT")"
	rxh=$(rx_delta "$T/r0" "$T/r1" "$HIGH")
	echo "  rx: frames received on CPU $HIGH $rxh; the generator sent $GEN_SENT in $GEN_SECONDS s; drain counters:" \
		"$(drain_counters "$T/r0" "$T/r1")"
	check "rx: the frames were received on CPU $HIGH ($rxh of $GEN_SENT)" \
		test "$rxh" -ge "$((GEN_SENT / 2))"
	check "rx: no frame arrived after a later one of its flow" traffic_not_late "$OBS_REPORT"
	check "rx: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
	check "rx: buckets moved by their drain (moves_done + moves_idle grew)" \
		test $(($(total "$T/r1" moves_done) + $(total "$T/r1" moves_idle))) -gt \
			$(($(total "$T/r0" moves_done) + $(total "$T/r0" moves_idle)))
	check "rx: no bucket moved by the drain timeout" \
		test "$(total "$T/r1" moves_timeout)" = "$(total "$T/r0" moves_timeout)"
	check "rx: no frame went without a receiver slot (no_rx_slot $(total "$T/r1" no_rx_slot))" \
		test "$(total "$T/r1" no_rx_slot)" = 0
}
# ---- hw: workers past 255 (CPU $HIGH) under drain ------------------------------

# Workers 1 and $HIGH, frames received on CPU 0: every frame crosses to a
# worker's cpumap entry, CPU $HIGH's among them (bank * span + $HIGH, its
# kthread "cpumap/$HIGH/map:ID" read by the kthread tracepoint). First
# the flows spread over both, each on one CPU, in order; then an apply
# of weights 1:3 under the traffic moves buckets by drain, none late.
hw_part() {
	local w rxcpu=${BIGCPU_HW_RX:-0}
	steer detach "$IF_B" >/dev/null 2>&1
	for w in 1 3; do
		printf 'version: 1\ncpus: [1, {cpu: %d, weight: %d}]\nhash: {seed: 1}\nrebalance: drain\n' \
			"$HIGH" "$w" >"$T/hw-$w.yaml"
	done
	check "hw: attach with workers 1 and $HIGH, rebalance drain" \
		steer attach "$IF_B" --policy "$T/hw-1.yaml"
	check "hw: the workers in status are 1 and $HIGH" \
		test "$(workers_of_status)" = "1,$HIGH"
	steer status "$IF_B" >"$T/hw-status" 2>&1
	grep -E 'workers|cpumap|warn' "$T/hw-status" | sed 's/^/  hw: status: /'
	TRAFFIC_RX_CPU=$rxcpu TRAFFIC_CPU=$rxcpu
	check "hw: $IF_B's NAPI thread is on CPU $rxcpu" traffic_rx_pin
	if ! observer_start --drop; then
		fail "hw: the observer attaches to $IF_B"
		return
	fi
	gen_start --group udp4:200 --rate "${BIGCPU_RATE:-1000}" --duration 0
	sleep 4
	gen_stop || fail "hw: the generator sent frames throughout"
	observer_stop || fail "hw: the observer reports"
	echo "  hw: $(traffic_summary "$OBS_REPORT")"
	traffic_cpu_table "$OBS_REPORT" | sed 's/^/  hw: /'
	check "hw: every flow reached the stack on one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 199
	check "hw: the flows spread over workers 1 and $HIGH by weight 1:1" \
		traffic_share "$OBS_REPORT" 0 199 "1:1 $HIGH:1"
	check "hw: in order, none late" traffic_in_order "$OBS_REPORT"
	check "hw: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
	stats_json >"$T/h0"
	if ! observer_start --drop; then
		fail "hw: the observer attaches to $IF_B again"
		return
	fi
	gen_start --group udp4:200 --rate "${BIGCPU_RATE:-1000}" --duration 0
	sleep 1
	steer apply "$IF_B" --policy "$T/hw-3.yaml" >"$T/apply.out" 2>&1 ||
		{ sed 's/^/  apply: /' "$T/apply.out"; fail "hw: apply of weights 1:3"; }
	ms=$(drained_within 5)
	check "hw: after the apply of 1:3, the drain completes under traffic within 5 s (no bucket draining, window closed${ms:+: $ms ms})" \
		test -n "$ms"
	sleep 1
	gen_stop || fail "hw: the generator sent frames throughout the apply"
	observer_stop || fail "hw: the observer reports the apply"
	stats_json >"$T/h1"
	echo "  hw: $(traffic_summary "$OBS_REPORT")"
	echo "  hw: drops: $(traffic_drops_detail "$OBS_REPORT"); drain counters: $(drain_counters "$T/h0" "$T/h1")"
	check "hw: no frame arrived after a later one of its flow" traffic_not_late "$OBS_REPORT"
	check "hw: no flow on two CPUs at once" traffic_not_split "$OBS_REPORT"
	check "hw: frames received + counted drops == frames sent ($GEN_SENT)" \
		traffic_accounted "$OBS_REPORT"
	check "hw: buckets moved to CPU $HIGH by their drain (moves_done + moves_idle grew)" \
		test $(($(total "$T/h1" moves_done) + $(total "$T/h1" moves_idle))) -gt \
			$(($(total "$T/h0" moves_done) + $(total "$T/h0" moves_idle)))
	check "hw: no bucket moved by the drain timeout" \
		test "$(total "$T/h1" moves_timeout)" = "$(total "$T/h0" moves_timeout)"
	check "hw: status has workers 1 and $HIGH, no warning of a kthread off its CPU" \
		eval "test \"\$(workers_of_status)\" = 1,$HIGH && ! steer status '$IF_B' | grep -q 'off its CPU'"
}
# Maps made by xdp-loader load -p have the object's span, 256: an apply
# naming CPU $HIGH is refused there, naming the limit, nothing changed.
pins_part() {
	local gen0 dir
	steer detach "$IF_B" >/dev/null 2>&1
	steer pin-dir "$IF_B" --create >/dev/null
	dir=$(steer pin-dir "$IF_B")
	printf 'version: 1\ncpus: [0, 1]\n' >"$T/pins-01.yaml"
	check "pins: xdp-loader load -p makes the maps at the object's sizes" \
		in_b xdp-loader load -m native -p "$dir" "$IF_B" "$BPF_OBJ"
	check "pins: apply of workers 0 and 1 works on them" \
		steer apply "$IF_B" --policy "$T/pins-01.yaml"
	gen0=$(status_field generation)
	steer apply "$IF_B" --policy "$T/hw-1.yaml" >"$T/out" 2>&1
	rc=$?
	sed 's/^/  pins: apply: /' "$T/out"
	check "pins: apply of a policy naming CPU $HIGH is refused (exit $rc), naming CPU $HIGH and the maps' 256 CPU ids" \
		eval "test $rc -ne 0 && grep -q 'names CPU $HIGH, but the maps pinned in .* CPU ids below 256' '$T/out'"
	check "pins: the policy in force stays (generation $gen0, workers 0 and 1)" \
		test "$(status_field generation),$(workers_of_status)" = "$gen0,0,1"
	steer detach "$IF_B" >/dev/null 2>&1
}

if [ "$HIGH" -lt "$LIMIT" ] && [ "${BIGCPU_HW:-1}" = 1 ]; then
	hw_part
	pins_part
else
	skip "hw: workers past 255 under drain" "CPU $HIGH is past the limit $LIMIT, or BIGCPU_HW=0"
fi

if [ "${BIGCPU_RX:-1}" = 1 ]; then
	rx_part
else
	skip "rx: a receiving CPU >= $LIMIT under drain (finding 1)" "BIGCPU_RX=0"
fi

e2e_done
