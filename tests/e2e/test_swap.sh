#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: a policy swap under load never shows a frame steered by a
# half-written policy.
#
# tests/e2e/swap_check test-runs the ATTACHED program on every CPU, frame
# after frame (plus live batches that really go through the cpumap), while
# this script applies three policies in turn, 33 times (SWAPS: a
# multiple of 3 ends on P1). Each slot gets a
# different policy at each of its turns, so every apply really rewrites the
# inactive slot's table and rules. Every frame of the load matches a rule
# in all three policies ("rule frames") or none ("table frames"), and each
# policy turns the local fast path off, so:
#   - a frame that read a slot whose rules were not all written yet misses
#     its rule: rule hits < rule frames;
#   - a frame that used a slot (or a stale bucket) whose CPU had already
#     left the cpumap is passed, not redirected: passed_no_target > 0 and
#     a run verdict other than XDP_REDIRECT;
#   - a frame that saw an empty slot counts passed_no_policy.
# The policies (CPUs 0 and 1 only, so this holds on 2 CPUs):
#   P1  cpus [0]    rule src 10.0.0.0/8 -> 0          (source prefix)
#   P2  cpus [1]    rule proto udp -> 1               (exact field)
#   P3  cpus [0-1]  rule dst 198.18.0.0/15 -> [0-1]   (prefix, CPU set)
# so each swap also adds and removes cpumap entries.
set -u
. "$(dirname "$0")/lib.sh"

SWAPS=${SWAPS:-33}
SWAP_CHECK=$E2E_ROOT/tests/e2e/swap_check

e2e_setup
# apply's lock file outlives the interface: remove it with the rest.
PIN=$PIN_B
T=$E2E_TMP
xs() { in_b "$XDP_STEER" "$@"; }
state() { python3 "$E2E_ROOT/tests/e2e/maps_state.py" "$PIN"; }
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
expect_eq() {
	[ "$1" = "$2" ] && return 0
	echo "got '$1', expected '$2'"
	return 1
}

if [ ! -x "$SWAP_CHECK" ]; then
	fail "tests/e2e/swap_check is built (run make)"
	e2e_done
fi

# Only our frames may reach the program: no IPv6 (router and neighbour
# solicitations, MLD), and nothing here sends IPv4.
in_a sysctl -qw net.ipv6.conf."$IF_A".disable_ipv6=1
in_b sysctl -qw net.ipv6.conf."$IF_B".disable_ipv6=1

# worker_sched: other in each: swap_check's threads keep every CPU busy
# at nice 0, and with the kthreads at the default nice 10 (a tenth of a
# CPU there) CPU 1's old entry was seen still in the cpumap after the
# last apply: its retire leaves an entry that still drains past the drain
# timeout to the next apply (loader/kernel/slots_retire.c, slots_retire()); what this
# checks is that the last apply retired it.
cat >"$T/p1.yaml" <<'EOF'
version: 1
cpus: [0]
local_fastpath: false
hash: {seed: 11}
worker_sched: other
rules:
  - {match: {src: 10.0.0.0/8}, cpu: 0}
EOF
cat >"$T/p2.yaml" <<'EOF'
version: 1
cpus: [1]
local_fastpath: false
table_size: 256
hash: {seed: 12}
worker_sched: other
rules:
  - {match: {proto: udp}, cpu: 1}
EOF
cat >"$T/p3.yaml" <<'EOF'
version: 1
cpus: [0-1]
local_fastpath: false
table_size: 1024
hash: {seed: 13}
worker_sched: other
rules:
  - {match: {dst: 198.18.0.0/15}, cpus: [0-1]}
EOF

if ! xs attach "$IF_B" --policy "$T/p1.yaml" >"$T/out" 2>&1; then
	cat "$T/out"
	fail "attaching with policy P1"
	e2e_done
