"""Issue 29 on the dashboard's backend: `gpuwatch serve` with the energy flags of `run`
(--price-per-kwh, --currency, --pue, --carbon-intensity, --energy-config) answers
GET /api/v1/energy?seconds=N[&gpu=I] from the same rows as /api/v1/history (the energy counter's
rise over those rows, priced at serve's rates), and GET /api/v1/jobs from its database (the jobs
`gpuwatch run` recorded, as `gpuwatch history --jobs --format json` lists them). docs/api.md.

On a simulated node of two H100s with the energy counter: GPU 0 trains, GPU 1 is held at a
lowered power cap (throttled). A job is recorded by `gpuwatch run` into the database before serve
starts on it."""
import json
import subprocess
import time

import pytest
import yaml

from test_serve import BIN, Server, sim_env

PRICE, CARBON = 0.30, 400.0
KWH = 3.6e6


def scenario(directory, pid_file):
    process = {"command": "python train.py", "user": "alice", "memory": 61440, "pid_file": str(pid_file)}
    doc = {"name": "serve_energy", "description": "one GPU training, one power capped; both with the energy counter",
           "gpus": [
               {"model": "H100 SXM 80GB", "phases": [{"kind": "training", "duration": "1h"}],
                "processes": [dict(process)]},
               {"model": "H100 SXM 80GB", "values": {"power.limit": 500.0, "enforced.power.limit": 500.0},
                "phases": [{"kind": "power_capping", "duration": "1h"}], "processes": [dict(process)]},
           ]}
    path = directory / "serve_energy.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def env_for(path, config_home):
    env = sim_env(path)
    env["XDG_CONFIG_HOME"] = str(config_home)  # no developer's energy.yaml
    return env


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    directory = tmp_path_factory.mktemp("serve_energy")
    pid_file, db = directory / "job.pid", directory / "history.db"
    path = scenario(directory, pid_file)
    env = env_for(path, directory)
    # The job, recorded beforehand: its process (the shell, then sleep) is seen on both GPUs.
    job = subprocess.run([BIN, "--simulate", str(path), "run", "--db", str(db), "--interval", "200ms", "--name", "sleeper",
                          "--price-per-kwh", "0.30", "--currency", "EUR", "--no-host",
                          "--", "sh", "-c", f"echo $$ > {pid_file}; exec sleep 2"],
                         env=env, capture_output=True, text=True, timeout=30)
    assert job.returncode == 0, job.stderr
    with Server(env, "--db", str(db), "--interval", "200ms", "--no-host", "--price-per-kwh", "0.30", "--currency", "EUR",
                "--carbon-intensity", "400") as server:
        server.wait_ready()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:  # 3 s of samples of each GPU in the ring (no ?seconds=: the ring alone)
            ring = server.get_json("/api/v1/history")
            if all(len(g["timestamp_s"]) >= 16 for g in ring["gpus"]):
                break
            time.sleep(0.2)
        else:
            pytest.fail("the ring never held 3 s of samples")
        yield {"server": server, "env": env, "path": path, "directory": directory}
        rc, _, err = server.stop()
        assert rc == 0, err


def counter_rise(history, since_s, until_s):
    """{gpu: the energy counter's rise over its history rows in [SINCE_S, UNTIL_S]} (ms-rounded times)."""
    rises = {}
    for gpu in history["gpus"]:
        values = [j for t, j in zip(gpu["timestamp_s"], gpu["energy_total_j"])
                  if since_s - 0.0005 <= t <= until_s + 0.0005 and j is not None]
        if len(values) >= 2:
            rises[gpu["index"]] = values[-1] - values[0]
    return rises


def test_energy_is_the_counters_rise_over_the_history_rows_priced_at_serves_rates(node):
    server = node["server"]
    answer = server.get_json("/api/v1/energy?seconds=2")  # the ring reaches back 2 s
    history = server.get_json("/api/v1/history?seconds=10")  # the same ring rows, and a few more
    assert answer["findings_considered"] is False
    assert answer["range"]["seconds"] == 2 and answer["origin"]["source"] == "memory"
    assert answer["range"]["until_s"] - answer["range"]["since_s"] == pytest.approx(2, abs=0.01)
    energy = answer["energy"]
    rises = counter_rise(history, answer["range"]["since_s"], answer["range"]["until_s"])
    assert sorted(rises) == [0, 1], history["gpus"]
    by_gpu = {g["index"]: g for g in energy["gpus"]}
    assert sorted(by_gpu) == [0, 1]
    for index, rise in rises.items():
        assert by_gpu[index]["source"] == "counter"
        assert by_gpu[index]["joules"] == pytest.approx(rise, rel=0.01), index
        assert rise > 400, "a training H100 uses hundreds of watts"
    assert energy["source"] == "counter"
    joules = energy["joules"]
    assert joules == pytest.approx(sum(rises.values()), rel=0.01)
    assert energy["cost"] == pytest.approx(joules / KWH * PRICE, rel=1e-6)
    assert energy["co2_g"] == pytest.approx(joules / KWH * CARBON, rel=1e-6)
    assert energy["currency"] == "EUR"
    assert any("--price-per-kwh" in s for s in energy["sources"]), energy["sources"]
    assert any("--carbon-intensity" in s for s in energy["sources"]), energy["sources"]
    assert energy["hints"] == []
    waste = energy["waste"]
    assert waste["finding_active_joules"] is None and waste["finding_active_share"] is None  # not computed, never 0
    assert 0 < waste["throttled_share"] < 1  # GPU 1 is power capped, GPU 0 is not


