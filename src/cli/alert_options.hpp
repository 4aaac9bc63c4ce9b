#pragma once
// The alert flags shared by `serve` and `record`: --alert-rules, --no-alerts, --notify,
// --notify-config. What they do: alerting/live_alerts.hpp.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuwatch::cli {

struct AlertArgs {
  std::string rules_file;                 // "": the built-in rules
  bool no_alerts = false;
  std::vector<std::string> notify;        // --notify SPEC (repeatable)
  std::string notify_config;              // --notify-config FILE
};

void add_alert_options(CLI::App& command, AlertArgs& args);

}  // namespace gpuwatch::cli
