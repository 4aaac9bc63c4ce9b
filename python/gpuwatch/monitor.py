"""gpuwatch.Monitor: GPU state from libgpuwatch's own sampling thread, next to the training
loop's own timing (data wait against compute, per step), written to CSV / JSONL / the
GPUWATCH_STEPS_FILE of `gpuwatch run`, with findings at the end.

step() is cheap (a few microseconds: no GPU synchronisation, no NVML call, no file I/O: every
`flush_every` steps it hands its rows to a writer thread, writer.py)."""
import atexit
import os
import warnings
import weakref
from time import perf_counter, time

from . import _native
from .allocator import allocator_values, fragmentation_finding, torch_memory_stats_reader, GIB
from .findings import input_starved_finding
from .sinks import CsvSink, JsonlSink, StepsFileSink
from .writer import Writer

_open_monitors = weakref.WeakSet()


def _flush_all_at_exit():
    for monitor in list(_open_monitors):
        monitor.close()


atexit.register(_flush_all_at_exit)


def disabled_by_environment(env=None):
    """GPUWATCH_DISABLE set to anything but "", "0", "false" or "no" turns every Monitor off."""
    value = (os.environ if env is None else env).get("GPUWATCH_DISABLE", "").strip().lower()
    return value not in ("", "0", "false", "no")


class _Tracked:
    """An iterable that measures how long each next() waits (the data wait)."""

    __slots__ = ("_monitor", "_iterable")

    def __init__(self, monitor, iterable):
        self._monitor, self._iterable = monitor, iterable

    def __len__(self):
        return len(self._iterable)

    def __iter__(self):
        monitor = self._monitor
        start = perf_counter()
        iterator = iter(self._iterable)  # a DataLoader starts its workers here: that is data wait too
        end = perf_counter()
        monitor._last = start
        monitor._wait = end - start
        while True:
            start = perf_counter()
            try:
                item = next(iterator)
            except StopIteration:
                return
            finally:
                monitor._wait += perf_counter() - start
            yield item


