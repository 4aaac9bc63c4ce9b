#pragma once
// One field reading: a value, or the reason it is absent. Absent is never zero.
//
// Values in the core are in BASE units (see Unit): bytes, hertz, watts, degrees
// Celsius, ratios 0..1 (may exceed 1, e.g. fan speed), seconds. A vendor's units (NVML's
// mW, MHz, KiB/s, percent and ns) are converted in its backend only (src/nvml for NVIDIA). Display code converts back
// to nvidia-smi's units (MiB, MHz, W, %, us) generically through the field's
// Display kind (core/field_format.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "core/read_error.hpp"

namespace gpuwatch::core {

// Every field gpuwatch knows, in field-table order. Generated from
// core/field_list.def; FieldId::X is the row whose id column is X.
enum class FieldId : std::uint16_t {
#define GW_FIELD(id, name, aliases, unit, display, na, json_key, source, arg, claimed, description) id,
#include "core/field_list.def"
#undef GW_FIELD
};
inline constexpr std::size_t kFieldCount = 0
#define GW_FIELD(id, name, aliases, unit, display, na, json_key, source, arg, claimed, description) +1
#include "core/field_list.def"
#undef GW_FIELD
    ;
constexpr std::size_t index_of(FieldId id) { return static_cast<std::size_t>(id); }

// Why a reading has (or has no) value. Rule 1 of STYLE's error handling.
enum class FieldStatus : std::uint8_t {
  Ok,               // value present
  NotSupported,     // the GPU/driver does not support it (ErrorReason NotSupported, Deprecated); cached
  NoPermission,     // ErrorReason NoPermission
  FunctionMissing,  // the vendor library lacks the call; cached
  NotApplicable,    // the call succeeded but the value means nothing here (sanity rule)
  Failed,           // transient failure (any other reason); retried next sample
  NotRead,          // not requested in this sample
};

const char* to_string(FieldStatus status);

// Base unit of a field's value in the core.
enum class Unit : std::uint8_t { None, Bytes, Hertz, Watts, Celsius, Ratio, Seconds, Joules, BytesPerSecond };

// The value of a field. Integers that can be negative use int64; counters and
// sizes uint64; measured quantities double; identity and versions string; flags bool.
using FieldValue = std::variant<std::int64_t, std::uint64_t, double, std::string, bool>;

struct FieldReading {
  std::optional<FieldValue> value;            // present iff status == Ok
  FieldStatus status = FieldStatus::NotRead;
  // Why it is absent (None when Ok): the reason, and the vendor's code behind it (its error
  // text; 0 if none). Two plain members, not a ReadError, so a reading stays 56 bytes.
  ErrorReason reason = ErrorReason::None;
  int vendor_code = 0;

  ReadError error() const { return ReadError{reason, vendor_code}; }

  bool ok() const { return status == FieldStatus::Ok && value.has_value(); }
  // Numeric view of any numeric value (bool -> 0/1); nullopt if absent or a string.
  std::optional<double> as_double() const;
  std::optional<std::uint64_t> as_uint() const;
  std::optional<std::int64_t> as_int() const;
  std::optional<std::string> as_string() const;  // strings only
  std::optional<bool> as_bool() const;           // bool only

  static FieldReading of(FieldValue v) { return FieldReading{std::move(v), FieldStatus::Ok, ErrorReason::None, 0}; }
  static FieldReading absent(FieldStatus s, ReadError e = {}) { return FieldReading{std::nullopt, s, e.reason, e.vendor_code}; }
};

}  // namespace gpuwatch::core
