#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What real kernels and NICs do to the keys operators ask for:
# 1. The cpumaps have one entry per possible CPU of this kernel (at most
#    256), not a fixed 256 that a kernel built with a smaller NR_CPUS
#    refuses: bpftool reads their size from the pins; a policy naming the
#    first CPU past them is refused by check and by apply with its
#    file:line:col, the policy in force left as it was.
. "$(dirname "$0")/lib.sh"

e2e_setup

POSSIBLE=$(python3 -c 'import sys
n = 0
for part in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    lo, _, hi = part.partition("-")
    n = max(n, int(hi or lo) + 1)
print(min(n, 256))')

cat >"$E2E_TMP/all.yaml" <<EOF
version: 1
cpus: [0]
EOF
cat >"$E2E_TMP/past.yaml" <<EOF
version: 1
cpus: [0, $POSSIBLE]
EOF

if ! in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/all.yaml"; then
	fail "xdp-steer attach $IF_B"
	e2e_done
fi

# max_entries of a pinned map, as bpftool shows it.
entries() {
	bpftool -j map show pinned "$PIN_B/$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["max_entries"])'
}

check "cpu_map has one entry per possible CPU ($POSSIBLE)" \
	test "$(entries cpu_map)" = "$POSSIBLE"
check "cpu_map_b, the other bank, too" \
	test "$(entries cpu_map_b)" = "$POSSIBLE"

# out_has PATTERN: the last command's output ($E2E_TMP/out) matches.
out_has() {
	grep -Eq "$1" "$E2E_TMP/out" || { cat "$E2E_TMP/out"; return 1; }
}

in_b "$XDP_STEER" check --policy "$E2E_TMP/past.yaml" >"$E2E_TMP/out" 2>&1
check "check refuses a policy naming cpu $POSSIBLE (exit 1)" test $? -eq 1
check "and says where and why" \
	out_has "past.yaml:2:[0-9]+: cpu $POSSIBLE is past this kernel's possible CPUs"
gen=$(jget "$(in_b "$XDP_STEER" status "$IF_B" --json)" 'd["policy"]["generation"]')
in_b "$XDP_STEER" apply "$IF_B" --policy "$E2E_TMP/past.yaml" >"$E2E_TMP/out" 2>&1
check "apply refuses it too (exit 1)" test $? -eq 1
check "with its location" \
	out_has "past.yaml:2:[0-9]+: cpu $POSSIBLE is past this kernel's possible CPUs"
check "and the policy in force stays" \
	test "$(jget "$(in_b "$XDP_STEER" status "$IF_B" --json)" 'd["policy"]["generation"]')" = "$gen"

e2e_done
