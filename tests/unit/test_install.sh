#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Unit tier (no root): `make install` into a staging root as a package
# build does it (DESTDIR, PREFIX=/usr): exactly the expected files, with
# their modes; the unit verified by systemd-analyze inside that root (its
# commands and man pages found there); the textfile collector's service
# and timer verified too, and the service's command run as systemd runs it
# (an atomic write, the file removed when stats fails); the Grafana
# dashboard valid JSON; the alerting rules accepted by promtool; both
# pages read by man without a warning and found by name; the completion
# script, sourced in bash, completing commands, options, interface names
# and policy files, and knowing every command and option the loader has;
# `make uninstall` leaving no file. Then the default prefix's paths.
set -u
SUITE=install
. "$(dirname "$0")/../e2e/lib.sh"
ROOT=$E2E_ROOT

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if [ ! -x "$XDP_STEER" ]; then
	fail "the loader is built ($XDP_STEER is missing: run make)"
	e2e_done
fi

# make from inside a test: not a sub-make of whatever make runs the tests.
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$ROOT" --no-print-directory "$@" >"$T/make.log" 2>&1 ||
		{ tail -20 "$T/make.log"; return 1; }
}

# Where udev rules go, relative to DESTDIR, for PREFIX $1: udev reads
# /usr/lib/udev/rules.d and /etc/udev/rules.d, not /usr/local.
udev_dir() {
	if [ "$1" = /usr ]; then echo usr/lib/udev/rules.d; else echo etc/udev/rules.d; fi
}

# What install puts where, relative to DESTDIR, with PREFIX $1; "MODE PATH".
expected() {
	local p=${1#/} f
	printf '%s\n' "755 $p/sbin/xdp-steer" \
		"644 $p/lib/bpf/xdp_steer.bpf.o" \
		"644 $p/lib/systemd/system/xdp-steer@.service" \
		"644 $p/lib/systemd/system/xdp-steer-balance@.service" \
		"644 $p/lib/systemd/system/xdp-steer-repair@.service" \
		"644 $(udev_dir "$1")/60-xdp-steer-cpu-online.rules" \
		"644 $p/share/man/man8/xdp-steer.8" \
		"644 $p/share/man/man5/xdp-steer.yaml.5" \
		"644 $p/share/bash-completion/completions/xdp-steer" \
		"644 $p/share/doc/xdp-steer/README.md" \
		"644 $p/share/doc/xdp-steer/loader/README.md" \
		"644 $p/share/doc/xdp-steer/bpf/README.md" \
		"644 $p/lib/systemd/system/xdp-steer-textfile@.service" \
		"644 $p/lib/systemd/system/xdp-steer-textfile@.timer" \
		"644 $p/share/xdp-steer/grafana/xdp-steer.json" \
		"644 $p/share/xdp-steer/prometheus/xdp-steer.rules.yml" \
		"644 $p/share/doc/xdp-steer/LICENSES/GPL-2.0" \
		"644 $p/share/doc/xdp-steer/LICENSES/BSD-2-Clause"
	for f in "$ROOT"/configs/*.yaml; do
		echo "644 $p/share/doc/xdp-steer/examples/${f##*/}"
	done
}
installed() {
	(cd "$1" && find . \( -type f -o -type l \) -printf '%m %P\n') | sort
}
same_files() {	# same_files DESTDIR PREFIX
	diff <(expected "$2" | sort) <(installed "$1")
}
no_files_left() {
	local left
	left=$(cd "$1" && find . \( -type f -o -type l \) -printf '%P\n')
	[ -z "$left" ] || { echo "left: $left"; return 1; }
}

# ---- PREFIX=/usr, as a Debian package -------------------------------------

D=$T/stage
check "make install DESTDIR=... PREFIX=/usr succeeds" \
	mk install DESTDIR="$D" PREFIX=/usr
check "it installs exactly the loader, the object, the units, the udev rule, the textfile timer, the dashboard, both pages, the completion, the READMEs, the licenses and the examples, with their modes" \
	same_files "$D" /usr
