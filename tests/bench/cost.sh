#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What one interface's xdp-steer costs as the machine's possible CPUs grow
# (issue 46, "Cost"): per-interface kernel memory (every pinned map, as
# the kernel accounts it) and the CPU time of a balancer round, stats and
# status, with the shipped policy on a veth pair, on this host and in VMs
# of 64, 512 and 4096 possible CPUs, 2 online (per-CPU maps and the span
# are sized by the possible CPUs, whatever is present or online; Linux
# 6.12 has no possible_cpus= on x86 any more). On 6.12 (the default) the
# VMs have N vCPUs booted with maxcpus=2 (N present; every vCPU a TCG
# context, one host thread above 255: 5 minutes of boot at 512, and no
# result at 4096). With BENCH_KERNEL=6.1, 2 present of N possible
# (tests/vm/run --cpus 2 --max-cpus N: QEMU's -smp 2,maxcpus=N, the rest
# absent): the same possible mask, booted as fast as 2 vCPUs. Nothing here
# needs the other CPUs present: the guest script reads maps and runs
# commands on the 2 online CPUs. Above 255 the VM needs x2APIC
# (--x2apic, which --max-cpus turns on itself).
# Prints a table, each row followed by its largest maps and a balancer
# round's CPU time by phase (tests/bench/round_cost.sh, every receiver
# slot held); asserts nothing. Under TCG about 1-2 minutes per VM with
# BENCH_KERNEL=6.1; on 6.12, 1 at 64 and 8 at 512 (5 of them the boot).
#
#   tests/bench/cost.sh                 host, 64, 512, 4096
#   BENCH_POSSIBLE="512" tests/bench/cost.sh
#   BENCH_KERNEL=6.1 tests/bench/cost.sh   bookworm's 6.1 in the VMs
#
# The VMs run bookworm's newest 6.12 kernel: from Linux 6.4 bpftool's
# memlock is the kernel's own count of a map's memory
# (bpf_map_memory_usage()), per-CPU values included. But 6.12 counts
# none of QEMU's absent CPUs as possible ("Allowing 2 present CPUs plus
# 0 hotplug CPUs" with --max-cpus, one socket or a socket each), hence
# its N vCPUs; a row whose guest has other possible CPUs than asked says
# so. 6.1 counts them; its memlock is an estimate (entries x (key + value), the value
# times the possible CPUs for a per-CPU map, no overhead), and the
# per-CPU allocator's growth (percpu_kib) is printed beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."

POSSIBLE=${BENCH_POSSIBLE:-64 512 4096}
if [ "${BENCH_KERNEL:-6.12}" = 6.1 ]; then
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-6\.1\./ { print $2; exit }')
else
	pkg=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' 2>/dev/null |
		awk '{ print $1 }' | sort -V | tail -1)
fi

echo "# xdp-steer cost by possible CPUs, $(date -u +%F), commit $(git rev-parse --short HEAD 2>/dev/null)"
echo "# host: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
	"family $(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)" \
	"model $(awk -F': ' '/^model\t/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r)"
echo "# VMs: $pkg, TCG, 2 vCPUs online; CPU times are the VM's (TCG: slow, compare rows only)"
printf '%-10s %-12s %14s %10s %8s %12s %10s %10s\n' where possible memlock_MiB percpu_MiB maps balance_s stats_s status_s
row() {	# where, cost_guest.sh's output
	local where=$1 line
	line=$(head -1 <<<"$2")
	python3 - "$where" "$line" <<'PY'
import sys
where, line = sys.argv[1], sys.argv[2]
kv = dict(x.split("=", 1) for x in line.split())
print("%-10s %-12s %14.1f %10.1f %8s %12s %10s %10s" % (
    where, kv["possible"], int(kv["memlock_kib"]) / 1024,
    int(kv["percpu_kib"]) / 1024, kv["maps"],
    kv["balance_once_s"], kv["stats_s"], kv["status_s"]))
PY
	tail -n +2 <<<"$2" | sed 's/^/           /'
}
out=$(tests/bench/cost_guest.sh 2>&1) && row host "$out" || echo "host: $out"
for n in $POSSIBLE; do
	# What the kernel sizes by possible CPUs takes memory of its own at
	# 4096: with 4 GiB, 6.1 panicked at boot in the crypto self-tests
	# (alg_test_comp; its scomp scratch buffers, 2 x 128 KiB per
	# possible CPU, are 1 GiB there, if that is the cause).
	mem=2048
	[ "$n" -gt 1024 ] && mem=8192
	if [ "${BENCH_KERNEL:-6.12}" = 6.1 ]; then
		vm=(--cpus 2 --max-cpus "$n" --mem "$mem")
	else
		# 6.12: N vCPUs, 2 online (the absent CPUs of --max-cpus are
		# not possible there).
		vm=(--cpus "$n" --append maxcpus=2 --boot-timeout 900 --mem "$mem")
		[ "$n" -gt 255 ] && vm+=(--x2apic --tcg-thread single)
	fi
	log=$(XDP_STEER_VM_KERNEL_PKG=$pkg tests/vm/run "${vm[@]}" \
		--timeout 900 -- tests/bench/cost_guest.sh 2>&1)
	out=$(sed -n '/^possible=/,$p' <<<"$log")
	if [ -n "$out" ]; then
		row "vm" "$out"
		grep -q "^possible=0-$((n - 1)) " <<<"$out" ||
			echo "    (the guest's possible CPUs are not 0-$((n - 1)): this row is not $n's)"
	else
		echo "vm possible_cpus=$n: no result (tests/vm/run failed); its panic, if any, and last lines:"
		{ grep -m 3 -E 'Kernel panic|Out of memory|BUG:' <<<"$log"; tail -n 8 <<<"$log"; } | sed 's/^/    /'
	fi
done
