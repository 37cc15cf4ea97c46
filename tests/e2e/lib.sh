#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared by the root-tier tests in tests/e2e: two network namespaces joined
# by a veth pair, cleaned up on exit (also when a test fails or is
# interrupted), and the PASS/FAIL/SKIP lines tests/run counts.
#
#   . tests/e2e/lib.sh
#   e2e_setup            # namespaces $NS_A (sender) and $NS_B (receiver),
#                        # veth $IF_A in A and $IF_B in B, 10.200.0.1/.2 and
#                        # fd00:200::1/::2
#   in_b xdp-steer attach "$IF_B" --policy p.yaml
#   check "the policy is in force" test "$(...)" = ...
#
# $PIN_B is where xdp-steer pins $IF_B's maps: a namespace other than the
# initial one gets STEER_PIN_ROOT/netns-<inode>-<cookie>/<ifname>
# (include/xdp_steer/names.h, loader/kernel/pins.h, netns.h), worked out here
# from the namespace itself (e2e_netns_id) so the tests do not take the
# loader's word for it. $LOCK_B is its lock file,
# /run/xdp-steer/<inode>-<cookie>:<ifname>.lock.
#
# in_a/in_b run a command in a namespace with nsenter, which keeps the
# host's /sys/fs/bpf for the test's own reads of the pins (ip netns exec
# would remount /sys and hide it; xdp-steer copes, test_ip_netns_exec.sh).

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
XDP_STEER=${XDP_STEER:-$E2E_ROOT/loader/xdp-steer}
BPF_OBJ=${BPF_OBJ:-$E2E_ROOT/bpf/xdp_steer.bpf.o}
SUITE=${SUITE:-e2e/$(basename "$0" .sh)}

# Unique per run, short enough for 15-character interface names.
E2E_ID=${E2E_ID:-$$}
NS_A=xst-$E2E_ID-a
NS_B=xst-$E2E_ID-b
IF_A=xsa$E2E_ID
IF_B=xsb$E2E_ID
IP_A=10.200.0.1
IP_B=10.200.0.2
IP6_A=fd00:200::1
IP6_B=fd00:200::2

E2E_FAILED=0

pass() { echo "PASS $SUITE: $1"; }
fail() { echo "FAIL $SUITE: $1"; E2E_FAILED=1; }
skip() { echo "SKIP $SUITE: $1 ($2)"; }

# check NAME CMD...: one test line from a command's exit status; the
# command's output is shown only when it fails.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		[ -n "$out" ] && printf '  %s\n' "$out" | head -20
		fail "$name"
	fi
}

# json_holds DOC PYTHON-EXPR: the expression over the JSON document DOC (as
# d) is true; prints the document when it is not.
json_holds() {
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print(json.dumps(d, indent=1)[:1500])
sys.exit(0 if ok else 1)' "$1" "$2"
}

# jget DOC PYTHON-EXPR: prints the expression over the JSON document DOC
# (as d), e.g. jget "$(xdp-steer status IF --json)" 'd["policy"]["generation"]'.
jget() {
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

in_a() { nsenter --net=/run/netns/"$NS_A" "$@"; }
in_b() { nsenter --net=/run/netns/"$NS_B" "$@"; }
# entries MAP: max_entries of map MAP pinned in $PIN_B, as bpftool shows it.
entries() {
	bpftool -j map show pinned "$PIN_B/$1" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["max_entries"])'
}

e2e_require_root() {
	if [ "$(id -u)" -ne 0 ]; then
		skip "all" "needs root for namespaces and BPF"
		exit 0
	fi
}

e2e_ensure_bpffs() {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
}

e2e_cleanup() {
	if [ -e /run/netns/"$NS_B" ]; then
		in_b "$XDP_STEER" -q detach "$IF_B" >/dev/null 2>&1
		in_b xdp-loader unload -a "$IF_B" >/dev/null 2>&1
	fi
	# Only this run's namespace has pins in its directory.
	[ -n "${PIN_B:-}" ] && rm -rf "$(dirname "$PIN_B")"
	[ -n "${LOCK_B:-}" ] && rm -f "$LOCK_B"
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	[ -n "${E2E_TMP:-}" ] && rm -rf "$E2E_TMP"
	return 0
}

