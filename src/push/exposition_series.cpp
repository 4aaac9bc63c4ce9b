#include "push/exposition_series.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

namespace gpuwatch::push {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
}

std::optional<double> parse_exposition_value(std::string_view text) {
  if (text == "NaN") return std::nan("");
  if (text == "+Inf" || text == "Inf") return HUGE_VAL;
  if (text == "-Inf") return -HUGE_VAL;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// NAME{a="x",b="y"} VALUE [TS]; nullopt when malformed.
std::optional<TimeSeries> parse_sample_line(std::string_view line, std::int64_t timestamp_ms) {
  std::size_t i = 0;
  while (i < line.size() && is_name_char(line[i])) ++i;
  if (i == 0) return std::nullopt;
  TimeSeries series;
  series.labels.push_back({"__name__", std::string(line.substr(0, i))});
  if (i < line.size() && line[i] == '{') {
    ++i;
    for (;;) {
      while (i < line.size() && (line[i] == ' ' || line[i] == ',')) ++i;
      if (i >= line.size()) return std::nullopt;
      if (line[i] == '}') {
        ++i;
        break;
      }
      const std::size_t name_start = i;
      while (i < line.size() && is_name_char(line[i])) ++i;
      if (i == name_start || i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"') return std::nullopt;
      Label label{std::string(line.substr(name_start, i - name_start)), ""};
      i += 2;
      for (;; ++i) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') break;
        if (line[i] == '\\' && i + 1 < line.size()) {
          const char next = line[++i];
          label.value.push_back(next == 'n' ? '\n' : next);
        } else {
          label.value.push_back(line[i]);
        }
      }
      ++i;  // the closing quote
      series.labels.push_back(std::move(label));
    }
  }
  while (i < line.size() && line[i] == ' ') ++i;
  std::string_view rest = line.substr(i);
  const auto space = rest.find(' ');
  auto value = parse_exposition_value(rest.substr(0, space));
  if (!value) return std::nullopt;
  series.samples.push_back({*value, timestamp_ms});
  return series;
}

// The view gives a sample's age, not its time: the time derived from it at two pushes may
// differ by a rounding; within this it is the same sample.
constexpr std::int64_t kSameSampleSlackMs = 2;

const std::string* gpu_label_of(const TimeSeries& series) {
  for (const auto& label : series.labels) {
    if (label.name == "gpu") return &label.value;
  }
  return nullptr;
}

}  // namespace

void stamp_gpu_series(std::vector<TimeSeries>& series, const std::vector<GpuSampleTime>& gpus, std::int64_t now_ms,
                      std::map<std::string, std::int64_t>& last_pushed_ms) {
  std::map<std::string, std::int64_t> stamp;  // gpu -> its series' time
  for (const auto& gpu : gpus) {
    const auto last = last_pushed_ms.find(gpu.gpu);
    std::int64_t at = 0;
    if (last == last_pushed_ms.end()) {
      at = gpu.taken_ms > 0 ? gpu.taken_ms : now_ms;
    } else if (gpu.taken_ms > last->second + kSameSampleSlackMs) {
      at = gpu.taken_ms;
    } else if (!gpu.up) {
      at = std::max(now_ms, last->second + 1);
    } else {
      at = last->second + 1;
    }
    last_pushed_ms[gpu.gpu] = at;
    stamp[gpu.gpu] = at;
  }
  if (stamp.empty()) return;
  for (auto& s : series) {
    const std::string* gpu = gpu_label_of(s);
    if (!gpu) continue;
    const auto it = stamp.find(*gpu);
    if (it == stamp.end()) continue;
    for (auto& sample : s.samples) sample.timestamp_ms = it->second;
  }
}

std::vector<TimeSeries> series_from_exposition(std::string_view text, std::int64_t timestamp_ms,
                                               const std::vector<Label>& extra_labels) {
  std::vector<TimeSeries> out;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (line.empty() || line.front() == '#') continue;
    auto series = parse_sample_line(line, timestamp_ms);
    if (!series) continue;
    for (const auto& extra : extra_labels) {
      bool present = false;
      for (const auto& label : series->labels) present = present || label.name == extra.name;
      if (!present) series->labels.push_back(extra);
    }
    out.push_back(std::move(*series));
  }
  return out;
}

}  // namespace gpuwatch::push
