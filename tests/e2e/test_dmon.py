"""gpuwatch dmon against real `nvidia-smi dmon -c 5` captures: same header lines,
same column widths, '-' exactly where nvidia-smi prints '-' for the same GPU
(each capture is imported into a scenario with `gpuwatch sim import`)."""
import glob
import os
import pathlib
import re
import subprocess
import tempfile
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
CAPTURES = pathlib.Path(os.environ["GPUWATCH_REALDATA_DIR"]) / "nvidia-smi" / "extracted"
DMON_CAPTURES = sorted(glob.glob(str(CAPTURES / "linux-*__dmon.txt")))


def gpuwatch(args, scenario="idle", timeout=30):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario)
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)


def token_ends(line):
    return [m.end() for m in re.finditer(r"\S+", line)]


def dash_mask(line):
    return [token == "-" for token in line.split()]


def import_capture(dmon_path, tmp):
    """Scenario YAML for the GPU and state (idle/load) of this dmon capture."""
    stem = dmon_path[: -len("__dmon.txt")]
    inputs = [stem + "__query-gpu.csv", stem + "__q.txt"]
    out = pathlib.Path(tmp) / "imported.yaml"
    r = subprocess.run([BIN, "sim", "import", *inputs, "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return str(out)


def assert_same_format(ours, captured):
    ours_lines, cap_lines = ours.splitlines(), captured.splitlines()
    assert ours_lines[:2] == cap_lines[:2]  # the two '#' header lines, byte for byte
    cap_row = cap_lines[2]
    for row in ours_lines[2:]:
        assert len(row) == len(cap_row), (row, cap_row)
        assert token_ends(row) == token_ends(cap_row), (row, cap_row)
        assert dash_mask(row) == dash_mask(cap_row), (row, cap_row)


def test_at_least_one_capture_of_each_kind_is_here():
    assert len(DMON_CAPTURES) >= 8
    assert any("mig" in c for c in DMON_CAPTURES) and any("geforce" in c for c in DMON_CAPTURES)


@pytest.mark.parametrize("capture", DMON_CAPTURES, ids=lambda p: pathlib.Path(p).name[len("linux-x86_64__"):-10])
def test_dmon_matches_capture_format(capture):
    with tempfile.TemporaryDirectory() as tmp:
        scenario = import_capture(capture, tmp)
        r = gpuwatch(["dmon", "-c", "1"], scenario)  # scrolling itself: test_count_and_delay
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 3
    assert_same_format(r.stdout, pathlib.Path(capture).read_text())


def test_idle_h100_matches_h100_capture():
    r = gpuwatch(["dmon", "-c", "1"], "idle")
    assert r.returncode == 0, r.stderr
    capture = CAPTURES / "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__idle__dmon.txt"
    assert_same_format(r.stdout, capture.read_text())
    fields = r.stdout.splitlines()[2].split()
    assert fields[0] == "0" and 40 <= int(fields[1]) <= 120  # power of an idle H100, whole watts
    assert fields[10] == "2619" and fields[11] == "345"  # memory and idle graphics clocks of the H100


def test_count_and_delay():
    start = time.monotonic()
    r = gpuwatch(["dmon", "-c", "3", "-d", "1"])
    elapsed = time.monotonic() - start
    assert r.returncode == 0
    assert len(r.stdout.splitlines()) == 2 + 3
    assert 1.8 <= elapsed <= 6


def test_all_groups_and_date_time_columns():
    r = gpuwatch(["dmon", "-c", "1", "-s", "pucvmet", "-o", "DT"])
    assert r.returncode == 0, r.stderr
    header, units, row = r.stdout.splitlines()
    assert header.startswith("#Date     Time      gpu    pwr")
    assert header.endswith(" sbecc  dbecc    pci  rxpci  txpci ")
    assert units.startswith("#YYYYMMDD HH:MM:SS  Idx      W")
    assert re.match(r"^ \d{8} \d\d:\d\d:\d\d    0 ", row)
    assert token_ends(row)[2:] == token_ends(header)[2:]
    # bar1 (BAR1 memory), pci (replay counter), rxpci/txpci (MB/s): read from NVML, not "-"
    cells = dict(zip(header.lstrip("#").split()[1:], row.split()[1:]))
    for column in ("bar1", "pci", "rxpci", "txpci"):
        assert cells[column].isdigit(), (column, row)


def test_select_ids_and_usage_errors():
    r = gpuwatch(["dmon", "-c", "1", "-i", "0", "-s", "u"])
    assert r.returncode == 0
    assert r.stdout.splitlines()[0] == "# gpu     sm    mem    enc    dec    jpg    ofa "
    assert gpuwatch(["dmon", "-c", "1", "-i", "7"]).returncode == 4
    assert gpuwatch(["dmon", "-c", "1", "-s", "x"]).returncode == 2
    assert gpuwatch(["dmon", "-c", "1", "-i", "GPU-nonexistent"]).returncode == 4
    assert gpuwatch(["dmon", "-c", "1", "-d", "0"]).returncode == 2


def test_geforce_card_has_no_memory_temperature_like_the_geforce_capture():
    # consumer_card (RTX 4090) is the same kind of GPU as the RTX 4080 SUPER capture:
    # no HBM, so nvidia-smi prints '-' for mtemp, and so must we.
    r = gpuwatch(["dmon", "-c", "1"], "consumer_card")
    assert r.returncode == 0, r.stderr
    capture = CAPTURES / "linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05__idle__dmon.txt"
    assert_same_format(r.stdout, capture.read_text())
    assert r.stdout.splitlines()[2].split()[3] == "-"


def test_mig_scenario_has_no_utilization_like_the_mig_capture():
    r = gpuwatch(["dmon", "-c", "1", "-i", "1"], "mig")  # GPU 1: an H100 in MIG mode
    assert r.returncode == 0, r.stderr
    capture = CAPTURES / "linux-x86_64__nvidia-h100-mig__590.48.01__idle__dmon.txt"
    lines = r.stdout.splitlines()
    assert lines[2].split()[0] == "1"
    assert dash_mask(lines[2]) == dash_mask(capture.read_text().splitlines()[2])


def test_select_gpus_by_uuid_and_pci_bus_id_like_nvidia_smi():
    status = subprocess.run([BIN, "--nvml-library", SIM_LIB, "status", "--json"], capture_output=True, text=True,
                            env=dict(os.environ, GPUWATCH_SIM_SCENARIO="demo"), timeout=30)
    gpus = __import__("json").loads(status.stdout)["gpus"]
    wanted = f"{gpus[5]['uuid']},{gpus[2]['pci_bus_id']}"
    r = gpuwatch(["dmon", "-c", "1", "-s", "p", "-i", wanted], "demo")
    assert r.returncode == 0, r.stderr
    assert [row.split()[0] for row in r.stdout.splitlines()[2:]] == ["5", "2"]


def test_issue_9_tviol_on_the_first_row_while_gpu_3_is_thermally_slowed():
    # 230 s into the demo, GPU 3 is in its thermal runaway phase (about 92 C, clocks held down).
    epoch_ms = int(time.time() * 1000) - 230_000
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO="demo", GPUWATCH_SIM_EPOCH_MS=str(epoch_ms))
    r = subprocess.run([BIN, "--nvml-library", SIM_LIB, "dmon", "-s", "pcv", "-c", "2", "-i", "3"], env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    header = r.stdout.splitlines()[0].lstrip("#").split()
    for row in r.stdout.splitlines()[2:]:
        cells = dict(zip(header, row.split()))
        assert int(cells["gtemp"]) >= 85, row
        assert cells["tviol"] == "1", row  # from the violation counters, on the first row too
        assert cells["pviol"] == "0", row  # not power capped: 0 %, a number, not "-"
