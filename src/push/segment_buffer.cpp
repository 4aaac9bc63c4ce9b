#include "push/segment_buffer.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "core/bounded_read.hpp"

namespace gpuwatch::push {
namespace {

namespace fs = std::filesystem;

template <typename Int>
bool parse_segment_number(std::string_view text, Int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// A segment is at most a tick's request: far below this.
constexpr std::size_t kMaxSegmentBytes = std::size_t{64} << 20;

}  // namespace

std::optional<Segment> parse_segment_name(const std::string& name) {
  if (name.size() < 4 || name.substr(name.size() - 3) != ".wr") return std::nullopt;
  const std::string_view stem(name.data(), name.size() - 3);
  const auto first = stem.find('-');
  const auto second = stem.find('-', first == std::string_view::npos ? 0 : first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos) return std::nullopt;
  Segment s;
  if (!parse_segment_number(stem.substr(0, first), s.sequence) ||
      !parse_segment_number(stem.substr(first + 1, second - first - 1), s.timestamp_ms) ||
      !parse_segment_number(stem.substr(second + 1), s.samples)) {
    return std::nullopt;
  }
  return s;
}

core::Result<SegmentBuffer> SegmentBuffer::open(const fs::path& dir, BufferLimits limits) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return core::make_error("remote-write buffer " + dir.string() + ": cannot create: " + ec.message());
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  SegmentBuffer buffer;
  buffer.dir_ = dir;
  buffer.limits_ = limits;
  std::vector<Segment> found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".tmp-")) {  // a write a crash cut short
      fs::remove(entry.path(), ec);
      continue;
    }
    auto segment = parse_segment_name(name);
    if (!segment || !entry.is_regular_file()) continue;
    segment->path = entry.path();
    segment->bytes = entry.file_size(ec);
    found.push_back(std::move(*segment));
  }
  if (ec) return core::make_error("remote-write buffer " + dir.string() + ": cannot list: " + ec.message());
  std::sort(found.begin(), found.end(), [](const Segment& a, const Segment& b) { return a.sequence < b.sequence; });
  for (auto& s : found) {
    buffer.pending_samples_ += s.samples;
    buffer.bytes_ += s.bytes;
    buffer.next_sequence_ = s.sequence + 1;
    buffer.segments_.push_back(std::move(s));
  }
  return buffer;
}

core::Result<void> SegmentBuffer::append(const std::string& body, std::int64_t timestamp_ms, std::uint64_t samples) {
  Segment s;
  s.sequence = next_sequence_;
  s.timestamp_ms = timestamp_ms;
  s.samples = samples;
  s.bytes = body.size();
  s.path = dir_ / fmt::format("{:016}-{}-{}.wr", s.sequence, timestamp_ms, samples);
  const fs::path temporary = dir_ / (".tmp-" + s.path.filename().string());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      return core::make_error("remote-write buffer: cannot write " + temporary.string() + " (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(temporary, s.path, ec);
  if (ec) return core::make_error("remote-write buffer: cannot rename " + temporary.string() + ": " + ec.message());
  ++next_sequence_;
  newest_sequence_ = s.sequence;
  newest_body_ = body;
  pending_samples_ += s.samples;
  bytes_ += s.bytes;
  segments_.push_back(std::move(s));
  return {};
}

core::Result<std::string> SegmentBuffer::read(const Segment& segment) const {
  if (newest_sequence_ != 0 && segment.sequence == newest_sequence_) return newest_body_;
  return core::read_regular_file(segment.path.string(), "remote-write segment", kMaxSegmentBytes);
}

void SegmentBuffer::remove_oldest() {
  if (segments_.empty()) return;
  std::error_code ignored;
  fs::remove(segments_.front().path, ignored);
  if (segments_.front().sequence == newest_sequence_) {
    newest_sequence_ = 0;
    newest_body_.clear();
  }
  pending_samples_ -= segments_.front().samples;
  bytes_ -= segments_.front().bytes;
  segments_.pop_front();
}

std::uint64_t SegmentBuffer::enforce_limits(std::int64_t now_ms, std::uintmax_t incoming_bytes) {
  std::uint64_t dropped = 0;
  while (!segments_.empty() &&
         (bytes_ + incoming_bytes > limits_.max_bytes || now_ms - segments_.front().timestamp_ms > limits_.max_age.count())) {
    dropped += segments_.front().samples;
    remove_oldest();
  }
  return dropped;
}

}  // namespace gpuwatch::push
