"""pynvml's own GPM calls (python3-pynvml 11.525: nvmlGpmQueryDeviceSupport, nvmlGpmSampleAlloc,
nvmlGpmSampleGet, nvmlGpmMigSampleGet, nvmlGpmMetricsGet, nvmlGpmSampleFree) against the
simulated driver: its ctypes structures agree with ours, an H100 reports tensor activity, an
A100 says it has no GPM, and a MIG GPU instance is sampled through its parent."""
import json
import os
import subprocess
import textwrap

import pytest

DRIVER_DIR = os.environ.get("GPUWATCH_SIM_DRIVER_DIR", "")
pytestmark = pytest.mark.skipif(not os.path.exists(os.path.join(DRIVER_DIR, "libnvidia-ml.so.1")),
                                reason="GPUWATCH_SIM_DRIVER_DIR does not hold the built driver")

READER = textwrap.dedent("""
    import json, sys, time
    import pynvml as n
    n.nvmlInit()
    def window(take):
        a, b = n.nvmlGpmSampleAlloc(), n.nvmlGpmSampleAlloc()
        take(a); time.sleep(0.3); take(b)
        get = n.c_nvmlGpmMetricsGet_t()
        get.version = n.NVML_GPM_METRICS_GET_VERSION
        get.numMetrics = 3
        get.sample1, get.sample2 = a, b
        ids = [n.NVML_GPM_METRIC_ANY_TENSOR_UTIL, n.NVML_GPM_METRIC_SM_UTIL, n.NVML_GPM_METRIC_DRAM_BW_UTIL]
        for i, m in enumerate(ids):
            get.metrics[i].metricId = m
        n.nvmlGpmMetricsGet(get)
        out = {str(get.metrics[i].metricId): [get.metrics[i].nvmlReturn, get.metrics[i].value,
               get.metrics[i].metricInfo.shortName.decode()] for i in range(3)}
        n.nvmlGpmSampleFree(a); n.nvmlGpmSampleFree(b)
        return out
    result = {}
    for i in range(n.nvmlDeviceGetCount()):
        h = n.nvmlDeviceGetHandleByIndex(i)
        supported = n.nvmlGpmQueryDeviceSupport(h).isSupportedDevice
        entry = {"supported": supported}
        if supported and n.nvmlDeviceGetMigMode(h)[0] == 0:
            entry["gpu"] = window(lambda s: n.nvmlGpmSampleGet(h, s))
        elif supported:
            entry["gi1"] = window(lambda s: n.nvmlGpmMigSampleGet(h, 1, s))
        result[i] = entry
    print(json.dumps(result))
""")


def read(scenario):
    env = dict(os.environ, LD_LIBRARY_PATH=DRIVER_DIR, GPUWATCH_SIM_SCENARIO=scenario)
    r = subprocess.run(["/usr/bin/python3", "-c", READER], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_pynvml_reads_gpm_on_hopper_and_mig_instances():
    demo = read("demo")  # 8 H100s training
    tensor = demo["0"]["gpu"]["5"]
    assert demo["0"]["supported"] == 1
    assert tensor[0] == 0 and 50.0 < tensor[1] <= 100.0 and tensor[2] == "any_tensor_util"
    mig = read("mig")
    assert mig["0"]["supported"] == 0 and "gi1" not in mig["0"]  # A100: no GPM
    assert mig["2"]["gi1"]["5"][0] == 0 and mig["2"]["gi1"]["5"][1] > 50.0  # training in GPU instance 1
    assert mig["1"]["gi1"]["5"][1] == 0.0  # the idle H100's instance: a measured 0
