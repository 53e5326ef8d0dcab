# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The results committed under bench/results stay what the documents cite,
and small: at most RESULTS_LIMIT bytes tracked in all, and every tracked
results directory cited by some tracked file outside bench/results (a
document, a test, a script, the bench's code).

A directory (<UTC stamp>-<sets>, soak-<stamp>) is cited where such a file
names it, or names its stamp, or its stamp's time as the documents shorten
it (`...T0726Z-diag-exchange`, `T0825Z`: a backtick or "..." before the
T), or lies in a range the file gives as "`<stamp>-<name>` to
`<stamp>-<name>`" (of one name). A directory no file cites goes (`git rm
-r`); what a document cites but the tree does not keep, its command
regenerates (bench/results/README.md).
"""
import os
import re
import subprocess

from bench import paths

RESULTS_LIMIT = 3_500_000  # bench/results/README.md: room for the yardstick's tables (issue 37)
STAMP = re.compile(r"(\d{8})T(\d{4})Z")
RANGE = re.compile(r"`(\d{8}T\d{4}Z)-([^`/\s]+)` to `(\d{8}T\d{4}Z)-\2`")


def tracked():
    """Every tracked file, relative to the top of the checkout."""
    out = subprocess.run(["git", "-C", paths.TOP, "ls-files", "-z"], capture_output=True,
                         check=True).stdout.decode()
    return [f for f in out.split("\0") if f]


def results_dirs(files):
    """{results directory name: [its tracked files]}."""
    out = {}
    for f in files:
        parts = f.split("/")
        if f.startswith("bench/results/") and len(parts) > 3:
            out.setdefault(parts[2], []).append(f)
    return out


def citations(name, text):
    """Whether text cites the results directory name."""
    if name in text:
        return True
    stamp = STAMP.search(name)
    if not stamp:
        return False
    if stamp.group(0) in text or \
            re.search(r"(`|\.\.\.)T%sZ(?![0-9])" % stamp.group(2), text):
        return True
    suffix = name[stamp.end() + 1:]
    return any(suffix == m.group(2) and m.group(1) <= stamp.group(0) <= m.group(3)
               for m in RANGE.finditer(text))


def uncited(files):
    """The tracked results directories no tracked file outside bench/results cites."""
    texts = []
    for f in files:
        if f.startswith("bench/results/") or f == os.path.relpath(__file__, paths.TOP):
            continue
        try:
            with open(os.path.join(paths.TOP, f), encoding="utf-8") as fh:
                texts.append(fh.read())
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
    text = "\n".join(texts)
    return sorted(name for name in results_dirs(files) if not citations(name, text))


def test_tracked_results_are_at_most_3_5_mb():
    files = [f for f in tracked() if f.startswith("bench/results/")]
    total = sum(os.path.getsize(os.path.join(paths.TOP, f)) for f in files)
    assert total <= RESULTS_LIMIT, (
        "%d bytes tracked under bench/results, over %d: keep only what the documents "
        "cite (bench/results/README.md)" % (total, RESULTS_LIMIT))


def test_every_tracked_results_directory_is_cited():
    assert uncited(tracked()) == [], "no tracked file outside bench/results cites these"


def test_the_citations_are_read_as_the_documents_write_them():
    # Stamps no run can have (hour 99), so that this file cites nothing.
    name = "20991231T9926Z-diag-exchange"
    assert citations(name, "bench/results/20991231T9926Z-diag-exchange")
    assert citations(name, "(`...T9926Z-diag-exchange`, and")
    assert citations(name, "runs `20991231T9926Z`")
    assert citations(name, "`T9925Z`, `T9926Z` (100, 30)")
    assert not citations(name, "20991231T9927Z-diag-exchange, 20991230T9926Z-dc")
    assert not citations(name, "T9926Z alone")
    torch = "20991231T9957Z-torch"
    assert citations(torch, "(`20991231T9943Z-torch` to `20991231T9962Z-torch`)")
    assert not citations(torch, "(`20991231T9943Z-dc` to `20991231T9962Z-dc`)")
    assert not citations(torch, "(`20991231T9958Z-torch` to `20991231T9962Z-torch`)")
    assert citations("soak-20991231T995536Z", "soak-20991231T995536Z/soak.md")
