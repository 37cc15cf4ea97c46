#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The span S (issue 46, workers of any CPU id below 1024): attach sizes
# the cpumaps to S = the highest possible CPU id + 1 (at most 1024, read
# here from /sys, not from the loader), the maps by queue target to 2S
# (steer_wdone, steer_wenq; steer_seq and steer_deq 2S a receiver slot),
# steer_weights to S a policy slot, and tells the programs S (their
# .rodata, bpf/span.h). Then the workers' reports land at their target
# bank x S + cpu: UDP sent from CPU 0 to a policy whose only worker is
# CPU 1 is reported at steer_wdone[1], and after an apply of another
# queue size (bank 1) at steer_wdone[S + 1]. Before the span, the maps
# were made for 256 CPU ids (steer_wdone 512 entries) and bank 1 was 256
# + cpu. No drain, a few hundred datagrams.
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
xs() { in_b "$XDP_STEER" "$@"; }

# done_at TARGET: frames steer_wdone[TARGET] counts.
done_at() {
	bpftool -j map lookup pinned "$PIN_B/steer_wdone" key $(($1 & 255)) $(($1 >> 8 & 255)) 0 0 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["formatted"]["value"]["frames"])' 2>/dev/null ||
		echo 0
}
# span_of PROG_ID: the steer_span its .rodata holds (bpftool prints the
# map's BTF datasec by variable name).
span_of() {
	local m
	for m in $(bpftool -j prog show id "$1" |
		   python3 -c 'import json, sys; print(*json.load(sys.stdin).get("map_ids", []))'); do
		bpftool map dump id "$m" 2>/dev/null | grep -o '"steer_span": [0-9]*' | awk '{ print $2 }'
	done | head -1
}
# send N: N UDP datagrams to N ports from a process on CPU 0.
send() {
	in_a taskset -c 0 bash -c "for p in \$(seq 30000 $((30000 + $1 - 1))); do
		echo x >/dev/udp/$IP_B/\$p; done" 2>/dev/null
	sleep 0.5
}

S=$(sed 's/.*[-,]//' /sys/devices/system/cpu/possible)
S=$((S + 1 < 1024 ? S + 1 : 1024))
echo "  possible CPUs $(cat /sys/devices/system/cpu/possible): span S = $S"
if [ "$(nproc)" -lt 2 ]; then
	skip "the span" "needs 2 online CPUs (a worker other than the sender's)"
	e2e_done
fi

printf 'version: 1\ncpus: [1]\nqueue_size: 512\n' >"$E2E_TMP/q512.yaml"
printf 'version: 1\ncpus: [1]\nqueue_size: 1024\n' >"$E2E_TMP/q1024.yaml"
check "attach with CPU 1 the only worker" xs attach "$IF_B" --policy "$E2E_TMP/q512.yaml"
check "cpu_map and cpu_map_b have S entries ($S)" \
	test "$(entries cpu_map)" -eq "$S" -a "$(entries cpu_map_b)" -eq "$S"
check "steer_wdone and steer_wenq have 2S entries ($((2 * S)))" \
	test "$(entries steer_wdone)" -eq $((2 * S)) -a "$(entries steer_wenq)" -eq $((2 * S))
check "steer_seq and steer_deq have 2S entries a receiver slot" \
	test $(($(entries steer_seq) % (2 * S))) -eq 0 -a $(($(entries steer_deq) % (2 * S))) -eq 0
check "steer_weights has S entries a policy slot ($((2 * S)))" \
	test "$(entries steer_weights)" -eq $((2 * S))
prog=$(bpftool -j net show dev "$IF_B" 2>/dev/null | python3 -c '
import json, sys
for d in json.load(sys.stdin):
    for x in d.get("xdp", []):
        print(x["id"])' 2>/dev/null | head -1)
[ -n "$prog" ] || prog=$(in_b bpftool -j net show dev "$IF_B" | python3 -c '
import json, sys
for d in json.load(sys.stdin):
    for x in d.get("xdp", []):
        print(x["id"])' | head -1)
check "the XDP program's .rodata holds steer_span = $S" \
	test "$(span_of "$prog")" = "$S"
tp=$(bpftool -j link show pinned "$PIN_B/tp_cpumap_kthread" 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["prog_id"])' 2>/dev/null)
check "the kthread tracepoint program's .rodata holds steer_span = $S" \
	test -n "$tp" -a "$(span_of "$tp")" = "$S"

b0=$(done_at 1)
send 100
b1=$(done_at 1)
check "CPU 1's reports land at steer_wdone[1], bank 0 ($b0 -> $b1)" test "$b1" -gt "$b0"
check "apply of another queue size (the other bank)" \
	xs apply "$IF_B" --policy "$E2E_TMP/q1024.yaml"
h0=$(done_at $((S + 1)))
send 100
h1=$(done_at $((S + 1)))
check "then at steer_wdone[S + 1] = [$((S + 1))], bank 1 ($h0 -> $h1)" test "$h1" -gt "$h0"
check "detach" xs detach "$IF_B"
e2e_done
