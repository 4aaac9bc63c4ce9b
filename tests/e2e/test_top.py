"""`gpuwatch top` (issue 13), the real binary in a detached tmux terminal on the simulator.

Each test starts its own private tmux server (its own socket), runs `gpuwatch --simulate ...
top` in a pane of a given size, drives it with send-keys and reads it with capture-pane. Waits
poll the screen every 50 ms with a deadline; nothing sleeps for long. The file stays under a
minute on a 2-core machine.
"""
import os
import re
import shlex
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

GPUWATCH = os.environ.get("GPUWATCH_BIN", "gpuwatch")

pytestmark = pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is needed (scripts/install-deps)")


class Top:
    """gpuwatch top in a WIDTHxHEIGHT tmux pane; the exit status goes to a file."""

    def __init__(self, tmp_path, args, width=80, height=24, env=None, simulate="demo", top_args=()):
        self.socket = f"gw-top-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.status_file = Path(tmp_path) / f"{self.socket}.status"
        self.config_home = Path(tmp_path) / "config"
        env_text = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        command = " ".join(shlex.quote(a) for a in [GPUWATCH, "--simulate", simulate, "top", *top_args])
        self.script = (f"export XDG_CONFIG_HOME={shlex.quote(str(self.config_home))} {env_text}; "
                       f"{command}; echo $? > {shlex.quote(str(self.status_file))}; sleep 600")
        self.width, self.height = width, height

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10,
                              check=check)

    def __enter__(self):
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", str(self.width), "-y", str(self.height), "-s", "t",
                  "sh", "-c", self.script)
        return self

    def __exit__(self, *exc):
        self.tmux("kill-server", check=False)

    def screen(self, escapes=False):
        return self.tmux("capture-pane", "-p", *(["-e"] if escapes else []), "-t", "t").stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def exit_status(self):
        try:
            text = self.status_file.read_text().strip()
        except FileNotFoundError:
            return None
        return int(text) if text else None

    def wait_for(self, predicate, seconds=10.0, what="the screen"):
        end = time.monotonic() + seconds
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if self.exit_status() is not None:
                pytest.fail(f"gpuwatch top ended with {self.exit_status()} while waiting for {what}\n{text}")
            if time.monotonic() > end:
                pytest.fail(f"timed out waiting for {what}\n{text}")
            time.sleep(0.05)

    def quit(self):
        self.keys("q")
        end = time.monotonic() + 10
        while self.exit_status() is None and time.monotonic() < end:
            time.sleep(0.05)
        return self.exit_status()


def process_area(screen):
    """The lines from the process list's header on."""
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        if "PID" in line and "COMMAND" in line:
            return "\n".join(lines[i:])
    return ""


def test_demo_on_80x24_sorts_filters_and_quits_cleanly(tmp_path):
    with Top(tmp_path, [], 80, 24) as top:
        screen = top.wait_for(lambda s: "[7]" in s and "python" in s, what="8 GPUs and their processes")
        for i in range(8):
            assert f"[{i}]" in screen
        assert "H100" in screen and "driver 550.90.07" in screen and "[simulated: demo]" in screen
        assert "GPU-MEM▼" in screen  # the default sort, biggest first
        assert all(len(line) <= 80 for line in screen.splitlines())
        # s: the next column after GPU-MEM is CPU%.
        top.keys("s")
        top.wait_for(lambda s: "CPU%▼" in s, 2, "the sort marker on CPU%")
        top.keys("S", "S")
        top.wait_for(lambda s: "GPU%▼" in s, 2, "the sort marker on GPU%")
        # /eval<Enter>: only the eval server is left.
        top.keys("/")
        top.wait_for(lambda s: "Filter (regex" in s, 2, "the filter prompt")
        top.keys("eval", "Enter")
        screen = top.wait_for(lambda s: "eval_server" in process_area(s) and "train.py" not in process_area(s), 3,
                              "the filtered list")
        assert "/eval" in screen.splitlines()[0]  # the title says a filter is on
        # A bad regex is refused with a message, and the old filter stays.
        top.keys("/", "BSpace", "BSpace", "BSpace", "BSpace", "(", "Enter")
        top.wait_for(lambda s: "invalid regex" in s, 2, "the regex error")
        top.keys("Escape", "Escape")
        top.wait_for(lambda s: "train.py" in process_area(s), 3, "every process again")
        # ?: the help, any key closes it.
        top.keys("?")
        top.wait_for(lambda s: "Keys (any key closes this help)" in s, 2, "the help")
        top.keys("x")
        top.wait_for(lambda s: "Keys (any key" not in s and "[7]" in s, 2, "the help closed")
        assert top.quit() == 0
        # The terminal is restored: tmux's alternate screen is off again.
        assert top.tmux("display", "-p", "-t", "t", "#{alternate_on}").stdout.strip() == "0"


