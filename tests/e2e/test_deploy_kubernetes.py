"""Running gpuwatch on a fleet (issue 15): the Kubernetes manifests, the Helm chart, the generated
PrometheusRule, the Containerfile and the Slurm prolog/epilog.

What is checked, and what cannot be here:
- Manifests parse, carry the fields their kind requires, and agree with each other (selectors,
  ports, the flags the binary really has). They are checked against the Kubernetes API schemas
  offline with the npm packages kubernetes-models and @kubernetes-models/prometheus-operator
  (validators generated from the API's OpenAPI schemas: types, required fields, enums; they do not
  reject unknown keys, which the structural checks here cover for the keys that matter);
  kubectl, when installed, renders the kustomization offline.
- The Helm chart: there is no helm renderer in Debian 12 (no `helm` package) nor on npm (no
  package renders Go templates with Helm's functions), so it is not rendered; its values are
  checked to be the ones the templates reference, and its templates to balance their actions.
- The Containerfile: no image is built (buildah/podman need network and user namespaces here);
  it is checked statically: stages, a non-root USER, the packages exist in apt's index.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import pytest
import yaml

SRC = pathlib.Path(os.environ["GPUWATCH_SOURCE_DIR"])
BIN = os.environ["GPUWATCH_BIN"]
K8S = SRC / "deploy" / "kubernetes"
CHART = SRC / "deploy" / "helm" / "gpuwatch"
SLURM = SRC / "deploy" / "slurm"

sys.path.insert(0, str(K8S))
import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location("generate_prometheusrule", K8S / "generate-prometheusrule.py")
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)


def load(name):
    docs = [d for d in yaml.safe_load_all((K8S / name).read_text()) if d]
    assert len(docs) == 1, name
    return docs[0]


def serve_flags():
    out = subprocess.run([BIN, "serve", "--help"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", out.stdout))


def test_daemonset_runs_on_the_host_pid_namespace_with_the_kubelet_socket_read_only():
    ds = load("daemonset.yaml")
    assert (ds["apiVersion"], ds["kind"]) == ("apps/v1", "DaemonSet")
    spec = ds["spec"]["template"]["spec"]
    assert ds["spec"]["selector"]["matchLabels"].items() <= ds["spec"]["template"]["metadata"]["labels"].items()
    assert spec["hostPID"] is True
    assert spec["runtimeClassName"] == "nvidia"
    (container,) = spec["containers"]
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert mounts.keys() <= volumes.keys()
    assert mounts["pod-resources"]["readOnly"] is True
    assert volumes["pod-resources"]["hostPath"]["path"] == "/var/lib/kubelet/pod-resources"
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True and security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    # Requests sized from docs/performance.md's serve footprint (~20 MB RSS, < 1 % of a core).
    requests = container["resources"]["requests"]
    assert requests["memory"] == "32Mi" and requests["cpu"] == "10m"
    # Every flag it passes exists in the binary.
    flags = {a.split("=", 1)[0] for a in container["args"] if a.startswith("--")}
    assert flags <= serve_flags(), flags - serve_flags()
    port = container["ports"][0]["containerPort"]
    assert f"--listen=0.0.0.0:{port}" in container["args"]


def test_service_and_servicemonitor_select_the_daemonset():
    ds, svc, sm = load("daemonset.yaml"), load("service.yaml"), load("servicemonitor.yaml")
    pod_labels = ds["spec"]["template"]["metadata"]["labels"]
    assert svc["spec"]["selector"].items() <= pod_labels.items()
    assert svc["spec"]["ports"][0]["targetPort"] == ds["spec"]["template"]["spec"]["containers"][0]["ports"][0]["name"]
    assert sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()
    assert sm["spec"]["endpoints"][0]["port"] == svc["spec"]["ports"][0]["name"]
    assert sm["spec"]["endpoints"][0]["honorLabels"] is True  # keep pod/namespace/container (dcgm-exporter#85)
    assert {d["metadata"]["namespace"] for d in (ds, svc, sm)} == {load("namespace.yaml")["metadata"]["name"]}


def test_prometheusrule_is_generated_from_the_rules_file_as_it_is_now():
    rules = yaml.safe_load((SRC / "deploy" / "prometheus" / "gpuwatch-rules.yaml").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "prometheusrule.yaml"
        r = subprocess.run([sys.executable, str(K8S / "generate-prometheusrule.py"), "-o", str(out)],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        rule = yaml.safe_load(out.read_text())
    assert (rule["apiVersion"], rule["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    assert rule["spec"]["groups"] == rules["groups"]
    alerts = [r["alert"] for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r]
    assert alerts, "no alert rules carried over"
    with pytest.raises(ValueError):
        generator.prometheus_rule("not: rules\n")


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kustomization_renders_offline():
    with tempfile.TemporaryDirectory() as tmp:
        for f in K8S.glob("*.yaml"):
            shutil.copy(f, tmp)
        subprocess.run([sys.executable, str(K8S / "generate-prometheusrule.py"), "-o",
                        os.path.join(tmp, "prometheusrule.yaml")], check=True, timeout=30)
        r = subprocess.run(["kubectl", "kustomize", tmp], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    kinds = sorted(d["kind"] for d in yaml.safe_load_all(r.stdout) if d)
    assert kinds == ["DaemonSet", "Namespace", "PrometheusRule", "Service", "ServiceMonitor"]


SCHEMA_CHECK = SRC / "tests" / "e2e" / "k8s_schema_check.mjs"
MODELS = SRC / "node_modules" / "kubernetes-models" / "package.json"
needs_models = pytest.mark.skipif(shutil.which("node") is None or not MODELS.exists(),
                                  reason="node or the npm package kubernetes-models is missing (scripts/install-deps)")


def schema_check(objects):
    r = subprocess.run(["node", str(SCHEMA_CHECK)], input=json.dumps(objects), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, [json.loads(line) for line in r.stdout.splitlines()]


@needs_models
def test_manifests_match_the_kubernetes_api_schemas():
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    objects = []
    with tempfile.TemporaryDirectory() as tmp:  # prometheusrule.yaml is generated, as docs/deploy.md does
        subprocess.run([sys.executable, str(K8S / "generate-prometheusrule.py"), "-o",
                        os.path.join(tmp, "prometheusrule.yaml")], check=True, timeout=30)
        for name in kustomization["resources"]:
            path = K8S / name if (K8S / name).exists() else pathlib.Path(tmp) / name
            objects += [d for d in yaml.safe_load_all(path.read_text()) if d]
    rc, results = schema_check(objects)
    assert sorted(r["kind"] for r in results) == ["DaemonSet", "Namespace", "PrometheusRule", "Service", "ServiceMonitor"]
    assert rc == 0 and all(r["ok"] for r in results), [r for r in results if not r["ok"]]


@needs_models
def test_the_schema_check_rejects_what_the_api_would():
    ds = load("daemonset.yaml")
    del ds["spec"]["selector"]
    ds["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = "metrics"
    monitor = load("servicemonitor.yaml")
    monitor["spec"]["endpoints"] = "every 30 s"
    rc, results = schema_check([ds, monitor, {"apiVersion": "v1", "kind": "NoSuchKind", "metadata": {"name": "x"}}])
    assert rc == 1
    errors = {r["kind"]: " ".join(r["errors"]) for r in results}
    assert "required property selector" in errors["DaemonSet"] and "containerPort must be integer" in errors["DaemonSet"]
    assert "/spec/endpoints must be array" in errors["ServiceMonitor"]
    assert "no schema for v1 NoSuchKind" in errors["NoSuchKind"]


def value_paths(values, prefix=""):
    paths = set()
    for key, value in values.items():
        path = f"{prefix}.{key}" if prefix else key
        paths.add(path)
        if isinstance(value, dict):
            paths |= value_paths(value, path)
    return paths


def test_helm_chart_references_only_existing_values():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2" and chart["name"] == "gpuwatch"
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    known = value_paths(values)
    templates = list((CHART / "templates").glob("*"))
    assert {t.name for t in templates} >= {"daemonset.yaml", "service.yaml", "servicemonitor.yaml",
                                            "prometheusrule.yaml", "web-config.yaml", "_helpers.tpl"}
    used = set()
    for t in templates:
        text = t.read_text()
        used |= set(re.findall(r"\.Values\.([A-Za-z0-9_.]+)", text))
        # Every {{- if/range/define }} has its {{- end }}.
        opens = len(re.findall(r"{{-?\s*(?:if|range|define|with)\b", text))
        ends = len(re.findall(r"{{-?\s*end\s*-?}}", text))
        assert opens == ends, f"{t.name}: {opens} blocks opened, {ends} closed"
    unknown = sorted(u for u in used if u not in known)
    assert not unknown, f"templates reference values that values.yaml lacks: {unknown}"
    # The values the issue asks for: compat families, auth, attribution.
    assert {"compat", "auth.enabled", "auth.basicAuthUsers", "attribution.enabled", "attribution.labels"} <= known
    flags = set(re.findall(r"- (--[a-z][a-z0-9-]*)", (CHART / "templates" / "daemonset.yaml").read_text()))
    assert flags <= serve_flags(), flags - serve_flags()


@pytest.mark.skip(reason="no Helm renderer: helm is not packaged in Debian 12, and no npm package renders Helm's "
                         "Go templates; the chart is checked structurally above, not rendered")
def test_helm_chart_renders():
    pass


def test_containerfile_is_multi_stage_debian_and_non_root():
    text = (SRC / "deploy" / "container" / "Containerfile").read_text()
    stages = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\S+))?", text, re.M)
    assert len(stages) == 2 and all("debian" in image for image, _ in stages)
    assert re.search(r"^COPY --from=build ", text, re.M)
    user = re.findall(r"^USER\s+(\S+)", text, re.M)
    assert user and not user[-1].startswith(("0", "root"))
    assert re.search(r'^ENTRYPOINT \["/usr/bin/gpuwatch"\]', text, re.M)
    # Every package it installs is one apt knows (a typo would only fail at image build time).
    packages = set()
    for command in re.findall(r"apt-get install(.*?)(?:&&|$)", text.replace("\\\n", " "), re.S | re.M):
        packages |= {word for word in command.split() if not word.startswith("-")}
    assert {"libgrpc++1.51", "libprotobuf32"} <= packages  # attribution's runtime libraries
    # One apt-cache call for all (per package only to name the culprit when one is unknown).
    r = subprocess.run(["apt-cache", "show", *sorted(packages)], capture_output=True, text=True, timeout=60)
    missing = [] if r.returncode == 0 else sorted(
        p for p in packages
        if subprocess.run(["apt-cache", "show", p], capture_output=True, timeout=30).returncode != 0)
    assert not missing, f"unknown Debian packages in the Containerfile: {missing}"


def run_script(name, env):
    return subprocess.run(["bash", str(SLURM / name)], env=env, capture_output=True, text=True, timeout=30)


def test_slurm_prolog_and_epilog_write_dcgm_mapping_files():
    with tempfile.TemporaryDirectory() as tmp:
        base = dict(os.environ, GPUWATCH_JOB_MAP_DIR=os.path.join(tmp, "map"))
        assert run_script("gpuwatch-prolog.sh", dict(base, SLURM_JOB_ID="11", SLURM_JOB_GPUS="0,1")).returncode == 0
        assert run_script("gpuwatch-prolog.sh", dict(base, SLURM_JOB_ID="12", CUDA_VISIBLE_DEVICES="1")).returncode == 0
        assert run_script("gpuwatch-prolog.sh", dict(base, SLURM_JOB_ID="13")).returncode == 0  # no GPU: nothing
        mapping = pathlib.Path(tmp, "map")
        assert sorted(p.name for p in mapping.iterdir() if not p.name.startswith(".")) == ["0", "1"]
        assert (mapping / "1").read_text().split() == ["11", "12"]
        assert run_script("gpuwatch-epilog.sh", dict(base, SLURM_JOB_ID="11", SLURM_JOB_GPUS="0,1")).returncode == 0
        assert not (mapping / "0").exists()
        assert (mapping / "1").read_text().split() == ["12"]
        # An epilog without the GPU list still finds the job's files.
        assert run_script("gpuwatch-epilog.sh", dict(base, SLURM_JOB_ID="12")).returncode == 0
        assert not (mapping / "1").exists()
