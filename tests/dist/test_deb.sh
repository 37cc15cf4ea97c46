#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dist tier: the Debian package, as an operator meets it. `make deb`
# builds it (the tree left as it was, no debian/ in it); lintian reports
# no error; `apt-get install ./PKG.deb` puts every file where the manual
# says, and /usr/sbin/xdp-steer runs. The installed unit's ExecStart
# (run as systemd runs it, in a network namespace: this machine may run
# without systemd, and XDP goes on no interface of the host) attaches to
# a veth with a policy in /etc/xdp-steer; the installed textfile service
# writes its file for node_exporter; its instances are enabled. A second
# build with a higher version installs over the first: the interface
# stays steered by the same policy, traffic counted, the links and file
# kept; the unit's ExecReload, which the postinst runs through systemd,
# then replaces the program in place with the new loader's. `apt-get purge` stops it all: nothing attached, no pins, no lock,
# no link of an enabled instance, no textfile, and no file on / that was
# not there before the install.
set -u
. "$(dirname "$0")/lib.sh"

if dpkg -s xdp-steer >/dev/null 2>&1; then
	fail "xdp-steer is installed already ($(dpkg-query -W -f '${Version}' xdp-steer)): this test installs and purges its own, purge it first"
	e2e_done
fi
dist_setup "$@"

TEXTFILEDIR=/var/lib/prometheus/node-exporter
POLICY=/etc/xdp-steer/$IF_B.yaml
PROM=$TEXTFILEDIR/xdp-steer-$IF_B.prom
UNITS=/usr/lib/systemd/system

# Directories this test makes as an operator would, before the list of
# files is taken (so a purge that removes the policies' directory, once
# empty, is no difference); taken back at the end.
made_dirs=()
for d in /etc/xdp-steer "$TEXTFILEDIR"; do
	[ -d "$d" ] || { mkdir -p "$d" && made_dirs=("$d" "${made_dirs[@]}"); }
done
installed_here=0
deb_cleanup() {
	if [ $installed_here -eq 1 ] && dpkg -s xdp-steer >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q xdp-steer >/dev/null 2>&1
	fi
	find /etc/systemd/system -name "*@$IF_B.*" -type l -delete 2>/dev/null
	rmdir /etc/systemd/system/sys-subsystem-net-devices-"$IF_B".device.wants 2>/dev/null
	rm -f "$POLICY" "$PROM" "$PROM.tmp"
	local d
	for d in "${made_dirs[@]}"; do rmdir "$d" 2>/dev/null; done
}
DIST_CLEANUP=deb_cleanup

dist_files >"$T/before"

# ---- make deb --------------------------------------------------------------

VERSION=$(dist_make_var VERSION)
tree_state() { [ ! -e "$E2E_ROOT/.git" ] || git -C "$E2E_ROOT" status --porcelain; }
tree_state >"$T/tree.before"
t0=$SECONDS
dist_make deb DEB_OUT="$T/v1" >"$T/make1.log" 2>&1
DEB1=$(sed -n 's/^make deb: \(.*\.deb\)$/\1/p' "$T/make1.log")
check "make deb builds the package and prints where it is ($((SECONDS - t0)) s)" \
	bash -c "[ -f '$DEB1' ] || { tail -30 '$T/make1.log'; exit 1; }"
[ -f "$DEB1" ] || e2e_done
check "  named xdp-steer_<version>_<arch>.deb in DEB_OUT" \
	bash -c "[[ '$DEB1' == '$T/v1/xdp-steer_'*'_$(dpkg --print-architecture).deb' ]]"
tree_unchanged() { [ ! -e "$E2E_ROOT/debian" ] && diff "$T/tree.before" <(tree_state); }
check "  and leaves the tree as it was: no debian/, nothing new or changed (git status)" \
	tree_unchanged

field() { dpkg-deb -f "$1" "$2"; }
V1=$(field "$DEB1" Version)
check "its version is made from the project's ($VERSION: $V1)" \
	bash -c "[ '$(dist_make_var DEB_VERSION)' = '$V1' ]"