def test_gpu_selection_layout_key_and_resize(tmp_path):
    with Top(tmp_path, [], 120, 40) as top:
        top.wait_for(lambda s: "[7]" in s and "python" in s, what="the demo node")
        assert has_colour(top.screen(escapes=True))  # colours are on by default (test_no_color_gives_mono)
        top.keys("g", "g", "g", "g")  # all -> 0 -> 1 -> 2 -> 3
        screen = top.wait_for(lambda s: "GPU 3" in s.splitlines()[0]
                              and re.search(r"^\s*\d+\s+\S+\s+3\s", process_area(s), re.M), 3, "GPU 3's process only")
        rows = [l for l in process_area(screen).splitlines()[1:] if re.match(r"\s*\d+ ", l)]
        assert rows and all(re.match(r"\s*\d+\s+\S+\s+3\s", r) for r in rows), screen
        top.keys("a")
        top.wait_for(lambda s: "GPU 3" not in s.splitlines()[0], 2, "every GPU again")
        # l cycles the layout: auto -> panels -> compact -> lines.
        top.keys("l", "l", "l")
        screen = top.wait_for(lambda s: "layout: lines" in s, 2, "the lines layout")
        top.keys("l")  # back to auto
        top.wait_for(lambda s: "layout: auto" in s, 2, "auto again")
        # Resizing mid-run: 200x60 gets panels with bars and charts.
        top.tmux("resize-window", "-t", "t", "-x", "200", "-y", "60")
        screen = top.wait_for(lambda s: "┌[0]" in s and "util " in s, 5, "panels at 200x60")
        assert re.search(r"GPU █+", screen), screen
        assert "/700W" in screen and "°C" in screen and "RX " in screen
        assert top.quit() == 0


def test_sixty_four_gpus(tmp_path):
    with Top(tmp_path, [], 200, 60, simulate="node64") as top:
        screen = top.wait_for(lambda s: "[63]" in s and "[0]" in s, 20, "all 64 GPUs")
        assert all(f"[{i}]" in screen for i in range(64)), screen
        assert "64 GPUs" in screen.splitlines()[0]
        top.tmux("resize-window", "-t", "t", "-x", "80", "-y", "24")
        screen = top.wait_for(lambda s: "of 64" in s, 5, "the scrolling GPU area at 80x24")
        assert "PID" in screen and "COMMAND" in screen  # the process list keeps its rows
        top.keys("G")  # the last GPU: the area scrolls to it
        top.wait_for(lambda s: "[63]" in s, 3, "GPU 63 in view")
        assert top.quit() == 0


def test_hung_gpu_is_stale_while_keys_answer_at_once(tmp_path):
    # sick_gpu's hang, moved to the start: GPU 1's temperature call hangs 10 s from 1 s on.
    scenario = tmp_path / "sick_now.yaml"
    scenario.write_text(
        "name: sick_now\n"
        "description: sick_gpu with the hang at the start\n"
        "gpus:\n"
        "  - model: H100 SXM 80GB\n"
        "    count: 2\n"
        "    phases:\n"
        "      - {kind: training, duration: 1h}\n"
        "faults:\n"
        "  - {function: nvmlDeviceGetTemperature, gpu: 1, from: 1s, until: 30s, hang_s: 10}\n")
    with Top(tmp_path, [], 100, 30, simulate=str(scenario), top_args=["-d", "250ms"]) as top:
        top.wait_for(lambda s: "[1]" in s, what="two GPUs")
        screen = top.wait_for(lambda s: "STALE" in s, 10, "GPU 1 stale")
        assert re.search(r"STALE \d+(\.\d)?s", screen), screen
        worst = 0.0
        for key, expect in (("?", lambda s: "Keys (any key" in s), ("x", lambda s: "Keys (any key" not in s),
                            ("p", lambda s: "PAUSED" in s), ("p", lambda s: "PAUSED" not in s)):
            t0 = time.monotonic()
            top.keys(key)
            top.wait_for(expect, 2, f"the answer to {key!r}")
            worst = max(worst, time.monotonic() - t0)
        # tmux's own round trips (send-keys, capture-pane) are in this figure too.
        assert worst < 0.5, f"a key took {worst:.3f} s while GPU 1 hangs"
        print(f"worst key-to-screen time while a GPU hangs: {worst * 1000:.0f} ms")
        assert top.quit() == 0


