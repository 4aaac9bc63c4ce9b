#pragma once
// A Unix time in milliseconds as the reader's wall clock shows it: "2026-11-30 14:05:09"
// (local time zone, seconds), as job and owner headings in history and reports print it.
#include <cstdint>
#include <string>

namespace gpuwatch::core {

std::string format_local_time(std::int64_t unix_ms);

}  // namespace gpuwatch::core
