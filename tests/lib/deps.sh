#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Installs what xdp-steer needs, in two groups:
#   tests/lib/deps.sh          to build, install and run it and its demo
#                              (`make deps`, `make demo`, `make bench`)
#   tests/lib/deps.sh --test   that and what only the tests need
#                              (`make test`)
#   tests/lib/deps.sh --dist   the first group and what building and
#                              checking the Debian package needs (`make
#                              deb`, the dist tier of tests/run)
#   tests/lib/deps.sh --list [--test] [--dist]   the group's packages, one
#                              a line, installed or not; nothing is
#                              installed
# On Debian/Ubuntu as root it runs apt-get; elsewhere it names what is
# missing and stops. Each line: a file or command that proves the need is
# met, and the Debian package that provides it.
set -euo pipefail

usage() {
	echo "usage: tests/lib/deps.sh [--test] [--dist] [--list]" >&2
	exit 2
}
test_group=0 dist_group=0 list=0
for arg in "$@"; do
	case $arg in
	--test)	test_group=1 ;;
	--dist)	dist_group=1 ;;
	--list)	list=1 ;;
	*)	usage ;;
	esac
done

# Building, `make install`'s pages, running it, and the demo.
NEEDS=(
	"cmd:clang clang"
	"cmd:gcc gcc"
	"cmd:make make"
	"cmd:pkg-config pkg-config"
	"file:/usr/include/bpf/libbpf.h libbpf-dev"
	"file:/usr/include/xdp/libxdp.h libxdp-dev"
	"cmd:xdp-loader xdp-tools"
	"cmd:bpftool bpftool"
	"file:/usr/include/gelf.h libelf-dev"
	"file:/usr/include/zlib.h zlib1g-dev"
	"file:/usr/include/yaml.h libyaml-dev"
	# the man pages are made from README.md and loader/README.md
	# (loader/dist/readme2man.py)
	"cmd:python3 python3"
	# the demo's namespaces, veth pair and observer (tests/e2e/demo.sh)
	"cmd:ip iproute2"
	"cmd:ethtool ethtool"
	"cmd:nsenter util-linux"
)

# Only the tests.
NEEDS_TEST=(
	# libFuzzer and clang's sanitizer runtimes, for tests/fuzz
	"file:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a libclang-rt-14-dev"
	# llvm-objdump: the BPF stack depth check (tests/unit/test_bpf_stack.py)
	"cmd:llvm-objdump llvm"
	# TCP through xdp-steer (tests/e2e/test_tcp.sh)
	"cmd:iperf3 iperf3"
	# tests of make install: the pages, the units
	"cmd:man man-db"
	"cmd:groff groff-base"
	"cmd:systemd-analyze systemd"
	# promtool checks `stats --prometheus` (tests/e2e/test_ring_stats.sh),
	# the dashboard's queries (tests/unit/test_dashboard.py) and the
	# alerting rules (tests/unit/test_alerts.py); Debian ships it only
	# with the server (which starts under systemd)
	"cmd:promtool prometheus"
	# PyYAML: test_alerts.py reads the rules and their tests
	"file:/usr/lib/python3/dist-packages/yaml/__init__.py python3-yaml"
)
[ $test_group -eq 1 ] && NEEDS+=("${NEEDS_TEST[@]}")

# The Debian package: `make deb` builds it with dpkg-buildpackage and
# debhelper (loader/dist/deb.mk), the dist tier checks it with lintian.
NEEDS_DIST=(
	"cmd:dpkg-buildpackage dpkg-dev"
	"file:/usr/share/perl5/Debian/Debhelper/Dh_Lib.pm debhelper"
	"cmd:lintian lintian"
)
[ $dist_group -eq 1 ] && NEEDS+=("${NEEDS_DIST[@]}")

if [ $list -eq 1 ]; then
	for need in "${NEEDS[@]}"; do
		echo "${need##* }"
	done
	echo linux-libc-dev
	exit 0
fi

missing=()
for need in "${NEEDS[@]}"; do
	what=${need%% *}
	pkg=${need##* }
	case $what in
	cmd:*)	command -v "${what#cmd:}" >/dev/null 2>&1 && continue ;;
	file:*)	[ -e "${what#file:}" ] && continue ;;
	esac
	missing+=("$pkg")
done
# asm/types.h for clang -target bpf comes from the multiarch include dir.
arch_inc=/usr/include/$(gcc -dumpmachine 2>/dev/null || uname -m)
[ -e "$arch_inc/asm/types.h" ] || missing+=(linux-libc-dev)

[ ${#missing[@]} -eq 0 ] && exit 0
# Deduplicated, stable order.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++')

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "xdp-steer: missing packages: ${missing[*]}" >&2
	if [ $test_group -eq 1 ]; then
		echo "xdp-steer: install them (Debian/Ubuntu names), or run 'make test' as root on Debian/Ubuntu" >&2
	else
		echo "xdp-steer: install them (Debian/Ubuntu names), or run 'make deps' as root on Debian/Ubuntu" >&2
	fi
	exit 1
fi

echo "xdp-steer: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/xdp-steer-apt.log 2>&1; then
	# Ubuntu ships bpftool inside linux-tools-<kernel>.
	if printf '%s\n' "${missing[@]}" | grep -qx bpftool; then
		rest=("${missing[@]/bpftool/}")
		apt-get install -y -q --no-install-recommends ${rest[*]} \
			linux-tools-common "linux-tools-$(uname -r)" \
			>>/tmp/xdp-steer-apt.log 2>&1 && exit 0
	fi
	tail -20 /tmp/xdp-steer-apt.log >&2
	echo "xdp-steer: apt-get install failed (log: /tmp/xdp-steer-apt.log)" >&2
	exit 1
fi