def exited(pid):
    """Gone, or a zombie (the stand-in's parent, gpuwatch, reaps it when it exits)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_signal_with_confirmation_and_readonly(tmp_path):
    with Top(tmp_path, [], 120, 30) as top:
        top.wait_for(lambda s: "eval_server" in s, what="the eval server")
        top.keys("/", "eval_server", "Enter")
        screen = top.wait_for(lambda s: "train.py" not in process_area(s), 3, "only the eval server")
        row = next(l for l in process_area(screen).splitlines()[1:] if "eval_server" in l)
        pid = int(row.split()[0])
        os.kill(pid, 0)  # a real stand-in process
        top.keys("K")
        top.wait_for(lambda s: "SIGTERM" in s and "SIGKILL" in s, 2, "the signal menu")
        top.keys("Enter")
        top.wait_for(lambda s: f"Send SIGTERM to PID {pid}" in s, 2, "the confirmation")
        top.keys("y")
        top.wait_for(lambda s: f"sent SIGTERM to PID {pid}" in s, 2, "the signal sent")
        end = time.monotonic() + 5
        while time.monotonic() < end and not exited(pid):
            time.sleep(0.05)
        assert exited(pid), f"PID {pid} still runs after SIGTERM"
        assert top.quit() == 0
    with Top(tmp_path, [], 120, 30, top_args=["--readonly"]) as top:
        top.wait_for(lambda s: "python" in s, what="processes")
        top.keys("K")
        screen = top.wait_for(lambda s: "sending signals is disabled" in s, 2, "the read-only refusal")
        assert "SIGTERM" not in screen
        assert top.quit() == 0


def has_colour(escaped):
    return re.search(r"\x1b\[[0-9;]*3[1-6]m|\x1b\[[0-9;]*38;5;", escaped) is not None


def test_no_color_gives_mono(tmp_path):
    # (test_gpu_selection_layout_key_and_resize checks that colours are on without NO_COLOR.)
    with Top(tmp_path, [], 100, 30, env={"NO_COLOR": "1"}) as top:
        top.wait_for(lambda s: "[7]" in s, what="the demo node")
        escaped = top.screen(escapes=True)
        assert not has_colour(escaped), escaped
        top.keys("T")
        top.wait_for(lambda s: "colours are off" in s, 2, "the theme key refused")
        assert top.quit() == 0


def test_config_saved_from_the_ui_is_read_back(tmp_path):
    with Top(tmp_path, [], 100, 30) as top:
        top.wait_for(lambda s: "[7]" in s, what="the demo node")
        top.keys("l", "l", "l", "s", "w")  # lines layout, sort by CPU%, save
        top.wait_for(lambda s: "settings saved to" in s, 2, "the save message")
        assert top.quit() == 0
        saved = (top.config_home / "gpuwatch" / "top.yaml").read_text()
    assert "layout: lines" in saved and "sort: cpu_percent" in saved
    with Top(tmp_path, [], 100, 30) as top:
        screen = top.wait_for(lambda s: "[7]" in s, what="the demo node")
        assert "[lines" in screen and "CPU%▼" in screen, screen
        assert top.quit() == 0


def test_bad_interval_and_config_are_clear_errors(tmp_path):
    r = subprocess.run([GPUWATCH, "--simulate", "demo", "top", "-d", "100ms"], capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 2 and "-d/--interval" in r.stderr and "250ms" in r.stderr, r.stderr
    bad = tmp_path / "top.yaml"
    bad.write_text("layout: grid\n")
    # The settings are checked before NVML is opened: no simulator needed for these.
    r = subprocess.run([GPUWATCH, "top", "--config", str(bad)], capture_output=True, text=True, timeout=20)
    assert r.returncode == 2 and f"{bad}: layout: 'grid'" in r.stderr, r.stderr
    assert "No NVIDIA GPU" not in r.stderr
    r = subprocess.run([GPUWATCH, "top", "--config", str(tmp_path / "none.yaml")], capture_output=True, text=True,
                       timeout=20, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "needs a terminal" in r.stderr, r.stderr


def start_serve(tmp_path, scenario, name, extra=()):
    """`gpuwatch --simulate SCENARIO serve` on a free loopback port; returns (process, url)."""
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / f"state-{name}"))
    proc = subprocess.Popen([GPUWATCH, "--simulate", scenario, "serve", "--listen", "127.0.0.1:0", "--no-record",
                             "--interval", "500ms", *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    match = re.search(r"listening on (http://[^/\s]+)/metrics", proc.stdout.readline())
    if not match:
        proc.kill()
        pytest.fail("serve did not start")
    return proc, match.group(1)


def events_status(url):
    """The HTTP status of GET /api/v1/events (200: a stream slot was free; the stream is closed at once)."""
    try:
        with urllib.request.urlopen(url + "/api/v1/events", timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_two_hosts_one_killed_shows_down_while_the_other_updates(tmp_path):
    # Each serve allows one event stream: top's own, so a second one is refused (503) while top runs.
    a, url_a = start_serve(tmp_path, "training", "a", ["--max-event-streams", "1"])  # 2 GPUs each
    b, url_b = start_serve(tmp_path, "training", "b", ["--max-event-streams", "1"])
    try:
        host_a, host_b = url_a.split("//")[1], url_b.split("//")[1]
        with Top(tmp_path, [], 120, 30, top_args=["--connect", f"{url_a},{url_b}", "-d", "250ms",
                                                  "--layout", "compact"]) as top:
            screen = top.wait_for(lambda s: f"[{host_a}:1]" in s and f"[{host_b}:0]" in s and "all up" in s, 15,
                                  "both hosts' GPUs, both streaming")
            assert "2 hosts" in screen.splitlines()[0]
            # top holds each host's only stream slot: the values come from the event stream.
            assert events_status(url_a) == 503 and events_status(url_b) == 503
            a.kill()
            a.wait(timeout=10)
            screen = top.wait_for(lambda s: "DOWN" in s, 5, "host a down")
            line_a = next(l for l in screen.splitlines() if f"[{host_a}:0]" in l)
            assert "DOWN" in line_a
            line_b = next(l for l in screen.splitlines() if f"[{host_b}:0]" in l)
            assert "DOWN" not in line_b and "%" in line_b  # still has values
            top.wait_for(lambda s: "1 up, 1 down" in s.splitlines()[0], 5, "b still up")
            # b stays up, and keys still answer at once.
            t0 = time.monotonic()
            top.keys("?")
            top.wait_for(lambda s: "Keys (any key" in s, 2, "the help while a host is down")
            assert time.monotonic() - t0 < 0.5
            top.keys("x")
            assert top.quit() == 0
    finally:
        for p in (a, b):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()


def test_a_refused_stream_falls_back_to_polling(tmp_path):
    # The host's only stream slot is taken (by this test) before top connects: 503, so top polls.
    a, url_a = start_serve(tmp_path, "training", "a", ["--max-event-streams", "1"])
    holder = None
    try:
        holder = urllib.request.urlopen(url_a + "/api/v1/events", timeout=5)
        assert holder.status == 200
        host_a = url_a.split("//")[1]
        with Top(tmp_path, [], 120, 30, top_args=["--connect", url_a, "-d", "250ms", "--layout", "compact"]) as top:
            screen = top.wait_for(lambda s: f"[{host_a}:1]" in s and "all up (1 polled)" in s, 15, "the GPUs, polled")
            line = next(l for l in screen.splitlines() if f"[{host_a}:0]" in l)
            assert "DOWN" not in line and "%" in line
            # The slot comes back: top opens its stream (it retries a refused one after 5 s).
            holder.close()
            holder = None
            top.wait_for(lambda s: "all up" in s and "polled" not in s, 15, "the stream once a slot is free")
            assert top.quit() == 0
    finally:
        if holder:
            holder.close()
        a.terminate()
        try:
            a.wait(timeout=10)
        except subprocess.TimeoutExpired:
            a.kill()


def test_tree_view_puts_gpu_processes_under_their_parents(tmp_path):
    # The demo's stand-in processes are children of gpuwatch itself (the simulator starts them),
    # which runs under the pane's shell: the tree shows that chain above the GPU processes.
    with Top(tmp_path, [], 160, 40) as top:
        top.wait_for(lambda s: "eval_server" in s, what="the processes")
        top.keys("t")
        screen = top.wait_for(lambda s: "tree view" in s and "└─ python" in s, 3, "the tree view")
        rows = process_area(screen).splitlines()[1:]
        launcher = next(i for i, r in enumerate(rows) if "--simulate demo top" in r)
        workers = [i for i, r in enumerate(rows) if "└─ python" in r]
        assert workers and all(i > launcher for i in workers), screen
        indent = lambda r: r.find("└─")  # -1 for a root
        assert all(indent(rows[i]) > indent(rows[launcher]) for i in workers), screen
        top.keys("t")
        top.wait_for(lambda s: "tree view off" in s and "└─" not in process_area(s), 3, "the flat list again")
        assert top.quit() == 0


def test_a_finding_shows_under_its_gpu(tmp_path):
    # ecc_errors (time_scale 10): after 3 s the A100 reports uncorrectable ECC errors and asks for
    # a reset; the diagnose engine's finding line goes under the GPU's bars, in the GPU's panel.
    with Top(tmp_path, [], 120, 30, simulate="ecc_errors") as top:
        # Both are critical and start together; which one heads the line depends on which sample saw
        # the first uncorrectable error, and the others are counted in "(+N more)".
        headline = re.compile(r"│! (driver asks for recovery: GPU Reset|uncorrectable ECC errors \(\d+\))")
        screen = top.wait_for(lambda s: headline.search(s), 20, "the finding line")
        lines = screen.splitlines()
        finding = next(i for i, line in enumerate(lines) if headline.search(line))
        bars = next(i for i, line in enumerate(lines) if "TMP" in line)
        header = process_area(screen).splitlines()[0]
        assert bars < finding < lines.index(header), screen  # in the panel, under the bars
        assert lines[finding].startswith("│") and lines[finding].rstrip().endswith("│"), lines[finding]
        assert top.quit() == 0


def test_host_line_under_the_title_fits_and_goes_with_no_host(tmp_path):
    """Issue 25: the simulated host of `host_io_bound` (iowait 55 %, the disk reading 180 MB/s,
    99 % busy, no InfiniBand) on the line under the title; compact and cut from the right on 80
    columns, never wrapped; `--no-host` leaves it out."""
    line = re.compile(r"^host  CPU (\d+) % \(iowait (\d+) %.*\| disk R (\d+) MB/s.*busy (\d+) %")
    with Top(tmp_path, [], width=200, height=30, simulate="host_io_bound") as top:
        screen = top.wait_for(lambda s: any(line.match(l) for l in s.splitlines()), what="the wide host line")
        rows = screen.splitlines()
        host = next(r for r in rows if line.match(r))
        assert rows.index(host) == 1, screen  # right under the title
        cpu, iowait, read_mb, busy = (int(v) for v in line.match(host).groups())
        assert 40 <= iowait <= 70 and 150 <= read_mb <= 210 and busy >= 90, host
        assert "IB" not in host, host  # no InfiniBand: left out, not 0
        top.tmux("resize-window", "-t", "t", "-x", "80", "-y", "24")
        screen = top.wait_for(lambda s: s.splitlines()[1].startswith("host  CPU ") and "io " in s.splitlines()[1],
                              what="the compact host line")
        rows = screen.splitlines()
        assert len(rows[1]) <= 80 and "[0]" in rows[2], screen  # one row, the GPUs right below
        top.tmux("resize-window", "-t", "t", "-x", "50", "-y", "24")
        narrow = re.compile(r"^host  CPU \d+% io \d+% \| mem \d+% avail$")  # disk and net left out
        screen = top.wait_for(lambda s: narrow.match(s.splitlines()[1].rstrip()), what="the host line on 50 columns")
        assert "[0]" in screen.splitlines()[2], screen
        top.quit()
    with Top(tmp_path, [], width=200, height=30, simulate="host_io_bound", top_args=["--no-host"]) as top:
        screen = top.wait_for(lambda s: "[0]" in s, what="the GPUs")
        time.sleep(1.5)  # past a host sampling interval
        screen = top.screen()
        assert not any(r.startswith("host  ") for r in screen.splitlines()), screen
        top.quit()
