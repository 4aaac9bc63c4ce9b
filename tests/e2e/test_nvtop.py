"""nvtop 3.0.1 (Debian's) on the simulated driver, in a detached tmux terminal.

nvtop dlopens "libnvidia-ml.so" before "libnvidia-ml.so.1", uses the v1 process
structs and aborts on used > total memory or divides by a zero total: the simulator
must feed it sane values for a few seconds of refreshes.
"""
import os
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import yaml

GPUWATCH = os.environ.get("GPUWATCH_BIN", "gpuwatch")
SOURCE_DIR = Path(os.environ.get("GPUWATCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCENARIOS = SOURCE_DIR / "sim" / "scenarios"
NVTOP = "/usr/bin/nvtop"

pytestmark = pytest.mark.skipif(not (Path(NVTOP).exists() and shutil.which("tmux")),
                                reason="nvtop and tmux are needed (scripts/install-deps)")


class Tmux:
    """A private tmux server (its own socket) running one command in a 200x50 pane.

    The command's exit status is written to a file by the pane's shell, which is more
    dependable than tmux's own pane_dead_status."""

    def __init__(self, command, status_dir):
        self.socket = f"gw-nvtop-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.status_file = Path(status_dir) / f"{self.socket}.status"
        self.command = command

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10,
                              check=check)

    def __enter__(self):
        script = f"sleep 0.3; {self.command}; echo $? > {shlex.quote(str(self.status_file))}; sleep 600"
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-s", "t", "sh", "-c", script)
        return self

    def __exit__(self, *exc):
        self.tmux("kill-server", check=False)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "t").stdout

    def exit_status(self):
        """None while the command runs, then its exit status (128+N: killed by signal N)."""
        try:
            text = self.status_file.read_text().strip()
        except FileNotFoundError:
            return None
        return int(text) if text else None

    def wait_for(self, predicate, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            text = self.screen()
            if predicate(text) or self.exit_status() is not None:
                return text
            time.sleep(0.2)
        return self.screen()


def nvtop_in_tmux(scenario, status_dir):
    return Tmux(f"{shlex.quote(GPUWATCH)} sim run {shlex.quote(scenario)} -- {NVTOP}", status_dir)


def expected_names(scenario):
    """The GPU names nvtop must show, as gpustat-independent truth: asked through pynvml."""
    script = ("import pynvml as n; n.nvmlInit(); "
              "print('\\n'.join(n.nvmlDeviceGetName(n.nvmlDeviceGetHandleByIndex(i)) "
              "for i in range(n.nvmlDeviceGetCount())))")
    result = subprocess.run([GPUWATCH, "sim", "run", scenario, "--", "/usr/bin/python3", "-c", script],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return [n for n in result.stdout.splitlines() if n]


def run_nvtop_for_a_while(scenario, status_dir, seconds=4.0, marker=None):
    """Runs nvtop until MARKER (default: the first GPU's name) shows, then SECONDS more; quits it."""
    names = expected_names(scenario) if marker is None else []
    marker = marker or names[0]
    with nvtop_in_tmux(scenario, status_dir) as term:
        screen = term.wait_for(lambda text: marker in text, 15)
        assert term.exit_status() is None, f"nvtop ended early with {term.exit_status()}\n{screen}"
        assert marker in screen, screen
        time.sleep(seconds)  # several refreshes (nvtop's default is 1 s)
        screen = term.screen()
        assert term.exit_status() is None, f"nvtop died with status {term.exit_status()}\n{screen}"
        term.tmux("send-keys", "-t", "t", "q")
        term.wait_for(lambda text: False, 5)
        if term.exit_status() is None:  # some builds only take F10
            term.tmux("send-keys", "-t", "t", "F10")
            term.wait_for(lambda text: False, 5)
        status = term.exit_status()
        assert status is not None, "nvtop did not quit on 'q' / F10"
        assert status == 0, f"nvtop exited with {status}\n{screen}"
        return names, screen


def test_nvtop_shows_the_demo_gpus_without_crashing(tmp_path):
    if not (SCENARIOS / "demo.yaml").exists():
        pytest.skip("no demo scenario yet")
    names, screen = run_nvtop_for_a_while("demo", tmp_path)
    assert len(names) == 8
    # nvtop's header lines: "Device N [NAME] PCIe GEN ..."; the 200x50 pane shows at least four.
    for index in range(4):
        assert f"Device {index}" in screen, screen
    assert "No GPU to monitor" not in screen


def test_nvtop_survives_a_consumer_card(tmp_path):
    """NOT_SUPPORTED fields on a GeForce must only hide values."""
    scenario = tmp_path / "geforce.yaml"
    scenario.write_text("name: geforce\ngpus:\n  - model: RTX 4090\n    processes:\n"
                        "      - {command: python game.py, memory: 2048}\n")
    names, screen = run_nvtop_for_a_while(str(scenario), tmp_path, seconds=2.5)
    assert names == ["NVIDIA GeForce RTX 4090"]
    # The process list: the stand-in's PID resolves in /proc, so nvtop shows its command line.
    assert "python game.py" in screen, screen
    assert "2048MiB" in screen, screen


# Pathologies that hit nvtop 3.0.1's crash hazards (memory near or past the total, lost GPU,
# MIG's NOT_SUPPORTED utilization, an old driver without _v2 symbols, reached through
# nvtop's own fallbacks).
@pytest.mark.parametrize("scenario", ["memory_leak", "fragmentation", "mig", "gpu_lost", "old_driver"])
def test_nvtop_survives_the_pathologies(tmp_path, scenario):
    if not (SCENARIOS / f"{scenario}.yaml").exists():
        pytest.skip(f"no {scenario} scenario")
    _, screen = run_nvtop_for_a_while(scenario, tmp_path, seconds=2.0, marker="Device 0 [")
    assert "No GPU to monitor" not in screen