# e2e_netns_id NS: prints "<inode>-<cookie>" of namespace NS: the inode of
# its nsfs file, and its cookie (SO_NETNS_COOKIE, 71) from a socket made
# inside it.
e2e_netns_id() {
	local ino cookie
	ino=$(stat -L -c %i /run/netns/"$1") || return 1
	cookie=$(nsenter --net=/run/netns/"$1" python3 -c 'import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
print(int.from_bytes(s.getsockopt(socket.SOL_SOCKET, 71, 8), "little"))') || return 1
	echo "$ino-$cookie"
}

# PIN_B and LOCK_B for $NS_B (see the top).
e2e_pin_paths() {
	local id
	id=$(e2e_netns_id "$NS_B") || return 1
	PIN_B=/sys/fs/bpf/xdp-steer/netns-$id/$IF_B
	LOCK_B=/run/xdp-steer/$id:$IF_B.lock
}

# The link between A and B: a veth pair, or with E2E_NICS="DEV_A DEV_B"
# two existing interfaces (tests/vm/check-nic.sh: two NICs joined in QEMU)
# moved into the namespaces and renamed $IF_A and $IF_B there; deleting the
# namespaces gives them back.
e2e_link() {
	if [ -z "${E2E_NICS:-}" ]; then
		ip link add "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B"
		return
	fi
	set -- $E2E_NICS
	ip link set "$1" netns "$NS_A" && ip -n "$NS_A" link set "$1" name "$IF_A" &&
	ip link set "$2" netns "$NS_B" && ip -n "$NS_B" link set "$2" name "$IF_B"
}

# Waits up to 10 s for both ends of the link to have carrier (NICs of
# E2E_NICS take a moment after they come up, or after an MTU change);
# prints B's link when it does not come.
e2e_link_up() {
	local i
	for i in $(seq 100); do
		ip -n "$NS_A" link show "$IF_A" | grep -q LOWER_UP &&
			ip -n "$NS_B" link show "$IF_B" | grep -q LOWER_UP && return 0
		sleep 0.1
	done
	ip -n "$NS_B" link show "$IF_B"
	return 1
}

e2e_setup() {
	e2e_require_root
	e2e_ensure_bpffs
	E2E_TMP=$(mktemp -d)
	trap e2e_cleanup EXIT
	trap 'exit 130' INT TERM
	ip netns add "$NS_A" && ip netns add "$NS_B" &&
	e2e_pin_paths &&
	# Quiet links: with router_solicitations -1 (the default) a host
	# solicits a router 4, 8, 16... s after link up, forever, and every
	# solicitation crosses the steered interface among the frames a test
	# counts exactly. Set before the veth exists, so it starts with
	# these values.
	in_a sysctl -qw net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.default.accept_ra=0 &&
	in_b sysctl -qw net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.default.accept_ra=0 &&
	e2e_link &&
	ip -n "$NS_A" addr add "$IP_A/24" dev "$IF_A" &&
	ip -n "$NS_B" addr add "$IP_B/24" dev "$IF_B" &&
	ip -n "$NS_A" addr add "$IP6_A/64" dev "$IF_A" nodad &&
	ip -n "$NS_B" addr add "$IP6_B/64" dev "$IF_B" nodad &&
	ip -n "$NS_A" link set lo up && ip -n "$NS_B" link set lo up &&
	ip -n "$NS_A" link set "$IF_A" up && ip -n "$NS_B" link set "$IF_B" up ||
		{ fail "setting up namespaces and veth"; exit 1; }
	# Frames redirected through a cpumap keep an unfinished checksum;
	# the sender must finish it or UDP drops them all.
	ip netns exec "$NS_A" ethtool -K "$IF_A" tx off >/dev/null
}

# Exit status of a test script: 1 if any check failed.
e2e_done() {
	exit $E2E_FAILED
}
