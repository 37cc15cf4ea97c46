#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The instruction counts of the per-frame benchmark (tests/bench/bench_prog
# --insns, tests/bench/insn_count.py): a model runs each row's verified
# program on its frame, so its count means something only if it took the
# kernel's path. bench_prog checks that on every row (the model's verdict
# against the kernel's for the same frame, the maps as the kernel left
# them) and fails otherwise; here it must pass on the budget rows, the
# counts must order as the programs do, and the model must stop with a
# message, not guess, on a program it cannot model. No traffic, no
# namespace: the programs run under BPF_PROG_TEST_RUN and in the model.
. "$(dirname "$0")/lib.sh"

BENCH=$E2E_ROOT/tests/bench/bench_prog
TOOL=$E2E_ROOT/tests/bench/insn_count.py
table=$(mktemp)
encap=$(mktemp)
held=$(mktemp -d)
cleanup() {
	rm -rf "$table" "$encap" "$held" /sys/fs/bpf/xst-insn-$$ \
		/sys/fs/bpf/xst-insn-first-$$
}
trap cleanup EXIT

# count ROW FRAME: ROW's count for frame 0 (IPv4) or 1 (IPv6).
count() {
	awk -v row="$1" -v k="$2" 'index($0, row) == 1 && substr($0, length(row) + 1) ~ /^ +[0-9]+ insns/ {
		n = split(substr($0, length(row) + 1), f, " "); print f[1 + 2 * k]; exit }' "$table"
}

if "$BENCH" --insns --quick >"$table" 2>&1; then
	pass "the model reaches the kernel's verdict on every budget row"
else
	sed 's/^/  /' "$table" | tail -5
	fail "the model reaches the kernel's verdict on every budget row"
	e2e_done
fi

ordered() {
	local k prev=0 n row
	for k in 0 1; do
		prev=0
		for row in "redirect to a fixed CPU (baseline)" \
			   "minimal software RSS (baseline)" \
			   "xdp-steer, L4 key" "xdp-steer, L4 key, drain"; do
			n=$(count "$row" $k)
			[ -n "$n" ] && [ "$n" -gt "$prev" ] ||
				{ echo "frame $k: '$row' counts '$n' after $prev"; return 1; }
			prev=$n
		done
	done
}
check "counts grow from the fixed redirect to the minimal RSS to xdp-steer to drain" ordered

# The drain row's copy less parsing and hashing runs the same instructions
# for both frames (a fixed flow): the model follows the program, not the
# frame's length.
same_less_all() {
	local a b
	a=$(count "  drain row less all four" 0)
	b=$(count "  drain row less all four" 1)
	[ -n "$a" ] && [ "$a" = "$b" ] || { echo "IPv4 $a, IPv6 $b"; return 1; }
}
check "the copy without parsing and hashing counts alike for IPv4 and IPv6" same_less_all

# The port keys hash one port where l4 hashes the flow: no more
# instructions on the same frame (issue 33's budget).
ports_no_more() {
	local k key l4 n
	for k in 0 1; do
		l4=$(count "xdp-steer, L4 key" $k)
		for key in src_port dst_port; do
			n=$(count "xdp-steer, $key key" $k)
			[ -n "$n" ] && [ -n "$l4" ] && [ "$n" -le "$l4" ] ||
				{ echo "frame $k: $key key '$n', l4 '$l4'"; return 1; }
		done
	done
}
check "hash.key src_port and dst_port count no more instructions than l4 on the same frame" ports_no_more

# bench_encap --insns: the model follows the parser through every
# encapsulation to the kernel's verdict, and looking through one runs more
# instructions than the plain inner frame (its outer headers read first).
encap_counts() {
	"$E2E_ROOT/tests/bench/bench_encap" --insns >"$encap" 2>&1 ||
		{ tail -5 "$encap"; return 1; }
}
check "the model reaches the kernel's verdict on every encapsulation's frames" encap_counts
encap_more() {
	awk '/^(PPPoE|MPLS|GRE|IP-in-IP|VXLAN|Geneve|GTP-U)/ && !/ key: / {
		n++; if ($(NF - 4) + 0 <= 0 || $(NF - 1) + 0 <= 0) { print; bad = 1 } }
	     END { if (!n) print "no encapsulation rows"; exit bad || !n }' "$encap"
}
check "each encapsulation looked through counts more than its plain inner frame" encap_more
# The id keys' rows are over the same frame under the L4 key (the row
# above each): instructions, so the same on every machine with a kernel.
key_no_more() {
	awk '/ key: over the row above/ {
		n++; if ($(NF - 4) + 0 > 0 || $(NF - 1) + 0 > 0) { print; bad = 1 } }
	     END { if (n < 4) print "fewer than 4 id key rows"; exit bad || n < 4 }' "$encap"
}
check "hash.key vlan and tunnel count no more instructions than l4 on the same frame (QinQ, VXLAN, GTP-U, ESP)" key_no_more

