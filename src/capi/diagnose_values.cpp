#include "capi/diagnose_values.hpp"

#include <utility>

#include "diagnose/kinds.hpp"
#include "diagnose/thresholds.hpp"

namespace gpuwatch::capi {
namespace {

namespace t = diagnose::thresholds;
constexpr std::pair<std::string_view, double> kThresholds[] = {
    {"input_starved.info_share", t::kStarvedInfoShare},
    {"input_starved.warn_share", t::kStarvedWarnShare},
    {"input_starved.exit_share", t::kStarvedExitShare},
    {"input_starved.min_gaps", t::kStarvedMinGaps},
    {"input_starved.min_busy_share", t::kStarvedMinBusyShare},
};

}  // namespace

std::optional<double> diagnose_threshold(std::string_view name) {
  for (const auto& [key, value] : kThresholds)
    if (key == name) return value;
  return std::nullopt;
}

std::optional<std::string_view> diagnose_advice(std::string_view kind_id, std::size_t index) {
  for (const auto& info : diagnose::kind_table())
    if (info.id == kind_id) return index < info.advice.size() ? std::optional(info.advice[index]) : std::nullopt;
  return std::nullopt;
}

}  // namespace gpuwatch::capi
