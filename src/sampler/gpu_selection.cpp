#include "sampler/gpu_selection.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include "sampler/sampler.hpp"

namespace gpuwatch::sampler {

core::Result<std::vector<unsigned>> parse_gpu_indices(const std::string& list) {
  std::vector<unsigned> indices;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
      return core::make_error(fmt::format("-i: '{}' is not a GPU index (use e.g. -i 0,2)", item));
    }
    indices.push_back(value);
  }
  if (indices.empty()) return core::make_error("-i needs at least one GPU index");
  return indices;
}

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// "00000000:18:00.0" matches "0000:18:00.0" and "18:00.0" (nvidia-smi accepts both).
bool same_bus_id(const std::string& full, const std::string& given) {
  std::string a = lower(full), b = lower(given);
  return a.size() >= b.size() && a.compare(a.size() - b.size(), b.size(), b) == 0 && b.find(':') != std::string::npos;
}

core::Result<unsigned> resolve_one(const std::string& id, const core::Snapshot& identities) {
  unsigned index = 0;
  auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), index);
  if (!id.empty() && ec == std::errc() && end == id.data() + id.size()) return index;
  std::vector<unsigned> matches;
  for (const auto& device : identities.devices) {
    auto uuid = device.get(core::FieldId::Uuid).as_string();
    auto bus = device.get(core::FieldId::PciBusId).as_string();
    bool by_uuid = uuid && id.size() >= 5 && lower(*uuid).rfind(lower(id), 0) == 0;
    if (by_uuid || (bus && same_bus_id(*bus, id))) matches.push_back(device.index);
  }
  if (matches.size() == 1) return matches.front();
  return core::make_error(matches.empty() ? fmt::format("-i: no GPU has the index, UUID or PCI bus id '{}'", id)
                                          : fmt::format("-i: '{}' matches more than one GPU", id));
}

}  // namespace

core::Result<std::vector<unsigned>> resolve_gpu_ids(const std::string& list, const core::Snapshot& identities) {
  std::vector<unsigned> indices;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto index = resolve_one(item, identities);
    if (!index) return index.error();
    indices.push_back(*index);
  }
  if (indices.empty()) return core::make_error("-i needs at least one GPU");
  return indices;
}

core::Result<std::vector<unsigned>> resolve_gpu_ids(const std::string& list, const backend::DeviceBackend& backend) {
  if (list.empty()) return std::vector<unsigned>{};
  if (auto plain = parse_gpu_indices(list)) return plain;  // no driver call needed
  SampleOptions options;
  options.fields = {core::FieldId::Uuid, core::FieldId::PciBusId};
  return resolve_gpu_ids(list, sample(backend, options));
}

}  // namespace gpuwatch::sampler
