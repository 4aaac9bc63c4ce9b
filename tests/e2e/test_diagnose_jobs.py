"""Issue 23, one cause per job and hangs by their shape, end to end: `sim record` renders a
scenario through the real sampler into a SQLite history, `diagnose --json` reads it back. The
GPUs of one job are grouped; the cause is named once (cause_gpus and the sentence), the other
GPUs as its consequences, with no finding of their own that contradicts it."""
import json
import os
import subprocess

import pytest

BIN = os.environ["GPUWATCH_BIN"]


def run(args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def findings_of(tmp_path_factory):
    """diagnose --json of a 20-minute recording at 5 s of SCENARIO (each recorded once)."""
    cache = {}

    def diagnose(scenario):
        if scenario not in cache:
            db = tmp_path_factory.mktemp(scenario) / "h.db"
            r = run(["sim", "record", scenario, "--duration", "20m", "--interval", "5s", "--db", str(db)])
            assert r.returncode == 0, r.stderr
            r = run(["diagnose", "--db", str(db), "--since", "all", "--json"])
            assert r.returncode in (0, 1), r.stderr
            cache[scenario] = json.loads(r.stdout)["findings"]
        return cache[scenario]

    return diagnose


def on(findings, kind, gpu):
    return [f for f in findings if f["kind"] == kind and gpu in f["gpus"]]


def listing(findings):
    return [(f["kind"], f["gpus"], f["summary"]) for f in findings]


def test_nccl_hang_names_the_dead_rank_once(findings_of):
    fs = findings_of("nccl_hang")
    hangs = [f for f in fs if f["kind"] == "collective_hang"]
    assert len(hangs) == 1, listing(fs)
    hang = hangs[0]
    assert hang["severity"] == "critical"
    assert hang["gpus"] == [0, 1, 2, 3]
    assert hang["cause_gpus"] == [3]
    assert "GPU 3's rank died" in hang["detail"]
    assert "GPUs 0,1,2 switched together" in hang["detail"]
    assert "GPU 3 dead, GPUs 0,1,2 spin" in hang["summary"]
    # The job, from the recorded command lines (process_commands), not NVML's name alone.
    assert hang["job"]["label"].startswith("torchrun --nproc-per-node 4 train.py")
    # The spinning ranks are the hang's consequences: no finding of their own.
    for gpu in (0, 1, 2):
        for kind in ("stuck_kernel", "launch_bound", "low_utilization"):
            assert on(fs, kind, gpu) == [], (kind, gpu, listing(fs))


def test_uneven_load_names_the_saturated_gpu_and_nobody_is_starved(findings_of):
    fs = findings_of("uneven_load")
    imbalance = [f for f in fs if f["kind"] == "imbalance"]
    assert len(imbalance) == 1, listing(fs)
    assert imbalance[0]["cause_gpus"] == [0]
    assert imbalance[0]["gpus"] == [0, 1, 2, 3]
    assert imbalance[0]["evidence"]["saturated_gpu"] == 0
    assert "GPU 0 is saturated" in imbalance[0]["detail"]
    assert "pipeline_parallel.py" in imbalance[0]["job"]["label"]
    for gpu in (1, 2, 3):
        assert on(fs, "input_starved", gpu) == [], listing(fs)
        assert on(fs, "low_utilization", gpu) == [], listing(fs)


def test_ranks_switching_together_to_a_spin_are_a_hang_whatever_the_memory_traffic(findings_of):
    fs = findings_of("collective_hang")
    hangs = [f for f in fs if f["kind"] == "collective_hang"]
    assert len(hangs) == 1, listing(fs)
    assert hangs[0]["gpus"] == [0, 1, 2, 3]
    assert hangs[0]["cause_gpus"] == []  # every rank alive: no rank to blame
    assert hangs[0]["evidence"]["memory_utilization_ratio"] >= 0.2  # not "near zero"
    assert hangs[0]["severity"] == "critical"  # spinning past the NCCL timeout (10 min)
    assert [f for f in fs if f["kind"] in ("launch_bound", "stuck_kernel")] == [], listing(fs)


def test_a_steady_launch_bound_gpu_is_still_launch_bound(findings_of):
    fs = findings_of("small_kernels")
    assert [f["kind"] for f in fs] == ["launch_bound"], listing(fs)
    assert fs[0]["job"] is None and fs[0]["cause_gpus"] == []  # a per-GPU finding
