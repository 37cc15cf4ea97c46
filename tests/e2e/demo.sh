#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make demo: xdp-steer on a veth pair between two network namespaces, with
# real traffic, showing where the flows went. Everything it creates
# (namespaces, veth, program, pins) is removed on exit, Ctrl-C included.
#
#   tests/e2e/demo.sh [POLICY]        (as root, after make; default
#                                      configs/default.yaml)
#   DEMO_SECONDS=5 DEMO_RATE=200000   how long and how fast to send
#
# Namespace A sends UDP and TCP-shaped frames of 1000 IPv4 and 250 IPv6
# flows, each frame numbered within its flow, into the veth. In namespace
# B, xdp-steer on the other end steers them; an observer at tc ingress
# (which trusts nothing of xdp-steer) notes on which CPU each frame
# reached the stack, and whether a flow's frames came in order.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

SUITE=demo
POLICY=${1:-$E2E_ROOT/configs/default.yaml}
SECONDS_TO_SEND=${DEMO_SECONDS:-5}
RATE=${DEMO_RATE:-200000}

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (namespaces, BPF): sudo make demo"
[ -r "$POLICY" ] || die "no policy file $POLICY"

say "Two namespaces joined by a veth pair"
e2e_setup
traffic_init
echo "sender:   $NS_A, $IF_A ($IP_A, $IP6_A)"
echo "receiver: $NS_B, $IF_B ($IP_B, $IP6_B), steered by xdp-steer"
echo "online CPUs: $(cat /sys/devices/system/cpu/online)"

say "The policy: xdp-steer check --policy $(basename "$POLICY")"
"$XDP_STEER" check --policy "$POLICY" || die "the policy does not check"

say "xdp-steer attach $IF_B --policy $(basename "$POLICY")"
in_b "$XDP_STEER" attach "$IF_B" --policy "$POLICY" ||
	die "attach failed (see above)"
# A NIC queue's interrupt lands on one CPU; a veth's receive work follows
# the sender around. Pin it, so one CPU collects, as on a NIC.
traffic_rx_pin >/dev/null || die "cannot pin $IF_B's receive work to CPU $TRAFFIC_RX_CPU"
echo "receive work (NAPI) of $IF_B pinned to CPU $TRAFFIC_RX_CPU: the collector"
echo
in_b "$XDP_STEER" status "$IF_B"

say "Sending ${SECONDS_TO_SEND} s of traffic, $RATE frames/s: 1000 UDP/IPv4, 250 TCP/IPv4, 250 UDP/IPv6 flows"
observer_start --drop || die "the observer could not attach to $IF_B"
gen_start --group udp4:1000 --group tcp4:250 --group udp6:250 \
	--rate "$RATE" --duration "$SECONDS_TO_SEND"
# What xdp-steer says it does, once a second, while the frames flow.
in_b "$XDP_STEER" stats "$IF_B" --interval 1 --count "$SECONDS_TO_SEND"
gen_stop || die "the generator failed"
observer_stop || die "the observer failed"

say "Where the flows reached the stack (observer at tc ingress of $IF_B)"
traffic_cpu_table "$OBS_REPORT"
echo
awk -v sent="$GEN_SENT" -v drops="$(traffic_drops "$OBS_REPORT")" '
	$1 == "marked" { marked = $2 }
	$1 == "flow" { flows++; if ($4 ~ /,/) multi++; if ($8 || $12) ooo++ }
	END {
		printf "flows seen:                  %d\n", flows
		printf "flows on more than one CPU:  %d\n", multi
		printf "flows out of sequence:       %d\n", ooo
		printf "frames sent / seen / dropped: %d / %d / %d\n", sent, marked, drops
	}' "$OBS_REPORT"
echo
echo "Every flow stays on one CPU, in order; the flows spread over the worker"
echo "CPUs as the policy weighs them. Flows that hash to the collector itself"
echo "are passed there with no hop (local_fastpath)."

say "Cleaning up: detach, delete namespaces"
in_b "$XDP_STEER" detach "$IF_B"
