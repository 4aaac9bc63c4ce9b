#pragma once
// The finding kinds: stable ids (they appear in JSON, /metrics and docs/diagnose.md) and, per
// kind, its category, its words (title, phrase, the report's sentence and timeline event) and
// its default advice. Declared once, one row per kind, in kinds.def: the enum, kKindCount and
// kind_table() are made of it.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/read_error.hpp"

namespace gpuwatch::diagnose {

enum class Kind : unsigned char {
#define GW_KIND(enumerator, id, category, urgency, store_share, title, phrase, summary, timeline, ...) enumerator,
#include "diagnose/kinds.def"
#undef GW_KIND
};
inline constexpr std::size_t kKindCount = 0
#define GW_KIND(enumerator, id, category, urgency, store_share, title, phrase, summary, timeline, ...) +1
#include "diagnose/kinds.def"
#undef GW_KIND
    ;

// The check family that evaluates a kind (kinds.def says which file each is).
enum class Category : unsigned char { Utilization, Throttle, Memory, Hardware, Job };
// Where a kind comes in the summary's order (problem_order.hpp).
enum class Urgency : unsigned char { Normal, Urgent, UrgentIfCritical };
// The share of a range the recorded history counts for a kind (store::GpuSummary's).
enum class StoreShare : unsigned char { None, Thermal, PowerCapped, HeldBack };

// The generic summary sentence (kinds.def's summary column): the finding's own summary, when
// and how long. A kind said by it is said by its grouped summary when it had several episodes.
inline constexpr std::string_view kSaidBySummary = "{gpus}: {summary} (from {start}, {duration}{still}){impact}.";

struct KindInfo {
  Kind kind;
  std::string_view id;                  // "input_starved"
  Category category;
  Urgency urgency;
  StoreShare store_share;
  std::string_view title;               // "The input pipeline starves the GPU"
  std::string_view phrase;              // "input starvation"
  std::string_view summary_sentence;    // "{gpus} spent {share} thermally throttled{clock}{hottest}."
  std::string_view timeline_event;      // "finding", "ecc", "lost", "hardware"; "" left out
  std::vector<std::string_view> advice;
};

std::span<const KindInfo> kind_table();  // in Kind order: kind_table()[i].kind == Kind(i)
const KindInfo& kind_info(Kind kind);
std::string_view kind_id(Kind kind);
std::vector<std::string> default_advice(Kind kind);
// The default advice in VENDOR's words (vendor_advice.cpp, issue 28): NVIDIA's is kinds.def's; an AMD
// GPU's names amd-smi / rocm-smi, an Intel GPU's xpu-smi, where kinds.def's names nvidia-smi.
std::vector<std::string> default_advice(Kind kind, core::Vendor vendor);
// Whether a kind can be raised for VENDOR's GPUs: Xid, persistence_off, row_remap and
// recovery_action are NVIDIA's driver's alone.
bool applies_to(Kind kind, core::Vendor vendor);
// The kind named in a sentence, lower case ("thermal throttling" in "thermal throttling in 288
// episodes").
std::string_view kind_phrase(Kind kind);
// The kind of a stable id ("thermal_throttle"), nullopt for an id this build does not know.
std::optional<Kind> kind_of_id(std::string_view id);

}  // namespace gpuwatch::diagnose
