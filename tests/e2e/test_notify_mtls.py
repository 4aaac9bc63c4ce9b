"""Notification channels over mutual TLS (issue 29): a channel's cert_file and key_file (as push's
tls_config) give libcurl a client certificate. A Python HTTPS webhook receiver that requires one
(CERT_REQUIRED, its own CA) gets `alerts test`'s message when the channel names the client
certificate, and refuses the handshake without it; a cert_file without key_file is a usage error
that names the key."""
import http.server
import importlib.util
import json
import os
import ssl
import subprocess
import threading
from pathlib import Path

import pytest

BIN = os.environ["GPUWATCH_BIN"]
_spec = importlib.util.spec_from_file_location("remote_write_mtls", Path(__file__).with_name("test_remote_write_mtls.py"))
_mtls = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mtls)
pytestmark = pytest.mark.skipif(_mtls.OPENSSL is None, reason="openssl CLI missing")


class HookReceiver:
    """POST /hook over TLS requiring a client certificate from the test CA; keeps each body and peer."""

    def __init__(self, pki):
        self.posts = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                peer = dict(x[0] for x in self.connection.getpeercert()["subject"]).get("commonName")
                receiver.posts.append((self.path, peer, body))
                self.send_response(200)
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
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def channel_config(path, url, pki, cert=True, key=True):
    lines = ["channels:", "  secure:", "    type: webhook", f"    url: {url}", f"    ca_file: {pki / 'ca.pem'}",
             "    timeout: 5s"]
    if cert:
        lines.append(f"    cert_file: {pki / 'client.pem'}")
    if key:
        lines.append(f"    key_file: {pki / 'client.key'}")
    path.write_text("\n".join(lines) + "\n")
    return path


def alerts_test(config):
    return subprocess.run([BIN, "alerts", "test", "secure", "--notify-config", str(config)], capture_output=True,
                          text=True, timeout=60)


def test_webhook_sends_its_client_certificate(tmp_path):
    pki = _mtls.make_pki(tmp_path / "pki")
    receiver = HookReceiver(pki)
    try:
        sent = alerts_test(channel_config(tmp_path / "with.yaml", receiver.url, pki))
        assert sent.returncode == 0, sent.stderr
        assert [(p, peer) for p, peer, _ in receiver.posts] == [("/hook", "gpuwatch test client")]
        assert json.loads(receiver.posts[0][2])["alerts"], receiver.posts[0][2]
        # Without the certificate the server refuses the handshake: nothing arrives, and the
        # command says the send failed.
        refused = alerts_test(channel_config(tmp_path / "without.yaml", receiver.url, pki, cert=False, key=False))
        assert refused.returncode != 0
        assert len(receiver.posts) == 1
    finally:
        receiver.close()
    half = alerts_test(channel_config(tmp_path / "half.yaml", "https://127.0.0.1:9/hook", pki, key=False))
    assert half.returncode == 2 and "cert_file: needs key_file" in half.stderr, half.stderr
    missing = channel_config(tmp_path / "missing.yaml", "https://127.0.0.1:9/hook", pki)
    missing.write_text(missing.read_text().replace("client.key", "nope.key"))
    gone = alerts_test(missing)
    assert gone.returncode == 2 and "key_file" in gone.stderr and "nope.key" in gone.stderr, gone.stderr
