"""Who uses each GPU (issue 15), end to end on the simulated driver: a node with a Slurm job and
two Kubernetes pods. The processes' /proc entries are a fake tree (--proc-root) built from real
cgroup path shapes; pod names come from a fake kubelet serving the pod-resources gRPC API on a unix
socket (tests/e2e/fake_kubelet); the Slurm job also from a dcgm-exporter mapping directory.
`status` (text and JSON), `pmon --owner`, `top` (in tmux), serve's JSON API, the dashboard (in
Chromium) and `/metrics --attribution-labels` must all say which job or pod holds each GPU, and a
kubelet that is down must cost nothing but names."""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

import pytest

from test_serve_dashboard import CHROMIUM, NODE, SOURCE_DIR, browser_missing
from test_top import Top

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
FAKE_KUBELET = os.environ.get("GPUWATCH_FAKE_KUBELET", "")

SCENARIO = """\
name: attribution_e2e
description: A Slurm job on GPU 0, two pods on GPUs 1 and 2.
gpus:
  - model: H100 SXM 80GB
    phases: [{kind: training, duration: 1h}]
    processes: [{command: "python train.py", user: alice, memory: 40960, pid: 4001}]
  - model: H100 SXM 80GB
    phases: [{kind: training, duration: 1h}]
    processes: [{command: "python serve.py", user: root, memory: 20480, pid: 4002}]
  - model: H100 SXM 80GB
    phases: [{kind: training, duration: 1h}]
    processes: [{command: "python eval.py", user: root, memory: 10240, pid: 4003}]
"""
CONTAINER = "3f4e8c2b9a1d7e6f5c4b3a2918273645d6e7f8091a2b3c4d5e6f708192a3b4c5"
POD_A_UID = "6b2d54a1-8f3c-4e2a-9d71-0c5e3b8a4f12"
POD_B_UID = "7a1c9e3e-1f0b-4c8a-a1d2-9e8f7c6b5a49"
PROCESSES = {
    # Slurm cgroup v2 (slurmd's cgroup/v2 plugin), the job's variables in its environment.
    4001: ("0::/system.slice/slurmstepd.scope/job_4821/step_0/user/task_0\n",
           "SLURM_JOB_ID=4821\0SLURM_STEP_ID=0\0SLURM_JOB_USER=alice\0"),
    # containerd, systemd cgroup driver: the pod UID's dashes are underscores in the slice name.
    4002: ("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
           + POD_A_UID.replace("-", "_") + ".slice/cri-containerd-" + CONTAINER + ".scope\n",
           "HOSTNAME=trainer-0\0"),
    # cgroupfs driver, cgroup v1.
    4003: ("".join(f"{n}:{c}:/kubepods/besteffort/pod{POD_B_UID}/{CONTAINER[::-1]}\n"
                   for n, c in ((11, "devices"), (4, "memory"))), "HOSTNAME=eval-1\0"),
}


def run(args, env, timeout=30):
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def node():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "scenario.yaml").write_text(SCENARIO)
        env = dict(os.environ, GPUWATCH_SIM_SCENARIO=str(tmp / "scenario.yaml"), XDG_STATE_HOME=str(tmp / "state"))
        for pid, (cgroup, environ) in PROCESSES.items():
            d = tmp / "proc" / str(pid)
            d.mkdir(parents=True)
            (d / "cgroup").write_text(cgroup)
            (d / "environ").write_bytes(environ.encode())
            (d / "stat").write_text(f"{pid} (python) S 1 1 1 0 -1 0 0 0 0 0 5 3 0 0 20 0 1 0 {pid * 10} 1 1\n")
            (d / "status").write_text(f"Name:\tpython\nNSpid:\t{pid}\t7\n")
        (tmp / "jobmap").mkdir()
        (tmp / "jobmap" / "0").write_text("4821\n")
        r = run(["status", "--json", "--no-attribution"], env)
        assert r.returncode == 0, r.stderr
        uuids = [g["uuid"] for g in json.loads(r.stdout)["gpus"]]
        pods = [{"name": "trainer-0", "namespace": "ml", "containers": [{"name": "pytorch", "devices": [uuids[1]]}]},
                {"name": "eval-1", "namespace": "research",
                 "containers": [{"name": "eval", "devices": [uuids[2] + "::0"]}]}]  # a time-sliced replica
        (tmp / "pods.json").write_text(json.dumps(pods))
        socket_path = str(tmp / "kubelet.sock")
        assert FAKE_KUBELET, "GPUWATCH_FAKE_KUBELET is not set (tests/CMakeLists.txt)"
        kubelet = subprocess.Popen([FAKE_KUBELET, socket_path, str(tmp / "pods.json")], stdout=subprocess.PIPE, text=True)
        assert kubelet.stdout.readline().strip() == "ready"
        flags = ["--proc-root", str(tmp / "proc"), "--hpc-job-mapping-dir", str(tmp / "jobmap"),
                 "--pod-resources-socket", socket_path, "--docker-socket", "none", "--podman-socket", "none"]
        yield {"env": env, "flags": flags, "uuids": uuids, "tmp": tmp}
        kubelet.send_signal(signal.SIGTERM)
        kubelet.wait(timeout=10)


