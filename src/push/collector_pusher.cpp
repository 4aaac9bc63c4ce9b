#include "push/collector_pusher.hpp"

namespace gpuwatch::push {

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
  options.collect = [&collector, encode] {
    std::string out;
    collector.with_view([&](const live::LiveView& view) { exporter::encode_prometheus(view, encode, out); });
    return out;
  };
  return Pusher::start(std::move(options));
}

}  // namespace gpuwatch::push
