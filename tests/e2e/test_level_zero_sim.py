"""Debian's real Level Zero loader (libze1's libze_loader.so.1) loads the simulated Level Zero
driver (<build>/sim-ze/libze_gpuwatch_sim.so.1) through ZE_ENABLE_ALT_DRIVERS, and a ctypes
client reading through the loader gets the scenario's Intel GPUs: identity, PCI address,
memory, temperatures, engine activity whose Δactive/Δtimestamp is the average utilization,
energy, frequency and the stand-in processes (docs/simulator.md, "The simulated Level Zero
driver (issue 28)").

The driver is found beside the NVML driver: GPUWATCH_SIM_ZE_DRIVER, else
$GPUWATCH_SIM_DRIVER_DIR/../sim-ze/libze_gpuwatch_sim.so.1. The client runs in a subprocess so
that the environment is set before the loader reads it."""
import ctypes.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DRIVER_DIR = os.environ.get("GPUWATCH_SIM_DRIVER_DIR", "")
ZE_DRIVER = Path(os.environ.get("GPUWATCH_SIM_ZE_DRIVER") or
                 (Path(DRIVER_DIR).parent / "sim-ze" / "libze_gpuwatch_sim.so.1" if DRIVER_DIR else ""))
LOADER = "libze_loader.so.1"
MIB = 1048576
EPOCH_MS = 1_700_000_000_000

pytestmark = [
    pytest.mark.skipif(not DRIVER_DIR or not ZE_DRIVER.is_file(), reason="the simulated Level Zero driver is not built"),
    pytest.mark.skipif(ctypes.util.find_library("ze_loader") is None, reason="libze1 (Debian's loader) is not installed"),
]

# One NVIDIA GPU first, so that the Intel GPUs are scenario GPUs 1 and 2 (the driver must list
# only Intel's, and the stand-in PIDs stay keyed by the scenario index).
SCENARIO = textwrap.dedent("""\
    name: ze_two_max
    description: An H100 and two Data Center GPU Max 1550, one busy then idle.
    gpus:
      - model: H100 SXM 80GB
      - model: Max 1550
        values: {pci.bus_id: "00000000:9A:00.0", memory.total: 122880}
        phases:
          - {kind: training, duration: 60s}
          - {kind: idle, duration: 600s, processes: false}
        processes:
          - {command: "python train.py", memory: 20480}
      - model: Max 1550
        values: {pci.bus_id: "00000000:9B:00.0"}
        phases:
          - {kind: idle, duration: 600s}
    """)