fi
# What runs on the interface: xdp_steer, or libxdp's dispatcher calling it.
PROG=$(in_b ip -j -d link show dev "$IF_B" | python3 -c 'import json, sys
print(json.load(sys.stdin)[0].get("xdp", {}).get("prog", {}).get("id", 0))')
xs stats "$IF_B" --json >"$T/before.json"

# nsenter execs swap_check in place, so $! is swap_check itself.
nsenter --net=/run/netns/"$NS_B" "$SWAP_CHECK" --prog-id "$PROG" --pin "$PIN" \
	--live --max-seconds 90 >"$T/load.out" 2>&1 &
load=$!
for i in $(seq 50); do	# until its threads run
	grep -q '^running' "$T/load.out" && break
	sleep 0.1
done
sleep 0.2

# The swaps: P2, P3, P1, P2, ... Each one must succeed.
failed_applies=0
start=$(date +%s%N)
for i in $(seq "$SWAPS"); do
	p=$(((i % 3) + 1))
	if ! xs apply "$IF_B" --policy "$T/p$p.yaml" >"$T/apply.out" 2>&1; then
		failed_applies=$((failed_applies + 1))
		cat "$T/apply.out"
	fi
	last=$p
done
swap_ms=$((($(date +%s%N) - start) / 1000000))
sleep 0.2
kill -TERM $load 2>/dev/null
wait $load
load_rc=$?
sleep 0.2	# live frames still in cpumap queues reach their workers
xs stats "$IF_B" --json >"$T/after.json"
S=$(state)

load_field() { sed -n "s/^$1=//p" "$T/load.out"; }
check "swap_check ran to the end" expect_eq "$load_rc" 0
check "all $SWAPS applies under load succeeded (in $swap_ms ms)" expect_eq "$failed_applies" 0
check "every apply flipped the policy: generation 1 + $SWAPS" expect_eq "$(field gen "$S")" $((1 + SWAPS))
check "the load ran on every CPU throughout the swaps (it saw at least half the flips)" \
	test "$(load_field threads)" -ge 2 -a "$(load_field flips_seen)" -ge $((SWAPS / 2))
check "no test run of the program failed" expect_eq "$(load_field run_errors)" 0
check "every one-frame run returned XDP_REDIRECT (no frame fell back to XDP_PASS)" \
	expect_eq "$(load_field verdict_other)" 0

# Counter deltas of the program over the run, against what swap_check sent.
python3 - "$T/before.json" "$T/after.json" "$T/load.out" >"$T/delta" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))["totals"]
b = json.load(open(sys.argv[2]))["totals"]
load = dict(l.strip().split("=", 1) for l in open(sys.argv[3]) if "=" in l and " " not in l)
d = {k: b[k] - a[k] for k in b}
wa = sum(w["dequeued_packets"] for w in json.load(open(sys.argv[1]))["workers"])
wb = sum(w["dequeued_packets"] for w in json.load(open(sys.argv[2]))["workers"])
d["dequeued"] = wb - wa
d["frames"] = int(load["rule_frames"]) + int(load["table_frames"])
d["rule_frames"] = int(load["rule_frames"])
d["live_frames"] = int(load["live_frames"])
d["rule_hits"] = d["rule_flow_hits"] + d["rule_prefix_hits"]
for k, v in sorted(d.items()):
    print("%s=%d" % (k, v))
EOF
delta() { sed -n "s/^$1=//p" "$T/delta"; }
check "no frame was steered to a CPU whose cpumap entry was gone (passed_no_target 0)" \
	expect_eq "$(delta passed_no_target)" 0
check "no frame saw an empty slot (passed_no_policy 0)" expect_eq "$(delta passed_no_policy)" 0
check "no frame failed to parse" expect_eq "$(delta passed_parse_error)" 0
check "the program saw exactly the frames swap_check ran ($(delta frames))" \
	expect_eq "$(delta rx_packets)" "$(delta frames)"
check "every frame was queued to a worker CPU" expect_eq "$(delta redirected)" "$(delta frames)"
check "every rule frame was placed by its policy's rule: no slot was seen without its rules" \
	expect_eq "$(delta rule_hits)" "$(delta rule_frames)"
check "frames met both kinds of rule: the exact-field rule of P2 and the prefix rules of P1 and P3" \
	test "$(delta rule_flow_hits)" -gt 0 -a "$(delta rule_prefix_hits)" -gt 0
if grep -q '^live=unsupported' "$T/load.out"; then
	skip "live frames reached the cpumap workers" "no BPF_F_TEST_XDP_LIVE_FRAMES: before Linux 5.18, or refused by this kernel"
else
	check "live frames reached the cpumap workers ($(delta dequeued) dequeued)" \
		test "$(delta dequeued)" -gt 0 -a "$(delta dequeued)" -le "$(delta live_frames)"
fi

# Without live frames no frame of the load reaches a worker, nor is any
# test run a NAPI poll: a bucket the test runs held on a CPU the last
# policy left waits there for evidence that its last frame left its
# receiving CPU (a poll ending there) and that the CPU's ring is empty and
# its worker idle (bpf/drain.h); its entry stays meanwhile (seen: CPU 1's
# entry left in 2 runs of 2). So, the load stopped, a frame from each CPU
# through the veth ends a NAPI poll of $IF_B on it, and the same policy
# once more retires the entry, the drains done (a refresh: slots_retire.c). With
# live frames, dequeued and marked, the swaps alone must have.
if grep -q '^live=unsupported' "$T/load.out"; then
	for c in $(tr ',' '\n' </sys/devices/system/cpu/online | awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }'); do
		nsenter --net=/run/netns/"$NS_A" taskset -c "$c" \
			python3 "$E2E_ROOT/tests/e2e/ping.py" "$IP_B" 1 >/dev/null 2>&1
	done
	xs apply "$IF_B" --policy "$T/p$last.yaml" >"$T/apply.out" 2>&1 ||
		cat "$T/apply.out"
	S=$(state)
fi
case $last in
1) want="0x512 0:2048:prog" ;;
2) want="1x256 1:2048:prog" ;;
3) want="0x512,1x512 0:2048:prog,1:2048:prog" ;;
esac
check "after the swaps the maps hold the last policy (P$last) whole, cpumap included" \
	expect_eq "$(field table "$S") $(field cpumap "$S")" "$want"
if [ $E2E_FAILED -ne 0 ]; then
	echo "  swap_check:"; sed 's/^/    /' "$T/load.out" | head -40
	echo "  deltas:"; sed 's/^/    /' "$T/delta"
fi

e2e_done
