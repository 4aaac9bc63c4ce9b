#include "notify/message_text.hpp"

#include <cstdio>
#include <ctime>
#include <set>

namespace gpuwatch::notify {
namespace {

std::tm utc(alerts::TimePoint t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(t));
  std::tm out{};
  gmtime_r(&seconds, &out);
  return out;
}

}  // namespace

std::string rfc3339(alerts::TimePoint t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  const int millis = static_cast<int>(ms - static_cast<long long>(seconds) * 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char out[64];
  std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return out;
}

std::string rfc5322_date(alerts::TimePoint t) {
  std::tm tm = utc(t);
  char out[64];
  std::strftime(out, sizeof out, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return out;
}

std::string human_duration(std::chrono::seconds span) {
  long long s = span.count();
  if (s < 0) s = 0;
  const long long d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60, sec = s % 60;
  if (d > 0) return std::to_string(d) + "d " + std::to_string(h) + "h";
  if (h > 0) return std::to_string(h) + "h " + std::to_string(m) + "m";
  if (m > 0) return std::to_string(m) + "m " + std::to_string(sec) + "s";
  return std::to_string(sec) + "s";
}

std::string truncate_utf8(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  const std::string ellipsis = "…";
  if (max_bytes < ellipsis.size()) return text.substr(0, 0);
  std::size_t cut = max_bytes - ellipsis.size();
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not mid-character
  return text.substr(0, cut) + ellipsis;
}

std::string alert_target(const alerts::Alert& alert) {
  return alert.gpu ? "GPU " + std::to_string(*alert.gpu) : std::string("node");
}

std::string annotation_text(const alerts::Alert& alert, const std::string& name, core::TextSink sink) {
  const auto pieces = alert.raw_annotations.find(name);
  if (pieces == alert.raw_annotations.end() || sink == core::TextSink::PlainLine) {
    const auto it = alert.annotations.find(name);
    return it == alert.annotations.end() ? std::string() : core::encode_for(sink, it->second);
  }
  std::string out;
  for (const auto& piece : pieces->second) out += piece.raw ? piece.text : core::encode_for(sink, piece.text);
  return out;
}

std::string alert_summary(const alerts::Alert& alert, core::TextSink sink) {
  for (const char* key : {"summary", "description"}) {
    auto it = alert.annotations.find(key);
    if (it != alert.annotations.end() && !it->second.empty()) return annotation_text(alert, key, sink);
  }
  return core::encode_for(sink, alert.rule);
}

std::string event_line(const alerts::AlertEvent& event, core::TextSink sink) {
  const auto& alert = event.alert;
  const std::string rule = core::encode_for(sink, alert.rule);
  if (event.kind == alerts::EventKind::Resolved) {
    std::string line = "resolved " + rule + " on " + alert_target(alert);
    if (alert.fired_at) {
      const auto end = alert.resolved_at.value_or(event.at);
      line += " (after " + human_duration(std::chrono::duration_cast<std::chrono::seconds>(end - *alert.fired_at)) + ")";
    }
    return line;
  }
  std::string line = std::string(alerts::to_string(alert.severity)) + " " + rule + " on " + alert_target(alert) +
                     ": " + alert_summary(alert, sink);
  if (event.kind == alerts::EventKind::Repeat) {
    line += " (still firing since " + rfc3339(alert.fired_at.value_or(alert.active_since)) + ")";
  }
  return line;
}

std::string event_lines(const Group& group, core::TextSink sink, std::size_t max_lines, const std::string& bullet) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& event : group.events) {
    if (shown == max_lines) {
      out += bullet + "... and " + std::to_string(group.events.size() - shown) + " more\n";
      break;
    }
    out += bullet + event_line(event, sink) + "\n";
    ++shown;
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string group_title(const Group& group, core::TextSink sink) {
  std::size_t firing = 0, resolved = 0;
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& event : group.events) {
    (event.kind == alerts::EventKind::Resolved ? resolved : firing) += 1;
    if (seen.insert(event.alert.rule).second) names.push_back(core::encode_for(sink, event.alert.rule));
  }
  std::string status;
  if (firing > 0) status = "FIRING:" + std::to_string(firing);
  if (resolved > 0) {
    status += (status.empty() ? "" : ", ") +
              (firing > 0 ? "RESOLVED:" + std::to_string(resolved) : std::string("RESOLVED"));
  }
  std::string list;
  for (std::size_t i = 0; i < names.size() && i < 4; ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > 4) list += " and " + std::to_string(names.size() - 4) + " more";
  return "[" + status + "] " + list + (group.host.empty() ? "" : " on " + core::encode_for(sink, group.host));
}

}  // namespace gpuwatch::notify
