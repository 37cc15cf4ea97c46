#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Inside a VM whose PID 1 is systemd (tests/vm/run --init systemd): the
# units as an operator runs them. xdp-steer is installed into the VM's
# throw-away root (`make install`, /usr/local), xdp-steer@xsu0 runs on a
# veth whose peer, in a namespace, sends paced UDP to it (xsu0 gets its
# device unit from udev), and:
#   - `systemctl start` attaches with /etc/xdp-steer/xsu0.yaml and starts
#     xdp-steer-balance@xsu0;
#   - under libxdp's dispatcher (where the kernel takes xdp_steer in it),
#     `systemctl reload` and `restart` upgrade in place: another xdp_steer
#     in the dispatcher, the maps kept, an XDP program on the interface at
#     every sample through the restart; then, with LIBXDP_SKIP_DISPATCHER=1
#     in a drop-in, xdp_steer alone:
#   - `systemctl reload` upgrades in place: another program id, the maps
#     kept (the same map id behind the pin);
#   - `systemctl restart` upgrades in place too: sampled while it runs,
#     the interface has an XDP program at every sample, the maps are kept,
#     every frame sent is received and counted by xdp_steer (its counters
#     span the restart), and the balancer comes back;
#   - a restart with a bad policy fails the unit and leaves the programs
#     steering; systemd runs no ExecStop for a failed unit, so `systemctl
#     stop` then leaves them too, and a start with the policy fixed
#     upgrades in place;
#   - `systemctl stop` detaches (no XDP program, no pins) and stops the
#     balancer;
#   - the interface deleted, the unit stops (BindsTo= its device), the
#     balancer with it, and the pins go;
#   - with UNITS_DEB=PATH (a .deb of `make deb`; tests/vm/matrix builds
#     one), after `make uninstall`: the package installed, its unit
#     started, and the same package installed over itself: its postinst
#     reloads the running instance, an upgrade in place (another program,
#     the same maps).
# UNITS_OLD_STOP=1: xdp-steer@'s ExecStop made a plain detach (a drop-in),
# as before restart upgraded in place: the restart checks must fail.
#
#   tests/vm/run --init systemd -- tests/vm/check-units.sh
#   make deb && tests/vm/run --init systemd -- \
#       env UNITS_DEB=loader/dist/xdp-steer_VERSION_amd64.deb tests/vm/check-units.sh
set -uo pipefail
cd "$(dirname "$0")/../.."

passed=0 failed=0
pass() { echo "PASS vm/check-units: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL vm/check-units: $1"; failed=$((failed + 1)); }
check() { # check NAME COMMAND...: PASS or FAIL, the command's output shown on FAIL
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name"; [ -z "$out" ] || sed 's/^/  /' <<<"$out"; fi
}
done_() {
	echo "$passed passed, $failed failed"
	[ $failed -eq 0 ]
	exit
}

IF=xsu0 PEER=xsu1 NS=xsu-a
UNIT=xdp-steer@$IF.service BUNIT=xdp-steer-balance@$IF.service
PINS=/sys/fs/bpf/xdp-steer/$IF
POLICY=/etc/xdp-steer/$IF.yaml
T=$(mktemp -d)
SENDER= RECEIVER= SAMPLER=
cleanup() {
	local p
	for p in $SAMPLER $SENDER $RECEIVER; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip link del "$IF" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

if [ "$(cat /proc/1/comm)" != systemd ]; then
	fail "PID 1 is systemd (tests/vm/run --init systemd): $(cat /proc/1/comm)"
	done_
fi

# ---- install ----------------------------------------------------------------

inst() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory install \
		>"$T/make.log" 2>&1 || { tail -20 "$T/make.log"; return 1; }
	systemctl daemon-reload
}
check "make install puts xdp-steer and its units into the VM's root (/usr/local)" inst
command -v xdp-steer >/dev/null || done_
if [ "${UNITS_OLD_STOP:-0}" = 1 ]; then
	mkdir -p /etc/systemd/system/xdp-steer@.service.d
	printf '[Service]\nExecStop=\nExecStop=/usr/local/sbin/xdp-steer detach %%I\n' \
		>/etc/systemd/system/xdp-steer@.service.d/old-stop.conf
	systemctl daemon-reload
	echo "UNITS_OLD_STOP=1: ExecStop is a plain detach"
fi

# ---- the interface, traffic -------------------------------------------------

