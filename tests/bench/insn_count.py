#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""insn_count.py: how many instructions a loaded XDP program runs for a frame.

Runs the program's instructions as the kernel verified and rewrote them
(`bpftool prog dump xlated`: map lookups of arrays inlined, helpers
resolved) once, in a model, on each frame given (--frame, repeated),
reading every map value it reads from the kernel's own maps and writing to
a copy of them (nothing in the kernel changes). Each frame's run starts
from the maps as the kernel left them, on a copy of its own: a frame never
sees what the model wrote for the one before. Prints the instructions run
and the verdict, a line per frame, in their order:

    insns 292 verdict 4

--profile adds, after each frame's line, the instructions of each source
line, most first; --trace every instruction run, in order.

The frames share one dump of the program and one read of each map value:
the kernel does not run between them, so what it holds is the same for
every frame (bench_prog counts a row's two frames in one run).

Why: this VM has no PMU, and a nanosecond buys several times more
instructions on one machine of its kind than on the next (one commit
measured +10 ns on one, +45 ns on another), so a count is what says, on
any machine, how far a program is from another and which line grew.
tests/bench/bench_prog --insns (and bench_encap --insns) runs this for
every row and checks the verdict against the kernel's for the same frame:
a model that took another path than the kernel would fail there.

The model knows the xdp_buff layout (data, data_end, data_meta,
data_hard_start, rxq) and the helpers xdp_steer.bpf.o calls; anything else
stops it with a message, never a guess.
"""
import argparse
import collections
import json
import subprocess
import sys

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
HEADROOM = 256          # XDP_PACKET_HEADROOM, as bpf_prog_test_run gives
XDP_REDIRECT = 4
KERNEL_SPACE = 0xffff800000000000


class ModelError(Exception):
    pass


class Ptr:
    """A pointer: a region of the model and an offset into it."""
    __slots__ = ('region', 'off')

    def __init__(self, region, off):
        self.region, self.off = region, off

    def __add__(self, n):
        return Ptr(self.region, self.off + n)

    def __repr__(self):
        return 'Ptr(%r, %d)' % (self.region, self.off)


def bpftool(*args):
    out = subprocess.run(['bpftool', '-j'] + [str(a) for a in args],
                         capture_output=True, text=True)
    if out.returncode:
        return None
    return json.loads(out.stdout)


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def s64(x):
    x &= M64
    return x - (1 << 64) if x >> 63 else x


class KernelMaps:
    """The kernel's maps, each value read on first use and kept as the
    kernel left it: shared by every frame's model, never written."""

    def __init__(self):
        self.info = {}
        self.values = {}

    def show(self, mid):
        if mid not in self.info:
            info = bpftool('map', 'show', 'id', mid)
            if not info:
                raise ModelError('map id %d: bpftool cannot show it' % mid)
            self.info[mid] = info
        return self.info[mid]

    def lookup(self, mid, key, cpu):
        """The value at key (bytes) as bytes, None when absent; of a
        per-CPU map, CPU cpu's, None past the CPUs."""
        k = (mid, key)
        if k not in self.values:
            v = bpftool('map', 'lookup', 'id', mid, 'key', 'hex',
                        *['%02x' % b for b in key])
            if v is not None and 'values' in v:     # per-CPU: every CPU's
                v = {x['cpu']: x['value'] for x in v['values']}
            elif v is not None:
                v = v['value']
            self.values[k] = v
        v = self.values[k]
        if isinstance(v, dict):
            v = v.get(cpu)
        if v is None:
            return None
        if not isinstance(v, list):
            raise ModelError('map id %d: value without bytes' % mid)
        return bytes(int(b, 16) for b in v)


class Maps:
    """One frame's maps: the kernel's values, copied on first use, which
    the model then writes."""

    def __init__(self, kernel, cpu):
        self.kernel = kernel
        self.cpu = cpu
        self.values = {}

    def show(self, mid):
        return self.kernel.show(mid)

    def lookup(self, mid, key, cpu=None):
        """The value at key (bytes) as a bytearray, None when absent; of a
        per-CPU map, CPU cpu's (None: this CPU's), None past the CPUs."""
        cpu = self.cpu if cpu is None else cpu
        k = (mid, bytes(key), cpu)
        if k not in self.values:
            v = self.kernel.lookup(mid, bytes(key), cpu)
            self.values[k] = None if v is None else bytearray(v)
        return self.values[k]

    def index(self, mid, idx):
        return self.lookup(mid, idx.to_bytes(self.show(mid)['bytes_key'],
                                             'little'))


class Program:
    """The program as the verifier left it, dumped once."""

    def __init__(self, prog_id):
        self.insns = bpftool('prog', 'dump', 'xlated', 'id', prog_id,
                             'opcodes')
        if not self.insns:
            raise ModelError('program id %d: bpftool cannot dump it' %
                             prog_id)
        # Jumps count in 8-byte slots; a 64-bit immediate takes two.
        self.at, pos = {}, 0
        for i, e in enumerate(self.insns):
            self.at[pos] = i
            pos += 2 if e['opcodes']['code'] == '0x18' else 1


class Model:
    def __init__(self, prog, kernel, frame, jiffies, cpu, rx_queue):
        self.insns, self.at = prog.insns, prog.at
        self.maps = Maps(kernel, cpu)
        self.jiffies, self.cpu, self.rx_queue = jiffies, cpu, rx_queue
        self.pkt = bytearray(HEADROOM) + bytearray(frame) + bytearray(64)
        self.len = len(frame)
        self.meta = HEADROOM    # data_meta, in self.pkt
        self.data = 0           # data, from the frame's first byte
        self.stacks = []        # one per call depth: bytes, spilled pointers
        self.value_base = None  # offsetof(struct bpf_array, value)
        self.elem_base = {}     # hash map id -> its value's offset in an elem
        self.jiffies_addr = None
        self.profile = collections.Counter()
        self.trace = None       # a list to append each instruction run to

    # ---- memory ---------------------------------------------------------
    def bytes_of(self, p, n):
        """(buffer, offset) behind pointer p."""
        r = p.region
        if r[0] == 'stack':
            return self.stacks[r[1]][0], p.off
        if r[0] == 'pkt':
            if not 0 <= p.off + HEADROOM <= len(self.pkt) - n:
                raise ModelError('packet access out of the frame: %r' % p)
            return self.pkt, p.off + HEADROOM
        if r[0] == 'array':     # ('array', id): the inlined lookup's address
            mid = r[1]
            size = (self.maps.show(mid)['bytes_value'] + 7) & ~7
            idx, off = divmod(p.off - self.value_base, size)
            v = self.maps.index(mid, idx)
            if v is None:
                raise ModelError('array map %d has no element %d' % (mid, idx))
            return v, off
        if r[0] == 'value':     # ('value', id, key[, cpu]): a value found
            base = self.elem_base.get((r[1], r[2]), 0)
            if base is None:
                raise ModelError('a hash map element read before the '
                                 "inlined lookup's offset: %r" % p)
            return self.maps.lookup(*r[1:]), p.off - base
        raise ModelError('no memory behind %r' % p)

    def load(self, p, n):
        r = p.region
        if r == ('ctx',):
            fields = {0: Ptr(('pkt',), self.data),
                      8: Ptr(('pkt',), self.len),
                      16: Ptr(('pkt',), self.meta - HEADROOM),
                      24: Ptr(('pkt',), -HEADROOM), 32: Ptr(('rxq',), 0)}
            if p.off not in fields or n != 8:
                raise ModelError('xdp_buff field at %d not modelled' % p.off)
            return fields[p.off]
        if r == ('rxq',):
            if p.off != 8 or n != 4:
                raise ModelError('xdp_rxq_info field at %d not modelled' %
                                 p.off)
            return self.rx_queue
        if r == ('percpu',):
            # The one per-CPU variable the verifier inlines for XDP here:
            # bpf_get_smp_processor_id()'s CPU number.
            return self.cpu
        if r[0] == 'kernel':
            return self.jiffies
        if r[0] == 'array' and self.maps.show(r[1])['type'] == 'percpu_array':
            # pptrs[]: the element's per-CPU pointer
            idx, rem = divmod(p.off - self.value_base, 8)
            if rem or n != 8:
                raise ModelError('per-CPU array %d read at %d' % (r[1], p.off))
            key = idx.to_bytes(self.maps.show(r[1])['bytes_key'], 'little')
            return Ptr(('value', r[1], key), 0)
        if r[0] == 'stack':
            spilled = self.stacks[r[1]][1].get((p.off, n))
            if spilled is not None:
                return spilled
        buf, off = self.bytes_of(p, n)
        return int.from_bytes(buf[off:off + n], 'little')

    def store(self, p, n, v):
        if p.region[0] == 'stack':
            spills = self.stacks[p.region[1]][1]
            for k in [k for k in spills
                      if k[0] < p.off + n and p.off < k[0] + k[1]]:
                del spills[k]
            if isinstance(v, Ptr):
                if n != 8:
                    raise ModelError('pointer spilled in %d bytes' % n)
                spills[(p.off, n)] = v
                return
        if isinstance(v, Ptr):
            raise ModelError('pointer stored outside the stack: %r' % p)
        buf, off = self.bytes_of(p, n)
        buf[off:off + n] = (v & ((1 << 8 * n) - 1)).to_bytes(n, 'little')

    # ---- helpers --------------------------------------------------------
    def key_at(self, p, mid):
        n = self.maps.show(mid)['bytes_key']
        buf, off = self.bytes_of(p, n)
        return bytes(buf[off:off + n])

    def helper(self, name, r):
        if name in ('cpu_map_redirect', 'bpf_xdp_redirect_map'):
            mid = r[1].region[1]
            key = (r[2] & M32).to_bytes(4, 'little')
            found = self.maps.lookup(mid, key) is not None
            return XDP_REDIRECT if found else r[3] & 3
        if name == 'bpf_xdp_adjust_meta':
            meta = self.meta + s32(r[2])
            if meta > HEADROOM + self.data or meta < 32:  # the xdp_frame's
                return -22 & M64                          # room
            self.meta = meta
            return 0
        if name == 'bpf_xdp_adjust_head':
            # the metadata moves with data; at least an Ethernet header
            off = s32(r[2])
            if (self.meta + off < 32 or
                    self.data + off > self.len - 14):
                return -22 & M64
            self.meta += off
            self.data += off
            return 0
        if name in ('__htab_map_lookup_elem', 'trie_lookup_elem'):
            mid = r[1].region[1]
            key = self.key_at(r[2], mid)
            if self.maps.lookup(mid, key) is None:
                return 0
            if name == '__htab_map_lookup_elem':
                # the inlined lookup adds the value's offset in the elem
                self.elem_base[(mid, key)] = None
            return Ptr(('value', mid, key), 0)
        if name == 'percpu_array_map_lookup_percpu_elem':
            # another CPU's element: ('value', id, key, cpu); none past
            # the CPUs the map has
            mid, cpu = r[1].region[1], r[3] & M32
            key = self.key_at(r[2], mid)
            if self.maps.lookup(mid, key, cpu) is None:
                return 0
            return Ptr(('value', mid, key, cpu), 0)
        raise ModelError('helper %s not modelled' % name)

    # ---- the run --------------------------------------------------------
    def alu(self, op, a, b, is64, text):
        if b is None or (a is None and op != 0xb0):
            raise ModelError('a register read after a call clobbered it: %s'
                             % text)
        if op == 0xb0:                                  # mov
            return b if isinstance(b, Ptr) else b & (M64 if is64 else M32)
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            if op == 0x00 and isinstance(a, Ptr) and isinstance(b, int):
                return a + s64(b)
            if op == 0x00 and isinstance(b, Ptr) and isinstance(a, int):
                return b + s64(a)
            if op == 0x10 and isinstance(a, Ptr) and isinstance(b, Ptr):
                return (a.off - b.off) & M64
            if op == 0x10 and isinstance(a, Ptr):
                return a + -s64(b)
            raise ModelError('pointer arithmetic not modelled: %s' % text)
        m, sh = (M64, 63) if is64 else (M32, 31)
        a &= m
        b &= m
        if op == 0x00: v = a + b
        elif op == 0x10: v = a - b
        elif op == 0x20: v = a * b
        elif op == 0x30: v = a // b if b else 0
        elif op == 0x40: v = a | b
        elif op == 0x50: v = a & b
        elif op == 0x60: v = a << (b & sh)
        elif op == 0x70: v = a >> (b & sh)
        elif op == 0x80: v = -a
        elif op == 0x90: v = a % b if b else a
        elif op == 0xa0: v = a ^ b
        elif op == 0xc0: v = (s64(a) if is64 else s32(a)) >> (b & sh)
        else:
            raise ModelError('ALU op not modelled: %s' % text)
        return v & m

    @staticmethod
    def cond(op, a, b, is64, text):
        if a is None or b is None:
            raise ModelError('a register read after a call clobbered it: %s'
                             % text)
        if isinstance(a, Ptr) and isinstance(b, Ptr):
            if a.region != b.region:
                raise ModelError('pointers of two regions compared: %s' % text)
            a, b = a.off, b.off
        elif isinstance(a, Ptr) or isinstance(b, Ptr):
            if op not in (0x10, 0x50):
                raise ModelError('pointer ordered against a number: %s' % text)
            return (op == 0x50) == ((a if isinstance(a, int) else b) == 0)
        m = M64 if is64 else M32
        ua, ub = a & m, b & m
        sa, sb = (s64(a), s64(b)) if is64 else (s32(a), s32(b))
        ops = {0x10: ua == ub, 0x50: ua != ub, 0x20: ua > ub, 0x30: ua >= ub,
               0xa0: ua < ub, 0xb0: ua <= ub, 0x60: sa > sb, 0x70: sa >= sb,
               0xc0: sa < sb, 0xd0: sa <= sb, 0x40: (ua & ub) != 0}
        if op not in ops:
            raise ModelError('jump not modelled: %s' % text)
        return ops[op]

    def run(self):
        reg = [0] * 11
        reg[1] = Ptr(('ctx',), 0)
        self.stacks.append((bytearray(512), {}))
        reg[10] = Ptr(('stack', 0), 512)
        frames = []
        pc, n, where = 0, 0, '?'
        sizes = {0x00: 4, 0x08: 2, 0x10: 1, 0x18: 8}
        while True:
            if pc not in self.at:
                raise ModelError('jump into the middle of an instruction at %d'
                                 % pc)
            e = self.insns[self.at[pc]]
            o = e['opcodes']
            code, dst, src = (int(o['code'], 16), int(o['dst_reg'], 16),
                              int(o['src_reg'], 16))
            off = int.from_bytes(bytes(int(x, 16) for x in o['off']),
                                 'little', signed=True)
            imm = int.from_bytes(bytes(int(x, 16) for x in o['imm'][:4]),
                                 'little', signed=True)
            text = e['disasm']
            where = e.get('src', where).strip() or where
            self.profile[where] += 1
            if self.trace is not None:
                self.trace.append('%5d: %s' % (pc, text))
            n += 1
            cls, op, nxt = code & 7, code & 0xf0, pc + 1
            if cls in (0x04, 0x07):                     # ALU, ALU64
                is64 = cls == 0x07
                if op == 0xd0:                          # byte swaps
                    v = reg[dst] & ((1 << imm) - 1)
                    if code & 0x08 or cls == 0x07:
                        v = int.from_bytes(v.to_bytes(imm // 8, 'little'),
                                           'big')
                    reg[dst] = v
                elif op == 0xb0 and is64 and code & 0x08 and off == -1:
                    # BPF_ADDR_PERCPU: this CPU's copy of a per-CPU address
                    v = reg[src]
                    reg[dst] = v if isinstance(v, Ptr) else Ptr(('percpu',), 0)
                elif off and op in (0x30, 0x90, 0xb0):
                    # signed division, sign-extending moves (cpu v4)
                    raise ModelError('instruction not modelled: %s' % text)
                else:
                    b = reg[src] if code & 0x08 else (imm & M64 if is64
                                                      else imm & M32)
                    a = reg[dst]
                    if (op == 0x00 and not code & 0x08 and isinstance(a, Ptr)
                            and a.off == 0):
                        if a.region[0] == 'array':
                            if self.value_base not in (None, imm):
                                raise ModelError('two array value offsets')
                            self.value_base = imm
                        elif (a.region[0] == 'value' and
                              (a.region[1], a.region[2]) in self.elem_base):
                            self.elem_base[(a.region[1], a.region[2])] = imm
                    reg[dst] = self.alu(op, a, b, is64, text)
            elif code == 0x18:                          # 64-bit immediate
                nxt = pc + 2
                if 'map[id:' in text:
                    mid = int(text.split('map[id:')[1].split(']')[0])
                    if '][0]+' in text:
                        # A global (.rodata: the span, bpf/span.h): the
                        # address of a single-entry array's value.
                        info = self.maps.show(mid)
                        if info['type'] != 'array' or info['max_entries'] != 1:
                            raise ModelError('direct map value access not '
                                             'modelled: %s' % text)
                        goff = int(text.split('][0]+')[1].split()[0], 0)
                        key = (0).to_bytes(info['bytes_key'], 'little')
                        reg[dst] = Ptr(('value', mid, key), goff)
                    elif self.maps.show(mid)['type'] not in ('array',
                                                           'percpu_array'):
                        reg[dst] = Ptr(('map', mid), 0)
                    else:
                        reg[dst] = Ptr(('array', mid), 0)
                else:
                    reg[dst] = int(text.split('= ')[1], 0) & M64
            elif cls == 0x01:                           # loads
                if code & 0xe0 != 0x60:
                    raise ModelError('load mode not modelled: %s' % text)
                base = reg[src]
                if isinstance(base, int) and base >= KERNEL_SPACE:
                    # A kernel variable's address: the inlined
                    # bpf_jiffies64() is the only one here.
                    if self.jiffies_addr not in (None, base + off):
                        raise ModelError('a second kernel address: %s' % text)
                    self.jiffies_addr = base + off
                    base = Ptr(('kernel',), -off)
                if not isinstance(base, Ptr):
                    raise ModelError('load through a number: %s' % text)
                reg[dst] = self.load(base + off, sizes[code & 0x18])
            elif cls in (0x02, 0x03):                   # stores
                if code & 0xe0 != 0x60:
                    raise ModelError('store mode not modelled: %s' % text)
                self.store(reg[dst] + off, sizes[code & 0x18],
                           imm if cls == 0x02 else reg[src])
            elif cls in (0x05, 0x06):                   # jumps
                if op == 0x00:
                    nxt = pc + 1 + off
                elif op == 0x80 and src == 1:           # BPF-to-BPF call
                    frames.append((nxt, reg[6:10]))
                    self.stacks.append((bytearray(512), {}))
                    reg[10] = Ptr(('stack', len(self.stacks) - 1), 512)
                    nxt = pc + 1 + int(text.split('call pc')[1].split('#')[0])
                elif op == 0x80:                        # helper
                    name = text.split('call ')[1].split('#')[0]
                    reg[0] = self.helper(name, reg)
                    for i in range(1, 6):
                        reg[i] = None                   # clobbered
                elif op == 0x90:                        # exit
                    if not frames:
                        return n, reg[0]
                    nxt, reg[6:10] = frames.pop()
                    self.stacks.pop()
                    reg[10] = Ptr(('stack', len(self.stacks) - 1), 512)
                else:
                    b = reg[src] if code & 0x08 else imm
                    if self.cond(op, reg[dst], b, cls == 0x05, text):
                        nxt = pc + 1 + off
            else:
                raise ModelError('instruction not modelled: %s' % text)
            pc = nxt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--prog', type=int, required=True, help='program id')
    ap.add_argument('--frame', required=True, action='append',
                    help='a frame, in hex; repeated: each counted in turn')
    ap.add_argument('--jiffies', type=int, required=True,
                    help='the clock the run sees (bpf_jiffies64())')
    ap.add_argument('--cpu', type=int, default=0,
                    help='the CPU the run is on (per-CPU maps, the CPU number)')
    ap.add_argument('--rx-queue', type=int, default=0)
    ap.add_argument('--profile', action='store_true',
                    help="each frame's instructions of each source line too")
    ap.add_argument('--trace', action='store_true',
                    help='every instruction each frame runs, in order, too')
    a = ap.parse_args()
    try:
        frames = [bytes.fromhex(f) for f in a.frame]
    except ValueError as err:
        sys.exit('insn_count.py: --frame: %s (give the bytes in hex)' % err)
    kernel = KernelMaps()
    try:
        prog = Program(a.prog)
        for frame in frames:
            m = Model(prog, kernel, frame, a.jiffies, a.cpu, a.rx_queue)
            if a.trace:
                m.trace = []
            n, verdict = m.run()
            if not isinstance(verdict, int):
                sys.exit('insn_count.py: the program returned %r' % verdict)
            print('insns %d verdict %d' % (n, verdict))
            if a.profile:
                for line, k in m.profile.most_common():
                    print('%6d  %s' % (k, line[:100]))
            if a.trace:
                print('\n'.join(m.trace))
    except ModelError as err:
        sys.exit('insn_count.py: %s (the model stops here rather than guess)'
                 % err)


if __name__ == '__main__':
    main()