# One run of the model counts several frames (bench_prog's two a row):
# each on the maps as the kernel left them, never on what the model wrote
# for the frame before. This program passes the first frame it sees and
# drops the rest, counting them in a map: the model's frames all pass
# while the kernel's counter is 0, all drop once the kernel ran one, and
# the kernel's counter stays as the kernel left it.
cat >"$held/first.bpf.c" <<'EOF2'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");
SEC("xdp")
int first(struct xdp_md *ctx)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&seen, &zero);

	if (!n)
		return XDP_ABORTED;
	return (*n)++ ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
EOF2
# verdicts ID: the model's verdicts on three frames in one run, on a line
verdicts() {
	python3 "$TOOL" --prog "$1" --jiffies 0 --frame 00 --frame 00 \
		--frame 00 | awk '{ printf "%s%s", sep, $4; sep = " " }'
}
fresh_maps() {
	local ids out n pin=/sys/fs/bpf/xst-insn-first-$$
	# -g: BTF, which a map of .maps needs
	clang -O2 -g -target bpf -I/usr/include/"$(uname -m)"-linux-gnu \
		-c "$held/first.bpf.c" -o "$held/first.bpf.o" || return 1
	bpftool prog load "$held/first.bpf.o" "$pin" || return 1
	# "PROG MAP": the program's id and its map's
	ids=$(bpftool -j prog show pinned "$pin" | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(p["id"], p["map_ids"][0])')
	out=$(verdicts "${ids% *}")
	[ "$out" = "2 2 2" ] ||
		{ echo "the kernel's counter at 0: verdicts '$out', XDP_PASS (2) for each frame expected"; return 1; }
	head -c 64 /dev/zero >"$held/frame"
	bpftool prog run pinned "$pin" data_in "$held/frame" >/dev/null ||
		return 1
	out=$(verdicts "${ids% *}")
	[ "$out" = "1 1 1" ] ||
		{ echo "the kernel's counter at 1: verdicts '$out', XDP_DROP (1) for each frame expected"; return 1; }
	n=$(bpftool -j map lookup id "${ids#* }" key 0 0 0 0 |
	    python3 -c 'import json, sys; print(int(json.load(sys.stdin)["value"][0], 16))')
	[ "$n" = 1 ] ||
		{ echo "the kernel's counter after its run and the model's: $n, 1 expected"; return 1; }
}
check "the model counts each of several frames on the kernel's maps, not on its own writes for the frame before" fresh_maps

# A program with a helper the model does not know (bpf_get_prandom_u32):
# it must say so and fail.
cat >"$held/unknown.bpf.c" <<'EOF'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int unknown(struct xdp_md *ctx)
{
	return bpf_get_prandom_u32() & 1 ? XDP_PASS : XDP_DROP;
}
char _license[] SEC("license") = "GPL";
EOF
stops() {
	local id msg pin=/sys/fs/bpf/xst-insn-$$
	clang -O2 -target bpf -I/usr/include/"$(uname -m)"-linux-gnu \
		-c "$held/unknown.bpf.c" -o "$held/unknown.bpf.o" || return 1
	bpftool prog load "$held/unknown.bpf.o" "$pin" || return 1
	id=$(bpftool -j prog show pinned "$pin" |
	     python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
	msg=$(python3 "$TOOL" --prog "$id" --jiffies 0 --frame 00 2>&1)
	local rc=$?
	rm -f "$pin"
	[ $rc -ne 0 ] || { echo "counted: $msg"; return 1; }
	# bpftool names the helper by its kernel function
	echo "$msg" | grep -q 'helper bpf_user_rnd_u32 not modelled' ||
		{ echo "$msg"; return 1; }
}
check "the model stops on a helper it does not model, saying which" stops

e2e_done
