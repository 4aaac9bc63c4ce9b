#pragma once
// Reads of the small text files the i915 and xe drivers keep in sysfs, hwmon and procfs, on the
// shared small-file reader (drm/small_file.hpp): one open/read/close into a stack buffer, no
// allocation beyond the caller's string. A failure is the errno (ENOENT: the file is absent,
// EACCES: not allowed), which becomes the field's reason (intel_errors.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "drm/small_file.hpp"

namespace gpuwatch::intel {

// A file's value or the errno that kept it from being read (EINVAL: not a number).
template <typename T>
struct FileValue {
  std::optional<T> value;
  int error = 0;
  explicit operator bool() const { return value.has_value(); }
};

// The whole of PATH (at most 4 KiB; sysfs files are smaller), trailing newline removed.
FileValue<std::string> read_text_file(const std::string& path);
// The first number of PATH (decimal, or hex after "0x").
FileValue<std::uint64_t> read_number_file(const std::string& path);
// Same, signed (hwmon temperatures may be negative).
FileValue<std::int64_t> read_signed_file(const std::string& path);

// The value of KEY in "KEY=value" lines (uevent), or nullopt.
using drm::uevent_value;
// Whether PATH exists (a file or directory).
using drm::path_exists;

}  // namespace gpuwatch::intel
