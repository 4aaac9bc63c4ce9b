// The host line (issue 25): status's host line parts, fitted to the screen's width every frame.
#include <string_view>

#include "status/host_line.hpp"
#include "tui/frame_sections.hpp"
#include "tui/line_builder.hpp"

namespace gpuwatch::tui {

void host_line_area(const HostLineView& host, Frame& frame) {
  static constexpr std::string_view kHostLabel = "host  ";
  const auto columns = static_cast<std::size_t>(frame.width);
  const bool wide = status::host_parts_that_fit(host.wide, kHostLabel.size(), columns) == host.wide.size();
  const std::vector<std::string>& parts = wide ? host.wide : host.brief;
  const std::size_t shown = wide ? parts.size() : status::host_parts_that_fit(parts, kHostLabel.size(), columns);
  LineBuilder b(frame.width);
  b.add("host", Tone::Accent).add("  ");
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) b.add(std::string(status::kHostPartSeparator), Tone::Dim);
    const bool cpu = parts[i].starts_with("CPU ");
    b.add(parts[i], !cpu || host.cpu == terminal::Severity::Ok ? Tone::Normal
                    : host.cpu == terminal::Severity::Warn  ? Tone::Warn
                                                             : Tone::Critical);
  }
  if (shown == 0) b.add("N/A (no /proc/stat, /proc/meminfo or counters readable)", Tone::Dim);
  frame.lines.push_back(b.take());
}

}  // namespace gpuwatch::tui
