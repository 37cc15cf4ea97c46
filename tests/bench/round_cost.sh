#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A balancer round's CPU time by workers (issue 46, "Cost": at most 50 ms
# of CPU at 1024 workers): attaches xdp-steer to a veth pair in a
# namespace of its own (bal46-*), with a balanced policy of every online
# CPU (table_size 4096, balance by frames every 100 ms), then runs
# tests/bench/round_cost there, which rounds the library's balancer on
# those maps with N workers written into the policy in force (the header
# of round_cost.c says what it writes by hand and why the figures hold).
# Prints a table; asserts nothing. About 2 s per N.
#
#   tests/bench/round_cost.sh                (as root, after make)
#   BENCH_WORKERS="16 64 255 1024"           N, each up to the maps' span
#                                            (the possible CPU ids, at
#                                            most STEER_CPU_IDS)
#   BENCH_ROUNDS=5                           rounds per row (the median)
#   BENCH_SLOTS=N                            receiver slots held (default
#                                            all, up to the possible CPUs)
#   BENCH_SINGLE=0                           no single-lookup rows
#   BENCH_BY=frames                          or cpu: the policy's balance by
#   BENCH_WRAP="perf record -g --"           a command round_cost runs under
#
# At 1024 workers: the maps' span must be 1024, so the machine needs 1024
# possible CPUs (present or not); elsewhere that row says it was skipped
# and why. A VM of 2 present and 1024 possible CPUs has them:
#   tests/vm/run --cpus 2 --max-cpus 1024 --timeout 900 -- \
#	env BENCH_WORKERS="16 64 255 1024" tests/bench/round_cost.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
XS=${XDP_STEER:-loader/xdp-steer}
RC=tests/bench/round_cost
for b in "$XS" "$RC"; do
	[ -x "$b" ] || { echo "round_cost: $b is missing; run make first" >&2; exit 1; }
done
NS=bal46-rc$$ IFA=bal46a$$ IFB=bal46b$$
TMP=$(mktemp -d /tmp/bal46-rc.XXXXXX)
cleanup() {
	nsenter --net=/run/netns/$NS "$XS" detach $IFB >/dev/null 2>&1 || true
	ip netns del $NS 2>/dev/null || true
	ip link del $IFA 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
in_ns() { nsenter --net=/run/netns/$NS "$@"; }

ip netns add $NS
ip link add $IFA type veth peer name $IFB netns $NS
in_ns ip link set $IFB up
ip link set $IFA up
cat >"$TMP/policy.yaml" <<POL
version: 1
cpus: [$(cat /sys/devices/system/cpu/online)]
table_size: 4096
rebalance: drain
balance: {by: ${BENCH_BY:-frames}, interval: 100, tolerance: 5, max_moves: 16}
POL
in_ns "$XS" attach $IFB --policy "$TMP/policy.yaml" >/dev/null 2>"$TMP/attach.err" ||
	{ cat "$TMP/attach.err" >&2; exit 1; }
echo "# $(date -u '+%F %H:%M'), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)," \
	"CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
	"(family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
	"model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(nproc) online, kernel $(uname -r)"
${BENCH_WRAP:-} nsenter --net=/run/netns/$NS "$RC" $IFB "$(in_ns "$XS" pin-dir $IFB)"
