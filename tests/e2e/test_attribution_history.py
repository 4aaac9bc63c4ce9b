"""`history` and `report` per Slurm job (issue 15), end to end on the simulated driver: a recorder
keeps the owner of each GPU process (container, pod, Slurm job) beside the samples, and
`history --slurm-job J` / `report --slurm-job J` read back that job's GPUs and time window only.

The node: three GPUs. Job 4821 runs PID 4001 on GPU 0 (its cgroup says so) and PID 4002 on GPU 1
(dcgm-exporter's mapping file says so); job 9999 holds GPU 2 (mapping file). The processes' /proc
entries are a fake tree (--proc-root), as in test_attribution.py. The history is recorded twice:
first with attribution off (the job "had not started"), then with it on, so the job's window is
the second recording only."""
import json
import os
import pathlib
import sqlite3
import subprocess
import tempfile
import time
from datetime import datetime

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")

SCENARIO = """\
name: attribution_history_e2e
description: Slurm job 4821 on GPUs 0 and 1, job 9999 on GPU 2.
gpus:
  - model: H100 SXM 80GB
    phases: [{kind: training, duration: 1h}]
    processes: [{command: "python train.py", user: alice, memory: 40960, pid: 4001}]
  - model: H100 SXM 80GB
    phases: [{kind: training, duration: 1h}]
    processes: [{command: "python train.py --rank 1", user: alice, memory: 40960, pid: 4002}]
  - model: H100 SXM 80GB
    phases: [{kind: training, duration: 1h}]
    processes: [{command: "python other.py", user: bob, memory: 10240, pid: 4003}]
"""
PROCESSES = {
    4001: "0::/system.slice/slurmstepd.scope/job_4821/step_0/user/task_0\n",  # Slurm cgroup v2
    4002: "0::/user.slice/user-1000.slice/session-3.scope\n",                 # nothing: the mapping file
    4003: "0::/user.slice/user-1001.slice/session-4.scope\n",
}


def run(args, env, timeout=60):
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)


def ms(iso):
    return round(datetime.fromisoformat(iso).timestamp() * 1000)


def node(tmp):
    """The scenario, a fake /proc of its processes and a job-mapping directory under TMP: the env."""
    (tmp / "scenario.yaml").write_text(SCENARIO)
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=str(tmp / "scenario.yaml"), XDG_STATE_HOME=str(tmp / "state"))
    for pid, cgroup in PROCESSES.items():
        d = tmp / "proc" / str(pid)
        d.mkdir(parents=True)
        (d / "cgroup").write_text(cgroup)
        (d / "environ").write_bytes(b"PATH=/usr/bin\0")
        (d / "stat").write_text(f"{pid} (python) S 1 1 1 0 -1 0 0 0 0 0 5 3 0 0 20 0 1 0 {pid * 10} 1 1\n")
        (d / "status").write_text(f"Name:\tpython\nNSpid:\t{pid}\n")
    (tmp / "jobmap").mkdir()
    (tmp / "jobmap" / "1").write_text("4821\n")
    (tmp / "jobmap" / "2").write_text("9999\n")
    return env


@pytest.fixture(scope="module")
def recorded():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        env = node(tmp)
        db = tmp / "h.db"
        before = run(["record", "--db", str(db), "--interval", "100ms", "--count", "4", "--no-attribution"], env)
        assert before.returncode == 0, before.stderr
        during = run(["record", "--db", str(db), "--interval", "100ms", "--count", "8", "--proc-root",
                      str(tmp / "proc"), "--hpc-job-mapping-dir", str(tmp / "jobmap")], env)
        assert during.returncode == 0, during.stderr
        yield env, db


def history(env, db, *args):
    r = run(["history", "--db", str(db), *args], env)
    return r


