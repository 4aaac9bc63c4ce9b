#pragma once
// What the Python package takes from the diagnose engine rather than repeating it: named
// thresholds (diagnose/thresholds.hpp) and each kind's advice (diagnose/kinds.cpp).
#include <optional>
#include <string_view>

namespace gpuwatch::capi {

// "input_starved.info_share" -> 0.05; nullopt for an unknown name.
std::optional<double> diagnose_threshold(std::string_view name);

// Line INDEX of the advice for kind ID ("input_starved"); nullopt past the end or for an unknown kind.
std::optional<std::string_view> diagnose_advice(std::string_view kind_id, std::size_t index);

}  // namespace gpuwatch::capi
