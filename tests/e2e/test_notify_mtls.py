"""Notification channels over mutual TLS (issue 29): a channel's cert_file and key_file (as push's
tls_config) give libcurl a client certificate. An HTTPS webhook receiver that requires one
(CERT_REQUIRED, its own CA: mtls_receiver.py) gets `alerts test`'s message when the channel names
the client certificate, and refuses the handshake without it; a cert_file without key_file is a
usage error that names the key. An encrypted key works with key_password_file (its passphrase);
with a wrong one nothing arrives and the error names the key file, never the passphrase."""
import json
import os
import subprocess

from mtls_receiver import PASSPHRASE, MtlsReceiver, make_pki, skip_without_openssl

BIN = os.environ["GPUWATCH_BIN"]
pytestmark = skip_without_openssl


def channel_config(path, url, pki, cert=True, key="client.key", password=None):
    lines = ["channels:", "  secure:", "    type: webhook", f"    url: {url}", f"    ca_file: {pki / 'ca.pem'}",
             "    timeout: 5s"]
    if cert:
        lines.append(f"    cert_file: {pki / 'client.pem'}")
    if key:
        lines.append(f"    key_file: {pki / key}")
    if password:
        lines.append(f"    key_password_file: {password}")  # relative: beside the config
    path.write_text("\n".join(lines) + "\n")
    return path


def alerts_test(config):
    return subprocess.run([BIN, "alerts", "test", "secure", "--notify-config", str(config)], capture_output=True,
                          text=True, timeout=60)


def sent_by(receiver):
    return [(path, peer) for path, peer, _, _ in receiver.posts]


def test_webhook_sends_its_client_certificate(tmp_path):
    pki = make_pki(tmp_path / "pki")
    with MtlsReceiver(pki) as receiver:
        url = receiver.base_url + "/hook"
        sent = alerts_test(channel_config(tmp_path / "with.yaml", url, pki))
        assert sent.returncode == 0, sent.stderr
        assert sent_by(receiver) == [("/hook", "gpuwatch test client")]
        assert json.loads(receiver.posts[0][3])["alerts"], receiver.posts[0][3]
        # Without the certificate the server refuses the handshake: nothing arrives, and the
        # command says the send failed.
        refused = alerts_test(channel_config(tmp_path / "without.yaml", url, pki, cert=False, key=None))
        assert refused.returncode != 0
        assert len(receiver.posts) == 1
    half = alerts_test(channel_config(tmp_path / "half.yaml", "https://127.0.0.1:9/hook", pki, key=None))
    assert half.returncode == 2 and "cert_file: needs key_file" in half.stderr, half.stderr
    gone = alerts_test(channel_config(tmp_path / "missing.yaml", "https://127.0.0.1:9/hook", pki, key="nope.key"))
    assert gone.returncode == 2 and "key_file" in gone.stderr and "nope.key" in gone.stderr, gone.stderr


def test_an_encrypted_client_key_with_its_key_password_file(tmp_path):
    pki = make_pki(tmp_path / "pki")
    encrypted = pki / "client.enc.key"
    with MtlsReceiver(pki) as receiver:
        url = receiver.base_url + "/hook"
        # The right passphrase (a path relative to the config): the message arrives, sent with the
        # client certificate.
        sent = alerts_test(channel_config(pki / "right.yaml", url, pki, key="client.enc.key", password="client.pass"))
        assert sent.returncode == 0, sent.stderr
        assert sent_by(receiver) == [("/hook", "gpuwatch test client")]
        # A wrong one: nothing arrives; the error says the key could not be decrypted and names it.
        wrong = alerts_test(channel_config(pki / "wrong.yaml", url, pki, key="client.enc.key", password="wrong.pass"))
        assert wrong.returncode != 0
        assert len(receiver.posts) == 1
        assert (f"the client key '{encrypted}' could not be decrypted or read with the given key_password_file"
                in wrong.stderr), wrong.stderr
        for run in (sent, wrong):
            assert PASSPHRASE not in run.stdout + run.stderr
    # Checked at load (exit 2, before any send): an encrypted key without key_password_file, a
    # passphrase file others may read, one that is missing, and key_password_file without key_file.
    bare = alerts_test(channel_config(tmp_path / "bare.yaml", url, pki, key="client.enc.key"))
    assert bare.returncode == 2 and f"key_file '{encrypted}' is encrypted: give key_password_file" in bare.stderr, bare.stderr
    os.chmod(pki / "client.pass", 0o644)
    loose = alerts_test(channel_config(pki / "loose.yaml", url, pki, key="client.enc.key", password="client.pass"))
    assert loose.returncode == 2 and "is open to other users (mode 0644)" in loose.stderr, loose.stderr
    absent = alerts_test(channel_config(pki / "absent.yaml", url, pki, key="client.enc.key", password="nope.pass"))
    assert absent.returncode == 2 and f"cannot read key_password_file '{pki / 'nope.pass'}'" in absent.stderr, absent.stderr
    keyless = alerts_test(channel_config(pki / "keyless.yaml", url, pki, cert=False, key=None, password="wrong.pass"))
    assert keyless.returncode == 2 and "key_password_file: needs key_file" in keyless.stderr, keyless.stderr
    for run in (bare, loose, absent, keyless):
        assert PASSPHRASE not in run.stdout + run.stderr
