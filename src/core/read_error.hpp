#pragma once
// Why a device read failed, in words every device backend shares (src/backend/): a reason the
// sampler and the checks act on, plus the vendor's own code, kept for the vendor's error text
// ("[GPU is lost]") and for the per-code error counters, so outputs stay those of the vendor.
// Each backend maps its codes to reasons in its own folder (NVML's in src/nvml/).
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch::core {

// The GPU vendor behind a device backend.
enum class Vendor : std::uint8_t { Nvidia, Amd, Intel };
const char* to_string(Vendor vendor);  // "nvidia", "amd", "intel"
// The vendor of its to_string text (a remote node's JSON, a history file); nullopt for another word.
std::optional<Vendor> vendor_from_string(std::string_view text);

// Each vendor's codes (ReadError::vendor_code) live in their own range, so texts and counters of
// several backends at once never share a code: NVML's return codes below 100000, AMD's backend's
// from 100000 (100000 + errno), Intel's from 200000 (200000 + errno; Level Zero's ze_result_t
// values, 0x70000000 and up, are above it already).
inline constexpr int kAmdCodeBase = 100000;
inline constexpr int kIntelCodeBase = 200000;
Vendor vendor_of_code(int vendor_code);

enum class ErrorReason : std::uint8_t {
  None,              // no error
  NotSupported,      // the device or driver does not support it
  Deprecated,        // supported once, no longer (shown with the vendor's text, not "[N/A]")
  NoPermission,      // not allowed to this user
  FunctionMissing,   // the vendor library lacks the call
  GpuLost,           // the GPU fell off the bus: stop asking it for a while
  Timeout,           // no answer in time (a hung GPU, or an event wait that timed out)
  NotFound,          // no such device, process or sample
  Uninitialized,     // the vendor library is not initialised
  DriverNotLoaded,   // no kernel driver
  DriverMismatch,    // the library and the kernel driver disagree on versions
  InsufficientSize,  // a buffer was too small (retried with a bigger one)
  Other,             // anything else (transient: retried next sample)
};
const char* to_string(ErrorReason reason);

// A read's error: Ok when reason is None. vendor_code is the vendor's raw code (0 for none).
struct ReadError {
  ErrorReason reason = ErrorReason::None;
  int vendor_code = 0;

  bool ok() const { return reason == ErrorReason::None; }
  bool operator==(const ReadError&) const = default;
};

}  // namespace gpuwatch::core
