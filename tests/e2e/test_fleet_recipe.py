"""deploy/fleet/ (issue 29's fleet recipe) is valid as shipped: promtool accepts the central
Prometheus's config and web config, every YAML file parses, the Grafana data sources are of the
type the dashboard's datasource variable lists, every flag of the node drop-in's command line is
in `gpuwatch serve --help`, vmalert accepts the rules as the README says to give them, and the
drop-in's command line runs for real on the simulator with the recipe's push.yaml (only its
paths moved into a temporary folder), pushing through Prometheus with the recipe's basic auth."""
import base64
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import urllib.parse
import urllib.request

import pytest
import yaml

from test_deploy_systemd import parse_unit
from test_remote_write import wait_for
from test_serve import BIN, LISTENING, sim_env
from test_serve_prometheus import free_port

FLEET = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "deploy", "fleet")
RULES = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "deploy", "prometheus", "gpuwatch-rules.yaml")
DASHBOARD = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "deploy", "grafana", "gpuwatch-dashboard.json")
PROMTOOL = shutil.which("promtool")
PROMETHEUS = shutil.which("prometheus")
VMALERT = shutil.which("vmalert")
PASSWORD = "CHANGE-ME"  # the placeholder prometheus-web.yml's hash is of


def fleet(name):
    with open(os.path.join(FLEET, name), encoding="utf-8") as f:
        return f.read()


def drop_in_argv():
    service = parse_unit(fleet("gpuwatch-push.conf"))["Service"]
    assert service["ExecStart"][0] == "", "the drop-in must clear the unit's ExecStart first"
    return shlex.split(service["ExecStart"][-1])


