#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: `ip netns exec NS xdp-steer ...` works across separate
# commands, as nsenter --net does (issue 47). ip netns exec runs each
# command in a mount namespace of its own with a fresh /sys, which hides
# the host's bpffs; xdp-steer takes the bpffs of the namespace it came
# from into its own (loader/kernel/bpffs.c), so its pins outlive it.
#   - attach, status, apply, stats, balance --once and detach, each its
#     own `ip netns exec`, see one state, the host's: pins where nsenter
#     finds them, a policy applied by one seen by the next.
#   - Where the command came from has no bpffs either, attach refuses
#     before it attaches anything, and names nsenter.
#   - Nothing is mounted on the host by it.
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
T=$E2E_TMP
# ie: the way iproute2 users run a command in a namespace.
ie() { ip netns exec "$NS_B" "$XDP_STEER" "$@"; }
prog_on() {	# the XDP program id on $IF_B per ip link, or 0
	ip -n "$NS_B" -j -d link show dev "$IF_B" | python3 -c 'import json, sys
print(json.load(sys.stdin)[0].get("xdp", {}).get("prog", {}).get("id", 0))'
}
host_mounts() { grep -c ' /sys/fs/bpf ' /proc/self/mounts; }

printf 'version: 1\ncpus: [0-1]\nhash: {seed: 1}\n' >"$T/p1.yaml"
printf 'version: 1\ncpus: [0-1]\nhash: {seed: 2}\n' >"$T/p2.yaml"
mounts_before=$(host_mounts)

# ---- a whole life, one `ip netns exec` per command ---------------------------

check "ip netns exec ... attach succeeds" ie attach "$IF_B" --policy "$T/p1.yaml"
check "its pins are in the host's bpffs, where nsenter finds them" \
	test -e "$PIN_B/steer_ctl"
doc=$(ie status "$IF_B" --json 2>&1)
check "the next ip netns exec ... status finds it attached with its policy" \
	json_holds "$doc" 'd["policy"]["generation"] == 1'
check "apply through ip netns exec succeeds" ie apply "$IF_B" --policy "$T/p2.yaml"
doc=$(in_b "$XDP_STEER" status "$IF_B" --json 2>&1)
check "and nsenter --net sees the policy it applied" \
	json_holds "$doc" 'd["policy"]["generation"] == 2'

# Frames through it, counted where a later ip netns exec reads them.
in_a python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(200):
    s.sendto(b"x" * 32, (sys.argv[1], 9000 + i))' "$IP_B"
doc=$(ie stats "$IF_B" --json 2>&1)
check "stats through ip netns exec counts the frames sent (200 or more)" \
	json_holds "$doc" 'd["totals"]["rx_packets"] >= 200'
check "balance --once through ip netns exec runs a round" \
	ie balance "$IF_B" --once
check "detach through ip netns exec succeeds" ie detach "$IF_B"
check "and leaves no program on the interface" test "$(prog_on)" = 0
check "and no pins" test ! -e "$PIN_B"

# ---- nowhere for the pins to live ---------------------------------------------

# The command comes from a mount namespace without a bpffs: pins made in
# ip netns exec's would vanish with it.
unshare --mount --propagation private --fork sh -c \
	'umount /sys/fs/bpf && ip netns exec "$1" "$2" attach "$3" --policy "$4"; echo "rc=$?"' \
	sh "$NS_B" "$XDP_STEER" "$IF_B" "$T/p1.yaml" >"$T/out" 2>&1
check "attach refuses where the namespace it came from has no bpffs" \
	grep -q '^rc=[1-9]' "$T/out"
check "and names the way that works (nsenter --net)" \
	grep -q "nsenter --net" "$T/out"
check "and has attached nothing" test "$(prog_on)" = 0
check "nor pinned anything" test ! -e "$PIN_B"
check "the host's mounts are as before (ip netns exec's stay its own)" \
	test "$(host_mounts)" = "$mounts_before"

e2e_done
