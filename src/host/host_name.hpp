#pragma once
// This machine's name (gethostname), for labels and titles.
#include <string>

namespace gpuwatch::host {

// "" when the system cannot tell (callers choose their fallback).
std::string host_name();

}  // namespace gpuwatch::host
