"""Monitor.host() (issue 25): the host beside the GPUs at the latest sample, from libgpuwatch's
monitor thread; snapshot() keeps only the GPUs' keys. On demo (no simulated host) the host read
is this machine's /proc."""
import textwrap

from conftest import sim_json

ON_DEMO = textwrap.dedent("""
    import json, time
    import gpuwatch
    with gpuwatch.Monitor(interval=0.2, gpus="job") as m:
        first = m.host()
        time.sleep(1.0)
        print(json.dumps({"host": m.host(), "snapshot": m.snapshot(), "first": first}))
""")


def test_the_host_of_the_latest_sample_and_the_jobs_tree(library):
    out = sim_json("demo", ON_DEMO)
    host, snap = out["host"], out["snapshot"]
    assert host["memory_total_bytes"] > 0
    assert 0 <= host["cpu_busy_percent"] <= 100  # a rate: present from the second sample
    assert host["job_processes"] >= 1  # this program's tree, itself included
    assert host["job_cpu_cores"] >= 0
    assert not [k for k in snap if k.startswith("host/")] and any(k.startswith("gpu0/") for k in snap)
    assert "interval_s" not in out["first"] or out["first"]["interval_s"] > 0  # absent, never 0, at first
