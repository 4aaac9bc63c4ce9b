#include "push/collector_pusher.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gpuwatch::push {

Collected collect_from_view(const live::LiveView& view, const exporter::EncodeOptions& encode,
                            std::chrono::system_clock::time_point now, std::chrono::milliseconds interval) {
  Collected out;
  out.ready = std::all_of(view.status.begin(), view.status.end(), [](const live::DeviceStatus& s) { return s.has_sample; });
  exporter::encode_prometheus(view, encode, out.text);
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::size_t devices = view.snapshot ? std::min(view.snapshot->devices.size(), view.status.size()) : 0;
  for (std::size_t i = 0; i < devices; ++i) {
    const live::DeviceStatus& status = view.status[i];
    const std::string gpu = std::to_string(view.snapshot->devices[i].index);
    if (!status.has_sample) {  // its series (if any) at the push; its first sample is not sent back in time
      out.gpus.push_back({gpu, 0, false});
      continue;
    }
    out.gpus.push_back({gpu, now_ms - std::llround(status.sample_age_seconds * 1000.0), status.up});
    if (out.ready && status.up && interval.count() > 0) {
      const auto finishes_in = interval - std::chrono::milliseconds(std::llround(
                                              (status.sample_age_seconds - status.collect_duration_seconds) * 1000.0));
      out.next_samples_in = std::max(out.next_samples_in, finishes_in);
    }
  }
  return out;
}

core::Result<std::unique_ptr<Pusher>> start_collector_pusher(const PushArgs& args, const live::Collector& collector,
                                                         exporter::EncodeOptions encode, const std::string& hostname,
                                                         const std::string& db_path, std::chrono::milliseconds interval,
                                                         std::function<void(const std::string&)> log) {
  if (args.url.empty()) {
    if (!args.config_file.empty()) return core::make_error("--remote-write-config needs --remote-write URL");
    return std::unique_ptr<Pusher>();
  }
  auto config = load_push_config(args.url, args.config_file);
  if (!config) return config.error();
  if (config->buffer_dir.empty()) config->buffer_dir = default_buffer_dir(db_path);
  // What a scrape would add: job and instance, unless the external labels name them.
  config->external_labels.push_back({"job", "gpuwatch"});
  config->external_labels.push_back({"instance", hostname});
  PusherOptions options;
  options.config = std::move(*config);
  options.interval = interval;
  options.log = std::move(log);
  options.collect = [&collector, encode, interval] {
    Collected out;
    collector.with_view(
        [&](const live::LiveView& view) { out = collect_from_view(view, encode, std::chrono::system_clock::now(), interval); });
    return out;
  };
  return Pusher::start(std::move(options));
}

}  // namespace gpuwatch::push