# The ctypes client: the structures are those of Debian's level_zero/ze_api.h and zes_api.h.
CLIENT = textwrap.dedent(r"""
    import ctypes, json, os, sys
    from ctypes import (POINTER, Structure, byref, c_char, c_double, c_int32, c_int64, c_uint8,
                        c_uint32, c_uint64, c_void_p)

    class DeviceProps(Structure):
        _fields_ = [("stype", c_uint32), ("pNext", c_void_p), ("type", c_uint32), ("vendorId", c_uint32),
                    ("deviceId", c_uint32), ("flags", c_uint32), ("subdeviceId", c_uint32),
                    ("coreClockRate", c_uint32), ("maxMemAllocSize", c_uint64), ("maxHardwareContexts", c_uint32),
                    ("maxCommandQueuePriority", c_uint32), ("numThreadsPerEU", c_uint32),
                    ("physicalEUSimdWidth", c_uint32), ("numEUsPerSubslice", c_uint32),
                    ("numSubslicesPerSlice", c_uint32), ("numSlices", c_uint32), ("timerResolution", c_uint64),
                    ("timestampValidBits", c_uint32), ("kernelTimestampValidBits", c_uint32),
                    ("uuid", c_uint8 * 16), ("name", c_char * 256)]

    class ZesDeviceProps(Structure):
        _fields_ = [("stype", c_uint32), ("pNext", c_void_p), ("core", DeviceProps), ("numSubdevices", c_uint32),
                    ("serialNumber", c_char * 64), ("boardNumber", c_char * 64), ("brandName", c_char * 64),
                    ("modelName", c_char * 64), ("vendorName", c_char * 64), ("driverVersion", c_char * 64)]

    class PciAddress(Structure):
        _fields_ = [("domain", c_uint32), ("bus", c_uint32), ("device", c_uint32), ("function", c_uint32)]

    class PciSpeed(Structure):
        _fields_ = [("gen", c_int32), ("width", c_int32), ("maxBandwidth", c_int64)]

    class PciProps(Structure):
        _fields_ = [("stype", c_uint32), ("pNext", c_void_p), ("address", PciAddress), ("maxSpeed", PciSpeed),
                    ("haveBandwidthCounters", c_uint8), ("havePacketCounters", c_uint8),
                    ("haveReplayCounters", c_uint8)]

    class MemState(Structure):
        _fields_ = [("stype", c_uint32), ("pNext", c_void_p), ("health", c_uint32), ("free", c_uint64),
                    ("size", c_uint64)]

    class TempProps(Structure):
        _fields_ = [("stype", c_uint32), ("pNext", c_void_p), ("type", c_uint32), ("onSubdevice", c_uint8),
                    ("subdeviceId", c_uint32), ("maxTemperature", c_double), ("isCriticalTempSupported", c_uint8),
                    ("isThreshold1Supported", c_uint8), ("isThreshold2Supported", c_uint8)]

    class EngineProps(Structure):
        _fields_ = [("stype", c_uint32), ("pNext", c_void_p), ("type", c_uint32), ("onSubdevice", c_uint8),
                    ("subdeviceId", c_uint32)]

    class EngineStats(Structure):
        _fields_ = [("activeTime", c_uint64), ("timestamp", c_uint64)]

    class EnergyCounter(Structure):
        _fields_ = [("energy", c_uint64), ("timestamp", c_uint64)]

    class FreqState(Structure):
        _fields_ = [("stype", c_uint32), ("pNext", c_void_p), ("currentVoltage", c_double), ("request", c_double),
                    ("tdp", c_double), ("efficient", c_double), ("actual", c_double), ("throttleReasons", c_uint32)]

    class ProcessState(Structure):
        _fields_ = [("stype", c_uint32), ("pNext", c_void_p), ("processId", c_uint32), ("memSize", c_uint64),
                    ("sharedSize", c_uint64), ("engines", c_uint32)]

    ze = ctypes.CDLL("libze_loader.so.1")
    out = {}
    out["init"] = ze.zeInit(0)
    out["devices"] = []
    if out["init"] != 0:
        print(json.dumps(out))
        sys.exit(0)
    # The driver the loader loaded, already in the process: move its clock as the vendor tree does.
    drv = ctypes.CDLL(os.environ["ZE_ENABLE_ALT_DRIVERS"], mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    set_clock = drv.gpuwatch_sim_ze_set_clock_ms
    set_clock.argtypes = [ctypes.c_longlong]

    def handles(enum, parent, kind=c_void_p):
        n = c_uint32(0)
        assert enum(parent, byref(n), None) == 0
        arr = (kind * n.value)()
        assert enum(parent, byref(n), arr) == 0
        return list(arr)[: n.value]

    n = c_uint32(0)
    out["driver_get"] = ze.zeDriverGet(byref(n), None)
    out["drivers"] = n.value
    driver = c_void_p()
    ze.zeDriverGet(byref(n), byref(driver))
    count = c_uint32(0)
    ze.zeDeviceGet(driver, byref(count), None)
    devices = (c_void_p * count.value)()
    ze.zeDeviceGet(driver, byref(count), devices)
    for d in devices:
        dev = {}
        p = DeviceProps(stype=0x3)  # ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES
        dev["props_rc"] = ze.zeDeviceGetProperties(c_void_p(d), byref(p))
        dev.update(name=p.name.decode(), vendor=p.vendorId, device_id=p.deviceId, type=p.type,
                   uuid=bytes(p.uuid).hex())
        zp = ZesDeviceProps(stype=0x1)
        dev["zes_props_rc"] = ze.zesDeviceGetProperties(c_void_p(d), byref(zp))
        dev.update(zes_name=zp.core.name.decode(), model=zp.modelName.decode(), vendor_name=zp.vendorName.decode())
        pci = PciProps(stype=0x2)
        dev["pci_rc"] = ze.zesDevicePciGetProperties(c_void_p(d), byref(pci))
        a = pci.address
        dev["pci"] = f"{a.domain:04x}:{a.bus:02x}:{a.device:02x}.{a.function:x}"
        mem = handles(ze.zesDeviceEnumMemoryModules, c_void_p(d))
        ms = MemState(stype=0x1e)
        dev["mem_rc"] = ze.zesMemoryGetState(c_void_p(mem[0]), byref(ms))
        dev.update(mem_size=ms.size, mem_free=ms.free)
        temps = {}
        for h in handles(ze.zesDeviceEnumTemperatureSensors, c_void_p(d)):
            tp = TempProps()
            ze.zesTemperatureGetProperties(c_void_p(h), byref(tp))
            c = c_double(0)
            assert ze.zesTemperatureGetState(c_void_p(h), byref(c)) == 0
            temps[tp.type] = c.value
        dev["temps"] = temps
        engines = {}
        for h in handles(ze.zesDeviceEnumEngineGroups, c_void_p(d)):
            ep = EngineProps()
            ze.zesEngineGetProperties(c_void_p(h), byref(ep))
            reads = []
            for ms_at in json.loads(os.environ["ZE_TEST_CLOCKS"]):
                set_clock(ms_at)
                st = EngineStats()
                assert ze.zesEngineGetActivity(c_void_p(h), byref(st)) == 0
                reads.append([st.activeTime, st.timestamp])
            set_clock(int(os.environ["GPUWATCH_SIM_CLOCK_MS"]))
            engines[ep.type] = reads
        dev["engines"] = engines
        pwr = handles(ze.zesDeviceEnumPowerDomains, c_void_p(d))
        energy = []
        for ms_at in json.loads(os.environ["ZE_TEST_CLOCKS"]):
            set_clock(ms_at)
            e = EnergyCounter()
            assert ze.zesPowerGetEnergyCounter(c_void_p(pwr[0]), byref(e)) == 0
            energy.append([e.energy, e.timestamp])
        set_clock(int(os.environ["GPUWATCH_SIM_CLOCK_MS"]))
        dev["energy"] = energy
        freq = handles(ze.zesDeviceEnumFrequencyDomains, c_void_p(d))
        fs = FreqState(stype=0x13)
        dev["freq_rc"] = ze.zesFrequencyGetState(c_void_p(freq[0]), byref(fs))
        dev.update(freq_actual=fs.actual, freq_tdp=fs.tdp)
        np_ = c_uint32(0)
        ze.zesDeviceProcessesGetState(c_void_p(d), byref(np_), None)
        procs = (ProcessState * max(1, np_.value))()
        dev["procs_rc"] = ze.zesDeviceProcessesGetState(c_void_p(d), byref(np_), procs)
        dev["procs"] = [[procs[i].processId, procs[i].memSize] for i in range(np_.value)]
        # A function this driver does not implement: the loader reaches the driver's placeholder.
        dev["fans_rc"] = ze.zesDeviceEnumFans(c_void_p(d), byref(c_uint32(0)), None)
        out["devices"].append(dev)
    print(json.dumps(out))
    """)