def test_the_recorder_keeps_one_span_per_process_and_gpu(recorded):
    env, db = recorded
    with sqlite3.connect(str(db)) as con:
        rows = con.execute("SELECT gpu_index, pid, slurm_job, slurm_step, pod_name, first_ms, last_ms "
                           "FROM process_owners ORDER BY gpu_index, first_ms").fetchall()
        second_start = con.execute("SELECT min(time_ms) FROM gpu_samples WHERE time_ms > "
                                   "(SELECT max(time_ms) FROM gpu_samples) - 1500").fetchone()[0]
    assert {(g, pid, job) for g, pid, job, *_ in rows} == {(0, 4001, "4821"), (1, 4002, "4821"), (2, 4003, "9999")}
    assert all(pod is None for *_, pod, _, _ in rows)  # not a pod: NULL, never ""
    assert [step for g, _, _, step, *_ in rows if g == 0] == ["0"]  # the cgroup's step
    # The spans are of the second recording only (the first had attribution off), a few samples long.
    assert all(first >= second_start and last > first for *_, first, last in rows)
    assert len(rows) == 3, rows


def test_history_slurm_job_shows_its_gpus_and_window_only(recorded):
    env, db = recorded
    everything = history(env, db, "--since", "all", "--format", "jsonl")
    assert everything.returncode == 0, everything.stderr
    all_rows = [json.loads(line) for line in everything.stdout.splitlines()]
    assert {row["index"] for row in all_rows} == {0, 1, 2}
    assert len(all_rows) == 3 * 12  # both recordings

    h = history(env, db, "--slurm-job", "4821", "--format", "jsonl")
    assert h.returncode == 0, h.stderr
    assert "Slurm job 4821: GPUs 0,1 (2 processes)" in h.stderr
    rows = [json.loads(line) for line in h.stdout.splitlines()]
    assert {row["index"] for row in rows} == {0, 1}
    first_of_job = min(ms(row["time"]) for row in rows)
    assert first_of_job > min(ms(row["time"]) for row in all_rows)  # not the first recording's samples
    assert 2 * 6 <= len(rows) <= 2 * 8, len(rows)  # the second recording (its first ticks may precede the lookup)

    procs = history(env, db, "--slurm-job", "4821", "--processes", "--format", "jsonl")
    assert procs.returncode == 0, procs.stderr
    assert sorted((p["gpu_index"], p["pid"]) for p in map(json.loads, procs.stdout.splitlines())) == [(0, 4001), (1, 4002)]

    other = history(env, db, "--slurm-job", "9999", "--format", "jsonl")
    assert other.returncode == 0, other.stderr
    assert {json.loads(line)["index"] for line in other.stdout.splitlines()} == {2}


def test_report_slurm_job_covers_its_gpus_and_window(recorded):
    env, db = recorded
    r = run(["report", "--db", str(db), "--slurm-job", "4821", "--format", "json"], env)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    owner = report["owner"]
    assert owner["kind"] == "slurm_job" and owner["title"] == "Slurm job 4821"
    assert [g["index"] for g in owner["gpus"]] == [0, 1] and all(g["uuid"].startswith("GPU-") for g in owner["gpus"])
    assert sorted((p["gpu"], p["pid"]) for p in owner["processes"]) == [(0, 4001), (1, 4002)]
    assert owner["steps"] == ["0"]
    assert [g["index"] for g in report["gpus"]] == [0, 1]
    assert sorted(p["pid"] for p in report["processes"]) == [4001, 4002]
    assert ms(report["since"]) == owner["first_ms"] and ms(report["until"]) == owner["last_ms"]
    for g in report["gpus"]:
        assert owner["first_ms"] <= ms(g["first_sample"]) <= ms(g["last_sample"]) <= owner["last_ms"]
        assert 5 <= g["samples"] <= 8
    text = run(["report", "--db", str(db), "--slurm-job", "4821"], env)
    assert text.returncode == 0 and "Slurm job 4821 (step 0): GPUs 0, 1 (2 processes)" in text.stdout, text.stdout
    html = pathlib.Path(db).with_name("job.html")
    assert run(["report", "--db", str(db), "--slurm-job", "4821", "-o", str(html)], env).returncode == 0
    assert 'id="job-boundaries"' in html.read_text()  # the charts mark the job's start and end
    # --job with no `gpuwatch run` job of that id is the Slurm job of that id, and says so.
    by_job = run(["report", "--db", str(db), "--job", "4821", "--format", "json"], env)
    assert by_job.returncode == 0, by_job.stderr
    assert "reporting Slurm job 4821" in by_job.stderr
    assert json.loads(by_job.stdout)["owner"] == owner
    none = run(["report", "--db", str(db), "--job", "77"], env)
    assert none.returncode == 2 and "neither a `gpuwatch run` job" in none.stderr, none.stderr


