#pragma once
// The AMD backend's names for the shared small-file reader (drm/small_file.hpp): one
// open/read/close into a buffer on the caller's stack, no allocation on the sampling path.
#include "drm/small_file.hpp"

namespace gpuwatch::amd {

using drm::FileBuffer;
using drm::path_exists;
using drm::read_file;
using drm::read_file_into;
using drm::read_text_file;
using drm::trimmed;

}  // namespace gpuwatch::amd
