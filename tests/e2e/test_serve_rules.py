"""deploy/prometheus: the rules file is valid and its alerts fire as its promtool unit
tests say (temperature, free memory, hung job, GPU lost/missing/stale, exporter down,
ECC, row remapping); the scrape config example is valid."""
import os
import shutil
import subprocess

import pytest

DEPLOY = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "deploy", "prometheus")
PROMTOOL = shutil.which("promtool")
pytestmark = pytest.mark.skipif(PROMTOOL is None,
                                reason="promtool missing: scripts/install-deps installs it (Debian package prometheus)")


def promtool(*args):
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=60, cwd=DEPLOY)


def test_rules_are_valid():
    out = promtool("check", "rules", "gpuwatch-rules.yaml")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout


def test_rule_unit_tests_pass():
    out = promtool("test", "rules", os.path.join("tests", "gpuwatch-rules.test.yaml"))
    assert out.returncode == 0, out.stdout + out.stderr


def test_scrape_config_example_is_valid():
    out = promtool("check", "config", "prometheus.yml")
    assert out.returncode == 0, out.stdout + out.stderr


def test_every_alert_has_a_unit_test():
    with open(os.path.join(DEPLOY, "gpuwatch-rules.yaml"), encoding="utf-8") as f:
        alerts = [line.split(":", 1)[1].strip() for line in f if line.strip().startswith("- alert:")]
    with open(os.path.join(DEPLOY, "tests", "gpuwatch-rules.test.yaml"), encoding="utf-8") as f:
        tests = f.read()
    assert len(alerts) >= 5
    missing = [a for a in alerts if f"alertname: {a}\n" not in tests]
    assert not missing, f"alerts without a promtool test: {missing}"
