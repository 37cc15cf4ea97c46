#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Unit tier (no root): the loader's top level, which needs no BPF but
# for --version's probes (as root): the version and what the kernel
# offers, the overview (--help, -h, help) and help for one command, and
# the usage errors (exit 2) found before anything looks for an interface:
# arguments missing or too many, interface names no interface can have,
# stats' numbers that are not plain decimals; and what a command run
# unprivileged says it needs.
set -u
SUITE=cli
. "$(dirname "$0")/../e2e/lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

if [ ! -x "$XDP_STEER" ]; then
	fail "the loader is built ($XDP_STEER is missing: run make)"
	e2e_done
fi
xs() { "$XDP_STEER" "$@"; }

# rc_out WANT CMD...: CMD exits WANT; stdout in $T/out, stderr in $T/err.
rc_out() {
	local want=$1 rc
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$want" ] && return 0
	echo "exit $rc, expected $want; stderr: $(head -3 "$T/err")"
	return 1
}
has() { grep -q -e "$1" "$T/$2" || { echo "no '$1' in:"; cat "$T/$2"; return 1; }; }

check "--version exits 0" rc_out 0 xs --version
check "--version prints 'xdp-steer VERSION'" \
	has '^xdp-steer [0-9][0-9.]*[0-9a-z.+-]*$' out
check "--version names the libbpf it runs with" has '^using libbpf v[0-9]' out
check "--version names the libxdp it runs with" has '^using libxdp ' out
check "--version names the kernel" has "^kernel $(uname -r)\$" out
for f in "libxdp's dispatcher (xdp-steer beside other XDP programs)" \
	 "cpumap entries that run a program (Linux 5.9)" \
	 "bpf_jiffies64() in XDP programs (Linux 5.5)" \
	 "BPF syscall programs, the loader's clock (Linux 5.14)" \
	 "SO_NETNS_COOKIE, a network namespace's cookie (Linux 5.14)" \
	 "cpumap kthreads named whole in /proc, cpumap/<cpu>/map:<id> (Linux 5.17)" \
	 "bpf_map_lookup_percpu_elem() in XDP programs, the drain's (Linux 5.19)" \
	 "XDP frags, multi-buffer programs (Linux 5.18, optional)"; do
	check "--version says yes, no or unknown for: $f" \
		grep -qF -e "  $f: yes" -e "  $f: no" -e "  $f: unknown" "$T/out"
done
# Refused exactly when a feature attach needs (not optional) is missing.
lacking=$(grep -v 'optional)' "$T/out" | grep -c '(Linux [0-9.]*): no\( (by .*\)\?$')
if [ "$lacking" -gt 0 ]; then
	check "--version says attach is refused, $lacking features lacking" \
		has "^  attach: refused: this kernel lacks $lacking of the features above; xdp-steer needs Linux 5.19 or later\$" out
else
	check "--version says no refusal, where no feature attach needs is missing" \
		bash -c "! grep -q 'refused: this kernel lacks' '$T/out'"
fi
if [ "$(id -u)" -eq 0 ]; then
	check "  as root, every probe is known (the dispatcher, each kernel feature)" \
		bash -c "! grep -q 'unknown' '$T/out'"
	probe_progs() { bpftool prog show 2>/dev/null | grep -c 'steer_dispatcher_probe\|steer_frags\|xdp_dispatcher'; }
	before=$(probe_progs)
	xs --version >/dev/null
	check "  and the probes leave no BPF program behind" test "$(probe_progs)" = "$before"
	check "--version with LIBXDP_SKIP_DISPATCHER set says no dispatcher, and why" \
		bash -c "LIBXDP_SKIP_DISPATCHER=1 '$XDP_STEER' --version | grep -q \"^  libxdp's dispatcher .*: no: LIBXDP_SKIP_DISPATCHER is set\""
fi
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
	check "--version run unprivileged exits 0" \
		rc_out 0 setpriv --reuid=65534 --regid=65534 --clear-groups "$XDP_STEER" --version
	check "  the dispatcher unknown (needs root)" \
		has "^  libxdp's dispatcher .*: unknown (needs root)\$" out
	check "  frags unknown (needs root)" has '^  XDP frags, .*: unknown (needs root)$' out
	check "  the netns cookie known (no privilege needed)" has '^  SO_NETNS_COOKIE, .*: \(yes\|no\)$' out
fi
check "-V is --version" rc_out 0 xs -V

