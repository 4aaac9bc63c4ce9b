#include "query/help.hpp"

#include <fmt/format.h>

#include "core/field_table.hpp"

namespace gpuwatch::query {
namespace {

std::string quoted_names(std::string_view name, const std::vector<std::string_view>& aliases) {
  std::string out = fmt::format("\"{}\"", name);
  for (auto a : aliases) out += fmt::format(" or \"{}\"", a);
  return out;
}

const char* unit_name(core::Unit unit) {
  switch (unit) {
    case core::Unit::Bytes: return "bytes";
    case core::Unit::Hertz: return "Hz";
    case core::Unit::Watts: return "W";
    case core::Unit::Celsius: return "°C";
    case core::Unit::Ratio: return "ratio 0-1";
    case core::Unit::Seconds: return "s";
    case core::Unit::Joules: return "J";
    case core::Unit::BytesPerSecond: return "bytes/s";
    case core::Unit::None: return "";
  }
  return "";
}

}  // namespace

std::string help_query_gpu_text() {
  std::string out =
      "List of valid properties to query for the switch \"--query-gpu\".\n"
      "Fields marked [not read] are accepted for compatibility and always print [N/A].\n"
      "Fields described as \"gpuwatch extension\" are gpuwatch's own: nvidia-smi has no such name.\n\n";
  for (const auto& f : core::field_table()) {
    out += quoted_names(f.name, f.alias_list()) + "\n";
    out += fmt::format("{}{}\n\n", f.description, f.claimed ? "" : " [not read]");
  }
  return out;
}

std::string help_query_compute_apps_text() {
  std::string out = "List of valid properties to query for the switch \"--query-compute-apps\".\n\n";
  for (const auto& f : core::app_field_table()) {
    out += quoted_names(f.name, f.alias_list()) + "\n" + std::string(f.description) + "\n\n";
  }
  return out;
}

std::string fields_markdown() {
  std::string out =
      "# Fields\n\n"
      "Generated from `src/core/field_list.def` by `gpuwatch query --help-query-gpu --format=md`; do not edit.\n"
      "`--query-gpu` accepts the name or any alias. \"Read\" = the value comes from NVML (otherwise the field is\n"
      "accepted for nvidia-smi compatibility and answers `[N/A]`). JSON values are in the JSON key's unit;\n"
      "absent values are `null`. Descriptions starting with \"gpuwatch extension\" mark gpuwatch's own fields:\n"
      "nvidia-smi has no such query name (scripts that must also run on nvidia-smi cannot use them).\n\n"
      "| Field | Aliases | CSV header | JSON key | Unit (JSON) | Read | Description |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& f : core::field_table()) {
    std::string aliases;
    for (auto a : f.alias_list()) aliases += (aliases.empty() ? "" : ", ") + fmt::format("`{}`", a);
    out += fmt::format("| `{}` | {} | `{}` | `{}` | {} | {} | {} |\n", f.name, aliases, f.csv_header(), f.json_key,
                       unit_name(f.unit), f.claimed ? "yes" : "no", f.description);
  }
  return out;
}

}  // namespace gpuwatch::query