def test_report_slurm_job_gives_its_energy_cost_and_co2(recorded):
    """issue 29: a Slurm job's energy from the history, each GPU's counter over the job's own spans,
    with its cost and CO2 at the rates given and where each came from."""
    env, db = recorded
    r = run(["report", "--db", str(db), "--slurm-job", "4821", "--format", "json", "--price-per-kwh", "0.30",
             "--carbon-intensity", "400", "--currency", "EUR"], env)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    owner, energy = report["owner"], report["owner_energy"]
    assert energy["owner"] == "Slurm job 4821" and energy["source"] == "counter"
    # Expected: the energy counter's rise on GPUs 0 and 1 between the job's first and last sample.
    con = sqlite3.connect(db)
    expected = {}
    for index in (0, 1):
        rows = con.execute("SELECT s.energy_total_mj / 1000.0 FROM gpu_samples s JOIN gpus g ON g.id = s.gpu_id "
                           "WHERE g.gpu_index = ? AND s.time_ms BETWEEN ? AND ? AND s.energy_total_mj IS NOT NULL "
                           "ORDER BY s.time_ms", (index, owner["first_ms"], owner["last_ms"])).fetchall()
        expected[index] = rows[-1][0] - rows[0][0]
    con.close()
    assert {g["index"]: round(g["joules"], 3) for g in energy["gpus"]} == {i: round(j, 3) for i, j in expected.items()}
    assert 2 not in {g["index"] for g in energy["gpus"]}  # job 9999's GPU is not this job's
    total = sum(expected.values())
    assert energy["joules"] == pytest.approx(total, rel=1e-9) and total > 0
    assert energy["cost"] == pytest.approx(total / 3.6e6 * 0.30, rel=1e-6) and energy["currency"] == "EUR"
    assert energy["co2_g"] == pytest.approx(total / 3.6e6 * 400, rel=1e-6)
    assert any("--price-per-kwh" in s for s in energy["sources"]), energy["sources"]
    text = run(["report", "--db", str(db), "--slurm-job", "4821", "--price-per-kwh", "0.30"], env)
    assert text.returncode == 0 and "Energy of Slurm job 4821:" in text.stdout, text.stdout
    bad = run(["report", "--db", str(db), "--slurm-job", "4821", "--pue", "0.5"], env)
    assert bad.returncode == 2 and "pue" in bad.stderr.lower(), bad.stderr


