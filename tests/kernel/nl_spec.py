#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The mltcp netlink spec (spec/mltcp.yaml) against the uapi header
(kmod/uapi/mltcp.h) and against a policy as the kernel reports it.

Run as a script (ctest does, on the host) it checks the spec against the
header and exits non-zero listing every disagreement. test_netlink_spec.py uses
expected_policies() to check the running kernel's policy dump in the guest.
"""
import os
import re
import sys

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(TOP, "spec", "mltcp.yaml")
HEADER = os.path.join(TOP, "kmod", "uapi", "mltcp.h")

# Netlink attribute types as the policy dump reports them (linux/netlink.h).
NL_ATTR_TYPE = {"flag": 1, "u8": 2, "u16": 3, "u32": 4, "u64": 5, "s8": 6, "s16": 7,
                "s32": 8, "s64": 9, "binary": 10, "string": 11}
UNSIGNED_MAX = {"u8": 0xff, "u16": 0xffff, "u32": 0xffffffff, "u64": 0xffffffffffffffff}
GENL_UNS_ADMIN_PERM = 0x10
GENL_ADMIN_PERM = 0x01


def c_name(*parts):
    return "".join(parts).upper().replace("-", "_")


def load_spec(path=SPEC):
    with open(path) as f:
        return yaml.safe_load(f)


def parse_header(path=HEADER):
    """#define and enum constants of the header: {name: value}, plus
    {enum name: [member names]}."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    values, enums = {}, {}

    def evaluate(expr):
        expr = re.sub(r"(\d+)U?L{0,2}\b", r"\1", expr.strip())
        return eval(expr, {"__builtins__": {}}, dict(values))  # header constants only

    for name, expr in re.findall(r"^#define[ \t]+(\w+)[ \t]+(.+)$", text, flags=re.M):
        expr = expr.strip()
        if expr.startswith('"'):
            values[name] = expr.strip('"')
        elif not name.startswith("_UAPI"):
            values[name] = evaluate(expr)
    for ename, body in re.findall(r"enum\s+(\w+)\s*\{(.*?)\};", text, flags=re.S):
        members, nxt = [], 0
        for item in filter(None, (i.strip() for i in body.split(","))):
            name, _, expr = (p.strip() for p in item.partition("="))
            value = evaluate(expr) if expr else nxt
            values[name] = value
            members.append(name)
            nxt = value + 1
        enums[ename] = members
    return values, enums


def const(spec, value):
    """A check's bound: a number or the name of a const definition."""
    if isinstance(value, int):
        return value
    for d in spec.get("definitions", []):
        if d["name"] == value and d["type"] == "const":
            return d["value"]
    raise KeyError("no const %r in the spec" % value)


def definition(spec, name):
    return next(d for d in spec["definitions"] if d["name"] == name)


def enum_values(spec, name):
    """{entry: value}: entries count on from value-start, or from an
    entry's own value (the YAML specs' {name, value} form)."""
    d = definition(spec, name)
    values, nxt = {}, d.get("value-start", 0)
    for entry in d["entries"]:
        if isinstance(entry, dict):
            entry, nxt = entry["name"], entry.get("value", nxt)
        values[entry] = 1 << nxt if d["type"] == "flags" else nxt
        nxt += 1
    return values


def attr_values(aset):
    """{attribute name: number}: numbered from 1 unless given a value."""
    out, nxt = {}, 1
    for attr in aset["attributes"]:
        nxt = attr.get("value", nxt)
        out[attr["name"]] = nxt
        nxt += 1
    return out


def op_values(spec):
    out, nxt = {}, 1
    for op in spec["operations"]["list"]:
        nxt = op.get("value", nxt)
        out[op["name"]] = nxt
        nxt += 1
    return out


