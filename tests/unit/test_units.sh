#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Unit tier (no root): the systemd units as `make install DESTDIR=...
# PREFIX=/usr` stages them. Each service is hardened: `systemd-analyze
# security --offline=true` rates its exposure 5.0 or less (read from its
# "Overall exposure level" line; the same unit without its hardening is
# rated over 5.0, so the reading is shown to work), and every capability
# it keeps is said why in a comment; the units that pin maps can write
# /sys/fs/bpf (not ProtectKernelTunables=). xdp-steer@IFACE comes back
# with its interface: `systemctl enable` adds it to the device's wants
# (the interface's device unit starts it again after a driver reload) as
# well as multi-user.target's, it is still bound to the device, and
# `systemctl disable` takes both away.
set -u
SUITE=units
. "$(dirname "$0")/../e2e/lib.sh"
ROOT=$E2E_ROOT

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

D=$T/stage
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" --no-print-directory \
	install DESTDIR="$D" PREFIX=/usr >"$T/make.log" 2>&1; then
	tail -20 "$T/make.log"
	fail "make install DESTDIR=... PREFIX=/usr stages the units"
	e2e_done
fi
UNITS=$D/usr/lib/systemd/system
# Each service, as an instance name systemd-analyze looks up in the root.
SERVICES="xdp-steer@xsb$$ xdp-steer-balance@xsb$$ xdp-steer-repair@cpu1 xdp-steer-textfile@xsb$$"
MAX_EXPOSURE=5.0

# ---- hardening -------------------------------------------------------------

# exposure ROOT UNIT: prints the unit's overall exposure level (0.0 to 10.0).
exposure() {
	local out level
	out=$(systemd-analyze security --offline=true --root="$1" "$2" 2>&1)
	level=$(sed -n 's/^.*Overall exposure level for [^:]*: \([0-9][0-9]*\.[0-9]\).*$/\1/p' <<<"$out")
	[ -n "$level" ] || { echo "no exposure level in:"; tail -5 <<<"$out"; return 1; }
	echo "$level"
}
at_most() {	# at_most ROOT UNIT MAX
	local level
	level=$(exposure "$1" "$2") || { echo "$level"; return 1; }
	awk -v l="$level" -v m="$3" 'BEGIN { exit !(l <= m) }' ||
		{ echo "$2: exposure $level, more than $3"; return 1; }
}
over() {	# over ROOT UNIT MIN
	local level
	level=$(exposure "$1" "$2") || { echo "$level"; return 1; }
	awk -v l="$level" -v m="$3" 'BEGIN { exit !(l > m) }' ||
		{ echo "$2: exposure $level, not more than $3"; return 1; }
}

if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze security of the units" "no systemd-analyze: tests/lib/deps.sh --test installs systemd"
elif ! systemd-analyze security --offline=true --root="$D" "xdp-steer@xsb$$.service" >/dev/null 2>&1; then
	skip "systemd-analyze security of the units" "this systemd-analyze has no 'security --offline' (systemd 250 and later)"
else
	for s in $SERVICES; do
		check "systemd-analyze security rates $s.service's exposure $MAX_EXPOSURE or less" \
			at_most "$D" "$s.service" "$MAX_EXPOSURE"
	done
	# The same unit with its [Service] cut down to the commands: the
	# reading is of the unit, and hardening is what lowers it.
	bare=$T/bare/usr/lib/systemd/system
	mkdir -p "$bare"
	grep -vE '^(Capability|NoNewPriv|Protect|Private|Restrict|ReadWrite|Runtime|IPAddress|Lock|Memory|SystemCall|UMask)' \
		"$UNITS/xdp-steer@.service" >"$bare/xdp-steer@.service"
	check "  (and rates it over $MAX_EXPOSURE without its hardening)" \
		over "$T/bare" "xdp-steer@xsb$$.service" "$MAX_EXPOSURE"
fi

# Every capability a service keeps is named in one of its comments, which
# say why it needs it.
caps_said() {
	local unit=$1 set cap
	set=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
	[ -n "$set" ] || { echo "$unit: no CapabilityBoundingSet="; return 1; }
	for cap in $set; do
		grep -q "^#.*\<$cap\>" "$unit" ||
			{ echo "$unit: $cap kept, and no comment says why"; return 1; }
	done
}
for s in $SERVICES; do
	check "${s%@*}@.service bounds its capabilities, each said why in a comment" \
		caps_said "$UNITS/${s%@*}@.service"
done

# ProtectKernelTunables= makes /sys/fs/bpf read-only whatever
# ReadWritePaths= says (systemd 252): the units that pin keep it off and
# make the tunables read-only by ReadOnlyPaths=, below the pins' path.
bpffs_writable() {
	local unit=$1
	! grep -q '^ProtectKernelTunables=yes' "$unit" &&
	grep -qx 'ReadWritePaths=/sys/fs/bpf' "$unit" &&
	grep -qx 'ReadOnlyPaths=/sys /proc/sys -/proc/sysrq-trigger -/proc/irq' "$unit" ||
		{ grep -E '^(Protect|ReadWrite|ReadOnly)' "$unit"; return 1; }
}
for s in xdp-steer xdp-steer-balance xdp-steer-repair; do
	check "$s@.service can write its pins in /sys/fs/bpf, the kernel's tunables read-only" \
		bpffs_writable "$UNITS/$s@.service"
done

# ---- the device's want -----------------------------------------------------

UNIT=$UNITS/xdp-steer@.service
check "xdp-steer@ is still bound to its interface's device (stopped when it goes)" \
	grep -qx 'BindsTo=sys-subsystem-net-devices-%i.device' "$UNIT"
check "xdp-steer@ is wanted by multi-user.target and by its interface's device" \
	grep -qx 'WantedBy=multi-user.target sys-subsystem-net-devices-%i.device' "$UNIT"

WANTS=$D/etc/systemd/system
enabled() {	# enabled INSTANCE: both wants are links to the installed template
	local l
	for l in "$WANTS/multi-user.target.wants/xdp-steer@$1.service" \
		 "$WANTS/sys-subsystem-net-devices-$1.device.wants/xdp-steer@$1.service"; do
		[ "$(readlink "$l")" = /usr/lib/systemd/system/xdp-steer@.service ] ||
			{ echo "$l: not a link to the template"; ls -lR "$WANTS"; return 1; }
	done
}
disabled() {
	[ -z "$(find "$WANTS" -name "xdp-steer@$1.service")" ] ||
		{ find "$WANTS" -name "xdp-steer@$1.service"; return 1; }
}
if command -v systemctl >/dev/null; then
	check "systemctl enable xdp-steer@xsb$$ succeeds" \
		systemctl --root="$D" --quiet enable "xdp-steer@xsb$$.service"
	check "  and adds it to the wants of sys-subsystem-net-devices-xsb$$.device (started again when the interface comes back) and of multi-user.target" \
		enabled "xsb$$"
	esc=$(systemd-escape "br-x$$")
	check "systemctl enable of an escaped name, xdp-steer@$esc, wants the device of that name" \
		bash -c "systemctl --root='$D' --quiet enable 'xdp-steer@$esc.service' &&
			 test -L '$WANTS/sys-subsystem-net-devices-$esc.device.wants/xdp-steer@$esc.service'"
	check "systemctl disable xdp-steer@xsb$$ takes both wants away" \
		bash -c "systemctl --root='$D' --quiet disable 'xdp-steer@xsb$$.service'"
	check "  (no link left)" disabled "xsb$$"
else
	skip "systemctl enable of xdp-steer@" "no systemctl: tests/lib/deps.sh --test installs systemd"
fi

e2e_done
