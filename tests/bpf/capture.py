# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Captures the TCP packets a device sends and receives, for the ACK marker's
test (test_ackmark.py): run it in the device's namespace,

    ip netns exec NS python3 tests/bpf/capture.py DEV

It prints "ready" once the socket is bound, then captures until its standard
input closes and prints one JSON list: per TCP packet over IPv4 or IPv6, its
direction ("out": the device sent it, after the egress hook; "in"), family,
DSCP, ECN bits, TCP flags, payload length, source and destination ports,
sequence and acknowledgment numbers, and, for IPv4, whether the header
checksum is right, for IPv6 the flow label, and when the kernel saw it
("t", seconds, SO_TIMESTAMPNS: for a packet sent, when it left the stack,
however late this reads it)."""
import json
import select
import socket
import struct
import sys

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
# A veth's segments are GSO super-packets of up to 64 KiB: room for a few
# hundred, so that none is dropped while the test reads.
RCVBUF = 64 << 20
SO_TIMESTAMPNS = 35  # asm-generic/socket.h, the _OLD one: a struct timespec of two longs
TIMESPEC = struct.Struct("@ll")


def ipv4_checksum_ok(header):
    total = sum(struct.unpack("!%dH" % (len(header) // 2), header))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return total == 0xffff


def decode(frame, pkttype):
    proto = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if proto == 0x0800 and len(ip) >= 20 and ip[9] == 6:
        ihl = (ip[0] & 0x0f) * 4
        tos, length = ip[1], struct.unpack("!H", ip[2:4])[0]
        tcp, l4_len, family = ip[ihl:], length - ihl, 4
        checksum_ok = ipv4_checksum_ok(ip[:ihl])
        flow = None
    elif proto == 0x86DD and len(ip) >= 40 and ip[6] == 6:
        tos = ((ip[0] & 0x0f) << 4) | (ip[1] >> 4)
        tcp, l4_len, family = ip[40:], struct.unpack("!H", ip[4:6])[0], 6
        checksum_ok = None
        flow = struct.unpack("!I", ip[0:4])[0] & 0xfffff
    else:
        return None
    if len(tcp) < 20:
        return None
    doff = (tcp[12] >> 4) * 4
    return {"dir": "out" if pkttype == PACKET_OUTGOING else "in", "family": family,
            "dscp": tos >> 2, "ecn": tos & 3, "flags": tcp[13], "payload": l4_len - doff,
            "sport": struct.unpack("!H", tcp[0:2])[0], "dport": struct.unpack("!H", tcp[2:4])[0],
            "seq": struct.unpack("!I", tcp[4:8])[0], "ack": struct.unpack("!I", tcp[8:12])[0],
            "checksum_ok": checksum_ok,
            "flow": flow}


def receive(sock):
    """One frame, decoded with its kernel timestamp; None if not TCP."""
    frame, ancillary, _, addr = sock.recvmsg(65535, socket.CMSG_SPACE(TIMESPEC.size))
    packet = decode(frame, addr[2])
    if packet:
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = TIMESPEC.unpack(data[:TIMESPEC.size])
                packet["t"] = sec + nsec / 1e9
    return packet


def main():
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.bind((sys.argv[1], 0))
    packets = []
    print("ready", flush=True)
    while True:
        readable, _, _ = select.select([sock, sys.stdin], [], [])
        if sock in readable:
            packet = receive(sock)
            if packet:
                packets.append(packet)
        if sys.stdin in readable and not sys.stdin.readline():
            break
    # What arrived meanwhile.
    sock.setblocking(False)
    while True:
        try:
            packet = receive(sock)
        except BlockingIOError:
            break
        if packet:
            packets.append(packet)
    print(json.dumps(packets), flush=True)


if __name__ == "__main__":
    main()