check "the installed loader runs" "$D/usr/sbin/xdp-steer" --version

UNIT=$D/usr/lib/systemd/system/xdp-steer@.service
unit_paths() {
	grep -qx 'ExecStart=/usr/sbin/xdp-steer attach %I --policy /etc/xdp-steer/%I.yaml' "$UNIT" &&
	grep -qx 'ExecReload=/usr/sbin/xdp-steer attach %I --policy /etc/xdp-steer/%I.yaml' "$UNIT" &&
	grep -qx 'ExecStop=/usr/sbin/xdp-steer detach %I --unless-restarting %n' "$UNIT" ||
		{ grep ^Exec "$UNIT"; return 1; }
}
check "the unit runs /usr/sbin/xdp-steer with /etc/xdp-steer/IFACE.yaml" unit_paths
BUNIT=$D/usr/lib/systemd/system/xdp-steer-balance@.service
check "the balancer's unit runs /usr/sbin/xdp-steer balance IFACE, bound to xdp-steer@IFACE" \
	bash -c "grep -qx 'ExecStart=/usr/sbin/xdp-steer balance %I' $BUNIT &&
		 grep -qx 'BindsTo=xdp-steer@%i.service' $BUNIT &&
		 grep -qx 'WantedBy=xdp-steer@%i.service' $BUNIT"

RUNIT=$D/usr/lib/systemd/system/xdp-steer-repair@.service
RULE=$D/usr/lib/udev/rules.d/60-xdp-steer-cpu-online.rules
check "the repair unit is a oneshot that runs /usr/sbin/xdp-steer repair, for every interface" \
	bash -c "grep -qx 'Type=oneshot' $RUNIT &&
		 grep -qx 'ExecStart=/usr/sbin/xdp-steer repair' $RUNIT"
# The rule's one line, field by field: a CPU's online event, and a start
# of the repair unit's instance for that CPU that does not wait for it.
rule_fields() {
	local line
	line=$(grep -v '^#' "$RULE" | grep .)
	[ "$(wc -l <<<"$line")" -eq 1 ] &&
	grep -q 'SUBSYSTEM=="cpu"' <<<"$line" &&
	grep -q 'ACTION=="online"' <<<"$line" &&
	grep -q 'RUN+="/bin/systemctl --no-block start xdp-steer-repair@%k.service"' <<<"$line" ||
		{ echo "$line"; return 1; }
}
check "the udev rule starts xdp-steer-repair@cpuN, without waiting, when a CPU comes online" rule_fields
# What the rule starts must be what make installs.
check "  and that unit is the one installed" \
	bash -c "grep -o 'xdp-steer-repair@' $RULE | head -1 | grep -q . && test -e $RUNIT"

# systemd-analyze verify, inside the staging root: the unit's syntax and
# dependencies, its commands present and executable, its man: links
# found (MANPATH: the staged pages). Any message is a failure, as some
# mistakes (an unknown key) are reported with exit status 0.
verify() {
	local out
	out=$(MANPATH=$D/usr/share/man systemd-analyze --root="$D" verify "$1" 2>&1) &&
		[ -z "$out" ] || { echo "$out"; return 1; }
}
if command -v systemd-analyze >/dev/null; then
	check "systemd-analyze verify accepts an instance, xdp-steer@xsb$$.service" \
		verify "xdp-steer@xsb$$.service"
	check "systemd-analyze verify accepts the template" verify "$UNIT"
	check "systemd-analyze verify accepts the balancer's, xdp-steer-balance@xsb$$.service" \
		verify "xdp-steer-balance@xsb$$.service"
	check "systemd-analyze verify accepts the repair unit's, xdp-steer-repair@cpu1.service" \
		verify "xdp-steer-repair@cpu1.service"
	# The same check, shown to fail: a unit whose command is not there.
	mv "$D/usr/sbin/xdp-steer" "$T/xdp-steer.away"
	check "  (and refuses it when the loader is missing)" \
		bash -c "! MANPATH=$D/usr/share/man systemd-analyze --root=$D verify xdp-steer@xsb1.service >/dev/null 2>&1"
	mv "$T/xdp-steer.away" "$D/usr/sbin/xdp-steer"
