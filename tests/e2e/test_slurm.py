"""A real Slurm (Debian's slurm-wlm) on loopback: slurmctld and slurmd on this machine, one node
with two GPUs as generic resources, runs a batch job whose step starts a process on the simulated
GPU (the scenario's `pid_file:`). gpuwatch must say which job, user and step hold that GPU, from
the process's SLURM_* variables and from the mapping file the job's prolog wrote
(deploy/slurm/gpuwatch-prolog.sh); the epilog removes it when the job ends; and the recorded
history has the job (`report --slurm-job`).

The daemons run in the foreground as children of the test, with a temporary configuration
(auth/none: no munge key needed; proctrack/linuxproc, task/none: no cgroup or systemd needed;
gres.conf's GPU "devices" are /dev/null and /dev/zero, character devices that exist everywhere).
slurmd launches jobs as their user, so it must run as root: skipped otherwise, and when the
Slurm binaries are absent (scripts/install-deps installs slurmctld, slurmd and slurm-client)."""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
SOURCE = pathlib.Path(os.environ.get("GPUWATCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
NEEDED = ("slurmctld", "slurmd", "sbatch", "sinfo", "scancel", "squeue")

pytestmark = [
    pytest.mark.skipif(any(shutil.which(p) is None for p in NEEDED),
                       reason="Slurm is not installed (Debian: slurmctld slurmd slurm-client)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="slurmd launches jobs as their user: it needs root"),
]

SCENARIO = """\
name: slurm_e2e
description: GPU 0 runs whatever process job.pid names (a Slurm job's step); GPU 1 is idle.
gpus:
  - model: H100 SXM 80GB
    phases: [{kind: training, duration: 1h}]
    processes: [{command: "python train.py", user: root, memory: 40960, pid_file: job.pid}]
  - model: H100 SXM 80GB
    phases: [{kind: idle, duration: 1h}]
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_conf(d, host):
    return f"""\
ClusterName=gpuwatchtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
GresTypes=gpu
Prolog={d}/prolog.sh
Epilog={d}/epilog.sh
PrologFlags=Alloc
NodeName={host} NodeAddr=127.0.0.1 CPUs=1 RealMemory=500 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=5 State=UP
"""


def wait_for(what, check, timeout, logs=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.2)
    tails = "".join(f"\n--- {p}:\n" + (p.read_text()[-2000:] if p.exists() else "(none)") for p in logs)
    pytest.fail(f"timed out after {timeout} s waiting for {what}{tails}")


def stop(process):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@pytest.fixture(scope="module")
def cluster():
    with tempfile.TemporaryDirectory() as tmp:
        d = pathlib.Path(tmp)
        host = socket.gethostname().split(".")[0]
        for sub in ("state", "spool"):
            (d / sub).mkdir()
        (d / "slurm.conf").write_text(slurm_conf(d, host))
        (d / "gres.conf").write_text("Name=gpu File=/dev/null\nName=gpu File=/dev/zero\n")
        for script in ("prolog", "epilog"):  # the shipped scripts, with the mapping directory of this test
            (d / f"{script}.sh").write_text(f"#!/bin/bash\nGPUWATCH_JOB_MAP_DIR={d}/jobmap "
                                            f"exec {SOURCE}/deploy/slurm/gpuwatch-{script}.sh\n")
            (d / f"{script}.sh").chmod(0o755)
        (d / "scenario.yaml").write_text(SCENARIO)
        env = dict(os.environ, SLURM_CONF=str(d / "slurm.conf"))
        logs = [d / "slurmctld.log", d / "slurmd.log"]
        daemons = [subprocess.Popen(["slurmctld", "-D", "-c", "-i"], env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)]
        try:
            daemons.append(subprocess.Popen(["slurmd", "-D", "-N", host], env=env, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, start_new_session=True))

            def node_idle():
                r = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=env, capture_output=True, text=True, timeout=10)
                return r.returncode == 0 and r.stdout.strip() == "idle"
            wait_for("the node to be idle", node_idle, 30, logs)
            yield {"dir": d, "env": env, "logs": logs}
        finally:
            subprocess.run(["scancel", "--full", "--partition", "debug"], env=env, capture_output=True, timeout=10)
            for p in reversed(daemons):
                stop(p)


def gpuwatch(args, d, timeout=60):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=str(d / "scenario.yaml"), XDG_STATE_HOME=str(d / "state-gw"))
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_a_batch_job_on_the_simulated_gpu_shows_its_job_user_and_step(cluster):
    d, env, logs = cluster["dir"], cluster["env"], cluster["logs"]
    job_script = d / "job.sh"
    # The job's step (srun: step 0) writes its PID where the scenario looks, then runs.
    job_script.write_text(f"#!/bin/bash\nsrun --overlap --gres=gpu:1 sh -c 'echo $$ > {d}/job.pid.tmp && "
                          f"mv {d}/job.pid.tmp {d}/job.pid && exec sleep 60'\n")
    submitted = subprocess.run(["sbatch", "--parsable", "--gres=gpu:1", f"--output={d}/job.out", str(job_script)],
                               env=env, capture_output=True, text=True, timeout=20)
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.strip().split(";")[0]
    pid = int(wait_for("the job's step to start", lambda: (d / "job.pid").exists() and (d / "job.pid").read_text().strip(),
                       30, logs + [d / "job.out"]))
    assert (d / "jobmap" / "0").read_text().split() == [job]  # the prolog: the job's GPU (SLURM_JOB_GPUS=0)

    r = gpuwatch(["status", "--json", "--hpc-job-mapping-dir", str(d / "jobmap")], d)
    assert r.returncode == 0, r.stderr
    gpus = json.loads(r.stdout)["gpus"]
    assert [p["pid"] for p in gpus[0]["processes"]] == [pid] and gpus[1]["processes"] == []
    owner = gpus[0]["processes"][0]["owner"]
    assert owner["slurm_job_id"] == job
    assert owner["slurm_user"] == "root"
    assert owner["slurm_step"] == "0"
    assert owner["summary"] == f"job {job}.0"
    text = gpuwatch(["status", "--hpc-job-mapping-dir", str(d / "jobmap")], d)
    assert f"job {job}.0" in text.stdout, text.stdout

    # The history keeps the job: `report --slurm-job` covers its GPU only.
    db = d / "h.db"
    rec = gpuwatch(["record", "--db", str(db), "--interval", "100ms", "--count", "5",
                    "--hpc-job-mapping-dir", str(d / "jobmap")], d)
    assert rec.returncode == 0, rec.stderr
    report = gpuwatch(["report", "--db", str(db), "--slurm-job", job, "--format", "json"], d)
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert [g["index"] for g in data["gpus"]] == [0]
    assert data["owner"]["users"] == ["root"] and data["owner"]["steps"] == ["0"]
    assert [p["pid"] for p in data["processes"]] == [pid]

    # The job ends: the epilog removes it from the mapping files.
    subprocess.run(["scancel", job], env=env, capture_output=True, timeout=10)
    wait_for("the epilog to remove the mapping file", lambda: not (d / "jobmap" / "0").exists(), 30, logs)
