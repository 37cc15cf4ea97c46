#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dist tier: `make uninstall` takes down what the installed xdp-steer set
# up, as the package's prerm and postrm do (loader/dist/teardown.sh, which
# they share): installed under a prefix of the test's own (not to disturb
# a /usr/local install), the loader attaches to a veth in a network
# namespace, writes a textfile for node_exporter, and its instances are
# enabled (the links `systemctl enable` makes); `make uninstall` with the
# same paths leaves nothing attached, no pins, no lock, no link of an
# enabled instance (another unit's stays), no textfile and no file.
set -u
. "$(dirname "$0")/lib.sh"

dist_setup "$@"

P=$T/prefix
PATHS=(PREFIX="$P" UDEVRULESDIR="$P/lib/udev/rules.d" TEXTFILEDIR="$T/textfile")
LOADER=$P/sbin/xdp-steer
PROM=$T/textfile/xdp-steer-$IF_B.prom
ETC=/etc/systemd/system
LINKS=(
	"$ETC/multi-user.target.wants/xdp-steer@$IF_B.service"
	"$ETC/sys-subsystem-net-devices-$IF_B.device.wants/xdp-steer@$IF_B.service"
	"$ETC/xdp-steer@$IF_B.service.wants/xdp-steer-balance@$IF_B.service"
	"$ETC/timers.target.wants/xdp-steer-textfile@$IF_B.timer"
)
OTHER=$ETC/multi-user.target.wants/deb$DIST_ID-other.service
uninstall_cleanup() {
	rm -f "${LINKS[@]}" "$OTHER"
	rmdir "$ETC/sys-subsystem-net-devices-$IF_B.device.wants" \
		"$ETC/xdp-steer@$IF_B.service.wants" 2>/dev/null
	[ -x "$LOADER" ] && nsenter --net=/run/netns/"$NS_B" "$LOADER" -q detach "$IF_B" 2>/dev/null
	# The tree's units, made again with the default paths, as make left them.
	dist_make dist-build >/dev/null 2>&1
}
DIST_CLEANUP=uninstall_cleanup

mk() {
	dist_make "$@" >"$T/make.log" 2>&1 || { tail -20 "$T/make.log"; return 1; }
}
check "make install PREFIX=<the test's> installs" mk install "${PATHS[@]}"
[ -x "$LOADER" ] || e2e_done

in_ns() { nsenter --net=/run/netns/"$NS_B" "$@"; }
echo "version: 1" >"$T/policy.yaml"
check "the installed loader attaches to $IF_B" in_ns "$LOADER" -q attach "$IF_B" --policy "$T/policy.yaml"
ID=$(e2e_netns_id "$NS_B")
PINS=/sys/fs/bpf/xdp-steer/netns-$ID/$IF_B
check "  its maps are pinned in $PINS" test -d "$PINS"
mkdir -p "$T/textfile"
check "stats --prometheus writes the textfile node_exporter serves" \
	bash -c "nsenter --net=/run/netns/$NS_B $LOADER stats $IF_B --prometheus >$PROM && test -s $PROM"
make_links() {
	local l
	for l in "${LINKS[@]}"; do
		mkdir -p "${l%/*}" && ln -sf "$P/lib/systemd/system/${l##*/}" "$l" || return 1
	done
	ln -sf /dev/null "$OTHER"
}
check "the links systemctl enable makes for its instances, and another unit's" make_links

check "make uninstall with the same paths succeeds" mk uninstall "${PATHS[@]}"
check "  nothing is attached to $IF_B" \
	bash -c "! ip -n '$NS_B' -d link show '$IF_B' | grep -q 'prog/xdp'"
check "  no pins: /sys/fs/bpf/xdp-steer is gone" test ! -e /sys/fs/bpf/xdp-steer
check "  no lock of $IF_B in /run/xdp-steer" \
	bash -c "! ls /run/xdp-steer | grep -q ':$IF_B.lock'"
no_links() {
	local l rc=0
	for l in "${LINKS[@]}"; do
		[ ! -L "$l" ] || { echo "left: $l"; rc=1; }
	done
	for l in "$ETC/sys-subsystem-net-devices-$IF_B.device.wants" "$ETC/xdp-steer@$IF_B.service.wants"; do
		[ ! -e "$l" ] || { echo "left: $l"; rc=1; }
	done
	return $rc
}
check "  no link of an enabled instance, nor the directories enabling made" no_links
check "  another unit's link stays" test -L "$OTHER"
check "  no textfile for node_exporter" test ! -e "$PROM"
check "  no installed file" bash -c "[ -z \"\$(find '$P' -type f)\" ] || find '$P' -type f"

e2e_done