else
	skip "systemd-analyze verify" "no systemd-analyze: tests/lib/deps.sh --test installs systemd"
fi

# The textfile collector's service and timer. They run /bin/sh, which the
# staging root lacks, and pull in sysinit.target and timers.target: so
# they are verified from a directory of their own against this machine's
# units and /bin/sh, instances named as `systemctl enable` would.
TF_UNIT=$D/usr/lib/systemd/system/xdp-steer-textfile@.service
TF_TIMER=$D/usr/lib/systemd/system/xdp-steer-textfile@.timer
mkdir -p "$T/tf"
cp "$TF_UNIT" "$T/tf/xdp-steer-textfile@xsb$$.service"
cp "$TF_TIMER" "$T/tf/xdp-steer-textfile@xsb$$.timer"
not() { ! "$@" >/dev/null 2>&1; }
verify_host() {
	local out
	out=$(MANPATH=$D/usr/share/man systemd-analyze verify "$@" 2>&1) &&
		[ -z "$out" ] || { echo "$out"; return 1; }
}
if command -v systemd-analyze >/dev/null && [ -e /lib/systemd/system/sysinit.target ]; then
	check "systemd-analyze verify accepts the textfile service and timer, xdp-steer-textfile@xsb$$" \
		verify_host "$T/tf/xdp-steer-textfile@xsb$$.service" "$T/tf/xdp-steer-textfile@xsb$$.timer"
	sed 's/^OnUnitActiveSec=/OnUnitActivSec=/' "$TF_TIMER" >"$T/tf/xdp-steer-textfile@bad.timer"
	check "  (and refuses a timer with a misspelt key)" \
		not verify_host "$T/tf/xdp-steer-textfile@bad.timer"
else
	skip "systemd-analyze verify of the textfile service and timer" "no systemd-analyze or no systemd units here: tests/lib/deps.sh --test installs systemd"
fi
check "the textfile timer runs its service at once and every 15 s, and is enabled under timers.target" \
	bash -c "grep -qx 'OnActiveSec=0' $TF_TIMER && grep -qx 'OnUnitActiveSec=15s' $TF_TIMER &&
		 grep -qx 'WantedBy=timers.target' $TF_TIMER"

