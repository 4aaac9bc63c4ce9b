"""pynvml (Debian's python3-pynvml, /usr/bin/python3) reads every field a scenario
defines from the simulated driver and gets the scenario's values in NVML's units
(W -> mW, MiB -> bytes, "Enabled" -> 1, "[N/A]" -> NVML_ERROR_NOT_SUPPORTED ...)."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import yaml

DRIVER_DIR = os.environ.get("GPUWATCH_SIM_DRIVER_DIR", "")
SOURCE_DIR = Path(os.environ.get("GPUWATCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
MIB = 1048576

pytestmark = pytest.mark.skipif(not (Path(DRIVER_DIR) / "libnvidia-ml.so.1").exists(),
                                reason="GPUWATCH_SIM_DRIVER_DIR does not hold the built driver")

# query key -> (python expression over pynvml `n` and handle `h`, conversion of the scenario value)
W = lambda v: round(float(v) * 1000)          # noqa: E731  W -> mW
MB = lambda v: int(float(v)) * MIB             # noqa: E731  MiB -> bytes
I = lambda v: int(float(v))                    # noqa: E731
FLAG = lambda v: {"Enabled": 1, "Disabled": 0, "Yes": 1, "No": 0}[v]  # noqa: E731
HEX = lambda v: int(v, 16)                     # noqa: E731
FIELDS = {
    "name": ("n.nvmlDeviceGetName(h)", str),
    "uuid": ("n.nvmlDeviceGetUUID(h)", str),
    "serial": ("n.nvmlDeviceGetSerial(h)", str),
    "index": ("n.nvmlDeviceGetIndex(h)", I),
    "vbios_version": ("n.nvmlDeviceGetVbiosVersion(h)", str),
    "inforom.img": ("n.nvmlDeviceGetInforomImageVersion(h)", str),
    "inforom.oem": ("n.nvmlDeviceGetInforomVersion(h, n.NVML_INFOROM_OEM)", str),
    "board_part_number": ("n.nvmlDeviceGetBoardPartNumber(h)", str),
    "pci.bus_id": ("n.nvmlDeviceGetPciInfo(h).busId", str),
    "pci.device_id": ("n.nvmlDeviceGetPciInfo(h).pciDeviceId", HEX),
    "pci.sub_device_id": ("n.nvmlDeviceGetPciInfo(h).pciSubSystemId", HEX),
    "pci.bus": ("n.nvmlDeviceGetPciInfo(h).bus", HEX),
    "pcie.link.gen.current": ("n.nvmlDeviceGetCurrPcieLinkGeneration(h)", I),
    "pcie.link.gen.max": ("n.nvmlDeviceGetMaxPcieLinkGeneration(h)", I),
    "pcie.link.gen.gpumax": ("n.nvmlDeviceGetGpuMaxPcieLinkGeneration(h)", I),
    "pcie.link.width.current": ("n.nvmlDeviceGetCurrPcieLinkWidth(h)", I),
    "pcie.link.width.max": ("n.nvmlDeviceGetMaxPcieLinkWidth(h)", I),
    "persistence_mode": ("n.nvmlDeviceGetPersistenceMode(h)", FLAG),
    "display_active": ("n.nvmlDeviceGetDisplayActive(h)", FLAG),
    "accounting.mode": ("n.nvmlDeviceGetAccountingMode(h)", FLAG),
    "accounting.buffer_size": ("n.nvmlDeviceGetAccountingBufferSize(h)", I),
    "fan.speed": ("n.nvmlDeviceGetFanSpeed(h)", I),
    "pstate": ("n.nvmlDeviceGetPerformanceState(h)", lambda v: int(v[1:])),
    "clocks_event_reasons.active": ("n.nvmlDeviceGetCurrentClocksThrottleReasons(h)", HEX),
    "clocks_event_reasons.supported": ("n.nvmlDeviceGetSupportedClocksThrottleReasons(h)", HEX),
    "clocks_event_reasons_counters.sw_power_cap": ("n.nvmlDeviceGetViolationStatus(h, n.NVML_PERF_POLICY_POWER).violationTime",
                                                   lambda v: int(v) * 1000),
    "memory.total": ("n.nvmlDeviceGetMemoryInfo(h, version=n.nvmlMemory_v2).total", MB),
    "memory.reserved": ("n.nvmlDeviceGetMemoryInfo(h, version=n.nvmlMemory_v2).reserved", MB),
    "memory.used": ("n.nvmlDeviceGetMemoryInfo(h, version=n.nvmlMemory_v2).used", MB),
    "memory.free": ("n.nvmlDeviceGetMemoryInfo(h, version=n.nvmlMemory_v2).free", MB),
    "compute_mode": ("n.nvmlDeviceGetComputeMode(h)", lambda v: {"Default": 0, "Exclusive_Process": 3, "Prohibited": 2}[v]),
    "compute_cap": ("'%d.%d' % n.nvmlDeviceGetCudaComputeCapability(h)", str),
    "utilization.gpu": ("n.nvmlDeviceGetUtilizationRates(h).gpu", I),
    "utilization.memory": ("n.nvmlDeviceGetUtilizationRates(h).memory", I),
    "utilization.encoder": ("n.nvmlDeviceGetEncoderUtilization(h)[0]", I),
    "utilization.decoder": ("n.nvmlDeviceGetDecoderUtilization(h)[0]", I),
    "encoder.stats.sessionCount": ("n.nvmlDeviceGetEncoderStats(h)[0]", I),
    "encoder.stats.averageFps": ("n.nvmlDeviceGetEncoderStats(h)[1]", I),
    "encoder.stats.averageLatency": ("n.nvmlDeviceGetEncoderStats(h)[2]", I),
    "ecc.mode.current": ("n.nvmlDeviceGetEccMode(h)[0]", FLAG),
    "ecc.mode.pending": ("n.nvmlDeviceGetEccMode(h)[1]", FLAG),
    "ecc.errors.corrected.volatile.total": ("n.nvmlDeviceGetTotalEccErrors(h, 0, 0)", I),
    "ecc.errors.uncorrected.aggregate.total": ("n.nvmlDeviceGetTotalEccErrors(h, 1, 1)", I),
    "ecc.errors.corrected.aggregate.device_memory": ("n.nvmlDeviceGetMemoryErrorCounter(h, 0, 1, 2)", I),
    "ecc.errors.corrected.volatile.sram": ("n.nvmlDeviceGetMemoryErrorCounter(h, 0, 0, 7)", I),
    "retired_pages.single_bit_ecc.count": ("len(n.nvmlDeviceGetRetiredPages(h, 0))", I),
    "retired_pages.double_bit.count": ("len(n.nvmlDeviceGetRetiredPages(h, 1))", I),
    "remapped_rows.correctable": ("n.nvmlDeviceGetRemappedRows(h)[0]", I),
    "remapped_rows.uncorrectable": ("n.nvmlDeviceGetRemappedRows(h)[1]", I),
    "remapped_rows.pending": ("n.nvmlDeviceGetRemappedRows(h)[2]", FLAG),
    "remapped_rows.histogram.max": ("n.nvmlDeviceGetRowRemapperHistogram(h).max", I),
    "temperature.gpu": ("n.nvmlDeviceGetTemperature(h, 0)", I),
    "temperature.memory": ("n.nvmlDeviceGetFieldValues(h, [n.NVML_FI_DEV_MEMORY_TEMP])[0].value.uiVal", I),
    "temperature.gpu.shutdown": ("n.nvmlDeviceGetTemperatureThreshold(h, 0)", I),
    "temperature.gpu.slowdown": ("n.nvmlDeviceGetTemperatureThreshold(h, 1)", I),
    "power.draw": ("n.nvmlDeviceGetPowerUsage(h)", W),
    "power.draw.instant": ("n.nvmlDeviceGetFieldValues(h, [186])[0].value.uiVal", W),
    "power.limit": ("n.nvmlDeviceGetPowerManagementLimit(h)", W),
    "enforced.power.limit": ("n.nvmlDeviceGetEnforcedPowerLimit(h)", W),
    "power.default_limit": ("n.nvmlDeviceGetPowerManagementDefaultLimit(h)", W),
    "power.min_limit": ("n.nvmlDeviceGetPowerManagementLimitConstraints(h)[0]", W),
    "power.max_limit": ("n.nvmlDeviceGetPowerManagementLimitConstraints(h)[1]", W),
    "energy.total": ("n.nvmlDeviceGetTotalEnergyConsumption(h)", W),
    "clocks.current.graphics": ("n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_GRAPHICS)", I),
    "clocks.current.sm": ("n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM)", I),
    "clocks.current.memory": ("n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_MEM)", I),
    "clocks.current.video": ("n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_VIDEO)", I),
    "clocks.applications.graphics": ("n.nvmlDeviceGetApplicationsClock(h, n.NVML_CLOCK_GRAPHICS)", I),
    "clocks.default_applications.memory": ("n.nvmlDeviceGetDefaultApplicationsClock(h, n.NVML_CLOCK_MEM)", I),
    "clocks.max.graphics": ("n.nvmlDeviceGetMaxClockInfo(h, n.NVML_CLOCK_GRAPHICS)", I),
    "clocks.max.sm": ("n.nvmlDeviceGetMaxClockInfo(h, n.NVML_CLOCK_SM)", I),
    "clocks.max.memory": ("n.nvmlDeviceGetMaxClockInfo(h, n.NVML_CLOCK_MEM)", I),
    "mig.mode.current": ("n.nvmlDeviceGetMigMode(h)[0]", FLAG),
    "bar1.total": ("n.nvmlDeviceGetBAR1MemoryInfo(h).bar1Total", MB),
}
ERRORS = {"[N/A]": 3, "[Not Supported]": 3, "[Requested functionality has been deprecated]": 26, "[Unknown Error]": 999,
          "[Insufficient Permissions]": 4}

READER = textwrap.dedent("""
    import json, sys
    import pynvml as n
    fields = json.loads(sys.argv[1])
    n.nvmlInit()
    out = []
    for i in range(n.nvmlDeviceGetCount()):
        h = n.nvmlDeviceGetHandleByIndex(i)
        got = {}
        for key, expr in fields.items():
            try:
                v = eval(expr)
                got[key] = v.decode() if isinstance(v, bytes) else v
            except n.NVMLError as e:
                got[key] = {"error": e.value}
        out.append(got)
    n.nvmlShutdown()
    print(json.dumps(out))
