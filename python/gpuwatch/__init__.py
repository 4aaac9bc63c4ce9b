"""gpuwatch: GPU state next to the loss, from a C++ sampling thread (libgpuwatch.so over NVML).

    import gpuwatch
    with gpuwatch.Monitor(interval=1.0, gpus="job", csv="steps.csv") as monitor:
        for step, batch in enumerate(monitor.track(loader)):
            loss = train_step(batch)
            monitor.step(step, loss=loss)
        print(monitor.findings())

See docs/python.md."""
from ._native import NativeError, load_library
from .allocator import fragmentation_finding
from .findings import input_starved_finding
from .monitor import Monitor, disabled_by_environment

__version__ = "0.1.0"
__all__ = ["Monitor", "NativeError", "load_library", "fragmentation_finding", "input_starved_finding",
           "disabled_by_environment"]
