#include "sim/engine/query_keys.hpp"

#include <array>
#include <string>
#include <unordered_map>

namespace gpuwatch::sim {
namespace {

constexpr std::array<KeyInfo, kKeyCount> kKeys = {{
#define GW_SIM_KEY(id, name, source) KeyInfo{name, source},
#include "sim/engine/query_keys.def"
#undef GW_SIM_KEY
}};

// nvidia-smi accepts older aliases for some names; imports and scenarios may use them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kAliases = {{
    {"gpu_name", "name"},
    {"gpu_serial", "serial"},
    {"gpu_uuid", "uuid"},
    {"gpu_bus_id", "pci.bus_id"},
    {"inforom.image", "inforom.img"},
    {"inforom.power", "inforom.pwr"},
    {"gpu_operation_mode.current", "gom.current"},
    {"gpu_operation_mode.pending", "gom.pending"},
    {"retired_pages.sbe", "retired_pages.single_bit_ecc.count"},
    {"retired_pages.dbe", "retired_pages.double_bit.count"},
    {"remapped_rows.sbe", "remapped_rows.correctable"},
    {"remapped_rows.dbe", "remapped_rows.uncorrectable"},
}};

}  // namespace

const KeyInfo& key_info(Key key) { return kKeys[key_index(key)]; }

std::optional<Key> find_key(std::string_view query_name) {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string, Key>();
    for (std::size_t i = 0; i < kKeys.size(); ++i) (*m)[std::string(kKeys[i].name)] = static_cast<Key>(i);
    return m;
  }();
  std::string name(query_name);
  if (name.rfind("clocks_throttle_reasons.", 0) == 0) name = "clocks_event_reasons." + name.substr(24);
  for (const auto& [alias, canonical] : kAliases)
    if (name == alias) name = std::string(canonical);
  auto it = index->find(name);
  if (it == index->end()) return std::nullopt;
  return it->second;
}

}  // namespace gpuwatch::sim
