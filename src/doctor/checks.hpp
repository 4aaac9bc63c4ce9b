#pragma once
// The doctor's checks: pure functions of the facts (facts.hpp), in the order they are shown.
// docs/doctor.md lists each id with where its evidence comes from.
#include <string>
#include <vector>

#include "doctor/check.hpp"
#include "doctor/facts.hpp"

namespace gpuwatch::doctor {

// The host-level fault that explains the others, found first so that it is the one problem and
// what follows from it (NVML failing, no device nodes) is shown as skipped with a pointer to it.
enum class HostCause { None, ContainerWithoutDevices, ModuleNotLoaded, VersionMismatch, NoDeviceNodes, UnreadableDeviceNodes };
HostCause host_cause(const HostFacts& host, const NvmlFacts& nvml);
// The id of the check that reports CAUSE ("kernel.module"); "" for None.
std::string cause_check_id(HostCause cause);

// "0-3, 5" style list of GPU indices.
std::string gpu_list(const std::vector<unsigned>& gpus);

// Host: driver, module, device nodes, container, the variables that hide GPUs.
Check check_nvml_library(const HostFacts& host, const NvmlFacts& nvml, HostCause cause);
Check check_kernel_module(const HostFacts& host, HostCause cause);
Check check_device_nodes(const HostFacts& host, HostCause cause);
Check check_container(const HostFacts& host);
Check check_visible_devices(const HostFacts& host, const NvmlFacts& nvml);

// Per GPU (one check per topic, naming the GPUs concerned). DEADLINE: how long a GPU had.
Check check_gpus_respond(const NvmlFacts& nvml, std::chrono::milliseconds deadline);
Check check_persistence(const NvmlFacts& nvml);
Check check_mig(const NvmlFacts& nvml);
Check check_ecc(const NvmlFacts& nvml);
Check check_pcie_link(const NvmlFacts& nvml);
Check check_power_limit(const NvmlFacts& nvml);
Check check_clocks(const NvmlFacts& nvml);
Check check_compute_mode(const NvmlFacts& nvml);
Check check_fabric(const NvmlFacts& nvml);

// The node.
Check check_kernel_xids(const HostFacts& host, const NvmlFacts& nvml);
Check check_slot_temperatures(const NvmlFacts& nvml);
Check check_monitoring(const MonitoringFacts& monitoring);

}  // namespace gpuwatch::doctor
