# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The Debian packages installed, used and purged in a guest with a writable
root (scripts/vm-run --writable --no-load): apt-get install builds the module
with DKMS for the guest's kernel, selecting an algorithm by name loads it,
python3-mltcp's hook and libmltcp's C ABI mark a job through the module, and
dpkg --purge removes it all and leaves no file behind. Run from the top:

    scripts/build-deb
    scripts/vm-run --writable --no-load -- /usr/bin/python3 -m pytest -p no:cacheprovider \\
        -v -rA tests/pkg

The .debs are taken from $MLTCP_DEBS (default build/deb). The tests run in
file order, each on what the one before left."""
import glob
import os
import platform
import stat
import time

import pytest

from testbed.topology import sh

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEBS = os.environ.get("MLTCP_DEBS", os.path.join(TOP, "build", "deb"))
OVERLAY = os.environ.get("MLTCP_VM_OVERLAY", "")
KVER = platform.release()
CC = "/proc/sys/net/ipv4/tcp_congestion_control"
MANDB_AUTO_UPDATE = "/var/lib/man-db/auto-update"
BPF_UNIT = "/lib/systemd/system/mltcp-bpf.service"
REFUSE_MODULE = "/etc/modprobe.d/zz-mltcp-test-refuse.conf"

# What installing and purging may leave, by design: dpkg's and apt's own
# records and caches, and debconf's (every package install writes them); and
# DKMS's machine owner key, which DKMS (not our package) makes when it first
# signs a module and keeps for every later one (README, "Secure Boot").
BOOKKEEPING = ("/var/lib/dpkg/", "/var/lib/apt/", "/var/cache/apt/", "/var/cache/debconf/",
               "/var/cache/ldconfig/", "/etc/ld.so.cache",
               "/var/lib/dkms/mok.key", "/var/lib/dkms/mok.pub")



@pytest.fixture(autouse=True)
def writable_guest():
    """Fail, not skip, outside a writable guest: a skipped install test
    would read as passed."""
    assert OVERLAY, "run in a writable guest: scripts/vm-run --writable (MLTCP_VM_OVERLAY unset)"


def upper_paths():
    """Paths the guest created or changed (the overlay's upper layer), without
    the whiteouts of what it deleted."""
    upper = os.path.join(OVERLAY, "rw", "upper")
    found = set()
    for root, dirs, files in os.walk(upper):
        for name in dirs + files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                continue
            found.add(path[len(upper):])
    return found


def in_lower(path):
    return os.path.lexists(os.path.join(OVERLAY, "lower") + path)


def module_loaded():
    return os.path.isdir("/sys/module/tcp_mltcp")


def read(path):
    with open(path) as f:
        return f.read().strip()


BEFORE = {}


def test_not_installed_before():
    assert not module_loaded()
    assert sh("modinfo", "tcp_mltcp", check=False).returncode != 0
    BEFORE["paths"] = upper_paths()


def test_apt_installs_and_dkms_builds_for_the_guest_kernel():
    debs = sorted(glob.glob(os.path.join(DEBS, "tcp-mltcp-dkms_*.deb")) +
                  glob.glob(os.path.join(DEBS, "mltcp-tools_*.deb")) +
                  glob.glob(os.path.join(DEBS, "python3-mltcp_*.deb")))
    assert len(debs) == 3, "no packages in %s (scripts/build-deb)" % DEBS
    # man-db's trigger re-indexes every manual page after each install and
    # purge: Debian's index, not our package (test_tools_are_installed finds
    # our pages with man -w). Under TCG a full index takes about 290 s
    # (mandb -q, measured in this guest), so the guest switches it off as
    # man-db provides (no auto-update flag file).
    if os.path.exists(MANDB_AUTO_UPDATE):
        os.unlink(MANDB_AUTO_UPDATE)
    start = time.monotonic()
    # No network in the guest: every dependency is the host's, already installed.
    proc = sh("apt-get", "install", "-y", "--no-install-recommends", *debs, check=False,
              env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    print("apt-get install took %.0f s" % (time.monotonic() - start))
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0
    path = sh("modinfo", "-n", "tcp_mltcp").stdout.strip()
    assert path.startswith("/lib/modules/%s/updates/dkms/tcp_mltcp.ko" % KVER), path
    assert sh("modinfo", "-F", "vermagic", "tcp_mltcp").stdout.split()[0] == KVER
    assert "installed" in sh("dkms", "status", "tcp-mltcp").stdout
    assert not module_loaded(), "installing loaded the module"


def test_bpf_unit_is_installed_disabled_and_not_started():
    """mltcp-bpf.service registers the same host-wide names as the module:
    enabling and starting it is the administrator's choice. No systemd runs
    in the guest, so "not started" is what the maintainer scripts would do
    where it runs: nothing but a try-restart (of a unit already running) on
    upgrade."""
    assert os.path.isfile(BPF_UNIT)
    wants = glob.glob("/etc/systemd/system/*.wants/mltcp-bpf.service")
    assert not wants, "enabled on install: %s" % wants
    enabled = sh("systemctl", "is-enabled", "mltcp-bpf.service", check=False)
    assert enabled.stdout.strip() == "disabled", (enabled.stdout, enabled.stderr)
    with open("/var/lib/dpkg/info/mltcp-tools.postinst") as f:
        postinst = f.read()
    invoked = [line.strip() for line in postinst.splitlines() if "deb-systemd-invoke" in line]
    assert all("try-restart" in line for line in invoked), invoked
    assert "mltcp" not in read("/proc/sys/net/ipv4/tcp_available_congestion_control")
    assert not os.path.exists("/sys/fs/bpf/mltcp")


def unload():
    """rmmod, retrying while sockets that used the module finish closing."""
    for _ in range(50):
        if sh("rmmod", "tcp_mltcp", check=False).returncode == 0 or not module_loaded():
            break
        time.sleep(0.2)
    assert not module_loaded()


def test_selecting_by_name_autoloads():
    before = read(CC)
    try:
        # README's "Quick start", as written.
        sh("sysctl", "-w", "net.ipv4.tcp_congestion_control=mltcp")
        assert module_loaded()
        assert read(CC) == "mltcp"
        sh("sysctl", "-w", "net.ipv4.tcp_congestion_control=%s" % before)
        unload()
        # The other names, through the module's aliases.
        for name in ("mltcp_reno", "mltcp_cubic"):
            sh("sysctl", "-w", "net.ipv4.tcp_congestion_control=%s" % name)
            assert module_loaded(), name
            sh("sysctl", "-w", "net.ipv4.tcp_congestion_control=%s" % before)
            unload()
        sh("ip", "link", "add", "eth0", "type", "dummy")
        sh("ip", "link", "set", "eth0", "up")
        sh("ip", "route", "add", "10.0.0.0/8", "dev", "eth0", "congctl", "mltcp")
        assert module_loaded()
        assert "congctl mltcp" in sh("ip", "route", "show", "10.0.0.0/8").stdout
    finally:
        sh("sysctl", "-w", "net.ipv4.tcp_congestion_control=%s" % before)
        sh("ip", "link", "del", "eth0", check=False)


def test_tools_are_installed():
    shown = sh("mltcpctl", "-b", "kmod", "defaults", "show", "global").stdout
    assert "slope 1.6 intercept 0.7" in shown, shown
    sh("mltcp-trainsim", "--help")
    for page in ("tcp_mltcp", "mltcpctl", "mltcp-trainsim"):
        assert sh("man", "-w", page).stdout.startswith("/usr/share/man/")
    assert os.path.isfile("/usr/share/bash-completion/completions/mltcpctl")
    for script in ("slurm/prolog.sh", "slurm/epilog.sh", "k8s/mltcp-node.sh"):
        assert os.access("/usr/share/mltcp/contrib/" + script, os.X_OK), script


# A training script's two lines, as README shows them, with a DDP bucket
# stood in for (no torch needed): each step marked once through the
# installed libmltcp, whose module backend the job's count shows.
HOOK = """
import mltcp
from mltcp import StepMarker
class Bucket:
    def is_last(self):
        return True
marker = StepMarker(job=5, backend="kmod")
hook = marker.wrap(lambda state, bucket: "future")
for _ in range(3):
    assert hook(None, Bucket()) == "future"
assert marker.failed is None, marker.failed
print(mltcp.__file__)
"""

# libmltcp's C ABI from the installed header and library.
C_MARK = """
#include <errno.h>
#include <stdio.h>
#include <mltcp.h>
int main(void)
{
	struct mltcp_marker *m;
	if (mltcp_marker_open(&m, 0, MLTCP_BACKEND_KMOD) != -EINVAL)
		return 1;
	if (mltcp_marker_open(&m, 5, MLTCP_BACKEND_KMOD) || mltcp_mark(m, 0))
		return fprintf(stderr, "%s\\n", mltcp_error()), 1;
	mltcp_marker_close(m);
	return 0;
}
"""


def test_installed_hook_and_library_mark_a_job(tmp_path):
    sh("modprobe", "tcp_mltcp")
    sh("mltcpctl", "job", "add", "5", "peer", "192.0.2.1/32", "marked")
    try:
        # From / and without the checkout on the path: the package's module.
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MLTCP_LIBRARY")}
        out = sh("/usr/bin/python3", "-c", HOOK, cwd="/", env=env).stdout
        assert out.strip() == "/usr/lib/python3/dist-packages/mltcp/__init__.py", out
        (tmp_path / "mark.c").write_text(C_MARK)
        sh("cc", "-Wall", "-Werror", "-o", str(tmp_path / "mark"), str(tmp_path / "mark.c"),
           "-lmltcp")
        sh(str(tmp_path / "mark"))
        assert "marks 4" in sh("mltcpctl", "job", "show", "id", "5").stdout
    finally:
        sh("mltcpctl", "job", "del", "5", check=False)
        unload()


def bpf_unit_condition():
    """The exit status of mltcp-bpf.service's ExecCondition, run as systemd
    runs it: 0 starts the unit, 1 to 254 skip it, anything else fails it."""
    with open(BPF_UNIT) as f:
        lines = [line for line in f if line.startswith("ExecCondition=/bin/sh -c '")]
    assert len(lines) == 1
    script = lines[0].strip()[len("ExecCondition=/bin/sh -c '"):-1].replace("$$", "$")
    return sh("/bin/sh", "-c", script, check=False).returncode


def test_bpf_unit_stands_aside_where_the_module_loads():
    """Where the module can load, the condition loads it and skips the
    unit; where it is loaded already, too."""
    unload()
    assert 1 <= bpf_unit_condition() <= 254
    assert module_loaded(), "the condition did not try to load the module"
    assert 1 <= bpf_unit_condition() <= 254
    unload()


def test_bpf_unit_runs_where_the_module_cannot_load():
    """Installed but refused by the kernel (as under Secure Boot before the
    key is enrolled; an install command that fails stands in for it):
    the condition lets the unit load the twin."""
    assert sh("modinfo", "tcp_mltcp", check=False).returncode == 0
    with open(REFUSE_MODULE, "w") as f:
        f.write("install tcp_mltcp /bin/false\n")
    try:
        assert bpf_unit_condition() == 0
        assert not module_loaded()
    finally:
        os.unlink(REFUSE_MODULE)


def test_purge_leaves_nothing_behind():
    unload()
    proc = sh("dpkg", "--purge", "python3-mltcp", "mltcp-tools", "tcp-mltcp-dkms", check=False)
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0
    assert sh("modinfo", "tcp_mltcp", check=False).returncode != 0
    left = sorted(p for p in upper_paths() - BEFORE["paths"]
                  if not in_lower(p) and not p.startswith(BOOKKEEPING)
                  and not p.startswith(TOP + "/"))
    assert not left, "left behind:\n" + "\n".join(left)
