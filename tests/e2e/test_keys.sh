#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What real kernels and NICs do to the keys operators ask for:
# 1. The cpumaps have one entry per possible CPU of this kernel (at most
#    256), not a fixed 256 that a kernel built with a smaller NR_CPUS
#    refuses: bpftool reads their size from the pins; a policy naming the
#    first CPU past them is refused by check and by apply with its
#    file:line:col, the policy in force left as it was.
# 2. key: vlan, QinQ traffic of 20 subscribers (S-tag 100+g, C-tag
#    1000+g), 10 UDP flows each, the same 5-tuples for every subscriber:
#    the independent observer finds each subscriber's flows together on
#    one CPU, the subscribers spread over both CPUs, none late; under key
#    l4 the same traffic splits subscribers (the check can fail).
# 3. key: tunnel, GTP-U between one pair of hosts: 20 TEIDs of 10 inner
#    flows each, the same: every TEID's flows on one CPU.
# 4. key: vlan with the veth's rx-vlan-offload on: attach-time apply and
#    status warn, naming 'ethtool -K IF rxvlan off'; with it off, neither.
# KEYS_PAST_CPU: the CPU part 1 names (default: the first past the
# possible ones); KEYS_SIZE_ONLY=1: part 1 alone (tests/vm/check-nrcpus.sh,
# a VM booted with nr_cpus=2).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/traffic_lib.sh"

e2e_setup
traffic_init
traffic_cpus

