#include "sim/engine/host_tree.hpp"

#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <system_error>

#include "sim/engine/vendor_gpus.hpp"

namespace gpuwatch::sim {

namespace fs = std::filesystem;

namespace {

bool write_text(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

std::string modules_text(bool loaded) {
  std::string text = "ext4 1003520 1 - Live 0x0000000000000000\n";
  if (loaded) {
    text += "nvidia_uvm 1798144 0 - Live 0x0000000000000000 (POE)\n"
            "nvidia_drm 90112 0 - Live 0x0000000000000000 (POE)\n"
            "nvidia_modeset 1314816 1 nvidia_drm, Live 0x0000000000000000 (POE)\n"
            "nvidia 60362752 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\n";
  }
  return text;
}

std::string kmsg_text(const Scenario& scenario) {
  std::string text;
  unsigned seq = 1000;
  for (const auto& line : scenario.host.kernel_log) {
    std::string bus = "0000:00:00";
    if (line.gpu < scenario.gpus.size()) bus = kernel_pci_name(scenario.gpus[line.gpu].values[key_index(Key::PciBusId)].text);
    auto usec = static_cast<long long>(std::llround(line.at_s * 1e6));
    text += fmt::format("4,{},{},-;NVRM: Xid (PCI:{}): {}, pid='<unknown>', name=<unknown>, simulated\n", seq++, usec,
                        bus, line.xid);
  }
  return text;
}

}  // namespace

std::string kernel_pci_name(const std::string& bus_id) {
  std::string s;
  for (char c : bus_id) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto dot = s.rfind('.'); dot != std::string::npos) s.resize(dot);
  if (s.size() == 14) s = s.substr(4);  // 8-digit domain -> 4
  return s;
}

core::Result<void> write_host_tree(const Scenario& scenario, const fs::path& root) {
  const HostSpec& host = scenario.host;
  bool ok = write_text(root / "proc/modules", modules_text(host.module_loaded));
  if (host.module_loaded) {
    const std::string version = host.module_version.empty() ? scenario.driver.version : host.module_version;
    ok = ok && write_text(root / "proc/driver/nvidia/version",
                          fmt::format("NVRM version: NVIDIA UNIX x86_64 Kernel Module  {}  (simulated)\n"
                                      "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
                                      version));
  }
  const bool docker = host.container == "docker";
  ok = ok && write_text(root / "proc/1/cgroup", docker ? "0::/docker/5f1c0ffee0ddba11\n" : "0::/init.scope\n");
  if (docker) ok = ok && write_text(root / ".dockerenv", "");
  if (host.container == "podman") ok = ok && write_text(root / "run/.containerenv", "engine=\"podman-4.3.1\"\n");
  std::error_code ec;
  fs::create_directories(root / "dev", ec);
  if (host.device_nodes != DeviceNodes::Missing) {
    std::vector<std::string> nodes = {"nvidiactl", "nvidia-uvm"};
    // One node per NVIDIA GPU, numbered like NVML's minor numbers (AMD's and Intel's are not NVIDIA's).
    const auto nvidia = gpus_of_vendor(scenario, core::Vendor::Nvidia).size();
    for (std::size_t g = 0; g < nvidia; ++g) nodes.push_back(fmt::format("nvidia{}", g));
    const auto perms = host.device_nodes == DeviceNodes::Unreadable ? fs::perms::none
                                                                     : fs::perms::owner_read | fs::perms::owner_write |
                                                                           fs::perms::group_read | fs::perms::group_write |
                                                                           fs::perms::others_read | fs::perms::others_write;
    for (const auto& node : nodes) {
      ok = ok && write_text(root / "dev" / node, "");
      fs::permissions(root / "dev" / node, perms, ec);
    }
  }
  ok = ok && write_text(root / "dev/kmsg", kmsg_text(scenario));
  if (!ok) return core::make_error(fmt::format("cannot write the simulated host under {}", root.string()));
  return {};
}

}  // namespace gpuwatch::sim
