"""Issue 24: the simulator's clock behaves like the driver's, and gpuwatch reads the sample buffer.

A data-loader stall of 0.7 s busy / 0.3 s idle (a 1 s cycle):
  - recorded by `sim record` at 1 s and at 10 s, whatever the phase between poller and stall,
    averages about 70 % in utilization.gpu (no aliasing: the driver's reading is the busy share of
    its last sample period, and sim record's poller is never in a fixed phase with the stall);
  - each reading is the busy share of the model's sample period (1/6 s on an H100, 1 s on a
    GeForce RTX 4090), checked with Debian's pynvml on the simulated driver at chosen instants;
  - pynvml's nvmlDeviceGetSamples returns the samples whose summary gpuwatch recorded
    (utilization.gpu.idle_share and .idle_gaps of every row);
  - it is diagnosed as input_starved from the sample buffer: sim record -> SQLite -> diagnose.
(Live in serve: test_sample_buffer_serve.py.)"""
import json
import math
import os
import sqlite3
import subprocess
import textwrap

import pytest

BIN = os.environ["GPUWATCH_BIN"]
DRIVER_DIR = os.environ.get("GPUWATCH_SIM_DRIVER_DIR", "")
HAS_DRIVER = os.path.exists(os.path.join(DRIVER_DIR, "libnvidia-ml.so.1"))

BUSY_S, IDLE_S = 0.7, 0.3


def scenario(tmp_path, offset_s=0.0, noise=None, models=("H100 SXM 80GB",)):
    """One GPU per model starving in 0.7 s / 0.3 s cycles, OFFSET_S after scenario time 0."""
    gpus = ""
    for model in models:
        gpus += textwrap.dedent(f"""\
          - model: {model}
            {'noise: ' + str(noise) if noise is not None else ''}
            phases:
              - {{kind: idle, duration: {offset_s}}}
              - {{kind: dataloader_starvation, duration: 3h, busy: {BUSY_S}, idle: {IDLE_S}, ramp: 0}}
            processes:
              - {{command: "python train.py --num-workers 1", user: carol, memory: 30720}}
        """)
    path = tmp_path / f"starve_{offset_s}.yaml"
    path.write_text("name: starve\ngpus:\n" + textwrap.indent(gpus, "  "))
    return path