def check_header(spec, header=HEADER):
    """Every disagreement between the spec and the header, as strings."""
    values, enums = parse_header(header)
    errors = []

    def expect(name, value):
        if name not in values:
            errors.append("%s: in the spec, not in the header" % name)
        elif values[name] != value:
            errors.append("%s: spec %r, header %r" % (name, value, values[name]))

    def expect_members(enum, names, extra=()):
        got = set(enums.get(enum.replace("-", "_"), []))
        want = set(names) | set(extra)
        if got != want:
            errors.append("enum %s: header has %s, spec has %s"
                          % (enum, sorted(got - want) or "nothing more",
                             sorted(want - got) or "nothing more"))

    expect(c_name(spec["c-family-name"]), spec["name"])
    expect(c_name(spec["c-version-name"]), 1)
    for d in spec["definitions"]:
        if d["type"] == "const":
            expect(c_name(spec["name"], "-", d["name"]), d["value"])
            continue
        names = []
        for entry, value in enum_values(spec, d["name"]).items():
            names.append(c_name(d["name-prefix"], entry))
            expect(names[-1], value)
        extra = []
        if d["type"] == "flags":
            extra = [c_name(d["name-prefix"], "all")]
            expect(extra[0], sum(enum_values(spec, d["name"]).values()))
        expect_members(d["enum-name"], names, extra)
    def expect_numbered(owner, values, unspec_is_zero):
        """An attribute set or the operations: PREFIX_UNSPEC, one constant
        a member, __PREFIX_MAX and PREFIX_MAX."""
        prefix = owner["name-prefix"]
        names = [c_name(prefix, "unspec")]
        if unspec_is_zero:
            expect(names[0], 0)
        for name, value in values.items():
            names.append(c_name(prefix, name))
            expect(names[-1], value)
        last = max(values.values())
        extra = [c_name("__", prefix, "max"), c_name(prefix, "max")]
        expect(extra[0], last + 1)
        expect(extra[1], last)
        expect_members(owner["enum-name"], names, extra)

    for aset in spec["attribute-sets"]:
        expect_numbered(aset, attr_values(aset), True)
    expect_numbered(spec["operations"], op_values(spec), False)
    return errors


def expected_attr_policy(spec, attr):
    """What the kernel's policy dump should say about a request attribute:
    {"type": NL_ATTR_TYPE_*, ...bounds}."""
    kind = attr["type"]
    out = {"type": NL_ATTR_TYPE[kind]}
    checks = attr.get("checks", {})
    if kind in UNSIGNED_MAX:
        if "enum" in attr and attr.get("enum-as-flags"):
            out["mask"] = sum(enum_values(spec, attr["enum"]).values())
        else:
            hi = UNSIGNED_MAX[kind]
            if "enum" in attr:
                hi = max(enum_values(spec, attr["enum"]).values())
            out["min"] = const(spec, checks.get("min", 0))
            out["max"] = const(spec, checks.get("max", hi))
    elif kind == "binary" and "exact-len" in checks:
        out["min-len"] = out["max-len"] = const(spec, checks["exact-len"])
    return out


def expected_policies(spec):
    """{op number: {"flags": admin bits, "do": {attr number: policy} or None,
    "dump": ... or None}} as the spec describes the kernel side."""
    out = {}
    sets = {s["name"]: s for s in spec["attribute-sets"]}
    for op in spec["operations"]["list"]:
        aset = sets[op["attribute-set"]]
        numbers = attr_values(aset)
        by_name = {a["name"]: a for a in aset["attributes"]}
        entry = {"flags": GENL_UNS_ADMIN_PERM if "uns-admin-perm" in op.get("flags", []) else 0}
        for mode in ("do", "dump"):
            if mode not in op:
                entry[mode] = None
                continue
            names = op[mode].get("request", {}).get("attributes", [])
            entry[mode] = {numbers[n]: expected_attr_policy(spec, by_name[n]) for n in names}
        out[op_values(spec)[op["name"]]] = entry
    return out


def main():
    errors = check_header(load_spec())
    for e in errors:
        print("spec/header mismatch:", e)
    if not errors:
        print("spec/mltcp.yaml agrees with kmod/uapi/mltcp.h")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
