"""`gpuwatch run`'s energy (issue 29), end to end on the simulated driver: a training loop with the
Python package's Monitor (step timing, `samples=` per step) on two GPUs, one with the energy
counter (idle, memory held: steady power) and one without it (held at a lowered power cap:
throttled, its energy "estimated"). Everything the summary says is recomputed here, independently,
from the samples the job recorded (gpu_samples) and the steps the Monitor wrote, and must agree
within 1 %: energy per GPU (the counter; the integral of power), the counter against the integral
of power, energy per step and per sample (median, p10, p90), the idle / throttled / warning shares,
cost and CO2 by hour from the configured tables, and the sources named.
"""
import bisect
import json
import math
import os
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml

GPUWATCH = os.environ.get("GPUWATCH_BIN", "gpuwatch")
SOURCE_DIR = Path(os.environ.get("GPUWATCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
GIB = 1 << 30
THROTTLE_MASK = 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80  # sw power cap .. hw power brake: not idle (0x1), not app clocks (0x2)
MAX_GAP_S = 30  # jobs::kMaxIntegrationGapS
STEPS = 40
BATCH = 64

# The training loop: the real Monitor (its native sampling off: GPUWATCH_LIBRARY points nowhere,
# step timing goes on), 30 ms waiting for each batch, 70 ms of "compute" per step.
TRAINING_LOOP = """
import os, sys, time, warnings
warnings.simplefilter("ignore")
import gpuwatch
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(0.8)  # the job's process is seen on both GPUs before the first step

def batches(n):
    for i in range(n):
        time.sleep(0.03)
        yield i

with gpuwatch.Monitor(interval=1.0, jsonl=sys.argv[2]) as monitor:
    for step, batch in enumerate(monitor.track(batches(%d))):
        time.sleep(0.07)
        monitor.step(step, loss=1.0 / (step + 1), samples=%d)
time.sleep(0.6)
""" % (STEPS, BATCH)


def scenario(tmp_path, pid_file):
    process = {"command": "python train.py", "user": "alice", "memory": 61440, "pid_file": str(pid_file)}
    doc = {"name": "energy_job", "description": "idle with memory held (counter), power capped (no counter)",
           "gpus": [
               {"model": "H100 SXM 80GB", "phases": [{"kind": "idle", "duration": "1h"}], "processes": [dict(process)]},
               {"model": "H100 SXM 80GB", "values": {"energy.total": "[N/A]", "power.limit": 500.0,
                                                     "enforced.power.limit": 500.0},
                "phases": [{"kind": "power_capping", "duration": "1h"}], "processes": [dict(process)]},
           ]}
    path = tmp_path / "energy_job.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def trapezoid(rows):
    """Cumulative joules at each (time_s, power_w) row; gaps over MAX_GAP_S not integrated."""
    out, total = [], 0.0
    for i, (t, p) in enumerate(rows):
        if i:
            dt = t - rows[i - 1][0]
            if 0 < dt <= MAX_GAP_S:
                total += 0.5 * (p + rows[i - 1][1]) * dt
        out.append(total)
    return out


def interpolate(times, joules, t):
    if t < times[0] or t > times[-1]:
        return None
    hi = bisect.bisect_right(times, t)
    if hi >= len(times):
        return joules[-1]
    lo = hi - 1
    return joules[lo] + (t - times[lo]) / (times[hi] - times[lo]) * (joules[hi] - joules[lo])


def nearest_rank(values, q):
    values = sorted(values)
    return values[min(max(math.ceil(q * len(values)), 1), len(values)) - 1]


def close(actual, expected, rel=0.01):
    return actual == pytest.approx(expected, rel=rel, abs=1e-9)


def test_run_energy_agrees_with_counter_and_power_integral(tmp_path):
    pid_file, steps_copy, db = tmp_path / "job.pid", tmp_path / "steps.jsonl", tmp_path / "h.db"
    (tmp_path / "train.py").write_text(TRAINING_LOOP)
    prices = [0.10 + 0.01 * h for h in range(24)]
    (tmp_path / "e.yaml").write_text(yaml.safe_dump({"currency": "EUR", "price_per_kwh": prices}))
    (tmp_path / "grid.csv").write_text("hour,gco2_per_kwh\n" + "".join(f"{h},{200 + h}\n" for h in range(24)))
    env = dict(os.environ, TZ="UTC", XDG_CONFIG_HOME=str(tmp_path), PYTHONPATH=str(SOURCE_DIR / "python"), GPUWATCH_LIBRARY=str(tmp_path / "none.so"))
    r = subprocess.run([GPUWATCH, "--simulate", str(scenario(tmp_path, pid_file)), "run", "--db", str(db),
                        "--interval", "200ms", "--energy-config", str(tmp_path / "e.yaml"), "--pue", "1.2",
                        "--carbon-intensity", str(tmp_path / "grid.csv"), "--summary-json", str(tmp_path / "s.json"),
                        "--", sys.executable, str(tmp_path / "train.py"), str(pid_file), str(steps_copy)],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    energy = summary["energy"]
    assert [g["index"] for g in summary["gpus"]] == [0, 1], r.stderr

    # The recorded samples, per GPU index.
    with sqlite3.connect(db) as con:
        index_of = dict(con.execute("SELECT id, gpu_index FROM gpus"))
        samples = {}
        for gpu_id, t, power, counter, util, mem, reasons in con.execute(
                "SELECT gpu_id, time_ms, power_draw_mw, energy_total_mj, utilization_gpu_percent, memory_used_bytes, "
                "clocks_event_reasons_active FROM gpu_samples ORDER BY time_ms"):
            samples.setdefault(index_of[gpu_id], []).append((t / 1000, power, counter, util, mem, reasons))
    s0, s1 = samples[0], samples[1]
    assert all(row[2] is None for row in s1) and all(row[2] is not None for row in s0)

    # Energy per GPU: the counter (GPU 0), the integral of power (GPU 1, "estimated").
    t0 = [row[0] for row in s0]
    cum0 = [(row[2] - s0[0][2]) / 1000 for row in s0]
    power0 = trapezoid([(row[0], row[1] / 1000) for row in s0])
    t1 = [row[0] for row in s1 if row[1] is not None]
    cum1 = trapezoid([(row[0], row[1] / 1000) for row in s1 if row[1] is not None])
    gpus = {g["index"]: g for g in energy["gpus"]}
    assert gpus[0]["source"] == "counter" and gpus[1]["source"] == "estimated" and energy["source"] == "mixed"
    assert close(gpus[0]["joules"], cum0[-1]), (gpus[0], cum0[-1])
    assert close(power0[-1], cum0[-1]), "the counter and the integral of power disagree on the simulator"
    assert close(gpus[1]["joules"], cum1[-1]), (gpus[1], cum1[-1])
    assert close(energy["joules"], cum0[-1] + cum1[-1])
    assert close(summary["energy_wh"] * 3600, energy["joules"])

    # Energy per step and per sample, from the Monitor's own rows.
    rows = [json.loads(line) for line in steps_copy.read_text().splitlines() if line.strip()]
    assert len(rows) == STEPS and all(row["samples"] == BATCH for row in rows)
    per_step, short = [], 0
    for row in rows:
        start, end = row["time"] - row["data_wait_s"] - row["compute_s"], row["time"]
        parts = [interpolate(t, c, end) - interpolate(t, c, start) for t, c in ((t0, cum0), (t1, cum1))
                 if interpolate(t, c, start) is not None and interpolate(t, c, end) is not None]
        assert len(parts) == 2, "a step outside the sampled range"
        per_step.append(sum(parts))
        short += (end - start) < 0.1
    steps = energy["steps"]
    assert steps["measured"] == STEPS and steps["outside_sampled_range"] == 0
    assert steps["shorter_than_counter_period"] == short
    assert steps["shorter_than_sampling_interval"] == STEPS  # ~100 ms steps, 200 ms samples
    for key, q in (("median", 0.5), ("p10", 0.1), ("p90", 0.9)):
        assert close(steps["joules_per_step"][key], nearest_rank(per_step, q)), key
        assert close(steps["joules_per_sample"][key], nearest_rank(per_step, q) / BATCH), key
    assert steps["with_samples"] == STEPS

    # The waste split and the cost / CO2 by hour (UTC), interval by interval, the closing sample's state.
    warnings_ = [(f["start"], f["end"], f["gpus"]) for f in summary["findings"] if f["severity"] in ("warning", "critical")]
    assert any(f["kind"] == "input_starved" and f["severity"] == "warning" for f in summary["findings"])
    idle = throttled = finding = total = cost = co2 = 0.0
    hours = set()
    for index, t, cum, rows_ in ((0, t0, cum0, s0), (1, t1, cum1, [row for row in s1 if row[1] is not None])):
        for k in range(1, len(t)):
            joules = cum[k] - cum[k - 1]
            if joules <= 0:
                continue
            mid = (t[k - 1] + t[k]) / 2
            _, _, _, util, mem, reasons = rows_[k]
            total += joules
            idle += joules if util is not None and util < 0.5 and mem is not None and mem > GIB else 0
            throttled += joules if reasons is not None and reasons & THROTTLE_MASK else 0
            finding += joules if any(start <= mid <= end and index in g for start, end, g in warnings_) else 0
            hour = datetime.fromtimestamp(mid, timezone.utc).hour
            hours.add(hour)
            cost += joules / 3.6e6 * 1.2 * prices[hour]
            co2 += joules / 3.6e6 * 1.2 * (200 + hour)
    waste = energy["waste"]
    assert close(waste["joules"], total)
    for key, expected in (("idle_memory_held_share", idle / total), ("throttled_share", throttled / total),
                          ("finding_active_share", finding / total)):
        assert waste[key] == pytest.approx(expected, abs=0.01), key
    assert 0.05 < waste["idle_memory_held_share"] < 0.5  # GPU 0 idle at ~70 W beside ~450 W
    assert waste["throttled_share"] > 0.3 and waste["finding_active_share"] > 0.3
    assert close(energy["cost"], cost) and energy["currency"] == "EUR"
    assert close(energy["co2_g"], co2)
    by_hour = lambda fmt: ", ".join(fmt(h) for h in sorted(hours))
    assert energy["sources"] == [
        "price from --energy-config e.yaml by hour: " + by_hour(lambda h: f"hour {h} {prices[h]:.4g} EUR/kWh"),
        "PUE 1.2 from --pue",
        "grid from table grid.csv by hour: " + by_hour(lambda h: f"hour {h} {200 + h} gCO2/kWh"),
        "currency EUR from --energy-config e.yaml"]
    assert energy["hints"] == []

    # The text says the same.
    err = r.stderr
    assert "energy per GPU: GPU 0" in err and "(counter)" in err and "(estimated: integrated power)" in err
    assert f"over {STEPS} steps; per sample median" in err
    assert f"{STEPS} steps shorter than the sampling interval" in err
    assert f"{100 * waste['idle_memory_held_share']:.1f} % idle with memory held" in err
    assert f"{100 * waste['throttled_share']:.1f} % throttled" in err
    assert "PUE 1.2 from --pue" in err and "grid from table grid.csv by hour: hour" in err
    assert f"cost {energy['cost']:.4g} EUR, CO2 {energy['co2_g']:.4g} g" in err

    # history --jobs and report --job show what the job stored.
    jobs = subprocess.run([GPUWATCH, "history", "--db", str(db), "--jobs", "--format", "csv"], capture_output=True,
                          text=True, timeout=30)
    assert jobs.returncode == 0, jobs.stderr
    header, row = jobs.stdout.splitlines()[0].split(","), jobs.stdout.splitlines()[1].split(",")
    assert header[7:10] == ["cost", "currency", "co2_g"]
    # The GPUs cell "0,1" holds a comma: count from the end (user, name, command have none here).
    assert close(float(row[-6]), energy["cost"]) and row[-5] == "EUR" and close(float(row[-4]), energy["co2_g"]), row
    report = subprocess.run([GPUWATCH, "report", "--db", str(db), "--job", str(summary["id"])], capture_output=True,
                            text=True, timeout=60, env=env)
    assert report.returncode == 0, report.stderr
    assert f"cost {energy['cost']:.4g} EUR, CO2 {energy['co2_g']:.4g} g (price from --energy-config e.yaml" in report.stdout
    assert "energy per step: median" in report.stdout and "% idle with memory held" in report.stdout


def test_without_rates_cost_and_co2_are_omitted_with_a_hint(tmp_path):
    pid_file = tmp_path / "job.pid"
    r = subprocess.run([GPUWATCH, "--simulate", str(scenario(tmp_path, pid_file)), "run", "--no-record",
                        "--interval", "200ms", "--summary-json", str(tmp_path / "s.json"),
                        "--", "sh", "-c", f"echo $$ > {pid_file}; sleep 1.5"],
                       capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))  # no energy.yaml there
    assert r.returncode == 0, r.stderr
    energy = json.loads((tmp_path / "s.json").read_text())["energy"]
    assert energy["joules"] > 0
    assert energy["cost"] is None and energy["co2_g"] is None and energy["sources"] == []
    assert len(energy["hints"]) == 2
    assert "cost: no price per kWh configured (--price-per-kwh or --energy-config FILE" in r.stderr
    assert "CO2: no grid intensity configured" in r.stderr
    assert "cost " not in r.stderr.replace("cost: no price", "")


@pytest.mark.parametrize("flags,message", [(["--pue", "0.5"], "--pue"),
                                           (["--price-per-kwh", "/nonexistent.csv"], "neither a number nor a readable table")])
def test_bad_rates_are_usage_errors_before_the_job_runs(tmp_path, flags, message):
    marker = tmp_path / "ran"
    r = subprocess.run([GPUWATCH, "--simulate", "idle", "run", "--no-record", *flags, "--", "touch", str(marker)],
                       capture_output=True, text=True, timeout=30, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert not marker.exists()


def test_the_default_energy_config_is_read_and_flags_override_it(tmp_path):
    pid_file, config = tmp_path / "job.pid", tmp_path / "gpuwatch" / "energy.yaml"
    config.parent.mkdir()
    config.write_text("price_per_kwh: 0.25\ncarbon_intensity: 300\n")
    r = subprocess.run([GPUWATCH, "--simulate", str(scenario(tmp_path, pid_file)), "run", "--no-record",
                        "--interval", "200ms", "--carbon-intensity", "100", "--summary-json", str(tmp_path / "s.json"),
                        "--", "sh", "-c", f"echo $$ > {pid_file}; sleep 1.5"],
                       capture_output=True, text=True, timeout=30, env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    energy = json.loads((tmp_path / "s.json").read_text())["energy"]
    assert energy["sources"] == [f"price 0.25 USD/kWh from {config}",
                                 "PUE 1 (not configured: the GPUs' own energy, no facility overhead)",
                                 "grid 100 gCO2/kWh from --carbon-intensity"]
    kwh = energy["joules"] / 3.6e6
    assert close(energy["cost"], kwh * 0.25) and close(energy["co2_g"], kwh * 100)
