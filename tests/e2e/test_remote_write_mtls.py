"""serve --remote-write over mutual TLS (issue 29): tls_config's cert_file and key_file (Prometheus's
names) give libcurl a client certificate. A Python HTTPS receiver that requires one (CERT_REQUIRED,
signed by the test's CA) gets writes with the remote-write headers when the config names the
certificate; without it the handshake fails, nothing arrives, and serve counts failed sends on its
own /metrics and keeps running; cert_file without key_file is a usage error at start."""
import http.server
import os
import shutil
import signal
import ssl
import subprocess
import threading
import time

import pytest

from test_remote_write import push_health
from test_serve import Server, sim_env

OPENSSL = shutil.which("openssl")
pytestmark = pytest.mark.skipif(OPENSSL is None, reason="openssl CLI missing")


def openssl(*args, cwd):
    subprocess.run([OPENSSL, *args], cwd=cwd, check=True, capture_output=True, timeout=20)


def make_pki(folder):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, EC P-256 (fast)."""
    folder.mkdir()
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=gpuwatch test CA",
            cwd=folder)
    for name, extension in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN=gpuwatch test {name}",
                cwd=folder)
        (folder / f"{name}.ext").write_text(extension + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-out", f"{name}.pem", "-extfile", f"{name}.ext", cwd=folder)
    return folder


class MtlsReceiver:
    """POST /api/v1/write over TLS that requires a client certificate from the CA."""

    def __init__(self, pki):
        self.writes = 0
        self.bad_headers = []
        self.peers = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                ok = (self.path == "/api/v1/write" and self.headers.get("Content-Encoding") == "snappy"
                      and self.headers.get("X-Prometheus-Remote-Write-Version") and body)
                if ok:
                    receiver.writes += 1
                    receiver.peers.append(dict(x[0] for x in self.connection.getpeercert()["subject"]).get("commonName"))
                else:
                    receiver.bad_headers.append((self.path, dict(self.headers)))
                self.send_response(204 if ok else 400)
                self.end_headers()

            def log_message(self, *args):
                pass

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_cert_chain(pki / "server.pem", pki / "server.key")
        context.load_verify_locations(pki / "ca.pem")
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.server.handle_error = lambda request, address: None  # refused handshakes are expected
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}/api/v1/write"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def push_config(path, pki, tmp_path, client_cert=True, key=True):
    lines = [f"ca_file: {pki / 'ca.pem'}"]
    if client_cert:
        lines.append(f"cert_file: {pki / 'client.pem'}")
    if key:
        lines.append(f"key_file: {pki / 'client.key'}")
    path.write_text("tls_config: {" + ", ".join(lines) + "}\nremote_timeout: 2s\n"
                    f"buffer: {{dir: {tmp_path / ('buffer-' + path.stem)}}}\n")
    return path


def wait_until(check, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    return check()


def serve(receiver, config):
    return Server(sim_env("demo"), "--no-record", "--interval", "250ms",
                  "--remote-write", receiver.url, "--remote-write-config", str(config))


def stop(server):
    code, _, err = server.stop()
    assert code == 0, err  # a clean exit after failed sends: no crash
    return err


def test_mutual_tls_push(tmp_path):
    pki = make_pki(tmp_path / "pki")
    receiver = MtlsReceiver(pki)
    try:
        # With the client certificate: the writes arrive, with the remote-write headers.
        with serve(receiver, push_config(tmp_path / "with-cert.yaml", pki, tmp_path)) as server:
            assert wait_until(lambda: receiver.writes >= 2, 10), (receiver.writes, receiver.bad_headers)
            assert receiver.bad_headers == []
            assert set(receiver.peers) == {"gpuwatch test client"}  # the certificate the config named
            assert wait_until(lambda: push_health(server).get("sent_total", 0) > 0, 5), push_health(server)
            stop(server)

        # Without it: the receiver refuses the handshake; nothing arrives, serve counts failures.
        before = receiver.writes
        with serve(receiver, push_config(tmp_path / "no-cert.yaml", pki, tmp_path, client_cert=False, key=False)) as server:
            health = wait_until(lambda: (h := push_health(server)).get("failed_total", 0) > 0 and h, 10)
            assert health and health["failed_total"] > 0, health
            assert health.get("sent_total", 0) == 0, health
            assert server.proc.poll() is None  # still serving
            assert server.get("/metrics")[0] == 200
            err = stop(server)
        assert receiver.writes == before, "a write arrived without a client certificate"
        assert "remote-write: cannot send" in err, err  # the failure is said, not silent
    finally:
        receiver.close()

    # cert_file without key_file: a usage error naming the key, before anything starts.
    config = push_config(tmp_path / "half.yaml", pki, tmp_path, key=False)
    done = subprocess.run([os.environ["GPUWATCH_BIN"], "--simulate", "demo", "serve", "--listen", "127.0.0.1:0",
                           "--no-record", "--remote-write", "https://127.0.0.1:9/api/v1/write",
                           "--remote-write-config", str(config)],
                          env=sim_env("demo"), capture_output=True, text=True, timeout=15)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "tls_config.cert_file: needs tls_config.key_file" in done.stderr, done.stderr
    assert str(config) in done.stderr, done.stderr
