# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""contrib/slurm: the prolog makes an MLTCP job for a Slurm job's cgroup,
the epilog removes it (issue 15, item 4). Slurm is faked: its environment
(SLURM_JOB_ID) and the cgroups its cgroup/v2 plugin makes
(.../slurmstepd.scope/job_ID/step_N), with a flow started in a step. The
hooks read their configuration from /etc/mltcp/slurm.conf only; each runs
in a mount namespace of its own where an overlay on /etc holds the test's."""
import itertools
import os
import subprocess

import pytest

from dp import TOOL, TOP
from test_cgroup import Cgroups, start_run, wait_until

PROLOG = os.path.join(TOP, "contrib", "slurm", "prolog.sh")
EPILOG = os.path.join(TOP, "contrib", "slurm", "epilog.sh")
SLURM_JOB = 4242
# The MLTCP ids reserved for Slurm's jobs (contrib/slurm/prolog.sh).
SLURM_IDS = 1 << 31
MLTCP_JOB = SLURM_IDS + SLURM_JOB
# The hook, with the test's slurm.conf where the hooks read it, visible to
# the hook alone: $1 a fresh directory for the overlay, $2 the file.
WITH_CONF = ('mkdir "$1/upper" "$1/work" && mount -t overlay overlay '
             '-o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc && '
             'mkdir -p /etc/mltcp && cp "$2" /etc/mltcp/slurm.conf && shift 2 && exec "$@"')
# An mltcpctl that fails one command ($FAIL_WORD among its arguments) as
# mltcpctl fails for a reason other than a missing job.
FAILING_TOOL = """#!/bin/sh
for word; do
	if [ "$word" = "%s" ]; then
		echo "mltcpctl: permission denied: changing jobs needs CAP_NET_ADMIN" >&2
		exit 1
	fi
done
exec %s "$@"
"""


@pytest.fixture
def slurm(backend, net, tmp_path):
    cgroups = Cgroups()
    scope = cgroups.make(cgroups.top + "/system.slice")
    scope = cgroups.make(scope.lstrip("/") + "/slurmstepd.scope")
    job = cgroups.make(scope.lstrip("/") + "/job_%d" % SLURM_JOB)
    step = cgroups.make(job.lstrip("/") + "/step_0")
    conf = tmp_path / "slurm.conf"
    runs = itertools.count()

    def configure(tool=TOOL):
        conf.write_text("MLTCPCTL=%s\nMLTCPCTL_OPTIONS=\"%s\"\nMLTCP_JOB_SETTINGS=\"slope 2\"\n"
                        "SLURM_CGROUP_ROOT=%s\nSTATE_DIR=%s\n"
                        % (tool, " ".join(["-b", backend.name] + backend.jobs_ns_args()),
                           scope, tmp_path / "state"))

    def hook(script, job_id=SLURM_JOB, env=None):
        overlay = tmp_path / ("etc-%d" % next(runs))
        overlay.mkdir()
        env = dict(os.environ, SLURM_JOB_ID=str(job_id), **(env or {}))
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                               WITH_CONF, "sh", str(overlay), str(conf), script],
                              env=env, capture_output=True, text=True, timeout=60)

    hook.configure = configure
    hook.state = tmp_path / "state"
    configure()
    yield hook, cgroups, job, step, scope
    backend.clear_jobs()
    cgroups.close()


def failing_tool(tmp_path, word):
    path = tmp_path / ("mltcpctl-failing-%s" % word)
    path.write_text(FAILING_TOOL % (word, TOOL))
    path.chmod(0o755)
    return path