""")


def read_fields(scenario, keys):
    env = dict(os.environ, LD_LIBRARY_PATH=DRIVER_DIR, GPUWATCH_SIM_SCENARIO=str(scenario))
    exprs = {k: FIELDS[k][0] for k in keys}
    result = subprocess.run(["/usr/bin/python3", "-c", READER, json.dumps(exprs)], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def expected(text):
    text = str(text)
    if text in ERRORS:
        return {"error": ERRORS[text]}
    return None


STATIC_SCENARIO = """
description: every mapped field written out, to be read back through pynvml
gpus:
  - model: H100 SXM 80GB
    values:
      name: "NVIDIA H100 80GB HBM3"
      uuid: "GPU-12345678-9abc-def0-1234-56789abcdef0"
      serial: "1654123456789"
      index: 0
      vbios_version: "96.00.A5.00.01"
      inforom.img: "G520.0200.00.05"
      inforom.oem: "2.1"
      board_part_number: "692-2G520-0200-000"
      pci.bus_id: "00000000:0C:00.0"
      pci.bus: "0x0C"
      pci.device_id: "0x233010DE"
      pci.sub_device_id: "0x16C110DE"
      pcie.link.gen.current: 4
      pcie.link.gen.max: 5
      pcie.link.gen.gpumax: 5
      pcie.link.width.current: 8
      pcie.link.width.max: 16
      persistence_mode: Disabled
      display_active: Enabled
      accounting.mode: Enabled
      accounting.buffer_size: 4000
      fan.speed: "[N/A]"
      pstate: P2
      clocks_event_reasons.active: "0x0000000000000004"
      clocks_event_reasons.supported: "0x00000000000001FF"
      clocks_event_reasons_counters.sw_power_cap: 15814595384
      memory.total: 81559
      memory.reserved: 479
      memory.used: 19818
      memory.free: 61262
      compute_mode: Exclusive_Process
      compute_cap: "9.0"
      utilization.gpu: 87
      utilization.memory: 23
      utilization.encoder: 12
      utilization.decoder: "[N/A]"
      encoder.stats.sessionCount: 2
      encoder.stats.averageFps: 107
      encoder.stats.averageLatency: 62844
      ecc.mode.current: Enabled
      ecc.mode.pending: Disabled
      ecc.errors.corrected.volatile.total: 17
      ecc.errors.uncorrected.aggregate.total: 3
      ecc.errors.corrected.aggregate.device_memory: 41
      ecc.errors.corrected.volatile.sram: "[N/A]"
      retired_pages.single_bit_ecc.count: "[N/A]"
      retired_pages.double_bit.count: "[N/A]"
      remapped_rows.correctable: 5
      remapped_rows.uncorrectable: 1
      remapped_rows.pending: "Yes"
      remapped_rows.histogram.max: 2560
      temperature.gpu: 61
      temperature.memory: 70
      temperature.gpu.shutdown: 92
      temperature.gpu.slowdown: 89
      power.draw: 631.95
      power.draw.instant: 625.68
      power.limit: 650.00
      enforced.power.limit: 640.00
      power.default_limit: 700.00
      power.min_limit: 200.00
      power.max_limit: 700.00
      energy.total: 123456.789
      clocks.current.graphics: 1755
      clocks.current.sm: 1755
      clocks.current.memory: 2619
      clocks.current.video: 1395
      clocks.applications.graphics: "[Requested functionality has been deprecated]"
      clocks.default_applications.memory: 2619
      clocks.max.graphics: 1980
      clocks.max.sm: 1980
      clocks.max.memory: 2619
      mig.mode.current: Disabled
      bar1.total: 131072
