# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A raw generic netlink client for the tests: it builds any message, well
formed or not, reads replies, acks and extended acks, and dumps a family's
policy through the controller. Written against the kernel's netlink headers
(linux/netlink.h, linux/genetlink.h); no library, so the tests can send what
no well-behaved client would."""
import errno
import os
import socket
import struct

from nl_spec import HEADER, parse_header

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11

NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR = 2
NLMSG_DONE = 3

GENL_ID_CTRL = 16
CTRL_CMD_GETFAMILY = 3
CTRL_CMD_GETPOLICY = 10
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3
CTRL_ATTR_OPS = 6
CTRL_ATTR_POLICY = 8
CTRL_ATTR_OP_POLICY = 9
CTRL_ATTR_OP_ID = 1
CTRL_ATTR_OP_FLAGS = 2
CTRL_ATTR_POLICY_DO = 1
CTRL_ATTR_POLICY_DUMP = 2

NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLMSGERR_ATTR_POLICY = 4
NLMSGERR_ATTR_MISS_TYPE = 5

NL_POLICY = {1: "type", 4: "min", 5: "max", 6: "min-len", 7: "max-len", 12: "mask"}

# The uapi header, parsed: C = {"MLTCP_JOB_A_ID": 2, ...}.
C, _ = parse_header(HEADER)


class NetlinkError(Exception):
    def __init__(self, err, msg=None, offset=None, missing=None, policy=None):
        super().__init__("%s (%s)%s" % (errno.errorcode.get(err, err), os.strerror(err),
                                       ": " + msg if msg else ""))
        self.errno = err
        self.msg = msg
        self.offset = offset
        self.missing = missing
        self.policy = policy


def nla(atype, data):
    raw = struct.pack("HH", 4 + len(data), atype) + bytes(data)
    return raw + b"\0" * (-len(raw) % 4)


def u8(t, v):
    return nla(t, struct.pack("B", v))


def u16(t, v):
    return nla(t, struct.pack("H", v))


def u32(t, v):
    return nla(t, struct.pack("I", v))


def u64(t, v):
    return nla(t, struct.pack("Q", v))


def string(t, v):
    return nla(t, v.encode() + b"\0")


def parse_attrs(data):
    """{type: payload} (the last one wins) of a run of attributes."""
    out, off = {}, 0
    while off + 4 <= len(data):
        length, atype = struct.unpack_from("HH", data, off)
        if length < 4 or off + length > len(data):
            break
        out[atype & 0x3fff] = data[off + 4:off + length]
        off += (length + 3) & ~3
    return out


def attr_list(data):
    """[(type, payload)] of a run of attributes, in order."""
    out, off = [], 0
    while off + 4 <= len(data):
        length, atype = struct.unpack_from("HH", data, off)
        if length < 4 or off + length > len(data):
            break
        out.append((atype & 0x3fff, data[off + 4:off + length]))
        off += (length + 3) & ~3
    return out


def get_u(data):
    """An unsigned attribute payload of 1, 2, 4 or 8 bytes."""
    return struct.unpack({1: "B", 2: "H", 4: "I", 8: "Q"}[len(data)], data)[0]


class Genl:
    """One generic netlink socket in the caller's network namespace."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 1000

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send_raw(self, data):
        self.sock.send(data)

    def message(self, family, cmd, attrs=b"", flags=NLM_F_REQUEST | NLM_F_ACK, version=1,
                reserved=0, extra=b""):
        self.seq += 1
        payload = struct.pack("BBH", cmd, version, reserved) + attrs + extra
        return struct.pack("IHHII", 16 + len(payload), family, flags, self.seq, 0) + payload

    def request(self, family, cmd, attrs=b"", dump=False, **kw):
        """Send and collect: a list of attribute dicts (one per reply
        message); raises NetlinkError on an error ack."""
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        msg = self.message(family, cmd, attrs, flags=kw.pop("flags", flags), **kw)
        self.sock.send(msg)
        return self.collect(dump)

    def collect(self, dump=False):
        replies = []
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                length, mtype, mflags, seq, _pid = struct.unpack_from("IHHII", data, off)
                body = data[off + 16:off + length]
                off += (length + 3) & ~3
                if mtype == NLMSG_ERROR:
                    err = -struct.unpack_from("i", body)[0]
                    if err == 0 and not dump:
                        return replies
                    if err == 0:
                        continue
                    raise self.error(err, body, mflags)
                if mtype == NLMSG_DONE:
                    err = -struct.unpack_from("i", body)[0] if len(body) >= 4 else 0
                    if err:
                        raise self.error(err, body, mflags, done=True)
                    return replies
                replies.append(parse_attrs(body[4:]))

    @staticmethod
    def error(err, body, mflags, done=False):
        tlvs = {}
        if mflags & NLM_F_ACK_TLVS:
            # struct nlmsgerr: int error + the request's header (capped ack);
            # NLMSG_DONE carries only the int.
            start = 4 if done else 4 + 16
            tlvs = parse_attrs(body[start:])
        msg = tlvs.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode() or None
        offset = get_u(tlvs[NLMSGERR_ATTR_OFFS]) if NLMSGERR_ATTR_OFFS in tlvs else None
        missing = get_u(tlvs[NLMSGERR_ATTR_MISS_TYPE]) if NLMSGERR_ATTR_MISS_TYPE in tlvs else None
        policy = None
        if NLMSGERR_ATTR_POLICY in tlvs:
            policy = {NL_POLICY[t]: get_u(v) for t, v in parse_attrs(tlvs[NLMSGERR_ATTR_POLICY]).items()
                      if t in NL_POLICY}
        return NetlinkError(err, msg, offset, missing, policy)

    def family(self, name):
        """(id, version, {op: flags}) of a family."""
        rep = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, string(CTRL_ATTR_FAMILY_NAME, name))[0]
        ops = {}
        for _, op in attr_list(rep.get(CTRL_ATTR_OPS, b"")):
            a = parse_attrs(op)
            ops[get_u(a[CTRL_ATTR_OP_ID])] = get_u(a[CTRL_ATTR_OP_FLAGS])
        return get_u(rep[CTRL_ATTR_FAMILY_ID]), get_u(rep[CTRL_ATTR_VERSION]), ops

    def policy(self, name):
        """The family's per-op policies as the kernel reports them:
        ({op: {"do": idx, "dump": idx}}, {idx: {attr: {"type": .., "min": ..}}})."""
        msgs = self.request(GENL_ID_CTRL, CTRL_CMD_GETPOLICY,
                            string(CTRL_ATTR_FAMILY_NAME, name), dump=True)
        ops, policies = {}, {}
        for m in msgs:
            for op, nest in attr_list(m.get(CTRL_ATTR_OP_POLICY, b"")):
                which = parse_attrs(nest)
                ops[op] = {"do": get_u(which[CTRL_ATTR_POLICY_DO]) if CTRL_ATTR_POLICY_DO in which else None,
                           "dump": get_u(which[CTRL_ATTR_POLICY_DUMP]) if CTRL_ATTR_POLICY_DUMP in which else None}
            for idx, nest in attr_list(m.get(CTRL_ATTR_POLICY, b"")):
                for atype, desc in attr_list(nest):
                    policies.setdefault(idx, {})[atype] = {
                        NL_POLICY[t]: get_u(v) for t, v in parse_attrs(desc).items() if t in NL_POLICY}
        return ops, policies


class Mltcp(Genl):
    """The mltcp family over a raw socket."""

    def __init__(self):
        super().__init__()
        self.fid, self.version, self.ops = self.family("mltcp")

    def cmd(self, name, attrs=b"", **kw):
        return self.request(self.fid, C["MLTCP_CMD_" + name], attrs, **kw)

    def jobs(self):
        """{id: {attribute name: raw bytes}} of every job (a dump)."""
        names = {v: k[len("MLTCP_JOB_A_"):].lower() for k, v in C.items()
                 if k.startswith("MLTCP_JOB_A_") and k != "MLTCP_JOB_A_MAX"}
        out = {}
        for m in self.cmd("JOB_GET", dump=True):
            out[get_u(m[C["MLTCP_JOB_A_ID"]])] = {names[t]: v for t, v in m.items()}
        return out

    def flows(self, job=None):
        attrs = u32(C["MLTCP_FLOW_A_JOB"], job) if job else b""
        names = {v: k[len("MLTCP_FLOW_A_"):].lower() for k, v in C.items()
                 if k.startswith("MLTCP_FLOW_A_") and k != "MLTCP_FLOW_A_MAX"}
        return [{names[t]: v for t, v in m.items()} for m in self.cmd("FLOW_GET", attrs, dump=True)]
