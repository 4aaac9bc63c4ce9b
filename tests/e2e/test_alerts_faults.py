"""Issue 11, faults and state: a restart neither forgets a firing alert nor notifies it twice; a
receiver that never answers slows neither sampling nor /metrics and serve still stops at once; a
bad rules file or channel configuration exits 2 before anything starts; `record` evaluates the
rules too. (Delivery timing per scenario: test_alerts_serve.py.)"""
import signal
import subprocess
import time

from test_alerts_serve import INTERVAL_S, Receiver, heat_file, receiver, serve_with_webhook  # noqa: F401 (fixture)
from test_serve import BIN, sim_env


def test_a_restart_neither_forgets_a_firing_alert_nor_notifies_it_twice(tmp_path, receiver):
    scenario = heat_file(tmp_path)
    env = sim_env(scenario)  # one epoch for both runs: the scenario goes on across the restart
    db = str(tmp_path / "h.db")
    with serve_with_webhook(env, receiver, "/restart", "--db", db) as server:
        assert receiver.wait_for(lambda a: any(s == "firing" and n == "GpuTemperatureHigh" for s, n, *_ in a), 40)
        code, _, err = server.stop()
        assert code == 0, err
    before = len([x for x in receiver.alerts() if x[1] == "GpuTemperatureHigh"])
    with serve_with_webhook(env, receiver, "/restart", "--db", db) as server:
        server.wait_ready()
        _, _, err = "", "", ""
        api = server.get_json("/api/v1/alerts")
        hot = [a for a in api["alerts"] if a["name"] == "GpuTemperatureHigh"]
        assert hot and hot[0]["state"] == "firing", f"the firing alert was forgotten: {api}"
        time.sleep(2 * INTERVAL_S + 1)
        again = [x for x in receiver.alerts() if x[1] == "GpuTemperatureHigh" and x[0] == "firing"]
        assert len(again) == 1, f"notified twice across the restart: {again}"
        got = receiver.wait_for(lambda a: any(s == "resolved" and n == "GpuTemperatureHigh" for s, n, *_ in a), 30)
        assert got, "the restored alert never resolved"
        resolved = [x for x in receiver.alerts() if x[1] == "GpuTemperatureHigh" and x[0] == "resolved"]
        assert len(resolved) == 1
        server.stop()
    assert before == 1


def test_a_receiver_that_never_answers_slows_neither_sampling_nor_metrics(tmp_path):
    slow = Receiver(delay_s=30)
    try:
        env = sim_env(heat_file(tmp_path))
        with serve_with_webhook(env, slow, "/slow", "--no-record") as server:
            server.wait_ready()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(
                    a["state"] == "firing" for a in server.get_json("/api/v1/alerts")["alerts"]):
                time.sleep(0.2)
            # An alert fires and its delivery hangs in the receiver: scrapes stay fast and samples fresh.
            time.sleep(1)
            worst = 0.0
            for _ in range(20):
                start = time.monotonic()
                body = server.metrics()
                worst = max(worst, time.monotonic() - start)
                time.sleep(0.1)
            assert worst < 1.0, f"a /metrics scrape took {worst:.2f} s while a receiver hung"
            ages = [float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
                    if line.startswith("gpuwatch_sample_age_seconds")]
            assert ages and max(ages) < 3 * INTERVAL_S + 1, ages
            start = time.monotonic()
            code, _, err = server.stop(timeout=10)
            assert time.monotonic() - start < 5, "serve took long to stop with a delivery in flight"
            assert code == 0, err
    finally:
        slow.close()


def test_a_bad_rules_file_exits_2_naming_line_key_and_problem(tmp_path):
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n  - alert: Hot\n    expr: temperature.gpu > 85\n    for: five minutes\n    severity: warning\n")
    env = sim_env("demo")
    out = subprocess.run([BIN, "--simulate", "demo", "serve", "--listen", "127.0.0.1:0", "--alert-rules", str(rules)],
                         capture_output=True, text=True, timeout=30, env=env)
    assert out.returncode == 2, out.stderr
    assert "rules.yaml:4" in out.stderr and "for" in out.stderr, out.stderr
    assert "listening" not in out.stdout


def test_a_bad_channel_configuration_exits_2(tmp_path):
    config = tmp_path / "channels.yaml"
    config.write_text("channels:\n  - name: team\n    type: slak\n    url: https://example.invalid/hook\n")
    env = sim_env("demo")
    out = subprocess.run([BIN, "--simulate", "demo", "record", "--count", "1", "--notify-config", str(config)],
                         capture_output=True, text=True, timeout=30, env=env)
    assert out.returncode == 2, out.stderr
    assert "slak" in out.stderr, out.stderr


def test_record_evaluates_the_rules_too(tmp_path, receiver):
    env = sim_env(heat_file(tmp_path))
    db = str(tmp_path / "r.db")
    proc = subprocess.Popen([BIN, "--simulate", env["GPUWATCH_SIM_SCENARIO"], "record", "--db", db, "--interval", "500ms",
                             "--notify", f"webhook={receiver.url}/record"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        got = receiver.wait_for(lambda a: any(s == "firing" and n == "GpuTemperatureHigh" for s, n, *_ in a), 40)
        assert got, receiver.alerts()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert "alerts: " in err
