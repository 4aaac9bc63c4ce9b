"""Notification channels against real receivers on loopback, through the real CLI
(`gpuwatch alerts test CHANNEL`): a real Alertmanager (Debian's prometheus-alertmanager) that routes
to a webhook receiver; a real SMTP server (aiosmtpd) with STARTTLS and AUTH; an HTTP receiver that
checks the webhook, Slack, Discord, Teams and ntfy payloads against those platforms' documented
shapes; faults (a receiver down then up, a slow receiver, a bad config); secrets never printed.
Everything listens on 127.0.0.1, every wait is bounded.
"""
import http.server
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
ALERTMANAGER = shutil.which("prometheus-alertmanager") or "/usr/bin/prometheus-alertmanager"
SECRET = "T0KEN-SECRET-PATH-9f8e7d"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gpuwatch(*args, timeout=30, env=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, env=env)


class Receiver:
    """An HTTP server on loopback that records every request; /slow/... answers after `slow_s`,
    /fail/... answers 500."""

    def __init__(self, port=None, slow_s=30):
        self.requests = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if self.path.startswith("/slow/"):
                    time.sleep(slow_s)
                status = 500 if self.path.startswith("/fail/") else 200
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"ok\n" if status == 200 else b"receiver broke\n")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port or 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def on(self, path):
        with self.lock:
            return [r for r in self.requests if r["path"] == path]

    def wait_for(self, path, count=1, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            got = self.on(path)
            if len(got) >= count:
                return got
            time.sleep(0.05)
        return self.on(path)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def posted_json(receiver, path):
    got = receiver.wait_for(path)
    assert len(got) == 1, f"expected one request on {path}, got {len(got)}"
    return got[0], json.loads(got[0]["body"])


# --- payload shapes, one per channel type --------------------------------------------------------

def test_webhook_gets_the_alertmanager_v4_payload(receiver):
    out = gpuwatch("alerts", "test", f"webhook={receiver.url}/hook")
    assert out.returncode == 0, out.stderr
    assert "accepted: status 200: ok" in out.stdout
    request, body = posted_json(receiver, "/hook")
    assert request["headers"]["Content-Type"] == "application/json"
    assert body["version"] == "4"
    assert body["status"] == "firing"
    assert body["receiver"] == "webhook"
    for key in ("groupLabels", "commonLabels", "commonAnnotations", "externalURL", "groupKey", "truncatedAlerts"):
        assert key in body, key
    (alert,) = body["alerts"]
    assert alert["status"] == "firing"
    assert alert["labels"]["alertname"] == "GpuwatchTest"
    assert alert["labels"]["severity"] == "info"
    assert alert["endsAt"] == "0001-01-01T00:00:00Z"
    assert alert["startsAt"].endswith("Z") and len(alert["fingerprint"]) == 16
    assert body["groupLabels"] == {"host": alert["labels"]["host"]}


def test_slack_discord_teams_payloads(receiver):
    for kind in ("slack", "discord", "teams"):
        out = gpuwatch("alerts", "test", f"{kind}={receiver.url}/{kind}")
        assert out.returncode == 0, kind + ": " + out.stderr
    _, slack = posted_json(receiver, "/slack")
    assert "GpuwatchTest" in slack["text"]
    assert [b["type"] for b in slack["blocks"]] == ["header", "section", "context"]
    assert slack["blocks"][0]["text"]["type"] == "plain_text" and len(slack["blocks"][0]["text"]["text"]) <= 150
    assert slack["blocks"][1]["text"]["type"] == "mrkdwn"
    _, discord = posted_json(receiver, "/discord")
    assert discord["content"].startswith("[FIRING:1] GpuwatchTest")
    (embed,) = discord["embeds"]
    assert embed["title"] == "GpuwatchTest" and embed["color"] == 0x1976D2  # info: blue
    assert {f["name"] for f in embed["fields"]} >= {"Severity", "Target"}
    assert discord["allowed_mentions"] == {"parse": []}
    _, teams = posted_json(receiver, "/teams")
    assert teams["type"] == "message"
    (attachment,) = teams["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert attachment["content"]["type"] == "AdaptiveCard"
    assert attachment["content"]["body"][1]["type"] == "FactSet"


def test_ntfy_posts_text_with_title_priority_and_tags(receiver, tmp_path):
    token = tmp_path / "token"
    token.write_text("tk_" + SECRET + "\n")
    config = tmp_path / "n.yaml"
    config.write_text(f"channels:\n  phone:\n    type: ntfy\n    url: {receiver.url}/gpus\n"
                      f"    token_file: {token}\n")
    out = gpuwatch("alerts", "test", "phone", "--notify-config", str(config))
    assert out.returncode == 0, out.stderr
    assert SECRET not in out.stdout + out.stderr
    (request,) = receiver.wait_for("/gpus")
    headers = request["headers"]
    assert headers["Title"] == f"[FIRING:1] GpuwatchTest on {socket.gethostname()}"
    assert headers["Priority"] == "3"
    assert headers["Tags"].split(",")[0] == "information_source"
    assert headers["Authorization"] == "Bearer tk_" + SECRET
    assert headers["Content-Type"].startswith("text/plain")
    assert request["body"].decode().startswith("info GpuwatchTest on node: a test message")


def test_exec_gets_the_group_as_json_on_stdin(tmp_path):
    out_file = tmp_path / "got.json"
    out = gpuwatch("alerts", "test", f"exec=cat > {out_file}")
    assert out.returncode == 0, out.stderr
    body = json.loads(out_file.read_text())
    assert body["version"] == "4" and body["alerts"][0]["labels"]["alertname"] == "GpuwatchTest"
    failing = gpuwatch("alerts", "test", "exec=echo broken >&2; exit 3")
    assert failing.returncode == 1
    assert "exit status 3" in failing.stderr and "broken" in failing.stderr


def test_desktop_runs_notify_send_with_urgency(tmp_path):
    # notify-send needs a notification daemon on a session bus, which a test machine lacks: a
    # stand-in notify-send on PATH records its arguments (gpuwatch runs it by name, as the real one).
    fake = tmp_path / "bin" / "notify-send"
    fake.parent.mkdir()
    record = tmp_path / "args"
    fake.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {record}\n")
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{fake.parent}:{os.environ['PATH']}", DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent")
    out = gpuwatch("alerts", "test", "desktop", env=env)
    assert out.returncode == 0, out.stderr
    args = record.read_text().splitlines()
    assert "--urgency=normal" in args and "--app-name=gpuwatch" in args
    assert args[args.index("--") + 1].startswith("[FIRING:1] GpuwatchTest")
    no_bus = {k: v for k, v in env.items() if k != "DBUS_SESSION_BUS_ADDRESS"}
    out = gpuwatch("alerts", "test", "desktop", env=no_bus)
    assert out.returncode == 2
    assert "DBUS_SESSION_BUS_ADDRESS is not set" in out.stderr


# --- a real Alertmanager ----------------------------------------------------------------------------

def test_alertmanager_receives_the_push_and_routes_it_to_its_webhook(receiver, tmp_path):
    if not os.path.exists(ALERTMANAGER):
        pytest.skip("prometheus-alertmanager missing: scripts/install-deps installs it")
    port = free_port()
    config = tmp_path / "am.yml"
    config.write_text(f"""route:
  receiver: hook
  group_by: [alertname, host]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: {receiver.url}/from-alertmanager
        send_resolved: true
""")
    am = subprocess.Popen([ALERTMANAGER, f"--config.file={config}", f"--storage.path={tmp_path / 'data'}",
                           f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address="],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("alertmanager did not start listening")
        out = gpuwatch("alerts", "test", f"alertmanager=http://127.0.0.1:{port}")
        assert out.returncode == 0, out.stdout + out.stderr
        assert "status 200" in out.stdout
        got = receiver.wait_for("/from-alertmanager", timeout=20)
        assert got, "alertmanager never called its webhook"
        body = json.loads(got[0]["body"])
        assert body["version"] == "4" and body["receiver"] == "hook"
        (alert,) = body["alerts"]
        assert alert["labels"]["alertname"] == "GpuwatchTest"
        assert alert["labels"]["host"] == socket.gethostname()
        assert alert["status"] == "firing"
        assert alert["annotations"]["summary"].startswith("a test message")
        # Alertmanager's own API lists it as active, ending a few resend intervals from now.
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/alerts", timeout=5) as r:
            listed = json.load(r)
        assert [a["labels"]["alertname"] for a in listed] == ["GpuwatchTest"]
        assert listed[0]["status"]["state"] == "active"
    finally:
        am.terminate()
        try:
            am.wait(timeout=10)
        except subprocess.TimeoutExpired:
            am.kill()
            am.wait()


# --- a real SMTP server with STARTTLS and AUTH ------------------------------------------------------

@pytest.fixture
def smtp_server(tmp_path):
    aiosmtpd = pytest.importorskip("aiosmtpd.controller", reason="python3-aiosmtpd missing (scripts/install-deps)")
    from aiosmtpd.smtp import AuthResult, LoginPassword

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=30)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))

    class Handler:
        def __init__(self):
            self.messages = []
            self.logins = []

        async def handle_DATA(self, server, session, envelope):
            self.messages.append({"from": envelope.mail_from, "to": envelope.rcpt_tos,
                                  "data": envelope.content.decode("utf-8", "replace"), "tls": session.ssl is not None})
            return "250 OK"

    handler = Handler()

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data.login == b"gpuwatch" and auth_data.password == b"s3cret-" + SECRET.encode()
        handler.logins.append((mechanism, ok))
        return AuthResult(success=ok)

    port = free_port()
    controller = aiosmtpd.Controller(handler, hostname="127.0.0.1", port=port, tls_context=context, require_starttls=True,
                                     auth_required=True, auth_require_tls=True, authenticator=authenticator)
    controller.start()
    yield {"port": port, "cert": cert, "handler": handler}
    controller.stop()


