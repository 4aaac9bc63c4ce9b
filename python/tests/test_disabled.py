"""enabled=False and GPUWATCH_DISABLE=1: every method is a cheap no-op, nothing is loaded or written."""
import subprocess
import sys
import textwrap

from conftest import child_env

DISABLED = textwrap.dedent("""
    import json, os, sys, time
    import gpuwatch
    m = gpuwatch.Monitor(interval=0.1, enabled={enabled}, csv="{tmp}/s.csv", jsonl="{tmp}/s.jsonl")
    with m:
        data = list(range(5))
        assert m.track(data) is data  # the iterable itself, unwrapped
        t = time.perf_counter()
        for i in range(100000):
            m.step(i, loss=1.0)
        step_us = (time.perf_counter() - t) / 100000 * 1e6
        out = dict(enabled=m.enabled, snapshot=m.snapshot(), scalars=m.as_scalars(), findings=m.findings(),
                   share=m.data_wait_share, job_id=m.job_id, step_us=step_us,
                   library_loaded=gpuwatch._native._library is not None)
    print(json.dumps(out))
""")


def run(tmp_path, enabled, **env):
    # A library path that cannot load: a disabled monitor must not even try.
    env = child_env(GPUWATCH_LIBRARY="/nonexistent/libgpuwatch.so.1", GPUWATCH_STEPS_FILE=tmp_path / "steps.jsonl",
                    GPUWATCH_JOB_ID="j7", **env)
    done = subprocess.run([sys.executable, "-c", DISABLED.format(enabled=enabled, tmp=tmp_path)],
                          capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no warning either
    import json
    return json.loads(done.stdout)


def check_disabled(out, tmp_path):
    assert out["enabled"] is False and out["library_loaded"] is False
    assert out["snapshot"] == {} and out["scalars"] == {} and out["findings"] == [] and out["share"] is None
    assert out["job_id"] == "j7"
    assert out["step_us"] < 5  # an attribute check (about 0.1 us; generous for loaded CI machines)
    assert list(tmp_path.iterdir()) == []  # no CSV, JSONL or steps file


def test_enabled_false(tmp_path):
    check_disabled(run(tmp_path, enabled=False), tmp_path)


def test_gpuwatch_disable_environment(tmp_path):
    check_disabled(run(tmp_path, enabled=True, GPUWATCH_DISABLE="1"), tmp_path)
