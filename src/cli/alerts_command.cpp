// `gpuwatch alerts`: the alerts of serve/record, and their notification channels.
//   gpuwatch alerts test CHANNEL [--notify-config FILE]
//     sends a test message to one channel (a --notify spec such as webhook=URL or desktop, or a
//     channel NAME of the config file) and prints the receiver's answer. Exit 0: the receiver
//     accepted it; 1: it did not (down, refused, an error status); 2: a bad channel or config.
//   gpuwatch alerts [--db FILE] [--since TIME] [--json]
//     the pending and firing alerts serve/record keep in the history database, and recent events.
//   gpuwatch alerts rules [--alert-rules FILE] [--prometheus]
//     the rule set, checked; or its Prometheus twin.
// Flags and wiring only: the channels, their payloads and transport are src/notify/.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/bounded_read.hpp"
#include "core/sink_text.hpp"
#include "alert_runtime/listing.hpp"
#include "alerts/builtin_rules.hpp"
#include "alerts/rule_parser.hpp"
#include "cli/command.hpp"
#include "core/time_spec.hpp"
#include "store/database_path.hpp"
#include "terminal/style.hpp"
#include "cli/exit_codes.hpp"
#include "notify/channel_config.hpp"
#include "notify/sender.hpp"

namespace gpuwatch::cli {
namespace {

struct AlertsTestArgs {
  std::string channel;
  std::string notify_config;
};

int run_alerts_test(const AlertsTestArgs& args) {
  auto channels = notify::parse_channels({args.channel}, args.notify_config);
  if (!channels) {
    fmt::print(stderr, "gpuwatch alerts test: {}\n", channels.error().message);
    return kExitUsage;
  }
  const notify::Channel& channel = channels->front();
  fmt::print("sending a test message to {}\n", core::terminal_text(notify::describe(channel)));
  std::fflush(stdout);
  const notify::SendResult result = notify::send_test(channel);
  if (result.accepted) {
    fmt::print("accepted: {}\n", notify::summarize(result));
    return kExitOk;
  }
  fmt::print(stderr, "gpuwatch alerts test: {}: not accepted: {}\n", core::terminal_text(channel.name), notify::summarize(result));
  return kExitRuntimeError;
}

struct AlertsListArgs {
  std::string db, since = "24h";
  bool json = false;
};

// The bare `gpuwatch alerts`: what serve and record keep in the history database.
int run_alerts_list(const AlertsListArgs& args, const GlobalOptions& global) {
  std::string db_path = args.db.empty() ? store::default_database_path() : args.db;
  if (db_path.empty()) {
    fmt::print(stderr, "gpuwatch alerts: {}\n", store::no_default_database_message());
    return kExitUsage;
  }
  auto since = core::parse_time_spec(args.since, std::chrono::system_clock::now());
  if (!since) {
    fmt::print(stderr, "gpuwatch alerts: --since: {}\n", since.error().message);
    return kExitUsage;
  }
  auto listing = alert_runtime::read_listing(
      db_path, alerts::TimePoint(std::chrono::duration_cast<alerts::TimePoint::duration>(std::chrono::milliseconds(*since))));
  if (!listing) {
    fmt::print(stderr, "gpuwatch alerts: {}: {}\nserve and record evaluate the alert rules and keep their state there; "
                       "give --db FILE for another history\n",
               db_path, listing.error().message);
    return kExitRuntimeError;
  }
  if (args.json) {
    fmt::print("{}", alert_runtime::render_listing_json(*listing));
  } else {
    fmt::print("{}", alert_runtime::render_listing_text(*listing,
                                                   terminal::should_use_color(global.no_color, terminal::stdout_is_terminal())));
  }
  return kExitOk;
}

struct AlertsRulesArgs {
  std::string rules_file;
  bool prometheus = false;
};

// `gpuwatch alerts rules`: the rule set serve and record evaluate (built-in, or --alert-rules FILE
// checked), as YAML, or rendered for Prometheus (the twins: deploy/prometheus/gpuwatch-rules.yaml).
int run_alerts_rules(const AlertsRulesArgs& args) {
  alerts::RuleSet rules;
  std::string text;
  if (args.rules_file.empty()) {
    rules = alerts::builtin_rules();
    text = std::string(alerts::builtin_rules_yaml());
  } else {
    // As serve's --alert-rules: a regular file of at most 1 MiB; a FIFO or a device is refused at once.
    auto read = core::read_regular_file(args.rules_file, "--alert-rules", core::kMaxConfigFileBytes);
    if (!read) {
      fmt::print(stderr, "gpuwatch alerts rules: {}\n", core::terminal_lines(read.error().message));
      return kExitUsage;
    }
    text = std::move(*read);
    auto parsed = alerts::parse_rules(text, args.rules_file);
    if (!parsed) {
      fmt::print(stderr, "gpuwatch alerts rules: {}\n", parsed.error().message);
      return kExitUsage;
    }
    rules = std::move(*parsed);
  }
  fmt::print("{}", args.prometheus ? alerts::prometheus_rules_yaml(rules) : text);
  return kExitOk;
}

}  // namespace

Command add_alerts_command(CLI::App& app) {
  Command command;
  CLI::App* alerts = app.add_subcommand("alerts", "The alerts serve and record evaluate: firing and pending ones and recent events; `alerts test CHANNEL` checks a notification channel, `alerts rules` prints the rules");
  alerts->require_subcommand(0, 1);
  command.app = alerts;

  auto test_args = std::make_shared<AlertsTestArgs>();
  CLI::App* test = alerts->add_subcommand(
      "test", "Send a test message to one notification channel and print the receiver's answer "
              "(exit 0 accepted, 1 not accepted, 2 bad channel or config)");
  test->add_option("channel", test_args->channel,
                   "The channel: a --notify spec (webhook=URL, slack=URL, discord=URL, teams=URL, ntfy=URL, "
                   "alertmanager=URL, desktop, exec=COMMAND) or a channel NAME of --notify-config")
      ->required();
  test->add_option("--notify-config", test_args->notify_config,
                   "YAML file of notification channels; secrets come from files or the environment (url_file/url_env, "
                   "password_file/password_env, token_file/token_env) and are never printed (docs/alerts.md#channels)");

  auto list_args = std::make_shared<AlertsListArgs>();
  alerts->add_option("--db", list_args->db,
                     "The history database serve/record keep the alerts in [default: as record's, see `record --help`]");
  alerts->add_option("--since", list_args->since, "Events from this time on: 1h, 7d, 2026-11-29T14:00, @UNIX [default: 24h]")
      ->type_name("TIME");
  alerts->add_flag("--json", list_args->json, "JSON: {\"alerts\": [pending and firing], \"events\": [...]} (docs/alerts.md)");

  auto rules_args = std::make_shared<AlertsRulesArgs>();
  CLI::App* rules = alerts->add_subcommand(
      "rules", "Print the alert rules serve and record evaluate (the built-in set, or --alert-rules FILE after checking it)");
  rules->add_option("--alert-rules", rules_args->rules_file, "Check and print this rules file instead of the built-in set");
  rules->add_flag("--prometheus", rules_args->prometheus,
                  "Print the Prometheus rules file of their twins (deploy/prometheus/gpuwatch-rules.yaml is this output)");
  alerts->footer("Examples:\n"
                 "  gpuwatch alerts                          firing and pending alerts, and the last day's events\n"
                 "  gpuwatch alerts --since 7d --json        a week of alert events as JSON\n"
                 "  gpuwatch alerts test webhook=http://127.0.0.1:9000/hook   check a channel\n"
                 "  gpuwatch alerts rules --prometheus       the same rules for a Prometheus");

  command.run = [test, test_args, rules, rules_args, list_args](const GlobalOptions& global) {
    if (test->parsed()) return run_alerts_test(*test_args);
    if (rules->parsed()) return run_alerts_rules(*rules_args);
    return run_alerts_list(*list_args, global);
  };
  return command;
}

}  // namespace gpuwatch::cli
