#pragma once
// Another host's event stream (GET /api/v1/events, docs/api.md) read back, for `top --connect`:
// an incremental server-sent-events parser (bytes in, whole events out, however the chunks fall),
// and a `sample` event applied to the GPU it names in that host's last snapshot. Pure:
// remote_node.cpp reads the bytes (the HTTP library stays there).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "remote/remote_node.hpp"

namespace gpuwatch::remote {

struct ServerSentEvent {
  std::string type = "message";  // the `event:` line
  std::string data;              // the `data:` lines, joined by '\n'
  std::string id;                // the `id:` line; empty when none
};

class SseParser {
 public:
  // A line longer than this (serve's lines are a few KB) means this is not an event stream.
  static constexpr std::size_t kMaxLine = 1 << 20;

  // The events that CHUNK completes (a blank line ends an event). Lines end with "\n" or "\r\n".
  // Comments (": keep-alive"), `retry:` and unknown fields are skipped.
  std::vector<ServerSentEvent> feed(std::string_view chunk);
  // A line grew past kMaxLine: what is held was dropped, and the reader should reconnect.
  bool overflowed() const { return overflowed_; }

 private:
  void take_line(std::string_view line, std::vector<ServerSentEvent>& out);
  std::string line_;
  ServerSentEvent current_;
  bool has_field_ = false;
  bool overflowed_ = false;
};

// Applies a `sample` event's data (one history row: "gpu", "up" and the history columns, null
// when absent) to that GPU of LAST: its values, up, and a sample age of 0. Returns the event's
// "seq". Errors: not a sample row, or a GPU the snapshot does not have (LAST is left as it was).
core::Result<std::uint64_t> apply_sample_event(std::string_view data, RemoteSnapshot& last);

}  // namespace gpuwatch::remote
