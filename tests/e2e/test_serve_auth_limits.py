"""Issue 31 (security), part B: bcrypt in `serve` under attack, and files a config names.
bcrypt costs above gpuwatch's bound (14) are refused at load with file:line:key; hashing runs
on a bounded pool of its own, so a flood of wrong passwords gets 503s rather than a backlog,
and SIGTERM never waits for a hash (serve exits within 2 s); one address gets 429 after 30
wrong passwords in a minute. A certificate or key named in the web config goes through the bounded
regular-file read: /dev/zero or a FIFO is refused at once, naming the file."""
import base64
import http.client
import os
import shutil
import signal
import subprocess
import threading
import time
import warnings

import pytest

from test_serve import BIN, LISTENING, SIM_LIB, sim_env

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt  # deprecated in 3.11, present in Debian 12's python3

PASSWORD = "right horse battery"
# Syntactically valid bcrypt hashes whose cost is over the bound (never computed: no need).
OVER_BOUND = "$2y$15$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"
HUGE = "$2y$31$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"


def bcrypt(password, cost):
    return crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << cost))


def authorization(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def start_serve(config):
    proc = subprocess.Popen([BIN, "--simulate", "training", "serve", "--listen", "127.0.0.1:0", "--interval", "500ms",
                             "--web-config-file", str(config)],
                            env=sim_env("training", seconds_in=120), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = LISTENING.search(line)
    if not match:
        proc.kill()
        out, err = proc.communicate(timeout=10)
        pytest.fail(f"serve did not start: {line!r} {out!r} {err!r}")
    return proc, int(match.group(1).rpartition(":")[2])


def stop(proc):
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=10)


def refused_within(config, seconds):
    """Runs serve on CONFIG: it must exit 2 before listening, within SECONDS; returns stderr."""
    started = time.monotonic()
    out = subprocess.run([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "127.0.0.1:0", "--web-config-file",
                          str(config)], env=sim_env("training"), capture_output=True, text=True, timeout=30)
    elapsed = time.monotonic() - started
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "listening on" not in out.stdout
    assert elapsed < seconds, f"took {elapsed:.1f} s"
    return out.stderr


def ask(port, header, source="127.0.0.1"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        conn.request("GET", "/metrics", headers={"Authorization": header})
        response = conn.getresponse()
        response.read()
        return response.status, response.getheader("Retry-After")
    finally:
        conn.close()


def test_a_cost_above_the_bound_is_refused_at_load_naming_file_line_and_key(tmp_path):
    config = tmp_path / "web.yml"
    config.write_text(f"basic_auth_users:\n  bob: {bcrypt('x', 4)}\n  alice: {OVER_BOUND}\n")
    err = refused_within(config, 5)
    assert f"{config}:3: basic_auth_users.alice: bcrypt cost 15 is above gpuwatch's limit of 14" in err, err
    config.write_text(f"basic_auth_users:\n  alice: {HUGE}\n")
    err = refused_within(config, 5)
    assert f"{config}:2: basic_auth_users.alice: bcrypt cost 31" in err, err
    assert "mDwo" not in err  # the hash is never echoed


def test_sigterm_under_a_flood_of_wrong_passwords_exits_within_2_s(tmp_path):
    """Cost 14, the top of the usual 12-14 and the bound (~1 s a hash: a server that waited for
    its hashes on SIGTERM would take well over 2 s), and 24 clients from 24 loopback addresses
    (so the per-address limit does not stop them): both pool threads hash, the queue fills and
    the rest get 503; SIGTERM while hashing still ends serve within 2 s."""
    config = tmp_path / "web.yml"
    config.write_text(f"basic_auth_users:\n  alice: {bcrypt(PASSWORD, 14)}\n")
    proc, port = start_serve(config)
    statuses = []
    lock = threading.Lock()
    done = threading.Event()
    wrong = authorization("alice", "wrong guess")

    def flood(source):
        deadline = time.monotonic() + 8  # bounded even if the test fails midway
        while not done.is_set() and time.monotonic() < deadline:
            try:
                status, _ = ask(port, wrong, source)
            except (OSError, http.client.HTTPException):
                status = "closed"
            with lock:
                statuses.append(status)

    threads = [threading.Thread(target=flood, args=(f"127.0.0.{10 + i}",), daemon=True) for i in range(24)]
    try:
        for t in threads:
            t.start()
        end = time.monotonic() + 5  # hashing now, and a full queue: both seen within a second or so
        while time.monotonic() < end:
            with lock:
                seen = set(statuses)
            if {401, 503} <= seen:
                break
            time.sleep(0.05)
        assert 401 in seen, seen  # hashes ran and failed
        assert 503 in seen, seen  # the pool's queue is bounded: the rest are refused at once
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        elapsed = time.monotonic() - started
        assert elapsed < 2.0, f"serve took {elapsed:.2f} s to exit after SIGTERM under the flood"
        assert proc.returncode == 0, proc.stderr.read()
    finally:
        done.set()
        for t in threads:
            t.join(timeout=15)
        stop(proc)


def test_one_address_gets_429_after_30_wrong_passwords_but_known_credentials_pass(tmp_path):
    config = tmp_path / "web.yml"
    config.write_text(f"basic_auth_users:\n  alice: {bcrypt(PASSWORD, 4)}\n")
    proc, port = start_serve(config)
    try:
        right = authorization("alice", PASSWORD)
        assert ask(port, right)[0] == 200  # verified once: remembered
        wrong = authorization("alice", "nope")
        assert [ask(port, wrong)[0] for _ in range(30)] == [401] * 30
        status, retry_after = ask(port, wrong)
        assert status == 429 and retry_after is not None and 1 <= int(retry_after) <= 60, (status, retry_after)
        assert ask(port, authorization("mallory", "guess"))[0] == 429  # no more bcrypt for this address
        assert ask(port, right)[0] == 200  # a Prometheus sharing the address is not locked out
        assert ask(port, wrong, source="127.0.0.2")[0] == 401  # other addresses are counted apart
    finally:
        stop(proc)


def make_fifo(path):
    os.mkfifo(path)
    return path


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("openssl missing: scripts/install-deps installs it")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-subj", "/CN=localhost", "-days", "1", "-keyout", "server.key", "-out", "server.crt"],
                   cwd=d, check=True, capture_output=True, timeout=60)
    return d


@pytest.mark.parametrize("key", ["cert_file", "key_file"])
@pytest.mark.parametrize("kind", ["devzero", "fifo"])
def test_a_device_or_fifo_as_certificate_or_key_is_refused_at_once(tmp_path, self_signed, key, kind):
    target = "/dev/zero" if kind == "devzero" else str(make_fifo(tmp_path / "pipe.pem"))
    files = {"cert_file": str(self_signed / "server.crt"), "key_file": str(self_signed / "server.key"), key: target}
    config = tmp_path / "web.yml"
    config.write_text(f"tls_server_config:\n  cert_file: {files['cert_file']}\n  key_file: {files['key_file']}\n")
    err = refused_within(config, 3)
    what = "a device" if kind == "devzero" else "a FIFO"
    assert f"{config}: tls_server_config: {key} '{target}' is {what}" in err, err
    assert "give a regular file" in err, err


def test_a_fifo_as_the_web_config_itself_is_refused_at_once(tmp_path):
    err = refused_within(make_fifo(tmp_path / "web.yml"), 3)
    assert f"web config file '{tmp_path / 'web.yml'}' is a FIFO" in err, err