def sim_record(path, db, duration, interval):
    r = subprocess.run([BIN, "sim", "record", str(path), "--duration", duration, "--interval", interval, "--db", str(db)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT time_ms, utilization_gpu_percent, utilization_gpu_idle_percent, "
                           "utilization_gpu_idle_gaps FROM gpu_samples ORDER BY time_ms").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("interval,duration,tolerance", [("1s", "30m", 3.0), ("10s", "2h", 4.0)])
@pytest.mark.parametrize("offset_s", [0.0, 0.25, 0.5, 0.75])
def test_starvation_averages_seventy_percent_whatever_the_phase(tmp_path, interval, duration, tolerance, offset_s):
    rows = sim_record(scenario(tmp_path, offset_s), tmp_path / "s.db", duration, interval)
    mean = sum(r[1] for r in rows) / len(rows)
    # An instantaneous reading on a fixed 1 s / 10 s grid sees one phase of the cycle for ever:
    # 100 % (or 0 %) on every sample.
    assert abs(mean - 70.0) <= tolerance, f"{interval}, offset {offset_s}: mean utilization {mean:.1f} %"
    assert len({r[1] for r in rows}) > 2, "the readings move with the poller's phase"
    # The sample buffer: every row after the first has its summary; about one gap a second.
    summarised = [r for r in rows[1:] if r[3] is not None]
    assert len(summarised) == len(rows) - 1 and rows[0][3] is None  # the first sample has no interval: NULL
    span_s = (rows[-1][0] - rows[0][0]) / 1000
    gaps = sum(r[3] for r in summarised)
    assert 0.9 * span_s <= gaps <= 1.05 * span_s + 1, (gaps, span_s)


def test_sim_record_is_reproducible_and_keeps_its_tick_count(tmp_path):
    path = scenario(tmp_path)
    a = sim_record(path, tmp_path / "a.db", "2m", "10s")
    b = sim_record(path, tmp_path / "b.db", "2m", "10s")
    assert len(a) == len(b) == 13  # 0 s, 10 s ... 120 s: one sample per tick
    steps = [(y[0] - x[0]) for x, y in zip(a, a[1:])]
    assert len(set(steps)) > 3 and all(0 < s < 20000 for s in steps)  # jittered, in order
    assert [(r[0] - a[0][0], r[1:]) for r in a] == [(r[0] - b[0][0], r[1:]) for r in b]  # seeded: the same moments


def test_starvation_is_diagnosed_from_the_sample_buffer(tmp_path):
    db = tmp_path / "d.db"
    sim_record(scenario(tmp_path), db, "10m", "10s")
    r = subprocess.run([BIN, "diagnose", "--db", str(db), "--since", "10m", "--json"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode in (0, 1), r.stderr
    found = [f for f in json.loads(r.stdout)["findings"] if f["kind"] == "input_starved"]
    assert found, r.stdout
    evidence = found[0]["evidence"]
    assert evidence["sample_buffer"] == 1 and evidence["sample_buffer_samples"] >= 10
    assert evidence["typical_gap_s"] < 1.0  # sub-second gaps, seen while polling every 10 s
    assert evidence["gaps"] >= 100
    assert "sample buffer" in found[0]["detail"]


READER = textwrap.dedent("""
    import ctypes, json, random, sys
    import pynvml as n
    epoch_ms, plan = int(sys.argv[1]), json.loads(sys.argv[2])
    n.nvmlInit()
    lib = ctypes.CDLL("libnvidia-ml.so.1")  # the same library pynvml loaded
    lib.gpuwatchSimSetClock.argtypes = [ctypes.c_longlong]
    def at(ms):
        lib.gpuwatchSimSetClock(ms)
    def samples(h, since, kind=n.NVML_GPU_UTILIZATION_SAMPLES):
        try:
            vtype, got = n.nvmlDeviceGetSamples(h, kind, since)
        except n.NVMLError_NotFound:
            return None, []
        return vtype, [(s.timeStamp, s.sampleValue.uiVal) for s in got]
    out = {}
    if plan["mode"] == "readings":
        rng = random.Random(24)
        for g in range(n.nvmlDeviceGetCount()):
            h = n.nvmlDeviceGetHandleByIndex(g)
            rows = []
            for _ in range(60):
                t_ms = rng.randrange(20_000, 3_600_000)
                at(epoch_ms + t_ms)
                util = n.nvmlDeviceGetUtilizationRates(h).gpu
                vtype, buf = samples(h, 0)
                _, power = samples(h, 0, n.NVML_TOTAL_POWER_SAMPLES)
                newer = samples(h, buf[-3][0])[1]
                rows.append([t_ms, util, vtype, len(buf), buf[-1], len(newer), len(power)])
            out[g] = rows
    else:  # the summaries of a recording, interval by interval
        prev_ts, prev_idle, rows = None, False, []  # prev_ts None: no interval yet
        h = n.nvmlDeviceGetHandleByIndex(0)
        for t_ms in plan["times"]:
            at(t_ms)
            if prev_ts is None:  # gpuwatch's first reading asks nothing: its interval starts there
                prev_ts = t_ms * 1000
                rows.append(None)
                continue
            _, buf = samples(h, prev_ts)
            idle = [u < 5 for _, u in buf]
            gaps = sum(1 for i, x in enumerate(idle) if x and not (idle[i - 1] if i else prev_idle))
            rows.append([sum(idle) / len(idle), gaps] if idle else None)
            if buf:
                prev_ts, prev_idle = buf[-1][0], buf[-1][1] < 5
        out = rows
    print(json.dumps(out))
""")


def pynvml_read(path, epoch_ms, plan):
    env = dict(os.environ, LD_LIBRARY_PATH=DRIVER_DIR, GPUWATCH_SIM_SCENARIO=str(path),
               GPUWATCH_SIM_EPOCH_MS=str(epoch_ms))
    r = subprocess.run(["/usr/bin/python3", "-c", READER, str(epoch_ms), json.dumps(plan)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def busy_share(t0, t1, offset_s):
    """The exact share of [t0, t1) in which kernels ran: busy from offset + k and for 0.7 s."""
    busy, k = 0.0, math.floor(t0 - offset_s) - 1
    while offset_s + k < t1:
        a, b = offset_s + k, offset_s + k + BUSY_S
        busy += max(0.0, min(b, t1) - max(a, t0))
        k += 1
    return busy / (t1 - t0)


@pytest.mark.skipif(not HAS_DRIVER, reason="GPUWATCH_SIM_DRIVER_DIR does not hold the built driver")
def test_each_reading_is_the_busy_share_of_the_models_sample_period(tmp_path):
    path = scenario(tmp_path, offset_s=0.0, noise=0, models=("H100 SXM 80GB", "RTX 4090"))
    epoch_ms = 1_700_000_000_000
    got = pynvml_read(path, epoch_ms, {"mode": "readings"})
    for gpu, period_s in (("0", 1 / 6), ("1", 1.0)):
        for t_ms, util, vtype, buffered, newest, newer, power in got[gpu]:
            t = t_ms / 1000
            k = math.floor(t / period_s + 1e-9)
            expected = 100 * busy_share((k - 1) * period_s, k * period_s, 0.0)
            assert abs(util - expected) <= 2.5, (gpu, t, util, expected)
            assert vtype == 1  # NVML_VALUE_TYPE_UNSIGNED_INT
            assert buffered == 120 and power == 120  # the buffer holds its latest 120 periods
            assert abs(newest[0] - (epoch_ms * 1000 + k * period_s * 1e6)) <= 1  # stamped at its period's end
            assert newest[1] == util  # utilization.gpu is the newest sample of the buffer
            assert newer == 2  # lastSeenTimeStamp: only the samples newer than it


@pytest.mark.skipif(not HAS_DRIVER, reason="GPUWATCH_SIM_DRIVER_DIR does not hold the built driver")
def test_pynvml_get_samples_returns_what_gpuwatch_recorded(tmp_path):
    path = scenario(tmp_path, offset_s=0.4)
    rows = sim_record(path, tmp_path / "p.db", "3m", "5s")
    epoch_ms = rows[0][0]  # sim record's scenario time 0 is its first sample (no jitter there)
    summaries = pynvml_read(path, epoch_ms, {"mode": "summaries", "times": [r[0] for r in rows]})
    assert summaries[0] is None and rows[0][2] is None
    assert all(s is not None for s in summaries[1:])
    for row, summary in zip(rows[1:], summaries[1:]):
        assert row[2] == pytest.approx(summary[0] * 100, abs=1e-6), (row, summary)
        assert row[3] == summary[1], (row, summary)