ip netns add "$NS"
ip link add "$IF" type veth peer name "$PEER" netns "$NS"
ip addr add 10.47.0.1/24 dev "$IF" && ip link set "$IF" up
ip -n "$NS" addr add 10.47.0.2/24 dev "$PEER" && ip -n "$NS" link set "$PEER" up
ip -n "$NS" link set lo up
# Checksums in software: a redirected frame reaches the stack through
# the cpumap as a new skb, which has lost the sender's CHECKSUM_PARTIAL,
# and UDP would drop it for its checksum.
ip netns exec "$NS" ethtool -K "$PEER" tx off >/dev/null
udevadm settle -t 30
check "udev gives $IF its device unit" \
	systemctl is-active --quiet "sys-subsystem-net-devices-$IF.device"
mkdir -p /etc/xdp-steer
cat >"$POLICY" <<'YAML'
version: 1
cpus: [1-3]
hash: {seed: 1}
YAML

# prog_id: the id of the XDP program on $IF, or nothing.
prog_id() { ip link show dev "$IF" 2>/dev/null | sed -n 's|.*prog/xdp[a-z]* id \([0-9]*\).*|\1|p'; }
# map_id NAME: the id of the map pinned as NAME in $PINS.
map_id() { bpftool map show pinned "$PINS/$1" 2>/dev/null | sed -n 's/^\([0-9]*\): .*/\1/p'; }
# rx_total: frames xdp_steer saw on $IF, by its counters.
rx_total() {
	xdp-steer stats "$IF" --prometheus 2>/dev/null |
		awk '/^xdp_steer_rx_packets_total/ { s += $NF } END { print s + 0 }'
}
attached() {
	[ -n "$(prog_id)" ] && return 0
	echo "no XDP program on $IF; the journal of $UNIT:"
	journalctl -u "$UNIT" --no-pager -o cat | tail -8
	return 1
}
detached() { [ -z "$(prog_id)" ] || { echo "an XDP program on $IF: $(prog_id)"; return 1; }; }
active() { systemctl is-active --quiet "$1" || { systemctl status --no-pager "$1" | tail -5; return 1; }; }
inactive() { ! systemctl is-active --quiet "$1" || { echo "$1 is $(systemctl is-active "$1")"; return 1; }; }
# wait_for N COMMAND...: the command holds within N seconds.
wait_for() {
	local n=$1 i
	shift
	for ((i = 0; i < n * 5; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
	"$@"
}
differ() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ] || { echo "'$1' then '$2'"; return 1; }; }
same() { [ -n "$1" ] && [ "$1" = "$2" ] || { echo "'$1' then '$2'"; return 1; }; }
# steer_prog: xdp_steer's program id (under the dispatcher, ip link
# shows the dispatcher's).
steer_prog() {
	xdp-steer status "$IF" --json 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["prog_id"])'
}
# sample_during COMMAND...: runs it while the XDP program on $IF is
# sampled as fast as `ip` runs ($T/samples, $nsamples); its status in
# $sampled_rc.
sample_during() {
	rm -f "$T/stop-sampling"
	( while [ ! -e "$T/stop-sampling" ]; do echo "x$(prog_id)"; done ) >"$T/samples" &
	SAMPLER=$!
	sleep 0.5
	"$@"
	sampled_rc=$?
	sleep 0.5
	touch "$T/stop-sampling"
	wait "$SAMPLER"
	SAMPLER=
	nsamples=$(wc -l <"$T/samples")
}
gaps() {
	[ "$nsamples" -ge 5 ] || { echo "only $nsamples samples"; return 1; }
	! grep -qx x "$T/samples" || { echo "$(grep -cx x "$T/samples") samples of $nsamples without one"; return 1; }
}

# ---- start ------------------------------------------------------------------

systemctl start "$UNIT"
check "systemctl start $UNIT attaches" attached
workers() {
	xdp-steer status "$IF" --json | python3 -c 'import json, sys
w = sorted(w["cpu"] for w in json.load(sys.stdin)["policy"]["workers"])
sys.exit(0 if w == [1, 2, 3] else "workers %s, not [1, 2, 3]" % w)'
}
check "  with $POLICY (status, from outside the unit: workers 1-3)" workers
check "  and starts $BUNIT" wait_for 10 active "$BUNIT"

