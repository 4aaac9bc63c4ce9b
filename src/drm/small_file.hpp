#pragma once
// Reading the small files of sysfs, hwmon and procfs, shared by the AMD and Intel backends: one
// open/read/close each, into a buffer on the caller's stack (no allocation on the sampling
// path), the errno kept for the reading's error. Sysfs attributes are at most a page; fdinfo
// files and gpu_metrics tables a few hundred bytes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::drm {

// A file's first bytes (at most CAPACITY): the text, or the errno that stopped the read (the
// bytes read before a failed read() stay in DATA/SIZE).
template <std::size_t Capacity>
struct FileBuffer {
  char data[Capacity];
  std::size_t size = 0;
  int error = 0;  // errno; 0: read
  std::string_view text() const { return {data, size}; }
  bool ok() const { return error == 0; }
};

// Reads PATH into BUF (at most CAPACITY bytes); returns errno (0 on success).
int read_file_into(const char* path, char* buf, std::size_t capacity, std::size_t* size);

template <std::size_t Capacity>
void read_file(const std::string& path, FileBuffer<Capacity>& out) {
  out.size = 0;
  out.error = path.empty() ? 2 /* ENOENT */ : read_file_into(path.c_str(), out.data, Capacity, &out.size);
}

// A whole small text file (at most 4 KiB), or nullopt and the errno when unreadable, for the
// rare reads off the sampling path (discovery, driver version).
std::optional<std::string> read_text_file(const std::string& path, int* error = nullptr);

// The text without surrounding whitespace, newlines and NULs.
std::string_view trimmed(std::string_view text);

// The value of KEY in "KEY=value" lines (uevent), trimmed, or nullopt.
std::optional<std::string_view> uevent_value(std::string_view text, std::string_view key);

// Whether PATH exists (any kind of file).
bool path_exists(const std::string& path);

// BENCH ONLY (bench/amd_sampling_bench.cpp): called with the path of every file
// read_file_into opens, when set, so a bench can record which files a sample reads and replay
// them bare. No production code sets it; unset it costs one relaxed load per read.
using ReadObserver = void (*)(const char* path);
void set_read_observer(ReadObserver observer);

}  // namespace gpuwatch::drm
