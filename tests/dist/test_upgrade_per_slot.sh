#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dist tier: an upgrade in place from the version whose steer_buckets and
# steer_load are per CPU (UPGRADE_PER_CPU_FROM, default 567162d, the last
# before they became per receiver slot): both are rebuilt by copying each
# CPU's row to the row of the receiver slot it holds (loader/kernel/
# migrate_ways.c). The other version, attached with workers [C0, C1] and
# balance on, receives 256 UDP flows on C0 (veth receives on the sending
# CPU): C0 queues some (so holds a slot) and passes the others on its fast
# path (drain records). No traffic after that, so the records stand
# still: after the upgrade both maps are plain arrays of R rows, R as a
# fresh attach has it (the pool's 256 slots lowered to R), and the row of
# C0's slot holds, bucket for
# bucket, C0's records and loads from before; which, status and
# balance --once read them. First, with a warm-up opened by hand, the
# upgrade waits, then refuses, changing nothing (lib/upgrade.c quiesce()).
# Needs the repository's history.
set -u
SUITE=${SUITE:-dist/$(basename "$0" .sh)}
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/traffic_lib.sh"

FROM=${UPGRADE_PER_CPU_FROM:-567162d}
if ! git -C "$E2E_ROOT" rev-parse -q --verify "$FROM^{commit}" >/dev/null 2>&1; then
	skip "all" "commit $FROM is not in this checkout's history"
	exit 0
fi
e2e_setup
traffic_cpus
if [ -z "$C1" ]; then
	skip "all" "needs 2 CPUs"
	exit 0
fi
T=$E2E_TMP
xs() { in_b "$XDP_STEER" "$@"; }
mkdir -p "$T/old"
git -C "$E2E_ROOT" archive "$FROM" | tar -C "$T/old" -xf -
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$T/old" -s -j2 \
	loader/xdp-steer >"$T/old.log" 2>&1 ||
	{ fail "building $FROM"; sed 's/^/  /' "$T/old.log"; e2e_done; }
old() { in_b "$T/old/loader/xdp-steer" "$@"; }

printf 'version: 1\ncpus: [%s, %s]\nhash: {seed: 1}\nrebalance: drain\nlocal_fastpath: true\nbalance: {interval: 1000}\n' \
	"$C0" "$C1" >"$T/p.yaml"
# Frames of the table only: no IPv6 from A (MLD reports on any CPU).
in_a sysctl -qw net.ipv6.conf."$IF_A".disable_ipv6=1

check "$FROM attaches, workers [$C0, $C1], balance on" old attach "$IF_B" --policy "$T/p.yaml"
in_a taskset -c "$C0" python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in range(30000, 30256):
    s.sendto(b"x", (sys.argv[1], p))' "$IP_B"
sleep 0.3
dump() { bpftool -j map dump pinned "$PIN_B/$1" >"$T/$2.json"; }
dump steer_buckets old_buckets
dump steer_load old_load
dump steer_rx_slot old_rx_slot
check "$FROM's steer_buckets is per CPU" \
	bash -c "bpftool -j map show pinned $PIN_B/steer_buckets | grep -q '\"type\":\"percpu_array\"'"

