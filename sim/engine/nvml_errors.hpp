#pragma once
// nvmlErrorString texts exactly as the 535 driver returns them (nvml.md §1.2), and the
// reverse lookup used for bracketed error values in scenarios ("[Not Supported]").
#include <optional>
#include <string_view>

namespace gpuwatch::sim {

const char* nvml_error_text(int code) noexcept;
std::optional<int> nvml_error_from_text(std::string_view text);

}  // namespace gpuwatch::sim