def email_config(tmp_path, port, cert, password):
    secret = tmp_path / "smtp-password"
    secret.write_text(password + "\n")
    config = tmp_path / "mail.yaml"
    config.write_text(f"""channels:
  oncall:
    type: email
    smtp_url: smtp://127.0.0.1:{port}
    from: gpuwatch@example.com
    to: [oncall@example.com, second@example.com]
    username: gpuwatch
    password_file: {secret}
    ca_file: {cert}
    timeout: 5s
""")
    return config


def test_email_through_starttls_and_auth(smtp_server, tmp_path):
    config = email_config(tmp_path, smtp_server["port"], smtp_server["cert"], "s3cret-" + SECRET)
    out = gpuwatch("alerts", "test", "email=oncall", "--notify-config", str(config))
    assert out.returncode == 0, out.stdout + out.stderr
    assert SECRET not in out.stdout + out.stderr
    (message,) = smtp_server["handler"].messages
    assert message["tls"], "the message was sent before STARTTLS"
    assert message["from"] == "gpuwatch@example.com"
    assert message["to"] == ["oncall@example.com", "second@example.com"]
    data = message["data"]
    assert f"Subject: [FIRING:1] GpuwatchTest on {socket.gethostname()}" in data
    assert "From: gpuwatch <gpuwatch@example.com>" in data and "Content-Type: text/plain; charset=utf-8" in data
    assert "Date: " in data and "Message-ID: <gpuwatch.test." in data
    assert "info GpuwatchTest on node: a test message" in data
    assert any(ok for _, ok in smtp_server["handler"].logins)


