#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Prove that the BPF object and the kernel module were compiled from the
same core and policy sources, kmod/mltcp_core.c and kmod/mltcp_policy.c, as
they are in the tree now.

Evidence is read from what the compilers wrote into the binaries (DWARF, via
llvm-dwarfdump), not from what the build system says it did:

BPF object (clang, DWARF 5):
  1. Its line table records the MD5 of every source file compiled in. Those
     of kmod/mltcp_core.c, mltcp_core.h, mltcp_policy.c, mltcp_policy.h,
     mltcp_types.h and uapi/mltcp.h must equal the MD5 of the files in the
     tree: the object was built from these exact bytes.
  2. Every function of the core and the policy it contains is declared in
     the file that defines it (kmod/mltcp_core.c or kmod/mltcp_policy.c), at
     the line where the tree has it; none is declared anywhere else, so the
     BPF side has no second copy of the arithmetic, the matching or the
     latching.
  3. With --skeleton: the libbpf skeleton, which the loader embeds, carries
     exactly this object's bytes.

Module (gcc; gcc's DWARF has no checksums):
  4. Every core and policy function in the BPF object is also in
     tcp_mltcp.ko, declared in the same file at the same line, and the module
     was built after the core and the policy were last changed. A module
     built from an edited copy would have to keep every function at the same
     line, or it fails here.

Native programs (--native, repeatable; gcc, e.g. the ns-3 model's tests):
  5. Every core and policy function in the BPF object is also in the
     program, declared in the same file at the same line, and no function
     of that name is declared anywhere else in it.

Exit 0 pass, 1 fail, 77 skipped (--skip-unbuilt-module, and the .ko is
missing or older than the sources: ctest runs before scripts/build-kmod).
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

# The files whose functions are shared; the headers and uapi/mltcp.h as well.
SOURCES = ["kmod/mltcp_core.c", "kmod/mltcp_policy.c"]
CORE_FILES = SOURCES + ["kmod/mltcp_core.h", "kmod/mltcp_policy.h", "kmod/mltcp_types.h",
                        "kmod/uapi/mltcp.h"]
# Functions the BPF object must contain from the core (its datapath) and the
# policy (matching, latching, records).
REQUIRED = {
    "mltcp_params_valid", "mltcp_iter_init", "mltcp_on_tx_start",
    "mltcp_on_ack_drain", "mltcp_iter_learn", "mltcp_f", "mltcp_ratio", "mltcp_f_increase",
    "mltcp_f_decrease", "mltcp_reno_ai_w", "mltcp_reno_ssthresh", "mltcp_cubic_ai_w",
    "mltcp_cubic_ssthresh", "mltcp_cubic_window", "mltcp_cbrt", "mltcp_md_beta",
    "mltcp_restart_window", "mltcp_init_cwnd", "mltcp_prio_class", "mltcp_prio_dscp",
    "mltcp_job_matches", "mltcp_flow_init", "mltcp_flow_latch", "mltcp_flow_fill_record",
}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def dwarfdump(tool, *args):
    return subprocess.run([tool, *args], capture_output=True, text=True, check=True).stdout


def line_table_md5s(tool, obj):
    """{absolute path: md5} from the DWARF 5 line tables of obj."""
    out = dwarfdump(tool, "--debug-line", str(obj))
    result = {}
    dirs = {}
    name = None
    for line in out.splitlines():
        m = re.match(r'include_directories\[\s*(\d+)\] = "(.*)"', line)
        if m:
            dirs[int(m.group(1))] = m.group(2)
            continue
        if re.match(r"debug_line\[", line):
            dirs = {}
        m = re.match(r'\s+name: "(.*)"', line)
        if m:
            name = m.group(1)
            continue
        m = re.match(r"\s+dir_index: (\d+)", line)
        if m and name is not None:
            dir_index = int(m.group(1))
            continue
        m = re.match(r"\s+md5_checksum: ([0-9a-f]{32})", line)
        if m and name is not None:
            path = name if name.startswith("/") else os.path.join(dirs.get(dir_index, ""), name)
            result.setdefault(os.path.normpath(path), set()).add(m.group(1))
            name = None
    return result


def subprograms(tool, obj):
    """[(name, decl_file, decl_line)] for every DW_TAG_subprogram with a name and a declaration."""
    out = dwarfdump(tool, "--debug-info", str(obj))
    result = []
    for block in re.split(r"\n(?=0x[0-9a-f]+:\s+DW_TAG_)", out):
        if not re.match(r"0x[0-9a-f]+:\s+DW_TAG_subprogram\b", block):
            continue
        if re.search(r"DW_AT_declaration\s+\(true\)", block):
            continue  # a prototype, not the function
        name = re.search(r'DW_AT_name\s+\("([^"]+)"\)', block)
        decl_file = re.search(r'DW_AT_decl_file\s+\("([^"]+)"\)', block)
        decl_line = re.search(r"DW_AT_decl_line\s+\((\d+)\)", block)
        if name and decl_file and decl_line:
            result.append((name.group(1), os.path.normpath(decl_file.group(1)),
                           int(decl_line.group(1))))
    return result


def core_functions(source_dir):
    """{name: absolute path of the file defining it} for kmod/mltcp_core.c and mltcp_policy.c."""
    result = {}
    for rel in SOURCES:
        text = (source_dir / rel).read_text()
        for name in re.findall(r"^(?:static )?[a-z][\w ]*?\**\b(\w+)\([^;]*?\)\n\{", text, re.M):
            if name in result:
                fail(f"{name} is defined in both {result[name]} and {rel}")
            result[name] = str(source_dir / rel)
    return result


def compile_units(tool, obj):
    """Absolute paths of the compile units of obj."""
    out = dwarfdump(tool, "--debug-info", str(obj))
    result = set()
    for block in re.split(r"\n(?=0x[0-9a-f]+:\s+DW_TAG_)", out):
        if re.match(r"0x[0-9a-f]+:\s+DW_TAG_compile_unit\b", block):
            name = re.search(r'DW_AT_name\s+\("([^"]+)"\)', block)
            if name:
                result.add(os.path.normpath(name.group(1)))
    return result


def core_decls(subs, core_paths, names):
    """{name: (file, line)} of the core's functions among subs; fail on duplicates."""
    found = {}
    for name, path, line in subs:
        if name not in names:
            continue
        if path not in core_paths:
            fail(f"{name} is declared in {path}:{line}, not in the core: a second copy")
            continue
        if name in found and found[name] != (path, line):
            fail(f"{name} declared twice: {found[name]} and {(path, line)}")
        found[name] = (path, line)
    return found


def skeleton_bytes(skeleton):
    text = skeleton.read_text()
    m = re.search(r'elf_bytes\(size_t \*sz\)\s*\{\s*\*sz = (\d+);\s*return '
                  r'\(const void \*\)"(.*?)";\s*\}', text, re.S)
    if not m:
        return None, None
    body = m.group(2).replace("\\\n", "")
    # bpftool writes every byte as \xNN, or \0 for zero.
    data = bytes(int(e[1:], 16) if e != "0" else 0
                 for e in re.findall(r"\\(x[0-9a-fA-F]{2}|0)", body))
    return int(m.group(1)), data


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dwarfdump", default="llvm-dwarfdump")
    ap.add_argument("--source-dir", type=Path, required=True)
    ap.add_argument("--bpf-object", type=Path, required=True)
    ap.add_argument("--skeleton", type=Path)
    ap.add_argument("--module", type=Path)
    ap.add_argument("--skip-unbuilt-module", action="store_true")
    ap.add_argument("--native", type=Path, action="append", default=[],
                    help="a userspace program linking the core (repeatable)")
    args = ap.parse_args()

    src = args.source_dir.resolve()
    core_paths = {str(src / f) for f in CORE_FILES}
    defined_in = core_functions(src)
    names = set(defined_in)
    if not REQUIRED <= names:
        fail(f"the core and policy no longer define {sorted(REQUIRED - names)}; update REQUIRED")
    lines = {str(src / rel): (src / rel).read_text().splitlines() for rel in SOURCES}

    # 1. MD5 of the bytes clang compiled.
    md5s = line_table_md5s(args.dwarfdump, args.bpf_object)
    for rel in CORE_FILES:
        path = str(src / rel)
        want = hashlib.md5((src / rel).read_bytes()).hexdigest()
        got = md5s.get(path)
        if not got:
            fail(f"{args.bpf_object.name}: {rel} is not in its line table")
        elif got != {want}:
            fail(f"{args.bpf_object.name}: compiled from {rel} with MD5 {sorted(got)}, "
                 f"the tree's has {want}: rebuild")
        else:
            print(f"ok: {args.bpf_object.name} compiled from {rel}, MD5 {want}")

    # 2. The core's and the policy's functions in the BPF object come from
    # their files, at the tree's lines.
    bpf = core_decls(subprograms(args.dwarfdump, args.bpf_object), core_paths, names)
    missing = REQUIRED - set(bpf)
    if missing:
        fail(f"{args.bpf_object.name} lacks core or policy functions {sorted(missing)}")
    for name, (path, line) in sorted(bpf.items()):
        if path != defined_in[name] or not re.search(rf"\b{name}\(", lines[path][line - 1]):
            fail(f"{name}: BPF object says {path}:{line}, the tree differs")
    for rel in SOURCES:
        count = sum(1 for path, _ in bpf.values() if path == str(src / rel))
        print(f"ok: {count} functions of {rel} in {args.bpf_object.name}, all declared "
              f"there at the tree's lines, no other definitions")

    # 3. The loader embeds this very object.
    if args.skeleton:
        size, data = skeleton_bytes(args.skeleton)
        obj = args.bpf_object.read_bytes()
        if data is None:
            fail(f"{args.skeleton.name}: no embedded object found")
        elif size != len(data) or data != obj:
            fail(f"{args.skeleton.name} does not embed {args.bpf_object.name}")
        else:
            print(f"ok: {args.skeleton.name} embeds {args.bpf_object.name} byte for byte "
                  f"({len(obj)} bytes)")

    # 4. The module: same files, same functions at the same lines, built after them.
    # A module not yet built from kmod/mltcp_policy.c (issue 11 moves it there)
    # is checked for the core; the note says so.
    if args.module:
        module_sources = [rel for rel in SOURCES if args.module.exists() and
                          str(src / rel) in compile_units(args.dwarfdump, args.module)]
        policy_in = "kmod/mltcp_policy.c" in module_sources
        newest = max((src / f).stat().st_mtime for f in CORE_FILES
                     if policy_in or not f.startswith("kmod/mltcp_policy"))
        built = args.module.exists() and args.module.stat().st_mtime >= newest
        if not built and args.skip_unbuilt_module:
            print(f"skipped: {args.module} missing or older than the core or the policy "
                  f"(scripts/build-kmod)")
            return 77
        if not args.module.exists():
            fail(f"{args.module} not found (scripts/build-kmod)")
        elif not built:
            fail(f"{args.module.name} is older than the core or the policy: rebuild "
                 f"(scripts/build-kmod)")
        elif "kmod/mltcp_core.c" not in module_sources:
            fail(f"{args.module.name} is not built from kmod/mltcp_core.c")
        else:
            for rel in SOURCES:
                if rel not in module_sources:
                    print(f"note: {args.module.name} is not built from {rel}: its functions "
                          f"are proven for the BPF object only")
            files = {str(src / rel) for rel in module_sources}
            ko_names = {name for name, path in defined_in.items() if path in files}
            ko = core_decls(subprograms(args.dwarfdump, args.module), core_paths, ko_names)
            shared = {name for name in bpf if defined_in[name] in files}
            for name in sorted(shared):
                if name not in ko:
                    fail(f"{name} is in the BPF object but not in {args.module.name}")
                elif ko[name] != bpf[name]:
                    fail(f"{name}: module {ko[name]}, BPF object {bpf[name]}")
            if ko_names - set(ko):
                fail(f"{args.module.name} lacks functions {sorted(ko_names - set(ko))}")
            print(f"ok: {args.module.name} has the {len(ko)} functions of "
                  f"{' and '.join(module_sources)}; the {len(shared)} also in the BPF object "
                  f"at the same lines")

    # 5. Native programs: the same functions at the same lines.
    for program in args.native:
        native = core_decls(subprograms(args.dwarfdump, program), core_paths, names)
        for name in sorted(bpf):
            if name not in native:
                fail(f"{name} is in the BPF object but not in {program.name}")
            elif native[name] != bpf[name]:
                fail(f"{name}: {program.name} {native[name]}, BPF object {bpf[name]}")
        print(f"ok: {program.name} has the {len(bpf)} core and policy functions of the BPF "
              f"object at the same lines, no other copy")

    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
