"""gpuwatch query: the built binary on the simulated driver (nvidia-smi --query-gpu drop-in)."""
import json
import os
import re
import subprocess
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
SOURCE = os.environ.get("GPUWATCH_SOURCE_DIR", "")


def query(*args, scenario="demo", lib=SIM_LIB, extra_env=None, timeout=30):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario)
    env.pop("GPUWATCH_NVML_LIBRARY", None)
    env.update(extra_env or {})
    return subprocess.run([BIN, "--nvml-library", lib, "query", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_csv_header_and_one_row_per_gpu():
    r = query("--query-gpu=index,name,memory.used,memory.total,power.draw,temperature.gpu,utilization.gpu,pstate",
              "--format=csv")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == ("index, name, memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu, "
                        "utilization.gpu [%], pstate")
    assert len(lines) == 9  # demo: 8 GPUs
    for i, line in enumerate(lines[1:]):
        cells = line.split(", ")
        assert cells[0] == str(i)
        assert re.fullmatch(r"\d+ MiB", cells[2]) and re.fullmatch(r"\d+ MiB", cells[3])
        assert re.fullmatch(r"\d+\.\d\d W", cells[4])
        assert re.fullmatch(r"\d+", cells[5])
        assert re.fullmatch(r"\d+ %", cells[6])
        assert re.fullmatch(r"P\d+", cells[7])


def test_noheader_nounits_and_aliases():
    r = query("--query-gpu=gpu_name,memory.used,power.draw,clocks_throttle_reasons.active", "--format=csv,noheader,nounits")
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0].split(", ")
    assert first[0].startswith("NVIDIA")
    assert re.fullmatch(r"\d+", first[1])
    assert re.fullmatch(r"\d+\.\d\d", first[2])
    assert re.fullmatch(r"0x[0-9A-F]{16}", first[3])


def test_nounits_keeps_the_unit_in_the_header_like_nvidia_smi():
    # nvidia-smi --format=csv,nounits drops units from the values only: the header still
    # says "memory.used [MiB]", so a script knows the unit of the bare numbers.
    r = query("--query-gpu=memory.used,power.draw,utilization.gpu,clocks.current.sm,temperature.gpu", "--format=csv,nounits")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "memory.used [MiB], power.draw [W], utilization.gpu [%], clocks.current.sm [MHz], temperature.gpu"
    mem, power, util, sm, temp = lines[1].split(", ")
    assert re.fullmatch(r"\d+", mem) and re.fullmatch(r"\d+\.\d\d", power)
    assert re.fullmatch(r"\d+", util) and re.fullmatch(r"\d+", sm) and re.fullmatch(r"\d+", temp)


def test_loop_without_a_value_repeats_every_5_seconds_like_nvidia_smi():
    start = time.monotonic()
    r = query("--query-gpu=index", "--format=csv,noheader", "-i", "0", "-l", "--count", "2", timeout=30)
    elapsed = time.monotonic() - start
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["0", "0"]
    assert 4.5 <= elapsed < 9, elapsed
    bad = query("--query-gpu=index", "--format=csv", "-l", "soon")
    assert bad.returncode == 2 and "-l/--loop" in bad.stderr


def test_unwritable_output_file_is_exit_1_naming_the_file(tmp_path):
    target = tmp_path / "missing-folder" / "q.csv"
    r = query("--query-gpu=index", "--format=csv", "-f", str(target))
    assert r.returncode == 1
    assert str(target) in r.stderr and "No such file or directory" in r.stderr


def test_unsupported_field_is_na_not_zero():
    r = query("--query-gpu=fan.speed,temperature.gpu", "--format=csv,noheader")
    assert r.returncode == 0
    assert all(line.startswith("[N/A], ") for line in r.stdout.splitlines())  # data-center boards have no fan


def test_unknown_field_is_usage_error():
    r = query("--query-gpu=name,no.such.field", "--format=csv")
    assert r.returncode == 2
    assert 'Field "no.such.field" is not a valid field to query.' in r.stdout + r.stderr


def test_missing_library_is_exit_3_with_advice():
    r = query("--query-gpu=name", "--format=csv", lib="/nonexistent/libnvidia-ml.so.1")
    assert r.returncode == 3
    assert "not found" in r.stderr and "driver" in r.stderr


def test_no_gpus_is_exit_4():
    r = query("--query-gpu=name", "--format=csv", scenario="no_gpus")
    assert r.returncode == 4
    assert "No devices were found" in r.stderr


def test_select_by_index_uuid_and_bus_id():
    ids = query("--query-gpu=index,uuid,pci.bus_id", "--format=csv,noheader").stdout.splitlines()
    index, uuid, bus = ids[3].split(", ")
    for selector in (index, uuid, bus):
        r = query("--query-gpu=index", "--format=csv,noheader", "-i", selector)
        assert r.returncode == 0 and r.stdout.strip() == "3", (selector, r.stdout, r.stderr)
    r = query("--query-gpu=index", "--format=csv,noheader", "-i", "2,0")
    assert r.stdout.split() == ["2", "0"]
    assert query("--query-gpu=index", "--format=csv", "-i", "99").returncode == 4


def test_loop_ms_with_count_and_file(tmp_path):
    out = tmp_path / "q.csv"
    start = time.monotonic()
    r = query("--query-gpu=index,power.draw", "--format=csv", "-lms", "50", "--count", "3", "-i", "0", "-f", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    lines = out.read_text().splitlines()
    assert lines[0] == "index, power.draw [W]" and len(lines) == 4  # header once, 3 samples
    assert time.monotonic() - start < 10


def test_json_and_jsonl_use_unit_suffixed_keys_and_null():
    r = query("--query-gpu=index,memory.used,power.draw,fan.speed,persistence_mode", "--format=json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert len(rows) == 8
    assert list(rows[0]) == ["index", "memory_used_bytes", "power_draw_w", "fan_speed_ratio", "persistence_mode"]
    assert isinstance(rows[0]["memory_used_bytes"], int) and rows[0]["memory_used_bytes"] % (1024 * 1024) == 0
    assert isinstance(rows[0]["power_draw_w"], float)
    assert rows[0]["fan_speed_ratio"] is None
    assert isinstance(rows[0]["persistence_mode"], bool)
    r = query("--query-gpu=index,utilization.gpu", "--format=jsonl")
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(lines) == 8 and 0 <= lines[0]["utilization_gpu_ratio"] <= 1


def test_lost_gpu_keeps_its_row_and_exits_partial():
    epoch = str(int(time.time() * 1000) - 120_000)  # GPU 1 of gpu_lost falls off the bus after 30 s
    r = query("--query-gpu=index,name,temperature.gpu", "--format=csv,noheader", scenario="gpu_lost",
              extra_env={"GPUWATCH_SIM_EPOCH_MS": epoch})
    assert r.returncode == 5, r.stdout + r.stderr
    rows = r.stdout.splitlines()
    assert rows[0].startswith("0, NVIDIA") and re.fullmatch(r"\d+", rows[0].split(", ")[2])
    assert rows[1].endswith("[GPU is lost]")


def test_compute_apps_on_simulate_demo():
    r = subprocess.run([BIN, "--simulate", "demo", "query", "--query-compute-apps=gpu_bus_id,pid,process_name,used_memory",
                        "--format=csv"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "gpu_bus_id, pid, process_name, used_gpu_memory [MiB]"
    assert len(lines) > 1
    for line in lines[1:]:
        bus, pid, _name, mem = line.split(", ")
        assert re.fullmatch(r"[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.0", bus)
        assert int(pid) > 0 and re.fullmatch(r"\d+ MiB", mem)


def test_help_query_lists_every_capture_field_and_docs_are_current():
    r = subprocess.run([BIN, "query", "--help-query-gpu"], capture_output=True, text=True)
    assert r.returncode == 0
    for name in ("memory.used", "clocks_throttle_reasons.active", "power.draw.instant", "hostname"):
        assert f'"{name}"' in r.stdout
    apps = subprocess.run([BIN, "query", "--help-query-compute-apps"], capture_output=True, text=True).stdout
    assert '"used_gpu_memory" or "used_memory"' in apps
    md = subprocess.run([BIN, "query", "--help-query-gpu", "--format=md"], capture_output=True, text=True).stdout
    docs = os.path.join(SOURCE, "docs", "fields.md")
    if not os.path.exists(docs):
        pytest.skip("no docs/fields.md in the source tree")
    with open(docs) as f:
        assert f.read() == md, "docs/fields.md is stale: regenerate with gpuwatch query --help-query-gpu --format=md"


def test_old_driver_without_versioned_symbols_falls_back():
    legacy = os.path.join(os.path.dirname(os.environ["GPUWATCH_SIM_DRIVER_DIR"]), "sim-driver-legacy", "libnvidia-ml.so.1")
    if not os.path.exists(legacy):
        pytest.skip("no sim-driver-legacy in this build")
    r = query("--query-gpu=name,memory.used,memory.reserved,memory.total,power.draw", "--format=csv,noheader",
              scenario="old_driver", lib=legacy)
    assert r.returncode == 0, r.stderr
    name, used, reserved, total, power = r.stdout.strip().split(", ")
    assert name.startswith("Tesla V100")
    assert re.fullmatch(r"\d+ MiB", used) and total == "16160 MiB"  # nvmlDeviceGetMemoryInfo (v1)
    assert reserved == "[N/A]"  # only _v2 reports it: unsupported, not 0
    assert re.fullmatch(r"\d+\.\d\d W", power)
    r = subprocess.run([BIN, "--simulate", "old_driver", "query", "--query-compute-apps=pid,used_memory",
                        "--format=csv,noheader"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    pid, mem = r.stdout.strip().split(", ")  # 16-byte v1 records read with the v1 layout
    assert int(pid) > 0 and mem == "12000 MiB"


@pytest.mark.skipif(not os.path.exists("/usr/bin/gpustat"), reason="gpustat is installed by scripts/install-deps")
def test_query_and_gpustat_agree_on_one_simulated_node():
    mib = 1024 * 1024
    extra = {"GPUWATCH_SIM_EPOCH_MS": str(int(time.time() * 1000) - 60_000),
             "LD_LIBRARY_PATH": os.environ["GPUWATCH_SIM_DRIVER_DIR"]}
    fields = ("--query-gpu=index,name,uuid,memory.total,memory.used,memory.reserved,temperature.gpu,"
              "utilization.gpu,power.draw,enforced.power.limit")

    def ours():
        r = query(fields, "--format=json", extra_env=extra)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    before = ours()
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO="demo", **extra)
    theirs = subprocess.run(["/usr/bin/gpustat", "--json"], env=env, capture_output=True, text=True, timeout=60)
    after = ours()
    assert theirs.returncode == 0, theirs.stderr
    gpus = json.loads(theirs.stdout)["gpus"]
    assert len(gpus) == len(before) == 8

    def between(value, a, b, tolerance):
        return min(a, b) - tolerance <= value <= max(a, b) + tolerance

    for g, s, h in zip(before, gpus, after):
        assert (g["index"], g["name"], g["uuid"]) == (s["index"], s["name"], s["uuid"])
        assert g["memory_total_bytes"] // mib == s["memory.total"]
        v1_used = [(x["memory_used_bytes"] + x["memory_reserved_bytes"]) // mib for x in (g, h)]  # gpustat: v1 used
        assert between(s["memory.used"], *v1_used, 2)
        assert between(s["temperature.gpu"], g["temperature_gpu_c"], h["temperature_gpu_c"], 2)
        assert between(s["utilization.gpu"], round(g["utilization_gpu_ratio"] * 100),
                       round(h["utilization_gpu_ratio"] * 100), 5)
        assert between(s["power.draw"], g["power_draw_w"], h["power_draw_w"], max(5, 0.03 * s["power.draw"]))
        assert int(g["enforced_power_limit_w"]) == s["enforced.power.limit"]