overview_ok() {
	rc_out 0 "$@" &&
	has '^usage: xdp-steer \[-v|-q\] COMMAND \[ARGS\]' out &&
	has '^  attach IFACE --policy POLICY' out &&
	has '^  -V, --version' out &&
	[ ! -s "$T/err" ]
}
check "--help prints the overview on stdout and exits 0" overview_ok xs --help
check "-h prints the overview" overview_ok xs -h
check "'help' prints the overview" overview_ok xs help
check "'-v --help' prints the overview" overview_ok xs -v --help

# Every command of the overview has a usage of its own, the one its
# --help prints.
cmds=$(xs help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\).*/\1/p')
check "the overview lists the commands" test -n "$cmds"
for c in $cmds; do
	help_is_usage() {
		rc_out 0 xs help "$1" && cp "$T/out" "$T/help" &&
		rc_out 0 xs "$1" --help && cmp -s "$T/help" "$T/out" &&
		grep -q "^usage: xdp-steer $1" "$T/out"
	}
	check "'help $c' prints '$c --help', its usage" help_is_usage "$c"
done

check "an unknown option is a usage error (exit 2)" rc_out 2 xs --frobnicate
check "  and prints the overview on stderr" has '^usage: xdp-steer' err
check "no command is a usage error (exit 2)" rc_out 2 xs
check "an unknown command is a usage error (exit 2)" rc_out 2 xs frobnicate
check "  and says which" has "unknown command 'frobnicate'" err
check "'help' of an unknown command is a usage error (exit 2)" \
	rc_out 2 xs help frobnicate
check "'help' with two commands is a usage error (exit 2)" \
	rc_out 2 xs help attach apply

# One prefix for every message: "xdp-steer: ", never the binary's path
# (getopt's own messages start with argv[0]), the command's name alone
# or "error:"; the usage follows.
one_prefix() {
	local first
	first=$(head -1 "$T/err")
	case $first in
	"xdp-steer: "*) ;;
	*) echo "first line: '$first'"; return 1 ;;
	esac
	if grep -n -e 'error:' -e "$XDP_STEER" -e '^[a-z-]*: [a-z]*recognized' "$T/err"; then
		return 1
	fi
	grep -q '^usage: xdp-steer' "$T/err" || { echo "no usage line"; return 1; }
}
while IFS='|' read -r what want args; do
	eval "set -- $args"
	check "'xdp-steer $args' is a usage error (exit 2)" rc_out 2 xs "$@"
	check "  saying $what after 'xdp-steer: ', then the usage" one_prefix
	check "  (exactly: $want)" has "^xdp-steer: $want\$" err
done <<'CASES'
an unknown global option|unknown option '--frobnicate'|--frobnicate
an unknown global letter|unknown option '-x'|-x
a missing command|a command is missing|-v
an unknown command|unknown command 'frobnicate'|frobnicate
a command's unknown long option|unknown option '--frobnicate'|status --frobnicate
a command's unknown letter|unknown option '-x'|stats lo -x
an unknown letter in a group|unknown option '-x'|stats lo -jx
an unknown letter after a long option|unknown option '-x'|stats lo --json -xj
a long option's missing value|option '--interval' needs a value|stats lo --interval
a letter's missing value|option '-i' needs a value|stats lo -i
a value given to a flag|option '--json' takes no value|status lo --json=yes
a prefix of a long option's missing value|option '--pol' needs a value|attach lo --pol
CASES

# A letter means one thing wherever it is taken: -p is --policy, so
# stats' --prometheus has none.
check "stats -p is an unknown option (exit 2)" rc_out 2 xs stats lo -p
check "  said so" has "^xdp-steer: unknown option '-p'$" err
for c in check apply attach; do
	check "$c's usage names -p POLICY" bash -c "'$XDP_STEER' $c --help | grep -q -- '-p POLICY'"
done

# -q has its long form, before the command and after it.
check "--quiet is taken before the command" rc_out 0 xs --quiet help
check "--quiet is taken after the command, with its options" rc_out 2 xs stats '' --quiet
check "  (only the interface name is refused)" has '^xdp-steer: an empty interface name$' err

