#pragma once
// Base units of the core (W, ratio, Hz, bytes, C) -> the whole numbers that the
// terminal tables print (W, %, MHz, MiB, C). Absent stays absent.
#include <cstdint>
#include <optional>

#include "core/field.hpp"

namespace gpuwatch::terminal {

std::optional<std::int64_t> whole_watts(const core::FieldReading& reading);   // truncated, like mW / 1000
std::optional<std::int64_t> whole_percent(const core::FieldReading& reading); // ratio * 100, rounded
std::optional<std::int64_t> whole_percent(const std::optional<double>& ratio);
std::optional<std::int64_t> whole_mhz(const core::FieldReading& reading);     // rounded
std::optional<std::int64_t> whole_mib(const core::FieldReading& reading);     // truncated
std::optional<std::int64_t> whole_mib(const std::optional<std::uint64_t>& bytes);
std::optional<std::int64_t> whole_number(const core::FieldReading& reading);  // rounded (C, counts)

}  // namespace gpuwatch::terminal