# A warm-up open (steer_window.open, set by hand): the copy waits for
# it, a drain timeout at a time, then refuses, changing nothing.
window() {	# window OPEN: steer_window[0].open set to OPEN, the rest kept
	local v
	v=$(bpftool -j map lookup pinned "$PIN_B/steer_window" key 0 0 0 0 |
		python3 -c 'import json, sys
v = json.load(sys.stdin)["value"]
v[0] = sys.argv[1]
print(" ".join(v))' "$1") &&
	# shellcheck disable=SC2086 # bytes are words
	bpftool map update pinned "$PIN_B/steer_window" key 0 0 0 0 value $v
}
prog_id() { ip -n "$NS_B" -j link show "$IF_B" | python3 -c 'import json, sys
print(json.load(sys.stdin)[0].get("xdp", {}).get("prog", {}).get("id", 0))'; }
id0=$(prog_id)
check "a warm-up is opened by hand" window 0x01
out=$(xs attach "$IF_B" --policy "$T/p.yaml" 2>&1)
rc=$?
check "the upgrade waits, then refuses while a warm-up is open (exit 1, retry)" \
	bash -c "[ $rc = 1 ] && grep -q 'drains are still under way' <<<\"\$1\"" _ "$out"
[ $rc = 1 ] || printf '  %s\n' "$out"
check "... the other version's program stays, its maps unstaged, steer_buckets per CPU" \
	bash -c "[ \"$(prog_id)\" = $id0 ] && ! ls '$PIN_B' | grep -q _staged && bpftool -j map show pinned $PIN_B/steer_buckets | grep -q percpu_array"
check "the warm-up is closed by hand" window 0x00

out=$(xs attach "$IF_B" --policy "$T/p.yaml" 2>&1)
check "this version's attach upgrades in place" grep -q "upgraded in place" <<<"$out"
[ "$E2E_FAILED" = 0 ] || printf '  %s\n' "$out"
dump steer_buckets new_buckets
dump steer_load new_load
# R as a fresh attach makes it (test_rx_rows.sh): the pool of 256 slots
# is lowered to it (one slot is taken, fewer than R).
possible=$(python3 -c 'n = 0
for part in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    a, _, b = part.partition("-")
    n += int(b or a) - int(a) + 1
print(n)')
channels=$(in_b ethtool -l "$IF_B" | awk '/^Current/ { cur = 1 } cur && /^(RX|Combined):/ && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }')
[ "$channels" -gt 0 ] || channels=1
R=$((2 * channels > 16 ? 2 * channels : 16))
R=$((R < possible ? R : possible))
check "steer_buckets and steer_load are plain arrays of R rows of 4096 (R = $R), not the old pool's 256" \
	bash -c "for m in steer_buckets steer_load; do bpftool -j map show pinned $PIN_B/\$m | python3 -c 'import json, sys
d = json.load(sys.stdin)
sys.exit(0 if d[\"type\"] == \"array\" and d[\"max_entries\"] == $R * 4096 else 1)' || exit 1; done"
check "the pool's limit is R: status says $R receiver slots" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER status $IF_B | grep -q 'receiver slots: 1 of $R held'"
check "no staged map is left pinned (*_staged)" \
	bash -c "! ls '$PIN_B' | grep -q _staged"

# copied OLD NEW: C0's value of each bucket in OLD (per CPU) is the value
# of its slot's row in NEW; prints how many were not zero.
copied() {
	python3 - "$T/old_rx_slot.json" "$T/$1.json" "$T/$2.json" "$C0" <<'PY'
import json, sys
def num(b): return int.from_bytes(bytes(int(x, 16) for x in b), "little")
slots, old, new = (json.load(open(f)) for f in sys.argv[1:4])
c0 = int(sys.argv[4])
slot = [num(e["value"]) for e in slots if num(e["key"]) == c0][0]
if not slot:
    sys.exit("cpu %d held no slot in the other version" % c0)
rows = {num(e["key"]): e["value"] for e in new}
n = bad = 0
for e in old:
    v = [x["value"] for x in e["values"] if x["cpu"] == c0][0]
    k = (slot - 1) * 4096 + num(e["key"])
    n += any(int(x, 16) for x in v)
    bad += rows.get(k) != v
print(n)
sys.exit(1 if bad or not n else 0)
PY
}
n=$(copied old_buckets new_buckets)
check "C0's drain records ($n not zero) are its slot's row, bucket for bucket" test $? = 0
n=$(copied old_load new_load)
check "C0's loads ($n not zero) are its slot's row, bucket for bucket" test $? = 0
check "which reads the copied records" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER which $IF_B udp $IP_A:40000 $IP_B:30000 | grep -q 'by bucket'"
check "status reads them" xs status "$IF_B"
check "balance --once reads the loads" xs balance "$IF_B" --once
check "detach works, and removes every pin" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER detach $IF_B && ! ls '$PIN_B' 2>/dev/null | grep -q ."
e2e_done