def test_one_gpu_alone_and_its_throttling(node):
    server = node["server"]
    capped = server.get_json("/api/v1/energy?seconds=2&gpu=1")["energy"]
    assert [g["index"] for g in capped["gpus"]] == [1]
    assert capped["waste"]["throttled_share"] > 0.9, capped["waste"]
    training = server.get_json("/api/v1/energy?seconds=2&gpu=0")["energy"]
    assert [g["index"] for g in training["gpus"]] == [0]
    assert training["waste"]["throttled_share"] < 0.1, training["waste"]
    # Without ?seconds=: what the ring holds.
    everything = server.get_json("/api/v1/energy")
    assert everything["range"]["seconds"] is None and everything["origin"]["source"] == "memory"
    assert everything["energy"]["joules"] > 0


def test_a_window_from_before_serve_started_joins_the_stores_rows_as_history_does(node):
    """The job `run` recorded a moment before serve started is in the database, not in the ring."""
    server = node["server"]
    ring_start = min(g["timestamp_s"][0] for g in server.get_json("/api/v1/history")["gpus"])
    answer = server.get_json("/api/v1/energy?seconds=60")
    history = server.get_json("/api/v1/history?seconds=60")
    assert answer["origin"]["source"] == history["source"] == "store"
    assert answer["origin"]["resolution_s"] == history["resolution_seconds"]
    assert answer["range"]["first_sample_s"] < ring_start - 0.5  # the job's samples
    assert answer["energy"]["joules"] > server.get_json("/api/v1/energy")["energy"]["joules"]


@pytest.mark.parametrize("query, status, words", [
    ("gpu=99", 400, "no GPU 99 (2 GPUs)"),
    ("seconds=abc", 400, "seconds must be a positive number"),
    ("seconds=-1", 400, "seconds must be a positive number"),
])
def test_a_bad_query_is_a_400_as_for_history(node, query, status, words):
    code, content_type, body = node["server"].get("/api/v1/energy?" + query)
    assert code == status, body
    assert content_type.startswith("application/json")
    assert words in json.loads(body)["error"]
    assert json.loads(node["server"].get("/api/v1/history?" + query)[2])["error"] == json.loads(body)["error"]


def test_the_jobs_run_recorded_with_their_energy(node):
    server = node["server"]
    status, _, body = server.get("/api/v1/jobs")
    assert status == 200, body
    answer = json.loads(body)
    assert answer["limit"] == 50
    jobs = answer["jobs"]
    assert [j["name"] for j in jobs] == ["sleeper"], jobs
    job = jobs[0]
    assert job["command"][0] == "sh" and job["exit_status"] == 0 and job["end_ms"] > job["start_ms"]
    assert [g["index"] for g in job["gpus"]] == [0, 1]
    energy = job["summary"]["energy"]
    assert energy["joules"] > 0 and energy["source"] == "counter"
    assert energy["cost"] == pytest.approx(energy["joules"] / KWH * PRICE, rel=1e-6) and energy["currency"] == "EUR"
    assert job["summary"]["energy_wh"] == pytest.approx(energy["joules"] / 3600, rel=0.01)
    # The same list as `gpuwatch history --jobs --format json` (serve's own file).
    listed = subprocess.run([BIN, "history", "--db", str(node["directory"] / "history.db"), "--jobs", "--format", "json"],
                            capture_output=True, text=True, timeout=30, env=node["env"])
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == jobs
    assert server.get_json("/api/v1/jobs?limit=1")["limit"] == 1
    for bad in ("0", "1001", "ten"):
        code, _, body = server.get("/api/v1/jobs?limit=" + bad)
        assert code == 400 and "limit must be" in json.loads(body)["error"], body


def test_without_rates_or_database(node):
    with Server(node["env"], "--no-record", "--interval", "200ms", "--no-host") as server:
        server.wait_ready()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            energy = server.get_json("/api/v1/energy?seconds=10")["energy"]
            if energy:
                break
            time.sleep(0.2)
        assert energy and energy["joules"] > 0
        assert energy["cost"] is None and energy["co2_g"] is None and energy["currency"] is None
        assert any("--price-per-kwh" in h for h in energy["hints"]) and any("--carbon-intensity" in h for h in energy["hints"])
        status, _, body = server.get("/api/v1/jobs")
        unrecorded = json.loads(body)
        assert status == 200 and unrecorded["jobs"] is None and unrecorded["recording"] is False, body
        assert "no history database" in unrecorded["reason"], body
        rc, _, err = server.stop()
        assert rc == 0, err


def test_a_bad_rate_is_a_usage_error_at_start(node):
    out = subprocess.run([BIN, "--simulate", str(node["path"]), "serve", "--listen", "127.0.0.1:0", "--no-record", "--pue", "0.5"],
                         env=node["env"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2, out.stderr
    assert "--pue" in out.stderr and "listening" not in out.stdout