def test_email_with_a_wrong_password_is_refused_and_not_printed(smtp_server, tmp_path):
    config = email_config(tmp_path, smtp_server["port"], smtp_server["cert"], "wrong-" + SECRET)
    out = gpuwatch("alerts", "test", "oncall", "--notify-config", str(config))
    assert out.returncode == 1
    assert "oncall: not accepted" in out.stderr
    assert SECRET not in out.stdout + out.stderr
    assert smtp_server["handler"].messages == []


def test_email_refuses_a_server_it_cannot_verify(smtp_server, tmp_path):
    config = email_config(tmp_path, smtp_server["port"], smtp_server["cert"], "s3cret-" + SECRET)
    config.write_text("\n".join(line for line in config.read_text().splitlines() if "ca_file" not in line) + "\n")
    out = gpuwatch("alerts", "test", "oncall", "--notify-config", str(config))
    assert out.returncode == 1, out.stdout
    assert smtp_server["handler"].messages == []


# --- faults --------------------------------------------------------------------------------------------

def test_receiver_down_then_up_gets_it_once():
    port = free_port()
    down = gpuwatch("alerts", "test", f"webhook=http://127.0.0.1:{port}/{SECRET}")
    assert down.returncode == 1
    assert "not accepted" in down.stderr and "onnect" in down.stderr  # couldn't connect / connection refused
    assert SECRET not in down.stdout + down.stderr
    assert f"http://127.0.0.1:{port}/…" in down.stdout  # the URL shown redacted
    receiver = Receiver(port=port)
    try:
        up = gpuwatch("alerts", "test", f"webhook=http://127.0.0.1:{port}/{SECRET}")
        assert up.returncode == 0, up.stderr
        time.sleep(0.3)
        assert len(receiver.on(f"/{SECRET}")) == 1
    finally:
        receiver.close()