# The service's command as systemd runs it: $$ is a $, ${VAR} the unit's
# Environment=, %I the interface (a word of its own when it stands alone,
# else raw text inside its word, as in a script); the loader swapped for a
# stand-in that prints a sample, or fails for the interface 'gone'.
mkdir -p "$T/textfile" "$T/fake"
cat >"$T/fake/xdp-steer" <<'EOF'
#!/bin/sh
[ "$2" = gone ] && { echo "xdp-steer: $2: not attached" >&2; exit 1; }
echo "# TYPE xdp_steer_steering gauge"
echo "xdp_steer_steering{interface=\"$2\"} 1"
EOF
chmod +x "$T/fake/xdp-steer"
textfile_run() {	# textfile_run IFACE: the unit's ExecStart, run
	local cmd dir
	cmd=$(sed -n 's/^ExecStart=//p' "$TF_UNIT")
	dir=$(sed -n 's/^Environment=XDP_STEER_TEXTFILE_DIR=//p' "$TF_UNIT")
	[ "$dir" = /var/lib/prometheus/node-exporter ] ||
		{ echo "textfile directory $dir, not node_exporter's"; return 1; }
	cmd=${cmd//\$\$/\$}
	cmd=${cmd//\$\{XDP_STEER_TEXTFILE_DIR\}/$T/textfile}
	[ "${cmd% %I}" != "$cmd" ] && cmd="${cmd% %I} $(printf %q "$1")"
	cmd=${cmd//%I/$1}
	cmd=${cmd//\/usr\/sbin\/xdp-steer/$T/fake/xdp-steer}
	env -i /bin/sh -c "$cmd"
}
textfile_writes() {
	textfile_run xsb1 &&
	grep -qx 'xdp_steer_steering{interface="xsb1"} 1' "$T/textfile/xdp-steer-xsb1.prom" &&
	[ -z "$(ls "$T/textfile" | grep -v '^xdp-steer-xsb1.prom$')" ] ||
		{ ls -l "$T/textfile"; return 1; }
}
check "the textfile service writes xdp-steer-IFACE.prom for node_exporter, leaving no temporary file" \
	textfile_writes
check "the textfile service writes the file through a temporary one renamed into place" \
	bash -c "sed -n 's/^ExecStart=//p' $TF_UNIT | grep -q '>\"\$\$f.tmp\"; then mv -f \"\$\$f.tmp\" \"\$\$f\"'"
textfile_removes() {
	cp "$T/textfile/xdp-steer-xsb1.prom" "$T/textfile/xdp-steer-gone.prom"
	! textfile_run gone 2>/dev/null &&
	[ ! -e "$T/textfile/xdp-steer-gone.prom" ] &&
	[ ! -e "$T/textfile/xdp-steer-gone.prom.tmp" ]
}
check "when stats fails it removes the file (no stale counters served) and fails" \
	textfile_removes
textfile_no_code() {
	mkdir -p "$T/cwd"
	(cd "$T/cwd" && textfile_run 'x;touch owned') &&
	[ ! -e "$T/cwd/owned" ] && [ -e "$T/textfile/xdp-steer-x;touch owned.prom" ]
}
check "an interface name reaches the shell as an argument, not as code" \
	textfile_no_code
check "the installed Grafana dashboard is valid JSON" \
	python3 -m json.tool "$D/usr/share/xdp-steer/grafana/xdp-steer.json"
if command -v promtool >/dev/null; then
	check "promtool check rules accepts the installed alerting rules" \
		promtool check rules "$D/usr/share/xdp-steer/prometheus/xdp-steer.rules.yml"
else
	skip "promtool check rules accepts the installed alerting rules" \
		"promtool missing (Debian package prometheus; make test installs it)"
fi

no_warning() {
	local err
	err=$(man --warnings -l "$1" 2>&1 >/dev/null) && [ -z "$err" ] ||
		{ echo "$err"; return 1; }
}
check "man --warnings -l prints no warning for the installed xdp-steer(8)" \
	no_warning "$D/usr/share/man/man8/xdp-steer.8"
check "man --warnings -l prints no warning for the installed xdp-steer.yaml(5)" \
	no_warning "$D/usr/share/man/man5/xdp-steer.yaml.5"
check "man finds 'xdp-steer' in section 8 of the staged tree" \
	test "$(man -M "$D/usr/share/man" -w 8 xdp-steer)" = "$D/usr/share/man/man8/xdp-steer.8"
check "man finds 'xdp-steer.yaml' in section 5 of the staged tree" \
	test "$(man -M "$D/usr/share/man" -w 5 xdp-steer.yaml)" = "$D/usr/share/man/man5/xdp-steer.yaml.5"

# ---- bash completion ---------------------------------------------------------

COMP=$D/usr/share/bash-completion/completions/xdp-steer
mkdir -p "$T/pol/sub"
touch "$T/pol/a.yaml" "$T/pol/b.yml" "$T/pol/c.txt"
# complete WORD...: what the completion offers for the last word, one a
# line, sorted, as bash calls it (COMP_WORDS, COMP_CWORD), in $T/pol.
complete_words() {
	(cd "$T/pol" && bash --norc --noprofile -c '
		. "$1"; shift
		complete -p xdp-steer | grep -q -- "-F _xdp_steer" || exit 3
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_xdp_steer
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$@") | sort
}
offers() {	# offers "EXPECTED (sorted, spaces)" WORD...
	local want=$1 got
	shift
	got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || { echo "'$*' offers '$got', expected '$want'"; return 1; }
}
offers_all() {	# offers_all "WORDS" WORD...: every one of WORDS among them
	local want=$1 got w
	shift
	got=$(complete_words "$@")
	for w in $want; do
		grep -qx -- "$w" <<<"$got" || { echo "'$*' does not offer '$w': $got"; return 1; }
	done
}

cmds=$("$XDP_STEER" help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\).*/\1/p')
check "completion of the command offers every command of 'xdp-steer help', and only those" \
	offers "$(sort <<<"$cmds" | tr '\n' ' ' | sed 's/ $//')" xdp-steer ""
check "completion of 'at' is 'attach'" offers "attach" xdp-steer at
check "completion after global options: '-v st' offers status and stats" \
	offers "stats status" xdp-steer -v st
check "completion of '-' offers the global options" \
	offers_all "-v -q -h --help -V --version" xdp-steer -
for c in $cmds; do
	opts=$("$XDP_STEER" "$c" --help | head -1 | grep -o -- '--[a-z][a-z-]*' | sort -u)
	check "completion of '$c --' offers every option of its usage${opts:+ (}$(echo $opts)${opts:+)}" \
		offers_all "$opts --help" xdp-steer "$c" --
done
check "completion of --mode offers native and skb" \
	offers "native skb" xdp-steer attach lo --mode ""
ifaces=$(ls /sys/class/net | sort | tr '\n' ' ' | sed 's/ $//')
check "completion of an IFACE offers the interfaces of /sys/class/net" \
	offers "$ifaces" xdp-steer status ""
check "completion of attach's IFACE, after --policy FILE, offers interfaces" \
	offers "$ifaces" xdp-steer attach --policy a.yaml ""
check "completion of --policy offers *.yaml, *.yml and directories" \
	offers "a.yaml b.yml sub" xdp-steer attach lo --policy ""
check "completion of --policy=FILE does too" \
	offers "a.yaml b.yml sub" xdp-steer attach lo --policy = ""
check "completion of apply's --policy offers policy files" \
	offers "a.yaml b.yml sub" xdp-steer apply lo --policy ""
check "completion of check's -p offers policy files (-p is --policy there too)" \
	offers "a.yaml" xdp-steer check -p a
check "completion of apply's POLICY argument (the old spelling) offers policy files" \
	offers "a.yaml b.yml sub" xdp-steer apply lo ""
check "completion of check's POLICY argument (the old spelling) offers policy files" \
	offers "a.yaml" xdp-steer check a
check "completion of which's PROTO offers the protocol names" \
	offers "udp udplite" xdp-steer which lo ud
check "completion of 'help' offers the commands" \
	offers "stats status" xdp-steer help st
check "completion offers nothing after the last argument" \
	offers "" xdp-steer apply lo a.yaml ""
check "completion of attach's -p offers policy files (-p is --policy there)" \
	offers "a.yaml b.yml sub" xdp-steer attach lo -p ""
check "completion after stats' --prometheus offers interfaces (no value)" \
	offers "$ifaces" xdp-steer stats --prometheus ""
check "completion after stats' -c N offers interfaces (-c takes the count)" \
	offers "$ifaces" xdp-steer stats -c 3 ""

# ---- uninstall -------------------------------------------------------------

check "make uninstall DESTDIR=... PREFIX=/usr succeeds" \
	mk uninstall DESTDIR="$D" PREFIX=/usr
check "make uninstall leaves no file" no_files_left "$D"
check "make uninstall removes xdp-steer's own directories" \
	test ! -e "$D/usr/share/doc/xdp-steer" -a ! -e "$D/usr/share/xdp-steer"

# ---- the default prefix ----------------------------------------------------

D=$T/stage-local
local_paths() {
	same_files "$D" /usr/local &&
	grep -qx 'ExecStart=/usr/local/sbin/xdp-steer attach %I --policy /etc/xdp-steer/%I.yaml' \
		"$D/usr/local/lib/systemd/system/xdp-steer@.service"
}
check "make install DESTDIR=... (default PREFIX) succeeds" mk install DESTDIR="$D"
check "the default prefix is /usr/local, and the unit still reads /etc/xdp-steer" local_paths
check "make uninstall (default PREFIX) succeeds" mk uninstall DESTDIR="$D"
check "  and leaves no file" no_files_left "$D"

e2e_done
