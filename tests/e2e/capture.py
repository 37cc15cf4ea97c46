#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""capture.py IFNAME OUT [READY]: the generator's marked frames as they
arrive on IFNAME (run it in the interface's namespace), one line each in
OUT: "FLOW SEQ HEX", the flow id and sequence number of the frame's mark
(tests/e2e/traffic.h) and the frame's bytes. Until SIGINT or SIGTERM;
creates READY once it listens.

An AF_PACKET socket sees a frame after the stack took its outer VLAN tag
out of the data (skb_vlan_untag); the tag is put back from the packet's
auxiliary data, so the bytes are the frame as sent. Frames the namespace
sends itself are left out. For tests that compare the frames two senders
send (tests/e2e/test_traffic_gen.sh): a paced rate, a few thousand frames
per second, and a large receive buffer keep it from missing any.
"""
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
# struct tpacket_auxdata: status, len, snaplen, mac, net, vlan_tci,
# vlan_tpid.
AUXDATA = struct.Struct("=IIIHHHH")
# struct traffic_mark after its magic: flow (u32) and seq (u64), host
# order as the generator writes them.
MAGIC = struct.pack("=I", 0x4D545358)
MARK = struct.Struct("=IQ")

stop = False


def on_signal(_sig, _frame):
    global stop
    stop = True


def with_tag(data, ancdata):
    for level, kind, value in ancdata:
        if level != SOL_PACKET or kind != PACKET_AUXDATA:
            continue
        status, _, _, _, _, tci, tpid = AUXDATA.unpack_from(value)
        if status & TP_STATUS_VLAN_VALID:
            if not status & TP_STATUS_VLAN_TPID_VALID:
                tpid = 0x8100
            return data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
    return data


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    ifname, out = sys.argv[1], sys.argv[2]
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    s.bind((ifname, ETH_P_ALL))
    s.settimeout(0.1)
    if len(sys.argv) == 4:
        open(sys.argv[3], "w").close()
    n = 0
    with open(out, "w") as f:
        while not stop:
            try:
                data, anc, _, addr = s.recvmsg(65536, socket.CMSG_SPACE(AUXDATA.size))
            except socket.timeout:
                continue
            except InterruptedError:
                continue
            if addr[2] == PACKET_OUTGOING:
                continue
            data = with_tag(data, anc)
            at = data.find(MAGIC)
            if at < 0 or at + 4 + MARK.size > len(data):
                continue
            flow, seq = MARK.unpack_from(data, at + 4)
            f.write("%d %d %s\n" % (flow, seq, data.hex()))
            n += 1
    print("captured %d" % n, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