@pytest.mark.skipif(PROMTOOL is None, reason="promtool missing (Debian package prometheus)")
def test_promtool_accepts_the_central_config(tmp_path):
    shutil.copy(os.path.join(FLEET, "prometheus.yml"), tmp_path)
    shutil.copy(RULES, tmp_path)  # README step 1 puts it beside the config
    out = subprocess.run([PROMTOOL, "check", "config", str(tmp_path / "prometheus.yml")], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 rule files found" in out.stdout + out.stderr
    out = subprocess.run([PROMTOOL, "check", "web-config", os.path.join(FLEET, "prometheus-web.yml")],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "--web.enable-remote-write-receiver" in fleet("prometheus.default")


def test_yaml_files_parse_and_name_what_the_recipe_needs():
    push = yaml.safe_load(fleet("gpuwatch-push.yaml"))
    assert set(push["external_labels"]) == {"cluster", "node"}
    assert push["buffer"]["dir"] == "/var/lib/gpuwatch/remote-write"  # the unit's StateDirectory
    assert push["basic_auth"]["password_file"] == "/run/credentials/gpuwatch.service/push.password"
    sources = yaml.safe_load(fleet("grafana-datasources.yaml"))["datasources"]
    dashboards = yaml.safe_load(fleet("grafana-dashboards.yaml"))["providers"]
    assert dashboards[0]["options"]["path"]
    # The dashboard picks its data source from those of one type: each fleet data source must be it.
    with open(DASHBOARD) as f:
        variables = {v["name"]: v for v in json.load(f)["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert {s["type"] for s in sources} == {variables["datasource"]["query"]} == {"prometheus"}
    assert any(s["url"].endswith(":8428") for s in sources)  # VictoriaMetrics's port
    assert yaml.safe_load(fleet("prometheus-web.yml"))["basic_auth_users"]["gpu-nodes"].startswith("$2")


def test_the_drop_in_flags_exist():
    argv = drop_in_argv()
    assert argv[:2] == ["/usr/bin/gpuwatch", "serve"]
    help_text = subprocess.run([BIN, "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
    flags = [a for a in argv if a.startswith("--")]
    assert {"--remote-write", "--remote-write-config", "--listen"} <= set(flags)
    assert not [f for f in flags if not re.search(rf"\s{re.escape(f)}(?=[\s=])", help_text)], help_text
    # The README's `record` line too.
    record_help = subprocess.run([BIN, "record", "--help"], capture_output=True, text=True, timeout=30).stdout
    record_line = re.search(r"gpuwatch record ([^`]*)", fleet("README.md")).group(1)
    record_flags = re.findall(r"--[a-z-]+", record_line)
    assert "--remote-write-config" in record_flags
    assert not [f for f in record_flags if not re.search(rf"\s{re.escape(f)}(?=[\s=])", record_help)], record_flags
    # The drop-in lets the unit reach the receiver its URL names.
    service = parse_unit(fleet("gpuwatch-push.conf"))["Service"]
    host = urllib.parse.urlsplit(argv[argv.index("--remote-write") + 1]).hostname
    assert host in service["IPAddressAllow"]
    assert service["LoadCredential"] == ["push.password:/etc/gpuwatch/push.password"]


@pytest.mark.skipif(VMALERT is None, reason="vmalert missing (Debian package victoria-metrics)")
def test_vmalert_accepts_the_rules_as_the_readme_gives_them(tmp_path):
    rules = tmp_path / "rules.yaml"
    rules.write_text("".join(line for line in open(RULES) if "keep_firing_for" not in line))  # README step 1
    out = subprocess.run([VMALERT, "-dryRun", f"-rule={rules}"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "keep_firing_for" in fleet("README.md")


@pytest.mark.skipif(PROMETHEUS is None, reason="prometheus missing (Debian package prometheus)")
def test_the_drop_in_pushes_through_the_recipes_basic_auth(tmp_path):
    """The recipe end to end on loopback: prometheus.yml + prometheus-web.yml + the receiver flag;
    the drop-in's serve with push.yaml; the series arrive with the cluster and node labels."""
    port = free_port()
    for name in ("prometheus.yml", "prometheus-web.yml"):
        shutil.copy(os.path.join(FLEET, name), tmp_path)
    shutil.copy(RULES, tmp_path)
    receiver_log = open(tmp_path / "prometheus.log", "w")
    receiver = subprocess.Popen([PROMETHEUS, f"--config.file={tmp_path / 'prometheus.yml'}",
                                 f"--web.config.file={tmp_path / 'prometheus-web.yml'}", f"--storage.tsdb.path={tmp_path / 'data'}",
                                 f"--web.listen-address=127.0.0.1:{port}", "--web.enable-remote-write-receiver"],
                                stdout=receiver_log, stderr=subprocess.STDOUT)
    # push.yaml as installed (README step 3), its paths moved under tmp_path.
    (tmp_path / "credentials").mkdir()
    (tmp_path / "credentials" / "push.password").write_text(PASSWORD + "\n")
    push = (fleet("gpuwatch-push.yaml").replace("NODE_NAME", "test-node")
            .replace("/run/credentials/gpuwatch.service/", f"{tmp_path}/credentials/")
            .replace("/var/lib/gpuwatch/", f"{tmp_path}/state/"))
    (tmp_path / "push.yaml").write_text(push)
    moved = {"/usr/bin/gpuwatch": BIN, "127.0.0.1:9835": "127.0.0.1:0", "/etc/gpuwatch/push.yaml": str(tmp_path / "push.yaml"),
             "/run/gpuwatch/job-map": str(tmp_path / "job-map")}
    argv = [moved.get(a, a) for a in drop_in_argv()]
    argv = [re.sub(r"^https?://[^/]+", f"http://127.0.0.1:{port}", a) if "/api/v1/write" in a else a for a in argv]
    argv.insert(1, "--simulate")
    argv.insert(2, "demo")
    serve_log = open(tmp_path / "serve.log", "w")
    serve = subprocess.Popen(argv, env=sim_env("demo"), stdout=subprocess.PIPE, stderr=serve_log, text=True)
    auth = "Basic " + base64.b64encode(f"gpu-nodes:{PASSWORD}".encode()).decode()

    def query(promql):
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": promql}),
                                         headers={"Authorization": auth})
        with urllib.request.urlopen(request, timeout=5) as r:
            return json.loads(r.read())["data"]["result"]
    try:
        assert LISTENING.search(serve.stdout.readline()), open(tmp_path / "serve.log").read()
        got = wait_for("the demo's 8 GPUs up in Prometheus with cluster and node", lambda: [
            r for r in query('count(gpuwatch_up{cluster="hpc-a",node="test-node",job="gpuwatch"} == 1)')
            if r["value"][1] == "8"], timeout=30)
        assert got
        log = open(tmp_path / "serve.log").read()
        assert "remote-write: pushing to http://127.0.0.1:" in log and "state/remote-write" in log, log
        assert PASSWORD not in log
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=15)
        except subprocess.TimeoutExpired:
            serve.kill()
        receiver.send_signal(signal.SIGTERM)
        receiver.wait(timeout=20)
        serve_log.close()
        receiver_log.close()
