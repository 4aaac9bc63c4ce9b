"""Issue 24, live: `serve` reads the driver's sample buffer every interval, exports its summary
(gpuwatch_utilization_gpu_idle_ratio, gpuwatch_utilization_gpu_idle_gaps) and its live diagnosis
names a 0.7 s busy / 0.3 s idle stall input_starved from the buffer while polling every 2 s.
The diagnose engine judges no utilization shape on less than 60 s of samples, so this file takes
about a minute and a half of wall time (bounded loops)."""
import textwrap
import time

from test_serve import Server, sim_env

SCENARIO = textwrap.dedent("""\
    name: starve_live
    gpus:
      - model: H100 SXM 80GB
        phases:
          - {kind: dataloader_starvation, duration: 3h, busy: 0.7, idle: 0.3, ramp: 0}
        processes:
          - {command: "python train.py --num-workers 1", user: carol, memory: 30720}
""")


def test_serve_exports_the_sample_buffer_and_diagnoses_input_starved_live(tmp_path):
    path = tmp_path / "starve_live.yaml"
    path.write_text(SCENARIO)
    with Server(sim_env(path), "--no-record", "--interval", "2s") as server:
        deadline = time.monotonic() + 20
        gaps = idle = None
        while time.monotonic() < deadline and gaps is None:
            for line in server.metrics().splitlines():
                if line.startswith("gpuwatch_utilization_gpu_idle_gaps{"):
                    gaps = float(line.rsplit(" ", 1)[1])
                if line.startswith("gpuwatch_utilization_gpu_idle_ratio{"):
                    idle = float(line.rsplit(" ", 1)[1])
            time.sleep(0.5)
        # One gap a second between two samples 2 s apart; about one period in six wholly idle.
        assert gaps is not None and 1 <= gaps <= 4, gaps
        assert idle is not None and 0.05 <= idle <= 0.5, idle

        deadline = time.monotonic() + 100
        found = []
        while time.monotonic() < deadline and not found:
            snapshot = server.get_json("/api/v1/snapshot")
            found = [f for f in snapshot.get("findings", []) if f["kind"] == "input_starved"]
            time.sleep(2)
        assert found, "serve's live diagnosis did not name the stall"
        assert found[0]["evidence"]["sample_buffer"] == 1
        assert found[0]["evidence"]["typical_gap_s"] < 1.0
        assert found[0]["gpus"] == [0]
