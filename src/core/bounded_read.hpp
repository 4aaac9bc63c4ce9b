#pragma once
// Input files read whole (replay series, `sim import` captures, scenarios) are read here
// (issue 16): regular files only, never more than a documented limit. A FIFO is refused
// without blocking on its open (O_NONBLOCK), /dev/zero or any device without reading a
// byte, and a file larger than the limit before it is read (and again if it grows while
// being read), each with an error that names the file and says what is wrong.
#include <cstddef>
#include <string>

#include "core/result.hpp"

namespace gpuwatch::core {

// The default limit of read_regular_file: 64 MiB (docs/security.md).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;
// Files a configuration names or is (web config, TLS certificates and keys, notify and
// --connect configs): 1 MiB. Secrets read from a file (token_file, password_file): 64 KiB.
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxSecretFileBytes = std::size_t{64} << 10;

// The whole of PATH when it is a regular file of at most MAX_BYTES. WHAT names the input in
// errors ("replay file", "capture").
Result<std::string> read_regular_file(const std::string& path, const std::string& what,
                                      std::size_t max_bytes = kMaxInputFileBytes);

// For a file a library opens by its path (curl's ca_file, the TLS files of --connect-config):
// the same checks without reading it (a regular file of at most MAX_BYTES), same messages.
Result<void> check_regular_file(const std::string& path, const std::string& what,
                                std::size_t max_bytes = kMaxConfigFileBytes);

}  // namespace gpuwatch::core
