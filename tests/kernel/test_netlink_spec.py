# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The netlink spec (spec/mltcp.yaml) agrees with the uapi header and with
what the running kernel reports about the family: its version, its commands
and their permission flags, and every attribute policy (types, ranges,
lengths, masks) through the controller's CTRL_CMD_GETPOLICY."""
import nl_spec
from nl_mltcp import C, Mltcp

GENL_CMD_CAP_DO = 0x02
GENL_CMD_CAP_DUMP = 0x04


def test_header_agrees_with_spec():
    assert nl_spec.check_header(nl_spec.load_spec()) == []


def test_kernel_family_agrees_with_spec():
    spec = nl_spec.load_spec()
    want = nl_spec.expected_policies(spec)
    with Mltcp() as m:
        assert m.version == C["MLTCP_GENL_VERSION"] == 1
        assert set(m.ops) == set(want)
        for op, entry in want.items():
            flags = m.ops[op]
            assert bool(flags & GENL_CMD_CAP_DO) == (entry["do"] is not None), op
            assert bool(flags & GENL_CMD_CAP_DUMP) == (entry["dump"] is not None), op
            assert flags & (nl_spec.GENL_UNS_ADMIN_PERM | nl_spec.GENL_ADMIN_PERM) == entry["flags"], op


def test_kernel_policy_agrees_with_spec():
    spec = nl_spec.load_spec()
    want = nl_spec.expected_policies(spec)
    with Mltcp() as m:
        ops, policies = m.policy("mltcp")
    assert set(ops) == set(want)
    for op, entry in want.items():
        for mode in ("do", "dump"):
            idx = ops[op][mode]
            if entry[mode] is None:
                assert idx is None, (op, mode)
                continue
            got = policies.get(idx, {})
            assert got == entry[mode], (op, mode, got, entry[mode])
