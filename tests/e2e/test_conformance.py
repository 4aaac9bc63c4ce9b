"""Format conformance with real nvidia-smi output: each capture under realdata/nvidia-smi/extracted is
imported into a scenario (`gpuwatch sim import`), queried with the capture's own field list, and every
field gpuwatch claims (read from NVML) must match the captured cell exactly (timestamp excepted).
Unclaimed fields answer [N/A]/N/A and are reported, not compared."""
import glob
import os
import subprocess

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
CAPTURES = os.path.join(os.environ["GPUWATCH_REALDATA_DIR"], "nvidia-smi", "extracted")
QUERY_FILES = sorted(glob.glob(os.path.join(CAPTURES, "*__query-gpu.csv")))


def claimed_fields():
    md = subprocess.run([BIN, "query", "--help-query-gpu", "--format=md"], capture_output=True, text=True, check=True)
    claimed = set()
    for line in md.stdout.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 6 and cells[6] == "yes":
            claimed.add(cells[1].strip("`"))
    return claimed


def field_names(header_line):
    return [h.split(" [")[0] for h in header_line.split(", ")]


def run_query(scenario, *args):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario)
    return subprocess.run([BIN, "--nvml-library", SIM_LIB, "query", *args], env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.fixture(scope="module")
def claimed():
    names = claimed_fields()
    assert len(names) > 100
    return names


@pytest.mark.parametrize("query_csv", QUERY_FILES, ids=lambda p: os.path.basename(p)[:-len("__query-gpu.csv")])
def test_capture_matches(query_csv, claimed, tmp_path):
    base = query_csv[:-len("__query-gpu.csv")]
    apps_csv = base + "__compute-apps.csv"
    scenario = tmp_path / "imported.yaml"
    imp = subprocess.run([BIN, "sim", "import", query_csv, apps_csv, "-o", str(scenario)], capture_output=True, text=True)
    assert imp.returncode == 0, imp.stderr

    with open(query_csv) as f:
        expected = f.read().splitlines()
    r = run_query(str(scenario), "--query-gpu=" + ",".join(field_names(expected[0])), "--format=csv")
    assert r.returncode == 0, r.stderr
    got = r.stdout.splitlines()
    assert got[0] == expected[0]
    assert len(got) == len(expected)
    mismatches, compared = [], 0
    for header, want, have in zip(expected[0].split(", "), expected[1].split(", "), got[1].split(", ")):
        name = header.split(" [")[0]
        if name == "timestamp" or name not in claimed:
            continue
        compared += 1
        if want != have:
            mismatches.append(f"{name}: nvidia-smi {want!r}, gpuwatch {have!r}")
    assert compared > 100
    assert not mismatches, "\n".join(mismatches)

    with open(apps_csv) as f:
        apps_expected = f.read().splitlines()
    r = run_query(str(scenario), "--query-compute-apps=" + ",".join(field_names(apps_expected[0])), "--format=csv")
    assert r.returncode == 0, r.stderr
    apps_got = r.stdout.splitlines()
    assert apps_got[0] == apps_expected[0]
    without_timestamp = lambda rows: [row.split(", ", 1)[1] for row in rows[1:]]  # noqa: E731
    assert without_timestamp(apps_got) == without_timestamp(apps_expected)
