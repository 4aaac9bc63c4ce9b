#pragma once
// The scenario vocabulary (nvidia-smi --query-gpu names) as an enum, with the NVML
// function each key is served from. The table itself is query_keys.def.
#include <cstddef>
#include <optional>
#include <string_view>

namespace gpuwatch::sim {

enum class Key : unsigned short {
#define GW_SIM_KEY(id, name, source) id,
#include "sim/engine/query_keys.def"
#undef GW_SIM_KEY
};

inline constexpr std::size_t kKeyCount = 0
#define GW_SIM_KEY(id, name, source) +1
#include "sim/engine/query_keys.def"
#undef GW_SIM_KEY
    ;

struct KeyInfo {
  std::string_view name;         // query name, e.g. "power.draw"
  std::string_view nvml_source;  // e.g. "nvmlDeviceGetPowerUsage (mW = round(W*1000))"; empty: none
};

const KeyInfo& key_info(Key key);
inline std::size_t key_index(Key key) { return static_cast<std::size_t>(key); }
std::optional<Key> find_key(std::string_view query_name);

}  // namespace gpuwatch::sim