POSSIBLE=$(python3 -c 'import sys
n = 0
for part in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    lo, _, hi = part.partition("-")
    n = max(n, int(hi or lo) + 1)
print(min(n, 256))')

cat >"$E2E_TMP/all.yaml" <<EOF
version: 1
cpus: [0]
EOF
PAST=${KEYS_PAST_CPU:-$POSSIBLE}
cat >"$E2E_TMP/past.yaml" <<EOF
version: 1
cpus: [0, $PAST]
EOF

if ! in_b "$XDP_STEER" -q attach "$IF_B" --policy "$E2E_TMP/all.yaml"; then
	fail "xdp-steer attach $IF_B"
	e2e_done
fi

# ---- 1. the cpumaps' size --------------------------------------------------


check "cpu_map has one entry per possible CPU ($POSSIBLE)" \
	test "$(entries cpu_map)" = "$POSSIBLE"
check "cpu_map_b, the other bank, too" \
	test "$(entries cpu_map_b)" = "$POSSIBLE"

# out_has PATTERN: the last command's output ($E2E_TMP/out) matches.
out_has() {
	grep -Eq "$1" "$E2E_TMP/out" || { cat "$E2E_TMP/out"; return 1; }
}

in_b "$XDP_STEER" check --policy "$E2E_TMP/past.yaml" >"$E2E_TMP/out" 2>&1
check "check refuses a policy naming cpu $PAST (exit 1)" test $? -eq 1
check "and says where and why" \
	out_has "past.yaml:2:[0-9]+: cpu $PAST is past this kernel's possible CPUs"
gen=$(jget "$(in_b "$XDP_STEER" status "$IF_B" --json)" 'd["policy"]["generation"]')
in_b "$XDP_STEER" apply "$IF_B" --policy "$E2E_TMP/past.yaml" >"$E2E_TMP/out" 2>&1
check "apply refuses it too (exit 1)" test $? -eq 1
check "with its location" \
	out_has "past.yaml:2:[0-9]+: cpu $PAST is past this kernel's possible CPUs"
check "and the policy in force stays" \
	test "$(jget "$(in_b "$XDP_STEER" status "$IF_B" --json)" 'd["policy"]["generation"]')" = "$gen"

[ -n "${KEYS_SIZE_ONLY:-}" ] && e2e_done

# ---- 4. the vlan key and the NIC's VLAN offload ----------------------------

printf 'version: 1\ncpus: [0]\nhash: {key: vlan}\n' >"$E2E_TMP/vlan0.yaml"
WARN="hash.key is vlan, but rx-vlan-offload is on"
FIX="ethtool -K $IF_B rxvlan off"
if in_b ethtool -K "$IF_B" rxvlan on 2>/dev/null; then
	in_b "$XDP_STEER" apply "$IF_B" --policy "$E2E_TMP/vlan0.yaml" >"$E2E_TMP/out" 2>&1
	check "rxvlan on: apply of key vlan warns, naming '$FIX'" \
		out_has "$WARN.*'$FIX'"
	in_b "$XDP_STEER" status "$IF_B" >"$E2E_TMP/out" 2>&1
	check "rxvlan on: status warns too" out_has "$WARN.*'$FIX'"
	in_b ethtool -K "$IF_B" rxvlan off
	in_b "$XDP_STEER" apply "$IF_B" --policy "$E2E_TMP/vlan0.yaml" >"$E2E_TMP/out" 2>&1
	check "rxvlan off: apply does not warn" sh -c "! grep -q 'rx-vlan-offload' '$E2E_TMP/out'"
	in_b "$XDP_STEER" status "$IF_B" >"$E2E_TMP/out" 2>&1
	check "rxvlan off: status does not warn" sh -c "! grep -q 'rx-vlan-offload' '$E2E_TMP/out'"
else
	skip "the rxvlan warning" "this veth cannot turn rx-vlan-offload on"
fi

# ---- 2, 3. a subscriber's or a tunnel's flows on one CPU ------------------

if [ -z "$C1" ]; then
	skip "vlan and tunnel keys" "needs at least 2 CPUs to steer between"
	e2e_done
fi
SUBS=20
PER=10

# group_verdicts REPORT: one line per group of $PER flows, "G CPUS": the
# CPUs its flows reached the stack on, from the observer's report.
group_verdicts() {
	python3 -c 'import sys
report, subs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cpus = {}
for line in open(report):
    f = line.split()
    if f and f[0] == "flow":
        cpus.setdefault(int(f[1]) // per, set()).update(f[3].split(","))
for g in range(subs):
    print(g, ",".join(sorted(cpus.get(g, set()))) or "-")' "$1" "$SUBS" "$PER"
}

# one_cpu_each VERDICTS: every group on exactly one CPU.
one_cpu_each() {
	awk '$2 == "-" || $2 ~ /,/ { bad++; print "group " $1 ": cpus " $2 }
	     END { exit bad > 0 }' "$1"
}

# both_used VERDICTS: the groups are not all on one CPU.
both_used() {
	test "$(awk '{ print $2 }' "$1" | sort -u | wc -l)" -ge 2 ||
		{ cat "$1"; return 1; }
}

# some_split VERDICTS: at least one group's flows on several CPUs.
some_split() {
	grep -q ',' "$1" || { cat "$1"; return 1; }
}

# run_groups NAME KEY GROUP-ARGS...: applies hash.key KEY, sends 20 frames
# of each flow, writes the groups' verdicts to $E2E_TMP/NAME.
run_groups() {
	local name=$1 key=$2
	shift 2
	printf 'version: 1\ncpus: [%s, %s]\nhash: {key: %s, seed: 7}\n' \
		"$C0" "$C1" "$key" >"$E2E_TMP/$name.yaml"
	in_b "$XDP_STEER" -q apply "$IF_B" --policy "$E2E_TMP/$name.yaml" ||
		{ fail "$name: apply key $key"; return 1; }
	traffic_rx_pin >/dev/null
	observer_start --drop || { fail "$name: the observer attaches"; return 1; }
	gen_run --rate 100000 --count $((SUBS * PER * 20)) "$@" ||
		fail "$name: the generator sends its frames"
	observer_stop || fail "$name: the observer reports"
	group_verdicts "$OBS_REPORT" >"$E2E_TMP/$name"
}

QINQ=() GTPU=()
for g in $(seq 0 $((SUBS - 1))); do
	QINQ+=(--group "udp4:$PER,vlan=$((100 + g)).$((1000 + g))")
	GTPU+=(--group "udp4:$PER,encap=gtpu,id=$((65536 + g))")
done

stats0=$(in_b "$XDP_STEER" stats "$IF_B" --json)
if run_groups vlan vlan "${QINQ[@]}"; then
	check "key vlan: each of $SUBS QinQ subscribers' $PER flows on one CPU (the observer's verdicts)" \
		one_cpu_each "$E2E_TMP/vlan"
	check "key vlan: the subscribers spread over both CPUs" both_used "$E2E_TMP/vlan"
	check "key vlan: no flow had a frame out of sequence" traffic_in_order "$OBS_REPORT"
	stats1=$(in_b "$XDP_STEER" stats "$IF_B" --json)
	# Frames of namespace A's own stack (IPv6 neighbour discovery)
	# are untagged: they fall back, a few; the subscribers' never.
	check "key vlan: all but a few frames were hashed on their tags (key_id_fallback)" \
		test $(($(jget "$stats1" 'd["totals"]["key_id_fallback"]') - \
			$(jget "$stats0" 'd["totals"]["key_id_fallback"]'))) -lt 5
fi
if run_groups vlan_l4 l4 "${QINQ[@]}"; then
	check "key l4 (the control): the same traffic splits a subscriber's flows" \
		some_split "$E2E_TMP/vlan_l4"
fi
if run_groups tunnel tunnel "${GTPU[@]}"; then
	check "key tunnel: each of $SUBS GTP-U TEIDs' $PER inner flows on one CPU" \
		one_cpu_each "$E2E_TMP/tunnel"
	check "key tunnel: the TEIDs spread over both CPUs" both_used "$E2E_TMP/tunnel"
	check "key tunnel: no flow had a frame out of sequence" traffic_in_order "$OBS_REPORT"
fi
if run_groups tunnel_l4 l4 "${GTPU[@]}"; then
	check "key l4 (the control): the inner flows of a TEID split" \
		some_split "$E2E_TMP/tunnel_l4"
fi

e2e_done
