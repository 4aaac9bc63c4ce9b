"""Helpers of the Python package's tests: run a snippet of Python on the simulated driver
(`gpuwatch sim run SCENARIO -- python3 ...`) with the package and libgpuwatch from the build tree."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("GPUWATCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PYTHON_DIR = SOURCE_DIR / "python"
GPUWATCH = os.environ.get("GPUWATCH_BIN", "gpuwatch")
if str(PYTHON_DIR) not in sys.path:  # importable from the source tree without PYTHONPATH too
    sys.path.insert(0, str(PYTHON_DIR))


def child_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PYTHON_DIR) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for key in ("GPUWATCH_DISABLE", "GPUWATCH_STEPS_FILE", "GPUWATCH_JOB_ID", "CUDA_VISIBLE_DEVICES"):
        env.pop(key, None)
    env.update({k: str(v) for k, v in extra.items() if v is not None})
    return env


def sim_python(scenario, code_or_args, env=None, timeout=60):
    """Runs python3 -c CODE (or python3 ARGS...) under `gpuwatch sim run SCENARIO`; the completed process."""
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else list(code_or_args)
    command = [GPUWATCH, "sim", "run", str(scenario), "--", sys.executable, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env or child_env())


def sim_json(scenario, code, env=None, timeout=60):
    """sim_python() of a snippet that prints one JSON document as its last line; that document."""
    done = sim_python(scenario, code, env=env, timeout=timeout)
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def library():
    """The built libgpuwatch (GPUWATCH_LIBRARY, as ctest sets it); the tests that need it skip without it."""
    path = os.environ.get("GPUWATCH_LIBRARY")
    if not path or not Path(path).exists():
        pytest.skip("GPUWATCH_LIBRARY does not name a built libgpuwatch.so.1 (run through ctest)")
    return path


@pytest.fixture
def simulated_demo(library, monkeypatch):
    """This test process itself on the simulated `demo` node (the environment `gpuwatch sim run`
    sets, without the stand-in processes): for in-process Monitor tests."""
    driver_dir = os.environ.get("GPUWATCH_SIM_DRIVER_DIR")
    if not driver_dir or not (Path(driver_dir) / "libnvidia-ml.so.1").exists():
        pytest.skip("GPUWATCH_SIM_DRIVER_DIR does not hold the simulated driver (run through ctest)")
    import time
    monkeypatch.setenv("GPUWATCH_NVML_LIBRARY", str(Path(driver_dir) / "libnvidia-ml.so.1"))
    monkeypatch.setenv("GPUWATCH_SIM_SCENARIO", "demo")
    monkeypatch.setenv("GPUWATCH_SIM_EPOCH_MS", str(int(time.time() * 1000)))
    for key in ("GPUWATCH_DISABLE", "GPUWATCH_STEPS_FILE", "GPUWATCH_JOB_ID", "CUDA_VISIBLE_DEVICES"):
        monkeypatch.delenv(key, raising=False)
    return "demo"
