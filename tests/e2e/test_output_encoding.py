"""Issue 31, part A: nothing a GPU, a driver, a process or a file names reaches a terminal, a chat or
a mail raw. A property test over every command.

One simulated node whose every string field holds the hostile bytes: the driver version, the GPU's
name, UUID and serial (scenario `values:`), a stand-in process's command line, and a real process
(`pid_file:`) whose argv and Slurm job id a local user chose (ESC, OSC 52, OSC 8, BEL, CR, LF, TAB,
bytes that are not UTF-8, `<!channel>`, a Markdown link, a Slack link, `<script>`). Every command
and output format runs on it, and every notification channel posts to a receiver on 127.0.0.1.
Asserted, per output:
- text (stdout, stderr, CSV): valid UTF-8, no control byte but the output's own LF, no C1 control,
  no line that starts with what a field carried after its LF ("\\nFORGED");
- JSON: parses, holds no raw control byte, and keeps the exact string (escaped), or U+FFFD for
  the bytes that are not UTF-8;
- HTML: none of the hostile markup unescaped;
- Slack: no `<!channel>`, `<!here`, `<https://` left in mrkdwn; Discord, Teams: no Markdown link or
  autolink; ntfy and e-mail: no value starts a line or a header.
A command or `sim`/`alerts` subcommand that `--help` lists and this file does not run fails
test_every_command_is_covered: a new output path gets checked or the test says why not.
"""
import http.server
import json
import os
import re
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]

OSC52 = b"\x1b]52;c;aGVsbG8=\x07"
OSC8 = b"\x1b]8;;https://evil.example\x07L\x1b]8;;\x07"
BREAKS = b"\x07\r\nFORGED\t"
CHAT = b"<!channel> <!here|here> <https://evil.example|CLICK> [click](https://evil.example) <script>pwn()</script>"
NOT_UTF8 = b"\xff\xfe\xc0\xaf"
HOSTILE = OSC52 + OSC8 + b"\x1b[2J" + BREAKS + CHAT + NOT_UTF8

# Per field, within NVML's buffers (name 96, UUID 80, serial 30, driver version 80 bytes).
GPU_NAME = b"H100 " + OSC52 + BREAKS + b"<!channel>[c](https://e.x)" + NOT_UTF8
GPU_UUID = b"GPU-" + OSC8 + b"\r\nFORGED<!here|here><https://e.x|C>"
GPU_SERIAL = b"S" + b"\x1b[2J\r\nFORGED" + b"\xff"
DRIVER = b"550" + OSC52 + b"\nFORGED<https://e.x|C>"
JOB_ID = b"77" + OSC52 + b"\nFORGED"
# A stand-in's argv[0], what NVML names the process (and `{{ $process }}` shows): no space in it.
PROCESS_NAME = b"<!channel>" + OSC52 + b"[click](https://evil.example)<https://evil.example|CLICK>"

# What each command runs here: a new command (or sim/alerts subcommand) must be added.
COVERED = {
    "status": "test_terminal_and_file_outputs (text, --json)",
    "query": "test_terminal_and_file_outputs (--query-gpu, --query-compute-apps: csv, json)",
    "dmon": "test_terminal_and_file_outputs",
    "pmon": "test_terminal_and_file_outputs (--owner)",
    "sim": "test_terminal_and_file_outputs (list, show, run, record, import)",
    "record": "test_terminal_and_file_outputs (--csv, --jsonl, the database)",
    "history": "test_terminal_and_file_outputs (table, csv, jsonl; --processes, --findings, --jobs)",
    "report": "test_terminal_and_file_outputs (text, json, -o HTML)",
    "diagnose": "test_terminal_and_file_outputs (text, --json)",
    "alerts": "test_serve_api_and_every_channel (listing, rules, test)",
    "serve": "test_serve_api_and_every_channel (/metrics, /api/v1/*, /, every channel)",
    "top": "test_status_and_top_in_tmux_do_not_write_the_clipboard (tmux, set-clipboard on)",
    "run": "test_terminal_and_file_outputs (summary, --summary-json)",
    "import": "test_terminal_and_file_outputs (a hostile nvidia-smi log into a database, then history)",
    "doctor": "test_terminal_and_file_outputs (text, --json: the driver version from NVML and /proc)",
}
SUBCOMMANDS = {
    "sim": {"list", "show", "run", "import", "record"},
    "alerts": {"test", "rules"},
}


