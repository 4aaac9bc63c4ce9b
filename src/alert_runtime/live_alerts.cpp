#include "alert_runtime/live_alerts.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "alerts/builtin_rules.hpp"
#include "alerts/rule_parser.hpp"
#include "core/bounded_read.hpp"
#include "core/exit_codes.hpp"
#include "notify/channel_config.hpp"
#include "notify/dispatcher.hpp"
#include "notify/queue.hpp"

namespace gpuwatch::alert_runtime {

core::Result<PreparedAlerts> prepare_alerts(const AlertFlags& flags) {
  PreparedAlerts prepared;
  if (flags.rules_file.empty()) {
    prepared.rules = alerts::builtin_rules();
  } else {
    // A regular file of at most 1 MiB (core/bounded_read.hpp): a FIFO or a device is refused at once.
    auto text = core::read_regular_file(flags.rules_file, "--alert-rules", core::kMaxConfigFileBytes);
    if (!text) return core::make_error(text.error().message, core::kExitUsage);
    auto rules = alerts::parse_rules(*text, flags.rules_file);
    if (!rules) return core::make_error("--alert-rules: " + rules.error().message, core::kExitUsage);
    prepared.rules = std::move(*rules);
  }
  if (!flags.notify_specs.empty() || !flags.notify_config.empty()) {
    auto channels = notify::parse_channels(flags.notify_specs, flags.notify_config);
    if (!channels) return core::make_error(channels.error().message, core::kExitUsage);
    prepared.channels = std::move(*channels);
  }
  return prepared;
}

LiveAlerts::~LiveAlerts() { stop(); }

core::Result<std::unique_ptr<LiveAlerts>> LiveAlerts::start(PreparedAlerts prepared, LiveAlertsOptions options) {
  std::unique_ptr<LiveAlerts> live(new LiveAlerts());
  live->rules_source_ = prepared.rules.source;
  live->rule_count_ = prepared.rules.rules.size();
  if (!prepared.channels.empty()) {
    std::unique_ptr<notify::Queue> queue;
    if (options.db_path.empty()) {
      queue = notify::memory_queue();
    } else {
      auto opened = notify::database_queue(options.db_path);
      if (!opened) return opened.error();
      queue = std::move(*opened);
    }
    notify::DispatcherOptions dispatcher_options;
    dispatcher_options.log = options.log;
    live->dispatcher_ = std::make_unique<notify::Dispatcher>(std::move(prepared.channels), std::move(queue), dispatcher_options);
  }
  MonitorOptions monitor_options;
  monitor_options.db_path = options.db_path;
  monitor_options.clock = TimeMap(std::chrono::system_clock::now(), options.time_scale);
  monitor_options.log = options.log;
  monitor_options.publish = options.publish;
  if (live->dispatcher_) {
    notify::Dispatcher* dispatcher = live->dispatcher_.get();
    monitor_options.notify = [dispatcher](const std::vector<alerts::AlertEvent>& events,
                                          const std::vector<alerts::Alert>& active) {
      std::vector<alerts::Alert> firing;
      for (const auto& alert : active) {
        if (alert.state == alerts::AlertState::Firing) firing.push_back(alert);
      }
      dispatcher->update_firing(std::move(firing));
      dispatcher->submit(events);
    };
  }
  auto monitor = AlertMonitor::open(alerts::Engine(std::move(prepared.rules), options.host), std::move(monitor_options));
  if (!monitor) return monitor.error();
  live->monitor_ = std::move(*monitor);
  if (live->dispatcher_) {
    // The firing alerts restored from the history are the dispatcher's too from the start: a
    // message before their first event (their resolution, a repeat) counts them as firing.
    std::vector<alerts::Alert> firing;
    for (const auto& alert : live->monitor_->active()) {
      if (alert.state == alerts::AlertState::Firing) firing.push_back(alert);
    }
    live->dispatcher_->update_firing(std::move(firing));
    live->dispatcher_->start();
  }
  return live;
}

void LiveAlerts::tick(alerts::TickInput tick) { monitor_->tick(std::move(tick)); }

void LiveAlerts::stop() {
  if (dispatcher_) dispatcher_->stop();
}

std::vector<alerts::Alert> LiveAlerts::active() const { return monitor_->active(); }

std::string LiveAlerts::summary() const {
  std::string text = fmt::format("{} alert rules ({})", rule_count_, rules_source_);
  if (dispatcher_) {
    std::string names;
    for (const auto& channel : dispatcher_->channels()) names += (names.empty() ? "" : ", ") + notify::describe(channel);
    text += ", notifying " + names;
  } else {
    text += ", no notification channel (--notify)";
  }
  if (monitor_->restored() > 0) text += fmt::format("; {} open alert(s) restored from the history", monitor_->restored());
  return text;
}

}  // namespace gpuwatch::alert_runtime