check "its Depends are the libraries the loader links (dh_shlibdeps)" \
	bash -c "f='$(field "$DEB1" Depends)'; for l in libbpf1 libxdp1 libyaml-0-2 libc6; do
		 grep -q \"\\b\$l\\b\" <<<\"\$f\" || { echo \"no \$l in: \$f\"; exit 1; }; done"

# lintian's verdict (--show-overrides would count the overridden errors);
# its warnings printed, and the tags overridden, each with its reason in
# the file.
t0=$SECONDS
lintian --fail-on error "$DEB1" >"$T/lintian" 2>&1
rc=$?
grep -E '^[EW]: ' "$T/lintian" | sed 's/^/  /'
grep -v '^#' "$E2E_ROOT/loader/dist/debian/xdp-steer.lintian-overrides" |
	sed 's/^/  overridden: /'
if [ $rc -eq 0 ]; then
	pass "lintian reports no error ($((SECONDS - t0)) s; what it warned of, if anything, and the overrides above)"
else
	tail -5 "$T/lintian" | sed 's/^/  /'
	fail "lintian reports no error (exit $rc)"
fi

# ---- install ---------------------------------------------------------------

apt_install() {	# apt_install DEB: as an operator installs a downloaded package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" >"$T/apt.log" 2>&1 ||
		{ tail -20 "$T/apt.log"; return 1; }
}
installed_here=1
check "apt-get install ./xdp-steer_$V1.deb installs it" apt_install "$DEB1"

EXPECTED=(
	/usr/sbin/xdp-steer
	/usr/lib/bpf/xdp_steer.bpf.o
	$UNITS/xdp-steer@.service
	$UNITS/xdp-steer-balance@.service
	$UNITS/xdp-steer-repair@.service
	$UNITS/xdp-steer-textfile@.service
	$UNITS/xdp-steer-textfile@.timer
	/usr/lib/udev/rules.d/60-xdp-steer-cpu-online.rules
	/usr/share/man/man8/xdp-steer.8.gz
	/usr/share/man/man5/xdp-steer.yaml.5.gz
	/usr/share/bash-completion/completions/xdp-steer
	/usr/share/doc/xdp-steer/README.md
	/usr/share/doc/xdp-steer/loader/README.md
	/usr/share/doc/xdp-steer/bpf/README.md
	/usr/share/doc/xdp-steer/copyright
	/usr/share/doc/xdp-steer/changelog.gz
	/usr/share/doc/xdp-steer/examples/default.yaml
	/usr/share/xdp-steer/grafana/xdp-steer.json
	/usr/share/xdp-steer/prometheus/xdp-steer.rules.yml
)

all_there() {
	local f rc=0
	for f in "${EXPECTED[@]}"; do
		[ -f "$f" ] || { echo "missing: $f"; rc=1; }
	done
	return $rc
}
check "every file is where the manual says (the loader, the object, 5 units, the udev rule, both pages, completion, docs, examples, dashboard, alerting rules)" all_there
check "every example policy of configs/ is there" \
	bash -c "for f in '$E2E_ROOT'/configs/*.yaml; do [ -f /usr/share/doc/xdp-steer/examples/\${f##*/} ] || { echo \"no \$f\"; exit 1; }; done"
check "the units run /usr/sbin/xdp-steer and read /etc/xdp-steer" \
	bash -c "! grep -l '/usr/local' $UNITS/xdp-steer*@.service &&
		 grep -qx 'ExecStart=/usr/sbin/xdp-steer attach %I --policy /etc/xdp-steer/%I.yaml' $UNITS/xdp-steer@.service"
