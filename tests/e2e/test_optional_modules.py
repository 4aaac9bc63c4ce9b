"""gRPC (the kubelet client) and libcurl (notifications) are optional modules, loaded with dlopen
the first time they are needed (src/core/optional_module.hpp): a `serve` that never asks a
kubelet nor sends a notification must not map their libraries, which cost about 11 MiB of RSS.
A missing module is a clear error naming it, never a crash."""
import os
import subprocess
import tempfile

from test_serve import Server, sim_env

BIN = os.environ["GPUWATCH_BIN"]
HEAVY = ("libgrpc", "libprotobuf", "libcurl", "gpuwatch-kubelet.so", "gpuwatch-curl.so",
         "libcpp-httplib", "gpuwatch-remote-http.so")


def mapped_libraries(pid):
    with open(f"/proc/{pid}/maps") as f:
        return {line.split()[-1] for line in f if "/" in line}


def test_serve_maps_neither_grpc_nor_curl():
    with Server(sim_env("demo"), "--interval", "200ms", "--no-record") as server:
        server.wait_ready()
        assert server.get("/metrics")[0] == 200
        assert server.get("/api/v1/snapshot")[0] == 200
        libraries = mapped_libraries(server.proc.pid)
        rc, _, err = server.stop()
        assert rc == 0, err
    assert any("libnvidia-ml" in path for path in libraries), libraries  # the maps were read
    heavy = sorted(path for path in libraries if any(name in path for name in HEAVY))
    assert not heavy, heavy


def test_a_missing_module_is_a_clear_error():
    with tempfile.TemporaryDirectory() as empty:
        env = dict(os.environ, GPUWATCH_MODULE_DIR=empty)
        out = subprocess.run([BIN, "alerts", "test", "webhook=http://127.0.0.1:9/hook"], env=env,
                             capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert "gpuwatch-curl.so" in text and "not installed" in text and empty in text, text
    assert "GPUWATCH_MODULE_DIR" in text, text
