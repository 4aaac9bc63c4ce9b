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

void append_bytes_field(std::string& out, std::uint32_t field, const std::string& bytes) {
  append_key(out, field, kWireLengthDelimited);
  append_varint(out, bytes.size());
  out += bytes;
}

std::string encode_label(const Label& label) {
  std::string out;
  append_bytes_field(out, 1, label.name);
  append_bytes_field(out, 2, label.value);
  return out;
}

std::string encode_sample(const Sample& sample) {
  std::string out;
  append_key(out, 1, kWireFixed64);
  const auto bits = std::bit_cast<std::uint64_t>(sample.value);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));  // little endian
  append_key(out, 2, kWireVarint);
  append_varint(out, static_cast<std::uint64_t>(sample.timestamp_ms));  // int64: two's complement
  return out;
}

std::string encode_series(TimeSeries series) {
  std::erase_if(series.labels, [](const Label& l) { return l.value.empty(); });
  std::stable_sort(series.labels.begin(), series.labels.end(),
                   [](const Label& a, const Label& b) { return a.name < b.name; });
  std::stable_sort(series.samples.begin(), series.samples.end(),
                   [](const Sample& a, const Sample& b) { return a.timestamp_ms < b.timestamp_ms; });
  std::string out;
  for (const auto& label : series.labels) append_bytes_field(out, 1, encode_label(label));
  for (const auto& sample : series.samples) append_bytes_field(out, 2, encode_sample(sample));
  return out;
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
  for (auto& s : series) append_bytes_field(out, 1, encode_series(std::move(s)));
  return out;
}

}  // namespace gpuwatch::push
