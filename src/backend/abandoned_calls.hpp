#pragma once
// Threads left behind inside a driver call (any backend's) that did not answer in time (a hung
// GPU, issue 16). While one is there, unloading the vendor library (NVML's shutdown and dlclose)
// would pull it out from under that thread, and exit() would run destructors it may still use:
// the backend then keeps its library loaded, and the command ends with std::_Exit after flushing
// (cli/hung_exit.hpp).
namespace gpuwatch::backend {

// A caller gave up waiting on a thread that is inside a driver call / that thread came back.
void note_abandoned_call();
void note_abandoned_call_returned();
// How many threads are still inside an abandoned driver call.
int abandoned_calls();

}  // namespace gpuwatch::backend