def run_client(tmp_path, clocks_s, scenario=SCENARIO, extra_env=None):
    path = tmp_path / "scenario.yaml"
    path.write_text(scenario)
    env = dict(os.environ)
    env.update({
        "ZE_ENABLE_ALT_DRIVERS": str(ZE_DRIVER),
        "ZES_ENABLE_SYSMAN": "1",
        "GPUWATCH_SIM_SCENARIO": str(path),
        "GPUWATCH_SIM_EPOCH_MS": str(EPOCH_MS),
        "GPUWATCH_SIM_CLOCK_MS": str(EPOCH_MS + 30_000),
        "GPUWATCH_SIM_PIDS": "1:0=4242",
        "ZE_TEST_CLOCKS": json.dumps([EPOCH_MS + int(s * 1000) for s in clocks_s]),
    })
    env.update(extra_env or {})
    r = subprocess.run([sys.executable, "-c", CLIENT], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def rate(reads, a, b):
    """Δfirst/Δsecond between reads A and B of [counter, timestamp] pairs."""
    return (reads[b][0] - reads[a][0]) / (reads[b][1] - reads[a][1])


def test_real_loader_serves_the_scenarios_intel_gpus(tmp_path):
    # Clocks (scenario s): inside training, across the training->idle boundary at 60 s, inside idle.
    out = run_client(tmp_path, [10, 20, 50, 70, 80, 90])
    assert out["init"] == 0 and out["driver_get"] == 0
    assert out["drivers"] == 1
    devs = out["devices"]
    assert len(devs) == 2  # the two Max 1550, not the H100
    for d in devs:
        assert d["props_rc"] == 0 and d["zes_props_rc"] == 0 and d["pci_rc"] == 0 and d["mem_rc"] == 0
        assert d["name"] == d["zes_name"] == d["model"] == "Intel(R) Data Center GPU Max 1550"
        assert (d["vendor"], d["device_id"], d["type"]) == (0x8086, 0x0BD5, 1)  # ZE_DEVICE_TYPE_GPU
        assert d["vendor_name"] == "Intel(R) Corporation"
        assert 0 < d["mem_free"] < d["mem_size"]
        assert set(d["temps"]) >= {"1"} and 15 < d["temps"]["1"] < 110  # ZES_TEMP_SENSORS_GPU
        assert d["freq_rc"] == 0 and 0 < d["freq_actual"] <= d["freq_tdp"]
        assert d["fans_rc"] == 0x78000003  # ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
    assert [d["pci"] for d in devs] == ["0000:9a:00.0", "0000:9b:00.0"]
    # memory.total: the scenario's override, then the catalog's Max 1550 (128 GiB).
    assert [d["mem_size"] for d in devs] == [122880 * MIB, 131072 * MIB]
    assert devs[0]["uuid"] != devs[1]["uuid"]

    busy, idle = devs
    # The process of scenario GPU 1 with the stand-in PID; 20480 MiB of the busy GPU's memory is
    # its, so at least that much is used. The idle GPU runs nothing.
    assert busy["procs_rc"] == 0 and busy["procs"] == [[4242, 20480 * MIB]]
    assert busy["mem_size"] - busy["mem_free"] >= 20480 * MIB
    assert idle["procs"] == []

    for group in ("0", "1"):  # ZES_ENGINE_GROUP_ALL, COMPUTE_ALL
        reads = busy["engines"][group]
        assert [r[1] for r in reads] == [(EPOCH_MS + s * 1000) * 1000 for s in (10, 20, 50, 70, 80, 90)]
        training, idling = rate(reads, 0, 1), rate(reads, 3, 4)
        assert training > 0.6, reads
        assert idling < 0.1, reads
        # Across the boundary (50 s -> 70 s): half training, half idle, so the average of the two.
        assert rate(reads, 2, 3) == pytest.approx((training + idling) / 2, abs=0.03)
        # Any two reads: the average over their interval (10 s -> 90 s: 50 s training, 30 s idle).
        assert rate(reads, 0, 5) == pytest.approx((50 * training + 30 * idling) / 80, abs=0.03)
        assert rate(idle["engines"][group], 0, 1) < 0.1

    # Energy: µJ that grow with the clock; the busy GPU draws more than the idle one.
    busy_w = rate(busy["energy"], 0, 1)
    idle_w = rate(idle["energy"], 0, 1)
    assert 0 < idle_w < busy_w <= 700, (busy_w, idle_w)


def test_no_intel_gpu_means_no_driver(tmp_path):
    # A scenario with only NVIDIA GPUs: zeInit fails, as the real driver on a host without one.
    out = run_client(tmp_path, [10], scenario="name: nv\ngpus:\n  - model: H100 SXM 80GB\n")
    assert out["init"] != 0
    assert out["devices"] == []


def test_counters_run_on_the_wall_clock_at_any_time_scale(tmp_path):
    # At time_scale 20 the 60 s of training last 3 wall seconds. Timestamps are the (virtual) wall
    # clock the client set, and the counters' rates are still utilization and watts.
    fast = SCENARIO.replace("gpus:", "time_scale: 20\ngpus:", 1)
    wall_s = [0.5, 1.0, 4.0, 4.5]
    out = run_client(tmp_path, wall_s, scenario=fast)
    slow = run_client(tmp_path, [10, 20])
    busy = out["devices"][0]
    reads = busy["engines"]["1"]
    assert [r[1] for r in reads] == [(EPOCH_MS + int(s * 1000)) * 1000 for s in wall_s]
    assert rate(reads, 0, 1) == pytest.approx(rate(slow["devices"][0]["engines"]["1"], 0, 1), abs=0.01)
    assert rate(reads, 2, 3) < 0.1
    assert rate(busy["energy"], 0, 1) == pytest.approx(rate(slow["devices"][0]["energy"], 0, 1), rel=0.02)


def test_behind_the_loaders_intercept_layer(tmp_path):
    # ZE_ENABLE_LOADER_INTERCEPT (as with a second driver) puts the loader's handle-wrapping
    # functions between client and driver: the same devices and values come through.
    out = run_client(tmp_path, [10, 20], extra_env={"ZE_ENABLE_LOADER_INTERCEPT": "1"})
    assert out["init"] == 0
    assert [d["pci"] for d in out["devices"]] == ["0000:9a:00.0", "0000:9b:00.0"]
    assert [d["mem_size"] for d in out["devices"]] == [122880 * MIB, 131072 * MIB]
    assert out["devices"][0]["procs"] == [[4242, 20480 * MIB]]
    assert rate(out["devices"][0]["engines"]["0"], 0, 1) > 0.6
