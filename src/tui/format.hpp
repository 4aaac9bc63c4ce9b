#pragma once
// The small pieces a TUI line is made of, pure: bars, sparklines (history charts in block
// characters), and values in the units a person reads (GiB, MB/s, MHz, 1h02m). Absent prints N/A.
#include <optional>
#include <span>
#include <string>

namespace gpuwatch::tui {

inline constexpr const char* kNa = "N/A";

// A bar WIDTH columns wide filled to RATIO (clamped to 0..1), in eighth blocks ("█▌  ").
// Absent: WIDTH spaces with "N/A" in the middle when it fits.
std::string bar(std::optional<double> ratio, int width);

// One character per value, ▁..█ for 0..1 (clamped); absent values are spaces. The last WIDTH
// values, right-aligned (older ones fall off the left).
std::string sparkline(std::span<const std::optional<double>> values, int width);

std::string format_percent(std::optional<double> ratio);          // "99%"
std::string format_bytes(std::optional<double> bytes);            // "512MiB", "62.3GiB", "1.2TiB"
std::string format_bytes_pair(std::optional<double> used, std::optional<double> total);  // "62.3/79.6GiB"
std::string format_rate(std::optional<double> bytes_per_s);       // "850KB/s", "42MB/s", "1.2GB/s" (SI)
std::string format_watts(std::optional<double> watts);            // "588W"
std::string format_celsius(std::optional<double> celsius);        // "65°C"
std::string format_mhz(std::optional<double> hz);                 // "1965" (no unit)
std::string format_duration(std::optional<double> seconds);       // "59s", "12:05", "3h07m", "2d04h"
std::string format_age(double seconds);                           // "0.4s", "12s", "3m05s"

// TEXT padded with spaces (or cut, with "…") to exactly WIDTH columns; RIGHT aligns right.
std::string pad(const std::string& text, int width, bool right = false);

}  // namespace gpuwatch::tui
