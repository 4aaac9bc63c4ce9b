#pragma once
// The NVML functions the stand-in driver exports (src/nvml/nvml_symbols.def), as an
// enum usable for per-function fault tables, and their names.
#include <cstddef>
#include <optional>
#include <string_view>

namespace gpuwatch::sim {

enum class Fn : unsigned short {
#define GW_NVML_FN(name, params) name,
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
  nvmlErrorString,
  kCount
};
inline constexpr std::size_t kFnCount = static_cast<std::size_t>(Fn::kCount);

std::string_view fn_name(Fn fn);
std::optional<Fn> find_fn(std::string_view name);
inline bool is_nvml_symbol(std::string_view name) { return find_fn(name).has_value(); }

}  // namespace gpuwatch::sim
