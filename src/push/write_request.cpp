#include "push/write_request.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace gpuwatch::push {
namespace {

constexpr std::uint32_t kWireVarint = 0;
constexpr std::uint32_t kWireFixed64 = 1;
constexpr std::uint32_t kWireLengthDelimited = 2;

void append_key(std::string& out, std::uint32_t field, std::uint32_t wire_type) {
  append_varint(out, (std::uint64_t{field} << 3) | wire_type);
}

// Every message is written straight into the one output buffer, its length computed first (a
// push is a few hundred series of ~8 labels: one string per label, sample and series was most
// of the push's allocations).
std::size_t varint_size(std::uint64_t value) {
  std::size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

std::size_t bytes_field_size(std::size_t length) { return 1 + varint_size(length) + length; }  // 1: the key (field < 16)

void append_bytes_field(std::string& out, std::uint32_t field, const std::string& bytes) {
  append_key(out, field, kWireLengthDelimited);
  append_varint(out, bytes.size());
  out += bytes;
}

std::size_t label_size(const Label& label) { return bytes_field_size(label.name.size()) + bytes_field_size(label.value.size()); }

std::size_t sample_size(const Sample& sample) {
  return 1 + 8 + 1 + varint_size(static_cast<std::uint64_t>(sample.timestamp_ms));
}

void append_sample(std::string& out, const Sample& sample) {
  append_key(out, 1, kWireFixed64);
  const auto bits = std::bit_cast<std::uint64_t>(sample.value);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));  // little endian
  append_key(out, 2, kWireVarint);
  append_varint(out, static_cast<std::uint64_t>(sample.timestamp_ms));  // int64: two's complement
}

void append_series(std::string& out, TimeSeries& series) {
  std::erase_if(series.labels, [](const Label& l) { return l.value.empty(); });
  // Label names are unique within a series, so any sort is stable; most arrive sorted already.
  auto by_name = [](const Label& a, const Label& b) { return a.name < b.name; };
  if (!std::is_sorted(series.labels.begin(), series.labels.end(), by_name))
    std::sort(series.labels.begin(), series.labels.end(), by_name);
  auto by_time = [](const Sample& a, const Sample& b) { return a.timestamp_ms < b.timestamp_ms; };
  if (!std::is_sorted(series.samples.begin(), series.samples.end(), by_time))
    std::stable_sort(series.samples.begin(), series.samples.end(), by_time);
  std::size_t size = 0;
  for (const auto& label : series.labels) size += bytes_field_size(label_size(label));
  for (const auto& sample : series.samples) size += bytes_field_size(sample_size(sample));
  append_key(out, 1, kWireLengthDelimited);  // WriteRequest.timeseries
  append_varint(out, size);
  for (const auto& label : series.labels) {
    append_key(out, 1, kWireLengthDelimited);  // TimeSeries.labels
    append_varint(out, label_size(label));
    append_bytes_field(out, 1, label.name);
    append_bytes_field(out, 2, label.value);
  }
  for (const auto& sample : series.samples) {
    append_key(out, 2, kWireLengthDelimited);  // TimeSeries.samples
    append_varint(out, sample_size(sample));
    append_sample(out, sample);
  }
}

}  // namespace

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

std::string encode_write_request(std::vector<TimeSeries> series) {
  std::string out;
  out.reserve(series.size() * 256);
  for (auto& s : series) append_series(out, s);
  return out;
}

}  // namespace gpuwatch::push
