"""deploy/systemd/gpuwatch.service: the unit runs `gpuwatch serve` on loopback as a
dedicated, unprivileged user with the hardening keys issue 4 asks for, systemd-analyze
verify accepts it (pointed at the built binary), and its offline security exposure is
low. The unit's serve command line is also run for real against the simulator."""
import os
import re
import shlex
import shutil
import subprocess
import time

import pytest

from test_serve import BIN, sim_env

UNIT = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "deploy", "systemd", "gpuwatch.service")
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze missing (package systemd)")


def parse_unit(text):
    """{section: {key: [values in order]}}; comments and blank lines skipped."""
    sections, current = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        m = re.fullmatch(r"\[(\w+)\]", line)
        if m:
            current = sections.setdefault(m.group(1), {})
            continue
        assert current is not None and "=" in line, f"not a unit line: {raw!r}"
        key, value = line.split("=", 1)
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.fixture(scope="module")
def unit():
    with open(UNIT, encoding="utf-8") as f:
        return parse_unit(f.read())


def one(unit, key):
    values = unit["Service"].get(key)
    assert values, f"{key} missing"
    return values[-1]


def test_serves_on_loopback_9835(unit):
    argv = shlex.split(one(unit, "ExecStart"))
    assert argv[:2] == ["/usr/bin/gpuwatch", "serve"]
    assert argv[argv.index("--listen") + 1] == "127.0.0.1:9835"
    assert "--insecure-allow-unauthenticated" not in argv
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_type_matches_what_serve_does(unit):
    """Type=notify only once serve tells systemd it is ready; until then a notify unit would
    time out at start. serve links no libsystemd today."""
    source = os.environ["GPUWATCH_SOURCE_DIR"]
    grep = subprocess.run(["grep", "-rlE", "sd_notify|NOTIFY_SOCKET", os.path.join(source, "src")],
                          capture_output=True, text=True)
    expected = "notify" if grep.stdout.strip() else "simple"
    assert one(unit, "Type") == expected


def test_runs_as_a_dedicated_unprivileged_user(unit):
    service = unit["Service"]
    assert service.get("DynamicUser") == ["yes"] or service.get("User", ["root"])[-1] not in ("root", "0")
    assert one(unit, "NoNewPrivileges") == "yes"
    assert one(unit, "CapabilityBoundingSet") == ""  # empty: no capabilities at all
    assert service.get("AmbientCapabilities", [""]) == [""]


def test_hardening_keys(unit):
    expected = {
        "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "StateDirectory": "gpuwatch",
        "MemoryDenyWriteExecute": "yes", "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes",
        "ProtectControlGroups": "yes", "RestrictNamespaces": "yes", "RestrictRealtime": "yes",
        "RestrictSUIDSGID": "yes", "LockPersonality": "yes", "SystemCallArchitectures": "native",
        "DevicePolicy": "closed",
    }
    wrong = {k: unit["Service"].get(k) for k, v in expected.items() if unit["Service"].get(k, [None])[-1] != v}
    assert not wrong, f"hardening keys missing or different: {wrong}"
    assert "@system-service" in unit["Service"]["SystemCallFilter"]
    assert set(one(unit, "RestrictAddressFamilies").split()) == {"AF_INET", "AF_INET6", "AF_UNIX"}


def test_nvidia_devices_stay_reachable(unit):
    """PrivateDevices=yes would hide /dev/nvidia*; the closed device policy lists them instead."""
    assert unit["Service"].get("PrivateDevices", ["no"])[-1] == "no"
    allowed = {v.split()[0]: v.split()[1] for v in unit["Service"]["DeviceAllow"]}
    assert allowed["/dev/nvidiactl"] == "rw"
    assert allowed["char-nvidia-frontend"] == "rw"  # /dev/nvidia<N>
    assert "char-nvidia-uvm" in allowed
    # NVML reads /proc/driver/nvidia: no ProcSubset=pid.
    assert unit["Service"].get("ProcSubset", ["all"])[-1] == "all"


def unit_with_built_binary(tmp_path):
    """The unit with ExecStart pointed at the built binary (verify wants it to exist)."""
    with open(UNIT, encoding="utf-8") as f:
        text = f.read()
    path = tmp_path / "gpuwatch.service"
    path.write_text(text.replace("ExecStart=/usr/bin/gpuwatch ", f"ExecStart={BIN} "))
    return path


