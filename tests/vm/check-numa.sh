#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The default workers on a machine of two NUMA nodes, run inside the VM:
# two virtio-net NICs on a PCIe expander bridge of node 1, joined back to
# back (tests/vm/run --numa 2 --nics virtio), A sends, B steers.
#
#   tests/vm/run --cpus 4 --numa 2 --nics virtio -- tests/vm/check-numa.sh
#
# Node 0 has CPUs 0-1, node 1 CPUs 2-3, the NICs say numa_node 1; the
# per-slot maps are made on a node (BPF_F_NUMA_NODE). A policy
# without 'cpus' takes node 1's CPUs as workers (virtio_net names its
# interrupts after the device, so no collector is known and none is left
# out); steered traffic reaches the stack on those CPUs only, each flow on
# one; a policy naming a CPU of node 0 is applied as written and status
# warns of it; the default again, and the warning is gone. Ends with
# "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."

SUITE=vm/numa E2E_ID=vm
. tests/e2e/lib.sh
. tests/e2e/traffic_lib.sh

passed=0 failed=0 skipped=0
pass() { echo "PASS $SUITE: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $SUITE: $1"; E2E_FAILED=1; failed=$((failed + 1)); }
finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ $failed -eq 0 ]
	exit
}

# Paced low: TCG emulates every instruction.
RATE=${NIC_RATE:-5000}
FLOWS=200
GROUP=udp4:$FLOWS,per-addr=1

steer() { in_b "$XDP_STEER" "$@"; }

modprobe virtio_net
nics_of() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = virtio_net ] &&
			basename "$d"
	done | sort
}
for i in $(seq 50); do
	[ "$(nics_of | wc -l)" -ge 2 ] && break
	sleep 0.2
done
mapfile -t NICS < <(nics_of)
echo "kernel $(uname -r), $(nproc) CPUs, nodes $(cat /sys/devices/system/node/online), virtio_net NICs: ${NICS[*]}"
if [ ${#NICS[@]} -lt 2 ]; then
	fail "two virtio_net NICs are there (tests/vm/run --nics virtio)"
	finish
fi
# A virtio device has no numa_node of its own: its PCI function has.
nic_node() { cat "$(readlink -f /sys/class/net/"$1"/device)/../numa_node"; }
check "the machine has nodes 0 (CPUs 0-1) and 1 (CPUs 2-3)" \
	test "$(cat /sys/devices/system/node/node0/cpulist) $(cat /sys/devices/system/node/node1/cpulist)" = "0-1 2-3"
check "${NICS[1]} is on node 1 (its PCI function's numa_node)" \
	test "$(nic_node "${NICS[1]}")" = 1

E2E_NICS="${NICS[0]} ${NICS[1]}"
e2e_setup
traffic_init
check "the link between $IF_A and $IF_B comes up" e2e_link_up

printf 'version: 1\n' >"$E2E_TMP/default.yaml"
printf 'version: 1\ncpus: [0, 2-3]\n' >"$E2E_TMP/node0.yaml"

# The workers status lists (its JSON's policy.workers), as "2,3".
workers() {
	steer status "$IF_B" --json |
		python3 -c 'import json, sys; print(",".join(str(w["cpu"]) for w in json.load(sys.stdin)["policy"]["workers"]))'
}
status_warns() { steer status "$IF_B" | grep -F "warning: $1" || { steer status "$IF_B"; return 1; }; }
status_quiet_on_nodes() { ! steer status "$IF_B" | grep -F "NUMA"; }
says() { grep -qF -- "$1" "$E2E_TMP/attach.out" || { cat "$E2E_TMP/attach.out"; return 1; }; }

if ! steer attach "$IF_B" --policy "$E2E_TMP/default.yaml" >"$E2E_TMP/attach.out" 2>&1; then
	cat "$E2E_TMP/attach.out"
	fail "xdp-steer attaches to $IF_B with a policy without 'cpus'"
	finish
fi
pass "xdp-steer attaches to $IF_B with a policy without 'cpus'"
check "attach says the workers are node 1's CPUs" \
	says "'cpus' is not set: the workers are the CPUs of NUMA node 1, $IF_B's"
check "the default workers are node 1's CPUs, 2 and 3 (status)" \
	test "$(workers)" = "2,3"
check "status gives no NUMA warning" status_quiet_on_nodes
# The per-slot maps on the NIC's node: the kernel shows no node, but keeps
# BPF_F_NUMA_NODE (0x4) in a map's flags only when it took one.
numa_flag() {
	bpftool -j map show pinned "$(steer pin-dir "$IF_B")/$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["flags"] & 4)'
}
check "the per-slot maps were made on a node (BPF_F_NUMA_NODE: $(for m in steer_buckets steer_load steer_seq steer_deq steer_queued; do printf '%s ' "$(numa_flag $m)"; done))" \
	test "$(for m in steer_buckets steer_load steer_seq steer_deq steer_queued; do numa_flag $m; done | sort -u)" = 4
check "  a per-CPU map (steer_stats) was not" test "$(numa_flag steer_stats)" = 0

if observer_start --drop; then
	gen_run --native --rate "$RATE" --group "$GROUP" --count $((FLOWS * 10)) ||
		fail "the generator sends its frames"
	observer_stop || fail "the observer reports"
	echo "  $(traffic_summary "$OBS_REPORT")"
	traffic_cpu_table "$OBS_REPORT" | sed 's/^/  /'
	check "every one of $FLOWS flows reached the stack on exactly one CPU" \
		traffic_flows_one_cpu "$OBS_REPORT" 0 $((FLOWS - 1))
	check "no flow reached the stack on node 0's CPUs (0, 1)" \
		test "$(awk '$1 == "flow" && $4 ~ /(^|,)[01](,|$)/' "$OBS_REPORT" | wc -l)" -eq 0
	check "node 1's CPUs 2 and 3 both took flows" \
		test "$(awk '$1 == "cpu" && ($2 == 2 || $2 == 3) && $6 > 0' "$OBS_REPORT" | wc -l)" -eq 2
else
	fail "the observer attaches to $IF_B"
fi

check "a policy naming CPU 0 of node 0 is applied" \
	steer -q apply "$IF_B" --policy "$E2E_TMP/node0.yaml"
check "  as written: its workers are 0, 2 and 3" test "$(workers)" = "0,2,3"
check "  and status warns that worker CPU 0 is off the NIC's node" \
	status_warns "worker CPUs 0 are not on NUMA node 1, where $IF_B is"
check "the default again" steer -q apply "$IF_B" --policy "$E2E_TMP/default.yaml"
check "  takes node 1's CPUs" test "$(workers)" = "2,3"
check "  and the warning is gone" status_quiet_on_nodes
check "detach" steer -q detach "$IF_B"
finish