def test_an_error_status_is_reported():
    receiver = Receiver()
    try:
        out = gpuwatch("alerts", "test", f"slack={receiver.url}/fail/x")
        assert out.returncode == 1
        assert "status 500: HTTP 500: receiver broke" in out.stderr
    finally:
        receiver.close()


def test_a_slow_receiver_only_delays_its_own_channel(tmp_path):
    slow = Receiver(slow_s=30)
    fast = Receiver()
    config = tmp_path / "n.yaml"
    config.write_text(f"channels:\n  slow:\n    type: webhook\n    url: {slow.url}/slow/x\n    timeout: 2s\n"
                      f"  fast:\n    type: webhook\n    url: {fast.url}/ok\n")
    try:
        started = time.time()
        slow_run = subprocess.Popen([BIN, "alerts", "test", "slow", "--notify-config", str(config)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert slow.wait_for("/slow/x", timeout=10), "the slow receiver never got the request"
        fast_started = time.time()
        fast_run = gpuwatch("alerts", "test", "fast", "--notify-config", str(config))
        assert fast_run.returncode == 0, fast_run.stderr
        assert time.time() - fast_started < 2, "the fast channel waited"
        _, err = slow_run.communicate(timeout=15)
        assert slow_run.returncode == 1
        assert "Timeout" in err, err
        assert time.time() - started < 8, "the slow call was not bounded by its 2 s timeout"
    finally:
        slow.close()
        fast.close()


@pytest.mark.parametrize("text,expected", [
    ("channels:\n  a:\n    type: webhook\n    url: http://127.0.0.1:1/x\n    colour: red\n",
     "n.yaml:5: channels.a.colour: unknown key"),
    ("channels:\n  a:\n    type: smoke-signal\n", "n.yaml:3: channels.a.type: unknown type 'smoke-signal'"),
    ("channels:\n  a:\n    type: email\n    smtp_url: smtp://h:25\n    from: a@b\n    to: c@d\n    username: u\n"
     "    password: " + SECRET + "\n", "n.yaml:8: channels.a.password: secrets are not read from the config file"),
    ("channels:\n  a:\n    type: slack\n    url_env: GPUWATCH_E2E_UNSET\n",
     "n.yaml:4: channels.a.url_env: the environment variable GPUWATCH_E2E_UNSET is not set"),
    ("channels: [\n", "not valid YAML"),
])
def test_a_malformed_channel_config_is_a_clear_usage_error(tmp_path, text, expected):
    config = tmp_path / "n.yaml"
    config.write_text(text)
    out = gpuwatch("alerts", "test", "a", "--notify-config", str(config))
    assert out.returncode == 2, out.stdout + out.stderr
    assert expected in out.stderr, out.stderr
    assert SECRET not in out.stderr


def test_bad_specs_are_usage_errors():
    for spec, expected in [("pager=http://x", "unknown channel type 'pager'"),
                           (f"slack=ftp://hooks.example/{SECRET}", "not an http:// or https:// URL"),
                           ("nosuchchannel", "no channel of that name")]:
        out = gpuwatch("alerts", "test", spec)
        assert out.returncode == 2, spec
        assert expected in out.stderr, out.stderr
        assert SECRET not in out.stderr