# A wrong number of arguments says which is missing (by its usage's
# name) or the first one too many, before the usage. No root needed:
# nothing gets as far as the interface.
check "a missing argument is a usage error (exit 2)" rc_out 2 xs which lo tcp
check "  naming the one missing as the usage does" has "^xdp-steer: SRC\[:PORT\] is missing" err
check "  before the usage" has '^usage: xdp-steer which IFACE' err
check "an option's value is not taken for an argument" rc_out 2 xs attach --policy p.yaml
check "  attach without IFACE says IFACE" has "^xdp-steer: IFACE is missing" err
check "attach without --policy says so" rc_out 2 xs attach lo
check "  naming the option" has "^xdp-steer: --policy FILE is missing" err
check "an extra argument is a usage error (exit 2)" rc_out 2 xs status lo extra
check "  naming it" has "^xdp-steer: unexpected argument 'extra'" err
check "detach --stale takes no interface" rc_out 2 xs detach --stale lo
check "  and says which argument is too many" has "^xdp-steer: unexpected argument 'lo'" err

# The policy is --policy FILE (-p FILE) in check, attach and apply; the
# file as the last argument, the old spelling, still works with a note.
POL=$E2E_ROOT/configs/default.yaml
printf 'version: 1\ncpus: [0]\nrules:\n  - {match: {proto: tcp}, cpu: 0}\n  - {match: {proto: tcp}, cpu: 0}\n' >"$T/doubt.yaml"
printf 'version: 1\nqueue_size: 0\nrules:\n  - {match: {proto: tcp}, cpu: 0}\n  - {match: {proto: tcp}, cpu: 0}\n' >"$T/bad.yaml"
quiet_ok() {
	rc_out 0 "$@" && [ ! -s "$T/out" ] && [ ! -s "$T/err" ] && return 0
	echo "stdout:"; cat "$T/out"; echo "stderr:"; cat "$T/err"
	return 1
}
check "check --policy FILE exits 0" rc_out 0 xs check --policy "$POL"
check "  and prints the policy normalized" has '^version: 1$' out
check "  and nothing on stderr" test ! -s "$T/err"
check "check -p FILE is the same" rc_out 0 xs check -p "$POL"
check "  (the policy printed)" has '^queue_size: 2048$' out
check "check FILE (the old spelling) still works" rc_out 0 xs check "$POL"
check "  printing the policy" has '^version: 1$' out
check "  with a note that the spelling is deprecated" \
	has "^xdp-steer: note: a policy file given without --policy is deprecated: write 'xdp-steer check --policy POLICY'$" err
check "check -q of a valid policy prints nothing and exits 0" quiet_ok xs check -q -p "$POL"
check "check --quiet after the command prints nothing either" quiet_ok xs check -p "$POL" --quiet
check "-q before check prints nothing either" quiet_ok xs -q check -p "$POL"
check "check -q of a valid policy with doubts prints nothing" quiet_ok xs check -q -p "$T/doubt.yaml"
check "  (without -q the doubt is said)" rc_out 0 xs check -p "$T/doubt.yaml"
check "  (as a warning)" has 'doubt.yaml:5:5: warning: rule 2 duplicates rule 1' err
check "check -q FILE (the old spelling) prints no note" quiet_ok xs check -q "$POL"
check "check -q of a broken policy exits 1" rc_out 1 xs check -q -p "$T/bad.yaml"
check "  printing its mistake" has 'bad.yaml:2:13: queue_size 0 is out of range' err
check "  and nothing else: no doubt, no policy" \
	bash -c "[ \$(wc -l <'$T/err') -eq 1 ] && [ ! -s '$T/out' ]"
check "check without a policy is a usage error (exit 2)" rc_out 2 xs check
check "  saying --policy is missing" has '^xdp-steer: --policy FILE is missing$' err
check "check with --policy and a file argument is a usage error (exit 2)" \
	rc_out 2 xs check -p "$POL" "$POL"
check "  naming the argument too many" has "^xdp-steer: unexpected argument '$POL'$" err
check "apply without a policy is a usage error (exit 2)" rc_out 2 xs apply lo
check "  saying --policy is missing" has '^xdp-steer: --policy FILE is missing$' err
check "apply with --policy and a file argument is a usage error (exit 2)" \
	rc_out 2 xs apply lo -p a.yaml b.yaml
check "  naming the argument too many" has "^xdp-steer: unexpected argument 'b.yaml'$" err
check "apply IFACE FILE (the old spelling) is taken, with the note" \
	rc_out 1 xs apply lo "$T/missing.yaml"