def yaml_quoted(value):
    """VALUE (bytes) as a YAML double-quoted scalar: controls as \\xNN, other bytes as they are."""
    out = b'"'
    for byte in value:
        if byte < 0x20 or byte == 0x7F:
            out += b"\\x%02x" % byte
        elif byte in b'"\\':
            out += b"\\" + bytes([byte])
        else:
            out += bytes([byte])
    return out + b'"'


def subcommands(*path):
    text = subprocess.run([BIN, *path, "--help"], capture_output=True, timeout=30).stdout.decode()
    section = text.split("Subcommands:", 1)[1] if "Subcommands:" in text else ""
    section = re.split(r"\n\S", section, maxsplit=1)[0]
    return {m.group(1) for m in re.finditer(r"^  (\S+)\s", section, re.M)}


# --- checkers -----------------------------------------------------------------------------

def assert_text_safe(label, data, allow_tab=False):
    """DATA (bytes) as a terminal may show it: UTF-8, no control but LF, nothing forged."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        pytest.fail(f"{label}: not UTF-8 ({e}): {data[max(0, e.start - 40):e.end + 40]!r}")
    for i, ch in enumerate(text):
        code = ord(ch)
        if (code < 0x20 and ch != "\n" and not (allow_tab and ch == "\t")) or code == 0x7F or 0x80 <= code <= 0x9F:
            pytest.fail(f"{label}: raw control U+{code:04X} at {i}: {text[max(0, i - 60):i + 20]!r}")
    assert "\nFORGED" not in text, f"{label}: a field's line break started a line"
    return text


def assert_json_exact(label, data, expected_strings=()):
    """JSON text: no raw control byte, parses, and keeps EXPECTED_STRINGS exactly (invalid UTF-8 as U+FFFD)."""
    assert_text_safe(label, data)
    doc = json.loads(data)
    flat = json.dumps(doc, ensure_ascii=False)
    for value in expected_strings:
        exact = json.dumps(value.decode("utf-8", "replace"), ensure_ascii=False)[1:-1]
        assert exact in flat, f"{label}: the exact string of {value!r} is not kept"
    return doc


def assert_jsonl(label, data):
    assert_text_safe(label, data)
    lines = [line for line in data.decode().splitlines() if line.strip()]
    assert lines, f"{label}: no line"
    return [json.loads(line) for line in lines]


# --- the hostile node ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def node(tmp_path_factory):
    base = tmp_path_factory.mktemp("encoding")
    # A real process whose argv (argv[0] too) and environment a local user chose.
    argv0 = b"python " + HOSTILE
    env = dict(os.environb)
    env[b"SLURM_JOB_ID"] = JOB_ID
    victim = subprocess.Popen([argv0, b"-c", b"import time; time.sleep(300)", b"--arg\n" + HOSTILE],
                              executable=sys.executable, env=env)
    pid_file = base / "victim.pid"
    pid_file.write_text(str(victim.pid))
    job_pid_file = base / "job.pid"  # `gpuwatch run`'s job writes its pid here
    scenario = base / "hostile.yaml"
    scenario.write_bytes(
        b"name: hostile\n"
        b"description: " + yaml_quoted(b"node " + OSC52 + b"\nFORGED") + b"\n"
        b"driver: {version: " + yaml_quoted(DRIVER) + b"}\n"
        b"gpus:\n"
        b"  - model: H100 SXM 80GB\n"
        b"    values: {name: " + yaml_quoted(GPU_NAME) + b", uuid: " + yaml_quoted(GPU_UUID) +
        b", serial: " + yaml_quoted(GPU_SERIAL) + b", temperature.gpu: 91}\n"
        b"    phases: [{kind: training, duration: 1h}]\n"
        b"    processes:\n"
        b"      - {command: " + yaml_quoted(PROCESS_NAME + b" " + HOSTILE) + b", user: " + yaml_quoted(b"u" + OSC52) +
        b", memory: 1000}\n"
        b"      - {command: victim, memory: 500, pid_file: " + yaml_quoted(str(pid_file).encode()) + b"}\n"
        b"      - {command: job, memory: 100, pid_file: " + yaml_quoted(str(job_pid_file).encode()) + b"}\n")
    state = base / "state"
    state.mkdir()
    run_env = dict(os.environ, XDG_STATE_HOME=str(state), NO_COLOR="1")
    run_env.pop("STATE_DIRECTORY", None)
    yield {"base": base, "scenario": str(scenario), "env": run_env, "victim": victim, "job_pid_file": job_pid_file}
    victim.kill()
    victim.wait(timeout=10)


def gw(node, *args, timeout=60, check=True):
    out = subprocess.run([BIN, "--simulate", node["scenario"], *args], capture_output=True, timeout=timeout,
                         env=node["env"])
    if check:
        assert out.returncode in (0, 1, 3), f"{args}: exit {out.returncode}: {out.stderr[-2000:]!r}"
    return out


def plain(node, *args, timeout=60):
    out = subprocess.run([BIN, *args], capture_output=True, timeout=timeout, env=node["env"])
    assert out.returncode in (0, 1, 3), f"{args}: exit {out.returncode}: {out.stderr[-2000:]!r}"
    return out


# --- the guard ----------------------------------------------------------------------------

def test_the_checkers_fail_on_raw_output():
    """What the checkers below would say of the output issue 31 found (raw escapes, a forged line)."""
    for raw in (b"[0] " + OSC52, b"python x\nFORGED line", b"name " + NOT_UTF8, b"\xc2\x9b2J", b"a\rb"):
        with pytest.raises((pytest.fail.Exception, AssertionError)):
            assert_text_safe("raw", raw)
    assert_text_safe("encoded", b"[0] \\x1b]52;c;aGVsbG8=\\x07 \\nFORGED \\xff \xc2\xb0C\n")
    with pytest.raises(AssertionError):
        assert_json_exact("changed at ingestion", json.dumps({"v": "550?]52"}).encode(), [DRIVER])


def test_every_command_is_covered():
    commands = subcommands()
    assert {"status", "serve", "sim"} <= commands, commands  # the parser reads --help right
    assert commands - set(COVERED) == set(), \
        f"commands this test does not run: {sorted(commands - set(COVERED))}; add each to test_output_encoding.py"
    for parent, known in SUBCOMMANDS.items():
        listed = subcommands(parent)
        assert listed, parent
        assert listed - known == set(), f"`{parent}` subcommands not covered: {sorted(listed - known)}"


# --- every terminal, CSV, JSON and file output --------------------------------------------

def test_terminal_and_file_outputs(node, tmp_path):
    checked = {}

    def text(label, out, must_show=None):
        for stream, data in (("stdout", out.stdout), ("stderr", out.stderr)):
            checked[f"{label} {stream}"] = assert_text_safe(f"{label} {stream}", data)
        if must_show:
            assert must_show in checked[f"{label} stdout"], f"{label}: {must_show!r} not shown"

    # status: the GPU name, the driver, both processes' command lines, shown visibly.
    out = gw(node, "status")
    text("status", out, must_show="\\x1b]52;c;aGVsbG8=\\x07")
    assert "FORGED" in checked["status stdout"]
    assert "\\xff\\xfe" in checked["status stdout"]  # the argv's invalid UTF-8, as bytes shown
    assert_json_exact("status --json", gw(node, "status", "--json").stdout, [DRIVER, GPU_NAME, GPU_UUID, JOB_ID])

    # query: nvidia-smi's CSV (no quoting) and JSON.
    gpu_fields = "--query-gpu=name,uuid,serial,driver_version"
    text("query csv", gw(node, "query", gpu_fields, "--format=csv"), must_show="\\x1b]52")
    text("query csv noheader", gw(node, "query", gpu_fields, "--format=csv,noheader"))
    assert_json_exact("query json", gw(node, "query", gpu_fields, "--format=json").stdout,
                      [DRIVER, GPU_NAME, GPU_UUID, GPU_SERIAL])
    apps = "--query-compute-apps=pid,process_name,gpu_name,gpu_uuid,gpu_serial,used_memory"
    text("query apps csv", gw(node, "query", apps, "--format=csv"), must_show="FORGED")
    assert_json_exact("query apps json", gw(node, "query", apps, "--format=json").stdout)

    # dmon, pmon (with the owner column: the Slurm job id from the process's environment).
    text("dmon", gw(node, "dmon", "-c", "1"))
    text("pmon", gw(node, "pmon", "-c", "1", "--owner", "-s", "um"))

    # diagnose, live.
    text("diagnose", gw(node, "diagnose", "--live", "--for", "1s", "--interval", "250ms", "--fail-on", "never"))
    assert_json_exact("diagnose --json",
                      gw(node, "diagnose", "--live", "--for", "1s", "--interval", "250ms", "--json").stdout)

    # doctor: the driver's version (NVML, and the simulated /proc/driver/nvidia/version) in its evidence.
    out = gw(node, "doctor", check=False)
    assert out.returncode in (0, 1, 2), out.stderr
    text("doctor", out, must_show="\\x1b]52")
    out = gw(node, "doctor", "--json", check=False)
    assert out.returncode in (0, 1, 2), out.stderr
    assert_json_exact("doctor --json", out.stdout, [DRIVER])

    # sim: list, show, run (a child sees the same driver), import (a hostile nvidia-smi capture).
    text("sim list", plain(node, "sim", "list"))
    text("sim show", plain(node, "sim", "show", node["scenario"]), must_show="\\x1b]52")
    text("sim run", plain(node, "sim", "run", node["scenario"], "--", BIN, "status"), must_show="\\x1b]52")
    capture = tmp_path / "q.csv"
    capture.write_bytes(b"name, uuid, serial, driver_version, temperature.gpu\n" +
                        b", ".join([GPU_NAME.replace(b"\n", b" "), b"GPU-" + OSC8, b"1", b"550" + OSC52, b"40"]) + b"\n")
    imported = subprocess.run([BIN, "sim", "import", str(capture)], capture_output=True, timeout=30, env=node["env"])
    text("sim import", imported)
    # import: the same log into a history database, then read back.
    imported_db = tmp_path / "imported.db"
    text("import", subprocess.run([BIN, "import", str(capture), "--db", str(imported_db), "--start", "2026-11-30T10:00:00"],
                                  capture_output=True, timeout=30, env=node["env"]))
    if imported_db.exists():
        text("history of an import", plain(node, "history", "--db", str(imported_db), "--since", "all"))

    # record (the real sampler, with the pid_file process), its CSV and JSONL logs, sim record.
    db = tmp_path / "history.db"
    csv_log, jsonl_log = tmp_path / "log.csv", tmp_path / "log.jsonl"
    text("record", gw(node, "record", "--db", str(db), "--count", "3", "--interval", "250ms", "--csv", str(csv_log),
                      "--jsonl", str(jsonl_log), "--no-alerts"))
    text("record --csv file", subprocess.CompletedProcess([], 0, csv_log.read_bytes(), b""))
    assert_jsonl("record --jsonl file", jsonl_log.read_bytes())
    sim_db = tmp_path / "sim.db"
    text("sim record", plain(node, "sim", "record", node["scenario"], "--duration", "30s", "--db", str(sim_db)))

    # history and report over both databases.
    for name, path in (("record", db), ("sim record", sim_db)):
        args = ["--db", str(path), "--since", "all"]
        text(f"history {name}", plain(node, "history", *args))
        text(f"history csv {name}", plain(node, "history", *args, "--format", "csv"))
        assert_jsonl(f"history jsonl {name}", plain(node, "history", *args, "--format", "jsonl").stdout)
        text(f"history --processes {name}", plain(node, "history", *args, "--processes"))
        text(f"history --processes csv {name}", plain(node, "history", *args, "--processes", "--format", "csv"))
        assert_jsonl(f"history --processes jsonl {name}",
                     plain(node, "history", *args, "--processes", "--format", "jsonl").stdout)
        text(f"history --findings {name}", plain(node, "history", *args, "--findings"))
        text(f"report {name}", plain(node, "report", *args))
        assert_json_exact(f"report json {name}", plain(node, "report", *args, "--format", "json").stdout)
        html = tmp_path / f"report-{name.replace(' ', '-')}.html"
        text(f"report -o {name}", plain(node, "report", *args, "-o", str(html)))
        page = html.read_bytes().decode("utf-8")
        assert "<script>pwn()" not in page and "<!channel>" not in page, f"report -o {name}: unescaped markup"
        assert "\x1b" not in page, f"report -o {name}: a raw ESC in the page"
    assert "FORGED" in checked["history --processes record stdout"]
    assert "\\xff\\xfe" in checked["history --processes csv record stdout"]  # the whole command, bytes shown

    # run: its summary (stderr), --summary-json, then history --jobs and report --job.
    summary_json = tmp_path / "summary.json"
    job = f"echo $$ > {node['job_pid_file']}; sleep 1.5"
    text("run", gw(node, "run", "--db", str(db), "--interval", "250ms", "--name", "job" + OSC52.decode(),
                   "--summary-json", str(summary_json), "--", "sh", "-c", job))
    assert_json_exact("run --summary-json", summary_json.read_bytes())
    text("history --jobs", plain(node, "history", "--db", str(db), "--since", "all", "--jobs"))
    text("history --jobs csv", plain(node, "history", "--db", str(db), "--since", "all", "--jobs", "--format", "csv"))
    assert_json_exact("history --jobs json",
                      plain(node, "history", "--db", str(db), "--since", "all", "--jobs", "--format", "json").stdout)
    text("report --job", plain(node, "report", "--db", str(db), "--job", "1"))
    assert len(checked) >= 60


# --- serve: /metrics, the JSON API, the dashboard; every notification channel --------------

class Receiver:
    """HTTP on 127.0.0.1: keeps every POST; /hostile/ answers 500 with a hostile body."""

    def __init__(self):
        self.requests = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.requests.append((self.path, dict(self.headers), body))
                hostile = self.path.startswith("/hostile/")
                self.send_response(500 if hostile else 200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"broken " + HOSTILE if hostile else b"ok")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self, prefix):
        with self.lock:
            return [(h, b) for p, h, b in self.requests if p.startswith(prefix)]


class Smtp:
    """A minimal SMTP receiver on 127.0.0.1 (no TLS, no auth): keeps each message's DATA."""

    def __init__(self):
        self.messages = []
        smtp = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                self.wfile.write(b"220 test ESMTP\r\n")
                while True:
                    line = self.rfile.readline()
                    if not line:
                        return
                    verb = line[:4].upper()
                    if verb in (b"EHLO", b"HELO"):
                        self.wfile.write(b"250 test\r\n")
                    elif verb == b"DATA":
                        self.wfile.write(b"354 go\r\n")
                        data = b""
                        while not data.endswith(b"\r\n.\r\n"):
                            chunk = self.rfile.readline()
                            if not chunk:
                                return
                            data += chunk
                        smtp.messages.append(data)
                        self.wfile.write(b"250 queued\r\n")
                    elif verb == b"QUIT":
                        self.wfile.write(b"221 bye\r\n")
                        return
                    else:
                        self.wfile.write(b"250 ok\r\n")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def wait_until(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def http_get(url):
    import urllib.request
    with urllib.request.urlopen(url, timeout=5) as r:
        return r.status, r.read()


def test_serve_api_and_every_channel(node, tmp_path):
    receiver, smtp = Receiver(), Smtp()
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n"
                     "  - alert: HostileProcess\n"
                     "    expr: temperature.gpu > 0\n"
                     "    for: 1s\n"
                     "    severity: critical\n"
                     "    annotations:\n"
                     "      summary: \"GPU {{ $labels.gpu }} ({{ $labels.uuid }}) runs {{ $process }}\"\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    desktop_log = tmp_path / "desktop.args"
    (bin_dir / "notify-send").write_text(f"#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> {desktop_log}\n")
    (bin_dir / "notify-send").chmod(0o755)
    exec_out = tmp_path / "exec.json"
    config = tmp_path / "notify.yaml"
    config.write_text(f"channels:\n  mail:\n    type: email\n    smtp_url: smtp://127.0.0.1:{smtp.port}\n"
                      f"    tls: none\n    from: gpuwatch@example.com\n    to: [ops@example.com]\n    timeout: 5s\n")
    env = dict(node["env"], PATH=f"{bin_dir}:{os.environ['PATH']}", DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent")
    db = tmp_path / "serve.db"
    channels = [f"slack={receiver.url}/slack", f"discord={receiver.url}/discord", f"teams={receiver.url}/teams",
                f"ntfy={receiver.url}/ntfy", f"webhook={receiver.url}/webhook",
                f"alertmanager={receiver.url}/am", "desktop", f"exec=cat > {exec_out}", "mail"]
    notify = [arg for c in channels for arg in ("--notify", c)]
    proc = subprocess.Popen([BIN, "--simulate", node["scenario"], "serve", "--listen", "127.0.0.1:0", "--interval",
                             "250ms", "--db", str(db), "--alert-rules", str(rules), "--notify-config", str(config),
                             "--per-process-metrics", "--attribution-labels", *notify],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        first = proc.stdout.readline().decode("utf-8", "replace")
        match = re.search(r"(http://127\.0\.0\.1:\d+)", first)
        assert match, f"serve did not start: {first!r}"
        url = match.group(1)
        expected = ["/slack", "/discord", "/teams", "/ntfy", "/webhook", "/am"]
        assert wait_until(lambda: all(receiver.bodies(p) for p in expected) and smtp.messages
                          and exec_out.exists() and exec_out.stat().st_size > 0 and desktop_log.exists(), 20), \
            f"not every channel got its message: {[p for p in expected if not receiver.bodies(p)]} " \
            f"mail={len(smtp.messages)}"

        # /metrics: Prometheus text, label values without a raw control byte.
        status, metrics = http_get(url + "/metrics")
        assert status == 200
        assert_text_safe("/metrics", metrics)
        # The JSON API keeps the exact strings.
        assert_json_exact("/api/v1/snapshot", http_get(url + "/api/v1/snapshot")[1], [DRIVER, GPU_NAME])
        assert_json_exact("/api/v1/alerts", http_get(url + "/api/v1/alerts")[1])
        assert_json_exact("/api/v1/history", http_get(url + "/api/v1/history?since=5m")[1])
        dashboard = http_get(url + "/")[1].decode()
        assert "<script>pwn()" not in dashboard
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    assert_text_safe("serve stdout", out)
    assert_text_safe("serve stderr", err)

    (_, slack), = receiver.bodies("/slack")[:1]
    slack_doc = assert_json_exact("slack", slack)
    mrkdwn = [slack_doc["text"], slack_doc["blocks"][1]["text"]["text"], slack_doc["blocks"][2]["elements"][0]["text"]]
    for text in mrkdwn:
        for raw in ("<!channel>", "<!here", "<https://", "<script>"):
            assert raw not in text, f"slack mrkdwn holds {raw}: {text!r}"
        assert "\nFORGED" not in text
    assert "&lt;!channel&gt;" in slack_doc["blocks"][1]["text"]["text"]  # the process is there, as text

    for path in ("/discord", "/teams"):
        (_, body), = receiver.bodies(path)[:1]
        doc = assert_json_exact(path, body)
        strings = []

        def walk(value):
            if isinstance(value, str):
                strings.append(value)
            elif isinstance(value, dict):
                for key, item in value.items():
                    if key not in ("url", "contentType", "$schema"):
                        walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)
        walk(doc)
        for s in strings:
            assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(", s), f"{path}: a Markdown link in {s!r}"
            assert not re.search(r"(?<!\\)<https?://", s), f"{path}: an autolink in {s!r}"
            assert "\nFORGED" not in s
        assert any("\\[click\\]" in s or "\\[c\\]" in s for s in strings), f"{path}: the process is not shown"

    (headers, body), = receiver.bodies("/ntfy")[:1]
    assert_text_safe("ntfy body", body)
    assert "\r" not in headers.get("Title", "") and "\n" not in headers.get("Title", "")
    for path in ("/webhook", "/am"):  # Alertmanager's JSON: the exact strings, escaped
        (_, body), = receiver.bodies(path)[:1]
        assert_json_exact(path, body)
    assert_json_exact("exec stdin", exec_out.read_bytes())
    for arg in desktop_log.read_bytes().split(b"\0"):
        assert_text_safe("notify-send argument", arg)

    message = smtp.messages[0]
    head, _, mail_body = message.partition(b"\r\n\r\n")
    for line in message.split(b"\r\n"):
        assert not line.startswith(b"FORGED"), "a value started a line of the mail"
        assert b"\r" not in line and b"\n" not in line, f"a bare CR or LF in the mail: {line!r}"
    assert b"\x1b" not in message
    subject = [h for h in head.split(b"\r\n") if h.startswith(b"Subject:")]
    assert len(subject) == 1, head

    # alerts: the listing of what serve kept, the rules, and a receiver's hostile error body.
    listing = plain(node, "alerts", "--db", str(db))
    assert_text_safe("alerts", listing.stdout)
    assert "HostileProcess" in listing.stdout.decode()
    assert_json_exact("alerts --json", plain(node, "alerts", "--db", str(db), "--json").stdout)
    assert_text_safe("alerts rules", plain(node, "alerts", "rules").stdout)
    failed = subprocess.run([BIN, "alerts", "test", f"webhook={receiver.url}/hostile/x"], capture_output=True,
                            timeout=30, env=node["env"])
    assert failed.returncode != 0
    shown = assert_text_safe("alerts test (error body)", failed.stdout + failed.stderr)
    assert "broken \\x1b]52" in shown, shown


# --- the terminal reproduction: tmux with set-clipboard on ----------------------------------

@pytest.mark.skipif(not shutil.which("tmux") and not os.environ.get("CI"), reason="tmux is not installed (scripts/install-deps)")
def test_status_and_top_in_tmux_do_not_write_the_clipboard(node, tmp_path):
    socket_name = f"gw-enc-{os.getpid()}"

    def tmux(*args, check=True):
        return subprocess.run(["tmux", "-L", socket_name, *args], capture_output=True, timeout=15, check=check,
                              env=dict(node["env"], TMUX=""))

    done = tmp_path / "done"
    command = (f"{BIN} --simulate {node['scenario']} status; echo $? > {done}.status; "
               f"{BIN} --simulate {node['scenario']} top --readonly; touch {done}")
    tmux("-f", "/dev/null", "new-session", "-d", "-x", "220", "-y", "50", "-s", "t", "sh", "-c", command + "; sleep 30")
    try:
        tmux("set-option", "-g", "set-clipboard", "on")
        tmux("set-option", "-s", "set-clipboard", "on")
        assert wait_until(lambda: (tmp_path / "done.status").exists(), 20), "status did not finish"
        pane = ""

        def top_drawn():
            nonlocal pane
            pane = tmux("capture-pane", "-p", "-t", "t").stdout.decode("utf-8", "replace")
            return "python" in pane or "train" in pane
        assert wait_until(top_drawn, 20), pane
        tmux("send-keys", "-t", "t", "q")
        assert wait_until(done.exists, 10), "top did not quit"
        history = tmux("capture-pane", "-p", "-S", "-", "-t", "t").stdout.decode("utf-8", "replace")
        assert "\\x1b]52;c;aGVsbG8=\\x07" in history, "status shows the escape visibly"
        buffers = tmux("list-buffers", check=False).stdout.decode("utf-8", "replace")
        assert buffers.strip() == "", f"a paste buffer was written (OSC 52): {buffers!r}"
    finally:
        tmux("kill-server", check=False)
