#pragma once
// prometheus.WriteRequest (prompb/remote.proto, types.proto), encoded by hand: the subset
// remote-write 1.0 needs. Pure.
//   WriteRequest { repeated TimeSeries timeseries = 1; }
//   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
//   Label        { string name = 1; string value = 2; }
//   Sample       { double value = 1; int64 timestamp = 2; }   // timestamp in ms since the epoch
#include <cstdint>
#include <string>
#include <vector>

namespace gpuwatch::push {

struct Label {
  std::string name, value;
  bool operator==(const Label&) const = default;
};

struct Sample {
  double value = 0;
  std::int64_t timestamp_ms = 0;
};

struct TimeSeries {
  std::vector<Label> labels;    // __name__ among them; sorted by name when encoded
  std::vector<Sample> samples;  // sorted by time when encoded
};

// The protobuf bytes (uncompressed). Labels are sorted by name and samples by time, as the
// spec requires; empty label values are left out (the spec: a label with an empty value is absent).
std::string encode_write_request(std::vector<TimeSeries> series);

// Wire-format primitives (exposed for the tests' decoder).
void append_varint(std::string& out, std::uint64_t value);

}  // namespace gpuwatch::push
