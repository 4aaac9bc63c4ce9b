"""gpuwatch serve --web-config-file (issue 4, Security), in the Prometheus exporter-toolkit
format: HTTPS with a certificate made here by the openssl CLI, basic auth against bcrypt
hashes made by Debian python's crypt module (libxcrypt, the library serve uses too), client
certificates verified against a CA, a public bind allowed once authentication is on, bad
files refused with exit 2 before anything starts, and a real Prometheus scraping over HTTPS
with basic_auth and tls_config."""
import base64
import http.client
import os
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request
import warnings

import pytest

from test_serve import BIN, LISTENING, SIM_LIB, sim_env
from test_serve_prometheus import Prometheus, free_port

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt  # deprecated in 3.11, present in Debian 12's python3

OPENSSL = shutil.which("openssl")
PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(OPENSSL is None, reason="openssl missing: scripts/install-deps installs it")
PASSWORD = "s3cret: with spaces"


def bcrypt(password, cost=4):
    """A $2b$ hash; cost 4 keeps the tests fast (production: 10 or more)."""
    return crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << cost))


def openssl(*args, cwd):
    out = subprocess.run([OPENSSL, *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def signed_cert(d, name, cn, extensions):
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={cn}",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=d)
    (d / f"{name}.ext").write_text(extensions + "\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
            "-extfile", f"{name}.ext", "-out", f"{name}.crt", cwd=d)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A test CA, a server certificate for 127.0.0.1 and a client certificate, all signed by it."""
    d = tmp_path_factory.mktemp("pki")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
            "/CN=gpuwatch test CA", "-days", "1", "-keyout", "ca.key", "-out", "ca.crt", cwd=d)
    signed_cert(d, "server", "localhost", "subjectAltName=IP:127.0.0.1,DNS:localhost")
    signed_cert(d, "client", "prometheus", "extendedKeyUsage=clientAuth")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=other",
            "-days", "1", "-keyout", "other.key", "-out", "other.crt", cwd=d)
    openssl("pkey", "-in", "server.key", "-aes256", "-passout", "pass:secret", "-out", "encrypted.key", cwd=d)
    for name, text in (("encrypted.pass", "secret\n"), ("wrong.pass", "not-it\n")):  # key_password_file
        (d / name).write_text(text)
        (d / name).chmod(0o600)
    return d


def write_config(directory, text, name="web.yml"):
    path = directory / name
    path.write_text(text)
    return path


def tls_users_config(pki, hash_):
    # Relative names: relative to the config file's directory, as in exporter-toolkit.
    return write_config(pki, f"""
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  min_version: TLS12
http_server_config:
  headers:
    X-Frame-Options: deny
    X-Content-Type-Options: nosniff
basic_auth_users:
  alice: '{hash_}'
""", "tls-users.yml")


class Serve:
    """`gpuwatch serve --listen LISTEN --web-config-file CONFIG` on the simulator."""

    def __init__(self, config, listen="127.0.0.1:0", scenario="training"):
        env = sim_env(scenario, seconds_in=120)
        self.proc = subprocess.Popen([BIN, "--simulate", scenario, "serve", "--listen", listen, "--interval", "500ms",
                                      "--web-config-file", str(config)],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        match = LISTENING.search(line)
        if not match:
            self.proc.kill()
            out, err = self.proc.communicate(timeout=10)
            pytest.fail(f"serve did not start: {line!r} {out!r} {err!r}")
        self.url = match.group(1)
        self.port = int(self.url.rpartition(":")[2])

    def local_url(self, scheme):  # 0.0.0.0 is reached through loopback
        return f"{scheme}://127.0.0.1:{self.port}"

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
        return self.proc.returncode


def get(url, user=None, password=None, context=None, timeout=5.0):
    """(status, headers, body); 4xx/5xx are answers, not exceptions."""
    request = urllib.request.Request(url)
    if user is not None:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        request.add_header("Authorization", "Basic " + token)
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def trusting(pki, client_cert=False):
    context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    if client_cert:
        context.load_cert_chain(str(pki / "client.crt"), str(pki / "client.key"))
    return context


@pytest.fixture(scope="module")
def tls_server(pki):
    server = Serve(tls_users_config(pki, bcrypt(PASSWORD)))
    yield server
    assert server.close() == 0


def test_https_with_the_right_password(tls_server, pki):
    assert tls_server.url.startswith("https://127.0.0.1:")
    status, headers, body = get(tls_server.url + "/metrics", "alice", PASSWORD, trusting(pki))
    assert status == 200, body
    assert "gpuwatch_gpus 2" in body
    assert headers["X-Frame-Options"] == "deny" and headers["X-Content-Type-Options"] == "nosniff"
    # The first success paid bcrypt; the next ones are remembered, and much cheaper.
    started = time.monotonic()
    for _ in range(5):
        assert get(tls_server.url + "/healthz", "alice", PASSWORD, trusting(pki))[0] == 200
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("user,password", [(None, None), ("alice", "wrong"), ("alice", ""), ("mallory", PASSWORD),
                                           ("Alice", PASSWORD)])
def test_https_without_the_right_password_is_401_on_every_path(tls_server, pki, user, password):
    for path in ("/metrics", "/healthz", "/api/v1/snapshot", "/", "/no-such-page"):
        status, headers, body = get(tls_server.url + path, user, password, trusting(pki))
        assert status == 401, (path, body)
        assert headers["WWW-Authenticate"] == 'Basic realm="gpuwatch"'
        assert headers["X-Frame-Options"] == "deny"  # configured headers on every answer
        assert "gpuwatch_" not in body


def test_plain_http_to_the_tls_port_gets_nothing(tls_server):
    connection = http.client.HTTPConnection("127.0.0.1", tls_server.port, timeout=5)
    with pytest.raises((http.client.HTTPException, OSError)):
        connection.request("GET", "/metrics")
        connection.getresponse().read()
    connection.close()


def test_an_untrusted_certificate_is_refused_by_the_client(tls_server):
    with pytest.raises(urllib.error.URLError) as e:
        get(tls_server.url + "/metrics", "alice", PASSWORD, ssl.create_default_context())
    assert "CERTIFICATE_VERIFY_FAILED" in str(e.value)


def test_public_bind_with_basic_auth_starts_without_insecure(pki, tmp_path):
    config = write_config(tmp_path, f"basic_auth_users:\n  alice: {bcrypt(PASSWORD)}\n")
    server = Serve(config, listen="0.0.0.0:0")
    try:
        assert server.url.startswith("http://0.0.0.0:")
        assert get(server.local_url("http") + "/metrics")[0] == 401
        status, _, body = get(server.local_url("http") + "/metrics", "alice", PASSWORD)
        assert status == 200 and "gpuwatch_gpus 2" in body
    finally:
        assert server.close() == 0


def test_client_certificates_verified_against_the_ca(pki, tmp_path):
    config = write_config(tmp_path, f"""
tls_server_config:
  cert_file: {pki / 'server.crt'}
  key_file: {pki / 'server.key'}
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: {pki / 'ca.crt'}
  min_version: TLS13
""")
    server = Serve(config, listen="0.0.0.0:0")  # verified client certificates are authentication
    try:
        url = server.local_url("https") + "/metrics"
        status, _, body = get(url, context=trusting(pki, client_cert=True))
        assert status == 200 and "gpuwatch_gpus 2" in body
        with pytest.raises((urllib.error.URLError, ssl.SSLError, ConnectionError)):
            get(url, context=trusting(pki))  # no client certificate
        stranger = trusting(pki)
        stranger.load_cert_chain(str(pki / "other.crt"), str(pki / "other.key"))  # not signed by the CA
        with pytest.raises((urllib.error.URLError, ssl.SSLError, ConnectionError)):
            get(url, context=stranger)
        old = trusting(pki, client_cert=True)
        old.maximum_version = ssl.TLSVersion.TLSv1_2  # below min_version
        with pytest.raises((urllib.error.URLError, ssl.SSLError, ConnectionError)):
            get(url, context=old)
    finally:
        assert server.close() == 0


def refused(config_path, listen="127.0.0.1:0"):
    """Runs serve with CONFIG_PATH; asserts it exits 2 before listening and returns stderr."""
    env = sim_env("training")
    out = subprocess.run([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", listen, "--web-config-file",
                          str(config_path)], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "listening on" not in out.stdout
    return out.stderr


def test_public_bind_with_tls_but_no_authentication_is_refused(pki):
    config = write_config(pki, "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n", "tls-only.yml")
    err = refused(config, listen="0.0.0.0:0")
    assert "refusing to listen on 0.0.0.0:0 without authentication" in err
    assert "basic_auth_users" in err


BAD_CONFIGS = [
    ("unknown-key.yml", "tls_server_config:\n  cert_file: server.crt\n  keyfile: server.key\n",
     ["unknown-key.yml:3: tls_server_config.keyfile: unknown key"]),
    ("plain-password.yml", "basic_auth_users:\n  alice: hunter2\n",
     ["plain-password.yml:2: basic_auth_users.alice: not a bcrypt hash"]),
    ("wrong-type.yml", "basic_auth_users: [alice]\n", ["wrong-type.yml:1: basic_auth_users: expected a mapping"]),
    ("bad-version.yml", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: SSL3\n",
     ["bad-version.yml:4: tls_server_config.min_version: unknown TLS version 'SSL3'"]),
    ("missing-cert.yml", "tls_server_config:\n  cert_file: nowhere.crt\n  key_file: server.key\n",
     ["missing-cert.yml: tls_server_config: cannot read cert_file '", "nowhere.crt': No such file or directory"]),
    ("wrong-key.yml", "tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n",
     ["wrong-key.yml: tls_server_config: key_file ", "other.key: does not match the certificate in cert_file"]),
    ("not-a-cert.yml", "tls_server_config:\n  cert_file: server.key\n  key_file: server.key\n",
     ["not-a-cert.yml: tls_server_config: cert_file ", "server.key: no PEM certificate in it"]),
    ("encrypted-key.yml", "tls_server_config:\n  cert_file: server.crt\n  key_file: encrypted.key\n",
     ["encrypted-key.yml: tls_server_config: key_file ",
      "encrypted.key: the key is encrypted: give tls_server_config.key_password_file"]),
    ("wrong-passphrase.yml",
     "tls_server_config:\n  cert_file: server.crt\n  key_file: encrypted.key\n  key_password_file: wrong.pass\n",
     ["wrong-passphrase.yml: tls_server_config: key_file ",
      "encrypted.key: the key could not be decrypted or read with the given tls_server_config.key_password_file"]),
    ("rate-limit.yml", "rate_limit:\n  interval: 1s\n  burst: 20\n", ["rate_limit: not supported by gpuwatch"]),
    ("not-yaml.yml", "basic_auth_users: {alice\n", ["not-yaml.yml:", "not valid YAML"]),
]


@pytest.mark.parametrize("name,text,expected", BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_web_configs_exit_2_naming_the_problem(pki, name, text, expected):
    err = refused(write_config(pki, text, name))
    assert err.startswith("gpuwatch serve: --web-config-file: "), err
    for part in expected:
        assert part in err, err
    assert "hunter2" not in err  # a password by mistake is never echoed
    assert "not-it" not in err  # nor wrong.pass's passphrase


def test_an_encrypted_key_with_its_key_password_file(pki):
    """key_password_file (gpuwatch's addition to the toolkit's format): the passphrase of an
    encrypted key, in a file beside the config; serve answers over HTTPS with that key."""
    config = write_config(pki, "tls_server_config:\n  cert_file: server.crt\n  key_file: encrypted.key\n"
                               "  key_password_file: encrypted.pass\n", "encrypted-ok.yml")
    server = Serve(config)
    try:
        status, _, body = get(server.local_url("https") + "/metrics", context=trusting(pki))
        assert status == 200 and "gpuwatch_" in body
    finally:
        assert server.close() == 0


def test_a_missing_web_config_file_exits_2(tmp_path):
    err = refused(tmp_path / "absent.yml")
    assert "cannot read web config file '" in err and "absent.yml': No such file or directory" in err, err


def test_the_example_in_deploy_md_works(pki):
    """docs/deploy.md's web.yml, with its relative cert_file/key_file beside it."""
    with open(os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "docs", "deploy.md")) as f:
        doc = f.read()
    start = doc.index("# /etc/gpuwatch/web.yml\n")
    example = doc[start:doc.index("```", start)]
    server = Serve(write_config(pki, example, "deploy-example.yml"))
    try:
        assert server.url.startswith("https://")
        status, headers, _ = get(server.url + "/metrics", context=trusting(pki))
        assert status == 401 and headers["Strict-Transport-Security"] == "max-age=31536000"
        # The example's hash is exporter-toolkit's documentation example; its password is not
        # published, so only a wrong one can be tried.
        assert get(server.url + "/metrics", "prometheus", "guess", trusting(pki))[0] == 401
    finally:
        assert server.close() == 0


class HttpsPrometheus(Prometheus):
    """Prometheus scraping TARGET over HTTPS: job `good` with the right password, job `bad`
    with a wrong one (same tls_config)."""

    def __init__(self, tmp_path, target, ca_file):  # pylint: disable=super-init-not-called
        self.port = free_port()
        jobs = ""
        for job, password in (("good", PASSWORD), ("bad", "wrong")):
            jobs += f"""
  - job_name: {job}
    scheme: https
    scrape_interval: 1s
    scrape_timeout: 900ms
    basic_auth:
      username: alice
      password: '{password}'
    tls_config:
      ca_file: {ca_file}
    static_configs:
      - targets: ["{target}"]
"""
        config = tmp_path / "prometheus.yml"
        config.write_text("global:\n  scrape_interval: 1s\nscrape_configs:" + jobs)
        self.log = open(tmp_path / "prometheus.log", "w")
        self.proc = subprocess.Popen([PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
                                      f"--web.listen-address=127.0.0.1:{self.port}"],
                                     stdout=self.log, stderr=subprocess.STDOUT)


@pytest.mark.skipif(PROMETHEUS is None, reason="prometheus missing: scripts/install-deps installs it (Debian package)")
def test_prometheus_scrapes_over_https_with_basic_auth(tls_server, pki, tmp_path):
    prom = HttpsPrometheus(tmp_path, tls_server.url.split("//", 1)[1], pki / "ca.crt")
    try:
        def both_scraped():
            targets = {t["labels"]["job"]: t for t in prom.api("targets")["activeTargets"]}
            if all(t["health"] != "unknown" for t in targets.values()) and len(targets) == 2:
                return targets
            return None

        targets = prom.wait_for("both targets scraped", both_scraped)
        assert targets["good"]["health"] == "up", targets["good"]
        assert targets["good"]["scrapeUrl"].startswith("https://127.0.0.1:")
        assert targets["bad"]["health"] == "down"
        assert "401" in targets["bad"]["lastError"], targets["bad"]
        up = prom.wait_for("up == 1 for job good", lambda: prom.query('up{job="good"} == 1'))
        assert len(up) == 1
        gpus = prom.wait_for("gpuwatch_gpus", lambda: prom.query('gpuwatch_gpus{job="good"}'))
        assert float(gpus[0]["value"][1]) == 2
        assert prom.query('up{job="bad"}')[0]["value"][1] == "0"
    finally:
        prom.close()
