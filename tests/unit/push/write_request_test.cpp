#include "push/write_request.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>


namespace write_request_test {

using gpuwatch::push::Label;
using gpuwatch::push::Sample;
using gpuwatch::push::TimeSeries;

// A tiny protobuf reader: enough of the wire format to decode a WriteRequest back.
struct Reader {
  std::string_view data;
  std::size_t at = 0;
  bool done() const { return at >= data.size(); }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; at < data.size(); shift += 7) {
      const auto byte = static_cast<std::uint8_t>(data[at++]);
      v |= std::uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) break;
    }
    return v;
  }
  std::string_view bytes() {
    const auto n = varint();
    auto out = data.substr(at, n);
    at += n;
    return out;
  }
  double fixed64() {
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits |= std::uint64_t{static_cast<std::uint8_t>(data[at++])} << (8 * i);
    return std::bit_cast<double>(bits);
  }
};

std::vector<TimeSeries> decode(std::string_view bytes) {
  std::vector<TimeSeries> out;
  Reader request{bytes};
  while (!request.done()) {
    EXPECT_EQ(request.varint(), (1u << 3) | 2u);  // timeseries, length-delimited
    Reader ts{request.bytes()};
    TimeSeries series;
    while (!ts.done()) {
      const auto key = ts.varint();
      Reader inner{ts.bytes()};
      if (key == ((1u << 3) | 2u)) {
        Label l;
        EXPECT_EQ(inner.varint(), (1u << 3) | 2u);
        l.name = std::string(inner.bytes());
        EXPECT_EQ(inner.varint(), (2u << 3) | 2u);
        l.value = std::string(inner.bytes());
        series.labels.push_back(l);
      } else {
        EXPECT_EQ(key, (2u << 3) | 2u);
        Sample s;
        EXPECT_EQ(inner.varint(), (1u << 3) | 1u);
        s.value = inner.fixed64();
        EXPECT_EQ(inner.varint(), (2u << 3) | 0u);
        s.timestamp_ms = static_cast<std::int64_t>(inner.varint());
        series.samples.push_back(s);
      }
    }
    out.push_back(series);
  }
  return out;
}

TEST(PushWriteRequest, KnownBytesOfOneLabelAndSample) {
  TimeSeries s{{{"a", "b"}}, {{1.0, 1}}};
  const std::string bytes = gpuwatch::push::encode_write_request({s});
  // 0a 15 | 0a 06 (0a 01 'a' 12 01 'b') | 12 0b (09 <1.0 LE> 10 01)
  const std::string expected("\x0a\x15\x0a\x06\x0a\x01\x61\x12\x01\x62\x12\x0b\x09\x00\x00\x00\x00\x00\x00\xf0\x3f\x10\x01", 23);
  EXPECT_EQ(bytes, expected);
}

TEST(PushWriteRequest, LabelsSortedByNameAndSamplesByTime) {
  TimeSeries s{{{"gpu", "0"}, {"__name__", "gpuwatch_power_watts"}, {"cluster", "a"}, {"empty", ""}},
               {{3.5, 2000}, {1.25, 1000}}};
  const auto decoded = decode(gpuwatch::push::encode_write_request({s}));
  ASSERT_EQ(decoded.size(), 1u);
  ASSERT_EQ(decoded[0].labels.size(), 3u);  // the empty-valued label is left out
  EXPECT_EQ(decoded[0].labels[0], (Label{"__name__", "gpuwatch_power_watts"}));
  EXPECT_EQ(decoded[0].labels[1], (Label{"cluster", "a"}));
  EXPECT_EQ(decoded[0].labels[2], (Label{"gpu", "0"}));
  ASSERT_EQ(decoded[0].samples.size(), 2u);
  EXPECT_EQ(decoded[0].samples[0].timestamp_ms, 1000);
  EXPECT_DOUBLE_EQ(decoded[0].samples[0].value, 1.25);
  EXPECT_EQ(decoded[0].samples[1].timestamp_ms, 2000);
  EXPECT_DOUBLE_EQ(decoded[0].samples[1].value, 3.5);
}

TEST(PushWriteRequest, LargeTimestampsAndLongStringsRoundTrip) {
  const std::string long_value(300, 'x');  // a two-byte length varint
  TimeSeries s{{{"__name__", "m"}, {"v", long_value}}, {{-2.5, 1764612000123}}};
  const auto decoded = decode(gpuwatch::push::encode_write_request({s, s}));
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_EQ(decoded[1].labels[1].value, long_value);
  EXPECT_EQ(decoded[1].samples[0].timestamp_ms, 1764612000123);
  EXPECT_DOUBLE_EQ(decoded[1].samples[0].value, -2.5);
}

}  // namespace write_request_test
