# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""contrib/slurm: the prolog makes an MLTCP job for a Slurm job's cgroup,
the epilog removes it (issue 15, item 4). Slurm is faked: its environment
(SLURM_JOB_ID) and the cgroups its cgroup/v2 plugin makes
(.../slurmstepd.scope/job_ID/step_N), with a flow started in a step."""
import os
import subprocess

import pytest

from dp import TOOL, TOP
from test_cgroup import Cgroups

PROLOG = os.path.join(TOP, "contrib", "slurm", "prolog.sh")
EPILOG = os.path.join(TOP, "contrib", "slurm", "epilog.sh")
SLURM_JOB = 4242


@pytest.fixture
def slurm(backend, net, tmp_path):
    cgroups = Cgroups()
    scope = cgroups.make(cgroups.top + "/system.slice")
    scope = cgroups.make(scope.lstrip("/") + "/slurmstepd.scope")
    job = cgroups.make(scope.lstrip("/") + "/job_%d" % SLURM_JOB)
    step = cgroups.make(job.lstrip("/") + "/step_0")
    conf = tmp_path / "slurm.conf"
    conf.write_text("MLTCPCTL=%s\nMLTCPCTL_OPTIONS=\"%s\"\nMLTCP_JOB_SETTINGS=\"slope 2\"\n"
                    "SLURM_CGROUP_ROOT=%s\nSTATE_DIR=%s\n"
                    % (TOOL, " ".join(["-b", backend.name] + backend.jobs_ns_args()), scope,
                       tmp_path / "state"))

    def hook(script, job_id=SLURM_JOB):
        env = dict(os.environ, SLURM_JOB_ID=str(job_id), MLTCP_SLURM_CONF=str(conf))
        return subprocess.run([script], env=env, capture_output=True, text=True, timeout=60)

    yield hook, cgroups, job, step, scope
    backend.clear_jobs()
    cgroups.close()


def test_prolog_tags_the_jobs_steps_and_epilog_removes_it(backend, net, slurm):
    hook, cgroups, job_cgroup, step, _ = slurm
    done = hook(PROLOG)
    assert done.returncode == 0, done.stderr
    done = hook(PROLOG)
    assert done.returncode == 0, "a second run is harmless: %s" % done.stderr
    job = backend.jobs(SLURM_JOB)[0]
    assert job["cgroup"] == job_cgroup and job["slope"] == 2.0
    rank = net.onoff(256 << 10, 1, 1, cgroup=cgroups.path(step))
    other = net.onoff(256 << 10, 1, 1)
    try:
        assert rank.show()["job"] == SLURM_JOB, "a step's flow, on an ephemeral port"
        assert other.show()["job"] is None
    finally:
        rank.close()
        other.close()
    done = hook(EPILOG)
    assert done.returncode == 0, done.stderr
    assert backend.jobs() == []
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
    backend.job("add", SLURM_JOB, "dport", 9999)
    done = hook(PROLOG)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "mltcp prolog: job %d: MLTCP job %d exists for another cgroup; not replaced"
        % (SLURM_JOB, SLURM_JOB)], done.stderr
    done = hook(EPILOG)
    assert done.returncode == 0, done.stderr
    assert [j["id"] for j in backend.jobs()] == [SLURM_JOB], "not the epilog's to delete"
    assert "cgroup" not in backend.jobs(SLURM_JOB)[0]


def test_a_users_directory_of_the_jobs_name_is_not_adopted(backend, slurm):
    hook, cgroups = slurm[0], slurm[1]
    decoy = cgroups.make(cgroups.top + "/user.slice")
    decoy = cgroups.make(decoy.lstrip("/") + "/slurmstepd.scope")
    decoy = cgroups.make(decoy.lstrip("/") + "/job_%d" % (SLURM_JOB + 2))
    os.chown(cgroups.path(decoy), 65534, 65534)
    done = hook(PROLOG, job_id=SLURM_JOB + 2)
    assert done.returncode == 1 and "no cgroup job_%d" % (SLURM_JOB + 2) in done.stderr
    assert backend.jobs() == []
