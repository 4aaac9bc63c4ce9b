#include "remote/remote_events.hpp"

#include <nlohmann/json.hpp>

#include "core/field_table.hpp"
#include "live/sample_history.hpp"
#include "remote/json_field_value.hpp"

namespace gpuwatch::remote {

std::vector<ServerSentEvent> SseParser::feed(std::string_view chunk) {
  std::vector<ServerSentEvent> out;
  while (!chunk.empty()) {
    const auto end = chunk.find('\n');
    if (end == std::string_view::npos) {
      if (line_.size() + chunk.size() > kMaxLine) {
        overflowed_ = true;
        line_.clear();
      } else {
        line_.append(chunk);
      }
      break;
    }
    std::string_view piece = chunk.substr(0, end);
    chunk.remove_prefix(end + 1);
    if (!line_.empty()) {
      line_.append(piece);
      std::string line = std::move(line_);
      line_.clear();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      take_line(line, out);
    } else {
      if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
      take_line(piece, out);
    }
  }
  return out;
}

void SseParser::take_line(std::string_view line, std::vector<ServerSentEvent>& out) {
  if (line.empty()) {  // the end of an event
    if (has_field_ && !current_.data.empty()) {
      if (current_.data.back() == '\n') current_.data.pop_back();
      out.push_back(std::move(current_));
    }
    current_ = ServerSentEvent{};
    has_field_ = false;
    return;
  }
  if (line.front() == ':') return;  // a comment
  const auto colon = line.find(':');
  std::string_view name = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (name == "data") {
    current_.data.append(value);
    current_.data.push_back('\n');
    has_field_ = true;
  } else if (name == "event") {
    current_.type = std::string(value);
    has_field_ = true;
  } else if (name == "id") {
    current_.id = std::string(value);
    has_field_ = true;
  }
}

core::Result<std::uint64_t> apply_sample_event(std::string_view data, RemoteSnapshot& last) {
  nlohmann::json row = nlohmann::json::parse(data, nullptr, false);
  if (row.is_discarded() || !row.is_object()) return core::make_error("a sample event that is not a JSON object");
  auto gpu = row.find("gpu");
  auto seq = row.find("seq");
  if (gpu == row.end() || !gpu->is_number_unsigned() || seq == row.end() || !seq->is_number_unsigned()) {
    return core::make_error("a sample event without gpu and seq");
  }
  const auto index = gpu->get<std::uint64_t>();
  std::size_t at = 0;
  while (at < last.snapshot.devices.size() && last.snapshot.devices[at].index != index) ++at;
  if (at == last.snapshot.devices.size() || at >= last.status.size()) {
    return core::make_error("a sample event of GPU " + std::to_string(index) + ", not in the last snapshot");
  }
  core::DeviceSnapshot& device = last.snapshot.devices[at];
  for (core::FieldId id : live::kHistoryFields) {
    auto found = row.find(std::string(core::field_info(id).json_key));
    if (found == row.end()) continue;  // not sent: keep the snapshot's value
    auto value = field_value_of_json(*found, JsonText::dropped);
    device.get(id) = value ? core::FieldReading::of(*value) : core::FieldReading{};  // null: absent
  }
  live::DeviceStatus& status = last.status[at];
  status.has_sample = true;
  status.up = row.value("up", false);
  status.sample_age_seconds = 0;
  return seq->get<std::uint64_t>();
}

}  // namespace gpuwatch::remote
