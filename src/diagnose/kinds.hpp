#pragma once
// The finding kinds: stable ids (they appear in JSON, /metrics and docs/diagnose.md) and,
// per kind, a title and the default advice. One table, kinds.cpp.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::diagnose {

enum class Kind : unsigned char {
  InputStarved, LaunchBound, LowUtilization, Imbalance,
  ThermalThrottle, PowerCap, OtherThrottle,
  MemoryLeak, MemoryPressure, IdleProcess, StuckKernel, UnattributedMemory,
  EccUncorrectable, RowRemap, Xid, GpuLost, RecoveryAction, PcieDegraded,
  CollectiveHang,  // job-level: the ranks of one job spin in a collective (issue 23)
};
inline constexpr std::size_t kKindCount = static_cast<std::size_t>(Kind::CollectiveHang) + 1;

struct KindInfo {
  Kind kind;
  std::string_view id;      // "input_starved"
  std::string_view title;   // "Input pipeline starves the GPU"
  std::vector<std::string_view> advice;
};

std::span<const KindInfo> kind_table();
const KindInfo& kind_info(Kind kind);
std::string_view kind_id(Kind kind);
std::vector<std::string> default_advice(Kind kind);
// The kind named in a sentence, lower case ("thermal throttling" in "thermal throttling in 288
// episodes"); a switch without default, so a new kind without words is a compiler warning.
std::string_view kind_phrase(Kind kind);
// The kind of a stable id ("thermal_throttle"), nullopt for an id this build does not know.
std::optional<Kind> kind_of_id(std::string_view id);

}  // namespace gpuwatch::diagnose
