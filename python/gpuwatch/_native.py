"""libgpuwatch.so through ctypes (as pynvml sits on libnvidia-ml): finding the library,
the prototypes of include/gpuwatch/gpuwatch.h, and a thin wrapper of one gw_monitor.

The library is looked for, in order: $GPUWATCH_LIBRARY (and only there when it is set),
next to this package, in a build tree above the package (build/, then build-*/), then
through the system's loader (libgpuwatch.so.1)."""
import ctypes
import json
import os
import stat
from pathlib import Path

ABI_VERSION = 1
LIBRARY_NAME = "libgpuwatch.so.1"

GW_OK = 0
GW_ERROR_TIMEOUT = 5


class NativeError(RuntimeError):
    """libgpuwatch could not be loaded, or a gw_ call failed (its gw_last_error() text)."""


def library_candidates(env=None, package_dir=None):
    """Paths (or bare names for the loader) to try, in order."""
    env = os.environ if env is None else env
    if env.get("GPUWATCH_LIBRARY"):
        return [env["GPUWATCH_LIBRARY"]]
    package_dir = Path(package_dir or Path(__file__).resolve().parent)
    candidates = [package_dir / LIBRARY_NAME]
    root = package_dir.parent.parent  # <repo>/python/gpuwatch -> <repo>
    builds = [root / "build"] + sorted(p for p in root.glob("build-*") if p.is_dir())
    candidates += [b / "src" / "capi" / LIBRARY_NAME for b in builds]
    return [str(c) for c in candidates if c.exists()] + [LIBRARY_NAME]


def _declare(lib):
    c = ctypes
    monitor_p, snapshot_p = c.c_void_p, c.c_void_p
    protos = {
        "gw_abi_version": (c.c_int, []),
        "gw_last_error": (c.c_char_p, []),
        "gw_monitor_open": (c.c_int, [c.c_double, c.c_char_p, c.c_char_p, c.POINTER(monitor_p)]),
        "gw_monitor_start": (c.c_int, [monitor_p, c.c_double]),
        "gw_monitor_sample_count": (c.c_int, [monitor_p, c.POINTER(c.c_uint64)]),
        "gw_monitor_wait": (c.c_int, [monitor_p, c.c_uint64, c.c_double]),
        "gw_monitor_snapshot": (c.c_int, [monitor_p, c.POINTER(snapshot_p)]),
        "gw_monitor_close": (c.c_int, [monitor_p]),
        "gw_snapshot_time": (c.c_int, [snapshot_p, c.POINTER(c.c_double)]),
        "gw_snapshot_size": (c.c_int, [snapshot_p, c.POINTER(c.c_size_t)]),
        "gw_snapshot_entry": (c.c_int, [snapshot_p, c.c_size_t, c.POINTER(c.c_char_p), c.POINTER(c.c_double)]),
        "gw_snapshot_json": (c.c_int, [snapshot_p, c.POINTER(c.c_char_p)]),
        "gw_snapshot_free": (c.c_int, [snapshot_p]),
        "gw_diagnose_threshold": (c.c_int, [c.c_char_p, c.POINTER(c.c_double)]),
        "gw_diagnose_advice": (c.c_int, [c.c_char_p, c.c_size_t, c.POINTER(c.c_char_p)]),
    }
    for name, (restype, argtypes) in protos.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes


_library = None


def load_library():
    """The loaded libgpuwatch (cached), or NativeError saying where it was looked for."""
    global _library
    if _library is not None:
        return _library
    tried = []
    for candidate in library_candidates():
        # A path must be a regular file (issue 31): dlopen of a FIFO would wait for a writer.
        if os.sep in candidate:
            try:
                if not stat.S_ISREG(os.stat(candidate).st_mode):
                    tried.append(f"{candidate}: not a regular file")
                    continue
            except OSError as e:
                tried.append(f"{candidate}: {e}")
                continue
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as e:
            tried.append(f"{candidate}: {e}")
            continue
        try:
            _declare(lib)
        except AttributeError as e:
            raise NativeError(f"{candidate} is not libgpuwatch (missing {e})") from None
        version = lib.gw_abi_version()
        if version != ABI_VERSION:
            raise NativeError(f"{candidate} has C ABI version {version}; this package needs {ABI_VERSION}")
        _library = lib
        return lib
    raise NativeError("libgpuwatch.so.1 not found (set GPUWATCH_LIBRARY to its path): " + "; ".join(tried))


def _check(lib, status):
    if status != GW_OK:
        raise NativeError(lib.gw_last_error().decode(errors="replace") or f"gw status {status}")


def diagnose_threshold(name):
    lib = load_library()
    out = ctypes.c_double()
    _check(lib, lib.gw_diagnose_threshold(name.encode(), ctypes.byref(out)))
    return out.value


def diagnose_advice(kind):
    lib = load_library()
    lines, text = [], ctypes.c_char_p()
    while lib.gw_diagnose_advice(kind.encode(), len(lines), ctypes.byref(text)) == GW_OK:
        lines.append(text.value.decode())
    return lines


class NativeMonitor:
    """One gw_monitor: sampling starts in the constructor, on the library's own thread."""

    def __init__(self, interval, gpus, start_timeout=10.0, nvml_library=None):
        self._lib = load_library()
        handle = ctypes.c_void_p()
        _check(self._lib, self._lib.gw_monitor_open(float(interval), str(gpus).encode(),
                                                   nvml_library.encode() if nvml_library else None,
                                                   ctypes.byref(handle)))
        self._handle = handle
        status = self._lib.gw_monitor_start(handle, float(start_timeout))
        if status not in (GW_OK, GW_ERROR_TIMEOUT):  # a slow first sample still comes later
            message = self._lib.gw_last_error().decode(errors="replace")
            self.close()
            raise NativeError(message)
        self._count = ctypes.c_uint64()

    def sample_count(self):
        self._lib.gw_monitor_sample_count(self._handle, ctypes.byref(self._count))
        return self._count.value

    def wait(self, after, timeout):
        return self._lib.gw_monitor_wait(self._handle, after, float(timeout)) == GW_OK

    def snapshot_json(self):
        """The latest sample as a dict: {"time": ..., "gpus": [...], "gpu0/...": ...}."""
        snap, text = ctypes.c_void_p(), ctypes.c_char_p()
        _check(self._lib, self._lib.gw_monitor_snapshot(self._handle, ctypes.byref(snap)))
        try:
            _check(self._lib, self._lib.gw_snapshot_json(snap, ctypes.byref(text)))
            return json.loads(text.value)
        finally:
            self._lib.gw_snapshot_free(snap)

    def close(self):
        if self._handle:
            self._lib.gw_monitor_close(self._handle)
            self._handle = None
