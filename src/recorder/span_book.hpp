#pragma once
// Spans of one value per process and GPU across samples, for the tables the recorder keeps as
// spans rather than per sample (recorder/owner_spans.hpp, recorder/command_spans.hpp): a
// process keeps its span while it is in every sample with an equal value; a new span starts
// when the value changes or the process comes back after a sample without it. What a flush
// writes is every span started or extended since the last write (an upsert by gpu_key, pid and
// first_ms: writing one twice is harmless). ROW has `std::int64_t last_ms`. Pure.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gpuwatch::recorder {

template <class Row>
class SpanBook {
 public:
  // Starts a sample taken at T_MS (Unix ms).
  void begin(std::int64_t t_ms) {
    t_ms_ = t_ms;
    seen_.clear();
  }
  // In this sample, PID on the GPU GPU_KEY has a value: SAME(open row) says whether the open span
  // goes on (it is then extended to this sample, after EXTEND(row)); else MAKE() is the new span's
  // row. A PID listed twice on one GPU (compute and graphics) counts once.
  template <class Same, class Extend, class Make>
  void see(const std::string& gpu_key, std::uint32_t pid, Same same, Extend extend, Make make) {
    const Key k{gpu_key, pid};
    if (seen_.count(k)) return;
    auto open = open_.find(k);
    if (open != open_.end() && same(open->second.row) && t_ms_ >= open->second.row.last_ms) {
      Span span = std::move(open->second);
      span.row.last_ms = t_ms_;
      extend(span.row);
      span.dirty = true;
      open_.erase(open);
      seen_.emplace(k, std::move(span));
      return;
    }
    seen_.emplace(k, Span{make(), true});
  }
  // Ends the sample: what was open and not seen (gone, or another value now) has ended.
  void end() {
    for (auto& [k, span] : open_) {
      if (span.dirty) closed_.push_back(std::move(span.row));
    }
    open_ = std::move(seen_);
    seen_.clear();
  }
  // The spans started or extended since the last written(): what a flush writes.
  std::vector<Row> pending() const {
    std::vector<Row> out = closed_;
    for (const auto& [k, span] : open_) {
      if (span.dirty) out.push_back(span.row);
    }
    return out;
  }
  // The rows of pending() are in the database.
  void written() {
    closed_.clear();
    for (auto& [k, span] : open_) span.dirty = false;
  }
  std::size_t open_spans() const { return open_.size(); }

 private:
  using Key = std::tuple<std::string, std::uint32_t>;  // gpu_key, pid
  struct Span {
    Row row;
    bool dirty = true;
  };
  std::int64_t t_ms_ = 0;
  std::map<Key, Span> open_, seen_;  // seen in the latest sample; in this one
  std::vector<Row> closed_;          // ended since the last write, not yet written
};

}  // namespace gpuwatch::recorder