check "  (the note)" has '^xdp-steer: note: a policy file given without --policy is deprecated' err
check "  (then the file is read)" has 'missing.yaml: cannot open' err
check "apply --json without --dry-run is a usage error (exit 2)" \
	rc_out 2 xs apply lo --json -p a.yaml
check "  saying it goes with --dry-run" has '^xdp-steer: --json goes with --dry-run' err
check "apply --dry-run reads the policy as apply does: a missing file fails (exit 1)" \
	rc_out 1 xs apply lo --dry-run -p "$T/missing.yaml"
check "  (the file is named)" has 'missing.yaml: cannot open' err

# check --cpus LIST: a policy for another machine, checked against its
# CPUs; every example policy of configs/ passes for a 64-CPU machine.
for f in "$E2E_ROOT"/configs/*.yaml; do
	check "check --cpus 0-63 passes configs/${f##*/}, silently with -q" \
		quiet_ok xs check -q --cpus 0-63 --policy "$f"
done
printf 'version: 1\ncpus: [0-15, 99]\nrules:\n  - {match: {proto: tcp}, cpus: [32-47, 64]}\n' >"$T/big.yaml"
check "check --cpus 0-127 takes CPUs this machine lacks" quiet_ok xs check -q --cpus 0-127 -p "$T/big.yaml"
check "check --cpus 0-63 refuses a CPU beyond the list (exit 1)" \
	rc_out 1 xs check --cpus 0-63 -p "$T/big.yaml"
check "  saying where, and which CPU is not in --cpus" \
	has "^$T/big.yaml:2:14: cpu 99 is not in --cpus 0-63$" err
check "  for every CPU list of the policy" \
	has "^$T/big.yaml:4:41: cpu 64 is not in --cpus 0-63$" err
check "check --cpus 0-15,32-47 takes the CPUs of both ranges, no others" \
	rc_out 1 xs check --cpus 0-15,32-47 -p "$T/big.yaml"
check "  (the policy's 99 and 64 are refused, not 32-47)" \
	bash -c "[ \$(grep -c 'is not in --cpus 0-15,32-47\$' '$T/err') -eq 2 ]"
for v in '' x 0-x '0 -3' 3-1 -1 0x10 ' 0-3'; do
	check "check --cpus '$v' is a usage error (exit 2)" rc_out 2 xs check --cpus "$v" -p "$T/big.yaml"
	check "  naming the option and the value" \
		has "^xdp-steer: --cpus takes a CPU list like 0-63 or 0-15,32-47, not '$v'$" err
done
check "check --cpus of CPUs no policy can use is a usage error (exit 2)" \
	rc_out 2 xs check --cpus 1024-1100 -p "$T/big.yaml"
check "  saying so" has "^xdp-steer: --cpus 1024-1100 names no CPU below 1024" err
printf 'version: 1\ncpus: [1, 263, 1023]\nrules:\n  - {match: {proto: udp}, cpus: [300-301]}\n' >"$T/high.yaml"
printf 'version: 1\ncpus: [0, 1024]\n' >"$T/over.yaml"
printf 'version: 1\ntable_size: 1024\n' >"$T/wide.yaml"
printf 'version: 1\n' >"$T/default.yaml"
check "check --cpus 0-1023 takes workers 263 and 1023 and rule CPUs 300-301 (no limit at 256)" \
	rc_out 0 xs check --cpus 0-1023 -p "$T/high.yaml"
check "  and prints them" has '^cpus: \[1, 263, 1023\]$' out
check "check --cpus 0-2047 refuses a policy naming CPU 1024 (exit 1)" \
	rc_out 1 xs check --cpus 0-2047 -p "$T/over.yaml"
check "  naming the limit" has "^$T/over.yaml:2:11: cpu 1024 is beyond the 1024 CPU ids xdp-steer steers to (cpus 0-1023)$" err
check "a default 'cpus' under --cpus 0-2047 leaves out CPUs 1024-2047, warned" \
	rc_out 0 xs check --cpus 0-2047 -p "$T/wide.yaml"
check "  naming how many and the limit" \
	has "the default 'cpus' leaves out 1024 of the --cpus 0-2047 CPUs, those with ids of 1024 or more" err
check "  and the workers are 0-1023" has '^# cpus: not set, .*\[0-1023\]$' out

