// The host's checks: NVML, the kernel module, device nodes, containers, visible devices.
#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "doctor/checks.hpp"
#include "doctor/host_facts.hpp"

namespace gpuwatch::doctor {

namespace {

bool is_gpu_node(const std::string& name) {
  return name.size() > 6 && std::all_of(name.begin() + 6, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::vector<std::string> gpu_nodes(const HostFacts& host) {
  std::vector<std::string> out;
  for (const auto& node : host.device_nodes)
    if (is_gpu_node(node.name)) out.push_back(node.name);
  return out;
}

bool has_node(const HostFacts& host, const std::string& name) {
  return std::any_of(host.device_nodes.begin(), host.device_nodes.end(), [&](const DeviceNode& n) { return n.name == name; });
}

constexpr int kLibRmVersionMismatch = 18;  // NVML's "library and driver versions differ" code

// The loader's first line without its final full stop, to quote inside a sentence.
std::string quoted_error(const NvmlFacts& nvml) {
  std::string e = nvml.error;
  constexpr std::string_view kInitFailed = "initialisation failed: ";
  if (auto at = e.find(kInitFailed); at != std::string::npos) e = "nvmlInit failed: " + e.substr(at + kInitFailed.size());
  while (!e.empty() && (e.back() == '.' || e.back() == ' ')) e.pop_back();
  return e;
}

std::string follows_from(HostCause cause) { return fmt::format("follows from {} (the cause)", cause_check_id(cause)); }

constexpr const char* kReloadFix =
    "The driver was updated without a reboot: reboot, or stop what uses the GPUs and reload the module "
    "(sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia; sudo modprobe nvidia), then run nvidia-smi.";

}  // namespace

HostCause host_cause(const HostFacts& host, const NvmlFacts& nvml) {
  const bool no_gpu_nodes = gpu_nodes(host).empty();
  if (!host.container.empty() && no_gpu_nodes) return HostCause::ContainerWithoutDevices;
  if (!host.module_version && host.module_listed != true) return HostCause::ModuleNotLoaded;
  if (nvml.error_code == kLibRmVersionMismatch) return HostCause::VersionMismatch;
  if (nvml.loaded && nvml.driver_version && host.module_version && *host.module_version != "unknown" &&
      *nvml.driver_version != *host.module_version)
    return HostCause::VersionMismatch;
  if (no_gpu_nodes || !has_node(host, "nvidiactl")) return HostCause::NoDeviceNodes;
  if (std::any_of(host.device_nodes.begin(), host.device_nodes.end(), [](const DeviceNode& n) { return !n.accessible; }))
    return HostCause::UnreadableDeviceNodes;
  return HostCause::None;
}

std::string cause_check_id(HostCause cause) {
  switch (cause) {
    case HostCause::None: return "";
    case HostCause::ContainerWithoutDevices: return "container.devices";
    case HostCause::ModuleNotLoaded: return "kernel.module";
    case HostCause::VersionMismatch: return "nvml.library";
    case HostCause::NoDeviceNodes:
    case HostCause::UnreadableDeviceNodes: return "kernel.device_nodes";
  }
  return "";
}

Check check_nvml_library(const HostFacts& host, const NvmlFacts& nvml, HostCause cause) {
  Check c{"nvml.library", "NVML library and driver version", Verdict::Ok, "", "", {}};
  const std::string module = host.module_version.value_or("not loaded");
  if (!nvml.answered) {
    c.verdict = Verdict::Problem;
    c.evidence = fmt::format("{} did not finish loading and nvmlInit within {} ms: the driver or a GPU hangs.",
                             nvml.library, nvml.init_time.count());
    c.fix = "Look for Xids in the kernel log (sudo dmesg | grep -i xid); a hung GPU needs a reset "
            "(sudo nvidia-smi -r -i N) or a reboot.";
    return c;
  }
  if (cause == HostCause::VersionMismatch) {
    c.verdict = Verdict::Problem;
    c.evidence = nvml.loaded ? fmt::format("Driver/library version mismatch: the NVML library is {}, the kernel module {}.",
                                           nvml.driver_version.value_or("?"), module)
                             : fmt::format("{}: the loaded kernel module is {}, the installed NVML library another "
                                           "version ({}).",
                                           quoted_error(nvml), module, nvml.library);
    c.fix = kReloadFix;
    return c;
  }
  if (!nvml.loaded) {
    if (cause != HostCause::None) {
      c.verdict = Verdict::Skipped;
      c.evidence = fmt::format("NVML unavailable: {}; {}.", quoted_error(nvml), follows_from(cause));
      return c;
    }
    c.verdict = Verdict::Problem;
    c.evidence = fmt::format("NVML unavailable: {}.", quoted_error(nvml));
    c.fix = nvml.library_found
                ? "Check the driver's state with nvidia-smi and the kernel log (sudo dmesg | grep -i nvrm)."
                : "Install the NVIDIA driver (it provides libnvidia-ml.so.1), or point --nvml-library / "
                  "GPUWATCH_NVML_LIBRARY at it. No NVIDIA GPU here? Try: gpuwatch --simulate demo doctor";
    return c;
  }
  c.evidence = fmt::format("{} loaded: driver {}, kernel module {}; NVML's first call took {} ms.", nvml.library,
                           nvml.driver_version.value_or("unknown"), module, nvml.init_time.count());
  return c;
}

Check check_kernel_module(const HostFacts& host, HostCause cause) {
  Check c{"kernel.module", "NVIDIA kernel module", Verdict::Ok, "", "", {}};
  if (host.module_version || host.module_listed == true) {
    c.evidence = fmt::format("Loaded: /proc/driver/nvidia/version says {}.", host.module_version.value_or("nothing"));
    return c;
  }
  const std::string listed = !host.module_listed ? "/proc/modules cannot be read"
                                                 : "/proc/modules lists no nvidia module";
  if (cause == HostCause::ContainerWithoutDevices) {
    c.verdict = Verdict::Skipped;
    c.evidence = fmt::format("/proc/driver/nvidia/version is missing and {}; {}.", listed, follows_from(cause));
    return c;
  }
  c.verdict = Verdict::Problem;
  c.evidence = fmt::format("The NVIDIA kernel module is not loaded: /proc/driver/nvidia/version is missing and {}.", listed);
  c.fix = "Load it: sudo modprobe nvidia (lsmod | grep nvidia to confirm). If that fails, see sudo dmesg: after a kernel "
          "update the module may need rebuilding (sudo dkms autoinstall), or Secure Boot may refuse an unsigned one. "
          "No NVIDIA driver installed? Install it, or try: gpuwatch --simulate demo doctor";
  return c;
}

Check check_device_nodes(const HostFacts& host, HostCause cause) {
  Check c{"kernel.device_nodes", "Device nodes /dev/nvidia*", Verdict::Ok, "", "", {}};
  const auto gpus = gpu_nodes(host);
  std::vector<std::string> closed;
  for (const auto& node : host.device_nodes)
    if (!node.accessible) closed.push_back("/dev/" + node.name);
  if (cause == HostCause::ContainerWithoutDevices || cause == HostCause::ModuleNotLoaded) {
    c.verdict = gpus.empty() ? Verdict::Skipped : Verdict::Ok;
    c.evidence = gpus.empty() ? fmt::format("No /dev/nvidia0..; {}.", follows_from(cause))
                              : fmt::format("{} GPU device node(s) present.", gpus.size());
    return c;
  }
  if (gpus.empty() || !has_node(host, "nvidiactl")) {
    c.verdict = Verdict::Problem;
    c.evidence = gpus.empty() ? "The module is loaded but there is no /dev/nvidia0.. device node."
                              : "The module is loaded but /dev/nvidiactl is missing.";
    c.fix = "Create them: sudo nvidia-modprobe -c 0 -u, or run nvidia-smi once as root, or enable "
            "nvidia-persistenced (which creates them at boot); check the udev rules that should.";
    return c;
  }
  if (!closed.empty()) {
    c.verdict = Verdict::Problem;
    c.evidence = fmt::format("Not readable and writable by this user (mode bits): {}.", fmt::join(closed, ", "));
    c.fix = "Give this user access: add it to the group that owns them (ls -l /dev/nvidia*, often video), or fix "
            "what sets their mode (the NVreg_DeviceFileMode module option, a udev rule; the default is 0666).";
    return c;
  }
  c.evidence = fmt::format("{} GPU node(s) and /dev/nvidiactl, readable and writable.", gpus.size());
  return c;
}

Check check_container(const HostFacts& host) {
  Check c{"container.devices", "GPUs inside a container", Verdict::Ok, "", "", {}};
  if (host.container.empty()) {
    c.evidence = "Not in a container (no /.dockerenv, /run/.containerenv or container cgroup).";
    return c;
  }
  const auto gpus = gpu_nodes(host);
  if (!gpus.empty()) {
    c.evidence = fmt::format("In a {} container with {} GPU device(s).", host.container, gpus.size());
    return c;
  }
  c.verdict = Verdict::Problem;
  c.evidence = fmt::format("This is a {} container and no GPU device (/dev/nvidia0..) is inside it: it was started "
                           "without GPUs (\"devices not found\"), or the host has no NVIDIA driver.",
                           host.container);
  c.fix = "Start it with the GPUs: docker run --gpus all (needs the NVIDIA Container Toolkit on the host), "
          "podman run --device nvidia.com/gpu=all (a CDI spec: sudo nvidia-ctk cdi generate), or on Kubernetes "
          "request nvidia.com/gpu. No GPU on the host? Try: gpuwatch --simulate demo doctor";
  return c;
}

Check check_visible_devices(const HostFacts& host, const NvmlFacts& nvml) {
  Check c{"env.visible_devices", "CUDA_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES", Verdict::Ok, "", "", {}};
  std::vector<std::string> notes;
  if (host.nvidia_visible_devices) {
    const std::string& v = *host.nvidia_visible_devices;
    if (!host.container.empty() && (v.empty() || v == "void" || v == "none")) {
      c.verdict = Verdict::Warning;
      notes.push_back(fmt::format("NVIDIA_VISIBLE_DEVICES={} asks the container runtime for no GPU", v.empty() ? "\"\"" : v));
      c.fix = "Set NVIDIA_VISIBLE_DEVICES=all (or the GPUs wanted) when starting the container.";
    } else {
      notes.push_back(fmt::format("NVIDIA_VISIBLE_DEVICES={}", v));
    }
  }
  if (!host.cuda_visible_devices) {
    notes.push_back("CUDA_VISIBLE_DEVICES is unset: CUDA programs see every GPU");
  } else {
    const std::string& v = *host.cuda_visible_devices;
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start <= v.size()) {
      std::size_t end = v.find(',', start);
      if (end == std::string::npos) end = v.size();
      std::string token = v.substr(start, end - start);
      token.erase(0, token.find_first_not_of(' '));
      token.erase(token.find_last_not_of(' ') + 1);
      if (!token.empty()) tokens.push_back(token);
      start = end + 1;
    }
    const bool hides_all = tokens.empty() || v == "-1" || v == "none" || v == "NoDevFiles";
    std::string bad;
    for (const auto& token : hides_all ? std::vector<std::string>{} : tokens) {
      if (std::all_of(token.begin(), token.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; })) {
        if (token.size() > 6 || (nvml.device_count && std::stoul(token) >= *nvml.device_count)) bad = token;
      } else if (token.rfind("GPU-", 0) == 0) {
        const bool known = std::any_of(nvml.gpus.begin(), nvml.gpus.end(),
                                       [&](const GpuFacts& g) { return !g.uuid.empty() && g.uuid.rfind(token, 0) == 0; });
        if (nvml.loaded && !known) bad = token;
      } else if (token.rfind("MIG-", 0) != 0) {
        bad = token;
      }
      if (!bad.empty()) break;
    }
    if (!bad.empty()) {
      c.verdict = Verdict::Problem;
      notes.push_back(fmt::format("CUDA_VISIBLE_DEVICES={} names '{}', which is no GPU here{}: CUDA ignores it and every "
                                  "entry after it",
                                  v, bad, nvml.device_count ? fmt::format(" (there are {})", *nvml.device_count) : ""));
      c.fix = "Use indices from 0 to the GPU count - 1, or the UUIDs nvidia-smi -L prints.";
    } else if (hides_all) {
      if (c.verdict == Verdict::Ok) c.verdict = Verdict::Warning;
      notes.push_back(fmt::format("CUDA_VISIBLE_DEVICES=\"{}\" hides every GPU from CUDA programs", v));
      if (c.fix.empty()) c.fix = "Unset CUDA_VISIBLE_DEVICES, or list the GPUs wanted (0,1 or GPU-UUIDs).";
    } else {
      notes.push_back(fmt::format("CUDA_VISIBLE_DEVICES={}: CUDA programs here see {} GPU(s) (gpuwatch sees all)", v,
                                  tokens.size()));
    }
  }
  if (host.cgroup_devices && !host.cgroup_devices->empty() && !cgroup_allows_nvidia(*host.cgroup_devices)) {
    if (c.verdict == Verdict::Ok) c.verdict = Verdict::Warning;
    notes.push_back("this cgroup's device rules (devices.list) do not allow the NVIDIA devices (major 195)");
    if (c.fix.empty())
      c.fix = "Allow them in the container or unit (docker --gpus all, or --device-cgroup-rule 'c 195:* rwm'; systemd DeviceAllow=/dev/nvidia* rw).";
  }
  c.evidence = fmt::format("{}.", fmt::join(notes, "; "));
  return c;
}

}  // namespace gpuwatch::doctor
