"""issue 9: docs/exporter.md named a `GpuXidRecent` alert that deploy/prometheus does not
have (the rule is `GpuXidError`). Every alert name the alert docs mention must be a rule
of deploy/prometheus/gpuwatch-rules.yaml. Needs no promtool (test_serve_rules.py does)."""
import os
import re

SOURCE = os.environ["GPUWATCH_SOURCE_DIR"]
# The pages that describe the alert rules (docs/simulator.md's `GpuIdle` is a clock event reason).
ALERT_DOCS = ["README.md", os.path.join("docs", "exporter.md"), os.path.join("docs", "deploy.md"),
              os.path.join("docs", "alerts.md")]


def rule_names():
    with open(os.path.join(SOURCE, "deploy", "prometheus", "gpuwatch-rules.yaml"), encoding="utf-8") as f:
        return {line.split(":", 1)[1].strip() for line in f if line.strip().startswith("- alert:")}


def test_every_alert_named_in_the_docs_exists():
    rules = rule_names()
    assert "GpuXidError" in rules and "GpuXidCritical" in rules
    unknown = []
    for page in ALERT_DOCS:
        with open(os.path.join(SOURCE, page), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                unknown += [f"{page}:{n}: {name}" for name in re.findall(r"`(Gpu[A-Z][A-Za-z]+)`", line)
                            if name not in rules]
    assert not unknown, f"alerts named in the docs but not in deploy/prometheus/gpuwatch-rules.yaml: {unknown}"