"""


def check_scenario(path, doc):
    keys_per_gpu = [dict((k, v) for k, v in g.get("values", {}).items() if k in FIELDS) for g in doc["gpus"]]
    all_keys = sorted({k for kv in keys_per_gpu for k in kv})
    got = read_fields(path, all_keys)
    checked = 0
    for gpu, values in enumerate(keys_per_gpu):
        for key, text in values.items():
            want = expected(text)
            if want is None:
                want = FIELDS[key][1](str(text))
            assert got[gpu][key] == want, f"GPU {gpu} {key}: scenario {text!r} -> expected {want!r}, pynvml read {got[gpu][key]!r}"
            checked += 1
    return checked


def test_every_defined_field_reads_back_in_nvml_units():
    doc = yaml.safe_load(STATIC_SCENARIO)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fields.yaml"
        path.write_text(STATIC_SCENARIO)
        assert check_scenario(path, doc) == len(doc["gpus"][0]["values"])


def test_builtin_static_overrides_read_back():
    checked = 0
    for path in sorted((SOURCE_DIR / "sim" / "scenarios").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        gpus = []
        for g in doc.get("gpus") or []:
            gpus.extend([g] * int(g.get("count", 1)))
        if not gpus:
            continue
        doc["gpus"] = gpus
        # Only values the timeline does not drive: static GPUs, or keys that no phase changes.
        dynamic = {"utilization.gpu", "utilization.memory", "memory.used", "memory.free", "temperature.gpu",
                   "temperature.memory", "power.draw", "power.draw.instant", "pstate", "fan.speed", "energy.total",
                   "clocks_event_reasons.active", "clocks.current.graphics", "clocks.current.sm",
                   "clocks.current.memory", "clocks.current.video"}
        for g in gpus:
            if g.get("phases"):
                g["values"] = {k: v for k, v in (g.get("values") or {}).items() if k not in dynamic}
        checked += check_scenario(path.stem, doc)
    assert checked > 0


def test_processes_and_names_from_the_scenario():
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        scenario = textwrap.dedent(f"""
            gpus:
              - model: L4
                processes:
                  - {{command: "python serve.py --port 9000", user: alice, memory: 2048, pid_env: SLEEPER_PID}}
                  - {{command: "/usr/bin/Xorg :0", memory: 64, pid: 4000123, type: graphics}}
        """)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "procs.yaml"
            path.write_text(scenario)
            env = dict(os.environ, LD_LIBRARY_PATH=DRIVER_DIR, GPUWATCH_SIM_SCENARIO=str(path),
                       SLEEPER_PID=str(sleeper.pid))
            code = textwrap.dedent("""
                import json, pynvml as n
                n.nvmlInit()
                h = n.nvmlDeviceGetHandleByIndex(0)
                c = [(p.pid, p.usedGpuMemory) for p in n.nvmlDeviceGetComputeRunningProcesses(h)]
                g = [(p.pid, p.usedGpuMemory) for p in n.nvmlDeviceGetGraphicsRunningProcesses(h)]
                names = [n.nvmlSystemGetProcessName(pid) for pid, _ in c + g]
                names = [x.decode() if isinstance(x, bytes) else x for x in names]
                print(json.dumps({"compute": c, "graphics": g, "names": names}))
            """)
            result = subprocess.run(["/usr/bin/python3", "-c", code], env=env, capture_output=True, text=True, timeout=60)
            assert result.returncode == 0, result.stderr
            got = json.loads(result.stdout)
            assert got["compute"] == [[sleeper.pid, 2048 * MIB]]
            assert got["graphics"] == [[4000123, 64 * MIB]]
            assert got["names"] == ["python", "/usr/bin/Xorg"]
    finally:
        sleeper.kill()
        sleeper.wait()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
