"""The dashboard's energy, cost and CO2 (issue 29) in a real browser (Debian's Chromium through
playwright-core, tests/e2e/dashboard_energy_check.mjs), serve on the simulator:
  - with rates (--price-per-kwh 0.30 --currency EUR --carbon-intensity 400) and a database where
    `gpuwatch run` recorded a job named with markup: the Energy panel's energy (Wh), cost (EUR)
    and CO2 lie between /api/v1/energy asked in the page just before and just after the panel's
    own request (within the rounding shown), one row per GPU of the answer, the rates' sources
    listed; the Jobs table is shown at once (hidden at a click, and still hidden after a reload),
    and holds the job with its name as literal text (no element, no dialog), its energy, cost in
    EUR and CO2; the GPU detail's energy cell shows Wh,
    EUR and CO2; axe-core finds no violation;
  - without rates and without a database: cost and CO2 read "not configured" (never 0) with
    serve's hints naming --price-per-kwh, and the jobs panel says there is no history database
    (the route's 200 with "jobs": null: no failed request, no console error);
  - as an older serve (the two routes answer 404): the panel and the jobs table hide, the GPU
    cell falls back to the energy counter's difference computed in the page, and a 404 is not
    asked again."""
import json
import os
import re
import subprocess
import tempfile
import time

import pytest

from test_run import scenario_with_job
from test_serve import BIN, Server, sim_env
from test_serve_dashboard import NODE, CHROMIUM, SOURCE_DIR, artifact_dir, browser_missing

CHECK = SOURCE_DIR / "tests" / "e2e" / "dashboard_energy_check.mjs"
AXE = SOURCE_DIR / "node_modules" / "axe-core" / "axe.min.js"
JOB_NAME = "<img src=x onerror=alert(1)> train"
RATES = ["--price-per-kwh", "0.30", "--currency", "EUR", "--carbon-intensity", "400"]
GPU = 0