# Under libxdp's dispatcher (where the kernel takes xdp_steer in it, as
# Debian's 6.1 does), reload and restart upgrade in place too: xdp_steer
# joins the dispatcher beside the running one, which then leaves, each a
# new dispatcher swapped in whole (ip link shows the dispatcher's id).
if ! xdp-steer status "$IF" | grep -q 'single program'; then
	s0=$(steer_prog) m0=$(map_id steer_stats)
	check "under libxdp's dispatcher, systemctl reload succeeds" systemctl reload "$UNIT"
	s1=$(steer_prog) m1=$(map_id steer_stats)
	check "  and upgrades in place: another xdp_steer ($s0 then $s1)" differ "$s0" "$s1"
	check "  its maps kept (steer_stats: map $m0 then $m1)" same "$m0" "$m1"
	sample_during systemctl restart "$UNIT"
	check "under libxdp's dispatcher, systemctl restart succeeds" test "$sampled_rc" = 0
	check "  its stop leaves xdp_steer attached (the journal says so)" \
		bash -c "journalctl -u $UNIT --no-pager -o cat | grep -q 'is restarting: xdp_steer stays attached'"
	check "  $IF has an XDP program at every one of $nsamples samples through it" gaps
	s2=$(steer_prog) m2=$(map_id steer_stats)
	check "  and it upgrades in place: another xdp_steer ($s1 then $s2)" differ "$s1" "$s2"
	check "  its maps kept (steer_stats: map $m1 then $m2)" same "$m1" "$m2"
	check "  still under libxdp's dispatcher" \
		bash -c "xdp-steer status $IF | grep -q \"under libxdp's dispatcher\""
else
	echo "SKIP vm/check-units: reload and restart under libxdp's dispatcher (the kernel does not take xdp_steer in it)"
fi
# The rest with xdp_steer alone on $IF, where attach upgrades in place.
systemctl stop "$UNIT"
mkdir -p /etc/systemd/system/xdp-steer@.service.d
printf '[Service]\nEnvironment=LIBXDP_SKIP_DISPATCHER=1\n' \
	>/etc/systemd/system/xdp-steer@.service.d/alone.conf
systemctl daemon-reload
systemctl start "$UNIT"
check "with LIBXDP_SKIP_DISPATCHER=1 (a drop-in), systemctl start attaches xdp_steer alone" \
	bash -c "attached_alone() { xdp-steer status $IF | grep -q 'single program'; }; attached_alone || xdp-steer status $IF"
wait_for 10 active "$BUNIT" >/dev/null

# Paced UDP from the namespace to $IF, 8 flows, 200 frames a second; the
# counts written when each is stopped (SIGTERM).
ping -c 1 -W 5 -I "$IF" 10.47.0.2 >/dev/null 2>&1
python3 - "$T/received" <<'PY' &
import signal, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
s.bind(("10.47.0.1", 4747))
s.settimeout(0.2)
n, stop = 0, False
def end(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, end)
while not stop:
    try:
        s.recv(2048)
        n += 1
    except (socket.timeout, InterruptedError):
        pass
open(sys.argv[1], "w").write(str(n))
PY
RECEIVER=$!
sleep 1
rx0=$(rx_total)
ip netns exec "$NS" python3 - "$T/sent" <<'PY' &
import signal, socket, sys, time
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(8)]
n, stop = 0, False
def end(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, end)
t = time.monotonic()
while not stop:
    socks[n % 8].sendto(b"x" * 64, ("10.47.0.1", 4747))
    n += 1
    t += 0.005
    d = t - time.monotonic()
    if d > 0:
        time.sleep(d)
open(sys.argv[1], "w").write(str(n))
PY
SENDER=$!
sleep 2

# ---- reload -----------------------------------------------------------------

p0=$(prog_id) m0=$(map_id steer_stats)
check "systemctl reload $UNIT succeeds" systemctl reload "$UNIT"
p1=$(prog_id) m1=$(map_id steer_stats)
check "  and upgrades in place: another program on $IF ($p0 then $p1)" differ "$p0" "$p1"
check "  its maps kept (steer_stats: map $m0 then $m1)" same "$m0" "$m1"

# ---- restart ----------------------------------------------------------------

