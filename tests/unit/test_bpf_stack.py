#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Unit tier (no root): the stack of bpf/xdp_steer.bpf.o's deepest chain
of BPF-to-BPF calls, as the verifier of Debian's 6.1 kernel counts it.

Why: a program and the subprograms it calls share 512 bytes of stack, and
6.1's verifier rounds each function's stack up to 32 bytes before it adds
them ("combined stack size of 6 calls is 544. Too large"); 6.12 and this
machine's 6.18 count closer, so a program 6.18 loads can fail to load on
6.1, which only the VM tier (tests/vm) would show. The chain main ->
deliver_drain -> rxq_moved -> rxmove_wait -> drained -> queue_empty sat at
exactly 512 when a 16-byte spill in rxq_moved made it 544 (commit
5c0cde3, caught by the 6.1 VM); rxmove_wait and queue_empty have been
inlined since, which left 448.

Each function's stack is the deepest r10 offset its code uses (what the
verifier records for it); its calls are the relocations of its `call`
instructions (llvm-objdump -dr). Prints every entry program's deepest
chain and its size; fails above 512.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OBJ = os.environ.get("XDP_STEER_OBJ",
                     os.path.join(ROOT, "bpf", "xdp_steer.bpf.o"))
STACK_MAX = 512
ROUND = 32      # 6.1's round_up(stack_depth, 32) per frame
ENTRIES = ("xdp_steer", "steer_worker", "steer_worker_b")


def objdump():
    for tool in ("llvm-objdump", "llvm-objdump-19", "llvm-objdump-16",
                 "llvm-objdump-14"):
        if shutil.which(tool):
            p = subprocess.run([tool, "-dr", "--no-show-raw-insn", OBJ],
                               capture_output=True, text=True)
            return p.returncode, p.stdout + p.stderr
    return 1, "no llvm-objdump (it comes with clang's llvm package)"


def functions(text):
    """{name: [stack bytes, set of callees]} of the object's functions. A
    call within a section names its callee in its relocation; one into
    another section (a program calling a .text function) names the section,
    and its immediate + 1 is the callee's instruction there."""
    funcs, starts, fn, section, call_imm = {}, {}, None, None, None
    calls = []      # (caller, section, instruction index) to resolve
    for line in text.splitlines():
        m = re.match(r"^Disassembly of section (\S+):", line)
        if m:
            section, fn = m.group(1), None
            continue
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:", line)
        if m:
            if not m.group(2).startswith("LBB"):
                fn = m.group(2)
                funcs[fn] = [0, set()]
                starts[(section, int(m.group(1), 16) // 8)] = fn
            continue
        if fn is None:
            continue
        for off in re.findall(r"r10 - (0x[0-9a-f]+|\d+)", line):
            funcs[fn][0] = max(funcs[fn][0], int(off, 0))
        m = re.search(r"R_BPF_64_32\s+(\S+)", line)
        if m and call_imm is not None:
            if m.group(1).startswith("."):
                calls.append((fn, m.group(1), call_imm + 1))
            else:
                funcs[fn][1].add(m.group(1))
        m = re.search(r"\bcall (-?\d+)$", line.strip())
        call_imm = int(m.group(1)) if m else None
    for caller, sec, idx in calls:
        funcs[caller][1].add(starts.get((sec, idx), "?%s+%d" % (sec, idx)))
    return funcs


def deepest(funcs, name, seen=()):
    """(bytes, chain) of the deepest call chain from 'name', 6.1's way."""
    depth = -(-max(funcs[name][0], 1) // ROUND) * ROUND
    best = (0, [])
    for callee in funcs[name][1]:
        if callee in funcs and callee not in seen:
            best = max(best, deepest(funcs, callee, seen + (name,)))
    return depth + best[0], ["%s(%d)" % (name, depth)] + best[1]


def main():
    if not os.path.exists(OBJ):
        print("FAIL bpf stack: %s is missing (run make first)" % OBJ)
        return 1
    rc, text = objdump()
    if rc:
        print("FAIL bpf stack: llvm-objdump could not read %s" % OBJ)
        print("  " + text.strip().splitlines()[-1])
        return 1
    funcs = functions(text)
    failed = False
    lost = sorted(c for f in funcs.values() for c in f[1] if c not in funcs)
    if lost:
        print("FAIL bpf stack: calls whose callee was not found: %s" %
              ", ".join(lost))
        failed = True
    for entry in ENTRIES:
        if entry not in funcs:
            print("FAIL bpf stack: %s has no program %s" % (OBJ, entry))
            failed = True
            continue
        size, chain = deepest(funcs, entry)
        ok = size <= STACK_MAX
        failed |= not ok
        print("%s bpf stack: %s's deepest call chain fits 6.1's %d bytes "
              "(%d: %s)" % ("PASS" if ok else "FAIL", entry, STACK_MAX,
                            size, " -> ".join(chain)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
