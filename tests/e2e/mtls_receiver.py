"""Helpers of the mutual-TLS e2e tests (issue 29: test_notify_mtls.py, test_remote_write_mtls.py):
a throwaway PKI made with the openssl CLI, and an HTTPS receiver on 127.0.0.1 that requires a
client certificate signed by that PKI's CA. Not a test file: pytest and tests/CMakeLists.txt
only pick up test_*.py, so this is imported, never run on its own."""
import http.server
import os
import shutil
import ssl
import subprocess
import threading

import pytest

OPENSSL = shutil.which("openssl")
skip_without_openssl = pytest.mark.skipif(OPENSSL is None, reason="openssl CLI missing")

# The passphrase of client.enc.key, as client.pass holds it (one trailing newline, which
# key_password_file drops); wrong.pass holds another.
PASSPHRASE = "gpuwatch e2e passphrase"


def openssl(*args, cwd):
    subprocess.run([OPENSSL, *args], cwd=cwd, check=True, capture_output=True, timeout=20)


def make_pki(folder):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, EC P-256 (fast), in
    FOLDER: ca.pem, server.pem/.key, client.pem/.key, and the client key encrypted with AES-256
    (client.enc.key) with its passphrase file client.pass and a wrong one, wrong.pass (both 0600)."""
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
    for name, text in (("client.pass", PASSPHRASE + "\n"), ("wrong.pass", "not the passphrase\n")):
        (folder / name).write_text(text)
        os.chmod(folder / name, 0o600)
    openssl("pkey", "-in", "client.key", "-aes256", "-passout", "file:client.pass", "-out", "client.enc.key", cwd=folder)
    return folder


class MtlsReceiver:
    """HTTPS on 127.0.0.1 (a free port) requiring a client certificate from PKI's CA. Each POST is
    kept in posts as (path, the client certificate's common name, headers, body) and answered
    with answer(path, headers, body) (default 200). A refused handshake keeps nothing."""

    def __init__(self, pki, answer=lambda path, headers, body: 200):
        self.posts = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                peer = dict(x[0] for x in self.connection.getpeercert()["subject"]).get("commonName")
                receiver.posts.append((self.path, peer, dict(self.headers), body))
                self.send_response(answer(self.path, self.headers, body))
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
        self.base_url = f"https://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