def test_report_slurm_job_splits_a_gpu_it_shared_with_another_job(recorded, tmp_path):
    """issue 29: while another Slurm job held GPU 0 too, each counts half of its energy (an even
    split: no per-process utilization is recorded), so the two add up to the GPU's; the report says so."""
    env, db = recorded
    shared = tmp_path / "shared.db"
    source, copy = sqlite3.connect(db), sqlite3.connect(shared)
    source.backup(copy)
    source.close()
    key, uuid, index, first, last = copy.execute(
        "SELECT gpu_key, gpu_uuid, gpu_index, MIN(first_ms), MAX(last_ms) FROM process_owners "
        "WHERE slurm_job = '4821' AND gpu_index = 0").fetchone()
    copy.execute("INSERT INTO process_owners (gpu_key, gpu_uuid, gpu_index, pid, first_ms, last_ms, slurm_job) "
                 "VALUES (?, ?, ?, 77777, ?, ?, '5555')", (key, uuid, index, first, last))
    copy.commit()
    copy.close()
    args = ["--slurm-job", "4821", "--format", "json"]
    alone = json.loads(run(["report", "--db", str(db)] + args, env).stdout)["owner_energy"]
    r = run(["report", "--db", str(shared)] + args, env)
    assert r.returncode == 0, r.stderr
    split = json.loads(r.stdout)["owner_energy"]
    by_gpu = lambda e: {g["index"]: g["joules"] for g in e["gpus"]}
    assert by_gpu(split)[0] == pytest.approx(by_gpu(alone)[0] / 2, rel=1e-6) and by_gpu(alone)[0] > 0
    assert by_gpu(split)[1] == pytest.approx(by_gpu(alone)[1], rel=1e-9)  # GPU 1 was the job's alone
    assert alone["shared_gpus"] == []
    [gpu0] = split["shared_gpus"]
    assert gpu0["gpu"] == 0 and gpu0["most_owners"] == 2 and gpu0["seconds"] > 0
    other = json.loads(run(["report", "--db", str(shared), "--slurm-job", "5555", "--format", "json"], env).stdout)
    assert by_gpu(other["owner_energy"])[0] == pytest.approx(by_gpu(split)[0], rel=1e-6)  # the other half
    text = run(["report", "--db", str(shared), "--slurm-job", "4821"], env).stdout
    assert "GPU 0 was shared with other owners for" in text and "split evenly" in text, text


def test_owner_options_say_what_is_wrong(recorded):
    env, db = recorded
    missing = run(["report", "--db", str(db), "--slurm-job", "1"], env)
    assert missing.returncode == 2 and "no process of Slurm job 1 in" in missing.stderr, missing.stderr
    no_pod = history(env, db, "--pod", "ml/trainer-0")
    assert no_pod.returncode == 2 and "no process of pod ml/trainer-0" in no_pod.stderr, no_pod.stderr
    both = history(env, db, "--slurm-job", "4821", "--pod", "x")
    assert both.returncode == 2 and "give one of them" in both.stderr
    ranged = run(["report", "--db", str(db), "--slurm-job", "4821", "--since", "1h"], env)
    assert ranged.returncode == 2 and "drop --since/--until" in ranged.stderr
    bad = history(env, db, "--pod", "a/b/c")
    assert bad.returncode == 2 and "--pod takes NAME or NAMESPACE/NAME" in bad.stderr, bad.stderr


# serve records owners as record does (its recorder shares src/recorder/owner_spans).
def test_serve_records_owners_for_history_slurm_job(tmp_path):
    env = node(tmp_path)
    db = tmp_path / "serve.db"
    serve = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "127.0.0.1:0", "--interval", "100ms",
                              "--db", str(db), "--proc-root", str(tmp_path / "proc"), "--hpc-job-mapping-dir",
                              str(tmp_path / "jobmap")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "http://127.0.0.1:" in serve.stdout.readline()
        deadline = time.monotonic() + 20
        rows = []
        while time.monotonic() < deadline and len(rows) < 3:
            time.sleep(0.2)
            if db.exists():
                try:
                    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                        rows = con.execute("SELECT gpu_index, pid, slurm_job FROM process_owners").fetchall()
                except sqlite3.OperationalError:
                    rows = []  # not created yet
    finally:
        serve.terminate()
        _, err = serve.communicate(timeout=10)
    assert serve.returncode == 0, err
    assert sorted(rows) == [(0, 4001, "4821"), (1, 4002, "4821"), (2, 4003, "9999")], rows
    h = history(env, db, "--slurm-job", "4821", "--format", "jsonl")
    assert h.returncode == 0, h.stderr
    assert "Slurm job 4821: GPUs 0,1 (2 processes)" in h.stderr
    assert {json.loads(line)["index"] for line in h.stdout.splitlines()} == {0, 1}
