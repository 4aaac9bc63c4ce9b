#pragma once
// Sizes on the command line of `record` (--max-size, --rotate-size): "500k", "100M",
// "1.5G", "2GiB", "4096" (bytes). Units are binary: k/K = KiB, M = MiB, G = GiB, T = TiB.
#include <cstdint>
#include <string>

#include "core/result.hpp"

namespace gpuwatch::recorder {

core::Result<std::int64_t> parse_byte_size(const std::string& text);

}  // namespace gpuwatch::recorder