def energy_env(scenario):
    """sim_env with an empty XDG_CONFIG_HOME: no energy.yaml of the developer's gives rates."""
    env = sim_env(scenario, seconds_in=30)
    env["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="gpuwatch-test-config-", dir=env["XDG_STATE_HOME"])
    return env


def record_job(tmp_path, env, db):
    """`gpuwatch run` of a 3 s job on GPU 0 of the training scenario, recorded into DB with rates."""
    pid_file = tmp_path / "job.pid"
    scenario = scenario_with_job(tmp_path, "training", pid_file, gpus={GPU})
    job = f"echo $$ > {pid_file}; exec sleep 3"
    r = subprocess.run([BIN, "--simulate", str(scenario), "run", "--db", str(db), "--name", JOB_NAME, "--interval", "200ms",
                        *RATES, "--", "sh", "-c", job], capture_output=True, text=True, timeout=30, env=env)
    assert r.returncode == 0, r.stderr


def wait_for_energy(server, timeout=15.0):
    deadline = time.monotonic() + timeout
    answer = None
    while time.monotonic() < deadline:
        status, _, body = server.get("/api/v1/energy?seconds=300")
        assert status == 200, f"GET /api/v1/energy: {status} {body[:300]}"
        answer = json.loads(body)
        if answer["energy"] is not None and answer["energy"]["joules"] > 0:
            return answer
        time.sleep(0.25)
    pytest.fail(f"/api/v1/energy never gave energy: {json.dumps(answer)[:500]}")


def check(rates_server, plain_server, tmp_path):
    args = {"url": rates_server.url, "plainUrl": plain_server.url, "chromium": CHROMIUM, "sourceDir": str(SOURCE_DIR),
            "outDir": str(artifact_dir(tmp_path)), "gpu": GPU}
    out = subprocess.run([NODE, str(CHECK), json.dumps(args)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, HOME=str(tmp_path)))
    lines = out.stdout.strip().splitlines()
    assert lines, f"no result from the browser check (rc {out.returncode}): {out.stderr[-3000:]}"
    result = json.loads(lines[-1])
    assert out.returncode == 0 and "error" not in result, f"{result.get('error')}\n{out.stderr[-3000:]}\n{result}"
    return result


NUMBER = re.compile(r"^(\d+(?:\.\d+)?(?:e-?\d+)?) (Wh|kWh|g CO2|kg CO2|EUR)$")
SCALE = {"Wh": 3600.0, "kWh": 3.6e6, "g CO2": 1.0, "kg CO2": 1000.0, "EUR": 1.0}


def shown_value(text):
    """TEXT as the page writes it ("12.3 Wh", "0.0042 EUR", "1.64 g CO2") in the answer's unit
    (joules, EUR, grams), with half of its last digit as the rounding."""
    m = NUMBER.match(text)
    assert m, f"not a number with a unit: {text!r}"
    digits = m.group(1)
    decimals = len(digits.split(".")[1].split("e")[0]) if "." in digits else 0
    scale = SCALE[m.group(2)]
    return float(digits) * scale, 0.5 * 10 ** -decimals * scale * 1.0001


def assert_bracketed(text, before, after, what):
    value, rounding = shown_value(text)
    low, high = sorted((before, after))
    assert low - rounding <= value <= high + rounding, f"{what}: shown {text!r}, the API said {before} then {after}"


def test_energy_panel_jobs_and_gpu_cell(tmp_path):
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    if not AXE.exists():
        pytest.skip(f"axe-core is not in {AXE.parent.parent} (scripts/install-deps runs npm ci)")
    db = tmp_path / "history.db"
    rates_env = energy_env("training")
    with Server(energy_env("training"), "--no-record", "--interval", "500ms") as plain:
        record_job(tmp_path, rates_env, db)
        with Server(rates_env, "--db", str(db), "--interval", "500ms", *RATES) as server:
            server.wait_ready()
            plain.wait_ready()
            wait_for_energy(server)
            wait_for_energy(plain)
            gpu_first = server.get_json(f"/api/v1/energy?seconds=300&gpu={GPU}")["energy"]  # before the page asks
            result = check(server, plain, tmp_path)
            rc, _, err = server.stop()
            assert rc == 0, err
        plain.stop()

    assert not result["pageErrors"], result["pageErrors"]
    assert not result["consoleErrorsWithRates"], result["consoleErrorsWithRates"]
    assert not result["consoleErrorsPlain"], result["consoleErrorsPlain"]  # --no-record's jobs: a 200 that says why
    assert all("404" in e for e in result["consoleErrors"]), result["consoleErrors"]  # only the "older serve" page's
    foreign = [u for u in result["requests"] if not u.startswith((server.url + "/", plain.url + "/"))]
    assert not foreign, foreign

    # ---- with rates: the panel agrees with the route ----
    shown, before, after = result["rates"], result["before"]["energy"], result["after"]["energy"]
    assert not shown["hidden"] and shown["seconds"] == "300"
    stats = shown["stats"]
    assert stats["energy"]["text"].endswith("Wh"), stats
    assert_bracketed(stats["energy"]["text"], before["joules"], after["joules"], "energy")
    assert before["currency"] == "EUR" and stats["cost"]["text"].endswith(" EUR"), stats
    assert_bracketed(stats["cost"]["text"], before["cost"], after["cost"], "cost")
    assert_bracketed(stats["co2"]["text"], before["co2_g"], after["co2_g"], "CO2")
    assert stats["source"]["text"] == {"counter": "counter", "estimated": "estimated from power"}.get(
        after["source"], stats["source"]["text"]) and stats["source"]["text"] != "—"
    assert shown["hints"] == "", shown["hints"]  # price and intensity are both configured
    assert shown["sources"] == after["sources"] and any("price" in s for s in shown["sources"]), shown["sources"]
    assert [r["data"]["gpu"] for r in shown["gpuRows"]] == [str(g["index"]) for g in after["gpus"]]
    assert all(h["scope"] == "col" for h in shown["gpuHeads"] + shown["jobHeads"])

    # ---- the jobs table: shown at once; hidden at a click, still hidden after a reload; the job, its name as text ----
    assert result["jobsFirst"]["jobsOpen"] == "true" and result["jobsFirst"]["jobRows"], result["jobsFirst"]
    assert result["jobsClosed"]["jobsOpen"] == "false" and result["jobsClosed"]["jobsToggle"] == {"text": "Show", "expanded": "false"}
    assert result["jobsAfterReload"]["jobsOpen"] == "false", result["jobsAfterReload"]
    assert shown["jobsOpen"] == "true" and shown["jobsToggle"] == {"text": "Hide", "expanded": "true"}
    jobs = result["jobsAnswer"]["jobs"]
    assert len(jobs) == 1 and jobs[0]["name"] == JOB_NAME
    heads = [h["text"] for h in shown["jobHeads"]]
    row = dict(zip(heads, shown["jobRows"][0]["cells"]))
    assert shown["jobRows"][0]["data"]["job"] == str(jobs[0]["id"])
    assert row["Name"] == JOB_NAME  # literal text: no element, no dialog
    assert shown["injected"] == 0 and result["dialogs"] == []
    assert row["GPUs"] == str(GPU) and row["Status"] == "ok (exit 0)" and not row["Wall"].endswith("+")
    job_energy = jobs[0]["summary"]["energy"]
    assert job_energy and job_energy["currency"] == "EUR", jobs[0]["summary"]
    assert_bracketed(row["Energy"], job_energy["joules"], job_energy["joules"], "the job's energy")
    assert_bracketed(row["Cost"], job_energy["cost"], job_energy["cost"], "the job's cost")
    assert_bracketed(row["CO2"], job_energy["co2_g"], job_energy["co2_g"], "the job's CO2")

    # ---- the GPU detail's cell: energy, cost and CO2 of that GPU, its source in the title ----
    cell = shown["cell"]
    assert cell and re.match(r"^[\d.]+ k?Wh · [\d.e-]+ EUR · [\d.e-]+ k?g CO2$", cell["text"]), cell
    gpu_energy = result["gpuBefore"]["energy"]
    assert [g["index"] for g in gpu_energy["gpus"]] == [GPU]
    assert cell["source"] == gpu_energy["source"] and cell["title"], cell
    assert_bracketed(cell["text"].split(" · ")[0], gpu_first["joules"], gpu_energy["joules"], "the GPU's energy")

    bad = [v for v in result["axe"] if v["impact"] in ("serious", "critical", "moderate")]
    assert not bad, bad

    # ---- without rates and without a database: "not configured", never 0 ----
    plain_shown = result["plain"]
    assert not plain_shown["hidden"]
    assert plain_shown["stats"]["energy"]["text"].endswith("Wh")
    assert plain_shown["stats"]["cost"]["text"] == "not configured", plain_shown["stats"]
    assert plain_shown["stats"]["co2"]["text"] == "not configured", plain_shown["stats"]
    assert "--price-per-kwh" in plain_shown["hints"] and "--carbon-intensity" in plain_shown["hints"], plain_shown["hints"]
    assert result["plainAnswer"]["energy"]["cost"] is None and result["plainAnswer"]["energy"]["co2_g"] is None
    assert plain_shown["jobsNote"].startswith("No history database"), plain_shown["jobsNote"]
    assert re.match(r"^[\d.]+ k?Wh$", plain_shown["cell"]["text"]), plain_shown["cell"]  # no cost, no CO2, no 0

    # ---- an older serve: no routes ----
    older = result["older"]
    assert older["hidden"] and older["jobsHidden"]
    assert older["cell"]["source"] == "page" and older["cell"]["text"].endswith("Wh")
    assert result["olderAskedAfter"] == 0
