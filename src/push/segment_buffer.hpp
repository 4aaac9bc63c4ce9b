#pragma once
// The durable buffer between sampling and the receiver (after the Prometheus agent's WAL): each
// tick's compressed WriteRequest is one segment file, written to a temporary name and renamed, so
// a crash leaves whole segments only. Its name carries what the bounds need without reading it:
//   <sequence:16 digits>-<timestamp ms>-<samples>.wr
// Segments are sent oldest first and removed once the receiver accepted them, so a series' samples
// reach it in time order. Bounded by total bytes and by age: the oldest segments go first, their
// samples counted as dropped. Not thread-safe: the pusher's thread alone uses it.
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>

#include "core/result.hpp"

namespace gpuwatch::push {

struct BufferLimits {
  std::uintmax_t max_bytes = std::uintmax_t{256} << 20;  // 256 MiB
  std::chrono::milliseconds max_age = std::chrono::hours(2);
};

struct Segment {
  std::filesystem::path path;
  std::uint64_t sequence = 0;
  std::int64_t timestamp_ms = 0;  // the samples' time
  std::uint64_t samples = 0;
  std::uintmax_t bytes = 0;
};

class SegmentBuffer {
 public:
  // Creates DIR (mode 0700) if needed and takes the segments a previous run left there.
  static core::Result<SegmentBuffer> open(const std::filesystem::path& dir, BufferLimits limits);

  core::Result<void> append(const std::string& body, std::int64_t timestamp_ms, std::uint64_t samples);
  const Segment* oldest() const { return segments_.empty() ? nullptr : &segments_.front(); }
  core::Result<std::string> read(const Segment& segment) const;  // the newest from memory
  void remove_oldest();
  // Removes the oldest segments while over max_bytes (counting INCOMING_BYTES, a segment about to
  // be appended, so the folder never holds more) or older than max_age at NOW_MS; returns the
  // samples they held (dropped).
  std::uint64_t enforce_limits(std::int64_t now_ms, std::uintmax_t incoming_bytes = 0);

  std::uint64_t pending_samples() const { return pending_samples_; }
  std::uintmax_t bytes() const { return bytes_; }
  std::size_t segment_count() const { return segments_.size(); }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  BufferLimits limits_;
  std::deque<Segment> segments_;
  std::uint64_t next_sequence_ = 1;
  std::uint64_t pending_samples_ = 0;
  std::uintmax_t bytes_ = 0;
  // The newest segment's body as appended: with the receiver up, the segment just written is the
  // one sent next, and is not read back from the disk (the file stays until it was accepted).
  std::uint64_t newest_sequence_ = 0;
  std::string newest_body_;
};

// "<seq>-<ts>-<samples>.wr" -> Segment (path and bytes unset); nullopt for other names.
std::optional<Segment> parse_segment_name(const std::string& name);

}  // namespace gpuwatch::push