def owners_of(status_json):
    return {p["pid"]: p["owner"] for g in status_json["gpus"] for p in g["processes"]}


def test_status_json_says_which_job_and_pod_holds_each_gpu(node):
    r = run(["status", "--json"] + node["flags"], node["env"])
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    owners = owners_of(json.loads(r.stdout))
    job = owners[4001]
    assert (job["slurm_job_id"], job["slurm_step"], job["slurm_user"]) == ("4821", "0", "alice")
    assert job["pod"] is None and job["runtime"] is None
    a = owners[4002]
    assert (a["pod"], a["namespace"], a["container"]) == ("trainer-0", "ml", "pytorch")
    assert (a["pod_uid"], a["pod_qos"], a["runtime"], a["container_id"]) == (POD_A_UID, "burstable", "containerd", CONTAINER)
    assert a["container_pid"] == 7
    b = owners[4003]
    assert (b["pod"], b["namespace"], b["container"], b["pod_uid"]) == ("eval-1", "research", "eval", POD_B_UID)
    assert b["summary"] == "pod research/eval-1"


def test_status_text_shows_the_owner_before_the_command(node):
    r = run(["status"] + node["flags"], node["env"])
    assert r.returncode == 0, r.stderr
    assert "[job 4821.0] python" in r.stdout  # the command: NVML's name (the PIDs are not real here)
    assert "[pod ml/trainer-0] python" in r.stdout
    assert "[pod research/eval-1] python" in r.stdout


def test_without_attribution_nothing_is_shown(node):
    r = run(["status", "--no-attribution"] + node["flags"][:2], node["env"])
    assert r.returncode == 0, r.stderr
    assert "[job" not in r.stdout and "[pod" not in r.stdout
    j = run(["status", "--json", "--no-attribution"], node["env"])
    assert all(o["summary"] is None for o in owners_of(json.loads(j.stdout)).values())


def test_kubelet_down_costs_names_only_and_is_said_once(node):
    flags = list(node["flags"])
    flags[flags.index("--pod-resources-socket") + 1] = str(node["tmp"] / "missing.sock")
    start = time.monotonic()
    r = run(["status", "--json"] + flags, node["env"])
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - start < 10
    assert r.stderr.count("missing.sock") == 1, r.stderr
    owners = owners_of(json.loads(r.stdout))
    assert owners[4002]["pod"] is None and owners[4002]["pod_uid"] == POD_A_UID  # the cgroup still says
    assert owners[4001]["slurm_job_id"] == "4821"


def test_pmon_owner_column(node):
    r = run(["pmon", "-c", "1", "--owner"] + node["flags"], node["env"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].endswith("owner") and lines[1].endswith("pod/job")
    rows = {int(line.split()[1]): line for line in lines[2:] if line.split()[1].isdigit()}
    assert rows[4001].endswith("job 4821.0")
    assert rows[4002].endswith("pod ml/trainer-0")
    # The owner column starts where the header says.
    assert rows[4002].index("pod ml/") == lines[0].index("owner") == lines[1].index("pod/job")


def test_serve_metrics_labels_and_json_api(node):
    proc = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "127.0.0.1:0", "--no-record",
                             "--attribution-labels", "--metrics-compat", "dcgm"] + node["flags"],
                            env=node["env"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        match = re.search(r"listening on (http://[^/\s]+)/metrics", proc.stdout.readline())
        assert match, proc.stderr.read() if proc.poll() is not None else "no listen line"
        url = match.group(1)
        deadline, body = time.monotonic() + 20, ""
        while time.monotonic() < deadline:  # the pod list arrives from the attributor's thread
            with urllib.request.urlopen(url + "/metrics", timeout=5) as resp:
                body = resp.read().decode()
            if 'pod="eval-1"' in body and 'hpc_job="4821"' in body:
                break
            time.sleep(0.2)
        temp = [line for line in body.splitlines() if line.startswith("gpuwatch_temperature_gpu_celsius{")]
        assert any('gpu="0"' in line and 'hpc_job="4821"' in line and "pod=" not in line for line in temp), temp
        assert any('gpu="1"' in line and 'pod="trainer-0"' in line and 'namespace="ml"' in line
                   and 'container="pytorch"' in line for line in temp), temp
        assert any('gpu="2"' in line and 'pod="eval-1"' in line and 'namespace="research"' in line for line in temp)
        dcgm = [line for line in body.splitlines() if line.startswith("DCGM_FI_DEV_GPU_TEMP{")]
        assert any('pod="trainer-0"' in line for line in dcgm), dcgm
        with urllib.request.urlopen(url + "/api/v1/snapshot", timeout=5) as resp:
            snapshot = json.loads(resp.read().decode())
        owners = {p["pid"]: p["owner"] for g in snapshot["gpus"] for p in g["processes"]}
        assert owners[4001]["slurm_job_id"] == "4821"
        assert owners[4002]["pod"] == "trainer-0"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=15)


