#pragma once
// The generic part of a DRM file's fdinfo (Documentation/gpu/drm-usage-stats.rst), shared by
// the AMD and Intel backends: "key: value" lines, the keys every driver writes (drm-driver,
// drm-pdev, drm-client-id) and the numbers of the others (drm-engine-*, drm-cycles-*,
// drm-total-cycles-*, drm-memory-*, drm-total-*). What a driver's keys mean (amdgpu's gfx and
// compute ns, i915's ns, xe's cycles) stays in its backend. No allocation.
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch::drm {

// The keys every DRM driver writes; views into the parsed text.
struct FdinfoIdentity {
  std::string_view driver;                // drm-driver: "amdgpu", "i915", "xe"
  std::string_view pdev;                  // drm-pdev: "0000:c1:00.0"
  std::optional<std::uint64_t> client_id; // drm-client-id
};

// Parses TEXT: the identity keys into the result; every other "drm-*" key is passed, with its
// value without surrounding blanks, to OTHER(key, value) in the file's order (KEY keeps its
// "drm-" prefix). Lines without a colon and keys not starting with "drm-" are skipped.
template <typename Other>
FdinfoIdentity parse_fdinfo_keys(std::string_view text, Other&& other);

// "123", "123 ns", "4 KiB": the leading number times its unit (KiB, MiB, GiB; any other unit,
// or none, counts 1), or nullopt when VALUE does not start with a number.
std::optional<std::uint64_t> fdinfo_number(std::string_view value);
// The leading number of VALUE, its unit ignored.
std::optional<std::uint64_t> fdinfo_leading_number(std::string_view value);
// The value without surrounding blanks (spaces, tabs, \r, \n, NUL).
std::string_view fdinfo_value(std::string_view value);

// NAME as a decimal number (a /proc/<pid> or fdinfo/<fd> entry), or nullopt.
std::optional<std::uint32_t> numeric_name(const char* name);

template <typename Other>
FdinfoIdentity parse_fdinfo_keys(std::string_view text, Other&& other) {
  FdinfoIdentity out;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.substr(0, 4) != "drm-") continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = fdinfo_value(line.substr(colon + 1));
    if (key == "drm-driver") {
      out.driver = value;
    } else if (key == "drm-pdev") {
      out.pdev = value;
    } else if (key == "drm-client-id") {
      out.client_id = fdinfo_leading_number(value);
    } else {
      other(key, value);
    }
  }
  return out;
}

}  // namespace gpuwatch::drm
