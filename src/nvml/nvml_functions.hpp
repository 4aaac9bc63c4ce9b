#pragma once
// The raw NVML entry points, one function pointer per symbol of nvml_symbols.def
// (nullptr when the library does not export it). Filled by the dlopen loader from
// the real library, or by a test with in-process fakes (the seam).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "nvml/nvml_abi.h"

namespace gpuwatch::nvml {

struct NvmlFunctions {
#define GW_NVML_FN(name, params) nvmlReturn_t(*name) params = nullptr;
#include "nvml/nvml_symbols.def"
#undef GW_NVML_FN
  const char* (*nvmlErrorString)(nvmlReturn_t) = nullptr;
};

// A logical NVML function and its symbol names, newest first (_v3 -> _v2 -> plain).
struct SymbolFamily {
  std::string_view logical;              // e.g. "nvmlDeviceGetCount"
  std::vector<std::string_view> names;   // preference order
  bool required;                         // loading fails without one of them
};
// The families the loader knows (required ones: init, shutdown, count, handle by
// index, error string). Every other symbol is optional.
const std::vector<SymbolFamily>& symbol_families();

// Resolves every symbol of nvml_symbols.def through `lookup` (dlsym in production).
using SymbolLookup = std::function<void*(const char* name)>;
NvmlFunctions resolve_functions(const SymbolLookup& lookup);

// Names of required families none of whose symbols resolved (empty: loadable).
std::vector<std::string> missing_required(const NvmlFunctions& fns);

}  // namespace gpuwatch::nvml
