"""serve --remote-write over mutual TLS (issue 29): tls_config's cert_file and key_file (Prometheus's
names) give libcurl a client certificate. An HTTPS receiver that requires one (CERT_REQUIRED,
signed by the test's CA: mtls_receiver.py) gets writes with the remote-write headers when the
config names the certificate; without it the handshake fails, nothing arrives, and serve counts
failed sends on its own /metrics and keeps running; cert_file without key_file is a usage error
at start. An encrypted key works with tls_config.key_password_file; with a wrong passphrase nothing
arrives and serve says the key could not be decrypted, naming the key file, never the passphrase."""
import os
import subprocess
import time

from mtls_receiver import PASSPHRASE, MtlsReceiver, make_pki, skip_without_openssl
from test_remote_write import push_health
from test_serve import Server, sim_env

pytestmark = skip_without_openssl


def is_write(path, headers, body):
    return (path == "/api/v1/write" and headers.get("Content-Encoding") == "snappy"
            and bool(headers.get("X-Prometheus-Remote-Write-Version")) and bool(body))


class WriteReceiver(MtlsReceiver):
    """POST /api/v1/write: 204 for a remote write, 400 for anything else."""

    def __init__(self, pki):
        super().__init__(pki, answer=lambda path, headers, body: 204 if is_write(path, headers, body) else 400)
        self.url = self.base_url + "/api/v1/write"

    @property
    def writes(self):
        return sum(1 for path, _, headers, body in self.posts if is_write(path, headers, body))

    @property
    def peers(self):
        return {peer for path, peer, headers, body in self.posts if is_write(path, headers, body)}

    @property
    def bad_headers(self):
        return [(path, headers) for path, _, headers, body in self.posts if not is_write(path, headers, body)]


def push_config(path, pki, tmp_path, client_cert=True, key="client.key", password=None):
    lines = [f"ca_file: {pki / 'ca.pem'}"]
    if client_cert:
        lines.append(f"cert_file: {pki / 'client.pem'}")
    if key:
        lines.append(f"key_file: {pki / key}")
    if password:
        lines.append(f"key_password_file: {password}")  # relative: beside the config
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


def start_fails(config):
    """serve with CONFIG, which must be refused at start: its stderr."""
    done = subprocess.run([os.environ["GPUWATCH_BIN"], "--simulate", "demo", "serve", "--listen", "127.0.0.1:0",
                           "--no-record", "--remote-write", "https://127.0.0.1:9/api/v1/write",
                           "--remote-write-config", str(config)],
                          env=sim_env("demo"), capture_output=True, text=True, timeout=15)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert PASSPHRASE not in done.stdout + done.stderr
    return done.stderr


def test_mutual_tls_push(tmp_path):
    pki = make_pki(tmp_path / "pki")
    with WriteReceiver(pki) as receiver:
        # With the client certificate: the writes arrive, with the remote-write headers.
        with serve(receiver, push_config(tmp_path / "with-cert.yaml", pki, tmp_path)) as server:
            assert wait_until(lambda: receiver.writes >= 2, 10), (receiver.writes, receiver.bad_headers)
            assert receiver.bad_headers == []
            assert receiver.peers == {"gpuwatch test client"}  # the certificate the config named
            assert wait_until(lambda: push_health(server).get("sent_total", 0) > 0, 5), push_health(server)
            stop(server)

        # Without it: the receiver refuses the handshake; nothing arrives, serve counts failures.
        before = receiver.writes
        with serve(receiver, push_config(tmp_path / "no-cert.yaml", pki, tmp_path, client_cert=False, key=None)) as server:
            health = wait_until(lambda: (h := push_health(server)).get("failed_total", 0) > 0 and h, 10)
            assert health and health["failed_total"] > 0, health
            assert health.get("sent_total", 0) == 0, health
            assert server.proc.poll() is None  # still serving
            assert server.get("/metrics")[0] == 200
            err = stop(server)
        assert receiver.writes == before, "a write arrived without a client certificate"
        assert "remote-write: cannot send" in err, err  # the failure is said, not silent

    # cert_file without key_file: a usage error naming the key, before anything starts.
    config = push_config(tmp_path / "half.yaml", pki, tmp_path, key=None)
    err = start_fails(config)
    assert "tls_config.cert_file: needs tls_config.key_file" in err, err
    assert str(config) in err, err


def test_an_encrypted_client_key_with_its_key_password_file(tmp_path):
    pki = make_pki(tmp_path / "pki")
    encrypted = pki / "client.enc.key"
    with WriteReceiver(pki) as receiver:
        # The right passphrase: the writes arrive, sent with the client certificate; the
        # passphrase is nowhere on /metrics.
        right = push_config(pki / "right.yaml", pki, tmp_path, key="client.enc.key", password="client.pass")
        with serve(receiver, right) as server:
            assert wait_until(lambda: receiver.writes >= 2, 10), (receiver.writes, receiver.bad_headers)
            assert receiver.peers == {"gpuwatch test client"}
            assert PASSPHRASE not in server.metrics()
            err = stop(server)
        assert PASSPHRASE not in err

        # A wrong one: no handshake, nothing arrives; serve says which key could not be decrypted.
        before = len(receiver.posts)
        wrong = push_config(pki / "wrong.yaml", pki, tmp_path, key="client.enc.key", password="wrong.pass")
        with serve(receiver, wrong) as server:
            health = wait_until(lambda: (h := push_health(server)).get("failed_total", 0) > 0 and h, 10)
            assert health and health.get("sent_total", 0) == 0, health
            err = stop(server)
        assert len(receiver.posts) == before, "a write arrived with a wrong passphrase"
        assert (f"the client key '{encrypted}' could not be decrypted or read with the given key_password_file"
                in err), err
        assert PASSPHRASE not in err

    # Checked at start: an encrypted key without key_password_file; a passphrase file others may read.
    err = start_fails(push_config(tmp_path / "bare.yaml", pki, tmp_path, key="client.enc.key"))
    assert f"tls_config.key_file '{encrypted}' is encrypted: give tls_config.key_password_file" in err, err
    os.chmod(pki / "client.pass", 0o640 | 0o004)
    err = start_fails(push_config(pki / "loose.yaml", pki, tmp_path, key="client.enc.key", password="client.pass"))
    assert f"'{pki / 'client.pass'}' is open to other users (mode 0644)" in err, err
