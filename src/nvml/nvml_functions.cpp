#include "nvml/nvml_functions.hpp"

#include <algorithm>
#include <map>

namespace gpuwatch::nvml {
namespace {

// "nvmlDeviceGetCount_v2" -> ("nvmlDeviceGetCount", 2); plain names have version 1.
std::pair<std::string_view, int> split_version(std::string_view name) {
  auto pos = name.rfind("_v");
  if (pos != std::string_view::npos && pos + 2 < name.size()) {
    auto digits = name.substr(pos + 2);
    if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return {name.substr(0, pos), std::stoi(std::string(digits))};
    }
  }
  return {name, 1};
}

std::vector<SymbolFamily> build_families() {
  static constexpr std::string_view kAll[] = {
#define GW_NVML_FN(name, params) #name,
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
  };
  std::map<std::string_view, std::vector<std::pair<int, std::string_view>>> grouped;
  for (auto name : kAll) {
    auto [logical, version] = split_version(name);
    grouped[logical].emplace_back(version, name);
  }
  std::vector<SymbolFamily> out;
  for (auto& [logical, versions] : grouped) {
    std::sort(versions.begin(), versions.end(), [](auto& a, auto& b) { return a.first > b.first; });
    SymbolFamily family{logical, {}, false};
    for (auto& v : versions) family.names.push_back(v.second);
    if (logical == "nvmlInit") family.names.push_back("nvmlInitWithFlags");  // pynvml's only init
    family.required = logical == "nvmlInit" || logical == "nvmlShutdown" || logical == "nvmlDeviceGetCount" ||
                      logical == "nvmlDeviceGetHandleByIndex";
    out.push_back(std::move(family));
  }
  out.push_back(SymbolFamily{"nvmlErrorString", {"nvmlErrorString"}, true});
  return out;
}

template <typename Fn>
void assign(Fn*& slot, void* symbol) {
  slot = reinterpret_cast<Fn*>(symbol);  // NOLINT: dlsym returns object pointers
}

}  // namespace

const std::vector<SymbolFamily>& symbol_families() {
  static const std::vector<SymbolFamily> families = build_families();
  return families;
}

NvmlFunctions resolve_functions(const SymbolLookup& lookup) {
  NvmlFunctions fns;
#define GW_NVML_FN(name, params) assign(fns.name, lookup(#name));
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
  assign(fns.nvmlErrorString, lookup("nvmlErrorString"));
  return fns;
}

std::vector<std::string> missing_required(const NvmlFunctions& fns) {
  std::vector<std::string> missing;
  if (!fns.nvmlInit_v2 && !fns.nvmlInit && !fns.nvmlInitWithFlags) missing.emplace_back("nvmlInit");
  if (!fns.nvmlShutdown) missing.emplace_back("nvmlShutdown");
  if (!fns.nvmlDeviceGetCount_v2 && !fns.nvmlDeviceGetCount) missing.emplace_back("nvmlDeviceGetCount");
  if (!fns.nvmlDeviceGetHandleByIndex_v2 && !fns.nvmlDeviceGetHandleByIndex) {
    missing.emplace_back("nvmlDeviceGetHandleByIndex");
  }
  if (!fns.nvmlErrorString) missing.emplace_back("nvmlErrorString");
  return missing;
}

}  // namespace gpuwatch::nvml
