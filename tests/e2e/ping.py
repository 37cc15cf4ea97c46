#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""ping.py ADDR [COUNT]: ICMP or ICMPv6 echo over a raw socket, for hosts
without iputils-ping. Prints "N/COUNT replies"; exit status 0 only when
every request was answered (within 2 s each)."""
import os
import socket
import struct
import sys
import time


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main():
    dst = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    v6 = ":" in dst
    sock = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET,
                         socket.SOCK_RAW,
                         socket.IPPROTO_ICMPV6 if v6 else socket.IPPROTO_ICMP)
    ident = os.getpid() & 0xFFFF
    request, reply = (128, 129) if v6 else (8, 0)
    answered = 0
    for seq in range(1, count + 1):
        msg = struct.pack("!BBHHH", request, 0, 0, ident, seq) + b"xdp-steer"
        if not v6:  # the kernel fills in ICMPv6 checksums, not ICMP ones
            msg = msg[:2] + struct.pack("!H", checksum(msg)) + msg[4:]
        sock.sendto(msg, (dst, 0))
        deadline = time.monotonic() + 2
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            sock.settimeout(left)
            try:
                data = sock.recv(2048)
            except socket.timeout:
                break
            if not v6:  # raw IPv4 sockets return the IP header too
                data = data[(data[0] & 0xF) * 4:]
            if (len(data) >= 8 and data[0] == reply and
                    struct.unpack("!HH", data[4:8]) == (ident, seq)):
                answered += 1
                break
    print("%d/%d replies" % (answered, count))
    return 0 if answered == count else 1


if __name__ == "__main__":
    sys.exit(main())