def test_serve_without_labels_flag_has_no_owner_labels(node):
    proc = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "127.0.0.1:0", "--no-record"]
                            + node["flags"], env=node["env"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        match = re.search(r"listening on (http://[^/\s]+)/metrics", proc.stdout.readline())
        assert match
        time.sleep(1.5)
        with urllib.request.urlopen(match.group(1) + "/metrics", timeout=5) as resp:
            body = resp.read().decode()
        assert "gpuwatch_temperature_gpu_celsius{" in body
        assert "hpc_job=" not in body and 'pod="' not in body
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=15)


def test_top_owner_column_says_which_job_and_pod(node, tmp_path):
    if not shutil.which("tmux"):
        pytest.skip("tmux is needed (scripts/install-deps)")
    scenario = str(node["tmp"] / "scenario.yaml")
    with Top(tmp_path, [], width=160, height=40, simulate=scenario, top_args=node["flags"]) as top:
        screen = top.wait_for(lambda s: "pod research/eval-1" in s and "job 4821.0" in s and "pod ml/trainer-0" in s,
                              seconds=20, what="the OWNER column with the job and both pods")
        header = next(line for line in screen.splitlines() if "PID" in line and "OWNER" in line)
        rows = {int(m.group(1)): line for line in screen.splitlines() if (m := re.match(r"\s*[▶ ]?\s*(400[123])\s", line))}
        assert set(rows) == {4001, 4002, 4003}, screen
        column = header.index("OWNER")
        assert rows[4001][column:].startswith("job 4821.0"), (header, rows[4001])
        assert rows[4002][column:].startswith("pod ml/trainer-0"), (header, rows[4002])
        assert rows[4003][column:].startswith("pod research/eval-1"), (header, rows[4003])
        top.quit()
        assert top.exit_status() == 0


def test_dashboard_owner_column_in_chromium(node):
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    proc = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "127.0.0.1:0", "--no-record"]
                            + node["flags"], env=node["env"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        match = re.search(r"listening on (http://[^/\s]+)/metrics", proc.stdout.readline())
        assert match, proc.stderr.read() if proc.poll() is not None else "no listen line"
        options = {"url": match.group(1), "chromium": CHROMIUM, "sourceDir": str(SOURCE_DIR),
                   "expect": ["job 4821.0", "pod ml/trainer-0", "pod research/eval-1"]}
        out = subprocess.run([NODE, str(pathlib.Path(__file__).with_name("dashboard_owner_check.mjs")),
                              json.dumps(options)], capture_output=True, text=True, timeout=90,
                             env=dict(os.environ, HOME=str(node["tmp"])))
        lines = out.stdout.strip().splitlines()
        assert lines, f"no result from the browser check (rc {out.returncode}): {out.stderr[-3000:]}"
        result = json.loads(lines[-1])
        assert out.returncode == 0 and "error" not in result, f"{result}\n{out.stderr[-3000:]}"
        assert not result["pageErrors"], result["pageErrors"]
        rows = {r["pid"]: r for r in result["rows"]}
        assert rows[4001]["owner"] == "job 4821.0" and "slurm_user: alice" in rows[4001]["title"]
        assert rows[4002]["owner"] == "pod ml/trainer-0" and f"pod_uid: {POD_A_UID}" in rows[4002]["title"]
        assert rows[4003]["owner"] == "pod research/eval-1"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=15)
