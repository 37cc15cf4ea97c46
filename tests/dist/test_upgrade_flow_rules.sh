#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dist tier: an upgrade in place from a version whose flow_rules is
# preallocated (flags 0, before BPF_F_NO_PREALLOC): the map's flags
# changed, so it is rebuilt by copying every entry (loader/kernel/
# migrate_ways.c) and renamed over the pin after the swap. The other version
# is this source with flow_rules' flags set back to 0, its programs
# salted (another tag), attached with 64 exact rules and a prefix rule.
# After the upgrade: flow_rules is not preallocated, holds the same
# entries (bpftool's dump, sorted), which still places rule flows on
# their rule's CPU, apply and detach work. Without the row in migrate_ways.c's
# ways[] the upgrade is refused; without the flag, the flags check fails.
# No traffic: every check reads the maps.
set -u
SUITE=${SUITE:-dist/$(basename "$0" .sh)}
. "$(dirname "$0")/../e2e/lib.sh"

e2e_setup
T=$E2E_TMP
xs() { in_b "$XDP_STEER" "$@"; }

mkdir -p "$T/old"
(cd "$E2E_ROOT" && git ls-files -z --cached --others --exclude-standard |
	tar --null -T - -cf -) | tar -C "$T/old" -xf -
python3 - "$T/old/include/xdp_steer/maps.h" <<'PY' ||
import re, sys
p = sys.argv[1]
s = open(p).read()
s, n = re.subn(r'(X\(flow_rules, BPF_MAP_TYPE_HASH,[^)]*?STEER_MAX_RULES,\s*\\\s*)BPF_F_NO_PREALLOC\)',
               r'\g<1>0)', s)
if n != 1:
    sys.exit("flow_rules' flags not found in " + p)
open(p, "w").write(s)
PY
	{ fail "setting the other version's flow_rules flags to 0"; e2e_done; }
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$T/old" -s -j2 BPF_SALT=1 \
	loader/xdp-steer >"$T/old.log" 2>&1 ||
	{ fail "building the other version"; sed 's/^/  /' "$T/old.log"; e2e_done; }
old() { in_b "$T/old/loader/xdp-steer" "$@"; }

# 64 exact UDP rules, 10.201.0.N:5000 -> 10.200.0.2:6000+N, on CPU N % 2,
# and one prefix rule.
{
	echo "version: 1"
	echo "cpus: [0-1]"
	echo "rules:"
	for n in $(seq 1 64); do
		echo "  - match: {proto: udp, src: 10.201.0.$n, dst: 10.200.0.2, src_port: 5000, dst_port: $((6000 + n))}"
		echo "    cpu: $((n % 2))"
	done
	echo "  - match: {src: 10.202.0.0/16}"
	echo "    cpu: 1"
} >"$T/rules.yaml"

flags() {	# the pinned flow_rules' map flags
	bpftool -j map show pinned "$PIN_B/flow_rules" |
		python3 -c 'import json, sys; print(json.load(sys.stdin).get("flags", 0))'
}
dump() {	# every entry of the pinned flow_rules, sorted
	bpftool -j map dump pinned "$PIN_B/flow_rules" | python3 -c '
import json, sys
for e in sorted(json.dumps([e["key"], e["value"]]) for e in json.load(sys.stdin)):
    print(e)'
}

check "the other version attaches 64 exact rules" \
	old attach "$IF_B" --policy "$T/rules.yaml"
check "its flow_rules is preallocated (flags 0)" test "$(flags)" = 0
dump >"$T/before"
check "its flow_rules holds the 64 rules' entries" test "$(wc -l <"$T/before")" -ge 64

out=$(xs attach "$IF_B" --policy "$T/rules.yaml" 2>&1)
check "this version's attach upgrades in place" \
	grep -q "upgraded in place" <<<"$out"
[ "$E2E_FAILED" = 0 ] || printf '  %s\n' "$out"
check "flow_rules is not preallocated now (BPF_F_NO_PREALLOC)" \
	test "$(flags)" = 1
dump >"$T/after"
# The attach applies the policy to the other slot: the old slot's
# entries stay beside the new ones until the next apply.
check "flow_rules holds every entry it held" \
	test -z "$(comm -23 "$T/before" "$T/after")"
check "no staged map is left pinned (*_staged)" \
	bash -c "! ls '$PIN_B' | grep -q _staged"
for n in 1 2 63 64; do
	check "which places rule flow 10.201.0.$n on cpu $((n % 2))" \
		bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER which $IF_B udp 10.201.0.$n:5000 10.200.0.2:$((6000 + n)) | grep -q 'cpu $((n % 2)), by exact-field rule'"
done
check "which places the prefix rule's flow on cpu 1" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER which $IF_B udp 10.202.3.4:1 10.200.0.2:2 | grep -q 'cpu 1, by prefix rule'"
sed -i 's/^    cpu: 1$/    cpu: 0/' "$T/rules.yaml"
check "apply works on the rebuilt map" xs apply "$IF_B" --policy "$T/rules.yaml"
check "which follows the new policy" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER which $IF_B udp 10.201.0.1:5000 10.200.0.2:6001 | grep -q 'cpu 0, by exact-field rule'"
check "detach works, and removes every pin" \
	bash -c "nsenter --net=/run/netns/$NS_B $XDP_STEER detach $IF_B && ! ls '$PIN_B' 2>/dev/null | grep -q ."
e2e_done
