#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Unit tier (no root): the two groups of tests/lib/deps.sh and the make
# targets that install them. `make deps` (and so `make demo` and `make
# bench`) installs what building and the demo need, none of what only the
# tests need (a Prometheus server for promtool, iperf3, the fuzzer's
# runtime, the man and systemd tools); `make test` installs both groups.
# `deps.sh --dist` (the dist tier) adds the package tools to the first
# group, which neither of the others installs. Read from `deps.sh --list`
# and `make -n`, so nothing is installed.
set -u
SUITE=deps
. "$(dirname "$0")/../e2e/lib.sh"
ROOT=$E2E_ROOT
DEPS=$ROOT/tests/lib/deps.sh

TEST_ONLY="prometheus iperf3 libclang-rt-14-dev llvm man-db groff-base systemd"
DIST_ONLY="dpkg-dev debhelper lintian"
BUILD="clang gcc make libbpf-dev libxdp-dev bpftool libyaml-dev python3 iproute2 util-linux linux-libc-dev"

has_all() {	# has_all "WORDS" LIST...
	local w
	for w in $1; do
		grep -qx -- "$w" <<<"$2" || { echo "no $w in: $(echo $2)"; return 1; }
	done
}
has_none() {
	local w
	for w in $1; do
		! grep -qx -- "$w" <<<"$2" || { echo "$w in: $(echo $2)"; return 1; }
	done
}

base=$("$DEPS" --list)
all=$("$DEPS" --list --test)
check "deps.sh's group names what building and the demo need ($(echo $BUILD))" \
	has_all "$BUILD" "$base"
check "deps.sh's group names nothing only the tests need ($(echo $TEST_ONLY))" \
	has_none "$TEST_ONLY" "$base"
check "deps.sh --test names both groups" \
	has_all "$BUILD $TEST_ONLY" "$all"
dist=$("$DEPS" --list --dist)
check "deps.sh --dist names the build group and the package tools ($(echo $DIST_ONLY))" \
	has_all "$BUILD $DIST_ONLY" "$dist"
check "deps.sh --test names none of the package tools (make test does not install them)" \
	has_none "$DIST_ONLY" "$all"
check "deps.sh refuses an option it does not know (exit 2)" \
	bash -c "'$DEPS' --tests >/dev/null 2>&1; [ \$? -eq 2 ]"

# What a make target runs first, its sub-makes not followed.
first_deps() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -n --no-print-directory \
		"$1" 2>/dev/null | grep -m1 'tests/lib/deps.sh'
}
check "make deps runs deps.sh without --test" \
	test "$(first_deps deps)" = "tests/lib/deps.sh"
check "make demo installs the build and demo group only" \
	test "$(first_deps demo)" = "tests/lib/deps.sh"
check "make test installs the test group too, before it builds" \
	test "$(first_deps test)" = "tests/lib/deps.sh --test"
check "make deb installs the build group and the package tools, before it builds" \
	test "$(first_deps deb)" = "tests/lib/deps.sh --dist"

e2e_done
