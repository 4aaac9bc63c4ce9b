#pragma once
// Gathers HostFacts and MonitoringFacts through a SystemView, with the pure parsers of the
// files involved (tested on their own).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/facts.hpp"
#include "doctor/system_view.hpp"

namespace gpuwatch::doctor {

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 ..." -> "550.90.07".
std::optional<std::string> parse_module_version(std::string_view proc_version_text);
// Whether /proc/modules lists the "nvidia" module.
bool modules_list_nvidia(std::string_view proc_modules_text);
// "NVRM: Xid (PCI:0000:3b:00): 79, pid=..." lines (kmsg records, journal lines, dmesg).
std::vector<KernelXid> parse_kernel_xids(std::string_view log_text);
// "docker", "podman", "kubernetes", "container" (a cgroup path says so) or "".
std::string container_kind(bool dockerenv, bool containerenv, std::string_view proc1_cgroup);

// Whether a cgroup v1 devices.list ("a *:* rwm", "c 195:* rwm", ...) lets a process read and write
// the NVIDIA devices (character major 195).
bool cgroup_allows_nvidia(std::string_view devices_list);

HostFacts gather_host_facts(const SystemView& view);

// gpuwatch serve / record processes found under /proc (argv[0] named gpuwatch).
std::vector<std::string> find_monitors(const SystemView& view);

// The monitors, and the size and free disk of DATABASE (the default history; a real path, not
// under the host root).
MonitoringFacts gather_monitoring(const SystemView& view, const std::string& database);

}  // namespace gpuwatch::doctor
