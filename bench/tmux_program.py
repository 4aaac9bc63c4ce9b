"""A terminal program run in its own detached tmux server (200x50), for the `top` benches
(top_vs_nvtop.py, top_threads.py): started, its process found by name under the pane, and
stopped with everything under the pane before the terminal goes (nvtop spins at full CPU on a
hung-up pty: a leftover one slowed this machine down for an hour)."""
import contextlib
import os
import signal
import subprocess
import time
import uuid


def descendants(pid):
    out = []
    for child in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split():
        out += [int(child)] + descendants(int(child))
    return out


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


@contextlib.contextmanager
def program_in_tmux(command, process_name):
    """Runs COMMAND in a 200x50 tmux pane; yields the pid of its process named PROCESS_NAME."""
    tmux = ["tmux", "-L", f"gw-bench-{uuid.uuid4().hex[:8]}"]
    subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-s", "t", command],
                   check=True)
    pane = None
    try:
        pane = int(subprocess.run(tmux + ["display", "-p", "-t", "t", "#{pane_pid}"], capture_output=True,
                                  text=True).stdout)
        pid = None
        for _ in range(100):
            pid = next((p for p in [pane] + descendants(pane) if comm(p) == process_name), None)
            if pid:
                break
            time.sleep(0.1)
        if not pid:
            raise SystemExit(f"no {process_name} process under `{command}`")
        yield pid
    finally:
        for p in reversed(descendants(pane)) if pane else []:
            try:
                os.kill(p, signal.SIGTERM)
            except ProcessLookupError:
                pass
        time.sleep(0.5)
        subprocess.run(tmux + ["kill-server"], capture_output=True)
