"""Monitor.snapshot() on the simulated driver: the flat keys, the GPU selection, absent values.
One `gpuwatch sim run` per scenario (each costs seconds); the tests read its results."""
import textwrap

import pytest

from conftest import sim_json

KEYS = {"util_percent", "memory_used_gib", "memory_total_gib", "power_w", "temperature_c", "sm_clock_mhz",
        "throttle_reasons_active", "throttle_sw_power_cap", "throttle_hw_slowdown", "throttle_hw_thermal",
        "throttle_sw_thermal", "throttle_hw_power_brake", "throttle_sync_boost"}

# Monitors with several selections in one process on demo; each reads CUDA_VISIBLE_DEVICES when it opens.
ON_DEMO = textwrap.dedent("""
    import json, os, subprocess, warnings
    import gpuwatch

    def take(gpus, cuda_visible=None, nvml=None):
        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        if cuda_visible is not None:
            os.environ["CUDA_VISIBLE_DEVICES"] = cuda_visible
        saved = os.environ.get("GPUWATCH_NVML_LIBRARY")
        if nvml:
            os.environ["GPUWATCH_NVML_LIBRARY"] = nvml
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with gpuwatch.Monitor(interval=0.2, gpus=gpus) as m:
                m.step(0)
                m.step(1)
                out = {"snapshot": m.snapshot(), "error": m.error, "warned": [str(w.message) for w in caught],
                       "timed": m.as_scalars().get("step/compute_s") is not None}
        os.environ["GPUWATCH_NVML_LIBRARY"] = saved
        return out

    uuid5 = subprocess.run([os.environ["GPUWATCH_BIN"], "query", "--query-gpu=uuid", "--format=csv,noheader", "-i", "5"],
                           capture_output=True, text=True, check=True).stdout.strip()
    print(json.dumps({
        "all": take("all"),
        "list": take("1,6"),
        "job_cvd": take("job", cuda_visible="2,3"),
        "job_cvd_uuid": take("job", cuda_visible=uuid5[:12]),
        "job_cvd_invalid_tail": take("job", cuda_visible="4,nonsense,5"),
        "job": take("job"),
        "bad_index": take("9"),
        "no_driver": take("all", nvml="/nonexistent/libnvidia-ml.so.1"),
    }))
""")


@pytest.fixture(scope="module")
def demo(library):
    return sim_json("demo", ON_DEMO)


def gpus_of(snap):
    return sorted({int(k.split("/")[0][3:]) for k in snap})


def test_all_gpus_of_demo_with_every_key_in_absolute_units(demo):
    snap = demo["all"]["snapshot"]
    assert demo["all"]["error"] is None
    assert gpus_of(snap) == list(range(8))
    for gpu in range(8):
        assert {k.split("/")[1] for k in snap if k.startswith(f"gpu{gpu}/")} == KEYS
        total = snap[f"gpu{gpu}/memory_total_gib"]
        assert 79 < total < 81  # an 80 GB H100 in GiB, not MiB or bytes
        assert 0 < snap[f"gpu{gpu}/memory_used_gib"] <= total
        assert 0 <= snap[f"gpu{gpu}/util_percent"] <= 100
        assert 100 < snap[f"gpu{gpu}/power_w"] < 800
        assert 20 < snap[f"gpu{gpu}/temperature_c"] < 100
        assert 1000 < snap[f"gpu{gpu}/sm_clock_mhz"] <= 1980
        flags = [k for k in KEYS if k.startswith("throttle_") and k != "throttle_reasons_active"]
        assert all(snap[f"gpu{gpu}/{k}"] in (0, 1) for k in flags)


def test_an_explicit_list_selects_those_gpus(demo):
    assert gpus_of(demo["list"]["snapshot"]) == [1, 6]


def test_job_falls_back_to_cuda_visible_devices_then_all(demo):
    # The scenario's processes are stand-ins, not this process's children: no GPU is "ours" yet.
    assert gpus_of(demo["job_cvd"]["snapshot"]) == [2, 3]
    assert gpus_of(demo["job_cvd_uuid"]["snapshot"]) == [5]          # a unique UUID prefix
    assert gpus_of(demo["job_cvd_invalid_tail"]["snapshot"]) == [4]  # CUDA stops at an invalid entry
    assert gpus_of(demo["job"]["snapshot"]) == list(range(8))


def test_a_bad_selection_or_no_driver_warns_and_step_timing_goes_on(demo):
    bad = demo["bad_index"]
    assert "no GPU 9" in bad["error"] and "8 GPUs" in bad["error"]
    assert bad["warned"] and bad["snapshot"] == {} and bad["timed"]
    gone = demo["no_driver"]
    assert "/nonexistent/libnvidia-ml.so.1" in gone["error"] and gone["snapshot"] == {} and gone["timed"]


def test_an_unsupported_or_failing_value_is_an_absent_key_not_zero(library, tmp_path):
    scenario = tmp_path / "no_power.yaml"
    scenario.write_text(textwrap.dedent("""
        name: no_power
        description: power not supported on GPU 1, temperature failing on GPU 0
        gpus:
          - model: H100 SXM 80GB
            phases: [{kind: training, duration: 1h}]
          - model: H100 SXM 80GB
            phases: [{kind: training, duration: 1h}]
        faults:
          - {function: nvmlDeviceGetPowerUsage, gpu: 1, error: NOT_SUPPORTED}
          - {function: nvmlDeviceGetTemperature, gpu: 0, error: UNKNOWN}
    """))
    snap = sim_json(scenario, "import json, gpuwatch\nprint(json.dumps(gpuwatch.Monitor(interval=0.2, gpus='all').snapshot()))")
    assert "gpu1/power_w" not in snap and snap["gpu0/power_w"] > 0
    assert "gpu0/temperature_c" not in snap and snap["gpu1/temperature_c"] > 0
    assert snap["gpu0/memory_total_gib"] > 79 and snap["gpu1/memory_total_gib"] > 79


def test_job_follows_the_gpus_running_a_process_of_this_tree(library, tmp_path):
    # GPU 1's process is whatever PID $GW_TEST_PID holds (the simulator's pid_env): here a child of
    # the test program, as a DataLoader worker or a torchrun rank would be.
    scenario = tmp_path / "own_process.yaml"
    scenario.write_text(textwrap.dedent("""
        name: own_process
        description: GPU 1 runs a process of the monitored program's tree
        gpus:
          - model: H100 SXM 80GB
            phases: [{kind: training, duration: 1h}]
            processes: [{command: "python other.py", memory: 1000}]
          - model: H100 SXM 80GB
            phases: [{kind: training, duration: 1h}]
            processes: [{command: "python train.py", memory: 2000, pid_env: GW_TEST_PID}]
    """))
    code = textwrap.dedent("""
        import json, os, subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        os.environ["GW_TEST_PID"] = str(child.pid)
        os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # our own process wins over the fallback
        import gpuwatch
        with gpuwatch.Monitor(interval=0.2, gpus="job") as m:
            keys = sorted(m.snapshot())
        child.kill()
        print(json.dumps(keys))
    """)
    keys = sim_json(scenario, code)
    assert keys and all(k.startswith("gpu1/") for k in keys)