# The XDP program on $IF, sampled as fast as `ip` runs, while systemd
# restarts the unit.
bpid0=$(systemctl show -P MainPID "$BUNIT")
sample_during systemctl restart "$UNIT"
check "systemctl restart $UNIT succeeds" test "$sampled_rc" = 0
p2=$(prog_id) m2=$(map_id steer_stats)
check "  $IF has an XDP program at every one of $nsamples samples through it" gaps
check "  and it upgrades in place: another program ($p1 then $p2)" differ "$p1" "$p2"
check "  its maps kept (steer_stats: map $m1 then $m2)" same "$m1" "$m2"
check "  $UNIT is active" active "$UNIT"
check "  $BUNIT comes back" wait_for 10 active "$BUNIT"
bpid1=$(systemctl show -P MainPID "$BUNIT")
check "  as a new process ($bpid0 then $bpid1)" differ "$bpid0" "$bpid1"
sleep 2
kill "$SENDER"; wait "$SENDER"; SENDER=
sleep 1
kill "$RECEIVER"; wait "$RECEIVER"; RECEIVER=
rx1=$(rx_total)
sent=$(cat "$T/sent" 2>/dev/null) received=$(cat "$T/received" 2>/dev/null)
none_lost() { [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$sent" = "$received" ] || { echo "sent $sent, received $received"; return 1; }; }
all_steered() { [ $((rx1 - rx0)) -ge "$sent" ] || { echo "xdp_steer counted $((rx1 - rx0)) of $sent frames"; return 1; }; }
check "  not a frame lost through the reload and the restart ($sent sent, $received received)" none_lost
check "  every one seen by xdp_steer, whose counters span both ($((rx1 - rx0)) counted)" all_steered
[ "$sent" = "$received" ] || xdp-steer stats "$IF" --totals 2>&1 | sed 's/^/  /'

# ---- a restart with a bad policy --------------------------------------------

cp "$POLICY" "$T/good.yaml"
echo 'cpus: [1-3' >>"$POLICY"
p3=$(prog_id)
check "systemctl restart with a bad policy fails" bash -c "! systemctl restart $UNIT"
check "  the unit is failed" bash -c "systemctl is-failed --quiet $UNIT"
check "  the journal has the policy's file:line:col" \
	bash -c "journalctl -u $UNIT --no-pager -o cat | grep -q '$POLICY:[0-9]*:[0-9]*'"
check "  the programs stay attached ($p3)" same "$p3" "$(prog_id)"
check "  and their pins" test -e "$PINS/steer_stats"
systemctl stop "$UNIT"
check "  systemctl stop of the failed unit runs no ExecStop: they stay (documented)" same "$p3" "$(prog_id)"
cp "$T/good.yaml" "$POLICY"
check "  systemctl start with the policy fixed succeeds" systemctl start "$UNIT"
check "  and upgrades in place ($p3 then $(prog_id))" differ "$p3" "$(prog_id)"

# ---- stop -------------------------------------------------------------------

check "systemctl stop $UNIT succeeds" systemctl stop "$UNIT"
check "  it detaches" detached
check "  its pins are gone" bash -c "[ ! -e $PINS ] || ls $PINS"
check "  $BUNIT stops" inactive "$BUNIT"

# ---- the interface deleted --------------------------------------------------

systemctl start "$UNIT"
wait_for 10 active "$BUNIT" >/dev/null
check "started again, attached" attached
ip link del "$IF"
check "the interface deleted: $UNIT stops (BindsTo= its device)" wait_for 20 inactive "$UNIT"
check "  $BUNIT with it" wait_for 10 inactive "$BUNIT"
check "  the pins are gone" wait_for 10 test ! -e "$PINS"

# ---- the package upgraded over itself --------------------------------------

if [ -z "${UNITS_DEB:-}" ]; then
	echo "SKIP vm/check-units: the package upgraded over itself (UNITS_DEB=PATH: a .deb of make deb)"
	done_
fi
uninst() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory uninstall \
		>"$T/make.log" 2>&1 || { tail -20 "$T/make.log"; return 1; }
}
check "make uninstall takes the /usr/local install away" uninst
# A container image's root (this VM's, when the host is one) forbids
# maintainer scripts to touch services (policy-rc.d exits 101): not so
# on the machine booted here.
rm -f /usr/sbin/policy-rc.d
dpkg_i() {
	DEBIAN_FRONTEND=noninteractive dpkg -i "$UNITS_DEB" >"$T/dpkg.log" 2>&1 ||
		{ tail -20 "$T/dpkg.log"; return 1; }
}
check "dpkg -i $(basename "$UNITS_DEB") installs the package" dpkg_i
ip link add "$IF" type veth peer name "$PEER" netns "$NS"
ip link set "$IF" up && ip -n "$NS" link set "$PEER" up
udevadm settle -t 30
systemctl start "$UNIT"
check "its xdp-steer@$IF (/usr/sbin/xdp-steer) attaches" \
	bash -c "systemctl show -P ExecStart $UNIT | grep -q /usr/sbin/xdp-steer && ip link show dev $IF | grep -q prog/xdp"
p0=$(prog_id) m0=$(map_id steer_stats)
check "dpkg -i of the same package over it succeeds" dpkg_i
p1=$(prog_id) m1=$(map_id steer_stats)
check "  its postinst reloads $UNIT: an upgrade in place ($p0 then $p1)" differ "$p0" "$p1"
check "  the maps kept (steer_stats: map $m0 then $m1)" same "$m0" "$m1"
check "  $UNIT is active" active "$UNIT"
check "  and $BUNIT, restarted" wait_for 10 active "$BUNIT"
systemctl stop "$UNIT"
done_
