#pragma once
// Threads left behind inside an NVML call that did not answer in time (a hung GPU, issue 16).
// While one is there, unloading NVML (nvmlShutdown, dlclose) would pull the library out from
// under it, and exit() would run destructors it may still use: NvmlLibrary then keeps the
// library loaded, and the command ends with std::_Exit after flushing (cli/app.cpp).
namespace gpuwatch::nvml {

// A caller gave up waiting on a thread that is inside NVML / that thread came back.
void note_abandoned_call();
void note_abandoned_call_returned();
// How many threads are still inside an abandoned NVML call.
int abandoned_calls();

}  // namespace gpuwatch::nvml
