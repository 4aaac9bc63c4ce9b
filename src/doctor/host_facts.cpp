#include "doctor/host_facts.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>

namespace gpuwatch::doctor {

namespace {

constexpr std::size_t kSmallFile = 1u << 20;    // /proc/modules, version, cgroup, cmdline
constexpr std::size_t kKernelLog = 4u << 20;    // /dev/kmsg's ring buffer is far smaller

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::optional<std::string> parse_module_version(std::string_view text) {
  // "Kernel Module  550.90.07" or "Open Kernel Module for x86_64  550.90.07".
  auto at = text.find("Kernel Module");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at);
  rest = rest.substr(0, rest.find('\n'));
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(rest[i])) || (i > 0 && rest[i - 1] != ' ')) continue;
    std::size_t end = i;
    while (end < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[end])) || rest[end] == '.')) ++end;
    std::string_view version = rest.substr(i, end - i);
    if (version.find('.') != std::string_view::npos) return std::string(version);
  }
  return std::nullopt;
}

bool modules_list_nvidia(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (line.rfind("nvidia ", 0) == 0) return true;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return false;
}

std::vector<KernelXid> parse_kernel_xids(std::string_view text) {
  std::vector<KernelXid> out;
  constexpr std::string_view kMark = "NVRM: Xid (PCI:";
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? text.size() : end + 1;
    auto at = line.find(kMark);
    if (at == std::string_view::npos) continue;
    std::string_view rest = line.substr(at + kMark.size());
    auto close = rest.find("): ");
    if (close == std::string_view::npos || close > 32) continue;
    std::string_view digits = rest.substr(close + 3);
    std::size_t n = 0;
    while (n < digits.size() && n < 9 && std::isdigit(static_cast<unsigned char>(digits[n]))) ++n;
    if (n == 0) continue;
    KernelXid xid;
    for (char c : rest.substr(0, close)) xid.pci += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    xid.xid = static_cast<unsigned>(std::stoul(std::string(digits.substr(0, n))));
    // A kmsg record starts "prio,seq,usec,flags;": keep the message only.
    std::string_view message = line;
    if (auto semi = line.find(';'); semi != std::string_view::npos && semi < at) message = line.substr(semi + 1);
    xid.line = std::string(message.substr(0, 300));
    out.push_back(std::move(xid));
    if (out.size() >= 10000) break;
  }
  return out;
}

std::string container_kind(bool dockerenv, bool containerenv, std::string_view cgroup) {
  if (dockerenv) return "docker";
  if (containerenv) return "podman";
  if (cgroup.find("kubepods") != std::string_view::npos) return "kubernetes";
  for (std::string_view word : {"docker", "containerd", "libpod", "lxc"})
    if (cgroup.find(word) != std::string_view::npos) return "container";
  return "";
}

bool cgroup_allows_nvidia(std::string_view list) {
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find('\n', start);
    std::string_view line = list.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? list.size() : end + 1;
    // "TYPE MAJOR:MINOR ACCESS"
    auto space = line.find(' ');
    auto colon = line.find(':');
    auto last = line.rfind(' ');
    if (space == std::string_view::npos || colon == std::string_view::npos || last == space) continue;
    std::string_view type = line.substr(0, space);
    std::string_view major = line.substr(space + 1, colon - space - 1);
    std::string_view access = line.substr(last + 1);
    if ((type == "a" || type == "c") && (major == "*" || major == "195") &&
        access.find('r') != std::string_view::npos && access.find('w') != std::string_view::npos)
      return true;
  }
  return false;
}

HostFacts gather_host_facts(const SystemView& view) {
  HostFacts facts;
  facts.root = view.root();
  if (auto text = view.read_file("/proc/driver/nvidia/version", kSmallFile)) {
    facts.module_version = parse_module_version(*text);
    if (!facts.module_version) facts.module_version = std::string("unknown");
  }
  if (auto text = view.read_file("/proc/modules", kSmallFile)) facts.module_listed = modules_list_nvidia(*text);
  if (auto names = view.list("/dev")) {
    std::sort(names->begin(), names->end());
    for (const auto& name : *names) {
      if (name.rfind("nvidia", 0) != 0 || name == "nvidia-caps") continue;
      facts.device_nodes.push_back({name, view.read_writable("/dev/" + name).value_or(false)});
    }
  } else {
    facts.dev_readable = false;
  }
  facts.container = container_kind(view.exists("/.dockerenv"), view.exists("/run/.containerenv"),
                                   view.read_file("/proc/1/cgroup", kSmallFile).value_or(""));
  facts.cuda_visible_devices = view.env("CUDA_VISIBLE_DEVICES");
  facts.nvidia_visible_devices = view.env("NVIDIA_VISIBLE_DEVICES");
  facts.cgroup_devices = view.read_file("/sys/fs/cgroup/devices/devices.list", kSmallFile);
  if (auto log = view.read_file("/dev/kmsg", kKernelLog)) {
    facts.kernel_log_readable = true;
    facts.kernel_log_source = "/dev/kmsg";
    facts.xids = parse_kernel_xids(*log);
  } else if (auto journal = view.kernel_journal()) {
    facts.kernel_log_readable = true;
    facts.kernel_log_source = "journalctl -k";
    facts.xids = parse_kernel_xids(*journal);
  }
  return facts;
}

std::vector<std::string> find_monitors(const SystemView& view) {
  std::vector<std::string> found;
  auto entries = view.list("/proc");
  if (!entries) return found;
  for (const auto& pid : *entries) {
    if (!all_digits(pid)) continue;
    auto cmdline = view.read_file("/proc/" + pid + "/cmdline", 4096);
    if (!cmdline || cmdline->empty()) continue;
    std::vector<std::string> argv;
    std::size_t start = 0;
    while (start < cmdline->size()) {
      std::size_t end = cmdline->find('\0', start);
      if (end == std::string::npos) end = cmdline->size();
      argv.push_back(cmdline->substr(start, end - start));
      start = end + 1;
    }
    const std::string& program = argv.front();
    const std::string base = program.substr(program.rfind('/') == std::string::npos ? 0 : program.rfind('/') + 1);
    if (base != "gpuwatch") continue;
    for (std::size_t i = 1; i < argv.size(); ++i) {
      if (argv[i] == "serve" || argv[i] == "record") {
        found.push_back(fmt::format("{} (pid {})", argv[i], pid));
        break;
      }
    }
    if (found.size() >= 20) break;
  }
  return found;
}

MonitoringFacts gather_monitoring(const SystemView& view, const std::string& database) {
  namespace fs = std::filesystem;
  MonitoringFacts facts;
  facts.running = find_monitors(view);
  facts.database = database;
  if (database.empty()) return facts;
  std::error_code ec;
  if (auto bytes = fs::file_size(database, ec); !ec) facts.database_bytes = bytes;
  // The nearest folder that exists holds (or will hold) the database.
  fs::path folder = fs::path(database).parent_path();
  while (!folder.empty() && !fs::exists(folder, ec) && folder != folder.parent_path()) folder = folder.parent_path();
  if (folder.empty()) return facts;
  if (auto space = fs::space(folder, ec); !ec) {
    facts.free_bytes = space.available;
    facts.total_bytes = space.capacity;
  }
  return facts;
}

}  // namespace gpuwatch::doctor