def test_prolog_tags_the_jobs_steps_and_epilog_removes_it(backend, net, slurm):
    hook, cgroups, job_cgroup, step, _ = slurm
    done = hook(PROLOG)
    assert done.returncode == 0, done.stderr
    done = hook(PROLOG)
    assert done.returncode == 0, "a second run is harmless: %s" % done.stderr
    job = backend.jobs(MLTCP_JOB)[0]
    assert job["cgroup"] == job_cgroup and job["slope"] == 2.0
    rank = net.onoff(256 << 10, 1, 1, cgroup=cgroups.path(step))
    other = net.onoff(256 << 10, 1, 1)
    try:
        assert rank.show()["job"] == MLTCP_JOB, "a step's flow, on an ephemeral port"
        assert other.show()["job"] is None
    finally:
        rank.close()
        other.close()
    done = hook(EPILOG)
    assert done.returncode == 0, done.stderr
    assert backend.jobs() == []
    assert not (hook.state / str(SLURM_JOB)).exists()
    done = hook(EPILOG)
    assert done.returncode == 0 and done.stderr == "", "a job already gone is not an error"


def test_prolog_without_the_jobs_cgroup_fails_with_one_line(backend, slurm):
    hook = slurm[0]
    done = hook(PROLOG, job_id=SLURM_JOB + 1)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "mltcp prolog: job %d: no cgroup job_%d under %s (is PrologFlags=Contain set?)"
        % (SLURM_JOB + 1, SLURM_JOB + 1, slurm[1].mount)], done.stderr
    assert backend.jobs() == []


def test_a_job_of_the_same_id_made_by_someone_else_is_left_alone(backend, slurm):
    hook = slurm[0]
    backend.job("add", MLTCP_JOB, "dport", 9999)
    done = hook(PROLOG)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "mltcp prolog: job %d: MLTCP job %d exists for another cgroup; not replaced"
        % (SLURM_JOB, MLTCP_JOB)], done.stderr
    done = hook(EPILOG)
    assert done.returncode == 0, done.stderr
    assert [j["id"] for j in backend.jobs()] == [MLTCP_JOB], "not the epilog's to delete"
    assert "cgroup" not in backend.jobs(MLTCP_JOB)[0]


def test_slurm_ids_do_not_meet_mltcpctl_runs(backend, net, slurm):
    """mltcpctl run takes the lowest free id; a Slurm job of that number
    still gets its MLTCP job, in the range reserved for Slurm."""
    hook, cgroups, _, _, scope = slurm
    proc = start_run(backend, net, command=["sleep", "60"])
    try:
        wait_until(lambda: backend.jobs() != [])
        taken = backend.jobs()[0]["id"]
        cgroups.make(scope.lstrip("/") + "/job_%d" % taken)
        done = hook(PROLOG, job_id=taken)
        assert done.returncode == 0, done.stderr
        assert sorted(j["id"] for j in backend.jobs()) == [taken, SLURM_IDS + taken]
        assert backend.jobs(SLURM_IDS + taken)[0]["cgroup"].endswith("/job_%d" % taken)
        done = hook(EPILOG, job_id=taken)
        assert done.returncode == 0, done.stderr
        assert [j["id"] for j in backend.jobs()] == [taken], "the run's job stays"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_slurm_job_id_beyond_the_range_is_refused(backend, slurm):
    hook = slurm[0]
    done = hook(PROLOG, job_id=SLURM_IDS)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "mltcp prolog: job %d: SLURM_JOB_ID above 2147483647 has no MLTCP job id "
        "(2147483648 + SLURM_JOB_ID)" % SLURM_IDS], done.stderr
    assert backend.jobs() == []


@pytest.mark.parametrize("word", ["del", "show"])
def test_epilog_keeps_its_record_until_the_job_is_gone(backend, slurm, tmp_path, word):
    """A failure other than "no such job" (here: of job del, or of job show)
    leaves the record, so that a later epilog deletes the job; the record
    gone with the job still in the table would keep it there for good."""
    hook = slurm[0]
    assert hook(PROLOG).returncode == 0
    hook.configure(tool=failing_tool(tmp_path, word))
    done = hook(EPILOG)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "mltcp epilog: job %d: mltcpctl: permission denied: changing jobs needs CAP_NET_ADMIN"
        % SLURM_JOB], done.stderr
    assert [j["id"] for j in backend.jobs()] == [MLTCP_JOB]
    assert (hook.state / str(SLURM_JOB)).exists()
    hook.configure()
    done = hook(EPILOG)
    assert done.returncode == 0, done.stderr
    assert backend.jobs() == []
    assert not (hook.state / str(SLURM_JOB)).exists()


