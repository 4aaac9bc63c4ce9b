#include "jobs/visible_devices.hpp"

#include <cctype>
#include <charconv>

namespace gpuwatch::jobs {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<VisibleDevice> parse_entry(std::string_view entry) {
  VisibleDevice device;
  if (entry.rfind("GPU-", 0) == 0 && entry.size() > 4) {
    device.kind = VisibleDevice::Kind::GpuUuid;
    device.uuid = std::string(entry);
    return device;
  }
  if (entry.rfind("MIG-", 0) == 0 && entry.size() > 4) {
    device.kind = VisibleDevice::Kind::MigUuid;
    device.uuid = std::string(entry);
    return device;
  }
  unsigned index = 0;
  auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), index);
  if (ec != std::errc() || end != entry.data() + entry.size() || entry.empty()) return std::nullopt;
  device.index = index;
  return device;
}

bool uuid_matches(std::string_view written, std::string_view actual) {
  return !actual.empty() && actual.rfind(written, 0) == 0;  // a unique prefix is enough, as for CUDA
}

}  // namespace

VisibleDevices parse_visible_devices(std::optional<std::string_view> value) {
  VisibleDevices out;
  if (!value) return out;
  out.restricted = true;
  std::string_view rest = *value;
  while (!trim(rest).empty()) {
    std::size_t comma = rest.find(',');
    std::string_view entry = trim(rest.substr(0, comma));
    auto device = parse_entry(entry);
    if (!device) {  // "-1", "abc", "": CUDA ignores this entry and every later one
      out.ignored = std::string(trim(rest));
      break;
    }
    out.devices.push_back(std::move(*device));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

bool is_visible(const VisibleDevices& visible, unsigned index, std::string_view gpu_uuid,
                std::optional<std::string_view> mig_uuid) {
  if (!visible.restricted) return true;
  for (const auto& d : visible.devices) {
    switch (d.kind) {
      case VisibleDevice::Kind::Index:
        if (d.index == index) return true;
        break;
      case VisibleDevice::Kind::GpuUuid:
        if (uuid_matches(d.uuid, gpu_uuid)) return true;
        break;
      case VisibleDevice::Kind::MigUuid:
        if (mig_uuid && uuid_matches(d.uuid, *mig_uuid)) return true;
        break;
    }
  }
  return false;
}

}  // namespace gpuwatch::jobs