# check --nodes LAYOUT [--nic-node N]: the NUMA nodes of the machine a
# policy is for. Warnings, never mistakes: exit 0 either way.
printf 'version: 1\ncpus: [0-3, 16-17]\n' >"$T/span.yaml"
printf 'version: 1\ncpus: [16-31]\n' >"$T/node1.yaml"
printf 'version: 1\n' >"$T/default.yaml"
NODES=0:0-15,1:16-31
check "check --nodes with --nic-node warns of workers off the NIC's node (exit 0)" \
	rc_out 0 xs check --cpus 0-31 --nodes $NODES --nic-node 1 -p "$T/span.yaml"
check "  naming them and the node's CPUs" \
	has "^xdp-steer: warning: $T/span.yaml: worker CPUs 0-3 are not on NUMA node 1, the NIC's: every frame steered to them crosses nodes; set 'cpus' to CPUs of node 1 (16-31)" err
check "  and prints the policy, its 'cpus' unchanged" has '^cpus: \[0-3, 16-17\]$' out
check "workers all on the NIC's node give no warning" \
	rc_out 0 xs check --cpus 0-31 --nodes $NODES --nic-node 1 -p "$T/node1.yaml"
check "  (stderr is empty)" test ! -s "$T/err"
check "without --nic-node, workers across nodes are warned of" \
	rc_out 0 xs check --cpus 0-31 --nodes $NODES -p "$T/span.yaml"
check "  naming the nodes" has "worker CPUs span NUMA nodes 0,1" err
check "a default 'cpus' on a NIC of node 1 is node 1's CPUs" \
	rc_out 0 xs check --cpus 0-31 --nodes $NODES --nic-node 1 -p "$T/default.yaml"
check "  said" has "^xdp-steer: note: $T/default.yaml: 'cpus' is not set: the workers are node 1's CPUs 16-31 but those taking the NIC's RX interrupts$" err
check "sparse ids: SMT siblings numbered apart, a default on node 1" \
	rc_out 0 xs check --cpus 0-63 --nodes 0:0-15,32-47,1:16-31,48-63 --nic-node 1 -p "$T/default.yaml"
check "  is 16-31,48-63" has "node 1's CPUs 16-31,48-63 but" err
check "a node of CPUs past 255 only: the default crosses nodes, warned" \
	rc_out 0 xs check --cpus 0-255 --nodes 0:0-255,1:256-511 --nic-node 1 -p "$T/default.yaml"
check "  saying node 1 has none of the online CPUs" \
	has "node 1, the NIC's, has none of the online CPUs: the workers are all of them but those taking its RX interrupts, across nodes (0-255)" err
check "a NIC on a node of CPUs past 255: its CPUs are the default workers" \
	rc_out 0 xs check --cpus 0-511 --nodes 0:0-255,1:256-511 --nic-node 1 -p "$T/default.yaml"
check "  said" has "node 1's CPUs 256-511 but" err
check "-q says none of it" rc_out 0 xs check -q --cpus 0-31 --nodes $NODES --nic-node 1 -p "$T/span.yaml"
check "  (stderr and stdout are empty)" bash -c "[ ! -s '$T/err' ] && [ ! -s '$T/out' ]"
for v in 0-15 x:0-3 0:0-3,,1:4 0:0-3,1:3-5 0:0-3,0:4-7 4096:0; do
	check "check --nodes '$v' is a usage error (exit 2)" \
		rc_out 2 xs check --cpus 0-31 --nodes "$v" -p "$T/span.yaml"
	check "  saying what a layout is" has "^xdp-steer: --nodes: .*(NODE:CPUS, each node's CPUs" err
done
check "  a CPU in two nodes is named" \
	rc_out 2 xs check --cpus 0-31 --nodes 0:0-3,1:3-5 -p "$T/span.yaml"
check "  (CPU 3)" has "^xdp-steer: --nodes: CPU 3 is in node 0 and in node 1" err
check "--nic-node without --nodes is a usage error (exit 2)" \
	rc_out 2 xs check --cpus 0-31 --nic-node 1 -p "$T/span.yaml"
check "  saying so" has "^xdp-steer: --nic-node needs --nodes" err
check "--nic-node of a node --nodes lacks is warned of" \
	rc_out 0 xs check --cpus 0-31 --nodes $NODES --nic-node 2 -p "$T/span.yaml"
check "  saying so" has "--nodes has no node 2, the one of --nic-node" err