class Monitor:
    """Monitor(interval=1.0, gpus="job", enabled=True): see docs/python.md.

    gpus: "job" (the GPUs of this process tree, else CUDA_VISIBLE_DEVICES, else all; decided
    again at each sample), "all", or "0,2" / UUIDs. enabled=False or GPUWATCH_DISABLE=1 makes
    every method a no-op. csv / jsonl: paths of per-step sinks. memory_stats: a function
    returning a torch.cuda.memory_stats()-like dict or None (default: torch's, when the program
    uses torch.cuda), read every `allocator_every` steps."""

    enabled = False
    error = None

    def __init__(self, interval=1.0, gpus="job", enabled=True, *, csv=None, jsonl=None, flush_every=50,
                 allocator_every=50, memory_stats=None, start_timeout=10.0):
        self.job_id = os.environ.get("GPUWATCH_JOB_ID") or None
        self.enabled = bool(enabled) and not disabled_by_environment()
        if not self.enabled:
            return
        if not 0.05 <= float(interval) <= 3600:
            raise ValueError(f"interval {interval} s is out of range: give 0.05 to 3600 seconds")
        if flush_every < 1 or allocator_every < 1:
            raise ValueError("flush_every and allocator_every must be at least 1")
        self._pid = os.getpid()
        self._interval = float(interval)
        self._flush_every, self._allocator_every = int(flush_every), int(allocator_every)
        self._read_stats = memory_stats if memory_stats is not None else torch_memory_stats_reader()
        self._last = perf_counter()
        self._wait = 0.0
        self._steps = 0             # step() calls
        self._sum_wait = self._sum_compute = 0.0  # over the steps after the first (see findings())
        self._pending = []          # (row, snapshot dict) not yet handed to the writer thread
        self._last_row = None
        self._last_stats = None
        self._snap, self._host, self._snap_count, self._snap_due = {}, {}, -1, 0.0
        self._snap_period = max(0.05, self._interval / 4)
        self._closed = False
        self._native = None
        try:
            self._native = _native.NativeMonitor(interval, gpus, start_timeout=start_timeout)
        except _native.NativeError as e:  # monitoring must never stop training: timing goes on
            self.error = str(e)
            warnings.warn(f"gpuwatch: no GPU sampling ({e}); step timing goes on", RuntimeWarning, stacklevel=2)
        sinks = []
        for make, path in ((CsvSink, csv), (JsonlSink, jsonl), (StepsFileSink, os.environ.get("GPUWATCH_STEPS_FILE"))):
            if not path:
                continue
            try:
                sinks.append(make(path))
            except (OSError, ValueError) as e:  # a sink that cannot open is left out, never the training
                self.error = f"cannot write {path}: {e}"
                warnings.warn(f"gpuwatch: cannot write {path} ({e}); that output is off, training goes on",
                              RuntimeWarning, stacklevel=2)
        self._writer = Writer(sinks) if sinks else None
        self._refresh_snapshot(perf_counter())
        _open_monitors.add(self)

    # ---- context manager ------------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # ---- GPU state ------------------------------------------------------------------------
    def _refresh_snapshot(self, now):
        self._snap_due = now + self._snap_period
        if self._native is None:
            return
        count = self._native.sample_count()
        if count != self._snap_count:
            try:
                sample = self._native.snapshot_json()
            except _native.NativeError as e:
                self.error = str(e)
                return
            sample.pop("time", None)
            sample.pop("gpus", None)
            host = {k[5:]: sample.pop(k) for k in [k for k in sample if k.startswith("host/")]}
            self._snap, self._host, self._snap_count = sample, host, count

    def snapshot(self):
        """The latest sample as a flat dict: {"gpu0/util_percent": 87.0, "gpu0/memory_used_gib": ...}.
        An absent value is an absent key. {} when disabled or before the first sample."""
        if not self.enabled or self._closed:
            return {}
        self._refresh_snapshot(perf_counter())
        return dict(self._snap)

    def host(self):
        """What the host was doing at the latest sample (issue 25): {"cpu_busy_percent": 97.0,
        "cpu_iowait_percent": ..., "io_pressure_some_percent": ..., "job_cpu_cores": 7.8, ...}, the keys
        of `gpuwatch status --json`'s "host" object plus job_cpu_cores / job_processes (this program's
        process tree: its DataLoader workers). An absent value is an absent key (rates need two samples).
        {} when disabled or before the first sample."""
        if not self.enabled or self._closed:
            return {}
        self._refresh_snapshot(perf_counter())
        return dict(self._host)

    # ---- training-loop timing -------------------------------------------------------------
    def track(self, iterable):
        """Wraps any iterable; the time spent waiting for each next item is the step's data wait."""
        if not self.enabled:
            return iterable
        return _Tracked(self, iterable)

    def data_ready(self):
        """For loops you cannot wrap with track() (framework callbacks): the next step's data has
        arrived now, so the time since the previous step() was data wait."""
        if not self.enabled:
            return
        self._wait = perf_counter() - self._last

    def step(self, step, loss=None, **scalars):
        """Marks the end of step STEP: its data wait (from track()) and compute time (the rest of
        the time since the previous step). LOSS may be a tensor: it is converted when the rows are
        written, not here (no GPU synchronisation in step())."""
        if not self.enabled or self._closed:
            return
        now = perf_counter()
        wait = self._wait
        compute = now - self._last - wait
        if compute < 0.0:
            compute = 0.0
        self._last, self._wait = now, 0.0
        row = {"step": step, "time": time(), "data_wait_s": wait, "compute_s": compute, "loss": loss}
        if scalars:
            row.update(scalars)
        if self._steps:
            self._sum_wait += wait
            self._sum_compute += compute
        if self._steps % self._allocator_every == 0:
            stats = self._read_stats()
            if stats:
                self._last_stats = stats
                row.update(allocator_values(stats))
        self._steps += 1
        if now >= self._snap_due:
            self._refresh_snapshot(now)
        self._pending.append((row, self._snap))
        self._last_row = row
        if len(self._pending) >= self._flush_every:
            self._hand_over()

    # ---- outputs --------------------------------------------------------------------------
    def _hand_over(self):
        pending, self._pending = self._pending, []
        if self._writer is not None:
            self._writer.put(pending)

    def flush(self):
        """Writes the buffered step rows to every sink and waits until they are written (step()
        hands them to the writer thread every `flush_every` steps without waiting)."""
        if not self.enabled or self._closed:
            return
        self._hand_over()
        if self._writer is not None:
            self._writer.drain()

    def as_scalars(self):
        """The latest step's timing, allocator values and GPU state as one flat dict of floats,
        for SummaryWriter.add_scalar / wandb.log. {} when disabled."""
        if not self.enabled:
            return {}
        out = {}
        row = self._last_row
        if row is not None:
            out["step/data_wait_s"] = row["data_wait_s"]
            out["step/compute_s"] = row["compute_s"]
            total = row["data_wait_s"] + row["compute_s"]
            if total > 0:
                out["step/data_wait_share"] = row["data_wait_s"] / total
        if self._last_stats:
            for name, value in allocator_values(self._last_stats).items():
                out["allocator/" + name.replace("_bytes", "_gib")] = value / GIB if name.endswith("_bytes") else value
        out.update(self.snapshot())
        return out

    @property
    def data_wait_share(self):
        """Measured share of time waiting for data over the steps after the first (the first one
        includes the data loader's start); None before the second step."""
        if not self.enabled:
            return None
        total = self._sum_wait + self._sum_compute
        return self._sum_wait / total if self._steps > 1 and total > 0 else None

    def findings(self):
        """`input_starved` (the measured data-wait share against the diagnose engine's thresholds)
        and `fragmentation` (the latest allocator reading), as dicts; [] when disabled."""
        if not self.enabled:
            return []
        out = []
        try:
            info = _native.diagnose_threshold("input_starved.info_share")
            warn = _native.diagnose_threshold("input_starved.warn_share")
            advice = _native.diagnose_advice("input_starved")
        except _native.NativeError as e:
            self.error = str(e)
        else:
            starved = input_starved_finding(self._sum_wait, self._sum_compute, self._steps - 1, info, warn, advice)
            if starved:
                out.append(starved)
        if self._last_stats:
            fragmented = fragmentation_finding(self._last_stats)
            if fragmented:
                out.append(fragmented)
        return out

    def close(self):
        """Writes what is buffered, closes the sinks and stops sampling. Idempotent; also at exit."""
        if not self.enabled or self._closed or os.getpid() != self._pid:
            return
        self._hand_over()
        self._closed = True
        if self._writer is not None:
            self._writer.close()
        if self._native is not None:
            self._native.close()
        _open_monitors.discard(self)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
