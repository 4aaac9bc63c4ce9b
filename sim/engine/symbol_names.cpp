#include "sim/engine/symbol_names.hpp"

#include <array>

namespace gpuwatch::sim {
namespace {
constexpr std::array<std::string_view, kFnCount> kNames = {
#define GW_NVML_FN(name, params) #name,
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
    "nvmlErrorString"};
}  // namespace

std::string_view fn_name(Fn fn) { return kNames[static_cast<std::size_t>(fn)]; }

std::optional<Fn> find_fn(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<Fn>(i);
  return std::nullopt;
}

}  // namespace gpuwatch::sim
