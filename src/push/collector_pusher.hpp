#pragma once
// serve and record --remote-write URL [--remote-write-config FILE]: the pusher over a collector's /metrics body.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "live/collector.hpp"
#include "exporter/prometheus_encoder.hpp"
#include "push/pusher.hpp"

namespace gpuwatch::push {

// What a push tick takes from VIEW at NOW: the /metrics body, whether every GPU has its first
// sample (as /readyz), and when each GPU's latest sample was taken (NOW less its age).
// INTERVAL, the collector's, gives when the next samples should have finished (Collected::next_samples_in).
Collected collect_from_view(const live::LiveView& view, const exporter::EncodeOptions& encode,
                            std::chrono::system_clock::time_point now, std::chrono::milliseconds interval = {});

struct PushArgs {
  std::string url;          // "" = no push
  std::string config_file;  // push_config.hpp
};

// Null when ARGS.url is empty. COLLECTOR and ENCODE are the command's (serve's: the pushed series are /metrics's),
// HOSTNAME the default instance label, DB_PATH the history database ("" when not recording).
core::Result<std::unique_ptr<Pusher>> start_collector_pusher(const PushArgs& args, const live::Collector& collector,
                                                         exporter::EncodeOptions encode, const std::string& hostname,
                                                         const std::string& db_path, std::chrono::milliseconds interval,
                                                         std::function<void(const std::string&)> log);

}  // namespace gpuwatch::push
