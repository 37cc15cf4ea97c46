#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The per-slot maps' size (issue 46, "Cost"): steer_buckets and steer_load
# are plain arrays of a row of STEER_TABLE_MAX (4096) drain buckets per
# receiver slot, R rows sized at load (kernel/prog.c prog_rx_slots()):
# R = min(possible CPUs, max(16, 2 x the NIC's receive channels)), read
# here from /sys and `ethtool -l`, not from the loader; steer_seq,
# steer_deq and steer_rx_cpu have R rows too, their stride in the pool,
# and steer_queued (what each slot queued per worker) R + 1; ring_stats
# is a plain array (one entry per worker CPU of the span).
# The test knob XDP_STEER_RX_SLOTS sizes them too; an attach over pinned
# maps keeps their rows; detach and attach sizes them again; attach
# --rx-slots N sets R, kept by apply and an upgrade, an attach with
# another N over them refused, N out of 1..256 a usage error. No traffic.
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
xs() { in_b "$XDP_STEER" "$@"; }

# type_of MAP: the pinned map's type (entries MAP: lib.sh).
type_of() {
	bpftool -j map show pinned "$PIN_B/$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["type"])'
}
possible=$(python3 -c 'import sys
n = 0
for part in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    a, _, b = part.partition("-")
    n += int(b or a) - int(a) + 1
print(n)')
channels=$(in_b ethtool -l "$IF_B" | awk '/^Current/ { cur = 1 } cur && /^(RX|Combined):/ && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }')
[ "$channels" -gt 0 ] || channels=1
R=$((2 * channels > 16 ? 2 * channels : 16))
R=$((R < possible ? R : possible))
R=$((R < 256 ? R : 256))
echo "  $possible possible CPUs, $channels receive channels: R = $R"

check "attach" xs attach "$IF_B" --policy "$E2E_ROOT/configs/default.yaml"
check "steer_buckets is a plain array (per receiver slot, not per CPU)" \
	test "$(type_of steer_buckets)" = array -a "$(type_of steer_load)" = array
check "steer_buckets has R x 4096 entries ($R x 4096)" \
	test "$(entries steer_buckets)" -eq $((R * 4096))
check "steer_load the same" test "$(entries steer_load)" -eq $((R * 4096))
# Targets: the entries of steer_wdone ([target]), the row of steer_seq.
T=$(entries steer_wdone)
check "steer_seq has R rows of the targets ($R x $T), steer_deq the same" \
	test "$(entries steer_seq)" -eq $((R * T)) -a "$(entries steer_deq)" -eq $((R * T))
check "steer_rx_cpu has R entries" test "$(entries steer_rx_cpu)" -eq "$R"
check "steer_rx_pool's rows (the datapath's stride of steer_deq) are R" \
	bash -c "bpftool -j map dump pinned $PIN_B/steer_rx_pool | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"formatted\"][\"value\"][\"rows\"])' | grep -qx $R"
value_of() {
	bpftool -j map show pinned "$PIN_B/$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["bytes_value"])'
}
check "steer_stats holds no per-worker counts: $(value_of steer_stats) B per possible CPU, under 1 KiB" \
	test "$(value_of steer_stats)" -lt 1024
# The span S: half the targets (two banks).
S=$((T / 2))
check "steer_queued has R rows and one more (CPUs without a slot) of the span's $S CPUs: $(entries steer_queued)" \
	test "$(entries steer_queued)" -eq $(((R + 1) * S))
check "ring_stats is one plain array entry per worker, not per CPU: $(type_of ring_stats)" \
	test "$(type_of ring_stats)" = array
check "ring_stats has an entry per CPU of the span ($S): $(entries ring_stats)" \
	test "$(entries ring_stats)" -eq "$S"
check "status says R receiver slots" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B | grep -q 'receiver slots: [0-9]* of $R held'"
check "an attach over the pinned maps keeps them (an upgrade in place of the same version)" \
	bash -c "nsenter --net=/run/netns/$NS_B env XDP_STEER_RX_SLOTS=1 $XDP_STEER attach $IF_B --policy $E2E_ROOT/configs/default.yaml && test \"\$(bpftool -j map show pinned $PIN_B/steer_buckets | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"max_entries\"])')\" -eq $((R * 4096))"
check "detach" xs detach "$IF_B"
check "attach with XDP_STEER_RX_SLOTS=1" \
	in_b env XDP_STEER_RX_SLOTS=1 "$XDP_STEER" attach "$IF_B" --policy "$E2E_ROOT/configs/default.yaml"
check "steer_buckets and steer_load have one row (4096 entries)" \
	test "$(entries steer_buckets)" -eq 4096 -a "$(entries steer_load)" -eq 4096
check "steer_seq, steer_deq and steer_rx_cpu one row too" \
	test "$(entries steer_seq)" -eq "$T" -a "$(entries steer_deq)" -eq "$T" -a "$(entries steer_rx_cpu)" -eq 1
check "status says 1 receiver slot" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B | grep -q 'receiver slots: [0-9]* of 1 held'"
check "detach" xs detach "$IF_B"

# attach --rx-slots N: R for the maps it makes, kept until detach.
N=$((R + 3))
check "attach --rx-slots $N" xs attach "$IF_B" --policy "$E2E_ROOT/configs/default.yaml" --rx-slots $N
check "the per-slot maps have $N rows" \
	test "$(entries steer_buckets)" -eq $((N * 4096)) -a "$(entries steer_load)" -eq $((N * 4096)) -a "$(entries steer_seq)" -eq $((N * T)) -a "$(entries steer_deq)" -eq $((N * T)) -a "$(entries steer_rx_cpu)" -eq "$N" -a "$(entries steer_queued)" -eq $(((N + 1) * S))
check "status says $N receiver slots" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B | grep -q 'receiver slots: [0-9]* of $N held'"
check "an apply keeps them" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER apply $IF_B --policy $E2E_ROOT/configs/default.yaml >/dev/null && test \"\$(bpftool -j map show pinned $PIN_B/steer_buckets | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"max_entries\"])')\" -eq $((N * 4096))"
check "an attach over them (an upgrade in place) with no --rx-slots keeps them" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER attach $IF_B --policy $E2E_ROOT/configs/default.yaml >/dev/null && test \"\$(bpftool -j map show pinned $PIN_B/steer_buckets | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"max_entries\"])')\" -eq $((N * 4096))"
check "... and so does one with --rx-slots $N" \
	xs attach "$IF_B" --policy "$E2E_ROOT/configs/default.yaml" --rx-slots $N
prog0=$(in_b bpftool -j net show dev "$IF_B" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d)' | md5sum)
out=$(xs attach "$IF_B" --policy "$E2E_ROOT/configs/default.yaml" --rx-slots $((N + 1)) 2>&1); rc=$?
check "an attach with another --rx-slots over them refuses (exit 1), naming theirs and the way: $out" \
	bash -c '[ "$1" = 1 ] && grep -q "have $3 receiver slots" <<<"$2" && grep -q detach <<<"$2"' _ "$rc" "$out" "$N"
check "... and changes nothing (the program and the maps' rows)" \
	bash -c "[ \"\$(nsenter --net=/run/netns/$NS_B bpftool -j net show dev $IF_B | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d)' | md5sum)\" = '$prog0' ] && test \"\$(bpftool -j map show pinned $PIN_B/steer_buckets | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"max_entries\"])')\" -eq $((N * 4096))"
for bad in 0 257 x 1e2 -3 ''; do
	out=$(xs attach "$IF_B" --policy "$E2E_ROOT/configs/default.yaml" --rx-slots "$bad" 2>&1); rc=$?
	check "--rx-slots '$bad' is a usage error (exit 2) naming the limit" \
		bash -c '[ "$1" = 2 ] && grep -q "from 1 to 256" <<<"$2"' _ "$rc" "$out"
done
e2e_done
