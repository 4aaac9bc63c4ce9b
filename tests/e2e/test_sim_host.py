"""The simulated host (issue 25, docs/simulator.md "The simulated host (issue 25)"): under `sim run`
on a scenario with `host: signals:`, `gpuwatch status` reads the simulated /proc and /sys and shows
the scenario's host (CPU, iowait, PSI, disk, network, InfiniBand), and the GPU processes' worker
trees are there; a scenario without host signals writes none of the host's files (the real host
is read)."""
import json
import os
import subprocess

BIN = os.environ["GPUWATCH_BIN"]


def sim_run(scenario, *command, timeout=60):
    env = dict(os.environ)
    env.pop("GPUWATCH_HOST_ROOT", None)
    return subprocess.run([BIN, "sim", "run", scenario, "--"] + list(command), env=env, capture_output=True, text=True,
                          timeout=timeout)


def frames(scenario, count):
    r = sim_run(scenario, BIN, "status", "-i", "0.5", "-c", str(count), "--jsonl")
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


def test_status_shows_the_scenarios_cpu_bound_host():
    shown = frames("host_cpu_bound", 3)
    host = shown[-1]["host"]
    # 0.5 s windows of 10 ms ticks on 8 cores: within a couple of percent of the scenario's 97 %.
    assert abs(host["cpu_busy_percent"] - 97) < 3, host
    assert host["cpu_iowait_percent"] < 3, host
    assert host["cpu_pressure_some_percent"] == 45, host
    assert abs(host["disk_read_bytes_per_s"] - 60e6) < 6e6, host
    assert abs(host["memory_available_percent"] - 55) < 0.01, host
    assert host["ib_rx_bytes_per_s"] is None, host  # no InfiniBand in this scenario


def test_status_shows_infiniband_busy_in_the_gaps():
    # 6 s busy, 2 s dip: 20 frames of 0.5 s cover a dip, where InfiniBand moves 60 GB/s each way.
    rates = [f["host"]["ib_rx_bytes_per_s"] for f in frames("host_comm_bound", 20)[1:]]
    assert min(rates) < 1e9, rates
    assert max(rates) > 50e9, rates


def test_the_worker_tree_of_each_gpu_process_is_there():
    script = ('root=$GPUWATCH_HOST_ROOT; for p in $(echo "$GPUWATCH_SIM_PIDS" | tr , "\\n" | cut -d= -f2); do '
              'cat $root/proc/$p/task/$p/children; echo; done')
    # A status renders the simulated host (its files stay until the simulation ends), then the script reads them.
    r = sim_run("host_cpu_bound", "sh", "-c", BIN + " status --json >/dev/null; " + script)
    assert r.returncode == 0, r.stderr
    workers = r.stdout.split()
    assert len(workers) == 7, r.stdout


def test_no_host_files_without_host_signals():
    r = sim_run("training", "sh", "-c",
                BIN + ' status --json >/dev/null && test -d "$GPUWATCH_HOST_ROOT/proc" && '
                'test ! -e "$GPUWATCH_HOST_ROOT/proc/stat" && test ! -e "$GPUWATCH_HOST_ROOT/proc/net" && '
                'test -z "$GPUWATCH_SIM_VENDOR_FILES" && echo clean')
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "clean", r.stdout
