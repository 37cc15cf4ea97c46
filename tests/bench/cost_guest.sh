#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# One row of tests/bench/cost.sh, on this machine (a VM booted with
# possible_cpus=N, or the host): the kernel memory of one interface's
# xdp-steer (every map of its pin directory, the tracepoint programs'
# included, as the kernel accounts them: bpftool's memlock, which is
# bpf_map_memory_usage() from Linux 6.4), the per-CPU allocator's growth
# (/proc/meminfo Percpu) as a cross-check, and the CPU time of the
# commands that read per-CPU maps whole: a balancer round (balance --once),
# stats and status. Prints one line of key=value pairs, then the five
# largest maps, then a balancer round's CPU time by phase at 255 workers
# (round_cost.sh's table, its lines marked "round:").
set -euo pipefail
cd "$(dirname "$0")/../.."
XS=${XDP_STEER:-loader/xdp-steer}
NS=cost$$ IFA=costa$$ IFB=costb$$
cleanup() {
	nsenter --net=/run/netns/$NS "$XS" detach $IFB >/dev/null 2>&1 || true
	ip netns del $NS 2>/dev/null || true
	ip link del $IFA 2>/dev/null || true
}
trap cleanup EXIT
in_ns() { nsenter --net=/run/netns/$NS "$@"; }
percpu() { awk '/^Percpu:/ { print $2 }' /proc/meminfo; }
cpu_s() {	# the CPU time (user + system, s) of a command, its output dropped
	local TIMEFORMAT='%3U %3S' t
	t=$( { time "$@" >/dev/null 2>&1; } 2>&1) || true
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f", a[1] + a[2] }'
}

ip netns add $NS
ip link add $IFA type veth peer name $IFB netns $NS
in_ns ip link set $IFB up
ip link set $IFA up
before=$(percpu)
in_ns "$XS" attach $IFB --policy configs/default.yaml >/dev/null
after=$(percpu)
dir=$(in_ns "$XS" pin-dir $IFB)
# memlock of every pinned map, by name.
for f in "$dir"/*; do
	bpftool -j map show pinned "$f" 2>/dev/null || true
done | python3 -c '
import json, sys
dec = json.JSONDecoder()
text = sys.stdin.read()
i, maps = 0, []
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    m, i = dec.raw_decode(text, i)
    maps.append((int(m.get("bytes_memlock", 0)), m.get("name", "?")))
maps.sort(reverse=True)
print("maps=%d memlock_kib=%d" % (len(maps), sum(b for b, _ in maps) // 1024))
for b, n in maps[:5]:
    print("  %-16s %8d KiB" % (n, b // 1024))
' >/tmp/cost_maps.$$
bal=$(cpu_s in_ns "$XS" balance $IFB --once)
st=$(cpu_s in_ns "$XS" stats $IFB --json)
su=$(cpu_s in_ns "$XS" status $IFB --json)
printf 'possible=%s online=%s %s percpu_kib=%d balance_once_s=%s stats_s=%s status_s=%s\n' \
	"$(cat /sys/devices/system/cpu/possible)" \
	"$(cat /sys/devices/system/cpu/online)" \
	"$(head -1 /tmp/cost_maps.$$)" $((after - before)) "$bal" "$st" "$su"
tail -n +2 /tmp/cost_maps.$$
rm -f /tmp/cost_maps.$$
# A balancer round by phase on this machine's possible CPUs, with every
# receiver slot held (tests/bench/round_cost.sh; COST_ROUND=0: not).
if [ "${COST_ROUND:-1}" = 1 ] && [ -x tests/bench/round_cost ]; then
	BENCH_WORKERS=${BENCH_WORKERS:-255} BENCH_ROUNDS=${BENCH_ROUNDS:-3} \
		BENCH_SINGLE=${BENCH_SINGLE:-0} \
		tests/bench/round_cost.sh 2>&1 | grep -v '^# 20' | sed 's/^/  round: /'
fi
