# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared by the dist tier's tests (tests/dist): the PASS/FAIL lines and
# JSON helpers of tests/e2e/lib.sh, a mount namespace of the test's own,
# two network namespaces joined by a veth pair, and the list of files a
# package could leave behind.
#
#   . tests/dist/lib.sh
#   dist_setup "$@"      # re-runs the test isolated, makes $NS_A, $NS_B,
#                        # $IF_A, $IF_B, $T; DIST_CLEANUP runs on exit
#
# Why a mount namespace: removing xdp-steer (the package's prerm, `make
# uninstall`: loader/dist/teardown.sh) detaches every interface xdp-steer
# has pins for, in every network namespace alive. The test runs with a
# bpffs of its own on /sys/fs/bpf and a tmpfs of its own on
# /run/xdp-steer, so that reaches only what the test attached, never the
# pins or locks of another xdp-steer on this machine (a test beside it).
# Files, the dpkg database and network namespaces are the machine's.

SUITE=${SUITE:-dist/$(basename "$0" .sh)}
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

DIST_ID=$$
NS_A=deb-$DIST_ID-a
NS_B=deb-$DIST_ID-b
IF_A=deb${DIST_ID}a
IF_B=deb${DIST_ID}b
IP_A=10.201.0.1
IP_B=10.201.0.2

# make from inside a test: not a sub-make of whatever make runs the tests.
dist_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$E2E_ROOT" --no-print-directory "$@"
}

# dist_make_var NAME: the value of the Makefile's variable NAME here.
dist_make_var() {
	dist_make -s --eval "dist-print-var: ; @echo '\$($1)'" dist-print-var
}

dist_isolate() {
	if [ -z "${DIST_ISOLATED:-}" ]; then
		exec unshare --mount --propagation private \
			env DIST_ISOLATED=1 "$0" "$@"
	fi
	mount -t bpf bpf /sys/fs/bpf &&
	mkdir -p /run/xdp-steer &&
	mount -t tmpfs -o mode=0700 tmpfs /run/xdp-steer ||
		{ fail "a bpffs and /run/xdp-steer of the test's own"; exit 1; }
}

# What each test adds to the cleanup, run first on exit.
DIST_CLEANUP=:
dist_cleanup() {
	eval "$DIST_CLEANUP"
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	rm -rf "$T"
	return 0
}

dist_setup() {
	e2e_require_root
	dist_isolate "$@"
	T=$(mktemp -d)
	trap dist_cleanup EXIT
	trap 'exit 130' INT TERM
	ip netns add "$NS_A" && ip netns add "$NS_B" &&
	ip link add "$IF_A" netns "$NS_A" type veth peer name "$IF_B" netns "$NS_B" &&
	ip -n "$NS_A" addr add "$IP_A/24" dev "$IF_A" &&
	ip -n "$NS_B" addr add "$IP_B/24" dev "$IF_B" &&
	ip -n "$NS_A" link set "$IF_A" up && ip -n "$NS_B" link set "$IF_B" up ||
		{ fail "setting up namespaces and veth"; exit 1; }
}

# dist_files: every file, directory and link a package could leave,
# sorted: the entries of /, and everything under the directories packages
# and their scripts write (/etc, /usr, /var, /opt, /srv, /boot), but for
# temporary files, logs, caches and apt's lists. Not /run, the kernel's
# file systems, home directories, /tmp, nor the trees that helpers and
# tests build in.
dist_files() {
	{
		find / -mindepth 1 -maxdepth 1
		find /etc /usr /var /opt /srv /boot -xdev \( -path /var/tmp \
			-o -path /var/log -o -path /var/cache -o -path /var/lib/apt/lists \
			-o -path "$E2E_ROOT" -o -path "$T" \) -prune -o -print 2>/dev/null
	} | sort -u
}

# dist_left BEFORE AFTER: what AFTER has that BEFORE had not, but for
# files another package owns (installed meanwhile by someone else) and
# dpkg's own bookkeeping of its last run.
dist_left() {
	local f
	comm -13 "$1" "$2" | while read -r f; do
		case $f in
		/var/lib/dpkg/*-old|/var/lib/dpkg/triggers/*|/var/lib/dpkg/updates/*) continue ;;
		esac
		dpkg -S "$f" >/dev/null 2>&1 && continue
		echo "$f"
	done
}