def test_a_prolog_stopped_before_its_record_leaves_nothing_behind(backend, slurm, tmp_path):
    """The record is written before the job is added, and again by a rerun
    that finds the job its own: a prolog stopped between the two steps (by
    PrologTimeout, say) leaves no job that no epilog would delete."""
    hook = slurm[0]
    record = hook.state / str(SLURM_JOB)
    assert hook(PROLOG).returncode == 0
    record.unlink()  # as if the prolog had stopped right after adding the job
    assert hook(PROLOG).returncode == 0
    assert record.exists(), "the rerun finds the job its own and records it"
    assert hook(EPILOG).returncode == 0
    assert backend.jobs() == []
    hook.configure(tool=failing_tool(tmp_path, "add"))
    assert hook(PROLOG).returncode == 1
    assert record.exists(), "recorded before the add"
    hook.configure()
    done = hook(EPILOG)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert not record.exists()
    assert backend.jobs() == []


def test_epilog_keeps_its_record_when_it_cannot_read_the_job(backend, slurm, tmp_path):
    """A reply to job show that names no cgroup is not taken for someone
    else's job: the epilog fails and keeps the record and the job."""
    hook = slurm[0]
    assert hook(PROLOG).returncode == 0
    tool = tmp_path / "mltcpctl-no-cgroup"
    tool.write_text('#!/bin/sh\nfor word; do [ "$word" = show ] && echo "[{}]" && exit 0; done\n'
                    'exec %s "$@"\n' % TOOL)
    tool.chmod(0o755)
    hook.configure(tool=tool)
    done = hook(EPILOG)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "mltcp epilog: job %d: cannot read MLTCP job %d's cgroup: [{}]" % (SLURM_JOB, MLTCP_JOB)]
    assert (hook.state / str(SLURM_JOB)).exists()
    assert [j["id"] for j in backend.jobs()] == [MLTCP_JOB]


def test_epilog_forgets_a_job_someone_else_deleted(backend, slurm):
    hook = slurm[0]
    assert hook(PROLOG).returncode == 0
    backend.job("del", MLTCP_JOB)
    done = hook(EPILOG)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert not (hook.state / str(SLURM_JOB)).exists()


def test_the_configuration_is_only_etc_mltcp_slurm_conf(backend, slurm, tmp_path):
    """Both hooks run as root: no environment variable may name a file for
    them to source."""
    hook = slurm[0]
    marker = tmp_path / "sourced"
    other = tmp_path / "other.conf"
    other.write_text("touch %s\n" % marker)
    for script in (PROLOG, EPILOG):
        done = hook(script, env={"MLTCP_SLURM_CONF": str(other)})
        assert done.returncode == 0, done.stderr
        assert not marker.exists(), "%s sourced $MLTCP_SLURM_CONF" % os.path.basename(script)
    assert backend.jobs() == []


def test_a_users_directory_of_the_jobs_name_is_not_adopted(backend, slurm):
    hook, cgroups = slurm[0], slurm[1]
    decoy = cgroups.make(cgroups.top + "/user.slice")
    decoy = cgroups.make(decoy.lstrip("/") + "/slurmstepd.scope")
    decoy = cgroups.make(decoy.lstrip("/") + "/job_%d" % (SLURM_JOB + 2))
    os.chown(cgroups.path(decoy), 65534, 65534)
    done = hook(PROLOG, job_id=SLURM_JOB + 2)
    assert done.returncode == 1 and "no cgroup job_%d" % (SLURM_JOB + 2) in done.stderr
    assert backend.jobs() == []
