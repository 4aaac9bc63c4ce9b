#include "core/field_format.hpp"

#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <type_traits>

namespace gpuwatch::core {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

double to_double(const FieldValue& v) {
  return std::visit(
      [](const auto& x) -> double {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return 0.0;
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? 1.0 : 0.0;
        } else {
          return static_cast<double>(x);
        }
      },
      v);
}

unsigned long long to_ull(const FieldValue& v) {
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return *u;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<unsigned long long>(*i);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  return static_cast<unsigned long long>(std::llround(to_double(v)));
}

std::string integer_text(const FieldValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return fmt::format("{}", *i);
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return fmt::format("{}", *u);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return fmt::format("{}", std::llround(to_double(v)));
}

bool truthy(const FieldValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  return to_double(v) != 0.0;
}

std::string with_unit(std::string number, Display display, bool units) {
  if (!units) return number;
  return number + " " + std::string(display_unit_suffix(display));
}

const char* compute_mode_text(long long mode) {
  switch (mode) {
    case 0: return "Default";
    case 1: return "Exclusive_Thread";
    case 2: return "Prohibited";
    case 3: return "Exclusive_Process";
    default: return "Unknown";
  }
}

}  // namespace

std::string_view display_unit_suffix(Display display) {
  switch (display) {
    case Display::MiB: return "MiB";
    case Display::MHz: return "MHz";
    case Display::Watts: return "W";
    case Display::Percent:
    case Display::Percent2: return "%";
    case Display::Microseconds: return "us";
    case Display::Milliseconds: return "ms";
    case Display::Seconds: return "seconds";
    case Display::WattsPerSecond: return "W/s";
    case Display::Joules: return "J";
    case Display::KBps: return "KB/s";
    default: return "";
  }
}

std::string format_timestamp(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  return fmt::format("{:04}/{:02}/{:02} {:02}:{:02}:{:02}.{:03}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

std::string format_value(Display display, const FieldValue& value, bool units) {
  switch (display) {
    case Display::Text:
      if (const auto* s = std::get_if<std::string>(&value)) return *s;
      return integer_text(value);
    case Display::Integer:
    case Display::Celsius: return integer_text(value);
    case Display::MiB:
      return with_unit(fmt::format("{}", to_ull(value) / (1024ULL * 1024ULL)), display, units);
    case Display::MHz: return with_unit(fmt::format("{}", std::llround(to_double(value) / 1e6)), display, units);
    case Display::Watts:
    case Display::WattsPerSecond: return with_unit(fmt::format("{:.2f}", to_double(value)), display, units);
    case Display::Percent: return with_unit(fmt::format("{}", std::llround(to_double(value) * 100.0)), display, units);
    case Display::Percent2: return with_unit(fmt::format("{:.2f}", to_double(value) * 100.0), display, units);
    case Display::Microseconds:
      return with_unit(fmt::format("{}", std::llround(to_double(value) * 1e6)), display, units);
    case Display::Milliseconds:
      return with_unit(fmt::format("{}", std::llround(to_double(value) * 1e3)), display, units);
    case Display::Seconds: return with_unit(fmt::format("{}", std::llround(to_double(value))), display, units);
    case Display::Joules: return with_unit(fmt::format("{:.3f}", to_double(value)), display, units);
    case Display::KBps: return with_unit(fmt::format("{}", std::llround(to_double(value) / 1024.0)), display, units);
    case Display::EnabledDisabled: return truthy(value) ? "Enabled" : "Disabled";
    case Display::ActiveNotActive: return truthy(value) ? "Active" : "Not Active";
    case Display::YesNo: return truthy(value) ? "Yes" : "No";
    case Display::Hex64: return fmt::format("0x{:016X}", to_ull(value));
    case Display::Hex32: return fmt::format("0x{:08X}", to_ull(value));
    case Display::Hex16: return fmt::format("0x{:04X}", to_ull(value));
    case Display::Hex8: return fmt::format("0x{:02X}", to_ull(value));
    case Display::HexShort: return fmt::format("0x{:X}", to_ull(value));
    case Display::PState: return fmt::format("P{}", to_ull(value));
    case Display::ComputeMode: return compute_mode_text(static_cast<long long>(to_ull(value)));
    case Display::GpuOperationMode: {
      static constexpr const char* kNames[] = {"All On", "Compute", "Low Double Precision"};
      auto v = to_ull(value);
      return v < 3 ? kNames[v] : "Unknown";
    }
    case Display::DriverModel: {
      static constexpr const char* kNames[] = {"WDDM", "TCC", "MCDM"};
      auto v = to_ull(value);
      return v < 3 ? kNames[v] : "Unknown";
    }
    case Display::Timestamp: {
      // Seconds beyond system_clock's nanoseconds (the years 1678-2262), or not a number: the
      // number as it is, never an overflowing time point.
      const double seconds = to_double(value);
      if (!(std::fabs(seconds) < 9.2e9)) return fmt::format("{}", seconds);
      auto ms = std::chrono::milliseconds(std::llround(seconds * 1000.0));
      return format_timestamp(std::chrono::system_clock::time_point(ms));
    }
    case Display::RecoveryAction: {
      static constexpr const char* kNames[] = {"None", "GPU Reset", "Node Reboot", "Drain P2P", "Drain and Reset"};
      auto v = to_ull(value);
      return v < 5 ? kNames[v] : "Unknown";
    }
    case Display::FabricState: {
      static constexpr const char* kNames[] = {"Not Supported", "Not Started", "In Progress", "Completed"};
      auto v = to_ull(value);
      return v < 4 ? kNames[v] : "Unknown";
    }
  }
  return integer_text(value);
}

std::string format_cell(const FieldInfo& info, const FieldReading& reading, const Snapshot& snapshot,
                        CsvStyle style) {
  if (reading.ok()) return format_value(info.display, *reading.value, style.units);
  const char* na = info.na == NaText::Plain ? "N/A" : "[N/A]";
  switch (reading.status) {
    case FieldStatus::NoPermission:
    case FieldStatus::Failed: return "[" + snapshot.error_string(reading.vendor_code) + "]";
    case FieldStatus::NotSupported:
      // nvidia-smi prints "[N/A]" for NOT_SUPPORTED and the error string for the rest
      // (e.g. "[Requested functionality has been deprecated]").
      if (reading.reason != ErrorReason::None && reading.reason != ErrorReason::NotSupported) {
        return "[" + snapshot.error_string(reading.vendor_code) + "]";
      }
      return na;
    default: return na;
  }
}

}  // namespace gpuwatch::core
