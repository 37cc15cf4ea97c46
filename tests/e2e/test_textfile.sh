#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Root tier: the textfile collector's service, xdp-steer-textfile@IFACE,
# as systemd would run it, with the real loader, on a veth in a namespace.
# `make install DESTDIR PREFIX=/usr` stages it; its ExecStart is read from
# the installed file ($$ a $, ${XDP_STEER_TEXTFILE_DIR} the directory, %I
# the interface as an argument of its own, the loader's path inside the
# staging root) and run with an empty environment in the namespace. On an
# attached interface it writes xdp-steer-IFACE.prom, which promtool
# accepts, with every series of the first scrape and no temporary file
# left; it says whether a balancer is expected and whether one runs
# (the policy balances; none, then a real `xdp-steer balance` with its
# last round seconds old, then none again once it ended), as the alerting
# rules read it; after the detach it fails and removes the file, so
# node_exporter serves no stale counters.
set -u
. "$(dirname "$0")/lib.sh"

e2e_setup
BAL_PID=
stop_balancer() {
	[ -n "$BAL_PID" ] && kill -TERM "$BAL_PID" 2>/dev/null && wait "$BAL_PID" 2>/dev/null
	BAL_PID=
}
trap 'stop_balancer; e2e_cleanup' EXIT
T=$E2E_TMP
D=$T/stage
TF=$T/textfile
mkdir -p "$TF"

stage() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$E2E_ROOT" \
		--no-print-directory install DESTDIR="$D" PREFIX=/usr \
		>"$T/make.log" 2>&1 || { tail -20 "$T/make.log"; return 1; }
}
check "make install DESTDIR=... PREFIX=/usr stages the textfile service" stage
UNIT=$D/usr/lib/systemd/system/xdp-steer-textfile@.service
[ -f "$UNIT" ] || { fail "the service is staged at $UNIT"; e2e_done; }

# run_textfile: the unit's ExecStart for the instance $IF_B, in $NS_B;
# exit status in RC, stderr in $T/err.
run_textfile() {
	local cmd
	cmd=$(sed -n 's/^ExecStart=//p' "$UNIT")
	cmd=${cmd//\$\$/\$}
	cmd=${cmd//\$\{XDP_STEER_TEXTFILE_DIR\}/$TF}
	[ "${cmd% %I}" != "$cmd" ] && cmd="${cmd% %I} $(printf %q "$IF_B")"
	cmd=${cmd//%I/$IF_B}
	cmd=${cmd//\/usr\/sbin\/xdp-steer/$D/usr/sbin/xdp-steer}
	(cd / && in_b env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin /bin/sh -c "$cmd" \
		</dev/null >/dev/null 2>"$T/err")
	RC=$?
}
PROM=$TF/xdp-steer-$IF_B.prom

# every_cpu_series: the file has rx_packets of each online CPU.
every_cpu_series() {
	local c
	for c in $(tr , '\n' </sys/devices/system/cpu/online |
		   awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }'); do
		grep -q "^xdp_steer_rx_packets_total{interface=\"$IF_B\",cpu=\"$c\"} " "$PROM" ||
			{ echo "no series of CPU $c"; return 1; }
	done
}

echo "version: 1" >"$T/policy.yaml"
if ! in_b "$D/usr/sbin/xdp-steer" -q attach "$IF_B" --policy "$T/policy.yaml"; then
	fail "xdp-steer attach $IF_B"
	e2e_done
fi
run_textfile
check "on an attached interface the service exits 0" \
	bash -c "[ $RC -eq 0 ] || { cat $T/err; exit 1; }"
check "it wrote xdp-steer-$IF_B.prom with the steering gauge at 1" \
	grep -qx "xdp_steer_steering{interface=\"$IF_B\"} 1" "$PROM"
check "the file has every online CPU's counters from the first scrape" every_cpu_series
check "no temporary file is left beside it" \
	test "$(ls "$TF")" = "xdp-steer-$IF_B.prom"
if command -v promtool >/dev/null; then
	check "promtool check metrics accepts the file" promtool check metrics <"$PROM"
else
	skip "promtool check metrics accepts the file" "promtool missing (Debian package prometheus; make test installs it)"
fi

# gauge NAME: the value of xdp_steer_NAME{interface=$IF_B} in the file.
gauge() {
	sed -n "s/^xdp_steer_$1{interface=\"$IF_B\"} //p" "$PROM"
}
check "the policy balances (balance: on by default): a balancer is expected" \
	test "$(gauge balance_enabled)" = 1
check "its interval is the default balance.interval, 1 s" \
	test "$(gauge balance_interval_seconds)" = 1.000
check "no balancer has run: balancer_running 0, no last round" \
	test "$(gauge balancer_running) $(gauge balancer_last_round_timestamp_seconds)" = "0 0.000"

# A real balancer, rounds every second: the file says it runs, its last
# round seconds old. nsenter itself in the background (not in_b, a
# function: its subshell's pid would be the one killed).
nsenter --net=/run/netns/"$NS_B" "$D/usr/sbin/xdp-steer" balance "$IF_B" \
	>"$T/balance.log" 2>&1 &
BAL_PID=$!
for _ in $(seq 50); do
	run_textfile
	[ "$(gauge balancer_last_round_timestamp_seconds)" != 0.000 ] && break
	sleep 0.1
done
check "with xdp-steer balance running the file says balancer_running 1" \
	bash -c "[ '$(gauge balancer_running)' = 1 ] || { cat $PROM $T/balance.log; exit 1; }"
round_fresh() {
	local last now
	last=$(gauge balancer_last_round_timestamp_seconds)
	now=$(date +%s.%N)
	awk -v l="$last" -v n="$now" 'BEGIN { exit !(l > n - 5 && l <= n) }' ||
		{ echo "last round $last, now $now"; return 1; }
}
check "and its last round ended less than 5 s ago (seconds since the epoch)" round_fresh
stop_balancer
run_textfile
check "once the balancer ended, balancer_running is 0 again" \
	test "$(gauge balancer_running)" = 0

in_b "$D/usr/sbin/xdp-steer" -q detach "$IF_B" || fail "xdp-steer detach $IF_B"
run_textfile
check "after the detach the service fails" test "$RC" -ne 0
check "and removes the file, so node_exporter serves no stale counters" \
	test -z "$(ls "$TF")"

e2e_done
