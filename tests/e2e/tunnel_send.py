#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Marked UDP datagrams through the kernel's own stack (and so through a
tunnel device routed to DST), for the end-to-end tests' real tunnels:

    tunnel_send.py DST PORT FIRST FLOWS ROUNDS [RATE]

FLOWS flows, one socket each (source ports 20000 + i), ids FIRST + i;
ROUNDS rounds, every flow once per round, so each flow's datagrams carry
sequence numbers 1..ROUNDS; at most RATE datagrams a second (default
20000), so the receiving veth's ring does not overflow. Each datagram is the mark the observer reads
(tests/e2e/traffic.h: magic, flow id, sequence number; host order).
Prints "sent=N" at the end.
"""
import socket
import struct
import sys
import time

MAGIC = 0x4D545358


def main():
    dst, port, first, flows, rounds = sys.argv[1], int(sys.argv[2]), \
        int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    rate = float(sys.argv[6]) if len(sys.argv) > 6 else 20000.0
    socks = []
    for i in range(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("0.0.0.0", 20000 + i))
        socks.append(s)
    sent = 0
    t0 = time.monotonic()
    for seq in range(1, rounds + 1):
        for i, s in enumerate(socks):
            s.sendto(struct.pack("=IIQ", MAGIC, first + i, seq), (dst, port))
            sent += 1
            if sent % 100 == 0:
                ahead = sent / rate - (time.monotonic() - t0)
                if ahead > 0:
                    time.sleep(ahead)
    print(f"sent={sent}")


if __name__ == "__main__":
    main()
