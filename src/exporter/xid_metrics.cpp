#include "exporter/xid_metrics.hpp"

#include "exporter/text_family.hpp"

namespace gpuwatch::exporter {
namespace {

void encode_xid(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out,
                std::string_view counter_name, std::string_view timestamp_name) {
  if (view.xid_events.empty()) return;
  Family count(out, counter_name, "counter",
               "Xid error events the driver reported for the GPU since the exporter started, by Xid number");
  for (const auto& x : view.xid_events) {
    if (x.gpu >= labels.size()) continue;
    std::string l = labels[x.gpu];
    add_label(l, "xid", std::to_string(x.xid));
    count.sample(l, std::to_string(x.count));
  }
  Family last(out, timestamp_name, "gauge",
              "When the latest Xid event of this number was received (Unix seconds; the driver gives no time)");
  for (const auto& x : view.xid_events) {
    if (x.gpu >= labels.size()) continue;
    std::string l = labels[x.gpu];
    add_label(l, "xid", std::to_string(x.xid));
    last.sample(l, format_double(x.last_seen_unix_s));
  }
}

}  // namespace

void encode_xid_native(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  encode_xid(view, labels, out, "gpuwatch_xid_errors_total", "gpuwatch_xid_last_timestamp_seconds");
}

void encode_xid_nvidia_smi(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  encode_xid(view, labels, out, "nvidia_smi_xid_errors_total", "nvidia_smi_xid_last_timestamp_seconds");
}

}  // namespace gpuwatch::exporter