# An interface argument that cannot name an interface is a usage error
# like any other unreadable argument, in every command that takes one,
# before anything looks for the interface (so no root needed).
iface_refused() {
	rc_out 2 "$@" && has '^xdp-steer: ' err && has '^usage: xdp-steer ' err
}
for args in "which '' udp 10.0.0.1 10.0.0.2" "stats ''" "stats '' --totals" \
	    "status ''" "apply '' p.yaml" "attach '' --policy p.yaml" \
	    "detach ''" "balance ''" "balance '' --once" "pin-dir ''"; do
	eval "set -- $args"
	check "'xdp-steer $args': an empty interface name is a usage error (exit 2)" \
		iface_refused xs "$@"
	check "  saying the name is empty" has '^xdp-steer: an empty interface name$' err
done
check "an interface name with a slash is a usage error (exit 2)" \
	iface_refused xs detach ../../xdp
check "  naming the slash" has "'../../xdp' is not an interface name (it has a '/')" err
check "'..' as an interface name is a usage error (exit 2)" iface_refused xs status ..
check "an interface name longer than 15 bytes is a usage error (exit 2)" \
	iface_refused xs which abcdefghijklmnop tcp 10.0.0.1 10.0.0.2
check "  saying so" has 'longer than an interface name can be (15 bytes)' err

# stats' numbers are plain decimals: strtod() alone reads '0x10' as 16
# s, and takes exponents, inf, nan, a sign and white space before it.
# Options are read before anything looks for an interface: a value taken
# leaves the usage error of the missing IFACE, one refused names itself.
for v in 0x10 0x1p3 1e1 inf nan ' 2' +2 -1 0 0.09 3600.5 '' . 1,5; do
	check "stats --interval '$v' is a usage error (exit 2)" \
		rc_out 2 xs stats --interval "$v"
	check "  naming the option and the value" \
		has "^xdp-steer: --interval takes seconds from 0.1 to 3600 in decimal (like 2 or 0.5), not '$v'$" err
done
for v in 2 0.5 .5 5. 0.1 3600 0010; do
	check "stats --interval '$v' is taken" rc_out 2 xs stats -i "$v"
	check "  (only IFACE is missing)" has '^xdp-steer: IFACE is missing$' err
done
for v in 0x10 1e3 1.0 ' 5' +5 -3 0 99999999999999999999 ''; do
	check "stats --count '$v' is a usage error (exit 2)" \
		rc_out 2 xs stats --count "$v"
	check "  naming the option and the value" \
		has "^xdp-steer: --count takes a whole number from 1 in decimal (like 10), not '$v'$" err
done
for v in 1 10 010 9223372036854775807; do
	check "stats --count '$v' is taken" rc_out 2 xs stats -c "$v"
	check "  (only IFACE is missing)" has '^xdp-steer: IFACE is missing$' err
done

# Run unprivileged, a command says what it needs: uid 0 with CAP_SYS_ADMIN
# and CAP_NET_ADMIN. Capabilities without uid 0 are not it: /run/xdp-steer
# and the pins are root's alone (0700). As root the run is made nobody's
# with setpriv; nothing gets past the lock directory either way.
NEEDS='needs root: uid 0 with CAP_SYS_ADMIN and CAP_NET_ADMIN'
if [ "$(id -u)" -ne 0 ]; then
	unpriv() { "$@"; }
elif command -v setpriv >/dev/null; then
	unpriv() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	skip "unprivileged runs say what they need" "running as root without setpriv (util-linux) to drop it"
fi
if [ "$(type -t unpriv)" = function ]; then
	check "status run unprivileged fails (exit 1)" rc_out 1 unpriv "$XDP_STEER" status lo
	check "  saying it $NEEDS" has "$NEEDS" err
	check "stats --json run unprivileged says the same" \
		rc_out 1 unpriv "$XDP_STEER" stats lo --json
	check "  (stats)" has "$NEEDS" err
	check "  and prints no JSON" test ! -s "$T/out"
	if [ "$(id -u)" -eq 0 ]; then
		caps=-all,+bpf,+net_admin
		check "another user with CAP_BPF and CAP_NET_ADMIN fails too (exit 1)" \
			rc_out 1 unpriv --inh-caps=$caps --ambient-caps=$caps \
			"$XDP_STEER" which lo udp 10.0.0.1:1 10.0.0.2:2
		check "  told that these are not enough" \
			has "$NEEDS; another user with CAP_BPF and CAP_NET_ADMIN cannot" err
	else
		skip "another user with CAP_BPF and CAP_NET_ADMIN fails too" "needs root to grant the capabilities"
	fi
fi

e2e_done
