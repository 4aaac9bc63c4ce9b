#pragma once
// Every file gpuwatch writes whole (report -o, sim import -o, top's config, a --csv/--jsonl
// log's new header after rotation...) is written here (issue 16): into a fresh temporary
// file that mkstemp creates in the target's own folder (O_CREAT|O_EXCL, so a symlink or
// file planted at a predictable name such as FILE.tmp is never followed nor overwritten),
// flushed with fsync, then renamed over the target. A reader sees the old file or the new
// one, never half of one; another user's link in a shared folder (/tmp) gains nothing.
#include <string>
#include <string_view>
#include <sys/types.h>

#include "core/result.hpp"

namespace gpuwatch::core {

// Replaces PATH by CONTENT atomically (mode MODE, less the umask). The error names PATH.
Result<void> write_file_atomically(const std::string& path, std::string_view content, mode_t mode = 0644);

// Opens PATH for appending without following a symlink at PATH (O_NOFOLLOW; created with
// MODE when missing, O_CLOEXEC). A file descriptor, or an error that names PATH.
Result<int> open_for_append(const std::string& path, mode_t mode = 0644);

}  // namespace gpuwatch::core
