#include "core/field_table.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>

#include "core/field_format.hpp"

namespace gpuwatch::core {
namespace {

constexpr FieldInfo kFields[] = {
#define GW_FIELD(id, name, aliases, unit, display, na, json_key, source, arg, claimed, description) \
  FieldInfo{FieldId::id, name, aliases, Unit::unit, Display::display, NaText::na, json_key, Source::source, arg, claimed, description},
#include "core/field_list.def"
#undef GW_FIELD
};
static_assert(std::size(kFields) == kFieldCount);

constexpr AppFieldInfo kAppFields[] = {
    {AppFieldId::Timestamp, "timestamp", "", Display::Timestamp, "timestamp_s", "When the sample was taken"},
    {AppFieldId::GpuName, "gpu_name", "", Display::Text, "gpu_name", "Product name of the GPU the process runs on"},
    {AppFieldId::GpuBusId, "gpu_bus_id", "", Display::Text, "gpu_bus_id", "PCI address of that GPU"},
    {AppFieldId::GpuSerial, "gpu_serial", "", Display::Text, "gpu_serial", "Board serial number of that GPU"},
    {AppFieldId::GpuUuid, "gpu_uuid", "", Display::Text, "gpu_uuid", "Unique identifier of that GPU"},
    {AppFieldId::Pid, "pid", "", Display::Integer, "pid", "Process id (as the driver sees it: host pid)"},
    {AppFieldId::ProcessName, "process_name", "name", Display::Text, "process_name", "Process name or path"},
    {AppFieldId::UsedGpuMemory, "used_gpu_memory", "used_memory", Display::MiB, "used_gpu_memory_bytes",
     "GPU memory the process holds"},
};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::vector<std::string_view> split_aliases(std::string_view aliases) {
  std::vector<std::string_view> out;
  while (!aliases.empty()) {
    auto bar = aliases.find('|');
    out.push_back(aliases.substr(0, bar));
    if (bar == std::string_view::npos) break;
    aliases.remove_prefix(bar + 1);
  }
  return out;
}

template <typename Table, typename Id>
std::optional<Id> find_in(const Table& table, std::string_view query_name) {
  for (const auto& f : table) {
    if (f.name == query_name) return f.id;
    for (auto a : split_aliases(f.aliases)) {
      if (a == query_name) return f.id;
    }
  }
  std::string wanted = lower(query_name);  // nvidia-smi accepts any case
  for (const auto& f : table) {
    if (lower(f.name) == wanted) return f.id;
    for (auto a : split_aliases(f.aliases)) {
      if (lower(a) == wanted) return f.id;
    }
  }
  return std::nullopt;
}

std::string header_for(std::string_view name, Display display) {
  std::string_view suffix = display_unit_suffix(display);
  std::string out(name);
  if (!suffix.empty()) (out += " [").append(suffix) += "]";
  return out;
}

}  // namespace

std::string FieldInfo::csv_header() const { return header_for(name, display); }
std::string AppFieldInfo::csv_header() const { return header_for(name, display); }
std::vector<std::string_view> FieldInfo::alias_list() const { return split_aliases(aliases); }
std::vector<std::string_view> AppFieldInfo::alias_list() const { return split_aliases(aliases); }

std::span<const FieldInfo> field_table() { return kFields; }
const FieldInfo& field_info(FieldId id) { return kFields[index_of(id)]; }
std::optional<FieldId> find_field(std::string_view query_name) {
  return find_in<decltype(kFields), FieldId>(kFields, query_name);
}

std::span<const AppFieldInfo> app_field_table() { return kAppFields; }
std::optional<AppFieldId> find_app_field(std::string_view query_name) {
  return find_in<decltype(kAppFields), AppFieldId>(kAppFields, query_name);
}

}  // namespace gpuwatch::core

namespace gpuwatch::core {
std::string_view FieldInfo::unit_suffix() const { return display_unit_suffix(display); }
}  // namespace gpuwatch::core