if command -v man >/dev/null; then
	check "man finds xdp-steer(8) and xdp-steer.yaml(5) installed" \
		bash -c "[ \"\$(man -w 8 xdp-steer)\" = /usr/share/man/man8/xdp-steer.8.gz ] &&
			 [ \"\$(man -w 5 xdp-steer.yaml)\" = /usr/share/man/man5/xdp-steer.yaml.5.gz ]"
else
	skip "man finds the installed pages" "no man: tests/lib/deps.sh --test installs man-db"
fi
check "/usr/sbin/xdp-steer --version prints the project's version, $VERSION" \
	bash -c "/usr/sbin/xdp-steer --version | head -1 | grep -qx 'xdp-steer $VERSION'"

# ---- attach through the installed unit ------------------------------------

cat >"$POLICY" <<'EOF'
version: 1
cpus: [0, {cpu: 1, weight: 3}]
queue_size: 512
hash: {seed: 1}
balance: off
EOF

# unit_exec UNIT KEY: the unit's KEY= line as systemd runs it for the
# instance $IF_B: $$ a $, ${VAR} the unit's Environment=, %i and %I the
# interface (an argument of its own), with an empty environment, no
# stdin, / as its directory; in $NS_B. Output in $T/out, $T/err.
unit_exec() {
	local file=$UNITS/$1 cmd env
	cmd=$(sed -n "s/^$2=//p" "$file")
	[ "$(wc -l <<<"$cmd")" -eq 1 ] && [ -n "$cmd" ] ||
		{ echo "$1: not one $2= line"; return 1; }
	env=$(sed -n 's/^Environment=//p' "$file")
	cmd=${cmd//\$\$/\$}
	cmd=${cmd//%i/$IF_B}
	cmd=${cmd//%I/$IF_B}
	(cd / && nsenter --net=/run/netns/"$NS_B" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		$env /bin/sh -c "$cmd" </dev/null >"$T/out" 2>"$T/err") ||
		{ cat "$T/err"; return 1; }
}
in_ns() { nsenter --net=/run/netns/"$NS_B" "$@"; }
status_json() {	# status_json PYTHON-EXPR: holds over `status IF --json`
	local doc
	doc=$(in_ns /usr/sbin/xdp-steer status "$IF_B" --json) || return 1
	json_holds "$doc" "$1"
}
buckets='{w["cpu"]: w["buckets"] for w in d["policy"]["workers"]}'
in_force="d['attached'] and $buckets == {0: 128, 1: 384} and d['policy']['queue_size'] == 512"

check "xdp-steer@$IF_B's ExecStart attaches with /etc/xdp-steer/$IF_B.yaml" \
	unit_exec xdp-steer@.service ExecStart
check "  status: attached, the policy in force (buckets 128/384, queue 512)" \
	status_json "$in_force"
ID=$(e2e_netns_id "$NS_B")
check "  its maps are pinned in /sys/fs/bpf/xdp-steer/netns-$ID/$IF_B" \
	test -d "/sys/fs/bpf/xdp-steer/netns-$ID/$IF_B"
PROG1=$(jget "$(in_ns /usr/sbin/xdp-steer status "$IF_B" --json)" 'd.get("prog_id")' 2>/dev/null)

textfile_writes() {
	unit_exec xdp-steer-textfile@.service ExecStart &&
	grep -q "^xdp_steer_steering{interface=\"$IF_B\"} 1" "$PROM"
}
check "xdp-steer-textfile@$IF_B's ExecStart writes $PROM" textfile_writes

enabled_links() {
	find /etc/systemd/system -type l \( -name "xdp-steer@$IF_B.service" \
		-o -name "xdp-steer-textfile@$IF_B.timer" \) | sort
}
if command -v systemctl >/dev/null; then
	check "systemctl enable xdp-steer@$IF_B and its textfile timer make their links" \
		bash -c "systemctl enable xdp-steer@$IF_B.service xdp-steer-textfile@$IF_B.timer >'$T/enable' 2>&1 &&
			 [ \$(find /etc/systemd/system -type l -name '*@$IF_B.*' | wc -l) -ge 3 ] ||
			 { cat '$T/enable'; exit 1; }"
else
	skip "enabling the instances" "no systemctl"
fi
LINKS=$(find /etc/systemd/system -type l -name "*@$IF_B.*" | sort)

# ---- upgrade over itself ---------------------------------------------------

V2_VERSION=$VERSION-upgrade
t0=$SECONDS
dist_make deb DEB_OUT="$T/v2" VERSION="$V2_VERSION" DEB_VERSION="$V1+upgrade" \
	>"$T/make2.log" 2>&1
DEB2=$(sed -n 's/^make deb: \(.*\.deb\)$/\1/p' "$T/make2.log")
check "make deb VERSION=... DEB_VERSION=$V1+upgrade builds a later package ($((SECONDS - t0)) s)" \
	bash -c "[ -f '$DEB2' ] && dpkg --compare-versions '$(field "$DEB2" Version 2>/dev/null)' gt '$V1' ||
		 { tail -30 '$T/make2.log'; exit 1; }"
check "apt-get install of it upgrades the installed package" apt_install "$DEB2"
check "  dpkg has the new version, $V1+upgrade" \
	bash -c "[ \"\$(dpkg-query -W -f '\${Version}' xdp-steer)\" = '$V1+upgrade' ]"
check "  /usr/sbin/xdp-steer is the new loader ($V2_VERSION)" \
	bash -c "/usr/sbin/xdp-steer --version | head -1 | grep -qx 'xdp-steer $V2_VERSION'"
check "  $IF_B is still steered by the same policy (status of the new loader)" \
	status_json "$in_force"
check "  and its program was not detached: no systemd restarted it here, so the same one (id $PROG1)" \
	status_json "d.get('prog_id') == $PROG1"
rx_packets() {
	jget "$(in_ns /usr/sbin/xdp-steer stats "$IF_B" --json)" 'd["totals"]["rx_packets"]'
}
steers() {
	local before after
	before=$(rx_packets) || return 1
	nsenter --net=/run/netns/"$NS_A" bash -c "for i in \$(seq 20); do echo x >/dev/udp/$IP_B/9; done" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.1
		after=$(rx_packets) || return 1
		[ $((after - before)) -ge 20 ] && break
	done
	[ $((after - before)) -ge 20 ] || { echo "rx_packets $before -> $after"; return 1; }
}
check "  and frames sent to it are counted by its program (20 datagrams)" steers
check "xdp-steer@$IF_B's ExecReload, what the postinst's reload runs, succeeds with the new loader" \
	unit_exec xdp-steer@.service ExecReload
check "  and upgrades in place: a new program on $IF_B (not id $PROG1), the same policy in force" \
	status_json "$in_force and d.get('prog_id') not in (None, $PROG1)"
check "  which counts the frames sent to it" steers
check "  the textfile and the enabled links are still there" \
	bash -c "[ -f '$PROM' ] && [ \"\$(find /etc/systemd/system -type l -name '*@$IF_B.*' | sort)\" = '$LINKS' ]"

# ---- purge -------------------------------------------------------------------

rm -f "$POLICY"	# the administrator's: a purge keeps policies it finds
purge() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q xdp-steer >"$T/purge.log" 2>&1 ||
		{ tail -20 "$T/purge.log"; return 1; }
}
check "apt-get purge xdp-steer succeeds" purge
check "  the package is gone" bash -c "! dpkg -s xdp-steer >/dev/null 2>&1 && [ ! -e /usr/sbin/xdp-steer ]"
check "  nothing is attached to $IF_B" \
	bash -c "! ip -n '$NS_B' -d link show '$IF_B' | grep -q 'prog/xdp'"
check "  no pins: /sys/fs/bpf/xdp-steer is gone" test ! -e /sys/fs/bpf/xdp-steer
check "  no lock of $IF_B in /run/xdp-steer" \
	bash -c "! ls /run/xdp-steer | grep -q ':$IF_B.lock'"
check "  no link of an enabled instance" \
	bash -c "[ -z \"\$(find /etc/systemd/system -name '*@$IF_B.*')\" ] &&
		 [ ! -e /etc/systemd/system/sys-subsystem-net-devices-$IF_B.device.wants ]"
check "  no textfile for node_exporter" test ! -e "$PROM"
if [[ " ${made_dirs[*]} " == *" /etc/xdp-steer "* ]]; then
	check "  /etc/xdp-steer, without a policy left in it, is gone" test ! -e /etc/xdp-steer
fi
dist_files >"$T/after"
left() {
	dist_left "$T/before" "$T/after" >"$T/left"
	[ ! -s "$T/left" ] || { head -20 "$T/left"; return 1; }
}
check "  and no file, directory or link on / that was not there before the install" left
installed_here=0

e2e_done