@needs_analyze
def test_systemd_analyze_verify_accepts_the_unit(tmp_path):
    path = unit_with_built_binary(tmp_path)
    out = subprocess.run([SYSTEMD_ANALYZE, "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # Unknown or misspelled keys are only warnings: refuse any message about the unit.
    complaints = [line for line in out.stderr.splitlines() if "gpuwatch.service" in line]
    assert not complaints, complaints


@needs_analyze
def test_systemd_analyze_verify_catches_a_misspelled_key(tmp_path):
    """The check above can fail: a typo in a hardening key is reported."""
    path = unit_with_built_binary(tmp_path)
    path.write_text(path.read_text().replace("NoNewPrivileges=yes", "NoNewPrivilege=yes"))
    out = subprocess.run([SYSTEMD_ANALYZE, "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert "Unknown key" in out.stderr and "NoNewPrivilege" in out.stderr


@needs_analyze
def test_security_exposure_is_low(tmp_path):
    path = unit_with_built_binary(tmp_path)
    out = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=yes", "--no-pager", str(path)],
                         capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for gpuwatch\.service: (\d+\.\d+)", out.stdout)
    if m is None and "--offline" in out.stderr:
        pytest.skip("this systemd-analyze has no --offline (systemd < 250)")
    assert m, out.stdout + out.stderr
    assert float(m.group(1)) <= 2.5, out.stdout  # systemd rates <= 2.5 as "OK"


def test_the_unit_command_line_serves(tmp_path):
    """ExecStart's arguments, run for real on the simulator (port 0 instead of 9835)."""
    argv = shlex.split(parse_unit(open(UNIT, encoding="utf-8").read())["Service"]["ExecStart"][-1])
    argv = [BIN, "--simulate", "training"] + [("127.0.0.1:0" if a == "127.0.0.1:9835" else a) for a in argv[1:]]
    proc = subprocess.Popen(argv, env=sim_env("training", 60), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    try:
        line = proc.stdout.readline()
        assert re.search(r"listening on http://127\.0\.0\.1:\d+/metrics", line), line
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, "serve exits 0 on SIGTERM (systemctl stop)"


def test_serve_tells_systemd_when_it_is_ready_and_stopping(tmp_path):
    """Type=notify: READY=1 arrives on $NOTIFY_SOCKET once every GPU has a sample, STOPPING=1 on SIGTERM."""
    import socket

    path = str(tmp_path / "notify.sock")
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(path)
    manager.settimeout(15)
    env = dict(sim_env("training", 60), NOTIFY_SOCKET=path)
    proc = subprocess.Popen([BIN, "--simulate", "training", "serve", "--listen", "127.0.0.1:0", "--interval", "200ms"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        ready = manager.recv(4096).decode()
        assert ready.splitlines()[0] == "READY=1", ready
        assert "serving 2 GPUs" in ready, ready
        proc.terminate()
        assert manager.recv(4096).decode() == "STOPPING=1"
    finally:
        manager.close()
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0


def notify_session(tmp_path, extra_env, seconds):
    """Runs serve under a fake service manager (an AF_UNIX datagram socket as NOTIFY_SOCKET)
    with EXTRA_ENV for SECONDS after READY=1; returns [(monotonic time, message)] received."""
    import socket

    path = str(tmp_path / "notify.sock")
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(path)
    env = dict(sim_env("training", 60), NOTIFY_SOCKET=path, **extra_env)
    proc = subprocess.Popen([BIN, "--simulate", "training", "serve", "--listen", "127.0.0.1:0", "--interval", "200ms"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    received, ready_at = [], None
    try:
        deadline = time.monotonic() + 15  # bounded: readiness, then SECONDS more
        while time.monotonic() < deadline:
            manager.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                message = manager.recv(4096).decode()
            except socket.timeout:
                break
            received.append((time.monotonic(), message))
            if ready_at is None and message.startswith("READY=1"):
                ready_at = received[-1][0]
                deadline = ready_at + seconds
        proc.terminate()
        manager.settimeout(10)
        received.append((time.monotonic(), manager.recv(4096).decode()))
    finally:
        manager.close()
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0
    assert ready_at is not None, f"no READY=1: {received}"
    assert received[-1][1] == "STOPPING=1", received
    return received


def test_serve_pings_the_systemd_watchdog(tmp_path):
    """WatchdogSec=: systemd sets WATCHDOG_USEC (and WATCHDOG_PID); serve sends WATCHDOG=1
    every WATCHDOG_USEC/2 while it is healthy. Here 400 ms: a ping every 200 ms."""
    received = notify_session(tmp_path, {"WATCHDOG_USEC": "400000"}, seconds=2.0)
    messages = [m for _, m in received]
    ready = next(i for i, m in enumerate(messages) if m.startswith("READY=1"))
    pings = [t for t, m in received[ready:] if m == "WATCHDOG=1"]
    # About 10 in the 2 s after READY=1; at least 3 even on a loaded machine, never more
    # than one per 200 ms interval (plus the edges).
    assert 3 <= len(pings) <= 2.0 / 0.2 + 2, messages
    assert set(messages) <= {"WATCHDOG=1", "STOPPING=1"} | {m for m in messages if m.startswith("READY=1")}


def test_serve_does_not_ping_a_watchdog_meant_for_another_process(tmp_path):
    """WATCHDOG_PID names another pid (a variable inherited from a parent service): no pings."""
    received = notify_session(tmp_path, {"WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"}, seconds=1.0)
    assert "WATCHDOG=1" not in [m for _, m in received], received


def test_the_unit_enables_the_watchdog(unit):
    """WatchdogSec= is set (in seconds, long enough that a loaded machine does not trip it),
    and Restart= restarts the service when the watchdog fires."""
    value = one(unit, "WatchdogSec")
    m = re.fullmatch(r"(\d+)s", value)
    assert m, f"WatchdogSec={value}: expected seconds, e.g. 30s"
    assert 10 <= int(m.group(1)) <= 300
    assert one(unit, "Restart") in ("on-failure", "on-watchdog", "on-abnormal", "always")
