#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What to check on a kernel other than the host's, run inside the VM:
#
#   tests/vm/run --cpus 4 -- tests/vm/check-kernel.sh            # both parts
#   tests/vm/run --cpus 4 -- tests/vm/check-kernel.sh dispatcher # one part
#
#   prog        the program tier (tests/run prog): the real object verifies
#               and steers ~100 crafted frames and random ones
#   dispatcher  the loader under libxdp's multi-program dispatcher, beside
#               another XDP program (xdp-filter's allow-all), on a veth
#               pair between two namespaces, with UDP traffic across it
#
# Not part of `make test`: it wants a kernel that lets libxdp build its
# dispatcher (freplace), which some hosts refuse, and 4 CPUs. Prints the
# PASS/FAIL/SKIP lines of the other tests and ends with the runner's count.
set -uo pipefail
cd "$(dirname "$0")/../.."

SUITE=vm/check-kernel E2E_ID=vm
. tests/e2e/lib.sh

OTHER_OBJ=${OTHER_OBJ:-/usr/lib/x86_64-linux-gnu/bpf/xdpfilt_alw_all.o}
OTHER_NAME=xdpfilt_alw_all

steer() { in_b "$XDP_STEER" "$@"; }

# Worker lines of `stats --json`: "CPU QUEUED DEQUEUED" (QUEUED counts the
# frames passed on the receiving CPU too; DEQUEUED only what the cpumap
# delivered on that CPU).
workers() {
	steer stats "$IF_B" --json |
		grep -o '"cpu": [0-9]*, "queued_packets": [0-9]*, "queued_bytes": [0-9]*, "dequeued_packets": [0-9]*' |
		awk -F'[:,] *' '{ print $2, $4, $8 }'
}

status_has() { steer status "$IF_B" --json | grep -q "$1"; }
status_says() { steer status "$IF_B" | grep -qF "$1"; }
# loader_lists NAME... / loader_lists ! NAME: what xdp-loader shows loaded.
loader_lists() {
	local s
	s=$(in_b xdp-loader status "$IF_B") || return 1
	if [ "$1" = "!" ]; then
		! grep -q "$2" <<<"$s"
		return
	fi
	for name; do grep -q "$name" <<<"$s" || return 1; done
}

check_dispatcher() {
	local nproc
	nproc=$(nproc --all)
	if [ "$nproc" -lt 4 ]; then
		skip "dispatcher" "needs 4 CPUs, this machine has $nproc (tests/vm/run --cpus 4)"
		return
	fi
	if [ ! -r "$OTHER_OBJ" ]; then
		skip "dispatcher" "no second XDP program at $OTHER_OBJ (xdp-tools)"
		return
	fi
	e2e_setup
	cat >"$E2E_TMP/p1.yaml" <<-EOF
	version: 1
	cpus: [0-3]
	EOF
	cat >"$E2E_TMP/p2.yaml" <<-EOF
	version: 1
	cpus: [0, 1, 2, {cpu: 3, weight: 2}]
	hash: {key: l4, symmetric: true}
	EOF

	check "xdp-steer attaches with a policy on CPUs 0-3" \
		steer attach "$IF_B" --policy "$E2E_TMP/p1.yaml"
	check "status says it runs under libxdp's dispatcher" \
		status_says "under libxdp's dispatcher"
	check "status --json says \"dispatcher\": true" status_has '"dispatcher": true'
	check "another policy applies" steer apply "$IF_B" "$E2E_TMP/p2.yaml"
	check "the new policy is in force (generation 2, symmetric)" \
		json_holds "$(steer status "$IF_B" --json)" \
		"d['policy']['generation'] == 2 and d['policy']['hash'] == 'l4' and d['policy']['symmetric']"

	check "xdp-loader loads $OTHER_NAME beside xdp-steer" \
		in_b xdp-loader load -m native "$IF_B" "$OTHER_OBJ"
	check "xdp-loader status lists both programs" \
		loader_lists xdp_steer "$OTHER_NAME"
	check "xdp-steer is still attached with its policy after the dispatcher was rebuilt" \
		status_has '"attached": true, .*"dispatcher": true, "uses_pins": true, "policy": {"applied": true, "generation": 2'
	in_b xdp-loader status "$IF_B" | grep -E "^$IF_B|^ +=>" | sed 's/^/  /'

	# 3 rounds to 200 ports: 600 frames of 200 flows (a fresh source port
	# each); bash's /dev/udp needs no traffic tool in the VM.
	in_a bash -c "for r in 1 2 3; do for p in \$(seq 10000 10199); do
		echo x >/dev/udp/$IP_B/\$p; done; done" 2>/dev/null
	sleep 1
	local w
	w=$(workers)
	echo "  worker CPU, frames sent to it, frames its cpumap delivered:"
	sed 's/^/    /' <<<"$w"
	check "UDP frames were steered to at least 3 of the 4 CPUs" \
		test "$(awk '$2 > 0' <<<"$w" | wc -l)" -ge 3
	check "the cpumap delivered frames on at least 2 CPUs" \
		test "$(awk '$3 > 0' <<<"$w" | wc -l)" -ge 2
	check "$OTHER_NAME ran on the frames too (its xdp_stats_map counted)" \
		sh -c "bpftool map dump name xdp_stats_map | grep -Eq '\"rx_packets\": [1-9]'"

	check "xdp-steer detaches" steer detach "$IF_B"
	check "$OTHER_NAME is still loaded" loader_lists "$OTHER_NAME"
	check "xdp_steer is gone from the interface" loader_lists ! xdp_steer
	check "xdp-steer's pins are gone" test ! -e "$PIN_B"
}

# Counted here too, for one total at the end like tests/run's.
passed=0 failed=0 skipped=0
pass() { echo "PASS $SUITE: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $SUITE: $1"; E2E_FAILED=1; failed=$((failed + 1)); }
skip() { echo "SKIP $SUITE: $1 ($2)"; skipped=$((skipped + 1)); }

parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(prog dispatcher)
echo "kernel $(uname -r), $(nproc --all) CPUs"
for part in "${parts[@]}"; do
	case $part in
	prog)
		log=$(mktemp)
		tests/run prog | tee "$log"
		if [[ $(tail -1 "$log") =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			passed=$((passed + BASH_REMATCH[1]))
			failed=$((failed + BASH_REMATCH[2]))
			skipped=$((skipped + BASH_REMATCH[3]))
		else
			fail "prog: tests/run prog ended without its count"
		fi
		rm -f "$log"
		;;
	dispatcher)
		echo "== dispatcher"
		check_dispatcher
		;;
	*)	echo "check-kernel.sh: unknown part '$part' (prog, dispatcher)" >&2
		exit 2 ;;
	esac
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
