"""deploy/grafana/gpuwatch-dashboard.json: a Grafana dashboard for the native gpuwatch_*
metrics. It is valid JSON with the template variables Grafana needs, its queries name only
metrics that `gpuwatch serve` really emits, and in a real Prometheus (Debian's 2.42, over
loopback) scraping serve on the demo scenario every panel query returns data once the
template variables are filled in the way Grafana fills them."""
import json
import os
import re
import time

import pytest

from test_serve import Server, parse, sim_env
from test_serve_prometheus import PROMETHEUS, Prometheus

DASHBOARD = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "deploy", "grafana", "gpuwatch-dashboard.json")

# PromQL words that are not metric names.
PROMQL_WORDS = {
    "sum", "min", "max", "avg", "count", "by", "without", "on", "ignoring", "group_left", "group_right",
    "rate", "irate", "increase", "delta", "deriv", "topk", "bottomk", "and", "or", "unless", "bool",
    "offset", "abs", "clamp_min", "clamp_max", "label_replace", "time", "vector", "scalar",
    "avg_over_time", "max_over_time", "min_over_time", "changes", "resets", "absent", "sort", "sort_desc",
}


def load_dashboard():
    with open(DASHBOARD, encoding="utf-8") as f:
        return json.load(f)


def all_panels(dashboard):
    for panel in dashboard["panels"]:
        yield panel
        yield from panel.get("panels", [])  # panels inside collapsed rows


def panel_queries(dashboard):
    """[(panel title, expr)] of every query target of every panel."""
    return [(p["title"], t["expr"]) for p in all_panels(dashboard) for t in p.get("targets", [])]


def metric_names(expr):
    """The metric names an expression selects: strip strings, label matchers, ranges and
    grouping clauses, then every identifier not followed by '(' and not a PromQL word."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for m in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?", text):
        word = m.group(0).rstrip("( \t")
        if m.group(1) or word in PROMQL_WORDS or word.startswith("$"):
            continue
        names.add(word)
    return names


def grafana_substitute(expr, values):
    """Fills the template variables and Grafana's built-in intervals (a 1 s scrape)."""
    for name, value in values.items():
        expr = expr.replace("${" + name + "}", value).replace("$" + name, value)
    expr = expr.replace("$__rate_interval", "10s").replace("$__range", "30s").replace("$__interval", "2s")
    assert "$" not in expr, f"unfilled variable in {expr!r}"
    return expr


def test_dashboard_is_a_grafana_dashboard_with_template_variables():
    dashboard = load_dashboard()
    assert dashboard["schemaVersion"] >= 36
    assert dashboard["uid"] and dashboard["title"]
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert variables["instance"]["query"]["query"] == "label_values(gpuwatch_gpu_info, instance)"
    assert variables["gpu"]["query"]["query"].startswith("label_values(gpuwatch_gpu_info{")
    ids = [p["id"] for p in all_panels(dashboard)]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    for panel in all_panels(dashboard):
        if panel["type"] == "row":
            continue
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == "${datasource}"
            assert 'instance=~"$instance"' in target["expr"], (panel["title"], target["expr"])
    titles = " ".join(p["title"].lower() for p in all_panels(dashboard))
    for topic in ["utilization", "memory", "temperature", "power", "clocks", "throttle", "energy", "ecc",
                  "lost", "up", "sample age", "processes"]:
        assert topic in titles, f"no panel about {topic}"


def test_metric_name_extraction():
    assert metric_names('sum by (instance) (increase(gpuwatch_energy_joules_total{gpu=~"$gpu"}[$__range]))') \
        == {"gpuwatch_energy_joules_total"}
    assert metric_names('a_bytes{x="y"} / on (gpu, uuid) group_left (name) b_info') == {"a_bytes", "b_info"}
    assert metric_names("1 - gpuwatch_up") == {"gpuwatch_up"}


def test_dashboard_names_only_metrics_that_serve_emits():
    with Server(sim_env("demo", seconds_in=200), "--interval", "500ms", "--per-process-metrics") as server:
        server.wait_ready()
        emitted = {name for name, _, _ in parse(server.metrics())}
    queries = panel_queries(load_dashboard())
    assert len(queries) >= 20
    unknown = {(title, name) for title, expr in queries for name in metric_names(expr) if name not in emitted}
    assert not unknown, f"dashboard metrics that serve does not emit: {sorted(unknown)}"
    used = {name for _, expr in queries for name in metric_names(expr)}
    assert {"gpuwatch_up", "gpuwatch_sample_age_seconds", "gpuwatch_power_draw_watts",
            "gpuwatch_process_memory_used_bytes"} <= used


@pytest.mark.skipif(PROMETHEUS is None, reason="prometheus missing: scripts/install-deps installs it")
def test_every_panel_query_returns_data_in_prometheus(tmp_path):
    dashboard = load_dashboard()
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    # demo at 200 s: GPU 3 is thermal-throttling (runaway from 60 s), GPU 6 is leaking memory, 9 processes.
    with Server(sim_env("demo", seconds_in=200), "--interval", "500ms", "--per-process-metrics") as server:
        server.wait_ready()
        prom = Prometheus(tmp_path, server.url.split("//", 1)[1])
        try:
            prom.wait_for("the gpuwatch target up", prom.target_up)
            prom.wait_for("gpuwatch_gpu_info", lambda: prom.query("gpuwatch_gpu_info"))

            # The template variables, as Grafana resolves label_values(metric{...}, label).
            def label_values(definition, filled):
                m = re.fullmatch(r"label_values\((.+),\s*(\w+)\)", definition)
                assert m, definition
                selector = grafana_substitute(m.group(1), filled)
                return sorted({r["metric"][m.group(2)] for r in prom.query(selector)})

            instances = label_values(variables["instance"]["query"]["query"], {})
            assert len(instances) == 1
            filled = {"instance": instances[0]}  # one selected value: as is
            gpus = label_values(variables["gpu"]["query"]["query"], filled)
            assert gpus == [str(i) for i in range(8)]
            filled["gpu"] = "(" + "|".join(gpus) + ")"  # "All" on a multi-value variable: a regex
            filled["datasource"] = "unused"

            pending = {(title, grafana_substitute(expr, filled)) for title, expr in panel_queries(dashboard)}
            # rate()/increase() need two scrapes in the window: poll, bounded.
            deadline = time.monotonic() + 30
            while pending and time.monotonic() < deadline:
                for query in sorted(pending):
                    if prom.query(query[1]):
                        pending.discard(query)
                time.sleep(0.5)
            assert not pending, f"panel queries without data: {sorted(pending)}"
            # Values as the scenario makes them: all 8 up, GPU 3 throttling for heat.
            assert prom.query(grafana_substitute(f'sum(gpuwatch_up{{instance=~"$instance"}})', filled))[0]["value"][1] == "8"
            hot = prom.query('gpuwatch_clocks_event_reasons_hw_thermal_slowdown == 1 '
                             'or gpuwatch_clocks_event_reasons_sw_thermal_slowdown == 1')
            assert {r["metric"]["gpu"] for r in hot} == {"3"}
        finally:
            prom.close()
